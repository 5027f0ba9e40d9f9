/* The shading contract of docs/SHADING.md, scalar and in the order written
 * there: surface attributes at a pixel, material, lights with the key light's
 * shadow (cpu_shadow.c), GGX/Smith/Schlick + Lambert, the sky light
 * (irradiance and prefiltered maps, split sum), emissive, exp2 fog; and the sky. */
#include <emmintrin.h>
#include <math.h>
#include <string.h>

#include "cpu_internal.h"
#include "render/opaque_copy.h"
#include "render/aerial.h"
#include "render/fog.h"
#include "cpu_fx.h"
#include "cpu_exp2.h"
#include "cpu_sample.h"
#include "render/probe.h"
#include "render/skylight.h"
#include "render/ssr.h"
#include "shaders/common/oak_gpu.h"
#include "shaders/common/sheen.h"

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void normalize3(float v[3]) {
    float l = sqrtf(dot3(v, v));
    if (l > 0) {
        v[0] /= l;
        v[1] /= l;
        v[2] /= l;
    }
}
static void cross3(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
static float clampf(float x, float lo, float hi) {
    return x < lo ? lo : x > hi ? hi : x;
}
static float mixf(float a, float b, float t) {
    return a + (b - a) * t;
}
/* max without libm's NaN rules, so it inlines */
static inline float maxf(float a, float b) {
    return a > b ? a : b;
}

/* The clusters view's colour for n lamps: a jet ramp, dark blue at 0 and red
   at OAK_DEBUG_HEAT_MAX and over (shading.glsl's oak_heat). */
void _oak_cpu_heat(uint32_t n, float rgb[3]) {
    float t = n >= OAK_DEBUG_HEAT_MAX ? 1.0f : (float)n / (float)OAK_DEBUG_HEAT_MAX;
    for (int k = 0; k < 3; k++) rgb[k] = clampf(1.5f - fabsf(4.0f * t - (float)(3 - k)), 0, 1);
}

/* The surface set-up's flags and constants (cpu_internal.h's CPU_SC_
   layout), once a triangle, for the lanes to broadcast or gather. */
void _oak_cpu_surface_consts(cpu_tri_ctx *t) {
    const cpu_material *m = t->mat;
    uint32_t f = 0;
    if (m->textured) {
        f |= CPU_SF_TEX;
        if (m->fx_map && m->desc.fx.triplanar > 0) f |= CPU_SF_TRI;
        if (m->uv1) f |= CPU_SF_UV1;
    }
    if (m->normal_map || m->aniso || m->coat_normal)
        f |= CPU_SF_TAN;
    else if (m->desc.water)
        f |= CPU_SF_WATER;
    if (t->back && m->desc.double_sided) f |= CPU_SF_FLIP;
    if (!m->fx_map && !m->fx_vary && !m->desc.unlit && !m->desc.water && !m->spec_tex &&
        !m->transmit && !m->coat && !m->sheen && !m->aniso && !m->irid && !m->difftr)
        f |= CPU_SF_PREP;
    t->sflags = f;
    float *c = t->sc;
    const cpu_bary *by = &t->bary;
    memcpy(c + CPU_SC_ADJ, by->adj, sizeof by->adj);
    memcpy(c + CPU_SC_GX, by->gx, sizeof by->gx);
    memcpy(c + CPU_SC_GY, by->gy, sizeof by->gy);
    c[CPU_SC_SX] = by->sx, c[CPU_SC_SY] = by->sy;
    c[CPU_SC_NDX] = by->ndc_dx, c[CPU_SC_NDY] = by->ndc_dy;
    const float(*W)[4] = (const float(*)[4])t->d->world;
    for (int i = 0; i < 3; i++) memcpy(c + CPU_SC_POS + i * 3, t->pos[i], 3 * sizeof(float));
    for (int r = 0; r < 4; r++) memcpy(c + CPU_SC_W + r * 3, W[r], 3 * sizeof(float));
    memcpy(c + CPU_SC_NM, t->d->nmat, 9 * sizeof(float));
    for (int i = 0; i < 3; i++) {
        const float *a = t->attr[i];
        memcpy(c + CPU_SC_N + i * 3, a + CPU_ATTR_N, 3 * sizeof(float));
        memcpy(c + CPU_SC_T + i * 4, a + CPU_ATTR_T, 4 * sizeof(float));
        memcpy(c + CPU_SC_C + i * 4, a + CPU_ATTR_C, 4 * sizeof(float));
        memcpy(c + CPU_SC_UV0 + i * 2, a + CPU_ATTR_UV0, 2 * sizeof(float));
        memcpy(c + CPU_SC_UV1 + i * 2, a + CPU_ATTR_UV1, 2 * sizeof(float));
    }
    memcpy(c + CPU_SC_DC, t->d->color, 4 * sizeof(float));
    memcpy(c + CPU_SC_NG, t->Ng, 3 * sizeof(float));
}

void _oak_cpu_tri_ctx(const cpu_backend *b, const cpu_pass *p, uint32_t id, cpu_tri_ctx *t) {
    uint32_t tri = id - 1;
    /* neighbouring pixels mostly hit the same draw as the last triangle:
       try it before the binary search (t->id is 0 on a fresh context) */
    uint32_t d = t->id ? t->draw : 0;
    if (!(t->id && p->tri_base[d] <= tri && tri < p->tri_base[d + 1]))
        d = _oak_cpu_find_draw(p, tri);
    t->draw = d;
    t->id = id;
    t->tri = tri - p->tri_base[t->draw];
    t->d = &p->draws[t->draw];
    t->mat = &b->materials[t->d->material];
    const cpu_mesh *m = &b->meshes[t->d->mesh];
    const uint32_t *ix = m->indices + (size_t)t->tri * 3;
    const float *clip = p->clip + (size_t)p->vtx_base[t->draw] * 4;
    const float *c[3] = {clip + ix[0] * 4, clip + ix[1] * 4, clip + ix[2] * 4};
    _oak_cpu_bary_setup(&t->bary, p, c[0], c[1], c[2]);
    float wp[3][3];
    const float(*W)[4] = (const float(*)[4])t->d->world;
    for (int i = 0; i < 3; i++) {
        const float *s = m->pos + (size_t)ix[i] * 3;
        t->attr[i] = m->attr + (size_t)ix[i] * CPU_ATTR;
        float posed[3];
        if (t->d->pose) { /* skinned as the vertex stage did, normal and tangent too */
            float rows[12];
            _oak_cpu_pose_rows(m, t->d->pose, ix[i], rows);
            _oak_pose_apply(rows, s, 1, posed);
            s = posed;
            float *a = t->posed[i];
            memcpy(a, t->attr[i], sizeof(float) * CPU_ATTR);
            _oak_pose_apply(rows, t->attr[i] + CPU_ATTR_N, 0, a + CPU_ATTR_N);
            _oak_pose_apply(rows, t->attr[i] + CPU_ATTR_T, 0, a + CPU_ATTR_T);
            if (t->d->uv_offset) /* an impostor card: its cell */
                a[CPU_ATTR_UV0] += t->d->uv_offset[0], a[CPU_ATTR_UV0 + 1] += t->d->uv_offset[1];
            t->attr[i] = a;
        }
        for (int k = 0; k < 3; k++) {
            t->pos[i][k] = s[k];
            wp[i][k] = W[0][k] * s[0] + W[1][k] * s[1] + W[2][k] * s[2] + W[3][k];
        }
    }
    /* facing from the sign of det([x;y;w]): valid even for vertices behind the eye */
    float det = t->bary.adj[0] * c[0][0] + t->bary.adj[1] * c[0][1] + t->bary.adj[2] * c[0][3];
    t->back = det < 0;
    float e1[3] = {wp[1][0] - wp[0][0], wp[1][1] - wp[0][1], wp[1][2] - wp[0][2]};
    float e2[3] = {wp[2][0] - wp[0][0], wp[2][1] - wp[0][1], wp[2][2] - wp[0][2]};
    t->Ng[0] = e1[1] * e2[2] - e1[2] * e2[1];
    t->Ng[1] = e1[2] * e2[0] - e1[0] * e2[2];
    t->Ng[2] = e1[0] * e2[1] - e1[1] * e2[0];
    normalize3(t->Ng);
    if (t->back && t->mat->desc.double_sided)
        for (int k = 0; k < 3; k++) t->Ng[k] = -t->Ng[k];
    _oak_cpu_surface_consts(t);
}

static void interp(const cpu_tri_ctx *t, int off, int n, const float b[3], float *out) {
    for (int k = 0; k < n; k++)
        out[k] =
            b[0] * t->attr[0][off + k] + b[1] * t->attr[1][off + k] + b[2] * t->attr[2][off + k];
}

/* The cutout's alpha of a material slot, mask.glsl's oak_cutout_alpha:
   magnified, level 0 through the mag filter (as cpu_sample); minified, one
   nearest tap of the nearest level in place of the trilinear (the levels
   keep level 0's coverage, docs/WORLD.md "Coverage-preserving mips"). */
static float cpu_mask_tap(const cpu_backend *b, const cpu_tex_ref *r, const float uv[2][2],
                          const float duvdx[2][2], const float duvdy[2][2]) {
    if (r->tex < 0) return 1;
    const cpu_texture *tx = &b->textures[r->tex];
    const float *u = uv[r->uv_set], *dx = duvdx[r->uv_set], *dy = duvdy[r->uv_set];
    float t[2] = {r->m[0] * u[0] + r->m[1] * u[1] + r->off[0],
                  r->m[2] * u[0] + r->m[3] * u[1] + r->off[1]};
    float tdx[2] = {r->m[0] * dx[0] + r->m[1] * dx[1], r->m[2] * dx[0] + r->m[3] * dx[1]};
    float tdy[2] = {r->m[0] * dy[0] + r->m[1] * dy[1], r->m[2] * dy[0] + r->m[3] * dy[1]};
    float W = (float)tx->width, H = (float)tx->height;
    float lx = sqrtf(tdx[0] * W * tdx[0] * W + tdx[1] * H * tdx[1] * H);
    float ly = sqrtf(tdy[0] * W * tdy[0] * W + tdy[1] * H * tdy[1] * H);
    float m = lx > ly ? lx : ly, lambda = m > 1 ? log2f(m) : 0; /* NaN: not > 1 */
    if (!(lambda > 0)) {
        v4f c = sample_level(tx, &r->sampler, 0, r->sampler.mag != OAK_FILTER_NEAREST, t);
        return c[3];
    }
    float maxl = (float)(tx->mip_count - 1);
    if (lambda > maxl) lambda = maxl;
    v4f c = sample_level(tx, &r->sampler, (uint32_t)floorf(lambda + 0.5f), false, t);
    return c[3];
}

/* The cutout's barycentrics from the triangle's snapped corners, as the
   GPUs interpolate (the hardware from vis_stream.vert's 1/16-pixel corners,
   the compute raster's oak_craster_cut_out from the same): the exact edge
   functions at the pixel centre over each corner's clip w, and their
   analytic derivatives per pixel. The shading's _oak_cpu_bary_eval works
   from the unsnapped clip positions: on a sub-pixel leaf card the snap
   moves a corner by up to 1/32 pixel, a tenth of the card, and so the uv
   by a tenth of the card's texels, which flipped the one-tap cutout where
   the GPUs' kept (docs/WORLD.md "The meadow's forest and its cost"). False
   when a corner was clipped (no snapped point): the caller keeps
   _oak_cpu_bary_eval's. */
static bool mask_bary_snapped(const cpu_backend *b, const cpu_pass *p, const cpu_tri_ctx *t,
                              uint32_t x, uint32_t y, float w[3], float dx[3], float dy[3]) {
    const cpu_mesh *m = &b->meshes[t->d->mesh];
    const uint32_t *ix = m->indices + (size_t)t->tri * 3;
    int64_t X[3], Y[3];
    float iw[3];
    for (int k = 0; k < 3; k++) {
        size_t v = (size_t)p->vtx_base[t->draw] + ix[k];
        const cpu_svert *sv = &p->svert[v];
        if (sv->code & 0x3e0u) return false; /* cpu_geometry.c's CLIP_BITS: not projected */
        X[k] = sv->x, Y[k] = sv->y, iw[k] = 1.0f / p->clip[v * 4 + 3];
    }
    int64_t px = ((int64_t)x - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int64_t py = ((int64_t)y - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    float e[3], ex[3], ey[3], q = 0, qx = 0, qy = 0;
    for (int k = 0; k < 3; k++) { /* vertex k's weight: the edge opposite it */
        int i = (k + 1) % 3, j = (k + 2) % 3;
        e[k] = (float)((X[j] - X[i]) * (py - Y[i]) - (Y[j] - Y[i]) * (px - X[i])) * iw[k];
        ex[k] = -(float)CPU_SUBPIXEL * (float)(Y[j] - Y[i]) * iw[k];
        ey[k] = (float)CPU_SUBPIXEL * (float)(X[j] - X[i]) * iw[k];
        q += e[k], qx += ex[k], qy += ey[k];
    }
    if (!(q != 0)) return false;
    float iq = 1.0f / q;
    for (int k = 0; k < 3; k++) w[k] = e[k] * iq;
    for (int k = 0; k < 3; k++) dx[k] = (ex[k] - w[k] * qx) * iq, dy[k] = (ey[k] - w[k] * qy) * iq;
    return true;
}

float _oak_cpu_mask_alpha(const cpu_backend *b, const cpu_pass *p, const cpu_tri_ctx *t, uint32_t x,
                          uint32_t y) {
    float w[3], dx[3], dy[3];
    if (!mask_bary_snapped(b, p, t, x, y, w, dx, dy))
        _oak_cpu_bary_eval(&t->bary, p, x, y, w, dx, dy);
    float uv[2][2], duvdx[2][2], duvdy[2][2], ca;
    interp(t, CPU_ATTR_UV0, 2, w, uv[0]);
    interp(t, CPU_ATTR_UV1, 2, w, uv[1]);
    interp(t, CPU_ATTR_UV0, 2, dx, duvdx[0]);
    interp(t, CPU_ATTR_UV1, 2, dx, duvdx[1]);
    interp(t, CPU_ATTR_UV0, 2, dy, duvdy[0]);
    interp(t, CPU_ATTR_UV1, 2, dy, duvdy[1]);
    interp(t, CPU_ATTR_C + 3, 1, w, &ca);
    return t->mat->desc.base_color[3] * ca *
           cpu_mask_tap(b, &t->mat->tex[CPU_TEX_BASE], uv, duvdx, duvdy);
}

void _oak_cpu_surface(const cpu_backend *b, const cpu_pass *p, const cpu_tri_ctx *t, uint32_t x,
                      uint32_t y, cpu_surface *s) {
    const cpu_material *m = t->mat;
    float w[3], dx[3], dy[3];
    _oak_cpu_bary_eval(&t->bary, p, x, y, w, m->textured ? dx : NULL, m->textured ? dy : NULL);
    /* the mip bias log2(render scale): a scaled frame's textures as sharp
       as the output's (surface.glsl the same) */
    float rs = b->view->post.render_scale;
    if (m->textured && rs > 0 && rs < 1)
        for (int k = 0; k < 3; k++) dx[k] *= rs, dy[k] *= rs;
    const float(*W)[4] = (const float(*)[4])t->d->world;
    float po[3];
    for (int k = 0; k < 3; k++)
        po[k] = w[0] * t->pos[0][k] + w[1] * t->pos[1][k] + w[2] * t->pos[2][k];
    for (int k = 0; k < 3; k++)
        s->P[k] = W[0][k] * po[0] + W[1][k] * po[1] + W[2][k] * po[2] + W[3][k];
    float n[3];
    interp(t, CPU_ATTR_N, 3, w, n);
    const float *nm = t->d->nmat;
    for (int k = 0; k < 3; k++)
        s->Nv[k] = nm[k * 3] * n[0] + nm[k * 3 + 1] * n[1] + nm[k * 3 + 2] * n[2];
    /* the tangent frame: the normal maps' (the base's, the coat's), anisotropy's */
    if (m->normal_map || m->aniso || m->coat_normal) {
        float tg[4];
        interp(t, CPU_ATTR_T, 4, w, tg);
        for (int k = 0; k < 3; k++) s->T[k] = W[0][k] * tg[0] + W[1][k] * tg[1] + W[2][k] * tg[2];
        s->T[3] = tg[3] < 0 ? -1.0f : 1.0f;
        normalize3(s->T);
    } else if (m->desc.water) { /* water's tangent w is its crest foam */
        interp(t, CPU_ATTR_T + 3, 1, w, &s->T[3]);
    }
    if (dot3(s->Nv, s->Nv) > 0)
        normalize3(s->Nv);
    else
        for (int k = 0; k < 3; k++) s->Nv[k] = t->Ng[k];
    s->back = t->back;
    s->px = x, s->py = y;
    s->gtao = 1.0f;
    if (t->back && m->desc.double_sided)
        for (int k = 0; k < 3; k++) s->Nv[k] = -s->Nv[k];
    for (int k = 0; k < 3; k++) s->Ng[k] = t->Ng[k];
    interp(t, CPU_ATTR_C, 4, w, s->C);
    /* a stream instance's colour */
    for (int k = 0; k < 4; k++) s->C[k] *= t->d->color[k];
    if (!m->textured) return; /* no texture reads uv */
    interp(t, CPU_ATTR_UV0, 2, w, s->uv[0]);
    interp(t, CPU_ATTR_UV0, 2, dx, s->duvdx[0]);
    interp(t, CPU_ATTR_UV0, 2, dy, s->duvdy[0]);
    if (m->fx_map && m->desc.fx.triplanar > 0) { /* world planes: P's derivatives */
        float ox[3], oy[3];
        for (int k = 0; k < 3; k++) {
            ox[k] = dx[0] * t->pos[0][k] + dx[1] * t->pos[1][k] + dx[2] * t->pos[2][k];
            oy[k] = dy[0] * t->pos[0][k] + dy[1] * t->pos[1][k] + dy[2] * t->pos[2][k];
        }
        for (int k = 0; k < 3; k++) {
            s->dPdx[k] = W[0][k] * ox[0] + W[1][k] * ox[1] + W[2][k] * ox[2];
            s->dPdy[k] = W[0][k] * oy[0] + W[1][k] * oy[1] + W[2][k] * oy[2];
        }
    }
    if (!m->uv1) return;
    interp(t, CPU_ATTR_UV1, 2, w, s->uv[1]);
    interp(t, CPU_ATTR_UV1, 2, dx, s->duvdx[1]);
    interp(t, CPU_ATTR_UV1, 2, dy, s->duvdy[1]);
}

void _oak_cpu_sky(const oak_render_view *v, const float dir[3], float rgb[3]) {
    float d[3] = {dir[0], dir[1], dir[2]};
    normalize3(d);
    if (d[1] > 0) {
        float t = sqrtf(d[1]);
        for (int k = 0; k < 3; k++) rgb[k] = mixf(v->sky_horizon[k], v->sky_zenith[k], t);
    } else {
        for (int k = 0; k < 3; k++) rgb[k] = v->sky_horizon[k];
    }
}

static void unproject(const oak_render_view *v, float x, float y, float z, float out[3]) {
    const float(*M)[4] = (const float(*)[4])v->inv_view_proj;
    float r[4];
    for (int k = 0; k < 4; k++) r[k] = M[0][k] * x + M[1][k] * y + M[2][k] * z + M[3][k];
    for (int k = 0; k < 3; k++) out[k] = r[k] / r[3];
}

void _oak_cpu_view_ray(const oak_render_view *v, uint32_t x, uint32_t y, float dir[3]) {
    float nx = ((float)x + 0.5f - v->jitter[0]) / (float)v->width * 2.0f - 1.0f;
    float ny = 1.0f - ((float)y + 0.5f - v->jitter[1]) / (float)v->height * 2.0f;
    float a[3], c[3];
    unproject(v, nx, ny, 1.0f, a);
    unproject(v, nx, ny, 0.5f, c);
    for (int k = 0; k < 3; k++) dir[k] = c[k] - a[k];
    normalize3(dir);
}

/* normalize3 on four vectors (SoA): each lane left alone unless its length > 0 */
static inline void normalize4(__m128 *x, __m128 *y, __m128 *z) {
    __m128 l = _mm_sqrt_ps(
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(*x, *x), _mm_mul_ps(*y, *y)), _mm_mul_ps(*z, *z)));
    __m128 pos = _mm_cmpgt_ps(l, _mm_setzero_ps());
    *x = _mm_or_ps(_mm_and_ps(pos, _mm_div_ps(*x, l)), _mm_andnot_ps(pos, *x));
    *y = _mm_or_ps(_mm_and_ps(pos, _mm_div_ps(*y, l)), _mm_andnot_ps(pos, *y));
    *z = _mm_or_ps(_mm_and_ps(pos, _mm_div_ps(*z, l)), _mm_andnot_ps(pos, *z));
}

/* The gradient sky of pixels x..x+3 of row y: _oak_cpu_view_ray then
   _oak_cpu_sky, their operations in their order on each lane. Written out
   in registers (no arrays, no loops): the chain of divides and square roots
   is the cost, and the sky needs only the y of its second normalize, so
   that one divides y alone (docs/PERFORMANCE.md, rast46). */
void _oak_cpu_sky_row4(const oak_render_view *v, uint32_t x, uint32_t y, float *rgb) {
    __m128 fx = _mm_setr_ps((float)x, (float)(x + 1), (float)(x + 2), (float)(x + 3));
    __m128 nx = _mm_sub_ps(_mm_add_ps(fx, _mm_set1_ps(0.5f)), _mm_set1_ps(v->jitter[0]));
    nx = _mm_sub_ps(_mm_mul_ps(_mm_div_ps(nx, _mm_set1_ps((float)v->width)), _mm_set1_ps(2.0f)),
                    _mm_set1_ps(1.0f));
    float ny = 1.0f - ((float)y + 0.5f - v->jitter[1]) / (float)v->height * 2.0f;
    const float(*M)[4] = (const float(*)[4])v->inv_view_proj;
    /* the row's part of each unprojection: M[0][k] * nx + M[1][k] * ny */
    __m128 a0 = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(M[0][0]), nx), _mm_set1_ps(M[1][0] * ny));
    __m128 a1 = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(M[0][1]), nx), _mm_set1_ps(M[1][1] * ny));
    __m128 a2 = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(M[0][2]), nx), _mm_set1_ps(M[1][2] * ny));
    __m128 a3 = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(M[0][3]), nx), _mm_set1_ps(M[1][3] * ny));
