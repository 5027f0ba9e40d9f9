/* Procedural meshes from an oak_shape_desc: plane, box, UV sphere, capped
 * cylinder, capsule and an fBm heightfield. Front faces are counter-clockwise
 * seen from outside (right-handed, as glTF); images map upright seen from
 * outside (v grows downwards); tangents come from the shared generator. */
#include <math.h>
#include <string.h>

#include "registry.h"

oak_shape_desc oak_shape_desc_defaults(const oak_shape_desc *desc) {
    oak_shape_desc d = desc ? *desc : (oak_shape_desc){0};
    if (d.type == OAK_SHAPE_DEFAULT) d.type = OAK_SHAPE_BOX;
    for (int i = 0; i < 3; i++)
        if (d.size[i] == 0) d.size[i] = 1.0f;
    if (d.radius == 0) d.radius = 0.5f;
    if (d.height == 0) d.height = 1.0f;
    if (d.segments == 0) {
        switch (d.type) {
        case OAK_SHAPE_PLANE:
        case OAK_SHAPE_BOX:
            d.segments = 1;
            break;
        case OAK_SHAPE_HEIGHTFIELD:
            d.segments = 128;
            break;
        default:
            d.segments = 32;
            break;
        }
    }
    if (d.rings == 0) d.rings = 16;
    if (d.uv_scale == 0) d.uv_scale = 1.0f;
    if (d.octaves == 0) d.octaves = 6;
    if (d.frequency == 0) d.frequency = 0.01f;
    if (d.lacunarity == 0) d.lacunarity = 2.0f;
    if (d.gain == 0) d.gain = 0.5f;
    return d;
}

float oak_shape_height(const oak_shape_desc *desc, float x, float z) {
    oak_shape_desc d = oak_shape_desc_defaults(desc);
    if (d.amplitude == 0) return 0;
    /* No error to return here: an over-long recipe is clamped, not run. */
    if (d.octaves > OAK_MAX_RECIPE_OCTAVES) d.octaves = OAK_MAX_RECIPE_OCTAVES;
    return d.amplitude *
           oak_fbm2(x * d.frequency, z * d.frequency, d.seed, d.octaves, d.lacunarity, d.gain);
}

/* Streams being filled; sizes are counted before anything is written. */
typedef struct builder {
    float *pos, *nrm, *uv;
    uint32_t *idx;
    uint32_t nv, ni; /* written so far */
} builder;

static void put_vertex(builder *b, const float p[3], const float n[3], float u, float v) {
    memcpy(b->pos + 3 * b->nv, p, 3 * sizeof(float));
    memcpy(b->nrm + 3 * b->nv, n, 3 * sizeof(float));
    b->uv[2 * b->nv] = u;
    b->uv[2 * b->nv + 1] = v;
    b->nv++;
}

static void put_tri(builder *b, uint32_t a, uint32_t c, uint32_t d) {
    b->idx[b->ni++] = a;
    b->idx[b->ni++] = c;
    b->idx[b->ni++] = d;
}

/* A flat grid from origin o spanning u and v (full edges), facing n; the
   winding is chosen so the triangles face n whichever way u x v points. */
static void grid_patch(builder *b, const float o[3], const float u[3], const float v[3],
                       const float n[3], uint32_t nu, uint32_t nvv, float uv_scale) {
    uint32_t base = b->nv;
    for (uint32_t j = 0; j <= nvv; j++)
        for (uint32_t i = 0; i <= nu; i++) {
            float fu = (float)i / (float)nu, fv = (float)j / (float)nvv, p[3];
            for (int k = 0; k < 3; k++) p[k] = o[k] + u[k] * fu + v[k] * fv;
            put_vertex(b, p, n, fu * uv_scale, fv * uv_scale);
        }
    vec3 c;
    glm_vec3_cross((float *)u, (float *)v, c);
    bool flip = glm_vec3_dot(c, (float *)n) < 0;
    for (uint32_t j = 0; j < nvv; j++)
        for (uint32_t i = 0; i < nu; i++) {
            uint32_t a = base + j * (nu + 1) + i, bb = a + 1, cc = a + nu + 2, d = a + nu + 1;
            if (flip) {
                put_tri(b, a, cc, bb);
                put_tri(b, a, d, cc);
            } else {
                put_tri(b, a, bb, cc);
                put_tri(b, a, cc, d);
            }
        }
}

