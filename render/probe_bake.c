/* Reflection probes, the renderer's half (docs/SHADING.md "Reflection
 * probes"): each probe of the frame input keeps a baked map, baked again when
 * it is new or moved or the sky changed; the bake draws the six cube faces
 * from the capture point through the frame's own backend (so every backend
 * bakes what it draws), resamples them into an equirectangular image and runs
 * the sky light's capture and GGX prefilter over it (render/skylight.c, on the
 * job pool). Then the probes whose boxes meet the view, smallest box first,
 * go into the view as the OAK_B_PROBES buffer. */
#include <math.h>
#include <string.h>

#include "probe_bake.h"
#include "renderer_internal.h"
#include "skylight.h"

#define PROBE_CHUNK 64 /* texels per job: fixed, so any thread count writes the same */
#define IMAGE_W     OAK_PROBE_IMAGE_WIDTH
#define IMAGE_H     (OAK_PROBE_IMAGE_WIDTH / 2)
_Static_assert(IMAGE_W <= OAK_SKY_IMAGE_WIDTH && IMAGE_H <= OAK_SKY_IMAGE_HEIGHT,
               "a probe's image fits where the sky's goes");

typedef struct probe_slot {
    oak_reflection_probe desc; /* as last baked */
    uint64_t sky_hash;         /* the sky it saw */
    float *map;                /* OAK_GPU_PROBE_MAP_TEXELS * 4 floats */
    bool baked;
} probe_slot;

struct oak_probe_cache {
    oak_frontend fe; /* the faces' views, apart from the main view's caches */
    probe_slot slots[OAK_PROBE_MAX];
    float *data;  /* the OAK_B_PROBES buffer */
    float *faces; /* six faces of width * height RGBA32F */
    float *work;  /* a sky buffer: head, capture and levels of one bake */
    uint32_t face_w, face_h;
    uint32_t in_view[OAK_PROBE_MAX_VIEW], view_count; /* slots in the buffer, in order */
    uint64_t version;
};

/* Each face looks down fwd with up as given; right = fwd x up. The order is
   a cube's (+x -x +y -y +z -z); the resampling below uses the same frames. */
