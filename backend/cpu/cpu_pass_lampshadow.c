/* The lamp shadow pass on the CPU backend: each budgeted face rasterized
 * (depth only, both faces) into its tile of the lamp atlas; a tile's static
 * layer is redrawn only when its face's static_hash moves, and the movers are
 * drawn over a copy of it every frame. */
#include <string.h>

#include "backend/gpu/meshcull.h"
#include "cpu_internal.h"

#define FACE_PIXELS ((size_t)OAK_LAMP_SHADOW_FACE * OAK_LAMP_SHADOW_FACE)

void _oak_cpu_lamp_atlas_release(cpu_backend *b) {
    for (uint32_t t = 0; t < OAK_LAMP_ATLAS_FACES; t++) {
        oak_free(b->lamp_static[t]);
        oak_free(b->lamp_live[t]);
        b->lamp_static[t] = b->lamp_live[t] = NULL;
        b->lamp_read[t] = NULL;
        b->lamp_drawn[t] = false;
    }
}

/* Casters [first, first + count) of the lamp list into depth (tile-major,
   OAK_LAMP_SHADOW_FACE square), which the raster clears first. */
static oak_result draw_face(cpu_backend *b, const oak_render_view *v, const oak_lamp_face *f,
                            uint32_t first, uint32_t count, float *depth) {
    cpu_pass *p = &b->lamp;
    _oak_cpu_pass_target(p, OAK_LAMP_SHADOW_FACE, OAK_LAMP_SHADOW_FACE, false, NULL, depth, NULL);
    glm_mat4_copy((vec4 *)f->view_proj, p->view_proj);
    p->draw_count = 0;
    for (uint32_t i = first; i < first + count; i++)
        if (!_oak_cpu_pass_add(p, i)) return OAK_ERROR_OUT_OF_MEMORY;
    _oak_cpu_pass_fill(b, p, &v->lamp_casters, false);
    /* a cluster-LOD mesh's cut by the face's texels from the lamp (the eye
       the view was made from: -R^T t) */
    const float(*V)[4] = (const float(*)[4])f->view;
    float eye[3];
    for (int k = 0; k < 3; k++)
        eye[k] = -(V[k][0] * V[3][0] + V[k][1] * V[3][1] + V[k][2] * V[3][2]);
    _oak_meshcull_view cv;
    _oak_meshcull_view_shadow(&cv, (const float *)f->view_proj, OAK_LAMP_SHADOW_FACE, false, eye,
                              (float)OAK_LAMP_SHADOW_NEAR);
    oak_result r = _oak_cpu_meshcull_lod(b, p, &cv);
    if (!r) r = _oak_cpu_pass_geometry(b, p, NULL, NULL);
    if (r) return r;
    _oak_cpu_pass_raster(b, p);
    return OAK_OK;
}

/* The raster clears what it draws into: the movers go into a scratch face
   and are merged over the static layer's copy (reversed-Z: the greater is
   nearer). */
static void merge_nearer(float *dst, const float *movers) {
    for (size_t i = 0; i < FACE_PIXELS; i++)
        if (movers[i] > dst[i]) dst[i] = movers[i];
}

static oak_result check_view(const oak_render_view *v) {
    if (v->lamp_face_count > OAK_LAMP_ATLAS_FACES || v->lamp_shadow_count > OAK_LAMP_SHADOW_MAX)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: %u lamp faces past %u",
                         v->lamp_face_count, OAK_LAMP_ATLAS_FACES);
    for (uint32_t i = 0; i < v->lamp_face_count; i++) {
        const oak_lamp_face *f = &v->lamp_faces[i];
        uint64_t end = (uint64_t)f->first_caster + f->static_count + f->mover_count;
        if (f->tile >= OAK_LAMP_ATLAS_FACES || end > v->lamp_casters.count)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "cpu backend: lamp face %u (tile %u, casters to %llu) past the atlas "
                             "or the %u lamp casters",
                             i, f->tile, (unsigned long long)end, v->lamp_casters.count);
    }
    for (uint32_t s = 0; s < v->lamp_shadow_count; s++) {
        const oak_lamp_shadow *ls = &v->lamp_shadows[s];
        if (ls->light >= v->light_count || ls->first_face + ls->face_count > v->lamp_face_count ||
            (ls->face_count != 1 && ls->face_count != 6) || !(ls->near > 0 && ls->far > ls->near))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: lamp shadow %u is malformed",
                             s);
    }
    if (v->lamp_shadow_count && !v->light_shadow)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: lamp shadows without a slot table");
    return OAK_OK;
}

oak_result _oak_cpu_run_lampshadow(cpu_backend *b, const oak_render_view *v) {
    oak_result r = check_view(v);
    if (r) return r;
    b->lamp_static_drawn = 0;
    for (uint32_t i = 0; i < v->lamp_face_count; i++) {
        const oak_lamp_face *f = &v->lamp_faces[i];
        uint32_t t = f->tile;
        if (!b->lamp_static[t] && !(b->lamp_static[t] = oak_alloc(FACE_PIXELS * sizeof(float))))
            return OAK_ERROR_OUT_OF_MEMORY;
        if (!b->lamp_drawn[t] || b->lamp_hash[t] != f->static_hash) {
            b->lamp_drawn[t] = false;
            r = draw_face(b, v, f, f->first_caster, f->static_count, b->lamp_static[t]);
            if (r) return r;
            b->lamp_drawn[t] = true;
            b->lamp_hash[t] = f->static_hash;
            b->lamp_static_drawn++;
        }
        b->lamp_read[t] = b->lamp_static[t];
        if (!f->mover_count) continue;
        /* the live layer: the static one with the movers over it */
        float *live = b->lamp_live[t];
        if (!live && !(live = b->lamp_live[t] = oak_alloc(2 * FACE_PIXELS * sizeof(float))))
            return OAK_ERROR_OUT_OF_MEMORY;
        r = draw_face(b, v, f, f->first_caster + f->static_count, f->mover_count,
                      live + FACE_PIXELS);
        if (r) return r;
        memcpy(live, b->lamp_static[t], FACE_PIXELS * sizeof(float));
        merge_nearer(live, live + FACE_PIXELS);
        b->lamp_read[t] = live;
    }
    b->lamp_valid = true;
    return OAK_OK;
}
