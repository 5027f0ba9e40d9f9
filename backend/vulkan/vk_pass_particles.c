/* The particles pass on Vulkan: the particle kernel (shaders/particles.comp.glsl)
 * writes each PARTICLES stream's records (oak_render_stream.particles) into
 * this slot's instance buffer where instcull reads them, and last frame's
 * copies after them, from the emitter's block. The block (the alive
 * particles' birth states) goes up into this slot's host-visible buffer
 * only when its version or place moved (a birth or a death); the
 * constants (a few hundred bytes) every frame. One dispatch per stream, its
 * block bound at a dynamic offset; the pipeline and its bindings are a
 * vk_kernel.c kernel made on first use. A flipbook's frames are streams that
 * share one block: it goes up and runs once, at the first of them in the
 * view, as one work group scattering each particle to its frame's place
 * (backend/gpu/gpu_particles.h). Both kernels are vk_kernel.c's. */
#include <stddef.h>
#include <string.h>

#include "backend/gpu/gpu_particles.h"
#include "backend/gpu/gpu_records.h"
#include "vk_kernel.h"

static const uint32_t k_particles_comp[] =
#include "shaders/particles.comp.h"
    ;

/* every block starts on 256 bytes: the largest minStorageBufferOffsetAlignment allowed */
#define BLOCK_ALIGN 256u
#define HEAD        OAK_GPU_PARTICLE_HEAD_BYTES

static const uint32_t k_particles_draws_comp[] =
#include "shaders/particles_draws.comp.h"
    ;

static const uint32_t k_particles_sort_comp[] =
#include "shaders/particles_sort.comp.h"
    ;

/* the draw kernel's jobs (two uvec4s a stream, at most a view's streams)
   and the books' frame counts it writes: they open the blocks' buffer, so
   the draw kernel (bound at 0, the whole buffer) reads the sorted
   streams' pairs where the sort left them */
#define JOBS_BYTES OAK_GPU_PARTICLE_JOBS_BYTES

/* The pass's two kernels (vk_kernel.c), made on first use: the particle
   kernel (its block at a dynamic offset, the slot's instance buffer) and
   the draw kernel (its jobs at a dynamic offset, the instance buffer and
   the draws). */
typedef struct _oak_vk_particle_kernels {
    _oak_vk_kernel sim, draws, sort;
} _oak_vk_particle_kernels;

