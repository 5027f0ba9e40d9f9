/* Crowds (issue 15): instance streams posed from a pose bank. A posed
 * instance's vertices are the CPU skinning's (oak_skin_update of the same
 * clip and time) within 1 mm at bank frames and between them; phase p and
 * p + the clip's duration draw the same pixels (banks loop); the culls keep
 * every pose (the spheres over the bank); a posed frame after warm-up makes
 * no heap calls; bad posed streams fail in one line; and (argv[1] vulkan
 * or gl) that backend draws a small posed crowd as the CPU does, under the
 * parity rule, as the phases move; the `crowd` world's records are the same
 * bits at 1 and 3 job threads. */
#include "oak_test.h"

#include <oak/anim.h>
#include <oak/world.h>

#include "backend_start.h"
#include "fox_test.h"
#include "world/internal.h"

#define W          160
#define H          90
#define FOX_METRES 0.5f /* the fox's mesh scaled to half a metre tall */
#define GRID       8    /* the parity crowd: GRID x GRID foxes */

static const char *g_backend = "cpu";
static oak_gltf *g_fox;
static int32_t g_clips[3]; /* Survey, Walk, Run */
static uint32_t g_mesh_node, g_skin;
static float g_scale; /* model units to metres */
static oak_mesh g_fox_mesh, g_ground;
static oak_material g_fur, g_ground_mat;
static oak_pose_bank *g_bank;

static uint32_t fox_vertices(void) {
    return g_fox->meshes[g_fox->nodes[g_mesh_node].mesh].primitives[0].vertex_count;
}

static oak_stream *make_fox_stream(uint32_t capacity) {
    oak_stream_desc d = {
        .capacity = capacity, .lods = {{g_fox_mesh, 0}}, .material = g_fur, .pose_bank = g_bank};
    oak_stream *s = NULL;
    CHECK_OK(oak_make_stream(&s, &d));
    return s;
}

static oak_instance fox_at(float x, float z, float yaw, uint32_t clip, float t) {
    return (oak_instance){.position = {x, 0, z},
                          .scale = g_scale,
                          .rotation = {0, sinf(yaw * 0.5f), 0, cosf(yaw * 0.5f)},
                          .color = {1, 1, 1},
                          .phase = (float)clip * OAK_POSE_CLIP_SECONDS + t};
}

/* Bank clip c at t seconds through the CPU's skinning of the glTF instance
   (mesh-node space, the bank's travel taken out as the bank takes it). */
static const float *cpu_skinned(oak_scene *scene, oak_gltf_instance *inst, uint32_t c, float t,
                                float off[3]) {
    oak_anim_player *pl = oak_gltf_instance_player(inst);
    oak_anim_play(pl, g_clips[c], false);
    pl->playing = false;
    oak_anim_set_time(pl, g_fox->clips[g_clips[c]].start + t);
    oak_anim_update(scene, 0);
    if (oak_skin_update(scene)) return NULL;
    oak_pose_bank_offset(g_bank, c, t, off);
    /* as every backend draws it (posed by its palette where it has one) */
    static float posed[3 * 4096];
    uint32_t n =
        oak_mesh_posed_positions(oak_gltf_instance_mesh(inst, g_mesh_node, 0), false, posed, 4096);
    return n ? posed : NULL;
}

/* Posed instance vertices (as every backend draws them) against the CPU's
   skinning placed by the same record: within 1 mm at bank frames and
   halfway between them, in every clip. */
TEST(posedInstanceMatchesCpuSkinning) {
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    oak_stream *s = make_fox_stream(1);
    uint32_t n = fox_vertices();
    float *mine = oak_alloc(sizeof(float) * 3 * n);
    CHECK_OK(oak_make_scene(&scene));
    if (scene) CHECK_OK(oak_gltf_instantiate(&inst, scene, g_fox, (oak_entity){0}, "fox"));
    if (!s || !mine || !inst) goto done;
    for (uint32_t c = 0; c < 3; c++) {
        uint32_t frames = oak_pose_bank_frames(g_bank, c);
        float dur = oak_pose_bank_duration(g_bank, c);
        double at_frames = 0, between = 0;
        for (uint32_t f = 0; f + 1 < frames; f += 5) {
            for (int half = 0; half < 2; half++) {
                float t = ((float)f + 0.5f * (float)half) / (float)(frames - 1) * dur;
                oak_instance rec = fox_at(1.5f, -2.0f, 0.7f, c, t);
                CHECK_OK(oak_stream_write(s, 0, &rec, 1));
                CHECK_OK(oak_stream_set_count(s, 1));
                CHECK_EQ_INT(oak_stream_instance_points(s, 0, 0, mine, n), n);
                float off[3];
                const float *ref = cpu_skinned(scene, inst, c, t, off);
                CHECK(ref != NULL);
                if (!ref) goto done;
                /* the record's matrix: yaw about y, uniform scale, then the place */
                float cy = cosf(0.7f), sy = sinf(0.7f);
                double most = 0;
                for (uint32_t v = 0; v < n; v++) {
                    float p[3] = {ref[3 * v] - off[0], ref[3 * v + 1] - off[1],
                                  ref[3 * v + 2] - off[2]};
                    float w[3] = {g_scale * (cy * p[0] + sy * p[2]) + 1.5f, g_scale * p[1],
                                  g_scale * (-sy * p[0] + cy * p[2]) - 2.0f};
                    double d2 = 0;
                    for (int k = 0; k < 3; k++) d2 += pow((double)mine[3 * v + k] - w[k], 2);
                    most = fmax(most, sqrt(d2));
                }
                if (half)
                    between = fmax(between, most);
                else
                    at_frames = fmax(at_frames, most);
            }
        }
        fprintf(stderr, "  clip %s: at bank frames %.4f mm, between %.4f mm\n",
                g_fox->clips[g_clips[c]].name, at_frames * 1e3, between * 1e3);
        CHECK(at_frames < 1e-3);
        CHECK(between < 1e-3);
    }
done:
    if (inst) oak_gltf_instance_free(inst);
    if (scene) oak_destroy_scene(scene);
    oak_destroy_stream(s);
    oak_free(mine);
}

