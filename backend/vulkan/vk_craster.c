/* Compute rasterization on Vulkan (docs/ARCHITECTURE.md "Compute
 * rasterization"): inside the raster pass, before the hardware draws, the
 * natively drawn streams' small LOD bands (backend/gpu/craster.h) are
 * rasterized by craster.comp into a uint64 per pixel (depth bits << 32 |
 * item, atomicMax), and craster_merge draws those pixels into the
 * visibility buffer as the first draw of the rendering, at their depth;
 * the hardware draws that follow test against them as against any draw.
 * The hardware path skips those bands (_oak_vk_draw_streams). Needs
 * shaderInt64 and shaderBufferInt64Atomics. Under two-pass Hi-Z it runs
 * once a pass (vk_hiz.c): pass 1's bands from the camera's lists (those
 * visible last frame), pass 2's from the LATE lists (the newly visible),
 * each merged as its pass's first draw: without it every small band went
 * to the hardware, as OAK_CRASTER=off does (on the H200 the meadow's pass
 * 1 took 42 ms against a 3.3 ms raster). */
#include <string.h>

#include "backend/gpu/craster.h"
#include "vk_internal.h"

/* the camera's table, the cascades', then the camera's plan (oak_gpu.h
   "Compute rasterization", OAK_GPU_CRASTER_PLAN) */
#define TABLE_BYTES ((size_t)OAK_GPU_CRASTER_TABLE_ROWS * 16)

/* Whether this frame may rasterize any band in compute (and why not). */
static bool craster_possible(const _oak_vk *vk, const oak_render_view *v) {
    return vk->craster_ok && v->stream_count && _oak_craster_mode_get() != OAK_CRASTER_MODE_OFF;
}

/* ... any cascade's caster band (Hi-Z culls the camera's lists only). */
static bool shadow_possible(const _oak_vk *vk, const oak_render_view *v) {
    return vk->craster_ok && v->stream_count && v->cascade_count && vk->shadow.width &&
           _oak_craster_mode_get() != OAK_CRASTER_MODE_OFF;
}

/* The shadow raster's texels: a cascade map's per region (two per cascade). */
static uint64_t shadow_bytes(const _oak_vk *vk) {
    uint64_t size = vk->shadow.width / 2;
    return 2ull * OAK_MAX_CASCADES * size * size * 4;
}

/* A device buffer the compute raster clears and writes: retired when it
   is smaller than bytes, made again at that size. */
static oak_result grow_target(_oak_vk *vk, _oak_vk_buffer *buf, uint64_t bytes) {
    oak_result r;
    if (buf->buffer && buf->size < bytes && (r = _oak_vk_buffer_retire(vk, buf))) return r;
    if (!buf->buffer &&
        (r = _oak_vk_buffer_create(
             vk, buf, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
             OAK_VK_MEM_DEVICE)))
        return r;
    return OAK_OK;
}

oak_result _oak_vk_craster_reserve(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    f->craster_bands = 0;
    memset(f->craster_lods, 0, sizeof f->craster_lods);
    bool cam = craster_possible(vk, v), shadow = shadow_possible(vk, v);
    if (!cam && !shadow) return OAK_OK;
    oak_result r;
    if (!f->craster.buffer &&
        (r = _oak_vk_buffer_create(vk, &f->craster, TABLE_BYTES,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |   /* the late head */
                                       VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, /* the plan's */
                                   OAK_VK_MEM_UPLOAD)))
        return r;
    if (shadow) {
        if ((r = grow_target(vk, &vk->craster_shadow, shadow_bytes(vk)))) return r;
    }
    if (!cam) return OAK_OK;
    return grow_target(vk, &vk->craster_depth, (uint64_t)vk->width * vk->height * 8);
}

/* Whether the camera's bands run this frame: possible, and the reserve
   made the table and the depth target. */
static bool camera_ready(const _oak_vk *vk, const _oak_vk_frame *f, const oak_render_view *v) {
    return craster_possible(vk, v) && f->craster.buffer && vk->craster_depth.buffer;
}

/* The plans' view of the instcull pass's streams (backend/gpu/craster.h),
   after the pass filled the slot's heads; a mesh synced on first use. */
