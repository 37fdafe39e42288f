/* fix2d internal fixed-point math.
 * SPDX-License-Identifier: MIT
 *
 * Hot-path arithmetic, inline. f2d_mul, f2d_div and f2d_sqrt return exactly what libfixmath's
 * fix16_mul, fix16_div and fix16_sqrt return for every input whose result is in range (Debian's
 * libfixmath 0~20220222: products and quotients round half away from zero, sqrt rounds to
 * nearest); tests/test_math.c proves it over 10^7 random and all edge-case pairs.
 *
 * Assumption checked at compile time: >> of a negative signed integer is arithmetic (true for
 * gcc, clang and tcc on every target we build; it is implementation-defined, not undefined).
 */
#ifndef FIX2D_FMATH_H
#define FIX2D_FMATH_H

#include "fix2d/types.h"

_Static_assert((-3 >> 1) == -2, "fix2d needs arithmetic right shift of negative integers");
_Static_assert(((int64_t)-3 >> 1) == -2, "fix2d needs arithmetic right shift of negative integers");

/* Keeps a rarely taken path (an exact fallback) out of its hot caller. */
#if defined(__GNUC__) || defined(__clang__)
#define F2D_NOINLINE __attribute__((noinline))
#else
#define F2D_NOINLINE
#endif

#define F2D_PI ((fix16_t)205887)
#define F2D_HALF_PI ((fix16_t)102944)

static inline fix16_t f2d_min(fix16_t a, fix16_t b)
{
	return a < b ? a : b;
}
static inline fix16_t f2d_max(fix16_t a, fix16_t b)
{
	return a > b ? a : b;
}
static inline fix16_t f2d_clamp(fix16_t v, fix16_t lo, fix16_t hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}
static inline fix16_t f2d_abs(fix16_t a)
{
	return a < 0 ? -a : a;
}
/** |v| of an int64 above INT64_MIN (every caller's range is far inside: see its comment). */
static inline int64_t f2d_abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/** Round a Q32.32 (or any <<16 scaled) 64-bit value to Q16.16, half away from zero.
 *  floor((p + 2^15 - [p < 0]) / 2^16) is round-half-away for both signs; p >> 63 is -[p < 0]. */
static inline int64_t f2d_round16(int64_t p)
{
	return (p + 0x8000 + (p >> 63)) >> 16;
}

/** Saturate a 64-bit value to the fix16 range. */
static inline fix16_t f2d_sat(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : (v < -INT32_MAX ? -INT32_MAX : (fix16_t)v);
}

/** f2d_sat that records a saturation in *saturated (the step then reports F2D_ERROR_OVERFLOW).
 *  The flag is only written when it saturates: an unconditional store per call, through a
 *  pointer into the world, cost the joint solver 40% more instructions. */
static inline fix16_t f2d_sat_flag(int64_t v, bool *saturated)
{
	if (v > INT32_MAX || v < -INT32_MAX) {
		*saturated = true;
		return v > 0 ? INT32_MAX : -INT32_MAX;
	}
	return (fix16_t)v;
}

/* ---- wrapping arithmetic and range checks for the solvers' fast paths (src/joint.c) ----
 * A fast path computes the reference path's expressions without its per-value saturations and
 * checks once, at the end, that every value the reference path would have saturated was in
 * [-2^30, 2^30) (then each saturation was the identity). Values after a failed check can be
 * anything, so the arithmetic is modulo 2^64 (uint64_t, converted back: no undefined
 * behaviour, the same machine instructions); when every check passes, each operand equals the
 * reference path's and each result is one the reference path computes without overflow. */

/* uint64 -> int64 keeps the bits (two's complement), as on every compiler we build with. */
_Static_assert((int64_t)UINT64_MAX == -1, "fix2d needs two's complement conversions");

/** x + 2^30, to be or-ed into a check accumulator: x in [-2^30, 2^30) <=> (uint64)(x + 2^30)
 *  < 2^31, and the or of such values is below 2^31 iff each is (F2D_FAST_OK). */
