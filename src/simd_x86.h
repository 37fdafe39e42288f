/* x86 integer SIMD helpers shared by the contact kernels (solver.c), the joint lanes
 * (joint_lanes.c) and the body loops (integrate_simd.h): included only inside their
 * F2D_HAVE_SIMD / F2D_X86_SIMD sections. Each function carries its own target attribute, so
 * the including file needs no -m flag; every instruction is an integer one
 * (tests/matrix/no_float.sh).
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_SIMD_X86_H
#define FIX2D_SIMD_X86_H

#include <immintrin.h>

#define F2D_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx2")))
#define F2D_TARGET_AVX2 __attribute__((target("avx2")))

/* round16 (f2d_round16: (p + 2^15 + (p >> 63)) >> 16, arithmetic) on 8 lanes */
F2D_TARGET_AVX512 static inline __m512i f2d_round16_512(__m512i p)
{
	__m512i r = _mm512_add_epi64(_mm512_add_epi64(p, _mm512_set1_epi64(0x8000)),
	                             _mm512_srai_epi64(p, 63));
	return _mm512_srai_epi64(r, 16);
}

/* round16 on 4 lanes in five instructions (AVX2 has no 64-bit arithmetic shift): the
 * arithmetic shift of t as the logical shift of t + 2^63 (in [0, 2^64) for every 64-bit t, the
 * addition modulo 2^64), less 2^47: the same bits as the arithmetic shift for every lane value */
F2D_TARGET_AVX2 static inline __m256i f2d_round16_256(__m256i p)
{
	__m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
	__m256i t =
	    _mm256_add_epi64(_mm256_add_epi64(p, _mm256_set1_epi64x(INT64_MIN + 0x8000)), sign);
	return _mm256_sub_epi64(_mm256_srli_epi64(t, 16), _mm256_set1_epi64x((int64_t)1 << 47));
}

/* each lane's low 32 bits sign-extended (the value a (fix16_t) cast of the lane gives): the
 * high half from the low half's sign (srai by 31 and a dword shuffle) */
F2D_TARGET_AVX2 static inline __m256i f2d_sext32_256(__m256i x)
{
	__m256i sign = _mm256_shuffle_epi32(_mm256_srai_epi32(x, 31), _MM_SHUFFLE(2, 2, 0, 0));
	return _mm256_blend_epi32(x, sign, 0xAA);
}

/* the top bit of each 64-bit lane (vmovmskpd: a move of bits, no floating-point arithmetic;
 * the lanes are all-ones or zero) */
F2D_TARGET_AVX2 static inline unsigned f2d_bits_256(__m256i p)
{
	return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(p));
}

/* the lanes whose value is in [0, 2^31) as unsigned 64 bits: bit l for lane l (the range
 * checks accumulate |x| | ... and test it once) */
F2D_TARGET_AVX2 static inline unsigned f2d_okbits_256(__m256i acc)
{
	return f2d_bits_256(_mm256_cmpeq_epi64(_mm256_srli_epi64(acc, 31), _mm256_setzero_si256()));
}

#endif
