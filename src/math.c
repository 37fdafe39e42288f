/* fix2d: integer math that is not inline: square roots, rotations, atan2, sin/cos.
 * SPDX-License-Identifier: MIT
 *
 * Nothing here calls libfixmath's trig (its caches are unsynchronised globals); everything is
 * pure integer arithmetic whose result is a function of its arguments only.
 */
#include "fmath.h"

#include "fix2d/fix2d.h"

uint64_t f2d_isqrt64_round(uint64_t n)
{
	/* Digit-by-digit square root: after the loop r = floor(sqrt(n)) and n holds n - r^2.
	 * Round up when n - r^2 > r, i.e. n >= (r + 1/2)^2 (ties are impossible for integers). */
	uint64_t r = 0;
	uint64_t bit = (uint64_t)1 << 62;
	while (bit > n) {
		bit >>= 2;
	}
	while (bit != 0) {
		if (n >= r + bit) {
			n -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	if (n > r) {
		r++;
	}
	return r;
}

fix16_t f2d_sqrt(fix16_t x)
{
	/* libfixmath's two-pass digit-by-digit root: 24 bits from the integer value, then the low
	 * 8 bits after rescaling the remainder by 2^16; when the remainder is too large to rescale
	 * it first moves half an LSB into the root, which is where it departs from exact rounding.
	 */
	uint32_t num = x < 0 ? 0u - (uint32_t)x : (uint32_t)x;
	uint32_t res = 0;
	uint32_t bit = (num & 0xFFF00000u) ? (uint32_t)1 << 30 : (uint32_t)1 << 18;
	while (bit > num) {
		bit >>= 2;
	}
	for (int pass = 0; pass < 2; ++pass) {
		while (bit != 0) {
			if (num >= res + bit) {
				num -= res + bit;
				res = (res >> 1) + bit;
			} else {
				res >>= 1;
			}
			bit >>= 2;
		}
		if (pass == 0) {
			if (num > 65535u) {
				num -= res;
				num = (num << 16) - 0x8000u;
				res = (res << 16) + 0x8000u;
			} else {
				num <<= 16;
				res <<= 16;
			}
			bit = (uint32_t)1 << 14;
		}
	}
	if (num > res) {
		res++;
	}
	return x < 0 ? -(fix16_t)res : (fix16_t)res;
}

f2d_vec2 f2d_normalize(f2d_vec2 v, fix16_t *length)
{
	int64_t len = (int64_t)f2d_isqrt64_round((uint64_t)f2d_dot64(v, v));
	if (length != NULL) {
		*length = (fix16_t)len;
	}
	if (len == 0) {
		return f2d_v(0, 0);
	}
	return f2d_v(f2d_div_exact((int64_t)v.x, len), f2d_div_exact((int64_t)v.y, len));
}

f2d_rot f2d_rot_normalize(fix16_t c, fix16_t s)
{
	f2d_vec2 v = f2d_normalize(f2d_v(c, s), NULL);
	if (v.x == 0 && v.y == 0) {
		return f2d_rot_identity();
	}
	f2d_rot q = {v.x, v.y};
	return q;
}

/* defined below with the polynomials */
static inline void sincos_q30(int64_t t, int64_t *sin_out, int64_t *cos_out);

f2d_rot f2d_integrate_rotation(f2d_rot q, fix16_t hw)
{
	if (hw == 0) {
		return q;
	}
	/* callers keep |hw| <= pi/2 (the per-step rotation cap); clamp anyway so no input can
	 * overflow the polynomial */
	hw = f2d_clamp(hw, -F2D_HALF_PI, F2D_HALF_PI);
	/* q' = q (cos a, sin a) with a = h w, the step's angle (|a| <= max_rotation <= pi/2 < 2).
	 * cos a and sin a come from a fixed Taylor polynomial in Q30 (sincos_q30), so no trig
	 * function runs and the turned angle is exact to the last Q16 bit; then q' is put back on
	 * the unit circle to stop rounding from changing its length. */
	int64_t sa, ca;
	sincos_q30((int64_t)hw * 16384, &sa, &ca);
	/* Q46 -> Q16 (fmath.h, f2d_rot_turn_q30). Renormalise only when rounding has moved |q|^2
	 * more than ~2 LSB of |q| from one: a deterministic test on the value, and it saves the
	 * square root on most steps. */
	f2d_rot r;
	return f2d_rot_turn_q30(q, sa, ca, &r) ? r : f2d_rot_normalize(r.c, r.s);
}

/* ---- sin/cos/atan2 by integer polynomials (used when building rotations and reading angles,
 *      and for revolute joint limits) ---- */

/* Q30 fixed-point helpers for polynomial evaluation. */
#define Q30 ((int64_t)1 << 30)
static int64_t mul_q30(int64_t a, int64_t b)
{
	int64_t p = a * b; /* |a|,|b| <= 2^31 in every caller: |p| < 2^62 */
	return (p + ((int64_t)1 << 29) - (p < 0)) >> 30;
}

/* mul_q30 for a, b >= 0: the sign term (p < 0) is 0, and the shift of a non-negative value is
 * the same unsigned. */
static inline int64_t mul_q30_nonneg(int64_t a, int64_t b)
{
	return (int64_t)(((uint64_t)(a * b) + ((uint64_t)1 << 29)) >> 30);
}

/* sin and cos of t in [-pi/2, pi/2] (Q30) by Taylor series to t^11 / t^12; error < 1e-9 for
 * |t| <= pi/4 and < 6e-7 for |t| <= pi/2.
 * Every Horner step divides a non-negative value: t2 >= 0, and each partial sum stays in
 * (0, 1] before it is multiplied: 1 - x t^2 / (k (k - 1)) with 0 < x <= 1, t^2 <= pi^2 / 4 <
 * 2.47 and k (k - 1) >= 6 (sine) or >= 12 (cosine, before its last step) is > 0.58; rounding
 * moves it by a few 2^-30 at most. A non-negative quotient truncates the same signed or unsigned,
 * so the steps divide unsigned (cheaper by-constant division code, same values).
 *
 * Shortcuts, the same values (tests/test_math.c compares with the plain Horner scheme for every
 * angle a step can turn, hw in [-pi/2, pi/2], and for random t): a step computes
 * s' = Q30 - floor(round30(s t2) / d) from 0 < s <= Q30. With u = Q30 - s >= 0,
 * s t2 + 2^29 = Q30 t2 + (2^29 - u t2), so round30(s t2) = t2 exactly when u t2 <= 2^29
 * (then 0 <= 2^29 - u t2 < 2^30), and the step gives Q30 - floor(t2 / d) whatever s was.
 *  - The first step starts at s = Q30 (u = 0): it is Q30 - floor(t2 / d), no product.
 *  - By induction, while every u so far, u = floor(t2 / d) with the divisors d of the steps
 *    before the last (>= 20 for the sine, >= 12 for the cosine), has u t2 <= 2^29, each step is
 *    Q30 - floor(t2 / d): floor(t2 / 20) t2 <= 2^29 for t2 <= SIN_CLOSED_MAX makes the sine's
 *    Horner sum Q30 - floor(t2 / 6), floor(t2 / 12) t2 <= 2^29 for t2 <= COS_CLOSED_MAX the
 *    cosine Q30 - floor(t2 / 2). That covers |t| < 0.0086 rad (the small turns of the joint
 *    position passes) with no dependent chain of products and divisions. */
#define SIN_CLOSED_MAX 103623
#define COS_CLOSED_MAX 80267
_Static_assert(COS_CLOSED_MAX == F2D_ROT_CLOSED_MAX && COS_CLOSED_MAX <= SIN_CLOSED_MAX,
               "f2d_integrate_rotation_small's closed forms (fmath.h)");
_Static_assert((SIN_CLOSED_MAX / 20) * (int64_t)SIN_CLOSED_MAX <= ((int64_t)1 << 29),
               "sine shortcut bound");
_Static_assert((COS_CLOSED_MAX / 12) * (int64_t)COS_CLOSED_MAX <= ((int64_t)1 << 29),
               "cosine shortcut bound");

/* The Horner sum 1 - t2 / (k (k - 1)) (1 - t2 / ((k - 2) (k - 3)) (...)) for k from top down
 * to last, in Q30, each step Q30 - round30(s t2) / (k (k - 1)); the closed form when
 * t2 <= closed_max (see above). Inline with constant arguments: constant divisors. */
static inline int64_t horner_sum(int64_t t2, int top, int last, int64_t closed_max)
{
	uint64_t u2 = (uint64_t)t2;
	if (t2 <= closed_max) {
		return Q30 - (int64_t)(u2 / (uint64_t)(last * (last - 1)));
	}
	int64_t s = Q30 - (int64_t)(u2 / (uint64_t)(top * (top - 1)));
	for (int k = top - 2; k >= last; k -= 2) {
		s = Q30 - (int64_t)((uint64_t)mul_q30_nonneg(s, t2) / (uint64_t)(k * (k - 1)));
	}
	return s;
}

static inline void sincos_q30(int64_t t, int64_t *sin_out, int64_t *cos_out)
{
	int64_t t2 = mul_q30(t, t);
	/* Horner on 1/k! terms: sine k = 11, 9, ..., 3, cosine k = 12, 10, ..., 2 */
	*sin_out = mul_q30(horner_sum(t2, 11, 3, SIN_CLOSED_MAX), t);
	*cos_out = horner_sum(t2, 12, 2, COS_CLOSED_MAX);
}

void f2d_sincos_q30(int64_t t, int64_t *sin_out, int64_t *cos_out)
{
	sincos_q30(t, sin_out, cos_out);
}

f2d_rot f2d_make_rot(fix16_t angle)
{
	/* Reduce to [-pi, pi] in Q30: pi in Q30 = 3373259426 (rounded). */
	const int64_t pi_q30 = 3373259426LL;
	const int64_t half_pi_q30 = pi_q30 / 2;
	const int64_t quarter_pi_q30 = pi_q30 / 4;
	int64_t a = (int64_t)angle * 16384; /* Q16 -> Q30 */
	int64_t two_pi = 2 * pi_q30;
	a %= two_pi;
	if (a > pi_q30) {
		a -= two_pi;
	} else if (a < -pi_q30) {
		a += two_pi;
	}
	/* Quadrant: a = k * pi/2 + t, t in [-pi/4, pi/4]. */
	int k = 0;
	int64_t t = a;
	while (t > quarter_pi_q30) {
		t -= half_pi_q30;
		++k;
	}
	while (t < -quarter_pi_q30) {
		t += half_pi_q30;
		--k;
	}
	int64_t s, c;
	sincos_q30(t, &s, &c);
	int64_t rs, rc;
	switch (k & 3) {
	case 0:
		rc = c;
		rs = s;
		break;
	case 1:
		rc = -s;
		rs = c;
		break;
	case 2:
		rc = -c;
		rs = -s;
		break;
	default:
		rc = s;
		rs = -c;
		break;
	}
	/* Q30 -> Q16 with rounding, then renormalise so |q| = 1 to the LSB. */
	fix16_t qc = (fix16_t)((rc + 0x2000 - (rc < 0)) >> 14);
	fix16_t qs = (fix16_t)((rs + 0x2000 - (rs < 0)) >> 14);
	return f2d_rot_normalize(qc, qs);
}

/* atan(z) for z in [0, 1] (Q30): atan(z) = pi/4 + atan((z - 1) / (z + 1)) reduces to
 * |u| <= tan(pi/8) = 0.4142, where the odd Taylor series to u^23 has error < 1e-9. */
static int64_t atan_unit_q30(int64_t z)
{
	const int64_t pi_q30 = 3373259426LL;
	int64_t u, base;
	if (z > 444758426LL) { /* z > tan(pi/8) in Q30 */
		u = ((z - Q30) * Q30) / (z + Q30);
		base = pi_q30 / 4;
	} else {
		u = z;
		base = 0;
	}
	int64_t w = mul_q30(u, u);
	/* atan(u) = u P(u^2), P(w) = sum_{j=0..11} (-1)^j w^j / (2j + 1), by Horner */
	int64_t p = 0;
	for (int j = 11; j >= 0; --j) {
		int64_t cj = Q30 / (2 * j + 1);
		p = ((j & 1) ? -cj : cj) + mul_q30(p, w);
	}
	return base + mul_q30(u, p);
}

fix16_t f2d_atan2(fix16_t y, fix16_t x)
{
	if (x == 0 && y == 0) {
		return 0;
	}
	const int64_t pi_q30 = 3373259426LL;
	int64_t ax = x < 0 ? -(int64_t)x : (int64_t)x;
	int64_t ay = y < 0 ? -(int64_t)y : (int64_t)y;
	int64_t r;
	if (ay <= ax) {
		r = atan_unit_q30((ay << 30) / ax);
	} else {
		r = pi_q30 / 2 - atan_unit_q30((ax << 30) / ay);
	}
	if (x < 0) {
		r = pi_q30 - r;
	}
	if (y < 0) {
		r = -r;
	}
	return (fix16_t)((r + 0x2000 - (r < 0)) >> 14);
}

fix16_t f2d_rot_get_angle(f2d_rot q)
{
	return f2d_atan2(q.s, q.c);
}

f2d_vec2 f2d_transform_point(f2d_transform xf, f2d_vec2 p)
{
	return f2d_xf_point(xf, p);
}
