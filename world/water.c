/* Water (docs/WORLD.md "Water"): a level plane moved by a sum of Gerstner
 * waves from a wind-driven spectrum; the one displacement function behind the
 * drawn grid, the height query and the floating boxes. */
#include <math.h>
#include <string.h>

#include "world/internal.h"
#include "world/water_internal.h"

#define TWO_PI       6.283185307179586
#define WAVE_RATIO   0.7  /* each wave's length is this times the one before */
#define FADE_NEAR    6.0  /* a wave is whole where grid cells are under lambda / 6 */
#define FADE_FAR     3.0  /* and gone where they are over lambda / 3 */
#define DEFAULT_WIND 5.0f /* m/s */

struct oak_water {
    oak_scene *scene;
    oak_water_desc desc;
    oak_water_wave waves[OAK_WATER_WAVES];
    double k[OAK_WATER_WAVES], omega[OAK_WATER_WAVES], amp[OAK_WATER_WAVES];
    double dir[OAK_WATER_WAVES][2], phase[OAK_WATER_WAVES], chop, lambda[OAK_WATER_WAVES];
    bool has_extent;
    double origin[2];
    /* the grid: g = cells + 1 lines a side at offsets from the centre */
    uint32_t g;
    double *offset;         /* g: metres from the centre */
    double *cell;           /* g: the larger cell beside each line */
    struct line_wave *cols; /* g x OAK_WATER_WAVES: each column's phase terms (per update) */
    float *pos, *nrm, *tan; /* tangent w: crest foam */
    double centre[2], time;
    oak_entity entity;
    oak_mesh mesh;
    oak_material material;
    bool own_material;
};

/* The wave sum at a rest point: displacement, the 2x2 horizontal Jacobian
   matrix of the displaced point, and the slopes. */
typedef struct wave_sample {
    double d[3];
    double mxx, mxz, mzz; /* d(displaced xz) / d(rest xz), symmetric */
    double gx, gz;        /* d(height) / d(rest x), d(rest z) */
} wave_sample;

static double smooth01(double a, double b, double x) {
    double t = (x - a) / (b - a);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return t * t * (3 - 2 * t);
}

/* A wave's fade where the grid's cells are `cell` wide: 1 where they
   carry it, falling to 0 by lambda / FADE_FAR. */
static double wave_fade(const oak_water *w, uint32_t i, double cell) {
    return 1.0 - smooth01(w->lambda[i] / FADE_NEAR, w->lambda[i] / FADE_FAR, cell);
}

/* Wave i of amplitude a at the phase whose sine and cosine are sn, cs:
   its displacement, the displacement's derivatives and the height's slope
   added into s (one copy for the point sum and the grid's line sums). */
static void add_wave(const oak_water *w, uint32_t i, double a, double sn, double cs,
                     wave_sample *s) {
    double dx = w->dir[i][0], dz = w->dir[i][1];
    double qa = w->chop * a, qak = qa * w->k[i] * sn, ak = a * w->k[i] * cs;
    s->d[0] += qa * dx * cs;
    s->d[1] += a * sn;
    s->d[2] += qa * dz * cs;
    s->mxx -= qak * dx * dx;
    s->mxz -= qak * dx * dz;
    s->mzz -= qak * dz * dz;
    s->gx += ak * dx;
    s->gz += ak * dz;
}

/* World (wx, wz) rest point; cell > 0 fades waves the grid cannot carry
   (cells over lambda / FADE_FAR), 0 for the true surface. Phases are formed
   and reduced to [0, 2 pi) in double, so the surface holds at large t and
   far from the origin. */
static void sample(const oak_water *w, double wx, double wz, double t, double cell,
                   wave_sample *s) {
    memset(s, 0, sizeof *s);
    s->mxx = s->mzz = 1.0;
    for (uint32_t i = 0; i < OAK_WATER_WAVES; i++) {
        double a = w->amp[i];
        if (cell > 0) a *= wave_fade(w, i, cell);
        if (a == 0) continue;
        double ph = fmod(w->k[i] * (w->dir[i][0] * wx + w->dir[i][1] * wz), TWO_PI) -
                    fmod(w->omega[i] * t, TWO_PI) + w->phase[i];
        ph = fmod(ph, TWO_PI);
        add_wave(w, i, a, sin(ph), cos(ph), s);
    }
}

