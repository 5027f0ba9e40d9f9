/* The taa pass's upsampling kernels (cpu_taa_kernel.inc) at 1 lane, for
 * CPUs without SSE4.1 (and $OAK_CPU_ISA=scalar); CMakeLists.txt turns
 * contraction off. */
#define OAK_LANES   1
#define OAK_TAA_UP  _oak_cpu_taa_up_scalar
#define OAK_TAA_BOX _oak_cpu_taa_box_scalar
#include "cpu_taa_kernel.inc"
