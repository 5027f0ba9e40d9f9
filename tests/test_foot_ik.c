/* Two-bone foot IK for the crowd's near tier (issue 15; docs/WORLD.md
 * "Crowds: foot IK"). On a slope the planted paws' lowest vertices come to
 * within 2 cm of the ground (the bank's pose leaves them centimetres off);
 * override palettes pose an instance through every backend's posing path
 * (pose.glsl on the GPUs) as the CPU's skinning does, within 1 mm of depth;
 * the crowd world solves only its near figures (at most 64, within the
 * near tier), leaves every other record as it was byte for byte, and its
 * job-pool solve is the serial one's bits, and every IK-posed vertex lies
 * inside its figure's cull sphere; bad overrides fail in a line. */
#include "oak_test.h"

#include <oak/anim.h>
#include <oak/world.h>

#include "backend_start.h"
#include "fox_test.h"
#include "render/pose_stream.h"
#include "render/stream.h"
#include "world/internal.h"

#define W          160
#define H          90
#define FOX_METRES 0.5f

static const char *g_backend = "cpu";
static oak_gltf *g_fox;
static int32_t g_clips[3]; /* Survey, Walk, Run */
static uint32_t g_skin;
static float g_scale;
static oak_mesh g_fox_mesh, g_ground;
static oak_material g_fur, g_ground_mat;
static oak_pose_bank *g_bank;
static oak_foot_rig *g_rig;

/* A slope of about 17 degrees up toward +x and 11 toward -z. */
static float slope(void *user, float x, float z) {
    (void)user;
    return 0.05f + 0.3f * x - 0.2f * z;
}

static oak_instance fox_on_slope(float x, float z, float yaw, float phase) {
    return (oak_instance){.position = {x, slope(NULL, x, z), z},
                          .scale = g_scale,
                          .rotation = {0, sinf(yaw * 0.5f), 0, cosf(yaw * 0.5f)},
                          .color = {1, 1, 1},
                          .phase = phase};
}

static uint32_t joints(void) {
    return oak_pose_bank_joints(g_bank);
}

/* On the slope, through the Walk and the Run at three headings: every
   fully planted paw's lowest vertex within 2 cm of the ground under it
   after the solve; before it, the bank's pose leaves them much farther
   (the hill rises under one paw and falls under another). */
TEST(plantedPawsTouchTheSlope) {
    float *pal = oak_alloc(sizeof(float) * 12 * joints());
    if (!pal) return;
    double before = 0, after = 0, swing = 0;
    uint32_t planted = 0, legs = 0;
    for (uint32_t c = 1; c < 3; c++) {
        float dur = oak_pose_bank_duration(g_bank, c);
        for (int h = 0; h < 3; h++)
            for (int f = 0; f < 16; f++) {
                float t = dur * (float)f / 16;
                oak_instance rec = fox_on_slope(0.4f, -0.3f, 0.3f + 2.1f * (float)h,
                                                (float)c * OAK_POSE_CLIP_SECONDS + t);
                oak_pose_bank_sample(g_bank, c, t, pal);
                float was[4];
                for (uint32_t l = 0; l < 4; l++)
                    was[l] = oak_foot_ik_clearance(g_rig, l, &rec, slope, NULL, pal);
                oak_foot_ik_info info;
                oak_foot_ik_solve(g_rig, &rec, slope, NULL, pal, &info);
                for (uint32_t l = 0; l < 4; l++) {
                    legs++;
                    float now = oak_foot_ik_clearance(g_rig, l, &rec, slope, NULL, pal);
                    if (info.weight[l] >= 1) {
                        planted++;
                        before = fmax(before, fabs(was[l]));
                        after = fmax(after, fabs(now));
                    } else if (info.weight[l] <= 0)
                        swing = fmax(swing, fabs(info.lift[l] + info.drop));
                }
            }
    }
    fprintf(stderr,
            "  %u of %u paws fully planted: lowest vertex off the slope %.4f m at most with IK, "
            "%.4f m without; swinging paws moved %.4f m beyond the hips' drop\n",
            planted, legs, after, before, swing);
    CHECK(planted >= legs / 5);
    CHECK(after < 0.02);
    CHECK(before > 0.04);
    CHECK(swing < 1e-6); /* a swinging paw is left alone */
    oak_free(pal);
}

