/* The `crowd` world (issue 15): foxes walking, trotting and running on the
 * meadow's terrain (or open ground), every one an instance of one of two
 * posed streams (render.h oak_stream_desc pose_bank: the Fox and the Fox
 * furred, world/crowd_figure.c) driven by the crowd simulation
 * (world/crowd_sim.c) each oak_world_update. A figure's gait blends the
 * Walk and the Run by its speed, and its cycle moves on by its own ground
 * speed over the blend's stride, so the feet plant whatever speed the
 * separation leaves it; it turns to where it walks. A group of GROUP
 * foxes walks together across the field and the camera frames it from
 * beside its path (oak_frame_points), following it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <meshoptimizer.h>

#include "oak/anim.h"
#include "render/pose_stream.h"
#include "render/stream.h"
#include "world/crowd_impostor.h"
#include "world/internal.h"

#define CROWD_DEFAULT 20000u
#define FOX_HEIGHT    0.5f  /* metres the fox's mesh stands */
#define FOX_RADIUS    0.55f /* metres a fox takes in the crowd */
#define DENSITY_AREA  9.0f  /* square metres of field a figure */
#define GROUP         12u   /* the figures the camera follows: 0 .. GROUP - 1 */
#define RUNNERS       0.3f  /* share of figures that run */
#define FOX_PATH      "tests/data/models/animated/Fox.glb"
/* Tiers: the full mesh within NEAR_TIER metres of the eye, beyond it the
   simplified one (meshoptimizer, asked for a quarter of the triangles; the
   Fox's 576 come down to 107, within a tenth of its size) */
#define NEAR_TIER        20.0f
#define MID_SHARE        4u
#define MID_ERROR        0.02f
#define MID_SLOPPY_ERROR 0.1f /* the sloppy fallback: a tenth of the fox, at 20 m and more */
/* the far tier, an impostor card (world/crowd_impostor.c), from FAR_TIER
   metres: docs/WORLD.md "Crowds: the far tier" says how it was chosen */
#define FAR_TIER 40.0f
/* The second figure, the Fox furred: a figure in FUR_EVERY, each of its
   triangles cut OAK_CROWD_FUR_CUTS x OAK_CROWD_FUR_CUTS (576 x 25 = 14,400
   triangles), tufts up to 1.5 OAK_CROWD_FUR_TUFT metres high
   (world/crowd_impostor.h) */
#define FUR_EVERY 4u
/* Open ground unless the options ask for the meadow's terrain: on the CPU
   at 2,000 figures the terrain's tiles cost about 60% more frame
   (docs/PERFORMANCE.md "Crowds") */
#define CROWD_TERRAIN 0
/* metres of terrain round the eye (the meadow's 6 km is for flying) */
#define TERRAIN_VIEW 2000.0f
#define TERRAIN_WARM 256 /* terrain updates the build runs at most until none is pending */
/* Foot IK (docs/WORLD.md "Crowds: foot IK"): the IK_CAP figures nearest the
   eye within IK_DISTANCE metres (the near tier's) have their paws planted
   on the ground under them, each leg a two-bone chain of the Fox's joints */
#define IK_CAP       64u
#define IK_DISTANCE  NEAR_TIER
#define IK_CHUNK     4u    /* figures a job: fixed, so nothing depends on threads */
#define RECORD_CHUNK 4096u /* figures a job when their records are written */
#define GAIT_CHUNK   4096u /* figures a job when their gaits move on */
#define PICK_CHUNK   8192u /* figures a job when the near ones are picked for IK */
const oak_foot_leg _oak_crowd_fox_legs[4] = {
    {"b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011"},
    {"b_RightUpperArm_06", "b_RightForeArm_07", "b_RightHand_08"},
    {"b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017"},
    {"b_RightLeg01_019", "b_RightLeg02_020", "b_RightFoot01_021"},
};

typedef struct ik_pick {
    float d2;        /* squared metres from the eye */
    uint32_t figure; /* its index */
    uint32_t stream; /* 0 the Fox's, 1 the fur figure's */
} ik_pick;

