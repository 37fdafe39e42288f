/* fix2d base: the low-level helpers every subsystem may use — error codes and messages,
 * allocation through the world's allocator, growing arrays, id pools. Nothing here calls up
 * into a subsystem.
 * SPDX-License-Identifier: MIT
 */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

const char *f2d_error_string(f2d_result r)
{
	switch (r) {
	case F2D_OK: return "ok";
	case F2D_ERROR_NULL_ARGUMENT: return "a required argument is NULL";
	case F2D_ERROR_INVALID_HANDLE: return "null, stale (destroyed) or foreign handle";
	case F2D_ERROR_INVALID_VALUE: return "a value is outside its valid range";
	case F2D_ERROR_BAD_POLYGON:
		return "polygon must be convex, counter-clockwise, 3..8 vertices, non-degenerate";
	case F2D_ERROR_MASS_RANGE:
		return "mass or rotational inertia of a dynamic body outside the valid range";
	case F2D_ERROR_OUT_OF_MEMORY: return "out of memory";
	case F2D_ERROR_CAPACITY: return "too many objects in one world";
	case F2D_ERROR_OUT_OF_RANGE: return "a body left the valid world range and was stopped";
	case F2D_ERROR_OVERFLOW: return "an impulse saturated instead of overflowing";
	case F2D_ERROR_MATH_FLAVOUR:
		return "the linked libfixmath computes other bits than fix2d was built for "
		       "(use Debian's libfixmath-dev 0~20220222)";
	default: return "unknown result code";
	}
}

f2d_result f2d_set_error(f2d_world *w, f2d_result r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->error, sizeof w->error, fmt, ap);
	va_end(ap);
	return r;
}

const char *f2d_world_last_error(const f2d_world *w)
{
	return w == NULL ? "" : w->error;
}

/* ---- memory ---- */

static void *default_alloc(size_t size, void *context)
{
	(void)context;
	return malloc(size);
}

static void default_free(void *p, size_t size, void *context)
{
	(void)size;
	(void)context;
	free(p);
}

f2d_allocator f2d_default_allocator(void)
{
	f2d_allocator a = {default_alloc, default_free, NULL};
	return a;
}

void *f2d_alloc(f2d_world *w, size_t size)
{
	return w->allocator.alloc(size, w->allocator.context);
}

void f2d_free(f2d_world *w, void *p, size_t size)
{
	if (p != NULL) {
		w->allocator.free(p, size, w->allocator.context);
	}
}

/* 64-byte aligned blocks: the allocator's block is 64 bytes longer, the aligned start is 1 to 64
 * bytes into it, and the byte before the start holds that distance (for f2d_free_aligned). */
void *f2d_alloc_aligned(f2d_world *w, size_t size)
{
	uint8_t *p = f2d_alloc(w, size + 64);
	if (p == NULL) {
		return NULL;
	}
	size_t off = 64 - (size_t)((uintptr_t)p & 63u); /* 1..64 */
	p += off;
	p[-1] = (uint8_t)off;
	return p;
}

void f2d_free_aligned(f2d_world *w, void *p, size_t size)
{
	if (p != NULL) {
		uint8_t *q = p;
		f2d_free(w, q - q[-1], size + 64);
	}
}

/* Grows an array to at least need elements (doubling, from 16), zeroing the new tail; the
 * block is 64-byte aligned when aligned is set (f2d_alloc_aligned / f2d_free_aligned). */
static bool grow(f2d_world *w, void **array, int32_t *capacity, int32_t need, size_t elem,
                 bool aligned)
{
	if (need <= *capacity) {
		return true;
	}
	int64_t cap = *capacity < 16 ? 16 : *capacity;
	while (cap < need) {
		cap *= 2;
	}
	size_t old = (size_t)*capacity * elem;
	void *p = aligned ? f2d_alloc_aligned(w, (size_t)cap * elem) : f2d_alloc(w, (size_t)cap * elem);
	if (p == NULL) {
		return false;
	}
	if (*array != NULL) {
		memcpy(p, *array, old);
		if (aligned) {
			f2d_free_aligned(w, *array, old);
		} else {
			f2d_free(w, *array, old);
		}
	}
	memset((char *)p + old, 0, (size_t)(cap - *capacity) * elem);
	*array = p;
	*capacity = (int32_t)cap;
	return true;
}

bool f2d_grow(f2d_world *w, void **array, int32_t *capacity, int32_t need, size_t elem)
{
	return grow(w, array, capacity, need, elem, false);
}

bool f2d_grow_aligned(f2d_world *w, void **array, int32_t *capacity, int32_t need, size_t elem)
{
	return grow(w, array, capacity, need, elem, true);
}

/* ---- id pools ---- */

f2d_result f2d_pool_alloc(f2d_world *w, f2d_id_pool *pool, void **array, int32_t *capacity,
                          size_t elem, int32_t *id)
{
	if (pool->free_count > 0) {
		*id = pool->free_ids[--pool->free_count];
		return F2D_OK;
	}
	if (pool->next >= F2D_MAX_OBJECTS) {
		return f2d_set_error(w, F2D_ERROR_CAPACITY, "more than %d objects of one kind",
		                     F2D_MAX_OBJECTS);
	}
	/* the free list can hold every id ever handed out, so freeing never allocates */
	if (!f2d_grow(w, (void **)&pool->free_ids, &pool->free_capacity, pool->next + 1,
	              sizeof(int32_t)) ||
	    !f2d_grow_aligned(w, array, capacity, pool->next + 1, elem)) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	*id = pool->next++;
	return F2D_OK;
}

void f2d_pool_free(f2d_world *w, f2d_id_pool *pool, int32_t id)
{
	(void)w;
	pool->free_ids[pool->free_count++] = id;
}
