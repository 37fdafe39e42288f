/* fix2d narrow phase: the box branch of f2d_shape_update_world in AVX2, shared by collision.c
 * (f2d_box_world_avx2) and broadphase.c's AVX2 cache loop (which inlines it), and the tag
 * that marks a world polygon made by the box branch. Not installed; included after core.h.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_BOX_WORLD_AVX2_H
#define FIX2D_BOX_WORLD_AVX2_H

#include "core.h"

/* A world polygon made from a box centred on its body origin carries the box's form in slots a
 * 4-gon does not use, tagged by this value in the x and y of normals[4] (far outside any unit
 * normal's range); see f2d_shape_update_world and box_of. */
#define BOX_TAG 0x7F2DB0C5

#if F2D_X86_SIMD
#include <immintrin.h>

/* round16 of each 64-bit lane, in the lane's low 32 bits (the result fits fix16: a logical shift
 * gives the same low bits as f2d_round16's arithmetic one) */
__attribute__((target("avx2"))) static inline __m256i round16_lo(__m256i p)
{
	__m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p); /* p >> 63 */
	return _mm256_srli_epi64(
	    _mm256_add_epi64(_mm256_add_epi64(p, _mm256_set1_epi64x(0x8000)), neg), 16);
}

/* The box branch of f2d_shape_update_world, AVX2 (false for any other shape: nothing written,
 * but a 4-gon's world_polygon.count, 4, as f2d_shape_update_world writes it): the four rotations f2d_rotate(q, v) of v0, v1,
 * n0, n1 as one vector of four lanes (x, y as int32; _mm256_mul_epi32 takes the exact 64-bit
 * products of the x halves, the y halves shifted down), rounded as f2d_round16; the sums and
 * differences with p are the int32 ones of f2d_add / f2d_sub. The same bits as the scalar branch
 * (tests/test_narrow.c compares them). The AABB is returned in *aabb (lower, upper as 4 x int32),
 * not stored. */
_Static_assert(sizeof(f2d_aabb) == 16 && offsetof(f2d_aabb, upper) == 8,
               "box_world_avx2 stores the AABB as 4 x int32");
__attribute__((target("avx2"))) static inline bool box_world_avx2(f2d_shape *s, f2d_transform xf,
                                                                  fix16_t margin, __m128i *aabb)
{
	if (s->type != F2D_POLYGON_SHAPE || s->polygon.count != 4) {
		return false;
	}
	s->world_polygon.count = 4; /* (a 4-gon's, on either return) */
	const f2d_polygon *p = &s->polygon;
	f2d_polygon *wp = &s->world_polygon;
	__m256i v = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p->vertices)),
	    _mm_loadu_si128((const __m128i *)(const void *)p->normals), 1);
	/* antipodal4 of the vertices and of the normals (p->count == 4): v2 v3 n2 n3 = -(v0 v1 n0
	 * n1), the negations exact (|coordinates| <= 2^25, unit normals) */
	__m256i w = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)&p->vertices[2])),
	    _mm_loadu_si128((const __m128i *)(const void *)&p->normals[2]), 1);
	if (_mm256_movemask_epi8(
	        _mm256_cmpeq_epi32(w, _mm256_sub_epi32(_mm256_setzero_si256(), v))) != -1) {
		return false;
	}
	__m256i vy = _mm256_srli_epi64(v, 32);
	__m256i c = _mm256_set1_epi32(xf.q.c), sn = _mm256_set1_epi32(xf.q.s);
	__m256i x = round16_lo(_mm256_sub_epi64(_mm256_mul_epi32(c, v), _mm256_mul_epi32(sn, vy)));
	__m256i y = round16_lo(_mm256_add_epi64(_mm256_mul_epi32(sn, v), _mm256_mul_epi32(c, vy)));
	__m256i r = _mm256_blend_epi32(x, _mm256_slli_epi64(y, 32), 0xAA); /* r0 r1 n0 n1 */
	__m128i r01 = _mm256_castsi256_si128(r), n01 = _mm256_extracti128_si256(r, 1);
	__m128i pp = _mm_set_epi32(xf.p.y, xf.p.x, xf.p.y, xf.p.x);
	_mm_storeu_si128((__m128i *)(void *)&wp->vertices[0], _mm_add_epi32(r01, pp));
	_mm_storeu_si128((__m128i *)(void *)&wp->vertices[2], _mm_sub_epi32(pp, r01));
	_mm_storeu_si128((__m128i *)(void *)&wp->normals[0], n01);
	_mm_storeu_si128((__m128i *)(void *)&wp->normals[2],
	                 _mm_sub_epi32(_mm_setzero_si128(), n01));
	wp->vertices[4] = xf.p;
	_mm_storeu_si128((__m128i *)(void *)&wp->vertices[5], r01);
	wp->normals[4] = f2d_v(BOX_TAG, BOX_TAG);
	/* the scalar branch's ex, ey = max(|r0|, |r1|) + margin per axis and p -+ (ex, ey), as
	 * int32 lanes: abs, max, add and sub of int32 (|r| <= 2^25, and the branch's sums stay
	 * in fix16 by the world's range: the same int32 values) */
	__m128i a = _mm_abs_epi32(r01);                       /* |r0.x| |r0.y| |r1.x| |r1.y| */
	a = _mm_max_epi32(a, _mm_shuffle_epi32(a, 0x4E));     /* ex' ey' ex' ey' */
	__m128i e = _mm_add_epi32(a, _mm_set1_epi32(margin)); /* ex ey ex ey */
	__m128i lu = _mm_unpacklo_epi64(_mm_sub_epi32(pp, e), _mm_add_epi32(pp, e));
	*aabb = lu; /* lower, upper: the caller stores it (or stretches it first) */
	return true;
}
#endif

#endif