/* The crossfade the CPU's skinning gives for a Walk/Run blend phase:
   (1 - w) Walk + w Run at share u of each clip (the bank's travel out),
   mesh-node space, into out (3 floats a vertex). */
static bool cpu_crossfade(oak_scene *scene, oak_gltf_instance *inst, float w, float u, float *out) {
    uint32_t n = fox_vertices();
    float oa[3], ob[3];
    const float *walk = cpu_skinned(scene, inst, 1, u * oak_pose_bank_duration(g_bank, 1), oa);
    if (!walk) return false;
    for (uint32_t i = 0; i < 3 * n; i++) out[i] = walk[i] - oa[i % 3];
    const float *run = cpu_skinned(scene, inst, 2, u * oak_pose_bank_duration(g_bank, 2), ob);
    if (!run) return false;
    for (uint32_t i = 0; i < 3 * n; i++) out[i] += (run[i] - ob[i % 3] - out[i]) * w;
    return true;
}

/* A blend's phase poses what the CPU's crossfade of the two clips does,
   within 1 mm (oak_stream_instance_points: the CPU backend's posing path),
   at weights and shares that fall between bank frames; the encoding holds
   the weight to 1/63 and the share to 1/1024; a clip past 15 fails. */
TEST(blendedInstanceMatchesCpuCrossfade) {
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    oak_stream *s = make_fox_stream(1);
    uint32_t n = fox_vertices();
    float *mine = oak_alloc(sizeof(float) * 3 * n), *ref = oak_alloc(sizeof(float) * 3 * n);
    CHECK_OK(oak_make_scene(&scene));
    if (scene) CHECK_OK(oak_gltf_instantiate(&inst, scene, g_fox, (oak_entity){0}, "fox"));
    if (!s || !mine || !ref || !inst) goto done;
    double most = 0, walk_apart = 0;
    const float ws[4] = {0.3f, 0.5f, 0.81f, 1.0f}, us[4] = {0.137f, 0.5f, 0.6235f, 0.91f};
    for (int c = 0; c < 4; c++) {
        /* the weight and share the phase holds */
        float w = roundf(ws[c] * 63) / 63, u = roundf(us[c] * 1024) / 1024;
        oak_instance rec = fox_at(1.5f, -2.0f, 0.7f, 0, 0);
        rec.phase = oak_pose_blend_phase(1, 2, ws[c], us[c]);
        CHECK(rec.phase < 0 && rec.phase == floorf(rec.phase));
        CHECK_OK(oak_stream_write(s, 0, &rec, 1));
        CHECK_OK(oak_stream_set_count(s, 1));
        CHECK_EQ_INT(oak_stream_instance_points(s, 0, 0, mine, n), n);
        if (!cpu_crossfade(scene, inst, w, u, ref)) goto done;
        float cy = cosf(0.7f), sy = sinf(0.7f);
        for (int pass = 0; pass < 2; pass++) {
            double d = 0;
            for (uint32_t v = 0; v < n; v++) {
                const float *p = ref + 3 * v;
                float q[3] = {g_scale * (cy * p[0] + sy * p[2]) + 1.5f, g_scale * p[1],
                              g_scale * (-sy * p[0] + cy * p[2]) - 2.0f};
                double d2 = 0;
                for (int k = 0; k < 3; k++) d2 += pow((double)mine[3 * v + k] - q[k], 2);
                d = fmax(d, sqrt(d2));
            }
            if (pass == 0) most = fmax(most, d);
            if (pass == 1) walk_apart = fmax(walk_apart, d);
            /* the control: the Walk alone at the same share, which the
               blend must not be */
            rec.phase = OAK_POSE_CLIP_SECONDS + u * oak_pose_bank_duration(g_bank, 1);
            CHECK_OK(oak_stream_write(s, 0, &rec, 1));
            CHECK_EQ_INT(oak_stream_instance_points(s, 0, 0, mine, n), n);
        }
    }
    fprintf(stderr,
            "  walk/run blends: %.4f mm from the CPU's crossfade (the walk alone %.1f mm)\n",
            most * 1e3, walk_apart * 1e3);
    CHECK(most < 1e-3);
    CHECK(walk_apart > 5e-3);
    CHECK(oak_pose_blend_phase(16, 1, 0.5f, 0.5f) == 0.0f);
    CHECK(strstr(oak_last_error(), "at most 15") != NULL);
    g_oak_test_errors = 0; /* logged on purpose */
done:
    if (inst) oak_gltf_instance_free(inst);
    if (scene) oak_destroy_scene(scene);
    oak_destroy_stream(s);
    oak_free(mine), oak_free(ref);
}

/* The crowd's second figure, the Fox furred (world/crowd_figure.c): 14,400
   triangles (10,000 or more), every vertex's weights summing to 1 over
   joints the bank has; posed from the bank in a stream, every vertex where
   skinning it by the bank's palette in doubles puts it, within 1 mm, and
   the Fox's own corners (no tuft) where the CPU's skinning of the glTF
   (oak_skin_update) puts the Fox's vertices, within 1 mm. */
