/* The post pass's and FXAA's kernels (cpu_post_kernel.inc) at 4 lanes, built
 * with SSE4.1 by pragma; CMakeLists.txt turns
 * contraction off and cpu_post.c / cpu_fxaa.c take the width cpu_isa.c chose. */
#define OAK_LANES      4
#define OAK_POST_LANES _oak_cpu_post_lanes_sse4
#define OAK_FXAA_LANES _oak_cpu_fxaa_lanes_sse4
#include "cpu_post_kernel.inc"
