/* Painted images reachable as "oak://NAME": the built-ins ("white", a grey
 * "checker", fBm "noise" and a grass-and-rock "ground") and the painters users
 * register. The noisy ones tile: near the edges they fade into shifted copies. */
#include <math.h>
#include <string.h>

#include "registry.h"

#define PAINT_ROWS_PER_JOB 8

/* checker: 256 x 256 texels in 8 x 8 squares of 32, the top-left square light */
#define CHECKER_SIZE   256u
#define CHECKER_SQUARE 32u
#define CHECKER_LIGHT  204 /* sRGB 0.8 */
#define CHECKER_DARK   51  /* sRGB 0.2 */

typedef struct painter {
    char *name;
    uint32_t width, height;
    oak_paint_fn paint;
    void *user;
} painter;

static painter *g_painters;
static uint32_t g_painter_count, g_painter_cap;
static bool g_builtins_added;

void _oak_paint_shutdown(void) {
    for (uint32_t i = 0; i < g_painter_count; i++) oak_free(g_painters[i].name);
    oak_free(g_painters);
    g_painters = NULL;
    g_painter_count = g_painter_cap = 0;
    g_builtins_added = false;
}

static void paint_white(uint8_t *rgba, uint32_t w, uint32_t h, void *user) {
    (void)user;
    memset(rgba, 255, (size_t)w * h * 4);
}

static void paint_checker(uint8_t *rgba, uint32_t w, uint32_t h, void *user) {
    (void)user;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t v =
                ((x / CHECKER_SQUARE + y / CHECKER_SQUARE) & 1) ? CHECKER_DARK : CHECKER_LIGHT;
            uint8_t *p = rgba + 4 * ((size_t)y * w + x);
            p[0] = p[1] = p[2] = v;
            p[3] = 255;
        }
}

/* fBm over a tile of `cells` noise cells that wraps: across the last quarter
   of each axis it fades into the copy one tile back, so each edge meets the
   opposite one; only texels in that band pay for the extra samples. */
#define TILE_BAND 0.25f
static float tiled_fbm(float u, float v, float cells, uint32_t seed, uint32_t octaves) {
    float x = u * cells, y = v * cells;
    float su = u > 1 - TILE_BAND ? (u - (1 - TILE_BAND)) / TILE_BAND : 0;
    float sv = v > 1 - TILE_BAND ? (v - (1 - TILE_BAND)) / TILE_BAND : 0;
    float w[4] = {(1 - su) * (1 - sv), su * (1 - sv), (1 - su) * sv, su * sv};
    float f = 0, norm = 0;
    for (int k = 0; k < 4; k++) {
        if (w[k] == 0) continue;
        f += w[k] *
             oak_fbm2(x - (k & 1 ? cells : 0), y - (k & 2 ? cells : 0), seed, octaves, 2.0f, 0.5f);
        norm += w[k] * w[k];
    }
    /* blending narrows the spread (to 1/2 at the band's far corner); undo it
       so contrast stays even across the tile */
    return f / sqrtf(norm);
}

static float clamp01(float x) {
    return x < 0 ? 0 : (x > 1 ? 1 : x);
}
static float smooth(float e0, float e1, float x) {
    float t = clamp01((x - e0) / (e1 - e0));
    return t * t * (3 - 2 * t);
}
static float mixf(float a, float b, float t) {
    return a + (b - a) * t;
}

typedef struct rows_job {
    uint8_t *rgba;
    uint32_t w, h;
    bool ground;
} rows_job;

