/* Meshes and shapes: handles, generated streams (area-weighted normals, uv
 * tangents with glTF handedness), validation, and each procedural shape's
 * geometry checked against what it must be. */
#include "oak_test.h"

static float dot3(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static float len3(const float *a) {
    return sqrtf(dot3(a, a));
}

static bool error_has(const char *needle) {
    return strstr(oak_last_error(), needle) != NULL;
}

TEST(meshHandleGoesStaleAfterDestroy) {
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    oak_mesh_desc d = {.vertex_count = 3, .positions = pos, .name = "tri"};
    oak_mesh a, b;
    CHECK_OK(oak_make_mesh(&a, &d));
    const oak_mesh_data *m = oak_mesh_get(a);
    CHECK(m != NULL);
    uint32_t va = m ? m->version : 0;
    CHECK(m && strcmp(m->name, "tri") == 0);
    oak_destroy_mesh(a);
    CHECK(oak_mesh_get(a) == NULL);
    CHECK_OK(oak_make_mesh(&b, &d)); /* reuses the slot with a new generation */
    CHECK(b.id != a.id);
    CHECK(oak_mesh_get(a) == NULL);
    CHECK(oak_mesh_get(b) != NULL && oak_mesh_get(b)->version != va);
    oak_destroy_mesh(a); /* a stale destroy leaves b alone */
    CHECK(oak_mesh_get(b) != NULL);
    oak_destroy_mesh(b);
}

TEST(meshUpdateMovesVersionAndKeepsHandle) {
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    float pos2[9] = {0, 0, 0, 2, 0, 0, 0, 2, 0};
    oak_mesh_desc d = {.vertex_count = 3, .positions = pos, .name = "tri"};
    oak_mesh a;
    CHECK_OK(oak_make_mesh(&a, &d));
    uint32_t v0 = oak_mesh_get(a)->version;
    d.positions = pos2;
    d.name = NULL;
    CHECK_OK(oak_mesh_update(a, &d));
    const oak_mesh_data *m = oak_mesh_get(a);
    CHECK(m->version != v0);
    CHECK_NEAR(m->bounds.max[0], 2.0, 0);
    CHECK(m->name && strcmp(m->name, "tri") == 0);
    oak_destroy_mesh(a);
    CHECK(oak_mesh_update(a, &d) == OAK_ERROR_NOT_FOUND);
}

TEST(meshNormalsAreAreaWeighted) {
    /* vertex 0 is shared by a triangle of area 2 facing +Z and one of area
       0.5 facing +Y: its normal is (0, 1, 4) / sqrt(17) */
    float pos[15] = {0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 1, 0, 0};
    uint32_t idx[6] = {0, 1, 2, 0, 3, 4};
    oak_mesh_desc d = {.vertex_count = 5, .index_count = 6, .positions = pos, .indices = idx};
    oak_mesh h;
    CHECK_OK(oak_make_mesh(&h, &d));
    const oak_mesh_data *m = oak_mesh_get(h);
    float s = 1.0f / sqrtf(17.0f);
    CHECK_NEAR(m->normals[0], 0, 1e-6);
    CHECK_NEAR(m->normals[1], s, 1e-6);
    CHECK_NEAR(m->normals[2], 4 * s, 1e-6);
    CHECK_NEAR(m->normals[3 * 1 + 2], 1, 1e-6);
    CHECK_NEAR(m->normals[3 * 3 + 1], 1, 1e-6);
    /* colours default to white, UVs to zero, no skin */
    for (int i = 0; i < 20; i++) CHECK_NEAR(m->colors[i], 1, 0);
    for (int i = 0; i < 10; i++) CHECK_NEAR(m->uv0[i], 0, 0);
    CHECK(m->joints == NULL && m->weights == NULL);
    /* bounds: the box and the sphere around it */
    CHECK_NEAR(m->bounds.max[0], 2, 0);
    CHECK_NEAR(m->bounds.max[1], 2, 0);
    CHECK_NEAR(m->bounds.max[2], 1, 0);
    CHECK_NEAR(m->bounds.radius, 1.5, 1e-6);
    oak_destroy_mesh(h);
}

TEST(meshTangentsFollowUvWithGltfHandedness) {
    /* a quad facing +Y, u along +X, v along +Z (the image upright seen from
       above): tangent +X and bitangent cross(n,t)*w = -Z, towards -v, so w = 1 */
    float pos[12] = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1};
    float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
    oak_mesh_desc d = {
        .vertex_count = 4, .index_count = 6, .positions = pos, .uv0 = uv, .indices = idx};
    oak_mesh h;
    CHECK_OK(oak_make_mesh(&h, &d));
    const oak_mesh_data *m = oak_mesh_get(h);
    for (int v = 0; v < 4; v++) {
        CHECK_NEAR(m->normals[3 * v + 1], 1, 1e-6);
        CHECK_NEAR(m->tangents[4 * v + 0], 1, 1e-6);
        CHECK_NEAR(m->tangents[4 * v + 3], 1, 0);
    }
    oak_destroy_mesh(h);
    /* mirrored in u: tangent -X and the handedness flips */
    float uvm[8] = {1, 0, 0, 0, 0, 1, 1, 1};
    d.uv0 = uvm;
    CHECK_OK(oak_make_mesh(&h, &d));
    m = oak_mesh_get(h);
    for (int v = 0; v < 4; v++) {
        CHECK_NEAR(m->tangents[4 * v + 0], -1, 1e-6);
        CHECK_NEAR(m->tangents[4 * v + 3], -1, 0);
    }
    oak_destroy_mesh(h);
}

