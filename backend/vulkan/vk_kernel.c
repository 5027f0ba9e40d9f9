/* A compute kernel writing into the instance buffer on Vulkan: the pipeline,
 * descriptor and barrier steps the grass pass (vk_grass.c), its test hook
 * and the particles pass's two kernels (vk_pass_particles.c) share, so a
 * kernel that writes records is its shader and its dispatches. */
#include "vk_kernel.h"

/* The set layout (in_type at in_binding, storage buffers at out_binding
   and, unless OAK_VK_KERNEL_NONE, extra_binding), the pipeline layout over
   it and the pipeline of `code` (its module gone once the pipeline holds
   it). */
static oak_result make_pipeline(_oak_vk *vk, VkDescriptorSetLayout *set_layout,
                                VkPipelineLayout *layout, VkPipeline *pipe, const uint32_t *code,
                                size_t code_size, uint32_t in_binding, uint32_t out_binding,
                                uint32_t extra_binding, VkDescriptorType in_type) {
    const uint32_t bind[3] = {in_binding, out_binding, extra_binding};
    uint32_t n = extra_binding == OAK_VK_KERNEL_NONE ? 2 : 3;
    VkDescriptorSetLayoutBinding b[3];
    for (uint32_t i = 0; i < n; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = bind[i],
                                              .descriptorType =
                                                  i ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : in_type,
                                              .descriptorCount = 1,
                                              .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo sl = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = n,
                                          .pBindings = b};
    OAK_VK_TRY(vk, vkCreateDescriptorSetLayout(vk->device, &sl, NULL, set_layout));
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = set_layout};
    OAK_VK_TRY(vk, vkCreatePipelineLayout(vk->device, &pl, NULL, layout));
    VkShaderModuleCreateInfo mi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = code_size, .pCode = code};
    VkShaderModule module;
    OAK_VK_TRY(vk, vkCreateShaderModule(vk->device, &mi, NULL, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main"},
        .layout = *layout};
    VkResult res = vkCreateComputePipelines(vk->device, VK_NULL_HANDLE, 1, &ci, NULL, pipe);
    vkDestroyShaderModule(vk->device, module, NULL);
    OAK_VK_TRY(vk, res);
    return OAK_OK;
}

/* `n` sets of set_layout from a pool of their own: each holds in_type
   once and `storage` more storage buffers. */
static oak_result make_sets(_oak_vk *vk, VkDescriptorPool *pool, VkDescriptorSet *sets, uint32_t n,
                            VkDescriptorSetLayout set_layout, VkDescriptorType in_type,
                            uint32_t storage) {
    bool one = in_type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER; /* one size of (storage + 1) n then */
    VkDescriptorPoolSize ps[2] = {{in_type, one ? (storage + 1) * n : n},
                                  {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, storage * n}};
    VkDescriptorPoolCreateInfo dp = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = n,
                                     .poolSizeCount = one ? 1 : 2,
                                     .pPoolSizes = ps};
    OAK_VK_TRY(vk, vkCreateDescriptorPool(vk->device, &dp, NULL, pool));
    VkDescriptorSetLayout layouts[OAK_VK_FRAMES];
    for (uint32_t i = 0; i < n && i < OAK_VK_FRAMES; i++) layouts[i] = set_layout;
    VkDescriptorSetAllocateInfo da = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = *pool,
                                      .descriptorSetCount = n,
                                      .pSetLayouts = layouts};
    OAK_VK_TRY(vk, vkAllocateDescriptorSets(vk->device, &da, sets));
    return OAK_OK;
}

/* set's in binding at (in, in_range), its out binding at the whole of
   `out` and, where the kernel has one, its extra binding at the whole of
   `extra`. */
static void point_set(_oak_vk *vk, VkDescriptorSet set, const uint32_t bind[3],
                      VkDescriptorType in_type, VkBuffer in, VkDeviceSize in_range, VkBuffer out,
                      VkBuffer extra) {
    VkDescriptorBufferInfo bi[3] = {
        {in, 0, in_range}, {out, 0, VK_WHOLE_SIZE}, {extra, 0, VK_WHOLE_SIZE}};
    uint32_t n = bind[2] == OAK_VK_KERNEL_NONE ? 2 : 3;
    VkWriteDescriptorSet w[3];
    for (uint32_t i = 0; i < n; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = set,
                                      .dstBinding = bind[i],
                                      .descriptorCount = 1,
                                      .descriptorType =
                                          i ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : in_type,
                                      .pBufferInfo = &bi[i]};
    vkUpdateDescriptorSets(vk->device, n, w, 0, NULL);
}

