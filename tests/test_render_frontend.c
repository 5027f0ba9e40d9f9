/* The frontend: culling, batching, the key light, the sun's cascade (fit,
 * texel snapping, splits, casters outside the view and per cascade), display colours resolved to
 * radiance, and renderer creation errors. Drawn through the null backend. */
#include "oak_test.h"

static oak_mesh g_sphere;
static oak_material g_mat[2];
static oak_mesh g_box;

static void setup_assets(void) {
    oak_shape_desc s = {.type = OAK_SHAPE_SPHERE, .radius = 1.0f};
    CHECK_OK(oak_make_shape(&g_sphere, &s));
    oak_shape_desc b = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&g_box, &b));
    for (int i = 0; i < 2; i++) {
        oak_material_desc m = oak_material_desc_defaults(NULL);
        m.base_color[0] = (float)i;
        CHECK_OK(oak_make_material(&g_mat[i], &m));
    }
}

static void translate(mat4 m, float x, float y, float z) {
    glm_mat4_identity(m);
    m[3][0] = x, m[3][1] = y, m[3][2] = z;
}

/* Camera at the origin looking down -Z. */
static oak_frame_input base_input(void) {
    oak_frame_input in = {0};
    glm_mat4_identity(in.camera_world);
    in.camera.znear = 0.1f;
    in.camera.zfar = 500.0f;
    return in;
}

static oak_renderer *null_renderer(uint32_t w, uint32_t h) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "null", .width = w, .height = h, .shadow_map_size = 1024};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

TEST(frontendCullsDrawsOutsideTheFrustum) {
    oak_renderer *r = null_renderer(320, 180);
    mat4 xf[4];
    translate(xf[0], 0, 0, -10);     /* ahead: kept */
    translate(xf[1], 0, 0, 10);      /* behind: culled */
    translate(xf[2], 100, 0, -10);   /* far right: culled */
    translate(xf[3], 0, 0, -500.5f); /* straddles the far plane (radius 1): kept */
    oak_mesh meshes[4] = {g_sphere, g_sphere, g_sphere, g_sphere};
    oak_material mats[4] = {g_mat[0], g_mat[0], g_mat[0], g_mat[0]};
    oak_frame_input in = base_input();
    in.draw_count = 4, in.meshes = meshes, in.materials = mats, in.transforms = xf;
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    CHECK_EQ_INT(v->draws.count, 2);
    CHECK_NEAR(v->draws.world[0][3][2], -10, 0);
    CHECK_NEAR(v->draws.world[1][3][2], -500.5, 0);
    oak_destroy_renderer(r);
}

TEST(frontendBatchesByMaterialThenMeshKeepingOrder) {
    oak_renderer *r = null_renderer(320, 180);
    enum { N = 8 };
    mat4 xf[N];
    oak_mesh meshes[N];
    oak_material mats[N];
    for (int i = 0; i < N; i++) {
        translate(xf[i], (float)(i - 4) * 0.5f, 0, -20 - (float)i);
        meshes[i] = (i & 1) ? g_box : g_sphere;
        mats[i] = g_mat[(i >> 1) & 1];
    }
    oak_frame_input in = base_input();
    in.draw_count = N, in.meshes = meshes, in.materials = mats, in.transforms = xf;
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    CHECK_EQ_INT(v->draws.count, N);
    CHECK_EQ_INT(v->batch_count, 4);
    uint32_t covered = 0;
    for (uint32_t b = 0; b < v->batch_count; b++) {
        const oak_render_batch *bt = &v->batches[b];
        CHECK_EQ_INT(bt->count, 2);
        CHECK_EQ_INT(bt->first, covered);
        covered += bt->count;
        for (uint32_t d = bt->first; d < bt->first + bt->count; d++) {
            CHECK(v->draws.mesh[d].id == bt->mesh.id);
            CHECK(v->draws.material[d].id == bt->material.id);
        }
        /* stable: within a batch, input order (z decreasing) is kept */
        CHECK(v->draws.world[bt->first][3][2] > v->draws.world[bt->first + 1][3][2]);
    }
    CHECK_EQ_INT(covered, N);
    oak_destroy_renderer(r);
}

static oak_render_light sun_at(float elev_deg, bool shadows) {
    oak_render_light l = {.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL)};
    l.light.cast_shadows = shadows;
    float e = elev_deg * OAK_PI / 180.0f;
    l.direction[0] = -cosf(e) * 0.6f, l.direction[1] = -sinf(e), l.direction[2] = -cosf(e) * 0.8f;
    return l;
}

