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

/* An on/off switch read from the environment, on unless it says off; any
   other value warned about once (warned: the switch's own flag). */
static bool switch_on(const char *name, bool *warned) {
    const char *e = getenv(name);
    if (!e || !*e || !strcmp(e, "on")) return true;
    if (!strcmp(e, "off")) return false;
    if (!*warned) oak_log_warn("%s=%s: expected off or on; reading on", name, e);
    *warned = true;
    return true;
}

bool _oak_craster_mask_get(void) {
    static bool warned;
    return switch_on("OAK_CRASTER_MASK", &warned);
}

/* A positive number from the environment variable `name`, else `fallback`. */
static float positive_env(const char *name, float fallback) {
    const char *e = getenv(name);
    if (e && *e) {
        char *end = NULL;
        float p = strtof(e, &end);
        if (end && !*end && p > 0 && isfinite(p)) return p;
    }
    return fallback;
}

float _oak_craster_pixels(void) {
    return positive_env("OAK_CRASTER_PIXELS", (float)OAK_CRASTER_PIXELS);
}

float _oak_craster_instance_pixels(void) {
    return positive_env("OAK_CRASTER_INSTANCE_PIXELS", _oak_craster_pixels());
}

uint32_t _oak_craster_group_cap(void) {
    float cap = positive_env("OAK_CRASTER_GROUPS", (float)OAK_GPU_CRASTER_GROUPS);
    return cap < 1.0f ? 1u : cap < 65535.0f ? (uint32_t)cap : 65535u;
}

uint32_t _oak_craster_groups(uint64_t most) {
    uint64_t c = _oak_craster_group_cap(), groups = most / 64 + (most % 64 != 0);
    return (uint32_t)(groups < c ? groups : c);
}

bool _oak_craster_instance_get(void) {
    static bool warned;
    return switch_on("OAK_CRASTER_INSTANCE", &warned);
}

float _oak_craster_small_at(const oak_render_view *v, float radius, uint32_t triangles,
                            float pixels) {
    if (v->ortho || !triangles || !(radius > 0) || !(pixels > 0)) return 0;
    /* the band rule's `across / dist <= pixels` solved for dist, at scale 1 */
    float at =
        2 * radius / sqrtf((float)triangles) * v->proj[1][1] * 0.5f * (float)v->height / pixels;
    return at > 0 && isfinite(at) ? at : 0;
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

const char *_oak_craster_kinds(void) {
    return _oak_craster_mask_get() ? "opaque and MASK (cut-out) bands"
                                   : "opaque bands only (OAK_CRASTER_MASK=off)";
}

const char *_oak_craster_instance_words(bool possible) {
    static char words[320];
    _oak_craster_mode m = _oak_craster_mode_get();
    if (!possible || m == OAK_CRASTER_MODE_OFF)
        snprintf(words, sizeof words, "none (no compute raster)");
    else if (m == OAK_CRASTER_MODE_ALL)
        snprintf(words, sizeof words, "none needed (OAK_CRASTER=all: every band whole)");
    else if (!_oak_craster_instance_get())
        snprintf(words, sizeof words, "off (OAK_CRASTER_INSTANCE=off: per band only)");
    else
        snprintf(words, sizeof words,
                 "on (OAK_CRASTER_INSTANCE=on): in a camera band the rule leaves on the "
                 "hardware, an instance whose triangles are at most %g px across at its "
                 "distance and scale goes to compute (instcull's SMALL list; "
                 "OAK_CRASTER_INSTANCE_PIXELS); not for a stream under Hi-Z, not for the "
                 "cascades",
                 (double)_oak_craster_instance_pixels());
    return words;
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
                 "every stream band it can take into each cascade (OAK_CRASTER=all): %s, "
                 "rigid, before a card; depth only, the lamp atlas on the hardware",
                 _oak_craster_kinds());
    else
        snprintf(words, sizeof words,
                 "stream bands whose triangles are at most %g of a cascade's texels across "
                 "(OAK_CRASTER=on, OAK_CRASTER_PIXELS): %s, rigid, before a card; depth "
                 "only, the lamp atlas on the hardware",
                 (double)_oak_craster_pixels(), _oak_craster_kinds());
    return words;
}

