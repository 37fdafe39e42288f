/* fix2d contact solver internals shared by solver.c (the Gauss-Seidel passes) and
 * solver_soft.c (the soft step): the lane copies, the velocity locals and the exact per-point
 * operations, all static inline. Not installed; included after core.h.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_SOLVER_INTERNAL_H
#define FIX2D_SOLVER_INTERNAL_H

#include "core.h"

/* the set bits of a lane mask (lanes left to another path, counted by the path switches) */
static inline int32_t f2d_popcount(unsigned x)
{
	int32_t n = 0;
	for (; x != 0; x &= x - 1) {
		n++;
	}
	return n;
}

static inline int64_t *vel_row(f2d_world *w, int32_t body)
{
	return w->solver_vel[body];
}

/* The velocities of the bodies in contact go to the solver's rows before a pass and back to
 * the bodies after it (joints and integration read the bodies). */
static inline void vel_in(f2d_world *w)
{
	for (int32_t i = 0; i < w->body_list_count; ++i) {
		const f2d_body *b = &w->bodies[w->body_list[i]];
		int64_t *r = w->solver_vel[w->body_list[i]];
		r[0] = b->v.x;
		r[1] = b->v.y;
		r[2] = b->w;
		r[3] = 0;
	}
}

static inline void vel_out(f2d_world *w)
{
	for (int32_t i = 0; i < w->body_list_count; ++i) {
		f2d_body *b = &w->bodies[w->body_list[i]];
		const int64_t *r = w->solver_vel[w->body_list[i]];
		b->v.x = (fix16_t)r[0];
		b->v.y = (fix16_t)r[1];
		b->w = (fix16_t)r[2];
	}
}

static inline int64_t mul64(fix16_t a, int64_t b)
{
	return f2d_round16((int64_t)a * b);
}

/* A hint to the cache (no effect on any value): gcc and clang's prefetch, nothing elsewhere
 * (tcc). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__TINYC__)
#define F2D_PREFETCH(p) __builtin_prefetch(p)
#define F2D_PREFETCH_W(p) __builtin_prefetch(p, 1)
#else
#define F2D_PREFETCH(p) ((void)(p))
#define F2D_PREFETCH_W(p) ((void)(p))
#endif

/* The arbiters of a batch, both cache lines of each (128 bytes, 64-byte aligned: core.h): the
 * pre-step visits them in batch order (colour after colour), which no hardware prefetcher
 * follows; asked one batch ahead, their lines arrive while the batch before is worked on. A
 * hint only: no value changes. */
static inline void prefetch_arbiters(const f2d_world *w, const f2d_contact_batch *bt)
{
	for (int32_t l = 0; l < bt->lanes; ++l) {
		const char *arb = (const char *)(const void *)&w->arbiters[bt->arbiter[l]];
		F2D_PREFETCH(arb);
		F2D_PREFETCH(arb + 64);
	}
}

/* The accumulated impulses go back to the arbiters (warm starting, hash, snapshots). The point
 * count is the batch's (bt->points: the pre-step wrote the arbiter's count there, or found it
 * there for a kept lane, and nothing changes the arbiters between the pre-step and here), so
 * the arbiters are only written, in their first line (the points' impulses lie in bytes 0..63),
 * asked for one batch ahead. */
_Static_assert(offsetof(f2d_arbiter, points) + sizeof(f2d_contact_point) +
                           offsetof(f2d_contact_point, pn) + 4 <=
                       64 &&
                   offsetof(f2d_arbiter, points) + sizeof(f2d_contact_point) +
                           offsetof(f2d_contact_point, pt) + 4 <=
                       64,
               "store_impulses writes the first line of an arbiter");
static inline void store_impulses(f2d_world *w)
{
	for (int32_t b = 0; b < w->batch_count; ++b) {
		const f2d_contact_batch *bt = &w->batches[b];
		if (b + 1 < w->batch_count) {
			const f2d_contact_batch *next = bt + 1;
			for (int32_t l = 0; l < next->lanes; ++l) {
				F2D_PREFETCH_W(&w->arbiters[next->arbiter[l]]);
			}
		}
		for (int32_t l = 0; l < bt->lanes; ++l) {
			f2d_arbiter *arb = &w->arbiters[bt->arbiter[l]];
			for (int32_t i = 0; i < bt->points[l]; ++i) {
				arb->points[i].pn = bt->p[i].pn[l];
				arb->points[i].pt = bt->p[i].pt[l];
			}
		}
	}
}

/* ---- one lane, scalar ---- */

/* One point of one lane, and the lane: the batch's values copied out. */
typedef struct cpoint {
	fix16_t rn_a, rn_b, rt_a, rt_b, wn_a, wn_b, wt_a, wt_b, mass_n, mass_t, bias, pn, pt;
	fix16_t bounce;
} cpoint;

