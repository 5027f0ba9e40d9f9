/* Occlusion culling on the CPU: a coarse depth grid of the largest opaque
 * draws in view, drawn before the draws and stream instances are culled
 * (render/occlusion.h says why it is conservative). Every step is a pure
 * function of the input, and the grid is drawn in bands of texel rows that
 * no two jobs share, so the answer is the same for any thread count. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "frontend.h"

#define FULL_MASK   (~(uint64_t)0)
#define BAND_ROWS   4     /* texel rows per raster job */
#define GUARD       8.0f  /* occluders are clipped 8 half-views past the view's sides */
#define DEPTH_REL   1e-5f /* depth margins of the test: float rounding of */
#define DEPTH_ABS   1e-7f /* the raster's interpolation against the plane's */
#define SCORE_CHUNK 1024

void _oak_occ_release(oak_occ_grid *g) {
    oak_free(g->mask);
    oak_free(g->depth);
    oak_free(g->part);
    oak_free(g->score);
    oak_free(g->verts);
    oak_free(g->tris);
    oak_free(g->edge_key);
    oak_free(g->edge_tri);
    memset(g, 0, sizeof *g);
}

typedef struct score_job {
    oak_occ_grid *g;
    const oak_frame_input *in;
    const vec4 *planes;
    float p11; /* the projection's y scale: ndc per unit of view-space height at w = 1 */
} score_job;

/* Per draw: its projected radius over the view's height when it may
   occlude (opaque, shown, in view, a mesh within the triangle budget). */
static void score_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    score_job *j = user;
    const oak_frame_input *in = j->in;
    oak_occ_grid *g = j->g;
    for (uint32_t i = begin; i < end; i++) {
        g->score[i] = 0;
        if (in->flags && (in->flags[i] & OAK_DRAW_HIDDEN)) continue;
        const oak_material_data *mat = oak_material_get(in->materials[i]);
        if (!mat || mat->desc.alpha_mode != OAK_ALPHA_OPAQUE) continue;
        const oak_mesh_data *md = oak_mesh_get(in->meshes[i]);
        /* a mesh posed by its palette keeps its rest pose in positions (the
           backends skin it): not an occluder */
        if (!md || !md->positions || !md->indices || md->index_count < 3 ||
            md->index_count / 3 > OAK_OCC_TRIANGLES || md->palette)
            continue;
        float c[3], r;
        mat4 m;
        memcpy(m, in->transforms[i], sizeof(mat4));
        if (!_oak_draw_sphere(in->meshes[i], m, c, &r) || !(r > 0) ||
            !oak_frustum_sphere(j->planes, c, r))
            continue;
        float w = g->ortho ? 1.0f
                           : g->view_proj[0][3] * c[0] + g->view_proj[1][3] * c[1] +
                                 g->view_proj[2][3] * c[2] + g->view_proj[3][3];
        if (!g->ortho && w < r) w = r; /* the eye inside the sphere: as large as it gets */
        float s = r * j->p11 / (2.0f * w);
        if (s >= (float)OAK_OCC_MIN_SIZE) g->score[i] = s;
    }
}

/* A triangle clipped to the depth planes (0 <= z <= w: in front of the
   eye, as the raster clips) and projected: pixels (y up), reversed-Z
   depth; src[i]: the triangle's edge that edge i -> i + 1 lies on, CLIP_EDGE
   for one the clip made. */
#define CLIP_EDGE 3
#define POLY_MAX  9 /* a triangle clipped by 6 planes */
typedef struct poly {
    uint32_t n;
    float x[POLY_MAX], y[POLY_MAX], z[POLY_MAX];
    int src[POLY_MAX];
} poly;

/* Clip plane k's distance: near, far, then the guard band's four sides. */
static float plane_at(const float *v, int k) {
    switch (k) {
    case 0:
        return v[3] - v[2];
    case 1:
        return v[2];
    case 2:
        return GUARD * v[3] - v[0];
    case 3:
        return GUARD * v[3] + v[0];
    case 4:
        return GUARD * v[3] - v[1];
    default:
        return GUARD * v[3] + v[1];
    }
}

