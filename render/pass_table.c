/* The pass table every backend walks, top to bottom, and the registry of the
 * frame targets its rows read and write. A new pass is a row here (and an
 * oak_pass_id) plus one run function per backend, each in its own file. */
#include <stddef.h>

#include "fog.h"
#include "pass_table.h"
#include "ssr.h"

static const oak_target_info k_targets[OAK_TARGET_COUNT] = {
    [OAK_TARGET_SCENE] = {"scene", OAK_TARGET_SIZE_ASSETS, OAK_TARGET_BUFFER,
                          OAK_TARGET_PERSISTENT},
    /* the static layers' copies with the movers over them (or, on the CPU,
       the layers themselves where no mover falls) */
    [OAK_TARGET_SHADOW_MAP] = {"shadow_map", OAK_TARGET_SIZE_SHADOW, OAK_TARGET_D32F,
                               OAK_TARGET_CACHED},
    [OAK_TARGET_DEPTH] = {"depth", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_D32F, OAK_TARGET_PER_FRAME},
    [OAK_TARGET_IDS] = {"ids", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_RG32UI, OAK_TARGET_PER_FRAME},
    [OAK_TARGET_HDR] = {"hdr", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_RGBA32F, OAK_TARGET_PER_FRAME},
    [OAK_TARGET_LDR] = {"ldr", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_RGBA8, OAK_TARGET_PER_FRAME},
    [OAK_TARGET_OUTPUT] = {"output", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_RGBA8,
                           OAK_TARGET_PER_FRAME},
    /* a fixed OAK_GPU_LIGHT_GRID_WORDS, whatever the output's size */
    [OAK_TARGET_LIGHT_GRID] = {"light_grid", OAK_TARGET_SIZE_ASSETS, OAK_TARGET_BUFFER,
                               OAK_TARGET_PER_FRAME},
    /* what stands still is drawn once: a cascade's layer is kept while its
       static_key holds (docs/SHADING.md "Cascade caching") */
    [OAK_TARGET_SHADOW_STATIC] = {"shadow_static", OAK_TARGET_SIZE_SHADOW, OAK_TARGET_D32F,
                                  OAK_TARGET_CACHED},
    /* a face's static layer is kept while its static_hash is the same;
       movers are drawn over a copy of it each frame */
    [OAK_TARGET_LAMP_ATLAS] = {"lamp_atlas", OAK_TARGET_SIZE_LAMP_ATLAS, OAK_TARGET_D32F,
                               OAK_TARGET_CACHED},
    /* floats laid out as _oak_gpu_ao_floats says (backend/gpu/gpu_records.h) */
    [OAK_TARGET_AO] = {"ao", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_BUFFER, OAK_TARGET_PER_FRAME},
    /* a fixed OAK_GPU_SKY_TEXELS RGBA32F texels, kept while the environment
       hashes the same (render/skylight.h) */
    [OAK_TARGET_SKY] = {"sky", OAK_TARGET_SIZE_ASSETS, OAK_TARGET_BUFFER, OAK_TARGET_CACHED},
    /* a fixed OAK_GPU_EXPOSURE_WORDS: the histogram (zero between frames)
       and the steered camera, carried from frame to frame */
    [OAK_TARGET_EXPOSURE] = {"exposure", OAK_TARGET_SIZE_ASSETS, OAK_TARGET_BUFFER,
                             OAK_TARGET_PERSISTENT},
    /* RGBA32F texels, the down then up levels as render/bloom.h lays them out */
    [OAK_TARGET_BLOOM] = {"bloom", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_BUFFER, OAK_TARGET_PER_FRAME},
    [OAK_TARGET_DOF] = {"dof", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_BUFFER, OAK_TARGET_PER_FRAME},
    /* RGBA32F texels, two histories of the output's size, one read while
       the other is written, swapping each frame (render/taa.h) */
    [OAK_TARGET_TAA] = {"taa", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_BUFFER, OAK_TARGET_PERSISTENT},
    /* RGBA32F texels: the shadow map, the noise table (baked once, so the
       buffer persists) and the march, as OAK_GPU_CLOUD_* lays them out */
    [OAK_TARGET_CLOUDS] = {"clouds", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_BUFFER,
                           OAK_TARGET_PERSISTENT},
    /* RGBA32F texels: two inject grids and the integrated one (oak_gpu_fog);
       the main view's inject reads last frame's grid as its history */
    [OAK_TARGET_FOG] = {"fog", OAK_TARGET_SIZE_ASSETS, OAK_TARGET_BUFFER, OAK_TARGET_PERSISTENT},
    /* RGBA32F texels: the lit opaque frame, then its 2 x 2 box mips
       (render/opaque_copy.h); written whole each frame a material reads it */
    [OAK_TARGET_OPAQUE] = {"opaque", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_BUFFER,
                           OAK_TARGET_PER_FRAME},
    /* two RGBA32F texels a pixel: a mirror's split-sum weight and the
       reflection it holds (render/ssr.h); written whole by the resolve each
       frame the ssr pass runs */
    [OAK_TARGET_SSR] = {"ssr", OAK_TARGET_SIZE_OUTPUT, OAK_TARGET_BUFFER, OAK_TARGET_PER_FRAME},
};

