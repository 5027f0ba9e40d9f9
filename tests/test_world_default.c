/* The world registry and the `default` world: what the recipe must place,
 * checked in numbers (heights, angles, the grey card's display value, the
 * camera path's smoothness and what it keeps in view). */
#include "oak_test.h"

static const float k_deg = 180.0f / OAK_PI;

static oak_scene *build(const char *name) {
    oak_scene *s = NULL;
    if (oak_make_scene(&s) != OAK_OK) return NULL;
    if (oak_world_build(s, name) != OAK_OK) {
        fprintf(stderr, "world %s: %s\n", name, oak_last_error());
        oak_destroy_scene(s);
        return NULL;
    }
    oak_scene_update_transforms(s);
    return s;
}

/* The terrain recipe as the mesh kept it: the same function the world used. */
static bool terrain_recipe(oak_scene *s, oak_shape_desc *out) {
    oak_entity e = oak_scene_find(s, "terrain");
    const oak_mesh_renderer *mr = oak_scene_get(s, e, OAK_COMPONENT_MESH_RENDERER);
    const oak_mesh_data *m = mr ? oak_mesh_get(mr->mesh) : NULL;
    if (!m || !m->has_recipe) return false;
    *out = m->recipe;
    return true;
}

TEST(worldRegistryNamesDefaultAndStress) {
    CHECK(oak_world_count() >= 2);
    CHECK(strcmp(oak_world_name(0), "default") == 0);
    CHECK(strcmp(oak_world_name(1), "stress") == 0);
    CHECK(oak_world_description(0) && strlen(oak_world_description(0)) > 10);
    CHECK(oak_world_name(oak_world_count()) == NULL);
}

TEST(worldBuildRejectsUnknownName) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    CHECK_EQ_INT(oak_world_build(s, "moon"), OAK_ERROR_NOT_FOUND);
    CHECK(strstr(oak_last_error(), "moon") != NULL);
    CHECK_EQ_INT(oak_scene_entity_count(s), 0);
    float eye[3], target[3];
    CHECK_EQ_INT(oak_world_camera_path("moon", 0.5f, eye, target), OAK_ERROR_NOT_FOUND);
    CHECK_EQ_INT(oak_world_build(NULL, "default"), OAK_ERROR_INVALID_ARGUMENT);
    oak_destroy_scene(s);
}

TEST(worldDefaultTerrainIs400MetresOfGentleHills) {
    oak_scene *s = build("default");
    CHECK(s);
    if (!s) return;
    oak_shape_desc t;
    CHECK(terrain_recipe(s, &t));
    CHECK_EQ_INT(t.type, OAK_SHAPE_HEIGHTFIELD);
    CHECK_NEAR(t.size[0], 400.0, 1e-3);
    CHECK_NEAR(t.size[2], 400.0, 1e-3);
    /* gentle: the steepest slope over a 2 m step stays under 30 degrees */
    float lo = INFINITY, hi = -INFINITY, steepest = 0;
    for (float z = -190; z <= 190; z += 2.0f) {
        for (float x = -190; x <= 190; x += 2.0f) {
            float h = oak_shape_height(&t, x, z);
            lo = fminf(lo, h);
            hi = fmaxf(hi, h);
            float dx = oak_shape_height(&t, x + 2.0f, z) - h;
            float dz = oak_shape_height(&t, x, z + 2.0f) - h;
            steepest = fmaxf(steepest, atanf(sqrtf(dx * dx + dz * dz) / 2.0f) * k_deg);
        }
    }
    fprintf(stderr, "  terrain heights %.2f..%.2f m, steepest %.1f deg\n", lo, hi, steepest);
    CHECK(hi - lo > 3.0f);  /* hills, not a plane */
    CHECK(hi - lo < 40.0f); /* not mountains */
    CHECK(steepest < 30.0f);
    /* the painted ground texture, tiled */
    const oak_mesh_renderer *mr =
        oak_scene_get(s, oak_scene_find(s, "terrain"), OAK_COMPONENT_MESH_RENDERER);
    const oak_material_data *md = oak_material_get(mr->material);
    CHECK(md && md->desc.base_color_tex.texture.id != 0);
    const oak_texture_data *td = md ? oak_texture_get(md->desc.base_color_tex.texture) : NULL;
    CHECK(td && td->name && strcmp(td->name, "oak://ground") == 0);
    CHECK(t.uv_scale >= 10.0f);
    oak_destroy_scene(s);
}

