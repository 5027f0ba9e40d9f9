/* Two-bone foot IK on pose bank palettes (issue 15, DIGEST §5; docs/WORLD.md
 * "Crowds"): a crowd's near figures keep their planted paws on the ground
 * under them. Everything works on the palette, the skinning matrices in
 * mesh space: a joint's posed place is its palette times its bind place,
 * and turning a bone about a point p by R is R about p applied on the left
 * of every palette below it. So the solve needs no node hierarchy at run
 * time, only masks of the joints under each leg's bones.
 *
 * Assumptions, stated: the mesh's +y is up (a record turns it about +y
 * and scales it uniformly, as the crowd's do); a sole is the vertices whose
 * strongest joint is the foot's or below it; the ground under a sole is
 * the plane through three height queries round its lowest vertex. */
#include <math.h>
#include <string.h>

#include "anim_internal.h"
#include "render/pose_stream.h"

typedef struct foot_leg {
    uint32_t joint[3]; /* upper, lower, foot */
    uint8_t *under[3]; /* per joint: 1 when at or below joint[k] */
    float bind[3][3];  /* their bind places, mesh space */
    uint32_t *sole;    /* vertices */
    uint32_t sole_count;
    /* per bank clip: the sole's lowest y over its frames (mesh units) */
    float lowest[OAK_POSE_BANK_MAX_CLIPS];
    float reach; /* upper + lower bone lengths at bind */
} foot_leg;

struct oak_foot_rig {
    uint32_t joints, leg_count, clips;
    foot_leg legs[OAK_FOOT_IK_MAX_LEGS];
    const float *positions; /* the mesh's (bind), joints and weights: the mesh outlives the rig */
    const uint16_t *vjoints;
    const float *vweights;
    float window, max_drop;
    uint8_t *mask; /* joints x leg_count x 3, the legs' under[] */
};

static void xform(const float *m, const float p[3], float out[3]) {
    for (int r = 0; r < 3; r++)
        out[r] = m[r * 4] * p[0] + m[r * 4 + 1] * p[1] + m[r * 4 + 2] * p[2] + m[r * 4 + 3];
}

/* Vertex v of the rig's mesh posed by palette (mesh space). */
static void pose_vertex(const oak_foot_rig *rig, const float *pal, uint32_t v, float out[3]) {
    float m[12];
    _oak_pose_skin(pal, rig->vjoints + 4 * (size_t)v, rig->vweights + 4 * (size_t)v, m);
    xform(m, rig->positions + 3 * (size_t)v, out);
}

/* Mesh space to world under rec (turn about +y by its quaternion, scale,
   place). */
static void to_world(const oak_instance *rec, const float p[3], float out[3]) {
    float r[3];
    _oak_quat_rotate(rec->rotation, p, r);
    for (int k = 0; k < 3; k++) out[k] = rec->position[k] + rec->scale * r[k];
}

static int32_t joint_named(const oak_gltf *g, const oak_gltf_skin *s, const char *name) {
    for (uint32_t j = 0; name && j < s->joint_count; j++) {
        const char *n = g->nodes[s->joints[j]].name;
        if (n && strcmp(n, name) == 0) return (int32_t)j;
    }
    return -1;
}

/* Whether skin joint j is node `anc` or below it. */
static bool is_under(const oak_gltf *g, uint32_t node, uint32_t anc) {
    for (int32_t n = (int32_t)node; n >= 0; n = g->nodes[n].parent)
        if ((uint32_t)n == anc) return true;
    return false;
}