/* Override slots: two generations that alternate; too many palettes, a
   record naming a slot the stream lacks and overrides on a rigid stream
   each fail in a line. */
TEST(overrideSlotsAlternate) {
    oak_stream_desc d = {.capacity = 2,
                         .lods = {{g_fox_mesh, 0}},
                         .material = g_fur,
                         .pose_bank = g_bank,
                         .pose_overrides = 3};
    oak_stream *s = NULL;
    CHECK_OK(oak_make_stream(&s, &d));
    float *pal = oak_calloc((size_t)12 * joints() * 4, sizeof(float));
    if (!s || !pal) goto done;
    uint32_t first[3];
    for (int k = 0; k < 3; k++) CHECK_OK(oak_stream_write_pose_overrides(s, 2, pal, &first[k]));
    CHECK_EQ_INT(first[0], 0);
    CHECK_EQ_INT(first[1], 3);
    CHECK_EQ_INT(first[2], 0);
    uint32_t f;
    CHECK(oak_stream_write_pose_overrides(s, 4, pal, &f) == OAK_ERROR_LIMIT);
    oak_instance rec = fox_on_slope(0, 0, 0, oak_pose_override_phase(5));
    CHECK_OK(oak_stream_write(s, 0, &rec, 1));
    rec.phase = oak_pose_override_phase(6);
    CHECK(oak_stream_write(s, 0, &rec, 1) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "override slot 6") != NULL);
    /* every override phase below every blend's, exact */
    CHECK(oak_pose_override_phase(0) < oak_pose_blend_phase(15, 15, 1, 0.999f));
    CHECK(oak_pose_override_phase(8191) != oak_pose_override_phase(8190));
    d.pose_bank = NULL;
    oak_stream *bad = NULL;
    d.lods[0].mesh = g_ground;
    CHECK(oak_make_stream(&bad, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(bad == NULL);
done:
    oak_free(pal);
    oak_destroy_stream(s);
}

/* A fox on the slope posed by its IK palette through this backend's posing
   path (pose.glsl on the GPUs) against the CPU's skinning of the same
   palette made a rigid mesh (oak_stream_instance_points), both drawn here:
   depth within 1 mm on 99% of the pixels either covers; the bank's pose
   alone (no override) does not agree so (the paws moved). */
TEST(overridePoseMatchesCpuSkinning) {
    oak_stream_desc sd = {.capacity = 1,
                          .lods = {{g_fox_mesh, 0}},
                          .material = g_fur,
                          .pose_bank = g_bank,
                          .pose_overrides = 1};
    oak_stream *s = NULL;
    CHECK_OK(oak_make_stream(&s, &sd));
    const oak_mesh_data *md = oak_mesh_get(g_fox_mesh);
    uint32_t n = md->vertex_count;
    size_t px = (size_t)W * H;
    float *pal = oak_alloc(sizeof(float) * 12 * joints()), *pos = oak_alloc(sizeof(float) * 3 * n);
    float *bank_pos = oak_alloc(sizeof(float) * 3 * n);
    float *depth[4] = {NULL, NULL, NULL, NULL};
    oak_mesh ref = {0};
    oak_renderer *r = NULL;
    if (!s || !pal || !pos || !bank_pos) goto done;
    /* the Walk where both hind paws stand, the fox turned side-on, steep ground */
    float t = 0.3f * oak_pose_bank_duration(g_bank, 1);
    oak_instance rec = fox_on_slope(0, -0.5f, 1.2f, OAK_POSE_CLIP_SECONDS + t);
    rec.position[1] = 0; /* drawn on the flat ground: only the pose matters here */
    oak_pose_bank_sample(g_bank, 1, t, pal);
    oak_instance on = rec;
    on.position[1] = slope(NULL, 0, -0.5f);
    oak_foot_ik_info info;
    oak_foot_ik_solve(g_rig, &on, slope, NULL, pal, &info);
    uint32_t first;
    CHECK_OK(oak_stream_write_pose_overrides(s, 1, pal, &first));
    CHECK_OK(oak_stream_write(s, 0, &rec, 1));
    CHECK_OK(oak_stream_set_count(s, 1));
    CHECK_EQ_INT(oak_stream_instance_points(s, 0, 0, bank_pos, n), n);
    oak_instance ik = rec;
    ik.phase = oak_pose_override_phase(first);
    CHECK_OK(oak_stream_write(s, 0, &ik, 1));
    CHECK_EQ_INT(oak_stream_instance_points(s, 0, 0, pos, n), n);
    double moved = 0;
    for (uint32_t v = 0; v < n; v++)
        moved = fmax(moved, fabs((double)pos[3 * v + 1] - bank_pos[3 * v + 1]));
    fprintf(stderr, "  %s: IK moved a paw %.4f m (lifts %.3f %.3f %.3f %.3f, hips %.3f)\n",
            g_backend, moved, info.lift[0], info.lift[1], info.lift[2], info.lift[3], info.drop);
    CHECK(moved > 0.02);
    oak_mesh_desc rd = {.vertex_count = n,
                        .index_count = md->index_count,
                        .positions = pos,
                        .normals = md->normals,
                        .indices = md->indices,
                        .name = "ik fox"};
    CHECK_OK(oak_make_mesh(&ref, &rd));
    if (!ref.id) goto done;
    oak_frame_input in;
    mat4 worlds[2];
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    memset(&in, 0, sizeof in), memset(&sun, 0, sizeof sun), memset(&env, 0, sizeof env);
    memset(&post, 0, sizeof post);
    oak_mesh meshes[2] = {g_ground, ref};
    oak_material mats[2] = {g_ground_mat, g_fur};
    glm_mat4_identity(worlds[0]);
    glm_mat4_identity(worlds[1]);
    oak_test_sunlit_input(&in, 1, meshes, mats, (const mat4 *)worlds, &sun, &env, &post, 50, 60);
    mat4 view;
    glm_lookat((vec3){0.3f, 0.3f, 0.25f}, (vec3){0, 0.15f, -0.5f}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, in.camera_world);
    post.channel = OAK_CHANNEL_DEPTH;
    in.stream_count = 1;
    in.streams = &s;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    for (int k = 0; k < 4 && r; k++) {
        depth[k] = oak_alloc(sizeof(float) * 4 * px);
        if (!depth[k]) break;
        /* 0: the override; 1: the bank's pose; 2: the rigid CPU skinning; 3: the ground */
        CHECK_OK(oak_stream_write(s, 0, k == 1 ? &rec : &ik, 1));
        CHECK_OK(oak_stream_set_count(s, k < 2 ? 1 : 0));
        in.draw_count = k == 2 ? 2 : 1;
        CHECK_OK(oak_renderer_draw(r, &in));
        CHECK_OK(oak_renderer_read_channel(r, depth[k], 4 * px));
    }
    if (depth[0] && depth[1] && depth[2] && depth[3]) {
        uint32_t fox, agree, bank_agree;
        oak_test_depth_agree(depth, px, &fox, &agree, &bank_agree);
        fprintf(stderr,
                "  %s: override depth within 1 mm of the CPU skinning on %u of %u pixels (the "
                "bank's pose %u)\n",
                g_backend, agree, fox, bank_agree);
        CHECK(fox > px / 20);
        CHECK(agree >= 0.99 * fox);
        CHECK(bank_agree < 0.97 * fox);
    }
done:
    oak_destroy_renderer(r);
    for (int k = 0; k < 4; k++) oak_free(depth[k]);
    if (ref.id) oak_destroy_mesh(ref);
    oak_free(pal), oak_free(pos), oak_free(bank_pos);
    oak_destroy_stream(s);
}

static float terrain_ground(void *user, float x, float z) {
    float h = 0;
    oak_terrain_height(user, x, z, &h, NULL);
    return h;
}

/* The `crowd` world on the terrain, 300 figures, foot IK on and off, the
   same second of updates: the IK world's records are the other's byte for
   byte but for the near figures' phases (override phases), at most 64
   figures, each within the 20 m near tier of the eye; each of their posed
   vertices is, bit for bit, what a serial solve of the same figure gives
   (the job pool's split changes nothing); and their planted paws stand
   nearer the ground. */
TEST(crowdSolvesOnlyItsNearFigures) {
    oak_scene *sc[2] = {NULL, NULL};
    oak_frame_input in[2];
    bool built = true;
    for (int k = 0; k < 2; k++) {
        CHECK_OK(oak_make_scene(&sc[k]));
        oak_world_options o = {.count = 300, .terrain = 1, .foot_ik = k ? -1 : 1};
        built = built && sc[k] && oak_world_build_with(sc[k], "crowd", &o) == OAK_OK;
        for (int f = 0; built && f <= 30; f++)
            CHECK_OK(oak_world_update(sc[k], "crowd", (float)f / 30));
        if (built) CHECK_OK(oak_scene_frame_input(sc[k], &in[k]));
    }
    CHECK(built);
    oak_terrain *terrain = built ? _oak_terrain_of(sc[0]) : NULL;
    const oak_mesh_data *md = oak_mesh_get(g_fox_mesh);
    uint32_t n = md->vertex_count;
    float *a = oak_alloc(sizeof(float) * 3 * n), *b = oak_alloc(sizeof(float) * 3 * n);
    float *pal = oak_alloc(sizeof(float) * 12 * joints());
    oak_stream *one = NULL;
    oak_stream_desc sd = {.capacity = 1,
                          .lods = {{g_fox_mesh, 0}},
                          .material = g_fur,
                          .pose_bank = g_bank,
                          .pose_overrides = 1};
    CHECK_OK(oak_make_stream(&one, &sd));
    if (!built || !terrain || !a || !b || !pal || !one || in[0].stream_count != 2 ||
        in[1].stream_count != 2)
        goto done;
    const float *eye = in[0].camera_world[3];
    uint32_t near = 0, same = 0, other = 0, bits = 0;
    double with_ik = 0, without = 0;
    for (uint32_t s = 0; s < 2; s++) {
        const oak_instance *on = oak_stream_records(in[0].streams[s]);
        const oak_instance *off = oak_stream_records(in[1].streams[s]);
        for (uint32_t i = 0; i < oak_stream_count(in[0].streams[s]); i++) {
            if (on[i].phase >= -16777216.0f) { /* not picked: as it was */
                other++;
                same += !memcmp(&on[i], &off[i], sizeof on[i]);
                continue;
            }
            near++;
            oak_instance x = on[i];
            x.phase = off[i].phase;
            same += !memcmp(&x, &off[i], sizeof x);
            float d2 = 0;
            for (int e = 0; e < 3; e++) d2 += powf(on[i].position[e] - eye[e], 2);
            CHECK(d2 < 20.0f * 20.0f);
            if (s) continue; /* the serial solve on the Fox's own mesh (the fur's: its own) */
            /* the serial solve of the same figure from the bank's palette at
               its phase (the posing path's own), posed through the same path */
            oak_instance bank = off[i];
            CHECK_OK(oak_stream_set_count(one, 1));
            uint32_t first;
            _oak_pose_palette(g_bank, NULL, 0, off[i].phase, pal);
            oak_foot_ik_solve(g_rig, &off[i], terrain_ground, terrain, pal, NULL);
            CHECK_OK(oak_stream_write_pose_overrides(one, 1, pal, &first));
            bank.phase = oak_pose_override_phase(first);
            CHECK_OK(oak_stream_write(one, 0, &bank, 1));
            CHECK_EQ_INT(oak_stream_instance_points(one, 0, 0, a, n), n);
            CHECK_EQ_INT(oak_stream_instance_points(in[0].streams[0], i, 0, b, n), n);
            bits += !memcmp(a, b, sizeof(float) * 3 * n);
            /* the paws: the lowest clearance of each leg, with and without */
            _oak_pose_palette(g_bank, NULL, 0, off[i].phase, pal);
            oak_foot_ik_info info;
            float *ik = oak_alloc(sizeof(float) * 12 * joints());
            if (!ik) continue;
            memcpy(ik, pal, sizeof(float) * 12 * joints());
            oak_foot_ik_solve(g_rig, &off[i], terrain_ground, terrain, ik, &info);
            for (uint32_t l = 0; l < 4; l++)
                if (info.weight[l] >= 1) {
                    with_ik = fmax(with_ik, fabs(oak_foot_ik_clearance(
                                                g_rig, l, &off[i], terrain_ground, terrain, ik)));
                    without = fmax(without, fabs(oak_foot_ik_clearance(
                                                g_rig, l, &off[i], terrain_ground, terrain, pal)));
                }
            oak_free(ik);
        }
    }
    uint32_t foxes = 0;
    for (uint32_t i = 0; i < oak_stream_count(in[0].streams[0]); i++)
        foxes += oak_stream_records(in[0].streams[0])[i].phase < -16777216.0f;
    fprintf(stderr,
            "  crowd world: %u near figures solved (%u Foxes), %u others; %u of %u records the "
            "IK-off world's but for the phase; %u of %u Foxes' vertices the serial solve's bit "
            "for bit; planted paws off the terrain %.4f m with IK, %.4f m without\n",
            near, foxes, other, same, near + other, bits, foxes, with_ik, without);
    CHECK(near >= 5 && near <= 64);
    CHECK_EQ_INT(same, near + other);
    CHECK_EQ_INT(bits, foxes);
    CHECK(with_ik < 0.02);
done:
    oak_destroy_stream(one);
    oak_free(a), oak_free(b), oak_free(pal);
    for (int k = 0; k < 2; k++) oak_destroy_scene(sc[k]);
}

/* An override far from its base (the whole figure turned 25 degrees about
   its sphere's centre and moved 0.4 of its radius): the stream's bound is
   at least the largest move of a vertex and within 1.5 times it, and the
   grown sphere (what every backend culls with) holds every vertex the
   bank's sphere lets out. */
TEST(overrideBoundHoldsAMovedPose) {
    oak_stream *st = NULL;
    oak_stream_desc sd = {.capacity = 1,
                          .lods = {{g_fox_mesh, 0}},
                          .material = g_fur,
                          .pose_bank = g_bank,
                          .pose_overrides = 1};
    CHECK_OK(oak_make_stream(&st, &sd));
    uint32_t n = oak_mesh_get(g_fox_mesh)->vertex_count, J = joints();
    float *base = oak_alloc(sizeof(float) * 12 * J), *moved = oak_alloc(sizeof(float) * 12 * J);
    float *a = oak_alloc(sizeof(float) * 3 * n), *b = oak_alloc(sizeof(float) * 3 * n);
    float bank[4];
    if (!st || !base || !moved || !a || !b || !_oak_pose_sphere(g_bank, g_fox_mesh, bank)) {
        CHECK(!"set up");
        goto done;
    }
    _oak_pose_palette(g_bank, NULL, 0, OAK_POSE_CLIP_SECONDS + 0.3f, base);
    float ang = 25 * (float)OAK_PI / 180, cs = cosf(ang), sn = sinf(ang);
    const float R[9] = {cs, 0, sn, 0, 1, 0, -sn, 0, cs};
    for (uint32_t j = 0; j < J; j++) { /* (R (x - c) + c + d) after the joint's */
        const float *m = base + 12 * j;
        float *o = moved + 12 * j;
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 4; c++)
                o[4 * r + c] = R[3 * r] * m[c] + R[3 * r + 1] * m[4 + c] + R[3 * r + 2] * m[8 + c];
            o[4 * r + 3] +=
                bank[r] - (R[3 * r] * bank[0] + R[3 * r + 1] * bank[1] + R[3 * r + 2] * bank[2]);
        }
        o[3] += 0.4f * bank[3];
    }
    oak_instance rec = {.position = {0, 0, -3}, .scale = g_scale, .rotation = {0, 0, 0, 1}};
    uint32_t first;
    /* the base as an override (bound 0), then the moved pose from it */
    CHECK_OK(oak_stream_write_pose_overrides_from(st, 1, base, base, &first));
    rec.phase = oak_pose_override_phase(first);
    CHECK_OK(oak_stream_write(st, 0, &rec, 1));
    CHECK_OK(oak_stream_set_count(st, 1));
    CHECK_EQ_INT(oak_stream_instance_points(st, 0, 0, a, n), n);
    CHECK_OK(oak_stream_write_pose_overrides_from(st, 1, moved, base, &first));
    rec.phase = oak_pose_override_phase(first);
    CHECK_OK(oak_stream_write(st, 0, &rec, 1));
    CHECK_EQ_INT(oak_stream_instance_points(st, 0, 0, b, n), n);
    float grown[OAK_STREAM_LODS][4];
    _oak_stream_cull_spheres(st, grown);
    double bound = (double)(grown[0][3] - bank[3]), most = 0;
    uint32_t out_bank = 0, out_grown = 0;
    for (uint32_t v = 0; v < n; v++) {
        double d2 = 0, m2 = 0, g2 = 0;
        for (int e = 0; e < 3; e++) {
            double c = rec.position[e] + g_scale * bank[e]; /* no turn: the record's is 1 */
            d2 += pow((double)b[3 * v + e] - c, 2);
            g2 += pow((double)b[3 * v + e] - (rec.position[e] + g_scale * grown[0][e]), 2);
            m2 += pow((double)b[3 * v + e] - a[3 * v + e], 2);
        }
        most = fmax(most, sqrt(m2) / g_scale);
        out_bank += sqrt(d2) > (double)bank[3] * g_scale;
        out_grown += sqrt(g2) > (double)grown[0][3] * g_scale;
    }
    fprintf(stderr,
            "  moved override: largest vertex move %.2f mesh units, bound %.2f (x%.3f); %u of %u "
            "vertices outside the bank's sphere, %u outside the grown one\n",
            most, bound, bound / most, out_bank, n, out_grown);
    CHECK(bound >= most && bound <= 1.5 * most);
    CHECK(out_bank > 0);
    CHECK_EQ_INT(out_grown, 0);
