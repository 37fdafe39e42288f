/* fix2d contact solver: the contact part of the sequential-impulse solver (seed 000,
 * Box2D-lite's Arbiter::PreStep / ApplyImpulse), on coloured batches.
 * SPDX-License-Identifier: MIT
 *
 * Order. Gauss-Seidel visits the constraints one after the other, so the result depends on the
 * order. Ours: the active arbiters are coloured greedily in key order (shape_a, shape_b), each
 * taking the lowest colour that neither of its dynamic bodies has yet; colours are solved one
 * after the other, and inside a colour in key order. Two arbiters of one colour share no body
 * that an impulse can move (static and kinematic bodies have no inverse mass: their velocities
 * never change), so inside a colour the order does not matter at all: any grouping of its
 * arbiters gives the same bits. That is what lets a batch of F2D_LANES arbiters of one colour
 * be solved at once in SIMD lanes (AVX-512 on x86-64 when the CPU has it) with exactly the
 * result of the scalar path, one lane after the other (every other machine, and the
 * reference): the determinism matrix compares both. The colouring is a function of the keys
 * and body ids only. A body that already has 63 colours sends the arbiter to the overflow
 * colour, solved last, one arbiter after the other in key order. The soft step
 * (substep_count >= 1) colours an arbiter against a body that cannot move from the other end
 * (take_color_from_end), as Box2D v3.2 does.
 *
 * Three paths compute the same bits:
 *  - exact: every intermediate saturated to the fix16 range (and reported as
 *    F2D_ERROR_OVERFLOW); the reference, written as the derivation reads;
 *  - fast (scalar): the same expressions without saturation, checked once at the end;
 *  - AVX-512: the fast path on 8 lanes.
 * A lane whose check fails is solved again by the exact path from the unchanged state.
 * The soft step's contact passes (f2d_world_def.substep_count >= 1) are in solver_soft.c; the
 * helpers both use are in solver_internal.h.
 */
#include "core.h"
#include "solver_internal.h"

#include <stddef.h>
#ifdef F2D_HASH_CHECK
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

/* the colouring's lane counts (coloring.c, test_solver_paths' helpers): lanes whose constants
 * were kept, lanes computed */
#ifndef F2D_CONTACT_COUNT_PATHS
#define COUNT_LANES(kept, n) ((void)(n))
#define COUNT_NEWTON(n) ((void)(n))
#else
#define COUNT_LANES(kept, n) (f2d_coloring_counts[(kept) ? 2 : 3] += (uint64_t)(n))
/* effective masses the Newton step from the hint gave (newton_inverse; test_solver_paths) */
extern uint64_t f2d_newton_count;
uint64_t f2d_newton_count;
#define COUNT_NEWTON(n) (f2d_newton_count += (uint64_t)(n))
#include <stdlib.h>
#endif

/* ---- pre-step ----
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
 *
 * A one-point arbiter is solved as a two-point one whose second point is all zero (no mass, no
 * impulse, no lever): its friction cone and normal impulse stay 0 and its coupling k12 is 0, so
 * every step of the two-point solve reduces to the one-point solve, in either point order. */

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

/* inverse_mass(w, k) when hint, the value the batch lane held from the last step (the same
 * arbiter point when the colouring and the geometry did not change), is it: the division is
 * replaced by two products. For 3 <= k < 2^30 inverse_mass is m = floor((Q + 1) / 2) with
 * Q = floor(2^33 / k) (f2d_div_exact), and m is that value exactly when 2m - 1 <= Q <= 2m, that
 * is (2m - 1) k <= 2^33 < (2m + 1) k (below 2^62 for any hint >= 1: no overflow). Any hint that
 * passes is the quotient itself, so where the hint came from does not matter; one that fails
 * costs the division. Not in the reference build (F2D_CONTACT_EXACT_ONLY), which
 * test_solver_paths compares with this one. */
#define HINT_K_MAX ((int64_t)1 << 30)
#ifndef F2D_CONTACT_EXACT_ONLY /* (unused there: clang's -Wunused-function) */
static inline bool hint_is_inverse(int64_t k, fix16_t hint)
{
	const uint64_t n = (uint64_t)1 << 33;
	return k >= 3 && k < HINT_K_MAX && hint >= 1 &&
	       (2 * (uint64_t)hint - 1) * (uint64_t)k <= n &&
	       (2 * (uint64_t)hint + 1) * (uint64_t)k > n;
}

/* A hint that fails is mostly near the quotient (a lane whose lever arms moved a little since
 * the last step; pyramid100 while it collapses: 36 % of the failed hints are 1 off, 62 % at most
 * 4, 94 % at most 64). One Newton step for 1 / k from it, c = h + round(h e / 2^32) with
 * e = 2^32 - h k (|e| < 2^31 asked: no overflow, h e < 2^62), lands within 1 of the quotient
 * (its error is about (h - m)^2 / m), and the quotient's condition, checked for c - 1, c, c + 1
 * at once, decides: with r = 2^33 - (2c - 1) k, the candidate c + a passes hint_is_inverse's test
 * exactly when 0 <= r - 2ak < 2k, so r in [-2k, 4k) gives m = c + (r >= 2k) - (r < 0) and any
 * other r the division. 3 <= k < 2^30 and 2 <= c < 2^31 - 1 as hint_is_inverse asks (c + a >= 1,
 * 2c + 1 < 2^32: the SIMD kernels' vpmuludq products are whole). Whatever the hint, a value this
 * returns passed the test, so it is the quotient (same bits); a miss costs the division. */
#define NEWTON_C_MAX ((int64_t)INT32_MAX - 1)
static inline bool newton_inverse(int64_t k, fix16_t hint, fix16_t *m)
{
	if (k < 3 || k >= HINT_K_MAX || hint < 1) {
		return false;
	}
	int64_t e = ((int64_t)1 << 32) - (int64_t)hint * k; /* |hint k| < 2^61 */
	if (e <= -((int64_t)1 << 31) || e >= ((int64_t)1 << 31)) {
		return false;
	}
	int64_t c = hint + ((e * hint + ((int64_t)1 << 31)) >> 32);
	if (c < 2 || c >= NEWTON_C_MAX) {
		return false;
	}
	int64_t r = ((int64_t)1 << 33) - (2 * c - 1) * k;
	if (r < -2 * k || r >= 4 * k) {
		return false;
	}
	*m = (fix16_t)(c + (r >= 2 * k) - (r < 0));
	return true;
}
#endif

static fix16_t inverse_mass_hinted(f2d_world *w, int64_t k, fix16_t hint)
{
#ifndef F2D_CONTACT_EXACT_ONLY
	fix16_t m;
	if (hint_is_inverse(k, hint)) {
		return hint;
	}
	if (newton_inverse(k, hint, &m)) {
		COUNT_NEWTON(1);
		return m;
	}
#else
	(void)hint;
#endif
	return inverse_mass(w, k);
}

/* soft: the soft step's pre-step (f2d_world_def.substep_count >= 1), which also writes the
 * lanes' separations and takes restitution's targets by the soft step's rule (see "The soft
 * step's lanes" below). */
typedef struct prestep_consts {
	fix16_t inv_h, slop, threshold, beta_inv_h;
	bool soft;
} prestep_consts;

/* ---- the soft step's lanes ----
 * The soft passes (solver_soft.c) read per lane the manifold's separation s0 of each point
 * (p[i].sep, 0 past the arbiter's points and in padded lanes) and whether a body cannot move
 * (stiff: 1 when body a or body b is not dynamic, else 0; 0 in padded lanes: written by the
 * colouring, coloring.c, from the arbiter's key, which holds both bodies' dynamic flags, so it
 * holds as long as the layout is kept; the pad here). Restitution's
 * targets are those of the pre-step without its rule for gaps (a gap that takes more than half
 * the step to close lands and bounces the next step): in the soft step a point bounces in the
 * substep in which it touches (f2d_soft_solve), so bounce = -e vn where vn < -threshold and
 * e > 0, else 0, and landed_bounces does not apply. vn is the pre-step's own (the velocities
 * before the step, those the soft step starts its substeps from). The pre-step writes the
 * separations and targets on its pass over the lanes (it reads the same arbiters and bodies);
 * a separate pass after it read them all again (f2d_soft_begin, until issue 16). */

/* ---- kept lanes ----
 * The geometric constants of a lane (n, n / m, r x n, r x t, (r x d) / I, the effective masses
 * and k12) are a function of the normal, the point count, the points' lever arms r_a, r_b and
 * the two bodies' inverse masses and inertias, nothing else (prestep_geometry). A resting
 * contact keeps all of them bit for bit from one step to the next (pyramid20: 3 lanes in 4,
 * with 4 substeps 9 in 10). A lane whose inputs equal those it last computed its constants
 * from (stored in the batch; bit l of bt->kept says they are that lane's) keeps the constants:
 * the same function of the same inputs. Only the motion part (bias, restitution, impulses) is
 * computed again. A lane whose constants saturated (reported) is not kept, so that the report
 * repeats. The layout decides which arbiter a lane holds: a new layout clears kept
 * (build_coloring); a kept one (the same arbiters in the same lanes) keeps it, and the inputs
 * are compared anyway, so even another arbiter in the lane would be exact. The reference
 * build (F2D_CONTACT_EXACT_ONLY) computes every lane; test_solver_paths compares it with this
 * one step by step, and the sanitizer builds (F2D_HASH_CHECK) compute every kept batch again
 * and abort if a byte differs (check_kept_batch). */
#ifdef F2D_CONTACT_EXACT_ONLY
#define KEEP_LANES 0
#else
#define KEEP_LANES 1
#endif

/* Whether lane l's stored inputs are arb's and its bodies' (kept lanes only). */
static bool lane_inputs_same(const f2d_contact_batch *bt, int32_t l, const f2d_arbiter *arb,
                             const f2d_body *a, const f2d_body *b)
{
	if (((bt->kept >> l) & 1u) == 0 || bt->n[l][0] != arb->normal.x ||
	    bt->n[l][1] != arb->normal.y || bt->points[l] != arb->count ||
	    bt->ima[l] != a->inv_mass || bt->imb[l] != b->inv_mass ||
	    bt->iia[l] != a->inv_inertia || bt->iib[l] != b->inv_inertia) {
		return false;
	}
	for (int32_t i = 0; i < arb->count; ++i) {
		const f2d_point_lanes *pl = &bt->p[i];
		const f2d_contact_point *cp = &arb->points[i];
		if (pl->rax[l] != cp->r_a.x || pl->ray[l] != cp->r_a.y || pl->rbx[l] != cp->r_b.x ||
		    pl->rby[l] != cp->r_b.y) {
			return false;
		}
	}
	return true;
}

/* The geometric constants of lane l and their inputs (kept_lanes); returns whether none
 * saturated. */
static bool prestep_geometry(f2d_world *w, f2d_contact_batch *bt, int32_t l,
                             const f2d_arbiter *arb, const f2d_body *a, const f2d_body *b)
{
	bool saturated = w->saturated;
	w->saturated = false;
	f2d_vec2 n = arb->normal;
	f2d_vec2 t = f2d_right_perp(n);
	bt->n[l][0] = n.x;
	bt->n[l][1] = n.y;
	bt->points[l] = arb->count;
	bt->ima[l] = a->inv_mass;
	bt->imb[l] = b->inv_mass;
	bt->iia[l] = a->inv_inertia;
	bt->iib[l] = b->inv_inertia;
	/* the tangent response t / m = (n.y, -n.x) / m is (dv.y, -dv.x) exactly (round16 is odd
	 * and |f2d_mul(m, n.x)| <= m), so only n / m is kept */
	bt->dva[l][0] = f2d_mul(a->inv_mass, n.x);
	bt->dva[l][1] = f2d_mul(a->inv_mass, n.y);
	bt->dvb[l][0] = f2d_mul(b->inv_mass, n.x);
	bt->dvb[l][1] = f2d_mul(b->inv_mass, n.y);
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *pl = &bt->p[i];
		if (i >= arb->count) {
			pl->rn[l][0] = pl->rn[l][1] = pl->rt[l][0] = pl->rt[l][1] = 0;
			pl->wn[l][0] = pl->wn[l][1] = pl->wt[l][0] = pl->wt[l][1] = 0;
			pl->mass_n[l] = pl->mass_t[l] = 0;
			pl->rax[l] = pl->ray[l] = pl->rbx[l] = pl->rby[l] = 0;
			continue;
		}
		const f2d_contact_point *cp = &arb->points[i];
		pl->rax[l] = cp->r_a.x;
		pl->ray[l] = cp->r_a.y;
		pl->rbx[l] = cp->r_b.x;
		pl->rby[l] = cp->r_b.y;
		fix16_t rna = f2d_cross(cp->r_a, n), rnb = f2d_cross(cp->r_b, n);
		fix16_t rta = f2d_cross(cp->r_a, t), rtb = f2d_cross(cp->r_b, t);
		pl->rn[l][0] = rna;
		pl->rn[l][1] = rnb;
		pl->rt[l][0] = rta;
		pl->rt[l][1] = rtb;
		pl->wn[l][0] = sat_mul(w, a->inv_inertia, rna);
		pl->wn[l][1] = sat_mul(w, b->inv_inertia, rnb);
		pl->wt[l][0] = sat_mul(w, a->inv_inertia, rta);
		pl->wt[l][1] = sat_mul(w, b->inv_inertia, rtb);
		int64_t kn = (int64_t)a->inv_mass + b->inv_mass +
		             mul64(a->inv_inertia, f2d_round16((int64_t)rna * rna)) +
		             mul64(b->inv_inertia, f2d_round16((int64_t)rnb * rnb));
		int64_t kt = (int64_t)a->inv_mass + b->inv_mass +
		             mul64(a->inv_inertia, f2d_round16((int64_t)rta * rta)) +
		             mul64(b->inv_inertia, f2d_round16((int64_t)rtb * rtb));
		pl->mass_n[l] = inverse_mass_hinted(w, kn, pl->mass_n[l]);
		pl->mass_t[l] = inverse_mass_hinted(w, kt, pl->mass_t[l]);
	}
	/* k12 = J1 M^-1 J2^T: the change of the relative velocity at point 2 per unit impulse at
	 * point 1 (and vice versa; it is symmetric): 1/m_a + 1/m_b + (r1a x d)(r2a x d) / I_a +
	 * (r1b x d)(r2b x d) / I_b. 0 for one point. */
	if (arb->count == 2) {
		const f2d_point_lanes *p1 = &bt->p[0], *p2 = &bt->p[1];
		int64_t m = (int64_t)a->inv_mass + b->inv_mass;
		int64_t kn =
		    m + mul64(a->inv_inertia, f2d_round16((int64_t)p1->rn[l][0] * p2->rn[l][0])) +
		    mul64(b->inv_inertia, f2d_round16((int64_t)p1->rn[l][1] * p2->rn[l][1]));
		int64_t kt =
		    m + mul64(a->inv_inertia, f2d_round16((int64_t)p1->rt[l][0] * p2->rt[l][0])) +
		    mul64(b->inv_inertia, f2d_round16((int64_t)p1->rt[l][1] * p2->rt[l][1]));
		bt->k12[l][0] = f2d_sat(kn);
		bt->k12[l][1] = f2d_sat(kt);
	} else {
		bt->k12[l][0] = bt->k12[l][1] = 0;
	}
	bool ok = !w->saturated;
	w->saturated = saturated || !ok;
	return ok;
}

