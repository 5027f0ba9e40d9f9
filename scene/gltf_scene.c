/* A loaded glTF placed in the scene: one entity per node of the default
 * scene with its TRS, name and parent, so joints are ordinary entities; mesh
 * renderers (posed primitives get a mesh of their own), cameras, lights and
 * the animation player on the root. All per-frame memory is taken here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim_internal.h"
#include "asset/pose_rows.h"

static oak_transform node_transform(const oak_gltf_node *n) {
    oak_transform t;
    memcpy(t.position, n->translation, 12);
    memcpy(t.rotation, n->rotation, 16);
    memcpy(t.scale, n->scale, 12);
    return t;
}

static bool needs_deform(const oak_gltf_node *n, const oak_gltf_primitive *p) {
    return (n->skin >= 0 && p->influence_count) || (p->target_count && n->weight_count);
}

/* A node some clip's channel moves (translation, rotation, scale or
   weights), itself or through an ancestor: its
   primitives are shadow movers (OAK_DRAW_MOVING), as posed ones are. */
static bool node_animated(const oak_gltf *g, uint32_t ni) {
    for (int32_t n = (int32_t)ni, hops = 0; n >= 0 && (uint32_t)hops <= g->node_count;
         n = g->nodes[n].parent, hops++)
        for (uint32_t c = 0; c < g->clip_count; c++)
            for (uint32_t k = 0; k < g->clips[c].channel_count; k++)
                if (g->clips[c].channels[k].node == (uint32_t)n &&
                    g->clips[c].channels[k].path <= OAK_ANIM_PATH_WEIGHTS)
                    return true;
    return false;
}

oak_camera _oak_scene_camera_from_gltf(const oak_gltf_camera *c) {
    oak_camera cam = {0};
    cam.znear = c->znear;
    cam.zfar = c->zfar; /* 0 (infinite in glTF) takes oak's far default */
    if (c->orthographic) {
        cam.ortho_height = 2 * fabsf(c->ymag);
        if (c->ymag != 0) cam.aspect = fabsf(c->xmag / c->ymag);
    } else {
        cam.fov_y = c->yfov;
        cam.aspect = c->aspect;
    }
    return cam;
}

/* glTF's units are oak's: lux for directional lights (irradiance), candela
 * for point and spot lights (intensity / d^2). */
oak_light _oak_scene_light_from_gltf(const oak_gltf_light *l) {
    static const oak_light_type types[] = {OAK_LIGHT_DIRECTIONAL, OAK_LIGHT_POINT, OAK_LIGHT_SPOT};
    oak_light o = oak_light_defaults(types[l->type <= OAK_GLTF_LIGHT_SPOT ? l->type : 0]);
    memcpy(o.color, l->color, 12);
    o.intensity = l->intensity;
    o.range = l->range;
    o.inner_cone = l->inner_cone;
    o.outer_cone = l->outer_cone;
    return o;
}

static oak_result fail(oak_gltf_instance *inst, oak_result r) {
    oak_gltf_instance_free(inst);
    return r;
}

/* The skin the backends pose a primitive by (oak_mesh_update_pose; on the
   GPUs in compute): its 4 or 8 influences split into two sets of 4, or,
   morphed only, one joint (0, weight 1) whose rows are the identity; and
   its morph targets in play as dense deltas (position, normal, tangent).
   Fit when every weight is >= 0, each vertex's summing to 1 within 1e-3
   (oak_mesh_update_palette's rule) and every joint inside the skin; else
   the primitive is posed on the CPU into the mesh's vertices (false). */
typedef struct pose_streams {
    uint16_t *joints, *joints1;
    float *weights, *weights1, *targets;
    uint32_t target_count;
} pose_streams;

static void pose_streams_free(pose_streams *ps) {
    oak_free(ps->joints), oak_free(ps->joints1), oak_free(ps->weights), oak_free(ps->weights1);
    oak_free(ps->targets);
}

