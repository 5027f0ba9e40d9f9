// lowbias32 (Chris Wellons' hash-prospector): the one 32-bit integer hash
// the shaders use for noise and scatter, the arithmetic of core/hash32.h's
// _oak_lowbias32, so C and GLSL give the same bits.
#ifndef OAK_HASH_GLSL
#define OAK_HASH_GLSL

uint oak_lowbias32(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

#endif
