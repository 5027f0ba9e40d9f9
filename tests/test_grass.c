/* Grass and flowers (world/grass.c) and the wind, benders and sink every
 * swaying stream takes (render/stream_cull.c, shaders/common/bend.glsl):
 * generation is the same at any thread count and follows the terrain's
 * material rule and densities; per-LOD counts match a brute-force count;
 * gusts travel; a blade's base stays while its tip moves; benders flatten;
 * sunk instances draw nothing; and (argv[1] vulkan or gl) that backend
 * draws a windy patch of grass as the CPU does, by 4 x 4 block means; and
 * OAK_GRASS_KERNEL=off (the host's growth) draws what the device's does. */
#include "oak_test.h"

#include "backend_start.h"
#include "grass_terrain.h"
#include "backend/gpu/gpu_records.h"
#include "render/stream.h"
#include "world/grass_internal.h"
#include "world/terrain_internal.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";

typedef struct gworld {
    oak_scene *scene;
    oak_terrain *terrain;
    oak_grass *grass;
    oak_entity camera;
} gworld;

/* High hills (the test adds a lake) and gentle meadow hills for pictures. */
static oak_terrain_desc rough_terrain(void) {
    return grass_terrain_rough(8, 600);
}
static oak_terrain_desc soft_terrain(void) {
    return grass_terrain_soft(8, 600);
}

static void gworld_look(gworld *w, const float eye[3], const float target[3]) {
    oak_transform t = oak_transform_look_at(eye, target);
    oak_scene_set_transform(w->scene, w->camera, &t);
}

static bool gworld_make(gworld *w, const oak_terrain_desc *td, const oak_grass_desc *gd,
                        const float eye[3], const float target[3]) {
    memset(w, 0, sizeof *w);
    CHECK_OK(oak_make_scene(&w->scene));
    if (!w->scene) return false;
    oak_entity sun = oak_scene_create(w->scene, "sun");
    float from[3] = {60, 80, 40}, at[3] = {0, 0, 0};
    oak_transform st = oak_transform_look_at(from, at);
    oak_scene_set_transform(w->scene, sun, &st);
    oak_light l = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    l.intensity = 3.0f;
    l.cast_shadows = true;
    oak_scene_set_light(w->scene, sun, &l);
    oak_post *post = oak_scene_post(w->scene);
    post->exposure = 1.0f;
    post->no_fxaa = true;
    post->no_dither = true;
    /* bands as authored (lod_scale 1): the counts need every band at a small render */
    oak_camera cam = {.fov_y = glm_rad(55.0f), .znear = 0.1f, .zfar = 2000.0f, .lod_scale = 1};
    w->camera = oak_scene_create(w->scene, "camera");
    oak_scene_set_camera(w->scene, w->camera, &cam);
    oak_scene_set_active_camera(w->scene, w->camera);
    gworld_look(w, eye, target);
    CHECK_OK(oak_make_terrain(&w->terrain, w->scene, td));
    if (!w->terrain) return false;
    CHECK_OK(oak_make_grass(&w->grass, w->scene, w->terrain, gd));
    if (!w->grass) return false;
    for (int i = 0; i < 64; i++) {
        CHECK_OK(oak_terrain_update(w->terrain, eye));
        CHECK_OK(oak_grass_update(w->grass, eye));
        oak_terrain_stats ts;
        oak_grass_stats gs;
        oak_terrain_get_stats(&ts, w->terrain);
        oak_grass_get_stats(&gs, w->grass);
        if (!ts.pending && !gs.pending) return true;
    }
    CHECK(!"grass did not settle");
    return false;
}

static void gworld_free(gworld *w) {
    oak_destroy_grass(w->grass); /* before the scene: it takes its streams out */
    oak_destroy_terrain(w->terrain);
    oak_destroy_scene(w->scene);
}

