/* fix2d tests: the fixed-point math core (src/fmath.h, src/math.c) and the user conversions
 * (src/convert.c).
 * SPDX-License-Identifier: MIT
 *
 * The main claim checked here: f2d_mul, f2d_div and f2d_sqrt return exactly what libfixmath's
 * fix16_mul, fix16_div and fix16_sqrt return, for every input whose libfixmath result is not
 * the overflow marker (0x80000000). Random operands come from a fixed-seed splitmix64, so a
 * failure names operands that reproduce it on every run. The test may use double (libm) as a
 * reference for sin/cos/atan2; the library itself does not.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfixmath/fix16.h>

#include "fix2d/convert.h"
#include "fix2d/fix2d.h"
#include "fmath.h"
#include "test_rng.h"

/* Check's ck_assert_* records a mark point (a write to the parent) on every success: hot
 * loops use REQUIRE, which only acts on failure. */
#define REQUIRE(cond, ...)                                                                         \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			ck_abort_msg(__VA_ARGS__);                                                 \
		}                                                                                  \
	} while (0)

/* Random operand pairs per operation that must be compared (not skipped as overflow). */
#define N_RANDOM 10000000L

/* ---- deterministic PRNG ---- */

/** A fix16 with a random magnitude: 31 random bits shifted right by 0..30, random sign, so
 *  tiny, medium and huge values are all common. Never INT32_MIN. */
static fix16_t draw_fix(uint64_t *state)
{
	uint64_t r = test_splitmix(state);
	uint32_t mag = (uint32_t)(r & 0x7FFFFFFFu) >> (unsigned)((r >> 32) % 31u);
	return (r >> 63) ? -(fix16_t)mag : (fix16_t)mag;
}

/** A uniformly random int32 (the whole range, INT32_MIN included). */
static fix16_t draw_uniform(uint64_t *state)
{
	uint32_t u = (uint32_t)(test_splitmix(state) >> 32);
	return u <= (uint32_t)INT32_MAX ? (fix16_t)u : (fix16_t)(u - 0x80000000u) + INT32_MIN;
}

/* ---- edge cases ---- */

#define MAX_EDGES 512
static fix16_t edges[MAX_EDGES];
static int edge_count;

static void add_edge(int64_t v)
{
	if (v < INT32_MIN || v > INT32_MAX) {
		return;
	}
	for (int i = 0; i < edge_count; ++i) {
		if (edges[i] == (fix16_t)v) {
			return;
		}
	}
	ck_assert_int_lt(edge_count, MAX_EDGES);
	edges[edge_count++] = (fix16_t)v;
}

static void add_edge_pm(int64_t v)
{
	add_edge(v);
	add_edge(-v);
}

static void build_edges(void)
{
	static const int64_t base[] = {0,
	                               1,
	                               2,
	                               3,
	                               0x7FFF,
	                               0x8000,
	                               0x8001,
	                               0xFFFF,
	                               0x10000,
	                               0x10001,
	                               0x17FFF,
	                               0x18000,
	                               0x18001,
	                               0xFFFFF,
	                               0x100000,
	                               0x100001,
	                               0x1FFFFF,
	                               0x200000,
	                               0x7FFFFF,
	                               0x800000,
	                               1092,
	                               205887,
	                               102944,
	                               411775,
	                               6554,
	                               46341,
	                               46340,
	                               0xB504F3,
	                               0x7FFFFFFE,
	                               INT32_MAX,
	                               0x40000000 - 1,
	                               0x40000000,
	                               0x40000001,
	                               0x3FFFFFFF,
	                               0x7FFF0000,
	                               0x7FFF8000,
	                               0x7FFF7FFF,
	                               0x12345678};
	edge_count = 0;
	for (size_t i = 0; i < sizeof base / sizeof base[0]; ++i) {
		add_edge_pm(base[i]);
	}
	for (int k = 0; k < 31; ++k) {
		int64_t p = (int64_t)1 << k;
		add_edge_pm(p - 1);
		add_edge_pm(p);
		add_edge_pm(p + 1);
	}
	add_edge(INT32_MIN + 1);
	add_edge(INT32_MIN);
}

/* ---- mul ---- */

/* Compares one pair; returns 1 when compared, 0 when libfixmath reported overflow. */
static int check_mul(fix16_t a, fix16_t b)
{
	fix16_t want = fix16_mul(a, b);
	if (want == fix16_overflow) {
		return 0;
	}
	fix16_t got = f2d_mul(a, b);
	if (got != want) {
		ck_abort_msg("f2d_mul(0x%08x, 0x%08x) = 0x%08x, fix16_mul = 0x%08x", (unsigned)a,
		             (unsigned)b, (unsigned)got, (unsigned)want);
	}
	return 1;
}

START_TEST(mul_random)
{
	uint64_t s = 0x6D756C0001ull;
	long compared = 0, skipped = 0, draws = 0;
	for (; compared < N_RANDOM && draws < 3 * N_RANDOM; ++draws) {
		fix16_t a = draw_fix(&s);
		fix16_t b = draw_fix(&s);
		if (check_mul(a, b)) {
			compared++;
		} else {
			skipped++;
		}
	}
	ck_assert_int_ge(compared, N_RANDOM);
	/* The operand distribution reaches the overflow region too. */
	ck_assert_int_gt(skipped, N_RANDOM / 100);
}
END_TEST

START_TEST(mul_edges)
{
	build_edges();
	long compared = 0;
	for (int i = 0; i < edge_count; ++i) {
		for (int j = 0; j < edge_count; ++j) {
			compared += check_mul(edges[i], edges[j]);
		}
	}
	ck_assert_int_ge(edge_count, 200);
	ck_assert_int_gt(compared, (long)edge_count * edge_count / 3);
	/* A few exact values, independent of libfixmath. */
	ck_assert_int_eq(f2d_mul(F2D_ONE, F2D_ONE), F2D_ONE);
	ck_assert_int_eq(f2d_mul(1, 0x8000), 1);   /* +0.5 LSB rounds up */
	ck_assert_int_eq(f2d_mul(-1, 0x8000), -1); /* -0.5 LSB rounds away from zero */
	ck_assert_int_eq(f2d_mul(1, 0x7FFF), 0);
	ck_assert_int_eq(f2d_mul(-1, 0x7FFF), 0);
	ck_assert_int_eq(f2d_mul(F2D_FIX(-3), F2D_MILLI(1500)), F2D_MILLI(-4500));
}
END_TEST

