/* fix2d revolute joints in SIMD lanes: the coloured joints' batches, their pre-step, substep
 * geometry, warm start, velocity and relax passes on AVX-512 (8 lanes) and AVX2 (4 lanes), one
 * source for both widths (joint_kernel.h).
 * SPDX-License-Identifier: MIT
 *
 * f2d_joints_prestep colours the joints (joint.c: colour after colour, id order inside one);
 * two joints of one colour share no body whose velocity an impulse changes, so inside a colour
 * the order cannot change a bit, and up to 8 joints of a colour make a batch (build_joint_batches).
 * The revolute joints of a batch without motor and limits are its live lanes: their point
 * constraint is solved at once in lanes (solve_point_fast of joint.c on each lane) with the
 * result of one after the other. A joint with a motor or limits, a joint of another type, and
 * a lane whose range check fails take the scalar code (f2d_joint_solve: fast path, else
 * exact) from the unchanged state. The lanes' arithmetic is the fast path's, operation for
 * operation, so they give its bits (tests/test_solver_paths.c compares every step of both
 * widths with the exact-only build, F2D_JOINT_EXACT_ONLY, and counts the lanes of each path).
 *
 * Each width defines the primitives that joint_kernel.h names (see there), then includes it:
 * the kernels J(name) are name_512 and name_256. Where the CPU (or the build: F2D_NO_SIMD,
 * F2D_JOINT_EXACT_ONLY, a compiler without the intrinsics) has neither, the entry points
 * return false and joint.c runs the scalar code.
 */
#include "joint_internal.h"

#ifdef F2D_JOINT_COUNT_PATHS
uint64_t f2d_joint_substep_counts[3];
#endif

#if F2D_X86_SIMD && !defined(F2D_JOINT_EXACT_ONLY)
#include <immintrin.h>
#include <stddef.h>

#include "simd_x86.h"

/* ---- AVX-512: 8 lanes, one group per batch ---- */
#define AVX512 F2D_TARGET_AVX512

/* The lanes' fields straight from the bodies (instead of 8 scalar stores to a staging array
 * and a vector load of it, which stalls on the store forwarding): a masked 8-byte gather per
 * lane, at byte offset off of body idx[l], 0 in the lanes outside m. Ids are below
 * F2D_MAX_OBJECTS = 2^20, so idx[l] * size / 8 < 2^26 fits the 32-bit indices. x86 is
 * little-endian: the first fix16 of the 8 bytes is the low half (jlo32), the second the high
 * half (jhi32), each sign-extended as the scalar code's (int64_t) casts. */
_Static_assert(F2D_MAX_OBJECTS <= (1 << 20), "joint lane gathers: 32-bit indices");
_Static_assert(sizeof(f2d_body) % 8 == 0, "joint lane gathers: bodies of whole 8-byte words");
_Static_assert(offsetof(f2d_body, v) % 4 == 0 && offsetof(f2d_body, w) + 8 <= sizeof(f2d_body),
               "joint lane gathers: the 8 bytes at w lie in the body");
_Static_assert(offsetof(f2d_body, q.s) == offsetof(f2d_body, q.c) + 4 &&
                   offsetof(f2d_body, center.y) == offsetof(f2d_body, center.x) + 4,
               "joint lane gathers: pairs of adjacent fix16 fields");
AVX512 static inline __m512i jgather_512(const f2d_body *bodies, size_t off, const int32_t *idx,
                                         unsigned m)
{
	__m256i i = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)(const void *)idx),
	                               _mm256_set1_epi32((int32_t)(sizeof(f2d_body) / 8)));
	return _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)m, i,
	                                   (const char *)bodies + off, 8);
}
AVX512 static inline __m512i jlo32_512(__m512i g)
{
	return _mm512_srai_epi64(_mm512_slli_epi64(g, 32), 32);
}
AVX512 static inline __m512i jhi32_512(__m512i g)
{
	return _mm512_srai_epi64(g, 32);
}
/* the fields at offsets off1 and off2 of the bodies idx[o..o + 8) of the live lanes: the
 * pair at off1 into o[0], o[1], the pair at off2 into o[2] and, with pairs, o[3] */
