/* fix2d joints other than revolute: soft constraints, the shared 2x2 inverse, dispatch,
 * creation and validation, reaction getters and setters (the per-type solvers are in
 * joint_distance.c, joint_prismatic.c, joint_weld.c, joint_wheel.c, joint_motor.c,
 * joint_mouse.c). See joint_internal.h.
 * SPDX-License-Identifier: MIT
 */
#include "joint_internal.h"

/* ---- soft constraints ----
 * Box2D v3 (b2MakeSoft): a spring of frequency f and damping ratio zeta on a constraint of
 * effective mass m, stiffness k = m omega^2 and damping c = 2 m zeta omega (omega = 2 pi f),
 * stepped implicitly over h: with
 *   a1 = 2 zeta + h omega,  a2 = h omega a1,  a3 = 1 / (1 + a2),
 *   bias_rate = omega / a1,  mass_scale = a2 a3,  impulse_scale = a3,
 * the iteration lambda = -mass_scale m (Cdot + bias_rate C) - impulse_scale accumulated
 * converges (mass_scale + impulse_scale = 1) to lambda = -mass_scale m (Cdot_0 + bias_rate C),
 * i.e. (v1 - v0) / h = -omega^2 (C + h v1) - 2 zeta omega v1: backward Euler of the damped
 * spring (stable at any f; it loses amplitude as exp(-pi h omega) per period at zeta = 0).
 *
 * Exact integers: W = round(2 pi f) in Q16 (f <= 1000 Hz: W < 2^29), X = h omega in Q32 =
 * H W (H = h in Q16 <= 6554: X < 2^42), A1 = a1 in Q32 = 2 zeta 2^32 + X (zeta <= 100:
 * < 2^43), a2 2^64 = X A1 < 2^85 (128-bit). Then, each rounded half up:
 *   bias_rate     = W 2^32 / A1            (< 2^61 / A1; A1 >= X = H W, so <= 2^32 / H)
 *   mass_scale    = 2^16 X A1 / (2^64 + X A1)   (<= 2^16)
 *   impulse_scale = 2^80 / (2^64 + X A1)        (<= 2^16)
 * W = 0 (f below 1.6e-4 Hz rounds to no spring) gives (0, 0, 1): the spring holds nothing.
 *
 * That step damps on its own: at 60 Hz a 5 Hz spring of zeta 0.1 decays as zeta 0.33 and its
 * period is 13 % long (h omega = 0.52; tests/test_joints.c). f2d_make_soft below therefore
 * takes the coefficients that make one step of the soft constraint the exact flow of the
 * continuous oscillator over h (engine format 7), and keeps Box2D's where that is ill-posed.
 *
 * Matched step. One step of the soft constraint on a lone body (C = x, Cdot = v; the
 * iteration converges in one pass since mass_scale + impulse_scale = 1):
 *   v1 = (1 - ms) v0 - ms br x0,  x1 = x0 + h v1,
 * a linear map with determinant 1 - ms and trace 2 - ms - h ms br. The continuous oscillator
 * x'' + 2 zeta omega x' + omega^2 x = 0 maps (x, v) over h with eigenvalues
 *   zeta < 1:  exp(-zeta x) exp(+-i x sqrt(1 - zeta^2))         (x = h omega)
 *   zeta >= 1: exp(-x / (zeta + s)), exp(-x (zeta + s))         (s = sqrt(zeta^2 - 1);
 *              zeta - s = 1 / (zeta + s))
 * whose product is R = exp(-2 zeta x) and sum T (2 exp(-zeta x) cos(x sqrt(1 - zeta^2)), or
 * the two exponentials). Two maps with the same eigenvalues sample the same decay and period
 * (the eigenvalues are distinct unless zeta = 1 exactly, where both are repeated: the same
 * Jordan form), so
 *   ms = 1 - R,  is = R,  br = (1 + R - T) / ((1 - R) h)
 * (1 - R > 0 for zeta x > 0; 1 + R - T >= (1 - sqrt R)^2 >= 0 as |T| <= 2 sqrt R (zeta < 1)
 * or by the AM-GM inequality (zeta >= 1); so ms, is in [0, 1], br >= 0: a valid softness).
 * Per step this is the continuous motion up to the rounding of the three coefficients.
 *
 * Where it is ill-posed, Box2D's. (a) zeta -> 0: ms -> 0 and br ~ omega / (2 zeta) -> inf (a
 * lossless spring is not a soft constraint of this form), so below zeta0 = 1/16 the two sets
 * are blended, Box2D's weight (zeta0 - zeta) / zeta0. (b) Fast springs, x = h omega >= 1 (f >=
 * 9.5 Hz at 60 Hz): sampled by fewer than 6.3 steps per radian, the matched step would alias
 * (x sqrt(1 - zeta^2) near pi) and an undamped stiff spring would not act rigid as Box2D's
 * does; Box2D's weight is x - 1, all Box2D's from x = 2 (19 Hz at 60 Hz). The weight is the
 * larger of the two; every blend of two valid softnesses is valid (ms in [0, 1], br >= 0,
 * is = 1 - ms), and the coefficients change continuously with f and zeta.
 *
 * Integers (no libfixmath trig; every step below is an integer operation, the same on every
 * host): x, zeta x, ... in Q30 (int64); exp(-y) and cos(z) by the Taylor series in nested
 * (Horner) form, each nesting rounded once:
 *   exp(-y): y = k ln2 + g, g in [0, ln2) (LN2_Q30 = round(ln 2 2^30)), exp(-g) = 1 - g (1 -
 *     g/2 (1 - g/3 (... (1 - g/12)))), each division a product by round(2^30 / n), then >> k.
 *     Truncation < g^13 / 13! < 2e-12 (0.002 LSB). Each nesting rounds twice and its
 *     reciprocal by 1/2 LSB: <= 3/2 LSB, damped by the outer factors g/n < 0.7, so < 3 LSB;
 *     ln2's rounding moves g by <= k/2 LSB, which the >> k divides by 2^k (< 1/2 LSB
 *     with the final rounding): |error| < 4 LSB of Q30 (4e-9). y >= 40: 0 (exp(-40) < 2^-57).
 *   cos(z), z in [0, 2]: u = z^2, 1 - u/(1 2) (1 - u/(3 4) (... (1 - u/(19 20)))), the
 *     divisions products by round(2^30 / ((2n - 1) 2n)); truncation < z^22 / 22! < 4e-15.
 *     Each nesting <= 3 LSB (two roundings, and u t <= 4 times the reciprocal's 1/2 LSB
 *     rounding), amplified by the outer factors u / ((2n - 1) 2n) (<= 2, 1/3, 2/15, ...):
 *     |error| < 3 (1 + 2 (1 + 1/3 (1 + ...))) < 12 LSB of Q30 (1.1e-8). Products: |t| <= 1,
 *     u <= 4 (Q30: < 2^63). No division: the pre-step computes this for every spring joint
 *     every step.
 *   sqrt: f2d_isqrt64_round. zeta < 1: sqrt(1 - zeta^2) in Q30 from Q60; zeta >= 1: s in Q16
 *     from the Q32 zeta^2 - 1 (the blend is only computed for x < 2).
 * Then ms (Q16) = round(((2^16 - w) ms_m + w ms_b) / 2^16), br likewise, is = 2^16 - ms, with
 * w Box2D's weight in Q16 and (ms_m, br_m), (ms_b, br_b) the matched and Box2D's sets (br_m
 * formed as (2^16 - w)(1 + R - T) / (1 - R) / h: bounded by ~16 / h even as zeta -> 0). The
 * coefficients' rounding (1/2 LSB of Q16 on ms ~ 2 zeta x) is the accuracy limit: a 1 Hz,
 * zeta 0.1 spring at 60 Hz has ms ~ 0.021 (1,370 LSB), so 4e-4 relative. */
#define TWO_PI_Q16 411775 /* round(2 pi 2^16) */
#define LN2_Q30 744261118 /* round(ln 2 2^30) */
#define ONE_Q30 ((int64_t)1 << 30)
#define ZETA0_Q16 4096 /* 1/16 */

/* ---- f2d_u128_div31, faster (the same function) ----
 * floor(n / d) for d > 0, 2^31 when that is >= 2^31 (the caller saturates). f2d_u128_div31
 * restores 31 quotient bits one at a time (31 steps of 128-bit shifts and compares: it was a
 * quarter of soft_bridge's step, in the pre-step's 2x2 inverses and softness). Here:
 * - n and d below 2^64: one 64-bit division.
 * - else (d has b >= 33 bits): with s = b - 33, dn = floor(d / 2^s) in [2^32, 2^33) and
 *   nn = floor(n / 2^s); once n < 2^31 d is known, nn < 2^31 (dn + 1) < 2^64. The estimate
 *   e = floor(nn / (dn + 1)) is at most q = floor(n / d), because n / d >= nn 2^s / ((dn + 1)
 *   2^s); and n / d - nn / (dn + 1) < (nn + 1) / dn - nn / (dn + 1) = (nn + dn + 1) / (dn (dn
 *   + 1)) < 2^31 / dn + 2 / dn <= 1/2 + 2^-31, so q - e <= 1. The remainder n - e d (>= 0,
 *   e d <= n < 2^128) then corrects e by whole d's: exact, so the result is f2d_u128_div31's.
 * tests/test_joint_paths.c compares the two on edge and random inputs. */
