/* Private state of the Vulkan backend, shared by its files: the device, the
 * memory sub-allocator, buffers and images, geometry pools, texture arrays,
 * materials, pipelines and the frames in flight. Nothing here is public. */
#ifndef OAK_VK_INTERNAL_H
#define OAK_VK_INTERNAL_H

#include <volk.h>

#include <oak/backend.h>

#include "backend/gpu/gpu_records.h"
#include "backend/gpu/meshcull_hiz.h"
#include "render/bloom.h"
#include "render/dof.h"
#include "render/pass_table.h"
#include "render/shadow_layer.h"
#include "shaders/common/oak_gpu.h"

#define OAK_VK_FRAMES       2           /* frames in flight */
#define OAK_VK_BINDLESS_MAX 16384       /* the bindless texture array's length at most */
#define OAK_VK_WINDOW_EXTS  8           /* instance extensions a window may ask for */
#define OAK_VK_SWAP_MAX     8           /* swapchain images oak takes at most */
#define OAK_VK_BLOCK_SIZE   (64u << 20) /* device memory is taken in blocks this big */
#define OAK_VK_MAX_TIMESTAMPS                                                                      \
    (OAK_PASS_COUNT + 3) /* one at the start, one after each row and Hi-Z's two steps */
/* Past this a fence wait counts as a lost device: 60 s on a GPU, 10 min on
   a CPU device (lavapipe), which compiles shader variants on its queue
   inside the first submits; under a loaded CI a large frame's first submit
   there took over a minute. */
#define OAK_VK_FENCE_TIMEOUT     60000000000ull
#define OAK_VK_FENCE_TIMEOUT_CPU 600000000000ull

