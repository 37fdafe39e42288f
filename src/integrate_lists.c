/* fix2d: the soft step's body loops by lists (issue 16): the velocity and position integrations
 * and the speed caps over the lists soft_step (world.c) makes, with their AVX2 and AVX-512
 * kernels. The operations on one body are integrate_internal.h's, shared with world.c.
 * SPDX-License-Identifier: MIT
 */
#include "core.h"
#include "integrate_internal.h"

/* A plain body's velocity integration (gravity_only: v += h g, saturated; w unchanged) on its
 * row: integrate_velocity's operations with F = 0, scale 1, no damping. */
static inline void integrate_plain_row(f2d_world *w, int64_t *r, f2d_vec2 hg)
{
	r[0] = f2d_sat_flag((int64_t)(fix16_t)r[0] + hg.x, &w->saturated);
	r[1] = f2d_sat_flag((int64_t)(fix16_t)r[1] + hg.y, &w->saturated);
	r[2] = (fix16_t)r[2];
}

/* One moving body of integrate_positions_lists (below): the common body's operations, else
 * integrate_position from the start. origin: the origin too (the step's last substep:
 * integrate_position's set_origin, the same expression). */
static inline void integrate_position_list(f2d_world *w, f2d_body *b, int64_t *r, int64_t *dp,
                                           fix16_t h, int64_t max_t, int64_t max_t2, fix16_t max_r,
                                           bool origin)
{
	vel3 v = {(fix16_t)r[0], (fix16_t)r[1], (fix16_t)r[2]};
	/* The common body, no cap and inside the world: integrate_position's operations
	 * without its tests. Then |d| <= max_t <= 64 m and |centre| <= 8192 m, so c fits
	 * fix16 and c - centre = d exactly; the turn's test is |dr| <= max_r (< 2^17) in
	 * unsigned form, the centre's |c| <= F2D_WORLD_LIMIT. Else integrate_position from
	 * the start (nothing written yet). */
	f2d_vec2 d = f2d_v(f2d_mul(h, v.x), f2d_mul(h, v.y));
	fix16_t dr = f2d_mul(h, v.w);
	int64_t cx = (int64_t)b->center.x + d.x, cy = (int64_t)b->center.y + d.y;
	if (f2d_dot64(d, d) > max_t2 || (uint32_t)dr + (uint32_t)max_r > 2u * (uint32_t)max_r ||
	    (uint64_t)(cx + F2D_WORLD_LIMIT) > 2u * (uint64_t)F2D_WORLD_LIMIT ||
	    (uint64_t)(cy + F2D_WORLD_LIMIT) > 2u * (uint64_t)F2D_WORLD_LIMIT) {
		if (integrate_position(w, b, &v, max_t, max_t2, max_r, dp, origin)) {
			r[0] = v.x;
			r[1] = v.y;
			r[2] = v.w;
		}
		return;
	}
	dp[0] += d.x;
	dp[1] += d.y;
	dp[2] += dr;
	set_pose(b, f2d_v((fix16_t)cx, (fix16_t)cy), dr, origin);
}

/* integrate_positions_bodies_lists' body (a step with joints: the velocity in the body, the
 * origin set every substep) */
static inline void integrate_position_body(f2d_world *w, f2d_body *b, int64_t *dp, int64_t max_t,
                                           int64_t max_t2, fix16_t max_r)
{
	vel3 v = {b->v.x, b->v.y, b->w};
	if (integrate_position(w, b, &v, max_t, max_t2, max_r, dp, true)) {
		b->v = f2d_v(v.x, v.y);
		b->w = v.w;
	}
}

#if F2D_INTEGRATE_SIMD

/* ---- integrate_positions_lists across 4 bodies (AVX2: 4 x 64-bit lanes) ----
 * integrate_position_list's fast case, operation for operation, on 4 moving bodies at a time
 * (integrate_simd.h: why each vector operation gives the scalar one's bits); a lane whose body
 * the fast case does not cover (a cap, the world's edge, a turn outside
 * f2d_integrate_rotation_small's closed forms or one that renormalises) takes
 * integrate_position_list itself, from the unchanged state, in list order (so
 * f2d_stop_at_edge keeps the same last body). The tests are integrate_position_list's, as
 * compares of sign-extended 64-bit values; the centre and displacement updates are the same
 * integer sums. tests/test_integrate_paths.c compares this build with the exact-only one at
 * the range edges (its boundary worlds put moves, turns and centres on every bound and 1-2
 * LSB either side); tests/test_math.c the turn with f2d_integrate_rotation_small. */
#define AVX2 F2D_AVX2
_Static_assert(offsetof(f2d_body, center) == offsetof(f2d_body, q) + 8 && sizeof(f2d_rot) == 8 &&
                   offsetof(f2d_body, w) == offsetof(f2d_body, v) + 8 &&
                   offsetof(f2d_body, force) == offsetof(f2d_body, w) + 4,
               "integrate_positions_4 loads q and the centre, v and w as 4 x int32");

