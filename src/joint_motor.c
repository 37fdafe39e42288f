/* fix2d motor joint (Box2D v3's b2MotorJoint): drives B's origin to A's origin + the linear
 * offset (in A's frame) and B's angle to A's + the angular offset, with a bounded force and
 * torque (top-down characters, moving platforms).
 * SPDX-License-Identifier: MIT
 *
 * The anchors are the body origins (local anchors 0), r = R(q) (0 - local centre).
 * Angular: C = angle_b - angle_a - angular_offset, Cdot = w_b - w_a, J = [0, -1, 0, 1],
 *   K = 1/I_a + 1/I_b; lambda = -K^-1 (Cdot + cf C / h), accumulated within +-max_torque h.
 * Linear: C = (c_b + r_b) - (c_a + r_a) - R(q_a) offset (R(q_a) offset frozen for the step, as
 *   Box2D), Cdot and K of the point constraint (joint.c's f2d_joint_prestep);
 *   P = -K^-1 (Cdot + cf C / h), the accumulated impulse kept within a disc of radius
 *   max_force h (scaled back along itself when longer: |P| exact, each component rounded).
 * cf is the correction factor (share of the error removed per step), h in cf / h is the STEP,
 * time_step, under both solvers; h in max_force h and max_torque h is the solve's (the step's
 * or the substep's, the span of the accumulated impulse). Accumulated: angular_impulse,
 * impulse.
 *
 * Why cf / time_step and not cf / substep (Box2D v3.0's b2SolveMotorJoint takes its substep
 * inv_h): the bias asks for the velocity -cf C / h, so the error decays at the rate cf / h,
 * and where max_force binds the joint is a relay on s = Cdot + (cf / h) C, which reverses the
 * force only once s changes sign: the switching line Cdot = -(cf / h) C. With the substep's h
 * (4 substeps: 72 /s at cf 0.3, 60 Hz) the line lies almost on C = 0: the box reached the
 * target at 8 m/s and braked with 20 N from there, overshot 2.5 m and kept swinging (the
 * test motor_joint_reaches_target: (3.83, 2.55) after 300 steps instead of (3, 2)). With the
 * step's h the rate is 18 /s under both solvers (the Gauss-Seidel solver's, where it always
 * was the step's), cf keeps its documented meaning whatever substep_count, and the box settles
 * on the target. 1 / time_step is the world's exact quotient (world.c: w->inv_h outside the
 * soft step, the same expression), <= 1000 in Q16: cf h^-1 <= 1000, exact in jx_mul.
 */
#include "joint_internal.h"

/* what the positions change: arms, the offset error and the angle error */
static void motor_geometry(f2d_world *w, f2d_joint *j)
{
	f2d_joint_arms(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	f2d_vec2 gap = f2d_joint_anchor_gap(a, b, j->r_a, j->r_b);
	f2d_vec2 off = f2d_rotate(a->q, j->axis);
	j->c_lin = f2d_v(f2d_sat((int64_t)gap.x - off.x), f2d_sat((int64_t)gap.y - off.y));
	j->c_ang = f2d_joint_relative_angle(a, b, j->reference_angle);
}

/* the soft step's substeps 2..n: the geometry, the step's K^-1 while it fits */
void f2d_motor_joint_substep(f2d_world *w, f2d_joint *j)
{
	motor_geometry(w, j);
	f2d_point_mass_update(w, &w->bodies[j->body_a], &w->bodies[j->body_b], j->r_a, j->r_b,
	                      &j->k11, &j->k12, &j->k22);
}

void f2d_motor_joint_prestep(f2d_world *w, f2d_joint *j)
{
	motor_geometry(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->axial_mass = jx_inv(w, (int64_t)a->inv_inertia + b->inv_inertia);
	f2d_point_mass_inverse(w, a, b, j->r_a, j->r_b, &j->k11, &j->k12, &j->k22);
	j->soft[SOFT_BIAS] =
	    jx_mul(w, j->correction_factor, f2d_div_exact((int64_t)1 << 16, w->def.time_step));
	if (!w->def.warm_starting) {
		j->impulse = f2d_v(0, 0);
		j->angular_impulse = 0;
	}
}

void f2d_motor_joint_warm_start(f2d_world *w, f2d_joint *j)
{
	JF_COUNT(j, 1); /* exact path only */
	jx_apply_point(w, &w->bodies[j->body_a], &w->bodies[j->body_b], j->r_a, j->r_b, j->impulse,
	               j->angular_impulse);
}

/* round(x m / len) for |x| <= len (so the result is within |m|), half away from zero */
static fix16_t scale_to(fix16_t x, fix16_t m, fix16_t len)
{
	uint64_t ux = x < 0 ? (uint64_t)(-(int64_t)x) : (uint64_t)x;
	uint64_t q = (ux * (uint64_t)m + (uint64_t)len / 2) / (uint64_t)len;
	return x < 0 ? -(fix16_t)q : (fix16_t)q;
}

/* Keeps the accumulated vector impulse *acc within |acc| <= max (>= 0); shared with the mouse
 * joint. */
void f2d_clamp_impulse_disc(f2d_vec2 *acc, fix16_t max)
{
	int64_t l2 = f2d_dot64(*acc, *acc); /* < 2^63 for fix16 components above INT32_MIN */
	if (l2 <= (int64_t)max * max) {
		return;
	}
	fix16_t len = (fix16_t)f2d_isqrt64_round((uint64_t)l2); /* > max >= 0 */
	if (len <= 0) {
		return;
	}
	acc->x = scale_to(acc->x, max, len);
	acc->y = scale_to(acc->y, max, len);
}

void f2d_motor_joint_solve(f2d_world *w, f2d_joint *j)
{
	JF_COUNT(j, 3); /* exact path only */
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	fix16_t bias = j->soft[SOFT_BIAS]; /* cf / h */
	{
		fix16_t cdot = jx_add(w, jx_sub(w, b->w, a->w), jx_mul(w, bias, j->c_ang));
		fix16_t l = -jx_mul(w, j->axial_mass, cdot);
		fix16_t max = jx_mul(w, j->max_motor_torque, w->h);
		fix16_t old = j->angular_impulse;
		int64_t next = (int64_t)old + l;
		j->angular_impulse = (fix16_t)(next < -max ? -max : (next > max ? max : next));
		fix16_t d = jx_sat(w, (int64_t)j->angular_impulse - old);
		jx_apply(w, a, b, f2d_v(0, 0), d, d);
	}
	f2d_vec2 cdot = f2d_point_cdot(w, j, a, b);
	f2d_vec2 v = f2d_v(jx_add(w, cdot.x, jx_mul(w, bias, j->c_lin.x)),
	                   jx_add(w, cdot.y, jx_mul(w, bias, j->c_lin.y)));
	static const fix16_t hard[3] = {0, F2D_ONE, 0};
	f2d_vec2 p = f2d_soft_point(w, j, hard, v, f2d_v(0, 0));
	f2d_vec2 old = j->impulse;
	f2d_vec2 acc = f2d_v(jx_add(w, old.x, p.x), jx_add(w, old.y, p.y));
	f2d_clamp_impulse_disc(&acc, jx_mul(w, j->max_force, w->h));
	j->impulse = acc;
	p = f2d_v(jx_sub(w, acc.x, old.x), jx_sub(w, acc.y, old.y));
	jx_apply_point(w, a, b, j->r_a, j->r_b, p, 0);
}