TEST(furFigureIsSkinnedAndPosed) {
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    oak_mesh fur = {0};
    oak_stream *s = NULL;
    float *mine = NULL, *pal = oak_alloc(sizeof(float) * 12 * oak_pose_bank_joints(g_bank));
    CHECK_OK(_oak_crowd_fur_figure(&fur, g_fox_mesh, 5, 0.012f / g_scale));
    const oak_mesh_data *md = oak_mesh_get(fur), *fox = oak_mesh_get(g_fox_mesh);
    if (!md || !fox || !pal) goto done;
    fprintf(stderr, "  fur figure: %u triangles, %u vertices\n", md->index_count / 3,
            md->vertex_count);
    CHECK_EQ_INT(md->index_count / 3, fox->index_count / 3 * 25);
    CHECK(md->index_count / 3 >= 10000);
    double worst_sum = 0;
    uint32_t bad_joint = 0;
    for (uint32_t v = 0; v < md->vertex_count; v++) {
        double sum = 0;
        for (int k = 0; k < 4; k++) {
            sum += md->weights[4 * v + k];
            bad_joint += md->joints[4 * v + k] >= oak_pose_bank_joints(g_bank);
        }
        worst_sum = fmax(worst_sum, fabs(sum - 1));
    }
    fprintf(stderr, "  weights sum to 1 within %.2g\n", worst_sum);
    CHECK(worst_sum < 1e-5);
    CHECK_EQ_INT(bad_joint, 0);
    oak_stream_desc d = {.capacity = 1, .lods = {{fur, 0}}, .material = g_fur, .pose_bank = g_bank};
    CHECK_OK(oak_make_stream(&s, &d));
    mine = oak_alloc(sizeof(float) * 3 * md->vertex_count);
    CHECK_OK(oak_make_scene(&scene));
    if (scene) CHECK_OK(oak_gltf_instantiate(&inst, scene, g_fox, (oak_entity){0}, "fox"));
    if (!s || !mine || !inst) goto done;
    double most = 0, corners = 0;
    float cy = cosf(0.7f), sy = sinf(0.7f);
    for (uint32_t c = 1; c < 3; c++) {
        uint32_t frames = oak_pose_bank_frames(g_bank, c);
        float dur = oak_pose_bank_duration(g_bank, c);
        for (uint32_t f = 0; f + 1 < frames; f += 17) {
            float t = (float)f / (float)(frames - 1) * dur;
            oak_instance rec = fox_at(1.5f, -2.0f, 0.7f, c, t);
            CHECK_OK(oak_stream_write(s, 0, &rec, 1));
            CHECK_OK(oak_stream_set_count(s, 1));
            CHECK_EQ_INT(oak_stream_instance_points(s, 0, 0, mine, md->vertex_count),
                         md->vertex_count);
            oak_pose_bank_sample(g_bank, c, t, pal);
            for (uint32_t v = 0; v < md->vertex_count; v++) {
                double m[12] = {0}, p[3];
                for (int k = 0; k < 4; k++)
                    for (int e = 0; e < 12; e++)
                        m[e] += (double)md->weights[4 * v + k] *
                                pal[12 * (size_t)md->joints[4 * v + k] + e];
                const float *q = md->positions + 3 * (size_t)v;
                for (int r = 0; r < 3; r++)
                    p[r] =
                        m[4 * r] * q[0] + m[4 * r + 1] * q[1] + m[4 * r + 2] * q[2] + m[4 * r + 3];
                double wv[3] = {g_scale * (cy * p[0] + sy * p[2]) + 1.5, g_scale * p[1],
                                g_scale * (-sy * p[0] + cy * p[2]) - 2.0};
                double d2 = 0;
                for (int k = 0; k < 3; k++) d2 += pow(mine[3 * v + k] - wv[k], 2);
                most = fmax(most, sqrt(d2));
            }
            /* each Fox triangle's corners: its patch's first, n(n + 3)/2-th
               and n-th points (n = 5: 0, 20, 5; 21 a patch) */
            float off[3];
            const float *ref = cpu_skinned(scene, inst, c, t, off);
            CHECK(ref != NULL);
            if (!ref) goto done;
            const uint32_t corner[3] = {0, 20, 5};
            for (uint32_t tri = 0; tri < fox->index_count / 3; tri++)
                for (int k = 0; k < 3; k++) {
                    uint32_t fv = fox->indices[3 * tri + k], v = tri * 21 + corner[k];
                    const float *p = ref + 3 * (size_t)fv;
                    float q[3] = {p[0] - off[0], p[1] - off[1], p[2] - off[2]};
                    float wv[3] = {g_scale * (cy * q[0] + sy * q[2]) + 1.5f, g_scale * q[1],
                                   g_scale * (-sy * q[0] + cy * q[2]) - 2.0f};
                    double d2 = 0;
                    for (int e = 0; e < 3; e++) d2 += pow((double)mine[3 * v + e] - wv[e], 2);
                    corners = fmax(corners, sqrt(d2));
                }
        }
    }
    fprintf(stderr,
            "  fur figure posed: %.4f mm from its skinning in doubles, corners %.4f mm from "
            "oak_skin_update\n",
            most * 1e3, corners * 1e3);
    CHECK(most < 1e-3);
    CHECK(corners < 1e-3);
done:
    if (inst) oak_gltf_instance_free(inst);
    if (scene) oak_destroy_scene(scene);
    oak_destroy_stream(s);
    if (fur.id) oak_destroy_mesh(fur);
    oak_free(mine), oak_free(pal);
}

typedef struct crowd_scene {
    oak_frame_input in;
    oak_mesh mesh[1];
    oak_material mat[1];
    mat4 world[1];
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    oak_stream *stream;
    oak_instance rec[GRID * GRID];
} crowd_scene;

/* GRID x GRID foxes facing about, every clip and Walk/Run blends, phases
   spread; `dt` seconds on from the start. */
static void crowd_fill(crowd_scene *cs, float dt) {
    for (uint32_t i = 0; i < GRID * GRID; i++) {
        float x = -2.1f + 0.6f * (float)(i % GRID), z = -0.5f - 0.6f * (float)(i / GRID);
        uint32_t clip = i % 3;
        float t = 0.137f * (float)i + dt;
        t -=
            oak_pose_bank_duration(g_bank, clip) * floorf(t / oak_pose_bank_duration(g_bank, clip));
        cs->rec[i] = fox_at(x, z, 0.9f * (float)i, clip, t);
        if (i % 4 == 3) /* every fourth a Walk/Run blend, its weight and cycle moving */
            cs->rec[i].phase = oak_pose_blend_phase(1, 2, 0.2f + 0.1f * (float)(i % 7) + dt,
                                                    0.091f * (float)i + dt * 1.3f);
        cs->rec[i].color[0] = 0.6f + 0.4f * (float)(i % 5) / 4.0f;
        cs->rec[i].color[2] = 0.5f + 0.5f * (float)(i % 7) / 6.0f;
    }
}