/* the low 32 bits of each lane, packed */
AVX2 static inline __m128i low32_256(__m256i x)
{
	return _mm256_castsi256_si128(
	    _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

/* The 4 x int32 at p0 .. p3 (4 bodies' q and centre, or velocity), as 4 vectors of 64-bit
 * lanes: x[k] holds the k-th value of each */
AVX2 static inline void load4x4_256(const void *p0, const void *p1, const void *p2, const void *p3,
                                    __m256i x[4])
{
	__m128i b0 = _mm_loadu_si128((const __m128i *)p0);
	__m128i b1 = _mm_loadu_si128((const __m128i *)p1);
	__m128i b2 = _mm_loadu_si128((const __m128i *)p2);
	__m128i b3 = _mm_loadu_si128((const __m128i *)p3);
	__m128i t0 = _mm_unpacklo_epi32(b0, b1), t1 = _mm_unpacklo_epi32(b2, b3);
	__m128i t2 = _mm_unpackhi_epi32(b0, b1), t3 = _mm_unpackhi_epi32(b2, b3);
	x[0] = _mm256_cvtepi32_epi64(_mm_unpacklo_epi64(t0, t1));
	x[1] = _mm256_cvtepi32_epi64(_mm_unpackhi_epi64(t0, t1));
	x[2] = _mm256_cvtepi32_epi64(_mm_unpacklo_epi64(t2, t3));
	x[3] = _mm256_cvtepi32_epi64(_mm_unpackhi_epi64(t2, t3));
}

/* A fast lane's writes: its displacement row plus add, its q and centre (out: 4 x int32 at
 * &q), its origin (org's low 8 bytes) when origins. */
AVX2 static inline void put_lane(int64_t *disp, f2d_body *b, __m256i add, __m128i out,
                                 __m128i org, bool origins)
{
	__m256i *dp = (__m256i *)(void *)disp;
	_mm256_storeu_si256(dp, _mm256_add_epi64(_mm256_loadu_si256(dp), add));
	_mm_storeu_si128((__m128i *)(void *)&b->q, out);
	if (origins) {
		_mm_storel_epi64((__m128i *)(void *)&b->origin, org);
	}
}

/* The turn of a lane (q, hw != 0) that f2d_turn_full_256 or _512 left, whose lanes hold (c, s):
 * f2d_integrate_rotation(q, hw). For 0 < |hw| <= F2D_TURN_FULL_HW the lane was left because
 * the turned rotation (c, s) renormalises (integrate_simd.h): f2d_integrate_rotation's value is
 * f2d_rot_normalize(c, s), here f2d_rot_normalize_near (the same value, without the scalar
 * polynomial and the bit-by-bit root). */
static inline f2d_rot turn_left(fix16_t qc, fix16_t qs, fix16_t hw, fix16_t c, fix16_t s)
{
	if ((uint32_t)hw + (uint32_t)F2D_TURN_FULL_HW <= 2u * (uint32_t)F2D_TURN_FULL_HW) {
		return f2d_rot_normalize_near(c, s);
	}
	return f2d_integrate_rotation((f2d_rot){qc, qs}, hw);
}

/* The bodies ids[0 .. 3]: writes the fast lanes, runs the others. rows NULL: a step with
 * joints, the velocities in the bodies and the origins set too (integrate_position with
 * set_origin: lc = 0 needs no test, rotate(q, 0) = 0); origins: the origins set (with rows: the
 * step's last substep). */
AVX2 static inline __attribute__((always_inline)) void
integrate_positions_4(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4], const int32_t *ids,
                      fix16_t h, int64_t max_t, int64_t max_t2, fix16_t max_r, const bool in_rows,
                      const bool origins)
{
	f2d_body *bodies = w->bodies;
	int32_t i0 = ids[0], i1 = ids[1], i2 = ids[2], i3 = ids[3];
	/* q and centre: 4 x int32 at &q (core.h: center follows q) */
	__m256i x4[4];
	load4x4_256(&bodies[i0].q, &bodies[i1].q, &bodies[i2].q, &bodies[i3].q, x4);
	__m256i qc = x4[0], qs = x4[1], cx = x4[2], cy = x4[3];
	__m128i t0, t1, t2, t3;
	__m256i a, b, c, d, vx, vy, vw;
	if (in_rows) { /* the velocity rows (vx, vy, w, -) transposed */
		__m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *)rows[i0]);
		__m256i r1 = _mm256_loadu_si256((const __m256i *)(const void *)rows[i1]);
		__m256i r2 = _mm256_loadu_si256((const __m256i *)(const void *)rows[i2]);
		__m256i r3 = _mm256_loadu_si256((const __m256i *)(const void *)rows[i3]);
		a = _mm256_unpacklo_epi64(r0, r1);
		b = _mm256_unpackhi_epi64(r0, r1);
		c = _mm256_unpacklo_epi64(r2, r3);
		d = _mm256_unpackhi_epi64(r2, r3);
		vx = _mm256_permute2x128_si256(a, c, 0x20);
		vy = _mm256_permute2x128_si256(b, d, 0x20);
		vw = _mm256_permute2x128_si256(a, c, 0x31);
	} else { /* the bodies' v and w (core.h: w follows v) */
		__m256i x[4];
		load4x4_256(&bodies[i0].v, &bodies[i1].v, &bodies[i2].v, &bodies[i3].v, x);
		vx = x[0];
		vy = x[1];
		vw = x[2];
	}
	/* d = h v, dr = h w (f2d_mul) */
	const __m256i hh = _mm256_set1_epi64x(h), half16 = _mm256_set1_epi64x(0x8000);
	__m256i dx = f2d_round_shift_256(_mm256_mul_epi32(hh, vx), half16, 16);
	__m256i dy = f2d_round_shift_256(_mm256_mul_epi32(hh, vy), half16, 16);
	__m256i dr = f2d_round_shift_256(_mm256_mul_epi32(hh, vw), half16, 16);
	/* integrate_position_list's tests */
	__m256i d2 = _mm256_add_epi64(_mm256_mul_epi32(dx, dx), _mm256_mul_epi32(dy, dy));
	__m256i bad = _mm256_cmpgt_epi64(d2, _mm256_set1_epi64x(max_t2));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(dr, _mm256_set1_epi64x(max_r)));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(_mm256_set1_epi64x(-(int64_t)max_r), dr));
	cx = _mm256_add_epi64(cx, dx);
	cy = _mm256_add_epi64(cy, dy);
	const __m256i lim = _mm256_set1_epi64x(F2D_WORLD_LIMIT),
	              nlim = _mm256_set1_epi64x(-(int64_t)F2D_WORLD_LIMIT);
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(cx, lim));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(nlim, cx));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(cy, lim));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(nlim, cy));
	__m256i oc = qc, os = qs; /* no turn in any lane (a body at rest): q stays */
	unsigned fast = ~f2d_bits_256(bad) & 15u;
	if (!_mm256_testz_si256(dr, dr)) {
		/* a lane whose move and centre are the fast case but whose turn the closed forms
		 * do not cover (a turn of more than ~0.0086 rad: the chain's swinging links) takes
		 * f2d_integrate_rotation's value, which integrate_rotation gives for every turn
		 * (fmath.h), into its lane: f2d_turn_full_256's, else turn_left's; the rest of the
		 * body stays in the lanes */
		unsigned rest = f2d_bits_256(f2d_turn_256(qc, qs, dr, &oc, &os)) & fast;
		if (rest != 0) { /* math.c's whole polynomial on the lanes (f2d_turn_full_256) */
			__m256i fc, fs;
			__m256i left = f2d_turn_full_256(qc, qs, dr, &fc, &fs);
			/* every such lane takes the polynomial's values: the turn, or the turned
			 * rotation turn_left renormalises */
			__m256i m =
			    _mm256_cmpgt_epi64(_mm256_and_si256(_mm256_setr_epi64x(1, 2, 4, 8),
			                                        _mm256_set1_epi64x(rest)),
			                       _mm256_setzero_si256());
			oc = _mm256_blendv_epi8(oc, fc, m);
			os = _mm256_blendv_epi8(os, fs, m);
			rest &= f2d_bits_256(left);
		}
		if (rest != 0) {
			int64_t tc[4], ts[4], q0[4], q1[4], r[4];
			_mm256_storeu_si256((__m256i *)(void *)tc, oc);
			_mm256_storeu_si256((__m256i *)(void *)ts, os);
			_mm256_storeu_si256((__m256i *)(void *)q0, qc);
			_mm256_storeu_si256((__m256i *)(void *)q1, qs);
			_mm256_storeu_si256((__m256i *)(void *)r, dr);
			for (int32_t j = 0; j < 4; ++j) {
				if (rest & (1u << j)) {
					f2d_rot t =
					    turn_left((fix16_t)q0[j], (fix16_t)q1[j], (fix16_t)r[j],
					              (fix16_t)tc[j], (fix16_t)ts[j]);
					tc[j] = t.c;
					ts[j] = t.s;
				}
			}
			oc = _mm256_loadu_si256((const __m256i *)(const void *)tc);
			os = _mm256_loadu_si256((const __m256i *)(const void *)ts);
		}
	}
	/* the fast lanes' displacement rows (dx, dy, dr, 0) and their q and centre */
	a = _mm256_unpacklo_epi64(dx, dy);
	b = _mm256_unpackhi_epi64(dx, dy);
	const __m256i zero = _mm256_setzero_si256();
	const __m128i zero128 = _mm_setzero_si128();
	c = _mm256_unpacklo_epi64(dr, zero);
	d = _mm256_unpackhi_epi64(dr, zero);
	const __m256i add0 = _mm256_permute2x128_si256(a, c, 0x20),
	              add1 = _mm256_permute2x128_si256(b, d, 0x20),
	              add2 = _mm256_permute2x128_si256(a, c, 0x31),
	              add3 = _mm256_permute2x128_si256(b, d, 0x31);
	__m128i pc = low32_256(oc), ps = low32_256(os), px = low32_256(cx), py = low32_256(cy);
	t0 = _mm_unpacklo_epi32(pc, ps);
	t1 = _mm_unpackhi_epi32(pc, ps);
	t2 = _mm_unpacklo_epi32(px, py);
	t3 = _mm_unpackhi_epi32(px, py);
	const __m128i out0 = _mm_unpacklo_epi64(t0, t2), out1 = _mm_unpackhi_epi64(t0, t2),
	              out2 = _mm_unpacklo_epi64(t1, t3), out3 = _mm_unpackhi_epi64(t1, t3);
	__m128i org0 = zero128, org1 = zero128, org2 = zero128, org3 = zero128;
	if (origins) { /* origin = c - rotate(q', lc) (f2d_rotate, f2d_sub) */
		__m128i l01 = _mm_unpacklo_epi64(
		    _mm_loadl_epi64((const __m128i *)(const void *)&bodies[i0].local_center),
		    _mm_loadl_epi64((const __m128i *)(const void *)&bodies[i1].local_center));
		__m128i l23 = _mm_unpacklo_epi64(
		    _mm_loadl_epi64((const __m128i *)(const void *)&bodies[i2].local_center),
		    _mm_loadl_epi64((const __m128i *)(const void *)&bodies[i3].local_center));
		/* (x0 y0 x1 y1), (x2 y2 x3 y3) -> x, y */
		__m128i u0 = _mm_unpacklo_epi32(l01, l23), u1 = _mm_unpackhi_epi32(l01, l23);
		__m256i lx = _mm256_cvtepi32_epi64(_mm_unpacklo_epi32(u0, u1));
		__m256i ly = _mm256_cvtepi32_epi64(_mm_unpackhi_epi32(u0, u1));
		__m256i rx = f2d_round_shift_256(
		    _mm256_sub_epi64(_mm256_mul_epi32(oc, lx), _mm256_mul_epi32(os, ly)), half16,
		    16);
		__m256i ry = f2d_round_shift_256(
		    _mm256_add_epi64(_mm256_mul_epi32(os, lx), _mm256_mul_epi32(oc, ly)), half16,
		    16);
		__m128i ox = low32_256(_mm256_sub_epi64(cx, rx)),
		        oy = low32_256(_mm256_sub_epi64(cy, ry));
		__m128i o01 = _mm_unpacklo_epi32(ox, oy), o23 = _mm_unpackhi_epi32(ox, oy);
		org0 = o01;
		org1 = _mm_unpackhi_epi64(o01, o01);
		org2 = o23;
		org3 = _mm_unpackhi_epi64(o23, o23);
	}
	if (fast == 15u) { /* the common case, straight (the ids read once, above) */
		put_lane(disp[i0], &bodies[i0], add0, out0, org0, origins);
		put_lane(disp[i1], &bodies[i1], add1, out1, org1, origins);
		put_lane(disp[i2], &bodies[i2], add2, out2, org2, origins);
		put_lane(disp[i3], &bodies[i3], add3, out3, org3, origins);
		return;
	}
	const __m256i add[4] = {add0, add1, add2, add3};
	const __m128i out[4] = {out0, out1, out2, out3}, org[4] = {org0, org1, org2, org3};
	for (int32_t j = 0; j < 4; ++j) {
		int32_t i = ids[j];
		if (fast & (1u << j)) {
			put_lane(disp[i], &bodies[i], add[j], out[j], org[j], origins);
		} else if (in_rows) {
			integrate_position_list(w, &bodies[i], rows[i], disp[i], h, max_t, max_t2,
			                        max_r, origins);
		} else {
			integrate_position_body(w, &bodies[i], disp[i], max_t, max_t2, max_r);
		}
	}
}

