/* The CPU backend's lamp grid: every lamp listed in each 16 x 9 x 24 cell its
 * sphere of reach meets, in the layout the GPU backends build in compute
 * (oak_gpu_light_grid), one job per depth slice so any thread count lists
 * the same lamps in the same (view) order. */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "backend/gpu/light_grid.h"
#include "cpu_internal.h"

typedef struct grid_job {
    cpu_backend *b;
    const oak_gpu_light_grid *g;
    uint32_t first, count; /* lamps: view lights [first, first + count) */
} grid_job;

static void slice_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    grid_job *j = user;
    cpu_backend *b = j->b;
    uint32_t *counts = b->grid + OAK_GPU_LIGHT_GRID_HEAD_WORDS;
    uint32_t *lists = counts + OAK_LIGHT_GRID_CELLS;
    for (uint32_t z = begin; z < end; z++) {
        /* the lamps reaching this slice's depth range, in view order */
        uint32_t *near = b->grid_scratch + (size_t)z * j->count, n = 0;
        float z0 = _oak_grid_slice_depth(j->g, z), z1 = _oak_grid_slice_depth(j->g, z + 1);
        for (uint32_t i = 0; i < j->count; i++) {
            const float *l = b->grid_lamps + (size_t)i * 4;
            if (l[3] <= 0 || (-l[2] + l[3] >= z0 && -l[2] - l[3] <= z1)) near[n++] = i;
        }
        uint32_t over = 0;
        for (uint32_t y = 0; y < OAK_LIGHT_GRID_Y; y++)
            for (uint32_t x = 0; x < OAK_LIGHT_GRID_X; x++) {
                uint32_t cell = x + OAK_LIGHT_GRID_X * (y + OAK_LIGHT_GRID_Y * z), c = 0;
                uint32_t *list = lists + (size_t)cell * OAK_LIGHT_CELL_MAX;
                float lo[3], hi[3];
                _oak_grid_cell_box(j->g, x, y, z, lo, hi);
                for (uint32_t k = 0; k < n; k++) {
                    const float *l = b->grid_lamps + (size_t)near[k] * 4;
                    if (!_oak_grid_sphere_cell(j->g, x, y, lo, hi, l, l[3])) continue;
                    if (c < OAK_LIGHT_CELL_MAX)
                        list[c++] = j->first + near[k];
                    else
                        over++;
                }
                counts[cell] = c;
            }
        b->grid_slice_over[z] = over;
    }
}

oak_result _oak_cpu_light_grid(cpu_backend *b) {
    const oak_render_view *v = b->view;
    b->grid_ready = false;
    uint32_t cone_cap = b->cone_cap;
    if (v->light_count && !OAK_GROW(b->cones, cone_cap, v->light_count * 2))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: %u lights", v->light_count);
    b->cone_cap = cone_cap;
    for (uint32_t i = 0; i < v->light_count; i++) {
        const oak_light *l = &v->lights[i].light;
        float outer = l->outer_cone != 0 ? l->outer_cone : OAK_PI / 4;
        b->cones[i * 2] = cosf(outer), b->cones[i * 2 + 1] = cosf(l->inner_cone);
    }
    if (b->lamp_loop_all) return OAK_OK;
    if (!b->grid) {
        b->grid = oak_alloc(sizeof(uint32_t) * OAK_GPU_LIGHT_GRID_WORDS);
        if (!b->grid) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: light grid");
    }
    oak_gpu_light_grid *g = (oak_gpu_light_grid *)b->grid;
    _oak_gpu_light_grid_fill(g, v, v->light_count);
    uint32_t first = g->info[0], n = g->info[1] - first;
    uint32_t cap = b->grid_lamp_cap, cap2 = b->grid_scratch_cap;
    if (n && (!OAK_GROW(b->grid_lamps, cap, n * 4) ||
              !OAK_GROW(b->grid_scratch, cap2, n * OAK_LIGHT_GRID_Z)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: light grid of %u lamps", n);
    b->grid_lamp_cap = cap, b->grid_scratch_cap = cap2;
    /* view-space centres; a directional light in the lamp range reaches all */
    const float(*V)[4] = (const float(*)[4])v->view;
    for (uint32_t i = 0; i < n; i++) {
        const oak_render_light *rl = &v->lights[first + i];
        const float *p = rl->position;
        float *o = b->grid_lamps + (size_t)i * 4;
        for (int k = 0; k < 3; k++)
            o[k] = V[0][k] * p[0] + V[1][k] * p[1] + V[2][k] * p[2] + V[3][k];
        bool dir = rl->light.type == OAK_LIGHT_DIRECTIONAL || rl->light.type == OAK_LIGHT_DEFAULT;
        o[3] = dir ? 0.0f : rl->light.range;
    }
    grid_job job = {b, g, first, n};
    oak_parallel_for(OAK_LIGHT_GRID_Z, 1, slice_job, &job);
    uint32_t over = 0;
    for (uint32_t z = 0; z < OAK_LIGHT_GRID_Z; z++) over += b->grid_slice_over[z];
    g->info[2] = over;
    if (over && !b->grid_warned) {
        oak_log_warn(
            "cpu backend: %u lamp listings over %u per cell were dropped (OAK_LIGHT_CELL_MAX)",
            over, OAK_LIGHT_CELL_MAX);
        b->grid_warned = true;
    }
    b->grid_lamps_n = n;
    b->grid_ready = true;
    return OAK_OK;
}

const uint32_t *_oak_cpu_cell_lamps(const cpu_backend *b, uint32_t px, uint32_t py,
                                    const float P[3], uint32_t *count) {
    const oak_gpu_light_grid *g = (const oak_gpu_light_grid *)b->grid;
    uint32_t x = ((2 * px + 1) * OAK_LIGHT_GRID_X) / (2 * b->width);
    uint32_t y = ((2 * py + 1) * OAK_LIGHT_GRID_Y) / (2 * b->height);
    const float *V = g->view;
    float depth = -(V[2] * P[0] + V[6] * P[1] + V[10] * P[2] + V[14]);
    uint32_t z = _oak_grid_slice_of(g, depth);
    if (x >= OAK_LIGHT_GRID_X) x = OAK_LIGHT_GRID_X - 1;
    if (y >= OAK_LIGHT_GRID_Y) y = OAK_LIGHT_GRID_Y - 1;
    uint32_t cell = x + OAK_LIGHT_GRID_X * (y + OAK_LIGHT_GRID_Y * z);
    const uint32_t *counts = b->grid + OAK_GPU_LIGHT_GRID_HEAD_WORDS;
    *count = counts[cell];
    return counts + OAK_LIGHT_GRID_CELLS + (size_t)cell * OAK_LIGHT_CELL_MAX;
}