static void prestep_lane(f2d_world *w, const prestep_consts *k, f2d_contact_batch *bt, int32_t l)
{
	const f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
	const f2d_body *a = &w->bodies[arb->body_a];
	const f2d_body *b = &w->bodies[arb->body_b];
	bt->friction[l] = arb->friction;
	if (!KEEP_LANES || !lane_inputs_same(bt, l, arb, a, b)) {
		bool ok = prestep_geometry(w, bt, l, arb, a, b);
		bt->kept = (bt->kept & ~(1u << l)) | (KEEP_LANES && ok ? 1u << l : 0u);
		COUNT_LANES(false, 1);
	} else {
		COUNT_LANES(true, 1);
	}
	f2d_vec2 n = arb->normal;
	/* restitution's vn: without restitution the bounce is 0 whatever vn */
	const bool rest = arb->restitution > 0;
	int64_t lin =
	    rest ? ((int64_t)b->v.x - a->v.x) * n.x + ((int64_t)b->v.y - a->v.y) * n.y : 0;
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *pl = &bt->p[i];
		if (i >= arb->count) {
			pl->bias[l] = pl->pn[l] = pl->pt[l] = pl->bounce[l] = 0;
			if (k->soft) {
				pl->sep[l] = 0;
			}
			continue;
		}
		const f2d_contact_point *cp = &arb->points[i];
		fix16_t rna = pl->rn[l][0], rnb = pl->rn[l][1];
		fix16_t s = cp->separation;
		int64_t bias;
		if (s > 0) {
			bias = -mul64(s, k->inv_h);
		} else {
			fix16_t pen = -s - k->slop;
			bias = pen > 0 ? mul64(k->beta_inv_h, pen) : 0;
		}
		pl->bounce[l] = 0;
		if (rest) {
			fix16_t vn =
			    f2d_sat(f2d_round16(lin + (int64_t)b->w * rnb - (int64_t)a->w * rna));
			/* a gap that takes more than half the step to close: the body lands this
			 * step and bounces the next (from the contact, not from up to a step's
			 * travel above it) */
			int64_t closing = s > 0 ? mul64(s, k->inv_h) : 0;
			pl->bounce[l] = vn < -k->threshold && (k->soft || 2 * closing < -(int64_t)vn)
			                    ? -f2d_mul(arb->restitution, vn)
			                    : 0;
		}
		pl->bias[l] = f2d_sat(bias);
		if (k->soft) {
			pl->sep[l] = s;
		}
		pl->pn[l] = cp->pn;
		pl->pt[l] = cp->pt;
	}
}

/* Lanes past bt->lanes: valid body indices and no effect (they are never stored). */
static void pad_lanes(f2d_contact_batch *bt)
{
	for (int32_t l = bt->lanes; l < F2D_LANES; ++l) {
		bt->arbiter[l] = bt->arbiter[0];
		bt->body_a[l] = bt->body_a[0];
		bt->body_b[l] = bt->body_b[0];
		bt->n[l][0] = bt->n[l][1] = bt->friction[l] = bt->k12[l][0] = bt->k12[l][1] = 0;
		bt->dva[l][0] = bt->dva[l][1] = bt->dvb[l][0] = bt->dvb[l][1] = 0;
		bt->stiff[l] = 0;
		for (int32_t i = 0; i < 2; ++i) {
			f2d_point_lanes *pl = &bt->p[i];
			pl->rn[l][0] = pl->rn[l][1] = pl->rt[l][0] = pl->rt[l][1] = 0;
			pl->wn[l][0] = pl->wn[l][1] = pl->wt[l][0] = pl->wt[l][1] = 0;
			pl->mass_n[l] = pl->mass_t[l] = pl->bias[l] = pl->pn[l] = pl->pt[l] = 0;
			pl->bounce[l] = pl->sep[l] = 0;
		}
	}
}

/* ---- test-only switches (tests/test_solver_paths.c; never defined in a real build) ----
 * F2D_CONTACT_EXACT_ONLY: warm start and solve skip the fast paths and always take the exact
 * path, the reference the test compares the normal build against, step by step.
 * F2D_CONTACT_COUNT_PATHS: counts the arbiters each path handled (warm start fast, warm start
 * exact, solve fast, solve exact), so that the test can show both paths ran. Not thread-safe.
 * F2D_NO_SIMD: the scalar paths only, also on a CPU with AVX-512. */
#ifdef F2D_CONTACT_COUNT_PATHS
extern uint64_t f2d_contact_path_counts[4];
uint64_t f2d_contact_path_counts[4];
#define COUNT_PATH(i, n) (f2d_contact_path_counts[i] += (uint64_t)(n))
#else
#define COUNT_PATH(i, n) ((void)(n))
#endif

#if F2D_X86_SIMD && !defined(F2D_CONTACT_EXACT_ONLY)
#define F2D_HAVE_SIMD 1
#else
#define F2D_HAVE_SIMD 0
#endif

/* Warm start of one lane, exact path. */
static void warm_start_exact(clane *c, int64_t *a, int64_t *b, bool *saturated)
{
	vel64 v = load_vel(a, b);
	const cpoint *p1 = &c->p[0], *p2 = &c->p[1];
	apply2(&v, p1->pn, p2->pn, c, p1, p2, false, saturated);
	apply2(&v, p1->pt, p2->pt, c, p1, p2, true, saturated);
	store_vel(a, b, &v);
}

/* One lane of a Gauss-Seidel pass, exact path, points in the order p[flip], p[flip ^ 1]. For
 * two points, the relative velocity at the second point after the first point's impulse l is
 * known without touching the bodies: v2' = v2 + l k12 (k12 from the pre-step). So each
 * direction costs two relative velocities, two scalar updates and one combined application:
 * the same sequential impulses, fewer operations. Friction is solved first, the normal last
 * (non-penetration matters most); the two points are visited in alternating order (0,1 then
 * 1,0) because plain Gauss-Seidel always favours the first point, which tips an aligned stack. */
static void solve_exact(clane *c, int64_t *a, int64_t *b, int32_t flip, bool *saturated)
{
	f2d_vec2 n = c->n;
	f2d_vec2 t = f2d_right_perp(n);
	vel64 v = load_vel(a, b);
	cpoint *p1 = &c->p[flip];
	cpoint *p2 = &c->p[flip ^ 1];
	fix16_t v1 = rel_vel(&v, t, p1->rt_a, p1->rt_b);
	fix16_t v2 = rel_vel(&v, t, p2->rt_a, p2->rt_b);
	fix16_t d1 = friction_step(p1, v1, c->friction, saturated);
	v2 = f2d_sat((int64_t)v2 + f2d_round16((int64_t)d1 * c->k12_t));
	fix16_t d2 = friction_step(p2, v2, c->friction, saturated);
	apply2(&v, d1, d2, c, p1, p2, true, saturated);

	int64_t n1 = rel_vel64(&v, n, p1->rn_a, p1->rn_b);
	int64_t n2 = rel_vel64(&v, n, p2->rn_a, p2->rn_b);
	d1 = normal_step(p1, n1, saturated);
	d2 = normal_step(p2, n2 + f2d_round16((int64_t)d1 * c->k12_n), saturated);
	apply2(&v, d1, d2, c, p1, p2, false, saturated);
	store_vel(a, b, &v);
}

/* ---- fast path ----
 *
 * The exact path above saturates a dozen intermediate values per arbiter (and records it). In
 * a sane scene none of them ever comes near the fix16 range, so the fast path computes the same
 * expressions without the saturations, on local copies, and only checks at the end that every
 * value it would have saturated was in [-2^30, 2^30): there every f2d_sat / add_sat of the
 * exact path is the identity, so the two paths give the same bits. Otherwise the local results
 * are dropped and the lane is solved again by the exact path from the unchanged state.
 *
 * The check is one add and one or per value: x in [-2^30, 2^30) <=> (uint64)(x + 2^30) < 2^31,
 * and the or of such values is < 2^31 iff each is. The velocities read from the bodies are
 * checked too: then every operand of every product below lies in [-2^31, 2^31) (a velocity, the
 * difference of two, an impulse increment or the sum of two, a checked relative velocity, a
 * stored fix16), which the AVX-512 path needs (it multiplies 32 x 32 -> 64 bits). (The SIMD
 * kernels, solver_kernel.h, skip that check: the rows always hold fix16 values, and they form
 * the linear part of the first relative velocity from the velocities themselves, four products
 * instead of two differences; the same exact sum.)
 *
 * Because the check comes at the end, the values after a failed one can be anything, and their
 * products could overflow 64 bits: the fast path therefore multiplies, adds and subtracts modulo
 * 2^64 (in uint64_t, converted back; the same machine instructions). Whenever every check passes
 * each operand equals the exact path's (its saturations were the identity), so each product and
 * sum is one that the exact path computes in 64 bits without overflow: the results are exact. */

/* friction_step without saturation: pt and the cone as there; the increment is checked. The
 * cone and the clamped P_t are within the fix16 range, so the increment is below 2^32 in
 * magnitude whatever vt was. */
static inline int64_t friction_fast(const f2d_point_lanes *p, int32_t l, int64_t vt,
                                    int64_t friction, uint64_t *acc)
{
	int64_t pt = p->pt[l];
	int64_t max_pt = f2d_round16(friction * p->pn[l]);
	max_pt = max_pt > INT32_MAX ? INT32_MAX : max_pt;
	int64_t q = f2d_wsub(pt, wmul16(p->mass_t[l], vt));
	q = q < -max_pt ? -max_pt : (q > max_pt ? max_pt : q);
	int64_t d = q - pt;
	*acc |= f2d_fast_chk(d);
	F2D_FAST_FOLD(*acc);
	return d;
}

/* normal_step without saturation: bias - vn and the new P_n are checked (P_n after the clamp
 * at 0, so only the upper saturation counts), and the increment (P_n >= 0 always). */
static inline int64_t normal_fast(const f2d_point_lanes *p, int32_t l, int64_t vn, int64_t *pn_out,
                                  uint64_t *acc)
{
	int64_t pn = p->pn[l];
	int64_t e = f2d_wsub(p->bias[l], vn);
	int64_t q = f2d_wadd(pn, wmul16(p->mass_n[l], e));
	q = q < 0 ? 0 : q;
	int64_t d = f2d_wsub(q, pn);
	*acc |= f2d_fast_chk(e) | f2d_fast_chk(q) | f2d_fast_chk(d);
	F2D_FAST_FOLD(*acc);
	*pn_out = q;
	return d;
}

/* apply2 without saturation (tangent: dir_t = 1), lane l of bt; wa1..wb2 the angular responses
 * of the two points. The new velocities are checked. */
static inline void apply_fast(vel64 *v, int64_t l1, int64_t l2, const f2d_contact_batch *bt,
                              int32_t l, int64_t wa1, int64_t wb1, int64_t wa2, int64_t wb2,
                              int dir_t, uint64_t *acc)
{
	int64_t s = f2d_wadd(l1, l2);
	int64_t dax = bt->dva[l][0], day = bt->dva[l][1], dbx = bt->dvb[l][0], dby = bt->dvb[l][1];
	if (dir_t) {
		v->vax = f2d_wsub(v->vax, wmul16(s, day));
		v->vay = f2d_wadd(v->vay, wmul16(s, dax));
		v->vbx = f2d_wadd(v->vbx, wmul16(s, dby));
		v->vby = f2d_wsub(v->vby, wmul16(s, dbx));
	} else {
		v->vax = f2d_wsub(v->vax, wmul16(s, dax));
		v->vay = f2d_wsub(v->vay, wmul16(s, day));
		v->vbx = f2d_wadd(v->vbx, wmul16(s, dbx));
		v->vby = f2d_wadd(v->vby, wmul16(s, dby));
	}
	v->wa = f2d_wsub(v->wa, f2d_wround16(f2d_wadd(f2d_wmul(l1, wa1), f2d_wmul(l2, wa2))));
	v->wb = f2d_wadd(v->wb, f2d_wround16(f2d_wadd(f2d_wmul(l1, wb1), f2d_wmul(l2, wb2))));
	*acc |= f2d_fast_chk(v->vax) | f2d_fast_chk(v->vay) | f2d_fast_chk(v->wa) |
	        f2d_fast_chk(v->vbx) | f2d_fast_chk(v->vby) | f2d_fast_chk(v->wb);
	F2D_FAST_FOLD(*acc);
}

/* The linear part of the relative velocity along n, (v_b - v_a) . n, and along
 * t = (n.y, -n.x), (v_b - v_a) . t; exact, shared by both points (the angular parts differ). */
static inline int64_t lin_n(const vel64 *v, f2d_vec2 n)
{
	return f2d_wadd(f2d_wmul(f2d_wsub(v->vbx, v->vax), n.x),
	                f2d_wmul(f2d_wsub(v->vby, v->vay), n.y));
}
static inline int64_t lin_t(const vel64 *v, f2d_vec2 n)
{
	return f2d_wsub(f2d_wmul(f2d_wsub(v->vbx, v->vax), n.y),
	                f2d_wmul(f2d_wsub(v->vby, v->vay), n.x));
}

/* The relative velocity at a point: linear part plus w_b (r_b x d) - w_a (r_a x d), the same
 * exact 64-bit sum as rel_vel64 (the order of exact integer additions does not matter), and
 * rounded as f2d_round16. */
static inline int64_t point_vel(const vel64 *v, int64_t lin, fix16_t rd_a, fix16_t rd_b)
{
	return f2d_wround16(f2d_wsub(f2d_wadd(lin, f2d_wmul(v->wb, rd_b)), f2d_wmul(v->wa, rd_a)));
}

static inline void load_vel64(vel64 *v, const int64_t *a, const int64_t *b, uint64_t *acc)
{
	*v = load_vel(a, b);
	*acc |= f2d_fast_chk(v->vax) | f2d_fast_chk(v->vay) | f2d_fast_chk(v->wa) |
	        f2d_fast_chk(v->vbx) | f2d_fast_chk(v->vby) | f2d_fast_chk(v->wb);
}

/* Warm start of one lane, fast path; false (nothing written) when a value left the range.
 * It reads the batch in place (as solve_fast). */
