/* The animation system: walks the player column; for each player advances
 * its clocks, rebuilds the pose from the rest pose, the main clip, a second
 * clip blended by weight and an additive layer (its change from its first
 * frame), and writes the nodes it touched as transforms and morph weights. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim_internal.h"

typedef enum layer_mode { LAYER_SET, LAYER_BLEND, LAYER_ADD } layer_mode;

int32_t oak_gltf_find_clip(const oak_gltf *g, const char *key) {
    if (!g || !key || !*key) return -1;
    for (uint32_t i = 0; i < g->clip_count; i++)
        if (g->clips[i].name && strcmp(g->clips[i].name, key) == 0) return (int32_t)i;
    char *end;
    long v = strtol(key, &end, 10);
    if (*end == 0 && v >= 0 && v < (long)g->clip_count) return (int32_t)v;
    return -1;
}

void oak_anim_play(oak_anim_player *p, int32_t clip, bool loop) {
    if (!p) return;
    p->clip = clip;
    p->loop = loop;
    p->playing = true;
    if (p->speed == 0) p->speed = 1;
    const oak_gltf *g = p->instance ? p->instance->gltf : NULL;
    p->time = g && clip >= 0 && (uint32_t)clip < g->clip_count ? g->clips[clip].start : 0;
}

void oak_anim_set_time(oak_anim_player *p, float time) {
    if (p) p->time = time;
}

static float advance(const oak_gltf *g, int32_t clip, float t, float dt, bool loop) {
    if (clip < 0 || (uint32_t)clip >= g->clip_count) return t;
    const oak_gltf_clip *c = &g->clips[clip];
    t += dt;
    float len = c->end - c->start;
    if (loop && len > 0) {
        float k = fmodf(t - c->start, len);
        if (k < 0) k += len;
        return c->start + k;
    }
    return t > c->end ? c->end : t;
}

static void quat_mul(const float *a, const float *b, float *out) {
    float r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    };
    memcpy(out, r, 16);
}

/* Shorter-way normalized lerp: blending poses wants a cheap, smooth mix. */
static void quat_blend(float *q, const float *to, float w) {
    float d = q[0] * to[0] + q[1] * to[1] + q[2] * to[2] + q[3] * to[3];
    float s = d < 0 ? -w : w;
    float n = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = q[i] * (1 - w) + to[i] * s;
        n += q[i] * q[i];
    }
    n = sqrtf(n);
    if (n > 0)
        for (int i = 0; i < 4; i++) q[i] /= n;
}

/* Where a channel of a node's transform or weights writes, marking the
   node touched; its width is cut to the node's morph weights. */
static float *node_slot(oak_gltf_instance *inst, const oak_gltf_channel *ch, uint32_t *width) {
    uint32_t n = ch->node;
    inst->touched[n] = 1;
    switch (ch->path) {
    case OAK_ANIM_PATH_TRANSLATION:
        return inst->pose_t + 3 * n;
    case OAK_ANIM_PATH_ROTATION:
        return inst->pose_r + 4 * n;
    case OAK_ANIM_PATH_SCALE:
        return inst->pose_s + 3 * n;
    default: {
        uint32_t wc = inst->gltf->nodes[n].weight_count;
        if (*width > wc) *width = wc;
        return inst->pose_w + inst->weight_base[n];
    }
    }
}

