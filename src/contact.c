/* fix2d contacts: arbiters (persistent contact manifolds with warm starting) and
 * the contact part of the sequential-impulse solver (seed 000, Box2D-lite's Arbiter).
 * SPDX-License-Identifier: MIT
 *
 * Determinism: the candidate pairs come from the broad phase (broadphase.c) sorted by their key
 * (shape_a << 32 | shape_b), a function of ids and positions only, and are merged with the
 * previous step's arbiters, which are kept sorted by the same key. The solver therefore visits
 * arbiters in key order, whatever the history of the world.
 */
#include "core.h"
#include "recycle_simd.h"

/* ---- which pairs may touch ---- */

/* Box2D's rule: the same non-zero group decides (positive: always, negative: never), else each
 * shape's category must be in the other's mask. */
static bool filter_allows(const f2d_filter *a, const f2d_filter *b)
{
	if (a->group_index == b->group_index && a->group_index != 0) {
		return a->group_index > 0;
	}
	return (a->mask_bits & b->category_bits) != 0 && (a->category_bits & b->mask_bits) != 0;
}

bool f2d_should_collide(const f2d_world *w, int32_t shape_a, int32_t shape_b)
{
	const f2d_shape *sa = &w->shapes[shape_a], *sb = &w->shapes[shape_b];
	if (sa->body == sb->body) {
		return false;
	}
	const f2d_body *ba = &w->bodies[sa->body], *bb = &w->bodies[sb->body];
	if (ba->type != F2D_DYNAMIC_BODY && bb->type != F2D_DYNAMIC_BODY) {
		return false;
	}
	bool sensor = sa->is_sensor || sb->is_sensor;
	if (sensor && (sa->is_sensor == sb->is_sensor || !sa->enable_sensor_events ||
	               !sb->enable_sensor_events)) {
		return false; /* sensors do not see sensors; both must want sensor events */
	}
	if (!filter_allows(&sa->filter, &sb->filter)) {
		return false;
	}
	/* a joint without collide_connected keeps its bodies' contacts apart (not sensors) */
	return sensor || ba->joint_count == 0 || bb->joint_count == 0 ||
	       !f2d_bodies_joined(w, sa->body, sb->body);
}

/* ---- arbiters ---- */

/* Fills arb (key ia < ib) from the manifold m of the pair; a point made by the same features as
 * a point of prev (NULL for a new pair) inherits its accumulated impulses. Returns the point
 * count (0: the shapes are apart, arb is not used). */
static int32_t fill_arbiter(const f2d_world *w, const f2d_arbiter *prev, int32_t ia, int32_t ib,
                            const f2d_manifold *m, f2d_arbiter *arb)
{
	if (m->count == 0) {
		return 0;
	}
	const f2d_shape *sa = &w->shapes[ia];
	const f2d_shape *sb = &w->shapes[ib];
	const f2d_body *ba = &w->bodies[sa->body];
	const f2d_body *bb = &w->bodies[sb->body];
	/* What the new points inherit from prev: ids and impulses only, read before arb is
	 * written (prev may be arb itself: a frozen arbiter refreshed in place). */
	/* an old point past old_count gets the id UINT32_MAX, which no manifold makes (feature ids
	 * are below 2^19: collision.c, shapes.c), so it never matches: the match below is the
	 * first old point with the id, without a loop */
	uint32_t old_id[2] = {UINT32_MAX, UINT32_MAX};
	fix16_t old_pn[2] = {0, 0}, old_pt[2] = {0, 0};
	if (prev != NULL) {
		int32_t old_count = w->def.warm_starting ? prev->count : 0;
		for (int32_t k = 0; k < 2; ++k) {
			old_id[k] = k < old_count ? prev->points[k].id : UINT32_MAX;
			old_pn[k] = prev->points[k].pn;
			old_pt[k] = prev->points[k].pt;
		}
		arb->friction = prev->friction;
		arb->restitution = prev->restitution;
	} else {
		/* mixing rules: friction sqrt(mu_a mu_b), restitution max(e_a, e_b) */
		arb->friction = f2d_sqrt(f2d_mul(sa->friction, sb->friction));
		arb->restitution = f2d_max(sa->restitution, sb->restitution);
	}
	arb->shape_a = ia;
	arb->shape_b = ib;
	arb->body_a = sa->body;
	arb->body_b = sb->body;
	arb->normal = m->normal;
	arb->count = (int8_t)m->count; /* 0..2 */
	arb->frozen = false;
	for (int32_t i = 0; i < m->count; ++i) {
		f2d_contact_point *cp = &arb->points[i];
		uint32_t id = m->points[i].id;
		cp->id = id;
		cp->separation = m->points[i].separation;
		cp->r_a = f2d_sub(m->points[i].point, ba->center);
		cp->r_b = f2d_sub(m->points[i].point, bb->center);
		/* the first old point made by the same features (none without warm starting) */
		bool k0 = old_id[0] == id, k1 = old_id[1] == id;
		cp->pn = k0 ? old_pn[0] : (k1 ? old_pn[1] : 0);
		cp->pt = k0 ? old_pt[0] : (k1 ? old_pt[1] : 0);
	}
	for (int32_t i = m->count; i < 2; ++i) {
		memset(&arb->points[i], 0, sizeof arb->points[i]);
	}
	return m->count;
}