/* One grid line's share of one wave's phase: the sine and cosine of its
   axis's term (the row's with the time and the wave's phase in it), and
   the wave's fade at the line's cell. */
typedef struct line_wave {
    double s, c, fade;
} line_wave;

/* The grid's rest points are columns x rows, and a wave's phase is a
   column's term plus a row's, so sample()'s sum at a grid point comes
   from the two lines' sines and cosines by the angle-sum identities: no
   trigonometry per point. The fade of the larger cell is the smaller
   fade (smooth01 rises with the cell), the same number sample() takes. */
static void sample_lines(const oak_water *w, const line_wave *col, const line_wave *row,
                         wave_sample *s) {
    memset(s, 0, sizeof *s);
    s->mxx = s->mzz = 1.0;
    for (uint32_t i = 0; i < OAK_WATER_WAVES; i++) {
        double a = w->amp[i] * (col[i].fade < row[i].fade ? col[i].fade : row[i].fade);
        if (a == 0) continue;
        double sn = col[i].s * row[i].c + col[i].c * row[i].s;
        double cs = col[i].c * row[i].c - col[i].s * row[i].s;
        add_wave(w, i, a, sn, cs, s);
    }
}

/* Line `line`'s terms along axis `axis` (0: x, a column; 1: z, a row) at
   world coordinate `at`; a row's carry the time's and the wave's phase. */
static void line_terms(const oak_water *w, int axis, double at, double cell, double t,
                       line_wave *out) {
    for (uint32_t i = 0; i < OAK_WATER_WAVES; i++) {
        double ph = fmod(w->k[i] * (w->dir[i][axis] * at), TWO_PI);
        if (axis) ph += w->phase[i] - fmod(w->omega[i] * t, TWO_PI);
        out[i].s = sin(ph), out[i].c = cos(ph);
        out[i].fade = wave_fade(w, i, cell);
    }
}

/* The normal is d/dz x d/dx of the displaced surface; its y is the
   horizontal Jacobian determinant. */
static double normal_of(const wave_sample *s, float n[3]) {
    double jac = s->mxx * s->mzz - s->mxz * s->mxz;
    double nx = -s->gx * s->mzz + s->gz * s->mxz;
    double nz = -s->gz * s->mxx + s->gx * s->mxz;
    if (n) {
        double l = sqrt(nx * nx + jac * jac + nz * nz);
        n[0] = (float)(nx / l), n[1] = (float)(jac / l), n[2] = (float)(nz / l);
    }
    return jac;
}

/* ---- the spectrum -------------------------------------------------------- */

oak_water_desc oak_water_desc_defaults(const oak_water_desc *desc) {
    oak_water_desc d = desc ? *desc : (oak_water_desc){0};
    if (d.wind[0] == 0 && d.wind[1] == 0) d.wind[0] = 1.0f;
    if (d.wind_speed == 0) d.wind_speed = DEFAULT_WIND;
    if (d.steepness == 0) d.steepness = 0.3f;
    if (d.choppiness == 0) d.choppiness = 0.7f;
    if (d.spread == 0) d.spread = 0.6f;
    if (!d.grid_cells) d.grid_cells = OAK_WATER_GRID_CELLS;
    if (d.grid_spacing == 0) d.grid_spacing = (float)OAK_WATER_GRID_SPACING;
    if (d.grid_extent == 0) d.grid_extent = (float)OAK_WATER_GRID_EXTENT;
    static const float absorb[3] = {0.8f, 0.3f, 0.22f}, albedo[3] = {0.008f, 0.03f, 0.045f};
    if (!d.absorption[0] && !d.absorption[1] && !d.absorption[2])
        memcpy(d.absorption, absorb, sizeof absorb);
    if (!d.albedo[0] && !d.albedo[1] && !d.albedo[2]) memcpy(d.albedo, albedo, sizeof albedo);
    if (!d.light[0] && !d.light[1] && !d.light[2]) d.light[0] = d.light[1] = d.light[2] = 1.0f;
    if (d.shore == 0) d.shore = 0.35f;
    return d;
}

