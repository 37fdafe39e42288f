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
	uint32_t old_id[2] = {0, 0};
	fix16_t old_pn[2] = {0, 0}, old_pt[2] = {0, 0};
	int32_t old_count = 0;
	if (prev != NULL) {
		old_count = w->def.warm_starting ? prev->count : 0;
		for (int32_t k = 0; k < old_count; ++k) {
			old_id[k] = prev->points[k].id;
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
	arb->count = m->count;
	arb->frozen = false;
	for (int32_t i = 0; i < m->count; ++i) {
		f2d_contact_point *cp = &arb->points[i];
		uint32_t id = m->points[i].id;
		cp->id = id;
		cp->separation = m->points[i].separation;
		cp->r_a = f2d_sub(m->points[i].point, ba->center);
		cp->r_b = f2d_sub(m->points[i].point, bb->center);
		cp->mass_n = cp->mass_t = cp->bias = 0;
		/* the first old point made by the same features (none without warm starting) */
		int32_t k = 0;
		while (k < old_count && old_id[k] != id) {
			++k;
		}
		cp->pn = k < old_count ? old_pn[k] : 0;
		cp->pt = k < old_count ? old_pt[k] : 0;
	}
	for (int32_t i = m->count; i < 2; ++i) {
		memset(&arb->points[i], 0, sizeof arb->points[i]);
	}
	return m->count;
}

/* fill_arbiter with a fresh manifold from the shapes' world caches. */
static int32_t build_arbiter(const f2d_world *w, const f2d_arbiter *prev, int32_t ia, int32_t ib,
                             f2d_arbiter *arb)
{
	f2d_manifold m;
	f2d_collide(&w->shapes[ia], &w->shapes[ib], w->def.speculative_distance, &m);
	return fill_arbiter(w, prev, ia, ib, &m, arb);
}

/* build_arbiter for a pair whose manifold is prev's: the manifold is what f2d_collide returned
 * when prev was built (its points are r_a + the centre of A, exactly, as r_a = point - centre
 * was an exact difference), so the arbiter is the one build_arbiter would make. */
static int32_t reuse_arbiter(const f2d_world *w, const f2d_arbiter *prev, int32_t ia, int32_t ib,
                             f2d_arbiter *arb)
{
	f2d_vec2 ca = w->bodies[w->shapes[ia].body].center;
	f2d_manifold m;
	m.normal = prev->normal;
	m.count = prev->count;
	for (int32_t i = 0; i < prev->count; ++i) {
		m.points[i].point = f2d_add(prev->points[i].r_a, ca);
		m.points[i].separation = prev->points[i].separation;
		m.points[i].id = prev->points[i].id;
	}
	return fill_arbiter(w, prev, ia, ib, &m, arb);
}

/* Bit id of the broad phase's bitmap of shapes whose world cache was remade this step. */
static inline bool shape_moved(const uint64_t *moved, int32_t id)
{
	return ((moved[id >> 6] >> (id & 63)) & 1u) != 0;
}

f2d_result f2d_update_contacts(f2d_world *w)
{
	f2d_result r = f2d_find_pairs(w);
	if (r != F2D_OK) {
		return r;
	}
	if (!f2d_grow(w, (void **)&w->arbiters_next, &w->arbiters_next_capacity, w->pair_count,
	              sizeof(f2d_arbiter))) {
		w->contacts_stale = true; /* the caches moved on, the arbiters did not */
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	/* after the pair keys, f2d_find_pairs leaves the bitmap of shapes whose cache it remade
	 * (every shape unless the caches of the previous step could be kept; broadphase.c) */
	const uint64_t *pairs = w->pairs, *moved = w->pairs + w->pair_count;
	const int32_t pair_count = w->pair_count, old_count = w->arbiter_count;
	const f2d_arbiter *olds = w->arbiters;
	const f2d_body *bodies = w->bodies;
	f2d_arbiter *next = w->arbiters_next;
	/* merge by key; UINT64_MAX (past the last old arbiter) is above every key, as ids < 2^31 */
	int32_t old = 0, count = 0;
	uint64_t old_key =
	    old_count > 0 ? f2d_pair_key(olds[0].shape_a, olds[0].shape_b) : UINT64_MAX;
	for (int32_t p = 0; p < pair_count; ++p) {
		uint64_t key = pairs[p];
		int32_t ia = (int32_t)(key >> 32), ib = (int32_t)(key & 0xFFFFFFFFu);
		while (old_key < key) {
			++old;
			old_key = old < old_count
			              ? f2d_pair_key(olds[old].shape_a, olds[old].shape_b)
			              : UINT64_MAX;
		}
		const f2d_arbiter *prev = old_key == key ? &olds[old] : NULL;
		f2d_arbiter *arb = &next[count];
		/* Neither body can move (asleep, static or a resting kinematic): the manifold would
		 * not change, keep the arbiter as it is (frozen; see f2d_refresh_arbiters). */
		if (prev != NULL && !f2d_body_active(&bodies[prev->body_a]) &&
		    !f2d_body_active(&bodies[prev->body_b])) {
			*arb = *prev;
			arb->frozen = true;
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
		bool keep = prev != NULL && !prev->frozen && !shape_moved(moved, ia) &&
		            !shape_moved(moved, ib);
		count += (keep ? reuse_arbiter(w, prev, ia, ib, arb)
		               : build_arbiter(w, prev, ia, ib, arb)) > 0
		             ? 1
		             : 0;
	}
	f2d_arbiter *t = w->arbiters;
	int32_t tc = w->arbiter_capacity;
	w->arbiters = w->arbiters_next;
	w->arbiter_capacity = w->arbiters_next_capacity;
	w->arbiter_count = count;
	w->arbiters_next = t;
	w->arbiters_next_capacity = tc;
	return F2D_OK;
}

/* A frozen arbiter kept its manifold from the step it was last computed in (or, after a
 * snapshot restore, none: only keys and impulses are state). When its island wakes, the
 * manifold is recomputed from the current positions before the solver uses it; a pair that
 * turns out apart is removed (order kept). */
void f2d_refresh_arbiters(f2d_world *w)
{
	int32_t k = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *arb = &w->arbiters[i];
		if (arb->frozen && arb->active &&
		    build_arbiter(w, arb, arb->shape_a, arb->shape_b, arb) == 0) {
			continue;
		}
		if (k != i) {
			w->arbiters[k] = *arb;
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
			w->arbiters[k++] = w->arbiters[i];
		} else {
			f2d_wake_body(w, w->arbiters[i].body_a);
			f2d_wake_body(w, w->arbiters[i].body_b);
		}
	}
	w->arbiter_count = k;
}

/* ---- solver ----
 *
 * Non-penetration at a contact point p with normal n (A to B), r_a = p - c_a, r_b = p - c_b:
 *   C = separation >= 0,  Cdot = vn = (v_b + w_b x r_b - v_a - w_a x r_a) . n
 *   Jacobian J = [-n, -(r_a x n), n, (r_b x n)]
 *   effective mass  k_n = 1/m_a + 1/m_b + (r_a x n)^2 / I_a + (r_b x n)^2 / I_b,  m_n = 1 / k_n
 * An impulse P = lambda n changes vn by lambda k_n, so lambda = m_n (bias - vn) drives vn to the
 * bias velocity. The accumulated impulse is clamped, P_n >= 0 (contacts push, never pull), and
 * only the change is applied (Catto's accumulated impulses).
 * Bias velocity b: speculative (separation s > 0): b = -s / h, the gap may close in one step but
 * not more; penetrating: Baumgarte b = beta / h * max(0, -s - slop); restitution: if the approach
 * speed at the pre-step exceeds the threshold, b = max(b, -e vn).
 * Friction along t = (n.y, -n.x): same with k_t from (r x t), target 0, |P_t| <= mu P_n.
 */

static inline int64_t mul64(fix16_t a, int64_t b)
{
	return f2d_round16((int64_t)a * b);
}

/* (v_b - v_a) . d, exact in 64 bits: the linear part of the relative velocity, the same for
 * every point of an arbiter. */
static inline int64_t linear_velocity(const f2d_body *a, const f2d_body *b, f2d_vec2 d)
{
	return ((int64_t)b->v.x - a->v.x) * d.x + ((int64_t)b->v.y - a->v.y) * d.y;
}

/* Relative velocity of B against A at the point along d, with rd_a = r_a x d, rd_b = r_b x d:
 * (v_b + w_b x r_b - v_a - w_a x r_a) . d = (v_b - v_a) . d + w_b rd_b - w_a rd_a,
 * summed exactly in 64 bits and rounded once; lin = linear_velocity(a, b, d). */
static inline fix16_t relative_velocity(int64_t lin, const f2d_body *a, const f2d_body *b,
                                        fix16_t rd_a, fix16_t rd_b)
{
	return f2d_sat(f2d_round16(lin + (int64_t)b->w * rd_b - (int64_t)a->w * rd_a));
}

/* a * b saturated to the fix16 range (reported) */
static fix16_t sat_mul(f2d_world *w, fix16_t a, fix16_t b)
{
	return f2d_sat_flag(f2d_round16((int64_t)a * b), &w->saturated);
}

static fix16_t inverse_mass(f2d_world *w, int64_t k)
{
	if (k <= 0) {
		return 0;
	}
	if (k < 2) {
		w->saturated = true;
		return INT32_MAX;
	}
	return f2d_div_exact((int64_t)1 << 16, k);
}

void f2d_contacts_prestep(f2d_world *w)
{
	/* loop invariants: 1/h, the slop, the restitution threshold and beta / h (one f2d_mul) */
	const fix16_t inv_h = w->inv_h, slop = w->def.linear_slop;
	const fix16_t threshold = w->def.restitution_threshold;
	const fix16_t beta_inv_h = f2d_mul(w->def.bias_factor, w->inv_h);
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *arb = &w->arbiters[i];
		if (!arb->active) {
			continue;
		}
		const f2d_body *a = &w->bodies[arb->body_a];
		const f2d_body *b = &w->bodies[arb->body_b];
		f2d_vec2 n = arb->normal;
		f2d_vec2 t = f2d_right_perp(n);
		arb->vn_a = f2d_scale(a->inv_mass, n);
		arb->vn_b = f2d_scale(b->inv_mass, n);
		/* f2d_scale(m, t) with t = (n.y, -n.x): f2d_mul(m, -x) = -f2d_mul(m, x) (round16 is
		 * odd) and |f2d_mul(m, n.x)| <= m, so this is exact */
		arb->vt_a = f2d_v(arb->vn_a.y, -arb->vn_a.x);
		arb->vt_b = f2d_v(arb->vn_b.y, -arb->vn_b.x);
		int64_t lin = linear_velocity(a, b, n);
		for (int32_t k = 0; k < arb->count; ++k) {
			f2d_contact_point *cp = &arb->points[k];
			fix16_t rna = f2d_cross(cp->r_a, n), rnb = f2d_cross(cp->r_b, n);
			fix16_t rta = f2d_cross(cp->r_a, t), rtb = f2d_cross(cp->r_b, t);
			cp->rn_a = rna;
			cp->rn_b = rnb;
			cp->rt_a = rta;
			cp->rt_b = rtb;
			cp->wn_a = sat_mul(w, a->inv_inertia, rna);
			cp->wn_b = sat_mul(w, b->inv_inertia, rnb);
			cp->wt_a = sat_mul(w, a->inv_inertia, rta);
			cp->wt_b = sat_mul(w, b->inv_inertia, rtb);
			int64_t kn = (int64_t)a->inv_mass + b->inv_mass +
			             mul64(a->inv_inertia, f2d_round16((int64_t)rna * rna)) +
			             mul64(b->inv_inertia, f2d_round16((int64_t)rnb * rnb));
			int64_t kt = (int64_t)a->inv_mass + b->inv_mass +
			             mul64(a->inv_inertia, f2d_round16((int64_t)rta * rta)) +
			             mul64(b->inv_inertia, f2d_round16((int64_t)rtb * rtb));
			cp->mass_n = inverse_mass(w, kn);
			cp->mass_t = inverse_mass(w, kt);

			fix16_t s = cp->separation;
			int64_t bias;
			if (s > 0) {
				bias = -mul64(s, inv_h);
			} else {
				fix16_t pen = -s - slop;
				bias = pen > 0 ? mul64(beta_inv_h, pen) : 0;
			}
			fix16_t vn = relative_velocity(lin, a, b, rna, rnb);
			if (vn < -threshold && arb->restitution > 0) {
				int64_t rb = -(int64_t)f2d_mul(arb->restitution, vn);
				bias = bias > rb ? bias : rb;
			}
			cp->bias = f2d_sat(bias);
		}
		if (arb->count == 2) {
			/* k12 = J1 M^-1 J2^T: the change of the relative velocity at point 2 per
			 * unit impulse at point 1 (and vice versa; it is symmetric): 1/m_a + 1/m_b
			 * + (r1a x d)(r2a x d) / I_a + (r1b x d)(r2b x d) / I_b */
			const f2d_contact_point *p1 = &arb->points[0], *p2 = &arb->points[1];
			int64_t m = (int64_t)a->inv_mass + b->inv_mass;
			int64_t kn =
			    m + mul64(a->inv_inertia, f2d_round16((int64_t)p1->rn_a * p2->rn_a)) +
			    mul64(b->inv_inertia, f2d_round16((int64_t)p1->rn_b * p2->rn_b));
			int64_t kt =
			    m + mul64(a->inv_inertia, f2d_round16((int64_t)p1->rt_a * p2->rt_a)) +
			    mul64(b->inv_inertia, f2d_round16((int64_t)p1->rt_b * p2->rt_b));
			arb->k12_n = f2d_sat(kn);
			arb->k12_t = f2d_sat(kt);
		} else {
			arb->k12_n = arb->k12_t = 0;
		}
	}
}

/* Velocities of one arbiter's two bodies, held in locals while its points are solved. */
typedef struct vel2 {
	fix16_t vax, vay, wa, vbx, vby, wb;
} vel2;

static inline void store_vel2(f2d_body *a, f2d_body *b, const vel2 *v)
{
	a->v.x = v->vax;
	a->v.y = v->vay;
	a->w = v->wa;
	b->v.x = v->vbx;
	b->v.y = v->vby;
	b->w = v->wb;
}

/* (v_b + w_b x r_b - v_a - w_a x r_a) . d, as relative_velocity but on the local copy and
 * not saturated: |d| <= 1 and |r x d| < 2^23 (shapes of moving bodies are within 32 m), so
 * the sum is below 2^55 and the result below 2^39. */
static inline int64_t rel_vel64(const vel2 *v, f2d_vec2 d, fix16_t rd_a, fix16_t rd_b)
{
	int64_t s = ((int64_t)v->vbx - v->vax) * d.x + ((int64_t)v->vby - v->vay) * d.y +
	            (int64_t)v->wb * rd_b - (int64_t)v->wa * rd_a;
	return f2d_round16(s);
}

static inline fix16_t rel_vel(const vel2 *v, f2d_vec2 d, fix16_t rd_a, fix16_t rd_b)
{
	return f2d_sat(rel_vel64(v, d, rd_a, rd_b));
}

/* v + d in 64 bits, saturated to the fix16 range; a saturation is recorded in *sat (the step
 * then reports F2D_ERROR_OVERFLOW) instead of wrapping. */
static inline fix16_t add_sat(fix16_t v, int64_t d, bool *sat)
{
	return f2d_sat_flag((int64_t)v + d, sat);
}

/* Applies impulses l1 at point 1 and l2 at point 2 along one direction: both share the
 * linear response dv = d / m, so the linear change is (l1 + l2) dv; the angular one is
 * l1 dw1 + l2 dw2. Sums in 64 bits (|l1 + l2| < 2^32, |dv| <= 2^31: below 2^63), one
 * rounding per component, saturated (and reported) rather than wrapped. */
static inline void apply2(vel2 *v, fix16_t l1, fix16_t l2, f2d_vec2 dva, f2d_vec2 dvb,
                          const f2d_contact_point *p1, const f2d_contact_point *p2, bool normal,
                          bool *sat)
{
	int64_t l = (int64_t)l1 + l2;
	v->vax = add_sat(v->vax, -f2d_round16(l * dva.x), sat);
	v->vay = add_sat(v->vay, -f2d_round16(l * dva.y), sat);
	v->vbx = add_sat(v->vbx, f2d_round16(l * dvb.x), sat);
	v->vby = add_sat(v->vby, f2d_round16(l * dvb.y), sat);
	fix16_t wa1 = normal ? p1->wn_a : p1->wt_a, wb1 = normal ? p1->wn_b : p1->wt_b;
	fix16_t wa2 = normal ? p2->wn_a : p2->wt_a, wb2 = normal ? p2->wn_b : p2->wt_b;
	v->wa = add_sat(v->wa, -f2d_round16((int64_t)l1 * wa1 + (int64_t)l2 * wa2), sat);
	v->wb = add_sat(v->wb, f2d_round16((int64_t)l1 * wb1 + (int64_t)l2 * wb2), sat);
}

/* Friction, one point: lambda = -m_t vt, |P_t| <= mu P_n; returns the applied increment.
 * P_t and the cone both lie in [-(2^31 - 1), 2^31 - 1], so their difference may not fit 32
 * bits (a cone that shrank from +max to -max in one step): the increment is saturated and the
 * accumulated impulse moves by exactly what is applied. */
static inline fix16_t friction_step(f2d_contact_point *cp, fix16_t vt, fix16_t friction, bool *sat)
{
	int64_t max_pt = mul64(friction, cp->pn);
	max_pt = max_pt > INT32_MAX ? INT32_MAX : max_pt;
	int64_t pt = (int64_t)cp->pt - mul64(cp->mass_t, vt);
	pt = pt < -max_pt ? -max_pt : (pt > max_pt ? max_pt : pt);
	int64_t d64 = pt - cp->pt;
	*sat |= d64 > INT32_MAX || d64 < -INT32_MAX;
	fix16_t d = f2d_sat(d64);
	cp->pt += d;
	return d;
}

/* Normal, one point: lambda = m_n (bias - vn), P_n = max(P_n + lambda, 0). */
static inline fix16_t normal_step(f2d_contact_point *cp, int64_t vn, bool *saturated)
{
	int64_t pn = (int64_t)cp->pn + mul64(cp->mass_n, f2d_sat((int64_t)cp->bias - vn));
	*saturated |= pn > INT32_MAX;
	pn = pn < 0 ? 0 : (pn > INT32_MAX ? INT32_MAX : pn);
	fix16_t d = (fix16_t)pn - cp->pn;
	cp->pn = (fix16_t)pn;
	return d;
}

/* ---- test-only switches (tests/test_solver_paths.c; never defined in a real build) ----
 * F2D_CONTACT_EXACT_ONLY: warm start and solve skip the fast path below and always take the
 * exact path, the reference the test compares the normal build against, step by step.
 * F2D_CONTACT_COUNT_PATHS: counts the arbiters each path handled (warm start fast, warm start
 * exact, solve fast, solve exact), so that the test can show both paths ran. Not thread-safe. */
#ifdef F2D_CONTACT_COUNT_PATHS
extern uint64_t f2d_contact_path_counts[4];
uint64_t f2d_contact_path_counts[4];
#define COUNT_PATH(i) (f2d_contact_path_counts[i]++)
#else
#define COUNT_PATH(i) ((void)0)
#endif

/* ---- fast path ----
 *
 * The exact path above saturates a dozen intermediate values per arbiter (and records it). In
 * a sane scene none of them ever comes near the fix16 range, so the fast path computes the same
 * expressions without the saturations, on local copies, and only checks at the end that every
 * value it would have saturated was in [-2^30, 2^30): there every f2d_sat / add_sat of the
 * exact path is the identity, so the two paths give the same bits. Otherwise the local results
 * are dropped and the arbiter is solved again by the exact path from the unchanged state.
 *
 * The check is one add and one or per value: x in [-2^30, 2^30) <=> (uint64)(x + 2^30) < 2^31,
 * and the or of such values is < 2^31 iff each is.
 *
 * Because the check comes at the end, the values after a failed one can be anything, and their
 * products could overflow 64 bits: the fast path therefore multiplies, adds and subtracts modulo
 * 2^64 (in uint64_t, converted back; the same machine instructions). Whenever every check passes
 * each operand equals the exact path's (its saturations were the identity), so each product and
 * sum is one that the exact path computes in 64 bits without overflow: the results are exact. */
#define FAST_BIAS ((uint64_t)1 << 30)
#define FAST_OK(acc) ((acc) < ((uint64_t)1 << 31))

/* uint64 -> int64 keeps the bits (two's complement), as on every compiler we build with. */
_Static_assert((int64_t)UINT64_MAX == -1, "fix2d needs two's complement conversions");

/* An empty asm that "changes" acc: the compiler must have folded every check so far into it
 * here, instead of keeping all the checked values alive to the end of the arbiter (which
 * costs registers and spills). No code. */
#if defined(__GNUC__) || defined(__clang__)
#define FAST_FOLD(acc) __asm__("" : "+r"(acc))
#else
#define FAST_FOLD(acc) ((void)0)
#endif

static inline uint64_t fast_chk(int64_t x)
{
	return (uint64_t)x + FAST_BIAS;
}

/* a * b, a + b, a - b modulo 2^64 */
static inline int64_t wmul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}
static inline int64_t wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t wsub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}
/* f2d_round16(a * b), modulo 2^64 before the shift */
static inline int64_t wmul16(int64_t a, int64_t b)
{
	int64_t p = wmul(a, b);
	return wadd(p, 0x8000 + (p >> 63)) >> 16;
}

