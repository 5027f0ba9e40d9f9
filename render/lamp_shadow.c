/* The lamp shadow budget and faces: which lamps get shadow faces this frame
 * (the key light when it is a lamp, then the lamps in view nearest the
 * camera, a lamp keeping its atlas tiles while it stays chosen), each face's
 * matrices, its casters (static ones, then movers) and its static hash. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

#define LAMP_CASTER_CHUNK 512

void _oak_lamp_shadows_release(oak_frontend *fe) {
    oak_draw_list *l = &fe->view.lamp_casters;
    oak_free(l->mesh);
    oak_free(l->material);
    oak_free(l->world);
    oak_free(l->prev_world);
    oak_free(l->flags);
    oak_free(l->pose);
    oak_free(fe->view.light_shadow);
    oak_free(fe->light_src);
    oak_free(fe->lamp_mask);
    oak_free(fe->lamp_keys);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Faces a lamp needs: a spot up to OAK_LAMP_SPOT_MAX_CONE one tile,
   anything wider (and a point) the six faces of a cube. */
static uint32_t faces_of(const oak_light *l) {
    return l->type == OAK_LIGHT_SPOT && l->outer_cone <= (float)OAK_LAMP_SPOT_MAX_CONE ? 1 : 6;
}

/* Face k of lamp rl: view and projection (reversed-Z), the field of view
   widened so the face reaches OAK_LAMP_SHADOW_BORDER texels past its edge
   (the filter's taps read there). */