static oak_result check_desc(const oak_water_desc *d) {
    for (int k = 0; k < 3; k++)
        if (!(d->absorption[k] >= 0 && d->albedo[k] >= 0 && d->light[k] >= 0) ||
            !isfinite(d->absorption[k] + d->albedo[k] + d->light[k]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "water: absorption, albedo and light must be finite and >= 0");
    if (!(d->shore > 0) || !isfinite(d->shore))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "water: shore %g m is not positive",
                         (double)d->shore);
    const float nums[] = {d->level,   d->extent[0],    d->extent[1],  d->extent[2], d->extent[3],
                          d->wind[0], d->wind[1],      d->wind_speed, d->steepness, d->choppiness,
                          d->spread,  d->grid_spacing, d->grid_extent};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (!isfinite(nums[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "water: a desc number is not finite");
    if (d->wind_speed < 0.5f || d->wind_speed > 40.0f)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "water: wind_speed %g m/s outside [0.5, 40]",
                         (double)d->wind_speed);
    if (d->steepness > 0.9f)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "water: steepness %g over 0.9 (crests would fold)", (double)d->steepness);
    if (d->choppiness < 0 || d->choppiness > 1)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "water: choppiness %g outside [0, 1]",
                         (double)d->choppiness);
    if (d->grid_cells < 2 || d->grid_cells % 2 || d->grid_cells > 1024 ||
        d->grid_cells < 2 * OAK_WATER_GRID_CORE + 2)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "water: grid_cells %u not even in [%d, 1024]",
                         d->grid_cells, 2 * OAK_WATER_GRID_CORE + 2);
    if (d->grid_spacing <= 0 || d->grid_extent <= d->grid_spacing * OAK_WATER_GRID_CORE * 2)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "water: grid_spacing %g m and grid_extent %g m leave no grid",
                         (double)d->grid_spacing, (double)d->grid_extent);
    bool any = d->extent[0] || d->extent[1] || d->extent[2] || d->extent[3];
    if (any && (d->extent[2] <= d->extent[0] || d->extent[3] <= d->extent[1]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "water: extent max is not above min");
    return OAK_OK;
}

/* Pierson-Moskowitz peak w_p = 0.877 g / U; OAK_WATER_WAVES lengths from the
   peak's down by WAVE_RATIO; each wave carries an equal share of the
   steepness (A = S / (N k)); directions spread about the wind by hashed
   amounts in [-spread, spread] (the first along it), phases hashed. */
static void resolve_spectrum(oak_water *w) {
    const oak_water_desc *d = &w->desc;
    double g = OAK_WATER_GRAVITY, wp = 0.877 * g / d->wind_speed;
    double lambda = TWO_PI * g / (wp * wp);
    double base = atan2(d->wind[1], d->wind[0]);
    double steep = d->steepness < 0 ? 0 : d->steepness;
    w->chop = d->choppiness;
    for (uint32_t i = 0; i < OAK_WATER_WAVES; i++) {
        double k = TWO_PI / lambda;
        double u = i ? 2.0 * _oak_world_hash01(i, d->seed * 2654435761u + 17u) - 1.0 : 0.0;
        double th = base + d->spread * u;
        w->lambda[i] = lambda;
        w->k[i] = k;
        w->omega[i] = sqrt(g * k);
        w->amp[i] = steep / (OAK_WATER_WAVES * k);
        w->dir[i][0] = cos(th), w->dir[i][1] = sin(th);
        w->phase[i] = TWO_PI * _oak_world_hash01(i, d->seed * 2246822519u + 101u);
        w->waves[i] = (oak_water_wave){.wavelength = (float)lambda,
                                       .amplitude = (float)w->amp[i],
                                       .direction = {(float)w->dir[i][0], (float)w->dir[i][1]},
                                       .omega = (float)w->omega[i],
                                       .phase = (float)w->phase[i],
                                       .chop = (float)w->chop};
        lambda *= WAVE_RATIO;
    }
}