typedef struct crowd_world {
    oak_terrain *terrain; /* the meadow's (owned by the scene), or NULL: open ground */
    bool on_terrain;
    oak_gltf *fox;
    oak_pose_bank *bank;
    oak_crowd *crowd;
    oak_stream *stream[2]; /* the Fox's and the fur figure's (owned by the scene) */
    oak_mesh mesh, mid;    /* the glTF's, and the simplified tier (ours) */
    oak_mesh fur;          /* the second figure: the Fox furred (ours) */
    oak_material material;
    _oak_crowd_impostor impostor;     /* the far tier: atlas, material and card */
    _oak_crowd_impostor fur_impostor; /* the fur figure's own */
    uint32_t count;
    float scale;                /* model units to metres */
    float yaw0;                 /* the mesh's forward as a heading (radians about +y from +z) */
    float half;                 /* the field is [-half, half] in x and z */
    float pace[3];              /* metres a second of bank clips Survey, Walk, Run */
    float dur[3];               /* their seconds */
    float *cycle;               /* per figure: share of its gait cycle, [0, 1) */
    float *weight;              /* per figure: the Run's weight over the Walk, by its speed */
    float *goal;                /* per figure: where it walks (x, z) */
    uint32_t *round;            /* per figure: goals it has had */
    oak_instance *rec[2];       /* the streams' records, written in place each update */
    uint32_t figures[2];        /* figures of each kind (i % FUR_EVERY == FUR_EVERY - 1: fur) */
    float *points;              /* the group's framing points */
    oak_foot_rig *rig;          /* NULL: foot IK off */
    uint32_t joints;            /* the bank's */
    struct ik_pick *pick;       /* IK_CAP: the near pick */
    struct ik_pick *chunk_pick; /* IK_CAP a PICK_CHUNK of figures: each one's nearest */
    uint32_t *chunk_picked;     /* how many each chunk has */
    uint32_t picked[2];         /* figures of each stream picked this update (<= IK_CAP in all) */
    float *ik_palettes;         /* IK_CAP palettes: the picked figures', solved */
    float *ik_bases;            /* IK_CAP palettes: the same as the bank posed them */
    float last;                 /* world seconds of the last update; < 0: none yet */
} crowd_world;

static void crowd_world_destroy(void *p) {
    crowd_world *w = p;
    if (!w) return;
    oak_destroy_crowd(w->crowd);
    oak_destroy_foot_rig(w->rig);
    oak_destroy_pose_bank(w->bank);
    _oak_crowd_impostor_free(&w->impostor);
    _oak_crowd_impostor_free(&w->fur_impostor);
    if (w->mid.id && w->mid.id != w->mesh.id) oak_destroy_mesh(w->mid);
    if (w->fur.id) oak_destroy_mesh(w->fur);
    oak_gltf_free(w->fox);
    oak_free(w->cycle), oak_free(w->weight), oak_free(w->points);
    oak_free(w->goal), oak_free(w->round);
    oak_free(w->pick), oak_free(w->ik_palettes), oak_free(w->ik_bases), oak_free(w->chunk_pick),
        oak_free(w->chunk_picked);
    oak_free(w);
}

/* A goal for figure i in round k: anywhere in the field, the group's
   together on the far side of it. */
static void goal_of(const crowd_world *w, uint32_t i, uint32_t k, float out[2]) {
    if (i < GROUP) {
        float a = 2.4f * (float)k + 0.5f, r = 0.6f * w->half;
        out[0] = r * cosf(a) + 1.5f * (_oak_world_hash01(i, 7) - 0.5f);
        out[1] = r * sinf(a) + 1.5f * (_oak_world_hash01(i, 8) - 0.5f);
        return;
    }
    out[0] = (2 * _oak_world_hash01(i * 31 + k, 3) - 1) * w->half;
    out[1] = (2 * _oak_world_hash01(i * 31 + k, 4) - 1) * w->half;
}

static const char *fox_file(char *buf, size_t size) {
    /* from the repository root (the CLI's and CTest's working folder), else
       the source tree the library was built from */
    FILE *f = fopen(FOX_PATH, "rb");
    if (f) {
        fclose(f);
        return FOX_PATH;
    }
#ifdef OAK_SOURCE_DIR
    snprintf(buf, size, "%s/%s", OAK_SOURCE_DIR, FOX_PATH);
    return buf;
#else
    (void)buf, (void)size;
    return FOX_PATH;
#endif
}

/* The mid tier: the fox's own vertices (so its joints, weights and pose
   block rows are the near tier's) under a quarter of its triangles. */
