/* Per-meshlet culling of plain draws on Vulkan (docs/ARCHITECTURE.md
 * "Meshlet culling"): each eligible mesh's meshlets go to the meshlet pool
 * once, with its upload; each frame the upload pass makes a job per view
 * draw of such a mesh in the vis groups, the meshcull pass counts what each
 * job keeps (shaders/meshcull.comp.glsl), places every job's region at the
 * sum of those before it (meshcull_scan.comp) and writes the kept
 * meshlets' triangles there (meshcull_write.comp), with each job's index
 * count, and the raster draws those commands with that buffer as its index
 * buffer. Under two-pass Hi-Z the pass is the meshlets' EARLY step and
 * vk_hiz.c runs their LATE step (common/meshcull_hiz.glsl) and places
 * again. Where the device has task and mesh shaders the view's jobs take
 * the mesh path instead (vk_mesh_shader.c: no regions, a chunk table in
 * their commands' stead), except under two-pass Hi-Z; the shadow jobs
 * (cluster-LOD casters) stay expanded, come first and are all the kernel
 * is dispatched over (plan's layout). The buffer is host-visible: the host
 * writes the head, jobs and commands, and reads the counters once the
 * slot's fence has passed (a frame or two late); nothing read back sizes
 * a region. */
#include <stdlib.h>
#include <string.h>

#include "backend/gpu/meshcull.h"
#include "vk_internal.h"

#define CMD_WORDS 5u /* VkDrawIndexedIndirectCommand */

static const VkBufferUsageFlags k_mc_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                             VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
                                             VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
static const VkBufferUsageFlags k_pool_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT;

/* ---- the meshlet pool ---------------------------------------------------- */

static oak_result pool_take(_oak_vk *vk, uint32_t n, uint64_t *at) {
    if (!vk->meshlets.buffer) {
        oak_result r =
            _oak_vk_buffer_create(vk, &vk->meshlets, 4096 * 16, k_pool_usage, OAK_VK_MEM_DEVICE);
        if (r) return r;
        _oak_vk_ranges_init(&vk->meshlet_ranges, 4096);
    }
    *at = _oak_vk_ranges_alloc(&vk->meshlet_ranges, n, 1);
    while (*at == UINT64_MAX) {
        uint64_t total = vk->meshlet_ranges.total * 2;
        if (total < vk->meshlet_ranges.total + n) total = vk->meshlet_ranges.total + n;
        if (total * 16 > vk->props.limits.maxStorageBufferRange)
            return oak_error(OAK_ERROR_LIMIT, "vulkan: meshlet pool would exceed %u bytes",
                             vk->props.limits.maxStorageBufferRange);
        oak_result r = _oak_vk_buffer_grow(vk, &vk->meshlets, total * 16, k_pool_usage,
                                           OAK_VK_MEM_DEVICE, true);
        if (r) return r;
        if (!_oak_vk_ranges_grow(&vk->meshlet_ranges, total))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: meshlet pool ranges");
        *at = _oak_vk_ranges_alloc(&vk->meshlet_ranges, n, 1);
    }
    return OAK_OK;
}

oak_result _oak_vk_meshcull_upload(_oak_vk *vk, _oak_vk_mesh *m, oak_mesh h,
                                   const oak_mesh_data *d) {
    m->ml_first = m->ml_uvec4 = m->ml_count = m->ml_finest = m->ml_tris = 0;
    /* a cluster-LOD mesh's other levels are in the pool only when culling
       is on (vk_resources.c): no cut without them */
    if (!vk->meshcull || !m->index_count || m->prev ||
        (d->finest_index_count && m->index_taken != d->index_count))
        return OAK_OK;
    uint32_t *tri_of = NULL;
    const oak_meshlets *ml = _oak_meshcull_gpu_cut(h, d, &tri_of);
    if (!ml) return OAK_OK; /* drawn uncut */
    uint32_t n = _oak_meshcull_gpu_uvec4(ml);
    uint64_t at = 0, off = 0;
    oak_result r = pool_take(vk, n, &at);
    if (!r && at + n > UINT32_MAX / 4) r = oak_error(OAK_ERROR_LIMIT, "vulkan: meshlet pool");
    if (!r) r = _oak_vk_stage(vk, NULL, (uint64_t)n * 16, 16, &off);
    if (!r) {
        _oak_vk_frame *f = &vk->frames[vk->slot];
        _oak_meshcull_gpu_pack((uint32_t(*)[4])((uint8_t *)f->staging.mapped + off), (uint32_t)at,
                               ml, tri_of);
        VkBufferCopy c = {off, at * 16, (uint64_t)n * 16};
        vkCmdCopyBuffer(f->cmd, f->staging.buffer, vk->meshlets.buffer, 1, &c);
        m->ml_first = (uint32_t)at;
        m->ml_uvec4 = n;
        m->ml_count = ml->count;
        _oak_meshcull_gpu_levels(ml, d, &m->ml_finest, &m->ml_tris);
    } else if (at != UINT64_MAX && vk->meshlets.buffer && n) {
        _oak_vk_ranges_free(&vk->meshlet_ranges, at, n);
    }
    oak_free(tri_of);
    return r;
}

