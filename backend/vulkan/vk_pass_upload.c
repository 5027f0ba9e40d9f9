/* The upload pass on Vulkan: the sync contract (render syncs itself: each
 * draw's mesh and material is checked against the registry as its record is
 * built), then the frame's records: draw records and indirect commands for
 * the view and the casters grouped by pipeline, the view block, lights, and
 * the slot's descriptors. The staged copies were recorded as they were made. */
#include <string.h>

#include "backend/gpu/gpu_particles.h"
#include "backend/gpu/gpu_records.h"
#include "render/aerial.h"
#include "render/particle_eval.h"
#include "vk_internal.h"

static void _oak_vk_mat4(float out[16], const mat4 m) {
    memcpy(out, m, 16 * sizeof(float));
}

static void _oak_vk_normal_matrix(float out[16], mat4 world) {
    mat3 m3, inv;
    glm_mat4_pick3(world, m3);
    glm_mat3_inv(m3, inv);
    /* inverse transpose, stored as a mat4 whose 3x3 GLSL reads with mat3() */
    memset(out, 0, 16 * sizeof(float));
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) out[c * 4 + r] = inv[r][c];
    out[15] = 1.0f;
}

typedef struct _oak_vk_record_job {
    const oak_draw_list *list;
    const _oak_vk_draw_info *info;
    oak_gpu_draw *out;
    bool skip_undrawn; /* casters: no record for one no command draws */
} _oak_vk_record_job;

static void _oak_vk_record_draws(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    _oak_vk_record_job *j = user;
    for (uint32_t i = begin; i < end; i++) {
        if (j->skip_undrawn && j->info[i].group == UINT32_MAX) continue;
        oak_gpu_draw d;
        _oak_vk_mat4(d.world, j->list->world[i]);
        _oak_vk_normal_matrix(d.normal, j->list->world[i]);
        /* column 3 of the normal matrix carries the draw's colour (oak_gpu.h) */
        for (int k = 0; k < 4; k++) d.normal[12 + k] = j->list->color ? j->list->color[i][k] : 1.0f;
        const _oak_vk_draw_info *in = &j->info[i];
        d.info[0] = in->material;
        d.info[1] = in->first_index;
        d.info[2] = in->first_vertex;
        d.info[3] = in->flags;
        _oak_vk_mat4(d.prev_world,
                     j->list->prev_world ? j->list->prev_world[i] : j->list->world[i]);
        /* last frame's pose where the frontend says the mesh moved since */
        bool posed = !j->skip_undrawn && (in->flags & OAK_DRAW_PREV_POSE);
        d.prev[0] = posed ? in->prev : 0;
        d.prev[1] = d.prev[2] = d.prev[3] = 0;
        memcpy(&j->out[i], &d, sizeof d);
    }
}

uint32_t _oak_vk_blend_slots_from(const oak_render_view *v) {
    return v->draws.count + (v->shadows ? v->casters.count : 0) + v->lamp_casters.count;
}

/* Builds draw records and indirect commands for the view's draws and the
 * key light's casters, grouped by pipeline. Consecutive draws of the same
 * mesh in a group (the frontend batches by material and mesh) become one
 * instanced command: gl_InstanceIndex is then still the draw's index. */