static oak_result make_mid_tier(crowd_world *w) {
    const oak_mesh_data *md = oak_mesh_get(w->mesh);
    if (!md) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "world crowd: the fox has no mesh");
    size_t ni = md->index_count ? md->index_count : 1, nv = md->vertex_count ? md->vertex_count : 1;
    uint32_t *dst = oak_alloc(sizeof(uint32_t) * ni), *welded = oak_alloc(sizeof(uint32_t) * ni);
    uint32_t *remap = oak_alloc(sizeof(uint32_t) * nv), *first = oak_alloc(sizeof(uint32_t) * nv);
    size_t n = 0;
    if (dst && welded && remap && first) {
        /* the fox is flat-shaded (three vertices a triangle): welded by
           position first, onto the first vertex at each place, or no edge
           could collapse */
        size_t unique = meshopt_generateVertexRemap(remap, NULL, md->vertex_count, md->positions,
                                                    md->vertex_count, 3 * sizeof(float));
        for (size_t u = 0; u < unique; u++) first[u] = UINT32_MAX;
        for (uint32_t v = md->vertex_count; v-- > 0;) first[remap[v]] = v;
        for (uint32_t i = 0; i < md->index_count; i++) welded[i] = first[remap[md->indices[i]]];
        n = meshopt_simplify(dst, welded, md->index_count, md->positions, md->vertex_count,
                             3 * sizeof(float), md->index_count / 3 / MID_SHARE * 3, MID_ERROR, 0,
                             NULL);
        /* the welded fox is no manifold the edge collapses may cross
           (meshoptimizer 0.18 keeps it whole, even at 20%): then the
           sloppy simplifier, which clusters vertices whatever the topology */
        if (n > md->index_count / MID_SHARE * 2)
            n = meshopt_simplifySloppy(dst, welded, md->index_count, md->positions,
                                       md->vertex_count, 3 * sizeof(float),
                                       md->index_count / 3 / MID_SHARE * 3, MID_SLOPPY_ERROR, NULL);
    }
    oak_free(welded), oak_free(remap), oak_free(first);
    if (!dst) return OAK_ERROR_OUT_OF_MEMORY;
    oak_mesh_desc d = {.vertex_count = md->vertex_count,
                       .index_count = (uint32_t)n,
                       .positions = md->positions,
                       .normals = md->normals,
                       .tangents = md->tangents,
                       .uv0 = md->uv0,
                       .uv1 = md->uv1,
                       .colors = md->colors,
                       .joints = md->joints,
                       .weights = md->weights,
                       .indices = dst,
                       .name = "fox (mid tier)"};
    oak_result r = n ? oak_make_mesh(&w->mid, &d) : OAK_OK;
    oak_free(dst);
    if (!r && !n) w->mid = w->mesh; /* nothing to simplify: one tier */
    return r;
}

static oak_result load_fox(crowd_world *w) {
    char buf[1024];
    oak_result r = oak_gltf_load(&w->fox, fox_file(buf, sizeof buf), NULL);
    if (r) return r;
    const oak_gltf *g = w->fox;
    int32_t clips[3] = {oak_gltf_find_clip(g, "Survey"), oak_gltf_find_clip(g, "Walk"),
                        oak_gltf_find_clip(g, "Run")};
    int32_t node = -1;
    for (uint32_t n = 0; n < g->node_count; n++)
        if (g->nodes[n].skin >= 0 && g->nodes[n].mesh >= 0) node = (int32_t)n;
    if (clips[0] < 0 || clips[1] < 0 || clips[2] < 0 || node < 0)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "world crowd: %s lacks a skinned mesh or the Survey, Walk and Run clips",
                         FOX_PATH);
    const oak_gltf_primitive *pr = &g->meshes[g->nodes[node].mesh].primitives[0];
    w->mesh = pr->mesh;
    w->material = pr->material >= 0 ? g->material_handles[pr->material] : g->default_material;
    oak_pose_bank_desc bd = {
        .gltf = g, .skin = (uint32_t)g->nodes[node].skin, .clip_count = 3, .clips = clips};
    if ((r = oak_make_pose_bank(&w->bank, &bd))) return r;
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < pr->vertex_count; v++)
        lo = fminf(lo, pr->positions[3 * v + 1]), hi = fmaxf(hi, pr->positions[3 * v + 1]);
    w->scale = hi > lo ? FOX_HEIGHT / (hi - lo) : 1;
    float dir[3] = {0, 0, 1};
    for (uint32_t c = 0; c < 3; c++) {
        float d[3];
        w->pace[c] = oak_pose_bank_speed(w->bank, c, d) * w->scale;
        w->dur[c] = oak_pose_bank_duration(w->bank, c);
        if (c == 1) memcpy(dir, d, sizeof dir); /* the walk's way is the mesh's forward */
    }
    w->yaw0 = atan2f(dir[0], dir[2]);
    if ((r = make_mid_tier(w))) return r;
    /* the far tier: the Walk (bank clip 1) baked from 8 angles at 8 frames */
    if ((r = _oak_crowd_impostor_bake(&w->impostor, w->bank, 1, w->mesh, w->material, true)))
        return r;
    oak_log(OAK_LOG_INFO,
            "world crowd: impostor atlas (%u views x %u walk frames) baked in %.1f ms",
            OAK_IMPOSTOR_VIEWS, OAK_IMPOSTOR_FRAMES, w->impostor.bake_ms);
    if ((r = _oak_crowd_fur_figure(&w->fur, w->mesh, OAK_CROWD_FUR_CUTS,
                                   OAK_CROWD_FUR_TUFT / w->scale)))
        return r;
    /* the fur figure's own far tier, baked from its 14,400 triangles the
       same way (its tufts are in its silhouette and its shading) */
    if ((r = _oak_crowd_impostor_bake(&w->fur_impostor, w->bank, 1, w->fur, w->material, true)))
        return r;
    oak_log(OAK_LOG_INFO, "world crowd: the fur figure's impostor atlas baked in %.1f ms",
            w->fur_impostor.bake_ms);
    return OAK_OK;
}