TEST(frontendPicksTheShadowCastingSunAsKeyLight) {
    oak_renderer *r = null_renderer(320, 180);
    oak_render_light lights[3] = {sun_at(30, false), sun_at(50, true), sun_at(70, true)};
    lights[0].light.type = OAK_LIGHT_POINT;
    oak_frame_input in = base_input();
    in.light_count = 3, in.lights = lights;
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    /* the view lists directional lights first: the 50-degree sun is light 0,
       the point light (input 0) comes last */
    CHECK_EQ_INT(v->key_light, 0);
    CHECK(v->lights[0].light.cast_shadows);
    CHECK_NEAR(v->lights[0].direction[1],
               -sinf(50.0f * OAK_PI / 180.0f) / glm_vec3_norm(lights[1].direction), 1e-5);
    CHECK_EQ_INT(v->lights[2].light.type, OAK_LIGHT_POINT);
    CHECK(v->shadows);
    CHECK_EQ_INT(v->cascade_count, OAK_MAX_CASCADES);
    CHECK_NEAR(glm_vec3_norm(v->lights[1].direction), 1.0, 1e-6);
    oak_destroy_renderer(r);
}

/* A world point's position in cascade k's map, in texels. */
static void map_texel(const oak_render_view *v, int k, const float p[3], float out[2]) {
    vec4 w = {p[0], p[1], p[2], 1}, c;
    glm_mat4_mulv((vec4 *)v->cascades[k].view_proj, w, c);
    out[0] = (c[0] * 0.5f + 0.5f) * (float)v->shadow_map_size;
    out[1] = (c[1] * 0.5f + 0.5f) * (float)v->shadow_map_size;
}

TEST(frontendCascadeSnapsToWholeTexelsAsTheCameraMoves) {
    oak_renderer *r = null_renderer(320, 180);
    oak_render_light sun = sun_at(40, true);
    const float probe[3] = {3.0f, 0.5f, -20.0f};
    float first[OAK_MAX_CASCADES][2] = {{0}};
    float size0[OAK_MAX_CASCADES] = {0};
    for (int step = 0; step < 12; step++) {
        oak_frame_input in = base_input();
        translate(in.camera_world, 1.3f * (float)step, 0.7f * (float)step, -2.1f * (float)step);
        /* turning too: the fit is a sphere, so a texel's size holds */
        glm_rotate(in.camera_world, 0.1f * (float)step, (vec3){0, 1, 0});
        in.light_count = 1, in.lights = &sun;
        CHECK_OK(oak_renderer_draw(r, &in));
        const oak_render_view *v = oak_renderer_last_view(r);
        CHECK_EQ_INT(v->cascade_count, OAK_MAX_CASCADES);
        for (int k = 0; k < OAK_MAX_CASCADES; k++) {
            float t[2];
            map_texel(v, k, probe, t);
            if (step == 0) {
                first[k][0] = t[0], first[k][1] = t[1];
                size0[k] = v->cascades[k].texel_world;
            }
            /* the grid moves by whole texels only, and the map never resizes */
            double fx = fmod(fabs(t[0] - first[k][0]) + 0.5, 1.0) - 0.5;
            double fy = fmod(fabs(t[1] - first[k][1]) + 0.5, 1.0) - 0.5;
            CHECK_NEAR(fx, 0, 4e-3);
            CHECK_NEAR(fy, 0, 4e-3);
            CHECK_NEAR(v->cascades[k].texel_world, size0[k], 0);
        }
    }
    oak_destroy_renderer(r);
}

/* Four slices out to OAK_SHADOW_DISTANCE, 3/4 logarithmic and 1/4 uniform;
   each map covers its slice's sphere, the previous slice's blend band
   included, and the far ones have the bigger texels. */
