# Installs the built ember into a scratch prefix, then configures, builds and runs
# examples/cpp/hello as its own CMake project that finds ember with find_package(ember).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${EMBER_BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${EMBER_SOURCE_DIR}/examples/cpp/hello -B ${WORK_DIR}/build
                -G Ninja -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring examples/cpp/hello against the installed ember failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building examples/cpp/hello failed (${rc})")
endif()
execute_process(COMMAND ${WORK_DIR}/build/hello RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "hello printed:\n${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "tensor\\(\\[\\[2\\., 2\\., 2\\.\\],")
  message(FATAL_ERROR "hello did not print the expected tensor (rc=${rc})")
endif()