static float dist3(const float a[3], const float b[3]) {
    float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* The sole's lowest vertex y under palette. */
static float sole_low(const oak_foot_rig *rig, const foot_leg *l, const float *pal, float at[3]) {
    float low = INFINITY;
    for (uint32_t i = 0; i < l->sole_count; i++) {
        float p[3];
        pose_vertex(rig, pal, l->sole[i], p);
        if (p[1] < low) {
            low = p[1];
            if (at) memcpy(at, p, sizeof p);
        }
    }
    return low;
}

oak_result oak_make_foot_rig(oak_foot_rig **out, const oak_foot_rig_desc *d) {
    if (!out || !d || !d->gltf || !d->bank || !d->legs)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "foot rig: NULL argument");
    *out = NULL;
    const oak_gltf *g = d->gltf;
    const oak_mesh_data *md = oak_mesh_get(d->mesh);
    if (d->skin >= g->skin_count || !md || !md->joints || !md->weights)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "foot rig: skin %u or its skinned mesh is missing", d->skin);
    const oak_gltf_skin *s = &g->skins[d->skin];
    uint32_t joints = oak_pose_bank_joints(d->bank);
    if (joints != s->joint_count || d->leg_count == 0 || d->leg_count > OAK_FOOT_IK_MAX_LEGS)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "foot rig: %u legs (1 .. %u) over a bank of %u joints for a skin of %u",
                         d->leg_count, OAK_FOOT_IK_MAX_LEGS, joints, s->joint_count);
    for (uint32_t v = 0; v < (size_t)md->vertex_count * 4; v++)
        if (md->joints[v] >= joints)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "foot rig: a vertex names joint %u of %u",
                             md->joints[v], joints);
    oak_foot_rig *rig = oak_calloc(1, sizeof *rig);
    if (!rig) return OAK_ERROR_OUT_OF_MEMORY;
    rig->joints = joints, rig->leg_count = d->leg_count, rig->clips = oak_pose_bank_clips(d->bank);
    rig->positions = md->positions, rig->vjoints = md->joints, rig->vweights = md->weights;
    rig->mask = oak_calloc((size_t)joints * d->leg_count * 3, 1);
    oak_result r = rig->mask ? OAK_OK : OAK_ERROR_OUT_OF_MEMORY;
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < md->vertex_count; v++)
        lo = fminf(lo, md->positions[3 * v + 1]), hi = fmaxf(hi, md->positions[3 * v + 1]);
    rig->window = d->plant_window > 0 ? d->plant_window : (float)OAK_FOOT_IK_WINDOW * (hi - lo);
    rig->max_drop = d->max_drop > 0 ? d->max_drop : (float)OAK_FOOT_IK_MAX_DROP;
    for (uint32_t i = 0; i < d->leg_count && !r; i++) {
        foot_leg *l = &rig->legs[i];
        const char *names[3] = {d->legs[i].upper, d->legs[i].lower, d->legs[i].foot};
        for (int k = 0; k < 3 && !r; k++) {
            int32_t j = joint_named(g, s, names[k]);
            if (j < 0) {
                r = oak_error(OAK_ERROR_INVALID_ARGUMENT, "foot rig: no joint named '%s'",
                              names[k] ? names[k] : "(null)");
                break;
            }
            l->joint[k] = (uint32_t)j;
            l->under[k] = rig->mask + ((size_t)i * 3 + k) * joints;
            /* the bind place: the inverse bind's inverse's translation */
            mat4 ib, bind;
            memcpy(ib, s->inverse_bind + 16 * (size_t)j, sizeof ib);
            glm_mat4_inv(ib, bind);
            for (int c = 0; c < 3; c++) l->bind[k][c] = bind[3][c];
        }
        for (int k = 0; k < 3 && !r; k++)
            for (uint32_t j = 0; j < joints; j++)
                l->under[k][j] = is_under(g, s->joints[j], s->joints[l->joint[k]]);
        if (!r && (!l->under[0][l->joint[1]] || !l->under[1][l->joint[2]]))
            r = oak_error(OAK_ERROR_INVALID_ARGUMENT,
                          "foot rig: leg %u's joints are not a chain (upper above lower above "
                          "foot)",
                          i);
        if (r) break;
        l->reach = dist3(l->bind[0], l->bind[1]) + dist3(l->bind[1], l->bind[2]);
        /* the sole: vertices led by the foot's subtree */
        for (int pass = 0; pass < 2 && !r; pass++) {
            l->sole_count = 0;
            for (uint32_t v = 0; v < md->vertex_count; v++) {
                uint32_t best = 0;
                for (uint32_t k = 1; k < 4; k++)
                    if (md->weights[4 * v + k] > md->weights[4 * v + best]) best = k;
                if (!l->under[2][md->joints[4 * v + best]]) continue;
                if (pass) l->sole[l->sole_count] = v;
                l->sole_count++;
            }
            if (!pass && !(l->sole = oak_alloc(sizeof(uint32_t) * (l->sole_count + 1))))
                r = OAK_ERROR_OUT_OF_MEMORY;
        }
        if (!r && !l->sole_count)
            r = oak_error(OAK_ERROR_INVALID_ARGUMENT, "foot rig: no vertex follows '%s'", names[2]);
        /* the sole's lowest over each clip's frames: where planted is (a
           walk plants its paws higher than a survey crouches) */
        const float *data = oak_pose_bank_data(d->bank, NULL);
        for (uint32_t c = 0; c < oak_pose_bank_clips(d->bank) && !r; c++) {
            l->lowest[c] = INFINITY;
            uint32_t f0 = oak_pose_bank_first_frame(d->bank, c);
            for (uint32_t f = f0; f < f0 + oak_pose_bank_frames(d->bank, c); f++)
                l->lowest[c] =
                    fminf(l->lowest[c], sole_low(rig, l, data + (size_t)f * joints * 12, NULL));
        }
    }
    if (r) {
        oak_destroy_foot_rig(rig);
        return r;
    }
    *out = rig;
    return OAK_OK;
}

