/* fix2d contact solver: the SIMD kernel, written once for two instruction sets.
 * SPDX-License-Identifier: MIT
 *
 * Included by solver.c only, once per instruction set, after it defined:
 *   K(name)        the function name for this set (name_512, name_256)
 *   K_ATTR         the target attribute
 *   K_W            lanes per vector (8 or 4) and the vector ops below, on K_W 64-bit lanes:
 *   kv             the vector type; kp a lane predicate (mask register or all-ones lanes)
 *   K_LD(p) K_SET1(c) K_ZERO K_ADD K_SUB K_OR K_OR3(a, b, c)
 *   K_LD64(p)      K_W 64-bit words as they are;  K_SRL32(x)  each lane shifted right by 32
 *   K_MUL(a, b)    signed 32 x 32 -> 64 of the low halves (vpmuldq)
 *   K_GT(a, b) K_LT(a, b)  signed compares -> kp;  K_SEL(p, a, b)  p ? a : b
 *   K_MIN(a, b) K_MAX(a, b)  signed
 *   K_OKBITS(acc)  a bit per lane whose acc is below FAST_LIMIT (unsigned)
 *   K_ANY(p)       whether a lane predicate holds in any lane
 *   K_ROUND16(p)   f2d_round16 of each lane (arithmetic shift)
 *   K_ROUND16_B(p), K_RB  f2d_round16 of each lane |p| < 2^62 plus K_RB (a multiple of 2^32,
 *                  the same for every lane: its low half is f2d_round16's), for values whose
 *                  uses are K_MUL operands and checks that add the bias back (AVX2: 2^47, the
 *                  last subtraction of its K_ROUND16 left out; AVX-512: 0)
 *   K_ROUND16_NN(p)  the same for a lane p >= 0: (p + 2^15) >> 16, logical (any other lane's
 *                  result is not f2d_round16's)
 *   K_ROUND16_NN_NEG(p)  f2d_round16(-p) for a lane p <= 0: (2^15 - p) >> 16, logical
 *   K_ROUND16_DIV8(p)  C's f2d_round16(p) / 8 of each lane (the division truncating toward 0),
 *                  |p| < 2^62: for p >= 0 round16(p) = floor((p + 2^15) / 2^16) >= 0, and its
 *                  floor(/ 8) is floor((p + 2^15) / 2^19); for p < 0 round16(p) =
 *                  floor((p + 2^15 - 1) / 2^16) <= 0, whose truncated division by 8 is
 *                  floor((round16(p) + 7) / 8) = floor((p + 2^15 - 1 + 7 2^16) / 2^19)
 *                  (floor(floor(x / a) / b) = floor(x / (a b)) for integers, a, b > 0): one
 *                  rounding shift by 19 with the addend 2^15 or 0x77FFF by the sign
 *   K_STORE_BITS(p, bits, v)  stores the lanes of v whose bit is set
 *   K_ROWS_LOAD / K_ROWS_STORE  the velocity rows of the lanes' bodies, transposed
 *   K_BATCH        1: a batch is several groups (a loop over them); 0: a batch is one group
 *   K_INLINE       the group kernels' inlining (the soft and solve ones are always inlined into
 *                  the runs of batches K(soft_run_*), K(solve_run_f*); K(warm) by K_INLINE)
 * Every function is the scalar fast path (solver.c) on K_W lanes, operation for operation; see
 * there and at "---- SIMD ----" why the products are exact when a lane's check passes. A lane
 * group is K_W lanes of a batch from lane o.
 */

/* The first and the second values of the pairs of lanes from p (f2d_lane2, core.h), for
 * products only (K_MUL): 64-bit lanes whose low halves are those values, the high halves
 * anything (vpmuldq reads the low halves as signed 32-bit values, which is the whole value):
 * the words as loaded, and shifted down (a logical shift: the second value's bits in the low
 * half). Every use below is a K_MUL operand, through K(mul16), K(point_vel), K(apply) and
 * the lin_* sums. */
#ifndef K_LO
#define K_LO(p) K_LD64((const void *)(p))
#define K_HI(p) K_SRL32(K_LD64((const void *)(p)))
#endif

typedef struct K(vvel) {
	kv vax, vay, wa, vbx, vby, wb;
} K(vvel);

K_ATTR static inline kv K(round16)(kv p)
{
	return K_ROUND16(p);
}
K_ATTR static inline kv K(mul16)(kv a, kv b)
{
	return K(round16)(K_MUL(a, b));
}
/* mul16 of factors whose product is >= 0 wherever the result is used: round16 of a
 * non-negative p is (p + 2^15) >> 16 (p + 2^15 < 2^63), the sign term 0 and the shift's fill 0
 * (K_ROUND16_NN, a logical shift; two instructions, against four or five) */
