# Installs the built ember into a scratch prefix, then configures, builds and runs, each as its
# own CMake project that finds ember with find_package(ember):
#   examples/cpp/hello      the smallest program (must print its tensor)
#   examples/cpp/extending  one program per extension point (each must exit 0 and print
#                           "<name>: OK")
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${EMBER_BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()

# Configures and builds examples/cpp/<project> against the installed ember.
function(build_installed_project project)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${EMBER_SOURCE_DIR}/examples/cpp/${project}
                  -B ${WORK_DIR}/${project} -G Ninja -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring examples/cpp/${project} against the installed ember failed (${rc})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/${project} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building examples/cpp/${project} failed (${rc})")
  endif()
endfunction()

build_installed_project(hello)
execute_process(COMMAND ${WORK_DIR}/hello/hello RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "hello printed:\n${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "tensor\\(\\[\\[2\\., 2\\., 2\\.\\],")
  message(FATAL_ERROR "hello did not print the expected tensor (rc=${rc})")
endif()

build_installed_project(extending)
foreach(name custom_function custom_module subclass_logging convert_swap meta_assign checkpoint
             custom_op)
  execute_process(COMMAND ${WORK_DIR}/extending/${name} WORKING_DIRECTORY ${WORK_DIR}/extending
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${name} printed:\n${out}${err}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${name}: OK")
    message(FATAL_ERROR "examples/cpp/extending/${name} failed (rc=${rc})")
  endif()
endforeach()