void oak_destroy_foot_rig(oak_foot_rig *rig) {
    if (!rig) return;
    for (uint32_t i = 0; i < OAK_FOOT_IK_MAX_LEGS; i++) oak_free(rig->legs[i].sole);
    oak_free(rig->mask);
    oak_free(rig);
}

/* R (3 x 3, row-major) turning unit-free u onto v's direction, the
   shortest way; false when either is degenerate. */
static bool turn_between(const float u[3], const float v[3], float R[9]) {
    float lu = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    float lv = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(lu > 1e-12f) || !(lv > 1e-12f)) return false;
    float a[3] = {u[0] / lu, u[1] / lu, u[2] / lu}, b[3] = {v[0] / lv, v[1] / lv, v[2] / lv};
    float k[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    float s = sqrtf(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
    float c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    if (s < 1e-9f) { /* parallel (a leg never folds back on itself): no turn */
        const float I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R, I, sizeof I);
        return c > 0;
    }
    for (int i = 0; i < 3; i++) k[i] /= s;
    /* Rodrigues: c I + s [k]x + (1 - c) k k^T */
    float t = 1 - c;
    R[0] = c + t * k[0] * k[0], R[1] = t * k[0] * k[1] - s * k[2],
    R[2] = t * k[0] * k[2] + s * k[1];
    R[3] = t * k[1] * k[0] + s * k[2], R[4] = c + t * k[1] * k[1],
    R[5] = t * k[1] * k[2] - s * k[0];
    R[6] = t * k[2] * k[0] - s * k[1], R[7] = t * k[2] * k[1] + s * k[0],
    R[8] = c + t * k[2] * k[2];
    return true;
}

/* Palette m (3 x 4) turned by R about point p: (R (x - p) + p) after m. */
static void turn_palette(float *m, const float R[9], const float p[3]) {
    float o[12];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 4; c++)
            o[r * 4 + c] = R[r * 3] * m[c] + R[r * 3 + 1] * m[4 + c] + R[r * 3 + 2] * m[8 + c];
        o[r * 4 + 3] += p[r] - (R[r * 3] * p[0] + R[r * 3 + 1] * p[1] + R[r * 3 + 2] * p[2]);
    }
    memcpy(m, o, sizeof o);
}

