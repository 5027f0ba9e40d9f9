/* Particles in scene files (docs/SCENE_FILES.md "particles", docs/WORLD.md
 * "Particles"): the campfire saved at 1.5 s and loaded again runs the same
 * emitters from the same clock, so its streams hold the same records to the
 * byte, then and a second later, and the CPU draws the same picture; the
 * file saves again to the same bytes; bad emitters fail the load with one
 * line naming the JSON path. */
#include <stdio.h>
#include <string.h>

#include "oak_test.h"

#include <oak/world.h>

#define W 96
#define H 54

static const oak_scene_load_desc from_out = {.asset_root = "."};

static bool same_file(const char *a, const char *b) {
    void *da = NULL, *db = NULL;
    size_t na = 0, nb = 0;
    bool same = !oak_read_file(a, &da, &na) && !oak_read_file(b, &db, &nb) && na == nb &&
                !memcmp(da, db, na);
    oak_free(da);
    oak_free(db);
    return same;
}

/* Every stream of every emitter of a and b holds the same records; the
   number of records compared goes to *total. */
static bool same_streams(oak_scene *a, oak_scene *b, uint32_t *total) {
    oak_particles *pa = NULL, *pb = NULL;
    if (oak_world_particles(a, &pa) || oak_world_particles(b, &pb)) return false;
    *total = 0;
    bool same = true;
    for (uint32_t e = 0; e < oak_scene_emitter_count(a); e++) {
        oak_particle_stats sa, sb;
        if (oak_particles_get_stats(pa, e, &sa) || oak_particles_get_stats(pb, e, &sb))
            return false;
        same &= sa.alive == sb.alive && sa.born == sb.born && sa.time == sb.time;
        for (uint32_t f = 0; f < OAK_PARTICLE_FRAMES; f++) {
            oak_stream *xa = oak_particles_frame_stream(pa, e, f);
            oak_stream *xb = oak_particles_frame_stream(pb, e, f);
            if (!xa || !xb) {
                same &= !xa && !xb;
                break;
            }
            uint32_t n = oak_stream_count(xa);
            same &= n == oak_stream_count(xb);
            if (n && n == oak_stream_count(xb))
                same &= !memcmp(oak_stream_records(xa), oak_stream_records(xb),
                                sizeof(oak_instance) * n);
            *total += n;
        }
    }
    return same;
}

static void draw(oak_scene *sc, uint8_t *px) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (!r) return;
    CHECK_OK(oak_scene_draw(sc, r));
    CHECK_OK(oak_renderer_read_pixels(r, px, (size_t)W * H * 4));
    oak_destroy_renderer(r);
}

TEST(campfireComesBackBurning) {
    oak_scene *s = NULL, *t = NULL;
    CHECK_OK(oak_make_scene(&s));
    if (!s) return;
    CHECK_OK(oak_world_build(s, "campfire"));
    CHECK_OK(oak_world_update(s, "campfire", 1.5f));
    CHECK_EQ_INT(oak_scene_emitter_count(s), 3);
    CHECK_NEAR(oak_scene_particle_time(s), 90 * OAK_PARTICLE_STEP, 1e-12);
    char p1[512], p2[512];
    oak_test_out(p1, sizeof p1, "campfire_1.json");
    oak_test_out(p2, sizeof p2, "campfire_2.json");
    CHECK_OK(oak_scene_save(s, p1));
    CHECK_OK(oak_world_register_painters());
    CHECK_OK(oak_scene_load_with(&t, p1, &from_out));
    if (!t) {
        oak_destroy_scene(s);
        return;
    }
    CHECK_OK(oak_scene_save(t, p2));
    CHECK(same_file(p1, p2));
    CHECK_EQ_INT(oak_scene_emitter_count(t), 3);
    /* running: the loaded emitters at the saved clock, the same records */
    CHECK_OK(oak_world_apply_particles(t));
    CHECK_OK(oak_world_apply_particles(t)); /* twice adds nothing */
    oak_particles *pt = NULL;
    CHECK_OK(oak_world_particles(t, &pt));
    CHECK(oak_particles_stream(pt, 2) != NULL && oak_particles_stream(pt, 3) == NULL);
    uint32_t n = 0;
    CHECK(same_streams(s, t, &n));
    fprintf(stderr, "  at 1.5 s: %u records the same\n", n);
    CHECK(n > 20);
    static uint8_t a[W * H * 4], b[W * H * 4];
    draw(s, a);
    draw(t, b);
    uint32_t lit = 0;
    for (int i = 0; i < W * H; i++) lit += a[i * 4] > 40;
    fprintf(stderr, "  the pictures: %s, %u pixels lit\n",
            memcmp(a, b, sizeof a) ? "differ" : "same", lit);
    CHECK(!memcmp(a, b, sizeof a));
    CHECK(lit > 20);
    /* a second on, both step the same way */
    CHECK_OK(oak_world_update_particles(s, 2.5f));
    CHECK_OK(oak_world_update_particles(t, 2.5f));
    CHECK(same_streams(s, t, &n));
    fprintf(stderr, "  at 2.5 s: %u records the same\n", n);
    CHECK(n > 20);
    oak_destroy_scene(t);
    oak_destroy_scene(s);
}

