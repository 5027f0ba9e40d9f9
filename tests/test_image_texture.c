/* Textures and images: mip chain sizes and filtering (sRGB averaged in
 * linear light, odd sizes area-weighted), limits, the (path, format) cache,
 * painted images, and PNG files written, read back and broken on purpose. */
#include "oak_test.h"

#include <stb/stb_image_write.h>

static bool error_has(const char *needle) {
    return strstr(oak_last_error(), needle) != NULL;
}

TEST(mipChainSizesHalveDownToOne) {
    static uint8_t px[256 * 64 * 4];
    oak_texture_desc d = {.width = 256, .height = 64, .format = OAK_FORMAT_RGBA8, .pixels = px};
    oak_texture t;
    CHECK_OK(oak_make_texture(&t, &d));
    const oak_texture_data *td = oak_texture_get(t);
    CHECK_EQ_INT(td->mip_count, 9);
    for (uint32_t i = 0; i < td->mip_count; i++) {
        uint32_t w = 256 >> i, h = 64 >> i;
        CHECK_EQ_INT(td->mip_width[i], w ? w : 1);
        CHECK_EQ_INT(td->mip_height[i], h ? h : 1);
    }
    CHECK_EQ_INT(td->bytes_per_pixel, 4);
    oak_destroy_texture(t);
    d.width = 5, d.height = 3;
    CHECK_OK(oak_make_texture(&t, &d));
    td = oak_texture_get(t);
    CHECK_EQ_INT(td->mip_count, 3);
    CHECK_EQ_INT(td->mip_width[1], 2);
    CHECK_EQ_INT(td->mip_height[1], 1);
    CHECK_EQ_INT(td->mip_width[2], 1);
    oak_destroy_texture(t);
    d.no_mips = true;
    CHECK_OK(oak_make_texture(&t, &d));
    CHECK_EQ_INT(oak_texture_get(t)->mip_count, 1);
    oak_destroy_texture(t);
    CHECK(oak_texture_get(t) == NULL);
}

TEST(srgbCheckerMipAveragesInLinearLight) {
    const uint8_t px[16] = {0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255};
    oak_texture_desc d = {.width = 2, .height = 2, .format = OAK_FORMAT_RGBA8_SRGB, .pixels = px};
    oak_texture t;
    CHECK_OK(oak_make_texture(&t, &d));
    const oak_texture_data *td = oak_texture_get(t);
    CHECK_EQ_INT(td->mip_count, 2);
    const uint8_t *m1 = td->mips[1];
    /* linear 0.5 encodes to sRGB 0.7354 = 187.5 of 255 */
    for (int c = 0; c < 3; c++) CHECK_NEAR(m1[c], 188, 1);
    CHECK_EQ_INT(m1[3], 255);
    oak_destroy_texture(t);
    d.format = OAK_FORMAT_RGBA8; /* data: a plain average */
    CHECK_OK(oak_make_texture(&t, &d));
    m1 = oak_texture_get(t)->mips[1];
    CHECK_NEAR(m1[0], 128, 1);
    oak_destroy_texture(t);
}

TEST(oddSizedMipWeighsEachTexelByItsArea) {
    /* 3x1 -> 1x1 covers all three texels equally; 5x1 -> 2x1 covers texels
       0, 1 and half of 2, then half of 2, 3 and 4 */
    const uint8_t three[12] = {0, 0, 0, 0, 90, 90, 90, 90, 180, 180, 180, 180};
    oak_texture_desc d = {.width = 3, .height = 1, .format = OAK_FORMAT_RGBA8, .pixels = three};
    oak_texture t;
    CHECK_OK(oak_make_texture(&t, &d));
    const uint8_t *m = oak_texture_get(t)->mips[1];
    CHECK_EQ_INT(m[0], 90);
    CHECK_EQ_INT(m[3], 90);
    oak_destroy_texture(t);
    float five[20] = {0};
    for (int i = 0; i < 5; i++)
        for (int c = 0; c < 4; c++) five[4 * i + c] = (float)(i * 10);
    oak_texture_desc f = {.width = 5, .height = 1, .format = OAK_FORMAT_RGBA32F, .pixels = five};
    CHECK_OK(oak_make_texture(&t, &f));
    const oak_texture_data *td = oak_texture_get(t);
    CHECK_EQ_INT(td->bytes_per_pixel, 16);
    const float *m1 = td->mips[1];
    CHECK_NEAR(m1[0], (0 + 10 + 0.5 * 20) / 2.5, 1e-5);
    CHECK_NEAR(m1[4], (0.5 * 20 + 30 + 40) / 2.5, 1e-5);
    const float *m2 = td->mips[2];
    CHECK_NEAR(m2[0], 20, 1e-5); /* the mean survives the whole chain */
    oak_destroy_texture(t);
}

