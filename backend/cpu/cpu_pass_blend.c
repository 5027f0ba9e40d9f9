/* The blend pass on the CPU backend: BLEND draws sorted far to near (ties in
 * draw order), then forward-shaded over the resolved frame, depth-tested
 * against the visibility buffer's depth without writing it. */
#include "cpu_internal.h"
#include "render/particle_eval.h"

/* Far to near, ties in draw order: a stable insertion sort (blend draws are
   few, and libc's qsort may allocate outside the engine's hooks). */
static void sort_far_to_near(cpu_draw *d, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        cpu_draw x = d[i];
        uint32_t j = i;
        while (j > 0 && d[j - 1].sort_key < x.sort_key) {
            d[j] = d[j - 1];
            j--;
        }
        d[j] = x;
    }
}

oak_result _oak_cpu_run_blend(cpu_backend *b, const oak_render_view *v) {
    cpu_pass *bl = &b->blend;
    _oak_cpu_pass_target(bl, b->width, b->height, true, v->jitter, b->depth, NULL);
    glm_mat4_copy((vec4 *)v->view_proj, bl->view_proj);
    bl->depth_proj[0] = v->proj[2][2], bl->depth_proj[1] = v->proj[3][2];
    bl->depth_proj[2] = v->ortho ? 1.0f : 0.0f;
    bl->draw_count = 0;
    uint32_t unlit = 0;
    for (uint32_t i = 0; i < v->draws.count; i++) {
        int32_t mi = _oak_cpu_material_index(b, v->draws.material[i]);
        const oak_material_desc *md = &b->materials[mi].desc;
        if (md->alpha_mode != OAK_ALPHA_BLEND) continue;
        if (!_oak_cpu_pass_add(bl, i)) return OAK_ERROR_OUT_OF_MEMORY;
        /* the GPUs' blend_unlit.frag criterion (vk_pass_blend.c), so the
           stats compare; the CPU's unlit branch is cheap already */
        unlit += md->unlit && !md->water &&
                 !(md->fx.triplanar > 0 || md->fx.breakup > 0 || md->fx.detail > 0);
    }
    if (!bl->draw_count) return OAK_OK;
    _oak_cpu_pass_fill(b, bl, &v->draws, true);
    /* a BLEND stream's instances (oak_draw_list.unit: consecutive draws,
       far to near) sort as a unit, keyed by its first (or its stream's
       unit_point: _oak_blend_unit_key), as the GPUs' one
       instanced draw does; each is still drawn by itself here */
    const uint32_t *unit = v->draws.unit;
    for (uint32_t k = 0; unit && k < bl->draw_count; k++) /* a unit_point's, as the GPUs' */
        bl->draws[k].sort_key =
            _oak_blend_unit_key(v, bl->draws[k].src, v->camera_pos, bl->draws[k].sort_key);
    for (uint32_t k = 1; unit && k < bl->draw_count; k++) {
        const cpu_draw *p = &bl->draws[k - 1];
        cpu_draw *d = &bl->draws[k];
        if (unit[d->src] && unit[d->src] == unit[p->src] && p->src + 1 == d->src)
            d->sort_key = p->sort_key;
    }
    b->blend_stats = (oak_blend_stats){bl->draw_count, bl->draw_count, unlit};
    sort_far_to_near(bl->draws, bl->draw_count);
    oak_result r = _oak_cpu_pass_geometry(b, bl, NULL, NULL);
    if (r) return r;
    _oak_cpu_blend(b);
    return OAK_OK;
}