void _oak_vk_meshcull_free(_oak_vk *vk, _oak_vk_mesh *m) {
    if (m->ml_count) _oak_vk_ranges_free(&vk->meshlet_ranges, m->ml_first, m->ml_uvec4);
    m->ml_first = m->ml_uvec4 = m->ml_count = m->ml_finest = m->ml_tris = 0;
}

/* ---- the frame ------------------------------------------------------------ */

static const uint32_t k_meshcull_scan_comp[] =
#include "shaders/meshcull_scan.comp.h"
    ;
static const uint32_t k_meshcull_write_comp[] =
#include "shaders/meshcull_write.comp.h"
    ;

/* The counters a finished slot holds, into vk->ml_stats when newer. */
static void read_counters(_oak_vk *vk, _oak_vk_frame *f) {
    if (!f->mc_ran || !f->meshcull.mapped || f->mc_frame <= vk->ml_stats_frame) return;
    _oak_meshcull_gpu_stats(&vk->ml_stats, f->meshcull.mapped);
    vk->ml_stats_frame = f->mc_frame;
}

/* The expanded buffer's limit: the device's range, at most 2 GiB - 4
   (OAK_VK_MESHCULL_MAX_RANGE), or OAK_MESHCULL_MAX_BYTES (a test hook)
   when smaller. The cap is measured, not read from a spec: on the H200
   (driver 580.159) the dense world with OAK_MESHCULL_MAX_BYTES=2^31 (its
   words in use past 2 GiB) drew the rocks with the wrong triangles (98%
   of channels off the CPU's picture), with 2^31 - 1 the CPU's picture
   (0.01% off, as GL): a byte offset held in 32 signed bits somewhere on
   that path, not found yet. */
#define OAK_VK_MESHCULL_MAX_RANGE 0x7ffffffcu
static uint64_t buffer_limit(const _oak_vk *vk) {
    uint64_t lim = vk->props.limits.maxStorageBufferRange;
    return _oak_meshcull_gpu_limit(lim < OAK_VK_MESHCULL_MAX_RANGE ? lim
                                                                   : OAK_VK_MESHCULL_MAX_RANGE);
}

static oak_result reserve(_oak_vk *vk, _oak_vk_buffer *b, uint64_t bytes) {
    if (b->buffer && b->size >= bytes) return OAK_OK;
    uint64_t size = b->size ? b->size : 4096;
    while (size < bytes) size *= 2;
    /* never past the limit (bytes are within it): the buffer is bound
       whole, so its size is the descriptor's range (above) */
    if (size > buffer_limit(vk)) size = buffer_limit(vk);
    /* this slot's last frame has finished: its buffer can go now */
    _oak_vk_buffer_destroy(vk, b);
    return _oak_vk_buffer_create(vk, b, size, k_mc_usage, OAK_VK_MEM_UPLOAD);
}

/* The plan's place: the buffer's words, where its parts start, the next
   expanded job (its command's index) and its meshlet words; on the mesh
   path the chunk table, the view's first job word and the next view job
   and chunk. */
typedef struct plan_ctx {
    _oak_vk *vk;
    _oak_vk_frame *f;
    const _oak_vk_draw_info *info;
    uint32_t *w;
    oak_gpu_draw *rec;
    uint64_t job_word, cmd_word, index_word, ml_word;
    uint32_t job;
    uint32_t *table;
    uint64_t view_word;
    uint32_t view_job, chunk;
} plan_ctx;

/* A view job on the mesh path (record d): its words after the table, no
   region or command, and its chunks in the table (its record keeps
   prev.z 0: vis.frag takes the mesh shader's primitive id). */