TEST(meshRejectsBadStreams) {
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t past[3] = {0, 1, 3};
    oak_mesh h;
    oak_mesh_desc d = {
        .vertex_count = 3, .index_count = 3, .positions = pos, .indices = past, .name = "bad"};
    CHECK(oak_make_mesh(&h, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("index 2 is 3, past vertex count 3"));
    CHECK(h.id == 0);
    uint32_t four[4] = {0, 1, 2, 0};
    d.indices = four;
    d.index_count = 4;
    CHECK(oak_make_mesh(&h, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("not a multiple of 3"));
    float nan_pos[9] = {0, 0, 0, NAN, 0, 0, 0, 1, 0};
    oak_mesh_desc dn = {.vertex_count = 3, .positions = nan_pos, .name = "nan"};
    CHECK(oak_make_mesh(&h, &dn) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("vertex 1 has a non-finite position"));
    oak_mesh_desc none = {.vertex_count = 3};
    CHECK(oak_make_mesh(&h, &none) == OAK_ERROR_INVALID_ARGUMENT);
}

/* Every triangle of a closed shape faces the way its vertex normals do (CCW
   seen from outside), tangents are unit and orthogonal to normals, w = +-1. */
static void check_frame(const oak_mesh_data *m, const char *what) {
    uint32_t bad_wind = 0, bad_tan = 0, bad_n = 0;
    for (uint32_t t = 0; t < m->index_count; t += 3) {
        const uint32_t *i = m->indices + t;
        const float *a = m->positions + 3 * i[0], *b = m->positions + 3 * i[1],
                    *c = m->positions + 3 * i[2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        float n[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) n[j] += m->normals[3 * i[k] + j];
        if (len3(f) > 1e-9f && dot3(f, n) <= 0) bad_wind++;
    }
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *n = m->normals + 3 * v, *t = m->tangents + 4 * v;
        if (fabsf(len3(n) - 1) > 1e-5f) bad_n++;
        if (fabsf(dot3(n, t)) > 1e-5f || fabsf(len3(t) - 1) > 1e-5f || fabsf(fabsf(t[3]) - 1) > 0)
            bad_tan++;
    }
    if (bad_wind || bad_tan || bad_n)
        fprintf(stderr, "%s: %u inward triangles, %u bad tangents, %u bad normals\n", what,
                bad_wind, bad_tan, bad_n);
    CHECK_EQ_INT(bad_wind, 0);
    CHECK_EQ_INT(bad_tan, 0);
    CHECK_EQ_INT(bad_n, 0);
}

TEST(boxNormalsPointOutwardAndBoundsEqualSize) {
    oak_shape_desc s = {.type = OAK_SHAPE_BOX, .size = {2, 3, 4}};
    oak_mesh h;
    CHECK_OK(oak_make_shape(&h, &s));
    const oak_mesh_data *m = oak_mesh_get(h);
    CHECK_EQ_INT(m->vertex_count, 24);
    CHECK_EQ_INT(m->index_count, 36);
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + 3 * v, *n = m->normals + 3 * v;
        /* the face centre is n * half size: centre->face along n */
        float c[3] = {n[0] * 1.0f, n[1] * 1.5f, n[2] * 2.0f};
        CHECK(dot3(n, c) > 0);
        CHECK(dot3(n, p) > 0);
        /* the vertex lies on the face plane its normal names */
        CHECK_NEAR(dot3(n, p), dot3(n, c), 1e-6);
    }
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(m->bounds.min[k], -0.5f * s.size[k], 0);
        CHECK_NEAR(m->bounds.max[k], 0.5f * s.size[k], 0);
    }
    CHECK_NEAR(m->bounds.radius, 0.5 * sqrt(4 + 9 + 16), 1e-6);
    check_frame(m, "box");
    CHECK(m->has_recipe && m->recipe.type == OAK_SHAPE_BOX && m->recipe.size[2] == 4);
    oak_destroy_mesh(h);
}

