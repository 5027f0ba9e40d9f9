/* Wavefront MTL reading: newmtl blocks with Kd Ks Ke Ns d Tr Pr Pm Ni and the
 * map_Kd map_Ke map_Bump/bump/norm map_d map_Pr map_Pm textures (options such
 * as -bm are read or skipped); texture paths are relative to the MTL file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtl.h"

const char *_oak_obj_skip_space(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    return s;
}

const char *_oak_obj_token_end(const char *s) {
    while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') s++;
    return s;
}

bool _oak_obj_float(const char **s, float *out) {
    const char *p = _oak_obj_skip_space(*s);
    const char *end = _oak_obj_token_end(p);
    if (end == p) return false;
    char *stop;
    float v = strtof(p, &stop);
    if (stop != end || !isfinite(v)) return false;
    *out = v;
    *s = end;
    return true;
}

void _oak_mtl_list_release(_oak_mtl_list *list) {
    for (uint32_t i = 0; i < list->count; i++) {
        _oak_mtl *m = &list->items[i];
        oak_free(m->name);
        oak_free(m->map_kd);
        oak_free(m->map_ke);
        oak_free(m->map_bump);
        oak_free(m->map_d);
        oak_free(m->map_pr);
        oak_free(m->map_pm);
    }
    oak_free(list->items);
    memset(list, 0, sizeof *list);
}

/* Options a map line may carry before its file name, with their argument
   counts (the MTL spec's list); -bm is read, the rest skipped. */
static int option_args(const char *opt, size_t len) {
    static const struct {
        const char *name;
        int args;
    } opts[] = {{"-blendu", 1}, {"-blendv", 1}, {"-boost", 1},   {"-mm", 2},
                {"-o", 3},      {"-s", 3},      {"-t", 3},       {"-texres", 1},
                {"-clamp", 1},  {"-bm", 1},     {"-imfchan", 1}, {"-type", 1}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (strlen(opts[i].name) == len && memcmp(opts[i].name, opt, len) == 0) return opts[i].args;
    return -1;
}

/* A map line's file: after its options, the rest of the line (names may hold
   spaces), joined with the MTL's folder. */
static oak_result map_path(char **out, float *bump_scale, const char *s, const char *path,
                           int line) {
    for (;;) {
        s = _oak_obj_skip_space(s);
        if (*s != '-') break;
        const char *end = _oak_obj_token_end(s);
        int args = option_args(s, (size_t)(end - s));
        if (args < 0)
            return oak_error(OAK_ERROR_PARSE, "%s:%d: unknown texture option '%.*s'", path, line,
                             (int)(end - s), s);
        bool bm = (end - s) == 3 && memcmp(s, "-bm", 3) == 0;
        s = end;
        for (int a = 0; a < args; a++) {
            s = _oak_obj_skip_space(s);
            const char *e = _oak_obj_token_end(s);
            if (e == s)
                return oak_error(OAK_ERROR_PARSE, "%s:%d: texture option is missing its value",
                                 path, line);
            if (bm && bump_scale) {
                const char *p = s;
                if (!_oak_obj_float(&p, bump_scale))
                    return oak_error(OAK_ERROR_PARSE, "%s:%d: bad number after -bm", path, line);
            }
            s = e;
        }
    }
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) len--;
    if (!len) return oak_error(OAK_ERROR_PARSE, "%s:%d: texture map has no file name", path, line);
    char rel[1024], full[2048];
    if (len >= sizeof rel)
        return oak_error(OAK_ERROR_PARSE, "%s:%d: texture file name too long", path, line);
    memcpy(rel, s, len);
    rel[len] = 0;
    for (char *c = rel; *c; c++)
        if (*c == '\\') *c = '/'; /* files written on Windows */
    oak_path_join_dir(full, sizeof full, path, rel);
    oak_free(*out);
    *out = oak_strdup(full);
    return *out ? OAK_OK : OAK_ERROR_OUT_OF_MEMORY;
}

static oak_result read_floats(float *out, int need, int max, const char *s, const char *path,
                              int line, const char *key) {
    int n = 0;
    float v;
    while (n < max && _oak_obj_float(&s, &v)) out[n++] = v;
    s = _oak_obj_skip_space(s);
    if (*s && *s != '#' && n < max) {
        const char *e = _oak_obj_token_end(s);
        return oak_error(OAK_ERROR_PARSE, "%s:%d: bad number '%.*s' in %s", path, line,
                         (int)(e - s), s, key);
    }
    if (n < need || (n == 2 && max == 3) || (*s && *s != '#'))
        return oak_error(OAK_ERROR_PARSE, "%s:%d: %s needs %d number%s", path, line, key, need,
                         need > 1 ? "s" : "");
    if (n == 1 && max == 3) out[1] = out[2] = out[0]; /* "Kd 0.5" is grey */
    return OAK_OK;
}

