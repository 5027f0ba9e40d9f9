/* Wavefront OBJ loading: v/vt/vn and faces of any size (fan-triangulated,
 * negative indices relative to the end), o/g/usemtl groups giving one mesh
 * per (group, material) with vertices deduplicated by their index triple,
 * mtllib files turned into materials and textures. Geometry and MTLs are
 * read whole before any asset is made, so a malformed file leaves nothing. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "mtl.h"
#include "registry.h"

#define NO_INDEX UINT32_MAX

typedef struct part {
    char *group, *material;
    oak_map dedup;     /* hash of (v, vt, vn) -> vertex */
    uint32_t *triples; /* per vertex: v, vt, vn (NO_INDEX if absent) */
    uint32_t vertex_count, triple_cap;
    uint32_t *indices;
    uint32_t index_count, index_cap;
    bool missing_normal, any_uv;
} part;

typedef struct obj_state {
    const char *path;
    int line;
    float *v, *vt, *vn, *vc; /* vc: colours after v's xyz, or none */
    uint32_t v_count, vt_count, vn_count, v_cap, vt_cap, vn_cap, vc_cap;
    bool any_color;
    part *parts;
    uint32_t part_count, part_cap;
    oak_map part_of; /* hash of (group, material) -> part */
    char *group, *material;
    char **mtllibs;
    uint32_t mtllib_count, mtllib_cap;
    /* face scratch, reused across faces */
    uint32_t *face;
    uint32_t face_cap;
} obj_state;

static void state_release(obj_state *s) {
    oak_free(s->v);
    oak_free(s->vt);
    oak_free(s->vn);
    oak_free(s->vc);
    for (uint32_t i = 0; i < s->part_count; i++) {
        part *p = &s->parts[i];
        oak_free(p->group);
        oak_free(p->material);
        oak_map_release(&p->dedup);
        oak_free(p->triples);
        oak_free(p->indices);
    }
    oak_free(s->parts);
    oak_map_release(&s->part_of);
    oak_free(s->group);
    oak_free(s->material);
    for (uint32_t i = 0; i < s->mtllib_count; i++) oak_free(s->mtllibs[i]);
    oak_free(s->mtllibs);
    oak_free(s->face);
}

static oak_result oom(obj_state *s) {
    return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s:%d: out of memory", s->path, s->line);
}

/* The rest of the line, trimmed, as a new string ("" for none). */
static char *rest_of_line(const char *p) {
    p = _oak_obj_skip_space(p);
    size_t len = strlen(p);
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r')) len--;
    char *out = oak_alloc(len + 1);
    if (out) {
        memcpy(out, p, len);
        out[len] = 0;
    }
    return out;
}

static uint64_t part_key(const char *group, const char *material) {
    uint64_t h = oak_hash(group ? group : "", group ? strlen(group) : 0, 1);
    h = oak_hash(material ? material : "", material ? strlen(material) : 0, h);
    return h ? h : 1;
}

static oak_result current_part(obj_state *s, part **out) {
    uint64_t key = part_key(s->group, s->material);
    uint32_t at;
    if (oak_map_get(&s->part_of, key, &at)) {
        *out = &s->parts[at];
        return OAK_OK;
    }
    if (!OAK_GROW(s->parts, s->part_cap, s->part_count + 1)) return oom(s);
    part *p = &s->parts[s->part_count];
    memset(p, 0, sizeof *p);
    p->group = s->group ? oak_strdup(s->group) : NULL;
    p->material = s->material ? oak_strdup(s->material) : NULL;
    s->part_count++;
    if ((s->group && !p->group) || (s->material && !p->material)) return oom(s);
    if (oak_map_set(&s->part_of, key, s->part_count - 1)) return oom(s);
    *out = p;
    return OAK_OK;
}

/* One index of a face corner: 1-based from the start or negative from the
   end of what has been read so far. */