static inline bool warm_start_fast(const f2d_contact_batch *bt, int32_t l, int64_t *a, int64_t *b)
{
	const f2d_point_lanes *p1 = &bt->p[0], *p2 = &bt->p[1];
	vel64 v;
	uint64_t acc = 0;
	load_vel64(&v, a, b, &acc);
	apply_fast(&v, p1->pn[l], p2->pn[l], bt, l, p1->wn[l][0], p1->wn[l][1], p2->wn[l][0],
	           p2->wn[l][1], 0, &acc);
	apply_fast(&v, p1->pt[l], p2->pt[l], bt, l, p1->wt[l][0], p1->wt[l][1], p2->wt[l][0],
	           p2->wt[l][1], 1, &acc);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	store_vel(a, b, &v);
	return true;
}

/* One lane, fast path (points in the order p[flip], p[flip ^ 1]), as solve_exact, reading the
 * batch in place; false (and nothing written) when a value left the checked range. */
static inline bool solve_fast(f2d_contact_batch *bt, int32_t l, int64_t *a, int64_t *b,
                              int32_t flip)
{
	f2d_vec2 n = f2d_v((fix16_t)bt->n[l][0], (fix16_t)bt->n[l][1]);
	f2d_point_lanes *p1 = &bt->p[flip], *p2 = &bt->p[flip ^ 1];
	int64_t mu = bt->friction[l];
	uint64_t acc = 0;
	vel64 v;
	load_vel64(&v, a, b, &acc);
	int64_t lt = lin_t(&v, n);
	int64_t v1 = point_vel(&v, lt, (fix16_t)p1->rt[l][0], (fix16_t)p1->rt[l][1]);
	int64_t v2 = point_vel(&v, lt, (fix16_t)p2->rt[l][0], (fix16_t)p2->rt[l][1]);
	acc |= f2d_fast_chk(v1) | f2d_fast_chk(v2);
	int64_t d1 = friction_fast(p1, l, v1, mu, &acc);
	v2 = f2d_wadd(v2, wmul16(d1, bt->k12[l][1]));
	acc |= f2d_fast_chk(v2);
	int64_t d2 = friction_fast(p2, l, v2, mu, &acc);
	apply_fast(&v, d1, d2, bt, l, p1->wt[l][0], p1->wt[l][1], p2->wt[l][0], p2->wt[l][1], 1, &acc);

	int64_t ln = lin_n(&v, n);
	int64_t n1 = point_vel(&v, ln, (fix16_t)p1->rn[l][0], (fix16_t)p1->rn[l][1]);
	int64_t n2 = point_vel(&v, ln, (fix16_t)p2->rn[l][0], (fix16_t)p2->rn[l][1]);
	int64_t pn1, pn2;
	int64_t dn1 = normal_fast(p1, l, n1, &pn1, &acc);
	int64_t dn2 = normal_fast(p2, l, f2d_wadd(n2, wmul16(dn1, bt->k12[l][0])), &pn2, &acc);
	apply_fast(&v, dn1, dn2, bt, l, p1->wn[l][0], p1->wn[l][1], p2->wn[l][0], p2->wn[l][1], 0,
	           &acc);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	p1->pt[l] += d1;
	p2->pt[l] += d2;
	p1->pn[l] = pn1;
	p2->pn[l] = pn2;
	store_vel(a, b, &v);
	return true;
}

/* One lane, scalar: the fast path, or the exact one when the fast path declined. */
static void solve_lane(f2d_world *w, f2d_contact_batch *bt, int32_t l, int32_t flip,
                       bool *saturated)
{
	int64_t *a = vel_row(w, bt->body_a[l]);
	int64_t *b = vel_row(w, bt->body_b[l]);
#ifndef F2D_CONTACT_EXACT_ONLY
	if (solve_fast(bt, l, a, b, flip)) {
		COUNT_PATH(2, 1);
		return;
	}
#else
	(void)solve_fast; /* unused here: no warning */
	(void)warm_start_fast;
#endif
	COUNT_PATH(3, 1);
	clane c;
	load_lane(bt, l, &c);
	solve_exact(&c, a, b, flip, saturated);
	store_lane(bt, l, &c);
}

/* ---- AVX-512 ----
 *
 * solve_fast on 8 lanes, one 64-bit lane an arbiter; the same operations in the same order.
 * Products are vpmuldq (signed 32 x 32 -> 64 bits of the low halves): every operand is in
 * [-2^31, 2^31) when the lane's check passes (see the fast path), so the product is the one
 * solve_fast computes; a lane whose check fails is dropped and solved by the exact path. The
 * rounding shift is vpsraq, the clamps vpminsq / vpmaxsq and compares into masks. Velocities are
 * gathered from and scattered to the bodies (lanes of one batch never share a body that moves;
 * the velocities of a static or kinematic body do not change, so several lanes may read and
 * write the same one). */
#if F2D_HAVE_SIMD
#include <immintrin.h>

#include "simd_x86.h"

/* AVX-512 (F, DQ): 8 lanes */
#define AVX512 F2D_TARGET_AVX512

typedef __m512i vq;

AVX512 static inline vq vld(const f2d_lane *p)
{
	return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
AVX512 static inline vq vld64(const int64_t *p)
{
	return _mm512_loadu_si512(p);
}
AVX512 static inline vq vmul(vq a, vq b)
{
	return _mm512_mul_epi32(a, b);
}
AVX512 static inline vq vadd(vq a, vq b)
{
	return _mm512_add_epi64(a, b);
}
AVX512 static inline vq vsub(vq a, vq b)
{
	return _mm512_sub_epi64(a, b);
}

/* The velocity rows of 8 bodies, transposed: row l = (v.x, v.y, w, -) of lane l's body.
 * Rows l and l + 2 per register (lanes 0, 2 | 1, 3 | 4, 6 | 5, 7), then in-lane unpacks of
 * 64-bit words (x and w pairs, y pairs) and three 128-bit shuffles: 7 shuffles as before, but
 * the unpacks stay within 128-bit lanes and leave their sources intact (no register copies),
 * against the two-source permutes with an index register (paired runs of the soft passes on
 * this machine's AVX-512: -2 % a pass). */
AVX512 static inline __attribute__((always_inline)) void
rows_load_512(int64_t (*rows)[4], const int32_t *body, vq *vx, vq *vy, vq *vw)
{
	vq z[4];
	for (int32_t i = 0; i < 4; ++i) {
		/* rows j and j + 2, j = 0, 1, 4, 5 */
		int32_t j = (i & 1) + (i & 2) * 2;
		__m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)rows[body[j]]);
		__m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)rows[body[j + 2]]);
		z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
	}
	vq t0 = _mm512_unpacklo_epi64(z[0], z[1]); /* x0 x1 | w0 w1 | x2 x3 | w2 w3 */
	vq t1 = _mm512_unpackhi_epi64(z[0], z[1]); /* y0 y1 | -     | y2 y3 | -     */
	vq t2 = _mm512_unpacklo_epi64(z[2], z[3]); /* x4 x5 | w4 w5 | x6 x7 | w6 w7 */
	vq t3 = _mm512_unpackhi_epi64(z[2], z[3]); /* y4 y5 | -     | y6 y7 | -     */
	*vx = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
	*vy = _mm512_shuffle_i64x2(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
	*vw = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
}

/* The inverse of rows_load_512, for the lanes whose bit is set only (the 4th word of a row is
 * junk): the (x, y) pairs by in-lane unpacks, then each row's two 128-bit halves joined by a
 * 256-bit permute (vperm2i128, half the cost of a 512-bit shuffle on a CPU that splits those in
 * two; paired runs of the soft passes: -2 % a pass against two-source 512-bit permutes) */
AVX512 static inline __attribute__((always_inline)) void
rows_store_512(int64_t (*rows)[4], const int32_t *body, unsigned m, vq vx, vq vy, vq vw)
{
	vq p = _mm512_unpacklo_epi64(vx, vy);  /* x0 y0 | x2 y2 | x4 y4 | x6 y6 */
	vq q = _mm512_unpackhi_epi64(vx, vy);  /* x1 y1 | x3 y3 | x5 y5 | x7 y7 */
	vq wo = _mm512_unpackhi_epi64(vw, vw); /* w1 w1 | w3 w3 | w5 w5 | w7 w7 */
	/* vw itself is w0 w1 | w2 w3 | ...: the even rows' w in the low word of each 128 bits */
	__m256i pl = _mm512_castsi512_si256(p), ph = _mm512_extracti64x4_epi64(p, 1);
	__m256i ql = _mm512_castsi512_si256(q), qh = _mm512_extracti64x4_epi64(q, 1);
	__m256i el = _mm512_castsi512_si256(vw), eh = _mm512_extracti64x4_epi64(vw, 1);
	__m256i ol = _mm512_castsi512_si256(wo), oh = _mm512_extracti64x4_epi64(wo, 1);
	__m256i r[8] = {_mm256_permute2x128_si256(pl, el, 0x20), _mm256_permute2x128_si256(ql, ol, 0x20),
	                _mm256_permute2x128_si256(pl, el, 0x31), _mm256_permute2x128_si256(ql, ol, 0x31),
	                _mm256_permute2x128_si256(ph, eh, 0x20), _mm256_permute2x128_si256(qh, oh, 0x20),
	                _mm256_permute2x128_si256(ph, eh, 0x31), _mm256_permute2x128_si256(qh, oh, 0x31)};
	if ((m & 0xFFu) == 0xFFu) {
		/* every lane (the common case): no test per lane */
		for (int32_t i = 0; i < 8; ++i) {
			_mm256_storeu_si256((__m256i *)(void *)rows[body[i]], r[i]);
		}
		return;
	}
	for (int32_t i = 0; i < 8; ++i) {
		if (m & (1u << i)) {
			_mm256_storeu_si256((__m256i *)(void *)rows[body[i]], r[i]);
		}
	}
}

/* AVX-512: one group is a batch (no group loop); the group kernels are inlined into the runs
 * of batches (K(solve_run_f*), K(warm_run), K(soft_run_*)), flip and use_bias constants there
 * (measured on pyramid20, per-step minimum over 5 runs: the soft step 0.0850 -> 0.0794 ms, the
 * Gauss-Seidel step 0.0796 -> 0.0790 ms); K(warm) too (the compiler kept it a call: paired
 * runs of the warm start on settled batches, pyramid20 and rain1000: -2 % and -4 % a batch) */
#define K_BATCH 0
#define K_INLINE __attribute__((always_inline))

#define K(name) name##_512
#define K_ATTR AVX512
#define K_W 8
#define kv __m512i
#define kp __mmask8
#define K_LD(p) vld(p)
#define K_LD64(p) _mm512_loadu_si512(p)
#define K_SRL32(x) _mm512_srli_epi64(x, 32)
#define K_SET1(c) _mm512_set1_epi64(c)
#define K_ZERO _mm512_setzero_si512()
#define K_ADD(a, b) _mm512_add_epi64(a, b)
#define K_SUB(a, b) _mm512_sub_epi64(a, b)
#define K_OR(a, b) _mm512_or_si512(a, b)
#define K_OR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0xFE)
#define K_MUL(a, b) _mm512_mul_epi32(a, b)
#define K_SRA(x, n) _mm512_srai_epi64(x, n)
#define K_GT(a, b) _mm512_cmpgt_epi64_mask(a, b)
#define K_LT(a, b) _mm512_cmplt_epi64_mask(a, b)
#define K_SEL(p, a, b) _mm512_mask_mov_epi64(b, p, a)
#define K_MIN(a, b) _mm512_min_epi64(a, b)
#define K_MAX(a, b) _mm512_max_epi64(a, b)
#define K_ANY(p) ((unsigned)(p) != 0u)
#define K_ROUND16(p) K_SRA(K_ADD(K_ADD(p, K_SET1(0x8000)), K_SRA(p, 63)), 16)
#define K_ROUND16_B(p) K(round16)(p)
#define K_RB 0
#define K_ROUND16_NN(p) _mm512_srli_epi64(K_ADD(p, K_SET1(0x8000)), 16)
#define K_ROUND16_NN_NEG(p) _mm512_srli_epi64(K_SUB(K_SET1(0x8000), p), 16)
/* round16(p) / 8 truncating, in one rounding shift (solver_kernel.h, K_ROUND16_DIV8):
 * (p + 2^15 + (p < 0 ? 7 2^16 - 1 : 0)) >> 19, arithmetic */
#define K_ROUND16_DIV8(p)                                                                          \
	K_SRA(K_ADD(K_ADD(p, K_SET1(0x8000)), _mm512_and_si512(K_SRA(p, 63), K_SET1(0x6FFFF))), 19)
#define K_OKBITS(acc)                                                                              \
	((unsigned)_mm512_cmplt_epu64_mask(acc, _mm512_set1_epi64((int64_t)FAST_LIMIT)))
#define K_STORE_BITS(p, bits, v) _mm512_mask_cvtepi64_storeu_epi32(p, (__mmask8)(bits), v)
#define K_ROWS_LOAD rows_load_512
#define K_ROWS_STORE rows_store_512
#include "solver_kernel.h"
#undef K
#undef K_ATTR
#undef K_W
#undef kv
#undef kp
#undef K_LD
#undef K_LD64
#undef K_SRL32
#undef K_SET1
#undef K_ZERO
#undef K_ADD
#undef K_SUB
#undef K_OR
#undef K_OR3
#undef K_MUL
#undef K_SRA
#undef K_GT
#undef K_LT
#undef K_SEL
#undef K_MIN
#undef K_MAX
#undef K_OKBITS
#undef K_ANY
#undef K_ROUND16
#undef K_ROUND16_B
#undef K_RB
#undef K_ROUND16_NN
#undef K_ROUND16_NN_NEG
#undef K_ROUND16_DIV8
#undef K_STORE_BITS
#undef K_ROWS_LOAD
#undef K_ROWS_STORE

/* AVX2: 4 lanes. No 64-bit arithmetic shift, min, max or unsigned compare: built from
 * compares and blends (vpblendvb), all integer instructions. */
#define AVX2 F2D_TARGET_AVX2

/* round16(p) / 8 truncating toward 0 (C's division) for |p| < 2^62 (solver_kernel.h,
 * K_ROUND16_DIV8): t = p + 2^15 + (p < 0 ? 7 2^16 - 1 : 0) shifted right by 19, arithmetic,
 * as the logical shift of t + 2^63 less 2^44 (as f2d_round16_256); six instructions, against
 * eleven for the rounding and the division apart */
AVX2 static inline __m256i round16_div8_avx2(__m256i p)
{
	__m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
	__m256i t = _mm256_add_epi64(_mm256_add_epi64(p, _mm256_set1_epi64x(INT64_MIN + 0x8000)),
	                             _mm256_and_si256(sign, _mm256_set1_epi64x(0x6FFFF)));
	return _mm256_sub_epi64(_mm256_srli_epi64(t, 19), _mm256_set1_epi64x((int64_t)1 << 44));
}

