/* A small test harness: TEST(name) functions registered by RUN(name) in main,
 * CHECK macros that print the file, line and values and keep going, and a
 * closing "N passed, N failed" line. Tests init the engine themselves. */
#ifndef OAK_TEST_H
#define OAK_TEST_H

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oak/oak.h>

#include "core/hash32.h"

static int oak_test_failures_; /* checks failed in the current test */
static int oak_test_passed_, oak_test_failed_;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            oak_test_failures_++;                                                                  \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__,  \
                    #a, #b, a_, b_);                                                               \
            oak_test_failures_++;                                                                  \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                             \
        if (!(fabs(a_ - b_) <= t_)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s ~ %s (%.9g vs %.9g, tol %g)\n", __FILE__,     \
                    __LINE__, #a, #b, a_, b_, t_);                                                 \
            oak_test_failures_++;                                                                  \
        }                                                                                          \
    } while (0)

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        oak_result r_ = (expr);                                                                    \
        if (r_ != OAK_OK) {                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s returned %s (%s)\n", __FILE__, __LINE__,      \
                    #expr, oak_result_name(r_), oak_last_error());                                 \
            oak_test_failures_++;                                                                  \
        }                                                                                          \
    } while (0)

#define TEST(name) static void name(void)

/* A check outside any RUN (in main: the renderer's start, the validation
   layer's count) keeps counting across the RUNs and fails the summary. */
#define RUN(name)                                                                                  \
    do {                                                                                           \
        int outside_ = oak_test_failures_;                                                         \
        oak_test_failures_ = 0;                                                                    \
        name();                                                                                    \
        if (oak_test_failures_) {                                                                  \
            oak_test_failed_++;                                                                    \
            fprintf(stderr, "FAIL %s\n", #name);                                                   \
        } else {                                                                                   \
            oak_test_passed_++;                                                                    \
            fprintf(stderr, "ok   %s\n", #name);                                                   \
        }                                                                                          \
        oak_test_failures_ = outside_;                                                             \
    } while (0)

#define TEST_SUMMARY()                                                                             \
    (fprintf(stderr, "%d passed, %d failed, %d checks failed outside the tests\n",                 \
             oak_test_passed_, oak_test_failed_, oak_test_failures_),                              \
     oak_test_failed_ || oak_test_failures_ ? 1 : 0)

/* Quiet init for tests: warnings and errors only. */
static inline void oak_test_init(uint32_t threads) {
    oak_engine_desc d = {0};
    d.log_level = OAK_LOG_WARN;
    d.threads = threads;
    if (oak_init(&d) != OAK_OK) {
        fprintf(stderr, "oak_init failed: %s\n", oak_last_error());
        exit(2);
    }
}

/* A test that needs a pass a backend lacks ends with this code, which
 * tests/CMakeLists.txt gives CTest as SKIP_RETURN_CODE. */
#define OAK_TEST_SKIP 77

/* True when `backend` runs `pass` (its caps, backend.h); otherwise says
 * "skipped: <backend> lacks <pass>" and the test should skip that backend,
 * or return OAK_TEST_SKIP when nothing else is left to test. */
/* How many of n bytes differ between a and b (pictures compared to the byte). */
static inline size_t oak_test_bytes_differ(const uint8_t *a, const uint8_t *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += a[i] != b[i];
    return d;
}

static inline bool oak_test_backend_has(const char *backend, oak_pass_id pass) {
    if (oak_backend_caps(backend) & OAK_CAP_PASS(pass)) return true;
    fprintf(stderr, "skipped: %s lacks %s\n", backend, oak_pass_name(pass));
    return false;
}

/* Where tests write images: $OAK_TEST_OUT or /tmp. */
static inline const char *oak_test_out(char *buf, size_t size, const char *file) {
    const char *dir = getenv("OAK_TEST_OUT");
    snprintf(buf, size, "%s/%s", dir ? dir : "/tmp", file);
    return buf;
}

/* Heap calls the engine makes through its hooks, counted atomically (job
 * pool workers allocate too): pass oak_test_counting_allocator() in the
 * engine desc, then compare oak_test_heap_calls() before and after. */
static atomic_long oak_test_heap_calls_;
static inline void *oak_test_count_alloc(void *u, size_t n) {
    (void)u, atomic_fetch_add(&oak_test_heap_calls_, 1);
    return malloc(n);
}
static inline void *oak_test_count_realloc(void *u, void *p, size_t n) {
    (void)u, atomic_fetch_add(&oak_test_heap_calls_, 1);
    return realloc(p, n);
}
static inline void oak_test_count_free(void *u, void *p) {
    (void)u;
    if (p) atomic_fetch_add(&oak_test_heap_calls_, 1);
    free(p);
}
static inline oak_allocator oak_test_counting_allocator(void) {
    return (oak_allocator){oak_test_count_alloc, oak_test_count_realloc, oak_test_count_free, NULL};
}
/* A double-sided MASK material (metallic 0) whose base colour and alpha are
   an RGBA8 image of w x h texels: leaves, cards, cut-outs. */
static inline oak_material oak_test_cutout_material(const uint8_t *texels, uint32_t w, uint32_t h) {
    oak_texture tex = {0};
    oak_texture_desc td = {.width = w, .height = h, .pixels = texels};
    CHECK_OK(oak_make_texture(&tex, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0;
    md.alpha_mode = OAK_ALPHA_MASK;
    md.double_sided = true;
    md.base_color_tex.texture = tex;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    return m;
}

/* A [0, 1) value from (i, salt): a 32-bit integer hash, 24 bits kept, for
   scenes scattered the same on every run. */
static inline float oak_test_hash01(uint32_t i, uint32_t salt) {
    uint32_t x = i * 0x9e3779b9u + salt;
    return (float)(_oak_lowbias32(x) >> 8) * (1.0f / 16777216.0f);
}

static inline long oak_test_heap_calls(void) {
    return atomic_load(&oak_test_heap_calls_);
}

#endif