static int bit_length64(uint64_t v)
{
	int n = 0;
	for (int s = 32; s > 0; s >>= 1) {
		if ((v >> s) != 0) {
			v >>= s;
			n += s;
		}
	}
	return n + (v != 0 ? 1 : 0);
}

static f2d_u128 shr128(f2d_u128 a, int n) /* 0 < n < 128 */
{
	f2d_u128 r;
	if (n >= 64) {
		r.lo = a.hi >> (n - 64);
		r.hi = 0;
	} else {
		r.lo = (a.lo >> n) | (a.hi << (64 - n));
		r.hi = a.hi >> n;
	}
	return r;
}

uint32_t f2d_div31_fast(f2d_u128 n, f2d_u128 d)
{
	if ((n.hi | d.hi) == 0) {
		uint64_t q = n.lo / d.lo;
		return q >= ((uint64_t)1 << 31) ? (uint32_t)1 << 31 : (uint32_t)q;
	}
	int bits = d.hi != 0 ? 64 + bit_length64(d.hi) : bit_length64(d.lo);
	if (bits < 33 || bits > 97) {
		return f2d_u128_div31(n, d); /* d << 31 must fit: the caller's contract */
	}
	if (!f2d_u128_less(n, f2d_u128_shl(d, 31))) {
		return (uint32_t)1 << 31;
	}
	int s = bits - 33;
	uint64_t dn = s > 0 ? shr128(d, s).lo : d.lo;
	uint64_t nn = s > 0 ? shr128(n, s).lo : n.lo;
	uint64_t e = nn / (dn + 1); /* < 2^31 */
	f2d_u128 ed = f2d_u128_mul(e, d.lo);
	ed.hi += e * d.hi; /* e d <= n < 2^128: no carry out */
	f2d_u128 r = f2d_u128_sub(n, ed);
	while (!f2d_u128_less(r, d)) {
		r = f2d_u128_sub(r, d);
		++e;
	}
	return (uint32_t)e;
}

/* round(a / 2^30) for a product of Q30 values (half away from zero, as f2d_round16) */
static int64_t q30_round(int64_t a)
{
	return (a + ((int64_t)1 << 29) + (a >> 63)) >> 30;
}

/* round(2^30 / n) and round(2^30 / ((2n - 1) 2n)): the nestings' divisions as products */
static const int64_t RECIP_Q30[13] = {0,         1073741824, 536870912, 357913941, 268435456,
                                      214748365, 178956971,  153391689, 134217728, 119304647,
                                      107374182, 97612893,   89478485};
static const int64_t RECIP2_Q30[11] = {0,       536870912, 89478485, 35791394, 19173961, 11930465,
                                       8134408, 5899680,   4473924,  3508960,  2825636};

/* exp(-y) in Q30 for y >= 0 in Q30 (|error| < 4 LSB, see above) */
int64_t f2d_exp_neg_q30(int64_t y)
{
	if (y >= 40 * ONE_Q30) {
		return 0;
	}
	int64_t k = y / LN2_Q30, g = y - k * LN2_Q30;
	int64_t t = ONE_Q30;
	for (int n = 12; n >= 1; --n) {
		t = ONE_Q30 - q30_round(q30_round(g * t) * RECIP_Q30[n]); /* g t < 2^60 */
	}
	return k == 0 ? t : (t + ((int64_t)1 << (k - 1))) >> k;
}

/* cos(z) in Q30 for z in [0, 2] in Q30 (|error| < 12 LSB) */
int64_t f2d_cos_q30(int64_t z)
{
	int64_t u = q30_round(z * z); /* <= 4 2^30 */
	int64_t t = ONE_Q30;
	for (int n = 10; n >= 1; --n) {
		t = ONE_Q30 - q30_round(q30_round(u * t) * RECIP2_Q30[n]); /* |u t| <= 2^62 */
	}
	return t;
}

/* Box2D's b2MakeSoft in exact integers (X = h omega in Q32, W = omega in Q16) */
static void box2d_soft(uint64_t W, uint64_t X, fix16_t zeta, fix16_t soft[3])
{
	uint64_t A1 = ((uint64_t)zeta << 17) + X;
	if (A1 == 0) {
		soft[SOFT_BIAS] = 0;
		soft[SOFT_MASS] = 0;
		soft[SOFT_IMPULSE] = F2D_ONE;
		return;
	}
	soft[SOFT_BIAS] = (fix16_t)(((W << 32) + A1 / 2) / A1);
	f2d_u128 xa = f2d_u128_mul(X, A1);
	f2d_u128 two64 = {1u, 0u}, two80 = {(uint64_t)1 << 16, 0u}; /* {hi, lo} */
	f2d_u128 den = f2d_u128_add(two64, xa);
	f2d_u128 half = f2d_u128_half(den);
	soft[SOFT_MASS] = (fix16_t)f2d_div31_fast(f2d_u128_add(f2d_u128_shl(xa, 16), half), den);
	soft[SOFT_IMPULSE] = (fix16_t)f2d_div31_fast(f2d_u128_add(two80, half), den);
}

void f2d_make_soft(fix16_t hertz, fix16_t zeta, fix16_t h, fix16_t soft[3])
{
	if (hertz <= 0) {
		soft[SOFT_BIAS] = 0;
		soft[SOFT_MASS] = F2D_ONE;
		soft[SOFT_IMPULSE] = 0;
		return;
	}
	uint64_t W = (uint64_t)f2d_round16((int64_t)hertz * TWO_PI_Q16);
	uint64_t X = (uint64_t)h * W;
	fix16_t b2[3];
	box2d_soft(W, X, zeta, b2);
	/* Box2D's weight w (Q16): the larger of (x - 1) and (zeta0 - zeta) / zeta0, in [0, 1] */
	int64_t x = (int64_t)((X + 2) >> 2); /* Q30; X < 2^42 */
	int64_t wx =
	    x <= ONE_Q30 ? 0 : (x >= 2 * ONE_Q30 ? F2D_ONE : (x - ONE_Q30 + (1 << 13)) >> 14);
	int64_t wz = zeta >= ZETA0_Q16 ? 0 : (int64_t)(ZETA0_Q16 - zeta) << 4;
	int64_t w = wx > wz ? wx : wz;
	if (w >= F2D_ONE) {
		soft[SOFT_BIAS] = b2[SOFT_BIAS];
		soft[SOFT_MASS] = b2[SOFT_MASS];
		soft[SOFT_IMPULSE] = b2[SOFT_IMPULSE];
		return;
	}
	/* the matched step: R = exp(-2 zeta x), T = the eigenvalues' sum (x < 2, zeta > 0) */
	int64_t zx = ((int64_t)zeta * x + (1 << 15)) >> 16; /* Q30, < 2^38 */
	int64_t R = f2d_exp_neg_q30(2 * zx), T;
	if (zeta < F2D_ONE) {
		uint64_t q = ((uint64_t)1 << 32) - (uint64_t)zeta * (uint64_t)zeta; /* Q32 */
		int64_t sq = (int64_t)f2d_isqrt64_round(q << 28);                   /* Q30 */
		T = 2 * q30_round(f2d_exp_neg_q30(zx) * f2d_cos_q30(q30_round(x * sq)));
	} else {
		uint64_t q = (uint64_t)zeta * (uint64_t)zeta - ((uint64_t)1 << 32); /* Q32 */
		int64_t zs = zeta + (int64_t)f2d_isqrt64_round(q);                  /* Q16 */
		T = f2d_exp_neg_q30((x << 16) / zs) + f2d_exp_neg_q30((x * zs + (1 << 15)) >> 16);
	}
	int64_t num = ONE_Q30 + R - T, den = ONE_Q30 - R; /* den > 0: zeta x >= 2^-16 x > 0 */
	if (num < 0) {
		num = 0; /* only by rounding, when both are ~0 */
	}
	if (den <= 0) {
		den = 1;
	}
	int64_t e = F2D_ONE - w;
	/* br_m (1 - w) = e num / den / h in Q16: e num < 2^49; the quotient <= ~2^20 (above) */
	int64_t brh = (e * num + den / 2) / den; /* Q16, (1 - w) br h; <= ~2^20 but for a den
	                                          * rounded to ~0: bounded before << 16 */
	brh = brh > ((int64_t)1 << 46) ? (int64_t)1 << 46 : brh;
	int64_t br_m = ((brh << 16) + h / 2) / h; /* Q16, / h */
	int64_t ms_m = (den + (1 << 13)) >> 14;   /* Q16 */
	int64_t ms = (e * ms_m + w * b2[SOFT_MASS] + (1 << 15)) >> 16;
	int64_t br = br_m + ((w * b2[SOFT_BIAS] + (1 << 15)) >> 16);
	soft[SOFT_BIAS] = f2d_sat(br);
	soft[SOFT_MASS] = (fix16_t)ms;
	soft[SOFT_IMPULSE] = (fix16_t)(F2D_ONE - ms);
}

