/* glTF features read from small hand-made files (tests/data/gltf): matrix
 * nodes decomposed to TRS, extras kept as raw JSON, cameras, material
 * extensions and samplers, strips and fans turned into triangle lists with
 * the spec's winding, points kept but not drawn, and skins with two joint
 * sets (eight influences) posed with all of them. */
#include "oak_test.h"

#include <oak/anim.h>

static oak_gltf *load_features(void) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    CHECK_OK(oak_gltf_load(&g, "tests/data/gltf/features.gltf", &d));
    return g;
}

TEST(gltfMatrixNodeDecomposesToTrs) {
    oak_gltf *g = load_features();
    if (!g) return;
    const oak_gltf_node *n = &g->nodes[0]; /* T(1,2,3) Rz(90) S(2) */
    CHECK_NEAR(n->translation[0], 1, 1e-6);
    CHECK_NEAR(n->translation[1], 2, 1e-6);
    CHECK_NEAR(n->translation[2], 3, 1e-6);
    CHECK_NEAR(n->rotation[2], sinf(OAK_PI / 4), 1e-6);
    CHECK_NEAR(n->rotation[3], cosf(OAK_PI / 4), 1e-6);
    for (int k = 0; k < 3; k++) CHECK_NEAR(n->scale[k], 2, 1e-6);
    /* and the rest pose rebuilt from them maps (1,0,0) to (1,2,3) + 2*(0,1,0) */
    mat4 w;
    oak_gltf_node_world(g, 0, w);
    vec3 p = {1, 0, 0};
    glm_mat4_mulv3(w, p, 1, p);
    CHECK_NEAR(p[0], 1, 1e-5);
    CHECK_NEAR(p[1], 4, 1e-5);
    CHECK_NEAR(p[2], 3, 1e-5);
    oak_gltf_free(g);
}

TEST(gltfExtrasAndCamerasAreKept) {
    oak_gltf *g = load_features();
    if (!g) return;
    CHECK(g->nodes[0].extras && strcmp(g->nodes[0].extras, "{\"tag\":\"hello\",\"n\":[1,2]}") == 0);
    CHECK(g->nodes[1].extras == NULL);
    CHECK_EQ_INT(g->nodes[1].camera, 0);
    const oak_gltf_camera *c = &g->cameras[0];
    CHECK(!c->orthographic);
    CHECK_NEAR(c->yfov, 0.8, 1e-6);
    CHECK_NEAR(c->aspect, 1.5, 1e-6);
    CHECK_NEAR(c->znear, 0.05, 1e-6);
    CHECK_NEAR(c->zfar, 100, 1e-6);
    oak_gltf_free(g);
}

TEST(gltfMaterialExtensionsAndSamplersRead) {
    oak_gltf *g = load_features();
    if (!g) return;
    const oak_material_desc *a = &g->materials[0].desc, *b = &g->materials[1].desc;
    CHECK(a->unlit);
    CHECK_EQ_INT(a->alpha_mode, OAK_ALPHA_MASK);
    CHECK_NEAR(a->alpha_cutoff, 0.3, 1e-6);
    CHECK_EQ_INT(g->materials[0].image[0], 0);
    const oak_texture_ref *t = &a->base_color_tex;
    CHECK_EQ_INT(t->uv_set, 1);
    CHECK_NEAR(t->offset[0], 0.5, 0);
    CHECK_NEAR(t->offset[1], 0.25, 0);
    CHECK_NEAR(t->rotation, 0.1, 1e-7);
    CHECK_NEAR(t->scale[0], 2, 0);
    CHECK_NEAR(t->scale[1], 3, 0);
    CHECK_EQ_INT(t->sampler.mag, OAK_FILTER_NEAREST);
    CHECK_EQ_INT(t->sampler.min, OAK_FILTER_NEAREST);
    CHECK_EQ_INT(t->sampler.mip, OAK_FILTER_NEAREST);
    CHECK_EQ_INT(t->sampler.wrap_u, OAK_WRAP_CLAMP);
    CHECK_EQ_INT(t->sampler.wrap_v, OAK_WRAP_MIRROR);
    CHECK(!b->unlit);
    CHECK_EQ_INT(b->alpha_mode, OAK_ALPHA_BLEND);
    CHECK_NEAR(b->emissive_strength, 4, 0);
    CHECK_NEAR(b->emissive[1], 0.5, 0);
    CHECK_NEAR(b->normal_scale, 0.5, 0);
    CHECK_EQ_INT(g->materials[1].image[2], 0);
    CHECK_EQ_INT(g->materials[1].image[0], -1);
    oak_gltf_free(g);
}

