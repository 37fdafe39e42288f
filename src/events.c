/* fix2d events: contact begin/end/hit and sensor begin/end, deterministic and rollback-safe.
 * SPDX-License-Identifier: MIT
 *
 * What a game acts on must be as deterministic as the state, and after a rollback the
 * resimulated steps must report the events of the first run. So every event is a function of
 * the state alone:
 *  - contact begin/end: the difference between the arbiter keys at the start of the step and at
 *    its end (after the narrow phase and waking), plus the contacts of shapes destroyed since
 *    the last step (kept in events.pending, which is state: hashed and in both snapshot forms).
 *    A contact "touches" while it has an arbiter, i.e. a manifold point within the speculative
 *    distance (Box2D v3's rule), and it keeps touching while its bodies sleep.
 *  - hits: for each arbiter with hit events on either shape, the fastest approach speed of its
 *    points before the step's impulses (after the previous step, before gravity), reported when
 *    above hit_event_threshold and that point ends the step with a positive normal impulse. A
 *    point that lands this step from a speculative gap reports its hit in the next step, at the
 *    surface, with its speed before landing (see landed_approach).
 *  - sensor begin/end: the sensor overlaps (state, sorted) of the start of the step against the
 *    ones found in it, plus overlaps of destroyed shapes (events.pending).
 * Like contacts, sensor overlaps are found from the positions at the start of the step (the
 * positions the previous step left), so a contact and a sensor see a shape arrive in the same
 * step. Orders: begin and hit events by (shape a, shape b) id, end events by (a, b, then the
 * generations); sensor events by (sensor, visitor) id, then generations. Every array is
 * reserved before the step changes anything, so an allocation failure refuses the step.
 */
#include "core.h"

#include <stdlib.h>

static f2d_shape_id shape_handle(int32_t index, uint32_t generation)
{
	f2d_shape_id id = {index + 1, generation};
	return id;
}

static bool contact_events_on(const f2d_world *w, int32_t a, int32_t b)
{
	return w->shapes[a].enable_contact_events || w->shapes[b].enable_contact_events;
}

/* ---- capacity: everything a step may write, reserved before it changes anything ---- */

bool f2d_events_reserve(f2d_world *w, int32_t pair_count)
{
	f2d_events *e = &w->events;
	int32_t arbs = w->arbiter_count;
	return f2d_grow(w, (void **)&e->start_keys, &e->start_capacity, arbs, sizeof(uint64_t)) &&
	       f2d_grow(w, (void **)&e->overlaps_next, &e->overlaps_next_capacity, pair_count,
	                sizeof(uint64_t)) &&
	       f2d_grow(w, (void **)&e->begin, &e->begin_capacity, pair_count,
	                sizeof(f2d_contact_begin_touch_event)) &&
	       f2d_grow(w, (void **)&e->end, &e->end_capacity, arbs + e->pending_count,
	                sizeof(f2d_contact_end_touch_event)) &&
	       f2d_grow(w, (void **)&e->hit, &e->hit_capacity, pair_count,
	                sizeof(f2d_contact_hit_event)) &&
	       f2d_grow(w, (void **)&e->approach, &e->approach_capacity, pair_count,
	                sizeof(fix16_t)) &&
	       f2d_grow(w, (void **)&e->approach_point, &e->approach_point_capacity, pair_count,
	                sizeof(int32_t)) &&
	       f2d_grow(w, (void **)&e->sensor_begin, &e->sensor_begin_capacity, pair_count,
	                sizeof(f2d_sensor_begin_touch_event)) &&
	       f2d_grow(w, (void **)&e->sensor_end, &e->sensor_end_capacity,
	                e->overlap_count + e->pending_count, sizeof(f2d_sensor_end_touch_event));
}

void f2d_events_clear_output(f2d_world *w)
{
	f2d_events *e = &w->events;
	e->begin_count = e->end_count = e->hit_count = 0;
	e->sensor_begin_count = e->sensor_end_count = 0;
}

/* ---- the arbiters' pair keys, 4 at a time (AVX2) ----
 * An arbiter's first 8 bytes are shape_a then shape_b (core.h), so its little-endian 64-bit
 * word is shape_b << 32 | shape_a: the dword swap of f2d_pair_key(shape_a, shape_b) (the same
 * bits, without the compiler's sign or zero extension: both are the 32-bit words themselves).
 * keys4_avx2 gathers the words of arbiters k .. k + 3 and swaps them. */
