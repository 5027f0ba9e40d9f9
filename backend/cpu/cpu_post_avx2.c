/* The post pass's and FXAA's kernels (cpu_post_kernel.inc) at 8 lanes, built
 * with AVX2 by pragma (no FMA); CMakeLists.txt turns
 * contraction off and cpu_post.c / cpu_fxaa.c take the width cpu_isa.c chose. */
#define OAK_LANES      8
#define OAK_POST_LANES _oak_cpu_post_lanes_avx2
#define OAK_FXAA_LANES _oak_cpu_fxaa_lanes_avx2
#include "cpu_post_kernel.inc"