/** Modular inverse of an odd number mod 2^32 (Newton iteration). */
static uint32_t inverse_odd(uint32_t a)
{
	uint32_t x = a; /* correct to 3 bits */
	for (int i = 0; i < 5; ++i) {
		x *= 2u - a * x;
	}
	return x;
}

START_TEST(mul_half_way)
{
	/* Products whose low 16 bits are exactly 0x8000 (a rounding tie), or 0x8000 +- 1. */
	uint64_t s = 0x6D756C0002ull;
	long compared = 0;
	long ties = 0;
	for (long i = 0; i < 2000000; ++i) {
		fix16_t a = draw_fix(&s) | 1; /* odd: invertible mod 2^16 */
		uint32_t target = 0x8000u + (uint32_t)(i % 3) - 1u;
		uint32_t low = (target * inverse_odd((uint32_t)a)) & 0xFFFFu;
		uint32_t hb = ((uint32_t)draw_fix(&s) & 0xFFFF0000u) | low;
		fix16_t b = hb <= (uint32_t)INT32_MAX ? (fix16_t)hb
		                                      : (fix16_t)(hb - 0x80000000u) + INT32_MIN;
		int64_t p = (int64_t)a * b;
		REQUIRE(((uint64_t)p & 0xFFFFu) == target, "low bits of 0x%08x * 0x%08x",
		        (unsigned)a, (unsigned)b);
		if (check_mul(a, b)) {
			compared++;
			ties += target == 0x8000u;
		}
		compared += check_mul(b, a);
	}
	/* Plus the classic tie: 0.5 times an odd number, and neighbours. */
	for (long i = 0; i < 1000000; ++i) {
		fix16_t b = draw_fix(&s) | 1;
		for (int da = -1; da <= 1; ++da) {
			compared += check_mul(0x8000 + da, b);
			compared += check_mul(-0x8000 + da, b);
		}
	}
	ck_assert_int_gt(compared, 5000000);
	ck_assert_int_gt(ties, 500000);
}
END_TEST

/* ---- div ---- */

static int check_div(fix16_t a, fix16_t b)
{
	fix16_t want = fix16_div(a, b);
	if (want == fix16_overflow) {
		return 0; /* also x / 0 */
	}
	fix16_t got = f2d_div(a, b);
	if (got != want) {
		ck_abort_msg("f2d_div(0x%08x, 0x%08x) = 0x%08x, fix16_div = 0x%08x", (unsigned)a,
		             (unsigned)b, (unsigned)got, (unsigned)want);
	}
	return 1;
}

START_TEST(div_random)
{
	uint64_t s = 0x6469760001ull;
	long compared = 0, skipped = 0, draws = 0, big_divisor = 0, not_exact = 0;
	for (; compared < N_RANDOM && draws < 3 * N_RANDOM; ++draws) {
		fix16_t a = draw_fix(&s);
		fix16_t b = draw_fix(&s);
		if (!check_div(a, b)) {
			skipped++;
			continue;
		}
		compared++;
		if (f2d_abs(b) >= 0x100000) {
			big_divisor++;
			/* libfixmath's |b| >= 16.0 path differs from exact rounding at times; the
			 * test must see such cases, or a plain rounded division would pass it too.
			 */
			not_exact += fix16_div(a, b) != f2d_div_exact(a, b);
		}
	}
	ck_assert_int_ge(compared, N_RANDOM);
	ck_assert_int_gt(skipped, N_RANDOM / 100);
	ck_assert_int_gt(big_divisor, N_RANDOM / 10);
	ck_assert_int_gt(not_exact, 100);
}
END_TEST

START_TEST(div_big_divisor)
{
	/* Divisors >= 16.0 (0x100000 and above): libfixmath's kick-start path. */
	uint64_t s = 0x6469760002ull;
	long compared = 0;
	for (long i = 0; i < 3000000; ++i) {
		uint64_t r = test_splitmix(&s);
		uint32_t mag = 0x100000u + (uint32_t)((r & 0x7FFFFFFFu) >> ((r >> 32) % 12u));
		if (mag > (uint32_t)INT32_MAX - 1) {
			mag = (uint32_t)INT32_MAX - 1;
		}
		fix16_t b = (r >> 63) ? -(fix16_t)mag : (fix16_t)mag;
		fix16_t a = (i & 1) ? draw_fix(&s) : draw_uniform(&s);
		compared += check_div(a, b);
		compared += check_div(a, b + 1);
		compared += check_div(a, b - 1);
	}
	ck_assert_int_gt(compared, 8000000);
}
END_TEST

START_TEST(div_edges)
{
	build_edges();
	long compared = 0;
	for (int i = 0; i < edge_count; ++i) {
		for (int j = 0; j < edge_count; ++j) {
			compared += check_div(edges[i], edges[j]);
		}
	}
	ck_assert_int_gt(compared, (long)edge_count * edge_count / 3);
	ck_assert_int_eq(f2d_div(F2D_FIX(3), F2D_FIX(2)), F2D_MILLI(1500));
	ck_assert_int_eq(f2d_div(1, 0x20000), 1); /* 0.5 LSB rounds away from zero */
	ck_assert_int_eq(f2d_div(-1, 0x20000), -1);
	ck_assert_int_eq(f2d_div(1, -0x20000), -1);
	ck_assert_int_eq(f2d_div(F2D_ONE, F2D_FIX(3)), 21845);
}
END_TEST