/* Figure i's record: in the fur figure's stream every FUR_EVERY-th figure,
   in the Fox's the rest, each in figure order. */
static oak_instance *record_of(const crowd_world *w, uint32_t i) {
    return i % FUR_EVERY == FUR_EVERY - 1
               ? w->rec[1] + i / FUR_EVERY
               : w->rec[0] + i / FUR_EVERY * (FUR_EVERY - 1) + i % FUR_EVERY;
}

/* The crowd's height query: the terrain's finest triangle under (x, z), as
   the tiles draw it (thread-safe: it reads the noise, not the tiles). */
static float ground_height(void *user, float x, float z) {
    float h = 0;
    oak_terrain_height(user, x, z, &h, NULL);
    return h;
}

/* Open ground: the plane y = 0. */
static float open_ground(void *user, float x, float z) {
    (void)user, (void)x, (void)z;
    return 0;
}

/* Nearer, then the lower index: a total order, so the pick is one set. */
static bool nearer(const ik_pick *p, const ik_pick *q) {
    return p->d2 != q->d2 ? p->d2 < q->d2 : p->figure < q->figure;
}

/* p into the nearest-first list of *n (at most IK_CAP): an insertion, no
   sort that might allocate. */
static void pick_insert(ik_pick *list, uint32_t *n, ik_pick p) {
    if (*n == IK_CAP && !nearer(&p, &list[*n - 1])) return;
    uint32_t k = *n < IK_CAP ? (*n)++ : *n - 1;
    for (; k > 0 && nearer(&p, &list[k - 1]); k--) list[k] = list[k - 1];
    list[k] = p;
}

typedef struct pick_job {
    crowd_world *w;
    float eye[3];
} pick_job;

/* Chunk c's IK_CAP nearest figures inside IK_DISTANCE of the eye. */
static void pick_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const pick_job *j = user;
    crowd_world *w = j->w;
    for (uint32_t c = begin; c < end; c++) {
        ik_pick *list = w->chunk_pick + (size_t)c * IK_CAP;
        uint32_t n = 0, last = (c + 1) * PICK_CHUNK < w->count ? (c + 1) * PICK_CHUNK : w->count;
        for (uint32_t i = c * PICK_CHUNK; i < last; i++) {
            const oak_instance *rec = record_of(w, i);
            float dx = rec->position[0] - j->eye[0], dy = rec->position[1] - j->eye[1],
                  dz = rec->position[2] - j->eye[2];
            ik_pick p = {dx * dx + dy * dy + dz * dz, i, i % FUR_EVERY == FUR_EVERY - 1};
            if (p.d2 < IK_DISTANCE * IK_DISTANCE) pick_insert(list, &n, p);
        }
        w->chunk_picked[c] = n;
    }
}

static void ik_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    crowd_world *w = user;
    size_t stride = (size_t)w->joints * 12;
    for (uint32_t k = begin; k < end; k++) {
        const oak_instance *rec = record_of(w, w->pick[k].figure);
        float *pal = w->ik_palettes + k * stride;
        /* the palette the bank poses it at: the GPUs' pose.glsl in the same steps */
        _oak_pose_palette(w->bank, NULL, 0, rec->phase, pal);
        memcpy(w->ik_bases + k * stride, pal, sizeof(float) * stride);
        oak_foot_ik_solve(w->rig, rec, w->terrain ? ground_height : open_ground, w->terrain, pal,
                          NULL);
    }
}

/* The near figures' paws on the ground: the IK_CAP nearest the eye within
   IK_DISTANCE solved on the job pool into IK_CAP palettes, written to the
   streams as override palettes, and their records' phases pointed at them. */
