/* The taa pass's upsampling kernels (cpu_taa_kernel.inc) at 4 lanes, built
 * with SSE4.1 by pragma; CMakeLists.txt turns contraction off and
 * cpu_pass_taa.c takes the width cpu_isa.c chose. */
#define OAK_LANES   4
#define OAK_TAA_UP  _oak_cpu_taa_up_sse4
#define OAK_TAA_BOX _oak_cpu_taa_box_sse4
#include "cpu_taa_kernel.inc"