/* Returns OAK_ERROR_DEVICE (or OUT_OF_MEMORY) naming the call when it fails. */
#define OAK_VK_TRY(vk, call)                                                                       \
    do {                                                                                           \
        VkResult vr_ = (call);                                                                     \
        if (vr_ != VK_SUCCESS) return _oak_vk_fail((vk), vr_, #call, __FILE__, __LINE__);          \
    } while (0)

/* ---- ranges: first-fit free lists (memory blocks, geometry pools) ------- */

typedef struct _oak_vk_range {
    uint64_t offset, size;
} _oak_vk_range;

typedef struct _oak_vk_ranges {
    _oak_vk_range *free; /* sorted by offset, merged */
    uint32_t count, capacity;
    uint64_t total, used;
} _oak_vk_ranges;

void _oak_vk_ranges_init(_oak_vk_ranges *r, uint64_t total);
void _oak_vk_ranges_release(_oak_vk_ranges *r);
/* UINT64_MAX when nothing fits; out of memory for the list itself also fails. */
uint64_t _oak_vk_ranges_alloc(_oak_vk_ranges *r, uint64_t size, uint64_t align);
bool _oak_vk_ranges_free(_oak_vk_ranges *r, uint64_t offset, uint64_t size);
/* Adds [old total, new_total) as free space. */
bool _oak_vk_ranges_grow(_oak_vk_ranges *r, uint64_t new_total);

/* ---- memory ------------------------------------------------------------ */

typedef struct _oak_vk_block {
    VkDeviceMemory memory;
    uint64_t size;
    uint32_t type;
    void *mapped; /* host-visible blocks stay mapped */
    _oak_vk_ranges ranges;
    uint32_t live; /* sub-allocations in it */
} _oak_vk_block;

typedef struct _oak_vk_alloc {
    uint32_t block; /* index + 1 into vk->blocks; 0: none */
    uint64_t offset, size;
} _oak_vk_alloc;

typedef enum _oak_vk_mem_use {
    OAK_VK_MEM_DEVICE,   /* device local, not mapped */
    OAK_VK_MEM_UPLOAD,   /* host visible (device local when it can be), written by the CPU */
    OAK_VK_MEM_READBACK, /* host visible and cached when it can be */
    OAK_VK_MEM_STAGING,  /* host memory for copies: keeps the small BAR heap for per-frame data */
} _oak_vk_mem_use;

typedef struct _oak_vk_buffer {
    VkBuffer buffer;
    _oak_vk_alloc alloc;
    uint64_t size;
    void *mapped;
} _oak_vk_buffer;

typedef struct _oak_vk_image {
    VkImage image;
    VkImageView view;
    _oak_vk_alloc alloc;
    VkFormat format;
    uint32_t width, height, layers, mips;
    VkImageLayout layout;
} _oak_vk_image;

/* Objects whose last use may still run on the GPU: freed when their frame's
 * fence has passed. */
typedef struct _oak_vk_garbage {
    VkBuffer buffer;
    VkImage image;
    VkImageView view;
    _oak_vk_alloc alloc;
} _oak_vk_garbage;

/* ---- assets on the GPU ------------------------------------------------- */

typedef struct _oak_vk_mesh {
    uint32_t id, version;  /* asset handle id it mirrors, 0: free slot */
    uint64_t vertex_first; /* in vertices */
    uint32_t vertex_count; /* taken from the pool: twice the mesh's when posed */
    /* a posed mesh (prev_positions): its previous pose's positions follow
       its own at vertex_first + prev (the mesh's vertex count); 0: none */
    uint32_t prev;
    uint64_t index_first; /* in indices */
    uint32_t index_count;
    uint64_t frame;  /* last frame it was checked against the registry */
    float center[3]; /* bounds centre, for sorting BLEND draws */
    /* a mesh posed by its palette: the pose the skin pass last wrote (0:
       none yet; the pass skins it when the registry's moved on) */
    uint32_t pose_version;
    /* culled by meshlets (vk_meshcull.c): its records' first uvec4 in the
       meshlet pool, the uvec4 they take, its meshlet count (0: drawn uncut) */
    uint32_t ml_first, ml_uvec4, ml_count;
    /* cluster LOD (vk_meshcull.c): its finest level's meshlets (the first
       ones), the triangles a job's region holds (_oak_meshcull_gpu_levels)
       and the indices taken from the pool (every level's when meshlet
       culling is on; index_count, what every other pass draws, is the
       finest's) */
    uint32_t ml_finest, ml_tris, index_taken;
    /* the mesh's shape_version when it was last sent whole: while the
       registry's stays the same, a new pose sends the positions alone */
    uint32_t shape_version;
} _oak_vk_mesh;

typedef struct _oak_vk_texclass {
    uint32_t width, height, mips;
    VkFormat format;
    _oak_vk_image image; /* layers = capacity */
    uint32_t used;       /* layers handed out (high water) */
    uint32_t *free_layers;
    uint32_t free_count, free_capacity;
} _oak_vk_texclass;

typedef struct _oak_vk_texture {
    uint32_t id, version;
    /* klass: index + 1 into classes, or with bindless its element + 1 in the
       runtime array (layer 0); 0: failed upload */
    uint32_t klass, layer;
    bool srgb;
    uint32_t width, height, mips; /* its own; the class's layers may be larger */
    _oak_vk_image image;          /* bindless: its own image, its size and levels */
} _oak_vk_texture;

typedef struct _oak_vk_material {
    uint32_t id, version;
    uint32_t tex_versions[5 + OAK_GPU_LOBE_TEX]; /* to notice a texture re-upload */
    uint64_t frame; /* last frame it was checked against the registry */
    oak_alpha_mode alpha_mode;
    bool double_sided;
} _oak_vk_material;

/* Per-draw facts gathered on the CPU side; the mapped GPU buffers are only
 * ever written, front to back (on a discrete GPU they are write-combined
 * memory across the bus, where a read costs a round trip). */
typedef struct _oak_vk_draw_info {
    uint32_t group; /* pipeline group (bit 31: two-sided BLEND), UINT32_MAX: none */
    uint32_t index_count, first_index, first_vertex;
    uint32_t material, flags;
    uint32_t prev; /* the mesh's previous pose after first_vertex (0: none) */
} _oak_vk_draw_info;

#define OAK_VK_TWO_SIDED 0x80000000u /* _oak_vk_draw_info.group: a two-sided BLEND draw */

/* What the passes did to a frame target since its last write, for the
 * barriers the pass table implies (vk_track.c). */
typedef struct _oak_vk_track {
    VkPipelineStageFlags2 write_stage; /* of the last write, 0: none known */
    VkAccessFlags2 write_access;
    VkPipelineStageFlags2 read_stages;    /* reads since that write */
    VkPipelineStageFlags2 visible_stages; /* the write is visible to these ... */
    VkAccessFlags2 visible_access;        /* ... through these accesses */
} _oak_vk_track;

/* Per frame in flight. */
typedef struct _oak_vk_frame {
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    bool submitted;
    VkDescriptorSet set;
    _oak_vk_buffer view;       /* oak_gpu_view */
    _oak_vk_buffer lights;     /* oak_gpu_light[] */
    _oak_vk_buffer draws;      /* oak_gpu_draw[]: view draws then casters */
    _oak_vk_buffer indirect;   /* VkDrawIndexedIndirectCommand[] */
    _oak_vk_buffer staging;    /* uploads recorded this frame */
    _oak_vk_buffer grid;       /* the lamp grid (vk_pass_lightgrid.c), host-visible */
    _oak_vk_buffer lamp_block; /* oak_gpu_lamp_shadows (vk_pass_lampshadow.c) */
    /* OAK_B_AERIAL: the aerial perspective volume this slot holds (host
       visible, rewritten when the view's aerial_version moves), a 4 KiB
       dummy until a view brings one (vk_pass_upload.c) */
    _oak_vk_buffer aerial;
    const float *aerial_src; /* whose volume (a frontend's), at aerial_version */
    uint64_t aerial_version;
    uint64_t staging_used;
    _oak_vk_buffer output; /* packed RGBA8, width*height */
    bool output_valid;
    /* instance streams' instcull pass (vk_pass_instcull.c): this slot's
       records, heads + commands + lists, and what each stream slot holds */
    _oak_vk_buffer instances, instance_out;
    _oak_vk_buffer skin; /* the skin pass's jobs and palettes (vk_pass_skin.c) */
    /* the particles pass (vk_pass_particles.c): this slot's emitter blocks,
       and per stream slot whose block it holds, its version and where */
    _oak_vk_buffer particles;
    const void *particle_src[OAK_STREAM_MAX_PER_VIEW];
    uint64_t particle_version[OAK_STREAM_MAX_PER_VIEW];
    uint64_t particle_at[OAK_STREAM_MAX_PER_VIEW];
    /* the "over" books' frames whose count the draw kernel wrote, each
       {job, BLEND command, frame} (backend/gpu/gpu_particles.h) */
    uint32_t book_cmd[OAK_STREAM_MAX_PER_VIEW][3], book_cmds;
    /* the records' copies and their last-frame copies after them: the one
       ledger the grass pass and instcull both bring up to date */
    _oak_gpu_upload_ledger uploads;
    /* a posed stream's pose block after those: whose bank, LOD 0 mesh and where */
    const void *instcull_pose_src[OAK_STREAM_MAX_PER_VIEW];
    uint32_t instcull_pose_mesh[OAK_STREAM_MAX_PER_VIEW];
    uint64_t instcull_pose_first[OAK_STREAM_MAX_PER_VIEW];
    /* and its override slots': whose (the stream's palettes) and version */
    const float *instcull_ovr_src[OAK_STREAM_MAX_PER_VIEW];
    uint64_t instcull_ovr_version[OAK_STREAM_MAX_PER_VIEW];
    uint32_t instcull_streams, instcull_most; /* streams, and the most instances of one */
    /* per stream: its material's slot, and the vis pipeline group it draws
       with natively (UINT32_MAX: not drawn from the lists) */
    uint32_t instcull_material[OAK_STREAM_MAX_PER_VIEW];
    uint32_t instcull_group[OAK_STREAM_MAX_PER_VIEW];
    /* an impostor LOD's group and material slot (the stream's without one) */
    uint32_t instcull_igroup[OAK_STREAM_MAX_PER_VIEW], instcull_imaterial[OAK_STREAM_MAX_PER_VIEW];
    bool
        instcull_moved[OAK_STREAM_MAX_PER_VIEW]; /* casts as a mover (else into the static layer) */
    /* two-pass Hi-Z (vk_hiz.c): this slot's head, candidates and commands
       (host-visible), whether this frame runs it, and whether the slot's
       last frame did (its counters are then the head's, once it is done) */
    _oak_vk_buffer hiz;
    bool hiz_on, hiz_ran;
    /* the meshcull pass (vk_meshcull.c): this slot's head, jobs, commands,
       triangle map and expanded indices (host-visible), its job count this
       frame and whether its last frame culled (its counters are then the
       head's, once it is done) */
    _oak_vk_buffer meshcull;
    uint32_t mc_jobs;
    /* mc_jobs (the view's) and the shadow jobs: the view's first, then the
       shadows', on the expanded path; the shadows' first on the mesh path
       (vk_meshcull.c says where each part lies) */
    uint32_t mc_all;
    bool mc_ran;
    bool mc_mesh;      /* the view's jobs take the mesh path (vk_mesh_shader.c) */
    uint64_t mc_frame; /* vk->frame_count of the frame it culled */
    /* the compute raster (vk_craster.c): this slot's band table
       (host-visible; its plan rows written on the GPU, and read as the
       dispatch's indirect command), its band count this frame and per stream the LODs it
       drew (bit k: LOD k), which the hardware path then skips */
    _oak_vk_buffer craster;
    uint32_t craster_bands;
    uint8_t craster_lods[OAK_STREAM_MAX_PER_VIEW];
    /* ... and in the shadow pass (vk_craster.c): its (band, cascade) rows,
       the regions they drew (bit cascade * 2 + 1 for movers) and per
       cascade and stream the LODs drawn, which the caster draws skip */
    uint32_t craster_shadow_bands, craster_shadow_regions;
    uint8_t craster_shadow_lods[OAK_MAX_CASCADES][OAK_STREAM_MAX_PER_VIEW];
    uint64_t hiz_frame; /* frame_count of the slot's last Hi-Z frame */
    _oak_vk_garbage *garbage;
    uint32_t garbage_count, garbage_capacity;
    VkQueryPool queries;
    uint32_t query_count;
    const char *query_names[OAK_VK_MAX_TIMESTAMPS];
    double cpu_ms[OAK_VK_MAX_TIMESTAMPS];
    double wait_ms; /* of cpu_ms: waiting for this slot's last submission (stage slotwait) */
} _oak_vk_frame;

enum {
    OAK_VK_PIPE_SHADOW,
    OAK_VK_PIPE_SHADOW_MASKED,
    OAK_VK_PIPE_VIS,        /* opaque, back faces culled */
    OAK_VK_PIPE_VIS_2SIDED, /* opaque, double-sided */
    OAK_VK_PIPE_VIS_MASKED,
    OAK_VK_PIPE_VIS_MASKED_2SIDED,
    OAK_VK_PIPE_RESOLVE,
    OAK_VK_PIPE_POST,
    OAK_VK_PIPE_FXAA,
    OAK_VK_PIPE_BLEND, /* BLEND surfaces, back faces culled */
    OAK_VK_PIPE_BLEND_2SIDED,
    OAK_VK_PIPE_BLEND_UNLIT, /* BLEND surfaces of a plain unlit material (blend_unlit.frag) */
    OAK_VK_PIPE_BLEND_UNLIT_2SIDED,
    OAK_VK_PIPE_BLEND_WATER_ID, /* water's pixels found (blend_water_id.frag) */
    OAK_VK_PIPE_BLEND_WATER_ID_2SIDED,
    OAK_VK_PIPE_BLEND_WATER, /* ... and shaded over the frame in compute (blend_water.comp) */
    OAK_VK_PIPE_LIGHTGRID,
    OAK_VK_PIPE_LAMP, /* lamp atlas faces (vk_pass_lampshadow.c) */
    OAK_VK_PIPE_LAMP_MASKED,
    OAK_VK_PIPE_GTAO_PREFILTER, /* the gtao pass's four steps, in order */
    OAK_VK_PIPE_GTAO_MIPS,
    OAK_VK_PIPE_GTAO_SEARCH,
    OAK_VK_PIPE_GTAO_DENOISE,
    OAK_VK_PIPE_SKYCAPTURE,     /* the sky capture's mips (and the BRDF table once) */
    OAK_VK_PIPE_SKYFILTER,      /* its irradiance and prefiltered levels */
    OAK_VK_PIPE_EXPOSURE_METER, /* eye adaptation: the histogram (vk_pass_exposure.c) */
    OAK_VK_PIPE_EXPOSURE_STEP,  /* ... and the camera's step */
    OAK_VK_PIPE_INSTCULL,       /* instance streams' cull-and-LOD kernel */
    OAK_VK_PIPE_VIS_STREAM,     /* streams from the instcull lists: the four vis groups */
    OAK_VK_PIPE_VIS_STREAM_2SIDED,
    OAK_VK_PIPE_VIS_STREAM_MASKED,
    OAK_VK_PIPE_VIS_STREAM_MASKED_2SIDED,
    OAK_VK_PIPE_SHADOW_STREAM, /* stream casters from the instcull cascade lists */
    OAK_VK_PIPE_SHADOW_STREAM_MASKED,
    OAK_VK_PIPE_CRASTER,              /* small stream triangles in compute (vk_craster.c) */
    OAK_VK_PIPE_CRASTER_MERGE,        /* ... and their pixels into the visibility buffer */
    OAK_VK_PIPE_CRASTER_SHADOW,       /* small stream casters in compute (vk_craster.c) */
    OAK_VK_PIPE_CRASTER_SHADOW_MERGE, /* ... and their texels into a cascade's tile */
    OAK_VK_PIPE_CRASTER_PLAN,         /* the camera bands' items and groups (vk_craster.c) */
    OAK_VK_PIPE_MESHCULL,             /* plain draws' meshlets culled (vk_meshcull.c) */
    OAK_VK_PIPE_MESHCULL_SCAN,        /* ... their jobs' regions placed */
    OAK_VK_PIPE_MESHCULL_WRITE,       /* ... and their triangles written there */
    OAK_VK_PIPE_COUNT
};
#define OAK_VK_VIS_GROUPS 4 /* vis pipelines, in enum order from OAK_VK_PIPE_VIS */
/* Caster command groups: per cascade, static then movers, each plain then
   masked (vk_pass_shadow.c draws a cascade's static or mover pair alone). */
#define OAK_VK_SHADOW_GROUPS                        (OAK_MAX_CASCADES * 4)
#define OAK_VK_SHADOW_GROUP(cascade, mover, masked) ((cascade)*4 + (mover)*2 + (masked))

/* Native presentation's state (vk_present.c). */
typedef struct _oak_vk_swap {
    const oak_window_hooks *window;
    VkSwapchainKHR chain;
    VkFormat format;
    VkPresentModeKHR mode;
    VkExtent2D extent;
    uint32_t count;
    VkImage images[OAK_VK_SWAP_MAX];
    VkImageLayout layouts[OAK_VK_SWAP_MAX];
    VkSemaphore rendered[OAK_VK_SWAP_MAX]; /* per image: the present waits on it */
    VkSemaphore acquired[OAK_VK_FRAMES];   /* per slot: the copy waits on it */
    VkCommandPool pool;
    VkCommandBuffer cmd[OAK_VK_FRAMES];
    VkFence fence[OAK_VK_FRAMES];
    bool submitted[OAK_VK_FRAMES]; /* by the render slot whose output it read */
    bool stale; /* suboptimal or out of date: made again before the next present */
    /* the picture and the panel composed here, then blitted (any size, any
       swapchain format) into the acquired image */
    _oak_vk_image image;
    _oak_vk_buffer panel[OAK_VK_FRAMES];
    _oak_vk_buffer capture; /* a test's read-back of the presented image */
    bool can_capture;       /* the images allow TRANSFER_SRC */
    uint32_t recreated;     /* swapchains made after the first */
    char words[40];         /* "swapchain fifo" */
} _oak_vk_swap;

typedef struct _oak_vk {
    /* device */
    VkInstance instance;
    VkSurfaceKHR surface; /* a window's (vk_present.c); VK_NULL_HANDLE headless */
    _oak_vk_swap swap;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem_props;
    bool validation, multi_draw, timestamps, lost;
    uint64_t fence_timeout; /* ns: OAK_VK_FENCE_TIMEOUT, or _CPU on a CPU device */
    bool indirect_count;    /* vkCmdDrawIndexedIndirectCount (Vulkan 1.2's drawIndirectCount) */
    bool count_sticks;      /* lavapipe: a count draw's count buffer stays bound (vk_hiz.c) */
    bool craster_ok;        /* shaderInt64 and 64-bit buffer atomics: the compute raster */
    bool water_compute; /* fragmentStoresAndAtomics: water shaded in compute (vk_pass_blend.c) */
    _oak_vk_buffer craster_depth;  /* its uint64 per pixel (vk_craster.c) */
    uint32_t craster_logged;       /* the band count last logged */
    uint32_t craster_split_logged; /* ... and of them per-instance bands */
    _oak_vk_buffer craster_shadow; /* the shadow compute raster's texels (vk_craster.c) */
    uint32_t craster_shadow_logged;
    char device_name[300];
    /* vk_pipeline_cache.c: read at start, written back at the end */
    VkPipelineCache pipeline_cache;
    size_t pipeline_cache_loaded; /* bytes read from disk */

    /* memory */
    _oak_vk_block *blocks;
    uint32_t block_count, block_capacity;
    uint64_t block_size;

    /* objects and bytes alive, for leak tests */
    int64_t live_buffers, live_images, live_views, live_allocs;
    uint64_t device_bytes;
    int32_t fail_alloc_in; /* tests: > 0 fails that many-th next vkAllocateMemory */

    /* output and passes */
    uint32_t width, height, shadow_size;
    /* TAA upsampling: the size the output-sized targets (hdr, ldr, the
       slots' outputs) are made at, at least width x height (0: that), and
       the last frame's picture size */
    uint32_t out_width, out_height, pic_width, pic_height;
    bool targets_bad; /* a resize failed part way: rebuilt before the next frame */
    _oak_vk_image depth, ids, hdr, shadow;
    _oak_vk_image shadow_static; /* the cascades' cached static layers, laid out as shadow */
    oak_shadow_layer shadow_layer[OAK_MAX_CASCADES];
    oak_shadow_stats shadow_stats; /* the last frame's */
    _oak_vk_buffer ao;             /* the gtao pass's floats (_oak_gpu_ao_floats) */
    _oak_vk_buffer ldr;            /* packed RGBA8 after tone mapping, before FXAA */
    VkSampler sampler;             /* nearest, for texelFetch through combined samplers */
    _oak_vk_image dummy_array;     /* fills texture class slots not in use */
    /* Bindless textures (vk_resources.c): 0 when the device lacks descriptor
       indexing or OAK_BINDLESS=off (the size classes then), else the runtime
       array's length (OAK_B_BINDLESS), within the device's limits */
    uint32_t bindless;
    _oak_vk_image dummy_image;            /* fills freed elements (2D, 1x1) */
    VkDescriptorImageInfo *bindless_info; /* per element: its view, or the dummy's */
    uint32_t bindless_info_capacity;
    uint32_t bindless_high; /* elements handed out (high water) */
    uint32_t bindless_live; /* elements holding a texture */
    uint32_t *bindless_free;
    uint32_t bindless_free_count, bindless_free_capacity;

    /* geometry pools: positions (vec4), attributes (oak_gpu_vertex), indices */
    _oak_vk_buffer positions, attributes, indices;
    _oak_vk_ranges vertex_ranges, index_ranges;
    /* meshlet records and triangle words of the meshes culled by meshlets
       (oak_gpu.h OAK_B_MESHLETS), in uvec4 (vk_meshcull.c) */
    _oak_vk_buffer meshlets;
    _oak_vk_ranges meshlet_ranges;
    bool meshcull;                    /* OAK_MESHCULL was not off when the backend started */
    oak_meshlet_stats ml_stats;       /* the latest finished frame's counters */
    uint64_t ml_stats_frame;          /* ... and that frame's number (0: none yet) */
    oak_upload_stats up_now, up_last; /* this frame's mesh uploads, the last submitted's */
    uint32_t mc_fallback;             /* draws the last plan sent whole (no room) */
    /* meshcull_scan.comp and meshcull_write.comp for Hi-Z's LATE step
       (their EARLY ones are OAK_VK_PIPE_MESHCULL_SCAN and _WRITE) */
    VkPipeline mc_late[2];
    uint8_t *mc_take; /* per view draw: drawn from the meshcull pass's commands */
    uint32_t mc_take_cap;
    uint32_t mc_first[OAK_VK_VIS_GROUPS], mc_count[OAK_VK_VIS_GROUPS]; /* commands, per group */
    uint32_t mc_cmd_word; /* the first command's word in the slot's buffer */
    /* shadow jobs (a cluster-LOD caster's cut by its cascade's texel):
       their commands per shadow group (from mc_cmd_word, by job index) */
    uint32_t mcs_first[OAK_VK_SHADOW_GROUPS], mcs_count[OAK_VK_SHADOW_GROUPS];
    /* the mesh path (vk_mesh_shader.c): the device has task and mesh
       shaders and neither OAK_MESH_SHADERS nor OAK_MESHCULL is off; its
       entry point, its pipelines (one per vis group) and the most task
       workgroups a draw takes (x, y, in all). On a mesh-path frame mc_first
       and mc_count count chunks, not commands (vk_meshcull.c). */
    bool mesh_shaders;
    PFN_vkCmdDrawMeshTasksEXT draw_mesh_tasks;
    VkPipeline mesh_pipes[OAK_VK_VIS_GROUPS];
    uint32_t mesh_task_max[3];
    bool mesh_warned;     /* said once that a group's chunks were over the limit */
    _oak_vk_mesh *meshes; /* by asset slot */
    uint32_t mesh_capacity;

    /* textures and materials */
    _oak_vk_texclass classes[OAK_GPU_TEXTURE_CLASSES];
    uint32_t class_count;
    _oak_vk_texture *textures; /* by asset slot */
    uint32_t texture_capacity;
    _oak_vk_material *materials; /* by asset slot */
    uint32_t material_capacity;
    _oak_vk_buffer material_buf; /* oak_gpu_material by asset slot */
    uint32_t *material_dirty;    /* slots to rewrite */
    uint32_t dirty_count, dirty_capacity;

    /* pipelines */
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipe_layout;
    VkDescriptorPool desc_pool;
    VkPipeline pipes[OAK_VK_PIPE_COUNT]; /* made on first use: _oak_vk_bind */
    oak_result pipe_result;              /* the first failure to make one, this frame */

    /* frames */
    _oak_vk_frame frames[OAK_VK_FRAMES];
    uint64_t frame_count; /* frames begun */
    uint32_t slot;        /* current frame's slot */
    bool recording;       /* slot's command buffer is open */
    int32_t last_slot;    /* last submitted, -1 none */
    uint32_t draw_count, caster_count;
    uint32_t vis_first[OAK_VK_VIS_GROUPS], vis_count[OAK_VK_VIS_GROUPS];
    uint32_t shadow_first[OAK_VK_SHADOW_GROUPS], shadow_count[OAK_VK_SHADOW_GROUPS];
    struct _oak_vk_draw_info *infos; /* per draw, kept across frames */
    uint32_t infos_capacity;
    VkDrawIndexedIndirectCommand *cmds; /* built here, copied to the frame's buffer */
    uint32_t cmds_capacity;
    float *keys; /* BLEND sort keys per draw */
    uint32_t keys_capacity;
    uint32_t blend_first, blend_count; /* commands */
    uint32_t blend_surfaces;           /* the BLEND draws they draw */
    uint32_t blend_unlit;              /* commands drawn by blend_unlit.frag */
    uint32_t blend_compute;            /* water commands shaded by blend_water.comp */
    bool blend_ok, blend_warned;       /* the HDR format blends as a colour attachment */
    bool grid_warned;                  /* lamp grid overflow said once */
    /* per BLEND command: the view draw it stands for (a device-written
       BLEND stream's command starts past the lists: its unit's one draw) */
    uint32_t *blend_draw;
    uint32_t blend_draw_capacity;
    double sync_ms;
    double wait_ms; /* the slot's fence (and present) waited for since the last render */
    _oak_vk_track track[OAK_TARGET_COUNT];
    /* the lamp atlas (vk_pass_lampshadow.c): static layers, the atlas the
       resolve reads, per tile the static_hash held and per face this
       frame's command ranges (layer: static, movers; plain, masked, end) */
    uint32_t cmd_count; /* commands the upload pass wrote before the lamp faces' */
    _oak_vk_image lamp_static, lamp_live;
    struct {
        uint64_t hash[OAK_LAMP_ATLAS_FACES];
        bool drawn[OAK_LAMP_ATLAS_FACES], had_movers[OAK_LAMP_ATLAS_FACES];
        uint32_t range[OAK_LAMP_ATLAS_FACES][2][3];
    } lamp;
    /* the sky light's maps (vk_pass_skycapture.c), host-visible for the head */
    _oak_vk_buffer sky;
    uint64_t sky_hash; /* of the environment captured; 0: none yet */
    uint32_t sky_captures;
    bool sky_brdf; /* the BRDF table is built */
    /* eye adaptation's histogram and camera state (vk_pass_exposure.c),
       host-visible for the test hook's read; one buffer for all the frames in flight,
       as each frame steps from the last */
    _oak_vk_buffer exposure;
    /* the bloom pyramid (render/bloom.h) and its steps' pipelines, made on
       first use (vk_pass_bloom.c) */
    _oak_vk_buffer bloom;
    VkPipeline bloom_pipes[OAK_BLOOM_STEPS];
    /* the opaque frame's copy (render/opaque_copy.h) and its levels'
       pipelines, made on first use (vk_pass_opaquecopy.c) */
    _oak_vk_buffer opaque;
    VkPipeline opaque_pipes[OAK_GPU_OPAQUE_LEVELS];
    /* the resolve's mirror buffer (render/ssr.h) and the ssr pass's
       pipeline, made on first use (vk_pass_ssr.c) */
    _oak_vk_buffer ssr;
    VkPipeline ssr_pipe;
    /* the skin pass (vk_pass_skin.c): the meshes whose pose moved, queued
       as their draws sync them this frame, the most vertices among them,
       and its pipeline, made on first use */
    _oak_gpu_skin_queue skin;
    VkPipeline skin_pipe;
    /* depth of field's half-size images and tiles (render/dof.h) and its
       steps' pipelines, made on first use (vk_pass_dof.c) */
    _oak_vk_buffer dof;
    VkPipeline dof_pipes[OAK_DOF_STEPS];
    /* the clouds' buffer (OAK_GPU_CLOUD_*; its noise table baked once per
       buffer) and the passes' pipelines, made on first use (vk_pass_clouds.c) */
    _oak_vk_buffer clouds;
    bool clouds_baked;
    VkPipeline cloud_pipes[3]; /* OAK_CLOUD_STEPS (render/clouds.h) */
    /* the fog's froxels (oak_gpu_fog) and its pipelines (vk_pass_fog.c) */
    _oak_vk_buffer fog;
    VkPipeline fog_pipes[2]; /* OAK_FOG_STEPS (render/fog.h) */
    VkPipeline cloudmix_pipe;
    /* the taa pass's histories (render/taa.h) and its two steps' pipelines,
       made on first use (vk_pass_taa.c) */
    _oak_vk_buffer taa;
    VkPipeline taa_pipes[2];
    /* the reflection probes' records and maps (vk_probes.c), host-visible */
    _oak_vk_buffer probes;
    uint64_t probe_version; /* of the view whose probes it holds */
    /* two-pass Hi-Z (vk_hiz.c): the visible bits and the pyramid, kept
       across frames (one queue orders the frames' uses), its steps'
       pipelines, and the counters of the latest finished frame that ran it */
    _oak_vk_buffer hiz_keep;
    VkPipeline hiz_pipes[OAK_GPU_HIZ_STEPS];
    /* the streams' bits in hiz_keep (gpu_records.h), and instcull.comp's
       LATE step (its EARLY step is OAK_VK_PIPE_INSTCULL) */
    _oak_gpu_hiz_streams hiz_streams;
    VkPipeline hiz_stream_late;
    /* Hi-Z per meshlet (vk_hiz.c): meshcull.comp's LATE step (its EARLY
       step is OAK_VK_PIPE_MESHCULL), and the placement of the meshlets'
       bits in hiz_keep after the streams' (backend/gpu/meshcull_hiz.h) */
    VkPipeline hiz_meshcull_late;
    _oak_meshcull_hiz_keys hm;
    oak_occlusion_stats hiz_stats;
    uint64_t hiz_stats_frame; /* 0: none read yet */
    /* the particles pass's two kernels (vk_pass_particles.c), made on first use */
    struct _oak_vk_particle_kernels *particle_kernels;
    uint64_t particle_uploads; /* blocks copied up, any slot (a test's count) */
    /* the grass pass's own (vk_grass.c), made on first use */
    struct _oak_vk_grass *grass;
} _oak_vk;

/* device */
oak_result _oak_vk_fail(_oak_vk *vk, VkResult r, const char *call, const char *file, int line);
const char *_oak_vk_result_name(VkResult r);
oak_result _oak_vk_device_create(_oak_vk *vk, const char *want, bool hardware_only,
                                 const oak_window_hooks *window);
/* native presentation (vk_present.c): the window's surface, checked against
   the queue family; the swapchain, made at the first present and again on a
   resize; all of it torn down (after a wait) */
oak_result _oak_vk_surface_create(_oak_vk *vk, const oak_window_hooks *window, uint32_t family);
oak_result _oak_vk_present(_oak_vk *vk, uint32_t width, uint32_t height,
                           const oak_present_panel *panel, uint8_t *capture);
/* Waits for the present that read render slot `slot`'s output. */
oak_result _oak_vk_present_wait(_oak_vk *vk, uint32_t slot);
void _oak_vk_present_destroy(_oak_vk *vk);
void _oak_vk_device_destroy(_oak_vk *vk);
oak_result _oak_vk_probe(char *report, size_t size);

/* memory */
oak_result _oak_vk_memory_alloc(_oak_vk *vk, const VkMemoryRequirements *req, _oak_vk_mem_use use,
                                _oak_vk_alloc *out, void **mapped);
void _oak_vk_memory_free(_oak_vk *vk, _oak_vk_alloc *a);
void _oak_vk_memory_release_all(_oak_vk *vk);
oak_result _oak_vk_buffer_create(_oak_vk *vk, _oak_vk_buffer *b, uint64_t size,
                                 VkBufferUsageFlags usage, _oak_vk_mem_use use);
void _oak_vk_buffer_destroy(_oak_vk *vk, _oak_vk_buffer *b);
oak_result _oak_vk_image_create(_oak_vk *vk, _oak_vk_image *img, VkFormat format, uint32_t w,
                                uint32_t h, uint32_t layers, uint32_t mips, VkImageUsageFlags usage,
                                bool array);
void _oak_vk_image_destroy(_oak_vk *vk, _oak_vk_image *img);
/* Destroys when the current frame's GPU work is done. */
oak_result _oak_vk_buffer_retire(_oak_vk *vk, _oak_vk_buffer *b);
/* A pass's device-local storage buffer b (frame target `target`) holding at
   least `bytes`: kept when it does; else the old one retires with this
   frame (earlier frames may still read it), its tracking is reset and a new
   one is made (bloom, dof, gtao, taa). */
oak_result _oak_vk_target_buffer_fit(_oak_vk *vk, _oak_vk_buffer *b, oak_target_id target,
                                     uint64_t bytes);
oak_result _oak_vk_image_retire(_oak_vk *vk, _oak_vk_image *img);
void _oak_vk_garbage_collect(_oak_vk *vk, _oak_vk_frame *f);
/* Grows a buffer (new one, old contents copied on the GPU) to at least size. */
oak_result _oak_vk_buffer_grow(_oak_vk *vk, _oak_vk_buffer *b, uint64_t size,
                               VkBufferUsageFlags usage, _oak_vk_mem_use use, bool keep);
/* Grows an upload buffer, keeping its capacity doubling, contents not kept. */
oak_result _oak_vk_upload_reserve(_oak_vk *vk, _oak_vk_buffer *b, uint64_t size,
                                  VkBufferUsageFlags usage);

/* frame: an open command buffer for the current slot, staging into it */
oak_result _oak_vk_frame_begin(_oak_vk *vk);
oak_result _oak_vk_wait_all(_oak_vk *vk);
/* The particle kernel over n particles (self: the backend's, as created):
   their records and the counts per flipbook frame, waited for
   (vk_particles.c; tests/test_particles_gpu.c). */
oak_result _oak_vk_particles_run(void *self, const oak_gpu_particle_emitter *c,
                                 const oak_gpu_particle *parts, uint32_t n, oak_instance *records,
                                 uint32_t counts[OAK_PARTICLE_FRAMES]);
/* The order of n records grouped by frame (frames NULL: all 0), far to
   near within one seen from eye along fwd, ties in index order: the
   bitonic sort of shaders/particles_sort.comp.glsl. */
oak_result _oak_vk_particles_sort(void *self, const float eye[3], const float fwd[3],
                                  const oak_instance *records, const uint8_t *frames, uint32_t n,
                                  uint32_t *order);
/* Waits for one fence within the device's timeout; a timeout is reported as
   such and counted as a lost device. */
oak_result _oak_vk_wait_fence(_oak_vk *vk, VkFence fence, const char *file, int line);
oak_result _oak_vk_render(_oak_vk *vk, const oak_render_view *view);
/* Copies size bytes into this frame's staging buffer; returns its offset. */
oak_result _oak_vk_stage(_oak_vk *vk, const void *data, uint64_t size, uint64_t align,
                         uint64_t *offset);
void _oak_vk_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src, VkAccessFlags2 src_access,
                     VkPipelineStageFlags2 dst, VkAccessFlags2 dst_access);