typedef struct clane {
	f2d_vec2 n, dva, dvb;
	fix16_t friction, k12_n, k12_t;
	cpoint p[2];
} clane;

static inline void load_lane(const f2d_contact_batch *bt, int32_t l, clane *c)
{
	c->n = f2d_v(bt->n[l][0], bt->n[l][1]);
	c->dva = f2d_v(bt->dva[l][0], bt->dva[l][1]);
	c->dvb = f2d_v(bt->dvb[l][0], bt->dvb[l][1]);
	c->friction = bt->friction[l];
	c->k12_n = bt->k12[l][0];
	c->k12_t = bt->k12[l][1];
	for (int32_t i = 0; i < 2; ++i) {
		const f2d_point_lanes *pl = &bt->p[i];
		cpoint *p = &c->p[i];
		p->rn_a = pl->rn[l][0];
		p->rn_b = pl->rn[l][1];
		p->rt_a = pl->rt[l][0];
		p->rt_b = pl->rt[l][1];
		p->wn_a = pl->wn[l][0];
		p->wn_b = pl->wn[l][1];
		p->wt_a = pl->wt[l][0];
		p->wt_b = pl->wt[l][1];
		p->mass_n = pl->mass_n[l];
		p->mass_t = pl->mass_t[l];
		p->bias = pl->bias[l];
		p->pn = pl->pn[l];
		p->pt = pl->pt[l];
		p->bounce = pl->bounce[l];
	}
}

static inline void store_lane(f2d_contact_batch *bt, int32_t l, const clane *c)
{
	for (int32_t i = 0; i < 2; ++i) {
		bt->p[i].pn[l] = c->p[i].pn;
		bt->p[i].pt[l] = c->p[i].pt;
	}
}

/* Velocities of one arbiter's two bodies, held in locals while its points are solved (the
 * exact path keeps them within the fix16 range; the fast path checks them). */
typedef struct vel64 {
	int64_t vax, vay, wa, vbx, vby, wb;
} vel64;

/* The solver's velocity rows (w->solver_vel): v.x, v.y, w of a body, widened to 64 bits,
 * always within the fix16 range. */
static inline vel64 load_vel(const int64_t *a, const int64_t *b)
{
	vel64 v = {a[0], a[1], a[2], b[0], b[1], b[2]};
	return v;
}

static inline void store_vel(int64_t *a, int64_t *b, const vel64 *v)
{
	a[0] = v->vax;
	a[1] = v->vay;
	a[2] = v->wa;
	b[0] = v->vbx;
	b[1] = v->vby;
	b[2] = v->wb;
}

/* (v_b + w_b x r_b - v_a - w_a x r_a) . d on the local copy, summed exactly in 64 bits and
 * rounded once, not saturated: |d| <= 1 and |r x d| < 2^23 (shapes of moving bodies are within
 * 32 m), so the sum is below 2^55 and the result below 2^39. */
static inline int64_t rel_vel64(const vel64 *v, f2d_vec2 d, fix16_t rd_a, fix16_t rd_b)
{
	int64_t s = ((int64_t)v->vbx - v->vax) * d.x + ((int64_t)v->vby - v->vay) * d.y +
	            (int64_t)v->wb * rd_b - (int64_t)v->wa * rd_a;
	return f2d_round16(s);
}

static inline fix16_t rel_vel(const vel64 *v, f2d_vec2 d, fix16_t rd_a, fix16_t rd_b)
{
	return f2d_sat(rel_vel64(v, d, rd_a, rd_b));
}

/* v + d in 64 bits, saturated to the fix16 range; a saturation is recorded in *sat (the step
 * then reports F2D_ERROR_OVERFLOW) instead of wrapping. */
static inline fix16_t add_sat(int64_t v, int64_t d, bool *sat)
{
	return f2d_sat_flag(v + d, sat);
}

/* Applies impulses l1 at point 1 and l2 at point 2 along n (tangent false) or along
 * t = (n.y, -n.x) (tangent true, response (dv.y, -dv.x)): both share the linear response, so
 * the linear change is (l1 + l2) dv; the angular one is l1 dw1 + l2 dw2. Sums in 64 bits
 * (|l1 + l2| < 2^32, |dv| <= 2^31: below 2^63), one rounding per component, saturated (and
 * reported) rather than wrapped. */
