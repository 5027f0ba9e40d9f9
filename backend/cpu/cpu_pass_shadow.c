/* The shadow pass on the CPU backend: the key light's casters rasterized
 * (depth only, both faces) into its tile-major map, which is kept while what
 * it shows hashes the same as last frame. */
#include "cpu_internal.h"

oak_result _oak_cpu_run_shadow(cpu_backend *b, const oak_render_view *v) {
    uint32_t S = v->shadow_map_size ? v->shadow_map_size : b->shadow_size;
    if (S > OAK_MAX_TEXTURE_SIZE)
        return oak_error(OAK_ERROR_LIMIT, "cpu backend: shadow map of %u texels past %u", S,
                         OAK_MAX_TEXTURE_SIZE);
    size_t need = _oak_cpu_tiled_pixels(S, S);
    if (need > b->shadow_cap) {
        float *m = oak_realloc(b->shadow_map, need * sizeof(float));
        if (!m) return OAK_ERROR_OUT_OF_MEMORY;
        b->shadow_map = m;
        b->shadow_cap = need;
    }
    cpu_pass *p = &b->shadow;
    _oak_cpu_pass_target(p, S, S, false, NULL, b->shadow_map, NULL);
    const oak_draw_list *l = &v->casters;
    if (v->cascade_count > OAK_MAX_CASCADES)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: %u cascades past %u",
                         v->cascade_count, OAK_MAX_CASCADES);
    /* every cascade the view carries names casters it has; the map holds
       cascade 0 (one map until the atlas of cascades lands) */
    for (uint32_t k = 0; k < v->cascade_count; k++) {
        const oak_shadow_cascade *ck = &v->cascades[k];
        uint32_t end = ck->first_caster + ck->caster_count;
        if (end > l->count || end < ck->first_caster)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "cpu backend: cascade %u casters %u..%u past the %u casters", k,
                             ck->first_caster, end, l->count);
    }
    const oak_shadow_cascade *c = &v->cascades[0];
    uint32_t end = c->first_caster + c->caster_count;
    glm_mat4_copy((vec4 *)c->view_proj, p->view_proj);
    p->draw_count = 0;
    for (uint32_t i = c->first_caster; i < end; i++) {
        int32_t mi = _oak_cpu_material_index(b, l->material[i]);
        if ((l->flags && (l->flags[i] & OAK_DRAW_NO_SHADOW)) ||
            b->materials[mi].desc.alpha_mode == OAK_ALPHA_BLEND)
            continue;
        if (!_oak_cpu_pass_add(p, i)) return OAK_ERROR_OUT_OF_MEMORY;
    }
    _oak_cpu_pass_fill(b, p, l, false);
    /* What stands still is drawn once: the map is kept while its inputs
       (size, matrix, and each caster's mesh, material, base texture, matrix
       and flags, versions included) hash the same as last frame's. */
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
    if (b->shadow_cached && h == b->shadow_hash) {
        b->shadow_valid = true;
        return OAK_OK;
    }
    b->shadow_cached = false;
    oak_result r = _oak_cpu_pass_geometry(b, p, NULL, NULL);
    if (r) return r;
    _oak_cpu_pass_raster(b, p);
    b->shadow_valid = b->shadow_cached = true;
    b->shadow_hash = h;
    return OAK_OK;
}