oak_result _oak_mtl_parse(_oak_mtl_list *list, const char *path) {
    char *text;
    size_t size;
    oak_result r = oak_read_file(path, (void **)&text, &size);
    if (r) return r;
    _oak_mtl *cur = NULL;
    int line = 0;
    char *s = text;
    while (*s && !r) {
        line++;
        char *eol = strchr(s, '\n');
        char *next = eol ? eol + 1 : s + strlen(s);
        if (eol) *eol = 0;
        const char *p = _oak_obj_skip_space(s);
        const char *kend = _oak_obj_token_end(p);
        size_t klen = (size_t)(kend - p);
        s = next;
        if (!klen || *p == '#') continue;
#define KEY(k) (klen == strlen(k) && strncmp(p, k, klen) == 0)
        if (KEY("newmtl")) {
            const char *n = _oak_obj_skip_space(kend);
            size_t len = strlen(n);
            while (len && (n[len - 1] == ' ' || n[len - 1] == '\t' || n[len - 1] == '\r')) len--;
            if (!len) {
                r = oak_error(OAK_ERROR_PARSE, "%s:%d: newmtl without a name", path, line);
                break;
            }
            if (!OAK_GROW(list->items, list->capacity, list->count + 1)) {
                r = OAK_ERROR_OUT_OF_MEMORY;
                break;
            }
            cur = &list->items[list->count++];
            memset(cur, 0, sizeof *cur);
            cur->name = oak_alloc(len + 1);
            if (!cur->name) {
                r = OAK_ERROR_OUT_OF_MEMORY;
                break;
            }
            memcpy(cur->name, n, len);
            cur->name[len] = 0;
            for (int i = 0; i < 3; i++) cur->kd[i] = 1.0f;
            cur->d = 1.0f;
            cur->ni = 1.5f;
            cur->bump_scale = 1.0f;
            continue;
        }
        bool known = KEY("Kd") || KEY("Ks") || KEY("Ke") || KEY("Ka") || KEY("Ns") || KEY("d") ||
                     KEY("Tr") || KEY("Pr") || KEY("Pm") || KEY("Ni") || KEY("map_Kd") ||
                     KEY("map_Ke") || KEY("map_Bump") || KEY("map_bump") || KEY("bump") ||
                     KEY("norm") || KEY("map_d") || KEY("map_Pr") || KEY("map_Pm");
        if (!known) continue; /* illum, Tf, map_Ka, PBR extras oak has no slot for */
        if (!cur) {
            r = oak_error(OAK_ERROR_PARSE, "%s:%d: '%.*s' before any newmtl", path, line, (int)klen,
                          p);
            break;
        }
        float v[3];
        char key[16];
        snprintf(key, sizeof key, "%.*s", (int)klen, p);
        if (KEY("Kd") || KEY("Ks") || KEY("Ke") || KEY("Ka")) {
            if (!(r = read_floats(v, 1, 3, kend, path, line, key))) {
                float *dst = KEY("Kd") ? cur->kd : KEY("Ks") ? cur->ks : KEY("Ke") ? cur->ke : NULL;
                if (dst) memcpy(dst, v, sizeof v);
            }
        } else if (KEY("Ns") || KEY("d") || KEY("Tr") || KEY("Pr") || KEY("Pm") || KEY("Ni")) {
            if (!(r = read_floats(v, 1, 1, kend, path, line, key))) {
                if (KEY("Ns")) cur->ns = v[0], cur->has_ns = true;
                if (KEY("d")) cur->d = v[0];
                if (KEY("Tr")) cur->d = 1.0f - v[0];
                if (KEY("Pr")) cur->pr = v[0], cur->has_pr = true;
                if (KEY("Pm")) cur->pm = v[0], cur->has_pm = true;
                if (KEY("Ni")) cur->ni = v[0];
            }
        } else if (KEY("map_Kd")) {
            r = map_path(&cur->map_kd, NULL, kend, path, line);
        } else if (KEY("map_Ke")) {
            r = map_path(&cur->map_ke, NULL, kend, path, line);
        } else if (KEY("map_d")) {
            r = map_path(&cur->map_d, NULL, kend, path, line);
        } else if (KEY("map_Pr")) {
            r = map_path(&cur->map_pr, NULL, kend, path, line);
        } else if (KEY("map_Pm")) {
            r = map_path(&cur->map_pm, NULL, kend, path, line);
        } else {
            r = map_path(&cur->map_bump, &cur->bump_scale, kend, path, line);
        }
#undef KEY
    }
    oak_free(text);
    return r;
}