static oak_result palette_posed(const oak_gltf *g, const _oak_deform *d,
                                const oak_gltf_primitive *p, pose_streams *ps, bool *fit) {
    size_t n = p->vertex_count;
    uint32_t inf = d->skin >= 0 ? p->influence_count : 0;
    uint32_t tc = p->target_count && g->nodes[d->node].weight_count ? p->target_count : 0;
    *fit = false;
    if (inf != 0 && inf != 4 && inf != 8) return OAK_OK;
    ps->joints = oak_calloc(n * 4 + 1, sizeof(uint16_t));
    ps->weights = oak_calloc(n * 4 + 1, sizeof(float));
    if (inf == 8) {
        ps->joints1 = oak_alloc((n * 4 + 1) * sizeof(uint16_t));
        ps->weights1 = oak_alloc((n * 4 + 1) * sizeof(float));
    }
    if (tc) ps->targets = oak_calloc((size_t)tc * n * 9 + 1, sizeof(float));
    if (!ps->joints || !ps->weights || (inf == 8 && (!ps->joints1 || !ps->weights1)) ||
        (tc && !ps->targets))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory for posed meshes", g->path);
    for (size_t v = 0; v < n; v++) {
        if (!inf) { /* morphed only: one identity joint */
            ps->weights[4 * v] = 1;
            continue;
        }
        memcpy(ps->joints + 4 * v, p->joints + v * inf, 8);
        memcpy(ps->weights + 4 * v, p->weights + v * inf, 16);
        if (inf == 8) {
            memcpy(ps->joints1 + 4 * v, p->joints + v * inf + 4, 8);
            memcpy(ps->weights1 + 4 * v, p->weights + v * inf + 4, 16);
        }
    }
    for (uint32_t t = 0; t < tc; t++) {
        const oak_gltf_target *tg = &p->targets[t];
        const float *src[3] = {tg->positions, tg->normals, tg->tangents};
        for (size_t v = 0; v < n; v++)
            for (int s = 0; s < 3; s++)
                if (src[s])
                    memcpy(ps->targets + ((size_t)t * n + v) * 9 + 3 * s, src[s] + 3 * v, 12);
    }
    ps->target_count = tc;
    uint32_t joints = inf ? g->skins[d->skin].joint_count : 1;
    *fit = _oak_pose_skin_check(ps->joints, ps->weights, ps->joints1, ps->weights1, n, joints) == n;
    return OAK_OK;
}

static oak_result make_deform(oak_gltf_instance *inst, _oak_deform *d,
                              const oak_gltf_primitive *p) {
    size_t n = p->vertex_count;
    const oak_mesh_data *base = oak_mesh_get(p->mesh);
    oak_mesh_desc md = {.vertex_count = p->vertex_count,
                        .index_count = p->index_count,
                        .positions = p->positions,
                        .normals = p->normals,
                        .tangents = p->tangents,
                        .uv0 = base ? base->uv0 : NULL,
                        .uv1 = base ? base->uv1 : NULL,
                        .colors = base ? base->colors : NULL,
                        .indices = p->indices,
                        .name = base ? base->name : NULL};
    pose_streams ps = {0};
    bool fit;
    oak_result r = palette_posed(inst->gltf, d, p, &ps, &fit);
    d->palette = fit;
    if (r == OAK_OK && fit) { /* the rest pose with its skin and targets; the backends pose it */
        md.joints = ps.joints, md.weights = ps.weights;
        md.joints1 = ps.joints1, md.weights1 = ps.weights1;
        md.target_count = ps.target_count, md.targets = ps.targets;
        r = oak_make_mesh(&d->posed, &md);
    }
    pose_streams_free(&ps);
    if (r || fit) return r;
    d->positions = oak_alloc(n * 12);
    d->normals = oak_alloc(n * 12);
    d->tangents = oak_alloc(n * 16);
    if (!d->positions || !d->normals || !d->tangents)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory for posed meshes",
                         inst->gltf->path);
    memcpy(d->positions, p->positions, n * 12);
    memcpy(d->normals, p->normals, n * 12);
    memcpy(d->tangents, p->tangents, n * 16);
    md.positions = d->positions;
    md.normals = d->normals;
    md.tangents = d->tangents;
    return oak_make_mesh(&d->posed, &md);
}

/* Primitive p of node ni's mesh as an instance stream placed at entity e:
   one record per EXT_mesh_gpu_instancing placement in the node's space (the
   scene writes them to the world as e moves). Streams scale uniformly: a
   placement's non-uniform scale becomes the cube root of its volume, said
   once per node; skins and morph targets are not applied to placements. */