void f2d_joint_make_soft(f2d_joint *j, int which, fix16_t hertz, fix16_t zeta, fix16_t h,
                         fix16_t out[3])
{
	fix16_t *key = j->soft_key[which], *cache = j->soft_cache[which];
	if (hertz > 0 && key[0] == hertz && key[1] == zeta && key[2] == h) {
		out[0] = cache[0];
		out[1] = cache[1];
		out[2] = cache[2];
		return;
	}
	f2d_make_soft(hertz, zeta, h, out);
	if (hertz > 0) {
		key[0] = hertz;
		key[1] = zeta;
		key[2] = h;
		cache[0] = out[0];
		cache[1] = out[1];
		cache[2] = out[2];
	}
}

/* Rigid joints (Box2D v3's joint softness, 2 x the contact hertz of a quarter of the step rate,
 * zeta = 2): f = 1 / (2 h), so h omega = pi whatever h, and
 *   a1 = 4 + pi, a2 = pi (4 + pi) = 22.436, bias_rate = (pi / (4 + pi)) / h = 0.43990 / h,
 *   mass_scale = a2 / (1 + a2) = 0.957331, impulse_scale = 1 / (1 + a2) = 0.042669
 * (Q16: 28829, 62740, 2796; the scales sum to 2^16). */
#define RIGID_BIAS_Q16 28829
#define RIGID_MASS_Q16 62740
#define RIGID_IMPULSE_Q16 2796

void f2d_rigid_soft(const f2d_world *w, fix16_t soft[3])
{
	if (w->joint_relax) {
		/* the relax pass (f2d_joints_relax): rigid without bias, the full mass */
		soft[SOFT_BIAS] = 0;
		soft[SOFT_MASS] = F2D_ONE;
		soft[SOFT_IMPULSE] = 0;
		return;
	}
	soft[SOFT_BIAS] = f2d_mul(RIGID_BIAS_Q16, w->inv_h); /* inv_h <= 1000: exact */
	soft[SOFT_MASS] = RIGID_MASS_Q16;
	soft[SOFT_IMPULSE] = RIGID_IMPULSE_Q16;
}

fix16_t f2d_soft_impulse(f2d_world *w, const fix16_t soft[3], fix16_t mass, fix16_t cdot, fix16_t c,
                         fix16_t accumulated)
{
	fix16_t v = jx_add(w, cdot, jx_mul(w, soft[SOFT_BIAS], c));
	fix16_t t = jx_mul(w, mass, v);
	return jx_sat(w, -(int64_t)jx_mul(w, soft[SOFT_MASS], t) -
	                     jx_mul(w, soft[SOFT_IMPULSE], accumulated));
}

fix16_t f2d_limit_impulse(f2d_world *w, fix16_t mass, fix16_t cdot, fix16_t c, fix16_t *accumulated)
{
	fix16_t old = *accumulated; /* >= 0 */
	int64_t impulse;
	if (c > 0) {
		/* speculative: may close the gap c within the step but not pass it; a bias beyond
		 * the fix16 range can only give a negative impulse, clamped below to -old: the
		 * silent saturations cannot change the result */
		int64_t s = (int64_t)cdot + f2d_sat(f2d_round16((int64_t)c * w->inv_h));
		if (s > 0) {
			impulse = -(int64_t)f2d_sat(f2d_round16((int64_t)mass * f2d_sat(s)));
		} else {
			impulse = -(int64_t)jx_mul(w, mass, (fix16_t)s);
		}
	} else {
		fix16_t soft[3];
		f2d_rigid_soft(w, soft);
		impulse = f2d_soft_impulse(w, soft, mass, cdot, c, old);
	}
	int64_t next = (int64_t)old + impulse;
	*accumulated = jx_sat(w, next > 0 ? next : 0);
	return *accumulated - old;
}

/* f2d_limit_impulse for the fast paths (joint_internal.h): the same expressions, wrapping, the
 * flagged saturations checked, the silent ones (f2d_sat) as there */
int64_t jf_limit_impulse(const f2d_world *w, uint64_t *acc, int64_t mass, int64_t cdot, int64_t c,
                         int64_t *accumulated)
{
	int64_t old = *accumulated;
	int64_t impulse;
	if (c > 0) {
		int64_t s = f2d_wadd(cdot, f2d_sat(f2d_wround16(f2d_wmul(c, w->inv_h))));
		if (s > 0) {
			impulse = f2d_wsub(0, f2d_sat(f2d_wround16(f2d_wmul(mass, f2d_sat(s)))));
		} else {
			impulse = f2d_wsub(0, jf_mul(acc, mass, s));
		}
	} else {
		fix16_t soft[3];
		f2d_rigid_soft(w, soft);
		impulse = jf_soft_impulse(acc, soft, mass, cdot, c, old);
	}
	int64_t next = f2d_wadd(old, impulse);
	*accumulated = jf_sat(acc, next > 0 ? next : 0);
	return f2d_wsub(*accumulated, old);
}

fix16_t f2d_joint_relative_angle(const f2d_body *a, const f2d_body *b, fix16_t reference)
{
	fix16_t angle = f2d_rot_get_angle(f2d_inv_mul_rot(a->q, b->q)) - reference;
	if (angle > F2D_PI) {
		angle -= 2 * F2D_PI;
	} else if (angle < -F2D_PI) {
		angle += 2 * F2D_PI;
	}
	return angle;
}

f2d_vec2 f2d_joint_anchor_gap(const f2d_body *a, const f2d_body *b, f2d_vec2 ra, f2d_vec2 rb)
{
	return f2d_v(f2d_sat((int64_t)b->center.x + rb.x - a->center.x - ra.x),
	             f2d_sat((int64_t)b->center.y + rb.y - a->center.y - ra.y));
}

void f2d_joint_arms(f2d_world *w, f2d_joint *j)
{
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	j->r_a = f2d_rotate(a->q, f2d_sub(j->local_a, a->local_center));
	j->r_b = f2d_rotate(b->q, f2d_sub(j->local_b, b->local_center));
}

/* ---- 2x2 inverse (as joint.c's point_mass, with saturated entries) ---- */
#define K_MAX ((int64_t)1 << 46)

static int64_t clamp_k(f2d_world *w, int64_t k)
{
	if (k > K_MAX || k < -K_MAX) {
		w->saturated = true;
		return k > 0 ? K_MAX : -K_MAX;
	}
	return k;
}

/* 1/I r^2-like term: inv_i * sat(x * y) (each factor at most 2^31, so the product fits) */
static int64_t k_term(f2d_world *w, fix16_t inv_i, fix16_t x, fix16_t y)
{
	return f2d_round16((int64_t)inv_i * jx_sat(w, f2d_round16((int64_t)x * y)));
}

/* round(num 2^32 / det) for |num| <= 2^46, det < 2^93 (Q32), saturated and reported */
static fix16_t div_q16_by_q32(f2d_world *w, int64_t num, f2d_u128 det)
{
	uint64_t mag = num < 0 ? 0u - (uint64_t)num : (uint64_t)num;
	f2d_u128 n = f2d_u128_add(f2d_u128_shl(f2d_u128_from(mag), 32), f2d_u128_half(det));
	uint32_t q = f2d_div31_fast(n, det);
	if (q > (uint32_t)INT32_MAX) {
		w->saturated = true;
		q = (uint32_t)INT32_MAX;
	}
	return num < 0 ? -(fix16_t)q : (fix16_t)q;
}

/* K^-1 of a symmetric positive semi-definite K (Q16 entries within 2^46): det = k11 k22 -
 * k12^2 < 2^92 in Q32, exact in 128 bits; a singular rounded K takes the diagonal inverse. */
static void inverse22(f2d_world *w, int64_t k11, int64_t k12, int64_t k22, fix16_t *m11,
                      fix16_t *m12, fix16_t *m22)
{
	k11 = clamp_k(w, k11);
	k12 = clamp_k(w, k12);
	k22 = clamp_k(w, k22);
	uint64_t u12 = k12 < 0 ? 0u - (uint64_t)k12 : (uint64_t)k12;
	f2d_u128 diag = f2d_u128_mul((uint64_t)(k11 > 0 ? k11 : 0), (uint64_t)(k22 > 0 ? k22 : 0));
	f2d_u128 off = f2d_u128_mul(u12, u12);
	if (!f2d_u128_less(off, diag)) {
		*m11 = jx_inv(w, k11);
		*m12 = 0;
		*m22 = jx_inv(w, k22);
		return;
	}
	f2d_u128 det = f2d_u128_sub(diag, off);
	*m11 = div_q16_by_q32(w, k22, det);
	*m12 = div_q16_by_q32(w, -k12, det);
	*m22 = div_q16_by_q32(w, k11, det);
}

/* Point constraint (derivation at joint.c's f2d_joint_prestep): K = (1/m_a + 1/m_b) I
 * + 1/I_a [r_a.y^2, -r_a.x r_a.y; ., r_a.x^2] + (the same for b). */