static uint64_t records_hash(const oak_stream *s) {
    uint64_t h = 1469598103934665603ull;
    const uint8_t *b = (const uint8_t *)oak_stream_records(s);
    for (size_t i = 0; i < (size_t)oak_stream_count(s) * sizeof(oak_instance); i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The same eye path grown on `threads` workers: the grass stream's hash. */
static uint64_t grown_hash(uint32_t threads, uint32_t *count) {
    oak_shutdown();
    oak_test_init(threads);
    gworld w;
    oak_terrain_desc td = soft_terrain();
    oak_grass_desc gd = {.seed = 9, .distance = 90, .budget = 2048};
    float eye[3] = {0, 10, 0}, at[3] = {0, 0, -50};
    uint64_t h = 0;
    *count = 0;
    if (gworld_make(&w, &td, &gd, eye, at)) {
        for (int f = 0; f < 6; f++) { /* walk: squares come and go within the budget */
            float e[3] = {9.0f * f, 10, -4.0f * f};
            CHECK_OK(oak_grass_update(w.grass, e));
        }
        h = records_hash(oak_grass_stream(w.grass, false)) ^
            3 * records_hash(oak_grass_stream(w.grass, true));
        *count = oak_stream_count(oak_grass_stream(w.grass, false));
    }
    gworld_free(&w);
    return h;
}

/* An order-free hash of a stream's grown records (slots place them by
   which slot a square got) in the 32 m squares within reach of eye (no
   rebase: scene is world), and how many there are. */
static uint64_t grown_set(const oak_stream *s, const float eye[3], float reach, uint32_t *n) {
    const oak_instance *rec = oak_stream_records(s);
    uint64_t sum = 0;
    *n = 0;
    for (uint32_t i = 0; i < oak_stream_count(s); i++) {
        if (!(rec[i].scale > 0)) continue;
        double x0 = floor(rec[i].position[0] / 32.0) * 32,
               z0 = floor(rec[i].position[2] / 32.0) * 32;
        double dx = fmax(fmax(x0 - eye[0], 0), eye[0] - (x0 + 32));
        double dz = fmax(fmax(z0 - eye[2], 0), eye[2] - (z0 + 32));
        if (dx * dx + dz * dz > (double)reach * reach) continue; /* a square kept past reach */
        const uint8_t *b = (const uint8_t *)&rec[i];
        uint64_t h = 1469598103934665603ull;
        for (size_t k = 0; k < sizeof *rec; k++) h = (h ^ b[k]) * 1099511628211ull;
        sum += h * 0x9E3779B97F4A7C15ull ^ h >> 29;
        (*n)++;
    }
    return sum;
}

/* A square grown from one grid of the finest heights gives the bits a
   height query per patch gives (the grid is the query's own float heights
   and arithmetic), on a terrain of 4 m cells (8 a square) and of 2 m (16). */
TEST(grassGridGrowsTheQuerysRecords) {
    for (int c = 0; c < 2; c++) {
        oak_terrain_desc td = soft_terrain();
        td.cells = c ? 16 : 8;
        oak_grass_desc gd = {.seed = 9, .distance = 120, .budget = 1u << 20};
        float eye[3] = {30, 10, -20}, at[3] = {0, 0, -50};
        gworld w;
        if (!gworld_make(&w, &td, &gd, eye, at)) {
            gworld_free(&w);
            return;
        }
        oak_grass *q = NULL;
        CHECK_OK(oak_make_grass(&q, w.scene, w.terrain, &gd));
        if (q) {
            _oak_grass_use_grid(q, false);
            uint64_t t0 = oak_time_ns();
            CHECK_OK(oak_grass_update(q, eye));
            double ms_query = oak_ms_since(t0);
            /* the grid's time on a fresh grass, for the record */
            oak_grass *g2 = NULL;
            CHECK_OK(oak_make_grass(&g2, w.scene, w.terrain, &gd));
            t0 = oak_time_ns();
            if (g2) CHECK_OK(oak_grass_update(g2, eye));
            double ms_grid = oak_ms_since(t0);
            oak_destroy_grass(g2);
            for (int f = 0; f < 2; f++) {
                const oak_stream *a = oak_grass_stream(w.grass, f), *b = oak_grass_stream(q, f);
                uint32_t na = oak_stream_count(a), nb = oak_stream_count(b);
                fprintf(stderr, "  %u cells a square, %s: %u and %u records%s\n", td.cells,
                        f ? "flowers" : "grass", na, nb, f ? "" : " (grid, query)");
                CHECK(f || na > 1000);
                CHECK_EQ_INT(na, nb);
                if (na == nb)
                    CHECK(!memcmp(oak_stream_records(a), oak_stream_records(b),
                                  (size_t)na * sizeof(oak_instance)));
            }
            fprintf(stderr, "  grown in one update: %.1f ms by the grid, %.1f ms by queries\n",
                    ms_grid, ms_query);
        }
        oak_destroy_grass(q);
        gworld_free(&w);
    }
}

/* A walk of 1.2 km: squares leave and arrive, their slots are zeroed and
   reused, the counts stay within the slots, every grown record stands in a
   live square near the eye, the stats count exactly the grown records, and
   at the end the streams hold, in the squares within reach, the very
   records a grass made there fresh grows. */
TEST(grassSlotsComeAndGo) {
    oak_terrain_desc td = soft_terrain();
    oak_grass_desc gd = {.seed = 6, .distance = 90, .budget = 1u << 20};
    float eye[3] = {0, 10, 0}, at[3] = {0, 0, -50};
    gworld w;
    if (!gworld_make(&w, &td, &gd, eye, at)) {
        gworld_free(&w);
        return;
    }
    const oak_stream *gs = oak_grass_stream(w.grass, false), *fs = oak_grass_stream(w.grass, true);
    uint32_t slot = _oak_grass_slot_size(w.grass, false), most = 0, far_off = 0, miscount = 0;
    const float keep = 90 + 1.5f * 32 + 32 * 1.4143f; /* reach, slack, a square's diagonal */
    for (int step = 1; step <= 30; step++) {
        float e[3] = {40.0f * step, 10, -12.0f * step};
        CHECK_OK(oak_terrain_update(w.terrain, e));
        CHECK_OK(oak_grass_update(w.grass, e));
        oak_grass_stats st;
        oak_grass_get_stats(&st, w.grass);
        CHECK(!st.pending);
        uint32_t n[2] = {0, 0};
        for (int f = 0; f < 2; f++) {
            const oak_stream *s = f ? fs : gs;
            const oak_instance *rec = oak_stream_records(s);
            for (uint32_t i = 0; i < oak_stream_count(s); i++) {
                if (!(rec[i].scale > 0)) continue;
                n[f]++;
                float dx = rec[i].position[0] - e[0], dz = rec[i].position[2] - e[2];
                far_off += dx * dx + dz * dz > keep * keep;
            }
        }
        miscount += n[0] != st.instances || n[1] != st.flowers;
        CHECK_EQ_INT(oak_stream_count(gs) % slot, 0);
        most = oak_stream_count(gs) > most ? oak_stream_count(gs) : most;
    }
    fprintf(stderr, "  slots of %u records; the grass stream's count at most %u of %u\n", slot,
            most, oak_stream_capacity(gs));
    CHECK_EQ_INT(far_off, 0);
    CHECK_EQ_INT(miscount, 0);
    CHECK(most <= oak_stream_capacity(gs));
    /* a fresh grass at the walk's end grows the same squares' records */
    float e[3] = {40.0f * 30, 10, -12.0f * 30};
    oak_grass *fresh = NULL;
    CHECK_OK(oak_make_grass(&fresh, w.scene, w.terrain, &gd));
    if (fresh) {
        CHECK_OK(oak_grass_update(fresh, e));
        for (int f = 0; f < 2; f++) {
            uint32_t na, nb;
            uint64_t a = grown_set(oak_grass_stream(w.grass, f), e, gd.distance, &na);
            uint64_t b = grown_set(oak_grass_stream(fresh, f), e, gd.distance, &nb);
            fprintf(stderr, "  %s: walked %u, fresh %u\n", f ? "flowers" : "grass", na, nb);
            CHECK(f || na > 1000);
            CHECK_EQ_INT(na, nb);
            CHECK(a == b);
        }
    }
    oak_destroy_grass(fresh);
    gworld_free(&w);
}

TEST(grassSameRecordsAtAnyThreadCount) {
    uint32_t n1, n4;
    uint64_t a = grown_hash(1, &n1), b = grown_hash(4, &n4);
    fprintf(stderr, "  1 thread: %u clumps, hash %016llx; 4 threads: %u, %016llx\n", n1,
            (unsigned long long)a, n4, (unsigned long long)b);
    CHECK(n1 > 1000);
    CHECK_EQ_INT(n1, n4);
    CHECK(a == b);
}

/* Every clump stands where the terrain's rule says grass (checked with the
   height query and the material shares), none under the lake, rooted just
   under the queried ground; the area holds rock, snow, steep dirt and
   water, so the rule had something to refuse; lush grows twice as dense
   as dry. */
TEST(grassFollowsTheMaterialRule) {
    gworld w;
    oak_terrain_desc td = rough_terrain();
    oak_grass_desc gd = {.seed = 4, .distance = 200, .no_flowers = true, .water = true};
    /* a place near the snow line, found with a terrain of its own */
    float eye[3] = {0, 0, 0}, at[3] = {0, 0, -50}, best = 1e9f;
    oak_scene *tmp = NULL;
    oak_terrain *probe = NULL;
    CHECK_OK(oak_make_scene(&tmp));
    CHECK_OK(oak_make_terrain(&probe, tmp, &td));
    for (float z = -1800; probe && z <= 1800; z += 100)
        for (float x = -1800; x <= 1800; x += 100) {
            float h;
            CHECK_OK(oak_terrain_height(probe, x, z, &h, NULL));
            if (fabsf(h - 160) < best) best = fabsf(h - 160), eye[0] = x, eye[2] = z;
        }
    /* and a lake over the lowest fifth of the ground around it */
    float lo = 1e9f;
    for (float z = eye[2] - 190; probe && z <= eye[2] + 190; z += 10)
        for (float x = eye[0] - 190; x <= eye[0] + 190; x += 10) {
            float h;
            CHECK_OK(oak_terrain_height(probe, x, z, &h, NULL));
            lo = fminf(lo, h);
        }
    gd.water_level = lo + 0.2f * (160 - lo);
    oak_destroy_terrain(probe);
    oak_destroy_scene(tmp);
    const float cx = eye[0], cz = eye[2];
    eye[1] = 400, at[0] = cx, at[2] = cz - 50;
    if (!gworld_make(&w, &td, &gd, eye, at)) {
        gworld_free(&w);
        return;
    }
    const oak_stream *s = oak_grass_stream(w.grass, false);
    const oak_instance *rec = oak_stream_records(s);
    uint32_t n = 0, bad = 0, wet = 0, off_ground = 0;
    for (uint32_t i = 0; i < oak_stream_count(s); i++) {
        if (!(rec[i].scale > 0)) continue; /* a slot's unused record */
        n++;
        float h, nrm[3], var, sh[4];
        CHECK_OK(
            _oak_terrain_ground(w.terrain, rec[i].position[0], rec[i].position[2], &h, nrm, &var));
        _oak_terrain_material_shares(sh, nrm[1], h, var);
        float grass = (1 - sh[1]) * (1 - sh[2]) * (1 - sh[3]);
        bad += !(grass > 0);
        wet += h < gd.water_level + 0.2f;
        off_ground += fabsf(rec[i].position[1] - (h - 0.03f)) > 1e-3f;
    }
    /* what the patches' ground is, on a 2 m grid over the grown squares */
    uint32_t rock = 0, snow = 0, steep = 0, water = 0, lush = 0, dry = 0, sampled = 0;
    for (float z = cz - 190; z < cz + 190; z += 2)
        for (float x = cx - 190; x < cx + 190; x += 2) {
            float h, nrm[3], var, sh[4];
            if (_oak_terrain_ground(w.terrain, x, z, &h, nrm, &var)) continue;
            _oak_terrain_material_shares(sh, nrm[1], h, var);
            sampled++;
            rock += sh[2] >= 0.999f, snow += sh[3] >= 0.999f, steep += sh[1] >= 0.999f;
            water += h < gd.water_level;
        }
    (void)lush, (void)dry;
    fprintf(stderr,
            "  around (%.0f, %.0f): %u clumps: %u off grass, %u under water, %u not on the ground; "
            "of %u samples %u "
            "rock, %u snow, %u steep, %u under water\n",
            (double)cx, (double)cz, n, bad, wet, off_ground, sampled, rock, snow, steep, water);
    CHECK(n > 500);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(wet, 0);
    CHECK_EQ_INT(off_ground, 0);
    CHECK(rock > 100 && snow > 20 && steep > 100 && water > 100);
    gworld_free(&w);
}

/* Patches grow as often as the rule's density says: lush patches
   (density 1) all, dry-leaning ones (density 0.5 .. 0.65, half dry or
   more) at their density; fully dry grass is half as dense as lush by the
   rule. Each patch is classed by the density at its centre, grown ones by
   where their clump stands. */
TEST(grassDensityByMaterial) {
    gworld w;
    oak_terrain_desc td = soft_terrain();
    oak_grass_desc gd = {.seed = 2, .distance = 400, .no_flowers = true, .budget = 1u << 20};
    float eye[3] = {0, 40, 0}, at[3] = {0, 0, -50};
    if (!gworld_make(&w, &td, &gd, eye, at)) {
        gworld_free(&w);
        return;
    }
    const oak_stream *s = oak_grass_stream(w.grass, false);
    const oak_instance *rec = oak_stream_records(s);
    uint32_t n = oak_stream_count(s);
    /* grown patches by index (2 m squares within 350 m: all grown; a
       slot's unused records, scale 0, are none) */
    enum { R = 175, SIDE = 2 * R };
    static uint8_t grown[SIDE * SIDE];
    memset(grown, 0, sizeof grown);
    for (uint32_t i = 0; i < n; i++) {
        if (!(rec[i].scale > 0)) continue;
        int px = (int)floorf(rec[i].position[0] / 2) + R;
        int pz = (int)floorf(rec[i].position[2] / 2) + R;
        if (px >= 0 && px < SIDE && pz >= 0 && pz < SIDE) grown[pz * SIDE + px] = 1;
    }
    uint32_t cls[2] = {0, 0}, got[2] = {0, 0};
    double want[2] = {0, 0};
    for (int pz = 0; pz < SIDE; pz++)
        for (int px = 0; px < SIDE; px++) {
            double x = (px - R) * 2.0 + 1, z = (pz - R) * 2.0 + 1;
            if (x * x + z * z > 340.0 * 340.0) continue; /* the squares grown are a disc */
            float d = oak_grass_density(w.grass, x, z);
            int c = d >= 0.99f ? 0 : (d >= 0.5f && d < 0.65f ? 1 : -1);
            if (c < 0) continue;
            cls[c]++, got[c] += grown[pz * SIDE + px], want[c] += d;
        }
    /* the rule itself: fully dry against lush, on flat low ground */
    float sh[4];
    _oak_terrain_material_shares(sh, 1.0f, 0.0f, 1.0f);
    float dry_rule = (1 - sh[1]) * (1 - sh[2]) * (1 - sh[3]) * (1 - 0.5f * sh[0]);
    double lush = cls[0] ? got[0] / want[0] : 0, dry = cls[1] ? got[1] / want[1] : 0;
    fprintf(stderr,
            "  lush: %u of %u patches grown (%.3f of the density's count); drier (0.5-0.65): %u "
            "of %u (%.3f); fully dry grows at %.3f of lush\n",
            got[0], cls[0], lush, got[1], cls[1], dry, (double)dry_rule);
    CHECK(cls[0] > 1000 && cls[1] > 1000);
    CHECK(fabs(lush - 1) < 0.03);
    CHECK(fabs(dry - 1) < 0.08);
    CHECK_NEAR(dry_rule, 0.5, 1e-6);
    gworld_free(&w);
}

/* The gust at (x, t) is the gust at (x + v dt along the wind, t + dt), and
   the field does vary. */
TEST(windGustsTravel) {
    oak_wind w = {.direction = {3, 4},
                  .strength = 2,
                  .gust = 0.6f,
                  .gust_wavelength = 30,
                  .gust_speed = 5,
                  .time = 12.5f};
    float worst = 0, lo = 1e9f, hi = -1e9f;
    for (int i = 0; i < 200; i++) {
        float x = -80 + 0.83f * i, z = 40 - 0.37f * i, a[2], b[2];
        oak_wind_shear(&w, x, z, a);
        oak_wind moved = w;
        float dt = 1.75f;
        moved.time = w.time + dt;
        oak_wind_shear(&moved, x + 5 * dt * 0.6f, z + 5 * dt * 0.8f, b);
        worst = fmaxf(worst, fmaxf(fabsf(a[0] - b[0]), fabsf(a[1] - b[1])));
        float m = sqrtf(a[0] * a[0] + a[1] * a[1]);
        lo = fminf(lo, m), hi = fmaxf(hi, m);
        /* along the wind, within strength (1 +- gust) */
        CHECK(fabsf(a[0] * 0.8f - a[1] * 0.6f) < 1e-5f);
        CHECK(m >= 2 * 0.4f - 1e-4f && m <= 2 * 1.6f + 1e-4f);
    }
    fprintf(stderr,
            "  carried %g m at 5 m/s: shears differ by at most %.2e; |shear| %.3f .. %.3f\n",
            5 * 1.75, (double)worst, (double)lo, (double)hi);
    CHECK(worst < 2e-4f);
    CHECK(hi - lo > 1.0f);
}

/* ---- single blades on a flat ground, for the pictures -------------------- */

typedef struct blades {
    oak_frame_input in;
    oak_mesh mesh[1];
    oak_material mat[1];
    mat4 world[1];
    oak_environment env;
    oak_post post;
    oak_stream *stream;
} blades;

static oak_mesh g_ground, g_blade;
static oak_material g_ground_mat, g_blade_mat;

/* A 1 m blade: a thin quad from y 0 to 1 (two triangles), 0.12 m wide. */
static void make_assets(void) {
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {60, 0, 60}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    const float pos[12] = {-0.06f, 0, 0, 0.06f, 0, 0, 0.06f, 1, 0, -0.06f, 1, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    oak_mesh_desc md = {
        .vertex_count = 4, .index_count = 6, .positions = pos, .normals = nrm, .indices = idx};
    CHECK_OK(oak_make_mesh(&g_blade, &md));
    g_ground_mat = oak_test_emitter(0.05f);
    oak_material_desc bd = oak_material_desc_defaults(NULL);
    bd.base_color[0] = bd.base_color[1] = bd.base_color[2] = 0;
    bd.emissive[0] = 0.9f, bd.emissive[1] = 0.9f, bd.emissive[2] = 0.2f;
    bd.double_sided = true;
    CHECK_OK(oak_make_material(&g_blade_mat, &bd));
}

/* n blades in a row across x at z = 0 (spacing 0.5 m), sway 0.5, sink as given. */
static void blades_init(blades *b, uint32_t n, float last, float sink) {
    memset(b, 0, sizeof *b);
    b->mesh[0] = g_ground;
    b->mat[0] = g_ground_mat;
    glm_mat4_identity(b->world[0]);
    oak_test_dark_world(&b->env, &b->post);
    b->in.camera = (oak_camera){.fov_y = glm_rad(40), .znear = 0.1f, .zfar = 200, .lod_scale = 1};
    b->in.draw_count = 1;
    b->in.meshes = b->mesh;
    b->in.materials = b->mat;
    b->in.transforms = (const mat4 *)b->world;
    b->in.environment = &b->env;
    b->in.post = &b->post;
    mat4 view;
    glm_lookat((vec3){0, 0.6f, 3.2f}, (vec3){0, 0.5f, 0}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, b->in.camera_world);
    oak_stream_desc d = {.capacity = 64,
                         .lod_count = 1,
                         .lods = {{g_blade, last}},
                         .material = g_blade_mat,
                         .flags = OAK_DRAW_NO_SHADOW,
                         .sway = 0.5f,
                         .sink = sink};
    CHECK_OK(oak_make_stream(&b->stream, &d));
    oak_instance rec[64];
    for (uint32_t i = 0; i < n && i < 64; i++)
        rec[i] = (oak_instance){.position = {0.5f * ((float)i - 0.5f * (n - 1)), 0, 0},
                                .scale = 1,
                                .rotation = {0, 0, 0, 1},
                                .color = {1, 1, 1}};
    if (b->stream) {
        CHECK_OK(oak_stream_write(b->stream, 0, rec, n));
        CHECK_OK(oak_stream_set_count(b->stream, n));
    }
    b->in.stream_count = b->stream ? 1 : 0;
    b->in.streams = &b->stream;
    b->env.wind = (oak_wind){.direction = {1, 0},
                             .strength = 0.6f,
                             .gust = 0.8f,
                             .gust_wavelength = 13,
                             .gust_speed = 4};
}

/* One renderer of the test's backend for every picture (a GPU backend
   takes seconds to start on the software devices). */
static oak_renderer *g_renderer;

static oak_renderer *renderer(void) {
    if (!g_renderer) {
        oak_renderer_desc d = {
            .backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
        CHECK_OK(oak_make_renderer(&g_renderer, &d));
    }
    return g_renderer;
}

static bool draw(const oak_frame_input *in, uint8_t *px) {
    oak_renderer *r = renderer();
    bool ok = r && oak_renderer_draw(r, in) == OAK_OK &&
              oak_renderer_read_pixels(r, px, W * H * 4) == OAK_OK;
    CHECK(ok);
    return ok;
}

/* lit blade pixels (the blade is yellow: red well over blue) in rows [y0, y1):
   count and mean column */
static uint32_t blade_pixels(const uint8_t *px, int y0, int y1, float *mean_x) {
    uint32_t n = 0;
    double sx = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = px + ((size_t)y * W + x) * 4;
            if (p[0] > 60 && p[0] > p[2] + 40) n++, sx += x;
        }
    *mean_x = n ? (float)(sx / n) : -1;
    return n;
}

/* One blade in the wind at two times on `g_backend`: the rows at its base
   show it in the same columns, the rows at its tip move. */
TEST(windMovesTipsNotBases) {
    static blades b;
    static uint8_t p0[W * H * 4], p1[W * H * 4];
    make_assets();
    blades_init(&b, 1, 0, 0);
    b.env.wind.time = 0.0f;
    bool ok = draw(&b.in, p0);
    b.env.wind.time = 0.8f; /* a quarter of a gust's period later: the gust's crest */
    ok = ok && draw(&b.in, p1);
    if (ok) {
        /* where the blade's base and tip are on screen: project (0, 0.05) and (0, 0.95) */
        mat4 view, proj, vp;
        glm_mat4_inv(b.in.camera_world, view);
        glm_perspective(b.in.camera.fov_y, (float)W / H, 0.1f, 200, proj);
        glm_mat4_mul(proj, view, vp);
        vec4 base = {0, 0.05f, 0, 1}, tip = {0, 0.95f, 0, 1}, cb, ct;
        glm_mat4_mulv(vp, base, cb);
        glm_mat4_mulv(vp, tip, ct);
        int yb = (int)((0.5f - 0.5f * cb[1] / cb[3]) * H),
            yt = (int)((0.5f - 0.5f * ct[1] / ct[3]) * H);
        float bx0, bx1, tx0, tx1;
        uint32_t nb0 = blade_pixels(p0, yb - 3, yb + 1, &bx0),
                 nb1 = blade_pixels(p1, yb - 3, yb + 1, &bx1);
        uint32_t nt0 = blade_pixels(p0, yt - 1, yt + 4, &tx0),
                 nt1 = blade_pixels(p1, yt - 1, yt + 4, &tx1);
        float s0[2], s1[2];
        oak_wind w0 = b.env.wind;
        w0.time = 0;
        oak_wind_shear(&w0, 0, 0, s0);
        w0.time = 0.8f;
        oak_wind_shear(&w0, 0, 0, s1);
        fprintf(stderr,
                "  %s: base rows %u/%u px at x %.2f/%.2f; tip rows %u/%u px at x %.2f/%.2f (shear "
                "%.3f -> %.3f m per m)\n",
                g_backend, nb0, nb1, (double)bx0, (double)bx1, nt0, nt1, (double)tx0, (double)tx1,
                (double)(0.5f * s0[0]), (double)(0.5f * s1[0]));
        CHECK(nb0 > 0 && nt0 > 0 && nt1 > 0);
        CHECK(fabsf(bx0 - bx1) < 0.5f);
        CHECK(fabsf(tx0 - tx1) > 2.0f);
    }
    oak_destroy_stream(b.stream);
}

/* A bender flattens and pushes away what it covers, nothing else. */
TEST(benderFlattensInsideItsRadius) {
    static blades b;
    blades_init(&b, 9, 0, 0);
    b.env.wind.strength = 0; /* the bender alone */
    b.env.bender_count = 1;
    b.env.benders[0] = (oak_bender){.center = {0.1f, 0.2f, 0}, .radius = 1.2f};
    oak_instance_bend bend;
    float eye[3] = {0, 0.6f, 3.2f};
    oak_stream_desc d = {.lod_count = 1, .sway = 0.5f};
    CHECK(_oak_instance_bend_make(&bend, &d, &b.env, 0, eye));
    const oak_instance *rec = oak_stream_records(b.stream);
    uint32_t flat = 0, still = 0;
    for (uint32_t i = 0; i < 9; i++) {
        mat4 m;
        _oak_instance_matrix(&bend, &rec[i], m);
        float dx = rec[i].position[0] - 0.1f, dist = sqrtf(dx * dx + 0.04f);
        float t = 1 - dist / 1.2f;
        if (t > 0) {
            /* height scaled by 1 - 0.7 t, the tip pushed away from the centre */
            CHECK_NEAR(m[1][1], 1 - (float)OAK_BEND_FLATTEN * t, 1e-5);
            CHECK(m[1][0] * dx > 0);
            flat++;
        } else {
            CHECK_NEAR(m[1][1], 1, 1e-6);
            CHECK_NEAR(m[1][0], 0, 1e-6);
            still++;
        }
        CHECK_NEAR(m[3][0], rec[i].position[0], 1e-6); /* the base stays */
    }
    /* and the frontend draws those matrices (the CPU's expanded draws) */
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = "cpu", .width = W, .height = H};
    CHECK_OK(oak_make_renderer(&r, &rd));
    uint32_t seen = 0;
    if (r) {
        CHECK_OK(oak_renderer_draw(r, &b.in));
        const oak_render_view *v = oak_renderer_last_view(r);
        for (uint32_t i = 0; i < v->draws.count; i++) {
            if (v->draws.mesh[i].id != g_blade.id) continue;
            float x = v->draws.world[i][3][0], dx = x - 0.1f, t = 1 - sqrtf(dx * dx + 0.04f) / 1.2f;
            CHECK_NEAR(v->draws.world[i][1][1], t > 0 ? 1 - (float)OAK_BEND_FLATTEN * t : 1, 1e-5);
            seen++;
        }
    }
    fprintf(stderr, "  %u flattened, %u untouched; %u drawn with the bent matrix\n", flat, still,
            seen);
    CHECK(flat >= 3 && still >= 3 && seen >= 6);
    oak_destroy_renderer(r);
    oak_destroy_stream(b.stream);
}

/* Near the last band's end an instance is scaled to nothing and lowered
   under its origin: blades standing there draw nothing (the picture is the
   ground's alone), and past the end they are gone. */
TEST(sunkInstancesDrawNothing) {
    static blades b;
    static uint8_t with[W * H * 4], without[W * H * 4];
    /* the blades stand 3.26 m from the eye: last 3.27 m, a 2 m band, so
       f = 0.005 (0.5 cm tall) lowered by 0.05 m */
    blades_init(&b, 5, 3.27f, 2.0f);
    oak_instance_bend bend;
    float eye[3] = {0, 0.6f, 3.2f};
    oak_stream_desc d = {.lod_count = 1, .lods = {{g_blade, 3.27f}}, .sink = 2.0f};
    CHECK(_oak_instance_bend_make(&bend, &d, &b.env, 0, eye));
    mat4 m;
    const oak_instance *rec = oak_stream_records(b.stream);
    _oak_instance_matrix(&bend, &rec[2], m);
    float top = m[3][1] + m[1][1]; /* the blade's tip (y 1) */
    fprintf(stderr, "  height scale %.4f, origin %.4f m, tip %.4f m (ground 0)\n", (double)m[1][1],
            (double)m[3][1], (double)top);
    CHECK(m[1][1] < 0.01f);
    CHECK(top < 0);
    bool ok = draw(&b.in, with);
    b.in.stream_count = 0;
    ok = ok && draw(&b.in, without);
    if (ok) {
        size_t differ = 0;
        for (size_t i = 0; i < (size_t)W * H * 4; i++) differ += with[i] != without[i];
        fprintf(stderr, "  %s: %zu bytes differ from the picture without them\n", g_backend,
                differ);
        CHECK_EQ_INT(differ, 0);
    }
    oak_destroy_stream(b.stream);
}

/* ---- the counts and the picture of a grass patch ------------------------- */

static void grass_patch(gworld *w, float wind_time, bool *ok) {
    oak_terrain_desc td = soft_terrain();
    oak_grass_desc gd = {.seed = 7, .distance = 60, .plants = 0.35f, .height = 0.5f};
    float h;
    *ok = false;
    float eye[3] = {0, 0, 6}, at[3] = {0, 0, -12};
    oak_terrain *probe = NULL;
    oak_scene *tmp = NULL;
    CHECK_OK(oak_make_scene(&tmp));
    CHECK_OK(oak_make_terrain(&probe, tmp, &td));
    if (probe) {
        CHECK_OK(oak_terrain_height(probe, 0, 6, &h, NULL));
        eye[1] = h + 1.6f;
        CHECK_OK(oak_terrain_height(probe, 0, -12, &h, NULL));
        at[1] = h;
    }
    oak_destroy_terrain(probe);
    oak_destroy_scene(tmp);
    if (!gworld_make(w, &td, &gd, eye, at)) return;
    oak_environment *env = oak_scene_environment(w->scene);
    env->wind =
        (oak_wind){.direction = {1, 0.3f}, .strength = 1.5f, .gust = 0.5f, .time = wind_time};
    *ok = true;
}

/* Draws w once on r and holds the per-LOD counts after culling to a
   brute-force count over the grown records (the kernel's matrix, the LOD
   meshes' spheres, the frustum). */
static void check_counts(gworld *w, oak_renderer *r, uint32_t want_near) {
    CHECK_OK(oak_scene_draw(w->scene, r));
    const oak_render_view *v = oak_renderer_last_view(r);
    uint32_t got[OAK_STREAM_LODS] = {0}, want[OAK_STREAM_LODS] = {0};
    if (!strcmp(g_backend, "cpu")) {
        oak_stream_stats st;
        CHECK_OK(oak_renderer_stream_stats(r, &st));
        memcpy(got, st.per_lod, sizeof got);
    } else {
        CHECK_OK(oak_renderer_read_stream_counts(r, got));
    }
    vec4 planes[6];
    mat4 vp;
    memcpy(vp, v->view_proj, sizeof vp);
    oak_frustum_planes(vp, planes);
    oak_grass_stats gs;
    oak_grass_get_stats(&gs, w->grass);
    for (int s = 0; s < 2; s++) {
        const oak_stream *st = oak_grass_stream(w->grass, s == 1);
        const oak_render_stream *rs = &v->streams[s];
        const oak_instance *rec = oak_stream_records(st);
        for (uint32_t i = 0; i < oak_stream_count(st); i++) {
            if (!(rec[i].scale > 0)) continue; /* every kernel skips these */
            float d[3] = {rec[i].position[0] - v->camera_pos[0],
                          rec[i].position[1] - v->camera_pos[1],
                          rec[i].position[2] - v->camera_pos[2]};
            float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            uint32_t lod = 0;
            while (lod + 1 < rs->lod_count && dist >= rs->lod_distance[lod]) lod++;
            if (dist >= rs->lod_distance[rs->lod_count - 1]) continue;
            mat4 m;
            _oak_instance_matrix(&rs->bend, &rec[i], m);
            const oak_mesh_data *md = oak_mesh_get(rs->lods[lod]);
            vec4 c = {md->bounds.center[0], md->bounds.center[1], md->bounds.center[2], 1}, wc;
            glm_mat4_mulv(m, c, wc);
            float sc = 0;
            for (int k = 0; k < 3; k++)
                sc = fmaxf(sc, sqrtf(m[k][0] * m[k][0] + m[k][1] * m[k][1] + m[k][2] * m[k][2]));
            if (oak_frustum_sphere((const vec4 *)planes, wc, md->bounds.radius * sc)) want[lod]++;
        }
    }
    uint64_t eq = 0, drawn = 0;
    for (int k = 0; k < OAK_STREAM_LODS; k++) {
        eq += (uint64_t)got[k] * gs.blades_each;
        drawn += (uint64_t)got[k] * gs.blades[k];
    }
    fprintf(stderr,
            "  %s: per LOD %u %u %u %u, brute force %u %u %u %u; %llu blades drawn standing for "
            "%llu (grass and flowers summed)\n",
            g_backend, got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3],
            (unsigned long long)drawn, (unsigned long long)eq);
    CHECK(want[0] >= want_near && want[1] > 20 && want[2] > 20);
    for (int k = 0; k < OAK_STREAM_LODS; k++) {
        /* the CPU's kernel is this count; a GPU's float may tip an edge instance */
        uint32_t slack = strcmp(g_backend, "cpu") ? 1 + want[k] / 200 : 0;
        CHECK(got[k] + slack >= want[k] && got[k] <= want[k] + slack);
    }
}

/* The per-LOD counts after culling equal a brute-force count over the
   records (the kernel's matrix, the LOD meshes' spheres, the frustum). */
TEST(grassCountsMatchBruteForce) {
    gworld w;
    bool ok;
    grass_patch(&w, 3.0f, &ok);
    oak_renderer *r = renderer();
    if (ok && r) check_counts(&w, r, 1);
    gworld_free(&w);
}

/* Squares leave and arrive between frames drawn (a GPU backend's copies,
   one a frame in flight, catch up by the ranges written since each): after
   a walk of 16 frames, with the grass's frames in between, the counts
   still match the records the host holds. */
TEST(grassCountsAfterAWalk) {
    gworld w;
    bool ok;
    grass_patch(&w, 3.0f, &ok);
    oak_renderer *r = renderer();
    if (ok && r) {
        uint32_t grown = 0, dropped = 0;
        for (int f = 1; f <= 16; f++) {
            float eye[3] = {9.0f * f, 0, 6 - 5.0f * f}, at[3] = {9.0f * f, 0, -12 - 5.0f * f}, h;
            CHECK_OK(oak_terrain_height(w.terrain, eye[0], eye[2], &h, NULL));
            eye[1] = h + 1.6f;
            CHECK_OK(oak_terrain_height(w.terrain, at[0], at[2], &h, NULL));
            at[1] = h;
            gworld_look(&w, eye, at);
            CHECK_OK(oak_terrain_update(w.terrain, eye));
            CHECK_OK(oak_grass_update(w.grass, eye));
            oak_grass_stats gs;
            oak_grass_get_stats(&gs, w.grass);
            grown += gs.grown, dropped += gs.dropped;
            if (f < 16) CHECK_OK(oak_scene_draw(w.scene, r));
        }
        fprintf(stderr, "  walked 16 frames: %u squares grown and %u dropped on the way\n", grown,
                dropped);
        CHECK(grown > 10 && dropped > 10);
        check_counts(&w, r, 0);
    }
    gworld_free(&w);
}

/* 4 x 4 block means of two pictures within the parity rule, and the share
   of single pixels within 2/255 (stated, not held: blades are sub-pixel). */
static void block_parity(const char *what, const uint8_t *a, const uint8_t *b) {
    static uint8_t ma[(W / 4) * (H / 4) * 4], mb[(W / 4) * (H / 4) * 4];
    for (int by = 0; by < H / 4; by++)
        for (int bx = 0; bx < W / 4; bx++)
            for (int c = 0; c < 4; c++) {
                int sa = 0, sb = 0;
                for (int y = 0; y < 4; y++)
                    for (int x = 0; x < 4; x++) {
                        size_t i = ((size_t)(by * 4 + y) * W + bx * 4 + x) * 4 + c;
                        sa += a[i], sb += b[i];
                    }
                ma[((size_t)by * (W / 4) + bx) * 4 + c] = (uint8_t)((sa + 8) / 16);
                mb[((size_t)by * (W / 4) + bx) * 4 + c] = (uint8_t)((sb + 8) / 16);
            }
    size_t near = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) near += abs((int)a[i] - (int)b[i]) <= 2;
    fprintf(stderr, "  %s: single pixels %.4f within 2/255\n", what, (double)near / (W * H * 4));
    oak_test_parity(what, ma, mb, W / 4, H / 4);
}

