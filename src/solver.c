/* fix2d contact solver: the contact part of the sequential-impulse solver (seed 000,
 * Box2D-lite's Arbiter::PreStep / ApplyImpulse), on coloured batches.
 * SPDX-License-Identifier: MIT
 *
 * Order. Gauss-Seidel visits the constraints one after the other, so the result depends on the
 * order. Ours: the active arbiters are coloured greedily in key order (shape_a, shape_b), each
 * taking the lowest colour that neither of its dynamic bodies has yet; colours are solved one
 * after the other, and inside a colour in key order. Two arbiters of one colour share no body
 * that an impulse can move (static and kinematic bodies have no inverse mass: their velocities
 * never change), so inside a colour the order does not matter at all: any grouping of its
 * arbiters gives the same bits. That is what lets a batch of F2D_LANES arbiters of one colour
 * be solved at once in SIMD lanes (AVX-512 on x86-64 when the CPU has it) with exactly the
 * result of the scalar path, one lane after the other (every other machine, and the
 * reference): the determinism matrix compares both. The colouring is a function of the keys
 * and body ids only. A body that already has 63 colours sends the arbiter to the overflow
 * colour, solved last, one arbiter after the other in key order. The soft step
 * (substep_count >= 1) colours an arbiter against a body that cannot move from the other end
 * (take_color_from_end), as Box2D v3.2 does.
 *
 * Three paths compute the same bits:
 *  - exact: every intermediate saturated to the fix16 range (and reported as
 *    F2D_ERROR_OVERFLOW); the reference, written as the derivation reads;
 *  - fast (scalar): the same expressions without saturation, checked once at the end;
 *  - AVX-512: the fast path on 8 lanes.
 * A lane whose check fails is solved again by the exact path from the unchanged state.
 * The pre-step (the constants of the batches, f2d_contacts_prestep, and its SIMD staging) is in
 * solver_prestep.c; the soft step's contact passes (f2d_world_def.substep_count >= 1) are in
 * solver_soft.c; the helpers they share are in solver_internal.h.
 */
#include "core.h"
#define F2D_SOLVER_LANES /* solver_internal.h: the SIMD lane helpers */
#include "solver_internal.h"

#include <stddef.h>
#ifdef F2D_HASH_CHECK
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif
/* ---- test-only switches (tests/test_solver_paths.c; never defined in a real build) ----
 * F2D_CONTACT_EXACT_ONLY: warm start and solve skip the fast paths and always take the exact
 * path, the reference the test compares the normal build against, step by step.
 * F2D_CONTACT_COUNT_PATHS: counts the arbiters each path handled (warm start fast, warm start
 * exact, solve fast, solve exact), so that the test can show both paths ran. Not thread-safe.
 * F2D_NO_SIMD: the scalar paths only, also on a CPU with AVX-512. */
#ifdef F2D_CONTACT_COUNT_PATHS
extern uint64_t f2d_contact_path_counts[4];
uint64_t f2d_contact_path_counts[4];
#define COUNT_PATH(i, n) (f2d_contact_path_counts[i] += (uint64_t)(n))
#else
#define COUNT_PATH(i, n) ((void)(n))
#endif

/* Warm start of one lane, exact path. */
static void warm_start_exact(clane *c, int64_t *a, int64_t *b, bool *saturated)
{
	vel64 v = load_vel(a, b);
	const cpoint *p1 = &c->p[0], *p2 = &c->p[1];
	apply2(&v, p1->pn, p2->pn, c, p1, p2, false, saturated);
	apply2(&v, p1->pt, p2->pt, c, p1, p2, true, saturated);
	store_vel(a, b, &v);
}

/* One lane of a Gauss-Seidel pass, exact path, points in the order p[flip], p[flip ^ 1]. For
 * two points, the relative velocity at the second point after the first point's impulse l is
 * known without touching the bodies: v2' = v2 + l k12 (k12 from the pre-step). So each
 * direction costs two relative velocities, two scalar updates and one combined application:
 * the same sequential impulses, fewer operations. Friction is solved first, the normal last
 * (non-penetration matters most); the two points are visited in alternating order (0,1 then
 * 1,0) because plain Gauss-Seidel always favours the first point, which tips an aligned stack. */
static void solve_exact(clane *c, int64_t *a, int64_t *b, int32_t flip, bool *saturated)
{
	f2d_vec2 n = c->n;
	f2d_vec2 t = f2d_right_perp(n);
	vel64 v = load_vel(a, b);
	cpoint *p1 = &c->p[flip];
	cpoint *p2 = &c->p[flip ^ 1];
	fix16_t v1 = rel_vel(&v, t, p1->rt_a, p1->rt_b);
	fix16_t v2 = rel_vel(&v, t, p2->rt_a, p2->rt_b);
	fix16_t d1 = friction_step(p1, v1, c->friction, saturated);
	v2 = f2d_sat((int64_t)v2 + f2d_round16((int64_t)d1 * c->k12_t));
	fix16_t d2 = friction_step(p2, v2, c->friction, saturated);
	apply2(&v, d1, d2, c, p1, p2, true, saturated);

	int64_t n1 = rel_vel64(&v, n, p1->rn_a, p1->rn_b);
	int64_t n2 = rel_vel64(&v, n, p2->rn_a, p2->rn_b);
	d1 = normal_step(p1, n1, saturated);
	d2 = normal_step(p2, n2 + f2d_round16((int64_t)d1 * c->k12_n), saturated);
	apply2(&v, d1, d2, c, p1, p2, false, saturated);
	store_vel(a, b, &v);
}