AVX512 static inline void jfields_512(const f2d_joint_batch *x, const f2d_body *bodies,
                                      const int32_t *idx, int32_t o, size_t off1, size_t off2,
                                      bool pairs, __m512i *out)
{
	__m512i g = jgather_512(bodies, off1, idx + o, x->live >> o);
	out[0] = jlo32_512(g);
	out[1] = jhi32_512(g);
	g = jgather_512(bodies, off2, idx + o, x->live >> o);
	out[2] = jlo32_512(g);
	if (pairs) {
		out[3] = jhi32_512(g);
	}
}

#define J(name) name##_512
#define J_ATTR AVX512
#define J_W 8
#define jv __m512i
#define jp __mmask8
#define J_LD(p) _mm512_loadu_si512(p)
#define J_ST(p, v) _mm512_storeu_si512(p, v)
#define J_SET1(c) _mm512_set1_epi64(c)
#define J_ZERO _mm512_setzero_si512()
#define J_ADD(a, b) _mm512_add_epi64(a, b)
#define J_SUB(a, b) _mm512_sub_epi64(a, b)
#define J_OR(a, b) _mm512_or_si512(a, b)
#define J_OR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0xFE)
#define J_MUL(a, b) _mm512_mul_epi32(a, b)
#define J_R16(p) f2d_round16_512(p)
#define J_TRUNC32(v) _mm512_cvtepi32_epi64(_mm512_cvtepi64_epi32(v))
#define J_MIN(a, b) _mm512_min_epi64(a, b)
#define J_MAX(a, b) _mm512_max_epi64(a, b)
#define J_ABS(a) _mm512_abs_epi64(a)
#define J_LT(a, b) _mm512_cmplt_epi64_mask(a, b)
#define J_GT(a, b) _mm512_cmpgt_epi64_mask(a, b)
#define J_LE_U(a, b) _mm512_cmple_epu64_mask(a, b)
#define J_PAND(p, q) ((__mmask8)((p) & (q)))
#define J_POR(p, q) ((__mmask8)((p) | (q)))
#define J_PANDNOT(p, q) ((__mmask8)(~(p) & (q)))
#define J_PBITS(p) ((unsigned)(p))
#define J_OKBITS(acc) ((unsigned)_mm512_cmplt_epu64_mask(acc, _mm512_set1_epi64((int64_t)1 << 31)))
#define J_STORE_BITS(p, bits, v) _mm512_mask_storeu_epi64(p, (__mmask8)(bits), v)
#define J_VEL(x, bodies, idx, o, out)                                                              \
	jfields_512(x, bodies, idx, o, offsetof(f2d_body, v), offsetof(f2d_body, w), false, out)
#define J_POSE(x, bodies, idx, o, out)                                                             \
	jfields_512(x, bodies, idx, o, offsetof(f2d_body, q), offsetof(f2d_body, center), true, out)
#include "joint_kernel.h"
#undef J
#undef J_ATTR
#undef J_W
#undef jv
#undef jp
#undef J_LD
#undef J_ST
#undef J_SET1
#undef J_ZERO
#undef J_ADD
#undef J_SUB
#undef J_OR
#undef J_OR3
#undef J_MUL
#undef J_R16
#undef J_TRUNC32
#undef J_MIN
#undef J_MAX
#undef J_ABS
#undef J_LT
#undef J_GT
#undef J_LE_U
#undef J_PAND
#undef J_POR
#undef J_PANDNOT
#undef J_PBITS
#undef J_OKBITS
#undef J_STORE_BITS
#undef J_VEL
#undef J_POSE

/* ---- AVX2 (a CPU without AVX-512, and valgrind): 4 lanes, two groups per batch ----
 * vpmuldq (_mm256_mul_epi32) is the same product. AVX2 has no 64-bit arithmetic shift, min,
 * max, absolute value or unsigned compare: built from compares and blends, all integer
 * instructions. The bodies' fields by scalar loads into the vectors (0 in lanes not live). */
#define AVX2 F2D_TARGET_AVX2