TEST(textureRejectsZeroAndOversize) {
    uint8_t px[4] = {0};
    oak_texture t;
    oak_texture_desc d = {.width = 0, .height = 1, .pixels = px, .name = "z"};
    CHECK(oak_make_texture(&t, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("zero size"));
    d.width = OAK_MAX_TEXTURE_SIZE + 1;
    CHECK(oak_make_texture(&t, &d) == OAK_ERROR_LIMIT);
    CHECK(t.id == 0);
}

TEST(paintedCheckerHasKnownTexels) {
    oak_texture t;
    CHECK_OK(oak_load_texture(&t, "oak://checker", OAK_FORMAT_DEFAULT));
    const oak_texture_data *td = oak_texture_get(t);
    CHECK_EQ_INT(td->width, 256);
    CHECK_EQ_INT(td->height, 256);
    CHECK(td->format == OAK_FORMAT_RGBA8_SRGB);
    CHECK(strcmp(td->name, "oak://checker") == 0);
    const uint8_t *p = td->mips[0];
#define TEXEL(x, y) p[4 * ((y)*256 + (x))]
    CHECK_EQ_INT(TEXEL(0, 0), 204);
    CHECK_EQ_INT(TEXEL(31, 31), 204);
    CHECK_EQ_INT(TEXEL(32, 0), 51);
    CHECK_EQ_INT(TEXEL(0, 32), 51);
    CHECK_EQ_INT(TEXEL(32, 32), 204);
    CHECK_EQ_INT(TEXEL(40, 70), 51);
    CHECK_EQ_INT(TEXEL(255, 255), 204);
    CHECK_EQ_INT(p[3], 255);
#undef TEXEL
    /* 8x8 squares: the 8x8 mip is the checker one texel a square */
    const uint8_t *m5 = td->mips[5];
    CHECK_EQ_INT(td->mip_width[5], 8);
    CHECK_EQ_INT(m5[0], 204);
    CHECK_EQ_INT(m5[4], 51);
    oak_texture w;
    CHECK_OK(oak_load_texture(&w, "oak://white", OAK_FORMAT_RGBA8));
    td = oak_texture_get(w);
    CHECK_EQ_INT(td->width, 1);
    CHECK_EQ_INT(((const uint8_t *)td->mips[0])[0], 255);
    CHECK_EQ_INT(((const uint8_t *)td->mips[0])[3], 255);
}

TEST(textureCacheGivesOneHandlePerPathAndFormat) {
    oak_texture a, b, c, d;
    CHECK_OK(oak_load_texture(&a, "oak://checker", OAK_FORMAT_RGBA8_SRGB));
    CHECK_OK(oak_load_texture(&b, "oak://checker", OAK_FORMAT_DEFAULT));
    CHECK_OK(oak_load_texture(&c, "oak://checker", OAK_FORMAT_RGBA32F));
    CHECK_EQ_INT(a.id, b.id);
    CHECK(c.id != a.id);
    /* float from an 8-bit image is linear: sRGB 204 -> 0.6038 */
    CHECK_NEAR(((const float *)oak_texture_get(c)->mips[0])[0], 0.6038, 1e-3);
    oak_destroy_texture(a);
    CHECK_OK(oak_load_texture(&d, "oak://checker", OAK_FORMAT_RGBA8_SRGB));
    CHECK(d.id != a.id);
    CHECK(oak_texture_get(d) != NULL);
    CHECK(oak_load_texture(&d, "oak://nothing", 0) == OAK_ERROR_NOT_FOUND);
    CHECK(error_has("oak://nothing"));
}

static void paint_stripes(uint8_t *rgba, uint32_t w, uint32_t h, void *user) {
    uint8_t v = *(uint8_t *)user;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = rgba + 4 * (y * w + x);
            p[0] = x & 1 ? v : 0;
            p[1] = (uint8_t)y;
            p[2] = 0;
            p[3] = 255;
        }
}

