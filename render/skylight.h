/* The sky light's arithmetic, shared by every backend: the octahedral maps'
 * layout and sampling, one texel of the capture, of the irradiance and GGX
 * prefilter and of the split-sum BRDF table, and the host's preparation of a
 * capture (the buffer's head and sky image). shaders/common/sky.glsl is the
 * same in GLSL, operation for operation. Layout: shaders/common/oak_gpu.h. */
#ifndef OAK_SKYLIGHT_H
#define OAK_SKYLIGHT_H

#include <oak/backend.h>

#include "shaders/common/oak_gpu.h"

/* ---- the host side: what a capture starts from -------------------------- */

/* The hash of everything a capture depends on (sky colours, the sky light's
   scale and ground, the sky image's handle and version); 0 never. */
uint64_t _oak_sky_hash(const oak_render_view *v);
/* Whether the capture marches clouds (the view has them); if so c is the
   view's cloud record with its drift taken out and P the point it is
   marched from: the eye in the drifting field, each axis snapped to
   OAK_CLOUD_SKY_CELL, so the hash (and the capture) moves on when the eye
   crosses into another cell of the field, not every frame. */
bool _oak_sky_cloud_point(const oak_render_view *v, oak_gpu_clouds *c, float P[3]);
/* Writes the head (OAK_GPU_SKY_HEAD texels) and the sky image's texels at
   OAK_GPU_SKY_IMAGE_AT of `sky` (a whole OAK_GPU_SKY_TEXELS * 4 floats);
   brdf: ask the GPU to build the BRDF table too. Returns the image's texel
   count written (0 for the gradient). */
size_t _oak_sky_prepare(float *sky, const oak_render_view *v, bool brdf);

/* ---- one texel of each map (a job per range on the CPU, a thread on GPUs) */

/* texel i of the capture's mips, i < OAK_GPU_SKY_CAPTURE_TEXELS */
void _oak_sky_capture_texel(float *sky, uint32_t i);
/* the same through the cloud layer where the head asks for it: cl the
   record _oak_sky_cloud_point made, cbuf the clouds' buffer with its noise
   table baked (NULL, NULL: the clear sky) */
void _oak_sky_capture_texel_clouds(float *sky, uint32_t i, const oak_gpu_clouds *cl,
                                   const float *cbuf);
/* texel i of the irradiance map, then of the prefiltered levels,
   i < OAK_GPU_SKY_FILTER_TEXELS; reads the capture */
void _oak_sky_filter_texel(float *sky, uint32_t i);
/* texel i of the BRDF table, i < OAK_SKY_BRDF_SIZE^2 */
void _oak_sky_brdf_texel(float *sky, uint32_t i);

/* ---- what the shading reads -------------------------------------------- */

/* the background (what the resolve draws where there is no surface) */
void _oak_sky_background(const float *sky, const float dir[3], float out[3]);
/* The key light's disc over an image sky (env.sun_disc): cos of its radius
   (0: no disc this frame: no radius, no directional key light) and one over
   its solid angle, as the GPU view block carries them. */
void _oak_sun_disc_params(const oak_render_view *v, float *cos_radius, float *inv_solid_angle);
/* Adds the disc's radiance to out where the unit direction dir meets it. */
void _oak_sun_disc_add(const oak_render_view *v, const float dir[3], float out[3]);
/* irradiance E (not divided by pi) arriving at a surface of normal n */
void _oak_sky_irradiance(const float *sky, const float n[3], float out[3]);
/* the GGX-prefiltered sky around direction r for a roughness */
void _oak_sky_specular(const float *sky, const float r[3], float roughness, float out[3]);
/* the split-sum scale A and bias B (specular reflectance = F0 * A + B) */
void _oak_sky_brdf(const float *sky, float NdotV, float roughness, float *A, float *B);

/* ---- octahedral maps ----------------------------------------------------- */

/* uv in [0,1]^2 to the (unnormalized) point q on the octahedron |x|+|y|+|z| = 1;
   +Y is the centre of the map, -Y its four corners */
void _oak_sky_oct_point(float u, float v, float q[3]);
void _oak_sky_oct_uv(const float d[3], float uv[2]);
/* bilinear in an n x n level at texel offset `at`, across the octahedral seams */
void _oak_sky_oct_bilinear(const float *sky, uint32_t at, uint32_t n, const float d[3],
                           float out[3]);
/* the prefiltered level l's size and texel offset */
uint32_t _oak_sky_spec_size(uint32_t level);
uint32_t _oak_sky_spec_at(uint32_t level);

#endif
