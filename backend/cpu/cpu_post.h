/* The CPU post and FXAA kernels (cpu_post_kernel.inc, cpu_fxaa_kernel.inc)
 * at 8, 4 and 1 lanes (cpu_post_{avx2,sse4,scalar}.c), and the sRGB table
 * they read, shared with cpu_post.c and cpu_fxaa.c (which keep the
 * per-pixel references). Every operation is the reference's in its order
 * (no FMA: CMakeLists.txt), so each width gives the same bytes;
 * tests/test_cpu_isa.c and test_cpu_simd.c hold them to it. */
#ifndef OAK_CPU_POST_H
#define OAK_CPU_POST_H

#include <stdbool.h>
#include <stdint.h>

/* The exact sRGB encode above the linear toe, tabulated per 1/1024 of each
   octave from 2^-9 to 1 and interpolated (cpu_post.c fills it) */
#define CPU_SRGB_BITS    10
#define CPU_SRGB_SHIFT   (23 - CPU_SRGB_BITS)
#define CPU_SRGB_OCTAVES 9
#define CPU_SRGB_SIZE    ((CPU_SRGB_OCTAVES << CPU_SRGB_BITS) + 2)
#define CPU_SRGB_TOE     0.0031308f
/* FXAA's search: up to this many pixels each way along the edge */
#define CPU_FXAA_SEARCH 8
/* each entry beside its step to the next: one 8-byte load a lane */
extern float _oak_cpu_srgb_pair[CPU_SRGB_SIZE - 1][2];

/* What a post span does: the exposure, ACES or none or Khronos PBR Neutral,
   the dither or half a step. */
typedef struct cpu_post_args {
    float exposure;
    bool aces;    /* else no tone map (clamped to 1) */
    bool neutral; /* PBR Neutral (aces is then true too) */
    bool no_dither;
} cpu_post_args;

/* Pixels x0 .. x0 + n - 1 of row y, n a multiple of the lanes: rgb (3
   floats a pixel) into out (RGBA8) and, when luma is not NULL, FXAA's luma
   of those bytes into luma (a byte a pixel). */
typedef void (*cpu_post_fn)(const float *rgb, uint8_t *out, uint8_t *luma, uint32_t x0, uint32_t y,
                            uint32_t n, const cpu_post_args *a);
/* FXAA's search and blend for the OAK_LANES pixels xs of row y (lanes may
   repeat a pixel), each one step 2 did not keep and whose search window,
   both orientations, lies inside the image: 8 <= x < w - 8 and
   8 <= y < h - 8. px is the RGBA8 input, lumas its luma plane. */
typedef void (*cpu_fxaa_fn)(uint8_t *out, const uint8_t *px, const uint8_t *lumas, int32_t w,
                            const int32_t *xs, int32_t y);

void _oak_cpu_post_lanes_avx2(const float *rgb, uint8_t *out, uint8_t *luma, uint32_t x0,
                              uint32_t y, uint32_t n, const cpu_post_args *a);
void _oak_cpu_post_lanes_sse4(const float *rgb, uint8_t *out, uint8_t *luma, uint32_t x0,
                              uint32_t y, uint32_t n, const cpu_post_args *a);
void _oak_cpu_post_lanes_scalar(const float *rgb, uint8_t *out, uint8_t *luma, uint32_t x0,
                                uint32_t y, uint32_t n, const cpu_post_args *a);
void _oak_cpu_fxaa_lanes_avx2(uint8_t *out, const uint8_t *px, const uint8_t *lumas, int32_t w,
                              const int32_t *xs, int32_t y);
void _oak_cpu_fxaa_lanes_sse4(uint8_t *out, const uint8_t *px, const uint8_t *lumas, int32_t w,
                              const int32_t *xs, int32_t y);
void _oak_cpu_fxaa_lanes_scalar(uint8_t *out, const uint8_t *px, const uint8_t *lumas, int32_t w,
                                const int32_t *xs, int32_t y);

/* The kernels at the width cpu_isa.c chose, and that width */
typedef struct cpu_post_kernels {
    cpu_post_fn post;
    cpu_fxaa_fn fxaa;
    uint32_t lanes;
} cpu_post_kernels;
cpu_post_kernels _oak_cpu_post_kernels(void);

#endif