static void face_matrices(const oak_render_light *rl, uint32_t faces, uint32_t k, float near,
                          float far, float *tan_half, oak_lamp_face *f) {
    static const float dirs[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                     {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
    float F = (float)OAK_LAMP_SHADOW_FACE, widen = F / (F - 2.0f * (float)OAK_LAMP_SHADOW_BORDER);
    vec3 eye = {rl->position[0], rl->position[1], rl->position[2]}, dir, up = {0, 1, 0};
    if (faces == 1) {
        glm_vec3_copy((float *)rl->direction, dir);
        *tan_half = tanf(rl->light.outer_cone) * widen;
    } else {
        glm_vec3_copy((float *)dirs[k], dir);
        *tan_half = widen;
    }
    if (fabsf(dir[1]) > 0.99f) up[1] = 0, up[2] = 1;
    glm_look(eye, dir, up, f->view);
    mat4 proj;
    oak_perspective_rz(2.0f * atanf(*tan_half), 1.0f, near, far, proj);
    glm_mat4_mul(proj, f->view, f->view_proj);
}

typedef struct lamp_job {
    const oak_frame_input *in;
    const oak_render_view *v;
    float (*sphere)[4]; /* oak_frontend.sphere */
    vec4 planes[OAK_LAMP_ATLAS_FACES][6];
    uint64_t *mask;
} lamp_job;

/* Per draw, the faces its sphere meets (within the lamp's reach, past its
   near sphere, inside the face's frustum); none for what does not cast. */
static void caster_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    lamp_job *j = user;
    const oak_render_view *v = j->v;
    for (uint32_t i = begin; i < end; i++) {
        j->mask[i] = 0;
        float c[3], r;
        if (!_oak_caster_sphere(j->in, (const float(*)[4])j->sphere, i, c, &r)) continue;
        for (uint32_t s = 0; s < v->lamp_shadow_count; s++) {
            const oak_lamp_shadow *ls = &v->lamp_shadows[s];
            const float *p = v->lights[ls->light].position;
            float dx = c[0] - p[0], dy = c[1] - p[1], dz = c[2] - p[2];
            float d = sqrtf(dx * dx + dy * dy + dz * dz);
            if (d - r > ls->far || d + r < ls->near) continue;
            for (uint32_t k = 0; k < ls->face_count; k++) {
                uint32_t f = ls->first_face + k;
                if (oak_frustum_sphere((const vec4 *)j->planes[f], c, r)) j->mask[i] |= 1ull << f;
            }
        }
    }
}

/* The hash of what stands still in face f (oak_lamp_face.static_hash). */
static uint64_t face_hash(const oak_render_view *v, const oak_lamp_face *f) {
    uint32_t size = OAK_LAMP_SHADOW_FACE;
    uint64_t h = oak_hash(f->view_proj, sizeof(mat4), size);
    const oak_draw_list *l = &v->lamp_casters;
    for (uint32_t i = f->first_caster; i < f->first_caster + f->static_count; i++) {
        const oak_mesh_data *md = oak_mesh_get(l->mesh[i]);
        const oak_material_data *mt = oak_material_get(l->material[i]);
        const oak_texture_data *tx = mt ? oak_texture_get(mt->desc.base_color_tex.texture) : NULL;
        /* a mesh posed by palettes changes pose_version (shadow_fit.c) */
        uint32_t ver = md ? md->version + md->pose_version : 0;
        uint32_t ids[7] = {l->mesh[i].id,       ver,
                           l->material[i].id,   mt ? mt->version : 0,
                           l->flags[i],         mt ? mt->desc.base_color_tex.texture.id : 0,
                           tx ? tx->version : 0};
        h = oak_hash(ids, sizeof ids, h);
        h = oak_hash(l->world[i], sizeof(mat4), h);
    }
    return h;
}

/* The budget (docs/SHADING.md "Lamp shadows"): candidates are the view's
   lamps that cast, the key light first when it is a lamp, then nearest the
   camera, then in view order; taken in turn while slots and faces last. */
static uint32_t choose(oak_frontend *fe, uint32_t chosen[OAK_LAMP_SHADOW_MAX]) {
    oak_render_view *v = &fe->view;
    uint32_t n = 0, cand = 0;
    if (!OAK_GROW(fe->lamp_keys, fe->lamp_keys_cap, v->light_count)) return 0;
    for (uint32_t i = v->directional_count; i < v->light_count; i++) {
        const oak_render_light *rl = &v->lights[i];
        const oak_light *l = &rl->light;
        if (!l->cast_shadows || (l->type != OAK_LIGHT_POINT && l->type != OAK_LIGHT_SPOT) ||
            !(l->range > 2.0f * (float)OAK_LAMP_SHADOW_NEAR))
            continue;
        float dx = rl->position[0] - v->camera_pos[0], dy = rl->position[1] - v->camera_pos[1],
              dz = rl->position[2] - v->camera_pos[2];
        float d2 = dx * dx + dy * dy + dz * dz;
        uint32_t bits;
        memcpy(&bits, &d2, sizeof bits); /* a positive float's bits sort as it does */
        uint64_t key_first = (int32_t)i == v->key_light ? 0 : 1;
        fe->lamp_keys[cand++] = key_first << 63 | (uint64_t)(bits & 0x7fffffffu) << 32 | i;
    }
    if (cand) qsort(fe->lamp_keys, cand, sizeof *fe->lamp_keys, cmp_u64);
    uint32_t faces = 0;
    for (uint32_t c = 0; c < cand && n < OAK_LAMP_SHADOW_MAX; c++) {
        uint32_t i = (uint32_t)(fe->lamp_keys[c] & 0xffffffffu);
        uint32_t need = faces_of(&v->lights[i].light);
        if (faces + need > OAK_LAMP_ATLAS_FACES) continue;
        faces += need;
        chosen[n++] = i;
    }
    return n;
}

/* Tiles for the chosen lamps: a lamp that held tiles for as many faces last
   frame keeps them; the rest take the lowest free tiles. */
static void assign_tiles(oak_frontend *fe, const uint32_t *chosen, uint32_t n,
                         uint32_t tiles[OAK_LAMP_SHADOW_MAX][6]) {
    oak_render_view *v = &fe->view;
    bool keep[OAK_LAMP_ATLAS_FACES] = {0}, placed[OAK_LAMP_SHADOW_MAX] = {0};
    for (uint32_t s = 0; s < n; s++) {
        uint32_t src = fe->light_src[chosen[s]] + 1, need = faces_of(&v->lights[chosen[s]].light);
        uint32_t held = 0;
        for (uint32_t t = 0; t < OAK_LAMP_ATLAS_FACES; t++)
            if (fe->tile_lamp[t] == src && fe->tile_face[t] < need) {
                tiles[s][fe->tile_face[t]] = t;
                held++;
            }
        if (held != need) continue;
        placed[s] = true;
        for (uint32_t k = 0; k < need; k++) keep[tiles[s][k]] = true;
    }
    for (uint32_t t = 0; t < OAK_LAMP_ATLAS_FACES; t++)
        if (!keep[t]) fe->tile_lamp[t] = 0;
    uint32_t next = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (placed[s]) continue;
        uint32_t src = fe->light_src[chosen[s]] + 1, need = faces_of(&v->lights[chosen[s]].light);
        for (uint32_t k = 0; k < need; k++) {
            while (fe->tile_lamp[next]) next++; /* choose() left enough free */
            fe->tile_lamp[next] = src;
            fe->tile_face[next] = (uint8_t)k;
            tiles[s][k] = next;
        }
    }
}