/* friction_step without saturation: pt and the cone as there; the increment is checked. The
 * cone and the clamped P_t are within the fix16 range, so the increment is below 2^32 in
 * magnitude whatever vt was. */
static inline int64_t friction_fast(fix16_t pn, fix16_t pt, fix16_t mass_t, int64_t vt,
                                    fix16_t friction, uint64_t *acc)
{
	int64_t max_pt = mul64(friction, pn);
	max_pt = max_pt > INT32_MAX ? INT32_MAX : max_pt;
	int64_t p = wsub(pt, wmul16(mass_t, vt));
	p = p < -max_pt ? -max_pt : (p > max_pt ? max_pt : p);
	int64_t d = p - pt;
	*acc |= fast_chk(d);
	FAST_FOLD(*acc);
	return d;
}

/* normal_step without saturation: bias - vn and the new P_n are checked (P_n after the clamp
 * at 0, so only the upper saturation counts), and the increment (P_n >= 0 always). */
static inline int64_t normal_fast(fix16_t pn, fix16_t mass_n, fix16_t bias, int64_t vn,
                                  int64_t *pn_out, uint64_t *acc)
{
	int64_t e = wsub(bias, vn);
	int64_t p = wadd(pn, wmul16(mass_n, e));
	p = p < 0 ? 0 : p;
	int64_t d = wsub(p, pn);
	*acc |= fast_chk(e) | fast_chk(p) | fast_chk(d);
	FAST_FOLD(*acc);
	*pn_out = p;
	return d;
}

