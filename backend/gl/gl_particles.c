/* The particle kernel (shaders/particles.comp.glsl) on OpenGL, run once over
 * a block of particles and read back: what the particle pass will dispatch
 * (not built yet: docs/WORLD.md "Particles"), and today the hook that holds
 * the kernel to the C evaluation (tests/test_particles_gpu.c). The program
 * and buffers are made and deleted per call: a test's cost, not a frame's. */
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
    const size_t head = sizeof *c + sizeof(uint32_t) * OAK_PARTICLE_FRAMES;
    uint8_t *in = oak_alloc(head + sizeof *parts * (size_t)n);
    if (!in) {
        glDeleteProgram(prog);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl particles: no memory for %u", n);
    }
    oak_gpu_particle_emitter em = *c;
    em.time[1] = (float)n;
    memcpy(in, &em, sizeof em);
    memset(in + sizeof em, 0, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
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