static void place_mesh_job(plan_ctx *p, const _oak_vk_mesh *m, const _oak_meshcull_view *cv,
                           const float *world, uint32_t d, bool single_sided) {
    uint64_t word = p->view_word + (uint64_t)p->view_job * OAK_GPU_MESHCULL_JOB_WORDS;
    /* false: a world that cannot be culled keeps its finest meshlets */
    (void)_oak_meshcull_gpu_job(p->w + word, cv, world, single_sided, d, m->ml_first, m->ml_count,
                                m->ml_finest, 0, 0);
    for (uint32_t m0 = 0; m0 < m->ml_count; m0 += OAK_GPU_MESHCULL_GROUP, p->chunk++) {
        p->table[OAK_VK_VIS_GROUPS + 1 + 2 * p->chunk] = (uint32_t)word;
        p->table[OAK_VK_VIS_GROUPS + 2 + 2 * p->chunk] = m0;
    }
    p->view_job++;
}

/* One job (record d of the frame, world its draw's): its words, its
   meshlet words and command (the scan writes its count and first index);
   a view draw's record names the job (vis.frag finds its region's map
   through it). */
static void place_job(plan_ctx *p, const _oak_vk_mesh *m, const _oak_meshcull_view *cv,
                      const float *world, uint32_t d, bool shadow, bool single_sided) {
    uint64_t word = p->job_word + (uint64_t)p->job * OAK_GPU_MESHCULL_JOB_WORDS;
    uint32_t *jw = p->w + word;
    uint32_t cw = (uint32_t)(p->cmd_word + (uint64_t)p->job * CMD_WORDS);
    uint32_t mw = (uint32_t)p->ml_word;
    /* false: a world that cannot be culled keeps its finest meshlets */
    if (shadow)
        (void)_oak_meshcull_gpu_shadow_job(jw, cv, world, d, m->ml_first, m->ml_count, m->ml_finest,
                                           mw, cw);
    else
        (void)_oak_meshcull_gpu_job(jw, cv, world, single_sided, d, m->ml_first, m->ml_count,
                                    m->ml_finest, mw, cw);
    VkDrawIndexedIndirectCommand c = {.indexCount = 0,
                                      .instanceCount = 1,
                                      .firstIndex = (uint32_t)p->index_word,
                                      .vertexOffset = (int32_t)p->info[d].first_vertex,
                                      .firstInstance = d};
    memcpy(p->w + cw, &c, sizeof c);
    if (!shadow) p->rec[d].prev[2] = (uint32_t)word + 1;
    p->ml_word += m->ml_count;
    p->job++;
}

/* A caster's shadow group when it is a cluster-LOD mesh's (more meshlets
   than its finest level's, as the CPU's _oak_cpu_meshcull_lod picks them)
   drawn this frame, else UINT32_MAX. */
static uint32_t shadow_group(const _oak_vk *vk, const oak_render_view *v,
                             const _oak_vk_draw_info *info, uint32_t nd, uint32_t i,
                             const _oak_vk_mesh **out) {
    uint32_t g = info[i].group;
    if (g < OAK_VK_VIS_GROUPS || g >= OAK_VK_VIS_GROUPS + OAK_VK_SHADOW_GROUPS) return UINT32_MAX;
    uint32_t id = v->casters.mesh[i - nd].id, slot = oak_handle_index(id);
    const _oak_vk_mesh *m = slot < vk->mesh_capacity ? &vk->meshes[slot] : NULL;
    if (!m || m->id != id || !m->ml_count || m->ml_finest >= m->ml_count) return UINT32_MAX;
    *out = m;
    return g - OAK_VK_VIS_GROUPS;
}

