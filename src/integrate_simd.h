/* fix2d internal: the step's body loops across 4 bodies (AVX2, 4 x 64-bit lanes): the helpers
 * and the turn of src/integrate_lists.c's integrate_positions_4, here so that tests/test_math.c can
 * compare the turn with f2d_integrate_rotation_small for every small angle, and the plain
 * bodies' velocity row (f2d_plain_row_256, and two rows at a time on AVX-512,
 * f2d_plain_rows_512; tested by tests/test_integrate_paths.c).
 * SPDX-License-Identifier: MIT
 *
 * The same bits as the scalar code, lane by lane:
 *  - products: _mm256_mul_epi32 multiplies the low 32 bits of each lane, signed, exactly (64
 *    bits): the fix16 values the scalar code multiplies (a row's (fix16_t)r[k], q, h, t);
 *  - rounding shifts (round16 of h v, round30 of the sine and of the turned q): the sum
 *    p + half + (p >> 63) as the scalar code forms it ((p >> 63) = -1 for p < 0: the compare
 *    0 > p), shifted logically; its low 32 bits sign-extended (f2d_sext32_256) are the value
 *    the scalar code casts to fix16 (the logical and the arithmetic shift differ only above
 *    bit 47 - shift);
 *  - floor(t2 / 6) = (t2 ceil(2^32 / 6)) >> 32 for 0 <= t2 < 2^31 (the product's excess,
 *    2 t2 / (6 2^32), stays below 1/6), t2 / 2 a shift (t2 >= 0). */
#ifndef F2D_INTEGRATE_SIMD_H
#define F2D_INTEGRATE_SIMD_H

#include "core.h"

#if F2D_X86_SIMD
#include <immintrin.h>

#include "simd_x86.h"

#define F2D_AVX2 F2D_TARGET_AVX2 /* integrate_lists.c, integrate_internal.h, tests/test_math.c */

/* (fix16_t)((p + half + (p >> 63)) >> shift), 0 < shift < 32 */
F2D_AVX2 static inline __m256i f2d_round_shift_256(__m256i p, __m256i half, int shift)
{
	__m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
	__m256i x = _mm256_add_epi64(_mm256_add_epi64(p, half), neg);
	return f2d_sext32_256(_mm256_srli_epi64(x, shift));
}

/* f2d_rot_turn_q30 on 4 lanes: q = (qc, qs) turned by (ca, sa) (Q30 lanes) into *c, *s;
 * returns the mask (all ones) of the lanes whose result renormalises (|c^2 + s^2 - 2^32| >
 * 2^18), which the callers leave to the scalar code. Shared by the closed forms and the full
 * polynomial below. */
F2D_AVX2 static inline __m256i f2d_turn_q30_256(__m256i qc, __m256i qs, __m256i ca, __m256i sa,
                                                __m256i *c, __m256i *s)
{
	const __m256i half30 = _mm256_set1_epi64x((int64_t)1 << 29);
	*c = f2d_round_shift_256(
	    _mm256_sub_epi64(_mm256_mul_epi32(qc, ca), _mm256_mul_epi32(qs, sa)), half30, 30);
	*s = f2d_round_shift_256(
	    _mm256_add_epi64(_mm256_mul_epi32(qs, ca), _mm256_mul_epi32(qc, sa)), half30, 30);
	__m256i len2 =
	    _mm256_sub_epi64(_mm256_add_epi64(_mm256_mul_epi32(*c, *c), _mm256_mul_epi32(*s, *s)),
	                     _mm256_set1_epi64x((int64_t)1 << 32));
	return _mm256_or_si256(_mm256_cmpgt_epi64(len2, _mm256_set1_epi64x((int64_t)1 << 18)),
	                       _mm256_cmpgt_epi64(_mm256_set1_epi64x(-((int64_t)1 << 18)), len2));
}

/* f2d_integrate_rotation_small(q, hw) on 4 lanes (q = (qc, qs), hw: fix16 values, sign-extended
 * 64-bit lanes): into *oc, *os where the closed forms hold; returns the mask (all ones) of the
 * lanes it does not cover, which the caller computes with the scalar code: |hw| > 1024
 * (f2d_integrate_rotation_small's range test, also what keeps t = hw 2^14 within 32 bits for
 * the products), t2 > F2D_ROT_CLOSED_MAX, or a result that renormalises. hw = 0 keeps q. */
