/* Scene files: save -> load -> save gives the same bytes; what comes back has
 * the same transforms, materials, recipes, lights, probes and settings;
 * hand-made files load to positions and probe boxes worked out by hand; every
 * tests/data/scene/bad_* file fails with its expected one-line message and
 * leaves no assets behind. */
#include <dirent.h>
#include <unistd.h>

#include "oak_test.h"

#define DATA "tests/data/scene/"

/* Scenes saved to OAK_TEST_OUT name assets in tests/data: outside their
   folder, so their loads name the project root (the tests' working folder)
   as the asset root. */
static const oak_scene_load_desc from_out = {.asset_root = "."};

static char *slurp(const char *path, size_t *size) {
    void *data = NULL;
    if (oak_read_file(path, &data, size)) return NULL;
    return data;
}

static uint32_t live_meshes(void) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < oak_mesh_slots(); i++) n += oak_mesh_at_slot(i).id != 0;
    return n;
}

static bool same_file(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    char *da = slurp(a, &na), *db = slurp(b, &nb);
    bool same = da && db && na == nb && !memcmp(da, db, na);
    oak_free(da);
    oak_free(db);
    return same;
}

static const oak_mesh_renderer *renderer_of(oak_scene *s, const char *name) {
    return oak_scene_get(s, oak_scene_find(s, name), OAK_COMPONENT_MESH_RENDERER);
}

