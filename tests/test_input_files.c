/* Bad input files, by class (docs/INPUT.md): inputs that are not regular
 * files (folders, FIFOs, devices, files over the size limit), paths that
 * leave the asset root (.., absolute, symbolic links, percent-encoded), and
 * images oak must refuse before decoding (foreign formats, headers claiming
 * more than the budget or than the file holds, hostile Radiance HDR). Every
 * case must end in one line naming the file, quickly, within a memory budget;
 * the corpus is tests/data/bad (made by make_bad.py), FIFOs and links are made
 * here. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "oak_test.h"

#define BAD "tests/data/bad/"

/* Peak resident memory the whole corpus may take under ASan, in MiB. */
#define MEMORY_BUDGET_MIB 128

/* Warnings are collected, so tests can check what a forgiving load said. */
static char g_warnings[4096];

static void capture_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (level == OAK_LOG_WARN) {
        size_t n = strlen(g_warnings);
        snprintf(g_warnings + n, sizeof g_warnings - n, "%s\n", msg);
    } /* errors are checked through oak_last_error() */
}

static bool one_line_with(const char *a, const char *b) {
    const char *e = oak_last_error();
    bool ok = !strchr(e, '\n') && strstr(e, a) && (!b || strstr(e, b));
    if (!ok)
        fprintf(stderr, "  wanted \"%s\"%s%s%s in: %s\n", a, b ? " and \"" : "", b ? b : "",
                b ? "\"" : "", e);
    return ok;
}

static double now_ms(void) {
    return (double)oak_time_ns() / 1e6;
}

/* A FIFO in OAK_TEST_OUT (made afresh); an open that blocked on it would
   stop the test, so SIGALRM ends it instead. */
static const char *make_fifo(char *path, size_t size, const char *name) {
    oak_test_out(path, size, name);
    unlink(path);
    if (mkfifo(path, 0600)) perror(path);
    return path;
}

/* ---- inputs: only regular files ------------------------------------------ */

TEST(inputsMustBeRegularFiles) {
    char fifo[512];
    make_fifo(fifo, sizeof fifo, "input.fifo");
    void *data;
    size_t size;
    double t0 = now_ms();
    CHECK_EQ_INT(oak_read_file(BAD "paths/dir.obj", &data, &size), OAK_ERROR_IO);
    CHECK(one_line_with("dir.obj: is a directory, not a file", NULL));
    CHECK_EQ_INT(oak_read_file(fifo, &data, &size), OAK_ERROR_IO);
    CHECK(one_line_with("input.fifo: is a FIFO (named pipe), not a file", NULL));
    CHECK_EQ_INT(oak_read_file("/dev/zero", &data, &size), OAK_ERROR_IO);
    CHECK(one_line_with("/dev/zero: is a device, not a file", NULL));
    /* each loader's entry refuses them the same way */
    oak_gltf *g = NULL;
    CHECK_EQ_INT(oak_gltf_load(&g, fifo, NULL), OAK_ERROR_IO);
    CHECK(g == NULL && one_line_with("input.fifo: is a FIFO", NULL));
    CHECK_EQ_INT(oak_gltf_load(&g, BAD "paths", NULL), OAK_ERROR_IO);
    CHECK(one_line_with("paths: is a directory", NULL));
    oak_scene *s = NULL;
    CHECK_EQ_INT(oak_scene_load(&s, fifo), OAK_ERROR_IO);
    CHECK(s == NULL && one_line_with("input.fifo: is a FIFO", NULL));
    oak_model m;
    CHECK_EQ_INT(oak_load_obj(&m, fifo), OAK_ERROR_IO);
    CHECK_EQ_INT(oak_load_obj(&m, BAD "paths/dir.obj"), OAK_ERROR_IO);
    uint32_t w, h;
    bool f;
    void *px;
    CHECK_EQ_INT(oak_image_load(fifo, &w, &h, &f, &px), OAK_ERROR_IO);
    CHECK_EQ_INT(oak_image_load(BAD "paths/dir.png", &w, &h, &f, &px), OAK_ERROR_IO);
    CHECK(one_line_with("dir.png: is a directory", NULL));
    double ms = now_ms() - t0;
    CHECK(ms < 2000);
    fprintf(stderr, "  folders, a FIFO and /dev/zero refused by every loader in %.1f ms\n", ms);
}