static bool has_shadows(const oak_render_view *v) {
    return v->shadows && v->cascade_count > 0;
}
static bool has_lamp_shadows(const oak_render_view *v) {
    return v->lamp_face_count > 0;
}
/* BLEND surfaces: not over a capture channel's data */
static bool has_blend(const oak_render_view *v) {
    return v->draws.count > 0 && v->post.channel == OAK_CHANNEL_NONE;
}
/* a drawn material refracts the frame behind it (transmission, water): the
   frontend looked at each batch's material; nothing else pays for the copy,
   nor over a capture channel's data */
static bool copies_opaque(const oak_render_view *v) {
    return v->opaque_copy && has_blend(v);
}
/* puddles lie (wetness past OAK_SSR_WETNESS): screen-space reflections on
   them; a dry frame runs nothing (the same bytes), nor a capture channel's
   data or a debug view */
static bool has_ssr(const oak_render_view *v) {
    return _oak_ssr_on(v);
}
static bool has_draws(const oak_render_view *v) {
    return v->draws.count > 0;
}
static bool has_streams(const oak_render_view *v) {
    return v->stream_count > 0;
}
/* a PARTICLES stream whose records the device writes (the frontend gave
   its block: oak_render_stream.particles) */
static bool has_device_particles(const oak_render_view *v) {
    for (uint32_t s = 0; s < v->stream_count; s++)
        if (v->streams[s].particles) return true;
    return false;
}
/* a GRASS stream whose squares the device grows (oak_render_stream.grass) */
static bool has_device_grass(const oak_render_view *v) {
    for (uint32_t s = 0; s < v->stream_count; s++)
        if (v->streams[s].grass) return true;
    return false;
}
static bool adapts(const oak_render_view *v) {
    return v->post.adapt;
}
static bool focuses(const oak_render_view *v) {
    return v->dof[3] > 0;
}
static bool blooms(const oak_render_view *v) {
    return v->post.bloom == OAK_BLOOM_ON;
}
static bool has_taa(const oak_render_view *v) {
    return v->post.taa == OAK_TAA_ON || v->post.debug == OAK_DEBUG_MOTION;
}
/* coverage 0 runs nothing, so the frame is the same to the byte; nor over
   a capture channel's data */
static bool has_clouds(const oak_render_view *v) {
    return v->env.clouds.coverage > 0 && v->post.channel == OAK_CHANNEL_NONE;
}
/* volumetric fog: off runs nothing (the frame is the same to the byte);
   nor over a capture channel's data */
static bool has_fog(const oak_render_view *v) {
    return _oak_fog_on(v);
}
static bool has_ao(const oak_render_view *v) {
    return v->post.ao == OAK_AO_ON || v->post.debug == OAK_DEBUG_AO;
}

#define SCENE_READ                                                                                 \
    { OAK_TARGET_SCENE, OAK_USE_SCENE_READ }