static inline uint64_t f2d_fast_chk(int64_t x)
{
	return (uint64_t)x + ((uint64_t)1 << 30);
}
#define F2D_FAST_OK(acc) ((acc) < ((uint64_t)1 << 31))

/* An empty asm that "changes" acc: the checks so far must be folded into it here instead of
 * keeping every checked value alive to the end (registers, spills). No code. */
#if defined(__GNUC__) || defined(__clang__)
#define F2D_FAST_FOLD(acc) __asm__("" : "+r"(acc))
#else
#define F2D_FAST_FOLD(acc) ((void)0)
#endif

/** a * b, a + b, a - b modulo 2^64 */
static inline int64_t f2d_wmul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}
static inline int64_t f2d_wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t f2d_wsub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}
/** f2d_round16(p) with the rounding add modulo 2^64 (== f2d_round16 when it does not wrap) */
static inline int64_t f2d_wround16(int64_t p)
{
	return f2d_wadd(p, 0x8000 + (p >> 63)) >> 16;
}

/** a * b, == fix16_mul for in-range results. The caller keeps results in range (see README). */
static inline fix16_t f2d_mul(fix16_t a, fix16_t b)
{
	return (fix16_t)f2d_round16((int64_t)a * b);
}

/** a / b, == fix16_div for b != 0 and in-range results. libfixmath computes |a| 2^17 / |b| by
 *  long division, rounds by (q + 1) >> 1 and applies the sign; for |b| >= 16.0 it first takes a
 *  low estimate q0 = |a| / ((|b| >> 17) + 1) and subtracts floor(q0 |b| / 2^17) from |a|, which
 *  drops a fraction below one unit and can make the result one LSB larger than exact rounding.
 *  We reproduce that arithmetic with one 64-bit division. */
static inline fix16_t f2d_div(fix16_t a, fix16_t b)
{
	uint32_t r = a < 0 ? 0u - (uint32_t)a : (uint32_t)a;
	uint32_t d = b < 0 ? 0u - (uint32_t)b : (uint32_t)b;
	uint64_t q = 0;
	if (d & 0xFFF00000u) {
		q = r / ((d >> 17) + 1);
		r -= (uint32_t)((q * d) >> 17);
	}
	q += ((uint64_t)r << 17) / d;
	q = (q + 1) >> 1;
	return ((a < 0) != (b < 0)) ? -(fix16_t)q : (fix16_t)q;
}

/** Exactly rounded a / b (round half away from zero) for in-range results, b != 0. */
static inline fix16_t f2d_div_exact(int64_t a, int64_t b)
{
	uint64_t ua = a < 0 ? (uint64_t)(-a) : (uint64_t)a;
	uint64_t ub = b < 0 ? (uint64_t)(-b) : (uint64_t)b;
	uint64_t q = (((ua << 17) / ub) + 1) >> 1;
	return ((a < 0) != (b < 0)) ? -(fix16_t)q : (fix16_t)q;
}

/* ---- 128-bit unsigned integers, portable (no __int128: tcc and 32-bit targets) ----
 * For the rare exact paths whose intermediates pass 2^63 (the joint's 2x2 inverse, src/joint.c).
 * Plain, not fast: each is a handful of 64-bit operations. */
typedef struct f2d_u128 {
	uint64_t hi, lo;
} f2d_u128;

static inline f2d_u128 f2d_u128_from(uint64_t v)
{
	f2d_u128 r = {0, v};
	return r;
}

/** a * b, exact: the four 32 x 32 partial products. */
static inline f2d_u128 f2d_u128_mul(uint64_t a, uint64_t b)
{
	uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu); /* < 3 * 2^32 */
	f2d_u128 r;
	r.lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

static inline f2d_u128 f2d_u128_add(f2d_u128 a, f2d_u128 b)
{
	f2d_u128 r;
	r.lo = a.lo + b.lo;
	r.hi = a.hi + b.hi + (r.lo < a.lo ? 1u : 0u);
	return r;
}

