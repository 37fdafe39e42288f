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
			w->arbiter_geo[k] = w->arbiter_geo[i];
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

void f2d_revolute_inverse(f2d_world *w, int64_t k11, int64_t k12, int64_t k22, fix16_t *m11,
                          fix16_t *m12, fix16_t *m22)
{
	point_inverse(w, k11, k12, k22, m11, m12, m22);
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

#define MAX_CORRECTION F2D_MILLI(500)

/* The parts of the pre-step that the positions change: the arms, the velocity bias from the
 * anchor gap and the angle of the limits. With position projection on (the default, and under
 * the soft step too), the passes rejoin the anchors of a gap above f2d_joint_tolerance on
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
			fix16_t tol = f2d_joint_tolerance(w);
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
uint64_t f2d_joint_path_counts[4];
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
		JR_COUNT_PATH(0);
		return;
	}
	JR_COUNT_PATH(1);
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
		JR_COUNT_PATH(2);
		return;
	}
	JR_COUNT_PATH(3);
	solve_point_exact(w, j, a, b);
}

/* ---- coloured passes ----
 *
 * Gauss-Seidel over the joints in a fixed order: colour after colour, in id order inside a
 * colour. Each joint takes the lowest colour (of 63) that neither of its dynamic bodies has
 * yet; a joint whose bodies have all 63 goes to the overflow colour, solved last, one after
 * the other. Two joints of one colour share no body whose velocity an impulse changes (static
 * and kinematic bodies have no inverse mass), so inside a colour the order cannot change a bit,
 * and the point constraints of up to 8 joints of a colour are solved at once in SIMD lanes
 * (src/joint_lanes.c: solve_point_fast on 8 or 4 lanes) with the result of one after the other.
 * A joint with a motor or limits, and a lane whose range check fails, takes f2d_joint_solve
 * (fast path, else exact). Where no SIMD kernel runs, the joints one after the other in that
 * order. */

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
	if (f2d_joint_lanes_prestep(w, n, kept)) {
		return;
	}
	for (int32_t k = 0; k < n; ++k) {
		f2d_joint_prestep(w, &w->joints[w->joint_list[k]]);
	}
}

void f2d_joints_substep(f2d_world *w, int32_t n)
{
	if (f2d_joint_lanes_substep(w)) {
		return;
	}
	/* each joint writes only its own fields: any order gives the same bits */
	for (int32_t k = 0; k < n; ++k) {
		f2d_joint_substep(w, &w->joints[w->joint_order[k]]);
	}
}

/* One pass over the coloured joints (pass: warm start, velocity iteration or relax
 * iteration; last: the lanes' impulses go back to their joints). */
static void joints_pass(f2d_world *w, int32_t n, f2d_joint_pass pass, bool last,
                        const fix16_t rigid[3])
{
	if (f2d_joint_lanes_pass(w, pass, last, rigid)) {
		return;
	}
	for (int32_t i = 0; i < n; ++i) {
		f2d_joint_pass_scalar(w, &w->joints[w->joint_order[i]], pass, rigid);
	}
}

void f2d_joints_warm_start(f2d_world *w, int32_t n)
{
	joints_pass(w, n, F2D_PASS_WARM, false, NULL);
}

void f2d_joints_solve(f2d_world *w, int32_t n, int32_t iteration)
{
	joints_pass(w, n, F2D_PASS_SOLVE, iteration == w->def.iterations - 1, NULL);
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
 * order changes no bit, so the SIMD batches' order gives the same bits), each joint
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
	/* the solve pass's order and batches (in SIMD lanes: those of revolute joints without
	 * motor and limits, with their point bias 0 in the lanes; the others one by one); the
	 * lanes' impulses go back to their joints, as after the solve pass */
	joints_pass(w, n, F2D_PASS_RELAX, true, rigid);
	w->joint_relax = false;
}

/* One joint's relax iteration (f2d_joints_relax). A revolute joint reads no softness triple
 * (its rows are rigid: bias, motor and limits), so only its point bias is swapped. */
void f2d_joint_relax(f2d_world *w, f2d_joint *j, const fix16_t rigid[3])
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

/* The revolute def's own checks, after f2d_joint_check_bodies: the effective mass at the
 * anchors, the angles, the motor. */
static f2d_result check_revolute_def(f2d_world *w, const f2d_revolute_joint_def *def,
                                     const f2d_body *ba, const f2d_body *bb)
{
	int64_t trace = f2d_joint_mass_trace(ba, def->local_anchor_a) +
	                f2d_joint_mass_trace(bb, def->local_anchor_b);
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
	const f2d_body *ba = NULL, *bb = NULL;
	f2d_result r =
	    f2d_joint_check_bodies(w, def->body_a, def->body_b, def->local_anchor_a,
	                           def->local_anchor_b, "create_revolute_joint", &ba, &bb);
	if (r == F2D_OK) {
		r = check_revolute_def(w, def, ba, bb);
	}
	if (r != F2D_OK) {
		return r;
	}
	f2d_joint j; /* type 0: revolute; every other field zero */
	memset(&j, 0, sizeof j);
	j.local_a = def->local_anchor_a;
	j.local_b = def->local_anchor_b;
	j.reference_angle = def->reference_angle;
	j.enable_limit = def->enable_limit;
	j.lower = def->lower_angle;
	j.upper = def->upper_angle;
	j.enable_motor = def->enable_motor;
	j.motor_speed = def->motor_speed;
	j.max_motor_torque = def->max_motor_torque;
	j.collide_connected = def->collide_connected;
	j.user_data = def->user_data;
	return f2d_joint_insert(w, &j, def->body_a, def->body_b, "create_revolute_joint", out);
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
 * angle_b += (r_b x P) / I_b. A gap within f2d_joint_tolerance is left to the velocity bias.
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
	if (err <= f2d_joint_tolerance(w)) {
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