TEST(sceneSaveLoadSaveIsByteIdentical) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_mesh box, ball, land;
    CHECK_OK(oak_make_shape(&box, &(oak_shape_desc){.type = OAK_SHAPE_BOX, .size = {1, 2, 3}}));
    CHECK_OK(oak_make_shape(
        &ball,
        &(oak_shape_desc){
            .type = OAK_SHAPE_SPHERE, .radius = 0.3f, .segments = 10, .rings = 5, .uv_scale = 2}));
    CHECK_OK(oak_make_shape(&land, &(oak_shape_desc){.type = OAK_SHAPE_HEIGHTFIELD,
                                                     .size = {50, 0, 50},
                                                     .segments = 16,
                                                     .seed = 7,
                                                     .octaves = 3,
                                                     .frequency = 0.05f,
                                                     .amplitude = 4,
                                                     .lacunarity = 2.1f,
                                                     .gain = 0.45f}));
    oak_texture pattern, checker;
    CHECK_OK(oak_load_texture(&pattern, DATA "tile.png", OAK_FORMAT_RGBA8_SRGB));
    CHECK_OK(oak_load_texture(&checker, "oak://checker", OAK_FORMAT_RGBA8));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    const float base[4] = {0.1f, 0.2f, 0.3f, 0.9f}, emissive[3] = {1 / 3.0f, 0.5f, 1e-7f};
    memcpy(md.base_color, base, sizeof base);
    memcpy(md.emissive, emissive, sizeof emissive);
    md.metallic = 0.7f, md.roughness = 0.123456789f, md.emissive_strength = 2.5f;
    md.normal_scale = 0.8f, md.occlusion_strength = 0.6f;
    md.alpha_mode = OAK_ALPHA_BLEND, md.alpha_cutoff = 0.25f, md.double_sided = true;
    md.additive = true, md.softness = 0.375f;
    md.base_color_tex = (oak_texture_ref){pattern,
                                          {OAK_WRAP_CLAMP, OAK_WRAP_MIRROR, OAK_FILTER_NEAREST,
                                           OAK_FILTER_LINEAR, OAK_FILTER_NEAREST},
                                          1,
                                          {0.1f, 0.2f},
                                          0.3f,
                                          {2, 4}};
    md.normal_tex.texture = checker;
    md.fx = (oak_material_fx){.triplanar = 3.5f,
                              .breakup = 1.25f,
                              .breakup_rotation = 0.7f,
                              .variation = 0.2f,
                              .variation_scale = 12,
                              .detail = 5,
                              .detail_distance = 30};
    md.lobes = (oak_material_lobes){.ior = 1.45f,
                                    .specular = true,
                                    .specular_factor = 0.75f,
                                    .specular_color = {1, 0.5f, 0.25f},
                                    .clearcoat = 0.5f,
                                    .clearcoat_roughness = 0.125f,
                                    .clearcoat_normal_scale = 0.625f,
                                    .sheen_color = {0.2f, 0.3f, 0.4f},
                                    .anisotropy = 0.625f,
                                    .anisotropy_rotation = -1.5f,
                                    .iridescence = 0.875f,
                                    .iridescence_ior = 1.25f,
                                    .iridescence_thickness = 350,
                                    .diffuse_transmission = 0.375f,
                                    .diffuse_transmission_color = {0.5f, 1, 0.25f},
                                    .sheen_roughness = 0.6f,
                                    .iridescence_thickness_min = 120,
                                    .transmission = 0.8125f,
                                    .thickness = 0.25f,
                                    .attenuation_color = {0.9f, 0.5f, 0.125f},
                                    .attenuation_distance = 3,
                                    .dispersion = 0.5f};
    /* three lobe textures on one ref (one slot), a fourth on its own */
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT] = md.base_color_tex;
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS] = md.base_color_tex;
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT_NORMAL] = md.base_color_tex;
    md.lobes.tex[OAK_LOBE_TEX_THICKNESS] = (oak_texture_ref){.texture = checker, .uv_set = 0};
    md.name = "painted";
    oak_material painted, plain;
    CHECK_OK(oak_make_material(&painted, &md));
    CHECK_OK(oak_make_material(&plain, &(oak_material_desc){.name = "plain"}));

    oak_entity root = oak_scene_create(s, "root");
    oak_transform rt = {{0.1f, 1e-7f, -3.33333f}, {0, 0, 0, 1}, {1, 2.5f, 0.3f}};
    glm_quatv(rt.rotation, 0.7f, (vec3){0.267f, 0.535f, 0.802f});
    oak_scene_set_transform(s, root, &rt);
    oak_entity gone = oak_scene_create(s, "gone"); /* leaves a hole in the slots */
    oak_entity a = oak_scene_create(s, "a"), b = oak_scene_create(s, NULL);
    oak_entity c = oak_scene_create(s, "c");
    oak_scene_destroy_entity(s, gone);
    CHECK_OK(oak_scene_set_parent(s, a, root));
    CHECK_OK(oak_scene_set_parent(s, c, a));
    CHECK_OK(oak_scene_set_parent(s, b, root));
    oak_scene_set_mesh_renderer(s, a, &(oak_mesh_renderer){box, painted, OAK_DRAW_NO_SHADOW});
    oak_scene_set_mesh_renderer(s, b, &(oak_mesh_renderer){ball, plain, 0});
    oak_scene_set_mesh_renderer(s, c, &(oak_mesh_renderer){land, painted, OAK_DRAW_NO_RECEIVE});
    oak_scene_remove(s, b, OAK_COMPONENT_TRANSFORM);
    oak_entity cam = oak_scene_create(s, "cam"), cam2 = oak_scene_create(s, "cam2");
    oak_scene_set_camera(s, cam, &(oak_camera){0.8f, 0.05f, 500, 0, 1.777f});
    oak_scene_set_camera(s, cam2, &(oak_camera){.ortho_height = 20});
    oak_scene_set_active_camera(s, cam2);
    oak_transform ct = oak_transform_look_at((float[3]){3, 4, 5}, (float[3]){0, 0.5f, 0});
    oak_scene_set_transform(s, cam, &ct);
    oak_entity spot = oak_scene_create(s, "spot");
    oak_light sl = oak_light_defaults(OAK_LIGHT_SPOT);
    sl.color[1] = 0.25f, sl.intensity = 40, sl.range = 12, sl.inner_cone = 0.2f;
    sl.outer_cone = 0.6f, sl.cast_shadows = true;
    oak_scene_set_light(s, spot, &sl);
    CHECK_OK(oak_scene_set_parent(s, spot, c));
    /* a probe under the rotated, scaled chain root -> a -> c, and one bare */
    oak_scene_probe sp = {{-1, -0.5f, -2}, {3, 0.25f, 1 / 3.0f}, 0.3f};
    oak_scene_set_probe(s, c, &sp);
    oak_scene_set_probe(s, cam2, &(oak_scene_probe){{-0.0f, -1, -2}, {1e-3f, 0, 0.5f}, 0});
    oak_environment *env = oak_scene_environment(s);
    env->fog_density = 0.01f, env->sky_zenith_display[2] = 0.99f, env->ambient_ground[0] = 0.05f;
    env->sun_disc = 0.0047f; /* a hand-set disc is kept (a timed scene's comes from the hour) */
    env->clouds = (oak_clouds){0.45f, 0.7f, 0.03f, 1200, 3600, {4, -1.5f}, 12.5f, 0.4f};
    /* aerial perspective set by hand (no time of day here) is kept */
    env->aerial_lux = 98304.5f;
    env->aerial_dir[0] = 0.6f, env->aerial_dir[1] = 0.8f, env->aerial_dir[2] = 0;
    env->fog = (oak_fog){.density = 0.02f,
                         .base_height = -3,
                         .falloff = 0.05f,
                         .albedo = {0.9f, 0.8f, 0.7f},
                         .anisotropy = 0.4f,
                         .far = 200,
                         .volume_count = 2};
    env->fog.volumes[0] =
        (oak_fog_volume){OAK_FOG_SHAPE_BOX, {1, 2, -3}, {4, 0.5f, 6}, 0.25f, {0.5f, 0.5f, 0.5f}};
    env->fog.volumes[1] =
        (oak_fog_volume){OAK_FOG_SHAPE_ELLIPSOID, {-1, 0, 7}, {2, 3, 1}, 1.5f, {1, 0, 0.25f}};
    CHECK_OK(
        oak_load_texture(&env->sky_image, "tests/data/images/rle40x6.hdr", OAK_FORMAT_RGBA32F));
    oak_scene_post(s)->exposure = 0.75f;
    oak_scene_post(s)->no_dither = true;
    /* the physical camera: EV100 0 is a setting, so it must come back as set */
    oak_scene_post(s)->ev100_set = true;
    oak_scene_post(s)->aperture = 2.8f, oak_scene_post(s)->exposure_comp = -0.5f;
    oak_scene_post(s)->tone = OAK_TONE_NEUTRAL;
    oak_scene_post(s)->adapt = true;
    oak_scene_post(s)->bloom = OAK_BLOOM_ON, oak_scene_post(s)->bloom_strength = 0.25f;
    oak_scene_post(s)->focus_distance = 7.5f;
    oak_scene_post(s)->taa = OAK_TAA_ON;
    oak_scene_post(s)->taa_sharpen = 0.375f;
    oak_scene_post(s)->preset = OAK_PRESET_MEDIUM;
    oak_scene_post(s)->shadow_filter = 3;
    oak_scene_post(s)->render_scale = 0.5f;

    char p1[512], p2[512];
    oak_test_out(p1, sizeof p1, "scene_rt1.json");
    oak_test_out(p2, sizeof p2, "scene_rt2.json");
    CHECK_OK(oak_scene_save(s, p1));
    oak_scene *t = NULL;
    CHECK_OK(oak_scene_load_with(&t, p1, &from_out));
    if (!t) {
        oak_destroy_scene(s);
        return;
    }
    CHECK_OK(oak_scene_save(t, p2));
    CHECK(same_file(p1, p2));

    CHECK_EQ_INT(oak_scene_entity_count(t), oak_scene_entity_count(s));
    CHECK(oak_scene_post(t)->ev100_set && oak_scene_post(t)->ev100 == 0);
    CHECK_NEAR(oak_scene_post(t)->aperture, 2.8f, 0);
    CHECK_NEAR(oak_scene_post(t)->exposure_comp, -0.5f, 0);
    CHECK(oak_scene_post(t)->adapt);
    CHECK_EQ_INT(oak_scene_post(t)->bloom, OAK_BLOOM_ON);
    CHECK_NEAR(oak_scene_post(t)->bloom_strength, 0.25f, 0);
    CHECK_EQ_INT(oak_scene_post(t)->taa, OAK_TAA_ON);
    CHECK_NEAR(oak_scene_post(t)->taa_sharpen, 0.375f, 0);
    CHECK_EQ_INT(oak_scene_post(t)->preset, OAK_PRESET_MEDIUM);
    CHECK_EQ_INT(oak_scene_post(t)->shadow_filter, 3);
    CHECK_NEAR(oak_scene_post(t)->render_scale, 0.5f, 0);
    CHECK_EQ_INT(oak_scene_post(t)->tone, OAK_TONE_NEUTRAL);
    CHECK(!memcmp(&oak_scene_environment(t)->clouds, &env->clouds, sizeof env->clouds));
    CHECK(!memcmp(&oak_scene_environment(t)->fog, &env->fog, sizeof env->fog));
    CHECK(oak_scene_environment(t)->aerial_lux == env->aerial_lux);
    CHECK(!memcmp(oak_scene_environment(t)->aerial_dir, env->aerial_dir, sizeof env->aerial_dir));
    CHECK(!memcmp(oak_scene_transform(t, oak_scene_find(t, "root")), &rt, sizeof rt));
    CHECK(!memcmp(oak_scene_transform(t, oak_scene_find(t, "cam")), &ct, sizeof ct));
    oak_entity tb = oak_scene_parent(t, oak_scene_find(t, "root")); /* none */
    CHECK_EQ_INT(tb.id, 0);
    CHECK(!strcmp(oak_scene_name(t, oak_scene_parent(t, oak_scene_find(t, "c"))), "a"));
    CHECK(!strcmp(oak_scene_name(t, oak_scene_parent(t, oak_scene_find(t, "spot"))), "c"));
    CHECK_EQ_INT(oak_scene_active_camera(t).id, oak_scene_find(t, "cam2").id);
    /* The unnamed entity kept no transform, its renderer and its parent. */
    oak_column mrs = oak_scene_column(t, OAK_COMPONENT_MESH_RENDERER);
    CHECK_EQ_INT(mrs.count, 3);
    uint32_t untransformed = 0;
    for (uint32_t i = 0; i < mrs.count; i++)
        if (!oak_scene_transform(t, mrs.entities[i])) {
            untransformed++;
            CHECK(!strcmp(oak_scene_name(t, mrs.entities[i]), ""));
            CHECK(!strcmp(oak_scene_name(t, oak_scene_parent(t, mrs.entities[i])), "root"));
        }
    CHECK_EQ_INT(untransformed, 1);

    const oak_mesh_renderer *ra = renderer_of(t, "a"), *rc = renderer_of(t, "c");
    CHECK(ra && rc);
    if (ra && rc) {
        CHECK_EQ_INT(ra->flags, OAK_DRAW_NO_SHADOW);
        CHECK_EQ_INT(rc->flags, OAK_DRAW_NO_RECEIVE);
        CHECK_EQ_INT(ra->material.id, rc->material.id); /* one material, shared */
        const oak_material_desc *d0 = &oak_material_get(painted)->desc;
        const oak_material_desc *d1 = &oak_material_get(ra->material)->desc;
        CHECK(!memcmp(d0->base_color, d1->base_color, sizeof d0->base_color));
        CHECK(!memcmp(d0->emissive, d1->emissive, sizeof d0->emissive));
        CHECK(d0->metallic == d1->metallic && d0->roughness == d1->roughness);
        CHECK(d0->emissive_strength == d1->emissive_strength);
        CHECK(d0->normal_scale == d1->normal_scale);
        CHECK(d0->occlusion_strength == d1->occlusion_strength);
        CHECK_EQ_INT(d1->alpha_mode, OAK_ALPHA_BLEND);
        CHECK(d0->alpha_cutoff == d1->alpha_cutoff && d1->double_sided && !d1->unlit);
        CHECK(d1->additive && d1->softness == 0.375f);
        CHECK(!memcmp(&d0->fx, &d1->fx, sizeof d0->fx)); /* the tricks, sharpness resolved to 4 */
        CHECK(d1->fx.triplanar_sharpness == 4);
        const oak_material_lobes *l0 = &d0->lobes, *l1 = &d1->lobes; /* the lobes, as given */
        CHECK(l0->ior == l1->ior && l1->specular && l0->specular_factor == l1->specular_factor);
        CHECK(!memcmp(l0->specular_color, l1->specular_color, sizeof l0->specular_color));
        CHECK(l0->clearcoat == l1->clearcoat && l0->clearcoat_roughness == l1->clearcoat_roughness);
        CHECK(l1->clearcoat_normal_scale == 0.625f);
        CHECK(!memcmp(l0->sheen_color, l1->sheen_color, sizeof l0->sheen_color));
        CHECK(l0->sheen_roughness == l1->sheen_roughness);
        CHECK(l0->anisotropy == l1->anisotropy &&
              l0->anisotropy_rotation == l1->anisotropy_rotation);
        CHECK(l0->iridescence == l1->iridescence && l0->iridescence_ior == l1->iridescence_ior &&
              l0->iridescence_thickness == l1->iridescence_thickness);
        CHECK(l0->diffuse_transmission == l1->diffuse_transmission &&
              !memcmp(l0->diffuse_transmission_color, l1->diffuse_transmission_color,
                      sizeof l0->diffuse_transmission_color));
        CHECK(l1->iridescence_thickness_min == 120 && l1->transmission == 0.8125f);
        CHECK(l1->thickness == 0.25f && l1->attenuation_distance == 3 && l1->dispersion == 0.5f);
        CHECK(!memcmp(l0->attenuation_color, l1->attenuation_color, sizeof l0->attenuation_color));
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) { /* each lobe texture, as given */
            const oak_texture_ref *a = &l0->tex[k], *b = &l1->tex[k];
            bool given = k == OAK_LOBE_TEX_CLEARCOAT || k == OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS ||
                         k == OAK_LOBE_TEX_CLEARCOAT_NORMAL || k == OAK_LOBE_TEX_THICKNESS;
            CHECK_EQ_INT(b->texture.id != 0, given);
            if (!given) continue;
            const oak_texture_data *ta = oak_texture_get(a->texture),
                                   *tb = oak_texture_get(b->texture);
            CHECK(ta && tb && ta->width == tb->width && ta->format == tb->format);
            CHECK(!memcmp(&a->sampler, &b->sampler, sizeof a->sampler) && a->uv_set == b->uv_set);
            CHECK(!memcmp(a->offset, b->offset, 8) && !memcmp(a->scale, b->scale, 8) &&
                  a->rotation == b->rotation);
        }
        CHECK_EQ_INT(l1->tex[OAK_LOBE_TEX_THICKNESS].texture.id, checker.id);
        CHECK(
            !memcmp(&d0->base_color_tex.sampler, &d1->base_color_tex.sampler, sizeof(oak_sampler)));
        CHECK_EQ_INT(d1->base_color_tex.uv_set, 1);
        CHECK(!memcmp(d0->base_color_tex.offset, d1->base_color_tex.offset, 8));
        CHECK(!memcmp(d0->base_color_tex.scale, d1->base_color_tex.scale, 8));
        CHECK(d0->base_color_tex.rotation == d1->base_color_tex.rotation);
        const oak_texture_data *td = oak_texture_get(d1->base_color_tex.texture);
        CHECK(td && td->width == 4 && td->height == 4 && td->format == OAK_FORMAT_RGBA8_SRGB);
        CHECK_EQ_INT(d1->normal_tex.texture.id, checker.id); /* oak:// names are shared */
        CHECK(!strcmp(oak_material_get(ra->material)->name, "painted"));
        const oak_mesh_data *m0 = oak_mesh_get(land), *m1 = oak_mesh_get(rc->mesh);
        CHECK(m1 && m1->has_recipe && !memcmp(&m0->recipe, &m1->recipe, sizeof m0->recipe));
        CHECK(m1 && m0->vertex_count == m1->vertex_count && m0->index_count == m1->index_count);
    }
    const oak_light *tl = oak_scene_get(t, oak_scene_find(t, "spot"), OAK_COMPONENT_LIGHT);
    CHECK(tl && tl->type == OAK_LIGHT_SPOT && !memcmp(tl->color, sl.color, sizeof sl.color));
    CHECK(tl && tl->intensity == 40 && tl->range == 12 && tl->cast_shadows);
    CHECK(tl && tl->inner_cone == 0.2f && tl->outer_cone == 0.6f);
    const oak_scene_probe *tp =
        oak_scene_get(t, oak_scene_find(t, "c"), OAK_COMPONENT_REFLECTION_PROBE);
    CHECK(tp && !memcmp(tp, &sp, sizeof sp)); /* bit for bit, 1/3 included */
    CHECK_EQ_INT(oak_scene_column(t, OAK_COMPONENT_REFLECTION_PROBE).count, 2);
    const oak_camera *tc = oak_scene_get(t, oak_scene_find(t, "cam"), OAK_COMPONENT_CAMERA);
    CHECK(tc && tc->fov_y == 0.8f && tc->znear == 0.05f && tc->zfar == 500 && tc->aspect == 1.777f);
    /* the sky image comes back as the same file (its handle may differ: the
       loader names it by its resolved path) */
    oak_environment te = *oak_scene_environment(t), se = *env;
    const oak_texture_data *sky = oak_texture_get(te.sky_image);
    CHECK(sky && sky->width == 40 && sky->height == 6 && sky->format == OAK_FORMAT_RGBA32F);
    te.sky_image.id = se.sky_image.id = 0;
    CHECK(!memcmp(&te, &se, sizeof te));
    CHECK(!memcmp(oak_scene_post(t), oak_scene_post(s), sizeof(oak_post)));
    oak_destroy_scene(t);
    oak_destroy_scene(s);
}