/** a - b for a >= b */
static inline f2d_u128 f2d_u128_sub(f2d_u128 a, f2d_u128 b)
{
	f2d_u128 r;
	r.lo = a.lo - b.lo;
	r.hi = a.hi - b.hi - (a.lo < b.lo ? 1u : 0u);
	return r;
}

static inline bool f2d_u128_less(f2d_u128 a, f2d_u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/** a << n, 0 < n < 64 (the caller keeps the result below 2^128) */
static inline f2d_u128 f2d_u128_shl(f2d_u128 a, int n)
{
	f2d_u128 r;
	r.hi = (a.hi << n) | (a.lo >> (64 - n));
	r.lo = a.lo << n;
	return r;
}

/** a >> n, 0 < n < 64 */
static inline f2d_u128 f2d_u128_shr(f2d_u128 a, int n)
{
	f2d_u128 r;
	r.lo = (a.lo >> n) | (a.hi << (64 - n));
	r.hi = a.hi >> n;
	return r;
}

/** a >> 1 */
static inline f2d_u128 f2d_u128_half(f2d_u128 a)
{
	f2d_u128 r;
	r.lo = (a.lo >> 1) | (a.hi << 63);
	r.hi = a.hi >> 1;
	return r;
}

/** floor(n / d) for d > 0 when it is below 2^31, else 2^31 (the caller saturates): restoring
 *  division over the 31 quotient bits, d << 31 must stay below 2^128. */
static inline uint32_t f2d_u128_div31(f2d_u128 n, f2d_u128 d)
{
	if (!f2d_u128_less(n, f2d_u128_shl(d, 31))) {
		return (uint32_t)1 << 31;
	}
	uint32_t q = 0;
	for (int bit = 30; bit >= 0; --bit) {
		f2d_u128 t = bit > 0 ? f2d_u128_shl(d, bit) : d;
		if (!f2d_u128_less(n, t)) {
			n = f2d_u128_sub(n, t);
			q |= (uint32_t)1 << bit;
		}
	}
	return q;
}

/** Integer square root of a 64-bit value, rounded to nearest (ties cannot occur). */
uint64_t f2d_isqrt64_round(uint64_t n);

/* f2d_isqrt64_round(n) from a start x with floor(sqrt(n)) <= x < 2^32 (x >= 1), for callers
 * that know one close to the root (a rotation's length near one: the snapshot's unit circle,
 * the integration's renormalising turns). Newton's integer iteration x' = (x + n / x) / 2
 * falls from such an x until it stops (x' >= x) at floor(sqrt(n)); then math.c's rounding:
 * up when n - x^2 > x. x^2 <= n < 2^64 at the end. */
static inline uint64_t f2d_isqrt64_round_from(uint64_t n, uint64_t x)
{
	for (uint64_t y = (x + n / x) / 2; y < x; y = (x + n / x) / 2) {
		x = y;
	}
	return n - x * x > x ? x + 1u : x;
}

/** sqrt, == fix16_sqrt for every input (negative x gives -sqrt(-x), as libfixmath does).
 *  Not exactly rounded above 16384.0; f2d_isqrt64_round is, and is what the step uses. */
fix16_t f2d_sqrt(fix16_t x);

/* ---- vectors ---- */
static inline f2d_vec2 f2d_v(fix16_t x, fix16_t y)
{
	f2d_vec2 r = {x, y};
	return r;
}
static inline f2d_vec2 f2d_add(f2d_vec2 a, f2d_vec2 b)
{
	return f2d_v(a.x + b.x, a.y + b.y);
}
static inline f2d_vec2 f2d_sub(f2d_vec2 a, f2d_vec2 b)
{
	return f2d_v(a.x - b.x, a.y - b.y);
}
static inline f2d_vec2 f2d_neg(f2d_vec2 a)
{
	return f2d_v(-a.x, -a.y);
}
static inline f2d_vec2 f2d_scale(fix16_t s, f2d_vec2 a)
{
	return f2d_v(f2d_mul(s, a.x), f2d_mul(s, a.y));
}
/** a + s b */
static inline f2d_vec2 f2d_mul_add(f2d_vec2 a, fix16_t s, f2d_vec2 b)
{
	return f2d_v(a.x + f2d_mul(s, b.x), a.y + f2d_mul(s, b.y));
}
/** a - s b */
static inline f2d_vec2 f2d_mul_sub(f2d_vec2 a, fix16_t s, f2d_vec2 b)
{
	return f2d_v(a.x - f2d_mul(s, b.x), a.y - f2d_mul(s, b.y));
}
/** Dot and cross products are summed exactly in 64 bits and rounded once. */
static inline fix16_t f2d_dot(f2d_vec2 a, f2d_vec2 b)
{
	return (fix16_t)f2d_round16((int64_t)a.x * b.x + (int64_t)a.y * b.y);
}
static inline fix16_t f2d_cross(f2d_vec2 a, f2d_vec2 b)
{
	return (fix16_t)f2d_round16((int64_t)a.x * b.y - (int64_t)a.y * b.x);
}
/** Exact squared length / dot product in Q32.32. */
static inline int64_t f2d_dot64(f2d_vec2 a, f2d_vec2 b)
{
	return (int64_t)a.x * b.x + (int64_t)a.y * b.y;
}
/** cross(v, s) = (s v.y, -s v.x) */
static inline f2d_vec2 f2d_cross_vs(f2d_vec2 v, fix16_t s)
{
	return f2d_v(f2d_mul(s, v.y), -f2d_mul(s, v.x));
}
/** cross(s, v) = (-s v.y, s v.x) */
static inline f2d_vec2 f2d_cross_sv(fix16_t s, f2d_vec2 v)
{
	return f2d_v(-f2d_mul(s, v.y), f2d_mul(s, v.x));
}
static inline f2d_vec2 f2d_left_perp(f2d_vec2 v)
{
	return f2d_v(-v.y, v.x);
}
static inline f2d_vec2 f2d_right_perp(f2d_vec2 v)
{
	return f2d_v(v.y, -v.x);
}

/** Length, exact to the nearest LSB. */
static inline fix16_t f2d_length(f2d_vec2 v)
{
	return (fix16_t)f2d_isqrt64_round((uint64_t)f2d_dot64(v, v));
}
/** Unit vector along v and its length; a zero vector gives (0, 0) and length 0. */
f2d_vec2 f2d_normalize(f2d_vec2 v, fix16_t *length);

/* ---- rotations ---- */
static inline f2d_rot f2d_rot_identity(void)
{
	f2d_rot q = {F2D_ONE, 0};
	return q;
}
static inline f2d_vec2 f2d_rotate(f2d_rot q, f2d_vec2 v)
{
	return f2d_v((fix16_t)f2d_round16((int64_t)q.c * v.x - (int64_t)q.s * v.y),
	             (fix16_t)f2d_round16((int64_t)q.s * v.x + (int64_t)q.c * v.y));
}
static inline f2d_vec2 f2d_inv_rotate(f2d_rot q, f2d_vec2 v)
{
	return f2d_v((fix16_t)f2d_round16((int64_t)q.c * v.x + (int64_t)q.s * v.y),
	             (fix16_t)f2d_round16(-(int64_t)q.s * v.x + (int64_t)q.c * v.y));
}
/** q^T r : rotation of r relative to q */
static inline f2d_rot f2d_inv_mul_rot(f2d_rot q, f2d_rot r)
{
	f2d_rot o;
	o.c = (fix16_t)f2d_round16((int64_t)q.c * r.c + (int64_t)q.s * r.s);
	o.s = (fix16_t)f2d_round16((int64_t)q.c * r.s - (int64_t)q.s * r.c);
	return o;
}
static inline f2d_vec2 f2d_xf_point(f2d_transform xf, f2d_vec2 p)
{
	return f2d_add(f2d_rotate(xf.q, p), xf.p);
}
static inline f2d_vec2 f2d_inv_xf_point(f2d_transform xf, f2d_vec2 p)
{
	return f2d_inv_rotate(xf.q, f2d_sub(p, xf.p));
}
/** Rescales (c, s) to unit length: c / |q|, s / |q|, |q| computed exactly in 64 bits. */
f2d_rot f2d_rot_normalize(fix16_t c, fix16_t s);
/** Advances q by the angle hw (|hw| <= pi/2): q' = q (cos hw, sin hw), renormalised, with cos
 *  and sin from a fixed integer Taylor polynomial (no trig calls, no tables). */
f2d_rot f2d_integrate_rotation(f2d_rot q, fix16_t hw);
/** q (cos a, sin a) for cos a and sin a in Q30, rounded to Q16 (Q46 -> Q16):
 * f2d_integrate_rotation's step after its polynomial. False when rounding moved |q|^2 more than ~2
 * LSB of |q| from one (then *out holds the unnormalised pair, which the caller renormalises). */
static inline bool f2d_rot_turn_q30(f2d_rot q, int64_t sa, int64_t ca, f2d_rot *out)
{
	int64_t c = ((int64_t)q.c * ca - (int64_t)q.s * sa);
	int64_t s = ((int64_t)q.s * ca + (int64_t)q.c * sa);
	out->c = (fix16_t)((c + ((int64_t)1 << 29) + (c >> 63)) >> 30);
	out->s = (fix16_t)((s + ((int64_t)1 << 29) + (s >> 63)) >> 30);
	int64_t len2 = (int64_t)out->c * out->c + (int64_t)out->s * out->s - ((int64_t)1 << 32);
	return len2 <= ((int64_t)1 << 18) && len2 >= -((int64_t)1 << 18);
}

/* The largest t2 = round30(t^2) (t = hw 2^14 in Q30) for which f2d_integrate_rotation's sine and
 * cosine are the closed forms Q30 - floor(t2 / 6) and Q30 - floor(t2 / 2) (math.c, horner_sum:
 * its COS_CLOSED_MAX, below its SIN_CLOSED_MAX; math.c checks the two agree). */
#define F2D_ROT_CLOSED_MAX 80267

/** f2d_integrate_rotation, the same value, inline for the small turns of a substep: no turn, or
 *  |hw| <= 1024 LSB (0.016 rad; t^2 < 2^48 below, no overflow) with t2 in the closed forms'
 *  range (|hw| <~ 0.0086 rad). Other turns call f2d_integrate_rotation. The steps are
 *  f2d_integrate_rotation's: the clamp to +-pi/2 is the identity here; t2 = mul_q30(t, t) with
 *  t^2 >= 0 (its sign term is 0); the sine mul_q30(Q30 - floor(t2 / 6), t) with the sign term;
 *  the cosine Q30 - floor(t2 / 2); then f2d_rot_turn_q30 and f2d_rot_normalize. */
static inline f2d_rot f2d_integrate_rotation_small(f2d_rot q, fix16_t hw)
{
	if (hw == 0) {
		return q;
	}
	if ((uint32_t)hw + 1024u > 2048u) {
		return f2d_integrate_rotation(q, hw);
	}
	int64_t t = (int64_t)hw * 16384;
	int64_t t2 = (t * t + ((int64_t)1 << 29)) >> 30;
	if (t2 > F2D_ROT_CLOSED_MAX) {
		return f2d_integrate_rotation(q, hw);
	}
	int64_t ps = (((int64_t)1 << 30) - (int64_t)((uint64_t)t2 / 6u)) * t;
	int64_t sa = (ps + ((int64_t)1 << 29) - (ps < 0)) >> 30;
	int64_t ca = ((int64_t)1 << 30) - (int64_t)((uint64_t)t2 / 2u);
	f2d_rot r;
	return f2d_rot_turn_q30(q, sa, ca, &r) ? r : f2d_rot_normalize(r.c, r.s);
}

/** sin t and cos t for t in [-pi/2, pi/2], Q30, by a fixed integer Taylor polynomial (internal;
 *  tests/test_math.c checks it against the plain Horner scheme). */
void f2d_sincos_q30(int64_t t, int64_t *sin_out, int64_t *cos_out);

#endif
