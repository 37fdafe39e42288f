/* fix2d joints other than the revolute joint: what src/joint_common.c and the per-type files
 * (joint_distance.c, joint_prismatic.c, joint_weld.c, joint_wheel.c, joint_motor.c,
 * joint_mouse.c) share. src/joint.c only dispatches to f2d_joint_ext_* when j->type != 0.
 * At the end, what src/joint.c shares with src/joint_lanes.c (the revolute joints in SIMD lanes).
 * SPDX-License-Identifier: MIT
 *
 * Arithmetic: every value is computed in 64 bits and saturated to the fix16 range with the
 * step's overflow report (F2D_ERROR_OVERFLOW), as the revolute joint's exact path. The
 * distance, prismatic, weld and wheel joints also have a fast path (see "fast paths" below)
 * that gives the same bits; tests/test_solver_paths.c compares them with an exact-only build.
 *
 * Soft constraints (Box2D v3's b2MakeSoft, derivation at f2d_make_soft): a constraint with
 * position error C and velocity error Cdot takes, each iteration,
 *   lambda = -mass_scale * m_eff * (Cdot + bias_rate * C) - impulse_scale * accumulated
 * which is an implicit (backward Euler) spring of frequency f and damping ratio zeta.
 * Rigid parts of the new joints use Box2D v3's joint softness: f = half the step rate,
 * zeta = 2 (see F2D_RIGID_*), so their position error is corrected by velocity bias, not by the
 * revolute joint's position projection.
 */
#ifndef FIX2D_JOINT_INTERNAL_H
#define FIX2D_JOINT_INTERNAL_H

#include "core.h"
#include "fix2d/joints.h"

/* ---- saturating arithmetic (the same as joint.c's exact path) ---- */
static inline fix16_t jx_sat(f2d_world *w, int64_t x)
{
	return f2d_sat_flag(x, &w->saturated);
}
static inline fix16_t jx_mul(f2d_world *w, fix16_t a, fix16_t b)
{
	return jx_sat(w, f2d_round16((int64_t)a * b));
}
static inline fix16_t jx_add(f2d_world *w, fix16_t a, fix16_t b)
{
	return jx_sat(w, (int64_t)a + b);
}
static inline fix16_t jx_sub(f2d_world *w, fix16_t a, fix16_t b)
{
	return jx_sat(w, (int64_t)a - b);
}
/* a . b and a x b of two fix16 vectors: exact in 64 bits, rounded once, saturated */
static inline fix16_t jx_dot(f2d_world *w, f2d_vec2 a, f2d_vec2 b)
{
	return jx_sat(w, f2d_round16((int64_t)a.x * b.x + (int64_t)a.y * b.y));
}
static inline fix16_t jx_cross(f2d_world *w, f2d_vec2 a, f2d_vec2 b)
{
	return jx_sat(w, f2d_round16((int64_t)a.x * b.y - (int64_t)a.y * b.x));
}
/* 1 / k for a Q16 k in 64 bits: 0 for k <= 0, saturated (and reported) for k <= 2 LSB */
static inline fix16_t jx_inv(f2d_world *w, int64_t k)
{
	if (k <= 0) {
		return 0;
	}
	if (k <= 2) {
		w->saturated = true;
		return INT32_MAX;
	}
	return f2d_div_exact((int64_t)1 << 16, k);
}

/* Velocity of the anchor point: v + w x r = (v.x - w r.y, v.y + w r.x), saturated. */
static inline f2d_vec2 jx_point_velocity(f2d_world *w, const f2d_body *b, f2d_vec2 r)
{
	return f2d_v(jx_sat(w, (int64_t)b->v.x - f2d_round16((int64_t)b->w * r.y)),
	             jx_sat(w, (int64_t)b->v.y + f2d_round16((int64_t)b->w * r.x)));
}

/* Applies the linear impulse p at the arms (through the anchors) plus the angular impulses la
 * (to A, subtracted) and lb (to B, added):
 *   v_a -= p / m_a, w_a -= la / I_a, v_b += p / m_b, w_b += lb / I_b. */