/* ---- the speculative distance of a pair (issue 15) ----
 * Box2D keeps contact points up to a fixed gap and leaves faster approaches to continuous
 * collision; with a fixed 0.04 m a ball at 10 m/s (0.17 m per step) meets the ground's contact
 * only after passing the surface, by up to 0.14 m. Here a pair keeps points up to the fixed
 * distance plus what its bodies can close this step, so the solver's speculative term
 * (vn >= -s / h for a gap s, solver.c) stops the body at the surface, as Box2D v3's does within
 * its margin:
 *   closing = |sweep_b - sweep_a|_1 + h (|w_a| e_a + |w_b| e_b),
 * sweep the bodies' predicted motions (f2d_body_sweep, which stretched their AABBs, so the pair
 * is found), e a bound on the shape's distance from its body's centre of mass (its AABB's
 * farthest side from the centre, times 3/2 > sqrt 2, as the AABB's corner may be the farthest
 * point), h |w| e the shape's turn (broadphase.c, every step; the turn per step rounded up),
 * their sum rounded down to the sweep quantum (a resting body's jitter adds nothing); at most
 * F2D_MAX_CLOSING, and 0 when at most half the fixed distance (which covers such approaches
 * already: slow and resting contacts are unchanged). An overestimate only keeps points that the
 * solver leaves alone unless the approach along their normal is faster than the gap allows.
 * Every term is state or the broad phase's per-step cache of state, so the pair's value is the
 * same whenever its inputs are: the manifold shortcut below keeps a manifold only when the
 * value is the one it was built with. */
static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

fix16_t f2d_pair_speculative(const f2d_world *w, const f2d_shape *a, const f2d_shape *b)
{
	/* the sweeps are multiples of the quantum; the turns are rounded down to one (a resting
	 * body's jitter adds nothing) */
	int64_t q = F2D_SWEEP_QUANTUM;
	int64_t closing = f2d_abs64((int64_t)b->sweep.x - a->sweep.x) +
	                  f2d_abs64((int64_t)b->sweep.y - a->sweep.y) +
	                  ((int64_t)a->turn + b->turn) / q * q;
	/* what the fixed distance covers (an approach of up to half of it per step) keeps the
	 * fixed distance: slow and resting contacts are those of before */
	if (closing <= w->def.speculative_distance / 2) {
		return w->def.speculative_distance;
	}
	closing = min64(closing, F2D_MAX_CLOSING);
	return w->def.speculative_distance + (fix16_t)closing;
}

/* f2d_pair_speculative from the merge's records of the shapes (core.h f2d_shape_step: their
 * sweep and turn, copied), spec0 the world's speculative distance: the same value. The turns
 * are in [0, 2^21] (core.h), so their sum is >= 0 and its multiple of the quantum below it,
 * (t / q) * q, is t with the low bits cleared (q = 2^8). */
static inline fix16_t step_speculative(fix16_t spec0, const f2d_shape_step *a,
                                       const f2d_shape_step *b)
{
	int64_t closing = f2d_abs64((int64_t)b->sweep.x - a->sweep.x) +
	                  f2d_abs64((int64_t)b->sweep.y - a->sweep.y) +
	                  (((int64_t)a->turn + b->turn) & -(int64_t)F2D_SWEEP_QUANTUM);
	if (closing <= spec0 / 2) {
		return spec0;
	}
	closing = min64(closing, F2D_MAX_CLOSING);
	return spec0 + (fix16_t)closing;
}

fix16_t f2d_step_speculative(fix16_t spec0, const f2d_shape_step *a, const f2d_shape_step *b)
{
	return step_speculative(spec0, a, b);
}

/* ---- contact recycling (issue 16; Box2D v3's b2CollideTask, in Q16.16 integers) ----
 * A manifold built with the fixed speculative distance while recycling is on caches what the
 * rule reads later: each point's separation and the bodies' rotations at the build (its anchors
 * r_a, r_b and normal are the manifold's own). Else the cache is zero and recycle is 0. */
