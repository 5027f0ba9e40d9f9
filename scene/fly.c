/* The fly camera: look and move a camera entity, its sphere swept against
 * the scene's static triangles (both sides) and slid along what it meets,
 * Quake-style: the move is cut at the first contact, what is left loses its
 * part into the surface, and a move into two surfaces follows their crease.
 * Static meshes' world triangles are built when a sweep first comes near
 * them and kept, with an XZ grid, while mesh, version and transform hold. */
#include <math.h>
#include <string.h>

#include <oak/fly.h>

#include "scene_internal.h"

/* One static draw's world triangles and their grid over its XZ bounds. */
typedef struct fly_draw {
    oak_entity entity;
    uint32_t mesh_id, version;
    mat4 world;
    bool live;   /* seen in this update's walk */
    float *tris; /* 9 floats a triangle */
    uint32_t tri_count;
    float lo[3], hi[3];   /* world bounds */
    uint32_t *cell_first; /* OAK_FLY_GRID^2 + 1 offsets into cell_items */
    uint32_t *cell_items;
    uint32_t *stamp; /* per triangle: the query that last gathered it */
} fly_draw;

struct oak_fly {
    oak_scene *scene;
    oak_entity camera;
    float radius, yaw, pitch;
    bool collide;
    fly_draw *draws;
    uint32_t draw_count, draw_cap;
    const float **cand; /* this update's candidate triangles */
    uint32_t cand_count, cand_cap, query;
};

/* ---- geometry ------------------------------------------------------------ */

static float dot3(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void sub3(const float *a, const float *b, float *o) {
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}
static void cross3(const float *a, const float *b, float *o) {
    float r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(o, r, 12);
}
static float norm3(float *v) {
    float l = sqrtf(dot3(v, v));
    if (l > 0)
        for (int k = 0; k < 3; k++) v[k] /= l;
    return l;
}

/* The point of triangle abc nearest p (Ericson, Real-Time Collision
   Detection, 5.1.5). */
static void closest_on_triangle(const float *p, const float *a, const float *b, const float *c,
                                float *out) {
    float ab[3], ac[3], ap[3], bp[3], cp[3];
    sub3(b, a, ab), sub3(c, a, ac), sub3(p, a, ap);
    float d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        memcpy(out, a, 12);
        return;
    }
    sub3(p, b, bp);
    float d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        memcpy(out, b, 12);
        return;
    }
    float vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        float v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++) out[k] = a[k] + v * ab[k];
        return;
    }
    sub3(p, c, cp);
    float d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        memcpy(out, c, 12);
        return;
    }
    float vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        float w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++) out[k] = a[k] + w * ac[k];
        return;
    }
    float va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        float w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++) out[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    float den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
    for (int k = 0; k < 3; k++) out[k] = a[k] + ab[k] * v + ac[k] * w;
}

/* Whether q, in the plane of abc (normal n), lies in the triangle or
   within 10 um of it: a distance test against the closest point loses
   that much to rounding on a 40 m face, and a miss there lets the sphere
   through (edges and corners catch only what is off the face). */
static bool inside_triangle(const float *q, const float *a, const float *b, const float *c,
                            const float *n) {
    const float *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        float e[3], w[3], x[3];
        sub3(v[(k + 1) % 3], v[k], e);
        sub3(q, v[k], w);
        cross3(e, w, x);
        if (dot3(x, n) < -1e-5f * sqrtf(dot3(e, e))) return false;
    }
    return true;
}

/* Smallest t in [0, tmax) where p + t d is r from the segment (or point,
   a == b) ab; false if none. Solved on the capsule's cylinder, then its
   end spheres. */
static bool ray_sphere(const float *p, const float *d, const float *c, float r, float tmax,
                       float *t) {
    float m[3];
    sub3(p, c, m);
    float a = dot3(d, d), b = dot3(m, d), cc = dot3(m, m) - r * r;
    if (a <= 0) return false;
    float disc = b * b - a * cc;
    if (disc < 0) return false;
    float root = (-b - sqrtf(disc)) / a;
    if (root < 0 || root >= tmax) return false;
    *t = root;
    return true;
}