/* |x| as (x ^ s) - s with s the sign */
AVX2 static inline __m256i jabs_256(__m256i x)
{
	__m256i s = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x);
	return _mm256_sub_epi64(_mm256_xor_si256(x, s), s);
}
/* lanes where a <= b as unsigned 64-bit values: a signed compare with the top bits flipped */
AVX2 static inline __m256i jle_u_256(__m256i a, __m256i b)
{
	__m256i top = _mm256_set1_epi64x(INT64_MIN);
	__m256i gt = _mm256_cmpgt_epi64(_mm256_xor_si256(a, top), _mm256_xor_si256(b, top));
	return _mm256_xor_si256(gt, _mm256_set1_epi64x(-1));
}
AVX2 static inline void jstore_bits_256(int64_t *p, unsigned bits, __m256i v)
{
	const __m256i lane = _mm256_setr_epi64x(1, 2, 4, 8);
	__m256i m = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(bits), lane), lane);
	_mm256_maskstore_epi64((long long *)(void *)p, m, v);
}
/* v.x, v.y, w (pose: q.c, q.s, center.x, center.y) of the bodies idx[o..o + 4) of the live
 * lanes (0 in the others) into out */
AVX2 static inline void jfields_256(const f2d_joint_batch *x, const f2d_body *bodies,
                                    const int32_t *idx, int32_t o, bool pose, __m256i *out)
{
	int64_t t[4][4];
	for (int32_t l = 0; l < 4; ++l) {
		if ((x->live >> (o + l) & 1u) == 0) {
			t[0][l] = t[1][l] = t[2][l] = t[3][l] = 0;
			continue;
		}
		const f2d_body *b = &bodies[idx[o + l]];
		if (pose) {
			t[0][l] = b->q.c;
			t[1][l] = b->q.s;
			t[2][l] = b->center.x;
			t[3][l] = b->center.y;
		} else {
			t[0][l] = b->v.x;
			t[1][l] = b->v.y;
			t[2][l] = b->w;
		}
	}
	for (int32_t k = 0; k < (pose ? 4 : 3); ++k) {
		out[k] = _mm256_set_epi64x(t[k][3], t[k][2], t[k][1], t[k][0]);
	}
}

#define J(name) name##_256
#define J_ATTR AVX2
#define J_W 4
#define jv __m256i
#define jp __m256i
#define J_LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define J_ST(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define J_SET1(c) _mm256_set1_epi64x(c)
#define J_ZERO _mm256_setzero_si256()
#define J_ADD(a, b) _mm256_add_epi64(a, b)
#define J_SUB(a, b) _mm256_sub_epi64(a, b)
#define J_OR(a, b) _mm256_or_si256(a, b)
#define J_OR3(a, b, c) _mm256_or_si256(_mm256_or_si256(a, b), c)
#define J_MUL(a, b) _mm256_mul_epi32(a, b)
#define J_R16(p) f2d_round16_256(p)
#define J_TRUNC32(v) f2d_sext32_256(v)
#define J_MIN(a, b) _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b))
#define J_MAX(a, b) _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a))
#define J_ABS(a) jabs_256(a)
#define J_LT(a, b) _mm256_cmpgt_epi64(b, a)
#define J_GT(a, b) _mm256_cmpgt_epi64(a, b)
#define J_LE_U(a, b) jle_u_256(a, b)
#define J_PAND(p, q) _mm256_and_si256(p, q)
#define J_POR(p, q) _mm256_or_si256(p, q)
#define J_PANDNOT(p, q) _mm256_andnot_si256(p, q)
#define J_PBITS(p) f2d_bits_256(p)
#define J_OKBITS(acc) f2d_okbits_256(acc)
#define J_STORE_BITS(p, bits, v) jstore_bits_256(p, bits, v)
#define J_VEL(x, bodies, idx, o, out) jfields_256(x, bodies, idx, o, false, out)
#define J_POSE(x, bodies, idx, o, out) jfields_256(x, bodies, idx, o, true, out)
#include "joint_kernel.h"

/* ---- the batches ---- */

/* A batch's lane impulse to and from its joint (around a scalar solve, and at the end). */
static inline void lane_to_joint(const f2d_joint_batch *x, int32_t l, f2d_joint *j)
{
	j->impulse = f2d_v((fix16_t)x->ix[l], (fix16_t)x->iy[l]);
}
static inline void joint_to_lane(f2d_joint_batch *x, int32_t l, const f2d_joint *j)
{
	x->ix[l] = j->impulse.x;
	x->iy[l] = j->impulse.y;
}

/* Up to 8 joints of one colour: those without motor and limits (x->live) in lanes, the rest
 * (and the lanes that failed their check) by the scalar code; all independent. */