static inline void jx_apply(f2d_world *w, f2d_body *a, f2d_body *b, f2d_vec2 p, fix16_t la,
                            fix16_t lb)
{
	a->v.x = jx_sat(w, (int64_t)a->v.x - f2d_round16((int64_t)a->inv_mass * p.x));
	a->v.y = jx_sat(w, (int64_t)a->v.y - f2d_round16((int64_t)a->inv_mass * p.y));
	a->w = jx_sat(w, (int64_t)a->w - f2d_round16((int64_t)a->inv_inertia * la));
	b->v.x = jx_sat(w, (int64_t)b->v.x + f2d_round16((int64_t)b->inv_mass * p.x));
	b->v.y = jx_sat(w, (int64_t)b->v.y + f2d_round16((int64_t)b->inv_mass * p.y));
	b->w = jx_sat(w, (int64_t)b->w + f2d_round16((int64_t)b->inv_inertia * lb));
}

/* A point impulse p at the arms r_a, r_b: angular parts r x p. */
static inline void jx_apply_point(f2d_world *w, f2d_body *a, f2d_body *b, f2d_vec2 ra, f2d_vec2 rb,
                                  f2d_vec2 p, fix16_t axial)
{
	fix16_t la = jx_add(w, jx_cross(w, ra, p), axial);
	fix16_t lb = jx_add(w, jx_cross(w, rb, p), axial);
	jx_apply(w, a, b, p, la, lb);
}

/** f2d_u128_div31(n, d) (the same result), in one or two 64-bit divisions (joint_common.c). */
uint32_t f2d_div31_fast(f2d_u128 n, f2d_u128 d);

/* the softness triple of a soft constraint (f2d_make_soft) */
enum { SOFT_BIAS = 0, SOFT_MASS = 1, SOFT_IMPULSE = 2 };

/* ---- fast paths (weld, prismatic, wheel and distance joints) ----
 * As the revolute joint's (src/joint.c, "fast path"): the solve and warm start of a joint are
 * computed again on 64-bit locals, operation for operation the expressions of the exact path
 * above, but each value the exact path saturates (every jx_sat, jx_mul, jx_add, ...) is only
 * checked: jf_sat ors f2d_fast_chk(x) into *acc, and the value is kept. All arithmetic is
 * modulo 2^64 (f2d_wmul, f2d_wadd, ...: no undefined behaviour whatever the values). If at
 * the end every checked value was in [-2^30, 2^30) (F2D_FAST_OK), every saturation of the
 * exact path was the identity; then every operand was the exact path's, each product of two
 * such values (or of one and a fix16 field) is below 2^61 and each sum of two below 2^62, as
 * the exact path computes them in 64 bits: the same bits. Then the locals are stored; else
 * nothing was written and the exact path runs from the unchanged state (F2D_ERROR_OVERFLOW is
 * then reported by it, as before). The silent f2d_sat of f2d_limit_impulse is computed as
 * there. The motor and mouse joints (no catalogue scene uses them; a mouse joint drags one
 * body) have only the exact path.
 * F2D_JOINT_EXACT_ONLY and F2D_JOINT_COUNT_PATHS: the test-only switches of src/joint.c
 * (tests/test_solver_paths.c); the counts of these joints are f2d_joint_ext_path_counts, per
 * joint type: warm start fast, warm start exact, solve fast, solve exact. */
#ifdef F2D_JOINT_EXACT_ONLY
enum { JF_FAST_PATH = 0 };
#else
enum { JF_FAST_PATH = 1 };
#endif
#ifdef F2D_JOINT_COUNT_PATHS
extern uint64_t f2d_joint_ext_path_counts[7][4];
#define JF_COUNT(j, i) (f2d_joint_ext_path_counts[(j)->type][i]++)
#else
#define JF_COUNT(j, i) ((void)0)
#endif

/* a body's velocity in locals */
typedef struct jfv {
	int64_t x, y, w;
} jfv;

