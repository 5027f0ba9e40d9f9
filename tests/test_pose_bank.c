/* Pose banks on the Fox (Survey, Walk, Run; 24 joints): a bank frame poses
 * the mesh where CPU skinning of the same clip time does (the root's
 * travel added back); between frames and for a blend of two clips within
 * 1 mm on a fox scaled to its real height; the travel taken out equals the
 * root's travel in the clip, Run faster than Walk; the loop closes; bad
 * descs give one line. */
#include "oak_test.h"

#include <oak/anim.h>

#include "gltf_test_assets.h"

#define FOX_HEIGHT 0.5f /* metres a red fox stands at the shoulder-ish top of its mesh */

static oak_gltf *g_fox;
static int32_t g_walk, g_run, g_survey;
static uint32_t g_mesh_node, g_skin;
static float g_to_metres; /* model units to metres: the mesh's height to FOX_HEIGHT */

typedef struct posed {
    oak_scene *scene;
    oak_gltf_instance *inst;
} posed;

/* The CPU's skinning of the fox at time t of a clip (mesh-node space). */
static const float *player_pose(posed *p, int32_t clip, float t) {
    oak_anim_player *pl = oak_gltf_instance_player(p->inst);
    oak_anim_play(pl, clip, false);
    pl->playing = false;
    oak_anim_set_time(pl, t);
    oak_anim_update(p->scene, 0);
    if (oak_skin_update(p->scene)) return NULL;
    /* as every backend draws it (posed by its palette where it has one) */
    static float posed[3 * 4096];
    uint32_t n = oak_mesh_posed_positions(oak_gltf_instance_mesh(p->inst, g_mesh_node, 0), false,
                                          posed, 4096);
    return n ? posed : NULL;
}

/* The same mesh skinned by a bank palette, the offset the bank took out
   added back. */
static void bank_pose(const float *palette, const float offset[3], float *out) {
    const oak_gltf_primitive *pr = &g_fox->meshes[g_fox->nodes[g_mesh_node].mesh].primitives[0];
    uint32_t inf = pr->influence_count;
    for (uint32_t v = 0; v < pr->vertex_count; v++) {
        float m[12] = {0};
        for (uint32_t k = 0; k < inf; k++) {
            float w = pr->weights[(size_t)v * inf + k];
            if (w == 0) continue;
            const float *jm = palette + 12 * (size_t)pr->joints[(size_t)v * inf + k];
            for (int e = 0; e < 12; e++) m[e] += w * jm[e];
        }
        const float *p = pr->positions + 3 * (size_t)v;
        for (int r = 0; r < 3; r++)
            out[3 * v + r] = m[r * 4] * p[0] + m[r * 4 + 1] * p[1] + m[r * 4 + 2] * p[2] +
                             m[r * 4 + 3] + offset[r];
    }
}

static uint32_t vertex_count(void) {
    return g_fox->meshes[g_fox->nodes[g_mesh_node].mesh].primitives[0].vertex_count;
}

/* largest distance between two posed meshes, metres */
static double max_apart(const float *a, const float *b) {
    double most = 0;
    for (uint32_t v = 0; v < vertex_count(); v++) {
        double d2 = 0;
        for (int k = 0; k < 3; k++) d2 += pow((double)a[3 * v + k] - b[3 * v + k], 2);
        most = fmax(most, sqrt(d2));
    }
    return most * g_to_metres;
}

static oak_pose_bank *make_bank(float rate) {
    int32_t clips[3] = {g_survey, g_walk, g_run};
    oak_pose_bank_desc d = {
        .gltf = g_fox, .skin = g_skin, .clip_count = 3, .clips = clips, .rate = rate};
    oak_pose_bank *b = NULL;
    CHECK_OK(oak_make_pose_bank(&b, &d));
    return b;
}

static bool open_fox(posed *p) {
    memset(p, 0, sizeof *p);
    CHECK_OK(oak_make_scene(&p->scene));
    if (!p->scene) return false;
    CHECK_OK(oak_gltf_instantiate(&p->inst, p->scene, g_fox, (oak_entity){0}, "fox"));
    return p->inst != NULL;
}

static void close_fox(posed *p) {
    if (p->inst) oak_gltf_instance_free(p->inst);
    if (p->scene) oak_destroy_scene(p->scene);
}

/* Bank frames are the CPU's pose at the frame's time; halfway between
   frames the lerp of palettes stays within 1 mm of it at the default 120
   frames a second (the Walk's fast legs were 14 mm off at 30). */
