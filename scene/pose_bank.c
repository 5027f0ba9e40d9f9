/* Pose banks (issue 15, DIGEST §5.3): each clip of a skinned glTF sampled
 * once at a fixed rate into joint palettes (the skinning matrices, 3 x 4
 * rows each), so a crowd poses every figure from one buffer at its own
 * phase, clip and blend instead of running the node hierarchy per figure.
 *
 * A frame's palette is what oak_skin_update builds for the same pose:
 * inverse(mesh node world) x joint world x inverse bind, from the clip's
 * translation, rotation and scale channels over the nodes' rest TRS. The
 * root joint's travel over the clip (its ground-plane displacement from the
 * first key to the last) is taken out linearly in time, so the figure walks
 * on the spot, its sway kept, and the loop closes without a snap; the
 * travel comes back as a speed along a direction, for the simulation.
 * Clips made on the spot (the Fox's) have no travel to take: their speed
 * is the one that keeps a planted foot still, read off the lowest joint's
 * ground velocity over the frames it stays the lowest (the median). The
 * travel is the topmost translated joint's (rigs keep their root still and
 * move the hips); the feet are the joints with no joint below them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim_internal.h"

struct oak_pose_bank {
    uint32_t joints, clip_count;
    uint32_t *frames;   /* per clip */
    uint32_t *first;    /* per clip: its first frame in data */
    float *duration;    /* per clip, seconds (end - start) */
    float (*travel)[3]; /* per clip: the root's travel taken out, mesh space */
    float (*pace)[3];   /* per clip: the ground velocity the figure moves at */
    float *data;        /* frames x joints x 12 floats */
    size_t floats;
    bool kept; /* keep_root_motion: the travel stays in the poses */
};

/* a node's local matrix from (translation, rotation, scale), as the glTF
   loader composes it: T R S */
static void local_matrix(const float t[3], const float q[4], const float s[3], mat4 out) {
    mat4 mt, mr, ms;
    vec3 tv, sv;
    versor qv;
    memcpy(tv, t, 12);
    memcpy(qv, q, 16);
    memcpy(sv, s, 12);
    glm_translate_make(mt, tv);
    glm_quat_mat4(qv, mr);
    glm_scale_make(ms, sv);
    glm_mat4_mul(mt, mr, out);
    glm_mat4_mul(out, ms, out);
}

/* Every node's world matrix at time t of clip (NULL: the rest pose), into
   world (node_count), through trs (node_count x 10 floats of scratch). */
static void pose_nodes(const oak_gltf *g, const oak_gltf_clip *clip, float t, float *trs,
                       mat4 *world, uint8_t *done) {
    for (uint32_t n = 0; n < g->node_count; n++) {
        float *p = trs + (size_t)n * 10;
        memcpy(p, g->nodes[n].translation, 12);
        memcpy(p + 3, g->nodes[n].rotation, 16);
        memcpy(p + 7, g->nodes[n].scale, 12);
        done[n] = 0;
    }
    for (uint32_t c = 0; clip && c < clip->channel_count; c++) {
        const oak_gltf_channel *ch = &clip->channels[c];
        if (ch->node >= g->node_count || ch->sampler >= clip->sampler_count) continue;
        float *p = trs + (size_t)ch->node * 10;
        const oak_anim_sampler *s = &clip->samplers[ch->sampler];
        if (ch->path == OAK_ANIM_PATH_TRANSLATION || ch->path == OAK_ANIM_PATH_DEFAULT) {
            if (s->width == 3) oak_anim_sample(p, s, t, false);
        } else if (ch->path == OAK_ANIM_PATH_ROTATION) {
            if (s->width == 4) oak_anim_sample(p + 3, s, t, true);
        } else if (ch->path == OAK_ANIM_PATH_SCALE) {
            if (s->width == 3) oak_anim_sample(p + 7, s, t, false);
        }
    }
    /* parents first: walk up to the first node done (or a root), then down */
    for (uint32_t n = 0; n < g->node_count; n++) {
        while (!done[n]) {
            uint32_t m = n; /* the highest node not yet done on n's chain */
            while (g->nodes[m].parent >= 0 && !done[g->nodes[m].parent])
                m = (uint32_t)g->nodes[m].parent;
            const float *p = trs + (size_t)m * 10;
            mat4 l;
            local_matrix(p, p + 3, p + 7, l);
            if (g->nodes[m].parent >= 0)
                glm_mat4_mul(world[g->nodes[m].parent], l, world[m]);
            else
                glm_mat4_copy(l, world[m]);
            done[m] = 1;
        }
    }
}

