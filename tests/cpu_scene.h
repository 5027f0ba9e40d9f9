/* Helpers for the CPU backend tests: hand-built oak_render_views (plain data),
 * small meshes, the backend driven through its vtable, and an independent
 * double-precision evaluation of the shading contract for expected values. */
#ifndef OAK_TEST_CPU_SCENE_H
#define OAK_TEST_CPU_SCENE_H

#include "oak_test.h"

#include <oak/backend.h>

#define SC_MAX_DRAWS 16

typedef struct sc_scene {
    oak_render_view view;
    oak_mesh mesh[SC_MAX_DRAWS];
    oak_material mat[SC_MAX_DRAWS];
    mat4 world[SC_MAX_DRAWS];
    uint32_t flags[SC_MAX_DRAWS];
    oak_mesh cmesh[SC_MAX_DRAWS];
    oak_material cmat[SC_MAX_DRAWS];
    mat4 cworld[SC_MAX_DRAWS];
    uint32_t cflags[SC_MAX_DRAWS];
    oak_render_light lights[8];
} sc_scene;

/* A view of w x h with black sky, no ambient, no fog, exposure 1, no FXAA and
 * no dither (tests opt back in). */
static inline void sc_init(sc_scene *s, uint32_t w, uint32_t h) {
    memset(s, 0, sizeof *s);
    oak_render_view *v = &s->view;
    v->width = w;
    v->height = h;
    v->key_light = -1;
    v->draws.mesh = s->mesh;
    v->draws.material = s->mat;
    v->draws.world = s->world;
    v->draws.prev_world = s->world;
    v->draws.flags = s->flags;
    v->casters.mesh = s->cmesh;
    v->casters.material = s->cmat;
    v->casters.world = s->cworld;
    v->casters.prev_world = s->cworld;
    v->casters.flags = s->cflags;
    v->lights = s->lights;
    v->post.exposure = 1;
    v->post.no_fxaa = true;
    v->post.no_dither = true;
}

static inline void sc_camera(sc_scene *s, const float eye[3], const float at[3], const float up[3],
                             float fovy_deg, float ortho_height, float znear, float zfar) {
    oak_render_view *v = &s->view;
    glm_lookat((float *)eye, (float *)at, (float *)up, v->view);
    float aspect = (float)v->width / (float)v->height;
    if (ortho_height > 0) {
        float hh = ortho_height * 0.5f, hw = hh * aspect;
        oak_ortho_rz(-hw, hw, -hh, hh, znear, zfar, v->proj);
    } else {
        oak_perspective_rz(glm_rad(fovy_deg), aspect, znear, zfar, v->proj);
    }
    v->ortho = ortho_height > 0;
    glm_mat4_mul(v->proj, v->view, v->view_proj);
    glm_mat4_inv(v->view_proj, v->inv_view_proj);
    glm_mat4_copy(v->view_proj, v->prev_view_proj);
    memcpy(v->camera_pos, eye, sizeof(float) * 3);
    v->znear = znear;
    v->zfar = zfar;
}

static inline uint32_t sc_draw(sc_scene *s, oak_mesh m, oak_material mat, const mat4 world) {
    uint32_t i = s->view.draws.count++;
    s->mesh[i] = m;
    s->mat[i] = mat;
    glm_mat4_copy((vec4 *)world, s->world[i]);
    return i;
}

static inline void sc_caster(sc_scene *s, oak_mesh m, oak_material mat, const mat4 world) {
    uint32_t i = s->view.casters.count++;
    s->cmesh[i] = m;
    s->cmat[i] = mat;
    glm_mat4_copy((vec4 *)world, s->cworld[i]);
    s->view.cascades[0].caster_count = s->view.casters.count;
}

static inline oak_render_light *sc_light(sc_scene *s, oak_light_type type, float intensity) {
    oak_render_light *l = &s->lights[s->view.light_count++];
    memset(l, 0, sizeof *l);
    l->light.type = type;
    l->light.color[0] = l->light.color[1] = l->light.color[2] = 1;
    l->light.intensity = intensity;
    return l;
}

/* Sun travelling along dir (unit) casting into a map of `size` covering
 * +-half metres around the origin. */
static inline void sc_sun_shadow(sc_scene *s, const float dir[3], uint32_t size, float half) {
    oak_render_view *v = &s->view;
    float eye[3] = {-dir[0] * 50, -dir[1] * 50, -dir[2] * 50}, at[3] = {0, 0, 0};
    float up[3] = {0, 1, 0};
    if (fabsf(dir[1]) > 0.99f) up[1] = 0, up[2] = 1;
    mat4 view, proj;
    glm_lookat(eye, at, up, view);
    oak_ortho_rz(-half, half, -half, half, 1.0f, 100.0f, proj);
    glm_mat4_mul(proj, view, v->cascades[0].view_proj);
    v->cascades[0].texel_world = 2 * half / (float)size;
    v->cascades[0].depth_range = 99.0f;
    v->cascades[0].split_far = 1000;
    v->cascade_count = 1;
    v->shadow_map_size = size;
    v->shadows = true;
}

/* A quad from four corners (counter-clockwise seen from the front), uv
 * (0,0),(1,0),(1,1),(0,1) at the corners in that order. */