TEST(bankFramesAndBetweenMatchCpuSkinning) {
    posed p;
    oak_pose_bank *b = make_bank(0);
    uint32_t n = vertex_count();
    float *mine = oak_alloc(sizeof(float) * 3 * n), *pal = oak_alloc(sizeof(float) * 12 * 24);
    if (!b || !mine || !pal || !open_fox(&p)) goto done;
    CHECK_EQ_INT(oak_pose_bank_joints(b), g_fox->skins[g_skin].joint_count);
    for (uint32_t c = 0; c < 3; c++) {
        int32_t clip = c == 0 ? g_survey : c == 1 ? g_walk : g_run;
        float start = g_fox->clips[clip].start, dur = oak_pose_bank_duration(b, c);
        uint32_t frames = oak_pose_bank_frames(b, c);
        CHECK(frames >= 2 && fabsf(dur - (g_fox->clips[clip].end - start)) < 1e-6f);
        double at_frames = 0, between = 0;
        for (uint32_t f = 0; f + 1 < frames; f += 7) {
            for (int half = 0; half < 2; half++) {
                float t = ((float)f + 0.5f * (float)half) / (float)(frames - 1) * dur;
                const float *ref = player_pose(&p, clip, start + t);
                CHECK(ref != NULL);
                if (!ref) goto done;
                float off[3];
                oak_pose_bank_sample(b, c, t, pal);
                oak_pose_bank_offset(b, c, t, off);
                bank_pose(pal, off, mine);
                double d = max_apart(mine, ref);
                if (half)
                    between = fmax(between, d);
                else
                    at_frames = fmax(at_frames, d);
            }
        }
        fprintf(stderr, "  clip %s: %u frames, at frames %.4f mm, between %.3f mm\n",
                g_fox->clips[clip].name, frames, at_frames * 1e3, between * 1e3);
        CHECK(at_frames < 1e-5); /* 0.01 mm: float rounding of the same matrices */
        CHECK(between < 1e-3);
    }
done:
    if (b) close_fox(&p);
    oak_destroy_pose_bank(b);
    oak_free(mine), oak_free(pal);
}

/* A blend is the crossfade of the two poses: 0.3 of Run at tb over Walk at
   ta is 0.7 Walk + 0.3 Run of the CPU's skinning, the offsets blended the
   same way. */
TEST(blendOfTwoClipsIsTheCrossfade) {
    posed p;
    oak_pose_bank *b = make_bank(0);
    uint32_t n = vertex_count();
    float *mine = oak_alloc(sizeof(float) * 3 * n), *ref = oak_alloc(sizeof(float) * 3 * n);
    float *pal = oak_alloc(sizeof(float) * 12 * 24);
    if (!b || !mine || !ref || !pal || !open_fox(&p)) goto done;
    const float w = 0.3f;
    const float ta = 0.37f, tb = 0.21f; /* between bank frames */
    const float *walk = player_pose(&p, g_walk, g_fox->clips[g_walk].start + ta);
    if (!walk) goto done;
    memcpy(ref, walk, sizeof(float) * 3 * n);
    const float *run = player_pose(&p, g_run, g_fox->clips[g_run].start + tb);
    if (!run) goto done;
    for (uint32_t i = 0; i < 3 * n; i++) ref[i] = ref[i] + (run[i] - ref[i]) * w;
    float oa[3], ob[3], off[3];
    oak_pose_bank_offset(b, 1, ta, oa);
    oak_pose_bank_offset(b, 2, tb, ob);
    for (int k = 0; k < 3; k++) off[k] = oa[k] + (ob[k] - oa[k]) * w;
    oak_pose_bank_blend(b, 1, ta, 2, tb, w, pal);
    bank_pose(pal, off, mine);
    double d = max_apart(mine, ref);
    fprintf(stderr, "  walk/run blend: %.3f mm from the crossfade\n", d * 1e3);
    CHECK(d < 1e-3);
done:
    if (b) close_fox(&p);
    oak_destroy_pose_bank(b);
    oak_free(mine), oak_free(ref), oak_free(pal);
}

/* The Fox's hips (b_Hip_01): the topmost joint its clips translate. */
static uint32_t root_node(void) {
    for (uint32_t n = 0; n < g_fox->node_count; n++)
        if (!strcmp(g_fox->nodes[n].name, "b_Hip_01")) return n;
    return 0;
}