/* f2d_round16_256 without its last subtraction of 2^47: f2d_round16(p) + 2^47 for |p| < 2^62
 * (solver_kernel.h, K_ROUND16_B) */
AVX2 static inline __m256i round16_biased_avx2(__m256i p)
{
	__m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
	return _mm256_srli_epi64(
	    _mm256_add_epi64(_mm256_add_epi64(p, _mm256_set1_epi64x(INT64_MIN + 0x8000)), sign), 16);
}

/* the low halves of the 4 lanes (the fix16 values), stored where bits says */
AVX2 static inline void store_bits_256(f2d_lane *p, unsigned bits, __m256i v)
{
	const __m128i lane = _mm_setr_epi32(1, 2, 4, 8);
	__m128i m = _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int)bits), lane), lane);
	__m256i low = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
	_mm_maskstore_epi32((int *)(void *)p, m, _mm256_castsi256_si128(low));
}

/* 4 velocity rows transposed: unpack pairs of rows, then exchange 128-bit halves */
AVX2 static inline void rows_load_256(int64_t (*rows)[4], const int32_t *body, __m256i *vx,
                                      __m256i *vy, __m256i *vw)
{
	__m256i r[4];
	for (int32_t i = 0; i < 4; ++i) {
		r[i] = _mm256_loadu_si256((const __m256i *)(const void *)rows[body[i]]);
	}
	__m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]); /* x0 x1 w0 w1 */
	__m256i t1 = _mm256_unpackhi_epi64(r[0], r[1]); /* y0 y1 -  -  */
	__m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]); /* x2 x3 w2 w3 */
	__m256i t3 = _mm256_unpackhi_epi64(r[2], r[3]); /* y2 y3 -  -  */
	*vx = _mm256_permute2x128_si256(t0, t2, 0x20);
	*vy = _mm256_permute2x128_si256(t1, t3, 0x20);
	*vw = _mm256_permute2x128_si256(t0, t2, 0x31);
}

AVX2 static inline void rows_store_256(int64_t (*rows)[4], const int32_t *body, unsigned m,
                                       __m256i vx, __m256i vy, __m256i vw)
{
	__m256i t0 = _mm256_permute2x128_si256(vx, vw, 0x20); /* x0 x1 w0 w1 */
	__m256i t2 = _mm256_permute2x128_si256(vx, vw, 0x31); /* x2 x3 w2 w3 */
	__m256i t1 = _mm256_permute2x128_si256(vy, vy, 0x20); /* y0 y1 y0 y1 */
	__m256i t3 = _mm256_permute2x128_si256(vy, vy, 0x31); /* y2 y3 y2 y3 */
	__m256i r[4] = {_mm256_unpacklo_epi64(t0, t1), _mm256_unpackhi_epi64(t0, t1),
	                _mm256_unpacklo_epi64(t2, t3), _mm256_unpackhi_epi64(t2, t3)};
	if ((m & 0xFu) == 0xFu) {
		/* every lane (the common case): no test per lane */
		for (int32_t i = 0; i < 4; ++i) {
			_mm256_storeu_si256((__m256i *)(void *)rows[body[i]], r[i]);
		}
		return;
	}
	for (int32_t i = 0; i < 4; ++i) {
		if (m & (1u << i)) {
			_mm256_storeu_si256((__m256i *)(void *)rows[body[i]], r[i]);
		}
	}
}

/* AVX2: the groups of a batch in one call (solver_kernel.h K(solve_batch)) */
#undef K_BATCH
#undef K_INLINE
#define K_BATCH 1
#define K_INLINE __attribute__((always_inline))

#define K(name) name##_256
#define K_ATTR AVX2
#define K_W 4
#define kv __m256i
#define kp __m256i
#define K_LD(p) _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define K_LD64(p) _mm256_loadu_si256((const __m256i *)(p))
#define K_SRL32(x) _mm256_srli_epi64(x, 32)
#define K_SET1(c) _mm256_set1_epi64x(c)
#define K_ZERO _mm256_setzero_si256()
#define K_ADD(a, b) _mm256_add_epi64(a, b)
#define K_SUB(a, b) _mm256_sub_epi64(a, b)
#define K_OR(a, b) _mm256_or_si256(a, b)
#define K_OR3(a, b, c) _mm256_or_si256(_mm256_or_si256(a, b), c)
#define K_MUL(a, b) _mm256_mul_epi32(a, b)
#define K_GT(a, b) _mm256_cmpgt_epi64(a, b)
#define K_LT(a, b) _mm256_cmpgt_epi64(b, a)
#define K_SEL(p, a, b) _mm256_blendv_epi8(b, a, p)
#define K_MIN(a, b) _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b))
#define K_MAX(a, b) _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b))
#define K_ANY(p) (_mm256_movemask_epi8(p) != 0)
#define K_ROUND16(p) f2d_round16_256(p)
#define K_ROUND16_B(p) round16_biased_avx2(p)
#define K_RB (INT64_C(1) << 47)
#define K_ROUND16_NN(p) _mm256_srli_epi64(K_ADD(p, K_SET1(0x8000)), 16)
#define K_ROUND16_NN_NEG(p) _mm256_srli_epi64(K_SUB(K_SET1(0x8000), p), 16)
#define K_ROUND16_DIV8(p) round16_div8_avx2(p)
#define K_OKBITS(acc) f2d_okbits_256(acc)
#define K_STORE_BITS(p, bits, v) store_bits_256(p, bits, v)
#define K_ROWS_LOAD rows_load_256
#define K_ROWS_STORE rows_store_256
#include "solver_kernel.h"

/* prestep_lane on 8 lanes. The inputs are copied into lanes (staging), the arithmetic is
 * prestep_lane's, operation for operation: vpmuldq where both operands are fix16 values,
 * vpmullq (64 x 64 bits) where one may not be (a velocity difference, a squared lever arm);
 * the casts to fix16 of f2d_cross and f2d_mul are truncations here too. The effective masses
 * need a division: inverse_mass, per lane. */
typedef struct prestep_stage {
	/* fix16 values (and two: -1 or 0), as the batch holds them: compared with the batch's
	 * inputs 8 lanes to a 256-bit word (kept_lanes8) and widened as they are loaded */
	f2d_lane ima[F2D_LANES], imb[F2D_LANES], iia[F2D_LANES], iib[F2D_LANES];
	f2d_lane vax[F2D_LANES], vay[F2D_LANES], wa[F2D_LANES];
	f2d_lane vbx[F2D_LANES], vby[F2D_LANES], wb[F2D_LANES];
	f2d_lane rest[F2D_LANES], two[F2D_LANES];
	f2d_lane nx[F2D_LANES], ny[F2D_LANES], points[F2D_LANES];
	struct {
		f2d_lane rax[F2D_LANES], ray[F2D_LANES], rbx[F2D_LANES], rby[F2D_LANES];
		f2d_lane sep[F2D_LANES];
	} p[2];
	int64_t kn[2][F2D_LANES], kt[2][F2D_LANES];
	/* whether a lane's arbiter has restitution: the velocities (vax .. wb) are staged only
	 * then (the motion part reads them for restitution's vn only) */
	bool any_rest;
} prestep_stage;

static void stage_zero(prestep_stage *st, int32_t l, int32_t from_point)
{
	if (from_point == 0) {
		st->ima[l] = st->imb[l] = st->iia[l] = st->iib[l] = 0;
		st->vax[l] = st->vay[l] = st->wa[l] = st->vbx[l] = st->vby[l] = st->wb[l] = 0;
		st->rest[l] = st->two[l] = 0;
		st->nx[l] = st->ny[l] = st->points[l] = 0;
	}
	for (int32_t i = from_point; i < 2; ++i) {
		st->p[i].rax[l] = st->p[i].ray[l] = st->p[i].rbx[l] = st->p[i].rby[l] = 0;
		st->p[i].sep[l] = 0;
	}
}

/* The SIMD pre-steps' inputs of a batch, lane after lane. (Staged by gathers instead, 8 lanes a
 * field with vpgatherdd, the step took 3 % fewer instructions but 1-3 % more CPU time on the
 * AVX-512 machine of issue 16, AMD Zen 4, with either kernel: measured and left out.) */
static void stage_lanes(const f2d_world *w, f2d_contact_batch *bt, prestep_stage *st)
{
	for (int32_t l = bt->lanes; l < F2D_LANES; ++l) {
		stage_zero(st, l, 0);
	}
	bool any_rest = false;
	/* the bodies by the layout's indices, which are the arbiter's (coloring.c packs them from
	 * its key, which holds them, and keeps a layout only while every key is the same): their
	 * loads need not wait for the arbiter's */
	for (int32_t l = 0; l < bt->lanes; ++l) {
		const f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
		const f2d_body *a = &w->bodies[bt->body_a[l]];
		const f2d_body *b = &w->bodies[bt->body_b[l]];
		st->nx[l] = arb->normal.x;
		st->ny[l] = arb->normal.y;
		st->points[l] = arb->count;
		bt->friction[l] = arb->friction;
		st->ima[l] = a->inv_mass;
		st->imb[l] = b->inv_mass;
		st->iia[l] = a->inv_inertia;
		st->iib[l] = b->inv_inertia;
		st->rest[l] = arb->restitution;
		any_rest |= arb->restitution > 0;
		st->two[l] = arb->count == 2 ? -1 : 0;
		for (int32_t i = 0; i < arb->count; ++i) {
			const f2d_contact_point *cp = &arb->points[i];
			st->p[i].rax[l] = cp->r_a.x;
			st->p[i].ray[l] = cp->r_a.y;
			st->p[i].rbx[l] = cp->r_b.x;
			st->p[i].rby[l] = cp->r_b.y;
			st->p[i].sep[l] = cp->separation;
			bt->p[i].pn[l] = cp->pn;
			bt->p[i].pt[l] = cp->pt;
		}
		if (arb->count < 2) {
			stage_zero(st, l, arb->count);
			bt->p[1].pn[l] = bt->p[1].pt[l] = 0;
		}
	}
	st->any_rest = any_rest;
	/* Restitution is the only reader of the velocities: bounce = -e vn where e > 0, else 0
	 * whatever vn. A batch without restitution does not stage them (nor compute vn); one with
	 * it stages every lane's, as before (stage_zero: 0 in padded lanes). */
	for (int32_t l = 0; any_rest && l < bt->lanes; ++l) {
		const f2d_body *a = &w->bodies[bt->body_a[l]];
		const f2d_body *b = &w->bodies[bt->body_b[l]];
		st->vax[l] = a->v.x;
		st->vay[l] = a->v.y;
		st->wa[l] = a->w;
		st->vbx[l] = b->v.x;
		st->vby[l] = b->v.y;
		st->wb[l] = b->w;
	}
}

/* The lanes (in use) whose staged inputs equal those their constants came from (kept_lanes):
 * the inputs' differences or-ed together, 8 lanes of 32 bits to a 256-bit word (either
 * kernel; a lane is kept when all 15 are equal) */
AVX2 static inline __m256i diff8(const f2d_lane *a, const f2d_lane *b)
{
	return _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)a),
	                        _mm256_loadu_si256((const __m256i *)(const void *)b));
}
/* diff8 of a pair of lanes (f2d_lane2) and the two staged arrays a, b: the staged ones
 * interleaved as the pair is, the differences of each lane's two values or-ed into its
 * first, and the 8 first ones packed (either kernel) */
AVX2 static inline __m256i diff_pair8(const void *p, const f2d_lane *a, const f2d_lane *b)
{
	__m256i sa = _mm256_loadu_si256((const __m256i *)(const void *)a);
	__m256i sb = _mm256_loadu_si256((const __m256i *)(const void *)b);
	__m256i lo = _mm256_unpacklo_epi32(sa, sb); /* lanes 0 1 | 4 5 */
	__m256i hi = _mm256_unpackhi_epi32(sa, sb); /* lanes 2 3 | 6 7 */
	__m256i d0 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)p),
	                              _mm256_permute2x128_si256(lo, hi, 0x20));
	__m256i d1 = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)p + 1),
	                              _mm256_permute2x128_si256(lo, hi, 0x31));
	d0 = _mm256_or_si256(d0, _mm256_srli_epi64(d0, 32));
	d1 = _mm256_or_si256(d1, _mm256_srli_epi64(d1, 32));
	const __m256i first = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
	return _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(d0, first),
	                                 _mm256_permutevar8x32_epi32(d1, first), 0x20);
}
AVX2 static unsigned kept_lanes8(const f2d_contact_batch *bt, const prestep_stage *st,
                                 unsigned lanes)
{
	__m256i d = diff_pair8(bt->n, st->nx, st->ny);
	d = _mm256_or_si256(d, diff8(bt->points, st->points));
	d = _mm256_or_si256(d, _mm256_or_si256(diff8(bt->ima, st->ima), diff8(bt->imb, st->imb)));
	d = _mm256_or_si256(d, _mm256_or_si256(diff8(bt->iia, st->iia), diff8(bt->iib, st->iib)));
	for (int32_t i = 0; i < 2; ++i) {
		const f2d_point_lanes *pl = &bt->p[i];
		d = _mm256_or_si256(
		    d, _mm256_or_si256(diff8(pl->rax, st->p[i].rax), diff8(pl->ray, st->p[i].ray)));
		d = _mm256_or_si256(
		    d, _mm256_or_si256(diff8(pl->rbx, st->p[i].rbx), diff8(pl->rby, st->p[i].rby)));
	}
	/* vmovmskps moves the compare's sign bits, a bit per lane */
	unsigned same = (unsigned)_mm256_movemask_ps(
	    _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_setzero_si256())));
	return same & lanes & bt->kept;
}

AVX512 static inline vq vtrunc32(vq x)
{
	return _mm512_cvtepi32_epi64(_mm512_cvtepi64_epi32(x));
}
AVX512 static inline vq vst(f2d_lane *p, vq x)
{
	_mm256_storeu_si256((__m256i *)(void *)p, _mm512_cvtepi64_epi32(x));
	return x;
}
/* a pair of lanes (f2d_lane2): the low halves of a and b side by side (vst's truncation) */
AVX512 static inline void vst2(void *p, vq a, vq b)
{
	_mm512_storeu_si512(p, _mm512_mask_blend_epi32(0xAAAA, a, _mm512_slli_epi64(b, 32)));
}
/* the first and the second values of a pair of lanes, sign-extended (any use) */
AVX512 static inline vq vld2_lo(const void *p)
{
	return _mm512_srai_epi64(_mm512_slli_epi64(_mm512_loadu_si512(p), 32), 32);
}
AVX512 static inline vq vld2_hi(const void *p)
{
	return _mm512_srai_epi64(_mm512_loadu_si512(p), 32);
}
/* f2d_sat: into [-INT32_MAX, INT32_MAX]; with *sat: also reports a saturation */
AVX512 static inline vq vsat(vq x)
{
	return _mm512_max_epi64(_mm512_min_epi64(x, _mm512_set1_epi64(INT32_MAX)),
	                        _mm512_set1_epi64(-INT32_MAX));
}
AVX512 static inline vq vsat_flag(vq x, __mmask8 *sat)
{
	vq r = vsat(x);
	*sat |= _mm512_cmpneq_epi64_mask(r, x);
	return r;
}

