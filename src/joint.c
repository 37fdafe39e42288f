/* fix2d revolute joint (seed 000: Box2D-lite's Joint, plus an angle limit and a motor).
 * SPDX-License-Identifier: MIT
 */
#include "core.h"
#include "joint_internal.h" /* the other joint types (j->type != 0) */

/* Saturating arithmetic for the joint solver: bit for bit the plain operations while every
 * result fits the fix16 range; beyond it a value clamps to +-(2^31 - 1) and the step reports
 * F2D_ERROR_OVERFLOW, where 32-bit sums would have overflowed (undefined behaviour). */
static inline fix16_t jsat(f2d_world *w, int64_t x)
{
	return f2d_sat_flag(x, &w->saturated);
}

/* a * b */
static inline fix16_t jmul(f2d_world *w, fix16_t a, fix16_t b)
{
	return jsat(w, f2d_round16((int64_t)a * b));
}

/* v + m x and v - m x */
static inline fix16_t jmadd(f2d_world *w, fix16_t v, fix16_t m, fix16_t x)
{
	return jsat(w, (int64_t)v + f2d_round16((int64_t)m * x));
}
static inline fix16_t jmsub(f2d_world *w, fix16_t v, fix16_t m, fix16_t x)
{
	return jsat(w, (int64_t)v - f2d_round16((int64_t)m * x));
}

/* r x p, saturated */
static inline fix16_t jcross(f2d_world *w, f2d_vec2 r, f2d_vec2 p)
{
	return jsat(w, f2d_round16((int64_t)r.x * p.y - (int64_t)r.y * p.x));
}

/* Applies the point impulse p and the angular impulse axial (B gets +, A gets -). */
static void apply_point(f2d_world *w, f2d_joint *j, f2d_body *a, f2d_body *b, f2d_vec2 p,
                        fix16_t axial)
{
	a->v.x = jmsub(w, a->v.x, a->inv_mass, p.x);
	a->v.y = jmsub(w, a->v.y, a->inv_mass, p.y);
	a->w = jmsub(w, a->w, a->inv_inertia, jsat(w, (int64_t)jcross(w, j->r_a, p) + axial));
	b->v.x = jmadd(w, b->v.x, b->inv_mass, p.x);
	b->v.y = jmadd(w, b->v.y, b->inv_mass, p.y);
	b->w = jmadd(w, b->w, b->inv_inertia, jsat(w, (int64_t)jcross(w, j->r_b, p) + axial));
}

/* A joint of any type was just made (its record filled in): its bodies count it, wake, and,
 * without collide_connected, stop colliding now (f2d_forget_joined_contacts; the caller
 * reserved the room for their end events before anything changed). */
void f2d_joint_attached(f2d_world *w, const f2d_joint *j)
{
	f2d_joint_link(w, (int32_t)(j - w->joints));
	w->bodies[j->body_a].joint_count++;
	w->bodies[j->body_b].joint_count++;
	w->joint_count++;
	f2d_wake_body(w, j->body_a);
	f2d_wake_body(w, j->body_b);
	w->contacts_stale = true;
	if (!j->collide_connected) {
		f2d_forget_joined_contacts(w, j->body_a, j->body_b);
	}
}

/* The contacts between bodies a and b, which a joint without collide_connected ends. */
static bool between(const f2d_arbiter *ar, int32_t a, int32_t b)
{
	return (ar->body_a == a && ar->body_b == b) || (ar->body_a == b && ar->body_b == a);
}

int32_t f2d_joined_contacts(const f2d_world *w, int32_t a, int32_t b)
{
	int32_t n = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		n += between(&w->arbiters[i], a, b) ? 1 : 0;
	}
	return n;
}

/* Two bodies joined without collide_connected stop colliding now: their contacts go, each with
 * an end event at the next step (f2d_events_contact_removed; room reserved by the caller with
 * f2d_events_reserve_pending(f2d_joined_contacts(...)) before anything changed). */
void f2d_forget_joined_contacts(f2d_world *w, int32_t a, int32_t b)
{
	int32_t k = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *ar = &w->arbiters[i];
		if (between(ar, a, b)) {
			f2d_events_contact_removed(w, ar);
		} else {
			w->arbiters[k++] = *ar;
		}
	}
	w->arbiter_count = k;
}

/* ---- each body's joint list (derived: Box2D's joint edges) ----
 * A live joint is in the list of body_a (linked by next_a) and of body_b (by next_b; once, by
 * next_a, when the two are one body). The lists answer "is there a joint between a and b" by a
 * walk over the joints of the body with fewer, instead of over every joint of the world (the
 * broad phase asks it for every new pair of two jointed bodies). Their order does not matter:
 * nothing but that yes/no reads them. */
static inline int32_t *next_in_list(f2d_joint *j, int32_t body)
{
	return j->body_a == body ? &j->next_a : &j->next_b;
}

void f2d_joint_link(f2d_world *w, int32_t id)
{
	f2d_joint *j = &w->joints[id];
	f2d_body *a = &w->bodies[j->body_a];
	j->next_a = a->joint_list;
	a->joint_list = id;
	j->next_b = F2D_NULL_INDEX;
	if (j->body_b != j->body_a) {
		f2d_body *b = &w->bodies[j->body_b];
		j->next_b = b->joint_list;
		b->joint_list = id;
	}
}

static void unlink_joint(f2d_world *w, int32_t id, int32_t body)
{
	int32_t *link = &w->bodies[body].joint_list;
	while (*link != id && *link != F2D_NULL_INDEX) {
		link = next_in_list(&w->joints[*link], body);
	}
	if (*link == id) {
		*link = *next_in_list(&w->joints[id], body);
	}
}

bool f2d_joint_lists_consistent(const f2d_world *w)
{
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		int32_t n = 0;
		for (int32_t k = w->bodies[i].joint_list; k != F2D_NULL_INDEX;) {
			const f2d_joint *j = &w->joints[k];
			if (k < 0 || k >= w->joint_ids.next || !j->alive || n > w->joint_ids.next ||
			    (j->body_a != i && j->body_b != i)) {
				return false;
			}
			/* a joint of one body to itself counts twice in joint_count, is listed once
			 */
			n += j->body_a == j->body_b ? 2 : 1;
			k = j->body_a == i ? j->next_a : j->next_b;
		}
		if (n != (w->bodies[i].alive ? w->bodies[i].joint_count : 0)) {
			return false;
		}
	}
	return true;
}

bool f2d_bodies_joined(const f2d_world *w, int32_t a, int32_t b)
{
	int32_t from = w->bodies[a].joint_count <= w->bodies[b].joint_count ? a : b;
	int32_t other = from == a ? b : a;
	for (int32_t k = w->bodies[from].joint_list; k != F2D_NULL_INDEX;) {
		const f2d_joint *j = &w->joints[k];
		if (!j->collide_connected && (j->body_a == other || j->body_b == other)) {
			return true;
		}
		k = j->body_a == from ? j->next_a : j->next_b;
	}
	return false;
}

/* round(num * 2^32 / det), half away from zero: a Q16 entry of K^-1 from a Q16 entry of adj(K)
 * and det(K) in Q32; beyond the fix16 range it saturates and reports. With det below 2^63 and
 * |num| < 2^30 one 64-bit division (a light body on a long arm, or a small inertia, passes
 * either bound); otherwise the same rounding in 128 bits: floor((|num| 2^32 + floor(det / 2)) /
 * det) with the sign of num, which is what the 64-bit form computes whenever it fits. */
static inline fix16_t div_q16_by_q32_64(f2d_world *w, int64_t num, int64_t den)
{
	int64_t n = num * 4294967296LL;
	int64_t q = (n >= 0 ? n + den / 2 : n - den / 2) / den;
	if (q > INT32_MAX || q < -INT32_MAX) {
		w->saturated = true;
	}
	return f2d_sat(q);
}

static fix16_t div_q16_by_q32(f2d_world *w, int64_t num, f2d_u128 det)
{
	const int64_t b30 = (int64_t)1 << 30;
	if (det.hi == 0 && det.lo <= (uint64_t)INT64_MAX && num < b30 && num > -b30) {
		return div_q16_by_q32_64(w, num, (int64_t)det.lo); /* |num| < 2^30, 0 < den < 2^63 */
	}
	uint64_t mag = num < 0 ? 0u - (uint64_t)num : (uint64_t)num; /* < 2^47 */
	f2d_u128 n = f2d_u128_add(f2d_u128_shl(f2d_u128_from(mag), 32), f2d_u128_half(det));
#ifdef F2D_JOINT_EXACT_ONLY
	uint32_t q = f2d_u128_div31(n, det); /* the reference: 31 restoring steps */
#else
	/* the same quotient by one or two 64-bit divisions (f2d_div31_fast, joint_common.c:
	 * compared with f2d_u128_div31 on 400k inputs in test_joints; test_solver_paths compares
	 * every step with the exact-only build, which keeps the restoring division) */
	uint32_t q = f2d_div31_fast(n, det);
#endif
	if (q > (uint32_t)INT32_MAX) {
		w->saturated = true;
		q = (uint32_t)INT32_MAX;
	}
	return num < 0 ? -(fix16_t)q : (fix16_t)q;
}

/* 1 / k for a Q16 k >= 0 (0 for 0), saturated and reported below 3 LSB. */
static fix16_t inverse_or_zero(f2d_world *w, int64_t k)
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

/* K^-1 for the point constraint of bodies a and b with anchor arms ra, rb (derivation above
 * f2d_joint_prestep): K = (1/m_a + 1/m_b) I + 1/I_a [ra.y^2, -ra.x ra.y; ., ra.x^2] + (b);
 * K^-1 = [k22, -k12; -k12, k11] / det.
 * Ranges (README "Units and valid ranges"): an arm of a dynamic body is at most 64 m (anchor)
 * + 45 m (centre of mass) long, so r^2 < 2^14.2; 1/I <= 2^14 and 1/m <= 2^8, so each k is
 * below 2^46 in Q16 and det = k11 k22 - k12^2 below 2^92 in Q32: it is computed exactly in 128
 * bits (K is positive semi-definite, det >= 0 up to the rounding of the entries). A body that
 * cannot turn (static, kinematic: 1/I = 0) adds no angular term, whatever its arm (a static
 * anchor may be 16 km away). If the rounded K is singular (det <= 0: only with the smallest
 * masses against the largest arms and inverse inertias), the diagonal inverse stands in:
 * positive, and never more than twice the step K^-1 would take along any direction. */
/* The entries of K (Q16, each below 2^46: see point_mass). */
static inline void point_k(const f2d_body *a, const f2d_body *b, f2d_vec2 ra, f2d_vec2 rb,
                           int64_t *o11, int64_t *o12, int64_t *o22)
{
	fix16_t ma = a->inv_mass, mb = b->inv_mass, ia = a->inv_inertia, ib = b->inv_inertia;
	int64_t k11 = (int64_t)ma + mb, k12 = 0, k22 = (int64_t)ma + mb;
	if (ia != 0) {
		k11 += f2d_round16((int64_t)ia * f2d_mul(ra.y, ra.y));
		k12 -= f2d_round16((int64_t)ia * f2d_mul(ra.x, ra.y));
		k22 += f2d_round16((int64_t)ia * f2d_mul(ra.x, ra.x));
	}
	if (ib != 0) {
		k11 += f2d_round16((int64_t)ib * f2d_mul(rb.y, rb.y));
		k12 -= f2d_round16((int64_t)ib * f2d_mul(rb.x, rb.y));
		k22 += f2d_round16((int64_t)ib * f2d_mul(rb.x, rb.x));
	}
	*o11 = k11;
	*o12 = k12;
	*o22 = k22;
}

/* K^-1 of the entries of point_k */
static inline void point_inverse(f2d_world *w, int64_t k11, int64_t k12, int64_t k22, fix16_t *m11,
                                 fix16_t *m12, fix16_t *m22)
{
#ifndef F2D_JOINT_EXACT_ONLY /* test_solver_paths' reference keeps the 128-bit form only */
	const int64_t b30 = (int64_t)1 << 30;
	if (k11 >= 0 && k11 < b30 && k22 >= 0 && k22 < b30 && k12 > -b30 && k12 < b30) {
		/* The usual case (inverse masses and r^2 / I below 2^14 in all): each product is
		 * below 2^60, so diag, off and det are the 128-bit form's values in 64 bits, the
		 * same branch is taken, and with |num| < 2^30 and 0 < det < 2^60 div_q16_by_q32
		 * takes its one-division branch: the same bits without the 128-bit arithmetic. */
		int64_t diag = k11 * k22, off = k12 * k12;
		if (off >= diag) {
			*m11 = inverse_or_zero(w, k11);
			*m12 = 0;
			*m22 = inverse_or_zero(w, k22);
			return;
		}
		int64_t det = diag - off;
		*m11 = div_q16_by_q32_64(w, k22, det);
		*m12 = div_q16_by_q32_64(w, -k12, det);
		*m22 = div_q16_by_q32_64(w, k11, det);
		return;
	}
#endif
	uint64_t u12 = k12 < 0 ? 0u - (uint64_t)k12 : (uint64_t)k12;
	f2d_u128 diag = f2d_u128_mul((uint64_t)k11, (uint64_t)k22);
	f2d_u128 off = f2d_u128_mul(u12, u12);
	if (!f2d_u128_less(off, diag)) {
		*m11 = inverse_or_zero(w, k11);
		*m12 = 0;
		*m22 = inverse_or_zero(w, k22);
		return;
	}
	f2d_u128 det = f2d_u128_sub(diag, off);
	*m11 = div_q16_by_q32(w, k22, det);
	*m12 = div_q16_by_q32(w, -k12, det);
	*m22 = div_q16_by_q32(w, k11, det);
}

static inline void point_mass(f2d_world *w, const f2d_body *a, const f2d_body *b, f2d_vec2 ra,
                              f2d_vec2 rb, fix16_t *m11, fix16_t *m12, fix16_t *m22)
{
	int64_t k11, k12, k22;
	point_k(a, b, ra, rb, &k11, &k12, &k22);
	point_inverse(w, k11, k12, k22, m11, m12, m22);
}