START_TEST(div_half_way)
{
	/* a / b is exactly n + 1/2 LSB iff b = d 2^17 and a = d (2n + 1); plus neighbours. */
	uint64_t s = 0x6469760003ull;
	long compared = 0, ties = 0;
	for (long i = 0; i < 1000000; ++i) {
		uint64_t r = test_splitmix(&s);
		int64_t d = (int64_t)(1 + ((r & 0x3FFFu) >> ((r >> 16) % 14u)) % 0x3FFFu);
		int64_t nmax = (((int64_t)INT32_MAX - 1) / d - 1) / 2;
		int64_t n = (int64_t)((test_splitmix(&s) >> 33) % (uint64_t)(nmax + 1));
		n >>= (test_splitmix(&s) >> 40) % 31u;
		int64_t a = d * (2 * n + 1);
		int64_t b = d << 17;
		REQUIRE(a < INT32_MAX && b < INT32_MAX, "tie operands %lld / %lld", (long long)a,
		        (long long)b);
		REQUIRE(((a << 17) % b) == 0 && (((a << 17) / b) & 1) == 1, "%lld / %lld is no tie",
		        (long long)a, (long long)b);
		fix16_t sa = (r >> 62) & 1 ? (fix16_t)-a : (fix16_t)a;
		fix16_t sb = (r >> 63) ? (fix16_t)-b : (fix16_t)b;
		ties += check_div(sa, sb);
		for (int da = -1; da <= 1; ++da) {
			for (int db = -1; db <= 1; ++db) {
				compared += check_div(sa + da, sb + db);
			}
		}
	}
	ck_assert_int_gt(ties, 900000);
	ck_assert_int_gt(compared, 8000000);
}
END_TEST

/* ---- sqrt ---- */

static void check_sqrt(fix16_t x)
{
	fix16_t want = fix16_sqrt(x);
	fix16_t got = f2d_sqrt(x);
	if (got != want) {
		ck_abort_msg("f2d_sqrt(0x%08x) = 0x%08x, fix16_sqrt = 0x%08x", (unsigned)x,
		             (unsigned)got, (unsigned)want);
	}
}

START_TEST(sqrt_random)
{
	uint64_t s = 0x7371727401ull;
	for (long i = 0; i < N_RANDOM; ++i) {
		check_sqrt(draw_uniform(&s));
	}
	for (long i = 0; i < N_RANDOM / 5; ++i) {
		check_sqrt(draw_fix(&s));
	}
	/* The result is a function of |x| and within one LSB of the exact root. */
	for (long i = 0; i < 1000000; ++i) {
		fix16_t x = draw_fix(&s);
		fix16_t r = f2d_sqrt(x);
		REQUIRE(f2d_sqrt(-x) == -r, "f2d_sqrt(-x) != -f2d_sqrt(x) for x = %d", x);
		uint64_t mag = (uint64_t)(x < 0 ? -(int64_t)x : (int64_t)x);
		int64_t exact = (int64_t)f2d_isqrt64_round(mag << 16);
		int64_t diff = (x < 0 ? -(int64_t)r : (int64_t)r) - exact;
		REQUIRE(diff >= -1 && diff <= 1, "f2d_sqrt(0x%08x) off by %lld", (unsigned)x,
		        (long long)diff);
	}
}
END_TEST

START_TEST(sqrt_sweeps)
{
	build_edges();
	for (int i = 0; i < edge_count; ++i) {
		check_sqrt(edges[i]);
	}
	for (fix16_t x = 0; x < (1 << 20); ++x) {
		check_sqrt(x);
		check_sqrt(-x);
	}
	for (fix16_t x = (1 << 30) - (1 << 19); x < (1 << 30) + (1 << 19); ++x) {
		check_sqrt(x);
	}
	for (fix16_t x = INT32_MAX - (1 << 20); x < INT32_MAX; ++x) {
		check_sqrt(x);
		check_sqrt(-x);
	}
	check_sqrt(INT32_MAX);
	check_sqrt(INT32_MIN);
	ck_assert_int_eq(f2d_sqrt(0), 0);
	ck_assert_int_eq(f2d_sqrt(F2D_ONE), F2D_ONE);
	ck_assert_int_eq(f2d_sqrt(F2D_FIX(4)), F2D_FIX(2));
	ck_assert_int_eq(f2d_sqrt(F2D_FIX(-9)), F2D_FIX(-3));
	ck_assert_int_eq(f2d_sqrt(F2D_FIX(2)), 92682); /* sqrt(2) 65536 = 92681.9 */
}
END_TEST

/* ---- exactly rounded 64-bit integer square root ---- */

/* r is round(sqrt(n)) iff (r - 1/2)^2 <= n < (r + 1/2)^2, i.e. for integers
 * r^2 - r < n <= r^2 + r (r = 0: n = 0). r <= 2^32; r (r - 1) always fits in 64 bits and
 * r (r + 1) does for r < 2^32 (for r = 2^32 the upper bound exceeds every uint64). */
static void check_isqrt(uint64_t n)
{
	uint64_t r = f2d_isqrt64_round(n);
	const uint64_t two32 = (uint64_t)1 << 32;
	REQUIRE(r <= two32, "isqrt(%llu) = %llu", (unsigned long long)n, (unsigned long long)r);
	if (r == 0) {
		REQUIRE(n == 0, "isqrt(%llu) = 0", (unsigned long long)n);
		return;
	}
	bool ok = n > r * (r - 1) && (r == two32 || n <= r * (r + 1));
	if (!ok) {
		ck_abort_msg("isqrt(%llu) = %llu is not the nearest root", (unsigned long long)n,
		             (unsigned long long)r);
	}
}

/* The portable 128-bit helpers (fmath.h, used by the joint's exact 2x2 inverse) against the
 * compiler's unsigned __int128 where it has one (gcc and clang on 64-bit hosts): products of
 * random and edge 64-bit values, sums, differences, shifts, and the 31-bit quotient with its
 * saturation, over operands of every magnitude. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128n; /* test reference only: not ISO C */
static u128n to_native(f2d_u128 a)
{
	return ((u128n)a.hi << 64) | a.lo;
}

static uint64_t rand64_bits(uint64_t *s, int bits)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return bits >= 64 ? *s : (*s & (((uint64_t)1 << bits) - 1));
}
#endif

