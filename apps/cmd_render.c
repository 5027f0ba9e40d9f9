/* `oak render`: draws a world or scene file for --frames frames and writes
 * the last one as a PNG; prints one line: backend, device, size, ms/frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define RENDER_OPTIONS                                                                             \
    (CLI_OPT_WORLD | CLI_OPT_SCENE | CLI_OPT_BACKEND | CLI_OPT_DEVICE | CLI_OPT_SIZE |             \
     CLI_OPT_FRAMES | CLI_OPT_OUT | CLI_OPT_THREADS | CLI_OPT_VERBOSE)

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int render(const cli_options *o, oak_scene *scene, oak_renderer *renderer) {
    char subject[128], default_out[160];
    _oak_cli_subject(o, subject, sizeof subject);
    const char *out = o->out;
    if (!out) {
        mkdir("out", 0777); /* an existing folder is fine; a failure shows at the write */
        snprintf(default_out, sizeof default_out, "out/%s.png", subject);
        out = default_out;
    }
    uint32_t frames = o->frames ? o->frames : 1;
    double *ms = oak_alloc(sizeof(double) * frames);
    size_t bytes = (size_t)o->width * o->height * 4;
    uint8_t *pixels = oak_alloc(bytes);
    int status = 0;
    if (!ms || !pixels) {
        status = _oak_cli_fail(o);
        goto done;
    }
    for (uint32_t i = 0; i < frames; i++) {
        uint64_t start = oak_time_ns();
        if (oak_scene_draw(scene, renderer) != OAK_OK) {
            status = _oak_cli_fail(o);
            goto done;
        }
        ms[i] = oak_ms_since(start);
    }
    if (oak_renderer_read_pixels(renderer, pixels, bytes) != OAK_OK ||
        oak_image_write_png(out, o->width, o->height, pixels) != OAK_OK) {
        status = _oak_cli_fail(o);
        goto done;
    }
    qsort(ms, frames, sizeof *ms, cmp_double);
    printf("%s | %s | %ux%u | %.2f ms/frame (median of %u) | %s\n", oak_renderer_backend(renderer),
           oak_renderer_device(renderer), o->width, o->height, ms[frames / 2], frames, out);
done:
    oak_free(ms);
    oak_free(pixels);
    return status;
}

int _oak_cmd_render(int argc, char **argv) {
    cli_options o;
    int status = _oak_cli_parse(&o, argc, argv, RENDER_OPTIONS);
    if (status) return status;
    if ((status = _oak_cli_start(&o))) return status;
    oak_scene *scene = NULL;
    oak_renderer *renderer = NULL;
    if (!(status = _oak_cli_check_backend(&o, o.backend)) &&
        !(status = _oak_cli_open_scene(&o, &scene)) &&
        !(status = _oak_cli_open_renderer(&o, o.backend, &renderer)))
        status = render(&o, scene, renderer);
    if (renderer) oak_destroy_renderer(renderer);
    if (scene) oak_destroy_scene(scene);
    oak_shutdown();
    return status;
}
