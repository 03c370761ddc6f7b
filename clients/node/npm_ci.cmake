# cmake -DNPM=npm -DPREFIX=dir -P npm_ci.cmake: `npm ci` in PREFIX (which holds
# package.json and package-lock.json) unless node_modules already matches the
# lock file.
set(installed ${PREFIX}/node_modules/.package-lock.json)
if(EXISTS ${installed} AND NOT ${PREFIX}/package-lock.json IS_NEWER_THAN
   ${installed})
  message(STATUS "node_modules is up to date in ${PREFIX}")
  return()
endif()
execute_process(
  COMMAND ${NPM} ci --no-audit --no-fund --prefix ${PREFIX}
  WORKING_DIRECTORY ${PREFIX}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "npm ci failed (${rc}); is the npm registry reachable?")
endif()
