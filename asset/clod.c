/* Cluster LOD (docs/ARCHITECTURE.md "Cluster LOD"; DIGEST 6.6): a DAG of
 * meshlets over one mesh's vertices, built level by level by grouping
 * adjacent clusters, simplifying each group to half with its border locked
 * and cutting it again; and the mesh made from it (oak_make_clod_mesh). */
#include <float.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "clod_cache.h"
#include "registry.h"

/* a group that simplifies to more than this share of its triangles is
   not simplified: its clusters wait for the next level's grouping */
#define CLOD_SHRINK 0.85f

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = oak_realloc(*p, c * elem);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}
#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof *(arr))

typedef struct build {
    const float *pos;
    uint32_t vcount;
    uint32_t *idx; /* the output index list, in meshlet order */
    size_t idx_n, idx_cap;
    oak_meshlet *ml;
    size_t ml_n, ml_cap;
    uint32_t *first; /* meshlet i's first index in idx */
    size_t first_cap;
    uint32_t *mv; /* meshlet vertices (the mesh's) */
    size_t mv_n, mv_cap;
    uint8_t *mt; /* meshlet triangles, 4-byte padded per meshlet */
    size_t mt_n, mt_cap;
    /* scratch for meshoptimizer's cuts */
    struct meshopt_Meshlet *sm;
    size_t sm_cap;
    uint32_t *sv;
    size_t sv_cap;
    uint8_t *st;
    size_t st_cap;
} build;

/* A sphere holding every sphere of the list (not the smallest): a
   parent's sphere must hold its children's so that its projected error is
   never below theirs (docs: the crack-free rule). From the largest, each
   other taken in by the smallest sphere holding both (a centroid's sphere
   grew by the children's offsets at every level: 5x the rock's radius at
   the top of a 15-level DAG). */
static void sphere_merge(float out[4], const float (*s)[4], uint32_t n) {
    uint32_t big = 0;
    for (uint32_t i = 1; i < n; i++)
        if (s[i][3] > s[big][3]) big = i;
    double c[3] = {s[big][0], s[big][1], s[big][2]}, r = s[big][3];
    for (uint32_t i = 0; i < n; i++) {
        double d[3] = {s[i][0] - c[0], s[i][1] - c[1], s[i][2] - c[2]};
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (l + s[i][3] <= r) continue;
        double nr = 0.5 * (l + s[i][3] + r);
        if (l > 0)
            for (int k = 0; k < 3; k++) c[k] += d[k] / l * (nr - r);
        r = nr;
    }
    for (int k = 0; k < 3; k++) out[k] = (float)c[k];
    /* float rounding stays inside: checked against each child */
    float rr = (float)r;
    for (uint32_t i = 0; i < n; i++) {
        float dx = s[i][0] - out[0], dy = s[i][1] - out[1], dz = s[i][2] - out[2];
        rr = fmaxf(rr, sqrtf(dx * dx + dy * dy + dz * dz) + s[i][3]);
    }
    out[3] = rr * (1 + 1e-6f) + 1e-7f;
}

/* Cuts a triangle list over `pos` (local vertices; to_global maps them to
   the mesh's, NULL: the same) into meshlets and appends them: their
   vertices, bytes, bounds and triangles in the output index list. Their
   LOD error and sphere are the group's (lod_sphere NULL: their own
   bounds, the finest level); they are roots until a group takes them. */