F2D_AVX2 static inline __m256i f2d_turn_256(__m256i qc, __m256i qs, __m256i hw, __m256i *oc,
                                            __m256i *os)
{
	const __m256i q30 = _mm256_set1_epi64x((int64_t)1 << 30),
	              half30 = _mm256_set1_epi64x((int64_t)1 << 29);
	__m256i still = _mm256_cmpeq_epi64(hw, _mm256_setzero_si256());
	__m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(hw, _mm256_set1_epi64x(1024)),
	                              _mm256_cmpgt_epi64(_mm256_set1_epi64x(-1024), hw));
	__m256i t = _mm256_slli_epi64(hw, 14); /* hw 16384: |t| <= 2^24 where used */
	__m256i t2 = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(t, t), half30), 30);
	out = _mm256_or_si256(out, _mm256_cmpgt_epi64(t2, _mm256_set1_epi64x(F2D_ROT_CLOSED_MAX)));
	__m256i sixth = _mm256_srli_epi64(_mm256_mul_epu32(t2, _mm256_set1_epi64x(715827883)), 32);
	__m256i sa =
	    f2d_round_shift_256(_mm256_mul_epi32(_mm256_sub_epi64(q30, sixth), t), half30, 30);
	__m256i ca = _mm256_sub_epi64(q30, _mm256_srli_epi64(t2, 1));
	__m256i c, s;
	out = _mm256_or_si256(out, f2d_turn_q30_256(qc, qs, ca, sa, &c, &s));
	*oc = _mm256_blendv_epi8(c, qc, still);
	*os = _mm256_blendv_epi8(s, qs, still);
	return _mm256_andnot_si256(still, out);
}

/* The largest |hw| whose turn f2d_turn_full_256 (and _512) take by the polynomial: t2 =
 * round30((hw 2^14)^2) < 2^31 (92682 gives 2^31 + 4633) and |hw| <= pi/2. A lane they leave
 * with 0 < |hw| <= F2D_TURN_FULL_HW is one whose turn renormalises: its lanes hold the turned
 * rotation f2d_integrate_rotation renormalises (f2d_rot_normalize_near below). */
#define F2D_TURN_FULL_HW 92681

/* f2d_rot_normalize(c, s), the same value, for the turns that renormalise (|c^2 + s^2 - 2^32|
 * just above 2^18): for n = c^2 + s^2 within 2^26 of 2^32, f2d_isqrt64_round(n) by
 * f2d_isqrt64_round_from from one Newton step from 2^16, floor((2^16 + floor(n / 2^16)) / 2) =
 * floor((2^16 + n / 2^16) / 2) >= floor(sqrt(n)) (the mean of 2^16 and n / 2^16 is at least
 * their geometric mean sqrt(n); within 3 of it there: (2^16 - sqrt n)^2 / 2^17 <= 2.01); then
 * f2d_normalize's divisions and f2d_rot_normalize's zero test. Other n: f2d_rot_normalize.
 * n is summed unsigned (< 2^63 + 1 for every int32 pair). tests/test_integrate_paths.c
 * (normalize_near) compares it with f2d_rot_normalize. */
#define F2D_NEAR_BAND ((uint64_t)1 << 26)
/* f2d_isqrt64_round(n) for n within F2D_NEAR_BAND of 2^32 (f2d_rot_normalize_near's root) */
static inline uint64_t f2d_isqrt_near(uint64_t n)
{
	return f2d_isqrt64_round_from(n, (65536u + (n >> 16)) >> 1); /* < 2^17 */
}

static inline f2d_rot f2d_rot_normalize_near(fix16_t c, fix16_t s)
{
	const uint64_t low = ((uint64_t)1 << 32) - F2D_NEAR_BAND;
	uint64_t n = (uint64_t)((int64_t)c * c) + (uint64_t)((int64_t)s * s);
	if (n - low > 2u * F2D_NEAR_BAND) {
		return f2d_rot_normalize(c, s);
	}
	int64_t len = (int64_t)f2d_isqrt_near(n);
	f2d_rot q = {f2d_div_exact(c, len), f2d_div_exact(s, len)};
	return q.c == 0 && q.s == 0 ? f2d_rot_identity() : q;
}