static void apply_clip(oak_gltf_instance *inst, int32_t clip, float t, layer_mode layer, float w) {
    const oak_gltf *g = inst->gltf;
    if (clip < 0 || (uint32_t)clip >= g->clip_count) return;
    const oak_gltf_clip *c = &g->clips[clip];
    for (uint32_t k = 0; k < c->channel_count; k++) {
        const oak_gltf_channel *ch = &c->channels[k];
        const oak_anim_sampler *s = &c->samplers[ch->sampler];
        uint32_t n = ch->node;
        bool prop = ch->path > OAK_ANIM_PATH_WEIGHTS;
        if ((!prop && !inst->nodes[n].id) || !s->key_count) continue;
        /* a boolean is not blended or added: the heavier layer's value holds */
        if (ch->path == OAK_ANIM_PATH_VISIBLE && (layer == LAYER_ADD || w < 0.5f)) continue;
        layer_mode mode = ch->path == OAK_ANIM_PATH_VISIBLE ? LAYER_SET : layer;
        bool rot = ch->path == OAK_ANIM_PATH_ROTATION;
        float *v = inst->sample, *ref = inst->sample_ref;
        oak_anim_sample(v, s, t, rot);
        if (mode == LAYER_ADD) oak_anim_sample(ref, s, c->start, rot);
        uint32_t width = s->width;
        float *dst = prop ? _oak_anim_prop_slot(inst, ch) : node_slot(inst, ch, &width);
        if (!dst) continue;
        if (mode == LAYER_SET) {
            memcpy(dst, v, 4 * width);
        } else if (rot && mode == LAYER_BLEND) {
            quat_blend(dst, v, w);
        } else if (rot) { /* additive: the rotation from the reference, scaled by w */
            float inv[4] = {-ref[0], -ref[1], -ref[2], ref[3]}, delta[4];
            quat_mul(v, inv, delta);
            float id[4] = {0, 0, 0, 1};
            quat_blend(id, delta, w);
            quat_mul(id, dst, dst);
        } else if (mode == LAYER_BLEND) {
            for (uint32_t i = 0; i < width; i++) dst[i] += (v[i] - dst[i]) * w;
        } else if (ch->path == OAK_ANIM_PATH_SCALE) {
            for (uint32_t i = 0; i < 3; i++)
                if (ref[i] != 0) dst[i] *= 1 + w * (v[i] / ref[i] - 1);
        } else {
            for (uint32_t i = 0; i < width; i++) dst[i] += w * (v[i] - ref[i]);
        }
    }
}

static void apply_player(oak_scene *scene, oak_anim_player *p, float dt) {
    oak_gltf_instance *inst = p->instance;
    const oak_gltf *g = inst->gltf;
    if (p->playing) {
        float step = dt * p->speed;
        p->time = advance(g, p->clip, p->time, step, p->loop);
        p->blend_time = advance(g, p->blend_clip, p->blend_time, step, p->loop);
        p->additive_time = advance(g, p->additive_clip, p->additive_time, step, p->loop);
    }
    bool any = p->clip >= 0 || (p->blend_clip >= 0 && p->blend_weight > 0) ||
               (p->additive_clip >= 0 && p->additive_weight != 0);
    if (!any) return; /* nothing animates: user code owns the transforms */
    uint32_t nn = g->node_count;
    for (uint32_t i = 0; i < nn; i++) {
        const oak_gltf_node *n = &g->nodes[i];
        memcpy(inst->pose_t + 3 * i, n->translation, 12);
        memcpy(inst->pose_r + 4 * i, n->rotation, 16);
        memcpy(inst->pose_s + 3 * i, n->scale, 12);
        if (n->weight_count)
            memcpy(inst->pose_w + inst->weight_base[i], n->weights, 4 * n->weight_count);
        inst->touched[i] = 0;
    }
    if (inst->has_props) _oak_anim_props_reset(inst);
    apply_clip(inst, p->clip, p->time, LAYER_SET, 1);
    if (p->blend_weight > 0) {
        float w = p->blend_weight > 1 ? 1 : p->blend_weight;
        apply_clip(inst, p->blend_clip, p->blend_time, LAYER_BLEND, w);
    }
    if (p->additive_weight != 0)
        apply_clip(inst, p->additive_clip, p->additive_time, LAYER_ADD, p->additive_weight);
    if (inst->has_props) _oak_anim_props_apply(inst);
    for (uint32_t i = 0; i < nn; i++) {
        if (!inst->touched[i]) continue;
        oak_transform t;
        memcpy(t.position, inst->pose_t + 3 * i, 12);
        memcpy(t.rotation, inst->pose_r + 4 * i, 16);
        memcpy(t.scale, inst->pose_s + 3 * i, 12);
        oak_scene_set_transform(scene, inst->nodes[i], &t);
        uint32_t wc = g->nodes[i].weight_count;
        if (wc)
            memcpy(inst->weights + inst->weight_base[i], inst->pose_w + inst->weight_base[i],
                   4 * wc);
    }
}

void oak_anim_update(oak_scene *scene, float dt) {
    if (!scene) return;
    oak_component pc =
        oak_scene_register_component(scene, OAK_ANIM_PLAYER_COMPONENT, sizeof(oak_anim_player));
    oak_column col = oak_scene_column(scene, pc);
    for (uint32_t i = 0; i < col.count; i++) {
        oak_anim_player *p = (oak_anim_player *)((uint8_t *)col.data + (size_t)i * col.stride);
        if (p->instance) apply_player(scene, p, dt);
    }
}
