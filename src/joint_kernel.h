/* fix2d revolute joints' lanes: the SIMD kernels, written once for two instruction sets.
 * SPDX-License-Identifier: MIT
 *
 * Included by joint_lanes.c only, once per instruction set, after it defined:
 *   J(name)        the function name for this set (name_512, name_256)
 *   J_ATTR         the target attribute
 *   J_W            lanes per vector (8 or 4); a group is the J_W lanes of a batch from lane o
 *   jv             the vector type (J_W 64-bit lanes); jp a lane predicate (a mask register or
 *                  all-ones lanes)
 *   J_LD(p) J_ST(p, v)  load and store J_W int64_t
 *   J_SET1(c) J_ZERO J_ADD J_SUB J_OR J_OR3(a, b, c)
 *   J_MUL(a, b)    signed 32 x 32 -> 64 of the low halves (vpmuldq)
 *   J_R16(p)       f2d_round16 of each lane (arithmetic shift)
 *   J_TRUNC32(v)   the low 32 bits of each lane, sign-extended (the casts to fix16_t)
 *   J_MIN J_MAX    signed;  J_ABS |x| with |INT64_MIN| = INT64_MIN (fit_abs64 as unsigned)
 *   J_LT(a, b) J_GT(a, b)  signed compares -> jp;  J_LE_U(a, b)  unsigned a <= b -> jp
 *   J_PAND(p, q) J_POR(p, q) J_PANDNOT(p, q) (~p & q)  J_PBITS(p)  a bit per lane of p
 *   J_OKBITS(acc)  a bit per lane whose check accumulator is below 2^31 (unsigned)
 *   J_STORE_BITS(p, bits, v)  stores the lanes of v whose bit is set
 *   J_VEL(x, bodies, idx, o, out)   v.x, v.y, w of the bodies idx[o..o + J_W) into out[0..2]
 *   J_POSE(x, bodies, idx, o, out)  q.c, q.s, center.x, center.y of them into out[0..3]
 *                  (both 0 in the lanes that are not live, x->live)
 * Every function is the scalar fast path of src/joint.c on J_W lanes, operation for operation;
 * see there (and at joint_lanes.c's head) why the products are exact when a lane's check
 * passes. The rows of the lanes' velocities v[6][8] are: v.x, v.y, w of body a, then of b.
 */

J_ATTR static inline jv J(chk)(jv x)
{
	return J_ADD(x, J_SET1((int64_t)1 << 30));
}

/* f2d_mul of two fix16 lanes: the product rounded, its low 32 bits */
J_ATTR static inline jv J(fmul)(jv a, jv b)
{
	return J_TRUNC32(J_R16(J_MUL(a, b)));
}

/* apply_point_fast (joint.c) without an axial impulse on the lanes' velocities vel[6] (rows as
 * v's), P = (px, py) checked or fix16 values; returns the checks of the angular impulses r x P
 * and of the new velocities (the values apply_point saturates). */
J_ATTR static inline jv J(apply)(const f2d_joint_batch *x, int32_t o, jv px, jv py, jv vel[6])
{
	jv ma = J_LD(x->ma + o), mb = J_LD(x->mb + o);
	vel[0] = J_SUB(vel[0], J_R16(J_MUL(ma, px)));
	vel[1] = J_SUB(vel[1], J_R16(J_MUL(ma, py)));
	vel[3] = J_ADD(vel[3], J_R16(J_MUL(mb, px)));
	vel[4] = J_ADD(vel[4], J_R16(J_MUL(mb, py)));
	jv ca = J_R16(J_SUB(J_MUL(J_LD(x->rax + o), py), J_MUL(J_LD(x->ray + o), px)));
	jv cb = J_R16(J_SUB(J_MUL(J_LD(x->rbx + o), py), J_MUL(J_LD(x->rby + o), px)));
	vel[2] = J_SUB(vel[2], J_R16(J_MUL(J_LD(x->ia + o), ca)));
	vel[5] = J_ADD(vel[5], J_R16(J_MUL(J_LD(x->ib + o), cb)));
	return J_OR3(J_OR3(J(chk)(vel[0]), J(chk)(vel[1]), J(chk)(vel[2])),
	             J_OR3(J(chk)(vel[3]), J(chk)(vel[4]), J(chk)(vel[5])),
	             J_OR(J(chk)(ca), J(chk)(cb)));
}

