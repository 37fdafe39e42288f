/* fix2d snapshots: the in-process form's bodies and arbiters (in-process version 8) as fixed-size
 * little-endian records, so that a restore (rollback) decodes straight-line words instead of the
 * portable form's varints. The portable form keeps its codec (snapshot.c, snapshot_load*.c);
 * snapshot.c's encode_payload and snapshot_load.c's decode_payload dispatch here for the
 * in-process form. The layout is in include/fix2d/snapshot.h.
 * SPDX-License-Identifier: MIT
 *
 * What a restore checks here, as the portable form does: the id counts (the header's), every
 * generation non-zero, flags within their bits (a body's type 0..2), the body free list exactly
 * the dead ids once each, the last out-of-range body an id, no live body beyond the Gauss-Seidel
 * step's speed bounds in a world of that step; every arbiter names two live shapes in strictly
 * increasing key order (a < b) with at most two points, its bodies are those of its shapes.
 * What it takes as written, behind the seal (snapshot.c MEMORY_SEAL_SEED: only bytes this
 * encoder wrote from a world of this process pass it): a body's pose, velocity,
 * force, mass data and their inverses, sleep state, options and user data (the portable form
 * range checks them and recomputes the inverses); an arbiter's material, feature ids, impulses
 * and manifold (normal, anchors, separations, speculative distance, recycle cache, frozen and
 * active flags) - values a step of the saving world computed, which only a forged snapshot could
 * get wrong. */
#include "snapshot_decoder.h"

/* ---- the records: one description for both sides ----
 * As snapshot_internal.h's lists: X(kind, field), kind u32 / i32 / u64 / vec, written with
 * put_<kind>(p, object->field) (snapshot_internal.h) and read with object->field =
 * fget_<kind>(&p). */

/* A body record (every id handed out, dead ones too): u32 flags (FB_*), then FAST_BODY_HEAD,
 * FAST_BODY_MOTION, FAST_BODY_TAIL. The shape and joint lists and the joint count are derived
 * (the shapes and joints sections rebuild them). */
#define FAST_BODY_HEAD(X)                                                                          \
	X(u32, generation)                                                                         \
	X(i32, sleep_time)                                                                         \
	X(vec, origin)                                                                             \
	X(i32, q.c)                                                                                \
	X(i32, q.s)                                                                                \
	X(vec, center)
#define FAST_BODY_MOTION(X)                                                                        \
	X(vec, v)                                                                                  \
	X(i32, w)
#define FAST_BODY_TAIL(X)                                                                          \
	X(vec, force)                                                                              \
	X(i32, torque)                                                                             \
	X(vec, local_center)                                                                       \
	X(i32, mass)                                                                               \
	X(i32, inv_mass)                                                                           \
	X(i32, inertia)                                                                            \
	X(i32, inv_inertia)                                                                        \
	X(u64, user_data)                                                                          \
	X(i32, gravity_scale)                                                                      \
	X(i32, linear_damping)                                                                     \
	X(i32, angular_damping)
#define FAST_BODY_RECORD(X) FAST_BODY_HEAD(X) FAST_BODY_MOTION(X) FAST_BODY_TAIL(X)
/* where the velocity starts in a record (the validating pass reads it, fast_check_bodies) */
#define FAST_BODY_V (4 + (0 FAST_BODY_HEAD(SNAP_BYTES)))
#define FB_ALIVE 1u
#define FB_TYPE_SHIFT 1 /* bits 1-2 */
#define FB_AWAKE 8u
#define FB_ENABLE_SLEEP 16u
#define FB_FIXED_ROTATION 32u
#define FB_ALL 63u
#define FAST_BODY_BYTES (4 FAST_BODY_RECORD(SNAP_BYTES))
_Static_assert(FAST_BODY_BYTES == 104, "an in-process body record is 104 bytes (snapshot.h)");

/* An arbiter record: these, u32 flags (FA_*), then both points (FAST_POINT_RECORD each, the
 * second kept exactly when count < 2), then the u64 geometry digest (core.h arbiter_geo;
 * version 8: taken as written, as the manifold it digests). The bodies are derived from the
 * shapes. */
#define FAST_ARBITER_RECORD(X)                                                                     \
	X(i32, shape_a)                                                                            \
	X(i32, shape_b)                                                                            \
	X(i32, friction)                                                                           \
	X(i32, restitution)                                                                        \
	X(vec, normal)                                                                             \
	X(i32, speculative)                                                                        \
	X(i32, base_separation[0])                                                                 \
	X(i32, base_separation[1])                                                                 \
	X(i32, cached_q_a.c)                                                                       \
	X(i32, cached_q_a.s)                                                                       \
	X(i32, cached_q_b.c)                                                                       \
	X(i32, cached_q_b.s)