oak_result _oak_vk_kernel_make(_oak_vk *vk, _oak_vk_kernel *k, const uint32_t *code,
                               size_t code_size, uint32_t in_binding, uint32_t out_binding,
                               uint32_t extra_binding, bool in_dynamic) {
    if (k->pipe) return OAK_OK;
    k->in_binding = in_binding, k->out_binding = out_binding, k->extra_binding = extra_binding;
    k->in_type =
        in_dynamic ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    oak_result r = make_pipeline(vk, &k->set_layout, &k->layout, &k->pipe, code, code_size,
                                 in_binding, out_binding, extra_binding, k->in_type);
    if (!r)
        r = make_sets(vk, &k->pool, k->sets, OAK_VK_FRAMES, k->set_layout, k->in_type,
                      extra_binding == OAK_VK_KERNEL_NONE ? 1 : 2);
    return r;
}

void _oak_vk_kernel_destroy(_oak_vk *vk, _oak_vk_kernel *k) {
    if (k->pipe) vkDestroyPipeline(vk->device, k->pipe, NULL);
    if (k->pool) vkDestroyDescriptorPool(vk->device, k->pool, NULL);
    if (k->layout) vkDestroyPipelineLayout(vk->device, k->layout, NULL);
    if (k->set_layout) vkDestroyDescriptorSetLayout(vk->device, k->set_layout, NULL);
    *k = (_oak_vk_kernel){0};
}

VkDescriptorSet _oak_vk_kernel_begin(_oak_vk *vk, _oak_vk_kernel *k, _oak_vk_frame *f, VkBuffer in,
                                     VkDeviceSize in_range, VkBuffer extra) {
    VkDescriptorSet set = k->sets[vk->slot];
    const uint32_t bind[3] = {k->in_binding, k->out_binding, k->extra_binding};
    point_set(vk, set, bind, k->in_type, in, in_range, f->instances.buffer, extra);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipe);
    return set;
}

void _oak_vk_kernel_set(const _oak_vk_kernel *k, VkCommandBuffer cmd, VkDescriptorSet set,
                        uint32_t offset) {
    bool dyn = k->in_type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &set, dyn ? 1 : 0,
                            dyn ? &offset : NULL);
}

void _oak_vk_kernel_end(_oak_vk *vk, _oak_vk_frame *f) {
    vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipe_layout, 0, 1, &f->set,
                            0, NULL);
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

/* ---- once, for a test --------------------------------------------------------- */

void _oak_vk_kernel_once_free(_oak_vk *vk, _oak_vk_kernel_once *o) {
    if (o->fence) vkDestroyFence(vk->device, o->fence, NULL);
    if (o->cmd_pool) vkDestroyCommandPool(vk->device, o->cmd_pool, NULL);
    if (o->pool) vkDestroyDescriptorPool(vk->device, o->pool, NULL);
    if (o->pipe) vkDestroyPipeline(vk->device, o->pipe, NULL);
    if (o->layout) vkDestroyPipelineLayout(vk->device, o->layout, NULL);
    if (o->set_layout) vkDestroyDescriptorSetLayout(vk->device, o->set_layout, NULL);
    if (o->in.buffer) _oak_vk_buffer_destroy(vk, &o->in);
    if (o->out.buffer) _oak_vk_buffer_destroy(vk, &o->out);
    *o = (_oak_vk_kernel_once){0};
}

oak_result _oak_vk_kernel_once_begin(_oak_vk *vk, _oak_vk_kernel_once *o, const uint32_t *code,
                                     size_t code_size, uint32_t in_binding, uint32_t out_binding,
                                     uint64_t in_bytes, uint64_t out_bytes, VkCommandBuffer *cmd) {
    const VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    oak_result r = _oak_vk_buffer_create(
        vk, &o->in, in_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        OAK_VK_MEM_UPLOAD);
    if (!r)
        r = _oak_vk_buffer_create(vk, &o->out, out_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                  OAK_VK_MEM_UPLOAD);
    if (!r)
        r = make_pipeline(vk, &o->set_layout, &o->layout, &o->pipe, code, code_size, in_binding,
                          out_binding, OAK_VK_KERNEL_NONE, type);
    VkDescriptorSet set;
    if (!r) r = make_sets(vk, &o->pool, &set, 1, o->set_layout, type, 1);
    if (r) return r;
    const uint32_t bind[3] = {in_binding, out_binding, OAK_VK_KERNEL_NONE};
    point_set(vk, set, bind, type, o->in.buffer, VK_WHOLE_SIZE, o->out.buffer, VK_NULL_HANDLE);
    VkCommandPoolCreateInfo cp = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                  .queueFamilyIndex = vk->queue_family};
    OAK_VK_TRY(vk, vkCreateCommandPool(vk->device, &cp, NULL, &o->cmd_pool));
    VkCommandBufferAllocateInfo ca = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = o->cmd_pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    OAK_VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &ca, cmd));
    VkCommandBufferBeginInfo cb = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    OAK_VK_TRY(vk, vkBeginCommandBuffer(*cmd, &cb));
    vkCmdBindPipeline(*cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->pipe);
    vkCmdBindDescriptorSets(*cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->layout, 0, 1, &set, 0, NULL);
    return OAK_OK;
}

oak_result _oak_vk_kernel_once_end(_oak_vk *vk, _oak_vk_kernel_once *o, VkCommandBuffer cmd) {
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
