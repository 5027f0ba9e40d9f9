/* OBJ/MTL loading: counts, positions and UVs of known files, negative
 * indices and every face-corner form, vertex deduplication, MTL values read
 * back, missing MTL and texture files as warnings, and each hand-broken file
 * failing with a one-line message naming file:line and the problem. */
#include "oak_test.h"

static int g_warnings;
static char g_last_warning[512];

static void capture(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (level == OAK_LOG_WARN) {
        g_warnings++;
        snprintf(g_last_warning, sizeof g_last_warning, "%s", msg);
        fprintf(stderr, "warning: %s\n", msg);
    }
    if (level == OAK_LOG_ERROR) fprintf(stderr, "error: %s\n", msg);
}

static bool error_has(const char *needle) {
    return strstr(oak_last_error(), needle) != NULL;
}

static uint32_t live_meshes(void) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < oak_mesh_slots(); i++) n += oak_mesh_at_slot(i).id != 0;
    return n;
}

static const float *pos(const oak_mesh_data *m, uint32_t i) {
    return m->positions + 3 * i;
}

TEST(objQuadAndTriangleGiveExpectedCounts) {
    g_warnings = 0;
    oak_model model;
    CHECK_OK(oak_load_obj(&model, "tests/data/obj/quad_tri.obj"));
    CHECK_EQ_INT(model.mesh_count, 2);
    CHECK_EQ_INT(model.material_count, 3);
    if (model.mesh_count != 2) return;
    const oak_mesh_data *quad = oak_mesh_get(model.meshes[0]);
    const oak_mesh_data *tri = oak_mesh_get(model.meshes[1]);
    CHECK_EQ_INT(quad->vertex_count, 4);
    CHECK_EQ_INT(quad->index_count, 6);
    CHECK_EQ_INT(tri->vertex_count, 3);
    CHECK_EQ_INT(tri->index_count, 3);
    CHECK(strcmp(quad->name, "quad") == 0 && strcmp(tri->name, "tri") == 0);
    /* the quad's fan (0 1 2)(0 2 3) over its corners in file order */
    const uint32_t want_idx[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(quad->indices[i], want_idx[i]);
    const float want_pos[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    for (int v = 0; v < 4; v++)
        for (int k = 0; k < 3; k++) CHECK_NEAR(pos(quad, v)[k], want_pos[v][k], 0);
    CHECK_NEAR(pos(tri, 1)[0], 2, 0);
    /* OBJ's v runs up the image; oak's runs down: vt (1 1) -> (1 0) */
    CHECK_NEAR(quad->uv0[2 * 2], 1, 0);
    CHECK_NEAR(quad->uv0[2 * 2 + 1], 0, 0);
    CHECK_NEAR(quad->uv0[1], 1, 0);
    for (int v = 0; v < 4; v++) CHECK_NEAR(quad->normals[3 * v + 2], 1, 0);
    /* tangent along +u = +X; bitangent cross(n,t)*w = +Y = towards -v */
    CHECK_NEAR(quad->tangents[0], 1, 1e-6);
    CHECK_NEAR(quad->tangents[3], 1, 0);
    CHECK(strcmp(quad->source_path, "tests/data/obj/quad_tri.obj") == 0);
    CHECK_EQ_INT(tri->source_index, 1);
    CHECK_NEAR(model.bounds.min[0], 0, 0);
    CHECK_NEAR(model.bounds.max[0], 2, 0);
    CHECK_NEAR(model.bounds.max[1], 1, 0);
    /* warnings: the second MTL and glow's emission map are missing */
    CHECK_EQ_INT(g_warnings, 2);
    oak_model_release(&model);
    CHECK(model.meshes == NULL && model.mesh_count == 0);
}

TEST(mtlValuesReadBack) {
    g_warnings = 0;
    oak_model model;
    CHECK_OK(oak_load_obj(&model, "tests/data/obj/quad_tri.obj"));
    if (model.material_count != 3) {
        CHECK_EQ_INT(model.material_count, 3);
        return;
    }
    CHECK_EQ_INT(model.mesh_materials[0].id, model.materials[0].id);
    CHECK_EQ_INT(model.mesh_materials[1].id, model.materials[1].id);
    const oak_material_desc *red = &oak_material_get(model.materials[0])->desc;
    CHECK(strcmp(red->name, "red") == 0);
    CHECK_NEAR(red->base_color[0], 0.8, 1e-6);
    CHECK_NEAR(red->base_color[1], 0.1, 1e-6);
    CHECK_NEAR(red->base_color[2], 0.2, 1e-6);
    CHECK_NEAR(red->base_color[3], 1, 0);
    CHECK_NEAR(red->metallic, 0.25, 1e-6);
    CHECK_NEAR(red->roughness, 0.3, 1e-6); /* Pr wins over Ns */
    CHECK(red->alpha_mode == OAK_ALPHA_OPAQUE);
    const oak_texture_data *kd = oak_texture_get(red->base_color_tex.texture);
    CHECK(kd != NULL);
    if (kd) {
        CHECK(strcmp(kd->name, "tests/data/obj/tex/checker.png") == 0); /* relative to the MTL */
        CHECK(kd->format == OAK_FORMAT_RGBA8_SRGB);
        const uint8_t *p = kd->mips[0];
        CHECK_EQ_INT(p[0], 255);
        CHECK_EQ_INT(p[5], 255);
        CHECK_EQ_INT(p[15], 128);
    }

    const oak_material_desc *glow = &oak_material_get(model.materials[1])->desc;
    CHECK_NEAR(glow->base_color[0], 0.5, 0); /* "Kd 0.5" is grey */
    CHECK_NEAR(glow->base_color[2], 0.5, 0);
    CHECK_NEAR(glow->base_color[3], 0.75, 1e-6); /* Tr 0.25 */
    CHECK(glow->alpha_mode == OAK_ALPHA_BLEND);
    CHECK_NEAR(glow->emissive[0], 1, 0);
    CHECK_NEAR(glow->emissive[1], 0.5, 0);
    CHECK_NEAR(glow->emissive[2], 0.25, 0);
    CHECK_EQ_INT(glow->emissive_tex.texture.id, 0); /* missing: left out */
    CHECK_NEAR(glow->metallic, 0, 0);
    CHECK_NEAR(glow->roughness, 1, 1e-6);   /* Ns 0: sqrt(sqrt(2 / 2)) */
    CHECK_NEAR(glow->normal_scale, 0.5, 0); /* -bm 0.5 */
    const oak_texture_data *nt = oak_texture_get(glow->normal_tex.texture);
    CHECK(nt && nt->format == OAK_FORMAT_RGBA8);

    /* leaf: map_d becomes base colour alpha, map_Pr and map_Pm pack into
       one texture as glTF does (roughness G, metallic B) */
    const oak_material_desc *leaf = &oak_material_get(model.materials[2])->desc;
    CHECK(leaf->alpha_mode == OAK_ALPHA_MASK);
    const oak_texture_data *bc = oak_texture_get(leaf->base_color_tex.texture);
    CHECK(bc != NULL);
    if (bc) {
        const uint8_t *p = bc->mips[0];
        CHECK_EQ_INT(p[0], 255); /* red from the checker */
        CHECK_EQ_INT(p[3], 10);  /* alpha from alpha.png */
        CHECK_EQ_INT(p[4 * 3 + 3], 160);
    }
    const oak_texture_data *mr = oak_texture_get(leaf->metallic_roughness_tex.texture);
    CHECK(mr != NULL);
    if (mr) {
        const uint8_t *p = mr->mips[0];
        CHECK_EQ_INT(p[1], 10);  /* roughness */
        CHECK_EQ_INT(p[2], 255); /* metallic: checker red */
        CHECK_EQ_INT(p[4 + 1], 60);
        CHECK_EQ_INT(p[4 + 2], 0);
    }
    CHECK_NEAR(leaf->roughness, 1, 0);
    CHECK_NEAR(leaf->metallic, 1, 0);
    oak_model_release(&model);
}

TEST(objNegativeIndicesAndCornerForms) {
    g_warnings = 0;
    oak_model model;
    CHECK_OK(oak_load_obj(&model, "tests/data/obj/negative.obj"));
    CHECK_EQ_INT(model.mesh_count, 2);
    CHECK_EQ_INT(model.material_count, 1); /* the default, shared */
    CHECK_EQ_INT(g_warnings, 0);
    if (model.mesh_count != 2) return;
    CHECK_EQ_INT(model.mesh_materials[0].id, model.mesh_materials[1].id);
    const oak_material_desc *def = &oak_material_get(model.materials[0])->desc;
    CHECK_NEAR(def->base_color[0], 1, 0);
    CHECK_NEAR(def->metallic, 0, 0);
    const oak_mesh_data *t = oak_mesh_get(model.meshes[0]);
    CHECK_EQ_INT(t->vertex_count, 3);
    CHECK_NEAR(pos(t, 1)[0], 1, 0);
    CHECK_NEAR(pos(t, 2)[1], 1, 0);
    const oak_mesh_data *p = oak_mesh_get(model.meshes[1]);
    CHECK(strcmp(p->name, "penta") == 0);
    CHECK_EQ_INT(p->vertex_count, 5);
    CHECK_EQ_INT(p->index_count, 9);
    CHECK_NEAR(pos(p, 0)[0], 5, 0);
    CHECK_NEAR(pos(p, 3)[0], 5.5, 0);
    CHECK_NEAR(pos(p, 3)[1], 1.5, 0);
    CHECK_NEAR(p->uv0[2 * 1], 1, 0); /* vt -1 = (1 1) -> (1 0) */
    CHECK_NEAR(p->uv0[2 * 1 + 1], 0, 0);
    for (uint32_t v = 0; v < 5; v++) CHECK_NEAR(p->normals[3 * v + 2], 1, 1e-6); /* generated */
    const uint32_t fan[9] = {0, 1, 2, 0, 2, 3, 0, 3, 4};
    for (int i = 0; i < 9; i++) CHECK_EQ_INT(p->indices[i], fan[i]);
    oak_model_release(&model);
}

TEST(objDeduplicatesIndexTriples) {
    /* two triangles sharing an edge with identical corners, and a corner at
       a shared position but with another normal, which must stay apart */
    char path[512];
    oak_test_out(path, sizeof path, "dedup.obj");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nvn 0 0 -1\n"
          "f 1//1 2//1 3//1\nf 1//1 3//1 4//1\nf 1//2 3//2 2//2\n",
          f);
    fclose(f);
    oak_model model;
    CHECK_OK(oak_load_obj(&model, path));
    const oak_mesh_data *m = oak_mesh_get(model.meshes[0]);
    CHECK_EQ_INT(m->vertex_count, 7);
    CHECK_EQ_INT(m->index_count, 9);
    CHECK_EQ_INT(m->indices[3], 0);
    CHECK_EQ_INT(m->indices[4], 2);
    oak_model_release(&model);
}

static void expect_failure(const char *file, oak_result code, const char *needle) {
    char path[256];
    snprintf(path, sizeof path, "tests/data/obj/%s", file);
    uint32_t before = live_meshes();
    oak_model model = {.mesh_count = 99};
    oak_result r = oak_load_obj(&model, path);
    if (r != code || !error_has(needle) || !error_has(file) || strchr(oak_last_error(), '\n'))
        fprintf(stderr, "%s: got %s '%s', wanted %s containing '%s'\n", file, oak_result_name(r),
                oak_last_error(), oak_result_name(code), needle);
    CHECK(r == code);
    CHECK(error_has(needle));
    CHECK(error_has(file));
    CHECK(model.mesh_count == 0 && model.meshes == NULL);
    CHECK_EQ_INT(live_meshes(), before);
}

TEST(objBrokenFilesFailNamingFileLineAndProblem) {
    expect_failure("bad_index.obj", OAK_ERROR_PARSE,
                   "bad_index.obj:4: vertex index 4 out of range");
    expect_failure("bad_short_face.obj", OAK_ERROR_PARSE, ":4: face with 2 vertices");
    expect_failure("bad_number.obj", OAK_ERROR_PARSE, ":2: bad number '0x' in v");
    expect_failure("bad_negative.obj", OAK_ERROR_PARSE, ":3: vertex index -3 out of range");
    expect_failure("bad_texcoord.obj", OAK_ERROR_PARSE, ":5: texcoord index 2 out of range");
    expect_failure("bad_short_vertex.obj", OAK_ERROR_PARSE, ":2: v needs 3 numbers, got 2");
    expect_failure("bad_zero_index.obj", OAK_ERROR_PARSE, ":4: vertex index 0 out of range");
    expect_failure("bad_nan.obj", OAK_ERROR_PARSE, ":2: bad number 'nan'");
    expect_failure("bad_no_faces.obj", OAK_ERROR_PARSE, "no faces");
    expect_failure("no_such_file.obj", OAK_ERROR_IO, "cannot open");
    /* a malformed MTL is an error too, naming the MTL's line */
    uint32_t before = live_meshes();
    oak_model model;
    CHECK(oak_load_obj(&model, "tests/data/obj/bad_mtl_ref.obj") == OAK_ERROR_PARSE);
    CHECK(error_has("bad_mtl.mtl:2: bad number 'zero' in Kd"));
    CHECK_EQ_INT(live_meshes(), before);
}

int main(void) {
    oak_engine_desc d = {.log = capture, .log_level = OAK_LOG_WARN};
    if (oak_init(&d) != OAK_OK) return 2;
    RUN(objQuadAndTriangleGiveExpectedCounts);
    RUN(mtlValuesReadBack);
    RUN(objNegativeIndicesAndCornerForms);
    RUN(objDeduplicatesIndexTriples);
    RUN(objBrokenFilesFailNamingFileLineAndProblem);
    oak_shutdown();
    return TEST_SUMMARY();
}
