/* glTF binary access: checked JSON members, buffers (.glb chunk, base64 data:
 * URIs, external files), buffer views and accessors of every component type,
 * normalized or not, strided, with sparse substitution. Every offset, count
 * and stride is checked before a byte is read. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "gltf_internal.h"

/* ---- memory ------------------------------------------------------------- */

bool _oak_gltf_budget(gltf_ctx *c, size_t size) {
    if (size > GLTF_MAX_DECODED_BYTES - c->decoded) return false;
    c->decoded += size;
    return true;
}

void *_oak_gltf_alloc(gltf_ctx *c, size_t size) {
    if (!_oak_gltf_budget(c, size)) return NULL;
    void *p = oak_arena_alloc(c->arena, size ? size : 1, 16);
    if (p) memset(p, 0, size);
    return p;
}

void *_oak_gltf_scratch(gltf_ctx *c, size_t size) {
    if (!_oak_gltf_budget(c, size)) return NULL;
    void *p = oak_arena_alloc(&c->scratch, size ? size : 1, 16);
    if (p) memset(p, 0, size);
    return p;
}

char *_oak_gltf_strdup(gltf_ctx *c, const char *s) {
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    char *p = _oak_gltf_alloc(c, n);
    if (p) memcpy(p, s, n);
    return p;
}

oak_result _oak_gltf_oom(gltf_ctx *c) {
    if (c->decoded + ((size_t)1 << 20) > GLTF_MAX_DECODED_BYTES)
        return oak_error(OAK_ERROR_LIMIT, "%s: decoding needs more than the %zu MiB a load may use",
                         c->file, GLTF_MAX_DECODED_BYTES >> 20);
    return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", c->file);
}

/* ---- JSON members --------------------------------------------------------- */

oak_result _oak_gltf_uint(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                          bool required, uint32_t def, uint32_t *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required) return oak_error(OAK_ERROR_PARSE, "%s: %s.%s is missing", c->file, path, key);
        *out = def;
        return OAK_OK;
    }
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    if (!cJSON_IsNumber(v) || d < 0 || d > (double)(UINT32_MAX - 1) || d != floor(d))
        return oak_error(OAK_ERROR_PARSE, "%s: %s.%s must be a non-negative integer", c->file, path,
                         key);
    *out = (uint32_t)d;
    return OAK_OK;
}

oak_result _oak_gltf_index(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                           uint32_t limit, const char *array, int32_t *out) {
    *out = -1;
    if (!cJSON_GetObjectItemCaseSensitive(obj, key)) return OAK_OK;
    uint32_t v;
    oak_result r = _oak_gltf_uint(c, obj, path, key, true, 0, &v);
    if (r) return r;
    if (v >= limit)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.%s %u is past the end of %s (%u)", c->file, path,
                         key, v, array, limit);
    *out = (int32_t)v;
    return OAK_OK;
}

oak_result _oak_gltf_float(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                           float def, float *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        *out = def;
        return OAK_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 3.0e38)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.%s must be a finite number", c->file, path, key);
    *out = (float)v->valuedouble;
    return OAK_OK;
}

oak_result _oak_gltf_floats(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                            uint32_t n, float *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return OAK_OK;
    if (!cJSON_IsArray(v) || (uint32_t)cJSON_GetArraySize(v) != n)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.%s must be an array of %u numbers", c->file, path,
                         key, n);
    uint32_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || fabs(e->valuedouble) > 3.0e38)
            return oak_error(OAK_ERROR_PARSE, "%s: %s.%s[%u] must be a finite number", c->file,
                             path, key, i);
        out[i++] = (float)e->valuedouble;
    }
    return OAK_OK;
}

oak_result _oak_gltf_bool(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                          bool *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return OAK_OK;
    if (!cJSON_IsBool(v))
        return oak_error(OAK_ERROR_PARSE, "%s: %s.%s must be true or false", c->file, path, key);
    *out = cJSON_IsTrue(v);
    return OAK_OK;
}

oak_result _oak_gltf_string(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                            const char **out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!v) return OAK_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.%s must be a string", c->file, path, key);
    *out = v->valuestring;
    return OAK_OK;
}

