/* The post pass's and FXAA's kernels (cpu_post_kernel.inc) at 1 lane, for
 * CPUs without SSE4.1 (and $OAK_CPU_ISA=scalar); CMakeLists.txt turns
 * contraction off and cpu_post.c / cpu_fxaa.c take the width cpu_isa.c chose. */
#define OAK_LANES      1
#define OAK_POST_LANES _oak_cpu_post_lanes_scalar
#define OAK_FXAA_LANES _oak_cpu_fxaa_lanes_scalar
#include "cpu_post_kernel.inc"