/* ---- fast path ----
 *
 * The exact path above saturates a dozen intermediate values per arbiter (and records it). In
 * a sane scene none of them ever comes near the fix16 range, so the fast path computes the same
 * expressions without the saturations, on local copies, and only checks at the end that every
 * value it would have saturated was in [-2^30, 2^30): there every f2d_sat / add_sat of the
 * exact path is the identity, so the two paths give the same bits. Otherwise the local results
 * are dropped and the lane is solved again by the exact path from the unchanged state.
 *
 * The check is one add and one or per value: x in [-2^30, 2^30) <=> (uint64)(x + 2^30) < 2^31,
 * and the or of such values is < 2^31 iff each is. The velocities read from the bodies are
 * checked too: then every operand of every product below lies in [-2^31, 2^31) (a velocity, the
 * difference of two, an impulse increment or the sum of two, a checked relative velocity, a
 * stored fix16), which the AVX-512 path needs (it multiplies 32 x 32 -> 64 bits). (The SIMD
 * kernels, solver_kernel.h, skip that check: the rows always hold fix16 values, and they form
 * the linear part of the first relative velocity from the velocities themselves, four products
 * instead of two differences; the same exact sum.)
 *
 * Because the check comes at the end, the values after a failed one can be anything, and their
 * products could overflow 64 bits: the fast path therefore multiplies, adds and subtracts modulo
 * 2^64 (in uint64_t, converted back; the same machine instructions). Whenever every check passes
 * each operand equals the exact path's (its saturations were the identity), so each product and
 * sum is one that the exact path computes in 64 bits without overflow: the results are exact. */

/* friction_step without saturation: pt and the cone as there; the increment is checked. The
 * cone and the clamped P_t are within the fix16 range, so the increment is below 2^32 in
 * magnitude whatever vt was. */
static inline int64_t friction_fast(const f2d_point_lanes *p, int32_t l, int64_t vt,
                                    int64_t friction, uint64_t *acc)
{
	int64_t pt = p->pt[l];
	int64_t max_pt = f2d_round16(friction * p->pn[l]);
	max_pt = max_pt > INT32_MAX ? INT32_MAX : max_pt;
	int64_t q = f2d_wsub(pt, wmul16(p->mass_t[l], vt));
	q = q < -max_pt ? -max_pt : (q > max_pt ? max_pt : q);
	int64_t d = q - pt;
	*acc |= f2d_fast_chk(d);
	F2D_FAST_FOLD(*acc);
	return d;
}

/* normal_step without saturation: bias - vn and the new P_n are checked (P_n after the clamp
 * at 0, so only the upper saturation counts), and the increment (P_n >= 0 always). */
static inline int64_t normal_fast(const f2d_point_lanes *p, int32_t l, int64_t vn, int64_t *pn_out,
                                  uint64_t *acc)
{
	int64_t pn = p->pn[l];
	int64_t e = f2d_wsub(p->bias[l], vn);
	int64_t q = f2d_wadd(pn, wmul16(p->mass_n[l], e));
	q = q < 0 ? 0 : q;
	int64_t d = f2d_wsub(q, pn);
	*acc |= f2d_fast_chk(e) | f2d_fast_chk(q) | f2d_fast_chk(d);
	F2D_FAST_FOLD(*acc);
	*pn_out = q;
	return d;
}

/* apply2 without saturation (tangent: dir_t = 1), lane l of bt; wa1..wb2 the angular responses
 * of the two points. The new velocities are checked. */
static inline void apply_fast(vel64 *v, int64_t l1, int64_t l2, const f2d_contact_batch *bt,
                              int32_t l, int64_t wa1, int64_t wb1, int64_t wa2, int64_t wb2,
                              int dir_t, uint64_t *acc)
{
	int64_t s = f2d_wadd(l1, l2);
	int64_t dax = bt->dva[l][0], day = bt->dva[l][1], dbx = bt->dvb[l][0], dby = bt->dvb[l][1];
	if (dir_t) {
		v->vax = f2d_wsub(v->vax, wmul16(s, day));
		v->vay = f2d_wadd(v->vay, wmul16(s, dax));
		v->vbx = f2d_wadd(v->vbx, wmul16(s, dby));
		v->vby = f2d_wsub(v->vby, wmul16(s, dbx));
	} else {
		v->vax = f2d_wsub(v->vax, wmul16(s, dax));
		v->vay = f2d_wsub(v->vay, wmul16(s, day));
		v->vbx = f2d_wadd(v->vbx, wmul16(s, dbx));
		v->vby = f2d_wadd(v->vby, wmul16(s, dby));
	}
	v->wa = f2d_wsub(v->wa, f2d_wround16(f2d_wadd(f2d_wmul(l1, wa1), f2d_wmul(l2, wa2))));
	v->wb = f2d_wadd(v->wb, f2d_wround16(f2d_wadd(f2d_wmul(l1, wb1), f2d_wmul(l2, wb2))));
	*acc |= f2d_fast_chk(v->vax) | f2d_fast_chk(v->vay) | f2d_fast_chk(v->wa) |
	        f2d_fast_chk(v->vbx) | f2d_fast_chk(v->vby) | f2d_fast_chk(v->wb);
	F2D_FAST_FOLD(*acc);
}

/* The linear part of the relative velocity along n, (v_b - v_a) . n, and along
 * t = (n.y, -n.x), (v_b - v_a) . t; exact, shared by both points (the angular parts differ). */
static inline int64_t lin_n(const vel64 *v, f2d_vec2 n)
{
	return f2d_wadd(f2d_wmul(f2d_wsub(v->vbx, v->vax), n.x),
	                f2d_wmul(f2d_wsub(v->vby, v->vay), n.y));
}
static inline int64_t lin_t(const vel64 *v, f2d_vec2 n)
{
	return f2d_wsub(f2d_wmul(f2d_wsub(v->vbx, v->vax), n.y),
	                f2d_wmul(f2d_wsub(v->vby, v->vay), n.x));
}

/* The relative velocity at a point: linear part plus w_b (r_b x d) - w_a (r_a x d), the same
 * exact 64-bit sum as rel_vel64 (the order of exact integer additions does not matter), and
 * rounded as f2d_round16. */
static inline int64_t point_vel(const vel64 *v, int64_t lin, fix16_t rd_a, fix16_t rd_b)
{
	return f2d_wround16(f2d_wsub(f2d_wadd(lin, f2d_wmul(v->wb, rd_b)), f2d_wmul(v->wa, rd_a)));
}

