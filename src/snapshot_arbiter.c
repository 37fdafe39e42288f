/* fix2d snapshots: the portable form's recycled manifolds (version 9: how they are packed,
 * snapshot_internal.h), as residuals against a prediction made from the rest of the state.
 * snapshot.c writes them (encode_arbiters), the loader reads them (snapshot_load_objects.c)
 * and rebuilds the manifolds here once the bodies and shapes are in the world.
 * SPDX-License-Identifier: MIT
 *
 * A recycled arbiter's manifold (contact.c f2d_recycle_arbiter) is what the narrow phase made
 * from the two bodies' poses at its build: the rotations cached_q_a, cached_q_b and the centres
 * c_a0, c_b0, of which r = point - centre keeps the relative one exactly: r_a - r_b = c_b0 -
 * c_a0 = dc0 for every point. The current separations are base + dot(dp, normal) from the poses
 * of the step's contact update. So, with every difference taken modulo 2^32 (modulo 2L + 1 for
 * the components within +-L below, whose range the loader checks):
 *   cached q  - the body's rotation now            (a settled body turned little since)
 *   dc0 = r_a[0] - r_b[0]  - (c_b - c_a) now
 *   normal, r_a[k], base[k] - the narrow phase's at (c_a, cached_q_a), (c_a + dc0, cached_q_b)
 *                        (the same as at the build when the narrow phase is translation
 *                        equivariant; the residual covers any difference)
 *   r_b[1]    - (r_a[1] - dc0)                      (r_b[0] = r_a[0] - dc0 by definition)
 *   separation[k] - f2d_recycle_arbiter's formula with the poses now
 * Correctness never depends on the prediction (only the size does): the decoder makes the same
 * prediction from the same state (bodies, shapes, the decoded cache) and adds the residuals.
 * The prediction is a function of state only (no per-step cache, no kernel choice: every kernel
 * gives the same manifold, tests/test_narrow.c). */
#include "snapshot_internal.h"

/* Components within +-L: a rotation's and a normal's (the loader's range, version 7). A residual
 * of such a component is taken modulo M = 2L + 1 into [-L, L], so any residual in that range
 * gives a component in range and each component has one residual. */
#define ROT_LIM RS_LIM
#define ROT_MOD (2 * ROT_LIM + 1)

static inline int32_t clamp_lim(int32_t v)
{
	return v < -ROT_LIM ? -ROT_LIM : (v > ROT_LIM ? ROT_LIM : v);
}

/* v (|v| <= 2 L + 1) into [-L, L] modulo M */
static inline int32_t wrap_lim(int64_t v)
{
	return (int32_t)(v > ROT_LIM ? v - ROT_MOD : (v < -ROT_LIM ? v + ROT_MOD : v));
}

static inline int32_t wsub(int32_t a, int32_t b)
{
	return u2i((uint32_t)a - (uint32_t)b);
}

static inline int32_t wadd(int32_t a, int32_t b)
{
	return u2i((uint32_t)a + (uint32_t)b);
}

/* The narrow phase at the predicted build poses: body a at its centre now and cached_q_a, body
 * b at c_a + dc0 and cached_q_b (world caches of copies of the shapes; the world is not
 * written). Only when the poses are ordinary (rotations unit within 2^-8, dc0 within 1 m of
 * the centres' difference now: a recycled manifold's are, by the recycling rule), so the narrow
 * phase runs within its range; else, and for points it does not make, the prediction is 0. */
typedef struct guess {
	f2d_vec2 normal;
	f2d_vec2 r_a[2];
	fix16_t base[2];
} guess;

static bool unit_enough(f2d_rot q)
{
	int64_t n = (int64_t)q.c * q.c + (int64_t)q.s * q.s; /* |q| <= 2^17: below 2^35 */
	return f2d_abs64(n - ((int64_t)1 << 32)) <= ((int64_t)1 << 24);
}