#define SKY_R(A, k, zs) _mm_add_ps(_mm_add_ps(A, _mm_set1_ps(M[2][k] * (zs))), _mm_set1_ps(M[3][k]))
    __m128 w1 = SKY_R(a3, 3, 1.0f), w5 = SKY_R(a3, 3, 0.5f);
    __m128 dx = _mm_sub_ps(_mm_div_ps(SKY_R(a0, 0, 0.5f), w5), _mm_div_ps(SKY_R(a0, 0, 1.0f), w1));
    __m128 dy = _mm_sub_ps(_mm_div_ps(SKY_R(a1, 1, 0.5f), w5), _mm_div_ps(SKY_R(a1, 1, 1.0f), w1));
    __m128 dz = _mm_sub_ps(_mm_div_ps(SKY_R(a2, 2, 0.5f), w5), _mm_div_ps(SKY_R(a2, 2, 1.0f), w1));
#undef SKY_R
    normalize4(&dx, &dy, &dz); /* _oak_cpu_view_ray's */
    /* _oak_cpu_sky normalizes its direction again: only y is read after */
    __m128 l = _mm_sqrt_ps(
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz)));
    __m128 pos = _mm_cmpgt_ps(l, _mm_setzero_ps());
    dy = _mm_or_ps(_mm_and_ps(pos, _mm_div_ps(dy, l)), _mm_andnot_ps(pos, dy));
    __m128 up = _mm_cmpgt_ps(dy, _mm_setzero_ps());
    __m128 t = _mm_sqrt_ps(_mm_and_ps(up, dy)); /* lanes not up: sqrt(0), unused */
    __m128 c[3];
    for (int k = 0; k < 3; k++) {
        __m128 h = _mm_set1_ps(v->sky_horizon[k]);
        __m128 mix = _mm_add_ps(h, _mm_mul_ps(_mm_sub_ps(_mm_set1_ps(v->sky_zenith[k]), h), t));
        c[k] = _mm_or_ps(_mm_and_ps(up, mix), _mm_andnot_ps(up, h));
    }
    /* SoA to the pixels' RGB: r0 g0 b0 r1 | g1 b1 r2 g2 | b2 r3 g3 b3 */
    __m128 rg = _mm_unpacklo_ps(c[0], c[1]);                           /* r0 g0 r1 g1 */
    __m128 rg2 = _mm_unpackhi_ps(c[0], c[1]);                          /* r2 g2 r3 g3 */
    __m128 b0r1 = _mm_shuffle_ps(c[2], rg, _MM_SHUFFLE(2, 2, 0, 0));   /* b0 b0 r1 r1 */
    __m128 o0 = _mm_shuffle_ps(rg, b0r1, _MM_SHUFFLE(2, 0, 1, 0));     /* r0 g0 b0 r1 */
    __m128 g1b1 = _mm_shuffle_ps(rg, c[2], _MM_SHUFFLE(1, 1, 3, 3));   /* g1 g1 b1 b1 */
    __m128 o1 = _mm_shuffle_ps(g1b1, rg2, _MM_SHUFFLE(1, 0, 2, 0));    /* g1 b1 r2 g2 */
    __m128 b2b3 = _mm_shuffle_ps(c[2], c[2], _MM_SHUFFLE(3, 3, 2, 2)); /* b2 b2 b3 b3 */
    __m128 b2r3 = _mm_shuffle_ps(b2b3, rg2, _MM_SHUFFLE(2, 2, 0, 0));  /* b2 b2 r3 r3 */
    __m128 o2 = _mm_shuffle_ps(b2r3, _mm_shuffle_ps(rg2, b2b3, _MM_SHUFFLE(2, 2, 3, 3)),
                               _MM_SHUFFLE(2, 0, 2, 0)); /* b2 r3 g3 b3 */
    _mm_storeu_ps(rgb, o0);
    _mm_storeu_ps(rgb + 4, o1);
    _mm_storeu_ps(rgb + 8, o2);
}