/* LOD k of stream s as a band both plans may take (opaque, or MASK unless
   `mask` is false; rigid, drawn from the lists, before a card): its
   triangles, its mesh's first index and base vertex; 0 triangles when it
   is none. A card (impostor_lod) needs a pose bank, so a posed stream's
   rule already leaves it out: it turns to the eye per instance, not
   rigid. A stream whose LOD meshes are cards (the trees') is rigid. */
static uint32_t band(const _oak_craster_streams *in, uint32_t s, uint32_t k, bool mask,
                     uint32_t mesh[3]) {
    const oak_render_stream *rs = &in->v->streams[s];
    uint32_t g = in->group[s];
    if (g > 3 || (g > 1 && !mask) || !in->heads[s].info[0] || rs->pose_bank) return 0;
    if (k >= rs->lod_count || (rs->impostor_lod && k >= rs->impostor_lod)) return 0;
    if (!oak_mesh_get(rs->lods[k]) || !in->mesh(in->user, rs->lods[k], mesh)) return 0;
    return mesh[0] / 3;
}

/* The camera's bands in plan order, one walk for the split and the plan so
   that both take the same (stream, LOD)s: per stream and LOD, a band the
   rule sends whole (its camera command, its LOD's bit in lods), else, for a
   stream without Hi-Z, a per-instance band (its SMALL list's command, no
   bit: the hardware still draws the camera's list). With `split` the walk
   decides the per-instance bands and writes their small_at there (table
   unwritten); without, it takes those whose head has small_at > 0. No item
   budget here: the host knows the streams' whole record counts only, and
   a budget over those (2^32 items) sent the meadow's grass bands back to
   the hardware at 1,270 m (1,307,392 records x 3,072 triangles of LOD 1
   alone); the GPU numbers the items from the visible counts
   (craster_plan.comp, oak_gpu.h OAK_GPU_CRASTER_PLAN). */
static uint32_t walk(const _oak_craster_streams *in, oak_gpu_instcull *split, uint32_t (*table)[4],
                     uint8_t *lods, uint32_t *split_bands) {
    _oak_craster_mode mode = _oak_craster_mode_get();
    float pixels = _oak_craster_pixels(), ipixels = _oak_craster_instance_pixels();
    bool mask = _oak_craster_mask_get();
    bool instance = mode == OAK_CRASTER_MODE_ON && _oak_craster_instance_get();
    uint32_t n = 0;
    *split_bands = 0;
    for (uint32_t s = 0; s < in->count; s++)
        for (uint32_t k = 0; k < OAK_STREAM_LODS; k++) {
            const oak_render_stream *rs = &in->v->streams[s];
            const oak_gpu_instcull *h = &in->heads[s];
            if (split) split[s].small_at[k] = 0;
            uint32_t m[3], tris = band(in, s, k, mask, m);
            if (!tris) continue;
            float radius = h->bounds[k][3], at = 0;
            bool whole = _oak_craster_small(in->v, rs, k, radius, tris, pixels, mode);
            if (!whole) {
                /* Hi-Z's pass 2 moves every command word to its LATE list's,
                   which a SMALL list has none of: a stream under Hi-Z keeps
                   its bands whole on the hardware */
                if (split)
                    at = instance && h->prev[1] == OAK_GPU_INSTCULL_HIZ_OFF
                             ? _oak_craster_small_at(in->v, radius, tris, ipixels)
                             : 0;
                else
                    at = h->small_at[k];
                if (!(at > 0)) continue;
                ++*split_bands;
                if (split) split[s].small_at[k] = at;
            } else if (lods) {
                lods[s] |= (uint8_t)(1u << k);
            }
            if (table) {
                uint32_t view = whole ? 0 : OAK_GPU_INSTCULL_SMALL;
                table[1 + 2 * n][0] = s, table[1 + 2 * n][1] = k;
                table[1 + 2 * n][2] = tris, table[1 + 2 * n][3] = 0; /* the GPU's plan */
                table[2 + 2 * n][0] = m[1], table[2 + 2 * n][1] = m[2];
                /* the camera's command, or its SMALL list's */
                table[2 + 2 * n][2] = h->info[3] + (view * OAK_STREAM_LODS + k) * 5;
                table[2 + 2 * n][3] = ((in->group[s] & 1u) == 0) /* single-sided */ |
                                      (whole ? 0u : OAK_GPU_CRASTER_SPLIT);
            }
            n++;
        }
    return n;
}

