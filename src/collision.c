/* fix2d narrow phase: polygon-polygon (SAT + reference/incident clipping), circle-polygon,
 * circle-circle. Each produces at most two points with separation, a shared normal from shape A
 * to shape B, and a feature id that names the edges/vertices that made the point, so the next
 * step can match it and warm start (seed 000: Catto, GDC 2006; seed 002).
 * SPDX-License-Identifier: MIT
 */
#include "box_world_avx2.h" /* BOX_TAG, and box_world_avx2 (shared with broadphase.c) */
#include "clip.h"

/* Feature ids (uint32):
 *   polygon-polygon: bit 15 flip (B is the reference), bits 8..11 reference edge,
 *                    bits 4..7 incident edge, bit 0: which end of the incident edge the point
 *                    comes from (the vertex itself or its clipped replacement).
 *   circle-polygon:  bit 16 set, bits 0..3 polygon feature, bit 4: 0 face, 1 vertex.
 *   circle-circle:   0. */
#define ID_CIRCLE_POLY 0x10000u

/* collide_boxes is inlined into its scalar and AVX2 versions (a function of another target can
 * take it only inlined) */
#if F2D_X86_SIMD
#define F2D_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define F2D_ALWAYS_INLINE inline
#endif

/* v[2] = -v[0] and v[3] = -v[1] (a box centred on the origin, or its normals) */
static inline bool antipodal4(const f2d_vec2 *v)
{
	return v[2].x == -v[0].x && v[2].y == -v[0].y && v[3].x == -v[1].x && v[3].y == -v[1].y;
}

#if F2D_X86_SIMD
__attribute__((target("avx2"))) bool f2d_box_world_avx2(f2d_shape *s, f2d_transform xf,
                                                       fix16_t margin)
{
	__m128i lu;
	if (box_world_avx2(s, xf, margin, &lu)) {
		_mm_storeu_si128((__m128i *)(void *)&s->aabb, lu); /* lower, upper */
		return true;
	}
	return false;
}
#endif

void f2d_shape_update_world_kernel(f2d_shape *s, f2d_transform xf, fix16_t margin, int kernel)
{
	(void)kernel; /* used by the box branch where SIMD is compiled */
#if F2D_X86_SIMD
	/* a box about its body origin first (the common shape): the box branch below, in AVX2
	 * (a 4-gon it does not take goes on to the general branch below) */
	if (kernel != F2D_KERNEL_SCALAR && f2d_box_world_avx2(s, xf, margin)) {
		return;
	}
#endif
	if (f2d_shape_is_linear(s)) {
		f2d_linear_update_world(s, xf, margin); /* shapes.c */
		return;
	}
	if (s->type == F2D_CIRCLE_SHAPE) {
		f2d_vec2 c = f2d_xf_point(xf, s->circle.center);
		fix16_t r = s->circle.radius + margin;
		s->world_center = c;
		s->aabb.lower = f2d_v(c.x - r, c.y - r);
		s->aabb.upper = f2d_v(c.x + r, c.y + r);
		return;
	}
	const f2d_polygon *p = &s->polygon;
	f2d_polygon *wp = &s->world_polygon;
	wp->count = p->count;
	if (p->count == 4 && antipodal4(p->vertices) && antipodal4(p->normals)) {
		/* a box about the body origin: rotate(q, -v) = -rotate(q, v) exactly (round16 is
		 * odd), so the opposite vertices and normals come from two rotations each, and the
		 * vertices p +- r0, p +- r1 span p -+ max(|r0|, |r1|) on each axis */
		f2d_vec2 r0 = f2d_rotate(xf.q, p->vertices[0]),
		         r1 = f2d_rotate(xf.q, p->vertices[1]);
		f2d_vec2 n0 = f2d_rotate(xf.q, p->normals[0]), n1 = f2d_rotate(xf.q, p->normals[1]);
		wp->vertices[0] = f2d_add(r0, xf.p);
		wp->vertices[1] = f2d_add(r1, xf.p);
		wp->vertices[2] = f2d_sub(xf.p, r0);
		wp->vertices[3] = f2d_sub(xf.p, r1);
		wp->normals[0] = n0;
		wp->normals[1] = n1;
		wp->normals[2] = f2d_neg(n0);
		wp->normals[3] = f2d_neg(n1);
		/* the box form for collide_boxes (box_of), in slots a 4-gon does not use */
		wp->vertices[4] = xf.p;
		wp->vertices[5] = r0;
		wp->vertices[6] = r1;
		wp->normals[4] = f2d_v(BOX_TAG, BOX_TAG);
		fix16_t ex = f2d_max(f2d_abs(r0.x), f2d_abs(r1.x)) + margin;
		fix16_t ey = f2d_max(f2d_abs(r0.y), f2d_abs(r1.y)) + margin;
		s->aabb.lower = f2d_v(xf.p.x - ex, xf.p.y - ey);
		s->aabb.upper = f2d_v(xf.p.x + ex, xf.p.y + ey);
		return;
	}
	if (p->count <= 4) {
		wp->normals[4] = f2d_v(0, 0); /* no box form (box_of reads only this slot) */
	}
	f2d_vec2 lo = {INT32_MAX, INT32_MAX}, hi = {-INT32_MAX, -INT32_MAX};
	for (int32_t i = 0; i < p->count; ++i) {
		f2d_vec2 v = f2d_xf_point(xf, p->vertices[i]);
		wp->vertices[i] = v;
		wp->normals[i] = f2d_rotate(xf.q, p->normals[i]);
		lo.x = f2d_min(lo.x, v.x);
		lo.y = f2d_min(lo.y, v.y);
		hi.x = f2d_max(hi.x, v.x);
		hi.y = f2d_max(hi.y, v.y);
	}
	s->aabb.lower = f2d_v(lo.x - margin, lo.y - margin);
	s->aabb.upper = f2d_v(hi.x + margin, hi.y + margin);
}