/* C = (c_b + r_b) - (c_a + r_a), each component saturated to +-(2^31 - 1) (silently: its users
 * clamp it far below that). Centres are within the world limit (2^13) but a static body's anchor
 * may be 2^14 from it, so the sums are taken in 64 bits. */
static inline f2d_vec2 anchor_gap(const f2d_body *a, const f2d_body *b, f2d_vec2 ra, f2d_vec2 rb)
{
	return f2d_v(f2d_sat((int64_t)b->center.x + rb.x - a->center.x - ra.x),
	             f2d_sat((int64_t)b->center.y + rb.y - a->center.y - ra.y));
}

/* Point constraint: the anchors coincide, C = (c_b + r_b) - (c_a + r_a) = 0.
 *   Cdot = v_b + w_b x r_b - v_a - w_a x r_a
 *   J = [-I, -skew(r_a), I, skew(r_b)]  (w x r = (-w r.y, w r.x))
 *   K = J M^-1 J^T = (1/m_a + 1/m_b) I
 *       + 1/I_a [ r_a.y^2, -r_a.x r_a.y; -r_a.x r_a.y, r_a.x^2 ] + (same for b)
 *   impulse P = K^-1 (bias - Cdot), bias = -beta / h * C (Baumgarte), accumulated for warm start.
 * Angular constraints (motor, limits): C = angle_b - angle_a - reference, Cdot = w_b - w_a,
 *   J = [0, -1, 0, 1], effective mass m_axial = 1 / (1/I_a + 1/I_b).
 *   Motor: lambda = -m_axial (Cdot - speed), accumulated impulse clamped to +-max_torque h.
 *   Lower limit: C = angle - lower >= 0; bias = C / h when C > 0 (speculative: may approach the
 *   limit but not pass it), beta C / h when violated; lambda = -m_axial (Cdot + bias), P >= 0.
 *   Upper limit: the mirror image with C = upper - angle. */
/* The gap the position passes leave to the velocity bias: linear_slop / 16 (0.6 mm by default).
 * A projection of a gap that small is mostly rounding (a 2 m arm turns 3e-5 m per LSB of its
 * rotation), and moving a light, small-inertia body by it every step takes its energy: a 2 m
 * pendulum with an r 0.05 m bob lost 5-25 % of its amplitude in 30 s. Below the tolerance the
 * Baumgarte bias of the velocity solve closes the gap (a bias no larger than beta / h * tol,
 * 7 mm/s, which feeds no measurable energy into chains); above it, a pass moves the bodies. */
static inline fix16_t joint_tolerance(const f2d_world *w)
{
	return w->def.linear_slop / 16;
}

#define MAX_CORRECTION F2D_MILLI(500)

/* The parts of the pre-step that the positions change: the arms, the velocity bias from the
 * anchor gap and the angle of the limits. With position projection on (the default, and under
 * the soft step too), the passes rejoin the anchors of a gap above joint_tolerance on
 * positions, and the velocity bias works on the gap clamped to the tolerance only (a bias on
 * the whole gap would correct the same error twice, feeding energy into fast chains); with
 * joint_position_iterations = 0 the joint is Box2D-lite's, Baumgarte-stabilised. A zero
 * beta / h gives a zero bias (jmul(w, 0, x) is 0). */
static inline void revolute_geometry(f2d_world *w, f2d_joint *j, const f2d_body *a,
                                     const f2d_body *b)
{
	j->r_a = f2d_rotate(a->q, f2d_sub(j->local_a, a->local_center));
	j->r_b = f2d_rotate(b->q, f2d_sub(j->local_b, b->local_center));
	fix16_t beta_h = f2d_mul(w->def.bias_factor, w->inv_h);
	j->bias = f2d_v(0, 0);
	if (beta_h != 0) {
		f2d_vec2 c = anchor_gap(a, b, j->r_a, j->r_b);
		if (w->def.joint_position_iterations > 0) {
			fix16_t tol = joint_tolerance(w);
			c = f2d_v(f2d_clamp(c.x, -tol, tol), f2d_clamp(c.y, -tol, tol));
		}
		j->bias = f2d_v(-jmul(w, beta_h, c.x), -jmul(w, beta_h, c.y));
	}
	if (j->enable_limit) {
		fix16_t angle = f2d_rot_get_angle(f2d_inv_mul_rot(a->q, b->q)) - j->reference_angle;
		if (angle > F2D_PI) {
			angle -= 2 * F2D_PI;
		} else if (angle < -F2D_PI) {
			angle += 2 * F2D_PI;
		}
		j->angle = angle;
	} else {
		j->angle = 0;
	}
}

void f2d_joint_prestep(f2d_world *w, f2d_joint *j)
{
	if (j->type != F2D_REVOLUTE_JOINT) {
		f2d_joint_ext_prestep(w, j);
		return;
	}
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	revolute_geometry(w, j, a, b);
	fix16_t ia = a->inv_inertia, ib = b->inv_inertia;
	point_mass(w, a, b, j->r_a, j->r_b, &j->k11, &j->k12, &j->k22);

	/* 1 / (1/I_a + 1/I_b); a sum of 2 LSB (I = 32767 against a static body) would give 2^31.
	 * Only the motor and the limits use it. */
	if (j->enable_motor || j->enable_limit) {
		int64_t ka = (int64_t)ia + ib;
		j->axial_mass =
		    ka > 2 ? f2d_div_exact((int64_t)1 << 16, ka) : (ka > 0 ? INT32_MAX : 0);
	}
	if (!w->def.warm_starting) {
		j->impulse = f2d_v(0, 0);
		j->motor_impulse = j->lower_impulse = j->upper_impulse = 0;
	}
	if (!j->enable_motor) {
		j->motor_impulse = 0;
	}
	if (!j->enable_limit) {
		j->lower_impulse = j->upper_impulse = 0;
	}
}

/* The soft step's pre-step of substeps 2..n (Box2D v3: b2PrepareJointsTask once per step, the
 * position error from the bodies' current positions in every substep): f2d_joint_prestep ran in
 * the first substep and left the effective masses (K^-1 with its 128-bit 2x2 inverse, the axial
 * mass), the softness coefficients and the impulses' resets for the whole step; here only
 * what the new positions change: the arms, the position errors and their bias, and K^-1 only
 * when the step's no longer fits the K of the new arms (f2d_inverse22_fits). The Jacobians,
 * errors and biases are current. */
void f2d_joint_substep(f2d_world *w, f2d_joint *j)
{
	if (!w->def.warm_starting) {
		/* as each pre-step does without warm starting: every substep starts from no
		 * accumulated impulse (each type's prestep zeroes those it uses; the others are
		 * zero) */
		j->impulse = f2d_v(0, 0);
		j->motor_impulse = j->lower_impulse = j->upper_impulse = 0;
		j->spring_impulse = j->angular_impulse = 0;
	}
	if (j->type != F2D_REVOLUTE_JOINT) {
		f2d_joint_ext_substep(w, j);
		return;
	}
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	revolute_geometry(w, j, a, b);
	/* K^-1 of the step stays while it still inverts the K of the new arms closely enough
	 * (f2d_inverse22_fits); else (a body that turned far within the step, or a K so
	 * ill-conditioned that the rounded inverse never passes: a light bob with a tiny inertia
	 * on a long arm) it is computed again, as the pre-step does. */
	int64_t k11, k12, k22;
	point_k(a, b, j->r_a, j->r_b, &k11, &k12, &k22);
	if (!f2d_inverse22_fits(j->k11, j->k12, j->k22, k11, k12, k22)) {
		point_inverse(w, k11, k12, k22, &j->k11, &j->k12, &j->k22);
	}
}

/* ---- fast path ----
 *
 * The exact path above saturates and reports every intermediate value. In a sane scene none of
 * them comes near the fix16 range, so the fast path computes the same expressions on 64-bit
 * locals without the saturations and checks once, at the end, that every value the exact path
 * saturates was in [-2^30, 2^30) (f2d_fast_chk, F2D_FAST_OK; the arithmetic on values that may
 * not have passed is modulo 2^64, see fmath.h). Then every jsat of the exact path was the
 * identity, every operand equals the exact path's, and each product and sum below is one the
 * exact path computes in 64 bits without overflow: the two paths give the same bits. Otherwise
 * nothing is written and the exact path runs from the unchanged state.
 *
 * Test-only switches (tests/test_solver_paths.c; never defined in a real build):
 * F2D_JOINT_EXACT_ONLY: always the exact path (FAST_PATH 0), the reference the test compares
 * against.
 * F2D_JOINT_COUNT_PATHS: counts the joints each path handled (warm start fast, warm start
 * exact, solve fast, solve exact), so that the test can show both paths ran. Not thread-safe. */
#ifdef F2D_JOINT_COUNT_PATHS
extern uint64_t f2d_joint_path_counts[4];
uint64_t f2d_joint_path_counts[4];
#define COUNT_PATH(i) (f2d_joint_path_counts[i]++)
/* the soft step's substep geometry on AVX-512 (joints_substep_batches): lanes done on 8 lanes,
 * lanes whose bias check failed (f2d_joint_substep instead), lanes whose K^-1 was inverted
 * again */
extern uint64_t f2d_joint_substep_counts[3];
uint64_t f2d_joint_substep_counts[3];
#define COUNT_SUBSTEP(i) (f2d_joint_substep_counts[i]++)
#else
#define COUNT_PATH(i) ((void)0)
#define COUNT_SUBSTEP(i) ((void)0)
#endif
#ifdef F2D_JOINT_EXACT_ONLY
enum { FAST_PATH = 0 };
#else
enum { FAST_PATH = 1 };
#endif

/* One body's velocity in 64-bit locals of the fast path. */
typedef struct jvel {
	int64_t x, y, w;
} jvel;

static inline jvel load_jvel(const f2d_body *b)
{
	jvel v = {b->v.x, b->v.y, b->w};
	return v;
}

static inline void store_jvel(f2d_body *b, jvel v)
{
	b->v = f2d_v((fix16_t)v.x, (fix16_t)v.y);
	b->w = (fix16_t)v.w;
}

/* apply_point on the locals va, vb: p = (px, py) must already be checked (or be fix16 values).
 * The arms r_a, r_b are fix16, so with p checked each product is below 2^61 and the cross
 * product exact; the cross products, the angular impulses r x p + axial and the new
 * velocities are checked: the values apply_point saturates. */
static inline void apply_point_fast(jvel *va, jvel *vb, const f2d_joint *j, const f2d_body *a,
                                    const f2d_body *b, int64_t px, int64_t py, int64_t axial,
                                    uint64_t *acc)
{
	va->x = f2d_wsub(va->x, f2d_wround16(f2d_wmul(a->inv_mass, px)));
	va->y = f2d_wsub(va->y, f2d_wround16(f2d_wmul(a->inv_mass, py)));
	vb->x = f2d_wadd(vb->x, f2d_wround16(f2d_wmul(b->inv_mass, px)));
	vb->y = f2d_wadd(vb->y, f2d_wround16(f2d_wmul(b->inv_mass, py)));
	int64_t ca = f2d_wround16(f2d_wsub(f2d_wmul(j->r_a.x, py), f2d_wmul(j->r_a.y, px)));
	int64_t cb = f2d_wround16(f2d_wsub(f2d_wmul(j->r_b.x, py), f2d_wmul(j->r_b.y, px)));
	int64_t ta = f2d_wadd(ca, axial), tb = f2d_wadd(cb, axial);
	va->w = f2d_wsub(va->w, f2d_wround16(f2d_wmul(a->inv_inertia, ta)));
	vb->w = f2d_wadd(vb->w, f2d_wround16(f2d_wmul(b->inv_inertia, tb)));
	*acc |= f2d_fast_chk(ca) | f2d_fast_chk(cb) | f2d_fast_chk(ta) | f2d_fast_chk(tb) |
	        f2d_fast_chk(va->x) | f2d_fast_chk(va->y) | f2d_fast_chk(va->w) |
	        f2d_fast_chk(vb->x) | f2d_fast_chk(vb->y) | f2d_fast_chk(vb->w);
}

/* Warm start, fast path: the axial impulse (a sum of three fix16 values, exact in 64 bits) is
 * checked as the exact path saturates it; the point impulse is state, fix16 already. */
static bool warm_start_fast(f2d_joint *j, f2d_body *a, f2d_body *b)
{
	jvel va = load_jvel(a), vb = load_jvel(b);
	int64_t axial = (int64_t)j->motor_impulse + j->lower_impulse - (int64_t)j->upper_impulse;
	uint64_t acc = f2d_fast_chk(axial);
	apply_point_fast(&va, &vb, j, a, b, j->impulse.x, j->impulse.y, axial, &acc);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	store_jvel(a, va);
	store_jvel(b, vb);
	return true;
}

void f2d_joint_warm_start(f2d_world *w, f2d_joint *j)
{
	if (j->type != F2D_REVOLUTE_JOINT) {
		f2d_joint_ext_warm_start(w, j);
		return;
	}
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (FAST_PATH && warm_start_fast(j, a, b)) {
		COUNT_PATH(0);
		return;
	}
	COUNT_PATH(1);
	fix16_t axial =
	    jsat(w, (int64_t)j->motor_impulse + j->lower_impulse - (int64_t)j->upper_impulse);
	apply_point(w, j, a, b, j->impulse, axial);
}

static void apply_angular(f2d_world *w, f2d_body *a, f2d_body *b, fix16_t impulse)
{
	a->w = jmsub(w, a->w, a->inv_inertia, impulse);
	b->w = jmadd(w, b->w, b->inv_inertia, impulse);
}

/* One side of the angle limit: bias = C / h when C > 0 (speculative), beta C / h when violated;
 * lambda = -m_axial (Cdot + bias), accumulated impulse kept >= 0. Returns the increment. */
static fix16_t limit_step(f2d_world *w, const f2d_joint *j, fix16_t c, fix16_t cdot, fix16_t beta_h,
                          fix16_t *accumulated)
{
	fix16_t bias = c > 0 ? jmul(w, c, w->inv_h) : jmul(w, beta_h, c);
	fix16_t impulse = -jmul(w, j->axial_mass, jsat(w, (int64_t)cdot + bias));
	fix16_t old = *accumulated; /* >= 0, so the increment below fits */
	int64_t next = (int64_t)old + impulse;
	*accumulated = jsat(w, next > 0 ? next : 0);
	return *accumulated - old;
}