static oak_result parse_index(obj_state *s, const char **pp, const char *end, uint32_t count,
                              const char *what, uint32_t *out) {
    const char *p = *pp;
    if (p == end || *p == '/') {
        *out = NO_INDEX;
        return OAK_OK;
    }
    char *stop;
    errno = 0;
    long v = strtol(p, &stop, 10);
    if (stop == p || (stop != end && *stop != '/') || errno)
        return oak_error(OAK_ERROR_PARSE, "%s:%d: bad %s index '%.*s'", s->path, s->line, what,
                         (int)(end - p), p);
    long idx = v > 0 ? v - 1 : (long)count + v;
    if (v == 0 || idx < 0 || idx >= (long)count)
        return oak_error(OAK_ERROR_PARSE, "%s:%d: %s index %ld out of range (%u defined)", s->path,
                         s->line, what, v, count);
    *out = (uint32_t)idx;
    *pp = stop;
    return OAK_OK;
}

static oak_result add_corner(obj_state *s, part *p, const char *tok, const char *end,
                             uint32_t *vertex) {
    uint32_t t[3];
    const char *c = tok;
    oak_result r = parse_index(s, &c, end, s->v_count, "vertex", &t[0]);
    if (r) return r;
    if (t[0] == NO_INDEX)
        return oak_error(OAK_ERROR_PARSE, "%s:%d: face corner '%.*s' has no vertex index", s->path,
                         s->line, (int)(end - tok), tok);
    t[1] = t[2] = NO_INDEX;
    if (c < end && *c == '/') {
        c++;
        if ((r = parse_index(s, &c, end, s->vt_count, "texcoord", &t[1]))) return r;
        if (c < end && *c == '/') {
            c++;
            if ((r = parse_index(s, &c, end, s->vn_count, "normal", &t[2]))) return r;
        }
    }
    if (c != end)
        return oak_error(OAK_ERROR_PARSE, "%s:%d: bad face corner '%.*s'", s->path, s->line,
                         (int)(end - tok), tok);
    /* the map keeps only a hash; the triple is compared on a hit and a
       (vanishingly rare) collision probes the next key */
    uint64_t key = oak_hash(t, sizeof t, 0);
    for (;; key = key * 0x9E3779B97F4A7C15ull + 1) {
        if (!key) continue;
        uint32_t at;
        if (!oak_map_get(&p->dedup, key, &at)) break;
        if (memcmp(p->triples + 3 * at, t, sizeof t) == 0) {
            *vertex = at;
            return OAK_OK;
        }
    }
    if (p->vertex_count == UINT32_MAX / 3)
        return oak_error(OAK_ERROR_LIMIT, "%s:%d: too many vertices", s->path, s->line);
    if (!oak_grow((void **)&p->triples, &p->triple_cap, 3 * (p->vertex_count + 1),
                  sizeof(uint32_t)))
        return oom(s);
    memcpy(p->triples + 3 * p->vertex_count, t, sizeof t);
    if (oak_map_set(&p->dedup, key, p->vertex_count)) return oom(s);
    if (t[2] == NO_INDEX) p->missing_normal = true;
    if (t[1] != NO_INDEX) p->any_uv = true;
    *vertex = p->vertex_count++;
    return OAK_OK;
}

static oak_result parse_face(obj_state *s, const char *p) {
    part *pt = NULL;
    oak_result r = current_part(s, &pt);
    if (r) return r;
    uint32_t n = 0;
    for (;;) {
        p = _oak_obj_skip_space(p);
        if (!*p || *p == '#') break;
        const char *end = _oak_obj_token_end(p);
        /* A fan of slivers as wide as the polygon: a frame's cost grows with
           corners times the polygon's screen area, so corners are bounded. */
        if (n == OAK_MAX_POLYGON_CORNERS)
            return oak_error(OAK_ERROR_LIMIT,
                             "%s:%d: face has more than OAK_MAX_POLYGON_CORNERS (%d) corners",
                             s->path, s->line, OAK_MAX_POLYGON_CORNERS);
        if (!OAK_GROW(s->face, s->face_cap, n + 1)) return oom(s);
        if ((r = add_corner(s, pt, p, end, &s->face[n]))) return r;
        n++;
        p = end;
    }
    if (n < 3)
        return oak_error(OAK_ERROR_PARSE, "%s:%d: face with %u vert%s, needs at least 3", s->path,
                         s->line, n, n == 1 ? "ex" : "ices");
    uint32_t need = pt->index_count + 3 * (n - 2);
    if (need < pt->index_count)
        return oak_error(OAK_ERROR_LIMIT, "%s:%d: too many faces", s->path, s->line);
    if (!OAK_GROW(pt->indices, pt->index_cap, need)) return oom(s);
    for (uint32_t i = 1; i + 1 < n; i++) { /* a fan keeps the polygon's winding */
        pt->indices[pt->index_count++] = s->face[0];
        pt->indices[pt->index_count++] = s->face[i];
        pt->indices[pt->index_count++] = s->face[i + 1];
    }
    return OAK_OK;
}

