/* Private layout of a placed glTF: node entities, the posed (deformed)
 * primitives with their output streams, morph weights, and the scratch the
 * animation and deform systems reuse every frame so they allocate nothing. */
#ifndef OAK_ANIM_INTERNAL_H
#define OAK_ANIM_INTERNAL_H

#include <oak/anim.h>

/* One primitive drawn through a mesh of its own, posed each frame. */
typedef struct _oak_deform {
    oak_entity entity;
    uint32_t node, mesh, prim;
    int32_t skin; /* -1: morph only */
    /* posed by its palette and morph weights (oak_mesh_update_pose): the
       mesh keeps the rest pose, joints and targets and the backends pose
       it; else (weights that fail the check) posed here into the streams */
    bool palette;
    oak_mesh posed;
    float *positions, *normals, *tangents; /* output streams (CPU-posed only) */
} _oak_deform;

/* The component each posed primitive's entity carries: the deform system
 * walks this column. */
typedef struct _oak_deform_ref {
    oak_gltf_instance *inst;
    uint32_t index;
} _oak_deform_ref;

struct oak_gltf_instance {
    oak_scene *scene;
    const oak_gltf *gltf;
    oak_entity root;
    oak_entity *nodes;     /* per node; id 0 outside the default scene */
    uint32_t *prim_entity; /* per node: first index into prim_entities */
    oak_entity *prim_entities;
    uint32_t *weight_base; /* per node: offset into weights */
    float *weights;        /* every node's morph weights */
    _oak_deform *deforms;
    uint32_t deform_count;
    float *joint_mats; /* 16 floats per joint of the largest skin */
    float *joint_rows; /* the same as 3 x 4 rows (12 floats), for palettes */
    /* the animation system's pose accumulators */
    float *pose_t, *pose_r, *pose_s, *pose_w;
    uint8_t *touched;
    float *sample, *sample_ref; /* one sampler value (and its reference) */
    /* the pose of what KHR_animation_pointer moves besides transforms
       (anim_props.c): per material, light, camera and node */
    bool has_props; /* some clip animates one of them */
    oak_material_desc *mat_pose, *mat_applied;
    oak_gltf_light *light_pose;
    oak_gltf_camera *cam_pose;
    float *vis_pose; /* KHR_node_visibility: > 0.5 visible */
    uint8_t *shown;  /* visible and under visible parents, as last applied */
    uint8_t *shown_next;
    uint32_t *order; /* the placed nodes, parents first */
    uint32_t order_count;
    /* MSFT_lod (gltf_lod.c): per node 1 + the node it stands for at lower
       detail (0: none); the groups, and each level's mesh entities */
    uint32_t *lod_of;
    struct _oak_lod_group *lod_groups;
    uint32_t lod_group_count;
    oak_entity *lod_entities;
};

/* MSFT_lod's groups once the nodes are placed, and their memory (gltf_lod.c) */
oak_result _oak_gltf_lod_init(oak_gltf_instance *inst);
void _oak_gltf_lod_free(oak_gltf_instance *inst);

/* glTF's cameras and lights as oak's components (gltf_scene.c). */
oak_camera _oak_scene_camera_from_gltf(const oak_gltf_camera *c);
oak_light _oak_scene_light_from_gltf(const oak_gltf_light *l);

/* anim_props.c */
oak_result _oak_anim_props_init(oak_gltf_instance *inst);
void _oak_anim_props_free(oak_gltf_instance *inst);
void _oak_anim_props_reset(oak_gltf_instance *inst);
/* Where a channel of a path past OAK_ANIM_PATH_WEIGHTS writes its value. */
float *_oak_anim_prop_slot(oak_gltf_instance *inst, const oak_gltf_channel *ch);
void _oak_anim_props_apply(oak_gltf_instance *inst);

#define OAK_ANIM_PLAYER_COMPONENT "oak.anim_player"
#define OAK_DEFORM_COMPONENT      "oak.gltf_deform"

#endif
