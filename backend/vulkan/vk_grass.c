/* The grass kernel (shaders/grass.comp.glsl) on Vulkan: the grass pass,
 * which grows the squares that arrived (and zeroes the slots of those that
 * left) into each frame slot's instance buffer, with its own pipeline and
 * a set per slot (the jobs, 1.3 KB a square, in a host-visible buffer per
 * slot); and the test hook that runs it once over a list of squares into
 * host-visible memory (tests/grass_gpu.h), its objects made and torn down
 * per call (the same steps as vk_particles.c's hooks). */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "render/stream.h"
#include "vk_grass.h"

static const uint32_t k_grass_comp[] =
#include "shaders/grass.comp.h"
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
        b[i] = (VkDescriptorSetLayoutBinding){.binding = i ? OAK_B_GRASS_OUT : OAK_B_GRASS_IN,
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

oak_result _oak_vk_grass_run(void *self, const oak_gpu_grass_square *squares, uint32_t n,
                             oak_instance *records, uint32_t count) {
    _oak_vk *vk = self; /* the backend's struct opens with its _oak_vk */
    if (!vk || (n && !squares) || !records || !count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan grass: NULL argument or no records");
    oak_result r = _oak_vk_wait_all(vk); /* the queue is the frame's too */
    run_objects o = {0};
    VkCommandBuffer cmd;
    uint64_t in_bytes = sizeof *squares * (uint64_t)(n ? n : 1);
    if (!r)
        r = setup(vk, &o, k_grass_comp, sizeof k_grass_comp, in_bytes,
                  sizeof *records * (uint64_t)count, &cmd);
    if (!r) {
        if (n) memcpy(o.in.mapped, squares, sizeof *squares * (size_t)n);
        memset(o.out.mapped, 0, sizeof *records * (size_t)count);
        if (n) vkCmdDispatch(cmd, n, 1, 1);
        r = finish(vk, &o, cmd);
    }
    if (!r) memcpy(records, o.out.mapped, sizeof *records * (size_t)count);
    teardown(vk, &o);
    return r;
}

/* ---- the grass pass --------------------------------------------------------- */

typedef struct _oak_vk_grass {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipe;
    VkDescriptorPool pool;
    VkDescriptorSet sets[OAK_VK_FRAMES];
    _oak_vk_buffer jobs[OAK_VK_FRAMES];
    oak_gpu_grass_square *list;
    uint32_t list_cap;
    uint64_t squares;
} _oak_vk_grass;

static oak_result pass_setup(_oak_vk *vk) {
    if (vk->grass && vk->grass->pipe) return OAK_OK;
    if (!vk->grass && !(vk->grass = oak_calloc(1, sizeof *vk->grass)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan grass: no memory");
    _oak_vk_grass *G = vk->grass;
    VkDescriptorSetLayoutBinding b[2];
    for (int i = 0; i < 2; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = i ? OAK_B_GRASS_OUT : OAK_B_GRASS_IN,
                                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              .descriptorCount = 1,
                                              .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo sl = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 2,
                                          .pBindings = b};
    OAK_VK_TRY(vk, vkCreateDescriptorSetLayout(vk->device, &sl, NULL, &G->set_layout));
    VkPipelineLayoutCreateInfo pl = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &G->set_layout};
    OAK_VK_TRY(vk, vkCreatePipelineLayout(vk->device, &pl, NULL, &G->layout));
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = sizeof k_grass_comp,
                                   .pCode = k_grass_comp};
    VkShaderModule module;
    OAK_VK_TRY(vk, vkCreateShaderModule(vk->device, &mi, NULL, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main"},
        .layout = G->layout};
    VkResult res = vkCreateComputePipelines(vk->device, VK_NULL_HANDLE, 1, &ci, NULL, &G->pipe);
    vkDestroyShaderModule(vk->device, module, NULL);
    OAK_VK_TRY(vk, res);
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * OAK_VK_FRAMES};
    VkDescriptorPoolCreateInfo dp = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = OAK_VK_FRAMES,
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &ps};
    OAK_VK_TRY(vk, vkCreateDescriptorPool(vk->device, &dp, NULL, &G->pool));
    VkDescriptorSetLayout layouts[OAK_VK_FRAMES];
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) layouts[i] = G->set_layout;
    VkDescriptorSetAllocateInfo da = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = G->pool,
                                      .descriptorSetCount = OAK_VK_FRAMES,
                                      .pSetLayouts = layouts};
    OAK_VK_TRY(vk, vkAllocateDescriptorSets(vk->device, &da, G->sets));
    return OAK_OK;
}

