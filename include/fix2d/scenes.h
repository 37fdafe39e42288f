/* fix2d - the scene catalogue shared by tests, the benchmark and the tools.
 * SPDX-License-Identifier: MIT
 *
 * Every scene is built with the public API only, from integer constants and a fixed integer
 * PRNG, so the same name always builds the same world on every host.
 */
#ifndef FIX2D_SCENES_H
#define FIX2D_SCENES_H

#include "fix2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Number of scenes in the catalogue. */
int32_t f2d_scene_count(void);
/** Name of scene i (0 <= i < count), or NULL. */
const char *f2d_scene_name(int32_t index);
/** One-line description of scene i, or NULL. */
const char *f2d_scene_description(int32_t index);
/** Index of the named scene, or -1. */
int32_t f2d_scene_find(const char *name);
/** Builds the named scene into a new world. def may be NULL (defaults); a scene uses def as
 *  given (all scenes assume the default gravity (0,-10) and time step 1/60), except the solver
 *  of three: soft_step takes substep_count 4 when def asks 0, pyramid_gs and ragdoll_gs always
 *  take 0 (the Gauss-Seidel solver). Unknown name: F2D_ERROR_INVALID_VALUE. */
f2d_result f2d_scene_create(const char *name, const f2d_world_def *def, f2d_world **out);

#ifdef __cplusplus
}
#endif
#endif