/* The lanes' velocities of both bodies into vel[6] (0 in the lanes that are not live) */
J_ATTR static inline void J(load_vel)(const f2d_joint_batch *x, const f2d_body *bodies, int32_t o,
                                      jv vel[6])
{
	J_VEL(x, bodies, x->ba, o, vel);
	J_VEL(x, bodies, x->bb, o, vel + 3);
}

J_ATTR static inline void J(store_vel)(int64_t v[6][8], int32_t o, const jv vel[6])
{
	for (int32_t r = 0; r < 6; ++r) {
		J_ST(v[r] + o, vel[r]);
	}
}

/* solve_point_fast on the lanes of a group. Every product operand is a fix16 value
 * (velocities, arms, K^-1, masses) or a checked one (bias - Cdot, P, the angular impulses), so
 * vpmuldq (32 x 32 -> 64) gives solve_point_fast's products whenever the lane's check passes.
 * The lanes' new velocities into v; the impulses are updated in the batch for the lanes that
 * passed, which are returned (relax: the relax pass, f2d_joints_relax, with the point's bias
 * 0). */
J_ATTR static inline unsigned J(solve_group)(f2d_joint_batch *x, const f2d_body *bodies,
                                             int64_t v[6][8], bool relax, int32_t o)
{
	jv vel[6];
	J(load_vel)(x, bodies, o, vel);
	jv rax = J_LD(x->rax + o), ray = J_LD(x->ray + o);
	jv rbx = J_LD(x->rbx + o), rby = J_LD(x->rby + o);
	jv cx = J_ADD(J_SUB(J_SUB(vel[3], J_R16(J_MUL(vel[5], rby))), vel[0]),
	              J_R16(J_MUL(vel[2], ray)));
	jv cy = J_SUB(J_SUB(J_ADD(vel[4], J_R16(J_MUL(vel[5], rbx))), vel[1]),
	              J_R16(J_MUL(vel[2], rax)));
	jv bx = relax ? J_ZERO : J_LD(x->bx + o);
	jv by = relax ? J_ZERO : J_LD(x->by + o);
	jv rx = J_SUB(bx, cx), ry = J_SUB(by, cy);
	jv acc = J_OR3(J(chk)(cx), J(chk)(cy), J_OR(J(chk)(rx), J(chk)(ry)));
	jv k12 = J_LD(x->k12 + o);
	jv px = J_R16(J_ADD(J_MUL(J_LD(x->k11 + o), rx), J_MUL(k12, ry)));
	jv py = J_R16(J_ADD(J_MUL(k12, rx), J_MUL(J_LD(x->k22 + o), ry)));
	jv ix = J_ADD(J_LD(x->ix + o), px), iy = J_ADD(J_LD(x->iy + o), py);
	acc = J_OR3(acc, J_OR3(J(chk)(px), J(chk)(py), J(chk)(ix)), J(chk)(iy));
	acc = J_OR(acc, J(apply)(x, o, px, py, vel));
	unsigned ok = J_OKBITS(acc) << o & x->live;
	J(store_vel)(v, o, vel);
	J_STORE_BITS(x->ix + o, ok >> o, ix);
	J_STORE_BITS(x->iy + o, ok >> o, iy);
	return ok;
}

/* warm_start_fast on the lanes of a group (no motor and limits: no axial impulse):
 * apply_point_fast with P the accumulated impulse (fix16 values); returns the lanes that
 * passed, their new velocities in v. */