TEST(worldDefaultSpheresRestOnTerrain) {
    oak_scene *s = build("default");
    if (!s) return;
    oak_shape_desc t;
    CHECK(terrain_recipe(s, &t));
    float lo = INFINITY, hi = -INFINITY;
    for (int row = 0; row < 2; row++) {
        for (int i = 0; i < 6; i++) {
            char name[32];
            snprintf(name, sizeof name, row ? "sphere_metal_%d" : "sphere_rough_%d", i);
            oak_entity e = oak_scene_find(s, name);
            CHECK(e.id != 0);
            if (!e.id) continue;
            const oak_mesh_renderer *mr = oak_scene_get(s, e, OAK_COMPONENT_MESH_RENDERER);
            const oak_mesh_data *m = mr ? oak_mesh_get(mr->mesh) : NULL;
            CHECK(m && m->has_recipe && m->recipe.type == OAK_SHAPE_SPHERE);
            if (!m) continue;
            mat4 w;
            oak_scene_world_matrix(s, e, w);
            float r = m->recipe.radius * w[1][1];
            float ground = oak_shape_height(&t, w[3][0], w[3][2]);
            /* the sphere's lowest point touches the ground under its centre */
            CHECK_NEAR(w[3][1] - r, ground, 1e-3);
            lo = fminf(lo, ground);
            hi = fmaxf(hi, ground);
        }
    }
    fprintf(stderr, "  ground under the spheres spans %.3f m\n", hi - lo);
    CHECK(hi - lo < 0.6f); /* a flat-ish patch */
    oak_destroy_scene(s);
}

TEST(worldDefaultSphereRowsSweepRoughnessAndMetallic) {
    oak_scene *s = build("default");
    if (!s) return;
    float prev_rough = 2.0f, prev_metal = -1.0f;
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "sphere_rough_%d", i);
        const oak_mesh_renderer *mr =
            oak_scene_get(s, oak_scene_find(s, name), OAK_COMPONENT_MESH_RENDERER);
        const oak_material_data *a = mr ? oak_material_get(mr->material) : NULL;
        snprintf(name, sizeof name, "sphere_metal_%d", i);
        mr = oak_scene_get(s, oak_scene_find(s, name), OAK_COMPONENT_MESH_RENDERER);
        const oak_material_data *b = mr ? oak_material_get(mr->material) : NULL;
        CHECK(a && b);
        if (!a || !b) continue;
        CHECK(a->desc.roughness < prev_rough);
        CHECK(b->desc.metallic > prev_metal);
        prev_rough = a->desc.roughness;
        prev_metal = b->desc.metallic;
        if (i == 0) {
            CHECK_NEAR(a->desc.roughness, 1.0, 1e-6);
            CHECK_NEAR(b->desc.metallic, 0.0, 1e-6);
        }
    }
    CHECK_NEAR(prev_rough, 0.05, 1e-6);
    CHECK_NEAR(prev_metal, 1.0, 1e-6);
    oak_destroy_scene(s);
}