oak_result _oak_frontend_fit_lamp_shadows(oak_frontend *fe, const oak_frame_input *in) {
    oak_render_view *v = &fe->view;
    v->lamp_shadow_count = v->lamp_face_count = v->lamp_faces_changed = 0;
    v->lamp_casters.count = 0;
    if (!OAK_GROW(v->light_shadow, fe->light_shadow_cap, v->light_count ? v->light_count : 1))
        return OAK_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < v->light_count; i++) v->light_shadow[i] = -1;
    uint32_t chosen[OAK_LAMP_SHADOW_MAX], tiles[OAK_LAMP_SHADOW_MAX][6];
    uint32_t n = choose(fe, chosen);
    assign_tiles(fe, chosen, n, tiles);
    if (!n) return OAK_OK;

    lamp_job job = {.in = in, .v = v, .sphere = fe->sphere};
    for (uint32_t s = 0; s < n; s++) {
        const oak_render_light *rl = &v->lights[chosen[s]];
        oak_lamp_shadow *ls = &v->lamp_shadows[s];
        ls->light = chosen[s];
        ls->first_face = v->lamp_face_count;
        ls->face_count = faces_of(&rl->light);
        ls->near = (float)OAK_LAMP_SHADOW_NEAR;
        ls->far = rl->light.range;
        for (uint32_t k = 0; k < ls->face_count; k++) {
            oak_lamp_face *f = &v->lamp_faces[v->lamp_face_count];
            memset(f, 0, sizeof *f);
            face_matrices(rl, ls->face_count, k, ls->near, ls->far, &ls->tan_half, f);
            f->tile = tiles[s][k];
            oak_frustum_planes(f->view_proj, job.planes[v->lamp_face_count]);
            v->lamp_face_count++;
        }
        v->light_shadow[chosen[s]] = (int32_t)s;
    }
    v->lamp_shadow_count = n;

    /* casters: per draw its faces (job pool), then face by face, the static
       ones and then the movers, each in draw order */
    uint32_t draws = in->draw_count;
    uint32_t per[OAK_LAMP_ATLAS_FACES] = {0}, total = 0;
    if (draws) {
        if (!OAK_GROW(fe->lamp_mask, fe->lamp_mask_cap, draws)) return OAK_ERROR_OUT_OF_MEMORY;
        job.mask = fe->lamp_mask;
        oak_parallel_for(draws, LAMP_CASTER_CHUNK, caster_range, &job);
        for (uint32_t i = 0; i < draws; i++)
            for (uint64_t m = fe->lamp_mask[i]; m; m &= m - 1) per[__builtin_ctzll(m)]++;
        for (uint32_t f = 0; f < v->lamp_face_count; f++) total += per[f];
    }
    oak_draw_list *l = &v->lamp_casters;
    uint32_t cap = fe->lamp_caster_cap, c2 = cap, c3 = cap, c4 = cap, c5 = cap;
    if (!OAK_GROW(l->mesh, cap, total) || !OAK_GROW(l->material, c2, total) ||
        !OAK_GROW(l->world, c3, total) || !OAK_GROW(l->prev_world, c4, total) ||
        !OAK_GROW(l->flags, c5, total) || !OAK_GROW(l->pose, fe->lamp_pose_cap, total))
        return OAK_ERROR_OUT_OF_MEMORY;
    fe->lamp_caster_cap = cap;
    uint32_t at = 0;
    for (uint32_t f = 0; f < v->lamp_face_count; f++) {
        oak_lamp_face *face = &v->lamp_faces[f];
        face->first_caster = at;
        for (int movers = 0; movers < 2; movers++) {
            for (uint32_t i = 0; i < draws; i++) {
                if (!((fe->lamp_mask[i] >> f) & 1u)) continue;
                uint32_t flags = in->flags ? in->flags[i] : 0;
                if (((flags & OAK_DRAW_MOVING) != 0) != (movers == 1)) continue;
                l->mesh[at] = in->meshes[i];
                l->material[at] = in->materials[i];
                memcpy(l->world[at], in->transforms[i], sizeof(mat4));
                memcpy(l->prev_world[at], in->transforms[i], sizeof(mat4));
                l->flags[at] = flags;
                l->pose[at] = _oak_fe_pose(fe, in, i);
                at++;
                if (movers)
                    face->mover_count++;
                else
                    face->static_count++;
            }
        }
    }
    l->count = at;
    for (uint32_t f = 0; f < v->lamp_face_count; f++) {
        oak_lamp_face *face = &v->lamp_faces[f];
        face->static_hash = face_hash(v, face);
        if (!fe->tile_drawn[face->tile] || fe->tile_hash[face->tile] != face->static_hash)
            v->lamp_faces_changed++;
        fe->tile_drawn[face->tile] = true;
        fe->tile_hash[face->tile] = face->static_hash;
    }
    return OAK_OK;
}
