/* The lamp shadow pass on Vulkan: the lamp casters' records (face in
 * info.w >> 16) and per face-layer indirect commands after the frame's
 * others; each tile's static layer drawn into the static atlas only when
 * its face's static_hash moved, copied into the atlas the resolve reads
 * (the lamp_atlas target), and the movers drawn over that copy. The
 * barriers around the copies stay beside them; the rest come from the
 * table (vk_track.c). docs/SHADING.md "Lamp shadows". */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "vk_internal.h"

#define ATLAS (OAK_LAMP_ATLAS_TILES * OAK_LAMP_SHADOW_FACE)

/* The atlases: 1 x 1 until a view first has lamp faces (the resolve binds
   the read one every frame), then ATLAS square. The old ones retire. */
oak_result _oak_vk_lamp_atlas(_oak_vk *vk, bool full) {
    uint32_t size = full ? ATLAS : 1;
    if (vk->lamp_live.image && (vk->lamp_live.width == size || !full)) return OAK_OK;
    oak_result r = _oak_vk_image_retire(vk, &vk->lamp_live);
    if (!r) r = _oak_vk_image_retire(vk, &vk->lamp_static);
    if (r) return r;
    _oak_vk_track_reset(vk, OAK_TARGET_LAMP_ATLAS); /* a new image: nothing touched it yet */
    memset(vk->lamp.drawn, 0, sizeof vk->lamp.drawn);
    memset(vk->lamp.had_movers, 0, sizeof vk->lamp.had_movers);
    VkImageUsageFlags use = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                            VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    if ((r = _oak_vk_image_create(vk, &vk->lamp_live, VK_FORMAT_D32_SFLOAT, size, size, 1, 1,
                                  use | VK_IMAGE_USAGE_SAMPLED_BIT, false)))
        return r;
    return full ? _oak_vk_image_create(vk, &vk->lamp_static, VK_FORMAT_D32_SFLOAT, size, size, 1, 1,
                                       use, false)
                : OAK_OK;
}

void _oak_vk_lamp_destroy(_oak_vk *vk) {
    _oak_vk_image_destroy(vk, &vk->lamp_live);
    _oak_vk_image_destroy(vk, &vk->lamp_static);
}

/* Records at draws[first_draw ..] (the lamp casters in order) and commands
   at indirect[first_cmd ..]: per face, its static casters then its movers,
   each layer as plain commands then masked ones (vk->lamp.range). The
   frame's buffers were reserved for them. Also the slots and faces block
   and, with lamp faces, the full-size atlases. */
oak_result _oak_vk_lamp_records(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                                uint32_t first_draw, uint32_t first_cmd) {
    oak_result r;
    if ((r = _oak_vk_upload_reserve(vk, &f->lamp_block, sizeof(oak_gpu_lamp_shadows),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)))
        return r;
    if ((r = _oak_gpu_lamp_shadows_fill(f->lamp_block.mapped, v))) return r;
    if ((r = _oak_vk_lamp_atlas(vk, v->lamp_face_count > 0))) return r;
    if (!v->lamp_face_count) return OAK_OK;
    const oak_draw_list *c = &v->lamp_casters;
    for (uint32_t fi = 0; fi < v->lamp_face_count; fi++) {
        const oak_lamp_face *face = &v->lamp_faces[fi];
        uint64_t end = (uint64_t)face->first_caster + face->static_count + face->mover_count;
        if (end > c->count)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "vulkan: lamp face %u casters past the %u lamp casters", fi, c->count);
    }
    oak_gpu_draw *rec = (oak_gpu_draw *)f->draws.mapped + first_draw;
    VkDrawIndexedIndirectCommand *cmds = (VkDrawIndexedIndirectCommand *)f->indirect.mapped;
    uint32_t at = first_cmd;
    for (uint32_t fi = 0; fi < v->lamp_face_count; fi++) {
        const oak_lamp_face *face = &v->lamp_faces[fi];
        for (uint32_t layer = 0; layer < 2; layer++) {
            uint32_t first = face->first_caster + (layer ? face->static_count : 0);
            uint32_t count = layer ? face->mover_count : face->static_count;
            for (uint32_t masked = 0; masked < 2; masked++) {
                vk->lamp.range[fi][layer][masked] = at;
                for (uint32_t i = first; i < first + count; i++) {
                    const _oak_vk_mesh *mesh = NULL;
                    uint32_t ms = 0;
                    if ((r = _oak_vk_sync_mesh(vk, c->mesh[i], &mesh)) ||
                        (r = _oak_vk_sync_material(vk, c->material[i], &ms)))
                        return r;
                    const _oak_vk_material *md = &vk->materials[ms];
                    if (!masked) {
                        oak_gpu_draw *d = &rec[i];
                        memcpy(d->world, c->world[i], 64);
                        mat4 nm;
                        glm_mat4_inv(c->world[i], nm);
                        glm_mat4_transpose(nm);
                        memcpy(d->normal, nm, 64);
                        d->info[0] = ms;
                        d->info[1] = (uint32_t)mesh->index_first;
                        d->info[2] = (uint32_t)mesh->vertex_first;
                        d->info[3] = (c->flags ? c->flags[i] & 0xffffu : 0) | fi << 16;
                    }
                    if (!mesh->index_count || md->alpha_mode == OAK_ALPHA_BLEND ||
                        (md->alpha_mode == OAK_ALPHA_MASK) != (masked == 1))
                        continue;
                    cmds[at++] =
                        (VkDrawIndexedIndirectCommand){.indexCount = mesh->index_count,
                                                       .instanceCount = 1,
                                                       .firstIndex = (uint32_t)mesh->index_first,
                                                       .vertexOffset = (int32_t)mesh->vertex_first,
                                                       .firstInstance = first_draw + i};
                }
            }
            vk->lamp.range[fi][layer][2] = at;
        }
    }
    return OAK_OK;
}

