include_guard(GLOBAL)
# -Wall -Wextra -Werror everywhere ember's own code is compiled.
function(ember_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
endfunction()