static bool emit(build *b, const float *pos, uint32_t nv, const uint32_t *to_global,
                 const uint32_t *ix, size_t n, float lod_error, const float *lod_sphere) {
    size_t cap = meshopt_buildMeshletsBound(n, OAK_MESHLET_VERTICES, OAK_MESHLET_TRIANGLES);
    if (!GROW(b->sm, b->sm_cap, cap) || !GROW(b->sv, b->sv_cap, cap * OAK_MESHLET_VERTICES) ||
        !GROW(b->st, b->st_cap, cap * OAK_MESHLET_TRIANGLES * 3))
        return false;
    size_t count =
        meshopt_buildMeshlets(b->sm, b->sv, b->st, ix, n, pos, nv, 12, OAK_MESHLET_VERTICES,
                              OAK_MESHLET_TRIANGLES, OAK_MESHLET_CONE_WEIGHT);
    for (size_t i = 0; i < count; i++) {
        const struct meshopt_Meshlet *s = &b->sm[i];
        uint32_t tb = (s->triangle_count * 3 + 3) & ~3u;
        if (!GROW(b->ml, b->ml_cap, b->ml_n + 1) || !GROW(b->first, b->first_cap, b->ml_n + 1) ||
            !GROW(b->mv, b->mv_cap, b->mv_n + s->vertex_count) ||
            !GROW(b->mt, b->mt_cap, b->mt_n + tb) ||
            !GROW(b->idx, b->idx_cap, b->idx_n + 3 * s->triangle_count))
            return false;
        struct meshopt_Bounds bd = meshopt_computeMeshletBounds(
            b->sv + s->vertex_offset, b->st + s->triangle_offset, s->triangle_count, pos, nv, 12);
        oak_meshlet *o = &b->ml[b->ml_n];
        *o = (oak_meshlet){.vertex_offset = (uint32_t)b->mv_n,
                           .triangle_offset = (uint32_t)b->mt_n,
                           .vertex_count = s->vertex_count,
                           .triangle_count = s->triangle_count,
                           .radius = bd.radius,
                           .cone_cutoff = bd.cone_cutoff,
                           .lod_error = lod_error,
                           .parent_error = FLT_MAX};
        memcpy(o->center, bd.center, sizeof o->center);
        memcpy(o->cone_apex, bd.cone_apex, sizeof o->cone_apex);
        memcpy(o->cone_axis, bd.cone_axis, sizeof o->cone_axis);
        if (lod_sphere) {
            memcpy(o->lod_sphere, lod_sphere, sizeof o->lod_sphere);
        } else {
            memcpy(o->lod_sphere, bd.center, 12);
            o->lod_sphere[3] = bd.radius;
        }
        memcpy(o->parent_sphere, o->lod_sphere, sizeof o->parent_sphere);
        b->first[b->ml_n] = (uint32_t)b->idx_n;
        for (uint32_t v = 0; v < s->vertex_count; v++) {
            uint32_t l = b->sv[s->vertex_offset + v];
            b->mv[b->mv_n + v] = to_global ? to_global[l] : l;
        }
        const uint8_t *t = b->st + s->triangle_offset;
        memset(b->mt + b->mt_n, 0, tb);
        memcpy(b->mt + b->mt_n, t, s->triangle_count * 3);
        for (uint32_t k = 0; k < s->triangle_count * 3; k++)
            b->idx[b->idx_n + k] = b->mv[b->mv_n + t[k]];
        b->idx_n += 3 * s->triangle_count;
        b->mv_n += s->vertex_count;
        b->mt_n += tb;
        b->ml_n++;
    }
    return true;
}

typedef struct edge {
    uint32_t a, b, c; /* vertex pair (a < b) and the cluster's slot in the level */
} edge;
static int edge_cmp(const void *x, const void *y) {
    const edge *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return p->c < q->c ? -1 : p->c > q->c;
}
static int pair_cmp(const void *x, const void *y) {
    const uint64_t *p = x, *q = y;
    return *p < *q ? -1 : *p > *q;
}

/* Groups the level's clusters (pending, n of them) about OAK_CLOD_GROUP at
   a time by shared edges: a seed in list order, then the unclaimed
   neighbour sharing most edges with the group so far. group_of[i] gets
   each cluster's group; returns the group count, or UINT32_MAX without
   memory. */
