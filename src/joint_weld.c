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

/* what the positions change: arms, the anchor gap and the angle error */
static void weld_geometry(f2d_world *w, f2d_joint *j)
{
	f2d_joint_arms(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->c_lin = f2d_joint_anchor_gap(a, b, j->r_a, j->r_b);
	j->c_ang = f2d_joint_relative_angle(a, b, j->reference_angle);
}

/* the soft step's substeps 2..n: the geometry, the step's K^-1 while it fits */
void f2d_weld_substep(f2d_world *w, f2d_joint *j)
{
	weld_geometry(w, j);
	f2d_point_mass_update(w, &w->bodies[j->body_a], &w->bodies[j->body_b], j->r_a, j->r_b,
	                      &j->k11, &j->k12, &j->k22);
}

void f2d_weld_prestep(f2d_world *w, f2d_joint *j)
{
	weld_geometry(w, j);
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->axial_mass = jx_inv(w, (int64_t)a->inv_inertia + b->inv_inertia);
	f2d_point_mass_inverse(w, a, b, j->r_a, j->r_b, &j->k11, &j->k12, &j->k22);
	if (j->hertz > 0) {
		f2d_joint_make_soft(j, 0, j->hertz, j->damping_ratio, w->h, j->soft);
	} else {
		f2d_rigid_soft(w, j->soft);
	}
	if (j->angular_hertz > 0) {
		f2d_joint_make_soft(j, 1, j->angular_hertz, j->angular_damping_ratio, w->h,
		                    j->soft2);
	} else {
		f2d_rigid_soft(w, j->soft2);
	}
	if (!w->def.warm_starting) {
		j->impulse = f2d_v(0, 0);
		j->angular_impulse = 0;
	}
}

/* fast path (joint_internal.h): jx_apply_point on the locals */
static bool weld_warm_start_fast(f2d_joint *j, f2d_body *a, f2d_body *b)
{
	uint64_t acc = 0;
	jfv va = jf_load(a), vb = jf_load(b);
	jf_apply_point(&acc, &va, &vb, a, b, j->r_a, j->r_b, j->impulse.x, j->impulse.y,
	               j->angular_impulse);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	jf_store(a, va);
	jf_store(b, vb);
	return true;
}

void f2d_weld_warm_start(f2d_world *w, f2d_joint *j)
{
	if (JF_FAST_PATH && weld_warm_start_fast(j, &w->bodies[j->body_a], &w->bodies[j->body_b])) {
		JF_COUNT(j, 0);
		return;
	}
	JF_COUNT(j, 1);
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

/* the soft point constraint of f2d_soft_point on the locals: (v.x, v.y) = Cdot + bias C */
static inline void jf_soft_point(uint64_t *acc, const f2d_joint *j, const fix16_t soft[3],
                                 int64_t vx, int64_t vy, int64_t *px, int64_t *py)
{
	int64_t b1 =
	    jf_sat(acc, f2d_wround16(f2d_wadd(f2d_wmul(j->k11, vx), f2d_wmul(j->k12, vy))));
	int64_t b2 =
	    jf_sat(acc, f2d_wround16(f2d_wadd(f2d_wmul(j->k12, vx), f2d_wmul(j->k22, vy))));
	*px = jf_sat(acc, f2d_wsub(f2d_wsub(0, jf_mul(acc, soft[SOFT_MASS], b1)),
	                           jf_mul(acc, soft[SOFT_IMPULSE], j->impulse.x)));
	*py = jf_sat(acc, f2d_wsub(f2d_wsub(0, jf_mul(acc, soft[SOFT_MASS], b2)),
	                           jf_mul(acc, soft[SOFT_IMPULSE], j->impulse.y)));
}

/* fast path of f2d_weld_solve (joint_internal.h): the same expressions on locals */
static bool weld_solve_fast(f2d_joint *j, f2d_body *a, f2d_body *b)
{
	uint64_t acc = 0;
	jfv va = jf_load(a), vb = jf_load(b);
	int64_t l = jf_soft_impulse(&acc, j->soft2, j->axial_mass, jf_sub(&acc, vb.w, va.w),
	                            j->c_ang, j->angular_impulse);
	int64_t ang = jf_add(&acc, j->angular_impulse, l);
	jf_apply(&acc, &va, &vb, a, b, 0, 0, l, l);
	int64_t vax, vay, vbx, vby;
	jf_point_velocity(&acc, va, j->r_a, &vax, &vay);
	jf_point_velocity(&acc, vb, j->r_b, &vbx, &vby);
	int64_t vx =
	    jf_add(&acc, jf_sub(&acc, vbx, vax), jf_mul(&acc, j->soft[SOFT_BIAS], j->c_lin.x));
	int64_t vy =
	    jf_add(&acc, jf_sub(&acc, vby, vay), jf_mul(&acc, j->soft[SOFT_BIAS], j->c_lin.y));
	F2D_FAST_FOLD(acc);
	int64_t px, py;
	jf_soft_point(&acc, j, j->soft, vx, vy, &px, &py);
	int64_t ix = jf_add(&acc, j->impulse.x, px), iy = jf_add(&acc, j->impulse.y, py);
	jf_apply_point(&acc, &va, &vb, a, b, j->r_a, j->r_b, px, py, 0);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	j->angular_impulse = (fix16_t)ang;
	j->impulse = f2d_v((fix16_t)ix, (fix16_t)iy);
	jf_store(a, va);
	jf_store(b, vb);
	return true;
}

void f2d_weld_solve(f2d_world *w, f2d_joint *j)
{
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (JF_FAST_PATH && weld_solve_fast(j, a, b)) {
		JF_COUNT(j, 2);
		return;
	}
	JF_COUNT(j, 3);
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