/* The moving bodies ids[0 .. n - 1] by 4 (one call per substep: the loop inside the AVX2
 * code), their velocities in the rows or, rows NULL, in the bodies (then the origins too: a
 * step with joints); origins: the origins too with the rows; returns how many it took, a
 * multiple of 4. */
AVX2 static int32_t integrate_positions_avx2(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4],
                                             const int32_t *ids, int32_t n, fix16_t h,
                                             int64_t max_t, int64_t max_t2, fix16_t max_r,
                                             bool origins)
{
	int32_t k = 0;
	if (rows != NULL && !origins) { /* three loops: each a copy of integrate_positions_4 */
		for (; k + 4 <= n; k += 4) {
			integrate_positions_4(w, rows, disp, &ids[k], h, max_t, max_t2, max_r, true,
			                      false);
		}
	} else if (rows != NULL) {
		for (; k + 4 <= n; k += 4) {
			integrate_positions_4(w, rows, disp, &ids[k], h, max_t, max_t2, max_r, true,
			                      true);
		}
	} else {
		for (; k + 4 <= n; k += 4) {
			integrate_positions_4(w, NULL, disp, &ids[k], h, max_t, max_t2, max_r, false,
			                      true);
		}
	}
	return k;
}

/* ---- integrate_positions_4 across 8 bodies (AVX-512: 8 x 64-bit lanes) ----
 * The rows' substeps (the origins too in a step's last), on this CPU's AVX-512 kernel:
 * integrate_positions_4's fast case, the same operations on 8 lanes (the closed-form turn,
 * f2d_turn_512; a turn it does not cover takes turn_rest_8, integrate_positions_4's turn of
 * such a lane: the whole polynomial on 8 lanes, f2d_turn_full_512, else the scalar turn); a
 * group of 8 with any lane outside it (a cap, the world's edge) writes nothing here and is run
 * by integrate_positions_4, 4 and 4, which takes each such lane in list order. The rounding shifts
 * are f2d_round_shift_256's: (p + half + (p >> 63)) shifted logically, its low 32 bits
 * sign-extended, here one shift left by 32 - shift and one arithmetic right by 32 (bits shift ..
 * shift + 31 of the sum, sign-extended); the rows' lanes are read by their low 32 bits (vpmovqd),
 * as vpmuldq reads them. tests/test_integrate_paths.c steps its worlds (40 bodies) on this CPU's
 * kernel against the exact-only build. */
