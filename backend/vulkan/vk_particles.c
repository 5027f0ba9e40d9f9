/* The particle kernels (shaders/particles.comp.glsl, particles_sort.comp.glsl)
 * on Vulkan, run once over a block into host-visible memory: what the
 * particle pass will dispatch (not built yet: docs/WORLD.md "Particles"),
 * and today the hooks that hold the kernels to the C evaluation and the
 * CPU's far-to-near order (tests/particles_gpu.h).
 * Its own descriptor layout (two storage buffers), made and torn down per
 * call: a test's cost, not a frame's. */
#include <stddef.h>
#include <string.h>

#include "vk_internal.h"

static const uint32_t k_particles_comp[] =
#include "shaders/particles.comp.h"
    ;
static const uint32_t k_particles_sort_comp[] =
#include "shaders/particles_sort.comp.h"
    ;

/* The objects of one run, torn down together whatever failed. */
typedef struct run_objects {
    _oak_vk_buffer in, out;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkShaderModule module;
    VkPipeline pipe;
    VkDescriptorPool pool;
    VkCommandPool cmd_pool;
    VkFence fence;
} run_objects;

static void teardown(_oak_vk *vk, run_objects *o) {
    if (o->fence) vkDestroyFence(vk->device, o->fence, NULL);
    if (o->cmd_pool) vkDestroyCommandPool(vk->device, o->cmd_pool, NULL);
    if (o->pool) vkDestroyDescriptorPool(vk->device, o->pool, NULL);
    if (o->pipe) vkDestroyPipeline(vk->device, o->pipe, NULL);
    if (o->module) vkDestroyShaderModule(vk->device, o->module, NULL);
    if (o->layout) vkDestroyPipelineLayout(vk->device, o->layout, NULL);
    if (o->set_layout) vkDestroyDescriptorSetLayout(vk->device, o->set_layout, NULL);
    if (o->in.buffer) _oak_vk_buffer_destroy(vk, &o->in);
    if (o->out.buffer) _oak_vk_buffer_destroy(vk, &o->out);
}

/* Buffers of in_bytes and out_bytes (host visible), the kernel `code` with
   its layout and set bound to them, and a command buffer begun with the
   pipeline and set bound. */
static oak_result setup(_oak_vk *vk, run_objects *o, const uint32_t *code, size_t code_size,
                        uint64_t in_bytes, uint64_t out_bytes, VkCommandBuffer *out_cmd) {
    oak_result r = _oak_vk_buffer_create(
        vk, &o->in, in_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        OAK_VK_MEM_UPLOAD);
    if (!r)
        r = _oak_vk_buffer_create(vk, &o->out, out_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                  OAK_VK_MEM_UPLOAD);
    if (r) return r;
    VkDescriptorSetLayoutBinding b[2];
    for (int i = 0; i < 2; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = i ? OAK_B_PARTICLE_OUT : OAK_B_PARTICLE_IN,
                                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              .descriptorCount = 1,
                                              .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo sl = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 2,
                                          .pBindings = b};
    OAK_VK_TRY(vk, vkCreateDescriptorSetLayout(vk->device, &sl, NULL, &o->set_layout));
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &o->set_layout};
    OAK_VK_TRY(vk, vkCreatePipelineLayout(vk->device, &pl, NULL, &o->layout));
    VkShaderModuleCreateInfo mi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = code_size, .pCode = code};
    OAK_VK_TRY(vk, vkCreateShaderModule(vk->device, &mi, NULL, &o->module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = o->module,
                  .pName = "main"},
        .layout = o->layout};
    OAK_VK_TRY(vk, vkCreateComputePipelines(vk->device, VK_NULL_HANDLE, 1, &ci, NULL, &o->pipe));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo dp = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &ps};
    OAK_VK_TRY(vk, vkCreateDescriptorPool(vk->device, &dp, NULL, &o->pool));
    VkDescriptorSet set;
    VkDescriptorSetAllocateInfo da = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = o->pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &o->set_layout};
    OAK_VK_TRY(vk, vkAllocateDescriptorSets(vk->device, &da, &set));
    VkDescriptorBufferInfo bi[2] = {{o->in.buffer, 0, VK_WHOLE_SIZE},
                                    {o->out.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = set,
                                      .dstBinding = b[i].binding,
                                      .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[i]};
    vkUpdateDescriptorSets(vk->device, 2, w, 0, NULL);
    VkCommandPoolCreateInfo cp = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                  .queueFamilyIndex = vk->queue_family};
    OAK_VK_TRY(vk, vkCreateCommandPool(vk->device, &cp, NULL, &o->cmd_pool));
    VkCommandBufferAllocateInfo ca = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = o->cmd_pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    OAK_VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &ca, out_cmd));
    VkCommandBufferBeginInfo cb = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    OAK_VK_TRY(vk, vkBeginCommandBuffer(*out_cmd, &cb));
    vkCmdBindPipeline(*out_cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->pipe);
    vkCmdBindDescriptorSets(*out_cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->layout, 0, 1, &set, 0,
                            NULL);
    return OAK_OK;
}

/* The compute's writes made visible to the host, the commands run and
   waited for. */