/* The point constraint of f2d_joint_solve, exact path: P = K^-1 (bias - Cdot),
 * Cdot = v_b + w_b x r_b - v_a - w_a x r_a, each component summed in 64 bits
 * (w x r = (-w r.y, w r.x)). */
F2D_NOINLINE static void solve_point_exact(f2d_world *w, f2d_joint *j, f2d_body *a, f2d_body *b)
{
	int64_t cx = (int64_t)b->v.x - f2d_round16((int64_t)b->w * j->r_b.y) - a->v.x +
	             f2d_round16((int64_t)a->w * j->r_a.y);
	int64_t cy = (int64_t)b->v.y + f2d_round16((int64_t)b->w * j->r_b.x) - a->v.y -
	             f2d_round16((int64_t)a->w * j->r_a.x);
	fix16_t rx = jsat(w, (int64_t)j->bias.x - jsat(w, cx));
	fix16_t ry = jsat(w, (int64_t)j->bias.y - jsat(w, cy));
	/* |k|, |r| <= 2^31 - 1: each product is below 2^62, their sum below 2^63 */
	f2d_vec2 p = f2d_v(jsat(w, f2d_round16((int64_t)j->k11 * rx + (int64_t)j->k12 * ry)),
	                   jsat(w, f2d_round16((int64_t)j->k12 * rx + (int64_t)j->k22 * ry)));
	j->impulse.x = jsat(w, (int64_t)j->impulse.x + p.x);
	j->impulse.y = jsat(w, (int64_t)j->impulse.y + p.y);
	apply_point(w, j, a, b, p, 0);
}

/* The point constraint, fast path: the expressions of solve_point_exact. The inputs are fix16,
 * so Cdot is exact in 64 bits as there (below 2^49) and bias - Cdot too; Cdot, bias - Cdot, P
 * and the new accumulated impulse are checked (with bias - Cdot checked, |K^-1| < 2^31 makes
 * each product of P below 2^61), then apply_point_fast with no axial impulse. */
static inline bool solve_point_fast(f2d_joint *j, f2d_body *a, f2d_body *b)
{
	int64_t wa = a->w, wb = b->w;
	int64_t cx =
	    (int64_t)b->v.x - f2d_round16(wb * j->r_b.y) - a->v.x + f2d_round16(wa * j->r_a.y);
	int64_t cy =
	    (int64_t)b->v.y + f2d_round16(wb * j->r_b.x) - a->v.y - f2d_round16(wa * j->r_a.x);
	int64_t rx = j->bias.x - cx, ry = j->bias.y - cy;
	uint64_t acc = f2d_fast_chk(cx) | f2d_fast_chk(cy) | f2d_fast_chk(rx) | f2d_fast_chk(ry);
	F2D_FAST_FOLD(acc);
	int64_t px = f2d_wround16(f2d_wadd(f2d_wmul(j->k11, rx), f2d_wmul(j->k12, ry)));
	int64_t py = f2d_wround16(f2d_wadd(f2d_wmul(j->k12, rx), f2d_wmul(j->k22, ry)));
	int64_t ix = f2d_wadd(j->impulse.x, px), iy = f2d_wadd(j->impulse.y, py);
	acc |= f2d_fast_chk(px) | f2d_fast_chk(py) | f2d_fast_chk(ix) | f2d_fast_chk(iy);
	F2D_FAST_FOLD(acc);
	jvel va = load_jvel(a), vb = load_jvel(b);
	apply_point_fast(&va, &vb, j, a, b, px, py, 0, &acc);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	j->impulse = f2d_v((fix16_t)ix, (fix16_t)iy);
	store_jvel(a, va);
	store_jvel(b, vb);
	return true;
}

/* Motor and angle limits, exact (see above f2d_joint_prestep). */
F2D_NOINLINE static void solve_angular(f2d_world *w, f2d_joint *j, f2d_body *a, f2d_body *b)
{
	if (j->enable_motor) {
		fix16_t cdot = jsat(w, (int64_t)b->w - a->w - j->motor_speed);
		fix16_t impulse = -jmul(w, j->axial_mass, cdot);
		fix16_t max_impulse = jmul(w, j->max_motor_torque, w->h);
		fix16_t old = j->motor_impulse;
		int64_t next = (int64_t)old + impulse;
		j->motor_impulse =
		    (fix16_t)(next < -max_impulse ? -max_impulse
		                                  : (next > max_impulse ? max_impulse : next));
		apply_angular(w, a, b, jsat(w, (int64_t)j->motor_impulse - old));
	}
	if (j->enable_limit) {
		/* the relax pass (f2d_joints_relax): no Baumgarte share, the speculative one stays */
		fix16_t beta_h = w->joint_relax ? 0 : jmul(w, w->def.bias_factor, w->inv_h);
		/* lower: C = angle - lower, Cdot = w_b - w_a; upper: the mirror image */
		fix16_t d = limit_step(w, j, j->angle - j->lower, jsat(w, (int64_t)b->w - a->w),
		                       beta_h, &j->lower_impulse);
		apply_angular(w, a, b, d);
		d = limit_step(w, j, j->upper - j->angle, jsat(w, (int64_t)a->w - b->w), beta_h,
		               &j->upper_impulse);
		apply_angular(w, a, b, -d);
	}
}

void f2d_joint_solve(f2d_world *w, f2d_joint *j)
{
	if (j->type != F2D_REVOLUTE_JOINT) {
		f2d_joint_ext_solve(w, j);
		return;
	}
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	if (j->enable_motor || j->enable_limit) {
		solve_angular(w, j, a, b);
	}
	if (FAST_PATH && solve_point_fast(j, a, b)) {
		COUNT_PATH(2);
		return;
	}
	COUNT_PATH(3);
	solve_point_exact(w, j, a, b);
}

/* ---- coloured passes ----
 *
 * Gauss-Seidel over the joints in a fixed order: colour after colour, in id order inside a
 * colour. Each joint takes the lowest colour (of 63) that neither of its dynamic bodies has
 * yet; a joint whose bodies have all 63 goes to the overflow colour, solved last, one after
 * the other. Two joints of one colour share no body whose velocity an impulse changes (static
 * and kinematic bodies have no inverse mass), so inside a colour the order cannot change a bit,
 * and the point constraints of up to 8 joints of a colour are solved at once in AVX-512 lanes
 * (solve_point_fast on 8 lanes) with the result of one after the other. A joint with a motor or
 * limits, and a lane whose range check fails, takes f2d_joint_solve (fast path, else exact). */

/* What a pass over the joints does: the warm start, a velocity iteration, or the soft step's
 * relax iteration (f2d_joints_relax). */
typedef enum joint_pass { PASS_WARM, PASS_SOLVE, PASS_RELAX } joint_pass;

static void joint_relax(f2d_world *w, f2d_joint *j, const fix16_t rigid[3]);

/* One joint by the scalar code: its warm start, one velocity iteration or its relax
 * iteration (rigid: f2d_rigid_soft's triple, read by PASS_RELAX only). */
static inline void joint_scalar(f2d_world *w, f2d_joint *j, joint_pass pass, const fix16_t rigid[3])
{
	if (pass == PASS_WARM) {
		f2d_joint_warm_start(w, j);
	} else if (pass == PASS_SOLVE) {
		f2d_joint_solve(w, j);
	} else {
		joint_relax(w, j, rigid);
	}
}

#if F2D_X86_SIMD && !defined(F2D_JOINT_EXACT_ONLY)
#include <immintrin.h>
#include <stddef.h>
#define JOINT_SIMD 1
#define AVX512 __attribute__((target("avx512f,avx512dq,avx2")))

AVX512 static inline __m512i jld(const int64_t *p)
{
	return _mm512_loadu_si512(p);
}
AVX512 static inline __m512i jr16(__m512i p)
{
	__m512i r = _mm512_add_epi64(_mm512_add_epi64(p, _mm512_set1_epi64(0x8000)),
	                             _mm512_srai_epi64(p, 63));
	return _mm512_srai_epi64(r, 16);
}
AVX512 static inline __m512i jchk(__m512i x)
{
	return _mm512_add_epi64(x, _mm512_set1_epi64((int64_t)1 << 30));
}
#define JMUL _mm512_mul_epi32
#define JADD _mm512_add_epi64
#define JSUB _mm512_sub_epi64
#define JOR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0xFE)

/* The lanes' fields straight from the bodies and joints (instead of 8 scalar stores to a
 * staging array and a vector load of it, which stalls on the store forwarding): a masked
 * 8-byte gather per lane, at byte offset off of element idx[l] of an array of elements of
 * size bytes (a multiple of 8), 0 in the lanes outside m. Ids are below F2D_MAX_OBJECTS =
 * 2^20, so idx[l] * size / 8 < 2^26 fits the 32-bit indices. x86 is little-endian: the
 * first fix16 of the 8 bytes is the low half (jlo32), the second the high half (jhi32), each
 * sign-extended as the scalar code's (int64_t) casts. */
_Static_assert(F2D_MAX_OBJECTS <= (1 << 20), "joint lane gathers: 32-bit indices");
_Static_assert(sizeof(f2d_body) % 8 == 0 && sizeof(f2d_joint) % 8 == 0,
               "joint lane gathers: elements of whole 8-byte words");
AVX512 static inline __m512i jgather(const void *array, size_t size, size_t off,
                                     const int32_t idx[8], __mmask8 m)
{
	__m256i i = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(const void *)idx),
	                               _mm256_set1_epi32((int32_t)(size / 8)));
	return _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), m, i,
	                                   (const char *)array + off, 8);
}
AVX512 static inline __m512i jlo32(__m512i g)
{
	return _mm512_srai_epi64(_mm512_slli_epi64(g, 32), 32);
}
AVX512 static inline __m512i jhi32(__m512i g)
{
	return _mm512_srai_epi64(g, 32);
}
/* v.x, v.y and w of the bodies idx[l] of the lanes m (0 elsewhere) into o[0..2] */
AVX512 static inline void jgather_vel(const f2d_body *bodies, const int32_t idx[8], __mmask8 m,
                                      __m512i o[3])
{
	__m512i v = jgather(bodies, sizeof(f2d_body), offsetof(f2d_body, v), idx, m);
	__m512i w = jgather(bodies, sizeof(f2d_body), offsetof(f2d_body, w), idx, m);
	o[0] = jlo32(v);
	o[1] = jhi32(v);
	o[2] = jlo32(w);
}
_Static_assert(offsetof(f2d_body, v) % 4 == 0 && offsetof(f2d_body, w) + 8 <= sizeof(f2d_body),
               "joint lane gathers: the 8 bytes at w lie in the body");

/* solve_point_fast on 8 lanes, operation for operation. Every product operand is a fix16
 * value (velocities, arms, K^-1, masses) or a checked one (bias - Cdot, P, the angular
 * impulses), so vpmuldq (32 x 32 -> 64) gives solve_point_fast's products whenever the lane's
 * check passes. v: the lanes' velocities in, the new ones out; the impulses are updated in the
 * batch for the lanes that passed, which are returned. */
AVX512 static unsigned joint_lanes_avx512(f2d_joint_batch *x, const f2d_body *bodies,
                                          int64_t v[6][8], bool relax)
{
	__m512i in[6];
	jgather_vel(bodies, x->ba, (__mmask8)x->live, in);
	jgather_vel(bodies, x->bb, (__mmask8)x->live, in + 3);
	__m512i vax = in[0], vay = in[1], wa = in[2];
	__m512i vbx = in[3], vby = in[4], wb = in[5];
	__m512i rax = jld(x->rax), ray = jld(x->ray), rbx = jld(x->rbx), rby = jld(x->rby);
	__m512i cx = JADD(JSUB(JSUB(vbx, jr16(JMUL(wb, rby))), vax), jr16(JMUL(wa, ray)));
	__m512i cy = JSUB(JSUB(JADD(vby, jr16(JMUL(wb, rbx))), vay), jr16(JMUL(wa, rax)));
	/* the relax pass (f2d_joints_relax): the point's bias 0 */
	__m512i bx = relax ? _mm512_setzero_si512() : jld(x->bx);
	__m512i by = relax ? _mm512_setzero_si512() : jld(x->by);
	__m512i rx = JSUB(bx, cx), ry = JSUB(by, cy);
	__m512i acc = JOR3(jchk(cx), jchk(cy), _mm512_or_si512(jchk(rx), jchk(ry)));
	__m512i k12 = jld(x->k12);
	__m512i px = jr16(JADD(JMUL(jld(x->k11), rx), JMUL(k12, ry)));
	__m512i py = jr16(JADD(JMUL(k12, rx), JMUL(jld(x->k22), ry)));
	__m512i ix = JADD(jld(x->ix), px), iy = JADD(jld(x->iy), py);
	acc = JOR3(acc, JOR3(jchk(px), jchk(py), jchk(ix)), jchk(iy));
	__m512i ma = jld(x->ma), mb = jld(x->mb);
	vax = JSUB(vax, jr16(JMUL(ma, px)));
	vay = JSUB(vay, jr16(JMUL(ma, py)));
	vbx = JADD(vbx, jr16(JMUL(mb, px)));
	vby = JADD(vby, jr16(JMUL(mb, py)));
	__m512i ca = jr16(JSUB(JMUL(rax, py), JMUL(ray, px)));
	__m512i cb = jr16(JSUB(JMUL(rbx, py), JMUL(rby, px)));
	wa = JSUB(wa, jr16(JMUL(jld(x->ia), ca)));
	wb = JADD(wb, jr16(JMUL(jld(x->ib), cb)));
	acc = JOR3(acc, jchk(ca), jchk(cb));
	acc = JOR3(acc, JOR3(jchk(vax), jchk(vay), jchk(wa)), JOR3(jchk(vbx), jchk(vby), jchk(wb)));
	unsigned ok =
	    (unsigned)_mm512_cmplt_epu64_mask(acc, _mm512_set1_epi64((int64_t)1 << 31)) & x->live;
	_mm512_storeu_si512(v[0], vax);
	_mm512_storeu_si512(v[1], vay);
	_mm512_storeu_si512(v[2], wa);
	_mm512_storeu_si512(v[3], vbx);
	_mm512_storeu_si512(v[4], vby);
	_mm512_storeu_si512(v[5], wb);
	_mm512_mask_storeu_epi64(x->ix, (__mmask8)ok, ix);
	_mm512_mask_storeu_epi64(x->iy, (__mmask8)ok, iy);
	return ok;
}

