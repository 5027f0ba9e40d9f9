/* Resolve and blend, one job per tile. Resolve shades each pixel of the
 * visibility buffer once (sky where empty); blend then draws the BLEND
 * triangles, sorted far to near, forward-shaded and composited "over" in
 * linear light where they pass the opaque depth. */
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "render/fog.h"
#include "render/skylight.h"

#define TRI_CACHE 16

typedef struct resolve_ctx {
    cpu_backend *b;
    const uint32_t *order; /* job k resolves tile order[k]; NULL: tile k */
    uint32_t *cost;        /* each tile's time this frame, ns / 16; NULL: not kept */
} resolve_ctx;

/* the pending lanes' pixels: where each stands, on which cached triangle */
typedef struct pending {
    const cpu_tri_ctx *tc[CPU_LANES_MAX];
    uint32_t x[CPU_LANES_MAX], y[CPU_LANES_MAX];
    uint32_t from;  /* lanes from..q.count wait for their surface */
    uint32_t slots; /* the cache slots they read (one bit a slot) */
} pending;
_Static_assert(TRI_CACHE <= 32, "pending.slots has a bit for each cache slot");

/* The surfaces of the lanes gathered since the last call, in lanes, then
   each one's material prep. */
static void surfaces(const cpu_backend *b, cpu_surface_fn surface, cpu_lanes *q, pending *w,
                     cpu_surface *surf, const float *gtao) {
    uint32_t o = w->from, n = q->count - o;
    if (!n) return;
    surface(b, &b->opaque, n, w->tc + o, w->x + o, w->y + o, surf + o);
    if (gtao)
        for (uint32_t i = o; i < q->count; i++)
            surf[i].gtao = gtao[(size_t)w->y[i] * b->opaque.width + w->x[i]];
    _oak_cpu_prep_kernel()(b, n, w->tc + o, surf + o, q, o);
    w->from = q->count;
    w->slots = 0;
}

static void flush(const cpu_backend *b, cpu_light_fn light, cpu_surface_fn surface, cpu_lanes *q,
                  pending *w, cpu_surface *surf, float **outs, const float *gtao) {
    surfaces(b, surface, q, w, surf, gtao);
    if (!q->count) return;
    light(b, q);
    _oak_cpu_shade_finish_lanes(b, surf, q, outs);
    q->count = 0;
    w->from = 0;
}

