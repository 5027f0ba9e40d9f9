/* Render scale and capture channels: the scale's setter and resolution, the
 * bilinear stretch of a scaled frame to the output size, and the channels'
 * names (docs/SHADING.md "Render scale", "Capture channels"). */
#include <math.h>
#include <string.h>

#include "render_scale.h"
#include "taa.h"
#include "core/internal.h"

oak_result oak_post_set_render_scale(oak_post *post, float scale, float *adopted) {
    if (!post) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "render scale: no post settings");
    if (!isfinite(scale) || scale < 0)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "render scale %g is not a number in [%.2f, %.2f]", (double)scale,
                         OAK_RENDER_SCALE_MIN, OAK_RENDER_SCALE_MAX);
    float s = scale == 0 ? 1.0f : scale;
    if (s < (float)OAK_RENDER_SCALE_MIN) s = (float)OAK_RENDER_SCALE_MIN;
    if (s > (float)OAK_RENDER_SCALE_MAX) s = (float)OAK_RENDER_SCALE_MAX;
    post->render_scale = s;
    if (adopted) *adopted = s;
    return OAK_OK;
}

uint32_t oak_taa_frames(const oak_post *post) {
    oak_post p = post ? *post : (oak_post){0};
    if (p.taa == OAK_TAA_DEFAULT && p.preset) p.taa = oak_preset_quality(p.preset).taa;
    bool on = p.taa == OAK_TAA_ON || (p.taa == OAK_TAA_DEFAULT && OAK_TAA_DEFAULT_ON);
    if (!on || p.channel != OAK_CHANNEL_NONE) return 1;
    float scale = 1.0f;
    if (_oak_render_scale_resolve(&p, &scale) != OAK_OK) return OAK_TAA_SAMPLES;
    return p.debug == OAK_DEBUG_MOTION ? OAK_TAA_SAMPLES : _oak_taa_phases(scale);
}

oak_result _oak_render_scale_resolve(const oak_post *post, float *scale) {
    oak_post p = post ? *post : (oak_post){0};
    /* a channel's data is not stretched: ids, normals and depths do not
       interpolate, so it is drawn at the output size */
    if (p.channel != OAK_CHANNEL_NONE) {
        *scale = 1.0f;
        return OAK_OK;
    }
    /* left at its default, the quality preset's (render/quality.c) */
    if (p.render_scale == 0 && p.preset) p.render_scale = oak_preset_quality(p.preset).render_scale;
    return oak_post_set_render_scale(&p, p.render_scale, scale);
}

void _oak_render_scale_size(float scale, uint32_t w, uint32_t h, uint32_t *rw, uint32_t *rh) {
    uint32_t x = (uint32_t)lroundf((float)w * scale), y = (uint32_t)lroundf((float)h * scale);
    *rw = x < 1 ? 1 : x > w ? w : x;
    *rh = y < 1 ? 1 : y > h ? h : y;
}

/* Source position of destination texel i in 1/256ths of a source texel,
   centres matched ((i + 0.5) * sw / dw - 0.5), clamped at the edges. */
static void tap(uint32_t i, uint32_t sw, uint32_t dw, uint32_t *i0, uint32_t *i1, uint32_t *f) {
    int64_t num = (int64_t)(2 * i + 1) * sw - dw; /* twice dw times the position */
    int64_t fp = num <= 0 ? 0 : (num * 256) / (2 * (int64_t)dw);
    int64_t last = ((int64_t)sw - 1) * 256;
    if (fp > last) fp = last;
    *i0 = (uint32_t)(fp >> 8);
    *f = (uint32_t)(fp & 255);
    *i1 = *i0 + 1 < sw ? *i0 + 1 : sw - 1;
}

void _oak_stretch_rgba8(uint8_t *dst, uint32_t dw, uint32_t dh, const uint8_t *src, uint32_t sw,
                        uint32_t sh, uint32_t *columns) {
    for (uint32_t x = 0; x < dw; x++) { /* every row takes the same columns */
        uint32_t x0, x1, fx;
        tap(x, sw, dw, &x0, &x1, &fx);
        columns[x * 3] = x0 * 4, columns[x * 3 + 1] = x1 * 4, columns[x * 3 + 2] = fx;
    }
    for (uint32_t y = 0; y < dh; y++) {
        uint32_t y0, y1, fy;
        tap(y, sh, dh, &y0, &y1, &fy);
        const uint8_t *r0 = src + (size_t)y0 * sw * 4, *r1 = src + (size_t)y1 * sw * 4;
        uint8_t *out = dst + (size_t)y * dw * 4;
        for (uint32_t x = 0; x < dw; x++) {
            uint32_t a = columns[x * 3], b = columns[x * 3 + 1], fx = columns[x * 3 + 2];
            for (uint32_t k = 0; k < 3; k++) {
                uint32_t top = r0[a + k] * (256 - fx) + r0[b + k] * fx;
                uint32_t bot = r1[a + k] * (256 - fx) + r1[b + k] * fx;
                out[x * 4 + k] = (uint8_t)((top * (256 - fy) + bot * fy + 32768) >> 16);
            }
            out[x * 4 + 3] = 255;
        }
    }
}

static const char *const k_channels[OAK_CHANNEL_COUNT] = {"none",  "albedo", "normal",
                                                          "depth", "motion", "ao"};

const char *oak_channel_name(oak_channel channel) {
    return (unsigned)channel < OAK_CHANNEL_COUNT ? k_channels[channel] : NULL;
}

oak_result oak_channel_parse(const char *name, oak_channel *out) {
    for (uint32_t i = 1; name && i < OAK_CHANNEL_COUNT; i++)
        if (strcmp(name, k_channels[i]) == 0) {
            *out = (oak_channel)i;
            return OAK_OK;
        }
    return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                     "unknown channel '%s' (try albedo, normal, depth, motion or ao)",
                     name ? name : "");
}