static void joint_batch_pass(f2d_world *w, f2d_joint_batch *x, f2d_joint_pass pass, bool last,
                             const fix16_t rigid[3], int kernel)
{
	int64_t v[6][8]; /* the lanes' new velocities */
	f2d_body *bodies = w->bodies;
	/* the other joints first (they share no body that moves with a lane: one colour), then
	 * the lanes gather their velocities (0 in the lanes that are not live) */
	if (x->live != (1u << x->n) - 1u) {
		for (int32_t l = 0; l < x->n; ++l) {
			if ((x->live >> l & 1u) == 0) {
				f2d_joint_pass_scalar(w, &w->joints[x->ids[l]], pass, rigid);
			}
		}
	}
	unsigned ok = kernel == F2D_KERNEL_AVX512 ? pass_512(x, bodies, v, pass)
	                                          : pass_256(x, bodies, v, pass);
	for (int32_t l = 0; l < x->n; ++l) {
		if ((ok >> l & 1u) != 0) {
			f2d_body *a = &bodies[x->ba[l]];
			f2d_body *b = &bodies[x->bb[l]];
			a->v = f2d_v((fix16_t)v[0][l], (fix16_t)v[1][l]);
			a->w = (fix16_t)v[2][l];
			b->v = f2d_v((fix16_t)v[3][l], (fix16_t)v[4][l]);
			b->w = (fix16_t)v[5][l];
			JR_COUNT_PATH(pass == F2D_PASS_WARM ? 0 : 2);
			if (last) {
				lane_to_joint(x, l, &w->joints[x->ids[l]]);
			}
		} else if ((x->live >> l & 1u) != 0) {
			/* from the unchanged state, with the lane's impulse */
			f2d_joint *j = &w->joints[x->ids[l]];
			lane_to_joint(x, l, j);
			f2d_joint_pass_scalar(w, j, pass, rigid);
			joint_to_lane(x, l, j);
		}
	}
}

/* A lane's values that the substep geometry changes (f2d_joints_substep: arms, biases, K^-1)
 * and the impulses, from its joint; the rest of build_joint_batches' (bodies, masses, lanes)
 * is the step's. */
static inline void refresh_lane(f2d_joint_batch *x, int32_t l, const f2d_joint *j)
{
	x->rax[l] = j->r_a.x;
	x->ray[l] = j->r_a.y;
	x->rbx[l] = j->r_b.x;
	x->rby[l] = j->r_b.y;
	x->bx[l] = j->bias.x;
	x->by[l] = j->bias.y;
	x->k11[l] = j->k11;
	x->k12[l] = j->k12;
	x->k22[l] = j->k22;
	x->ix[l] = j->impulse.x;
	x->iy[l] = j->impulse.y;
}

/* The batches of the coloured joints (joint.c's colour_joints order): the layout and each
 * lane's masses (prestep_batches adds the step's values). */
static void build_joint_batches(f2d_world *w, int32_t n)
{
	int32_t nb = 0;
	for (int32_t i = 0; i < n;) {
		int32_t c = w->joint_order_color[i], e = i + 1;
		while (e < n && e - i < 8 && w->joint_order_color[e] == c) {
			e++;
		}
		f2d_joint_batch *x = &w->joint_batches[nb++];
		memset(x, 0, sizeof *x);
		x->n = e - i;
		x->sequential = c == F2D_OVERFLOW_COLOR || e - i == 1;
		for (int32_t l = 0; l < x->n; ++l) {
			const f2d_joint *j = &w->joints[w->joint_order[i + l]];
			x->ids[l] = w->joint_order[i + l];
			/* a lane of its own joint's (the joint's impulses stay in the joint) */
			if (x->sequential || j->enable_motor || j->enable_limit ||
			    j->type != F2D_REVOLUTE_JOINT) {
				continue;
			}
			const f2d_body *a = &w->bodies[j->body_a];
			const f2d_body *b = &w->bodies[j->body_b];
			x->live |= 1u << l;
			x->ba[l] = j->body_a;
			x->bb[l] = j->body_b;
			x->ma[l] = a->inv_mass;
			x->mb[l] = b->inv_mass;
			x->ia[l] = a->inv_inertia;
			x->ib[l] = b->inv_inertia;
		}
		i = e;
	}
	w->joint_batch_count = nb;
}

/* The batches of an unchanged layout (joint.c's joint_colors_kept): each live lane's masses,
 * as build_joint_batches writes them. */
