/* The mesh path on Vulkan (docs/ARCHITECTURE.md "Mesh shaders"): where the
 * device has VK_EXT_mesh_shader with task shaders, the camera's meshlet jobs
 * (vk_meshcull.c plans them) are culled by a task shader that makes the
 * meshcull pass's own verdict (common/meshcull.glsl) and drawn by a mesh
 * shader into the visibility buffer through vis.frag, with the same ids and
 * depth as the expanded index buffer's. The shadow jobs (cluster-LOD
 * casters) and two-pass Hi-Z keep the expanded path; OAK_MESH_SHADERS=off
 * keeps it everywhere. */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

static const uint32_t k_vis_mesh_task[] =
#include "shaders/vis_mesh.task.h"
    ;
static const uint32_t k_vis_mesh_mesh[] =
#include "shaders/vis_mesh.mesh.h"
    ;
static const uint32_t k_vis_frag[] =
#include "shaders/vis.frag.h"
    ;
/* its bindless build, where the device runs bindless (vk_pipelines.c) */
static const uint32_t k_vis_frag_bl[] =
#include "shaders/vis.frag.bindless.h"
    ;

/* shaders/common/mesh_path.glsl's OAK_MESH_PATH_GROUPS */
_Static_assert(OAK_VK_VIS_GROUPS == 4, "mesh_path.glsl names four vis groups");

/* Opt-in: on the H200 the dense world's camera raster took 5.84 ms by the
   task and mesh shaders against 1.76 by meshcull.comp and indirect draws
   (docs/PERFORMANCE.md "Round 39 on the H200"), the default world 0.04 ms
   less: the expanded path stays the default until the task shader's cut
   is as fast as the kernel's. */
bool _oak_vk_mesh_wanted(void) {
    const char *e = getenv("OAK_MESH_SHADERS");
    return e && !strcmp(e, "on");
}

void _oak_vk_mesh_start(_oak_vk *vk) {
    vk->draw_mesh_tasks =
        (PFN_vkCmdDrawMeshTasksEXT)vkGetDeviceProcAddr(vk->device, "vkCmdDrawMeshTasksEXT");
    VkPhysicalDeviceMeshShaderPropertiesEXT mp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &mp};
    vkGetPhysicalDeviceProperties2(vk->phys, &p2);
    vk->mesh_task_max[0] = mp.maxTaskWorkGroupCount[0];
    vk->mesh_task_max[1] = mp.maxTaskWorkGroupCount[1];
    vk->mesh_task_max[2] = mp.maxTaskWorkGroupTotalCount;
    /* the shaders' sizes are the extension's minimum limits but one: 64
       task invocations and 1,028 payload bytes (the minimums are 128 and
       16,384), 96 vertices and 32 primitives (128 and 128) */
    if (!vk->draw_mesh_tasks || mp.maxTaskWorkGroupInvocations < OAK_GPU_MESHCULL_GROUP ||
        !vk->mesh_task_max[0] || !vk->mesh_task_max[2]) {
        oak_log_warn("vulkan: mesh shaders present but unusable here: the expanded index buffer");
        vk->mesh_shaders = false;
    }
}

uint64_t _oak_vk_mesh_table_words(uint64_t chunks) {
    return OAK_VK_VIS_GROUPS + 1 + 2 * chunks;
}

/* Group g's pipeline: task, mesh and vis.frag, the state of OAK_VK_PIPE_VIS
   + g (g & 1: two-sided, g & 2: masked). */
