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

/* One cascade's static layer (when its key moved on) and its movers over a
   copy of it (when it has any), as _oak_shadow_layer_plan says; the same
   steps serve any map cut into a static layer and movers. */
oak_result _oak_cpu_shadow_layered(cpu_backend *b, oak_shadow_layer *state, const float **read,
                                   float *layer, float *map, size_t texels, uint32_t S,
                                   const float view_proj[4][4], const oak_draw_list *l,
                                   uint32_t first, uint32_t static_count, uint32_t count,
                                   uint64_t key) {
    cpu_pass *p = &b->shadow;
    oak_result r;
    /* movers are counted first: the plan needs them, the draw list after */
    if ((r = add_casters(b, p, l, first + static_count, first + count))) return r;
    uint32_t movers = p->draw_count;
    oak_shadow_layer_plan plan = _oak_shadow_layer_plan(state, key, movers, true);
    if (plan.draw_static) {
        if ((r = add_casters(b, p, l, first, first + static_count)) ||
            (r = draw_into(b, p, l, layer, S, view_proj, false))) {
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
    }
    if (stride != b->shadow_stride || S != b->shadow_edge)
        for (uint32_t c = 0; c < OAK_MAX_CASCADES; c++)
            _oak_shadow_layer_reset(&b->shadow_layer[c]);
    b->shadow_stride = stride;
    b->shadow_edge = S;
    for (uint32_t c = 0; c < n; c++) {
        const oak_shadow_cascade *cas = &v->cascades[c];
        uint32_t drawn = b->shadow_stats.static_layers;
        oak_result r = _oak_cpu_shadow_layered(
            b, &b->shadow_layer[c], &b->shadow_read[c], b->shadow_static + c * stride,
            b->shadow_map + c * stride, stride, S, (const float(*)[4])cas->view_proj, l,
            cas->first_caster, cas->static_count, cas->caster_count, cas->static_key);
        if (r) return r;
        if (b->shadow_stats.static_layers != drawn) b->shadow_stats.redrawn_mask |= 1u << c;
    }
    _oak_cpu_shadow_setup(b, v);
    b->shadow_valid = true;
    return OAK_OK;
}
