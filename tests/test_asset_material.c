/* Materials and the registry's lifetime: glTF defaults, zero resolving,
 * texture handle checks, name copies, versions, and an engine restart that
 * frees every asset (LSan) and starts a working registry again. */
#include "oak_test.h"

static bool error_has(const char *needle) {
    return strstr(oak_last_error(), needle) != NULL;
}

TEST(materialDefaultsAreGltfs) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    for (int i = 0; i < 4; i++) CHECK_NEAR(d.base_color[i], 1, 0);
    CHECK_NEAR(d.metallic, 1, 0);
    CHECK_NEAR(d.roughness, 1, 0);
    CHECK_NEAR(d.emissive[0] + d.emissive[1] + d.emissive[2], 0, 0);
    CHECK_NEAR(d.emissive_strength, 1, 0);
    CHECK_NEAR(d.normal_scale, 1, 0);
    CHECK_NEAR(d.occlusion_strength, 1, 0);
    CHECK(d.alpha_mode == OAK_ALPHA_OPAQUE);
    CHECK_NEAR(d.alpha_cutoff, 0.5, 0);
    CHECK(d.base_color_tex.sampler.wrap_u == OAK_WRAP_REPEAT);
    CHECK(d.normal_tex.sampler.mip == OAK_FILTER_LINEAR);
    CHECK_NEAR(d.emissive_tex.scale[1], 1, 0);
    /* from a zeroed desc, factors stay as given and only zeros with a
       documented default resolve */
    oak_material_desc z = {0};
    z.alpha_mode = OAK_ALPHA_MASK;
    z.alpha_cutoff = 0.25f;
    oak_material_desc r = oak_material_desc_defaults(&z);
    CHECK_NEAR(r.base_color[0], 0, 0);
    CHECK_NEAR(r.metallic, 0, 0);
    CHECK(r.alpha_mode == OAK_ALPHA_MASK);
    CHECK_NEAR(r.alpha_cutoff, 0.25, 0);
    CHECK_NEAR(r.normal_scale, 1, 0);
}

TEST(materialCopiesNameAndChecksTextures) {
    char name[16];
    strcpy(name, "brick");
    oak_texture tex;
    CHECK_OK(oak_load_texture(&tex, "oak://checker", 0));
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.name = name;
    d.base_color[1] = 0.25f;
    d.base_color_tex.texture = tex;
    d.base_color_tex.scale[0] = 4;
    oak_material m;
    CHECK_OK(oak_make_material(&m, &d));
    strcpy(name, "changed");
    const oak_material_data *md = oak_material_get(m);
    CHECK(md && strcmp(md->name, "brick") == 0 && md->desc.name == md->name);
    CHECK_NEAR(md->desc.base_color[1], 0.25, 0);
    CHECK_EQ_INT(md->desc.base_color_tex.texture.id, tex.id);
    CHECK_NEAR(md->desc.base_color_tex.scale[0], 4, 0);
    CHECK_NEAR(md->desc.base_color_tex.scale[1], 1, 0);
    uint32_t v0 = md->version;

    d.name = NULL;
    d.roughness = 0.5f;
    CHECK_OK(oak_material_update(m, &d));
    md = oak_material_get(m);
    CHECK(md->version != v0);
    CHECK_NEAR(md->desc.roughness, 0.5, 0);
    CHECK(strcmp(md->desc.name, "brick") == 0);

    oak_destroy_texture(tex);
    oak_material bad;
    CHECK(oak_make_material(&bad, &d) == OAK_ERROR_NOT_FOUND);
    CHECK(error_has("base colour texture"));
    d.base_color_tex.texture.id = 0;
    d.normal_tex.uv_set = 2;
    CHECK(oak_make_material(&bad, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("uv set 2"));
    CHECK(bad.id == 0);
    d.normal_tex.uv_set = 0;
    const float softness[2] = {-0.5f, NAN}; /* soft particles' metres: not negative, finite */
    for (int i = 0; i < 2; i++) {
        d.softness = softness[i];
        CHECK(oak_make_material(&bad, &d) == OAK_ERROR_INVALID_ARGUMENT);
        CHECK(error_has("softness"));
    }
    d.softness = 0;

    oak_destroy_material(m);
    CHECK(oak_material_get(m) == NULL);
    CHECK(oak_material_update(m, &d) == OAK_ERROR_NOT_FOUND);
}

TEST(shutdownFreesAssetsAndRegistryRestarts) {
    oak_mesh mesh;
    oak_texture tex;
    oak_material mat;
    oak_shape_desc s = {.type = OAK_SHAPE_SPHERE};
    CHECK_OK(oak_make_shape(&mesh, &s));
    CHECK_OK(oak_load_texture(&tex, "oak://white", 0));
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.name = "left for shutdown";
    CHECK_OK(oak_make_material(&mat, &d));
    uint32_t v = oak_mesh_get(mesh)->version;
    oak_shutdown(); /* LSan fails the test if anything above leaks */
    CHECK(oak_mesh_get(mesh) == NULL);
    CHECK_EQ_INT(oak_mesh_slots(), 0);
    oak_test_init(0);
    CHECK(oak_mesh_get(mesh) == NULL);
    oak_mesh again;
    CHECK_OK(oak_make_shape(&again, &s));
    CHECK(oak_mesh_get(again) != NULL);
    CHECK(oak_mesh_get(again)->version > v); /* versions never repeat */
    oak_texture t2;
    CHECK_OK(oak_load_texture(&t2, "oak://white", 0));
    CHECK(oak_texture_get(t2) != NULL);
}

int main(void) {
    oak_test_init(0);
    RUN(materialDefaultsAreGltfs);
    RUN(materialCopiesNameAndChecksTextures);
    RUN(shutdownFreesAssetsAndRegistryRestarts);
    oak_shutdown();
    return TEST_SUMMARY();
}
