/* Reflection probes on OpenGL: the OAK_B_PROBES buffer (records and maps,
 * render/probe_bake.c fills it) goes up when the view's probe_version moves,
 * an empty head before any probe, and stays bound for the resolve and the
 * BLEND pass (_oak_gl_bind_common); the HDR picture read back for a bake. */
#include "gl_gpu.h"
#include "render/aerial.h"

#define OAK_GL_PROBE_BYTES ((size_t)OAK_GPU_PROBE_TEXELS * 16)

oak_result _oak_gl_probes_upload(_oak_gl_frame *f, const oak_render_view *v) {
    oak_result r;
    if (!f->probes.id) {
        GLint bindings = 0;
        glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
        if (bindings <= OAK_B_PROBES)
            return oak_error(OAK_ERROR_DEVICE,
                             "gl: %d storage buffer bindings, the reflection probes need %d",
                             bindings, OAK_B_PROBES + 1);
        static const float empty[4] = {0, 0, 0, 0};
        if ((r = _oak_gl_buffer_reserve(&f->probes, OAK_GL_PROBE_BYTES, false)) ||
            (r = _oak_gl_buffer_upload(&f->probes, 0, empty, sizeof empty)))
            return r;
        f->probe_version = 0;
    }
    if (v->probe_version == f->probe_version) return OAK_OK;
    if (v->probe_data) {
        /* the head, the records and the maps in use */
        size_t texels = OAK_GPU_PROBE_MAPS_AT + (size_t)v->probe_count * OAK_GPU_PROBE_MAP_TEXELS;
        r = _oak_gl_buffer_upload(&f->probes, 0, v->probe_data, texels * 16);
    } else {
        static const float empty[4] = {0, 0, 0, 0};
        r = _oak_gl_buffer_upload(&f->probes, 0, empty, sizeof empty);
    }
    if (r) return r;
    f->probe_version = v->probe_version;
    return OAK_OK;
}

/* The aerial perspective volume: a buffer of the whole volume, made once,
   read by the shaders as a texture buffer (RGBA32F at texture unit
   OAK_B_AERIAL: the resolve has no storage block left, GL's 16 for a
   compute shader) only under OAK_GPU_AERIAL; uploaded when the view's
   aerial_version moves. */
oak_result _oak_gl_aerial_upload(_oak_gl_frame *f, const oak_render_view *v) {
    oak_result r;
    const size_t bytes = (size_t)OAK_AERIAL_TEXELS * 16;
    if (!f->aerial.id) {
        if ((r = _oak_gl_buffer_reserve(&f->aerial, bytes, false))) return r;
        glCreateTextures(GL_TEXTURE_BUFFER, 1, &f->aerial_tex);
        glTextureBuffer(f->aerial_tex, GL_RGBA32F, f->aerial.id);
        if (_oak_gl_check("glTextureBuffer"))
            return oak_error(OAK_ERROR_DEVICE,
                             "gl: the aerial perspective's texture buffer failed");
        f->aerial_src = NULL, f->aerial_version = 0;
    }
    if (!v->aerial || (v->aerial == f->aerial_src && v->aerial_version == f->aerial_version))
        return OAK_OK;
    if ((r = _oak_gl_buffer_upload(&f->aerial, 0, v->aerial, bytes))) return r;
    f->aerial_src = v->aerial, f->aerial_version = v->aerial_version;
    return OAK_OK;
}

oak_result _oak_gl_read_hdr(const _oak_gl_targets *t, float *rgba, size_t count) {
    size_t need = (size_t)t->width * t->height * 4;
    if (!rgba || count < need)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl: read_hdr needs %zu floats for %ux%u",
                         need, t->width, t->height);
    /* the resolve wrote it as an image, the BLEND pass as a colour target */
    glMemoryBarrier(GL_TEXTURE_UPDATE_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
    /* the frame's corner of it (TAA upsampling may have made it larger) */
    glGetTextureSubImage(t->hdr, 0, 0, 0, 0, (GLsizei)t->width, (GLsizei)t->height, 1, GL_RGBA,
                         GL_FLOAT, (GLsizei)(need * sizeof(float)), rgba);
    if (_oak_gl_check("glGetTextureSubImage"))
        return oak_error(OAK_ERROR_DEVICE, "gl: reading back the %ux%u HDR picture failed",
                         t->width, t->height);
    return OAK_OK;
}