static bool mesh_of(void *user, oak_mesh mesh, uint32_t out[3]) {
    const _oak_vk_mesh *m = NULL;
    if (_oak_vk_sync_mesh(user, mesh, &m) || !m || !m->index_count) return false;
    out[0] = m->index_count, out[1] = (uint32_t)m->index_first;
    out[2] = (uint32_t)m->vertex_first;
    return true;
}
static _oak_craster_streams streams_of(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    return (_oak_craster_streams){.v = v,
                                  .heads = f->instance_out.mapped,
                                  .group = f->instcull_group,
                                  .moved = f->instcull_moved,
                                  .count = f->instcull_streams,
                                  .mesh = mesh_of,
                                  .user = vk};
}

void _oak_vk_craster_split(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    /* the heads are host memory the instcull dispatch recorded before this
       reads at submit, so the small_at written here are what it sees; no
       compute raster this frame (the plan's conditions): none */
    if (!camera_ready(vk, f, v)) return;
    _oak_craster_streams in = streams_of(vk, f, v);
    _oak_craster_split(&in, f->instance_out.mapped);
}

/* The camera's bands: the plan (craster_plan.comp: each band's first item
   and work groups from its list's visible count, this pass's) and then the
   raster over the groups it wrote, through the table's indirect command;
   false when a pipeline cannot be made. The merge's fragments read what
   both wrote. */
static bool dispatch_bands(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f) {
    if (!_oak_vk_bind(vk, cmd, OAK_VK_PIPE_CRASTER_PLAN)) return false;
    vkCmdDispatch(cmd, 1, 1, 1);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    if (!_oak_vk_bind(vk, cmd, OAK_VK_PIPE_CRASTER)) return false;
    vkCmdDispatchIndirect(cmd, f->craster.buffer, (VkDeviceSize)OAK_GPU_CRASTER_PLAN * 16);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    return true;
}

/* The shadow's rows: a row of work groups per (band, cascade), each as
   wide as the widest row's worst case (_oak_craster_groups), a grid-stride
   loop over its visible items; the merge's fragments read what it wrote. */
static void dispatch_rows(VkCommandBuffer cmd, uint64_t most, uint32_t n) {
    vkCmdDispatch(cmd, _oak_craster_groups(most), n, 1);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
}

void _oak_vk_craster_run(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    f->craster_bands = 0;
    memset(f->craster_lods, 0, sizeof f->craster_lods);
    if (!camera_ready(vk, f, v)) return;
    uint32_t split;
    _oak_craster_streams in = streams_of(vk, f, v);
    uint32_t n =
        _oak_craster_plan(&in, vk->width, vk->height, f->craster.mapped, f->craster_lods, &split);
    /* the plan's indirect command: y, z and the cap the host's, x the GPU's */
    uint32_t(*plan)[4] = (uint32_t(*)[4])f->craster.mapped + OAK_GPU_CRASTER_PLAN;
    plan[0][0] = 0, plan[0][1] = plan[0][2] = 1, plan[0][3] = _oak_craster_group_cap();
    if (n != vk->craster_logged || split != vk->craster_split_logged) /* once a change */
        oak_log_info("vulkan: compute raster: %u LOD band%s (+%u per instance)", n - split,
                     n - split == 1 ? "" : "s", split);
    vk->craster_logged = n, vk->craster_split_logged = split;
    if (!n) return;
    VkCommandBuffer cmd = f->cmd;
    /* last frame's raster wrote it and its merge read it; then cleared to 0
       (nothing drawn) */
    _oak_vk_barrier(
        cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cmd, vk->craster_depth.buffer, 0, (uint64_t)vk->width * vk->height * 8, 0);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    if (!dispatch_bands(vk, cmd, f)) { /* the hardware draws them all */
        memset(f->craster_lods, 0, sizeof f->craster_lods);
        /* and no instance goes to a SMALL list: the instcull dispatch
           reads the heads at submit, after this */
        oak_gpu_instcull *heads = f->instance_out.mapped;
        for (uint32_t s = 0; s < f->instcull_streams; s++)
            memset(heads[s].small_at, 0, sizeof heads[s].small_at);
        return;
    }
    f->craster_bands = n;
}