static const float k_fwd[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                  {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
static const float k_up[6][3] = {{0, 1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}};

static void cross3(const float a[3], const float b[3], float o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}
static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void _oak_probe_cache_release(oak_probe_cache *c) {
    if (!c) return;
    _oak_frontend_release(&c->fe);
    for (uint32_t i = 0; i < OAK_PROBE_MAX; i++) oak_free(c->slots[i].map);
    oak_free(c->data);
    oak_free(c->faces);
    oak_free(c->work);
    oak_free(c);
}

static oak_result check_probe(const oak_reflection_probe *p, uint32_t i) {
    const float *P = p->position, *lo = p->box_min, *hi = p->box_max;
    for (int k = 0; k < 3; k++) {
        if (!isfinite(P[k]) || !isfinite(lo[k]) || !isfinite(hi[k]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "reflection probe %u: a non-finite number",
                             i);
        if (!(lo[k] < hi[k]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "reflection probe %u: box_min is not below box_max on axis %d", i, k);
        if (P[k] < lo[k] || P[k] > hi[k])
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "reflection probe %u: the capture point lies outside its box", i);
    }
    if (!isfinite(p->margin) || p->margin < 0)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "reflection probe %u: margin must be finite and >= 0", i);
    return OAK_OK;
}

/* ---- the bake ----------------------------------------------------------- */

/* one face drawn by the frame's backend, its linear colour read back */
static oak_result draw_face(oak_renderer *r, const oak_frame_input *in, const float pos[3],
                            int face, float *out) {
    oak_probe_cache *c = r->probes;
    oak_frame_input fi = *in;
    fi.probe_count = 0; /* a probe sees the sky light in what it captures */
    fi.probes = NULL;
    fi.camera = (oak_camera){.fov_y = (float)(OAK_PI / 2),
                             .aspect = 1.0f,
                             .znear = in->camera.znear,
                             .zfar = in->camera.zfar};
    oak_post post = in->post ? *in->post : (oak_post){0};
    post.debug = OAK_DEBUG_NONE;
    post.adapt = false; /* a face is read before post: the camera's state stays the view's */
    post.bloom = OAK_BLOOM_OFF; /* the face is the scene's light (the CPU mixes bloom in place) */
    post.focus_distance = 0;    /* ... and sharp: the CPU blurs depth of field in place too */
    post.taa = OAK_TAA_OFF;     /* faces are never jittered, nor blended with the view's history */
    fi.post = &post;
    /* no sun disc in a face: the key light's own specular shows the sun */
    oak_environment env = in->environment ? *in->environment : oak_environment_defaults();
    env.sun_disc = 0;
    fi.environment = &env;
    float right[3];
    cross3(k_fwd[face], k_up[face], right);
    mat4 world = {{right[0], right[1], right[2], 0},
                  {k_up[face][0], k_up[face][1], k_up[face][2], 0},
                  {-k_fwd[face][0], -k_fwd[face][1], -k_fwd[face][2], 0},
                  {pos[0], pos[1], pos[2], 1}};
    memcpy(fi.camera_world, world, sizeof(mat4));
    oak_result res =
        _oak_frontend_build(&c->fe, &fi, r->desc.width, r->desc.height, r->desc.shadow_map_size);
    if (res) return res;
    c->fe.view.frame = r->frame;
    if ((res = r->backend->sync(r->self, &c->fe.view))) return res;
    if ((res = r->backend->render(r->self, &c->fe.view))) return res;
    return r->backend->read_hdr(r->self, out, (size_t)r->desc.width * r->desc.height * 4);
}

/* the faces seen along unit d, bilinear within the face it falls on */
static void faces_at(const oak_probe_cache *c, const float d[3], float out[3]) {
    int face = 0;
    float best = -1;
    for (int f = 0; f < 6; f++) {
        float z = dot3(d, k_fwd[f]);
        if (z > best) best = z, face = f;
    }
    float right[3];
    cross3(k_fwd[face], k_up[face], right);
    float xs = dot3(d, right) / best, ys = dot3(d, k_up[face]) / best;
    float W = (float)c->face_w, H = (float)c->face_h;
    float x = (xs * 0.5f + 0.5f) * W - 0.5f, y = (0.5f - ys * 0.5f) * H - 0.5f;
    x = x < 0 ? 0 : x > W - 1 ? W - 1 : x;
    y = y < 0 ? 0 : y > H - 1 ? H - 1 : y;
    uint32_t x0 = (uint32_t)x, y0 = (uint32_t)y;
    uint32_t x1 = x0 + 1 < c->face_w ? x0 + 1 : x0, y1 = y0 + 1 < c->face_h ? y0 + 1 : y0;
    float fx = x - (float)x0, fy = y - (float)y0;
    const float *img = c->faces + (size_t)face * c->face_w * c->face_h * 4;
    const float *a = img + ((size_t)y0 * c->face_w + x0) * 4;
    const float *b = img + ((size_t)y0 * c->face_w + x1) * 4;
    const float *e = img + ((size_t)y1 * c->face_w + x0) * 4;
    const float *g = img + ((size_t)y1 * c->face_w + x1) * 4;
    for (int k = 0; k < 3; k++) {
        float top = a[k] + (b[k] - a[k]) * fx, bot = e[k] + (g[k] - e[k]) * fx;
        out[k] = top + (bot - top) * fy;
    }
}

/* row y of the equirectangular image, laid out as the sky image is read
   (render/skylight.c image_at: u = atan2(x, -z) / 2 pi + 1/2, v = acos(y) / pi) */
static void image_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_probe_cache *c = user;
    float *img = c->work + (size_t)OAK_GPU_SKY_IMAGE_AT * 4;
    for (uint32_t y = begin; y < end; y++) {
        double theta = ((double)y + 0.5) / IMAGE_H * OAK_PI;
        for (uint32_t x = 0; x < IMAGE_W; x++) {
            double phi = (((double)x + 0.5) / IMAGE_W - 0.5) * 2.0 * OAK_PI;
            float d[3] = {(float)(sin(theta) * sin(phi)), (float)cos(theta),
                          (float)(-sin(theta) * cos(phi))};
            float *o = img + ((size_t)y * IMAGE_W + x) * 4;
            faces_at(c, d, o);
            o[3] = 1.0f;
        }
    }
}
static void capture_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    for (uint32_t i = begin; i < end; i++) _oak_sky_capture_texel(user, i);
}
static void specular_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    for (uint32_t i = begin; i < end; i++) _oak_sky_filter_texel(user, OAK_GPU_SKY_IRR_TEXELS + i);
}

