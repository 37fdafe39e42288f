/* fix2d step internals shared by world.c (the step, and the loops over every body id) and
 * integrate_lists.c (the soft step's body loops by lists, issue 16): the integration of one
 * body's velocity and position, as static inline, and the lists' entry points. Not installed;
 * included after core.h.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_INTEGRATE_INTERNAL_H
#define FIX2D_INTEGRATE_INTERNAL_H

#include "core.h"

/* Symplectic Euler, velocities first: v += h (g + F / m), w += h T / I. Computed in 64 bits:
 * a force the API accepted can still be too large for its body, and the result saturates
 * (reported as F2D_ERROR_OVERFLOW) instead of wrapping. */
static inline fix16_t add_scaled(f2d_world *w, fix16_t v, fix16_t base, fix16_t inv, fix16_t f)
{
	int64_t a = f2d_round16((int64_t)inv * f); /* < 2^47 */
	int64_t ha = f2d_round16(a * w->h);        /* h < 2^13: < 2^60 */
	return f2d_sat_flag((int64_t)v + base + ha, &w->saturated);
}

/* Damping as Box2D applies it, v *= 1 / (1 + h c), in integer form: the factor
 * f = round(2^16 / (1 + h c)) in Q16 (h c = round(h c) in Q16, at most 0.1 s x 1000/s = 100,
 * so f is in [~650, 2^16]: 1/f keeps at least 9 significant bits), then v = round(v f).
 * A damping of 0 gives f = 2^16 exactly and leaves v unchanged (not even computed). */
static inline fix16_t damping_factor(fix16_t h, fix16_t c)
{
	int64_t hc = f2d_round16((int64_t)h * c);
	return f2d_div_exact((int64_t)1 << 16, (int64_t)F2D_ONE + hc);
}

/* A substep's or step's turn: small turns inline (fmath.h, f2d_integrate_rotation_small: the
 * same value); the exact-only test build calls f2d_integrate_rotation itself. */
#ifdef F2D_INTEGRATE_EXACT_ONLY
#define integrate_rotation f2d_integrate_rotation
#else
#define integrate_rotation f2d_integrate_rotation_small
#endif

/* A body's velocity as three values: the body's own or its solver row's (soft_step). */
typedef struct vel3 {
	fix16_t x, y, w;
} vel3;

/* One body's velocity over w->h: integrate_velocities' operations on a body, for the soft
 * step's rows (the default step keeps its own loop, whose code it leaves as it was). */
static inline vel3 integrate_velocity(f2d_world *w, const f2d_body *b, f2d_vec2 hg, vel3 v)
{
	f2d_vec2 g = hg;
	if (b->gravity_scale != F2D_ONE) { /* |scale| <= 16, |h g| < 2^17: exact */
		g = f2d_v(f2d_sat(f2d_round16((int64_t)b->gravity_scale * hg.x)),
		          f2d_sat(f2d_round16((int64_t)b->gravity_scale * hg.y)));
	}
	v.x = add_scaled(w, v.x, g.x, b->inv_mass, b->force.x);
	v.y = add_scaled(w, v.y, g.y, b->inv_mass, b->force.y);
	v.w = add_scaled(w, v.w, 0, b->inv_inertia, b->torque);
	if (b->linear_damping != 0) {
		fix16_t f = damping_factor(w->h, b->linear_damping);
		v.x = f2d_mul(v.x, f); /* |f| <= 1: in range */
		v.y = f2d_mul(v.y, f);
	}
	if (b->angular_damping != 0) {
		v.w = f2d_mul(v.w, damping_factor(w->h, b->angular_damping));
	}
	return v;
}

/* A body whose velocity integration is v += h g: no force, no torque, gravity scale 1, no
 * damping. integrate_velocity then computes, with f = 0: add_scaled's a = round16(inv 0) = 0
 * and ha = 0, so v.x = sat(v.x + hg.x), v.y = sat(v.y + hg.y), v.w = sat(v.w) = v.w (a fix16
 * value); g = hg (scale 1); no damping factor. */
static inline bool gravity_only(const f2d_body *b)
{
	return (b->force.x | b->force.y | b->torque | b->linear_damping | b->angular_damping) ==
	           0 &&
	       b->gravity_scale == F2D_ONE;
}

/* A body's new pose: centre c, its rotation turned by dr, and the origin when asked, from the
 * local c and q (not read back from the body, which would wait for the store; a zero local
 * centre rotates to (0, 0)). The one form of every positions loop. */
static inline void set_pose(f2d_body *b, f2d_vec2 c, fix16_t dr, bool set_origin)
{
	f2d_rot q = integrate_rotation(b->q, dr);
	b->center = c;
	b->q = q;
	if (set_origin) {
		f2d_vec2 lc = b->local_center;
		b->origin = (lc.x | lc.y) == 0 ? c : f2d_sub(c, f2d_rotate(q, lc));
	}
}

/* integrate_positions' operations on one body, for the soft step (the default step keeps its
 * own loop, whose code it leaves as it was; the same operations, so the same bits).
 * One body's positions from its velocity v (the body's own or its solver row's; capped here,
 * zeroed at the world's edge: returns whether v changed). disp, when not NULL, is the body's
 * displacement row of the soft step (solver_soft.c): the centre's move and the turn since the
 * step began, to which this substep's are added (exact integer sums: the move is the new
 * centre minus the old, clamp included; the turn the dr the rotation was advanced by). */