static void refresh_joint_masses(f2d_world *w)
{
	for (int32_t nb = 0; nb < w->joint_batch_count; ++nb) {
		f2d_joint_batch *x = &w->joint_batches[nb];
		for (int32_t l = 0; l < x->n; ++l) {
			if ((x->live >> l & 1u) == 0) {
				continue;
			}
			const f2d_body *a = &w->bodies[x->ba[l]];
			const f2d_body *b = &w->bodies[x->bb[l]];
			x->ma[l] = a->inv_mass;
			x->mb[l] = b->inv_mass;
			x->ia[l] = a->inv_inertia;
			x->ib[l] = b->inv_inertia;
		}
	}
}

/* The substep geometry of a batch's live lanes on this kernel (substep_512 or substep_256;
 * fresh: the pre-step, which computes the arms' local vectors of the step first: the joint's
 * local anchors less the bodies' local centres, f2d_sub as revolute_geometry; no substep
 * changes them) */
static unsigned substep_lanes(f2d_world *w, f2d_joint_batch *x, int kernel, bool fresh,
                              int64_t k[3][8], unsigned *fits)
{
	fix16_t beta_h = f2d_mul(w->def.bias_factor, w->inv_h);
	fix16_t tol = f2d_joint_tolerance(w);
	bool clamp = w->def.joint_position_iterations > 0;
	*fits = 0;
	if (fresh) {
		for (int32_t l = 0; l < x->n; ++l) {
			if ((x->live >> l & 1u) != 0) {
				const f2d_joint *j = &w->joints[x->ids[l]];
				f2d_vec2 la = f2d_sub(j->local_a, w->bodies[x->ba[l]].local_center);
				f2d_vec2 lb = f2d_sub(j->local_b, w->bodies[x->bb[l]].local_center);
				x->lax[l] = la.x;
				x->lay[l] = la.y;
				x->lbx[l] = lb.x;
				x->lby[l] = lb.y;
			}
		}
	}
	if (kernel == F2D_KERNEL_AVX512) {
		return substep_512(x, w->bodies, beta_h, tol, clamp, k, fits);
	}
	return substep_256(x, w->bodies, beta_h, tol, clamp, k, fits);
}

/* f2d_joint_prestep of every joint of the batches: the live lanes' geometry (revolute_geometry
 * with its angle 0 and point_k: a live lane has no limits) in lanes by substep_lanes, which
 * computes f2d_joint_substep's, the same expressions; then, as f2d_joint_prestep, K^-1 by
 * point_inverse of that K (whatever the fits test said), no axial mass (no motor, no limits)
 * and the impulses' resets (the motor's and the limits' always, the point's without warm
 * starting). A lane whose bias check failed, and every other joint, takes f2d_joint_prestep.
 * Then each live lane's values from its joint. Each joint writes only its own fields: any
 * order gives the same bits. */
static void prestep_batches(f2d_world *w, int kernel)
{
	for (int32_t nb = 0; nb < w->joint_batch_count; ++nb) {
		f2d_joint_batch *x = &w->joint_batches[nb];
		unsigned ok = 0, fits = 0;
		int64_t k[3][8];
		if (x->live != 0) {
			/* (its fits test reads the lanes' K^-1 of before: not used here) */
			ok = substep_lanes(w, x, kernel, true, k, &fits);
		}
		for (int32_t l = 0; l < x->n; ++l) {
			f2d_joint *j = &w->joints[x->ids[l]];
			if ((ok >> l & 1u) == 0) {
				f2d_joint_prestep(w, j);
			} else {
				j->r_a = f2d_v((fix16_t)x->rax[l], (fix16_t)x->ray[l]);
				j->r_b = f2d_v((fix16_t)x->rbx[l], (fix16_t)x->rby[l]);
				j->bias = f2d_v((fix16_t)x->bx[l], (fix16_t)x->by[l]);
				j->angle = 0;
				f2d_revolute_inverse(w, k[0][l], k[1][l], k[2][l], &j->k11, &j->k12,
				                     &j->k22);
				if (!w->def.warm_starting) {
					j->impulse = f2d_v(0, 0);
				}
				j->motor_impulse = j->lower_impulse = j->upper_impulse = 0;
			}
			if ((x->live >> l & 1u) != 0) {
				refresh_lane(x, l, j);
			}
		}
	}
}