TEST(frontendSplitsFourCascadesLogAndUniform) {
    oak_renderer *r = null_renderer(320, 180);
    oak_render_light sun = sun_at(40, true);
    oak_frame_input in = base_input();
    in.light_count = 1, in.lights = &sun;
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    CHECK_EQ_INT(v->cascade_count, 4);
    const double n = 0.1, f = OAK_SHADOW_DISTANCE;
    double prev = n;
    for (int k = 0; k < 4; k++) {
        double t = (k + 1) / 4.0;
        double want = 0.75 * n * pow(f / n, t) + 0.25 * (n + (f - n) * t);
        CHECK_NEAR(v->cascades[k].split_far, want, 1e-3 * want);
        if (k) CHECK(v->cascades[k].texel_world > v->cascades[k - 1].texel_world);
        /* the corners of the slice [band start, split] land inside the map */
        double start =
            k ? v->cascades[k - 1].split_far - 0.1 * (v->cascades[k - 1].split_far - prev) : n;
        if (k) prev = v->cascades[k - 1].split_far;
        const float *P = v->proj[0];
        for (int c = 0; c < 8; c++) {
            double z = (c & 4) ? v->cascades[k].split_far : start;
            float p[3] = {(float)((c & 1 ? 1 : -1) * z / P[0]),
                          (float)((c & 2 ? 1 : -1) * z / v->proj[1][1]), (float)-z};
            float tx[2];
            map_texel(v, k, p, tx);
            CHECK(tx[0] >= 0 && tx[0] <= 1024 && tx[1] >= 0 && tx[1] <= 1024);
        }
    }
    CHECK_NEAR(v->cascades[3].split_far, OAK_SHADOW_DISTANCE, 0);
    oak_destroy_renderer(r);
}

TEST(frontendKeepsCastersBetweenTheSunAndTheView) {
    oak_renderer *r = null_renderer(320, 180);
    oak_render_light sun = sun_at(40, true);
    mat4 xf[3];
    translate(xf[0], 0, 0, -10); /* in view */
    /* behind the camera but up the sun's ray from a point in view: casts */
    translate(xf[1], sun.direction[0] * -30.0f, -1 + sun.direction[1] * -30.0f,
              -10 + sun.direction[2] * -30.0f);
    translate(xf[2], 0, 0, 3000); /* far away: neither */
    oak_mesh meshes[3] = {g_box, g_box, g_box};
    oak_material mats[3] = {g_mat[0], g_mat[0], g_mat[0]};
    uint32_t flags[3] = {0, 0, 0};
    oak_frame_input in = base_input();
    in.draw_count = 3, in.meshes = meshes, in.materials = mats, in.transforms = xf;
    in.flags = flags, in.light_count = 1, in.lights = &sun;
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    CHECK_EQ_INT(v->draws.count, 1);
    /* the two near boxes cast (into the cascades whose slices they reach),
       the far one into none */
    bool seen[3] = {false, false, false};
    for (uint32_t i = 0; i < v->casters.count; i++)
        for (int k = 0; k < 3; k++) seen[k] |= v->casters.world[i][3][2] == xf[k][3][2];
    CHECK(seen[0] && seen[1] && !seen[2]);
    uint32_t listed = 0;
    for (uint32_t k = 0; k < v->cascade_count; k++) {
        CHECK_EQ_INT(v->cascades[k].first_caster, listed);
        listed += v->cascades[k].caster_count;
    }
    CHECK_EQ_INT(listed, v->casters.count);
    flags[0] = OAK_DRAW_NO_SHADOW;
    CHECK_OK(oak_renderer_draw(r, &in));
    v = oak_renderer_last_view(r);
    for (uint32_t i = 0; i < v->casters.count; i++) CHECK(v->casters.world[i][3][2] == xf[1][3][2]);
    CHECK(v->casters.count >= 1);
    oak_destroy_renderer(r);
}

/* Per-cascade caster culling. Movers: a post 59 m ahead casts only into the
   far cascade, a box at 2 m only into the near ones (their slices). Static
   casters go into every map whose box holds them (the cached layer must not
   depend on where in the box the camera is): the far post still not into
   cascade 0's small map, the near box into all four; each cascade lists its
   static casters before its movers. */
static void cascades_of(const oak_render_view *v, int near_in[4], int far_in[4]) {
    for (uint32_t k = 0; k < v->cascade_count; k++) {
        near_in[k] = far_in[k] = 0;
        for (uint32_t i = 0; i < v->cascades[k].caster_count; i++) {
            float z = v->casters.world[v->cascades[k].first_caster + i][3][2];
            near_in[k] += z == -2, far_in[k] += z == -59;
        }
    }
}

