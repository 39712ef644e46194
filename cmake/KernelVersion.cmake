# cmake -DOUTPUT=file.inc -DLLVM_VERSION=19.1.7 -P KernelVersion.cmake SOURCE...: writes the
# SHA-256 of the kernel generators' sources (in the order given) and the LLVM version as a string
# literal: the version of the kernels a persistent kernel cache holds
# (corpus/src/kernels/KernelCache.cpp).
set(ALL "llvm ${LLVM_VERSION}\n")
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
