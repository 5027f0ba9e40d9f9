/* Where the glTF test models are: tests/data/models in this repository (CTest
 * runs every test from the project root). A missing file is reported by the
 * loader with this path, so the failure names it. */
#ifndef GLTF_TEST_ASSETS_H
#define GLTF_TEST_ASSETS_H

#include <stdio.h>

#define GLTF_TEST_MODELS "tests/data/models"

static inline const char *gltf_asset(char *buf, size_t size, const char *rel) {
    snprintf(buf, size, "%s/%s", GLTF_TEST_MODELS, rel);
    return buf;
}

#endif