/* an empty slot reads (1, 1, 1, 1) without the call */
static inline void sample_slot(const cpu_backend *b, const cpu_tex_ref *r, const cpu_surface *s,
                               float out[4]) {
    if (r->tex < 0) {
        out[0] = out[1] = out[2] = out[3] = 1;
        return;
    }
    cpu_sample_ref(b, r, s->uv, s->duvdx, s->duvdy, out);
}

/* A normal map's texel tn on the surface's normal Nv in its tangent frame,
   scale on its x and y: surface.glsl's oak_mapped_normal. */
static void tangent_normal(const cpu_surface *s, const float tn[4], float scale, float N[3]) {
    float n[3] = {tn[0] * 2 - 1, tn[1] * 2 - 1, tn[2] * 2 - 1};
    n[0] *= scale;
    n[1] *= scale;
    const float *Nv = s->Nv, *T = s->T;
    float B[3] = {(Nv[1] * T[2] - Nv[2] * T[1]) * T[3], (Nv[2] * T[0] - Nv[0] * T[2]) * T[3],
                  (Nv[0] * T[1] - Nv[1] * T[0]) * T[3]};
    for (int k = 0; k < 3; k++) N[k] = T[k] * n[0] + B[k] * n[1] + Nv[k] * n[2];
    normalize3(N);
}

/* The normal map on the surface's normal. */
static void mapped_normal(const cpu_backend *b, const cpu_material *m, const cpu_surface *s,
                          float N[3]) {
    float tn[4];
    sample_slot(b, &m->tex[CPU_TEX_NORMAL], s, tn);
    tangent_normal(s, tn, m->desc.normal_scale, N);
}

/* Weather on a surface (docs/SHADING.md "Weather"), as surface.glsl's
   oak_weather_surface: the puddle mask is value noise over world XZ in
   cells of OAK_PUDDLE_SCALE metres from an integer hash of the cell. */