oak_result _oak_vk_meshcull_plan(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v,
                                 const _oak_vk_draw_info *info, uint32_t nd, uint32_t n) {
    read_counters(vk, f); /* the slot's last frame has finished */
    f->mc_ran = false;
    f->mc_mesh = false;
    f->mc_jobs = f->mc_all = 0;
    /* the mesh path for the view's jobs (vk_mesh_shader.c), but not under
       two-pass Hi-Z, whose two steps the expanded path takes */
    bool mesh = vk->mesh_shaders && !v->occ_gpu;
    memset(vk->mc_count, 0, sizeof vk->mc_count);
    memset(vk->mc_first, 0, sizeof vk->mc_first);
    memset(vk->mcs_count, 0, sizeof vk->mcs_count);
    memset(vk->mcs_first, 0, sizeof vk->mcs_first);
    if (!OAK_GROW(vk->mc_take, vk->mc_take_cap, n + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: meshcull scratch");
    memset(vk->mc_take, 0, n + 1);
    /* the jobs: view draws of a cut mesh in the vis groups (under two-pass
       Hi-Z too: then not among its candidates, their meshlets take its
       passes, common/meshcull_hiz.glsl and vk_hiz.c) */
    uint32_t jobs = 0, sjobs = 0;
    uint64_t tris = 0, chunks = 0, mls = 0; /* the expanded jobs' worst case and meshlets */
    if (vk->meshcull) {
        for (uint32_t i = 0; i < nd; i++) {
            if (info[i].group >= OAK_VK_VIS_GROUPS) continue;
            uint32_t slot = oak_handle_index(v->draws.mesh[i].id);
            const _oak_vk_mesh *m = slot < vk->mesh_capacity ? &vk->meshes[slot] : NULL;
            if (!m || m->id != v->draws.mesh[i].id || !m->ml_count) continue;
            vk->mc_take[i] = 1;
            jobs++;
            if (mesh) /* its chunks, no region */
                chunks += (m->ml_count + OAK_GPU_MESHCULL_GROUP - 1) / OAK_GPU_MESHCULL_GROUP;
            else
                tris += m->ml_tris, mls += m->ml_count;
        }
        /* and the casters of a cluster-LOD mesh: their cascade's cut */
        for (uint32_t i = nd; i < n; i++) {
            const _oak_vk_mesh *m = NULL;
            if (shadow_group(vk, v, info, nd, i, &m) == UINT32_MAX) continue;
            vk->mc_take[i] = 1;
            sjobs++;
            tris += m->ml_tris, mls += m->ml_count;
        }
    }
    mesh = mesh && jobs;
    uint32_t all = jobs + sjobs;
    /* the kernel's jobs (head word 4 counts them, from the first job word
       on) and their commands: every job on the expanded path, the view's
       first; the shadow jobs alone on the mesh path, with the chunk table
       after them (where the task shader finds it: after the head's count of
       jobs) and the view's jobs after the table */
    uint32_t expanded = mesh ? sjobs : all;
    uint64_t job_word = OAK_GPU_MESHCULL_HEAD_WORDS;
    uint64_t table_word = job_word + (uint64_t)expanded * OAK_GPU_MESHCULL_JOB_WORDS;
    uint64_t view_word = mesh ? table_word + _oak_vk_mesh_table_words(chunks) : table_word;
    uint64_t cmd_word = view_word + (mesh ? (uint64_t)jobs * OAK_GPU_MESHCULL_JOB_WORDS : 0);
    uint64_t ml_word = cmd_word + (uint64_t)expanded * CMD_WORDS; /* the meshlet words */
    uint64_t map_word = ml_word + mls;
    /* the room: every job's worst case (its finest level), so that no cut,
       however fast it grows, is clipped; under the buffer's limit less, and
       the scan clamps the frame's kept triangles past it, counted */
    uint64_t limit = buffer_limit(vk) / 4; /* in words */
    uint64_t room = _oak_meshcull_gpu_room(map_word, tris, limit);
    vk->mc_fallback = 0;
    if (!room && map_word + 4 * tris > limit) { /* a mesh-path frame may need no room */
        /* not a triangle: every draw as it is, said in the stats */
        vk->mc_fallback = all;
        memset(vk->mc_take, 0, n + 1);
        jobs = sjobs = all = expanded = 0, chunks = 0;
        mesh = false;
        table_word = view_word = cmd_word = ml_word = map_word = OAK_GPU_MESHCULL_HEAD_WORDS;
    }
    uint64_t index_word = map_word + room, words = index_word + room * 3;
    oak_result r = reserve(vk, &f->meshcull, words * 4);
    if (r) return r;
    uint32_t *w = f->meshcull.mapped;
    _oak_meshcull_view cv;
    _oak_meshcull_view_make(&cv, v, vk->width, vk->height);
    plan_ctx pl = {.vk = vk,
                   .f = f,
                   .info = info,
                   .w = w,
                   .rec = f->draws.mapped,
                   .job_word = job_word,
                   .cmd_word = cmd_word,
                   .index_word = index_word,
                   .ml_word = ml_word,
                   .table = w + table_word,
                   .view_word = view_word};
    /* the view's commands, or chunks, in the vis groups' order, as the
       raster draws them (the table: each group's first chunk, then the
       count) */
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS && jobs; g++) {
        vk->mc_first[g] = mesh ? pl.chunk : pl.job;
        if (mesh) pl.table[g] = pl.chunk;
        for (uint32_t i = 0; i < nd; i++) {
            if (!vk->mc_take[i] || info[i].group != g) continue;
            const _oak_vk_mesh *m = &vk->meshes[oak_handle_index(v->draws.mesh[i].id)];
            const float *world = (const float *)v->draws.world[i];
            if (mesh)
                place_mesh_job(&pl, m, &cv, world, i, !(g & 1u));
            else /* false: a world that cannot be culled keeps its finest meshlets */
                place_job(&pl, m, &cv, world, i, false, !(g & 1u));
        }
        vk->mc_count[g] = (mesh ? pl.chunk : pl.job) - vk->mc_first[g];
    }
    if (mesh) pl.table[OAK_VK_VIS_GROUPS] = pl.chunk;
    /* then the casters' by shadow group, each by its cascade's texel (the
       CPU's cut: cpu_pass_shadow.c) */
    uint32_t tile = vk->shadow.width / 2;
    for (uint32_t sg = 0; sg < OAK_VK_SHADOW_GROUPS && sjobs; sg++) {
        vk->mcs_first[sg] = pl.job;
        uint32_t k = sg / 4;
        if (k >= v->cascade_count) continue;
        _oak_meshcull_view sv;
        _oak_meshcull_view_shadow(&sv, (const float *)v->cascades[k].view_proj, tile, true, NULL,
                                  0);
        for (uint32_t i = nd; i < n; i++) {
            const _oak_vk_mesh *m = NULL;
            if (!vk->mc_take[i] || shadow_group(vk, v, info, nd, i, &m) != sg) continue;
            place_job(&pl, m, &sv, (const float *)v->casters.world[i - nd], i, true, false);
        }
        vk->mcs_count[sg] = pl.job - vk->mcs_first[sg];
    }
    _oak_meshcull_gpu_head(w, &cv, expanded, (uint32_t)index_word, (uint32_t)map_word);
    f->mc_jobs = jobs;
    f->mc_all = all;
    f->mc_mesh = mesh;
    vk->mc_cmd_word = (uint32_t)cmd_word;
    if (all) {
        f->mc_ran = true;
        f->mc_frame = vk->frame_count;
    }
    return OAK_OK;
}

/* meshcull_scan.comp and meshcull_write.comp with Hi-Z's LATE step's
   specialization, made the first time that step runs. */
static bool late_pipes(_oak_vk *vk) {
    if (vk->mc_late[0] && vk->mc_late[1]) return true;
    uint32_t step = OAK_GPU_HIZ_STEP_LATE;
    oak_result r = OAK_OK;
    if (!vk->mc_late[0])
        r = _oak_vk_compute_spec(vk, k_meshcull_scan_comp, sizeof k_meshcull_scan_comp, &step,
                                 &vk->mc_late[0]);
    if (!r && !vk->mc_late[1])
        r = _oak_vk_compute_spec(vk, k_meshcull_write_comp, sizeof k_meshcull_write_comp, &step,
                                 &vk->mc_late[1]);
    if (r && !vk->pipe_result) vk->pipe_result = r;
    return !r;
}

static void compute_to_compute(VkCommandBuffer cmd) {
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

void _oak_vk_meshcull_place(_oak_vk *vk, _oak_vk_frame *f, bool late) {
    uint32_t expanded = f->mc_mesh ? f->mc_all - f->mc_jobs : f->mc_all;
    if (!expanded || (late && !late_pipes(vk))) return;
    /* the regions: one work group over every job's count */
    compute_to_compute(f->cmd);
    if (late)
        vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->mc_late[0]);
    else if (!_oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_MESHCULL_SCAN))
        return;
    vkCmdDispatch(f->cmd, 1, 1, 1);
    /* the triangles: a work group per job (it strides) */
    compute_to_compute(f->cmd);
    if (late)
        vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->mc_late[1]);
    else if (!_oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_MESHCULL_WRITE))
        return;
    vkCmdDispatch(f->cmd, expanded < 65535u ? expanded : 65535u, 1, 1);
}