/* integrate_velocities_lists' plain body (world.c integrate_plain_row: v += h g, saturated,
 * w unchanged) on its row (v.x, v.y, w, -), one register of 4 x 64-bit lanes; add is
 * (hg.x, hg.y, 0, 0). Each lane's low 32 bits sign-extended ((fix16_t) r[k], f2d_sext32_256)
 * plus add: lanes 0 and 1 are the exact 64-bit sums f2d_sat_flag tests. When lane 0 or 1 is
 * outside [-INT32_MAX, INT32_MAX] (f2d_sat_flag would saturate) returns false and writes
 * nothing (the caller runs the scalar code, which sets the flag); else lanes 0 and 1 are
 * f2d_sat_flag's results, lane 2 is (fix16_t) r[2] and lane 3, which the scalar code leaves, is
 * stored back as it was. tests/test_integrate_paths.c (plain_row_256) checks both cases at the
 * bounds to the LSB. */
/* The sum of f2d_plain_row_256 on a row already sign-extended (lanes 0..2 fix16 values): x +
 * add into *v; false (and *v not to be used) when lane 0 or 1 leaves [-INT32_MAX, INT32_MAX]. */
F2D_AVX2 static inline bool f2d_plain_sum_256(__m256i x, __m256i add, __m256i *v)
{
	const __m256i hi = _mm256_set1_epi64x(INT32_MAX), lo = _mm256_set1_epi64x(-INT32_MAX);
	const __m256i xy = _mm256_setr_epi64x(-1, -1, 0, 0);
	*v = _mm256_add_epi64(x, add);
	__m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(*v, hi), _mm256_cmpgt_epi64(lo, *v));
	return _mm256_testz_si256(out, xy) != 0;
}

F2D_AVX2 static inline bool f2d_plain_row_256(int64_t *r, __m256i add)
{
	__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)r), v;
	if (!f2d_plain_sum_256(f2d_sext32_256(x), add, &v)) {
		return false;
	}
	_mm256_storeu_si256((__m256i *)(void *)r, _mm256_blend_epi32(v, x, 0xC0));
	return true;
}

#define F2D_AVX512 F2D_TARGET_AVX512 /* world.c, tests/test_integrate_paths.c */

/* f2d_plain_row_256 on two rows at once, r0 and r1 (distinct), in the halves of a 512-bit
 * register, add2 = (hg.x, hg.y, 0, 0) twice: each lane's low 32 bits sign-extended (a shift
 * left by 32 and an arithmetic one right) plus add2. When lane 0 or 1 of either row leaves
 * [-INT32_MAX, INT32_MAX] returns false and writes nothing (the caller takes each row on its
 * own); else both rows are f2d_plain_row_256's (lane 3 stored back as it was).
 * tests/test_integrate_paths.c (plain_row_256) checks it with the single row's cases, in
 * either half. */
F2D_AVX512 static inline bool f2d_plain_rows_512(int64_t *r0, int64_t *r1, __m512i add2)
{
	__m256i *p0 = (__m256i *)(void *)r0, *p1 = (__m256i *)(void *)r1;
	__m512i x = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(p0)),
	                               _mm256_loadu_si256(p1), 1);
	__m512i v = _mm512_add_epi64(_mm512_srai_epi64(_mm512_slli_epi64(x, 32), 32), add2);
	__mmask8 out = _mm512_cmpgt_epi64_mask(v, _mm512_set1_epi64(INT32_MAX)) |
	               _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(-INT32_MAX), v);
	if ((out & 0x33) != 0) {
		return false;
	}
	v = _mm512_mask_blend_epi64(0x88, v, x);
	_mm256_storeu_si256(p0, _mm512_castsi512_si256(v));
	_mm256_storeu_si256(p1, _mm512_extracti64x4_epi64(v, 1));
	return true;
}

/* floor(x / d) for 0 <= x < 2^31 in each lane: (x m) >> (31 + L) with L = ceil(log2 d) and
 * m = ceil(2^(31 + L) / d) < 2^32 (Granlund and Montgomery: m d - 2^(31 + L) < d <= 2^L makes
 * the quotient exact for every 31-bit x; x m < 2^63). The divisors of math.c's Horner steps;
 * tests/test_integrate_paths.c checks m < 2^32 and the quotients at the range's ends. */
#define F2D_DIV_MAGIC(d, l) ((((uint64_t)1 << (31 + (l))) + (uint64_t)(d) - 1u) / (uint64_t)(d))
#define F2D_DIV31_256(x, d, l)                                                                    \
	_mm256_srli_epi64(_mm256_mul_epu32((x), _mm256_set1_epi64x((int64_t)F2D_DIV_MAGIC(d, l))),   \
	                  31 + (l))