/* Largest separation of p2 from the edges of p1 (both in world coordinates):
 * s_i = min_j n1_i . (v2_j - v1_i); returns max_i s_i and its edge (the first one on ties).
 * The minimum is found on exact 64-bit dot products and rounded once. */
F2D_NOINLINE static fix16_t find_max_separation_any(int32_t *edge, const f2d_polygon *p1,
                                                    const f2d_polygon *p2)
{
	int32_t best = 0;
	int64_t best_sep = INT64_MIN;
	for (int32_t i = 0; i < p1->count; ++i) {
		f2d_vec2 n = p1->normals[i];
		int64_t si = INT64_MAX;
		for (int32_t j = 0; j < p2->count; ++j) {
			int64_t d = f2d_dot64(n, p2->vertices[j]);
			si = d < si ? d : si;
		}
		si -= f2d_dot64(n, p1->vertices[i]);
		if (si > best_sep) {
			best_sep = si;
			best = i;
		}
	}
	*edge = best;
	return f2d_sat(f2d_round16(best_sep));
}

/* min_j and max_j of n . v_j over the four vertices v of p, exact. */
static inline void dot_range4(f2d_vec2 n, const f2d_polygon *p, int64_t *lo, int64_t *hi)
{
	int64_t d0 = f2d_dot64(n, p->vertices[0]), d1 = f2d_dot64(n, p->vertices[1]);
	int64_t d2 = f2d_dot64(n, p->vertices[2]), d3 = f2d_dot64(n, p->vertices[3]);
	int64_t l01 = d0 < d1 ? d0 : d1, l23 = d2 < d3 ? d2 : d3;
	int64_t h01 = d0 > d1 ? d0 : d1, h23 = d2 > d3 ? d2 : d3;
	*lo = l01 < l23 ? l01 : l23;
	*hi = h01 > h23 ? h01 : h23;
}

/* find_max_separation_any for two quadrilaterals where p1's opposite normals are exact
 * negatives (n2 = -n0, n3 = -n1: every box, as the world normals are rotated with an odd
 * rounding). Then min_j n2 . v_j = -max_j n0 . v_j exactly, so the 16 products of the four
 * edges come from 8, and the loops are unrolled. Same values, same first-maximum edge. */
static inline fix16_t find_max_separation_box(int32_t *edge, const f2d_polygon *p1,
                                              const f2d_polygon *p2)
{
	int64_t lo0, hi0, lo1, hi1;
	dot_range4(p1->normals[0], p2, &lo0, &hi0);
	dot_range4(p1->normals[1], p2, &lo1, &hi1);
	int64_t s[4];
	s[0] = lo0 - f2d_dot64(p1->normals[0], p1->vertices[0]);
	s[1] = lo1 - f2d_dot64(p1->normals[1], p1->vertices[1]);
	s[2] = -hi0 - f2d_dot64(p1->normals[2], p1->vertices[2]);
	s[3] = -hi1 - f2d_dot64(p1->normals[3], p1->vertices[3]);
	int32_t best = 0;
	for (int32_t i = 1; i < 4; ++i) {
		best = s[i] > s[best] ? i : best;
	}
	*edge = best;
	return f2d_sat(f2d_round16(s[best]));
}