/* The 64-bit velocities of the fast path. */
typedef struct vel64 {
	int64_t vax, vay, wa, vbx, vby, wb;
} vel64;

/* apply2 without saturation: impulses l1 (point 1) and l2 (point 2) along n (dir_t = 0) or
 * along t = (n.y, -n.x) (dir_t = 1). With dva = vn_a = (round16(n.x / m_a), round16(n.y / m_a))
 * the tangent response is vt_a = (dva.y, -dva.x) exactly (round16 is odd), so only vn_a is read:
 * along t, v_a.x -= round16(l dva.y) and v_a.y += round16(l dva.x). wa1..wb2 are the angular
 * responses of the two points. The new velocities are checked. */
static inline void apply_fast(vel64 *v, int64_t l1, int64_t l2, f2d_vec2 dva, f2d_vec2 dvb,
                              fix16_t wa1, fix16_t wb1, fix16_t wa2, fix16_t wb2, int dir_t,
                              uint64_t *acc)
{
	int64_t l = wadd(l1, l2);
	if (dir_t) {
		v->vax = wsub(v->vax, wmul16(l, dva.y));
		v->vay = wadd(v->vay, wmul16(l, dva.x));
		v->vbx = wadd(v->vbx, wmul16(l, dvb.y));
		v->vby = wsub(v->vby, wmul16(l, dvb.x));
	} else {
		v->vax = wsub(v->vax, wmul16(l, dva.x));
		v->vay = wsub(v->vay, wmul16(l, dva.y));
		v->vbx = wadd(v->vbx, wmul16(l, dvb.x));
		v->vby = wadd(v->vby, wmul16(l, dvb.y));
	}
	int64_t sa = wadd(wmul(l1, wa1), wmul(l2, wa2));
	int64_t sb = wadd(wmul(l1, wb1), wmul(l2, wb2));
	v->wa = wsub(v->wa, wadd(sa, 0x8000 + (sa >> 63)) >> 16);
	v->wb = wadd(v->wb, wadd(sb, 0x8000 + (sb >> 63)) >> 16);
	*acc |= fast_chk(v->vax) | fast_chk(v->vay) | fast_chk(v->wa) | fast_chk(v->vbx) |
	        fast_chk(v->vby) | fast_chk(v->wb);
	FAST_FOLD(*acc);
}