START_TEST(u128_helpers)
{
#ifdef __SIZEOF_INT128__
	static const uint64_t edge_values[] = {
	    0, 1, 2, 0xFFFFFFFFu, 0x100000000u, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX};
	for (size_t i = 0; i < sizeof edge_values / sizeof edge_values[0]; ++i) {
		for (size_t k = 0; k < sizeof edge_values / sizeof edge_values[0]; ++k) {
			u128n p = (u128n)edge_values[i] * edge_values[k];
			ck_assert(to_native(f2d_u128_mul(edge_values[i], edge_values[k])) == p);
		}
	}
	uint64_t s = 0x9E3779B97F4A7C15u;
	for (int i = 0; i < 2000000; ++i) {
		int ba = 1 + (int)(rand64_bits(&s, 6)), bb = 1 + (int)(rand64_bits(&s, 6));
		uint64_t a = rand64_bits(&s, ba), b = rand64_bits(&s, bb);
		f2d_u128 pa = f2d_u128_mul(a, b);
		u128n na = (u128n)a * b;
		ck_assert(to_native(pa) == na);
		uint64_t c = rand64_bits(&s, 1 + (int)rand64_bits(&s, 6)), d = rand64_bits(&s, 62);
		f2d_u128 pb = f2d_u128_mul(c, d);
		u128n nb = (u128n)c * d;
		ck_assert(to_native(f2d_u128_add(pa, pb)) == na + nb);
		if (nb <= na) {
			ck_assert(to_native(f2d_u128_sub(pa, pb)) == na - nb);
		}
		ck_assert(f2d_u128_less(pa, pb) == (na < nb));
		ck_assert(to_native(f2d_u128_half(pa)) == na >> 1);
		/* the quotient: d below 2^96 so that d << 31 fits, n anything below 2^127 */
		f2d_u128 den = f2d_u128_mul(rand64_bits(&s, 1 + (int)rand64_bits(&s, 5)) | 1,
		                            rand64_bits(&s, 1 + (int)rand64_bits(&s, 6)) | 1);
		u128n nden = to_native(den);
		f2d_u128 num = f2d_u128_add(
		    f2d_u128_mul(nden > 0 ? (uint64_t)(nden >> 32) : 0, rand64_bits(&s, 34)),
		    f2d_u128_from(rand64_bits(&s, 64)));
		u128n q = to_native(num) / nden;
		uint32_t got = f2d_u128_div31(num, den);
		ck_assert_msg(got == (q >= ((u128n)1 << 31) ? (uint32_t)1 << 31 : (uint32_t)q),
		              "div31 iteration %d", i);
		int sh = 1 + (int)(rand64_bits(&s, 6) % 63);
		if ((na >> (127 - sh)) == 0) {
			ck_assert(to_native(f2d_u128_shl(pa, sh)) == na << sh);
		}
	}
#else
	/* no native 128-bit type to compare with on this host: the matrix runs the joint code */
	ck_assert(f2d_u128_mul(UINT64_MAX, UINT64_MAX).hi == UINT64_MAX - 1);
#endif
}
END_TEST

START_TEST(isqrt64_round)
{
	uint64_t s = 0x6973717201ull;
	for (long i = 0; i < 1000000; ++i) {
		uint64_t r = test_splitmix(&s);
		check_isqrt(r);
		check_isqrt(r >> (test_splitmix(&s) % 64u));
	}
	for (uint64_t n = 0; n < 100000; ++n) {
		check_isqrt(n);
	}
	/* Around squares and the half-way points k^2 + k, k^2 + k + 1. */
	for (long i = 0; i < 200000; ++i) {
		uint64_t k = (test_splitmix(&s) >> 32) >> (test_splitmix(&s) % 32u);
		if (i < 64) {
			k = ((uint64_t)1 << 32) - 1 - (uint64_t)i;
		}
		uint64_t sq = k * k;
		for (int d = -2; d <= 2; ++d) {
			check_isqrt(sq + (uint64_t)(int64_t)d);
			check_isqrt(sq + k + (uint64_t)(int64_t)d);
		}
		REQUIRE(f2d_isqrt64_round(sq) == k && f2d_isqrt64_round(sq + k) == k &&
		            f2d_isqrt64_round(sq + k + 1) == k + 1,
		        "isqrt around %llu^2", (unsigned long long)k);
	}
	check_isqrt(UINT64_MAX);
	check_isqrt(UINT64_MAX - 1);
	check_isqrt((uint64_t)1 << 63);
	ck_assert_uint_eq(f2d_isqrt64_round(UINT64_MAX), (uint64_t)1 << 32);
	ck_assert_uint_eq(f2d_isqrt64_round(0), 0);
	ck_assert_uint_eq(f2d_isqrt64_round(2), 1);
	ck_assert_uint_eq(f2d_isqrt64_round(3), 2);
}
END_TEST

/* ---- normalize ---- */

static void check_normalize(fix16_t x, fix16_t y)
{
	fix16_t len = -1;
	f2d_vec2 u = f2d_normalize(f2d_v(x, y), &len);
	double exact = sqrt((double)x * x + (double)y * y);
	REQUIRE(fabs((double)len - exact) <= 0.5 + 1e-6, "length(%d, %d) = %d, exact %.3f", x, y,
	        len, exact);
	if (x == 0 && y == 0) {
		REQUIRE(len == 0 && u.x == 0 && u.y == 0, "normalize(0, 0) = (%d, %d), length %d",
		        u.x, u.y, len);
		return;
	}
	double ulen = sqrt((double)u.x * u.x + (double)u.y * u.y);
	/* Rounding |v| to the LSB costs up to 32768 / len LSB of unit length, rounding the two
	 * components up to 0.71 LSB: 2 LSB from |v| >= 0.5 on. */
	double tol = len >= 32768 ? 2.0 : 32768.0 / len + 0.75;
	REQUIRE(fabs(ulen - 65536.0) <= tol, "|normalize(%d, %d)| = %.3f LSB", x, y, ulen);
	/* Same direction: the perpendicular part is only the component rounding. */
	double perp = ((double)u.x * y - (double)u.y * x) / exact;
	REQUIRE(fabs(perp) <= 1.0, "normalize(%d, %d) turned by %.3f LSB", x, y, perp);
	REQUIRE((double)u.x * x + (double)u.y * y > 0, "normalize(%d, %d) points backwards", x, y);
}

