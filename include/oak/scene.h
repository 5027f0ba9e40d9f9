/* oak scene: an ECS (entities with generations, components in dense columns,
 * systems that walk a column once), transforms with a parent hierarchy, the
 * built-in components, and scene files that save and load a whole scene. */
#ifndef OAK_SCENE_H
#define OAK_SCENE_H

#include "render.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oak_entity {
    uint32_t id;
} oak_entity;
typedef struct oak_scene oak_scene;

/* Component types: built-ins first; oak_scene_register_component adds more. */
typedef uint32_t oak_component;
enum {
    OAK_COMPONENT_TRANSFORM = 0, /* oak_transform; change it through oak_scene_set_transform */
    OAK_COMPONENT_MESH_RENDERER, /* oak_mesh_renderer */
    OAK_COMPONENT_CAMERA,        /* oak_camera */
    OAK_COMPONENT_LIGHT,         /* oak_light */
    /* oak_scene_probe: a reflection probe at the entity's world position */
    OAK_COMPONENT_REFLECTION_PROBE,
    OAK_COMPONENT_BUILTIN_COUNT,
};
/* What oak_scene_register_component returns when it fails. */
#define OAK_COMPONENT_INVALID 0xffffffffu

typedef struct oak_transform {
    float position[3];
    float rotation[4]; /* unit quaternion x, y, z, w */
    float scale[3];
} oak_transform;

oak_transform oak_transform_identity(void);
/* A transform at eye looking at target with +Y up (a camera's -Z on target). */
oak_transform oak_transform_look_at(const float eye[3], const float target[3]);

typedef struct oak_mesh_renderer {
    oak_mesh mesh;
    oak_material material;
    uint32_t flags; /* oak_draw_flags */
} oak_mesh_renderer;

/* One component type's dense column: count items, entities[i] owns the item
 * at data + i * stride. Valid until the column next changes size. */
typedef struct oak_column {
    uint32_t count;
    const oak_entity *entities;
    void *data;
    uint32_t stride;
} oak_column;

oak_result oak_make_scene(oak_scene **out);
void oak_destroy_scene(oak_scene *scene); /* frees the scene, not the assets */

/* ---- entities ----------------------------------------------------------- */

oak_entity oak_scene_create(oak_scene *scene, const char *name); /* id 0 on failure */
void oak_scene_destroy_entity(oak_scene *scene, oak_entity e);   /* and its children */
bool oak_scene_alive(const oak_scene *scene, oak_entity e);
uint32_t oak_scene_entity_count(const oak_scene *scene);
const char *oak_scene_name(const oak_scene *scene, oak_entity e); /* "" when unnamed */
oak_result oak_scene_set_name(oak_scene *scene, oak_entity e, const char *name);
oak_entity oak_scene_find(const oak_scene *scene, const char *name); /* first match */

/* ---- components --------------------------------------------------------- */

oak_component oak_scene_register_component(oak_scene *scene, const char *name, uint32_t size);
/* Zeroed if new, except a transform, which starts as the identity. Entities
 * get a transform when created. */
void *oak_scene_add(oak_scene *scene, oak_entity e, oak_component c);
void *oak_scene_get(const oak_scene *scene, oak_entity e, oak_component c); /* NULL if absent */
void oak_scene_remove(oak_scene *scene, oak_entity e, oak_component c);
oak_column oak_scene_column(const oak_scene *scene, oak_component c);

/* ---- transforms and hierarchy ------------------------------------------ */

void oak_scene_set_transform(oak_scene *scene, oak_entity e, const oak_transform *t);
const oak_transform *oak_scene_transform(const oak_scene *scene, oak_entity e);
/* parent id 0 makes e a root; a cycle is refused with OAK_ERROR_INVALID_ARGUMENT. */
oak_result oak_scene_set_parent(oak_scene *scene, oak_entity e, oak_entity parent);
oak_entity oak_scene_parent(const oak_scene *scene, oak_entity e);
/* The transform system: recomputes the world matrix of every entity whose
 * transform or an ancestor's changed, parents before children. */
void oak_scene_update_transforms(oak_scene *scene);
/* World matrix as of the last update (identity without a transform). */
void oak_scene_world_matrix(const oak_scene *scene, oak_entity e, mat4 out);
/* How many world matrices the last update recomputed (for tests). */
uint32_t oak_scene_last_update_count(const oak_scene *scene);

/* ---- typed helpers for the built-ins ------------------------------------- */

void oak_scene_set_mesh_renderer(oak_scene *scene, oak_entity e, const oak_mesh_renderer *m);
void oak_scene_set_camera(oak_scene *scene, oak_entity e, const oak_camera *c);
void oak_scene_set_light(oak_scene *scene, oak_entity e, const oak_light *l);

/* A reflection probe as a component: captured at the entity's world
 * position, its box given around that point in world-aligned metres (the
 * entity's rotation and scale do not turn or stretch it). box_min <= 0 <=
 * box_max and box_min < box_max on every axis, all finite, margin finite and >= 0, else the scene
 * refuses it when drawn (stored as given until then). */
