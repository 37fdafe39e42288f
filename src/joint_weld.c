/* fix2d weld joint (Box2D v3's b2WeldJoint): B glued to A, rigid or soft (linear and angular
 * springs).
 * SPDX-License-Identifier: MIT
 *
 * Angular: C = angle_b - angle_a - reference, Cdot = w_b - w_a, J = [0, -1, 0, 1],
 *   K = 1/I_a + 1/I_b (axial_mass = 1/K).
 * Linear (the revolute joint's point constraint, derived at joint.c's f2d_joint_prestep):
 *   C = (c_b + r_b) - (c_a + r_a), Cdot = v_b + w_b x r_b - v_a - w_a x r_a,
 *   J = [-I, -skew(r_a), I, skew(r_b)], K = (1/m_a + 1/m_b) I + 1/I_a [r_a.y^2, -r_a.x r_a.y;
 *   ., r_a.x^2] + (b), impulse P on B (-P on A), angular r x P.
 * Each soft: lambda = -ms K^-1 (Cdot + bias_rate C) - is accumulated, with the spring's
 * softness when its frequency is > 0, else the rigid softness. Angular first, then linear (as
 * Box2D v3; not a 3x3 block). Accumulated: angular_impulse, impulse (linear).
 */
#include "joint_internal.h"

void f2d_weld_prestep(f2d_world *w, f2d_joint *j)
{
	f2d_joint_arms(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->c_lin = f2d_joint_anchor_gap(a, b, j->r_a, j->r_b);
	j->c_ang = f2d_joint_relative_angle(a, b, j->reference_angle);
	j->axial_mass = jx_inv(w, (int64_t)a->inv_inertia + b->inv_inertia);
	f2d_point_mass_inverse(w, a, b, j->r_a, j->r_b, &j->k11, &j->k12, &j->k22);
	if (j->hertz > 0) {
		f2d_make_soft(j->hertz, j->damping_ratio, w->h, j->soft);
	} else {
		f2d_rigid_soft(w, j->soft);
	}
	if (j->angular_hertz > 0) {
		f2d_make_soft(j->angular_hertz, j->angular_damping_ratio, w->h, j->soft2);
	} else {
		f2d_rigid_soft(w, j->soft2);
	}
	if (!w->def.warm_starting) {
		j->impulse = f2d_v(0, 0);
		j->angular_impulse = 0;
	}
}

void f2d_weld_warm_start(f2d_world *w, f2d_joint *j)
{
	jx_apply_point(w, &w->bodies[j->body_a], &w->bodies[j->body_b], j->r_a, j->r_b, j->impulse,
	               j->angular_impulse);
}

/* One soft point constraint (weld, motor and mouse joints share the algebra): returns the
 * increment -ms K^-1 (cdot + bias) - is accumulated, K^-1 = (k11, k12, k22). */
f2d_vec2 f2d_soft_point(f2d_world *w, const f2d_joint *j, const fix16_t soft[3], f2d_vec2 v,
                        f2d_vec2 acc)
{
	/* |k|, |v| < 2^31: each product < 2^62, the sums < 2^63 */
	fix16_t b1 = jx_sat(w, f2d_round16((int64_t)j->k11 * v.x + (int64_t)j->k12 * v.y));
	fix16_t b2 = jx_sat(w, f2d_round16((int64_t)j->k12 * v.x + (int64_t)j->k22 * v.y));
	return f2d_v(jx_sat(w, -(int64_t)jx_mul(w, soft[SOFT_MASS], b1) -
	                           jx_mul(w, soft[SOFT_IMPULSE], acc.x)),
	             jx_sat(w, -(int64_t)jx_mul(w, soft[SOFT_MASS], b2) -
	                           jx_mul(w, soft[SOFT_IMPULSE], acc.y)));
}

/* Cdot of the point constraint: (v_b + w_b x r_b) - (v_a + w_a x r_a) */
f2d_vec2 f2d_point_cdot(f2d_world *w, const f2d_joint *j, const f2d_body *a, const f2d_body *b)
{
	f2d_vec2 va = jx_point_velocity(w, a, j->r_a), vb = jx_point_velocity(w, b, j->r_b);
	return f2d_v(jx_sub(w, vb.x, va.x), jx_sub(w, vb.y, va.y));
}

void f2d_weld_solve(f2d_world *w, f2d_joint *j)
{
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	fix16_t l = f2d_soft_impulse(w, j->soft2, j->axial_mass, jx_sub(w, b->w, a->w), j->c_ang,
	                             j->angular_impulse);
	j->angular_impulse = jx_add(w, j->angular_impulse, l);
	jx_apply(w, a, b, f2d_v(0, 0), l, l);

	f2d_vec2 cdot = f2d_point_cdot(w, j, a, b);
	f2d_vec2 v = f2d_v(jx_add(w, cdot.x, jx_mul(w, j->soft[SOFT_BIAS], j->c_lin.x)),
	                   jx_add(w, cdot.y, jx_mul(w, j->soft[SOFT_BIAS], j->c_lin.y)));
	f2d_vec2 p = f2d_soft_point(w, j, j->soft, v, j->impulse);
	j->impulse = f2d_v(jx_add(w, j->impulse.x, p.x), jx_add(w, j->impulse.y, p.y));
	jx_apply_point(w, a, b, j->r_a, j->r_b, p, 0);
}
