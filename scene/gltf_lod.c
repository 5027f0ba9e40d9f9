/* MSFT_lod on the scene side: a placed node with levels is a group; each
 * frame the gather measures the group's screen coverage from the camera (its
 * highest level's bounding sphere, projected: diameter over the view's
 * height) and shows one level, the first whose MSFT_screencoverage value the
 * coverage reaches (none below the last; the highest alone without values),
 * by marking every other level's mesh draws hidden in that frame's flags. */
#include <math.h>
#include <string.h>

#include "anim_internal.h"
#include "scene_internal.h"

#define OAK_LOD_COMPONENT "gltf_lod"

typedef struct _oak_lod_group {
    uint32_t node;                        /* the highest level */
    uint32_t levels;                      /* 1 + its lod_count */
    uint32_t first[OAK_GLTF_LOD_MAX + 2]; /* level l's mesh entities: [first[l], first[l + 1]) */
    float centre[3], radius;              /* the highest level's mesh sphere, in its node's space */
} _oak_lod_group;

typedef struct _oak_lod_ref {
    const oak_gltf_instance *inst;
    uint32_t group;
} _oak_lod_ref;

/* the mesh entities of node ni's subtree, appended at *n (a walk with the
   placed order: children come after their parents) */
static void collect(const oak_gltf_instance *inst, uint32_t ni, uint32_t *stack, oak_entity *out,
                    uint32_t *n, uint32_t cap) {
    const oak_gltf *g = inst->gltf;
    uint32_t top = 0;
    stack[top++] = ni;
    while (top) {
        uint32_t k = stack[--top];
        const oak_gltf_node *nd = &g->nodes[k];
        if (nd->mesh >= 0 && !nd->instance_count)
            for (uint32_t p = 0; p < g->meshes[nd->mesh].primitive_count && *n < cap; p++) {
                oak_entity e = inst->prim_entities[inst->prim_entity[k] + p];
                if (e.id) out[(*n)++] = e;
            }
        for (uint32_t c = 0; c < nd->child_count; c++) stack[top++] = nd->children[c];
    }
}

/* a subtree's mesh primitives; stack holds node_count (a tree pushes each
   node once) */
static uint32_t subtree_meshes(const oak_gltf *g, uint32_t ni, uint32_t *stack) {
    uint32_t top = 0, n = 0;
    stack[top++] = ni;
    while (top) {
        const oak_gltf_node *nd = &g->nodes[stack[--top]];
        if (nd->mesh >= 0 && !nd->instance_count) n += g->meshes[nd->mesh].primitive_count;
        for (uint32_t c = 0; c < nd->child_count; c++) stack[top++] = nd->children[c];
    }
    return n;
}

oak_result _oak_gltf_lod_init(oak_gltf_instance *inst) {
    const oak_gltf *g = inst->gltf;
    uint32_t groups = 0, total = 0;
    for (uint32_t i = 0; i < g->node_count; i++) groups += g->nodes[i].lod_count > 0;
    if (!groups) return OAK_OK;
    uint32_t *stack = oak_alloc(sizeof(uint32_t) * (g->node_count + 1));
    if (!stack) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory for LOD groups", g->path);
    groups = 0;
    for (uint32_t i = 0; i < g->node_count; i++) {
        const oak_gltf_node *n = &g->nodes[i];
        if (!n->lod_count || !inst->nodes[i].id || inst->lod_of[i]) continue;
        groups++;
        total += subtree_meshes(g, i, stack);
        for (uint32_t l = 0; l < n->lod_count; l++)
            if (inst->lod_of[n->lod_nodes[l]] == i + 1)
                total += subtree_meshes(g, n->lod_nodes[l], stack);
    }
    oak_scene *scene = inst->scene;
    oak_component lc = OAK_COMPONENT_INVALID;
    if (groups) {
        inst->lod_groups = oak_calloc(groups, sizeof *inst->lod_groups);
        inst->lod_entities = oak_calloc(total + 1, sizeof *inst->lod_entities);
        lc = oak_scene_register_component(scene, OAK_LOD_COMPONENT, sizeof(_oak_lod_ref));
    }
    if (groups && (!inst->lod_groups || !inst->lod_entities || lc == OAK_COMPONENT_INVALID)) {
        oak_free(stack);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory for LOD groups", g->path);
    }
    if (groups) scene->lod_component = lc;
    uint32_t at = 0;
    for (uint32_t i = 0; i < g->node_count && groups; i++) {
        const oak_gltf_node *n = &g->nodes[i];
        if (!n->lod_count || !inst->nodes[i].id || inst->lod_of[i]) continue;
        _oak_lod_group *gr = &inst->lod_groups[inst->lod_group_count];
        gr->node = i;
        gr->levels = 1;
        gr->first[0] = at;
        collect(inst, i, stack, inst->lod_entities, &at, total);
        for (uint32_t l = 0; l < n->lod_count; l++) {
            gr->first[gr->levels] = at;
            if (inst->lod_of[n->lod_nodes[l]] == i + 1)
                collect(inst, n->lod_nodes[l], stack, inst->lod_entities, &at, total);
            gr->levels++;
        }
        gr->first[gr->levels] = at;
        /* the sphere round the highest level's own mesh (1 m at the node
           without one) */
        oak_bounds b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
        if (n->mesh >= 0)
            for (uint32_t p = 0; p < g->meshes[n->mesh].primitive_count; p++)
                for (int k = 0; k < 3; k++) {
                    const oak_bounds *pb = &g->meshes[n->mesh].primitives[p].bounds;
                    if (pb->min[k] < b.min[k]) b.min[k] = pb->min[k];
                    if (pb->max[k] > b.max[k]) b.max[k] = pb->max[k];
                }
        float r2 = 0;
        for (int k = 0; k < 3; k++) {
            bool some = b.min[k] <= b.max[k];
            gr->centre[k] = some ? 0.5f * (b.min[k] + b.max[k]) : 0;
            float h = some ? 0.5f * (b.max[k] - b.min[k]) : 0;
            r2 += h * h;
        }
        gr->radius = r2 > 0 ? sqrtf(r2) : 1.0f;
        _oak_lod_ref *ref = oak_scene_add(scene, inst->nodes[i], lc);
        if (!ref) {
            oak_free(stack);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no LOD component", g->path);
        }
        *ref = (_oak_lod_ref){inst, inst->lod_group_count++};
    }
    oak_free(stack);
    return OAK_OK;
}

