/* Pipelines and render targets: one descriptor set layout for every pass
 * (bindings from shaders/common/oak_gpu.h), the shadow and visibility raster
 * pipelines, the resolve/post/FXAA compute pipelines, and the size-dependent
 * targets (depth, ids, HDR colour, LDR bytes, shadow map). */
#include <string.h>

#include "vk_grass.h"
#include "vk_internal.h"

static const uint32_t k_vis_vert[] =
#include "shaders/vis.vert.h"
    ;
static const uint32_t k_shadow_vert[] =
#include "shaders/shadow.vert.h"
    ;
static const uint32_t k_vis_stream_vert[] =
#include "shaders/vis_stream.vert.h"
    ;
static const uint32_t k_vis_stream_frag[] =
#include "shaders/vis_stream.frag.h"
    ;
static const uint32_t k_shadow_stream_vert[] =
#include "shaders/shadow_stream.vert.h"
    ;
static const uint32_t k_shadow_stream_masked_frag[] =
#include "shaders/shadow_stream_masked.frag.h"
    ;
static const uint32_t k_vis_frag[] =
#include "shaders/vis.frag.h"
    ;
static const uint32_t k_shadow_masked_frag[] =
#include "shaders/shadow_masked.frag.h"
    ;
static const uint32_t k_blend_frag[] =
#include "shaders/blend.frag.h"
    ;
static const uint32_t k_blend_unlit_frag[] =
#include "shaders/blend_unlit.frag.h"
    ;
static const uint32_t k_blend_water_id_frag[] =
#include "shaders/blend_water_id.frag.h"
    ;
static const uint32_t k_blend_water_comp[] =
#include "shaders/blend_water.comp.h"
    ;
static const uint32_t k_resolve_comp[] =
#include "shaders/resolve.comp.h"
    ;
static const uint32_t k_post_comp[] =
#include "shaders/post.comp.h"
    ;
static const uint32_t k_fxaa_comp[] =
#include "shaders/fxaa.comp.h"
    ;
static const uint32_t k_lightgrid_comp[] =
#include "shaders/lightgrid.comp.h"
    ;
static const uint32_t k_lamp_shadow_vert[] =
#include "shaders/lamp_shadow.vert.h"
    ;
static const uint32_t k_gtao_prefilter_comp[] =
#include "shaders/gtao_prefilter.comp.h"
    ;
static const uint32_t k_gtao_mips_comp[] =
#include "shaders/gtao_mips.comp.h"
    ;
static const uint32_t k_gtao_search_comp[] =
#include "shaders/gtao_search.comp.h"
    ;
static const uint32_t k_gtao_denoise_comp[] =
#include "shaders/gtao_denoise.comp.h"
    ;
static const uint32_t k_skycapture_comp[] =
#include "shaders/skycapture.comp.h"
    ;
static const uint32_t k_skyfilter_comp[] =
#include "shaders/skyfilter.comp.h"
    ;
static const uint32_t k_instcull_comp[] =
#include "shaders/instcull.comp.h"
    ;
static const uint32_t k_meshcull_comp[] =
#include "shaders/meshcull.comp.h"
    ;
static const uint32_t k_meshcull_scan_comp[] =
#include "shaders/meshcull_scan.comp.h"
    ;
static const uint32_t k_meshcull_write_comp[] =
#include "shaders/meshcull_write.comp.h"
    ;
static const uint32_t k_exposure_meter_comp[] =
#include "shaders/exposure_meter.comp.h"
    ;
static const uint32_t k_craster_comp[] =
#include "shaders/craster.comp.h"
    ;
static const uint32_t k_craster_plan_comp[] =
#include "shaders/craster_plan.comp.h"
    ;
static const uint32_t k_craster_merge_vert[] =
#include "shaders/craster_merge.vert.h"
    ;
static const uint32_t k_craster_merge_frag[] =
#include "shaders/craster_merge.frag.h"
    ;
static const uint32_t k_craster_shadow_comp[] =
#include "shaders/craster_shadow.comp.h"
    ;
static const uint32_t k_craster_shadow_merge_vert[] =
#include "shaders/craster_shadow_merge.vert.h"
    ;
static const uint32_t k_craster_shadow_merge_frag[] =
#include "shaders/craster_shadow_merge.frag.h"
    ;
static const uint32_t k_exposure_step_comp[] =
#include "shaders/exposure_step.comp.h"
    ;

/* The textured shaders' bindless builds (vulkan.cmake): the runtime array
   in place of the size classes, taken when the device runs bindless */
static const uint32_t k_vis_frag_bl[] =
#include "shaders/vis.frag.bindless.h"
    ;
static const uint32_t k_shadow_masked_frag_bl[] =
#include "shaders/shadow_masked.frag.bindless.h"
    ;
static const uint32_t k_blend_frag_bl[] =
#include "shaders/blend.frag.bindless.h"
    ;
static const uint32_t k_blend_unlit_frag_bl[] =
#include "shaders/blend_unlit.frag.bindless.h"
    ;
static const uint32_t k_blend_water_comp_bl[] =
#include "shaders/blend_water.comp.bindless.h"
    ;
