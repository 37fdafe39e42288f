/* fix2d prismatic joint (Box2D v3's b2PrismaticJoint): B slides along an axis fixed in A and
 * keeps its angle relative to A; limits, a motor and a spring along the axis.
 * SPDX-License-Identifier: MIT
 *
 * With d = (c_b + r_b) - (c_a + r_a) and the world axis a = R(q_a) local_axis (a unit):
 * Axial (motor, spring, limits): C = a . d (the translation).
 *   Cdot = a . (v_b + w_b x r_b - v_a - w_a x r_a) + d . (w_a x a)
 *        = a . (v_b - v_a) + (r_b x a) w_b - ((d + r_a) x a) w_a
 *   (a turns with A: da/dt = w_a x a, and d . (w_a x a) = -w_a (d x a))
 *   J = [-a, -a1, a, a2], a1 = (d + r_a) x a, a2 = r_b x a,
 *   K = 1/m_a + 1/m_b + a1^2 / I_a + a2^2 / I_b; lambda: P = lambda a, L_a = lambda a1,
 *   L_b = lambda a2 (v_a -= P/m_a, w_a -= L_a/I_a, v_b += P/m_b, w_b += L_b/I_b).
 * Perpendicular and angular (always, rigid): with p = perp(a) (left perpendicular),
 *   C1 = p . d, J1 = [-p, -s1, p, s2], s1 = (d + r_a) x p, s2 = r_b x p (the same algebra);
 *   C2 = angle_b - angle_a - reference, J2 = [0, -1, 0, 1];
 *   K = [1/m_a + 1/m_b + s1^2/I_a + s2^2/I_b, s1/I_a + s2/I_b; ., 1/I_a + 1/I_b]
 *   (J1 M^-1 J2^T = s1/I_a + s2/I_b), solved as a block: lambda = -ms K^-1 (Cdot + bias C)
 *   - is accumulated, P = lambda1 p, L_a = lambda1 s1 + lambda2, L_b = lambda1 s2 + lambda2.
 * Order: motor (lambda = m (speed - Cdot), accumulated within +-max_force h), spring (C = the
 * translation, rest at 0), lower and upper limits (f2d_limit_impulse), then the block.
 * Accumulated: motor_impulse, spring_impulse, lower/upper_impulse, impulse = (perp, angle).
 * Range: the arms' crosses s1, a1 of a moving A reach the distance between the bodies; beyond
 * ~181 m between two moving bodies s1^2 passes fix16 and the step saturates and reports.
 */
#include "joint_internal.h"

