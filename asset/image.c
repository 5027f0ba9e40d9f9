/* Image files through stb: decoding PNG, JPEG, HDR and the rest stb_image
 * reads (to RGBA8 or RGBA32F), and PNG writing. Every failure names the file;
 * decoded pixels are copied into engine-allocated memory. */
#include <limits.h>
#include <string.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "registry.h"

oak_result oak_image_load(const char *path, uint32_t *width, uint32_t *height, bool *is_float,
                          void **pixels) {
    *width = *height = 0;
    *is_float = false;
    *pixels = NULL;
    void *file;
    size_t size;
    oak_result r = oak_read_file(path, &file, &size);
    if (r) return r;
    if (size == 0 || size > INT_MAX) {
        oak_free(file);
        return oak_error(OAK_ERROR_PARSE, "%s: %s", path,
                         size ? "file too large for an image" : "empty file");
    }
    const stbi_uc *buf = file;
    int len = (int)size, w = 0, h = 0, comp = 0;
    if (!stbi_info_from_memory(buf, len, &w, &h, &comp)) {
        const char *why = stbi_failure_reason();
        oak_free(file);
        return oak_error(OAK_ERROR_PARSE, "%s: not a readable image (%s)", path,
                         why ? why : "unknown format");
    }
    if (w <= 0 || h <= 0) {
        oak_free(file);
        return oak_error(OAK_ERROR_PARSE, "%s: image has zero size (%dx%d)", path, w, h);
    }
    if (w > OAK_MAX_TEXTURE_SIZE || h > OAK_MAX_TEXTURE_SIZE) {
        oak_free(file);
        return oak_error(OAK_ERROR_LIMIT, "%s: image is %dx%d, over the %d limit", path, w, h,
                         OAK_MAX_TEXTURE_SIZE);
    }
    bool hdr = stbi_is_hdr_from_memory(buf, len) != 0;
    void *decoded = hdr ? (void *)stbi_loadf_from_memory(buf, len, &w, &h, &comp, 4)
                        : (void *)stbi_load_from_memory(buf, len, &w, &h, &comp, 4);
    oak_free(file);
    if (!decoded) {
        const char *why = stbi_failure_reason();
        return oak_error(OAK_ERROR_PARSE, "%s: corrupt image (%s)", path, why ? why : "?");
    }
    size_t bytes = (size_t)w * (size_t)h * (hdr ? 16u : 4u);
    void *copy = oak_alloc(bytes);
    if (!copy) {
        stbi_image_free(decoded);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory for %dx%d pixels", path, w, h);
    }
    memcpy(copy, decoded, bytes);
    stbi_image_free(decoded);
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    *is_float = hdr;
    *pixels = copy;
    return OAK_OK;
}

typedef struct png_sink {
    uint8_t *data;
    size_t size, capacity;
    bool failed;
} png_sink;

static void png_put(void *user, void *data, int size) {
    png_sink *s = user;
    if (s->failed || size <= 0) return;
    if (s->size + (size_t)size > s->capacity) {
        size_t cap = s->capacity ? s->capacity : 4096;
        while (cap < s->size + (size_t)size) cap *= 2;
        uint8_t *p = oak_realloc(s->data, cap);
        if (!p) {
            s->failed = true;
            return;
        }
        s->data = p;
        s->capacity = cap;
    }
    memcpy(s->data + s->size, data, (size_t)size);
    s->size += (size_t)size;
}

oak_result oak_image_write_png(const char *path, uint32_t width, uint32_t height,
                               const uint8_t *rgba) {
    if (!path || !rgba)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "write png: no %s given",
                         path ? "pixels" : "path");
    if (!width || !height || width > OAK_MAX_OUTPUT_SIZE || height > OAK_MAX_OUTPUT_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: cannot write a %ux%u image", path, width,
                         height);
    png_sink sink = {0};
    int ok =
        stbi_write_png_to_func(png_put, &sink, (int)width, (int)height, 4, rgba, (int)(width * 4));
    oak_result r;
    if (!ok || sink.failed) {
        r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: PNG encoding failed", path);
    } else {
        r = oak_write_file(path, sink.data, sink.size);
    }
    oak_free(sink.data);
    return r;
}
