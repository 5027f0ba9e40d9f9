/* The renderer: picks a backend by name (or the best that starts, for
 * `auto`), then each frame runs the frontend and hands the view over:
 * frontend → sync → render. */
#include <stdio.h>
#include <string.h>

#include "render_scale.h"
#include "renderer_internal.h"
#include "core/internal.h"
#include "shaders/common/oak_gpu.h"

static oak_result try_create(oak_renderer *r, const oak_backend *b) {
    oak_result res = b->create(&r->self, &r->desc);
    if (res == OAK_OK) r->backend = b;
    return res;
}

oak_result oak_make_renderer(oak_renderer **out, const oak_renderer_desc *desc) {
    *out = NULL;
    oak_renderer_desc d = desc ? *desc : (oak_renderer_desc){0};
    if (!d.width) d.width = 1280;
    if (!d.height) d.height = 720;
    if (d.width > OAK_MAX_OUTPUT_SIZE || d.height > OAK_MAX_OUTPUT_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "output size %ux%u exceeds %ux%u", d.width,
                         d.height, OAK_MAX_OUTPUT_SIZE, OAK_MAX_OUTPUT_SIZE);
    if ((uint64_t)d.width * d.height > OAK_MAX_OUTPUT_PIXELS)
        return oak_error(OAK_ERROR_LIMIT, "output size %ux%u exceeds OAK_MAX_OUTPUT_PIXELS (%u)",
                         d.width, d.height, OAK_MAX_OUTPUT_PIXELS);
    if ((unsigned)d.occlusion > OAK_OCCLUSION_OFF)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "occlusion mode %d is not one",
                         (int)d.occlusion);
    d.shadow_map_size = _oak_quality_shadow_map_size(&d);
    if (d.shadow_map_size > OAK_MAX_TEXTURE_SIZE / 2) /* the atlas is two maps across */
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "shadow map size %u exceeds %u",
                         d.shadow_map_size, OAK_MAX_TEXTURE_SIZE / 2);
    oak_renderer *r = oak_calloc(1, sizeof *r);
    if (!r) return OAK_ERROR_OUT_OF_MEMORY;
    r->desc = (oak_backend_desc){d.width, d.height, d.device, d.shadow_map_size, false, NULL};
    r->out_width = d.width, r->out_height = d.height, r->scale = 1.0f;
    r->occlusion = d.occlusion;

    const char *name = d.backend && d.backend[0] ? d.backend : "auto";
    oak_result res;
    if (strcmp(name, "auto") == 0) {
        /* Best first; the cpu backend always starts, null is never chosen. */
        r->desc.hardware_only = true;
        res = OAK_ERROR_DEVICE;
        size_t used = 0;
        for (uint32_t i = 0; i < oak_backend_count(); i++) {
            const oak_backend *b = _oak_backend_at(i);
            if (strcmp(b->name, "null") == 0) continue;
            r->desc.hardware_only = strcmp(b->name, "cpu") != 0;
            _oak_error_quiet(r->desc.hardware_only); /* said once below instead */
            res = try_create(r, b);
            _oak_error_quiet(false);
            if (res == OAK_OK) break;
            /* backends prefix their own messages with their name */
            const char *why = oak_last_error();
            size_t nl = strlen(b->name);
            bool named = strncmp(why, b->name, nl) == 0 && why[nl] == ':';
            used +=
                (size_t)snprintf(r->fallback + used, sizeof r->fallback - used, "%s%s%s%s",
                                 used ? "; " : "", named ? "" : b->name, named ? "" : ": ", why);
            if (used >= sizeof r->fallback) used = sizeof r->fallback - 1;
        }
        r->desc.hardware_only = false;
        if (res == OAK_OK && r->fallback[0])
            oak_log_info("backend auto chose %s (%s)", r->backend->name, r->fallback);
    } else {
        const oak_backend *b = _oak_backend_find(name);
        if (!b) {
            oak_free(r);
            return oak_error(OAK_ERROR_NOT_FOUND,
                             "unknown backend '%s' (try cpu, vulkan, gl, null or auto)", name);
        }
        res = try_create(r, b);
    }
    if (res != OAK_OK) {
        oak_free(r);
        return res;
    }
    *out = r;
    return OAK_OK;
}