/* good.json: base at (1,0,0) scaled 2; ball 1 up in base's space -> (1,2,0);
 * tri 1 along -Z in ball's space (still scaled 2) -> (1,2,-2); the lamp sits
 * at base's origin; the sun turned -60 degrees about X shines along
 * (0, -sin 60, -cos 60). */
TEST(sceneLoadsHandWrittenFile) {
    oak_scene *s = NULL;
    CHECK_OK(oak_scene_load(&s, DATA "good.json"));
    if (!s) return;
    CHECK_EQ_INT(oak_scene_entity_count(s), 6);
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(s, &in));
    mat4 m;
    oak_scene_world_matrix(s, oak_scene_find(s, "tri"), m);
    CHECK_NEAR(m[3][0], 1, 1e-6);
    CHECK_NEAR(m[3][1], 2, 1e-6);
    CHECK_NEAR(m[3][2], -2, 1e-6);
    CHECK_EQ_INT(in.draw_count, 3);
    CHECK_NEAR(in.camera.fov_y, 0.9f, 0);
    CHECK_NEAR(in.camera_world[3][1], 2, 0);
    CHECK_NEAR(in.camera_world[3][2], 10, 0);
    CHECK_EQ_INT(in.light_count, 2);
    CHECK_EQ_INT(in.lights[0].light.type, OAK_LIGHT_DIRECTIONAL);
    CHECK(in.lights[0].light.cast_shadows);
    CHECK_NEAR(in.lights[0].direction[0], 0, 1e-6);
    CHECK_NEAR(in.lights[0].direction[1], -0.8660254f, 1e-6);
    CHECK_NEAR(in.lights[0].direction[2], -0.5f, 1e-6);
    CHECK_EQ_INT(in.lights[1].light.type, OAK_LIGHT_POINT);
    CHECK_NEAR(in.lights[1].position[0], 1, 0);
    CHECK_NEAR(in.lights[1].light.range, 8, 0);
    CHECK_NEAR(in.lights[1].light.color[2], 0.25f, 0);

    const oak_mesh_renderer *tri = renderer_of(s, "tri"), *ball = renderer_of(s, "ball");
    CHECK(tri && ball);
    if (tri && ball) {
        const oak_mesh_data *md = oak_mesh_get(tri->mesh);
        CHECK(md && md->vertex_count == 3 && md->index_count == 3 && md->source_index == 1);
        md = oak_mesh_get(ball->mesh);
        CHECK(md && md->has_recipe && md->recipe.type == OAK_SHAPE_SPHERE);
        CHECK(md && md->recipe.radius == 0.25f && md->recipe.segments == 12);
        CHECK_EQ_INT(ball->flags, OAK_DRAW_NO_SHADOW);
        const oak_material_desc *d = &oak_material_get(ball->material)->desc;
        CHECK_EQ_INT(d->alpha_mode, OAK_ALPHA_MASK);
        CHECK_NEAR(d->alpha_cutoff, 0.3f, 0);
        CHECK_NEAR(d->metallic, 0.25f, 0);
        CHECK_NEAR(d->base_color[0], 1, 0); /* not in the file: glTF's default */
        CHECK_EQ_INT(d->base_color_tex.sampler.wrap_u, OAK_WRAP_CLAMP);
        CHECK_EQ_INT(d->base_color_tex.sampler.mag, OAK_FILTER_NEAREST);
        CHECK_NEAR(d->base_color_tex.scale[1], 3, 0);
        CHECK_EQ_INT(d->normal_tex.uv_set, 1);
        const oak_texture_data *td = oak_texture_get(d->base_color_tex.texture);
        CHECK(td && td->width == 4 && td->height == 4);
    }
    oak_environment def = oak_environment_defaults();
    CHECK_NEAR(oak_scene_environment(s)->fog_density, 0.002f, 0);
    CHECK_NEAR(oak_scene_environment(s)->ambient_sky[2], 0.7f, 0);
    CHECK(!memcmp(oak_scene_environment(s)->sky_zenith_display, def.sky_zenith_display, 12));
    CHECK_NEAR(oak_scene_post(s)->exposure, 1.5f, 0);
    CHECK(oak_scene_post(s)->no_fxaa && !oak_scene_post(s)->no_dither);

    /* Saved elsewhere, its paths still find the OBJ and the PNG; twice gives the same. */
    char p1[512], p2[512];
    oak_test_out(p1, sizeof p1, "scene_good1.json");
    oak_test_out(p2, sizeof p2, "scene_good2.json");
    CHECK_OK(oak_scene_save(s, p1));
    oak_scene *t = NULL;
    CHECK_OK(oak_scene_load_with(&t, p1, &from_out));
    if (t) {
        CHECK_OK(oak_scene_save(t, p2));
        CHECK(same_file(p1, p2));
        oak_destroy_scene(t);
    }
    oak_destroy_scene(s);
}