typedef struct oak_scene_probe {
    float box_min[3]; /* offset of the box's low corner from the capture point */
    float box_max[3]; /* offset of its high corner */
    float margin;     /* blend width inside the faces, metres; 0: a hard edge */
} oak_scene_probe;
void oak_scene_set_probe(oak_scene *scene, oak_entity e, const oak_scene_probe *p);

/* ---- scene-wide settings ---------------------------------------------- */

oak_environment *oak_scene_environment(oak_scene *scene);
/* The time of day the scene keeps (saved in scene files when `set`); the
 * world layer applies it (oak_world_set_time, include/oak/world.h). Zero
 * place and date fields mean the defaults stated there. */
typedef struct oak_time_of_day {
    bool set;         /* false: the scene has no time of day */
    float hour;       /* local standard time (no daylight saving), [0, 24] */
    float latitude;   /* degrees north, [-90, 90] */
    float longitude;  /* degrees east, [-180, 180] */
    float utc_offset; /* the time zone: hours east of UTC, [-14, 14] */
    int day_of_year;  /* 1 = 1 January, up to 366; 0: the default day */
    int year;         /* 0: the default year */
} oak_time_of_day;
oak_time_of_day *oak_scene_time_of_day(oak_scene *scene);
/* The weather the scene keeps (saved in scene files when `set`); the world
 * layer applies it (oak_world_set_weather, include/oak/world.h; docs/WORLD.md
 * "Weather"). */
typedef enum oak_weather_kind {
    OAK_WEATHER_CLEAR = 0, /* the default: the scene's own fog, clouds and light */
    OAK_WEATHER_CLOUDY,
    OAK_WEATHER_OVERCAST,
    OAK_WEATHER_RAIN,
    OAK_WEATHER_STORM,
    OAK_WEATHER_SNOW,
    OAK_WEATHER_DUST,
    OAK_WEATHER_COUNT
} oak_weather_kind;
typedef struct oak_weather {
    bool set;              /* false: the scene has no weather */
    oak_weather_kind kind; /* what it is heading for */
    float amount;          /* [0, 1] */
    /* kept by the world's weather while it changes the environment: the
       values it changed as they were without it, so a saved file holds the
       scene's own (and loading it applies the weather once) */
    bool has_base;
    oak_environment base;
    oak_entity key; /* the key light it dims (id 0: none) */
    float key_base; /* that light's own intensity */
    /* the surfaces' memory (docs/WORLD.md "Weather"): the wetness and snow
       the weather adds to the scene's own now, saved so a file reloads the
       same picture; has_surfaces: they hold (an update or a file gave them) */
    bool has_surfaces;
    float wetness, snow;
} oak_weather;
oak_weather *oak_scene_weather(oak_scene *scene);

/* ---- particle emitters the scene keeps ---------------------------------- */
/* The world's particles (include/oak/world.h, docs/WORLD.md "Particles") run
 * their emitters; the scene keeps what they were made from, so scene files
 * save them and a loaded file runs them again (oak_world_apply_particles). */

/* A key over a particle's life: at share t of it (0 birth .. 1 death) the
   value (colour keys: linear r, g, b, a; size keys: value[0] times the
   particle's birth size). Values between keys are lerped; before the first
   and after the last they hold. */
typedef struct oak_particle_key {
    float t;
    float value[4];
} oak_particle_key;

/* A burst: count particles at `at` seconds of the system's clock, again every
   `every` seconds when > 0. */
typedef struct oak_particle_burst {
    float at;
    float every;
    uint32_t count;
} oak_particle_burst;

/* One emitter; zero fields are the defaults (oak_emitter_desc_defaults). */
typedef struct oak_emitter_desc {
    uint32_t capacity;  /* particles alive at most (the stream's); 0: 1024; .. 1 << 20 */
    uint32_t seed;      /* every random draw is a hash of (seed, birth number) */
    float position[3];  /* the point particles are born at, metres */
    float direction[3]; /* the cone's axis (normalized here); all 0: +y */
    float cone_degrees; /* half angle of the cone, [0, 180]; velocities uniform over its cap */
    float rate;         /* particles a second, born evenly from t = 0; 0: none */
    oak_particle_burst bursts[OAK_PARTICLE_BURSTS]; /* count 0: unused */
    float speed[2];   /* m/s at birth, uniform in [speed[0], speed[1]] */
    float life[2];    /* seconds, uniform in [life[0], life[1]]; all 0: 1 */
    float size[2];    /* metres across at birth, uniform; all 0: 0.1 */
    float spin[2];    /* radians a second about the eye axis, uniform; spinning: a random start */
    float gravity[3]; /* m/s^2 (0: none; (0, -9.81, 0) for a fall) */
    float drag;       /* per second: dv/dt = gravity - drag v, >= 0 */
    oak_particle_key color_keys[OAK_PARTICLE_KEYS]; /* none: white, alpha 1 */
    uint32_t color_key_count;
    oak_particle_key size_keys[OAK_PARTICLE_KEYS]; /* none: 1 over the life */
    uint32_t size_key_count;
    /* id 0: an unlit, double-sided white material made for it (the record's
       colour is its colour) */
    oak_material material;
    /* columns, rows of frames in the material's base colour and emissive
       textures (an atlas, row by row from the top left): frame k of n shows
       over [k / n, (k + 1) / n) of a life, each frame a stream in a copy of
       the material narrowed to its cell; 0, 0: none; at most
       OAK_PARTICLE_FRAMES frames */
    uint32_t flipbook[2];
    /* the quad's centre this share of its size above the particle along the
       quad's up, [-1, 1] (0.5: it stands on its point, as a flame) */
    float lift;
} oak_emitter_desc;
oak_emitter_desc oak_emitter_desc_defaults(const oak_emitter_desc *desc);
/* NULL when desc (its defaults filled) meets the rules oak_particles_add_emitter
   and scene files apply, else what breaks them ("cone_degrees not in [0, 180]"). */