/* The lowest clearance (world metres) of leg l's sole posed by pal over the
   plane through the ground at its lowest vertex and a step along x and z;
   the sole's lowest mesh-space y into *low. */
static float sole_clearance(const oak_foot_rig *rig, const foot_leg *l, const oak_instance *rec,
                            oak_ground_fn ground, void *user, const float *pal, float *low) {
    float at[3], w0[3];
    *low = sole_low(rig, l, pal, at);
    to_world(rec, at, w0);
    const float step = 0.05f; /* metres: about a paw */
    float h0 = ground(user, w0[0], w0[2]);
    float gx = (ground(user, w0[0] + step, w0[2]) - h0) / step;
    float gz = (ground(user, w0[0], w0[2] + step) - h0) / step;
    float c = INFINITY;
    for (uint32_t i = 0; i < l->sole_count; i++) {
        float p[3], w[3];
        pose_vertex(rig, pal, l->sole[i], p);
        to_world(rec, p, w);
        c = fminf(c, w[1] - (h0 + gx * (w[0] - w0[0]) + gz * (w[2] - w0[2])));
    }
    return c;
}

float oak_foot_ik_clearance(const oak_foot_rig *rig, uint32_t leg, const oak_instance *rec,
                            oak_ground_fn ground, void *user, const float *palette) {
    if (!rig || leg >= rig->leg_count || !rec || !ground || !palette) return NAN;
    const foot_leg *l = &rig->legs[leg];
    float c = INFINITY;
    for (uint32_t i = 0; i < l->sole_count; i++) {
        float p[3], w[3];
        pose_vertex(rig, palette, l->sole[i], p);
        to_world(rec, p, w);
        c = fminf(c, w[1] - ground(user, w[0], w[2]));
    }
    return c;
}