static oak_result make_pipe(_oak_vk *vk, uint32_t g) {
    const uint32_t *code[3] = {k_vis_mesh_task, k_vis_mesh_mesh,
                               vk->bindless ? k_vis_frag_bl : k_vis_frag};
    const size_t size[3] = {sizeof k_vis_mesh_task, sizeof k_vis_mesh_mesh,
                            vk->bindless ? sizeof k_vis_frag_bl : sizeof k_vis_frag};
    const VkShaderStageFlagBits stage[3] = {
        VK_SHADER_STAGE_TASK_BIT_EXT, VK_SHADER_STAGE_MESH_BIT_EXT, VK_SHADER_STAGE_FRAGMENT_BIT};
    VkShaderModule mod[3] = {VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE};
    /* SHADOW, MASKED (common/mask.glsl), GROUP (the task shader's) */
    uint32_t spec_data[3] = {VK_FALSE, (g & 2u) ? VK_TRUE : VK_FALSE, g};
    VkSpecializationMapEntry entries[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    VkSpecializationInfo spec = {3, entries, sizeof spec_data, spec_data};
    VkPipelineShaderStageCreateInfo stages[3];
    oak_result r = OAK_OK;
    for (int i = 0; i < 3 && !r; i++) {
        VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                       .codeSize = size[i],
                                       .pCode = code[i]};
        VkResult vr = vkCreateShaderModule(vk->device, &ci, NULL, &mod[i]);
        if (vr != VK_SUCCESS) r = _oak_vk_fail(vk, vr, "vkCreateShaderModule", __FILE__, __LINE__);
        stages[i] = (VkPipelineShaderStageCreateInfo){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = stage[i],
            .module = mod[i],
            .pName = "main",
            .pSpecializationInfo = &spec};
    }
    /* the vis pass's state (OAK_VK_PIPE_VIS + g) */
    if (!r) r = _oak_vk_raster_stages(vk, stages, 3, false, g & 1u, false, &vk->mesh_pipes[g]);
    for (int i = 0; i < 3; i++)
        if (mod[i]) vkDestroyShaderModule(vk->device, mod[i], NULL);
    return r;
}

void _oak_vk_mesh_draw(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f) {
    if (!f->mc_mesh) return;
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS; g++) {
        uint32_t n = vk->mc_count[g];
        if (!n) continue;
        if (!vk->mesh_pipes[g]) {
            oak_result r = make_pipe(vk, g);
            if (r) {
                if (!vk->pipe_result) vk->pipe_result = r;
                continue;
            }
        }
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, vk->mesh_pipes[g]);
        /* the chunks as rows of x (the task shader: x + y * width); past
           the device's total the rest are not drawn, said once */
        uint32_t most = vk->mesh_task_max[2];
        if (vk->mesh_task_max[1] && (uint64_t)vk->mesh_task_max[0] * vk->mesh_task_max[1] < most)
            most = vk->mesh_task_max[0] * vk->mesh_task_max[1];
        if (n > most) {
            if (!vk->mesh_warned)
                oak_log_warn("vulkan: %u meshlet chunks in a group, over the device's %u task "
                             "workgroups: the rest are not drawn",
                             n, most);
            vk->mesh_warned = true;
            n = most;
        }
        uint32_t x = n < vk->mesh_task_max[0] ? n : vk->mesh_task_max[0];
        uint32_t y = (n + x - 1) / x;
        vk->draw_mesh_tasks(cmd, x, y, 1);
    }
}

/* The pools, the draws and the view (copied or written in compute) read by
   the task and mesh stages, which the pass table's scene reads leave out. */
void _oak_vk_mesh_barrier_before(_oak_vk_frame *f) {
    if (!f->mc_mesh) return;
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT |
                        VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT |
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

/* The task shader's counters for the host; and its and the mesh shader's
   reads ordered before later copies and compute writes (next frame's
   uploads wait on the stages the pass table knows). */
void _oak_vk_mesh_barrier_after(_oak_vk_frame *f) {
    if (!f->mc_mesh) return;
    _oak_vk_barrier(
        f->cmd, VK_PIPELINE_STAGE_2_TASK_SHADER_BIT_EXT | VK_PIPELINE_STAGE_2_MESH_SHADER_BIT_EXT,
        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_HOST_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        VK_ACCESS_2_HOST_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT |
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

void _oak_vk_mesh_destroy(_oak_vk *vk) {
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS; g++) {
        if (vk->mesh_pipes[g]) vkDestroyPipeline(vk->device, vk->mesh_pipes[g], NULL);
        vk->mesh_pipes[g] = VK_NULL_HANDLE;
    }
}
