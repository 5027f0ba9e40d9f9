/* The crowd's simulation (issue 15, DIGEST §5): figures as columns (no
 * entity per figure or joint), each walking to its goal at its own pace,
 * kept apart through a uniform grid and set on the ground by a height
 * query. A step reads last step's columns and writes new ones, one figure
 * per job item in fixed chunks, and every sum runs in the grid's fixed
 * order, so the result is the same bits for any thread count. */
#include <math.h>
#include <string.h>

#include "world/internal.h"

#define CHUNK 256 /* figures per job: fixed, so results never depend on threads */
/* The grid's parallel counting sort: figures a job when counting and
   scattering into bands, and the most bands of cell rows (each band's
   cells sorted by one job); fixed, so the order never depends on threads */
#define PREFETCH   8u /* figures ahead whose columns a step fetches early */
#define GRID_CHUNK 4096u
#define GRID_BANDS 64u

struct oak_crowd {
    oak_crowd_desc desc;
    uint32_t count, capacity;
    /* columns, two of each state: [cur] read, [!cur] written */
    float *pos[2], *vel[2]; /* x, z pairs */
    float *goal, *pace, *height, *heading;
    int cur;
    /* the grid: cell of each figure, figures sorted by cell, each cell's first */
    uint32_t cells_x, cells_z, cell_count;
    uint32_t *cell_of, *sorted, *first; /* first: cell_count + 1 */
    float *spos; /* positions in sorted order (x, z): neighbours read these */
    /* the sort's bands: rows_per_band cell rows each; per (band, chunk) the
       figures counted, then where they go; figures by band, index order */
    uint32_t bands, rows_per_band, chunks;
    uint32_t *band_hist, *by_band, *band_first; /* band_first: bands + 1 */
    float origin[2];
    uint32_t max_neighbours;
};

oak_crowd_desc oak_crowd_desc_defaults(const oak_crowd_desc *desc) {
    oak_crowd_desc d = desc ? *desc : (oak_crowd_desc){0};
    if (!(d.radius > 0)) d.radius = 0.4f;
    if (!(d.neighbour_radius > 0)) d.neighbour_radius = 4 * d.radius;
    if (!(d.separation > 0)) d.separation = 3.0f;
    if (!(d.turn_rate > 0)) d.turn_rate = 4.0f;
    if (!(d.arrive > 0)) d.arrive = 1.0f;
    return d;
}

void oak_destroy_crowd(oak_crowd *c) {
    if (!c) return;
    for (int k = 0; k < 2; k++) oak_free(c->pos[k]), oak_free(c->vel[k]);
    oak_free(c->goal), oak_free(c->pace), oak_free(c->height), oak_free(c->heading);
    oak_free(c->cell_of), oak_free(c->sorted), oak_free(c->first), oak_free(c->spos);
    oak_free(c->band_hist), oak_free(c->by_band), oak_free(c->band_first);
    oak_free(c);
}