void oak_foot_ik_solve(const oak_foot_rig *rig, const oak_instance *rec, oak_ground_fn ground,
                       void *user, float *pal, oak_foot_ik_info *info) {
    if (info) memset(info, 0, sizeof *info);
    if (!rig || !rec || !ground || !pal || !(rec->scale > 0)) return;
    float s = rec->scale;
    float rise[OAK_FOOT_IK_MAX_LEGS], weight[OAK_FOOT_IK_MAX_LEGS];
    float drop = 0, share;
    uint32_t clip[2];
    _oak_pose_clips(rig->clips, rec->phase, clip, &share);
    /* each foot's weight and how far (mesh units, along up) it should move */
    for (uint32_t i = 0; i < rig->leg_count; i++) {
        const foot_leg *l = &rig->legs[i];
        float low, c = sole_clearance(rig, l, rec, ground, user, pal, &low);
        /* planted: within half the window of the clip's lowest (a blend's:
           its clips' lerped), lifting to none at the window */
        float lowest = l->lowest[clip[0]] + (l->lowest[clip[1]] - l->lowest[clip[0]]) * share;
        float w = 2 - 2 * (low - lowest) / rig->window;
        w = w > 0 ? (w < 1 ? w : 1) : 0;
        weight[i] = w, rise[i] = -c / s;
        if (info) info->weight[i] = w, info->clearance[i] = c;
        /* the drop this leg needs to reach its target: the smallest d with
           |target - (hip - d up)| = reach */
        if (w <= 0) continue;
        float a[3], t[3];
        xform(pal + (size_t)l->joint[0] * 12, l->bind[0], a);
        xform(pal + (size_t)l->joint[2] * 12, l->bind[2], t);
        t[1] += w * rise[i];
        float v[3] = {t[0] - a[0], t[1] - a[1], t[2] - a[2]};
        float reach = l->reach * 0.999f, vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        float disc = v[1] * v[1] - (vv - reach * reach);
        if (vv > reach * reach && disc >= 0) {
            float need = -v[1] - sqrtf(disc);
            need = need < rig->max_drop * l->reach ? need : rig->max_drop * l->reach;
            drop = need > drop ? need : drop;
        }
    }
    if (info) {
        info->drop = drop * s;
        for (uint32_t i = 0; i < rig->leg_count; i++) info->lift[i] = -drop * s;
    }
    if (drop > 0) /* the whole figure down: the swinging feet go with it */
        for (uint32_t j = 0; j < rig->joints; j++) pal[(size_t)j * 12 + 7] -= drop;
    for (uint32_t i = 0; i < rig->leg_count; i++) {
        const foot_leg *l = &rig->legs[i];
        if (weight[i] <= 0) continue;
        float a[3], b[3], c[3];
        xform(pal + (size_t)l->joint[0] * 12, l->bind[0], a);
        xform(pal + (size_t)l->joint[1] * 12, l->bind[1], b);
        xform(pal + (size_t)l->joint[2] * 12, l->bind[2], c);
        /* the target: from the dropped foot toward the ground by the weight
           (continuous as a foot lifts: weight 0 is the dropped pose) */
        float tgt[3] = {c[0], c[1] + weight[i] * (drop + rise[i]), c[2]};
        float l1 = dist3(a, b), l2 = dist3(b, c);
        float v[3] = {tgt[0] - a[0], tgt[1] - a[1], tgt[2] - a[2]};
        float d = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(d > 1e-6f) || !(l1 > 1e-6f) || !(l2 > 1e-6f)) continue;
        float u[3] = {v[0] / d, v[1] / d, v[2] / d};
        float dmin = fabsf(l1 - l2) * 1.001f + 1e-5f, dmax = (l1 + l2) * 0.999f;
        d = d < dmin ? dmin : (d > dmax ? dmax : d); /* clamped to the reach */
        for (int k = 0; k < 3; k++) tgt[k] = a[k] + u[k] * d;
        /* the pole: the animated knee's offset off the hip-to-target line */
        float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float along = ab[0] * u[0] + ab[1] * u[1] + ab[2] * u[2];
        float p[3] = {ab[0] - along * u[0], ab[1] - along * u[1], ab[2] - along * u[2]};
        float lp = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        if (!(lp > 1e-6f * l1)) continue; /* a straight leg: no bend plane to keep */
        for (int k = 0; k < 3; k++) p[k] /= lp;
        float ca = (l1 * l1 + d * d - l2 * l2) / (2 * l1 * d);
        ca = ca > 1 ? 1 : (ca < -1 ? -1 : ca);
        float sa = sqrtf(1 - ca * ca);
        float knee[3];
        for (int k = 0; k < 3; k++) knee[k] = a[k] + l1 * (ca * u[k] + sa * p[k]);
        float R1[9], R2[9];
        float ak[3] = {knee[0] - a[0], knee[1] - a[1], knee[2] - a[2]};
        if (!turn_between(ab, ak, R1)) continue;
        /* the lower bone's end after the first turn, onto the target */
        float ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, c1[3];
        for (int r = 0; r < 3; r++)
            c1[r] = a[r] + R1[r * 3] * ac[0] + R1[r * 3 + 1] * ac[1] + R1[r * 3 + 2] * ac[2];
        float kc[3] = {c1[0] - knee[0], c1[1] - knee[1], c1[2] - knee[2]};
        float kt[3] = {tgt[0] - knee[0], tgt[1] - knee[1], tgt[2] - knee[2]};
        if (!turn_between(kc, kt, R2)) continue;
        const float move[3] = {tgt[0] - c[0], tgt[1] - c[1], tgt[2] - c[2]};
        for (uint32_t j = 0; j < rig->joints; j++) {
            float *m = pal + (size_t)j * 12;
            if (l->under[2][j]) { /* the foot keeps its animated turn, moved */
                m[3] += move[0], m[7] += move[1], m[11] += move[2];
                continue;
            }
            if (l->under[0][j]) turn_palette(m, R1, a);
            if (l->under[1][j]) turn_palette(m, R2, knee);
        }
        if (info) info->lift[i] = (move[1] - drop) * s;
    }
}