void oak_destroy_renderer(oak_renderer *r) {
    if (!r) return;
    if (r->self) r->backend->destroy(r->self); /* NULL: attach_window lost it */
    _oak_frontend_release(&r->frontend);
    _oak_probe_cache_release(r->probes);
    oak_free(r->scaled);
    oak_free(r);
}

oak_result oak_renderer_resize(oak_renderer *r, uint32_t width, uint32_t height) {
    if (!width || !height || width > OAK_MAX_OUTPUT_SIZE || height > OAK_MAX_OUTPUT_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "output size %ux%u is out of range", width,
                         height);
    if ((uint64_t)width * height > OAK_MAX_OUTPUT_PIXELS)
        return oak_error(OAK_ERROR_LIMIT, "output size %ux%u exceeds OAK_MAX_OUTPUT_PIXELS (%u)",
                         width, height, OAK_MAX_OUTPUT_PIXELS);
    uint32_t rw, rh;
    _oak_render_scale_size(r->scale, width, height, &rw, &rh);
    oak_result res = r->backend->resize(r->self, rw, rh);
    if (res) return res;
    r->desc.width = rw;
    r->desc.height = rh;
    r->out_width = width, r->out_height = height;
    r->drawn = false;
    return OAK_OK;
}

/* The backend sized for this frame's render scale: every pass runs at the
   scaled size (docs/SHADING.md "Render scale"). */
static oak_result fit_scale(oak_renderer *r, const oak_frame_input *input) {
    float scale;
    oak_result res = _oak_render_scale_resolve(input->post, &scale);
    if (res) return res;
    uint32_t rw, rh;
    _oak_render_scale_size(scale, r->out_width, r->out_height, &rw, &rh);
    if (rw != r->desc.width || rh != r->desc.height) {
        res = r->backend->resize(r->self, rw, rh);
        if (res) return res;
        r->desc.width = rw, r->desc.height = rh;
        r->drawn = false;
    }
    r->scale = scale;
    r->channel = input->post ? input->post->channel : OAK_CHANNEL_NONE;
    return OAK_OK;
}

oak_result oak_renderer_draw(oak_renderer *r, const oak_frame_input *input) {
    if (!input) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "draw: no frame input");
    if (input->post && ((input->post->cloud_steps &&
                         (input->post->cloud_steps < 8 || input->post->cloud_steps > 256)) ||
                        input->post->cloud_scale > 8))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "draw: cloud_steps %u outside [8, 256] or cloud_scale %u outside [1, 8]",
                         input->post->cloud_steps, input->post->cloud_scale);
    if (input->post && (unsigned)input->post->channel >= OAK_CHANNEL_COUNT)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "draw: capture channel %d is not one",
                         (int)input->post->channel);
    oak_result res = fit_scale(r, input);
    if (res) return res;
    uint64_t t0 = oak_time_ns();
    r->frontend.gpu_streams = (r->backend->caps & OAK_CAP_GPU_STREAMS) != 0;
    r->frontend.gpu_particles = (r->backend->caps & OAK_CAP_PASS(OAK_PASS_PARTICLES)) != 0;
    r->frontend.gpu_grass = (r->backend->caps & OAK_CAP_PASS(OAK_PASS_GRASS)) != 0;
    r->frontend.fog_history = true; /* the renderer's view reprojects its fog */
    r->frontend.occlusion = r->occlusion == OAK_OCCLUSION_ON;
    r->frontend.gpu_occlusion = (r->backend->caps & OAK_CAP_GPU_OCCLUSION) != 0;
    r->frontend.aerial_cap = (r->backend->caps & OAK_CAP_AERIAL) != 0;
    /* a scaled frame keeps the output's shape, whatever the rounding did */
    oak_frame_input in = *input;
    /* a backend that runs the taa pass upsamples a scaled TAA frame to the
       output; any other is stretched */
    bool taa_pass = (r->backend->caps & OAK_CAP_PASS(OAK_PASS_TAA)) != 0;
    r->frontend.out_width = taa_pass ? r->out_width : 0;
    r->frontend.out_height = taa_pass ? r->out_height : 0;
    if (!(in.camera.aspect > 0)) in.camera.aspect = (float)r->out_width / (float)r->out_height;
    input = &in;
    res = _oak_frontend_build(&r->frontend, input, r->desc.width, r->desc.height,
                              r->desc.shadow_map_size);
    if (res) return res;
    r->frontend.view.frame = r->frame;
    /* the first adapting frame (or the first after the camera was fixed)
       meters and settles at once: a still render is right in one frame */
    r->frontend.view.adapt_settle = r->frontend.view.post.adapt && !r->adapting;
    double frontend_ms = oak_ms_since(t0);
    /* probes bake before the frame, through the same backend (their faces
       are frames of their own) */
    uint64_t bakes = r->probe_bakes, t1 = oak_time_ns();
    res = _oak_probes_update(r, input);
    if (res) return res;
    double probes_ms = oak_ms_since(t1);
    res = r->backend->sync(r->self, &r->frontend.view);
    if (res) return res;
    res = r->backend->render(r->self, &r->frontend.view);
    if (res) return res;
    uint32_t n = 0;
    r->timings[n++] = (oak_stage_timing){"frontend", frontend_ms, -1.0};
    if (r->probe_bakes != bakes) r->timings[n++] = (oak_stage_timing){"probebake", probes_ms, -1.0};
    r->timing_count = n + r->backend->timings(r->self, r->timings + n, OAK_MAX_STAGES - n);
    r->frame++;
    r->drawn = true;
    /* scale 1, or the taa pass upsampled the scaled frame: no stretch */
    r->upsampled =
        r->frontend.view.out_width == r->out_width && r->frontend.view.out_height == r->out_height;
    r->adapting =
        r->frontend.view.post.adapt && (r->backend->caps & OAK_CAP_PASS(OAK_PASS_EXPOSURE));
    return OAK_OK;
}