static float smoothstepf(float e0, float e1, float x) {
    float t = clampf((x - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
static float puddle_hash(int32_t x, int32_t y) {
    uint32_t h = ((uint32_t)x * 0x8da6b343u) ^ ((uint32_t)y * 0xd8163841u);
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}
static float puddle_noise(float x, float z) {
    float qx = x * (float)(1.0 / OAK_PUDDLE_SCALE), qz = z * (float)(1.0 / OAK_PUDDLE_SCALE);
    float fx = floorf(qx), fz = floorf(qz);
    float tx = qx - fx, tz = qz - fz;
    tx = tx * tx * (3.0f - 2.0f * tx);
    tz = tz * tz * (3.0f - 2.0f * tz);
    int32_t cx = (int32_t)fx, cz = (int32_t)fz;
    float a = puddle_hash(cx, cz), bb = puddle_hash(cx + 1, cz);
    float d = puddle_hash(cx, cz + 1), e = puddle_hash(cx + 1, cz + 1);
    return mixf(mixf(a, bb, tx), mixf(d, e, tx), tz);
}
/* Rain's rings on a puddle at world (x, z), as surface.glsl's oak_ripples:
   two grids of OAK_RIPPLE_CELL cells (the second offset by half a cell),
   one drop a period in each at a hashed time and a hashed place near the
   cell's middle; its ring spreads at OAK_RIPPLE_SPEED, a Gaussian crest
   whose slope fades as (1 - age / period)^2. Adds the crests' tilt of the
   normal along world x and z to tilt. */
static void ripples(float x, float z, float t, float rain, float tilt[2]) {
    for (int layer = 0; layer < 2; layer++) {
        float off = 0.5f * (float)layer;
        float qx = x * (float)(1.0 / OAK_RIPPLE_CELL) + off;
        float qz = z * (float)(1.0 / OAK_RIPPLE_CELL) + off;
        float fx = floorf(qx), fz = floorf(qz);
        int32_t cx = (int32_t)fx + layer * 7919, cz = (int32_t)fz;
        float phase = puddle_hash(cx, cz);
        float jx = 0.44f + 0.12f * puddle_hash(cx + 1301, cz);
        float jz = 0.44f + 0.12f * puddle_hash(cx, cz + 1301);
        float u = t * (float)(1.0 / OAK_RIPPLE_PERIOD) + phase;
        float age = (u - floorf(u)) * (float)OAK_RIPPLE_PERIOD;
        float dx = (qx - fx - jx) * (float)OAK_RIPPLE_CELL,
              dz = (qz - fz - jz) * (float)OAK_RIPPLE_CELL;
        float d = sqrtf(dx * dx + dz * dz);
        float s = (d - (float)OAK_RIPPLE_SPEED * age) * (float)(1.0 / OAK_RIPPLE_WIDTH);
        if (!(fabsf(s) < 3.0f) || !(d > 1e-4f)) continue;
        float fade = 1.0f - age * (float)(1.0 / OAK_RIPPLE_PERIOD);
        /* the crest exp(-s^2)'s slope along the radius, turned into a tilt */
        float g = (float)OAK_RIPPLE_SLOPE * rain * fade * fade * 2.0f * s * expf(-s * s) / d;
        tilt[0] += g * dx;
        tilt[1] += g * dz;
    }
}

/* returns how far the shading normal is flattened to Nv (tilted along
   world x and z by tilt, rain's ripples in a puddle); *puddle the puddle's
   share of the pixel (the ssr pass's mirrors) */
static float weather_surface(const oak_render_view *v, const float P[3], const float Nv[3],
                             float base[3], float *rough, float *metallic, float tilt[2],
                             float *puddle) {
    float wet = v->env.wetness, snow = v->env.snow, flat = 0.0f;
    *puddle = 0.0f;
    float dielectric = 1.0f - *metallic;
    if (wet > 0) {
        float w = wet * smoothstepf((float)OAK_WET_UP_LO, (float)OAK_WET_UP_HI, Nv[1]) * dielectric;
        float porous = smoothstepf((float)OAK_WET_POROUS_LO, (float)OAK_WET_POROUS_HI, *rough);
        float k = 1.0f - (1.0f - (float)OAK_WET_DARKEN) * w * porous;
        for (int c = 0; c < 3; c++) base[c] *= k;
        float r = *rough < (float)OAK_WET_ROUGHNESS ? *rough : (float)OAK_WET_ROUGHNESS;
        *rough = mixf(*rough, r, w);
        float cover = clampf(wet * 2.0f - 1.0f, 0.0f, 1.0f) * (float)OAK_PUDDLE_COVER;
        if (cover > 0 && Nv[1] >= (float)OAK_PUDDLE_UP) {
            float n = puddle_noise(P[0], P[2]);
            float p =
                smoothstepf(1.0f - cover, 1.0f - cover + (float)OAK_PUDDLE_EDGE, n) * dielectric;
            float kp = 1.0f - (1.0f - (float)OAK_PUDDLE_DARKEN) * p;
            for (int c = 0; c < 3; c++) base[c] *= kp;
            *rough = mixf(*rough, (float)OAK_PUDDLE_ROUGHNESS, p);
            flat = p;
            *puddle = p;
            if (v->env.rain > 0 && p > 0) {
                const float *e = v->camera_pos;
                float ex = P[0] - e[0], ey = P[1] - e[1], ez = P[2] - e[2];
                float near = clampf(((float)OAK_RIPPLE_FAR - sqrtf(ex * ex + ey * ey + ez * ez)) *
                                        (float)(1.0 / (OAK_RIPPLE_FAR - OAK_RIPPLE_NEAR)),
                                    0.0f, 1.0f);
                if (near > 0) ripples(P[0], P[2], v->env.rain_time, v->env.rain * near, tilt);
            }
        }
    }
    if (snow > 0) {
        float sn = snow * smoothstepf((float)OAK_SNOW_UP_LO, (float)OAK_SNOW_UP_HI, Nv[1]);
        for (int c = 0; c < 3; c++) base[c] = mixf(base[c], (float)OAK_SNOW_ALBEDO, sn);
        *rough = mixf(*rough, (float)OAK_SNOW_ROUGHNESS, sn);
        *metallic *= 1.0f - sn;
        flat = maxf(flat, sn);
    }
    return flat;
}

static bool weather_on(const oak_render_view *v, const oak_material_desc *md) {
    return (v->env.wetness > 0 || v->env.snow > 0) && !md->unlit && !md->water;
}

void _oak_cpu_channel(const cpu_backend *b, const cpu_tri_ctx *t, const cpu_surface *s,
                      float out[3]) {
    const oak_render_view *v = b->view;
    const cpu_material *m = t->mat;
    const oak_material_desc *md = &m->desc;
    if (v->post.channel == OAK_CHANNEL_DEPTH) { /* -z in view space, as view_depth */
        const float(*V)[4] = (const float(*)[4])v->view;
        float d = -(V[0][2] * s->P[0] + V[1][2] * s->P[1] + V[2][2] * s->P[2] + V[3][2]);
        out[0] = out[1] = out[2] = d;
        return;
    }
    if (v->post.channel == OAK_CHANNEL_ALBEDO) {
        float tb[4];
        sample_slot(b, &m->tex[CPU_TEX_BASE], s, tb);
        for (int k = 0; k < 3; k++) out[k] = md->base_color[k] * s->C[k] * tb[k];
        if (weather_on(v, md)) { /* the weathered albedo, as the resolve's */
            float tmr[4];
            sample_slot(b, &m->tex[CPU_TEX_MR], s, tmr);
            float metallic = md->metallic * tmr[2];
            float rough = clampf(md->roughness * tmr[1], 0.03f, 1.0f);
            float tilt[2] = {0, 0}, puddle;
            weather_surface(v, s->P, s->Nv, out, &rough, &metallic, tilt, &puddle);
        }
        return;
    }
    float N[3] = {s->Nv[0], s->Nv[1], s->Nv[2]};
    if (!md->unlit && m->tex[CPU_TEX_NORMAL].tex >= 0) mapped_normal(b, m, s, N);
    for (int k = 0; k < 3; k++) out[k] = N[k];
}

/* shading.glsl's oak_film_sensitivity and oak_iridescence (docs/SHADING.md
   "Lobes", KHR_materials_iridescence), operation for operation. */
static void film_sensitivity(float opd, const float shift[3], float out[3]) {
    static const float amp[3] = {0.8465900f, 1.000222f, 1.001122f};
    static const float pos[3] = {1.6810e6f, 1.7953e6f, 2.2084e6f};
    static const float var[3] = {4.3278e9f, 9.3046e9f, 6.6121e9f};
    float ph = 6.2831853e-9f * opd, x[3];
    for (int k = 0; k < 3; k++)
        x[k] = amp[k] * cosf(pos[k] * ph + shift[k]) * expf(-var[k] * ph * ph);
    x[0] += 0.1538683f * cosf(2.2399e6f * ph + shift[0]) * expf(-4.5282e9f * ph * ph);
    out[0] = 3.2404542f * x[0] - 1.5371385f * x[1] - 0.4985314f * x[2];
    out[1] = -0.9692660f * x[0] + 1.8760108f * x[1] + 0.0415560f * x[2];
    out[2] = 0.0556434f * x[0] - 0.2040259f * x[1] + 1.0572252f * x[2];
}

static void iridescence(float nf, float cos1, float d, const float F0[3], float out[3]) {
    float t = clampf(d / 0.03f, 0.0f, 1.0f);
    float n2 = 1.0f + (nf - 1.0f) * (t * t * (3.0f - 2.0f * t));
    float c2sq = 1.0f - (1.0f - cos1 * cos1) / (n2 * n2);
    if (c2sq < 0) {
        out[0] = out[1] = out[2] = 1;
        return;
    }
    float cos2 = sqrtf(c2sq);
    float r0 = (n2 - 1.0f) / (n2 + 1.0f);
    float q1 = 1.0f - cos1, q1s = q1 * q1;
    float R12 = r0 * r0 + (1.0f - r0 * r0) * (q1s * q1s * q1), T121 = 1.0f - R12;
    float q2 = 1.0f - cos2, q2s = q2 * q2, p2 = q2s * q2s * q2;
    float opd = 2.0f * n2 * d * cos2;
    float R23[3], phi[3], r123[3], Rs[3], Cm[3];
    for (int k = 0; k < 3; k++) {
        float sf = sqrtf(clampf(F0[k], 0.0f, 0.9999f));
        float nb = (1.0f + sf) / (1.0f - sf), r1 = (nb - n2) / (nb + n2);
        R23[k] = r1 * r1 + (1.0f - r1 * r1) * p2;
        phi[k] = (n2 < 1.0f ? 0.0f : OAK_PI) + (nb < n2 ? OAK_PI : 0.0f);
        float R123 = clampf(R12 * R23[k], 1e-5f, 0.9999f);
        r123[k] = sqrtf(R123);
        Rs[k] = T121 * T121 * R23[k] / (1.0f - R123);
        out[k] = R12 + Rs[k];
        Cm[k] = Rs[k] - T121;
    }
    for (int m = 1; m <= 2; m++) {
        float S[3], sh[3] = {(float)m * phi[0], (float)m * phi[1], (float)m * phi[2]};
        film_sensitivity((float)m * opd, sh, S);
        for (int k = 0; k < 3; k++) {
            Cm[k] *= r123[k];
            out[k] += Cm[k] * 2.0f * S[k];
        }
    }
    for (int k = 0; k < 3; k++) out[k] = maxf(out[k], 0.0f);
}

/* The lobes' per-pixel parts (docs/SHADING.md "Lobes", as shading.glsl's
   oak_lobes_compose): what each leaves of the layers under it and their sky
   light; the kernel adds each light's coat and sheen. */
static void lobes_prep(const cpu_backend *b, const cpu_material *m, const cpu_surface *s,
                       const float N[3], const float V[3], const float base[4], float metallic,
                       cpu_lanes *q, uint32_t lane) {
    const oak_render_view *v = b->view;
    const oak_material_lobes *lb = &m->desc.lobes;
    float ao = q->ao[lane];
    q->coat[lane] = 0, q->coat_a2[lane] = 1, q->coat_keep[lane] = 1;
    q->sheen_a[lane] = 0, q->sheen_keep[lane] = 1;
    q->ani_at[lane] = 0, q->ani_ab[lane] = 0, q->irid_f[lane] = 0;
    for (int k = 0; k < 3; k++) {
        q->Nr[k][lane] = N[k];
        q->At[k][lane] = q->Ab[k][lane] = q->irid[k][lane] = 0;
        q->Nc[k][lane] = s->Nv[k]; /* the coat's normal: Nv, or its own map on Nv below */
        q->coat_amb[k][lane] = q->sheen[k][lane] = q->sheen_amb[k][lane] = 0;
    }
    if (m->sheen) { /* its factors times their textures, as surface.glsl's l1.z, l2 */
        float tc[4], tr[4], c[3];
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_SHEEN_COLOR], s, tc);
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_SHEEN_ROUGHNESS], s, tr);
        float sr = lb->sheen_roughness * tr[3];
        for (int k = 0; k < 3; k++) c[k] = lb->sheen_color[k] * tc[k];
        float r = maxf(sr, 0.07f);
        float E = oak_sheen_e(q->NdotV[lane], sr);
        float irr[3];
        _oak_sky_irradiance(b->sky, N, irr);
        q->sheen_a[lane] = r * r;
        q->sheen_keep[lane] = 1.0f - maxf(c[0], maxf(c[1], c[2])) * E;
        for (int k = 0; k < 3; k++) {
            q->sheen[k][lane] = c[k];
            q->sheen_amb[k][lane] = ao * c[k] * E * irr[k] / OAK_PI;
        }
    }
    if (m->aniso) { /* as shading.glsl's oak_aniso_frame and oak_aniso_bent */
        const float *Nv = s->Nv;
        float t[3] = {s->T[0], s->T[1], s->T[2]}, At[3], Ab[3], n[3], c[3];
        if (dot3(t, t) < 1e-12f) { /* no tangents: up x Nv */
            bool x = fabsf(Nv[1]) > 0.999f;
            const float up[3] = {x ? 1.0f : 0.0f, x ? 0.0f : 1.0f, 0.0f};
            cross3(up, Nv, t);
        }
        normalize3(t);
        float B[3], dir[3], w = s->T[3] < 0 ? -1.0f : 1.0f;
        cross3(Nv, t, B);
        float cr = cosf(lb->anisotropy_rotation), sr = sinf(lb->anisotropy_rotation);
        float st = lb->anisotropy;
        if (m->lobe_tex[OAK_LOBE_TEX_ANISOTROPY].tex >= 0) { /* as surface.glsl's l3 */
            float ta[4];
            sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_ANISOTROPY], s, ta);
            float dx = ta[0] * 2.0f - 1.0f, dy = ta[1] * 2.0f - 1.0f;
            float qx = cr * dx - sr * dy, qy = sr * dx + cr * dy, ql = qx * qx + qy * qy;
            if (ql > 1e-12f) {
                float k = 1.0f / sqrtf(ql);
                cr = qx * k, sr = qy * k;
            }
            st *= ta[2];
        }
        for (int k = 0; k < 3; k++) dir[k] = t[k] * cr + B[k] * w * sr;
        float nd = dot3(N, dir);
        for (int k = 0; k < 3; k++) At[k] = dir[k] - N[k] * nd;
        normalize3(At);
        cross3(N, At, Ab);
        float rough = q->rough[lane], alpha = rough * rough;
        q->ani_at[lane] = alpha + (1.0f - alpha) * (st * st);
        q->ani_ab[lane] = alpha;
        cross3(Ab, V, c);
        cross3(c, Ab, n);
        float bf = 1.0f - st * (1.0f - rough), b2 = bf * bf, b4 = b2 * b2, Nr[3];
        for (int k = 0; k < 3; k++) Nr[k] = n[k] + (N[k] - n[k]) * b4;
        normalize3(Nr);
        for (int k = 0; k < 3; k++) {
            q->At[k][lane] = At[k];
            q->Ab[k][lane] = Ab[k];
            q->Nr[k][lane] = Nr[k];
        }
    }
    q->difftr[lane] = m->difftr;
    if (m->difftr) { /* its share of the diffuse lobe, and the sky behind: irradiance about -N */
        float tt[4], tc[4];
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_DIFFUSE_TRANSMISSION], s, tt);
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_DIFFUSE_TRANSMISSION_COLOR], s, tc);
        float Nb[3] = {-N[0], -N[1], -N[2]}, irr[3], t = lb->diffuse_transmission * tt[3];
        _oak_sky_irradiance(b->sky, Nb, irr);
        for (int k = 0; k < 3; k++) {
            float dk = base[k] * (1.0f - metallic) * (m->transmit ? 1.0f - q->trans[lane] : 1.0f);
            q->dt[k][lane] = dk * (lb->diffuse_transmission_color[k] * tc[k]) * t / OAK_PI;
            q->dpi[k][lane] = dk * (1.0f - t) / OAK_PI;
            q->dt_irr[k][lane] = irr[k];
        }
    }
    if (m->irid) { /* the film's Fresnel at NdotV over the F0 of the base */
        float F0[3] = {q->F0[0][lane], q->F0[1][lane], q->F0[2][lane]}, Fi[3];
        float nf = lb->iridescence_ior > 0 ? lb->iridescence_ior : 1.3f; /* glTF's defaults */
        float d = lb->iridescence_thickness > 0 ? lb->iridescence_thickness : 400.0f;
        float ti[4], th[4];
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_IRIDESCENCE], s, ti);
        if (m->lobe_tex[OAK_LOBE_TEX_IRIDESCENCE_THICKNESS].tex >= 0) { /* as GLSL's mix */
            sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_IRIDESCENCE_THICKNESS], s, th);
            d = lb->iridescence_thickness_min * (1.0f - th[1]) + d * th[1];
        }
        iridescence(nf, q->NdotV[lane], d, F0, Fi);
        q->irid_f[lane] = lb->iridescence * ti[0];
        for (int k = 0; k < 3; k++) q->irid[k][lane] = Fi[k];
    }
    if (m->coat) { /* its factors times their textures, as surface.glsl's l1.xy */
        float tw[4], tr[4];
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_CLEARCOAT], s, tw);
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS], s, tr);
        float cw = lb->clearcoat * tw[0];
        float r = clampf(lb->clearcoat_roughness * tr[1], 0.03f, 1.0f), a = r * r;
        float Nc[3] = {s->Nv[0], s->Nv[1], s->Nv[2]};
        if (m->coat_normal) { /* as surface.glsl's Nc: oak_mapped_normal with its scale */
            float tn[4];
            sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_CLEARCOAT_NORMAL], s, tn);
            float sc = lb->clearcoat_normal_scale != 0 ? lb->clearcoat_normal_scale : 1.0f;
            tangent_normal(s, tn, sc, Nc);
            for (int k = 0; k < 3; k++) q->Nc[k][lane] = Nc[k];
        }
        float NdotV = maxf(dot3(Nc, V), 1e-4f), om = 1.0f - NdotV;
        float Fc = 0.04f + 0.96f * (om * om * om * om * om);
        float dvn = dot3(V, Nc), R[3], spec[3] = {0, 0, 0}, A, B;
        for (int k = 0; k < 3; k++) R[k] = 2.0f * dvn * Nc[k] - V[k];
        if (v->probe_count)
            _oak_probe_specular(
                (const oak_gpu_probe *)(v->probe_data + OAK_GPU_PROBE_RECORDS_AT * 4),
                v->probe_count, v->probe_data + (size_t)OAK_GPU_PROBE_MAPS_AT * 4, b->sky, s->P, R,
                r, spec);
        else
            _oak_sky_specular(b->sky, R, r, spec);
        _oak_sky_brdf(b->sky, NdotV, r, &A, &B);
        q->coat[lane] = cw;
        q->coat_a2[lane] = a * a;
        q->coat_keep[lane] = 1.0f - cw * Fc;
        for (int k = 0; k < 3; k++) q->coat_amb[k][lane] = ao * cw * spec[k] * (0.04f * A + B);
    }
}

