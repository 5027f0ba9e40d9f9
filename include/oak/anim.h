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

/* ---- pose banks (crowds: docs/ARCHITECTURE.md "Pose banks") ------------ */

/* Each clip of a skinned glTF sampled once at `rate` frames a second into
   joint palettes, the matrices oak_skin_update builds for the same pose
   (inverse mesh-node world x joint world x inverse bind), stored as 3 x 4
   rows (12 floats) per joint so a shader poses a vertex with three dot
   products. Unless keep_root_motion, the root joint's travel over each clip
   (first key to last, on the x-z ground) is taken out linearly in time:
   the figure walks on the spot, the loop closes without a snap, and the
   travel comes back as oak_pose_bank_speed for the simulation (kept, it
   stays in the poses and the pace still reports it: a simulation posing
   from such a bank must not move the figure as well). */
typedef struct oak_pose_bank oak_pose_bank;
typedef struct oak_pose_bank_desc {
    const oak_gltf *gltf; /* read while making the bank only */
    uint32_t skin;
    uint32_t clip_count;  /* 1 .. OAK_POSE_BANK_MAX_CLIPS */
    const int32_t *clips; /* indices into gltf->clips; bank clip k is clips[k] */
    float rate;           /* frames a second; 0: OAK_POSE_BANK_RATE */
    bool keep_root_motion;
} oak_pose_bank_desc;
oak_result oak_make_pose_bank(oak_pose_bank **out, const oak_pose_bank_desc *desc);
void oak_destroy_pose_bank(oak_pose_bank *bank);
uint32_t oak_pose_bank_joints(const oak_pose_bank *bank);
uint32_t oak_pose_bank_clips(const oak_pose_bank *bank);
/* frames of bank clip k, spread evenly over the clip, the last on its end */
uint32_t oak_pose_bank_frames(const oak_pose_bank *bank, uint32_t clip);
uint32_t oak_pose_bank_first_frame(const oak_pose_bank *bank, uint32_t clip); /* in data */
float oak_pose_bank_duration(const oak_pose_bank *bank, uint32_t clip);       /* seconds */
/* The pace a figure moves at: the travel taken out over the clip's
   duration, or for a clip made on the spot the ground speed that keeps its
   planted foot still (the lowest joint's, median over the frames it stays
   lowest); metres a second along direction (unit, x-z). */
float oak_pose_bank_speed(const oak_pose_bank *bank, uint32_t clip, float direction[3]);
/* The offset taken out at t seconds (t / duration of the travel). */
void oak_pose_bank_offset(const oak_pose_bank *bank, uint32_t clip, float t, float out[3]);
/* The palette at t seconds of a clip (wrapped: banks loop), between its two
   nearest frames: joints x 12 floats. */
void oak_pose_bank_sample(const oak_pose_bank *bank, uint32_t clip, float t, float *palette);
/* w of clip b at tb over (1 - w) of clip a at ta: palettes blended, which
   blends the posed vertices (skinning is linear in the matrices). */
void oak_pose_bank_blend(const oak_pose_bank *bank, uint32_t clip_a, float ta, uint32_t clip_b,
                         float tb, float w, float *palette);
/* Every frame's palette, frame-major (frames x joints x 12 floats), for a
   GPU upload. */
const float *oak_pose_bank_data(const oak_pose_bank *bank, size_t *floats);

/* ---- two-bone foot IK on bank palettes (docs/WORLD.md "Crowds") ------- */

/* A leg: three joints by name, each the next one's parent or ancestor: the
   upper bone's (thigh, upper arm), the lower's (shin, forearm) and the
   foot's, whose subtree (the foot and its toes) moves rigidly. */
typedef struct oak_foot_leg {
    const char *upper, *lower, *foot;
} oak_foot_leg;
#define OAK_FOOT_IK_MAX_LEGS 8
typedef struct oak_foot_rig oak_foot_rig;
typedef struct oak_foot_rig_desc {
    const oak_gltf *gltf; /* read while making the rig only */
    uint32_t skin;
    oak_mesh mesh;              /* the skinned mesh: a sole is the vertices its foot leads */
    const oak_pose_bank *bank;  /* palettes of this skin; each sole's lowest over it */
    uint32_t leg_count;         /* 1 .. OAK_FOOT_IK_MAX_LEGS */
    const oak_foot_leg *legs;
    /* mesh units over its lowest in the clip (a blend: its clips' lerped)
       a sole may stand and still count as planted: weight 1 up to half of
       it, falling to 0 at it; 0: OAK_FOOT_IK_WINDOW of the mesh's height */
    float plant_window;
    /* the most the hips may drop for a leg that cannot reach, as a share of
       that leg's reach; 0: OAK_FOOT_IK_MAX_DROP */
    float max_drop;
} oak_foot_rig_desc;
oak_result oak_make_foot_rig(oak_foot_rig **out, const oak_foot_rig_desc *desc);
void oak_destroy_foot_rig(oak_foot_rig *rig);
/* The ground's height at world (x, z); must be thread-safe. */
typedef float (*oak_ground_fn)(void *user, float x, float z);
/* What a solve did (any pointer may be NULL). */
typedef struct oak_foot_ik_info {
    float weight[OAK_FOOT_IK_MAX_LEGS]; /* how planted each foot was, 0 .. 1 */
    float lift[OAK_FOOT_IK_MAX_LEGS];   /* metres each foot moved up (down < 0) */
    float clearance[OAK_FOOT_IK_MAX_LEGS]; /* metres its sole stood above the ground before */
    float drop;                           /* metres the hips dropped */
} oak_foot_ik_info;
/* Palette (joints x 12 floats, mesh space, the bank pose at rec's phase,
   whose clips say where planted is; the instance placed by rec: turned
   about +y, uniform scale) adjusted in place so each
   planted sole touches the ground: the foot moved along up by its weight
   times the sole's lowest clearance over a plane fitted to the ground
   under it (three queries), the upper and lower bones turned by the
   two-bone solve (law of cosines, the knee kept in its animated bend
   plane, the target clamped to the leg's reach), the hips dropped by the
   largest deficit of a leg that cannot reach (at most max_drop of its
   reach). Pure: the same inputs give the same bits on any thread. */
void oak_foot_ik_solve(const oak_foot_rig *rig, const oak_instance *rec, oak_ground_fn ground,
                       void *user, float *palette, oak_foot_ik_info *info);
/* A leg's sole: the world point of its lowest vertex under palette placed
   by rec, and the lowest clearance of its vertices over ground (metres). */
float oak_foot_ik_clearance(const oak_foot_rig *rig, uint32_t leg, const oak_instance *rec,
                            oak_ground_fn ground, void *user, const float *palette);

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