static void resolve_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const resolve_ctx *rc = user;
    cpu_backend *b = rc->b;
    const cpu_pass *p = &b->opaque;
    const oak_render_view *v = b->view;
    bool image_sky = b->sky[3] > 0;
    bool under = _oak_cpu_eye_under_water(v);
    /* a tile's rows cross the same small triangles again and again: keep the
       last few gathered, direct-mapped by id */
    cpu_tri_ctx cache[TRI_CACHE];
    /* covered pixels wait in lanes until eight are gathered (any triangle or
       material: each lane carries its own), then the kernel lights them */
    cpu_light_fn light = _oak_cpu_light_kernel();
    cpu_surface_fn surface = _oak_cpu_surface_kernel();
    cpu_lanes q;
    memset(&q, 0, sizeof q);
    pending w = {.from = 0};
    cpu_surface surf[CPU_LANES_MAX];
    float *outs[CPU_LANES_MAX];
    /* the gtao pass ran for this frame: its term multiplies the indirect light */
    const float *gtao = v->post.ao == OAK_AO_ON ? b->ao_words : NULL;
    /* the sky seen through the whole fog volume (its far boundary) */
    bool fog = b->fog.grid[3] != 0;
    bool channel = v->post.channel == OAK_CHANNEL_ALBEDO || v->post.channel == OAK_CHANNEL_NORMAL ||
                   v->post.channel == OAK_CHANNEL_DEPTH;
    for (uint32_t job = begin; job < end; job++) {
        uint32_t tile = rc->order ? rc->order[job] : job;
        uint64_t t0 = rc->cost ? oak_time_ns() : 0;
        for (int k = 0; k < TRI_CACHE; k++) cache[k].id = 0;
        uint32_t x0 = (tile % p->tiles_x) * CPU_TILE, y0 = (tile / p->tiles_x) * CPU_TILE;
        uint32_t x1 = x0 + CPU_TILE < p->width ? x0 + CPU_TILE : p->width;
        uint32_t y1 = y0 + CPU_TILE < p->height ? y0 + CPU_TILE : p->height;
        const uint32_t *ids = p->ids + (size_t)tile * CPU_TILE_PIXELS;
        for (uint32_t y = y0; y < y1; y++)
            for (uint32_t x = x0; x < x1; x++) {
                const uint32_t *row = ids + (y - y0) * CPU_TILE + (x - x0);
                uint32_t id = row[0];
                float *out = b->color + ((size_t)y * p->width + x) * 3;
                if (v->post.debug == OAK_DEBUG_LAMP_SHADOWS &&
                    _oak_cpu_lamp_atlas_debug(b, x, y, out))
                    continue;
                if (channel) { /* a capture channel: the surface's data, 0 for none */
                    out[0] = out[1] = out[2] = 0;
                    if (!id) continue;
                    cpu_tri_ctx *tc = &cache[id % TRI_CACHE];
                    if (id != tc->id) _oak_cpu_tri_ctx(b, p, id, tc);
                    cpu_surface cs;
                    _oak_cpu_surface(b, p, tc, x, y, &cs);
                    _oak_cpu_channel(b, tc, &cs, out);
                    continue;
                }
                /* the gradient sky: four empty pixels at once */
                if (!id && !under && !image_sky && x + 4 <= x1 && !(row[1] | row[2] | row[3])) {
                    _oak_cpu_sky_row4(v, x, y, out);
                    for (uint32_t k = 0; fog && k < 4; k++)
                        _oak_fog_apply_sky(&b->fog, b->fog_buf, x + k, y, p->width, p->height,
                                           out + 3 * k);
                    x += 3;
                    continue;
                }
                if (!id) {
                    float dir[3];
                    _oak_cpu_view_ray(v, x, y, dir);
                    if (under) { /* the sky through the water (docs/SHADING.md "Water") */
                        _oak_cpu_water_sky_below(b, dir, out);
                    } else if (image_sky) { /* an .hdr sky: its image */
                        _oak_sky_background(b->sky, dir, out);
                        _oak_sun_disc_add(v, dir, out);
                    } else {
                        _oak_cpu_sky(v, dir, out);
                    }
                    if (fog)
                        _oak_fog_apply_sky(&b->fog, b->fog_buf, x, y, p->width, p->height, out);
                    continue;
                }
                uint32_t slot = id % TRI_CACHE;
                cpu_tri_ctx *tc = &cache[slot];
                if (id != tc->id) {
                    /* a waiting lane reads this slot: its surface first */
                    if (w.slots >> slot & 1) surfaces(b, surface, &q, &w, surf, gtao);
                    _oak_cpu_tri_ctx(b, p, id, tc);
                }
                /* the surfaces wait until the lanes are full (or their
                   triangle leaves the cache), then run in lanes */
                uint32_t lane = q.count++;
                w.tc[lane] = tc, w.x[lane] = x, w.y[lane] = y;
                w.slots |= 1u << slot;
                outs[lane] = out;
                if (q.count == CPU_LANES_MAX) flush(b, light, surface, &q, &w, surf, outs, gtao);
            }
        flush(b, light, surface, &q, &w, surf, outs, gtao); /* the tile's last few */
        if (rc->cost) {
            uint64_t d = (oak_time_ns() - t0) >> 4;
            rc->cost[tile] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
        }
    }
}

static int key_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The tiles are handed out in raster order except that those that took
   under half the mean time last frame (the sky, little geometry) go last,
   dearest of them first: the loop's last jobs are then cheap ones, and no
   worker waits long on one dear tile at the end (the tail of a parallel
   loop is at most its last job), while the dear tiles keep raster order,
   neighbours after neighbours, for the caches. The first frame (or a new
   size) goes in raster order. Each tile writes only its own pixels, so
   the order never changes a byte; without the block (no memory) it stays
   raster order. */
void _oak_cpu_resolve(cpu_backend *b) {
    uint32_t n = b->opaque.tiles_x * b->opaque.tiles_y;
    resolve_ctx c = {b, NULL, NULL};
    if (n > b->rtile_cap) {
        size_t bytes = (size_t)n * (sizeof(uint64_t) + 2 * sizeof(uint32_t));
        uint64_t *blk = oak_realloc(b->rtile_key, bytes);
        if (blk) {
            b->rtile_key = blk;
            b->rtile_order = (uint32_t *)(blk + n);
            b->rtile_cost = b->rtile_order + n;
            b->rtile_cap = n;
        }
        b->rtile_n = 0;
    }
    if (n <= b->rtile_cap) {
        if (b->rtile_n == n) {
            uint64_t sum = 0;
            for (uint32_t i = 0; i < n; i++) sum += b->rtile_cost[i];
            uint32_t k = 0, cheap = 0;
            for (uint32_t i = 0; i < n; i++)
                if ((uint64_t)b->rtile_cost[i] * 2 * n >= sum)
                    b->rtile_order[k++] = i;
                else /* dearest first, ties in raster order */
                    b->rtile_key[cheap++] = (uint64_t)(UINT32_MAX - b->rtile_cost[i]) << 32 | i;
            qsort(b->rtile_key, cheap, sizeof *b->rtile_key, key_cmp);
            for (uint32_t i = 0; i < cheap; i++) b->rtile_order[k++] = (uint32_t)b->rtile_key[i];
        } else {
            for (uint32_t i = 0; i < n; i++) b->rtile_order[i] = i;
        }
        b->rtile_n = n;
        c.order = b->rtile_order, c.cost = b->rtile_cost;
    }
    oak_parallel_for(n, 1, resolve_job, &c);
}