/* warm_start_fast on 8 lanes without motor and limits (no axial impulse): apply_point_fast
 * with P the accumulated impulse (fix16 values); returns the lanes that passed. */
AVX512 static unsigned joint_warm_avx512(const f2d_joint_batch *x, const f2d_body *bodies,
                                         int64_t v[6][8])
{
	__m512i in[6];
	jgather_vel(bodies, x->ba, (__mmask8)x->live, in);
	jgather_vel(bodies, x->bb, (__mmask8)x->live, in + 3);
	__m512i px = jld(x->ix), py = jld(x->iy);
	__m512i ma = jld(x->ma), mb = jld(x->mb);
	__m512i vax = JSUB(in[0], jr16(JMUL(ma, px)));
	__m512i vay = JSUB(in[1], jr16(JMUL(ma, py)));
	__m512i vbx = JADD(in[3], jr16(JMUL(mb, px)));
	__m512i vby = JADD(in[4], jr16(JMUL(mb, py)));
	__m512i ca = jr16(JSUB(JMUL(jld(x->rax), py), JMUL(jld(x->ray), px)));
	__m512i cb = jr16(JSUB(JMUL(jld(x->rbx), py), JMUL(jld(x->rby), px)));
	__m512i wa = JSUB(in[2], jr16(JMUL(jld(x->ia), ca)));
	__m512i wb = JADD(in[5], jr16(JMUL(jld(x->ib), cb)));
	__m512i acc =
	    JOR3(JOR3(jchk(vax), jchk(vay), jchk(wa)), JOR3(jchk(vbx), jchk(vby), jchk(wb)),
	         _mm512_or_si512(jchk(ca), jchk(cb)));
	_mm512_storeu_si512(v[0], vax);
	_mm512_storeu_si512(v[1], vay);
	_mm512_storeu_si512(v[2], wa);
	_mm512_storeu_si512(v[3], vbx);
	_mm512_storeu_si512(v[4], vby);
	_mm512_storeu_si512(v[5], wb);
	return (unsigned)_mm512_cmplt_epu64_mask(acc, _mm512_set1_epi64((int64_t)1 << 31)) &
	       x->live;
}

/* ---- the same lanes on AVX2 (a CPU without AVX-512, and valgrind): 4 lanes at a time ----
 * Operation for operation joint_lanes_avx512 and joint_warm_avx512 on 4 x 64-bit lanes.
 * vpmuldq (_mm256_mul_epi32) is the same product; AVX2 has no 64-bit arithmetic shift, so
 * j2r16 shifts logically and fills the top 16 bits with the sign (cmpgt against 0), which is
 * the arithmetic shift; the check accumulator is below 2^31 unsigned iff it shifted right by
 * 31 is 0. The velocities are read by scalar loads into the vectors (0 in lanes not live). */
#define AVX2 __attribute__((target("avx2")))
AVX2 static inline __m256i j2ld(const int64_t *p)
{
	return _mm256_loadu_si256((const __m256i *)(const void *)p);
}
AVX2 static inline __m256i j2r16(__m256i p)
{
	__m256i zero = _mm256_setzero_si256();
	__m256i r = _mm256_add_epi64(_mm256_add_epi64(p, _mm256_set1_epi64x(0x8000)),
	                             _mm256_cmpgt_epi64(zero, p));
	return _mm256_or_si256(_mm256_srli_epi64(r, 16),
	                       _mm256_slli_epi64(_mm256_cmpgt_epi64(zero, r), 48));
}
AVX2 static inline __m256i j2chk(__m256i x)
{
	return _mm256_add_epi64(x, _mm256_set1_epi64x((int64_t)1 << 30));
}
/* the lanes h..h+3 whose accumulator is below 2^31, as bits h..h+3 */
AVX2 static inline unsigned j2ok(__m256i acc, int32_t h)
{
	__m256i hi = _mm256_srli_epi64(acc, 31);
	__m256i z = _mm256_cmpeq_epi64(hi, _mm256_setzero_si256());
	return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(z)) << h;
}
#define J2MUL _mm256_mul_epi32
#define J2ADD _mm256_add_epi64
#define J2SUB _mm256_sub_epi64
#define J2OR _mm256_or_si256
/* v.x, v.y, w of bodies idx[h..h+3] of the live lanes (0 in the others) into o[0..2] */
AVX2 static inline void j2vel(const f2d_joint_batch *x, const f2d_body *bodies,
                              const int32_t idx[8], int32_t h, __m256i o[3])
{
	int64_t t[3][4];
	for (int32_t l = 0; l < 4; ++l) {
		if ((x->live >> (h + l) & 1u) != 0) {
			const f2d_body *b = &bodies[idx[h + l]];
			t[0][l] = b->v.x;
			t[1][l] = b->v.y;
			t[2][l] = b->w;
		} else {
			t[0][l] = t[1][l] = t[2][l] = 0;
		}
	}
	for (int32_t k = 0; k < 3; ++k) {
		o[k] = _mm256_set_epi64x(t[k][3], t[k][2], t[k][1], t[k][0]);
	}
}
AVX2 static inline void j2store(int64_t v[6][8], int32_t h, __m256i vax, __m256i vay,
                                __m256i wa, __m256i vbx, __m256i vby, __m256i wb)
{
	_mm256_storeu_si256((__m256i *)(void *)&v[0][h], vax);
	_mm256_storeu_si256((__m256i *)(void *)&v[1][h], vay);
	_mm256_storeu_si256((__m256i *)(void *)&v[2][h], wa);
	_mm256_storeu_si256((__m256i *)(void *)&v[3][h], vbx);
	_mm256_storeu_si256((__m256i *)(void *)&v[4][h], vby);
	_mm256_storeu_si256((__m256i *)(void *)&v[5][h], wb);
}

/* joint_lanes_avx512 for the lanes h..h+3 */
AVX2 static unsigned joint_lanes_avx2(f2d_joint_batch *x, const f2d_body *bodies,
                                      int64_t v[6][8], bool relax, int32_t h)
{
	__m256i in[6];
	j2vel(x, bodies, x->ba, h, in);
	j2vel(x, bodies, x->bb, h, in + 3);
	__m256i vax = in[0], vay = in[1], wa = in[2];
	__m256i vbx = in[3], vby = in[4], wb = in[5];
	__m256i rax = j2ld(x->rax + h), ray = j2ld(x->ray + h);
	__m256i rbx = j2ld(x->rbx + h), rby = j2ld(x->rby + h);
	__m256i cx = J2ADD(J2SUB(J2SUB(vbx, j2r16(J2MUL(wb, rby))), vax), j2r16(J2MUL(wa, ray)));
	__m256i cy = J2SUB(J2SUB(J2ADD(vby, j2r16(J2MUL(wb, rbx))), vay), j2r16(J2MUL(wa, rax)));
	/* the relax pass (f2d_joints_relax): the point's bias 0 */
	__m256i bx = relax ? _mm256_setzero_si256() : j2ld(x->bx + h);
	__m256i by = relax ? _mm256_setzero_si256() : j2ld(x->by + h);
	__m256i rx = J2SUB(bx, cx), ry = J2SUB(by, cy);
	__m256i acc = J2OR(J2OR(j2chk(cx), j2chk(cy)), J2OR(j2chk(rx), j2chk(ry)));
	__m256i k12 = j2ld(x->k12 + h);
	__m256i px = j2r16(J2ADD(J2MUL(j2ld(x->k11 + h), rx), J2MUL(k12, ry)));
	__m256i py = j2r16(J2ADD(J2MUL(k12, rx), J2MUL(j2ld(x->k22 + h), ry)));
	__m256i ix = J2ADD(j2ld(x->ix + h), px), iy = J2ADD(j2ld(x->iy + h), py);
	acc = J2OR(acc, J2OR(J2OR(j2chk(px), j2chk(py)), J2OR(j2chk(ix), j2chk(iy))));
	__m256i ma = j2ld(x->ma + h), mb = j2ld(x->mb + h);
	vax = J2SUB(vax, j2r16(J2MUL(ma, px)));
	vay = J2SUB(vay, j2r16(J2MUL(ma, py)));
	vbx = J2ADD(vbx, j2r16(J2MUL(mb, px)));
	vby = J2ADD(vby, j2r16(J2MUL(mb, py)));
	__m256i ca = j2r16(J2SUB(J2MUL(rax, py), J2MUL(ray, px)));
	__m256i cb = j2r16(J2SUB(J2MUL(rbx, py), J2MUL(rby, px)));
	wa = J2SUB(wa, j2r16(J2MUL(j2ld(x->ia + h), ca)));
	wb = J2ADD(wb, j2r16(J2MUL(j2ld(x->ib + h), cb)));
	acc = J2OR(acc, J2OR(j2chk(ca), j2chk(cb)));
	acc = J2OR(acc, J2OR(J2OR(j2chk(vax), j2chk(vay)), j2chk(wa)));
	acc = J2OR(acc, J2OR(J2OR(j2chk(vbx), j2chk(vby)), j2chk(wb)));
	unsigned ok = j2ok(acc, h) & x->live;
	j2store(v, h, vax, vay, wa, vbx, vby, wb);
	__m256i keep = _mm256_set_epi64x(ok >> (h + 3) & 1u ? -1 : 0, ok >> (h + 2) & 1u ? -1 : 0,
	                                  ok >> (h + 1) & 1u ? -1 : 0, ok >> h & 1u ? -1 : 0);
	_mm256_maskstore_epi64((long long *)(void *)(x->ix + h), keep, ix);
	_mm256_maskstore_epi64((long long *)(void *)(x->iy + h), keep, iy);
	return ok;
}

/* joint_warm_avx512 for the lanes h..h+3 */
AVX2 static unsigned joint_warm_avx2(const f2d_joint_batch *x, const f2d_body *bodies,
                                     int64_t v[6][8], int32_t h)
{
	__m256i in[6];
	j2vel(x, bodies, x->ba, h, in);
	j2vel(x, bodies, x->bb, h, in + 3);
	__m256i px = j2ld(x->ix + h), py = j2ld(x->iy + h);
	__m256i ma = j2ld(x->ma + h), mb = j2ld(x->mb + h);
	__m256i vax = J2SUB(in[0], j2r16(J2MUL(ma, px)));
	__m256i vay = J2SUB(in[1], j2r16(J2MUL(ma, py)));
	__m256i vbx = J2ADD(in[3], j2r16(J2MUL(mb, px)));
	__m256i vby = J2ADD(in[4], j2r16(J2MUL(mb, py)));
	__m256i ca = j2r16(J2SUB(J2MUL(j2ld(x->rax + h), py), J2MUL(j2ld(x->ray + h), px)));
	__m256i cb = j2r16(J2SUB(J2MUL(j2ld(x->rbx + h), py), J2MUL(j2ld(x->rby + h), px)));
	__m256i wa = J2SUB(in[2], j2r16(J2MUL(j2ld(x->ia + h), ca)));
	__m256i wb = J2ADD(in[5], j2r16(J2MUL(j2ld(x->ib + h), cb)));
	__m256i acc = J2OR(J2OR(J2OR(j2chk(vax), j2chk(vay)), J2OR(j2chk(wa), j2chk(vbx))),
	                   J2OR(J2OR(j2chk(vby), j2chk(wb)), J2OR(j2chk(ca), j2chk(cb))));
	j2store(v, h, vax, vay, wa, vbx, vby, wb);
	return j2ok(acc, h) & x->live;
}

/* A batch's lane impulse to and from its joint (around a scalar solve, and at the end). */
static inline void lane_to_joint(const f2d_joint_batch *x, int32_t l, f2d_joint *j)
{
	j->impulse = f2d_v((fix16_t)x->ix[l], (fix16_t)x->iy[l]);
}
static inline void joint_to_lane(f2d_joint_batch *x, int32_t l, const f2d_joint *j)
{
	x->ix[l] = j->impulse.x;
	x->iy[l] = j->impulse.y;
}

/* Up to 8 joints of one colour: those without motor and limits (x->live) in lanes, the rest
 * (and the lanes that failed their check) by f2d_joint_solve; all independent. */
static void joint_batch_pass(f2d_world *w, f2d_joint_batch *x, joint_pass pass, bool last,
                             const fix16_t rigid[3], int kernel)
{
	bool warm = pass == PASS_WARM;
	int64_t v[6][8]; /* the lanes' new velocities */
	f2d_body *bodies = w->bodies;
	/* the other joints first (they share no body that moves with a lane: one colour), then
	 * the lanes gather their velocities (0 in the lanes that are not live) */
	if (x->live != (1u << x->n) - 1u) {
		for (int32_t l = 0; l < x->n; ++l) {
			if ((x->live >> l & 1u) == 0) {
				joint_scalar(w, &w->joints[x->ids[l]], pass, rigid);
			}
		}
	}
	unsigned ok = 0;
	if (kernel == F2D_KERNEL_AVX512) {
		ok = warm ? joint_warm_avx512(x, bodies, v)
		          : joint_lanes_avx512(x, bodies, v, pass == PASS_RELAX);
	} else {
		for (int32_t h = 0; h < x->n; h += 4) {
			if ((x->live >> h & 15u) == 0) {
				continue;
			}
			ok |= warm ? joint_warm_avx2(x, bodies, v, h)
			           : joint_lanes_avx2(x, bodies, v, pass == PASS_RELAX, h);
		}
	}
	for (int32_t l = 0; l < x->n; ++l) {
		if ((ok >> l & 1u) != 0) {
			f2d_body *a = &bodies[x->ba[l]];
			f2d_body *b = &bodies[x->bb[l]];
			a->v = f2d_v((fix16_t)v[0][l], (fix16_t)v[1][l]);
			a->w = (fix16_t)v[2][l];
			b->v = f2d_v((fix16_t)v[3][l], (fix16_t)v[4][l]);
			b->w = (fix16_t)v[5][l];
			COUNT_PATH(warm ? 0 : 2);
			if (last) {
				lane_to_joint(x, l, &w->joints[x->ids[l]]);
			}
		} else if ((x->live >> l & 1u) != 0) {
			/* from the unchanged state, with the lane's impulse */
			f2d_joint *j = &w->joints[x->ids[l]];
			lane_to_joint(x, l, j);
			joint_scalar(w, j, pass, rigid);
			joint_to_lane(x, l, j);
		}
	}
}