START_TEST(normalize)
{
	uint64_t s = 0x6E726D01ull;
	const fix16_t limit = F2D_FIX(8192);
	for (long i = 0; i < 1000000; ++i) {
		uint64_t r = test_splitmix(&s);
		unsigned shift = (unsigned)(r % 29u);
		fix16_t x = (fix16_t)((test_splitmix(&s) >> 34) % ((uint64_t)limit + 1)) >> shift;
		fix16_t y = (fix16_t)((test_splitmix(&s) >> 34) % ((uint64_t)limit + 1)) >> shift;
		check_normalize((r >> 62) & 1 ? -x : x, (r >> 63) ? -y : y);
	}
	check_normalize(0, 0);
	check_normalize(limit, limit);
	check_normalize(-limit, limit);
	check_normalize(limit, 1);
	check_normalize(1, 1);
	for (fix16_t a = 1; a < (1 << 20); a = a * 3 + 1) {
		f2d_vec2 u = f2d_normalize(f2d_v(a, 0), NULL);
		ck_assert(u.x == F2D_ONE && u.y == 0);
		u = f2d_normalize(f2d_v(0, -a), NULL);
		ck_assert(u.x == 0 && u.y == -F2D_ONE);
	}
	f2d_vec2 u = f2d_normalize(f2d_v(F2D_FIX(3), F2D_FIX(-4)), NULL);
	ck_assert_int_eq(u.x, F2D_MILLI(600));
	ck_assert_int_eq(u.y, F2D_MILLI(-800));
	f2d_rot q = f2d_rot_normalize(0, 0);
	ck_assert(q.c == F2D_ONE && q.s == 0);
}
END_TEST

/* ---- rotations and atan2 against libm ---- */

#define TRIG_TOL 4e-5
#define TEST_PI 3.14159265358979323846

static double fx(fix16_t v)
{
	return (double)v / 65536.0;
}

/** a - b reduced to (-pi, pi]. */
static double angle_diff(double a, double b)
{
	double d = fmod(a - b, 2.0 * TEST_PI);
	if (d > TEST_PI) {
		d -= 2.0 * TEST_PI;
	} else if (d <= -TEST_PI) {
		d += 2.0 * TEST_PI;
	}
	return d;
}

static void check_rot(fix16_t angle)
{
	f2d_rot q = f2d_make_rot(angle);
	double a = fx(angle);
	if (fabs(fx(q.c) - cos(a)) > TRIG_TOL || fabs(fx(q.s) - sin(a)) > TRIG_TOL) {
		ck_abort_msg("make_rot(%d) = (%d, %d), want (%.7f, %.7f)", angle, q.c, q.s, cos(a),
		             sin(a));
	}
	fix16_t back = f2d_rot_get_angle(q);
	if (back < -F2D_PI || back > F2D_PI || fabs(angle_diff(fx(back), a)) > TRIG_TOL) {
		ck_abort_msg("rot_get_angle(make_rot(%d)) = %d", angle, back);
	}
}

START_TEST(rotations)
{
	const fix16_t two_pi = 2 * F2D_PI + 1;
	for (fix16_t angle = -two_pi; angle <= two_pi; ++angle) {
		check_rot(angle);
	}
	uint64_t s = 0x726F7401ull;
	for (long i = 0; i < 200000; ++i) {
		check_rot(draw_fix(&s));
	}
	check_rot(INT32_MAX);
	check_rot(INT32_MIN + 1);
	f2d_rot q = f2d_make_rot(0);
	ck_assert(q.c == F2D_ONE && q.s == 0);
	q = f2d_make_rot(F2D_HALF_PI);
	ck_assert(abs(q.c) <= 1 && q.s == F2D_ONE);
	q = f2d_make_rot(F2D_PI);
	ck_assert(q.c == -F2D_ONE && abs(q.s) <= 1);
	/* Every rotation is unit length to 2 LSB. */
	for (fix16_t angle = -two_pi; angle <= two_pi; angle += 997) {
		q = f2d_make_rot(angle);
		double len = sqrt((double)q.c * q.c + (double)q.s * q.s);
		ck_assert_msg(fabs(len - 65536.0) <= 2.0, "|make_rot(%d)| = %.3f LSB", angle, len);
	}
}
END_TEST

/* The plain Horner scheme f2d_sincos_q30 started from (src/math.c before its shortcuts): every
 * step, no closed forms. f2d_sincos_q30 must give the same bits. */
static void reference_sincos_q30(int64_t t, int64_t *sin_out, int64_t *cos_out)
{
	const int64_t q30 = (int64_t)1 << 30;
	int64_t p = t * t;
	int64_t t2 = (p + ((int64_t)1 << 29) - (p < 0)) >> 30;
	int64_t s = q30, c = q30;
	for (int k = 11; k >= 3; k -= 2) {
		s = q30 - (int64_t)((((uint64_t)(s * t2) + ((uint64_t)1 << 29)) >> 30) /
		                    (uint64_t)(k * (k - 1)));
	}
	p = s * t;
	s = (p + ((int64_t)1 << 29) - (p < 0)) >> 30;
	for (int k = 12; k >= 2; k -= 2) {
		c = q30 - (int64_t)((((uint64_t)(c * t2) + ((uint64_t)1 << 29)) >> 30) /
		                    (uint64_t)(k * (k - 1)));
	}
	*sin_out = s;
	*cos_out = c;
}

static void check_sincos(int64_t t)
{
	int64_t s, c, rs, rc;
	f2d_sincos_q30(t, &s, &c);
	reference_sincos_q30(t, &rs, &rc);
	if (s != rs || c != rc) {
		ck_abort_msg("f2d_sincos_q30(%lld) = (%lld, %lld), Horner (%lld, %lld)",
		             (long long)t, (long long)s, (long long)c, (long long)rs,
		             (long long)rc);
	}
}

/* Every angle f2d_integrate_rotation can turn (hw in [-pi/2, pi/2], t = hw 2^14), every t around
 * the bounds of the closed forms (t2 = 80267 and 103623), and random t in [-pi/2, pi/2]. */
