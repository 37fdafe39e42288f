/* fix2d contact solver: the soft step's contact passes (f2d_world_def.substep_count >= 1).
 * SPDX-License-Identifier: MIT
 */
#include "core.h"
#include "solver_internal.h"

/* ---- the soft step (f2d_world_def.substep_count >= 1) ----
 *
 * Box2D v3's solver ("solve with substeps, soft contacts, relax iterations, restitution"), in
 * Q16 integer arithmetic. The pre-step (solver.c, f2d_contacts_prestep) also gives the lanes what
 * the soft passes read besides the Gauss-Seidel constants: each point's separation s0, the stiff
 * flag and restitution's targets by this step's rule (solver.c, "the soft step's lanes").
 * world.c cuts the step into n substeps of h = time_step / n; each one
 * integrates the velocities, warm-starts the contacts (f2d_soft_warm_start) and the joints,
 * solves the contacts once with their soft push-out (f2d_soft_solve, use_bias) and the joints,
 * integrates the positions (world.c's integrate_positions adds the move and the turn to the
 * displacement rows), and relaxes the contacts
 * (f2d_soft_solve without the push-out, which takes the push-out's speed back out of the
 * bodies: they are moved out of each other without being thrown). After the substeps,
 * f2d_soft_end stores the impulses and f2d_contacts_restitution bounces what touched.
 *
 * Soft constraint (Catto, "Solver2D"; b2MakeSoft): a contact is a spring of frequency f and
 * damping ratio zeta, integrated implicitly over h. With omega = 2 pi f:
 *   a1 = 2 zeta + h omega,  a2 = h omega a1,  a3 = 1 / (1 + a2)
 *   bias_rate = omega / a1,  mass_scale = a2 a3,  impulse_scale = a3
 * and a point with depth -s > 0 solves
 *   lambda = m_n (min(mass_scale bias_rate (-s), max_push) - mass_scale vn) - impulse_scale P_n
 * (the accumulated impulse's own share, impulse_scale P_n, is the spring's damping of what was
 * already applied). Here mass_scale bias_rate = omega / a1 * a2 / (1 + a2) = omega x / (1 + a2)
 * with x = h omega (since a2 = x a1), which is what is kept (bias_rate[]). A gap (s > 0) is
 * speculative: target -s / h, the full mass (lambda = m_n (-s/h - vn)), in both passes. The
 * relax pass solves vn to 0 at a depth, with the full mass and no impulse share.
 *
 * Friction in the soft pass is anchored (soft_slip): it solves vt + (slip / h) / 8 to 0, where
 * slip is the point's tangential motion since the step began, so a slip that rounding let
 * through in one substep is taken back in the next ones (without it the 100-row pyramid's
 * rows 20-60 slide apart by about 0.0006 m/s per contact, below what a substep's rounding
 * moves, and its top creeps sideways 0.0004-0.001 m per step). Before friction_step:
 *   vt' = f2d_sat(vt + round16(slip inv_h) / 8)   (C's division, truncating toward 0)
 * The relax pass solves vt to 0.
 *
 * The frequencies: f = min(40 Hz, rate / 6) (rate = 1 / h; 40 Hz from 4 substeps at 60 Hz on),
 * 5f/2 against a body that cannot move (100 Hz; Box2D v3.2's staticSoftness is 2f; with the
 * ground's contacts solved last in each pass, see take_color_from_end in solver.c), zeta = 7,
 * max_push = 3 m/s (Box2D v3.2's contactSpeed). Why not Box2D v3.2's min(30 Hz, rate / 8) and
 * zeta = 10 (engine format 10): a contact under a load F settles at a depth F / (m_n omega^2)
 * whatever zeta (the soft pass's fixed point: m_n bias_rate (-s) = impulse_scale P_n with
 * P_n = F h, i.e. -s = F / (m_n omega x / h)), and a stack's top sinks by the sum of its
 * contacts' depths: the 100-row pyramid's top 0.785 m at 30 Hz (issue 15's goal: 0.5 m;
 * Box2D v3 0.775 m), about (30/40)^2 of that at 40 Hz (0.466 m). Stiffer than rate / 6 and tall
 * stacks jitter (45 Hz: the 40-row pyramid at 0.48 m/s). At 40 Hz the damping ratio decides
 * whether the piles come to rest (peers driver and catalogue, 4 substeps, step 600): 10 leaves
 * the 40-row pyramid moving at 0.034 m/s and the 100-row one awake at 30 s, 9 lets the 100-row
 * top drift 0.28 m, 8 leaves the catalogue's rain1000 at 0.015 m/s, 7 meets every goal (the
 * 40-row pyramid creeps 1 LSB per substep, 0.0037 m/s), 6 and 5 leave 2-3 LSB per substep. A
 * stiffness per contact from its load (a stiffer level, up to 45 or 60 Hz, for contacts whose
 * last impulse would settle deeper than 3-4 mm) was measured and topples the 40-row pyramid.
 * README "The soft step, built" has the table.
 *
 * The separation of a point during the substeps: the manifold's s0 (from the positions at the
 * step's start), moved by the bodies' displacement since then, linearized in the turn:
 *   s = s0 + (dc_b - dc_a) . n + dtheta_b (r_b x n) - dtheta_a (r_a x n)
 * (a point r of a body turned by dtheta moves by dtheta x r, whose part along n is
 * dtheta (r x n)). dc is the centre's move since the step began; dtheta the sum of the
 * substeps' round16(h w). Both are kept in the displacement rows w->solver_disp, by body id:
 * (dc.x, dc.y, dtheta, unused), zeroed by world.c's soft_step and summed by its
 * integrate_positions (each substep's new centre minus the old, and the dr it turned by).
 * Without joints the velocities live in the rows w->solver_vel for the whole step (world.c:
 * the integrations work on the rows too; in_rows); with joints, which read and write the
 * bodies, they are in the rows during each pass only, as in the Gauss-Seidel passes (vel_in,
 * vel_out).
 *
 * Every value is computed exactly in 64 bits and saturated (and reported) where it could leave
 * the fix16 range, as in solver.c's exact path (soft_lane_exact, the reference); in batch order
 * (colour after colour), lane order, and per lane the normal block (points p[flip], then
 * p[flip ^ 1] through the coupling k12_n, one application), then the friction block (k12_t;
 * see soft_lane_exact). The warm start is the Gauss-Seidel passes' own
 * (f2d_contacts_warm_rows: the same impulses, the same operations). The soft pass has a fast
 * path per lane (soft_lane_fast) and falls back to the exact one (see there). */