oak_result _oak_vk_run_grass(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    oak_result r = pass_setup(vk);
    if (r) return r;
    _oak_vk_grass *G = vk->grass;
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint32_t total = 0, first = 0, n = 0;
    for (uint32_t s = 0; s < ns; s++) total += v->streams[s].count;
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        uint32_t here = first;
        first += rs->count;
        if (!rs->grass || !rs->stream) continue;
        /* this frame's copy, then last frame's (instcull's places), each
           by the slots written since it was made */
        uint32_t k = _oak_stream_grass_jobs(
            rs->stream, f->instcull_src[s] == rs->records && f->instcull_first[s] == here,
            f->instcull_version[s], here, &G->list, &G->list_cap, n);
        if (k == UINT32_MAX) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan grass: no jobs");
        n += k;
        /* a stream that is its own last frame (grass: prev offset 0) keeps no
           copy there to grow (_oak_gpu_prev_stale clears instcull's state) */
        if (!_oak_gpu_prev_is_records(rs)) {
            k = _oak_stream_grass_jobs(
                rs->stream,
                f->instcull_prev_src[s] == rs->records && f->instcull_prev_first[s] == total + here,
                f->instcull_prev_version[s], total + here, &G->list, &G->list_cap, n);
            if (k == UINT32_MAX) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan grass: no jobs");
            n += k;
            f->instcull_prev_src[s] = rs->records, f->instcull_prev_version[s] = rs->prev_version;
            f->instcull_prev_first[s] = total + here;
        }
        /* instcull finds this frame's copy current and copies nothing */
        f->instcull_src[s] = rs->records, f->instcull_version[s] = rs->version;
        f->instcull_first[s] = here;
    }
    if (!n) return OAK_OK;
    /* rows of at most 65,535 groups, the last padded with empty squares */
    uint32_t gx = n < 65535 ? n : 65535, gy = (n + gx - 1) / gx;
    if (!OAK_GROW(G->list, G->list_cap, gx * gy))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan grass: no jobs");
    memset(G->list + n, 0, sizeof *G->list * (size_t)(gx * gy - n));
    _oak_vk_buffer *jb = &G->jobs[vk->slot];
    uint64_t bytes = sizeof *G->list * (uint64_t)gx * gy;
    if (jb->size < bytes) {
        uint64_t size = jb->size ? jb->size : 16 * sizeof *G->list;
        while (size < bytes) size *= 2;
        _oak_vk_buffer_destroy(vk, jb); /* this slot's last frame has finished */
        if ((r = _oak_vk_buffer_create(vk, jb, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                       OAK_VK_MEM_UPLOAD)))
            return r;
    }
    memcpy(jb->mapped, G->list, (size_t)bytes);
    VkDescriptorSet set = G->sets[vk->slot];
    VkDescriptorBufferInfo bi[2] = {{jb->buffer, 0, VK_WHOLE_SIZE},
                                    {f->instances.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[2];
    for (int i = 0; i < 2; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = set,
                                      .dstBinding = i ? OAK_B_GRASS_OUT : OAK_B_GRASS_IN,
                                      .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[i]};
    vkUpdateDescriptorSets(vk->device, 2, w, 0, NULL);
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, G->pipe);
    vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, G->layout, 0, 1, &set, 0, NULL);
    vkCmdDispatch(f->cmd, gx, gy, 1);
    G->squares += n;
    /* the frame's own set again for the passes after (this layout disturbed it) */
    vkCmdBindDescriptorSets(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipe_layout, 0, 1, &f->set,
                            0, NULL);
    /* readers: instcull's kernel, the raster's and resolve's records */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    return OAK_OK;
}

void _oak_vk_grass_destroy(_oak_vk *vk) {
    _oak_vk_grass *G = vk->grass;
    if (!G) return;
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) _oak_vk_buffer_destroy(vk, &G->jobs[i]);
    if (G->pipe) vkDestroyPipeline(vk->device, G->pipe, NULL);
    if (G->pool) vkDestroyDescriptorPool(vk->device, G->pool, NULL);
    if (G->layout) vkDestroyPipelineLayout(vk->device, G->layout, NULL);
    if (G->set_layout) vkDestroyDescriptorSetLayout(vk->device, G->set_layout, NULL);
    oak_free(G->list);
    oak_free(G);
    vk->grass = NULL;
}

uint64_t _oak_vk_grass_squares(void *self) {
    _oak_vk *vk = self; /* the backend's struct opens with its _oak_vk */
    return vk && vk->grass ? vk->grass->squares : 0;
}