/* A lane's values that the substep geometry changes (f2d_joints_substep: arms, biases, K^-1)
 * and the impulses, from its joint; the rest of build_joint_batches' (bodies, masses, lanes)
 * is the step's. */
static inline void refresh_lane(f2d_joint_batch *x, int32_t l, const f2d_joint *j)
{
	x->rax[l] = j->r_a.x;
	x->ray[l] = j->r_a.y;
	x->rbx[l] = j->r_b.x;
	x->rby[l] = j->r_b.y;
	x->bx[l] = j->bias.x;
	x->by[l] = j->bias.y;
	x->k11[l] = j->k11;
	x->k12[l] = j->k12;
	x->k22[l] = j->k22;
	x->ix[l] = j->impulse.x;
	x->iy[l] = j->impulse.y;
}

/* The batches of the coloured joints (color_joints' order): the layout and each lane's masses
 * (prestep_batches adds the step's values). */
static void build_joint_batches(f2d_world *w, int32_t n)
{
	int32_t nb = 0;
	for (int32_t i = 0; i < n;) {
		int32_t c = w->joint_order_color[i], e = i + 1;
		while (e < n && e - i < 8 && w->joint_order_color[e] == c) {
			e++;
		}
		f2d_joint_batch *x = &w->joint_batches[nb++];
		memset(x, 0, sizeof *x);
		x->n = e - i;
		x->sequential = c == F2D_OVERFLOW_COLOR || e - i == 1;
		for (int32_t l = 0; l < x->n; ++l) {
			const f2d_joint *j = &w->joints[w->joint_order[i + l]];
			x->ids[l] = w->joint_order[i + l];
			/* a lane of its own joint's (the joint's impulses stay in the joint) */
			if (x->sequential || j->enable_motor || j->enable_limit ||
			    j->type != F2D_REVOLUTE_JOINT) {
				continue;
			}
			const f2d_body *a = &w->bodies[j->body_a];
			const f2d_body *b = &w->bodies[j->body_b];
			x->live |= 1u << l;
			x->ba[l] = j->body_a;
			x->bb[l] = j->body_b;
			x->ma[l] = a->inv_mass;
			x->mb[l] = b->inv_mass;
			x->ia[l] = a->inv_inertia;
			x->ib[l] = b->inv_inertia;
		}
		i = e;
	}
	w->joint_batch_count = nb;
}

/* (fix16_t) of a 64-bit lane: its low 32 bits, sign-extended (the casts of f2d_rotate and
 * f2d_mul, which keep the low 32 bits) */
AVX512 static inline __m512i jtrunc32(__m512i v)
{
	return _mm512_cvtepi32_epi64(_mm512_cvtepi64_epi32(v));
}
/* f2d_mul of two fix16 lanes */
AVX512 static inline __m512i jfmul(__m512i a, __m512i b)
{
	return jtrunc32(jr16(JMUL(a, b)));
}

/* The in-lane inputs of joint_substep_avx512 for the lanes m (0 in the others): the
 * rotations and centres of both bodies, gathered (jgather); the joint's local anchors less
 * the bodies' local centres (f2d_sub: a 32-bit difference; only its low 32 bits are read, by
 * vpmuldq), gathered in the pre-step (fresh) and kept in the batch for the substeps (no
 * substep changes them); the step's K^-1 from the batch (refresh_lane and the substeps keep
 * it equal to the joint's). */
typedef struct substep_in {
	__m512i qac, qas, lax, lay, cax, cay;
	__m512i qbc, qbs, lbx, lby, cbx, cby;
	__m512i m11, m12, m22;
} substep_in;

_Static_assert(offsetof(f2d_body, q.s) == offsetof(f2d_body, q.c) + 4 &&
                   offsetof(f2d_body, center.y) == offsetof(f2d_body, center.x) + 4 &&
                   offsetof(f2d_body, local_center.y) == offsetof(f2d_body, local_center.x) + 4 &&
                   offsetof(f2d_joint, k12) == offsetof(f2d_joint, k11) + 4 &&
                   offsetof(f2d_joint, k22) == offsetof(f2d_joint, k12) + 4 &&
                   offsetof(f2d_joint, local_a.y) == offsetof(f2d_joint, local_a.x) + 4 &&
                   offsetof(f2d_joint, local_b.y) == offsetof(f2d_joint, local_b.x) + 4,
               "substep gathers: pairs of adjacent fix16 fields");

AVX512 static inline void substep_gather(f2d_joint_batch *x, const f2d_body *bodies,
                                         const f2d_joint *joints, __mmask8 m, bool fresh,
                                         substep_in *in)
{
	const size_t bs = sizeof(f2d_body), js = sizeof(f2d_joint);
	__m512i g = jgather(bodies, bs, offsetof(f2d_body, q), x->ba, m);
	in->qac = jlo32(g);
	in->qas = jhi32(g);
	g = jgather(bodies, bs, offsetof(f2d_body, center), x->ba, m);
	in->cax = jlo32(g);
	in->cay = jhi32(g);
	g = jgather(bodies, bs, offsetof(f2d_body, q), x->bb, m);
	in->qbc = jlo32(g);
	in->qbs = jhi32(g);
	g = jgather(bodies, bs, offsetof(f2d_body, center), x->bb, m);
	in->cbx = jlo32(g);
	in->cby = jhi32(g);
	if (fresh) {
		__m512i lc = jgather(bodies, bs, offsetof(f2d_body, local_center), x->ba, m);
		g = jgather(joints, js, offsetof(f2d_joint, local_a), x->ids, m);
		/* low half: local_a.x - local_center.x (mod 2^32) */
		_mm512_storeu_si512(x->lax, JSUB(g, lc));
		_mm512_storeu_si512(x->lay, JSUB(jhi32(g), jhi32(lc)));
		lc = jgather(bodies, bs, offsetof(f2d_body, local_center), x->bb, m);
		g = jgather(joints, js, offsetof(f2d_joint, local_b), x->ids, m);
		_mm512_storeu_si512(x->lbx, JSUB(g, lc));
		_mm512_storeu_si512(x->lby, JSUB(jhi32(g), jhi32(lc)));
	}
	in->lax = jld(x->lax);
	in->lay = jld(x->lay);
	in->lbx = jld(x->lbx);
	in->lby = jld(x->lby);
	in->m11 = jld(x->k11);
	in->m12 = jld(x->k12);
	in->m22 = jld(x->k22);
}

/* f2d_joint_substep of a batch's live lanes (revolute joints without motor and limits, warm
 * starting on: revolute_geometry with its angle 0, point_k, f2d_inverse22_fits), operation for
 * operation on 8 lanes: every product is of two fix16 values (rotations, local arms, the arms,
 * the gap, beta / h, inverse masses and inertias, the step's K^-1 against a k that passed the
 * test's range check), so vpmuldq computes it; the casts of f2d_rotate and f2d_mul keep the low
 * 32 bits as there, and f2d_sat is a clamp. The bias is jmul's, checked as the fast paths
 * check (in [-2^30, 2^30): then jsat was the identity). Returns the lanes whose bias passed
 * (the others run f2d_joint_substep) and in *fits those whose K^-1 still fits; the arms,
 * biases and K into the lanes (rax..rby, bx, by) and k (k11, k12, k22 of now). */
AVX512 static unsigned joint_substep_avx512(f2d_joint_batch *x, const f2d_body *bodies,
                                            const f2d_joint *joints, bool fresh,
                                            fix16_t beta_h, fix16_t tol, bool clamp,
                                            int64_t k[3][8], unsigned *fits)
{
	substep_in in;
	substep_gather(x, bodies, joints, (__mmask8)x->live, fresh, &in);
	__m512i qac = in.qac, qas = in.qas, lax = in.lax, lay = in.lay;
	__m512i qbc = in.qbc, qbs = in.qbs, lbx = in.lbx, lby = in.lby;
	__m512i rax = jtrunc32(jr16(JSUB(JMUL(qac, lax), JMUL(qas, lay))));
	__m512i ray = jtrunc32(jr16(JADD(JMUL(qas, lax), JMUL(qac, lay))));
	__m512i rbx = jtrunc32(jr16(JSUB(JMUL(qbc, lbx), JMUL(qbs, lby))));
	__m512i rby = jtrunc32(jr16(JADD(JMUL(qbs, lbx), JMUL(qbc, lby))));
	__m512i zero = _mm512_setzero_si512(), acc = zero;
	__m512i bx = zero, by = zero;
	if (beta_h != 0) {
		__m512i smax = _mm512_set1_epi64(INT32_MAX), smin = _mm512_set1_epi64(-INT32_MAX);
		__m512i gx = JSUB(JSUB(JADD(in.cbx, rbx), in.cax), rax);
		__m512i gy = JSUB(JSUB(JADD(in.cby, rby), in.cay), ray);
		gx = _mm512_max_epi64(_mm512_min_epi64(gx, smax), smin);
		gy = _mm512_max_epi64(_mm512_min_epi64(gy, smax), smin);
		if (clamp) {
			__m512i hi = _mm512_set1_epi64(tol), lo = _mm512_set1_epi64(-(int64_t)tol);
			gx = _mm512_min_epi64(_mm512_max_epi64(gx, lo), hi);
			gy = _mm512_min_epi64(_mm512_max_epi64(gy, lo), hi);
		}
		__m512i bh = _mm512_set1_epi64(beta_h);
		__m512i px = jr16(JMUL(bh, gx)), py = jr16(JMUL(bh, gy));
		acc = _mm512_or_si512(jchk(px), jchk(py));
		bx = JSUB(zero, px);
		by = JSUB(zero, py);
	}
	unsigned ok =
	    (unsigned)_mm512_cmplt_epu64_mask(acc, _mm512_set1_epi64((int64_t)1 << 31)) & x->live;
	__m512i ia = jld(x->ia), ib = jld(x->ib);
	__m512i msum = JADD(jld(x->ma), jld(x->mb));
	__m512i k11 =
	    JADD(JADD(msum, jr16(JMUL(ia, jfmul(ray, ray)))), jr16(JMUL(ib, jfmul(rby, rby))));
	__m512i k12 =
	    JSUB(JSUB(zero, jr16(JMUL(ia, jfmul(rax, ray)))), jr16(JMUL(ib, jfmul(rbx, rby))));
	__m512i k22 =
	    JADD(JADD(msum, jr16(JMUL(ia, jfmul(rax, rax)))), jr16(JMUL(ib, jfmul(rbx, rbx))));
	/* f2d_inverse22_fits: the range test, then the row sums of |M K - I| */
	__m512i lim = _mm512_set1_epi64(FIT_K_LIMIT), nlim = _mm512_set1_epi64(-FIT_K_LIMIT);
	__mmask8 in_range = _mm512_cmplt_epi64_mask(k11, lim) & _mm512_cmplt_epi64_mask(k22, lim) &
	                    _mm512_cmplt_epi64_mask(k12, lim) & _mm512_cmpgt_epi64_mask(k12, nlim) &
	                    _mm512_cmpge_epi64_mask(k11, zero) & _mm512_cmpge_epi64_mask(k22, zero);
	__m512i one = _mm512_set1_epi64((int64_t)1 << 32);
	__m512i m11 = in.m11, m12 = in.m12, m22 = in.m22;
	__m512i e11 = JSUB(JADD(JMUL(m11, k11), JMUL(m12, k12)), one);
	__m512i e12 = JADD(JMUL(m11, k12), JMUL(m12, k22));
	__m512i e21 = JADD(JMUL(m12, k11), JMUL(m22, k12));
	__m512i e22 = JSUB(JADD(JMUL(m12, k12), JMUL(m22, k22)), one);
	__m512i row = _mm512_set1_epi64(FIT_ROW);
	__m512i s1 = JADD(_mm512_abs_epi64(e11), _mm512_abs_epi64(e12));
	__m512i s2 = JADD(_mm512_abs_epi64(e21), _mm512_abs_epi64(e22));
	*fits = (unsigned)(in_range & _mm512_cmple_epu64_mask(s1, row) &
	                   _mm512_cmple_epu64_mask(s2, row));
	_mm512_storeu_si512(x->rax, rax);
	_mm512_storeu_si512(x->ray, ray);
	_mm512_storeu_si512(x->rbx, rbx);
	_mm512_storeu_si512(x->rby, rby);
	_mm512_storeu_si512(x->bx, bx);
	_mm512_storeu_si512(x->by, by);
	_mm512_storeu_si512(k[0], k11);
	_mm512_storeu_si512(k[1], k12);
	_mm512_storeu_si512(k[2], k22);
	return ok;
}

/* ---- joint_substep_avx512 on AVX2, 4 lanes at a time (lanes h..h+3) ----
 * Operation for operation: j2trunc32 sign-extends the low 32 bits (the high half of each
 * lane from the low half's sign, srai_epi32 by 31 and a dword shuffle), min and max by
 * cmpgt and blend, |x| as (x ^ s) - s with s the sign (|INT64_MIN| = INT64_MIN, as
 * _mm512_abs_epi64 and fit_abs64 as unsigned), unsigned compares as signed ones of the values
 * with their top bit flipped. The bodies' rotations and centres by scalar loads (0 in the
 * lanes not live); the arms' local vectors and K^-1 from the batch as there. */
AVX2 static inline __m256i j2trunc32(__m256i v)
{
	__m256i sign = _mm256_shuffle_epi32(_mm256_srai_epi32(v, 31), _MM_SHUFFLE(2, 2, 0, 0));
	return _mm256_blend_epi32(v, sign, 0xAA);
}
AVX2 static inline __m256i j2fmul(__m256i a, __m256i b)
{
	return j2trunc32(j2r16(J2MUL(a, b)));
}
AVX2 static inline __m256i j2min(__m256i a, __m256i b)
{
	return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}