float _oak_cpu_shade_prep(const cpu_backend *b, const cpu_tri_ctx *t, const cpu_surface *s,
                          cpu_lanes *q, uint32_t lane) {
    const oak_render_view *v = b->view;
    const cpu_material *m = t->mat;
    const oak_material_desc *md = &m->desc;
    float tb[4], tmr[4], tocc[4], tem[4], fx[CPU_TEX_COUNT][4], fxN[3];
    if (m->fx_map) { /* every slot through the tricks, as surface.glsl */
        cpu_fx_sample(b, m, s, v->camera_pos, fx, fxN);
        memcpy(tb, fx[CPU_TEX_BASE], sizeof tb);
        memcpy(tmr, fx[CPU_TEX_MR], sizeof tmr);
        memcpy(tocc, fx[CPU_TEX_OCCLUSION], sizeof tocc);
        memcpy(tem, fx[CPU_TEX_EMISSIVE], sizeof tem);
    } else {
        sample_slot(b, &m->tex[CPU_TEX_BASE], s, tb);
    }
    if (m->fx_vary) {
        float f = fx_vary(&md->fx, s->P);
        for (int k = 0; k < 3; k++) tb[k] *= f;
    }
    float base[4];
    for (int k = 0; k < 4; k++) base[k] = md->base_color[k] * s->C[k] * tb[k];
    q->lit[lane] = !md->unlit;
    q->water_a[lane] = 0;
    q->ssr_p[lane] = 0;
    if (md->unlit) {
        for (int k = 0; k < 3; k++) q->col[k][lane] = base[k];
        return base[3];
    }
    if (!m->fx_map) {
        sample_slot(b, &m->tex[CPU_TEX_MR], s, tmr);
        sample_slot(b, &m->tex[CPU_TEX_OCCLUSION], s, tocc);
        sample_slot(b, &m->tex[CPU_TEX_EMISSIVE], s, tem);
    }
    float metallic = md->metallic * tmr[2];
    float rough = clampf(md->roughness * tmr[1], 0.03f, 1.0f);
    float tilt[2] = {0, 0}, puddle = 0;
    float wflat = weather_on(v, md)
                      ? weather_surface(v, s->P, s->Nv, base, &rough, &metallic, tilt, &puddle)
                      : 0;
    float a = rough * rough;
    q->rough[lane] = rough;
    q->a2[lane] = a * a;
    q->ao[lane] = (1.0f + md->occlusion_strength * (tocc[0] - 1.0f)) * s->gtao; /* x gtao */
    float N[3] = {s->Nv[0], s->Nv[1], s->Nv[2]};
    if (m->fx_map && m->tex[CPU_TEX_NORMAL].tex >= 0)
        memcpy(N, fxN, sizeof N);
    else if (m->tex[CPU_TEX_NORMAL].tex >= 0)
        mapped_normal(b, m, s, N);
    if (wflat > 0) {
        const float F[3] = {s->Nv[0] + tilt[0], s->Nv[1], s->Nv[2] + tilt[1]};
        for (int k = 0; k < 3; k++) N[k] = mixf(N[k], F[k], wflat);
        normalize3(N);
    }
    float V[3] = {v->camera_pos[0] - s->P[0], v->camera_pos[1] - s->P[1],
                  v->camera_pos[2] - s->P[2]};
    normalize3(V);
    /* the dielectric's Fresnel, the specular textures applied (surface.glsl's F0d) */
    float f0d[3] = {m->f0[0], m->f0[1], m->f0[2]}, f90d = m->f90;
    if (m->spec_tex) {
        float ts[4], tc[4];
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_SPECULAR], s, ts);
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_SPECULAR_COLOR], s, tc);
        for (int k = 0; k < 3; k++) f0d[k] = fminf(m->spec_rsc[k] * tc[k], 1.0f) * m->f90 * ts[3];
        f90d = m->f90 * ts[3];
    }
    q->NdotV[lane] = maxf(dot3(N, V), 1e-4f);
    for (int k = 0; k < 3; k++) {
        q->P[k][lane] = s->P[k];
        q->Ng[k][lane] = s->Ng[k];
        q->N[k][lane] = N[k];
        q->V[k][lane] = V[k];
        q->F0[k][lane] = mixf(f0d[k], base[k], metallic);
        q->dpi[k][lane] = base[k] * (1.0f - metallic) / OAK_PI; /* the same for every light */
        q->emit[k][lane] = md->emissive[k] * md->emissive_strength * tem[k];
    }
    q->trans[lane] = 0, q->thick[lane] = 0;
    if (m->transmit) { /* its share of the light passes through: not the diffuse lobe's */
        float tt[4], th[4];
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_TRANSMISSION], s, tt);
        sample_slot(b, &m->lobe_tex[OAK_LOBE_TEX_THICKNESS], s, th);
        q->trans[lane] = md->lobes.transmission * tt[0];
        q->thick[lane] = md->lobes.thickness * th[1];
        for (int k = 0; k < 3; k++) {
            q->dpi[k][lane] *= 1.0f - q->trans[lane];
            q->tbase[k][lane] = base[k];
        }
    }
    q->F90[lane] = mixf(f90d, 1.0f, metallic);
    q->lobed[lane] = m->coat || m->sheen || m->aniso || m->irid || m->difftr;
    if (!q->lobed[lane]) q->ssr_p[lane] = puddle; /* a mirror: the kernel weighs its reflection */
    if (q->lobed[lane]) lobes_prep(b, m, s, N, V, base, metallic, q, lane);
    if (md->water) { /* docs/SHADING.md "Water", as surface.glsl */
        float foam = clampf(s->T[3], 0.0f, 1.0f);
        float c = 1.0f - maxf(dot3(N, V), 0.0f), c2 = c * c;
        float fr = (float)OAK_WATER_F0 + (1.0f - (float)OAK_WATER_F0) * (c2 * c2 * c);
        for (int k = 0; k < 3; k++) {
            q->F0[k][lane] = (float)OAK_WATER_F0;
            q->dpi[k][lane] = (float)OAK_WATER_FOAM_ALBEDO * foam / OAK_PI;
        }
        q->water_a[lane] = 1.0f - (1.0f - fr) * (1.0f - foam);
        if (!q->lobed[lane]) q->ssr_p[lane] = 1; /* its reflection, for the copy's march */
    }
    q->receive[lane] = !(t->d->flags & OAK_DRAW_NO_RECEIVE);
    /* the directional lights, then only the lamps listed in this pixel's
       cell (every light when there is no grid) */
    uint32_t first = v->directional_count, listed = 0, n = v->light_count;
    const uint32_t *cell = NULL;
    if (b->grid_ready && b->grid_lamps_n) { /* no lamps: no cell to look up */
        cell = _oak_cpu_cell_lamps(b, s->px, s->py, s->P, &listed);
        first = ((const oak_gpu_light_grid *)b->grid)->info[0];
        n = first + listed;
    }
    q->cell[lane] = cell;
    q->first[lane] = first;
    q->n[lane] = n;
    return q->water_a[lane] > 0 ? q->water_a[lane] : base[3];
}

