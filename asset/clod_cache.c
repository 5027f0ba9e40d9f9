/* The cluster-LOD DAG's disk cache (docs/ARCHITECTURE.md "Cluster LOD"):
 * one file per DAG, named by a hash of its key (_oak_clod_key: the build's
 * parameters, meshoptimizer's version and the source's bytes), holding the
 * key itself, so a file loads only for the very build that made it. A
 * file that is cut short, damaged (the body's hash), made by another
 * version or for another key, or whose contents break the DAG's rules is
 * said in one warning and built again (then written over). */
#include <errno.h>
#include <fcntl.h>
#include <meshoptimizer.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clod_cache.h"
#include "core/internal.h"
#include <oak/gltf.h> /* oak_gltf_cache_checksum: the .oakm cache's hash */

#define CLOD_MAGIC "OAKCLOD\0"
/* magic[8], u32 version, u32 header size (with the key), u64 total size,
   u64 hash of everything after these 32 bytes (the key included) */
#define CLOD_HEAD 32
#define CLOD_BODY (CLOD_HEAD + sizeof(_oak_clod_key))
/* level_count, finest_index_count, index_count, meshlet count,
   vertex_total, triangle_bytes, level_first[], level_triangles[] */
#define CLOD_FIXED (4 * (6 + OAK_CLOD_MAX_LEVELS + 1 + OAK_CLOD_MAX_LEVELS))

static _Atomic uint32_t g_stats[5];

void _oak_clod_cache_count(_oak_clod_cache_outcome o, bool stored) {
    atomic_fetch_add(&g_stats[o], 1);
    if (stored) atomic_fetch_add(&g_stats[4], 1);
}

void _oak_clod_cache_stats_get(_oak_clod_cache_stats *out) {
    out->off = atomic_load(&g_stats[OAK_CLOD_CACHE_OFF]);
    out->miss = atomic_load(&g_stats[OAK_CLOD_CACHE_MISS]);
    out->hit = atomic_load(&g_stats[OAK_CLOD_CACHE_HIT]);
    out->bad = atomic_load(&g_stats[OAK_CLOD_CACHE_BAD]);
    out->stored = atomic_load(&g_stats[4]);
}

void _oak_clod_key_make(_oak_clod_key *k, float shrink, const float *positions,
                        uint32_t vertex_count, const uint32_t *indices, uint32_t index_count) {
    memset(k, 0, sizeof *k);
    k->version = OAK_CLOD_CACHE_VERSION;
    k->min_triangles = OAK_CLOD_MIN_TRIANGLES;
    k->group = OAK_CLOD_GROUP;
    k->max_levels = OAK_CLOD_MAX_LEVELS;
    k->root_triangles = OAK_CLOD_ROOT_TRIANGLES;
    k->meshlet_vertices = OAK_MESHLET_VERTICES;
    k->meshlet_triangles = OAK_MESHLET_TRIANGLES;
    k->meshopt_version = MESHOPTIMIZER_VERSION;
    k->meshlet_bytes = sizeof(oak_meshlet);
    k->cone_weight = OAK_MESHLET_CONE_WEIGHT;
    k->shrink = shrink;
    k->vertex_count = vertex_count;
    k->has_indices = indices != NULL;
    k->index_count = indices ? index_count : vertex_count;
    k->positions_hash = oak_gltf_cache_checksum(positions, (size_t)vertex_count * 12);
    k->indices_hash = indices ? oak_gltf_cache_checksum(indices, (size_t)index_count * 4) : 0;
}

bool _oak_clod_cache_path(const _oak_clod_key *k, char *out, size_t size) {
    const char *off = getenv("OAK_CLOD_CACHE");
    if (off && !strcmp(off, "off")) return false;
    char dir[1024];
    if (!_oak_cache_dir(dir, sizeof dir)) return false;
    /* the name is a hash of the whole key; the file's copy of the key
       settles a clash of names */
    uint64_t h = oak_gltf_cache_checksum(k, sizeof *k);
    int n = snprintf(out, size, "%s/clod-%016llx.bin", dir, (unsigned long long)h);
    return n > 0 && (size_t)n < size;
}

static void put32(uint8_t *p, uint32_t v) {
    memcpy(p, &v, 4);
}
static uint32_t get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

bool _oak_clod_cache_store(const oak_clod *c, const _oak_clod_key *k, const char *path) {
    const oak_meshlets *m = &c->meshlets;
    size_t body[4] = {(size_t)m->count * sizeof(oak_meshlet), (size_t)m->vertex_total * 4,
                      m->triangle_bytes, (size_t)c->index_count * 4};
    size_t total = CLOD_BODY + CLOD_FIXED + body[0] + body[1] + body[2] + body[3];
    uint8_t *buf = oak_calloc(1, total);
    if (!buf) return false;
    memcpy(buf, CLOD_MAGIC, 8);
    put32(buf + 8, OAK_CLOD_CACHE_VERSION);
    put32(buf + 12, (uint32_t)CLOD_BODY);
    uint64_t t64 = total;
    memcpy(buf + 16, &t64, 8);
    memcpy(buf + CLOD_HEAD, k, sizeof *k);
    uint8_t *p = buf + CLOD_BODY;
    const uint32_t fixed[6] = {c->level_count, c->finest_index_count, c->index_count,
                               m->count,       m->vertex_total,       m->triangle_bytes};
    memcpy(p, fixed, sizeof fixed);
    p += sizeof fixed;
    memcpy(p, c->level_first, sizeof c->level_first);
    p += sizeof c->level_first;
    memcpy(p, c->level_triangles, sizeof c->level_triangles);
    p += sizeof c->level_triangles;
    const void *src[4] = {m->meshlets, m->vertices, m->triangles, c->indices};
    for (int i = 0; i < 4; i++) {
        if (body[i]) memcpy(p, src[i], body[i]);
        p += body[i];
    }
    uint64_t h = oak_gltf_cache_checksum(buf + CLOD_HEAD, total - CLOD_HEAD);
    memcpy(buf + 24, &h, 8);
    char tmp[1300];
    /* the process and a count: two writers of one key never share it */
    static _Atomic uint32_t serial;
    snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", path, (long)getpid(),
             (unsigned)atomic_fetch_add(&serial, 1));
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(buf, 1, total, f) == total;
    if (f && fclose(f) != 0) ok = false;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        oak_log_info("cluster LOD: the cache could not be written to %s", path);
        ok = false;
    }
    oak_free(buf);
    return ok;
}