TEST(inputsOverTheSizeLimitAreRefusedBeforeReading) {
    char path[512];
    oak_test_out(path, sizeof path, "over_limit.bin");
    /* sparse: one byte past the limit costs no disk */
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (!fp) return;
    CHECK(ftruncate(fileno(fp), (off_t)OAK_MAX_INPUT_FILE_SIZE + 1) == 0);
    fclose(fp);
    void *data = NULL;
    size_t size = 0;
    double t0 = now_ms();
    CHECK_EQ_INT(oak_read_file(path, &data, &size), OAK_ERROR_LIMIT);
    CHECK(data == NULL &&
          one_line_with("over_limit.bin: 1073741825 bytes", "OAK_MAX_INPUT_FILE_SIZE"));
    oak_gltf *g = NULL;
    CHECK_EQ_INT(oak_gltf_load(&g, path, NULL), OAK_ERROR_LIMIT);
    CHECK(now_ms() - t0 < 1000);
    unlink(path);
}

/* Files that models and scenes name: folders and FIFOs fail in one line;
   an OBJ's texture is forgiving (left out with a warning). */
TEST(referencedFoldersAndFifosFail) {
    oak_scene *s = NULL;
    CHECK_EQ_INT(oak_scene_load(&s, BAD "paths/dir_mesh.json"), OAK_ERROR_PARSE);
    CHECK(s == NULL && one_line_with("dir_mesh.json: meshes[0].source: could not load 'dir.obj'",
                                     "is a directory"));
    CHECK_EQ_INT(oak_scene_load(&s, BAD "paths/dir_texture.json"), OAK_ERROR_PARSE);
    CHECK(one_line_with("dir_texture.json: materials[0].base_color_tex.path", "is a directory"));
    oak_model m;
    CHECK_EQ_INT(oak_load_obj(&m, BAD "paths/mtllib_dir.obj"), OAK_ERROR_IO);
    CHECK(one_line_with("mtllib_dir.obj: mtllib ", "dir.mtl: is a directory"));
    oak_gltf *g = NULL;
    CHECK_EQ_INT(oak_gltf_load(&g, BAD "paths/buffer_dir.gltf", NULL), OAK_ERROR_IO);
    CHECK(one_line_with("buffer_dir.gltf: buffers[0].uri:", "dir.bin: is a directory"));
    CHECK_EQ_INT(oak_gltf_load(&g, BAD "paths/image_dir.gltf", NULL), OAK_ERROR_IO);
    CHECK(one_line_with("image_dir.gltf: images[0].uri:", "dir.png: is a directory"));
    g_warnings[0] = 0;
    CHECK_OK(oak_load_obj(&m, BAD "paths/map_dir.obj"));
    CHECK(strstr(g_warnings, "dir.png unreadable, left out") != NULL);
    if (m.material_count)
        CHECK_EQ_INT(oak_material_get(m.materials[0])->desc.base_color_tex.texture.id, 0);
    for (uint32_t i = 0; i < m.mesh_count; i++) oak_destroy_mesh(m.meshes[i]);
    for (uint32_t i = 0; i < m.material_count; i++) oak_destroy_material(m.materials[i]);
    oak_model_release(&m);

    /* The same files as FIFOs, each named by a file beside it. */
    char dir[512], p[600];
    oak_test_out(dir, sizeof dir, "fifo_refs");
    mkdir(dir, 0700);
    static const char *const fifos[] = {"mesh.obj", "tex.png", "lib.mtl", "buf.bin"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, fifos[i]);
        unlink(p);
        CHECK(mkfifo(p, 0600) == 0);
    }
    static const struct {
        const char *name, *text;
    } files[] = {
        {"mesh.json", "{\"oak_scene\": 1, \"meshes\": [{\"source\": \"mesh.obj\", \"index\": 0}]}"},
        {"tex.json", "{\"oak_scene\": 1, \"materials\": [{\"name\": \"m\", \"base_color_tex\": "
                     "{\"path\": \"tex.png\"}}]}"},
        {"lib.obj", "mtllib lib.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"},
        {"buf.gltf", "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
                     "\"buf.bin\"}]}"},
    };
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i].name);
        CHECK_OK(oak_write_file(p, files[i].text, strlen(files[i].text)));
    }
    double t0 = now_ms();
    snprintf(p, sizeof p, "%s/mesh.json", dir);
    CHECK_EQ_INT(oak_scene_load(&s, p), OAK_ERROR_PARSE);
    CHECK(one_line_with("mesh.json: meshes[0].source", "mesh.obj: is a FIFO"));
    snprintf(p, sizeof p, "%s/tex.json", dir);
    CHECK_EQ_INT(oak_scene_load(&s, p), OAK_ERROR_PARSE);
    CHECK(one_line_with("tex.json: materials[0].base_color_tex.path", "tex.png: is a FIFO"));
    snprintf(p, sizeof p, "%s/lib.obj", dir);
    CHECK_EQ_INT(oak_load_obj(&m, p), OAK_ERROR_IO);
    CHECK(one_line_with("lib.obj: mtllib ", "lib.mtl: is a FIFO"));
    snprintf(p, sizeof p, "%s/buf.gltf", dir);
    CHECK_EQ_INT(oak_gltf_load(&g, p, NULL), OAK_ERROR_IO);
    CHECK(one_line_with("buf.gltf: buffers[0].uri:", "buf.bin: is a FIFO"));
    double ms = now_ms() - t0;
    CHECK(ms < 2000);
    fprintf(stderr, "  FIFOs named by a scene, an OBJ and a glTF refused in %.1f ms\n", ms);
}