/* One Horner step of math.c's horner_sum: Q30 - floor(round30(s t2) / d) for 0 < s <= Q30,
 * 0 <= t2 < 2^31 (the product < 2^61, its round30 <= t2 < 2^31: mul_q30_nonneg) */
#define F2D_HORNER_256(s, t2, d, l)                                                               \
	_mm256_sub_epi64(                                                                            \
	    q30, F2D_DIV31_256(_mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32((s), (t2)),        \
	                                                          half30),                          \
	                                         30),                                               \
	                       d, l))

/* math.c's sincos_q30 Horner sums on the lanes of a width W (256: F2D_DIV31_256,
 * F2D_HORNER_256, _mm256_* ; 512 the same), from t2 into hs (the sine's, k = 11, 9, 7, 5, 3: d =
 * 110, 72, 42, 20, 6) and hc (the cosine's, k = 12, 10, 8, 6, 4, 2: d = 132, 90, 56, 30, 12, 2,
 * the last a shift: hc t2 rounded is >= 0); q30 and half30 in scope */
#define F2D_HORNER_SUMS(W, t2, hs, hc)                                                             \
	do {                                                                                       \
		(hs) = _mm##W##_sub_epi64(q30, F2D_DIV31_##W((t2), 110, 7));                       \
		(hs) = F2D_HORNER_##W((hs), (t2), 72, 7);                                          \
		(hs) = F2D_HORNER_##W((hs), (t2), 42, 6);                                          \
		(hs) = F2D_HORNER_##W((hs), (t2), 20, 5);                                          \
		(hs) = F2D_HORNER_##W((hs), (t2), 6, 3);                                           \
		(hc) = _mm##W##_sub_epi64(q30, F2D_DIV31_##W((t2), 132, 8));                       \
		(hc) = F2D_HORNER_##W((hc), (t2), 90, 7);                                          \
		(hc) = F2D_HORNER_##W((hc), (t2), 56, 6);                                          \
		(hc) = F2D_HORNER_##W((hc), (t2), 30, 5);                                          \
		(hc) = F2D_HORNER_##W((hc), (t2), 12, 4);                                          \
		(hc) = _mm##W##_sub_epi64(                                                         \
		    q30, _mm##W##_srli_epi64(                                                      \
		             _mm##W##_srli_epi64(                                                  \
		                 _mm##W##_add_epi64(_mm##W##_mul_epu32((hc), (t2)), half30), 30),  \
		             1));                                                                  \
	} while (0)

/* f2d_integrate_rotation(q, hw) on 4 lanes for every turn with t2 = round30((hw 2^14)^2) <
 * 2^31 (|hw| < ~1.41 rad: every substep's turn under the default caps): math.c's sincos_q30
 * step for step (the full Horner sums, which equal its closed forms where it takes them: math.c
 * proves the shortcut), then f2d_rot_turn_q30. Returns the mask of the lanes it does not cover:
 * hw = 0 (q stays: the caller's), |hw| > pi/2 (f2d_integrate_rotation's clamp; also keeps t within
 * 32 bits), t2 >= 2^31, a result
 * that renormalises. tests/test_integrate_paths.c compares it with f2d_integrate_rotation for
 * every turn up to pi/2. */
F2D_AVX2 static inline __m256i f2d_turn_full_256(__m256i qc, __m256i qs, __m256i hw, __m256i *oc,
                                                 __m256i *os)
{
	const __m256i q30 = _mm256_set1_epi64x((int64_t)1 << 30),
	              half30 = _mm256_set1_epi64x((int64_t)1 << 29);
	__m256i out = _mm256_cmpeq_epi64(hw, _mm256_setzero_si256());
	out = _mm256_or_si256(out, _mm256_cmpgt_epi64(hw, _mm256_set1_epi64x(F2D_HALF_PI)));
	out = _mm256_or_si256(out, _mm256_cmpgt_epi64(_mm256_set1_epi64x(-F2D_HALF_PI), hw));
	__m256i t = _mm256_slli_epi64(hw, 14); /* |t| <= 2^31 where used */
	__m256i t2 = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(t, t), half30), 30);
	out = _mm256_or_si256(out,
	                      _mm256_cmpgt_epi64(t2, _mm256_set1_epi64x(((int64_t)1 << 31) - 1)));
	__m256i hs, hc;
	F2D_HORNER_SUMS(256, t2, hs, hc);
	/* sa = mul_q30(hs, t) (signed: the sign term), ca = hc */
	__m256i sa = f2d_round_shift_256(_mm256_mul_epi32(hs, t), half30, 30);
	out = _mm256_or_si256(out, f2d_turn_q30_256(qc, qs, hc, sa, oc, os));
	return out;
}