/* round(a / b) for a >= 0, b > 0 */
static int64_t div_round_pos(int64_t a, int64_t b)
{
	return (a + b / 2) / b;
}

/* 2 pi in Q30: round(6.283185307179586 * 2^30) */
#define TWO_PI_Q30 INT64_C(6746518852)

/* The damping ratio of every contact (see "The frequencies" above for why 7). */
#define F2D_SOFT_ZETA 7

/* Derivation of the ranges: h in [65, 6554] LSB (1/1000 s / 8 .. 1/10 s); f_q16 <= 100 Hz =
 * 6,553,600 (f <= 40 Hz, times 5/2 against static bodies); omega_q16 = f 2 pi < 41.2e6 < 2^26;
 * x_q24 = h omega / 2^8 <= 6554 * 41.2e6 / 2^8 < 1.06e9 < 2^30 (x = h omega <= 0.1 s * 629/s);
 * a1_q24 = 2 zeta 2^24 + x_q24 < 2^31; a2_q24 = x a1 / 2^24 < 2^37; each product below stays
 * under 2^62 (x a1 < 2^61, a2 << 16 < 2^53, omega x < 2^56). All divisions are of non-negative
 * values, rounded to nearest. */
static void make_soft(fix16_t h, int64_t f_q16, fix16_t *bias_rate, fix16_t *mass_scale,
                      fix16_t *impulse_scale)
{
	const int64_t zeta = F2D_SOFT_ZETA;
	int64_t omega = div_round_pos(f_q16 * TWO_PI_Q30, INT64_C(1) << 30); /* Q16, 1/s */
	int64_t x = div_round_pos((int64_t)h * omega, INT64_C(1) << 8);      /* Q24 */
	int64_t a1 = 2 * zeta * (INT64_C(1) << 24) + x;                      /* Q24 */
	int64_t a2 = div_round_pos(x * a1, INT64_C(1) << 24);                /* Q24 */
	int64_t den = (INT64_C(1) << 24) + a2;                               /* 1 + a2, Q24 */
	*mass_scale = (fix16_t)div_round_pos(a2 << 16, den);
	*impulse_scale = (fix16_t)div_round_pos(INT64_C(1) << 40, den);
	/* omega x / (1 + a2): Q16 * Q24 / Q24 = Q16 */
	*bias_rate = (fix16_t)div_round_pos(omega * x, den);
}