/* ---- the asset root -------------------------------------------------------- */

TEST(pathsStayInsideTheAssetRoot) {
    oak_scene *s = NULL;
    CHECK_EQ_INT(oak_scene_load(&s, BAD "paths/escape_mesh.json"), OAK_ERROR_PARSE);
    CHECK(s == NULL && one_line_with("escape_mesh.json: meshes[0].source: could not load "
                                     "'../../scene/models/two_parts.obj'",
                                     "outside the asset root"));
    CHECK_EQ_INT(oak_scene_load(&s, BAD "paths/escape_texture.json"), OAK_ERROR_PARSE);
    CHECK(one_line_with("'../../scene/tile.png'", "outside the asset root"));
    CHECK_EQ_INT(oak_scene_load(&s, BAD "paths/absolute_texture.json"), OAK_ERROR_PARSE);
    CHECK(one_line_with("'/etc/passwd'", "outside the asset root"));
    /* a caller's root that holds them lets the same files load */
    oak_scene_load_desc wide = {.asset_root = "tests/data"};
    CHECK_OK(oak_scene_load_with(&s, BAD "paths/escape_mesh.json", &wide));
    if (s) oak_destroy_scene(s), s = NULL;
    CHECK_OK(oak_scene_load_with(&s, BAD "paths/escape_texture.json", &wide));
    if (s) oak_destroy_scene(s), s = NULL;
    CHECK_EQ_INT(oak_scene_load_with(&s, BAD "paths/escape_mesh.json",
                                     &(oak_scene_load_desc){.asset_root = "tests/nowhere"}),
                 OAK_ERROR_NOT_FOUND);
    CHECK(one_line_with("asset root 'tests/nowhere'", NULL));

    oak_model m;
    CHECK_EQ_INT(oak_load_obj(&m, BAD "paths/mtllib_escape.obj"), OAK_ERROR_UNSUPPORTED);
    CHECK(one_line_with("mtllib_escape.obj: mtllib", "outside the asset root"));
    g_warnings[0] = 0;
    CHECK_OK(oak_load_obj(&m, BAD "paths/map_escape.obj"));
    CHECK(strstr(g_warnings, "outside the asset root") && strstr(g_warnings, "left out"));
    if (m.material_count)
        CHECK_EQ_INT(oak_material_get(m.materials[0])->desc.base_color_tex.texture.id, 0);
    for (uint32_t i = 0; i < m.mesh_count; i++) oak_destroy_mesh(m.meshes[i]);
    for (uint32_t i = 0; i < m.material_count; i++) oak_destroy_material(m.materials[i]);
    oak_model_release(&m);
    CHECK_OK(oak_load_obj_with(&m, BAD "paths/map_escape.obj",
                               &(oak_obj_desc){.asset_root = "tests/data"}));
    if (m.material_count)
        CHECK(oak_material_get(m.materials[0])->desc.base_color_tex.texture.id != 0);
    for (uint32_t i = 0; i < m.mesh_count; i++) oak_destroy_mesh(m.meshes[i]);
    for (uint32_t i = 0; i < m.material_count; i++) oak_destroy_material(m.materials[i]);
    oak_model_release(&m);

    oak_gltf *g = NULL;
    CHECK_EQ_INT(oak_gltf_load(&g, BAD "paths/buffer_escape.gltf", NULL), OAK_ERROR_UNSUPPORTED);
    CHECK(one_line_with("buffer_escape.gltf: buffers[0].uri: '../../models/cube/cube.bin'",
                        "outside the asset root"));
    CHECK_EQ_INT(oak_gltf_load(&g, BAD "paths/buffer_escape_encoded.gltf", NULL),
                 OAK_ERROR_UNSUPPORTED);
    CHECK(one_line_with("outside the asset root", NULL));
    CHECK_EQ_INT(oak_gltf_load(&g, BAD "paths/image_escape.gltf", NULL), OAK_ERROR_UNSUPPORTED);
    CHECK(one_line_with("image_escape.gltf: images[0].uri:", "outside the asset root"));
    oak_gltf_desc gd = {.asset_root = "tests/data"};
    CHECK_OK(oak_gltf_load(&g, BAD "paths/buffer_escape.gltf", &gd));
    oak_gltf_free(g), g = NULL;
    CHECK_OK(oak_gltf_load(&g, BAD "paths/image_escape.gltf", &gd));
    if (g) CHECK(g->image_count == 1 && g->images[0].width > 0);
    oak_gltf_free(g), g = NULL;
}