#if F2D_X86_SIMD
#include "simd_x86.h"

#include <stddef.h>

_Static_assert(offsetof(f2d_arbiter, shape_a) == 0 && offsetof(f2d_arbiter, shape_b) == 4 &&
                   sizeof(f2d_arbiter) % 8 == 0,
               "keys4_avx2 reads an arbiter's shapes as its first 64-bit word");
F2D_TARGET_AVX2 static inline __m256i keys4_avx2(const f2d_arbiter *arb)
{
	const int32_t q = (int32_t)(sizeof(f2d_arbiter) / 8);
	const __m128i idx = _mm_setr_epi32(0, q, 2 * q, 3 * q);
	__m256i x = _mm256_i32gather_epi64((const long long *)(const void *)arb, idx, 8);
	return _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
}

/* f2d_events_begin_step's keys of arbiters 0 .. n - 1 rounded down to a multiple of 4 into
 * key[]; returns how many */
F2D_TARGET_AVX2 static int32_t start_keys_avx2(const f2d_arbiter *arb, int32_t n, uint64_t *key)
{
	int32_t k = 0;
	for (; k + 4 <= n; k += 4) {
		_mm256_storeu_si256((__m256i *)(void *)(key + k), keys4_avx2(arb + k));
	}
	return k;
}

/* contact_diff's run of equal keys from old[i] and arbiter k on, by 4: how many (a multiple
 * of 4, at most the smaller of n_old - i and n_new - k rounded down) match */
F2D_TARGET_AVX2 static int32_t same_run_avx2(const uint64_t *old, int32_t n_old,
                                             const f2d_arbiter *arb, int32_t n_new)
{
	int32_t j = 0;
	for (; j + 4 <= n_old && j + 4 <= n_new; j += 4) {
		__m256i eq = _mm256_cmpeq_epi64(
		    _mm256_loadu_si256((const __m256i *)(const void *)(old + j)), keys4_avx2(arb + j));
		if (f2d_bits_256(eq) != 15u) {
			break;
		}
	}
	return j;
}
#endif

/* The arbiter keys at the start of the step (before f2d_update_contacts replaces them). */
void f2d_events_begin_step(f2d_world *w)
{
	f2d_events *e = &w->events;
	int32_t i = 0;
#if F2D_X86_SIMD
	if (f2d_kernel_level() != F2D_KERNEL_SCALAR) {
		i = start_keys_avx2(w->arbiters, w->arbiter_count, e->start_keys);
	}
#endif
	for (; i < w->arbiter_count; ++i) {
		e->start_keys[i] = f2d_pair_key(w->arbiters[i].shape_a, w->arbiters[i].shape_b);
	}
	e->start_count = w->arbiter_count;
	e->overlaps_next_count = 0;
}

/* A pair the broad phase reported with a sensor in it (f2d_should_collide allowed it): when the
 * shapes overlap (a manifold point at zero speculative distance: touching counts), the overlap
 * (sensor << 32 | visitor) is recorded. Pairs come in key order, overlaps are sorted later. */
void f2d_events_sensor_pair(f2d_world *w, int32_t ia, int32_t ib)
{
	const f2d_shape *sa = &w->shapes[ia], *sb = &w->shapes[ib];
	f2d_manifold m;
	f2d_collide(sa, sb, 0, &m);
	if (m.count == 0) {
		return;
	}
	f2d_events *e = &w->events;
	e->overlaps_next[e->overlaps_next_count++] =
	    sa->is_sensor ? f2d_pair_key(ia, ib) : ((uint64_t)(uint32_t)ib << 32 | (uint32_t)ia);
}