static void set_recycle_cache(const f2d_world *w, f2d_arbiter *arb, int32_t n, fix16_t spec)
{
	bool on = n > 0 && w->def.contact_recycle_distance > 0 && spec == w->def.speculative_distance;
	arb->recycle = on ? 1 : 0;
	arb->base_separation[0] = on ? arb->points[0].separation : 0;
	arb->base_separation[1] = on && n == 2 ? arb->points[1].separation : 0;
	arb->cached_q_a = on ? w->bodies[arb->body_a].q : (f2d_rot){0, 0};
	arb->cached_q_b = on ? w->bodies[arb->body_b].q : (f2d_rot){0, 0};
}

/* q conj(c): the turn from c to q. |q.c|, |q.s|, |c.c|, |c.s| <= 2^16 + 2^8 (a rotation's
 * components, normalised to one within rounding), so each product is below 2^34 and the sums
 * below 2^35: exact in int64; the result's components are below 2^18. */
static inline f2d_rot turn_since(f2d_rot q, f2d_rot c)
{
	/* no turn is exactly none (c.c^2 + c.s^2 may round off one): with poses unchanged since the
	 * build, dp = (c_b - c_a) + r_b - r_a = 0 exactly (r = point - centre, exact differences)
	 * and the separations are the built ones, which f2d_update_contacts relies on */
	if (q.c == c.c && q.s == c.s) {
		return (f2d_rot){F2D_ONE, 0};
	}
	f2d_rot d;
	d.c = (fix16_t)f2d_round16((int64_t)q.c * c.c + (int64_t)q.s * c.s);
	d.s = (fix16_t)f2d_round16((int64_t)q.s * c.c - (int64_t)q.c * c.s);
	return d;
}

/* rotate(d, r) - its components: |d| < 2^18, |r| < 2^31, products below 2^49, sums below
 * 2^50: exact in int64; the result (|r| times about one) is kept in int64. */
static inline void turned(f2d_rot d, f2d_vec2 r, int64_t *x, int64_t *y)
{
	*x = f2d_round16((int64_t)d.c * r.x - (int64_t)d.s * r.y);
	*y = f2d_round16((int64_t)d.s * r.x + (int64_t)d.c * r.y);
}

static int32_t reuse_arbiter(const f2d_world *w, const f2d_arbiter *prev, f2d_arbiter *arb);

/* The rule (include/fix2d/types.h, contact_recycle_distance): true when prev's manifold is kept
 * (written to arb, which may be prev) with the points' separations updated; false leaves arb
 * alone. spec is the pair's speculative distance this step. Ranges (no overflow): centres are
 * within the world range (|c| < 2^31), so dc = c_b - c_a < 2^32; the turned anchors are below
 * 2^32 (turned); dp < 2^34 and its L1 norm below 2^35; reach <= F2D_MAX_CLOSING = 2^19
 * (f2d_shape_reach clamps it) and |sin turn| < 2^18, so their product is below 2^37 and the
 * sum tested below 2^38: int64. A separation is updated only when |dp.x| + |dp.y| < distance
 * <= 2^14 (0.25 m), so |dot(dp, n)| < 2^14 (2^16 + 2^8) < 2^31, and base + that is saturated
 * to fix16.
 * Order of the work (the same answer as testing each point's |dp|_1 + sweep in turn: the
 * rule holds when it holds for the largest |dp|_1, l1, and the sweep is >= 0): the points'
 * dp first, then the sweep only when it can decide. l1 >= distance fails whatever the sweep;
 * the sweep is at most ub = (2^19 |sin| + 0xFFFF) >> 16 (the reach's clamp), so l1 + ub <
 * distance holds whatever the reach, and the shapes' reaches and the bodies' types (two more
 * cache lines) are read only in between (a resting stack: almost never). */
/* each point's dp = (c_b - c_a) + rotate(db, r_b) - rotate(da, r_a) (d = dx0, dy0, dx1, dy1)
 * and their largest |dp|_1, l1 */
static inline void points_dp(const f2d_arbiter *prev, const f2d_body *ba, const f2d_body *bb,
                             f2d_rot da, f2d_rot db, int64_t d[4], int64_t *l1)
{
	int64_t dcx = (int64_t)bb->center.x - ba->center.x;
	int64_t dcy = (int64_t)bb->center.y - ba->center.y;
	*l1 = 0;
	for (int32_t i = 0; i < prev->count; ++i) {
		int64_t ax, ay, bx, by;
		turned(da, prev->points[i].r_a, &ax, &ay);
		turned(db, prev->points[i].r_b, &bx, &by);
		d[2 * i] = dcx + bx - ax;
		d[2 * i + 1] = dcy + by - ay;
		int64_t n1 = f2d_abs64(d[2 * i]) + f2d_abs64(d[2 * i + 1]);
		*l1 = n1 > *l1 ? n1 : *l1;
	}
}