static oak_result kernels(_oak_vk *vk, _oak_vk_particle_kernels **out) {
    if (!vk->particle_kernels &&
        !(vk->particle_kernels = oak_calloc(1, sizeof *vk->particle_kernels)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan particles: no memory");
    *out = vk->particle_kernels;
    return _oak_vk_kernel_make(vk, &(*out)->sim, k_particles_comp, sizeof k_particles_comp,
                               OAK_B_PARTICLE_IN, OAK_B_PARTICLE_OUT, OAK_VK_KERNEL_NONE, true);
}

/* Device-written BLEND streams (oak_render_stream.device_blend): each
   record the particle kernel just wrote (and last frame's copy) into a
   draw record at the stream's slot past the lists, read by the blend pass.
   The draws buffer is the host's (mapped, written before the submit): the
   slots lie past everything it wrote. The jobs go at the start of the
   blocks' buffer; a sorted stream's slot i takes the i-th of its pairs
   (sort_at: its sort block). An "over" book's frame's count, which the
   kernel writes past the jobs, is copied into its BLEND command's
   instanceCount (the host wrote the bound, every particle of the book). */
static oak_result run_draws(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                            const uint64_t *sort_at) {
    uint32_t jobs[OAK_STREAM_MAX_PER_VIEW][8], most = 0;
    uint32_t n = _oak_gpu_blend_jobs(v, _oak_vk_blend_slots_from(v), jobs, &most);
    f->book_cmds = 0;
    if (!n || !most) return OAK_OK;
    f->book_cmds =
        _oak_gpu_book_count_cmds(v, jobs, n, vk->blend_draw, vk->blend_count, f->book_cmd);
    _oak_gpu_blend_jobs_sorted(v, sort_at, jobs, n);
    _oak_vk_kernel *k = &vk->particle_kernels->draws;
    oak_result r = _oak_vk_kernel_make(vk, k, k_particles_draws_comp, sizeof k_particles_draws_comp,
                                       OAK_B_PARTICLE_IN, OAK_B_INSTANCES, OAK_B_DRAWS, true);
    if (r) return r;
    memcpy(f->particles.mapped, jobs, sizeof jobs[0] * n);
    /* the records the particle kernel wrote and the sort's pairs, read here */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    VkDescriptorSet set =
        _oak_vk_kernel_begin(vk, k, f, f->particles.buffer, f->particles.size, f->draws.buffer);
    _oak_vk_kernel_set(k, f->cmd, set, 0);
    vkCmdDispatch(f->cmd, (most + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP, n, 1);
    if (!f->book_cmds) return OAK_OK;
    VkBufferCopy copies[OAK_STREAM_MAX_PER_VIEW];
    for (uint32_t i = 0; i < f->book_cmds; i++)
        copies[i] =
            (VkBufferCopy){.srcOffset = OAK_GPU_BOOK_COUNTS_AT + 16 * (uint64_t)f->book_cmd[i][0],
                           .dstOffset = (uint64_t)(vk->blend_first + f->book_cmd[i][1]) *
                                            sizeof(VkDrawIndexedIndirectCommand) +
                                        offsetof(VkDrawIndexedIndirectCommand, instanceCount),
                           .size = sizeof(uint32_t)};
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                    VK_ACCESS_2_TRANSFER_READ_BIT);
    vkCmdCopyBuffer(f->cmd, f->particles.buffer, f->indirect.buffer, f->book_cmds, copies);
    /* the blend pass's indirect read */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
    return OAK_OK;
}

/* "Over" streams drawn far to near (oak_render_stream.device_sort): after
   the particle kernel wrote their records, each one's records sorted by
   shaders/particles_sort.comp.glsl into the pairs of its sort block at
   sort_at[s] (backend/gpu/gpu_particles.h: a head per dispatch, each bound
   at its own offset, then the pairs), one dispatch for the keys and one
   per compare-and-swap stage, a barrier before each. */
static oak_result run_sorts(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v, uint32_t ns,
                            const uint64_t *sort_at, const uint64_t *firsts, uint64_t range) {
    _oak_vk_kernel *k = &vk->particle_kernels->sort;
    VkDescriptorSet set = VK_NULL_HANDLE;
    for (uint32_t s = 0; s < ns; s++) {
        if (!_oak_gpu_sort_leads(sort_at, s)) continue; /* a book's: once */
        if (!set) {
            oak_result r = _oak_vk_kernel_make(vk, k, k_particles_sort_comp,
                                               sizeof k_particles_sort_comp, OAK_B_PARTICLE_IN,
                                               OAK_B_PARTICLE_OUT, OAK_VK_KERNEL_NONE, true);
            if (r) return r;
            set = _oak_vk_kernel_begin(vk, k, f, f->particles.buffer, range, VK_NULL_HANDLE);
        }
        uint32_t m = 1, stages = _oak_gpu_sort_heads(
                            v, ns, s, firsts[s], (uint8_t *)f->particles.mapped + sort_at[s], &m);
        for (uint32_t t = 0; t <= stages; t++) {
            /* the records (t 0) or the last stage's pairs, read here */
            _oak_vk_barrier(
                f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
            _oak_vk_kernel_set(k, f->cmd, set, (uint32_t)(sort_at[s] + OAK_GPU_SORT_HEAD * t));
            vkCmdDispatch(f->cmd, (m + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP, 1, 1);
        }
    }
    return OAK_OK;
}

static uint64_t block_bytes(uint32_t count) {
    uint64_t b = HEAD + sizeof(oak_gpu_particle) * (uint64_t)count;
    return (b + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
}

oak_result _oak_vk_run_particles(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    _oak_vk_particle_kernels *K = NULL;
    oak_result r = kernels(vk, &K);
    if (r) return r;
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    /* the draw kernel's jobs, the blocks one after another, the sort
       blocks, and room for the largest past the last (a dynamic offset's
       range is fixed in the set) */
    uint64_t bytes = JOBS_BYTES, most = BLOCK_ALIGN, sort_most = BLOCK_ALIGN;
    uint64_t sort_at[OAK_STREAM_MAX_PER_VIEW], firsts[OAK_STREAM_MAX_PER_VIEW];
    for (uint32_t s = 0; s < ns; s++) {
        if (!_oak_gpu_particle_block_leads(v, ns, s)) continue;
        uint64_t b = block_bytes(_oak_gpu_particle_count(&v->streams[s]));
        bytes += b, most = b > most ? b : most;
    }
    bytes = _oak_gpu_sort_plan(v, ns, bytes, sort_at, firsts, &sort_most);
    uint64_t need = bytes + (most > sort_most ? most : sort_most);
    VkBuffer old = f->particles.buffer;
    if (!f->particles.buffer || f->particles.size < need) {
        uint64_t size = f->particles.size ? f->particles.size : 4096;
        while (size < need) size *= 2;
        _oak_vk_buffer_destroy(vk, &f->particles); /* this slot's last frame has finished */
        if ((r = _oak_vk_buffer_create(vk, &f->particles, size,
                                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                       OAK_VK_MEM_UPLOAD)))
            return r;
    }
    if (f->particles.buffer != old) memset(f->particle_src, 0, sizeof f->particle_src);
    VkDescriptorSet set =
        _oak_vk_kernel_begin(vk, &K->sim, f, f->particles.buffer, most, VK_NULL_HANDLE);
    uint8_t *mapped = f->particles.mapped;
    uint64_t at = JOBS_BYTES, total = ns ? firsts[ns - 1] + v->streams[ns - 1].count : 0;
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        if (!_oak_gpu_particle_block_leads(v, ns, s)) continue;
        uint32_t n = _oak_gpu_particle_count(rs);
        /* the block only when a birth or a death moved it (or it moved here) */
        if (f->particle_src[s] != rs->particles || f->particle_version[s] != rs->particle_version ||
            f->particle_at[s] != at) {
            if (n) memcpy(mapped + at + HEAD, rs->particles, sizeof(oak_gpu_particle) * (size_t)n);
            f->particle_src[s] = rs->particles;
            f->particle_version[s] = rs->particle_version;
            f->particle_at[s] = at;
            vk->particle_uploads++;
        }
        uint8_t head[HEAD];
        uint32_t groups = _oak_gpu_particle_head(v, ns, s, firsts[s], total, head);
        memcpy(mapped + at, head, HEAD);
        if (n) {
            _oak_vk_kernel_set(&K->sim, f->cmd, set, (uint32_t)at);
            vkCmdDispatch(f->cmd, groups, 1, 1);
        }
        at += block_bytes(n);
    }
    if ((r = run_sorts(vk, f, v, ns, sort_at, firsts, sort_most)) ||
        (r = run_draws(vk, f, v, sort_at)))
        return r;
    /* readers: instcull's kernel, the raster's and resolve's records, the
       blend pass's draw records; the frame's own set bound again */
    _oak_vk_kernel_end(vk, f);
    return OAK_OK;
}

void _oak_vk_particles_destroy(_oak_vk *vk) {
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++)
        _oak_vk_buffer_destroy(vk, &vk->frames[i].particles);
    _oak_vk_particle_kernels *K = vk->particle_kernels;
    if (!K) return;
    _oak_vk_kernel_destroy(vk, &K->sim);
    _oak_vk_kernel_destroy(vk, &K->draws);
    _oak_vk_kernel_destroy(vk, &K->sort);
    oak_free(K);
    vk->particle_kernels = NULL;
}

uint64_t _oak_vk_particles_uploads(void *self) {
    return self ? ((_oak_vk *)self)->particle_uploads : 0;
}

oak_result _oak_vk_particles_frame_records(void *self, uint64_t first, uint32_t n,
                                           oak_instance *out) {
    _oak_vk *vk = self; /* the backend's struct opens with its _oak_vk */
    if (!vk || (n && !out))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan particle records: NULL argument");
    if (vk->last_slot < 0)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan particle records: nothing drawn");
    oak_result r = _oak_vk_wait_all(vk);
    if (r) return r;
    const _oak_vk_frame *f = &vk->frames[vk->last_slot];
    if (!f->instances.mapped || (first + n) * sizeof(oak_gpu_instance) > f->instances.size)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan particle records: past the buffer");
    if (n)
        memcpy(out, (const uint8_t *)f->instances.mapped + first * sizeof(oak_gpu_instance),
               (size_t)n * sizeof(oak_gpu_instance));
    return OAK_OK;
}

oak_result _oak_vk_particles_book_counts(void *self, uint32_t counts[OAK_PARTICLE_FRAMES]) {
    _oak_vk *vk = self; /* the backend's struct opens with its _oak_vk */
    if (!vk || !counts)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan book counts: NULL argument");
    memset(counts, 0, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    if (vk->last_slot < 0)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan book counts: nothing drawn");
    oak_result r = _oak_vk_wait_all(vk);
    if (r) return r;
    const _oak_vk_frame *f = &vk->frames[vk->last_slot];
    const VkDrawIndexedIndirectCommand *c = f->indirect.mapped;
    for (uint32_t i = 0; i < f->book_cmds; i++) {
        uint64_t k = (uint64_t)vk->blend_first + f->book_cmd[i][1];
        if (!c || (k + 1) * sizeof *c > f->indirect.size ||
            f->book_cmd[i][2] >= OAK_PARTICLE_FRAMES)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan book counts: past the buffer");
        counts[f->book_cmd[i][2]] += c[k].instanceCount;
    }
    return OAK_OK;
}