TEST(sphereVerticesLieOnRadius) {
    oak_shape_desc s = {.type = OAK_SHAPE_SPHERE, .radius = 0.75f, .segments = 24, .rings = 12};
    oak_mesh h;
    CHECK_OK(oak_make_shape(&h, &s));
    const oak_mesh_data *m = oak_mesh_get(h);
    CHECK_EQ_INT(m->vertex_count, 25 * 13);
    CHECK_EQ_INT(m->index_count, 3 * 24 * (2 * 12 - 2));
    float worst = 0, worst_n = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + 3 * v, *n = m->normals + 3 * v;
        float e = fabsf(len3(p) - 0.75f);
        if (e > worst) worst = e;
        for (int k = 0; k < 3; k++)
            if (fabsf(n[k] - p[k] / 0.75f) > worst_n) worst_n = fabsf(n[k] - p[k] / 0.75f);
    }
    CHECK_NEAR(worst, 0, 1e-5);
    CHECK_NEAR(worst_n, 0, 1e-5);
    CHECK_NEAR(m->bounds.max[1], 0.75, 1e-6);
    CHECK_NEAR(m->bounds.min[1], -0.75, 1e-6);
    check_frame(m, "sphere");
    oak_destroy_mesh(h);
}

TEST(cylinderSidesAtRadiusAndCapsFlat) {
    oak_shape_desc s = {.type = OAK_SHAPE_CYLINDER, .radius = 0.3f, .height = 2.0f, .segments = 16};
    oak_mesh h;
    CHECK_OK(oak_make_shape(&h, &s));
    const oak_mesh_data *m = oak_mesh_get(h);
    uint32_t caps = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + 3 * v, *n = m->normals + 3 * v;
        if (fabsf(n[1]) > 0.5f) { /* a cap vertex: on the cap plane, inside the disc */
            caps++;
            CHECK_NEAR(p[1], n[1] > 0 ? 1.0 : -1.0, 0);
            CHECK(sqrtf(p[0] * p[0] + p[2] * p[2]) <= 0.3f + 1e-6f);
        } else {
            CHECK_NEAR(sqrtf(p[0] * p[0] + p[2] * p[2]), 0.3, 1e-6);
            CHECK_NEAR(n[0] * p[0] + n[2] * p[2], 0.3, 1e-6); /* radial, outward */
        }
    }
    CHECK_EQ_INT(caps, 2 * 17);
    CHECK_NEAR(m->bounds.max[1] - m->bounds.min[1], 2.0, 0);
    CHECK_NEAR(m->bounds.max[0], 0.3, 1e-6);
    check_frame(m, "cylinder");
    oak_destroy_mesh(h);
}