#define FAST_POINT_RECORD(X)                                                                       \
	X(u32, id)                                                                                 \
	X(i32, pn)                                                                                 \
	X(i32, pt)                                                                                 \
	X(vec, r_a)                                                                                \
	X(vec, r_b)                                                                                \
	X(i32, separation)
#define FA_COUNT 3u /* bits 0-1: the point count, 0..2 */
#define FA_FROZEN 4u
#define FA_ACTIVE 8u
#define FA_RECYCLE 16u
#define FA_ALL 31u
#define FAST_ARBITER_BYTES                                                                         \
	((0 FAST_ARBITER_RECORD(SNAP_BYTES)) + 4 + 2 * (0 FAST_POINT_RECORD(SNAP_BYTES)) + 8)
_Static_assert(FAST_ARBITER_BYTES == 128, "an in-process arbiter record is 128 bytes (snapshot.h)");

/* little-endian readers that advance a local pointer (the caller has checked the length) */
static inline uint32_t fget_u32(const uint8_t **p)
{
	uint32_t v = get_u32(*p);
	*p += 4;
	return v;
}
static inline int32_t fget_i32(const uint8_t **p)
{
	return u2i(fget_u32(p));
}
static inline uint64_t fget_u64(const uint8_t **p)
{
	uint64_t v = get_u64(*p);
	*p += 8;
	return v;
}
static inline f2d_vec2 fget_vec(const uint8_t **p)
{
	f2d_vec2 v = get_vec(*p);
	*p += 8;
	return v;
}

/* ---- encoder ---- */

size_t f2d_fast_bodies_size(const f2d_world *w)
{
	return 4 + (size_t)w->body_ids.next * FAST_BODY_BYTES + 4 +
	       4 * (size_t)w->body_ids.free_count;
}

uint8_t *f2d_fast_bodies_put(const f2d_world *w, uint8_t *p)
{
	p = put_u32(p, (uint32_t)w->body_ids.next);
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		p = put_u32(p, (b->alive ? FB_ALIVE : 0u) | ((uint32_t)b->type << FB_TYPE_SHIFT) |
		                   (b->awake ? FB_AWAKE : 0u) |
		                   (b->enable_sleep ? FB_ENABLE_SLEEP : 0u) |
		                   (b->fixed_rotation ? FB_FIXED_ROTATION : 0u));
#define PUT(kind, field) p = put_##kind(p, b->field);
		FAST_BODY_RECORD(PUT)
#undef PUT
	}
	p = put_u32(p, (uint32_t)w->body_ids.free_count);
	for (int32_t i = 0; i < w->body_ids.free_count; ++i) {
		p = put_i32(p, w->body_ids.free_ids[i]);
	}
	return p;
}

size_t f2d_fast_arbiters_size(const f2d_world *w)
{
	return 4 + (size_t)w->arbiter_count * FAST_ARBITER_BYTES;
}

uint8_t *f2d_fast_arbiters_put(const f2d_world *w, uint8_t *p)
{
	p = put_u32(p, (uint32_t)w->arbiter_count);
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
#define PUT(kind, field) p = put_##kind(p, a->field);
		FAST_ARBITER_RECORD(PUT)
#undef PUT
		p = put_u32(p, ((uint32_t)a->count & FA_COUNT) | (a->frozen ? FA_FROZEN : 0u) |
		                   (a->active ? FA_ACTIVE : 0u) |
		                   (a->recycle != 0 ? FA_RECYCLE : 0u));
		for (int32_t k = 0; k < 2; ++k) {
			const f2d_contact_point *cp = &a->points[k];
#define PUT(kind, field) p = put_##kind(p, cp->field);
			FAST_POINT_RECORD(PUT)
#undef PUT
		}
		p = put_u64(p, w->arbiter_geo[i]);
	}
	return p;
}

/* ---- decoder (both passes of snapshot_load.c; the in-process form only) ---- */

/* Zeroed marks from the scratch the in-process form reserved at once (reserve_marks: the
 * header's id counts, which fast_count checks the payload's against). */
static size_t fast_marks(decoder *d, int32_t count)
{
	size_t off = d->scratch_used, bytes = (size_t)count * sizeof(uint32_t);
	memset((uint8_t *)d->scratch_base + off, 0, bytes);
	d->scratch_used += bytes;
	return off;
}