/* Why rate / 6 stays although it holds 3 substeps (180 Hz) at 30 Hz and 2 at 20 Hz (measured
 * for issue 15 at engine format 13, peers driver, 600 steps, sleep off): a relaxed ratio does
 * not make fewer substeps meet the stack goals. At 3 substeps, 40 Hz (rate / 4.5; Box2D v3's
 * rate / 4 and rate / 3 give the same 40 Hz there) lets pyramid20's top walk 0.37 m sideways
 * and the 100-row pyramid lean over (x -3.5 m at step 600); so do 35 and 36 Hz, zeta 5 or 10,
 * statics at f, 15f/8 or 2f, and the friction anchor at 1/16..1/2 (pyramid20 x -0.13..-0.52 m,
 * 100 rows x -2.2..-3.6 m). 30 Hz (this rule) stands but misses pyramid20's drop (0.0322 m),
 * rain1000's rest (0.031 m/s) and the 100 rows (drop 0.97 m, x -1.6 m). At 2 substeps 40 Hz
 * (rate / 3) blows the 100-row pyramid apart and 30 or 20 Hz topple it. 4 substeps is the
 * fewest that meets every goal. */
void f2d_soft_make(fix16_t h, fix16_t inv_h, f2d_softness *out)
{
	int64_t f = (int64_t)40 << 16; /* Q16 Hz */
	int64_t sixth = (int64_t)inv_h / 6;
	f = f < sixth ? f : sixth;
	make_soft(h, f, &out->bias_rate[0], &out->mass_scale[0], &out->impulse_scale[0]);
	/* 5f/2: f is 40 Hz or inv_h / 6 in Q16, 5 f < 2^28; the division truncates */
	make_soft(h, 5 * f / 2, &out->bias_rate[1], &out->mass_scale[1], &out->impulse_scale[1]);
	out->max_push = F2D_FIX(3);
	out->inv_h = inv_h;
}

/* in_rows: the velocities live in the rows for the whole step (world.c's soft_step without
 * joints): no copies in or out. Else the rows hold them only during a pass, as in the
 * Gauss-Seidel passes. */
void f2d_soft_warm_start(f2d_world *w, bool in_rows)
{
	if (in_rows) {
		f2d_contacts_warm_rows(w);
		return;
	}
	vel_in(w);
	f2d_contacts_warm_rows(w);
	vel_out(w);
}

/* The separation of point k now (see above), saturated to the fix16 range: da, db the bodies'
 * displacement rows. Centres within the world range (|c| < 2^31): each move < 2^32, their
 * difference < 2^33, times |n| <= 2^16; |dtheta| <= n max_rotation / n < 2^17, |r x n| < 2^31:
 * each product < 2^48. */
static inline fix16_t soft_separation(const f2d_contact_batch *bt, int32_t l, int32_t k,
                                      const int64_t *da, const int64_t *db)
{
	int64_t dx = db[0] - da[0];
	int64_t dy = db[1] - da[1];
	int64_t lin = f2d_round16(dx * bt->n[l][0] + dy * bt->n[l][1]);
	int64_t ang = f2d_round16(db[2] * bt->p[k].rn[l][1] - da[2] * bt->p[k].rn[l][0]);
	return f2d_sat((int64_t)bt->p[k].sep[l] + lin + ang);
}

/* The tangential slip of point k since the step began: soft_separation's linearized motion
 * along t = right_perp(n) = (n.y, -n.x) instead of n, with r x t instead of r x n and no s0:
 *   slip = sat(round16(dx t.x + dy t.y) + round16(dtheta_b (r_b x t) - dtheta_a (r_a x t)))
 * what the velocity-level friction cannot see when a body's speed is rounded away in a
 * substep's position (under 0.0018 m/s at 1/240 s) or its turn and its move round apart.
 * Ranges as in soft_separation (|t| <= 2^16, |r x t| < 2^31): each product < 2^49. */