/* Caustics, as surface.glsl's oak_caustics. */
static float caustics(const oak_render_view *v, const float P[3], float lvl) {
    if (v->key_light < 0 || (uint32_t)v->key_light >= v->light_count) return 1.0f;
    const float *d = v->lights[v->key_light].direction;
    float L[3] = {-d[0], -d[1], -d[2]};
    if (L[1] <= 0) return 1.0f;
    float s = (lvl - P[1]) / L[1];
    float qx = (P[0] + L[0] * s) * (float)OAK_WATER_CAUSTIC_SCALE;
    float qz = (P[2] + L[2] * s) * (float)OAK_WATER_CAUSTIC_SCALE;
    float t = v->env.water_time * (float)(6.283185307179586 / OAK_WATER_CAUSTIC_PERIOD);
    float a = sinf(qx + 1.3f * sinf(0.7f * qz + 9.0f * t));
    float b = sinf(qz + 1.3f * sinf(0.8f * qx - 10.0f * t));
    float c = 1.0f - fminf(fabsf(a), fabsf(b));
    c = c * c;
    c = c * c;
    c = c * c;
    float fade = expf(-(float)OAK_WATER_CAUSTIC_FADE * (lvl - P[1]));
    return 1.0f + (float)OAK_WATER_CAUSTIC_STRENGTH * L[1] * fade * c;
}

/* Seen through the water's volume, as surface.glsl's oak_underwater. */
static void underwater(const oak_render_view *v, const float P[3], float col[3]) {
    const oak_environment *e = &v->env;
    if (!e->water) return;
    const float *x = e->water_extent, *cam = v->camera_pos;
    bool any = x[0] != 0 || x[1] != 0 || x[2] != 0 || x[3] != 0;
    float lvl = e->water_level;
    if (cam[1] < lvl) { /* underwater fog */
        if (any && (cam[0] < x[0] || cam[2] < x[1] || cam[0] > x[2] || cam[2] > x[3])) return;
        float d[3] = {cam[0] - P[0], cam[1] - P[1], cam[2] - P[2]};
        float under = P[1] < lvl ? 1.0f : (lvl - cam[1]) / (P[1] - cam[1]);
        float len = under * sqrtf(dot3(d, d));
        float cs = P[1] < lvl ? caustics(v, P, lvl) : 1.0f;
        for (int k = 0; k < 3; k++) {
            col[k] *= cs;
            float T = expf(-e->water_absorption[k] * len);
            col[k] = col[k] * T + e->water_scatter[k] * (1.0f - T);
        }
        return;
    }
    if (!(P[1] < lvl && cam[1] > lvl)) return;
    if (any && (P[0] < x[0] || P[2] < x[1] || P[0] > x[2] || P[2] > x[3])) return;
    float d[3] = {cam[0] - P[0], cam[1] - P[1], cam[2] - P[2]};
    float len = (lvl - P[1]) / (cam[1] - P[1]) * sqrtf(dot3(d, d));
    float t = clampf((lvl - P[1]) / maxf(e->water_shore, 1e-6f), 0.0f, 1.0f);
    float foam = 1.0f - t * t * (3.0f - 2.0f * t);
    float cs = caustics(v, P, lvl);
    for (int k = 0; k < 3; k++) {
        col[k] *= cs;
        float T = expf(-e->water_absorption[k] * len);
        col[k] = col[k] * T + e->water_scatter[k] * (1.0f - T);
        col[k] = mixf(col[k], e->water_foam[k], foam);
    }
}

/* The mirror buffer's texels for lane `lane` (render/ssr.h): its weight
   times what the fog leaves of it (fog: the fog's transmittance), the
   reflected direction about N, the reflection, as the resolve shader's. */
static void ssr_store(const cpu_backend *b, const cpu_surface *s, const cpu_lanes *q, uint32_t lane,
                      float fog, float out[8]) {
    memset(out, 0, 8 * sizeof(float));
    if (!(q->ssr_p[lane] > 0) || q->water_a[lane] > 0) return; /* puddles only */
    float w[3] = {q->ssr_w[0][lane] * fog, q->ssr_w[1][lane] * fog, q->ssr_w[2][lane] * fog};
    if (b->fog.grid[3]) { /* the volumetric fog's transmittance: ones less zeros */
        float one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
        _oak_fog_apply(&b->fog, b->fog_buf, b->view, s->P, one);
        _oak_fog_apply(&b->fog, b->fog_buf, b->view, s->P, zero);
        for (int k = 0; k < 3; k++) w[k] *= one[k] - zero[k];
    }
    if (b->view->aerial) { /* and the air's transmittance */
        float one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
        _oak_aerial_apply(b->view->aerial, b->view, s->P, one);
        _oak_aerial_apply(b->view->aerial, b->view, s->P, zero);
        for (int k = 0; k < 3; k++) w[k] *= one[k] - zero[k];
    }
    if (w[0] == 0 && w[1] == 0 && w[2] == 0) return;
    float N[3] = {q->N[0][lane], q->N[1][lane], q->N[2][lane]};
    float V[3] = {q->V[0][lane], q->V[1][lane], q->V[2][lane]};
    float d = dot3(N, V), R[3], e[2];
    for (int k = 0; k < 3; k++) R[k] = 2.0f * d * N[k] - V[k]; /* reflect(-V, N) */
    _oak_ssr_oct(R, e);
    for (int k = 0; k < 3; k++) out[k] = w[k], out[4 + k] = q->ssr_r[k][lane];
    out[3] = e[0], out[7] = e[1];
}