/* One row of a surface of revolution around Y: its height, ring radius,
   the normal's vertical and radial parts, and its v coordinate. */
typedef struct row {
    float y, rho, ny, nr, v;
} row;

/* Rings from top to bottom; u follows the angle, which turns from +X towards
   -Z so the image reads left to right seen from outside. A ring of radius 0
   is a pole: its degenerate triangles are left out. */
static void revolve(builder *b, const row *rows, uint32_t row_count, uint32_t seg, float uv_scale) {
    uint32_t base = b->nv;
    for (uint32_t j = 0; j < row_count; j++)
        for (uint32_t i = 0; i <= seg; i++) {
            float phi = 2.0f * OAK_PI * (float)i / (float)seg;
            float c = cosf(phi), s = sinf(phi);
            if (i == seg) c = 1, s = 0; /* the seam closes exactly */
            float p[3] = {rows[j].rho * c, rows[j].y, -rows[j].rho * s};
            float n[3] = {rows[j].nr * c, rows[j].ny, -rows[j].nr * s};
            float u = rows[j].rho == 0 ? ((float)i + 0.5f) / (float)seg : (float)i / (float)seg;
            put_vertex(b, p, n, u * uv_scale, rows[j].v * uv_scale);
        }
    for (uint32_t j = 0; j + 1 < row_count; j++)
        for (uint32_t i = 0; i < seg; i++) {
            uint32_t a = base + j * (seg + 1) + i, bb = a + 1, c = a + seg + 2, d = a + seg + 1;
            if (rows[j].rho != 0) put_tri(b, a, c, bb);
            if (rows[j + 1].rho != 0) put_tri(b, a, d, c);
        }
}

static uint32_t revolve_tris(const row *rows, uint32_t row_count, uint32_t seg) {
    uint32_t t = 0;
    for (uint32_t j = 0; j + 1 < row_count; j++)
        t += seg * ((rows[j].rho != 0) + (rows[j + 1].rho != 0));
    return t;
}

/* A flat disc at height y facing up (+1) or down (-1), UVs planar as the plane's. */
static void cap(builder *b, float y, float r, float facing, uint32_t seg, float uv_scale) {
    float n[3] = {0, facing, 0}, c[3] = {0, y, 0};
    uint32_t centre = b->nv;
    put_vertex(b, c, n, 0.5f * uv_scale, 0.5f * uv_scale);
    for (uint32_t i = 0; i < seg; i++) {
        float phi = 2.0f * OAK_PI * (float)i / (float)seg;
        float p[3] = {r * cosf(phi), y, -r * sinf(phi)};
        put_vertex(b, p, n, (0.5f + 0.5f * p[0] / r) * uv_scale,
                   (0.5f + 0.5f * p[2] / r) * uv_scale);
    }
    for (uint32_t i = 0; i < seg; i++) {
        uint32_t p0 = centre + 1 + i, p1 = centre + 1 + (i + 1) % seg;
        if (facing > 0) {
            put_tri(b, centre, p0, p1);
        } else {
            put_tri(b, centre, p1, p0);
        }
    }
}

typedef struct hf_job {
    const oak_shape_desc *d;
    builder *b;
    uint32_t seg;
} hf_job;

static float grid_x(const oak_shape_desc *d, uint32_t seg, uint32_t i) {
    return -0.5f * d->size[0] + d->size[0] * (float)i / (float)seg;
}
static float grid_z(const oak_shape_desc *d, uint32_t seg, uint32_t j) {
    return -0.5f * d->size[2] + d->size[2] * (float)j / (float)seg;
}

/* Heights of heightfield rows [begin, end), straight from the function. */
static void heightfield_heights(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    hf_job *job = user;
    uint32_t seg = job->seg;
    for (uint32_t j = begin; j < end; j++)
        for (uint32_t i = 0; i <= seg; i++) {
            float *p = job->b->pos + 3 * (j * (seg + 1) + i);
            p[0] = grid_x(job->d, seg, i);
            p[2] = grid_z(job->d, seg, j);
            p[1] = oak_shape_height(job->d, p[0], p[2]);
        }
}