/* ---- the grid's lines ------------------------------------------------------ */

/* Lines at the finest spacing s out to OAK_WATER_GRID_CORE cells, then each
   cell r times the one before, r solved (bisection) so the last line lies at
   the extent. */
static void grid_lines(oak_water *w) {
    const uint32_t m = w->desc.grid_cells / 2, core = OAK_WATER_GRID_CORE;
    const double s = w->desc.grid_spacing, e = w->desc.grid_extent;
    const uint32_t n = m - core;
    double lo = 1.0, hi = 4.0;
    for (int it = 0; it < 100; it++) {
        double r = 0.5 * (lo + hi), sum = 0, c = s;
        for (uint32_t i = 0; i < n; i++) sum += (c *= r);
        if (s * core + sum > e)
            hi = r;
        else
            lo = r;
    }
    double r = 0.5 * (lo + hi), at = 0, c = s;
    for (uint32_t i = 0; i <= m; i++) {
        if (i) at += i <= core ? s : (c *= r);
        w->offset[m + i] = at;
        w->offset[m - i] = -at;
    }
    for (uint32_t i = 0; i < w->g; i++) {
        double a = i ? w->offset[i] - w->offset[i - 1] : 0;
        double b = i + 1 < w->g ? w->offset[i + 1] - w->offset[i] : 0;
        w->cell[i] = a > b ? a : b;
    }
}

/* ---- make and destroy ------------------------------------------------------ */

static oak_result default_material(oak_material *out) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0.0f;
    md.roughness = (float)OAK_WATER_ROUGHNESS;
    md.alpha_mode = OAK_ALPHA_BLEND;
    md.double_sided = true; /* its underside, seen from below (its shader culls the side away) */
    md.water = true;
    md.name = "water";
    return oak_make_material(out, &md);
}

static oak_result make_grid(oak_water *w) {
    const uint32_t g = w->g, c = g - 1;
    uint32_t *idx = oak_alloc(sizeof(uint32_t) * 6 * c * c);
    if (!idx) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "water: out of memory for the grid");
    uint32_t *p = idx;
    for (uint32_t j = 0; j < c; j++)
        for (uint32_t i = 0; i < c; i++) {
            uint32_t a = j * g + i, b = a + 1, d = a + g, e = d + 1;
            /* counter-clockwise seen from above (+y) */
            *p++ = a, *p++ = d, *p++ = b;
            *p++ = b, *p++ = d, *p++ = e;
        }
    for (uint32_t j = 0; j < g; j++)
        for (uint32_t i = 0; i < g; i++) {
            float *v = w->pos + 3 * (j * g + i), *n = w->nrm + 3 * (j * g + i);
            float *t = w->tan + 4 * (j * g + i);
            v[0] = (float)w->offset[i], v[1] = 0, v[2] = (float)w->offset[j];
            n[0] = 0, n[1] = 1, n[2] = 0;
            t[0] = 1, t[1] = t[2] = t[3] = 0;
        }
    oak_mesh_desc md = {.vertex_count = g * g,
                        .index_count = 6 * c * c,
                        .positions = w->pos,
                        .normals = w->nrm,
                        .tangents = w->tan,
                        .indices = idx,
                        .name = "water grid"};
    oak_result r = oak_make_mesh(&w->mesh, &md);
    oak_free(idx);
    if (r) return r;
    w->entity = oak_scene_create(w->scene, "water");
    if (!w->entity.id) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "water: no room for its entity");
    oak_mesh_renderer mr = {.mesh = w->mesh, .material = w->material, .flags = OAK_DRAW_NO_SHADOW};
    oak_scene_set_mesh_renderer(w->scene, w->entity, &mr);
    oak_transform tr = oak_transform_identity();
    tr.position[1] = w->desc.level;
    oak_scene_set_transform(w->scene, w->entity, &tr);
    return OAK_OK;
}

