/* Which stream LOD bands the GPU backends rasterize in compute (craster.h). */
#include "craster.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oak/core.h>

_oak_craster_mode _oak_craster_mode_get(void) {
    const char *e = getenv("OAK_CRASTER");
    if (!e || !*e || !strcmp(e, "on")) return OAK_CRASTER_MODE_ON;
    if (!strcmp(e, "off")) return OAK_CRASTER_MODE_OFF;
    if (!strcmp(e, "all")) return OAK_CRASTER_MODE_ALL;
    static bool warned;
    if (!warned) oak_log_warn("OAK_CRASTER=%s: expected off, on or all; reading on", e);
    warned = true;
    return OAK_CRASTER_MODE_ON;
}

const char *_oak_craster_mode_name(_oak_craster_mode m) {
    return m == OAK_CRASTER_MODE_OFF ? "off" : m == OAK_CRASTER_MODE_ALL ? "all" : "on";
}

float _oak_craster_pixels(void) {
    const char *e = getenv("OAK_CRASTER_PIXELS");
    if (e && *e) {
        char *end = NULL;
        float p = strtof(e, &end);
        if (end && !*end && p > 0 && isfinite(p)) return p;
    }
    return (float)OAK_CRASTER_PIXELS;
}

bool _oak_craster_small(const oak_render_view *v, const oak_render_stream *rs, uint32_t k,
                        float radius, uint32_t triangles, float pixels, _oak_craster_mode m) {
    if (m == OAK_CRASTER_MODE_OFF || !triangles) return false;
    if (m == OAK_CRASTER_MODE_ALL) return true;
    if (v->ortho || k == 0 || k >= OAK_STREAM_LODS) return false;
    float near = rs->lod_distance[k - 1]; /* the band starts where the last ended */
    if (!(near > radius + 2 * v->znear)) return false;
    float across = 2 * radius / sqrtf((float)triangles) * v->proj[1][1] * 0.5f * (float)v->height;
    return across / near <= pixels;
}

bool _oak_craster_shadow_small(const oak_shadow_cascade *c, float radius, uint32_t triangles,
                               float pixels, _oak_craster_mode m) {
    if (m == OAK_CRASTER_MODE_OFF || !triangles) return false;
    if (m == OAK_CRASTER_MODE_ALL) return true;
    if (!(c->texel_world > 0)) return false;
    return 2 * radius / sqrtf((float)triangles) / c->texel_world <= pixels;
}

const char *_oak_craster_shadow_words(bool has_int64, const char *what) {
    static char words[320];
    _oak_craster_mode m = _oak_craster_mode_get();
    if (!has_int64)
        snprintf(words, sizeof words, "none (it needs %s, as the camera's)", what);
    else if (m == OAK_CRASTER_MODE_OFF)
        snprintf(words, sizeof words, "none (OAK_CRASTER=off)");
    else if (m == OAK_CRASTER_MODE_ALL)
        snprintf(words, sizeof words,
                 "every stream band it can take into each cascade (OAK_CRASTER=all): opaque, "
                 "rigid, before a card; depth only, the lamp atlas on the hardware");
    else
        snprintf(words, sizeof words,
                 "stream bands whose triangles are at most %g of a cascade's texels across "
                 "(OAK_CRASTER=on, OAK_CRASTER_PIXELS): opaque, rigid, before a card; depth "
                 "only, the lamp atlas on the hardware",
                 (double)_oak_craster_pixels());
    return words;
}