static oak_result parse_numbers(obj_state *s, const char *p, float *out, int need, int max,
                                const char *key, int *got) {
    int n = 0;
    float v;
    while (n < max && _oak_obj_float(&p, &v)) out[n++] = v;
    p = _oak_obj_skip_space(p);
    if (*p && *p != '#') {
        const char *e = _oak_obj_token_end(p);
        return oak_error(OAK_ERROR_PARSE, "%s:%d: bad number '%.*s' in %s", s->path, s->line,
                         (int)(e - p), p, key);
    }
    if (n < need)
        return oak_error(OAK_ERROR_PARSE, "%s:%d: %s needs %d numbers, got %d", s->path, s->line,
                         key, need, n);
    *got = n;
    return OAK_OK;
}

static oak_result parse_obj(obj_state *s, char *text) {
    oak_result r = OAK_OK;
    char *c = text;
    while (*c && !r) {
        s->line++;
        char *eol = strchr(c, '\n');
        char *next = eol ? eol + 1 : c + strlen(c);
        if (eol) *eol = 0;
        const char *p = _oak_obj_skip_space(c);
        const char *kend = _oak_obj_token_end(p);
        size_t klen = (size_t)(kend - p);
        c = next;
        if (!klen || *p == '#') continue;
#define KEY(k) (klen == strlen(k) && strncmp(p, k, klen) == 0)
        float f[7];
        int got;
        if (KEY("v")) {
            if ((r = parse_numbers(s, kend, f, 3, 7, "v", &got))) break;
            if (got != 3 && got != 4 && got != 6 && got != 7) {
                r = oak_error(OAK_ERROR_PARSE, "%s:%d: v has %d numbers (3, 4 or 6 expected)",
                              s->path, s->line, got);
                break;
            }
            if (s->v_count == UINT32_MAX / 4 || !OAK_GROW(s->v, s->v_cap, 3 * (s->v_count + 1)) ||
                !OAK_GROW(s->vc, s->vc_cap, 4 * (s->v_count + 1))) {
                r = oom(s);
                break;
            }
            memcpy(s->v + 3 * s->v_count, f, 3 * sizeof(float));
            float *col = s->vc + 4 * s->v_count;
            col[0] = col[1] = col[2] = col[3] = 1.0f;
            if (got >= 6) { /* the common "x y z r g b" extension */
                int o = got == 7 ? 4 : 3;
                memcpy(col, f + o, 3 * sizeof(float));
                s->any_color = true;
            }
            s->v_count++;
        } else if (KEY("vt")) {
            if ((r = parse_numbers(s, kend, f, 1, 3, "vt", &got))) break;
            if (s->vt_count == UINT32_MAX / 4 ||
                !OAK_GROW(s->vt, s->vt_cap, 2 * (s->vt_count + 1))) {
                r = oom(s);
                break;
            }
            /* OBJ's v runs up the image, glTF's (and oak's) down it */
            s->vt[2 * s->vt_count] = f[0];
            s->vt[2 * s->vt_count + 1] = 1.0f - (got > 1 ? f[1] : 0.0f);
            s->vt_count++;
        } else if (KEY("vn")) {
            if ((r = parse_numbers(s, kend, f, 3, 3, "vn", &got))) break;
            if (s->vn_count == UINT32_MAX / 4 ||
                !OAK_GROW(s->vn, s->vn_cap, 3 * (s->vn_count + 1))) {
                r = oom(s);
                break;
            }
            float len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
            if (len > 0)
                for (int k = 0; k < 3; k++) f[k] /= len;
            memcpy(s->vn + 3 * s->vn_count, f, 3 * sizeof(float));
            s->vn_count++;
        } else if (KEY("f")) {
            r = parse_face(s, kend);
        } else if (KEY("o") || KEY("g")) {
            oak_free(s->group);
            s->group = rest_of_line(kend);
            if (!s->group) r = oom(s);
        } else if (KEY("usemtl")) {
            oak_free(s->material);
            s->material = rest_of_line(kend);
            if (!s->material) r = oom(s);
        } else if (KEY("mtllib")) {
            /* several files may follow on one line */
            const char *q = kend;
            for (;;) {
                q = _oak_obj_skip_space(q);
                if (!*q || *q == '#') break;
                const char *e = _oak_obj_token_end(q);
                char rel[1024], full[2048];
                snprintf(rel, sizeof rel, "%.*s", (int)(e - q), q);
                oak_path_join_dir(full, sizeof full, s->path, rel);
                if (!OAK_GROW(s->mtllibs, s->mtllib_cap, s->mtllib_count + 1) ||
                    !(s->mtllibs[s->mtllib_count] = oak_strdup(full))) {
                    r = oom(s);
                    break;
                }
                s->mtllib_count++;
                q = e;
            }
        }
        /* s, l, p, vp, curves and the rest carry nothing oak draws */
#undef KEY
    }
    return r;
}

