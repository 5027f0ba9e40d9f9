/* The default world drawn by the CPU backend: an 18% grey card placed in
 * the open shows mid grey, the sky at the top is blue, and the whole frame
 * is neither washed out nor dark. */
#include "oak_test.h"

enum { W = 160, H = 90 };

/* The radiance that shows as a display colour: the sRGB value undone, then
   ACES undone (the root of (yc - a)x^2 + (yd - b)x + ye = 0), then exposure. */
static float sky_radiance(float display, float exposure) {
    double y = oak_srgb_to_linear(display), a = 2.51, b = 0.03, c = 2.43, d = 0.59, e = 0.14;
    double qa = y * c - a, qb = y * d - b, qc = y * e;
    return (float)((-qb - sqrt(qb * qb - 4 * qa * qc)) / (2 * qa) / exposure);
}

/* The display byte docs/SHADING.md gives a level, matte dielectric card
   (roughness 1, metallic 0, albedo 0.18) seen from eye, lit by the sun
   without shadow and by the hemisphere ambient, before dither. */
static float expected_card_byte(const oak_frame_input *in, const float card[3], const float eye[3],
                                int channel) {
    const oak_render_light *sun = &in->lights[0];
    const oak_environment *env = in->environment;
    float n[3] = {0, 1, 0}, l[3], v[3], h[3];
    for (int i = 0; i < 3; i++) l[i] = -sun->direction[i], v[i] = eye[i] - card[i];
    glm_vec3_normalize(v);
    glm_vec3_add(l, v, h);
    glm_vec3_normalize(h);
    float ndl = fmaxf(glm_vec3_dot(n, l), 0), ndv = fmaxf(glm_vec3_dot(n, v), 1e-4f);
    float ndh = fmaxf(glm_vec3_dot(n, h), 0), vdh = fmaxf(glm_vec3_dot(v, h), 0);
    const float a = 1.0f, albedo = 0.18f, f0 = 0.04f;
    float d = a * a / (OAK_PI * powf(ndh * ndh * (a * a - 1) + 1, 2));
    float vis = 0.5f / (ndl * sqrtf(ndv * ndv * (1 - a * a) + a * a) +
                        ndv * sqrtf(ndl * ndl * (1 - a * a) + a * a));
    float f = f0 + (1 - f0) * powf(1 - vdh, 5);
    float e = sun->light.color[channel] * sun->light.intensity;
    float lo = (albedo / OAK_PI + d * vis * f) * e * ndl;
    /* ambient: irradiance at N.y = 1 is ambient_sky; the rough reflection is
       the mean of zenith and horizon radiance, weighted by Karis' fit */
    oak_post post = *in->post;
    post.exposure = oak_post_exposure(in->post); /* the world gives its camera as an EV100 */
    float zen = sky_radiance(env->sky_zenith_display[channel], post.exposure);
    float hor = sky_radiance(env->sky_horizon_display[channel], post.exposure);
    float spec_env = 0.5f * (zen + hor);
    float rx = 0.0f, ry = 0.015f, rz = 0.468f, rw = -0.018f; /* roughness 1 */
    float a004 = fminf(rx * rx, exp2f(-9.28f * ndv)) * rx + ry;
    float env_f = f0 * (-1.04f * a004 + rz) + (1.04f * a004 + rw);
    float ambient = albedo * env->ambient_sky[channel] + spec_env * env_f;
    float x = (lo + ambient) * post.exposure;
    return 255.0f * oak_linear_to_srgb(oak_aces(x));
}

