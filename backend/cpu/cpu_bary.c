/* Perspective-correct barycentrics of an original (unclipped) triangle at a
 * pixel centre, from the 2D homogeneous form: b ~ inverse([x;y;w]) * ndc, so
 * clipping never changes what a pixel interpolates. Also their exact screen
 * derivatives, which give the texture level. */
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

void _oak_cpu_bary_eval(const cpu_bary *s, const cpu_pass *p, uint32_t x, uint32_t y, float b[3],
                        float dbdx[3], float dbdy[3]) {
    float nx = ((float)x + 0.5f - p->jitter[0]) * s->ndc_dx - 1.0f;
    float ny = ((float)y + 0.5f - p->jitter[1]) * s->ndc_dy + (p->flip_y ? 1.0f : -1.0f);
    float u[3], sum = 0;
    for (int i = 0; i < 3; i++) {
        u[i] = s->adj[i * 3] * nx + s->adj[i * 3 + 1] * ny + s->adj[i * 3 + 2];
        sum += u[i];
    }
    if (sum == 0) sum = 1e-30f; /* edge-on: any weights will do */
    float inv = 1.0f / sum;
    for (int i = 0; i < 3; i++) b[i] = u[i] * inv;
    if (dbdx) {
        for (int i = 0; i < 3; i++) {
            dbdx[i] = (s->gx[i] - b[i] * s->sx) * inv;
            dbdy[i] = (s->gy[i] - b[i] * s->sy) * inv;
        }
    }
}
