/* The raster pass on the CPU backend: opaque and MASK draws in view order
 * through vertex, bins (its two timed parts) and a per-tile raster of
 * reversed-Z depth and triangle id: the visibility buffer. */
#include "cpu_internal.h"

oak_result _oak_cpu_run_raster(cpu_backend *b, const oak_render_view *v) {
    cpu_pass *op = &b->opaque;
    _oak_cpu_pass_target(op, b->width, b->height, true, v->jitter, b->depth, b->ids);
    glm_mat4_copy((vec4 *)v->view_proj, op->view_proj);
    op->draw_count = 0;
    for (uint32_t i = 0; i < v->draws.count; i++) {
        int32_t mi = _oak_cpu_material_index(b, v->draws.material[i]);
        if (b->materials[mi].desc.alpha_mode == OAK_ALPHA_BLEND) continue; /* the blend pass's */
        if (!_oak_cpu_pass_add(op, i)) return OAK_ERROR_OUT_OF_MEMORY;
    }
    _oak_cpu_pass_fill(b, op, &v->draws, true);
    /* meshlets culled by the frustum and their cones; set-up skips them
       (timed with the vertex stage, the front it shortens) */
    double *part = b->part_ms[OAK_PASS_RASTER];
    uint64_t t0 = oak_time_ns();
    oak_result r = _oak_cpu_meshcull(b, op, v);
    if (r) return r;
    part[0] += (double)(oak_time_ns() - t0) * 1e-6;
    r = _oak_cpu_pass_geometry(b, op, &part[0], &part[1]);
    if (r) return r;
    oak_log_debug("cpu raster: %u triangles, %u set up (%u twins skipped, %u of no pixel centre "
                  "by their edges)",
                  op->tri_count, op->tri_total, op->twins_skipped, op->uncovered);
    _oak_cpu_pass_raster(b, op);
    return OAK_OK;
}