static oak_result add_instanced(oak_gltf_instance *inst, uint32_t ni, uint32_t p, oak_entity e) {
    const oak_gltf *g = inst->gltf;
    const oak_gltf_node *n = &g->nodes[ni];
    const oak_gltf_primitive *pr = &g->meshes[n->mesh].primitives[p];
    uint32_t count = n->instance_count;
    oak_instance *rec = oak_alloc(sizeof *rec * count);
    if (!rec)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory for %u placements", g->path,
                         count);
    bool uneven = false;
    for (uint32_t i = 0; i < count; i++) {
        const oak_gltf_trs *t = &n->instances[i];
        float sx = fabsf(t->scale[0]), sy = fabsf(t->scale[1]), sz = fabsf(t->scale[2]);
        float u = cbrtf(sx * sy * sz);
        uneven |=
            fabsf(sx - u) > 1e-3f * u || fabsf(sy - u) > 1e-3f * u || fabsf(sz - u) > 1e-3f * u;
        rec[i] = (oak_instance){.scale = u, .color = {1, 1, 1}};
        memcpy(rec[i].position, t->translation, sizeof rec[i].position);
        memcpy(rec[i].rotation, t->rotation, sizeof rec[i].rotation);
    }
    if (uneven && p == 0)
        oak_log_warn("%s: nodes[%u] places its mesh with non-uniform scales; instance streams "
                     "scale uniformly (the cube root of the volume)",
                     g->path, ni);
    if (needs_deform(n, pr) && p == 0)
        oak_log_warn("%s: nodes[%u]'s placements are drawn unskinned and unmorphed", g->path, ni);
    oak_stream_desc sd = {.capacity = count,
                          .lod_count = 1,
                          .lods = {{pr->mesh, 0}},
                          .material = pr->material >= 0 ? g->material_handles[pr->material]
                                                        : g->default_material};
    oak_stream *st = NULL;
    oak_result r = oak_make_stream(&st, &sd);
    if (!r) r = oak_scene_add_stream_at(inst->scene, st, e, rec, count);
    oak_free(rec);
    return r;
}