static inline void load_vel64(vel64 *v, const int64_t *a, const int64_t *b, uint64_t *acc)
{
	*v = load_vel(a, b);
	*acc |= f2d_fast_chk(v->vax) | f2d_fast_chk(v->vay) | f2d_fast_chk(v->wa) |
	        f2d_fast_chk(v->vbx) | f2d_fast_chk(v->vby) | f2d_fast_chk(v->wb);
}

/* Warm start of one lane, fast path; false (nothing written) when a value left the range.
 * It reads the batch in place (as solve_fast). */
static inline bool warm_start_fast(const f2d_contact_batch *bt, int32_t l, int64_t *a, int64_t *b)
{
	const f2d_point_lanes *p1 = &bt->p[0], *p2 = &bt->p[1];
	vel64 v;
	uint64_t acc = 0;
	load_vel64(&v, a, b, &acc);
	apply_fast(&v, p1->pn[l], p2->pn[l], bt, l, p1->wn[l][0], p1->wn[l][1], p2->wn[l][0],
	           p2->wn[l][1], 0, &acc);
	apply_fast(&v, p1->pt[l], p2->pt[l], bt, l, p1->wt[l][0], p1->wt[l][1], p2->wt[l][0],
	           p2->wt[l][1], 1, &acc);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	store_vel(a, b, &v);
	return true;
}

/* One lane, fast path (points in the order p[flip], p[flip ^ 1]), as solve_exact, reading the
 * batch in place; false (and nothing written) when a value left the checked range. */
static inline bool solve_fast(f2d_contact_batch *bt, int32_t l, int64_t *a, int64_t *b,
                              int32_t flip)
{
	f2d_vec2 n = f2d_v((fix16_t)bt->n[l][0], (fix16_t)bt->n[l][1]);
	f2d_point_lanes *p1 = &bt->p[flip], *p2 = &bt->p[flip ^ 1];
	int64_t mu = bt->friction[l];
	uint64_t acc = 0;
	vel64 v;
	load_vel64(&v, a, b, &acc);
	int64_t lt = lin_t(&v, n);
	int64_t v1 = point_vel(&v, lt, (fix16_t)p1->rt[l][0], (fix16_t)p1->rt[l][1]);
	int64_t v2 = point_vel(&v, lt, (fix16_t)p2->rt[l][0], (fix16_t)p2->rt[l][1]);
	acc |= f2d_fast_chk(v1) | f2d_fast_chk(v2);
	int64_t d1 = friction_fast(p1, l, v1, mu, &acc);
	v2 = f2d_wadd(v2, wmul16(d1, bt->k12[l][1]));
	acc |= f2d_fast_chk(v2);
	int64_t d2 = friction_fast(p2, l, v2, mu, &acc);
	apply_fast(&v, d1, d2, bt, l, p1->wt[l][0], p1->wt[l][1], p2->wt[l][0], p2->wt[l][1], 1, &acc);

	int64_t ln = lin_n(&v, n);
	int64_t n1 = point_vel(&v, ln, (fix16_t)p1->rn[l][0], (fix16_t)p1->rn[l][1]);
	int64_t n2 = point_vel(&v, ln, (fix16_t)p2->rn[l][0], (fix16_t)p2->rn[l][1]);
	int64_t pn1, pn2;
	int64_t dn1 = normal_fast(p1, l, n1, &pn1, &acc);
	int64_t dn2 = normal_fast(p2, l, f2d_wadd(n2, wmul16(dn1, bt->k12[l][0])), &pn2, &acc);
	apply_fast(&v, dn1, dn2, bt, l, p1->wn[l][0], p1->wn[l][1], p2->wn[l][0], p2->wn[l][1], 0,
	           &acc);
	if (!F2D_FAST_OK(acc)) {
		return false;
	}
	p1->pt[l] += d1;
	p2->pt[l] += d2;
	p1->pn[l] = pn1;
	p2->pn[l] = pn2;
	store_vel(a, b, &v);
	return true;
}

/* One lane, scalar: the fast path, or the exact one when the fast path declined. */
static void solve_lane(f2d_world *w, f2d_contact_batch *bt, int32_t l, int32_t flip,
                       bool *saturated)
{
	int64_t *a = vel_row(w, bt->body_a[l]);
	int64_t *b = vel_row(w, bt->body_b[l]);
#ifndef F2D_CONTACT_EXACT_ONLY
	if (solve_fast(bt, l, a, b, flip)) {
		COUNT_PATH(2, 1);
		return;
	}
#else
	(void)solve_fast; /* unused here: no warning */
	(void)warm_start_fast;
#endif
	COUNT_PATH(3, 1);
	clane c;
	load_lane(bt, l, &c);
	solve_exact(&c, a, b, flip, saturated);
	store_lane(bt, l, &c);
}

/* ---- AVX-512 ----
 *
 * solve_fast on 8 lanes, one 64-bit lane an arbiter; the same operations in the same order.
 * Products are vpmuldq (signed 32 x 32 -> 64 bits of the low halves): every operand is in
 * [-2^31, 2^31) when the lane's check passes (see the fast path), so the product is the one
 * solve_fast computes; a lane whose check fails is dropped and solved by the exact path. The
 * rounding shift is vpsraq, the clamps vpminsq / vpmaxsq and compares into masks. Velocities are
 * gathered from and scattered to the bodies (lanes of one batch never share a body that moves;
 * the velocities of a static or kinematic body do not change, so several lanes may read and
 * write the same one). */
#if F2D_HAVE_SIMD

/* The velocity rows of 8 bodies, transposed: row l = (v.x, v.y, w, -) of lane l's body.
 * Rows l and l + 2 per register (lanes 0, 2 | 1, 3 | 4, 6 | 5, 7), then in-lane unpacks of
 * 64-bit words (x and w pairs, y pairs) and three 128-bit shuffles: 7 shuffles as before, but
 * the unpacks stay within 128-bit lanes and leave their sources intact (no register copies),
 * against the two-source permutes with an index register (paired runs of the soft passes on
 * this machine's AVX-512: -2 % a pass). */