static const uint32_t k_resolve_comp_bl[] =
#include "shaders/resolve.comp.bindless.h"
    ;
static const uint32_t k_vis_stream_frag_bl[] =
#include "shaders/vis_stream.frag.bindless.h"
    ;
static const uint32_t k_shadow_stream_masked_frag_bl[] =
#include "shaders/shadow_stream_masked.frag.bindless.h"
    ;
/* the compute raster's MASK bands read the cutout's texels too */
static const uint32_t k_craster_comp_bl[] =
#include "shaders/craster.comp.bindless.h"
    ;
static const uint32_t k_craster_shadow_comp_bl[] =
#include "shaders/craster_shadow.comp.bindless.h"
    ;

#define OAK_VK_VARIANT(k)                                                                          \
    { k, k##_bl, sizeof k##_bl }
static const struct {
    const uint32_t *code, *bindless;
    size_t bindless_size;
} k_bindless_variants[] = {
    OAK_VK_VARIANT(k_vis_frag),         OAK_VK_VARIANT(k_shadow_masked_frag),
    OAK_VK_VARIANT(k_blend_frag),       OAK_VK_VARIANT(k_blend_unlit_frag),
    OAK_VK_VARIANT(k_blend_water_comp), OAK_VK_VARIANT(k_resolve_comp),
    OAK_VK_VARIANT(k_vis_stream_frag),  OAK_VK_VARIANT(k_shadow_stream_masked_frag),
    OAK_VK_VARIANT(k_craster_comp),     OAK_VK_VARIANT(k_craster_shadow_comp),
};
/* every shader vulkan.cmake builds twice, fog's (vk_pass_fog.c) aside */
_Static_assert(sizeof k_bindless_variants / sizeof *k_bindless_variants + 1 ==
                   OAK_VK_TEXTURED_SHADERS,
               "a textured shader's bindless build is missing from k_bindless_variants");
#undef OAK_VK_VARIANT

static oak_result _oak_vk_module(_oak_vk *vk, const uint32_t *code, size_t size,
                                 VkShaderModule *out) {
    for (size_t i = 0; vk->bindless && i < sizeof k_bindless_variants / sizeof *k_bindless_variants;
         i++)
        if (code == k_bindless_variants[i].code) {
            code = k_bindless_variants[i].bindless;
            size = k_bindless_variants[i].bindless_size;
            break;
        }
    VkShaderModuleCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    OAK_VK_TRY(vk, vkCreateShaderModule(vk->device, &ci, NULL, out));
    return OAK_OK;
}

static oak_result _oak_vk_layouts(_oak_vk *vk) {
    /* with bindless textures one more: the runtime array, last, as a
       variable-length binding must be (OAK_B_BINDLESS) */
    VkDescriptorSetLayoutBinding b[OAK_B_COUNT + 1];
    VkDescriptorBindingFlags flags[OAK_B_COUNT + 1];
    uint32_t count = vk->bindless ? OAK_B_COUNT + 1 : OAK_B_COUNT;
    memset(b, 0, sizeof b);
    memset(flags, 0, sizeof flags);
    for (uint32_t i = 0; i < count; i++) {
        b[i].binding = i;
        b[i].descriptorCount = 1;
        b[i].stageFlags =
            VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
        /* the mesh path's task and mesh shaders (vk_mesh_shader.c) */
        if (vk->mesh_shaders)
            b[i].stageFlags |= VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT;
        b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    }
    b[OAK_B_VIEW].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    b[OAK_B_SHADOW].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    b[OAK_B_IDS].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    b[OAK_B_HDR].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    b[OAK_B_LAMP_ATLAS].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    b[OAK_B_DEPTH].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    for (uint32_t i = 0; i < OAK_GPU_TEXTURE_CLASSES; i++)
        b[OAK_B_TEXTURES + i].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    /* partially bound: the elements past the high water are never written */
    if (vk->bindless) {
        b[OAK_B_BINDLESS].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
        b[OAK_B_BINDLESS].descriptorCount = vk->bindless;
        flags[OAK_B_BINDLESS] = VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT |
                                VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT;
    }
    VkDescriptorSetLayoutBindingFlagsCreateInfo fi = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
        .bindingCount = count,
        .pBindingFlags = flags};
    VkDescriptorSetLayoutCreateInfo li = {.sType =
                                              VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .pNext = vk->bindless ? &fi : NULL,
                                          .bindingCount = count,
                                          .pBindings = b};
    OAK_VK_TRY(vk, vkCreateDescriptorSetLayout(vk->device, &li, NULL, &vk->set_layout));
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1,
                                      .pSetLayouts = &vk->set_layout};
    OAK_VK_TRY(vk, vkCreatePipelineLayout(vk->device, &pli, NULL, &vk->pipe_layout));
    /* the pool holds each slot's set: as many of each type as the layout has */
    VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 0},
                                    {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0},
                                    {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 0},
                                    {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 0}};
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            if (sizes[k].type == b[i].descriptorType)
                sizes[k].descriptorCount += OAK_VK_FRAMES * b[i].descriptorCount;
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = OAK_VK_FRAMES,
                                     .poolSizeCount = sizeof sizes / sizeof sizes[0],
                                     .pPoolSizes = sizes};
    OAK_VK_TRY(vk, vkCreateDescriptorPool(vk->device, &pi, NULL, &vk->desc_pool));
    VkDescriptorSetVariableDescriptorCountAllocateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO,
        .descriptorSetCount = 1,
        .pDescriptorCounts = &vk->bindless};
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .pNext = vk->bindless ? &vi : NULL,
                                          .descriptorPool = vk->desc_pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &vk->set_layout};
        OAK_VK_TRY(vk, vkAllocateDescriptorSets(vk->device, &ai, &vk->frames[i].set));
    }
    VkSamplerCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                              .magFilter = VK_FILTER_NEAREST,
                              .minFilter = VK_FILTER_NEAREST,
                              .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
                              .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                              .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                              .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                              .maxLod = VK_LOD_CLAMP_NONE};
    OAK_VK_TRY(vk, vkCreateSampler(vk->device, &si, NULL, &vk->sampler));
    return OAK_OK;
}

