/* The shadow pass on the CPU backend: the key light's cascades, each
 * rasterized (depth only, both faces) into its own tile-major S x S map of
 * the atlas; a cascade's map is kept while what it shows hashes the same. */
#include "cpu_internal.h"

#include <string.h>

/* One cascade's casters into its map of the atlas. */
static oak_result draw_cascade(cpu_backend *b, const oak_render_view *v, uint32_t c, uint32_t S) {
    cpu_pass *p = &b->shadow;
    _oak_cpu_pass_target(p, S, S, false, NULL, b->shadow_map + c * b->shadow_stride, NULL);
    const oak_shadow_cascade *cas = &v->cascades[c];
    glm_mat4_copy((vec4 *)cas->view_proj, p->view_proj);
    p->draw_count = 0;
    const oak_draw_list *l = &v->casters;
    uint32_t end = cas->first_caster + cas->caster_count;
    for (uint32_t i = cas->first_caster; i < end; i++) {
        int32_t mi = _oak_cpu_material_index(b, l->material[i]);
        if ((l->flags && (l->flags[i] & OAK_DRAW_NO_SHADOW)) ||
            b->materials[mi].desc.alpha_mode == OAK_ALPHA_BLEND)
            continue;
        if (!_oak_cpu_pass_add(p, i)) return OAK_ERROR_OUT_OF_MEMORY;
    }
    _oak_cpu_pass_fill(b, p, l, false);
    /* What stands still is drawn once: a cascade's map is kept while its
       inputs (size, matrix, and each caster's mesh, material, base texture,
       matrix and flags, versions included) hash the same as last frame's. */
    uint64_t h = oak_hash(p->view_proj, sizeof(mat4), S);
    for (uint32_t i = 0; i < p->draw_count; i++) {
        const cpu_draw *d = &p->draws[i];
        const cpu_mesh *m = &b->meshes[d->mesh];
        const cpu_material *mt = &b->materials[d->material];
        int32_t tex = mt->tex[CPU_TEX_BASE].tex;
        uint32_t ids[7] = {m->id,
                           m->version,
                           mt->id,
                           mt->version,
                           d->flags,
                           tex >= 0 ? b->textures[tex].id : 0,
                           tex >= 0 ? b->textures[tex].version : 0};
        h = oak_hash(ids, sizeof ids, h);
        h = oak_hash(d->world, sizeof(mat4), h);
    }
    if (b->shadow_cached[c] && h == b->shadow_hash[c]) return OAK_OK;
    b->shadow_cached[c] = false;
    oak_result r = _oak_cpu_pass_geometry(b, p, NULL, NULL);
    if (r) return r;
    _oak_cpu_pass_raster(b, p);
    b->shadow_cached[c] = true;
    b->shadow_hash[c] = h;
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
        if (end > l->count || end < ck->first_caster)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "cpu backend: cascade %u casters %u..%u past the %u casters", k,
                             ck->first_caster, end, l->count);
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
        b->shadow_cap = need;
    }
    if (stride != b->shadow_stride || S != b->shadow_edge)
        memset(b->shadow_cached, 0, sizeof b->shadow_cached);
    b->shadow_stride = stride;
    b->shadow_edge = S;
    for (uint32_t c = 0; c < n; c++) {
        oak_result r = draw_cascade(b, v, c, S);
        if (r) return r;
    }
    _oak_cpu_shadow_setup(b, v);
    b->shadow_valid = true;
    return OAK_OK;
}