TEST(userPainterIsReachableByName) {
    static uint8_t level = 77;
    CHECK_OK(oak_register_painter("stripes", 4, 2, paint_stripes, &level));
    oak_texture t;
    CHECK_OK(oak_load_texture(&t, "oak://stripes", OAK_FORMAT_RGBA8));
    const oak_texture_data *td = oak_texture_get(t);
    CHECK_EQ_INT(td->width, 4);
    const uint8_t *p = td->mips[0];
    CHECK_EQ_INT(p[0], 0);
    CHECK_EQ_INT(p[4], 77);
    CHECK_EQ_INT(p[4 * 5 + 1], 1);
    CHECK(oak_register_painter("x", 0, 1, paint_stripes, NULL) == OAK_ERROR_INVALID_ARGUMENT);
}

/* Grey fBm: centred on mid grey with real spread, and it tiles: the jump
   across the wrap is no bigger than between neighbours inside. */
TEST(noiseIsGreyFbmThatTiles) {
    oak_texture t;
    CHECK_OK(oak_load_texture(&t, "oak://noise", OAK_FORMAT_RGBA8));
    const oak_texture_data *td = oak_texture_get(t);
    const uint8_t *p = td->mips[0];
    uint32_t w = td->width, h = td->height;
    double sum = 0, sum2 = 0, wrap = 0, inside = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double v = p[4 * (y * w + x)];
            sum += v, sum2 += v * v;
            CHECK(p[4 * (y * w + x) + 1] == p[4 * (y * w + x)]);
        }
    for (uint32_t y = 0; y < h; y++) {
        wrap += fabs((double)p[4 * (y * w)] - p[4 * (y * w + w - 1)]);
        inside += fabs((double)p[4 * (y * w + w / 2)] - p[4 * (y * w + w / 2 - 1)]);
    }
    double n = (double)w * h, mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
    fprintf(stderr, "noise: mean %.1f sd %.1f, mean step across wrap %.2f, inside %.2f\n", mean, sd,
            wrap / h, inside / h);
    CHECK_NEAR(mean, 128, 20);
    CHECK(sd > 20 && sd < 80);
    CHECK(wrap / h < 2 * inside / h + 1);
}

/* The ground must read as terrain from above: mostly grass greens, some bare
   brown earth, some grey rock, no blue and nothing garish. */
TEST(groundIsGrassEarthAndRock) {
    oak_texture t;
    CHECK_OK(oak_load_texture(&t, "oak://ground", OAK_FORMAT_RGBA8_SRGB));
    const oak_texture_data *td = oak_texture_get(t);
    const uint8_t *p = td->mips[0];
    uint32_t n = td->width * td->height, green = 0, brown = 0, grey = 0, blue = 0;
    double mean[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        int r = p[4 * i], g = p[4 * i + 1], b = p[4 * i + 2];
        for (int c = 0; c < 3; c++) mean[c] += p[4 * i + c] / (double)n;
        if (g > r + 8 && g > b + 20)
            green++;
        else if (r > g + 8 && g > b + 8)
            brown++;
        else if (abs(r - g) <= 10 && abs(g - b) <= 12 && r > 85)
            grey++;
        if (b > r + 5 && b > g + 5) blue++;
    }
    fprintf(stderr,
            "ground %ux%u: mean rgb %.0f %.0f %.0f; green %.1f%% brown %.1f%% grey %.1f%%\n",
            td->width, td->height, mean[0], mean[1], mean[2], 100.0 * green / n, 100.0 * brown / n,
            100.0 * grey / n);
    CHECK(green > n * 0.35);
    CHECK(brown > n * 0.05);
    CHECK(grey > n * 0.05 && grey < n * 0.4);
    CHECK_EQ_INT(blue, 0);
    CHECK(mean[1] > mean[2] && mean[0] > mean[2]);
    char path[512];
    oak_image_write_png(oak_test_out(path, sizeof path, "ground.png"), td->width, td->height, p);
}