static uint32_t clip_plane(float (*in)[4], const int *in_src, uint32_t n, float (*out)[4],
                           int *out_src, int plane) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *a = in[i], *b = in[(i + 1) % n];
        float da = plane_at(a, plane), db = plane_at(b, plane);
        if (da >= 0) {
            memcpy(out[m], a, sizeof(float) * 4);
            out_src[m++] = in_src[i];
        }
        if ((da >= 0) != (db >= 0)) {
            float t = da / (da - db);
            for (int k = 0; k < 4; k++) out[m][k] = a[k] + (b[k] - a[k]) * t;
            out_src[m++] = da >= 0 ? CLIP_EDGE : in_src[i];
        }
    }
    return m;
}

/* False when nothing of triangle t is drawn in front of the eye. The
   guard band keeps pixel coordinates small enough for float edges. */
static bool make_poly(const oak_occ_grid *g, const oak_occ_triangle *tr, poly *p) {
    float a[POLY_MAX][4], b[POLY_MAX][4];
    int sa[POLY_MAX], sb[POLY_MAX];
    for (int k = 0; k < 3; k++) {
        memcpy(a[k], g->verts[tr->v[k]].c, sizeof(float) * 4);
        sa[k] = k;
    }
    uint32_t n = 3;
    for (int k = 0; k < 6 && n >= 3; k++) {
        bool inside = true;
        for (uint32_t i = 0; i < n; i++) inside &= plane_at(a[i], k) >= 0;
        if (inside) continue;
        n = clip_plane(a, sa, n, b, sb, k);
        memcpy(a, b, sizeof(float) * 4 * n);
        memcpy(sa, sb, sizeof(int) * n);
    }
    if (n < 3) return false;
    float W = (float)g->width, H = (float)g->height;
    for (uint32_t i = 0; i < n; i++) {
        if (!(a[i][3] > 1e-9f)) return false;
        float iw = 1.0f / a[i][3];
        p->x[i] = (a[i][0] * iw * 0.5f + 0.5f) * W;
        p->y[i] = (a[i][1] * iw * 0.5f + 0.5f) * H;
        p->z[i] = a[i][2] * iw;
        p->src[i] = sa[i];
    }
    p->n = n;
    return true;
}

/* Twice the polygon's signed area (counter-clockwise positive, y up). */
static float poly_area(const poly *p) {
    float s = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        uint32_t j = (i + 1) % p->n;
        s += p->x[i] * p->y[j] - p->x[j] * p->y[i];
    }
    return s;
}

/* One edge (px, py) -> (qx, qy) of a counter-clockwise polygon as a signed
   distance in pixels: e(x, y) = a x + b y + c, positive inside. */
typedef struct edge {
    float a, b, c;
} edge;

static edge edge_make(float px, float py, float qx, float qy) {
    float dx = qx - px, dy = qy - py;
    float l = sqrtf(dx * dx + dy * dy);
    edge e = {0, 0, -1}; /* a point: nothing is inside */
    if (!(l > 0)) return e;
    e.a = -dy / l, e.b = dx / l;
    e.c = -(e.a * px + e.b * py);
    return e;
}

/* Sample bits of texel (tx, ty) outside the view: counted as covered. */
static uint64_t offscreen_bits(const oak_occ_grid *g, uint32_t tx, uint32_t ty) {
    uint64_t m = 0;
    if ((tx + 1) * OAK_OCC_TEXEL <= g->width && (ty + 1) * OAK_OCC_TEXEL <= g->height) return 0;
    for (uint32_t sy = 0; sy < OAK_OCC_TEXEL; sy++)
        for (uint32_t sx = 0; sx < OAK_OCC_TEXEL; sx++)
            if (tx * OAK_OCC_TEXEL + sx >= g->width || ty * OAK_OCC_TEXEL + sy >= g->height)
                m |= (uint64_t)1 << (sy * OAK_OCC_TEXEL + sx);
    return m;
}