AVX2 static inline __m256i j2max(__m256i a, __m256i b)
{
	return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a));
}
AVX2 static inline __m256i j2abs(__m256i x)
{
	__m256i s = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x);
	return _mm256_sub_epi64(_mm256_xor_si256(x, s), s);
}
/* lanes where a <= b as unsigned 64-bit values, all ones */
AVX2 static inline __m256i j2le_u(__m256i a, __m256i b)
{
	__m256i top = _mm256_set1_epi64x(INT64_MIN);
	__m256i gt = _mm256_cmpgt_epi64(_mm256_xor_si256(a, top), _mm256_xor_si256(b, top));
	return _mm256_xor_si256(gt, _mm256_set1_epi64x(-1));
}
AVX2 static inline unsigned j2mask(__m256i m, int32_t h)
{
	return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(m)) << h;
}
AVX2 static inline void j2st(int64_t *p, __m256i v)
{
	_mm256_storeu_si256((__m256i *)(void *)p, v);
}

AVX2 static unsigned joint_substep_avx2(f2d_joint_batch *x, const f2d_body *bodies, int32_t h,
                                        fix16_t beta_h, fix16_t tol, bool clamp,
                                        int64_t k[3][8], unsigned *fits)
{
	int64_t t[8][4];
	for (int32_t l = 0; l < 4; ++l) {
		if ((x->live >> (h + l) & 1u) != 0) {
			const f2d_body *a = &bodies[x->ba[h + l]];
			const f2d_body *b = &bodies[x->bb[h + l]];
			t[0][l] = a->q.c;
			t[1][l] = a->q.s;
			t[2][l] = a->center.x;
			t[3][l] = a->center.y;
			t[4][l] = b->q.c;
			t[5][l] = b->q.s;
			t[6][l] = b->center.x;
			t[7][l] = b->center.y;
		} else {
			for (int32_t i = 0; i < 8; ++i) {
				t[i][l] = 0;
			}
		}
	}
	__m256i in[8];
	for (int32_t i = 0; i < 8; ++i) {
		in[i] = _mm256_set_epi64x(t[i][3], t[i][2], t[i][1], t[i][0]);
	}
	__m256i qac = in[0], qas = in[1], qbc = in[4], qbs = in[5];
	__m256i lax = j2ld(x->lax + h), lay = j2ld(x->lay + h);
	__m256i lbx = j2ld(x->lbx + h), lby = j2ld(x->lby + h);
	__m256i rax = j2trunc32(j2r16(J2SUB(J2MUL(qac, lax), J2MUL(qas, lay))));
	__m256i ray = j2trunc32(j2r16(J2ADD(J2MUL(qas, lax), J2MUL(qac, lay))));
	__m256i rbx = j2trunc32(j2r16(J2SUB(J2MUL(qbc, lbx), J2MUL(qbs, lby))));
	__m256i rby = j2trunc32(j2r16(J2ADD(J2MUL(qbs, lbx), J2MUL(qbc, lby))));
	__m256i zero = _mm256_setzero_si256(), acc = zero;
	__m256i bx = zero, by = zero;
	if (beta_h != 0) {
		__m256i smax = _mm256_set1_epi64x(INT32_MAX), smin = _mm256_set1_epi64x(-INT32_MAX);
		__m256i gx = J2SUB(J2SUB(J2ADD(in[6], rbx), in[2]), rax);
		__m256i gy = J2SUB(J2SUB(J2ADD(in[7], rby), in[3]), ray);
		gx = j2max(j2min(gx, smax), smin);
		gy = j2max(j2min(gy, smax), smin);
		if (clamp) {
			__m256i hi = _mm256_set1_epi64x(tol), lo = _mm256_set1_epi64x(-(int64_t)tol);
			gx = j2min(j2max(gx, lo), hi);
			gy = j2min(j2max(gy, lo), hi);
		}
		__m256i bh = _mm256_set1_epi64x(beta_h);
		__m256i px = j2r16(J2MUL(bh, gx)), py = j2r16(J2MUL(bh, gy));
		acc = J2OR(j2chk(px), j2chk(py));
		bx = J2SUB(zero, px);
		by = J2SUB(zero, py);
	}
	unsigned ok = j2ok(acc, h) & x->live;
	__m256i ia = j2ld(x->ia + h), ib = j2ld(x->ib + h);
	__m256i msum = J2ADD(j2ld(x->ma + h), j2ld(x->mb + h));
	__m256i k11 = J2ADD(J2ADD(msum, j2r16(J2MUL(ia, j2fmul(ray, ray)))),
	                    j2r16(J2MUL(ib, j2fmul(rby, rby))));
	__m256i k12 = J2SUB(J2SUB(zero, j2r16(J2MUL(ia, j2fmul(rax, ray)))),
	                    j2r16(J2MUL(ib, j2fmul(rbx, rby))));
	__m256i k22 = J2ADD(J2ADD(msum, j2r16(J2MUL(ia, j2fmul(rax, rax)))),
	                    j2r16(J2MUL(ib, j2fmul(rbx, rbx))));
	/* f2d_inverse22_fits: the range test, then the row sums of |M K - I| */
	__m256i lim = _mm256_set1_epi64x(FIT_K_LIMIT), nlim = _mm256_set1_epi64x(-FIT_K_LIMIT);
	__m256i in_range = _mm256_and_si256(
	    _mm256_and_si256(_mm256_cmpgt_epi64(lim, k11), _mm256_cmpgt_epi64(lim, k22)),
	    _mm256_and_si256(_mm256_cmpgt_epi64(lim, k12), _mm256_cmpgt_epi64(k12, nlim)));
	__m256i negative = J2OR(_mm256_cmpgt_epi64(zero, k11), _mm256_cmpgt_epi64(zero, k22));
	in_range = _mm256_andnot_si256(negative, in_range);
	__m256i one = _mm256_set1_epi64x((int64_t)1 << 32);
	__m256i m11 = j2ld(x->k11 + h), m12 = j2ld(x->k12 + h), m22 = j2ld(x->k22 + h);
	__m256i e11 = J2SUB(J2ADD(J2MUL(m11, k11), J2MUL(m12, k12)), one);
	__m256i e12 = J2ADD(J2MUL(m11, k12), J2MUL(m12, k22));
	__m256i e21 = J2ADD(J2MUL(m12, k11), J2MUL(m22, k12));
	__m256i e22 = J2SUB(J2ADD(J2MUL(m12, k12), J2MUL(m22, k22)), one);
	__m256i row = _mm256_set1_epi64x(FIT_ROW);
	__m256i s1 = J2ADD(j2abs(e11), j2abs(e12));
	__m256i s2 = J2ADD(j2abs(e21), j2abs(e22));
	__m256i f = _mm256_and_si256(in_range, _mm256_and_si256(j2le_u(s1, row), j2le_u(s2, row)));
	*fits |= j2mask(f, h);
	j2st(x->rax + h, rax);
	j2st(x->ray + h, ray);
	j2st(x->rbx + h, rbx);
	j2st(x->rby + h, rby);
	j2st(x->bx + h, bx);
	j2st(x->by + h, by);
	j2st(k[0] + h, k11);
	j2st(k[1] + h, k12);
	j2st(k[2] + h, k22);
	return ok;
}

/* The substep geometry of a batch's live lanes on this kernel (joint_substep_avx512, or
 * joint_substep_avx2 on each half with live lanes; fresh: the pre-step, which computes the
 * arms' local vectors of the step first) */
static unsigned substep_lanes(f2d_world *w, f2d_joint_batch *x, int kernel, bool fresh,
                              fix16_t beta_h, fix16_t tol, bool clamp, int64_t k[3][8],
                              unsigned *fits)
{
	*fits = 0;
	if (kernel == F2D_KERNEL_AVX512) {
		return joint_substep_avx512(x, w->bodies, w->joints, fresh, beta_h, tol, clamp, k,
		                            fits);
	}
	if (fresh) {
		for (int32_t l = 0; l < x->n; ++l) {
			if ((x->live >> l & 1u) != 0) {
				const f2d_joint *j = &w->joints[x->ids[l]];
				f2d_vec2 la = f2d_sub(j->local_a, w->bodies[x->ba[l]].local_center);
				f2d_vec2 lb = f2d_sub(j->local_b, w->bodies[x->bb[l]].local_center);
				x->lax[l] = la.x;
				x->lay[l] = la.y;
				x->lbx[l] = lb.x;
				x->lby[l] = lb.y;
			}
		}
	}
	unsigned ok = 0;
	for (int32_t h = 0; h < x->n; h += 4) {
		if ((x->live >> h & 15u) != 0) {
			ok |= joint_substep_avx2(x, w->bodies, h, beta_h, tol, clamp, k, fits);
		}
	}
	return ok;
}

/* f2d_joints_substep over the batches: the live lanes of a batch by joint_substep_avx512 (a
 * lane whose bias check failed, and every other joint, by f2d_joint_substep), then the
 * values of each lane that f2d_joint_substep computed from its joint. Each joint writes only
 * its own fields: any order gives the same bits. */
static void joints_substep_batches(f2d_world *w, int kernel)
{
	fix16_t beta_h = f2d_mul(w->def.bias_factor, w->inv_h);
	fix16_t tol = joint_tolerance(w);
	bool clamp = w->def.joint_position_iterations > 0;
	for (int32_t nb = 0; nb < w->joint_batch_count; ++nb) {
		f2d_joint_batch *x = &w->joint_batches[nb];
		unsigned ok = 0, fits = 0;
		int64_t k[3][8];
		if (x->live != 0 && w->def.warm_starting) {
			ok = substep_lanes(w, x, kernel, false, beta_h, tol, clamp, k, &fits);
		}
		for (int32_t l = 0; l < x->n; ++l) {
			f2d_joint *j = &w->joints[x->ids[l]];
			if ((ok >> l & 1u) == 0) {
				if ((x->live >> l & 1u) != 0 && w->def.warm_starting) {
					COUNT_SUBSTEP(1);
				}
				f2d_joint_substep(w, j);
			} else {
				COUNT_SUBSTEP(0);
				j->r_a = f2d_v((fix16_t)x->rax[l], (fix16_t)x->ray[l]);
				j->r_b = f2d_v((fix16_t)x->rbx[l], (fix16_t)x->rby[l]);
				j->bias = f2d_v((fix16_t)x->bx[l], (fix16_t)x->by[l]);
				j->angle = 0;
				if ((fits >> l & 1u) == 0) {
					COUNT_SUBSTEP(2);
					point_inverse(w, k[0][l], k[1][l], k[2][l], &j->k11,
					              &j->k12, &j->k22);
					x->k11[l] = j->k11;
					x->k12[l] = j->k12;
					x->k22[l] = j->k22;
				}
				/* the lane holds the rest already: the arms and biases from
				 * joint_substep_avx512, K^-1 unless inverted again, and the
				 * impulses, which the last pass of the previous substep (the relax
				 * pass, last = true) left equal in the lane and the joint */
				continue;
			}
			if ((x->live >> l & 1u) != 0) {
				refresh_lane(x, l, j);
			}
		}
	}
}
#else
#define JOINT_SIMD 0
#endif

bool f2d_joints_reserve(f2d_world *w)
{
	int32_t n = w->joint_capacity;
	int32_t batches = n / 8 + 64 < n ? n / 8 + 64 : n; /* one partial batch per colour */
	return f2d_grow(w, (void **)&w->body_colors, &w->body_color_capacity, w->body_capacity,
	                sizeof(uint64_t)) &&
	       f2d_grow(w, (void **)&w->joint_list, &w->joint_list_capacity, n, sizeof(int32_t)) &&
	       f2d_grow(w, (void **)&w->joint_color_key, &w->joint_color_key_capacity, n,
	                sizeof(int32_t[4])) &&
	       f2d_grow(w, (void **)&w->joint_order, &w->joint_order_capacity, n,
	                sizeof(int32_t)) &&
	       f2d_grow(w, (void **)&w->joint_order_color, &w->joint_order_color_capacity, n, 1) &&
	       f2d_grow(w, (void **)&w->joint_batches, &w->joint_batch_capacity, batches,
	                sizeof(f2d_joint_batch));
}

/* Whether the colouring of the n joints of w->joint_list would be the last one's, whose key
 * (w->joint_color_key) is rewritten with this one's. The colouring below is a function of n and,
 * per joint in list order, of its id, its bodies' ids and whether each is dynamic (all that
 * f2d_take_color reads); the batches' layout (build_joint_batches) also of whether the joint
 * may take a lane (a revolute joint without motor and limits). Those are the key, compared
 * exactly: an equal key gives the same joint_order, colours and layout, which nothing else
 * writes. The batches' per-step values (masses, arms, K^-1, impulses) are not in it. */
static bool joint_colors_kept(f2d_world *w, int32_t n)
{
	const int32_t *list = w->joint_list;
	const f2d_body *bodies = w->bodies;
	int32_t(*key)[4] = w->joint_color_key;
	int32_t diff = w->joint_color_n ^ (n + 1);
	for (int32_t k = 0; k < n; ++k) {
		const f2d_joint *j = &w->joints[list[k]];
		int32_t flags = (bodies[j->body_a].type == F2D_DYNAMIC_BODY ? 1 : 0) |
		                (bodies[j->body_b].type == F2D_DYNAMIC_BODY ? 2 : 0) |
		                (j->type == F2D_REVOLUTE_JOINT && !j->enable_motor && !j->enable_limit
		                     ? 4
		                     : 0);
		diff |= (key[k][0] ^ list[k]) | (key[k][1] ^ j->body_a) | (key[k][2] ^ j->body_b) |
		        (key[k][3] ^ flags);
		key[k][0] = list[k];
		key[k][1] = j->body_a;
		key[k][2] = j->body_b;
		key[k][3] = flags;
	}
	w->joint_color_n = n + 1;
	return diff == 0;
}

#if JOINT_SIMD
/* The batches of an unchanged layout (joint_colors_kept): each live lane's masses, as
 * build_joint_batches writes them. */