/* ---- the turns across 8 bodies (AVX-512: 8 x 64-bit lanes), integrate_lists.c's
 * integrate_positions_8 ---- */

/* f2d_round_shift_256 on 8 lanes, 0 < shift < 32: (p + half + (p >> 63)) (the same sum), then
 * bits shift .. shift + 31 of it sign-extended, by a shift left by 32 - shift and an arithmetic
 * one right by 32: the low 32 bits of the logical shift, sign-extended, as f2d_sext32_256
 * makes them. */
F2D_AVX512 static inline __m512i f2d_round_shift_512(__m512i p, __m512i half, int shift)
{
	__m512i x = _mm512_add_epi64(_mm512_add_epi64(p, half), _mm512_srai_epi64(p, 63));
	return _mm512_srai_epi64(_mm512_slli_epi64(x, (unsigned)(32 - shift)), 32);
}

/* f2d_turn_q30_256 on 8 lanes: the lanes whose result renormalises as a mask */
F2D_AVX512 static inline __mmask8 f2d_turn_q30_512(__m512i qc, __m512i qs, __m512i ca, __m512i sa,
                                                   __m512i *c, __m512i *s)
{
	const __m512i half30 = _mm512_set1_epi64((int64_t)1 << 29);
	*c = f2d_round_shift_512(
	    _mm512_sub_epi64(_mm512_mul_epi32(qc, ca), _mm512_mul_epi32(qs, sa)), half30, 30);
	*s = f2d_round_shift_512(
	    _mm512_add_epi64(_mm512_mul_epi32(qs, ca), _mm512_mul_epi32(qc, sa)), half30, 30);
	__m512i len2 =
	    _mm512_sub_epi64(_mm512_add_epi64(_mm512_mul_epi32(*c, *c), _mm512_mul_epi32(*s, *s)),
	                     _mm512_set1_epi64((int64_t)1 << 32));
	return _mm512_cmpgt_epi64_mask(len2, _mm512_set1_epi64((int64_t)1 << 18)) |
	       _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(-((int64_t)1 << 18)), len2);
}

/* F2D_DIV31_256 and F2D_HORNER_256 on 8 lanes (the same operations) */
#define F2D_DIV31_512(x, d, l)                                                                     \
	_mm512_srli_epi64(_mm512_mul_epu32((x), _mm512_set1_epi64((int64_t)F2D_DIV_MAGIC(d, l))),  \
	                  31 + (l))
#define F2D_HORNER_512(s, t2, d, l)                                                                \
	_mm512_sub_epi64(                                                                          \
	    q30, F2D_DIV31_512(                                                                    \
	             _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32((s), (t2)), half30), 30), \
	             d, l))

/* f2d_turn_full_256 on 8 lanes, operation for operation (the same lanes left: hw = 0,
 * |hw| > pi/2, t2 >= 2^31, a result that renormalises). tests/test_integrate_paths.c
 * (turn_full_512) compares it with f2d_turn_full_256 and f2d_integrate_rotation lane by lane. */
F2D_AVX512 static inline __mmask8 f2d_turn_full_512(__m512i qc, __m512i qs, __m512i hw, __m512i *oc,
                                                    __m512i *os)
{
	const __m512i q30 = _mm512_set1_epi64((int64_t)1 << 30),
	              half30 = _mm512_set1_epi64((int64_t)1 << 29);
	__mmask8 out = _mm512_cmpeq_epi64_mask(hw, _mm512_setzero_si512()) |
	               _mm512_cmpgt_epi64_mask(hw, _mm512_set1_epi64(F2D_HALF_PI)) |
	               _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(-F2D_HALF_PI), hw);
	__m512i t = _mm512_slli_epi64(hw, 14); /* |t| <= 2^31 where used */
	__m512i t2 = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(t, t), half30), 30);
	out |= _mm512_cmpgt_epi64_mask(t2, _mm512_set1_epi64(((int64_t)1 << 31) - 1));
	__m512i hs, hc;
	F2D_HORNER_SUMS(512, t2, hs, hc);
	__m512i sa = f2d_round_shift_512(_mm512_mul_epi32(hs, t), half30, 30);
	return out | f2d_turn_q30_512(qc, qs, hc, sa, oc, os);
}

#endif
#endif