K_ATTR static inline kv K(mul16nn)(kv a, kv b)
{
	return K_ROUND16_NN(K_MUL(a, b));
}
K_ATTR static inline kv K(chk)(kv x)
{
	return K_ADD(x, K_SET1((int64_t)FAST_BIAS));
}

K_ATTR static inline kv K(chk_vel)(const K(vvel) * v)
{
	return K_OR3(K_OR3(K(chk)(v->vax), K(chk)(v->vay), K(chk)(v->wa)), K(chk)(v->vbx),
	             K_OR(K(chk)(v->vby), K(chk)(v->wb)));
}

/* friction_fast; the point data are read where they are used */
K_ATTR static inline kv K(friction)(const f2d_point_lanes *p, int32_t o, kv vt, kv mu, kv *acc)
{
	kv pt = K_LD(p->pt + o);
	/* mu in [0, 4] (every arbiter's friction), the stored P_n >= 0 (clamped at 0 by every
	 * path that writes it; a snapshot's are read as unsigned): K(mul16nn) */
	kv max_pt = K_MIN(K(mul16nn)(mu, K_LD(p->pn + o)), K_SET1(INT32_MAX));
	kv neg = K_SUB(K_ZERO, max_pt);
	kv q = K_SUB(pt, K(mul16)(K_LD(p->mass_t + o), vt));
	/* q < -max ? -max : (q > max ? max : q), that is max(min(q, max), -max) as max >= 0 >= -max */
	kv r = K_MAX(K_MIN(q, max_pt), neg);
	kv d = K_SUB(r, pt);
	*acc = K_OR(*acc, K(chk)(d));
	return d;
}

/* normal_fast */
K_ATTR static inline kv K(normal)(const f2d_point_lanes *p, int32_t o, kv vn, kv *pn_out, kv *acc)
{
	kv pn = K_LD(p->pn + o);
	kv e = K_SUB(K_LD(p->bias + o), vn);
	kv q = K_MAX(K_ADD(pn, K(mul16)(K_LD(p->mass_n + o), e)), K_ZERO);
	kv d = K_SUB(q, pn);
	/* q >= 0 (the clamp) goes into the check as it is: below 2^31 it is a fix16 value, which
	 * is all the exact path's clamp at INT32_MAX and the uses of q ask (a product operand,
	 * d in (-2^31, 2^31)); the scalar path's [0, 2^30) is stricter, with the same bits */
	*acc = K_OR3(*acc, K(chk)(e), K_OR(q, K(chk)(d)));
	*pn_out = q;
	return d;
}

/* apply_fast; dva / dvb are n / m (x, y) */
K_ATTR static inline void K(apply)(K(vvel) * v, kv l1, kv l2, const f2d_contact_batch *bt,
                                   int32_t o, kv wa1, kv wb1, kv wa2, kv wb2, int dir_t, kv *acc)
{
	kv l = K_ADD(l1, l2);
	kv dv[4] = {K_LO(bt->dva + o), K_HI(bt->dva + o), K_LO(bt->dvb + o), K_HI(bt->dvb + o)};
	if (dir_t) {
		v->vax = K_SUB(v->vax, K(mul16)(l, dv[1]));
		v->vay = K_ADD(v->vay, K(mul16)(l, dv[0]));
		v->vbx = K_ADD(v->vbx, K(mul16)(l, dv[3]));
		v->vby = K_SUB(v->vby, K(mul16)(l, dv[2]));
	} else {
		v->vax = K_SUB(v->vax, K(mul16)(l, dv[0]));
		v->vay = K_SUB(v->vay, K(mul16)(l, dv[1]));
		v->vbx = K_ADD(v->vbx, K(mul16)(l, dv[2]));
		v->vby = K_ADD(v->vby, K(mul16)(l, dv[3]));
	}
	v->wa = K_SUB(v->wa, K(round16)(K_ADD(K_MUL(l1, wa1), K_MUL(l2, wa2))));
	v->wb = K_ADD(v->wb, K(round16)(K_ADD(K_MUL(l1, wb1), K_MUL(l2, wb2))));
	*acc = K_OR(*acc, K(chk_vel)(v));
}

/* point_vel */
K_ATTR static inline kv K(point_vel)(const K(vvel) * v, kv lin, kv rd_a, kv rd_b)
{
	return K(round16)(K_SUB(K_ADD(lin, K_MUL(v->wb, rd_b)), K_MUL(v->wa, rd_a)));
}