TEST(capsuleSurfaceIsRadiusFromItsAxis) {
    oak_shape_desc s = {.type = OAK_SHAPE_CAPSULE, .radius = 0.4f, .height = 1.0f};
    oak_mesh h;
    CHECK_OK(oak_make_shape(&h, &s));
    const oak_mesh_data *m = oak_mesh_get(h);
    float worst = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + 3 * v;
        float y = p[1] > 0.5f ? 0.5f : (p[1] < -0.5f ? -0.5f : p[1]);
        float d[3] = {p[0], p[1] - y, p[2]};
        float e = fabsf(len3(d) - 0.4f);
        if (e > worst) worst = e;
    }
    CHECK_NEAR(worst, 0, 1e-5);
    CHECK_NEAR(m->bounds.max[1], 0.9, 1e-6);
    CHECK_NEAR(m->bounds.min[1], -0.9, 1e-6);
    check_frame(m, "capsule");
    oak_destroy_mesh(h);
}

TEST(planeFacesUpWithUvFromMinusXMinusZ) {
    oak_shape_desc s = {.type = OAK_SHAPE_PLANE, .size = {4, 1, 2}, .segments = 2, .uv_scale = 3};
    oak_mesh h;
    CHECK_OK(oak_make_shape(&h, &s));
    const oak_mesh_data *m = oak_mesh_get(h);
    CHECK_EQ_INT(m->vertex_count, 9);
    CHECK_EQ_INT(m->index_count, 24);
    CHECK_NEAR(m->positions[0], -2, 0);
    CHECK_NEAR(m->positions[2], -1, 0);
    CHECK_NEAR(m->uv0[0], 0, 0);
    CHECK_NEAR(m->uv0[1], 0, 0);
    CHECK_NEAR(m->uv0[2 * 8], 3, 0); /* far corner (+X, +Z) */
    CHECK_NEAR(m->uv0[2 * 8 + 1], 3, 0);
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        CHECK_NEAR(m->normals[3 * v + 1], 1, 0);
        CHECK_NEAR(m->tangents[4 * v], 1, 1e-6);
        CHECK_NEAR(m->tangents[4 * v + 3], 1, 0);
    }
    check_frame(m, "plane");
    oak_destroy_mesh(h);
}

TEST(heightfieldHeightsEqualShapeHeight) {
    oak_shape_desc s = {.type = OAK_SHAPE_HEIGHTFIELD,
                        .size = {200, 1, 100},
                        .segments = 40,
                        .amplitude = 30,
                        .frequency = 0.02f,
                        .seed = 7};
    oak_mesh h;
    CHECK_OK(oak_make_shape(&h, &s));
    const oak_mesh_data *m = oak_mesh_get(h);
    CHECK_EQ_INT(m->vertex_count, 41 * 41);
    float worst = 0, worst_n = 0, lo = 1e9f, hi = -1e9f;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions + 3 * v, *n = m->normals + 3 * v;
        float want = oak_shape_height(&s, p[0], p[2]);
        if (fabsf(p[1] - want) > worst) worst = fabsf(p[1] - want);
        if (p[1] < lo) lo = p[1];
        if (p[1] > hi) hi = p[1];
        /* the normal is the height function's slope by central differences
           one cell (5 m by 2.5 m) either side */
        float ex = 5.0f, ez = 2.5f;
        float sx = (oak_shape_height(&s, p[0] + ex, p[2]) - oak_shape_height(&s, p[0] - ex, p[2])) /
                   (2 * ex);
        float sz = (oak_shape_height(&s, p[0], p[2] + ez) - oak_shape_height(&s, p[0], p[2] - ez)) /
                   (2 * ez);
        float want_n[3] = {-sx, 1, -sz}, l = len3(want_n);
        for (int k = 0; k < 3; k++)
            if (fabsf(n[k] - want_n[k] / l) > worst_n) worst_n = fabsf(n[k] - want_n[k] / l);
    }
    CHECK_NEAR(worst, 0, 0);
    CHECK_NEAR(worst_n, 0, 1e-5);
    CHECK(hi - lo > 5.0f); /* real relief, not a flat sheet */
    CHECK(hi <= 30.0f && lo >= -30.0f);
    CHECK_NEAR(m->positions[0], -100, 0);
    CHECK_NEAR(m->positions[2], -50, 0);
    check_frame(m, "heightfield");
    oak_destroy_mesh(h);
    /* amplitude 0 is flat */
    oak_shape_desc flat = {.type = OAK_SHAPE_HEIGHTFIELD};
    CHECK_NEAR(oak_shape_height(&flat, 12.5f, -3.0f), 0, 0);
}

