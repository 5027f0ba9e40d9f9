/* The clouds and cloudmix passes on OpenGL: shaders/clouds.comp (the noise
 * table baked when the buffer is new, the shadow map, the march; the step
 * in a uniform, a storage barrier between steps) and shaders/cloudmix.comp
 * (the march upsampled by depth over the HDR image in place). The buffer
 * stays bound at OAK_B_CLOUDS for the resolve and the BLEND pass
 * (_oak_gl_bind_common). Programs are made on first use. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/clouds.h"

oak_result _oak_gl_clouds_bake(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = OAK_OK;
    if (!f->prog_clouds) r = _oak_gl_compute(&f->prog_clouds, "clouds", oak_gl_src_clouds_comp);
    /* skycapture.comp's step 1 bakes the table (as on Vulkan) */
    if (!r && !f->prog_skycapture)
        r = _oak_gl_compute(&f->prog_skycapture, "skycapture", oak_gl_src_skycapture_comp);
    oak_gpu_clouds c;
    _oak_clouds_fill(&c, v, t->width, t->height);
    if (r || (r = _oak_gl_buffer_reserve(&f->clouds, (size_t)_oak_clouds_texels(&c) * 16, false)))
        return r;
    _oak_gl_bind_common(f, &f->draws);
    /* the table is baked once per buffer (a new one starts empty) */
    if (f->clouds_baked == f->clouds.id) return OAK_OK;
    glUseProgram(f->prog_skycapture);
    glUniform1ui(0, 1u);
    glDispatchCompute((OAK_GPU_CLOUD_NOISE_TEXELS + 63) / 64, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT); /* its readers: the capture, the shadow map */
    f->clouds_baked = f->clouds.id;
    return OAK_OK;
}

oak_result _oak_gl_run_clouds(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = _oak_gl_clouds_bake(b, v); /* unless the sky capture baked it */
    if (r) return r;
    oak_gpu_clouds c;
    _oak_clouds_fill(&c, v, t->width, t->height);
    glBindTextureUnit(OAK_B_DEPTH, t->depth);
    glUseProgram(f->prog_clouds);
    const uint32_t S = OAK_CLOUD_SHADOW_SIZE;
    uint32_t m[3]; /* blocks x layers: layer 0 the due texels (_oak_clouds_march_grid) */
    _oak_clouds_march_grid(&c, m);
    _oak_gl_dispatch_step(OAK_CLOUD_STEP_SHADOW, true, S, S);
    /* the march reads the shadow map */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUniform1ui(0, OAK_CLOUD_STEP_MARCH);
    glDispatchCompute((m[0] + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                      (m[1] + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, m[2]);
    return OAK_OK; /* the next reader's barrier comes from its row (gl_track.c) */
}

oak_result _oak_gl_run_cloudmix(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = OAK_OK;
    if (!f->prog_cloudmix &&
        (r = _oak_gl_compute(&f->prog_cloudmix, "cloudmix", oak_gl_src_cloudmix_comp)))
        return r;
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_CLOUDS, f->clouds.id);
    glBindImageTexture(0, t->hdr, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    glBindTextureUnit(OAK_B_DEPTH, t->depth);
    if (f->aerial_tex) glBindTextureUnit(OAK_B_AERIAL, f->aerial_tex); /* the air over them */
    glUseProgram(f->prog_cloudmix);
    _oak_gl_dispatch_output(t);
    return OAK_OK;
}

void _oak_gl_clouds_release(_oak_gl_frame *f) {
    if (f->prog_clouds) glDeleteProgram(f->prog_clouds);
    if (f->prog_cloudmix) glDeleteProgram(f->prog_cloudmix);
    f->prog_clouds = f->prog_cloudmix = 0;
    f->clouds_baked = 0;
    _oak_gl_buffer_release(&f->clouds);
}
