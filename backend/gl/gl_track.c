/* GL memory barriers derived from the pass table: each target remembers
 * whether it was written since the last glMemoryBarrier that covers a way of
 * reading it, so a pass gets exactly the barrier bits its reads need. */
#include "gl_gpu.h"

/* A target in a buffer (records, packed RGBA8) or an image. */
static bool is_buffer(oak_target_id t) {
    oak_target_format fmt = _oak_target_info(t)->format;
    return fmt == OAK_TARGET_BUFFER || fmt == OAK_TARGET_RGBA8;
}

/* The barrier bit that makes earlier writes visible to this use. */
static GLbitfield use_bit(oak_target_id t, oak_use u) {
    switch (u) {
    case OAK_USE_DEPTH_CLEAR:
    case OAK_USE_DEPTH_DRAW:
    case OAK_USE_DEPTH_TEST:
    case OAK_USE_COLOR_CLEAR:
    case OAK_USE_COLOR_BLEND:
        return GL_FRAMEBUFFER_BARRIER_BIT;
    case OAK_USE_SAMPLED:
        return GL_TEXTURE_FETCH_BARRIER_BIT;
    case OAK_USE_BUFFER_READ:
    case OAK_USE_SCENE_READ: /* vertices pulled from the pools (after the skin pass) */
        return GL_SHADER_STORAGE_BARRIER_BIT;
    case OAK_USE_STORAGE_READ:
    case OAK_USE_STORAGE_WRITE:
    case OAK_USE_STORAGE_RW:
        return is_buffer(t) ? GL_SHADER_STORAGE_BARRIER_BIT : GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;
    case OAK_USE_COPY_READ:
    case OAK_USE_HOST_READ: /* glGetBufferSubData */
        return GL_BUFFER_UPDATE_BARRIER_BIT;
    case OAK_USE_UPLOAD:
        /* a client copy over what a shader stored is ordered by this bit only */
        return is_buffer(t) ? GL_BUFFER_UPDATE_BARRIER_BIT : GL_TEXTURE_UPDATE_BARRIER_BIT;
    default:
        /* a layered map's draws and copies are
           framebuffer and copy operations GL orders too */
        return 0;
    }
}

void _oak_gl_track_before(_oak_gl_frame *f, const oak_pass_row *row) {
    GLbitfield bits = 0;
    for (uint32_t i = 0; i < OAK_PASS_MAX_USES && row->uses[i].use; i++) {
        const oak_target_use *u = &row->uses[i];
        const _oak_gl_track *t = &f->track[u->target];
        GLbitfield bit = use_bit(u->target, u->use);
        /* a read after any write; a whole overwrite only after a store,
           which GL does not order against later writes by itself */
        bool reads = !_oak_use_discards(u->use) && u->use != OAK_USE_UPLOAD;
        /* the scene's own uploads (glNamedBufferSubData) are ordered
           without one: only a shader's store (the skin pass) needs it */
        if (u->use == OAK_USE_SCENE_READ && !t->incoherent) continue;
        if (t->written && (reads || t->incoherent) && !(t->barriered & bit)) bits |= bit;
    }
    if (!bits) return;
    glMemoryBarrier(bits);
    for (uint32_t t = 0; t < OAK_TARGET_COUNT; t++) f->track[t].barriered |= bits;
}

void _oak_gl_track_after(_oak_gl_frame *f, const oak_pass_row *row) {
    for (uint32_t i = 0; i < OAK_PASS_MAX_USES && row->uses[i].use; i++) {
        const oak_target_use *u = &row->uses[i];
        if (!_oak_use_writes(u->use)) continue;
        _oak_gl_track *t = &f->track[u->target];
        t->written = true;
        t->incoherent = u->use == OAK_USE_STORAGE_WRITE || u->use == OAK_USE_STORAGE_RW;
        t->barriered = 0;
    }
}