static inline fix16_t find_max_separation(int32_t *edge, const f2d_polygon *p1,
                                          const f2d_polygon *p2)
{
	const f2d_vec2 *n = p1->normals;
	if (p1->count == 4 && p2->count == 4 && n[2].x == -n[0].x && n[2].y == -n[0].y &&
	    n[3].x == -n[1].x && n[3].y == -n[1].y) {
		return find_max_separation_box(edge, p1, p2);
	}
	return find_max_separation_any(edge, p1, p2);
}

/* The manifold from the clipped incident points c[2] against the reference face (normal n1
 * from p1, through v11): the points within the speculative distance, each at the midpoint
 * between the incident point and its projection on the face. */
static inline void emit_points(f2d_manifold *m, const clip_vertex c[2], f2d_vec2 n1, f2d_vec2 v11,
                               bool flip, fix16_t speculative)
{
	m->normal = flip ? f2d_neg(n1) : n1;
	int32_t count = 0;
	for (int32_t i = 0; i < 2; ++i) {
		fix16_t sep = f2d_dot(n1, f2d_sub(c[i].v, v11));
		if (sep <= speculative) {
			/* sep / 2 (toward zero) without a division instruction */
			fix16_t half = (fix16_t)(((int64_t)sep + (sep < 0 ? 1 : 0)) >> 1);
			m->points[count].point = f2d_mul_sub(c[i].v, half, n1);
			m->points[count].separation = sep;
			m->points[count].id = c[i].id;
			++count;
		}
	}
	m->count = count;
}

/* Prefer A's face unless B's is clearly better: a relative tolerance (0.98) plus an absolute
 * one (0.001 m) keeps the reference face from flip-flopping between two nearly equal axes,
 * which would reset the contact ids and the warm start. */
static inline bool flip_reference(fix16_t sep_a, fix16_t sep_b)
{
	return sep_b > f2d_mul(F2D_MILLI(980), sep_a) + F2D_MILLI(1);
}

static void collide_polygons(const f2d_polygon *pa, const f2d_polygon *pb, fix16_t speculative,
                             f2d_manifold *m)
{
	int32_t edge_a, edge_b;
	fix16_t sep_a = find_max_separation(&edge_a, pa, pb);
	if (sep_a > speculative) {
		return;
	}
	fix16_t sep_b = find_max_separation(&edge_b, pb, pa);
	if (sep_b > speculative) {
		return;
	}
	const f2d_polygon *p1, *p2;
	int32_t edge1;
	bool flip = flip_reference(sep_a, sep_b);
	if (flip) {
		p1 = pb, p2 = pa, edge1 = edge_b;
	} else {
		p1 = pa, p2 = pb, edge1 = edge_a;
	}
	f2d_vec2 n1 = p1->normals[edge1];

	/* Incident edge: the edge of p2 whose normal is most anti-parallel to n1. */
	int32_t edge2 = 0;
	fix16_t min_dot = INT32_MAX;
	for (int32_t i = 0; i < p2->count; ++i) {
		fix16_t d = f2d_dot(n1, p2->normals[i]);
		if (d < min_dot) {
			min_dot = d;
			edge2 = i;
		}
	}
	int32_t i22 = edge2 + 1 < p2->count ? edge2 + 1 : 0;
	uint32_t base = (flip ? ID_FLIP : 0u) | ((uint32_t)edge1 << 8) | ((uint32_t)edge2 << 4);
	clip_vertex inc[2];
	inc[0].v = p2->vertices[edge2];
	inc[0].id = base | 0u;
	inc[1].v = p2->vertices[i22];
	inc[1].id = base | 1u;

	int32_t i12 = edge1 + 1 < p1->count ? edge1 + 1 : 0;
	f2d_vec2 v11 = p1->vertices[edge1];
	f2d_vec2 v12 = p1->vertices[i12];
	f2d_vec2 tangent = f2d_left_perp(n1); /* along v11 -> v12 */

	/* Side planes: dot(t, v) >= dot(t, v11) and dot(t, v) <= dot(t, v12). */
	clip_vertex c1[2], c2[2];
	if (clip_segment(c1, inc, f2d_neg(tangent), -f2d_dot(tangent, v11)) < 2) {
		return;
	}
	if (clip_segment(c2, c1, tangent, f2d_dot(tangent, v12)) < 2) {
		return;
	}
	emit_points(m, c2, n1, v11, flip, speculative);
}