/* Relative normal velocity of B against A at point k of arb, 64-bit exact, saturated. */
static fix16_t approach_speed(const f2d_world *w, const f2d_arbiter *arb, int32_t k)
{
	const f2d_body *a = &w->bodies[arb->body_a], *b = &w->bodies[arb->body_b];
	const f2d_contact_point *cp = &arb->points[k];
	int64_t dvx = (int64_t)b->v.x - f2d_round16((int64_t)b->w * cp->r_b.y) - a->v.x +
	              f2d_round16((int64_t)a->w * cp->r_a.y);
	int64_t dvy = (int64_t)b->v.y + f2d_round16((int64_t)b->w * cp->r_b.x) - a->v.y -
	              f2d_round16((int64_t)a->w * cp->r_a.x);
	/* |dv| < 2^34, |n| <= 2^16: the dot product fits easily */
	int64_t vn = f2d_round16(dvx * arb->normal.x + dvy * arb->normal.y);
	return f2d_sat(-vn);
}

/* A fast impact (issue 15) whose speculative gap takes more than half the step to close lands
 * this step, stopped at the surface, and bounces the next (solver.c, landed_bounces): its hit is
 * the next step's, at the surface, with the approach speed it had before the impulse that
 * stopped it, which the point still carries: approach + k_n P_n (k_n = 1/m_a + 1/m_b +
 * (r_a x n)^2 / I_a + (r_b x n)^2 / I_b), for a touching point (|s| <= slop) approaching at
 * more than half the hit threshold. Saturated to fix16. A point whose landing step reported
 * its hit (the gap closed in less than half that step) reports none now. */
static bool lands_this_step(const f2d_world *w, const f2d_contact_point *cp, fix16_t approach)
{
	fix16_t s = cp->separation;
	return s > 0 && 2 * f2d_round16((int64_t)s * w->inv_h) >= approach;
}

static fix16_t landed_approach(const f2d_world *w, const f2d_arbiter *arb,
                               const f2d_contact_point *cp, fix16_t approach)
{
	fix16_t s = cp->separation;
	if (cp->pn <= 0 || s > w->def.linear_slop || s < -w->def.linear_slop ||
	    2 * (int64_t)approach <= w->def.hit_event_threshold) {
		return approach;
	}
	const f2d_body *a = &w->bodies[arb->body_a], *b = &w->bodies[arb->body_b];
	int64_t rna = f2d_cross(cp->r_a, arb->normal), rnb = f2d_cross(cp->r_b, arb->normal);
	int64_t kn = (int64_t)a->inv_mass + b->inv_mass +
	             f2d_round16(a->inv_inertia * f2d_round16(rna * rna)) +
	             f2d_round16(b->inv_inertia * f2d_round16(rnb * rnb));
	if (kn <= 0) {
		return approach;
	}
	int64_t added = kn > INT64_MAX / cp->pn ? (int64_t)INT32_MAX : f2d_round16(cp->pn * kn);
	int64_t before = (int64_t)approach + added;
	/* The landing step's approach was before - h g (its gravity, also taken by the impulse)
	 * and the speed left now is s / h: it was deferred (2 s / h >= its approach) only when
	 * 2 approach >= before - h |g|; otherwise that step reported the hit and this is its
	 * continuation: no second hit. */
	int64_t hg =
	    f2d_round16((int64_t)w->h * ((int64_t)f2d_abs(w->gravity.x) + f2d_abs(w->gravity.y)));
	if (2 * (int64_t)approach < before - hg) {
		return 0;
	}
	return f2d_sat(before);
}

/* Before the step's impulses (and gravity): the fastest approach of each hit-enabled arbiter. */
void f2d_events_measure_approach(f2d_world *w)
{
	f2d_events *e = &w->events;
	e->approach_count = w->hit_shape_count > 0 ? w->arbiter_count : 0;
	for (int32_t i = 0; i < e->approach_count; ++i) {
		const f2d_arbiter *arb = &w->arbiters[i];
		e->approach[i] = 0;
		e->approach_point[i] = -1;
		if (!w->shapes[arb->shape_a].enable_hit_events &&
		    !w->shapes[arb->shape_b].enable_hit_events) {
			continue;
		}
		for (int32_t k = 0; k < arb->count; ++k) {
			fix16_t s = approach_speed(w, arb, k);
			if (lands_this_step(w, &arb->points[k], s)) {
				continue; /* its hit is the next step's */
			}
			s = landed_approach(w, arb, &arb->points[k], s);
			if (s > e->approach[i]) {
				e->approach[i] = s;
				e->approach_point[i] = k;
			}
		}
	}
}

