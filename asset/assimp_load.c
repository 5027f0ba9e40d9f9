/* FBX, Collada, OBJ and the other formats Debian's libassimp reads, turned
 * into the same model glTF files load into (oak_gltf): nodes with TRS,
 * meshes with every stream, materials with their textures, skins and clips,
 * cameras and lamps. From there the model takes glTF's path unchanged:
 * validation, registry assets, instances, animation and the .oakm cache. */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "core/internal.h"
#include "gltf_internal.h"

/* What assimp opens for oak (by the file name's extension). */
static const char *const k_exts[] = {"fbx", "dae", "obj", "3ds",  "blend", "x",   "ply",
                                     "stl", "lwo", "ase", "ms3d", "b3d",   "off", "ac"};

bool _oak_assimp_handles(const char *name) {
    const char *dot = name ? strrchr(name, '.') : NULL;
    if (!dot || strchr(dot, '/')) return false;
    for (size_t i = 0; i < sizeof k_exts / sizeof k_exts[0]; i++) {
        const char *a = dot + 1, *b = k_exts[i];
        while (*a && *b && (*a | 0x20) == *b) a++, b++;
        if (!*a && !*b) return true;
    }
    return false;
}

typedef struct ai_ctx {
    gltf_ctx *c;
    const struct aiScene *s;
    const struct aiNode **nodes; /* oak node i is nodes[i], parents first */
    uint32_t node_count;
    char (*image_paths)[256]; /* distinct texture paths, image i */
    uint32_t image_count, image_cap;
} ai_ctx;

static int32_t node_named(const ai_ctx *a, const char *name) {
    for (uint32_t i = 0; i < a->node_count; i++)
        if (strcmp(a->nodes[i]->mName.data, name) == 0) return (int32_t)i;
    return -1;
}

/* assimp's matrices are row-major (a1..a4 the first row); oak's column-major */
static void mat_cols(const struct aiMatrix4x4 *m, float *out) {
    const float rows[4][4] = {{m->a1, m->a2, m->a3, m->a4},
                              {m->b1, m->b2, m->b3, m->b4},
                              {m->c1, m->c2, m->c3, m->c4},
                              {m->d1, m->d2, m->d3, m->d4}};
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) out[col * 4 + row] = rows[row][col];
}

static oak_result load_nodes(ai_ctx *a) {
    gltf_ctx *c = a->c;
    oak_gltf *g = c->g;
    /* count, then walk breadth first so parents come before children */
    uint32_t n = 0, cap = 1024;
    const struct aiNode **q = _oak_gltf_scratch(c, sizeof *q * cap);
    if (!q) return _oak_gltf_oom(c);
    q[n++] = a->s->mRootNode;
    for (uint32_t head = 0; head < n; head++) {
        const struct aiNode *nd = q[head];
        if (n + nd->mNumChildren > cap) {
            uint32_t nc = (n + nd->mNumChildren) * 2;
            const struct aiNode **nq = _oak_gltf_scratch(c, sizeof *q * nc);
            if (!nq) return _oak_gltf_oom(c);
            memcpy(nq, q, sizeof *q * n);
            q = nq, cap = nc;
        }
        for (uint32_t k = 0; k < nd->mNumChildren; k++) q[n++] = nd->mChildren[k];
    }
    a->nodes = q;
    a->node_count = g->node_count = n;
    g->nodes = _oak_gltf_alloc(c, sizeof(oak_gltf_node) * n);
    if (!g->nodes) return _oak_gltf_oom(c);
    for (uint32_t i = 0; i < n; i++) g->nodes[i].parent = -1;
    uint32_t next = 1; /* the children of node i are next..next+count in BFS order */
    for (uint32_t i = 0; i < n; i++) {
        const struct aiNode *nd = q[i];
        oak_gltf_node *o = &g->nodes[i];
        o->name = _oak_gltf_strdup(c, nd->mName.data);
        o->mesh = o->skin = o->camera = o->light = -1;
        o->visible = true;
        o->child_count = nd->mNumChildren;
        o->children = _oak_gltf_alloc(c, sizeof(uint32_t) * (nd->mNumChildren + 1));
        if (!o->name || !o->children) return _oak_gltf_oom(c);
        for (uint32_t k = 0; k < nd->mNumChildren; k++) {
            o->children[k] = next + k;
            g->nodes[next + k].parent = (int32_t)i;
        }
        next += nd->mNumChildren;
        struct aiVector3D sc, pos;
        struct aiQuaternion rot;
        aiDecomposeMatrix(&nd->mTransformation, &sc, &rot, &pos);
        float t[10] = {pos.x, pos.y, pos.z, rot.x, rot.y, rot.z, rot.w, sc.x, sc.y, sc.z};
        for (int k = 0; k < 10; k++)
            if (!isfinite(t[k]))
                return oak_error(OAK_ERROR_PARSE, "%s: node \"%.64s\" has a non-finite transform",
                                 c->file, nd->mName.data);
        memcpy(o->translation, t, 12);
        memcpy(o->rotation, t + 3, 16);
        memcpy(o->scale, t + 7, 12);
        float qn = sqrtf(t[3] * t[3] + t[4] * t[4] + t[5] * t[5] + t[6] * t[6]);
        if (qn < 1e-6f) {
            o->rotation[0] = o->rotation[1] = o->rotation[2] = 0, o->rotation[3] = 1;
        } else {
            for (int k = 0; k < 4; k++) o->rotation[k] /= qn;
        }
    }
    g->root_count = 1;
    g->roots = _oak_gltf_alloc(c, sizeof(uint32_t));
    if (!g->roots) return _oak_gltf_oom(c);
    g->roots[0] = 0;
    g->scene_count = 1;
    return OAK_OK;
}

