/* Vulkan barriers derived from the pass table: each frame target remembers
 * its last write (stage and access), the stages that read it since, and
 * whom that write was made visible to; a use then gets exactly the barrier
 * (and image layout) it needs after what came before, across frames too. */
#include "vk_internal.h"

typedef struct use_info {
    VkPipelineStageFlags2 stage;
    VkAccessFlags2 access;
    VkImageLayout layout; /* for images */
} use_info;

#define TESTS                                                                                      \
    (VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT)
#define SHADERS (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT)

static const use_info k_use[] = {
    [OAK_USE_NONE] = {0, 0, VK_IMAGE_LAYOUT_UNDEFINED},
    /* host writes need no barrier: the submit makes them visible */
    [OAK_USE_UPLOAD] = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_IMAGE_LAYOUT_UNDEFINED},
    [OAK_USE_SCENE_READ] = {VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT |
                                VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
                                VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | SHADERS,
                            VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT |
                                VK_ACCESS_2_UNIFORM_READ_BIT | VK_ACCESS_2_SHADER_READ_BIT,
                            VK_IMAGE_LAYOUT_UNDEFINED},
    [OAK_USE_DEPTH_CLEAR] = {TESTS,
                             VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                             VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL},
    [OAK_USE_DEPTH_TEST] = {TESTS, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                            VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL},
    /* cached tiles drawn over; the lamp atlas's tiles are also copied into
       inside its pass (vk_pass_lampshadow.c), so transfers are in the scope */
    [OAK_USE_DEPTH_DRAW] = {TESTS | VK_PIPELINE_STAGE_2_COPY_BIT,
                            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                                VK_ACCESS_2_TRANSFER_WRITE_BIT,
                            VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL},
    [OAK_USE_COLOR_CLEAR] = {VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                             VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
    [OAK_USE_COLOR_BLEND] = {VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT |
                                 VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                             VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
    [OAK_USE_SAMPLED] = {SHADERS, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
    [OAK_USE_STORAGE_READ] = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                              VK_ACCESS_2_SHADER_STORAGE_READ_BIT, VK_IMAGE_LAYOUT_GENERAL},
    [OAK_USE_STORAGE_WRITE] = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                               VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL},
    [OAK_USE_COPY_READ] = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL},
    [OAK_USE_BUFFER_READ] = {SHADERS, VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
                             VK_IMAGE_LAYOUT_UNDEFINED},
    [OAK_USE_HOST_READ] = {VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT,
                           VK_IMAGE_LAYOUT_UNDEFINED},
    [OAK_USE_COPY_WRITE] = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL},
    [OAK_USE_STORAGE_RW] = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                            VK_IMAGE_LAYOUT_GENERAL},
    [OAK_USE_LAYERED] = {0, 0, VK_IMAGE_LAYOUT_UNDEFINED}, /* the run function's own uses */
};

#define WRITES                                                                                     \
    (VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |             \
     VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT)

_oak_vk_image *_oak_vk_target_image(_oak_vk *vk, oak_target_id t) {
    switch (t) {
    case OAK_TARGET_SHADOW_MAP:
        return &vk->shadow;
    case OAK_TARGET_SHADOW_STATIC:
        return &vk->shadow_static;
    case OAK_TARGET_DEPTH:
        return &vk->depth;
    case OAK_TARGET_IDS:
        return &vk->ids;
    case OAK_TARGET_HDR:
        return &vk->hdr;
    case OAK_TARGET_LAMP_ATLAS:
        return &vk->lamp_live;
    default:
        return NULL;
    }
}

void _oak_vk_track_reset(_oak_vk *vk, oak_target_id target) {
    vk->track[target] = (_oak_vk_track){0};
}

void _oak_vk_track_use(_oak_vk *vk, VkCommandBuffer cmd, oak_target_id target, oak_use use) {
    const use_info *u = &k_use[use];
    _oak_vk_track *t = &vk->track[target];
    _oak_vk_image *img = _oak_vk_target_image(vk, target);
    bool relayout = img && img->layout != u->layout;
    VkPipelineStageFlags2 src = 0;
    VkAccessFlags2 src_access = t->write_access;
    if (_oak_use_writes(use)) {
        /* after the last write and every read since; copies of fresh ranges
           into the pools after copies, with no read between, need none */
        bool copies = use == OAK_USE_UPLOAD && (t->write_access & VK_ACCESS_2_TRANSFER_WRITE_BIT) &&
                      !t->read_stages;
        src = copies ? 0 : t->write_stage | t->read_stages;
    } else {
        bool unseen = (u->stage & ~t->visible_stages) || (u->access & ~t->visible_access);
        /* a new layout waits for every reader of the old one */
        if (relayout || (t->write_stage && unseen)) src = t->write_stage | t->read_stages;
    }
    if (src || relayout) {
        if (img) {
            if (_oak_use_discards(use)) img->layout = VK_IMAGE_LAYOUT_UNDEFINED;
            _oak_vk_image_barrier(cmd, img, u->layout, src ? src : VK_PIPELINE_STAGE_2_NONE,
                                  src ? src_access : 0, u->stage, u->access);
        } else {
            _oak_vk_barrier(cmd, src, src_access, u->stage, u->access);
        }
    }
    if (_oak_use_writes(use)) {
        t->write_stage = u->stage;
        t->write_access = u->access & WRITES;
        t->read_stages = t->visible_stages = 0;
        t->visible_access = 0;
    } else {
        if (relayout) t->visible_stages = 0, t->visible_access = 0;
        t->read_stages |= u->stage;
        t->visible_stages |= u->stage;
        t->visible_access |= u->access;
    }
}

void _oak_vk_track_row(_oak_vk *vk, VkCommandBuffer cmd, const oak_pass_row *row) {
    for (uint32_t i = 0; i < OAK_PASS_MAX_USES && row->uses[i].use; i++)
        if (row->uses[i].use != OAK_USE_LAYERED)
            _oak_vk_track_use(vk, cmd, row->uses[i].target, row->uses[i].use);
}