TEST(grassParityWithWind) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    const char *backends[2] = {"cpu", g_backend};
    uint8_t *img[2] = {a, b};
    uint32_t covered = 0, grassy = 0;
    for (int k = 0; k < 2; k++) {
        gworld w;
        bool ok;
        grass_patch(&w, 4.25f, &ok);
        oak_renderer *r = NULL;
        oak_renderer_desc rd = {
            .backend = backends[k], .width = W, .height = H, .shadow_map_size = 512};
        if (k == 0)
            CHECK_OK(oak_make_renderer(&r, &rd));
        else
            r = renderer();
        if (ok && r) {
            CHECK_OK(oak_scene_draw(w.scene, r));
            CHECK_OK(oak_renderer_read_pixels(r, img[k], (size_t)W * H * 4));
            oak_stream_stats st;
            CHECK_OK(oak_renderer_stream_stats(r, &st));
            if (k == 0) covered = st.visible;
            if (k == 0) { /* the same without the grass: how much of the picture it is */
                static uint8_t bare[W * H * 4];
                oak_destroy_grass(w.grass);
                w.grass = NULL;
                CHECK_OK(oak_scene_draw(w.scene, r));
                CHECK_OK(oak_renderer_read_pixels(r, bare, (size_t)W * H * 4));
                for (size_t i = 0; i < (size_t)W * H; i++) {
                    int d = 0;
                    for (int c = 0; c < 3; c++) d += abs((int)a[i * 4 + c] - (int)bare[i * 4 + c]);
                    grassy += d > 6;
                }
            }
        }
        if (k == 0) oak_destroy_renderer(r);
        gworld_free(&w);
    }
    fprintf(stderr, "  %u clumps in view; %u of %d pixels differ from the bare ground\n", covered,
            grassy, W * H);
    CHECK(covered > 50);
    CHECK(grassy > W * H / 10);
    char what[64];
    snprintf(what, sizeof what, "grass with wind, cpu vs %s, 4x4 block means", g_backend);
    block_parity(what, a, b);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    const char *dir = getenv("OAK_TEST_OUT");
    if (dir) {
        char path[512];
        snprintf(path, sizeof path, "%s/grass_%s.png", dir, g_backend);
        CHECK_OK(oak_image_write_png(path, W, H, b));
    }
}