oak_result oak_renderer_read_pixels(oak_renderer *r, uint8_t *rgba, size_t size) {
    size_t need = (size_t)r->out_width * r->out_height * 4;
    if (size < need)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "read_pixels: buffer of %zu bytes, need %zu",
                         size, need);
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "read_pixels: nothing drawn yet");
    if (r->upsampled) return r->backend->read_pixels(r->self, rgba, size);
    /* the composite's stretch of the scaled frame (FXAA already ran on it) */
    size_t small = (size_t)r->desc.width * r->desc.height * 4;
    size_t bytes = small + (size_t)r->out_width * 3 * sizeof(uint32_t); /* + the column taps */
    if (r->scaled_size < bytes) {
        uint8_t *p = oak_realloc(r->scaled, bytes);
        if (!p) return OAK_ERROR_OUT_OF_MEMORY;
        r->scaled = p, r->scaled_size = bytes;
    }
    oak_result res = r->backend->read_pixels(r->self, r->scaled, small);
    if (res) return res;
    /* small is a multiple of 4: the taps after it are aligned */
    _oak_stretch_rgba8(rgba, r->out_width, r->out_height, r->scaled, r->desc.width, r->desc.height,
                       (uint32_t *)(void *)(r->scaled + small));
    return OAK_OK;
}

/* The backend made again with or without the window: what it had
   uploaded goes with it, and the next frame uploads it again. */
oak_result oak_renderer_attach_window(oak_renderer *r, const oak_window_hooks *hooks) {
    const oak_backend *b = r->backend;
    b->destroy(r->self);
    r->self = NULL;
    r->drawn = false;
    if (hooks) r->window = *hooks;
    r->desc.window = hooks ? &r->window : NULL;
    oak_result res = b->create(&r->self, &r->desc);
    if (res == OAK_OK && hooks && (!b->presentation || !b->presentation(r->self)))
        res = oak_error(OAK_ERROR_UNSUPPORTED, "%s: no native presentation", b->name);
    if (res == OAK_OK || !hooks) return res;
    /* headless again, keeping the first failure's line */
    char why[512];
    snprintf(why, sizeof why, "%s", oak_last_error());
    if (r->self) b->destroy(r->self);
    r->self = NULL;
    r->desc.window = NULL;
    oak_result again = b->create(&r->self, &r->desc);
    if (again) return again; /* the renderer has no backend now: the caller gives up */
    return oak_error(res, "%s", why);
}