static int compare_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : (a > b ? 1 : 0);
}

/* overlap keys (sensor << 32 | visitor) are distinct: a total order */
static int compare_keys(const void *x, const void *y)
{
	return compare_u64(*(const uint64_t *)x, *(const uint64_t *)y);
}

/* End events by (a, b, gen_a, gen_b): a total order, and records that compare equal are equal in
 * every byte (these four fields are all they hold), so qsort's instability cannot show. */
static int compare_contact_end(const void *x, const void *y)
{
	const f2d_contact_end_touch_event *a = x, *b = y;
	int c = compare_u64(f2d_pair_key(a->shape_a.index1, a->shape_b.index1),
	                    f2d_pair_key(b->shape_a.index1, b->shape_b.index1));
	if (c == 0) {
		c = compare_u64((uint64_t)a->shape_a.generation << 32 | a->shape_b.generation,
		                (uint64_t)b->shape_a.generation << 32 | b->shape_b.generation);
	}
	return c;
}

static int compare_sensor_end(const void *x, const void *y)
{
	const f2d_sensor_end_touch_event *a = x, *b = y;
	f2d_contact_end_touch_event ca = {a->sensor_shape, a->visitor_shape};
	f2d_contact_end_touch_event cb = {b->sensor_shape, b->visitor_shape};
	return compare_contact_end(&ca, &cb);
}

static void contact_diff(f2d_world *w)
{
	f2d_events *e = &w->events;
	int32_t i = 0, k = 0;
	const int32_t n_old = e->start_count, n_new = w->arbiter_count;
#if F2D_X86_SIMD
	const bool simd = f2d_kernel_level() != F2D_KERNEL_SCALAR;
#endif
	while (i < n_old || k < n_new) {
#if F2D_X86_SIMD
		/* the equal keys by 4 first: no event there (only where 4 are left on both sides,
		 * which also keeps a null array with no arbiters out of the pointer arithmetic) */
		if (simd && i + 4 <= n_old && k + 4 <= n_new) {
			int32_t run = same_run_avx2(e->start_keys + i, n_old - i, w->arbiters + k,
			                            n_new - k);
			i += run;
			k += run;
			if (i >= n_old && k >= n_new) {
				break;
			}
		}
#endif
		uint64_t ko = i < n_old ? e->start_keys[i] : UINT64_MAX;
		uint64_t kn = k < n_new
		                  ? f2d_pair_key(w->arbiters[k].shape_a, w->arbiters[k].shape_b)
		                  : UINT64_MAX;
		if (ko == kn) {
			++i;
			++k;
			continue;
		}
		int32_t a = (int32_t)((ko < kn ? ko : kn) >> 32);
		int32_t b = (int32_t)((ko < kn ? ko : kn) & 0xFFFFFFFFu);
		if (contact_events_on(w, a, b)) {
			f2d_shape_id ha = shape_handle(a, w->shapes[a].generation);
			f2d_shape_id hb = shape_handle(b, w->shapes[b].generation);
			if (ko < kn) {
				e->end[e->end_count].shape_a = ha;
				e->end[e->end_count++].shape_b = hb;
			} else {
				e->begin[e->begin_count].shape_a = ha;
				e->begin[e->begin_count++].shape_b = hb;
			}
		}
		if (ko < kn) {
			++i;
		} else {
			++k;
		}
	}
}

static void hit_events(f2d_world *w)
{
	f2d_events *e = &w->events;
	for (int32_t i = 0; i < e->approach_count; ++i) { /* 0 without hit events */
		int32_t k = e->approach_point[i];
		if (k < 0 || e->approach[i] <= w->def.hit_event_threshold) {
			continue;
		}
		const f2d_arbiter *arb = &w->arbiters[i];
		if (k >= arb->count || arb->points[k].pn <= 0) {
			continue;
		}
		f2d_contact_hit_event *h = &e->hit[e->hit_count++];
		h->shape_a = shape_handle(arb->shape_a, w->shapes[arb->shape_a].generation);
		h->shape_b = shape_handle(arb->shape_b, w->shapes[arb->shape_b].generation);
		h->point = f2d_add(w->bodies[arb->body_a].center, arb->points[k].r_a);
		h->normal = arb->normal;
		h->approach_speed = e->approach[i];
	}
}

