/* The scene's private layout, shared by the files of scene/: the entity pool
 * with its hierarchy links, the component columns (dense items + dense owners
 * + sparse slot -> dense table) and the arrays the draw gather reuses. */
#ifndef OAK_SCENE_INTERNAL_H
#define OAK_SCENE_INTERNAL_H

#include <oak/scene.h>

#define _OAK_NO_SLOT 0xffffffffu

/* One entity's bookkeeping, an item of the scene's oak_pool. Hierarchy links
 * are slots (not ids) because a live child always has a live parent. */
typedef struct _oak_entity_rec {
    char *name;
    uint32_t parent;       /* slot, _OAK_NO_SLOT for a root */
    uint32_t first_child;  /* slot or _OAK_NO_SLOT */
    uint32_t last_child;   /* slot or _OAK_NO_SLOT: appending a child is O(1) */
    uint32_t next_sibling; /* slot or _OAK_NO_SLOT */
    uint32_t prev_sibling; /* slot or _OAK_NO_SLOT */
    uint32_t stamp;        /* update number that last recomputed its world matrix */
    bool dirty;            /* local transform changed since the last update */
} _oak_entity_rec;

typedef struct _oak_column {
    char *name;
    uint32_t size, stride;
    uint32_t count, capacity;
    uint8_t *data;
    oak_entity *entities;
    uint32_t *sparse; /* per entity slot: dense index, or _OAK_NO_SLOT */
} _oak_column;

struct oak_scene {
    oak_pool entities;      /* _oak_entity_rec items */
    uint32_t slot_capacity; /* length of every column's sparse table */

    _oak_column *columns;
    uint32_t column_count, column_capacity;

    /* World matrices parallel to the transform column's dense items. */
    mat4 *world;
    uint32_t world_capacity;

    /* Entity slots, parents before children (breadth first from the roots);
     * rebuilt only when the hierarchy or the set of entities changes. */
    uint32_t *order;
    uint32_t order_capacity, order_count;
    /* order[level_end[k-1] .. level_end[k]) are the entities at depth k. */
    uint32_t *level_end;
    uint32_t level_capacity, level_count;
    bool order_stale;
    bool any_dirty; /* some entity is dirty: an update has work to do */
    uint32_t update_number, last_update_count;

    oak_entity active_camera; /* id 0: the first camera */
    oak_environment environment;
    oak_post post;
    oak_time_of_day time_of_day; /* applied by the world layer */
    oak_weather weather;         /* applied by the world layer */
    /* particle emitters (scene/emitters.c): run by the world layer */
    oak_emitter_desc *emitters;
    uint32_t emitter_count, emitter_capacity;
    double particle_time; /* seconds of their clock */

    /* The gather's arrays, kept across frames. */
    oak_mesh *draw_meshes;
    oak_material *draw_materials;
    mat4 *draw_transforms;
    uint32_t *draw_flags;
    uint32_t draw_capacity, draw_transform_capacity, draw_mat_capacity, draw_flag_capacity;
    oak_render_light *lights;
    uint32_t light_capacity;
    oak_reflection_probe *probes;
    uint32_t probe_capacity;

    /* instance streams the scene draws (and destroys with itself); a stream
       added at an entity (scene/streams.c) keeps its records in that
       entity's space and the world matrix it was last placed by */
    oak_stream *streams[OAK_STREAM_MAX_PER_VIEW];
    uint32_t stream_count;
    oak_entity stream_anchor[OAK_STREAM_MAX_PER_VIEW]; /* id 0: records are world-space */
    oak_instance *stream_local[OAK_STREAM_MAX_PER_VIEW];
    uint32_t stream_local_count[OAK_STREAM_MAX_PER_VIEW];
    float stream_placed[OAK_STREAM_MAX_PER_VIEW][16];
    bool stream_placed_ok[OAK_STREAM_MAX_PER_VIEW];
    oak_instance *place_tmp;     /* world records being written */
    oak_component lod_component; /* glTF MSFT_lod groups; OAK_COMPONENT_INVALID: none yet */
    uint32_t place_tmp_capacity;

    /* objects destroyed with the scene (oak_scene_attach) */
    void *attached[OAK_SCENE_MAX_ATTACHMENTS];
    void (*attached_destroy[OAK_SCENE_MAX_ATTACHMENTS])(void *object);
    uint32_t attached_count;

    uint32_t *scratch; /* slots, for subtree walks */
    uint32_t scratch_capacity;
};

/* MSFT_lod groups (scene/gltf_lod.c): for the gathered draws of a frame
   seen from `in`'s camera, marks OAK_DRAW_HIDDEN in flags (the mesh
   renderer column's order) on every level but the one each group shows. */
void _oak_scene_lod_select(oak_scene *scene, const oak_frame_input *in, uint32_t *flags);

/* Places every stream added at an entity whose world matrix moved, and
   drops (destroying) those whose entity is gone (scene/streams.c). */
oak_result _oak_scene_place_streams(oak_scene *scene);

/* Slot of a live entity, or _OAK_NO_SLOT. */
uint32_t _oak_scene_slot(const oak_scene *scene, oak_entity e);
_oak_entity_rec *_oak_scene_rec(const oak_scene *scene, uint32_t slot);
oak_entity _oak_scene_entity_at(const oak_scene *scene, uint32_t slot);

/* Hierarchy bookkeeping used by entity creation and destruction. */
void _oak_scene_unlink(oak_scene *scene, uint32_t slot);
/* Links slot under pslot with no cycle check (the caller proved none). */
void _oak_scene_link(oak_scene *scene, uint32_t slot, uint32_t pslot);
/* Whether a probe component can be drawn: box_min <= 0 <= box_max on every
 * axis, all finite, margin finite and >= 0. If not, why (one phrase naming
 * the field, e.g. "box_min[1] = 0.5 is above 0 ...") is written to why. The
 * gather and the scene file's reader and writer share it. */
bool _oak_scene_probe_ok(const oak_scene_probe *p, char *why, size_t why_size);
/* Compose a local TRS into a matrix. */
void _oak_transform_matrix(const oak_transform *t, mat4 out);

#endif