#ifndef F2D_COLLIDE_GENERAL_ONLY /* test only: tests/test_narrow.c's reference */
/* ---- box against box: the common case, from fewer products ----
 *
 * f2d_shape_update_world makes the world polygon of a box centred on its body origin as p + r0,
 * p + r1, p - r0, p - r1 (exactly: rotate is odd) with normals n0, n1, -n0, -n1, and keeps p,
 * r0 and r1 in slots 4..6 of the world vertices (box_of). For a normal n of box A and the
 * vertices of box B:
 *   min_j n . vB_j = n . pB - max(|n . rB0|, |n . rB1|),   n_k . vA_k = n_k . pA + n_k . rA_k,
 *   n_(k+2) . vA_(k+2) = -n_k . pA + n_k . rA_k
 * so with c = n_k . (pB - pA) and e = max(|n_k . rB0|, |n_k . rB1|) + n_k . rA_k, SAT's
 * separations of edges k and k + 2 are c - e and -c - e. These are the exact 64-bit values
 * find_max_separation computes, from 8 products per box instead of 12, and the same first
 * maximum is taken, so the edge, the separation and every later step are the same bits.
 * Magnitudes: |n| <= 2^17, |pB - pA| < 2^31, |r| < 2^26 (vertices within 512 m of their body
 * origin, bodies within 8192 m), so every sum is below 2^50. */

/* The box form a world polygon carries, or NULL: [0] = p, [1] = r0, [2] = r1. The tag alone
 * decides: f2d_shape_update_world writes normals[4] of every polygon, the tag for a box, zero
 * for any other 4-gon or fewer, a unit normal (|x|, |y| <= 1 << 16, never the tag) from 5
 * vertices up; so the count, in the shape's third cache line, is not read (core.h). */
static inline const f2d_vec2 *box_of(const f2d_polygon *p)
{
	return p->normals[4].x == BOX_TAG && p->normals[4].y == BOX_TAG ? &p->vertices[4] : NULL;
}

/* SAT's separations of the four edges of p1 (form f1) against box f2, (dx, dy) = p of 2 - p of
 * 1, exact: s[k] = c - e and s[k + 2] = -c - e for k = 0, 1 (see above). */
static inline void box_separations(int64_t s[4], const f2d_polygon *p1, const f2d_vec2 *f1,
                                   const f2d_vec2 *f2, int64_t dx, int64_t dy)
{
	for (int32_t k = 0; k < 2; ++k) {
		f2d_vec2 n = p1->normals[k];
		int64_t c = n.x * dx + n.y * dy;
		int64_t e0 = f2d_abs64(f2d_dot64(n, f2[1])), e1 = f2d_abs64(f2d_dot64(n, f2[2]));
		int64_t e = (e0 > e1 ? e0 : e1) + f2d_dot64(n, f1[1 + k]);
		s[k] = c - e;
		s[k + 2] = -c - e;
	}
}

/* find_max_separation's result from the four separations: the first maximum, rounded once.
 * As a tournament (0 against 1, 2 against 3, then the winners, each won by the lower index on a
 * tie) it is the same index as the scan, in selects the compiler makes branch-free (the scan's
 * data-dependent branches mispredicted). */
static inline fix16_t box_best(int32_t *edge, const int64_t s[4])
{
	bool up01 = s[1] > s[0], up23 = s[3] > s[2];
	int64_t v01 = up01 ? s[1] : s[0], v23 = up23 ? s[3] : s[2];
	bool up = v23 > v01;
	*edge = up ? 2 + (int32_t)up23 : (int32_t)up01;
	return f2d_sat(f2d_round16(up ? v23 : v01));
}

#if F2D_X86_SIMD
/* box_separations of A against B and of B against A at once, and box_best of each (separation
 * and edge, A's then B's), AVX2: the 16
 * dot products are four vectors of four, one 64-bit lane per normal (A's n0, n1, B's n0, n1).
 * A lane holds a vector's (x, y) as two int32; _mm256_mul_epi32 multiplies the low (x) halves
 * to their exact 64-bit product, and a 32-bit right shift brings the y halves down, so each
 * lane's dot is the exact sum f2d_dot64 computes. |abs| and max of these (below 2^50) are
 * exact too: the same integers as box_separations, whatever the CPU (tests/test_narrow.c
 * compares the two paths). Needs |dx|, |dy| <= INT32_MAX (c's operand is a lane's int32). */
