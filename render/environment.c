/* Defaults for lights and the environment, the conversion of colours given
 * "as they should look" into the radiance that shows as them, and the
 * physical camera's exposure. */
#include <math.h>

#include "frontend.h"

oak_light oak_light_defaults(oak_light_type type) {
    oak_light l = {0};
    l.type = type == OAK_LIGHT_DEFAULT ? OAK_LIGHT_DIRECTIONAL : type;
    l.color[0] = l.color[1] = l.color[2] = 1.0f;
    l.intensity = l.type == OAK_LIGHT_DIRECTIONAL ? 3.0f : 1.0f;
    l.inner_cone = 0.0f;
    l.outer_cone = OAK_PI / 4.0f;
    l.cast_shadows = l.type == OAK_LIGHT_DIRECTIONAL;
    return l;
}

oak_environment oak_environment_defaults(void) {
    oak_environment e = {0};
    const float zenith[3] = {0.32f, 0.52f, 0.85f}, horizon[3] = {0.72f, 0.82f, 0.93f};
    for (int i = 0; i < 3; i++) {
        e.sky_zenith_display[i] = zenith[i];
        e.sky_horizon_display[i] = horizon[i];
        e.fog_display[i] = horizon[i];
    }
    e.ambient_sky[0] = 0.30f, e.ambient_sky[1] = 0.38f, e.ambient_sky[2] = 0.50f;
    e.ambient_ground[0] = 0.12f, e.ambient_ground[1] = 0.11f, e.ambient_ground[2] = 0.09f;
    return e;
}

/* Inverse of the ACES fit y = x(ax+b) / (x(cx+d)+e): the positive root of
   (yc - a)x^2 + (yd - b)x + ye = 0. */
static float aces_inverse(float y) {
    const float a = 2.51f, b = 0.03f, c = 2.43f, d = 0.59f, e = 0.14f;
    if (y <= 0) return 0;
    if (y > 0.999f) y = 0.999f;
    float A = y * c - a, B = y * d - b, C = y * e;
    float disc = B * B - 4 * A * C;
    if (disc < 0) disc = 0;
    /* A < 0 for y < a/c, so this root is the positive one. */
    return (-B - sqrtf(disc)) / (2 * A);
}

/* Inverse of Khronos PBR Neutral for a grey (all channels y): below 0.04 the
   toe y = 6.25x^2, then y = x - 0.04 to 0.76, then the compressed peak
   y = 1 - d^2 / (p + d - 0.76) with p = x - 0.04. A coloured display value
   is inverted channel by channel as if grey: close, not exact. */
static float neutral_inverse(float y) {
    const float start = 0.76f, d = 0.24f;
    if (y <= 0) return 0;
    if (y > 0.999f) y = 0.999f;
    if (y < 0.04f) return sqrtf(y / 6.25f);
    if (y < start) return y + 0.04f;
    return d * d / (1 - y) - d + start + 0.04f;
}

void _oak_display_to_radiance(const float display[3], const oak_post *post, float out[3]) {
    for (int i = 0; i < 3; i++) {
        float c = display[i] < 0 ? 0 : (display[i] > 1 ? 1 : display[i]);
        float lin = oak_srgb_to_linear(c);
        float x = post->no_tonemap                 ? lin
                  : post->tone == OAK_TONE_NEUTRAL ? neutral_inverse(lin)
                                                   : aces_inverse(lin);
        out[i] = x / post->exposure;
    }
}

/* ---- the physical camera (docs/SHADING.md "Exposure") --------------------- */

float oak_ev100_from_camera(float aperture, float shutter, float iso) {
    double n = aperture > 0 ? aperture : 1.0;
    double t = shutter > 0 ? shutter : OAK_CAMERA_SHUTTER;
    double s = iso > 0 ? iso : OAK_CAMERA_ISO;
    return (float)log2(n * n / t * 100.0 / s);
}

float oak_ev100_from_exposure(float exposure) {
    return exposure > 0 ? (float)-log2(OAK_EXPOSURE_SATURATION * (double)exposure) : 0.0f;
}

float oak_post_exposure(const oak_post *post) {
    double e = OAK_EXPOSURE_DEFAULT;
    bool physical = false;
    double ev = 0;
    if (post->exposure > 0 && isfinite(post->exposure)) {
        e = post->exposure;
    } else if (post->ev100_set) {
        ev = post->ev100, physical = true;
    } else if (post->aperture > 0) {
        ev = oak_ev100_from_camera(post->aperture, post->shutter, post->iso), physical = true;
    }
    if (physical) {
        if (!isfinite(ev)) ev = 0;
        ev = ev < OAK_EV100_MIN ? OAK_EV100_MIN : ev > OAK_EV100_MAX ? OAK_EV100_MAX : ev;
        e = 1.0 / (OAK_EXPOSURE_SATURATION * exp2(ev));
    }
    double comp = isfinite(post->exposure_comp) ? post->exposure_comp : 0.0;
    comp = comp < -16 ? -16 : comp > 16 ? 16 : comp;
    return (float)(e * exp2(comp));
}
