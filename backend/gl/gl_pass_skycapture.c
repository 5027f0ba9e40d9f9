/* The sky capture on OpenGL: when the environment's hash moved, the head and
 * sky image go up, then skycapture.comp (the file the Vulkan backend
 * compiles) fills the capture's mips (and, the first time, the BRDF table)
 * and skyfilter.comp the irradiance and prefiltered levels. The buffer stays
 * bound at OAK_B_SKY for the resolve and the BLEND pass (_oak_gl_bind_common). */
#include <string.h>

#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/skylight.h"

#define OAK_GL_SKY_BYTES ((size_t)OAK_GPU_SKY_TEXELS * 16)

static oak_result sky_setup(_oak_gl_frame *f) {
    if (f->prog_skyfilter) return OAK_OK;
    GLint bindings = 0;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
    if (bindings <= OAK_B_SKY)
        return oak_error(OAK_ERROR_DEVICE, "gl: %d storage buffer bindings, the sky needs %d",
                         bindings, OAK_B_SKY + 1);
    oak_result r = _oak_gl_buffer_reserve(&f->sky, OAK_GL_SKY_BYTES, false);
    if (!r && !f->prog_skycapture) /* the clouds' bake may have made it */
        r = _oak_gl_compute(&f->prog_skycapture, "skycapture", oak_gl_src_skycapture_comp);
    if (!r) r = _oak_gl_compute(&f->prog_skyfilter, "skyfilter", oak_gl_src_skyfilter_comp);
    return r;
}

oak_result _oak_gl_run_skycapture(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    uint64_t h = _oak_sky_hash(v);
    if (h == f->sky_hash) return OAK_OK; /* the maps are a cached target */
    oak_result r = sky_setup(f);
    if (r) return r;
    /* the head and image are made in a host copy of the buffer's layout */
    float *host = oak_alloc(OAK_GL_SKY_BYTES);
    if (!host) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for the sky image");
    size_t texels = _oak_sky_prepare(host, v, !f->sky_brdf);
    /* the last capture's shader stores land before this client copy */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    r = _oak_gl_buffer_upload(&f->sky, 0, host, (size_t)OAK_GPU_SKY_HEAD * 16);
    if (!r && texels)
        r = _oak_gl_buffer_upload(&f->sky, (size_t)OAK_GPU_SKY_IMAGE_AT * 16,
                                  host + (size_t)OAK_GPU_SKY_IMAGE_AT * 4, texels * 16);
    oak_free(host);
    if (r) return r;
    /* through the clouds: their noise table baked first (and the view
       block and the clouds' buffer bound, as the capture reads them) */
    oak_gpu_clouds cl;
    float P[3];
    if (_oak_sky_cloud_point(v, &cl, P) && (r = _oak_gl_clouds_bake(b, v))) return r;
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_SKY, f->sky.id);
    uint32_t first = OAK_GPU_SKY_CAPTURE_TEXELS + OAK_SKY_BRDF_SIZE * OAK_SKY_BRDF_SIZE;
    glUseProgram(f->prog_skycapture);
    glUniform1ui(0, 0u); /* the capture (step 1 bakes the clouds' table) */
    glDispatchCompute((first + 63) / 64, 1, 1);
    /* inside the pass: the filter reads the capture's mips just written */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(f->prog_skyfilter);
    glDispatchCompute((OAK_GPU_SKY_FILTER_TEXELS + 63) / 64, 1, 1);
    f->sky_hash = h;
    f->sky_brdf = true;
    f->sky_captures++;
    return OAK_OK; /* the readers' barriers come from their rows (gl_track.c) */
}

void _oak_gl_sky_release(_oak_gl_frame *f) {
    if (f->prog_skycapture) glDeleteProgram(f->prog_skycapture);
    if (f->prog_skyfilter) glDeleteProgram(f->prog_skyfilter);
    f->prog_skycapture = f->prog_skyfilter = 0;
    _oak_gl_buffer_release(&f->sky);
    f->sky_hash = 0;
}

oak_result _oak_gl_sky_read(_oak_gl_frame *f, float *texels, size_t count, uint32_t *captures) {
    if (captures) *captures = f->sky_captures;
    if (!texels) return OAK_OK;
    if (count < (size_t)OAK_GPU_SKY_TEXELS * 4)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl: the sky maps need %u floats",
                         (unsigned)OAK_GPU_SKY_TEXELS * 4);
    if (!f->sky.id) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl: no sky captured yet");
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetNamedBufferSubData(f->sky.id, 0, (GLsizeiptr)OAK_GL_SKY_BYTES, texels);
    return _oak_gl_check("sky read-back") ? oak_error(OAK_ERROR_DEVICE, "gl: sky read-back failed")
                                          : OAK_OK;
}