static uint32_t group_clusters(build *b, const uint32_t *pending, uint32_t n, uint32_t *group_of) {
    size_t ne = 0;
    for (uint32_t i = 0; i < n; i++) ne += 3 * (size_t)b->ml[pending[i]].triangle_count;
    edge *e = oak_alloc(sizeof *e * (ne ? ne : 1));
    uint64_t *pairs = oak_alloc(sizeof *pairs * (ne ? ne : 1));
    uint32_t *adj_first = oak_calloc((size_t)n + 1, sizeof *adj_first);
    uint32_t *adj = NULL, *adj_w = NULL;
    uint32_t groups = UINT32_MAX;
    if (!e || !pairs || !adj_first) goto done;
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const oak_meshlet *o = &b->ml[pending[i]];
        const uint32_t *t = b->idx + b->first[pending[i]];
        for (uint32_t j = 0; j < o->triangle_count * 3; j += 3)
            for (int s = 0; s < 3; s++) {
                uint32_t v0 = t[j + s], v1 = t[j + (s + 1) % 3];
                e[k++] = (edge){v0 < v1 ? v0 : v1, v0 < v1 ? v1 : v0, i};
            }
    }
    qsort(e, ne, sizeof *e, edge_cmp);
    /* each edge met in two clusters is one shared edge between them */
    size_t np = 0;
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) j++;
        for (size_t x = i; x < j; x++)
            for (size_t y = x + 1; y < j; y++)
                if (e[x].c != e[y].c && np < ne) pairs[np++] = (uint64_t)e[x].c << 32 | e[y].c;
        i = j;
    }
    qsort(pairs, np, sizeof *pairs, pair_cmp);
    /* both directions, weighted by the shared-edge count */
    size_t nu = 0;
    for (size_t i = 0; i < np; i++)
        if (!i || pairs[i] != pairs[i - 1]) {
            adj_first[pairs[i] >> 32]++;
            adj_first[(uint32_t)pairs[i]]++;
            nu++;
        }
    adj = oak_alloc(sizeof *adj * (2 * nu + 1));
    adj_w = oak_alloc(sizeof *adj_w * (2 * nu + 1));
    if (!adj || !adj_w) goto done;
    uint32_t sum = 0;
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t c = adj_first[i];
        adj_first[i] = sum;
        sum += c;
    }
    uint32_t *fill = oak_alloc(sizeof *fill * ((size_t)n + 1));
    if (!fill) goto done;
    memcpy(fill, adj_first, sizeof *fill * ((size_t)n + 1));
    for (size_t i = 0; i < np;) {
        size_t j = i + 1;
        while (j < np && pairs[j] == pairs[i]) j++;
        uint32_t a = (uint32_t)(pairs[i] >> 32), c = (uint32_t)pairs[i], w = (uint32_t)(j - i);
        adj[fill[a]] = c, adj_w[fill[a]++] = w;
        adj[fill[c]] = a, adj_w[fill[c]++] = w;
        i = j;
    }
    oak_free(fill);
    for (uint32_t i = 0; i < n; i++) group_of[i] = UINT32_MAX;
    groups = 0;
    for (uint32_t seed = 0; seed < n; seed++) {
        if (group_of[seed] != UINT32_MAX) continue;
        uint32_t members[OAK_CLOD_GROUP], count = 1;
        members[0] = seed;
        group_of[seed] = groups;
        while (count < OAK_CLOD_GROUP) {
            uint32_t best = UINT32_MAX, best_w = 0;
            for (uint32_t m = 0; m < count; m++)
                for (uint32_t a = adj_first[members[m]]; a < adj_first[members[m] + 1]; a++) {
                    uint32_t c = adj[a];
                    if (group_of[c] != UINT32_MAX) continue;
                    /* the candidate's edges with the whole group */
                    uint32_t w = 0;
                    for (uint32_t q = 0; q < count; q++)
                        for (uint32_t x = adj_first[c]; x < adj_first[c + 1]; x++)
                            if (adj[x] == members[q]) w += adj_w[x];
                    if (w > best_w || (w == best_w && c < best)) best = c, best_w = w;
                }
            if (best == UINT32_MAX) break;
            members[count++] = best;
            group_of[best] = groups;
        }
        groups++;
    }
    /* a cluster left alone (its neighbours all taken; often a re-cut's
       small last meshlet) cannot simplify with its whole border locked,
       and one carried up level after level keeps its fine triangles in
       every far cut: it joins the neighbouring group it shares most
       edges with */
    uint32_t *size = oak_calloc(groups ? groups : 1, sizeof *size);
    if (!size) {
        groups = UINT32_MAX;
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) size[group_of[i]]++;
    for (uint32_t i = 0; i < n; i++) {
        if (size[group_of[i]] != 1) continue;
        uint32_t best = UINT32_MAX, best_w = 0;
        for (uint32_t a = adj_first[i]; a < adj_first[i + 1]; a++)
            if (adj_w[a] > best_w && size[group_of[adj[a]]] < 2 * OAK_CLOD_GROUP)
                best = adj[a], best_w = adj_w[a];
        if (best == UINT32_MAX) continue;
        size[group_of[i]]--;
        group_of[i] = group_of[best];
        size[group_of[i]]++;
    }
    /* the emptied groups' numbers closed up, in order */
    uint32_t kept = 0;
    for (uint32_t g = 0; g < groups; g++) size[g] = size[g] ? kept++ : UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) group_of[i] = size[group_of[i]];
    groups = kept;
    oak_free(size);