/* OAK_GRASS_KERNEL=off grows every square on the host at the update (the
   GPUs upload the records) and gives the picture the device's growth
   gives: on the cpu the same bytes (the host grows the same records either
   way, only later), on a GPU the same within the kernel's float rounding
   (docs/WORLD.md "Grass": a few pixels at most move by a level or two). */
TEST(grassKernelOffSamePicture) {
    static uint8_t img[2][W * H * 4];
    bool stale[2] = {false, false};
    for (int k = 0; k < 2; k++) {
        if (k) setenv("OAK_GRASS_KERNEL", "off", 1);
        gworld w;
        bool ok;
        grass_patch(&w, 4.25f, &ok);
        /* a step on: squares arrive that no one read yet */
        float eye[3] = {0, 0, -26};
        if (ok) CHECK_OK(oak_grass_update(w.grass, eye));
        stale[k] = ok && oak_grass_stream(w.grass, false)->host_stale;
        oak_renderer *r = renderer();
        if (ok && r) {
            CHECK_OK(oak_scene_draw(w.scene, r));
            CHECK_OK(oak_renderer_read_pixels(r, img[k], (size_t)W * H * 4));
        }
        gworld_free(&w);
        unsetenv("OAK_GRASS_KERNEL");
    }
    uint32_t off = 0, most = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) {
        uint32_t d = (uint32_t)abs((int)img[0][i] - (int)img[1][i]);
        off += d > 0, most = d > most ? d : most;
    }
    fprintf(stderr,
            "  %s: the kernel's picture and the host's differ in %u channels, by %u at most\n",
            g_backend, off, most);
    CHECK(stale[0] && !stale[1]); /* the device's growth leaves the host's copy to its readers */
    if (!strcmp(g_backend, "cpu"))
        CHECK_EQ_INT(off, 0);
    else
        CHECK(off <= W * H * 4 / 200 && most <= 8);
}

