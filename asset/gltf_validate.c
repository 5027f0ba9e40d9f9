/* One structural check of a loaded model, run on every glTF the parser
 * builds and on every .oakm read after its hash: arrays present where counts
 * say so, indices in range, roots unique and parentless, no cycles, finite
 * numbers, sampler keys in order. A cache with a right hash but wrong
 * structure (hand-made, or from a buggy writer) fails here, not later. */
#include <math.h>
#include <string.h>

#include "gltf_internal.h"

#define BAD(...) return oak_error(OAK_ERROR_PARSE, __VA_ARGS__)

static bool finite_all(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* -1 (none) or an index into an array of count. */
static bool ref_ok(int32_t i, uint32_t count) {
    return i >= -1 && (i < 0 || (uint32_t)i < count);
}

/* The hierarchy in linear time: each node is walked up once (marks: 1 on
   the current walk, 2 reaches a root, 3 reaches a cycle). */
static oak_result check_hierarchy(const oak_gltf *g, const char *file) {
    size_t n1 = (size_t)g->node_count + 1;
    uint8_t *mark = oak_calloc(n1, 1);
    uint32_t *walk = oak_alloc(sizeof(uint32_t) * n1);
    oak_result r = OAK_OK;
    if (!mark || !walk) {
        r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory checking %u nodes", file,
                      g->node_count);
        goto out;
    }
    for (uint32_t i = 0; i < g->node_count && !r; i++) {
        uint32_t n = 0;
        int32_t p = (int32_t)i;
        while (p >= 0 && !mark[p]) {
            mark[p] = 1;
            walk[n++] = (uint32_t)p;
            p = g->nodes[p].parent;
        }
        uint8_t verdict = p < 0 || mark[p] == 2 ? 2 : 3;
        while (n) mark[walk[--n]] = verdict;
        if (verdict == 3) r = oak_error(OAK_ERROR_PARSE, "%s: nodes[%u] is in a cycle", file, i);
    }
    /* Roots: in range, parentless, each once (mark 4 = already a root). */
    for (uint32_t i = 0; i < g->root_count && !r; i++) {
        uint32_t n = g->roots[i];
        if (n >= g->node_count)
            r = oak_error(OAK_ERROR_PARSE, "%s: roots[%u] = %u is past the %u nodes", file, i, n,
                          g->node_count);
        else if (g->nodes[n].parent >= 0)
            r = oak_error(OAK_ERROR_PARSE, "%s: roots[%u] = %u has a parent", file, i, n);
        else if (mark[n] == 4)
            r = oak_error(OAK_ERROR_PARSE, "%s: roots[%u] repeats node %u", file, i, n);
        else
            mark[n] = 4;
    }
out:
    oak_free(mark);
    oak_free(walk);
    return r;
}

