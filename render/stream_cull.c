/* The cull-and-LOD kernel every instance stream goes through, on the job
 * pool: record to matrix, LOD by distance (or the stream's override), the
 * LOD mesh's sphere against the frustum and the occlusion slot; then each
 * stream's per-LOD visible lists, the frame's counters, and the instances
 * appended to the frontend's input as draws (backend.h oak_render_stream). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "pose_stream.h"
#include "shaders/common/oak_gpu.h"
#include "stream.h"

/* The wind resolved for one stream: unit direction, strength times its
   sway, the gust share; wavelength, speed and time. */
static void wind_resolve(float wind[4], float gust[4], const oak_wind *w, float sway) {
    float dx = w->direction[0], dz = w->direction[1];
    float n = dx * dx + dz * dz;
    if (!(n > 0)) dx = 1, dz = 0, n = 1;
    float inv = 1.0f / sqrtf(n);
    wind[0] = dx * inv;
    wind[1] = dz * inv;
    wind[2] = w->strength * sway;
    wind[3] = w->gust > 0 ? (w->gust < 1 ? w->gust : 1) : 0;
    gust[0] = w->gust_wavelength > 0 ? w->gust_wavelength : (float)OAK_WIND_GUST_WAVELENGTH;
    gust[1] = w->gust_speed > 0 ? w->gust_speed : (float)OAK_WIND_GUST_SPEED;
    gust[2] = w->time;
    gust[3] = 0;
}

/* The field at (x, z): fronts of a wave (and its octave, skewed across
   the wind) that travel along the wind; depends on x, z and t only
   through (along - speed t), so a gust keeps its shape as it moves.
   Every step as bend.glsl's oak_wind_at does it. */
static void shear_at(const float wind[4], const float gust[4], float x, float z, float out[2]) {
    float along = x * wind[0] + z * wind[1];
    float across = z * wind[0] - x * wind[1];
    float u = (along - gust[1] * gust[2]) / gust[0];
    u = u - floorf(u);
    float v = across / (2.3f * gust[0]);
    v = v - floorf(v);
    float p = 0.7f * sinf(6.28318530718f * u) + 0.3f * sinf(6.28318530718f * (2.0f * u + v));
    float m = wind[2] * (1.0f + wind[3] * p);
    out[0] = m * wind[0];
    out[1] = m * wind[1];
}

void oak_wind_shear(const oak_wind *wind, float x, float z, float out[2]) {
    out[0] = out[1] = 0;
    if (!wind) return;
    float w[4], g[4];
    wind_resolve(w, g, wind, 1.0f);
    shear_at(w, g, x, z, out);
}

bool _oak_instance_bend_make(oak_instance_bend *out, const oak_stream_desc *d,
                             const oak_environment *env, float time, const float eye[3]) {
    memset(out, 0, sizeof *out);
    bool any = false;
    if (env && d->sway > 0) {
        oak_wind w = env->wind;
        w.time = time;
        wind_resolve(out->wind, out->gust, &w, d->sway);
        any = out->wind[2] != 0;
        uint32_t n = env->bender_count < OAK_BENDERS_MAX ? env->bender_count : OAK_BENDERS_MAX;
        for (uint32_t i = 0; i < n; i++) {
            if (!(env->benders[i].radius > 0)) continue;
            memcpy(out->bender[out->benders], env->benders[i].center, sizeof(float) * 3);
            out->bender[out->benders++][3] = env->benders[i].radius;
            any = true;
        }
    } else {
        out->gust[0] = 1; /* a still field: never divides by zero */
    }
    float last = d->lod_count ? d->lods[d->lod_count - 1].distance : 0;
    if (d->sink > 0 && last > 0) {
        out->sink[0] = last;
        out->sink[1] = d->sink;
        out->sink[2] = d->sink_depth > 0 ? d->sink_depth : (float)OAK_SINK_DEPTH;
        any = true;
    }
    memcpy(out->eye, eye, sizeof out->eye);
    return any;
}

