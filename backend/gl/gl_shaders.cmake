# Embeds the OpenGL passes' GLSL as C strings in generated/oak_gl_shaders.h,
# with #include lines inlined (shader-local "x" and <oak/x.h> from include/),
# so the binary carries its shaders and a header change rebuilds them.
file(GLOB OAK_GL_SHADER_FILES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/backend/gl/shaders/*.glsl ${CMAKE_SOURCE_DIR}/backend/gl/shaders/*.vert
  ${CMAKE_SOURCE_DIR}/backend/gl/shaders/*.frag ${CMAKE_SOURCE_DIR}/backend/gl/shaders/*.comp)
set(OAK_GL_SHADER_HEADER ${CMAKE_BINARY_DIR}/generated/oak_gl_shaders.h)
add_custom_command(
  OUTPUT ${OAK_GL_SHADER_HEADER}
  COMMAND ${CMAKE_COMMAND} -DOUT=${OAK_GL_SHADER_HEADER}
          -DSHADER_DIR=${CMAKE_SOURCE_DIR}/backend/gl/shaders
          -DINCLUDE_DIR=${CMAKE_SOURCE_DIR}/include
          -P ${CMAKE_SOURCE_DIR}/backend/gl/gl_embed.cmake
  DEPENDS ${OAK_GL_SHADER_FILES} ${CMAKE_SOURCE_DIR}/backend/gl/gl_embed.cmake
          ${CMAKE_SOURCE_DIR}/include/oak/config.h
  COMMENT "Embedding OpenGL shaders")
add_custom_target(oak_gl_shaders DEPENDS ${OAK_GL_SHADER_HEADER})
list(APPEND OAK_EXTRA_DEPENDS oak_gl_shaders)