void _oak_vk_image_barrier(VkCommandBuffer cmd, _oak_vk_image *img, VkImageLayout layout,
                           VkPipelineStageFlags2 src, VkAccessFlags2 src_access,
                           VkPipelineStageFlags2 dst, VkAccessFlags2 dst_access);

/* resources: geometry pools, textures, materials */
oak_result _oak_vk_resources_init(_oak_vk *vk);
void _oak_vk_resources_release(_oak_vk *vk);
oak_result _oak_vk_sync_mesh(_oak_vk *vk, oak_mesh mesh, const _oak_vk_mesh **out);
/* Checks each asset against the registry once a frame; later calls in the
   same frame are a table lookup. */
oak_result _oak_vk_sync_material(_oak_vk *vk, oak_material material, uint32_t *slot);
oak_result _oak_vk_flush_materials(_oak_vk *vk);

/* pipelines and passes */
oak_result _oak_vk_pipeline_cache_open(_oak_vk *vk);
void _oak_vk_pipeline_cache_close(_oak_vk *vk);
oak_result _oak_vk_pipelines_create(_oak_vk *vk);
void _oak_vk_pipelines_destroy(_oak_vk *vk);
oak_result _oak_vk_targets_create(_oak_vk *vk);
void _oak_vk_targets_destroy(_oak_vk *vk);
void _oak_vk_write_descriptors(_oak_vk *vk, _oak_vk_frame *f);