/* The GPU upload ledger tells two streams apart by their serials, not by
   their records' address and version alone: a stream made where a
   destroyed one's records were gets that address again from glibc (ASan's
   quarantine never hands it back) and the same versions, and the ledger
   took the old stream's device copy as current (test_grass_vulkan in a
   Release build: the next world's grass drawn from the last one's records,
   10% of the parity blocks off). Two streams over one record array here. */
TEST(uploadLedgerTellsStreamsApart) {
    oak_stream_desc d = {.capacity = 16, .material = g_blade_mat};
    d.lods[0] = (oak_stream_lod){g_blade, 0};
    oak_stream *a = NULL, *b = NULL;
    CHECK_OK(oak_make_stream(&a, &d));
    CHECK_OK(oak_make_stream(&b, &d));
    if (!a || !b) {
        oak_destroy_stream(a), oak_destroy_stream(b);
        return;
    }
    CHECK(oak_stream_version(a) == oak_stream_version(b) && a->serial != b->serial);
    static _oak_gpu_upload_ledger L; /* zero: nothing uploaded */
    oak_render_stream rs = {.records = a->records, .count = 16, .version = a->version, .stream = a};
    _oak_gpu_upload u0 = _oak_gpu_upload_step(&L, 0, &rs, 0, 16);
    _oak_gpu_upload u1 = _oak_gpu_upload_step(&L, 0, &rs, 0, 16);
    rs.stream = b; /* b's records where a's were, at a's version */
    _oak_gpu_upload u2 = _oak_gpu_upload_step(&L, 0, &rs, 0, 16);
    fprintf(stderr, "  ledger: first copy %d, again %d, another stream at the same address %d\n",
            (int)u0.cur, (int)u1.cur, (int)u2.cur);
    CHECK_EQ_INT(u0.cur, OAK_GPU_COPY_ALL);
    CHECK_EQ_INT(u1.cur, OAK_GPU_COPY_KEEP);
    CHECK_EQ_INT(u2.cur, OAK_GPU_COPY_ALL);
    oak_destroy_stream(a);
    oak_destroy_stream(b);
}

