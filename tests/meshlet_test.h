/* What the meshlet and occlusion tests share (test_meshcull,
 * test_meshcull_hiz, test_occlusion): a scene of draws under the sun, a
 * renderer of a size with a 512 shadow map and an occlusion mode, the
 * count of bytes two pictures differ in, and the rough grey material and
 * the unit sphere they draw. */
#ifndef OAK_TEST_MESHLET_TEST_H
#define OAK_TEST_MESHLET_TEST_H

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

/* How many of the n bytes of a and b differ. */
static inline size_t oak_test_bytes_differ(const uint8_t *a, const uint8_t *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += a[i] != b[i];
    return d;
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