static uint32_t depth(const oak_gltf *g, uint32_t node) {
    uint32_t d = 0;
    for (int32_t n = g->nodes[node].parent; n >= 0 && d < g->node_count; n = g->nodes[n].parent)
        d++;
    return d;
}

/* The joint whose travel is the figure's: the topmost joint the clip
   translates (rigs keep their root still and move the hips); the
   skeleton's topmost joint where the clip translates none. */
static uint32_t travel_node(const oak_gltf *g, const oak_gltf_skin *s, const oak_gltf_clip *clip) {
    uint32_t best = s->joints[0], best_d = UINT32_MAX;
    for (int pass = 0; pass < 2 && best_d == UINT32_MAX; pass++)
        for (uint32_t k = 0; k < s->joint_count; k++) {
            uint32_t n = s->joints[k];
            bool moved = pass == 1;
            for (uint32_t c = 0; !moved && c < clip->channel_count; c++)
                moved = clip->channels[c].node == n &&
                        (clip->channels[c].path == OAK_ANIM_PATH_TRANSLATION ||
                         clip->channels[c].path == OAK_ANIM_PATH_DEFAULT);
            uint32_t d = depth(g, n);
            if (moved && d < best_d) best = n, best_d = d;
        }
    return best;
}

/* The node drawing a mesh with this skin (the palette's space); -1: none,
   the skin's space is the scene's then. */
static int32_t mesh_node(const oak_gltf *g, uint32_t skin) {
    for (uint32_t n = 0; n < g->node_count; n++)
        if (g->nodes[n].skin == (int32_t)skin && g->nodes[n].mesh >= 0) return (int32_t)n;
    return -1;
}

/* The palette (3 x 4 rows per joint) of the nodes' pose, less `offset`
   (mesh space) taken off every joint. */
static void write_palette(const oak_gltf_skin *s, const mat4 *world, int32_t mnode,
                          const float offset[3], float *out) {
    mat4 inv, m, ibm;
    if (mnode >= 0)
        glm_mat4_inv((vec4 *)world[mnode], inv);
    else
        glm_mat4_identity(inv);
    for (uint32_t k = 0; k < s->joint_count; k++) {
        memcpy(ibm, s->inverse_bind + 16 * (size_t)k, 64);
        glm_mat4_mul((vec4 *)world[s->joints[k]], ibm, m);
        glm_mat4_mul(inv, m, m);
        float *o = out + (size_t)k * 12;
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 4; c++) o[r * 4 + c] = m[c][r];
            o[r * 4 + 3] -= offset[r];
        }
    }
}

/* The root joint's origin in mesh space. */
static void node_at(const mat4 *world, int32_t mnode, uint32_t root_node, float out[3]) {
    mat4 inv;
    if (mnode >= 0)
        glm_mat4_inv((vec4 *)world[mnode], inv);
    else
        glm_mat4_identity(inv);
    vec4 p = {world[root_node][3][0], world[root_node][3][1], world[root_node][3][2], 1}, q;
    glm_mat4_mulv(inv, p, q);
    memcpy(out, q, 12);
}

static int by_length(const void *a, const void *b) {
    const float *p = a, *q = b;
    float x = p[0] * p[0] + p[2] * p[2], y = q[0] * q[0] + q[2] * q[2];
    return x < y ? -1 : x > y;
}

/* The clip's pace: its travel over its duration where the root travels;
   else the planted foot's. A foot is planted in a frame when it is the
   lowest leaf joint and within OAK_POSE_BANK_CONTACT of the figure's height
   above the clip's lowest leaf point; over each pair of frames the same
   foot stays planted, its ground velocity (frames apart at `fps`): the
   figure moves opposite to their mean at their median speed. */