/* probes.json: hall at (10,0,-4) turned +90 degrees about Y (local x -> -z,
 * z -> x) and scaled 2; its child probe at local (1,1.5,0) sits at
 * (10,3,-6), its box offsets stay world-aligned and unscaled: (6,0,-8) ..
 * (14,5.5,0), margin 0.5. "corner" has no transform key, so it sits at the
 * hall's origin: (10,-1,-4) .. (11,0,-3), margin 0 (left out). */
TEST(sceneLoadsProbesToWorldBoxes) {
    oak_scene *s = NULL;
    CHECK_OK(oak_scene_load(&s, DATA "probes.json"));
    if (!s) return;
    oak_entity cam = oak_scene_create(s, "cam"); /* the gather needs a camera */
    oak_scene_set_camera(s, cam, &(oak_camera){0});
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(s, &in));
    CHECK_EQ_INT(in.probe_count, 2);
    static const float want[2][10] = {{10, 3, -6, 6, 0, -8, 14, 5.5f, 0, 0.5f},
                                      {10, 0, -4, 10, -1, -4, 11, 0, -3, 0}};
    for (uint32_t i = 0; i < in.probe_count && i < 2; i++) {
        const oak_reflection_probe *p = &in.probes[i];
        const float got[10] = {p->position[0], p->position[1], p->position[2], p->box_min[0],
                               p->box_min[1],  p->box_min[2],  p->box_max[0],  p->box_max[1],
                               p->box_max[2],  p->margin};
        for (int k = 0; k < 10; k++) CHECK_NEAR(got[k], want[i][k], 1e-5);
    }
    char p1[512], p2[512];
    oak_test_out(p1, sizeof p1, "scene_probes1.json");
    oak_test_out(p2, sizeof p2, "scene_probes2.json");
    CHECK_OK(oak_scene_save(s, p1));
    oak_scene *t = NULL;
    CHECK_OK(oak_scene_load_with(&t, p1, &from_out));
    if (t) {
        CHECK_OK(oak_scene_save(t, p2));
        CHECK(same_file(p1, p2));
        oak_destroy_scene(t);
    }
    /* what the reader refuses the writer does not write */
    oak_scene_set_probe(s, cam, &(oak_scene_probe){{-1, -1, -1}, {1, -0.5f, 1}, 0});
    CHECK_EQ_INT(oak_scene_save(s, p1), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "entities[3].reflection_probe: box_max[1] = -0.5 is below 0"));
    oak_destroy_scene(s);
}