oak_result _oak_gltf_array(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                           const cJSON **out, uint32_t *count) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    *count = 0;
    if (!v) return OAK_OK;
    if (!cJSON_IsArray(v))
        return oak_error(OAK_ERROR_PARSE, "%s: %s%s%s must be an array", c->file, path,
                         *path ? "." : "", key);
    *out = v;
    *count = (uint32_t)cJSON_GetArraySize(v);
    return OAK_OK;
}

oak_result _oak_gltf_object(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                            const cJSON **out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!v) return OAK_OK;
    if (!cJSON_IsObject(v))
        return oak_error(OAK_ERROR_PARSE, "%s: %s%s%s must be an object", c->file, path,
                         *path ? "." : "", key);
    *out = v;
    return OAK_OK;
}

/* ---- URIs ------------------------------------------------------------------ */

void _oak_gltf_warn(gltf_ctx *c, const char *fmt, ...) {
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    oak_log_warn("%s", line);
    c->g->warning_count++;
}

void _oak_gltf_clamp(gltf_ctx *c, const char *path, const char *key, float *v, float lo, float hi) {
    float to = *v < lo ? lo : *v > hi ? hi : *v;
    if (to == *v) return;
    _oak_gltf_warn(c, "%s: %s.%s %.9g is outside [%g, %g]; %g is used", c->file, path, key,
                   (double)*v, (double)lo, (double)hi, (double)to);
    *v = to;
}

static int b64_value(uint8_t ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

static oak_result decode_base64(gltf_ctx *c, const char *text, const char *path,
                                const uint8_t **data, size_t *size) {
    size_t len = strlen(text);
    while (len && text[len - 1] == '=') len--;
    uint8_t *out = _oak_gltf_scratch(c, len / 4 * 3 + 3);
    if (!out) return _oak_gltf_oom(c);
    size_t n = 0;
    uint32_t acc = 0, bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value((uint8_t)text[i]);
        if (v < 0)
            return oak_error(OAK_ERROR_PARSE, "%s: %s.uri has a bad base64 character at %zu",
                             c->file, path, i);
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    *data = out;
    *size = n;
    return OAK_OK;
}

static int hex_value(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* %XX escapes decoded into scratch (NUL-terminated; *size excludes it). */
static oak_result percent_decode(gltf_ctx *c, const char *text, const char *path, char **out,
                                 size_t *size) {
    (void)path;
    size_t n = strlen(text), k = 0;
    char *o = _oak_gltf_scratch(c, n + 1);
    if (!o) return _oak_gltf_oom(c);
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '%' && i + 2 < n + 1 && hex_value(text[i + 1]) >= 0 &&
            hex_value(text[i + 2]) >= 0) {
            o[k++] = (char)(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
            i += 2;
        } else {
            o[k++] = text[i];
        }
    }
    o[k] = 0;
    *out = o;
    *size = k;
    return OAK_OK;
}

oak_result _oak_gltf_uri_bytes(gltf_ctx *c, const char *uri, const char *path, const uint8_t **data,
                               size_t *size) {
    if (strncmp(uri, "data:", 5) == 0) {
        const char *comma = strchr(uri, ',');
        if (!comma)
            return oak_error(OAK_ERROR_PARSE, "%s: %s.uri is a data: URI without a comma", c->file,
                             path);
        if (comma - uri >= 7 && strncmp(comma - 7, ";base64", 7) == 0)
            return decode_base64(c, comma + 1, path, data, size);
        /* RFC 2397 without ";base64": the bytes are the text, %XX-escaped */
        _oak_gltf_warn(c, "%s: %s.uri is a percent-encoded data: URI, not base64; decoded", c->file,
                       path);
        char *text;
        oak_result pr = percent_decode(c, comma + 1, path, &text, size);
        if (!pr) *data = (const uint8_t *)text;
        return pr;
    }
    if (!c->base)
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "%s: %s.uri names an external file, which is not allowed here", c->file,
                         path);
    if (strstr(uri, "://"))
        return oak_error(OAK_ERROR_UNSUPPORTED, "%s: %s.uri \"%.64s\" is not a local file", c->file,
                         path, uri);
    /* Percent-decode: URIs escape spaces and such in file names. */
    char *rel;
    size_t k;
    oak_result pr = percent_decode(c, uri, path, &rel, &k);
    if (pr) return pr;
    if (k != strlen(rel))
        return oak_error(OAK_ERROR_PARSE, "%s: %s.uri decodes to a NUL byte", c->file, path);
    char full[4096], why[512];
    oak_result r = oak_path_confine(full, sizeof full, c->desc->asset_root, c->base, rel);
    if (r == OAK_ERROR_NOT_FOUND) {
        oak_path_join_dir(full, sizeof full, c->base, rel);
        return oak_error(OAK_ERROR_IO, "%s: %s.uri: cannot read %s (no such file)", c->file, path,
                         full);
    }
    void *bytes = NULL;
    size_t got = 0;
    if (!r) r = oak_read_file(full, &bytes, &got);
    if (r) { /* the reason is copied out first: oak_error formats into the same buffer */
        snprintf(why, sizeof why, "%s", oak_last_error());
        return oak_error(r, "%s: %s.uri: %s", c->file, path, why);
    }
    /* Keep it in scratch so every failure path frees it. */
    uint8_t *copy = oak_arena_alloc(&c->scratch, got ? got : 1, 16);
    if (!copy) {
        oak_free(bytes);
        return _oak_gltf_oom(c);
    }
    memcpy(copy, bytes, got);
    oak_free(bytes);
    *data = copy;
    *size = got;
    return OAK_OK;
}

