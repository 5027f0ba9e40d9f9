/* The window's overlay (overlay.h): a panel of text and a graph written
 * straight into the frame's pixels. The font is oak's own: 5 x 7 cells, one
 * byte a row with bit 4 the leftmost pixel, for the characters the panel
 * prints (digits, letters, and a little punctuation). */
#include "overlay.h"

#include <stdio.h>
#include <string.h>

#define GLYPH_W 5
#define GLYPH_H 7
#define ADVANCE 6 /* a glyph and a column of space */
#define LINE    9 /* a glyph and two rows of space */
#define MARGIN  4

static const char k_chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.:-/%()_,|+?";
static const uint8_t k_glyphs[][GLYPH_H] = {
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, /* 0 */
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* 1 */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, /* 2 */
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}, /* 3 */
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, /* 4 */
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}, /* 5 */
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, /* 6 */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}, /* 7 */
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, /* 8 */
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}, /* 9 */
    {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, /* A */
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}, /* B */
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}, /* C */
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}, /* D */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}, /* E */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}, /* F */
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}, /* G */
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, /* H */
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* I */
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}, /* J */
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}, /* K */
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}, /* L */
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}, /* M */
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}, /* N */
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, /* O */
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}, /* P */
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}, /* Q */
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}, /* R */
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}, /* S */
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* T */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, /* U */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}, /* V */
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}, /* W */
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}, /* X */
    {0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04}, /* Y */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}, /* Z */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}, /* . */
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}, /* : */
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}, /* - */
    {0x01, 0x02, 0x02, 0x04, 0x08, 0x08, 0x10}, /* / */
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}, /* % */
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}, /* ( */
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}, /* ) */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}, /* _ */
    {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}, /* , */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* | */
    {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}, /* + */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}, /* ? */
};
_Static_assert(sizeof k_glyphs / sizeof k_glyphs[0] == sizeof k_chars - 1,
               "one glyph per character");

static const uint8_t *glyph(char c) {
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    const char *at = c ? strchr(k_chars, c) : NULL;
    return k_glyphs[at ? (size_t)(at - k_chars) : sizeof k_chars - 2];
}

void _oak_overlay_push(_oak_overlay *o, float ms) {
    o->ms[o->next] = ms;
    o->next = (o->next + 1) % OAK_OVERLAY_HISTORY;
    if (o->count < OAK_OVERLAY_HISTORY) o->count++;
}

float _oak_overlay_mean(const _oak_overlay *o) {
    double sum = 0;
    for (uint32_t i = 0; i < o->count; i++) sum += o->ms[i];
    return o->count ? (float)(sum / o->count) : 0.0f;
}

/* Sets the clipped rectangle [x0, x1) x [y0, y1) to rgb, or darkens it to a
   quarter when rgb is NULL; returns the pixels written. */
static uint32_t fill(uint8_t *rgba, uint32_t width, uint32_t height, int64_t x0, int64_t y0,
                     int64_t x1, int64_t y1, const uint8_t *rgb) {
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > (int64_t)width ? (int64_t)width : x1;
    y1 = y1 > (int64_t)height ? (int64_t)height : y1;
    uint32_t n = 0;
    for (int64_t y = y0; y < y1; y++)
        for (int64_t x = x0; x < x1; x++, n++) {
            uint8_t *p = rgba + ((size_t)y * width + (size_t)x) * 4;
            for (int c = 0; c < 3; c++) p[c] = rgb ? rgb[c] : (uint8_t)(p[c] / 4);
            p[3] = 255;
        }
    return n;
}