oak_result oak_make_water(oak_water **out, oak_scene *scene, const oak_water_desc *desc) {
    if (!out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_make_water: NULL out");
    *out = NULL;
    oak_water_desc d = oak_water_desc_defaults(desc);
    oak_result r = check_desc(&d);
    if (r) return r;
    oak_water *w = oak_calloc(1, sizeof *w);
    if (!w) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "water: out of memory");
    w->scene = scene;
    w->desc = d;
    w->has_extent = d.extent[0] || d.extent[1] || d.extent[2] || d.extent[3];
    resolve_spectrum(w);
    if (scene) {
        w->g = d.grid_cells + 1;
        size_t nv = (size_t)w->g * w->g;
        w->offset = oak_alloc(sizeof(double) * w->g);
        w->cell = oak_alloc(sizeof(double) * w->g);
        w->cols = oak_alloc(sizeof *w->cols * OAK_WATER_WAVES * w->g);
        w->pos = oak_alloc(sizeof(float) * 3 * nv);
        w->nrm = oak_alloc(sizeof(float) * 3 * nv);
        w->tan = oak_alloc(sizeof(float) * 4 * nv);
        if (!w->offset || !w->cell || !w->cols || !w->pos || !w->nrm || !w->tan) {
            oak_destroy_water(w);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "water: out of memory for the grid");
        }
        grid_lines(w);
        if (d.material.id)
            w->material = d.material;
        else if (!(r = default_material(&w->material)))
            w->own_material = true;
        if (!r) r = make_grid(w);
        if (r) {
            oak_destroy_water(w);
            return r;
        }
    }
    *out = w;
    return OAK_OK;
}

void oak_destroy_water(oak_water *w) {
    if (!w) return;
    if (w->entity.id) oak_scene_destroy_entity(w->scene, w->entity);
    if (w->mesh.id) oak_destroy_mesh(w->mesh);
    if (w->own_material) oak_destroy_material(w->material);
    oak_free(w->offset);
    oak_free(w->cell);
    oak_free(w->cols);
    oak_free(w->pos);
    oak_free(w->nrm);
    oak_free(w->tan);
    oak_free(w);
}

const oak_water_wave *oak_water_waves(const oak_water *w) {
    return w->waves;
}

void oak_water_set_origin(oak_water *w, const double origin[2]) {
    w->origin[0] = origin[0], w->origin[1] = origin[1];
}

oak_entity oak_water_entity(const oak_water *w) {
    return w->entity;
}

oak_mesh oak_water_mesh(const oak_water *w) {
    return w->mesh;
}

void oak_water_grid_centre(const oak_water *w, double centre[2]) {
    centre[0] = w->centre[0], centre[1] = w->centre[1];
}

/* ---- queries ---------------------------------------------------------------- */

void oak_water_point(const oak_water *w, double x, double z, double t, double position[3],
                     float normal[3], float *jacobian) {
    wave_sample s;
    sample(w, x + w->origin[0], z + w->origin[1], t, 0, &s);
    double jac = normal_of(&s, normal);
    if (position) {
        position[0] = x + s.d[0];
        position[1] = w->desc.level + s.d[1];
        position[2] = z + s.d[2];
    }
    if (jacobian) *jacobian = (float)jac;
}

/* Newton on p + D(p) = target: the step solves the 2x2 Jacobian matrix. It
   converges from p = target because the matrix is near the identity (its
   entries differ from it by at most choppiness * steepness). */