/* point i's separation when recycled: base + dot(dp, normal), saturated. With |dp| < 2^34 (the
 * ranges above; the rule itself keeps only |dp|_1 < distance) and normal components within
 * 2^16 + 2^8, the dot is below 2^52 and base + its rounding below 2^37: int64. */
static inline fix16_t recycled_separation(const f2d_arbiter *prev, int32_t i, const int64_t d[4])
{
	return f2d_sat(prev->base_separation[i] +
	               f2d_round16(d[2 * i] * prev->normal.x + d[2 * i + 1] * prev->normal.y));
}

/* the scalar reference of the turns and dp (f2d_recycle_dp_256 is its AVX2 form): false when
 * a turn's cosine is below F2D_RECYCLE_COS, else the turns, d = dx0, dy0, dx1, dy1 and l1 */
static bool recycle_dp(const f2d_arbiter *prev, const f2d_body *ba, const f2d_body *bb,
                       f2d_rot *da, f2d_rot *db, int64_t d[4], int64_t *l1)
{
	*da = turn_since(ba->q, prev->cached_q_a);
	*db = turn_since(bb->q, prev->cached_q_b);
	if (da->c < F2D_RECYCLE_COS || db->c < F2D_RECYCLE_COS) {
		return false;
	}
	points_dp(prev, ba, bb, *da, *db, d, l1);
	return true;
}

void f2d_recycled_separations(const f2d_arbiter *a, const f2d_body *ba, const f2d_body *bb,
                              fix16_t sep[2])
{
	int64_t d[4] = {0, 0, 0, 0}, l1;
	points_dp(a, ba, bb, turn_since(ba->q, a->cached_q_a), turn_since(bb->q, a->cached_q_b), d,
	          &l1);
	for (int32_t i = 0; i < a->count; ++i) {
		sep[i] = recycled_separation(a, i, d);
	}
}

/* f2d_recycle_dp_256 reads a rotation pair, the two cached rotations and a point's r_a, r_b as
 * contiguous bytes */
typedef char f2d_recycle_layout_ok[offsetof(f2d_arbiter, cached_q_b) ==
                                           offsetof(f2d_arbiter, cached_q_a) + 8 &&
                                       offsetof(f2d_contact_point, r_b) ==
                                           offsetof(f2d_contact_point, r_a) + 8 &&
                                       sizeof(f2d_rot) == 8 && sizeof(f2d_vec2) == 8
                                   ? 1
                                   : -1];

bool f2d_recycle_arbiter(const f2d_world *w, const f2d_arbiter *prev, f2d_arbiter *arb,
                         fix16_t spec)
{
	return f2d_recycle_arbiter_kernel(w, prev, arb, spec, f2d_kernel_level());
}

static inline bool recycle_rule(const f2d_world *w, const f2d_arbiter *prev, f2d_arbiter *arb,
                                fix16_t spec, int kernel)
{
	const int64_t dist = w->def.contact_recycle_distance;
	const int32_t count = prev->count;
	if (!prev->recycle || dist <= 0 || spec != w->def.speculative_distance || count < 1) {
		return false;
	}
	const f2d_body *ba = &w->bodies[prev->body_a], *bb = &w->bodies[prev->body_b];
	f2d_rot da, db;
	int64_t d[4] = {0, 0, 0, 0}, l1 = 0;
#if F2D_X86_SIMD
	const bool ok = kernel != F2D_KERNEL_SCALAR ? f2d_recycle_dp_256(prev, ba, bb, &da, &db, d, &l1)
	                                            : recycle_dp(prev, ba, bb, &da, &db, d, &l1);
#else
	(void)kernel;
	const bool ok = recycle_dp(prev, ba, bb, &da, &db, d, &l1);
#endif
	if (!ok || l1 >= dist) {
		return false;
	}
	/* |sin| of the relative turn db conj(da), and the reach of the shapes that can turn */
	int64_t sin_rel = f2d_abs64(f2d_round16((int64_t)db.s * da.c - (int64_t)db.c * da.s));
	if (l1 + ((F2D_MAX_CLOSING * sin_rel + 0xFFFF) >> 16) >= dist) {
		int64_t reach_a = ba->type == F2D_STATIC_BODY ? 0 : w->shapes[prev->shape_a].reach;
		int64_t reach_b = bb->type == F2D_STATIC_BODY ? 0 : w->shapes[prev->shape_b].reach;
		int64_t sweep = ((reach_a > reach_b ? reach_a : reach_b) * sin_rel + 0xFFFF) >> 16;
		if (l1 + sweep >= dist) {
			return false;
		}
	}
	(void)reuse_arbiter(w, prev, arb); /* prev's manifold and impulses, as a kept one */
	arb->speculative = spec;
	for (int32_t i = 0; i < count; ++i) {
		arb->points[i].separation = recycled_separation(prev, i, d);
	}
	return true;
}