/* ---- buffers and views ------------------------------------------------------ */

oak_result _oak_gltf_load_buffers(gltf_ctx *c) {
    const cJSON *arr;
    oak_result r = _oak_gltf_array(c, c->root, "", "buffers", &arr, &c->buffer_count);
    if (r) return r;
    c->buffers = _oak_gltf_scratch(c, sizeof(gltf_buffer) * c->buffer_count);
    if (!c->buffers) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *b;
    char path[64];
    cJSON_ArrayForEach(b, arr) {
        snprintf(path, sizeof path, "buffers[%u]", i);
        if (!cJSON_IsObject(b))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        uint32_t len;
        const char *uri;
        if ((r = _oak_gltf_uint(c, b, path, "byteLength", true, 0, &len))) return r;
        if ((r = _oak_gltf_string(c, b, path, "uri", &uri))) return r;
        const uint8_t *data;
        size_t size;
        if (uri) {
            if ((r = _oak_gltf_uri_bytes(c, uri, path, &data, &size))) return r;
        } else if (i == 0 && c->has_glb_bin) {
            data = c->glb_bin;
            size = c->glb_bin_size;
        } else {
            /* valid glTF when nothing reads it; a read fails (check_fit, view_bytes).
               EXT_meshopt_compression's fallback buffer is data-less by design:
               its views are decoded from elsewhere. */
            const cJSON *ext = cJSON_GetObjectItemCaseSensitive(b, "extensions");
            const cJSON *mo = cJSON_GetObjectItemCaseSensitive(ext, "EXT_meshopt_compression");
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mo, "fallback")))
                oak_log_debug("%s: %s is a meshopt fallback without data", c->file, path);
            else
                _oak_gltf_warn(
                    c, "%s: %s has no uri and no GLB BIN chunk; ignored while nothing reads it",
                    c->file, path);
            data = NULL;
            size = len;
        }
        if (size < len)
            return oak_error(OAK_ERROR_PARSE, "%s: %s.byteLength %u exceeds its %zu bytes of data",
                             c->file, path, len, size);
        c->buffers[i].data = data;
        c->buffers[i].size = len;
        i++;
    }

    r = _oak_gltf_array(c, c->root, "", "bufferViews", &arr, &c->view_count);
    if (r) return r;
    c->views = _oak_gltf_scratch(c, sizeof(gltf_view) * c->view_count);
    if (!c->views) return _oak_gltf_oom(c);
    i = 0;
    cJSON_ArrayForEach(b, arr) {
        snprintf(path, sizeof path, "bufferViews[%u]", i);
        if (!cJSON_IsObject(b))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        int32_t buf;
        uint32_t off, len, stride;
        if ((r = _oak_gltf_index(c, b, path, "buffer", c->buffer_count, "buffers", &buf))) return r;
        if (buf < 0) return oak_error(OAK_ERROR_PARSE, "%s: %s.buffer is missing", c->file, path);
        if ((r = _oak_gltf_uint(c, b, path, "byteOffset", false, 0, &off))) return r;
        if ((r = _oak_gltf_uint(c, b, path, "byteLength", true, 0, &len))) return r;
        if ((r = _oak_gltf_uint(c, b, path, "byteStride", false, 0, &stride))) return r;
        if ((uint64_t)off + len > c->buffers[buf].size)
            return oak_error(OAK_ERROR_PARSE,
                             "%s: %s (offset %u + length %u) exceeds buffers[%d] (%zu bytes)",
                             c->file, path, off, len, buf, c->buffers[buf].size);
        if (cJSON_GetObjectItemCaseSensitive(b, "byteStride") && (stride < 4 || stride > 252))
            return oak_error(OAK_ERROR_PARSE, "%s: %s.byteStride %u is outside 4..252", c->file,
                             path, stride);
        c->views[i] = (gltf_view){(uint32_t)buf, off, len, stride, NULL};
        const cJSON *ext, *mo = NULL;
        if ((r = _oak_gltf_object(c, b, path, "extensions", &ext))) return r;
        if (ext && (r = _oak_gltf_object(c, ext, path, "EXT_meshopt_compression", &mo))) return r;
        if (mo && (r = _oak_gltf_meshopt_view(c, mo, path, &c->views[i]))) return r;
        i++;
    }
    r = _oak_gltf_array(c, c->root, "", "accessors", &c->accessors, &c->accessor_count);
    return r;
}

