/* The particle kernel (shaders/particles.comp.glsl) on Vulkan, run once over
 * a block of particles into host-visible records: what the particle pass
 * will dispatch (not built yet: docs/WORLD.md "Particles"), and today the
 * hook that holds the kernel to the C evaluation (tests/test_particles_gpu.c).
 * Its own descriptor layout (two storage buffers), made and torn down per
 * call: a test's cost, not a frame's. */
#include <string.h>

#include "vk_internal.h"

static const uint32_t k_particles_comp[] =
#include "shaders/particles.comp.h"
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

static oak_result run(_oak_vk *vk, run_objects *o, const oak_gpu_particle_emitter *c,
                      const oak_gpu_particle *parts, uint32_t n, oak_instance *records,
                      uint32_t counts[OAK_PARTICLE_FRAMES]) {
    const uint64_t head = sizeof *c + sizeof(uint32_t) * OAK_PARTICLE_FRAMES;
    oak_result r = _oak_vk_buffer_create(vk, &o->in, head + sizeof *parts * (uint64_t)n,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, OAK_VK_MEM_UPLOAD);
    if (!r)
        r = _oak_vk_buffer_create(vk, &o->out, sizeof *records * (uint64_t)n,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, OAK_VK_MEM_UPLOAD);
    if (r) return r;
    oak_gpu_particle_emitter em = *c;
    em.time[1] = (float)n;
    uint8_t *in = o->in.mapped;
    memcpy(in, &em, sizeof em);
    memset(in + sizeof em, 0, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    memcpy(in + head, parts, sizeof *parts * (size_t)n);
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
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = sizeof k_particles_comp,
                                   .pCode = k_particles_comp};
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
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo ca = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = o->cmd_pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    OAK_VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &ca, &cmd));
    VkCommandBufferBeginInfo cb = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    OAK_VK_TRY(vk, vkBeginCommandBuffer(cmd, &cb));
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->pipe);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->layout, 0, 1, &set, 0, NULL);
    if (n) vkCmdDispatch(cmd, (n + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP, 1, 1);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    OAK_VK_TRY(vk, vkEndCommandBuffer(cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    OAK_VK_TRY(vk, vkCreateFence(vk->device, &fi, NULL, &o->fence));
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    OAK_VK_TRY(vk, vkQueueSubmit(vk->queue, 1, &si, o->fence));
    OAK_VK_TRY(vk, vkWaitForFences(vk->device, 1, &o->fence, VK_TRUE, UINT64_MAX));
    memcpy(records, o->out.mapped, sizeof *records * (size_t)n);
    memcpy(counts, in + sizeof em, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    return OAK_OK;
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