/* the axial and block data of a prismatic or wheel joint (shared with joint_wheel.c) */
static void slider_geometry(f2d_world *w, f2d_joint *j)
{
	f2d_joint_arms(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	f2d_vec2 d = f2d_joint_anchor_gap(a, b, j->r_a, j->r_b);
	f2d_vec2 axis = f2d_rotate(a->q, j->axis);
	f2d_vec2 perp = f2d_left_perp(axis);
	f2d_vec2 dra = f2d_v(f2d_sat((int64_t)d.x + j->r_a.x), f2d_sat((int64_t)d.y + j->r_a.y));
	j->w_axis = axis;
	j->translation = jx_dot(w, axis, d);
	j->c_lin = f2d_v(jx_dot(w, perp, d), 0);
	j->a1 = jx_cross(w, dra, axis);
	j->a2 = jx_cross(w, j->r_b, axis);
	j->s1 = jx_cross(w, dra, perp);
	j->s2 = jx_cross(w, j->r_b, perp);
}

/* the soft step's substeps 2..n (prismatic and wheel): the geometry, the step's axial mass
 * while it fits */
void f2d_slider_substep(f2d_world *w, f2d_joint *j)
{
	slider_geometry(w, j);
	j->axial_mass = f2d_joint_axial_mass_update(w, &w->bodies[j->body_a], &w->bodies[j->body_b],
	                                            j->a1, j->a2, j->axial_mass);
}

void f2d_slider_prestep(f2d_world *w, f2d_joint *j)
{
	slider_geometry(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->axial_mass = f2d_joint_axial_mass(w, a, b, j->a1, j->a2);
	f2d_joint_make_soft(j, 0, j->enable_spring ? j->hertz : 0, j->damping_ratio, w->h, j->soft);
	f2d_rigid_soft(w, j->soft2);
	if (!w->def.warm_starting) {
		j->impulse = f2d_v(0, 0);
		j->motor_impulse = j->spring_impulse = j->lower_impulse = j->upper_impulse = 0;
	}
	if (!j->enable_motor) {
		j->motor_impulse = 0;
	}
	if (!j->enable_spring) {
		j->spring_impulse = 0;
	}
	if (!j->enable_limit) {
		j->lower_impulse = j->upper_impulse = 0;
	}
}

void f2d_prismatic_prestep(f2d_world *w, f2d_joint *j)
{
	f2d_slider_prestep(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->c_ang = f2d_joint_relative_angle(a, b, j->reference_angle);
	f2d_joint_block_inverse(w, a, b, j->s1, j->s2, &j->k11, &j->k12, &j->k22);
}

/* axial lambda: P = lambda a, L_a = lambda a1, L_b = lambda a2 */
void f2d_slider_apply_axial(f2d_world *w, const f2d_joint *j, f2d_body *a, f2d_body *b, fix16_t l)
{
	f2d_vec2 p = f2d_v(jx_mul(w, l, j->w_axis.x), jx_mul(w, l, j->w_axis.y));
	jx_apply(w, a, b, p, jx_mul(w, l, j->a1), jx_mul(w, l, j->a2));
}

/* Cdot along the axis: a . (v_b - v_a) + a2 w_b - a1 w_a */
fix16_t f2d_slider_axial_cdot(f2d_world *w, const f2d_joint *j, const f2d_body *a,
                              const f2d_body *b)
{
	f2d_vec2 dv = f2d_v(jx_sub(w, b->v.x, a->v.x), jx_sub(w, b->v.y, a->v.y));
	return jx_sat(w, (int64_t)jx_dot(w, j->w_axis, dv) +
	                     f2d_round16((int64_t)j->a2 * b->w - (int64_t)j->a1 * a->w));
}

/* the axial parts shared with the wheel joint: motor (prismatic only), spring, limits */
void f2d_slider_solve_axial(f2d_world *w, f2d_joint *j, f2d_body *a, f2d_body *b, bool motor)
{
	if (motor && j->enable_motor) {
		fix16_t cdot = f2d_slider_axial_cdot(w, j, a, b);
		fix16_t l = jx_mul(w, j->axial_mass, jx_sub(w, j->motor_speed, cdot));
		fix16_t max = jx_mul(w, j->max_motor_torque, w->h);
		fix16_t old = j->motor_impulse;
		int64_t next = (int64_t)old + l;
		j->motor_impulse = (fix16_t)(next < -max ? -max : (next > max ? max : next));
		f2d_slider_apply_axial(w, j, a, b, jx_sat(w, (int64_t)j->motor_impulse - old));
	}
	if (j->enable_spring && j->hertz > 0) {
		fix16_t cdot = f2d_slider_axial_cdot(w, j, a, b);
		fix16_t l = f2d_soft_impulse(w, j->soft, j->axial_mass, cdot, j->translation,
		                             j->spring_impulse);
		j->spring_impulse = jx_add(w, j->spring_impulse, l);
		f2d_slider_apply_axial(w, j, a, b, l);
	}
	if (j->enable_limit) {
		fix16_t cdot = f2d_slider_axial_cdot(w, j, a, b);
		fix16_t l = f2d_limit_impulse(
		    w, j->axial_mass, cdot, jx_sub(w, j->translation, j->lower), &j->lower_impulse);
		f2d_slider_apply_axial(w, j, a, b, l);
		cdot = f2d_slider_axial_cdot(w, j, a, b);
		l = f2d_limit_impulse(w, j->axial_mass, -cdot, jx_sub(w, j->upper, j->translation),
		                      &j->upper_impulse);
		f2d_slider_apply_axial(w, j, a, b, -l);
	}
}

/* block impulse (perp, angle): P = l1 p, L_a = l1 s1 + l2, L_b = l1 s2 + l2 */
static void apply_block(f2d_world *w, const f2d_joint *j, f2d_body *a, f2d_body *b, fix16_t l1,
                        fix16_t l2)
{
	f2d_vec2 perp = f2d_left_perp(j->w_axis);
	f2d_vec2 p = f2d_v(jx_mul(w, l1, perp.x), jx_mul(w, l1, perp.y));
	jx_apply(w, a, b, p, jx_add(w, jx_mul(w, l1, j->s1), l2),
	         jx_add(w, jx_mul(w, l1, j->s2), l2));
}

/* apply_block on the locals */
static inline void jf_apply_block(uint64_t *acc, jfv *va, jfv *vb, const f2d_body *a,
                                  const f2d_body *b, const f2d_joint *j, int64_t l1, int64_t l2)
{
	f2d_vec2 perp = f2d_left_perp(j->w_axis);
	jf_apply(acc, va, vb, a, b, jf_mul(acc, l1, perp.x), jf_mul(acc, l1, perp.y),
	         jf_add(acc, jf_mul(acc, l1, j->s1), l2), jf_add(acc, jf_mul(acc, l1, j->s2), l2));
}

/* fast paths (joint_internal.h): the expressions below on locals */
static bool prismatic_warm_start_fast(f2d_joint *j, f2d_body *a, f2d_body *b)
{
	uint64_t acc = 0;
	jfv va = jf_load(a), vb = jf_load(b);
	int64_t axial = jf_sat(&acc, (int64_t)j->motor_impulse + j->spring_impulse +
	                                 j->lower_impulse - j->upper_impulse);
	jf_apply_axial(&acc, &va, &vb, a, b, j, axial);
	jf_apply_block(&acc, &va, &vb, a, b, j, j->impulse.x, j->impulse.y);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	jf_store(a, va);
	jf_store(b, vb);
	return true;
}

static bool prismatic_solve_fast(const f2d_world *w, f2d_joint *j, f2d_body *a, f2d_body *b)
{
	uint64_t acc = 0;
	jfv va = jf_load(a), vb = jf_load(b);
	jfimp im = {j->motor_impulse, j->spring_impulse, j->lower_impulse, j->upper_impulse};
	jf_slider_solve_axial(&acc, w, j, &va, &vb, a, b, true, &im);
	F2D_FAST_FOLD(acc);
	f2d_vec2 perp = f2d_left_perp(j->w_axis);
	int64_t dx = jf_sub(&acc, vb.x, va.x), dy = jf_sub(&acc, vb.y, va.y);
	int64_t c1 = jf_sat(
	    &acc, f2d_wadd(jf_dot(&acc, perp.x, perp.y, dx, dy),
	                   f2d_wround16(f2d_wsub(f2d_wmul(j->s2, vb.w), f2d_wmul(j->s1, va.w)))));
	int64_t c2 = jf_sub(&acc, vb.w, va.w);
	c1 = jf_add(&acc, c1, jf_mul(&acc, j->soft2[SOFT_BIAS], j->c_lin.x));
	c2 = jf_add(&acc, c2, jf_mul(&acc, j->soft2[SOFT_BIAS], j->c_ang));
	int64_t b1 =
	    jf_sat(&acc, f2d_wround16(f2d_wadd(f2d_wmul(j->k11, c1), f2d_wmul(j->k12, c2))));
	int64_t b2 =
	    jf_sat(&acc, f2d_wround16(f2d_wadd(f2d_wmul(j->k12, c1), f2d_wmul(j->k22, c2))));
	int64_t l1 = jf_sat(&acc, f2d_wsub(f2d_wsub(0, jf_mul(&acc, j->soft2[SOFT_MASS], b1)),
	                                   jf_mul(&acc, j->soft2[SOFT_IMPULSE], j->impulse.x)));
	int64_t l2 = jf_sat(&acc, f2d_wsub(f2d_wsub(0, jf_mul(&acc, j->soft2[SOFT_MASS], b2)),
	                                   jf_mul(&acc, j->soft2[SOFT_IMPULSE], j->impulse.y)));
	int64_t ix = jf_add(&acc, j->impulse.x, l1), iy = jf_add(&acc, j->impulse.y, l2);
	jf_apply_block(&acc, &va, &vb, a, b, j, l1, l2);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	j->motor_impulse = (fix16_t)im.motor;
	j->spring_impulse = (fix16_t)im.spring;
	j->lower_impulse = (fix16_t)im.lower;
	j->upper_impulse = (fix16_t)im.upper;
	j->impulse = f2d_v((fix16_t)ix, (fix16_t)iy);
	jf_store(a, va);
	jf_store(b, vb);
	return true;
}

void f2d_prismatic_warm_start(f2d_world *w, f2d_joint *j)
{
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (JF_FAST_PATH && prismatic_warm_start_fast(j, a, b)) {
		JF_COUNT(j, 0);
		return;
	}
	JF_COUNT(j, 1);
	f2d_slider_apply_axial(w, j, a, b,
	                       jx_sat(w, (int64_t)j->motor_impulse + j->spring_impulse +
	                                     j->lower_impulse - j->upper_impulse));
	apply_block(w, j, a, b, j->impulse.x, j->impulse.y);
}

void f2d_prismatic_solve(f2d_world *w, f2d_joint *j)
{
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (JF_FAST_PATH && prismatic_solve_fast(w, j, a, b)) {
		JF_COUNT(j, 2);
		return;
	}
	JF_COUNT(j, 3);
	f2d_slider_solve_axial(w, j, a, b, true);
	f2d_vec2 perp = f2d_left_perp(j->w_axis);
	f2d_vec2 dv = f2d_v(jx_sub(w, b->v.x, a->v.x), jx_sub(w, b->v.y, a->v.y));
	/* Cdot + bias C for both rows */
	fix16_t c1 = jx_sat(w, (int64_t)jx_dot(w, perp, dv) +
	                           f2d_round16((int64_t)j->s2 * b->w - (int64_t)j->s1 * a->w));
	fix16_t c2 = jx_sub(w, b->w, a->w);
	c1 = jx_add(w, c1, jx_mul(w, j->soft2[SOFT_BIAS], j->c_lin.x));
	c2 = jx_add(w, c2, jx_mul(w, j->soft2[SOFT_BIAS], j->c_ang));
	/* |k|, |c| < 2^31: each product < 2^62, the sums < 2^63 */
	fix16_t b1 = jx_sat(w, f2d_round16((int64_t)j->k11 * c1 + (int64_t)j->k12 * c2));
	fix16_t b2 = jx_sat(w, f2d_round16((int64_t)j->k12 * c1 + (int64_t)j->k22 * c2));
	fix16_t l1 = jx_sat(w, -(int64_t)jx_mul(w, j->soft2[SOFT_MASS], b1) -
	                           jx_mul(w, j->soft2[SOFT_IMPULSE], j->impulse.x));
	fix16_t l2 = jx_sat(w, -(int64_t)jx_mul(w, j->soft2[SOFT_MASS], b2) -
	                           jx_mul(w, j->soft2[SOFT_IMPULSE], j->impulse.y));
	j->impulse.x = jx_add(w, j->impulse.x, l1);
	j->impulse.y = jx_add(w, j->impulse.y, l2);
	apply_block(w, j, a, b, l1, l2);
}

/* the soft step's substeps 2..n: the slider's, the angle error, the step's block inverse while
 * it fits */
void f2d_prismatic_substep(f2d_world *w, f2d_joint *j)
{
	f2d_slider_substep(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->c_ang = f2d_joint_relative_angle(a, b, j->reference_angle);
	f2d_joint_block_update(w, a, b, j->s1, j->s2, &j->k11, &j->k12, &j->k22);
}