void _oak_vk_craster_late(_oak_vk *vk, _oak_vk_frame *f) {
    if (!f->craster_bands) return;
    VkCommandBuffer cmd = f->cmd;
    /* pass 1's raster wrote the target and its merge read it and the head;
       the LATE step (compute) wrote the lists this reads */
    _oak_vk_barrier(
        cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    /* the head's w: every band's command word moves to its LATE list's
       (oak_gpu.h "Compute rasterization"); the host's table is left as it
       is, so the next frame in this slot writes it whole again */
    vkCmdFillBuffer(cmd, f->craster.buffer, 12, 4, OAK_GPU_CRASTER_LATE_WORDS);
    vkCmdFillBuffer(cmd, vk->craster_depth.buffer, 0, (uint64_t)vk->width * vk->height * 8, 0);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    /* the plan anew from the LATE lists' counts (the same bands); both
       pipelines made in pass 1 */
    dispatch_bands(vk, cmd, f);
}

void _oak_vk_craster_merge(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f) {
    if (f->craster_bands && _oak_vk_bind(vk, cmd, OAK_VK_PIPE_CRASTER_MERGE))
        vkCmdDraw(cmd, 3, 1, 0, 0);
}

void _oak_vk_craster_shadow_run(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                                const oak_shadow_layer_plan *plans, uint32_t cascades) {
    f->craster_shadow_bands = f->craster_shadow_regions = 0;
    memset(f->craster_shadow_lods, 0, sizeof f->craster_shadow_lods);
    /* (a map resized after the upload pass's reserve waits a frame) */
    if (!shadow_possible(vk, v) || !f->craster.buffer || !vk->craster_shadow.buffer ||
        vk->craster_shadow.size < shadow_bytes(vk) || !f->instance_out.mapped)
        return;
    uint64_t most;
    _oak_craster_streams in = streams_of(vk, f, v);
    uint32_t n =
        _oak_craster_shadow_plan(&in, plans, cascades, vk->shadow.width / 2,
                                 (uint32_t(*)[4])f->craster.mapped + OAK_GPU_CRASTER_SHADOW_TABLE,
                                 f->craster_shadow_lods, &f->craster_shadow_regions, &most);
    if (n != vk->craster_shadow_logged) /* once a change, for tests and benches */
        oak_log_info("vulkan: shadow compute raster: %u cascade band%s", n, n == 1 ? "" : "s");
    vk->craster_shadow_logged = n;
    if (!n) return;
    VkCommandBuffer cmd = f->cmd;
    /* the last merge read it; then each region this frame draws cleared to 0 */
    _oak_vk_barrier(
        cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    uint64_t region_bytes = shadow_bytes(vk) / (2 * OAK_MAX_CASCADES);
    for (uint32_t i = 0; i < 2 * OAK_MAX_CASCADES; i++)
        if (f->craster_shadow_regions >> i & 1u)
            vkCmdFillBuffer(cmd, vk->craster_shadow.buffer, i * region_bytes, region_bytes, 0);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    if (!_oak_vk_bind(vk, cmd, OAK_VK_PIPE_CRASTER_SHADOW)) { /* the hardware draws them all */
        f->craster_shadow_regions = 0;
        memset(f->craster_shadow_lods, 0, sizeof f->craster_shadow_lods);
        return;
    }
    dispatch_rows(cmd, most, n);
    f->craster_shadow_bands = n;
}

void _oak_vk_craster_shadow_merge(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f,
                                  uint32_t cascade, bool mover) {
    uint32_t region = cascade * 2 + mover;
    if (f->craster_shadow_bands && (f->craster_shadow_regions >> region & 1u) &&
        _oak_vk_bind(vk, cmd, OAK_VK_PIPE_CRASTER_SHADOW_MERGE))
        vkCmdDraw(cmd, 6, 1, 0, region);
}

void _oak_vk_craster_destroy(_oak_vk *vk) {
    _oak_vk_buffer_destroy(vk, &vk->craster_depth);
    _oak_vk_buffer_destroy(vk, &vk->craster_shadow);
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_buffer_destroy(vk, &vk->frames[i].craster);
        vk->frames[i].craster_bands = vk->frames[i].craster_shadow_bands = 0;
    }
}

/* The water's pixels use the camera's target between the raster's merge and
   the next frame's raster (vk_pass_blend.c, blend_water_id.frag): a word
   per pixel and the draw's after them, well inside its 8 bytes a pixel. */
oak_result _oak_vk_craster_depth_reserve(_oak_vk *vk) {
    return grow_target(vk, &vk->craster_depth, (uint64_t)vk->width * vk->height * 8);
}