done:
    oak_free(e), oak_free(pairs), oak_free(adj_first), oak_free(adj), oak_free(adj_w);
    return groups;
}

void oak_clod_release(oak_clod *c) {
    if (!c) return;
    oak_free(c->indices);
    oak_meshlets_release(&c->meshlets);
    memset(c, 0, sizeof *c);
}

/* The build itself of n > 0 indices (n / 3 whole triangles, each index
   below vertex_count); oak_build_clod (below) checks the input and asks the
   disk cache first. */
static oak_result clod_build(oak_clod *out, const float *positions, uint32_t vertex_count,
                             const uint32_t *indices, uint32_t n) {
    memset(out, 0, sizeof *out);
    build b = {.pos = positions, .vcount = vertex_count};
    uint32_t *seq = NULL, *pending = NULL, *next = NULL, *group_of = NULL, *order = NULL;
    uint32_t *remap = NULL, *to_global = NULL, *merged = NULL, *simple = NULL;
    float *lpos = NULL, (*spheres)[4] = NULL;
    size_t merged_cap = 0, simple_cap = 0, lpos_cap = 0, tg_cap = 0, sph_cap = 0, next_cap = 0;
    oak_result r = OAK_ERROR_OUT_OF_MEMORY;
    if (!indices) {
        if (!(seq = oak_alloc(sizeof *seq * n))) goto fail;
        for (uint32_t i = 0; i < n; i++) seq[i] = i;
        indices = seq;
    }
    /* level 0: the source cut as any mesh is */
    out->level_first[0] = 0;
    if (!emit(&b, positions, vertex_count, NULL, indices, n, 0, NULL)) goto fail;
    out->level_count = 1;
    out->level_triangles[0] = n / 3;
    out->finest_index_count = (uint32_t)b.idx_n;
    bool small = n / 3 < OAK_CLOD_MIN_TRIANGLES;
    uint32_t np = (uint32_t)b.ml_n;
    if (!(pending = oak_alloc(sizeof *pending * b.ml_n)) ||
        !(remap = oak_alloc(sizeof *remap * vertex_count)))
        goto fail;
    for (uint32_t i = 0; i < np; i++) pending[i] = i;
    memset(remap, 0xff, sizeof *remap * vertex_count);
    while (!small && out->level_count < OAK_CLOD_MAX_LEVELS &&
           (np > 1 || b.ml[pending[0]].triangle_count > OAK_CLOD_ROOT_TRIANGLES)) {
        oak_free(group_of), oak_free(order), oak_free(next);
        group_of = oak_alloc(sizeof *group_of * np);
        order = oak_alloc(sizeof *order * np);
        next_cap = np + 1;
        next = oak_alloc(sizeof *next * next_cap); /* carried + new, grown as made */
        if (!group_of || !order || !next) goto fail;
        uint32_t groups = group_clusters(&b, pending, np, group_of);
        if (groups == UINT32_MAX) goto fail;
        /* the level's clusters in group order (a counting sort) */
        uint32_t *gfirst = oak_calloc((size_t)groups + 1, sizeof *gfirst);
        if (!gfirst) goto fail;
        for (uint32_t i = 0; i < np; i++) gfirst[group_of[i] + 1]++;
        for (uint32_t g = 0; g < groups; g++) gfirst[g + 1] += gfirst[g];
        for (uint32_t i = 0; i < np; i++) order[gfirst[group_of[i]]++] = i;
        for (uint32_t g = groups; g > 0; g--) gfirst[g] = gfirst[g - 1];
        gfirst[0] = 0;
        uint32_t level = out->level_count, nn = 0;
        size_t level_start = b.ml_n, level_idx = b.idx_n;
        bool ok = true;
        for (uint32_t g = 0; ok && g < groups; g++) {
            uint32_t g0 = gfirst[g], g1 = gfirst[g + 1], nm = 0, nl = 0;
            size_t tris = 0;
            for (uint32_t i = g0; i < g1; i++) tris += b.ml[pending[order[i]]].triangle_count;
            if (!GROW(merged, merged_cap, 3 * tris) || !GROW(simple, simple_cap, 3 * tris) ||
                !GROW(to_global, tg_cap, 3 * tris) || !GROW(lpos, lpos_cap, 9 * tris) ||
                !GROW(spheres, sph_cap, g1 - g0)) {
                ok = false;
                break;
            }
            /* the group's triangles over its own vertices: meshoptimizer's
               work and its error then scale with the group, not the mesh */
            float child_error = 0;
            for (uint32_t i = g0; i < g1; i++) {
                const oak_meshlet *o = &b.ml[pending[order[i]]];
                const uint32_t *t = b.idx + b.first[pending[order[i]]];
                for (uint32_t j = 0; j < 3 * o->triangle_count; j++) {
                    uint32_t v = t[j];
                    if (remap[v] == UINT32_MAX) {
                        remap[v] = nl;
                        to_global[nl] = v;
                        memcpy(lpos + 3 * (size_t)nl, positions + 3 * (size_t)v, 12);
                        nl++;
                    }
                    merged[nm++] = remap[v];
                }
                child_error = fmaxf(child_error, o->lod_error);
                memcpy(spheres[i - g0], o->lod_sphere, sizeof spheres[0]);
            }
            for (uint32_t v = 0; v < nl; v++) remap[to_global[v]] = UINT32_MAX;
            float rel = 0;
            size_t got = meshopt_simplify(simple, merged, nm, lpos, nl, 12, (nm / 6) * 3, FLT_MAX,
                                          meshopt_SimplifyLockBorder, &rel);
            if (!got || (float)got > CLOD_SHRINK * (float)nm) {
                /* not simplified: its clusters try again with the next level */
                if (!GROW(next, next_cap, nn + (g1 - g0) + 1)) {
                    ok = false;
                    break;
                }
                for (uint32_t i = g0; i < g1; i++) next[nn++] = pending[order[i]];
                continue;
            }
            float gs[4], ge = child_error + rel * meshopt_simplifyScale(lpos, nl, 12);
            sphere_merge(gs, (const float(*)[4])spheres, g1 - g0);
            for (uint32_t i = g0; i < g1; i++) {
                oak_meshlet *o = &b.ml[pending[order[i]]];
                o->parent_error = ge;
                memcpy(o->parent_sphere, gs, sizeof gs);
            }
            size_t before = b.ml_n;
            if (!emit(&b, lpos, nl, to_global, simple, got, ge, gs)) {
                ok = false;
                break;
            }
            if (!GROW(next, next_cap, nn + (b.ml_n - before) + 1)) {
                ok = false;
                break;
            }
            for (size_t i = before; i < b.ml_n; i++) next[nn++] = (uint32_t)i;
        }
        oak_free(gfirst);
        if (!ok) goto fail;
        if (b.ml_n == level_start) break; /* no group shrank: the rest are roots */
        out->level_first[level] = (uint32_t)level_start;
        out->level_triangles[level] = (uint32_t)((b.idx_n - level_idx) / 3);
        out->level_count++;
        oak_free(pending);
        pending = next;
        next = NULL;
        np = nn;
    }
    out->level_first[out->level_count] = (uint32_t)b.ml_n;
    out->indices = b.idx;
    out->index_count = (uint32_t)b.idx_n;
    out->meshlets = (oak_meshlets){.count = (uint32_t)b.ml_n,
                                   .vertex_total = (uint32_t)b.mv_n,
                                   .triangle_bytes = (uint32_t)b.mt_n,
                                   .meshlets = b.ml,
                                   .vertices = b.mv,
                                   .triangles = b.mt};
    b.idx = NULL, b.ml = NULL, b.mv = NULL, b.mt = NULL;
    r = OAK_OK;
fail:
    if (r) r = oak_error(r, "cluster LOD: out of memory for %u triangles", n / 3);
    oak_free(b.idx), oak_free(b.ml), oak_free(b.first), oak_free(b.mv), oak_free(b.mt);
    oak_free(b.sm), oak_free(b.sv), oak_free(b.st);
    oak_free(seq), oak_free(pending), oak_free(next), oak_free(group_of), oak_free(order);
    oak_free(remap), oak_free(to_global), oak_free(merged), oak_free(simple), oak_free(lpos);
    oak_free(spheres);
    return r;
}

