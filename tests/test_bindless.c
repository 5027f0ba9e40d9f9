/* Bindless textures on Vulkan (argv[1]: the backend, "vulkan"; run on Mesa
 * 25's lavapipe as test_bindless_lavapipe25): where the device has
 * descriptor indexing every material texture is its own image in one
 * runtime array, else (or with OAK_BINDLESS=off) the size-class arrays. The
 * textured parity scenes and a glTF model draw byte-equal on the two paths
 * (the same texels through the same hand-sampling maths) and within the
 * parity rule of the CPU; a scene of more distinct texture sizes than the
 * 16 class arrays hold draws right only bindless. Validation stays silent.
 * Exits 77 where the device has no descriptor indexing. */
#include "backend_start.h"
#include "vulkan_test.h"

#include "gltf_test_assets.h"
#include "shaders/common/oak_gpu.h"
#include "parity_scenes.h"

/* The picture of input (or scene) on the Vulkan backend with OAK_BINDLESS
   as given (NULL: unset), into img (PW x PH). */
static bool draw_vulkan(const char *bindless, const oak_frame_input *input, oak_scene *scene,
                        uint8_t *img) {
    if (bindless)
        setenv("OAK_BINDLESS", bindless, 1);
    else
        unsetenv("OAK_BINDLESS");
    const char *be = "vulkan";
    bool ok = parity_draw(&be, 1, input, scene, &img);
    unsetenv("OAK_BINDLESS");
    return ok;
}

/* parity_scenes.h's hook: cpu, vulkan bindless, vulkan size classes. The two
   Vulkan paths must agree to the byte; bindless must keep parity with the
   CPU. */
static void parity(const char *name, const oak_frame_input *input, oak_scene *scene) {
    size_t n = (size_t)PW * PH * 4;
    uint8_t *cpu = oak_alloc(n), *bl = oak_alloc(n), *cls = oak_alloc(n);
    const char *be = "cpu";
    if (parity_draw(&be, 1, input, scene, &cpu) && draw_vulkan(NULL, input, scene, bl) &&
        draw_vulkan("off", input, scene, cls)) {
        size_t d = oak_test_bytes_differ(bl, cls, n);
        fprintf(stderr, "  %-14s bindless vs size classes: %zu of %zu bytes differ\n", name, d, n);
        CHECK_EQ_INT((int)d, 0);
        parity_compare(name, "cpu", "vulkan_bindless", cpu, bl);
    }
    oak_free(cpu);
    oak_free(bl);
    oak_free(cls);
}

/* FlightHelmet (five materials, each with base colour, normal and
   occlusion-roughness-metal maps of 2048 texels), framed to fill the view. */
TEST(flightHelmetMatchesOnBothPaths) {
    char path[256];
    oak_gltf *g = NULL;
    CHECK_OK(
        oak_gltf_load(&g, gltf_asset(path, sizeof path, "FlightHelmet/FlightHelmet.gltf"), NULL));
    if (!g) return;
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "helmet"));
    uint32_t n = oak_gltf_instance_points(inst, NULL, 0);
    float *pts = oak_alloc((size_t)n * 12 + 12);
    oak_gltf_instance_points(inst, pts, n);
    oak_framing f = {.yaw = 0.5f, .pitch = 0.25f, .share = 0.8f, .fov_y = 0.8f, .aspect = 16.f / 9};
    oak_test_frame_and_light(scene, pts, n, &f);
    oak_free(pts);
    parity("flight_helmet", NULL, scene);
    oak_gltf_instance_free(inst);
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

/* 36 textures of 36 size classes (6 widths x 6 heights, none a power of
   two): more classes than the 16 arrays hold. Each card's texture is a
   solid colour of its own, so a card drawn from the wrong image (or as
   white, the class path's fallback) shows. */
enum { GRID = 6, CARDS = GRID * GRID };

static void card_colour(int i, uint8_t out[3]) {
    out[0] = (uint8_t)(30 + 37 * (i % 6));
    out[1] = (uint8_t)(20 + 41 * (i / 6));
    out[2] = (uint8_t)(200 - 29 * ((i * 5) % 7));
}