void _oak_instance_matrix(const oak_instance_bend *b, const oak_instance *rec, mat4 out) {
    float x = rec->rotation[0], y = rec->rotation[1], z = rec->rotation[2], w = rec->rotation[3];
    float n = x * x + y * y + z * z + w * w;
    if (!(n > 0)) x = y = z = 0, w = 1, n = 1;
    float k = 2.0f / n, s = rec->scale;
    /* the rotation's columns */
    float r0[3] = {1 - k * (y * y + z * z), k * (x * y + z * w), k * (x * z - y * w)};
    float r1[3] = {k * (x * y - z * w), 1 - k * (x * x + z * z), k * (y * z + x * w)};
    float r2[3] = {k * (x * z + y * w), k * (y * z - x * w), 1 - k * (x * x + y * y)};
    float px = rec->position[0], py = rec->position[1], pz = rec->position[2];
    float a = 0, c = 0, f = 1;
    if (b) {
        float sh[2];
        shear_at(b->wind, b->gust, px, pz, sh);
        for (uint32_t i = 0; i < b->benders; i++) {
            float dx = px - b->bender[i][0], dy = py - b->bender[i][1], dz = pz - b->bender[i][2];
            float d = sqrtf(dx * dx + dy * dy + dz * dz);
            if (!(d < b->bender[i][3])) continue;
            float t = 1.0f - d / b->bender[i][3];
            float h = sqrtf(dx * dx + dz * dz);
            if (h > 1e-4f) {
                sh[0] = sh[0] + dx / h * (t * (float)OAK_BEND_PUSH);
                sh[1] = sh[1] + dz / h * (t * (float)OAK_BEND_PUSH);
            }
            f = f * (1.0f - (float)OAK_BEND_FLATTEN * t);
        }
        if (b->sink[1] > 0) {
            float ex = px - b->eye[0], ey = py - b->eye[1], ez = pz - b->eye[2];
            float t = (b->sink[0] - sqrtf(ex * ex + ey * ey + ez * ez)) / b->sink[1];
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            py = py - (1.0f - t) * b->sink[2];
            f = f * t;
        }
        /* the world's horizontal shear in the instance's own x and z */
        a = r0[0] * sh[0] + r0[2] * sh[1];
        c = r2[0] * sh[0] + r2[2] * sh[1];
    }
    /* rotate * (shear instance y along x and z, then scale it by f) * scale */
    float fs = f * s;
    for (int i = 0; i < 3; i++) {
        out[0][i] = r0[i] * s;
        out[1][i] = (r1[i] + a * r0[i] + c * r2[i]) * fs;
        out[2][i] = r2[i] * s;
    }
    out[0][3] = out[1][3] = out[2][3] = 0;
    out[3][0] = px;
    out[3][1] = py;
    out[3][2] = pz;
    out[3][3] = 1;
}