static oak_result foot_ik(oak_scene *scene, crowd_world *w) {
    w->picked[0] = w->picked[1] = 0;
    oak_entity cam = oak_scene_active_camera(scene);
    if (!w->rig || !cam.id) return OAK_OK;
    oak_scene_update_transforms(scene);
    mat4 m;
    oak_scene_world_matrix(scene, cam, m);
    /* the IK_CAP nearest inside the tier, nearest first: each chunk's own
       IK_CAP nearest on the job pool, then those merged here (the total
       order makes it the one set whatever the chunks) */
    pick_job pj = {w, {m[3][0], m[3][1], m[3][2]}};
    uint32_t chunks = (w->count + PICK_CHUNK - 1) / PICK_CHUNK;
    oak_parallel_for(chunks, 1, pick_range, &pj);
    uint32_t n = 0;
    for (uint32_t c = 0; c < chunks; c++)
        for (uint32_t q = 0; q < w->chunk_picked[c]; q++)
            pick_insert(w->pick, &n, w->chunk_pick[(size_t)c * IK_CAP + q]);
    /* the Fox's stream first, each in figure order: the order the override
       palettes are written in */
    for (uint32_t i = 1; i < n; i++) {
        ik_pick p = w->pick[i];
        uint32_t k = i;
        for (; k > 0 && (w->pick[k - 1].stream > p.stream ||
                         (w->pick[k - 1].stream == p.stream && w->pick[k - 1].figure > p.figure));
             k--)
            w->pick[k] = w->pick[k - 1];
        w->pick[k] = p;
    }
    oak_parallel_for(n, IK_CHUNK, ik_range, w);
    size_t stride = (size_t)w->joints * 12;
    uint32_t at = 0;
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t count = 0;
        while (at + count < n && w->pick[at + count].stream == k) count++;
        w->picked[k] = count;
        if (!w->stream[k]) continue;
        uint32_t first;
        /* with the bank's poses they correct: the stream grows its cull
           spheres by how far the correction moves a vertex */
        oak_result r = oak_stream_write_pose_overrides_from(
            w->stream[k], count, w->ik_palettes + at * stride, w->ik_bases + at * stride, &first);
        if (r) return r;
        for (uint32_t j = 0; j < count; j++)
            record_of(w, w->pick[at + j].figure)->phase = oak_pose_override_phase(first + j);
        at += count;
    }
    return OAK_OK;
}

/* Figures [begin, end)'s phases, headings and places into their records
   (each figure its own record: any thread count writes the same). */
static void record_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    crowd_world *w = user;
    for (uint32_t i = begin; i < end; i++) {
        oak_crowd_figure f;
        oak_crowd_get(w->crowd, i, &f);
        float yaw = f.heading - w->yaw0;
        /* a blend's weight is held to 1/63: at either end, the one clip's
           phase, which keeps its seconds to the microsecond */
        float k = w->weight[i] * 63;
        float phase = k < 0.5f    ? OAK_POSE_CLIP_SECONDS + w->cycle[i] * w->dur[1]
                      : k > 62.5f ? 2 * OAK_POSE_CLIP_SECONDS + w->cycle[i] * w->dur[2]
                                  : oak_pose_blend_phase(1, 2, w->weight[i], w->cycle[i]);
        oak_instance *rec = record_of(w, i);
        *rec = (oak_instance){.position = {f.position[0], f.position[1], f.position[2]},
                              .scale = w->scale,
                              .rotation = {0, sinf(0.5f * yaw), 0, cosf(0.5f * yaw)},
                              .color = {1, 1, 1},
                              .phase = phase};
        /* a few lighter and darker coats */
        float tint = 0.8f + 0.4f * _oak_world_hash01(i, 9);
        rec->color[0] = tint, rec->color[1] = tint, rec->color[2] = tint;
    }
}

/* Phases, headings and places into the streams' records in place, on the
   job pool (at 500,000 figures a copy through oak_stream_write is 24 MB on
   one thread); then the near figures' IK. Every phase written is a bank's
   or an override slot the stream handed out, which oak_stream_write would
   have checked. */
static oak_result write_records(oak_scene *scene, crowd_world *w) {
    for (int k = 0; k < 2; k++)
        if (w->stream[k]) w->rec[k] = _oak_stream_records_to_write(w->stream[k]);
    oak_parallel_for(w->count, RECORD_CHUNK, record_range, w);
    return foot_ik(scene, w);
}

/* The camera beside the group, framing its figures (and a fox's height
   over each) a third of the way down from level. */
static void frame_group(oak_scene *scene, crowd_world *w) {
    oak_entity cam = oak_scene_active_camera(scene);
    if (!cam.id) return;
    float vx = 0, vz = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < GROUP && i < w->count; i++) {
        oak_crowd_figure f;
        oak_crowd_get(w->crowd, i, &f);
        vx += f.velocity[0], vz += f.velocity[1];
        float *p = w->points + 6 * n++;
        p[0] = f.position[0], p[1] = f.position[1], p[2] = f.position[2];
        p[3] = f.position[0], p[4] = f.position[1] + FOX_HEIGHT, p[5] = f.position[2];
    }
    if (!n) return;
    /* look across the way the group walks, from its right and a little behind */
    float along = vx * vx + vz * vz > 1e-6f ? atan2f(vx, vz) : 0;
    const oak_camera *c = oak_scene_get(scene, cam, OAK_COMPONENT_CAMERA);
    if (!c) return;
    oak_framing fr = {.yaw = along + 2.2f,
                      .pitch = 0.35f,
                      .share = 0.45f,
                      .fov_y = c->fov_y,
                      .aspect = c->aspect > 0 ? c->aspect : 16.0f / 9};
    /* the transform only: the world's camera keeps its planes and exposure */
    oak_camera fitted = *c;
    oak_transform t = *oak_scene_transform(scene, cam);
    if (oak_frame_points(&t, &fitted, w->points, 2 * n, &fr) == OAK_OK)
        oak_scene_set_transform(scene, cam, &t);
}