oak_result oak_gltf_instantiate(oak_gltf_instance **out, oak_scene *scene, const oak_gltf *g,
                                oak_entity parent, const char *name) {
    if (!out || !scene || !g)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_gltf_instantiate: no scene or model");
    *out = NULL;
    oak_gltf_instance *inst = oak_calloc(1, sizeof *inst);
    if (!inst) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", g->path);
    inst->scene = scene;
    inst->gltf = g;
    /* Sums in 64 bits: 65,536 nodes of a 65,536-primitive mesh must not wrap
       to 0. Each node and primitive is an entity, so the pool's slots bound them. */
    uint32_t nn = g->node_count, max_joints = 1, max_w = 4;
    uint64_t total_prims = 0, total_weights = 0;
    for (uint32_t i = 0; i < nn; i++) {
        const oak_gltf_node *n = &g->nodes[i];
        if (n->mesh >= 0) total_prims += g->meshes[n->mesh].primitive_count;
        total_weights += n->weight_count;
        if (n->weight_count > max_w) max_w = n->weight_count;
    }
    const uint64_t max_entities = 1u << OAK_HANDLE_INDEX_BITS;
    if (nn + total_prims + 1 > max_entities || total_weights > UINT32_MAX) {
        oak_free(inst);
        return oak_error(OAK_ERROR_LIMIT,
                         "%s: %u nodes placing %llu primitives (%llu morph weights) exceed a "
                         "scene's entities (%llu, OAK_HANDLE_INDEX_BITS)",
                         g->path, nn, (unsigned long long)total_prims,
                         (unsigned long long)total_weights, (unsigned long long)max_entities);
    }
    for (uint32_t s = 0; s < g->skin_count; s++)
        if (g->skins[s].joint_count > max_joints) max_joints = g->skins[s].joint_count;
    size_t nn1 = nn + 1;
    inst->nodes = oak_calloc(nn1, sizeof(oak_entity));
    inst->prim_entity = oak_calloc(nn1, sizeof(uint32_t));
    inst->prim_entities = oak_calloc(total_prims + 1, sizeof(oak_entity));
    inst->weight_base = oak_calloc(nn1, sizeof(uint32_t));
    inst->weights = oak_calloc(total_weights + 1, sizeof(float));
    inst->deforms = oak_calloc(total_prims + 1, sizeof(_oak_deform));
    inst->joint_mats = oak_calloc((size_t)max_joints * 16, sizeof(float));
    inst->joint_rows = oak_calloc((size_t)max_joints * 12 + 1, sizeof(float));
    inst->pose_t = oak_calloc(nn1 * 3, sizeof(float));
    inst->pose_r = oak_calloc(nn1 * 4, sizeof(float));
    inst->pose_s = oak_calloc(nn1 * 3, sizeof(float));
    inst->pose_w = oak_calloc(total_weights + 1, sizeof(float));
    inst->touched = oak_calloc(nn1, 1);
    inst->lod_of = oak_calloc(nn1, sizeof(uint32_t));
    inst->sample = oak_calloc(max_w, sizeof(float));
    inst->sample_ref = oak_calloc(max_w, sizeof(float));
    uint32_t *queue = oak_calloc(nn1, sizeof(uint32_t));
    uint8_t *queued = oak_calloc(nn1, 1); /* each node placed once */
    if (!inst->nodes || !inst->prim_entity || !inst->prim_entities || !inst->weight_base ||
        !inst->weights || !inst->deforms || !inst->joint_mats || !inst->joint_rows ||
        !inst->pose_t || !inst->pose_r || !inst->pose_s || !inst->pose_w || !inst->touched ||
        !inst->sample || !inst->sample_ref || !inst->lod_of || !queue || !queued) {
        oak_free(queue);
        oak_free(queued);
        return fail(inst, oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", g->path));
    }
    uint32_t wb = 0, pb = 0;
    for (uint32_t i = 0; i < nn; i++) {
        inst->weight_base[i] = wb;
        if (g->nodes[i].weight_count)
            memcpy(inst->weights + wb, g->nodes[i].weights, 4 * g->nodes[i].weight_count);
        wb += g->nodes[i].weight_count;
        inst->prim_entity[i] = pb;
        if (g->nodes[i].mesh >= 0) pb += g->meshes[g->nodes[i].mesh].primitive_count;
    }

    inst->root = oak_scene_create(scene, name ? name : "gltf");
    if (!inst->root.id) {
        oak_free(queue);
        oak_free(queued);
        return fail(inst, OAK_ERROR_OUT_OF_MEMORY);
    }
    oak_result r = OAK_OK;
    if (parent.id && (r = oak_scene_set_parent(scene, inst->root, parent))) {
        oak_free(queue);
        oak_free(queued);
        return fail(inst, r);
    }
    oak_transform id = oak_transform_identity();
    oak_scene_set_transform(scene, inst->root, &id);

    /* Parents before children: breadth first from the default scene's roots. */
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < g->root_count; i++) queued[queue[tail++] = g->roots[i]] = 1;
    while (head < tail && !r) {
        uint32_t ni = queue[head++];
        const oak_gltf_node *n = &g->nodes[ni];
        oak_entity e = oak_scene_create(scene, n->name && *n->name ? n->name : NULL);
        if (!e.id) {
            r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no entity for nodes[%u]", g->path, ni);
            break;
        }
        inst->nodes[ni] = e;
        /* an MSFT_lod level stands beside the node it replaces */
        const oak_gltf_node *beside = inst->lod_of[ni] ? &g->nodes[inst->lod_of[ni] - 1] : n;
        oak_entity pe = beside->parent >= 0 ? inst->nodes[beside->parent] : inst->root;
        if ((r = oak_scene_set_parent(scene, e, pe))) break;
        oak_transform t = node_transform(n);
        oak_scene_set_transform(scene, e, &t);
        for (uint32_t c = 0; c < n->child_count && tail < nn; c++)
            queued[queue[tail++] = n->children[c]] = 1;
        /* a node's MSFT_lod levels after it (not a level's own levels, and
           no node twice: a hostile cache may name one anywhere) */
        for (uint32_t l = 0; l < n->lod_count && tail < nn && !inst->lod_of[ni]; l++) {
            uint32_t lod = n->lod_nodes[l];
            if (queued[lod]) continue;
            queued[lod] = 1;
            inst->lod_of[lod] = ni + 1;
            queue[tail++] = lod;
        }
        if (n->camera >= 0) {
            oak_camera cam = _oak_scene_camera_from_gltf(&g->cameras[n->camera]);
            oak_scene_set_camera(scene, e, &cam);
        }
        if (n->light >= 0) {
            oak_light light = _oak_scene_light_from_gltf(&g->lights[n->light]);
            oak_scene_set_light(scene, e, &light);
        }
        if (n->mesh < 0) continue;
        const oak_gltf_mesh *m = &g->meshes[n->mesh];
        for (uint32_t p = 0; p < m->primitive_count && !r; p++) {
            const oak_gltf_primitive *pr = &m->primitives[p];
            if (!pr->mesh.id) continue;
            oak_entity pe2 = e;
            if (m->primitive_count > 1) {
                char pn[160];
                snprintf(pn, sizeof pn, "%s/%u", n->name && *n->name ? n->name : "node", p);
                pe2 = oak_scene_create(scene, pn);
                if (!pe2.id || (r = oak_scene_set_parent(scene, pe2, e))) {
                    if (!r) r = OAK_ERROR_OUT_OF_MEMORY;
                    break;
                }
                oak_scene_set_transform(scene, pe2, &id);
            }
            inst->prim_entities[inst->prim_entity[ni] + p] = pe2;
            if (n->instance_count) { /* EXT_mesh_gpu_instancing: a stream at the node */
                r = add_instanced(inst, ni, p, pe2);
                continue;
            }
            oak_mesh_renderer mr = {
                pr->mesh,
                pr->material >= 0 ? g->material_handles[pr->material] : g->default_material, 0};
            /* skinned, morphed or animated: drawn over the cached shadow
               layers each frame, never into them */
            if (needs_deform(n, pr) || node_animated(g, ni)) mr.flags |= OAK_DRAW_MOVING;
            if (needs_deform(n, pr)) {
                _oak_deform *d = &inst->deforms[inst->deform_count++];
                *d = (_oak_deform){.entity = pe2,
                                   .node = ni,
                                   .mesh = (uint32_t)n->mesh,
                                   .prim = p,
                                   .skin = pr->influence_count ? n->skin : -1};
                if ((r = make_deform(inst, d, pr))) break;
                mr.mesh = d->posed;
                oak_component dc = oak_scene_register_component(scene, OAK_DEFORM_COMPONENT,
                                                                sizeof(_oak_deform_ref));
                _oak_deform_ref *ref = oak_scene_add(scene, pe2, dc);
                if (!ref) {
                    r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no deform component", g->path);
                    break;
                }
                *ref = (_oak_deform_ref){inst, inst->deform_count - 1};
            }
            oak_scene_set_mesh_renderer(scene, pe2, &mr);
        }
    }
    oak_free(queued);
    inst->order = queue; /* parents first: the visibility walk's order */
    inst->order_count = tail;
    if (r || (r = _oak_anim_props_init(inst)) || (r = _oak_gltf_lod_init(inst)))
        return fail(inst, r);
    oak_component pc =
        oak_scene_register_component(scene, OAK_ANIM_PLAYER_COMPONENT, sizeof(oak_anim_player));
    oak_anim_player *pl = oak_scene_add(scene, inst->root, pc);
    if (!pl) return fail(inst, oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no player", g->path));
    *pl = (oak_anim_player){
        .clip = -1, .speed = 1, .blend_clip = -1, .additive_clip = -1, .instance = inst};
    *out = inst;
    return OAK_OK;
}

void oak_gltf_instance_free(oak_gltf_instance *inst) {
    if (!inst) return;
    if (inst->root.id && oak_scene_alive(inst->scene, inst->root))
        oak_scene_destroy_entity(inst->scene, inst->root);
    for (uint32_t i = 0; i < inst->deform_count; i++) {
        _oak_deform *d = &inst->deforms[i];
        if (d->posed.id) oak_destroy_mesh(d->posed);
        oak_free(d->positions);
        oak_free(d->normals);
        oak_free(d->tangents);
    }
    oak_free(inst->nodes);
    oak_free(inst->prim_entity);
    oak_free(inst->prim_entities);
    oak_free(inst->weight_base);
    oak_free(inst->weights);
    oak_free(inst->deforms);
    oak_free(inst->joint_mats);
    oak_free(inst->joint_rows);
    oak_free(inst->pose_t);
    oak_free(inst->pose_r);
    oak_free(inst->pose_s);
    oak_free(inst->pose_w);
    oak_free(inst->touched);
    oak_free(inst->sample);
    oak_free(inst->sample_ref);
    oak_free(inst->order);
    oak_free(inst->lod_of);
    _oak_gltf_lod_free(inst);
    _oak_anim_props_free(inst);
    oak_free(inst);
}

oak_entity oak_gltf_instance_root(const oak_gltf_instance *inst) {
    return inst ? inst->root : (oak_entity){0};
}

oak_entity oak_gltf_instance_node(const oak_gltf_instance *inst, uint32_t node) {
    return inst && node < inst->gltf->node_count ? inst->nodes[node] : (oak_entity){0};
}

oak_anim_player *oak_gltf_instance_player(const oak_gltf_instance *inst) {
    if (!inst) return NULL;
    oak_component pc = oak_scene_register_component(inst->scene, OAK_ANIM_PLAYER_COMPONENT,
                                                    sizeof(oak_anim_player));
    return oak_scene_get(inst->scene, inst->root, pc);
}

float *oak_gltf_instance_weights(const oak_gltf_instance *inst, uint32_t node, uint32_t *count) {
    if (count) *count = 0;
    if (!inst || node >= inst->gltf->node_count || !inst->gltf->nodes[node].weight_count)
        return NULL;
    if (count) *count = inst->gltf->nodes[node].weight_count;
    return inst->weights + inst->weight_base[node];
}

oak_mesh oak_gltf_instance_mesh(const oak_gltf_instance *inst, uint32_t node, uint32_t prim) {
    if (!inst || node >= inst->gltf->node_count || inst->gltf->nodes[node].mesh < 0)
        return (oak_mesh){0};
    const oak_gltf_mesh *m = &inst->gltf->meshes[inst->gltf->nodes[node].mesh];
    if (prim >= m->primitive_count) return (oak_mesh){0};
    for (uint32_t i = 0; i < inst->deform_count; i++)
        if (inst->deforms[i].node == node && inst->deforms[i].prim == prim)
            return inst->deforms[i].posed;
    return m->primitives[prim].mesh;
}

uint32_t oak_gltf_instance_points(const oak_gltf_instance *inst, float *xyz, uint32_t capacity) {
    if (!inst) return 0;
    const oak_gltf *g = inst->gltf;
    uint64_t count = 0; /* saturates at UINT32_MAX below rather than wrapping */
    for (uint32_t i = 0; i < g->node_count; i++) {
        if (!inst->nodes[i].id || g->nodes[i].mesh < 0) continue;
        const oak_gltf_mesh *m = &g->meshes[g->nodes[i].mesh];
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            const oak_mesh_data *md = oak_mesh_get(oak_gltf_instance_mesh(inst, i, p));
            oak_entity e = inst->prim_entities[inst->prim_entity[i] + p];
            if (!md || !e.id) continue;
            mat4 w;
            oak_scene_world_matrix(inst->scene, e, w);
            for (uint32_t v = 0; v < md->vertex_count; v++, count++) {
                if (count >= capacity || !xyz) continue;
                vec3 pv;
                if (md->palette) /* posed by its palette: as every backend poses it */
                    _oak_pose_vertex(md, false, v, pv, NULL, NULL);
                else
                    memcpy(pv, md->positions + 3 * v, 12);
                glm_mat4_mulv3(w, pv, 1.0f, pv);
                memcpy(xyz + 3 * (size_t)count, pv, 12);
            }
        }
    }
    return count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
}