J_ATTR static inline unsigned J(warm_group)(const f2d_joint_batch *x, const f2d_body *bodies,
                                            int64_t v[6][8], int32_t o)
{
	jv vel[6];
	J(load_vel)(x, bodies, o, vel);
	jv acc = J(apply)(x, o, J_LD(x->ix + o), J_LD(x->iy + o), vel);
	J(store_vel)(v, o, vel);
	return J_OKBITS(acc) << o & x->live;
}

/* A pass (warm start, solve or relax) over the groups of a batch with live lanes */
J_ATTR static unsigned J(pass)(f2d_joint_batch *x, const f2d_body *bodies, int64_t v[6][8],
                               f2d_joint_pass pass)
{
	unsigned ok = 0;
	for (int32_t o = 0; o < x->n; o += J_W) {
		if ((x->live >> o & ((1u << J_W) - 1u)) == 0) {
			continue;
		}
		ok |= pass == F2D_PASS_WARM
		          ? J(warm_group)(x, bodies, v, o)
		          : J(solve_group)(x, bodies, v, pass == F2D_PASS_RELAX, o);
	}
	return ok;
}

/* f2d_inverse22_fits on the lanes of a group: the range test of K (k11, k12, k22), then the row
 * sums of |M K - I| with M the step's K^-1 in the batch; a bit per lane whose M still fits */
J_ATTR static inline unsigned J(fits)(const f2d_joint_batch *x, int32_t o, jv k11, jv k12, jv k22)
{
	jv zero = J_ZERO;
	jv lim = J_SET1(FIT_K_LIMIT), nlim = J_SET1(-FIT_K_LIMIT);
	jp in_range =
	    J_PAND(J_PAND(J_LT(k11, lim), J_LT(k22, lim)), J_PAND(J_LT(k12, lim), J_GT(k12, nlim)));
	in_range = J_PANDNOT(J_POR(J_LT(k11, zero), J_LT(k22, zero)), in_range);
	jv one = J_SET1((int64_t)1 << 32);
	jv m11 = J_LD(x->k11 + o), m12 = J_LD(x->k12 + o), m22 = J_LD(x->k22 + o);
	jv e11 = J_SUB(J_ADD(J_MUL(m11, k11), J_MUL(m12, k12)), one);
	jv e12 = J_ADD(J_MUL(m11, k12), J_MUL(m12, k22));
	jv e21 = J_ADD(J_MUL(m12, k11), J_MUL(m22, k12));
	jv e22 = J_SUB(J_ADD(J_MUL(m12, k12), J_MUL(m22, k22)), one);
	jv row = J_SET1(FIT_ROW);
	jv s1 = J_ADD(J_ABS(e11), J_ABS(e12));
	jv s2 = J_ADD(J_ABS(e21), J_ABS(e22));
	return J_PBITS(J_PAND(in_range, J_PAND(J_LE_U(s1, row), J_LE_U(s2, row))));
}

/* f2d_joint_substep of the live lanes of a group (revolute joints without motor and limits,
 * warm starting on: revolute_geometry with its angle 0, point_k, f2d_inverse22_fits), operation
 * for operation: every product is of two fix16 values (rotations, local arms, the arms, the
 * gap, beta / h, inverse masses and inertias, the step's K^-1 against a k that passed the
 * test's range check), so vpmuldq computes it; the casts of f2d_rotate and f2d_mul keep the low
 * 32 bits as there, and f2d_sat is a clamp. The bias is jmul's, checked as the fast paths
 * check (in [-2^30, 2^30): then jsat was the identity). The arms' local vectors (lax..lby) and
 * K^-1 of the step (k11, k12, k22) are read from the batch. Returns the lanes whose bias passed
 * (the others run f2d_joint_substep) and adds to *fits those whose K^-1 still fits; the arms,
 * biases and K into the lanes (rax..rby, bx, by) and k (k11, k12, k22 of now). */