/* The number of ids handed out: the header's, and rec bytes each within the bytes left. */
static bool fast_count(decoder *d, int kind, size_t rec, const char *name)
{
	if (!avail(d, 4)) {
		return truncated(d, name);
	}
	uint32_t n = rd_u32(d);
	if (d->apply) {
		return true;
	}
	if (n != d->counts[kind]) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "the header counts %u %s, the payload %u",
		                       (unsigned)d->counts[kind], name, (unsigned)n);
	}
	if ((size_t)n > (size_t)(d->end - d->p) / rec) {
		return truncated(d, name);
	}
	d->next[kind] = (int32_t)n;
	d->alive[kind] = 0;
	return true;
}

/* The body free list: exactly the dead ids, once each (validating); stored (applying). */
static bool fast_free_list(decoder *d, uint32_t *marks)
{
	if (!avail(d, 4)) {
		return truncated(d, "the body free list");
	}
	uint32_t n = rd_u32(d);
	f2d_id_pool *pool = &d->w->body_ids;
	if (!d->apply && n != (uint32_t)(d->next[0] - d->alive[0])) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
		                       "body free list holds %u ids, %d are dead", (unsigned)n,
		                       (int)(d->next[0] - d->alive[0]));
	}
	if (!avail(d, (size_t)n * 4)) {
		return truncated(d, "the body free list");
	}
	for (uint32_t i = 0; i < n; ++i) {
		uint32_t id = rd_u32(d);
		if (d->apply) {
			pool->free_ids[i] = (int32_t)id; /* checked below id count: no wrap */
		} else if (id >= (uint32_t)d->next[0] || marks[id] != 0) {
			return f2d_decode_fail(
			    d, F2D_ERROR_INVALID_HANDLE,
			    "body free list entry %u: id %u is live, repeated or never handed out",
			    (unsigned)i, (unsigned)id);
		} else {
			marks[id] = FREE_MARK;
		}
	}
	if (d->apply) {
		pool->free_count = (int32_t)n;
	}
	return true;
}

/* Validating pass: generations and flags; the body marks (0 dead, 1 + type alive). */
static bool fast_check_bodies(decoder *d, int32_t n)
{
	if (d->last_oor >= n) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
		                       "last out-of-range body %d was never handed out",
		                       (int)d->last_oor);
	}
	d->body_off = fast_marks(d, n);
	uint32_t *marks = scratch(d, d->body_off);
	const uint8_t *p = d->p;
	for (int32_t i = 0; i < n; ++i, p += FAST_BODY_BYTES) {
		uint32_t flags = get_u32(p), gen = get_u32(p + 4);
		uint32_t type = (flags >> FB_TYPE_SHIFT) & 3u;
		if (gen == 0 || (flags & ~FB_ALL) != 0 || type > F2D_DYNAMIC_BODY) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
			                       "body %d: generation 0 or bad flags %u", (int)i,
			                       (unsigned)flags);
		}
		uint32_t alive = flags & FB_ALIVE;
		marks[i] = alive != 0 ? 1 + type : 0;
		d->alive[0] += (int32_t)alive;
		/* beyond the Gauss-Seidel step's bounds: refused once the solver is known to be
		 * that one (snapshot_load.c substeps_ok), as the portable form does */
		const uint8_t *v = p + FAST_BODY_V;
		if (alive != 0 && d->fast_body < 0 &&
		    (!within(u2i(get_u32(v)), d->vmax) || !within(u2i(get_u32(v + 4)), d->vmax) ||
		     !within(u2i(get_u32(v + 8)), d->wmax))) {
			d->fast_body = i;
		}
	}
	d->p = p;
	return fast_free_list(d, marks);
}

/* Applying pass: every field of f2d_body (the lists and joint count are rebuilt by the shapes
 * and joints sections); slots past the id count zeroed (create reads their generation). */