static void sensor_diff(f2d_world *w)
{
	f2d_events *e = &w->events;
	if (e->overlaps_next_count > 1) {
		qsort(e->overlaps_next, (size_t)e->overlaps_next_count, sizeof(uint64_t),
		      compare_keys);
	}
	int32_t i = 0, k = 0;
	const int32_t n_old = e->overlap_count, n_new = e->overlaps_next_count;
	while (i < n_old || k < n_new) {
		uint64_t ko = i < n_old ? e->overlaps[i] : UINT64_MAX;
		uint64_t kn = k < n_new ? e->overlaps_next[k] : UINT64_MAX;
		if (ko == kn) {
			++i;
			++k;
			continue;
		}
		uint64_t key = ko < kn ? ko : kn;
		int32_t s = (int32_t)(key >> 32), v = (int32_t)(key & 0xFFFFFFFFu);
		f2d_shape_id hs = shape_handle(s, w->shapes[s].generation);
		f2d_shape_id hv = shape_handle(v, w->shapes[v].generation);
		if (ko < kn) {
			e->sensor_end[e->sensor_end_count].sensor_shape = hs;
			e->sensor_end[e->sensor_end_count++].visitor_shape = hv;
			++i;
		} else {
			e->sensor_begin[e->sensor_begin_count].sensor_shape = hs;
			e->sensor_begin[e->sensor_begin_count++].visitor_shape = hv;
			++k;
		}
	}
	uint64_t *t = e->overlaps;
	int32_t tc = e->overlap_capacity;
	e->overlaps = e->overlaps_next;
	e->overlap_capacity = e->overlaps_next_capacity;
	e->overlap_count = e->overlaps_next_count;
	e->overlaps_next = t;
	e->overlaps_next_capacity = tc;
	e->overlaps_next_count = 0;
}

/* The pairs of shapes destroyed since the last step end now. */
static void pending_ends(f2d_world *w)
{
	f2d_events *e = &w->events;
	for (int32_t i = 0; i < e->pending_count; ++i) {
		const f2d_pending_end *p = &e->pending[i];
		f2d_shape_id ha = shape_handle(p->a, p->gen_a), hb = shape_handle(p->b, p->gen_b);
		if (p->sensor) {
			e->sensor_end[e->sensor_end_count].sensor_shape = ha;
			e->sensor_end[e->sensor_end_count++].visitor_shape = hb;
		} else {
			e->end[e->end_count].shape_a = ha;
			e->end[e->end_count++].shape_b = hb;
		}
	}
	e->pending_count = 0;
}

/* After the solve: the step's events, from the state alone. */
void f2d_events_end_step(f2d_world *w)
{
	f2d_events *e = &w->events;
	contact_diff(w);
	hit_events(w);
	sensor_diff(w);
	pending_ends(w);
	if (e->end_count > 1) {
		qsort(e->end, (size_t)e->end_count, sizeof *e->end, compare_contact_end);
	}
	if (e->sensor_end_count > 1) {
		qsort(e->sensor_end, (size_t)e->sensor_end_count, sizeof *e->sensor_end,
		      compare_sensor_end);
	}
}

/* ---- destroying a shape ---- */

/* How many pending ends destroying shape would record. */
int32_t f2d_events_destroy_need(const f2d_world *w, int32_t shape)
{
	const f2d_events *e = &w->events;
	int32_t n = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		n += w->arbiters[i].shape_a == shape || w->arbiters[i].shape_b == shape ? 1 : 0;
	}
	for (int32_t i = 0; i < e->overlap_count; ++i) {
		n += (int32_t)(e->overlaps[i] >> 32) == shape ||
		             (int32_t)(e->overlaps[i] & 0xFFFFFFFFu) == shape
		         ? 1
		         : 0;
	}
	return n;
}

/* Room for n more pending ends (before anything is destroyed). */
bool f2d_events_reserve_pending(f2d_world *w, int32_t n)
{
	f2d_events *e = &w->events;
	return f2d_grow(w, (void **)&e->pending, &e->pending_capacity, e->pending_count + n,
	                sizeof(f2d_pending_end));
}