static inline jfv jf_load(const f2d_body *b)
{
	jfv v = {b->v.x, b->v.y, b->w};
	return v;
}
/* only after F2D_FAST_OK: every component is then in the fix16 range */
static inline void jf_store(f2d_body *b, jfv v)
{
	b->v = f2d_v((fix16_t)v.x, (fix16_t)v.y);
	b->w = (fix16_t)v.w;
}
static inline int64_t jf_sat(uint64_t *acc, int64_t x)
{
	*acc |= f2d_fast_chk(x);
	return x;
}
static inline int64_t jf_mul(uint64_t *acc, int64_t a, int64_t b)
{
	return jf_sat(acc, f2d_wround16(f2d_wmul(a, b)));
}
static inline int64_t jf_add(uint64_t *acc, int64_t a, int64_t b)
{
	return jf_sat(acc, f2d_wadd(a, b));
}
static inline int64_t jf_sub(uint64_t *acc, int64_t a, int64_t b)
{
	return jf_sat(acc, f2d_wsub(a, b));
}
/* jx_dot, jx_cross of (ax, ay) and (bx, by) */
static inline int64_t jf_dot(uint64_t *acc, int64_t ax, int64_t ay, int64_t bx, int64_t by)
{
	return jf_sat(acc, f2d_wround16(f2d_wadd(f2d_wmul(ax, bx), f2d_wmul(ay, by))));
}
static inline int64_t jf_cross(uint64_t *acc, int64_t ax, int64_t ay, int64_t bx, int64_t by)
{
	return jf_sat(acc, f2d_wround16(f2d_wsub(f2d_wmul(ax, by), f2d_wmul(ay, bx))));
}
/* jx_point_velocity */
static inline void jf_point_velocity(uint64_t *acc, jfv v, f2d_vec2 r, int64_t *ox, int64_t *oy)
{
	*ox = jf_sat(acc, f2d_wsub(v.x, f2d_wround16(f2d_wmul(v.w, r.y))));
	*oy = jf_sat(acc, f2d_wadd(v.y, f2d_wround16(f2d_wmul(v.w, r.x))));
}
/* jx_apply on the locals */
static inline void jf_apply(uint64_t *acc, jfv *va, jfv *vb, const f2d_body *a, const f2d_body *b,
                            int64_t px, int64_t py, int64_t la, int64_t lb)
{
	va->x = jf_sat(acc, f2d_wsub(va->x, f2d_wround16(f2d_wmul(a->inv_mass, px))));
	va->y = jf_sat(acc, f2d_wsub(va->y, f2d_wround16(f2d_wmul(a->inv_mass, py))));
	va->w = jf_sat(acc, f2d_wsub(va->w, f2d_wround16(f2d_wmul(a->inv_inertia, la))));
	vb->x = jf_sat(acc, f2d_wadd(vb->x, f2d_wround16(f2d_wmul(b->inv_mass, px))));
	vb->y = jf_sat(acc, f2d_wadd(vb->y, f2d_wround16(f2d_wmul(b->inv_mass, py))));
	vb->w = jf_sat(acc, f2d_wadd(vb->w, f2d_wround16(f2d_wmul(b->inv_inertia, lb))));
}
/* jx_apply_point */
static inline void jf_apply_point(uint64_t *acc, jfv *va, jfv *vb, const f2d_body *a,
                                  const f2d_body *b, f2d_vec2 ra, f2d_vec2 rb, int64_t px,
                                  int64_t py, int64_t axial)
{
	int64_t la = jf_add(acc, jf_cross(acc, ra.x, ra.y, px, py), axial);
	int64_t lb = jf_add(acc, jf_cross(acc, rb.x, rb.y, px, py), axial);
	jf_apply(acc, va, vb, a, b, px, py, la, lb);
}
/* f2d_soft_impulse */
static inline int64_t jf_soft_impulse(uint64_t *acc, const fix16_t soft[3], int64_t mass,
                                      int64_t cdot, int64_t c, int64_t accumulated)
{
	int64_t v = jf_add(acc, cdot, jf_mul(acc, soft[SOFT_BIAS], c));
	int64_t t = jf_mul(acc, mass, v);
	return jf_sat(acc, f2d_wsub(f2d_wsub(0, jf_mul(acc, soft[SOFT_MASS], t)),
	                            jf_mul(acc, soft[SOFT_IMPULSE], accumulated)));
}
/* f2d_limit_impulse on the locals: *accumulated is the local accumulated impulse */
int64_t jf_limit_impulse(const f2d_world *w, uint64_t *acc, int64_t mass, int64_t cdot, int64_t c,
                         int64_t *accumulated);