AVX512 static inline __attribute__((always_inline)) void
rows_load_512(int64_t (*rows)[4], const int32_t *body, vq *vx, vq *vy, vq *vw)
{
	vq z[4];
	for (int32_t i = 0; i < 4; ++i) {
		/* rows j and j + 2, j = 0, 1, 4, 5 */
		int32_t j = (i & 1) + (i & 2) * 2;
		__m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)rows[body[j]]);
		__m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)rows[body[j + 2]]);
		z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
	}
	vq t0 = _mm512_unpacklo_epi64(z[0], z[1]); /* x0 x1 | w0 w1 | x2 x3 | w2 w3 */
	vq t1 = _mm512_unpackhi_epi64(z[0], z[1]); /* y0 y1 | -     | y2 y3 | -     */
	vq t2 = _mm512_unpacklo_epi64(z[2], z[3]); /* x4 x5 | w4 w5 | x6 x7 | w6 w7 */
	vq t3 = _mm512_unpackhi_epi64(z[2], z[3]); /* y4 y5 | -     | y6 y7 | -     */
	*vx = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
	*vy = _mm512_shuffle_i64x2(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
	*vw = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
}

/* The inverse of rows_load_512, for the lanes whose bit is set only (the 4th word of a row is
 * junk): the (x, y) pairs by in-lane unpacks, then each row's two 128-bit halves joined by a
 * 256-bit permute (vperm2i128, half the cost of a 512-bit shuffle on a CPU that splits those in
 * two; paired runs of the soft passes: -2 % a pass against two-source 512-bit permutes) */
AVX512 static inline __attribute__((always_inline)) void
rows_store_512(int64_t (*rows)[4], const int32_t *body, unsigned m, vq vx, vq vy, vq vw)
{
	vq p = _mm512_unpacklo_epi64(vx, vy);  /* x0 y0 | x2 y2 | x4 y4 | x6 y6 */
	vq q = _mm512_unpackhi_epi64(vx, vy);  /* x1 y1 | x3 y3 | x5 y5 | x7 y7 */
	vq wo = _mm512_unpackhi_epi64(vw, vw); /* w1 w1 | w3 w3 | w5 w5 | w7 w7 */
	/* vw itself is w0 w1 | w2 w3 | ...: the even rows' w in the low word of each 128 bits */
	__m256i pl = _mm512_castsi512_si256(p), ph = _mm512_extracti64x4_epi64(p, 1);
	__m256i ql = _mm512_castsi512_si256(q), qh = _mm512_extracti64x4_epi64(q, 1);
	__m256i el = _mm512_castsi512_si256(vw), eh = _mm512_extracti64x4_epi64(vw, 1);
	__m256i ol = _mm512_castsi512_si256(wo), oh = _mm512_extracti64x4_epi64(wo, 1);
	__m256i r[8] = {_mm256_permute2x128_si256(pl, el, 0x20), _mm256_permute2x128_si256(ql, ol, 0x20),
	                _mm256_permute2x128_si256(pl, el, 0x31), _mm256_permute2x128_si256(ql, ol, 0x31),
	                _mm256_permute2x128_si256(ph, eh, 0x20), _mm256_permute2x128_si256(qh, oh, 0x20),
	                _mm256_permute2x128_si256(ph, eh, 0x31), _mm256_permute2x128_si256(qh, oh, 0x31)};
	if ((m & 0xFFu) == 0xFFu) {
		/* every lane (the common case): no test per lane */
		for (int32_t i = 0; i < 8; ++i) {
			_mm256_storeu_si256((__m256i *)(void *)rows[body[i]], r[i]);
		}
		return;
	}
	for (int32_t i = 0; i < 8; ++i) {
		if (m & (1u << i)) {
			_mm256_storeu_si256((__m256i *)(void *)rows[body[i]], r[i]);
		}
	}
}

/* AVX-512: one group is a batch (no group loop); the group kernels are inlined into the runs
 * of batches (K(solve_run_f*), K(warm_run), K(soft_run_*)), flip and use_bias constants there
 * (measured on pyramid20, per-step minimum over 5 runs: the soft step 0.0850 -> 0.0794 ms, the
 * Gauss-Seidel step 0.0796 -> 0.0790 ms); K(warm) too (the compiler kept it a call: paired
 * runs of the warm start on settled batches, pyramid20 and rain1000: -2 % and -4 % a batch) */
#define K_BATCH 0
#define K_INLINE __attribute__((always_inline))

#define K(name) name##_512
#define K_ATTR AVX512
#define K_W 8
#define kv __m512i
#define kp __mmask8
#define K_LD(p) vld(p)
#define K_LD64(p) _mm512_loadu_si512(p)
#define K_SRL32(x) _mm512_srli_epi64(x, 32)
#define K_SET1(c) _mm512_set1_epi64(c)
#define K_ZERO _mm512_setzero_si512()
#define K_ADD(a, b) _mm512_add_epi64(a, b)
#define K_SUB(a, b) _mm512_sub_epi64(a, b)
#define K_OR(a, b) _mm512_or_si512(a, b)
#define K_OR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0xFE)
#define K_MUL(a, b) _mm512_mul_epi32(a, b)
#define K_SRA(x, n) _mm512_srai_epi64(x, n)
#define K_GT(a, b) _mm512_cmpgt_epi64_mask(a, b)
#define K_LT(a, b) _mm512_cmplt_epi64_mask(a, b)
#define K_SEL(p, a, b) _mm512_mask_mov_epi64(b, p, a)
#define K_MIN(a, b) _mm512_min_epi64(a, b)
#define K_MAX(a, b) _mm512_max_epi64(a, b)
#define K_ANY(p) ((unsigned)(p) != 0u)
#define K_ROUND16(p) K_SRA(K_ADD(K_ADD(p, K_SET1(0x8000)), K_SRA(p, 63)), 16)
#define K_ROUND16_B(p) K(round16)(p)
#define K_RB 0
#define K_ROUND16_NN(p) _mm512_srli_epi64(K_ADD(p, K_SET1(0x8000)), 16)
#define K_ROUND16_NN_NEG(p) _mm512_srli_epi64(K_SUB(K_SET1(0x8000), p), 16)
/* round16(p) / 8 truncating, in one rounding shift (solver_kernel.h, K_ROUND16_DIV8):
 * (p + 2^15 + (p < 0 ? 7 2^16 - 1 : 0)) >> 19, arithmetic */