static bool ray_edge(const float *p, const float *d, const float *e0, const float *e1, float r,
                     float tmax, float *t) {
    float e[3], m[3];
    sub3(e1, e0, e), sub3(p, e0, m);
    float ee = dot3(e, e), ed = dot3(e, d), em = dot3(e, m);
    if (ee <= 0) return false;
    float a = ee * dot3(d, d) - ed * ed, b = ee * dot3(d, m) - ed * em;
    float c = ee * (dot3(m, m) - r * r) - em * em;
    if (a <= 1e-12f) return false; /* moving along the edge: its end spheres catch it */
    float disc = b * b - a * c;
    if (disc < 0) return false;
    float root = (-b - sqrtf(disc)) / a;
    if (root < 0 || root >= tmax) return false;
    float f = (em + root * ed) / ee; /* where along the edge */
    if (f < 0 || f > 1) return false;
    *t = root;
    return true;
}

/* The first time in [0, tmax) the sphere (p, r) moving by d touches the
   triangle, either side; false if it does not. */
static bool sweep_triangle(const float *p, const float *d, float r, const float *tri, float tmax,
                           float *t) {
    const float *a = tri, *b = tri + 3, *c = tri + 6;
    float ab[3], ac[3], n[3];
    sub3(b, a, ab), sub3(c, a, ac);
    cross3(ab, ac, n);
    if (norm3(n) <= 0) return false; /* degenerate */
    /* already within r (a corner's second wall after the first pushed the
       sphere its skin out): moving closer is a contact now, moving away free */
    float cq[3], gap[3];
    closest_on_triangle(p, a, b, c, cq);
    sub3(p, cq, gap);
    if (dot3(gap, gap) < r * r) {
        if (dot3(d, gap) >= 0) return false;
        *t = 0;
        return true;
    }
    float pa[3];
    sub3(p, a, pa);
    float dist = dot3(pa, n);
    if (dist < 0) { /* both sides: face the plane toward the sphere */
        for (int k = 0; k < 3; k++) n[k] = -n[k];
        dist = -dist;
    }
    float best = tmax;
    bool hit = false;
    float dn = dot3(d, n);
    if (dist >= r && dn < 0) { /* the face: the plane offset by r */
        float tp = (dist - r) / -dn;
        if (tp < best) {
            float q[3];
            for (int k = 0; k < 3; k++) q[k] = p[k] + tp * d[k] - r * n[k];
            if (inside_triangle(q, a, b, c, n)) {
                *t = tp;
                return true; /* the face comes before any edge or corner */
            }
        }
    }
    float te;
    const float *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        if (ray_sphere(p, d, v[k], r, best, &te)) best = te, hit = true;
        if (ray_edge(p, d, v[k], v[(k + 1) % 3], r, best, &te)) best = te, hit = true;
    }
    if (hit) *t = best;
    return hit;
}

/* ---- the static triangles ------------------------------------------------ */

static void free_draw(fly_draw *d) {
    oak_free(d->tris);
    oak_free(d->cell_first);
    oak_free(d->cell_items);
    oak_free(d->stamp);
    memset(d, 0, sizeof *d);
}

static void cell_range(const fly_draw *d, const float *lo, const float *hi, uint32_t *x0,
                       uint32_t *x1, uint32_t *z0, uint32_t *z1) {
    const int n = OAK_FLY_GRID;
    float sx = d->hi[0] > d->lo[0] ? n / (d->hi[0] - d->lo[0]) : 0;
    float sz = d->hi[2] > d->lo[2] ? n / (d->hi[2] - d->lo[2]) : 0;
    float f[4] = {(lo[0] - d->lo[0]) * sx, (hi[0] - d->lo[0]) * sx, (lo[2] - d->lo[2]) * sz,
                  (hi[2] - d->lo[2]) * sz};
    uint32_t o[4];
    for (int k = 0; k < 4; k++) {
        float v = f[k] < 0 ? 0 : f[k] > n - 1 ? n - 1 : f[k];
        o[k] = (uint32_t)v;
    }
    *x0 = o[0], *x1 = o[1], *z0 = o[2], *z1 = o[3];
}