static oak_result check_nodes(const oak_gltf *g, const char *file) {
    if (g->node_count && !g->nodes) BAD("%s: %u nodes but no node array", file, g->node_count);
    if (g->root_count && !g->roots) BAD("%s: %u roots but no root array", file, g->root_count);
    for (uint32_t i = 0; i < g->node_count; i++) {
        const oak_gltf_node *n = &g->nodes[i];
        if (!n->name) BAD("%s: nodes[%u] has no name string", file, i);
        if (!ref_ok(n->parent, g->node_count) || !ref_ok(n->mesh, g->mesh_count) ||
            !ref_ok(n->skin, g->skin_count) || !ref_ok(n->camera, g->camera_count) ||
            !ref_ok(n->light, g->light_count))
            BAD("%s: nodes[%u] refers past an array", file, i);
        if (n->child_count && !n->children) BAD("%s: nodes[%u] lost its children", file, i);
        for (uint32_t c = 0; c < n->child_count; c++)
            if (n->children[c] >= g->node_count || g->nodes[n->children[c]].parent != (int32_t)i)
                BAD("%s: nodes[%u].children[%u] is inconsistent", file, i, c);
        if (n->weight_count && !n->weights) BAD("%s: nodes[%u] lost its weights", file, i);
        if (n->mesh >= 0 && n->weight_count != g->meshes[n->mesh].weight_count)
            BAD("%s: nodes[%u] weights differ from its mesh's targets", file, i);
        if (!finite_all(n->translation, 3) || !finite_all(n->rotation, 4) ||
            !finite_all(n->scale, 3) || !finite_all(n->weights, n->weight_count))
            BAD("%s: nodes[%u] has a non-finite transform or weight", file, i);
        const float *q = n->rotation;
        if (fabsf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0f) > 1e-3f)
            BAD("%s: nodes[%u].rotation is not a unit quaternion", file, i);
        if (n->instance_count && (!n->instances || n->mesh < 0))
            BAD("%s: nodes[%u] places a mesh it lacks", file, i);
        for (uint32_t k = 0; k < n->instance_count; k++)
            if (!finite_all((const float *)&n->instances[k], sizeof(oak_gltf_trs) / sizeof(float)))
                BAD("%s: nodes[%u] placement %u is not finite", file, i, k);
        if (n->lod_count > OAK_GLTF_LOD_MAX || (n->lod_count && !n->lod_nodes))
            BAD("%s: nodes[%u] has a bad MSFT_lod level list", file, i);
        for (uint32_t k = 0; k < n->lod_count; k++)
            if (n->lod_nodes[k] >= g->node_count || n->lod_nodes[k] == i ||
                g->nodes[n->lod_nodes[k]].parent >= 0)
                BAD("%s: nodes[%u] MSFT_lod level %u is not a free node", file, i, k);
        if (n->lod_coverage_count &&
            (!n->lod_coverage || n->lod_coverage_count != n->lod_count + 1 ||
             !finite_all(n->lod_coverage, n->lod_coverage_count)))
            BAD("%s: nodes[%u] has a bad MSFT_screencoverage", file, i);
        if (n->skin >= 0 && n->mesh >= 0) {
            const oak_gltf_mesh *m = &g->meshes[n->mesh];
            for (uint32_t k = 0; k < m->primitive_count; k++)
                if (m->primitives[k].influence_count &&
                    m->primitives[k].max_joint >= g->skins[n->skin].joint_count)
                    BAD("%s: nodes[%u] uses joints past its skin", file, i);
        }
    }
    return check_hierarchy(g, file);
}

static oak_result check_primitive(const oak_gltf *g, const oak_gltf_mesh *m, uint32_t i, uint32_t k,
                                  const char *file) {
    const oak_gltf_primitive *p = &m->primitives[k];
    size_t nv = p->vertex_count;
    if (!ref_ok(p->material, g->material_count) || p->mode > 6)
        BAD("%s: meshes[%u].primitives[%u] refers past an array", file, i, k);
    for (uint32_t v = 0; p->variant_material && v < g->variant_count; v++)
        if (!ref_ok(p->variant_material[v], g->material_count))
            BAD("%s: meshes[%u].primitives[%u] maps variant %u past the materials", file, i, k, v);
    if (nv && !p->positions) BAD("%s: meshes[%u].primitives[%u] has no positions", file, i, k);
    if (p->index_count && !p->indices)
        BAD("%s: meshes[%u].primitives[%u] lost its indices", file, i, k);
    if (p->index_count % 3) BAD("%s: meshes[%u].primitives[%u] index count", file, i, k);
    for (uint32_t x = 0; x < p->index_count; x++)
        if (p->indices[x] >= p->vertex_count)
            BAD("%s: meshes[%u].primitives[%u].indices[%u] = %u is past the %u vertices", file, i,
                k, x, p->indices[x], p->vertex_count);
    /* Optional streams may be absent; present ones hold finite numbers. */
    const struct {
        const float *v;
        size_t n;
    } streams[] = {{p->positions, nv * 3}, {p->normals, nv * 3}, {p->tangents, nv * 4},
                   {p->uv0, nv * 2},       {p->uv1, nv * 2},     {p->colors, nv * 4}};
    for (size_t s = 0; s < sizeof streams / sizeof streams[0]; s++)
        if (streams[s].v && !finite_all(streams[s].v, streams[s].n))
            BAD("%s: meshes[%u].primitives[%u] holds a non-finite vertex value", file, i, k);
    if (p->influence_count && (!p->joints || !p->weights))
        BAD("%s: meshes[%u].primitives[%u] lost its joints", file, i, k);
    if (p->influence_count % 4) BAD("%s: meshes[%u].primitives[%u] influences", file, i, k);
    uint32_t mj = 0;
    for (size_t x = 0; x < nv * p->influence_count; x++) {
        if (!isfinite(p->weights[x]))
            BAD("%s: meshes[%u].primitives[%u] has a non-finite joint weight", file, i, k);
        if (p->weights[x] != 0 && p->joints[x] > mj) mj = p->joints[x];
    }
    if (mj > p->max_joint) BAD("%s: meshes[%u].primitives[%u] max joint", file, i, k);
    if (p->target_count != m->weight_count)
        BAD("%s: meshes[%u].primitives[%u] target count", file, i, k);
    if (p->target_count && !p->targets)
        BAD("%s: meshes[%u].primitives[%u] lost its targets", file, i, k);
    for (uint32_t t = 0; t < p->target_count; t++) {
        const oak_gltf_target *tg = &p->targets[t];
        if ((tg->positions && !finite_all(tg->positions, nv * 3)) ||
            (tg->normals && !finite_all(tg->normals, nv * 3)) ||
            (tg->tangents && !finite_all(tg->tangents, nv * 3)))
            BAD("%s: meshes[%u].primitives[%u].targets[%u] holds a non-finite value", file, i, k,
                t);
    }
    if (!finite_all(p->bounds.min, 3) || !finite_all(p->bounds.max, 3))
        BAD("%s: meshes[%u].primitives[%u] has non-finite bounds", file, i, k);
    return OAK_OK;
}

