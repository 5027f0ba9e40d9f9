/* The frame as a table of passes, shared by every backend: one row per pass
 * (its stage name, the frame targets it reads and writes, when it runs) and
 * the registry of frame targets. Backends include this; it sees only the view. */
#ifndef OAK_PASS_TABLE_H
#define OAK_PASS_TABLE_H

#include <oak/backend.h>

/* ---- frame targets ------------------------------------------------------ */

typedef enum oak_target_id {
    OAK_TARGET_SCENE,         /* asset pools and the frame's records (buffers) */
    OAK_TARGET_SHADOW_MAP,    /* the key light's depth map: static layer copy + movers */
    OAK_TARGET_DEPTH,         /* the view's reversed-Z depth */
    OAK_TARGET_IDS,           /* (draw + 1, triangle) per pixel, 0 = sky */
    OAK_TARGET_HDR,           /* shaded linear colour */
    OAK_TARGET_LDR,           /* RGBA8 after tone mapping and dither */
    OAK_TARGET_OUTPUT,        /* RGBA8 after FXAA: the picture */
    OAK_TARGET_LIGHT_GRID,    /* each lamp cluster's list (oak_gpu_light_grid) */
    OAK_TARGET_SHADOW_STATIC, /* the key light's cached static layers (GPU backends) */
    OAK_TARGET_LAMP_ATLAS,    /* the lamps' shadow faces, OAK_LAMP_ATLAS_TILES^2 tiles */
    OAK_TARGET_AO,            /* the gtao pass's floats: AO, raw AO, normals, depth mips */
    OAK_TARGET_SKY,           /* the sky light's maps (OAK_GPU_SKY_* in oak_gpu.h) */
    OAK_TARGET_EXPOSURE,      /* eye adaptation: histogram and camera state (OAK_GPU_EXPOSURE_*) */
    OAK_TARGET_BLOOM,         /* the bloom pyramid's levels (render/bloom.h) */
    OAK_TARGET_DOF,           /* depth of field's half-size images and tiles (render/dof.h) */
    OAK_TARGET_CLOUDS,        /* the clouds' shadow map, noise table and march (OAK_GPU_CLOUD_*) */
    OAK_TARGET_TAA,           /* the taa pass's two histories (render/taa.h) */
    OAK_TARGET_FOG,           /* the fog's froxels: injected, then integrated (oak_gpu_fog) */
    OAK_TARGET_OPAQUE,        /* the opaque frame's copy and its mips (render/opaque_copy.h) */
    OAK_TARGET_SSR,           /* per pixel a mirror's split-sum weight and reflection (ssr.h) */
    OAK_TARGET_COUNT
} oak_target_id;

typedef enum oak_target_size {
    OAK_TARGET_SIZE_ASSETS,     /* grows with what the view uses */
    OAK_TARGET_SIZE_OUTPUT,     /* the output's width x height */
    OAK_TARGET_SIZE_SHADOW,     /* the view's shadow_map_size squared */
    OAK_TARGET_SIZE_LAMP_ATLAS, /* OAK_LAMP_ATLAS_TILES x OAK_LAMP_SHADOW_FACE, squared */
} oak_target_size;

typedef enum oak_target_format {
    OAK_TARGET_BUFFER, /* records, no texel format */
    OAK_TARGET_D32F,
    OAK_TARGET_RG32UI,
    OAK_TARGET_RGBA32F,
    OAK_TARGET_RGBA8, /* one packed uint per pixel */
} oak_target_format;

typedef enum oak_target_life {
    OAK_TARGET_PER_FRAME,  /* written whole every frame before it is read */
    OAK_TARGET_PERSISTENT, /* kept across frames, updated in place */
    OAK_TARGET_CACHED,     /* kept while its inputs hash the same; redrawn when not */
} oak_target_life;

typedef struct oak_target_info {
    const char *name;
    oak_target_size size;
    oak_target_format format;
    oak_target_life life;
} oak_target_info;