static void point_k(f2d_world *w, const f2d_body *a, const f2d_body *b, f2d_vec2 ra, f2d_vec2 rb,
                    int64_t *o11, int64_t *o12, int64_t *o22)
{
	int64_t k11 = (int64_t)a->inv_mass + b->inv_mass, k12 = 0, k22 = k11;
	if (a->inv_inertia != 0) {
		k11 += k_term(w, a->inv_inertia, ra.y, ra.y);
		k12 -= k_term(w, a->inv_inertia, ra.x, ra.y);
		k22 += k_term(w, a->inv_inertia, ra.x, ra.x);
	}
	if (b->inv_inertia != 0) {
		k11 += k_term(w, b->inv_inertia, rb.y, rb.y);
		k12 -= k_term(w, b->inv_inertia, rb.x, rb.y);
		k22 += k_term(w, b->inv_inertia, rb.x, rb.x);
	}
	*o11 = k11;
	*o12 = k12;
	*o22 = k22;
}

void f2d_point_mass_inverse(f2d_world *w, const f2d_body *a, const f2d_body *b, f2d_vec2 ra,
                            f2d_vec2 rb, fix16_t *m11, fix16_t *m12, fix16_t *m22)
{
	int64_t k11, k12, k22;
	point_k(w, a, b, ra, rb, &k11, &k12, &k22);
	inverse22(w, k11, k12, k22, m11, m12, m22);
}

void f2d_point_mass_update(f2d_world *w, const f2d_body *a, const f2d_body *b, f2d_vec2 ra,
                           f2d_vec2 rb, fix16_t *m11, fix16_t *m12, fix16_t *m22)
{
	int64_t k11, k12, k22;
	point_k(w, a, b, ra, rb, &k11, &k12, &k22);
	if (!f2d_inverse22_fits(*m11, *m12, *m22, k11, k12, k22)) {
		inverse22(w, k11, k12, k22, m11, m12, m22);
	}
}

/* Prismatic block (joint_prismatic.c): K = [mA + mB + iA s1^2 + iB s2^2, iA s1 + iB s2;
 * ., iA + iB] (k22 = 1 when neither body turns). */
static void block_k(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t s1, fix16_t s2,
                    int64_t *o11, int64_t *o12, int64_t *o22)
{
	int64_t k11 = (int64_t)a->inv_mass + b->inv_mass + k_term(w, a->inv_inertia, s1, s1) +
	              k_term(w, b->inv_inertia, s2, s2);
	int64_t k12 =
	    f2d_round16((int64_t)a->inv_inertia * s1) + f2d_round16((int64_t)b->inv_inertia * s2);
	int64_t k22 = (int64_t)a->inv_inertia + b->inv_inertia;
	if (k22 == 0) {
		k22 = F2D_ONE;
	}
	*o11 = k11;
	*o12 = k12;
	*o22 = k22;
}

void f2d_joint_block_inverse(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t s1,
                             fix16_t s2, fix16_t *m11, fix16_t *m12, fix16_t *m22)
{
	int64_t k11, k12, k22;
	block_k(w, a, b, s1, s2, &k11, &k12, &k22);
	inverse22(w, k11, k12, k22, m11, m12, m22);
}

void f2d_joint_block_update(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t s1,
                            fix16_t s2, fix16_t *m11, fix16_t *m12, fix16_t *m22)
{
	int64_t k11, k12, k22;
	block_k(w, a, b, s1, s2, &k11, &k12, &k22);
	if (!f2d_inverse22_fits(*m11, *m12, *m22, k11, k12, k22)) {
		inverse22(w, k11, k12, k22, m11, m12, m22);
	}
}

/* 1 / (mA + mB + iA c1^2 + iB c2^2): the effective mass along an axis with arms' crosses c */
static int64_t axial_k(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t c1, fix16_t c2)
{
	return (int64_t)a->inv_mass + b->inv_mass + k_term(w, a->inv_inertia, c1, c1) +
	       k_term(w, b->inv_inertia, c2, c2);
}

fix16_t f2d_joint_axial_mass(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t c1,
                             fix16_t c2)
{
	return jx_inv(w, clamp_k(w, axial_k(w, a, b, c1, c2)));
}

fix16_t f2d_joint_axial_mass_update(f2d_world *w, const f2d_body *a, const f2d_body *b, fix16_t c1,
                                    fix16_t c2, fix16_t mass)
{
	int64_t k = axial_k(w, a, b, c1, c2);
	return f2d_inverse1_fits(mass, k) ? mass : jx_inv(w, clamp_k(w, k));
}

/* ---- dispatch ---- */
#ifdef F2D_JOINT_COUNT_PATHS
uint64_t f2d_joint_ext_path_counts[7][4];
#endif

void f2d_joint_ext_prestep(f2d_world *w, f2d_joint *j)
{
	switch (j->type) {
	case F2D_DISTANCE_JOINT: f2d_distance_prestep(w, j); break;
	case F2D_PRISMATIC_JOINT: f2d_prismatic_prestep(w, j); break;
	case F2D_WELD_JOINT: f2d_weld_prestep(w, j); break;
	case F2D_WHEEL_JOINT: f2d_wheel_prestep(w, j); break;
	case F2D_MOTOR_JOINT: f2d_motor_joint_prestep(w, j); break;
	default: f2d_mouse_prestep(w, j); break;
	}
}

void f2d_joint_ext_substep(f2d_world *w, f2d_joint *j)
{
	switch (j->type) {
	case F2D_DISTANCE_JOINT: f2d_distance_substep(w, j); break;
	case F2D_PRISMATIC_JOINT: f2d_prismatic_substep(w, j); break;
	case F2D_WELD_JOINT: f2d_weld_substep(w, j); break;
	case F2D_WHEEL_JOINT: f2d_wheel_substep(w, j); break;
	case F2D_MOTOR_JOINT: f2d_motor_joint_substep(w, j); break;
	default: f2d_mouse_substep(w, j); break;
	}
}

void f2d_joint_ext_warm_start(f2d_world *w, f2d_joint *j)
{
	switch (j->type) {
	case F2D_DISTANCE_JOINT: f2d_distance_warm_start(w, j); break;
	case F2D_PRISMATIC_JOINT: f2d_prismatic_warm_start(w, j); break;
	case F2D_WELD_JOINT: f2d_weld_warm_start(w, j); break;
	case F2D_WHEEL_JOINT: f2d_wheel_warm_start(w, j); break;
	case F2D_MOTOR_JOINT: f2d_motor_joint_warm_start(w, j); break;
	default: f2d_mouse_warm_start(w, j); break;
	}
}

void f2d_joint_ext_solve(f2d_world *w, f2d_joint *j)
{
	switch (j->type) {
	case F2D_DISTANCE_JOINT: f2d_distance_solve(w, j); break;
	case F2D_PRISMATIC_JOINT: f2d_prismatic_solve(w, j); break;
	case F2D_WELD_JOINT: f2d_weld_solve(w, j); break;
	case F2D_WHEEL_JOINT: f2d_wheel_solve(w, j); break;
	case F2D_MOTOR_JOINT: f2d_motor_joint_solve(w, j); break;
	default: f2d_mouse_solve(w, j); break;
	}
}

/* ---- validation ----
 * Which fields each type uses; all others must be zero (a record from a def has them zero). */
enum {
	U_REF = 1 << 0,
	U_LOWER = 1 << 1,
	U_UPPER = 1 << 2,
	U_SPEED = 1 << 3,
	U_MAXM = 1 << 4,
	U_AXIS = 1 << 5,
	U_LENGTH = 1 << 6,
	U_HZ = 1 << 7,
	U_ZETA = 1 << 8,
	U_AHZ = 1 << 9,
	U_AZETA = 1 << 10,
	U_MAXF = 1 << 11,
	U_CORR = 1 << 12,
	U_LIMIT = 1 << 13,
	U_MOTOR = 1 << 14,
	U_SPRING = 1 << 15,
	U_IMPX = 1 << 16,
	U_IMPY = 1 << 17,
	U_MOTORI = 1 << 18,
	U_LIMITI = 1 << 19,
	U_SPRI = 1 << 20,
	U_ANGI = 1 << 21,
	U_LOCAL = 1 << 22
};

static uint32_t used_fields(uint8_t type)
{
	const uint32_t limit = U_LOWER | U_UPPER | U_LIMIT | U_LIMITI;
	const uint32_t motor = U_SPEED | U_MAXM | U_MOTOR | U_MOTORI;
	const uint32_t spring = U_HZ | U_ZETA | U_SPRING;
	switch (type) {
	case F2D_DISTANCE_JOINT: return U_LOCAL | U_LENGTH | limit | motor | spring | U_IMPX;
	case F2D_PRISMATIC_JOINT:
		return U_LOCAL | U_REF | U_AXIS | limit | motor | spring | U_IMPX | U_IMPY | U_SPRI;
	case F2D_WELD_JOINT:
		return U_LOCAL | U_REF | U_HZ | U_ZETA | U_AHZ | U_AZETA | U_IMPX | U_IMPY | U_ANGI;
	case F2D_WHEEL_JOINT: return U_LOCAL | U_AXIS | limit | motor | spring | U_IMPX | U_SPRI;
	case F2D_MOTOR_JOINT:
		return U_REF | U_AXIS | U_MAXM | U_MAXF | U_CORR | U_IMPX | U_IMPY | U_ANGI;
	case F2D_MOUSE_JOINT:
		return U_LOCAL | U_AXIS | U_HZ | U_ZETA | U_MAXF | U_IMPX | U_IMPY | U_ANGI;
	default: return 0;
	}
}

