/* fix2d joints other than the revolute joint: what src/joint_common.c and the per-type files
 * (joint_distance.c, joint_prismatic.c, joint_weld.c, joint_wheel.c, joint_motor.c,
 * joint_mouse.c) share. src/joint.c only dispatches to f2d_joint_ext_* when j->type != 0.
 * SPDX-License-Identifier: MIT
 *
 * Arithmetic: every value is computed in 64 bits and saturated to the fix16 range with the
 * step's overflow report (F2D_ERROR_OVERFLOW), as the revolute joint's exact path: these joints
 * have only that path (no fast path), so every build computes the same bits by construction
 * (tests/test_solver_paths.c runs their scenes in each build anyway).
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
static inline void jx_apply_point(f2d_world *w, f2d_body *a, f2d_body *b, f2d_vec2 ra,
                                  f2d_vec2 rb, f2d_vec2 p, fix16_t axial)
{
	fix16_t la = jx_add(w, jx_cross(w, ra, p), axial);
	fix16_t lb = jx_add(w, jx_cross(w, rb, p), axial);
	jx_apply(w, a, b, p, la, lb);
}

/* ---- soft constraints ---- */
enum { SOFT_BIAS = 0, SOFT_MASS = 1, SOFT_IMPULSE = 2 };
/** Box2D v3's b2MakeSoft(hertz, zeta, h) in Q16: soft[SOFT_BIAS] = bias rate (1/s),
 *  soft[SOFT_MASS] = mass scale, soft[SOFT_IMPULSE] = impulse scale. hertz 0: (0, 1, 0). */
void f2d_make_soft(fix16_t hertz, fix16_t zeta, fix16_t h, fix16_t soft[3]);
/** The rigid joints' softness: hertz = half the step rate, zeta = 2 (constants, see there). */
void f2d_rigid_soft(const f2d_world *w, fix16_t soft[3]);
/** One soft scalar impulse: -ms m (cdot + bias_rate c) - is accumulated (c = 0: no bias). */
fix16_t f2d_soft_impulse(f2d_world *w, const fix16_t soft[3], fix16_t mass, fix16_t cdot,
                         fix16_t c, fix16_t accumulated);
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
/** (c_b + r_b) - (c_a + r_a), each component saturated (silently). */
f2d_vec2 f2d_joint_anchor_gap(const f2d_body *a, const f2d_body *b, f2d_vec2 ra, f2d_vec2 rb);
/** The arms r = R(q) (local anchor - local centre) of both bodies into j->r_a, j->r_b. */
void f2d_joint_arms(f2d_world *w, f2d_joint *j);

/* ---- dispatch from joint.c (j->type != F2D_REVOLUTE_JOINT) ---- */
void f2d_joint_ext_prestep(f2d_world *w, f2d_joint *j);
void f2d_joint_ext_warm_start(f2d_world *w, f2d_joint *j);
void f2d_joint_ext_solve(f2d_world *w, f2d_joint *j);

/* per type: prestep (arms, masses, softness, errors), warm start, one velocity iteration */
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
void f2d_slider_apply_axial(f2d_world *w, const f2d_joint *j, f2d_body *a, f2d_body *b,
                            fix16_t l);
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
 *  allocates the joint and copies proto into it (as f2d_create_revolute_joint does). */
f2d_result f2d_joint_ext_create(f2d_world *w, const f2d_joint *proto, f2d_body_id a,
                                f2d_body_id b, const char *what, f2d_joint_id *out);

#endif