/* The linear part of the relative velocity along n, (v_b - v_a) . n, and along
 * t = (n.y, -n.x), (v_b - v_a) . t; exact, shared by both points (the angular parts differ). */
static inline int64_t lin_n(const vel64 *v, f2d_vec2 n)
{
	return wadd(wmul(wsub(v->vbx, v->vax), n.x), wmul(wsub(v->vby, v->vay), n.y));
}
static inline int64_t lin_t(const vel64 *v, f2d_vec2 n)
{
	return wsub(wmul(wsub(v->vbx, v->vax), n.y), wmul(wsub(v->vby, v->vay), n.x));
}

/* The relative velocity at a point: linear part plus w_b (r_b x d) - w_a (r_a x d), the same
 * exact 64-bit sum as rel_vel64 (the order of exact integer additions does not matter), and
 * rounded as f2d_round16. */
static inline int64_t point_vel(const vel64 *v, int64_t lin, fix16_t rd_a, fix16_t rd_b)
{
	int64_t s = wsub(wadd(lin, wmul(v->wb, rd_b)), wmul(v->wa, rd_a));
	return wadd(s, 0x8000 + (s >> 63)) >> 16;
}

static inline void load_vel64(vel64 *v, const f2d_body *a, const f2d_body *b)
{
	v->vax = a->v.x;
	v->vay = a->v.y;
	v->wa = a->w;
	v->vbx = b->v.x;
	v->vby = b->v.y;
	v->wb = b->w;
}