oak_result _oak_vk_compute_spec(_oak_vk *vk, const uint32_t *code, size_t size,
                                const uint32_t *spec0, VkPipeline *out) {
    VkShaderModule m;
    oak_result r = _oak_vk_module(vk, code, size, &m);
    if (r) return r;
    VkSpecializationMapEntry entry = {0, 0, sizeof(uint32_t)};
    VkSpecializationInfo spec = {1, &entry, sizeof(uint32_t), spec0};
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = m,
                  .pName = "main",
                  .pSpecializationInfo = spec0 ? &spec : NULL},
        .layout = vk->pipe_layout};
    VkResult vr = vkCreateComputePipelines(vk->device, vk->pipeline_cache, 1, &ci, NULL, out);
    vkDestroyShaderModule(vk->device, m, NULL);
    if (vr != VK_SUCCESS)
        return _oak_vk_fail(vk, vr, "vkCreateComputePipelines", __FILE__, __LINE__);
    return OAK_OK;
}

static oak_result _oak_vk_compute(_oak_vk *vk, const uint32_t *code, size_t size, VkPipeline *out) {
    return _oak_vk_compute_spec(vk, code, size, NULL, out);
}

/* shadow: depth only into the key light's map; vis: depth + ids. masked
   pipelines run a fragment shader that discards below the cutoff. blend:
   colour "over" into the HDR target, depth tested but not written. */
static oak_result _oak_vk_raster_ex(_oak_vk *vk, VkShaderModule vert, VkShaderModule frag,
                                    bool shadow, bool masked, bool two_sided, bool blend,
                                    VkPipeline *out) {
    VkBool32 spec_data[2] = {shadow, masked};
    VkSpecializationMapEntry entries[2] = {{0, 0, sizeof(VkBool32)},
                                           {1, sizeof(VkBool32), sizeof(VkBool32)}};
    VkSpecializationInfo spec = {2, entries, sizeof spec_data, spec_data};
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vert,
         .pName = "main",
         .pSpecializationInfo = &spec},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = frag,
         .pName = "main",
         .pSpecializationInfo = &spec}};
    return _oak_vk_raster_stages(vk, stages, (shadow && !masked) ? 1 : 2, shadow, two_sided, blend,
                                 out);
}

oak_result _oak_vk_raster_stages(_oak_vk *vk, const VkPipelineShaderStageCreateInfo *stages,
                                 uint32_t stage_count, bool shadow, bool two_sided, bool blend,
                                 VkPipeline *out) {
    /* (a mesh pipeline ignores the vertex input and assembly) */
    VkPipelineVertexInputStateCreateInfo vin = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo ia = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkPipelineViewportStateCreateInfo vp = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .scissorCount = 1};
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = two_sided || shadow ? VK_CULL_MODE_NONE : VK_CULL_MODE_BACK_BIT,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    VkPipelineDepthStencilStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = VK_TRUE,
        .depthWriteEnable = !blend,
        .depthCompareOp = VK_COMPARE_OP_GREATER}; /* reversed-Z */
    VkPipelineColorBlendAttachmentState att = {.colorWriteMask = 0xf};
    if (blend)
        att = (VkPipelineColorBlendAttachmentState){
            .blendEnable = VK_TRUE,
            /* premultiplied (blend.frag): "over", or added with alpha 0 */
            .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
            .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
            .colorBlendOp = VK_BLEND_OP_ADD,
            .srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO,
            .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
            .alphaBlendOp = VK_BLEND_OP_ADD,
            .colorWriteMask = 0xf};
    VkPipelineColorBlendStateCreateInfo cb = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = shadow ? 0 : 1,
        .pAttachments = &att};
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dy = {.sType =
                                               VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                           .dynamicStateCount = 2,
                                           .pDynamicStates = dyn};
    VkFormat color = blend ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R32G32_UINT;
    VkPipelineRenderingCreateInfo ri = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                        .colorAttachmentCount = shadow ? 0 : 1,
                                        .pColorAttachmentFormats = &color,
                                        .depthAttachmentFormat = VK_FORMAT_D32_SFLOAT};
    VkGraphicsPipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
                                       .pNext = &ri,
                                       .stageCount = stage_count,
                                       .pStages = stages,
                                       .pVertexInputState = &vin,
                                       .pInputAssemblyState = &ia,
                                       .pViewportState = &vp,
                                       .pRasterizationState = &rs,
                                       .pMultisampleState = &ms,
                                       .pDepthStencilState = &ds,
                                       .pColorBlendState = &cb,
                                       .pDynamicState = &dy,
                                       .layout = vk->pipe_layout};
    OAK_VK_TRY(vk, vkCreateGraphicsPipelines(vk->device, vk->pipeline_cache, 1, &ci, NULL, out));
    return OAK_OK;
}

