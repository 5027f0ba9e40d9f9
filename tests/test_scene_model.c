/* Placing models: oak_scene_add_model hangs one child per mesh, with that
 * mesh's material, under a new entity; an OBJ file lands the same way. */
#include "oak_test.h"

TEST(sceneAddModelMakesOneChildPerMesh) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_mesh meshes[2];
    oak_material mats[2];
    CHECK_OK(oak_make_shape(&meshes[0], &(oak_shape_desc){.type = OAK_SHAPE_BOX}));
    CHECK_OK(oak_make_shape(&meshes[1], &(oak_shape_desc){.type = OAK_SHAPE_SPHERE}));
    CHECK_OK(oak_make_material(&mats[0], &(oak_material_desc){.name = "a"}));
    CHECK_OK(oak_make_material(&mats[1], &(oak_material_desc){.name = "b"}));
    oak_model model = {2, meshes, mats, 2, mats, {{0}}};
    oak_entity holder = oak_scene_create(s, "holder");
    oak_entity root = oak_scene_add_model(s, &model, holder, "thing");
    CHECK(root.id != 0);
    CHECK(!strcmp(oak_scene_name(s, root), "thing"));
    CHECK_EQ_INT(oak_scene_parent(s, root).id, holder.id);
    oak_column c = oak_scene_column(s, OAK_COMPONENT_MESH_RENDERER);
    CHECK_EQ_INT(c.count, 2);
    for (uint32_t i = 0; i < c.count && i < 2; i++) {
        const oak_mesh_renderer *mr = (const oak_mesh_renderer *)((uint8_t *)c.data + i * c.stride);
        CHECK_EQ_INT(mr->mesh.id, meshes[i].id);
        CHECK_EQ_INT(mr->material.id, mats[i].id);
        CHECK_EQ_INT(oak_scene_parent(s, c.entities[i]).id, root.id);
        const oak_mesh_data *md = oak_mesh_get(meshes[i]);
        char want[32];
        snprintf(want, sizeof want, "thing.%u", i);
        CHECK(!strcmp(oak_scene_name(s, c.entities[i]),
                      md && md->name && *md->name ? md->name : want));
    }
    CHECK_EQ_INT(oak_scene_entity_count(s), 4);
    oak_scene_destroy_entity(s, holder);
    CHECK_EQ_INT(oak_scene_entity_count(s), 0);
    CHECK_EQ_INT(oak_scene_column(s, OAK_COMPONENT_MESH_RENDERER).count, 0);
    oak_destroy_scene(s);
}

TEST(sceneAddModelPlacesObjParts) {
    oak_model model;
    CHECK_OK(oak_load_obj(&model, "tests/data/scene/models/two_parts.obj"));
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity root = oak_scene_add_model(s, &model, (oak_entity){0}, "parts");
    CHECK(root.id != 0);
    CHECK_EQ_INT(oak_scene_entity_count(s), 1 + model.mesh_count);
    CHECK_EQ_INT(model.mesh_count, 2);
    oak_transform t = oak_transform_identity();
    t.position[1] = 5;
    oak_scene_set_transform(s, root, &t);
    oak_frame_input in;
    oak_scene_set_camera(s, root, &(oak_camera){0});
    CHECK_OK(oak_scene_frame_input(s, &in));
    CHECK_EQ_INT(in.draw_count, 2);
    uint32_t verts = 0;
    for (uint32_t i = 0; i < in.draw_count; i++) {
        CHECK_NEAR(in.transforms[i][3][1], 5, 0);
        verts += oak_mesh_get(in.meshes[i])->vertex_count;
    }
    CHECK_EQ_INT(verts, 7); /* the quad's 4 and the triangle's 3 */
    CHECK_EQ_INT(oak_scene_add_model(s, NULL, root, "x").id, 0);
    /* Saved, the parts are written as (file, index) and come back as such. */
    char path[512];
    oak_test_out(path, sizeof path, "scene_model.json");
    CHECK_OK(oak_scene_save(s, path));
    oak_scene *back = NULL;
    /* saved to OAK_TEST_OUT, it names tests/data: the project is its root */
    CHECK_OK(oak_scene_load_with(&back, path, &(oak_scene_load_desc){.asset_root = "."}));
    if (back) {
        CHECK_OK(oak_scene_frame_input(back, &in));
        CHECK_EQ_INT(in.draw_count, 2);
        verts = 0;
        for (uint32_t i = 0; i < in.draw_count; i++) {
            const oak_mesh_data *md = oak_mesh_get(in.meshes[i]);
            CHECK(md && !md->has_recipe && md->source_index == i);
            verts += md ? md->vertex_count : 0;
            CHECK_NEAR(in.transforms[i][3][1], 5, 0);
        }
        CHECK_EQ_INT(verts, 7);
        oak_destroy_scene(back);
    }
    oak_destroy_scene(s);
    oak_model_release(&model);
}

int main(void) {
    oak_test_init(0);
    RUN(sceneAddModelMakesOneChildPerMesh);
    RUN(sceneAddModelPlacesObjParts);
    oak_shutdown();
    return TEST_SUMMARY();
}
