/* lowbias32, the one 32-bit integer hash (core/hash32.h; its GLSL twin is
 * shaders/common/hash.glsl, held to it by the GPU parity tests of material
 * tricks, clouds and grass): the bits it gave before the copies became one,
 * for fixed inputs, and the world's and the tests' hashes made of it. */
#include "core/hash32.h"
#include "oak_test.h"
#include "world/internal.h"

TEST(lowbias32KeepsItsBits) {
    /* x ^= x >> 16, x *= 0x7feb352d, x ^= x >> 15, x *= 0x846ca68b,
       x ^= x >> 16, worked out apart from the C */
    const uint32_t in[] = {0, 1, 2, 0x12345678u, 0xffffffffu, 0x9e3779b9u};
    const uint32_t out[] = {0, 0x688990c0u, 0xd1132181u, 0xf5e71c96u, 0x6768824au, 0x01fce552u};
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(_oak_lowbias32(in[i]), out[i]);
}

TEST(lowbias32FlipsAboutHalfTheBits) {
    /* one input bit flipped flips 16 of 32 output bits on average */
    uint64_t flips = 0, n = 0;
    for (uint32_t x = 0; x < 4096; x++)
        for (int b = 0; b < 32; b++, n++)
            flips +=
                (uint64_t)__builtin_popcount(_oak_lowbias32(x) ^ _oak_lowbias32(x ^ (1u << b)));
    double mean = (double)flips / (double)n;
    fprintf(stderr, "  %.3f output bits flip per input bit\n", mean);
    CHECK_NEAR(mean, 16.0, 0.2);
}

TEST(worldAndTestHashesAreLowbias32) {
    uint32_t bad = 0;
    for (uint32_t x = 0; x < 100000; x++) {
        uint32_t y = x * 2654435761u;
        bad += _oak_world_hash_u32(y) != _oak_lowbias32(y);
        float u = (float)(_oak_lowbias32(x * 0x9e3779b9u + 7) >> 8) * (1.0f / 16777216.0f);
        bad += _oak_world_hash01(x, 7) != u || oak_test_hash01(x, 7) != u;
    }
    CHECK_EQ_INT((int)bad, 0);
}

int main(void) {
    RUN(lowbias32KeepsItsBits);
    RUN(lowbias32FlipsAboutHalfTheBits);
    RUN(worldAndTestHashesAreLowbias32);
    return TEST_SUMMARY();
}
