/* Image files: PNG and JPEG decoded by stb, WebP by libwebp, Radiance HDR by
 * oak's bounded reader, each only after image_probe.c has named the format by signature
 * and held its header to the limits; and PNG writing. Every failure names
 * the file; decoded pixels are in engine-allocated memory. */
#include <limits.h>
#include <string.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#include <webp/decode.h>

#include "image_format.h"
#include "registry.h"

oak_result _oak_webp_decode(uint8_t *rgba, const _oak_image_info *info, const uint8_t *data,
                            size_t size, const char *name) {
    size_t stride = (size_t)info->width * 4;
    if (!WebPDecodeRGBAInto(data, size, rgba, stride * info->height, (int)stride))
        return oak_error(OAK_ERROR_PARSE, "%s: corrupt WebP image", name);
    return OAK_OK;
}

oak_result oak_image_load_memory(uint32_t *width, uint32_t *height, bool *is_float, void **pixels,
                                 const void *data, size_t size, const char *name) {
    *width = *height = 0;
    *is_float = false;
    *pixels = NULL;
    if (!name) name = "<memory>";
    if (!data && size) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: no image data", name);
    _oak_image_info info;
    oak_result r = _oak_image_probe(&info, data, size, name);
    if (r) return r;
    size_t bytes = _oak_image_decoded_bytes(&info);
    void *out = oak_alloc(bytes);
    if (!out)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory for %ux%u texels", name,
                         info.width, info.height);
    if (info.kind == _OAK_IMAGE_HDR) {
        r = _oak_hdr_decode(out, &info, data, size, name);
    } else if (info.kind == _OAK_IMAGE_WEBP) {
        r = _oak_webp_decode(out, &info, data, size, name);
    } else if (size > INT_MAX) {
        r = oak_error(OAK_ERROR_LIMIT, "%s: %zu bytes, more than the decoder takes", name, size);
    } else if (info.kind == _OAK_IMAGE_PNG &&
               (r = _oak_png_check_stream(&info, data, size, name))) {
        /* refused before stb could spin on it */
    } else {
        /* The signature matched, so stb takes the decoder of that format. */
        int w = 0, h = 0, comp = 0;
        stbi_uc *decoded = stbi_load_from_memory(data, (int)size, &w, &h, &comp, 4);
        if (!decoded) {
            const char *why = stbi_failure_reason();
            r = oak_error(OAK_ERROR_PARSE, "%s: corrupt image (%s)", name, why ? why : "?");
        } else if ((uint32_t)w != info.width || (uint32_t)h != info.height) {
            r = oak_error(OAK_ERROR_PARSE, "%s: decoded as %dx%d, but its header says %ux%u", name,
                          w, h, info.width, info.height);
        } else {
            memcpy(out, decoded, bytes);
        }
        stbi_image_free(decoded);
    }
    if (r) {
        oak_free(out);
        return r;
    }
    *width = info.width;
    *height = info.height;
    *is_float = info.kind == _OAK_IMAGE_HDR;
    *pixels = out;
    return OAK_OK;
}

oak_result oak_image_load(const char *path, uint32_t *width, uint32_t *height, bool *is_float,
                          void **pixels) {
    *width = *height = 0;
    *is_float = false;
    *pixels = NULL;
    void *file;
    size_t size;
    oak_result r = oak_read_file(path, &file, &size);
    if (r) return r;
    r = oak_image_load_memory(width, height, is_float, pixels, file, size, path);
    oak_free(file);
    return r;
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
