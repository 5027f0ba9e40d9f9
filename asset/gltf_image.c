/* glTF images (PNG, JPEG, WebP): the encoded bytes from a URI, a data: URI or a buffer view,
 * formats and sizes checked by oak's header probe before anything is decoded, then
 * decoded to RGBA8 on the job pool, one image per job. */
#include <string.h>

#include <stb/stb_image.h>
#include <webp/decode.h>

#include "core/internal.h"
#include "gltf_internal.h"
#include "image_format.h"

typedef struct image_job {
    const uint8_t *bytes;
    size_t size;
    uint8_t *rgba; /* the decoder's buffer until copied into the model */
    int w, h;
    _oak_image_kind kind;
    bool skipped; /* a format oak does not read: its textures are left out */
} image_job;

static void decode_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    image_job *jobs = user;
    for (uint32_t i = begin; i < end; i++) {
        int comp;
        if (jobs[i].skipped) continue;
        if (jobs[i].kind == _OAK_IMAGE_WEBP)
            jobs[i].rgba = WebPDecodeRGBA(jobs[i].bytes, jobs[i].size, &jobs[i].w, &jobs[i].h);
        else
            jobs[i].rgba = stbi_load_from_memory(jobs[i].bytes, (int)jobs[i].size, &jobs[i].w,
                                                 &jobs[i].h, &comp, 4);
    }
}

/* Checks each source's format and size with oak's own probe, then decodes
 * them all on the job pool into the model's images (whose names are set).
 * A source without bytes is left undecoded (no_images, or filled already). */
oak_result _oak_gltf_decode_images(gltf_ctx *c, const _oak_gltf_image_src *src, uint32_t n) {
    oak_gltf *g = c->g;
    image_job *jobs = _oak_gltf_scratch(c, sizeof(image_job) * (n + 1));
    if (!jobs) return _oak_gltf_oom(c);
    oak_result r;
    for (uint32_t i = 0; i < n; i++) {
        jobs[i].bytes = src[i].bytes;
        jobs[i].size = src[i].size;
        if (!src[i].bytes) {
            jobs[i].skipped = true;
            continue;
        }
        char where[1024];
        snprintf(where, sizeof where, "%s: %s", c->file, src[i].path);
        _oak_image_info info;
        _oak_error_quiet(true); /* an unread format is a warning; the rest is reported below */
        r = _oak_image_probe(&info, jobs[i].bytes, jobs[i].size, where);
        _oak_error_quiet(false);
        if (r == OAK_ERROR_UNSUPPORTED || (!r && info.kind == _OAK_IMAGE_HDR)) {
            /* Forgiving: a format oak does not read (KTX2, a PNM...) drops
               the textures that use it, not the model (docs/GLTF.md). A PNG
               or JPEG that is damaged still fails below. */
            char why[1100];
            if (r)
                snprintf(why, sizeof why, "%s", oak_last_error());
            else
                snprintf(why, sizeof why, "%s is a Radiance HDR image", where);
            _oak_gltf_warn(c, "%s; textures using it are left out", why);
            jobs[i].skipped = true;
            continue;
        }
        if (r) return oak_error(r, "%s", oak_last_error());
        if (jobs[i].size > 0x7fffffff)
            return oak_error(OAK_ERROR_LIMIT, "%s: %s is over 2 GiB", c->file, src[i].path);
        jobs[i].kind = info.kind;
        if (info.kind == _OAK_IMAGE_PNG &&
            (r = _oak_png_check_stream(&info, jobs[i].bytes, jobs[i].size, where)))
            return r;
        /* decoded by stb and then copied: twice its RGBA size */
        if (!_oak_gltf_budget(c, (size_t)info.width * info.height * 8)) return _oak_gltf_oom(c);
    }
    if (!n) return OAK_OK;
    oak_parallel_for(n, 1, decode_job, jobs);
    r = OAK_OK;
    for (uint32_t i = 0; i < n; i++) {
        if (jobs[i].skipped) continue;
        if (!jobs[i].rgba) {
            if (!r) r = oak_error(OAK_ERROR_PARSE, "%s: %s failed to decode", c->file, src[i].path);
            continue;
        }
        size_t bytes = (size_t)jobs[i].w * (size_t)jobs[i].h * 4;
        uint8_t *copy = r ? NULL : oak_arena_alloc(c->arena, bytes, 16);
        if (copy) {
            memcpy(copy, jobs[i].rgba, bytes);
            g->images[i].rgba = copy;
            g->images[i].width = (uint32_t)jobs[i].w;
            g->images[i].height = (uint32_t)jobs[i].h;
        } else if (!r) {
            r = _oak_gltf_oom(c);
        }
        if (jobs[i].kind == _OAK_IMAGE_WEBP)
            WebPFree(jobs[i].rgba);
        else
            stbi_image_free(jobs[i].rgba);
    }
    return r;
}

oak_result _oak_gltf_load_images(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *arr;
    uint32_t n;
    oak_result r = _oak_gltf_array(c, c->root, "", "images", &arr, &n);
    if (r) return r;
    g->images = _oak_gltf_alloc(c, sizeof(oak_gltf_image) * n);
    _oak_gltf_image_src *src = _oak_gltf_scratch(c, sizeof(_oak_gltf_image_src) * (n + 1));
    if (!g->images || !src) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        char *path = src[i].path;
        snprintf(path, sizeof src[i].path, "images[%u]", i);
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        const char *uri, *name;
        int32_t view;
        if ((r = _oak_gltf_string(c, o, path, "uri", &uri))) return r;
        if ((r = _oak_gltf_string(c, o, path, "name", &name))) return r;
        if ((r = _oak_gltf_index(c, o, path, "bufferView", c->view_count, "bufferViews", &view)))
            return r;
        g->images[i].name = _oak_gltf_strdup(c, name                              ? name
                                                : uri && strncmp(uri, "data:", 5) ? uri
                                                                                  : "");
        if (!g->images[i].name) return _oak_gltf_oom(c);
        if (!uri && view < 0)
            return oak_error(OAK_ERROR_PARSE, "%s: %s has neither uri nor bufferView", c->file,
                             path);
        if (!c->desc->no_images) {
            if (uri)
                r = _oak_gltf_uri_bytes(c, uri, path, &src[i].bytes, &src[i].size);
            else
                r = _oak_gltf_view_bytes(c, (uint32_t)view, path, &src[i].bytes, &src[i].size);
            if (r) return r;
        }
        i++;
    }
    return _oak_gltf_decode_images(c, src, n);
}