bool f2d_recycle_arbiter_kernel(const f2d_world *w, const f2d_arbiter *prev, f2d_arbiter *arb,
                                fix16_t spec, int kernel)
{
	return recycle_rule(w, prev, arb, spec, kernel);
}

bool f2d_recycle_dp_kernel(const f2d_arbiter *prev, const f2d_body *ba, const f2d_body *bb,
                           f2d_rot *da, f2d_rot *db, int64_t d[4], int64_t *l1, int kernel)
{
#if F2D_X86_SIMD
	if (kernel != F2D_KERNEL_SCALAR) {
		return f2d_recycle_dp_256(prev, ba, bb, da, db, d, l1);
	}
#endif
	(void)kernel;
	return recycle_dp(prev, ba, bb, da, db, d, l1);
}

/* fill_arbiter with a fresh manifold from the shapes' world caches (kernel: f2d_kernel_level(),
 * asked once per pass), and the recycling cache. */
static int32_t build_arbiter(const f2d_world *w, const f2d_arbiter *prev, int32_t ia, int32_t ib,
                             f2d_arbiter *arb, int kernel)
{
	f2d_manifold m;
	fix16_t spec = f2d_pair_speculative(w, &w->shapes[ia], &w->shapes[ib]);
	f2d_collide_kernel(&w->shapes[ia], &w->shapes[ib], spec, &m, kernel);
	int32_t n = fill_arbiter(w, prev, ia, ib, &m, arb);
	arb->speculative = spec;
	if (n > 0) {
		set_recycle_cache(w, arb, n, spec);
	}
	return n;
}

/* build_arbiter for a pair whose manifold is prev's: the manifold is what f2d_collide returned
 * when prev was built, and fill_arbiter would make prev again, so prev is copied. Field by
 * field: the keys, bodies (a shape never changes body), friction, restitution, normal, count,
 * ids and separations are prev's; the points were r_a + the centre of A, exactly (r_a = point -
 * centre was an exact difference, and neither centre moved), so r_a and r_b come out as prev's;
 * each point inherits the impulses of the first old point with its id, which is itself unless
 * the two ids are equal (then point 1 takes point 0's), and nothing without warm starting; the
 * unused point is zero (fill_arbiter's memset). tests/test_narrow.c compares worlds that take
 * this shortcut with worlds that rebuild every manifold. */
static int32_t reuse_arbiter(const f2d_world *w, const f2d_arbiter *prev, f2d_arbiter *arb)
{
	int32_t count = prev->count;
	if (count == 0) {
		return 0;
	}
	if (arb != prev) { /* in place (f2d_update_contacts): nothing to copy */
		*arb = *prev;
	}
	arb->frozen = false;
	if (!w->def.warm_starting) {
		arb->points[0].pn = arb->points[0].pt = 0;
		arb->points[1].pn = arb->points[1].pt = 0;
	} else if (count == 2 && arb->points[1].id == arb->points[0].id) {
		arb->points[1].pn = arb->points[0].pn;
		arb->points[1].pt = arb->points[0].pt;
	}
	if (count < 2) {
		memset(&arb->points[1], 0, sizeof arb->points[1]);
	}
	return count;
}

/* The merge is in place (issue 16): the arbiters are merged into the array they are read
 * from. The new arbiter of a pair is written at index count, the old ones are read at index
 * rd >= count, so a removed pair leaves a slot behind and the rest slide down into it. A new
 * pair with no slot left (count == rd) first moves the old arbiter at rd to the back of a FIFO
 * queue (w->arbiters_next, which held the whole second array before: now only the olds an
 * insertion displaced, until a later removal makes room again; on rain1000 several hundred of
 * 1,850 arbiters a step, as a new pair without points queues the slot's old too). The unmerged olds, old number o onwards (key start_keys[o], events.c), are
 * the queue's, in order, then arbs[rd..old_count), rd = o + (tail - head): the old array's
 * sequence, so every arbiter is built from the same prev as before, and the result is the same
 * array in every field a reader sees (tests/test_merge.c checks it against the merge's
 * definition). Memory: the arbiters' lines are read and written in one array that stays in
 * cache, instead of a second array written every step; an old that is removed is not read.
 * The queue never wraps: an old is queued only before a write at its slot, at most one per
 * pair, and w->arbiters_next holds pair_count. */
