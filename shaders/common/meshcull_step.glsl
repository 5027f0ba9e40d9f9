// The two-pass Hi-Z step a meshcull scan or write runs as (OAK_MC_STEP:
// OAK_GPU_HIZ_STEP_EARLY or _LATE), a specialization constant on Vulkan.
// meshcull.comp reads the same step as common/hiz.glsl's OAK_HIZ_STEP.
#ifndef OAK_MESHCULL_STEP_GLSL
#define OAK_MESHCULL_STEP_GLSL
#include "common/oak_gpu.h"

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_MC_STEP, 0u)
#else
#define OAK_MC_STEP 0u // GL runs no Hi-Z step over meshlets
#endif

#endif
