/* fix2d internal: the step's body loops across 4 bodies (AVX2, 4 x 64-bit lanes): the helpers
 * and the turn of src/world.c's integrate_positions_4, here so that tests/test_math.c can
 * compare the turn with f2d_integrate_rotation_small for every small angle.
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

#define F2D_AVX2 F2D_TARGET_AVX2 /* world.c, tests/test_math.c */

/* (fix16_t)((p + half + (p >> 63)) >> shift), 0 < shift < 32 */
F2D_AVX2 static inline __m256i f2d_round_shift_256(__m256i p, __m256i half, int shift)
{
	__m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
	__m256i x = _mm256_add_epi64(_mm256_add_epi64(p, half), neg);
	return f2d_sext32_256(_mm256_srli_epi64(x, shift));
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
	/* f2d_rot_turn_q30 */
	__m256i c = f2d_round_shift_256(
	    _mm256_sub_epi64(_mm256_mul_epi32(qc, ca), _mm256_mul_epi32(qs, sa)), half30, 30);
	__m256i s = f2d_round_shift_256(
	    _mm256_add_epi64(_mm256_mul_epi32(qs, ca), _mm256_mul_epi32(qc, sa)), half30, 30);
	__m256i len2 =
	    _mm256_sub_epi64(_mm256_add_epi64(_mm256_mul_epi32(c, c), _mm256_mul_epi32(s, s)),
	                     _mm256_set1_epi64x((int64_t)1 << 32));
	out = _mm256_or_si256(out, _mm256_cmpgt_epi64(len2, _mm256_set1_epi64x((int64_t)1 << 18)));
	out =
	    _mm256_or_si256(out, _mm256_cmpgt_epi64(_mm256_set1_epi64x(-((int64_t)1 << 18)), len2));
	*oc = _mm256_blendv_epi8(c, qc, still);
	*os = _mm256_blendv_epi8(s, qs, still);
	return _mm256_andnot_si256(still, out);
}

#endif
#endif