static inline void store_vel64(f2d_body *a, f2d_body *b, const vel64 *v)
{
	a->v.x = (fix16_t)v->vax;
	a->v.y = (fix16_t)v->vay;
	a->w = (fix16_t)v->wa;
	b->v.x = (fix16_t)v->vbx;
	b->v.y = (fix16_t)v->vby;
	b->w = (fix16_t)v->wb;
}

/* Warm start of one arbiter, exact path. */
F2D_NOINLINE static void warm_start_exact(f2d_arbiter *arb, f2d_body *a, f2d_body *b,
                                          bool *saturated)
{
	vel2 v = {a->v.x, a->v.y, a->w, b->v.x, b->v.y, b->w};
	const f2d_contact_point *p1 = &arb->points[0];
	const f2d_contact_point *p2 = &arb->points[arb->count == 2 ? 1 : 0];
	fix16_t n2 = arb->count == 2 ? p2->pn : 0, t2 = arb->count == 2 ? p2->pt : 0;
	apply2(&v, p1->pn, n2, arb->vn_a, arb->vn_b, p1, p2, true, saturated);
	apply2(&v, p1->pt, t2, arb->vt_a, arb->vt_b, p1, p2, false, saturated);
	store_vel2(a, b, &v);
}

void f2d_contacts_warm_start(f2d_world *w)
{
	bool saturated = false;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *arb = &w->arbiters[i];
		if (!arb->active) {
			continue;
		}
		f2d_body *a = &w->bodies[arb->body_a];
		f2d_body *b = &w->bodies[arb->body_b];
#ifndef F2D_CONTACT_EXACT_ONLY
		const f2d_contact_point *p1 = &arb->points[0];
		const f2d_contact_point *p2 = &arb->points[arb->count == 2 ? 1 : 0];
		int64_t n2 = arb->count == 2 ? p2->pn : 0, t2 = arb->count == 2 ? p2->pt : 0;
		vel64 v;
		uint64_t acc = 0;
		load_vel64(&v, a, b);
		apply_fast(&v, p1->pn, n2, arb->vn_a, arb->vn_b, p1->wn_a, p1->wn_b, p2->wn_a,
		           p2->wn_b, 0, &acc);
		apply_fast(&v, p1->pt, t2, arb->vn_a, arb->vn_b, p1->wt_a, p1->wt_b, p2->wt_a,
		           p2->wt_b, 1, &acc);
		if (FAST_OK(acc)) {
			store_vel64(a, b, &v);
			COUNT_PATH(0);
		} else {
			warm_start_exact(arb, a, b, &saturated);
			COUNT_PATH(1);
		}
#else
		warm_start_exact(arb, a, b, &saturated);
		COUNT_PATH(1);
#endif
	}
	w->saturated |= saturated;
}

