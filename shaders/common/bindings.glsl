// Declarations of every buffer and image oak's GPU passes share, by the
// binding numbers in oak_gpu.h; each shader uses the few it needs.
#ifndef OAK_BINDINGS_GLSL
#define OAK_BINDINGS_GLSL

#include "common/oak_gpu.h"

OAK_UBO(OAK_B_VIEW) uniform ViewBlock { oak_gpu_view view; };
OAK_SSBO(OAK_B_LIGHTS) readonly buffer LightBlock { oak_gpu_light lights[]; };
OAK_SSBO(OAK_B_DRAWS) readonly buffer DrawBlock { oak_gpu_draw draws[]; };
OAK_SSBO(OAK_B_MATERIALS) readonly buffer MaterialBlock { oak_gpu_material materials[]; };
OAK_SSBO(OAK_B_POSITIONS) readonly buffer PositionBlock { vec4 positions[]; };
OAK_SSBO(OAK_B_ATTRIBUTES) readonly buffer AttributeBlock { oak_gpu_vertex attributes[]; };
OAK_SSBO(OAK_B_INDICES) readonly buffer IndexBlock { uint indices[]; };

#endif