static inline fix16_t soft_slip(const f2d_contact_batch *bt, int32_t l, int32_t k,
                                const int64_t *da, const int64_t *db)
{
	int64_t dx = db[0] - da[0];
	int64_t dy = db[1] - da[1];
	int64_t lin = f2d_round16(dx * bt->n[l][1] - dy * bt->n[l][0]);
	int64_t ang = f2d_round16(db[2] * bt->p[k].rt[l][1] - da[2] * bt->p[k].rt[l][0]);
	return f2d_sat(lin + ang);
}

/* The soft pass's friction anchor on vt (see above): vt + round16(slip inv_h) / 8, the
 * division truncating toward 0, saturated (unreported, as the separation). |slip| < 2^31,
 * |inv_h| < 2^31: the product < 2^62, its round16 < 2^46; |vt| < 2^31: the sum < 2^47. */
static inline int64_t soft_anchor(int64_t vt, fix16_t slip, const f2d_softness *k)
{
	return f2d_sat(vt + mul64(slip, k->inv_h) / 8);
}

/* ---- test-only switches (as in solver.c; tests/test_solver_paths.c) ----
 * F2D_CONTACT_COUNT_PATHS: the lanes each soft pass path handled (fast, exact because a value
 * left the checked range, exact because a bounce is pending). */
#ifdef F2D_CONTACT_COUNT_PATHS
extern uint64_t f2d_soft_path_counts[3];
uint64_t f2d_soft_path_counts[3];
#define COUNT_SOFT(i, n) (f2d_soft_path_counts[i] += (uint64_t)(n))
#else
#define COUNT_SOFT(i, n) ((void)(n))
#endif

/* One lane of a soft pass, exact path (the reference): a, b the bodies' velocity rows, da, db
 * their displacement rows.
 *
 * The two points of a manifold are solved as a block of two, as in the Gauss-Seidel passes
 * (solve_exact): point 1's impulse is not applied before point 2 is solved; point 2's relative
 * velocity is moved by it through the coupling instead,
 *   vn2' = sat(vn2 + round16(d1 k12_n)),  vt2' = sat(vt2 + round16(d1 k12_t))
 * (k12 = J2 M^-1 J1^T from the pre-step: the change of point 2's relative velocity per unit
 * impulse at point 1, along n or t; kinematic, so it holds whatever made d1: the soft terms,
 * mass_scale and impulse_scale, only shape d1), and both impulses are applied at once (apply2:
 * one rounding per component). The same sequential impulses as applying d1 first, up to the
 * rounding of the velocities in between; two applications per pass instead of four. vn2 is
 * below 2^39 (rel_vel64), |d1| < 2^31 and |k12| < 2^31: the sum is exact in 64 bits. A
 * one-point arbiter solves its point alone (its k12 is 0). */
