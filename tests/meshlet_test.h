/* What the meshlet and occlusion tests share (test_meshcull,
 * test_meshcull_hiz, test_occlusion): a scene of draws under the sun, a
 * renderer of a size with a 512 shadow map and an occlusion mode, the
 * count of bytes two pictures differ in, the rough grey material and the
 * unit sphere they draw, and the scenes test_meshcull and test_clod draw
 * (test_mesh_shader draws both). */
#ifndef OAK_TEST_MESHLET_TEST_H
#define OAK_TEST_MESHLET_TEST_H

#include "backend_start.h"
#include "oak_test.h"

/* A scene of n draws under the sun, the parts oak_test_sunlit_input
   fills: typedef OAK_TEST_SUNLIT_SCENE(N) scene. */
#define OAK_TEST_SUNLIT_SCENE(n)                                                                   \
    struct {                                                                                       \
        oak_frame_input in;                                                                        \
        oak_render_light sun;                                                                      \
        oak_environment env;                                                                       \
        oak_post post;                                                                             \
        oak_mesh meshes[n];                                                                        \
        oak_material mats[n];                                                                      \
        mat4 world[n];                                                                             \
    }

/* A sunlit scene's parts (OAK_TEST_SUNLIT_SCENE's or a test's own struct
   with the same names), for the scenes below. */
typedef struct oak_test_scene_parts {
    oak_frame_input *in;
    oak_render_light *sun;
    oak_environment *env;
    oak_post *post;
    oak_mesh *meshes;
    oak_material *mats;
    mat4 *world;
} oak_test_scene_parts;
#define OAK_TEST_PARTS(s)                                                                          \
    ((oak_test_scene_parts){&(s)->in, &(s)->sun, &(s)->env, &(s)->post, (s)->meshes, (s)->mats,    \
                            (s)->world})

/* test_meshcull's scene in draws 0-4 (count of them drawn): spheres
   single-sided, half past the right edge, double-sided (material two) and
   mirrored over a 60 m plane, the eye 5 m back and 1.5 m up, no AO. */
enum {
    OAK_TEST_SPHERE,
    OAK_TEST_SPHERE_SIDE,
    OAK_TEST_SPHERE_TWO,
    OAK_TEST_SPHERE_MIRROR,
    OAK_TEST_PLANE
};
static inline void oak_test_spheres(oak_test_scene_parts p, uint32_t count, oak_mesh sphere,
                                    oak_mesh plane, oak_material one, oak_material two) {
    for (int i = 0; i <= OAK_TEST_PLANE; i++) {
        p.meshes[i] = i == OAK_TEST_PLANE ? plane : sphere;
        p.mats[i] = i == OAK_TEST_SPHERE_TWO ? two : one;
        glm_mat4_identity(p.world[i]);
    }
    glm_translate(p.world[OAK_TEST_SPHERE], (vec3){0, 1, 0});
    glm_translate(p.world[OAK_TEST_SPHERE_SIDE], (vec3){3.4f, 1, -1}); /* half past the edge */
    glm_translate(p.world[OAK_TEST_SPHERE_TWO], (vec3){-2.2f, 0.8f, -1});
    glm_translate(p.world[OAK_TEST_SPHERE_MIRROR], (vec3){1.6f, 0.6f, 1.2f});
    glm_scale(p.world[OAK_TEST_SPHERE_MIRROR], (vec3){-0.6f, 0.6f, 0.6f});
    oak_test_sunlit_input(p.in, count, p.meshes, p.mats, (const mat4 *)p.world, p.sun, p.env,
                          p.post, 50, 200);
    p.post->ao = OAK_AO_OFF;
    mat4 view;
    glm_lookat((vec3){0, 1.5f, 5}, (vec3){0, 1, 0}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, p.in->camera_world);
}

/* test_clod's rocks in draws 0-4: five cluster-LOD rocks from 2 to 30 m,
   one half off the edge, the fourth 1.5 times larger, the eye 4.5 m back,
   the far plane 2 km, no AO. */
#define OAK_TEST_ROCKS 5
static inline void oak_test_rocks(oak_test_scene_parts p, oak_mesh rock, oak_material mat) {
    const float at[OAK_TEST_ROCKS][3] = {
        {-0.6f, 0, 2.2f}, {3.3f, 0.2f, 1}, {1.2f, 0, -4}, {-3, 0.5f, -12}, {4, 1, -30}};
    for (int i = 0; i < OAK_TEST_ROCKS; i++) {
        p.meshes[i] = rock, p.mats[i] = mat;
        glm_mat4_identity(p.world[i]);
        glm_translate(p.world[i], (vec3){at[i][0], at[i][1], at[i][2]});
        glm_rotate_y(p.world[i], 0.7f * (float)i, p.world[i]);
    }
    glm_scale(p.world[3], (vec3){1.5f, 1.5f, 1.5f});
    oak_test_sunlit_input(p.in, OAK_TEST_ROCKS, p.meshes, p.mats, (const mat4 *)p.world, p.sun,
                          p.env, p.post, 50, 2000);
    p.post->ao = OAK_AO_OFF;
    mat4 view;
    glm_lookat((vec3){0, 0.6f, 4.5f}, (vec3){0, 0.2f, 0}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, p.in->camera_world);
}

/* A w x h renderer on backend with a 512 shadow map and occlusion mode
   (OAK_OCCLUSION_DEFAULT: off); NULL (and a failed check) if it fails. */
static inline oak_renderer *oak_test_open_renderer(const char *backend, uint32_t w, uint32_t h,
                                                   oak_occlusion_mode mode) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {
        .backend = backend, .width = w, .height = h, .shadow_map_size = 512, .occlusion = mode};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

/* The tests' material: the default one, roughness 0.7, not metallic. */
static inline oak_material_desc oak_test_rough_desc(void) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.roughness = 0.7f, md.metallic = 0;
    return md;
}

/* That material into *mat and a sphere of radius 1, segments x rings, into
 *sphere (each a failed check if it cannot be made). */
static inline void oak_test_rough_sphere(oak_material *mat, oak_mesh *sphere, uint32_t segments,
                                         uint32_t rings) {
    oak_material_desc md = oak_test_rough_desc();
    CHECK_OK(oak_make_material(mat, &md));
    oak_shape_desc sd = {
        .type = OAK_SHAPE_SPHERE, .radius = 1, .segments = segments, .rings = rings};
    CHECK_OK(oak_make_shape(sphere, &sd));
}

#endif