/* The terrain's tiles around the active camera (after it followed the
   group). */
static oak_result update_terrain(oak_scene *scene, crowd_world *w) {
    oak_entity cam = oak_scene_active_camera(scene);
    if (!w->terrain || !cam.id) return OAK_OK;
    oak_scene_update_transforms(scene);
    mat4 m;
    oak_scene_world_matrix(scene, cam, m);
    const float eye[3] = {m[3][0], m[3][1], m[3][2]};
    return oak_terrain_update(w->terrain, eye);
}

/* A new goal within 2 m of the old: figure i's own (i >= GROUP), or the
   whole group's when its first fox gets there (i == 0). */
static void next_goal(crowd_world *w, uint32_t i, const oak_crowd_figure *f) {
    float dx = w->goal[2 * i] - f->position[0], dz = w->goal[2 * i + 1] - f->position[2];
    if ((i == 0 || i >= GROUP) && dx * dx + dz * dz < 4.0f) {
        uint32_t last = i == 0 ? (GROUP < w->count ? GROUP : w->count) : i + 1;
        for (uint32_t k = i; k < last; k++) {
            goal_of(w, k, ++w->round[k], w->goal + 2 * k);
            oak_crowd_set_goal(w->crowd, k, w->goal + 2 * k);
        }
    }
}

typedef struct gait_job {
    crowd_world *w;
    float dt;
} gait_job;

/* Figures [begin, end): goals and gaits; each writes only its own (the
   group's goals move with figure 0's, on the calling thread). */
static void gait_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const gait_job *j = user;
    crowd_world *w = j->w;
    for (uint32_t i = begin; i < end; i++) {
        oak_crowd_figure f;
        oak_crowd_get(w->crowd, i, &f);
        if (i >= GROUP) next_goal(w, i, &f);
        /* the gait by the figure's own speed: the Walk up to its pace, the
           Run from its pace, a blend between (the Run's weight the share of
           the way); the cycle moves on by the ground covered over the
           blend's stride (each clip's pace times its duration, lerped), so
           the planted paw stays where it is */
        float speed = sqrtf(f.velocity[0] * f.velocity[0] + f.velocity[1] * f.velocity[1]);
        float span = w->pace[2] - w->pace[1];
        float wt = span > 0 ? (speed - w->pace[1]) / span : 0;
        wt = wt > 0 ? (wt < 1 ? wt : 1) : 0;
        float stride =
            w->pace[1] * w->dur[1] + (w->pace[2] * w->dur[2] - w->pace[1] * w->dur[1]) * wt;
        w->weight[i] = wt;
        w->cycle[i] += stride > 0 ? speed * j->dt / stride : 0;
        w->cycle[i] -= floorf(w->cycle[i]); /* wrapped: the float keeps its bits */
    }
}

static oak_result crowd_step(oak_scene *scene, crowd_world *w, float dt) {
    oak_result r = oak_crowd_step(w->crowd, dt, w->terrain ? ground_height : NULL, w->terrain);
    if (r) return r;
    if (w->count) {
        oak_crowd_figure f;
        oak_crowd_get(w->crowd, 0, &f);
        next_goal(w, 0, &f);
    }
    gait_job j = {w, dt};
    oak_parallel_for(w->count, GAIT_CHUNK, gait_range, &j);
    frame_group(scene, w);
    return update_terrain(scene, w);
}

oak_result _oak_world_crowd_update(oak_scene *scene, float seconds) {
    crowd_world *w = oak_scene_attachment(scene, crowd_world_destroy);
    if (!w) return OAK_OK;
    float dt = w->last < 0 ? 0 : seconds - w->last;
    w->last = seconds;
    if (!(dt > 0)) return OAK_OK; /* the same time again, or back in time: as it stands */
    /* whole steps of at most 1/30 s, so a long gap stays stable */
    while (dt > 0) {
        float step = dt < 1.0f / 30 ? dt : 1.0f / 30;
        oak_result r = crowd_step(scene, w, step);
        if (r) return r;
        dt -= step;
    }
    /* the records (and the near figures' IK) once an update, so last
       frame's override palettes are still the other generation's */
    return write_records(scene, w);
}