START_TEST(sincos_shortcuts)
{
	for (int64_t hw = -F2D_HALF_PI; hw <= F2D_HALF_PI; ++hw) {
		check_sincos(hw * 16384);
	}
	const int64_t bounds[2] = {80267, 103623};
	for (int b = 0; b < 2; ++b) {
		int64_t t0 = (int64_t)sqrt((double)bounds[b] * 1073741824.0);
		for (int64_t t = t0 - 40000; t <= t0 + 40000; ++t) {
			check_sincos(t);
			check_sincos(-t);
		}
	}
	const int64_t half_pi_q30 = 1686629713;
	uint64_t state = 0x51AC05ull;
	for (long i = 0; i < 2000000; ++i) {
		int64_t t = (int64_t)(test_splitmix(&state) % (uint64_t)(2 * half_pi_q30 + 1)) -
		            half_pi_q30;
		check_sincos(t);
	}
}
END_TEST

/* f2d_integrate_rotation_small (fmath.h, the step's inline turn) equals f2d_integrate_rotation:
 * every hw from -4096 to 4096 LSB (the inline closed forms end near +-566, the range check at
 * +-1024) and a few others up to +-pi/2, on unit rotations all round the circle (q from
 * f2d_make_rot), on pairs 1 LSB off unit length and on random pairs near the unit circle (some
 * renormalise). */
START_TEST(integrate_rotation_small)
{
	uint64_t state = 0x5A11ull;
	for (int k = 0; k < 96; ++k) {
		f2d_rot q = f2d_make_rot((fix16_t)((int64_t)k * 411775 / 96 - F2D_PI));
		if (k % 3 == 1) {
			q.c += (k & 4) ? 1 : -1;
		} else if (k % 3 == 2) {
			q.c += (fix16_t)(test_splitmix(&state) % 65) - 32;
			q.s += (fix16_t)(test_splitmix(&state) % 65) - 32;
		}
		for (int64_t hw = -4096; hw <= 4096; ++hw) {
			f2d_rot a = f2d_integrate_rotation_small(q, (fix16_t)hw);
			f2d_rot b = f2d_integrate_rotation(q, (fix16_t)hw);
			if (a.c != b.c || a.s != b.s) {
				ck_abort_msg(
				    "q (%d, %d), hw %lld: inline (%d, %d), f2d_integrate_rotation "
				    "(%d, %d)",
				    q.c, q.s, (long long)hw, a.c, a.s, b.c, b.s);
			}
		}
		const fix16_t far[] = {F2D_HALF_PI, -F2D_HALF_PI, 65536,
		                       -40000,      INT32_MAX,    -INT32_MAX};
		for (int i = 0; i < 6; ++i) {
			f2d_rot a = f2d_integrate_rotation_small(q, far[i]);
			f2d_rot b = f2d_integrate_rotation(q, far[i]);
			ck_assert(a.c == b.c && a.s == b.s);
		}
	}
}
END_TEST

#include "integrate_simd.h" /* core.h: F2D_X86_SIMD */
#if F2D_X86_SIMD

/* f2d_turn_256 on 4 lanes (src/integrate_simd.h): the lanes it covers into out, its mask */
F2D_AVX2 static unsigned turn_4(const f2d_rot q[4], const fix16_t hw[4], f2d_rot out[4])
{
	__m256i qc = _mm256_setr_epi64x(q[0].c, q[1].c, q[2].c, q[3].c);
	__m256i qs = _mm256_setr_epi64x(q[0].s, q[1].s, q[2].s, q[3].s);
	__m256i h = _mm256_setr_epi64x(hw[0], hw[1], hw[2], hw[3]);
	__m256i oc, os;
	unsigned rest =
	    (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(f2d_turn_256(qc, qs, h, &oc, &os)));
	int64_t c[4], s[4];
	_mm256_storeu_si256((__m256i *)(void *)c, oc);
	_mm256_storeu_si256((__m256i *)(void *)s, os);
	for (int j = 0; j < 4; ++j) {
		out[j].c = (fix16_t)c[j];
		out[j].s = (fix16_t)s[j];
	}
	return rest;
}
#endif

/* The step's turn across 4 bodies (src/world.c integrate_positions_4, the turn f2d_turn_256 of
 * src/integrate_simd.h) equals f2d_integrate_rotation_small in every lane it covers: every hw
 * from -4096 to 4096 LSB on the rotations of integrate_rotation_small above (unit, 1 LSB off,
 * random near the circle; the 4 lanes take 4 different rotations), and hw far outside (the
 * range test keeps t = hw 2^14 within the 32 bits the products read). It must cover the small
 * turns of unit rotations. */
START_TEST(integrate_rotation_256)
{
#if F2D_X86_SIMD
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2")) {
		return;
	}
	uint64_t state = 0x5A11ull;
	f2d_rot qs[96];
	for (int k = 0; k < 96; ++k) {
		qs[k] = f2d_make_rot((fix16_t)((int64_t)k * 411775 / 96 - F2D_PI));
		if (k % 3 == 1) {
			qs[k].c += (k & 4) ? 1 : -1;
		} else if (k % 3 == 2) {
			qs[k].c += (fix16_t)(test_splitmix(&state) % 65) - 32;
			qs[k].s += (fix16_t)(test_splitmix(&state) % 65) - 32;
		}
	}
	const fix16_t far[] = {1023,        1024,          1025,      -1024,      -1025,
	                       566,         567,           -566,      -567,       1 << 17,
	                       -(1 << 17),  (1 << 17) + 1, 1 << 18,   262144 + 3, 65536,
	                       F2D_HALF_PI, -F2D_HALF_PI,  INT32_MAX, -INT32_MAX, INT32_MIN + 1};
	int64_t covered = 0, small_unit = 0;
	for (int k = 0; k < 96; ++k) {
		f2d_rot q[4] = {qs[k], qs[(k + 1) % 96], qs[(k + 2) % 96], qs[(k + 3) % 96]};
		for (int64_t h0 = -4096 - 20; h0 <= 4096; h0 += 4) {
			fix16_t hw[4];
			for (int j = 0; j < 4; ++j) {
				int64_t x = h0 + j;
				hw[j] = (fix16_t)(x < -4096 ? far[x + 4096 + 20] : x);
			}
			f2d_rot out[4];
			unsigned rest = turn_4(q, hw, out);
			for (int j = 0; j < 4; ++j) {
				if (rest & (1u << j)) {
					continue;
				}
				++covered;
				f2d_rot e = f2d_integrate_rotation_small(q[j], hw[j]);
				if (out[j].c != e.c || out[j].s != e.s) {
					ck_abort_msg("q (%d, %d), hw %d: 4 lanes (%d, %d), "
					             "f2d_integrate_rotation_small (%d, %d)",
					             q[j].c, q[j].s, hw[j], out[j].c, out[j].s, e.c,
					             e.s);
				}
				small_unit +=
				    (hw[j] >= -500 && hw[j] <= 500 && (k + j) % 3 == 0) ? 1 : 0;
			}
		}
	}
	/* 32 unit rotations x 1001 small turns, each in some lane */
	ck_assert_int_eq(small_unit, 32 * 1001);
	printf("turns across 4 lanes: %lld covered, %lld small turns of unit rotations\n",
	       (long long)covered, (long long)small_unit);
	ck_assert_int_ge(covered, 96 * 566);
