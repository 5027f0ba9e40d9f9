/* `oak info`: the version, every backend compiled in (best first) with what
 * its probe finds here or why it cannot run and the passes and features it
 * has (its caps), the worlds, the threads and whether `--window` can open a
 * window here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "window.h"

/* Probe reports are several lines; indent each under its backend. */
static void print_indented(const char *text) {
    while (*text) {
        const char *nl = strchr(text, '\n');
        int len = nl ? (int)(nl - text) : (int)strlen(text);
        if (len) printf("    %.*s\n", len, text);
        text += len + (nl ? 1 : 0);
    }
}

/* The passes a backend runs and its features, from its caps bits. */
static void print_caps(uint64_t caps) {
    for (int features = 0; features < 2; features++) {
        printf("    %s:", features ? "features" : "passes");
        uint32_t from = features ? 32 : 0, to = features ? OAK_CAP_BIT_COUNT : OAK_PASS_COUNT;
        bool any = false;
        for (uint32_t bit = from; bit < to; bit++)
            if (caps >> bit & 1) printf(" %s", oak_cap_name(bit)), any = true;
        printf("%s\n", any ? "" : " none");
    }
}

int _oak_cmd_info(int argc, char **argv) {
    cli_options o;
    int status = _oak_cli_parse(&o, argc, argv, CLI_INFO_OPTIONS);
    if (status) return status;
    if ((status = _oak_cli_start(&o))) return status;
    printf("oak %d.%d.%d\n", OAK_VERSION_MAJOR, OAK_VERSION_MINOR, OAK_VERSION_PATCH);
    printf("threads: %u\n", oak_job_threads());
    printf("worlds:");
    for (uint32_t i = 0; i < oak_world_count(); i++)
        printf("%s %s", i ? "," : "", oak_world_name(i));
    printf("\nbackends (best first; auto takes the first available):\n");
    static char report[8192];
    for (uint32_t i = 0; i < oak_backend_count(); i++) {
        const char *name = oak_backend_name(i);
        report[0] = 0;
        oak_result r = oak_backend_probe(name, report, sizeof report);
        if (r == OAK_OK) {
            printf("  %s: available\n", name);
            print_indented(report);
        } else {
            /* the reason is the report, else the error the probe left */
            const char *why = *report ? report : oak_last_error();
            printf("  %s: unavailable: ", name);
            if (strchr(why, '\n')) {
                printf("\n");
                print_indented(why);
            } else {
                printf("%s\n", *why ? why : oak_result_name(r));
            }
        }
        /* where grass squares grow (docs/WORLD.md "Grass") */
        const char *gk = getenv("OAK_GRASS_KERNEL");
        bool gk_off = gk && !strcmp(gk, "off");
        if (oak_backend_caps(name) & OAK_CAP_PASS(OAK_PASS_GRASS))
            printf("    grass (OAK_GRASS_KERNEL=off grows it on the host): %s\n",
                   gk_off ? "off: each square that arrives is grown on the job pool and its "
                            "slot's records uploaded"
                          : "each square that arrives is grown on the device by the grass "
                            "kernel (the grass pass) from its grid of heights; the host keeps "
                            "slots and counts");
        else if (!strcmp(name, "cpu"))
            printf("    grass (OAK_GRASS_KERNEL=off grows it at the update): each square that "
                   "arrives is grown on the job pool%s\n",
                   gk_off ? " in the world's update" : " when the frame first reads it");
        /* whose records BLEND particles are drawn from, and who sorts the
           "over" ones (docs/WORLD.md "Particles", "In the frame") */
        const char *pb = getenv("OAK_PARTICLE_DEVICE_BLEND"),
                   *ps = getenv("OAK_PARTICLE_DEVICE_SORT");
        bool pb_off = pb && !strcmp(pb, "off"), ps_off = pb_off || (ps && !strcmp(ps, "off"));
        if (oak_backend_caps(name) & OAK_CAP_PASS(OAK_PASS_PARTICLES))
            printf(
                "    BLEND particles (OAK_PARTICLE_DEVICE_BLEND=off, OAK_PARTICLE_DEVICE_SORT=off "
                "for \"over\" ones): additive ones %s; \"over\" ones %s (no casting lamp; "
                "a flipbook's frames too, each one unit)\n",
                pb_off ? "from the host's records" : "drawn from the device's records",
                ps_off ? "from the host's records, sorted far to near on the host"
                       : "sorted far to near on the device (the sort kernel) and drawn from "
                         "its records");
        else if (!strcmp(name, "cpu"))
            printf("    BLEND particles: the host's records, \"over\" ones sorted far to near "
                   "on the host\n");
        /* per-meshlet culling of plain draws (docs/ARCHITECTURE.md "Meshlet
           culling"): which path, and why mesh shaders are not used */
        if (!strcmp(name, "cpu"))
            printf("    meshlets (OAK_MESHCULL=off turns it off): frustum and normal cone per "
                   "meshlet on the job pool before the camera's triangle set-up, which skips "
                   "the culled meshlets' triangles; with --occlusion on each kept meshlet "
                   "against the occlusion grid too; mesh shaders: not a GPU\n");
        else if (!strcmp(name, "gl"))
            printf("    meshlets (OAK_MESHCULL=off turns it off): frustum and normal cone per "
                   "meshlet culled in compute into an index buffer (the meshcull pass), drawn "
                   "by indirect draws; with --occlusion on each meshlet also against the "
                   "Hi-Z pyramid, in its two passes (as Vulkan's); "
                   "mesh shaders: not used (GL has only NV_mesh_shader)\n");
        else if (!strcmp(name, "vulkan"))
            printf("    meshlets (OAK_MESHCULL=off turns it off): frustum and normal cone per "
                   "meshlet culled in compute into an index buffer (the meshcull pass), drawn "
                   "by indirect draws; with --occlusion on each meshlet also against the "
                   "Hi-Z pyramid, in its two passes; mesh shaders (opt-in, OAK_MESH_SHADERS=on): "
                   "where the device has task and mesh shaders (its \"mesh "
                   "shaders\" line above) the camera's meshlets are culled in a task shader "
                   "and drawn by a mesh shader instead, except under --occlusion on; shadows "
                   "keep the expanded index buffer\n");
        /* which occlusion path --occlusion on selects here, and why
           (docs/ARCHITECTURE.md "Occlusion culling") */
        uint64_t caps = oak_backend_caps(name);
        if (caps & OAK_CAP_GPU_OCCLUSION)
            printf("    occlusion (--occlusion on; off by default): two-pass Hi-Z in compute "
                   "(last frame's visible draws first, a min-depth pyramid of their depth, the "
                   "rest tested against it and the newly visible drawn; its draw commands "
                   "compacted on the GPU where indirect counts exist, see above)%s\n",
                   caps & OAK_CAP_GPU_STREAMS
                       ? "; natively drawn streams take the same pyramid, per instance in "
                         "instcull (last frame's visible instances in pass 1, the rest tested "
                         "after it)"
                       : "");
        else
            printf("    occlusion (--occlusion on; off by default): coarse CPU depth (%dx%d-pixel "
                   "texels, the largest %d draws in view) before %s (%s)\n",
                   OAK_OCC_TEXEL, OAK_OCC_TEXEL, OAK_OCC_OCCLUDERS,
                   strcmp(name, "cpu") ? "the draws are sent" : "binning",
                   strcmp(name, "cpu") ? "this backend has no Hi-Z pass"
                                       : "its raster bins after the frontend: no depth to test "
                                         "against before it");
        print_caps(caps);
        oak_clear_error();
    }
    char window[256];
    bool has_window = _oak_window_available(window, sizeof window);
    printf("window: %s (%s)\n", has_window ? "available" : "unavailable", window);
    if (has_window) {
        _oak_window_presentations(window, sizeof window);
        printf("presentation: %s\n", window);
    }
    oak_shutdown();
    return 0;
}
