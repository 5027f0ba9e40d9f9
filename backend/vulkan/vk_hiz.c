/* Two-pass Hi-Z occlusion culling on Vulkan (shaders/hiz_cull.comp.glsl
 * and hiz_pyramid.comp.glsl, the files GL runs; docs/ARCHITECTURE.md
 * "Occlusion culling"), inside the raster pass when the view asks for it
 * (oak_render_view.occ_gpu): pass 1 draws what was visible last frame, the
 * depth pyramid is built from its depth, every candidate is tested against
 * it and pass 2 draws the newly visible over pass 1's targets; the native
 * streams' instances take the same passes (instcull.comp's EARLY step in
 * the instcull pass, its LATE step here). Commands are
 * compacted on the GPU in the candidates' order and drawn by count where
 * the device has drawIndirectCount, else drawn in place with instance
 * counts of 0 or 1 (also with OAK_VK_NO_DRAW_COUNT=1). The slot's buffer is
 * host-visible: the host writes the head and candidates, and reads the
 * counters once that frame has finished (never waiting for it). */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "backend/gpu/meshcull_hiz.h"
#include "vk_internal.h"

static const uint32_t k_hiz_cull_comp[] =
#include "shaders/hiz_cull.comp.h"
    ;
static const uint32_t k_hiz_pyramid_comp[] =
#include "shaders/hiz_pyramid.comp.h"
    ;
/* the streams' LATE step (spec constant 0 = OAK_GPU_HIZ_STEP_LATE) */
static const uint32_t k_instcull_comp[] =
#include "shaders/instcull.comp.h"
    ;
/* and the meshlets' (common/meshcull_hiz.glsl; the same constant) */
static const uint32_t k_meshcull_comp[] =
#include "shaders/meshcull.comp.h"
    ;

#define CMD_WORDS 5u /* VkDrawIndexedIndirectCommand */

/* The counters a finished slot holds, into vk->hiz_stats when newer. */
static void read_counters(_oak_vk *vk, _oak_vk_frame *f) {
    if (!f->hiz_ran || !f->hiz.mapped || f->hiz_frame <= vk->hiz_stats_frame) return;
    const oak_gpu_hiz_head *h = f->hiz.mapped;
    oak_occlusion_stats s = {.on = true, .draws_tested = h->info[0], .draws_occluded = h->stats[1]};
    for (uint32_t g = 0; g < OAK_GPU_HIZ_GROUPS; g++)
        s.drawn_pass1 += h->early[g], s.drawn_pass2 += h->late[g];
    _oak_gpu_hiz_stream_stats(&s, h);
    vk->hiz_stats = s;
    vk->hiz_stats_frame = f->hiz_frame;
}