/* ---- turning what was read into registry assets ------------------------- */

/* Loads a texture for a material; a file that cannot be read is a warning. */
static oak_texture texture_or_warn(const char *obj, const char *mtl, const char *file,
                                   oak_format format) {
    oak_texture t = {0};
    if (access(file, F_OK)) { /* not fopen: a FIFO would block it */
        oak_log_warn("%s: material '%s': texture %s not found, left out", obj, mtl, file);
        return t;
    }
    if (oak_load_texture(&t, file, format) != OAK_OK) {
        oak_log_warn("%s: material '%s': texture %s unreadable, left out", obj, mtl, file);
        t.id = 0;
    }
    return t;
}

/* Builds an RGBA8 texture from channels of other images: dst channel c takes
   channel from[c] of image src[c] (NULL: fill[c]). All images must agree in
   size; used for map_Pr/map_Pm (glTF packs roughness in G, metallic in B)
   and for a map_d that is not map_Kd's own alpha. */
static oak_texture pack_channels(const char *obj, const char *mtl, const char *src[4],
                                 const int from[4], const uint8_t fill[4], oak_format format) {
    oak_texture t = {0};
    uint8_t *img[4] = {0};
    uint32_t w = 0, h = 0;
    bool ok = true;
    for (int c = 0; c < 4 && ok; c++) {
        if (!src[c]) continue;
        for (int k = 0; k < c; k++)
            if (src[k] && strcmp(src[k], src[c]) == 0) img[c] = img[k];
        if (img[c]) continue;
        if (access(src[c], F_OK)) {
            oak_log_warn("%s: material '%s': texture %s not found, left out", obj, mtl, src[c]);
            ok = false;
            break;
        }
        uint32_t iw, ih;
        bool is_float;
        void *px;
        if (oak_image_load(src[c], &iw, &ih, &is_float, &px) || is_float) {
            if (!is_float) px = NULL;
            oak_free(px);
            oak_log_warn("%s: material '%s': texture %s unreadable, left out", obj, mtl, src[c]);
            ok = false;
            break;
        }
        img[c] = px;
        if (w && (iw != w || ih != h)) {
            oak_log_warn("%s: material '%s': %s is %ux%u, not %ux%u like its partner; left out",
                         obj, mtl, src[c], iw, ih, w, h);
            ok = false;
        }
        w = iw, h = ih;
    }
    uint8_t *out = ok && w ? oak_alloc((size_t)w * h * 4) : NULL;
    if (out) {
        for (size_t i = 0; i < (size_t)w * h; i++)
            for (int c = 0; c < 4; c++) out[4 * i + c] = img[c] ? img[c][4 * i + from[c]] : fill[c];
        char name[512];
        snprintf(name, sizeof name, "%s#%s", obj, mtl);
        oak_texture_desc d = {w, h, format, out, false, name};
        if (oak_make_texture(&t, &d)) t.id = 0;
    }
    oak_free(out);
    for (int c = 0; c < 4; c++) {
        bool shared = false;
        for (int k = 0; k < c; k++) shared |= img[k] == img[c];
        if (!shared) oak_free(img[c]);
    }
    return t;
}