__attribute__((target("avx2"))) static inline void
box_sat_avx2(const f2d_polygon *pa, const f2d_vec2 *fa, const f2d_polygon *pb, const f2d_vec2 *fb,
             int32_t dx, int32_t dy, fix16_t *sep_a, int32_t *edge_a, fix16_t *sep_b,
             int32_t *edge_b)
{
	/* normals: A's n0 n1, B's n0 n1; r: rA0 rA1 rB0 rB1 (forms' slots 1, 2) */
	__m256i n = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)pa->normals)),
	    _mm_loadu_si128((const __m128i *)(const void *)pb->normals), 1);
	__m256i r = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)&fa[1])),
	    _mm_loadu_si128((const __m128i *)(const void *)&fb[1]), 1);
	/* the offsets: (dx, dy) for A's normals, (-dx, -dy) for B's */
	__m256i d = _mm256_set_epi32(-dy, -dx, -dy, -dx, dy, dx, dy, dx);
	__m256i r0 = _mm256_permute4x64_epi64(r, _MM_SHUFFLE(0, 0, 2, 2)); /* rB0 rB0 rA0 rA0 */
	__m256i r1 = _mm256_permute4x64_epi64(r, _MM_SHUFFLE(1, 1, 3, 3)); /* rB1 rB1 rA1 rA1 */
	__m256i ny = _mm256_srli_epi64(n, 32);
	__m256i c = _mm256_add_epi64(_mm256_mul_epi32(n, d),
	                             _mm256_mul_epi32(ny, _mm256_srli_epi64(d, 32)));
	__m256i f = _mm256_add_epi64(_mm256_mul_epi32(n, r),
	                             _mm256_mul_epi32(ny, _mm256_srli_epi64(r, 32)));
	__m256i e0 = _mm256_add_epi64(_mm256_mul_epi32(n, r0),
	                              _mm256_mul_epi32(ny, _mm256_srli_epi64(r0, 32)));
	__m256i e1 = _mm256_add_epi64(_mm256_mul_epi32(n, r1),
	                              _mm256_mul_epi32(ny, _mm256_srli_epi64(r1, 32)));
	__m256i zero = _mm256_setzero_si256();
	__m256i m0 = _mm256_cmpgt_epi64(zero, e0), m1 = _mm256_cmpgt_epi64(zero, e1);
	e0 = _mm256_sub_epi64(_mm256_xor_si256(e0, m0), m0); /* |e0| */
	e1 = _mm256_sub_epi64(_mm256_xor_si256(e1, m1), m1);
	__m256i e = _mm256_add_epi64(_mm256_blendv_epi8(e1, e0, _mm256_cmpgt_epi64(e0, e1)), f);
	__m256i lo = _mm256_sub_epi64(c, e);                          /* s[k] */
	__m256i hi = _mm256_sub_epi64(_mm256_sub_epi64(zero, c), e); /* s[k + 2] */
	/* box_best of A (lanes 0, 1 of lo and hi) and of B (lanes 2, 3) in the registers (the
	 * separations stored and read back as scalars waited on the stores): the tournament's
	 * first round takes s[0] against s[1] and s[2] against s[3] (X = s0 s2, Y = s1 s3 per
	 * box, Y > X: up01, up23), the second the winners (v23 > v01: up), as box_best */
	__m256i x = _mm256_unpacklo_epi64(lo, hi), y = _mm256_unpackhi_epi64(lo, hi);
	__m256i up1 = _mm256_cmpgt_epi64(y, x);
	__m256i v = _mm256_blendv_epi8(x, y, up1);                     /* v01 v23 per box */
	__m256i vs = _mm256_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)); /* v23 v01 per box */
	__m256i up2 = _mm256_cmpgt_epi64(vs, v);
	__m256i best = _mm256_blendv_epi8(v, vs, up2); /* lane 0: A's, lane 2: B's */
	int32_t k1 = _mm256_movemask_pd(_mm256_castsi256_pd(up1)); /* up01, up23 of A, of B */
	int32_t k2 = _mm256_movemask_pd(_mm256_castsi256_pd(up2)); /* bit 0: A's up, 2: B's */
	int32_t ua = k2 & 1, ub = (k2 >> 2) & 1;
	/* up ? 2 + up23 : up01 */
	*edge_a = (ua << 1) | ((k1 >> ua) & 1);
	*edge_b = (ub << 1) | ((k1 >> (2 + ub)) & 1);
	*sep_a = f2d_sat(f2d_round16(_mm_cvtsi128_si64(_mm256_castsi256_si128(best))));
	*sep_b = f2d_sat(f2d_round16(_mm_cvtsi128_si64(_mm256_extracti128_si256(best, 1))));
}
#endif

