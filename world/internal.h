/* Private pieces of the world layer: each world's recipe (build and camera
 * path) and the helpers they share for placing entities. */
#ifndef OAK_WORLD_INTERNAL_H
#define OAK_WORLD_INTERNAL_H

#include <oak/anim.h>
#include <oak/world.h>

#include "core/hash32.h"

oak_result _oak_world_default_build(oak_scene *scene);
void _oak_world_default_path(float t, float eye[3], float target[3]);
oak_result _oak_world_stress_build(oak_scene *scene);
void _oak_world_stress_path(float t, float eye[3], float target[3]);
oak_result _oak_world_lamps_build(oak_scene *scene);
oak_result _oak_world_lamps_update(oak_scene *scene, float seconds);
void _oak_world_lamps_path(float t, float eye[3], float target[3]);
oak_result _oak_world_meadow_build(oak_scene *scene, const oak_world_options *opts);
oak_result _oak_world_meadow_update(oak_scene *scene, float seconds);
/* The meadow's forest (NULL when built without one), for tests. */
oak_forest *_oak_world_meadow_forest(const oak_scene *scene);
oak_result _oak_world_crowd_build(oak_scene *scene, const oak_world_options *opts);
oak_result _oak_world_crowd_update(oak_scene *scene, float seconds);
void _oak_world_crowd_path(float t, float eye[3], float target[3]);
/* The Fox's legs the crowd's foot IK solves (world/crowd.c): front paws,
   then hind. */
extern const oak_foot_leg _oak_crowd_fox_legs[4];
void _oak_world_meadow_path(float t, float eye[3], float target[3]);
oak_result _oak_world_campfire_build(oak_scene *scene);
oak_result _oak_world_fountain_build(oak_scene *scene, const oak_world_options *opts);
void _oak_world_fountain_path(float t, float eye[3], float target[3]);
/* The dense world (world/dense.c): rocks of OAK_WORLD_DENSE_SUBDIVISIONS
   icosphere subdivisions (20 x 4^n triangles) on a square field of
   OAK_WORLD_DENSE_FIELD metres whatever the count; a rock made alone
   (cluster LOD from 8,192 triangles: 3 subdivisions and up) for tests. */
#define OAK_WORLD_DENSE_SUBDIVISIONS 7
#define OAK_WORLD_DENSE_FIELD        54.0f
oak_result _oak_world_dense_build(oak_scene *scene, const oak_world_options *opts);
void _oak_world_dense_path(float t, float eye[3], float target[3]);
oak_result _oak_world_dense_rock(oak_mesh *out, uint32_t subdivisions, uint32_t seed);
/* The dense rock's geometry alone (the meadow's rocks, world/rocks.c): a
   unit icosphere of `subdivisions` (0 .. 8) displaced by fBm and flattened
   to 0.75 in y, area-weighted vertex normals; arrays oak_alloc'd. */
typedef struct _oak_rock_geometry {
    float *pos, *nrm;
    uint32_t *ix;
    uint32_t vertex_count, index_count;
} _oak_rock_geometry;
oak_result _oak_world_rock_geometry(_oak_rock_geometry *out, uint32_t subdivisions, uint32_t seed);
void _oak_world_rock_geometry_free(_oak_rock_geometry *g);
oak_result _oak_world_campfire_update(oak_scene *scene, float seconds);
void _oak_world_campfire_path(float t, float eye[3], float target[3]);
/* registers the campfire's painters (oak://campfire_disc, _flames) */
oak_result _oak_world_campfire_register(void);
/* The meadow's landscape (its terrain desc) and its sun and sky, for the
   crowd on the meadow's terrain. */
oak_terrain_desc _oak_world_meadow_terrain(void);
oak_result _oak_world_meadow_sky(oak_scene *scene);
/* The crowd's second figure (world/crowd_figure.c): each triangle of the
   skinned mesh `fox` cut into n x n (1 .. 16), every new point pushed out
   along the smoothed normal by up to 1.5 tuft (model units; none at the
   mesh's own corners), skin weights interpolated (the four largest,
   summing to 1). */