static void guess_build(const f2d_world *w, const f2d_arbiter *a, f2d_vec2 dc0, f2d_vec2 res_dc,
                        guess *g)
{
	memset(g, 0, sizeof *g);
	if (f2d_abs64(res_dc.x) > F2D_ONE || f2d_abs64(res_dc.y) > F2D_ONE ||
	    !unit_enough(a->cached_q_a) || !unit_enough(a->cached_q_b)) {
		return;
	}
	const f2d_body *ba = &w->bodies[a->body_a], *bb = &w->bodies[a->body_b];
	/* c_a + dc0 = c_b + res_dc: within 1 m of a loaded centre, so in the world range */
	f2d_vec2 ca = ba->center, cb = f2d_v(wadd(ca.x, dc0.x), wadd(ca.y, dc0.y));
	f2d_shape sa = w->shapes[a->shape_a], sb = w->shapes[a->shape_b];
	const fix16_t spec = w->def.speculative_distance;
	const int kernel = f2d_kernel_level();
	f2d_transform xa = {f2d_snapshot_derived_origin(ca, a->cached_q_a, ba->local_center),
	                    a->cached_q_a};
	f2d_transform xb = {f2d_snapshot_derived_origin(cb, a->cached_q_b, bb->local_center),
	                    a->cached_q_b};
	f2d_shape_update_world_kernel(&sa, xa, spec / 2, kernel);
	f2d_shape_update_world_kernel(&sb, xb, spec / 2, kernel);
	f2d_manifold m;
	f2d_collide_kernel(&sa, &sb, spec, &m, kernel);
	g->normal = m.normal;
	for (int32_t k = 0; k < m.count && k < 2; ++k) {
		g->r_a[k] = f2d_v(wsub(m.points[k].point.x, ca.x), wsub(m.points[k].point.y, ca.y));
		g->base[k] = m.points[k].separation;
	}
}

/* the relative build centre now: c_b - c_a */
static inline f2d_vec2 centres_now(const f2d_world *w, const f2d_arbiter *a)
{
	f2d_vec2 ca = w->bodies[a->body_a].center, cb = w->bodies[a->body_b].center;
	return f2d_v(wsub(cb.x, ca.x), wsub(cb.y, ca.y));
}

static inline int32_t rot_residual(int32_t actual, int32_t predicted)
{
	return wrap_lim((int64_t)actual - clamp_lim(predicted));
}

static inline int32_t rot_value(int32_t residual, int32_t predicted)
{
	return wrap_lim((int64_t)clamp_lim(predicted) + residual);
}

/* A cached rotation against the body's rotation now, q: first the component that is the smaller
 * in q (s when |q.s| <= |q.c|), against q's; then the other against the unit circle through the
 * first: f2d_snapshot_unit_other(first, q's other) (|first| <= L, so first^2 < 2^35), which a
 * rotation unit within 2^-14 (the step's) meets within a few units, whatever the turn since
 * the build. */
static inline int32_t other_guess(int32_t first, int32_t now_other)
{
	return f2d_snapshot_unit_other(first, now_other);
}

static inline bool s_first(f2d_rot q)
{
	return f2d_abs64(q.s) <= f2d_abs64(q.c);
}

static void rot_residuals(f2d_rot cached, f2d_rot q, int32_t *r)
{
	const bool sf = s_first(q);
	const int32_t first = sf ? cached.s : cached.c, other = sf ? cached.c : cached.s;
	r[0] = wrap_lim((int64_t)first - clamp_lim(sf ? q.s : q.c));
	r[1] = wrap_lim((int64_t)other - clamp_lim(other_guess(first, sf ? q.c : q.s)));
}

static f2d_rot rot_rebuild(const int32_t *r, f2d_rot q)
{
	const bool sf = s_first(q);
	const int32_t first = wrap_lim((int64_t)clamp_lim(sf ? q.s : q.c) + r[0]);
	const int32_t other =
	    wrap_lim((int64_t)clamp_lim(other_guess(first, sf ? q.c : q.s)) + r[1]);
	return sf ? (f2d_rot){other, first} : (f2d_rot){first, other};
}

