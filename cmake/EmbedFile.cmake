# cmake -DINPUT=file -DOUTPUT=file.inc -P EmbedFile.cmake: writes the bytes of INPUT as a
# comma-separated list of hex literals, to be included inside a char array initializer.
file(READ ${INPUT} HEX_CONTENT HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${HEX_CONTENT}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)"
       "\\1\n" BYTES "${BYTES}")
file(WRITE ${OUTPUT} "// Generated from ${INPUT} by EmbedFile.cmake; do not edit.\n${BYTES}\n")