/* Bad descs and arguments are one line each and make nothing. */
/* A stream's write log: the ranges written since a version, in order;
   none since the current one; a count's change logs the records between
   the old count and the new; a writer's whole access logs everything; and
   a copy older than the log reaches (or than the caller's room) is told to
   copy everything. */
/* A job hook that names the slot it was asked for (stream slots of 10). */
static bool slot_named(void *user, const oak_stream *s, uint32_t slot, uint32_t first,
                       oak_gpu_grass_square *out) {
    (void)user, (void)s;
    memset(out, 0, sizeof *out);
    out->slot[0] = slot, out->slot[1] = first;
    return true;
}

/* The slots a device copy lacks are exact however many writes came since:
   the write log holds OAK_STREAM_WRITE_LOG of them, and a walk's squares
   arriving and leaving overflowed it every frame, so the device regrew
   every square (the H200's meadow frame: 105 ms against 8.6). */
TEST(grassJobsOnlyTheSlotsWritten) {
    oak_stream_desc d = {.capacity = 10000, .material = g_blade_mat};
    d.lods[0] = (oak_stream_lod){g_blade, 0};
    oak_stream *s = NULL;
    CHECK_OK(oak_make_stream(&s, &d));
    if (!s) return;
    CHECK_OK(oak_stream_set_count(s, 10000));
    CHECK_OK(_oak_stream_set_grass(s, 10, slot_named, NULL));
    oak_gpu_grass_square *jobs = NULL;
    uint32_t cap = 0;
    uint64_t v0 = oak_stream_version(s);
    CHECK_EQ_INT(_oak_stream_grass_jobs(s, true, v0, 0, &jobs, &cap, 0), 0);
    CHECK_EQ_INT(_oak_stream_grass_jobs(s, false, v0, 0, &jobs, &cap, 0), 1000); /* no copy */
    /* 3 x the log's writes over slots 0, 3, 6 ... 297 (100 slots) */
    for (uint32_t i = 0; i < 3 * OAK_STREAM_WRITE_LOG; i++)
        _oak_stream_records_to_write_range(s, (i % 100) * 30, 10);
    CHECK_EQ_INT(_oak_stream_writes_since(s, v0, NULL, OAK_STREAM_WRITE_LOG), UINT32_MAX);
    uint32_t n = _oak_stream_grass_jobs(s, true, v0, 7, &jobs, &cap, 0);
    CHECK_EQ_INT(n, 100);
    bool named = n == 100;
    for (uint32_t k = 0; named && k < n; k++)
        named = jobs[k].slot[0] == 3 * k && jobs[k].slot[1] == 7;
    CHECK(named);
    /* a write across slots 41-43 and a count change over 998-999 */
    uint64_t v1 = oak_stream_version(s);
    _oak_stream_records_to_write_range(s, 415, 20);
    CHECK_OK(oak_stream_set_count(s, 9980));
    n = _oak_stream_grass_jobs(s, true, v1, 0, &jobs, &cap, 0);
    CHECK_EQ_INT(n, 3); /* slots past the count are not asked for */
    CHECK(n == 3 && jobs[0].slot[0] == 41 && jobs[2].slot[0] == 43);
    oak_free(jobs);
    oak_destroy_stream(s);
}