/* Corners of a flattened primitive's triangle t, as indices of the square's
 * four corners (0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1)). */
static int corner(const oak_gltf_primitive *p, uint32_t t, int k) {
    const float *v = p->positions + 3 * (3 * t + (uint32_t)k);
    return (int)(v[0] + 2 * v[1] + 0.5f);
}

TEST(gltfStripAndFanBecomeTriangleListsWithSpecWinding) {
    oak_gltf *g = load_features();
    if (!g) return;
    const oak_gltf_primitive *strip = &g->meshes[0].primitives[0];
    const oak_gltf_primitive *fan = &g->meshes[0].primitives[1];
    const oak_gltf_primitive *points = &g->meshes[0].primitives[2];
    CHECK_EQ_INT(strip->index_count, 6);
    CHECK_EQ_INT(fan->index_count, 6);
    /* strip: {v_i, v_i+1+i%2, v_i+2-i%2}: (0,1,2) and (1,3,2) */
    static const int want_strip[6] = {0, 1, 2, 1, 3, 2};
    /* fan: {v_i+1, v_i+2, v_0}: (1,2,0) and (2,3,0) */
    static const int want_fan[6] = {1, 2, 0, 2, 3, 0};
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(corner(strip, (uint32_t)i / 3, i % 3), want_strip[i]);
        CHECK_EQ_INT(corner(fan, (uint32_t)i / 3, i % 3), want_fan[i]);
    }
    /* flat normals follow the winding: the strip keeps every triangle
     * counter-clockwise (+Z); the fan over these strip-ordered corners folds,
     * (1,2,0) facing +Z and (2,3,0) facing -Z */
    for (uint32_t v = 0; v < 6; v++) {
        CHECK_NEAR(strip->normals[3 * v + 2], 1, 1e-6);
        CHECK_NEAR(fan->normals[3 * v + 2], v < 3 ? 1 : -1, 1e-6);
    }
    CHECK_EQ_INT(points->mode, 0);
    CHECK_EQ_INT(points->index_count, 0);
    CHECK_EQ_INT(points->vertex_count, 4);
    CHECK_EQ_INT(g->primitive_count, 3);
    oak_gltf_free(g);
}

TEST(skinTwoJointSetsBlendAllEightInfluences) {
    /* half the weight on joint 0 (at the origin) in set 0, half on joint 1
     * (moved +2 in x) in set 1: every vertex moves +1 in x */
    oak_gltf *g = NULL;
    CHECK_OK(oak_gltf_load(&g, "tests/data/gltf/skin8.gltf", NULL));
    if (!g) return;
    const oak_gltf_primitive *p = &g->meshes[0].primitives[0];
    CHECK_EQ_INT(p->influence_count, 8);
    CHECK_EQ_INT(p->max_joint, 1);
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "skin8"));
    CHECK_OK(oak_skin_update(scene));
    /* posed by the backends (both sets of joints): the positions they draw */
    float pos[9];
    CHECK_EQ_INT(oak_mesh_posed_positions(oak_gltf_instance_mesh(inst, 0, 0), false, pos, 3), 3);
    CHECK(oak_mesh_get(oak_gltf_instance_mesh(inst, 0, 0))->joints1 != NULL);
    for (uint32_t v = 0; v < 3; v++) {
        CHECK_NEAR(pos[3 * v], p->positions[3 * v] + 1, 1e-6);
        CHECK_NEAR(pos[3 * v + 1], p->positions[3 * v + 1], 1e-6);
    }
    /* moving joint 1 by user code moves the skin: joints are plain entities */
    oak_transform t = *oak_scene_transform(scene, oak_gltf_instance_node(inst, 2));
    t.position[0] = 4;
    oak_scene_set_transform(scene, oak_gltf_instance_node(inst, 2), &t);
    CHECK_OK(oak_skin_update(scene));
    CHECK_EQ_INT(oak_mesh_posed_positions(oak_gltf_instance_mesh(inst, 0, 0), false, pos, 3), 3);
    CHECK_NEAR(pos[0], 2, 1e-6);
    oak_gltf_instance_free(inst);
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

int main(void) {
    oak_test_init(0);
    RUN(gltfMatrixNodeDecomposesToTrs);
    RUN(gltfExtrasAndCamerasAreKept);
    RUN(gltfMaterialExtensionsAndSamplersRead);
    RUN(gltfStripAndFanBecomeTriangleListsWithSpecWinding);
    RUN(skinTwoJointSetsBlendAllEightInfluences);
    oak_shutdown();
    return TEST_SUMMARY();
}