static const struct {
    const char *file, *message;
} bad_files[] = {
    {"bad_syntax.json", "bad_syntax.json:3:"},
    {"bad_version.json", "oak_scene: version 2 is not supported"},
    {"bad_no_version.json", "oak_scene: missing"},
    {"bad_root_array.json", "(root): expected an object"},
    {"bad_position.json", "entities[1].transform.position: expected 3 numbers"},
    {"bad_unknown_field.json", "entities[0].colour: unknown field"},
    {"bad_unknown_top.json", "entitys: unknown field"},
    {"bad_parent_range.json", "entities[1].parent: 7 is out of range [-1, 1]"},
    {"bad_cycle.json", "entities[1].parent: entity 0 would make a cycle"},
    {"bad_mesh_index.json", "entities[0].mesh_renderer.mesh: 3 is out of range [-1, 0]"},
    {"bad_mesh_renderer_no_mesh.json", "entities[0].mesh_renderer.mesh: missing"},
    {"bad_light_type.json", "entities[0].light.type: 'laser' is not one of default, directional"},
    {"bad_material_color.json", "materials[0].base_color: expected 4 numbers"},
    {"bad_material_bool.json", "materials[0].double_sided: expected true or false"},
    {"bad_shape_type.json", "meshes[0].shape.type: 'cube' is not one of"},
    {"bad_shape_segments.json", "meshes[0].shape.segments: -3 is out of range"},
    {"bad_mesh_neither.json", "meshes[0]: expected either \"shape\" or \"source\""},
    {"bad_obj_index.json", "meshes[0].index: 5 is past the 2 meshes of 'models/two_parts.obj'"},
    {"bad_obj_missing.json", "meshes[0].source: could not load 'models/nowhere.obj'"},
    {"bad_texture_missing.json", "materials[0].base_color_tex.path: could not load 'no_such.png'"},
    {"bad_active_camera.json", "active_camera: entity 0 has no camera"},
    {"bad_duplicate_key.json", "post.exposure: appears twice"},
    {"bad_env_type.json", "environment.fog_density: expected a number"},
    {"bad_sky_missing.json", "environment.sky_image: could not load 'no_sky.hdr'"},
    {"bad_tone.json", "post.tone: 'agx' is not one of default, aces, neutral"},
    {"bad_preset.json", "post.preset: 'epic' is not one of default, low, medium, high, ultra"},
    {"bad_bloom_strength.json", "post.bloom_strength: 2 is outside 0 .. 1"},
    {"bad_focus.json", "post.focus_distance: -2 is below 0 (metres; 0: no depth of field)"},
    {"bad_render_scale.json", "post.render_scale: -0.5 is below 0 (a scale in 0.25 .. 1)"},
    {"bad_taa_sharpen.json", "post.taa_sharpen: 1.5 is outside 0 .. 1"},
    {"bad_sun_disc.json", "environment.sun_disc: 0.75 is outside 0 .. 0.5 (radians)"},
    {"bad_clouds.json", "environment.clouds.coverage: 1.5 is outside 0 .. 1"},
    {"bad_cloud_variation.json", "environment.clouds.variation: -0.25 is outside 0 .. 1"},
    {"bad_aerial_lux.json", "environment.aerial_lux: -5 is outside 0 .. 1e+06 (lux)"},
    {"bad_aerial_dir.json",
     "environment.aerial_dir: length 2 is not 1 (a unit vector toward the light)"},
    {"bad_fog_volume.json", "environment.fog.volumes[0]: half_size must be above 0 on each axis"},
    {"bad_fog_shape.json",
     "environment.fog.volumes[0].shape: 'cone' is not one of none, box, ellipsoid"},
    {"bad_late_error.json", "entities[1].camera.fov_y: expected a number"},
    {"bad_probe_box_min.json", "entities[0].reflection_probe: box_min[1] = 0.5 is above 0"},
    {"bad_probe_flat.json",
     "entities[0].reflection_probe: box_min[1] = box_max[1] = 0 (the box is flat)"},
    {"bad_probe_margin.json",
     "entities[0].reflection_probe: margin = -0.25 is not a finite number >= 0"},
    {"bad_probe_no_box.json", "entities[0].reflection_probe.box_max: missing"},
    {"bad_time_hour.json", "time.hour: 30 is out of range [0, 24]"},
    {"bad_weather_surfaces.json", "weather.snow: missing (wetness and snow come together)"},
    {"bad_time_no_hour.json", "time.hour: missing"},
};

