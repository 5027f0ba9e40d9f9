/* The shadow pass on the CPU backend: the key light's cascades, each a
 * tile-major S x S map of the atlas. A cascade's static casters are drawn
 * into its cached static layer only when the view's static_key moves on;
 * its movers, when it has any, over a copy of the layer (docs/SHADING.md
 * "Cascade caching"); without movers the shading samples the layer itself. */
#include "backend/gpu/meshcull.h"
#include "cpu_internal.h"

#include <string.h>

/* Casters [first, end) of the list that draw into a map: not BLEND, not
   marked OAK_DRAW_NO_SHADOW. */
static oak_result add_casters(cpu_backend *b, cpu_pass *p, const oak_draw_list *l, uint32_t first,
                              uint32_t end) {
    p->draw_count = 0;
    for (uint32_t i = first; i < end; i++) {
        int32_t mi = _oak_cpu_material_index(b, l->material[i]);
        if ((l->flags && (l->flags[i] & OAK_DRAW_NO_SHADOW)) ||
            b->materials[mi].desc.alpha_mode == OAK_ALPHA_BLEND)
            continue;
        if (!_oak_cpu_pass_add(p, i)) return OAK_ERROR_OUT_OF_MEMORY;
    }
    return OAK_OK;
}

/* Draws the pass's draws into map (S x S, tile-major): over what it holds
   when keep, else into a cleared map. */
static oak_result draw_into(cpu_backend *b, cpu_pass *p, const oak_draw_list *l, float *map,
                            uint32_t S, const float view_proj[4][4], bool keep) {
    _oak_cpu_pass_target(p, S, S, false, NULL, map, NULL);
    p->keep = keep;
    glm_mat4_copy((vec4 *)view_proj, p->view_proj);
    _oak_cpu_pass_fill(b, p, l, false);
    /* a cluster-LOD mesh's cut by the cascade's texel (orthographic: an
       error projects to error x scale x texels a metre at any distance) */
    _oak_meshcull_view cv;
    _oak_meshcull_view_shadow(&cv, (const float *)view_proj, S, true, NULL, 0);
    oak_result r = _oak_cpu_meshcull_lod(b, p, &cv);
    if (!r) r = _oak_cpu_pass_geometry(b, p, NULL, NULL);
    if (r) return r;
    _oak_cpu_pass_raster(b, p);
    return OAK_OK;
}

/* Keeps of the pass's draws those whose bounds (rects, per caster) meet one
   of the plan's rectangles. */
static void keep_overlapping(cpu_pass *p, const uint16_t (*rects)[4],
                             const oak_shadow_layer_plan *plan) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < p->draw_count; k++) {
        const uint16_t *c = rects[p->draws[k].src];
        for (uint32_t i = 0; i < plan->rect_count; i++) {
            const uint16_t *d = plan->rects[i];
            if (c[0] < d[2] && d[0] < c[2] && c[1] < d[3] && d[1] < c[3]) {
                p->draws[n++] = p->draws[k];
                break;
            }
        }
    }
    p->draw_count = n;
}

/* Clears the plan's rectangles of a tile-major S x S map to 0 (nothing cast). */
static void clear_rects(float *map, uint32_t S, const oak_shadow_layer_plan *plan) {
    size_t tiles_x = (S + CPU_TILE - 1) / CPU_TILE;
    for (uint32_t i = 0; i < plan->rect_count; i++) {
        const uint16_t *d = plan->rects[i];
        for (uint32_t y = d[1]; y < d[3]; y++)
            for (uint32_t x = d[0]; x < d[2];) {
                uint32_t end = (x / CPU_TILE + 1) * CPU_TILE; /* the span in this tile */
                end = end < d[2] ? end : d[2];
                size_t at = ((size_t)(y / CPU_TILE) * tiles_x + x / CPU_TILE) * CPU_TILE_PIXELS +
                            (y % CPU_TILE) * CPU_TILE + x % CPU_TILE;
                memset(map + at, 0, (end - x) * sizeof(float));
                x = end;
            }
    }
}

/* One map's static layer (when its key moved on: whole, or only its dirty
   rectangles, cleared and drawn over by the static casters that meet them)
   and its movers over a copy of it (when it has any), as the plan says. A
   partial redraw equals a whole one texel for texel: depth is the largest
   any caster puts on a texel, so outside the rectangles the unchanged
   casters (all a changed caster covered lies inside them) leave what was
   there, and inside every caster that reaches them is drawn again. */
static oak_result layered(cpu_backend *b, oak_shadow_layer *state, const float **read, float *layer,
                          float *map, size_t texels, uint32_t S, const float view_proj[4][4],
                          const oak_draw_list *l, uint32_t first, uint32_t static_count,
                          uint32_t count, uint64_t key, const oak_shadow_cascade *cas,
                          const uint16_t (*rects)[4]) {
    cpu_pass *p = &b->shadow;
    oak_result r;
    /* movers are counted first: the plan needs them, the draw list after */
    if ((r = add_casters(b, p, l, first + static_count, first + count))) return r;
    uint32_t movers = p->draw_count;
    oak_shadow_layer_plan plan =
        cas && rects ? _oak_shadow_layer_plan_dirty(state, key, cas->dirty_base, cas->dirty_count,
                                                    (const uint16_t(*)[4])cas->dirty, movers, true)
                     : _oak_shadow_layer_plan(state, key, movers, true);
    if (plan.draw_static) {
        if ((r = add_casters(b, p, l, first, first + static_count))) {
            _oak_shadow_layer_reset(state);
            return r;
        }
        if (plan.partial) {
            keep_overlapping(p, rects, &plan);
            clear_rects(layer, S, &plan);
            b->shadow_stats.partial_layers++;
            b->shadow_stats.dirty_texels +=
                _oak_shadow_rects_texels((const uint16_t(*)[4])plan.rects, plan.rect_count);
        }
        if ((!plan.partial || p->draw_count) &&
            (r = draw_into(b, p, l, layer, S, view_proj, plan.partial))) {
            _oak_shadow_layer_reset(state);
            return r;
        }
        b->shadow_stats.static_layers++;
    }
    *read = layer;
    if (plan.copy) {
        memcpy(map, layer, texels * sizeof(float));
        b->shadow_stats.layer_copies++;
        *read = map;
    }
    if (plan.draw_movers) {
        if ((r = add_casters(b, p, l, first + static_count, first + count)) ||
            (r = draw_into(b, p, l, map, S, view_proj, true)))
            return r;
        b->shadow_stats.mover_draws += movers;
    }
    return OAK_OK;
}