#define AVX512 F2D_TARGET_AVX512
/* f2d_turn_256 on 8 lanes: the lanes it does not cover as a mask */
AVX512 static inline __mmask8 f2d_turn_512(__m512i qc, __m512i qs, __m512i hw, __m512i *oc,
                                           __m512i *os)
{
	const __m512i q30 = _mm512_set1_epi64((int64_t)1 << 30),
	              half30 = _mm512_set1_epi64((int64_t)1 << 29);
	__mmask8 still = _mm512_cmpeq_epi64_mask(hw, _mm512_setzero_si512());
	__mmask8 out = _mm512_cmpgt_epi64_mask(hw, _mm512_set1_epi64(1024)) |
	               _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(-1024), hw);
	__m512i t = _mm512_slli_epi64(hw, 14);
	__m512i t2 = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(t, t), half30), 30);
	out |= _mm512_cmpgt_epi64_mask(t2, _mm512_set1_epi64(F2D_ROT_CLOSED_MAX));
	__m512i sixth = _mm512_srli_epi64(_mm512_mul_epu32(t2, _mm512_set1_epi64(715827883)), 32);
	__m512i sa =
	    f2d_round_shift_512(_mm512_mul_epi32(_mm512_sub_epi64(q30, sixth), t), half30, 30);
	__m512i ca = _mm512_sub_epi64(q30, _mm512_srli_epi64(t2, 1));
	__m512i c, s;
	out |= f2d_turn_q30_512(qc, qs, ca, sa, &c, &s);
	*oc = _mm512_mask_mov_epi64(c, still, qc);
	*os = _mm512_mask_mov_epi64(s, still, qs);
	return out & (__mmask8)~still;
}