static bool unused_zero(const f2d_joint *j, uint32_t u)
{
#define Z(bit, expr) (((u & (bit)) != 0) || (expr))
	return Z(U_REF, j->reference_angle == 0) && Z(U_LOWER, j->lower == 0) &&
	       Z(U_UPPER, j->upper == 0) && Z(U_SPEED, j->motor_speed == 0) &&
	       Z(U_MAXM, j->max_motor_torque == 0) && Z(U_AXIS, (j->axis.x | j->axis.y) == 0) &&
	       Z(U_LENGTH, j->length == 0) && Z(U_HZ, j->hertz == 0) &&
	       Z(U_ZETA, j->damping_ratio == 0) && Z(U_AHZ, j->angular_hertz == 0) &&
	       Z(U_AZETA, j->angular_damping_ratio == 0) && Z(U_MAXF, j->max_force == 0) &&
	       Z(U_CORR, j->correction_factor == 0) && Z(U_LIMIT, !j->enable_limit) &&
	       Z(U_MOTOR, !j->enable_motor) && Z(U_SPRING, !j->enable_spring) &&
	       Z(U_IMPX, j->impulse.x == 0) && Z(U_IMPY, j->impulse.y == 0) &&
	       Z(U_MOTORI, j->motor_impulse == 0) &&
	       Z(U_LIMITI, (j->lower_impulse | j->upper_impulse) == 0) &&
	       Z(U_SPRI, j->spring_impulse == 0) && Z(U_ANGI, j->angular_impulse == 0) &&
	       Z(U_LOCAL, (j->local_a.x | j->local_a.y | j->local_b.x | j->local_b.y) == 0);
#undef Z
}

static bool in(fix16_t v, fix16_t lo, fix16_t hi)
{
	return v >= lo && v <= hi;
}

/* a unit axis (as f2d_normalize makes, to within 2^-12 in length^2) */
static bool unit_axis(f2d_vec2 a)
{
	if (!in(a.x, -2 * F2D_ONE, 2 * F2D_ONE) || !in(a.y, -2 * F2D_ONE, 2 * F2D_ONE)) {
		return false;
	}
	int64_t d = f2d_dot64(a, a) - ((int64_t)1 << 32);
	return d >= -((int64_t)1 << 20) && d <= ((int64_t)1 << 20);
}

/* The fields of one type only (lengths, axes, translations, offsets, the mouse target): NULL
 * when valid, else the sentence for the message. tb: body B's type. */
static const char *type_fields_problem(const f2d_joint *j, f2d_body_type tb)
{
	const fix16_t L = F2D_JOINT_MAX_LENGTH;
	switch (j->type) {
	case F2D_DISTANCE_JOINT:
		if (!in(j->length, F2D_MIN_SHAPE_SIZE, L) || !in(j->lower, 0, L) ||
		    !in(j->upper, 0, L) || j->lower > j->upper) {
			return "length must be in [0.005, 16384] m, "
			       "0 <= min_length <= max_length <= 16384 m";
		}
		break;
	case F2D_PRISMATIC_JOINT:
	case F2D_WHEEL_JOINT:
		if (!unit_axis(j->axis)) {
			return "the axis must be a unit vector";
		}
		if (!in(j->lower, -L, L) || !in(j->upper, -L, L) || j->lower > j->upper) {
			return "translations must be within +-16384 m, lower <= upper";
		}
		break;
	case F2D_MOTOR_JOINT:
		if (!in(j->axis.x, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT) ||
		    !in(j->axis.y, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT) ||
		    !in(j->correction_factor, 0, F2D_ONE)) {
			return "linear offset must be within 8192 m, correction factor in [0, 1]";
		}
		break;
	case F2D_MOUSE_JOINT:
		if (tb != F2D_DYNAMIC_BODY) {
			return "body B of a mouse joint must be dynamic";
		}
		if (!in(j->axis.x, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT) ||
		    !in(j->axis.y, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT) || j->hertz <= 0) {
			return "target must be within 8192 m, hertz > 0";
		}
		break;
	default: break;
	}
	return NULL;
}

const char *f2d_joint_ext_check(const f2d_joint *j, f2d_body_type ta, f2d_body_type tb)
{
	uint32_t u = used_fields(j->type);
	if (u == 0) {
		return "unknown joint type";
	}
	if (!unused_zero(j, u)) {
		return "a field this joint type does not use is not zero";
	}
	if (!in(j->reference_angle, -F2D_PI, F2D_PI)) {
		return "reference angle (angular offset) must be in [-pi, pi]";
	}
	if (!in(j->hertz, 0, F2D_JOINT_MAX_HERTZ) ||
	    !in(j->angular_hertz, 0, F2D_JOINT_MAX_HERTZ) ||
	    !in(j->damping_ratio, 0, F2D_JOINT_MAX_DAMPING_RATIO) ||
	    !in(j->angular_damping_ratio, 0, F2D_JOINT_MAX_DAMPING_RATIO)) {
		return "spring frequency must be in [0, 1000] Hz, damping ratio in [0, 100]";
	}
	if (!in(j->motor_speed, F2D_FIX(-1000), F2D_FIX(1000)) || j->max_motor_torque < 0 ||
	    j->max_force < 0) {
		return "motor speed must be within +-1000, forces and torques >= 0";
	}
	if (j->lower_impulse < 0 || j->upper_impulse < 0 || j->impulse.x == INT32_MIN ||
	    j->impulse.y == INT32_MIN || j->motor_impulse == INT32_MIN ||
	    j->spring_impulse == INT32_MIN || j->angular_impulse == INT32_MIN) {
		return "an accumulated impulse is out of range";
	}
	(void)ta;
	return type_fields_problem(j, tb);
}

/* ---- creation ---- */

/* anchors within 64 m of a moving body's origin, within 16384 m of a static one's */
static bool anchor_in(f2d_vec2 p, f2d_body_type type)
{
	fix16_t lim =
	    type == F2D_STATIC_BODY ? 2 * F2D_WORLD_LIMIT : 2 * F2D_MAX_DYNAMIC_SHAPE_EXTENT;
	return in(p.x, -lim, lim) && in(p.y, -lim, lim);
}

f2d_result f2d_joint_check_bodies(f2d_world *w, f2d_body_id a, f2d_body_id b, f2d_vec2 local_a,
                                  f2d_vec2 local_b, const char *what, const f2d_body **ba,
                                  const f2d_body **bb)
{
	*ba = f2d_get_body(w, a);
	*bb = f2d_get_body(w, b);
	if (*ba == NULL || *bb == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "%s: null, stale or foreign body handle", what);
	}
	if (*ba == *bb) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: a joint needs two different bodies", what);
	}
	if ((*ba)->type != F2D_DYNAMIC_BODY && (*bb)->type != F2D_DYNAMIC_BODY) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: at least one body must be dynamic", what);
	}
	if (!anchor_in(local_a, (*ba)->type) || !anchor_in(local_b, (*bb)->type)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: local anchors must lie within 64 m of a moving body's "
		                     "origin (16384 m of a static one)",
		                     what);
	}
	return F2D_OK;
}

/* One body's part of tr(K) for the point constraint (see joint.c's point_mass): 1/m + |r|^2 / I,
 * Q16 in 64 bits, with r the anchor's arm from the centre of mass (its length does not change
 * as the body turns). K's largest eigenvalue is at most its trace, so 1/trace is a lower bound
 * of the effective mass in every direction. A body that cannot turn adds nothing (1/m = 1/I =
 * 0). */
int64_t f2d_joint_mass_trace(const f2d_body *b, f2d_vec2 local_anchor)
{
	if (b->inv_inertia == 0) {
		return b->inv_mass;
	}
	f2d_vec2 r = f2d_sub(local_anchor, b->local_center); /* dynamic: |r| < 2^7.1 m */
	int64_t r2 = f2d_round16((int64_t)r.x * r.x + (int64_t)r.y * r.y); /* < 2^30.2 */
	return (int64_t)b->inv_mass + f2d_round16((int64_t)b->inv_inertia * r2);
}

f2d_result f2d_joint_insert(f2d_world *w, const f2d_joint *proto, f2d_body_id a, f2d_body_id b,
                            const char *what, f2d_joint_id *out)
{
	if (!proto->collide_connected &&
	    !f2d_events_reserve_pending(w, f2d_joined_contacts(w, a.index1 - 1, b.index1 - 1))) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY, "%s: allocator returned NULL",
		                     what);
	}
	int32_t id;
	f2d_result r = f2d_pool_alloc(w, &w->joint_ids, (void **)&w->joints, &w->joint_capacity,
	                              sizeof(f2d_joint), &id);
	if (r != F2D_OK) {
		return r;
	}
	f2d_joint *j = &w->joints[id];
	uint32_t gen = j->generation == 0 ? 1 : j->generation;
	memcpy(j, proto, sizeof *j); /* every byte of the proto, padding included */
	j->generation = gen;
	j->alive = true;
	j->body_a = a.index1 - 1;
	j->body_b = b.index1 - 1;
	f2d_joint_attached(w, j);
	out->index1 = id + 1;
	out->generation = gen;
	return F2D_OK;
}