static void crowd_init(crowd_scene *cs, uint32_t count) {
    memset(cs, 0, sizeof *cs);
    cs->mesh[0] = g_ground;
    cs->mat[0] = g_ground_mat;
    glm_mat4_identity(cs->world[0]);
    oak_test_sunlit_input(&cs->in, 1, cs->mesh, cs->mat, (const mat4 *)cs->world, &cs->sun,
                          &cs->env, &cs->post, 50, 60);
    mat4 view;
    glm_lookat((vec3){0, 1.6f, 1.8f}, (vec3){0, 0.1f, -2.2f}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, cs->in.camera_world);
    cs->stream = make_fox_stream(GRID * GRID);
    crowd_fill(cs, 0);
    if (cs->stream) {
        CHECK_OK(oak_stream_write(cs->stream, 0, cs->rec, count));
        CHECK_OK(oak_stream_set_count(cs->stream, count));
    }
    cs->in.stream_count = cs->stream ? 1 : 0;
    cs->in.streams = &cs->stream;
}

/* A frame of `in` drawn by r (a fresh renderer's when r is NULL), read back. */
static uint8_t *picture_on(oak_renderer *r, const char *backend, const oak_frame_input *in) {
    uint8_t *px = oak_alloc((size_t)W * H * 4);
    oak_renderer *own = NULL;
    if (!r) {
        oak_renderer_desc d = {.backend = backend, .width = W, .height = H, .shadow_map_size = 512};
        CHECK_OK(oak_make_renderer(&own, &d));
        r = own;
    }
    if (r && px) {
        CHECK_OK(oak_renderer_draw(r, in));
        CHECK_OK(oak_renderer_read_pixels(r, px, (size_t)W * H * 4));
    }
    oak_destroy_renderer(own);
    return px;
}

static uint8_t *picture(const char *backend, const oak_frame_input *in) {
    return picture_on(NULL, backend, in);
}

/* Channels of two pictures that differ at all. */
static size_t channels_apart(const uint8_t *a, const uint8_t *b) {
    size_t n = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) n += a[i] != b[i];
    return n;
}

/* One fox walking, at phase p and at p + the walk's duration: the same
   pixels (the bank loops); a quarter of the loop on, a different picture
   (the legs moved), and one that differs from the rest pose drawn rigid. */
TEST(phasePlusDurationDrawsTheSame) {
    crowd_scene cs;
    crowd_init(&cs, 1);
    if (!cs.stream) return;
    mat4 view;
    glm_lookat((vec3){0.3f, 0.35f, 0.2f}, (vec3){0, 0.22f, -0.5f}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, cs.in.camera_world);
    float dur = oak_pose_bank_duration(g_bank, 1);
    float t[3] = {0.21f, 0.21f + dur, 0.21f + 0.25f * dur};
    uint8_t *px[3] = {NULL, NULL, NULL};
    /* one renderer for the three (no TAA: a frame does not read the last);
       a GPU renderer's start is most of this test's time on lavapipe */
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &rd));
    for (int k = 0; k < 3 && r; k++) {
        oak_instance rec = fox_at(0, -0.5f, 1.2f, 1, t[k]);
        CHECK_OK(oak_stream_write(cs.stream, 0, &rec, 1));
        px[k] = picture_on(r, g_backend, &cs.in);
    }
    oak_destroy_renderer(r);
    if (px[0] && px[1] && px[2]) {
        size_t same = channels_apart(px[0], px[1]), moved = channels_apart(px[0], px[2]);
        fprintf(stderr, "  %s: p vs p + duration %zu channels apart, vs p + duration/4 %zu\n",
                g_backend, same, moved);
        CHECK(same <= (size_t)W * H * 4 / 1000); /* 0.1%: float rounding of t + duration */
        CHECK(moved > (size_t)W * H * 4 / 100);  /* the picture does show the pose */
    }
    for (int k = 0; k < 3; k++) oak_free(px[k]);
    oak_destroy_stream(cs.stream);
}

/* On this backend: one fox at a Walk/Run blend phase (its posing path:
   pose.glsl on the GPUs) against the CPU's crossfade of the two clips made
   a rigid mesh and placed by the same record's matrix, both drawn here:
   the depth channel (metres) agrees within 1 mm on 99% of the pixels
   either covers (the rest: silhouettes that rounding moves by a pixel);
   the Walk alone at the same share does not. */