#define K_ROUND16_DIV8(p)                                                                          \
	K_SRA(K_ADD(K_ADD(p, K_SET1(0x8000)), _mm512_and_si512(K_SRA(p, 63), K_SET1(0x6FFFF))), 19)
#define K_OKBITS(acc)                                                                              \
	((unsigned)_mm512_cmplt_epu64_mask(acc, _mm512_set1_epi64((int64_t)FAST_LIMIT)))
#define K_STORE_BITS(p, bits, v) _mm512_mask_cvtepi64_storeu_epi32(p, (__mmask8)(bits), v)
#define K_ROWS_LOAD rows_load_512
#define K_ROWS_STORE rows_store_512
#include "solver_kernel.h"
#undef K
#undef K_ATTR
#undef K_W
#undef kv
#undef kp
#undef K_LD
#undef K_LD64
#undef K_SRL32
#undef K_SET1
#undef K_ZERO
#undef K_ADD
#undef K_SUB
#undef K_OR
#undef K_OR3
#undef K_MUL
#undef K_SRA
#undef K_GT
#undef K_LT
#undef K_SEL
#undef K_MIN
#undef K_MAX
#undef K_OKBITS
#undef K_ANY
#undef K_ROUND16
#undef K_ROUND16_B
#undef K_RB
#undef K_ROUND16_NN
#undef K_ROUND16_NN_NEG
#undef K_ROUND16_DIV8
#undef K_STORE_BITS
#undef K_ROWS_LOAD
#undef K_ROWS_STORE

/* AVX2: 4 lanes. No 64-bit arithmetic shift, min, max or unsigned compare: built from
 * compares and blends (vpblendvb), all integer instructions. */

/* round16(p) / 8 truncating toward 0 (C's division) for |p| < 2^62 (solver_kernel.h,
 * K_ROUND16_DIV8): t = p + 2^15 + (p < 0 ? 7 2^16 - 1 : 0) shifted right by 19, arithmetic,
 * as the logical shift of t + 2^63 less 2^44 (as f2d_round16_256); six instructions, against
 * eleven for the rounding and the division apart */
AVX2 static inline __m256i round16_div8_avx2(__m256i p)
{
	__m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
	__m256i t = _mm256_add_epi64(_mm256_add_epi64(p, _mm256_set1_epi64x(INT64_MIN + 0x8000)),
	                             _mm256_and_si256(sign, _mm256_set1_epi64x(0x6FFFF)));
	return _mm256_sub_epi64(_mm256_srli_epi64(t, 19), _mm256_set1_epi64x((int64_t)1 << 44));
}

/* f2d_round16_256 without its last subtraction of 2^47: f2d_round16(p) + 2^47 for |p| < 2^62
 * (solver_kernel.h, K_ROUND16_B) */
AVX2 static inline __m256i round16_biased_avx2(__m256i p)
{
	__m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), p);
	return _mm256_srli_epi64(
	    _mm256_add_epi64(_mm256_add_epi64(p, _mm256_set1_epi64x(INT64_MIN + 0x8000)), sign), 16);
}

/* 4 velocity rows transposed: unpack pairs of rows, then exchange 128-bit halves */
AVX2 static inline void rows_load_256(int64_t (*rows)[4], const int32_t *body, __m256i *vx,
                                      __m256i *vy, __m256i *vw)
{
	__m256i r[4];
	for (int32_t i = 0; i < 4; ++i) {
		r[i] = _mm256_loadu_si256((const __m256i *)(const void *)rows[body[i]]);
	}
	__m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]); /* x0 x1 w0 w1 */
	__m256i t1 = _mm256_unpackhi_epi64(r[0], r[1]); /* y0 y1 -  -  */
	__m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]); /* x2 x3 w2 w3 */
	__m256i t3 = _mm256_unpackhi_epi64(r[2], r[3]); /* y2 y3 -  -  */
	*vx = _mm256_permute2x128_si256(t0, t2, 0x20);
	*vy = _mm256_permute2x128_si256(t1, t3, 0x20);
	*vw = _mm256_permute2x128_si256(t0, t2, 0x31);
}

AVX2 static inline void rows_store_256(int64_t (*rows)[4], const int32_t *body, unsigned m,
                                       __m256i vx, __m256i vy, __m256i vw)
{
	__m256i t0 = _mm256_permute2x128_si256(vx, vw, 0x20); /* x0 x1 w0 w1 */
	__m256i t2 = _mm256_permute2x128_si256(vx, vw, 0x31); /* x2 x3 w2 w3 */
	__m256i t1 = _mm256_permute2x128_si256(vy, vy, 0x20); /* y0 y1 y0 y1 */
	__m256i t3 = _mm256_permute2x128_si256(vy, vy, 0x31); /* y2 y3 y2 y3 */
	__m256i r[4] = {_mm256_unpacklo_epi64(t0, t1), _mm256_unpackhi_epi64(t0, t1),
	                _mm256_unpacklo_epi64(t2, t3), _mm256_unpackhi_epi64(t2, t3)};
	if ((m & 0xFu) == 0xFu) {
		/* every lane (the common case): no test per lane */
		for (int32_t i = 0; i < 4; ++i) {
			_mm256_storeu_si256((__m256i *)(void *)rows[body[i]], r[i]);
		}
		return;
	}
	for (int32_t i = 0; i < 4; ++i) {
		if (m & (1u << i)) {
			_mm256_storeu_si256((__m256i *)(void *)rows[body[i]], r[i]);
		}
	}
}

/* AVX2: the groups of a batch in one call (solver_kernel.h K(solve_batch)) */
#undef K_BATCH
#undef K_INLINE
#define K_BATCH 1
#define K_INLINE __attribute__((always_inline))

