/* fix2d contact solver, the pre-step: the constants of the coloured batches (effective masses
 * with their hints, the geometry of each lane, the bias and bounce targets), by the scalar path
 * lane after lane or staged into SIMD lanes (AVX-512, AVX2) with the same bits, and the fast
 * impacts' landed bounces. The passes that use the constants are in solver.c (Gauss-Seidel) and
 * solver_soft.c (the soft step); the helpers they share are in solver_internal.h.
 * SPDX-License-Identifier: MIT
 */
#include "core.h"
#define F2D_SOLVER_LANES /* solver_internal.h: the SIMD lane helpers */
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

/* ---- the SIMD pre-steps ---- */
#if F2D_HAVE_SIMD
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

/* ---- staging ----
 * The inputs of a batch's 8 lanes, each field an array of 8 lanes (prestep_stage), with the
 * batch's friction and accumulated impulses: stage_lanes_ref lane after lane (the reference,
 * kept for tests/test_solver_paths.c's "stage" check), stage_lanes by rows and transposes. The
 * reference's stores are 4 bytes each, and the 256-bit loads that follow (kept_lanes8, the
 * kernels) of the same bytes cannot be forwarded from them: they waited for all of the batch's
 * ~200 stores to reach the cache (half of kept_lanes8's time in a pyramid20 profile on Zen 4).
 * stage_lanes writes each field with one 256-bit store, which its loads forward from.
 * Staged: past the arbiter's points and in padded lanes 0; the velocities only where a lane has
 * restitution (any_rest), since they are read only then. (Staged by gathers, 8 lanes a field
 * with vpgatherdd, the step took 3 % fewer instructions but 1-3 % more CPU time on the
 * AVX-512 machine of issue 16, AMD Zen 4, with either kernel: measured and left out.) */
#if defined(F2D_CONTACT_COUNT_PATHS)
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

static void stage_lanes_ref(const f2d_world *w, f2d_contact_batch *bt, prestep_stage *st)
{
	for (int32_t l = bt->lanes; l < F2D_LANES; ++l) {
		stage_zero(st, l, 0);
	}
	bool any_rest = false;
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
		for (int32_t i = 0; i < 2; ++i) {
			const f2d_contact_point *cp = &arb->points[i];
			const bool on = i < arb->count;
			st->p[i].rax[l] = on ? cp->r_a.x : 0;
			st->p[i].ray[l] = on ? cp->r_a.y : 0;
			st->p[i].rbx[l] = on ? cp->r_b.x : 0;
			st->p[i].rby[l] = on ? cp->r_b.y : 0;
			st->p[i].sep[l] = on ? cp->separation : 0;
			bt->p[i].pn[l] = on ? cp->pn : 0;
			bt->p[i].pt[l] = on ? cp->pt : 0;
		}
	}
	st->any_rest = any_rest;
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
#endif

/* stage_lanes reads 8 dwords from each of these and transposes them */
_Static_assert(offsetof(f2d_arbiter, friction) == 8 && offsetof(f2d_arbiter, restitution) == 12 &&
                   offsetof(f2d_arbiter, count) == 16 && offsetof(f2d_arbiter, points) == 20 &&
                   sizeof(f2d_contact_point) == 32 && offsetof(f2d_contact_point, pn) == 4 &&
                   offsetof(f2d_contact_point, pt) == 8 && offsetof(f2d_contact_point, r_a) == 12 &&
                   offsetof(f2d_contact_point, r_b) == 20 &&
                   offsetof(f2d_contact_point, separation) == 28 &&
                   offsetof(f2d_arbiter, normal) == 92 && sizeof(f2d_arbiter) >= 104,
               "stage_lanes: the arbiter's dwords 2..25");
_Static_assert(offsetof(f2d_body, inv_mass) == offsetof(f2d_body, mass) + 4 &&
                   offsetof(f2d_body, inv_inertia) == offsetof(f2d_body, mass) + 12 &&
                   offsetof(f2d_body, w) == offsetof(f2d_body, v) + 8 &&
                   offsetof(f2d_body, v) + 16 <= sizeof(f2d_body) &&
                   offsetof(f2d_body, mass) + 16 <= sizeof(f2d_body),
               "stage_lanes: a body's 4 dwords at &mass and at &v");

/* 8 rows of 8 dwords into 8 columns: r[k]'s dword l becomes r[l]'s dword k */
AVX2 static inline void transpose8_256(__m256i r[8])
{
	__m256i t[8], u[8];
	for (int32_t i = 0; i < 8; i += 2) {
		t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);     /* dwords 0 1 | 4 5 of i, i + 1 */
		t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]); /* dwords 2 3 | 6 7 */
	}
	for (int32_t i = 0; i < 8; i += 4) {
		u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);     /* dword 0 | 4 of rows i .. i + 3 */
		u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]); /* 1 | 5 */
		u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]); /* 2 | 6 */
		u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]); /* 3 | 7 */
	}
	for (int32_t k = 0; k < 4; ++k) {
		r[k] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x20);
		r[k + 4] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x31);
	}
}