/* The linear parts (v_b - v_a) . n and (v_b - v_a) . t, t = (n.y, -n.x), of the velocities
 * as loaded from the rows, without a check: each velocity is a fix16 value (the rows always
 * hold such: solver_internal.h), so each is a product operand as it is, and the four products
 * (each below 2^47 in magnitude) sum exactly in 64 bits to the exact path's
 * (v_b.x - v_a.x) n.x + ...: the same value. (A difference of two velocities may not fit 32
 * bits, which is why the loaded velocities were checked before.) */
K_ATTR static inline kv K(lin_n_rows)(const K(vvel) * v, kv nx, kv ny)
{
	return K_ADD(K_SUB(K_MUL(v->vbx, nx), K_MUL(v->vax, nx)),
	             K_SUB(K_MUL(v->vby, ny), K_MUL(v->vay, ny)));
}
K_ATTR static inline kv K(lin_t_rows)(const K(vvel) * v, kv nx, kv ny)
{
	return K_SUB(K_SUB(K_MUL(v->vbx, ny), K_MUL(v->vax, ny)),
	             K_SUB(K_MUL(v->vby, nx), K_MUL(v->vay, nx)));
}

K_ATTR static inline void K(load)(int64_t (*rows)[4], const f2d_contact_batch *bt, int32_t o,
                                  K(vvel) * v)
{
	K_ROWS_LOAD(rows, bt->body_a + o, &v->vax, &v->vay, &v->wa);
	K_ROWS_LOAD(rows, bt->body_b + o, &v->vbx, &v->vby, &v->wb);
}

/* The lanes of the group that are in use */
static inline unsigned K(live)(const f2d_contact_batch *bt, int32_t o)
{
	int32_t n = bt->lanes - o;
	n = n > K_W ? K_W : n;
	return (1u << n) - 1u;
}

/* solve_fast on the lanes of a group; returns a bit per lane it could not solve (their state
 * is untouched: the caller solves them by the exact path) */
K_ATTR static inline __attribute__((always_inline)) unsigned K(solve)(int64_t (*rows)[4], f2d_contact_batch *bt, int32_t o, int32_t flip)
{
	K(vvel) v;
	K(load)(rows, bt, o, &v);
	kv acc = K_ZERO;
	f2d_point_lanes *l1 = &bt->p[flip], *l2 = &bt->p[flip ^ 1];
	kv nx = K_LO(bt->n + o), ny = K_HI(bt->n + o), mu = K_LD(bt->friction + o);

	/* friction; the rows as loaded (K(lin_rows)) */
	kv lt = K(lin_t_rows)(&v, nx, ny);
	kv v1 = K(point_vel)(&v, lt, K_LO(l1->rt + o), K_HI(l1->rt + o));
	kv v2 = K(point_vel)(&v, lt, K_LO(l2->rt + o), K_HI(l2->rt + o));
	acc = K_OR3(acc, K(chk)(v1), K(chk)(v2));
	kv d1 = K(friction)(l1, o, v1, mu, &acc);
	v2 = K_ADD(v2, K(mul16)(d1, K_HI(bt->k12 + o)));
	acc = K_OR(acc, K(chk)(v2));
	kv d2 = K(friction)(l2, o, v2, mu, &acc);
	K(apply)
	(&v, d1, d2, bt, o, K_LO(l1->wt + o), K_HI(l1->wt + o), K_LO(l2->wt + o),
	 K_HI(l2->wt + o), 1, &acc);

	/* normal */
	kv dx = K_SUB(v.vbx, v.vax), dy = K_SUB(v.vby, v.vay);
	kv ln = K_ADD(K_MUL(dx, nx), K_MUL(dy, ny));
	kv n1 = K(point_vel)(&v, ln, K_LO(l1->rn + o), K_HI(l1->rn + o));
	kv n2 = K(point_vel)(&v, ln, K_LO(l2->rn + o), K_HI(l2->rn + o));
	kv pn1, pn2;
	kv dn1 = K(normal)(l1, o, n1, &pn1, &acc);
	kv dn2 = K(normal)(l2, o, K_ADD(n2, K(mul16)(dn1, K_LO(bt->k12 + o))), &pn2, &acc);
	K(apply)
	(&v, dn1, dn2, bt, o, K_LO(l1->wn + o), K_HI(l1->wn + o), K_LO(l2->wn + o),
	 K_HI(l2->wn + o), 0, &acc);

	unsigned live = K(live)(bt, o);
	unsigned ok = K_OKBITS(acc) & live;
	K_STORE_BITS(l1->pt + o, ok, K_ADD(K_LD(l1->pt + o), d1));
	K_STORE_BITS(l2->pt + o, ok, K_ADD(K_LD(l2->pt + o), d2));
	K_STORE_BITS(l1->pn + o, ok, pn1);
	K_STORE_BITS(l2->pn + o, ok, pn2);
	K_ROWS_STORE(rows, bt->body_a + o, ok & (bt->moves_a >> o), v.vax, v.vay, v.wa);
	K_ROWS_STORE(rows, bt->body_b + o, ok & (bt->moves_b >> o), v.vbx, v.vby, v.wb);
	return live & ~ok;
}