/* the axial impulse l of the distance, prismatic and wheel joints (f2d_slider_apply_axial):
 * P = l a, L_a = l a1, L_b = l a2 */
static inline void jf_apply_axial(uint64_t *acc, jfv *va, jfv *vb, const f2d_body *a,
                                  const f2d_body *b, const f2d_joint *j, int64_t l)
{
	jf_apply(acc, va, vb, a, b, jf_mul(acc, l, j->w_axis.x), jf_mul(acc, l, j->w_axis.y),
	         jf_mul(acc, l, j->a1), jf_mul(acc, l, j->a2));
}
/* the accumulated axial impulses in locals */
typedef struct jfimp {
	int64_t motor, spring, lower, upper;
} jfimp;
/* a motor step on locals: l = the unclamped increment; the accumulated impulse is kept
 * within +-max_motor_torque h; returns the applied increment */
static inline int64_t jf_motor_clamp(uint64_t *acc, const f2d_world *w, const f2d_joint *j,
                                     int64_t l, int64_t *accumulated)
{
	int64_t max = jf_mul(acc, j->max_motor_torque, w->h);
	int64_t old = *accumulated;
	int64_t next = f2d_wadd(old, l);
	*accumulated = next < f2d_wsub(0, max) ? f2d_wsub(0, max) : (next > max ? max : next);
	return jf_sat(acc, f2d_wsub(*accumulated, old));
}
/* f2d_slider_axial_cdot */
static inline int64_t jf_slider_cdot(uint64_t *acc, const f2d_joint *j, jfv va, jfv vb)
{
	int64_t dx = jf_sub(acc, vb.x, va.x), dy = jf_sub(acc, vb.y, va.y);
	return jf_sat(
	    acc, f2d_wadd(jf_dot(acc, j->w_axis.x, j->w_axis.y, dx, dy),
	                  f2d_wround16(f2d_wsub(f2d_wmul(j->a2, vb.w), f2d_wmul(j->a1, va.w)))));
}
/* f2d_slider_solve_axial on locals */
static inline void jf_slider_solve_axial(uint64_t *acc, const f2d_world *w, const f2d_joint *j,
                                         jfv *va, jfv *vb, const f2d_body *a, const f2d_body *b,
                                         bool motor, jfimp *im)
{
	if (motor && j->enable_motor) {
		int64_t cdot = jf_slider_cdot(acc, j, *va, *vb);
		int64_t l = jf_mul(acc, j->axial_mass, jf_sub(acc, j->motor_speed, cdot));
		jf_apply_axial(acc, va, vb, a, b, j, jf_motor_clamp(acc, w, j, l, &im->motor));
	}
	if (j->enable_spring && j->hertz > 0) {
		int64_t cdot = jf_slider_cdot(acc, j, *va, *vb);
		int64_t l =
		    jf_soft_impulse(acc, j->soft, j->axial_mass, cdot, j->translation, im->spring);
		im->spring = jf_add(acc, im->spring, l);
		jf_apply_axial(acc, va, vb, a, b, j, l);
	}
	if (j->enable_limit) {
		int64_t cdot = jf_slider_cdot(acc, j, *va, *vb);
		int64_t l = jf_limit_impulse(w, acc, j->axial_mass, cdot,
		                             jf_sub(acc, j->translation, j->lower), &im->lower);
		jf_apply_axial(acc, va, vb, a, b, j, l);
		cdot = jf_slider_cdot(acc, j, *va, *vb);
		l = jf_limit_impulse(w, acc, j->axial_mass, f2d_wsub(0, cdot),
		                     jf_sub(acc, j->upper, j->translation), &im->upper);
		jf_apply_axial(acc, va, vb, a, b, j, f2d_wsub(0, l));
	}
}

/* ---- soft constraints ---- */
/** exp(-y) for y >= 0 and cos(z) for z in [0, 2], Q30 in and out, integer polynomials (error
 *  bounds at f2d_make_soft in joint_common.c: < 4 and < 12 LSB). */