TEST(blendedDepthMatchesCrossfade) {
    crowd_scene cs;
    crowd_init(&cs, 1);
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    oak_mesh ref = {0};
    uint32_t n = fox_vertices();
    size_t px = (size_t)W * H;
    float *pos = oak_alloc(sizeof(float) * 3 * n), *depth[4] = {NULL, NULL, NULL, NULL};
    CHECK_OK(oak_make_scene(&scene));
    if (scene) CHECK_OK(oak_gltf_instantiate(&inst, scene, g_fox, (oak_entity){0}, "fox"));
    if (!cs.stream || !pos || !inst) goto done;
    const float w = 0.45f, u = 0.3125f, yaw = 1.2f; /* u: an exact 1024th */
    if (!cpu_crossfade(scene, inst, roundf(w * 63) / 63, u, pos)) goto done;
    const oak_mesh_data *md = oak_mesh_get(g_fox_mesh);
    oak_mesh_desc rd = {.vertex_count = n,
                        .index_count = md->index_count,
                        .positions = pos,
                        .normals = md->normals,
                        .indices = md->indices,
                        .name = "crossfade"};
    CHECK_OK(oak_make_mesh(&ref, &rd));
    if (!ref.id) goto done;
    mat4 view;
    glm_lookat((vec3){0.3f, 0.35f, 0.2f}, (vec3){0, 0.22f, -0.5f}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, cs.in.camera_world);
    cs.post.channel = OAK_CHANNEL_DEPTH;
    oak_instance rec = fox_at(0, -0.5f, yaw, 0, 0);
    /* the record's matrix: the place, the turn about y, the scale */
    oak_mesh meshes[2] = {g_ground, ref};
    oak_material mats[2] = {g_ground_mat, g_fur};
    mat4 worlds[2];
    glm_mat4_identity(worlds[0]);
    glm_translate_make(worlds[1], (vec3){0, 0, -0.5f});
    glm_rotate_y(worlds[1], yaw, worlds[1]);
    glm_scale_uni(worlds[1], g_scale);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    for (int k = 0; k < 4 && r; k++) {
        depth[k] = oak_alloc(sizeof(float) * 4 * px);
        if (!depth[k]) break;
        /* 0: the blend; 1: the Walk alone at the share; 2: the rigid
           crossfade; 3: the ground alone */
        rec.phase = k == 0   ? oak_pose_blend_phase(1, 2, w, u)
                    : k == 1 ? OAK_POSE_CLIP_SECONDS + u * oak_pose_bank_duration(g_bank, 1)
                             : 0;
        CHECK_OK(oak_stream_write(cs.stream, 0, &rec, 1));
        CHECK_OK(oak_stream_set_count(cs.stream, k < 2 ? 1 : 0));
        cs.in.draw_count = k == 2 ? 2 : 1;
        cs.in.meshes = meshes, cs.in.materials = mats, cs.in.transforms = (const mat4 *)worlds;
        CHECK_OK(oak_renderer_draw(r, &cs.in));
        CHECK_OK(oak_renderer_read_channel(r, depth[k], 4 * px));
    }
    oak_destroy_renderer(r);
    if (depth[0] && depth[1] && depth[2] && depth[3]) {
        /* the fox's pixels: off the ground alone's depth in either */
        uint32_t fox, agree, walk_agree;
        oak_test_depth_agree(depth, px, &fox, &agree, &walk_agree);
        fprintf(stderr,
                "  %s: blend depth within 1 mm of the crossfade on %u of %u pixels (the walk "
                "alone %u)\n",
                g_backend, agree, fox, walk_agree);
        CHECK(fox > px / 10);
        CHECK(agree >= 0.99 * fox);
        CHECK(walk_agree < 0.95 * fox);
    }
done:
    for (int k = 0; k < 4; k++) oak_free(depth[k]);
    if (ref.id) oak_destroy_mesh(ref);
    if (inst) oak_gltf_instance_free(inst);
    if (scene) oak_destroy_scene(scene);
    oak_destroy_stream(cs.stream);
    oak_free(pos);
}

/* The kernel's counts with the posed spheres: an instance whose rest
   bounds lie just outside the view, but whose poses reach in, is kept;
   every fox of the grid is counted in LOD 0. */
TEST(posedCullKeepsEveryPose) {
    crowd_scene cs;
    crowd_init(&cs, GRID * GRID);
    if (!cs.stream) return;
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (r) {
        CHECK_OK(oak_renderer_draw(r, &cs.in));
        oak_stream_stats st;
        CHECK_OK(oak_renderer_stream_stats(r, &st));
        /* which foxes the pose spheres put in view, counted here */
        const oak_render_view *v = oak_renderer_last_view(r);
        uint32_t expect = 0;
        vec4 planes[6];
        mat4 vp;
        memcpy(vp, v->view_proj, sizeof vp);
        oak_frustum_planes(vp, planes);
        const oak_render_stream *rs = &v->streams[0];
        CHECK(rs->pose_bank == g_bank);
        const oak_mesh_data *md = oak_mesh_get(g_fox_mesh);
        CHECK(rs->pose_sphere[0][3] >= md->bounds.radius); /* poses reach past the rest */
        for (uint32_t i = 0; i < GRID * GRID; i++) {
            /* the record: yaw 0.9 i about y, the scale, the place */
            const oak_instance *rec = &cs.rec[i];
            float a = 0.9f * (float)i, ca = cosf(a), sa = sinf(a);
            const float *c = rs->pose_sphere[0];
            float wc[3] = {rec->position[0] + g_scale * (ca * c[0] + sa * c[2]),
                           rec->position[1] + g_scale * c[1],
                           rec->position[2] + g_scale * (-sa * c[0] + ca * c[2])};
            expect += oak_frustum_sphere((const vec4 *)planes, wc, c[3] * g_scale);
        }
        fprintf(stderr, "  %u of %u foxes in view (counted here %u)\n", st.per_lod[0], GRID * GRID,
                expect);
        CHECK_EQ_INT(st.per_lod[0], expect);
        CHECK(expect > GRID * GRID / 2);
    }
    oak_destroy_renderer(r);
    oak_destroy_stream(cs.stream);
}

/* After warm-up, posed frames whose phases move every frame make no heap
   calls (the palettes live in frame memory kept across frames). */
TEST(posedFramesMakeNoHeapCalls) {
    crowd_scene cs;
    crowd_init(&cs, GRID * GRID);
    if (!cs.stream) return;
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    /* warm-up: the five poses once (the CPU's set-up chunks keep the
       largest triangle count they have seen, which moves with the pose) */
    for (int f = 0; r && f < 5; f++) {
        crowd_fill(&cs, (float)f / 30);
        CHECK_OK(oak_stream_write(cs.stream, 0, cs.rec, GRID * GRID));
        CHECK_OK(oak_renderer_draw(r, &cs.in));
    }
    long before = oak_test_heap_calls();
    for (int f = 0; r && f < 5; f++) {
        crowd_fill(&cs, (float)f / 30);
        CHECK_OK(oak_stream_write(cs.stream, 0, cs.rec, GRID * GRID));
        CHECK_OK(oak_renderer_draw(r, &cs.in));
    }
    long calls = oak_test_heap_calls() - before;
    fprintf(stderr, "  %s: heap calls in 5 posed frames after warm-up: %ld\n", g_backend, calls);
    CHECK_EQ_INT(calls, 0);
    oak_destroy_renderer(r);
    oak_destroy_stream(cs.stream);
}