static oak_result bake(oak_renderer *r, const oak_frame_input *in, probe_slot *s) {
    oak_probe_cache *c = r->probes;
    size_t face = (size_t)r->desc.width * r->desc.height * 4;
    if (!c->faces || c->face_w != r->desc.width || c->face_h != r->desc.height) {
        oak_free(c->faces);
        c->faces = oak_alloc(face * 6 * sizeof(float));
        if (!c->faces)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "reflection probes: no room for the faces");
        c->face_w = r->desc.width, c->face_h = r->desc.height;
    }
    if (!c->work && !(c->work = oak_alloc((size_t)OAK_GPU_SKY_TEXELS * 4 * sizeof(float))))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "reflection probes: no room for a bake");
    if (!s->map && !(s->map = oak_alloc((size_t)OAK_GPU_PROBE_MAP_TEXELS * 4 * sizeof(float))))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "reflection probes: no room for a map");
    for (int f = 0; f < 6; f++) {
        oak_result res = draw_face(r, in, s->desc.position, f, c->faces + face * (size_t)f);
        if (res) return res;
    }
    /* the head of an image sky at its own brightness: scale 1, no ground */
    memset(c->work, 0, OAK_GPU_SKY_HEAD * 4 * sizeof(float));
    c->work[3] = IMAGE_W, c->work[7] = IMAGE_H;
    c->work[8] = c->work[9] = c->work[10] = 1.0f;
    c->work[19] = 1.0f;
    oak_parallel_for(IMAGE_H, 4, image_job, c);
    oak_parallel_for(OAK_GPU_SKY_CAPTURE_TEXELS, PROBE_CHUNK, capture_job, c->work);
    oak_parallel_for(OAK_GPU_SKY_SPEC_TEXELS, PROBE_CHUNK, specular_job, c->work);
    memcpy(s->map, c->work + (size_t)OAK_GPU_SKY_SPEC_AT * 4,
           (size_t)OAK_GPU_PROBE_MAP_TEXELS * 4 * sizeof(float));
    s->baked = true;
    r->probe_bakes++;
    return OAK_OK;
}

/* ---- the view's probes -------------------------------------------------- */

/* the box against the view's frustum planes: outside when wholly behind one */
static bool box_in_view(const vec4 planes[6], const float lo[3], const float hi[3]) {
    for (int p = 0; p < 6; p++) {
        float d = planes[p][3]; /* the corner furthest along the plane's normal */
        for (int k = 0; k < 3; k++) d += planes[p][k] * (planes[p][k] >= 0 ? hi[k] : lo[k]);
        if (d < 0) return false;
    }
    return true;
}

static float volume(const oak_reflection_probe *p) {
    return (p->box_max[0] - p->box_min[0]) * (p->box_max[1] - p->box_min[1]) *
           (p->box_max[2] - p->box_min[2]);
}

