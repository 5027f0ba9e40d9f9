/* The grass kernel (shaders/grass.comp.glsl) on OpenGL: the grass pass,
 * which grows the squares that arrived (and zeroes the slots of those that
 * left) into the frame's instance buffer (the jobs, 1.3 KB a square, in a
 * buffer of its own); and the test hook that runs it once over a list of
 * squares and reads it back (tests/grass_gpu.h), its program and buffers
 * made and deleted per call: a test's cost, not a frame's. */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_grass.h"
#include "oak_gl_shaders.h"
#include "render/stream.h"

oak_result _oak_gl_grass_run(const oak_gpu_grass_square *squares, uint32_t n, oak_instance *records,
                             uint32_t count) {
    if ((n && !squares) || !records || !count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl grass: NULL argument or no records");
    const char *body = _oak_gl_shared_source("grass.comp.glsl");
    if (!body) return oak_error(OAK_ERROR_NOT_FOUND, "gl: the grass kernel is not embedded");
    GLuint prog = 0;
    oak_result r = _oak_gl_compute(&prog, "grass", body);
    if (r) return r;
    GLuint buf[2];
    glCreateBuffers(2, buf);
    glNamedBufferStorage(buf[0], (GLsizeiptr)(sizeof *squares * (size_t)(n ? n : 1)), NULL,
                         GL_DYNAMIC_STORAGE_BIT);
    if (n) glNamedBufferSubData(buf[0], 0, (GLsizeiptr)(sizeof *squares * (size_t)n), squares);
    glNamedBufferStorage(buf[1], (GLsizeiptr)(sizeof *records * (size_t)count), NULL,
                         GL_DYNAMIC_STORAGE_BIT);
    uint32_t zero = 0;
    glClearNamedBufferData(buf[1], GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_GRASS_IN, buf[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_GRASS_OUT, buf[1]);
    if (n) glDispatchCompute(n, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(buf[1], 0, (GLsizeiptr)(sizeof *records * (size_t)count), records);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_GRASS_IN, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_GRASS_OUT, 0);
    glUseProgram(0);
    glDeleteBuffers(2, buf);
    glDeleteProgram(prog);
    GLenum e = glGetError();
    return e == GL_NO_ERROR ? OAK_OK
                            : oak_error(OAK_ERROR_DEVICE, "gl grass: GL error 0x%x", (unsigned)e);
}

/* ---- the grass pass --------------------------------------------------------- */

typedef struct _oak_gl_grass {
    GLuint prog;
    _oak_gl_buffer jobs;
    oak_gpu_grass_square *list;
    uint32_t list_cap;
    uint64_t squares;
} _oak_gl_grass;

oak_result _oak_gl_run_grass(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    oak_result r = OAK_OK;
    if (!f->grass && !(f->grass = oak_calloc(1, sizeof *f->grass)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl grass: no memory");
    _oak_gl_grass *G = f->grass;
    if (!G->prog && (r = _oak_gl_compute(&G->prog, "grass", oak_gl_src_grass_comp))) return r;
    /* instcull's buffer (it forgets what it held when it grows) */
    uint64_t records;
    if ((r = _oak_gl_instances_reserve(f, v, &records))) return r;
    uint32_t g[2], n = _oak_gpu_grass_jobs(&f->uploads, v, &G->list, &G->list_cap, g);
    if (n == UINT32_MAX) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl grass: no jobs");
    if (!n) return OAK_OK;
    uint32_t gx = g[0], gy = g[1];
    size_t bytes = sizeof *G->list * (size_t)gx * gy;
    if ((r = _oak_gl_buffer_reserve(&G->jobs, bytes, false)) ||
        (r = _oak_gl_buffer_upload(&G->jobs, 0, G->list, bytes)))
        return r;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glUseProgram(G->prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_GRASS_IN, G->jobs.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_GRASS_OUT, f->instances.id);
    glDispatchCompute(gx, gy, 1);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_GRASS_IN, 0);
    G->squares += n;
    /* readers: instcull's kernel, the raster's and resolve's records */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    return OAK_OK;
}

void _oak_gl_grass_release(_oak_gl_frame *f) {
    _oak_gl_grass *G = f->grass;
    if (!G) return;
    if (G->prog) glDeleteProgram(G->prog);
    _oak_gl_buffer_release(&G->jobs);
    oak_free(G->list);
    oak_free(G);
    f->grass = NULL;
}

uint64_t _oak_gl_grass_squares(void *self) {
    const _oak_gl_backend *b = self;
    return b && b->frame && b->frame->grass ? b->frame->grass->squares : 0;
}