TEST(sceneLoadRejectsBrokenFiles) {
    size_t count = sizeof bad_files / sizeof bad_files[0];
    for (size_t i = 0; i < count; i++) {
        char path[256];
        snprintf(path, sizeof path, DATA "%s", bad_files[i].file);
        uint32_t meshes_before = live_meshes();
        oak_scene *s = (oak_scene *)1;
        oak_result r = oak_scene_load(&s, path);
        const char *msg = oak_last_error();
        if (r == OAK_OK || s != NULL || !strstr(msg, bad_files[i].message) || !strstr(msg, path) ||
            strchr(msg, '\n')) {
            fprintf(stderr, "%s: got %s \"%s\", wanted \"%s\"\n", bad_files[i].file,
                    oak_result_name(r), msg, bad_files[i].message);
            oak_test_failures_++;
        }
        if (r == OAK_OK) oak_destroy_scene(s);
        CHECK_EQ_INT(live_meshes(), meshes_before);
    }
    /* Every bad_ file in the folder has an expectation here. */
    DIR *dir = opendir(DATA);
    CHECK(dir != NULL);
    for (struct dirent *de; dir && (de = readdir(dir));) {
        if (strncmp(de->d_name, "bad_", 4)) continue;
        bool listed = false;
        for (size_t i = 0; i < count; i++) listed |= !strcmp(bad_files[i].file, de->d_name);
        if (!listed) {
            fprintf(stderr, "%s has no expected message\n", de->d_name);
            oak_test_failures_++;
        }
    }
    if (dir) closedir(dir);
    CHECK_EQ_INT(oak_scene_load(&(oak_scene *){NULL}, DATA "no_such_file.json"), OAK_ERROR_IO);
}