J_ATTR static inline unsigned J(substep_group)(f2d_joint_batch *x, const f2d_body *bodies,
                                               int32_t o, fix16_t beta_h, fix16_t tol, bool clamp,
                                               int64_t k[3][8], unsigned *fits)
{
	jv pa[4], pb[4]; /* q.c, q.s, center.x, center.y */
	J_POSE(x, bodies, x->ba, o, pa);
	J_POSE(x, bodies, x->bb, o, pb);
	jv lax = J_LD(x->lax + o), lay = J_LD(x->lay + o);
	jv lbx = J_LD(x->lbx + o), lby = J_LD(x->lby + o);
	jv rax = J_TRUNC32(J_R16(J_SUB(J_MUL(pa[0], lax), J_MUL(pa[1], lay))));
	jv ray = J_TRUNC32(J_R16(J_ADD(J_MUL(pa[1], lax), J_MUL(pa[0], lay))));
	jv rbx = J_TRUNC32(J_R16(J_SUB(J_MUL(pb[0], lbx), J_MUL(pb[1], lby))));
	jv rby = J_TRUNC32(J_R16(J_ADD(J_MUL(pb[1], lbx), J_MUL(pb[0], lby))));
	jv zero = J_ZERO, acc = zero;
	jv bx = zero, by = zero;
	if (beta_h != 0) {
		jv smax = J_SET1(INT32_MAX), smin = J_SET1(-INT32_MAX);
		jv gx = J_SUB(J_SUB(J_ADD(pb[2], rbx), pa[2]), rax);
		jv gy = J_SUB(J_SUB(J_ADD(pb[3], rby), pa[3]), ray);
		gx = J_MAX(J_MIN(gx, smax), smin);
		gy = J_MAX(J_MIN(gy, smax), smin);
		if (clamp) {
			jv hi = J_SET1(tol), lo = J_SET1(-(int64_t)tol);
			gx = J_MIN(J_MAX(gx, lo), hi);
			gy = J_MIN(J_MAX(gy, lo), hi);
		}
		jv bh = J_SET1(beta_h);
		jv px = J_R16(J_MUL(bh, gx)), py = J_R16(J_MUL(bh, gy));
		acc = J_OR(J(chk)(px), J(chk)(py));
		bx = J_SUB(zero, px);
		by = J_SUB(zero, py);
	}
	unsigned ok = J_OKBITS(acc) << o & x->live;
	jv ia = J_LD(x->ia + o), ib = J_LD(x->ib + o);
	jv msum = J_ADD(J_LD(x->ma + o), J_LD(x->mb + o));
	jv k11 = J_ADD(J_ADD(msum, J_R16(J_MUL(ia, J(fmul)(ray, ray)))),
	               J_R16(J_MUL(ib, J(fmul)(rby, rby))));
	jv k12 = J_SUB(J_SUB(zero, J_R16(J_MUL(ia, J(fmul)(rax, ray)))),
	               J_R16(J_MUL(ib, J(fmul)(rbx, rby))));
	jv k22 = J_ADD(J_ADD(msum, J_R16(J_MUL(ia, J(fmul)(rax, rax)))),
	               J_R16(J_MUL(ib, J(fmul)(rbx, rbx))));
	*fits |= J(fits)(x, o, k11, k12, k22) << o;
	J_ST(x->rax + o, rax);
	J_ST(x->ray + o, ray);
	J_ST(x->rbx + o, rbx);
	J_ST(x->rby + o, rby);
	J_ST(x->bx + o, bx);
	J_ST(x->by + o, by);
	J_ST(k[0] + o, k11);
	J_ST(k[1] + o, k12);
	J_ST(k[2] + o, k22);
	return ok;
}

/* The substep geometry of the groups of a batch with live lanes (*fits: 0 on entry) */
J_ATTR static unsigned J(substep)(f2d_joint_batch *x, const f2d_body *bodies, fix16_t beta_h,
                                  fix16_t tol, bool clamp, int64_t k[3][8], unsigned *fits)
{
	unsigned ok = 0;
	for (int32_t o = 0; o < x->n; o += J_W) {
		if ((x->live >> o & ((1u << J_W) - 1u)) != 0) {
			ok |= J(substep_group)(x, bodies, o, beta_h, tol, clamp, k, fits);
		}
	}
	return ok;
}
