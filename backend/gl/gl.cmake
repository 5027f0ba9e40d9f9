# The OpenGL 4.5 backend: sources, libraries (libepoxy, EGL) and the shader
# sources embedded as C strings, included from the top CMakeLists before
# oak_objects exists.
pkg_check_modules(OAK_EPOXY IMPORTED_TARGET epoxy)
pkg_check_modules(OAK_EGL IMPORTED_TARGET egl)
if(NOT OAK_EPOXY_FOUND OR NOT OAK_EGL_FOUND)
  message(STATUS "oak: OpenGL backend off (libepoxy-dev / libegl-dev not found)")
  return()
endif()

file(GLOB OAK_GL_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/backend/gl/*.c)
list(APPEND OAK_EXTRA_SOURCES ${OAK_GL_SOURCES})
list(APPEND OAK_EXTRA_LIBS PkgConfig::OAK_EPOXY PkgConfig::OAK_EGL)
list(APPEND OAK_EXTRA_DEFINITIONS OAK_HAVE_GL=1)
set(OAK_HAVE_GL ON)

include(${CMAKE_SOURCE_DIR}/backend/gl/gl_shaders.cmake OPTIONAL)
