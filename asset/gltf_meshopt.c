/* EXT_meshopt_compression: a bufferView whose bytes are stored compressed
 * (vertex or index codec, then an optional filter) in another buffer range.
 * Decoded once at load by meshoptimizer's bounds-checked decoders; the
 * view then reads the decoded bytes, and its own buffer (often a data-less
 * fallback) is never touched. */
#include <string.h>

#include <meshoptimizer.h>

#include "gltf_internal.h"

typedef enum mo_mode { MO_ATTRIBUTES, MO_TRIANGLES, MO_INDICES } mo_mode;
typedef enum mo_filter { MO_NONE, MO_OCTAHEDRAL, MO_QUATERNION, MO_EXPONENTIAL } mo_filter;

static int pick(const char *s, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

oak_result _oak_gltf_meshopt_view(gltf_ctx *c, const cJSON *mo, const char *path, gltf_view *v) {
    static const char *const modes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
    static const char *const filters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
    char p[128];
    snprintf(p, sizeof p, "%s.extensions.EXT_meshopt_compression", path);
    int32_t buf;
    uint32_t off, len, stride, count;
    const char *mode_s, *filter_s;
    oak_result r;
    if ((r = _oak_gltf_index(c, mo, p, "buffer", c->buffer_count, "buffers", &buf))) return r;
    if (buf < 0) return oak_error(OAK_ERROR_PARSE, "%s: %s.buffer is missing", c->file, p);
    if ((r = _oak_gltf_uint(c, mo, p, "byteOffset", false, 0, &off)) ||
        (r = _oak_gltf_uint(c, mo, p, "byteLength", true, 0, &len)) ||
        (r = _oak_gltf_uint(c, mo, p, "byteStride", true, 0, &stride)) ||
        (r = _oak_gltf_uint(c, mo, p, "count", true, 0, &count)) ||
        (r = _oak_gltf_string(c, mo, p, "mode", &mode_s)) ||
        (r = _oak_gltf_string(c, mo, p, "filter", &filter_s)))
        return r;
    int mode = mode_s ? pick(mode_s, modes, 3) : -1;
    int filter = filter_s ? pick(filter_s, filters, 4) : MO_NONE;
    if (mode < 0)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.mode must be ATTRIBUTES, TRIANGLES or INDICES",
                         c->file, p);
    if (filter < 0)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s.filter must be NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL",
                         c->file, p);
    /* the strides each codec and filter is defined for */
    bool ok = mode == MO_ATTRIBUTES ? stride % 4 == 0 && stride >= 4 && stride <= 256
                                    : stride == 2 || stride == 4;
    if (mode == MO_TRIANGLES) ok = ok && count % 3 == 0;
    if (filter != MO_NONE) ok = ok && mode == MO_ATTRIBUTES;
    if (filter == MO_OCTAHEDRAL) ok = ok && (stride == 4 || stride == 8);
    if (filter == MO_QUATERNION) ok = ok && stride == 8;
    if (!ok)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s: byteStride %u and count %u do not fit mode %s%s%s", c->file, p,
                         stride, count, modes[mode], filter ? " with filter " : "",
                         filter ? filters[filter] : "");
    const gltf_buffer *src = &c->buffers[buf];
    if (!src->data)
        return oak_error(OAK_ERROR_PARSE, "%s: %s reads buffers[%d], which has no data", c->file, p,
                         buf);
    if ((uint64_t)off + len > src->size)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s (offset %u + length %u) exceeds buffers[%d] (%zu bytes)", c->file,
                         p, off, len, buf, src->size);
    uint64_t bytes = (uint64_t)count * stride;
    if (bytes > v->length)
        return oak_error(OAK_ERROR_PARSE, "%s: %s decodes to %llu bytes, more than the view's %zu",
                         c->file, p, (unsigned long long)bytes, v->length);
    uint8_t *out = _oak_gltf_scratch(c, bytes ? (size_t)bytes : 1);
    if (!out) return _oak_gltf_oom(c);
    const unsigned char *in = src->data + off;
    int rc = mode == MO_ATTRIBUTES  ? meshopt_decodeVertexBuffer(out, count, stride, in, len)
             : mode == MO_TRIANGLES ? meshopt_decodeIndexBuffer(out, count, stride, in, len)
                                    : meshopt_decodeIndexSequence(out, count, stride, in, len);
    if (rc != 0)
        return oak_error(OAK_ERROR_PARSE, "%s: %s: the %s stream does not decode (meshopt %d)",
                         c->file, p, modes[mode], rc);
    if (filter == MO_OCTAHEDRAL) meshopt_decodeFilterOct(out, count, stride);
    if (filter == MO_QUATERNION) meshopt_decodeFilterQuat(out, count, stride);
    if (filter == MO_EXPONENTIAL) meshopt_decodeFilterExp(out, count, stride);
    v->decoded = out;
    v->length = (size_t)bytes;
    return OAK_OK;
}