/* Normals from central differences of the height function one cell either
   side: inside the grid those heights are the neighbours already computed,
   past its edges the function is evaluated. */
static void heightfield_normals(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    hf_job *job = user;
    const oak_shape_desc *d = job->d;
    uint32_t seg = job->seg, row = seg + 1;
    const float *pos = job->b->pos;
    float ex = d->size[0] / (float)seg, ez = d->size[2] / (float)seg;
    for (uint32_t j = begin; j < end; j++)
        for (uint32_t i = 0; i <= seg; i++) {
            uint32_t v = j * row + i;
            float x = pos[3 * v], z = pos[3 * v + 2];
            float hl = i > 0 ? pos[3 * (v - 1) + 1] : oak_shape_height(d, x - ex, z);
            float hr = i < seg ? pos[3 * (v + 1) + 1] : oak_shape_height(d, x + ex, z);
            float hb = j > 0 ? pos[3 * (v - row) + 1] : oak_shape_height(d, x, z - ez);
            float hf = j < seg ? pos[3 * (v + row) + 1] : oak_shape_height(d, x, z + ez);
            vec3 n = {-(hr - hl) / (2 * ex), 1.0f, -(hf - hb) / (2 * ez)};
            glm_vec3_normalize(n);
            memcpy(job->b->nrm + 3 * v, n, sizeof n);
            job->b->uv[2 * v] = (float)i / (float)seg * d->uv_scale;
            job->b->uv[2 * v + 1] = (float)j / (float)seg * d->uv_scale;
        }
}

static const char *shape_name(oak_shape t) {
    switch (t) {
    case OAK_SHAPE_PLANE:
        return "plane";
    case OAK_SHAPE_BOX:
        return "box";
    case OAK_SHAPE_SPHERE:
        return "sphere";
    case OAK_SHAPE_CYLINDER:
        return "cylinder";
    case OAK_SHAPE_CAPSULE:
        return "capsule";
    case OAK_SHAPE_HEIGHTFIELD:
        return "heightfield";
    default:
        return "shape";
    }
}

static oak_result check_desc(const oak_shape_desc *d) {
    const char *name = shape_name(d->type);
    if (d->type < OAK_SHAPE_PLANE || d->type > OAK_SHAPE_HEIGHTFIELD)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "shape: unknown type %d", (int)d->type);
    for (int i = 0; i < 3; i++)
        if (!(d->size[i] > 0) || !isfinite(d->size[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: size[%d] is %g, must be > 0", name, i,
                             d->size[i]);
    if (!(d->radius > 0) || !isfinite(d->radius) || !(d->height > 0) || !isfinite(d->height))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: radius %g and height %g must be > 0",
                         name, d->radius, d->height);
    const float recipe[] = {d->uv_scale, d->frequency, d->amplitude, d->lacunarity, d->gain};
    for (size_t i = 0; i < sizeof recipe / sizeof recipe[0]; i++)
        if (!isfinite(recipe[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "%s: uv_scale, frequency, amplitude, lacunarity and gain must be "
                             "finite numbers",
                             name);
    if (d->segments > OAK_MAX_SHAPE_SEGMENTS || d->rings > OAK_MAX_SHAPE_SEGMENTS)
        return oak_error(OAK_ERROR_LIMIT,
                         "%s: %u segments, %u rings; OAK_MAX_SHAPE_SEGMENTS allows %u each", name,
                         d->segments, d->rings, OAK_MAX_SHAPE_SEGMENTS);
    /* Each fBm octave is a noise evaluation per vertex: 4294967295 never ends. */
    if (d->octaves > OAK_MAX_RECIPE_OCTAVES)
        return oak_error(OAK_ERROR_LIMIT, "%s: %u octaves; OAK_MAX_RECIPE_OCTAVES allows %u", name,
                         d->octaves, OAK_MAX_RECIPE_OCTAVES);
    bool round = d->type == OAK_SHAPE_SPHERE || d->type == OAK_SHAPE_CYLINDER ||
                 d->type == OAK_SHAPE_CAPSULE;
    if (round && d->segments < 3)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: needs at least 3 segments, got %u", name,
                         d->segments);
    if (d->type == OAK_SHAPE_SPHERE && d->rings < 2)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "sphere: needs at least 2 rings, got %u",
                         d->rings);
    return OAK_OK;
}

