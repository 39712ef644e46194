# ptxcast_target_options(TARGET): warnings as errors and sanitizers for project code only.
# Dependencies' headers come in as SYSTEM includes so their warnings do not count.
function(ptxcast_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
  if(PTXCAST_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all
                                             -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

if(PTXCAST_SANITIZE)
  # Link every executable with the sanitizer runtimes (libraries are built with them too).
  add_link_options(-fsanitize=address,undefined)
endif()

# The interpreter's per-lane loops (32 lanes of 64-bit values) vectorise 4 wide with AVX2
# instead of 2 wide with the x86-64 baseline: x86-64-v3 (AVX2, FMA, BMI2; x86 CPUs since
# about 2015) cuts the instructions the analyzer executes by about a sixth (docs/benchmarks.md).
# Used only where the compiler accepts it and the build machine can run it. GCC and Clang do
# not reassociate floating point without -ffast-math, and -ffp-contract=off keeps a * b + c
# two roundings, so the counts and values do not depend on the flag. Only the analyzer gets it:
# Eigen's vectorised reductions in learners/ would sum in another order.
option(PTXCAST_X86_64_V3 "Build the analyzer for x86-64-v3 when this machine supports it" ON)
set(PTXCAST_USE_X86_64_V3 OFF)
if(PTXCAST_X86_64_V3 AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  include(CheckCXXSourceRuns)
  set(CMAKE_REQUIRED_FLAGS "-march=x86-64-v3")
  check_cxx_source_runs("int main() { __builtin_cpu_init();
    return __builtin_cpu_supports(\"avx2\") && __builtin_cpu_supports(\"fma\")
           && __builtin_cpu_supports(\"bmi2\") ? 0 : 1; }" PTXCAST_HOST_RUNS_X86_64_V3)
  unset(CMAKE_REQUIRED_FLAGS)
  set(PTXCAST_USE_X86_64_V3 ${PTXCAST_HOST_RUNS_X86_64_V3})
endif()

# ptxcast_vector_isa(TARGET): the vector instruction set above, for hot interpreter code.
function(ptxcast_vector_isa target)
  target_compile_options(${target} PRIVATE -ffp-contract=off)
  if(PTXCAST_USE_X86_64_V3)
    target_compile_options(${target} PRIVATE -march=x86-64-v3)
  endif()
endfunction()
