/* The lane type of the CPU shading kernel: OAK_LANES floats (8 AVX2, 4 SSE,
 * 1 scalar) as a GCC vector, and the few operations the kernel needs, each
 * the same IEEE operation as the scalar code's so every width gives the same
 * bits. Included only by cpu_light_kernel.inc, which defines OAK_LANES. */
#ifndef OAK_CPU_LANES_H
#define OAK_CPU_LANES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_exp2.h"
#if OAK_LANES > 1
#include <immintrin.h>
#endif

#if OAK_LANES != 1 && OAK_LANES != 4 && OAK_LANES != 8
#error "OAK_LANES is 8, 4 or 1"
#endif

typedef float lf __attribute__((vector_size(OAK_LANES * 4)));
typedef int32_t lm __attribute__((vector_size(OAK_LANES * 4))); /* masks: ~0 or 0 per lane */
typedef uint32_t lu __attribute__((vector_size(OAK_LANES * 4)));

/* x in every lane (x - +0 keeps -0, where 0 + x would not) */
static inline lf lset(float x) {
    return x - (lf){0};
}
static inline lf lload(const float *p) {
    lf v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void lstore(float *p, lf v) {
    memcpy(p, &v, sizeof v);
}
/* m ? a : b per lane */
static inline lf lsel(lm m, lf a, lf b) {
    return (lf)(((lm)a & m) | ((lm)b & ~m));
}
/* the scalar code's a > b ? a : b, NaN rules included */
static inline lf lmax(lf a, lf b) {
    return lsel(a > b, a, b);
}
/* x < lo ? lo : x > hi ? hi : x */
static inline lf lclamp(lf x, lf lo, lf hi) {
    return lsel(x < lo, lo, lsel(x > hi, hi, x));
}
static inline lf lsqrt(lf x) {
#if OAK_LANES == 8
    return (lf)_mm256_sqrt_ps((__m256)x);
#elif OAK_LANES == 4
    return (lf)_mm_sqrt_ps((__m128)x);
#else
    return (lf){sqrtf(x[0])};
#endif
}
/* integer m ? a : b per lane */
static inline lm lseli(lm m, lm a, lm b) {
    return (a & m) | (b & ~m);
}
static inline lm liset(int32_t x) {
    return x - (lm){0};
}
/* |x| as fabsf: the sign bit cleared */
static inline lf lfabs(lf x) {
    return (lf)((lm)x & 0x7fffffff);
}
/* floorf per lane (roundps rounds down exactly as floorf does) */
static inline lf lfloor(lf x) {
#if OAK_LANES == 8
    return (lf)_mm256_floor_ps((__m256)x);
#elif OAK_LANES == 4
    return (lf)_mm_floor_ps((__m128)x);
#else
    return (lf){floorf(x[0])};
#endif
}
/* whole numbers to int32 (the caller keeps them in range: NaN lanes are
   selected away before, so no conversion is undefined) */
static inline lm ltoi(lf x) {
    return __builtin_convertvector(x, lm);
}
static inline lf litof(lm x) {
    return __builtin_convertvector(x, lf);
}
/* base[idx] per lane: a hardware gather at 8 lanes, loads otherwise; every
   index must be in bounds (masked lanes pass 0) */
static inline lf lgather(const float *base, lm idx) {
#if OAK_LANES == 8
    return (lf)_mm256_i32gather_ps(base, (__m256i)idx, 4);
#else
    lf r;
    for (int j = 0; j < OAK_LANES; j++) r[j] = base[idx[j]];
    return r;
#endif
}
/* four consecutive floats at each lane's p[j] (a texel's rgba), transposed:
   out[c][j] = p[j][c]. Loads and shuffles: at 8 lanes this beat four
   vgatherdps (docs/PERFORMANCE.md, the texture taps in lanes). */
static inline void lload4t(const float *const p[OAK_LANES], lf out[4]) {
#if OAK_LANES == 8
    /* written out: GCC at -O2 kept a looped form's rows in memory */
    __m256 r0 =
        _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p[0])), _mm_loadu_ps(p[4]), 1);
    __m256 r1 =
        _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p[1])), _mm_loadu_ps(p[5]), 1);
    __m256 r2 =
        _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p[2])), _mm_loadu_ps(p[6]), 1);
    __m256 r3 =
        _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p[3])), _mm_loadu_ps(p[7]), 1);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    out[0] = (lf)_mm256_shuffle_ps(t0, t2, 0x44);
    out[1] = (lf)_mm256_shuffle_ps(t0, t2, 0xee);
    out[2] = (lf)_mm256_shuffle_ps(t1, t3, 0x44);
    out[3] = (lf)_mm256_shuffle_ps(t1, t3, 0xee);
#elif OAK_LANES == 4
    __m128 r0 = _mm_loadu_ps(p[0]), r1 = _mm_loadu_ps(p[1]);
    __m128 r2 = _mm_loadu_ps(p[2]), r3 = _mm_loadu_ps(p[3]);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    out[0] = (lf)r0, out[1] = (lf)r1, out[2] = (lf)r2, out[3] = (lf)r3;
#else
    for (int c = 0; c < 4; c++) out[c] = (lf){p[0][c]};
#endif
}
/* four and eight consecutive floats at base + idx[j] for each lane (a
   texel's rgba, two texels side by side, a row of taps), transposed:
   out[c][j] = base[idx[j] + c]. Each lane one load, then a transpose in
   registers, where the columns as gathers cost one vgatherdps each
   (docs/PERFORMANCE.md, round 42). Written out, not looped: GCC at -O2
   kept the looped forms' rows in memory. Outputs a caller never reads are
   dropped with their shuffles. Every index must be in bounds. */