uint32_t _oak_craster_split(const _oak_craster_streams *in, oak_gpu_instcull *heads) {
    uint32_t split;
    walk(in, heads, NULL, NULL, &split);
    return split;
}

uint32_t _oak_craster_plan(const _oak_craster_streams *in, uint32_t width, uint32_t height,
                           uint32_t (*table)[4], uint8_t lods[OAK_STREAM_MAX_PER_VIEW],
                           uint32_t *split) {
    uint32_t n = walk(in, NULL, table, lods, split);
    table[0][0] = n, table[0][1] = width, table[0][2] = height, table[0][3] = 0;
    return n;
}

uint32_t _oak_craster_shadow_plan(const _oak_craster_streams *in,
                                  const oak_shadow_layer_plan *plans, uint32_t cascades,
                                  uint32_t size, uint32_t (*table)[4],
                                  uint8_t lods[OAK_MAX_CASCADES][OAK_STREAM_MAX_PER_VIEW],
                                  uint32_t *regions, uint64_t *most) {
    _oak_craster_mode mode = _oak_craster_mode_get();
    float pixels = _oak_craster_pixels();
    bool mask = _oak_craster_mask_get();
    uint32_t n = 0;
    *most = 0;
    for (uint32_t c = 0; c < cascades; c++)
        for (uint32_t s = 0; s < in->count; s++) {
            const oak_render_stream *rs = &in->v->streams[s];
            const oak_gpu_instcull *h = &in->heads[s];
            bool mover = in->moved[s];
            if (c >= h->draw[3] || (mover ? !plans[c].draw_movers : !plans[c].draw_static))
                continue;
            for (uint32_t k = 0; k < OAK_STREAM_LODS; k++) {
                uint32_t m[3], tris = band(in, s, k, mask, m);
                if (!tris || !_oak_craster_shadow_small(&in->v->cascades[c], h->bounds[k][3], tris,
                                                        pixels, mode))
                    continue;
                /* the grid's width from the whole count (capped): the
                   shader cuts a row's visible items at OAK_GPU_CRASTER_ITEMS */
                uint64_t items = (uint64_t)rs->count * tris;
                uint32_t region = c * 2 + mover;
                table[1 + 2 * n][0] = s, table[1 + 2 * n][1] = k;
                table[1 + 2 * n][2] = tris, table[1 + 2 * n][3] = region;
                table[2 + 2 * n][0] = m[1], table[2 + 2 * n][1] = m[2];
                /* the cascade's command (lists go view by view, the camera's first) */
                table[2 + 2 * n][2] = h->info[3] + ((c + 1) * OAK_STREAM_LODS + k) * 5;
                table[2 + 2 * n][3] = c;
                *most = items > *most ? items : *most;
                lods[c][s] |= (uint8_t)(1u << k);
                *regions |= 1u << region;
                n++;
            }
        }
    table[0][0] = n, table[0][1] = size, table[0][2] = 0, table[0][3] = 0;
    return n;
}
