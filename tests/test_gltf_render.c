/* glTF drawn by the CPU backend: FlightHelmet framed at 55% of the frame's
 * height covers that share of the picture's rows, centred, and its textures
 * show (the textured helmet is as much darker than a white-material helmet
 * as its base colour maps are dark); a posed SimpleSkin draws where its
 * posed vertices project, so the renderer sees the skin. */
#include "oak_test.h"

#include <oak/anim.h>

#include "backend_start.h"
#include "gltf_test_assets.h"

enum { W = 256, H = 256 };

typedef struct shot {
    uint8_t rgba[W * H * 4];
} shot;

static oak_result draw(oak_scene *scene, shot *out) {
    oak_renderer *ren = NULL;
    oak_renderer_desc rd = {.backend = "cpu", .width = W, .height = H};
    oak_result r = oak_make_renderer(&ren, &rd);
    if (!r) r = oak_scene_draw(scene, ren);
    if (!r) r = oak_renderer_read_pixels(ren, out->rgba, sizeof out->rgba);
    if (ren) oak_destroy_renderer(ren);
    return r;
}

/* Frames the instance and adds a camera and a sun; the camera entity is returned. */
static oak_entity frame_and_light(oak_scene *scene, oak_gltf_instance *inst) {
    uint32_t n = oak_gltf_instance_points(inst, NULL, 0);
    float *pts = oak_alloc((size_t)n * 12 + 12);
    oak_gltf_instance_points(inst, pts, n);
    oak_framing f = {.yaw = 30 * OAK_PI / 180,
                     .pitch = 15 * OAK_PI / 180,
                     .share = 0.55f,
                     .fov_y = 45 * OAK_PI / 180,
                     .aspect = 1};
    oak_entity ce = oak_test_frame_and_light(scene, pts, n, &f);
    oak_free(pts);
    return ce;
}

typedef struct mask_stats {
    uint32_t top, bottom, left, right, count;
    double luma; /* mean over the mask, 0..255 */
} mask_stats;

static mask_stats mask_of(const shot *model, const shot *empty) {
    mask_stats m = {H, 0, W, 0, 0, 0};
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *a = model->rgba + 4 * (y * W + x), *b = empty->rgba + 4 * (y * W + x);
            if (abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) <= 6) continue;
            m.count++;
            m.luma += 0.2126 * a[0] + 0.7152 * a[1] + 0.0722 * a[2];
            if (y < m.top) m.top = y;
            if (y > m.bottom) m.bottom = y;
            if (x < m.left) m.left = x;
            if (x > m.right) m.right = x;
        }
    if (m.count) m.luma /= m.count;
    return m;
}

static shot g_model, g_white, g_empty;