/* Motion vectors of posed figures that stand in place: only their phases
   move (1/20 s a frame), so what moves on screen is the pose, from last
   frame's phase; the backend's vectors are the CPU's within 0.02 px on 98%
   of the pixels both cover. */
TEST(posedMotionIsThePose) {
    crowd_scene cs;
    crowd_init(&cs, GRID * GRID);
    if (!cs.stream) return;
    cs.post.channel = OAK_CHANNEL_MOTION;
    size_t n = (size_t)W * H * 4;
    float *a = oak_alloc(n * sizeof(float)), *b = oak_alloc(n * sizeof(float));
    oak_renderer *rc = NULL, *rb = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&rc, &d));
    d.backend = g_backend;
    if (strcmp(g_backend, "cpu")) CHECK_OK(oak_make_renderer(&rb, &d));
    for (int f = 0; f < 2 && rc && a && b; f++) {
        crowd_fill(&cs, 0.05f * (float)f);
        CHECK_OK(oak_stream_write(cs.stream, 0, cs.rec, GRID * GRID));
        CHECK_OK(oak_renderer_draw(rc, &cs.in));
        if (rb) CHECK_OK(oak_renderer_draw(rb, &cs.in));
    }
    if (rc && a && b) {
        CHECK_OK(oak_renderer_read_channel(rc, a, n));
        if (rb) CHECK_OK(oak_renderer_read_channel(rb, b, n));
        uint32_t moved = 0, both = 0, agree = 0;
        for (size_t i = 0; i < (size_t)W * H; i++) {
            const float *p = a + i * 4, *q = b + i * 4;
            if (!(p[2] > 0.5f)) continue;
            moved += fabsf(p[0]) + fabsf(p[1]) > 0.05f;
            if (!rb || !(q[2] > 0.5f)) continue;
            both++;
            agree += fabsf(p[0] - q[0]) <= 0.02f && fabsf(p[1] - q[1]) <= 0.02f;
        }
        fprintf(stderr,
                "  posed motion: %u pixels moved over 0.05 px on the cpu; %s: %u of %u "
                "within 0.02 px\n",
                moved, g_backend, agree, both);
        CHECK(moved > 200); /* the legs and tails, though no record moved */
        if (rb) CHECK(both > (uint32_t)W * H / 2 && agree >= 0.98 * both);
    }
    oak_free(a), oak_free(b);
    oak_destroy_renderer(rc);
    oak_destroy_renderer(rb);
    oak_destroy_stream(cs.stream);
}

/* A posed stream needs skinned LOD meshes whose joints the bank has. */
TEST(badPosedStreamsFail) {
    oak_stream_desc d = {
        .capacity = 4, .lods = {{g_ground, 0}}, .material = g_fur, .pose_bank = g_bank};
    oak_stream *s = NULL;
    CHECK(oak_make_stream(&s, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(s == NULL);
    CHECK(strstr(oak_last_error(), "joints") != NULL);
    CHECK_EQ_INT(oak_stream_instance_points(NULL, 0, 0, NULL, 0), 0);
}

/* The backend against the CPU: the crowd at its first phases, then half a
   second on (every fox in a new pose), each a fresh renderer's frame 0. */
TEST(backendsAgreeOnAPosedCrowd) {
    crowd_scene cs;
    crowd_init(&cs, GRID * GRID);
    if (!cs.stream) return;
    uint8_t *a = oak_alloc((size_t)W * H * 4), *b = oak_alloc((size_t)W * H * 4);
    if (a && b) {
        oak_test_parity_frame("crowd", g_backend, &cs.in, W, H, a, b);
        char path[512];
        CHECK_OK(oak_image_write_png(oak_test_out(path, sizeof path, "crowd_cpu.png"), W, H, a));
        CHECK_OK(oak_image_write_png(oak_test_out(path, sizeof path, "crowd_gpu.png"), W, H, b));
        /* the crowd is in the picture: without it a tenth of the channels change */
        uint8_t *none = NULL;
        CHECK_OK(oak_stream_set_count(cs.stream, 0));
        none = picture("cpu", &cs.in);
        CHECK_OK(oak_stream_set_count(cs.stream, GRID * GRID));
        if (none) {
            size_t apart = channels_apart(a, none);
            fprintf(stderr, "  the crowd changes %zu of %u channels\n", apart, W * H * 4);
            CHECK(apart > (size_t)W * H * 4 / 10);
        }
        oak_free(none);
        crowd_fill(&cs, 0.5f);
        CHECK_OK(oak_stream_write(cs.stream, 0, cs.rec, GRID * GRID));
        oak_test_parity_frame("crowd 0.5 s on", g_backend, &cs.in, W, H, a, b);
    }
    oak_free(a), oak_free(b);
    oak_destroy_stream(cs.stream);
}

/* The `crowd` world's figures, the Fox's stream then the fur figure's
   (world/crowd.c: one record a figure, in that order), into out. */
static uint32_t world_records(const oak_frame_input *in, oak_instance *out, uint32_t capacity) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < in->stream_count; k++) {
        uint32_t c = oak_stream_count(in->streams[k]);
        if (n + c > capacity) return 0;
        memcpy(out + n, oak_stream_records(in->streams[k]), sizeof(oak_instance) * c);
        n += c;
    }
    return n;
}

/* The `crowd` world at 200 figures: two posed streams, 150 Foxes and 50
   fur figures (a figure in four); after a second of updates the figures
   have walked (the median moved 0.4 to 2 m: the walk's and run's paces,
   less turning and crowding), their phases moved on, runners and trotters
   blend the Walk and the Run, and the camera followed the group; on a GPU
   backend its picture keeps to the CPU's under the parity rule; the
   figures per tier of each stream match a count made here. */
