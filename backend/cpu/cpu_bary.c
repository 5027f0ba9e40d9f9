/* Perspective-correct barycentrics of an original (unclipped) triangle at a
 * pixel centre, from the 2D homogeneous form: b ~ inverse([x;y;w]) * ndc, so
 * clipping never changes what a pixel interpolates. Also their exact screen
 * derivatives, which give the texture level (the per-pixel evaluation is
 * inline in cpu_internal.h). */
#include "cpu_internal.h"

void _oak_cpu_bary_setup(cpu_bary *out, const cpu_pass *p, const float *c0, const float *c1,
                         const float *c2) {
    const float *c[3] = {c0, c1, c2};
    for (int i = 0; i < 3; i++) {
        const float *a = c[(i + 1) % 3], *b = c[(i + 2) % 3];
        /* row i of the adjugate: cross((x,y,w)_j, (x,y,w)_k) */
        out->adj[i * 3 + 0] = a[1] * b[3] - a[3] * b[1];
        out->adj[i * 3 + 1] = a[3] * b[0] - a[0] * b[3];
        out->adj[i * 3 + 2] = a[0] * b[1] - a[1] * b[0];
    }
    out->ndc_dx = 2.0f / (float)p->width;
    out->ndc_dy = (p->flip_y ? -2.0f : 2.0f) / (float)p->height;
    const float *a = out->adj;
    out->sx = (a[0] + a[3] + a[6]) * out->ndc_dx;
    out->sy = (a[1] + a[4] + a[7]) * out->ndc_dy;
    for (int i = 0; i < 3; i++) {
        out->gx[i] = a[i * 3] * out->ndc_dx;
        out->gy[i] = a[i * 3 + 1] * out->ndc_dy;
    }
}