void _oak_gltf_lod_free(oak_gltf_instance *inst) {
    oak_free(inst->lod_groups);
    oak_free(inst->lod_entities);
}

/* the level a group shows at coverage c; levels: none (below the last) */
static uint32_t pick(const oak_gltf_node *n, float c, uint32_t levels) {
    if (!n->lod_coverage_count) return 0;
    for (uint32_t l = 0; l < n->lod_coverage_count && l < levels; l++)
        if (c >= n->lod_coverage[l]) return l;
    return levels;
}

void _oak_scene_lod_select(oak_scene *scene, const oak_frame_input *in, uint32_t *flags) {
    oak_component lc = scene->lod_component;
    if (lc == OAK_COMPONENT_INVALID) return;
    oak_column col = oak_scene_column(scene, lc);
    oak_column mr = oak_scene_column(scene, OAK_COMPONENT_MESH_RENDERER);
    const float *cam = in->camera_world[3];
    float fov = in->camera.fov_y > 0 ? in->camera.fov_y : (float)(OAK_PI / 3);
    float t = tanf(0.5f * fov);
    for (uint32_t i = 0; i < col.count; i++) {
        const _oak_lod_ref *ref = (const _oak_lod_ref *)((const char *)col.data + i * col.stride);
        const oak_gltf_instance *inst = ref->inst;
        const _oak_lod_group *gr = &inst->lod_groups[ref->group];
        mat4 w;
        oak_scene_world_matrix(scene, col.entities[i], w);
        float c[3], s = 0, d2 = 0;
        for (int k = 0; k < 3; k++) {
            c[k] = w[0][k] * gr->centre[0] + w[1][k] * gr->centre[1] + w[2][k] * gr->centre[2] +
                   w[3][k];
            float l = sqrtf(w[k][0] * w[k][0] + w[k][1] * w[k][1] + w[k][2] * w[k][2]);
            if (l > s) s = l;
            d2 += (c[k] - cam[k]) * (c[k] - cam[k]);
        }
        float r = gr->radius * s, d = sqrtf(d2);
        float cover = in->camera.ortho_height > 0 ? 2.0f * r / in->camera.ortho_height
                      : d <= r                    ? 1.0f
                                                  : r / (d * t);
        uint32_t show = pick(&inst->gltf->nodes[gr->node], cover, gr->levels);
        for (uint32_t l = 0; l < gr->levels; l++) {
            if (l == show) continue;
            for (uint32_t k = gr->first[l]; k < gr->first[l + 1]; k++) {
                const void *m =
                    oak_scene_get(scene, inst->lod_entities[k], OAK_COMPONENT_MESH_RENDERER);
                if (!m) continue;
                size_t at = (size_t)((const char *)m - (const char *)mr.data) / mr.stride;
                if (at < mr.count) flags[at] |= OAK_DRAW_HIDDEN;
            }
        }
    }
}