TEST(crowdWorldWalks) {
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_world_options o = {.count = 200, .terrain = 1};
    if (!scene || oak_world_build_with(scene, "crowd", &o) != OAK_OK) {
        CHECK(!"crowd world built");
        oak_destroy_scene(scene);
        return;
    }
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(scene, &in));
    CHECK_EQ_INT(in.stream_count, 2);
    if (in.stream_count != 2) goto done;
    CHECK_EQ_INT(oak_stream_count(in.streams[0]), 150);
    CHECK_EQ_INT(oak_stream_count(in.streams[1]), 50);
    oak_instance before[200], after[200];
    CHECK_EQ_INT(world_records(&in, before, 200), 200);
    float eye0[3];
    memcpy(eye0, in.camera_world[3], sizeof eye0);
    for (int f = 0; f <= 60; f++) CHECK_OK(oak_world_update(scene, "crowd", (float)f / 60));
    CHECK_OK(oak_scene_frame_input(scene, &in));
    /* the tiers as authored (lod_scale 1): the count needs near and middle
       figures at this small render */
    in.camera.lod_scale = 1;
    CHECK_EQ_INT(world_records(&in, after, 200), 200);
    float moved[200];
    uint32_t phased = 0, blends = 0;
    for (uint32_t i = 0; i < 200; i++) {
        float dx = after[i].position[0] - before[i].position[0];
        float dz = after[i].position[2] - before[i].position[2];
        moved[i] = sqrtf(dx * dx + dz * dz);
        /* a near figure's phase names its foot IK palette (test_foot_ik),
           whose slot may come round to the one it had */
        bool ik = after[i].phase < -16777216.0f;
        phased += ik || after[i].phase != before[i].phase;
        blends += !ik && after[i].phase < 0;
    }
    for (uint32_t i = 1; i < 200; i++) /* insertion sort for the median */
        for (uint32_t k = i; k > 0 && moved[k] < moved[k - 1]; k--) {
            float t = moved[k];
            moved[k] = moved[k - 1], moved[k - 1] = t;
        }
    float cam = 0;
    for (int k = 0; k < 3; k++) cam += powf(in.camera_world[3][k] - eye0[k], 2);
    fprintf(stderr,
            "  crowd world: median figure moved %.2f m in 1 s, %u of 200 phases moved, %u "
            "blending walk and run, camera %.2f m\n",
            (double)moved[100], phased, blends, (double)sqrtf(cam));
    CHECK(moved[100] > 0.4f && moved[100] < 2.0f);
    CHECK(phased >= 190);
    CHECK(blends >= 10); /* a share of the 30% that run trot between the clips */
    CHECK(sqrtf(cam) > 0.2f);
    /* on the meadow's terrain: every figure's origin on the ground under
       it, and its lowest point (a paw) near the ground under that point */
    oak_terrain *terrain = _oak_terrain_of(scene);
    CHECK(terrain != NULL);
    float *pts = oak_alloc(sizeof(float) * 3 * 16384);
    if (terrain && pts && !strcmp(g_backend, "cpu")) {
        double origin = 0, paw = 0, paw_sum = 0, relief = 0;
        uint32_t at = 0;
        for (uint32_t k = 0; k < 2; k++)
            for (uint32_t i = 0; i < oak_stream_count(in.streams[k]); i++, at++) {
                float h = 0;
                CHECK_OK(oak_terrain_height(terrain, after[at].position[0], after[at].position[2],
                                            &h, NULL));
                origin = fmax(origin, fabs(after[at].position[1] - h));
                relief = fmax(relief, fabs(after[at].position[1] - after[0].position[1]));
                uint32_t n = oak_stream_instance_points(in.streams[k], i, 0, pts, 16384);
                uint32_t low = 0;
                for (uint32_t v = 1; v < n; v++)
                    if (pts[3 * v + 1] < pts[3 * low + 1]) low = v;
                CHECK_OK(oak_terrain_height(terrain, pts[3 * low], pts[3 * low + 2], &h, NULL));
                paw = fmax(paw, fabs(pts[3 * low + 1] - h));
                paw_sum += fabs(pts[3 * low + 1] - h);
            }
        fprintf(stderr,
                "  on the terrain (%.1f m of relief among them): origins %.4f m off the ground, "
                "lowest points %.3f m at most, %.3f m on average\n",
                relief, origin, paw, paw_sum / 200);
        CHECK(relief > 1.0); /* hills, not a plane */
        CHECK(origin < 1e-4);
        CHECK(paw < 0.1);
        CHECK(paw_sum / 200 < 0.03);
    }
    oak_free(pts);
    if (strcmp(g_backend, "cpu")) {
        uint8_t *a = oak_alloc((size_t)W * H * 4), *b = oak_alloc((size_t)W * H * 4);
        if (a && b) oak_test_parity_frame("crowd world", g_backend, &in, W, H, a, b);
        oak_free(a), oak_free(b);
    }
    /* the tiers of each stream: figures in view per tier (the full mesh
       near, the simplified one beyond) against a count made here from the
       records, the pose spheres and the tier distance */
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (r) {
        CHECK_OK(oak_renderer_draw(r, &in));
        oak_stream_stats st;
        CHECK_OK(oak_renderer_stream_stats(r, &st));
        const oak_render_view *v = oak_renderer_last_view(r);
        vec4 planes[6];
        mat4 vp;
        memcpy(vp, v->view_proj, sizeof vp);
        oak_frustum_planes(vp, planes);
        uint32_t expect[3] = {0, 0, 0}, at = 0;
        for (uint32_t k = 0; k < 2; k++) {
            const oak_render_stream *rs = &v->streams[k];
            CHECK_EQ_INT(rs->lod_count, 3); /* and the far tier's cards (test_crowd_impostor) */
            const oak_mesh_data *near = oak_mesh_get(rs->lods[0]), *mid = oak_mesh_get(rs->lods[1]);
            fprintf(stderr, "  stream %u tiers: %u and %u triangles\n", k,
                    near ? near->index_count / 3 : 0, mid ? mid->index_count / 3 : 0);
            /* a third or less; the fur figure's near tier 10,000 or more */
            CHECK(near && mid && mid->index_count * 3 <= near->index_count);
            if (k == 1) CHECK(near && near->index_count / 3 >= 10000);
            for (uint32_t i = 0; i < oak_stream_count(in.streams[k]); i++) {
                const oak_instance *rec = &after[at++];
                float d2 = 0;
                for (int e = 0; e < 3; e++) d2 += powf(rec->position[e] - v->camera_pos[e], 2);
                uint32_t tier = sqrtf(d2) >= rs->lod_distance[1]   ? 2
                                : sqrtf(d2) >= rs->lod_distance[0] ? 1
                                                                   : 0;
                /* the record turns about y only: (0, sin a/2, 0, cos a/2) */
                float sa = 2 * rec->rotation[1] * rec->rotation[3];
                float ca = 1 - 2 * rec->rotation[1] * rec->rotation[1];
                const float *c = rs->pose_sphere[tier];
                float wc[3] = {rec->position[0] + rec->scale * (ca * c[0] + sa * c[2]),
                               rec->position[1] + rec->scale * c[1],
                               rec->position[2] + rec->scale * (-sa * c[0] + ca * c[2])};
                expect[tier] += oak_frustum_sphere((const vec4 *)planes, wc, c[3] * rec->scale);
            }
        }
        fprintf(stderr, "  %s tiers: near %u (counted here %u), mid %u (%u), far %u (%u)\n",
                g_backend, st.per_lod[0], expect[0], st.per_lod[1], expect[1], st.per_lod[2],
                expect[2]);
        CHECK_EQ_INT(st.per_lod[0], expect[0]);
        CHECK_EQ_INT(st.per_lod[1], expect[1]);
        CHECK_EQ_INT(st.per_lod[2], expect[2]);
        CHECK(expect[0] >= 5 && expect[1] >= 5); /* both tiers at work */
    }
    oak_destroy_renderer(r);