/* One arbiter of a Gauss-Seidel pass, exact path (see f2d_contacts_solve). */
F2D_NOINLINE static void solve_exact(f2d_arbiter *arb, f2d_body *a, f2d_body *b, int32_t flip,
                                     bool *saturated)
{
	f2d_vec2 n = arb->normal;
	f2d_vec2 t = f2d_right_perp(n);
	vel2 v = {a->v.x, a->v.y, a->w, b->v.x, b->v.y, b->w};
	if (arb->count == 1) {
		f2d_contact_point *cp = &arb->points[0];
		fix16_t dt =
		    friction_step(cp, rel_vel(&v, t, cp->rt_a, cp->rt_b), arb->friction, saturated);
		apply2(&v, dt, 0, arb->vt_a, arb->vt_b, cp, cp, false, saturated);
		fix16_t dn = normal_step(cp, rel_vel64(&v, n, cp->rn_a, cp->rn_b), saturated);
		apply2(&v, dn, 0, arb->vn_a, arb->vn_b, cp, cp, true, saturated);
	} else {
		f2d_contact_point *p1 = &arb->points[flip];
		f2d_contact_point *p2 = &arb->points[flip ^ 1];
		fix16_t v1 = rel_vel(&v, t, p1->rt_a, p1->rt_b);
		fix16_t v2 = rel_vel(&v, t, p2->rt_a, p2->rt_b);
		fix16_t d1 = friction_step(p1, v1, arb->friction, saturated);
		v2 = f2d_sat((int64_t)v2 + f2d_round16((int64_t)d1 * arb->k12_t));
		fix16_t d2 = friction_step(p2, v2, arb->friction, saturated);
		apply2(&v, d1, d2, arb->vt_a, arb->vt_b, p1, p2, false, saturated);

		int64_t n1 = rel_vel64(&v, n, p1->rn_a, p1->rn_b);
		int64_t n2 = rel_vel64(&v, n, p2->rn_a, p2->rn_b);
		d1 = normal_step(p1, n1, saturated);
		d2 = normal_step(p2, n2 + f2d_round16((int64_t)d1 * arb->k12_n), saturated);
		apply2(&v, d1, d2, arb->vn_a, arb->vn_b, p1, p2, true, saturated);
	}
	store_vel2(a, b, &v);
}