int32_t oak_gltf_find_variant(const oak_gltf *g, const char *key) {
    if (!g || !key || !*key) return -1;
    for (uint32_t i = 0; i < g->variant_count; i++)
        if (strcmp(g->variant_names[i], key) == 0) return (int32_t)i;
    char *end;
    long v = strtol(key, &end, 10);
    return *end == 0 && v >= 0 && v < (long)g->variant_count ? (int32_t)v : -1;
}

oak_result oak_gltf_instance_set_variant(oak_gltf_instance *inst, int32_t variant) {
    if (!inst) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_gltf_instance_set_variant: NULL");
    const oak_gltf *g = inst->gltf;
    if (variant < -1 || (variant >= 0 && (uint32_t)variant >= g->variant_count))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: no variant %d (%u variants)", g->path,
                         variant, g->variant_count);
    for (uint32_t n = 0; n < g->node_count; n++) {
        if (!inst->nodes[n].id || g->nodes[n].mesh < 0) continue;
        const oak_gltf_mesh *m = &g->meshes[g->nodes[n].mesh];
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            const oak_gltf_primitive *pr = &m->primitives[p];
            oak_entity e = inst->prim_entities[inst->prim_entity[n] + p];
            oak_mesh_renderer *mr =
                e.id ? oak_scene_get(inst->scene, e, OAK_COMPONENT_MESH_RENDERER) : NULL;
            if (!mr) continue;
            int32_t mat = variant >= 0 && pr->variant_material ? pr->variant_material[variant] : -1;
            if (mat < 0) mat = pr->material;
            mr->material = mat >= 0 ? g->material_handles[mat] : g->default_material;
        }
    }
    return OAK_OK;
}
