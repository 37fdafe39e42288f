/* fix2d wheel joint (Box2D v3's b2WheelJoint): B (the wheel) keeps its anchor on a line fixed
 * in A (the suspension axis), is pulled along it by a spring, may be limited along it, and
 * turns freely, driven by a motor.
 * SPDX-License-Identifier: MIT
 *
 * d, the world axis a, a1, a2, the perpendicular p, s1, s2: as the prismatic joint
 * (joint_prismatic.c, where the Jacobians are derived).
 * Point-to-line (always, rigid): C = p . d, J = [-p, -s1, p, s2],
 *   K = 1/m_a + 1/m_b + s1^2/I_a + s2^2/I_b (mass2 = 1/K), soft with the rigid softness.
 * Spring and limits along a: as the prismatic joint (spring rest at translation 0).
 * Motor: C' = w_b - w_a - speed, J = [0, -1, 0, 1], K = 1/I_a + 1/I_b (mass3 = 1/K),
 *   lambda = -mass3 Cdot, accumulated within +-max_motor_torque h.
 * Order: motor, spring, limits, point-to-line. Accumulated: motor_impulse (angular),
 * spring_impulse, lower/upper_impulse, impulse.x (perpendicular).
 */
#include "joint_internal.h"

void f2d_wheel_prestep(f2d_world *w, f2d_joint *j)
{
	f2d_slider_prestep(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->mass2 = f2d_joint_axial_mass(w, a, b, j->s1, j->s2);
	j->mass3 = jx_inv(w, (int64_t)a->inv_inertia + b->inv_inertia);
}

static void apply_perp(f2d_world *w, const f2d_joint *j, f2d_body *a, f2d_body *b, fix16_t l)
{
	f2d_vec2 perp = f2d_left_perp(j->w_axis);
	f2d_vec2 p = f2d_v(jx_mul(w, l, perp.x), jx_mul(w, l, perp.y));
	jx_apply(w, a, b, p, jx_mul(w, l, j->s1), jx_mul(w, l, j->s2));
}

/* apply_perp on the locals */
static inline void jf_apply_perp(uint64_t *acc, jfv *va, jfv *vb, const f2d_body *a,
                                 const f2d_body *b, const f2d_joint *j, int64_t l)
{
	f2d_vec2 perp = f2d_left_perp(j->w_axis);
	jf_apply(acc, va, vb, a, b, jf_mul(acc, l, perp.x), jf_mul(acc, l, perp.y),
	         jf_mul(acc, l, j->s1), jf_mul(acc, l, j->s2));
}

/* fast paths (joint_internal.h): the expressions below on locals */
static bool wheel_warm_start_fast(f2d_joint *j, f2d_body *a, f2d_body *b)
{
	uint64_t acc = 0;
	jfv va = jf_load(a), vb = jf_load(b);
	int64_t axial =
	    jf_sat(&acc, (int64_t)j->spring_impulse + j->lower_impulse - j->upper_impulse);
	jf_apply_axial(&acc, &va, &vb, a, b, j, axial);
	jf_apply_perp(&acc, &va, &vb, a, b, j, j->impulse.x);
	jf_apply(&acc, &va, &vb, a, b, 0, 0, j->motor_impulse, j->motor_impulse);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	jf_store(a, va);
	jf_store(b, vb);
	return true;
}

static bool wheel_solve_fast(const f2d_world *w, f2d_joint *j, f2d_body *a, f2d_body *b)
{
	uint64_t acc = 0;
	jfv va = jf_load(a), vb = jf_load(b);
	jfimp im = {j->motor_impulse, j->spring_impulse, j->lower_impulse, j->upper_impulse};
	if (j->enable_motor) {
		int64_t cdot = jf_sat(&acc, f2d_wsub(f2d_wsub(vb.w, va.w), j->motor_speed));
		int64_t l = f2d_wsub(0, jf_mul(&acc, j->mass3, cdot));
		int64_t d = jf_motor_clamp(&acc, w, j, l, &im.motor);
		jf_apply(&acc, &va, &vb, a, b, 0, 0, d, d);
	}
	jf_slider_solve_axial(&acc, w, j, &va, &vb, a, b, false, &im);
	F2D_FAST_FOLD(acc);
	f2d_vec2 perp = f2d_left_perp(j->w_axis);
	int64_t dx = jf_sub(&acc, vb.x, va.x), dy = jf_sub(&acc, vb.y, va.y);
	int64_t cdot = jf_sat(
	    &acc, f2d_wadd(jf_dot(&acc, perp.x, perp.y, dx, dy),
	                   f2d_wround16(f2d_wsub(f2d_wmul(j->s2, vb.w), f2d_wmul(j->s1, va.w)))));
	int64_t l = jf_soft_impulse(&acc, j->soft2, j->mass2, cdot, j->c_lin.x, j->impulse.x);
	int64_t ix = jf_add(&acc, j->impulse.x, l);
	jf_apply_perp(&acc, &va, &vb, a, b, j, l);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	j->motor_impulse = (fix16_t)im.motor;
	j->spring_impulse = (fix16_t)im.spring;
	j->lower_impulse = (fix16_t)im.lower;
	j->upper_impulse = (fix16_t)im.upper;
	j->impulse.x = (fix16_t)ix;
	jf_store(a, va);
	jf_store(b, vb);
	return true;
}

void f2d_wheel_warm_start(f2d_world *w, f2d_joint *j)
{
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (JF_FAST_PATH && wheel_warm_start_fast(j, a, b)) {
		JF_COUNT(j, 0);
		return;
	}
	JF_COUNT(j, 1);
	f2d_slider_apply_axial(
	    w, j, a, b,
	    jx_sat(w, (int64_t)j->spring_impulse + j->lower_impulse - j->upper_impulse));
	apply_perp(w, j, a, b, j->impulse.x);
	jx_apply(w, a, b, f2d_v(0, 0), j->motor_impulse, j->motor_impulse);
}

void f2d_wheel_solve(f2d_world *w, f2d_joint *j)
{
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (JF_FAST_PATH && wheel_solve_fast(w, j, a, b)) {
		JF_COUNT(j, 2);
		return;
	}
	JF_COUNT(j, 3);
	if (j->enable_motor) {
		fix16_t cdot = jx_sat(w, (int64_t)b->w - a->w - j->motor_speed);
		fix16_t l = -jx_mul(w, j->mass3, cdot);
		fix16_t max = jx_mul(w, j->max_motor_torque, w->h);
		fix16_t old = j->motor_impulse;
		int64_t next = (int64_t)old + l;
		j->motor_impulse = (fix16_t)(next < -max ? -max : (next > max ? max : next));
		fix16_t d = jx_sat(w, (int64_t)j->motor_impulse - old);
		jx_apply(w, a, b, f2d_v(0, 0), d, d);
	}
	f2d_slider_solve_axial(w, j, a, b, false);
	f2d_vec2 perp = f2d_left_perp(j->w_axis);
	f2d_vec2 dv = f2d_v(jx_sub(w, b->v.x, a->v.x), jx_sub(w, b->v.y, a->v.y));
	fix16_t cdot = jx_sat(w, (int64_t)jx_dot(w, perp, dv) +
	                             f2d_round16((int64_t)j->s2 * b->w - (int64_t)j->s1 * a->w));
	fix16_t l = f2d_soft_impulse(w, j->soft2, j->mass2, cdot, j->c_lin.x, j->impulse.x);
	j->impulse.x = jx_add(w, j->impulse.x, l);
	apply_perp(w, j, a, b, l);
}

/* the soft step's substeps 2..n: the slider's, the step's perpendicular mass while it fits
 * (mass3, 1 / (1/I_a + 1/I_b), does not change with the positions) */
void f2d_wheel_substep(f2d_world *w, f2d_joint *j)
{
	f2d_slider_substep(w, j);
	j->mass2 = f2d_joint_axial_mass_update(w, &w->bodies[j->body_a], &w->bodies[j->body_b],
	                                       j->s1, j->s2, j->mass2);
}