TEST(frontendCullsCastersPerCascade) {
    oak_renderer *r = null_renderer(320, 180);
    oak_render_light sun = sun_at(40, true);
    mat4 xf[2];
    translate(xf[0], 0, 0, -2);
    translate(xf[1], 0, 0, -59);
    oak_mesh meshes[2] = {g_box, g_box};
    oak_material mats[2] = {g_mat[0], g_mat[0]};
    uint32_t flags[2] = {OAK_DRAW_MOVING, OAK_DRAW_MOVING};
    oak_frame_input in = base_input();
    in.draw_count = 2, in.meshes = meshes, in.materials = mats, in.transforms = xf;
    in.flags = flags, in.light_count = 1, in.lights = &sun;
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    int near_in[4] = {0}, far_in[4] = {0};
    cascades_of(v, near_in, far_in);
    fprintf(stderr, "  movers: box at 2 m in cascades %d%d%d%d, post at 59 m in %d%d%d%d\n",
            near_in[0], near_in[1], near_in[2], near_in[3], far_in[0], far_in[1], far_in[2],
            far_in[3]);
    CHECK(near_in[0] == 1 && far_in[0] == 0);
    CHECK(far_in[3] == 1 && near_in[3] == 0);
    for (uint32_t k = 0; k < v->cascade_count; k++) CHECK_EQ_INT(v->cascades[k].static_count, 0);

    flags[0] = flags[1] = 0;
    CHECK_OK(oak_renderer_draw(r, &in));
    v = oak_renderer_last_view(r);
    cascades_of(v, near_in, far_in);
    fprintf(stderr, "  static: box at 2 m in cascades %d%d%d%d, post at 59 m in %d%d%d%d\n",
            near_in[0], near_in[1], near_in[2], near_in[3], far_in[0], far_in[1], far_in[2],
            far_in[3]);
    CHECK(near_in[0] == 1 && far_in[0] == 0);
    CHECK(near_in[3] == 1 && far_in[3] == 1);
    for (uint32_t k = 0; k < v->cascade_count; k++) {
        CHECK_EQ_INT(v->cascades[k].static_count, v->cascades[k].caster_count);
        CHECK(v->cascades[k].static_key != 0);
    }
    oak_destroy_renderer(r);
}

/* The movers' rule as planes (backend.h mover_planes, what the GPUs cull
   moved instance streams by): every mover the frontend lists in a cascade
   passes that cascade's planes (a superset), and the planes keep far fewer
   than the map's box does: a field of moving boxes round the camera. */
static bool passes(const float pl[][4], uint32_t n, const float c[3], float r) {
    for (uint32_t p = 0; p < n; p++)
        if (pl[p][0] * c[0] + pl[p][1] * c[1] + pl[p][2] * c[2] + pl[p][3] < -r) return false;
    return true;
}

TEST(frontendMoverPlanesHoldTheMoversRule) {
    enum { NX = 13, NZ = 19, N = NX * NZ };
    oak_renderer *r = null_renderer(320, 180);
    oak_render_light sun = sun_at(40, true);
    static mat4 xf[N];
    static oak_mesh meshes[N];
    static oak_material mats[N];
    static uint32_t flags[N];
    for (int i = 0; i < N; i++) {
        translate(xf[i], -60.0f + 10.0f * (float)(i % NX), 0, -150.0f + 10.0f * (float)(i / NX));
        meshes[i] = g_box, mats[i] = g_mat[0], flags[i] = OAK_DRAW_MOVING;
    }
    oak_frame_input in = base_input();
    in.draw_count = N, in.meshes = meshes, in.materials = mats, in.transforms = xf;
    in.flags = flags, in.light_count = 1, in.lights = &sun;
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    const oak_mesh_data *md = oak_mesh_get(g_box);
    CHECK(md != NULL);
    uint32_t listed = 0, missed = 0, planes = 0, box = 0;
    for (uint32_t k = 0; k < v->cascade_count; k++) {
        const oak_shadow_cascade *cas = &v->cascades[k];
        vec4 frustum[6];
        oak_frustum_planes((vec4 *)cas->view_proj, frustum);
        for (int i = 0; i < N; i++) {
            float c[3] = {xf[i][3][0] + md->bounds.center[0], xf[i][3][1] + md->bounds.center[1],
                          xf[i][3][2] + md->bounds.center[2]};
            bool in_list = false;
            for (uint32_t j = 0; j < cas->caster_count; j++) {
                const float *w = v->casters.world[cas->first_caster + j][3];
                in_list |= w[0] == xf[i][3][0] && w[2] == xf[i][3][2];
            }
            bool pass = passes(cas->mover_planes, OAK_CASCADE_MOVER_PLANES, c, md->bounds.radius);
            listed += in_list, planes += pass, missed += in_list && !pass;
            box += oak_frustum_sphere((const vec4 *)frustum, c, md->bounds.radius);
        }
    }
    fprintf(stderr, "  %d boxes x 4 cascades: listed %u, planes %u (missed %u), map box %u\n", N,
            listed, planes, missed, box);
    CHECK_EQ_INT(missed, 0);
    CHECK(listed > 0);
    CHECK(planes <= listed + listed / 4);
    CHECK(2 * planes < box);
    oak_destroy_renderer(r);
}