/* warm_start_fast on the lanes of a group (apply twice); as K(solve). The sums of the
 * accumulated impulses are checked too: each is a product operand (the impulses themselves are
 * stored fix16 values, 32-bit operands as they are). */
K_ATTR static inline K_INLINE unsigned K(warm)(int64_t (*rows)[4], const f2d_contact_batch *bt, int32_t o)
{
	K(vvel) v;
	K(load)(rows, bt, o, &v);
	const f2d_point_lanes *p1 = &bt->p[0], *p2 = &bt->p[1];
	kv pn1 = K_LD(p1->pn + o), pn2 = K_LD(p2->pn + o);
	kv pt1 = K_LD(p1->pt + o), pt2 = K_LD(p2->pt + o);
	/* the loaded velocities are not product operands here (only summed; each application's
	 * results are checked) and are fix16 values: no check */
	kv acc = K_OR(K(chk)(K_ADD(pn1, pn2)), K(chk)(K_ADD(pt1, pt2)));
	K(apply)
	(&v, pn1, pn2, bt, o, K_LO(p1->wn + o), K_HI(p1->wn + o), K_LO(p2->wn + o),
	 K_HI(p2->wn + o), 0, &acc);
	K(apply)
	(&v, pt1, pt2, bt, o, K_LO(p1->wt + o), K_HI(p1->wt + o), K_LO(p2->wt + o),
	 K_HI(p2->wt + o), 1, &acc);
	unsigned live = K(live)(bt, o);
	unsigned ok = K_OKBITS(acc) & live;
	K_ROWS_STORE(rows, bt->body_a + o, ok & (bt->moves_a >> o), v.vax, v.vay, v.wa);
	K_ROWS_STORE(rows, bt->body_b + o, ok & (bt->moves_b >> o), v.vbx, v.vby, v.wb);
	return live & ~ok;
}

/* soft_lane_fast (solver_soft.c) on the lanes of a group: the soft step's pass, the normal
 * block then the friction block (two points each, the second's velocity moved by the first's
 * impulse through k12, one application per block). As
 * K(solve), a bit per lane it could not solve is returned (state untouched): a lane with a
 * bounce pending (skip), or whose check failed. Besides the scalar path's checks, the moves of
 * the centres (dc_b - dc_a, up to 2^33 in the scalar path) and the turns are checked, as
 * product operands;
 * every other product operand is a fix16 value, a clamped impulse or a checked value.
 * Where the exact path saturates without a report (the separations, the relative velocities,
 * the targets' errors, the slips and the anchored vt), the kernel checks instead: a lane whose
 * value is in [-2^30, 2^30) gets the exact path's bits (the saturation is the identity there),
 * any other falls back (values of 16384 m, m/s or more; cheaper than the clamps on AVX2, which
 * has no 64-bit min and max). The upper clamp of P_n at INT32_MAX is the check's too. br, ms,
 * is: bias_rate, mass_scale, impulse_scale of index 0 and 1 (stiff), from f2d_soft_consts
 * (solver_internal.h: 64-bit words, read as broadcasts). */