static int32_t merge_pairs_scalar(f2d_world *w, int kernel);
#if F2D_X86_SIMD
F2D_TARGET_AVX2 static int32_t merge_pairs_avx2(f2d_world *w, int kernel);
#endif

f2d_result f2d_update_contacts(f2d_world *w)
{
	f2d_result r = f2d_find_pairs(w);
	if (r != F2D_OK) {
		return r;
	}
	if (!f2d_grow_aligned(w, (void **)&w->arbiters, &w->arbiter_capacity, w->pair_count,
	                      sizeof(f2d_arbiter)) ||
	    !f2d_grow_aligned(w, (void **)&w->arbiters_next, &w->arbiters_next_capacity,
	                      w->pair_count, sizeof(f2d_arbiter)) ||
	    !f2d_grow(w, (void **)&w->arbiter_geo, &w->arbiter_geo_capacity, w->pair_count,
	              sizeof(uint64_t)) ||
	    !f2d_grow(w, (void **)&w->arbiter_geo_next, &w->arbiter_geo_next_capacity,
	              w->pair_count, sizeof(uint64_t)) ||
	    !f2d_solver_reserve(w, w->pair_count) || !f2d_events_reserve(w, w->pair_count) ||
	    !f2d_continuous_reserve(w)) {
		w->contacts_stale = true; /* the caches moved on, the arbiters did not */
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	f2d_events_begin_step(w);
	const int kernel = f2d_kernel_level();
#if F2D_X86_SIMD
	w->arbiter_count = kernel != F2D_KERNEL_SCALAR ? merge_pairs_avx2(w, kernel)
	                                               : merge_pairs_scalar(w, kernel);
#else
	w->arbiter_count = merge_pairs_scalar(w, kernel);
#endif
	return F2D_OK;
}

/* f2d_update_contacts' merge (see above), compiled twice: rule_kernel a constant, so that the
 * AVX2 instance has the rule's SIMD helper inlined (its constants loaded once a step, no call
 * an arbiter) and the scalar one none of it. Returns the new arbiter count (the olds not merged,
 * keys past the last pair, are removed). */
static inline __attribute__((always_inline)) int32_t merge_pairs(f2d_world *w, const int kernel,
                                                                 const int rule_kernel)
{
	const bool sensors = w->sensor_count > 0;
	/* sleeping off: every arbiter is solved (all_active in world.c relies on this), set here
	 * while the arbiter is in the cache rather than in a pass of its own */
	const bool all_active = !w->def.enable_sleep;
	/* f2d_find_pairs leaves the pair keys and the shapes' records (core.h f2d_shape_step):
	 * the bodies' f2d_body_active, whether the shape's cache was remade (every shape unless
	 * the caches of the previous step could be kept; broadphase.c), the shapes' sweeps and
	 * turns, 16 bytes a shape in one array */
	const uint64_t *pairs = w->pairs;
	const int32_t pair_count = w->pair_count;
	const f2d_shape_step *steps = w->bpc.step;
	const fix16_t spec0 = w->def.speculative_distance;
	f2d_arbiter *arbs = w->arbiters, *queue = w->arbiters_next;
	/* each arbiter's geometry digest (core.h arbiter_geo) moves with it, through the queue */
	uint64_t *geo = w->arbiter_geo, *qgeo = w->arbiter_geo_next;
	const uint64_t *old_keys = w->events.start_keys;
	const int32_t old_count = w->arbiter_count;
	/* merge by key; UINT64_MAX (past the last old arbiter) is above every key, as ids < 2^31 */
	int32_t o = 0, head = 0, tail = 0, count = 0;
	uint64_t old_key = old_count > 0 ? old_keys[0] : UINT64_MAX;
	for (int32_t p = 0; p < pair_count; ++p) {
		uint64_t key = pairs[p];
		int32_t ia = (int32_t)(key >> 32), ib = (int32_t)(key & 0xFFFFFFFFu);
		if (old_key < key) { /* pairs that are gone: removed (the queue's first) */
			int32_t o0 = o;
			do {
				++o;
				old_key = o < old_count ? old_keys[o] : UINT64_MAX;
			} while (old_key < key);
			head = tail - head < o - o0 ? tail : head + (o - o0);
		}
		if (sensors && (w->shapes[ia].is_sensor || w->shapes[ib].is_sensor)) {
			f2d_events_sensor_pair(w, ia, ib); /* an overlap, never an arbiter */
			continue;
		}
		f2d_arbiter *arb = &arbs[count];
		const f2d_arbiter *prev = NULL;
		uint64_t prev_geo = 0;
		if (head == tail) {
			/* the queue is empty (rd = o, the common case): old o is arbs[o], which is arb
			 * itself when count == o (rebuilt in place); else it is not this pair's, and
			 * waits in the queue when it is in the slot */
			if (old_key == key) {
				prev = &arbs[o];
				prev_geo = geo[o];
			} else if (count == o && o < old_count) {
				qgeo[tail] = geo[o];
				queue[tail++] = arbs[o];
			}
		} else {
			/* old o is queue[head]; the slot's old, arbs[rd], is never prev */
			int32_t rd = o + (tail - head);
			if (old_key == key) {
				prev = &queue[head];
				prev_geo = qgeo[head];
			}
			if (count == rd && rd < old_count) {
				qgeo[tail] = geo[rd];
				queue[tail++] = arbs[rd];
			}
		}
		geo[count] = prev_geo; /* prev's geometry, unless a build below makes a new one */
		/* Neither body can move (asleep, static or a resting kinematic): the manifold would
		 * not change, keep the arbiter as it is (frozen; see f2d_refresh_arbiters). The
		 * bodies are prev's: a shape never changes body, and an arbiter's bodies are its
		 * shapes' (fill_arbiter, the snapshot decoders). */
		const f2d_shape_step *ra = &steps[ia], *rb = &steps[ib];
		const uint32_t flags = ra->flags | rb->flags;
		if (prev != NULL && (flags & F2D_STEP_ACTIVE) == 0) {
			if (arb != prev) {
				*arb = *prev;
			}
			arb->frozen = true;
			if (all_active) {
				arb->active = true;
			}
			count++;
			continue;
		}
		/* Neither shape's cache was remade: the manifold is prev's, if prev was built from
		 * the caches of the previous step. Every arbiter that is not frozen was (built or
		 * kept here, or rebuilt by f2d_refresh_arbiters, from that step's caches); a frozen
		 * one may be older (its bodies slept while they moved, or a snapshot restored it),
		 * and is rebuilt. The rest of build_arbiter's input is the same too: the bodies'
		 * centres (a body whose origin and rotation did not change kept its centre: the
		 * step moves the centre and derives origin = centre - rotate(q, local centre)
		 * exactly, and what changes a centre outside the step, a shape made or destroyed
		 * or a transform set, makes the broad phase remake every cache), the speculative
		 * distance (changed only by loading a snapshot, likewise), friction and
		 * restitution (prev's in both cases). */
		/* Then keep (unmoved shapes) before recycling (when on) or a build. Recycling is a
		 * function of the arbiter's state and the bodies' poses only, not of the bitmap or
		 * of frozen (which a restored world does not share), and where keep applies to a
		 * recycled arbiter it gives what recycling would: the poses and the speculative
		 * distance are those prev was recycled (or built: turn_since's exact no-turn) with,
		 * so the same separations. A rolled-back world recycles the same pairs. */
		const bool unmoved = prev != NULL && !prev->frozen && (flags & F2D_STEP_MOVED) == 0;
		const fix16_t spec =
		    unmoved || (prev != NULL && prev->recycle) ? step_speculative(spec0, ra, rb) : 0;
		int32_t n;
		if (unmoved && prev->speculative == spec) {
			n = reuse_arbiter(w, prev, arb);
		} else if (prev != NULL && prev->recycle &&
		           recycle_rule(w, prev, arb, spec, rule_kernel)) {
			n = 1; /* prev's geometry, new separations */
		} else {
			n = build_arbiter(w, prev, ia, ib, arb, kernel);
			/* a new manifold's (a pair without points is dropped: arb is not an arbiter) */
			geo[count] = n > 0 ? f2d_arbiter_geometry_digest(arb) : 0;
		}
		count += n > 0 ? 1 : 0;
		if (all_active) {
			arb->active = true;
		}
	}
	return count;
}

static int32_t merge_pairs_scalar(f2d_world *w, int kernel)
{
	return merge_pairs(w, kernel, F2D_KERNEL_SCALAR);
}

#if F2D_X86_SIMD
F2D_TARGET_AVX2 __attribute__((flatten)) static int32_t merge_pairs_avx2(f2d_world *w, int kernel)
{
	return merge_pairs(w, kernel, F2D_KERNEL_AVX2);
}
#endif

/* A frozen arbiter kept its manifold from the step it was last computed in (or, after a
 * snapshot restore, none: only keys and impulses are state). When its island wakes, the
 * manifold is recomputed from the current positions before the solver uses it; a pair that
 * turns out apart is removed (order kept). */
void f2d_refresh_arbiters(f2d_world *w)
{
	int32_t k = 0;
	const int kernel = f2d_kernel_level();
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *arb = &w->arbiters[i];
		/* recycled when the rule allows (as f2d_update_contacts would have, had the bodies
		 * been awake: a woken pair's manifold does not depend on when it woke), else built */
		if (arb->frozen && arb->active &&
		    !(arb->recycle &&
		      recycle_rule(w, arb, arb,
		                   f2d_pair_speculative(w, &w->shapes[arb->shape_a],
		                                        &w->shapes[arb->shape_b]),
		                   kernel))) {
			if (build_arbiter(w, arb, arb->shape_a, arb->shape_b, arb, kernel) == 0) {
				continue;
			}
			w->arbiter_geo[i] = f2d_arbiter_geometry_digest(arb);
		}
		if (k != i) {
			w->arbiters[k] = *arb;
			w->arbiter_geo[k] = w->arbiter_geo[i];
		}
		k++;
	}
	w->arbiter_count = k;
}

