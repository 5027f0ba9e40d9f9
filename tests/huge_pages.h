/* Whether the CPU backend's large arrays were advised into huge pages
 * (cpu_draws.c _oak_cpu_huge_pages), for test_cpu_mirror and test_cpu_taa. */
#ifndef OAK_TEST_HUGE_PAGES_H
#define OAK_TEST_HUGE_PAGES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Whether the mapping holding address a was advised into huge pages
   (its VmFlags in /proc/self/smaps hold "hg"); -1: not known here. */
static inline int huge_advised(const void *a) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0, hg = -1;
    uintptr_t x = (uintptr_t)a;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) /* a mapping's first line */
            in = x >= lo && x < hi;
        else if (in && !strncmp(line, "VmFlags:", 8)) {
            hg = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return hg;
}

#endif