uint32_t _oak_stream_cull_instance(const oak_stream_cull_params *p, const oak_instance *rec,
                                   uint32_t i, mat4 world, uint32_t *lod_out, float sphere[4]) {
    sphere[3] = NAN;
    _oak_instance_matrix(p->bend, rec, world);
    float d[3] = {rec->position[0] - p->eye[0], rec->position[1] - p->eye[1],
                  rec->position[2] - p->eye[2]};
    float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    uint32_t lod = 0;
    while (lod + 1 < p->lod_count && dist >= p->lod_distance[lod]) lod++;
    float last = p->lod_distance[p->lod_count - 1];
    bool gone = lod + 1 == p->lod_count && last > 0 && dist >= last;
    /* tiers: the owner's pick wins over the distance's (and brings back a gone one) */
    if (p->lod_override && p->lod_override[i] != 0xffu) {
        lod = p->lod_override[i] < p->lod_count ? p->lod_override[i] : p->lod_count - 1;
        gone = false;
    }
    if (gone || !(rec->scale > 0)) {
        *lod_out = OAK_STREAM_GONE;
        return OAK_STREAM_GONE;
    }
    *lod_out = lod;
    float c[3], r;
    if (p->pose_sphere) { /* a posed stream: the sphere over every bank pose */
        const float *ps = p->pose_sphere[lod];
        for (int k = 0; k < 3; k++)
            c[k] = world[0][k] * ps[0] + world[1][k] * ps[1] + world[2][k] * ps[2] + world[3][k];
        float sc = 0;
        for (int i = 0; i < 3; i++) {
            float l = sqrtf(world[i][0] * world[i][0] + world[i][1] * world[i][1] +
                            world[i][2] * world[i][2]);
            sc = l > sc ? l : sc;
        }
        r = ps[3] * sc;
        if (!oak_frustum_sphere(p->planes, c, r)) return OAK_STREAM_CULLED;
    } else {
        if (!_oak_draw_sphere(p->lods[lod], world, c, &r)) return OAK_STREAM_CULLED;
        sphere[0] = c[0], sphere[1] = c[1], sphere[2] = c[2], sphere[3] = r;
        if (!oak_frustum_sphere(p->planes, c, r)) return OAK_STREAM_CULLED;
    }
    if (p->occlusion && !p->occlusion(p->occlusion_user, c, r)) return OAK_STREAM_OCCLUDED;
    return lod;
}

typedef struct stream_job {
    oak_frontend *fe;
    const oak_stream *stream;
    oak_stream_cull_params params;
    uint32_t base;  /* the stream's first draw in stream_input */
    uint32_t flags; /* oak_draw_flags of every instance this frame */
    bool live;      /* its material is live (a destroyed one draws nothing) */
    /* posed: the bank, last frame's records (the previous phases) and this
       stream's palettes in frame memory, `stride` floats an instance */
    const oak_pose_bank *bank;
    const oak_instance *prev;
    float *palettes;
    uint32_t stride;
    uint32_t impostor_lod; /* > 0: that LOD is an impostor card (oak_stream_desc) */
} stream_job;

static void cull_stream_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    stream_job *j = user;
    oak_frontend *fe = j->fe;
    const oak_stream *s = j->stream;
    for (uint32_t i = begin; i < end; i++) {
        const oak_instance *rec = &s->records[i];
        uint32_t o = j->base + i, lod;
        uint32_t r =
            _oak_stream_cull_instance(&j->params, rec, i, fe->sx_world[o], &lod, fe->sphere[o]);
        if (!j->live) r = lod = OAK_STREAM_GONE, fe->sphere[o][3] = NAN;
        fe->sx_lod[o] = (uint8_t)r;
        fe->sx_mesh[o] = lod == OAK_STREAM_GONE ? (oak_mesh){0} : j->params.lods[lod];
        fe->sx_pose[o] = NULL;
        bool card = j->impostor_lod && lod == j->impostor_lod;
        if (j->bank && lod != OAK_STREAM_GONE) { /* this frame's pose, then last frame's */
            float *pal = j->palettes + (size_t)i * j->stride + 1;
            pal[-1] = (float)(j->stride / 24); /* the joints (oak_draw_list.pose) */
            if (card)                          /* turned to the eye, its cell's uv offset beside */
                _oak_impostor_pose(j->bank, rec, &j->prev[i], j->params.eye, pal);
            else {
                uint32_t slots = 2 * s->desc.pose_overrides;
                _oak_pose_palette(j->bank, s->overrides, slots, rec->phase, pal);
                _oak_pose_palette(j->bank, s->overrides, slots, j->prev[i].phase,
                                  pal + j->stride / 24 * 12);
            }
            fe->sx_pose[o] = pal;
        }
        fe->sx_material[o] = card ? s->desc.impostor_material : s->desc.material;
        /* a card turns with the eye: it casts as a mover, never from a
           cached static layer drawn from another eye */
        fe->sx_flags[o] = j->flags | (card ? OAK_DRAW_IMPOSTOR | OAK_DRAW_MOVING : 0);
        float *col = fe->sx_color + (size_t)o * 4;
        col[0] = rec->color[0], col[1] = rec->color[1], col[2] = rec->color[2];
        col[3] = s->desc.phase_opacity ? oak_instance_phase_opacity(rec->phase) : 1.0f;
    }
}

