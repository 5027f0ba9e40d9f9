// A halving pyramid's layout (render/pyramid.h is the C of the same
// arithmetic), shared by the bloom chain and the opaque frame's copy: level 0
// is the base size, level l ceil(w / 2) x ceil(h / 2) of level l - 1, levels
// one after another.
#ifndef OAK_PYRAMID_GLSL
#define OAK_PYRAMID_GLSL

// level l's size from the base size s
uvec2 oak_pyramid_size(uvec2 s, uint level) {
    for (uint l = 0u; l < level; l++) s = (s + 1u) >> 1u;
    return s;
}

// texels in levels from .. to - 1
uint oak_pyramid_span(uvec2 s, uint from, uint to) {
    uint n = 0u;
    for (uint l = 0u; l < to; l++) {
        if (l >= from) n += s.x * s.y;
        s = (s + 1u) >> 1u;
    }
    return n;
}

#endif