static oak_result check_meshes(const oak_gltf *g, const char *file) {
    if (g->variant_count && !g->variant_names)
        BAD("%s: %u variants but no names", file, g->variant_count);
    for (uint32_t v = 0; v < g->variant_count; v++)
        if (!g->variant_names[v]) BAD("%s: variants[%u] has no name", file, v);
    if (g->mesh_count && !g->meshes) BAD("%s: %u meshes but no mesh array", file, g->mesh_count);
    for (uint32_t i = 0; i < g->mesh_count; i++) {
        const oak_gltf_mesh *m = &g->meshes[i];
        if (!m->primitives && m->primitive_count)
            BAD("%s: meshes[%u] lost its primitives", file, i);
        if (m->weight_count && (!m->weights || !finite_all(m->weights, m->weight_count)))
            BAD("%s: meshes[%u] has missing or non-finite weights", file, i);
        for (uint32_t k = 0; k < m->primitive_count; k++) {
            oak_result r = check_primitive(g, m, i, k, file);
            if (r) return r;
        }
    }
    return OAK_OK;
}

static oak_result check_clips(const oak_gltf *g, const char *file) {
    if (g->clip_count && !g->clips) BAD("%s: %u clips but no clip array", file, g->clip_count);
    for (uint32_t i = 0; i < g->clip_count; i++) {
        const oak_gltf_clip *c = &g->clips[i];
        if (c->channel_count && !c->channels)
            BAD("%s: animations[%u] counts %u channels but has none", file, i, c->channel_count);
        if (c->sampler_count && !c->samplers)
            BAD("%s: animations[%u] counts %u samplers but has none", file, i, c->sampler_count);
        if (!isfinite(c->start) || !isfinite(c->end) || c->start > c->end)
            BAD("%s: animations[%u] runs from %g to %g", file, i, c->start, c->end);
        for (uint32_t k = 0; k < c->channel_count; k++) {
            const oak_gltf_channel *ch = &c->channels[k];
            uint32_t want;
            oak_anim_target t = oak_anim_path_target(ch->path, &want);
            uint32_t count = t == OAK_ANIM_TARGET_NODE       ? g->node_count
                             : t == OAK_ANIM_TARGET_MATERIAL ? g->material_count
                             : t == OAK_ANIM_TARGET_LIGHT    ? g->light_count
                                                             : g->camera_count;
            if (ch->node >= count || ch->sampler >= c->sampler_count ||
                ch->path < OAK_ANIM_PATH_TRANSLATION || ch->path >= OAK_ANIM_PATH_COUNT)
                BAD("%s: animations[%u].channels[%u] refers past an array", file, i, k);
            const oak_anim_sampler *sm = &c->samplers[ch->sampler];
            if (ch->path == OAK_ANIM_PATH_WEIGHTS) want = g->nodes[ch->node].weight_count;
            if (sm->width != want || !sm->key_count || !sm->times || !sm->values ||
                sm->interp < OAK_INTERP_STEP || sm->interp > OAK_INTERP_CUBICSPLINE ||
                (ch->path == OAK_ANIM_PATH_VISIBLE && sm->interp != OAK_INTERP_STEP))
                BAD("%s: animations[%u].channels[%u] has a bad sampler", file, i, k);
        }
        for (uint32_t k = 0; k < c->sampler_count; k++) {
            const oak_anim_sampler *sm = &c->samplers[k];
            if (!sm->key_count) continue; /* no channel uses it */
            if (!sm->times || !sm->values)
                BAD("%s: animations[%u].samplers[%u] lost its keys", file, i, k);
            for (uint32_t t = 0; t < sm->key_count; t++)
                if (!isfinite(sm->times[t]) || sm->times[t] < 0 ||
                    (t && !(sm->times[t] > sm->times[t - 1])))
                    BAD("%s: animations[%u].samplers[%u] times must be finite, >= 0 and strictly "
                        "increase (key %u)",
                        file, i, k, t);
            size_t nv =
                (size_t)sm->key_count * sm->width * (sm->interp == OAK_INTERP_CUBICSPLINE ? 3 : 1);
            if (!finite_all(sm->values, nv))
                BAD("%s: animations[%u].samplers[%u] holds a non-finite value", file, i, k);
        }
    }
    return OAK_OK;
}

