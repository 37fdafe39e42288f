/* fix2d internal: contact recycling's turned anchors on x86 (AVX2), for src/contact.c's
 * f2d_recycle_arbiter, and its entry point with the kernel named (tests/test_narrow.c compares
 * the kernels at the range's edges).
 * SPDX-License-Identifier: MIT
 *
 * The same bits as the scalar code (contact.c turn_since, turned and the points' dp), lane by
 * lane:
 *  - products: _mm_mul_epi32 / _mm256_mul_epi32 multiply the low 32 bits of each 64-bit lane,
 *    signed, exactly: the fix16 values the scalar code widens (a rotation's components, an
 *    anchor's, the turn's components, which are below 2^18 and so their own low 32 bits);
 *    whatever the high half of a lane holds is not read;
 *  - sums and differences: 64-bit lanes, exact over the ranges contact.c derives (below 2^50);
 *  - rounding: f2d_round16_256 (simd_x86.h) and its 2-lane twin below, the same bits as
 *    f2d_round16 for every lane value;
 *  - the exact no-turn (q == c, both components: one 64-bit compare of the pair) is the
 *    identity (F2D_ONE, 0), as turn_since has it.
 * A point past the arbiter's count is computed from whatever its slot holds (no operation
 * can trap) and not read. */
#ifndef F2D_RECYCLE_SIMD_H
#define F2D_RECYCLE_SIMD_H

#include "core.h"

/* f2d_recycle_arbiter with the kernel named (F2D_KERNEL_SCALAR: the reference arithmetic;
 * above it, on x86-64 builds with SIMD, the AVX2 helper below): the same answer and bits for
 * every kernel. f2d_recycle_arbiter is this with f2d_kernel_level(). */
bool f2d_recycle_arbiter_kernel(const f2d_world *w, const f2d_arbiter *prev, f2d_arbiter *arb,
                                fix16_t spec, int kernel);
/* the rule's turns and points' dp alone, with the kernel named (tests): false when a turn's
 * cosine is below F2D_RECYCLE_COS; else the turns, d = dx0, dy0, dx1, dy1 (the points up to
 * prev->count) and l1 the largest |dp|_1 */
bool f2d_recycle_dp_kernel(const f2d_arbiter *prev, const f2d_body *ba, const f2d_body *bb,
                           f2d_rot *da, f2d_rot *db, int64_t d[4], int64_t *l1, int kernel);

#if F2D_X86_SIMD
#include <immintrin.h>

#include "simd_x86.h"

/* f2d_round16 on 2 lanes (f2d_round16_256's arithmetic) */
F2D_TARGET_AVX2 static inline __m128i f2d_round16_128(__m128i p)
{
	__m128i sign = _mm_cmpgt_epi64(_mm_setzero_si128(), p);
	__m128i t = _mm_add_epi64(_mm_add_epi64(p, _mm_set1_epi64x(INT64_MIN + 0x8000)), sign);
	return _mm_sub_epi64(_mm_srli_epi64(t, 16), _mm_set1_epi64x((int64_t)1 << 47));
}

/* The turns of the bodies since the build and the points' dp (contact.c, f2d_recycle_arbiter):
 * false when a turn's cosine is below F2D_RECYCLE_COS; else *da, *db the turns, d[4] = dx0,
 * dy0, dx1, dy1 and *l1 the largest |dp|_1 of the arbiter's count points. Lanes: the turns
 * (A, B) in 2 lanes; the turned anchors r_a0, r_b0, r_a1, r_b1 in 4 (an f2d_contact_point's
 * r_a and r_b are 16 contiguous bytes: each lane's low half is the x, the high half the y). */
F2D_TARGET_AVX2 static inline bool f2d_recycle_dp_256(const f2d_arbiter *prev,
                                                      const f2d_body *ba, const f2d_body *bb,
                                                      f2d_rot *da, f2d_rot *db, int64_t d[4],
                                                      int64_t *l1)
{
	/* q conj(c) of A and B: q and c pairs as 64-bit lanes (c in the low half, s the high) */
	__m128i q = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)&ba->q),
	                               _mm_loadl_epi64((const __m128i *)&bb->q));
	__m128i c = _mm_loadu_si128((const __m128i *)&prev->cached_q_a); /* then cached_q_b */
	__m128i qs = _mm_srli_epi64(q, 32), cs = _mm_srli_epi64(c, 32);
	__m128i same = _mm_cmpeq_epi64(q, c);
	__m128i tc = f2d_round16_128(_mm_add_epi64(_mm_mul_epi32(q, c), _mm_mul_epi32(qs, cs)));
	__m128i ts = f2d_round16_128(_mm_sub_epi64(_mm_mul_epi32(qs, c), _mm_mul_epi32(q, cs)));
	tc = _mm_blendv_epi8(tc, _mm_set1_epi64x(F2D_ONE), same);
	ts = _mm_andnot_si128(same, ts);
	if (_mm_movemask_pd(_mm_castsi128_pd(
	        _mm_cmpgt_epi64(_mm_set1_epi64x(F2D_RECYCLE_COS), tc))) != 0) {
		return false;
	}
	da->c = (fix16_t)_mm_cvtsi128_si64(tc);
	da->s = (fix16_t)_mm_cvtsi128_si64(ts);
	db->c = (fix16_t)_mm_extract_epi64(tc, 1);
	db->s = (fix16_t)_mm_extract_epi64(ts, 1);
	/* rotate(d, r) of r_a0, r_b0, r_a1, r_b1: the turns A, B, A, B */
	__m256i kc = _mm256_broadcastsi128_si256(tc), ks = _mm256_broadcastsi128_si256(ts);
	__m256i r = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)&prev->points[0].r_a)),
	    _mm_loadu_si128((const __m128i *)&prev->points[1].r_a), 1);
	__m256i ry = _mm256_srli_epi64(r, 32);
	__m256i x = f2d_round16_256(_mm256_sub_epi64(_mm256_mul_epi32(kc, r), _mm256_mul_epi32(ks, ry)));
	__m256i y = f2d_round16_256(_mm256_add_epi64(_mm256_mul_epi32(ks, r), _mm256_mul_epi32(kc, ry)));
	/* dp = (c_b - c_a) + turned r_b - turned r_a: (x, y) of point 0 in the low 128 bits,
	 * point 1 in the high */
	__m128i cen = _mm_sub_epi64(_mm_cvtepi32_epi64(_mm_loadl_epi64((const __m128i *)&bb->center)),
	                            _mm_cvtepi32_epi64(_mm_loadl_epi64((const __m128i *)&ba->center)));
	__m256i dp = _mm256_add_epi64(
	    _mm256_sub_epi64(_mm256_unpackhi_epi64(x, y), _mm256_unpacklo_epi64(x, y)),
	    _mm256_broadcastsi128_si256(cen));
	_mm256_storeu_si256((__m256i *)d, dp);
	/* |dx| + |dy| of each point (below 2^35: no lane is INT64_MIN) */
	__m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), dp);
	__m256i a = _mm256_sub_epi64(_mm256_xor_si256(dp, sign), sign);
	a = _mm256_add_epi64(a, _mm256_shuffle_epi32(a, _MM_SHUFFLE(1, 0, 3, 2)));
	int64_t n0 = _mm256_extract_epi64(a, 0), n1 = prev->count == 2 ? _mm256_extract_epi64(a, 2) : 0;
	*l1 = n0 > n1 ? n0 : n1;
	return true;
}
#endif

#endif
