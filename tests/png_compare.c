/* A test tool: compares two PNGs channel by channel and passes when they
 * have one size and no channel differs by more than the tolerance (in
 * 1/255 steps). Prints the largest difference and where it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oak/oak.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: png_compare A.png B.png TOLERANCE\n");
        return 2;
    }
    int tolerance = atoi(argv[3]);
    if (oak_init(&(oak_engine_desc){.threads = 1}) != OAK_OK) return 1;
    uint32_t aw = 0, ah = 0, bw = 0, bh = 0;
    bool af = false, bf = false;
    void *a = NULL, *b = NULL;
    int status = 1;
    if (oak_image_load(argv[1], &aw, &ah, &af, &a) != OAK_OK ||
        oak_image_load(argv[2], &bw, &bh, &bf, &b) != OAK_OK) {
        fprintf(stderr, "png_compare: %s\n", oak_last_error());
    } else if (af || bf || aw != bw || ah != bh) {
        fprintf(stderr, "png_compare: %s is %ux%u, %s is %ux%u\n", argv[1], aw, ah, argv[2], bw,
                bh);
    } else {
        const uint8_t *pa = a, *pb = b;
        int worst = 0;
        size_t at = 0, over = 0, n = (size_t)aw * ah * 4;
        for (size_t i = 0; i < n; i++) {
            int d = abs((int)pa[i] - (int)pb[i]);
            if (d > tolerance) over++;
            if (d > worst) worst = d, at = i;
        }
        printf("png_compare: %ux%u, max diff %d/255 at (%zu, %zu) channel %zu, %zu channels over "
               "%d\n",
               aw, ah, worst, at / 4 % aw, at / 4 / aw, at % 4, over, tolerance);
        status = over ? 1 : 0;
    }
    oak_free(a);
    oak_free(b);
    oak_shutdown();
    return status;
}