/* Every pipeline, made the first time a pass binds it (_oak_vk_bind), so a
   renderer compiles only what its frames use: lavapipe takes about 1.4 s to
   build all of them, which every renderer of the test suite paid. */
typedef struct _oak_vk_pipe_spec {
    const uint32_t *a, *b; /* compute: the shader; raster: vertex, fragment */
    size_t a_size, b_size;
    bool compute, shadow, masked, two_sided, blend;
} _oak_vk_pipe_spec;

#define COMPUTE(k)                                                                                 \
    { .a = k, .a_size = sizeof k, .compute = true }
#define RASTER(v, f, ...)                                                                          \
    { .a = v, .a_size = sizeof v, .b = f, .b_size = sizeof f, __VA_ARGS__ }

static const _oak_vk_pipe_spec k_pipe_specs[OAK_VK_PIPE_COUNT] = {
    [OAK_VK_PIPE_SHADOW] = RASTER(k_shadow_vert, k_vis_frag, .shadow = true, .two_sided = true),
    [OAK_VK_PIPE_SHADOW_MASKED] = RASTER(k_shadow_vert, k_shadow_masked_frag, .shadow = true,
                                         .masked = true, .two_sided = true),
    [OAK_VK_PIPE_VIS] = RASTER(k_vis_vert, k_vis_frag, .shadow = false),
    [OAK_VK_PIPE_VIS_2SIDED] = RASTER(k_vis_vert, k_vis_frag, .two_sided = true),
    [OAK_VK_PIPE_VIS_MASKED] = RASTER(k_vis_vert, k_vis_frag, .masked = true),
    [OAK_VK_PIPE_VIS_MASKED_2SIDED] =
        RASTER(k_vis_vert, k_vis_frag, .masked = true, .two_sided = true),
    [OAK_VK_PIPE_RESOLVE] = COMPUTE(k_resolve_comp),
    [OAK_VK_PIPE_POST] = COMPUTE(k_post_comp),
    [OAK_VK_PIPE_FXAA] = COMPUTE(k_fxaa_comp),
    [OAK_VK_PIPE_BLEND] = RASTER(k_vis_vert, k_blend_frag, .blend = true),
    [OAK_VK_PIPE_BLEND_2SIDED] = RASTER(k_vis_vert, k_blend_frag, .blend = true, .two_sided = true),
    [OAK_VK_PIPE_BLEND_UNLIT] = RASTER(k_vis_vert, k_blend_unlit_frag, .blend = true),
    [OAK_VK_PIPE_BLEND_UNLIT_2SIDED] =
        RASTER(k_vis_vert, k_blend_unlit_frag, .blend = true, .two_sided = true),
    [OAK_VK_PIPE_BLEND_WATER_ID] = RASTER(k_vis_vert, k_blend_water_id_frag, .blend = true),
    [OAK_VK_PIPE_BLEND_WATER_ID_2SIDED] =
        RASTER(k_vis_vert, k_blend_water_id_frag, .blend = true, .two_sided = true),
    [OAK_VK_PIPE_BLEND_WATER] = COMPUTE(k_blend_water_comp),
    [OAK_VK_PIPE_LIGHTGRID] = COMPUTE(k_lightgrid_comp),
    [OAK_VK_PIPE_LAMP] = RASTER(k_lamp_shadow_vert, k_vis_frag, .shadow = true, .two_sided = true),
    [OAK_VK_PIPE_LAMP_MASKED] = RASTER(k_lamp_shadow_vert, k_shadow_masked_frag, .shadow = true,
                                       .masked = true, .two_sided = true),
    [OAK_VK_PIPE_GTAO_PREFILTER] = COMPUTE(k_gtao_prefilter_comp),
    [OAK_VK_PIPE_GTAO_MIPS] = COMPUTE(k_gtao_mips_comp),
    [OAK_VK_PIPE_GTAO_SEARCH] = COMPUTE(k_gtao_search_comp),
    [OAK_VK_PIPE_GTAO_DENOISE] = COMPUTE(k_gtao_denoise_comp),
    [OAK_VK_PIPE_SKYCAPTURE] = COMPUTE(k_skycapture_comp),
    [OAK_VK_PIPE_SKYFILTER] = COMPUTE(k_skyfilter_comp),
    [OAK_VK_PIPE_EXPOSURE_METER] = COMPUTE(k_exposure_meter_comp),
    [OAK_VK_PIPE_EXPOSURE_STEP] = COMPUTE(k_exposure_step_comp),
    [OAK_VK_PIPE_INSTCULL] = COMPUTE(k_instcull_comp),
    [OAK_VK_PIPE_MESHCULL] = COMPUTE(k_meshcull_comp),
    [OAK_VK_PIPE_MESHCULL_SCAN] = COMPUTE(k_meshcull_scan_comp),
    [OAK_VK_PIPE_MESHCULL_WRITE] = COMPUTE(k_meshcull_write_comp),
    /* streams from the instcull lists, in the vis groups' order */
    [OAK_VK_PIPE_VIS_STREAM] = RASTER(k_vis_stream_vert, k_vis_stream_frag, .shadow = false),
    [OAK_VK_PIPE_VIS_STREAM_2SIDED] =
        RASTER(k_vis_stream_vert, k_vis_stream_frag, .two_sided = true),
    [OAK_VK_PIPE_VIS_STREAM_MASKED] = RASTER(k_vis_stream_vert, k_vis_stream_frag, .masked = true),
    [OAK_VK_PIPE_VIS_STREAM_MASKED_2SIDED] =
        RASTER(k_vis_stream_vert, k_vis_stream_frag, .masked = true, .two_sided = true),
    [OAK_VK_PIPE_SHADOW_STREAM] = RASTER(k_shadow_stream_vert, k_shadow_stream_masked_frag,
                                         .shadow = true, .two_sided = true),
    [OAK_VK_PIPE_SHADOW_STREAM_MASKED] = RASTER(k_shadow_stream_vert, k_shadow_stream_masked_frag,
                                                .shadow = true, .masked = true, .two_sided = true),
    [OAK_VK_PIPE_CRASTER] = COMPUTE(k_craster_comp),
    [OAK_VK_PIPE_CRASTER_PLAN] = COMPUTE(k_craster_plan_comp),
    /* one triangle over the target: no face to cull */
    [OAK_VK_PIPE_CRASTER_MERGE] =
        RASTER(k_craster_merge_vert, k_craster_merge_frag, .two_sided = true),
    [OAK_VK_PIPE_CRASTER_SHADOW] = COMPUTE(k_craster_shadow_comp),
    /* depth only, as the casters (masked: the fragment shader stays) */
    [OAK_VK_PIPE_CRASTER_SHADOW_MERGE] =
        RASTER(k_craster_shadow_merge_vert, k_craster_shadow_merge_frag, .shadow = true,
               .masked = true, .two_sided = true),
};