/* OAK_PROBE_MAX probes load; one more is refused at the entity past the
 * limit, and a scene holding that many is not saved. */
TEST(sceneLoadRefusesTooManyProbes) {
    char path[512], out[512];
    oak_test_out(path, sizeof path, "scene_probe_count.json");
    oak_test_out(out, sizeof out, "scene_probe_count_saved.json");
    for (uint32_t n = OAK_PROBE_MAX; n <= OAK_PROBE_MAX + 1; n++) {
        size_t cap = 64 + (size_t)n * 160, len = 0;
        char *text = oak_alloc(cap);
        if (!text) return;
        len += (size_t)snprintf(text + len, cap - len, "{\"oak_scene\": 1, \"entities\": [");
        for (uint32_t i = 0; i < n; i++)
            len += (size_t)snprintf(text + len, cap - len,
                                    "%s{\"transform\": {\"position\": [%u, 0, 0]}, "
                                    "\"reflection_probe\": {\"box_min\": [-1, -1, -1], "
                                    "\"box_max\": [1, 1, 1]}}",
                                    i ? ", " : "", 3 * i);
        len += (size_t)snprintf(text + len, cap - len, "]}\n");
        CHECK(len < cap);
        CHECK_OK(oak_write_file(path, text, len));
        oak_free(text);
        oak_scene *s = NULL;
        oak_result r = oak_scene_load(&s, path);
        if (n == OAK_PROBE_MAX) {
            CHECK_OK(r);
            if (!s) continue;
            CHECK_EQ_INT(oak_scene_column(s, OAK_COMPONENT_REFLECTION_PROBE).count, n);
            /* one more through the API: the file could not be read back */
            oak_entity e = oak_scene_create(s, "extra");
            oak_scene_set_probe(s, e, &(oak_scene_probe){{-1, -1, -1}, {1, 1, 1}, 0});
            CHECK_EQ_INT(oak_scene_save(s, out), OAK_ERROR_LIMIT);
            CHECK(strstr(oak_last_error(), "more than OAK_PROBE_MAX") != NULL);
            oak_destroy_scene(s);
        } else {
            char want[128];
            snprintf(want, sizeof want,
                     "entities[%u].reflection_probe: more than OAK_PROBE_MAX (%u) reflection "
                     "probes",
                     (unsigned)OAK_PROBE_MAX, (unsigned)OAK_PROBE_MAX);
            CHECK_EQ_INT(r, OAK_ERROR_PARSE);
            CHECK(s == NULL && strstr(oak_last_error(), want) != NULL);
            if (s) oak_destroy_scene(s);
        }
    }
}