const oak_target_info *_oak_target_info(oak_target_id target);

/* ---- how a pass touches a target ---------------------------------------- */

/* Backends turn these into barriers: Vulkan into stage, access and layout,
 * GL into glMemoryBarrier bits (backend/vulkan/vk_track.c, backend/gl/gl_track.c). */
typedef enum oak_use {
    OAK_USE_NONE,          /* ends a row's list */
    OAK_USE_UPLOAD,        /* written by copies and by the host */
    OAK_USE_SCENE_READ,    /* read by draws: vertices, indices, indirect commands, records */
    OAK_USE_DEPTH_CLEAR,   /* cleared, then tested and written as depth */
    OAK_USE_DEPTH_TEST,    /* tested against, not written */
    OAK_USE_COLOR_CLEAR,   /* cleared, then written as a colour attachment */
    OAK_USE_COLOR_BLEND,   /* blended over: read and written as a colour attachment */
    OAK_USE_SAMPLED,       /* fetched by fragment or compute shaders */
    OAK_USE_STORAGE_READ,  /* loaded by compute shaders */
    OAK_USE_STORAGE_WRITE, /* written whole by compute shaders */
    OAK_USE_STORAGE_RW,    /* loaded and stored by compute shaders, the rest kept */
    OAK_USE_COPY_READ,     /* copied out (read_pixels) */
    OAK_USE_BUFFER_READ,   /* loaded from a storage buffer by fragment or compute shaders */
    OAK_USE_HOST_READ,     /* read by the host after the frame (debug read-backs) */
    OAK_USE_DEPTH_DRAW,    /* parts cleared or drawn over as depth, the rest kept (cached tiles) */
    OAK_USE_COPY_WRITE,    /* parts copied into, the rest kept */
    /* a cached map: the pass's run function applies the uses above (depth
       draw, copy read, copy write) itself as it goes, since which of them a
       frame needs depends on what changed (render/shadow_layer.h); the
       row's barriers skip it */
    OAK_USE_LAYERED,
} oak_use;

static inline bool _oak_use_writes(oak_use u) {
    return u == OAK_USE_UPLOAD || u == OAK_USE_DEPTH_CLEAR || u == OAK_USE_COLOR_CLEAR ||
           u == OAK_USE_COLOR_BLEND || u == OAK_USE_STORAGE_WRITE || u == OAK_USE_DEPTH_DRAW ||
           u == OAK_USE_COPY_WRITE || u == OAK_USE_STORAGE_RW;
}
/* The old contents do not matter: a Vulkan layout may start UNDEFINED. */
static inline bool _oak_use_discards(oak_use u) {
    return u == OAK_USE_DEPTH_CLEAR || u == OAK_USE_COLOR_CLEAR || u == OAK_USE_STORAGE_WRITE;
}

typedef struct oak_target_use {
    oak_target_id target;
    oak_use use;
} oak_target_use;

/* ---- the table ---------------------------------------------------------- */

#define OAK_PASS_MAX_USES  11
#define OAK_PASS_MAX_PARTS 2

typedef struct oak_pass_row {
    oak_pass_id id;
    const char *name; /* stage name in timings */
    /* what it reads and writes, in the order backends apply them;
       ends at the first OAK_USE_NONE */
    oak_target_use uses[OAK_PASS_MAX_USES];
    /* runs when this holds for the view (NULL: every frame) and the backend
       has the pass's caps bit */
    bool (*when)(const oak_render_view *view);
    /* sub-stages a backend may time on their own (the CPU's raster) */
    const char *parts[OAK_PASS_MAX_PARTS];
    bool untimed; /* no stage of its own (its work happens in read_pixels) */
} oak_pass_row;

/* OAK_PASS_COUNT rows, in frame order: row i has id i. */
const oak_pass_row *_oak_pass_table(void);
/* The row runs this frame on a backend with these caps. */
bool _oak_pass_runs(const oak_pass_row *row, const oak_render_view *view, uint64_t caps);

#endif