static oak_result make_material(oak_material *out, const char *obj, const _oak_mtl *m) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.name = m->name;
    memcpy(d.base_color, m->kd, sizeof m->kd);
    d.base_color[3] = m->d < 0 ? 0 : (m->d > 1 ? 1 : m->d);
    if (d.base_color[3] < 1) d.alpha_mode = OAK_ALPHA_BLEND;
    /* OBJ materials are dielectrics unless Pm says otherwise; without Pr the
       Blinn-Phong exponent maps to GGX alpha = sqrt(2 / (Ns + 2)), and
       roughness is the square root of alpha */
    d.metallic = m->has_pm ? m->pm : 0.0f;
    d.roughness =
        m->has_pr ? m->pr : (m->has_ns ? sqrtf(sqrtf(2.0f / (fmaxf(m->ns, 0) + 2.0f))) : 1.0f);
    memcpy(d.emissive, m->ke, sizeof m->ke);
    d.normal_scale = m->bump_scale;
    if (m->map_kd)
        d.base_color_tex.texture = texture_or_warn(obj, m->name, m->map_kd, OAK_FORMAT_RGBA8_SRGB);
    if (m->map_d) {
        d.alpha_mode = OAK_ALPHA_MASK;
        if (!m->map_kd || strcmp(m->map_kd, m->map_d) != 0) {
            /* a separate opacity map becomes the base colour's alpha */
            const char *src[4] = {m->map_kd, m->map_kd, m->map_kd, m->map_d};
            const int from[4] = {0, 1, 2, 0};
            const uint8_t fill[4] = {255, 255, 255, 255};
            oak_texture t = pack_channels(obj, m->name, src, from, fill, OAK_FORMAT_RGBA8_SRGB);
            if (t.id) d.base_color_tex.texture = t;
        }
    }
    if (m->map_ke) {
        d.emissive_tex.texture = texture_or_warn(obj, m->name, m->map_ke, OAK_FORMAT_RGBA8_SRGB);
        if (d.emissive_tex.texture.id && !d.emissive[0] && !d.emissive[1] && !d.emissive[2])
            d.emissive[0] = d.emissive[1] = d.emissive[2] = 1.0f;
    }
    if (m->map_bump)
        d.normal_tex.texture = texture_or_warn(obj, m->name, m->map_bump, OAK_FORMAT_RGBA8);
    if (m->map_pr || m->map_pm) {
        const char *src[4] = {NULL, m->map_pr, m->map_pm, NULL};
        const int from[4] = {0, 0, 0, 0};
        const uint8_t fill[4] = {255, 255, 255, 255};
        d.metallic_roughness_tex.texture =
            pack_channels(obj, m->name, src, from, fill, OAK_FORMAT_RGBA8);
        if (d.metallic_roughness_tex.texture.id) {
            if (m->map_pr && !m->has_pr) d.roughness = 1.0f;
            if (m->map_pm && !m->has_pm) d.metallic = 1.0f;
        }
    }
    return oak_make_material(out, &d);
}