/* ---- materials and images ------------------------------------------------------ */

/* The image index for a material's texture of a type, -1 without one. */
static int32_t texture_image(ai_ctx *a, const struct aiMaterial *m, enum aiTextureType type) {
    struct aiString path;
    if (aiGetMaterialTextureCount(m, type) == 0 ||
        aiGetMaterialTexture(m, type, 0, &path, NULL, NULL, NULL, NULL, NULL, NULL) !=
            aiReturn_SUCCESS ||
        !path.length)
        return -1;
    for (uint32_t i = 0; i < a->image_count; i++)
        if (strcmp(a->image_paths[i], path.data) == 0) return (int32_t)i;
    if (a->image_count == a->image_cap) {
        uint32_t cap = a->image_cap ? a->image_cap * 2 : 8;
        char(*np)[256] = _oak_gltf_scratch(a->c, sizeof *np * cap);
        if (!np) return -1;
        if (a->image_count) memcpy(np, a->image_paths, sizeof *np * a->image_count);
        a->image_paths = np, a->image_cap = cap;
    }
    snprintf(a->image_paths[a->image_count], sizeof a->image_paths[0], "%s", path.data);
    return (int32_t)a->image_count++;
}

static float material_float(const struct aiMaterial *m, const char *key, float fallback,
                            bool *found) {
    ai_real v;
    unsigned int one = 1;
    bool ok = aiGetMaterialFloatArray(m, key, 0, 0, &v, &one) == aiReturn_SUCCESS && one == 1 &&
              isfinite(v);
    if (found) *found = ok;
    return ok ? (float)v : fallback;
}

static float clamp01(float v) {
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

static oak_result load_materials(ai_ctx *a) {
    gltf_ctx *c = a->c;
    oak_gltf *g = c->g;
    const struct aiScene *s = a->s;
    g->material_count = s->mNumMaterials;
    g->materials = _oak_gltf_alloc(c, sizeof(oak_gltf_material) * (s->mNumMaterials + 1));
    g->material_handles = _oak_gltf_alloc(c, sizeof(oak_material) * (s->mNumMaterials + 1));
    if (!g->materials || !g->material_handles) return _oak_gltf_oom(c);
    for (uint32_t i = 0; i < s->mNumMaterials; i++) {
        const struct aiMaterial *m = s->mMaterials[i];
        oak_gltf_material *gm = &g->materials[i];
        oak_material_desc *d = &gm->desc;
        *d = oak_material_desc_defaults(NULL);
        struct aiString name;
        gm->name = _oak_gltf_strdup(
            c,
            aiGetMaterialString(m, "?mat.name", 0, 0, &name) == aiReturn_SUCCESS ? name.data : "");
        if (!gm->name) return _oak_gltf_oom(c);
        d->name = gm->name;
        struct aiColor4D col;
        if (aiGetMaterialColor(m, AI_MATKEY_BASE_COLOR, &col) == aiReturn_SUCCESS ||
            aiGetMaterialColor(m, AI_MATKEY_COLOR_DIFFUSE, &col) == aiReturn_SUCCESS) {
            d->base_color[0] = clamp01(col.r), d->base_color[1] = clamp01(col.g);
            d->base_color[2] = clamp01(col.b);
        }
        d->base_color[3] = clamp01(material_float(m, "$mat.opacity", 1, NULL));
        if (d->base_color[3] < 1) d->alpha_mode = OAK_ALPHA_BLEND;
        if (aiGetMaterialColor(m, AI_MATKEY_COLOR_EMISSIVE, &col) == aiReturn_SUCCESS)
            d->emissive[0] = clamp01(col.r), d->emissive[1] = clamp01(col.g),
            d->emissive[2] = clamp01(col.b);
        /* PBR factors where the file has them (glTF-like FBX, Blender);
           otherwise a Phong shininess as roughness, and not metal */
        bool has_metal, has_rough;
        d->metallic = clamp01(material_float(m, "$mat.metallicFactor", 0, &has_metal));
        d->roughness = clamp01(material_float(m, "$mat.roughnessFactor", 1, &has_rough));
        if (!has_rough) {
            bool has_shine;
            float shine = material_float(m, "$mat.shininess", 0, &has_shine);
            if (has_shine && shine > 0) d->roughness = clamp01(sqrtf(2 / (shine + 2)));
        }
        int two = 0;
        unsigned int one = 1;
        if (aiGetMaterialIntegerArray(m, "$mat.twosided", 0, 0, &two, &one) == aiReturn_SUCCESS)
            d->double_sided = two != 0;
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) gm->lobe_image[k] = -1; /* none */
        gm->image[0] = texture_image(a, m, aiTextureType_BASE_COLOR);
        if (gm->image[0] < 0) gm->image[0] = texture_image(a, m, aiTextureType_DIFFUSE);
        gm->image[1] = texture_image(a, m, aiTextureType_UNKNOWN); /* glTF's packed MR */
        gm->image[2] = texture_image(a, m, aiTextureType_NORMALS);
        gm->image[3] = texture_image(a, m, aiTextureType_AMBIENT_OCCLUSION);
        if (gm->image[3] < 0) gm->image[3] = texture_image(a, m, aiTextureType_LIGHTMAP);
        gm->image[4] = texture_image(a, m, aiTextureType_EMISSIVE);
        if (gm->image[1] < 0 && (aiGetMaterialTextureCount(m, aiTextureType_METALNESS) ||
                                 aiGetMaterialTextureCount(m, aiTextureType_DIFFUSE_ROUGHNESS)))
            _oak_gltf_warn(c,
                           "%s: material \"%.64s\" has separate metalness/roughness maps; oak "
                           "reads them packed (glTF's G and B), so they are left out",
                           c->file, gm->name);
    }
    return OAK_OK;
}

