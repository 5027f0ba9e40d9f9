/* Volumetric clouds (docs/SHADING.md "Volumetric clouds"): the frame's
 * cloud record from the view, and the C of shaders/common/clouds.glsl and
 * cloud_shadow.glsl operation for operation (the CPU backend runs these;
 * tests call them for the numbers a picture must show). `buf` is the
 * OAK_B_CLOUDS buffer's floats, laid out as OAK_GPU_CLOUD_* says. */
#ifndef OAK_RENDER_CLOUDS_H
#define OAK_RENDER_CLOUDS_H

#include <oak/backend.h>

#include "shaders/common/oak_gpu.h"

/* the clouds pass's steps (shaders/clouds.comp.glsl), one dispatch each */
enum {
    OAK_CLOUD_STEP_BAKE,   /* the noise table, once per buffer */
    OAK_CLOUD_STEP_SHADOW, /* the key light's transmittance map */
    OAK_CLOUD_STEP_MARCH,  /* the view's march at the downscaled size */
    OAK_CLOUD_STEPS
};

/* The view's clouds resolved for a width x height frame: defaults filled,
 * the preset's steps and downscale, the drift, the key light, the shadow
 * map's square around the eye (snapped to whole texels). shape[3] 0 (all
 * else 0 too) when the clouds pass does not run. */
void _oak_clouds_fill(oak_gpu_clouds *c, const oak_render_view *v, uint32_t width, uint32_t height);
/* the buffer's texels (vec4) for a record: shadow map, table, march */
static inline uint64_t _oak_clouds_texels(const oak_gpu_clouds *c) {
    return (uint64_t)OAK_GPU_CLOUD_MARCH_AT + 4 * (uint64_t)c->size[0] * c->size[1];
}
/* the march slot s's first texel (its distances follow size.x size.y on) */
static inline uint64_t _oak_clouds_slot(const oak_gpu_clouds *c, uint32_t s) {
    return (uint64_t)OAK_GPU_CLOUD_MARCH_AT + 2 * (uint64_t)s * c->size[0] * c->size[1];
}
/* The multiple-scattering gain: a thick cloud seen with the key light
   behind the eye returns OAK_CLOUD_ALBEDO_THICK of what a white card
   square to it does (the octaves' sum for a semi-infinite slab). */
double _oak_clouds_gain(void);

void _oak_clouds_noise_texel(uint32_t i, float out[4]);
/* The weather map at drifted world XZ (q = P.xz - the drift): its cover
   after the coverage, in [0, 1], and its type (0 flat .. 1 tall): the
   layer's type moved by up to c->light[3] (oak_clouds.variation) either way
   by the type channel's own noise, clamped (clouds.glsl oak_cloud_type). */
float _oak_clouds_cover(const oak_gpu_clouds *c, float qx, float qz);
float _oak_clouds_type(const oak_gpu_clouds *c, float qx, float qz);
/* density in [0, 1] at world P (detail: eroded, as the view's march) */
float _oak_clouds_density(const oak_gpu_clouds *c, const float *buf, const float P[3], bool detail);
/* step 1's texel (x, y): the key light's transmittance from the layer's
   base there through the layer */
float _oak_clouds_shadow_texel(const oak_gpu_clouds *c, const float *buf, uint32_t x, uint32_t y);
/* The transmittance the key light has through the layer along its ray
   from world P, marched as the shadow map's texel would be from the point
   where that ray meets the base (exact at P, not read from the map). */
float _oak_clouds_sun_transmittance(const oak_gpu_clouds *c, const float *buf, const float P[3]);
/* the shadow map's bilinear read for a surface at P (1 without clouds) */
float _oak_clouds_shadow(const oak_gpu_clouds *c, const float *buf, const float P[3]);
/* The sky light a cloud's sample is lit by (before c->ambient's 1/pi): the
   irradiance straight up (out[0..2]), and from low (out[3..5]): half from
   the ground below, half the mean of the four horizontal directions, so a
   cloud's base is lit by the ground and the horizon as well as the zenith
   (clouds.glsl's oak_cloud_ambient_low; sky as _oak_sky_irradiance). */
void _oak_clouds_ambient(const float *sky, float out[6]);
/* step 2's texel (tx, ty): light rgb and transmittance along the view ray
   through that texel's pixel, to `depth` (reversed-Z, 0: none); ambient the
   sky light's irradiance straight up (rgb) and from low (rgb: _oak_clouds_low).
   With c->steps[1], blended with last frame's slot reprojected (docs/
   SHADING.md "Volumetric clouds"), or, when not _oak_clouds_due, that
   slot's value carried over; aux: the transmittance-weighted distance,
   the depth, 1 when marched this frame (0 carried), 0: the slot's second
   half. */
void _oak_clouds_march(const oak_gpu_clouds *c, const float *buf, const oak_render_view *v,
                       uint32_t tx, uint32_t ty, float depth, const float ambient[6], float out[4],
                       float aux[4]);
/* Whether march texel (tx, ty) is marched this frame: always, unless
   c->steps[3] (the block side B) is 2 or more, then one texel of each
   B x B block a frame in Bayer order by the frame; the others carry last
   frame's value (marched after all where it has none). */
bool _oak_clouds_due(const oak_gpu_clouds *c, uint32_t tx, uint32_t ty);
/* the march step's dispatch size in invocations, x y z: the texels, or
   when c->steps[3] = B is 2 or more the B x B blocks, B * B layers of
   them; layer z takes each block's texel z places after its due one
   (clouds.comp.glsl), so layer 0's invocations all march and the others
   carry, marching only where no history is found (none marches twice) */
void _oak_clouds_march_grid(const oak_gpu_clouds *c, uint32_t out[3]);
/* The sky light capture's view through the layer (docs/SHADING.md
   "Volumetric clouds", "The sky light sees them"): from P along unit d,
   OAK_CLOUD_SKY_STEPS steps at their middles across the slab (no hash),
   the same density and light as the march; out: light rgb, transmittance.
   d at or below the horizon: (0, 0, 0, 1). c's drift is the caller's (the
   capture passes a record whose drift is 0 and P in the drifting field);
   ambient as _oak_clouds_ambient gives it. */
void _oak_clouds_sky(const oak_gpu_clouds *c, const float *buf, const float P[3], const float d[3],
                     const float ambient[6], float out[4]);
/* the full-size pixel march texel (tx, ty) stands for */
void _oak_clouds_march_pixel(const oak_gpu_clouds *c, uint32_t width, uint32_t height, uint32_t tx,
                             uint32_t ty, uint32_t out[2]);

/* Aerial perspective over the clouds (cloudmix.comp.glsl): c, the clouds'
   light rgb and transmittance at a pixel (screen ux, uy in [0, 1], row 0
   at the top) whose clouds lie `dist` metres away (the march's
   transmittance-weighted distance), seen through the air of the aerial
   volume vol (render/aerial.h): rgb * the air's transmittance + the air's
   light * (1 - c[3]), the share of the view the clouds cover (what is
   behind them had its own air applied). c[3] is kept. */
void _oak_clouds_air(const float *vol, float ux, float uy, float dist, float c[4]);

#endif