/* A view's first byte: its decoded bytes, or its place in its buffer; NULL
   when the buffer has no data. */
static const uint8_t *view_base(const gltf_ctx *c, const gltf_view *v) {
    if (v->decoded) return v->decoded;
    const uint8_t *d = c->buffers[v->buffer].data;
    return d ? d + v->offset : NULL;
}

static oak_result no_data(gltf_ctx *c, const char *path, uint32_t view) {
    return oak_error(OAK_ERROR_PARSE,
                     "%s: %s reads bufferViews[%u], whose buffers[%u] has no data (no uri, no GLB "
                     "BIN chunk)",
                     c->file, path, view, c->views[view].buffer);
}

oak_result _oak_gltf_view_bytes(gltf_ctx *c, uint32_t view, const char *path, const uint8_t **data,
                                size_t *size) {
    if (view >= c->view_count)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s.bufferView %u is past the end of bufferViews (%u)", c->file, path,
                         view, c->view_count);
    const gltf_view *v = &c->views[view];
    if (!view_base(c, v)) return no_data(c, path, view);
    *data = view_base(c, v);
    *size = v->length;
    return OAK_OK;
}

/* ---- accessors ------------------------------------------------------------------ */

typedef struct acc_layout {
    uint32_t count, comps, ctype, csize;
    bool normalized;
    const uint8_t *base; /* NULL: zeros (no bufferView) */
    size_t stride;
    uint32_t rows, cols, col_stride; /* matrices pad columns to 4 bytes */
} acc_layout;

static uint32_t component_size(uint32_t ctype) {
    switch (ctype) {
    case 5120:
    case 5121:
        return 1;
    case 5122:
    case 5123:
        return 2;
    case 5125:
    case 5126:
        return 4;
    default:
        return 0;
    }
}

static uint32_t type_comps(const char *t, uint32_t *rows, uint32_t *cols) {
    static const struct {
        const char *name;
        uint32_t rows, cols;
    } types[] = {
        {"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1},
        {"MAT2", 2, 2},   {"MAT3", 3, 3}, {"MAT4", 4, 4},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].name) == 0) {
            *rows = types[i].rows;
            *cols = types[i].cols;
            return types[i].rows * types[i].cols;
        }
    return 0;
}

/* Checks that count elements of the layout at offset fit in the view. */
static oak_result check_fit(gltf_ctx *c, const char *path, uint32_t view, size_t offset,
                            size_t stride, uint32_t count, size_t elem) {
    const gltf_view *v = &c->views[view];
    if (!view_base(c, v)) return no_data(c, path, view);
    uint64_t need = (uint64_t)offset + (uint64_t)stride * (count - 1) + elem;
    if (need > v->length)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s.count exceeds bufferViews[%u] (needs %llu bytes, has %zu)",
                         c->file, path, view, (unsigned long long)need, v->length);
    return OAK_OK;
}