/* World triangles and grid of a static draw. */
static oak_result build_draw(fly_draw *d, const oak_mesh_data *md) {
    uint32_t n = md->index_count / 3;
    d->tris = oak_alloc((size_t)n * 36 + 4);
    d->stamp = oak_calloc((size_t)n + 1, sizeof(uint32_t));
    d->cell_first = oak_calloc(OAK_FLY_GRID * OAK_FLY_GRID + 1, sizeof(uint32_t));
    if (!d->tris || !d->stamp || !d->cell_first)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "fly camera: no memory for %u triangles", n);
    for (int k = 0; k < 3; k++) d->lo[k] = INFINITY, d->hi[k] = -INFINITY;
    for (uint32_t i = 0; i < n * 3; i++) {
        vec3 v;
        memcpy(v, md->positions + 3 * (size_t)md->indices[i], 12);
        glm_mat4_mulv3(d->world, v, 1, v);
        memcpy(d->tris + 3 * (size_t)i, v, 12);
        for (int k = 0; k < 3; k++) {
            if (v[k] < d->lo[k]) d->lo[k] = v[k];
            if (v[k] > d->hi[k]) d->hi[k] = v[k];
        }
    }
    d->tri_count = n;
    /* count per cell, then fill: a triangle sits in every cell its XZ box covers */
    uint64_t items = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            for (uint32_t c = 0, sum = 0; c <= OAK_FLY_GRID * OAK_FLY_GRID; c++) {
                uint32_t k = d->cell_first[c];
                d->cell_first[c] = sum;
                sum += k;
            }
            d->cell_items = oak_alloc(items * sizeof(uint32_t) + 4);
            if (!d->cell_items)
                return oak_error(OAK_ERROR_OUT_OF_MEMORY, "fly camera: no memory for its grid");
        }
        uint32_t *fill = pass ? oak_calloc(OAK_FLY_GRID * OAK_FLY_GRID, sizeof(uint32_t)) : NULL;
        if (pass && !fill) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "fly camera: no memory");
        for (uint32_t t = 0; t < n; t++) {
            const float *p = d->tris + 9 * (size_t)t;
            float lo[3], hi[3];
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(p[k], fminf(p[3 + k], p[6 + k]));
                hi[k] = fmaxf(p[k], fmaxf(p[3 + k], p[6 + k]));
            }
            uint32_t x0, x1, z0, z1;
            cell_range(d, lo, hi, &x0, &x1, &z0, &z1);
            for (uint32_t z = z0; z <= z1; z++)
                for (uint32_t x = x0; x <= x1; x++) {
                    uint32_t c = z * OAK_FLY_GRID + x;
                    if (pass)
                        d->cell_items[d->cell_first[c] + fill[c]++] = t;
                    else
                        d->cell_first[c]++, items++;
                }
        }
        oak_free(fill);
    }
    return OAK_OK;
}

static fly_draw *draw_for(oak_fly *f, oak_entity e) {
    for (uint32_t i = 0; i < f->draw_count; i++)
        if (f->draws[i].entity.id == e.id) return &f->draws[i];
    if (f->draw_count == f->draw_cap) {
        uint32_t cap = f->draw_cap ? f->draw_cap * 2 : 16;
        fly_draw *nd = oak_realloc(f->draws, sizeof *nd * cap);
        if (!nd) return NULL;
        f->draws = nd, f->draw_cap = cap;
    }
    fly_draw *d = &f->draws[f->draw_count++];
    memset(d, 0, sizeof *d);
    d->entity = e;
    return d;
}

static bool add_candidate(oak_fly *f, const float *tri) {
    if (f->cand_count == f->cand_cap) {
        uint32_t cap = f->cand_cap ? f->cand_cap * 2 : 256;
        const float **nc = oak_realloc(f->cand, sizeof *nc * cap);
        if (!nc) return false;
        f->cand = nc, f->cand_cap = cap;
    }
    f->cand[f->cand_count++] = tri;
    return true;
}