TEST(pngWriteReadRoundTripIsExact) {
    uint8_t px[7 * 5 * 4];
    uint32_t s = 12345;
    for (size_t i = 0; i < sizeof px; i++) {
        s = s * 1664525u + 1013904223u;
        px[i] = (uint8_t)(s >> 24);
    }
    char path[512];
    oak_test_out(path, sizeof path, "roundtrip.png");
    CHECK_OK(oak_image_write_png(path, 7, 5, px));
    uint32_t w, h;
    bool is_float;
    void *back = NULL;
    CHECK_OK(oak_image_load(path, &w, &h, &is_float, &back));
    CHECK_EQ_INT(w, 7);
    CHECK_EQ_INT(h, 5);
    CHECK(!is_float);
    CHECK(back && memcmp(back, px, sizeof px) == 0);
    oak_free(back);
    /* and through the texture loader, cached by path */
    oak_texture t, t2;
    CHECK_OK(oak_load_texture(&t, path, OAK_FORMAT_RGBA8));
    CHECK_OK(oak_load_texture(&t2, path, OAK_FORMAT_RGBA8));
    CHECK_EQ_INT(t.id, t2.id);
    CHECK(memcmp(oak_texture_get(t)->mips[0], px, sizeof px) == 0);
    oak_destroy_texture(t);
}

TEST(hdrLoadsAsLinearFloat) {
    /* RGBE stores these exactly: a shared exponent, 8-bit mantissas */
    const float px[6] = {0.5f, 2.0f, 1.0f, 4.0f, 0.25f, 0.0f};
    char path[512];
    oak_test_out(path, sizeof path, "two.hdr");
    CHECK(stbi_write_hdr(path, 2, 1, 3, px) != 0);
    oak_texture t;
    CHECK_OK(oak_load_texture(&t, path, OAK_FORMAT_RGBA32F));
    const oak_texture_data *td = oak_texture_get(t);
    CHECK(td && td->format == OAK_FORMAT_RGBA32F && td->width == 2);
    if (!td) return;
    const float *f = td->mips[0];
    const float want[8] = {0.5f, 2.0f, 1.0f, 1.0f, 4.0f, 0.25f, 0.0f, 1.0f};
    for (int i = 0; i < 8; i++) CHECK_NEAR(f[i], want[i], 0);
    CHECK_NEAR(((const float *)td->mips[1])[1], 1.125, 1e-6); /* (2 + 0.25) / 2 */
    /* as sRGB bytes: linear 0.5 encodes to 188, above 1 clamps */
    oak_texture s8;
    CHECK_OK(oak_load_texture(&s8, path, OAK_FORMAT_RGBA8_SRGB));
    const uint8_t *b = oak_texture_get(s8)->mips[0];
    CHECK_EQ_INT(b[0], 188);
    CHECK_EQ_INT(b[1], 255);
    CHECK_EQ_INT(b[6], 0);
}

static void write_bytes(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, size, f);
    fclose(f);
}

static oak_result load_bytes(const char *name, const void *data, size_t size, char *path,
                             size_t path_size) {
    oak_test_out(path, path_size, name);
    write_bytes(path, data, size);
    uint32_t w = 1, h = 1;
    bool f;
    void *px = (void *)1;
    oak_result r = oak_image_load(path, &w, &h, &f, &px);
    if (r) CHECK(px == NULL && w == 0 && h == 0);
    oak_free(px);
    return r;
}

