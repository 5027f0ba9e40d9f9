// The meshcull pass's buffers (oak_gpu.h OAK_B_MESHLETS, OAK_B_MESHCULL),
// declared once for its three steps (meshcull.comp through
// common/meshcull.glsl, meshcull_scan.comp, meshcull_write.comp) and the
// mesh path's task shader: the meshlet pool and the pass's words (the head,
// then each job's).
#ifndef OAK_MESHCULL_BLOCK_GLSL
#define OAK_MESHCULL_BLOCK_GLSL
#include "common/oak_gpu.h"

OAK_SSBO(OAK_B_MESHLETS) readonly buffer MeshletPool { uvec4 ml_pool[]; };
OAK_SSBO(OAK_B_MESHCULL) buffer MeshcullBlock { uint mc[]; };

#endif
