/* fix2d broad phase internals shared by broadphase.c (the step's pair finding and world
 * caches) and broadphase_cache.c (the in-process snapshot's save and restore of them): the
 * step marker, the moved bitmap's size and the world cache's helpers, all static inline so the
 * step's calls stay inlined as before. Not installed; included after core.h.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_BROADPHASE_INTERNAL_H
#define FIX2D_BROADPHASE_INTERNAL_H

#include "core.h"

/* The marker word after the pair keys and the moved bitmap: STEP_MARK ^ the step (step_count)
 * whose call left them (broadphase.c, "the world caches, and which shapes moved"). */
#define STEP_MARK 0xF2D0CAC4E5EED5ull

/* Words of the bitmap of the shape ids whose cache a call remade (one bit per id). */
static inline int64_t moved_words(const f2d_world *w)
{
	return ((int64_t)w->shape_ids.next + 63) / 64;
}

/* A remade AABB stretched along the shape's sweep (the predicted motion), as update_caches
 * and the snapshot's restore of a cache (get_shape_cache, broadphase_cache.c) make it. */
static inline void stretch_by_sweep(f2d_shape *s)
{
	const f2d_vec2 sweep = s->sweep;
	s->aabb.lower.x += sweep.x < 0 ? sweep.x : 0;
	s->aabb.lower.y += sweep.y < 0 ? sweep.y : 0;
	s->aabb.upper.x += sweep.x > 0 ? sweep.x : 0;
	s->aabb.upper.y += sweep.y > 0 ? sweep.y : 0;
}

/* Records the transform a shape's cache was made from, its key, in cache words it does not
 * otherwise use (read back by f2d_shape_cache_xf). */
static inline void set_cache_key(f2d_shape *s, f2d_transform xf)
{
	f2d_vec2 *q =
	    s->type == F2D_CIRCLE_SHAPE ? &s->world_polygon.vertices[0] : &s->world_center;
	s->world_polygon.centroid = xf.p;
	*q = f2d_v(xf.q.c, xf.q.s);
}

/* Whether the previous call ran in the previous step and left its bitmap and marker. */
static inline bool previous_call_was_last_step(const f2d_world *w, int64_t mw)
{
	int64_t at = (int64_t)w->pair_count + mw;
	return w->pairs != NULL && at < w->pair_capacity &&
	       w->pairs[at] == (STEP_MARK ^ (w->step_count - 1));
}

/* w->pairs holds at least words words (pointers into it are stale after a true return) */
static inline bool pairs_reserve(f2d_world *w, int64_t words)
{
	return words <= INT32_MAX && f2d_grow(w, (void **)&w->pairs, &w->pair_capacity,
	                                      (int32_t)words, sizeof(uint64_t));
}

/* update_caches (broadphase.c) run with the kernel given (F2D_KERNEL_SCALAR: the scalar
 * reference; F2D_KERNEL_AVX2 or _AVX512: the AVX2 form), for tests: the moved bitmap to moved
 * (moved_words(w) words), and with fat_in (shape_ids.next boxes, copied to the fat boxes, ex
 * zeroed first) the escapes to ebit (moved_words(w) words) and elist (up to shape_ids.next);
 * out: the live count, the remade count and the escaped count. False (nothing run) on OOM or
 * for a kernel this build or CPU does not run. */
bool f2d_update_caches_kernel(f2d_world *w, int kernel, bool incremental, const f2d_aabb *fat_in,
                              uint64_t *moved, uint64_t *ebit, int32_t *elist, int32_t out[3]);

#endif
