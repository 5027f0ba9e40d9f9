# Embeds the shared GLSL passes (shaders/*.glsl, the files the Vulkan build
# compiles with glslc) as C strings in generated/oak_gl_shaders.h, so the GL
# backend compiles the very same sources; a header change rebuilds them.
file(GLOB OAK_GL_SHADER_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/shaders/*.glsl
     ${CMAKE_SOURCE_DIR}/shaders/common/*.glsl ${CMAKE_SOURCE_DIR}/shaders/common/*.h)
set(OAK_GL_SHADER_HEADER ${CMAKE_BINARY_DIR}/generated/oak_gl_shaders.h)
add_custom_command(
  OUTPUT ${OAK_GL_SHADER_HEADER}
  COMMAND ${CMAKE_COMMAND} -DOUT=${OAK_GL_SHADER_HEADER} -DSHADER_DIR=${CMAKE_SOURCE_DIR}/shaders
          -DINCLUDE_DIR=${CMAKE_SOURCE_DIR}/include -P ${CMAKE_SOURCE_DIR}/backend/gl/gl_embed.cmake
  DEPENDS ${OAK_GL_SHADER_FILES} ${CMAKE_SOURCE_DIR}/backend/gl/gl_embed.cmake
          ${CMAKE_SOURCE_DIR}/include/oak/config.h
  COMMENT "Embedding the shared GLSL for OpenGL")
add_custom_target(oak_gl_shaders DEPENDS ${OAK_GL_SHADER_HEADER})
list(APPEND OAK_EXTRA_DEPENDS oak_gl_shaders)