/* An embedded texture ("*N" or its file name) as bytes to decode, or raw
   texels copied straight into the image. */
static const struct aiTexture *embedded(const struct aiScene *s, const char *path) {
    if (path[0] == '*') {
        char *end;
        long i = strtol(path + 1, &end, 10);
        return !*end && i >= 0 && i < (long)s->mNumTextures ? s->mTextures[i] : NULL;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (uint32_t i = 0; i < s->mNumTextures; i++) {
        const char *f = s->mTextures[i]->mFilename.data, *fb = strrchr(f, '/');
        if (s->mTextures[i]->mFilename.length && strcmp(fb ? fb + 1 : f, base) == 0)
            return s->mTextures[i];
    }
    return NULL;
}

static oak_result load_images(ai_ctx *a) {
    gltf_ctx *c = a->c;
    oak_gltf *g = c->g;
    uint32_t n = a->image_count;
    g->image_count = n;
    g->images = _oak_gltf_alloc(c, sizeof(oak_gltf_image) * (n + 1));
    _oak_gltf_image_src *src = _oak_gltf_scratch(c, sizeof *src * (n + 1));
    if (!g->images || !src) return _oak_gltf_oom(c);
    for (uint32_t i = 0; i < n; i++) {
        char *p = a->image_paths[i];
        for (char *k = p; *k; k++)
            if (*k == '\\') *k = '/'; /* Windows exporters' separators */
        g->images[i].name = _oak_gltf_strdup(c, p);
        if (!g->images[i].name) return _oak_gltf_oom(c);
        snprintf(src[i].path, sizeof src[i].path, "texture \"%.40s\"", p);
        if (c->desc->no_images) continue;
        const struct aiTexture *t = embedded(a->s, p);
        if (t && t->mHeight == 0) { /* compressed: mWidth bytes of a PNG, JPEG... */
            src[i].bytes = (const uint8_t *)t->pcData;
            src[i].size = t->mWidth;
            continue;
        }
        if (t) { /* raw BGRA texels */
            if (t->mWidth > OAK_MAX_TEXTURE_SIZE || t->mHeight > OAK_MAX_TEXTURE_SIZE)
                return oak_error(OAK_ERROR_LIMIT, "%s: %s is larger than oak allows", c->file,
                                 src[i].path);
            size_t texels = (size_t)t->mWidth * t->mHeight;
            uint8_t *rgba = _oak_gltf_alloc(c, texels * 4);
            if (!rgba) return _oak_gltf_oom(c);
            for (size_t k = 0; k < texels; k++) {
                rgba[4 * k + 0] = t->pcData[k].r, rgba[4 * k + 1] = t->pcData[k].g;
                rgba[4 * k + 2] = t->pcData[k].b, rgba[4 * k + 3] = t->pcData[k].a;
            }
            g->images[i].rgba = rgba;
            g->images[i].width = t->mWidth, g->images[i].height = t->mHeight;
            continue;
        }
        /* a file beside the model (inside the asset root); an absolute path
           from the exporter's machine is tried by its base name there */
        const char *base = strrchr(p, '/');
        _oak_error_quiet(true);
        oak_result r = _oak_gltf_uri_bytes(c, p, src[i].path, &src[i].bytes, &src[i].size);
        if (r && base)
            r = _oak_gltf_uri_bytes(c, base + 1, src[i].path, &src[i].bytes, &src[i].size);
        _oak_error_quiet(false);
        if (r) {
            _oak_gltf_warn(c, "%s: %s cannot be read (%s); textures using it are left out", c->file,
                           src[i].path, oak_last_error());
            src[i].bytes = NULL;
        }
    }
    return _oak_gltf_decode_images(c, src, n);
}

/* ---- meshes and skins ------------------------------------------------------------ */

static int32_t joint_of(uint32_t *joints, uint32_t *count, uint32_t node) {
    for (uint32_t k = 0; k < *count; k++)
        if (joints[k] == node) return (int32_t)k;
    joints[*count] = node;
    return (int32_t)(*count)++;
}

static oak_result load_primitive(ai_ctx *a, const struct aiMesh *m, oak_gltf_primitive *p,
                                 oak_gltf_skin *skin) {
    gltf_ctx *c = a->c;
    uint32_t n = m->mNumVertices;
    p->mode = 4;
    p->material = m->mMaterialIndex < c->g->material_count ? (int32_t)m->mMaterialIndex : -1;
    p->vertex_count = n;
    size_t tris = 0;
    for (uint32_t f = 0; f < m->mNumFaces; f++) tris += m->mFaces[f].mNumIndices == 3;
    if (tris * 3 > UINT32_MAX || !_oak_gltf_budget(c, (size_t)n * 64 + tris * 12))
        return oak_error(OAK_ERROR_LIMIT, "%s: mesh \"%.64s\" is larger than oak allows", c->file,
                         m->mName.data);
    p->index_count = (uint32_t)tris * 3;
    p->positions = _oak_gltf_alloc(c, (size_t)n * 12 + 4);
    p->indices = _oak_gltf_alloc(c, tris * 12 + 4);
    if (!p->positions || !p->indices) return _oak_gltf_oom(c);
    for (uint32_t v = 0; v < n; v++) {
        const struct aiVector3D *q = &m->mVertices[v];
        float xyz[3] = {q->x, q->y, q->z};
        for (int k = 0; k < 3; k++)
            if (!isfinite(xyz[k]))
                return oak_error(OAK_ERROR_PARSE, "%s: mesh \"%.64s\" vertex %u is not finite",
                                 c->file, m->mName.data, v);
        memcpy(p->positions + 3 * (size_t)v, xyz, 12);
    }
    if (m->mNormals) {
        p->normals = _oak_gltf_alloc(c, (size_t)n * 12 + 4);
        if (!p->normals) return _oak_gltf_oom(c);
        for (uint32_t v = 0; v < n; v++) {
            float *o = p->normals + 3 * (size_t)v;
            o[0] = m->mNormals[v].x, o[1] = m->mNormals[v].y, o[2] = m->mNormals[v].z;
            if (!isfinite(o[0] + o[1] + o[2])) o[0] = 0, o[1] = 1, o[2] = 0;
        }
    }
    float **uv[2] = {&p->uv0, &p->uv1};
    for (int set = 0; set < 2; set++) {
        if (!m->mTextureCoords[set]) continue;
        float *t = *uv[set] = _oak_gltf_alloc(c, (size_t)n * 8 + 4);
        if (!t) return _oak_gltf_oom(c);
        for (uint32_t v = 0; v < n; v++) {
            t[2 * v] = m->mTextureCoords[set][v].x, t[2 * v + 1] = m->mTextureCoords[set][v].y;
            if (!isfinite(t[2 * v] + t[2 * v + 1])) t[2 * v] = t[2 * v + 1] = 0;
        }
    }
    if (m->mColors[0]) {
        p->colors = _oak_gltf_alloc(c, (size_t)n * 16 + 4);
        if (!p->colors) return _oak_gltf_oom(c);
        for (uint32_t v = 0; v < n; v++) {
            const struct aiColor4D *k = &m->mColors[0][v];
            float rgba[4] = {clamp01(k->r), clamp01(k->g), clamp01(k->b), clamp01(k->a)};
            memcpy(p->colors + 4 * (size_t)v, rgba, 16);
        }
    }
    uint32_t at = 0;
    for (uint32_t f = 0; f < m->mNumFaces; f++) {
        const struct aiFace *face = &m->mFaces[f];
        if (face->mNumIndices != 3) continue;
        for (int k = 0; k < 3; k++) {
            if (face->mIndices[k] >= n)
                return oak_error(OAK_ERROR_PARSE, "%s: mesh \"%.64s\" face %u is past its vertices",
                                 c->file, m->mName.data, f);
            p->indices[at++] = face->mIndices[k];
        }
    }
    if (m->mNumAnimMeshes)
        _oak_gltf_warn(c, "%s: mesh \"%.64s\" has %u morph targets; oak leaves them out", c->file,
                       m->mName.data, m->mNumAnimMeshes);
    if (!m->mNumBones || !skin) return OAK_OK;
    /* influences: as many sets of four as the busiest vertex needs */
    uint8_t *per = _oak_gltf_scratch(c, (size_t)n + 1);
    if (!per) return _oak_gltf_oom(c);
    memset(per, 0, (size_t)n + 1);
    uint32_t most = 0;
    for (uint32_t b = 0; b < m->mNumBones; b++)
        for (uint32_t w = 0; w < m->mBones[b]->mNumWeights; w++) {
            uint32_t v = m->mBones[b]->mWeights[w].mVertexId;
            if (v < n && m->mBones[b]->mWeights[w].mWeight > 0 && per[v] < 255 && ++per[v] > most)
                most = per[v];
        }
    if (!most) return OAK_OK;
    uint32_t ic = (most + 3) / 4 * 4;
    p->influence_count = ic;
    p->joints = _oak_gltf_alloc(c, (size_t)n * ic * sizeof(uint16_t) + 4);
    p->weights = _oak_gltf_alloc(c, (size_t)n * ic * sizeof(float) + 4);
    if (!p->joints || !p->weights) return _oak_gltf_oom(c);
    memset(per, 0, (size_t)n + 1);
    for (uint32_t b = 0; b < m->mNumBones; b++) {
        const struct aiBone *bone = m->mBones[b];
        int32_t node = node_named(a, bone->mName.data);
        if (node < 0)
            return oak_error(OAK_ERROR_PARSE, "%s: bone \"%.64s\" names no node", c->file,
                             bone->mName.data);
        uint32_t before = skin->joint_count;
        int32_t j = joint_of(skin->joints, &skin->joint_count, (uint32_t)node);
        if (j > 65535) return oak_error(OAK_ERROR_LIMIT, "%s: more than 65536 joints", c->file);
        if (skin->joint_count > before) mat_cols(&bone->mOffsetMatrix, skin->inverse_bind + 16 * j);
        if ((uint32_t)j > p->max_joint) p->max_joint = (uint32_t)j;
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            uint32_t v = bone->mWeights[w].mVertexId;
            float wt = bone->mWeights[w].mWeight;
            if (v >= n || !(wt > 0) || per[v] >= ic) continue;
            p->joints[(size_t)v * ic + per[v]] = (uint16_t)j;
            p->weights[(size_t)v * ic + per[v]++] = wt;
        }
    }
    for (uint32_t v = 0; v < n; v++) { /* the weights of a vertex sum to one */
        float sum = 0, *wv = p->weights + (size_t)v * ic;
        for (uint32_t k = 0; k < ic; k++) sum += wv[k];
        if (sum > 0)
            for (uint32_t k = 0; k < ic; k++) wv[k] /= sum;
    }
    return OAK_OK;
}

