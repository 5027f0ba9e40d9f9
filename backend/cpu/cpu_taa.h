/* The CPU taa pass's upsampling kernels (cpu_taa_kernel.inc) at 8, 4 and 1
 * lanes, and the planes they read, shared with cpu_pass_taa.c (which keeps
 * the per-pixel reference, docs/SHADING.md "Temporal anti-aliasing"). Every
 * operation is the reference's in its order, so each width gives its bytes
 * (no FMA: CMakeLists.txt); tests/test_cpu_taa.c holds them to it. */
#ifndef OAK_CPU_TAA_H
#define OAK_CPU_TAA_H

#include <stdbool.h>
#include <stdint.h>

/* What an upsampling row reads. Planes are render-sized (rw * rh floats
   each) unless said otherwise. */
typedef struct cpu_taa_up {
    const float *src;  /* the history read: output-sized, 4 floats a pixel */
    float *dst;        /* the history written, the same layout */
    float *frame;      /* where its RGB is copied (3 floats a pixel), or NULL */
    const float *wrgb; /* 3 planes: each render pixel's weighed colour */
    const float *mot;  /* 3 planes: its motion in render pixels (x, y, 1 when valid) */
    const float *box;  /* 9 planes: its 3 x 3 box in weighed YCoCg (lo, hi, mean) */
    const float *cols; /* 4 planes of ow: the render column (as a float), its taps' x distances */
    const float *rows; /* 4 planes of oh: the same per output row */
    int32_t rw, rh;    /* the render size */
    uint32_t ow, oh;   /* the output size */
    bool reset;        /* no history read */
} cpu_taa_up;

/* Output row oy, columns [x0, x1): every column's 3 x 3 taps inside the
   render frame across (the caller leaves the frame's edge columns to the
   reference); rows outside it are skipped as the reference skips them. */
typedef void (*cpu_taa_up_fn)(const cpu_taa_up *u, uint32_t oy, uint32_t x0, uint32_t x1);
/* Render row y (1 to rh - 2), columns [x0, x1) inside 1 to rw - 2: each
   pixel's box from the 3 YCoCg planes yc (all nine taps in the frame). */
typedef void (*cpu_taa_box_fn)(const float *yc, float *box, int32_t rw, int32_t rh, uint32_t y,
                               uint32_t x0, uint32_t x1);

void _oak_cpu_taa_up_avx2(const cpu_taa_up *u, uint32_t oy, uint32_t x0, uint32_t x1);
void _oak_cpu_taa_up_sse4(const cpu_taa_up *u, uint32_t oy, uint32_t x0, uint32_t x1);
void _oak_cpu_taa_up_scalar(const cpu_taa_up *u, uint32_t oy, uint32_t x0, uint32_t x1);
void _oak_cpu_taa_box_avx2(const float *yc, float *box, int32_t rw, int32_t rh, uint32_t y,
                           uint32_t x0, uint32_t x1);
void _oak_cpu_taa_box_sse4(const float *yc, float *box, int32_t rw, int32_t rh, uint32_t y,
                           uint32_t x0, uint32_t x1);
void _oak_cpu_taa_box_scalar(const float *yc, float *box, int32_t rw, int32_t rh, uint32_t y,
                             uint32_t x0, uint32_t x1);

/* Tests: true runs the pass as it was written first (per pixel, no lanes,
   the motion re-derived at every pixel), the reference the lanes are held
   to byte for byte. */
extern bool _oak_cpu_taa_reference;

#endif