void _oak_streams_release(oak_frontend *fe) {
    oak_free(fe->sx_mesh);
    oak_free(fe->sx_material);
    oak_free(fe->sx_world);
    oak_free(fe->sx_flags);
    oak_free(fe->sx_color);
    oak_free(fe->sx_lod);
    oak_free(fe->sx_visible);
    oak_free(fe->sx_pose);
    oak_free(fe->sx_palettes);
    for (uint32_t s = 0; s < OAK_STREAM_MAX_PER_VIEW; s++)
        for (int k = 0; k < 2; k++) oak_free(fe->stream_last[s][k]);
}

/* Last frame's records of slot s (for motion), and this frame's kept when
   the stream moved; false when out of memory. */
static bool keep_last(oak_frontend *fe, uint32_t s, const oak_stream *st, bool same) {
    oak_render_stream *rs = &fe->streams[s];
    uint32_t n = st->count;
    if (st->desc.source == OAK_STREAM_SOURCE_GRASS) {
        /* a grass record never moves while it lives (render.h): last
           frame's records are this frame's, no copy (prev_records NULL) */
        rs->prev_version = st->version;
        return true;
    }
    if (!OAK_GROW(fe->stream_last[s][0], fe->stream_last_cap[s][0], n ? n : 1) ||
        !OAK_GROW(fe->stream_last[s][1], fe->stream_last_cap[s][1], n ? n : 1))
        return false;
    rs->prev_version = st->version;
    if (!same) { /* a stream new to this slot: it has no past, so no motion */
        memcpy(fe->stream_last[s][0], st->records, (size_t)n * sizeof *st->records);
    } else if (rs->moved) {
        rs->prev_version = fe->stream_seen_version[s]; /* last frame's */
        /* [0] holds last frame's; this frame's goes to [1], then they swap */
        memcpy(fe->stream_last[s][1], st->records, (size_t)n * sizeof *st->records);
        oak_instance *t = fe->stream_last[s][0];
        fe->stream_last[s][0] = fe->stream_last[s][1];
        fe->stream_last[s][1] = t;
        uint32_t c = fe->stream_last_cap[s][0];
        fe->stream_last_cap[s][0] = fe->stream_last_cap[s][1];
        fe->stream_last_cap[s][1] = c;
        rs->prev_records = fe->stream_last[s][1];
        return true;
    }
    rs->prev_records = fe->stream_last[s][0];
    return true;
}