oak_result oak_build_clod(oak_clod *out, const float *positions, uint32_t vertex_count,
                          const uint32_t *indices, uint32_t index_count) {
    uint32_t n;
    oak_result r = _oak_triangles_check("cluster LOD", out, sizeof *out, positions, vertex_count,
                                        indices, index_count, &n);
    if (r || !n) return r; /* bad input and nothing to build: uncached */
    /* the disk cache (asset/clod_cache.c): keyed by the source's bytes and
       every parameter of the build, so a hit is what the build would make */
    _oak_clod_key key;
    _oak_clod_key_make(&key, CLOD_SHRINK, positions, vertex_count, indices, index_count);
    char path[1200];
    _oak_clod_cache_outcome how = OAK_CLOD_CACHE_OFF;
    if (_oak_clod_cache_path(&key, path, sizeof path)) {
        how = _oak_clod_cache_load(out, &key, path);
        if (how == OAK_CLOD_CACHE_HIT) {
            _oak_clod_cache_count(how, false);
            return OAK_OK;
        }
    }
    r = clod_build(out, positions, vertex_count, indices, n);
    bool stored = !r && how != OAK_CLOD_CACHE_OFF && _oak_clod_cache_store(out, &key, path);
    _oak_clod_cache_count(how, stored);
    return r;
}

oak_result oak_make_clod_mesh(oak_mesh *out, const oak_mesh_desc *desc) {
    if (!out || !desc)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_make_clod_mesh: no output or desc");
    out->id = 0;
    uint32_t n = desc->indices ? desc->index_count : desc->vertex_count;
    if (n / 3 < OAK_CLOD_MIN_TRIANGLES) return oak_make_mesh(out, desc);
    oak_clod c;
    oak_result r =
        oak_build_clod(&c, desc->positions, desc->vertex_count, desc->indices, desc->index_count);
    if (r) return r;
    oak_mesh_desc d = *desc;
    d.indices = c.indices;
    d.index_count = c.index_count;
    if (!(r = oak_make_mesh(out, &d)) && !(r = _oak_mesh_adopt_meshlets(*out, &c.meshlets))) {
        _oak_registry *reg = _oak_registry_peek();
        oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, out->id) : NULL;
        if (m) m->finest_index_count = c.finest_index_count;
    } else if (out->id) {
        oak_destroy_mesh(*out);
        out->id = 0;
    }
    oak_clod_release(&c);
    return r;
}