static inline oak_mesh sc_quad(const float c[4][3]) {
    float pos[12], uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    memcpy(pos, c, sizeof pos);
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    oak_mesh_desc d = {0};
    d.vertex_count = 4;
    d.index_count = 6;
    d.positions = pos;
    d.uv0 = uv;
    d.indices = idx;
    oak_mesh m = {0};
    CHECK_OK(oak_make_mesh(&m, &d));
    return m;
}

/* Ground quad of +-half metres at y = 0 facing +Y. */
static inline oak_mesh sc_ground(float half) {
    const float c[4][3] = {{-half, 0, half}, {half, 0, half}, {half, 0, -half}, {-half, 0, -half}};
    return sc_quad(c);
}

/* Axis-aligned box from lo to hi, 24 vertices so each face is flat. */
static inline oak_mesh sc_box(const float lo[3], const float hi[3]) {
    /* per face: normal axis and sign, then u and v with u x v = n */
    static const int face[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0},
                                   {1, 0, 2}, {2, 0, 1}, {2, 1, 0}};
    static const float sign[6] = {1, -1, 1, -1, 1, -1};
    float pos[72];
    uint32_t idx[36];
    for (int f = 0; f < 6; f++) {
        int n = face[f][0], u = face[f][1], v = face[f][2];
        static const float cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
        for (int k = 0; k < 4; k++) {
            float p[3];
            p[n] = sign[f];
            p[u] = cu[k];
            p[v] = cv[k];
            for (int a = 0; a < 3; a++)
                pos[(f * 4 + k) * 3 + a] = lo[a] + (p[a] * 0.5f + 0.5f) * (hi[a] - lo[a]);
        }
        const uint32_t q[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++) idx[f * 6 + k] = (uint32_t)(f * 4) + q[k];
    }
    oak_mesh_desc d = {0};
    d.vertex_count = 24;
    d.index_count = 36;
    d.positions = pos;
    d.indices = idx;
    oak_mesh m = {0};
    CHECK_OK(oak_make_mesh(&m, &d));
    return m;
}

static inline oak_material sc_material(float r, float g, float b, float metallic, float rough,
                                       bool unlit) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.base_color[0] = r, d.base_color[1] = g, d.base_color[2] = b, d.base_color[3] = 1;
    d.metallic = metallic;
    d.roughness = rough;
    d.unlit = unlit;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &d));
    return m;
}

/* Renders the view on a fresh CPU backend; rgba gets w*h*4 bytes. */
static inline oak_result sc_render(sc_scene *s, uint8_t *rgba, oak_stage_timing *t, uint32_t *nt) {
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc d = {s->view.width, s->view.height, NULL, 0};
    oak_result r = be->create(&self, &d);
    if (r) return r;
    r = be->sync(self, &s->view);
    if (!r) r = be->render(self, &s->view);
    if (!r) r = be->read_pixels(self, rgba, (size_t)s->view.width * s->view.height * 4);
    if (!r && t && nt) *nt = be->timings(self, t, *nt);
    be->destroy(self);
    return r;
}

static inline const uint8_t *sc_px(const uint8_t *rgba, uint32_t w, uint32_t x, uint32_t y) {
    return rgba + ((size_t)y * w + x) * 4;
}

static inline void sc_save(const char *name, const uint8_t *rgba, uint32_t w, uint32_t h) {
    char path[512];
    oak_image_write_png(oak_test_out(path, sizeof path, name), w, h, rgba);
}

/* ---- the contract in double precision, for expected values ---------- */

static inline double sc_srgb(double c) {
    return c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}
static inline double sc_srgb_to_linear(double c) {
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}
static inline double sc_aces(double x) {
    double y = (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14);
    return y < 0 ? 0 : y > 1 ? 1 : y;
}
/* Byte of linear radiance x through ACES and sRGB without dither. */
static inline int sc_byte(double x, bool aces) {
    double t = aces ? sc_aces(x) : (x < 0 ? 0 : x > 1 ? 1 : x);
    return (int)floor(sc_srgb(t) * 255 + 0.5);
}

/* Direct light reflected by a dielectric of albedo `albedo` and roughness r:
 * (albedo/pi + D*Vis*F) * E * NdotL, written from the GGX/Smith/Schlick
 * formulas independently of the backend. */
static inline double sc_brdf(double albedo, double rough, const double N[3], const double L[3],
                             const double V[3], double E) {
    double a = rough * rough, a2 = a * a;
    double H[3] = {L[0] + V[0], L[1] + V[1], L[2] + V[2]};
    double hl = sqrt(H[0] * H[0] + H[1] * H[1] + H[2] * H[2]);
    for (int k = 0; k < 3; k++) H[k] /= hl;
    double NL = fmax(N[0] * L[0] + N[1] * L[1] + N[2] * L[2], 0);
    double NV = fmax(N[0] * V[0] + N[1] * V[1] + N[2] * V[2], 1e-4);
    double NH = fmax(N[0] * H[0] + N[1] * H[1] + N[2] * H[2], 0);
    double VH = fmax(V[0] * H[0] + V[1] * H[1] + V[2] * H[2], 0);
    double dd = NH * NH * (a2 - 1) + 1;
    double D = a2 / (M_PI * dd * dd);
    double vis =
        0.5 / fmax(NL * sqrt(NV * NV * (1 - a2) + a2) + NV * sqrt(NL * NL * (1 - a2) + a2), 1e-7);
    double F = 0.04 + 0.96 * pow(1 - VH, 5);
    return (albedo / M_PI + D * vis * F) * E * NL;
}

#endif
