/* 2^y without libm, for the exp2 fog's transmittance: one scalar function
 * here and its lane twin `lexp2` (cpu_lanes.h), the same IEEE operations in
 * the same order, so the scalar shading and every lane width give the same
 * bits (libm's expf has no lane version with its bits, and a call a pixel
 * was the default world's dearest libm use: docs/PERFORMANCE.md, fog44). */
#ifndef OAK_CPU_EXP2_H
#define OAK_CPU_EXP2_H

#include <stdint.h>
#include <string.h>

/* 2^y = 2^n 2^f with n = y rounded to the nearest whole number (ties to
   even, by adding and taking away 1.5 x 2^23, exact for |y| < 2^22) and
   f = y - n, exact, in [-1/2, 1/2]. 2^f = e^(f ln 2) by its Taylor series
   to the 7th power: CPU_EXP2_Ck = (ln 2)^k / k!, worked out to 50 digits
   and rounded to the nearest float (the series' remainder on |f| <= 1/2 is
   under (ln 2 / 2)^8 / 8! = 5.2e-9 of 2^f). 2^n goes straight into the
   exponent bits and multiplies exactly. y is clamped to [-125, 127] first
   (NaN to -125) so 2^n stays a normal float and the product never
   overflows or goes subnormal: below -125 the result is 2^-125 x 2^f's
   error, not 0, which a colour cannot tell from 0 (2.4e-38).
   Measured over every float f with 2^-30 <= |f| <= 1/2 (all the f that
   occur, and below 2^-30 the result is 1, correctly rounded): relative
   error at most 9.7e-8 (1.63 x 2^-24; a correctly rounded 2^y is within
   2^-24 = 6.0e-8), so within CPU_EXP2_BOUND of double exp2 for every y in
   [-125, 127]. test_cpu_lanes `exp2Bound` holds the bound and each lane
   width to this function bit for bit. */
#define CPU_EXP2_C1    0.693147182f    /* ln 2 */
#define CPU_EXP2_C2    0.240226507f    /* (ln 2)^2 / 2 */
#define CPU_EXP2_C3    0.0555041097f   /* (ln 2)^3 / 6 */
#define CPU_EXP2_C4    0.00961812865f  /* (ln 2)^4 / 24 */
#define CPU_EXP2_C5    0.00133335579f  /* (ln 2)^5 / 120 */
#define CPU_EXP2_C6    0.000154035297f /* (ln 2)^6 / 720 */
#define CPU_EXP2_C7    1.52527336e-05f /* (ln 2)^7 / 5040 */
#define CPU_EXP2_ROUND 12582912.0f     /* 1.5 x 2^23 */
#define CPU_EXP2_LO    -125.0f
#define CPU_EXP2_HI    127.0f
#define CPU_EXP2_BOUND 1.0e-7      /* relative, against exp2 in double, y in [-125, 127] */
#define CPU_LOG2E      1.44269502f /* 1 / ln 2 to the nearest float */

static inline float cpu_exp2(float y) {
    if (!(y >= CPU_EXP2_LO)) y = CPU_EXP2_LO;
    if (y > CPU_EXP2_HI) y = CPU_EXP2_HI;
    float r = (y + CPU_EXP2_ROUND) - CPU_EXP2_ROUND;
    float f = y - r;
    uint32_t sb = (uint32_t)((int32_t)r + 127) << 23;
    float s;
    memcpy(&s, &sb, sizeof s);
    float p = CPU_EXP2_C6 + f * CPU_EXP2_C7;
    p = CPU_EXP2_C5 + f * p;
    p = CPU_EXP2_C4 + f * p;
    p = CPU_EXP2_C3 + f * p;
    p = CPU_EXP2_C2 + f * p;
    p = CPU_EXP2_C1 + f * p;
    p = 1.0f + f * p;
    return p * s;
}

/* The exp2 fog's transmittance e^(-fd^2) (surface.glsl's exp(-fd * fd)) as
   2^(-fd^2 log2 e): rounding fd^2 (libm's form rounds it too) and its
   product with log2 e moves the result by about fd^2 x 1.2e-7 of itself at
   most (2e-6 of it where e^-16, 1e-7 of the colour, is left): far under a
   colour's last bit. */
static inline float cpu_fog_transmittance(float fd) {
    return cpu_exp2((fd * fd) * -CPU_LOG2E);
}

#endif
