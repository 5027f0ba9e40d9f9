/* What a placed glTF animates besides node transforms and morph weights
 * (KHR_animation_pointer, KHR_node_visibility): a pose of its materials,
 * lights, cameras and node visibility, reset to rest each update, written
 * by the clips through _oak_anim_prop_slot and pushed to the registry and
 * the scene by _oak_anim_props_apply. */
#include <math.h>
#include <string.h>

#include "anim_internal.h"

static float clampf(float v, float lo, float hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

oak_result _oak_anim_props_init(oak_gltf_instance *inst) {
    const oak_gltf *g = inst->gltf;
    size_t nm = g->material_count + 1, nl = g->light_count + 1, nc = g->camera_count + 1;
    size_t nn = g->node_count + 1;
    inst->mat_pose = oak_calloc(nm, sizeof(oak_material_desc));
    inst->mat_applied = oak_calloc(nm, sizeof(oak_material_desc));
    inst->light_pose = oak_calloc(nl, sizeof(oak_gltf_light));
    inst->cam_pose = oak_calloc(nc, sizeof(oak_gltf_camera));
    inst->vis_pose = oak_calloc(nn, sizeof(float));
    inst->shown = oak_calloc(nn, 1);
    inst->shown_next = oak_calloc(nn, 1);
    if (!inst->mat_pose || !inst->mat_applied || !inst->light_pose || !inst->cam_pose ||
        !inst->vis_pose || !inst->shown || !inst->shown_next)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", g->path);
    for (uint32_t i = 0; i < g->material_count; i++) inst->mat_applied[i] = g->materials[i].desc;
    for (uint32_t i = 0; i < g->node_count; i++) inst->shown[i] = 1;
    for (uint32_t c = 0; c < g->clip_count; c++)
        for (uint32_t k = 0; k < g->clips[c].channel_count; k++)
            if (g->clips[c].channels[k].path > OAK_ANIM_PATH_WEIGHTS) inst->has_props = true;
    _oak_anim_props_reset(inst);
    _oak_anim_props_apply(inst);
    return OAK_OK;
}

void _oak_anim_props_free(oak_gltf_instance *inst) {
    oak_free(inst->mat_pose);
    oak_free(inst->mat_applied);
    oak_free(inst->light_pose);
    oak_free(inst->cam_pose);
    oak_free(inst->vis_pose);
    oak_free(inst->shown);
    oak_free(inst->shown_next);
}

void _oak_anim_props_reset(oak_gltf_instance *inst) {
    const oak_gltf *g = inst->gltf;
    for (uint32_t i = 0; i < g->material_count; i++) inst->mat_pose[i] = g->materials[i].desc;
    if (g->light_count) memcpy(inst->light_pose, g->lights, g->light_count * sizeof *g->lights);
    if (g->camera_count) memcpy(inst->cam_pose, g->cameras, g->camera_count * sizeof *g->cameras);
    for (uint32_t i = 0; i < g->node_count; i++) inst->vis_pose[i] = g->nodes[i].visible ? 1 : 0;
}

float *_oak_anim_prop_slot(oak_gltf_instance *inst, const oak_gltf_channel *ch) {
    uint32_t i = ch->node;
    oak_material_desc *m = &inst->mat_pose[i];
    oak_gltf_light *l = &inst->light_pose[i];
    oak_gltf_camera *c = &inst->cam_pose[i];
    switch (ch->path) {
    case OAK_ANIM_PATH_VISIBLE:
        return &inst->vis_pose[i];
    case OAK_ANIM_PATH_BASE_COLOR:
        return m->base_color;
    case OAK_ANIM_PATH_METALLIC:
        return &m->metallic;
    case OAK_ANIM_PATH_ROUGHNESS:
        return &m->roughness;
    case OAK_ANIM_PATH_EMISSIVE:
        return m->emissive;
    case OAK_ANIM_PATH_EMISSIVE_STRENGTH:
        return &m->emissive_strength;
    case OAK_ANIM_PATH_ALPHA_CUTOFF:
        return &m->alpha_cutoff;
    case OAK_ANIM_PATH_NORMAL_SCALE:
        return &m->normal_scale;
    case OAK_ANIM_PATH_OCCLUSION_STRENGTH:
        return &m->occlusion_strength;
    case OAK_ANIM_PATH_LIGHT_COLOR:
        return l->color;
    case OAK_ANIM_PATH_LIGHT_INTENSITY:
        return &l->intensity;
    case OAK_ANIM_PATH_LIGHT_RANGE:
        return &l->range;
    case OAK_ANIM_PATH_LIGHT_INNER_CONE:
        return &l->inner_cone;
    case OAK_ANIM_PATH_LIGHT_OUTER_CONE:
        return &l->outer_cone;
    case OAK_ANIM_PATH_CAMERA_YFOV:
        return &c->yfov;
    case OAK_ANIM_PATH_CAMERA_ASPECT:
        return &c->aspect;
    case OAK_ANIM_PATH_CAMERA_XMAG:
        return &c->xmag;
    case OAK_ANIM_PATH_CAMERA_YMAG:
        return &c->ymag;
    case OAK_ANIM_PATH_CAMERA_ZNEAR:
        return &c->znear;
    case OAK_ANIM_PATH_CAMERA_ZFAR:
        return &c->zfar;
    default:
        return NULL;
    }
}

/* Keys MUST hold valid values (the extension says so); a clip that
   overshoots (CUBICSPLINE, an additive layer) is held to the ranges the
   loader holds rest values to, so no shader sees a negative roughness. */
static void clamp_material(oak_material_desc *m) {
    for (int k = 0; k < 4; k++) m->base_color[k] = clampf(m->base_color[k], 0, 1);
    for (int k = 0; k < 3; k++) m->emissive[k] = clampf(m->emissive[k], 0, 1);
    m->metallic = clampf(m->metallic, 0, 1);
    m->roughness = clampf(m->roughness, 0, 1);
    m->emissive_strength = clampf(m->emissive_strength, 0, 1e30f);
    m->alpha_cutoff = clampf(m->alpha_cutoff, 0, 1);
    m->occlusion_strength = clampf(m->occlusion_strength, 0, 1);
}

static void set_hidden(oak_gltf_instance *inst, uint32_t n, bool hidden) {
    const oak_gltf *g = inst->gltf;
    oak_scene *scene = inst->scene;
    if (g->nodes[n].mesh >= 0) {
        const oak_gltf_mesh *m = &g->meshes[g->nodes[n].mesh];
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            oak_entity e = inst->prim_entities[inst->prim_entity[n] + p];
            oak_mesh_renderer *mr =
                e.id ? oak_scene_get(scene, e, OAK_COMPONENT_MESH_RENDERER) : NULL;
            if (!mr) continue;
            mr->flags = hidden ? mr->flags | OAK_DRAW_HIDDEN : mr->flags & ~OAK_DRAW_HIDDEN;
        }
    }
    /* a hidden node's light goes out; its camera still sees (the extension) */
    if (g->nodes[n].light >= 0 && hidden)
        oak_scene_remove(scene, inst->nodes[n], OAK_COMPONENT_LIGHT);
}

