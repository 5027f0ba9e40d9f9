/* The particles pass on Vulkan: the particle kernel (shaders/particles.comp.glsl)
 * writes each PARTICLES stream's records (oak_render_stream.particles) into
 * this slot's instance buffer where instcull reads them, and last frame's
 * copies after them, from the emitter's block. The block (the alive
 * particles' birth states) goes up into this slot's host-visible buffer
 * only when its version or place moved (a birth or a death); the
 * constants (a few hundred bytes) every frame. One dispatch per stream, its
 * block bound at a dynamic offset; the pipeline and its two bindings are
 * the pass's own (made on first use). A flipbook's frames are streams that
 * share one block: it goes up and runs once, at the first of them in the
 * view, as one work group scattering each particle to its frame's place
 * (backend/gpu/gpu_particles.h). */
#include <string.h>

#include "backend/gpu/gpu_particles.h"
#include "backend/gpu/gpu_records.h"
#include "vk_internal.h"

static const uint32_t k_particles_comp[] =
#include "shaders/particles.comp.h"
    ;

/* every block starts on 256 bytes: the largest minStorageBufferOffsetAlignment allowed */
#define BLOCK_ALIGN 256u
#define HEAD        OAK_GPU_PARTICLE_HEAD_BYTES

static oak_result setup(_oak_vk *vk) {
    if (vk->particle_pipe) return OAK_OK;
    VkDescriptorSetLayoutBinding b[2] = {
        {.binding = OAK_B_PARTICLE_IN,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
         .descriptorCount = 1,
         .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
        {.binding = OAK_B_PARTICLE_OUT,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
         .descriptorCount = 1,
         .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT}};
    VkDescriptorSetLayoutCreateInfo sl = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 2,
                                          .pBindings = b};
    OAK_VK_TRY(vk, vkCreateDescriptorSetLayout(vk->device, &sl, NULL, &vk->particle_set_layout));
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &vk->particle_set_layout};
    OAK_VK_TRY(vk, vkCreatePipelineLayout(vk->device, &pl, NULL, &vk->particle_layout));
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = sizeof k_particles_comp,
                                   .pCode = k_particles_comp};
    VkShaderModule module;
    OAK_VK_TRY(vk, vkCreateShaderModule(vk->device, &mi, NULL, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main"},
        .layout = vk->particle_layout};
    VkResult res =
        vkCreateComputePipelines(vk->device, VK_NULL_HANDLE, 1, &ci, NULL, &vk->particle_pipe);
    vkDestroyShaderModule(vk->device, module, NULL);
    OAK_VK_TRY(vk, res);
    VkDescriptorPoolSize ps[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, OAK_VK_FRAMES},
                                  {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, OAK_VK_FRAMES}};
    VkDescriptorPoolCreateInfo dp = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = OAK_VK_FRAMES,
                                     .poolSizeCount = 2,
                                     .pPoolSizes = ps};
    OAK_VK_TRY(vk, vkCreateDescriptorPool(vk->device, &dp, NULL, &vk->particle_pool));
    VkDescriptorSetLayout layouts[OAK_VK_FRAMES];
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) layouts[i] = vk->particle_set_layout;
    VkDescriptorSetAllocateInfo da = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = vk->particle_pool,
                                      .descriptorSetCount = OAK_VK_FRAMES,
                                      .pSetLayouts = layouts};
    OAK_VK_TRY(vk, vkAllocateDescriptorSets(vk->device, &da, vk->particle_sets));
    return OAK_OK;
}

static const uint32_t k_particles_draws_comp[] =
#include "shaders/particles_draws.comp.h"
    ;

/* the draw kernel's jobs: two uvec4s a stream, at most a view's streams */
#define JOBS_BYTES (OAK_STREAM_MAX_PER_VIEW * 8 * sizeof(uint32_t))

/* The draw kernel's pipeline: its jobs at a dynamic offset, the slot's
   instance buffer and its draws (shaders/particles_draws.comp.glsl). */
