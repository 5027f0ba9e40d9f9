/* The sun's shadow map fitted to the view: one cascade over the first
 * OAK_SHADOW_DISTANCE metres, a sphere around that slice of the frustum (so
 * the map's size does not change as the camera turns), its centre snapped to
 * whole texels in a light space anchored at the world origin (so edges do
 * not crawl as the camera moves), and the draws that can cast into it. */
#include <math.h>
#include <string.h>

#include "frontend.h"

#define CASTER_CHUNK 1024

typedef struct caster_job {
    const oak_frame_input *in;
    vec4 planes[6];
    uint8_t *casting;
} caster_job;

static void caster_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    caster_job *j = user;
    for (uint32_t i = begin; i < end; i++) {
        uint32_t flags = j->in->flags ? j->in->flags[i] : 0;
        const oak_material_data *mat = oak_material_get(j->in->materials[i]);
        float c[3], r;
        mat4 m;
        memcpy(m, j->in->transforms[i], sizeof(mat4));
        j->casting[i] = !(flags & OAK_DRAW_NO_SHADOW) && mat &&
                        mat->desc.alpha_mode != OAK_ALPHA_BLEND &&
                        _oak_draw_sphere(j->in->meshes[i], m, c, &r) &&
                        oak_frustum_sphere((const vec4 *)j->planes, c, r);
    }
}

/* Sphere around the view frustum between znear and far, in world space. */
static void slice_sphere(const oak_render_view *v, float far, float center[3], float *radius) {
    float zs[2] = {v->znear, far};
    vec3 corners[8];
    mat4 cam;
    glm_mat4_inv((vec4 *)v->view, cam);
    for (int c = 0; c < 8; c++) {
        float z = zs[c >> 2];
        float hw = v->ortho ? 1.0f / v->proj[0][0] : z / v->proj[0][0];
        float hh = v->ortho ? 1.0f / v->proj[1][1] : z / v->proj[1][1];
        vec4 p = {(c & 1) ? hw : -hw, (c & 2) ? hh : -hh, -z, 1}, w;
        glm_mat4_mulv(cam, p, w);
        glm_vec3_copy(w, corners[c]);
    }
    vec3 mid = {0, 0, 0};
    for (int c = 0; c < 8; c++) glm_vec3_add(mid, corners[c], mid);
    glm_vec3_scale(mid, 1.0f / 8.0f, mid);
    float r = 0;
    for (int c = 0; c < 8; c++) {
        float d = glm_vec3_distance(mid, corners[c]);
        if (d > r) r = d;
    }
    glm_vec3_copy(mid, center);
    *radius = ceilf(r * 16.0f) / 16.0f; /* rounding keeps it steady under float noise */
}

void _oak_frontend_fit_shadows(oak_frontend *fe, const oak_frame_input *in) {
    oak_render_view *v = &fe->view;
    v->cascade_count = 0;
    v->casters.count = 0;
    v->shadows = false;
    if (v->key_light < 0 || !v->shadow_map_size) return;
    const oak_render_light *sun = &v->lights[v->key_light];
    if (!sun->light.cast_shadows) return;

    float far = v->zfar < (float)OAK_SHADOW_DISTANCE ? v->zfar : (float)OAK_SHADOW_DISTANCE;
    float center[3], r;
    slice_sphere(v, far, center, &r);

    /* Light space: rotation only, so its texel grid is fixed in the world. */
    vec3 d = {sun->direction[0], sun->direction[1], sun->direction[2]};
    vec3 up = {0, 1, 0};
    if (fabsf(d[1]) > 0.99f) up[1] = 0, up[2] = 1;
    vec3 origin = {0, 0, 0};
    mat4 light_view;
    glm_look(origin, d, up, light_view);
    vec4 centre4 = {center[0], center[1], center[2], 1}, lc;
    glm_mat4_mulv(light_view, centre4, lc);
    float texel = 2.0f * r / (float)v->shadow_map_size;
    float cx = floorf(lc[0] / texel) * texel, cy = floorf(lc[1] / texel) * texel;
    float reach = (float)OAK_SHADOW_CASTER_REACH;
    /* view-space z grows towards the light; near is on the light's side */
    float znear = -lc[2] - r - reach, zfar = -lc[2] + r;
    mat4 proj;
    oak_ortho_rz(cx - r, cx + r, cy - r, cy + r, znear, zfar, proj);

    oak_shadow_cascade *cas = &v->cascades[0];
    glm_mat4_mul(proj, light_view, cas->view_proj);
    cas->split_far = far;
    cas->texel_world = texel;
    cas->depth_range = zfar - znear;
    cas->first_caster = 0;
    cas->caster_count = 0;
    v->cascade_count = 1;
    v->shadows = true;

    uint32_t n = in->draw_count;
    if (!n) return;
    if (!OAK_GROW(fe->casting, fe->casting_cap, n)) return;
    caster_job job = {.in = in, .casting = fe->casting};
    oak_frustum_planes(cas->view_proj, job.planes);
    oak_parallel_for(n, CASTER_CHUNK, caster_range, &job);
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) count += fe->casting[i];
    oak_draw_list *l = &v->casters;
    uint32_t cap = fe->caster_cap, c2 = cap, c3 = cap, c4 = cap, c5 = cap;
    if (!OAK_GROW(l->mesh, cap, count) || !OAK_GROW(l->material, c2, count) ||
        !OAK_GROW(l->world, c3, count) || !OAK_GROW(l->prev_world, c4, count) ||
        !OAK_GROW(l->flags, c5, count))
        return;
    fe->caster_cap = cap;
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!fe->casting[i]) continue;
        l->mesh[at] = in->meshes[i];
        l->material[at] = in->materials[i];
        memcpy(l->world[at], in->transforms[i], sizeof(mat4));
        memcpy(l->prev_world[at], in->transforms[i], sizeof(mat4));
        l->flags[at] = in->flags ? in->flags[i] : 0;
        at++;
    }
    l->count = count;
    cas->caster_count = count;
}