/* the frame: one run function per row of the pass table (vk_pass_<name>.c),
   recorded into the slot's command buffer by _oak_vk_render in table order */
typedef oak_result (*_oak_vk_run_fn)(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_upload(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_lightgrid(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_skycapture(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_shadow(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* vk_pass_shadow.c: tiles of a depth atlas cut into a cached static layer
   (layer_target) and movers drawn over its copies (map_target), as each
   tile's plan says; draw(i, mover) draws tile i's static casters or movers.
   Adds what it did to stats. */
void _oak_vk_shadow_layered(_oak_vk *vk, _oak_vk_frame *f, oak_target_id layer_target,
                            oak_target_id map_target, uint32_t count, const VkRect2D *rects,
                            const oak_shadow_layer_plan *plans, oak_shadow_stats *stats,
                            void (*draw)(_oak_vk *vk, _oak_vk_frame *f, uint32_t i, bool mover));
oak_result _oak_vk_run_lampshadow(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* vk_rendering.c: dynamic rendering of area into color (NULL: none) and
   depth, each cleared or loaded, then stored */
void _oak_vk_begin_rendering(VkCommandBuffer cmd, const _oak_vk_image *color, bool clear_color,
                             const _oak_vk_image *depth, bool clear_depth, VkRect2D area);
/* vk_rendering.c: the picture's viewport and scissor, and the index buffer */
void _oak_vk_main_view(_oak_vk *vk, VkCommandBuffer cmd);
oak_result _oak_vk_run_raster(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* vk_hiz.c: two-pass Hi-Z. reserve (upload): the slot's buffer with the
   head and a candidate per view draw in the vis groups' commands (one
   command each), the kept buffer sized; raster: pass 1, the pyramid and
   the test, pass 2, inside the raster pass; stats: the latest finished
   frame's counters, without waiting. */
oak_result _oak_vk_hiz_reserve(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                               const VkDrawIndexedIndirectCommand *cmds);
void _oak_vk_hiz_raster(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
bool _oak_vk_hiz_stats(_oak_vk *vk, oak_occlusion_stats *out);
void _oak_vk_hiz_destroy(_oak_vk *vk);
/* vk_frame.c: a timestamp closing the stage before it, named `name` */
void _oak_vk_stamp(_oak_vk *vk, _oak_vk_frame *f, const char *name);
/* vk_pass_lampshadow.c: the lamp casters' records and commands after the
   upload pass's, the slots block, the atlases (full size once needed) */
oak_result _oak_vk_lamp_records(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                                uint32_t first_draw, uint32_t first_cmd);
oak_result _oak_vk_lamp_atlas(_oak_vk *vk, bool full);
void _oak_vk_lamp_destroy(_oak_vk *vk);
oak_result _oak_vk_run_gtao(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_resolve(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_blend(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_blend_reserve(_oak_vk *vk, const oak_render_view *v);
oak_result _oak_vk_run_taa(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* vk_pass_taa.c: the histories sized for the view (upload), pipelines released */
oak_result _oak_vk_taa_reserve(_oak_vk *vk, const oak_render_view *v);
void _oak_vk_taa_destroy(_oak_vk *vk);
oak_result _oak_vk_run_exposure(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_bloom(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* vk_pass_opaquecopy.c: the copy's buffer sized for the view (upload), its
   pipelines released (with the others) */
oak_result _oak_vk_run_opaquecopy(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_opaquecopy_reserve(_oak_vk *vk, const oak_render_view *v);
void _oak_vk_opaquecopy_destroy(_oak_vk *vk);
/* vk_pass_skin.c: the jobs and palettes of the meshes queued in vk->skin
   as their draws synced them written (upload, before the descriptors), the
   pass recorded, its pipeline released */
oak_result _oak_vk_skin_reserve(_oak_vk *vk, _oak_vk_frame *f);
oak_result _oak_vk_run_skin(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
void _oak_vk_skin_destroy(_oak_vk *vk);
/* vk_pass_ssr.c: the mirror buffer sized for the view (upload), its
   pipeline released (with the others) */
oak_result _oak_vk_run_ssr(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_ssr_reserve(_oak_vk *vk, const oak_render_view *v);
void _oak_vk_ssr_destroy(_oak_vk *vk);
/* vk_pass_bloom.c: the pyramid's buffer sized for the view (upload) and the
   steps' pipelines released (with the others) */
oak_result _oak_vk_bloom_reserve(_oak_vk *vk, const oak_render_view *v);
void _oak_vk_bloom_destroy(_oak_vk *vk);
/* vk_pass_dof.c: depth of field, its buffer sized for the view (upload) */
oak_result _oak_vk_run_dof(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_dof_reserve(_oak_vk *vk, const oak_render_view *v);
void _oak_vk_dof_destroy(_oak_vk *vk);
/* vk_pass_clouds.c: the clouds and cloudmix passes, their buffer sized for
   the view (upload) */
oak_result _oak_vk_run_clouds(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_cloudmix(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_clouds_reserve(_oak_vk *vk, const oak_render_view *v);
/* the noise table into the clouds buffer unless it holds it, with the
   barrier its readers need (the sky capture and the clouds pass) */
oak_result _oak_vk_clouds_bake(_oak_vk *vk, _oak_vk_frame *f);
void _oak_vk_clouds_destroy(_oak_vk *vk);
/* vk_pass_fog.c: the fog pass, its buffer sized for the view's grid */
oak_result _oak_vk_run_fog(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_fog_reserve(_oak_vk *vk, const oak_render_view *v);
void _oak_vk_fog_destroy(_oak_vk *vk);
/* vk_pipelines.c: a compute pipeline; spec0, when given, is constant_id 0 */
/* A raster pipeline over stages (vertex and fragment, vertex alone for a
   plain shadow, or task, mesh and fragment) with the pass's fixed state:
   shadow depth only, vis depth and ids, blend "over" into the HDR target;
   back faces culled unless two_sided or shadow (vk_pipelines.c). */
oak_result _oak_vk_raster_stages(_oak_vk *vk, const VkPipelineShaderStageCreateInfo *stages,
                                 uint32_t stage_count, bool shadow, bool two_sided, bool blend,
                                 VkPipeline *out);
oak_result _oak_vk_compute_spec(_oak_vk *vk, const uint32_t *code, size_t size,
                                const uint32_t *spec0, VkPipeline *out);
oak_result _oak_vk_run_post(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_fxaa(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* true when the blend pass has nothing it can draw this frame */
bool _oak_vk_blend_idle(_oak_vk *vk);
/* vk_frame.c: what the passes share */
/* Binds pipeline `pipe` (OAK_VK_PIPE_*), making it first if no frame has
   used it yet; false when that fails (the error is kept in vk->pipe_result
   and fails the frame; the caller records nothing with it). */
bool _oak_vk_bind(_oak_vk *vk, VkCommandBuffer cmd, uint32_t pipe);
void _oak_vk_draw_group(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f, uint32_t pipe,
                        uint32_t first, uint32_t count);
void _oak_vk_dispatch(_oak_vk *vk, VkCommandBuffer cmd, uint32_t pipe);
/* A pass of `steps` dispatches of one compute shader whose specialization
   constant 0 is the step (pipes[s], made here on first use): step s covers
   grid[s] pixels in OAK_GPU_GROUP squares, each after a compute barrier on
   what the step before wrote (bloom, dof). */
oak_result _oak_vk_compute_steps(_oak_vk *vk, _oak_vk_frame *f, const uint32_t *code, size_t size,
                                 VkPipeline *pipes, uint32_t steps, const uint32_t (*grid)[2]);

/* vk_track.c: barriers from the rows' reads and writes. Before a pass (or a
   copy) touches a target, the barrier that use needs after what came
   before, with the layout it needs; reset when a target is made anew. */
void _oak_vk_track_use(_oak_vk *vk, VkCommandBuffer cmd, oak_target_id target, oak_use use);
void _oak_vk_track_row(_oak_vk *vk, VkCommandBuffer cmd, const oak_pass_row *row);
/* The image behind a frame target; NULL for the ones in buffers. */
_oak_vk_image *_oak_vk_target_image(_oak_vk *vk, oak_target_id target);
void _oak_vk_track_reset(_oak_vk *vk, oak_target_id target);

/* vk_pass_gtao.c: the ao buffer made big enough for this view's gtao (16
   bytes when it does not run: the resolve binds it all the same), before
   the frame's descriptors are written */
oak_result _oak_vk_gtao_reserve(_oak_vk *vk, const oak_render_view *v);

/* the lamp grid's per-slot buffers and read-back (vk_pass_lightgrid.c) */
oak_result _oak_vk_lightgrid_create(_oak_vk *vk);
void _oak_vk_lightgrid_destroy(_oak_vk *vk);
oak_result _oak_vk_lightgrid_read(_oak_vk *vk, uint32_t *words, size_t count);
/* instance streams' instcull pass (vk_pass_instcull.c): buffers sized for
   the view in the upload pass (before the descriptors), the dispatch, and
   the counts read back */
oak_result _oak_vk_instcull_reserve(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
oak_result _oak_vk_run_particles(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* The first draw record past the frame's lists (the view's draws, the
   casters, the lamp casters): where device-written BLEND streams' records go. */
uint32_t _oak_vk_blend_slots_from(const oak_render_view *v);
void _oak_vk_particles_destroy(_oak_vk *vk);
/* Test hook: n records of the last frame's instance buffer from `first`
   (the particles pass's output where instcull read it), waited for. */
oak_result _oak_vk_particles_frame_records(void *self, uint64_t first, uint32_t n,
                                           oak_instance *out);
/* Test hook: emitter blocks the particles pass copied up so far. */
uint64_t _oak_vk_particles_uploads(void *self);
/* Test hook: the instance counts the last frame's BLEND commands of the
   "over" books' frames drew (the draw kernel's counts), summed per frame
   over the books, waited for. */
oak_result _oak_vk_particles_book_counts(void *self, uint32_t counts[OAK_PARTICLE_FRAMES]);
oak_result _oak_vk_run_instcull(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
void _oak_vk_instcull_destroy(_oak_vk *vk);
oak_result _oak_vk_instcull_read(_oak_vk *vk, uint32_t per_lod[OAK_STREAM_LODS],
                                 uint32_t *per_stream, uint32_t max_streams, uint32_t *split);
/* The raster pass's native streams: each one's LOD commands from the lists
   of instcull view `view` (0, the camera's; under Hi-Z 0 is pass 1's and
   OAK_GPU_INSTCULL_LATE pass 2's). */
void _oak_vk_draw_streams(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f, uint32_t view);
/* vk_craster.c: the compute raster's buffers (upload), its dispatch (the
   raster pass, before the rendering begins), its merge (the rendering's
   first draw) and teardown */
oak_result _oak_vk_craster_reserve(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* The per-instance split into the slot's instcull heads (small_at), once the
   instcull pass filled them, when the compute raster may run this frame */
void _oak_vk_craster_split(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
void _oak_vk_craster_run(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
void _oak_vk_craster_merge(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f);
/* Under two-pass Hi-Z, between the passes: the same bands again from the
   LATE lists, for pass 2's merge (after the streams' LATE step). */
void _oak_vk_craster_late(_oak_vk *vk, _oak_vk_frame *f);
/* ... the cascades' small stream casters in compute (before the shadow
   pass's renderings, for the regions its plans draw), and one region's
   texels into its tile inside the rendering that draws it */
void _oak_vk_craster_shadow_run(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                                const oak_shadow_layer_plan *plans, uint32_t cascades);
void _oak_vk_craster_shadow_merge(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f,
                                  uint32_t cascade, bool mover);
void _oak_vk_craster_destroy(_oak_vk *vk);
oak_result _oak_vk_craster_depth_reserve(_oak_vk *vk);
/* The shadow pass's native stream casters into one cascade: the still
   streams (its static layer) or the moved ones (its movers); and how many
   moved streams cast into it. */
void _oak_vk_draw_stream_casters(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f,
                                 uint32_t cascade, bool movers);
uint32_t _oak_vk_stream_movers(const _oak_vk_frame *f, uint32_t cascade);
/* the reflection probes' buffer (vk_probes.c) */
oak_result _oak_vk_probes_create(_oak_vk *vk);
void _oak_vk_probes_destroy(_oak_vk *vk);
oak_result _oak_vk_probes_upload(_oak_vk *vk, const oak_render_view *v);
/* the exposure buffer (vk_pass_exposure.c) and the test hook's read */
oak_result _oak_vk_exposure_create(_oak_vk *vk);
void _oak_vk_exposure_destroy(_oak_vk *vk);
oak_result _oak_vk_exposure_read(_oak_vk *vk, float state[4]);
/* the sky buffer (vk_pass_skycapture.c) and its read-back */
oak_result _oak_vk_sky_create(_oak_vk *vk);
void _oak_vk_sky_destroy(_oak_vk *vk);
oak_result _oak_vk_sky_read(_oak_vk *vk, float *texels, size_t count, uint32_t *captures);

/* Keeps loaded Vulkan drivers mapped until exit (vk_pin.c). */
void _oak_vk_pin_drivers(void);

/* ---- meshlet culling (vk_meshcull.c) ------------------------------------ */

/* A mesh's meshlets into the pool when its draws may be culled by them
   (called as it is uploaded), and their release. */
oak_result _oak_vk_meshcull_upload(_oak_vk *vk, _oak_vk_mesh *m, oak_mesh h,
                                   const oak_mesh_data *d);
void _oak_vk_meshcull_free(_oak_vk *vk, _oak_vk_mesh *m);
/* The frame's jobs: which view draws (info, the first nd) are drawn from
   the meshcull pass's commands (vk->mc_take), their commands by group and
   their records' triangle map (prev.z); then which casters (info[nd, n))
   of a cluster-LOD mesh draw their cascade's cut (mc_take too, commands
   per shadow group); the slot's buffer always exists. */
oak_result _oak_vk_meshcull_plan(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                                 const struct _oak_vk_draw_info *info, uint32_t nd, uint32_t n);
/* After a count step of the meshcull pass (its EARLY one, or Hi-Z's LATE
   one in vk_hiz.c): the jobs' regions placed and their triangles written
   (meshcull_scan.comp, meshcull_write.comp), with the barriers between. */
void _oak_vk_meshcull_place(_oak_vk *vk, _oak_vk_frame *f, bool late);
oak_result _oak_vk_run_meshcull(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
/* The culled draws' commands in the vis groups (inside the raster's rendering). */
void _oak_vk_meshcull_draw(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f);
/* A shadow group's cut casters with `pipe` (inside the shadow pass's
   rendering; the pool's index buffer bound again after). */
void _oak_vk_meshcull_shadow_draw(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f,
                                  uint32_t group, uint32_t pipe);
void _oak_vk_meshcull_stats(_oak_vk *vk, oak_meshlet_stats *out);

/* ---- the mesh path (vk_mesh_shader.c) ------------------------------------ */

/* OAK_MESH_SHADERS=on (the mesh path is opt-in: vk_mesh_shader.c). */
bool _oak_vk_mesh_wanted(void);
/* After device creation where vk->mesh_shaders: the entry point and limits. */
void _oak_vk_mesh_start(_oak_vk *vk);
/* The chunk table after the jobs (shaders/common/mesh_path.glsl): its words
   for these jobs (counts: each job's meshlets), and writing it. */
uint64_t _oak_vk_mesh_table_words(uint64_t chunks);
/* The frame's jobs drawn by the task and mesh shaders, inside the raster's
   rendering; the barriers before and after it. */
void _oak_vk_mesh_draw(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f);
void _oak_vk_mesh_barrier_before(_oak_vk_frame *f);
void _oak_vk_mesh_barrier_after(_oak_vk_frame *f);
void _oak_vk_mesh_destroy(_oak_vk *vk);
void _oak_vk_meshcull_destroy(_oak_vk *vk);

#endif