/* Every static triangle whose box meets [lo, hi], into f->cand. */
static oak_result gather(oak_fly *f, const float *lo, const float *hi) {
    f->cand_count = 0;
    f->query++;
    oak_scene *s = f->scene;
    oak_scene_update_transforms(s);
    oak_column col = oak_scene_column(s, OAK_COMPONENT_MESH_RENDERER);
    for (uint32_t i = 0; i < f->draw_count; i++) f->draws[i].live = false;
    for (uint32_t i = 0; i < col.count; i++) {
        const oak_mesh_renderer *mr =
            (const oak_mesh_renderer *)((const uint8_t *)col.data + (size_t)i * col.stride);
        if (mr->flags & (OAK_DRAW_MOVING | OAK_DRAW_HIDDEN)) continue;
        const oak_mesh_data *md = oak_mesh_get(mr->mesh);
        if (!md || !md->index_count || !md->positions) continue;
        mat4 w;
        oak_scene_world_matrix(s, col.entities[i], w);
        /* the mesh's bounds in the world: a sphere around the box's corners */
        vec3 c;
        glm_mat4_mulv3(w, (float *)md->bounds.center, 1, c);
        float scale = 0;
        for (int k = 0; k < 3; k++) scale = fmaxf(scale, glm_vec3_norm(w[k]));
        float rad = md->bounds.radius * scale;
        bool near = true;
        for (int k = 0; k < 3; k++) near &= c[k] + rad >= lo[k] && c[k] - rad <= hi[k];
        if (!near) continue;
        fly_draw *d = draw_for(f, col.entities[i]);
        if (!d) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "fly camera: no memory");
        d->live = true;
        if (!d->tris || d->mesh_id != mr->mesh.id || d->version != md->version ||
            memcmp(d->world, w, sizeof w) != 0) {
            oak_entity e = d->entity;
            free_draw(d);
            d->entity = e, d->live = true, d->mesh_id = mr->mesh.id, d->version = md->version;
            memcpy(d->world, w, sizeof w);
            oak_result r = build_draw(d, md);
            if (r) {
                free_draw(d);
                return r;
            }
            d->entity = e, d->live = true;
        }
        bool meets = true;
        for (int k = 0; k < 3; k++) meets &= d->hi[k] >= lo[k] && d->lo[k] <= hi[k];
        if (!meets) continue;
        uint32_t x0, x1, z0, z1;
        cell_range(d, lo, hi, &x0, &x1, &z0, &z1);
        for (uint32_t z = z0; z <= z1; z++)
            for (uint32_t x = x0; x <= x1; x++) {
                uint32_t cidx = z * OAK_FLY_GRID + x;
                for (uint32_t k = d->cell_first[cidx]; k < d->cell_first[cidx + 1]; k++) {
                    uint32_t t = d->cell_items[k];
                    if (d->stamp[t] == f->query) continue;
                    d->stamp[t] = f->query;
                    const float *tri = d->tris + 9 * (size_t)t;
                    bool in = true;
                    for (int a = 0; a < 3 && in; a++)
                        in = fmaxf(tri[a], fmaxf(tri[3 + a], tri[6 + a])) >= lo[a] &&
                             fminf(tri[a], fminf(tri[3 + a], tri[6 + a])) <= hi[a];
                    if (in && !add_candidate(f, tri))
                        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "fly camera: no memory");
                }
            }
    }
    /* drop the caches of draws gone or far away, so memory follows the eye */
    for (uint32_t i = 0; i < f->draw_count;) {
        if (f->draws[i].live) {
            i++;
            continue;
        }
        free_draw(&f->draws[i]);
        f->draws[i] = f->draws[--f->draw_count];
    }
    return OAK_OK;
}

/* ---- the mover ----------------------------------------------------------- */