static oak_result open_accessor(gltf_ctx *c, uint32_t index, const char *where, acc_layout *a,
                                const cJSON **sparse_out, char *path, size_t path_size) {
    snprintf(path, path_size, "accessors[%u]", index);
    if (index >= c->accessor_count)
        return oak_error(OAK_ERROR_PARSE, "%s: %s uses accessor %u, past the end of accessors (%u)",
                         c->file, where, index, c->accessor_count);
    const cJSON *o = cJSON_GetArrayItem(c->accessors, (int)index);
    if (!cJSON_IsObject(o))
        return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
    oak_result r;
    const char *type;
    int32_t view;
    uint32_t offset;
    memset(a, 0, sizeof *a);
    if ((r = _oak_gltf_uint(c, o, path, "componentType", true, 0, &a->ctype))) return r;
    if ((r = _oak_gltf_uint(c, o, path, "count", true, 0, &a->count))) return r;
    if ((r = _oak_gltf_string(c, o, path, "type", &type))) return r;
    if ((r = _oak_gltf_bool(c, o, path, "normalized", &a->normalized))) return r;
    if ((r = _oak_gltf_index(c, o, path, "bufferView", c->view_count, "bufferViews", &view)))
        return r;
    if ((r = _oak_gltf_uint(c, o, path, "byteOffset", false, 0, &offset))) return r;
    if (!type) return oak_error(OAK_ERROR_PARSE, "%s: %s.type is missing", c->file, path);
    a->csize = component_size(a->ctype);
    if (!a->csize)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.componentType %u is not a glTF component type",
                         c->file, path, a->ctype);
    a->comps = type_comps(type, &a->rows, &a->cols);
    if (!a->comps)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.type \"%.16s\" is not a glTF type", c->file, path,
                         type);
    if (a->count == 0)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.count must be at least 1", c->file, path);
    if (a->count > (1u << 28))
        return oak_error(OAK_ERROR_LIMIT, "%s: %s.count %u is more than oak takes (2^28)", c->file,
                         path, a->count);
    a->col_stride = a->rows * a->csize;
    if (a->cols > 1) a->col_stride = (a->col_stride + 3) & ~3u;
    size_t elem = (size_t)a->col_stride * (a->cols - 1) + (size_t)a->rows * a->csize;
    if (view >= 0) {
        const gltf_view *v = &c->views[view];
        a->stride = v->stride ? v->stride : elem;
        if (v->stride && v->stride < elem)
            return oak_error(
                OAK_ERROR_PARSE,
                "%s: %s elements (%zu bytes) are wider than bufferViews[%d].byteStride %u", c->file,
                path, elem, view, v->stride);
        if (offset % a->csize)
            return oak_error(OAK_ERROR_PARSE, "%s: %s.byteOffset %u is not a multiple of %u",
                             c->file, path, offset, a->csize);
        if ((r = check_fit(c, path, (uint32_t)view, offset, a->stride, a->count, elem))) return r;
        a->base = view_base(c, v) + offset;
    }
    const cJSON *sparse = NULL;
    if ((r = _oak_gltf_object(c, o, path, "sparse", &sparse))) return r;
    *sparse_out = sparse;
    if (view < 0 && !sparse)
        oak_log_debug("%s: %s has no bufferView; it reads as zeros", c->file, path);
    if (view < 0 && (uint64_t)a->count * a->comps > GLTF_MAX_VIEWLESS_ELEMENTS)
        return oak_error(OAK_ERROR_LIMIT,
                         "%s: %s has no bufferView and %u elements, more than oak fills (%u)",
                         c->file, path, a->count, GLTF_MAX_VIEWLESS_ELEMENTS);
    return OAK_OK;
}