/* 4 x int32 at each of p[0 .. 7] (the halves of y[0 .. 3]: p[k] low, p[k + 4] high) as 4
 * vectors of 8 dwords, x[k] the k-th value of each */
AVX512 static inline void transpose4x8_256(const __m256i y[4], __m256i x[4])
{
	__m256i t0 = _mm256_unpacklo_epi32(y[0], y[1]), t1 = _mm256_unpacklo_epi32(y[2], y[3]);
	__m256i t2 = _mm256_unpackhi_epi32(y[0], y[1]), t3 = _mm256_unpackhi_epi32(y[2], y[3]);
	x[0] = _mm256_unpacklo_epi64(t0, t1);
	x[1] = _mm256_unpackhi_epi64(t0, t1);
	x[2] = _mm256_unpacklo_epi64(t2, t3);
	x[3] = _mm256_unpackhi_epi64(t2, t3);
}

/* The lanes rest of a group of 8 whose move and centre are the fast case but whose turn
 * f2d_turn_512's closed forms do not cover: integrate_positions_4's turn of such a lane, into
 * oc and os. math.c's whole polynomial on 8 lanes (f2d_turn_full_512), then, for a lane it
 * leaves (hw = 0 never comes here), turn_left (f2d_integrate_rotation's value, which
 * integrate_rotation gives for every turn: fmath.h). A turn reads and writes nothing else: the
 * lanes' order does not matter. */
AVX512 static void turn_rest_8(__m512i qc, __m512i qs, __m512i dr, __mmask8 rest, __m512i *oc,
                               __m512i *os)
{
	__m512i fc, fs;
	__mmask8 left = f2d_turn_full_512(qc, qs, dr, &fc, &fs) & rest;
	*oc = _mm512_mask_mov_epi64(*oc, rest, fc);
	*os = _mm512_mask_mov_epi64(*os, rest, fs);
	if (left == 0) {
		return;
	}
	int64_t tc[8], ts[8], q0[8], q1[8], r[8];
	_mm512_storeu_si512(tc, *oc);
	_mm512_storeu_si512(ts, *os);
	_mm512_storeu_si512(q0, qc);
	_mm512_storeu_si512(q1, qs);
	_mm512_storeu_si512(r, dr);
	for (int32_t j = 0; j < 8; ++j) {
		if (left & (1u << j)) {
			f2d_rot t = turn_left((fix16_t)q0[j], (fix16_t)q1[j], (fix16_t)r[j],
			                      (fix16_t)tc[j], (fix16_t)ts[j]);
			tc[j] = t.c;
			ts[j] = t.s;
		}
	}
	*oc = _mm512_loadu_si512(tc);
	*os = _mm512_loadu_si512(ts);
}

/* The bodies ids[0 .. 7] (rows; origins: the origins too): true when all 8 took the fast case
 * (written), false when none was written. */