static oak_result _oak_vk_build_draws(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    uint32_t nd = v->draws.count, nc = v->shadows ? v->casters.count : 0;
    uint32_t n = nd + nc, all = n + v->lamp_casters.count; /* lamp casters follow */
    /* then the slots the particles pass fills for device-written BLEND
       streams (oak_render_stream.device_blend): the host writes none */
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint64_t slots = _oak_gpu_blend_slot(v, ns, ns);
    oak_result r;
    if ((uint64_t)all + slots > UINT32_MAX / 2)
        return oak_error(OAK_ERROR_LIMIT, "vulkan: %llu draw records",
                         (unsigned long long)(all + slots));
    if ((r = _oak_vk_upload_reserve(vk, &f->draws,
                                    ((uint64_t)all + slots + 1) * sizeof(oak_gpu_draw),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)))
        return r;
    if ((r = _oak_vk_upload_reserve(
             vk, &f->indirect, (uint64_t)(all ? all : 1) * sizeof(VkDrawIndexedIndirectCommand),
             /* transfer: the particles pass copies an "over" book frame's count in */
             VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT)))
        return r;
    if (!OAK_GROW(vk->infos, vk->infos_capacity, n + 1) ||
        !OAK_GROW(vk->cmds, vk->cmds_capacity, n + 1) ||
        !OAK_GROW(vk->keys, vk->keys_capacity, nd + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: draw scratch");
    _oak_vk_draw_info *info = vk->infos;
    VkDrawIndexedIndirectCommand *cmds = vk->cmds;
    enum {
        G_SHADOW = OAK_VK_VIS_GROUPS,
        G_BLEND = G_SHADOW + OAK_VK_SHADOW_GROUPS,
        G_COUNT,
        TWO_SIDED = OAK_VK_TWO_SIDED
    };
    /* a caster's cascade as shadow.vert finds it from the view's
       shadow_first, and whether it follows that cascade's static ones */
    uint32_t cas_first[OAK_MAX_CASCADES], cas_static[OAK_MAX_CASCADES];
    /* a static layer the shadow pass will keep (its key holds): its casters
       need no record, no command and no sync this frame */
    bool kept[OAK_MAX_CASCADES];
    for (uint32_t k = 0; k < OAK_MAX_CASCADES; k++) {
        bool used = v->shadows && k < v->cascade_count;
        cas_first[k] = used ? v->cascades[k].first_caster : UINT32_MAX;
        cas_static[k] = used ? v->cascades[k].static_count : 0;
        kept[k] = used && v->cascades[k].static_key &&
                  v->cascades[k].static_key == vk->shadow_layer[k].key;
    }
    uint32_t counts[G_COUNT] = {0};
    const oak_draw_list *lists[2] = {&v->draws, &v->casters};
    for (uint32_t li = 0; li < 2; li++) {
        const oak_draw_list *L = lists[li];
        uint32_t count = li ? nc : nd, base = li ? nd : 0;
        const _oak_vk_mesh *mesh = NULL;
        uint32_t ms = 0, mesh_id = 0, mat_id = 0;
        bool have_mat = false;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t k = 0;
            bool mover = false;
            if (li) {
                while (k + 1 < OAK_MAX_CASCADES && i >= cas_first[k + 1]) k++;
                mover = i >= cas_first[k] + cas_static[k];
                if (!mover && kept[k]) {
                    info[base + i].group = UINT32_MAX;
                    continue;
                }
            }
            /* draws come batched by material and mesh: a run looks up once */
            if (!mesh || L->mesh[i].id != mesh_id) {
                if ((r = _oak_vk_sync_mesh(vk, L->mesh[i], &mesh))) return r;
                mesh_id = L->mesh[i].id;
            }
            if (!have_mat || L->material[i].id != mat_id) {
                if ((r = _oak_vk_sync_material(vk, L->material[i], &ms))) return r;
                mat_id = L->material[i].id, have_mat = true;
            }
            const _oak_vk_material *md = &vk->materials[ms];
            bool masked = md->alpha_mode == OAK_ALPHA_MASK;
            bool two = md->double_sided;
            uint32_t g = (masked ? 2 : 0) + (two ? 1 : 0);
            if (li) g = G_SHADOW + OAK_VK_SHADOW_GROUP(k, mover ? 1 : 0, masked ? 1 : 0);
            /* BLEND surfaces skip the visibility buffer: forward, far to near */
            if (!li && md->alpha_mode == OAK_ALPHA_BLEND) {
                g = G_BLEND;
                const float *c = mesh->center;
                vec4 wc = {0, 0, 0, 1}, cc = {c[0], c[1], c[2], 1};
                glm_mat4_mulv(L->world[i], cc, wc);
                const float *cam = v->camera_pos;
                vk->keys[i] = _oak_blend_unit_key(v, i, cam,
                                                  (wc[0] - cam[0]) * (wc[0] - cam[0]) +
                                                      (wc[1] - cam[1]) * (wc[1] - cam[1]) +
                                                      (wc[2] - cam[2]) * (wc[2] - cam[2]));
            }
            if (!mesh->index_count) g = UINT32_MAX; /* nothing to draw */
            if (g != UINT32_MAX) counts[g]++;
            info[base + i] = (_oak_vk_draw_info){.group = g == G_BLEND && two ? g | TWO_SIDED : g,
                                                 .index_count = mesh->index_count,
                                                 .first_index = (uint32_t)mesh->index_first,
                                                 .first_vertex = (uint32_t)mesh->vertex_first,
                                                 .material = ms,
                                                 .prev = mesh->prev,
                                                 .flags = L->flags ? L->flags[i] : 0};
        }
        _oak_vk_record_job job = {L, info + base, (oak_gpu_draw *)f->draws.mapped + base, li == 1};
        oak_parallel_for(count, 1024, _oak_vk_record_draws, &job);
    }
    /* view draws culled by meshlets and cluster-LOD casters take the
       meshcull pass's commands */
    if ((r = _oak_vk_meshcull_plan(vk, f, v, info, nd, n))) return r;
    uint32_t first[G_COUNT], at[G_COUNT];
    uint32_t sum = 0;
    for (uint32_t g = 0; g < G_COUNT; g++) {
        first[g] = at[g] = sum;
        sum += counts[g];
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = info[i].group & ~TWO_SIDED;
        if (g == (UINT32_MAX & ~TWO_SIDED) || vk->mc_take[i]) continue;
        VkDrawIndexedIndirectCommand *prev = at[g] > first[g] ? &cmds[at[g] - 1] : NULL;
        /* under Hi-Z each view draw is a command of its own: the GPU keeps
           or drops it (vk_hiz.c); a BLEND draw is one unless it follows
           the last of its BLEND stream (oak_draw_list.unit): a stream's
           instances are one instanced draw, in their order, far to near */
        bool same_unit = g == G_BLEND && prev && v->draws.unit && v->draws.unit[i] &&
                         v->draws.unit[i] == v->draws.unit[prev->firstInstance];
        bool alone = (g == G_BLEND && !same_unit) || (v->occ_gpu && g < OAK_VK_VIS_GROUPS);
        if (!alone && prev && prev->firstInstance + prev->instanceCount == i &&
            prev->firstIndex == info[i].first_index &&
            prev->vertexOffset == (int32_t)info[i].first_vertex &&
            prev->indexCount == info[i].index_count) {
            prev->instanceCount++;
            continue;
        }
        cmds[at[g]++] =
            (VkDrawIndexedIndirectCommand){.indexCount = info[i].index_count,
                                           .instanceCount = 1,
                                           .firstIndex = info[i].first_index,
                                           .vertexOffset = (int32_t)info[i].first_vertex,
                                           .firstInstance = i};
    }
    /* Far to near, ties in draw order: a stable insertion sort, as the CPU
       backend does (blend draws are few; a stream is one, keyed by its
       first, farthest instance, or its unit_point: _oak_blend_unit_key). */
    VkDrawIndexedIndirectCommand *bl = cmds + first[G_BLEND];
    for (uint32_t i = 1; i < at[G_BLEND] - first[G_BLEND]; i++) {
        VkDrawIndexedIndirectCommand x = bl[i];
        uint32_t j = i;
        while (j > 0 && vk->keys[bl[j - 1].firstInstance] < vk->keys[x.firstInstance]) {
            bl[j] = bl[j - 1];
            j--;
        }
        bl[j] = x;
    }
    /* each BLEND command's draw, then a device-written stream's command
       over its slots (its material and sidedness are its draw's) */
    uint32_t nb = at[G_BLEND] - first[G_BLEND];
    if (!OAK_GROW(vk->blend_draw, vk->blend_draw_capacity, nb + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: blend scratch");
    for (uint32_t k = 0; k < nb; k++) {
        uint32_t i = bl[k].firstInstance, u = v->draws.unit ? v->draws.unit[i] : 0;
        vk->blend_draw[k] = i;
        if (!u || u > ns || !v->streams[u - 1].device_blend) continue;
        bl[k].firstInstance = all + _oak_gpu_blend_slot(v, ns, u - 1);
        bl[k].instanceCount = v->streams[u - 1].count;
        counts[G_BLEND] += bl[k].instanceCount - 1; /* its surfaces: every particle */
    }
    if (sum) memcpy(f->indirect.mapped, cmds, (size_t)sum * sizeof *cmds);
    vk->blend_first = first[G_BLEND];
    vk->blend_count = at[G_BLEND] - first[G_BLEND];
    vk->blend_surfaces = counts[G_BLEND];
    vk->blend_unlit = 0; /* the blend pass counts them */
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS; g++) {
        vk->vis_first[g] = first[g];
        vk->vis_count[g] = at[g] - first[g];
    }
    for (uint32_t g = 0; g < OAK_VK_SHADOW_GROUPS; g++) {
        vk->shadow_first[g] = first[G_SHADOW + g];
        vk->shadow_count[g] = at[G_SHADOW + g] - first[G_SHADOW + g];
    }
    vk->draw_count = nd;
    vk->caster_count = nc;
    vk->cmd_count = sum;
    return OAK_OK;
}

static oak_result _oak_vk_fill_view(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    oak_result r;
    uint32_t nl = v->light_count < OAK_MAX_LIGHTS ? v->light_count : OAK_MAX_LIGHTS;
    if ((r = _oak_vk_upload_reserve(vk, &f->view, sizeof(oak_gpu_view),
                                    VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT)) ||
        (r = _oak_vk_upload_reserve(vk, &f->lights, (uint64_t)(nl ? nl : 1) * sizeof(oak_gpu_light),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)))
        return r;
    oak_gpu_light *gl = f->lights.mapped;
    for (uint32_t i = 0; i < nl; i++) {
        _oak_gpu_light_fill(&gl[i], &v->lights[i]);
        _oak_gpu_light_slot(&gl[i], v, i);
    }
    oak_gpu_view *g = f->view.mapped;
    _oak_gpu_view_fill(g, v, vk->width, vk->height, nl, vk->shadow.width / 2);
    for (uint32_t k = 0; k < OAK_MAX_CASCADES; k++) /* caster records follow the draws' */
        if (g->shadow_first[k] != UINT32_MAX) g->shadow_first[k] += vk->draw_count;
    return OAK_OK;
}

/* The aerial perspective volume (render/aerial.h) into this slot's buffer
   when the view's aerial_version moved since the slot last held it (the
   slot's fence has passed: no frame reads it); a dummy without one. */
static oak_result upload_aerial(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    const uint64_t bytes = (uint64_t)OAK_AERIAL_TEXELS * 16;
    VkBuffer was = f->aerial.buffer;
    oak_result r = _oak_vk_upload_reserve(vk, &f->aerial, v->aerial ? bytes : 16,
                                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    if (r) return r;
    if (f->aerial.buffer != was) f->aerial_version = 0; /* a new buffer holds nothing */
    if (!v->aerial || (f->aerial_src == v->aerial && f->aerial_version == v->aerial_version))
        return OAK_OK;
    memcpy(f->aerial.mapped, v->aerial, bytes);
    f->aerial_src = v->aerial, f->aerial_version = v->aerial_version;
    return OAK_OK;
}

oak_result _oak_vk_run_upload(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    oak_result r;
    /* streams before the materials' flush: instcull syncs their assets; and
       every frame, so its descriptors always name a buffer */
    if ((r = _oak_vk_build_draws(vk, f, v)) || (r = _oak_vk_hiz_reserve(vk, f, v, vk->cmds)) ||
        (r = _oak_vk_instcull_reserve(vk, f, v)) || (r = _oak_vk_craster_reserve(vk, f, v)) ||
        (r = _oak_vk_blend_reserve(vk, v)) ||
        (r = _oak_vk_lamp_records(vk, f, v, vk->draw_count + vk->caster_count, vk->cmd_count)) ||
        (r = _oak_vk_flush_materials(vk)) || (r = _oak_vk_fill_view(vk, f, v)) ||
        (r = _oak_vk_gtao_reserve(vk, v)) || (r = _oak_vk_bloom_reserve(vk, v)) ||
        (r = _oak_vk_opaquecopy_reserve(vk, v)) || (r = _oak_vk_ssr_reserve(vk, v)) ||
        (r = _oak_vk_dof_reserve(vk, v)) || (r = _oak_vk_clouds_reserve(vk, v)) ||
        (r = _oak_vk_fog_reserve(vk, v)) || (r = _oak_vk_taa_reserve(vk, v)) ||
        (r = _oak_vk_probes_upload(vk, v)) || (r = upload_aerial(vk, f, v)) ||
        (r = _oak_vk_skin_reserve(vk, f)))
        return r;
    _oak_vk_write_descriptors(vk, f);
    VkCommandBuffer cmd = f->cmd;
    /* an asset-side image, not a frame target: made readable once */
    if (vk->dummy_array.layout != VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
        _oak_vk_image_barrier(cmd, &vk->dummy_array, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                              VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                              VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, vk->pipe_layout, 0, 1, &f->set, 0,
                            NULL);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipe_layout, 0, 1, &f->set, 0,
                            NULL);
    return OAK_OK;
}