/* One glTF mesh per node that has meshes (its primitives are the node's
   assimp meshes), and one skin per such node whose meshes have bones. */
static oak_result load_meshes(ai_ctx *a) {
    gltf_ctx *c = a->c;
    oak_gltf *g = c->g;
    const struct aiScene *s = a->s;
    uint32_t meshes = 0, skins = 0;
    for (uint32_t i = 0; i < a->node_count; i++) {
        const struct aiNode *nd = a->nodes[i];
        bool bones = false;
        uint32_t tri = 0;
        for (uint32_t k = 0; k < nd->mNumMeshes; k++) {
            if (nd->mMeshes[k] >= s->mNumMeshes)
                return oak_error(OAK_ERROR_PARSE, "%s: node \"%.64s\" names mesh %u of %u", c->file,
                                 nd->mName.data, nd->mMeshes[k], s->mNumMeshes);
            const struct aiMesh *m = s->mMeshes[nd->mMeshes[k]];
            tri += (m->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) != 0;
            bones |= m->mNumBones > 0;
        }
        meshes += tri > 0;
        skins += tri > 0 && bones;
    }
    g->meshes = _oak_gltf_alloc(c, sizeof(oak_gltf_mesh) * (meshes + 1));
    g->skins = _oak_gltf_alloc(c, sizeof(oak_gltf_skin) * (skins + 1));
    if (!g->meshes || !g->skins) return _oak_gltf_oom(c);
    oak_result r;
    for (uint32_t i = 0; i < a->node_count; i++) {
        const struct aiNode *nd = a->nodes[i];
        uint32_t prims = 0, bones = 0;
        for (uint32_t k = 0; k < nd->mNumMeshes; k++) {
            const struct aiMesh *m = s->mMeshes[nd->mMeshes[k]];
            if (m->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) prims++, bones += m->mNumBones;
        }
        if (!prims) continue;
        oak_gltf_mesh *gm = &g->meshes[g->mesh_count];
        gm->name = _oak_gltf_strdup(c, nd->mName.data);
        gm->primitives = _oak_gltf_alloc(c, sizeof(oak_gltf_primitive) * prims);
        if (!gm->name || !gm->primitives) return _oak_gltf_oom(c);
        oak_gltf_skin *skin = NULL;
        if (bones) {
            skin = &g->skins[g->skin_count];
            skin->name = gm->name;
            skin->skeleton = -1;
            skin->joints = _oak_gltf_alloc(c, sizeof(uint32_t) * bones);
            skin->inverse_bind = _oak_gltf_alloc(c, sizeof(float) * 16 * bones);
            if (!skin->joints || !skin->inverse_bind) return _oak_gltf_oom(c);
        }
        for (uint32_t k = 0; k < nd->mNumMeshes; k++) {
            const struct aiMesh *m = s->mMeshes[nd->mMeshes[k]];
            if (!(m->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
            oak_gltf_primitive *p = &gm->primitives[gm->primitive_count++];
            if ((r = load_primitive(a, m, p, skin))) return r;
            oak_bounds_empty(&p->bounds);
            for (uint32_t v = 0; v < p->vertex_count; v++)
                oak_bounds_add(&p->bounds, p->positions + 3 * v);
            oak_bounds_finish(&p->bounds);
        }
        g->primitive_count += gm->primitive_count;
        g->nodes[i].mesh = (int32_t)g->mesh_count++;
        if (skin && skin->joint_count) g->nodes[i].skin = (int32_t)g->skin_count++;
    }
    return OAK_OK;
}

/* ---- cameras, lamps and clips ------------------------------------------------------- */

static oak_result load_cameras_and_lights(ai_ctx *a) {
    gltf_ctx *c = a->c;
    oak_gltf *g = c->g;
    const struct aiScene *s = a->s;
    g->cameras = _oak_gltf_alloc(c, sizeof(oak_gltf_camera) * (s->mNumCameras + 1));
    g->lights = _oak_gltf_alloc(c, sizeof(oak_gltf_light) * (s->mNumLights + 1));
    if (!g->cameras || !g->lights) return _oak_gltf_oom(c);
    for (uint32_t i = 0; i < s->mNumCameras; i++) {
        const struct aiCamera *k = s->mCameras[i];
        int32_t node = node_named(a, k->mName.data);
        if (node < 0 || g->nodes[node].camera >= 0) continue;
        oak_gltf_camera *o = &g->cameras[g->camera_count];
        o->name = _oak_gltf_strdup(c, k->mName.data);
        if (!o->name) return _oak_gltf_oom(c);
        float aspect = k->mAspect > 0 && isfinite(k->mAspect) ? k->mAspect : 0;
        float half = k->mHorizontalFOV > 0 && k->mHorizontalFOV < 3.1f ? k->mHorizontalFOV : 0.5f;
        o->aspect = aspect;
        if (k->mOrthographicWidth > 0 && isfinite(k->mOrthographicWidth)) {
            o->orthographic = true;
            o->xmag = k->mOrthographicWidth;
            o->ymag = k->mOrthographicWidth / (aspect > 0 ? aspect : 1);
        } else { /* assimp gives half the horizontal field; glTF the whole vertical */
            o->yfov = 2 * atanf(tanf(half) / (aspect > 0 ? aspect : 1));
        }
        o->znear = k->mClipPlaneNear > 0 && isfinite(k->mClipPlaneNear) ? k->mClipPlaneNear : 0.1f;
        o->zfar = k->mClipPlaneFar > o->znear && isfinite(k->mClipPlaneFar) ? k->mClipPlaneFar : 0;
        g->nodes[node].camera = (int32_t)g->camera_count++;
    }
    for (uint32_t i = 0; i < s->mNumLights; i++) {
        const struct aiLight *l = s->mLights[i];
        int32_t node = node_named(a, l->mName.data);
        if (node < 0 || g->nodes[node].light >= 0) continue;
        oak_gltf_light *o = &g->lights[g->light_count];
        if (l->mType == aiLightSource_DIRECTIONAL)
            o->type = OAK_GLTF_LIGHT_DIRECTIONAL;
        else if (l->mType == aiLightSource_POINT)
            o->type = OAK_GLTF_LIGHT_POINT;
        else if (l->mType == aiLightSource_SPOT)
            o->type = OAK_GLTF_LIGHT_SPOT;
        else {
            _oak_gltf_warn(c, "%s: lamp \"%.64s\" is not directional, point or spot; skipped",
                           c->file, l->mName.data);
            continue;
        }
        o->name = _oak_gltf_strdup(c, l->mName.data);
        if (!o->name) return _oak_gltf_oom(c);
        /* assimp folds the strength into the colour: split it back out */
        float rgb[3] = {l->mColorDiffuse.r, l->mColorDiffuse.g, l->mColorDiffuse.b}, peak = 0;
        for (int k = 0; k < 3; k++) {
            if (!(rgb[k] >= 0 && rgb[k] < 1e30f)) rgb[k] = 0;
            if (rgb[k] > peak) peak = rgb[k];
        }
        for (int k = 0; k < 3; k++) o->color[k] = peak > 0 ? rgb[k] / peak : 1;
        o->intensity = peak;
        o->outer_cone = OAK_PI / 4;
        if (o->type == OAK_GLTF_LIGHT_SPOT) { /* assimp's cones are whole angles */
            float outer = l->mAngleOuterCone / 2, inner = l->mAngleInnerCone / 2;
            o->outer_cone = outer > 0 && outer <= OAK_PI / 2 ? outer : OAK_PI / 4;
            o->inner_cone = inner >= 0 && inner < o->outer_cone ? inner : 0;
        }
        g->nodes[node].light = (int32_t)g->light_count++;
    }
    return OAK_OK;
}

/* Keys as a sampler: times in seconds, strictly increasing (a key at or
   before the one kept last is dropped); values of width floats. */
static oak_result sampler_from(gltf_ctx *c, oak_anim_sampler *sm, uint32_t count, double tps,
                               const double *times, const float *values, uint32_t width,
                               oak_gltf_clip *clip) {
    float *t = _oak_gltf_alloc(c, sizeof(float) * (count + 1));
    float *v = _oak_gltf_alloc(c, sizeof(float) * width * (count + 1));
    if (!t || !v) return _oak_gltf_oom(c);
    uint32_t kept = 0;
    for (uint32_t k = 0; k < count; k++) {
        double sec = times[k] / tps;
        bool ok = isfinite(sec) && sec >= 0 && sec < 1e7 && (!kept || (float)sec > t[kept - 1]);
        for (uint32_t i = 0; ok && i < width; i++) ok = isfinite(values[k * width + i]);
        if (!ok) continue;
        t[kept] = (float)sec;
        memcpy(v + kept * width, values + (size_t)k * width, sizeof(float) * width);
        kept++;
    }
    *sm = (oak_anim_sampler){
        .key_count = kept, .width = width, .times = t, .values = v, .interp = OAK_INTERP_LINEAR};
    if (kept && t[0] < clip->start) clip->start = t[0];
    if (kept && t[kept - 1] > clip->end) clip->end = t[kept - 1];
    return OAK_OK;
}

static oak_result load_clips(ai_ctx *a) {
    gltf_ctx *c = a->c;
    oak_gltf *g = c->g;
    const struct aiScene *s = a->s;
    g->clips = _oak_gltf_alloc(c, sizeof(oak_gltf_clip) * (s->mNumAnimations + 1));
    if (!g->clips) return _oak_gltf_oom(c);
    oak_result r;
    for (uint32_t i = 0; i < s->mNumAnimations; i++) {
        const struct aiAnimation *an = s->mAnimations[i];
        oak_gltf_clip *clip = &g->clips[g->clip_count++];
        clip->name = _oak_gltf_strdup(c, an->mName.data);
        uint32_t most = an->mNumChannels * 3;
        clip->channels = _oak_gltf_alloc(c, sizeof(oak_gltf_channel) * (most + 1));
        clip->samplers = _oak_gltf_alloc(c, sizeof(oak_anim_sampler) * (most + 1));
        if (!clip->name || !clip->channels || !clip->samplers) return _oak_gltf_oom(c);
        clip->start = INFINITY, clip->end = -INFINITY;
        double tps = an->mTicksPerSecond > 0 ? an->mTicksPerSecond : 25; /* assimp's default */
        for (uint32_t k = 0; k < an->mNumChannels; k++) {
            const struct aiNodeAnim *ch = an->mChannels[k];
            int32_t node = node_named(a, ch->mNodeName.data);
            if (node < 0) {
                _oak_gltf_warn(c, "%s: clip \"%.64s\" moves \"%.64s\", which is no node; skipped",
                               c->file, an->mName.data, ch->mNodeName.data);
                continue;
            }
            uint32_t nk[3] = {ch->mNumPositionKeys, ch->mNumRotationKeys, ch->mNumScalingKeys};
            for (int path = 0; path < 3; path++) {
                uint32_t n = nk[path], width = path == 1 ? 4 : 3;
                if (!n) continue;
                double *times = _oak_gltf_scratch(c, sizeof(double) * n);
                float *vals = _oak_gltf_scratch(c, sizeof(float) * width * n);
                if (!times || !vals) return _oak_gltf_oom(c);
                for (uint32_t j = 0; j < n; j++) {
                    float *o = vals + (size_t)j * width;
                    if (path == 1) { /* assimp's quaternions are w, x, y, z */
                        const struct aiQuatKey *q = &ch->mRotationKeys[j];
                        times[j] = q->mTime;
                        o[0] = q->mValue.x, o[1] = q->mValue.y, o[2] = q->mValue.z;
                        o[3] = q->mValue.w;
                    } else {
                        const struct aiVectorKey *q =
                            path == 0 ? &ch->mPositionKeys[j] : &ch->mScalingKeys[j];
                        times[j] = q->mTime;
                        o[0] = q->mValue.x, o[1] = q->mValue.y, o[2] = q->mValue.z;
                    }
                }
                oak_anim_sampler *sm = &clip->samplers[clip->sampler_count];
                if ((r = sampler_from(c, sm, n, tps, times, vals, width, clip))) return r;
                if (!sm->key_count) continue;
                static const oak_anim_path paths[3] = {OAK_ANIM_PATH_TRANSLATION,
                                                       OAK_ANIM_PATH_ROTATION, OAK_ANIM_PATH_SCALE};
                clip->channels[clip->channel_count++] =
                    (oak_gltf_channel){(uint32_t)node, clip->sampler_count++, paths[path]};
            }
        }
        if (an->mNumMorphMeshChannels || an->mNumMeshChannels)
            _oak_gltf_warn(c,
                           "%s: clip \"%.64s\" animates meshes; oak plays its node channels only",
                           c->file, an->mName.data);
        if (clip->start > clip->end) clip->start = clip->end = 0;
    }
    return OAK_OK;
}

static oak_result parse_here(gltf_ctx *c, const uint8_t *data, size_t size) {
    if (size > UINT32_MAX)
        return oak_error(OAK_ERROR_LIMIT, "%s: larger than assimp reads", c->file);
    if (!size) /* assimp asserts on an empty buffer */
        return oak_error(OAK_ERROR_PARSE, "%s: the file is empty", c->file);
    const char *dot = strrchr(c->file, '.');
    /* Triangles only (points and lines sorted out), flat normals where the
       file has none (glTF's rule), UVs with the origin at the top left as
       glTF has them, and assimp's own checks of what it built. */
    unsigned flags = aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_GenNormals |
                     aiProcess_FlipUVs | aiProcess_ValidateDataStructure;
    const struct aiScene *s =
        aiImportFileFromMemory((const char *)data, (unsigned)size, flags, dot ? dot + 1 : "");
    if (!s || !s->mRootNode) {
        char why[200];
        const char *e = aiGetErrorString();
        snprintf(why, sizeof why, "%s", e && *e ? e : "no scene");
        for (char *k = why; *k; k++) /* one line */
            if (*k == '\n' || *k == '\r') *k = ' ';
        if (s) aiReleaseImport(s);
        return oak_error(OAK_ERROR_PARSE, "%s: assimp cannot read it: %s", c->file, why);
    }
    if (s->mFlags & AI_SCENE_FLAGS_INCOMPLETE)
        _oak_gltf_warn(c, "%s: assimp read an incomplete scene", c->file);
    ai_ctx a = {.c = c, .s = s};
    oak_result r;
    if (!(r = load_nodes(&a)) && !(r = load_materials(&a)) && !(r = load_meshes(&a)) &&
        !(r = load_cameras_and_lights(&a)) && !(r = load_clips(&a)))
        r = load_images(&a);
    aiReleaseImport(s);
    if (r) return r;
    if ((r = _oak_gltf_validate(c->g, c->file))) return r;
    return _oak_gltf_finish_bounds(c->g);
}

/* assimp asserts (abort()) on some damaged files, and a library must not
 * take its caller down with it. So the parse runs in a child process: it
 * reads the file, builds the model, validates it and writes it as an .oakm
 * cache into a memory file, which the parent then loads as any cache. A
 * child that dies leaves a one-line error here. The child only touches
 * memory (no GPU, no files beyond the model's textures) and ends with
 * _exit. Set while the child runs, so its own load parses in place. */
static bool g_in_child;

bool _oak_assimp_in_child(void) {
    return g_in_child;
}

oak_result _oak_assimp_parse(gltf_ctx *c, const uint8_t *data, size_t size) {
    if (g_in_child) return parse_here(c, data, size);
    return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: assimp's parse runs through a child",
                     c->file);
}

/* The child's log: warnings, one a line, into the parent's memory file. */
static void child_log(void *user, oak_log_level level, const char *msg) {
    int fd = *(const int *)user;
    if (level != OAK_LOG_WARN) return;
    ssize_t n = write(fd, msg, strlen(msg));
    n = write(fd, "\n", 1);
    (void)n;
}

/* The child's warnings, said again here, where the caller's log is. */
static void relog_warnings(int fd) {
    off_t len = lseek(fd, 0, SEEK_END);
    char *text = len > 0 ? oak_alloc((size_t)len + 1) : NULL;
    if (!text) return;
    if (pread(fd, text, (size_t)len, 0) == (ssize_t)len) {
        text[len] = 0;
        for (char *line = text, *end; *line; line = end + 1) {
            if (!(end = strchr(line, '\n'))) break;
            *end = 0;
            oak_log_warn("%s", line);
        }
    }
    oak_free(text);
}

oak_result _oak_assimp_to_cache(const char *name, const void *data, size_t size,
                                const oak_gltf_desc *desc, void **out, size_t *out_size) {
    *out = NULL;
    *out_size = 0;
    int fd = memfd_create("oak-assimp", MFD_CLOEXEC);
    int wfd = memfd_create("oak-assimp-warnings", MFD_CLOEXEC);
    if (fd < 0 || wfd < 0) {
        if (fd >= 0) close(fd);
        if (wfd >= 0) close(wfd);
        return oak_error(OAK_ERROR_IO, "%s: no memory file for assimp's parse", name);
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        close(wfd);
        return oak_error(OAK_ERROR_IO, "%s: cannot start assimp's parse", name);
    }
    if (pid == 0) {
        /* a fault here is assimp's and this child's alone: the caller's
           crash handlers (a crash reporter, a fuzzer) must not take it for
           their process's */
        static const int fatal[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
        for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], SIG_DFL);
        _oak_jobs_forget_after_fork();
        g_in_child = true;
        /* warnings to the parent through a second memory file, errors only
           through the cache's, and assimp's own prints (an assert's text)
           nowhere: the parent says what happened, in one line */
        _oak_error_quiet(true);
        _oak_log_configure(child_log, &wfd, OAK_LOG_WARN);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2), dup2(null, 1);
        oak_gltf_desc d = *desc;
        d.no_assets = true; /* the parent makes them from the cache */
        oak_gltf *g = NULL;
        oak_result r = oak_gltf_load_memory(&g, data, size, name, &d);
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        if (!r) r = oak_gltf_bake(g, path);
        if (r) { /* the memory file carries the message instead */
            const char *e = oak_last_error();
            ssize_t n = pwrite(fd, e, strlen(e), 0);
            (void)n;
        }
        _exit(r ? 1 : 0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) break;
    off_t len = lseek(fd, 0, SEEK_END);
    char *bytes = len > 0 ? oak_alloc((size_t)len + 1) : NULL;
    if (bytes && pread(fd, bytes, (size_t)len, 0) != (ssize_t)len) {
        oak_free(bytes);
        bytes = NULL;
    }
    if (bytes) bytes[len] = 0;
    close(fd);
    relog_warnings(wfd);
    close(wfd);
    oak_result r = OAK_OK;
    if (WIFSIGNALED(status))
        r = oak_error(OAK_ERROR_PARSE, "%s: assimp failed reading it (it stopped on signal %d)",
                      name, WTERMSIG(status));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 1 && bytes)
        r = oak_error(OAK_ERROR_PARSE, "%s", bytes); /* the child's own one line */
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !bytes)
        r = oak_error(OAK_ERROR_PARSE,
                      "%s: assimp failed reading it (its parse ended with code %d)", name,
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (r) {
        oak_free(bytes);
        return r;
    }
    *out = bytes;
    *out_size = (size_t)len;
    return OAK_OK;
}