#define K(name) name##_256
#define K_ATTR AVX2
#define K_W 4
#define kv __m256i
#define kp __m256i
#define K_LD(p) _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define K_LD64(p) _mm256_loadu_si256((const __m256i *)(p))
#define K_SRL32(x) _mm256_srli_epi64(x, 32)
#define K_SET1(c) _mm256_set1_epi64x(c)
#define K_ZERO _mm256_setzero_si256()
#define K_ADD(a, b) _mm256_add_epi64(a, b)
#define K_SUB(a, b) _mm256_sub_epi64(a, b)
#define K_OR(a, b) _mm256_or_si256(a, b)
#define K_OR3(a, b, c) _mm256_or_si256(_mm256_or_si256(a, b), c)
#define K_MUL(a, b) _mm256_mul_epi32(a, b)
#define K_GT(a, b) _mm256_cmpgt_epi64(a, b)
#define K_LT(a, b) _mm256_cmpgt_epi64(b, a)
#define K_SEL(p, a, b) _mm256_blendv_epi8(b, a, p)
#define K_MIN(a, b) _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b))
#define K_MAX(a, b) _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b))
#define K_ANY(p) (_mm256_movemask_epi8(p) != 0)
#define K_ROUND16(p) f2d_round16_256(p)
#define K_ROUND16_B(p) round16_biased_avx2(p)
#define K_RB (INT64_C(1) << 47)
#define K_ROUND16_NN(p) _mm256_srli_epi64(K_ADD(p, K_SET1(0x8000)), 16)
#define K_ROUND16_NN_NEG(p) _mm256_srli_epi64(K_SUB(K_SET1(0x8000), p), 16)
#define K_ROUND16_DIV8(p) round16_div8_avx2(p)
#define K_OKBITS(acc) f2d_okbits_256(acc)
#define K_STORE_BITS(p, bits, v) store_bits_256(p, bits, v)
#define K_ROWS_LOAD rows_load_256
#define K_ROWS_STORE rows_store_256
#include "solver_kernel.h"

#endif

/* The kernel this CPU runs (F2D_KERNEL_*): asked of the CPU at each pass (a load and a test:
 * no state of ours). */
int f2d_kernel_level(void)
{
#if F2D_HAVE_SIMD
	__builtin_cpu_init();
#ifndef F2D_NO_AVX512
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
		return F2D_KERNEL_AVX512;
	}
#endif
	if (__builtin_cpu_supports("avx2")) {
		return F2D_KERNEL_AVX2;
	}
#endif
	return F2D_KERNEL_SCALAR;
}

/** The contact solver's kernel on this machine: "avx512", "avx2" or "scalar" (same results). */
const char *f2d_solver_kernel(void)
{
	static const char *const names[] = {"scalar", "avx2", "avx512"};
	return names[f2d_kernel_level()];
}

#ifdef F2D_CONTACT_COUNT_PATHS
/* test_solver_paths' check of the kernels' rounding shortcuts ("roundings"): for the kernel
 * (F2D_KERNEL_AVX2 or F2D_KERNEL_AVX512, at most f2d_kernel_level()) on 8 values p, out[0]
 * round16, out[1] the rounding of p >= 0, out[2] of -p for p <= 0, out[3] round16(p) / 8
 * (solver_kernel.h, K(test_roundings)); false (out untouched) for any other kernel or without
 * the SIMD kernels */
bool f2d_test_kernel_roundings(int kernel, const int64_t *p, int64_t (*out)[8]);
bool f2d_test_kernel_roundings(int kernel, const int64_t *p, int64_t (*out)[8])
{
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512 && kernel <= f2d_kernel_level()) {
		test_roundings_512(p, out);
		return true;
	}
	if (kernel == F2D_KERNEL_AVX2 && kernel <= f2d_kernel_level()) {
		test_roundings_256(p, out);
		return true;
	}
#else
	(void)p;
	(void)out;
#endif
	(void)kernel;
	return false;
}
#endif

#ifdef F2D_CONTACT_COUNT_PATHS
/* test_solver_paths' check of the pairs of lanes ("pairs"): for the kernel (as
 * f2d_test_kernel_roundings) the pre-step's store of the 8 values a, b as a pair (vst2 or
 * st2_avx2), then out[0], out[1] K_LO, K_HI of it times c (c a fix16 value), out[2], out[3]
 * its exact loads (vld2_lo, vld2_hi or the AVX2 ones), out[4], out[5] the pair as the scalar
 * paths read it; false (out untouched) for any other kernel or without the SIMD kernels */
bool f2d_test_kernel_pairs(int kernel, const int64_t *a, const int64_t *b, const int64_t *c,
                           int64_t (*out)[8]);
#if F2D_HAVE_SIMD
AVX512 static void test_pairs_512(const int64_t *a, const int64_t *b, const int64_t *c,
                                  int64_t (*out)[8])
{
	f2d_lane2 pr;
	vst2(pr, _mm512_loadu_si512(a), _mm512_loadu_si512(b));
	vq cv = _mm512_loadu_si512(c);
	_mm512_storeu_si512(out[0], _mm512_mul_epi32(test_lo_512(pr), cv));
	_mm512_storeu_si512(out[1], _mm512_mul_epi32(test_hi_512(pr), cv));
	_mm512_storeu_si512(out[2], vld2_lo(pr));
	_mm512_storeu_si512(out[3], vld2_hi(pr));
	for (int32_t l = 0; l < F2D_LANES; ++l) {
		out[4][l] = pr[l][0];
		out[5][l] = pr[l][1];
	}
}
AVX2 static void test_pairs_256(const int64_t *a, const int64_t *b, const int64_t *c,
                                int64_t (*out)[8])
{
	f2d_lane2 pr;
	for (int32_t o = 0; o < F2D_LANES; o += 4) {
		st2_avx2(pr + o, ld64_avx2(a + o), ld64_avx2(b + o));
		__m256i cv = ld64_avx2(c + o);
		_mm256_storeu_si256((__m256i *)(void *)(out[0] + o), _mm256_mul_epi32(test_lo_256(pr + o), cv));
		_mm256_storeu_si256((__m256i *)(void *)(out[1] + o), _mm256_mul_epi32(test_hi_256(pr + o), cv));
		_mm256_storeu_si256((__m256i *)(void *)(out[2] + o), ld2_lo_avx2(pr + o));
		_mm256_storeu_si256((__m256i *)(void *)(out[3] + o), ld2_hi_avx2(pr + o));
	}
	for (int32_t l = 0; l < F2D_LANES; ++l) {
		out[4][l] = pr[l][0];
		out[5][l] = pr[l][1];
	}
}
#endif
bool f2d_test_kernel_pairs(int kernel, const int64_t *a, const int64_t *b, const int64_t *c,
                           int64_t (*out)[8])
{
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512 && kernel <= f2d_kernel_level()) {
		test_pairs_512(a, b, c, out);
		return true;
	}
	if (kernel == F2D_KERNEL_AVX2 && kernel <= f2d_kernel_level()) {
		test_pairs_256(a, b, c, out);
		return true;
	}