/* Whether a file's DAG keeps the rules the build's does; what is wrong else. */
static const char *check_dag(const oak_clod *c, uint32_t vertex_count, uint32_t source_indices) {
    const oak_meshlets *m = &c->meshlets;
    if (!c->level_count || c->level_count > OAK_CLOD_MAX_LEVELS)
        return "a level count out of range";
    if (c->level_first[0] != 0 || c->level_first[c->level_count] != m->count)
        return "the levels do not cover the meshlets";
    for (uint32_t l = 0; l < c->level_count; l++)
        if (c->level_first[l] > c->level_first[l + 1]) return "the levels are out of order";
    if (c->index_count % 3 || c->finest_index_count > c->index_count ||
        c->finest_index_count != source_indices ||
        c->finest_index_count != 3 * c->level_triangles[0])
        return "the index counts do not fit the source";
    const char *bad = oak_meshlets_problem(m, vertex_count, c->index_count);
    if (bad) return bad;
    /* the index list is the meshlets' triangles in order, as built */
    size_t at = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        const oak_meshlet *o = &m->meshlets[i];
        for (uint32_t t = 0; t < 3 * o->triangle_count; t++)
            if (c->indices[at++] !=
                m->vertices[o->vertex_offset + m->triangles[o->triangle_offset + t]])
                return "the index list is not the meshlets' triangles";
    }
    return NULL;
}

_oak_clod_cache_outcome _oak_clod_cache_load(oak_clod *out, const _oak_clod_key *k,
                                             const char *path) {
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return OAK_CLOD_CACHE_MISS;
    struct stat st;
    uint8_t *buf = NULL;
    size_t size = 0;
    const char *why = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)(CLOD_BODY + CLOD_FIXED))
        why = "cut short";
    else if (!(buf = oak_alloc((size_t)st.st_size)))
        why = "no memory to read it";
    else {
        size = (size_t)st.st_size;
        size_t got = 0;
        while (got < size) {
            ssize_t n = read(fd, buf + got, size - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += (size_t)n;
        }
        if (got != size) why = "a short read";
    }
    close(fd);
    uint64_t total = 0, hash = 0;
    if (!why) {
        memcpy(&total, buf + 16, 8);
        memcpy(&hash, buf + 24, 8);
        if (memcmp(buf, CLOD_MAGIC, 8) != 0)
            why = "not a cluster-LOD cache";
        else if (get32(buf + 8) != OAK_CLOD_CACHE_VERSION || get32(buf + 12) != CLOD_BODY)
            why = "made by another version";
        else if (total != size)
            why = "cut short or grown";
        else if (oak_gltf_cache_checksum(buf + CLOD_HEAD, size - CLOD_HEAD) != hash)
            why = "its contents do not match their hash";
        else if (memcmp(buf + CLOD_HEAD, k, sizeof *k) != 0)
            why = "stale (made for another source or other parameters)";
    }
    oak_clod c = {0};
    if (!why) {
        const uint8_t *p = buf + CLOD_BODY;
        c.level_count = get32(p), c.finest_index_count = get32(p + 4), c.index_count = get32(p + 8);
        c.meshlets.count = get32(p + 12), c.meshlets.vertex_total = get32(p + 16);
        c.meshlets.triangle_bytes = get32(p + 20);
        p += 24;
        memcpy(c.level_first, p, sizeof c.level_first);
        p += sizeof c.level_first;
        memcpy(c.level_triangles, p, sizeof c.level_triangles);
        p += sizeof c.level_triangles;
        uint64_t body[4] = {(uint64_t)c.meshlets.count * sizeof(oak_meshlet),
                            (uint64_t)c.meshlets.vertex_total * 4, c.meshlets.triangle_bytes,
                            (uint64_t)c.index_count * 4};
        if (CLOD_BODY + CLOD_FIXED + body[0] + body[1] + body[2] + body[3] != size) {
            why = "its sizes do not add up to the file";
        } else {
            void *dst[4] = {0};
            for (int i = 0; i < 4 && !why; i++) {
                if (!(dst[i] = oak_alloc(body[i] ? (size_t)body[i] : 1))) why = "no memory for it";
                if (dst[i] && body[i]) memcpy(dst[i], p, (size_t)body[i]);
                p += body[i];
            }
            c.meshlets.meshlets = dst[0], c.meshlets.vertices = dst[1];
            c.meshlets.triangles = dst[2], c.indices = dst[3];
            if (!why) why = check_dag(&c, k->vertex_count, k->index_count);
        }
    }
    oak_free(buf);
    if (why) {
        oak_clod_release(&c);
        oak_log_warn("cluster LOD: cache %s: %s: built again", path, why);
        return OAK_CLOD_CACHE_BAD;
    }
    *out = c;
    return OAK_CLOD_CACHE_HIT;
}