static oak_result finish(_oak_vk *vk, run_objects *o, VkCommandBuffer cmd) {
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    OAK_VK_TRY(vk, vkEndCommandBuffer(cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    OAK_VK_TRY(vk, vkCreateFence(vk->device, &fi, NULL, &o->fence));
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    OAK_VK_TRY(vk, vkQueueSubmit(vk->queue, 1, &si, o->fence));
    OAK_VK_TRY(vk, vkWaitForFences(vk->device, 1, &o->fence, VK_TRUE, UINT64_MAX));
    return OAK_OK;
}

static oak_result run(_oak_vk *vk, run_objects *o, const oak_gpu_particle_emitter *c,
                      const oak_gpu_particle *parts, uint32_t n, oak_instance *records,
                      uint32_t counts[OAK_PARTICLE_FRAMES]) {
    const uint64_t head = sizeof *c + sizeof(uint32_t) * OAK_GPU_PARTICLE_HEAD_UINTS;
    VkCommandBuffer cmd;
    oak_result r = setup(vk, o, k_particles_comp, sizeof k_particles_comp,
                         head + sizeof *parts * (uint64_t)n, sizeof *records * (uint64_t)n, &cmd);
    if (r) return r;
    oak_gpu_particle_emitter em = *c;
    em.time[1] = (float)n;
    em.target[3] = 0; /* a particle a thread (no flipbook scatter) */
    uint8_t *in = o->in.mapped;
    memcpy(in, &em, sizeof em);
    memset(in + sizeof em, 0, sizeof(uint32_t) * OAK_GPU_PARTICLE_HEAD_UINTS);
    if (n) memcpy(in + head, parts, sizeof *parts * (size_t)n);
    if (n) vkCmdDispatch(cmd, (n + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP, 1, 1);
    if ((r = finish(vk, o, cmd))) return r;
    if (n) memcpy(records, o->out.mapped, sizeof *records * (size_t)n);
    memcpy(counts, in + sizeof em, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    return OAK_OK;
}

/* The sort's head (shaders/particles_sort.comp.glsl SortBlock). */
typedef struct sort_head {
    float eye[4], fwd[4];
    uint32_t step[4], size[4], book[4], places[OAK_PARTICLE_FRAMES]; /* no book here */
} sort_head;

static oak_result sort(_oak_vk *vk, run_objects *o, const float eye[3], const float fwd[3],
                       const oak_instance *records, const uint8_t *frames, uint32_t n,
                       uint32_t *order) {
    uint32_t m = 1;
    while (m < n) m *= 2;
    VkCommandBuffer cmd;
    oak_result r = setup(vk, o, k_particles_sort_comp, sizeof k_particles_sort_comp,
                         sizeof(sort_head) + 16 * (uint64_t)m, sizeof *records * (uint64_t)n, &cmd);
    if (r) return r;
    sort_head h = {{eye[0], eye[1], eye[2], 0}, {fwd[0], fwd[1], fwd[2], 0}, {0, 0, 0, n}, {m}};
    memcpy(o->in.mapped, &h, sizeof h);
    uint32_t *entry = (uint32_t *)((uint8_t *)o->in.mapped + sizeof h);
    for (uint32_t i = 0; i < n; i++) entry[4 * i] = frames ? frames[i] : 0;
    memcpy(o->out.mapped, records, sizeof *records * (size_t)n);
    uint32_t groups = (m + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP;
    vkCmdDispatch(cmd, groups, 1, 1); /* the pairs */
    for (uint32_t k = 2; k <= m; k *= 2)
        for (uint32_t j = k / 2; j > 0; j /= 2) {
            /* the stage's (k, j) into the head: after the last stage read it */
            _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
            uint32_t step[4] = {1, k, j, n};
            vkCmdUpdateBuffer(cmd, o->in.buffer, offsetof(sort_head, step), sizeof step, step);
            _oak_vk_barrier(
                cmd, VK_PIPELINE_STAGE_2_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT);
            vkCmdDispatch(cmd, groups, 1, 1);
        }
    if ((r = finish(vk, o, cmd))) return r;
    const uint32_t *pairs = (const uint32_t *)((const uint8_t *)o->in.mapped + sizeof h);
    for (uint32_t i = 0; i < n; i++) order[i] = pairs[4 * i + 2];
    return OAK_OK;
}

oak_result _oak_vk_particles_sort(void *self, const float eye[3], const float fwd[3],
                                  const oak_instance *records, const uint8_t *frames, uint32_t n,
                                  uint32_t *order) {
    _oak_vk *vk = self; /* the backend's struct opens with its _oak_vk */
    if (!vk || !eye || !fwd || !n || !records || !order)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan particle sort: NULL or no records");
    oak_result r = _oak_vk_wait_all(vk);
    run_objects o = {0};
    if (!r) r = sort(vk, &o, eye, fwd, records, frames, n, order);
    teardown(vk, &o);
    return r;
}

oak_result _oak_vk_particles_run(void *self, const oak_gpu_particle_emitter *c,
                                 const oak_gpu_particle *parts, uint32_t n, oak_instance *records,
                                 uint32_t counts[OAK_PARTICLE_FRAMES]) {
    _oak_vk *vk = self; /* the backend's struct opens with its _oak_vk */
    if (!vk || !c || (n && (!parts || !records)) || !counts)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan particles: NULL argument");
    oak_result r = _oak_vk_wait_all(vk); /* the queue is the frame's too */
    run_objects o = {0};
    if (!r) r = run(vk, &o, c, parts, n, records, counts);
    teardown(vk, &o);
    return r;
}