/* The frame, in order. */
static const oak_pass_row k_passes[OAK_PASS_COUNT] = {
    /* assets whose version moved, then the view block, lights, draw records
       and indirect commands */
    {OAK_PASS_UPLOAD, "upload", {{OAK_TARGET_SCENE, OAK_USE_UPLOAD}}, NULL, {NULL}, false},
    /* meshes posed by joint palettes (asset.h oak_mesh_update_palette)
       whose pose moved: skinned in compute into their own range of the
       vertex pools, this pose and the previous one (the GPUs; idle, with
       no barrier, where none moved). The CPU skins in its vertex stage. */
    {OAK_PASS_SKIN, "skin", {{OAK_TARGET_SCENE, OAK_USE_STORAGE_RW}}, NULL, {NULL}, false},
    /* the lamps listed per view cluster from the lights records; every
       frame, as the resolve reads it even when no lamp is in view (and the
       CPU takes the spot cone cosines here) */
    {OAK_PASS_LIGHTGRID,
     "lightgrid",
     {SCENE_READ, {OAK_TARGET_LIGHT_GRID, OAK_USE_STORAGE_WRITE}},
     NULL,
     {NULL},
     false},
    /* instance streams: the cull-and-LOD kernel in compute, per LOD a
       visible list and an indirect command (its own buffer; the CPU runs
       the kernel in the frontend) */
    /* particle streams: the particle kernel writes their records (and last
       frame's) into the instance buffer from each emitter's block, which
       goes up only at a birth or a death (the CPU evaluates the records on
       the job pool in the frontend) */
    {OAK_PASS_PARTICLES,
     "particles",
     {{OAK_TARGET_SCENE, OAK_USE_STORAGE_RW}},
     has_device_particles,
     {NULL},
     false},
    /* the grass kernel grows the squares written since each copy of a GRASS
       stream's records (this frame's and last frame's) into their slots:
       only the squares that arrived or left (the host keeps slots and counts) */
    {OAK_PASS_GRASS,
     "grass",
     {{OAK_TARGET_SCENE, OAK_USE_STORAGE_RW}},
     has_device_grass,
     {NULL},
     false},
    {OAK_PASS_INSTCULL, "instcull", {SCENE_READ}, has_streams, {NULL}, false},
    /* plain draws' meshlets: the frustum and cone test per meshlet in
       compute, the kept triangles into the frame's expanded index buffer
       and the raster's commands (its own buffer, its own barrier; the CPU
       tests meshlets in its raster's set-up) */
    {OAK_PASS_MESHCULL, "meshcull", {SCENE_READ}, has_draws, {NULL}, false},
    /* the sky captured into octahedral mips, convolved to irradiance and
       GGX-prefiltered levels; its run functions return at once while the
       environment hashes as last captured (so the target is cached) */
    {OAK_PASS_SKYCAPTURE,
     "skycapture",
     {SCENE_READ, {OAK_TARGET_SKY, OAK_USE_STORAGE_WRITE}},
     NULL,
     {NULL},
     false},
    /* the key light's static casters into a cascade's cached layer when
       what stands still there changed; its movers over a copy of the layer */
    {OAK_PASS_SHADOW,
     "shadow",
     {SCENE_READ,
      {OAK_TARGET_SHADOW_STATIC, OAK_USE_LAYERED},
      {OAK_TARGET_SHADOW_MAP, OAK_USE_LAYERED}},
     has_shadows,
     {NULL},
     false},
    /* the budgeted lamps' faces into their tiles of the lamp atlas: static
       layers only where their hash moved, movers over them */
    {OAK_PASS_LAMPSHADOW,
     "lampshadow",
     {SCENE_READ, {OAK_TARGET_LAMP_ATLAS, OAK_USE_DEPTH_DRAW}},
     has_lamp_shadows,
     {NULL},
     false},
    /* opaque and MASK draws: depth + (draw, triangle) per pixel */
    {OAK_PASS_RASTER,
     "raster",
     {SCENE_READ, {OAK_TARGET_IDS, OAK_USE_COLOR_CLEAR}, {OAK_TARGET_DEPTH, OAK_USE_DEPTH_CLEAR}},
     NULL,
     {"vertex", "bins"},
     false},
    /* ground-truth AO from the ids: view depth and normal per pixel, their
       mip chain, the horizon search, then the 5 x 5 denoise; its later
       steps take their barriers from render/pass_gtao.h's step rows */
    {OAK_PASS_GTAO,
     "gtao",
     {SCENE_READ, {OAK_TARGET_IDS, OAK_USE_SAMPLED}, {OAK_TARGET_AO, OAK_USE_STORAGE_WRITE}},
     has_ao,
     {NULL},
     false},
    /* volumetric clouds: the noise table baked on first use, the key
       light's transmittance through the layer into a map over the view's
       area (the resolve reads it), then the march from the eye to the
       opaque depth at the preset's lower size (steps inside the pass) */
    {OAK_PASS_CLOUDS,
     "clouds",
     {SCENE_READ,
      {OAK_TARGET_DEPTH, OAK_USE_SAMPLED},
      {OAK_TARGET_SKY, OAK_USE_BUFFER_READ},
      {OAK_TARGET_CLOUDS, OAK_USE_STORAGE_RW}},
     has_clouds,
     {NULL},
     false},
    /* volumetric fog: per froxel the density and the light scattered toward
       the eye (key light through cascades and clouds, lamps through their
       shadows, sky light), then each froxel column integrated front to back
       (two steps) */
    {OAK_PASS_FOG,
     "fog",
     {SCENE_READ,
      {OAK_TARGET_SHADOW_MAP, OAK_USE_SAMPLED},
      {OAK_TARGET_LAMP_ATLAS, OAK_USE_SAMPLED},
      {OAK_TARGET_LIGHT_GRID, OAK_USE_BUFFER_READ},
      {OAK_TARGET_SKY, OAK_USE_BUFFER_READ},
      {OAK_TARGET_CLOUDS, OAK_USE_BUFFER_READ},
      {OAK_TARGET_FOG, OAK_USE_STORAGE_RW}},
     has_fog,
     {NULL},
     false},
    /* each covered pixel shaded once from its id; the sky where there is none */
    {OAK_PASS_RESOLVE,
     "resolve",
     {SCENE_READ,
      {OAK_TARGET_IDS, OAK_USE_SAMPLED},
      {OAK_TARGET_SHADOW_MAP, OAK_USE_SAMPLED},
      {OAK_TARGET_LAMP_ATLAS, OAK_USE_SAMPLED},
      {OAK_TARGET_LIGHT_GRID, OAK_USE_BUFFER_READ},
      {OAK_TARGET_AO, OAK_USE_BUFFER_READ},
      {OAK_TARGET_SKY, OAK_USE_BUFFER_READ},
      {OAK_TARGET_CLOUDS, OAK_USE_BUFFER_READ},
      {OAK_TARGET_FOG, OAK_USE_BUFFER_READ},
      {OAK_TARGET_SSR, OAK_USE_STORAGE_WRITE},
      {OAK_TARGET_HDR, OAK_USE_STORAGE_WRITE}},
     NULL,
     {NULL},
     false},
    /* each mirror pixel's reflected ray marched on screen against the depth
       (32 steps, 5 halvings); a hit's colour replaces the reflection the
       resolve gave it, by its split-sum weight, in place */
    {OAK_PASS_SSR,
     "ssr",
     {SCENE_READ,
      {OAK_TARGET_DEPTH, OAK_USE_SAMPLED},
      {OAK_TARGET_SSR, OAK_USE_STORAGE_READ},
      {OAK_TARGET_HDR, OAK_USE_STORAGE_RW}},
     has_ssr,
     {NULL},
     false},
    /* the lit opaque frame (sky included) into a buffer, then each mip a
       2 x 2 box of the one above: one dispatch (or job batch) a level */
    {OAK_PASS_OPAQUECOPY,
     "opaquecopy",
     {SCENE_READ,
      {OAK_TARGET_HDR, OAK_USE_STORAGE_READ},
      {OAK_TARGET_DEPTH, OAK_USE_SAMPLED},
      {OAK_TARGET_OPAQUE, OAK_USE_STORAGE_WRITE}},
     copies_opaque,
     {NULL},
     false},
    /* BLEND surfaces far to near, depth-tested, over the resolved frame
       (transmission and water sample the opaque copy) */
    {OAK_PASS_BLEND,
     "blend",
     {SCENE_READ,
      {OAK_TARGET_SHADOW_MAP, OAK_USE_SAMPLED},
      {OAK_TARGET_LAMP_ATLAS, OAK_USE_SAMPLED},
      {OAK_TARGET_LIGHT_GRID, OAK_USE_BUFFER_READ},
      {OAK_TARGET_SKY, OAK_USE_BUFFER_READ},
      {OAK_TARGET_DEPTH, OAK_USE_DEPTH_TEST},
      {OAK_TARGET_CLOUDS, OAK_USE_BUFFER_READ},
      {OAK_TARGET_FOG, OAK_USE_BUFFER_READ},
      {OAK_TARGET_OPAQUE, OAK_USE_BUFFER_READ},
      {OAK_TARGET_HDR, OAK_USE_COLOR_BLEND}},
     has_blend,
     {NULL},
     false},
    /* the march upsampled to the frame by depth (the nearer surface's
       texels only) and laid over it: frame * transmittance + light */
    {OAK_PASS_CLOUDMIX,
     "cloudmix",
     {SCENE_READ,
      {OAK_TARGET_DEPTH, OAK_USE_SAMPLED},
      {OAK_TARGET_CLOUDS, OAK_USE_BUFFER_READ},
      {OAK_TARGET_HDR, OAK_USE_STORAGE_RW}},
     has_clouds,
     {NULL},
     false},
    /* temporal AA: per pixel the motion vector from its (draw, triangle),
       the history reprojected by it and clamped to the frame's 3 x 3
       neighbourhood, blended in; then the result copied back into the
       frame (two steps, barriers inside the pass) */
    {OAK_PASS_TAA,
     "taa",
     {SCENE_READ,
      {OAK_TARGET_IDS, OAK_USE_SAMPLED},
      {OAK_TARGET_HDR, OAK_USE_STORAGE_RW},
      {OAK_TARGET_TAA, OAK_USE_STORAGE_READ},
      {OAK_TARGET_TAA, OAK_USE_STORAGE_WRITE}},
     has_taa,
     {NULL},
     false},
    /* depth of field: the frame prefiltered to half size with each texel's
       circle of confusion, the near field's reach per tile, the gather, and
       the frame mixed toward it in place; barriers between its steps come
       from the pass itself */
    {OAK_PASS_DOF,
     "dof",
     {SCENE_READ,
      {OAK_TARGET_DEPTH, OAK_USE_SAMPLED},
      {OAK_TARGET_DOF, OAK_USE_STORAGE_WRITE},
      {OAK_TARGET_HDR, OAK_USE_STORAGE_RW}},
     focuses,
     {NULL},
     false},
    /* eye adaptation: the frame's luminance histogram (integer weights),
       then one step of the camera's EV100 toward what it meters; the
       histogram is cleared for the next frame by the same step */
    {OAK_PASS_EXPOSURE,
     "exposure",
     {SCENE_READ,
      {OAK_TARGET_HDR, OAK_USE_STORAGE_READ},
      {OAK_TARGET_EXPOSURE, OAK_USE_STORAGE_READ},
      {OAK_TARGET_EXPOSURE, OAK_USE_STORAGE_WRITE}},
     adapts,
     {NULL},
     false},
    /* bloom: the frame down a pyramid of 13-tap downsamples (the first
       weighting its boxes by brightness) and back up with tent filters; its
       steps take their barriers inside the pass, each level one dispatch */
    {OAK_PASS_BLOOM,
     "bloom",
     {SCENE_READ,
      {OAK_TARGET_HDR, OAK_USE_STORAGE_READ},
      {OAK_TARGET_EXPOSURE, OAK_USE_BUFFER_READ},
      {OAK_TARGET_BLOOM, OAK_USE_STORAGE_WRITE}},
     blooms,
     {NULL},
     false},
    /* the bloom mixed in (the CPU mixes it in its bloom pass), exposure
       (fixed, or the adapted camera's), the tone curve, sRGB with dither, in
       linear light until the bytes */
    {OAK_PASS_POST,
     "post",
     {SCENE_READ,
      {OAK_TARGET_HDR, OAK_USE_STORAGE_READ},
      {OAK_TARGET_EXPOSURE, OAK_USE_BUFFER_READ},
      {OAK_TARGET_BLOOM, OAK_USE_BUFFER_READ},
      {OAK_TARGET_LDR, OAK_USE_STORAGE_WRITE}},
     NULL,
     {NULL},
     false},
    /* FXAA over the bytes (a copy when the view turns it off) */
    {OAK_PASS_FXAA,
     "fxaa",
     {SCENE_READ,
      {OAK_TARGET_LDR, OAK_USE_STORAGE_READ},
      {OAK_TARGET_OUTPUT, OAK_USE_STORAGE_WRITE}},
     NULL,
     {NULL},
     false},
    /* read_pixels copies the picture later (and read_light_grid the grid,
       read_exposure the camera's state):
       only their barriers are here */
    {OAK_PASS_READBACK,
     "readback",
     {{OAK_TARGET_OUTPUT, OAK_USE_COPY_READ},
      {OAK_TARGET_LIGHT_GRID, OAK_USE_HOST_READ},
      {OAK_TARGET_EXPOSURE, OAK_USE_HOST_READ}},
     NULL,
     {NULL},
     true},
};

const oak_pass_row *_oak_pass_table(void) {
    return k_passes;
}

const oak_target_info *_oak_target_info(oak_target_id target) {
    return (unsigned)target < OAK_TARGET_COUNT ? &k_targets[target] : NULL;
}

bool _oak_pass_runs(const oak_pass_row *row, const oak_render_view *view, uint64_t caps) {
    return (caps & OAK_CAP_PASS(row->id)) && (!row->when || row->when(view));
}

const char *oak_pass_name(oak_pass_id pass) {
    return (unsigned)pass < OAK_PASS_COUNT ? k_passes[pass].name : NULL;
}

const char *oak_cap_name(uint32_t bit) {
    static const char *const features[OAK_CAP_BIT_COUNT - 32] = {
        "pixels", "gpu-timings", "shadow-cache", "probes", "gpu-streams", "gpu-hiz", "aerial"};
    if (bit < OAK_PASS_COUNT) return k_passes[bit].name;
    return bit >= 32 && bit < OAK_CAP_BIT_COUNT ? features[bit - 32] : NULL;
}