static void fill_view(oak_renderer *r, uint32_t count) {
    oak_probe_cache *c = r->probes;
    oak_render_view *v = &r->frontend.view;
    uint32_t pick[OAK_PROBE_MAX_VIEW], n = 0;
    vec4 planes[6];
    oak_frustum_planes(v->view_proj, planes);
    for (uint32_t i = 0; i < count; i++) {
        const oak_reflection_probe *p = &c->slots[i].desc;
        if (!box_in_view((const vec4 *)planes, p->box_min, p->box_max)) continue;
        /* insertion by volume (then index, so ties keep the input's order):
           a small box inside a large one is taken first */
        float vol = volume(p);
        uint32_t at = n;
        while (at > 0 && volume(&c->slots[pick[at - 1]].desc) > vol) at--;
        if (at >= OAK_PROBE_MAX_VIEW) continue;
        if (n < OAK_PROBE_MAX_VIEW) n++;
        memmove(pick + at + 1, pick + at, (n - 1 - at) * sizeof *pick);
        pick[at] = i;
    }
    bool same = n == c->view_count && !memcmp(pick, c->in_view, n * sizeof *pick);
    if (!same) {
        float *d = c->data;
        memset(d, 0, (size_t)OAK_GPU_PROBE_MAPS_AT * 4 * sizeof(float));
        d[0] = (float)n;
        for (uint32_t j = 0; j < n; j++) {
            const oak_reflection_probe *p = &c->slots[pick[j]].desc;
            oak_gpu_probe *g = (oak_gpu_probe *)(d + (OAK_GPU_PROBE_RECORDS_AT + 3 * j) * 4);
            for (int k = 0; k < 3; k++) {
                g->centre[k] = p->position[k];
                g->lo[k] = p->box_min[k];
                g->hi[k] = p->box_max[k];
            }
            g->centre[3] = p->margin;
            g->lo[3] = (float)j;
            memcpy(d + ((size_t)OAK_GPU_PROBE_MAPS_AT + (size_t)j * OAK_GPU_PROBE_MAP_TEXELS) * 4,
                   c->slots[pick[j]].map, (size_t)OAK_GPU_PROBE_MAP_TEXELS * 4 * sizeof(float));
        }
        memcpy(c->in_view, pick, n * sizeof *pick);
        c->view_count = n;
        c->version++;
    }
    v->probe_count = n;
    v->probe_data = c->data;
    v->probe_version = c->version;
}

oak_result _oak_probes_update(oak_renderer *r, const oak_frame_input *in) {
    oak_render_view *v = &r->frontend.view;
    v->probe_count = 0;
    v->probe_data = r->probes ? r->probes->data : NULL;
    v->probe_version = r->probes ? r->probes->version : 0;
    if (in->probe_count && !in->probes)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "reflection probes: count without probes");
    if (in->probe_count > OAK_PROBE_MAX)
        return oak_error(OAK_ERROR_LIMIT, "reflection probes: %u given, OAK_PROBE_MAX is %u",
                         in->probe_count, OAK_PROBE_MAX);
    for (uint32_t i = 0; i < in->probe_count; i++) {
        oak_result res = check_probe(&in->probes[i], i);
        if (res) return res;
    }
    if (!in->probe_count && !r->probes) return OAK_OK;
    if (!(r->backend->caps & OAK_CAP_PROBES) || !r->backend->read_hdr) {
        /* null: nothing drawn, nothing to reflect */
        if (!r->probes_warned)
            oak_log_info("reflection probes: the %s backend cannot bake them; the sky alone is "
                         "reflected",
                         r->backend->name);
        r->probes_warned = true;
        return OAK_OK;
    }
    oak_probe_cache *c = r->probes;
    if (!c) {
        if (!(c = oak_calloc(1, sizeof *c)) ||
            !(c->data = oak_calloc((size_t)OAK_GPU_PROBE_TEXELS * 4, sizeof(float)))) {
            oak_free(c);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "reflection probes: no room for the cache");
        }
        r->probes = c;
        c->version = 1;
    }
    uint64_t sky = _oak_sky_hash(v);
    bool baked = false;
    for (uint32_t i = 0; i < in->probe_count; i++) {
        probe_slot *s = &c->slots[i];
        if (s->baked && s->sky_hash == sky && !memcmp(&s->desc, &in->probes[i], sizeof s->desc))
            continue;
        s->desc = in->probes[i];
        s->sky_hash = sky;
        s->baked = false;
        oak_result res = bake(r, in, s);
        if (res) return res;
        baked = true;
    }
    for (uint32_t i = in->probe_count; i < OAK_PROBE_MAX; i++) c->slots[i].baked = false;
    if (baked) c->view_count = (uint32_t)-1; /* a map changed: fill the buffer again */
    fill_view(r, in->probe_count);
    return OAK_OK;
}