done:
    oak_destroy_scene(scene);
}

/* FNV-1a over the `crowd` world's records (both streams) after 20 updates
   of 4,000 figures at `threads` job threads (the simulation, the gait, the
   records and the near figures' foot IK on the job pool). */
static uint64_t crowd_world_hash(uint32_t threads) {
    oak_shutdown();
    oak_engine_desc desc = {.log_level = OAK_LOG_ERROR + 1, .threads = threads};
    CHECK_OK(oak_init(&desc));
    CHECK_EQ_INT(oak_job_threads(), threads);
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_world_options o = {.count = 4000};
    uint64_t h = 1469598103934665603ull;
    if (scene && oak_world_build_with(scene, "crowd", &o) == OAK_OK) {
        for (int f = 1; f <= 20; f++) CHECK_OK(oak_world_update(scene, "crowd", (float)f / 60));
        oak_frame_input in;
        CHECK_OK(oak_scene_frame_input(scene, &in));
        uint32_t ik = 0;
        for (uint32_t k = 0; k < in.stream_count; k++) {
            const oak_instance *rec = oak_stream_records(in.streams[k]);
            for (uint32_t i = 0; i < oak_stream_count(in.streams[k]); i++) {
                ik += rec[i].phase < -16777216.0f;
                const uint8_t *b = (const uint8_t *)&rec[i];
                for (size_t e = 0; e < sizeof *rec; e++) h = (h ^ b[e]) * 1099511628211ull;
            }
        }
        CHECK_EQ_INT(ik, 64); /* the near figures' IK is in the hash */
    } else {
        CHECK(!"crowd world built");
    }
    oak_destroy_scene(scene);
    return h;
}

/* The world's records are the same bits at 1 and 3 job threads. */
TEST(crowdWorldSameBitsAtAnyThreadCount) {
    uint64_t a = crowd_world_hash(1), b = crowd_world_hash(3);
    fprintf(stderr, "  crowd world records at 1 and 3 threads: %016llx %016llx\n",
            (unsigned long long)a, (unsigned long long)b);
    CHECK(a == b);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    /* the counting allocator: the heap test */
    oak_engine_desc desc = {.log = oak_test_count_log,
                            .log_level = OAK_LOG_WARN,
                            .allocator = oak_test_counting_allocator()};
    int skip = oak_test_backend_start_desc(g_backend, &desc);
    if (skip) return skip;
    oak_test_fox fox;
    bool loaded = oak_test_fox_load(&fox, FOX_METRES);
    g_fox = fox.gltf, g_bank = fox.bank, g_fox_mesh = fox.mesh, g_scale = fox.scale;
    g_mesh_node = fox.node, g_skin = fox.skin;
    memcpy(g_clips, fox.clips, sizeof g_clips);
    if (!loaded) {
        oak_test_fox_free(&fox);
        return TEST_SUMMARY();
    }
    oak_test_fox_props(&g_fur, &g_ground_mat, &g_ground);
    fprintf(stderr, "  backend %s, fox %u vertices\n", g_backend, fox.prim->vertex_count);
    if (g_bank && g_fox_mesh.id) {
        if (!strcmp(g_backend, "cpu")) {
            RUN(posedInstanceMatchesCpuSkinning);
            RUN(blendedInstanceMatchesCpuCrossfade);
            RUN(furFigureIsSkinnedAndPosed);
            RUN(posedCullKeepsEveryPose);
            RUN(badPosedStreamsFail);
            g_oak_test_errors = 0; /* the bad descs log their errors on purpose */
        } else {
            RUN(backendsAgreeOnAPosedCrowd);
        }
        RUN(phasePlusDurationDrawsTheSame);
        RUN(blendedDepthMatchesCrossfade);
        RUN(posedMotionIsThePose);
        RUN(posedFramesMakeNoHeapCalls);
        RUN(crowdWorldWalks);
    }
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_test_fox_free(&fox);
    /* last: it starts the engine again at other thread counts */
    if (!strcmp(g_backend, "cpu")) RUN(crowdWorldSameBitsAtAnyThreadCount);
    oak_shutdown();
    return TEST_SUMMARY();
}