/* Moves a sphere that starts inside surfaces out along their normals. */
static bool push_out(oak_fly *f, float *p) {
    bool moved = false;
    for (int it = 0; it < OAK_FLY_ITERATIONS; it++) {
        bool any = false;
        for (uint32_t i = 0; i < f->cand_count; i++) {
            const float *tri = f->cand[i];
            float q[3], gap[3];
            closest_on_triangle(p, tri, tri + 3, tri + 6, q);
            sub3(p, q, gap);
            float dist = norm3(gap);
            float want = f->radius + (float)OAK_FLY_SKIN;
            if (dist >= f->radius || dist <= 0) continue;
            for (int k = 0; k < 3; k++) p[k] += gap[k] * (want - dist);
            any = moved = true;
        }
        if (!any) break;
    }
    return moved;
}

void oak_fly_sweep(oak_fly *f, const float from[3], const float move[3], float out[3],
                   oak_fly_stats *stats) {
    float p[3], rem[3];
    memcpy(p, from, 12);
    memcpy(rem, move, 12);
    oak_fly_stats st = {0};
    if (!f->collide) {
        for (int k = 0; k < 3; k++) out[k] = from[k] + move[k];
        if (stats) *stats = st;
        return;
    }
    float reach = sqrtf(dot3(move, move)) + f->radius + 2 * (float)OAK_FLY_SKIN;
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = from[k] - reach, hi[k] = from[k] + reach;
    if (gather(f, lo, hi)) { /* out of memory: stay put rather than pass through */
        memcpy(out, from, 12);
        if (stats) *stats = st;
        return;
    }
    st.triangles = f->cand_count;
    st.pushed_out = push_out(f, p);
    float planes[OAK_FLY_ITERATIONS][3];
    uint32_t np = 0;
    for (int it = 0; it < OAK_FLY_ITERATIONS; it++) {
        float len = sqrtf(dot3(rem, rem));
        if (len < 1e-7f) break;
        float tbest = 1, t;
        const float *hit = NULL;
        for (uint32_t i = 0; i < f->cand_count; i++)
            if (sweep_triangle(p, rem, f->radius, f->cand[i], tbest, &t))
                tbest = t, hit = f->cand[i];
        if (!hit) {
            for (int k = 0; k < 3; k++) p[k] += rem[k];
            break;
        }
        st.contacts++;
        /* to the contact, then a skin back out along the surface's normal
           (not along the move, which would cost the slide speed) */
        float at[3], q[3], n[3];
        for (int k = 0; k < 3; k++) at[k] = p[k] + tbest * rem[k];
        closest_on_triangle(at, hit, hit + 3, hit + 6, q);
        sub3(at, q, n);
        if (norm3(n) <= 0) break;
        for (int k = 0; k < 3; k++) {
            p[k] = at[k] + n[k] * (float)OAK_FLY_SKIN;
            rem[k] *= 1 - tbest;
        }
        memcpy(planes[np++], n, 12);
        /* what is left loses its part into every surface met this frame;
           into two at once it follows their crease; into three it stops */
        float into = dot3(rem, n);
        if (into < 0)
            for (int k = 0; k < 3; k++) rem[k] -= into * n[k];
        for (uint32_t j = 0; j + 1 < np; j++) {
            if (dot3(rem, planes[j]) >= -1e-7f) continue;
            float crease[3];
            cross3(planes[j], n, crease);
            if (norm3(crease) <= 0) {
                memset(rem, 0, 12);
                break;
            }
            float along = dot3(rem, crease);
            for (int k = 0; k < 3; k++) rem[k] = crease[k] * along;
            for (uint32_t m = 0; m + 1 < np; m++)
                if (m != j && dot3(rem, planes[m]) < -1e-7f) memset(rem, 0, 12);
            break;
        }
    }
    push_out(f, p);
    memcpy(out, p, 12);
    if (stats) *stats = st;
}

/* ---- the camera ------------------------------------------------------------ */