K_ATTR static inline __attribute__((always_inline)) unsigned K(soft)(int64_t (*rows)[4], int64_t (*disp)[4], f2d_contact_batch *bt,
                               int32_t o, int32_t flip, int use_bias, const f2d_soft_consts *k,
                               unsigned skip)
{
	K(vvel) v;
	K(load)(rows, bt, o, &v);
	kv dxa, dya, dta, dxb, dyb, dtb;
	K_ROWS_LOAD(disp, bt->body_a + o, &dxa, &dya, &dta);
	K_ROWS_LOAD(disp, bt->body_b + o, &dxb, &dyb, &dtb);
	kv ddx = K_SUB(dxb, dxa), ddy = K_SUB(dyb, dya);
	/* the moves of the centres are checked (product operands); the turns need no check:
	 * |dtheta| < 2^17 always (solver_soft.c, soft_separation), a 32-bit operand as it is.
	 * Nor do the velocities as loaded (K(lin_n_rows)) */
	kv acc = K_OR(K(chk)(ddx), K(chk)(ddy));
	kv nx = K_LO(bt->n + o), ny = K_HI(bt->n + o);
	kv lin = K(round16)(K_ADD(K_MUL(ddx, nx), K_MUL(ddy, ny)));
	const kv hi = K_SET1(INT32_MAX);
	kv br = K_ZERO, ms = K_ZERO, is = K_ZERO;
	if (use_bias) {
		kp stiff = K_GT(K_LD(bt->stiff + o), K_ZERO);
		br = K_SEL(stiff, K_SET1(k->br[1]), K_SET1(k->br[0]));
		ms = K_SEL(stiff, K_SET1(k->ms[1]), K_SET1(k->ms[0]));
		is = K_SEL(stiff, K_SET1(k->is[1]), K_SET1(k->is[0]));
	}
	f2d_point_lanes *pp[2] = {&bt->p[flip], &bt->p[flip ^ 1]};
	/* the separations first (they do not depend on the velocities): a group whose points all
	 * have a gap, or all a depth, computes one target */
	kv sv[2];
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *p = pp[i];
		kv ang =
		    K(round16)(K_SUB(K_MUL(dtb, K_HI(p->rn + o)), K_MUL(dta, K_LO(p->rn + o))));
		sv[i] = K_ADD(K_ADD(K_LD(p->sep + o), lin), ang);
		acc = K_OR(acc, K(chk)(sv[i]));
	}
	/* the friction anchors (soft_slip, soft_anchor: round16(slip inv_h) / 8, the slip a product
	 * operand, checked; the division truncating, both in K_ROUND16_DIV8), which do not depend
	 * on the velocities either: the displacements are not needed past here */
	kv a8[2] = {K_ZERO, K_ZERO};
	if (use_bias) {
		/* the linear part, shared: (ddx, ddy) . (ny, -nx); ddx, ddy checked above */
		/* lin_t and ang_t each K_RB off (K_ROUND16_B): the slip is 2 K_RB off, a multiple
		 * of 2^32, so its low half (all K_MUL reads of it) is the slip's, and its check
		 * adds FAST_BIAS - 2 K_RB: the same sum mod 2^64 as K(chk) of the slip */
		kv lin_t = K_ROUND16_B(K_SUB(K_MUL(ddx, ny), K_MUL(ddy, nx)));
		for (int32_t i = 0; i < 2; ++i) {
			f2d_point_lanes *p = pp[i];
			kv ang_t = K_ROUND16_B(
			    K_SUB(K_MUL(dtb, K_HI(p->rt + o)), K_MUL(dta, K_LO(p->rt + o))));
			kv slip = K_ADD(lin_t, ang_t);
#if K_RB == 0
			acc = K_OR(acc, K(chk)(slip));
#else
			acc = K_OR(acc, K_ADD(slip, K_SET1((int64_t)(FAST_BIAS - 2u * (uint64_t)K_RB))));
#endif
			a8[i] = K_ROUND16_DIV8(K_MUL(slip, K_SET1(k->inv_h)));
		}
	}
	bool gaps = K_ANY(K_GT(sv[0], K_ZERO)) || K_ANY(K_GT(sv[1], K_ZERO));
	bool depths = K_ANY(K_LT(sv[0], K_SET1(1))) || K_ANY(K_LT(sv[1], K_SET1(1)));
	kv pn[2], pt[2], dp[2];
	/* the normal block: both points from the velocities as loaded, point 2's moved by point
	 * 1's impulse through k12_n, one application */
	kv ln = K(lin_n_rows)(&v, nx, ny);
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *p = pp[i];
		kv rna = K_LO(p->rn + o), rnb = K_HI(p->rn + o);
		kv pn0 = K_LD(p->pn + o), mn = K_LD(p->mass_n + o);
		kv s = sv[i];
		kv vn = K(point_vel)(&v, ln, rna, rnb);
		if (i == 1) {
			vn = K_ADD(vn, K(mul16)(dp[0], K_LO(bt->k12 + o)));
		}
		acc = K_OR(acc, K(chk)(vn));
		/* s > 0: m_n sat(-s / h - vn). One product by m_n per point: a gap's error and a
		 * depth's are selected before it (the selected lanes' products are the ones
		 * computed apart before), and only when the group has both kinds */
		kv q;
		if (use_bias) {
			kv e = K_ZERO;
			if (depths) {
				/* e needs no check: where it is used (s <= 0) the target is in
				 * [0, max_push] (br >= 0, -s >= 0), |vn| < 2^30 (checked) and
				 * 0 <= ms <= 2^16 (make_soft: a2 / (1 + a2)), so |ms vn| <= 2^30
				 * and e is in (-2^30 - 1, 2^30 + 3 2^16]: the exact path's f2d_sat
				 * is the identity there, and e is a 32-bit product operand */
				/* br >= 0 and, where e is used (s <= 0), -s >= 0: round16 of
				 * br (-s) = -(br s) >= 0, K_ROUND16_NN_NEG of br s (s checked: a
				 * 32-bit operand, as -s) */
				kv target = K_MIN(K_ROUND16_NN_NEG(K_MUL(br, s)), K_SET1(k->max_push));
				e = K_SUB(target, K(mul16)(ms, vn));
			}
			/* P_n >= 0 and is >= 0: K(mul16nn); a depth's only */
			kv isp = K(mul16nn)(is, pn0);
			if (gaps) {
				kv gap = K(mul16)(s, K_SET1(k->inv_h));
				kv eg = K_SUB(K_SUB(K_ZERO, gap), vn);
				acc = K_OR(acc, K(chk)(eg));
				kp g = K_GT(s, K_ZERO);
				e = K_SEL(g, eg, e);
				isp = K_SEL(g, K_ZERO, isp);
			}
			q = K_ADD(pn0, K_SUB(K(mul16)(mn, e), isp));
		} else {
			/* the relax pass: lam = m_n (-y), y = vn at a depth, gap + vn at a gap;
			 * round16 is odd (round16(-p) = -round16(p)), so lam = -round16(m_n y),
			 * subtracted: no negation (and where the check of e = -y passes, y is a
			 * 32-bit operand as -y) */
			kv y = vn;
			if (gaps) {
				kv yg = K_ADD(K(mul16)(s, K_SET1(k->inv_h)), vn);
				/* the check of e = -yg: e + 2^30 = 2^30 - yg */
				acc = K_OR(acc, K_SUB(K_SET1((int64_t)FAST_BIAS), yg));
				y = K_SEL(K_GT(s, K_ZERO), yg, vn);
			}
			q = K_SUB(pn0, K(mul16)(mn, y));
		}
		/* the clamp at INT32_MAX is the check's: a q above it fails. q >= 0 goes in as it
		 * is (K(normal)): below 2^31 it is a fix16 value, all the exact path's clamp and
		 * the uses below ask */
		q = K_MAX(q, K_ZERO);
		acc = K_OR(acc, q);
		pn[i] = q;
		dp[i] = K_SUB(q, pn0);
	}
	/* |d| < 2^31 each (q and pn0 in [0, 2^31)), but their sum, a product operand of
	 * K(apply), may not fit 32 bits (a stored impulse near INT32_MAX that drops): checked */
	acc = K_OR(acc, K(chk)(K_ADD(dp[0], dp[1])));
	K(apply)
	(&v, dp[0], dp[1], bt, o, K_LO(pp[0]->wn + o), K_HI(pp[0]->wn + o), K_LO(pp[1]->wn + o),
	 K_HI(pp[1]->wn + o), 0, &acc);
	kv mu = K_LD(bt->friction + o);
	/* the friction block, as the normal one (k12_t) */
	kv dx = K_SUB(v.vbx, v.vax), dy = K_SUB(v.vby, v.vay);
	kv lt = K_SUB(K_MUL(dx, ny), K_MUL(dy, nx));
	for (int32_t i = 0; i < 2; ++i) {
		f2d_point_lanes *p = pp[i];
		kv pt0 = K_LD(p->pt + o);
		kv rta = K_LO(p->rt + o), rtb = K_HI(p->rt + o);
		kv vt = K(point_vel)(&v, lt, rta, rtb);
		if (i == 1) {
			vt = K_ADD(vt, K(mul16)(dp[0], K_HI(bt->k12 + o)));
		}
		acc = K_OR(acc, K(chk)(vt));
		if (use_bias) {
			/* soft_anchor: sat(vt + a8), checked */
			vt = K_ADD(vt, a8[i]);
			acc = K_OR(acc, K(chk)(vt));
		}
		/* mu >= 0 (K(friction)), pn[i] >= 0 (clamped above): K(mul16nn) */
		kv max_pt = K_MIN(K(mul16nn)(mu, pn[i]), hi);
		kv neg = K_SUB(K_ZERO, max_pt);
		kv q = K_SUB(pt0, K(mul16)(K_LD(p->mass_t + o), vt));
		/* clamped to [-max, max] (K(friction)) */
		kv r = K_MAX(K_MIN(q, max_pt), neg);
		kv d = K_SUB(r, pt0);
		acc = K_OR(acc, K(chk)(d));
		pt[i] = r;
		dp[i] = d;
	}
	K(apply)
	(&v, dp[0], dp[1], bt, o, K_LO(pp[0]->wt + o), K_HI(pp[0]->wt + o), K_LO(pp[1]->wt + o),
	 K_HI(pp[1]->wt + o), 1, &acc);
	unsigned live = K(live)(bt, o);
	unsigned ok = K_OKBITS(acc) & live & ~skip;
	K_STORE_BITS(pp[0]->pn + o, ok, pn[0]);
	K_STORE_BITS(pp[1]->pn + o, ok, pn[1]);
	K_STORE_BITS(pp[0]->pt + o, ok, pt[0]);
	K_STORE_BITS(pp[1]->pt + o, ok, pt[1]);
	K_ROWS_STORE(rows, bt->body_a + o, ok & (bt->moves_a >> o), v.vax, v.vay, v.wa);
	K_ROWS_STORE(rows, bt->body_b + o, ok & (bt->moves_b >> o), v.vbx, v.vby, v.wb);
	return live & ~ok;
}