AVX512 static inline __attribute__((always_inline)) bool
integrate_positions_8(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4], const int32_t *ids,
                      fix16_t h, int64_t max_t2, fix16_t max_r, const bool origins)
{
	f2d_body *bodies = w->bodies;
	__m256i y[4], x[4];
	for (int32_t k = 0; k < 4; ++k) { /* q and centre: 4 x int32 at &q */
		y[k] = _mm256_inserti128_si256(
		    _mm256_castsi128_si256(
		        _mm_loadu_si128((const __m128i *)(const void *)&bodies[ids[k]].q)),
		    _mm_loadu_si128((const __m128i *)(const void *)&bodies[ids[k + 4]].q), 1);
	}
	transpose4x8_256(y, x);
	__m512i qc = _mm512_cvtepi32_epi64(x[0]), qs = _mm512_cvtepi32_epi64(x[1]);
	__m512i cx = _mm512_cvtepi32_epi64(x[2]), cy = _mm512_cvtepi32_epi64(x[3]);
	for (int32_t k = 0; k < 4; ++k) { /* the rows (vx, vy, w, -), their low 32 bits */
		y[k] = _mm512_cvtepi64_epi32(_mm512_inserti64x4(
		    _mm512_castsi256_si512(
		        _mm256_loadu_si256((const __m256i *)(const void *)rows[ids[k]])),
		    _mm256_loadu_si256((const __m256i *)(const void *)rows[ids[k + 4]]), 1));
	}
	transpose4x8_256(y, x);
	const __m512i hh = _mm512_set1_epi64(h), half16 = _mm512_set1_epi64(0x8000);
	__m512i dx =
	    f2d_round_shift_512(_mm512_mul_epi32(hh, _mm512_cvtepi32_epi64(x[0])), half16, 16);
	__m512i dy =
	    f2d_round_shift_512(_mm512_mul_epi32(hh, _mm512_cvtepi32_epi64(x[1])), half16, 16);
	__m512i dr =
	    f2d_round_shift_512(_mm512_mul_epi32(hh, _mm512_cvtepi32_epi64(x[2])), half16, 16);
	__m512i d2 = _mm512_add_epi64(_mm512_mul_epi32(dx, dx), _mm512_mul_epi32(dy, dy));
	__mmask8 bad = _mm512_cmpgt_epi64_mask(d2, _mm512_set1_epi64(max_t2)) |
	               _mm512_cmpgt_epi64_mask(dr, _mm512_set1_epi64(max_r)) |
	               _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(-(int64_t)max_r), dr);
	cx = _mm512_add_epi64(cx, dx);
	cy = _mm512_add_epi64(cy, dy);
	const __m512i lim = _mm512_set1_epi64(F2D_WORLD_LIMIT),
	              nlim = _mm512_set1_epi64(-(int64_t)F2D_WORLD_LIMIT);
	bad |= _mm512_cmpgt_epi64_mask(cx, lim) | _mm512_cmpgt_epi64_mask(nlim, cx) |
	       _mm512_cmpgt_epi64_mask(cy, lim) | _mm512_cmpgt_epi64_mask(nlim, cy);
	if (bad != 0) {
		return false;
	}
	__m512i oc = qc, os = qs;
	if (_mm512_test_epi64_mask(dr, dr) != 0) {
		__mmask8 rest = f2d_turn_512(qc, qs, dr, &oc, &os);
		if (rest != 0) {
			turn_rest_8(qc, qs, dr, rest, &oc, &os);
		}
	}
	/* q and centre back: 4 x int32 a body (transpose4x8_256's inverse) */
	__m256i pc = _mm512_cvtepi64_epi32(oc), ps = _mm512_cvtepi64_epi32(os);
	__m256i px = _mm512_cvtepi64_epi32(cx), py = _mm512_cvtepi64_epi32(cy);
	__m256i a0 = _mm256_unpacklo_epi32(pc, ps), a1 = _mm256_unpackhi_epi32(pc, ps);
	__m256i a2 = _mm256_unpacklo_epi32(px, py), a3 = _mm256_unpackhi_epi32(px, py);
	y[0] = _mm256_unpacklo_epi64(a0, a2); /* bodies 0 | 4 */
	y[1] = _mm256_unpackhi_epi64(a0, a2); /* 1 | 5 */
	y[2] = _mm256_unpacklo_epi64(a1, a3); /* 2 | 6 */
	y[3] = _mm256_unpackhi_epi64(a1, a3); /* 3 | 7 */
	/* the displacement rows' additions (dx, dy, dr, 0) */
	const __m512i zero = _mm512_setzero_si512();
	__m512i u0 = _mm512_unpacklo_epi64(dx, dy), u1 = _mm512_unpackhi_epi64(dx, dy);
	__m512i v0 = _mm512_unpacklo_epi64(dr, zero), v1 = _mm512_unpackhi_epi64(dr, zero);
	const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11),
	              hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
	__m512i add[4] = {_mm512_permutex2var_epi64(u0, lo, v0),  /* bodies 0 | 2 */
	                  _mm512_permutex2var_epi64(u1, lo, v1),  /* 1 | 3 */
	                  _mm512_permutex2var_epi64(u0, hi, v0),  /* 4 | 6 */
	                  _mm512_permutex2var_epi64(u1, hi, v1)}; /* 5 | 7 */
	for (int32_t j = 0; j < 8; ++j) {
		int32_t i = ids[j];
		__m256i *dp = (__m256i *)(void *)disp[i];
		__m512i a = add[(j & 1) | ((j >> 2) << 1)];
		__m256i d = (j & 2) ? _mm512_extracti64x4_epi64(a, 1) : _mm512_castsi512_si256(a);
		_mm256_storeu_si256(dp, _mm256_add_epi64(_mm256_loadu_si256(dp), d));
		__m256i q = y[j & 3];
		_mm_storeu_si128((__m128i *)(void *)&bodies[i].q,
		                 j < 4 ? _mm256_castsi256_si128(q) : _mm256_extracti128_si256(q, 1));
	}
	if (origins) { /* origin = c - rotate(q', lc) (integrate_positions_4's) */
		int64_t lc[8];
		for (int32_t j = 0; j < 8; ++j) {
			memcpy(&lc[j], &bodies[ids[j]].local_center, sizeof lc[j]);
		}
		__m512i l = _mm512_loadu_si512(lc);
		__m512i lx = _mm512_srai_epi64(_mm512_slli_epi64(l, 32), 32);
		__m512i ly = _mm512_srai_epi64(l, 32);
		__m512i rx = f2d_round_shift_512(
		    _mm512_sub_epi64(_mm512_mul_epi32(oc, lx), _mm512_mul_epi32(os, ly)), half16,
		    16);
		__m512i ry = f2d_round_shift_512(
		    _mm512_add_epi64(_mm512_mul_epi32(os, lx), _mm512_mul_epi32(oc, ly)), half16,
		    16);
		/* (x, y) low 32 bits each, one 64-bit lane a body */
		__m512i org = _mm512_mask_blend_epi32(0xAAAA, _mm512_sub_epi64(cx, rx),
		                                      _mm512_slli_epi64(_mm512_sub_epi64(cy, ry), 32));
		const __m128i o[4] = {
		    _mm512_castsi512_si128(org), _mm512_extracti32x4_epi32(org, 1),
		    _mm512_extracti32x4_epi32(org, 2), _mm512_extracti32x4_epi32(org, 3)};
		for (int32_t j = 0; j < 8; j += 2) {
			_mm_storel_epi64((__m128i *)(void *)&bodies[ids[j]].origin, o[j / 2]);
			_mm_storel_epi64((__m128i *)(void *)&bodies[ids[j + 1]].origin,
			                 _mm_unpackhi_epi64(o[j / 2], o[j / 2]));
		}
	}
	return true;
}

/* integrate_plain_rows_avx2 two rows at a time (f2d_plain_rows_512, integrate_simd.h); a pair
 * it leaves (a velocity that saturates) takes the AVX2 row, then the scalar code, row by row
 * (each row is its own: the order does not matter, and the saturation flag is only ever
 * set). */