/* rows: the 8 dwords at byte off of each lane's arbiter, transposed into r */
AVX2 static inline void arbiter_cols(const f2d_world *w, const f2d_contact_batch *bt, size_t off,
                                     __m256i r[8])
{
	for (int32_t l = 0; l < F2D_LANES; ++l) {
		r[l] = _mm256_loadu_si256(
		    (const __m256i *)(const void *)((const char *)&w->arbiters[bt->arbiter[l]] + off));
	}
	transpose8_256(r);
}

/* rows: the 4 dwords at byte off of each lane's body a, then of its body b, transposed into r
 * (r[0 .. 3] body a's, r[4 .. 7] body b's) */
AVX2 static inline void body_cols(const f2d_world *w, const f2d_contact_batch *bt, size_t off,
                                  __m256i r[8])
{
	for (int32_t l = 0; l < F2D_LANES; ++l) {
		const char *a = (const char *)&w->bodies[bt->body_a[l]] + off;
		const char *b = (const char *)&w->bodies[bt->body_b[l]] + off;
		r[l] = _mm256_inserti128_si256(
		    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)a)),
		    _mm_loadu_si128((const __m128i *)(const void *)b), 1);
	}
	transpose8_256(r);
}

AVX2 static inline void st8(f2d_lane *p, __m256i x)
{
	_mm256_storeu_si256((__m256i *)(void *)p, x);
}

/* The SIMD pre-steps' inputs of a batch (stage_lanes_ref's values). Every lane reads an
 * arbiter and two bodies: pad_lanes gave the padded lanes lane 0's, whose values the lane mask
 * then clears. The count is a byte (its dword's other bytes are flags): shifted up and back. */