#if K_BATCH
/* The group kernels on every group of a batch, in lane order, inside the runs below (one call
 * per run of batches: the kernels' register saves and restores are paid once per run); a bit
 * per lane left over (bit o + i: lane i of the group at o) */
/* K(solve) on every group of a batch in lane order; a bit per lane left over */
#define K_SOLVE_GROUPS(rows, bt, F, rest)                                                         \
	do {                                                                                      \
		for (int32_t o = 0; o < (bt)->lanes; o += K_W) {                                  \
			rest |= K(solve)(rows, bt, o, F) << o;                                    \
		}                                                                                 \
	} while (0)
/* K(warm) on every group of a batch in lane order; a bit per lane left over */
#define K_WARM_GROUPS(rows, bt, rest)                                                             \
	do {                                                                                      \
		for (int32_t o = 0; o < (bt)->lanes; o += K_W) {                                  \
			rest |= K(warm)(rows, bt, o) << o;                                        \
		}                                                                                 \
	} while (0)

/* K(soft) on every group of a batch in lane order; a bit per lane left over */
#define K_SOFT_GROUPS(rows, disp, bt, F, B, k, skip, rest)                                        \
	do {                                                                                      \
		for (int32_t o = 0; o < (bt)->lanes; o += K_W) {                                  \
			rest |= K(soft)(rows, disp, bt, o, F, B, k, ((skip) >> o) & ((1u << K_W) - 1u)) \
			        << o;                                                             \
		}                                                                                 \
	} while (0)