static oak_result _oak_vk_pipe_make(_oak_vk *vk, uint32_t pipe) {
    const _oak_vk_pipe_spec *s = &k_pipe_specs[pipe];
    if (s->compute) return _oak_vk_compute(vk, s->a, s->a_size, &vk->pipes[pipe]);
    if (s->blend && !vk->blend_ok)
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "vulkan: the device cannot blend into RGBA32F (BLEND surfaces)");
    VkShaderModule vert = VK_NULL_HANDLE, frag = VK_NULL_HANDLE;
    oak_result r = _oak_vk_module(vk, s->a, s->a_size, &vert);
    if (!r) r = _oak_vk_module(vk, s->b, s->b_size, &frag);
    if (!r)
        r = _oak_vk_raster_ex(vk, vert, frag, s->shadow, s->masked, s->two_sided, s->blend,
                              &vk->pipes[pipe]);
    if (vert) vkDestroyShaderModule(vk->device, vert, NULL);
    if (frag) vkDestroyShaderModule(vk->device, frag, NULL);
    return r;
}

bool _oak_vk_bind(_oak_vk *vk, VkCommandBuffer cmd, uint32_t pipe) {
    if (!vk->pipes[pipe]) {
        oak_result r = _oak_vk_pipe_make(vk, pipe);
        if (r) {
            if (!vk->pipe_result) vk->pipe_result = r;
            return false;
        }
    }
    vkCmdBindPipeline(cmd,
                      k_pipe_specs[pipe].compute ? VK_PIPELINE_BIND_POINT_COMPUTE
                                                 : VK_PIPELINE_BIND_POINT_GRAPHICS,
                      vk->pipes[pipe]);
    return true;
}

oak_result _oak_vk_pipelines_create(_oak_vk *vk) {
    oak_result r = _oak_vk_pipeline_cache_open(vk);
    if (!r) r = _oak_vk_layouts(vk);
    if (r) return r;
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(vk->phys, VK_FORMAT_R32G32B32A32_SFLOAT, &fp);
    vk->blend_ok = (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT) != 0;
    vk->pipe_result = OAK_OK;
    return OAK_OK;
}