oak_result _oak_gltf_validate(const oak_gltf *g, const char *file) {
    oak_result r;
    if ((r = check_meshes(g, file)) || (r = check_nodes(g, file)) || (r = check_clips(g, file)))
        return r;
    if (g->material_count && !g->materials) BAD("%s: materials counted but missing", file);
    for (uint32_t i = 0; i < g->material_count; i++)
        for (int k = 0; k < 5; k++)
            if (!ref_ok(g->materials[i].image[k], g->image_count))
                BAD("%s: materials[%u] refers past the images", file, i);
    for (uint32_t i = 0; i < g->material_count; i++)
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++)
            if (!ref_ok(g->materials[i].lobe_image[k], g->image_count))
                BAD("%s: materials[%u] refers past the images", file, i);
    if (g->image_count && !g->images) BAD("%s: images counted but missing", file);
    if (g->skin_count && !g->skins) BAD("%s: skins counted but missing", file);
    for (uint32_t i = 0; i < g->skin_count; i++) {
        const oak_gltf_skin *k = &g->skins[i];
        if (!k->joints || !k->inverse_bind) BAD("%s: skins[%u] lost its joints", file, i);
        if (!ref_ok(k->skeleton, g->node_count))
            BAD("%s: skins[%u].skeleton is past the nodes", file, i);
        for (uint32_t j = 0; j < k->joint_count; j++)
            if (k->joints[j] >= g->node_count)
                BAD("%s: skins[%u].joints[%u] is past the nodes", file, i, j);
        if (!finite_all(k->inverse_bind, (size_t)k->joint_count * 16))
            BAD("%s: skins[%u] has a non-finite inverse bind matrix", file, i);
    }
    if (g->camera_count && !g->cameras) BAD("%s: cameras counted but missing", file);
    for (uint32_t i = 0; i < g->camera_count; i++) {
        const oak_gltf_camera *c = &g->cameras[i];
        const float v[] = {c->yfov, c->aspect, c->xmag, c->ymag, c->znear, c->zfar};
        if (!finite_all(v, 6)) BAD("%s: cameras[%u] has a non-finite number", file, i);
    }
    if (g->light_count && !g->lights) BAD("%s: lights counted but missing", file);
    for (uint32_t i = 0; i < g->light_count; i++) {
        const oak_gltf_light *l = &g->lights[i];
        const float v[] = {l->color[0], l->color[1],   l->color[2],  l->intensity,
                           l->range,    l->inner_cone, l->outer_cone};
        if (!finite_all(v, 7)) BAD("%s: lights[%u] has a non-finite number", file, i);
    }
    return OAK_OK;
}