#else
/* K(solve) on the one group of a batch (K_W = F2D_LANES) */
#define K_SOLVE_GROUPS(rows, bt, F, rest) (rest = K(solve)(rows, bt, 0, F))
/* K(warm) on the one group of a batch (K_W = F2D_LANES) */
#define K_WARM_GROUPS(rows, bt, rest) (rest = K(warm)(rows, bt, 0))
/* K(soft) on the one group of a batch (K_W = F2D_LANES) */
#define K_SOFT_GROUPS(rows, disp, bt, F, B, k, skip, rest)                                        \
	(rest = K(soft)(rows, disp, bt, 0, F, B, k, skip))
#endif
/* The warm start on the batches from i on, in order, as K_SOFT_RUN below: one call runs many
 * batches; it stops at a sequential batch (untouched), after a batch with lanes left over
 * (their bits in *rest, their state untouched) or at n, and returns the index of the batch it
 * stopped at. */
K_ATTR static int32_t K(warm_run)(int64_t (*rows)[4], const f2d_contact_batch *bts, int32_t i,
                                  int32_t n, unsigned *rest)
{
	for (; i < n; ++i) {
		const f2d_contact_batch *bt = &bts[i];
		if (bt->sequential) {
			break;
		}
		unsigned r = 0;
		K_WARM_GROUPS(rows, bt, r);
		if (r != 0) {
			*rest = r;
			break;
		}
	}
	return i;
}
#undef K_WARM_GROUPS

/* A Gauss-Seidel pass on the batches from i on, as K(warm_run), one function per flip (a
 * constant there, as in K_SOFT_RUN) */
#define K_SOLVE_RUN(F)                                                                            \
	K_ATTR static int32_t K(solve_run_f##F)(int64_t(*rows)[4], f2d_contact_batch * bts,       \
	                                        int32_t i, int32_t n, unsigned *rest)             \
	{                                                                                         \
		for (; i < n; ++i) {                                                              \
			f2d_contact_batch *bt = &bts[i];                                          \
			if (bt->sequential) {                                                     \
				break;                                                            \
			}                                                                         \
			unsigned r = 0;                                                           \
			K_SOLVE_GROUPS(rows, bt, F, r);                                           \
			if (r != 0) {                                                             \
				*rest = r;                                                        \
				break;                                                            \
			}                                                                         \
		}                                                                                 \
		return i;                                                                         \
	}
