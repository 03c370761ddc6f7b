# Warnings live here, in one place. COLLISION_WERROR (on in CI) makes them errors.
set(COLLISION_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Wunused -Woverloaded-virtual -Wimplicit-fallthrough)

function(collision_set_warnings target)
  target_compile_options(${target} PRIVATE ${COLLISION_WARNING_FLAGS})
  if(COLLISION_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
