/* The skin pass on OpenGL: shaders/skin.comp (the file the Vulkan backend
 * compiles), one dispatch for every mesh posed by its palette whose pose
 * moved since the pass last skinned it, writing its posed vertices and its
 * previous pose into its own range of the pools (oak_gpu.h "The skin
 * pass"). The meshes are queued as the upload syncs them; a frame where no
 * pose moved skips the pass and its barriers (gl_frame.c). */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

oak_result _oak_gl_run_skin(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    uint32_t n = f->skin_q.count, most = f->skin_q.vertices;
    f->skin_q.count = f->skin_q.vertices = 0; /* consumed: the next syncs queue afresh */
    if (!n) return OAK_OK;
    oak_result r = OAK_OK;
    if (!f->prog_skin && (r = _oak_gl_compute(&f->prog_skin, "skin", oak_gl_src_skin_comp)))
        return r;
    uint64_t words = _oak_gpu_skin_words(f->skin_q.data, n);
    if (!OAK_GROW(f->skin_words, f->skin_words_cap, words))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: skin jobs");
    _oak_gpu_skin_fill(f->skin_words, f->skin_q.data, f->skin_q.first, n);
    if ((r = _oak_gl_buffer_upload(&f->skin, 0, f->skin_words, (size_t)words * 16))) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_SKIN, f->skin.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_POSITIONS, f->positions.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_ATTRIBUTES, f->attributes.id);
    glUseProgram(f->prog_skin);
    glDispatchCompute((most + OAK_GPU_SKIN_GROUP - 1) / OAK_GPU_SKIN_GROUP, n, 1);
    return OAK_OK;
}

void _oak_gl_skin_release(_oak_gl_frame *f) {
    if (f->prog_skin) glDeleteProgram(f->prog_skin);
    f->prog_skin = 0;
    _oak_gl_buffer_release(&f->skin);
    _oak_gpu_skin_queue_free(&f->skin_q);
    oak_free(f->skin_words);
    f->skin_words = NULL, f->skin_words_cap = 0;
}