TEST(frontendDisplayColoursShowAsGiven) {
    oak_renderer *r = null_renderer(64, 64);
    oak_environment env = oak_environment_defaults();
    env.sky_zenith_display[0] = 0.25f, env.sky_zenith_display[1] = 0.5f;
    env.sky_zenith_display[2] = 0.9f;
    oak_post post = {.exposure = 0.7f};
    oak_frame_input in = base_input();
    in.environment = &env, in.post = &post;
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    for (int i = 0; i < 3; i++) {
        /* the resolved radiance, exposed and tone mapped, encodes to the colour */
        float shown = oak_linear_to_srgb(oak_aces(v->sky_zenith[i] * 0.7f));
        CHECK_NEAR(shown, env.sky_zenith_display[i], 1e-4);
    }
    CHECK_NEAR(v->post.exposure, 0.7, 1e-7);
    oak_destroy_renderer(r);
}

TEST(rendererRejectsUnknownBackendAndAbsurdSizes) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "metal"};
    CHECK(oak_make_renderer(&r, &d) == OAK_ERROR_NOT_FOUND);
    CHECK(strstr(oak_last_error(), "metal") != NULL);
    CHECK(r == NULL);
    d = (oak_renderer_desc){.backend = "null", .width = 100000, .height = 10};
    CHECK(oak_make_renderer(&r, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(r == NULL);
    /* the cascade atlas is two maps across: past half the texture limit */
    d = (oak_renderer_desc){.backend = "null", .shadow_map_size = OAK_MAX_TEXTURE_SIZE / 2 + 1};
    CHECK(oak_make_renderer(&r, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(r == NULL);
    r = null_renderer(16, 16);
    uint8_t px[16 * 16 * 4];
    CHECK(oak_renderer_read_pixels(r, px, sizeof px) == OAK_ERROR_INVALID_ARGUMENT); /* none yet */
    CHECK(oak_renderer_resize(r, 0, 5) == OAK_ERROR_INVALID_ARGUMENT);
    oak_destroy_renderer(r);
}

TEST(rendererAutoFallsBackToCpuAndSaysWhy) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "auto", .width = 64, .height = 64};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (!r) return;
    /* Here (no GPU) auto ends on cpu; each better backend says why it did not start. */
    CHECK(strcmp(oak_renderer_backend(r), "cpu") == 0);
    if (oak_backend_count() > 2) CHECK(oak_renderer_fallback_reason(r)[0] != 0);
    oak_destroy_renderer(r);
}

/* The null backend has no native presentation: attaching a window says so
 * and leaves it drawing headless; presenting is refused. */
static oak_result never_current(void *user) {
    (void)user;
    return OAK_OK;
}

TEST(rendererWithoutNativePresentationStaysHeadless) {
    oak_renderer *r = null_renderer(32, 18);
    if (!r) return;
    oak_window_hooks h = {.gl_make_current = never_current};
    CHECK_EQ_INT(oak_renderer_attach_window(r, &h), OAK_ERROR_UNSUPPORTED);
    CHECK(strcmp(oak_last_error(), "null: no native presentation") == 0);
    CHECK(oak_renderer_presentation(r) == NULL);
    oak_frame_input in = base_input();
    CHECK_OK(oak_renderer_draw(r, &in));
    uint8_t px[32 * 18 * 4];
    CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
    CHECK_EQ_INT(oak_renderer_present(r, 32, 18, NULL, NULL), OAK_ERROR_UNSUPPORTED);
    CHECK_OK(oak_renderer_attach_window(r, NULL)); /* headless again: nothing to refuse */
    oak_destroy_renderer(r);
}

int main(void) {
    oak_test_init(0);
    setup_assets();
    RUN(frontendCullsDrawsOutsideTheFrustum);
    RUN(frontendBatchesByMaterialThenMeshKeepingOrder);
    RUN(frontendPicksTheShadowCastingSunAsKeyLight);
    RUN(frontendCascadeSnapsToWholeTexelsAsTheCameraMoves);
    RUN(frontendSplitsFourCascadesLogAndUniform);
    RUN(frontendKeepsCastersBetweenTheSunAndTheView);
    RUN(frontendCullsCastersPerCascade);
    RUN(frontendMoverPlanesHoldTheMoversRule);
    RUN(frontendDisplayColoursShowAsGiven);
    RUN(rendererRejectsUnknownBackendAndAbsurdSizes);
    RUN(rendererAutoFallsBackToCpuAndSaysWhy);
    RUN(rendererWithoutNativePresentationStaysHeadless);
    oak_shutdown();
    return TEST_SUMMARY();
}
