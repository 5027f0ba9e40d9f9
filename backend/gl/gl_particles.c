/* The particle kernels (shaders/particles.comp.glsl, particles_sort.comp.glsl)
 * on OpenGL, run once over a block and read back: what the particle pass
 * will dispatch (not built yet: docs/WORLD.md "Particles"), and today the
 * hooks that hold the kernels to the C evaluation and the CPU's far-to-near
 * order (tests/particles_gpu.h). The program
 * and buffers are made and deleted per call: a test's cost, not a frame's. */
#include <stddef.h>
#include <string.h>

#include "gl_internal.h"

oak_result _oak_gl_particles_run(const oak_gpu_particle_emitter *c, const oak_gpu_particle *parts,
                                 uint32_t n, oak_instance *records,
                                 uint32_t counts[OAK_PARTICLE_FRAMES]) {
    if (!c || (n && (!parts || !records)) || !counts)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl particles: NULL argument");
    const char *body = _oak_gl_shared_source("particles.comp.glsl");
    if (!body) return oak_error(OAK_ERROR_NOT_FOUND, "gl: the particle kernel is not embedded");
    GLuint prog = 0;
    oak_result r = _oak_gl_compute(&prog, "particles", body);
    if (r) return r;
    const size_t head = sizeof *c + sizeof(uint32_t) * OAK_GPU_PARTICLE_HEAD_UINTS;
    uint8_t *in = oak_alloc(head + sizeof *parts * (size_t)n);
    if (!in) {
        glDeleteProgram(prog);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl particles: no memory for %u", n);
    }
    oak_gpu_particle_emitter em = *c;
    em.time[1] = (float)n;
    em.target[3] = 0; /* a particle a thread (no flipbook scatter) */
    memcpy(in, &em, sizeof em);
    memset(in + sizeof em, 0, sizeof(uint32_t) * OAK_GPU_PARTICLE_HEAD_UINTS);
    if (n) memcpy(in + head, parts, sizeof *parts * (size_t)n);
    GLuint buf[2];
    glCreateBuffers(2, buf);
    glNamedBufferStorage(buf[0], (GLsizeiptr)(head + sizeof *parts * (size_t)n), in,
                         GL_DYNAMIC_STORAGE_BIT);
    glNamedBufferStorage(buf[1], (GLsizeiptr)(sizeof *records * (size_t)(n ? n : 1)), NULL,
                         GL_DYNAMIC_STORAGE_BIT);
    oak_free(in);
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_IN, buf[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_OUT, buf[1]);
    if (n) glDispatchCompute((n + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if (n) glGetNamedBufferSubData(buf[1], 0, (GLsizeiptr)(sizeof *records * (size_t)n), records);
    glGetNamedBufferSubData(buf[0], (GLintptr)sizeof em,
                            (GLsizeiptr)(sizeof(uint32_t) * OAK_PARTICLE_FRAMES), counts);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_IN, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_OUT, 0);
    glUseProgram(0);
    glDeleteBuffers(2, buf);
    glDeleteProgram(prog);
    GLenum e = glGetError();
    return e == GL_NO_ERROR
               ? OAK_OK
               : oak_error(OAK_ERROR_DEVICE, "gl particles: GL error 0x%x", (unsigned)e);
}

/* The sort's head (shaders/particles_sort.comp.glsl SortBlock). */
typedef struct sort_head {
    float eye[4], fwd[4];
    uint32_t step[4], size[4], book[4], places[OAK_PARTICLE_FRAMES]; /* no book here */
} sort_head;

oak_result _oak_gl_particles_sort(const float eye[3], const float fwd[3],
                                  const oak_instance *records, const uint8_t *frames, uint32_t n,
                                  uint32_t *order) {
    if (!eye || !fwd || !n || !records || !order)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl particle sort: NULL or no records");
    const char *body = _oak_gl_shared_source("particles_sort.comp.glsl");
    if (!body) return oak_error(OAK_ERROR_NOT_FOUND, "gl: the particle sort is not embedded");
    GLuint prog = 0;
    oak_result r = _oak_gl_compute(&prog, "particles_sort", body);
    if (r) return r;
    uint32_t m = 1;
    while (m < n) m *= 2;
    sort_head h = {{eye[0], eye[1], eye[2], 0}, {fwd[0], fwd[1], fwd[2], 0}, {0, 0, 0, n}, {m}};
    GLuint buf[2];
    glCreateBuffers(2, buf);
    uint32_t *entry = oak_calloc((size_t)m, 16);
    if (!entry) {
        glDeleteProgram(prog);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl particle sort: no memory for %u", n);
    }
    for (uint32_t i = 0; i < n; i++) entry[4 * i] = frames ? frames[i] : 0;
    glNamedBufferStorage(buf[0], (GLsizeiptr)(sizeof h + 16 * (size_t)m), NULL,
                         GL_DYNAMIC_STORAGE_BIT);
    glNamedBufferSubData(buf[0], 0, sizeof h, &h);
    glNamedBufferSubData(buf[0], sizeof h, (GLsizeiptr)(16 * (size_t)m), entry);
    oak_free(entry);
    glNamedBufferStorage(buf[1], (GLsizeiptr)(sizeof *records * (size_t)n), records, 0);
    glUseProgram(prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_IN, buf[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_OUT, buf[1]);
    GLuint groups = (m + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP;
    glDispatchCompute(groups, 1, 1); /* the pairs */
    for (uint32_t k = 2; k <= m; k *= 2)
        for (uint32_t j = k / 2; j > 0; j /= 2) {
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
            uint32_t step[4] = {1, k, j, n};
            glNamedBufferSubData(buf[0], offsetof(sort_head, step), sizeof step, step);
            glDispatchCompute(groups, 1, 1);
        }
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    uint32_t *pairs = oak_alloc(16 * (size_t)n);
    if (pairs) {
        glGetNamedBufferSubData(buf[0], sizeof h, (GLsizeiptr)(16 * (size_t)n), pairs);
        for (uint32_t i = 0; i < n; i++) order[i] = pairs[4 * i + 2];
    }
    oak_free(pairs);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_IN, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PARTICLE_OUT, 0);
    glUseProgram(0);
    glDeleteBuffers(2, buf);
    glDeleteProgram(prog);
    if (!pairs) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl particle sort: no memory for %u", n);
    GLenum e = glGetError();
    return e == GL_NO_ERROR
               ? OAK_OK
               : oak_error(OAK_ERROR_DEVICE, "gl particle sort: GL error 0x%x", (unsigned)e);
}