void _oak_vk_pipelines_destroy(_oak_vk *vk) {
    _oak_vk_pipeline_cache_close(vk);
    for (uint32_t i = 0; i < OAK_VK_PIPE_COUNT; i++)
        if (vk->pipes[i]) vkDestroyPipeline(vk->device, vk->pipes[i], NULL);
    memset(vk->pipes, 0, sizeof vk->pipes);
    _oak_vk_mesh_destroy(vk);
    _oak_vk_bloom_destroy(vk);
    _oak_vk_opaquecopy_destroy(vk);
    _oak_vk_ssr_destroy(vk);
    _oak_vk_skin_destroy(vk);
    _oak_vk_dof_destroy(vk);
    _oak_vk_clouds_destroy(vk);
    _oak_vk_fog_destroy(vk);
    _oak_vk_taa_destroy(vk);
    if (vk->sampler) vkDestroySampler(vk->device, vk->sampler, NULL);
    if (vk->desc_pool) vkDestroyDescriptorPool(vk->device, vk->desc_pool, NULL);
    if (vk->pipe_layout) vkDestroyPipelineLayout(vk->device, vk->pipe_layout, NULL);
    if (vk->set_layout) vkDestroyDescriptorSetLayout(vk->device, vk->set_layout, NULL);
    vk->sampler = VK_NULL_HANDLE;
    vk->desc_pool = VK_NULL_HANDLE;
    vk->pipe_layout = VK_NULL_HANDLE;
    vk->set_layout = VK_NULL_HANDLE;
}