#endif
}
END_TEST

static void check_atan2(fix16_t y, fix16_t x)
{
	fix16_t got = f2d_atan2(y, x);
	double want = atan2((double)y, (double)x);
	if (got < -F2D_PI || got > F2D_PI || fabs(fx(got) - want) > TRIG_TOL) {
		ck_abort_msg("f2d_atan2(%d, %d) = %d (%.7f), atan2 = %.7f", y, x, got, fx(got),
		             want);
	}
}

START_TEST(atan2_pairs)
{
	/* Points on circles of many radii, at angles spread over the full turn. */
	for (int k = 0; k <= 30; ++k) {
		double radius = ldexp(1.0, k);
		for (int i = -20000; i <= 20000; ++i) {
			double t = TEST_PI * i / 20000.0 + 1e-7 * k;
			check_atan2((fix16_t)lround(radius * sin(t)),
			            (fix16_t)lround(radius * cos(t)));
		}
	}
	uint64_t s = 0x6174616E01ull;
	for (long i = 0; i < 1000000; ++i) {
		fix16_t y = draw_fix(&s);
		fix16_t x = draw_fix(&s);
		check_atan2(y, x);
	}
	build_edges();
	for (int i = 0; i < edge_count; ++i) {
		for (int j = 0; j < edge_count; ++j) {
			if (edges[i] != 0 || edges[j] != 0) {
				check_atan2(edges[i], edges[j]);
			}
		}
	}
	ck_assert_int_eq(f2d_atan2(0, 0), 0);
	ck_assert_int_eq(f2d_atan2(0, F2D_ONE), 0);
	ck_assert_int_eq(f2d_atan2(0, -F2D_ONE), F2D_PI); /* the cut: +pi, not -pi */
	ck_assert_int_eq(f2d_atan2(F2D_ONE, 0), F2D_HALF_PI);
	ck_assert_int_eq(f2d_atan2(-F2D_ONE, 0), -F2D_HALF_PI);
	f2d_rot q = {0, -F2D_ONE};
	ck_assert_int_eq(f2d_rot_get_angle(q), -F2D_HALF_PI);
}
END_TEST

/* ---- conversions ---- */