static void pace_of(oak_pose_bank *b, uint32_t c, const float *feet, float *vel, const bool *leaf,
                    uint32_t joints, uint32_t n, float fps) {
    float *pace = b->pace[c];
    pace[0] = pace[1] = pace[2] = 0;
    if (!(b->duration[c] > 0)) return;
    const float *tr = b->travel[c];
    if (tr[0] != 0 || tr[2] != 0) {
        pace[0] = tr[0] / b->duration[c], pace[2] = tr[2] / b->duration[c];
        return;
    }
    float lo = INFINITY, top = -INFINITY, bottom = INFINITY;
    for (uint32_t f = 0; f < n; f++)
        for (uint32_t k = 0; k < joints; k++) {
            float y = feet[((size_t)f * joints + k) * 3 + 1];
            if (leaf[k]) lo = fminf(lo, y);
            if (f == 0) top = fmaxf(top, y), bottom = fminf(bottom, y);
        }
    float reach = lo + (float)OAK_POSE_BANK_CONTACT * (top - bottom);
    uint32_t count = 0, prev = UINT32_MAX;
    for (uint32_t f = 0; f < n; f++) {
        const float *p = feet + (size_t)f * joints * 3;
        uint32_t low = UINT32_MAX;
        for (uint32_t k = 0; k < joints; k++)
            if (leaf[k] && (low == UINT32_MAX || p[k * 3 + 1] < p[low * 3 + 1])) low = k;
        if (low == UINT32_MAX) return;
        if (!(p[low * 3 + 1] <= reach)) low = UINT32_MAX; /* nothing planted */
        if (f > 0 && low != UINT32_MAX && low == prev) {
            const float *q = feet + ((size_t)(f - 1) * joints + low) * 3;
            float *v = vel + (size_t)count++ * 3;
            v[0] = (q[0] - p[low * 3]) * fps, v[1] = 0, v[2] = (q[2] - p[low * 3 + 2]) * fps;
        }
        prev = low;
    }
    if (!count) return;
    /* the way: the mean (left and right feet's sideways parts cancel); the
       speed: the median length (robust to a foot landing or lifting) */
    double mx = 0, mz = 0;
    for (uint32_t i = 0; i < count; i++) mx += vel[i * 3], mz += vel[i * 3 + 2];
    double ml = sqrt(mx * mx + mz * mz);
    if (!(ml > 0)) return;
    qsort(vel, count, sizeof(float) * 3, by_length);
    const float *v = vel + (size_t)(count / 2) * 3;
    float speed = sqrtf(v[0] * v[0] + v[2] * v[2]);
    pace[0] = (float)(mx / ml) * speed, pace[2] = (float)(mz / ml) * speed;
}