void f2d_snapshot_arbiter_residuals(const f2d_world *w, const f2d_arbiter *a,
                                    f2d_arbiter_residuals *r)
{
	memset(r, 0, sizeof *r);
	const f2d_rot qa = w->bodies[a->body_a].q, qb = w->bodies[a->body_b].q;
	rot_residuals(a->cached_q_a, qa, &r->v[RS_QA]);
	rot_residuals(a->cached_q_b, qb, &r->v[RS_QB]);
	const f2d_contact_point *p = a->points;
	f2d_vec2 dc0 = f2d_v(wsub(p[0].r_a.x, p[0].r_b.x), wsub(p[0].r_a.y, p[0].r_b.y));
	f2d_vec2 now = centres_now(w, a);
	r->v[RS_DC] = wsub(dc0.x, now.x);
	r->v[RS_DC + 1] = wsub(dc0.y, now.y);
	guess g;
	guess_build(w, a, dc0, f2d_v(r->v[RS_DC], r->v[RS_DC + 1]), &g);
	r->v[RS_NORMAL] = rot_residual(a->normal.x, g.normal.x);
	r->v[RS_NORMAL + 1] = rot_residual(a->normal.y, g.normal.y);
	fix16_t sep[2] = {0, 0};
	f2d_recycled_separations(a, &w->bodies[a->body_a], &w->bodies[a->body_b], sep);
	for (int32_t k = 0; k < a->count; ++k) {
		r->v[RS_RA + 2 * k] = wsub(p[k].r_a.x, g.r_a[k].x);
		r->v[RS_RA + 2 * k + 1] = wsub(p[k].r_a.y, g.r_a[k].y);
		r->v[RS_BASE + k] = wsub(a->base_separation[k], g.base[k]);
		r->v[RS_SEP + k] = wsub(p[k].separation, sep[k]);
	}
	if (a->count == 2) {
		r->v[RS_RB1] = wsub(p[1].r_b.x, wsub(p[1].r_a.x, dc0.x));
		r->v[RS_RB1 + 1] = wsub(p[1].r_b.y, wsub(p[1].r_a.y, dc0.y));
	}
}

void f2d_snapshot_arbiter_rebuild(const f2d_world *w, f2d_arbiter *a,
                                  const f2d_arbiter_residuals *r)
{
	const f2d_rot qa = w->bodies[a->body_a].q, qb = w->bodies[a->body_b].q;
	a->cached_q_a = rot_rebuild(&r->v[RS_QA], qa);
	a->cached_q_b = rot_rebuild(&r->v[RS_QB], qb);
	f2d_vec2 now = centres_now(w, a);
	f2d_vec2 dc0 = f2d_v(wadd(now.x, r->v[RS_DC]), wadd(now.y, r->v[RS_DC + 1]));
	guess g;
	guess_build(w, a, dc0, f2d_v(r->v[RS_DC], r->v[RS_DC + 1]), &g);
	a->normal = f2d_v(rot_value(r->v[RS_NORMAL], g.normal.x), rot_value(r->v[RS_NORMAL + 1], g.normal.y));
	f2d_contact_point *p = a->points;
	for (int32_t k = 0; k < a->count; ++k) {
		p[k].r_a = f2d_v(wadd(g.r_a[k].x, r->v[RS_RA + 2 * k]), wadd(g.r_a[k].y, r->v[RS_RA + 2 * k + 1]));
		p[k].r_b = f2d_v(wsub(p[k].r_a.x, dc0.x), wsub(p[k].r_a.y, dc0.y));
		a->base_separation[k] = wadd(g.base[k], r->v[RS_BASE + k]);
	}
	if (a->count == 2) {
		p[1].r_b = f2d_v(wadd(p[1].r_b.x, r->v[RS_RB1]), wadd(p[1].r_b.y, r->v[RS_RB1 + 1]));
	}
	fix16_t sep[2] = {0, 0};
	f2d_recycled_separations(a, &w->bodies[a->body_a], &w->bodies[a->body_b], sep);
	for (int32_t k = 0; k < a->count; ++k) {
		p[k].separation = wadd(sep[k], r->v[RS_SEP + k]);
	}
}