oak_result oak_make_crowd(oak_crowd **out, const oak_crowd_desc *desc) {
    if (!out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "crowd: no out");
    *out = NULL;
    oak_crowd_desc d = oak_crowd_desc_defaults(desc);
    if (!d.capacity || d.capacity > OAK_CROWD_MAX)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "crowd: capacity %u (1 .. %u)", d.capacity,
                         OAK_CROWD_MAX);
    if (!(d.extent[2] > d.extent[0] && d.extent[3] > d.extent[1]) || !isfinite(d.extent[0]) ||
        !isfinite(d.extent[2]) || !isfinite(d.extent[1]) || !isfinite(d.extent[3]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "crowd: extent (%g, %g) .. (%g, %g) is not a box", (double)d.extent[0],
                         (double)d.extent[1], (double)d.extent[2], (double)d.extent[3]);
    double nx = ceil((d.extent[2] - d.extent[0]) / d.neighbour_radius);
    double nz = ceil((d.extent[3] - d.extent[1]) / d.neighbour_radius);
    if (!(nx * nz <= (double)OAK_CROWD_MAX_CELLS))
        return oak_error(OAK_ERROR_LIMIT, "crowd: %.0f x %.0f grid cells past %u", nx, nz,
                         OAK_CROWD_MAX_CELLS);
    oak_crowd *c = oak_calloc(1, sizeof *c);
    if (!c) return OAK_ERROR_OUT_OF_MEMORY;
    c->desc = d, c->capacity = d.capacity;
    c->cells_x = (uint32_t)nx, c->cells_z = (uint32_t)nz, c->cell_count = c->cells_x * c->cells_z;
    c->origin[0] = d.extent[0], c->origin[1] = d.extent[1];
    size_t n = d.capacity;
    for (int k = 0; k < 2; k++) {
        c->pos[k] = oak_alloc(sizeof(float) * 2 * n);
        c->vel[k] = oak_alloc(sizeof(float) * 2 * n);
    }
    c->goal = oak_alloc(sizeof(float) * 2 * n);
    c->pace = oak_alloc(sizeof(float) * n);
    c->height = oak_alloc(sizeof(float) * n);
    c->heading = oak_alloc(sizeof(float) * n);
    c->cell_of = oak_alloc(sizeof(uint32_t) * n);
    c->sorted = oak_alloc(sizeof(uint32_t) * n);
    c->first = oak_alloc(sizeof(uint32_t) * ((size_t)c->cell_count + 1));
    c->spos = oak_alloc(sizeof(float) * 2 * n);
    c->rows_per_band = (c->cells_z + GRID_BANDS - 1) / GRID_BANDS;
    c->bands = (c->cells_z + c->rows_per_band - 1) / c->rows_per_band;
    c->chunks = (uint32_t)((n + GRID_CHUNK - 1) / GRID_CHUNK);
    c->band_hist = oak_alloc(sizeof(uint32_t) * (size_t)c->bands * c->chunks);
    c->by_band = oak_alloc(sizeof(uint32_t) * n);
    c->band_first = oak_alloc(sizeof(uint32_t) * ((size_t)c->bands + 1));
    if (!c->pos[0] || !c->pos[1] || !c->vel[0] || !c->vel[1] || !c->goal || !c->pace ||
        !c->height || !c->heading || !c->cell_of || !c->sorted || !c->first || !c->spos ||
        !c->band_hist || !c->by_band || !c->band_first) {
        oak_destroy_crowd(c);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "crowd: %u figures", d.capacity);
    }
    *out = c;
    return OAK_OK;
}

uint32_t oak_crowd_count(const oak_crowd *c) {
    return c ? c->count : 0;
}

oak_result oak_crowd_add(oak_crowd *c, const float position[2], const float goal[2], float pace) {
    if (!c || !position || !goal) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "crowd: add NULL");
    if (c->count == c->capacity)
        return oak_error(OAK_ERROR_LIMIT, "crowd: full at %u figures", c->capacity);
    if (!isfinite(position[0]) || !isfinite(position[1]) || !isfinite(goal[0]) ||
        !isfinite(goal[1]) || !(pace >= 0 && pace < 1e3f))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "crowd: figure %u has a bad number", c->count);
    uint32_t i = c->count++;
    for (int k = 0; k < 2; k++) {
        c->pos[c->cur][2 * i + k] = position[k];
        c->vel[c->cur][2 * i + k] = 0;
        c->goal[2 * i + k] = goal[k];
    }
    c->pace[i] = pace, c->height[i] = 0, c->heading[i] = 0;
    return OAK_OK;
}

void oak_crowd_set_goal(oak_crowd *c, uint32_t i, const float goal[2]) {
    if (c && i < c->count && goal && isfinite(goal[0]) && isfinite(goal[1]))
        c->goal[2 * i] = goal[0], c->goal[2 * i + 1] = goal[1];
}

void oak_crowd_get(const oak_crowd *c, uint32_t i, oak_crowd_figure *out) {
    memset(out, 0, sizeof *out);
    if (!c || i >= c->count) return;
    const float *p = c->pos[c->cur] + 2 * i, *v = c->vel[c->cur] + 2 * i;
    out->position[0] = p[0], out->position[1] = c->height[i], out->position[2] = p[1];
    out->velocity[0] = v[0], out->velocity[1] = v[1];
    out->heading = c->heading[i];
}