static inline void apply2(vel64 *v, fix16_t l1, fix16_t l2, const clane *c, const cpoint *p1,
                          const cpoint *p2, bool tangent, bool *sat)
{
	int64_t l = (int64_t)l1 + l2;
	f2d_vec2 dva = tangent ? f2d_v(c->dva.y, -c->dva.x) : c->dva;
	f2d_vec2 dvb = tangent ? f2d_v(c->dvb.y, -c->dvb.x) : c->dvb;
	v->vax = add_sat(v->vax, -f2d_round16(l * dva.x), sat);
	v->vay = add_sat(v->vay, -f2d_round16(l * dva.y), sat);
	v->vbx = add_sat(v->vbx, f2d_round16(l * dvb.x), sat);
	v->vby = add_sat(v->vby, f2d_round16(l * dvb.y), sat);
	fix16_t wa1 = tangent ? p1->wt_a : p1->wn_a, wb1 = tangent ? p1->wt_b : p1->wn_b;
	fix16_t wa2 = tangent ? p2->wt_a : p2->wn_a, wb2 = tangent ? p2->wt_b : p2->wn_b;
	v->wa = add_sat(v->wa, -f2d_round16((int64_t)l1 * wa1 + (int64_t)l2 * wa2), sat);
	v->wb = add_sat(v->wb, f2d_round16((int64_t)l1 * wb1 + (int64_t)l2 * wb2), sat);
}

/* Friction, one point: lambda = -m_t vt, |P_t| <= mu P_n; returns the applied increment.
 * P_t and the cone both lie in [-(2^31 - 1), 2^31 - 1], so their difference may not fit 32
 * bits (a cone that shrank from +max to -max in one step): the increment is saturated and the
 * accumulated impulse moves by exactly what is applied. */
static inline fix16_t friction_step(cpoint *cp, fix16_t vt, fix16_t friction, bool *sat)
{
	int64_t max_pt = mul64(friction, cp->pn);
	max_pt = max_pt > INT32_MAX ? INT32_MAX : max_pt;
	int64_t pt = (int64_t)cp->pt - mul64(cp->mass_t, vt);
	pt = pt < -max_pt ? -max_pt : (pt > max_pt ? max_pt : pt);
	int64_t d64 = pt - cp->pt;
	*sat |= d64 > INT32_MAX || d64 < -INT32_MAX;
	fix16_t d = f2d_sat(d64);
	cp->pt += d;
	return d;
}

/* Normal, one point: lambda = m_n (bias - vn), P_n = max(P_n + lambda, 0). */
static inline fix16_t normal_step(cpoint *cp, int64_t vn, bool *saturated)
{
	int64_t pn = (int64_t)cp->pn + mul64(cp->mass_n, f2d_sat((int64_t)cp->bias - vn));
	*saturated |= pn > INT32_MAX;
	pn = pn < 0 ? 0 : (pn > INT32_MAX ? INT32_MAX : pn);
	fix16_t d = (fix16_t)pn - cp->pn;
	cp->pn = (fix16_t)pn;
	return d;
}

#define FAST_BIAS ((uint64_t)1 << 30)
#define FAST_LIMIT ((uint64_t)1 << 31)

/* the wrapping arithmetic and the checks are fmath.h's (shared with the joint solver) */

static inline int64_t wmul16(int64_t a, int64_t b)
{
	return f2d_wround16(f2d_wmul(a, b));
}

/* solver.c: the warm start of every batch on the rows w->solver_vel (SIMD kernel, scalar fast
 * path, exact path), without vel_in / vel_out */
void f2d_contacts_warm_rows(f2d_world *w);

/* The soft pass's constants of a substep (f2d_softness) as 64-bit words, read by the SIMD
 * kernels as broadcasts (solver_soft.c makes them once per pass): br, ms, is the bias_rate,
 * mass_scale and impulse_scale by the lane's stiffness (index 1: against a body that cannot
 * move) */
typedef struct f2d_soft_consts {
	int64_t br[2], ms[2], is[2], inv_h, max_push;
} f2d_soft_consts;

/* A bit per lane of the batch with a bounce pending (the soft passes leave those to the exact
 * path). Built by shifts: no vectorized variable shift, which clang makes of float
 * conversions. */
static inline unsigned f2d_soft_bounce_lanes(const f2d_contact_batch *bt)
{
	unsigned bounce = 0;
	for (int32_t l = bt->bounce ? bt->lanes - 1 : -1; l >= 0; --l) {
		bounce = bounce << 1 | ((bt->p[0].bounce[l] | bt->p[1].bounce[l]) != 0 ? 1u : 0u);
	}
	return bounce;
}

/* solver.c: the soft pass (solver_soft.c's soft_lane_fast) by the SIMD kernel of that level
 * (solver_kernel.h) on the batches from i on, in order: it stops at a sequential batch
 * (untouched), after a batch with lanes left over (those with a bounce pending among them;
 * their bits in *rest, their state untouched) or at the end, and returns the index of the
 * batch it stopped at. Without SIMD kernels: i, rest untouched. */