int64_t f2d_exp_neg_q30(int64_t y);
int64_t f2d_cos_q30(int64_t z);
/** Box2D v3's b2MakeSoft(hertz, zeta, h) in Q16: soft[SOFT_BIAS] = bias rate (1/s),
 *  soft[SOFT_MASS] = mass scale, soft[SOFT_IMPULSE] = impulse scale. hertz 0: (0, 1, 0). */
void f2d_make_soft(fix16_t hertz, fix16_t zeta, fix16_t h, fix16_t soft[3]);
/** f2d_make_soft(hertz, zeta, h, out) through the joint's cache `which` (0: soft, 1: soft2):
 *  the matched coefficients cost a few hundred operations, and they change only when the
 *  spring or the step does. */
void f2d_joint_make_soft(f2d_joint *j, int which, fix16_t hertz, fix16_t zeta, fix16_t h,
                         fix16_t out[3]);
/** The rigid joints' softness: hertz = half the step rate, zeta = 2 (constants, see there). */
void f2d_rigid_soft(const f2d_world *w, fix16_t soft[3]);
/** One soft scalar impulse: -ms m (cdot + bias_rate c) - is accumulated (c = 0: no bias). */
fix16_t f2d_soft_impulse(f2d_world *w, const fix16_t soft[3], fix16_t mass, fix16_t cdot, fix16_t c,
                         fix16_t accumulated);
/** One side of a limit (Box2D v3): c > 0 speculative (bias c / h, rigid), else the rigid
 *  softness; the accumulated impulse stays >= 0. Returns the increment. */
fix16_t f2d_limit_impulse(f2d_world *w, fix16_t mass, fix16_t cdot, fix16_t c,
                          fix16_t *accumulated);
/** Relative angle B - A - reference, wound into [-pi, pi]. */
fix16_t f2d_joint_relative_angle(const f2d_body *a, const f2d_body *b, fix16_t reference);
/** K^-1 of the 2x2 point constraint (joint.c's point_mass), for the weld, motor and mouse. */
void f2d_point_mass_inverse(f2d_world *w, const f2d_body *a, const f2d_body *b, f2d_vec2 ra,
                            f2d_vec2 rb, fix16_t *m11, fix16_t *m12, fix16_t *m22);
/** Prismatic/wheel block [perpendicular, angle]: K = [mA + mB + iA s1^2 + iB s2^2,
 *  iA s1 + iB s2; ., iA + iB], inverted (k22 = 1 when neither body turns). */
void f2d_joint_block_inverse(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t s1,
                             fix16_t s2, fix16_t *m11, fix16_t *m12, fix16_t *m22);
/** 1 / (mA + mB + iA c1^2 + iB c2^2): the effective mass along an axis (c: arm x axis). */
fix16_t f2d_joint_axial_mass(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t c1,
                             fix16_t c2);
/* f2d_inverse22_fits, f2d_inverse1_fits: whether the inverse m of an earlier K still fits the
 * current K (entries in Q16); false for a k at or beyond 2^31.
 * The soft step's substeps (and its position passes) keep the effective masses of the step's
 * first substep while they still invert the current K well enough (Box2D v3 keeps its axial
 * masses of b2PrepareJointsTask for the step and builds its 2x2 K, inverted by a float
 * division, in every solve; fix2d's exact 2x2 inverses are what cost). With E = M K - I,
 * the iteration lambda += M (b - K lambda) that the velocity passes run on a constraint
 * converges as long as E's norm is below 1 (error_next = -E error); the test asks for a max
 * row sum of |E| <= 1/2 (a norm bound of E, so the step-start masses leave at most half of an
 * error that the exact masses would remove at once). Without it a 0.2 m bob on a 7 m arm
 * (test_joint_range) saturates: its K is so anisotropic (r^2 / I against 1 / m) that a turn of
 * 0.03 rad within a step makes the step-start inverse overshoot perpendicular to the arm; the
 * rounded inverse of such a K may never pass, and is then computed in every substep as before.
 * Exact in 64 bits: with |k| < 2^31 and |m| < 2^31 each product is below 2^62, the sum of two
 * below 2^63; a larger k (beyond 32768 in Q16: the range edges) does not pass. */