K_SOLVE_RUN(0)
K_SOLVE_RUN(1)
#undef K_SOLVE_RUN
#undef K_SOLVE_GROUPS

/* The soft pass on the batches from i on, in order, one function per (flip, use_bias): both are
 * constants there, so the points' lanes are addressed from bt by fixed offsets and the branches
 * on use_bias are gone; and one call runs many batches (the set-up of the constants and the
 * register saves once). It stops at a sequential batch (untouched: the caller's), after a
 * batch with lanes left over (those with a bounce pending, f2d_soft_bounce_lanes, among them;
 * their bits in *rest, their state untouched) or at n, and returns the index of the batch it
 * stopped at. */
#define K_SOFT_RUN(FB, F, B)                                                                      \
	K_ATTR static int32_t K(soft_run_##FB)(int64_t(*rows)[4], int64_t(*disp)[4],              \
	                                       f2d_contact_batch * bts, int32_t i, int32_t n,     \
	                                       const f2d_soft_consts *k, unsigned *rest)          \
	{                                                                                         \
		for (; i < n; ++i) {                                                              \
			f2d_contact_batch *bt = &bts[i];                                          \
			if (bt->sequential) {                                                     \
				break;                                                            \
			}                                                                         \
			unsigned skip = bt->bounce ? f2d_soft_bounce_lanes(bt) : 0u, r = 0;       \
			K_SOFT_GROUPS(rows, disp, bt, F, B, k, skip, r);                          \
			if (r != 0) {                                                             \
				*rest = r;                                                        \
				break;                                                            \
			}                                                                         \
		}                                                                                 \
		return i;                                                                         \
	}
K_SOFT_RUN(f0b0, 0, 0)
K_SOFT_RUN(f0b1, 0, 1)
K_SOFT_RUN(f1b0, 1, 0)
K_SOFT_RUN(f1b1, 1, 1)
#undef K_SOFT_RUN
#undef K_SOFT_GROUPS

#ifdef F2D_CONTACT_COUNT_PATHS
/* test_solver_paths' check of the pairs of lanes ("pairs"; solver.c, f2d_test_kernel_pairs):
 * K_LO and K_HI of the pairs from p */
K_ATTR static inline kv K(test_lo)(const void *p)
{
	return K_LO(p);
}
K_ATTR static inline kv K(test_hi)(const void *p)
{
	return K_HI(p);
}

/* test_solver_paths' check of this width's rounding shortcuts ("roundings"; solver.c,
 * f2d_test_kernel_roundings) on the 8 values p, K_W at a time: out[0] K(round16), out[1]
 * K_ROUND16_NN (f2d_round16 for p >= 0), out[2] K_ROUND16_NN_NEG (f2d_round16(-p) for p <= 0),
 * out[3] K_ROUND16_DIV8 (f2d_round16(p) / 8, |p| < 2^62) */
K_ATTR static void K(test_roundings)(const int64_t *p, int64_t (*out)[8])
{
	for (int32_t o = 0; o < 8; o += K_W) {
		kv x, r[4];
		memcpy(&x, p + o, sizeof x);
		r[0] = K(round16)(x);
		r[1] = K_ROUND16_NN(x);
		r[2] = K_ROUND16_NN_NEG(x);
		r[3] = K_ROUND16_DIV8(x);
		for (int32_t i = 0; i < 4; ++i) {
			memcpy(out[i] + o, &r[i], sizeof r[i]);
		}
	}
}
#endif

/* The soft pass's run (K_SOFT_RUN) of the variant of (flip, use_bias) (no target attribute:
 * inlined into its caller) */
static inline int32_t K(soft_run)(int64_t (*rows)[4], int64_t (*disp)[4], f2d_contact_batch *bts,
                                  int32_t i, int32_t n, int32_t flip, int use_bias,
                                  const f2d_soft_consts *k, unsigned *rest)
{
	if (flip) {
		return use_bias ? K(soft_run_f1b1)(rows, disp, bts, i, n, k, rest)
		                : K(soft_run_f1b0)(rows, disp, bts, i, n, k, rest);
	}
	return use_bias ? K(soft_run_f0b1)(rows, disp, bts, i, n, k, rest)
	                : K(soft_run_f0b0)(rows, disp, bts, i, n, k, rest);
}