static uint32_t cell_at(const oak_crowd *c, float x, float z) {
    float fx = (x - c->origin[0]) / c->desc.neighbour_radius;
    float fz = (z - c->origin[1]) / c->desc.neighbour_radius;
    int32_t ix = fx > 0 ? (int32_t)fx : 0, iz = fz > 0 ? (int32_t)fz : 0;
    if (ix >= (int32_t)c->cells_x) ix = (int32_t)c->cells_x - 1;
    if (iz >= (int32_t)c->cells_z) iz = (int32_t)c->cells_z - 1;
    return (uint32_t)iz * c->cells_x + (uint32_t)ix;
}

/* Counting sort of the figures by cell, stable (by index within a cell):
   the order a serial counting sort gives, made on the job pool in two
   levels so that nothing per figure runs on the calling thread. First each
   chunk of figures finds its cells and counts them by band (a band: a run
   of whole cell rows, so its cells are one range); a prefix over (band,
   chunk) places every chunk's figures of a band after the earlier chunks'
   (the only serial work: bands x chunks, 7,872 counts at 500,000 figures);
   then each chunk scatters its figures into their bands in index order;
   last each band counting-sorts its own figures into its own cells, and
   copies their positions into sorted order, so a neighbour search reads
   contiguous memory. */
static void grid_count(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_crowd *c = user;
    const float *p = c->pos[c->cur];
    for (uint32_t k = begin; k < end; k++) {
        uint32_t *h = c->band_hist + (size_t)k * c->bands;
        memset(h, 0, sizeof(uint32_t) * c->bands);
        uint32_t last = (k + 1) * GRID_CHUNK < c->count ? (k + 1) * GRID_CHUNK : c->count;
        for (uint32_t i = k * GRID_CHUNK; i < last; i++) {
            uint32_t cell = cell_at(c, p[2 * i], p[2 * i + 1]);
            c->cell_of[i] = cell;
            h[cell / c->cells_x / c->rows_per_band]++;
        }
    }
}

static void grid_scatter(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_crowd *c = user;
    for (uint32_t k = begin; k < end; k++) {
        uint32_t *h = c->band_hist + (size_t)k * c->bands; /* now each band's cursor */
        uint32_t last = (k + 1) * GRID_CHUNK < c->count ? (k + 1) * GRID_CHUNK : c->count;
        for (uint32_t i = k * GRID_CHUNK; i < last; i++)
            c->by_band[h[c->cell_of[i] / c->cells_x / c->rows_per_band]++] = i;
    }
}

static void grid_bands(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_crowd *c = user;
    const float *p = c->pos[c->cur];
    for (uint32_t b = begin; b < end; b++) {
        uint32_t lo = b * c->rows_per_band * c->cells_x;
        uint32_t hi = (b + 1) * c->rows_per_band < c->cells_z
                          ? (b + 1) * c->rows_per_band * c->cells_x
                          : c->cell_count;
        uint32_t s0 = c->band_first[b], s1 = c->band_first[b + 1];
        uint32_t *first = c->first;
        memset(first + lo, 0, sizeof(uint32_t) * (hi - lo));
        for (uint32_t s = s0; s < s1; s++) first[c->cell_of[c->by_band[s]]]++;
        for (uint32_t k = lo, at = s0; k < hi; k++) {
            uint32_t n = first[k];
            first[k] = at, at += n;
        }
        /* a cursor per cell that ends at the next cell's start, then back */
        for (uint32_t s = s0; s < s1; s++) {
            uint32_t i = c->by_band[s], d = first[c->cell_of[i]]++;
            c->sorted[d] = i;
            c->spos[2 * d] = p[2 * i], c->spos[2 * d + 1] = p[2 * i + 1];
        }
        for (uint32_t k = hi - 1; k > lo; k--) first[k] = first[k - 1];
        first[lo] = s0;
    }
}

