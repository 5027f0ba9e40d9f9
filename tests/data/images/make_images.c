/* Writes the small valid images in this folder (see README.md). */
#include <stdio.h>
#include <math.h>
#include <stb/stb_image_write.h>
int main(int argc, char **argv) {
    const char *dir = argv[1];
    char p[512];
    unsigned char rgb[16 * 8 * 4];
    float f[40 * 6 * 3];
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) {
            unsigned char *q = rgb + (y * 16 + x) * 4;
            q[0] = (unsigned char)(x * 16);
            q[1] = (unsigned char)(y * 32);
            q[2] = 128;
            q[3] = (unsigned char)(255 - x * 8);
        }
    snprintf(p, sizeof p, "%s/grad16x8.jpg", dir);
    stbi_write_jpg(p, 16, 8, 4, rgb, 80);
    snprintf(p, sizeof p, "%s/grad16x8_rgba.png", dir);
    stbi_write_png(p, 16, 8, 4, rgb, 64);
    for (int i = 0; i < 40 * 6 * 3; i++)
        f[i] = (i / 3) % 4 < 2 ? 0.25f : ldexpf((float)(i % 7) / 7.0f, i % 9 - 4);
    snprintf(p, sizeof p, "%s/rle40x6.hdr", dir);
    stbi_write_hdr(p, 40, 6, 3, f);
    snprintf(p, sizeof p, "%s/flat4x3.hdr", dir);
    stbi_write_hdr(p, 4, 3, 3, f);
    return 0;
}