static void refresh_joint_masses(f2d_world *w)
{
	for (int32_t nb = 0; nb < w->joint_batch_count; ++nb) {
		f2d_joint_batch *x = &w->joint_batches[nb];
		for (int32_t l = 0; l < x->n; ++l) {
			if ((x->live >> l & 1u) == 0) {
				continue;
			}
			const f2d_body *a = &w->bodies[x->ba[l]];
			const f2d_body *b = &w->bodies[x->bb[l]];
			x->ma[l] = a->inv_mass;
			x->mb[l] = b->inv_mass;
			x->ia[l] = a->inv_inertia;
			x->ib[l] = b->inv_inertia;
		}
	}
}

/* f2d_joint_prestep of every joint of the batches: the live lanes' geometry (revolute_geometry
 * with its angle 0 and point_k: a live lane has no limits) in lanes by substep_lanes
 * (joint_substep_avx512 or _avx2), which compute f2d_joint_substep's, the same expressions; then, as
 * f2d_joint_prestep, K^-1 by point_inverse of that K (whatever the fits test said), no axial
 * mass (no motor, no limits) and the impulses' resets (the motor's and the limits' always,
 * the point's without warm starting). A lane whose bias check failed, and every other joint,
 * takes f2d_joint_prestep. Then each live lane's values from its joint. Each joint writes
 * only its own fields: any order gives the same bits. */
static void prestep_batches(f2d_world *w, int kernel)
{
	fix16_t beta_h = f2d_mul(w->def.bias_factor, w->inv_h);
	fix16_t tol = joint_tolerance(w);
	bool clamp = w->def.joint_position_iterations > 0;
	for (int32_t nb = 0; nb < w->joint_batch_count; ++nb) {
		f2d_joint_batch *x = &w->joint_batches[nb];
		unsigned ok = 0, fits = 0;
		int64_t k[3][8];
		if (x->live != 0) {
			/* (its fits test reads the lanes' K^-1 of before: not used here) */
			ok = substep_lanes(w, x, kernel, true, beta_h, tol, clamp, k, &fits);
		}
		for (int32_t l = 0; l < x->n; ++l) {
			f2d_joint *j = &w->joints[x->ids[l]];
			if ((ok >> l & 1u) == 0) {
				f2d_joint_prestep(w, j);
			} else {
				j->r_a = f2d_v((fix16_t)x->rax[l], (fix16_t)x->ray[l]);
				j->r_b = f2d_v((fix16_t)x->rbx[l], (fix16_t)x->rby[l]);
				j->bias = f2d_v((fix16_t)x->bx[l], (fix16_t)x->by[l]);
				j->angle = 0;
				point_inverse(w, k[0][l], k[1][l], k[2][l], &j->k11, &j->k12,
				              &j->k22);
				if (!w->def.warm_starting) {
					j->impulse = f2d_v(0, 0);
				}
				j->motor_impulse = j->lower_impulse = j->upper_impulse = 0;
			}
			if ((x->live >> l & 1u) != 0) {
				refresh_lane(x, l, j);
			}
		}
	}
}
#endif

/* The colouring of the n joints of w->joint_list (greedily in id order, by the dynamic bodies
 * they share) into w->joint_order, colour after colour, and w->joint_order_color. */
static void color_joints(f2d_world *w, int32_t n)
{
	uint64_t *used = w->body_colors; /* free after the contacts' pre-step; left zero here */
	const int32_t *list = w->joint_list;
	int32_t count[64] = {0};
	for (int32_t k = 0; k < n; ++k) {
		const f2d_joint *j = &w->joints[list[k]];
		used[j->body_a] = used[j->body_b] = 0;
	}
	for (int32_t k = 0; k < n; ++k) {
		const f2d_joint *j = &w->joints[list[k]];
		int32_t c = f2d_take_color(used, w->bodies, j->body_a, j->body_b);
		w->joint_order_color[k] = (uint8_t)c; /* colour of list[k], for now */
		count[c]++;
	}
	int32_t at[64];
	for (int32_t c = 0, sum = 0; c < 64; ++c) {
		at[c] = sum;
		sum += count[c];
	}
	/* colour of list[k] -> position; the colours are rewritten in order after */
	for (int32_t k = 0; k < n; ++k) {
		int32_t c = w->joint_order_color[k];
		w->joint_order[at[c]++] = list[k];
	}
	for (int32_t c = 0, k = 0; c < 64; ++c) {
		for (int32_t e = k + count[c]; k < e; ++k) {
			w->joint_order_color[k] = (uint8_t)c;
		}
	}
	for (int32_t k = 0; k < n; ++k) {
		const f2d_joint *j = &w->joints[list[k]];
		used[j->body_a] = used[j->body_b] = 0;
	}
}

void f2d_joints_prestep(f2d_world *w, int32_t n)
{
	bool kept = joint_colors_kept(w, n);
	if (!kept) {
		color_joints(w, n);
	}
#if JOINT_SIMD
	int kernel = f2d_kernel_level();
	if (kernel >= F2D_KERNEL_AVX2) {
		if (kept) {
			refresh_joint_masses(w);
		} else {
			build_joint_batches(w, n);
		}
		prestep_batches(w, kernel);
		return;
	}
#endif
	for (int32_t k = 0; k < n; ++k) {
		f2d_joint_prestep(w, &w->joints[w->joint_list[k]]);
	}
}

void f2d_joints_substep(f2d_world *w, int32_t n)
{
#if JOINT_SIMD
	int kernel = f2d_kernel_level();
	if (kernel >= F2D_KERNEL_AVX2) {
		/* and the lanes' arms and biases of this substep */
		joints_substep_batches(w, kernel);
		return;
	}
#endif
	/* each joint writes only its own fields: any order gives the same bits */
	for (int32_t k = 0; k < n; ++k) {
		f2d_joint_substep(w, &w->joints[w->joint_order[k]]);
	}
}

/* One pass over the coloured joints (pass: warm start, velocity iteration or relax
 * iteration; last: the lanes' impulses go back to their joints). */
static void joints_pass(f2d_world *w, int32_t n, joint_pass pass, bool last, const fix16_t rigid[3])
{
#if JOINT_SIMD
	int kernel = f2d_kernel_level();
	if (kernel >= F2D_KERNEL_AVX2) {
		for (int32_t b = 0; b < w->joint_batch_count; ++b) {
			f2d_joint_batch *x = &w->joint_batches[b];
			if (x->live != 0) {
				joint_batch_pass(w, x, pass, last, rigid, kernel);
				continue;
			}
			/* the overflow colour, a single joint, or no lane (joints with motor or
			 * limits, other types): one after the other */
			for (int32_t l = 0; l < x->n; ++l) {
				joint_scalar(w, &w->joints[x->ids[l]], pass, rigid);
			}
		}
		return;
	}
#endif
	(void)last;
	for (int32_t i = 0; i < n; ++i) {
		joint_scalar(w, &w->joints[w->joint_order[i]], pass, rigid);
	}
}

void f2d_joints_warm_start(f2d_world *w, int32_t n)
{
	joints_pass(w, n, PASS_WARM, false, NULL);
}

void f2d_joints_solve(f2d_world *w, int32_t n, int32_t iteration)
{
	joints_pass(w, n, PASS_SOLVE, iteration == w->def.iterations - 1, NULL);
}

/* Whether a softness triple is the rigid one of this h (f2d_rigid_soft): a spring whose Q16
 * triple equals it solves as the rigid row does, and relaxes as it. */
static bool soft_is_rigid(const fix16_t s[3], const fix16_t rigid[3])
{
	return s[0] == rigid[0] && s[1] == rigid[1] && s[2] == rigid[2];
}

/* The soft step's joint relax pass (Box2D v3's b2_stageRelax, useBias = false), after the
 * positions of the substep moved: one velocity pass over the joints in the order of the
 * solve pass (joint_order: colour after colour, id order inside one; inside a colour the
 * order changes no bit, so the AVX-512 batches' order gives the same bits), each joint
 * solved by the scalar code (fast path, else exact) with
 *   the rigid rows without position bias and with the full mass: softness (bias rate 0,
 *     mass scale 1, impulse scale 0) in place of f2d_rigid_soft's, and the revolute point's
 *     Baumgarte bias 0: the pass removes the velocity that the biased solve added to close
 *     the position error, so a held weld or arm comes to rest instead of being pushed by its
 *     own correction in every substep;
 *   the user's springs (distance, prismatic, weld, wheel, mouse) as in the solve: their
 *     softness is their law (Box2D v3 applies the spring whatever useBias is);
 *   the limits: the speculative part (c > 0: bias c / h) stays, the violated part has no
 *     bias and the full mass (w->joint_relax, read by f2d_limit_impulse and solve_angular);
 *   the motors as in the solve; the motor joint's correction (cf / h, soft[SOFT_BIAS] of a
 *     motor joint) as in the solve, as Box2D v3's motor joint has no useBias.
 * The swapped softness is put back after each joint: the next substep's solve uses the
 * softness of the step's pre-step. */
void f2d_joints_relax(f2d_world *w, int32_t n)
{
	fix16_t rigid[3];
	f2d_rigid_soft(w, rigid); /* before the flag: the solve's rigid triple */
	w->joint_relax = true;
	/* the solve pass's order and batches (on AVX-512: the lanes of revolute joints without
	 * motor and limits, with their point bias 0 in the lanes; the others one by one); the
	 * lanes' impulses go back to their joints, as after the solve pass */
	joints_pass(w, n, PASS_RELAX, true, rigid);
	w->joint_relax = false;
}

/* One joint's relax iteration (f2d_joints_relax). A revolute joint reads no softness triple
 * (its rows are rigid: bias, motor and limits), so only its point bias is swapped. */
static void joint_relax(f2d_world *w, f2d_joint *j, const fix16_t rigid[3])
{
	static const fix16_t relax[3] = {0, F2D_ONE, 0};
	f2d_vec2 bias = j->bias;
	j->bias = f2d_v(0, 0);
	if (j->type == F2D_REVOLUTE_JOINT) {
		f2d_joint_solve(w, j);
		j->bias = bias;
		return;
	}
	fix16_t s1[3], s2[3];
	memcpy(s1, j->soft, sizeof s1);
	memcpy(s2, j->soft2, sizeof s2);
	bool r1 = j->type != F2D_MOTOR_JOINT && soft_is_rigid(s1, rigid);
	bool r2 = j->type != F2D_MOTOR_JOINT && soft_is_rigid(s2, rigid);
	if (r1) {
		memcpy(j->soft, relax, sizeof relax);
	}
	if (r2) {
		memcpy(j->soft2, relax, sizeof relax);
	}
	f2d_joint_solve(w, j);
	j->bias = bias;
	memcpy(j->soft, s1, sizeof s1);
	memcpy(j->soft2, s2, sizeof s2);
}

/* ---- API ---- */

f2d_revolute_joint_def f2d_default_revolute_joint_def(void)
{
	f2d_revolute_joint_def d;
	memset(&d, 0, sizeof d);
	return d;
}

static f2d_joint *get_joint(const f2d_world *w, f2d_joint_id id)
{
	if (w == NULL || id.index1 < 1 || id.index1 > w->joint_ids.next) {
		return NULL;
	}
	f2d_joint *j = &w->joints[id.index1 - 1];
	if (!j->alive || j->generation != id.generation) {
		return NULL;
	}
	return j;
}

bool f2d_joint_is_valid(const f2d_world *w, f2d_joint_id id)
{
	return get_joint(w, id) != NULL;
}

static bool angle_ok(fix16_t a)
{
	return a >= -F2D_PI && a <= F2D_PI;
}

static bool anchor_ok(f2d_vec2 p, f2d_body_type type)
{
	fix16_t lim =
	    type == F2D_STATIC_BODY ? 2 * F2D_WORLD_LIMIT : 2 * F2D_MAX_DYNAMIC_SHAPE_EXTENT;
	return p.x >= -lim && p.x <= lim && p.y >= -lim && p.y <= lim;
}

/* One body's part of tr(K) for the point constraint (see point_mass): 1/m + |r|^2 / I, Q16 in
 * 64 bits, with r the anchor's arm from the centre of mass (its length does not change as the
 * body turns). K's largest eigenvalue is at most its trace, so 1/trace is a lower bound of the
 * effective mass in every direction. A body that cannot turn adds nothing (1/m = 1/I = 0). */
static int64_t point_mass_trace(const f2d_body *b, f2d_vec2 local_anchor)
{
	if (b->inv_inertia == 0) {
		return b->inv_mass;
	}
	f2d_vec2 r = f2d_sub(local_anchor, b->local_center); /* dynamic: |r| < 2^7.1 m */
	int64_t r2 = f2d_round16((int64_t)r.x * r.x + (int64_t)r.y * r.y); /* < 2^30.2 */
	return (int64_t)b->inv_mass + f2d_round16((int64_t)b->inv_inertia * r2);
}