TEST(streamWriteLog) {
    oak_stream_desc d = {.capacity = 1000, .material = g_blade_mat};
    d.lods[0] = (oak_stream_lod){g_blade, 0};
    oak_stream *s = NULL;
    CHECK_OK(oak_make_stream(&s, &d));
    if (!s) return;
    uint32_t r[8][2];
    uint64_t v0 = oak_stream_version(s);
    CHECK_EQ_INT(_oak_stream_writes_since(s, v0, r, 8), 0);
    CHECK_EQ_INT(_oak_stream_writes_since(s, v0 - 1, r, 8), 1); /* a copy before any write */
    CHECK(r[0][0] == 0 && r[0][1] == 1000);
    oak_instance rec[4] = {{.scale = 1}, {.scale = 1}, {.scale = 1}, {.scale = 1}};
    CHECK_OK(oak_stream_write(s, 10, rec, 4));
    CHECK_OK(oak_stream_set_count(s, 300));
    _oak_stream_records_to_write_range(s, 256, 16);
    CHECK_EQ_INT(_oak_stream_writes_since(s, v0, r, 8), 3);
    CHECK(r[0][0] == 10 && r[0][1] == 14 && r[1][0] == 0 && r[1][1] == 300 && r[2][0] == 256 &&
          r[2][1] == 272);
    CHECK_EQ_INT(_oak_stream_writes_since(s, v0 + 2, r, 8), 1);
    CHECK(r[0][0] == 256 && r[0][1] == 272);
    CHECK_OK(oak_stream_set_count(s, 100)); /* shrinking: what left the count */
    CHECK_EQ_INT(_oak_stream_writes_since(s, oak_stream_version(s) - 1, r, 8), 1);
    CHECK(r[0][0] == 100 && r[0][1] == 300);
    CHECK_OK(oak_stream_set_count(s, 100));                          /* no change: no version */
    CHECK_EQ_INT(_oak_stream_writes_since(s, v0, r, 2), UINT32_MAX); /* 4 writes, room for 2 */
    /* as spans: sorted, merged, clipped to the count asked; past the room
       the narrowest gap closed first, never the whole stream */
    CHECK_EQ_INT(_oak_stream_spans_since(s, v0, 1000, r, 8), 1); /* [0, 300) holds them all */
    CHECK(r[0][0] == 0 && r[0][1] == 300);
    CHECK_EQ_INT(_oak_stream_spans_since(s, v0 + 2, 1000, r, 8), 1); /* 256-272 in 100-300 */
    CHECK(r[0][0] == 100 && r[0][1] == 300);
    CHECK_EQ_INT(_oak_stream_spans_since(s, v0 + 2, 50, r, 8), 0); /* none under 50 */
    uint64_t vs = oak_stream_version(s);
    const uint32_t at[5] = {900, 10, 500, 530, 40}; /* gaps 10-14 .. 40: 26, 500-504 .. 530: 26 */
    for (int i = 0; i < 5; i++) CHECK_OK(oak_stream_write(s, at[i], rec, 4));
    CHECK_EQ_INT(_oak_stream_spans_since(s, vs, 1000, r, 8), 5);
    CHECK(r[0][0] == 10 && r[1][0] == 40 && r[2][0] == 500 && r[3][0] == 530 && r[4][0] == 900);
    CHECK_EQ_INT(_oak_stream_spans_since(s, vs, 1000, r, 4), 4); /* the first of the equal gaps */
    CHECK(r[0][0] == 10 && r[0][1] == 44 && r[1][0] == 500 && r[1][1] == 504);
    CHECK_EQ_INT(_oak_stream_spans_since(s, vs, 1000, r, 1), 1);
    CHECK(r[0][0] == 10 && r[0][1] == 904);
    CHECK_EQ_INT(_oak_stream_spans_since(s, vs, 520, r, 8), 3); /* clipped: 10, 40, 500-504 */
    CHECK(r[2][0] == 500 && r[2][1] == 504);
    uint64_t v1 = oak_stream_version(s);
    _oak_stream_records_to_write(s);
    CHECK_EQ_INT(_oak_stream_writes_since(s, v1, r, 8), 1);
    CHECK(r[0][0] == 0 && r[0][1] == 1000);
    for (int i = 0; i < OAK_STREAM_WRITE_LOG; i++) CHECK_OK(oak_stream_write(s, 0, rec, 1));
    uint32_t(*big)[2] = malloc(sizeof *big * OAK_STREAM_WRITE_LOG);
    if (big) {
        CHECK_EQ_INT(_oak_stream_writes_since(s, v1, big, OAK_STREAM_WRITE_LOG), UINT32_MAX);
        CHECK_EQ_INT(
            _oak_stream_writes_since(s, oak_stream_version(s) - 5, big, OAK_STREAM_WRITE_LOG), 5);
    }
    free(big);
    oak_destroy_stream(s);
    /* a grass stream is rigid and opaque; a source past the enum fails */
    d.source = OAK_STREAM_SOURCE_GRASS;
    d.phase_opacity = true;
    CHECK(oak_make_stream(&s, &d) != OAK_OK);
    d.phase_opacity = false;
    d.source = (oak_stream_source)7;
    CHECK(oak_make_stream(&s, &d) != OAK_OK);
}