AVX512 static void integrate_plain_rows_avx512(f2d_world *w, int64_t (*rows)[4],
                                               const int32_t *ids, int32_t n, f2d_vec2 hg)
{
	const __m256i add = _mm256_setr_epi64x(hg.x, hg.y, 0, 0);
	const __m512i add2 = _mm512_setr_epi64(hg.x, hg.y, 0, 0, hg.x, hg.y, 0, 0);
	int32_t k = 0;
	for (; k + 2 <= n; k += 2) {
		if (f2d_plain_rows_512(rows[ids[k]], rows[ids[k + 1]], add2)) {
			continue;
		}
		for (int32_t j = k; j < k + 2; ++j) {
			if (!f2d_plain_row_256(rows[ids[j]], add)) {
				integrate_plain_row(w, rows[ids[j]], hg);
			}
		}
	}
	for (; k < n; ++k) {
		if (!f2d_plain_row_256(rows[ids[k]], add)) {
			integrate_plain_row(w, rows[ids[k]], hg);
		}
	}
}

/* integrate_positions_avx2 with the rows by 8, then 4 (the groups of 8 integrate_positions_8
 * leaves: 4 and 4); a copy for each value of origins */
AVX512 static inline __attribute__((always_inline)) int32_t
positions_by_8(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4], const int32_t *ids, int32_t n,
               fix16_t h, int64_t max_t, int64_t max_t2, fix16_t max_r, const bool origins)
{
	int32_t k = 0;
	for (; k + 8 <= n; k += 8) {
		if (!integrate_positions_8(w, rows, disp, &ids[k], h, max_t2, max_r, origins)) {
			integrate_positions_4(w, rows, disp, &ids[k], h, max_t, max_t2, max_r, true,
			                      origins);
			integrate_positions_4(w, rows, disp, &ids[k + 4], h, max_t, max_t2, max_r,
			                      true, origins);
		}
	}
	if (k + 4 <= n) {
		integrate_positions_4(w, rows, disp, &ids[k], h, max_t, max_t2, max_r, true,
		                      origins);
		k += 4;
	}
	return k;
}
AVX512 static int32_t integrate_positions_avx512(f2d_world *w, int64_t (*rows)[4],
                                                 int64_t (*disp)[4], const int32_t *ids,
                                                 int32_t n, fix16_t h, int64_t max_t,
                                                 int64_t max_t2, fix16_t max_r, bool origins)
{
	return origins ? positions_by_8(w, rows, disp, ids, n, h, max_t, max_t2, max_r, true)
	               : positions_by_8(w, rows, disp, ids, n, h, max_t, max_t2, max_r, false);
}
#undef AVX512

/* integrate_velocities_lists' plain bodies on the rows (f2d_plain_row_256, integrate_simd.h:
 * the rows it leaves, whose velocity saturates, take integrate_plain_row). Each body's row is
 * its own: the order of the bodies does not matter. */
AVX2 static void integrate_plain_rows_avx2(f2d_world *w, int64_t (*rows)[4], const int32_t *ids,
                                           int32_t n, f2d_vec2 hg)
{
	const __m256i add = _mm256_setr_epi64x(hg.x, hg.y, 0, 0);
	for (int32_t k = 0; k < n; ++k) {
		int64_t *r = rows[ids[k]];
		if (!f2d_plain_row_256(r, add)) {
			integrate_plain_row(w, r, hg);
		}
	}
}

/* soft_step's first loop over the bodies with the rows and the lists: the same writes. A row
 * (v.x, v.y, w, 0) is the 16 bytes at &b->v (v, w, force.x: the _Static_assert above)
 * sign-extended to 64 bits with lane 3 zeroed; a plain body's first substep is
 * f2d_plain_sum_256 on that row (v += h g where no lane saturates: lane 2 w + 0, lane 3 0 + 0,
 * as f2d_plain_row_256), else integrate_plain_row on the stored row (the scalar loop's
 * f2d_sat_flag sums: the same expressions on the same values); the displacement row is
 * zeroed by one store. Returns the lists' counts in *bl. */
AVX2 void f2d_start_rows_avx2(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4],
                              body_lists *bl, f2d_vec2 hg)
{
	const __m256i zero = _mm256_setzero_si256();
	const __m256i add = _mm256_setr_epi64x(hg.x, hg.y, 0, 0);
	const int32_t nb = w->body_ids.next;
	/* soft_step's lists (bl's arrays) */
	int32_t *moving = w->integ_list, *plain = moving + nb, *general = plain + nb;
	int32_t nm = 0, np = 0, ng = 0;
	const f2d_body *bodies = w->bodies;
	for (int32_t i = 0; i < nb; ++i) {
		const f2d_body *b = &bodies[i];
		_mm256_storeu_si256((__m256i *)(void *)disp[i], zero);
		__m256i row = _mm256_blend_epi32(
		    _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)&b->v)), zero,
		    0xC0);
		if (b->alive && b->type != F2D_STATIC_BODY && b->awake) {
			moving[nm++] = i;
			if (b->type == F2D_DYNAMIC_BODY) {
				if (gravity_only(b)) {
					plain[np++] = i;
					__m256i v;
					if (!f2d_plain_sum_256(row, add, &v)) {
						_mm256_storeu_si256((__m256i *)(void *)rows[i], row);
						integrate_plain_row(w, rows[i], hg);
						continue;
					}
					row = v;
				} else {
					general[ng++] = i;
				}
			}
		}
		_mm256_storeu_si256((__m256i *)(void *)rows[i], row);
	}
	bl->nm = nm;
	bl->np = np;
	bl->ng = ng;
}
#undef AVX2
#endif

/* integrate_velocities_rows over the lists: the same operations (order does not matter: each
 * body's row is its own, and the saturation flag is only ever set). plain false: the plain
 * bodies are left out (the first substep's, which soft_step integrates as it makes the lists). */