static oak_result setup_draws(_oak_vk *vk) {
    if (vk->pdraw_pipe) return OAK_OK;
    const uint32_t bind[3] = {OAK_B_PARTICLE_IN, OAK_B_INSTANCES, OAK_B_DRAWS};
    VkDescriptorSetLayoutBinding b[3];
    for (int i = 0; i < 3; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = bind[i],
                                              .descriptorType =
                                                  i ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                                    : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
                                              .descriptorCount = 1,
                                              .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo sl = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 3,
                                          .pBindings = b};
    OAK_VK_TRY(vk, vkCreateDescriptorSetLayout(vk->device, &sl, NULL, &vk->pdraw_set_layout));
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &vk->pdraw_set_layout};
    OAK_VK_TRY(vk, vkCreatePipelineLayout(vk->device, &pl, NULL, &vk->pdraw_layout));
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = sizeof k_particles_draws_comp,
                                   .pCode = k_particles_draws_comp};
    VkShaderModule module;
    OAK_VK_TRY(vk, vkCreateShaderModule(vk->device, &mi, NULL, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main"},
        .layout = vk->pdraw_layout};
    VkResult res =
        vkCreateComputePipelines(vk->device, VK_NULL_HANDLE, 1, &ci, NULL, &vk->pdraw_pipe);
    vkDestroyShaderModule(vk->device, module, NULL);
    OAK_VK_TRY(vk, res);
    VkDescriptorPoolSize ps[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, OAK_VK_FRAMES},
                                  {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * OAK_VK_FRAMES}};
    VkDescriptorPoolCreateInfo dp = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = OAK_VK_FRAMES,
                                     .poolSizeCount = 2,
                                     .pPoolSizes = ps};
    OAK_VK_TRY(vk, vkCreateDescriptorPool(vk->device, &dp, NULL, &vk->pdraw_pool));
    VkDescriptorSetLayout layouts[OAK_VK_FRAMES];
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) layouts[i] = vk->pdraw_set_layout;
    VkDescriptorSetAllocateInfo da = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = vk->pdraw_pool,
                                      .descriptorSetCount = OAK_VK_FRAMES,
                                      .pSetLayouts = layouts};
    OAK_VK_TRY(vk, vkAllocateDescriptorSets(vk->device, &da, vk->pdraw_sets));
    return OAK_OK;
}

/* Device-written BLEND streams (oak_render_stream.device_blend): each
   record the particle kernel just wrote (and last frame's copy) into a
   draw record at the stream's slot past the lists, read by the blend pass.
   The draws buffer is the host's (mapped, written before the submit): the
   slots lie past everything it wrote. The jobs go at `at` of the blocks'
   buffer. */
static oak_result run_draws(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v, uint64_t at) {
    uint32_t jobs[OAK_STREAM_MAX_PER_VIEW][8], most = 0;
    uint32_t n = _oak_gpu_blend_jobs(v, _oak_vk_blend_slots_from(v), jobs, &most);
    if (!n || !most) return OAK_OK;
    oak_result r = setup_draws(vk);
    if (r) return r;
    memcpy((uint8_t *)f->particles.mapped + at, jobs, sizeof jobs[0] * n);
    VkDescriptorSet set = vk->pdraw_sets[vk->slot];
    VkDescriptorBufferInfo bi[3] = {{f->particles.buffer, 0, JOBS_BYTES},
                                    {f->instances.buffer, 0, VK_WHOLE_SIZE},
                                    {f->draws.buffer, 0, VK_WHOLE_SIZE}};
    const uint32_t bind[3] = {OAK_B_PARTICLE_IN, OAK_B_INSTANCES, OAK_B_DRAWS};
    VkWriteDescriptorSet w[3];
    for (int i = 0; i < 3; i++)
        w[i] =
            (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                   .dstSet = set,
                                   .dstBinding = bind[i],
                                   .descriptorCount = 1,
                                   .descriptorType = i ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                                       : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
                                   .pBufferInfo = &bi[i]};
    vkUpdateDescriptorSets(vk->device, 3, w, 0, NULL);
    /* the records the particle kernel wrote, read here */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pdraw_pipe);
    uint32_t off = (uint32_t)at;
    vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pdraw_layout, 0, 1, &set, 1,
                            &off);
    vkCmdDispatch(f->cmd, (most + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP, n, 1);
    return OAK_OK;
}