TEST(worldDefaultGreyCardShowsMidGreyOnCpu) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    CHECK_OK(oak_world_build(s, "default"));
    /* a 1.5 m card 4 m in front of the camera, 1.2 m below its eye line */
    float eye[3], target[3];
    CHECK_OK(oak_world_camera_path("default", 0.5f, eye, target));
    float fwd[3] = {target[0] - eye[0], 0, target[2] - eye[2]};
    glm_vec3_normalize(fwd);
    oak_transform t = oak_transform_identity();
    for (int i = 0; i < 3; i++) t.position[i] = eye[i] + 4.0f * fwd[i];
    t.position[1] = eye[1] - 1.2f;
    oak_mesh card;
    CHECK_OK(
        oak_make_shape(&card, &(oak_shape_desc){.type = OAK_SHAPE_PLANE, .size = {1.5f, 0, 1.5f}}));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.18f;
    md.metallic = 0.0f;
    md.roughness = 1.0f;
    oak_material grey;
    CHECK_OK(oak_make_material(&grey, &md));
    oak_entity e = oak_scene_create(s, "card");
    oak_scene_set_transform(s, e, &t);
    oak_scene_set_mesh_renderer(s, e, &(oak_mesh_renderer){card, grey, OAK_DRAW_NO_RECEIVE});
    oak_scene_post(s)->no_fxaa = true;

    oak_renderer *r;
    CHECK_OK(
        oak_make_renderer(&r, &(oak_renderer_desc){.backend = "cpu", .width = W, .height = H}));
    CHECK_OK(oak_scene_draw(s, r));
    static uint8_t px[W * H * 4];
    CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
    char path[512];
    oak_image_write_png(oak_test_out(path, sizeof path, "world_default_card.png"), W, H, px);

    /* where the card's centre lands on screen */
    const struct oak_render_view *view = oak_renderer_last_view(r);
    vec4 p = {t.position[0], t.position[1], t.position[2], 1}, c;
    glm_mat4_mulv((vec4 *)view->view_proj, p, c);
    int x = (int)((c[0] / c[3] * 0.5f + 0.5f) * W), y = (int)((0.5f - 0.5f * c[1] / c[3]) * H);
    CHECK(x > 2 && x < W - 3 && y > 2 && y < H - 3);
    if (x > 2 && x < W - 3 && y > 2 && y < H - 3) {
        oak_frame_input in;
        CHECK_OK(oak_scene_frame_input(s, &in));
        float luma = 0;
        for (int ch = 0; ch < 3; ch++) {
            /* mean of a 3x3 patch: dither adds [0, 1) per pixel */
            float sum = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) sum += px[((y + dy) * W + x + dx) * 4 + ch];
            float got = sum / 9, want = expected_card_byte(&in, t.position, view->camera_pos, ch);
            fprintf(stderr, "  card channel %d: %.1f, contract gives %.1f + dither\n", ch, got,
                    want);
            CHECK_NEAR(got, want + 0.5f, 2.0);
            luma += (ch == 0 ? 0.2126f : ch == 1 ? 0.7152f : 0.0722f) * got;
        }
        /* the goal itself: mid grey, give or take the card's 4% sheen */
        CHECK_NEAR(luma, 118.0, 10.0);
    }
    oak_destroy_renderer(r);
    oak_destroy_scene(s);
}

TEST(worldDefaultPictureIsNeitherWashedOutNorDark) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    CHECK_OK(oak_world_build(s, "default"));
    oak_renderer *r;
    CHECK_OK(
        oak_make_renderer(&r, &(oak_renderer_desc){.backend = "cpu", .width = W, .height = H}));
    CHECK_OK(oak_scene_draw(s, r));
    static uint8_t px[W * H * 4];
    CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
    char path[512];
    oak_image_write_png(oak_test_out(path, sizeof path, "world_default.png"), W, H, px);
    double sum = 0;
    uint32_t clipped = 0, black = 0;
    for (int i = 0; i < W * H; i++) {
        float l = 0.2126f * px[i * 4] + 0.7152f * px[i * 4 + 1] + 0.0722f * px[i * 4 + 2];
        sum += l;
        clipped += l >= 250;
        black += l <= 5;
    }
    double mean = sum / (W * H);
    fprintf(stderr, "  mean luma %.1f, %u clipped, %u black of %d\n", mean, clipped, black, W * H);
    CHECK(mean > 70 && mean < 180);
    CHECK(clipped < W * H / 50);
    CHECK(black < W * H / 50);
    /* the top row is sky: blue over red by a clear margin */
    uint32_t blue = 0;
    for (int x = 0; x < W; x++) blue += px[x * 4 + 2] > px[x * 4] + 30;
    CHECK_EQ_INT(blue, W);
    oak_destroy_renderer(r);
    oak_destroy_scene(s);
}

int main(void) {
    oak_test_init(0);
    RUN(worldDefaultGreyCardShowsMidGreyOnCpu);
    RUN(worldDefaultPictureIsNeitherWashedOutNorDark);
    oak_shutdown();
    return TEST_SUMMARY();
}