/* clip_segment's cut for one side plane of a box pair: the distances x0, x1 of the ends (not
 * both > 0); the end with x_i > 0, if any, becomes cut_point(c0, c1, x0, x1) and t_i its tangent
 * dot, the values clip_segment gives. Branches: a cut made always and kept by a select costs a
 * second division per pair, which was slower (the 100-row pyramid's step x1.08, paired wall
 * clock) than the mispredictions of these branches. */
static inline void box_clip_end(f2d_vec2 *c0, f2d_vec2 *c1, fix16_t *t0, fix16_t *t1, fix16_t x0,
                                fix16_t x1, f2d_vec2 tangent)
{
	if (x0 > 0) {
		*c0 = cut_point(*c0, *c1, x0, x1);
		*t0 = f2d_dot(tangent, *c0);
	} else if (x1 > 0) {
		*c1 = cut_point(*c0, *c1, x0, x1);
		*t1 = f2d_dot(tangent, *c1);
	}
}

/* emit_points for the ends c0 (id base | 0) and c1 (base | 1), without branches: both points
 * are made; c0's is written at index 0, c1's at index [c0 kept] (over c0's when c0 is not
 * kept), and count is the number kept: the same first count points. */
static inline void box_emit_points(f2d_manifold *m, f2d_vec2 c0, f2d_vec2 c1, uint32_t base,
                                   f2d_vec2 n1, f2d_vec2 v11, bool flip, fix16_t speculative)
{
	m->normal = flip ? f2d_neg(n1) : n1;
	fix16_t s0 = f2d_dot(n1, f2d_sub(c0, v11)), s1 = f2d_dot(n1, f2d_sub(c1, v11));
	/* sep / 2 (toward zero) without a division instruction */
	fix16_t h0 = (fix16_t)(((int64_t)s0 + (s0 < 0 ? 1 : 0)) >> 1);
	fix16_t h1 = (fix16_t)(((int64_t)s1 + (s1 < 0 ? 1 : 0)) >> 1);
	int32_t k0 = s0 <= speculative ? 1 : 0, k1 = s1 <= speculative ? 1 : 0;
	m->points[0].point = f2d_mul_sub(c0, h0, n1);
	m->points[0].separation = s0;
	m->points[0].id = base;
	m->points[k0].point = f2d_mul_sub(c1, h1, n1);
	m->points[k0].separation = s1;
	m->points[k0].id = base | 1u;
	m->count = k0 + k1;
}

/* collide_polygons for two boxes: the separations as above; the incident edge from two
 * dots (p2's opposite normals are exact negatives and f2d_dot is odd, so the four dots are d0,
 * d1, -d0, -d1: the same first minimum); the clipping with the tangent dots of the incident
 * points taken once (clip_segment computes each twice: the second plane's dot of a point the
 * first plane kept is the same value). */
