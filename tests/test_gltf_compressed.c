/* EXT_meshopt_compression and KHR_draco_mesh_compression: models compressed
 * by gltf-transform 4.5.1 (`gltf-transform meshopt` and `draco`, which also
 * quantize and reorder vertices) load and pose where their originals do: every
 * posed vertex of the original has one in the compressed model within
 * 2/1000 of the model's size (16-bit positions, quantized joint rotations),
 * over several animation times. A damaged
 * stream is a one-line error. */
#include "oak_test.h"

#include <math.h>
#include <string.h>

#include <oak/anim.h>

#include "gltf_test_assets.h"

typedef struct posed {
    float *pts;
    uint32_t n;
} posed;

/* The instance's points (posed through its skin) at time t of clip 0. */
static posed pose_at(const char *rel, float t) {
    posed out = {0};
    char path[256];
    oak_gltf *g = NULL;
    CHECK_OK(oak_gltf_load(&g, gltf_asset(path, sizeof path, rel), NULL));
    if (!g) return out;
    CHECK_EQ_INT(g->warning_count, 0);
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "m"));
    if (inst && g->clip_count) {
        oak_anim_player *p = oak_gltf_instance_player(inst);
        oak_anim_play(p, 0, false);
        oak_anim_set_time(p, t);
        p->playing = false;
        oak_anim_update(scene, 0);
        CHECK_OK(oak_skin_update(scene));
    }
    if (inst) {
        out.n = oak_gltf_instance_points(inst, NULL, 0);
        out.pts = oak_alloc((size_t)out.n * 12 + 12);
        oak_gltf_instance_points(inst, out.pts, out.n);
        oak_gltf_instance_free(inst);
    }
    oak_destroy_scene(scene);
    oak_gltf_free(g);
    return out;
}

/* The largest distance from a point of a to its nearest point of b, over the
   size of a's bounding box. */
static double worst_match(const posed *a, const posed *b) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < a->n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], a->pts[3 * i + k]);
            hi[k] = fmaxf(hi[k], a->pts[3 * i + k]);
        }
    double size = 0, worst = 0;
    for (int k = 0; k < 3; k++) size = fmax(size, hi[k] - lo[k]);
    for (uint32_t i = 0; i < a->n; i++) {
        double best = INFINITY;
        for (uint32_t j = 0; j < b->n; j++) {
            double d = 0;
            for (int k = 0; k < 3; k++) {
                double e = a->pts[3 * i + k] - b->pts[3 * j + k];
                d += e * e;
            }
            best = fmin(best, d);
        }
        worst = fmax(worst, sqrt(best));
    }
    return size > 0 ? worst / size : INFINITY;
}

static void compare(const char *original, const char *compressed, float t) {
    posed a = pose_at(original, t), b = pose_at(compressed, t);
    CHECK(a.n > 0);
    CHECK_EQ_INT(a.n, b.n);
    if (a.n && a.n == b.n) {
        double w = fmax(worst_match(&a, &b), worst_match(&b, &a));
        fprintf(stderr, "  %s at t=%.2f: %u points, worst %.2e of the model's size\n", compressed,
                (double)t, a.n, w);
        CHECK(w < 2e-3); /* quantized joint rotations move the skin ~1e-3 */
    }
    oak_free(a.pts);
    oak_free(b.pts);
}

TEST(compressedModelsPoseWhereTheirOriginalsDo) {
    compare("cube/cube.gltf", "meshopt/cube_meshopt.glb", 0);
    compare("cube/cube.gltf", "draco/cube_draco.glb", 0);
    for (int k = 0; k < 4; k++) {
        compare("SimpleSkin/SimpleSkin.gltf", "meshopt/SimpleSkin_meshopt.glb", 1.5f * k / 3);
        compare("SimpleSkin/SimpleSkin.gltf", "draco/SimpleSkin_draco.glb", 1.5f * k / 3);
    }
}

/* Every flipped byte of the compressed streams ends in OK or one line. */
static void flip_every_stream_byte(const char *rel) {
    char path[256];
    void *data = NULL;
    size_t size = 0;
    CHECK_OK(oak_read_file(gltf_asset(path, sizeof path, rel), &data, &size));
    if (!data) return;
    uint8_t *copy = oak_alloc(size);
    uint32_t refused = 0, loaded = 0;
    oak_gltf_desc d = {.no_assets = true};
    /* the BIN chunk starts after the 12-byte header, the JSON chunk and its
       8-byte header; flip each byte of the compressed streams in turn */
    uint32_t json_len;
    memcpy(&json_len, (uint8_t *)data + 12, 4);
    size_t bin = 12 + 8 + json_len + 8;
    for (size_t at = bin; at < size; at++) {
        memcpy(copy, data, size);
        copy[at] ^= 0x5a;
        oak_gltf *g = NULL;
        oak_result r = oak_gltf_load_memory(&g, copy, size, "cut.glb", &d);
        if (r) {
            refused++;
            CHECK(strchr(oak_last_error(), '\n') == NULL);
            CHECK(strncmp(oak_last_error(), "cut.glb: ", 9) == 0);
        } else {
            loaded++;
        }
        oak_gltf_free(g);
    }
    fprintf(stderr, "  %s: %zu flipped bytes: %u refused, %u loaded\n", rel, size - bin, refused,
            loaded);
    CHECK(refused > 0);
    oak_free(copy);
    oak_free(data);
}

TEST(damagedStreamsFailInOneLine) {
    flip_every_stream_byte("meshopt/cube_meshopt.glb");
    flip_every_stream_byte("draco/cube_draco.glb");
    flip_every_stream_byte("draco/SimpleSkin_draco.glb");
}

int main(void) {
    oak_test_init(0);
    RUN(compressedModelsPoseWhereTheirOriginalsDo);
    RUN(damagedStreamsFailInOneLine);
    oak_shutdown();
    return TEST_SUMMARY();
}