static F2D_NOINLINE void soft_lane_exact(f2d_world *w, const f2d_softness *k, f2d_contact_batch *bt,
                                         int32_t l, bool use_bias, int32_t flip, int64_t *a,
                                         int64_t *b, const int64_t *da, const int64_t *db,
                                         bool *saturated)
{
	const f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
	int32_t st = bt->stiff[l];
	clane c;
	load_lane(bt, l, &c);
	vel64 v = load_vel(a, b);
	int32_t q1 = arb->count == 2 ? flip : 0;
	fix16_t dp[2] = {0, 0}; /* the impulses of this pass, by point */
	for (int32_t kk = 0; kk < arb->count; ++kk) {
		int32_t q = q1 ^ kk;
		cpoint *p = &c.p[q];
		fix16_t s = soft_separation(bt, l, q, da, db);
		int64_t vn = rel_vel64(&v, c.n, p->rn_a, p->rn_b);
		if (kk == 1) {
			vn += f2d_round16((int64_t)dp[q1] * c.k12_n); /* point 1's, not applied */
		}
		vn = f2d_sat(vn);
		int64_t lam;
		if (p->bounce != 0 && use_bias && vn < 0) {
			/* a bounce pending: the approach speed of this substep
			 * (gravity may have added to the step's) */
			fix16_t e = mul64(arb->restitution, -vn);
			p->bounce = e > p->bounce ? e : p->bounce;
		}
		if (p->bounce != 0 && !use_bias) {
			/* touched in this substep: the relax pass bounces it, once.
			 * Not yet: no speculative impulse either (it would slow the
			 * approach before the touch and take the bounce's speed);
			 * the next substep's soft pass keeps the gap with the
			 * target below */
			lam = p->pn > 0 ? mul64(p->mass_n, f2d_sat((int64_t)p->bounce - vn)) : 0;
			p->bounce = p->pn > 0 ? 0 : p->bounce;
		} else if (p->bounce != 0 && use_bias) {
			/* a gap s closing at v = -vn, bouncing at e v: over the
			 * substep the point should move -s + e v (h - s / v), that
			 * is at the mean normal velocity e v - (1 + e) s / h (it
			 * touches in this substep when that is above the
			 * speculative -s / h, i.e. v h > s; else the impulse stays
			 * 0); the relax pass then gives it e v. A point found
			 * already inside (s < 0: it came more than the speculative
			 * distance in the last step, and gained the speed of
			 * falling -s further) bounces at e v from depth -e^2 (-s):
			 * the energy of a bounce from the surface at the speed it
			 * had there (e^2 (v^2 / 2 - g (-s)) per unit mass, g along
			 * n), so the apex is e^2 times the drop, whatever the
			 * depth; the mean velocity is e v - (1 - e^2) s / h */
			int64_t gap = mul64(s, k->inv_h);
			fix16_t e = arb->restitution;
			int64_t target = s > 0
			                     ? (int64_t)p->bounce - gap - mul64(e, gap)
			                     : (int64_t)p->bounce - gap + mul64(f2d_mul(e, e), gap);
			lam = mul64(p->mass_n, f2d_sat(target - vn));
		} else if (s > 0) {
			lam = mul64(p->mass_n, f2d_sat(-mul64(s, k->inv_h) - vn));
		} else if (use_bias) {
			int64_t target = mul64(k->bias_rate[st], -(int64_t)s);
			target = target < k->max_push ? target : k->max_push;
			lam = mul64(p->mass_n, f2d_sat(target - mul64(k->mass_scale[st], vn))) -
			      mul64(k->impulse_scale[st], p->pn);
		} else {
			lam = mul64(p->mass_n, f2d_sat(-vn));
		}
		int64_t pn = (int64_t)p->pn + lam;
		*saturated |= pn > INT32_MAX;
		pn = pn < 0 ? 0 : (pn > INT32_MAX ? INT32_MAX : pn);
		dp[q] = (fix16_t)(pn - p->pn);
		p->pn = (fix16_t)pn;
	}
	apply2(&v, dp[0], dp[1], &c, &c.p[0], &c.p[1], false, saturated);
	f2d_vec2 t = f2d_right_perp(c.n);
	dp[0] = dp[1] = 0;
	for (int32_t kk = 0; kk < arb->count; ++kk) {
		int32_t q = q1 ^ kk;
		cpoint *p = &c.p[q];
		int64_t vt = rel_vel64(&v, t, p->rt_a, p->rt_b);
		if (kk == 1) {
			vt += f2d_round16((int64_t)dp[q1] * c.k12_t); /* point 1's, not applied */
		}
		vt = f2d_sat(vt);
		if (use_bias) {
			/* the friction anchor: the relax pass solves vt to 0 */
			vt = soft_anchor(vt, soft_slip(bt, l, q, da, db), k);
		}
		dp[q] = friction_step(p, (fix16_t)vt, c.friction, saturated);
	}
	apply2(&v, dp[0], dp[1], &c, &c.p[0], &c.p[1], true, saturated);
	store_lane(bt, l, &c);
	bt->p[0].bounce[l] = c.p[0].bounce;
	bt->p[1].bounce[l] = c.p[1].bounce;
	store_vel(a, b, &v);
}

