/* The window's overlay (apps/overlay.c): its font lights the pixels its
 * glyphs name, clips at the image's edges, and the panel darkens exactly
 * its own rectangle, lists the stages and draws each frame's bar at its
 * time's height. */
#include <string.h>

#include "apps/overlay.h"
#include "oak_test.h"

#define W 320
#define H 200

static uint8_t g_img[W * H * 4 + 64];

static void clear(uint8_t v) {
    memset(g_img, v, sizeof g_img);
}

static uint32_t count_rgb(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                          const uint8_t rgb[3]) {
    uint32_t n = 0;
    for (uint32_t y = y0; y < y1; y++)
        for (uint32_t x = x0; x < x1; x++) {
            const uint8_t *p = g_img + ((size_t)y * W + x) * 4;
            n += p[0] == rgb[0] && p[1] == rgb[1] && p[2] == rgb[2];
        }
    return n;
}

TEST(fontLightsItsGlyphsAndClips) {
    static const uint8_t red[3] = {255, 0, 0};
    clear(0);
    /* '0' is 19 pixels of its 5 x 7 cell (3+2+3+3+3+2+3) */
    CHECK(_oak_overlay_text(g_img, W, H, 10, 10, 1, "0", red) == 19);
    CHECK(count_rgb(0, 0, W, H, red) == 19);
    CHECK(count_rgb(10, 10, 15, 17, red) == 19); /* all inside its cell */
    clear(0);
    CHECK(_oak_overlay_text(g_img, W, H, 10, 10, 2, "0", red) == 76); /* doubled: 4 each */
    /* lower case is drawn as upper case, a missing character as '?' */
    clear(0);
    uint32_t lower = _oak_overlay_text(g_img, W, H, 0, 0, 1, "abc", red);
    clear(0);
    uint32_t upper = _oak_overlay_text(g_img, W, H, 0, 0, 1, "ABC", red);
    CHECK(lower == upper && upper > 0);
    clear(0);
    uint32_t tilde = _oak_overlay_text(g_img, W, H, 0, 0, 1, "~", red);
    clear(0);
    CHECK(tilde == _oak_overlay_text(g_img, W, H, 0, 0, 1, "?", red) && tilde == 9);
    CHECK(_oak_overlay_text(g_img, W, H, 0, 0, 1, "   ", red) == 0);
    /* clipped: half a glyph off each edge lights fewer, and nothing past the
       image (the 64 bytes after it stay as they were) */
    clear(0);
    memset(g_img + W * H * 4, 0xAB, 64);
    uint32_t edge = _oak_overlay_text(g_img, W, H, -3, -4, 1, "8", red) +
                    _oak_overlay_text(g_img, W, H, W - 2, H - 3, 1, "8", red);
    CHECK(edge > 0 && edge < 2 * 17); /* '8' is 17 pixels */
    for (int i = 0; i < 64; i++) CHECK(g_img[W * H * 4 + i] == 0xAB);
}

TEST(panelDarkensItsRectListsStagesAndGraphsFrames) {
    _oak_overlay o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < 60; i++) _oak_overlay_push(&o, 10.0f);
    for (int i = 0; i < 60; i++) _oak_overlay_push(&o, 25.0f);
    CHECK_NEAR(_oak_overlay_mean(&o), 17.5f, 1e-4f);
    /* the ring keeps 120: ten more of 10 ms replace the ten oldest of 10 ms */
    for (int i = 0; i < 10; i++) _oak_overlay_push(&o, 10.0f);
    CHECK(o.count == OAK_OVERLAY_HISTORY);
    CHECK_NEAR(_oak_overlay_mean(&o), 17.5f, 1e-4f);
    _oak_overlay_push(&o, 25.0f); /* and one more, the 11th oldest */
    CHECK_NEAR(_oak_overlay_mean(&o), 17.5f + 15.0f / 120.0f, 1e-4f);

    /* the pass that did not run (0 ms) is left out */
    oak_stage_timing st[3] = {{"raster", 0.5, 1.25}, {"fog", 0.0, -1.0}, {"resolve", 3.0, -1.0}};
    _oak_overlay_frame f = {"cpu 320x200", st, 3};
    clear(255);
    uint32_t size[2];
    _oak_overlay_draw(&o, &f, g_img, W, H, size);
    /* three lines of 9 rows, the 40-row graph, margins of 4 above, between
       and below; the widest line or the 120-column graph, margins of 4 */
    CHECK(size[1] == 3 * 9 + 40 + 3 * 4);
    CHECK(size[0] >= OAK_OVERLAY_HISTORY + 8 && size[0] < W);
    /* outside the panel nothing changed; inside, every pixel is darkened
       (255 / 4) or drawn over */
    static const uint8_t white[3] = {255, 255, 255}, dark[3] = {63, 63, 63};
    uint32_t outside = W * H - size[0] * size[1];
    CHECK(count_rgb(size[0], 0, W, H, white) + count_rgb(0, size[1], size[0], H, white) == outside);
    CHECK(count_rgb(0, 0, size[0], size[1], white) == 0);
    uint32_t darkened = count_rgb(0, 0, size[0], size[1], dark);
    CHECK(darkened > size[0] * size[1] / 2 && darkened < size[0] * size[1]);
    /* the graph: frames of 10 ms under a top of 33.3 ms stand round(10 / 33.3
       x 40) = 12 rows, those of 25 ms 30 rows; green (<= 16.7 ms) and amber */
    static const uint8_t green[3] = {90, 220, 110}, amber[3] = {240, 180, 60};
    uint32_t gx = 4, base = 4 + 3 * 9 + 4 + 40;
    /* oldest first: 49 of 10 ms, 60 of 25, 10 of 10, 1 of 25 */
    uint32_t green_col = count_rgb(gx + 10, base - 40, gx + 11, base, green);
    uint32_t amber_col = count_rgb(gx + 60, base - 40, gx + 61, base, amber);
    CHECK(count_rgb(gx + 115, base - 40, gx + 116, base, green) == 12);
    CHECK(count_rgb(gx + 119, base - 40, gx + 120, base, amber) == 29);
    fprintf(stderr, "  bars: amber %u rows, green %u rows\n", amber_col, green_col);
    /* the white 60 fps line (20 rows up) crosses the 30-row bars, not the
       12-row ones */
    CHECK(amber_col == 29);
    CHECK(green_col == 12);
    static const uint8_t line[3] = {240, 240, 240};
    CHECK(count_rgb(gx + 60, base - 20, gx + 61, base - 19, line) == 1);
    /* the text: the title's first letter 'C' at the margin, lit in white */
    static const uint8_t title[3] = {240, 240, 240};
    CHECK(count_rgb(4, 4, 9, 11, title) == 13); /* 'C': 3+2+1+1+1+2+3 */
}

int main(void) {
    RUN(fontLightsItsGlyphsAndClips);
    RUN(panelDarkensItsRectListsStagesAndGraphsFrames);
    return TEST_SUMMARY();
}