/* feet: joints with no joint below them */
static bool is_leaf(uint32_t k) {
    const oak_gltf_skin *s = &g_fox->skins[g_skin];
    for (uint32_t j = 0; j < s->joint_count; j++)
        if (g_fox->nodes[s->joints[j]].parent == (int32_t)s->joints[k]) return false;
    return true;
}

/* A joint's ground point in the CPU's pose (mesh-node space). */
static void joint_at(posed *p, uint32_t node, float out[3]) {
    mat4 w, mn, inv;
    oak_scene_world_matrix(p->scene, oak_gltf_instance_node(p->inst, node), w);
    oak_scene_world_matrix(p->scene, oak_gltf_instance_node(p->inst, g_mesh_node), mn);
    glm_mat4_inv(mn, inv);
    vec4 a = {w[3][0], w[3][1], w[3][2], 1}, q;
    glm_mat4_mulv(inv, a, q);
    memcpy(out, q, 12);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

/* The Fox's clips are made on the spot: their pace is the planted foot's.
   Through the CPU's own pose, a figure moving at that pace keeps its
   lowest foot still: the foot's ground drift over a frame shrinks to under
   a fifth of what it is standing still. Run outruns Walk; Survey barely
   moves; every loop closes (last frame against first). */
TEST(paceKeepsThePlantedFootStill) {
    posed p;
    oak_pose_bank *b = make_bank(0);
    uint32_t n = vertex_count();
    float *first = oak_alloc(sizeof(float) * 3 * n), *last = oak_alloc(sizeof(float) * 3 * n);
    float *pal = oak_alloc(sizeof(float) * 12 * 24);
    if (!b || !first || !last || !pal || !open_fox(&p)) goto done;
    const oak_gltf_skin *s = &g_fox->skins[g_skin];
    float speed[3];
    for (uint32_t c = 0; c < 3; c++) {
        int32_t clip = c == 0 ? g_survey : c == 1 ? g_walk : g_run;
        float dir[3], zero[3] = {0, 0, 0};
        float pace = oak_pose_bank_speed(b, c, dir);
        speed[c] = pace * g_to_metres;
        float dur = oak_pose_bank_duration(b, c), dt = 1.0f / 60.0f;
        /* per step: the lowest foot's drift standing and moving, its heights */
        double still[256], moving[256], ya[256];
        int steps = 0;
        double lowest = INFINITY;
        for (float t = 0; t + dt <= dur && steps < 256; t += dt) {
            float a[24][3], e[24][3];
            if (!player_pose(&p, clip, g_fox->clips[clip].start + t)) goto done;
            for (uint32_t k = 0; k < s->joint_count; k++) joint_at(&p, s->joints[k], a[k]);
            if (!player_pose(&p, clip, g_fox->clips[clip].start + t + dt)) goto done;
            for (uint32_t k = 0; k < s->joint_count; k++) joint_at(&p, s->joints[k], e[k]);
            uint32_t la = UINT32_MAX, le = UINT32_MAX;
            for (uint32_t k = 0; k < s->joint_count; k++) {
                if (!is_leaf(k)) continue;
                if (la == UINT32_MAX || a[k][1] < a[la][1]) la = k;
                if (le == UINT32_MAX || e[k][1] < e[le][1]) le = k;
            }
            lowest = fmin(lowest, a[la][1]);
            if (la != le) continue;
            float dx = e[la][0] - a[la][0], dz = e[la][2] - a[la][2];
            ya[steps] = fmax(a[la][1], e[la][1]);
            still[steps] = hypot(dx, dz);
            moving[steps++] = hypot(dx + dir[0] * pace * dt, dz + dir[2] * pace * dt);
        }
        /* planted: within 2% of the fox's height of the clip's lowest foot */
        int kept_steps = 0;
        for (int i = 0; i < steps; i++)
            if (ya[i] <= lowest + 0.02 * FOX_HEIGHT / g_to_metres)
                still[kept_steps] = still[i], moving[kept_steps++] = moving[i];
        steps = kept_steps;
        oak_pose_bank_sample(b, c, 0, pal);
        bank_pose(pal, zero, first);
        oak_pose_bank_sample(b, c, dur * 0.99999f, pal);
        bank_pose(pal, zero, last);
        double snap = max_apart(first, last);
        double ms = median(still, steps), mm = median(moving, steps);
        fprintf(stderr,
                "  %s: %.3f m/s; planted foot drifts %.2f mm a frame standing, %.2f moving "
                "(medians of %d frames); loop closes to %.3f mm\n",
                g_fox->clips[clip].name, speed[c], ms * g_to_metres * 1e3, mm * g_to_metres * 1e3,
                steps, snap * 1e3);
        CHECK(snap < 2e-3);
        if (c > 0) CHECK(steps > 4 && mm < 0.5 * ms);
    }
    CHECK(speed[2] > 1.5f * speed[1] && speed[1] > 0.1f);
    CHECK(speed[0] < 0.2f * speed[1]);
done:
    if (b) close_fox(&p);
    oak_destroy_pose_bank(b);
    oak_free(first), oak_free(last), oak_free(pal);
}

/* A clip whose root travels: the Walk with its root pushed along +z at
   V units a second (keys moved in place, then put back). The bank takes
   the travel out (the loop still closes) and gives V as the pace; kept,
   the loop jumps back by the travel; either way the frames are the CPU's
   pose with the offset added back. */
TEST(rootTravelIsTakenOutAsPace) {
    const float V = 40.0f; /* units a second: about 0.25 m/s */
    uint32_t root = root_node();
    const oak_gltf_clip *clip = &g_fox->clips[g_walk];
    oak_anim_sampler *sm = NULL;
    for (uint32_t c = 0; c < clip->channel_count; c++)
        if (clip->channels[c].node == root && clip->channels[c].path == OAK_ANIM_PATH_TRANSLATION)
            sm = &clip->samplers[clip->channels[c].sampler];
    CHECK(sm != NULL && sm->width == 3 && sm->interp == OAK_INTERP_LINEAR);
    if (!sm || sm->width != 3 || sm->interp != OAK_INTERP_LINEAR) return;
    /* the push in the hips' parent space that moves them V along the mesh's
       +z (the rig's root turns and scales its space) */
    mat4 parent, mesh, m, minv;
    oak_gltf_node_world(g_fox, (uint32_t)g_fox->nodes[root].parent, parent);
    oak_gltf_node_world(g_fox, g_mesh_node, mesh);
    glm_mat4_inv(mesh, minv);
    glm_mat4_mul(minv, parent, m);
    mat3 m3, inv3;
    glm_mat4_pick3(m, m3);
    glm_mat3_inv(m3, inv3);
    vec3 want = {0, 0, V}, u;
    glm_mat3_mulv(inv3, want, u);
    float *keys = (float *)sm->values;
    for (uint32_t k = 0; k < sm->key_count; k++)
        for (int a = 0; a < 3; a++) keys[3 * k + a] += u[a] * (sm->times[k] - clip->start);
    posed p;
    int32_t clips[1] = {g_walk};
    oak_pose_bank_desc d = {.gltf = g_fox, .skin = g_skin, .clip_count = 1, .clips = clips};
    oak_pose_bank *b = NULL, *kept = NULL;
    CHECK_OK(oak_make_pose_bank(&b, &d));
    d.keep_root_motion = true;
    CHECK_OK(oak_make_pose_bank(&kept, &d));
    uint32_t n = vertex_count();
    float *mine = oak_alloc(sizeof(float) * 3 * n), *other = oak_alloc(sizeof(float) * 3 * n);
    float *pal = oak_alloc(sizeof(float) * 12 * 24);
    if (!b || !kept || !mine || !other || !pal || !open_fox(&p)) goto done;
    float dir[3], zero[3] = {0, 0, 0}, off[3];
    float dur = oak_pose_bank_duration(b, 0);
    float pace = oak_pose_bank_speed(b, 0, dir);
    fprintf(stderr, "  walk pushed at %.1f units/s: pace %.3f along (%.3f, %.3f)\n", V, pace,
            dir[0], dir[2]);
    CHECK(fabsf(pace - V) < 1e-3f * V && dir[2] > 0.9999f);
    CHECK(fabsf(oak_pose_bank_speed(kept, 0, NULL) - V) < 1e-3f * V); /* reported, kept in */
    /* frames are the CPU's pose, offset back */
    float t = 2.0f / (float)(oak_pose_bank_frames(b, 0) - 1) * dur;
    const float *ref = player_pose(&p, g_walk, clip->start + t);
    if (!ref) goto done;
    oak_pose_bank_sample(b, 0, t, pal);
    oak_pose_bank_offset(b, 0, t, off);
    CHECK(fabsf(off[2] - V * t) < 1e-3f * V);
    bank_pose(pal, off, mine);
    CHECK(max_apart(mine, ref) < 1e-5);
    /* the loop closes with the travel out, jumps by it kept */
    oak_pose_bank_sample(b, 0, 0, pal);
    bank_pose(pal, zero, mine);
    oak_pose_bank_sample(b, 0, dur * 0.99999f, pal);
    bank_pose(pal, zero, other);
    double closes = max_apart(mine, other);
    oak_pose_bank_sample(kept, 0, 0, pal);
    bank_pose(pal, zero, mine);
    oak_pose_bank_sample(kept, 0, dur * 0.99999f, pal);
    bank_pose(pal, zero, other);
    double jumps = max_apart(mine, other);
    fprintf(stderr, "  loop: %.3f mm with the travel out, %.1f mm kept (travel %.1f mm)\n",
            closes * 1e3, jumps * 1e3, V * dur * g_to_metres * 1e3);
    CHECK(closes < 2e-3);
    CHECK(fabs(jumps - V * dur * g_to_metres) < 0.02 * V * dur * g_to_metres);
done:
    for (uint32_t k = 0; k < sm->key_count; k++)
        for (int a = 0; a < 3; a++) keys[3 * k + a] -= u[a] * (sm->times[k] - clip->start);
    if (b && kept) close_fox(&p);
    oak_destroy_pose_bank(b);
    oak_destroy_pose_bank(kept);
    oak_free(mine), oak_free(other), oak_free(pal);
}

TEST(badDescsGiveOneLine) {
    oak_pose_bank *b = NULL;
    int32_t clips[2] = {g_walk, 99};
    oak_pose_bank_desc d = {.gltf = g_fox, .skin = 5, .clip_count = 1, .clips = clips};
    CHECK(oak_make_pose_bank(&b, &d) == OAK_ERROR_INVALID_ARGUMENT && !b);
    d.skin = g_skin, d.clip_count = 2;
    CHECK(oak_make_pose_bank(&b, &d) == OAK_ERROR_INVALID_ARGUMENT && !b);
    CHECK(strstr(oak_last_error(), "clip 99") != NULL);
    d.clip_count = 0;
    CHECK(oak_make_pose_bank(&b, &d) == OAK_ERROR_INVALID_ARGUMENT && !b);
    d.clip_count = 1, d.rate = NAN;
    CHECK(oak_make_pose_bank(&b, &d) == OAK_ERROR_INVALID_ARGUMENT && !b);
    CHECK(oak_make_pose_bank(&b, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    oak_destroy_pose_bank(NULL);
}

int main(void) {
    oak_engine_desc desc = {.log_level = OAK_LOG_ERROR + 1};
    CHECK_OK(oak_init(&desc));
    char path[256];
    CHECK_OK(oak_gltf_load(&g_fox, gltf_asset(path, sizeof path, "animated/Fox.glb"), NULL));
    if (!g_fox) return TEST_SUMMARY();
    g_walk = oak_gltf_find_clip(g_fox, "Walk");
    g_run = oak_gltf_find_clip(g_fox, "Run");
    g_survey = oak_gltf_find_clip(g_fox, "Survey");
    CHECK(g_walk >= 0 && g_run >= 0 && g_survey >= 0);
    for (uint32_t nn = 0; nn < g_fox->node_count; nn++)
        if (g_fox->nodes[nn].skin >= 0 && g_fox->nodes[nn].mesh >= 0)
            g_mesh_node = nn, g_skin = (uint32_t)g_fox->nodes[nn].skin;
    const oak_gltf_primitive *pr = &g_fox->meshes[g_fox->nodes[g_mesh_node].mesh].primitives[0];
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < pr->vertex_count; v++)
        lo = fminf(lo, pr->positions[3 * v + 1]), hi = fmaxf(hi, pr->positions[3 * v + 1]);
    g_to_metres = FOX_HEIGHT / (hi - lo);
    fprintf(stderr, "  fox: %u vertices, %u joints, %.1f units tall (%.5f m a unit)\n",
            pr->vertex_count, g_fox->skins[g_skin].joint_count, (double)(hi - lo),
            (double)g_to_metres);
    if (g_walk >= 0 && g_run >= 0 && g_survey >= 0 && g_fox->skins[g_skin].joint_count <= 24) {
        RUN(bankFramesAndBetweenMatchCpuSkinning);
        RUN(blendOfTwoClipsIsTheCrossfade);
        RUN(paceKeepsThePlantedFootStill);
        RUN(rootTravelIsTakenOutAsPace);
        RUN(badDescsGiveOneLine);
    }
    oak_gltf_free(g_fox);
    oak_shutdown();
    return TEST_SUMMARY();
}