#else
	(void)a;
	(void)b;
	(void)c;
	(void)out;
#endif
	(void)kernel;
	return false;
}
#endif

/* A Gauss-Seidel pass by the SIMD kernel from batch i on (K(solve_run_f*) in solver_kernel.h,
 * flip a constant there), as simd_warm_run below */
static int32_t simd_solve_run(f2d_world *w, int32_t i, int kernel, int32_t flip, unsigned *rest)
{
#if F2D_HAVE_SIMD
	int32_t n = w->batch_count;
	if (kernel == F2D_KERNEL_AVX512) {
		return flip ? solve_run_f1_512(w->solver_vel, w->batches, i, n, rest)
		            : solve_run_f0_512(w->solver_vel, w->batches, i, n, rest);
	}
	return flip ? solve_run_f1_256(w->solver_vel, w->batches, i, n, rest)
	            : solve_run_f0_256(w->solver_vel, w->batches, i, n, rest);
#else
	(void)w;
	(void)kernel;
	(void)flip;
	(void)rest;
	return i;
#endif
}

/* The warm start by the SIMD kernel from batch i on (K(warm_run) in solver_kernel.h): the index
 * of the batch it stopped at (sequential, or with the lanes *rest left over); without SIMD
 * kernels i. */
static int32_t simd_warm_run(f2d_world *w, int32_t i, int kernel, unsigned *rest)
{
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512) {
		return warm_run_512(w->solver_vel, w->batches, i, w->batch_count, rest);
	}
	return warm_run_256(w->solver_vel, w->batches, i, w->batch_count, rest);
#else
	(void)w;
	(void)kernel;
	(void)rest;
	return i;
#endif
}

/* The soft step's pass (solver_soft.c) by the SIMD kernel from batch i on (solver_internal.h). */
int32_t f2d_soft_simd_run(f2d_world *w, int32_t i, int kernel, int32_t flip, bool use_bias,
                          const f2d_soft_consts *k, unsigned *rest)
{
#if F2D_HAVE_SIMD
	if (kernel == F2D_KERNEL_AVX512) {
		return soft_run_512(w->solver_vel, w->solver_disp, w->batches, i, w->batch_count, flip,
		                    use_bias, k, rest);
	}
	return soft_run_256(w->solver_vel, w->solver_disp, w->batches, i, w->batch_count, flip,
	                    use_bias, k, rest);
#else
	(void)w;
	(void)kernel;
	(void)flip;
	(void)use_bias;
	(void)k;
	(void)rest;
	return i;
#endif
}


/* ---- the passes ---- */
/* The rows hold the velocities from the first contact pass of a step to the last one; with
 * joints (solved between the passes, on the bodies) every pass reads and writes them back. */
static bool joints_between(const f2d_world *w)
{
	return w->joint_count > 0;
}

/* The warm start on the rows (the soft step's too: its warm start is this one). */
void f2d_contacts_warm_rows(f2d_world *w)
{
	bool saturated = false;
	int kernel = f2d_kernel_level();
	for (int32_t i = 0; i < w->batch_count; ++i) {
		unsigned todo = 0;
		if (kernel != F2D_KERNEL_SCALAR) {
			/* the SIMD kernel on the batches from i on, up to a sequential one or one
			 * with lanes left over (todo) */
			int32_t j = simd_warm_run(w, i, kernel, &todo);
			for (; i < j; ++i) {
				COUNT_PATH(0, w->batches[i].lanes);
			}
			if (i == w->batch_count) {
				break;
			}
		}
		f2d_contact_batch *bt = &w->batches[i];
		if (kernel != F2D_KERNEL_SCALAR && !bt->sequential) {
			COUNT_PATH(0, bt->lanes - f2d_popcount(todo));
		} else {
			todo = (1u << bt->lanes) - 1u;
		}
		for (; todo != 0; todo &= todo - 1) {
			int32_t l = f2d_ctz64(todo);
			int64_t *a = vel_row(w, bt->body_a[l]);
			int64_t *b = vel_row(w, bt->body_b[l]);
#ifndef F2D_CONTACT_EXACT_ONLY
			if (warm_start_fast(bt, l, a, b)) {
				COUNT_PATH(0, 1);
				continue;
			}
#endif
			clane c;
			load_lane(bt, l, &c);
			warm_start_exact(&c, a, b, &saturated);
			COUNT_PATH(1, 1);
		}
	}
	w->saturated |= saturated;
}

void f2d_contacts_warm_start(f2d_world *w)
{
	vel_in(w);
	f2d_contacts_warm_rows(w);
	if (joints_between(w) || w->def.iterations == 0) {
		vel_out(w);
	}
}