static double read_component(const uint8_t *p, uint32_t ctype, bool normalized) {
    switch (ctype) {
    case 5120: {
        int8_t v;
        memcpy(&v, p, 1);
        return normalized ? fmax(v / 127.0, -1.0) : v;
    }
    case 5121:
        return normalized ? p[0] / 255.0 : p[0];
    case 5122: {
        int16_t v;
        memcpy(&v, p, 2);
        return normalized ? fmax(v / 32767.0, -1.0) : v;
    }
    case 5123: {
        uint16_t v;
        memcpy(&v, p, 2);
        return normalized ? v / 65535.0 : v;
    }
    case 5125: {
        uint32_t v;
        memcpy(&v, p, 4);
        return normalized ? v / 4294967295.0 : v;
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

static void read_element(const acc_layout *a, const uint8_t *elem, double *out) {
    uint32_t k = 0;
    for (uint32_t col = 0; col < a->cols; col++)
        for (uint32_t row = 0; row < a->rows; row++)
            out[k++] = read_component(elem + col * a->col_stride + row * a->csize, a->ctype,
                                      a->normalized);
}

/* Calls put(i, values) for each sparse substitution after checking the
 * sparse block's indices and values fit and stay in range. */
typedef struct sparse_block {
    uint32_t count, index_ctype;
    const uint8_t *indices, *values;
} sparse_block;

static oak_result open_sparse(gltf_ctx *c, const cJSON *s, const char *path, const acc_layout *a,
                              sparse_block *out) {
    char p[96], pi[112], pv[112];
    snprintf(p, sizeof p, "%s.sparse", path);
    snprintf(pi, sizeof pi, "%s.indices", p);
    snprintf(pv, sizeof pv, "%s.values", p);
    oak_result r;
    const cJSON *ind, *val;
    if ((r = _oak_gltf_uint(c, s, p, "count", true, 0, &out->count))) return r;
    if ((r = _oak_gltf_object(c, s, p, "indices", &ind))) return r;
    if ((r = _oak_gltf_object(c, s, p, "values", &val))) return r;
    if (!ind || !val)
        return oak_error(OAK_ERROR_PARSE, "%s: %s needs indices and values", c->file, p);
    if (out->count == 0 || out->count > a->count)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.count %u is outside 1..%u", c->file, p,
                         out->count, a->count);
    int32_t iv, vv;
    uint32_t ioff, voff;
    if ((r = _oak_gltf_index(c, ind, pi, "bufferView", c->view_count, "bufferViews", &iv)))
        return r;
    if ((r = _oak_gltf_index(c, val, pv, "bufferView", c->view_count, "bufferViews", &vv)))
        return r;
    if (iv < 0 || vv < 0)
        return oak_error(OAK_ERROR_PARSE, "%s: %s needs bufferViews for indices and values",
                         c->file, p);
    if ((r = _oak_gltf_uint(c, ind, pi, "byteOffset", false, 0, &ioff))) return r;
    if ((r = _oak_gltf_uint(c, val, pv, "byteOffset", false, 0, &voff))) return r;
    if ((r = _oak_gltf_uint(c, ind, pi, "componentType", true, 0, &out->index_ctype))) return r;
    uint32_t isize = out->index_ctype == 5121   ? 1
                     : out->index_ctype == 5123 ? 2
                     : out->index_ctype == 5125 ? 4
                                                : 0;
    if (!isize)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s.componentType %u must be an unsigned integer type", c->file, pi,
                         out->index_ctype);
    size_t elem = (size_t)a->col_stride * (a->cols - 1) + (size_t)a->rows * a->csize;
    if ((r = check_fit(c, pi, (uint32_t)iv, ioff, isize, out->count, isize))) return r;
    if ((r = check_fit(c, pv, (uint32_t)vv, voff, elem, out->count, elem))) return r;
    out->indices = view_base(c, &c->views[iv]) + ioff;
    out->values = view_base(c, &c->views[vv]) + voff;
    uint32_t prev = 0;
    for (uint32_t i = 0; i < out->count; i++) {
        uint32_t idx =
            (uint32_t)read_component(out->indices + (size_t)i * isize, out->index_ctype, false);
        if (idx >= a->count)
            return oak_error(OAK_ERROR_PARSE, "%s: %s[%u] = %u is past the accessor's count %u",
                             c->file, pi, i, idx, a->count);
        if (i && idx <= prev)
            return oak_error(OAK_ERROR_PARSE, "%s: %s must strictly increase (entry %u)", c->file,
                             pi, i);
        prev = idx;
    }
    return OAK_OK;
}

uint32_t _oak_gltf_accessor_comps(gltf_ctx *c, uint32_t accessor) {
    const cJSON *o = cJSON_GetArrayItem(c->accessors, (int)accessor);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
    uint32_t rows, cols;
    return accessor < c->accessor_count && cJSON_IsString(t)
               ? type_comps(t->valuestring, &rows, &cols)
               : 0;
}

static oak_result read_doubles(gltf_ctx *c, uint32_t accessor, const char *where,
                               uint32_t comps_allowed, bool want_uint, double **out,
                               uint32_t *count, uint32_t *comps) {
    if (c->draco && accessor < c->accessor_count && c->draco[accessor].v) {
        const struct gltf_decoded *d = &c->draco[accessor];
        if (!(comps_allowed & GLTF_COMPS(d->comps)))
            return oak_error(OAK_ERROR_PARSE,
                             "%s: accessors[%u] (used as %s) has the wrong type for it", c->file,
                             accessor, where);
        *out = d->v;
        *count = d->count;
        *comps = d->comps;
        return OAK_OK;
    }
    acc_layout a;
    const cJSON *sparse = NULL;
    char path[48];
    oak_result r = open_accessor(c, accessor, where, &a, &sparse, path, sizeof path);
    if (r) return r;
    if (!(comps_allowed & GLTF_COMPS(a.comps)))
        return oak_error(OAK_ERROR_PARSE, "%s: %s (used as %s) has the wrong type for it", c->file,
                         path, where);
    if (want_uint && (a.ctype == 5120 || a.ctype == 5122 || a.ctype == 5126 || a.normalized))
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s (used as %s) must have an unsigned integer componentType", c->file,
                         path, where);
    sparse_block sb = {0};
    if (sparse && (r = open_sparse(c, sparse, path, &a, &sb))) return r;
    size_t n = (size_t)a.count * a.comps;
    double *v = _oak_gltf_scratch(c, n * sizeof(double));
    if (!v) return _oak_gltf_oom(c);
    if (a.base)
        for (uint32_t i = 0; i < a.count; i++)
            read_element(&a, a.base + (size_t)i * a.stride, v + (size_t)i * a.comps);
    if (sparse) {
        uint32_t isize = component_size(sb.index_ctype);
        size_t elem = (size_t)a.col_stride * (a.cols - 1) + (size_t)a.rows * a.csize;
        for (uint32_t i = 0; i < sb.count; i++) {
            uint32_t idx =
                (uint32_t)read_component(sb.indices + (size_t)i * isize, sb.index_ctype, false);
            read_element(&a, sb.values + (size_t)i * elem, v + (size_t)idx * a.comps);
        }
    }
    *out = v;
    *count = a.count;
    *comps = a.comps;
    return OAK_OK;
}