static uint64_t block_bytes(uint32_t count) {
    uint64_t b = HEAD + sizeof(oak_gpu_particle) * (uint64_t)count;
    return (b + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
}

oak_result _oak_vk_run_particles(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    oak_result r = setup(vk);
    if (r) return r;
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    /* the blocks one after another, and room for the largest past the last
       (a dynamic offset's range is fixed in the set) */
    uint64_t bytes = 0, most = BLOCK_ALIGN, total = 0;
    for (uint32_t s = 0; s < ns; s++) {
        total += v->streams[s].count;
        if (!_oak_gpu_particle_block_leads(v, ns, s)) continue;
        uint64_t b = block_bytes(_oak_gpu_particle_count(&v->streams[s]));
        bytes += b, most = b > most ? b : most;
    }
    /* then the draw kernel's jobs */
    uint64_t need = bytes + (most > JOBS_BYTES ? most : JOBS_BYTES);
    VkBuffer old = f->particles.buffer;
    if (!f->particles.buffer || f->particles.size < need) {
        uint64_t size = f->particles.size ? f->particles.size : 4096;
        while (size < need) size *= 2;
        _oak_vk_buffer_destroy(vk, &f->particles); /* this slot's last frame has finished */
        if ((r = _oak_vk_buffer_create(vk, &f->particles, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                       OAK_VK_MEM_UPLOAD)))
            return r;
    }
    if (f->particles.buffer != old) memset(f->particle_src, 0, sizeof f->particle_src);
    VkDescriptorSet set = vk->particle_sets[vk->slot];
    VkDescriptorBufferInfo bi[2] = {{f->particles.buffer, 0, most},
                                    {f->instances.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++)
        w[i] =
            (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                   .dstSet = set,
                                   .dstBinding = i ? OAK_B_PARTICLE_OUT : OAK_B_PARTICLE_IN,
                                   .descriptorCount = 1,
                                   .descriptorType = i ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                                       : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC,
                                   .pBufferInfo = &bi[i]};
    vkUpdateDescriptorSets(vk->device, 2, w, 0, NULL);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->particle_pipe);
    uint8_t *mapped = f->particles.mapped;
    uint64_t at = 0, first = 0;
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        uint64_t here = first;
        first += rs->count;
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
        uint32_t groups = _oak_gpu_particle_head(v, ns, s, here, total, head);
        memcpy(mapped + at, head, HEAD);
        if (n) {
            uint32_t off = (uint32_t)at;
            vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->particle_layout, 0,
                                    1, &set, 1, &off);
            vkCmdDispatch(f->cmd, groups, 1, 1);
        }
        at += block_bytes(n);
    }
    if ((r = run_draws(vk, f, v, at))) return r;
    /* the frame's own set again for the passes after (this layout disturbed it) */
    vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipe_layout, 0, 1, &f->set,
                            0, NULL);
    /* readers: instcull's kernel, the raster's and resolve's records, the
       blend pass's draw records */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    return OAK_OK;
}

void _oak_vk_particles_destroy(_oak_vk *vk) {
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++)
        _oak_vk_buffer_destroy(vk, &vk->frames[i].particles);
    if (vk->particle_pipe) vkDestroyPipeline(vk->device, vk->particle_pipe, NULL);
    if (vk->particle_pool) vkDestroyDescriptorPool(vk->device, vk->particle_pool, NULL);
    if (vk->particle_layout) vkDestroyPipelineLayout(vk->device, vk->particle_layout, NULL);
    if (vk->particle_set_layout)
        vkDestroyDescriptorSetLayout(vk->device, vk->particle_set_layout, NULL);
    if (vk->pdraw_pipe) vkDestroyPipeline(vk->device, vk->pdraw_pipe, NULL);
    if (vk->pdraw_pool) vkDestroyDescriptorPool(vk->device, vk->pdraw_pool, NULL);
    if (vk->pdraw_layout) vkDestroyPipelineLayout(vk->device, vk->pdraw_layout, NULL);
    if (vk->pdraw_set_layout) vkDestroyDescriptorSetLayout(vk->device, vk->pdraw_set_layout, NULL);
    vk->pdraw_pipe = VK_NULL_HANDLE, vk->pdraw_pool = VK_NULL_HANDLE;
    vk->pdraw_layout = VK_NULL_HANDLE, vk->pdraw_set_layout = VK_NULL_HANDLE;
    vk->particle_pipe = VK_NULL_HANDLE, vk->particle_pool = VK_NULL_HANDLE;
    vk->particle_layout = VK_NULL_HANDLE, vk->particle_set_layout = VK_NULL_HANDLE;
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