static void build_grid(oak_crowd *c) {
    oak_parallel_for(c->chunks, 1, grid_count, c);
    /* band-major prefix: band b's figures, chunk by chunk (index order) */
    uint32_t at = 0;
    for (uint32_t b = 0; b < c->bands; b++) {
        c->band_first[b] = at;
        for (uint32_t k = 0; k < c->chunks; k++) {
            uint32_t *h = c->band_hist + (size_t)k * c->bands + b, n = *h;
            *h = at, at += n;
        }
    }
    c->band_first[c->bands] = at;
    oak_parallel_for(c->chunks, 1, grid_scatter, c);
    oak_parallel_for(c->bands, 1, grid_bands, c);
    c->first[c->cell_count] = c->count;
}

/* Calls fn for every figure within neighbour_radius of figure i (not i),
   cell rows then columns then index order; the others' positions from the
   grid's sorted copy (the same values, in the order they are read). */
#define FOR_NEIGHBOURS(c, i, j, ...)                                                               \
    do {                                                                                           \
        const float *p_ = (c)->pos[(c)->cur], *q_ = (c)->spos;                                     \
        float x_ = p_[2 * (i)], z_ = p_[2 * (i) + 1],                                              \
              r2_ = (c)->desc.neighbour_radius * (c)->desc.neighbour_radius;                       \
        int32_t cx_ = (int32_t)((c)->cell_of[i] % (c)->cells_x);                                   \
        int32_t cz_ = (int32_t)((c)->cell_of[i] / (c)->cells_x);                                   \
        for (int32_t dz_ = -1; dz_ <= 1; dz_++)                                                    \
            for (int32_t dx_ = -1; dx_ <= 1; dx_++) {                                              \
                int32_t gx_ = cx_ + dx_, gz_ = cz_ + dz_;                                          \
                if (gx_ < 0 || gz_ < 0 || gx_ >= (int32_t)(c)->cells_x ||                          \
                    gz_ >= (int32_t)(c)->cells_z)                                                  \
                    continue;                                                                      \
                uint32_t k_ = (uint32_t)gz_ * (c)->cells_x + (uint32_t)gx_;                        \
                for (uint32_t s_ = (c)->first[k_]; s_ < (c)->first[k_ + 1]; s_++) {                \
                    uint32_t j = (c)->sorted[s_];                                                  \
                    if (j == (i)) continue;                                                        \
                    float ddx_ = q_[2 * s_] - x_, ddz_ = q_[2 * s_ + 1] - z_;                      \
                    if (ddx_ * ddx_ + ddz_ * ddz_ > r2_) continue;                                 \
                    __VA_ARGS__                                                                    \
                }                                                                                  \
            }                                                                                      \
    } while (0)

uint32_t oak_crowd_neighbours(oak_crowd *c, uint32_t i, uint32_t *out, uint32_t capacity) {
    if (!c || i >= c->count) return 0;
    build_grid(c);
    uint32_t n = 0;
    FOR_NEIGHBOURS(c, i, j, {
        if (n < capacity && out) out[n] = j;
        n++;
    });
    return n;
}

typedef struct step_job {
    oak_crowd *c;
    float dt;
    oak_crowd_height_fn height;
    void *user;
} step_job;