/* Symbolic links are followed before the check: a link inside the folder
   to a file outside it is outside. */
TEST(symbolicLinksCannotLeaveTheAssetRoot) {
    char dir[512], p[700], target[1024], cwd[512];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    oak_test_out(dir, sizeof dir, "links");
    mkdir(dir, 0700);
    static const char *const names[] = {"out.obj", "up", "in.obj"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    snprintf(target, sizeof target, "%s/tests/data/scene/models/two_parts.obj", cwd);
    snprintf(p, sizeof p, "%s/out.obj", dir);
    CHECK(symlink(target, p) == 0);
    snprintf(p, sizeof p, "%s/up", dir);
    CHECK(symlink("/", p) == 0);
    snprintf(p, sizeof p, "%s/real.obj", dir);
    CHECK_OK(oak_write_file(p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 32));
    snprintf(p, sizeof p, "%s/in.obj", dir);
    CHECK(symlink("real.obj", p) == 0);
    static const struct {
        const char *name, *text;
        oak_result want;
    } files[] = {
        {"link_out.json",
         "{\"oak_scene\": 1, \"meshes\": [{\"source\": \"out.obj\", \"index\": 0}]}",
         OAK_ERROR_PARSE},
        {"link_up.json",
         "{\"oak_scene\": 1, \"materials\": [{\"name\": \"m\", \"base_color_tex\": "
         "{\"path\": \"up/etc/passwd\"}}]}",
         OAK_ERROR_PARSE},
        {"link_in.json", "{\"oak_scene\": 1, \"meshes\": [{\"source\": \"in.obj\", \"index\": 0}]}",
         OAK_OK},
    };
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i].name);
        CHECK_OK(oak_write_file(p, files[i].text, strlen(files[i].text)));
        oak_scene *s = NULL;
        oak_result r = oak_scene_load(&s, p);
        CHECK_EQ_INT(r, files[i].want);
        if (r) CHECK(one_line_with(files[i].name, "outside the asset root"));
        if (s) oak_destroy_scene(s);
    }
}

/* ---- images -------------------------------------------------------------- */