TEST(worldDefaultBoxesSitOnTheGroundAndCastShadows) {
    oak_scene *s = build("default");
    if (!s) return;
    oak_shape_desc t;
    CHECK(terrain_recipe(s, &t));
    int boxes = 0;
    for (int i = 0; i < 16; i++) {
        char name[32];
        snprintf(name, sizeof name, "box_%d", i);
        oak_entity e = oak_scene_find(s, name);
        if (!e.id) break;
        boxes++;
        const oak_mesh_renderer *mr = oak_scene_get(s, e, OAK_COMPONENT_MESH_RENDERER);
        const oak_mesh_data *m = oak_mesh_get(mr->mesh);
        CHECK(!(mr->flags & OAK_DRAW_NO_SHADOW));
        mat4 w;
        oak_scene_world_matrix(s, e, w);
        /* no corner of the base floats: the base is at or below every corner's ground */
        float base = w[3][1] - 0.5f * m->recipe.size[1];
        float lowest = INFINITY;
        for (int c = 0; c < 4; c++) {
            vec4 p = {(c & 1 ? 0.5f : -0.5f) * m->recipe.size[0], -0.5f * m->recipe.size[1],
                      (c & 2 ? 0.5f : -0.5f) * m->recipe.size[2], 1};
            vec4 q;
            glm_mat4_mulv(w, p, q);
            float g = oak_shape_height(&t, q[0], q[2]);
            CHECK(base <= g + 0.05f);
            lowest = fminf(lowest, g);
        }
        CHECK(base >= lowest - 0.6f); /* sunk a little at most */
    }
    CHECK(boxes >= 3);
    oak_destroy_scene(s);
}

TEST(worldDefaultSunIsWarmAt40DegreesAndCastsShadows) {
    oak_scene *s = build("default");
    if (!s) return;
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(s, &in));
    int suns = 0;
    for (uint32_t i = 0; i < in.light_count; i++) {
        const oak_render_light *l = &in.lights[i];
        if (l->light.type != OAK_LIGHT_DIRECTIONAL) continue;
        suns++;
        float elevation = asinf(-l->direction[1]) * k_deg;
        CHECK_NEAR(elevation, 40.0, 0.5);
        CHECK(l->light.cast_shadows);
        CHECK(l->light.color[0] >= l->light.color[1] && l->light.color[1] > l->light.color[2]);
        CHECK(l->light.color[2] > 0.7f); /* warm white, not orange */
    }
    CHECK_EQ_INT(suns, 1);
    oak_destroy_scene(s);
}

/* The shading contract for a level, matte 18% grey card in the open, per
   channel: 0.18 * (sun * sin(elevation) / pi + ambient_sky), then exposure,
   ACES, sRGB (the sky light is scaled so that a level card's diffuse sky
   light is ambient_sky; the specular lobe's few percent come off it and go
   to the card's sheen). Mid grey shows as 118/255. */
TEST(worldDefaultExposureShowsGreyCardAs118) {
    oak_scene *s = build("default");
    if (!s) return;
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(s, &in));
    const oak_render_light *sun = &in.lights[0];
    float cos_up = -sun->direction[1];
    float bytes[3];
    for (int c = 0; c < 3; c++) {
        float e = sun->light.color[c] * sun->light.intensity * cos_up;
        float radiance = 0.18f * (e / OAK_PI + in.environment->ambient_sky[c]);
        float shown = oak_aces(radiance * oak_post_exposure(in.post)); /* from its EV100 */
        bytes[c] = 255.0f * oak_linear_to_srgb(shown);
    }
    float grey = 0.2126f * bytes[0] + 0.7152f * bytes[1] + 0.0722f * bytes[2];
    fprintf(stderr, "  grey card shows as %.1f %.1f %.1f (luma %.1f), EV100 %.2f\n", bytes[0],
            bytes[1], bytes[2], grey, in.post->ev100);
    CHECK_NEAR(grey, 118.0, 3.0);
    for (int c = 0; c < 3; c++) CHECK_NEAR(bytes[c], 118.0, 15.0); /* no strong cast */
    /* the sky is blue: zenith bluer than horizon, blue the largest channel */
    const oak_environment *env = in.environment;
    CHECK(env->sky_zenith_display[2] > env->sky_zenith_display[0] + 0.3f);
    CHECK(env->sky_zenith_display[2] >= env->sky_horizon_display[2] - 0.1f);
    oak_destroy_scene(s);
}