TEST(sceneSaveRefusesWhatItCannotWrite) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    oak_mesh raw;
    CHECK_OK(oak_make_mesh(&raw, &(oak_mesh_desc){.vertex_count = 3, .positions = tri}));
    oak_entity e = oak_scene_create(s, "raw");
    oak_scene_set_mesh_renderer(s, e, &(oak_mesh_renderer){raw, {0}, 0});
    char p[512];
    oak_test_out(p, sizeof p, "scene_refused.json");
    CHECK_EQ_INT(oak_scene_save(s, p), OAK_ERROR_UNSUPPORTED);
    CHECK(strstr(oak_last_error(), "meshes[0]") != NULL);
    oak_scene_remove(s, e, OAK_COMPONENT_MESH_RENDERER);
    oak_transform t = oak_transform_identity();
    t.position[0] = NAN;
    oak_scene_set_transform(s, e, &t);
    CHECK_EQ_INT(oak_scene_save(s, p), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "position") != NULL);
    oak_destroy_scene(s);
}

/* Replaces every `from` in text (a heap string) with `to`. */
static char *replace_all(char *text, const char *from, const char *to) {
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = text; (p = strstr(p, from)); p += lf) n++;
    char *out = oak_alloc(strlen(text) + n * lt + 1), *o = out;
    for (const char *p = text, *q; out; p = q + lf) {
        if (!(q = strstr(p, from))) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, lt);
        o += lt;
    }
    oak_free(text);
    return out;
}

/* good.json with bytes flipped, dropped and cut short: every load either
 * succeeds or fails cleanly (ASan and LSan watch), with a deterministic
 * generator so a failure reproduces. */
TEST(sceneLoadSurvivesMangledFiles) {
    size_t size = 0;
    char *good = slurp(DATA "good.json", &size);
    CHECK(good != NULL);
    if (!good) return;
    /* Absolute asset paths, so the mangled copy elsewhere still finds them. */
    char cwd[1024], dir[1200];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(dir, sizeof dir, "\"%s/" DATA, cwd);
    good = replace_all(good, "\"models/", strcat(strcpy((char[1300]){0}, dir), "models/"));
    good = replace_all(good, "\"tile.png", strcat(strcpy((char[1300]){0}, dir), "tile.png"));
    size = strlen(good);
    char path[512];
    oak_test_out(path, sizeof path, "scene_mangled.json");
    uint32_t rng = 12345, loaded = 0, failed = 0;
    char *buf = oak_alloc(size + 1);
    for (int iter = 0; iter < 300 && buf; iter++) {
        memcpy(buf, good, size + 1);
        size_t n = size;
        int edits = 1 + iter % 4;
        for (int k = 0; k < edits; k++) {
            rng = rng * 1664525u + 1013904223u;
            size_t at = (rng >> 8) % n;
            switch ((rng >> 28) % 4) {
            case 0:
                buf[at] = (char)(rng >> 3);
                break; /* any byte */
            case 1:
                buf[at] = "0123456789-.e,[]{}\":"[(rng >> 4) % 19];
                break;
            case 2:
                memmove(buf + at, buf + at + 1, n - at), n--;
                break; /* drop one */
            case 3:
                n = at + 1;
                break; /* cut short */
            }
        }
        if (oak_write_file(path, buf, n)) break;
        oak_scene *s = NULL;
        if (oak_scene_load_with(&s, path, &from_out) == OAK_OK) {
            loaded++;
            CHECK(s != NULL);
            oak_destroy_scene(s);
        } else {
            failed++;
            CHECK(s == NULL && strchr(oak_last_error(), '\n') == NULL);
        }
    }
    oak_free(buf);
    oak_free(good);
    CHECK_EQ_INT(loaded + failed, 300);
    fprintf(stderr, "  mangled files: %u loaded, %u refused\n", loaded, failed);
}

int main(void) {
    oak_test_init(0);
    RUN(sceneSaveLoadSaveIsByteIdentical);
    RUN(sceneLoadsHandWrittenFile);
    RUN(sceneLoadsProbesToWorldBoxes);
    RUN(sceneLoadRejectsBrokenFiles);
    RUN(sceneLoadRefusesTooManyProbes);
    RUN(sceneSaveRefusesWhatItCannotWrite);
    RUN(sceneLoadSurvivesMangledFiles);
    oak_shutdown();
    return TEST_SUMMARY();
}
