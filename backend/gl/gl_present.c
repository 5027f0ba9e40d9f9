/* Native presentation on OpenGL: with a window the backend renders in the
 * window's own 4.5 core context (GLFW's, adopted through its hook: two
 * contexts on two EGL displays share nothing), and presenting is the
 * picture's buffer and the panel unpacked into a texture, blitted upside
 * down into the default framebuffer; the caller swaps. */
#include "gl_internal.h"

oak_result _oak_gl_present(_oak_gl_backend *b, uint32_t width, uint32_t height,
                           const oak_present_panel *panel, uint8_t *capture) {
    if (!b->ctx.window) return oak_error(OAK_ERROR_UNSUPPORTED, "gl: no window to present to");
    const _oak_gl_targets *t = &b->targets;
    uint32_t pw = t->pic_width, ph = t->pic_height;
    if (!pw || !ph) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl: no frame to present");
    if (!b->present_tex || b->present_w != pw || b->present_h != ph) {
        _oak_gl_present_destroy(b);
        glCreateTextures(GL_TEXTURE_2D, 1, &b->present_tex);
        glTextureStorage2D(b->present_tex, 1, GL_RGBA8, (GLsizei)pw, (GLsizei)ph);
        glCreateFramebuffers(1, &b->present_fbo);
        glNamedFramebufferTexture(b->present_fbo, GL_COLOR_ATTACHMENT0, b->present_tex, 0);
        b->present_w = pw, b->present_h = ph;
    }
    /* the output buffer was written by the frame's last pass in compute */
    glMemoryBarrier(GL_PIXEL_BUFFER_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, t->out.id);
    glTextureSubImage2D(b->present_tex, 0, 0, 0, (GLsizei)pw, (GLsizei)ph, GL_RGBA,
                        GL_UNSIGNED_BYTE, NULL);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if (panel && panel->rgba && panel->x < pw && panel->y < ph && panel->width && panel->height) {
        uint32_t w = panel->width < pw - panel->x ? panel->width : pw - panel->x;
        uint32_t h = panel->height < ph - panel->y ? panel->height : ph - panel->y;
        glPixelStorei(GL_UNPACK_ROW_LENGTH, (GLint)panel->stride);
        glTextureSubImage2D(b->present_tex, 0, (GLint)panel->x, (GLint)panel->y, (GLsizei)w,
                            (GLsizei)h, GL_RGBA, GL_UNSIGNED_BYTE, panel->rgba);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    }
    /* texture row 0 is the picture's top; the framebuffer's row 0 its bottom */
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_FRAMEBUFFER_SRGB); /* the picture is sRGB-encoded already */
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitNamedFramebuffer(b->present_fbo, 0, 0, 0, (GLint)pw, (GLint)ph, 0, (GLint)height,
                           (GLint)width, 0, GL_COLOR_BUFFER_BIT,
                           pw == width && ph == height ? GL_NEAREST : GL_LINEAR);
    if (capture) { /* the back buffer as presented, bottom row first, flipped */
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        glReadBuffer(GL_BACK);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glPixelStorei(GL_PACK_ROW_LENGTH, 0);
        glReadPixels(0, 0, (GLsizei)width, (GLsizei)height, GL_RGBA, GL_UNSIGNED_BYTE, capture);
        size_t row = (size_t)width * 4;
        for (uint32_t y = 0; y < height / 2; y++) {
            uint8_t *a = capture + y * row, *z = capture + (height - 1 - y) * row;
            for (size_t i = 0; i < row; i++) {
                uint8_t s = a[i];
                a[i] = z[i], z[i] = s;
            }
        }
    }
    if (_oak_gl_check("present"))
        return oak_error(OAK_ERROR_DEVICE, "gl: presenting the %ux%u picture failed", pw, ph);
    return OAK_OK;
}

void _oak_gl_present_destroy(_oak_gl_backend *b) {
    if (b->present_fbo) glDeleteFramebuffers(1, &b->present_fbo);
    if (b->present_tex) glDeleteTextures(1, &b->present_tex);
    b->present_fbo = b->present_tex = 0;
    b->present_w = b->present_h = 0;
}