oak_result _oak_vk_run_meshcull(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    /* the mesh path culls the view's jobs in its task shader: the kernel
       takes the shadow jobs alone, if any */
    uint32_t expanded = f->mc_mesh ? f->mc_all - f->mc_jobs : f->mc_all;
    if (!expanded) return OAK_OK;
    /* under Hi-Z this is the EARLY step: last frame's LATE step wrote the
       bits it reads (one queue: the barrier reaches back) */
    if (f->hiz_on)
        _oak_vk_barrier(
            f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    if (_oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_MESHCULL)) {
        uint32_t groups = expanded < 65535u ? expanded : 65535u; /* the kernel strides */
        vkCmdDispatch(f->cmd, groups, 1, 1);                     /* the count step */
        _oak_vk_meshcull_place(vk, f, false);
    }
    /* readers: the raster's commands, indices and vis.frag's map; the host's counters */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_HOST_BIT,
                    VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT |
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_HOST_READ_BIT);
    return OAK_OK;
}

void _oak_vk_meshcull_draw(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f) {
    if (!f->mc_jobs) return;
    if (f->mc_mesh) {
        _oak_vk_mesh_draw(vk, cmd, f); /* vk_mesh_shader.c */
        return;
    }
    vkCmdBindIndexBuffer(cmd, f->meshcull.buffer, 0, VK_INDEX_TYPE_UINT32);
    const uint32_t stride = sizeof(VkDrawIndexedIndirectCommand);
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS; g++) {
        uint32_t n = vk->mc_count[g];
        if (!n || !_oak_vk_bind(vk, cmd, OAK_VK_PIPE_VIS + g)) continue;
        uint64_t at = ((uint64_t)vk->mc_cmd_word + (uint64_t)vk->mc_first[g] * CMD_WORDS) * 4;
        if (vk->multi_draw)
            vkCmdDrawIndexedIndirect(cmd, f->meshcull.buffer, at, n, stride);
        else
            for (uint32_t k = 0; k < n; k++)
                vkCmdDrawIndexedIndirect(cmd, f->meshcull.buffer, at + (uint64_t)k * stride, 1,
                                         stride);
    }
    vkCmdBindIndexBuffer(cmd, vk->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
}