oak_result _oak_gltf_read_floats(gltf_ctx *c, uint32_t accessor, const char *where,
                                 uint32_t comps_allowed, float **out, uint32_t *count,
                                 uint32_t *comps) {
    double *d;
    oak_result r = read_doubles(c, accessor, where, comps_allowed, false, &d, count, comps);
    if (r) return r;
    size_t n = (size_t)*count * *comps;
    float *f = _oak_gltf_alloc(c, n * sizeof(float));
    if (!f) return _oak_gltf_oom(c);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(d[i]))
            return oak_error(OAK_ERROR_PARSE,
                             "%s: accessors[%u] (used as %s) holds a non-finite value at %zu",
                             c->file, accessor, where, i / *comps);
        f[i] = (float)d[i];
    }
    *out = f;
    return OAK_OK;
}

oak_result _oak_gltf_read_uints(gltf_ctx *c, uint32_t accessor, const char *where,
                                uint32_t comps_allowed, uint32_t **out, uint32_t *count,
                                uint32_t *comps) {
    double *d;
    oak_result r = read_doubles(c, accessor, where, comps_allowed, true, &d, count, comps);
    if (r) return r;
    size_t n = (size_t)*count * *comps;
    uint32_t *u = _oak_gltf_scratch(c, n * sizeof(uint32_t));
    if (!u) return _oak_gltf_oom(c);
    for (size_t i = 0; i < n; i++) u[i] = (uint32_t)d[i];
    *out = u;
    return OAK_OK;
}