/* The kept buffer (keys, pyramid, streams' bits) at least `keep` bytes. */
static oak_result keep_reserve(_oak_vk *vk, _oak_vk_frame *f, uint64_t keep) {
    if (vk->hiz_keep.buffer && vk->hiz_keep.size >= keep) return OAK_OK;
    /* earlier frames may still read the old one; the new one starts with
       nothing visible (its first frame is a cut or finds out) */
    uint64_t size = vk->hiz_keep.size ? vk->hiz_keep.size : 4096;
    while (size < keep) size *= 2;
    oak_result r;
    if ((r = _oak_vk_buffer_retire(vk, &vk->hiz_keep)) ||
        (r = _oak_vk_buffer_create(vk, &vk->hiz_keep, size,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    vkCmdFillBuffer(f->cmd, vk->hiz_keep.buffer, 0, VK_WHOLE_SIZE, 0);
    /* all transfer stages: the validation layer files a fill under copy */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    return OAK_OK;
}

bool _oak_vk_hiz_stats(_oak_vk *vk, oak_occlusion_stats *out) {
    /* a slot still in flight is skipped: its fence says so without a wait */
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_frame *f = &vk->frames[i];
        bool done = !f->submitted || vkGetFenceStatus(vk->device, f->fence) == VK_SUCCESS;
        if (done && !(vk->recording && i == vk->slot)) read_counters(vk, f);
    }
    if (!vk->hiz_stats_frame) return false;
    *out = vk->hiz_stats;
    return true;
}

oak_result _oak_vk_hiz_reserve(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                               const VkDrawIndexedIndirectCommand *cmds) {
    read_counters(vk, f); /* the slot's last frame has finished */
    f->hiz_on = v->occ_gpu;
    f->hiz_ran = false;
    oak_result r;
    if (!f->hiz_on) {
        /* instcull.comp and meshcull.comp name both buffers even where
           they skip Hi-Z: their descriptors must hold one */
        bool named = v->stream_count || f->mc_all;
        if (named && !f->hiz.buffer &&
            (r = _oak_vk_upload_reserve(vk, &f->hiz, 256,
                                        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                            VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT)))
            return r;
        return named ? keep_reserve(vk, f, 4) : OAK_OK;
    }
    uint32_t n = 0, first[OAK_GPU_HIZ_GROUPS], count[OAK_GPU_HIZ_GROUPS];
    for (uint32_t g = 0; g < OAK_GPU_HIZ_GROUPS; g++) {
        first[g] = n;
        count[g] = vk->vis_count[g];
        n += count[g];
    }
    /* head, candidates, both passes' commands, the compaction's flags and sums */
    uint64_t words =
        OAK_GPU_HIZ_HEAD_WORDS + (uint64_t)n * (OAK_GPU_HIZ_DRAW_WORDS + 2 * CMD_WORDS + 2) + 1;
    /* the meshlets' bits after the streams', placed by the draws' keys
       (backend/gpu/meshcull_hiz.c, GL's placement too) */
    uint64_t ml_base =
        _oak_gpu_hiz_stream_base(v, vk->width, vk->height) + _oak_gpu_hiz_stream_words(v);
    uint64_t ml_words = 0;
    if ((r = _oak_vk_upload_reserve(vk, &f->hiz, words * 4,
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                        VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT)) ||
        (r = _oak_meshcull_hiz_place(&vk->hm, f->meshcull.mapped, f->mc_jobs, v, ml_base, &ml_words,
                                     "vulkan")) ||
        (r = keep_reserve(vk, f, (ml_base + ml_words) * 4)))
        return r;
    oak_gpu_hiz_head *h = f->hiz.mapped;
    _oak_gpu_hiz_head_fill(h, v, n, first, count, vk->indirect_count, vk->width, vk->height);
    oak_gpu_hiz_draw *c = (oak_gpu_hiz_draw *)(h + 1);
    /* the vis groups' commands hold one draw each under Hi-Z (upload) */
    for (uint32_t g = 0; g < OAK_GPU_HIZ_GROUPS; g++)
        for (uint32_t k = 0; k < count[g]; k++) {
            const VkDrawIndexedIndirectCommand *d = &cmds[vk->vis_first[g] + k];
            _oak_gpu_hiz_draw_fill(&c[first[g] + k], v, d->firstInstance, g, d->indexCount,
                                   d->firstIndex, (uint32_t)d->vertexOffset);
        }
    return OAK_OK;
}

static bool pipe(_oak_vk *vk, uint32_t step) {
    if (vk->hiz_pipes[step]) return true;
    /* the steps EARLY and LATE are the cull's, the levels the pyramid's */
    bool level = step >= OAK_GPU_HIZ_STEP_LEVEL;
    oak_result r = _oak_vk_compute_spec(vk, level ? k_hiz_pyramid_comp : k_hiz_cull_comp,
                                        level ? sizeof k_hiz_pyramid_comp : sizeof k_hiz_cull_comp,
                                        &step, &vk->hiz_pipes[step]);
    if (r && !vk->pipe_result) vk->pipe_result = r;
    return !r;
}

static bool stream_pipe(_oak_vk *vk) {
    if (vk->hiz_stream_late) return true;
    uint32_t step = OAK_GPU_HIZ_STEP_LATE;
    oak_result r = _oak_vk_compute_spec(vk, k_instcull_comp, sizeof k_instcull_comp, &step,
                                        &vk->hiz_stream_late);
    if (r && !vk->pipe_result) vk->pipe_result = r;
    return !r;
}

static bool meshcull_pipe(_oak_vk *vk) {
    if (vk->hiz_meshcull_late) return true;
    uint32_t step = OAK_GPU_HIZ_STEP_LATE;
    oak_result r = _oak_vk_compute_spec(vk, k_meshcull_comp, sizeof k_meshcull_comp, &step,
                                        &vk->hiz_meshcull_late);
    if (r && !vk->pipe_result) vk->pipe_result = r;
    return !r;
}

static void dispatch(_oak_vk *vk, _oak_vk_frame *f, uint32_t step, uint32_t items) {
    if (!items || !pipe(vk, step)) return;
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->hiz_pipes[step]);
    vkCmdDispatch(f->cmd, (items + 63) / 64, 1, 1);
}

static void compute_to_compute(VkCommandBuffer cmd) {
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

/* Pass `which`'s flags into commands in the candidates' order: the scan
   (one work group), then the scatter; only with indirect counts. */
static void compact(_oak_vk *vk, _oak_vk_frame *f, uint32_t which, uint32_t n) {
    if (!vk->indirect_count || !n) return;
    compute_to_compute(f->cmd);
    dispatch(vk, f, which ? OAK_GPU_HIZ_STEP_SCAN1 : OAK_GPU_HIZ_STEP_SCAN0, 1);
    compute_to_compute(f->cmd);
    dispatch(vk, f, which ? OAK_GPU_HIZ_STEP_SCATTER1 : OAK_GPU_HIZ_STEP_SCATTER0, n);
}

/* The commands of pass `which` (0: pass 1), group by group. */
static void draw_pass(_oak_vk *vk, _oak_vk_frame *f, uint32_t which) {
    const oak_gpu_hiz_head *h = f->hiz.mapped;
    uint32_t n = h->info[0];
    const uint32_t stride = sizeof(VkDrawIndexedIndirectCommand);
    uint64_t region = ((uint64_t)OAK_GPU_HIZ_HEAD_WORDS + (uint64_t)n * OAK_GPU_HIZ_DRAW_WORDS +
                       (uint64_t)which * n * CMD_WORDS) *
                      4;
    bool counted = false;
    for (uint32_t g = 0; g < OAK_GPU_HIZ_GROUPS; g++) {
        uint32_t count = h->group_count[g];
        if (!count || !_oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_VIS + g)) continue;
        uint64_t at = region + (uint64_t)h->group_first[g] * stride;
        if (vk->indirect_count) {
            uint64_t counter = offsetof(oak_gpu_hiz_head, early) + (which ? 16u : 0u) + g * 4u;
            vkCmdDrawIndexedIndirectCount(f->cmd, f->hiz.buffer, at, f->hiz.buffer, counter, count,
                                          stride);
            counted = true;
        } else if (vk->multi_draw) {
            vkCmdDrawIndexedIndirect(f->cmd, f->hiz.buffer, at, count, stride);
        } else {
            for (uint32_t i = 0; i < count; i++)
                vkCmdDrawIndexedIndirect(f->cmd, f->hiz.buffer, at + (uint64_t)i * stride, 1,
                                         stride);
        }
    }
    /* lavapipe 22.3 keeps an indirect-count draw's count buffer for the
       plain indirect draws after it in the command buffer (the streams'
       lists, the blend pass): a last count draw of none leaves it on a word
       holding UINT32_MAX, which caps nothing. Only there: NVIDIA's driver
       lost the device on that draw of none (maxDrawCount 0). */
    if (counted && vk->count_sticks)
        vkCmdDrawIndexedIndirectCount(f->cmd, f->hiz.buffer, region, f->hiz.buffer,
                                      offsetof(oak_gpu_hiz_head, stats) + 12, 0, stride);
}

void _oak_vk_hiz_raster(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    VkCommandBuffer cmd = f->cmd;
    const oak_gpu_hiz_head *h = f->hiz.mapped;
    uint32_t n = h->info[0], levels = h->size[2];
    VkRect2D area = {{0, 0}, {vk->width, vk->height}};
    /* the streams' small bands in compute from pass 1's lists (vk_craster.c),
       as without Hi-Z: the hardware raster of them is what costs */
    _oak_vk_craster_run(vk, f, v);
    /* last frame's bits and pyramid reads are done before this frame's
       steps touch them (one queue: the barrier reaches back) */
    compute_to_compute(cmd);
    dispatch(vk, f, OAK_GPU_HIZ_STEP_EARLY, n);
    compact(vk, f, 0, n);
    const VkPipelineStageFlags2 indirect =
        VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    const VkAccessFlags2 indirect_read =
        VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, indirect,
                    indirect_read | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    /* pass 1: ids cleared to 0 (sky), depth to 0 (far); the streams too,
       whose depth then hides draws as well */
    _oak_vk_begin_rendering(cmd, &vk->ids, true, &vk->depth, true, area);
    _oak_vk_main_view(vk, cmd);
    _oak_vk_craster_merge(vk, cmd, f); /* its pixels, before the hardware's */
    draw_pass(vk, f, 0);
    _oak_vk_meshcull_draw(vk, cmd, f);   /* the meshlets the meshcull pass's EARLY step kept */
    _oak_vk_draw_streams(vk, cmd, f, 0); /* vk_pass_instcull.c */
    vkCmdEndRendering(cmd);
    _oak_vk_stamp(vk, f, "hiz_pass1");
    /* the steps below write the buffers pass 1 read its commands (and the
       streams' list words, the meshlets' indices and triangle map) from */
    _oak_vk_barrier(cmd,
                    VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    0, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0);
    /* the pyramid from pass 1's depth, sampled */
    const VkPipelineStageFlags2 tests =
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    _oak_vk_image_barrier(cmd, &vk->depth, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, tests,
                          VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                          VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                          VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    for (uint32_t k = 0; k < levels; k++) {
        uint32_t w = vk->width, hh = vk->height;
        for (uint32_t i = 0; i <= k; i++) w = (w + 1) / 2, hh = (hh + 1) / 2;
        if (k) compute_to_compute(cmd);
        dispatch(vk, f, OAK_GPU_HIZ_STEP_LEVEL + k, w * hh);
    }
    compute_to_compute(cmd);
    dispatch(vk, f, OAK_GPU_HIZ_STEP_LATE, n);
    /* the meshlets against the same pyramid (meshcull.comp's LATE step):
       their bits, and pass 2's triangles placed and written over pass 1's
       regions and commands (pass 1 has read them) */
    if (f->mc_jobs && meshcull_pipe(vk)) {
        compute_to_compute(cmd); /* the head's words the draws' step wrote */
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->hiz_meshcull_late);
        vkCmdDispatch(cmd, f->mc_jobs < 65535u ? f->mc_jobs : 65535u, 1, 1); /* it strides */
        _oak_vk_meshcull_place(vk, f, true); /* the regions anew, the shadows' kept */
    }
    /* the native streams' instances against the same pyramid: bits, and
       pass 2's lists (instcull.comp's LATE step, one row per stream) */
    bool streams = false;
    const oak_gpu_instcull *heads = f->instance_out.mapped;
    for (uint32_t s = 0; s < f->instcull_streams; s++)
        streams |= heads[s].prev[1] != OAK_GPU_INSTCULL_HIZ_OFF && heads[s].info[0];
    if (streams && stream_pipe(vk)) {
        compute_to_compute(cmd); /* both steps count into the head */
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->hiz_stream_late);
        vkCmdDispatch(cmd, (f->instcull_most + 63) / 64, f->instcull_streams, 1);
    }
    /* the small bands of pass 2's lists in compute (a stream outside Hi-Z
       has an empty LATE list) */
    if (streams) _oak_vk_craster_late(vk, f);
    compact(vk, f, 1, n);
    /* readers: pass 2's commands and counts, the streams' list words, the
       host's counters */
    _oak_vk_barrier(
        cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        indirect | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_HOST_BIT,
        indirect_read | VK_ACCESS_2_INDEX_READ_BIT | VK_ACCESS_2_HOST_READ_BIT);
    _oak_vk_image_barrier(cmd, &vk->depth, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                          VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0, tests,
                          VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                              VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
    /* pass 2 loads what pass 1 wrote into the ids */
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                    VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                    VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    _oak_vk_stamp(vk, f, "hiz_pyramid");
    /* pass 2 over pass 1's ids and depth */
    _oak_vk_begin_rendering(cmd, &vk->ids, false, &vk->depth, false, area);
    _oak_vk_main_view(vk, cmd);
    if (streams) _oak_vk_craster_merge(vk, cmd, f); /* the newly visible small bands */
    draw_pass(vk, f, 1);
    _oak_vk_meshcull_draw(vk, cmd, f); /* the newly visible meshlets */
    if (streams) _oak_vk_draw_streams(vk, cmd, f, OAK_GPU_INSTCULL_LATE);
    vkCmdEndRendering(cmd);
    f->hiz_ran = true;
    f->hiz_frame = vk->frame_count;
}

void _oak_vk_hiz_destroy(_oak_vk *vk) {
    for (uint32_t s = 0; s < OAK_GPU_HIZ_STEPS; s++)
        if (vk->hiz_pipes[s]) vkDestroyPipeline(vk->device, vk->hiz_pipes[s], NULL);
    memset(vk->hiz_pipes, 0, sizeof vk->hiz_pipes);
    if (vk->hiz_stream_late) vkDestroyPipeline(vk->device, vk->hiz_stream_late, NULL);
    vk->hiz_stream_late = VK_NULL_HANDLE;
    if (vk->hiz_meshcull_late) vkDestroyPipeline(vk->device, vk->hiz_meshcull_late, NULL);
    vk->hiz_meshcull_late = VK_NULL_HANDLE;
    _oak_meshcull_hiz_keys_free(&vk->hm);
    memset(&vk->hiz_streams, 0, sizeof vk->hiz_streams);
    _oak_vk_buffer_destroy(vk, &vk->hiz_keep);
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_buffer_destroy(vk, &vk->frames[i].hiz);
        vk->frames[i].hiz_on = vk->frames[i].hiz_ran = false;
    }
    vk->hiz_stats_frame = 0;
}