static const struct {
    const char *file;
    oak_result code;
    const char *message;
} g_bad_images[] = {
    {"hdr_hang_52.hdr", OAK_ERROR_PARSE, "claims 8x8, which 52 bytes cannot hold"},
    {"hdr_zero_run.hdr", OAK_ERROR_PARSE, "scanline 0: bad run of 0"},
    {"hdr_long_run.hdr", OAK_ERROR_PARSE, "scanline 0: bad run of 15"},
    {"hdr_cut_scanline.hdr", OAK_ERROR_PARSE, "ends inside scanline 0"},
    {"hdr_xyze.hdr", OAK_ERROR_UNSUPPORTED, "FORMAT=32-bit_rle_xyze"},
    {"hdr_header_never_ends.hdr", OAK_ERROR_PARSE, "header never ends"},
    {"hdr_16384.hdr", OAK_ERROR_LIMIT, "decodes to 4096 MiB, over the 256 MiB image budget"},
    {"hdr_flipped.hdr", OAK_ERROR_UNSUPPORTED, "resolution line is not"},
    {"png_100000.png", OAK_ERROR_LIMIT, "PNG is 100000x100000, over the 16384-texel edge limit"},
    {"png_16384.png", OAK_ERROR_LIMIT, "PNG of 16384x16384 decodes to 1024 MiB"},
    {"png_8192_tiny.png", OAK_ERROR_PARSE, "PNG claims 8192x8192, which 45 bytes cannot hold"},
    {"png_no_ihdr.png", OAK_ERROR_PARSE, "PNG without its IHDR header"},
    {"png_deflate_runs_on.png", OAK_ERROR_PARSE, "PNG chunk at byte 64 runs past the end"},
    {"png_deflate_cut.png", OAK_ERROR_PARSE,
     "PNG data inflates to an error or too much, not the 16448 bytes of 64x64 rows"},
    {"jpeg_16384.jpg", OAK_ERROR_LIMIT, "JPEG of 16384x16384 decodes to 1024 MiB"},
    {"jpeg_4096_tiny.jpg", OAK_ERROR_PARSE, "JPEG claims 4096x4096, which 17 bytes cannot hold"},
    {"jpeg_100_scans.jpg", OAK_ERROR_LIMIT, "JPEG has more than 64 scans (OAK_MAX_JPEG_SCANS)"},
    {"jpeg_no_frame.jpg", OAK_ERROR_PARSE, "JPEG has no frame header"},
    {"jpeg_marker_past_end.jpg", OAK_ERROR_PARSE, "runs past the end"},
    {"ppm_16384.ppm", OAK_ERROR_UNSUPPORTED, "a PNM (PPM/PGM/PBM) image, which oak does not read"},
    {"psd_16384.psd", OAK_ERROR_UNSUPPORTED, "a PSD image, which oak does not read"},
    {"tga_16384.tga", OAK_ERROR_UNSUPPORTED, "a TGA image, which oak does not read"},
    {"gif_16384.gif", OAK_ERROR_UNSUPPORTED, "a GIF image, which oak does not read"},
    {"bmp_16384.bmp", OAK_ERROR_UNSUPPORTED, "a BMP image, which oak does not read"},
    {"text.png", OAK_ERROR_PARSE, "not a PNG, JPEG, WebP or Radiance HDR image"},
    {"empty.jpg", OAK_ERROR_PARSE, "empty file"},
};

TEST(badImagesFailFastInOneLine) {
    double worst = 0;
    const char *slowest = "";
    size_t n = sizeof g_bad_images / sizeof g_bad_images[0];
    for (size_t i = 0; i < n; i++) {
        char path[256];
        snprintf(path, sizeof path, BAD "images/%s", g_bad_images[i].file);
        uint32_t w = 1, h = 1;
        bool f = true;
        void *px = (void *)1;
        double t0 = now_ms();
        oak_result r = oak_image_load(path, &w, &h, &f, &px);
        double ms = now_ms() - t0;
        if (ms > worst) worst = ms, slowest = g_bad_images[i].file;
        CHECK_EQ_INT(r, g_bad_images[i].code);
        CHECK(px == NULL && w == 0 && h == 0);
        if (!one_line_with(path, g_bad_images[i].message)) {
            fprintf(stderr, "  (%s)\n", g_bad_images[i].file);
            oak_test_failures_++;
        }
    }
    CHECK(worst < 250);
    fprintf(stderr, "  %zu bad images refused; slowest %.2f ms (%s)\n", n, worst, slowest);
}

