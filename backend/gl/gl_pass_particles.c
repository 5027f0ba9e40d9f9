/* The particles pass on OpenGL: the particle kernel (shaders/particles.comp.glsl)
 * writes each PARTICLES stream's records (oak_render_stream.particles) into
 * the instance buffer where instcull reads them, and last frame's copies
 * after them, from the emitter's block. The block goes up only when its
 * version or place moved (a birth or a death), the constants every frame;
 * one dispatch per stream, its block bound as a range. The instance buffer
 * is reserved here as instcull reserves it (it runs next and finds it
 * sized), since the kernel writes it first. A flipbook's frames share one
 * block, which goes up and runs once (backend/gpu/gpu_particles.h). */
#include <stddef.h>
#include <string.h>

#include "backend/gpu/gpu_particles.h"
#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

/* every block starts on 256 bytes: above any storage buffer offset alignment seen */
#define BLOCK_ALIGN 256u
#define HEAD        OAK_GPU_PARTICLE_HEAD_BYTES
/* the draw kernel's jobs (two uvec4s a stream) and the books' frame
   counts it writes, which open the blocks' buffer */
#define JOBS_BYTES OAK_GPU_PARTICLE_JOBS_BYTES

static size_t block_bytes(uint32_t count) {
    size_t b = HEAD + sizeof(oak_gpu_particle) * (size_t)count;
    return (b + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
}

/* Device-written BLEND streams (oak_render_stream.device_blend): each
   record the particle kernel just wrote (and last frame's copy) into a
   draw record at the stream's slot past the view's list, which the blend
   pass reads (shaders/particles_draws.comp.glsl). The upload pass sized
   the draws buffer and wrote the list before these slots; the jobs open
   the blocks' buffer, bound whole, so a sorted stream's slot i takes the
   i-th of its pairs (sort_at: its sort block). An "over" book's frame's
   count, which the kernel writes past the jobs, is copied into its BLEND
   command's instance_count (the upload wrote the bound, the whole book). */
static oak_result run_draws(_oak_gl_frame *f, const oak_render_view *v, const uint64_t *sort_at) {
    uint32_t jobs[OAK_STREAM_MAX_PER_VIEW][8], most = 0;
    uint32_t n = _oak_gpu_blend_jobs(v, v->draws.count, jobs, &most);
    f->book_cmds = 0;
    if (!n || !most) return OAK_OK;
    f->book_cmds = _oak_gpu_book_count_cmds(v, jobs, n, f->blend_draw,
                                            f->main_groups[5] - f->main_groups[4], f->book_cmd);
    _oak_gpu_blend_jobs_sorted(v, sort_at, jobs, n);
    oak_result r;
    if (!f->prog_particle_draws && (r = _oak_gl_compute(&f->prog_particle_draws, "particles-draws",
                                                        oak_gl_src_particles_draws_comp)))
        return r;
    if ((r = _oak_gl_buffer_upload(&f->particles, 0, jobs, sizeof jobs[0] * n))) return r;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(f->prog_particle_draws);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_IN, f->particles.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCES, f->instances.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, f->draws.id);
    glDispatchCompute((most + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP, n, 1);
    if (f->book_cmds) glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
    for (uint32_t i = 0; i < f->book_cmds; i++)
        glCopyNamedBufferSubData(
            f->particles.id, f->commands.id,
            (GLintptr)(OAK_GPU_BOOK_COUNTS_AT + 16 * (size_t)f->book_cmd[i][0]),
            (GLintptr)((f->main_groups[4] + f->book_cmd[i][1]) * sizeof(_oak_gl_command) +
                       offsetof(_oak_gl_command, instance_count)),
            sizeof(uint32_t));
    return OAK_OK;
}

/* "Over" streams drawn far to near (oak_render_stream.device_sort): after
   the particle kernel wrote their records, each one's records sorted by
   shaders/particles_sort.comp.glsl into the pairs of its sort block at
   sort_at[s] (backend/gpu/gpu_particles.h: a head per dispatch, each bound
   at its own offset, then the pairs), one dispatch for the keys and one
   per compare-and-swap stage. */
static oak_result run_sorts(_oak_gl_frame *f, const oak_render_view *v, uint32_t ns,
                            const uint64_t *sort_at, const uint64_t *firsts) {
    uint8_t heads[OAK_GPU_SORT_HEAD * (OAK_GPU_SORT_MAX_STAGES + 1)];
    oak_result r = OAK_OK;
    for (uint32_t s = 0; s < ns; s++) {
        if (!_oak_gpu_sort_leads(sort_at, s)) continue; /* a book's: once */
        if (!f->prog_particle_sort && (r = _oak_gl_compute(&f->prog_particle_sort, "particles-sort",
                                                           oak_gl_src_particles_sort_comp)))
            return r;
        uint32_t m = 1, stages = _oak_gpu_sort_heads(v, ns, s, firsts[s], heads, &m);
        uint64_t block = _oak_gpu_sort_block_bytes(_oak_gpu_sort_entries(&v->streams[s]), NULL);
        if ((r = _oak_gl_buffer_upload(&f->particles, (size_t)sort_at[s], heads,
                                       (size_t)OAK_GPU_SORT_HEAD * (stages + 1))))
            return r;
        glUseProgram(f->prog_particle_sort);
        for (uint32_t t = 0; t <= stages; t++) {
            /* the heads' upload, the records (t 0) or the last stage's pairs */
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
            uint64_t at = sort_at[s] + (uint64_t)OAK_GPU_SORT_HEAD * t;
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_IN, f->particles.id,
                              (GLintptr)at, (GLsizeiptr)(sort_at[s] + block - at));
            glDispatchCompute((m + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP, 1, 1);
        }
    }
    return r;
}

oak_result _oak_gl_run_particles(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    oak_result r = OAK_OK;
    if (!f->prog_particles &&
        (r = _oak_gl_compute(&f->prog_particles, "particles", oak_gl_src_particles_comp)))
        return r;
    GLint bindings = 0, align = 0;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
    if (bindings <= OAK_B_PARTICLE_IN)
        return oak_error(OAK_ERROR_DEVICE, "gl: %d storage buffer bindings, particles needs %d",
                         bindings, OAK_B_PARTICLE_IN + 1);
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align);
    if (align <= 0 || (uint32_t)align > BLOCK_ALIGN || BLOCK_ALIGN % (uint32_t)align)
        return oak_error(OAK_ERROR_DEVICE, "gl: particles: storage offset alignment %d", align);
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    /* the draw kernel's jobs, the blocks, then the sort blocks */
    uint64_t records = 0, sort_at[OAK_STREAM_MAX_PER_VIEW], firsts[OAK_STREAM_MAX_PER_VIEW];
    uint64_t blocks = JOBS_BYTES, sort_most = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (_oak_gpu_particle_block_leads(v, ns, s))
            blocks += block_bytes(_oak_gpu_particle_count(&v->streams[s]));
    size_t bytes = (size_t)_oak_gpu_sort_plan(v, ns, blocks, sort_at, firsts, &sort_most);
    size_t old_blocks = f->particles.capacity;
    if ((r = _oak_gl_instances_reserve(f, v, &records)) || /* instcull's */
        (r = _oak_gl_buffer_reserve(&f->particles, bytes, false)))
        return r;
    if (f->particles.capacity != old_blocks) memset(f->particle_src, 0, sizeof f->particle_src);
    glUseProgram(f->prog_particles);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_OUT, f->instances.id);
    size_t at = JOBS_BYTES;
    uint32_t total = (uint32_t)records;
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        if (!_oak_gpu_particle_block_leads(v, ns, s)) continue;
        uint32_t n = _oak_gpu_particle_count(rs);
        size_t size = block_bytes(n);
        /* the block only when a birth or a death moved it (or it moved here) */
        if (f->particle_src[s] != rs->particles || f->particle_version[s] != rs->particle_version ||
            f->particle_at[s] != at) {
            if (n && (r = _oak_gl_buffer_upload(&f->particles, at + HEAD, rs->particles,
                                                sizeof(oak_gpu_particle) * (size_t)n)))
                return r;
            f->particle_src[s] = rs->particles;
            f->particle_version[s] = rs->particle_version;
            f->particle_at[s] = at;
            f->particle_uploads++;
        }
        uint8_t head[HEAD];
        uint32_t groups = _oak_gpu_particle_head(v, ns, s, firsts[s], total, head);
        if ((r = _oak_gl_buffer_upload(&f->particles, at, head, sizeof head))) return r;
        if (n) {
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            glBindBufferRange(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_IN, f->particles.id,
                              (GLintptr)at, (GLsizeiptr)size);
            glDispatchCompute(groups, 1, 1);
        }
        at += size;
    }
    if ((r = run_sorts(f, v, ns, sort_at, firsts)) || (r = run_draws(f, v, sort_at))) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_IN, 0);
    /* readers: instcull's kernel, the raster's and resolve's records, the
       blend pass's draw records (and the next upload's writes over them) */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    return OAK_OK;
}