int32_t f2d_soft_simd_run(f2d_world *w, int32_t i, int kernel, int32_t flip, bool use_bias,
                          const f2d_soft_consts *k, unsigned *rest);

/* coloring.c: the layout of this step's batches (body_a, body_b, arbiter, lanes, sequential,
 * body_list, the soft step's stiff; kept = 0 on a new layout): the last one when every arbiter's
 * colouring key is the same, else a new colouring. Called by the pre-step. */
void f2d_color_arbiters(f2d_world *w);
#ifdef F2D_CONTACT_COUNT_PATHS
/* colourings kept, colourings built, lanes whose constants were kept, lanes computed */
extern uint64_t f2d_coloring_counts[4];
#endif

/* Whether the SIMD kernels are built (solver.c, solver_prestep.c): x86-64, and not the exact
 * test build (F2D_CONTACT_EXACT_ONLY, tests/test_solver_paths.c) */
#if F2D_X86_SIMD && !defined(F2D_CONTACT_EXACT_ONLY)
#define F2D_HAVE_SIMD 1
#else
#define F2D_HAVE_SIMD 0
#endif

/* ---- the SIMD lane helpers the contact passes (solver.c) and the pre-step (solver_prestep.c)
 * share; only where F2D_SOLVER_LANES is defined before this header (coloring.c has its own
 * AVX2) ---- */
#if F2D_HAVE_SIMD && defined(F2D_SOLVER_LANES)
#include <immintrin.h>

#include "simd_x86.h"

/* AVX-512 (F, DQ): 8 lanes */
#define AVX512 F2D_TARGET_AVX512

typedef __m512i vq;

AVX512 static inline vq vld(const f2d_lane *p)
{
	return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
AVX512 static inline vq vld64(const int64_t *p)
{
	return _mm512_loadu_si512(p);
}
AVX512 static inline vq vmul(vq a, vq b)
{
	return _mm512_mul_epi32(a, b);
}
AVX512 static inline vq vadd(vq a, vq b)
{
	return _mm512_add_epi64(a, b);
}
AVX512 static inline vq vsub(vq a, vq b)
{
	return _mm512_sub_epi64(a, b);
}

/* AVX2: 4 lanes */
#define AVX2 F2D_TARGET_AVX2

/* a pair of lanes (f2d_lane2): the low halves of a and b side by side (vst's truncation) */
AVX512 static inline void vst2(void *p, vq a, vq b)
{
	_mm512_storeu_si512(p, _mm512_mask_blend_epi32(0xAAAA, a, _mm512_slli_epi64(b, 32)));
}
/* the first and the second values of a pair of lanes, sign-extended (any use) */
AVX512 static inline vq vld2_lo(const void *p)
{
	return _mm512_srai_epi64(_mm512_slli_epi64(_mm512_loadu_si512(p), 32), 32);
}
AVX512 static inline vq vld2_hi(const void *p)
{
	return _mm512_srai_epi64(_mm512_loadu_si512(p), 32);
}
AVX2 static inline __m256i ld64_avx2(const int64_t *p)
{
	return _mm256_loadu_si256((const __m256i *)(const void *)p);
}
/* vst2 on 4 lanes */
AVX2 static inline void st2_avx2(void *p, __m256i a, __m256i b)
{
	_mm256_storeu_si256((__m256i *)p, _mm256_blend_epi32(a, _mm256_slli_epi64(b, 32), 0xAA));
}
/* vld2_lo, vld2_hi on 4 lanes: the value in the low half, its sign (vpsrad by 31) in the high */
AVX2 static inline __m256i ld2_lo_avx2(const void *p)
{
	__m256i x = _mm256_loadu_si256((const __m256i *)p);
	return _mm256_blend_epi32(x, _mm256_srai_epi32(_mm256_shuffle_epi32(x, 0xA0), 31), 0xAA);
}
AVX2 static inline __m256i ld2_hi_avx2(const void *p)
{
	__m256i x = _mm256_loadu_si256((const __m256i *)p);
	return _mm256_blend_epi32(_mm256_shuffle_epi32(x, 0xF5), _mm256_srai_epi32(x, 31), 0xAA);
}
/* the low halves of the 4 lanes (the fix16 values), stored where bits says */
AVX2 static inline void store_bits_256(f2d_lane *p, unsigned bits, __m256i v)
{
	const __m128i lane = _mm_setr_epi32(1, 2, 4, 8);
	__m128i m = _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32((int)bits), lane), lane);
	__m256i low = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
	_mm_maskstore_epi32((int *)(void *)p, m, _mm256_castsi256_si128(low));
}
#endif

#endif