oak_result oak_make_pose_bank(oak_pose_bank **out, const oak_pose_bank_desc *desc) {
    if (!out || !desc || !desc->gltf)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "pose bank: no desc or glTF");
    *out = NULL;
    const oak_gltf *g = desc->gltf;
    if (desc->skin >= g->skin_count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "pose bank: skin %u of %u", desc->skin,
                         g->skin_count);
    if (!desc->clip_count || desc->clip_count > OAK_POSE_BANK_MAX_CLIPS || !desc->clips)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "pose bank: %u clips (1 .. %d)",
                         desc->clip_count, OAK_POSE_BANK_MAX_CLIPS);
    float rate = desc->rate == 0 ? (float)OAK_POSE_BANK_RATE : desc->rate;
    if (!(rate >= 1 && rate <= 1000))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "pose bank: rate %g (frames a second)",
                         (double)rate);
    const oak_gltf_skin *s = &g->skins[desc->skin];
    if (!s->joint_count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "pose bank: skin has no joints");
    uint64_t total = 0;
    for (uint32_t c = 0; c < desc->clip_count; c++) {
        int32_t k = desc->clips[c];
        if (k < 0 || (uint32_t)k >= g->clip_count)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "pose bank: clip %d of %u", k,
                             g->clip_count);
        float d = g->clips[k].end - g->clips[k].start;
        total += (uint64_t)(d > 0 ? ceilf(d * rate) : 0) + 1;
    }
    if (total * s->joint_count * 12 > (uint64_t)OAK_POSE_BANK_MAX_FLOATS)
        return oak_error(OAK_ERROR_LIMIT, "pose bank: %llu frames of %u joints past %u floats",
                         (unsigned long long)total, s->joint_count, OAK_POSE_BANK_MAX_FLOATS);
    oak_pose_bank *b = oak_calloc(1, sizeof *b);
    mat4 *world = oak_alloc(sizeof(mat4) * (g->node_count ? g->node_count : 1));
    float *trs = oak_alloc(sizeof(float) * 10 * (g->node_count ? g->node_count : 1));
    uint8_t *done = oak_alloc(g->node_count ? g->node_count : 1);
    if (b) {
        b->joints = s->joint_count, b->clip_count = desc->clip_count;
        b->kept = desc->keep_root_motion;
        b->floats = (size_t)total * s->joint_count * 12;
        b->frames = oak_calloc(desc->clip_count, sizeof *b->frames);
        b->first = oak_calloc(desc->clip_count, sizeof *b->first);
        b->duration = oak_calloc(desc->clip_count, sizeof *b->duration);
        b->travel = oak_calloc(desc->clip_count, sizeof *b->travel);
        b->pace = oak_calloc(desc->clip_count, sizeof *b->pace);
        b->data = oak_alloc(b->floats * sizeof(float));
    }
    /* per frame of the longest clip: each joint's ground point and speed */
    uint32_t most = 1;
    for (uint32_t c = 0; c < desc->clip_count; c++) {
        float d = g->clips[desc->clips[c]].end - g->clips[desc->clips[c]].start;
        uint32_t n = (uint32_t)(d > 0 ? ceilf(d * rate) : 0) + 1;
        most = n > most ? n : most;
    }
    float *feet = oak_alloc(sizeof(float) * 3 * s->joint_count * most);
    float *vel = oak_alloc(sizeof(float) * 3 * most);
    if (!b || !world || !trs || !done || !feet || !vel || !b->frames || !b->first || !b->duration ||
        !b->travel || !b->pace || !b->data) {
        oak_free(world), oak_free(trs), oak_free(done), oak_free(feet), oak_free(vel);
        oak_destroy_pose_bank(b);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "pose bank: %zu floats",
                         (size_t)total * s->joint_count * 12);
    }
    int32_t mnode = mesh_node(g, desc->skin);
    /* feet: joints with no joint below them */
    bool *leaf = oak_alloc(sizeof(bool) * s->joint_count);
    if (!leaf) {
        oak_free(world), oak_free(trs), oak_free(done), oak_free(feet), oak_free(vel);
        oak_destroy_pose_bank(b);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "pose bank: %u joints", s->joint_count);
    }
    for (uint32_t k = 0; k < s->joint_count; k++) {
        leaf[k] = true;
        for (uint32_t j = 0; j < s->joint_count; j++)
            if (g->nodes[s->joints[j]].parent == (int32_t)s->joints[k]) leaf[k] = false;
    }
    uint32_t at = 0;
    for (uint32_t c = 0; c < desc->clip_count; c++) {
        const oak_gltf_clip *clip = &g->clips[desc->clips[c]];
        uint32_t root = travel_node(g, s, clip);
        float d = clip->end - clip->start;
        uint32_t n = (uint32_t)(d > 0 ? ceilf(d * rate) : 0) + 1;
        b->frames[c] = n, b->first[c] = at, b->duration[c] = d > 0 ? d : 0;
        /* the travel: the root from the first key to the last, on the ground */
        float r0[3], r1[3];
        pose_nodes(g, clip, clip->start, trs, world, done);
        node_at(world, mnode, root, r0);
        pose_nodes(g, clip, clip->end, trs, world, done);
        node_at(world, mnode, root, r1);
        float *tr = b->travel[c];
        tr[0] = r1[0] - r0[0], tr[1] = 0, tr[2] = r1[2] - r0[2];
        float keep = desc->keep_root_motion ? 0.0f : 1.0f; /* of the travel taken out */
        for (uint32_t f = 0; f < n; f++) {
            /* n frames spread evenly over the clip, the last on its end */
            float u = n > 1 ? (float)f / (float)(n - 1) : 0;
            pose_nodes(g, clip, clip->start + u * b->duration[c], trs, world, done);
            float off[3] = {tr[0] * u * keep, 0, tr[2] * u * keep};
            write_palette(s, world, mnode, off, b->data + ((size_t)(at + f) * b->joints) * 12);
            for (uint32_t k = 0; k < s->joint_count; k++)
                node_at(world, mnode, s->joints[k], feet + ((size_t)f * s->joint_count + k) * 3);
        }
        pace_of(b, c, feet, vel, leaf, s->joint_count, n, (float)(n - 1) / b->duration[c]);
        at += n;
    }
    oak_free(world), oak_free(trs), oak_free(done), oak_free(feet), oak_free(vel);
    oak_free(leaf);
    *out = b;
    return OAK_OK;
}

