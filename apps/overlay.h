/* The window's overlay: frame time, a frame-time graph and the pass timings,
 * drawn by oak itself into the frame's RGBA8 pixels (top row first) before
 * the presenter shows them, with its own 5 x 7 font, so it needs nothing of
 * the backend and shows the same on cpu, vulkan, gl and null. */
#ifndef OAK_CLI_OVERLAY_H
#define OAK_CLI_OVERLAY_H

#include <stdint.h>

#include <oak/oak.h>

#define OAK_OVERLAY_HISTORY 120 /* frames the graph shows, one column each */
#define OAK_OVERLAY_STAGES  24  /* pass timings listed at most */

typedef struct _oak_overlay {
    float ms[OAK_OVERLAY_HISTORY]; /* ring of frame times */
    uint32_t count, next;
} _oak_overlay;

/* What one frame's panel shows. */
typedef struct _oak_overlay_frame {
    const char *title; /* e.g. "vulkan 1280x720" */
    const oak_stage_timing *stages;
    uint32_t stage_count;
} _oak_overlay_frame;

void _oak_overlay_push(_oak_overlay *o, float ms);
/* The mean of the frame times held (0 when none). */
float _oak_overlay_mean(const _oak_overlay *o);

/* Writes s at (x, y) (its top-left pixel), each font pixel `scale` pixels
   wide, in rgb; clipped to the image. Lower case is drawn as upper case and
   a character the font lacks as '?'. Returns the pixels it lit. */
uint32_t _oak_overlay_text(uint8_t *rgba, uint32_t width, uint32_t height, int32_t x, int32_t y,
                           uint32_t scale, const char *s, const uint8_t rgb[3]);

/* Draws the panel in the top-left corner: the picture under it darkened to
   a quarter, the title and the mean frame time and rate, one line per stage
   that took 0.005 ms or more (its GPU time where the backend has one, else
   its CPU time: a pass that did not run shows 0 and is left out), the graph
   of the last frames with a line at 16.7 ms (60 frames a second). The font
   is doubled from 720 rows up. Returns the panel's size in pixels (w, h). */
void _oak_overlay_draw(const _oak_overlay *o, const _oak_overlay_frame *f, uint8_t *rgba,
                       uint32_t width, uint32_t height, uint32_t size[2]);

#endif