/* ---- the fast path ----
 *
 * soft_lane_exact without a bounce (a lane with one pending falls back: bounces are rare) and
 * without the saturations that the exact path reports: each point's new normal impulse (before
 * the clamp to INT32_MAX), the friction increments and the velocities after each of the two
 * applications are checked once at the end, x in [-2^30, 2^30) (f2d_fast_chk): there the exact
 * path's f2d_sat_flag and add_sat are the identity and report nothing, so both give the same
 * bits; otherwise nothing is written and the lane is solved by the exact path from the
 * unchanged state. Every other operation is the exact path's, in the same 64-bit arithmetic:
 * their operands are fix16 values (the rows and lanes always hold such) or values the exact
 * path bounds the same way (its unreported f2d_sat calls are kept, among them point 2's coupled
 * velocities, and the impulses are clamped to [0, INT32_MAX] as there), so no product of the
 * exact path's overflows; but the velocities, unsaturated, may leave the range after the normal
 * application (the check then fails), and a friction increment may reach 2^32, so the relative
 * velocities, the couplings and the applications are summed in wrapping arithmetic (their
 * results then matter only when every check passes, and then each is the exact path's value).
 * The normal block reads the rows as loaded (fix16): its relative velocities and the coupling
 * term are exact without wrapping.
 *
 * A one-point arbiter is solved as a two-point one (points p[flip], p[flip ^ 1]) whose second
 * point is all zero (the pre-step's padding, sep and bounce 0 included; k12 0): its
 * effective mass is 0, so its impulse is 0, its friction cone is 0 and its increments are 0,
 * the coupling of a zero impulse is round16(0) = 0, and an impulse of 0 changes no velocity:
 * the exact path's one point. */

#ifndef F2D_CONTACT_EXACT_ONLY /* (unused there: clang's -Wunused-function) */
/* apply2 without saturation (apply_fast in solver.c): the impulses d1 at point 1 and d2 at
 * point 2 along n (dv, the lane's n / m; wa1..wb2 the points' angular responses), or along t
 * (dv = (dv.y, -dv.x), wt). Wrapping: the sums are the exact path's when the increments are
 * within the fix16 range (|d1 + d2| < 2^32, |dv| <= 2^31: each product below 2^63), which the
 * checks ensure whenever they pass. */
static inline void soft_apply2(vel64 *v, int64_t d1, int64_t d2, int64_t dax, int64_t day,
                               int64_t dbx, int64_t dby, int64_t wa1, int64_t wb1, int64_t wa2,
                               int64_t wb2, uint64_t *acc)
{
	int64_t d = f2d_wadd(d1, d2);
	v->vax = f2d_wsub(v->vax, wmul16(d, dax));
	v->vay = f2d_wsub(v->vay, wmul16(d, day));
	v->vbx = f2d_wadd(v->vbx, wmul16(d, dbx));
	v->vby = f2d_wadd(v->vby, wmul16(d, dby));
	v->wa = f2d_wsub(v->wa, f2d_wround16(f2d_wadd(f2d_wmul(d1, wa1), f2d_wmul(d2, wa2))));
	v->wb = f2d_wadd(v->wb, f2d_wround16(f2d_wadd(f2d_wmul(d1, wb1), f2d_wmul(d2, wb2))));
	*acc |= f2d_fast_chk(v->vax) | f2d_fast_chk(v->vay) | f2d_fast_chk(v->wa) |
	        f2d_fast_chk(v->vbx) | f2d_fast_chk(v->vby) | f2d_fast_chk(v->wb);
	F2D_FAST_FOLD(*acc);
}

/* The relative velocity without the rounding (rel_vel64's sum), in wrapping arithmetic (the
 * velocities after a failed check may be anything): the same exact sum when the velocities
 * are within the fix16 range; lin is the linear part, shared by the two points. */
static inline int64_t soft_point_sum(const vel64 *v, int64_t lin, int64_t rd_a, int64_t rd_b)
{
	return f2d_wsub(f2d_wadd(lin, f2d_wmul(v->wb, rd_b)), f2d_wmul(v->wa, rd_a));
}

