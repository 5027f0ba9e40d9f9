/* Camera framing: a perspective camera at a given yaw and pitch placed so a
 * point set's projected vertical span is an exact share of the frame,
 * centred both ways. Projected extremes come from 2D convex hulls of
 * (depth, height) and (depth, width) — the steepest slope from the camera
 * always ends on a hull vertex — so the bisections touch a few points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <oak/anim.h>

typedef struct pt2 {
    double z, y;
} pt2;

static int cmp_pt(const void *a, const void *b) {
    const pt2 *p = a, *q = b;
    if (p->z != q->z) return p->z < q->z ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

static double cross(pt2 o, pt2 a, pt2 b) {
    return (a.z - o.z) * (b.y - o.y) - (a.y - o.y) * (b.z - o.z);
}

/* Andrew's monotone chain in place; returns the hull's vertex count. */
static uint32_t hull(pt2 *p, uint32_t n, pt2 *out) {
    qsort(p, n, sizeof *p, cmp_pt);
    if (n < 3) {
        memcpy(out, p, n * sizeof *p);
        return n;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        while (k >= 2 && cross(out[k - 2], out[k - 1], p[i]) <= 0) k--;
        out[k++] = p[i];
    }
    for (uint32_t i = n - 1, t = k + 1; i-- > 0;) {
        while (k >= t && cross(out[k - 2], out[k - 1], p[i]) <= 0) k--;
        out[k++] = p[i];
    }
    return k - 1;
}

/* Max and min of (y - b) / (z + d) over the hull. */
static void slopes(const pt2 *h, uint32_t n, double d, double b, double *hi, double *lo) {
    *hi = -INFINITY;
    *lo = INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double s = (h[i].y - b) / (h[i].z + d);
        if (s > *hi) *hi = s;
        if (s < *lo) *lo = s;
    }
}

/* The offset b that centres the slopes: hi + lo = 0 (decreasing in b). */
static double centre(const pt2 *h, uint32_t n, double d, double ylo, double yhi) {
    double a = ylo - 1, b = yhi + 1;
    for (int it = 0; it < 100; it++) {
        double m = 0.5 * (a + b), hi, lo;
        slopes(h, n, d, m, &hi, &lo);
        if (hi + lo > 0)
            a = m;
        else
            b = m;
    }
    return 0.5 * (a + b);
}

oak_result oak_frame_points(oak_transform *xf, oak_camera *cam, const float *xyz, uint32_t count,
                            const oak_framing *framing) {
    if (!xf || !cam || !xyz || !count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_frame_points: no points to frame");
    oak_framing f = framing ? *framing : (oak_framing){0};
    /* NaN or infinite angles give NaN projections, which qsort cannot order
       and the hull then overruns: refuse them here, whatever the caller. */
    const float nums[] = {f.yaw, f.pitch, f.share, f.fov_y, f.aspect};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (!isfinite(nums[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "oak_frame_points: yaw, pitch, share, fov_y and aspect must be "
                             "finite numbers");
    if (f.share <= 0) f.share = 0.55f;
    if (f.fov_y <= 0) f.fov_y = 60.0f * OAK_PI / 180.0f;
    if (f.aspect <= 0) f.aspect = 1;
    if (f.share >= 1)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_frame_points: share %g must be below 1",
                         f.share);
    versor qy, qp, q;
    glm_quatv(qy, f.yaw, (vec3){0, 1, 0});
    glm_quatv(qp, -f.pitch, (vec3){1, 0, 0});
    glm_quat_mul(qy, qp, q);
    vec3 fwd = {0, 0, -1}, up = {0, 1, 0}, right = {1, 0, 0};
    glm_quat_rotatev(q, fwd, fwd);
    glm_quat_rotatev(q, up, up);
    glm_quat_rotatev(q, right, right);

    pt2 *py = oak_alloc(sizeof(pt2) * count * 2), *px = oak_alloc(sizeof(pt2) * count * 2);
    pt2 *hy = oak_alloc(sizeof(pt2) * (count + 1)), *hx = oak_alloc(sizeof(pt2) * (count + 1));
    if (!py || !px || !hy || !hx) {
        oak_free(py), oak_free(px), oak_free(hy), oak_free(hx);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_frame_points: out of memory");
    }
    double zmin = INFINITY, zmax = -INFINITY, ylo = INFINITY, yhi = -INFINITY, xlo = INFINITY,
           xhi = -INFINITY;
    /* Only finite points are framed: a NaN would break the hull's order (and
       its bound of count + 1 vertices), an infinity the bisection. */
    uint32_t m = 0;
    for (uint32_t i = 0; i < count; i++) {
        const float *v = xyz + 3 * (size_t)i;
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) continue;
        double z = (double)v[0] * fwd[0] + (double)v[1] * fwd[1] + (double)v[2] * fwd[2];
        double y = (double)v[0] * up[0] + (double)v[1] * up[1] + (double)v[2] * up[2];
        double x = (double)v[0] * right[0] + (double)v[1] * right[1] + (double)v[2] * right[2];
        py[m] = (pt2){z, y};
        px[m++] = (pt2){z, x};
        zmin = fmin(zmin, z), zmax = fmax(zmax, z);
        ylo = fmin(ylo, y), yhi = fmax(yhi, y), xlo = fmin(xlo, x), xhi = fmax(xhi, x);
    }
    if (!m) {
        oak_free(py), oak_free(px), oak_free(hy), oak_free(hx);
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_frame_points: none of the %u points is finite", count);
    }
    uint32_t ny = hull(py, m, hy), nx = hull(px, m, hx);
    double t = tan(0.5 * f.fov_y), want = 2.0 * f.share * t; /* slope spread to reach */
    double extent = fmax(fmax(yhi - ylo, xhi - xlo), zmax - zmin) + 1e-6;
    /* d moves the camera back along fwd: depth of point i is z_i + d. */
    double dlo = -zmin + extent * 1e-6, dhi = -zmin + extent * 1e6;
    double b = 0;
    for (int it = 0; it < 200; it++) {
        double d = 0.5 * (dlo + dhi), hi, lo;
        b = centre(hy, ny, d, ylo, yhi);
        slopes(hy, ny, d, b, &hi, &lo);
        if (hi - lo > want)
            dlo = d;
        else
            dhi = d;
    }
    double d = 0.5 * (dlo + dhi);
    b = centre(hy, ny, d, ylo, yhi);
    double a = centre(hx, nx, d, xlo, xhi);
    oak_free(py), oak_free(px), oak_free(hy), oak_free(hx);

    double near = zmin + d, far = zmax + d;
    float pos[3];
    for (int k = 0; k < 3; k++) pos[k] = (float)(-d * fwd[k] + b * up[k] + a * right[k]);
    /* Points near float's limit give a camera float cannot place. */
    if (!isfinite(pos[0]) || !isfinite(pos[1]) || !isfinite(pos[2]) ||
        !isfinite((float)(far * 1.5)))
        return oak_error(OAK_ERROR_LIMIT,
                         "oak_frame_points: the points span %g m, too far to frame in float",
                         extent);
    memcpy(xf->position, pos, sizeof pos);
    memcpy(xf->rotation, q, 16);
    xf->scale[0] = xf->scale[1] = xf->scale[2] = 1;
    *cam = (oak_camera){0};
    cam->fov_y = f.fov_y;
    cam->aspect = f.aspect;
    cam->znear = (float)fmax(near * 0.5, 1e-4 * far);
    cam->zfar = (float)(far * 1.5 + 1e-3);
    return OAK_OK;
}