done:
    oak_free(base), oak_free(moved), oak_free(a), oak_free(b);
    oak_destroy_stream(st);
}

/* The `crowd` world on the terrain (300 figures, a second of updates),
   with foot IK and without: every vertex of every IK-posed figure (its
   near tier, the Fox's or the fur figure's mesh) lies inside the cull
   sphere the renderer culls it with (the bank's sphere grown by the
   stream's bound on the correction), and the growth is at least the
   largest move the IK made of a vertex (against the same figure without
   IK) and within 3 times it. */
TEST(ikPosesStayInsideTheirCullSpheres) {
    oak_scene *scene = NULL, *plain = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_make_scene(&plain));
    oak_world_options o = {.count = 300, .terrain = 1}, off = o;
    off.foot_ik = -1;
    bool built = scene && plain && oak_world_build_with(scene, "crowd", &o) == OAK_OK &&
                 oak_world_build_with(plain, "crowd", &off) == OAK_OK;
    CHECK(built);
    for (int f = 0; built && f <= 30; f++) {
        CHECK_OK(oak_world_update(scene, "crowd", (float)f / 30));
        CHECK_OK(oak_world_update(plain, "crowd", (float)f / 30));
    }
    oak_frame_input in, pin;
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 256};
    float *pts = oak_alloc(sizeof(float) * 3 * 16384), *ref = oak_alloc(sizeof(float) * 3 * 16384);
    if (!built || !pts || !ref || oak_scene_frame_input(scene, &in) != OAK_OK ||
        oak_scene_frame_input(plain, &pin) != OAK_OK || in.stream_count != 2 ||
        pin.stream_count != 2 || oak_make_renderer(&r, &rd) != OAK_OK) {
        CHECK(!"crowd world drawn");
        goto done;
    }
    CHECK_OK(oak_renderer_draw(r, &in));
    const oak_render_view *v = oak_renderer_last_view(r);
    uint32_t posed = 0, vertices = 0, outside = 0, past_bank = 0;
    double worst = -INFINITY, worst_bank = -INFINITY, grow = 0, moved = 0;
    for (uint32_t s = 0; s < 2; s++) {
        const oak_render_stream *rs = &v->streams[s];
        float
            bank[4]; /* the bank's own sphere of the near tier (the world's bank: the same file) */
        CHECK(_oak_pose_sphere(g_bank, rs->lods[0], bank));
        const oak_instance *rec = oak_stream_records(in.streams[s]);
        for (uint32_t i = 0; i < oak_stream_count(in.streams[s]); i++) {
            if (rec[i].phase >= -16777216.0f) continue; /* not IK-posed */
            posed++;
            const float *c = rs->pose_sphere[0];
            grow = fmax(grow, (double)(c[3] - bank[3]) * rec[i].scale);
            /* the record turns about y only: (0, sin a/2, 0, cos a/2) */
            float sa = 2 * rec[i].rotation[1] * rec[i].rotation[3];
            float ca = 1 - 2 * rec[i].rotation[1] * rec[i].rotation[1];
            float wc[3] = {rec[i].position[0] + rec[i].scale * (ca * c[0] + sa * c[2]),
                           rec[i].position[1] + rec[i].scale * c[1],
                           rec[i].position[2] + rec[i].scale * (-sa * c[0] + ca * c[2])};
            uint32_t n = oak_stream_instance_points(in.streams[s], i, 0, pts, 16384);
            CHECK(n > 0 && n <= 16384);
            CHECK_EQ_INT(oak_stream_instance_points(pin.streams[s], i, 0, ref, 16384), n);
            for (uint32_t p = 0; p < n && p < 16384; p++) {
                double d2 = 0;
                for (int e = 0; e < 3; e++) d2 += pow((double)pts[3 * p + e] - wc[e], 2);
                double past = sqrt(d2) - (double)c[3] * rec[i].scale;
                double past_b = sqrt(d2) - (double)bank[3] * rec[i].scale;
                vertices++;
                double m2 = 0;
                for (int e = 0; e < 3; e++) m2 += pow((double)pts[3 * p + e] - ref[3 * p + e], 2);
                moved = fmax(moved, sqrt(m2));
                outside += past > 0, past_bank += past_b > 0;
                worst = fmax(worst, past), worst_bank = fmax(worst_bank, past_b);
            }
        }
    }
    fprintf(stderr,
            "  %u IK-posed figures, %u vertices: %u outside their cull spheres (nearest the "
            "rim %.4f m inside), %u outside the bank's (%.4f m); spheres grown by %.4f m, the "
            "IK moved a vertex %.4f m at most\n",
            posed, vertices, outside, -worst, past_bank, worst_bank, grow, moved);
    CHECK(posed >= 5);
    CHECK_EQ_INT(outside, 0);
    CHECK(grow >= moved && grow <= 3 * moved);