static void raster_band(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_occ_grid *g = user;
    const float margin = (float)OAK_OCC_EDGE_MARGIN, T = (float)OAK_OCC_TEXEL;
    uint32_t ty0 = begin * BAND_ROWS, ty1 = end * BAND_ROWS;
    if (ty1 > g->th) ty1 = g->th;
    for (uint32_t t = 0; t < g->triangles; t++) {
        const oak_occ_triangle *tr = &g->tris[t];
        if (!tr->sign || tr->ty1 < (int32_t)ty0 || tr->ty0 >= (int32_t)ty1) continue;
        poly P;
        if (!make_poly(g, tr, &P)) continue;
        float minx = FLT_MAX, maxx = -FLT_MAX, miny = FLT_MAX, maxy = -FLT_MAX;
        float zfar_v = FLT_MAX, znear_v = -FLT_MAX;
        for (uint32_t i = 0; i < P.n; i++) {
            minx = fminf(minx, P.x[i]), maxx = fmaxf(maxx, P.x[i]);
            miny = fminf(miny, P.y[i]), maxy = fmaxf(maxy, P.y[i]);
            zfar_v = fminf(zfar_v, P.z[i]), znear_v = fmaxf(znear_v, P.z[i]);
        }
        if (maxx < 0 || maxy < 0 || minx >= (float)g->width || miny >= (float)g->height) continue;
        int64_t x0 = (int64_t)floorf(minx / T), x1 = (int64_t)floorf(maxx / T);
        int64_t y0 = (int64_t)floorf(miny / T), y1 = (int64_t)floorf(maxy / T);
        if (x0 < 0) x0 = 0;
        if (x1 >= (int64_t)g->tw) x1 = (int64_t)g->tw - 1;
        if (y0 < (int64_t)ty0) y0 = (int64_t)ty0;
        if (y1 >= (int64_t)ty1) y1 = (int64_t)ty1 - 1;
        if (x0 > x1 || y0 > y1) continue;
        /* an edge shared with a drawn triangle of the same winding has the
           neighbour on its other side: a sample on it is the one's or the
           other's, so it is taken inclusively; any other edge (silhouettes,
           the clip's) by the margin. Clockwise (two-sided) ones turn round. */
        float flip = tr->sign > 0 ? 1.0f : -1.0f;
        edge e[POLY_MAX];
        float em[POLY_MAX];
        for (uint32_t i = 0; i < P.n; i++) {
            uint32_t j = (i + 1) % P.n;
            e[i] = edge_make(P.x[i], P.y[i], P.x[j], P.y[j]);
            e[i].a *= flip, e[i].b *= flip, e[i].c *= flip;
            int s = P.src[i];
            em[i] = s != CLIP_EDGE && tr->nb[s] >= 0 && g->tris[tr->nb[s]].sign == tr->sign
                        ? -1e-4f
                        : margin;
        }
        /* the depth plane z = z0 + dzdx (x - x0) + dzdy (y - y0), through
           the polygon's widest corner triangle */
        uint32_t best = 1;
        float area = 0;
        for (uint32_t i = 1; i + 1 < P.n; i++) {
            float a2 = (P.x[i] - P.x[0]) * (P.y[i + 1] - P.y[0]) -
                       (P.y[i] - P.y[0]) * (P.x[i + 1] - P.x[0]);
            if (fabsf(a2) > fabsf(area)) area = a2, best = i;
        }
        if (!(fabsf(area) > 1e-6f)) continue;
        float ax = P.x[0], ay = P.y[0], az = P.z[0];
        float bx = P.x[best] - ax, by = P.y[best] - ay, bz = P.z[best] - az;
        float cx = P.x[best + 1] - ax, cy = P.y[best + 1] - ay, cz = P.z[best + 1] - az;
        float dzdx = (bz * cy - cz * by) / area;
        float dzdy = (cz * bx - bz * cx) / area;
        for (int64_t ty = y0; ty <= y1; ty++) {
            for (int64_t tx = x0; tx <= x1; tx++) {
                /* the texel's samples span [8t + 0.5, 8t + 7.5], moved by
                   the jitter (the raster moves the geometry by it, right
                   and down: the samples go left and up here, y up) */
                float sx0 = (float)tx * T + 0.5f - g->jitter[0], sx1 = sx0 + T - 1.0f;
                float sy0 = (float)ty * T + 0.5f + g->jitter[1], sy1 = sy0 + T - 1.0f;
                bool none = false, all = true;
                for (uint32_t k = 0; k < P.n; k++) {
                    float lo = e[k].c + fminf(e[k].a * sx0, e[k].a * sx1) +
                               fminf(e[k].b * sy0, e[k].b * sy1);
                    float hi = e[k].c + fmaxf(e[k].a * sx0, e[k].a * sx1) +
                               fmaxf(e[k].b * sy0, e[k].b * sy1);
                    if (hi < em[k]) none = true;
                    if (lo < em[k]) all = false;
                }
                if (none) continue;
                uint64_t m = 0;
                if (all) {
                    m = FULL_MASK;
                } else {
                    /* only the samples inside the polygon's box */
                    float fx0 = fmaxf(0.0f, ceilf(minx - sx0)), fx1 = fminf(T - 1, maxx - sx0);
                    float fy0 = fmaxf(0.0f, ceilf(miny - sy0)), fy1 = fminf(T - 1, maxy - sy0);
                    if (fx1 < fx0 || fy1 < fy0) continue;
                    uint32_t bx0 = (uint32_t)fx0, bx1 = (uint32_t)fx1;
                    for (uint32_t sy = (uint32_t)fy0; sy <= (uint32_t)fy1; sy++) {
                        float y = sy0 + (float)sy;
                        for (uint32_t sx = bx0; sx <= bx1; sx++) {
                            float x = sx0 + (float)sx;
                            bool in = true;
                            for (uint32_t k = 0; k < P.n && in; k++)
                                in = e[k].a * x + e[k].b * y + e[k].c >= em[k];
                            if (in) m |= (uint64_t)1 << (sy * OAK_OCC_TEXEL + sx);
                        }
                    }
                    if (!m) continue;
                }
                /* the farthest the plane gets over the texel grown by a
                   pixel (jitter), but no farther than the triangle's
                   farthest vertex: both bound every covered sample */
                float rx0 = (float)tx * T - 1.0f, rx1 = rx0 + T + 2.0f;
                float ry0 = (float)ty * T - 1.0f, ry1 = ry0 + T + 2.0f;
                float zp = az + fminf(dzdx * (rx0 - ax), dzdx * (rx1 - ax)) +
                           fminf(dzdy * (ry0 - ay), dzdy * (ry1 - ay));
                float z = fmaxf(zp, zfar_v);
                /* and the nearest it gets there, the same way */
                float zn = az + fmaxf(dzdx * (rx0 - ax), dzdx * (rx1 - ax)) +
                           fmaxf(dzdy * (ry0 - ay), dzdy * (ry1 - ay));
                zn = fminf(zn, znear_v);
                size_t at = (size_t)ty * g->tw + (size_t)tx;
                /* one full layer and one filling (after masked occlusion
                   culling's merge): what lies wholly behind the full layer
                   adds nothing; what covers the texel alone is a full layer
                   by itself; a filling layer restarts with what lies wholly
                   in front of it (dropping samples only loses culling), and
                   becomes the full one once every sample is in. Each full
                   layer's depth is a bound every sample's surface meets: the
                   nearer one is kept. */
                if (zn < g->depth[at]) continue;
                uint64_t off = offscreen_bits(g, (uint32_t)tx, (uint32_t)ty);
                if ((m | off) == FULL_MASK) {
                    if (z > g->depth[at]) g->depth[at] = z;
                    continue;
                }
                if (g->part[at] != FLT_MAX && z > g->part[at]) {
                    g->mask[at] = off | m;
                    g->part[at] = z;
                } else {
                    g->mask[at] |= m;
                    if (z < g->part[at]) g->part[at] = z;
                }
                if (g->mask[at] == FULL_MASK) {
                    if (g->part[at] > g->depth[at]) g->depth[at] = g->part[at];
                    g->mask[at] = off;
                    g->part[at] = FLT_MAX;
                }
            }
        }
    }
}