/* One Gauss-Seidel pass: the batches in order (colour after colour). */
void f2d_contacts_solve(f2d_world *w, int32_t iteration)
{
	int32_t flip = iteration & 1;
	bool saturated = false;
	bool last = iteration == w->def.iterations - 1;
	if (joints_between(w) || (iteration == 0 && !w->def.warm_starting)) {
		vel_in(w);
	}
	int kernel = f2d_kernel_level();
	for (int32_t i = 0; i < w->batch_count; ++i) {
		unsigned rest = 0;
		if (kernel != F2D_KERNEL_SCALAR) {
			/* the SIMD kernel on the batches from i on, up to a sequential one or one
			 * with lanes left over (rest) */
			int32_t j = simd_solve_run(w, i, kernel, flip, &rest);
			for (; i < j; ++i) {
				COUNT_PATH(2, w->batches[i].lanes);
			}
			if (i == w->batch_count) {
				break;
			}
		}
		f2d_contact_batch *bt = &w->batches[i];
		if (kernel != F2D_KERNEL_SCALAR && !bt->sequential) {
			COUNT_PATH(2, bt->lanes - f2d_popcount(rest));
			for (; rest != 0; rest &= rest - 1) {
				int32_t l = f2d_ctz64(rest);
				clane c;
				load_lane(bt, l, &c);
				solve_exact(&c, vel_row(w, bt->body_a[l]),
				            vel_row(w, bt->body_b[l]), flip, &saturated);
				store_lane(bt, l, &c);
				COUNT_PATH(3, 1);
			}
			continue;
		}
		for (int32_t l = 0; l < bt->lanes; ++l) {
			solve_lane(w, bt, l, flip, &saturated);
		}
	}
	w->saturated |= saturated;
	if (joints_between(w) || last) {
		vel_out(w);
	}
	if (last) {
		store_impulses(w);
	}
}

/* ---- restitution ----
 *
 * Box2D v3's restitution stage: after the velocity iterations (and the joints), each point
 * whose approach speed before the step, -vn0, exceeded the threshold and that carries a normal
 * impulse (it touched: a speculative point the solve left at 0 did not) gets the normal
 * velocity -e vn0: lambda = m_n (-e vn0 - vn), P_n = max(P_n + lambda, 0). vn0 is taken before
 * gravity and the solve (the pre-step runs before the velocities are integrated), so the
 * rebound speed is e times the impact speed, not e times the impact speed plus a step of
 * gravity; and the solve itself only stops the body (its bias has no restitution term), so the
 * bounce starts at the contact, not above it. Points in batch order, lane order, point 0 then 1;
 * exact arithmetic on the bodies (few points bounce: no fast path). */
void f2d_contacts_restitution(f2d_world *w)
{
	if (!w->bounce) {
		return;
	}
	bool saturated = false;
	for (int32_t i = 0; i < w->batch_count; ++i) {
		f2d_contact_batch *bt = &w->batches[i];
		if (!bt->bounce) {
			continue;
		}
		for (int32_t l = 0; l < bt->lanes; ++l) {
			if ((bt->p[0].bounce[l] | bt->p[1].bounce[l]) == 0) {
				continue;
			}
			f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
			f2d_body *a = &w->bodies[bt->body_a[l]];
			f2d_body *b = &w->bodies[bt->body_b[l]];
			clane c;
			load_lane(bt, l, &c);
			vel64 v = {a->v.x, a->v.y, a->w, b->v.x, b->v.y, b->w};
			for (int32_t k = 0; k < 2; ++k) {
				cpoint *p = &c.p[k];
				if (p->bounce == 0 || p->pn == 0) {
					continue;
				}
				p->bias =
				    p->bounce; /* the target, also for f2d_contact_lcp_points */
				bt->p[k].bias[l] = p->bounce;
				int64_t vn = rel_vel64(&v, c.n, p->rn_a, p->rn_b);
				fix16_t d = normal_step(p, vn, &saturated);
				apply2(&v, k == 0 ? d : 0, k == 1 ? d : 0, &c, &c.p[0], &c.p[1],
				       false, &saturated);
				bt->p[k].pn[l] = p->pn;
				arb->points[k].pn = p->pn;
			}
			/* static and kinematic bodies: no inverse mass, their velocities stay */
			if (a->type == F2D_DYNAMIC_BODY) {
				a->v = f2d_v((fix16_t)v.vax, (fix16_t)v.vay);
				a->w = (fix16_t)v.wa;
			}
			if (b->type == F2D_DYNAMIC_BODY) {
				b->v = f2d_v((fix16_t)v.vbx, (fix16_t)v.vby);
				b->w = (fix16_t)v.wb;
			}
		}
	}
	w->saturated |= saturated;
}

/* ---- measurement hook ---- */

int32_t f2d_contact_lcp_points(const f2d_world *w, f2d_lcp_point *out, int32_t capacity)
{
	int32_t n = 0;
	for (int32_t i = 0; i < w->batch_count; ++i) {
		const f2d_contact_batch *bt = &w->batches[i];
		for (int32_t l = 0; l < bt->lanes; ++l) {
			const f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
			const f2d_body *a = &w->bodies[bt->body_a[l]];
			const f2d_body *b = &w->bodies[bt->body_b[l]];
			vel64 v = {a->v.x, a->v.y, a->w, b->v.x, b->v.y, b->w};
			f2d_vec2 nrm = f2d_v(bt->n[l][0], bt->n[l][1]);
			f2d_vec2 t = f2d_right_perp(nrm);
			for (int32_t k = 0; k < arb->count; ++k, ++n) {
				const f2d_point_lanes *pl = &bt->p[k];
				if (n >= capacity) {
					continue;
				}
				f2d_lcp_point *o = &out[n];
				o->vn = rel_vel(&v, nrm, pl->rn[l][0], pl->rn[l][1]);
				o->vt = rel_vel(&v, t, pl->rt[l][0], pl->rt[l][1]);
				o->target = pl->bias[l];
				o->pn = pl->pn[l];
				o->pt = pl->pt[l];
				o->mass_n = pl->mass_n[l];
				o->mass_t = pl->mass_t[l];
				o->mu = bt->friction[l];
				o->separation = arb->points[k].separation;
			}
		}
	}
	return n;
}