/* kn of prestep_lane: ima + imb + mul64(iia, round16(ra ra')) + mul64(iib, round16(rb rb')) */
AVX512 static inline vq vk(vq m, vq iia, vq iib, vq ra1, vq ra2, vq rb1, vq rb2)
{
	vq ta = f2d_round16_512(_mm512_mullo_epi64(iia, f2d_round16_512(vmul(ra1, ra2))));
	vq tb = f2d_round16_512(_mm512_mullo_epi64(iib, f2d_round16_512(vmul(rb1, rb2))));
	return vadd(vadd(m, ta), tb);
}

/* m[l] = inverse_mass(w, k[l]) for the lanes on, 0 for the other lanes in use: the lanes whose
 * value from the last step passes hint_is_inverse keep it (tested on 8 lanes at once), the
 * others divide. */
AVX512 static inline __attribute__((always_inline)) void
inverse_masses_avx512(f2d_world *w, const int64_t *k, f2d_lane *m, __mmask8 on, __mmask8 lanes)
{
	__mmask8 todo = on;
#ifndef F2D_CONTACT_EXACT_ONLY
	vq kv = vld64(k), hint = vld(m);
	vq n = _mm512_set1_epi64((int64_t)1 << 33), one = _mm512_set1_epi64(1);
	vq h2 = vadd(hint, hint);
	__mmask8 ok = _mm512_cmpge_epi64_mask(kv, _mm512_set1_epi64(3)) &
	              _mm512_cmplt_epi64_mask(kv, _mm512_set1_epi64(HINT_K_MAX)) &
	              _mm512_cmpge_epi64_mask(hint, one);
	/* vpmuludq (the low 32 bits of each, unsigned): where the masks above hold, 2 hint +- 1 <
	 * 2^32 and k < 2^30, so it is the whole product (below 2^62); where they do not, ok is
	 * false whatever the product */
	ok &= _mm512_cmple_epi64_mask(_mm512_mul_epu32(vsub(h2, one), kv), n) &
	      _mm512_cmpgt_epi64_mask(_mm512_mul_epu32(vadd(h2, one), kv), n);
	todo &= (__mmask8)~ok;
	if (todo != 0) {
		/* newton_inverse on the 8 lanes; kv, hint in range where it matters (below) */
		__mmask8 in = _mm512_cmpge_epi64_mask(kv, _mm512_set1_epi64(3)) &
		              _mm512_cmplt_epi64_mask(kv, _mm512_set1_epi64(HINT_K_MAX)) &
		              _mm512_cmpge_epi64_mask(hint, one);
		vq e = vsub(_mm512_set1_epi64((int64_t)1 << 32), _mm512_mul_epu32(hint, kv));
		in &= _mm512_cmpgt_epi64_mask(e, _mm512_set1_epi64(-((int64_t)1 << 31))) &
		      _mm512_cmplt_epi64_mask(e, _mm512_set1_epi64((int64_t)1 << 31));
		vq c = vadd(hint, _mm512_srai_epi64(vadd(_mm512_mullo_epi64(e, hint),
		                                         _mm512_set1_epi64((int64_t)1 << 31)),
		                                    32));
		in &= _mm512_cmpge_epi64_mask(c, _mm512_set1_epi64(2)) &
		      _mm512_cmplt_epi64_mask(c, _mm512_set1_epi64(NEWTON_C_MAX));
		vq k2 = vadd(kv, kv);
		vq r = vsub(n, _mm512_mul_epu32(vsub(vadd(c, c), one), kv));
		in &= _mm512_cmpge_epi64_mask(r, vsub(_mm512_setzero_si512(), k2)) &
		      _mm512_cmplt_epi64_mask(r, vadd(k2, k2));
		/* c + (r >= 2k) - (r < 0) */
		c = _mm512_mask_add_epi64(c, _mm512_cmpge_epi64_mask(r, k2), c, one);
		c = _mm512_mask_sub_epi64(c, _mm512_cmplt_epi64_mask(r, _mm512_setzero_si512()), c,
		                          one);
		in &= todo;
		_mm512_mask_cvtepi64_storeu_epi32(m, in, c);
		COUNT_NEWTON(f2d_popcount(in));
		todo &= (__mmask8)~in;
	}
#endif
	for (unsigned t = todo; t != 0; t &= t - 1) {
		int32_t l = f2d_ctz64(t);
		m[l] = inverse_mass(w, k[l]);
	}
	for (unsigned t = lanes & (__mmask8)~on; t != 0; t &= t - 1) {
		m[f2d_ctz64(t)] = 0;
	}
}

/* The geometric constants of the batch (prestep_geometry on 8 lanes) and their inputs; returns
 * the lanes in use whose constants did not saturate. */
AVX512 static __mmask8 geometry_avx512(f2d_world *w, f2d_contact_batch *bt, prestep_stage *st,
                                       __mmask8 lanes)
{
	__mmask8 sat = 0;
	vq nx = vld(st->nx), ny = vld(st->ny);
	vst2(bt->n, nx, ny);
	vst(bt->points, vld(st->points));
	vq ima = vst(bt->ima, vld(st->ima)), imb = vst(bt->imb, vld(st->imb));
	vq iia = vst(bt->iia, vld(st->iia)), iib = vst(bt->iib, vld(st->iib));
	vst2(bt->dva, f2d_round16_512(vmul(ima, nx)), f2d_round16_512(vmul(ima, ny)));
	vst2(bt->dvb, f2d_round16_512(vmul(imb, nx)), f2d_round16_512(vmul(imb, ny)));
	vq m = vadd(ima, imb);
	__mmask8 two = _mm512_test_epi64_mask(vld(st->two), vld(st->two));
	__mmask8 has[2] = {0xFF, two};
	/* 0 < k < 2 saturates in inverse_mass: such a lane is not kept */
	__mmask8 tiny = 0;
	vq rn[2][2], rt[2][2]; /* [point][body] */
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *pl = &bt->p[i];
		vq rax = vst(pl->rax, vld(st->p[i].rax)), ray = vst(pl->ray, vld(st->p[i].ray));
		vq rbx = vst(pl->rbx, vld(st->p[i].rbx)), rby = vst(pl->rby, vld(st->p[i].rby));
		/* r x n = r.x n.y - r.y n.x;  r x t = r.x (-n.x) - r.y n.y */
		vq rna = vtrunc32(f2d_round16_512(vsub(vmul(rax, ny), vmul(ray, nx))));
		vq rnb = vtrunc32(f2d_round16_512(vsub(vmul(rbx, ny), vmul(rby, nx))));
		vq rta = vtrunc32(
		    f2d_round16_512(vsub(vmul(rax, vsub(_mm512_setzero_si512(), nx)), vmul(ray, ny))));
		vq rtb = vtrunc32(
		    f2d_round16_512(vsub(vmul(rbx, vsub(_mm512_setzero_si512(), nx)), vmul(rby, ny))));
		rn[i][0] = rna;
		rn[i][1] = rnb;
		rt[i][0] = rta;
		rt[i][1] = rtb;
		vst2(pl->rn, rna, rnb);
		vst2(pl->rt, rta, rtb);
		vst2(pl->wn, vsat_flag(f2d_round16_512(vmul(iia, rna)), &sat),
		     vsat_flag(f2d_round16_512(vmul(iib, rnb)), &sat));
		vst2(pl->wt, vsat_flag(f2d_round16_512(vmul(iia, rta)), &sat),
		     vsat_flag(f2d_round16_512(vmul(iib, rtb)), &sat));
		vq kn = vk(m, iia, iib, rna, rna, rnb, rnb), kt = vk(m, iia, iib, rta, rta, rtb, rtb);
		_mm512_storeu_si512(st->kn[i], kn);
		_mm512_storeu_si512(st->kt[i], kt);
		vq zero = _mm512_setzero_si512(), two_q = _mm512_set1_epi64(2);
		tiny |= has[i] & ((_mm512_cmpgt_epi64_mask(kn, zero) &
		                   _mm512_cmplt_epi64_mask(kn, two_q)) |
		                  (_mm512_cmpgt_epi64_mask(kt, zero) &
		                   _mm512_cmplt_epi64_mask(kt, two_q)));
	}
	vst2(bt->k12,
	     _mm512_maskz_mov_epi64(two, vsat(vk(m, iia, iib, rn[0][0], rn[1][0], rn[0][1], rn[1][1]))),
	     _mm512_maskz_mov_epi64(two, vsat(vk(m, iia, iib, rt[0][0], rt[1][0], rt[0][1], rt[1][1]))));
	if (sat & lanes) {
		w->saturated = true;
	}
	for (int32_t i = 0; i < 2; ++i) {
		__mmask8 on = has[i] & lanes;
		inverse_masses_avx512(w, st->kn[i], bt->p[i].mass_n, on, lanes);
		inverse_masses_avx512(w, st->kt[i], bt->p[i].mass_t, on, lanes);
	}
	return lanes & (__mmask8) ~(sat | tiny);
}

/* Returns the lanes whose arbiter has restitution (landed_bounces). */
AVX512 static unsigned prestep_batch_avx512(f2d_world *w, const prestep_consts *k,
                                            f2d_contact_batch *bt)
{
	prestep_stage st;
	stage_lanes(w, bt, &st);
	__mmask8 lanes = (__mmask8)((1u << bt->lanes) - 1u);
	/* a batch whose every lane is kept keeps its constants; any other computes all of them
	 * (8 lanes cost what one does) */
	if (!KEEP_LANES || kept_lanes8(bt, &st, lanes) != lanes) {
		__mmask8 ok = geometry_avx512(w, bt, &st, lanes);
		bt->kept = KEEP_LANES ? ok : 0u;
		COUNT_LANES(false, bt->lanes);
	} else {
		COUNT_LANES(true, bt->lanes);
	}
	/* the motion part (prestep_lane's), on the constants; vn only with restitution (stage_lanes:
	 * without it bounce is 0 whatever vn) */
	const bool any_rest = st.any_rest;
	vq nx = vld2_lo(bt->n), ny = vld2_hi(bt->n), lin = _mm512_setzero_si512();
	vq wa = lin, wb = lin;
	if (any_rest) {
		lin = vadd(_mm512_mullo_epi64(vsub(vld(st.vbx), vld(st.vax)), nx),
		           _mm512_mullo_epi64(vsub(vld(st.vby), vld(st.vay)), ny));
		wa = vld(st.wa);
		wb = vld(st.wb);
	}
	__mmask8 two = _mm512_test_epi64_mask(vld(st.two), vld(st.two));
	__mmask8 has[2] = {0xFF, two};
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *pl = &bt->p[i];
		/* bias: s > 0: -s / h; else beta / h max(0, -s - slop); restitution */
		vq s = vld(st.p[i].sep);
		vq zero = _mm512_setzero_si512();
		vq spec = vsub(zero, f2d_round16_512(vmul(s, _mm512_set1_epi64(k->inv_h))));
		vq pen = vsub(vsub(zero, s), _mm512_set1_epi64(k->slop));
		vq push =
		    _mm512_maskz_mov_epi64(_mm512_cmpgt_epi64_mask(pen, zero),
		                           f2d_round16_512(vmul(_mm512_set1_epi64(k->beta_inv_h), pen)));
		vq bias = _mm512_mask_mov_epi64(push, _mm512_cmpgt_epi64_mask(s, zero), spec);
		if (k->soft) {
			vst(pl->sep, s); /* 0 past the points and in padded lanes (stage_zero) */
		}
		vst(pl->bias, _mm512_maskz_mov_epi64(has[i], vsat(bias)));
		if (!any_rest) {
			vst(pl->bounce, zero);
			continue;
		}
		vq rna = vld2_lo(pl->rn), rnb = vld2_hi(pl->rn);
		vq vn = vsat(f2d_round16_512(
		    vsub(vadd(lin, _mm512_mullo_epi64(wb, rnb)), _mm512_mullo_epi64(wa, rna))));
		vq rest = vld(st.rest);
		vq closing =
		    _mm512_maskz_mov_epi64(_mm512_cmpgt_epi64_mask(s, zero), vsub(zero, spec));
		__mmask8 bounce =
		    _mm512_cmplt_epi64_mask(vn, _mm512_set1_epi64(-(int64_t)k->threshold)) &
		    _mm512_cmpgt_epi64_mask(rest, zero);
		if (!k->soft) {
			bounce &= _mm512_cmplt_epi64_mask(vadd(closing, closing), vsub(zero, vn));
		}
		vq rb = vsub(zero, vtrunc32(f2d_round16_512(vmul(rest, vn))));
		vst(pl->bounce, _mm512_maskz_mov_epi64(has[i] & bounce, rb));
	}
	/* moving_lanes on 8 lanes: inverse mass or inverse inertia not 0 */
	vq ma = _mm512_or_si512(vld(bt->ima), vld(bt->iia));
	vq mb = _mm512_or_si512(vld(bt->imb), vld(bt->iib));
	bt->moves_a = _mm512_test_epi64_mask(ma, ma) & lanes;
	bt->moves_b = _mm512_test_epi64_mask(mb, mb) & lanes;
	return _mm512_cmpgt_epi64_mask(vld(st.rest), _mm512_setzero_si512()) & lanes;
}

/* prestep_batch_avx512 on the AVX2 kernel's 4 lanes, group after group, operation for
 * operation (the staging is the same): vpmullq is built from three vpmuludq of the 32-bit
 * halves (mullo_avx2: the same low 64 bits), the lane masks are vectors (all-ones lanes),
 * min / max / selects are compares and blends. */
