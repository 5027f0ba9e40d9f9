/* Meshlets (asset/meshlets.c, docs/ARCHITECTURE.md "Meshlets"): a mesh cut
 * into clusters of at most 64 vertices and 124 triangles holds every
 * triangle once with its winding; each sphere holds its vertices; the
 * normal cone culls only clusters whose every triangle faces away, and does
 * cull; the cut follows the mesh as it changes; a model cache carries the
 * cut (the mesh made from it holds the same bytes); bad input is one line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oak_test.h"

#include <oak/gltf.h>

#include "gltf_test_assets.h"

typedef struct tri {
    uint32_t v[3];
} tri;

/* the triangle turned so its smallest index is first (winding kept) */
static tri canon(uint32_t a, uint32_t b, uint32_t c) {
    tri t = {{a, b, c}};
    while (t.v[0] > t.v[1] || t.v[0] > t.v[2]) t = (tri){{t.v[1], t.v[2], t.v[0]}};
    return t;
}

static int cmp_tri(const void *pa, const void *pb) {
    const tri *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

/* Every triangle of the mesh once, in the meshlets, with its winding. */
static bool same_triangles(const oak_mesh_data *m, const oak_meshlets *ml) {
    uint32_t n = m->index_count / 3, k = 0;
    tri *a = malloc(sizeof *a * (n ? n : 1)), *b = malloc(sizeof *b * (n ? n : 1));
    bool same = a && b;
    for (uint32_t i = 0; same && i < n; i++)
        a[i] = canon(m->indices[3 * i], m->indices[3 * i + 1], m->indices[3 * i + 2]);
    for (uint32_t i = 0; same && i < ml->count; i++) {
        const oak_meshlet *o = &ml->meshlets[i];
        for (uint32_t t = 0; t < o->triangle_count && k < n; t++, k++) {
            const uint8_t *l = ml->triangles + o->triangle_offset + 3 * t;
            const uint32_t *v = ml->vertices + o->vertex_offset;
            b[k] = canon(v[l[0]], v[l[1]], v[l[2]]);
        }
    }
    same = same && k == n;
    if (same) {
        qsort(a, n, sizeof *a, cmp_tri);
        qsort(b, n, sizeof *b, cmp_tri);
        same = !memcmp(a, b, sizeof *a * n);
    }
    free(a);
    free(b);
    return same;
}

static void sub3(const float *a, const float *b, double o[3]) {
    for (int k = 0; k < 3; k++) o[k] = (double)a[k] - b[k];
}

TEST(sphereMeshletsHoldEveryTriangleOnce) {
    oak_mesh mesh;
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .radius = 1, .segments = 64, .rings = 32};
    CHECK_OK(oak_make_shape(&mesh, &sd));
    const oak_meshlets *ml = NULL, *again = NULL;
    CHECK_OK(oak_mesh_meshlets(mesh, &ml));
    CHECK_OK(oak_mesh_meshlets(mesh, &again));
    CHECK(ml && ml == again); /* kept, not cut again */
    const oak_mesh_data *m = oak_mesh_get(mesh);
    if (!ml || !m) return;
    CHECK(oak_meshlets_problem(ml, m->vertex_count, m->index_count) == NULL);
    CHECK(same_triangles(m, ml));
    double worst = 0; /* farthest vertex outside its sphere, in radii */
    uint32_t full = 0;
    for (uint32_t i = 0; i < ml->count; i++) {
        const oak_meshlet *o = &ml->meshlets[i];
        CHECK(o->vertex_count <= OAK_MESHLET_VERTICES &&
              o->triangle_count <= OAK_MESHLET_TRIANGLES);
        full += o->triangle_count >= OAK_MESHLET_TRIANGLES / 2;
        for (uint32_t v = 0; v < o->vertex_count; v++) {
            double d[3];
            sub3(m->positions + 3 * ml->vertices[o->vertex_offset + v], o->center, d);
            double out = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / o->radius - 1;
            worst = out > worst ? out : worst;
        }
    }
    fprintf(stderr, "  %u triangles in %u meshlets (%u at least half full), worst %.2g outside\n",
            m->index_count / 3, ml->count, full, worst);
    CHECK(worst < 1e-5);
    CHECK(ml->count >= m->index_count / 3 / OAK_MESHLET_TRIANGLES);
    CHECK(full * 2 > ml->count);
    /* the cone, seen from 300 eyes 2 to 12 m out: a culled meshlet has no
       triangle facing the eye, and the test does cull */
    uint32_t culled = 0, tested = 0, wrong = 0;
    uint32_t seed = 12345;
    for (int e = 0; e < 300; e++) {
        float u = oak_test_hash01(seed++, 7), w = oak_test_hash01(seed++, 7),
              dist = 2 + 10 * oak_test_hash01(seed++, 7);
        float z = 2 * u - 1, r = sqrtf(1 - z * z), ph = 6.2831853f * w;
        float eye[3] = {dist * r * cosf(ph), dist * z, dist * r * sinf(ph)};
        for (uint32_t i = 0; i < ml->count; i++) {
            const oak_meshlet *o = &ml->meshlets[i];
            double d[3];
            sub3(o->cone_apex, eye, d);
            double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            double c =
                (d[0] * o->cone_axis[0] + d[1] * o->cone_axis[1] + d[2] * o->cone_axis[2]) / len;
            tested++;
            if (c < o->cone_cutoff) continue;
            culled++;
            for (uint32_t t = 0; t < o->triangle_count; t++) {
                const uint8_t *l = ml->triangles + o->triangle_offset + 3 * t;
                const uint32_t *vi = ml->vertices + o->vertex_offset;
                const float *p0 = m->positions + 3 * vi[l[0]], *p1 = m->positions + 3 * vi[l[1]],
                            *p2 = m->positions + 3 * vi[l[2]];
                double a[3], b[3], te[3];
                sub3(p1, p0, a);
                sub3(p2, p0, b);
                sub3(eye, p0, te);
                double n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                               a[0] * b[1] - a[1] * b[0]};
                wrong += n[0] * te[0] + n[1] * te[1] + n[2] * te[2] > 1e-9;
            }
        }
    }
    fprintf(stderr, "  cone: %u of %u meshlet tests culled, %u front-facing triangles among them\n",
            culled, tested, wrong);
    CHECK_EQ_INT(wrong, 0);
    CHECK(culled * 5 > tested); /* a sphere seen from outside: about half faces away */
    oak_destroy_mesh(mesh);
}