const char *oak_renderer_presentation(const oak_renderer *r) {
    return r->desc.window && r->backend->presentation ? r->backend->presentation(r->self) : NULL;
}

oak_result oak_renderer_present(oak_renderer *r, uint32_t fb_width, uint32_t fb_height,
                                const oak_present_panel *panel, uint8_t *capture) {
    if (!oak_renderer_presentation(r))
        return oak_error(OAK_ERROR_UNSUPPORTED, "present: the %s backend presents no window",
                         r->backend->name);
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "present: nothing drawn yet");
    if (!fb_width || !fb_height) return OAK_OK; /* minimised */
    return r->backend->present(r->self, fb_width, fb_height, panel, capture);
}

oak_result oak_renderer_read_channel(oak_renderer *r, float *rgba, size_t count) {
    size_t need = (size_t)r->out_width * r->out_height * 4;
    if (!r->drawn || r->channel == OAK_CHANNEL_NONE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "read_channel: the last frame drew no channel");
    if (count < need)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "read_channel: %zu floats, need %zu", count,
                         need);
    if (!r->backend->read_hdr)
        return oak_error(OAK_ERROR_UNSUPPORTED, "read_channel: the %s backend keeps no frame",
                         r->backend->name);
    oak_result res = r->backend->read_hdr(r->self, rgba, count);
    if (res) return res;
    /* the backends write each channel as oak_channel decodes it; alpha 1
       except the motion's validity in z */
    for (size_t i = 0; i < need; i += 4) rgba[i + 3] = 1.0f;
    return OAK_OK;
}

float oak_renderer_render_scale(const oak_renderer *r, uint32_t *width, uint32_t *height) {
    if (width) *width = r->desc.width;
    if (height) *height = r->desc.height;
    return r->scale;
}

uint32_t oak_renderer_timings(const oak_renderer *r, oak_stage_timing *out, uint32_t max) {
    uint32_t n = r->timing_count < max ? r->timing_count : max;
    memcpy(out, r->timings, n * sizeof *out);
    return n;
}

const char *oak_renderer_backend(const oak_renderer *r) {
    return r->backend->name;
}
const char *oak_renderer_device(const oak_renderer *r) {
    return r->backend->device_name(r->self);
}
const char *oak_renderer_fallback_reason(const oak_renderer *r) {
    return r->fallback;
}
oak_result oak_renderer_shadow_stats(const oak_renderer *r, oak_shadow_stats *out) {
    *out = (oak_shadow_stats){0};
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "shadow stats: nothing drawn yet");
    if (!r->backend->shadow_stats)
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "shadow stats: the %s backend keeps no shadow cache", r->backend->name);
    r->backend->shadow_stats(r->self, out);
    return OAK_OK;
}
oak_result oak_renderer_blend_stats(const oak_renderer *r, oak_blend_stats *out) {
    *out = (oak_blend_stats){0};
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "blend stats: nothing drawn yet");
    if (!r->backend->blend_stats)
        return oak_error(OAK_ERROR_UNSUPPORTED, "blend stats: the %s backend keeps none",
                         r->backend->name);
    r->backend->blend_stats(r->self, out);
    return OAK_OK;
}
oak_result oak_renderer_meshlet_stats(const oak_renderer *r, oak_meshlet_stats *out) {
    *out = (oak_meshlet_stats){0};
    if (!r->backend->meshlet_stats)
        return oak_error(OAK_ERROR_UNSUPPORTED, "%s backend culls no meshlets", r->backend->name);
    r->backend->meshlet_stats(r->self, out);
    return OAK_OK;
}

oak_result oak_renderer_upload_stats(const oak_renderer *r, oak_upload_stats *out) {
    if (!out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "upload stats: no output");
    *out = (oak_upload_stats){0};
    /* no message: callers ask every frame, whatever the backend */
    if (!r->backend->upload_stats) return OAK_ERROR_UNSUPPORTED;
    r->backend->upload_stats(r->self, out);
    return OAK_OK;
}