oak_result oak_water_height(const oak_water *w, double x, double z, double t, double *height,
                            float normal[3], double *misses) {
    if (!w || !height)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_water_height: NULL %s",
                         w ? "height" : "water");
    if (!isfinite(x) || !isfinite(z) || !isfinite(t))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_water_height: a number is not finite");
    double wx = x + w->origin[0], wz = z + w->origin[1];
    const float *e = w->desc.extent;
    if (w->has_extent && (wx < e[0] || wz < e[1] || wx > e[2] || wz > e[3]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_water_height: (%g, %g) is outside the water's extent", x, z);
    double px = wx, pz = wz, miss = 0;
    wave_sample s;
    for (int step = 0; step <= OAK_WATER_SOLVE_STEPS; step++) {
        sample(w, px, pz, t, 0, &s);
        double rx = px + s.d[0] - wx, rz = pz + s.d[2] - wz;
        miss = sqrt(rx * rx + rz * rz);
        if (miss < OAK_WATER_SOLVE_EPSILON || step == OAK_WATER_SOLVE_STEPS) break;
        double det = s.mxx * s.mzz - s.mxz * s.mxz;
        if (det < 0.05) det = 0.05; /* folded: a damped step rather than a jump */
        px -= (s.mzz * rx - s.mxz * rz) / det;
        pz -= (s.mxx * rz - s.mxz * rx) / det;
    }
    *height = w->desc.level + s.d[1];
    normal_of(&s, normal);
    if (misses) *misses = miss;
    return OAK_OK;
}

/* ---- the grid, each frame --------------------------------------------------- */

/* The grid line's world coordinate: outside the box the cells fold onto
   its edge. */
static double line_world(const oak_water *w, int axis, uint32_t line) {
    double at = w->centre[axis] + w->offset[line] + w->origin[axis];
    const float *e = w->desc.extent;
    if (w->has_extent) at = at < e[axis] ? e[axis] : (at > e[axis + 2] ? e[axis + 2] : at);
    return at;
}

static void column_terms(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_water *w = user;
    for (uint32_t i = begin; i < end; i++)
        line_terms(w, 0, line_world(w, 0, i), w->cell[i], w->time, w->cols + i * OAK_WATER_WAVES);
}

static void displace_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_water *w = user;
    const uint32_t g = w->g;
    for (uint32_t j = begin; j < end; j++) {
        double wz = line_world(w, 1, j);
        line_wave row[OAK_WATER_WAVES];
        line_terms(w, 1, wz, w->cell[j], w->time, row);
        for (uint32_t i = 0; i < g; i++) {
            double wx = line_world(w, 0, i);
            wave_sample s;
            sample_lines(w, w->cols + i * OAK_WATER_WAVES, row, &s);
            float *v = w->pos + 3 * ((size_t)j * g + i);
            v[0] = (float)(wx - w->origin[0] - w->centre[0] + s.d[0]);
            v[1] = (float)s.d[1];
            v[2] = (float)(wz - w->origin[1] - w->centre[1] + s.d[2]);
            double jac = normal_of(&s, w->nrm + 3 * ((size_t)j * g + i));
            float *tg = w->tan + 4 * ((size_t)j * g + i);
            tg[0] = 1, tg[1] = tg[2] = 0;
            tg[3] = (float)(1.0 - smooth01(OAK_WATER_CREST_FOAM, OAK_WATER_CREST_CLEAR, jac));
        }
    }
}

void _oak_water_grid_reference(const oak_water *w, uint32_t i, uint32_t j, float pos[3],
                               float nrm[3], float *foam) {
    double wx = line_world(w, 0, i), wz = line_world(w, 1, j);
    wave_sample s;
    sample(w, wx, wz, w->time, w->cell[i] > w->cell[j] ? w->cell[i] : w->cell[j], &s);
    pos[0] = (float)(wx - w->origin[0] - w->centre[0] + s.d[0]);
    pos[1] = (float)s.d[1];
    pos[2] = (float)(wz - w->origin[1] - w->centre[1] + s.d[2]);
    double jac = normal_of(&s, nrm);
    *foam = (float)(1.0 - smooth01(OAK_WATER_CREST_FOAM, OAK_WATER_CREST_CLEAR, jac));
}

/* The scene's environment learns the water's volume, in scene coordinates. */
static void set_volume(const oak_water *w) {
    oak_environment *e = oak_scene_environment(w->scene);
    const oak_water_desc *d = &w->desc;
    e->water = true;
    e->water_level = d->level;
    for (int k = 0; k < 4; k++)
        e->water_extent[k] = w->has_extent ? (float)(d->extent[k] - w->origin[k & 1]) : 0.0f;
    for (int k = 0; k < 3; k++) {
        e->water_absorption[k] = d->absorption[k];
        e->water_scatter[k] = d->albedo[k] * d->light[k];
        e->water_foam[k] = (float)OAK_WATER_FOAM_ALBEDO * d->light[k];
    }
    e->water_shore = d->shore;
    e->water_time = (float)fmod(w->time, OAK_WATER_CAUSTIC_PERIOD);
    if (e->water_time < 0) e->water_time += (float)OAK_WATER_CAUSTIC_PERIOD;
}