static oak_result make_mesh(oak_mesh *out, const obj_state *s, const part *p, const char *name) {
    size_t n = p->vertex_count;
    float *pos = oak_alloc(n * 3 * sizeof(float));
    float *nrm = p->missing_normal ? NULL : oak_alloc(n * 3 * sizeof(float));
    float *uv = p->any_uv ? oak_calloc(n * 2, sizeof(float)) : NULL;
    float *col = s->any_color ? oak_alloc(n * 4 * sizeof(float)) : NULL;
    oak_result r = OAK_OK;
    if (!pos || (!p->missing_normal && !nrm) || (p->any_uv && !uv) || (s->any_color && !col)) {
        r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory for mesh '%s'", s->path, name);
    } else {
        for (size_t i = 0; i < n; i++) {
            const uint32_t *t = p->triples + 3 * i;
            memcpy(pos + 3 * i, s->v + 3 * t[0], 3 * sizeof(float));
            if (nrm) memcpy(nrm + 3 * i, s->vn + 3 * t[2], 3 * sizeof(float));
            if (uv && t[1] != NO_INDEX) memcpy(uv + 2 * i, s->vt + 2 * t[1], 2 * sizeof(float));
            if (col) memcpy(col + 4 * i, s->vc + 4 * t[0], 4 * sizeof(float));
        }
        oak_mesh_desc d = {.vertex_count = p->vertex_count,
                           .index_count = p->index_count,
                           .positions = pos,
                           .normals = nrm,
                           .uv0 = uv,
                           .colors = col,
                           .indices = p->indices,
                           .name = name};
        r = oak_make_mesh(out, &d);
    }
    oak_free(pos);
    oak_free(nrm);
    oak_free(uv);
    oak_free(col);
    return r;
}

static void undo(oak_model *m) {
    for (uint32_t i = 0; i < m->mesh_count; i++) oak_destroy_mesh(m->meshes[i]);
    for (uint32_t i = 0; i < m->material_count; i++) oak_destroy_material(m->materials[i]);
    oak_model_release(m);
}