TEST(moreTextureSizesThanClassesDrawRight) {
    pscene *s = pscene_new();
    if (!s) return;
    static uint8_t texels[65 * 65 * 4];
    oak_texture tex[CARDS];
    oak_mesh card = shape(OAK_SHAPE_PLANE, 1.1f, 0, 1.1f);
    for (int i = 0; i < CARDS; i++) {
        uint32_t w = (2u << (i % GRID)) + 1, h = (2u << (i / GRID)) + 1; /* 3 .. 65 */
        uint8_t c[3];
        card_colour(i, c);
        for (uint32_t p = 0; p < w * h; p++) {
            texels[4 * p + 0] = c[0], texels[4 * p + 1] = c[1], texels[4 * p + 2] = c[2];
            texels[4 * p + 3] = 255;
        }
        oak_texture_desc td = {.width = w, .height = h, .pixels = texels};
        CHECK_OK(oak_make_texture(&tex[i], &td));
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.metallic = 0;
        md.roughness = 1;
        md.base_color_tex.texture = tex[i];
        oak_material m = {0};
        CHECK_OK(oak_make_material(&m, &md));
        pscene_add(s, card, m, -3.75f + 1.5f * (i % GRID), 0, -3.0f + 1.2f * (i / GRID));
    }
    parity_look(s->in.camera_world, 0, 9, 5, 0, 0, -0.3f);
    pscene_sun(s, false);

    size_t n = (size_t)PW * PH * 4;
    uint8_t *cpu = oak_alloc(n), *bl = oak_alloc(n), *cls = oak_alloc(n);
    const char *be = "cpu";
    if (parity_draw(&be, 1, &s->in, NULL, &cpu) && draw_vulkan(NULL, &s->in, NULL, bl) &&
        draw_vulkan("off", &s->in, NULL, cls)) {
        parity_result r = parity_compare("many_sizes", "cpu", "vulkan_bindless", cpu, bl);
        /* the size classes run out: 20 of the cards read white there, so
           that path is far from the CPU's picture (the scene is a test
           the class arrays fail) */
        size_t far = 0;
        for (size_t i = 0; i < n; i++) far += abs((int)cpu[i] - (int)cls[i]) > 8;
        fprintf(stderr,
                "  many_sizes: bindless within 2/255 on %.4f%%; size classes differ by "
                "more than 8/255 on %.2f%% of channels\n",
                100.0 * r.within, 100.0 * (double)far / (double)n);
        CHECK(far > n / 50);
    }
    oak_free(cpu);
    oak_free(bl);
    oak_free(cls);

    /* The backend's own counters: 36 images in the runtime array and no
       class array made; with OAK_BINDLESS=off the 16 classes, none bindless. */
    vkt_frontend fe = {0};
    const oak_render_view *v = vkt_view(&fe, PW, PH, &s->in);
    CHECK(v != NULL);
    for (int off = 0; off < 2 && v; off++) {
        if (off) setenv("OAK_BINDLESS", "off", 1);
        void *vk = NULL;
        oak_backend_desc d = {.width = PW, .height = PH, .shadow_map_size = 256};
        CHECK_OK(oak_backend_vulkan()->create(&vk, &d));
        unsetenv("OAK_BINDLESS");
        if (!vk) continue;
        CHECK_OK(vkt_draw(vk, v, NULL));
        oak_vk_stats st;
        oak_vk_debug_stats(vk, &st);
        fprintf(stderr, "  %s: runtime array of %u, %u images, %u class arrays\n",
                off ? "OAK_BINDLESS=off" : "bindless", st.bindless, st.bindless_textures,
                st.texture_classes);
        if (off) {
            CHECK_EQ_INT((int)st.bindless, 0);
            CHECK_EQ_INT((int)st.texture_classes, OAK_GPU_TEXTURE_CLASSES);
        } else {
            CHECK(st.bindless >= CARDS);
            CHECK_EQ_INT((int)st.bindless_textures, CARDS);
            CHECK_EQ_INT((int)st.texture_classes, 0);
        }
        oak_backend_vulkan()->destroy(vk);
    }
    vkt_frontend_release(&fe);
    oak_free(s);
}

/* The device runs bindless (descriptor indexing) when OAK_BINDLESS is unset. */
static bool device_has_bindless(void) {
    unsetenv("OAK_BINDLESS");
    void *vk = NULL;
    oak_backend_desc d = {.width = 16, .height = 16, .shadow_map_size = 256};
    if (oak_backend_vulkan()->create(&vk, &d) != OAK_OK) return false;
    oak_vk_stats st;
    oak_vk_debug_stats(vk, &st);
    oak_backend_vulkan()->destroy(vk);
    return st.bindless != 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "vulkan") != 0) {
        fprintf(stderr, "skipped: bindless textures are Vulkan's (asked for %s)\n", argv[1]);
        return OAK_TEST_SKIP;
    }
    (void)parity_run_part; /* the scenes it runs are taken one by one below */
    vkt_init();
    if (!device_has_bindless()) {
        fprintf(stderr, "skipped: the Vulkan device has no descriptor indexing (%s)\n",
                oak_last_error());
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    RUN(moreTextureSizesThanClassesDrawRight);
    RUN(parityOddSizedTextures);
    RUN(parityMipmappedTexturesAtGrazingAngle);
    RUN(parityAlphaCutoutLeaves);
    RUN(flightHelmetMatchesOnBothPaths);
    RUN(parityDefaultWorld);
    CHECK_EQ_INT(vkt_validation_messages, 0);
    if (vkt_validation_messages) oak_test_failed_++;
    oak_shutdown();
    return TEST_SUMMARY();
}