static int64_t edge64(const cpu_tri *t, int i, int64_t px, int64_t py) {
    int j = (i + 1) % 3;
    return (int64_t)(t->x[j] - t->x[i]) * (py - t->y[i]) -
           (int64_t)(t->y[j] - t->y[i]) * (px - t->x[i]) + t->bias[i];
}

/* View depth (metres) of device depth d (blend.frag oak_view_depth_of). */
static float view_depth_of(const cpu_pass *p, float d) {
    const float *q = p->depth_proj;
    return q[2] != 0 ? (q[1] - d) / q[0] : q[1] / (d + q[0]);
}

static void blend_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    cpu_backend *b = ((resolve_ctx *)user)->b;
    const cpu_pass *p = &b->blend;
    cpu_tri_ctx tc;
    cpu_surface s;
    for (uint32_t tile = begin; tile < end; tile++) {
        int32_t tx0 = (int32_t)(tile % p->tiles_x) * CPU_TILE;
        int32_t ty0 = (int32_t)(tile / p->tiles_x) * CPU_TILE;
        const float *depth = p->depth + (size_t)tile * CPU_TILE_PIXELS;
        for (uint32_t k = p->bin_start[tile]; k < p->bin_start[tile + 1]; k++) {
            const cpu_tri *t = &p->tris[p->bin_tris[k]];
            int32_t rx0 = t->minx > tx0 ? t->minx : tx0, ry0 = t->miny > ty0 ? t->miny : ty0;
            int32_t rx1 = t->maxx < tx0 + CPU_TILE - 1 ? t->maxx : tx0 + CPU_TILE - 1;
            int32_t ry1 = t->maxy < ty0 + CPU_TILE - 1 ? t->maxy : ty0 + CPU_TILE - 1;
            tc.id = 0;
            for (int32_t y = ry0; y <= ry1; y++) {
                int64_t py = (int64_t)(y - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
                float zb = t->z0 + t->dzdy * ((float)y + 0.5f - t->zy0);
                for (int32_t x = rx0; x <= rx1; x++) {
                    int64_t px = (int64_t)(x - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
                    if (edge64(t, 0, px, py) < 0 || edge64(t, 1, px, py) < 0 ||
                        edge64(t, 2, px, py) < 0)
                        continue;
                    float z = zb + t->dzdx * (((float)x - t->zx0) + 0.5f);
                    float behind = depth[(y - ty0) * CPU_TILE + (x - tx0)];
                    if (!(z > behind)) continue;
                    if (!tc.id) _oak_cpu_tri_ctx(b, p, t->id, &tc);
                    float rgb[3], a;
                    _oak_cpu_surface(b, p, &tc, (uint32_t)x, (uint32_t)y, &s);
                    _oak_cpu_shade(b, &tc, &s, rgb, &a);
                    a = a < 0 ? 0 : a > 1 ? 1 : a;
                    float soft = tc.mat->desc.softness; /* soft particles */
                    if (soft > 0 && tc.mat->desc.alpha_mode == OAK_ALPHA_BLEND) {
                        float f = (view_depth_of(p, behind) - view_depth_of(p, z)) / soft;
                        a *= f < 0 ? 0 : f > 1 ? 1 : f;
                    }
                    float *out = b->color + ((size_t)y * p->width + (uint32_t)x) * 3;
                    float keep = tc.mat->desc.additive ? 1.0f : 1.0f - a;
                    for (int c = 0; c < 3; c++) out[c] = rgb[c] * a + out[c] * keep;
                }
            }
        }
    }
}

void _oak_cpu_blend(cpu_backend *b) {
    if (!b->blend.tri_total) return;
    resolve_ctx c = {b};
    oak_parallel_for(b->blend.tiles_x * b->blend.tiles_y, 1, blend_job, &c);
}