static F2D_ALWAYS_INLINE void collide_boxes(const f2d_polygon *pa, const f2d_vec2 *fa,
                                            const f2d_polygon *pb, const f2d_vec2 *fb,
                                            fix16_t speculative, f2d_manifold *m, bool simd)
{
	int64_t dx = (int64_t)fb[0].x - fa[0].x, dy = (int64_t)fb[0].y - fa[0].y;
	/* set by box_sat_avx2 or by box_best below (initialised for the compilers that cannot
	 * see that each path sets them before their use) */
	int32_t edge_a = 0, edge_b = 0;
	fix16_t sep_a = 0, sep_b = 0;
	int64_t s[4];
	bool both = false;
#if F2D_X86_SIMD
	if (simd && dx >= -INT32_MAX && dx <= INT32_MAX && dy >= -INT32_MAX && dy <= INT32_MAX) {
		box_sat_avx2(pa, fa, pb, fb, (int32_t)dx, (int32_t)dy, &sep_a, &edge_a, &sep_b,
		             &edge_b);
		both = true;
	}
#else
	(void)simd;
#endif
	if (!both) {
		box_separations(s, pa, fa, fb, dx, dy);
		sep_a = box_best(&edge_a, s);
	}
	if (sep_a > speculative) {
		return;
	}
	if (!both) {
		box_separations(s, pb, fb, fa, -dx, -dy);
		sep_b = box_best(&edge_b, s);
	}
	if (sep_b > speculative) {
		return;
	}
	bool flip = flip_reference(sep_a, sep_b);
	const f2d_polygon *p1 = flip ? pb : pa, *p2 = flip ? pa : pb;
	int32_t edge1 = flip ? edge_b : edge_a;
	f2d_vec2 n1 = p1->normals[edge1];

	/* the first minimum of d0, d1, -d0, -d1 (d = n1 . p2's normals 0, 1), as box_best's
	 * tournament */
	fix16_t d0 = f2d_dot(n1, p2->normals[0]), d1 = f2d_dot(n1, p2->normals[1]);
	bool dn01 = d1 < d0, dn23 = -d1 < -d0;
	fix16_t m01 = dn01 ? d1 : d0, m23 = dn23 ? -d1 : -d0;
	int32_t edge2 = m23 < m01 ? 2 + (int32_t)dn23 : (int32_t)dn01;
	uint32_t base = (flip ? ID_FLIP : 0u) | ((uint32_t)edge1 << 8) | ((uint32_t)edge2 << 4);
	/* the incident edge's ends in locals (an array went through memory, and a point written
	 * as two int32 and read back as one 64-bit vector missed the store forwarding) */
	f2d_vec2 c0 = p2->vertices[edge2], c1 = p2->vertices[(edge2 + 1) & 3];

	f2d_vec2 v11 = p1->vertices[edge1];
	f2d_vec2 tangent = f2d_left_perp(n1); /* along v11 -> v12 */
	fix16_t lo = f2d_dot(tangent, v11), hi = f2d_dot(tangent, p1->vertices[(edge1 + 1) & 3]);
	fix16_t t0 = f2d_dot(tangent, c0), t1 = f2d_dot(tangent, c1);
	/* keep dot(t, v) >= lo (clip_segment's distances for the plane (-t, -lo) are lo - t_i) */
	fix16_t x0 = lo - t0, x1 = lo - t1;
	if (x0 > 0 && x1 > 0) {
		return;
	}
	box_clip_end(&c0, &c1, &t0, &t1, x0, x1, tangent);
	/* keep dot(t, v) <= hi */
	x0 = t0 - hi;
	x1 = t1 - hi;
	if (x0 > 0 && x1 > 0) {
		return;
	}
	box_clip_end(&c0, &c1, &t0, &t1, x0, x1, tangent);
	box_emit_points(m, c0, c1, base, n1, v11, flip, speculative);
}

/* collide_boxes as two functions: the scalar one, and one compiled for AVX2 (the separations
 * inlined; every other operation is integer, the same results). */
F2D_NOINLINE static void collide_boxes_scalar(const f2d_polygon *pa, const f2d_vec2 *fa,
                                              const f2d_polygon *pb, const f2d_vec2 *fb,
                                              fix16_t speculative, f2d_manifold *m)
{
	collide_boxes(pa, fa, pb, fb, speculative, m, false);
}

#if F2D_X86_SIMD
__attribute__((target("avx2"))) F2D_NOINLINE static void
collide_boxes_avx2(const f2d_polygon *pa, const f2d_vec2 *fa, const f2d_polygon *pb,
                   const f2d_vec2 *fb, fix16_t speculative, f2d_manifold *m)
{
	collide_boxes(pa, fa, pb, fb, speculative, m, true);
}
#endif

#endif

/* Circle (centre c, radius r, in world) against polygon p: normal from the polygon to the
 * circle. */