uint64_t oak_shape_vertex_bound(const oak_shape_desc *desc) {
    oak_shape_desc d = oak_shape_desc_defaults(desc);
    uint64_t seg = d.segments, rings = d.rings;
    switch (d.type) {
    case OAK_SHAPE_PLANE:
    case OAK_SHAPE_HEIGHTFIELD:
        return (seg + 1) * (seg + 1);
    case OAK_SHAPE_BOX:
        return 6 * (seg + 1) * (seg + 1);
    case OAK_SHAPE_SPHERE:
        return (rings + 1) * (seg + 1);
    case OAK_SHAPE_CYLINDER:
        return 4 * (seg + 1); /* two rows and two caps */
    case OAK_SHAPE_CAPSULE:
        return 2 * (rings + 1) * (seg + 1);
    default:
        return 0;
    }
}

oak_result oak_make_shape(oak_mesh *out, const oak_shape_desc *desc) {
    out->id = 0;
    oak_shape_desc d = oak_shape_desc_defaults(desc);
    oak_result r = check_desc(&d);
    if (r) return r;
    /* A few bytes of recipe must not become gigabytes of mesh. */
    uint64_t bound = oak_shape_vertex_bound(&d);
    if (bound > OAK_MAX_SHAPE_VERTICES)
        return oak_error(OAK_ERROR_LIMIT, "%s: %llu vertices; OAK_MAX_SHAPE_VERTICES allows %u",
                         shape_name(d.type), (unsigned long long)bound, OAK_MAX_SHAPE_VERTICES);
    uint32_t seg = d.segments, rings = d.rings;
    float us = d.uv_scale;

    /* rows of the round shapes, pole to pole */
    row *rows = NULL;
    uint32_t row_count = 0;
    if (d.type == OAK_SHAPE_SPHERE) {
        row_count = rings + 1;
    } else if (d.type == OAK_SHAPE_CYLINDER) {
        row_count = 2;
    } else if (d.type == OAK_SHAPE_CAPSULE) {
        row_count = 2 * (rings + 1);
    }
    if (row_count) {
        rows = oak_alloc(row_count * sizeof(row));
        if (!rows) return OAK_ERROR_OUT_OF_MEMORY;
    }
    if (d.type == OAK_SHAPE_SPHERE) {
        for (uint32_t j = 0; j <= rings; j++) {
            float th = OAK_PI * (float)j / (float)rings;
            float s = j == 0 || j == rings ? 0.0f : sinf(th), c = cosf(th);
            rows[j] = (row){d.radius * c, d.radius * s, c, s, (float)j / (float)rings};
        }
    } else if (d.type == OAK_SHAPE_CYLINDER) {
        rows[0] = (row){0.5f * d.height, d.radius, 0, 1, 0};
        rows[1] = (row){-0.5f * d.height, d.radius, 0, 1, 1};
    } else if (d.type == OAK_SHAPE_CAPSULE) {
        /* v is the arc length down the profile, so texels keep their size */
        float quarter = 0.5f * OAK_PI * d.radius, total = 2 * quarter + d.height;
        for (uint32_t j = 0; j <= rings; j++) {
            float th = 0.5f * OAK_PI * (float)j / (float)rings;
            float s = j == 0 ? 0.0f : sinf(th), c = j == rings ? 0.0f : cosf(th);
            rows[j] = (row){0.5f * d.height + d.radius * c, d.radius * s, c, s,
                            quarter * (float)j / (float)rings / total};
            rows[row_count - 1 - j] = (row){-0.5f * d.height - d.radius * c, d.radius * s, -c, s,
                                            1.0f - quarter * (float)j / (float)rings / total};
        }
    }

    uint64_t nv = 0, nt = 0;
    switch (d.type) {
    case OAK_SHAPE_PLANE:
    case OAK_SHAPE_HEIGHTFIELD:
        nv = (uint64_t)(seg + 1) * (seg + 1);
        nt = 2ull * seg * seg;
        break;
    case OAK_SHAPE_BOX:
        nv = 6ull * (seg + 1) * (seg + 1);
        nt = 12ull * seg * seg;
        break;
    default:
        nv = (uint64_t)row_count * (seg + 1);
        nt = revolve_tris(rows, row_count, seg);
        if (d.type == OAK_SHAPE_CYLINDER) {
            nv += 2ull * (seg + 1);
            nt += 2ull * seg;
        }
        break;
    }
    builder b = {0};
    b.pos = oak_alloc(nv * 3 * sizeof(float));
    b.nrm = oak_alloc(nv * 3 * sizeof(float));
    b.uv = oak_alloc(nv * 2 * sizeof(float));
    b.idx = oak_alloc(nt * 3 * sizeof(uint32_t));
    if (!b.pos || !b.nrm || !b.uv || !b.idx) {
        r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %llu vertices",
                      shape_name(d.type), (unsigned long long)nv);
        goto done;
    }

    switch (d.type) {
    case OAK_SHAPE_PLANE: {
        float o[3] = {-0.5f * d.size[0], 0, -0.5f * d.size[2]}, u[3] = {d.size[0], 0, 0},
              v[3] = {0, 0, d.size[2]}, n[3] = {0, 1, 0};
        grid_patch(&b, o, u, v, n, seg, seg, us);
        break;
    }
    case OAK_SHAPE_BOX: {
        float sx = d.size[0], sy = d.size[1], sz = d.size[2];
        /* per face: outward normal, then u and v edges as seen from outside */
        const float faces[6][3][3] = {
            {{1, 0, 0}, {0, 0, -sz}, {0, -sy, 0}}, {{-1, 0, 0}, {0, 0, sz}, {0, -sy, 0}},
            {{0, 1, 0}, {sx, 0, 0}, {0, 0, sz}},   {{0, -1, 0}, {sx, 0, 0}, {0, 0, -sz}},
            {{0, 0, 1}, {sx, 0, 0}, {0, -sy, 0}},  {{0, 0, -1}, {-sx, 0, 0}, {0, -sy, 0}},
        };
        for (int f = 0; f < 6; f++) {
            const float *n = faces[f][0], *u = faces[f][1], *v = faces[f][2];
            float o[3];
            for (int k = 0; k < 3; k++) o[k] = 0.5f * n[k] * d.size[k] - 0.5f * u[k] - 0.5f * v[k];
            grid_patch(&b, o, u, v, n, seg, seg, us);
        }
        (void)sx, (void)sy, (void)sz;
        break;
    }
    case OAK_SHAPE_SPHERE:
    case OAK_SHAPE_CAPSULE:
        revolve(&b, rows, row_count, seg, us);
        break;
    case OAK_SHAPE_CYLINDER:
        revolve(&b, rows, row_count, seg, us);
        cap(&b, 0.5f * d.height, d.radius, 1, seg, us);
        cap(&b, -0.5f * d.height, d.radius, -1, seg, us);
        break;
    case OAK_SHAPE_HEIGHTFIELD: {
        hf_job job = {&d, &b, seg};
        oak_parallel_for(seg + 1, 8, heightfield_heights, &job);
        oak_parallel_for(seg + 1, 8, heightfield_normals, &job);
        b.nv = (uint32_t)nv;
        for (uint32_t j = 0; j < seg; j++)
            for (uint32_t i = 0; i < seg; i++) {
                uint32_t a = j * (seg + 1) + i, bb = a + 1, c = a + seg + 2, e = a + seg + 1;
                put_tri(&b, a, c, bb); /* +X by +Z faces down: turn it up */
                put_tri(&b, a, e, c);
            }
        break;
    }
    default:
        break;
    }

    oak_mesh_desc md = {0};
    md.vertex_count = b.nv;
    md.index_count = b.ni;
    md.positions = b.pos;
    md.normals = b.nrm;
    md.uv0 = b.uv;
    md.indices = b.idx;
    md.name = shape_name(d.type);
    r = oak_make_mesh(out, &md);
    if (!r) {
        oak_mesh_data *m = (oak_mesh_data *)oak_mesh_get(*out);
        m->has_recipe = true;
        m->recipe = d;
    }
done:
    oak_free(rows);
    oak_free(b.pos);
    oak_free(b.nrm);
    oak_free(b.uv);
    oak_free(b.idx);
    return r;
}
