/* The seam between oak's engine half and its renderers: oak_render_view, the
 * whole of what a backend sees each frame, and oak_backend, the vtable each
 * backend fills in one exported function. Backends see this, asset data
 * (through the registry) and core; never the scene or world layers. */
#ifndef OAK_BACKEND_H
#define OAK_BACKEND_H

#include "render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Draws as parallel columns owned by the frontend and reused across frames. */
typedef struct oak_draw_list {
    uint32_t count;
    oak_mesh *mesh;
    oak_material *material;
    mat4 *world;      /* object to world */
    mat4 *prev_world; /* last frame's, for motion */
    uint32_t *flags;  /* oak_draw_flags */
} oak_draw_list;

/* A run of draws in `draws` sharing one mesh and material. */
typedef struct oak_render_batch {
    uint32_t first, count;
    oak_mesh mesh;
    oak_material material;
} oak_render_batch;

typedef struct oak_shadow_cascade {
    mat4 view_proj;    /* world to the map's clip space, reversed-Z orthographic */
    float split_far;   /* view distance this cascade covers up to */
    float texel_world; /* metres per shadow texel, for biasing */
    float depth_range; /* metres from the map's near to its far plane */
    /* which casters fall in it: casters.{...}[first .. first + count) */
    uint32_t first_caster, caster_count;
} oak_shadow_cascade;

typedef struct oak_render_view {
    uint64_t frame; /* counts from 0 */
    uint32_t width, height;

    /* camera */
    mat4 view, proj, view_proj, inv_view_proj, prev_view_proj;
    float camera_pos[3];
    float znear, zfar;
    bool ortho;
    float jitter[2]; /* sub-pixel offset in pixels (0 without TAA) */

    /* opaque and masked draws inside the frustum, batched by (material, mesh) */
    oak_draw_list draws;
    uint32_t batch_count;
    oak_render_batch *batches;

    /* the key light's shadow: casters in map order, cascades into them */
    int32_t key_light; /* index into lights, -1 when there is no sun */
    bool shadows;      /* key light casts and there is a map to draw */
    uint32_t shadow_map_size;
    uint32_t cascade_count;
    oak_shadow_cascade cascades[OAK_MAX_CASCADES];
    oak_draw_list casters;

    /* lights, key light included: the directional ones first, then the lamps
       (point and spot) whose reach meets the frustum, each with light.range
       resolved to its reach (docs/SHADING.md "Lamp reach") */
    uint32_t light_count;
    uint32_t directional_count; /* lights[0 .. directional_count) are directional */
    oak_render_light *lights;

    /* environment resolved to linear radiance */
    oak_environment env;
    float sky_zenith[3], sky_horizon[3], fog_color[3];

    oak_post post; /* exposure resolved */
} oak_render_view;

typedef struct oak_backend_desc {
    uint32_t width, height;
    const char *device;
    uint32_t shadow_map_size;
    /* Set by `auto`: refuse (OAK_ERROR_DEVICE, saying why) when the only
       devices are software ones such as lavapipe or llvmpipe, since the cpu
       backend is the better choice there. An explicit --backend clears it. */
    bool hardware_only;
} oak_backend_desc;

typedef struct oak_backend {
    const char *name;
    /* Fills report with device, driver, API and features (one per line); a
       non-OK result means it cannot run here and report says why. */
    oak_result (*probe)(char *report, size_t report_size);
    oak_result (*create)(void **self, const oak_backend_desc *desc);
    void (*destroy)(void *self);
    const char *(*device_name)(void *self);
    oak_result (*resize)(void *self, uint32_t width, uint32_t height);
    /* Uploads or refreshes every asset the view uses whose version moved. */
    oak_result (*sync)(void *self, const oak_render_view *view);
    oak_result (*render)(void *self, const oak_render_view *view);
    oak_result (*read_pixels)(void *self, uint8_t *rgba, size_t size);
    uint32_t (*timings)(void *self, oak_stage_timing *out, uint32_t max);
    /* Debug read-back of the last frame's lamp grid: OAK_GPU_LIGHT_GRID_WORDS
       words laid out as shaders/common/oak_gpu.h's oak_gpu_light_grid says.
       NULL when the backend builds none. */
    oak_result (*read_light_grid)(void *self, uint32_t *words, size_t count);
} oak_backend;

/* Each backend exports one of these. */
const oak_backend *oak_backend_cpu(void);
const oak_backend *oak_backend_null(void);
const oak_backend *oak_backend_vulkan(void); /* NULL when not compiled in */
const oak_backend *oak_backend_gl(void);     /* NULL when not compiled in */

#ifdef __cplusplus
}
#endif
#endif