/* The good images beside them still load, with the texels they were made with. */
TEST(goodImagesStillLoad) {
    static const struct {
        const char *file;
        uint32_t w, h;
        bool is_float;
    } good[] = {{"grad16x8.jpg", 16, 8, false},
                {"grad16x8_rgba.png", 16, 8, false},
                {"rle40x6.hdr", 40, 6, true},
                {"flat4x3.hdr", 4, 3, true}};
    for (int i = 0; i < 4; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/data/images/%s", good[i].file);
        uint32_t w, h;
        bool f;
        void *px = NULL;
        CHECK_OK(oak_image_load(path, &w, &h, &f, &px));
        CHECK(w == good[i].w && h == good[i].h && f == good[i].is_float);
        if (!px) continue;
        if (i == 0) { /* texel (15, 7) was (240, 224, 128): quality 80, 4:2:0: within 20 */
            const uint8_t *t = (const uint8_t *)px + (7 * 16 + 15) * 4;
            CHECK(abs(t[0] - 240) <= 20 && abs(t[1] - 224) <= 20 && abs(t[2] - 128) <= 20);
        } else if (i == 1) { /* PNG is exact: (x*16, y*32, 128, 255-x*8) */
            const uint8_t *t = (const uint8_t *)px + (5 * 16 + 3) * 4;
            CHECK(t[0] == 48 && t[1] == 160 && t[2] == 128 && t[3] == 231);
        } else { /* texel 0 was 0.25 grey; RGBE keeps it exactly */
            const float *t = px;
            CHECK(t[0] == 0.25f && t[1] == 0.25f && t[2] == 0.25f && t[3] == 1.0f);
        }
        oak_free(px);
    }
}

/* glTF reads PNG and JPEG; an image in another format is left out with a
   warning and the model loads without that texture (docs/GLTF.md). */
TEST(gltfImagesOakCannotReadAreLeftOut) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.asset_root = BAD};
    CHECK_OK(oak_gltf_load(&g, BAD "paths/image_ppm.gltf", &d));
    if (!g) return;
    CHECK_EQ_INT(g->warning_count, 1);
    CHECK(g->image_count == 1 && g->images[0].rgba == NULL);
    oak_gltf_free(g);
}

/* A seeded RGBE image written by stb (run-length for widths 8..32767, flat
   otherwise), then read by oak: the same floats as stb's own decoder. */
static unsigned char *hdr_file(int w, int h, uint32_t seed, int *len) {
    float *px = malloc((size_t)w * h * 3 * sizeof(float));
    for (int i = 0; i < w * h * 3; i++) {
        seed = seed * 1664525u + 1013904223u;
        /* runs of equal texels (t % 7 < 4 repeats the last) and spread
           exponents, so runs and dumps both occur */
        int t = i / 3;
        px[i] = t && t % 7 < 4 ? px[i - 3]
                               : ldexpf((float)(seed >> 8) / 16777216.0f, (int)(seed % 24) - 12);
    }
    char name[64], path[512];
    snprintf(name, sizeof name, "hdr_%dx%d.hdr", w, h);
    oak_test_out(path, sizeof path, name);
    *len = 0;
    if (!stbi_write_hdr(path, w, h, 3, px)) path[0] = 0;
    free(px);
    void *data;
    size_t size;
    if (!path[0] || oak_read_file(path, &data, &size)) return NULL;
    unsigned char *out = malloc(size);
    memcpy(out, data, size);
    oak_free(data);
    *len = (int)size;
    return out;
}