void _oak_world_crowd_path(float t, float eye[3], float target[3]) {
    /* before the first update: the field from its south-east corner (the
       update frames the walking group from then on) */
    (void)t;
    eye[0] = 14, eye[1] = 6, eye[2] = 18;
    target[0] = 0, target[1] = 0, target[2] = 0;
}

static oak_result add_open_ground(oak_scene *scene, const crowd_world *w) {
    oak_shape_desc ground = {
        .type = OAK_SHAPE_PLANE, .size = {4 * w->half + 200, 0, 4 * w->half + 200}, .segments = 8};
    return _oak_world_add_ground(scene, &ground, "ground");
}

/* The meadow's landscape under the field, kept where it is (no rebase: the
   field is a few hundred metres across and its records are in scene
   space), built round the first camera. */
static oak_result add_terrain(oak_scene *scene, crowd_world *w) {
    oak_terrain_desc d = _oak_world_meadow_terrain();
    d.no_rebase = true;
    d.view_distance = TERRAIN_VIEW;
    oak_result r = oak_make_terrain(&w->terrain, scene, &d);
    if (r) return r;
    if ((r = _oak_terrain_attach(scene, w->terrain))) {
        oak_destroy_terrain(w->terrain);
        w->terrain = NULL;
    }
    return r;
}

/* Open ground's sky: a clear day with the sun at 40 degrees. */
static oak_result open_sky(oak_scene *scene) {
    const oak_world_day d = {.elevation_deg = 40,
                             .azimuth_deg = 35,
                             .distance = 100,
                             .sun_lux = 100000,
                             .sun_color = {1.0f, 0.95f, 0.86f},
                             .zenith = {0.24f, 0.46f, 0.85f},
                             .horizon = {0.70f, 0.80f, 0.92f},
                             .ambient_sky = {0.05f, 0.067f, 0.1f},
                             .ambient_ground = {0.02f, 0.023f, 0.013f},
                             .fog_density = 0.0005f};
    return _oak_world_clear_day(scene, &d);
}