AVX2 static inline __m256i ld32_avx2(const f2d_lane *p)
{
	return _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)p));
}
AVX2 static inline __m256i ld64_avx2(const int64_t *p)
{
	return _mm256_loadu_si256((const __m256i *)(const void *)p);
}
/* the low halves of the 4 lanes in the low 128 bits */
AVX2 static inline __m128i lows_avx2(__m256i x)
{
	return _mm256_castsi256_si128(
	    _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}
/* stores the low halves (a truncation to fix16, as vst) and returns x */
AVX2 static inline __m256i st32_avx2(f2d_lane *p, __m256i x)
{
	_mm_storeu_si128((__m128i *)(void *)p, lows_avx2(x));
	return x;
}
AVX2 static inline __m256i trunc32_avx2(__m256i x)
{
	return _mm256_cvtepi32_epi64(lows_avx2(x));
}
/* vst2 on 4 lanes */
AVX2 static inline void st2_avx2(void *p, __m256i a, __m256i b)
{
	_mm256_storeu_si256((__m256i *)p, _mm256_blend_epi32(a, _mm256_slli_epi64(b, 32), 0xAA));
}
/* vld2_lo, vld2_hi on 4 lanes: the value in the low half, its sign (vpsrad by 31) in the high */
AVX2 static inline __m256i ld2_lo_avx2(const void *p)
{
	__m256i x = _mm256_loadu_si256((const __m256i *)p);
	return _mm256_blend_epi32(x, _mm256_srai_epi32(_mm256_shuffle_epi32(x, 0xA0), 31), 0xAA);
}
AVX2 static inline __m256i ld2_hi_avx2(const void *p)
{
	__m256i x = _mm256_loadu_si256((const __m256i *)p);
	return _mm256_blend_epi32(_mm256_shuffle_epi32(x, 0xF5), _mm256_srai_epi32(x, 31), 0xAA);
}
AVX2 static inline __m256i gt_avx2(__m256i a, __m256i b)
{
	return _mm256_cmpgt_epi64(a, b);
}
AVX2 static inline __m256i sat_avx2(__m256i x)
{
	const __m256i hi = _mm256_set1_epi64x(INT32_MAX), lo = _mm256_set1_epi64x(-INT32_MAX);
	x = _mm256_blendv_epi8(x, hi, gt_avx2(x, hi));
	return _mm256_blendv_epi8(x, lo, gt_avx2(lo, x));
}
/* a * b modulo 2^64 (vpmullq): al bl + ((al bh + ah bl) << 32), with the unsigned 32-bit
 * halves; every term is taken modulo 2^64, as the product is */
AVX2 static inline __m256i mullo_avx2(__m256i a, __m256i b)
{
	__m256i cross = _mm256_add_epi64(_mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)),
	                                 _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b));
	return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}
/* vk */
AVX2 static inline __m256i k_avx2(__m256i m, __m256i iia, __m256i iib, __m256i ra1, __m256i ra2,
                                  __m256i rb1, __m256i rb2)
{
	__m256i ta = f2d_round16_256(mullo_avx2(iia, f2d_round16_256(_mm256_mul_epi32(ra1, ra2))));
	__m256i tb = f2d_round16_256(mullo_avx2(iib, f2d_round16_256(_mm256_mul_epi32(rb1, rb2))));
	return _mm256_add_epi64(_mm256_add_epi64(m, ta), tb);
}

/* inverse_masses_avx512 on the group's 4 lanes (k, m from the group's first lane) */
AVX2 static inline __attribute__((always_inline)) void
inverse_masses_avx2(f2d_world *w, const int64_t *k, f2d_lane *m, unsigned on, unsigned lanes)
{
	__m256i kq = ld64_avx2(k), hint = ld32_avx2(m);
	__m256i n = _mm256_set1_epi64x((int64_t)1 << 33), one = _mm256_set1_epi64x(1);
	__m256i h2 = _mm256_add_epi64(hint, hint);
	const __m256i zero = _mm256_setzero_si256();
	const __m256i range = _mm256_and_si256(
	    _mm256_and_si256(gt_avx2(kq, _mm256_set1_epi64x(2)),
	                     gt_avx2(_mm256_set1_epi64x(HINT_K_MAX), kq)),
	    gt_avx2(hint, zero));
	/* vpmuludq, as inverse_masses_avx512 (the whole product where the masks above hold) */
	__m256i ok = _mm256_and_si256(
	    range,
	    _mm256_andnot_si256(gt_avx2(_mm256_mul_epu32(_mm256_sub_epi64(h2, one), kq), n),
	                        gt_avx2(_mm256_mul_epu32(_mm256_add_epi64(h2, one), kq), n)));
	unsigned todo = on & ~f2d_bits_256(ok);
	if (todo != 0) {
		/* newton_inverse on the 4 lanes, as inverse_masses_avx512; the arithmetic shift by
		 * 32 as the logical one of t + 2^63, less 2^31 (f2d_round16_256's way) */
		const __m256i p31 = _mm256_set1_epi64x((int64_t)1 << 31);
		__m256i e = _mm256_sub_epi64(_mm256_set1_epi64x((int64_t)1 << 32),
		                             _mm256_mul_epu32(hint, kq));
		__m256i in = _mm256_and_si256(
		    range, _mm256_and_si256(gt_avx2(e, _mm256_sub_epi64(zero, p31)), gt_avx2(p31, e)));
		__m256i tq = _mm256_add_epi64(mullo_avx2(e, hint), p31);
		__m256i c = _mm256_add_epi64(
		    hint, _mm256_sub_epi64(_mm256_srli_epi64(
		                               _mm256_add_epi64(tq, _mm256_set1_epi64x(INT64_MIN)), 32),
		                           p31));
		in = _mm256_and_si256(in, _mm256_and_si256(gt_avx2(c, one),
		                                           gt_avx2(_mm256_set1_epi64x(NEWTON_C_MAX), c)));
		__m256i k2 = _mm256_add_epi64(kq, kq);
		__m256i r = _mm256_sub_epi64(
		    n, _mm256_mul_epu32(_mm256_sub_epi64(_mm256_add_epi64(c, c), one), kq));
		in = _mm256_and_si256(
		    in, _mm256_and_si256(gt_avx2(r, _mm256_sub_epi64(_mm256_sub_epi64(zero, k2), one)),
		                         gt_avx2(_mm256_add_epi64(k2, k2), r)));
		/* c + (r >= 2k) - (r < 0): the compares' all-ones lanes are -1 */
		c = _mm256_add_epi64(_mm256_sub_epi64(c, _mm256_xor_si256(gt_avx2(k2, r),
		                                                          _mm256_set1_epi64x(-1))),
		                     gt_avx2(zero, r));
		unsigned inb = f2d_bits_256(in) & todo;
		store_bits_256(m, inb, c); /* vpmaskmovd: no loop over the lanes */
		todo &= ~inb;
		COUNT_NEWTON(f2d_popcount(inb));
	}
	for (unsigned t = todo; t != 0; t &= t - 1) {
		int32_t l = f2d_ctz64(t);
		m[l] = inverse_mass(w, k[l]);
	}
	for (unsigned t = lanes & ~on; t != 0; t &= t - 1) {
		m[f2d_ctz64(t)] = 0;
	}
}

/* geometry_avx512 on the group at o (lanes: its lanes in use, bits 0..3) */
AVX2 static unsigned geometry_avx2(f2d_world *w, f2d_contact_batch *bt, prestep_stage *st,
                                   int32_t o, unsigned lanes)
{
	const __m256i zero = _mm256_setzero_si256();
	__m256i sat = zero;
	__m256i nx = ld32_avx2(st->nx + o), ny = ld32_avx2(st->ny + o);
	st2_avx2(bt->n + o, nx, ny);
	st32_avx2(bt->points + o, ld32_avx2(st->points + o));
	__m256i ima = st32_avx2(bt->ima + o, ld32_avx2(st->ima + o));
	__m256i imb = st32_avx2(bt->imb + o, ld32_avx2(st->imb + o));
	__m256i iia = st32_avx2(bt->iia + o, ld32_avx2(st->iia + o));
	__m256i iib = st32_avx2(bt->iib + o, ld32_avx2(st->iib + o));
	st2_avx2(bt->dva + o, f2d_round16_256(_mm256_mul_epi32(ima, nx)),
	         f2d_round16_256(_mm256_mul_epi32(ima, ny)));
	st2_avx2(bt->dvb + o, f2d_round16_256(_mm256_mul_epi32(imb, nx)),
	         f2d_round16_256(_mm256_mul_epi32(imb, ny)));
	__m256i m = _mm256_add_epi64(ima, imb);
	__m256i two = ld32_avx2(st->two + o); /* -1 or 0 */
	__m256i has[2] = {_mm256_set1_epi64x(-1), two};
	__m256i tiny = zero, two_q = _mm256_set1_epi64x(2);
	__m256i rn[2][2], rt[2][2]; /* [point][body] */
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *pl = &bt->p[i];
		__m256i rax = st32_avx2(pl->rax + o, ld32_avx2(st->p[i].rax + o));
		__m256i ray = st32_avx2(pl->ray + o, ld32_avx2(st->p[i].ray + o));
		__m256i rbx = st32_avx2(pl->rbx + o, ld32_avx2(st->p[i].rbx + o));
		__m256i rby = st32_avx2(pl->rby + o, ld32_avx2(st->p[i].rby + o));
		__m256i mnx = _mm256_sub_epi64(zero, nx);
		__m256i rna = trunc32_avx2(f2d_round16_256(
		    _mm256_sub_epi64(_mm256_mul_epi32(rax, ny), _mm256_mul_epi32(ray, nx))));
		__m256i rnb = trunc32_avx2(f2d_round16_256(
		    _mm256_sub_epi64(_mm256_mul_epi32(rbx, ny), _mm256_mul_epi32(rby, nx))));
		__m256i rta = trunc32_avx2(f2d_round16_256(
		    _mm256_sub_epi64(_mm256_mul_epi32(rax, mnx), _mm256_mul_epi32(ray, ny))));
		__m256i rtb = trunc32_avx2(f2d_round16_256(
		    _mm256_sub_epi64(_mm256_mul_epi32(rbx, mnx), _mm256_mul_epi32(rby, ny))));
		rn[i][0] = rna;
		rn[i][1] = rnb;
		rt[i][0] = rta;
		rt[i][1] = rtb;
		st2_avx2(pl->rn + o, rna, rnb);
		st2_avx2(pl->rt + o, rta, rtb);
		__m256i wv[4] = {_mm256_mul_epi32(iia, rna), _mm256_mul_epi32(iib, rnb),
		                 _mm256_mul_epi32(iia, rta), _mm256_mul_epi32(iib, rtb)};
		__m256i wq[4];
		for (int32_t j = 0; j < 4; ++j) {
			__m256i r = f2d_round16_256(wv[j]);
			wq[j] = sat_avx2(r);
			sat = _mm256_or_si256(sat, _mm256_xor_si256(_mm256_cmpeq_epi64(wq[j], r),
			                                            _mm256_set1_epi64x(-1)));
		}
		st2_avx2(pl->wn + o, wq[0], wq[1]);
		st2_avx2(pl->wt + o, wq[2], wq[3]);
		__m256i kn = k_avx2(m, iia, iib, rna, rna, rnb, rnb);
		__m256i kt = k_avx2(m, iia, iib, rta, rta, rtb, rtb);
		_mm256_storeu_si256((__m256i *)(void *)(st->kn[i] + o), kn);
		_mm256_storeu_si256((__m256i *)(void *)(st->kt[i] + o), kt);
		__m256i tn = _mm256_and_si256(gt_avx2(kn, zero), gt_avx2(two_q, kn));
		__m256i tt = _mm256_and_si256(gt_avx2(kt, zero), gt_avx2(two_q, kt));
		tiny = _mm256_or_si256(tiny, _mm256_and_si256(has[i], _mm256_or_si256(tn, tt)));
	}
	st2_avx2(bt->k12 + o,
	         _mm256_and_si256(two, sat_avx2(k_avx2(m, iia, iib, rn[0][0], rn[1][0], rn[0][1],
	                                               rn[1][1]))),
	         _mm256_and_si256(two, sat_avx2(k_avx2(m, iia, iib, rt[0][0], rt[1][0], rt[0][1],
	                                               rt[1][1]))));
	unsigned sat_bits = f2d_bits_256(sat);
	if (sat_bits & lanes) {
		w->saturated = true;
	}
	for (int32_t i = 0; i < 2; ++i) {
		unsigned on = f2d_bits_256(has[i]) & lanes;
		inverse_masses_avx2(w, st->kn[i] + o, bt->p[i].mass_n + o, on, lanes);
		inverse_masses_avx2(w, st->kt[i] + o, bt->p[i].mass_t + o, on, lanes);
	}
	return lanes & ~(sat_bits | f2d_bits_256(tiny));
}

/* the motion part of prestep_batch_avx512 on the group at o */
/* returns the group's lanes with restitution (bits 0..3) */
AVX2 static unsigned motion_avx2(const prestep_consts *k, f2d_contact_batch *bt,
                                 const prestep_stage *st, int32_t o)
{
	const __m256i zero = _mm256_setzero_si256();
	const bool any_rest = st->any_rest; /* vn only with restitution, as prestep_batch_avx512 */
	__m256i nx = ld2_lo_avx2(bt->n + o), ny = ld2_hi_avx2(bt->n + o), lin = zero;
	__m256i wa = zero, wb = zero;
	if (any_rest) {
		lin = _mm256_add_epi64(
		    mullo_avx2(_mm256_sub_epi64(ld32_avx2(st->vbx + o), ld32_avx2(st->vax + o)),
		               nx),
		    mullo_avx2(_mm256_sub_epi64(ld32_avx2(st->vby + o), ld32_avx2(st->vay + o)),
		               ny));
		wa = ld32_avx2(st->wa + o);
		wb = ld32_avx2(st->wb + o);
	}
	__m256i rest = ld32_avx2(st->rest + o);
	__m256i has[2] = {_mm256_set1_epi64x(-1), ld32_avx2(st->two + o)};
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *pl = &bt->p[i];
		__m256i s = ld32_avx2(st->p[i].sep + o);
		__m256i spec = _mm256_sub_epi64(
		    zero, f2d_round16_256(_mm256_mul_epi32(s, _mm256_set1_epi64x(k->inv_h))));
		__m256i pen = _mm256_sub_epi64(_mm256_sub_epi64(zero, s), _mm256_set1_epi64x(k->slop));
		__m256i push = _mm256_and_si256(
		    gt_avx2(pen, zero),
		    f2d_round16_256(_mm256_mul_epi32(_mm256_set1_epi64x(k->beta_inv_h), pen)));
		__m256i gap = gt_avx2(s, zero);
		__m256i bias = _mm256_blendv_epi8(push, spec, gap);
		if (k->soft) {
			st32_avx2(pl->sep + o, s); /* 0 past the points and in padded lanes */
		}
		st32_avx2(pl->bias + o, _mm256_and_si256(has[i], sat_avx2(bias)));
		if (!any_rest) {
			st32_avx2(pl->bounce + o, zero);
			continue;
		}
		/* wa, wb, rna, rnb are fix16 values: vpmuldq is vpmullq's product */
		__m256i rna = ld2_lo_avx2(pl->rn + o), rnb = ld2_hi_avx2(pl->rn + o);
		__m256i vn = sat_avx2(f2d_round16_256(_mm256_sub_epi64(
		    _mm256_add_epi64(lin, _mm256_mul_epi32(wb, rnb)), _mm256_mul_epi32(wa, rna))));
		__m256i closing = _mm256_and_si256(gap, _mm256_sub_epi64(zero, spec));
		__m256i bounce =
		    _mm256_and_si256(gt_avx2(_mm256_set1_epi64x(-(int64_t)k->threshold), vn),
		                     gt_avx2(rest, zero));
		if (!k->soft) {
			bounce = _mm256_and_si256(
			    bounce, gt_avx2(_mm256_sub_epi64(zero, vn),
			                    _mm256_add_epi64(closing, closing)));
		}
		__m256i rb = _mm256_sub_epi64(
		    zero, trunc32_avx2(f2d_round16_256(_mm256_mul_epi32(rest, vn))));
		st32_avx2(pl->bounce + o, _mm256_and_si256(_mm256_and_si256(has[i], bounce), rb));
	}
	return f2d_bits_256(gt_avx2(rest, zero));
}