TEST(shapeDefaultsAreAsDocumented) {
    oak_shape_desc d = oak_shape_desc_defaults(NULL);
    CHECK(d.type == OAK_SHAPE_BOX);
    CHECK_NEAR(d.size[0] + d.size[1] + d.size[2], 3, 0);
    CHECK_NEAR(d.radius, 0.5, 0);
    CHECK_NEAR(d.height, 1, 0);
    CHECK_EQ_INT(d.segments, 1);
    CHECK_EQ_INT(d.rings, 16);
    CHECK_NEAR(d.uv_scale, 1, 0);
    CHECK_EQ_INT(d.octaves, 6);
    CHECK_NEAR(d.frequency, 0.01, 1e-9);
    CHECK_NEAR(d.lacunarity, 2, 0);
    CHECK_NEAR(d.gain, 0.5, 0);
    CHECK_NEAR(d.amplitude, 0, 0);
    oak_shape_desc s = {.type = OAK_SHAPE_SPHERE};
    CHECK_EQ_INT(oak_shape_desc_defaults(&s).segments, 32);
    s.type = OAK_SHAPE_HEIGHTFIELD;
    CHECK_EQ_INT(oak_shape_desc_defaults(&s).segments, 128);
    oak_mesh h;
    oak_shape_desc bad = {.type = OAK_SHAPE_SPHERE, .segments = 2};
    CHECK(oak_make_shape(&h, &bad) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("at least 3 segments"));
    oak_shape_desc neg = {.type = OAK_SHAPE_BOX, .size = {1, -1, 1}};
    CHECK(oak_make_shape(&h, &neg) == OAK_ERROR_INVALID_ARGUMENT);
}

TEST(meshSlotsListLiveMeshes) {
    oak_mesh a, b, c;
    oak_shape_desc s = {0};
    CHECK_OK(oak_make_shape(&a, &s));
    CHECK_OK(oak_make_shape(&b, &s));
    CHECK_OK(oak_make_shape(&c, &s));
    oak_destroy_mesh(b);
    uint32_t found = 0, seen_a = 0, seen_c = 0;
    for (uint32_t i = 0; i < oak_mesh_slots(); i++) {
        oak_mesh m = oak_mesh_at_slot(i);
        if (!m.id) continue;
        found++;
        seen_a += m.id == a.id;
        seen_c += m.id == c.id;
        CHECK(m.id != b.id);
    }
    CHECK_EQ_INT(found, 2);
    CHECK_EQ_INT(seen_a + seen_c, 2);
    oak_destroy_mesh(c);
    /* a and the pools are left for oak_shutdown to free (LSan checks) */
}

int main(void) {
    oak_test_init(0);
    RUN(meshHandleGoesStaleAfterDestroy);
    RUN(meshUpdateMovesVersionAndKeepsHandle);
    RUN(meshNormalsAreAreaWeighted);
    RUN(meshTangentsFollowUvWithGltfHandedness);
    RUN(meshRejectsBadStreams);
    RUN(boxNormalsPointOutwardAndBoundsEqualSize);
    RUN(sphereVerticesLieOnRadius);
    RUN(cylinderSidesAtRadiusAndCapsFlat);
    RUN(capsuleSurfaceIsRadiusFromItsAxis);
    RUN(planeFacesUpWithUvFromMinusXMinusZ);
    RUN(heightfieldHeightsEqualShapeHeight);
    RUN(shapeDefaultsAreAsDocumented);
    RUN(meshSlotsListLiveMeshes);
    oak_shutdown();
    return TEST_SUMMARY();
}