TEST(hdrDecodesAsStbAndEveryCutFailsCleanly) {
    static const int sizes[][2] = {{64, 9}, {4, 3}, {300, 2}};
    for (int k = 0; k < 3; k++) {
        int w = sizes[k][0], h = sizes[k][1], len;
        unsigned char *file = hdr_file(w, h, 7u + (uint32_t)k, &len);
        CHECK(file != NULL);
        if (!file) continue;
        int sw, sh, sc;
        float *ref = stbi_loadf_from_memory(file, len, &sw, &sh, &sc, 4);
        uint32_t ow, oh;
        bool is_float;
        void *px;
        CHECK_OK(oak_image_load_memory(&ow, &oh, &is_float, &px, file, (size_t)len, "hdr"));
        size_t differ = 0;
        if (ref && px && ow == (uint32_t)sw && oh == (uint32_t)sh && is_float)
            differ = (size_t)memcmp(px, ref, (size_t)w * h * 16) != 0;
        else
            differ = 1;
        CHECK_EQ_INT(differ, 0);
        stbi_image_free(ref);
        oak_free(px);
        /* every shorter prefix: decoded or refused in one line, never a hang */
        int refused = 0;
        double t0 = now_ms();
        for (int cut = 0; cut < len; cut++) {
            oak_result r =
                oak_image_load_memory(&ow, &oh, &is_float, &px, file, (size_t)cut, "cut");
            if (r) {
                refused++;
                CHECK(px == NULL && !strchr(oak_last_error(), '\n'));
            } else {
                oak_free(px);
            }
        }
        CHECK_EQ_INT(refused, len);
        fprintf(stderr, "  %dx%d HDR (%d bytes, %s): as stb; all %d cuts refused in %.1f ms\n", w,
                h, len, w >= 8 && w < 32768 ? "run-length" : "flat", refused, now_ms() - t0);
        free(file);
    }
}

/* Every prefix of a good PNG and JPEG decodes or fails in one line, quickly:
   the PNG's rows are inflated into a bounded buffer first (stb 2.27 would
   read zeros past a cut deflate stream without end). */
/* grad16x8_rgba.webp is the PNG through `cwebp -lossless -exact`: the same
   bytes; the lossy one (`-q 80 -alpha_q 100`) keeps alpha exactly and its
   colour within a few levels. */
TEST(webpDecodesAsItsPng) {
    uint32_t w, h, w2, h2;
    bool f;
    uint8_t *png = NULL, *webp = NULL, *lossy = NULL;
    CHECK_OK(oak_image_load("tests/data/images/grad16x8_rgba.png", &w, &h, &f, (void **)&png));
    CHECK_OK(oak_image_load("tests/data/images/grad16x8_rgba.webp", &w2, &h2, &f, (void **)&webp));
    CHECK(!f && w == w2 && h == h2 && w == 16 && h == 8);
    if (png && webp) CHECK(memcmp(png, webp, (size_t)w * h * 4) == 0);
    CHECK_OK(oak_image_load("tests/data/images/grad16x8_rgba_lossy.webp", &w2, &h2, &f,
                            (void **)&lossy));
    if (png && lossy && w == w2 && h == h2) {
        double sum = 0;
        int alpha_off = 0;
        for (size_t i = 0; i < (size_t)w * h * 4; i++) {
            if (i % 4 == 3)
                alpha_off += png[i] != lossy[i];
            else
                sum += abs(png[i] - lossy[i]);
        }
        double mean = sum / ((double)w * h * 3);
        fprintf(stderr, "  lossy WebP: mean colour error %.2f of 255, %d alphas off\n", mean,
                alpha_off);
        CHECK(mean < 6);
        CHECK_EQ_INT(alpha_off, 0);
    }
    oak_free(png);
    oak_free(webp);
    oak_free(lossy);
}