static void collide_polygon_circle(const f2d_polygon *p, f2d_vec2 c, fix16_t r, fix16_t speculative,
                                   f2d_manifold *m)
{
	int32_t face = 0;
	fix16_t s = -INT32_MAX;
	for (int32_t i = 0; i < p->count; ++i) {
		fix16_t si = f2d_dot(p->normals[i], f2d_sub(c, p->vertices[i]));
		if (si > s) {
			s = si;
			face = i;
		}
	}
	if (s - r > speculative) {
		return;
	}
	int32_t i1 = face, i2 = face + 1 < p->count ? face + 1 : 0;
	f2d_vec2 v1 = p->vertices[i1], v2 = p->vertices[i2];
	f2d_vec2 normal, on_poly;
	fix16_t sep;
	uint32_t id;
	/* Voronoi regions: beyond v1 or v2 along the edge the closest feature is that vertex
	 * (only the sign of the projections matters: exact 64-bit dots). */
	int64_t u1 = f2d_dot64(f2d_sub(c, v1), f2d_sub(v2, v1));
	int64_t u2 = f2d_dot64(f2d_sub(c, v2), f2d_sub(v1, v2));
	if (s > 0 && (u1 <= 0 || u2 <= 0)) {
		f2d_vec2 v = u1 <= 0 ? v1 : v2;
		fix16_t dist;
		normal = f2d_normalize(f2d_sub(c, v), &dist);
		sep = dist - r;
		if (sep > speculative || dist == 0) {
			return;
		}
		on_poly = v;
		id = ID_CIRCLE_POLY | 0x10u | (uint32_t)(u1 <= 0 ? i1 : i2);
	} else {
		normal = p->normals[face];
		sep = s - r;
		on_poly = f2d_mul_sub(c, s, normal);
		id = ID_CIRCLE_POLY | (uint32_t)face;
	}
	f2d_vec2 on_circle = f2d_mul_sub(c, r, normal);
	f2d_vec2 mid = f2d_v((fix16_t)(((int64_t)on_poly.x + on_circle.x) / 2),
	                     (fix16_t)(((int64_t)on_poly.y + on_circle.y) / 2));
	m->normal = normal;
	m->count = 1;
	m->points[0].point = mid;
	m->points[0].separation = sep;
	m->points[0].id = id;
}

static void collide_circles(f2d_vec2 ca, fix16_t ra, f2d_vec2 cb, fix16_t rb, fix16_t speculative,
                            f2d_manifold *m)
{
	fix16_t dist;
	f2d_vec2 n = f2d_normalize(f2d_sub(cb, ca), &dist);
	fix16_t sep = dist - ra - rb;
	if (sep > speculative) {
		return;
	}
	if (dist == 0) {
		n = f2d_v(0, F2D_ONE);
	}
	f2d_vec2 pa = f2d_mul_add(ca, ra, n);
	f2d_vec2 pb = f2d_mul_sub(cb, rb, n);
	m->normal = n;
	m->count = 1;
	m->points[0].point =
	    f2d_v((fix16_t)(((int64_t)pa.x + pb.x) / 2), (fix16_t)(((int64_t)pa.y + pb.y) / 2));
	m->points[0].separation = sep;
	m->points[0].id = 0;
}

void f2d_collide_kernel(const f2d_shape *a, const f2d_shape *b, fix16_t speculative,
                        f2d_manifold *m, int kernel)
{
	(void)kernel; /* used by the box path where SIMD is compiled */
	m->count = 0;
	m->normal = f2d_v(0, 0);
	if (f2d_shape_is_linear(a) || f2d_shape_is_linear(b)) {
		f2d_collide_linear(a, b, speculative, m); /* shapes.c */
		return;
	}
	if (a->type == F2D_POLYGON_SHAPE && b->type == F2D_POLYGON_SHAPE) {
#ifndef F2D_COLLIDE_GENERAL_ONLY /* test only: tests/test_narrow.c's reference */
		const f2d_vec2 *fa = box_of(&a->world_polygon), *fb = box_of(&b->world_polygon);
		if (fa != NULL && fb != NULL) {
#if F2D_X86_SIMD
			if (kernel != F2D_KERNEL_SCALAR) {
				collide_boxes_avx2(&a->world_polygon, fa, &b->world_polygon, fb,
				                   speculative, m);
				return;
			}
#endif
			collide_boxes_scalar(&a->world_polygon, fa, &b->world_polygon, fb,
			                     speculative, m);
			return;
		}
#endif
		collide_polygons(&a->world_polygon, &b->world_polygon, speculative, m);
	} else if (a->type == F2D_POLYGON_SHAPE) {
		collide_polygon_circle(&a->world_polygon, b->world_center, b->circle.radius,
		                       speculative, m);
	} else if (b->type == F2D_POLYGON_SHAPE) {
		collide_polygon_circle(&b->world_polygon, a->world_center, a->circle.radius,
		                       speculative, m);
		m->normal = f2d_neg(m->normal); /* from A (the circle) to B */
	} else {
		collide_circles(a->world_center, a->circle.radius, b->world_center,
		                b->circle.radius, speculative, m);
	}
}

void f2d_collide(const f2d_shape *a, const f2d_shape *b, fix16_t speculative, f2d_manifold *m)
{
	f2d_collide_kernel(a, b, speculative, m, f2d_kernel_level());
}

void f2d_shape_update_world(f2d_shape *s, f2d_transform xf, fix16_t margin)
{
	f2d_shape_update_world_kernel(s, xf, margin, f2d_kernel_level());
}