const char *oak_emitter_desc_problem(const oak_emitter_desc *desc);

/* The emitters the scene keeps, in the order they were added, and the clock
   (seconds) they were last stepped to. The world's particle set adds to the
   list and moves the clock; a loaded scene file fills both. */
oak_result oak_scene_add_emitter(oak_scene *scene, const oak_emitter_desc *desc);
uint32_t oak_scene_emitter_count(const oak_scene *scene);
/* NULL past the count; the scene's own copy (a moved emitter writes here). */
oak_emitter_desc *oak_scene_emitter(oak_scene *scene, uint32_t index);
double oak_scene_particle_time(const oak_scene *scene);
void oak_scene_set_particle_time(oak_scene *scene, double seconds);
oak_post *oak_scene_post(oak_scene *scene);
void oak_scene_set_active_camera(oak_scene *scene, oak_entity camera);
oak_entity oak_scene_active_camera(const oak_scene *scene); /* first camera if unset */

/* ---- drawing ------------------------------------------------------------ */

/* Updates transforms, gathers the mesh renderer, light and reflection probe
 * columns into an oak_frame_input (arrays kept by the scene across frames)
 * and draws it from the active camera. More than OAK_PROBE_MAX probes, or a
 * probe against oak_scene_probe's rules, fails with one line naming the
 * entity (OAK_ERROR_LIMIT, OAK_ERROR_INVALID_ARGUMENT) and draws nothing. */
oak_result oak_scene_draw(oak_scene *scene, oak_renderer *renderer);
/* Lists an instance stream in the scene's frame input; the scene owns it
 * from then on (destroyed with the scene, also when this fails). At most
 * OAK_STREAM_MAX_PER_VIEW. */
oak_result oak_scene_add_stream(oak_scene *scene, oak_stream *stream);
/* Takes a listed stream out of the scene and destroys it (a world system
 * going before its scene); nothing when it is not listed. */
void oak_scene_remove_stream(oak_scene *scene, oak_stream *stream);
/* The same for a stream whose `count` records are given in entity e's space
 * (copied): the scene writes their world records (and the stream's count)
 * whenever e's world matrix changes, before a draw or gather, and destroys
 * the stream once e is gone. An entity's rotation turns the records and its
 * scale scales them (a non-uniform scale by the cube root of its volume:
 * streams scale uniformly). count <= the stream's capacity. */
oak_result oak_scene_add_stream_at(oak_scene *scene, oak_stream *stream, oak_entity e,
                                   const oak_instance *local, uint32_t count);
/* The same gather without drawing, for tools that feed other renderers. */
oak_result oak_scene_frame_input(oak_scene *scene, oak_frame_input *out);

/* Hands an object to the scene (a world system: terrain, ...): destroy(object)
 * is called first thing in oak_destroy_scene, while the scene is whole, so
 * it may remove its own entities. At most OAK_SCENE_MAX_ATTACHMENTS; on
 * failure nothing is kept and the caller still owns the object. */
oak_result oak_scene_attach(oak_scene *scene, void *object, void (*destroy)(void *object));
/* The first object attached with that destroy function, or NULL. */
void *oak_scene_attachment(const oak_scene *scene, void (*destroy)(void *object));

/* ---- models and files ----------------------------------------------------- */

/* One child entity per mesh of the model under a new entity, which is returned. */
oak_entity oak_scene_add_model(oak_scene *scene, const oak_model *model, oak_entity parent,
                               const char *name);

/* JSON scene files: entities (names, transforms, parents, components),
 * materials, meshes by recipe or by file, textures by path, environment and
 * post. Loading then saving gives the same file. */
oak_result oak_scene_save(const oak_scene *scene, const char *path);
oak_result oak_scene_load(oak_scene **out, const char *path);
typedef struct oak_scene_load_desc {
    /* Folder that mesh and texture paths (and the OBJ files' own mtllib and
       map_* paths) must stay in, symbolic links and ".." resolved (NULL: the
       scene file's folder). */
    const char *asset_root;
} oak_scene_load_desc;
oak_result oak_scene_load_with(oak_scene **out, const char *path, const oak_scene_load_desc *desc);

#ifdef __cplusplus
}
#endif
#endif