AVX2 static void stage_lanes(const f2d_world *w, f2d_contact_batch *bt, prestep_stage *st)
{
	const __m256i zero = _mm256_setzero_si256();
	const __m256i on = _mm256_cmpgt_epi32(_mm256_set1_epi32(bt->lanes),
	                                      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
	__m256i r[8];
	/* dwords 2..9: friction, restitution, count, point 0's id, pn, pt, r_a */
	arbiter_cols(w, bt, 8, r);
	const __m256i count = _mm256_and_si256(on, _mm256_srai_epi32(_mm256_slli_epi32(r[2], 24), 24));
	const __m256i has0 = _mm256_cmpgt_epi32(count, zero);
	const __m256i has1 = _mm256_cmpgt_epi32(count, _mm256_set1_epi32(1));
	const __m256i rest = _mm256_and_si256(on, r[1]);
	st8(bt->friction, _mm256_and_si256(on, r[0]));
	st8(st->rest, rest);
	st8(st->points, count);
	st8(st->two, _mm256_cmpeq_epi32(count, _mm256_set1_epi32(2)));
	st8(bt->p[0].pn, _mm256_and_si256(has0, r[4]));
	st8(bt->p[0].pt, _mm256_and_si256(has0, r[5]));
	st8(st->p[0].rax, _mm256_and_si256(has0, r[6]));
	st8(st->p[0].ray, _mm256_and_si256(has0, r[7]));
	/* dwords 10..17: point 0's r_b, separation, point 1's id, pn, pt, r_a */
	arbiter_cols(w, bt, 40, r);
	st8(st->p[0].rbx, _mm256_and_si256(has0, r[0]));
	st8(st->p[0].rby, _mm256_and_si256(has0, r[1]));
	st8(st->p[0].sep, _mm256_and_si256(has0, r[2]));
	st8(bt->p[1].pn, _mm256_and_si256(has1, r[4]));
	st8(bt->p[1].pt, _mm256_and_si256(has1, r[5]));
	st8(st->p[1].rax, _mm256_and_si256(has1, r[6]));
	st8(st->p[1].ray, _mm256_and_si256(has1, r[7]));
	/* dwords 18..25: point 1's r_b, separation, the bodies, the normal, speculative */
	arbiter_cols(w, bt, 72, r);
	st8(st->p[1].rbx, _mm256_and_si256(has1, r[0]));
	st8(st->p[1].rby, _mm256_and_si256(has1, r[1]));
	st8(st->p[1].sep, _mm256_and_si256(has1, r[2]));
	st8(st->nx, _mm256_and_si256(on, r[5]));
	st8(st->ny, _mm256_and_si256(on, r[6]));
	/* mass, inv_mass, inertia, inv_inertia of body a, then of body b */
	body_cols(w, bt, offsetof(f2d_body, mass), r);
	st8(st->ima, _mm256_and_si256(on, r[1]));
	st8(st->iia, _mm256_and_si256(on, r[3]));
	st8(st->imb, _mm256_and_si256(on, r[5]));
	st8(st->iib, _mm256_and_si256(on, r[7]));
	const bool any_rest = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(rest, zero))) != 0;
	st->any_rest = any_rest;
	if (any_rest) { /* v, w (and force.x) of body a, then of body b */
		body_cols(w, bt, offsetof(f2d_body, v), r);
		st8(st->vax, _mm256_and_si256(on, r[0]));
		st8(st->vay, _mm256_and_si256(on, r[1]));
		st8(st->wa, _mm256_and_si256(on, r[2]));
		st8(st->vbx, _mm256_and_si256(on, r[4]));
		st8(st->vby, _mm256_and_si256(on, r[5]));
		st8(st->wb, _mm256_and_si256(on, r[6]));
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
/* test_solver_paths' check of the staging ("stage"): stage_lanes against stage_lanes_ref on a
 * scratch world of 16 arbiters and 16 bodies whose every dword is drawn by the LCG from the
 * int32 edges (0, +-1, INT32_MIN, INT32_MAX, +-2^15) or at random, the count byte 0, 1 or 2
 * (the flag bytes of its dword random), restitution > 0 in no lane half the time, a batch of
 * 1 .. 8 lanes at random arbiters and bodies (pad_lanes for the rest): *wrong counts the
 * batches that differ in a staged value, the batch's friction or impulses. Returns false in a
 * build without the SIMD pre-steps (nothing checked). */
bool f2d_test_stage(uint64_t seed, int32_t batches, uint64_t *wrong);
#if !F2D_HAVE_SIMD
bool f2d_test_stage(uint64_t seed, int32_t batches, uint64_t *wrong)
{
	(void)seed;
	(void)batches;
	*wrong = 0;
	return false;
}
#else
static uint32_t stage_draw(uint64_t *lcg)
{
	static const uint32_t edges[] = {0u, 1u, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x8000u,
	                                 0xFFFF8000u};
	*lcg = *lcg * 6364136223846793005u + 1442695040888963407u;
	uint32_t x = (uint32_t)(*lcg >> 32);
	return (x & 3u) == 0 ? edges[(x >> 2) % 7u] : x;
}
bool f2d_test_stage(uint64_t seed, int32_t batches, uint64_t *wrong_out)
{
	enum { N = 16 };
	f2d_world *w = calloc(1, sizeof *w);
	/* the batch type is 64-byte aligned (core.h): calloc promises only max_align_t's; the size
	 * is a multiple of 64 (core.h's static assert), as aligned_alloc asks */
	f2d_contact_batch *bt = aligned_alloc(_Alignof(f2d_contact_batch), 2 * sizeof *bt);
	if (w == NULL || bt == NULL) {
		abort();
	}
	memset(bt, 0, 2 * sizeof *bt);
	w->arbiters = calloc(N, sizeof *w->arbiters);
	w->bodies = calloc(N, sizeof *w->bodies);
	if (w->arbiters == NULL || w->bodies == NULL) {
		abort();
	}
	uint64_t lcg = seed, wrong = 0;
	for (int32_t t = 0; t < batches; ++t) {
		uint32_t *aw = (uint32_t *)(void *)w->arbiters, *bw = (uint32_t *)(void *)w->bodies;
		for (size_t i = 0; i < N * sizeof *w->arbiters / 4; ++i) {
			aw[i] = stage_draw(&lcg);
		}
		for (size_t i = 0; i < N * sizeof *w->bodies / 4; ++i) {
			bw[i] = stage_draw(&lcg);
		}
		const bool no_rest = (stage_draw(&lcg) & 1u) != 0;
		for (int32_t i = 0; i < N; ++i) {
			w->arbiters[i].count = (int8_t)(stage_draw(&lcg) % 3u);
			if (no_rest && w->arbiters[i].restitution > 0) {
				w->arbiters[i].restitution = -w->arbiters[i].restitution;
			}
		}
		uint8_t *raw = (uint8_t *)(void *)&bt[0];
		for (size_t i = 0; i < sizeof *bt; ++i) {
			raw[i] = (uint8_t)stage_draw(&lcg);
		}
		bt[0].lanes = 1 + (int32_t)(stage_draw(&lcg) % F2D_LANES);
		for (int32_t l = 0; l < F2D_LANES; ++l) {
			bt[0].arbiter[l] = (int32_t)(stage_draw(&lcg) % N);
			bt[0].body_a[l] = (int32_t)(stage_draw(&lcg) % N);
			bt[0].body_b[l] = (int32_t)(stage_draw(&lcg) % N);
		}
		pad_lanes(&bt[0]);
		bt[1] = bt[0];
		prestep_stage st[2];
		memset(st, 0x5A, sizeof st);
		stage_lanes_ref(w, &bt[0], &st[0]);
		stage_lanes(w, &bt[1], &st[1]);
		if (!st[0].any_rest) { /* the velocities are not staged (nor read) */
			for (int32_t i = 0; i < 2; ++i) {
				memset(st[i].vax, 0, sizeof st[i].vax);
				memset(st[i].vay, 0, sizeof st[i].vay);
				memset(st[i].wa, 0, sizeof st[i].wa);
				memset(st[i].vbx, 0, sizeof st[i].vbx);
				memset(st[i].vby, 0, sizeof st[i].vby);
				memset(st[i].wb, 0, sizeof st[i].wb);
			}
		}
		wrong += memcmp(&st[0], &st[1], sizeof st[0]) != 0 ||
		         memcmp(&bt[0], &bt[1], sizeof bt[0]) != 0;
	}
	free(w->arbiters);
	free(w->bodies);
	free(w);
	free(bt);
	*wrong_out = wrong;
	return true;
}
#endif
#endif

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