f2d_result f2d_joint_ext_create(f2d_world *w, const f2d_joint *proto, f2d_body_id a, f2d_body_id b,
                                const char *what, f2d_joint_id *out)
{
	const f2d_body *ba = NULL, *bb = NULL;
	f2d_result checked =
	    f2d_joint_check_bodies(w, a, b, proto->local_a, proto->local_b, what, &ba, &bb);
	if (checked != F2D_OK) {
		return checked;
	}
	/* the mouse joint moves B only */
	int64_t trace =
	    f2d_joint_mass_trace(bb, proto->local_b) +
	    (proto->type == F2D_MOUSE_JOINT ? 0 : f2d_joint_mass_trace(ba, proto->local_a));
	if (trace > F2D_JOINT_MAX_TRACE) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "%s: an anchor too far from a body this light: the effective mass at the "
		    "anchor, 1 / (1/m_a + r_a^2/I_a + 1/m_b + r_b^2/I_b) = 1/%d kg, is below 2 LSB "
		    "of fix16 (1/32768 kg)",
		    what, (int)(trace >> 16));
	}
	const char *bad = f2d_joint_ext_check(proto, ba->type, bb->type);
	if (bad != NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE, "%s: %s", what, bad);
	}
	return f2d_joint_insert(w, proto, a, b, what, out);
}

/* a zeroed record of the type (every per-step and unused field zero) */
static f2d_joint proto_of(uint8_t type, bool collide, uint64_t user_data)
{
	f2d_joint j;
	memset(&j, 0, sizeof j);
	j.type = type;
	j.collide_connected = collide;
	j.user_data = user_data;
	return j;
}

/* the def's axis normalised; a zero or huge axis stays invalid (caught by the check) */
static f2d_vec2 norm_axis(f2d_vec2 a)
{
	if (!in(a.x, -F2D_FIX(64), F2D_FIX(64)) || !in(a.y, -F2D_FIX(64), F2D_FIX(64))) {
		return f2d_v(0, 0);
	}
	fix16_t len;
	return f2d_normalize(a, &len);
}

#define CREATE_PROLOGUE(what)                                                                      \
	if (w == NULL) {                                                                           \
		return F2D_ERROR_NULL_ARGUMENT;                                                    \
	}                                                                                          \
	if (def == NULL || out == NULL) {                                                          \
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,                                   \
		                     what ": def and out are required");                           \
	}

f2d_result f2d_create_distance_joint(f2d_world *w, const f2d_distance_joint_def *def,
                                     f2d_joint_id *out)
{
	CREATE_PROLOGUE("create_distance_joint");
	f2d_joint j = proto_of(F2D_DISTANCE_JOINT, def->collide_connected, def->user_data);
	j.local_a = def->local_anchor_a;
	j.local_b = def->local_anchor_b;
	j.length = def->length;
	j.enable_spring = def->enable_spring;
	j.hertz = def->hertz;
	j.damping_ratio = def->damping_ratio;
	j.enable_limit = def->enable_limit;
	j.lower = def->min_length;
	j.upper = def->max_length;
	j.enable_motor = def->enable_motor;
	j.max_motor_torque = def->max_motor_force;
	j.motor_speed = def->motor_speed;
	return f2d_joint_ext_create(w, &j, def->body_a, def->body_b, "create_distance_joint", out);
}

f2d_result f2d_create_prismatic_joint(f2d_world *w, const f2d_prismatic_joint_def *def,
                                      f2d_joint_id *out)
{
	CREATE_PROLOGUE("create_prismatic_joint");
	f2d_joint j = proto_of(F2D_PRISMATIC_JOINT, def->collide_connected, def->user_data);
	j.local_a = def->local_anchor_a;
	j.local_b = def->local_anchor_b;
	j.axis = norm_axis(def->local_axis_a);
	j.reference_angle = def->reference_angle;
	j.enable_spring = def->enable_spring;
	j.hertz = def->hertz;
	j.damping_ratio = def->damping_ratio;
	j.enable_limit = def->enable_limit;
	j.lower = def->lower_translation;
	j.upper = def->upper_translation;
	j.enable_motor = def->enable_motor;
	j.max_motor_torque = def->max_motor_force;
	j.motor_speed = def->motor_speed;
	return f2d_joint_ext_create(w, &j, def->body_a, def->body_b, "create_prismatic_joint", out);
}

f2d_result f2d_create_weld_joint(f2d_world *w, const f2d_weld_joint_def *def, f2d_joint_id *out)
{
	CREATE_PROLOGUE("create_weld_joint");
	f2d_joint j = proto_of(F2D_WELD_JOINT, def->collide_connected, def->user_data);
	j.local_a = def->local_anchor_a;
	j.local_b = def->local_anchor_b;
	j.reference_angle = def->reference_angle;
	j.hertz = def->linear_hertz;
	j.damping_ratio = def->linear_damping_ratio;
	j.angular_hertz = def->angular_hertz;
	j.angular_damping_ratio = def->angular_damping_ratio;
	return f2d_joint_ext_create(w, &j, def->body_a, def->body_b, "create_weld_joint", out);
}

f2d_result f2d_create_wheel_joint(f2d_world *w, const f2d_wheel_joint_def *def, f2d_joint_id *out)
{
	CREATE_PROLOGUE("create_wheel_joint");
	f2d_joint j = proto_of(F2D_WHEEL_JOINT, def->collide_connected, def->user_data);
	j.local_a = def->local_anchor_a;
	j.local_b = def->local_anchor_b;
	j.axis = norm_axis(def->local_axis_a);
	j.enable_spring = def->enable_spring;
	j.hertz = def->hertz;
	j.damping_ratio = def->damping_ratio;
	j.enable_limit = def->enable_limit;
	j.lower = def->lower_translation;
	j.upper = def->upper_translation;
	j.enable_motor = def->enable_motor;
	j.max_motor_torque = def->max_motor_torque;
	j.motor_speed = def->motor_speed;
	return f2d_joint_ext_create(w, &j, def->body_a, def->body_b, "create_wheel_joint", out);
}

f2d_result f2d_create_motor_joint(f2d_world *w, const f2d_motor_joint_def *def, f2d_joint_id *out)
{
	CREATE_PROLOGUE("create_motor_joint");
	f2d_joint j = proto_of(F2D_MOTOR_JOINT, def->collide_connected, def->user_data);
	j.axis = def->linear_offset;
	j.reference_angle = def->angular_offset;
	j.max_force = def->max_force;
	j.max_motor_torque = def->max_torque;
	j.correction_factor = def->correction_factor;
	return f2d_joint_ext_create(w, &j, def->body_a, def->body_b, "create_motor_joint", out);
}

f2d_result f2d_create_mouse_joint(f2d_world *w, const f2d_mouse_joint_def *def, f2d_joint_id *out)
{
	CREATE_PROLOGUE("create_mouse_joint");
	const f2d_body *bb = f2d_get_body(w, def->body_b);
	if (bb == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "create_mouse_joint: null, stale or foreign body handle");
	}
	if (!in(def->target.x, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT) ||
	    !in(def->target.y, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_mouse_joint: target must be within 8192 m");
	}
	f2d_joint j = proto_of(F2D_MOUSE_JOINT, def->collide_connected, def->user_data);
	j.local_b = f2d_inv_xf_point(f2d_body_xf(bb), def->target);
	j.axis = def->target;
	j.hertz = def->hertz;
	j.damping_ratio = def->damping_ratio;
	j.max_force = def->max_force;
	return f2d_joint_ext_create(w, &j, def->body_a, def->body_b, "create_mouse_joint", out);
}

f2d_distance_joint_def f2d_default_distance_joint_def(void)
{
	f2d_distance_joint_def d;
	memset(&d, 0, sizeof d);
	d.length = F2D_ONE;
	d.max_length = F2D_JOINT_MAX_LENGTH;
	return d;
}

f2d_prismatic_joint_def f2d_default_prismatic_joint_def(void)
{
	f2d_prismatic_joint_def d;
	memset(&d, 0, sizeof d);
	d.local_axis_a = f2d_v(F2D_ONE, 0);
	return d;
}

f2d_weld_joint_def f2d_default_weld_joint_def(void)
{
	f2d_weld_joint_def d;
	memset(&d, 0, sizeof d);
	return d;
}

f2d_wheel_joint_def f2d_default_wheel_joint_def(void)
{
	f2d_wheel_joint_def d;
	memset(&d, 0, sizeof d);
	d.local_axis_a = f2d_v(0, F2D_ONE);
	d.enable_spring = true;
	d.hertz = F2D_ONE;
	d.damping_ratio = F2D_MILLI(700);
	return d;
}