/* A contact removed outside the step (a joint made between its bodies): with events on, its
 * end event is owed to the next step (room reserved by f2d_events_reserve_pending). */
void f2d_events_contact_removed(f2d_world *w, const f2d_arbiter *arb)
{
	f2d_events *e = &w->events;
	if (!contact_events_on(w, arb->shape_a, arb->shape_b)) {
		return;
	}
	f2d_pending_end *p = &e->pending[e->pending_count++];
	p->sensor = 0;
	p->a = arb->shape_a;
	p->b = arb->shape_b;
	p->gen_a = w->shapes[arb->shape_a].generation;
	p->gen_b = w->shapes[arb->shape_b].generation;
}

/* The shape's contacts (with events on) and sensor overlaps end: recorded for the next step,
 * and the overlaps removed. Call before the arbiters go (f2d_remove_arbiters_of_shape). */
void f2d_events_shape_destroyed(f2d_world *w, int32_t shape)
{
	f2d_events *e = &w->events;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *arb = &w->arbiters[i];
		if (arb->shape_a == shape || arb->shape_b == shape) {
			f2d_events_contact_removed(w, arb);
		}
	}
	int32_t k = 0;
	for (int32_t i = 0; i < e->overlap_count; ++i) {
		int32_t s = (int32_t)(e->overlaps[i] >> 32),
		        v = (int32_t)(e->overlaps[i] & 0xFFFFFFFFu);
		if (s == shape || v == shape) {
			f2d_pending_end *p = &e->pending[e->pending_count++];
			p->sensor = 1;
			p->a = s;
			p->b = v;
			p->gen_a = w->shapes[s].generation;
			p->gen_b = w->shapes[v].generation;
		} else {
			e->overlaps[k++] = e->overlaps[i];
		}
	}
	e->overlap_count = k;
}

void f2d_events_free(f2d_world *w)
{
	f2d_events *e = &w->events;
	f2d_free(w, e->overlaps, (size_t)e->overlap_capacity * sizeof(uint64_t));
	f2d_free(w, e->overlaps_next, (size_t)e->overlaps_next_capacity * sizeof(uint64_t));
	f2d_free(w, e->pending, (size_t)e->pending_capacity * sizeof(f2d_pending_end));
	f2d_free(w, e->start_keys, (size_t)e->start_capacity * sizeof(uint64_t));
	f2d_free(w, e->approach, (size_t)e->approach_capacity * sizeof(fix16_t));
	f2d_free(w, e->approach_point, (size_t)e->approach_point_capacity * sizeof(int32_t));
	f2d_free(w, e->begin, (size_t)e->begin_capacity * sizeof(f2d_contact_begin_touch_event));
	f2d_free(w, e->end, (size_t)e->end_capacity * sizeof(f2d_contact_end_touch_event));
	f2d_free(w, e->hit, (size_t)e->hit_capacity * sizeof(f2d_contact_hit_event));
	f2d_free(w, e->sensor_begin,
	         (size_t)e->sensor_begin_capacity * sizeof(f2d_sensor_begin_touch_event));
	f2d_free(w, e->sensor_end,
	         (size_t)e->sensor_end_capacity * sizeof(f2d_sensor_end_touch_event));
	memset(e, 0, sizeof *e);
}

/* ---- public ---- */

void f2d_world_get_contact_events(const f2d_world *w, f2d_contact_events *out)
{
	if (out == NULL) {
		return;
	}
	memset(out, 0, sizeof *out);
	if (w == NULL) {
		return;
	}
	const f2d_events *e = &w->events;
	out->begin_events = e->begin;
	out->begin_count = e->begin_count;
	out->end_events = e->end;
	out->end_count = e->end_count;
	out->hit_events = e->hit;
	out->hit_count = e->hit_count;
}

void f2d_world_get_sensor_events(const f2d_world *w, f2d_sensor_events *out)
{
	if (out == NULL) {
		return;
	}
	memset(out, 0, sizeof *out);
	if (w == NULL) {
		return;
	}
	const f2d_events *e = &w->events;
	out->begin_events = e->sensor_begin;
	out->begin_count = e->sensor_begin_count;
	out->end_events = e->sensor_end;
	out->end_count = e->sensor_end_count;
}
