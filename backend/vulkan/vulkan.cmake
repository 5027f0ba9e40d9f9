# The Vulkan backend's build hook, included by the top CMakeLists before the
# oak_objects library exists: adds the backend's sources, volk, -ldl, and the
# SPIR-V of every shaders/*.glsl compiled by glslc (a shader error fails the build).
find_program(OAK_GLSLC glslc)
find_path(OAK_VOLK_DIR volk.c PATHS /usr/include NO_DEFAULT_PATH)
find_path(OAK_VULKAN_INCLUDE vulkan/vulkan.h)
if(NOT OAK_GLSLC OR NOT OAK_VOLK_DIR OR NOT OAK_VULKAN_INCLUDE)
  message(STATUS "oak: Vulkan backend off (need glslc, volk.c and the Vulkan headers)")
  return()
endif()

file(GLOB OAK_VK_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/backend/vulkan/*.c)
# volk's own source is compiled into oak; its warnings are not ours to fix.
set_source_files_properties(${OAK_VOLK_DIR}/volk.c PROPERTIES COMPILE_OPTIONS "-w")
list(APPEND OAK_EXTRA_SOURCES ${OAK_VK_SOURCES} ${OAK_VOLK_DIR}/volk.c)
list(APPEND OAK_EXTRA_LIBS ${CMAKE_DL_LIBS})
list(APPEND OAK_EXTRA_DEFINITIONS OAK_HAVE_VULKAN=1 VK_NO_PROTOTYPES)
set(OAK_HAVE_VULKAN ON)

# Stage from the name: shaders/<name>.<stage>.glsl, stage in vert/frag/comp;
# shaders/mesh/ holds the Vulkan-only task and mesh stages (the mesh path,
# vk_mesh_shader.c), which the GL build, embedding shaders/*.glsl, skips.
file(GLOB OAK_SHADER_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/shaders/*.glsl
     ${CMAKE_SOURCE_DIR}/shaders/mesh/*.glsl)
file(GLOB OAK_SHADER_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/shaders/common/*.h
     ${CMAKE_SOURCE_DIR}/shaders/common/*.glsl ${CMAKE_SOURCE_DIR}/include/oak/config.h)
set(OAK_SHADER_OUT ${CMAKE_BINARY_DIR}/generated/shaders)
file(MAKE_DIRECTORY ${OAK_SHADER_OUT})
set(OAK_SHADER_OUTPUTS)
# The shaders that sample material textures (those including
# common/textures.glsl, directly or through another common header) are
# compiled twice: <name>.<stage>.h with the size-class arrays and
# <name>.<stage>.bindless.h with -DOAK_BINDLESS=1, the runtime array that
# devices with descriptor indexing take (vk_resources.c).
set(OAK_TEXTURED_HEADERS textures.glsl)
file(GLOB OAK_COMMON_GLSL ${CMAKE_SOURCE_DIR}/shaders/common/*.glsl)
set(grew ON)
while(grew)
  set(grew OFF)
  list(JOIN OAK_TEXTURED_HEADERS "|" alts)
  string(REPLACE "." "\\." alts "${alts}")
  foreach(h ${OAK_COMMON_GLSL})
    get_filename_component(hname ${h} NAME)
    if(hname IN_LIST OAK_TEXTURED_HEADERS)
      continue()
    endif()
    file(READ ${h} text)
    if(text MATCHES "#include \"common/(${alts})\"")
      list(APPEND OAK_TEXTURED_HEADERS ${hname})
      set(grew ON)
    endif()
  endforeach()
endwhile()
list(JOIN OAK_TEXTURED_HEADERS "|" alts)
string(REPLACE "." "\\." alts "${alts}")
set(OAK_VK_TEXTURED_SHADERS 0)
foreach(src ${OAK_SHADER_SOURCES})
  get_filename_component(base ${src} NAME)
  string(REGEX MATCH "\\.(vert|frag|comp|task|mesh)\\.glsl$" ok ${base})
  if(NOT ok)
    message(FATAL_ERROR "oak: ${base} must be named <name>.<vert|frag|comp|task|mesh>.glsl")
  endif()
  set(stage ${CMAKE_MATCH_1})
  string(REPLACE ".glsl" ".h" out ${base})
  add_custom_command(
    OUTPUT ${OAK_SHADER_OUT}/${out}
    COMMAND ${OAK_GLSLC} -fshader-stage=${stage} --target-env=vulkan1.2 -O -Werror
            -DOAK_VULKAN_GLSL=1 -I${CMAKE_SOURCE_DIR}/shaders -I${CMAKE_SOURCE_DIR}/include
            -mfmt=c ${src} -o ${OAK_SHADER_OUT}/${out}
    DEPENDS ${src} ${OAK_SHADER_HEADERS}
    COMMENT "glslc ${base}"
    VERBATIM)
  list(APPEND OAK_SHADER_OUTPUTS ${OAK_SHADER_OUT}/${out})
  file(READ ${src} text)
  if(text MATCHES "#include \"common/(${alts})\"")
    string(REPLACE ".glsl" ".bindless.h" bout ${base})
    add_custom_command(
      OUTPUT ${OAK_SHADER_OUT}/${bout}
      COMMAND ${OAK_GLSLC} -fshader-stage=${stage} --target-env=vulkan1.2 -O -Werror
              -DOAK_VULKAN_GLSL=1 -DOAK_BINDLESS=1 -I${CMAKE_SOURCE_DIR}/shaders
              -I${CMAKE_SOURCE_DIR}/include -mfmt=c ${src} -o ${OAK_SHADER_OUT}/${bout}
      DEPENDS ${src} ${OAK_SHADER_HEADERS}
      COMMENT "glslc ${base} (bindless)"
      VERBATIM)
    list(APPEND OAK_SHADER_OUTPUTS ${OAK_SHADER_OUT}/${bout})
    math(EXPR OAK_VK_TEXTURED_SHADERS "${OAK_VK_TEXTURED_SHADERS} + 1")
  endif()
endforeach()
# vk_pipelines.c holds each textured shader's pair (vk_pass_fog.c its own):
# a shader added here and missing there would read the empty size classes
# on a bindless device without an error, so the count is checked at build.
set_source_files_properties(${CMAKE_SOURCE_DIR}/backend/vulkan/vk_pipelines.c PROPERTIES
  COMPILE_DEFINITIONS "OAK_VK_TEXTURED_SHADERS=${OAK_VK_TEXTURED_SHADERS}")
add_custom_target(oak_vulkan_shaders DEPENDS ${OAK_SHADER_OUTPUTS})
list(APPEND OAK_EXTRA_DEPENDS oak_vulkan_shaders)