static void noise_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    rows_job *j = user;
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < j->w; x++) {
            float u = ((float)x + 0.5f) / (float)j->w, v = ((float)y + 0.5f) / (float)j->h;
            uint8_t *p = j->rgba + 4 * ((size_t)y * j->w + x);
            if (!j->ground) {
                float n = clamp01(0.5f + 0.9f * tiled_fbm(u, v, 8.0f, 1u, 5));
                p[0] = p[1] = p[2] = (uint8_t)(n * 255.0f + 0.5f);
                p[3] = 255;
                continue;
            }
            /* colours are sRGB as painted: grass from dark to sunlit green,
               bare earth where the large-scale field dips, grey rock where a
               second field peaks, all broken up by fine detail */
            float macro = tiled_fbm(u, v, 4.0f, 11u, 5);
            float rock = tiled_fbm(u, v, 6.0f, 23u, 5);
            float detail = tiled_fbm(u, v, 48.0f, 37u, 3);
            float blade = tiled_fbm(u, v, 128.0f, 41u, 2);
            float g = clamp01(0.5f + 1.2f * detail + 0.8f * blade);
            float grass[3] = {mixf(52, 104, g), mixf(78, 132, g), mixf(26, 48, g)};
            float e = clamp01(0.5f + 1.5f * detail);
            float earth[3] = {mixf(84, 122, e), mixf(68, 98, e), mixf(46, 66, e)};
            float s = clamp01(0.5f + 1.5f * detail + 0.6f * blade);
            float stone[3] = {mixf(96, 160, s), mixf(94, 156, s), mixf(90, 148, s)};
            float t_earth = smooth(-0.02f, -0.22f, macro + 0.3f * detail);
            float t_rock = smooth(0.12f, 0.2f, rock + 0.15f * detail);
            for (int c = 0; c < 3; c++) {
                float col = mixf(grass[c], earth[c], t_earth);
                col = mixf(col, stone[c], t_rock);
                p[c] = (uint8_t)(clamp01(col / 255.0f) * 255.0f + 0.5f);
            }
            p[3] = 255;
        }
}

static void paint_noise(uint8_t *rgba, uint32_t w, uint32_t h, void *user) {
    (void)user;
    rows_job j = {rgba, w, h, false};
    oak_parallel_for(h, PAINT_ROWS_PER_JOB, noise_rows, &j);
}

static void paint_ground(uint8_t *rgba, uint32_t w, uint32_t h, void *user) {
    (void)user;
    rows_job j = {rgba, w, h, true};
    oak_parallel_for(h, PAINT_ROWS_PER_JOB, noise_rows, &j);
}

static painter *find(const char *name) {
    for (uint32_t i = 0; i < g_painter_count; i++)
        if (strcmp(g_painters[i].name, name) == 0) return &g_painters[i];
    return NULL;
}

static oak_result add(const char *name, uint32_t w, uint32_t h, oak_paint_fn fn, void *user) {
    painter *p = find(name);
    if (!p) {
        if (!OAK_GROW(g_painters, g_painter_cap, g_painter_count + 1))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "painter '%s': out of memory", name);
        char *copy = oak_strdup(name);
        if (!copy) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "painter '%s': out of memory", name);
        p = &g_painters[g_painter_count++];
        p->name = copy;
    }
    /* registering a name again replaces its painter (a user may override a
       built-in); textures already painted keep their pixels */
    p->width = w;
    p->height = h;
    p->paint = fn;
    p->user = user;
    return OAK_OK;
}

static oak_result add_builtins(void) {
    if (g_builtins_added) return OAK_OK;
    oak_result r = add("white", 1, 1, paint_white, NULL);
    if (!r) r = add("checker", CHECKER_SIZE, CHECKER_SIZE, paint_checker, NULL);
    if (!r) r = add("noise", 256, 256, paint_noise, NULL);
    if (!r) r = add("ground", 512, 512, paint_ground, NULL);
    if (!r) g_builtins_added = true;
    return r;
}

oak_result oak_register_painter(const char *name, uint32_t width, uint32_t height,
                                oak_paint_fn paint, void *user) {
    if (!name || !name[0] || !paint)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "register painter: no %s given",
                         paint ? "name" : "paint function");
    if (!width || !height || width > OAK_MAX_TEXTURE_SIZE || height > OAK_MAX_TEXTURE_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "painter '%s': size %ux%u out of range", name,
                         width, height);
    /* painters are freed with the registry, so make sure it exists */
    if (!_oak_registry_get()) return OAK_ERROR_OUT_OF_MEMORY;
    oak_result r = add_builtins();
    return r ? r : add(name, width, height, paint, user);
}

oak_result _oak_paint(const char *name, uint32_t *width, uint32_t *height, uint8_t **rgba) {
    *rgba = NULL;
    if (!_oak_registry_get()) return OAK_ERROR_OUT_OF_MEMORY;
    oak_result r = add_builtins();
    if (r) return r;
    painter *p = find(name);
    if (!p) return oak_error(OAK_ERROR_NOT_FOUND, "oak://%s: no painter of that name", name);
    uint8_t *px = oak_calloc((size_t)p->width * p->height, 4);
    if (!px) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak://%s: out of memory", name);
    p->paint(px, p->width, p->height, p->user);
    *width = p->width;
    *height = p->height;
    *rgba = px;
    return OAK_OK;
}