static void step_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const step_job *j = user;
    oak_crowd *c = j->c;
    const oak_crowd_desc *d = &c->desc;
    const float *p = c->pos[c->cur], *v = c->vel[c->cur];
    float *np = c->pos[!c->cur], *nv = c->vel[!c->cur];
    float min_d = 2 * d->radius;
    /* in the grid's order, so the cells a figure searches are the ones its
       predecessor searched (in cache); each figure writes only its own */
    for (uint32_t si = begin; si < end; si++) {
        uint32_t i = c->sorted[si];
        /* a figure's own columns are in index order, which the grid's order
           visits at random: fetch those of the figure PREFETCH on early */
        if (si + PREFETCH < end) {
            uint32_t a = c->sorted[si + PREFETCH];
            __builtin_prefetch(p + 2 * a), __builtin_prefetch(v + 2 * a);
            __builtin_prefetch(c->goal + 2 * a), __builtin_prefetch(c->pace + a);
            __builtin_prefetch(np + 2 * a, 1), __builtin_prefetch(nv + 2 * a, 1);
            __builtin_prefetch(c->heading + a, 1), __builtin_prefetch(c->height + a, 1);
            __builtin_prefetch(c->cell_of + a);
        }
        float x = p[2 * i], z = p[2 * i + 1];
        /* seek the goal at the figure's pace, slowing inside `arrive` */
        float gx = c->goal[2 * i] - x, gz = c->goal[2 * i + 1] - z;
        float gl = sqrtf(gx * gx + gz * gz);
        float want = c->pace[i] * (gl < d->arrive ? gl / d->arrive : 1.0f);
        float dx = gl > 0 ? gx / gl * want : 0, dz = gl > 0 ? gz / gl * want : 0;
        /* separation: away from each neighbour, harder the closer it is
           (inside two radii: in contact); and keep right: a figure in the
           way ahead (within the look-ahead, in front) turns this one to
           its right, so two columns meeting head on pass instead of
           pressing into a jam */
        float sx = 0, sz = 0, fx = gl > 0 ? gx / gl : 0, fz = gl > 0 ? gz / gl : 0;
        FOR_NEIGHBOURS(c, i, k, {
            float ox = x - c->spos[2 * s_], oz = z - c->spos[2 * s_ + 1]; /* figure k's */
            float dist = sqrtf(ox * ox + oz * oz);
            float ahead = -(ox * fx + oz * fz); /* metres the other is in front */
            if (ahead > 0 && dist > 0) {
                float side = -(ox * fz - oz * fx); /* across our way */
                float lateral = fabsf(side) < min_d * 1.5f ? 1.0f - ahead / d->neighbour_radius : 0;
                if (lateral > 0) sx -= fz * lateral, sz += fx * lateral; /* to our right */
            }
            if (dist > 0) {
                /* soft from 2.5 radii in, hard inside two (contact) */
                float soft = 1.25f * min_d;
                float push = dist < soft ? (soft - dist) / soft : 0.0f;
                if (dist < min_d) push += (min_d - dist) / min_d * 16.0f;
                sx += ox / dist * push, sz += oz / dist * push;
            } else { /* on top of each other: part by index */
                sx += k < i ? 1.0f : -1.0f;
            }
        });
        dx += sx * d->separation * c->pace[i], dz += sz * d->separation * c->pace[i];
        /* turn toward it at turn_rate, then cap at 1.5 times the pace */
        float vx = v[2 * i], vz = v[2 * i + 1];
        float a = d->turn_rate * j->dt < 1 ? d->turn_rate * j->dt : 1.0f;
        vx += (dx - vx) * a, vz += (dz - vz) * a;
        float vl = sqrtf(vx * vx + vz * vz), cap = 1.5f * c->pace[i] + 1e-6f;
        if (vl > cap) vx *= cap / vl, vz *= cap / vl;
        nv[2 * i] = vx, nv[2 * i + 1] = vz;
        float ux = x + vx * j->dt, uz = z + vz * j->dt;
        /* inside the extent */
        ux = ux < d->extent[0] ? d->extent[0] : ux > d->extent[2] ? d->extent[2] : ux;
        uz = uz < d->extent[1] ? d->extent[1] : uz > d->extent[3] ? d->extent[3] : uz;
        np[2 * i] = ux, np[2 * i + 1] = uz;
        if (vl > 1e-3f) c->heading[i] = atan2f(vx, vz);
        c->height[i] = j->height ? j->height(j->user, ux, uz) : 0.0f;
    }
}

oak_result oak_crowd_step(oak_crowd *c, float dt, oak_crowd_height_fn height, void *user) {
    if (!c) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "crowd: step NULL");
    if (!(dt >= 0 && dt <= 1))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "crowd: step of %g s (0 .. 1)", (double)dt);
    build_grid(c);
    step_job j = {c, dt, height, user};
    oak_parallel_for(c->count, CHUNK, step_range, &j);
    c->cur = !c->cur;
    return OAK_OK;
}
