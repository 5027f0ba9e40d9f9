/* The taa pass's upsampling kernels (cpu_taa_kernel.inc) at 8 lanes, built
 * with AVX2 by pragma (no FMA); CMakeLists.txt turns contraction off and
 * cpu_pass_taa.c takes the width cpu_isa.c chose. */
#define OAK_LANES   8
#define OAK_TAA_UP  _oak_cpu_taa_up_avx2
#define OAK_TAA_BOX _oak_cpu_taa_box_avx2
#include "cpu_taa_kernel.inc"
