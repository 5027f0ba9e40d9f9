/* The shading kernel (cpu_light_kernel.inc) at 1 lane; CMakeLists.txt
 * gives this file its flags and cpu_isa.c picks the kernel at run time. */
#define OAK_LANES        1
#define OAK_LANE_KERNEL  _oak_cpu_light_scalar
#define OAK_LANE_SUN     _oak_cpu_lanes_sun_scalar
#define OAK_LANE_SKY     _oak_cpu_lanes_sky_scalar
#define OAK_LANE_SURFACE _oak_cpu_surface_lanes_scalar
#define OAK_LANE_PREP    _oak_cpu_prep_lanes_scalar
#define OAK_LANE_LOG2    _oak_cpu_log2_lanes_scalar
#define OAK_LANE_EXP2    _oak_cpu_exp2_lanes_scalar
#include "cpu_light_kernel.inc"
#include "cpu_surface_kernel.inc"
#include "cpu_prep_kernel.inc"
