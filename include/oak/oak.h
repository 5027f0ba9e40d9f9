/* oak: a real-time 3D engine for large, living worlds. One include for all. */
#ifndef OAK_H
#define OAK_H

#include "config.h"
#include "core.h"
#include "vecmath.h"
#include "asset.h"
#include "gltf.h"
#include "render.h"
#include "backend.h"
#include "scene.h"
#include "anim.h"
#include "fly.h"
#include "world.h"

#endif