void f2d_integrate_velocities_lists(f2d_world *w, int64_t (*rows)[4], const body_lists *l,
                                    bool plain, int kernel)
{
	f2d_vec2 hg = f2d_v(f2d_mul(w->h, w->gravity.x), f2d_mul(w->h, w->gravity.y));
	int32_t k = plain ? 0 : l->np;
#if F2D_INTEGRATE_SIMD
	if (kernel == F2D_KERNEL_AVX512 && k < l->np) {
		integrate_plain_rows_avx512(w, rows, l->plain, l->np, hg);
		k = l->np;
	} else if (kernel != F2D_KERNEL_SCALAR && k < l->np) {
		integrate_plain_rows_avx2(w, rows, l->plain, l->np, hg);
		k = l->np;
	}
#else
	(void)kernel;
#endif
	for (; k < l->np; ++k) {
		integrate_plain_row(w, rows[l->plain[k]], hg);
	}
	for (k = 0; k < l->ng; ++k) {
		int32_t i = l->general[k];
		int64_t *r = rows[i];
		vel3 v = integrate_velocity(w, &w->bodies[i], hg,
		                            (vel3){(fix16_t)r[0], (fix16_t)r[1], (fix16_t)r[2]});
		r[0] = v.x;
		r[1] = v.y;
		r[2] = v.w;
	}
}

/* integrate_velocities over the lists, on the bodies (a step with joints, whose velocities
 * live in the bodies): the same operations as integrate_velocities' on each body (whose
 * velocity is its own; the saturation flag is only ever set), without its tests per id. plain
 * false: as integrate_velocities_lists. */
void f2d_integrate_velocities_bodies_lists(f2d_world *w, const body_lists *l, bool plain)
{
	f2d_vec2 hg = f2d_v(f2d_mul(w->h, w->gravity.x), f2d_mul(w->h, w->gravity.y));
	for (int32_t k = 0; k < l->np && plain; ++k) {
		f2d_body *b = &w->bodies[l->plain[k]];
		b->v.x = f2d_sat_flag((int64_t)b->v.x + hg.x, &w->saturated);
		b->v.y = f2d_sat_flag((int64_t)b->v.y + hg.y, &w->saturated);
	}
	for (int32_t k = 0; k < l->ng; ++k) {
		f2d_body *b = &w->bodies[l->general[k]];
		vel3 v = integrate_velocity(w, b, hg, (vel3){b->v.x, b->v.y, b->w});
		b->v = f2d_v(v.x, v.y);
		b->w = v.w;
	}
}

/* integrate_positions_soft on the rows over the moving bodies, in id order (f2d_stop_at_edge
 * keeps the last body it stopped); the origins only in the step's last substep (origins):
 * nothing reads them during the substeps of a step without joints (the contact passes read
 * the rows and the displacement rows only, and the last relax pass changes no centre or
 * rotation), and an origin is a function of the final centre and rotation alone (the
 * expression of integrate_position's set_origin; before, a pass over the moving bodies after
 * the substeps, origins_lists, computed it). */
bool f2d_integrate_positions_lists(f2d_world *w, fix16_t max_translation, fix16_t max_rotation,
                                   int64_t (*rows)[4], int64_t (*disp)[4], const body_lists *l,
                                   int kernel, bool origins)
{
	int64_t max_t = max_translation;
	int64_t max_t2 = max_t * max_t;
	fix16_t max_r = max_rotation;
	const fix16_t h = w->h; /* locals: the body stores could alias w's fields */
	f2d_body *bodies = w->bodies;
	int32_t k = 0;
#if F2D_INTEGRATE_SIMD
	if (kernel == F2D_KERNEL_AVX512) {
		k = integrate_positions_avx512(w, rows, disp, l->moving, l->nm, h, max_t, max_t2,
		                               max_r, origins);
	} else if (kernel != F2D_KERNEL_SCALAR) {
		k = integrate_positions_avx2(w, rows, disp, l->moving, l->nm, h, max_t, max_t2,
		                             max_r, origins);
	}
#else
	(void)kernel;
#endif
	for (; k < l->nm; ++k) {
		int32_t i = l->moving[k];
		integrate_position_list(w, &bodies[i], rows[i], disp[i], h, max_t, max_t2, max_r,
		                        origins);
	}
	return w->stopped_at_edge;
}

/* integrate_positions_soft on the bodies (a step with joints, which read the bodies' positions
 * between the substeps: the origins too) over the moving bodies, in id order */
bool f2d_integrate_positions_bodies_lists(f2d_world *w, fix16_t max_translation,
                                          fix16_t max_rotation, int64_t (*disp)[4],
                                          const body_lists *l, int kernel)
{
	int64_t max_t = max_translation;
	int64_t max_t2 = max_t * max_t;
	fix16_t max_r = max_rotation;
	int32_t k = 0;
#if F2D_INTEGRATE_SIMD
	if (kernel != F2D_KERNEL_SCALAR) { /* 4 at a time, rows NULL: the bodies */
		k = integrate_positions_avx2(w, NULL, disp, l->moving, l->nm, w->h, max_t, max_t2,
		                             max_r, true);
	}
#else
	(void)kernel;
#endif
	for (; k < l->nm; ++k) {
		int32_t i = l->moving[k];
		integrate_position_body(w, &w->bodies[i], disp[i], max_t, max_t2, max_r);
	}
	return w->stopped_at_edge;
}

/* cap_speeds_soft over the moving bodies (no body reads another: any order) */
void f2d_cap_speeds_lists(f2d_world *w, int64_t max_t, fix16_t max_r, const body_lists *l)
{
	int64_t max_t2 = max_t * max_t;
	for (int32_t k = 0; k < l->nm; ++k) {
		cap_speed_soft(w, &w->bodies[l->moving[k]], max_t, max_t2, max_r);
	}
}