oak_result _oak_cpu_shadow_layered(cpu_backend *b, oak_shadow_layer *state, const float **read,
                                   float *layer, float *map, size_t texels, uint32_t S,
                                   const float view_proj[4][4], const oak_draw_list *l,
                                   uint32_t first, uint32_t static_count, uint32_t count,
                                   uint64_t key) {
    return layered(b, state, read, layer, map, texels, S, view_proj, l, first, static_count, count,
                   key, NULL, NULL);
}

/* The sampled cascade atlas of the last frame (test hook): each cascade's
   map (the layer, or its copy with the movers) untiled into its tile of
   the 2 x 2 atlas, row 0 first; 0 where a cascade was not drawn. */
oak_result _oak_cpu_read_shadow_map(void *self, float *depth, size_t count) {
    cpu_backend *b = self;
    uint32_t S = b->shadow_edge, A = 2 * S;
    if (!depth || !S || !b->shadow_valid || count < (size_t)A * A)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: read_shadow_map needs %zu floats, got %zu", (size_t)A * A,
                         count);
    size_t tiles_x = (S + CPU_TILE - 1) / CPU_TILE;
    for (uint32_t c = 0; c < OAK_MAX_CASCADES; c++) {
        const float *m = c < b->shadow_cascades ? b->shadow_read[c] : NULL;
        for (uint32_t y = 0; y < S; y++)
            for (uint32_t x = 0; x < S; x++) {
                size_t at = ((size_t)(y / CPU_TILE) * tiles_x + x / CPU_TILE) * CPU_TILE_PIXELS +
                            (y % CPU_TILE) * CPU_TILE + x % CPU_TILE;
                depth[(size_t)((c >> 1) * S + y) * A + (c & 1) * S + x] = m ? m[at] : 0.0f;
            }
    }
    return OAK_OK;
}

oak_result _oak_cpu_run_shadow(cpu_backend *b, const oak_render_view *v) {
    if (v->cascade_count > OAK_MAX_CASCADES)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: %u cascades past %u",
                         v->cascade_count, OAK_MAX_CASCADES);
    /* every cascade the view carries names casters it has */
    const oak_draw_list *l = &v->casters;
    for (uint32_t k = 0; k < v->cascade_count; k++) {
        const oak_shadow_cascade *ck = &v->cascades[k];
        uint32_t end = ck->first_caster + ck->caster_count;
        if (end > l->count || end < ck->first_caster || ck->static_count > ck->caster_count)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "cpu backend: cascade %u casters %u..%u (%u static) past the %u "
                             "casters",
                             k, ck->first_caster, end, ck->static_count, l->count);
    }
    uint32_t n = v->cascade_count;
    if (!v->shadows || n < 1) return OAK_OK;
    uint32_t S = v->shadow_map_size ? v->shadow_map_size : b->shadow_size;
    if (S > OAK_MAX_TEXTURE_SIZE / 2)
        return oak_error(OAK_ERROR_LIMIT, "cpu backend: shadow map of %u texels past %u", S,
                         OAK_MAX_TEXTURE_SIZE / 2);
    size_t stride = _oak_cpu_tiled_pixels(S, S), need = stride * OAK_MAX_CASCADES;
    if (need > b->shadow_cap) {
        float *m = oak_realloc(b->shadow_map, need * sizeof(float));
        if (!m) return OAK_ERROR_OUT_OF_MEMORY;
        b->shadow_map = m;
        float *s = oak_realloc(b->shadow_static, need * sizeof(float));
        if (!s) return OAK_ERROR_OUT_OF_MEMORY;
        b->shadow_static = s;
        b->shadow_cap = need;
        _oak_cpu_huge_pages(b, m, need * sizeof(float));
        _oak_cpu_huge_pages(b, s, need * sizeof(float));
    }
    if (stride != b->shadow_stride || S != b->shadow_edge)
        for (uint32_t c = 0; c < OAK_MAX_CASCADES; c++)
            _oak_shadow_layer_reset(&b->shadow_layer[c]);
    b->shadow_stride = stride;
    b->shadow_edge = S;
    for (uint32_t c = 0; c < n; c++) {
        const oak_shadow_cascade *cas = &v->cascades[c];
        uint32_t drawn = b->shadow_stats.static_layers;
        oak_result r =
            layered(b, &b->shadow_layer[c], &b->shadow_read[c], b->shadow_static + c * stride,
                    b->shadow_map + c * stride, stride, S, (const float(*)[4])cas->view_proj, l,
                    cas->first_caster, cas->static_count, cas->caster_count, cas->static_key, cas,
                    v->caster_rects);
        if (r) return r;
        if (b->shadow_stats.static_layers != drawn) b->shadow_stats.redrawn_mask |= 1u << c;
    }
    _oak_cpu_shadow_setup(b, v);
    b->shadow_cascades = n;
    b->shadow_valid = true;
    return OAK_OK;
}