TEST(flightHelmetRendersFramedWithItsTextures) {
    char path[256];
    oak_gltf *g = NULL;
    CHECK_OK(
        oak_gltf_load(&g, gltf_asset(path, sizeof path, "FlightHelmet/FlightHelmet.gltf"), NULL));
    if (!g) return;
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "helmet"));
    CHECK_OK(oak_skin_update(scene));
    frame_and_light(scene, inst);
    CHECK_OK(draw(scene, &g_model));
    char out[512];
    oak_image_write_png(oak_test_out(out, sizeof out, "gltf_flighthelmet.png"), W, H, g_model.rgba);

    /* the same helmet with every texture taken off its materials */
    for (uint32_t i = 0; i < g->material_count; i++) {
        oak_material_desc d = oak_material_get(g->material_handles[i])->desc;
        d.base_color_tex.texture.id = d.metallic_roughness_tex.texture.id = 0;
        d.normal_tex.texture.id = d.occlusion_tex.texture.id = d.emissive_tex.texture.id = 0;
        CHECK_OK(oak_material_update(g->material_handles[i], &d));
    }
    CHECK_OK(draw(scene, &g_white));
    oak_gltf_instance_free(inst); /* the model's entities go; camera and sun stay */
    CHECK_OK(draw(scene, &g_empty));

    mask_stats m = mask_of(&g_model, &g_empty), w = mask_of(&g_white, &g_empty);
    /* base colour maps' mean linear albedo, from the images themselves */
    double albedo = 0;
    uint32_t maps = 0;
    for (uint32_t i = 0; i < g->material_count; i++) {
        int32_t im = g->materials[i].image[0];
        if (im < 0) continue;
        const oak_gltf_image *img = &g->images[im];
        double s = 0;
        for (size_t p = 0; p < (size_t)img->width * img->height; p++)
            s += oak_srgb_to_linear(img->rgba[4 * p + 1] / 255.0f);
        albedo += s / ((double)img->width * img->height);
        maps++;
    }
    albedo /= maps ? maps : 1;
    double span = m.bottom - m.top + 1.0, centre_x = 0.5 * (m.left + m.right + 1.0);
    fprintf(stderr,
            "  helmet rows %u..%u: span %.0f px of %d (want %.1f), centre x %.1f; %u px covered\n"
            "  mean luma textured %.1f, white %.1f (ratio %.3f); base maps' mean albedo %.3f\n",
            m.top, m.bottom, span, H, 0.55 * H, centre_x, m.count, m.luma, w.luma,
            w.luma > 0 ? m.luma / w.luma : 0, albedo);
    CHECK_NEAR(span, 0.55 * H, 2.0); /* raster and FXAA: within two rows */
    CHECK_NEAR(0.5 * (m.top + m.bottom + 1.0), H / 2.0, 2.0);
    CHECK_NEAR(centre_x, W / 2.0, 2.0);
    CHECK(m.count > W * H / 20); /* a solid helmet (about 9% of the frame), not a few edges */
    /* Textures darken it: their mean albedo is well below white's 1, so the
     * textured helmet must be clearly darker than the white one. */
    CHECK(albedo < 0.5);
    CHECK(m.luma < 0.8 * w.luma);
    CHECK(m.luma > 0.1 * w.luma);
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

TEST(skinnedModelDrawsItsPose) {
    /* SimpleSkin at t=1 bends its top half 90 degrees: framed by its posed
     * vertices, the picture's covered rows and columns must sit where those
     * project (55% of the height, centred), which the rest pose would not. */
    char path[256];
    oak_gltf *g = NULL;
    CHECK_OK(oak_gltf_load(&g, gltf_asset(path, sizeof path, "SimpleSkin/SimpleSkin.gltf"), NULL));
    if (!g) return;
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "skin"));
    /* the material is white and double-sided enough: make it double sided */
    oak_material_desc d = oak_material_get(g->default_material)->desc;
    d.double_sided = true;
    oak_material_update(g->default_material, &d);
    oak_anim_player *p = oak_gltf_instance_player(inst);
    oak_anim_play(p, 0, false);
    oak_anim_set_time(p, 1);
    p->playing = false;
    oak_anim_update(scene, 0);
    CHECK_OK(oak_skin_update(scene));
    frame_and_light(scene, inst);
    CHECK_OK(draw(scene, &g_model));
    char out[512];
    oak_image_write_png(oak_test_out(out, sizeof out, "gltf_simpleskin.png"), W, H, g_model.rgba);
    oak_gltf_instance_free(inst);
    CHECK_OK(draw(scene, &g_empty));
    mask_stats m = mask_of(&g_model, &g_empty);
    fprintf(stderr, "  posed skin covers rows %u..%u, columns %u..%u (%u px)\n", m.top, m.bottom,
            m.left, m.right, m.count);
    CHECK_NEAR(m.bottom - m.top + 1.0, 0.55 * H, 2.0);
    CHECK_NEAR(0.5 * (m.left + m.right + 1.0), W / 2.0, 2.0);
    CHECK_NEAR(0.5 * (m.top + m.bottom + 1.0), H / 2.0, 2.0);
    CHECK(m.count > 1000);
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

int main(void) {
    oak_test_init(0);
    RUN(flightHelmetRendersFramedWithItsTextures);
    RUN(skinnedModelDrawsItsPose);
    oak_shutdown();
    return TEST_SUMMARY();
}
