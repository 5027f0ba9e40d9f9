/* A few draws held by the test as one frame input, and one frame of it
 * drawn and read back: the scene and draw helpers test_aerial, test_fog,
 * test_taa, test_render_scale and test_material_fx share (each test's own
 * scene_init places its camera and draws on top of oak_test_scene_begin).
 * Include after oak_test.h and backend_start.h. */
#ifndef OAK_TEST_SCENE_HELPERS_H
#define OAK_TEST_SCENE_HELPERS_H

#include <string.h>

#include <oak/oak.h>

#define OAK_TEST_SCENE_DRAWS  4 /* draws a test scene holds */
#define OAK_TEST_SCENE_LIGHTS 2 /* lights a test scene holds */

/* The draws' columns (in.draw_count of them), the lights (in.light_count),
   the environment and post, which `in` points at. */
typedef struct oak_test_scene {
    oak_frame_input in;
    oak_mesh mesh[OAK_TEST_SCENE_DRAWS];
    oak_material mat[OAK_TEST_SCENE_DRAWS];
    mat4 world[OAK_TEST_SCENE_DRAWS];
    oak_render_light light[OAK_TEST_SCENE_LIGHTS];
    oak_environment env;
    oak_post post;
} oak_test_scene;

/* s zeroed: a dark world (oak_test_dark_world: no sky, no sky light, raw
   light out), no draw and no light yet, its columns wired into s->in; the
   camera is the test's to set (in.camera, in.camera_world). */
static inline void oak_test_scene_begin(oak_test_scene *s) {
    memset(s, 0, sizeof *s);
    oak_test_dark_world(&s->env, &s->post);
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.lights = s->light;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

/* Draw i of s: mesh and material, its world matrix the identity; the draw
   count grows to cover it. */
static inline void oak_test_scene_set(oak_test_scene *s, uint32_t i, oak_mesh mesh,
                                      oak_material mat) {
    if (i >= OAK_TEST_SCENE_DRAWS) return;
    s->mesh[i] = mesh, s->mat[i] = mat;
    glm_mat4_identity(s->world[i]);
    if (s->in.draw_count <= i) s->in.draw_count = i + 1;
}

/* One frame of s on r, its pixels (size bytes) read into px; false (and
   the failure counted) when either call fails. */
static inline bool oak_test_scene_draw(oak_renderer *r, const oak_test_scene *s, uint8_t *px,
                                       size_t size) {
    oak_result a = oak_renderer_draw(r, &s->in);
    CHECK_OK(a);
    oak_result b = a == OAK_OK ? oak_renderer_read_pixels(r, px, size) : a;
    if (a == OAK_OK) CHECK_OK(b);
    return b == OAK_OK;
}

#endif
