/* fix2d distance joint (Box2D v3's b2DistanceJoint): rigid, or a spring with min/max lengths
 * and a motor along the line between the anchors.
 * SPDX-License-Identifier: MIT
 *
 * Constraint: C = |d| - L, d = (c_b + r_b) - (c_a + r_a) (the anchors' gap), u = d / |d|.
 *   Cdot = u . (v_b + w_b x r_b - v_a - w_a x r_a)
 *        (d/dt |d| = u . d', and the rotation of u adds nothing along u)
 *   J = [-u, -(r_a x u), u, r_b x u]
 *   K = J M^-1 J^T = 1/m_a + 1/m_b + (r_a x u)^2 / I_a + (r_b x u)^2 / I_b
 *   an axial impulse lambda is P = lambda u on B (-P on A), angular lambda (r x u) on each.
 * Rigid (enable_spring false): lambda = soft(C = |d| - L) with the rigid softness.
 * Spring (enable_spring, hertz > 0): the same with the spring's softness; hertz 0 leaves the
 *   length free (a rope with enable_limit and max_length).
 * Limits (spring mode): lower C = |d| - min >= 0, upper C = max - |d| >= 0 (Cdot negated),
 *   each accumulated impulse >= 0, speculative while apart (f2d_limit_impulse).
 * Motor (spring mode): lambda = m (speed - Cdot), accumulated impulse within +-max_force h.
 * Solved in the order motor, spring, lower, upper (the limits last, so they win).
 * u and |d| are taken once per step in the pre-step (positions do not move during the velocity
 * iterations). Per-step fields: w_axis = u, translation = |d|, a1 = r_a x u, a2 = r_b x u,
 * axial_mass = 1/K, soft = the spring's, soft2 = rigid.
 */
#include "joint_internal.h"