static inline bool soft_lane_fast(const f2d_softness *k, f2d_contact_batch *bt, int32_t l,
                                  bool use_bias, int32_t flip, int64_t *a, int64_t *b,
                                  const int64_t *da, const int64_t *db)
{
	int32_t q1 = flip, q2 = flip ^ 1;
	f2d_point_lanes *p1 = &bt->p[q1], *p2 = &bt->p[q2];
	f2d_vec2 n = f2d_v(bt->n[l][0], bt->n[l][1]);
	int64_t dax = bt->dva[l][0], day = bt->dva[l][1], dbx = bt->dvb[l][0], dby = bt->dvb[l][1];
	int32_t st = bt->stiff[l];
	uint64_t acc = 0;
	vel64 v = load_vel(a, b);
	/* the linear part of the separations, shared */
	int64_t lin = f2d_round16((db[0] - da[0]) * n.x + (db[1] - da[1]) * n.y);
	/* the linear part of the normal velocities, shared (the rows as loaded) */
	int64_t ln = (v.vbx - v.vax) * n.x + (v.vby - v.vay) * n.y;
	int64_t pn[2], pt[2], dp[2];
	for (int32_t i = 0; i < 2; ++i) {
		const f2d_point_lanes *p = i == 0 ? p1 : p2;
		int64_t pn0 = p->pn[l];
		int64_t ang = f2d_round16(db[2] * p->rn[l][1] - da[2] * p->rn[l][0]);
		fix16_t s = f2d_sat((int64_t)p->sep[l] + lin + ang);
		int64_t vn = f2d_round16(soft_point_sum(&v, ln, p->rn[l][0], p->rn[l][1]));
		if (i == 1) {
			vn += f2d_round16(dp[0] * bt->k12[l][0]); /* point 1's, not applied */
		}
		vn = f2d_sat(vn);
		int64_t lam;
		if (s > 0) {
			lam = mul64(p->mass_n[l], f2d_sat(-mul64(s, k->inv_h) - vn));
		} else if (use_bias) {
			int64_t target = mul64(k->bias_rate[st], -(int64_t)s);
			target = target < k->max_push ? target : k->max_push;
			lam = mul64(p->mass_n[l], f2d_sat(target - mul64(k->mass_scale[st], vn))) -
			      mul64(k->impulse_scale[st], pn0);
		} else {
			lam = mul64(p->mass_n[l], f2d_sat(-vn));
		}
		/* clamped as the exact path does, whose report at INT32_MAX the check covers */
		int64_t q = pn0 + lam;
		q = q < 0 ? 0 : (q > INT32_MAX ? INT32_MAX : q);
		acc |= f2d_fast_chk(q);
		pn[i] = q;
		dp[i] = q - pn0;
	}
	soft_apply2(&v, dp[0], dp[1], dax, day, dbx, dby, p1->wn[l][0], p1->wn[l][1], p2->wn[l][0],
	            p2->wn[l][1], &acc);
	f2d_vec2 t = f2d_right_perp(n);
	int64_t mu = bt->friction[l];
	/* the linear part of the slips (soft_slip), shared */
	int64_t lin_t = use_bias ? f2d_round16((db[0] - da[0]) * t.x + (db[1] - da[1]) * t.y) : 0;
	/* the linear part of the tangent velocities, shared (wrapping: v may have left the range) */
	int64_t lt = f2d_wadd(f2d_wmul(f2d_wsub(v.vbx, v.vax), t.x),
	                      f2d_wmul(f2d_wsub(v.vby, v.vay), t.y));
	for (int32_t i = 0; i < 2; ++i) {
		const f2d_point_lanes *p = i == 0 ? p1 : p2;
		int64_t pt0 = p->pt[l];
		int64_t vt = f2d_wround16(soft_point_sum(&v, lt, p->rt[l][0], p->rt[l][1]));
		if (i == 1) {
			vt = f2d_wadd(vt, wmul16(dp[0], bt->k12[l][1])); /* point 1's, not applied */
		}
		vt = f2d_sat(vt);
		if (use_bias) {
			/* the friction anchor, exact in 64 bits with no check (soft_slip's and
			 * soft_anchor's ranges: from the displacement rows and fix16 lane values
			 * only, no velocity): the exact path's bits; a one-point arbiter's zero
			 * point gets a slip, but its mass_t, cone and increment stay 0 */
			int64_t ang_t = f2d_round16(db[2] * p->rt[l][1] - da[2] * p->rt[l][0]);
			vt = soft_anchor(vt, f2d_sat(lin_t + ang_t), k);
		}
		int64_t max_pt = mul64((fix16_t)mu, pn[i]);
		max_pt = max_pt > INT32_MAX ? INT32_MAX : max_pt;
		int64_t q = pt0 - mul64(p->mass_t[l], vt);
		q = q < -max_pt ? -max_pt : (q > max_pt ? max_pt : q);
		acc |= f2d_fast_chk(q - pt0);
		pt[i] = q;
		dp[i] = q - pt0;
	}
	soft_apply2(&v, dp[0], dp[1], day, -dax, dby, -dbx, p1->wt[l][0], p1->wt[l][1], p2->wt[l][0],
	            p2->wt[l][1], &acc);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	p1->pn[l] = (fix16_t)pn[0];
	p2->pn[l] = (fix16_t)pn[1];
	p1->pt[l] = (fix16_t)pt[0];
	p2->pt[l] = (fix16_t)pt[1];
	store_vel(a, b, &v);
	return true;
}