/* One emitter, moved after it was added: the file keeps where it is now. */
TEST(movedEmitterSavesWhereItIs) {
    oak_scene *s = NULL, *t = NULL;
    CHECK_OK(oak_make_scene(&s));
    if (!s) return;
    oak_particles *p = NULL;
    CHECK_OK(oak_world_particles(s, &p));
    oak_emitter_desc d = {.rate = 30, .seed = 7, .bursts = {{.at = 0.5f, .count = 5}}};
    d.color_key_count = 2;
    d.color_keys[0] = (oak_particle_key){0, {1, 0.5f, 0.25f, 1}};
    d.color_keys[1] = (oak_particle_key){1, {0, 0, 0, 0}};
    uint32_t i = 9;
    CHECK_OK(oak_particles_add_emitter(p, &d, &i));
    CHECK_EQ_INT(i, 0);
    CHECK_OK(oak_particles_set_position(p, 0, (float[3]){1, 2, 3}));
    CHECK_OK(oak_particles_update(p, 1.0));
    char p1[512];
    oak_test_out(p1, sizeof p1, "emitter_moved.json");
    CHECK_OK(oak_scene_save(s, p1));
    CHECK_OK(oak_scene_load_with(&t, p1, &from_out));
    oak_emitter_desc *e = t ? oak_scene_emitter(t, 0) : NULL;
    CHECK(e != NULL);
    if (e) {
        CHECK(e->position[0] == 1 && e->position[1] == 2 && e->position[2] == 3);
        CHECK_EQ_INT(e->bursts[0].count, 5);
        CHECK_EQ_INT(e->color_key_count, 2);
        CHECK(e->color_keys[0].value[1] == 0.5f);
        CHECK(e->material.id == 0); /* its own white material, made again */
        CHECK_NEAR(oak_scene_particle_time(t), 1.0, 1e-9);
    }
    oak_destroy_scene(t);
    oak_destroy_scene(s);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Each bad emitter fails the whole load with one line naming where. */
TEST(badEmittersFailWithOneLine) {
    static const struct {
        const char *json, *says;
    } cases[] = {
        {"{\"cone_degrees\": 200}", "particles.emitters[0]: cone_degrees not in [0, 180]"},
        {"{\"material\": 3}", "particles.emitters[0].material: 3 is out of range"},
        {"{\"flipbook\": [5, 4]}", "particles.emitters[0].flipbook: expected [columns, rows]"},
        {"{\"color_keys\": [{\"t\": 0.5, \"value\": [1, 1, 1, 1]}, {\"t\": 0.2, \"value\": [1, 1, "
         "1, 1]}]}",
         "particles.emitters[0]: colour keys"},
        {"{\"size_keys\": [{\"value\": [1, 0, 0, 0]}]}",
         "particles.emitters[0].size_keys[0].t: missing"},
        {"{\"bursts\": [{\"at\": 1}]}", "particles.emitters[0].bursts[0].count: missing"},
        {"{\"speed\": [2, 1]}", "particles.emitters[0]: speed not a range"},
        {"{\"wobble\": 1}", "particles.emitters[0].wobble: unknown field"},
    };
    char path[512];
    oak_test_out(path, sizeof path, "emitter_bad.json");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"oak_scene\": 1, \"materials\": [], \"particles\": {\"time\": 0, "
                 "\"emitters\": [%s]}}",
                 cases[k].json);
        write_text(path, text);
        oak_scene *s = NULL;
        CHECK_EQ_INT(oak_scene_load_with(&s, path, &from_out), OAK_ERROR_PARSE);
        CHECK(s == NULL);
        const char *msg = oak_last_error();
        fprintf(stderr, "  %s\n", msg);
        CHECK(strstr(msg, cases[k].says) != NULL);
        CHECK(strchr(msg, '\n') == NULL);
    }
    write_text(path, "{\"oak_scene\": 1, \"particles\": {\"time\": -1, \"emitters\": []}}");
    oak_scene *s = NULL;
    CHECK_EQ_INT(oak_scene_load_with(&s, path, &from_out), OAK_ERROR_PARSE);
    CHECK(strstr(oak_last_error(), "particles.time") != NULL);
}

int main(void) {
    oak_test_init(0);
    RUN(campfireComesBackBurning);
    RUN(movedEmitterSavesWhereItIs);
    RUN(badEmittersFailWithOneLine);
    oak_shutdown();
    return TEST_SUMMARY();
}