oak_result oak_water_update(oak_water *w, const float eye[3], double seconds) {
    if (!w || !eye) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_water_update: NULL argument");
    if (!isfinite(eye[0]) || !isfinite(eye[2]) || !isfinite(seconds))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_water_update: a number is not finite");
    w->time = seconds;
    if (!w->scene) return OAK_OK;
    /* whole steps of two finest cells, so the fine core's lines stay put */
    double step = 2.0 * w->desc.grid_spacing;
    /* as the entity's float position holds it, so vertices are relative to
       exactly where the entity stands (through a volatile float: GCC 12.2
       at -O2 pairs the two round trips into vectors and its value
       numbering then drops them, a vector(2) float counted as wide as a
       vector(2) double, so the Release build kept the unrounded value) */
    volatile float cx = (float)(floor(eye[0] / step + 0.5) * step),
                   cz = (float)(floor(eye[2] / step + 0.5) * step);
    w->centre[0] = cx;
    w->centre[1] = cz;
    oak_parallel_for(w->g, 32, column_terms, w);
    oak_parallel_for(w->g, 8, displace_rows, w);
    oak_result r = oak_mesh_update_vertices(w->mesh, w->g * w->g, w->pos, w->nrm, w->tan);
    if (r) return r;
    if (!w->desc.no_volume) set_volume(w);
    oak_transform tr = oak_transform_identity();
    tr.position[0] = (float)w->centre[0];
    tr.position[1] = w->desc.level;
    tr.position[2] = (float)w->centre[1];
    oak_scene_set_transform(w->scene, w->entity, &tr);
    return OAK_OK;
}

/* ---- floating boxes --------------------------------------------------------- */

/* Submerged depth of each of the four columns (one under each quarter of
   the bottom, sampled at its centre), clamped to the box's height; their
   mean over the height is the share. */
static double columns_under(const oak_floater *f, const oak_water *w, double t) {
    double sum = 0, h2 = 2.0 * f->half[1];
    for (int c = 0; c < 4; c++) {
        double x = f->position[0] + (c & 1 ? 0.5 : -0.5) * f->half[0];
        double z = f->position[2] + (c & 2 ? 0.5 : -0.5) * f->half[2];
        double h = w->desc.level;
        if (oak_water_height(w, x, z, t, &h, NULL, NULL)) h = -INFINITY; /* off the water */
        double d = h - (f->position[1] - f->half[1]);
        sum += d < 0 ? 0 : (d > h2 ? h2 : d);
    }
    return sum / 4.0;
}

oak_result oak_floater_step(oak_floater *f, const oak_water *w, double seconds) {
    if (!f || !w) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_floater_step: NULL argument");
    if (!(f->half[0] > 0 && f->half[1] > 0 && f->half[2] > 0 && f->density > 0) ||
        !isfinite(seconds) || !isfinite(f->position[1]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_floater_step: a floater needs positive half extents and density");
    const double g = OAK_WATER_GRAVITY, dt = OAK_WATER_FLOAT_STEP;
    double area = 4.0 * f->half[0] * f->half[2];
    double mass = f->density * area * 2.0 * f->half[1];
    double stiff = OAK_WATER_DENSITY * g * area; /* N per metre of depth */
    double zeta = f->damping > 0 ? f->damping : 0.25;
    double c = 2.0 * zeta * sqrt(stiff * mass);
    while (f->time + 0.5 * dt < seconds) {
        double depth = columns_under(f, w, f->time + dt);
        double force = stiff * depth - mass * g - (depth > 0 ? c * f->velocity : 0);
        f->velocity += force / mass * dt;
        f->position[1] += f->velocity * dt;
        f->time += dt;
    }
    return OAK_OK;
}

float oak_floater_submerged(const oak_floater *f, const oak_water *w) {
    return (float)(columns_under(f, w, f->time) / (2.0 * f->half[1]));
}