TEST(worldDefaultCameraPathIsSmoothAndAboveGround) {
    oak_scene *s = build("default");
    if (!s) return;
    oak_shape_desc t;
    CHECK(terrain_recipe(s, &t));
    enum { N = 400 };
    float prev[3] = {0}, total = 0, longest = 0, target0[3] = {0};
    for (int i = 0; i <= N; i++) {
        float eye[3], target[3];
        CHECK_OK(oak_world_camera_path("default", (float)i / N, eye, target));
        CHECK(eye[1] >= oak_shape_height(&t, eye[0], eye[2]) + 1.4f);
        float d = glm_vec3_distance(eye, target);
        CHECK(d > 8.0f && d < 20.0f);
        if (i == 0) memcpy(target0, target, sizeof target0);
        CHECK(glm_vec3_distance(target, target0) < 1e-4f); /* it circles one spot */
        if (i > 0) {
            float step = glm_vec3_distance(eye, prev);
            total += step;
            longest = fmaxf(longest, step);
        }
        memcpy(prev, eye, sizeof prev);
    }
    float mean = total / N;
    fprintf(stderr, "  path %.2f m long, longest step %.4f m, mean %.4f m\n", total, longest, mean);
    CHECK(total > 5.0f);
    CHECK(longest <= 1.6f * mean); /* eased: peak speed pi/2 times the mean, no jumps */
    /* t outside [0, 1] clamps */
    float a[3], b[3], ta[3], tb[3];
    CHECK_OK(oak_world_camera_path("default", -3.0f, a, ta));
    CHECK_OK(oak_world_camera_path("default", 0.0f, b, tb));
    CHECK(glm_vec3_distance(a, b) < 1e-6f);
    oak_destroy_scene(s);
}

/* Along the whole path every sphere stays inside the picture (a 16:9 view
   with the world camera's field of view). */
TEST(worldDefaultCameraPathKeepsSpheresInView) {
    oak_scene *s = build("default");
    if (!s) return;
    const oak_camera *cam = oak_scene_get(s, oak_scene_active_camera(s), OAK_COMPONENT_CAMERA);
    CHECK(cam != NULL);
    if (!cam) return;
    float fov = cam->fov_y > 0 ? cam->fov_y : 60.0f / k_deg;
    int outside = 0;
    for (int k = 0; k <= 10; k++) {
        float eye[3], target[3];
        CHECK_OK(oak_world_camera_path("default", (float)k / 10, eye, target));
        mat4 view, proj, vp;
        glm_lookat(eye, target, (vec3){0, 1, 0}, view);
        oak_perspective_rz(fov, 16.0f / 9.0f, 0.1f, 1000.0f, proj);
        glm_mat4_mul(proj, view, vp);
        for (int row = 0; row < 2; row++) {
            for (int i = 0; i < 6; i++) {
                char name[32];
                snprintf(name, sizeof name, row ? "sphere_metal_%d" : "sphere_rough_%d", i);
                mat4 w;
                oak_scene_world_matrix(s, oak_scene_find(s, name), w);
                vec4 p = {w[3][0], w[3][1], w[3][2], 1}, c;
                glm_mat4_mulv(vp, p, c);
                float x = c[0] / c[3], y = c[1] / c[3];
                if (c[3] <= 0 || fabsf(x) > 0.9f || fabsf(y) > 0.9f) outside++;
            }
        }
    }
    CHECK_EQ_INT(outside, 0);
    oak_destroy_scene(s);
}

int main(void) {
    oak_test_init(0);
    RUN(worldRegistryNamesDefaultAndStress);
    RUN(worldBuildRejectsUnknownName);
    RUN(worldDefaultTerrainIs400MetresOfGentleHills);
    RUN(worldDefaultSpheresRestOnTerrain);
    RUN(worldDefaultSphereRowsSweepRoughnessAndMetallic);
    RUN(worldDefaultBoxesSitOnTheGroundAndCastShadows);
    RUN(worldDefaultSunIsWarmAt40DegreesAndCastsShadows);
    RUN(worldDefaultExposureShowsGreyCardAs118);
    RUN(worldDefaultCameraPathIsSmoothAndAboveGround);
    RUN(worldDefaultCameraPathKeepsSpheresInView);
    oak_shutdown();
    return TEST_SUMMARY();
}