/* what the positions change: arms, axis, length, the arms' crosses with the axis */
static void distance_geometry(f2d_world *w, f2d_joint *j)
{
	f2d_joint_arms(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	fix16_t len;
	j->w_axis = f2d_normalize(f2d_joint_anchor_gap(a, b, j->r_a, j->r_b), &len);
	j->translation = len;
	j->a1 = jx_cross(w, j->r_a, j->w_axis);
	j->a2 = jx_cross(w, j->r_b, j->w_axis);
}

/* the soft step's substeps 2..n: the geometry, the step's axial mass while it fits */
void f2d_distance_substep(f2d_world *w, f2d_joint *j)
{
	distance_geometry(w, j);
	j->axial_mass = f2d_joint_axial_mass_update(w, &w->bodies[j->body_a], &w->bodies[j->body_b],
	                                            j->a1, j->a2, j->axial_mass);
}

void f2d_distance_prestep(f2d_world *w, f2d_joint *j)
{
	distance_geometry(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->axial_mass = f2d_joint_axial_mass(w, a, b, j->a1, j->a2);
	f2d_joint_make_soft(j, 0, j->enable_spring ? j->hertz : 0, j->damping_ratio, w->h, j->soft);
	f2d_rigid_soft(w, j->soft2);
	if (!w->def.warm_starting) {
		j->impulse = f2d_v(0, 0);
		j->lower_impulse = j->upper_impulse = j->motor_impulse = 0;
	}
	if (!j->enable_spring || !j->enable_motor) {
		j->motor_impulse = 0;
	}
	if (!j->enable_spring || !j->enable_limit) {
		j->lower_impulse = j->upper_impulse = 0;
	}
	if (j->enable_spring && j->hertz == 0) {
		j->impulse.x = 0;
	}
}

/* lambda along u: P = lambda u, angular lambda a1 (A), lambda a2 (B) */
static void apply_axial(f2d_world *w, const f2d_joint *j, f2d_body *a, f2d_body *b, fix16_t l)
{
	f2d_vec2 p = f2d_v(jx_mul(w, l, j->w_axis.x), jx_mul(w, l, j->w_axis.y));
	jx_apply(w, a, b, p, jx_mul(w, l, j->a1), jx_mul(w, l, j->a2));
}

/* fast paths (joint_internal.h): the expressions of the exact path below on locals */
static bool distance_warm_start_fast(f2d_joint *j, f2d_body *a, f2d_body *b)
{
	uint64_t acc = 0;
	jfv va = jf_load(a), vb = jf_load(b);
	int64_t l = jf_sat(&acc, (int64_t)j->impulse.x + j->lower_impulse - j->upper_impulse +
	                             j->motor_impulse);
	jf_apply_axial(&acc, &va, &vb, a, b, j, l);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	jf_store(a, va);
	jf_store(b, vb);
	return true;
}

/* axial_cdot on locals */
static inline int64_t jf_axial_cdot(uint64_t *acc, const f2d_joint *j, jfv va, jfv vb)
{
	int64_t ax, ay, bx, by;
	jf_point_velocity(acc, va, j->r_a, &ax, &ay);
	jf_point_velocity(acc, vb, j->r_b, &bx, &by);
	return jf_dot(acc, j->w_axis.x, j->w_axis.y, jf_sub(acc, bx, ax), jf_sub(acc, by, ay));
}

static bool distance_solve_fast(const f2d_world *w, f2d_joint *j, f2d_body *a, f2d_body *b)
{
	uint64_t acc = 0;
	jfv va = jf_load(a), vb = jf_load(b);
	int64_t imp = j->impulse.x, motor = j->motor_impulse, lower = j->lower_impulse,
	        upper = j->upper_impulse;
	int64_t len = j->translation;
	if (!j->enable_spring) {
		int64_t cdot = jf_axial_cdot(&acc, j, va, vb);
		int64_t l = jf_soft_impulse(&acc, j->soft2, j->axial_mass, cdot,
		                            jf_sub(&acc, len, j->length), imp);
		imp = jf_add(&acc, imp, l);
		jf_apply_axial(&acc, &va, &vb, a, b, j, l);
	} else {
		if (j->enable_motor) {
			int64_t cdot = jf_axial_cdot(&acc, j, va, vb);
			int64_t l = jf_mul(&acc, j->axial_mass, jf_sub(&acc, j->motor_speed, cdot));
			jf_apply_axial(&acc, &va, &vb, a, b, j,
			               jf_motor_clamp(&acc, w, j, l, &motor));
		}
		if (j->hertz > 0) {
			int64_t cdot = jf_axial_cdot(&acc, j, va, vb);
			int64_t l = jf_soft_impulse(&acc, j->soft, j->axial_mass, cdot,
			                            jf_sub(&acc, len, j->length), imp);
			imp = jf_add(&acc, imp, l);
			jf_apply_axial(&acc, &va, &vb, a, b, j, l);
		}
		if (j->enable_limit) {
			int64_t cdot = jf_axial_cdot(&acc, j, va, vb);
			int64_t l = jf_limit_impulse(w, &acc, j->axial_mass, cdot,
			                             jf_sub(&acc, len, j->lower), &lower);
			jf_apply_axial(&acc, &va, &vb, a, b, j, l);
			cdot = jf_axial_cdot(&acc, j, va, vb);
			l = jf_limit_impulse(w, &acc, j->axial_mass, f2d_wsub(0, cdot),
			                     jf_sub(&acc, j->upper, len), &upper);
			jf_apply_axial(&acc, &va, &vb, a, b, j, f2d_wsub(0, l));
		}
	}
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	j->impulse.x = (fix16_t)imp;
	j->motor_impulse = (fix16_t)motor;
	j->lower_impulse = (fix16_t)lower;
	j->upper_impulse = (fix16_t)upper;
	jf_store(a, va);
	jf_store(b, vb);
	return true;
}

void f2d_distance_warm_start(f2d_world *w, f2d_joint *j)
{
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (JF_FAST_PATH && distance_warm_start_fast(j, a, b)) {
		JF_COUNT(j, 0);
		return;
	}
	JF_COUNT(j, 1);
	apply_axial(w, j, a, b,
	            jx_sat(w, (int64_t)j->impulse.x + j->lower_impulse - j->upper_impulse +
	                          j->motor_impulse));
}

static fix16_t axial_cdot(f2d_world *w, const f2d_joint *j, const f2d_body *a, const f2d_body *b)
{
	f2d_vec2 va = jx_point_velocity(w, a, j->r_a), vb = jx_point_velocity(w, b, j->r_b);
	return jx_dot(w, j->w_axis, f2d_v(jx_sub(w, vb.x, va.x), jx_sub(w, vb.y, va.y)));
}

void f2d_distance_solve(f2d_world *w, f2d_joint *j)
{
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (JF_FAST_PATH && distance_solve_fast(w, j, a, b)) {
		JF_COUNT(j, 2);
		return;
	}
	JF_COUNT(j, 3);
	fix16_t len = j->translation;
	if (!j->enable_spring) {
		fix16_t cdot = axial_cdot(w, j, a, b);
		fix16_t l = f2d_soft_impulse(w, j->soft2, j->axial_mass, cdot,
		                             jx_sub(w, len, j->length), j->impulse.x);
		j->impulse.x = jx_add(w, j->impulse.x, l);
		apply_axial(w, j, a, b, l);
		return;
	}
	if (j->enable_motor) {
		fix16_t cdot = axial_cdot(w, j, a, b);
		fix16_t l = jx_mul(w, j->axial_mass, jx_sub(w, j->motor_speed, cdot));
		fix16_t max = jx_mul(w, j->max_motor_torque, w->h);
		fix16_t old = j->motor_impulse;
		int64_t next = (int64_t)old + l;
		j->motor_impulse = (fix16_t)(next < -max ? -max : (next > max ? max : next));
		apply_axial(w, j, a, b, jx_sat(w, (int64_t)j->motor_impulse - old));
	}
	if (j->hertz > 0) {
		fix16_t cdot = axial_cdot(w, j, a, b);
		fix16_t l = f2d_soft_impulse(w, j->soft, j->axial_mass, cdot,
		                             jx_sub(w, len, j->length), j->impulse.x);
		j->impulse.x = jx_add(w, j->impulse.x, l);
		apply_axial(w, j, a, b, l);
	}
	if (j->enable_limit) {
		fix16_t cdot = axial_cdot(w, j, a, b);
		fix16_t l = f2d_limit_impulse(w, j->axial_mass, cdot, jx_sub(w, len, j->lower),
		                              &j->lower_impulse);
		apply_axial(w, j, a, b, l);
		cdot = axial_cdot(w, j, a, b);
		l = f2d_limit_impulse(w, j->axial_mass, -cdot, jx_sub(w, j->upper, len),
		                      &j->upper_impulse);
		apply_axial(w, j, a, b, -l);
	}
}