static uint32_t edge_hash(uint64_t k) {
    k ^= k >> 33, k *= 0xff51afd7ed558ccdull, k ^= k >> 33;
    return (uint32_t)k;
}

/* Each triangle's winding on screen, and its neighbours: the triangles
   holding the reverse of its edges (a closed mesh's shared edges). */
static oak_result link_triangles(oak_occ_grid *g) {
    uint32_t slots = 1;
    while (slots < g->triangles * 6) slots <<= 1;
    uint32_t c2 = g->edge_cap;
    if (!OAK_GROW(g->edge_key, g->edge_cap, slots) || !OAK_GROW(g->edge_tri, c2, slots))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "occlusion: no memory for the edges");
    memset(g->edge_key, 0xff, (size_t)slots * sizeof *g->edge_key);
    for (uint32_t t = 0; t < g->triangles; t++) {
        oak_occ_triangle *tr = &g->tris[t];
        poly P;
        float area = make_poly(g, tr, &P) ? poly_area(&P) : 0;
        tr->sign = 0;
        tr->ty0 = 1, tr->ty1 = 0;
        if (area != 0) {
            float lo = P.y[0], hi = P.y[0];
            for (uint32_t i = 1; i < P.n; i++) lo = fminf(lo, P.y[i]), hi = fmaxf(hi, P.y[i]);
            float T = (float)OAK_OCC_TEXEL, top = (float)g->th;
            tr->ty0 = (int32_t)floorf(fmaxf(-1.0f, fminf(top, lo / T)));
            tr->ty1 = (int32_t)floorf(fmaxf(-1.0f, fminf(top, hi / T)));
        }
        /* the raster drops back faces (clockwise, y up) of one-sided ones */
        if (fabsf(area) > 1e-3f && (tr->two_sided || area > 0)) tr->sign = area > 0 ? 1 : -1;
        for (int k = 0; k < 3; k++) {
            uint64_t key = (uint64_t)tr->v[k] << 32 | tr->v[(k + 1) % 3];
            uint32_t h = edge_hash(key) & (slots - 1);
            while (g->edge_key[h] != ~(uint64_t)0) h = (h + 1) & (slots - 1);
            g->edge_key[h] = key, g->edge_tri[h] = t;
        }
    }
    for (uint32_t t = 0; t < g->triangles; t++) {
        oak_occ_triangle *tr = &g->tris[t];
        for (int k = 0; k < 3; k++) {
            tr->nb[k] = -1;
            uint64_t key = (uint64_t)tr->v[(k + 1) % 3] << 32 | tr->v[k];
            for (uint32_t h = edge_hash(key) & (slots - 1); g->edge_key[h] != ~(uint64_t)0;
                 h = (h + 1) & (slots - 1))
                if (g->edge_key[h] == key) {
                    tr->nb[k] = (int32_t)g->edge_tri[h];
                    break;
                }
        }
    }
    return OAK_OK;
}