f2d_motor_joint_def f2d_default_motor_joint_def(void)
{
	f2d_motor_joint_def d;
	memset(&d, 0, sizeof d);
	d.max_force = F2D_ONE;
	d.max_torque = F2D_ONE;
	d.correction_factor = F2D_MILLI(300);
	return d;
}

f2d_mouse_joint_def f2d_default_mouse_joint_def(void)
{
	f2d_mouse_joint_def d;
	memset(&d, 0, sizeof d);
	d.hertz = F2D_FIX(4);
	d.damping_ratio = F2D_ONE;
	d.max_force = F2D_ONE;
	return d;
}

/* ---- getters ---- */
static const f2d_joint *lookup(const f2d_world *w, f2d_joint_id id)
{
	if (w == NULL || id.index1 < 1 || id.index1 > w->joint_ids.next) {
		return NULL;
	}
	const f2d_joint *j = &w->joints[id.index1 - 1];
	return j->alive && j->generation == id.generation ? j : NULL;
}

f2d_result f2d_joint_get_type(const f2d_world *w, f2d_joint_id id, f2d_joint_type *type)
{
	if (w == NULL || type == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	const f2d_joint *j = lookup(w, id);
	if (j == NULL) {
		return F2D_ERROR_INVALID_HANDLE;
	}
	*type = (f2d_joint_type)j->type;
	return F2D_OK;
}

/* 1 / h of the solve that accumulated the joints' impulses, Q16: the Gauss-Seidel solver
 * (substep_count 0) accumulates over the step, time_step; the soft step (n = substep_count
 * >= 1) warm-starts each substep from the last and leaves the impulses of its last substep,
 * hs = round(time_step / n) (world.c's soft_step, the same expression), as Box2D v3's
 * b2GetJointConstraintForce (world->inv_h = subStepCount * inv_dt). Computed from the def,
 * not from w->inv_h (which is the substep's while the soft step runs): the same value before,
 * during and after a step. time_step >= 65 n LSB (check_world_def): hs >= 65, 1/hs <= 1008.3,
 * < 2^27 in Q16. */
static fix16_t solve_inv_h(const f2d_world *w)
{
	int64_t n = w->def.substep_count;
	int64_t h = w->def.time_step;
	if (n > 0) {
		h = (h + n / 2) / n;
	}
	return f2d_div_exact((int64_t)1 << 16, h);
}

/* impulse / h of its solve, saturated: |impulse| < 2^31 and 1/h < 2^27 in Q16, the product
 * < 2^58 fits; the force passes the fix16 range (32768 N) from |impulse| 32.5 N s at 1/h 1008
 * or 546 N s at 60 Hz: then +-(2^31 - 1) LSB (f2d_sat) */
static fix16_t per_h(const f2d_world *w, fix16_t impulse)
{
	return f2d_sat(f2d_round16((int64_t)impulse * solve_inv_h(w)));
}

f2d_result f2d_joint_get_reaction_force(const f2d_world *w, f2d_joint_id id, f2d_vec2 *force)
{
	if (w == NULL || force == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	const f2d_joint *j = lookup(w, id);
	if (j == NULL) {
		return F2D_ERROR_INVALID_HANDLE;
	}
	f2d_vec2 p = j->impulse;
	fix16_t ang;
	if (j->type != F2D_REVOLUTE_JOINT) {
		f2d_joint_ext_reaction(w, j, &p, &ang);
	}
	*force = f2d_v(per_h(w, p.x), per_h(w, p.y));
	return F2D_OK;
}

f2d_result f2d_joint_get_reaction_torque(const f2d_world *w, f2d_joint_id id, fix16_t *torque)
{
	if (w == NULL || torque == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	const f2d_joint *j = lookup(w, id);
	if (j == NULL) {
		return F2D_ERROR_INVALID_HANDLE;
	}
	fix16_t ang;
	if (j->type == F2D_REVOLUTE_JOINT) {
		ang = f2d_sat((int64_t)j->motor_impulse + j->lower_impulse - j->upper_impulse);
	} else {
		f2d_vec2 p;
		f2d_joint_ext_reaction(w, j, &p, &ang);
	}
	*torque = per_h(w, ang);
	return F2D_OK;
}

/* the current world axis of a prismatic or wheel joint and the anchors' gap */
static void current_axis(const f2d_world *w, const f2d_joint *j, f2d_vec2 *axis, f2d_vec2 *d)
{
	const f2d_body *a = &w->bodies[j->body_a];
	const f2d_body *b = &w->bodies[j->body_b];
	f2d_vec2 ra = f2d_rotate(a->q, f2d_sub(j->local_a, a->local_center));
	f2d_vec2 rb = f2d_rotate(b->q, f2d_sub(j->local_b, b->local_center));
	*d = f2d_joint_anchor_gap(a, b, ra, rb);
	*axis = f2d_rotate(a->q, j->axis);
}

void f2d_joint_ext_reaction(const f2d_world *w, const f2d_joint *j, f2d_vec2 *linear,
                            fix16_t *angular)
{
	f2d_vec2 axis, d;
	*linear = j->impulse;
	*angular = j->angular_impulse;
	switch (j->type) {
	case F2D_DISTANCE_JOINT: {
		current_axis(w, j, &axis, &d);
		fix16_t len;
		f2d_vec2 u = f2d_normalize(d, &len);
		fix16_t s = f2d_sat((int64_t)j->impulse.x + j->lower_impulse - j->upper_impulse +
		                    j->motor_impulse);
		*linear = f2d_v(f2d_mul(s, u.x), f2d_mul(s, u.y));
		*angular = 0;
		break;
	}
	case F2D_PRISMATIC_JOINT:
	case F2D_WHEEL_JOINT: {
		current_axis(w, j, &axis, &d);
		f2d_vec2 perp = f2d_left_perp(axis);
		int64_t s = (int64_t)j->spring_impulse + j->lower_impulse - j->upper_impulse;
		if (j->type == F2D_PRISMATIC_JOINT) {
			s += j->motor_impulse;
			*angular = j->impulse.y;
		} else {
			*angular = j->motor_impulse;
		}
		fix16_t sa = f2d_sat(s);
		*linear = f2d_v(
		    f2d_sat(f2d_round16((int64_t)j->impulse.x * perp.x + (int64_t)sa * axis.x)),
		    f2d_sat(f2d_round16((int64_t)j->impulse.x * perp.y + (int64_t)sa * axis.y)));
		break;
	}
	default: break; /* weld, motor, mouse: the linear impulse and the angular impulse */
	}
}

f2d_result f2d_joint_get_translation(const f2d_world *w, f2d_joint_id id, fix16_t *translation)
{
	if (w == NULL || translation == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	const f2d_joint *j = lookup(w, id);
	if (j == NULL || (j->type != F2D_PRISMATIC_JOINT && j->type != F2D_WHEEL_JOINT)) {
		return F2D_ERROR_INVALID_HANDLE;
	}
	f2d_vec2 axis, d;
	current_axis(w, j, &axis, &d);
	*translation = f2d_sat(f2d_round16(f2d_dot64(axis, d)));
	return F2D_OK;
}

f2d_result f2d_distance_joint_get_current_length(const f2d_world *w, f2d_joint_id id,
                                                 fix16_t *length)
{
	if (w == NULL || length == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	const f2d_joint *j = lookup(w, id);
	if (j == NULL || j->type != F2D_DISTANCE_JOINT) {
		return F2D_ERROR_INVALID_HANDLE;
	}
	f2d_vec2 axis, d;
	current_axis(w, j, &axis, &d);
	*length = f2d_length(d);
	return F2D_OK;
}

/* ---- setters: validate a changed copy with the creation check, then store it ---- */
static f2d_result edit_begin(f2d_world *w, f2d_joint_id id, uint32_t types, const char *what,
                             f2d_joint **out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	f2d_joint *j = (f2d_joint *)lookup(w, id);
	if (j == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "%s: null, stale or foreign joint handle", what);
	}
	if ((types >> j->type & 1u) == 0) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "%s: the joint's type has no such setting", what);
	}
	*out = j;
	return F2D_OK;
}

static f2d_result edit_end(f2d_world *w, f2d_joint *j, const f2d_joint *copy, const char *what)
{
	const char *bad =
	    f2d_joint_ext_check(copy, w->bodies[copy->body_a].type, w->bodies[copy->body_b].type);
	if (bad != NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE, "%s: %s", what, bad);
	}
	*j = *copy;
	f2d_wake_body(w, j->body_a);
	f2d_wake_body(w, j->body_b);
	return F2D_OK;
}

#define T(x) (1u << (x))
#define EDIT(types, what)                                                                          \
	f2d_joint *j = NULL;                                                                       \
	f2d_result r_ = edit_begin(w, id, types, what, &j);                                        \
	if (r_ != F2D_OK) {                                                                        \
		return r_;                                                                         \
	}                                                                                          \
	f2d_joint c = *j

f2d_result f2d_distance_joint_set_length(f2d_world *w, f2d_joint_id id, fix16_t length)
{
	EDIT(T(F2D_DISTANCE_JOINT), "distance_joint_set_length");
	c.length = length;
	return edit_end(w, j, &c, "distance_joint_set_length");
}

f2d_result f2d_distance_joint_set_length_range(f2d_world *w, f2d_joint_id id, fix16_t min_length,
                                               fix16_t max_length)
{
	EDIT(T(F2D_DISTANCE_JOINT), "distance_joint_set_length_range");
	c.lower = min_length;
	c.upper = max_length;
	return edit_end(w, j, &c, "distance_joint_set_length_range");
}

f2d_result f2d_distance_joint_enable_limit(f2d_world *w, f2d_joint_id id, bool enable)
{
	EDIT(T(F2D_DISTANCE_JOINT), "distance_joint_enable_limit");
	c.enable_limit = enable;
	if (!enable) {
		c.lower_impulse = c.upper_impulse = 0;
	}
	return edit_end(w, j, &c, "distance_joint_enable_limit");
}

static f2d_result set_limits(f2d_world *w, f2d_joint_id id, uint8_t type, bool enable,
                             fix16_t lower, fix16_t upper, const char *what)
{
	EDIT(T(type), what);
	c.enable_limit = enable;
	c.lower = lower;
	c.upper = upper;
	if (!enable) {
		c.lower_impulse = c.upper_impulse = 0;
	}
	return edit_end(w, j, &c, what);
}

f2d_result f2d_prismatic_joint_set_limits(f2d_world *w, f2d_joint_id id, bool enable, fix16_t lower,
                                          fix16_t upper)
{
	return set_limits(w, id, F2D_PRISMATIC_JOINT, enable, lower, upper,
	                  "prismatic_joint_set_limits");
}

f2d_result f2d_wheel_joint_set_limits(f2d_world *w, f2d_joint_id id, bool enable, fix16_t lower,
                                      fix16_t upper)
{
	return set_limits(w, id, F2D_WHEEL_JOINT, enable, lower, upper, "wheel_joint_set_limits");
}

static f2d_result set_spring(f2d_world *w, f2d_joint_id id, uint32_t types, bool enable,
                             fix16_t hertz, fix16_t zeta, const char *what)
{
	EDIT(types, what);
	if (c.type != F2D_MOUSE_JOINT) {
		c.enable_spring = enable;
		if (!enable) {
			c.spring_impulse = 0;
		}
	}
	c.hertz = hertz;
	c.damping_ratio = zeta;
	return edit_end(w, j, &c, what);
}

f2d_result f2d_joint_set_spring(f2d_world *w, f2d_joint_id id, bool enable, fix16_t hertz,
                                fix16_t damping_ratio)
{
	return set_spring(w, id,
	                  T(F2D_DISTANCE_JOINT) | T(F2D_PRISMATIC_JOINT) | T(F2D_WHEEL_JOINT) |
	                      T(F2D_MOUSE_JOINT),
	                  enable, hertz, damping_ratio, "joint_set_spring");
}

f2d_result f2d_distance_joint_set_spring(f2d_world *w, f2d_joint_id id, bool enable, fix16_t hertz,
                                         fix16_t damping_ratio)
{
	return set_spring(w, id, T(F2D_DISTANCE_JOINT), enable, hertz, damping_ratio,
	                  "distance_joint_set_spring");
}

f2d_result f2d_prismatic_joint_set_spring(f2d_world *w, f2d_joint_id id, bool enable, fix16_t hertz,
                                          fix16_t damping_ratio)
{
	return set_spring(w, id, T(F2D_PRISMATIC_JOINT), enable, hertz, damping_ratio,
	                  "prismatic_joint_set_spring");
}

f2d_result f2d_wheel_joint_set_spring(f2d_world *w, f2d_joint_id id, bool enable, fix16_t hertz,
                                      fix16_t damping_ratio)
{
	return set_spring(w, id, T(F2D_WHEEL_JOINT), enable, hertz, damping_ratio,
	                  "wheel_joint_set_spring");
}

f2d_result f2d_mouse_joint_set_spring(f2d_world *w, f2d_joint_id id, fix16_t hertz,
                                      fix16_t damping_ratio)
{
	return set_spring(w, id, T(F2D_MOUSE_JOINT), true, hertz, damping_ratio,
	                  "mouse_joint_set_spring");
}

f2d_result f2d_weld_joint_set_springs(f2d_world *w, f2d_joint_id id, fix16_t linear_hertz,
                                      fix16_t linear_damping_ratio, fix16_t angular_hertz,
                                      fix16_t angular_damping_ratio)
{
	EDIT(T(F2D_WELD_JOINT), "weld_joint_set_springs");
	c.hertz = linear_hertz;
	c.damping_ratio = linear_damping_ratio;
	c.angular_hertz = angular_hertz;
	c.angular_damping_ratio = angular_damping_ratio;
	return edit_end(w, j, &c, "weld_joint_set_springs");
}

static f2d_result set_motor(f2d_world *w, f2d_joint_id id, uint32_t types, bool enable,
                            fix16_t speed, fix16_t max_force, const char *what)
{
	if (w != NULL) {
		const f2d_joint *rj = lookup(w, id);
		if (rj != NULL && rj->type == F2D_REVOLUTE_JOINT && (types & 1u) != 0) {
			/* the revolute joint's own setters, all or nothing */
			if (max_force < 0 || speed < F2D_FIX(-1000) || speed > F2D_FIX(1000)) {
				return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
				                     "%s: motor speed within +-1000, torque >= 0",
				                     what);
			}
			f2d_revolute_joint_set_motor_speed(w, id, speed);
			f2d_revolute_joint_set_max_motor_torque(w, id, max_force);
			return f2d_revolute_joint_enable_motor(w, id, enable);
		}
	}
	EDIT(types & ~1u, what);
	c.enable_motor = enable;
	c.motor_speed = speed;
	c.max_motor_torque = max_force;
	if (!enable) {
		c.motor_impulse = 0;
	}
	return edit_end(w, j, &c, what);
}