f2d_result f2d_init_revolute_joint_def(const f2d_world *w, f2d_body_id a, f2d_body_id b,
                                       f2d_vec2 anchor, f2d_revolute_joint_def *def)
{
	if (w == NULL || def == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	const f2d_body *ba = f2d_get_body(w, a);
	const f2d_body *bb = f2d_get_body(w, b);
	if (ba == NULL || bb == NULL) {
		return F2D_ERROR_INVALID_HANDLE;
	}
	if (anchor.x < -F2D_WORLD_LIMIT || anchor.x > F2D_WORLD_LIMIT ||
	    anchor.y < -F2D_WORLD_LIMIT || anchor.y > F2D_WORLD_LIMIT) {
		return F2D_ERROR_INVALID_VALUE;
	}
	*def = f2d_default_revolute_joint_def();
	def->body_a = a;
	def->body_b = b;
	def->local_anchor_a = f2d_inv_xf_point(f2d_body_xf(ba), anchor);
	def->local_anchor_b = f2d_inv_xf_point(f2d_body_xf(bb), anchor);
	def->reference_angle = f2d_rot_get_angle(f2d_inv_mul_rot(ba->q, bb->q));
	return F2D_OK;
}

f2d_result f2d_create_revolute_joint(f2d_world *w, const f2d_revolute_joint_def *def,
                                     f2d_joint_id *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (def == NULL || out == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "create_revolute_joint: def and out are required");
	}
	const f2d_body *ba = f2d_get_body(w, def->body_a);
	const f2d_body *bb = f2d_get_body(w, def->body_b);
	if (ba == NULL || bb == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "create_revolute_joint: null, stale or foreign body handle");
	}
	if (ba == bb) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_revolute_joint: a joint needs two different bodies");
	}
	if (ba->type != F2D_DYNAMIC_BODY && bb->type != F2D_DYNAMIC_BODY) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_revolute_joint: at least one body must be dynamic");
	}
	/* anchors within 64 m of a moving body's origin, within 16384 m of a static one's */
	if (!anchor_ok(def->local_anchor_a, ba->type) ||
	    !anchor_ok(def->local_anchor_b, bb->type)) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "create_revolute_joint: local anchors must lie within 64 m of a "
		    "moving body's origin (16384 m of a static one)");
	}
	int64_t trace =
	    point_mass_trace(ba, def->local_anchor_a) + point_mass_trace(bb, def->local_anchor_b);
	if (trace > F2D_JOINT_MAX_TRACE) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "create_revolute_joint: an anchor too far from a body this light: the "
		    "effective "
		    "mass at the anchor, 1 / (1/m_a + r_a^2/I_a + 1/m_b + r_b^2/I_b) = 1/%d kg, is "
		    "below 2 LSB of fix16 (1/32768 kg); move the anchor closer to the centre of "
		    "mass "
		    "or give the body more mass or inertia",
		    (int)(trace >> 16));
	}
	if (!angle_ok(def->reference_angle) || !angle_ok(def->lower_angle) ||
	    !angle_ok(def->upper_angle) ||
	    (def->enable_limit && def->lower_angle > def->upper_angle)) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "create_revolute_joint: angles must be in [-pi, pi], lower <= upper");
	}
	if (def->max_motor_torque < 0 || def->motor_speed < F2D_FIX(-1000) ||
	    def->motor_speed > F2D_FIX(1000)) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "create_revolute_joint: motor speed within +-1000 rad/s, torque >= 0");
	}
	if (!def->collide_connected &&
	    !f2d_events_reserve_pending(
	        w, f2d_joined_contacts(w, def->body_a.index1 - 1, def->body_b.index1 - 1))) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
		                     "create_revolute_joint: allocator returned NULL");
	}
	int32_t id;
	f2d_result r = f2d_pool_alloc(w, &w->joint_ids, (void **)&w->joints, &w->joint_capacity,
	                              sizeof(f2d_joint), &id);
	if (r != F2D_OK) {
		return r;
	}
	f2d_joint *j = &w->joints[id];
	uint32_t gen = j->generation == 0 ? 1 : j->generation;
	memset(j, 0, sizeof *j);
	j->generation = gen;
	j->alive = true;
	j->body_a = def->body_a.index1 - 1;
	j->body_b = def->body_b.index1 - 1;
	j->local_a = def->local_anchor_a;
	j->local_b = def->local_anchor_b;
	j->reference_angle = def->reference_angle;
	j->enable_limit = def->enable_limit;
	j->lower = def->lower_angle;
	j->upper = def->upper_angle;
	j->enable_motor = def->enable_motor;
	j->motor_speed = def->motor_speed;
	j->max_motor_torque = def->max_motor_torque;
	j->collide_connected = def->collide_connected;
	j->user_data = def->user_data;
	f2d_joint_attached(w, j);
	out->index1 = id + 1;
	out->generation = gen;
	return F2D_OK;
}

f2d_result f2d_destroy_joint(f2d_world *w, f2d_joint_id id)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	f2d_joint *j = get_joint(w, id);
	if (j == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "destroy_joint: null, stale or foreign joint handle");
	}
	unlink_joint(w, id.index1 - 1, j->body_a);
	if (j->body_b != j->body_a) {
		unlink_joint(w, id.index1 - 1, j->body_b);
	}
	w->bodies[j->body_a].joint_count--;
	w->bodies[j->body_b].joint_count--;
	f2d_wake_body(w, j->body_a);
	f2d_wake_body(w, j->body_b);
	w->contacts_stale = true; /* the two bodies may collide again */
	uint32_t gen = j->generation + 1;
	memset(j, 0, sizeof *j);
	j->generation = gen == 0 ? 1 : gen;
	f2d_pool_free(w, &w->joint_ids, id.index1 - 1);
	w->joint_count--;
	return F2D_OK;
}

#define JOINT_OR_RETURN(j, w, id, what)                                                            \
	if ((w) == NULL) {                                                                         \
		return F2D_ERROR_NULL_ARGUMENT;                                                    \
	}                                                                                          \
	f2d_joint *j = get_joint(w, id);                                                           \
	if (j == NULL) {                                                                           \
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,                                  \
		                     what ": null, stale or foreign joint handle");                \
	}                                                                                          \
	if (j->type != F2D_REVOLUTE_JOINT) {                                                       \
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE, what ": not a revolute joint");  \
	}

f2d_result f2d_revolute_joint_enable_motor(f2d_world *w, f2d_joint_id id, bool enable)
{
	JOINT_OR_RETURN(j, w, id, "revolute_joint_enable_motor");
	j->enable_motor = enable;
	f2d_wake_body(w, j->body_a);
	f2d_wake_body(w, j->body_b);
	return F2D_OK;
}

f2d_result f2d_revolute_joint_set_motor_speed(f2d_world *w, f2d_joint_id id, fix16_t speed)
{
	JOINT_OR_RETURN(j, w, id, "revolute_joint_set_motor_speed");
	if (speed < F2D_FIX(-1000) || speed > F2D_FIX(1000)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "revolute_joint_set_motor_speed: within +-1000 rad/s");
	}
	j->motor_speed = speed;
	f2d_wake_body(w, j->body_a);
	f2d_wake_body(w, j->body_b);
	return F2D_OK;
}

f2d_result f2d_revolute_joint_set_max_motor_torque(f2d_world *w, f2d_joint_id id, fix16_t torque)
{
	JOINT_OR_RETURN(j, w, id, "revolute_joint_set_max_motor_torque");
	if (torque < 0) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "revolute_joint_set_max_motor_torque: must be >= 0");
	}
	j->max_motor_torque = torque;
	f2d_wake_body(w, j->body_a);
	f2d_wake_body(w, j->body_b);
	return F2D_OK;
}

f2d_result f2d_revolute_joint_set_limits(f2d_world *w, f2d_joint_id id, bool enable, fix16_t lower,
                                         fix16_t upper)
{
	JOINT_OR_RETURN(j, w, id, "revolute_joint_set_limits");
	if (!angle_ok(lower) || !angle_ok(upper) || lower > upper) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "revolute_joint_set_limits: need -pi <= lower <= upper <= pi");
	}
	j->enable_limit = enable;
	j->lower = lower;
	j->upper = upper;
	f2d_wake_body(w, j->body_a);
	f2d_wake_body(w, j->body_b);
	return F2D_OK;
}

fix16_t f2d_revolute_joint_get_angle(const f2d_world *w, f2d_joint_id id)
{
	const f2d_joint *j = get_joint(w, id);
	if (j == NULL || j->type != F2D_REVOLUTE_JOINT) {
		return 0;
	}
	fix16_t angle =
	    f2d_rot_get_angle(f2d_inv_mul_rot(w->bodies[j->body_a].q, w->bodies[j->body_b].q)) -
	    j->reference_angle;
	if (angle > F2D_PI) {
		angle -= 2 * F2D_PI;
	} else if (angle < -F2D_PI) {
		angle += 2 * F2D_PI;
	}
	return angle;
}

f2d_result f2d_joint_get_world_anchors(const f2d_world *w, f2d_joint_id id, f2d_vec2 *a,
                                       f2d_vec2 *b)
{
	if (w == NULL || a == NULL || b == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	const f2d_joint *j = get_joint(w, id);
	if (j == NULL) {
		return F2D_ERROR_INVALID_HANDLE;
	}
	*a = f2d_xf_point(f2d_body_xf(&w->bodies[j->body_a]), j->local_a);
	*b = f2d_xf_point(f2d_body_xf(&w->bodies[j->body_b]), j->local_b);
	return F2D_OK;
}

/* (r x p) / I, the turn a positional impulse p at arm r gives, kept within +-pi/4 (the cross
 * product is saturated to the fix16 range first so the product fits 64 bits). */
static fix16_t correction_angle(fix16_t inv_inertia, f2d_vec2 r, f2d_vec2 p)
{
	/* |r| < 2^31 and |p| <= 2^31: each product < 2^62, the difference < 2^63 */
	int64_t cross = f2d_round16((int64_t)r.x * p.y - (int64_t)r.y * p.x);
	int64_t t = f2d_round16((int64_t)inv_inertia * f2d_sat(cross));
	const int64_t quarter_pi = 51472;
	return (fix16_t)(t > quarter_pi ? quarter_pi : (t < -quarter_pi ? -quarter_pi : t));
}

/* Moves a dynamic body of a joint by the positional impulse p at its arm r (for body a, p is
 * negated: v - m x = v + m (-x) and correction_angle(i, r, -p) = -correction_angle(i, r, p), as
 * f2d_round16, f2d_sat and the clamp are odd): c += p / m, angle += (r x p) / I, then the origin
 * from the new centre and rotation. A zero turn leaves q as f2d_integrate_rotation would, and a
 * zero local centre rotates to (0, 0). A centre pushed beyond the world limit stops at the
 * edge, as in integrate_positions: its velocity is zeroed and the step reports
 * F2D_ERROR_OUT_OF_RANGE (|p / m| < 2^39, so the sum is exact in 64 bits). */
static inline void project_body(f2d_world *w, f2d_body *body, f2d_vec2 r, f2d_vec2 p)
{
	int64_t x = (int64_t)body->center.x + f2d_round16((int64_t)body->inv_mass * p.x);
	int64_t y = (int64_t)body->center.y + f2d_round16((int64_t)body->inv_mass * p.y);
	if (x < -F2D_WORLD_LIMIT || x > F2D_WORLD_LIMIT || y < -F2D_WORLD_LIMIT ||
	    y > F2D_WORLD_LIMIT) {
		x = x < -F2D_WORLD_LIMIT ? -F2D_WORLD_LIMIT
		                         : (x > F2D_WORLD_LIMIT ? F2D_WORLD_LIMIT : x);
		y = y < -F2D_WORLD_LIMIT ? -F2D_WORLD_LIMIT
		                         : (y > F2D_WORLD_LIMIT ? F2D_WORLD_LIMIT : y);
		f2d_stop_at_edge(w, body);
	}
	body->center = f2d_v((fix16_t)x, (fix16_t)y);
	fix16_t angle = correction_angle(body->inv_inertia, r, p);
	if (angle != 0) { /* the same value; small turns inline (fmath.h) */
		body->q = f2d_integrate_rotation_small(body->q, angle);
	}
	f2d_vec2 lc = body->local_center;
	body->origin =
	    (lc.x | lc.y) == 0 ? body->center : f2d_sub(body->center, f2d_rotate(body->q, lc));
}

/* Position projection (non-linear Gauss-Seidel, run after the positions are integrated):
 * the velocity solve keeps the anchors' velocities equal, but integrating a swinging body moves
 * its anchor along an arc, so the anchors drift apart by r (h w)^2 / 2 per step. Instead of
 * feeding that error back as a velocity bias (which puts energy into fast chains), each pass
 * moves the bodies directly: with C = (c_b + r_b) - (c_a + r_a) and the same K as above,
 * P = -K^-1 C, c_a -= P / m_a, angle_a -= (r_a x P) / I_a, c_b += P / m_b,
 * angle_b += (r_b x P) / I_b. A gap within joint_tolerance is left to the velocity bias.
 * Returns |C| before the correction (for the iteration stop). */
fix16_t f2d_joint_solve_position(f2d_world *w, f2d_joint *j)
{
	if (j->type != F2D_REVOLUTE_JOINT) {
		return 0; /* the other types correct positions by soft velocity bias */
	}
	f2d_body *a = &w->bodies[j->body_a];
	f2d_body *b = &w->bodies[j->body_b];
	f2d_vec2 ra = f2d_rotate(a->q, f2d_sub(j->local_a, a->local_center));
	f2d_vec2 rb = f2d_rotate(b->q, f2d_sub(j->local_b, b->local_center));
	f2d_vec2 c = anchor_gap(a, b, ra, rb);
	fix16_t err = f2d_max(f2d_abs(c.x), f2d_abs(c.y));
	if (err <= joint_tolerance(w)) {
		return err;
	}
	/* One pass corrects at most 0.5 m per axis (as Box2D's max linear correction): a joint
	 * torn far apart comes back over a few steps instead of in one violent move. */
	c.x = f2d_clamp(c.x, -MAX_CORRECTION, MAX_CORRECTION);
	c.y = f2d_clamp(c.y, -MAX_CORRECTION, MAX_CORRECTION);
	fix16_t m11, m12, m22;
	if (w->def.substep_count > 0) {
		/* the soft step: the step's K^-1 (of the pre-step or a substep) while it fits the
		 * K of the arms of now, as in its substeps (f2d_joint_substep); a new one is kept
		 * for the next pass */
		int64_t k11, k12, k22;
		point_k(a, b, ra, rb, &k11, &k12, &k22);
		if (!f2d_inverse22_fits(j->k11, j->k12, j->k22, k11, k12, k22)) {
			point_inverse(w, k11, k12, k22, &j->k11, &j->k12, &j->k22);
		}
		m11 = j->k11;
		m12 = j->k12;
		m22 = j->k22;
	} else {
		point_mass(w, a, b, ra, rb, &m11, &m12, &m22);
	}
	/* |m| <= 2^31 - 1 and |c| <= 2^15: |m11 c.x + m12 c.y| <= 2^47 - 2^16, which rounds to at
	 * most 2^31 - 1, so P needs no saturation */
	f2d_vec2 p = f2d_v(-(fix16_t)f2d_round16((int64_t)m11 * c.x + (int64_t)m12 * c.y),
	                   -(fix16_t)f2d_round16((int64_t)m12 * c.x + (int64_t)m22 * c.y));
	if (a->type == F2D_DYNAMIC_BODY) {
		project_body(w, a, ra, f2d_neg(p));
	}
	if (b->type == F2D_DYNAMIC_BODY) {
		project_body(w, b, rb, p);
	}
	return err;
}