void oak_destroy_pose_bank(oak_pose_bank *b) {
    if (!b) return;
    oak_free(b->frames), oak_free(b->first), oak_free(b->duration), oak_free(b->travel);
    oak_free(b->pace);
    oak_free(b->data);
    oak_free(b);
}

uint32_t oak_pose_bank_joints(const oak_pose_bank *b) {
    return b ? b->joints : 0;
}
uint32_t oak_pose_bank_clips(const oak_pose_bank *b) {
    return b ? b->clip_count : 0;
}
uint32_t oak_pose_bank_frames(const oak_pose_bank *b, uint32_t clip) {
    return b && clip < b->clip_count ? b->frames[clip] : 0;
}
uint32_t oak_pose_bank_first_frame(const oak_pose_bank *b, uint32_t clip) {
    return b && clip < b->clip_count ? b->first[clip] : 0;
}
float oak_pose_bank_duration(const oak_pose_bank *b, uint32_t clip) {
    return b && clip < b->clip_count ? b->duration[clip] : 0;
}

float oak_pose_bank_speed(const oak_pose_bank *b, uint32_t clip, float direction[3]) {
    if (direction) direction[0] = direction[1] = direction[2] = 0;
    if (!b || clip >= b->clip_count) return 0;
    const float *v = b->pace[clip];
    float len = sqrtf(v[0] * v[0] + v[2] * v[2]);
    if (direction && len > 0) direction[0] = v[0] / len, direction[2] = v[2] / len;
    return len;
}

void oak_pose_bank_offset(const oak_pose_bank *b, uint32_t clip, float t, float out[3]) {
    out[0] = out[1] = out[2] = 0;
    if (!b || clip >= b->clip_count || !(b->duration[clip] > 0) || !isfinite(t)) return;
    float u = t / b->duration[clip];
    if (b->kept) return;
    for (int k = 0; k < 3; k++) out[k] = b->travel[clip][k] * u;
}

const float *oak_pose_bank_data(const oak_pose_bank *b, size_t *floats) {
    if (floats) *floats = b ? b->floats : 0;
    return b ? b->data : NULL;
}

/* The two frames around t (wrapped into the clip: banks loop) and the
   weight of the second. */
static void frames_at(const oak_pose_bank *b, uint32_t clip, float t, uint32_t *f0, uint32_t *f1,
                      float *w) {
    uint32_t n = b->frames[clip];
    float d = b->duration[clip];
    *f0 = *f1 = b->first[clip], *w = 0;
    if (n < 2 || !(d > 0) || !isfinite(t)) return;
    float u = fmodf(t, d);
    if (u < 0) u += d;
    float x = u / d * (float)(n - 1);
    uint32_t i = (uint32_t)x;
    if (i >= n - 1) i = n - 2, x = (float)(n - 1);
    *f0 = b->first[clip] + i, *f1 = *f0 + 1, *w = x - (float)i;
}

void oak_pose_bank_sample(const oak_pose_bank *b, uint32_t clip, float t, float *palette) {
    oak_pose_bank_blend(b, clip, t, clip, t, 0, palette);
}

void oak_pose_bank_blend(const oak_pose_bank *b, uint32_t clip_a, float ta, uint32_t clip_b,
                         float tb, float w, float *palette) {
    if (!b || !palette || clip_a >= b->clip_count || clip_b >= b->clip_count) return;
    uint32_t a0, a1, b0, b1;
    float wa, wb;
    frames_at(b, clip_a, ta, &a0, &a1, &wa);
    frames_at(b, clip_b, tb, &b0, &b1, &wb);
    w = w > 0 ? (w < 1 ? w : 1) : 0;
    size_t stride = (size_t)b->joints * 12;
    const float *pa0 = b->data + a0 * stride, *pa1 = b->data + a1 * stride;
    const float *pb0 = b->data + b0 * stride, *pb1 = b->data + b1 * stride;
    for (size_t i = 0; i < stride; i++) {
        /* skinning is linear in the matrices: a lerp of palettes is the
           lerp of the posed vertices (a crossfade of the two poses) */
        float a = pa0[i] + (pa1[i] - pa0[i]) * wa;
        float c = pb0[i] + (pb1[i] - pb0[i]) * wb;
        palette[i] = a + (c - a) * w;
    }
}