/* The folder references must stay in: the caller's root, else the OBJ's own. */
static void asset_root(char *out, size_t size, const oak_obj_desc *desc, const char *path) {
    const char *slash = strrchr(path, '/');
    if (desc && desc->asset_root)
        snprintf(out, size, "%s", desc->asset_root);
    else if (!slash)
        snprintf(out, size, ".");
    else
        snprintf(out, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* Texture paths outside the asset root are left out with a warning, as
   unreadable textures are; missing ones stay for the "not found" warning. */
static void confine_maps(_oak_mtl_list *mtls, const char *root, const char *obj) {
    for (uint32_t i = 0; i < mtls->count; i++) {
        _oak_mtl *m = &mtls->items[i];
        char **maps[] = {&m->map_kd, &m->map_ke, &m->map_bump, &m->map_d, &m->map_pr, &m->map_pm};
        for (size_t k = 0; k < sizeof maps / sizeof maps[0]; k++) {
            if (!*maps[k]) continue;
            char full[4096];
            _oak_error_quiet(true); /* a warning, not an error */
            oak_result r = oak_path_confine(full, sizeof full, root, NULL, *maps[k]);
            _oak_error_quiet(false);
            if (r == OAK_OK || r == OAK_ERROR_NOT_FOUND) continue;
            oak_log_warn("%s: material '%s': texture %s, left out", obj, m->name, oak_last_error());
            oak_free(*maps[k]);
            *maps[k] = NULL;
        }
    }
}

oak_result oak_load_obj(oak_model *out, const char *path) {
    return oak_load_obj_with(out, path, NULL);
}

oak_result oak_load_obj_with(oak_model *out, const char *path, const oak_obj_desc *desc) {
    memset(out, 0, sizeof *out);
    if (!path) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "load obj: no path given");
    oak_result r = oak_asset_root_check(desc ? desc->asset_root : NULL);
    if (r) return r;
    char root[4096];
    asset_root(root, sizeof root, desc, path);
    char *text;
    size_t size;
    r = oak_read_file(path, (void **)&text, &size);
    if (r) return r;
    if (memchr(text, 0, size)) {
        oak_free(text);
        return oak_error(OAK_ERROR_PARSE, "%s: binary data (a NUL byte), not an OBJ file", path);
    }
    obj_state s = {0};
    s.path = path;
    r = parse_obj(&s, text);
    oak_free(text);
    _oak_mtl_list mtls = {0};
    for (uint32_t i = 0; i < s.mtllib_count && !r; i++) {
        char full[4096], why[512];
        _oak_error_quiet(true); /* missing is a warning; the rest is reported below */
        oak_result mr = oak_path_confine(full, sizeof full, root, NULL, s.mtllibs[i]);
        _oak_error_quiet(false);
        if (mr == OAK_ERROR_NOT_FOUND) {
            oak_log_warn("%s: material library %s not found; default materials used", path,
                         s.mtllibs[i]);
        } else if (mr) {
            snprintf(why, sizeof why, "%s", oak_last_error());
            r = oak_error(mr, "%s: mtllib %s", path, why);
        } else if ((r = _oak_mtl_parse(&mtls, full)) == OAK_ERROR_IO) {
            snprintf(why, sizeof why, "%s", oak_last_error()); /* a folder, a FIFO */
            r = oak_error(r, "%s: mtllib %s", path, why);
        }
    }
    if (!r) confine_maps(&mtls, root, path);
    uint64_t faces = 0;
    for (uint32_t i = 0; i < s.part_count; i++) faces += s.parts[i].index_count;
    if (!r && !faces) r = oak_error(OAK_ERROR_PARSE, "%s: no faces", path);
    if (r) {
        _oak_mtl_list_release(&mtls);
        state_release(&s);
        return r;
    }

    /* materials: every MTL entry, plus one default for parts without */
    oak_model m = {0};
    m.materials = oak_calloc(mtls.count + 1, sizeof(oak_material));
    m.meshes = oak_calloc(s.part_count, sizeof(oak_mesh));
    m.mesh_materials = oak_calloc(s.part_count, sizeof(oak_material));
    if (!m.materials || !m.meshes || !m.mesh_materials) r = oom(&s);
    for (uint32_t i = 0; i < mtls.count && !r; i++) {
        r = make_material(&m.materials[m.material_count], path, &mtls.items[i]);
        if (!r) m.material_count++;
    }
    oak_material fallback = {0};
    bool warned_unknown = false;
    oak_bounds_empty(&m.bounds);
    for (uint32_t i = 0; i < s.part_count && !r; i++) {
        const part *p = &s.parts[i];
        if (!p->index_count) continue;
        oak_material mat = {0};
        for (uint32_t k = 0; k < mtls.count && p->material; k++)
            if (strcmp(mtls.items[k].name, p->material) == 0) mat = m.materials[k];
        if (!mat.id) {
            if (p->material && !warned_unknown && mtls.count) {
                oak_log_warn("%s: material '%s' is not in its MTL files; default used", path,
                             p->material);
                warned_unknown = true;
            }
            if (!fallback.id) {
                _oak_mtl def = {.name = "default", .kd = {1, 1, 1}, .d = 1, .bump_scale = 1};
                r = make_material(&fallback, path, &def);
                if (r) break;
                m.materials[m.material_count++] = fallback;
            }
            mat = fallback;
        }
        char name[256];
        snprintf(name, sizeof name, "%s", p->group && p->group[0] ? p->group : "obj");
        r = make_mesh(&m.meshes[m.mesh_count], &s, p, name);
        if (r) break;
        oak_mesh_set_source(m.meshes[m.mesh_count], path, m.mesh_count);
        m.mesh_materials[m.mesh_count] = mat;
        const oak_bounds *b = &oak_mesh_get(m.meshes[m.mesh_count])->bounds;
        oak_bounds_add(&m.bounds, b->min);
        oak_bounds_add(&m.bounds, b->max);
        m.mesh_count++;
    }
    oak_bounds_finish(&m.bounds);
    _oak_mtl_list_release(&mtls);
    state_release(&s);
    if (r) {
        undo(&m);
        return r;
    }
    *out = m;
    return OAK_OK;
}