/* Size-dependent targets; the old ones are retired, not waited for. */
oak_result _oak_vk_targets_create(_oak_vk *vk) {
    oak_result r;
    uint32_t w = vk->width, h = vk->height;
    /* what the taa pass and the passes after it write: the output's size
       when TAA upsamples (the passes before it use the top-left w x h) */
    uint32_t ow = vk->out_width > w ? vk->out_width : w,
             oh = vk->out_height > h ? vk->out_height : h;
    vk->pic_width = w, vk->pic_height = h;
    if ((r = _oak_vk_image_retire(vk, &vk->depth)) || (r = _oak_vk_image_retire(vk, &vk->ids)) ||
        (r = _oak_vk_image_retire(vk, &vk->hdr)) || (r = _oak_vk_buffer_retire(vk, &vk->ldr)) ||
        (r = _oak_vk_buffer_retire(vk, &vk->ao)) || (r = _oak_vk_buffer_retire(vk, &vk->bloom)) ||
        (r = _oak_vk_buffer_retire(vk, &vk->opaque)) || (r = _oak_vk_buffer_retire(vk, &vk->ssr)) ||
        (r = _oak_vk_buffer_retire(vk, &vk->dof)) || (r = _oak_vk_buffer_retire(vk, &vk->taa)) ||
        (r = _oak_vk_buffer_retire(vk, &vk->clouds)) || (r = _oak_vk_buffer_retire(vk, &vk->fog)))
        return r;
    /* new targets: nothing has touched them yet (the old ones retire) */
    const oak_target_id fresh[] = {
        OAK_TARGET_DEPTH, OAK_TARGET_IDS,    OAK_TARGET_HDR, OAK_TARGET_LDR, OAK_TARGET_OUTPUT,
        OAK_TARGET_AO,    OAK_TARGET_BLOOM,  OAK_TARGET_DOF, OAK_TARGET_TAA, OAK_TARGET_CLOUDS,
        OAK_TARGET_FOG,   OAK_TARGET_OPAQUE, OAK_TARGET_SSR};
    for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++) _oak_vk_track_reset(vk, fresh[i]);
    /* sampled by depth of field */
    if ((r = _oak_vk_image_create(
             vk, &vk->depth, VK_FORMAT_D32_SFLOAT, w, h, 1, 1,
             VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, false)))
        return r;
    if ((r = _oak_vk_image_create(vk, &vk->ids, VK_FORMAT_R32G32_UINT, w, h, 1, 1,
                                  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                  false)))
        return r;
    if ((r = _oak_vk_image_create(vk, &vk->hdr, VK_FORMAT_R32G32B32A32_SFLOAT, ow, oh, 1, 1,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                      (vk->blend_ok ? VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT : 0),
                                  false)))
        return r;
    if ((r = _oak_vk_buffer_create(vk, &vk->ldr, (uint64_t)ow * oh * 4,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, OAK_VK_MEM_DEVICE)))
        return r;
    /* the gtao pass's floats: grown when a view runs it (vk_pass_gtao.c);
       the resolve binds it whether or not it runs */
    if ((r = _oak_vk_buffer_create(vk, &vk->ao, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    /* the bloom pyramid: grown when a view blooms (vk_pass_bloom.c); post
       binds it whether or not it runs */
    if ((r = _oak_vk_buffer_create(vk, &vk->bloom, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    /* the mirror buffer: grown when puddles lie (vk_pass_ssr.c); the
       resolve binds it whether or not the ssr pass runs */
    if ((r = _oak_vk_buffer_create(vk, &vk->ssr, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    /* the opaque frame's copy: grown when a view refracts it
       (vk_pass_opaquecopy.c); blend binds it whether or not it runs */
    if ((r = _oak_vk_buffer_create(vk, &vk->opaque, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    /* depth of field's buffer: grown when a view focuses (vk_pass_dof.c) */
    if ((r = _oak_vk_buffer_create(vk, &vk->dof, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    /* the clouds' buffer: grown when a view has clouds (vk_pass_clouds.c);
       the resolve binds it whether or not they run */
    vk->clouds_baked = false;
    if ((r = _oak_vk_buffer_create(vk, &vk->clouds, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    /* the fog's froxels: grown when a view has fog (vk_pass_fog.c); the
       resolve binds it whether or not it runs */
    if ((r = _oak_vk_buffer_create(vk, &vk->fog, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    /* the taa histories: grown when a view runs the pass (vk_pass_taa.c) */
    if ((r = _oak_vk_buffer_create(vk, &vk->taa, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)))
        return r;
    if ((r = _oak_vk_lightgrid_create(vk))) return r;
    if ((r = _oak_vk_sky_create(vk))) return r;
    if ((r = _oak_vk_exposure_create(vk))) return r;
    if ((r = _oak_vk_probes_create(vk))) return r;
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_frame *f = &vk->frames[i];
        /* A frame still in flight may be writing it: retire through its own slot. */
        uint32_t keep = vk->slot;
        vk->slot = i;
        r = _oak_vk_buffer_retire(vk, &f->output);
        vk->slot = keep;
        if (r) return r;
        f->output_valid = false;
        if ((r = _oak_vk_buffer_create(vk, &f->output, (uint64_t)ow * oh * 4,
                                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                       OAK_VK_MEM_DEVICE)))
            return r;
    }
    return OAK_OK;
}

void _oak_vk_targets_destroy(_oak_vk *vk) {
    _oak_vk_lamp_destroy(vk);
    _oak_vk_image_destroy(vk, &vk->depth);
    _oak_vk_image_destroy(vk, &vk->ids);
    _oak_vk_image_destroy(vk, &vk->hdr);
    _oak_vk_image_destroy(vk, &vk->shadow);
    _oak_vk_image_destroy(vk, &vk->shadow_static);
    _oak_vk_buffer_destroy(vk, &vk->ldr);
    _oak_vk_buffer_destroy(vk, &vk->ao);
    _oak_vk_buffer_destroy(vk, &vk->bloom);
    _oak_vk_buffer_destroy(vk, &vk->opaque);
    _oak_vk_buffer_destroy(vk, &vk->ssr);
    _oak_vk_buffer_destroy(vk, &vk->dof);
    _oak_vk_buffer_destroy(vk, &vk->taa);
    _oak_vk_buffer_destroy(vk, &vk->clouds);
    _oak_vk_buffer_destroy(vk, &vk->fog);
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) _oak_vk_buffer_destroy(vk, &vk->frames[i].output);
    _oak_vk_lightgrid_destroy(vk);
    _oak_vk_sky_destroy(vk);
    _oak_vk_exposure_destroy(vk);
    _oak_vk_probes_destroy(vk);
    _oak_vk_particles_destroy(vk);
    _oak_vk_grass_destroy(vk);
    _oak_vk_instcull_destroy(vk);
    _oak_vk_hiz_destroy(vk);
    _oak_vk_craster_destroy(vk);
    _oak_vk_meshcull_destroy(vk);
}

/* Rewritten every frame: pools and targets may have been replaced since the
 * slot last ran, and the write is cheap next to the frame. */
void _oak_vk_write_descriptors(_oak_vk *vk, _oak_vk_frame *f) {
    VkDescriptorBufferInfo bufs[OAK_B_COUNT];
    VkDescriptorImageInfo imgs[OAK_B_COUNT];
    VkWriteDescriptorSet w[OAK_B_COUNT + 1];
    uint32_t n = 0;
#define OAK_VK_BUF(binding, type, b)                                                               \
    do {                                                                                           \
        bufs[n] = (VkDescriptorBufferInfo){(b).buffer, 0, VK_WHOLE_SIZE};                          \
        w[n] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,             \
                                      .dstSet = f->set,                                            \
                                      .dstBinding = (binding),                                     \
                                      .descriptorCount = 1,                                        \
                                      .descriptorType = (type),                                    \
                                      .pBufferInfo = &bufs[n]};                                    \
        n++;                                                                                       \
    } while (0)
#define OAK_VK_IMG(binding, type, v, layout)                                                       \
    do {                                                                                           \
        imgs[n] = (VkDescriptorImageInfo){vk->sampler, (v), (layout)};                             \
        w[n] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,             \
                                      .dstSet = f->set,                                            \
                                      .dstBinding = (binding),                                     \
                                      .descriptorCount = 1,                                        \
                                      .descriptorType = (type),                                    \
                                      .pImageInfo = &imgs[n]};                                     \
        n++;                                                                                       \
    } while (0)
    const VkDescriptorType sb = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    const VkDescriptorType cis = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    const VkImageLayout ro = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    OAK_VK_BUF(OAK_B_VIEW, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, f->view);
    OAK_VK_BUF(OAK_B_LIGHTS, sb, f->lights);
    OAK_VK_BUF(OAK_B_DRAWS, sb, f->draws);
    OAK_VK_BUF(OAK_B_MATERIALS, sb, vk->material_buf);
    OAK_VK_BUF(OAK_B_POSITIONS, sb, vk->positions);
    OAK_VK_BUF(OAK_B_ATTRIBUTES, sb, vk->attributes);
    OAK_VK_BUF(OAK_B_INDICES, sb, vk->indices);
    OAK_VK_IMG(OAK_B_SHADOW, cis, vk->shadow.view, ro);
    OAK_VK_IMG(OAK_B_IDS, cis, vk->ids.view, ro);
    OAK_VK_IMG(OAK_B_HDR, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, vk->hdr.view, VK_IMAGE_LAYOUT_GENERAL);
    OAK_VK_BUF(OAK_B_LDR, sb, vk->ldr);
    OAK_VK_BUF(OAK_B_OUTPUT, sb, f->output);
    OAK_VK_BUF(OAK_B_LIGHT_GRID, sb, f->grid);
    OAK_VK_BUF(OAK_B_LAMP_SHADOWS, sb, f->lamp_block);
    OAK_VK_IMG(OAK_B_LAMP_ATLAS, cis, vk->lamp_live.view, ro);
    OAK_VK_BUF(OAK_B_AO, sb, vk->ao);
    OAK_VK_BUF(OAK_B_SKY, sb, vk->sky);
    OAK_VK_BUF(OAK_B_PROBES, sb, vk->probes);
    OAK_VK_BUF(OAK_B_EXPOSURE, sb, vk->exposure);
    OAK_VK_BUF(OAK_B_BLOOM, sb, vk->bloom);
    OAK_VK_BUF(OAK_B_OPAQUE, sb, vk->opaque);
    OAK_VK_BUF(OAK_B_SSR, sb, vk->ssr);
    OAK_VK_BUF(OAK_B_DOF, sb, vk->dof);
    OAK_VK_BUF(OAK_B_CLOUDS, sb, vk->clouds);
    OAK_VK_BUF(OAK_B_FOG, sb, vk->fog);
    OAK_VK_BUF(OAK_B_AERIAL, sb, f->aerial);
    OAK_VK_IMG(OAK_B_DEPTH, cis, vk->depth.view, ro);
    OAK_VK_BUF(OAK_B_TAA, sb, vk->taa);
    /* only instcull reads these: written once the slot has them */
    if (f->instances.buffer) OAK_VK_BUF(OAK_B_INSTANCES, sb, f->instances);
    if (f->instance_out.buffer) OAK_VK_BUF(OAK_B_INSTANCE_OUT, sb, f->instance_out);
    /* and only the skin pass this one (vk_pass_skin.c) */
    if (f->skin.buffer) OAK_VK_BUF(OAK_B_SKIN, sb, f->skin);
    /* and only the Hi-Z steps these (vk_hiz.c) */
    if (f->hiz.buffer) OAK_VK_BUF(OAK_B_HIZ, sb, f->hiz);
    if (vk->hiz_keep.buffer) OAK_VK_BUF(OAK_B_HIZ_KEEP, sb, vk->hiz_keep);
    /* and only the compute raster these (vk_craster.c) */
    if (f->craster.buffer) OAK_VK_BUF(OAK_B_CRASTER, sb, f->craster);
    if (vk->craster_depth.buffer) OAK_VK_BUF(OAK_B_CRASTER_DEPTH, sb, vk->craster_depth);
    if (vk->craster_shadow.buffer) OAK_VK_BUF(OAK_B_CRASTER_SHADOW, sb, vk->craster_shadow);
    /* the meshcull pass's (vk_meshcull.c): vis.frag names the slot's always */
    if (vk->meshlets.buffer) OAK_VK_BUF(OAK_B_MESHLETS, sb, vk->meshlets);
    if (f->meshcull.buffer) OAK_VK_BUF(OAK_B_MESHCULL, sb, f->meshcull);
    for (uint32_t i = 0; i < OAK_GPU_TEXTURE_CLASSES; i++) {
        VkImageView v = i < vk->class_count && vk->classes[i].image.view ? vk->classes[i].image.view
                                                                         : vk->dummy_array.view;
        OAK_VK_IMG(OAK_B_TEXTURES + i, cis, v, ro);
    }
    /* bindless: every element handed out, freed ones showing the dummy
       (vk_resources.c keeps the infos); the rest stay unwritten */
    if (vk->bindless && vk->bindless_high) {
        for (uint32_t i = 0; i < vk->bindless_high; i++) vk->bindless_info[i].sampler = vk->sampler;
        w[n++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                        .dstSet = f->set,
                                        .dstBinding = OAK_B_BINDLESS,
                                        .descriptorCount = vk->bindless_high,
                                        .descriptorType = cis,
                                        .pImageInfo = vk->bindless_info};
        if (vk->dummy_image.layout != ro)
            _oak_vk_image_barrier(f->cmd, &vk->dummy_image, ro, VK_PIPELINE_STAGE_2_NONE, 0,
                                  VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                  VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    }
#undef OAK_VK_BUF
#undef OAK_VK_IMG
    vkUpdateDescriptorSets(vk->device, n, w, 0, NULL);
}