oak_result _oak_frontend_streams(oak_frontend *fe, const oak_frame_input **input) {
    const oak_frame_input *in = *input;
    oak_render_view *v = &fe->view;
    v->stream_count = 0;
    v->streams = fe->streams;
    memset(&v->stream_stats, 0, sizeof v->stream_stats);
    uint32_t ns = in->stream_count;
    if (!ns) return OAK_OK;
    if (!in->streams)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "frame input: %u streams but no array", ns);
    if (ns > OAK_STREAM_MAX_PER_VIEW)
        return oak_error(OAK_ERROR_LIMIT,
                         "frame input: %u streams, at most OAK_STREAM_MAX_PER_VIEW (%u)", ns,
                         OAK_STREAM_MAX_PER_VIEW);
    uint64_t total = in->draw_count;
    for (uint32_t s = 0; s < ns; s++) {
        if (!in->streams[s])
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "frame input: stream %u is NULL", s);
        const oak_stream_desc *d = &in->streams[s]->desc;
        for (uint32_t k = 0; k < d->lod_count; k++) {
            const oak_mesh_data *md = oak_mesh_get(d->lods[k].mesh);
            if (!md)
                return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                                 "frame input: stream %u's LOD %u mesh was destroyed", s, k);
            if (md->index_count / 3 > OAK_GPU_STREAM_MAX_TRIANGLES)
                return oak_error(
                    OAK_ERROR_LIMIT,
                    "frame input: stream %u's LOD %u mesh has %u triangles, at most %u", s, k,
                    md->index_count / 3, OAK_GPU_STREAM_MAX_TRIANGLES);
        }
        total += in->streams[s]->count;
    }
    if (total > UINT32_MAX / 2)
        return oak_error(OAK_ERROR_LIMIT, "frame input: %llu draws and instances",
                         (unsigned long long)total);
    uint32_t n = (uint32_t)total, nd = in->draw_count;
    if (nd && (!in->meshes || !in->materials || !in->transforms))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "frame input: %u draws but no columns", nd);
    /* where each stream's instances go among the input draws: those the
       view's draws take first, the natively drawn ones (OAK_CAP_GPU_STREAMS,
       not BLEND) after them, so the view's (and the cascades') input is a
       prefix. A native stream is expanded at all only while a lamp may cast
       (the lamp atlas still takes its casters from draws); else it costs
       the frontend nothing per instance. */
    bool lamps = false;
    for (uint32_t i = 0; i < in->light_count && in->lights; i++)
        lamps |= in->lights[i].light.cast_shadows && (in->lights[i].light.type == OAK_LIGHT_POINT ||
                                                      in->lights[i].light.type == OAK_LIGHT_SPOT);
    uint32_t firsts[OAK_STREAM_MAX_PER_VIEW], at_input = nd;
    bool natives[OAK_STREAM_MAX_PER_VIEW], expand[OAK_STREAM_MAX_PER_VIEW];
    bool blends[OAK_STREAM_MAX_PER_VIEW], blend_device[OAK_STREAM_MAX_PER_VIEW];
    const char *dev_blend_env = getenv("OAK_PARTICLE_DEVICE_BLEND");
    const char *dev_sort_env = getenv("OAK_PARTICLE_DEVICE_SORT");
    bool dev_blend_on = !dev_blend_env || strcmp(dev_blend_env, "off") != 0;
    bool dev_sort_on = dev_blend_on && (!dev_sort_env || strcmp(dev_sort_env, "off") != 0);
    bool sorts[OAK_STREAM_MAX_PER_VIEW];
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t s = 0; s < ns; s++) {
            const oak_stream *str = in->streams[s];
            const oak_material_data *md = oak_material_get(str->desc.material);
            /* the GPU kernel does not read the tiers' LOD override yet */
            natives[s] = fe->gpu_streams && md && md->desc.alpha_mode != OAK_ALPHA_BLEND &&
                         !str->lod_override;
            expand[s] = !natives[s] || lamps;
            /* a BLEND PARTICLES stream the device writes as draw records:
               one input draw stands for it (its unit), the particles pass
               fills the rest; one quad, no LOD band, nothing that bends
               (the kernel builds the plain matrix) and no lamp that casts;
               an "over" one sorted far to near there too (its own switch) */
            sorts[s] = md && md->desc.alpha_mode == OAK_ALPHA_BLEND && !md->desc.additive;
            blends[s] = (sorts[s] ? dev_sort_on : dev_blend_on) && fe->gpu_streams &&
                        fe->gpu_particles && md && md->desc.alpha_mode == OAK_ALPHA_BLEND &&
                        str->desc.source == OAK_STREAM_SOURCE_PARTICLES && str->particles &&
                        !str->lod_override && !lamps && str->desc.lod_count == 1 &&
                        !(str->desc.lods[0].distance > 0) && !(str->desc.sway > 0) &&
                        !str->desc.pose_bank;
            if (blends[s]) expand[s] = false;
            blend_device[s] = blends[s]; /* an empty one: nothing to fill, no draw */
            blends[s] = blends[s] && str->count > 0;
            if (pass == 0) firsts[s] = UINT32_MAX;
            if (blends[s] && pass == 0) {
                firsts[s] = at_input++;
                continue;
            }
            if (natives[s] != (pass == 1) || !expand[s]) continue;
            firsts[s] = at_input;
            at_input += in->streams[s]->count;
        }
        if (pass == 0) fe->view_input.draw_count = at_input;
    }
    n = at_input;
    /* the posed instances' palettes: this frame's and last frame's each */
    uint64_t pal_floats = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (expand[s] && in->streams[s]->desc.pose_bank)
            pal_floats += (uint64_t)in->streams[s]->count *
                          (oak_pose_bank_joints(in->streams[s]->desc.pose_bank) * 24 + 1);
    if (pal_floats >= UINT32_MAX / 2)
        return oak_error(OAK_ERROR_LIMIT, "frame input: %llu floats of posed palettes",
                         (unsigned long long)pal_floats);
    if (!OAK_GROW(fe->sx_pose, fe->sx_pose_cap, n ? n : 1) ||
        !OAK_GROW(fe->sx_palettes, fe->sx_palettes_cap, (uint32_t)pal_floats + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "frame input: no memory for posed palettes");
    if (!OAK_GROW(fe->sx_mesh, fe->sx_cap, n) || !OAK_GROW(fe->sx_material, fe->sx_cap2, n) ||
        !OAK_GROW(fe->sx_world, fe->sx_cap3, n) || !OAK_GROW(fe->sx_flags, fe->sx_cap4, n) ||
        !OAK_GROW(fe->sx_color, fe->sx_cap5, (size_t)n * 4) ||
        !OAK_GROW(fe->sx_lod, fe->sx_lod_cap, n) || !OAK_GROW(fe->sphere, fe->sphere_cap, n) ||
        !OAK_GROW(fe->sx_visible, fe->sx_visible_cap, n - nd + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "frame input: no memory for %u instances",
                         n - nd);

    /* the input's own draws first, as they are */
    if (nd) {
        memcpy(fe->sx_mesh, in->meshes, nd * sizeof *in->meshes);
        memcpy(fe->sx_material, in->materials, nd * sizeof *in->materials);
        memcpy(fe->sx_world, in->transforms, nd * sizeof(mat4));
        for (uint32_t i = 0; i < nd; i++) fe->sx_flags[i] = in->flags ? in->flags[i] : 0;
        for (uint32_t i = 0; i < nd; i++) fe->sx_pose[i] = NULL;
        if (in->colors)
            memcpy(fe->sx_color, in->colors, (size_t)nd * 4 * sizeof(float));
        else
            for (size_t i = 0; i < (size_t)nd * 4; i++) fe->sx_color[i] = 1;
    }

    /* the wind's time now and last frame (a first frame has no past) */
    float wind_time = in->environment ? in->environment->wind.time : 0;
    float wind_prev = fe->wind_seen ? fe->wind_last_time : wind_time;
    fe->wind_last_time = wind_time;
    fe->wind_seen = true;
    vec4 planes[6];
    oak_frustum_planes(v->view_proj, planes);
    oak_stream_stats *st = &v->stream_stats;
    uint32_t *visible = fe->sx_visible;
    float *palettes = fe->sx_palettes;
    for (uint32_t s = 0; s < ns; s++) {
        const oak_stream *str = in->streams[s];
        oak_render_stream *rs = &fe->streams[s];
        /* a PARTICLES stream drawn natively by a backend with the particles
           pass: the device writes its records (this frame's and last
           frame's); anywhere else the host's are the C evaluation, filled
           now (the streams are the caller's, listed in its scene) */
        bool device = str->desc.source == OAK_STREAM_SOURCE_PARTICLES && str->particles &&
                      fe->gpu_particles && ((natives[s] && !expand[s]) || blend_device[s]);
        /* a GRASS stream the device grows, drawn natively by a backend with
           the grass pass: the kernel writes its slots (docs/WORLD.md "Grass") */
        bool grass = str->desc.source == OAK_STREAM_SOURCE_GRASS && str->grass_job &&
                     fe->gpu_grass && natives[s] && !expand[s];
        if (!device && !grass) {
            if (str->host_stale) st->host_filled += str->count;
            _oak_stream_host_records((oak_stream *)str);
        }
        bool same = fe->stream_seen[s] == str->serial;
        uint32_t base = firsts[s];
        *rs = (oak_render_stream){.records = str->records,
                                  .count = str->count,
                                  .version = str->version,
                                  .moved = !same || fe->stream_seen_version[s] != str->version,
                                  .lod_count = str->desc.lod_count,
                                  .material = str->desc.material,
                                  .flags = str->desc.flags,
                                  .first_input = base,
                                  .native = natives[s],
                                  .stream = str,
                                  .grass = grass,
                                  .device_blend = blends[s],
                                  .device_sort = blends[s] && sorts[s] && str->sort_fwd[3] != 0};
        /* wind, benders and the sink: a stream they bend moves every frame */
        oak_instance_bend *bend = &rs->bend;
        bool bent =
            _oak_instance_bend_make(bend, &str->desc, in->environment, wind_time, v->camera_pos);
        rs->bent = bent;
        /* LOD by projected size: the view's factor on the LOD distances
           (below) and on the sink's start and band (only a sinking stream
           has them), here once, so the C kernel, every backend's instcull,
           the compute raster's plans and the static layers' keys read the
           same scaled bands */
        float ls = v->lod_scale > 0 ? v->lod_scale : 1.0f;
        bend->sink[0] *= ls;
        bend->sink[1] *= ls;
        rs->prev_time = wind_prev;
        if (device) { /* no host copy: the kernel writes last frame's too */
            rs->prev_records = str->records, rs->prev_version = str->version;
            rs->particle_constants = &str->particle_constants;
            rs->particles = str->particles;
            rs->particle_version = str->particle_version;
        } else if (!keep_last(fe, s, str, same))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "stream %u: no memory for last frame", s);
        /* after keep_last, which copies the records only when they moved:
           swaying ones move every frame for the shadows' sake */
        if (bent && (bend->wind[2] != 0 || bend->benders)) rs->moved = true;
        fe->stream_seen[s] = str->serial;
        fe->stream_seen_version[s] = str->version;
        /* the last (gone) distance too, for a stream that sinks into the
           ground before it (grass, flowers: the ground's colour carries on
           past it); any other's is a draw distance, a budget, not a size (a
           15 m tree at a third of the forest's 400 m is still 12 px tall at
           640 x 360), so its switches scale and its reach stays */
        uint32_t nl = str->desc.lod_count;
        for (uint32_t k = 0; k < nl; k++) {
            rs->lods[k] = str->desc.lods[k].mesh;
            float d = str->desc.lods[k].distance;
            rs->lod_distance[k] = k + 1 < nl || str->desc.sink > 0 ? d * ls : d;
        }
        rs->pose_bank = str->desc.pose_bank;
        _oak_stream_cull_spheres(str, rs->pose_sphere); /* grown by the overrides' bound */
        rs->impostor_lod = str->desc.impostor_lod;
        rs->impostor_material = str->desc.impostor_material;
        rs->pose_overrides = str->overrides;
        rs->pose_override_slots = 2 * str->desc.pose_overrides;
        rs->pose_override_version = str->override_version;
        st->instances += str->count;
        st->moved += rs->moved;
        if (blends[s]) { /* the unit's one draw: its quad, never culled (the raster clips) */
            fe->sx_mesh[base] = str->desc.lods[0].mesh;
            fe->sx_material[base] = str->desc.material;
            glm_mat4_identity(fe->sx_world[base]);
            memcpy(fe->sx_world[base][3], str->unit_point, sizeof(float) * 3);
            fe->sx_flags[base] = (str->desc.flags & ~(uint32_t)OAK_DRAW_MOVING) | OAK_DRAW_MOVING;
            for (int k = 0; k < 4; k++) fe->sx_color[(size_t)base * 4 + k] = 1;
            fe->sx_lod[base] = 0;
            fe->sx_pose[base] = NULL;
            fe->sphere[base][3] = NAN; /* the fits compute its own */
            continue;
        }
        if (!expand[s]) continue; /* drawn and cast from the backend's lists alone */
        stream_job job = {
            .fe = fe, .stream = str, .base = base, .live = oak_material_get(str->desc.material)};
        job.params.planes = (const vec4 *)planes;
        memcpy(job.params.eye, v->camera_pos, sizeof job.params.eye);
        job.params.lod_count = str->desc.lod_count;
        job.params.lod_override = str->lod_override;
        job.params.bend = bent ? bend : NULL;
        if (str->desc.pose_bank) {
            job.params.pose_sphere = (const float(*)[4])rs->pose_sphere;
            job.bank = str->desc.pose_bank;
            job.prev = rs->prev_records ? rs->prev_records : str->records;
            job.stride = oak_pose_bank_joints(job.bank) * 24 + 1; /* + the joint count */
            job.impostor_lod = str->desc.impostor_lod;
            job.palettes = palettes;
            palettes += (size_t)str->count * job.stride;
        }
        /* the view's own instances only: a native stream is here for the
           lamps, and the GPU's kernel culls it for the camera */
        if (fe->occ.on && !natives[s]) {
            job.params.occlusion = _oak_occ_instance_test;
            job.params.occlusion_user = &fe->occ;
        }
        for (uint32_t k = 0; k < str->desc.lod_count; k++) {
            job.params.lods[k] = rs->lods[k];
            job.params.lod_distance[k] = rs->lod_distance[k];
        }
        /* a stream that stands still casts into the cached static layers */
        job.flags = str->desc.flags & ~(uint32_t)OAK_DRAW_MOVING;
        if (rs->moved) job.flags |= OAK_DRAW_MOVING;
        oak_parallel_for(str->count, OAK_STREAM_CULL_CHUNK, cull_stream_range, &job);

        /* per-LOD visible lists, in instance order (a counting sort) */
        uint32_t at[OAK_STREAM_LODS] = {0};
        oak_occlusion_stats *os = &fe->occ_stats;
        if (!natives[s]) os->instances_tested += str->count;
        for (uint32_t i = 0; i < str->count; i++) {
            uint32_t r = fe->sx_lod[base + i];
            if (r < OAK_STREAM_LODS) at[r]++;
            if (natives[s]) continue;
            os->instances_frustum += r == OAK_STREAM_CULLED || r == OAK_STREAM_GONE;
            os->instances_occluded += r == OAK_STREAM_OCCLUDED;
        }
        uint32_t sum = 0;
        for (uint32_t k = 0; k < OAK_STREAM_LODS; k++) {
            rs->visible[k] = visible + sum;
            rs->visible_count[k] = at[k];
            st->per_lod[k] += at[k];
            at[k] = sum;
            sum += rs->visible_count[k];
        }
        for (uint32_t i = 0; i < str->count; i++) {
            uint32_t r = fe->sx_lod[base + i];
            if (r < OAK_STREAM_LODS) visible[at[r]++] = i;
        }
        visible += sum;
        st->visible += sum;
    }
    st->streams = ns;
    v->stream_count = ns;
    fe->stream_draws_from = nd;

    fe->stream_input = *in;
    fe->stream_input.draw_count = n;
    fe->stream_input.meshes = fe->sx_mesh;
    fe->stream_input.materials = fe->sx_material;
    fe->stream_input.transforms = (const mat4 *)fe->sx_world;
    fe->stream_input.flags = fe->sx_flags;
    fe->stream_input.colors = fe->sx_color;
    uint32_t view_count = fe->view_input.draw_count;
    fe->view_input = fe->stream_input;
    fe->view_input.draw_count = view_count;
    *input = &fe->stream_input;
    return OAK_OK;
}