#define FIT_K_LIMIT ((int64_t)1 << 31)
#define FIT_ROW ((int64_t)1 << 31) /* 1/2 in Q32 */

static inline uint64_t fit_abs64(int64_t x)
{
	return x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
}

static inline bool f2d_inverse22_fits(fix16_t m11, fix16_t m12, fix16_t m22, int64_t k11,
                                      int64_t k12, int64_t k22)
{
	if (k11 >= FIT_K_LIMIT || k22 >= FIT_K_LIMIT || k12 >= FIT_K_LIMIT || k12 <= -FIT_K_LIMIT ||
	    k11 < 0 || k22 < 0) {
		return false;
	}
	const int64_t one = (int64_t)1 << 32; /* Q32 */
	int64_t e11 = (int64_t)m11 * k11 + (int64_t)m12 * k12 - one;
	int64_t e12 = (int64_t)m11 * k12 + (int64_t)m12 * k22;
	int64_t e21 = (int64_t)m12 * k11 + (int64_t)m22 * k12;
	int64_t e22 = (int64_t)m12 * k12 + (int64_t)m22 * k22 - one;
	/* each |e| <= 2^63, so each row sum of two fits 64 unsigned bits */
	return fit_abs64(e11) + fit_abs64(e12) <= (uint64_t)FIT_ROW &&
	       fit_abs64(e21) + fit_abs64(e22) <= (uint64_t)FIT_ROW;
}

static inline bool f2d_inverse1_fits(fix16_t m, int64_t k)
{
	if (k >= FIT_K_LIMIT || k < 0) {
		return false;
	}
	return fit_abs64((int64_t)m * k - ((int64_t)1 << 32)) <= (uint64_t)FIT_ROW;
}

/** f2d_point_mass_inverse, f2d_joint_block_inverse and f2d_joint_axial_mass of the current
 *  arms, computed again only when the masses of the step (in *m, mass) no longer fit. */
void f2d_point_mass_update(f2d_world *w, const f2d_body *a, const f2d_body *b, f2d_vec2 ra,
                           f2d_vec2 rb, fix16_t *m11, fix16_t *m12, fix16_t *m22);
void f2d_joint_block_update(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t s1,
                            fix16_t s2, fix16_t *m11, fix16_t *m12, fix16_t *m22);
fix16_t f2d_joint_axial_mass_update(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t c1,
                                    fix16_t c2, fix16_t mass);
/** (c_b + r_b) - (c_a + r_a), each component saturated (silently). */
f2d_vec2 f2d_joint_anchor_gap(const f2d_body *a, const f2d_body *b, f2d_vec2 ra, f2d_vec2 rb);
/** The arms r = R(q) (local anchor - local centre) of both bodies into j->r_a, j->r_b. */
void f2d_joint_arms(f2d_world *w, f2d_joint *j);

/* ---- dispatch from joint.c (j->type != F2D_REVOLUTE_JOINT) ---- */
void f2d_joint_ext_prestep(f2d_world *w, f2d_joint *j);
void f2d_joint_ext_substep(f2d_world *w, f2d_joint *j);
void f2d_joint_ext_warm_start(f2d_world *w, f2d_joint *j);
void f2d_joint_ext_solve(f2d_world *w, f2d_joint *j);

/* per type: prestep (arms, masses, softness, errors), warm start, one velocity iteration;
 * _substep: the soft step's pre-step of substeps 2..n, the part of the prestep that the
 * positions change (arms, axes, position errors; the prestep runs it first) */
