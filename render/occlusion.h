/* Private to render/: occlusion culling on the CPU (render/occlusion.c).
 * A coarse depth grid of OAK_OCC_TEXEL-pixel texels is drawn from the
 * largest opaque draws in view; a sphere whose screen rectangle lies over
 * texels that are every one fully covered and nearer than the sphere's
 * nearest point is hidden. Conservative: a texel counts only when every
 * sample in it (the pixel centres, moved by the frame's jitter) lies inside
 * an occluder triangle, by OAK_OCC_EDGE_MARGIN inside its edges that no
 * drawn triangle of the same mesh shares (silhouettes: the raster's vertex
 * snapping moves them), and its depth is the farthest any of them has
 * there, so nothing hidden by the test can reach a pixel. */
#ifndef OAK_RENDER_OCCLUSION_H
#define OAK_RENDER_OCCLUSION_H

#include <oak/backend.h>

typedef struct oak_occ_vertex {
    vec4 c; /* clip space */
} oak_occ_vertex;

typedef struct oak_occ_triangle {
    uint32_t v[3];
    int32_t nb[3]; /* the triangle across edge v[k] -> v[k + 1] (sharing both vertices), -1: none */
    int8_t sign;   /* its winding on screen: 1 ccw, -1 cw, 0 not drawn (back face, clipped) */
    int32_t ty0, ty1; /* the texel rows it spans (clipped), for the bands' quick reject */
    bool two_sided;   /* else only counter-clockwise (front) faces stand */
} oak_occ_triangle;

typedef struct oak_occ_grid {
    bool on;                /* built this frame: the tests below cull */
    uint32_t width, height; /* the view's pixels */
    uint32_t tw, th;        /* texels */
    uint64_t *mask;         /* per texel: covered sample bits (8 x 8, off-screen ones set) */
    float *depth;           /* per texel: the full layer's farthest depth; 0 (far) until covered */
    float *part;            /* per texel: the filling layer's farthest depth (mask: its samples) */
    uint32_t cap;
    mat4 view_proj;
    bool ortho;
    float jitter[2]; /* the frame's sample offset (pixels, x right, y down) */
    /* occluders of this frame */
    float *score; /* per input draw: projected size, 0 when no occluder */
    uint32_t score_cap;
    uint32_t picked[OAK_OCC_OCCLUDERS];
    uint32_t occluders, triangles;
    oak_occ_vertex *verts;
    oak_occ_triangle *tris;
    uint32_t vert_cap, tri_cap;
    uint64_t *edge_key; /* open-addressed directed edges a -> b of the triangles */
    uint32_t *edge_tri;
    uint32_t edge_cap, edge_cap2;
} oak_occ_grid;

void _oak_occ_release(oak_occ_grid *g);
/* Picks the largest opaque draws of in inside planes and draws them into the
   grid for view_proj at width x height; g->on says whether it was built. */
oak_result _oak_occ_build(oak_occ_grid *g, const oak_frame_input *in, const vec4 planes[6],
                          mat4 view_proj, bool ortho, const float jitter[2], uint32_t width,
                          uint32_t height);
/* False when the world sphere is hidden behind the grid (only when g->on).
   Its box-to-rectangle projection (row 0 at the bottom) has one GLSL twin,
   shaders/common/hiz.glsl oak_sphere_rect, which both GPU Hi-Z tests use. */
bool _oak_occ_sphere_visible(const oak_occ_grid *g, const float center[3], float radius);
/* The stream kernel's occlusion slot (oak_instance_test) over a grid. */
bool _oak_occ_instance_test(void *user, const float center[3], float radius);
/* The same, as oak_render_view.occ_sphere_visible (the CPU's meshlets). */
bool _oak_occ_view_test(const void *grid, const float center[3], float radius);

#endif