/* One one-point arbiter, fast path: the arithmetic of solve_exact on 64-bit locals; false (and
 * nothing written) when a value left the checked range. */
static inline bool solve1_fast(f2d_arbiter *arb, f2d_body *a, f2d_body *b)
{
	f2d_vec2 n = arb->normal;
	uint64_t acc = 0;
	vel64 v;
	load_vel64(&v, a, b);
	f2d_contact_point *cp = &arb->points[0];
	int64_t vt = point_vel(&v, lin_t(&v, n), cp->rt_a, cp->rt_b);
	acc |= fast_chk(vt);
	int64_t dt = friction_fast(cp->pn, cp->pt, cp->mass_t, vt, arb->friction, &acc);
	apply_fast(&v, dt, 0, arb->vn_a, arb->vn_b, cp->wt_a, cp->wt_b, 0, 0, 1, &acc);
	int64_t pn;
	int64_t dn = normal_fast(cp->pn, cp->mass_n, cp->bias,
	                         point_vel(&v, lin_n(&v, n), cp->rn_a, cp->rn_b), &pn, &acc);
	apply_fast(&v, dn, 0, arb->vn_a, arb->vn_b, cp->wn_a, cp->wn_b, 0, 0, 0, &acc);
	if (!FAST_OK(acc)) {
		return false;
	}
	cp->pt += (fix16_t)dt;
	cp->pn = (fix16_t)pn;
	store_vel64(a, b, &v);
	return true;
}