void _oak_vk_meshcull_shadow_draw(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f,
                                  uint32_t group, uint32_t pipe) {
    uint32_t n = group < OAK_VK_SHADOW_GROUPS ? vk->mcs_count[group] : 0;
    if (!n || !f->mc_all || !_oak_vk_bind(vk, cmd, pipe)) return;
    vkCmdBindIndexBuffer(cmd, f->meshcull.buffer, 0, VK_INDEX_TYPE_UINT32);
    const uint32_t stride = sizeof(VkDrawIndexedIndirectCommand);
    uint64_t at = ((uint64_t)vk->mc_cmd_word + (uint64_t)vk->mcs_first[group] * CMD_WORDS) * 4;
    if (vk->multi_draw)
        vkCmdDrawIndexedIndirect(cmd, f->meshcull.buffer, at, n, stride);
    else
        for (uint32_t k = 0; k < n; k++)
            vkCmdDrawIndexedIndirect(cmd, f->meshcull.buffer, at + (uint64_t)k * stride, 1, stride);
    vkCmdBindIndexBuffer(cmd, vk->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
}

void _oak_vk_meshcull_stats(_oak_vk *vk, oak_meshlet_stats *out) {
    /* a slot still in flight is skipped: its fence says so without a wait */
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_frame *f = &vk->frames[i];
        bool done = !f->submitted || vkGetFenceStatus(vk->device, f->fence) == VK_SUCCESS;
        if (done && !(vk->recording && i == vk->slot)) read_counters(vk, f);
    }
    *out = vk->ml_stats_frame ? vk->ml_stats : (oak_meshlet_stats){0};
    out->fallback_draws = vk->mc_fallback;
}

void _oak_vk_meshcull_destroy(_oak_vk *vk) {
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_buffer_destroy(vk, &vk->frames[i].meshcull);
        vk->frames[i].mc_jobs = vk->frames[i].mc_all = 0;
        vk->frames[i].mc_ran = false;
    }
    _oak_vk_buffer_destroy(vk, &vk->meshlets);
    _oak_vk_ranges_release(&vk->meshlet_ranges);
    oak_free(vk->mc_take);
    vk->mc_take = NULL;
    for (int k = 0; k < 2; k++) {
        if (vk->mc_late[k]) vkDestroyPipeline(vk->device, vk->mc_late[k], NULL);
        vk->mc_late[k] = VK_NULL_HANDLE;
    }
    vk->mc_take_cap = 0;
}