static inline bool integrate_position(f2d_world *w, f2d_body *b, vel3 *v, int64_t max_t,
                                      int64_t max_t2, fix16_t max_r, int64_t *disp,
                                      bool set_origin)
{
	bool changed = false;
	f2d_vec2 d = f2d_v(f2d_mul(w->h, v->x), f2d_mul(w->h, v->y));
	int64_t d2 = f2d_dot64(d, d);
	if (d2 > max_t2) {
		fix16_t len = (fix16_t)f2d_isqrt64_round((uint64_t)d2);
		fix16_t s = f2d_div_exact(max_t, len);
		f2d_vec2 vs = f2d_scale(s, f2d_v(v->x, v->y));
		v->x = vs.x;
		v->y = vs.y;
		d = f2d_v(f2d_mul(w->h, v->x), f2d_mul(w->h, v->y));
		changed = true;
	}
	fix16_t dr = f2d_mul(w->h, v->w);
	if (dr > max_r || dr < -max_r) {
		v->w = f2d_div_exact(dr > 0 ? max_r : -max_r, w->h);
		dr = f2d_mul(w->h, v->w);
		changed = true;
	}
	f2d_vec2 c = f2d_add(b->center, d);
	if (c.x < -F2D_WORLD_LIMIT || c.x > F2D_WORLD_LIMIT || c.y < -F2D_WORLD_LIMIT ||
	    c.y > F2D_WORLD_LIMIT) {
		c.x = f2d_clamp(c.x, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT);
		c.y = f2d_clamp(c.y, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT);
		f2d_stop_at_edge(w, b);
		v->x = v->y = v->w = 0;
		changed = true;
	}
	if (disp != NULL) {
		disp[0] += (int64_t)c.x - b->center.x;
		disp[1] += (int64_t)c.y - b->center.y;
		disp[2] += dr;
	}
	set_pose(b, c, dr, set_origin);
	return changed;
}

/* The soft step's caps on the velocities the joint relax pass leaves (it runs after the
 * positions moved, so integrate_position's cap is behind it): each awake dynamic body's
 * velocity scaled as integrate_position scales it, so that h v moves at most max_t and h w
 * turns at most max_r; the step's velocities stay within what a snapshot accepts (twice
 * max_translation / time_step). Per body, in id order (no body reads another). */
static inline void cap_speed_soft(f2d_world *w, f2d_body *b, int64_t max_t, int64_t max_t2,
                                  fix16_t max_r)
{
	f2d_vec2 d = f2d_v(f2d_mul(w->h, b->v.x), f2d_mul(w->h, b->v.y));
	int64_t d2 = f2d_dot64(d, d);
	if (d2 > max_t2) {
		fix16_t len = (fix16_t)f2d_isqrt64_round((uint64_t)d2);
		b->v = f2d_scale(f2d_div_exact((fix16_t)max_t, len), b->v);
	}
	fix16_t dr = f2d_mul(w->h, b->w);
	if (dr > max_r || dr < -max_r) {
		b->w = f2d_div_exact(dr > 0 ? max_r : -max_r, w->h);
	}
}

/* ---- the soft step's body loops by lists (issue 16) ----
 * The soft step integrates each substep from lists made once per step (soft_step, into
 * w->integ_list) instead of testing every body id two or three times per substep: which
 * bodies move and how their velocities integrate do not change during a step (forces, the
 * options and the awake flags change only between steps; f2d_stop_at_edge zeroes a velocity,
 * not a flag). The same operations on the same values, so the same bits; built with
 * F2D_INTEGRATE_EXACT_ONLY (test only: tests/test_integrate_paths.c compares the two builds,
 * range edges included) soft_step keeps the loops over all ids above, the reference. */
typedef struct body_lists {
	const int32_t *moving;  /* alive, not static, awake: integrate_positions' bodies */
	const int32_t *plain;   /* awake dynamic bodies whose velocity takes gravity only */
	const int32_t *general; /* the other awake dynamic bodies */
	int32_t nm, np, ng;
} body_lists;

#if F2D_X86_SIMD && !defined(F2D_INTEGRATE_EXACT_ONLY)
#define F2D_INTEGRATE_SIMD 1
#include "integrate_simd.h"
#else
#define F2D_INTEGRATE_SIMD 0
#endif

/* The lists' loops (integrate_lists.c; soft_step in world.c calls them) */
#if F2D_INTEGRATE_SIMD
F2D_AVX2 void f2d_start_rows_avx2(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4],
                                  body_lists *bl, f2d_vec2 hg);
#endif
void f2d_integrate_velocities_lists(f2d_world *w, int64_t (*rows)[4], const body_lists *l,
                                    bool plain, int kernel);
void f2d_integrate_velocities_bodies_lists(f2d_world *w, const body_lists *l, bool plain);
bool f2d_integrate_positions_lists(f2d_world *w, fix16_t max_translation, fix16_t max_rotation,
                                   int64_t (*rows)[4], int64_t (*disp)[4], const body_lists *l,
                                   int kernel, bool origins);
bool f2d_integrate_positions_bodies_lists(f2d_world *w, fix16_t max_translation,
                                          fix16_t max_rotation, int64_t (*disp)[4],
                                          const body_lists *l, int kernel);
void f2d_cap_speeds_lists(f2d_world *w, int64_t max_t, fix16_t max_r, const body_lists *l);

#endif
