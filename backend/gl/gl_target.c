/* The frame's render targets (depth, visibility ids, HDR colour, and the
 * RGBA8 bytes before and after FXAA as storage buffers, as the shared passes
 * write them) and the readback that hands the picture to the caller. */
#include "gl_internal.h"

static GLuint make_tex(GLenum format, uint32_t w, uint32_t h) {
    GLuint t = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, format, (GLsizei)w, (GLsizei)h);
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return t;
}

void _oak_gl_targets_release(_oak_gl_targets *t) {
    GLuint tex[] = {t->depth, t->vis, t->hdr};
    for (int i = 0; i < 3; i++)
        if (tex[i]) glDeleteTextures(1, &tex[i]);
    if (t->vis_fbo) glDeleteFramebuffers(1, &t->vis_fbo);
    if (t->blend_fbo) glDeleteFramebuffers(1, &t->blend_fbo);
    _oak_gl_buffer_release(&t->ldr);
    _oak_gl_buffer_release(&t->out);
    *t = (_oak_gl_targets){0};
}

oak_result _oak_gl_targets_resize(_oak_gl_targets *t, uint32_t width, uint32_t height,
                                  uint32_t out_width, uint32_t out_height) {
    uint32_t ow = out_width > width ? out_width : width,
             oh = out_height > height ? out_height : height;
    if (t->hdr && t->width == width && t->height == height && ow <= t->out_width &&
        oh <= t->out_height)
        return OAK_OK;
    if (!width || !height || width > OAK_MAX_OUTPUT_SIZE || height > OAK_MAX_OUTPUT_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl: output size %ux%u is out of range", width,
                         height);
    _oak_gl_targets_release(t);
    while (glGetError() != GL_NO_ERROR) {
    }
    t->width = width, t->height = height;
    t->out_width = ow, t->out_height = oh, t->pic_width = width, t->pic_height = height;
    t->depth = make_tex(GL_DEPTH_COMPONENT32F, width, height);
    t->vis = make_tex(GL_RG32UI, width, height);
    t->hdr = make_tex(GL_RGBA32F, ow, oh);
    bool oom = glGetError() == GL_OUT_OF_MEMORY;
    size_t bytes = (size_t)ow * oh * 4;
    if (oom || _oak_gl_buffer_reserve(&t->ldr, bytes, false) != OAK_OK ||
        _oak_gl_buffer_reserve(&t->out, bytes, false) != OAK_OK) {
        _oak_gl_targets_release(t);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %ux%u targets", width,
                         height);
    }
    glCreateFramebuffers(1, &t->vis_fbo);
    glNamedFramebufferTexture(t->vis_fbo, GL_DEPTH_ATTACHMENT, t->depth, 0);
    glNamedFramebufferTexture(t->vis_fbo, GL_COLOR_ATTACHMENT0, t->vis, 0);
    glNamedFramebufferDrawBuffer(t->vis_fbo, GL_COLOR_ATTACHMENT0);
    glCreateFramebuffers(1, &t->blend_fbo);
    glNamedFramebufferTexture(t->blend_fbo, GL_DEPTH_ATTACHMENT, t->depth, 0);
    glNamedFramebufferTexture(t->blend_fbo, GL_COLOR_ATTACHMENT0, t->hdr, 0);
    glNamedFramebufferDrawBuffer(t->blend_fbo, GL_COLOR_ATTACHMENT0);
    GLenum st = glCheckNamedFramebufferStatus(t->vis_fbo, GL_FRAMEBUFFER);
    if (st == GL_FRAMEBUFFER_COMPLETE)
        st = glCheckNamedFramebufferStatus(t->blend_fbo, GL_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        _oak_gl_targets_release(t);
        return oak_error(OAK_ERROR_DEVICE, "gl: visibility framebuffer incomplete (0x%04x)", st);
    }
    return OAK_OK;
}

oak_result _oak_gl_read_rgba8(const _oak_gl_targets *t, uint8_t *rgba, size_t size) {
    size_t need = (size_t)t->pic_width * t->pic_height * 4;
    if (size < need)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "gl: read_pixels needs %zu bytes for %ux%u, got %zu", need, t->pic_width,
                         t->pic_height, size);
    /* the frame's readback row already issued its barrier (gl_track.c) */
    glGetNamedBufferSubData(t->out.id, 0, (GLsizeiptr)need, rgba);
    if (_oak_gl_check("glGetNamedBufferSubData"))
        return oak_error(OAK_ERROR_DEVICE, "gl: reading back the %ux%u picture failed",
                         t->pic_width, t->pic_height);
    return OAK_OK;
}