f2d_result f2d_joint_set_motor(f2d_world *w, f2d_joint_id id, bool enable, fix16_t speed,
                               fix16_t max_force)
{
	return set_motor(w, id,
	                 T(F2D_REVOLUTE_JOINT) | T(F2D_DISTANCE_JOINT) | T(F2D_PRISMATIC_JOINT) |
	                     T(F2D_WHEEL_JOINT),
	                 enable, speed, max_force, "joint_set_motor");
}

f2d_result f2d_distance_joint_set_motor(f2d_world *w, f2d_joint_id id, bool enable, fix16_t speed,
                                        fix16_t max_force)
{
	return set_motor(w, id, T(F2D_DISTANCE_JOINT), enable, speed, max_force,
	                 "distance_joint_set_motor");
}

f2d_result f2d_prismatic_joint_set_motor(f2d_world *w, f2d_joint_id id, bool enable, fix16_t speed,
                                         fix16_t max_force)
{
	return set_motor(w, id, T(F2D_PRISMATIC_JOINT), enable, speed, max_force,
	                 "prismatic_joint_set_motor");
}

f2d_result f2d_wheel_joint_set_motor(f2d_world *w, f2d_joint_id id, bool enable, fix16_t speed,
                                     fix16_t max_torque)
{
	return set_motor(w, id, T(F2D_WHEEL_JOINT), enable, speed, max_torque,
	                 "wheel_joint_set_motor");
}

f2d_result f2d_motor_joint_set_offsets(f2d_world *w, f2d_joint_id id, f2d_vec2 linear_offset,
                                       fix16_t angular_offset)
{
	EDIT(T(F2D_MOTOR_JOINT), "motor_joint_set_offsets");
	c.axis = linear_offset;
	c.reference_angle = angular_offset;
	return edit_end(w, j, &c, "motor_joint_set_offsets");
}

f2d_result f2d_motor_joint_set_max(f2d_world *w, f2d_joint_id id, fix16_t max_force,
                                   fix16_t max_torque)
{
	EDIT(T(F2D_MOTOR_JOINT), "motor_joint_set_max");
	c.max_force = max_force;
	c.max_motor_torque = max_torque;
	return edit_end(w, j, &c, "motor_joint_set_max");
}

f2d_result f2d_motor_joint_set_correction_factor(f2d_world *w, f2d_joint_id id, fix16_t factor)
{
	EDIT(T(F2D_MOTOR_JOINT), "motor_joint_set_correction_factor");
	c.correction_factor = factor;
	return edit_end(w, j, &c, "motor_joint_set_correction_factor");
}

f2d_result f2d_mouse_joint_set_target(f2d_world *w, f2d_joint_id id, f2d_vec2 target)
{
	EDIT(T(F2D_MOUSE_JOINT), "mouse_joint_set_target");
	c.axis = target;
	return edit_end(w, j, &c, "mouse_joint_set_target");
}

f2d_result f2d_mouse_joint_set_max_force(f2d_world *w, f2d_joint_id id, fix16_t force)
{
	EDIT(T(F2D_MOUSE_JOINT), "mouse_joint_set_max_force");
	c.max_force = force;
	return edit_end(w, j, &c, "mouse_joint_set_max_force");
}