/* Returns the lanes whose arbiter has restitution (landed_bounces). */
AVX2 static unsigned prestep_batch_avx2(f2d_world *w, const prestep_consts *k,
                                        f2d_contact_batch *bt)
{
	prestep_stage st;
	stage_lanes(w, bt, &st);
	unsigned lanes = (1u << bt->lanes) - 1u;
	/* a group (4 lanes) whose every lane is kept keeps its constants; any other computes all
	 * of them (as prestep_batch_avx512 does per batch) */
	unsigned same = KEEP_LANES ? kept_lanes8(bt, &st, lanes) : 0u, kept = 0;
	for (int32_t o = 0; o < bt->lanes; o += 4) {
		unsigned g = (lanes >> o) & 15u;
		if (((same >> o) & 15u) != g) {
			kept |= geometry_avx2(w, bt, &st, o, g) << o;
			COUNT_LANES(false, f2d_popcount(g));
		} else {
			kept |= g << o;
			COUNT_LANES(true, f2d_popcount(g));
		}
	}
	bt->kept = KEEP_LANES ? kept : 0u;
	unsigned rest = 0;
	for (int32_t o = 0; o < bt->lanes; o += 4) {
		rest |= motion_avx2(k, bt, &st, o) << o;
	}
	/* moving_lanes on the 8 lanes' 32-bit values: inverse mass or inverse inertia not 0
	 * (vmovmskps moves the compare's sign bits) */
	const __m256i zero = _mm256_setzero_si256();
	__m256i ma = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(const void *)bt->ima),
	                             _mm256_loadu_si256((const __m256i *)(const void *)bt->iia));
	__m256i mb = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(const void *)bt->imb),
	                             _mm256_loadu_si256((const __m256i *)(const void *)bt->iib));
	bt->moves_a = lanes & ~(unsigned)_mm256_movemask_ps(
	                          _mm256_castsi256_ps(_mm256_cmpeq_epi32(ma, zero)));
	bt->moves_b = lanes & ~(unsigned)_mm256_movemask_ps(
	                          _mm256_castsi256_ps(_mm256_cmpeq_epi32(mb, zero)));
	return rest & lanes;
}

#endif

/* The kernel this CPU runs (F2D_KERNEL_*): asked of the CPU at each pass (a load and a test:
 * no state of ours). */
int f2d_kernel_level(void)
{
#if F2D_HAVE_SIMD
	__builtin_cpu_init();
#ifndef F2D_NO_AVX512
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
		return F2D_KERNEL_AVX512;
	}
#endif
	if (__builtin_cpu_supports("avx2")) {
		return F2D_KERNEL_AVX2;
	}
#endif
	return F2D_KERNEL_SCALAR;
}

/** The contact solver's kernel on this machine: "avx512", "avx2" or "scalar" (same results). */
const char *f2d_solver_kernel(void)
{
	static const char *const names[] = {"scalar", "avx2", "avx512"};
	return names[f2d_kernel_level()];
}

#ifdef F2D_CONTACT_COUNT_PATHS
/* test_solver_paths' check of the hinted inverse masses (its helpers, "inverse"): m[l], the
 * hint, becomes inverse_mass(k[l]) by this build's path for the kernel (F2D_KERNEL_*, at most
 * f2d_kernel_level()), on 8 lanes; a saturation is not reported (a scratch world). */
void f2d_test_inverse_masses(int kernel, const int64_t *k, int32_t *m);
#if F2D_HAVE_SIMD
AVX512 static void test_inverse_512(f2d_world *w, const int64_t *k, int32_t *m)
{
	inverse_masses_avx512(w, k, m, 0xFF, 0xFF);
}
AVX2 static void test_inverse_256(f2d_world *w, const int64_t *k, int32_t *m)
{
	inverse_masses_avx2(w, k, m, 0xF, 0xF);
	inverse_masses_avx2(w, k + 4, m + 4, 0xF, 0xF);
}
#endif
void f2d_test_inverse_masses(int kernel, const int64_t *k, int32_t *m)
{
	f2d_world *w = calloc(1, sizeof *w);
	if (w == NULL) {
		abort();
	}
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512) {
		test_inverse_512(w, k, m);
	} else if (kernel == F2D_KERNEL_AVX2) {
		test_inverse_256(w, k, m);
	} else
#endif
	{
		(void)kernel;
		for (int32_t l = 0; l < F2D_LANES; ++l) {
			m[l] = inverse_mass_hinted(w, k[l], m[l]);
		}
	}
	free(w);
}
#endif

#ifdef F2D_CONTACT_COUNT_PATHS
/* test_solver_paths' check of the kernels' rounding shortcuts ("roundings"): for the kernel
 * (F2D_KERNEL_AVX2 or F2D_KERNEL_AVX512, at most f2d_kernel_level()) on 8 values p, out[0]
 * round16, out[1] the rounding of p >= 0, out[2] of -p for p <= 0, out[3] round16(p) / 8
 * (solver_kernel.h, K(test_roundings)); false (out untouched) for any other kernel or without
 * the SIMD kernels */
bool f2d_test_kernel_roundings(int kernel, const int64_t *p, int64_t (*out)[8]);
bool f2d_test_kernel_roundings(int kernel, const int64_t *p, int64_t (*out)[8])
{
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512 && kernel <= f2d_kernel_level()) {
		test_roundings_512(p, out);
		return true;
	}
	if (kernel == F2D_KERNEL_AVX2 && kernel <= f2d_kernel_level()) {
		test_roundings_256(p, out);
		return true;
	}
#else
	(void)p;
	(void)out;
#endif
	(void)kernel;
	return false;
}
#endif

#ifdef F2D_CONTACT_COUNT_PATHS
/* test_solver_paths' check of the pairs of lanes ("pairs"): for the kernel (as
 * f2d_test_kernel_roundings) the pre-step's store of the 8 values a, b as a pair (vst2 or
 * st2_avx2), then out[0], out[1] K_LO, K_HI of it times c (c a fix16 value), out[2], out[3]
 * its exact loads (vld2_lo, vld2_hi or the AVX2 ones), out[4], out[5] the pair as the scalar
 * paths read it; false (out untouched) for any other kernel or without the SIMD kernels */
bool f2d_test_kernel_pairs(int kernel, const int64_t *a, const int64_t *b, const int64_t *c,
                           int64_t (*out)[8]);
#if F2D_HAVE_SIMD
AVX512 static void test_pairs_512(const int64_t *a, const int64_t *b, const int64_t *c,
                                  int64_t (*out)[8])
{
	f2d_lane2 pr;
	vst2(pr, _mm512_loadu_si512(a), _mm512_loadu_si512(b));
	vq cv = _mm512_loadu_si512(c);
	_mm512_storeu_si512(out[0], _mm512_mul_epi32(test_lo_512(pr), cv));
	_mm512_storeu_si512(out[1], _mm512_mul_epi32(test_hi_512(pr), cv));
	_mm512_storeu_si512(out[2], vld2_lo(pr));
	_mm512_storeu_si512(out[3], vld2_hi(pr));
	for (int32_t l = 0; l < F2D_LANES; ++l) {
		out[4][l] = pr[l][0];
		out[5][l] = pr[l][1];
	}
}
AVX2 static void test_pairs_256(const int64_t *a, const int64_t *b, const int64_t *c,
                                int64_t (*out)[8])
{
	f2d_lane2 pr;
	for (int32_t o = 0; o < F2D_LANES; o += 4) {
		st2_avx2(pr + o, ld64_avx2(a + o), ld64_avx2(b + o));
		__m256i cv = ld64_avx2(c + o);
		_mm256_storeu_si256((__m256i *)(void *)(out[0] + o), _mm256_mul_epi32(test_lo_256(pr + o), cv));
		_mm256_storeu_si256((__m256i *)(void *)(out[1] + o), _mm256_mul_epi32(test_hi_256(pr + o), cv));
		_mm256_storeu_si256((__m256i *)(void *)(out[2] + o), ld2_lo_avx2(pr + o));
		_mm256_storeu_si256((__m256i *)(void *)(out[3] + o), ld2_hi_avx2(pr + o));
	}
	for (int32_t l = 0; l < F2D_LANES; ++l) {
		out[4][l] = pr[l][0];
		out[5][l] = pr[l][1];
	}
}
#endif
bool f2d_test_kernel_pairs(int kernel, const int64_t *a, const int64_t *b, const int64_t *c,
                           int64_t (*out)[8])
{
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512 && kernel <= f2d_kernel_level()) {
		test_pairs_512(a, b, c, out);
		return true;
	}
	if (kernel == F2D_KERNEL_AVX2 && kernel <= f2d_kernel_level()) {
		test_pairs_256(a, b, c, out);
		return true;
	}
#else
	(void)a;
	(void)b;
	(void)c;
	(void)out;
#endif
	(void)kernel;
	return false;
}
#endif

/* A Gauss-Seidel pass by the SIMD kernel from batch i on (K(solve_run_f*) in solver_kernel.h,
 * flip a constant there), as simd_warm_run below */
static int32_t simd_solve_run(f2d_world *w, int32_t i, int kernel, int32_t flip, unsigned *rest)
{
#if F2D_HAVE_SIMD
	int32_t n = w->batch_count;
	if (kernel == F2D_KERNEL_AVX512) {
		return flip ? solve_run_f1_512(w->solver_vel, w->batches, i, n, rest)
		            : solve_run_f0_512(w->solver_vel, w->batches, i, n, rest);
	}
	return flip ? solve_run_f1_256(w->solver_vel, w->batches, i, n, rest)
	            : solve_run_f0_256(w->solver_vel, w->batches, i, n, rest);
#else
	(void)w;
	(void)kernel;
	(void)flip;
	(void)rest;
	return i;
#endif
}

/* The warm start by the SIMD kernel from batch i on (K(warm_run) in solver_kernel.h): the index
 * of the batch it stopped at (sequential, or with the lanes *rest left over); without SIMD
 * kernels i. */
static int32_t simd_warm_run(f2d_world *w, int32_t i, int kernel, unsigned *rest)
{
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512) {
		return warm_run_512(w->solver_vel, w->batches, i, w->batch_count, rest);
	}
	return warm_run_256(w->solver_vel, w->batches, i, w->batch_count, rest);
#else
	(void)w;
	(void)kernel;
	(void)rest;
	return i;
#endif
}

/* The soft step's pass (solver_soft.c) by the SIMD kernel from batch i on (solver_internal.h). */
int32_t f2d_soft_simd_run(f2d_world *w, int32_t i, int kernel, int32_t flip, bool use_bias,
                          const f2d_soft_consts *k, unsigned *rest)
{
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512) {
		return soft_run_512(w->solver_vel, w->solver_disp, w->batches, i, w->batch_count, flip,
		                    use_bias, k, rest);
	}
	return soft_run_256(w->solver_vel, w->solver_disp, w->batches, i, w->batch_count, flip,
	                    use_bias, k, rest);
#else
	(void)w;
	(void)kernel;
	(void)flip;
	(void)use_bias;
	(void)k;
	(void)rest;
	return i;
#endif
}

/* ---- fast impacts (issue 15): the bounce of a body that landed last step ----
 * A point whose gap took more than half the last step to close (a speculative point: the
 * speculative distance grows with what the bodies close in a step, contact.c) stopped the body
 * at the surface, slowing it to -s / h; it bounces now, from the contact, and must answer the
 * speed the body had before that impulse, which the point still carries (P_n, state):
 *   vn0 = vn - k_n P_n
 * (its approach at the end of that step, gravity included, before the impulse: the speed at
 * the moment it reached the surface within that step, up to the gravity of the rest of the
 * step; measured: apex ratios within 2 % of e^2, tests/test_solver_fidelity.c). Only for a
 * touching point (|s| <= slop) still approaching at more than half the threshold: a resting
 * point (vn ~ 0) keeps its pre-step bounce. vn and k_n are the pre-step's values, recomputed
 * here in the same exact arithmetic for the few points concerned (after either pre-step path,
 * so both give the same bits); vn0 saturates to fix16 (k_n P_n may exceed it). */
static void landed_bounces(f2d_world *w, const prestep_consts *k, f2d_contact_batch *bt,
                           unsigned lanes)
{
	/* lanes: those that may have restitution (the others are skipped below anyway), in lane
	 * order */
	for (; lanes != 0; lanes &= lanes - 1) {
		int32_t l = f2d_ctz64(lanes);
		const f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
		if (arb->restitution <= 0) {
			continue;
		}
		const f2d_body *a = &w->bodies[arb->body_a];
		const f2d_body *b = &w->bodies[arb->body_b];
		f2d_vec2 n = arb->normal;
		for (int32_t i = 0; i < arb->count; ++i) {
			const f2d_contact_point *cp = &arb->points[i];
			fix16_t s = cp->separation;
			if (cp->pn <= 0 || s > k->slop || s < -k->slop) {
				continue;
			}
			f2d_point_lanes *pl = &bt->p[i];
			fix16_t rna = pl->rn[l][0], rnb = pl->rn[l][1];
			int64_t lin =
			    ((int64_t)b->v.x - a->v.x) * n.x + ((int64_t)b->v.y - a->v.y) * n.y;
			fix16_t vn =
			    f2d_sat(f2d_round16(lin + (int64_t)b->w * rnb - (int64_t)a->w * rna));
			if (2 * (int64_t)vn >= -(int64_t)k->threshold) {
				continue;
			}
			int64_t kn = (int64_t)a->inv_mass + b->inv_mass +
			             mul64(a->inv_inertia, f2d_round16((int64_t)rna * rna)) +
			             mul64(b->inv_inertia, f2d_round16((int64_t)rnb * rnb));
			if (kn <= 0) {
				continue;
			}
			int64_t removed =
			    kn > INT64_MAX / cp->pn ? (int64_t)INT32_MAX : f2d_round16(cp->pn * kn);
			int64_t v0 = (int64_t)vn - removed;
			v0 = v0 < -INT32_MAX ? -INT32_MAX : (v0 > vn ? vn : v0);
			int64_t closing = s > 0 ? mul64(s, k->inv_h) : 0;
			if (v0 < -(int64_t)k->threshold && 2 * closing < -(int64_t)vn) {
				/* the bounce happens at the start of this step: half the step's
				 * gravity acts on the rebound, target -e vn0 + h/2 (g_b - g_a) . n
				 * (a discrete fall from rest to v covers v^2 / 2g + v h / 2, a
				 * discrete rise from a first step at u covers u^2 / 2g + u h / 2: u
				 * = e v - g h / 2 makes the rise e^2 v^2 / 2g, as the continuous
				 * one; measured apex ratios within 3.5 % of e^2 for e = 0.5 and
				 * 0.9). |g . n| < 2^32, |g_b - g_a| <= 2^32: each product fits
				 * before its round. */
				int64_t ga = a->type == F2D_DYNAMIC_BODY ? a->gravity_scale : 0;
				int64_t gb = b->type == F2D_DYNAMIC_BODY ? b->gravity_scale : 0;
				int64_t gn = f2d_round16((int64_t)w->gravity.x * n.x +
				                         (int64_t)w->gravity.y * n.y);
				int64_t step_g = f2d_round16(f2d_round16((gb - ga) * gn) * w->h);
				int64_t target =
				    -(int64_t)f2d_mul(arb->restitution, (fix16_t)v0) + step_g / 2;
				pl->bounce[l] = target > 0 ? f2d_sat(target) : 0;
			}
		}
	}
}