static inline void lload4t_at(const float *base, lm idx, lf out[4]) {
#if OAK_LANES == 8
    int32_t i[8];
    memcpy(i, &idx, sizeof i);
    __m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + i[0])),
                                     _mm_loadu_ps(base + i[4]), 1);
    __m256 r1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + i[1])),
                                     _mm_loadu_ps(base + i[5]), 1);
    __m256 r2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + i[2])),
                                     _mm_loadu_ps(base + i[6]), 1);
    __m256 r3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + i[3])),
                                     _mm_loadu_ps(base + i[7]), 1);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    out[0] = (lf)_mm256_shuffle_ps(t0, t2, 0x44);
    out[1] = (lf)_mm256_shuffle_ps(t0, t2, 0xee);
    out[2] = (lf)_mm256_shuffle_ps(t1, t3, 0x44);
    out[3] = (lf)_mm256_shuffle_ps(t1, t3, 0xee);
#elif OAK_LANES == 4
    int32_t i[4];
    memcpy(i, &idx, sizeof i);
    __m128 r0 = _mm_loadu_ps(base + i[0]), r1 = _mm_loadu_ps(base + i[1]);
    __m128 r2 = _mm_loadu_ps(base + i[2]), r3 = _mm_loadu_ps(base + i[3]);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    out[0] = (lf)r0, out[1] = (lf)r1, out[2] = (lf)r2, out[3] = (lf)r3;
#else
    for (int c = 0; c < 4; c++) out[c] = (lf){base[idx[0] + c]};
#endif
}
static inline void lload8t_at(const float *base, lm idx, lf out[8]) {
#if OAK_LANES == 8
    int32_t i[8];
    memcpy(i, &idx, sizeof i);
    __m256 r0 = _mm256_loadu_ps(base + i[0]), r1 = _mm256_loadu_ps(base + i[1]);
    __m256 r2 = _mm256_loadu_ps(base + i[2]), r3 = _mm256_loadu_ps(base + i[3]);
    __m256 r4 = _mm256_loadu_ps(base + i[4]), r5 = _mm256_loadu_ps(base + i[5]);
    __m256 r6 = _mm256_loadu_ps(base + i[6]), r7 = _mm256_loadu_ps(base + i[7]);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xee);
    __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xee);
    __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xee);
    __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xee);
    out[0] = (lf)_mm256_permute2f128_ps(s0, s4, 0x20);
    out[1] = (lf)_mm256_permute2f128_ps(s1, s5, 0x20);
    out[2] = (lf)_mm256_permute2f128_ps(s2, s6, 0x20);
    out[3] = (lf)_mm256_permute2f128_ps(s3, s7, 0x20);
    out[4] = (lf)_mm256_permute2f128_ps(s0, s4, 0x31);
    out[5] = (lf)_mm256_permute2f128_ps(s1, s5, 0x31);
    out[6] = (lf)_mm256_permute2f128_ps(s2, s6, 0x31);
    out[7] = (lf)_mm256_permute2f128_ps(s3, s7, 0x31);
#else
    lload4t_at(base, idx, out);
    lload4t_at(base + 4, idx, out + 4);
#endif
}
/* any lane set (masks are ~0 or 0, so the sign bits say it: one movmskps
   rather than a loop over the lanes through memory) */
static inline int lany(lm m) {
#if OAK_LANES == 8
    return _mm256_movemask_ps((__m256)m) != 0;
#elif OAK_LANES == 4
    return _mm_movemask_ps((__m128)m) != 0;
#else
    return m[0] != 0;
#endif
}
/* OAK_LANES bools (0 or 1 a byte) as a mask, widened in registers: one
   byte load rather than stores of each lane into memory loaded back */
static inline lm lbool(const _Bool *p) {
#if OAK_LANES == 8
    int64_t b8;
    memcpy(&b8, p, 8);
    return (lm)_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(b8)) != 0;
#elif OAK_LANES == 4
    int32_t b4;
    memcpy(&b4, p, 4);
    return (lm)_mm_cvtepu8_epi32(_mm_cvtsi32_si128(b4)) != 0;
#else
    return (lm){p[0] ? -1 : 0};
#endif
}
static inline lf ldot(const lf a[3], const lf b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/* cpu_exp2 (cpu_exp2.h) in lanes: its operations in its order (the
   clamps as selects, NaN to the low end as its !(y >= lo)) */
static inline lf lexp2(lf y) {
    y = lsel(y >= CPU_EXP2_LO, y, lset(CPU_EXP2_LO));
    y = lsel(y > CPU_EXP2_HI, lset(CPU_EXP2_HI), y);
    lf r = (y + CPU_EXP2_ROUND) - CPU_EXP2_ROUND;
    lf f = y - r;
    lf s = (lf)((lu)(ltoi(r) + 127) << 23);
    lf p = CPU_EXP2_C6 + f * CPU_EXP2_C7;
    p = CPU_EXP2_C5 + f * p;
    p = CPU_EXP2_C4 + f * p;
    p = CPU_EXP2_C3 + f * p;
    p = CPU_EXP2_C2 + f * p;
    p = CPU_EXP2_C1 + f * p;
    p = 1.0f + f * p;
    return p * s;
}
/* normalize3: lanes of length 0 are left alone */
static inline void lnormalize(lf v[3]) {
    lf l = lsqrt(ldot(v, v));
    lm pos = l > 0;
    for (int k = 0; k < 3; k++) v[k] = lsel(pos, v[k] / l, v[k]);
}

#endif