/* EXT_texture_webp: the texture's WebP source is read (no PNG fallback). */
TEST(gltfReadsEXTTextureWebp) {
    void *file = NULL;
    size_t size = 0;
    CHECK_OK(oak_read_file("tests/data/images/grad16x8_rgba.webp", &file, &size));
    if (!file) return;
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char enc[512];
    size_t k = 0;
    const uint8_t *d = file;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < size ? d[i + 1] << 8 : 0) |
                     (i + 2 < size ? d[i + 2] : 0);
        enc[k++] = b64[v >> 18 & 63];
        enc[k++] = b64[v >> 12 & 63];
        enc[k++] = i + 1 < size ? b64[v >> 6 & 63] : '=';
        enc[k++] = i + 2 < size ? b64[v & 63] : '=';
    }
    enc[k] = 0;
    oak_free(file);
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_texture_webp\"],"
             "\"extensionsRequired\":[\"EXT_texture_webp\"],"
             "\"images\":[{\"uri\":\"data:image/webp;base64,%s\"}],"
             "\"textures\":[{\"extensions\":{\"EXT_texture_webp\":{\"source\":0}}}]}",
             enc);
    oak_gltf *g = NULL;
    oak_gltf_desc desc = {.no_assets = true};
    CHECK_OK(oak_gltf_load_memory(&g, doc, strlen(doc), "webp.gltf", &desc));
    if (!g) return;
    uint32_t w, h;
    bool f;
    uint8_t *png = NULL;
    CHECK_OK(oak_image_load("tests/data/images/grad16x8_rgba.png", &w, &h, &f, (void **)&png));
    CHECK(g->image_count == 1 && g->images[0].rgba && g->images[0].width == 16 &&
          g->images[0].height == 8 && g->warning_count == 0);
    if (png && g->images[0].rgba) CHECK(memcmp(png, g->images[0].rgba, 16 * 8 * 4) == 0);
    oak_free(png);
    oak_gltf_free(g);
}

TEST(everyCutOfAGoodImageEndsCleanly) {
    static const char *const files[] = {
        "tests/data/images/grad16x8_rgba.png", "tests/data/models/TonemappingTest/TestPattern.png",
        "tests/data/images/grad16x8.jpg", "tests/data/images/grad16x8_rgba.webp",
        "tests/data/images/grad16x8_rgba_lossy.webp"};
    for (int k = 0; k < 5; k++) {
        void *file;
        size_t size;
        CHECK_OK(oak_read_file(files[k], &file, &size));
        if (!file) continue;
        int refused = 0;
        double t0 = now_ms();
        for (size_t cut = 0; cut < size; cut++) {
            uint32_t w, h;
            bool f;
            void *px = NULL;
            if (oak_image_load_memory(&w, &h, &f, &px, file, cut, "cut")) {
                refused++;
                CHECK(px == NULL && !strchr(oak_last_error(), '\n'));
            }
            oak_free(px);
        }
        double ms = now_ms() - t0;
        CHECK(ms < 5000);
        fprintf(stderr, "  %s: %d of %zu cuts refused, the rest decoded, in %.1f ms\n", files[k],
                refused, size, ms);
        oak_free(file);
    }
}

TEST(corpusStaysInsideItsMemoryBudget) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mib = (double)ru.ru_maxrss / 1024.0;
    fprintf(stderr, "  peak resident memory %.1f MiB (budget %d MiB)\n", mib, MEMORY_BUDGET_MIB);
    CHECK(mib < MEMORY_BUDGET_MIB);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "test_input_files: blocked or spun for 60 s\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(3);
    _exit(3);
}

int main(void) {
    signal(SIGALRM, on_alarm);
    alarm(60);
    oak_engine_desc d = {.log = capture_log, .log_level = OAK_LOG_WARN, .threads = 2};
    if (oak_init(&d)) return 2;
    RUN(inputsMustBeRegularFiles);
    RUN(inputsOverTheSizeLimitAreRefusedBeforeReading);
    RUN(referencedFoldersAndFifosFail);
    RUN(pathsStayInsideTheAssetRoot);
    RUN(symbolicLinksCannotLeaveTheAssetRoot);
    RUN(badImagesFailFastInOneLine);
    RUN(goodImagesStillLoad);
    RUN(gltfImagesOakCannotReadAreLeftOut);
    RUN(hdrDecodesAsStbAndEveryCutFailsCleanly);
    RUN(webpDecodesAsItsPng);
    RUN(gltfReadsEXTTextureWebp);
    RUN(everyCutOfAGoodImageEndsCleanly);
    RUN(corpusStaysInsideItsMemoryBudget);
    oak_shutdown();
    return TEST_SUMMARY();
}