static void heading_quat(float yaw, float pitch, float q[4]) {
    /* yaw about +Y, then pitch about the camera's +X */
    float cy = cosf(yaw / 2), sy = sinf(yaw / 2), cp = cosf(pitch / 2), sp = sinf(pitch / 2);
    q[0] = cy * sp, q[1] = sy * cp, q[2] = -sy * sp, q[3] = cy * cp;
}

oak_result oak_fly_create(oak_fly **out, oak_scene *scene, oak_entity camera,
                          const oak_fly_desc *desc) {
    if (!out || !scene || !oak_scene_alive(scene, camera))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_fly_create: no scene or camera entity");
    *out = NULL;
    static const oak_fly_desc none = {0};
    if (!desc) desc = &none;
    if (!(desc->radius >= 0) || !isfinite(desc->radius))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_fly_create: radius %g", desc->radius);
    oak_fly *f = oak_calloc(1, sizeof *f);
    if (!f) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_fly_create: out of memory");
    f->scene = scene;
    f->camera = camera;
    f->radius = desc->radius > 0 ? desc->radius : (float)OAK_FLY_RADIUS;
    f->collide = !desc->no_collision;
    const oak_transform *t = oak_scene_transform(scene, camera);
    if (t) { /* the heading the entity has: its -Z */
        versor q = {t->rotation[0], t->rotation[1], t->rotation[2], t->rotation[3]};
        vec3 fwd = {0, 0, -1};
        glm_quat_rotatev(q, fwd, fwd);
        f->yaw = atan2f(-fwd[0], -fwd[2]);
        f->pitch = asinf(fwd[1] < -1 ? -1 : fwd[1] > 1 ? 1 : fwd[1]);
    }
    *out = f;
    return OAK_OK;
}

void oak_fly_destroy(oak_fly *f) {
    if (!f) return;
    for (uint32_t i = 0; i < f->draw_count; i++) free_draw(&f->draws[i]);
    oak_free(f->draws);
    oak_free(f->cand);
    oak_free(f);
}

oak_result oak_fly_update(oak_fly *f, const oak_fly_input *in, float dt, oak_fly_stats *stats) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!f || !in) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_fly_update: NULL argument");
    if (!oak_scene_alive(f->scene, f->camera))
        return oak_error(OAK_ERROR_NOT_FOUND, "oak_fly_update: the camera entity is gone");
    float vals[6] = {in->move[0], in->move[1], in->move[2], in->look[0], in->look[1], dt};
    for (int k = 0; k < 6; k++)
        if (!isfinite(vals[k]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_fly_update: a non-finite input");
    if (!(in->speed >= 0) || !isfinite(in->speed) || dt < 0)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_fly_update: speed %g, dt %g", in->speed,
                         dt);
    f->yaw = fmodf(f->yaw + in->look[0], 2 * OAK_PI);
    f->pitch += in->look[1];
    const float limit = OAK_PI / 2 - 0.01f; /* never straight up or down */
    f->pitch = f->pitch < -limit ? -limit : f->pitch > limit ? limit : f->pitch;
    oak_transform t = *oak_scene_transform(f->scene, f->camera);
    heading_quat(f->yaw, f->pitch, t.rotation);
    versor q = {t.rotation[0], t.rotation[1], t.rotation[2], t.rotation[3]};
    vec3 right = {1, 0, 0}, fwd = {0, 0, -1};
    glm_quat_rotatev(q, right, right);
    glm_quat_rotatev(q, fwd, fwd);
    float m[3];
    for (int k = 0; k < 3; k++)
        m[k] = right[k] * in->move[0] + (k == 1) * in->move[1] + fwd[k] * in->move[2];
    float len = sqrtf(dot3(m, m)), speed = in->speed > 0 ? in->speed : (float)OAK_FLY_SPEED;
    if (len > 1)
        for (int k = 0; k < 3; k++) m[k] /= len; /* diagonals are not faster */
    for (int k = 0; k < 3; k++) m[k] *= speed * dt;
    float to[3];
    oak_fly_sweep(f, t.position, m, to, stats);
    memcpy(t.position, to, 12);
    oak_scene_set_transform(f->scene, f->camera, &t);
    return OAK_OK;
}