static bool fast_apply_bodies(decoder *d, int32_t n)
{
	f2d_world *w = d->w;
	if (w->body_ids.next > n) {
		memset(&w->bodies[n], 0, (size_t)(w->body_ids.next - n) * sizeof(f2d_body));
	}
	w->body_ids.next = n;
	const uint8_t *p = d->p;
	int32_t alive = 0;
	for (int32_t i = 0; i < n; ++i) {
		f2d_body *b = &w->bodies[i];
		uint32_t flags = fget_u32(&p);
		b->alive = (flags & FB_ALIVE) != 0;
		b->type = (f2d_body_type)((flags >> FB_TYPE_SHIFT) & 3u);
		b->awake = (flags & FB_AWAKE) != 0;
		b->enable_sleep = (flags & FB_ENABLE_SLEEP) != 0;
		b->fixed_rotation = (flags & FB_FIXED_ROTATION) != 0;
#define GET(kind, field) b->field = fget_##kind(&p);
		FAST_BODY_RECORD(GET)
#undef GET
		b->shape_list = F2D_NULL_INDEX;
		b->joint_count = 0;
		b->joint_list = F2D_NULL_INDEX;
		alive += b->alive ? 1 : 0;
	}
	d->p = p;
	w->body_count = alive;
	return fast_free_list(d, NULL);
}

bool f2d_fast_decode_bodies(decoder *d)
{
	if (!fast_count(d, 0, FAST_BODY_BYTES, "bodies")) {
		return false;
	}
	return d->apply ? fast_apply_bodies(d, d->next[0]) : fast_check_bodies(d, d->next[0]);
}

/* One arbiter record at p into a (the validating pass's copy in w->arbiters_next); its flags. */
static uint32_t fast_read_arbiter(const uint8_t *p, f2d_arbiter *a, uint64_t *geo)
{
#define GET(kind, field) a->field = fget_##kind(&p);
	FAST_ARBITER_RECORD(GET)
#undef GET
	uint32_t flags = fget_u32(&p);
	a->count = (int8_t)(flags & FA_COUNT);
	a->frozen = (flags & FA_FROZEN) != 0;
	a->active = (flags & FA_ACTIVE) != 0;
	a->recycle = (flags & FA_RECYCLE) != 0 ? 1u : 0u;
	for (int32_t k = 0; k < 2; ++k) {
		f2d_contact_point *cp = &a->points[k];
#define GET(kind, field) cp->field = fget_##kind(&p);
		FAST_POINT_RECORD(GET)
#undef GET
	}
	*geo = fget_u64(&p);
	return flags;
}

/* Validating pass: the records straight into w->arbiters_next (as the portable decoder does,
 * f2d_decode_arbiters, whose applying pass swaps that buffer in for both forms): two live
 * shapes in strictly increasing key order, at most two points, flags within their bits. */
bool f2d_fast_decode_arbiters(decoder *d)
{
	f2d_world *w = d->w;
	if (d->apply) {
		return f2d_decode_arbiters(d);
	}
	if (!avail(d, 4)) {
		return truncated(d, "the arbiters");
	}
	uint32_t n = rd_u32(d);
	if ((size_t)n > (size_t)(d->end - d->p) / FAST_ARBITER_BYTES) {
		return truncated(d, "the arbiters");
	}
	if (!f2d_grow_aligned(w, (void **)&w->arbiters_next, &w->arbiters_next_capacity, (int32_t)n,
	                      sizeof(f2d_arbiter)) ||
	    !f2d_grow(w, (void **)&w->arbiter_geo_next, &w->arbiter_geo_next_capacity, (int32_t)n,
	              sizeof(uint64_t))) {
		return f2d_decode_fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	const uint32_t *marks = scratch(d, d->shape_off); /* 1 + body of a live shape */
	const uint32_t shapes = (uint32_t)d->next[1];
	uint64_t prev = 0;
	for (uint32_t i = 0; i < n; ++i, d->p += FAST_ARBITER_BYTES) {
		f2d_arbiter *a = &w->arbiters_next[i];
		uint32_t flags = fast_read_arbiter(d->p, a, &w->arbiter_geo_next[i]);
		uint32_t sa = (uint32_t)a->shape_a, sb = (uint32_t)a->shape_b;
		uint64_t key = (uint64_t)sa << 32 | sb;
		if (sa >= sb || sb >= shapes || !shape_live(marks[sa]) || !shape_live(marks[sb]) ||
		    (i > 0 && key <= prev)) {
			return f2d_decode_fail(
			    d, F2D_ERROR_INVALID_HANDLE,
			    "arbiter %u: shapes are not two live shapes in order", (unsigned)i);
		}
		if ((flags & ~FA_ALL) != 0 || (flags & FA_COUNT) > 2u) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
			                       "arbiter %u: bad flags %u", (unsigned)i,
			                       (unsigned)flags);
		}
		prev = key;
		a->body_a = (int32_t)(marks[sa] - 1);
		a->body_b = (int32_t)(marks[sb] - 1);
	}
	d->arbiter_count = (int32_t)n;
	d->arbiters_end = d->p;
	return true;
}