static void draw_range(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f, const uint32_t r[3]) {
    _oak_vk_draw_group(vk, cmd, f, OAK_VK_PIPE_LAMP, r[0], r[1] - r[0]);
    _oak_vk_draw_group(vk, cmd, f, OAK_VK_PIPE_LAMP_MASKED, r[1], r[2] - r[1]);
}

static void begin(VkCommandBuffer cmd, _oak_vk_image *img) {
    _oak_vk_begin_rendering(cmd, NULL, false, img, false,
                            (VkRect2D){{0, 0}, {img->width, img->height}});
}

/* The face's tile as viewport (positive height: row 0 is clip y = -1) and scissor. */
static VkRect2D tile_rect(VkCommandBuffer cmd, uint32_t tile) {
    const uint32_t F = OAK_LAMP_SHADOW_FACE;
    VkRect2D rc = {{(int32_t)((tile % OAK_LAMP_ATLAS_TILES) * F),
                    (int32_t)((tile / OAK_LAMP_ATLAS_TILES) * F)},
                   {F, F}};
    VkViewport vp = {(float)rc.offset.x, (float)rc.offset.y, (float)F, (float)F, 0, 1};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &rc);
    return rc;
}

#define TESTS                                                                                      \
    (VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT)
#define DEPTH_RW                                                                                   \
    (VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT)

oak_result _oak_vk_run_lampshadow(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    if (v->lamp_face_count > OAK_LAMP_ATLAS_FACES || vk->lamp_live.width != ATLAS)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: %u lamp faces past %u",
                         v->lamp_face_count, OAK_LAMP_ATLAS_FACES);
    for (uint32_t i = 0; i < v->lamp_face_count; i++)
        if (v->lamp_faces[i].tile >= OAK_LAMP_ATLAS_FACES)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: lamp face %u past the atlas", i);
    VkCommandBuffer cmd = f->cmd;
    vkCmdBindIndexBuffer(cmd, vk->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    bool redraw[OAK_LAMP_ATLAS_FACES] = {0}, copy[OAK_LAMP_ATLAS_FACES] = {0};
    uint32_t redraws = 0, copies = 0, movers = 0;
    for (uint32_t i = 0; i < v->lamp_face_count; i++) {
        const oak_lamp_face *face = &v->lamp_faces[i];
        uint32_t t = face->tile;
        redraw[i] = !vk->lamp.drawn[t] || vk->lamp.hash[t] != face->static_hash;
        copy[i] = redraw[i] || face->mover_count || vk->lamp.had_movers[t];
        redraws += redraw[i], copies += copy[i], movers += face->mover_count > 0;
    }
    _oak_vk_image *st = &vk->lamp_static, *live = &vk->lamp_live;
    /* static layers that moved on: cleared and drawn in the static atlas */
    if (redraws) {
        _oak_vk_image_barrier(cmd, st, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                              VK_PIPELINE_STAGE_2_COPY_BIT, 0, TESTS, DEPTH_RW);
        begin(cmd, st);
        for (uint32_t i = 0; i < v->lamp_face_count; i++) {
            if (!redraw[i]) continue;
            const oak_lamp_face *face = &v->lamp_faces[i];
            VkClearAttachment ca = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, {.depthStencil = {0.0f, 0}}};
            VkClearRect cr = {tile_rect(cmd, face->tile), 0, 1};
            vkCmdClearAttachments(cmd, 1, &ca, 1, &cr);
            draw_range(vk, cmd, f, vk->lamp.range[i][0]);
            vk->lamp.drawn[face->tile] = true;
            vk->lamp.hash[face->tile] = face->static_hash;
        }
        vkCmdEndRendering(cmd);
    }
    /* the atlas the resolve reads: the static tiles copied across */
    if (copies) {
        _oak_vk_image_barrier(cmd, st, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                              redraws ? TESTS : VK_PIPELINE_STAGE_2_NONE,
                              redraws ? VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT : 0,
                              VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        _oak_vk_image_barrier(cmd, live, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, TESTS, 0,
                              VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        VkImageCopy regions[OAK_LAMP_ATLAS_FACES];
        uint32_t n = 0;
        for (uint32_t i = 0; i < v->lamp_face_count; i++) {
            if (!copy[i]) continue;
            uint32_t t = v->lamp_faces[i].tile, F = OAK_LAMP_SHADOW_FACE;
            VkOffset3D o = {(int32_t)((t % OAK_LAMP_ATLAS_TILES) * F),
                            (int32_t)((t / OAK_LAMP_ATLAS_TILES) * F), 0};
            regions[n++] = (VkImageCopy){{VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1},
                                         o,
                                         {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1},
                                         o,
                                         {F, F, 1}};
        }
        vkCmdCopyImage(cmd, st->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, live->image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n, regions);
        _oak_vk_image_barrier(cmd, live, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                              VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, TESTS,
                              DEPTH_RW);
    }
    /* the movers over the copies */
    if (movers) {
        begin(cmd, live);
        for (uint32_t i = 0; i < v->lamp_face_count; i++) {
            if (!v->lamp_faces[i].mover_count) continue;
            tile_rect(cmd, v->lamp_faces[i].tile);
            draw_range(vk, cmd, f, vk->lamp.range[i][1]);
        }
        vkCmdEndRendering(cmd);
    }
    for (uint32_t i = 0; i < v->lamp_face_count; i++)
        vk->lamp.had_movers[v->lamp_faces[i].tile] = v->lamp_faces[i].mover_count > 0;
    return OAK_OK;
}
