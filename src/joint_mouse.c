/* fix2d mouse (target) joint (Box2D v3's b2MouseJoint): pulls a point of B towards a world
 * target with a soft spring of bounded force, and damps B's rotation a little (dragging bodies
 * in a viewer). Body A is a reference only: nothing is applied to it.
 * SPDX-License-Identifier: MIT
 *
 * Linear: C = (c_b + r_b) - target, Cdot = v_b + w_b x r_b, J = [I, skew(r_b)] (B only),
 *   K = 1/m_b I + 1/I_b [r_b.y^2, -r_b.x r_b.y; ., r_b.x^2] (the point constraint with A
 *   immovable); lambda = -ms K^-1 (Cdot + bias_rate C) - is accumulated (the spring's
 *   softness: hertz, damping ratio), the accumulated impulse kept within |P| <= max_force h.
 * Angular damping (Box2D v3: 0.5 Hz, damping ratio 0.1, no bias): lambda = ms (-I_b w_b)
 *   - is accumulated (the impulse that would stop B's rotation, softened).
 * Accumulated: impulse, angular_impulse.
 */
#include "joint_internal.h"

void f2d_clamp_impulse_disc(f2d_vec2 *acc, fix16_t max);

/* what the positions change: B's arm and the gap to the target */
static void mouse_geometry(f2d_world *w, f2d_joint *j)
{
	f2d_joint_arms(w, j);
	j->r_a = f2d_v(0, 0);
	const f2d_body *b = &w->bodies[j->body_b];
	j->c_lin = f2d_v(f2d_sat((int64_t)b->center.x + j->r_b.x - j->axis.x),
	                 f2d_sat((int64_t)b->center.y + j->r_b.y - j->axis.y));
}

/* the soft step's substeps 2..n: the geometry, the step's K^-1 while it fits */
void f2d_mouse_substep(f2d_world *w, f2d_joint *j)
{
	mouse_geometry(w, j);
	f2d_body none;
	memset(&none, 0, sizeof none);
	f2d_point_mass_update(w, &none, &w->bodies[j->body_b], j->r_a, j->r_b, &j->k11, &j->k12,
	                      &j->k22);
}

void f2d_mouse_prestep(f2d_world *w, f2d_joint *j)
{
	mouse_geometry(w, j);
	const f2d_body *b = &w->bodies[j->body_b];
	f2d_body none;
	memset(&none, 0, sizeof none);
	f2d_point_mass_inverse(w, &none, b, j->r_a, j->r_b, &j->k11, &j->k12, &j->k22);
	f2d_joint_make_soft(j, 0, j->hertz, j->damping_ratio, w->h, j->soft);
	f2d_joint_make_soft(j, 1, F2D_MILLI(500), F2D_MILLI(100), w->h, j->soft2);
	if (!w->def.warm_starting) {
		j->impulse = f2d_v(0, 0);
		j->angular_impulse = 0;
	}
}

/* v_b += P / m_b, w_b += (r_b x P + angular) / I_b */
static void apply_b(f2d_world *w, const f2d_joint *j, f2d_body *b, f2d_vec2 p, fix16_t angular)
{
	b->v.x = jx_sat(w, (int64_t)b->v.x + f2d_round16((int64_t)b->inv_mass * p.x));
	b->v.y = jx_sat(w, (int64_t)b->v.y + f2d_round16((int64_t)b->inv_mass * p.y));
	fix16_t l = jx_add(w, jx_cross(w, j->r_b, p), angular);
	b->w = jx_sat(w, (int64_t)b->w + f2d_round16((int64_t)b->inv_inertia * l));
}

void f2d_mouse_warm_start(f2d_world *w, f2d_joint *j)
{
	JF_COUNT(j, 1); /* exact path only */
	apply_b(w, j, &w->bodies[j->body_b], j->impulse, j->angular_impulse);
}

void f2d_mouse_solve(f2d_world *w, f2d_joint *j)
{
	JF_COUNT(j, 3); /* exact path only */
	f2d_body *b = &w->bodies[j->body_b];
	{
		fix16_t stop = b->inv_inertia > 0 ? -jx_mul(w, b->inertia, b->w) : 0;
		fix16_t l = jx_sat(w, (int64_t)jx_mul(w, j->soft2[SOFT_MASS], stop) -
		                          jx_mul(w, j->soft2[SOFT_IMPULSE], j->angular_impulse));
		j->angular_impulse = jx_add(w, j->angular_impulse, l);
		apply_b(w, j, b, f2d_v(0, 0), l);
	}
	f2d_vec2 cdot = jx_point_velocity(w, b, j->r_b);
	f2d_vec2 v = f2d_v(jx_add(w, cdot.x, jx_mul(w, j->soft[SOFT_BIAS], j->c_lin.x)),
	                   jx_add(w, cdot.y, jx_mul(w, j->soft[SOFT_BIAS], j->c_lin.y)));
	f2d_vec2 p = f2d_soft_point(w, j, j->soft, v, j->impulse);
	f2d_vec2 old = j->impulse;
	f2d_vec2 acc = f2d_v(jx_add(w, old.x, p.x), jx_add(w, old.y, p.y));
	f2d_clamp_impulse_disc(&acc, jx_mul(w, j->max_force, w->h));
	j->impulse = acc;
	apply_b(w, j, b, f2d_v(jx_sub(w, acc.x, old.x), jx_sub(w, acc.y, old.y)), 0);
}