/* The lanes whose body a / b can move (bt->moves_a, moves_b). A body with inverse mass and
 * inverse inertia 0 (static, kinematic) gets n / m = 0 and (r x d) / I = 0 in every lane it is
 * in, so every pass adds round16(lambda 0) = 0 to its row: the row a SIMD kernel would store is
 * the one it loaded, and lanes of a group that share such a body all store that same row. Not
 * storing it gives the same bits, and the rows of the ground no longer chain one group's
 * stores to the next group's loads (a store-to-load dependency through memory for every
 * group with a ground contact). */
static void moving_lanes(f2d_contact_batch *bt)
{
	unsigned ma = 0, mb = 0;
	/* from the last lane down, a shift and an or: a recurrence, which no compiler turns into
	 * vector shifts by a lane index (clang -O3 built 1 << l through float conversions, and
	 * no_float.sh refuses those in the step) */
	for (int32_t l = bt->lanes - 1; l >= 0; --l) {
		ma = ma << 1 | (unsigned)((bt->ima[l] | bt->iia[l]) != 0);
		mb = mb << 1 | (unsigned)((bt->imb[l] | bt->iib[l]) != 0);
	}
	bt->moves_a = ma;
	bt->moves_b = mb;
}

/* ---- the passes ---- */

/* Returns the lanes that may have restitution: those whose arbiter has it (SIMD kernels), every
 * lane (scalar). */
static unsigned prestep_batch(f2d_world *w, const prestep_consts *k, f2d_contact_batch *bt,
                              int kernel)
{
	pad_lanes(bt);
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512) {
		return prestep_batch_avx512(w, k, bt);
	}
	if (kernel == F2D_KERNEL_AVX2) {
		return prestep_batch_avx2(w, k, bt);
	}
#endif
	(void)kernel;
	for (int32_t l = 0; l < bt->lanes; ++l) {
		prestep_lane(w, k, bt, l);
	}
	moving_lanes(bt);
	return (1u << bt->lanes) - 1u;
}

#ifdef F2D_HASH_CHECK
/* A batch with kept lanes against the same batch computed afresh (kept_lanes): every byte and
 * the saturation report must agree (sanitizer builds). */
static unsigned check_kept_batch(f2d_world *w, const prestep_consts *k, f2d_contact_batch *bt,
                                 int kernel)
{
	f2d_contact_batch *ref = malloc(sizeof *ref);
	if (ref == NULL) {
		fprintf(stderr, "fix2d: F2D_HASH_CHECK: out of memory\n");
		abort();
	}
	memcpy(ref, bt, sizeof *ref);
	ref->kept = 0;
	bool saturated = w->saturated;
#ifdef F2D_CONTACT_COUNT_PATHS
	uint64_t counts[4]; /* the reference run is not counted */
	memcpy(counts, f2d_coloring_counts, sizeof counts);
#endif
	prestep_batch(w, k, ref, kernel);
#ifdef F2D_CONTACT_COUNT_PATHS
	memcpy(f2d_coloring_counts, counts, sizeof counts);
#endif
	bool ref_saturated = w->saturated;
	w->saturated = saturated;
	unsigned rest = prestep_batch(w, k, bt, kernel);
	bool same = memcmp(ref, bt, sizeof *ref) == 0 && ref_saturated == w->saturated;
	free(ref);
	if (!same) {
		fprintf(stderr, "fix2d: F2D_HASH_CHECK: kept contact constants differ from "
		                "fresh ones\n");
		abort();
	}
	return rest;
}
#endif

void f2d_contacts_prestep(f2d_world *w)
{
	f2d_color_arbiters(w);
	prestep_consts k = {w->inv_h, w->def.linear_slop, w->def.restitution_threshold,
	                    f2d_mul(w->def.bias_factor, w->inv_h), w->def.substep_count > 0};
	int kernel = F2D_HAVE_SIMD ? f2d_kernel_level() : F2D_KERNEL_SCALAR;
	bool any = false;
	if (w->batch_count > 0) {
		prefetch_arbiters(w, &w->batches[0]);
	}
	for (int32_t b = 0; b < w->batch_count; ++b) {
		f2d_contact_batch *bt = &w->batches[b];
		unsigned rest;
		if (b + 1 < w->batch_count) {
			prefetch_arbiters(w, bt + 1); /* solver_internal.h */
		}
#ifdef F2D_HASH_CHECK
		if (bt->kept != 0) {
			rest = check_kept_batch(w, &k, bt, kernel);
		} else
#endif
		{
			rest = prestep_batch(w, &k, bt, kernel);
		}
		if (!k.soft) {
			/* the soft step's bounces: see its lanes above */
			landed_bounces(w, &k, bt, rest);
		}
		/* padded lanes have no bounce; nor has a lane outside rest (the SIMD paths give
		 * those lanes whose arbiter has no restitution bounce 0, and landed_bounces
		 * skips them), so a batch whose rest is 0 has none */
		f2d_lane or = 0;
		for (int32_t l = 0; rest != 0 && l < F2D_LANES; ++l) {
			or |= bt->p[0].bounce[l] | bt->p[1].bounce[l];
		}
		bt->bounce = or != 0;
		any |= bt->bounce;
	}
	w->bounce = any;
}

/* The rows hold the velocities from the first contact pass of a step to the last one; with
 * joints (solved between the passes, on the bodies) every pass reads and writes them back. */
static bool joints_between(const f2d_world *w)
{
	return w->joint_count > 0;
}

/* The warm start on the rows (the soft step's too: its warm start is this one). */
void f2d_contacts_warm_rows(f2d_world *w)
{
	bool saturated = false;
	int kernel = f2d_kernel_level();
	for (int32_t i = 0; i < w->batch_count; ++i) {
		unsigned todo = 0;
		if (kernel != F2D_KERNEL_SCALAR) {
			/* the SIMD kernel on the batches from i on, up to a sequential one or one
			 * with lanes left over (todo) */
			int32_t j = simd_warm_run(w, i, kernel, &todo);
			for (; i < j; ++i) {
				COUNT_PATH(0, w->batches[i].lanes);
			}
			if (i == w->batch_count) {
				break;
			}
		}
		f2d_contact_batch *bt = &w->batches[i];
		if (kernel != F2D_KERNEL_SCALAR && !bt->sequential) {
			COUNT_PATH(0, bt->lanes - f2d_popcount(todo));
		} else {
			todo = (1u << bt->lanes) - 1u;
		}
		for (; todo != 0; todo &= todo - 1) {
			int32_t l = f2d_ctz64(todo);
			int64_t *a = vel_row(w, bt->body_a[l]);
			int64_t *b = vel_row(w, bt->body_b[l]);
#ifndef F2D_CONTACT_EXACT_ONLY
			if (warm_start_fast(bt, l, a, b)) {
				COUNT_PATH(0, 1);
				continue;
			}
#endif
			clane c;
			load_lane(bt, l, &c);
			warm_start_exact(&c, a, b, &saturated);
			COUNT_PATH(1, 1);
		}
	}
	w->saturated |= saturated;
}

void f2d_contacts_warm_start(f2d_world *w)
{
	vel_in(w);
	f2d_contacts_warm_rows(w);
	if (joints_between(w) || w->def.iterations == 0) {
		vel_out(w);
	}
}

/* One Gauss-Seidel pass: the batches in order (colour after colour). */
void f2d_contacts_solve(f2d_world *w, int32_t iteration)
{
	int32_t flip = iteration & 1;
	bool saturated = false;
	bool last = iteration == w->def.iterations - 1;
	if (joints_between(w) || (iteration == 0 && !w->def.warm_starting)) {
		vel_in(w);
	}
	int kernel = f2d_kernel_level();
	for (int32_t i = 0; i < w->batch_count; ++i) {
		unsigned rest = 0;
		if (kernel != F2D_KERNEL_SCALAR) {
			/* the SIMD kernel on the batches from i on, up to a sequential one or one
			 * with lanes left over (rest) */
			int32_t j = simd_solve_run(w, i, kernel, flip, &rest);
			for (; i < j; ++i) {
				COUNT_PATH(2, w->batches[i].lanes);
			}
			if (i == w->batch_count) {
				break;
			}
		}
		f2d_contact_batch *bt = &w->batches[i];
		if (kernel != F2D_KERNEL_SCALAR && !bt->sequential) {
			COUNT_PATH(2, bt->lanes - f2d_popcount(rest));
			for (; rest != 0; rest &= rest - 1) {
				int32_t l = f2d_ctz64(rest);
				clane c;
				load_lane(bt, l, &c);
				solve_exact(&c, vel_row(w, bt->body_a[l]),
				            vel_row(w, bt->body_b[l]), flip, &saturated);
				store_lane(bt, l, &c);
				COUNT_PATH(3, 1);
			}
			continue;
		}
		for (int32_t l = 0; l < bt->lanes; ++l) {
			solve_lane(w, bt, l, flip, &saturated);
		}
	}
	w->saturated |= saturated;
	if (joints_between(w) || last) {
		vel_out(w);
	}
	if (last) {
		store_impulses(w);
	}
}

/* ---- restitution ----
 *
 * Box2D v3's restitution stage: after the velocity iterations (and the joints), each point
 * whose approach speed before the step, -vn0, exceeded the threshold and that carries a normal
 * impulse (it touched: a speculative point the solve left at 0 did not) gets the normal
 * velocity -e vn0: lambda = m_n (-e vn0 - vn), P_n = max(P_n + lambda, 0). vn0 is taken before
 * gravity and the solve (the pre-step runs before the velocities are integrated), so the
 * rebound speed is e times the impact speed, not e times the impact speed plus a step of
 * gravity; and the solve itself only stops the body (its bias has no restitution term), so the
 * bounce starts at the contact, not above it. Points in batch order, lane order, point 0 then 1;
 * exact arithmetic on the bodies (few points bounce: no fast path). */
void f2d_contacts_restitution(f2d_world *w)
{
	if (!w->bounce) {
		return;
	}
	bool saturated = false;
	for (int32_t i = 0; i < w->batch_count; ++i) {
		f2d_contact_batch *bt = &w->batches[i];
		if (!bt->bounce) {
			continue;
		}
		for (int32_t l = 0; l < bt->lanes; ++l) {
			if ((bt->p[0].bounce[l] | bt->p[1].bounce[l]) == 0) {
				continue;
			}
			f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
			f2d_body *a = &w->bodies[bt->body_a[l]];
			f2d_body *b = &w->bodies[bt->body_b[l]];
			clane c;
			load_lane(bt, l, &c);
			vel64 v = {a->v.x, a->v.y, a->w, b->v.x, b->v.y, b->w};
			for (int32_t k = 0; k < 2; ++k) {
				cpoint *p = &c.p[k];
				if (p->bounce == 0 || p->pn == 0) {
					continue;
				}
				p->bias =
				    p->bounce; /* the target, also for f2d_contact_lcp_points */
				bt->p[k].bias[l] = p->bounce;
				int64_t vn = rel_vel64(&v, c.n, p->rn_a, p->rn_b);
				fix16_t d = normal_step(p, vn, &saturated);
				apply2(&v, k == 0 ? d : 0, k == 1 ? d : 0, &c, &c.p[0], &c.p[1],
				       false, &saturated);
				bt->p[k].pn[l] = p->pn;
				arb->points[k].pn = p->pn;
			}
			/* static and kinematic bodies: no inverse mass, their velocities stay */
			if (a->type == F2D_DYNAMIC_BODY) {
				a->v = f2d_v((fix16_t)v.vax, (fix16_t)v.vay);
				a->w = (fix16_t)v.wa;
			}
			if (b->type == F2D_DYNAMIC_BODY) {
				b->v = f2d_v((fix16_t)v.vbx, (fix16_t)v.vby);
				b->w = (fix16_t)v.wb;
			}
		}
	}
	w->saturated |= saturated;
}

/* ---- measurement hook ---- */

int32_t f2d_contact_lcp_points(const f2d_world *w, f2d_lcp_point *out, int32_t capacity)
{
	int32_t n = 0;
	for (int32_t i = 0; i < w->batch_count; ++i) {
		const f2d_contact_batch *bt = &w->batches[i];
		for (int32_t l = 0; l < bt->lanes; ++l) {
			const f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
			const f2d_body *a = &w->bodies[bt->body_a[l]];
			const f2d_body *b = &w->bodies[bt->body_b[l]];
			vel64 v = {a->v.x, a->v.y, a->w, b->v.x, b->v.y, b->w};
			f2d_vec2 nrm = f2d_v(bt->n[l][0], bt->n[l][1]);
			f2d_vec2 t = f2d_right_perp(nrm);
			for (int32_t k = 0; k < arb->count; ++k, ++n) {
				const f2d_point_lanes *pl = &bt->p[k];
				if (n >= capacity) {
					continue;
				}
				f2d_lcp_point *o = &out[n];
				o->vn = rel_vel(&v, nrm, pl->rn[l][0], pl->rn[l][1]);
				o->vt = rel_vel(&v, t, pl->rt[l][0], pl->rt[l][1]);
				o->target = pl->bias[l];
				o->pn = pl->pn[l];
				o->pt = pl->pt[l];
				o->mass_n = pl->mass_n[l];
				o->mass_t = pl->mass_t[l];
				o->mu = bt->friction[l];
				o->separation = arb->points[k].separation;
			}
		}
	}
	return n;
}