oak_result _oak_crowd_fur_figure(oak_mesh *out, oak_mesh fox, uint32_t n, float tuft);

/* The scene owns a terrain once attached (destroyed with it); the world's
   update finds it again by scene (world/terrain.c). */
oak_result _oak_terrain_attach(oak_scene *scene, oak_terrain *terrain);
oak_terrain *_oak_terrain_of(const oak_scene *scene);
/* The height function of a terrain desc (zeros resolved) at world (x, z),
   without a terrain: for camera paths. */
double _oak_terrain_desc_height(const oak_terrain_desc *desc, double x, double z);

/* An entity with a transform and a mesh renderer; id 0 when out of memory. */
oak_entity _oak_world_place(oak_scene *scene, const char *name, oak_mesh mesh,
                            oak_material material, const oak_transform *t);
/* The ground of a world: the recipe's mesh under the painted oak://ground
   texture (a matte dielectric), placed at the origin as entity `name`. */
oak_result _oak_world_add_ground(oak_scene *scene, const oak_shape_desc *recipe, const char *name);
/* A clear day in physical units: a shadow-casting sun entity "sun" of
 * `sun_lux` shining from elevation and azimuth (degrees; azimuth from -Z
 * towards +X) onto `target`, placed `distance` back along its rays; the
 * sky gradient and fog colour (display colours); the hemisphere ambient
 * given per lux of sun; and the camera at the grey-card exposure for a
 * level card under that sun and sky. */
typedef struct oak_world_day {
    float elevation_deg, azimuth_deg;
    float target[3], distance;
    float sun_color[3], sun_lux;
    float zenith[3], horizon[3];             /* the sky; fog fades to the horizon */
    float ambient_sky[3], ambient_ground[3]; /* per lux of sun */
    float fog_density;
} oak_world_day;
oak_result _oak_world_clear_day(oak_scene *scene, const oak_world_day *d);
/* A camera entity looking from eye at target, made the active camera. */
oak_entity _oak_world_camera(oak_scene *scene, const oak_camera *cam, const float eye[3],
                             const float target[3]);
/* The exposure that shows an 18% grey card as mid grey (display value 0.18
 * linear, 118/255 sRGB) after ACES, given the radiance a white Lambert card
 * in the same place shows (luminance; docs/SHADING.md: sun E / pi plus the
 * hemisphere ambient, which the contract multiplies without a 1/pi). */
float _oak_world_grey_card_exposure(float white_radiance);
/* The scene's camera set to that exposure as an EV100 (physical units). */
void _oak_world_grey_card_camera(oak_scene *scene, float white_radiance);
float _oak_luminance(const float rgb[3]);

/* Stable integer and [0, 1) hashes of item i: recipes scatter and tint with
   them, so a world is the same on every run and machine. */
static inline uint32_t _oak_world_hash_u32(uint32_t x) {
    return _oak_lowbias32(x); /* core/hash32.h */
}

static inline float _oak_world_hash01(uint32_t i, uint32_t salt) {
    return (float)(_oak_world_hash_u32(i * 0x9E3779B9u + salt) >> 8) * (1.0f / 16777216.0f);
}

/* Test hook (tests/particles_gpu.h): the particle kernel's input for
   emitter `index` as the last update left it: its constants, time.x the
   seconds since its block was written; the block (its particles, their
   ages at that writing in spin_age.z), their count and the block's
   version, which moves only when a birth or a death changed the alive
   set; and the records the CPU wrote (particle order). */
struct oak_gpu_particle_emitter;
struct oak_gpu_particle;
oak_result _oak_particles_kernel_input(oak_particles *s, uint32_t index,
                                       struct oak_gpu_particle_emitter *c,
                                       const struct oak_gpu_particle **parts,
                                       const oak_instance **records, uint32_t *count,
                                       uint64_t *version);

#endif