/* Water's screen-space reflection over the opaque copy's level 0 (the
   frame as the resolve left it) and the opaque depth, as surface.glsl's */
static void water_ssr(const cpu_backend *b, const cpu_surface *s, const cpu_lanes *q, uint32_t lane,
                      float col[3]) {
    float N[3] = {q->N[0][lane], q->N[1][lane], q->N[2][lane]};
    float V[3] = {q->V[0][lane], q->V[1][lane], q->V[2][lane]};
    float d = dot3(N, V), R[3], fade;
    for (int k = 0; k < 3; k++) R[k] = 2.0f * d * N[k] - V[k]; /* reflect(-V, N) */
    int32_t hit[2];
    if (!_oak_cpu_ssr_march(&b->opaque, b->view, s->P, (int32_t)s->px, (int32_t)s->py, R,
                            OAK_SSR_WATER_STEPS, OAK_SSR_WATER_HALVINGS, hit, &fade))
        return;
    const float *h = b->opaque_copy + ((size_t)hit[1] * b->width + (size_t)hit[0]) * 3;
    for (int k = 0; k < 3; k++)
        col[k] += q->ssr_w[k][lane] * fade * (h[k] - q->ssr_r[k][lane]) / q->water_a[lane];
}

/* The air's fog from the eye to P, as surface.glsl's after the water's
   volume: the volumetric fog, else the exp2 curve; returns the exp2 curve's
   transmittance (1 under the volumetric fog), for a mirror's weight. ft:
   that transmittance as the kernel's fog_lanes found it (the same
   operations, so the same bits), or NULL to work it out here. */
static float air_fog(const cpu_backend *b, const float P[3], float col[3], const float *ft) {
    const oak_render_view *v = b->view;
    if (b->fog.grid[3]) { /* volumetric fog replaces the exp2 curve */
        _oak_fog_apply(&b->fog, b->fog_buf, v, P, col);
    } else if (v->env.fog_density > 0) {
        float f;
        if (ft)
            f = *ft;
        else {
            float dv[3] = {P[0] - v->camera_pos[0], P[1] - v->camera_pos[1],
                           P[2] - v->camera_pos[2]};
            float fd = v->env.fog_density * sqrtf(dot3(dv, dv));
            f = cpu_fog_transmittance(fd);
        }
        for (int k = 0; k < 3; k++) col[k] = mixf(v->fog_color[k], col[k], f);
        if (v->aerial) _oak_aerial_apply(v->aerial, v, P, col);
        return f;
    }
    /* then the air's own (aerial perspective), over the fog */
    if (v->aerial) _oak_aerial_apply(v->aerial, v, P, col);
    return 1.0f;
}

void _oak_cpu_shade_finish(const cpu_backend *b, const cpu_surface *s, const cpu_lanes *q,
                           uint32_t lane, float rgb[3], float *ssr) {
    const oak_render_view *v = b->view;
    float fogw; /* the exp2 fog's transmittance, for the mirror's weight */
    if (v->post.debug == OAK_DEBUG_CLUSTERS && q->lit[lane]) { /* lamps the lamp loop read */
        _oak_cpu_heat(q->n[lane] - q->first[lane], rgb);
        return;
    }
    /* worked on in rgb itself: a copy out of a local at the end loaded its
       three floats as 8 + 4 bytes over the fog's three 4-byte stores, a
       store-to-load forward that fails at every pixel */
    float *col = rgb;
    for (int k = 0; k < 3; k++) col[k] = q->col[k][lane];
    if (q->water_a[lane] > 0) {
        for (int k = 0; k < 3; k++) col[k] /= q->water_a[lane];
        /* over the opaque copy (the blend pass): what it holds along the
           reflected ray replaces the sky's reflection, as surface.glsl */
        if (b->opaque_valid && q->ssr_p[lane] > 0) water_ssr(b, s, q, lane, col);
    } else
        underwater(v, s->P, col);
    fogw = air_fog(b, s->P, col, &q->fogt[lane]);
    if (ssr) ssr_store(b, s, q, lane, fogw, ssr);
    if (v->post.debug == OAK_DEBUG_CASCADES) _oak_cpu_cascade_tint(v, s->P, col);
}

void _oak_cpu_shade_finish_lanes(const cpu_backend *b, const cpu_surface *surf, const cpu_lanes *q,
                                 float *const *outs) {
    const oak_render_view *v = b->view;
    /* what makes _oak_cpu_shade_finish do more than the exp2 fog's mix: a
       debug view, the mirror buffer, water (a water lane, or underwater
       when the view has water), the volumetric fog, aerial perspective.
       Where none is, its work is the mix below, the same operations,
       without its call and tests a pixel. */
    bool plain = v->post.debug != OAK_DEBUG_CLUSTERS && v->post.debug != OAK_DEBUG_CASCADES &&
                 !b->ssr_on && !v->env.water && !b->fog.grid[3] && !v->aerial;
    bool exp2 = v->env.fog_density > 0;
    const float *fc = v->fog_color;
    for (uint32_t i = 0; i < q->count; i++) {
        if (plain && !(q->water_a[i] > 0)) {
            float *out = outs[i];
            if (exp2)
                for (int k = 0; k < 3; k++) out[k] = mixf(fc[k], q->col[k][i], q->fogt[i]);
            else
                for (int k = 0; k < 3; k++) out[k] = q->col[k][i];
            continue;
        }
        /* the mirror buffer's pixel, on frames the ssr pass runs */
        float *ssr =
            b->ssr_on ? b->ssr + ((size_t)surf[i].py * b->opaque.width + surf[i].px) * 8 : NULL;
        _oak_cpu_shade_finish(b, &surf[i], q, i, outs[i], ssr);
    }
}

/* GLSL's refract(-V, N, eta): 0 past the critical angle */
static void refract_v(const float V[3], const float N[3], float eta, float r[3]) {
    float ni = -dot3(N, V), k = 1.0f - eta * eta * (1.0f - ni * ni);
    float sk = k >= 0 ? eta * ni + sqrtf(k) : 0;
    for (int i = 0; i < 3; i++) r[i] = k >= 0 ? -eta * V[i] - sk * N[i] : 0;
}

/* The opaque copy at world point e projected by the view, at level lod. */
static void copy_at(const cpu_backend *b, const float e[3], float lod, float out[3]) {
    const float(*vp)[4] = (const float(*)[4])b->view->view_proj;
    float clip[4];
    for (int i = 0; i < 4; i++)
        clip[i] = vp[0][i] * e[0] + vp[1][i] * e[1] + vp[2][i] * e[2] + vp[3][i];
    _oak_opaque_sample(b->opaque_copy, b->width, b->height, 0.5f + 0.5f * clip[0] / clip[3],
                       0.5f - 0.5f * clip[1] / clip[3], lod, out);
}

void _oak_cpu_water_refract_point(const float P[3], const float N[3], const float V[3],
                                  float e[3]) {
    const float up[3] = {0, 1, 0}, eta = 1.0f / 1.33f;
    float a[3], f[3];
    refract_v(V, N, eta, a);
    refract_v(V, up, eta, f);
    for (int i = 0; i < 3; i++) e[i] = P[i] + (a[i] - f[i]) * (float)OAK_WATER_REFRACT_DEPTH;
}

/* The frame behind water at lane 0, refracted by its waves, as
   transmission.glsl's oak_water_behind (docs/SHADING.md "Water"). */
static void water_behind(const cpu_backend *b, const cpu_lanes *q, float out[3]) {
    float P[3], N[3], V[3], e[3];
    for (int i = 0; i < 3; i++) P[i] = q->P[i][0], N[i] = q->N[i][0], V[i] = q->V[i][0];
    _oak_cpu_water_refract_point(P, N, V, e);
    copy_at(b, e, 0, out);
}

bool _oak_cpu_eye_under_water(const oak_render_view *v) {
    const oak_environment *e = &v->env;
    const float *x = e->water_extent, *cam = v->camera_pos;
    bool any = x[0] != 0 || x[1] != 0 || x[2] != 0 || x[3] != 0;
    if (!e->water || !(cam[1] < e->water_level)) return false;
    return !any || (cam[0] >= x[0] && cam[2] >= x[1] && cam[0] <= x[2] && cam[2] <= x[3]);
}

/* What stands above the water where the refracted ray t from P (seen in
   pixel px) meets it in the opaque copy, its own underwater fog taken back
   out, over the sky light in air by the hit's fade: surface.glsl's. */
static void window_hit(const cpu_backend *b, const float P[3], const int32_t px[2],
                       const float t[3], float air[3]) {
    int32_t hit[2] = {px[0], px[1]};
    float fade = 1.0f, Q[3];
    /* a ray whose screen path never leaves px (its vanishing point is in
       px: looking along it) meets what px itself shows */
    const float(*M)[4] = (const float(*)[4])b->view->view_proj;
    float vp[4];
    for (int k = 0; k < 4; k++) vp[k] = M[0][k] * t[0] + M[1][k] * t[1] + M[2][k] * t[2];
    bool along = false;
    if (vp[3] > 0) {
        int32_t q[2];
        _oak_cpu_ssr_pixel(b->view, b->opaque.width, b->opaque.height, vp[0] / vp[3], vp[1] / vp[3],
                           q);
        along = q[0] == px[0] && q[1] == px[1];
    }
    if (!along && !_oak_cpu_ssr_march(&b->opaque, b->view, P, px[0], px[1], t, OAK_SSR_WATER_STEPS,
                                      OAK_SSR_WATER_HALVINGS, hit, &fade))
        return;
    float depth = _oak_cpu_ssr_hit_point(&b->opaque, b->view, hit, Q);
    const oak_environment *e = &b->view->env;
    const float *cam = b->view->camera_pos;
    if (!(depth > 0) || !(Q[1] > e->water_level)) return;
    float under = (e->water_level - cam[1]) / (Q[1] - cam[1]);
    float d[3] = {cam[0] - Q[0], cam[1] - Q[1], cam[2] - Q[2]}, len = sqrtf(dot3(d, d));
    const float *h = b->opaque_copy + ((size_t)hit[1] * b->width + (size_t)hit[0]) * 3;
    for (int k = 0; k < 3; k++) {
        float Tu = expf(-e->water_absorption[k] * (under * len));
        float c = (h[k] - e->water_scatter[k] * (1.0f - Tu)) / maxf(Tu, 1e-3f);
        air[k] = mixf(air[k], maxf(c, 0.0f), fade);
    }
}