/* f2d_joints_substep over the batches: the live lanes of a batch by substep_lanes (a lane
 * whose bias check failed, and every other joint, by f2d_joint_substep), then the values of
 * each lane that f2d_joint_substep computed from its joint. Each joint writes only its own
 * fields: any order gives the same bits. */
static void joints_substep_batches(f2d_world *w, int kernel)
{
	for (int32_t nb = 0; nb < w->joint_batch_count; ++nb) {
		f2d_joint_batch *x = &w->joint_batches[nb];
		unsigned ok = 0, fits = 0;
		int64_t k[3][8];
		if (x->live != 0 && w->def.warm_starting) {
			ok = substep_lanes(w, x, kernel, false, k, &fits);
		}
		for (int32_t l = 0; l < x->n; ++l) {
			f2d_joint *j = &w->joints[x->ids[l]];
			if ((ok >> l & 1u) == 0) {
				if ((x->live >> l & 1u) != 0 && w->def.warm_starting) {
					JR_COUNT_SUBSTEP(1);
				}
				f2d_joint_substep(w, j);
			} else {
				JR_COUNT_SUBSTEP(0);
				j->r_a = f2d_v((fix16_t)x->rax[l], (fix16_t)x->ray[l]);
				j->r_b = f2d_v((fix16_t)x->rbx[l], (fix16_t)x->rby[l]);
				j->bias = f2d_v((fix16_t)x->bx[l], (fix16_t)x->by[l]);
				j->angle = 0;
				if ((fits >> l & 1u) == 0) {
					JR_COUNT_SUBSTEP(2);
					f2d_revolute_inverse(w, k[0][l], k[1][l], k[2][l], &j->k11,
					                     &j->k12, &j->k22);
					x->k11[l] = j->k11;
					x->k12[l] = j->k12;
					x->k22[l] = j->k22;
				}
				/* the lane holds the rest already: the arms and biases from
				 * substep_lanes, K^-1 unless inverted again, and the impulses,
				 * which the last pass of the previous substep (the relax pass, last
				 * = true) left equal in the lane and the joint */
				continue;
			}
			if ((x->live >> l & 1u) != 0) {
				refresh_lane(x, l, j);
			}
		}
	}
}

bool f2d_joint_lanes_prestep(f2d_world *w, int32_t n, bool kept)
{
	int kernel = f2d_kernel_level();
	if (kernel < F2D_KERNEL_AVX2) {
		return false;
	}
	if (kept) {
		refresh_joint_masses(w);
	} else {
		build_joint_batches(w, n);
	}
	prestep_batches(w, kernel);
	return true;
}

bool f2d_joint_lanes_substep(f2d_world *w)
{
	int kernel = f2d_kernel_level();
	if (kernel < F2D_KERNEL_AVX2) {
		return false;
	}
	/* and the lanes' arms and biases of this substep */
	joints_substep_batches(w, kernel);
	return true;
}

bool f2d_joint_lanes_pass(f2d_world *w, f2d_joint_pass pass, bool last, const fix16_t rigid[3])
{
	int kernel = f2d_kernel_level();
	if (kernel < F2D_KERNEL_AVX2) {
		return false;
	}
	for (int32_t b = 0; b < w->joint_batch_count; ++b) {
		f2d_joint_batch *x = &w->joint_batches[b];
		if (x->live != 0) {
			joint_batch_pass(w, x, pass, last, rigid, kernel);
			continue;
		}
		/* the overflow colour, a single joint, or no lane (joints with motor or limits,
		 * other types): one after the other */
		for (int32_t l = 0; l < x->n; ++l) {
			f2d_joint_pass_scalar(w, &w->joints[x->ids[l]], pass, rigid);
		}
	}
	return true;
}

#else /* no SIMD kernel in this build: joint.c runs the scalar code */

bool f2d_joint_lanes_prestep(f2d_world *w, int32_t n, bool kept)
{
	(void)w;
	(void)n;
	(void)kept;
	return false;
}

bool f2d_joint_lanes_substep(f2d_world *w)
{
	(void)w;
	return false;
}

bool f2d_joint_lanes_pass(f2d_world *w, f2d_joint_pass pass, bool last, const fix16_t rigid[3])
{
	(void)w;
	(void)pass;
	(void)last;
	(void)rigid;
	return false;
}
#endif