/* One two-point arbiter, fast path (points in the order p1, p2), as solve1_fast. */
static inline bool solve2_fast(f2d_arbiter *arb, f2d_body *a, f2d_body *b, f2d_contact_point *p1,
                               f2d_contact_point *p2)
{
	f2d_vec2 n = arb->normal;
	fix16_t mu = arb->friction;
	uint64_t acc = 0;
	vel64 v;
	load_vel64(&v, a, b);
	int64_t lt = lin_t(&v, n);
	int64_t v1 = point_vel(&v, lt, p1->rt_a, p1->rt_b);
	int64_t v2 = point_vel(&v, lt, p2->rt_a, p2->rt_b);
	acc |= fast_chk(v1) | fast_chk(v2);
	int64_t d1 = friction_fast(p1->pn, p1->pt, p1->mass_t, v1, mu, &acc);
	v2 = wadd(v2, wmul16(d1, arb->k12_t));
	acc |= fast_chk(v2);
	int64_t d2 = friction_fast(p2->pn, p2->pt, p2->mass_t, v2, mu, &acc);
	apply_fast(&v, d1, d2, arb->vn_a, arb->vn_b, p1->wt_a, p1->wt_b, p2->wt_a, p2->wt_b, 1,
	           &acc);

	int64_t ln = lin_n(&v, n);
	int64_t n1 = point_vel(&v, ln, p1->rn_a, p1->rn_b);
	int64_t n2 = point_vel(&v, ln, p2->rn_a, p2->rn_b);
	int64_t pn1, pn2;
	int64_t dn1 = normal_fast(p1->pn, p1->mass_n, p1->bias, n1, &pn1, &acc);
	int64_t dn2 = normal_fast(p2->pn, p2->mass_n, p2->bias, wadd(n2, wmul16(dn1, arb->k12_n)),
	                          &pn2, &acc);
	apply_fast(&v, dn1, dn2, arb->vn_a, arb->vn_b, p1->wn_a, p1->wn_b, p2->wn_a, p2->wn_b, 0,
	           &acc);
	if (!FAST_OK(acc)) {
		return false;
	}
	p1->pt += (fix16_t)d1;
	p2->pt += (fix16_t)d2;
	p1->pn = (fix16_t)pn1;
	p2->pn = (fix16_t)pn2;
	store_vel64(a, b, &v);
	return true;
}

/* One Gauss-Seidel pass over the arbiters. For a two-point manifold, the relative velocity at
 * the second point after the first point's impulse l is known without touching the bodies:
 * v2' = v2 + l k12 (k12 from the pre-step). So each direction costs two relative velocities,
 * two scalar updates and one combined application: the same sequential impulses, fewer
 * operations. Friction is solved first, the normal last (non-penetration matters most); the
 * two points are visited in alternating order (0,1 then 1,0), because plain Gauss-Seidel
 * always favours the first point, which tips a perfectly aligned stack. */
void f2d_contacts_solve(f2d_world *w, int32_t iteration)
{
	int32_t flip = iteration & 1;
	bool saturated = false;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *arb = &w->arbiters[i];
		if (!arb->active) {
			continue;
		}
		f2d_body *a = &w->bodies[arb->body_a];
		f2d_body *b = &w->bodies[arb->body_b];
#ifndef F2D_CONTACT_EXACT_ONLY
		bool ok = arb->count == 2
		              ? solve2_fast(arb, a, b, &arb->points[flip], &arb->points[flip ^ 1])
		              : solve1_fast(arb, a, b);
#else
		bool ok = false;
		(void)solve1_fast; /* unused here: no warning */
		(void)solve2_fast;
#endif
		if (!ok) {
			solve_exact(arb, a, b, flip, &saturated);
			COUNT_PATH(3);
		} else {
			COUNT_PATH(2);
		}
	}
	w->saturated |= saturated;
}