/* A PNG signature and IHDR for the given size (stb does not check CRCs). */
static size_t png_header(uint8_t *out, uint32_t w, uint32_t h) {
    const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(out, sig, 8);
    const uint8_t ihdr[25] = {0,       0,      0, 13,      'I',     'H',    'D', 'R', w >> 24,
                              w >> 16, w >> 8, w, h >> 24, h >> 16, h >> 8, h,   8,   6,
                              0,       0,      0, 0,       0,       0,      0};
    memcpy(out + 8, ihdr, 25);
    return 33;
}

TEST(brokenImagesFailWithOneLineNamingTheFile) {
    char path[512];
    uint32_t w, h;
    bool f;
    void *px;
    CHECK(oak_image_load("no/such/image.png", &w, &h, &f, &px) == OAK_ERROR_IO);
    CHECK(error_has("no/such/image.png"));
    oak_texture t;
    CHECK(oak_load_texture(&t, "no/such/image.png", 0) == OAK_ERROR_IO);

    /* a good PNG cut in half */
    uint8_t good[64 * 64 * 4];
    for (size_t i = 0; i < sizeof good; i++) good[i] = (uint8_t)(i * 7 + (i >> 9));
    oak_test_out(path, sizeof path, "good.png");
    CHECK_OK(oak_image_write_png(path, 64, 64, good));
    void *file;
    size_t size;
    CHECK_OK(oak_read_file(path, &file, &size));
    CHECK(load_bytes("truncated.png", file, size / 2, path, sizeof path) == OAK_ERROR_PARSE);
    CHECK(error_has("truncated.png"));
    CHECK(strchr(oak_last_error(), '\n') == NULL);
    /* the same with its compressed data scrambled */
    uint8_t *bytes = file;
    for (size_t i = 60; i < size - 20; i += 3) bytes[i] ^= 0x5a;
    CHECK(load_bytes("corrupt.png", file, size, path, sizeof path) == OAK_ERROR_PARSE);
    CHECK(error_has("corrupt.png"));
    oak_free(file);

    uint8_t hdr[64];
    size_t n = png_header(hdr, 0, 16);
    CHECK(load_bytes("zero.png", hdr, n, path, sizeof path) == OAK_ERROR_PARSE);
    CHECK(error_has("zero.png"));
    n = png_header(hdr, OAK_MAX_TEXTURE_SIZE + 1, 1);
    CHECK(load_bytes("huge.png", hdr, n, path, sizeof path) == OAK_ERROR_LIMIT);
    CHECK(error_has("huge.png") && error_has("limit"));
    CHECK(load_bytes("empty.png", "", 0, path, sizeof path) == OAK_ERROR_PARSE);
    CHECK(load_bytes("text.png", "hello, not an image\n", 20, path, sizeof path) ==
          OAK_ERROR_PARSE);
    CHECK(error_has("text.png"));
    CHECK(oak_image_write_png("/nonexistent-dir/x.png", 1, 1, good) == OAK_ERROR_IO);
    CHECK(oak_image_write_png(path, 0, 1, good) == OAK_ERROR_INVALID_ARGUMENT);
}

int main(void) {
    oak_test_init(0);
    RUN(mipChainSizesHalveDownToOne);
    RUN(srgbCheckerMipAveragesInLinearLight);
    RUN(oddSizedMipWeighsEachTexelByItsArea);
    RUN(textureRejectsZeroAndOversize);
    RUN(paintedCheckerHasKnownTexels);
    RUN(textureCacheGivesOneHandlePerPathAndFormat);
    RUN(userPainterIsReachableByName);
    RUN(noiseIsGreyFbmThatTiles);
    RUN(groundIsGrassEarthAndRock);
    RUN(pngWriteReadRoundTripIsExact);
    RUN(hdrLoadsAsLinearFloat);
    RUN(brokenImagesFailWithOneLineNamingTheFile);
    oak_shutdown();
    return TEST_SUMMARY();
}