void f2d_distance_substep(f2d_world *w, f2d_joint *j);
void f2d_prismatic_substep(f2d_world *w, f2d_joint *j);
void f2d_weld_substep(f2d_world *w, f2d_joint *j);
void f2d_wheel_substep(f2d_world *w, f2d_joint *j);
void f2d_motor_joint_substep(f2d_world *w, f2d_joint *j);
void f2d_mouse_substep(f2d_world *w, f2d_joint *j);
void f2d_slider_substep(f2d_world *w, f2d_joint *j);
void f2d_distance_prestep(f2d_world *w, f2d_joint *j);
void f2d_distance_warm_start(f2d_world *w, f2d_joint *j);
void f2d_distance_solve(f2d_world *w, f2d_joint *j);
void f2d_prismatic_prestep(f2d_world *w, f2d_joint *j);
void f2d_prismatic_warm_start(f2d_world *w, f2d_joint *j);
void f2d_prismatic_solve(f2d_world *w, f2d_joint *j);
void f2d_weld_prestep(f2d_world *w, f2d_joint *j);
void f2d_weld_warm_start(f2d_world *w, f2d_joint *j);
void f2d_weld_solve(f2d_world *w, f2d_joint *j);
void f2d_wheel_prestep(f2d_world *w, f2d_joint *j);
void f2d_wheel_warm_start(f2d_world *w, f2d_joint *j);
void f2d_wheel_solve(f2d_world *w, f2d_joint *j);
void f2d_motor_joint_prestep(f2d_world *w, f2d_joint *j);
void f2d_motor_joint_warm_start(f2d_world *w, f2d_joint *j);
void f2d_motor_joint_solve(f2d_world *w, f2d_joint *j);
void f2d_mouse_prestep(f2d_world *w, f2d_joint *j);
void f2d_mouse_warm_start(f2d_world *w, f2d_joint *j);
void f2d_mouse_solve(f2d_world *w, f2d_joint *j);

/* prismatic and wheel joints' axial part (joint_prismatic.c) */
void f2d_slider_prestep(f2d_world *w, f2d_joint *j);
void f2d_slider_apply_axial(f2d_world *w, const f2d_joint *j, f2d_body *a, f2d_body *b, fix16_t l);
fix16_t f2d_slider_axial_cdot(f2d_world *w, const f2d_joint *j, const f2d_body *a,
                              const f2d_body *b);
void f2d_slider_solve_axial(f2d_world *w, f2d_joint *j, f2d_body *a, f2d_body *b, bool motor);

/* the soft point constraint of the weld, motor and mouse joints (joint_weld.c) */
f2d_vec2 f2d_soft_point(f2d_world *w, const f2d_joint *j, const fix16_t soft[3], f2d_vec2 v,
                        f2d_vec2 acc);
f2d_vec2 f2d_point_cdot(f2d_world *w, const f2d_joint *j, const f2d_body *a, const f2d_body *b);

/* ---- reaction (per type; impulses of the last step, divided by h in joint_common.c) ---- */
/** The linear impulse on B (world frame) and the angular impulse on B of the last step. */
void f2d_joint_ext_reaction(const f2d_world *w, const f2d_joint *j, f2d_vec2 *linear,
                            fix16_t *angular);

/* ---- creation and validation (joint_common.c) ---- */
/** Checks a joint record (from a def or a snapshot) of type != 0 given its bodies' types:
 *  NULL when valid, else what is wrong (a sentence for the error message). Every field that
 *  the type does not use must be zero (one state, one encoding). */
const char *f2d_joint_ext_check(const f2d_joint *j, f2d_body_type ta, f2d_body_type tb);
/** Validates the common part (bodies, anchors, effective mass) and the type's fields, then
 *  allocates the joint and copies proto into it (f2d_joint_insert). */
f2d_result f2d_joint_ext_create(f2d_world *w, const f2d_joint *proto, f2d_body_id a, f2d_body_id b,
                                const char *what, f2d_joint_id *out);
/** The checks every joint's creation starts with, in this order, each with its message
 *  ("<what>: ..."): live handles, two different bodies, one of them dynamic, local anchors in
 *  range. Sets *ba and *bb on success. */
f2d_result f2d_joint_check_bodies(f2d_world *w, f2d_body_id a, f2d_body_id b, f2d_vec2 local_a,
                                  f2d_vec2 local_b, const char *what, const f2d_body **ba,
                                  const f2d_body **bb);
/** One body's part of tr(K) for a point constraint at local_anchor: 1/m + |r|^2 / I. */
int64_t f2d_joint_mass_trace(const f2d_body *b, f2d_vec2 local_anchor);
/** The end of every joint's creation, once its def is checked: room for the end events of the
 *  contacts it turns off (unless collide_connected), an id from the pool, the slot set to
 *  proto (alive, bodies a and b, the slot's generation or 1), attached to its bodies. */