/* The bodies the shape touched wake up: what rested on it must fall. */
void f2d_remove_arbiters_of_shape(f2d_world *w, int32_t shape)
{
	int32_t k = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		if (w->arbiters[i].shape_a != shape && w->arbiters[i].shape_b != shape) {
			w->arbiter_geo[k] = w->arbiter_geo[i];
			w->arbiters[k++] = w->arbiters[i];
		} else {
			f2d_wake_body(w, w->arbiters[i].body_a);
			f2d_wake_body(w, w->arbiters[i].body_b);
		}
	}
	w->arbiter_count = k;
}

/* Contacts for drawing and inspection, in arbiter (key) order. A point's world position is
 * centre of A + r_a (r_a = point - centre when the manifold was built). An arbiter loaded from
 * a snapshot has a zero normal (snapshot_load.c) until a step rebuilds its manifold. */
static void contact_data(const f2d_world *w, const f2d_arbiter *a, f2d_contact_data *c);

/* The contacts of a body (shape < 0) or of a shape (body < 0), in key order. */
static int32_t contacts_of(const f2d_world *w, int32_t body, int32_t shape, f2d_contact_data *out,
                           int32_t capacity)
{
	int32_t n = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		bool mine = body >= 0 ? (a->body_a == body || a->body_b == body)
		                      : (a->shape_a == shape || a->shape_b == shape);
		if (!mine) {
			continue;
		}
		if (out != NULL && n < capacity) {
			contact_data(w, a, &out[n]);
		}
		++n;
	}
	return n;
}