oak_result _oak_world_crowd_build(oak_scene *scene, const oak_world_options *opts) {
    uint32_t n = opts->count ? opts->count : CROWD_DEFAULT;
    if (n > OAK_STREAM_MAX_INSTANCES || n > OAK_CROWD_MAX)
        return oak_error(OAK_ERROR_LIMIT, "world crowd: %u figures, at most %u", n,
                         OAK_CROWD_MAX < OAK_STREAM_MAX_INSTANCES ? OAK_CROWD_MAX
                                                                  : OAK_STREAM_MAX_INSTANCES);
    crowd_world *w = oak_calloc(1, sizeof *w);
    if (!w) return OAK_ERROR_OUT_OF_MEMORY;
    w->count = n;
    w->last = -1;
    w->half = 0.5f * sqrtf((float)n * DENSITY_AREA);
    if (w->half < 12) w->half = 12;
    oak_result r;
    if ((r = oak_scene_attach(scene, w, crowd_world_destroy))) {
        crowd_world_destroy(w);
        return r;
    }
    w->on_terrain = opts->terrain > 0 || (opts->terrain == 0 && CROWD_TERRAIN);
    if ((r = w->on_terrain ? _oak_world_meadow_sky(scene) : open_sky(scene))) return r;
    oak_camera cam = {.fov_y = 50.0f * OAK_PI / 180.0f,
                      .znear = 0.2f,
                      .zfar = w->on_terrain ? TERRAIN_VIEW + 500 : 4 * w->half + 200};
    float eye[3], target[3];
    _oak_world_crowd_path(0, eye, target);
    if (!_oak_world_camera(scene, &cam, eye, target).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world crowd: no room for the camera");
    if ((r = w->on_terrain ? add_terrain(scene, w) : add_open_ground(scene, w)) ||
        (r = load_fox(w)))
        return r;
    w->cycle = oak_alloc(sizeof(float) * n);
    w->weight = oak_alloc(sizeof(float) * n);
    w->points = oak_alloc(sizeof(float) * 6 * GROUP);
    w->goal = oak_alloc(sizeof(float) * 2 * n);
    w->round = oak_calloc(n, sizeof(uint32_t));
    if (!w->cycle || !w->weight || !w->points || !w->goal || !w->round)
        return OAK_ERROR_OUT_OF_MEMORY;
    if (opts->foot_ik >= 0) { /* the Fox's four legs (the fur figure shares its skeleton) */
        const oak_gltf *g = w->fox;
        uint32_t skin = 0;
        for (uint32_t k = 0; k < g->node_count; k++)
            if (g->nodes[k].skin >= 0 && g->nodes[k].mesh >= 0) skin = (uint32_t)g->nodes[k].skin;
        oak_foot_rig_desc fd = {.gltf = g,
                                .skin = skin,
                                .mesh = w->mesh,
                                .bank = w->bank,
                                .leg_count = 4,
                                .legs = _oak_crowd_fox_legs};
        if ((r = oak_make_foot_rig(&w->rig, &fd))) return r;
        w->joints = oak_pose_bank_joints(w->bank);
        w->pick = oak_alloc(sizeof(ik_pick) * IK_CAP);
        w->ik_palettes = oak_alloc(sizeof(float) * 12 * w->joints * IK_CAP);
        w->ik_bases = oak_alloc(sizeof(float) * 12 * w->joints * IK_CAP);
        uint32_t chunks = (n + PICK_CHUNK - 1) / PICK_CHUNK;
        w->chunk_pick = oak_alloc(sizeof(ik_pick) * IK_CAP * chunks);
        w->chunk_picked = oak_alloc(sizeof(uint32_t) * chunks);
        if (!w->pick || !w->ik_palettes || !w->ik_bases || !w->chunk_pick || !w->chunk_picked)
            return OAK_ERROR_OUT_OF_MEMORY;
    }
    oak_crowd_desc cd = {
        .capacity = n, .extent = {-w->half, -w->half, w->half, w->half}, .radius = FOX_RADIUS};
    if ((r = oak_make_crowd(&w->crowd, &cd))) return r;
    for (uint32_t i = 0; i < n; i++) {
        float p[2], *g = w->goal + 2 * i;
        if (i < GROUP) { /* the group: side by side near the middle */
            p[0] = -0.2f * w->half + 1.3f * (float)(i % 4);
            p[1] = 0.1f * w->half + 1.3f * (float)(i / 4);
        } else {
            p[0] = (2 * _oak_world_hash01(i, 1) - 1) * w->half;
            p[1] = (2 * _oak_world_hash01(i, 2) - 1) * w->half;
        }
        goal_of(w, i, 0, g);
        /* the runners' paces spread from a trot (half Walk, half Run) to
           the Run's */
        bool run = i >= GROUP && _oak_world_hash01(i, 5) < RUNNERS;
        float pace =
            run ? w->pace[1] + (w->pace[2] - w->pace[1]) * (0.5f + 0.5f * _oak_world_hash01(i, 10))
                : w->pace[1];
        w->weight[i] =
            run && w->pace[2] > w->pace[1] ? (pace - w->pace[1]) / (w->pace[2] - w->pace[1]) : 0;
        w->cycle[i] = _oak_world_hash01(i, 6);
        if ((r = oak_crowd_add(w->crowd, p, g, pace))) return r;
    }
    /* one stream a figure: each its own ladder, the full mesh near, a
       simplified one beyond (the fur figure's: the Fox itself) and its own
       impostor card past FAR_TIER */
    w->figures[1] = n / FUR_EVERY, w->figures[0] = n - w->figures[1];
    const oak_mesh ladder[2][2] = {{w->mesh, w->mid}, {w->fur, w->mesh}};
    const _oak_crowd_impostor *far[2] = {&w->impostor, &w->fur_impostor};
    for (int k = 0; k < 2; k++) {
        if (!w->figures[k]) continue;
        oak_stream_desc sd = {
            .capacity = w->figures[k],
            .lod_count = 3,
            .lods = {{ladder[k][0], NEAR_TIER}, {ladder[k][1], FAR_TIER}, {far[k]->card, 0}},
            .material = w->material,
            .pose_bank = w->bank,
            .impostor_lod = 2,
            .impostor_material = far[k]->material,
            .pose_overrides = w->rig ? IK_CAP : 0};
        if ((r = oak_make_stream(&w->stream[k], &sd))) return r;
        if ((r = oak_scene_add_stream(scene, w->stream[k]))) {
            w->stream[k] = NULL; /* the scene destroyed it */
            return r;
        }
        if ((r = oak_stream_set_count(w->stream[k], w->figures[k]))) return r;
    }
    /* a step of no time sets every figure on the ground */
    if (w->terrain && (r = oak_crowd_step(w->crowd, 0, ground_height, w->terrain))) return r;
    frame_group(scene, w);
    if ((r = write_records(scene, w))) return r;
    /* the terrain built round the camera, so the first frame is whole */
    for (int i = 0; i < TERRAIN_WARM && w->terrain && !r; i++) {
        oak_terrain_stats st;
        r = update_terrain(scene, w);
        oak_terrain_get_stats(&st, w->terrain);
        if (!st.pending) break;
    }
    return r;
}