/* The key light's glitter seen from under the water (docs/SHADING.md "Water",
   surface.glsl oak_water_glitter_below, operation for operation): GGX
   transmission from the light in the air to the eye in the water through
   microfacets about N; its shadows are not read. */
static void water_glitter_below(const oak_render_view *v, const float N[3], const float V[3],
                                float roughness, float out[3]) {
    if (v->key_light < 0) return;
    const oak_render_light *l = &v->lights[v->key_light];
    if (l->light.type != OAK_LIGHT_DIRECTIONAL && l->light.type != OAK_LIGHT_DEFAULT) return;
    const float L[3] = {-l->direction[0], -l->direction[1], -l->direction[2]};
    const float n = (float)OAK_WATER_IOR;
    float nv = dot3(N, V), nl = -dot3(N, L);
    if (nv <= 0 || nl <= 0) return;
    float h[3] = {-(L[0] + V[0] * n), -(L[1] + V[1] * n), -(L[2] + V[2] * n)};
    float hl = sqrtf(dot3(h, h));
    if (hl < 1e-6f) return;
    for (int k = 0; k < 3; k++) h[k] = h[k] / hl;
    if (dot3(h, N) < 0)
        for (int k = 0; k < 3; k++) h[k] = -h[k];
    float vh = dot3(V, h), lh = -dot3(L, h), nh = dot3(N, h);
    float den = n * vh - lh;
    if (vh <= 0 || lh <= 0 || den <= 0) return;
    float a = roughness * roughness, a2 = a * a;
    float dd = nh * nh * (a2 - 1.0f) + 1.0f;
    float D = a2 / ((float)OAK_PI * dd * dd);
    float gv = 2.0f * nv / (nv + sqrtf(a2 + (1.0f - a2) * nv * nv));
    float gl = 2.0f * nl / (nl + sqrtf(a2 + (1.0f - a2) * nl * nl));
    float q = 1.0f - lh, q2 = q * q;
    float F = (float)OAK_WATER_F0 + (1.0f - (float)OAK_WATER_F0) * (q2 * q2 * q);
    float f = lh * vh / (nl * nv) * (n * n) * (1.0f - F) * gv * gl * D / (den * den);
    for (int k = 0; k < 3; k++) out[k] += l->light.color[k] * l->light.intensity * (f * nl);
}

void _oak_cpu_water_underside(const cpu_backend *b, const float P[3], const float N[3],
                              const float V[3], float roughness, const int32_t *px, float out[3]) {
    const oak_environment *e = &b->view->env;
    const float *cam = b->view->camera_pos;
    float t[3], sky[3] = {0, 0, 0};
    refract_v(V, N, (float)OAK_WATER_IOR, t); /* out into the air; 0 past the critical angle */
    float ct = -dot3(t, N), F = 1.0f;
    if (ct > 0) {
        float q = 1.0f - ct, q2 = q * q;
        F = (float)OAK_WATER_F0 + (1.0f - (float)OAK_WATER_F0) * (q2 * q2 * q);
        _oak_sky_specular(b->sky, t, roughness, sky);
        _oak_sun_disc_add(b->view, t, sky); /* the key light's disc over an image sky */
        if (px && b->opaque_copy) window_hit(b, P, px, t, sky);
    }
    float d[3] = {cam[0] - P[0], cam[1] - P[1], cam[2] - P[2]}, len = sqrtf(dot3(d, d));
    float glint[3] = {0, 0, 0};
    water_glitter_below(b->view, N, V, roughness, glint);
    for (int k = 0; k < 3; k++) {
        float c = ct > 0 ? sky[k] * (1.0f - F) + e->water_scatter[k] * F : e->water_scatter[k];
        c += glint[k];
        float T = expf(-e->water_absorption[k] * len);
        out[k] = c * T + e->water_scatter[k] * (1.0f - T);
    }
}

void _oak_cpu_water_sky_below(const cpu_backend *b, const float dir[3], float out[3]) {
    const oak_environment *e = &b->view->env;
    if (!(dir[1] > 0)) {
        for (int k = 0; k < 3; k++) out[k] = e->water_scatter[k];
        return;
    }
    const float *cam = b->view->camera_pos, down[3] = {0, -1, 0};
    float s = (e->water_level - cam[1]) / dir[1];
    float P[3] = {cam[0] + dir[0] * s, cam[1] + dir[1] * s, cam[2] + dir[2] * s};
    float V[3] = {-dir[0], -dir[1], -dir[2]};
    _oak_cpu_water_underside(b, P, down, V, (float)OAK_WATER_ROUGHNESS, NULL, out);
}

/* Light through a transmissive surface at lane 0 (docs/SHADING.md
   "Transmission"), as shaders/common/transmission.glsl: the refracted ray
   runs the thickness (times the draw's scale per axis) and its end is read
   from the opaque copy at a level set by roughness and ior; Beer-Lambert
   over its length, the base colour, (1 - F) and the factor. */
static void transmit(const cpu_backend *b, const cpu_tri_ctx *t, const cpu_lanes *q, float out[3]) {
    const oak_material_lobes *lb = &t->mat->desc.lobes;
    const float(*w)[4] = (const float(*)[4])t->d->world;
    float ior = lb->ior > 0 ? lb->ior : 1.5f;
    float scale[3], P[3], N[3], V[3];
    for (int i = 0; i < 3; i++) {
        scale[i] = sqrtf(w[i][0] * w[i][0] + w[i][1] * w[i][1] + w[i][2] * w[i][2]);
        P[i] = q->P[i][0], N[i] = q->N[i][0], V[i] = q->V[i][0];
    }
    float spread = (ior - 1.0f) * 0.025f * lb->dispersion;
    float lod = log2f((float)b->width) * q->rough[0] * clampf(2.0f * ior - 2.0f, 0.0f, 1.0f);
    float T[3] = {0, 0, 0}, len = 0;
    int rays = lb->dispersion > 0 ? 3 : 1;
    for (int c = 0; c < rays; c++) {
        float n = rays == 1 ? ior : ior + spread * (float)(c - 1);
        float r[3], ray[3] = {0, 0, 0};
        refract_v(V, N, 1.0f / n, r);
        float rl = sqrtf(dot3(r, r));
        for (int i = 0; rl > 0 && i < 3; i++) ray[i] = r[i] / rl * q->thick[0] * scale[i];
        float e[3] = {P[0] + ray[0], P[1] + ray[1], P[2] + ray[2]}, s[3];
        copy_at(b, e, lod, s);
        if (rays == 1)
            memcpy(T, s, sizeof T);
        else
            T[c] = s[c];
        if (c == rays / 2) len = sqrtf(dot3(ray, ray));
    }
    const float *ac = lb->attenuation_color;
    bool white = ac[0] == 0 && ac[1] == 0 && ac[2] == 0;
    if (lb->attenuation_distance > 0 && len > 0) /* Beer-Lambert */
        for (int k = 0; k < 3; k++)
            T[k] *= powf(white ? 1.0f : ac[k], len / lb->attenuation_distance);
    float c = 1.0f - clampf(dot3(N, V), 0.0f, 1.0f), c2 = c * c, f5 = c2 * c2 * c;
    for (int k = 0; k < 3; k++) {
        float F = q->F0[k][0] + (q->F90[0] - q->F0[k][0]) * f5;
        out[k] = q->trans[0] * (1.0f - F) * q->tbase[k][0] * T[k];
    }
}

/* One pixel through the kernel in lane 0 (blend, and tests) */
void _oak_cpu_shade(const cpu_backend *b, const cpu_tri_ctx *t, const cpu_surface *s, float rgb[3],
                    float *alpha) {
    if (t->mat->desc.water) { /* its top from above, its underside from below */
        bool under = _oak_cpu_eye_under_water(b->view);
        if (s->back != under) { /* the other side: nothing (alpha 0 keeps the frame) */
            rgb[0] = rgb[1] = rgb[2] = 0;
            *alpha = 0;
            return;
        }
        if (under) { /* Snell's window; it hides what is behind (surface.glsl) */
            const float *cam = b->view->camera_pos;
            float V[3] = {cam[0] - s->P[0], cam[1] - s->P[1], cam[2] - s->P[2]};
            normalize3(V);
            const int32_t px[2] = {(int32_t)s->px, (int32_t)s->py};
            _oak_cpu_water_underside(b, s->P, s->Nv, V, clampf(t->mat->desc.roughness, 0.03f, 1.0f),
                                     px, rgb);
            air_fog(b, s->P, rgb, NULL);
            if (b->view->post.debug == OAK_DEBUG_CASCADES)
                _oak_cpu_cascade_tint(b->view, s->P, rgb);
            *alpha = 1;
            return;
        }
    }
    cpu_lanes q;
    memset(&q, 0, sizeof q);
    q.count = 1;
    *alpha = _oak_cpu_shade_prep(b, t, s, &q, 0);
    _oak_cpu_light_kernel()(b, &q);
    _oak_cpu_shade_finish(b, s, &q, 0, rgb, NULL);
    /* what passes through is added over the fog (the copy has the fog to
       the surface behind) and replaces the frame behind */
    if (t->mat->transmit && q.lit[0] && b->opaque_valid &&
        b->view->post.debug != OAK_DEBUG_CLUSTERS) {
        float tr[3];
        transmit(b, t, &q, tr);
        for (int k = 0; k < 3; k++) rgb[k] += tr[k];
        *alpha = 1;
    }
    /* water: "over" the refracted copy here, as the blend would over the frame */
    if (q.water_a[0] > 0 && q.lit[0] && b->opaque_valid &&
        b->view->post.debug != OAK_DEBUG_CLUSTERS) {
        float wb[3], a = *alpha;
        water_behind(b, &q, wb);
        for (int k = 0; k < 3; k++) rgb[k] = rgb[k] * a + wb[k] * (1.0f - a);
        *alpha = 1;
    }
}
