# Install oak into a scratch prefix and build and run a consumer against it,
# through both the CMake package and the pkg-config file.
set(OAK_INSTALL_PREFIX ${CMAKE_BINARY_DIR}/install-test)
add_test(NAME install_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD=${CMAKE_BINARY_DIR} -DPREFIX=${OAK_INSTALL_PREFIX}
    -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/install -DSANITIZE=${OAK_SANITIZE}
    -P ${CMAKE_CURRENT_SOURCE_DIR}/install_run.cmake)
set_tests_properties(install_consumer PROPERTIES TIMEOUT 600
  ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