oak_result _oak_occ_build(oak_occ_grid *g, const oak_frame_input *in, const vec4 planes[6],
                          mat4 view_proj, bool ortho, const float jitter[2], uint32_t width,
                          uint32_t height) {
    g->on = false;
    g->occluders = g->triangles = 0;
    uint32_t n = in->draw_count;
    if (!n || !width || !height || !in->meshes || !in->materials || !in->transforms) return OAK_OK;
    memcpy(g->view_proj, view_proj, sizeof(mat4));
    g->ortho = ortho;
    g->jitter[0] = jitter[0], g->jitter[1] = jitter[1];
    g->width = width, g->height = height;
    g->tw = (width + OAK_OCC_TEXEL - 1) / OAK_OCC_TEXEL;
    g->th = (height + OAK_OCC_TEXEL - 1) / OAK_OCC_TEXEL;
    uint32_t texels = g->tw * g->th, c2 = g->cap, c3 = g->cap;
    if (!OAK_GROW(g->mask, g->cap, texels) || !OAK_GROW(g->depth, c2, texels) ||
        !OAK_GROW(g->part, c3, texels) || !OAK_GROW(g->score, g->score_cap, n))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "occlusion: no memory for the grid");

    /* the projection's y scale from view_proj's: the length of its second
       row's first three terms is P11 for a rigid view */
    float p11 = sqrtf(view_proj[0][1] * view_proj[0][1] + view_proj[1][1] * view_proj[1][1] +
                      view_proj[2][1] * view_proj[2][1]);
    score_job sj = {g, in, planes, p11};
    oak_parallel_for(n, SCORE_CHUNK, score_range, &sj);

    /* the largest first, ties by input order */
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        float s = g->score[i];
        if (!(s > 0)) continue;
        if (k == OAK_OCC_OCCLUDERS && !(s > g->score[g->picked[k - 1]])) continue;
        uint32_t at = k < OAK_OCC_OCCLUDERS ? k++ : k - 1;
        while (at > 0 && s > g->score[g->picked[at - 1]]) {
            g->picked[at] = g->picked[at - 1];
            at--;
        }
        g->picked[at] = i;
    }
    /* their triangles within the budget, in that order */
    uint32_t tris = 0, verts = 0, used = 0;
    for (uint32_t p = 0; p < k; p++) {
        const oak_mesh_data *md = oak_mesh_get(in->meshes[g->picked[p]]);
        uint32_t t = md->index_count / 3;
        if (tris + t > OAK_OCC_TRIANGLES) continue;
        tris += t, verts += md->vertex_count;
        g->picked[used++] = g->picked[p];
    }
    if (!used) return OAK_OK;
    /* nearest first, so that what they hide adds nothing (ties by input order) */
    float nearest[OAK_OCC_OCCLUDERS];
    for (uint32_t p = 0; p < used; p++) {
        uint32_t i = g->picked[p];
        float c[3], r;
        mat4 m;
        memcpy(m, in->transforms[i], sizeof(mat4));
        _oak_draw_sphere(in->meshes[i], m, c, &r);
        float w = view_proj[0][3] * c[0] + view_proj[1][3] * c[1] + view_proj[2][3] * c[2] +
                  view_proj[3][3];
        float d = ortho ? -(view_proj[0][2] * c[0] + view_proj[1][2] * c[1] +
                            view_proj[2][2] * c[2] + view_proj[3][2])
                        : w - r;
        uint32_t at = p;
        while (at > 0 && (d < nearest[at - 1] || (d == nearest[at - 1] && i < g->picked[at - 1]))) {
            nearest[at] = nearest[at - 1];
            g->picked[at] = g->picked[at - 1];
            at--;
        }
        nearest[at] = d, g->picked[at] = i;
    }
    if (!OAK_GROW(g->verts, g->vert_cap, verts) || !OAK_GROW(g->tris, g->tri_cap, tris))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "occlusion: no memory for %u occluders", used);
    uint32_t vat = 0, tat = 0;
    for (uint32_t p = 0; p < used; p++) {
        uint32_t i = g->picked[p];
        const oak_mesh_data *md = oak_mesh_get(in->meshes[i]);
        const oak_material_data *mat = oak_material_get(in->materials[i]);
        mat4 w, m;
        memcpy(w, in->transforms[i], sizeof(mat4));
        glm_mat4_mul(view_proj, w, m);
        for (uint32_t v = 0; v < md->vertex_count; v++) {
            const float *q = md->positions + (size_t)v * 3;
            glm_mat4_mulv(m, (vec4){q[0], q[1], q[2], 1}, g->verts[vat + v].c);
        }
        for (uint32_t t = 0; t + 2 < md->index_count; t += 3) {
            oak_occ_triangle *tr = &g->tris[tat++];
            bool bad = false;
            for (int c = 0; c < 3; c++) {
                uint32_t ix = md->indices[t + c];
                bad |= ix >= md->vertex_count;
                tr->v[c] = vat + (ix < md->vertex_count ? ix : 0);
            }
            if (bad) tr->v[1] = tr->v[2] = tr->v[0]; /* no area: left out */
            tr->two_sided = mat->desc.double_sided;
        }
        vat += md->vertex_count;
    }
    g->occluders = used;
    g->triangles = tat;
    oak_result r = link_triangles(g);
    if (r) return r;

    for (uint32_t ty = 0; ty < g->th; ty++)
        for (uint32_t tx = 0; tx < g->tw; tx++) {
            size_t at = (size_t)ty * g->tw + tx;
            g->mask[at] = offscreen_bits(g, tx, ty);
            g->depth[at] = 0; /* reversed-Z: the far plane, hiding nothing */
            g->part[at] = FLT_MAX;
        }
    oak_parallel_for((g->th + BAND_ROWS - 1) / BAND_ROWS, 1, raster_band, g);
    g->on = true;
    return OAK_OK;
}

