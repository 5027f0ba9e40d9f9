/* The gtao pass's later steps as rows of their own: the pass table's gtao
 * row is its first step (view depth and normals from the ids); each backend
 * applies these rows' reads and writes before the step's dispatch, so the
 * barriers between the steps come from the table's rules as every other's. */
#ifndef OAK_PASS_GTAO_H
#define OAK_PASS_GTAO_H

#include "pass_table.h"

enum { OAK_GTAO_STEP_MIPS, OAK_GTAO_STEP_SEARCH, OAK_GTAO_STEP_DENOISE, OAK_GTAO_STEP_COUNT };

/* Each step reads what the one before wrote into the ao target and writes
   its own part of it (a read, then a write: the tracker sees one buffer). */
static const oak_pass_row k_oak_gtao_steps[OAK_GTAO_STEP_COUNT] = {
    {OAK_PASS_GTAO,
     "gtao-mips",
     {{OAK_TARGET_AO, OAK_USE_STORAGE_READ}, {OAK_TARGET_AO, OAK_USE_STORAGE_WRITE}},
     NULL,
     {NULL},
     true},
    {OAK_PASS_GTAO,
     "gtao-search",
     {{OAK_TARGET_AO, OAK_USE_STORAGE_READ}, {OAK_TARGET_AO, OAK_USE_STORAGE_WRITE}},
     NULL,
     {NULL},
     true},
    {OAK_PASS_GTAO,
     "gtao-denoise",
     {{OAK_TARGET_AO, OAK_USE_STORAGE_READ}, {OAK_TARGET_AO, OAK_USE_STORAGE_WRITE}},
     NULL,
     {NULL},
     true},
};

#endif
