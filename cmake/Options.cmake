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