void _oak_gl_particles_release(_oak_gl_frame *f) {
    if (f->prog_particles) glDeleteProgram(f->prog_particles);
    if (f->prog_particle_draws) glDeleteProgram(f->prog_particle_draws);
    if (f->prog_particle_sort) glDeleteProgram(f->prog_particle_sort);
    f->prog_particles = f->prog_particle_draws = f->prog_particle_sort = 0;
    _oak_gl_buffer_release(&f->particles);
    memset(f->particle_src, 0, sizeof f->particle_src);
}

uint64_t _oak_gl_particles_uploads(void *self) {
    const _oak_gl_backend *b = self;
    return b && b->frame ? b->frame->particle_uploads : 0;
}

oak_result _oak_gl_particles_frame_records(void *self, uint64_t first, uint32_t n,
                                           oak_instance *out) {
    _oak_gl_backend *b = self;
    if (!b || (n && !out))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl particle records: NULL argument");
    oak_result r = _oak_gl_make_current(&b->ctx);
    if (r) return r;
    _oak_gl_frame *f = b->frame;
    if (!f || (first + n) * sizeof(oak_gpu_instance) > f->instances.capacity)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl particle records: past the buffer");
    glFinish();
    if (n)
        glGetNamedBufferSubData(f->instances.id, (GLintptr)(first * sizeof(oak_gpu_instance)),
                                (GLsizeiptr)(n * sizeof(oak_gpu_instance)), out);
    return OAK_OK;
}

oak_result _oak_gl_particles_book_counts(void *self, uint32_t counts[OAK_PARTICLE_FRAMES]) {
    _oak_gl_backend *b = self;
    if (!b || !counts)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl book counts: NULL argument");
    memset(counts, 0, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    oak_result r = _oak_gl_make_current(&b->ctx);
    if (r) return r;
    _oak_gl_frame *f = b->frame;
    if (!f) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl book counts: nothing drawn");
    glFinish();
    for (uint32_t i = 0; i < f->book_cmds; i++) {
        size_t k = f->main_groups[4] + f->book_cmd[i][1];
        if ((k + 1) * sizeof(_oak_gl_command) > f->commands.capacity ||
            f->book_cmd[i][2] >= OAK_PARTICLE_FRAMES)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl book counts: past the buffer");
        _oak_gl_command c;
        glGetNamedBufferSubData(f->commands.id, (GLintptr)(k * sizeof c), (GLsizeiptr)sizeof c, &c);
        counts[f->book_cmd[i][2]] += c.instance_count;
    }
    return OAK_OK;
}