oak_result oak_renderer_occlusion_stats(const oak_renderer *r, oak_occlusion_stats *out) {
    if (!out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "occlusion stats: no output");
    *out = r->frontend.occ_stats;
    /* under Hi-Z the GPU's counters, read back without a wait: those of the
       latest frame it finished (a frame or two late while frames run) */
    oak_occlusion_stats g;
    if (r->frontend.view.occ_gpu && r->backend->occlusion_stats &&
        r->backend->occlusion_stats(r->self, &g)) {
        out->draws_occluded = g.draws_occluded;
        out->drawn_pass1 = g.drawn_pass1;
        out->drawn_pass2 = g.drawn_pass2;
        /* the natively drawn streams' (the frontend's count the rest) */
        out->instances_tested += g.instances_tested;
        out->instances_frustum += g.instances_frustum;
        out->instances_occluded += g.instances_occluded;
        out->instances_pass1 = g.instances_pass1;
        out->instances_pass2 = g.instances_pass2;
    }
    return OAK_OK;
}

void oak_renderer_set_occlusion(oak_renderer *r, oak_occlusion_mode mode) {
    r->occlusion = mode == OAK_OCCLUSION_ON ? OAK_OCCLUSION_ON : OAK_OCCLUSION_OFF;
}

oak_result oak_renderer_stream_stats(const oak_renderer *r, oak_stream_stats *out) {
    if (!r || !out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream stats: NULL argument");
    *out = (oak_stream_stats){0};
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream stats: nothing drawn yet");
    *out = r->frontend.view.stream_stats;
    /* natively drawn streams were culled by the backend's instcull pass
       alone: the per-LOD counts are its (a read-back), over every stream */
    const oak_render_view *v = &r->frontend.view;
    bool native = false;
    for (uint32_t s = 0; s < v->stream_count; s++) native |= v->streams[s].native;
    if (!native || !r->backend->read_stream_counts) return OAK_OK;
    uint32_t per[OAK_STREAM_LODS];
    oak_result res = r->backend->read_stream_counts(r->self, per, NULL, 0, out->per_instance);
    if (res) return res;
    out->visible = 0;
    for (uint32_t k = 0; k < OAK_STREAM_LODS; k++) out->per_lod[k] = per[k], out->visible += per[k];
    return OAK_OK;
}
oak_result oak_renderer_read_stream_counts(oak_renderer *r, uint32_t per_lod[OAK_STREAM_LODS]) {
    if (!r || !per_lod)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream counts: NULL argument");
    memset(per_lod, 0, sizeof(uint32_t) * OAK_STREAM_LODS);
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream counts: nothing drawn yet");
    if (!r->backend->read_stream_counts || !(r->backend->caps & OAK_CAP_PASS(OAK_PASS_INSTCULL)))
        return oak_error(OAK_ERROR_UNSUPPORTED, "stream counts: the %s backend runs no instcull",
                         r->backend->name);
    if (!r->frontend.view.stream_count) return OAK_OK; /* the pass did not run */
    return r->backend->read_stream_counts(r->self, per_lod, NULL, 0, NULL);
}
oak_result oak_renderer_stream_counts(oak_renderer *r, oak_stream_visibility *out, uint32_t max,
                                      uint32_t *count) {
    if (!r || !count || (max && !out))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream counts: NULL argument");
    *count = 0;
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream counts: nothing drawn yet");
    const oak_render_view *v = &r->frontend.view;
    uint32_t n = v->stream_count < max ? v->stream_count : max;
    bool native = false;
    for (uint32_t s = 0; s < n; s++) {
        const oak_render_stream *rs = &v->streams[s];
        out[s] = (oak_stream_visibility){.stream = rs->stream,
                                         .instances = rs->count,
                                         .lod_count = rs->lod_count,
                                         .native = rs->native};
        memcpy(out[s].per_lod, rs->visible_count, sizeof out[s].per_lod);
        native |= rs->native;
    }
    *count = v->stream_count;
    if (!native || !r->backend->read_stream_counts) return OAK_OK;
    /* the instcull pass's lists, as oak_renderer_stream_stats reads them */
    uint32_t per[OAK_STREAM_LODS], each[OAK_STREAM_MAX_PER_VIEW * OAK_STREAM_LODS];
    oak_result res = r->backend->read_stream_counts(r->self, per, each, n, NULL);
    if (res) return res;
    for (uint32_t s = 0; s < n; s++)
        if (out[s].native)
            memcpy(out[s].per_lod, each + s * OAK_STREAM_LODS, sizeof out[s].per_lod);
    return OAK_OK;
}
uint64_t oak_renderer_probe_bakes(const oak_renderer *r) {
    return r ? r->probe_bakes : 0;
}
oak_result oak_renderer_exposure(oak_renderer *r, oak_exposure_info *out) {
    if (!r || !out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "exposure: NULL argument");
    *out = (oak_exposure_info){0};
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "exposure: nothing drawn yet");
    const oak_post *p = &r->frontend.view.post;
    out->ev100 = p->ev100;
    out->exposure = p->exposure;
    if (!r->adapting) return OAK_OK; /* the fixed camera */
    float s[4];
    oak_result res = r->backend->read_exposure ? r->backend->read_exposure(r->self, s)
                                               : oak_error(OAK_ERROR_UNSUPPORTED,
                                                           "exposure: the %s backend adapts "
                                                           "without a read-back",
                                                           r->backend->name);
    if (res) return res;
    *out = (oak_exposure_info){.adapting = true,
                               .ev100 = s[0],
                               .exposure = s[1],
                               .metered_ev100 = s[2],
                               .target_ev100 = s[3]};
    return OAK_OK;
}
const struct oak_render_view *oak_renderer_last_view(const oak_renderer *r) {
    return &r->frontend.view;
}

