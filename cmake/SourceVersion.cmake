# cmake -DOUTPUT=file.inc -DSALT=TEXT -P SourceVersion.cmake SOURCE...: writes the SHA-256 of
# SALT and the sources (in the order given), 16 hex digits, as a string literal: the version of
# what a persistent cache holds, so that a rebuilt producer never reads another's entries (the
# kernels: corpus/src/kernels/KernelCache.cpp, SALT the LLVM version; the analyses:
# pipeline/src/UserCaches.cpp).
set(ALL "${SALT}\n")
math(EXPR LAST "${CMAKE_ARGC} - 1")
foreach(I RANGE 0 ${LAST})
  if(CMAKE_ARGV${I} STREQUAL "-P")
    math(EXPR FIRST "${I} + 2")
  endif()
endforeach()
foreach(I RANGE ${FIRST} ${LAST})
  file(SHA256 "${CMAKE_ARGV${I}}" H)
  string(APPEND ALL "${H}\n")
endforeach()
string(SHA256 VERSION "${ALL}")
string(SUBSTRING "${VERSION}" 0 16 VERSION)
file(WRITE ${OUTPUT}.tmp "\"${VERSION}\"\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