bool _oak_occ_sphere_visible(const oak_occ_grid *g, const float center[3], float radius) {
    if (!g->on) return true;
    /* the cheap answer first, for what stands in view: the texel under the
       centre against the sphere's nearest point along the view axis (its
       nearest depth); when that texel is not nearer, the box's test below
       would keep it too, since its nearest depth is no farther */
    const float(*m)[4] = (const float(*)[4])g->view_proj;
    float fl = sqrtf(m[0][3] * m[0][3] + m[1][3] * m[1][3] + m[2][3] * m[2][3]);
    if (!g->ortho && fl > 0) {
        float w = m[0][3] * center[0] + m[1][3] * center[1] + m[2][3] * center[2] + m[3][3];
        float z = m[0][2] * center[0] + m[1][2] * center[1] + m[2][2] * center[2] + m[3][2];
        float zf = (m[0][2] * m[0][3] + m[1][2] * m[1][3] + m[2][2] * m[2][3]) / fl;
        float wn = w - radius * fl;
        if (w > 1e-6f && wn > 1e-6f) {
            float x = m[0][0] * center[0] + m[1][0] * center[1] + m[2][0] * center[2] + m[3][0];
            float y = m[0][1] * center[0] + m[1][1] * center[1] + m[2][1] * center[2] + m[3][1];
            float px = (x / w * 0.5f + 0.5f) * (float)g->width;
            float py = (y / w * 0.5f + 0.5f) * (float)g->height;
            float zn = (z - radius * zf) / wn;
            if (px >= 0 && py >= 0 && px < (float)g->width && py < (float)g->height) {
                uint32_t tx = (uint32_t)(px / (float)OAK_OCC_TEXEL);
                uint32_t ty = (uint32_t)(py / (float)OAK_OCC_TEXEL);
                if (tx < g->tw && ty < g->th &&
                    !(g->depth[(size_t)ty * g->tw + tx] > zn + zn * DEPTH_REL + DEPTH_ABS))
                    return true;
            }
        }
    }
    /* the sphere's world box: its eight corners bound its screen rectangle
       and its nearest depth, while every one is in front of the eye */
    float x0 = FLT_MAX, x1 = -FLT_MAX, y0 = FLT_MAX, y1 = -FLT_MAX, zn = 0;
    for (int c = 0; c < 8; c++) {
        vec4 p = {center[0] + ((c & 1) ? radius : -radius),
                  center[1] + ((c & 2) ? radius : -radius),
                  center[2] + ((c & 4) ? radius : -radius), 1};
        vec4 q;
        glm_mat4_mulv((vec4 *)g->view_proj, p, q);
        if (!(q[3] > 1e-6f)) return true;
        float iw = 1.0f / q[3];
        float x = (q[0] * iw * 0.5f + 0.5f) * (float)g->width;
        float y = (q[1] * iw * 0.5f + 0.5f) * (float)g->height;
        float z = q[2] * iw;
        x0 = fminf(x0, x), x1 = fmaxf(x1, x);
        y0 = fminf(y0, y), y1 = fmaxf(y1, y);
        zn = fmaxf(zn, z);
    }
    if (!(zn < 1.0f)) return true;
    /* a pixel of jitter either way */
    x0 -= 1, y0 -= 1, x1 += 1, y1 += 1;
    if (!(x1 >= 0) || !(y1 >= 0) || !(x0 < (float)g->width) || !(y0 < (float)g->height))
        return true;
    const float T = (float)OAK_OCC_TEXEL;
    uint32_t tx0 = x0 > 0 ? (uint32_t)(x0 / T) : 0, ty0 = y0 > 0 ? (uint32_t)(y0 / T) : 0;
    uint32_t tx1 = x1 < (float)g->width ? (uint32_t)(x1 / T) : g->tw - 1;
    uint32_t ty1 = y1 < (float)g->height ? (uint32_t)(y1 / T) : g->th - 1;
    if (tx1 >= g->tw) tx1 = g->tw - 1;
    if (ty1 >= g->th) ty1 = g->th - 1;
    float need = zn + zn * DEPTH_REL + DEPTH_ABS;
    for (uint32_t ty = ty0; ty <= ty1; ty++)
        for (uint32_t tx = tx0; tx <= tx1; tx++)
            if (!(g->depth[(size_t)ty * g->tw + tx] > need)) return true;
    return false;
}

bool _oak_occ_instance_test(void *user, const float center[3], float radius) {
    return _oak_occ_sphere_visible(user, center, radius);
}

bool _oak_occ_view_test(const void *grid, const float center[3], float radius) {
    return _oak_occ_sphere_visible(grid, center, radius);
}
