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
    oak_mesh posed;
    float *positions, *normals, *tangents; /* output streams */
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
    /* the animation system's pose accumulators */
    float *pose_t, *pose_r, *pose_s, *pose_w;
    uint8_t *touched;
    float *sample, *sample_ref; /* one sampler value (and its reference) */
};

#define OAK_ANIM_PLAYER_COMPONENT "oak.anim_player"
#define OAK_DEFORM_COMPONENT      "oak.gltf_deform"

#endif