void oak_renderer_size(const oak_renderer *r, uint32_t *width, uint32_t *height) {
    if (width) *width = r->out_width;
    if (height) *height = r->out_height;
}

oak_result oak_renderer_read_sky(oak_renderer *r, float *texels, size_t count, uint32_t *captures) {
    if (!r->backend->read_sky)
        return oak_error(OAK_ERROR_UNSUPPORTED, "sky: the %s backend keeps no sky maps",
                         r->backend->name);
    return r->backend->read_sky(r->self, texels, count, captures);
}

oak_result oak_renderer_read_shadow_map(oak_renderer *r, float *depth, size_t count) {
    if (!r || !depth) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "shadow map: NULL argument");
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "shadow map: nothing drawn yet");
    if (!r->backend->read_shadow_map)
        return oak_error(OAK_ERROR_UNSUPPORTED, "shadow map: the %s backend has no read",
                         r->backend->name);
    return r->backend->read_shadow_map(r->self, depth, count);
}

oak_result oak_renderer_read_light_grid(oak_renderer *r, oak_light_grid_info *info,
                                        uint32_t *counts, uint32_t *lists) {
    if (!r->drawn) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "light grid: nothing drawn yet");
    if (!r->backend->read_light_grid)
        return oak_error(OAK_ERROR_UNSUPPORTED, "light grid: the %s backend builds none",
                         r->backend->name);
    uint32_t *w = oak_alloc(sizeof(uint32_t) * OAK_GPU_LIGHT_GRID_WORDS);
    if (!w) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "light grid: no memory for the read-back");
    oak_result res = r->backend->read_light_grid(r->self, w, OAK_GPU_LIGHT_GRID_WORDS);
    if (res == OAK_OK) {
        const oak_gpu_light_grid *h = (const oak_gpu_light_grid *)w;
        const uint32_t *c = w + OAK_GPU_LIGHT_GRID_HEAD_WORDS;
        oak_light_grid_info in = {.lamps = h->info[1] - h->info[0], .overflow = h->info[2]};
        for (uint32_t i = 0; i < OAK_LIGHT_GRID_CELLS; i++) {
            in.listed += c[i];
            if (c[i] > in.max_cell) in.max_cell = c[i];
        }
        if (info) *info = in;
        if (counts) memcpy(counts, c, sizeof(uint32_t) * OAK_LIGHT_GRID_CELLS);
        if (lists)
            memcpy(lists, c + OAK_LIGHT_GRID_CELLS,
                   sizeof(uint32_t) * OAK_LIGHT_GRID_CELLS * OAK_LIGHT_CELL_MAX);
    }
    oak_free(w);
    return res;
}