TEST(meshletsFollowTheMesh) {
    oak_mesh mesh;
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .radius = 1, .segments = 16, .rings = 8};
    CHECK_OK(oak_make_shape(&mesh, &sd));
    const oak_meshlets *ml = NULL;
    CHECK_OK(oak_mesh_meshlets(mesh, &ml));
    uint32_t before = ml ? ml->count : 0;
    /* the mesh becomes a quad of two triangles */
    const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    oak_mesh_desc d = {.vertex_count = 4, .index_count = 6, .positions = pos, .indices = idx};
    CHECK_OK(oak_mesh_update(mesh, &d));
    CHECK_OK(oak_mesh_meshlets(mesh, &ml));
    const oak_mesh_data *m = oak_mesh_get(mesh);
    CHECK(ml && m);
    if (ml && m) {
        fprintf(stderr, "  %u meshlets, then %u for the quad\n", before, ml->count);
        CHECK_EQ_INT(ml->count, 1);
        CHECK_EQ_INT(ml->meshlets[0].triangle_count, 2);
        CHECK(same_triangles(m, ml));
    }
    oak_destroy_mesh(mesh);
    CHECK_EQ_INT(oak_mesh_meshlets(mesh, &ml), OAK_ERROR_NOT_FOUND);
    CHECK(ml == NULL);
}

TEST(badMeshletInputIsOneLine) {
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint32_t past[3] = {0, 1, 3}, two[2] = {0, 1};
    oak_meshlets ml;
    CHECK_EQ_INT(oak_build_meshlets(&ml, pos, 3, past, 3), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "past 3 vertices") != NULL);
    CHECK_EQ_INT(oak_build_meshlets(&ml, pos, 3, two, 2), OAK_ERROR_INVALID_ARGUMENT);
    CHECK_OK(oak_build_meshlets(&ml, pos, 3, NULL, 0)); /* no indices: one triangle */
    CHECK_EQ_INT(ml.count, 1);
    CHECK(oak_meshlets_problem(&ml, 3, 3) == NULL);
    CHECK(oak_meshlets_problem(&ml, 3, 6) != NULL); /* not the mesh's triangles */
    if (ml.count) {
        ml.vertices[0] = 7; /* as a broken cache might say */
        const char *bad = oak_meshlets_problem(&ml, 3, 3);
        CHECK(bad && strstr(bad, "past the mesh's vertices"));
        ml.vertices[0] = 0;
        ml.triangles[0] = 9;
        bad = oak_meshlets_problem(&ml, 3, 3);
        CHECK(bad && strstr(bad, "past the meshlet's vertices"));
    }
    oak_meshlets_release(&ml);
}

/* A model cache carries each triangle primitive's cut; the mesh made from
   the cache holds it, the same bytes as the source's. */
TEST(cacheCarriesTheMeshlets) {
    char path[256], out[512];
    oak_gltf *src = NULL, *baked = NULL;
    CHECK_OK(
        oak_gltf_load(&src, gltf_asset(path, sizeof path, "animated/MorphStressTest.gltf"), NULL));
    if (!src) return;
    oak_test_out(out, sizeof out, "meshlets.oakm");
    CHECK_OK(oak_gltf_bake(src, out));
    CHECK_OK(oak_gltf_load(&baked, out, NULL));
    uint32_t prims = 0;
    for (uint32_t m = 0; baked && m < src->mesh_count; m++)
        for (uint32_t p = 0; p < src->meshes[m].primitive_count; p++) {
            const oak_gltf_primitive *bp = &baked->meshes[m].primitives[p];
            const oak_meshlets *a = NULL, *b = NULL;
            CHECK_OK(oak_mesh_meshlets(src->meshes[m].primitives[p].mesh, &a));
            CHECK(bp->meshlets.count > 0); /* in the cache */
            const oak_mesh_data *bd = oak_mesh_get(bp->mesh);
            CHECK(bd && bd->meshlets); /* handed to the mesh at load */
            CHECK_OK(oak_mesh_meshlets(bp->mesh, &b));
            if (!a || !b) continue;
            CHECK_EQ_INT(a->count, b->count);
            CHECK(a->count == b->count &&
                  !memcmp(a->meshlets, b->meshlets, sizeof *a->meshlets * a->count) &&
                  a->vertex_total == b->vertex_total &&
                  !memcmp(a->vertices, b->vertices, 4 * (size_t)a->vertex_total) &&
                  a->triangle_bytes == b->triangle_bytes &&
                  !memcmp(a->triangles, b->triangles, a->triangle_bytes));
            prims++;
        }
    fprintf(stderr, "  %u primitives' meshlets through the cache\n", prims);
    CHECK(prims > 0);
    oak_gltf_free(src);
    oak_gltf_free(baked);
}

int main(void) {
    oak_test_init(0);
    RUN(sphereMeshletsHoldEveryTriangleOnce);
    RUN(meshletsFollowTheMesh);
    RUN(badMeshletInputIsOneLine);
    RUN(cacheCarriesTheMeshlets);
    oak_shutdown();
    return TEST_SUMMARY();
}