int32_t f2d_body_get_contacts(const f2d_world *w, f2d_body_id body, f2d_contact_data *out,
                              int32_t capacity)
{
	const f2d_body *b = f2d_get_body(w, body);
	return b == NULL ? 0 : contacts_of(w, body.index1 - 1, -1, out, capacity);
}

int32_t f2d_shape_get_contacts(const f2d_world *w, f2d_shape_id shape, f2d_contact_data *out,
                               int32_t capacity)
{
	if (w == NULL || shape.index1 < 1 || shape.index1 > w->shape_ids.next) {
		return 0;
	}
	const f2d_shape *s = &w->shapes[shape.index1 - 1];
	if (!s->alive || s->generation != shape.generation) {
		return 0;
	}
	return contacts_of(w, -1, shape.index1 - 1, out, capacity);
}

int32_t f2d_world_get_contacts(const f2d_world *w, f2d_contact_data *out, int32_t capacity)
{
	if (w == NULL) {
		return 0;
	}
	for (int32_t i = 0; out != NULL && i < w->arbiter_count && i < capacity; ++i) {
		contact_data(w, &w->arbiters[i], &out[i]);
	}
	return w->arbiter_count;
}

static void contact_data(const f2d_world *w, const f2d_arbiter *a, f2d_contact_data *c)
{
	memset(c, 0, sizeof *c);
	c->shape_a.index1 = a->shape_a + 1;
	c->shape_a.generation = w->shapes[a->shape_a].generation;
	c->shape_b.index1 = a->shape_b + 1;
	c->shape_b.generation = w->shapes[a->shape_b].generation;
	c->normal = a->normal;
	c->point_count = a->count;
	c->geometry_known = a->normal.x != 0 || a->normal.y != 0;
	for (int32_t k = 0; k < a->count; ++k) {
		const f2d_contact_point *p = &a->points[k];
		f2d_contact_point_data *q = &c->points[k];
		if (c->geometry_known) {
			q->point = f2d_add(w->bodies[a->body_a].center, p->r_a);
			q->separation = p->separation;
		}
		q->normal_impulse = p->pn;
		q->tangent_impulse = p->pt;
		q->id = p->id;
	}
}