void _oak_anim_props_apply(oak_gltf_instance *inst) {
    const oak_gltf *g = inst->gltf;
    oak_scene *scene = inst->scene;
    for (uint32_t i = 0; i < g->material_count; i++) {
        oak_material_desc *m = &inst->mat_pose[i];
        clamp_material(m);
        if (!g->material_handles || !g->material_handles[i].id ||
            memcmp(m, &inst->mat_applied[i], sizeof *m) == 0)
            continue;
        /* the registry's material is the model's, shared by every instance
           of it: the last instance updated wins (docs/GLTF.md) */
        if (oak_material_update(g->material_handles[i], m) == OAK_OK) inst->mat_applied[i] = *m;
    }
    /* shown: visible itself and under a shown parent, parents first */
    for (uint32_t k = 0; k < inst->order_count; k++) {
        uint32_t n = inst->order[k];
        int32_t parent = g->nodes[n].parent;
        inst->shown_next[n] = inst->vis_pose[n] > 0.5f && (parent < 0 || inst->shown_next[parent]);
    }
    for (uint32_t k = 0; k < inst->order_count; k++) {
        uint32_t n = inst->order[k];
        bool shown = inst->shown_next[n];
        if (shown != (inst->shown[n] != 0)) set_hidden(inst, n, !shown);
        inst->shown[n] = shown;
        const oak_gltf_node *gn = &g->nodes[n];
        if (gn->light >= 0 && shown) {
            oak_gltf_light l = inst->light_pose[gn->light];
            l.intensity = clampf(l.intensity, 0, 1e30f);
            l.range = clampf(l.range, 0, 1e30f);
            l.outer_cone = clampf(l.outer_cone, 0, OAK_PI / 2);
            l.inner_cone = clampf(l.inner_cone, 0, l.outer_cone);
            oak_light light = _oak_scene_light_from_gltf(&l);
            oak_scene_set_light(scene, inst->nodes[n], &light);
        }
        if (gn->camera >= 0 && inst->has_props) {
            oak_gltf_camera c = inst->cam_pose[gn->camera];
            c.yfov = clampf(c.yfov, 1e-4f, OAK_PI - 1e-4f);
            c.znear = clampf(c.znear, 0, 1e30f);
            c.zfar = c.zfar > c.znear ? c.zfar : 0;
            oak_camera cam = _oak_scene_camera_from_gltf(&c);
            oak_scene_set_camera(scene, inst->nodes[n], &cam);
        }
    }
}