f2d_result f2d_joint_insert(f2d_world *w, const f2d_joint *proto, f2d_body_id a, f2d_body_id b,
                            const char *what, f2d_joint_id *out);

/* ---- the revolute joint's passes and lanes (joint.c, joint_lanes.c) ----
 * What a pass over the coloured joints does: the warm start, a velocity iteration, or the soft
 * step's relax iteration (f2d_joints_relax). */
typedef enum f2d_joint_pass { F2D_PASS_WARM, F2D_PASS_SOLVE, F2D_PASS_RELAX } f2d_joint_pass;

/** One joint's relax iteration (joint.c; rigid: f2d_rigid_soft's triple). */
void f2d_joint_relax(f2d_world *w, f2d_joint *j, const fix16_t rigid[3]);

/* One joint by the scalar code: its warm start, one velocity iteration or its relax
 * iteration (rigid: read by F2D_PASS_RELAX only). */
static inline void f2d_joint_pass_scalar(f2d_world *w, f2d_joint *j, f2d_joint_pass pass,
                                         const fix16_t rigid[3])
{
	if (pass == F2D_PASS_WARM) {
		f2d_joint_warm_start(w, j);
	} else if (pass == F2D_PASS_SOLVE) {
		f2d_joint_solve(w, j);
	} else {
		f2d_joint_relax(w, j, rigid);
	}
}

/** K^-1 of the revolute point constraint's K (entries in Q16; joint.c's point_inverse). */
void f2d_revolute_inverse(f2d_world *w, int64_t k11, int64_t k12, int64_t k22, fix16_t *m11,
                          fix16_t *m12, fix16_t *m22);

/* The gap the revolute joint's position passes leave to the velocity bias: linear_slop / 16
 * (0.6 mm by default). A projection of a gap that small is mostly rounding (a 2 m arm turns
 * 3e-5 m per LSB of its rotation), and moving a light, small-inertia body by it every step
 * takes its energy: a 2 m pendulum with an r 0.05 m bob lost 5-25 % of its amplitude in 30 s.
 * Below the tolerance the Baumgarte bias of the velocity solve closes the gap (a bias no
 * larger than beta / h * tol, 7 mm/s, which feeds no measurable energy into chains); above
 * it, a pass moves the bodies. */
static inline fix16_t f2d_joint_tolerance(const f2d_world *w)
{
	return w->def.linear_slop / 16;
}

/* The revolute joint's test-only path counters (F2D_JOINT_COUNT_PATHS, see joint.c's "fast
 * path"): warm start fast, warm start exact, solve fast, solve exact (joint.c); the substep
 * geometry in lanes: lanes done in lanes, lanes whose bias check failed (f2d_joint_substep
 * instead), lanes whose K^-1 was inverted again (joint_lanes.c). Not thread-safe. */
#ifdef F2D_JOINT_COUNT_PATHS
extern uint64_t f2d_joint_path_counts[4];
extern uint64_t f2d_joint_substep_counts[3];
#define JR_COUNT_PATH(i) (f2d_joint_path_counts[i]++)
#define JR_COUNT_SUBSTEP(i) (f2d_joint_substep_counts[i]++)
#else
#define JR_COUNT_PATH(i) ((void)0)
#define JR_COUNT_SUBSTEP(i) ((void)0)
#endif

/* The coloured joints' batches in SIMD lanes (joint_lanes.c): f2d_joints_prestep (kept: the
 * colouring is the last one's, so are the batches' layout), f2d_joints_substep and one pass
 * over the joints (last: the lanes' impulses go back to their joints). Each returns false,
 * having done nothing, where no SIMD kernel runs: then the caller runs the scalar code. */
bool f2d_joint_lanes_prestep(f2d_world *w, int32_t n, bool kept);
bool f2d_joint_lanes_substep(f2d_world *w);
bool f2d_joint_lanes_pass(f2d_world *w, f2d_joint_pass pass, bool last, const fix16_t rigid[3]);

#endif