done:
    oak_free(pts), oak_free(ref);
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
    oak_destroy_scene(plain);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int skip = oak_test_backend_start(g_backend, oak_test_count_log);
    if (skip) return skip;
    oak_test_fox fox;
    bool loaded = oak_test_fox_load(&fox, FOX_METRES);
    g_fox = fox.gltf, g_bank = fox.bank, g_fox_mesh = fox.mesh, g_scale = fox.scale;
    g_skin = fox.skin;
    memcpy(g_clips, fox.clips, sizeof g_clips);
    if (!loaded) {
        oak_test_fox_free(&fox);
        return TEST_SUMMARY();
    }
    oak_foot_rig_desc fd = {.gltf = g_fox,
                            .skin = g_skin,
                            .mesh = g_fox_mesh,
                            .bank = g_bank,
                            .leg_count = 4,
                            .legs = _oak_crowd_fox_legs};
    CHECK_OK(oak_make_foot_rig(&g_rig, &fd));
    oak_test_fox_props(&g_fur, &g_ground_mat, &g_ground);
    if (g_rig && g_fox_mesh.id) {
        if (!strcmp(g_backend, "cpu")) {
            RUN(plantedPawsTouchTheSlope);
            RUN(overrideSlotsAlternate);
            RUN(crowdSolvesOnlyItsNearFigures);
            RUN(overrideBoundHoldsAMovedPose);
            RUN(ikPosesStayInsideTheirCullSpheres);
            g_oak_test_errors = 0; /* the bad writes log their errors on purpose */
        }
        RUN(overridePoseMatchesCpuSkinning);
    }
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_destroy_foot_rig(g_rig);
    oak_test_fox_free(&fox);
    oak_shutdown();
    return TEST_SUMMARY();
}
