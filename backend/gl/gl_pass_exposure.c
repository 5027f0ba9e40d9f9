/* The exposure pass on OpenGL: exposure_meter.comp adds each pixel of the
 * HDR image into the histogram with atomics, then exposure_step.comp (one
 * invocation) steps the camera and clears the counts; post.comp reads the
 * state (the same files the Vulkan backend compiles). Nothing is read back
 * per frame: only the test hook reads the state. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

#define OAK_GL_EXPOSURE_BYTES ((size_t)OAK_GPU_EXPOSURE_WORDS * 4)

oak_result _oak_gl_exposure_create(_oak_gl_frame *f) {
    GLint bindings = 0;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
    if (bindings <= OAK_B_EXPOSURE)
        return oak_error(OAK_ERROR_DEVICE, "gl: %d storage buffer bindings, exposure needs %d",
                         bindings, OAK_B_EXPOSURE + 1);
    /* a zero histogram before the first frame; the step leaves it zero */
    static const uint32_t zero[OAK_GPU_EXPOSURE_WORDS] = {0};
    return _oak_gl_buffer_upload(&f->exposure, 0, zero, OAK_GL_EXPOSURE_BYTES);
}

void _oak_gl_exposure_release(_oak_gl_frame *f) {
    if (f->prog_exposure_meter) glDeleteProgram(f->prog_exposure_meter);
    if (f->prog_exposure_step) glDeleteProgram(f->prog_exposure_step);
    f->prog_exposure_meter = f->prog_exposure_step = 0;
    _oak_gl_buffer_release(&f->exposure);
}

oak_result _oak_gl_run_exposure(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    oak_result r = OAK_OK;
    if (!f->prog_exposure_meter)
        r = _oak_gl_compute(&f->prog_exposure_meter, "exposure_meter",
                            oak_gl_src_exposure_meter_comp);
    if (!r && !f->prog_exposure_step)
        r = _oak_gl_compute(&f->prog_exposure_step, "exposure_step", oak_gl_src_exposure_step_comp);
    if (r) return r;
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindImageTexture(0, b->targets.hdr, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_EXPOSURE, f->exposure.id);
    glUseProgram(f->prog_exposure_meter);
    _oak_gl_dispatch_output(&b->targets);
    /* inside the pass: the step reads the counts just added */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(f->prog_exposure_step);
    glDispatchCompute(1, 1, 1);
    return OAK_OK; /* post's barrier comes from its row (gl_track.c) */
}

oak_result _oak_gl_exposure_read(_oak_gl_frame *f, float state[4]) {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(f->exposure.id, 0, 4 * sizeof(float), state);
    return _oak_gl_check("exposure read-back")
               ? oak_error(OAK_ERROR_DEVICE, "gl: exposure read-back failed")
               : OAK_OK;
}
