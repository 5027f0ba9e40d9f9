// The two-pass Hi-Z step a meshcull scan or write runs as (OAK_MC_STEP:
// OAK_GPU_HIZ_STEP_EARLY or _LATE): a specialization constant on Vulkan, a
// uniform set per dispatch on GL (gl_meshcull.c), as common/hiz.glsl's
// OAK_HIZ_STEP, which meshcull.comp reads for the same step.
#ifndef OAK_MESHCULL_STEP_GLSL
#define OAK_MESHCULL_STEP_GLSL
#include "common/oak_gpu.h"

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_MC_STEP, 0u)
#else
layout(location = 0) uniform uint oak_mc_step; // GL: set per dispatch
#define OAK_MC_STEP oak_mc_step
#endif

#endif
