/* oak animation in the scene: a loaded glTF placed as entities (one per
 * node, so joints are ordinary nodes), the animation player component and
 * the system that samples it (play, loop, set time, a blended second clip, an
 * additive layer), the skin and morph system that poses a per-instance mesh
 * on the job pool, and camera framing of posed models. */
#ifndef OAK_ANIM_H
#define OAK_ANIM_H

#include "gltf.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oak_gltf_instance oak_gltf_instance;

/* The player, a component on the instance's root entity. Change its fields
 * directly or through the helpers; oak_anim_update advances and applies it. */
typedef struct oak_anim_player {
    int32_t clip;       /* -1: none (the rest pose) */
    float time;         /* seconds on the clip's own timeline */
    float speed;        /* multiplies dt; oak_anim_play sets 1 */
    bool playing;       /* time advances in oak_anim_update */
    bool loop;          /* wraps at the clip's end; else holds the last frame */
    int32_t blend_clip; /* -1: none; blended over clip by blend_weight in [0,1] */
    float blend_time, blend_weight;
    int32_t additive_clip; /* -1: none; its change from its first frame is added */
    float additive_time, additive_weight;
    oak_gltf_instance *instance; /* set when instantiated; do not change */
} oak_anim_player;

/* Entities for the default scene of gltf under parent: one per node with its
 * TRS and name, mesh renderers (a skinned or morphed primitive draws a mesh
 * of its own, posed by oak_skin_update), cameras and lights, and the player
 * on the root. The gltf must outlive the instance. */
oak_result oak_gltf_instantiate(oak_gltf_instance **out, oak_scene *scene, const oak_gltf *gltf,
                                oak_entity parent, const char *name);
/* Destroys the instance's entities and its posed meshes. */
void oak_gltf_instance_free(oak_gltf_instance *inst);
oak_entity oak_gltf_instance_root(const oak_gltf_instance *inst);
oak_entity oak_gltf_instance_node(const oak_gltf_instance *inst, uint32_t node); /* id 0 if none */
oak_anim_player *oak_gltf_instance_player(const oak_gltf_instance *inst);
/* The node's morph weights (count = its mesh's targets), for user code to
 * drive when no clip does; NULL if the node has none. */
float *oak_gltf_instance_weights(const oak_gltf_instance *inst, uint32_t node, uint32_t *count);
/* The posed mesh drawn for a primitive of a node, or the shared one. */
oak_mesh oak_gltf_instance_mesh(const oak_gltf_instance *inst, uint32_t node, uint32_t primitive);

/* KHR_materials_variants: every primitive of the instance takes the
   material the variant maps for it, or its own where the variant maps none
   (and for variant -1). A variant past the file's list is an error. */
oak_result oak_gltf_instance_set_variant(oak_gltf_instance *inst, int32_t variant);
/* Variant by name, or by decimal index; -1 if none matches. */
int32_t oak_gltf_find_variant(const oak_gltf *gltf, const char *name_or_index);

/* Clip by name, or by decimal index; -1 if none matches. */
int32_t oak_gltf_find_clip(const oak_gltf *gltf, const char *name_or_index);
void oak_anim_play(oak_anim_player *player, int32_t clip, bool loop);
void oak_anim_set_time(oak_anim_player *player, float time);

/* The animation system: every player's time moves on by dt * speed, then
 * its clips are sampled into its nodes' transforms and morph weights. */
void oak_anim_update(oak_scene *scene, float dt);
/* The deform system: updates transforms, then morphs and skins every posed
 * primitive on the job pool and writes it in place (oak_mesh_update_vertices), so
 * every backend draws it unchanged and its bounds follow the pose. */
oak_result oak_skin_update(oak_scene *scene);

/* World-space positions of every drawn vertex of the instance as last posed
 * (after oak_skin_update); returns how many, writing at most capacity. */
uint32_t oak_gltf_instance_points(const oak_gltf_instance *inst, float *xyz, uint32_t capacity);

/* ---- framing ---------------------------------------------------------- */

typedef struct oak_framing {
    float yaw, pitch; /* radians: yaw about +Y from looking down -Z, pitch down from level */
    float share;      /* of the frame's height the points span; 0: 0.55 */
    float fov_y;      /* 0: 60 degrees */
    float aspect;     /* width / height; 0: 1 */
} oak_framing;

/* Places a perspective camera looking along yaw/pitch so the points' projected
 * vertical span is exactly share of the frame, centred both ways; near and
 * far planes are fitted around the points. */
oak_result oak_frame_points(oak_transform *camera_transform, oak_camera *camera, const float *xyz,
                            uint32_t count, const oak_framing *framing);

#ifdef __cplusplus
}
#endif
#endif