uint32_t _oak_overlay_text(uint8_t *rgba, uint32_t width, uint32_t height, int32_t x, int32_t y,
                           uint32_t scale, const char *s, const uint8_t rgb[3]) {
    uint32_t lit = 0;
    int64_t sc = scale ? scale : 1;
    for (int64_t cx = x; s && *s; s++, cx += ADVANCE * sc) {
        const uint8_t *g = glyph(*s);
        if (*s == ' ') continue;
        for (int64_t row = 0; row < GLYPH_H; row++)
            for (int64_t col = 0; col < GLYPH_W; col++)
                if (g[row] & (0x10 >> col))
                    lit += fill(rgba, width, height, cx + col * sc, y + row * sc,
                                cx + (col + 1) * sc, y + (row + 1) * sc, rgb);
    }
    return lit;
}

void _oak_overlay_draw(const _oak_overlay *o, const _oak_overlay_frame *f, uint8_t *rgba,
                       uint32_t width, uint32_t height, uint32_t size[2]) {
    static const uint8_t white[3] = {240, 240, 240}, grey[3] = {170, 170, 170},
                         green[3] = {90, 220, 110}, amber[3] = {240, 180, 60},
                         red[3] = {235, 80, 70};
    uint32_t sc = height >= 720 ? 2 : 1;
    char lines[OAK_OVERLAY_STAGES + 1][64];
    uint32_t n = 0, widest = 0;
    float mean = _oak_overlay_mean(o);
    snprintf(lines[n++], sizeof lines[0], "%s  %.2f MS  %.0f FPS", f->title ? f->title : "",
             (double)mean, mean > 0 ? 1000.0 / (double)mean : 0.0);
    for (uint32_t i = 0; i < f->stage_count && n <= OAK_OVERLAY_STAGES; i++) {
        const oak_stage_timing *t = &f->stages[i];
        bool gpu = t->gpu_ms >= 0;
        if ((gpu ? t->gpu_ms : t->cpu_ms) < 0.005) continue; /* a pass that did not run */
        snprintf(lines[n++], sizeof lines[0], "%-12.12s %7.2f %s", t->name ? t->name : "?",
                 gpu ? t->gpu_ms : t->cpu_ms, gpu ? "GPU" : "CPU");
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = (uint32_t)strlen(lines[i]);
        widest = len > widest ? len : widest;
    }
    uint32_t graph_w = OAK_OVERLAY_HISTORY * sc, graph_h = 40 * sc;
    uint32_t text_w = widest * ADVANCE * sc;
    uint32_t w = (text_w > graph_w ? text_w : graph_w) + 2 * MARGIN * sc;
    uint32_t h = n * LINE * sc + graph_h + 3 * MARGIN * sc;
    size[0] = w < width ? w : width, size[1] = h < height ? h : height;
    fill(rgba, width, height, 0, 0, w, h, NULL);
    int32_t x = (int32_t)(MARGIN * sc), y = (int32_t)(MARGIN * sc);
    for (uint32_t i = 0; i < n; i++, y += (int32_t)(LINE * sc))
        _oak_overlay_text(rgba, width, height, x, y, sc, lines[i], i ? grey : white);
    /* the graph: a column a frame, oldest on the left, its height the frame's
       time over the graph's top (33.3 ms, or the slowest frame held) */
    int64_t base = (int64_t)y + MARGIN * sc + graph_h;
    float top = 1000.0f / 30.0f;
    for (uint32_t i = 0; i < o->count; i++) top = o->ms[i] > top ? o->ms[i] : top;
    for (uint32_t i = 0; i < o->count; i++) {
        float ms = o->ms[(o->next + OAK_OVERLAY_HISTORY - o->count + i) % OAK_OVERLAY_HISTORY];
        int64_t bar = (int64_t)((double)ms / (double)top * graph_h + 0.5);
        const uint8_t *c = ms <= 1000.0f / 60.0f ? green : ms <= 1000.0f / 30.0f ? amber : red;
        int64_t cx = x + (int64_t)i * sc;
        fill(rgba, width, height, cx, base - bar, cx + sc, base, c);
    }
    int64_t line60 = base - (int64_t)(1000.0 / 60.0 / (double)top * graph_h + 0.5);
    fill(rgba, width, height, x, line60, x + graph_w, line60 + 1, white);
}
