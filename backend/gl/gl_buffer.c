/* Growable GPU buffers on immutable storage: growing makes a buffer twice
 * the size and copies the old contents GPU-side, so capacity is kept and a
 * warm frame never reallocates. */
#include "gl_internal.h"

oak_result _oak_gl_buffer_reserve(_oak_gl_buffer *b, size_t bytes, bool keep) {
    if (bytes <= b->capacity && b->id) return OAK_OK;
    size_t cap = b->capacity ? b->capacity : 256;
    while (cap < bytes) cap *= 2;
    GLuint id = 0;
    glCreateBuffers(1, &id);
    /* Drain earlier errors so an out-of-memory below is ours. */
    while (glGetError() != GL_NO_ERROR) {
    }
    glNamedBufferStorage(id, (GLsizeiptr)cap, NULL, GL_DYNAMIC_STORAGE_BIT);
    if (glGetError() == GL_OUT_OF_MEMORY) {
        glDeleteBuffers(1, &id);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for a %zu-byte buffer", cap);
    }
    if (b->id) {
        if (keep && b->size) glCopyNamedBufferSubData(b->id, id, 0, 0, (GLsizeiptr)b->size);
        glDeleteBuffers(1, &b->id);
    }
    b->id = id;
    b->capacity = cap;
    if (!keep) b->size = 0;
    return OAK_OK;
}

oak_result _oak_gl_buffer_upload(_oak_gl_buffer *b, size_t offset, const void *data, size_t bytes) {
    if (!bytes) return OAK_OK;
    oak_result r = _oak_gl_buffer_reserve(b, offset + bytes, true);
    if (r != OAK_OK) return r;
    glNamedBufferSubData(b->id, (GLintptr)offset, (GLsizeiptr)bytes, data);
    if (offset + bytes > b->size) b->size = offset + bytes;
    return OAK_OK;
}

void _oak_gl_buffer_release(_oak_gl_buffer *b) {
    if (b->id) glDeleteBuffers(1, &b->id);
    *b = (_oak_gl_buffer){0};
}