START_TEST(from_double_table)
{
	static const struct {
		double in;
		fix16_t out;
	} cases[] = {
	    {0.0, 0},
	    {-0.0, 0},
	    {1.0, 65536},
	    {-1.0, -65536},
	    {0.5, 32768},
	    {1.0 / 65536, 1},
	    {0.5 / 65536, 1},   /* half away from zero */
	    {-0.5 / 65536, -1}, /* half away from zero */
	    {0.49999 / 65536, 0},
	    {-0.49999 / 65536, 0},
	    {1.5 / 65536, 2},
	    {2.5 / 65536, 3}, /* not to even */
	    {-2.5 / 65536, -3},
	    {0.1, 6554},
	    {-0.1, -6554},
	    {1.0 / 60, 1092},
	    {3.14159265358979, 205887},
	    {32767.99998, INT32_MAX},
	    {2147483646.5 / 65536, INT32_MAX},
	    {2147483646.49 / 65536, INT32_MAX - 1},
	    {32768.0, INT32_MAX},
	    {1e10, INT32_MAX},
	    {1e300 * 1e300, INT32_MAX}, /* +infinity */
	    {-32768.0, INT32_MIN},
	    {-2147483647.5 / 65536, INT32_MIN},
	    {-2147483647.4 / 65536, INT32_MIN + 1},
	    {-1e10, INT32_MIN},
	    {-1e300 * 1e300, INT32_MIN}, /* -infinity */
	    {1e-300, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		fix16_t got = f2d_from_double(cases[i].in);
		ck_assert_msg(got == cases[i].out, "f2d_from_double(%.17g) = %d, want %d",
		              cases[i].in, got, cases[i].out);
	}
	ck_assert_int_eq(f2d_from_double(NAN), 0);
	ck_assert_int_eq(f2d_from_double(-NAN), 0);
	ck_assert(f2d_to_double(65536) == 1.0);
	ck_assert(f2d_to_double(INT32_MIN) == -32768.0);
	ck_assert(f2d_to_double(-1) == -1.0 / 65536);
	f2d_vec2 v = f2d_vec2_from_doubles(1.5, -2.25);
	ck_assert(v.x == 98304 && v.y == -147456);
	/* Round trips, and exact half LSBs round away from zero. */
	uint64_t s = 0x636F6E7601ull;
	for (long i = 0; i < 1000000; ++i) {
		fix16_t x = draw_uniform(&s);
		REQUIRE(f2d_from_double(f2d_to_double(x)) == x, "round trip of %d", x);
		double half = ((double)x + (x >= 0 ? 0.5 : -0.5)) / 65536.0;
		int64_t away = (int64_t)x + (x >= 0 ? 1 : -1);
		int64_t want = away > INT32_MAX ? INT32_MAX : (away < INT32_MIN ? INT32_MIN : away);
		REQUIRE(f2d_from_double(half) == want, "f2d_from_double(%.17g) != %lld", half,
		        (long long)want);
	}
}
END_TEST

/** Reference formatting: exact decimal expansion by printf (value / 65536 has at most 16
 *  decimals and is exact in a double), then decimal rounding half away from zero on the
 *  digit string. */
static void reference_format(fix16_t value, int decimals, char *out, size_t size)
{
	char digits[64];
	double mag = fabs((double)value / 65536.0);
	snprintf(digits, sizeof digits, "%.16f", mag);
	char *point = strchr(digits, '.');
	REQUIRE(point != NULL, "no point in %s", digits);
	memmove(point, point + 1, strlen(point + 1) + 1); /* digits only */
	size_t int_len = (size_t)(point - digits);
	size_t keep = int_len + (size_t)decimals;
	bool up = digits[keep] >= '5';
	digits[keep] = '\0';
	if (up) {
		size_t i = keep;
		while (i > 0 && digits[i - 1] == '9') {
			digits[--i] = '0';
		}
		if (i == 0) {
			memmove(digits + 1, digits, keep + 1);
			digits[0] = '1';
			int_len++;
			keep++;
		} else {
			digits[i - 1]++;
		}
	}
	bool zero = strspn(digits, "0") == keep;
	char *o = out;
	if (value < 0 && !zero) {
		*o++ = '-';
	}
	memcpy(o, digits, int_len);
	o += int_len;
	if (decimals > 0) {
		*o++ = '.';
		memcpy(o, digits + int_len, (size_t)decimals);
		o += decimals;
	}
	*o = '\0';
	REQUIRE((size_t)(o - out) < size, "reference text too long");
}

START_TEST(format_fix_table)
{
	static const struct {
		fix16_t value;
		int decimals;
		const char *text;
	} cases[] = {
	    {-98304, 6, "-1.500000"},
	    {0, 6, "0.000000"},
	    {0, 0, "0"},
	    {-1, 6, "-0.000015"},
	    {-1, 4, "0.0000"}, /* no "-0.0000" */
	    {1, 4, "0.0000"},
	    {1, 9, "0.000015259"},
	    {65536, 0, "1"},
	    {32768, 0, "1"}, /* 0.5: away from zero */
	    {-32768, 0, "-1"},
	    {32767, 0, "0"},
	    {-32767, 0, "0"},
	    {0x1000, 3, "0.063"}, /* 0.0625 */
	    {-0x1000, 3, "-0.063"},
	    {0x2000, 2, "0.13"}, /* 0.125 */
	    {-0x2000, 2, "-0.13"},
	    {0x4000, 1, "0.3"}, /* 0.25 */
	    {205887, 5, "3.14159"},
	    {1092, 6, "0.016663"},
	    {INT32_MAX, 9, "32767.999984741"},
	    {INT32_MAX, 4, "32768.0000"},
	    {INT32_MIN, 9, "-32768.000000000"},
	    {INT32_MIN, 0, "-32768"},
	    {3, 12, "0.000045776"}, /* clamped to 9 */
	    {98304, -3, "2"},       /* clamped to 0 */
	    {-163840, 1, "-2.5"},
	};
	char buf[24];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		memset(buf, 'x', sizeof buf);
		char *r = f2d_format_fix(cases[i].value, cases[i].decimals, buf);
		ck_assert_ptr_eq(r, buf);
		ck_assert_msg(strcmp(buf, cases[i].text) == 0,
		              "f2d_format_fix(%d, %d) = \"%s\", want \"%s\"", cases[i].value,
		              cases[i].decimals, buf, cases[i].text);
	}
	/* Against the string-rounding reference, for random values and every precision. */
	uint64_t s = 0x666D7401ull;
	char want[64];
	for (long i = 0; i < 200000; ++i) {
		fix16_t v = (i & 1) ? draw_fix(&s) : draw_uniform(&s);
		for (int d = 0; d <= 9; ++d) {
			memset(buf, 'x', sizeof buf);
			f2d_format_fix(v, d, buf);
			REQUIRE(memchr(buf, '\0', sizeof buf) != NULL,
			        "f2d_format_fix(%d, %d) overran", v, d);
			reference_format(v, d, want, sizeof want);
			if (strcmp(buf, want) != 0) {
				ck_abort_msg("f2d_format_fix(%d, %d) = \"%s\", want \"%s\"", v, d,
				             buf, want);
			}
		}
	}
}
END_TEST

static Suite *math_suite(void)
{
	Suite *suite = suite_create("math");
	TCase *tc = tcase_create("libfixmath");
	/* Generous when run by hand (Check's default is 4 s); ctest sets CK_DEFAULT_TIMEOUT. */
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, mul_random);
	tcase_add_test(tc, mul_edges);
	tcase_add_test(tc, mul_half_way);
	tcase_add_test(tc, div_random);
	tcase_add_test(tc, div_big_divisor);
	tcase_add_test(tc, div_edges);
	tcase_add_test(tc, div_half_way);
	tcase_add_test(tc, sqrt_random);
	tcase_add_test(tc, sqrt_sweeps);
	suite_add_tcase(suite, tc);

	TCase *tc2 = tcase_create("integer");
	tcase_set_timeout(tc2, 600);
	tcase_add_test(tc2, isqrt64_round);
	tcase_add_test(tc2, u128_helpers);
	tcase_add_test(tc2, normalize);
	tcase_add_test(tc2, rotations);
	tcase_add_test(tc2, sincos_shortcuts);
	tcase_add_test(tc2, integrate_rotation_small);
	tcase_add_test(tc2, integrate_rotation_256);
	tcase_add_test(tc2, atan2_pairs);
	suite_add_tcase(suite, tc2);

	TCase *tc3 = tcase_create("convert");
	tcase_set_timeout(tc3, 600);
	tcase_add_test(tc3, from_double_table);
	tcase_add_test(tc3, format_fix_table);
	suite_add_tcase(suite, tc3);
	return suite;
}

int main(void)
{
	SRunner *runner = srunner_create(math_suite());
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