#endif

/* One soft pass: the batches in order (colour after colour); a batch of one colour by the SIMD
 * kernel where the CPU has one (lanes of one colour share no body that moves: any order gives
 * the same bits; one call runs the batches up to one with lanes left over, f2d_soft_simd_run),
 * else lane after lane by the scalar fast path; the lanes either leaves, and those with a
 * bounce pending, by the exact path. */
void f2d_soft_solve(f2d_world *w, const f2d_softness *k, bool use_bias, int32_t flip,
                    bool in_rows)
{
	bool saturated = false;
	int kernel = f2d_kernel_level();
	const f2d_soft_consts kc = {{k->bias_rate[0], k->bias_rate[1]},
	                            {k->mass_scale[0], k->mass_scale[1]},
	                            {k->impulse_scale[0], k->impulse_scale[1]},
	                            k->inv_h,
	                            k->max_push};
	if (!in_rows) {
		vel_in(w);
	}
	for (int32_t i = 0; i < w->batch_count; ++i) {
		unsigned todo = 0;
		if (kernel != F2D_KERNEL_SCALAR) {
			/* the SIMD kernel on the batches from i on, up to a sequential one or one
			 * with lanes left over (todo) */
			int32_t j = f2d_soft_simd_run(w, i, kernel, flip, use_bias, &kc, &todo);
			for (; i < j; ++i) {
				COUNT_SOFT(0, w->batches[i].lanes);
			}
			if (i == w->batch_count) {
				break;
			}
		}
		f2d_contact_batch *bt = &w->batches[i];
		/* a bit per lane with a bounce pending */
		unsigned bounce = f2d_soft_bounce_lanes(bt);
		if (kernel != F2D_KERNEL_SCALAR && !bt->sequential) {
			COUNT_SOFT(0, bt->lanes - f2d_popcount(todo));
		} else {
			todo = (1u << bt->lanes) - 1u;
		}
		for (; todo != 0; todo &= todo - 1) {
			int32_t l = f2d_ctz64(todo);
			int64_t *a = w->solver_vel[bt->body_a[l]];
			int64_t *b = w->solver_vel[bt->body_b[l]];
			const int64_t *da = w->solver_disp[bt->body_a[l]];
			const int64_t *db = w->solver_disp[bt->body_b[l]];
			if ((bounce >> l) & 1u) {
				COUNT_SOFT(2, 1);
			} else {
#ifndef F2D_CONTACT_EXACT_ONLY
				if (kernel == F2D_KERNEL_SCALAR || bt->sequential) {
					if (soft_lane_fast(k, bt, l, use_bias, flip, a, b, da,
					                   db)) {
						COUNT_SOFT(0, 1);
						continue;
					}
				}
#endif
				COUNT_SOFT(1, 1);
			}
			soft_lane_exact(w, k, bt, l, use_bias, flip, a, b, da, db, &saturated);
		}
	}
	if (!in_rows) {
		vel_out(w);
	}
	w->saturated |= saturated;
}

void f2d_soft_end(f2d_world *w)
{
	store_impulses(w);
}
