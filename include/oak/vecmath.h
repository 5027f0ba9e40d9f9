/* oak math: cglm (column-major, right-handed, +Y up) plus the few helpers it
 * lacks: reversed-Z projections, bounds, colour transfer and noise. */
#ifndef OAK_VECMATH_H
#define OAK_VECMATH_H

#include <cglm/cglm.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OAK_PI 3.14159265358979323846f

/* An axis-aligned box and the sphere around it. */
typedef struct oak_bounds {
    float min[3], max[3];
    float center[3], radius;
} oak_bounds;

/* Perspective with depth 1 at near and 0 at far (reversed-Z, clip z in [0,1]). */
void oak_perspective_rz(float fovy, float aspect, float znear, float zfar, mat4 out);
/* Orthographic with depth 1 at near and 0 at far. */
void oak_ortho_rz(float left, float right, float bottom, float top, float znear, float zfar,
                  mat4 out);

void oak_bounds_empty(oak_bounds *b);
void oak_bounds_add(oak_bounds *b, const float p[3]);
void oak_bounds_finish(oak_bounds *b);                                   /* sphere from the box */
void oak_bounds_transform(oak_bounds *out, const oak_bounds *b, mat4 m); /* box of the 8 corners */

/* Six planes (xyz normal pointing inside, w distance) from a view-projection
 * with clip z in [0,1]; a sphere is outside when dot(n,c)+w < -r for any. */
void oak_frustum_planes(mat4 view_proj, vec4 planes[6]);
bool oak_frustum_sphere(const vec4 planes[6], const float center[3], float radius);

/* Exact sRGB transfer functions (IEC 61966-2-1). */
float oak_srgb_to_linear(float c);
float oak_linear_to_srgb(float c);
/* ACES filmic fit (Narkowicz 2015), input already exposed. */
float oak_aces(float x);

/* Perlin gradient noise in [-1,1] (Ken Perlin's improved noise, seeded) and
 * fBm sums of it; deterministic for a given seed on every platform. */
float oak_noise3(float x, float y, float z, uint32_t seed);
float oak_fbm2(float x, float y, uint32_t seed, uint32_t octaves, float lacunarity, float gain);

#ifdef __cplusplus
}
#endif
#endif