TEST(grassBadInputFails) {
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_terrain_desc td = soft_terrain();
    oak_terrain *t = NULL;
    CHECK_OK(oak_make_terrain(&t, scene, &td));
    oak_grass *g = NULL;
    CHECK(oak_make_grass(&g, NULL, t, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_make_grass(&g, scene, NULL, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    oak_grass_desc bad = {.distance = 1e9f};
    CHECK(oak_make_grass(&g, scene, t, &bad) == OAK_ERROR_INVALID_ARGUMENT);
    bad = (oak_grass_desc){.height = NAN};
    CHECK(oak_make_grass(&g, scene, t, &bad) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(g == NULL);
    CHECK(oak_grass_update(NULL, (float[3]){0, 0, 0}) == OAK_ERROR_INVALID_ARGUMENT);
    oak_world_options o = {.plants = 2};
    CHECK(oak_world_build_with(scene, "meadow", &o) == OAK_ERROR_INVALID_ARGUMENT);
    oak_destroy_terrain(t);
    oak_destroy_scene(scene);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    RUN(windMovesTipsNotBases); /* makes the blade assets */
    RUN(sunkInstancesDrawNothing);
    RUN(grassCountsMatchBruteForce);
    RUN(grassCountsAfterAWalk);
    RUN(grassKernelOffSamePicture);
    if (!strcmp(g_backend, "cpu")) {
        RUN(windGustsTravel);
        RUN(benderFlattensInsideItsRadius);
        RUN(grassFollowsTheMaterialRule);
        RUN(grassDensityByMaterial);
        RUN(grassGridGrowsTheQuerysRecords);
        RUN(grassSlotsComeAndGo);
        RUN(grassBadInputFails);
        RUN(streamWriteLog);
        RUN(grassJobsOnlyTheSlotsWritten);
        RUN(uploadLedgerTellsStreamsApart);
        oak_destroy_renderer(g_renderer); /* before the engine restarts */
        g_renderer = NULL;
        RUN(grassSameRecordsAtAnyThreadCount); /* last: it restarts the engine */
    } else {
        RUN(grassParityWithWind);
    }
    oak_destroy_renderer(g_renderer);
    g_renderer = NULL;
    if (g_oak_test_validation)
        fprintf(stderr, "FAIL: %d validation or GL debug messages\n", g_oak_test_validation);
    oak_shutdown();
    return g_oak_test_validation ? 1 : TEST_SUMMARY();
}
