/* fix2d tests: the soft step's body loops by lists give the bits of the loops over every id.
 * SPDX-License-Identifier: MIT
 *
 * src/world.c's soft step without joints integrates each substep over lists made once per step
 * (the moving bodies; the dynamic ones whose velocity takes gravity only, v += h g; the others)
 * and sets the origins once at the step's end. Built with F2D_INTEGRATE_EXACT_ONLY (the
 * library fix2d_exact of tests/CMakeLists.txt) it runs the loops over every body id instead,
 * the reference. This test steps the same worlds in both builds (the helper
 * test_integrate_paths_exact, this file compiled with F2D_INTEGRATE_PATHS_HELPER, prints one
 * line per step, read through a pipe) and compares every step's result and f2d_world_hash.
 *
 * The worlds sit at the integration's range edges: bodies a few metres inside the world's edge
 * (8192 m) flying out of it (f2d_stop_at_edge: the step returns F2D_ERROR_OUT_OF_RANGE),
 * speeds at and past the per-substep caps max_translation and max_rotation (small caps, so
 * that most moves are capped), forces and torques up to 2^30 on light bodies (the velocity
 * saturates: F2D_ERROR_OVERFLOW), gravity up to +-1000, gravity scales over [-16, 16] (0 and 1
 * included), damping over [0, 1000], fixed rotation, kinematic bodies, bodies created asleep,
 * sleeping on and off, 1..8 substeps and a few jointed worlds (the soft step's other loops).
 * The test also requires that the edges were reached: stops at the world's edge, saturations,
 * both kinds of dynamic body and a step that took the list path. Before them, the boundary
 * worlds (build_boundary_world) put the first substep's move, turn and centre on the bounds of
 * the positions' fast test (world.c, integrate_positions_lists) and 1-2 LSB either side.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix2d/fix2d.h"
#include "test_rng.h"

/* BOUNDARY_WORLDS boundary worlds (1..8 substeps), SAT_WORLDS saturation worlds, then WORLDS
 * random worlds */
enum { WORLDS = 48, BOUNDARY_WORLDS = 8, SAT_WORLDS = 4, STEPS = 90, BODIES = 40 };
enum { ALL_WORLDS = BOUNDARY_WORLDS + SAT_WORLDS + WORLDS, SAT_PUSH = 6 };

#define EDGE F2D_FIX(8192)

/* splitmix64 */
typedef struct rng {
	uint64_t s;
} rng;

static uint64_t next_u64(rng *r)
{
	return test_splitmix(&r->s);
}

/* uniform in [lo, hi] */
static int32_t rnd(rng *r, int32_t lo, int32_t hi)
{
	uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
	return (int32_t)((int64_t)lo + (int64_t)(next_u64(r) % span));
}

static bool chance(rng *r, int32_t num, int32_t den)
{
	return rnd(r, 0, den - 1) < num;
}

/* What the worlds reached (summed over the steps of the normal build). */
typedef struct reach {
	int64_t out_of_range, overflow, plain, general, list_steps;
	/* the saturation worlds: steps that saturated a plain body's velocity, and steps that
	 * left one exactly on the bound (+-INT32_MAX) without saturating */
	int64_t sat_steps, bound_steps;
} reach;

/* A speed near the cap: max_translation / h per substep is the cap on |v|; +-2 % around it */
static fix16_t near_cap(rng *r, fix16_t cap)
{
	int64_t c = cap + (int64_t)rnd(r, -cap / 50, cap / 50);
	c = c > F2D_FIX(4000) ? F2D_FIX(4000) : c;
	return (fix16_t)(chance(r, 1, 2) ? -c : c);
}

static f2d_world *build_world(int32_t index, reach *out)
{
	rng r = {0x51ED270B27A5ull + (uint64_t)index * 0x100000001B3ull};
	f2d_world_def def = f2d_default_world_def();
	def.substep_count = 1 + index % 8;
	static const fix16_t steps[] = {1092, 655, 6554, 546};
	def.time_step = steps[rnd(&r, 0, 3)];
	def.gravity.x = chance(&r, 1, 3) ? rnd(&r, F2D_FIX(-1000), F2D_FIX(1000)) : 0;
	def.gravity.y = chance(&r, 1, 4) ? F2D_FIX(-1000) : rnd(&r, F2D_FIX(-40), F2D_FIX(10));
	def.max_translation = chance(&r, 1, 2) ? rnd(&r, F2D_MILLI(10), F2D_ONE) : F2D_FIX(64);
	def.max_rotation = chance(&r, 1, 2) ? rnd(&r, F2D_MILLI(10), F2D_MILLI(200)) : 102943;
	def.enable_sleep = chance(&r, 1, 2);
	def.time_to_sleep = def.time_step * 4; /* some islands fall asleep within the steps */
	f2d_world *w = NULL;
	if (f2d_create_world(&def, &w) != F2D_OK) {
		return NULL;
	}
	int32_t hs = def.time_step / def.substep_count;
	fix16_t vcap = (fix16_t)(((int64_t)def.max_translation / def.substep_count << 16) / hs);
	fix16_t wcap = (fix16_t)(((int64_t)def.max_rotation / def.substep_count << 16) / hs);
	/* a ground near the edge and one in the middle */
	f2d_body_def bd = f2d_default_body_def();
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon p;
	f2d_shape_id sid;
	f2d_body_id ground;
	f2d_make_box(F2D_FIX(30), F2D_ONE, &p);
	bd.position = (f2d_vec2){0, F2D_FIX(-1)};
	f2d_create_body(w, &bd, &ground);
	f2d_create_polygon_shape(w, ground, &sd, &p, &sid);
	bd.position = (f2d_vec2){EDGE - F2D_FIX(40), EDGE - F2D_FIX(60)};
	f2d_create_body(w, &bd, &ground);
	f2d_create_polygon_shape(w, ground, &sd, &p, &sid);
	for (int32_t i = 0; i < BODIES; ++i) {
		bd = f2d_default_body_def();
		bd.type = chance(&r, 1, 8) ? F2D_KINEMATIC_BODY : F2D_DYNAMIC_BODY;
		/* odd worlds keep away from the edge: a step that stops a body returns
		 * F2D_ERROR_OUT_OF_RANGE, which hides a saturation in the same step */
		bool at_edge = chance(&r, 1, 3) && index % 2 == 0;
		if (at_edge) { /* a few metres inside a random side (or corner), flying out */
			int32_t sx = rnd(&r, -1, 1),
			        sy = sx == 0 ? (chance(&r, 1, 2) ? 1 : -1) : rnd(&r, -1, 1);
			bd.position.x = sx * (EDGE - rnd(&r, 0, F2D_FIX(3))) +
			                (sx == 0) * rnd(&r, -F2D_FIX(9), F2D_FIX(9));
			bd.position.y = sy * (EDGE - rnd(&r, 0, F2D_FIX(3))) +
			                (sy == 0) * rnd(&r, -F2D_FIX(9), F2D_FIX(9));
			bd.linear_velocity.x = sx * rnd(&r, F2D_FIX(1), F2D_FIX(600));
			bd.linear_velocity.y = sy * rnd(&r, F2D_FIX(1), F2D_FIX(600));
		} else if (chance(&r, 1, 2)) { /* a pile near the edge ground */
			bd.position.x = EDGE - F2D_FIX(40) + rnd(&r, -F2D_FIX(20), F2D_FIX(20));
			bd.position.y = EDGE - F2D_FIX(58) + rnd(&r, 0, F2D_FIX(8));
		} else {
			bd.position.x = rnd(&r, -F2D_FIX(20), F2D_FIX(20));
			bd.position.y = rnd(&r, 0, F2D_FIX(8));
		}
		if (!at_edge && chance(&r, 1, 2)) { /* at the caps */
			bd.linear_velocity.x = near_cap(&r, vcap);
			bd.linear_velocity.y = near_cap(&r, vcap);
		}
		bd.angular_velocity =
		    chance(&r, 1, 2) ? near_cap(&r, wcap) : rnd(&r, -F2D_FIX(3), F2D_FIX(3));
		bd.rotation = f2d_make_rot(rnd(&r, -205887, 205887));
		bd.awake = !chance(&r, 1, 8);
		bd.enable_sleep = !chance(&r, 1, 4);
		/* the options, each on its own (a body with all defaults: gravity only) */
		if (chance(&r, 1, 3)) {
			int32_t g = rnd(&r, 0, 2);
			bd.gravity_scale = g == 0
			                       ? 0
			                       : (g == 1 ? F2D_FIX(16) * (chance(&r, 1, 2) ? 1 : -1)
			                                 : rnd(&r, F2D_FIX(-16), F2D_FIX(16)));
		}
		if (chance(&r, 1, 4)) {
			bd.linear_damping =
			    chance(&r, 1, 3) ? F2D_FIX(1000) : rnd(&r, 1, F2D_FIX(20));
		}
		if (chance(&r, 1, 4)) {
			bd.angular_damping = rnd(&r, 1, F2D_FIX(1000));
		}
		bd.fixed_rotation = chance(&r, 1, 6);
		f2d_body_id b;
		if (f2d_create_body(w, &bd, &b) != F2D_OK) {
			continue;
		}
		/* light and heavy: 2^-6 .. 2^4 kg/m^2 on 0.1..1 m shapes */
		sd.density = (fix16_t)(F2D_ONE >> 6 << rnd(&r, 0, 10));
		if (chance(&r, 1, 2)) {
			f2d_circle c = {{rnd(&r, -F2D_MILLI(200), F2D_MILLI(200)), 0},
			                rnd(&r, F2D_MILLI(100), F2D_ONE)};
			f2d_create_circle_shape(w, b, &sd, &c, &sid);
		} else {
			f2d_polygon box;
			f2d_make_offset_box(rnd(&r, F2D_MILLI(100), F2D_ONE),
			                    rnd(&r, F2D_MILLI(100), F2D_ONE),
			                    (f2d_vec2){rnd(&r, -F2D_MILLI(300), F2D_MILLI(300)), 0},
			                    f2d_make_rot(rnd(&r, -100000, 100000)), &box);
			f2d_create_polygon_shape(w, b, &sd, &box, &sid);
		}
		if (out != NULL && bd.type == F2D_DYNAMIC_BODY) {
			bool plain = bd.gravity_scale == F2D_ONE && bd.linear_damping == 0 &&
			             bd.angular_damping == 0;
			out->plain += plain ? 1 : 0;
			out->general += plain ? 0 : 1;
		}
	}
	/* every sixth world: a revolute joint (the soft step's loops with joints) */
	if (index % 6 == 5) {
		f2d_body_id ids[BODIES + 2];
		int32_t n = f2d_world_get_bodies(w, ids, BODIES + 2);
		f2d_world_stats st;
		for (int32_t k = 2; k < n && k < BODIES + 2; ++k) {
			f2d_revolute_joint_def jd;
			f2d_joint_id j;
			if (f2d_init_revolute_joint_def(w, ids[0], ids[k],
			                                f2d_body_get_position(w, ids[k]),
			                                &jd) == F2D_OK) {
				f2d_create_revolute_joint(w, &jd, &j);
			}
			f2d_world_get_stats(w, &st);
			if (st.joint_count > 0) {
				break;
			}
		}
	}
	return w;
}

/* f2d_mul (= fix16_mul for in-range results: round half away from zero) */
static fix16_t mul(fix16_t a, fix16_t b)
{
	int64_t p = (int64_t)a * b;
	return (fix16_t)((p + 0x8000 + (p >> 63)) >> 16);
}

/* A velocity v >= 0 with mul(h, v) == target (h < 2^16: every target is reached) */
static fix16_t speed_for(fix16_t h, fix16_t target)
{
	fix16_t v = (fix16_t)(((int64_t)target << 16) / h);
	while (mul(h, v) < target) {
		++v;
	}
	while (v > 0 && mul(h, v - 1) >= target) {
		--v;
	}
	return v;
}

/* The boundary worlds: the first substep's move, turn and new centre land exactly on the
 * integration's bounds and 1 or 2 LSB either side of them (no gravity, no contacts, a circle at
 * its body's origin): a move of max_translation / n + delta along x (its square against
 * max_t^2), a turn of +-(max_rotation / n + delta), and bodies whose centre reaches
 * +-F2D_WORLD_LIMIT + delta on either axis. A fast-path test 1 LSB too lenient differs from the
 * reference here (a too strict one only costs time); the move (max_t, 1) has d^2 = max_t^2 + 1,
 * which the cap scales by max_t / round(sqrt(d^2)) = 1 (the same move either way). */
static f2d_world *build_boundary_world(int32_t i)
{
	f2d_world_def def = f2d_default_world_def();
	def.substep_count = 1 + i;
	def.gravity = (f2d_vec2){0, 0};
	def.max_translation = F2D_MILLI(500) + i;
	/* odd worlds: a turn cap of at most 330 LSB per substep, inside the closed forms of
	 * f2d_integrate_rotation_small (|h w| <= 1024 LSB), so that the fast path's own turn meets
	 * the cap's bound (a larger cap leaves the turns at it to the scalar code anyway) */
	def.max_rotation = i % 2 == 0 ? F2D_MILLI(200) + 3 * i : F2D_MILLI(10) + 3 * i;
	def.enable_sleep = false;
	f2d_world *w = NULL;
	if (f2d_create_world(&def, &w) != F2D_OK) {
		return NULL;
	}
	int32_t n = def.substep_count;
	fix16_t hs = (fix16_t)((def.time_step + n / 2) / n);
	fix16_t max_t = def.max_translation / n, max_r = def.max_rotation / n;
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_circle circle = {{0, 0}, F2D_MILLI(250)};
	f2d_shape_id sid;
	int32_t slot = 0;
	for (int32_t delta = -2; delta <= 2; ++delta) {
		for (int32_t what = 0; what < 8; ++what) {
			f2d_body_def bd = f2d_default_body_def();
			bd.type = F2D_DYNAMIC_BODY;
			bd.position = (f2d_vec2){F2D_FIX(-4000) + F2D_FIX(10) * slot++, 0};
			if (what == 0 ||
			    what == 7) { /* the move's cap: d = (max_t + delta, 0 or 1) */
				bd.linear_velocity.x = speed_for(hs, max_t + delta);
				bd.linear_velocity.y = what == 7 ? speed_for(hs, 1) : 0;
			} else if (what <= 2) { /* the turn's cap, both signs */
				fix16_t wv = speed_for(hs, max_r + delta);
				bd.angular_velocity = what == 1 ? wv : -wv;
			} else { /* the world's edge: +x, -x, +y, -y */
				fix16_t v = F2D_FIX(3);
				fix16_t edge = F2D_WORLD_LIMIT + delta - mul(hs, v);
				if (what == 3 || what == 4) { /* apart in y (no contacts) */
					bd.position.x = what == 3 ? edge : -edge;
					bd.position.y = F2D_FIX(10) * slot;
					bd.linear_velocity.x = what == 3 ? v : -v;
				} else {
					bd.position.y = what == 5 ? edge : -edge;
					bd.linear_velocity.y = what == 5 ? v : -v;
				}
			}
			f2d_body_id b;
			if (f2d_create_body(w, &bd, &b) != F2D_OK ||
			    f2d_create_circle_shape(w, b, &sd, &circle, &sid) != F2D_OK) {
				f2d_destroy_world(w);
				return NULL;
			}
		}
	}
	/* The moves' and turns' rounding ties, after the 40 bodies above (groups of 8 and 4 in the
	 * SIMD paths): 32 bodies whose h v.x, h v.y or h w (every substep: no forces, no contacts)
	 * lands on the tie of round16, +-0x8000 mod 2^16, and 2^a, 2 2^a either side of it (h = 2^a
	 * odd: the residues h v reaches), both signs; the last two at rest. */
	for (int32_t j = 0; j < 32; ++j) {
		f2d_body_def bd = f2d_default_body_def();
		bd.type = F2D_DYNAMIC_BODY;
		bd.position = (f2d_vec2){F2D_FIX(-4000) + F2D_FIX(10) * slot++, F2D_FIX(100)};
		if (j < 30) {
			int32_t a = __builtin_ctz((unsigned)hs);
			uint32_t odd = (uint32_t)hs >> a, inv = odd;
			for (int32_t k = 0; k < 5; ++k) {
				inv *= 2u - odd * inv; /* odd * inv = 1 mod 2^32 */
			}
			uint32_t r = 0x8000u + (uint32_t)((j % 5 - 2) * (1 << a));
			uint32_t m = ((uint32_t)1 << (16 - a)) - 1u;
			fix16_t v = (fix16_t)(((r >> a) * inv) & m); /* hs v = r mod 2^16 */
			v = (j / 5) % 2 == 0 ? v : -v;
			if (j / 10 == 0) {
				bd.linear_velocity.x = v;
			} else if (j / 10 == 1) {
				bd.linear_velocity.y = v;
			} else {
				bd.angular_velocity = v;
			}
		}
		f2d_body_id b;
		if (f2d_create_body(w, &bd, &b) != F2D_OK ||
		    f2d_create_circle_shape(w, b, &sd, &circle, &sid) != F2D_OK) {
			f2d_destroy_world(w);
			return NULL;
		}
	}
	return w;
}

/* The saturation worlds: one substep (the speed cap max_translation / time_step is then above
 * the fix16 range: 64 m in at most 128 LSB of time), light circles far apart (no contacts)
 * pushed by forces of 2^30 LSB in the first steps to velocities of +-INT32_MAX, then plain
 * bodies (gravity only) whose v + h g lands on, 1-2 LSB inside and 1-2 LSB past the bound
 * +-INT32_MAX: sat_actions sets the gravity of each step so that h g is -2..2 LSB per axis. */
static f2d_world *build_saturation_world(int32_t i)
{
	f2d_world_def def = f2d_default_world_def();
	static const fix16_t steps[SAT_WORLDS] = {65, 80, 101, 128};
	def.substep_count = 1;
	def.time_step = steps[i % SAT_WORLDS];
	def.gravity = (f2d_vec2){0, 0};
	def.max_translation = F2D_FIX(64);
	def.enable_sleep = false;
	f2d_world *w = NULL;
	if (f2d_create_world(&def, &w) != F2D_OK) {
		return NULL;
	}
	f2d_shape_def sd = f2d_default_shape_def();
	sd.density = F2D_ONE >> 5; /* 0.0043 kg, near the least mass and inertia a body may have */
	f2d_circle circle = {{0, 0}, F2D_MILLI(210)};
	f2d_shape_id sid;
	for (int32_t k = 0; k < 16; ++k) { /* 4 per direction (sx, sy), from the far corner */
		int32_t sx = (k & 1) ? 1 : -1, sy = (k & 2) ? 1 : -1, j = k >> 2;
		f2d_body_def bd = f2d_default_body_def();
		bd.type = F2D_DYNAMIC_BODY;
		bd.position = (f2d_vec2){-sx * F2D_FIX(7000) + F2D_FIX(30) * j,
		                         -sy * F2D_FIX(7000) - F2D_FIX(30) * j};
		f2d_body_id b;
		if (f2d_create_body(w, &bd, &b) != F2D_OK ||
		    f2d_create_circle_shape(w, b, &sd, &circle, &sid) != F2D_OK) {
			f2d_destroy_world(w);
			return NULL;
		}
	}
	return w;
}

/* A gravity component g with mul(h, g) == target */
static fix16_t gravity_for(fix16_t h, int32_t target)
{
	fix16_t g = target < 0 ? -speed_for(h, -target) : speed_for(h, target);
	return target == 0 ? 0 : g;
}

static void sat_actions(f2d_world *w, int32_t index, int32_t step)
{
	rng r = {0x5A7ull * (uint64_t)(index + 1) + (uint64_t)step};
	f2d_body_id ids[16];
	int32_t n = f2d_world_get_bodies(w, ids, 16);
	if (step <= SAT_PUSH) { /* to +-INT32_MAX: h F / m >= 6800 m/s per step */
		for (int32_t k = 0; k < n && k < 16; ++k) {
			fix16_t f = 0x7FFF0000, fx = (k & 1) ? f : -f, fy = (k & 2) ? f : -f;
			f2d_body_apply_force_to_center(w, ids[k], (f2d_vec2){fx, fy});
		}
		return;
	}
	static const fix16_t steps[SAT_WORLDS] = {65, 80, 101, 128};
	fix16_t h = steps[index % SAT_WORLDS];
	f2d_world_set_gravity(w, (f2d_vec2){gravity_for(h, rnd(&r, -2, 2)),
	                                    gravity_for(h, rnd(&r, -2, 2))});
}

/* Before a step: forces and torques up to 2^30 (light bodies saturate), velocities at the caps */
static void actions(f2d_world *w, int32_t index, int32_t step)
{
	rng r = {0xA11CEull * (uint64_t)(index + 1) + (uint64_t)step};
	f2d_body_id ids[BODIES + 2];
	int32_t n = f2d_world_get_bodies(w, ids, BODIES + 2);
	n = n > BODIES + 2 ? BODIES + 2 : n;
	for (int32_t k = 0; k < 3 && n > 2; ++k) {
		f2d_body_id b = ids[rnd(&r, 2, n - 1)];
		int32_t big = chance(&r, 1, 3) ? 30 : 16;
		f2d_vec2 f;
		f.x = rnd(&r, -(1 << 16), 1 << 16) * (1 << (big - 16));
		f.y = rnd(&r, -(1 << 16), 1 << 16) * (1 << (big - 16));
		switch (rnd(&r, 0, 4)) {
		case 0: f2d_body_apply_force_to_center(w, b, f); break;
		case 1: f2d_body_apply_torque(w, b, f.x); break;
		case 2:
			f2d_body_set_linear_velocity(
			    w, b,
			    (f2d_vec2){rnd(&r, -F2D_FIX(4000), F2D_FIX(4000)),
			               rnd(&r, -F2D_FIX(4000), F2D_FIX(4000))});
			break;
		case 3:
			f2d_body_set_angular_velocity(w, b, rnd(&r, -F2D_FIX(4000), F2D_FIX(4000)));
			break;
		default: break; /* nothing: some steps have no force at all */
		}
	}
}

/* after each step: its result, the state hash and the body last stopped at the world's edge
 * (f2d_world_stats; not in the hash: the order of the moving bodies decides it) */
typedef bool (*step_fn)(void *ctx, int32_t step, f2d_result r, uint64_t hash, int32_t last);

static bool run_world(int32_t index, step_fn fn, void *ctx, reach *out)
{
	bool boundary = index < BOUNDARY_WORLDS;
	bool sat = !boundary && index < BOUNDARY_WORLDS + SAT_WORLDS;
	f2d_world *w = boundary ? build_boundary_world(index)
	               : sat    ? build_saturation_world(index - BOUNDARY_WORLDS)
	                        : build_world(index - BOUNDARY_WORLDS - SAT_WORLDS, out);
	if (w == NULL) {
		return false;
	}
	for (int32_t s = 1; s <= STEPS; ++s) {
		if (sat) {
			sat_actions(w, index - BOUNDARY_WORLDS, s);
		} else if (!boundary) {
			actions(w, index - SAT_WORLDS, s); /* the random worlds as before */
		}
		if (out != NULL) {
			f2d_world_stats st;
			f2d_world_get_stats(w, &st);
			out->list_steps += st.joint_count == 0 ? 1 : 0;
		}
		f2d_result res = f2d_world_step(w);
		f2d_world_stats st;
		f2d_world_get_stats(w, &st);
		if (sat && out != NULL && s > SAT_PUSH) { /* the plain steps */
			f2d_body_id ids[16];
			int32_t n = f2d_world_get_bodies(w, ids, 16);
			bool on_bound = false;
			for (int32_t k = 0; k < n && k < 16; ++k) {
				f2d_vec2 v = f2d_body_get_linear_velocity(w, ids[k]);
				on_bound |= v.x == INT32_MAX || v.x == -INT32_MAX || v.y == INT32_MAX ||
				            v.y == -INT32_MAX;
			}
			out->sat_steps += res == F2D_ERROR_OVERFLOW ? 1 : 0;
			out->bound_steps += res == F2D_OK && on_bound ? 1 : 0;
		}
		if (!fn(ctx, s, res, f2d_world_hash(w), st.last_out_of_range_body.index1)) {
			break;
		}
	}
	if (out != NULL) {
		f2d_world_stats st;
		f2d_world_get_stats(w, &st);
		out->out_of_range += st.out_of_range_events;
		out->overflow += st.overflow_events;
	}
	f2d_destroy_world(w);
	return true;
}

#ifdef F2D_INTEGRATE_PATHS_HELPER

static bool print_step(void *ctx, int32_t step, f2d_result r, uint64_t hash, int32_t last)
{
	(void)ctx;
	printf("s %d %d %016" PRIx64 " %d\n", (int)step, (int)r, hash, (int)last);
	return true;
}

int main(void)
{
	for (int32_t c = 0; c < ALL_WORLDS; ++c) {
		printf("c %d\n", (int)c);
		if (!run_world(c, print_step, NULL, NULL)) {
			printf("x cannot build world %d\n", (int)c);
			return 1;
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

#else

#include <check.h>

typedef struct compare_ctx {
	FILE *f;
	int32_t bad_step;
	char line[256], msg[512];
} compare_ctx;

static bool compare_step(void *ctx, int32_t step, f2d_result r, uint64_t hash, int32_t last)
{
	compare_ctx *x = ctx;
	int hs = -1, hr = -1, hl = -1;
	uint64_t hh = 0;
	if (fgets(x->line, sizeof x->line, x->f) == NULL ||
	    sscanf(x->line, "s %d %d %" SCNx64 " %d", &hs, &hr, &hh, &hl) != 4 || hs != step) {
		x->bad_step = step;
		snprintf(x->msg, sizeof x->msg, "helper out of step at step %d: \"%.100s\"",
		         (int)step, x->line);
		return false;
	}
	if (hr != (int)r || hh != hash || hl != (int)last) {
		x->bad_step = step;
		snprintf(x->msg, sizeof x->msg,
		         "first difference at step %d: lists: result %d hash %016" PRIx64
		         " last stopped body %d, loops over every id: result %d hash %016" PRIx64
		         " last stopped body %d",
		         (int)step, (int)r, hash, (int)last, hr, hh, hl);
		return false;
	}
	return true;
}

START_TEST(lists_match_loops_over_ids)
{
	compare_ctx x;
	memset(&x, 0, sizeof x);
	x.f = popen("'" F2D_INTEGRATE_PATHS_EXACT "'", "r");
	ck_assert_msg(x.f != NULL, "cannot run %s", F2D_INTEGRATE_PATHS_EXACT);
	reach seen;
	memset(&seen, 0, sizeof seen);
	for (int32_t c = 0; c < ALL_WORLDS; ++c) {
		int hc = -1;
		ck_assert_msg(fgets(x.line, sizeof x.line, x.f) != NULL &&
		                  sscanf(x.line, "c %d", &hc) == 1 && hc == c,
		              "helper: expected world %d, got \"%.100s\"", (int)c, x.line);
		x.bad_step = 0;
		ck_assert_msg(run_world(c, compare_step, &x, &seen), "cannot build world %d",
		              (int)c);
		ck_assert_msg(x.bad_step == 0, "world %d: %s", (int)c, x.msg);
	}
	ck_assert_int_eq(pclose(x.f), 0);
	printf("integration edges: %" PRId64 " stops at the world's edge, %" PRId64
	       " saturating steps, %" PRId64 " dynamic bodies with the default options and %" PRId64
	       " other dynamic bodies, %" PRId64 " joint-free steps; saturation worlds: %" PRId64
	       " steps saturating a plain body's velocity, %" PRId64
	       " leaving one on the bound without saturating\n",
	       seen.out_of_range, seen.overflow, seen.plain, seen.general, seen.list_steps,
	       seen.sat_steps, seen.bound_steps);
	/* the worlds reach what they are for */
	fflush(stdout);
	ck_assert_int_ge(seen.out_of_range, 100);
	ck_assert_int_ge(seen.overflow, 20);
	ck_assert_int_ge(seen.plain, 200);
	ck_assert_int_ge(seen.general, 200);
	ck_assert_int_ge(seen.list_steps, (int64_t)WORLDS * STEPS * 3 / 4);
	ck_assert_int_lt(seen.list_steps, (int64_t)ALL_WORLDS * STEPS);
	ck_assert_int_ge(seen.sat_steps, 40);
	ck_assert_int_ge(seen.bound_steps, 20);
}
END_TEST

/* The other kernels' builds (the helpers test_integrate_paths_scalar, F2D_NO_SIMD, and
 * test_integrate_paths_avx2, F2D_NO_AVX512; this binary runs the CPU's own) print the lines of
 * the exact-only helper, world by world and step by step. */
static void compare_helpers(const char *variant, const char *name)
{
	FILE *e = popen("'" F2D_INTEGRATE_PATHS_EXACT "'", "r"), *v = popen(variant, "r");
	ck_assert_msg(e != NULL && v != NULL, "cannot run %s or %s", F2D_INTEGRATE_PATHS_EXACT,
	              variant);
	char le[256], lv[256];
	int64_t lines = 0, worlds = 0;
	while (fgets(le, sizeof le, e) != NULL) {
		ck_assert_msg(fgets(lv, sizeof lv, v) != NULL, "%s: ends at line %lld", name,
		              (long long)lines + 1);
		ck_assert_msg(strcmp(le, lv) == 0,
		              "%s: line %lld: \"%.100s\", the exact-only build: \"%.100s\"", name,
		              (long long)lines + 1, lv, le);
		++lines;
		worlds += le[0] == 'c' ? 1 : 0;
	}
	ck_assert_msg(fgets(lv, sizeof lv, v) == NULL, "%s: more lines than the exact build", name);
	ck_assert_int_eq(pclose(e), 0);
	ck_assert_int_eq(pclose(v), 0);
	ck_assert_int_eq(worlds, ALL_WORLDS);
	ck_assert_int_eq(lines, (int64_t)ALL_WORLDS * (STEPS + 1));
}

START_TEST(scalar_kernel_matches)
{
	compare_helpers("'" F2D_INTEGRATE_PATHS_SCALAR "'", "scalar (F2D_NO_SIMD)");
}
END_TEST

START_TEST(avx2_kernel_matches)
{
	compare_helpers("'" F2D_INTEGRATE_PATHS_AVX2 "'", "AVX2 (F2D_NO_AVX512)");
}
END_TEST

#include "integrate_simd.h" /* core.h: F2D_X86_SIMD */
#if F2D_X86_SIMD
/* f2d_turn_full_256 on 4 lanes: the covered lanes' rotations into out, the mask of the others */
F2D_AVX2 static unsigned turn_full_4(const f2d_rot q[4], const fix16_t hw[4], f2d_rot out[4])
{
	__m256i qc = _mm256_setr_epi64x(q[0].c, q[1].c, q[2].c, q[3].c);
	__m256i qs = _mm256_setr_epi64x(q[0].s, q[1].s, q[2].s, q[3].s);
	__m256i h = _mm256_setr_epi64x(hw[0], hw[1], hw[2], hw[3]);
	__m256i oc, os;
	unsigned rest = f2d_bits_256(f2d_turn_full_256(qc, qs, h, &oc, &os));
	int64_t c[4], sn[4];
	_mm256_storeu_si256((__m256i *)(void *)c, oc);
	_mm256_storeu_si256((__m256i *)(void *)sn, os);
	for (int j = 0; j < 4; ++j) {
		out[j].c = (fix16_t)c[j];
		out[j].s = (fix16_t)sn[j];
	}
	return rest;
}

/* f2d_turn_full_512 on 8 lanes: out as turn_full_4's, the mask of the lanes it leaves */
F2D_AVX512 static unsigned turn_full_8(const f2d_rot q[8], const fix16_t hw[8], f2d_rot out[8])
{
	int64_t c[8], sn[8], h[8];
	for (int j = 0; j < 8; ++j) {
		c[j] = q[j].c;
		sn[j] = q[j].s;
		h[j] = hw[j];
	}
	__m512i oc, os;
	unsigned rest = f2d_turn_full_512(_mm512_loadu_si512(c), _mm512_loadu_si512(sn),
	                                  _mm512_loadu_si512(h), &oc, &os);
	_mm512_storeu_si512(c, oc);
	_mm512_storeu_si512(sn, os);
	for (int j = 0; j < 8; ++j) {
		out[j].c = (fix16_t)c[j];
		out[j].s = (fix16_t)sn[j];
	}
	return rest;
}

/* f2d_plain_row_256 with add = (hx, hy, 0, 0) */
F2D_AVX2 static bool plain_row(int64_t r[4], fix16_t hx, fix16_t hy)
{
	return f2d_plain_row_256(r, _mm256_setr_epi64x(hx, hy, 0, 0));
}

/* f2d_plain_rows_512 with add = (hx, hy, 0, 0) on the rows r and s (r first when first) */
F2D_AVX512 static bool plain_rows2(int64_t r[4], int64_t s[4], fix16_t hx, fix16_t hy, bool first)
{
	__m512i add2 = _mm512_setr_epi64(hx, hy, 0, 0, hx, hy, 0, 0);
	return first ? f2d_plain_rows_512(r, s, add2) : f2d_plain_rows_512(s, r, add2);
}
#endif

/* f2d_plain_row_256 (src/integrate_simd.h, the plain bodies' velocity rows of the AVX2 build)
 * against integrate_plain_row's operations on every pair of row values at and around the
 * bounds +-INT32_MAX (INT32_MIN, 1-2 LSB inside, words whose high 32 bits are not the sign of
 * the low ones) with h g of 0, 1, 2 LSB and the largest (h g <= 1000 m/s^2 x 0.1 s) of either
 * sign: it writes the scalar code's row exactly when no velocity saturates, else nothing. The
 * saturation worlds cannot reach this path (with 2 or more substeps the speed cap stays below
 * the fix16 range), so the bounds are tested here. */
START_TEST(plain_row_256)
{
#if F2D_X86_SIMD
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2")) {
		return;
	}
	const int64_t vals[] = {0,
	                        1,
	                        -1,
	                        INT32_MAX,
	                        INT32_MAX - 1,
	                        INT32_MAX - 2,
	                        -INT32_MAX,
	                        -INT32_MAX + 1,
	                        -INT32_MAX + 2,
	                        INT32_MIN,
	                        6553600,
	                        -6553600,
	                        (int64_t)0x12345678 << 32 | 0x7FFFFFFF,
	                        (int64_t)-5 * ((int64_t)1 << 32) + 7,
	                        (int64_t)0x7FFFFFFF << 32 | 0x80000001u};
	const fix16_t hgs[] = {0, 1, 2, -1, -2, 6553600, -6553600};
	const int nv = (int)(sizeof vals / sizeof vals[0]), nh = (int)(sizeof hgs / sizeof hgs[0]);
	int64_t written = 0, left = 0, on_bound = 0, pairs = 0;
	const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
	for (int a = 0; a < nv; ++a) {
		for (int b = 0; b < nv; ++b) {
			for (int ha = 0; ha < nh; ++ha) {
				for (int hb = 0; hb < nh; ++hb) {
					int64_t r[4] = {vals[a], vals[b], vals[(a + b) % nv],
					                vals[(a * 7 + b) % nv] ^ 0x5555};
					int64_t before[4] = {r[0], r[1], r[2], r[3]};
					int64_t s0 = (int64_t)(fix16_t)r[0] + hgs[ha];
					int64_t s1 = (int64_t)(fix16_t)r[1] + hgs[hb];
					bool sat = s0 > INT32_MAX || s0 < -INT32_MAX || s1 > INT32_MAX ||
					           s1 < -INT32_MAX;
					bool wrote = plain_row(r, hgs[ha], hgs[hb]);
					ck_assert_msg(wrote == !sat,
					              "rows %lld %lld, h g %d %d: wrote %d, saturates %d",
					              (long long)before[0], (long long)before[1], hgs[ha],
					              hgs[hb], (int)wrote, (int)sat);
					int64_t want[4] = {sat ? before[0] : s0, sat ? before[1] : s1,
					                   sat ? before[2] : (int64_t)(fix16_t)before[2],
					                   before[3]};
					for (int k = 0; k < 4; ++k) {
						ck_assert_msg(r[k] == want[k],
						              "rows %lld %lld, h g %d %d: lane %d %lld, "
						              "the scalar code's %lld",
						              (long long)before[0], (long long)before[1],
						              hgs[ha], hgs[hb], k, (long long)r[k],
						              (long long)want[k]);
					}
					/* the pair of rows (AVX-512): this row in either half, with
					 * a row that never saturates (0, 0, 1, 0x5555) or with
					 * itself; written only when neither saturates */
					for (int half = 0; avx512 && half < 4; ++half) {
						int64_t p[4] = {before[0], before[1], before[2], before[3]};
						int64_t o[4] = {0, 0, 1, 0x5555}, o0[4] = {0, 0, 1, 0x5555};
						if (half >= 2) {
							memcpy(o, before, sizeof o);
							memcpy(o0, want, sizeof o0);
						} else {
							o0[0] = hgs[ha];
							o0[1] = hgs[hb];
						}
						bool w2 = plain_rows2(p, o, hgs[ha], hgs[hb], half % 2 == 0);
						ck_assert_msg(w2 == !sat, "pair %d: rows %lld %lld, h g %d %d",
						              half, (long long)before[0],
						              (long long)before[1], hgs[ha], hgs[hb]);
						for (int k = 0; k < 4; ++k) {
							int64_t ow = sat ? (half >= 2 ? before[k]
							                              : (int64_t[4]){0, 0, 1, 0x5555}[k])
							                 : o0[k];
							ck_assert_msg(p[k] == (sat ? before[k] : want[k]) &&
							                  o[k] == ow,
							              "pair %d: rows %lld %lld, h g %d %d: lane %d",
							              half, (long long)before[0],
							              (long long)before[1], hgs[ha], hgs[hb], k);
						}
						pairs += w2 ? 1 : 0;
					}
					written += wrote ? 1 : 0;
					left += wrote ? 0 : 1;
					on_bound += !sat && (s0 == INT32_MAX || s0 == -INT32_MAX ||
					                     s1 == INT32_MAX || s1 == -INT32_MAX)
					                ? 1
					                : 0;
				}
			}
		}
	}
	printf("plain rows: %lld written, %lld left to the scalar code (saturating), %lld "
	       "written on the bound\n",
	       (long long)written, (long long)left, (long long)on_bound);
	ck_assert_int_ge(written, 1000);
	ck_assert_int_ge(left, 1000);
	ck_assert_int_ge(on_bound, 100);
	printf("plain rows by pairs (AVX-512): %lld written\n", (long long)pairs);
	ck_assert(!avx512 || pairs == 4 * written);
#endif
}
END_TEST

#if F2D_X86_SIMD
/* n rotations around the circle: unit ones, every third 1 LSB off, every third up to 32 LSB
 * off in each word (from seed) */
static void around_circle(f2d_rot *qs, int n, uint64_t seed)
{
	for (int k = 0; k < n; ++k) {
		qs[k] = f2d_make_rot((fix16_t)((int64_t)k * 411775 / n - F2D_PI));
		if (k % 3 == 1) {
			qs[k].c += (k & 4) ? 1 : -1;
		} else if (k % 3 == 2) {
			qs[k].c += (fix16_t)(test_splitmix(&seed) % 65) - 32;
			qs[k].s += (fix16_t)(test_splitmix(&seed) % 65) - 32;
		}
	}
}

/* A lane of a turn kernel of lanes lanes: covered (not left), its rotation out is
 * f2d_integrate_rotation's; left with 0 < |hw| <= F2D_TURN_FULL_HW (a turn that renormalises,
 * integrate_lists.c's turn_left), f2d_rot_normalize_near of out is. Returns whether it checked
 * a left lane. */
static bool check_lane(f2d_rot q, fix16_t hw, f2d_rot out, bool left, int lanes)
{
	bool renorm = left && hw != 0 && hw <= F2D_TURN_FULL_HW && hw >= -F2D_TURN_FULL_HW;
	if (left && !renorm) {
		return false;
	}
	f2d_rot e = f2d_integrate_rotation(q, hw);
	f2d_rot o = renorm ? f2d_rot_normalize_near(out.c, out.s) : out;
	if (o.c != e.c || o.s != e.s) {
		ck_abort_msg(
		    "q (%d, %d), hw %d: %d lanes (%d, %d)%s, f2d_integrate_rotation (%d, %d)", q.c,
		    q.s, hw, lanes, out.c, out.s, renorm ? " renormalised" : "", e.c, e.s);
	}
	return renorm;
}
#endif

/* f2d_turn_full_256 (src/integrate_simd.h: math.c's whole sine and cosine polynomial on 4
 * lanes, the turns integrate_positions_4 does not take in closed form) equals
 * f2d_integrate_rotation in every lane it covers: every turn hw from -pi/2 - 8 to pi/2 + 8 LSB on
 * 4 rotations at a time (unit ones around the circle, 1 LSB off, up to 32 LSB off), and the
 * magic divisions its Horner steps use are exact at both ends of their range. It must cover
 * every turn up to 1.4 rad of a unit rotation (t2 < 2^31). */
START_TEST(turn_full_256)
{
#if F2D_X86_SIMD
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2")) {
		return;
	}
	static const uint64_t divs[][2] = {{110, 7}, {72, 7}, {42, 6}, {20, 5}, {6, 3},
	                                   {132, 8}, {90, 7}, {56, 6}, {30, 5}, {12, 4}};
	for (size_t k = 0; k < sizeof divs / sizeof divs[0]; ++k) {
		uint64_t d = divs[k][0], l = divs[k][1], m = F2D_DIV_MAGIC(d, l);
		ck_assert(m < ((uint64_t)1 << 32) && (d << 1) > ((uint64_t)1 << l) &&
		          d <= ((uint64_t)1 << l) && m * d - ((uint64_t)1 << (31 + l)) < d);
		for (uint64_t x = 0; x < 4096; ++x) { /* both ends of [0, 2^31) */
			uint64_t y = ((uint64_t)1 << 31) - 1 - x;
			ck_assert_uint_eq((x * m) >> (31 + l), x / d);
			ck_assert_uint_eq((y * m) >> (31 + l), y / d);
		}
	}
	f2d_rot qs[16];
	around_circle(qs, 16, 0x70A11ull);
	int64_t covered = 0, unit_big = 0;
	for (int k = 0; k < 16; k += 4) {
		f2d_rot q[4] = {qs[k], qs[k + 1], qs[k + 2], qs[k + 3]};
		for (int64_t h0 = -F2D_HALF_PI - 8; h0 <= F2D_HALF_PI + 8; ++h0) {
			fix16_t hw[4] = {(fix16_t)h0, (fix16_t)-h0, (fix16_t)(h0 / 3), (fix16_t)(h0 / 7)};
			f2d_rot out[4];
			unsigned rest = turn_full_4(q, hw, out);
			for (int j = 0; j < 4; ++j) {
				if (check_lane(q[j], hw[j], out[j], rest & (1u << j), 4) ||
				    (rest & (1u << j))) {
					continue;
				}
				++covered;
				unit_big += (k + j) % 3 == 0 && hw[j] >= 92000 ? 1 : 0;
			}
		}
	}
	printf("turns by the whole polynomial across 4 lanes: %lld covered, %lld of more than 1.4 "
	       "rad on unit rotations\n",
	       (long long)covered, (long long)unit_big);
	ck_assert_int_ge(covered, 16 * 140000); /* of 16 x 205,903 */
	ck_assert_int_ge(unit_big, 1);
#endif
}
END_TEST

/* Whether round30 of p (f2d_rot_turn_q30's (p + 2^29 + (p >> 63)) >> 30) is a tie: p = k 2^30
 * + 2^29, where the sign term decides */
static bool round30_tie(int64_t p)
{
	return (p & (((int64_t)1 << 30) - 1)) == ((int64_t)1 << 29);
}

/* f2d_turn_full_512 (src/integrate_simd.h: f2d_turn_full_256 on 8 lanes, the turns
 * integrate_positions_8 does not take in closed form) leaves the lanes f2d_turn_full_256 leaves
 * and gives its values in every lane, and f2d_integrate_rotation's in every lane it covers:
 * every turn hw from -pi/2 - 8 to pi/2 + 8 LSB (the fast case's limit, t2 < 2^31, is hw = 92681,
 * inside) on 8 rotations at a time (unit ones around the circle, 1 LSB off, up to 32 LSB off, and
 * ones on whose turn by hw = +-2 a rounding of f2d_rot_turn_q30 is a tie, of either sign); then
 * the int32 edges of each input it reads (q's two words, hw) in every lane. */
START_TEST(turn_full_512)
{
#if F2D_X86_SIMD
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512dq")) {
		return;
	}
	enum { NQ = 32 };
	f2d_rot qs[NQ];
	around_circle(qs, 24, 0x70A12ull);
	/* hw = +-2: t2 = 1, ca = 2^30, sa = 2^15, so c = qc 2^30 - qs 2^15 is a tie for qs = 2^14
	 * mod 2^15 (and s for qc = 2^14 mod 2^15); 63455^2 + 16384^2 is 2^32 + 5185 */
	for (int k = 0; k < 8; ++k) {
		fix16_t a = (k & 1) ? -63455 : 63455, b = (k & 2) ? -16384 : 16384;
		qs[24 + k] = (k & 4) ? (f2d_rot){b, a} : (f2d_rot){a, b};
	}
	int64_t covered = 0, unit_big = 0, ties_pos = 0, ties_neg = 0, renormalised = 0;
	for (int k = 0; k < NQ; k += 8) {
		const f2d_rot *q = &qs[k];
		for (int64_t h0 = -F2D_HALF_PI - 8; h0 <= F2D_HALF_PI + 8; ++h0) {
			fix16_t hw[8] = {(fix16_t)h0,       (fix16_t)-h0,      (fix16_t)(h0 / 3),
			                 (fix16_t)(h0 / 7), (fix16_t)(h0 / 2), (fix16_t)(-h0 / 5),
			                 (fix16_t)(h0 % 5), (fix16_t)(h0 / 11)};
			if (k == 24) { /* the ties' rotations: hw = +-2 in half the lanes */
				hw[0] = hw[3] = hw[5] = hw[6] = (h0 & 1) ? -2 : 2;
			}
			f2d_rot out[8], o4[8];
			unsigned rest = turn_full_8(q, hw, out);
			unsigned rest4 = turn_full_4(q, hw, o4) | turn_full_4(&q[4], &hw[4], &o4[4])
			                                              << 4;
			ck_assert_msg(rest == rest4,
			              "q[%d..], hw %lld: lanes left %#x, 4 lanes %#x", k,
			              (long long)h0, rest, rest4);
			for (int j = 0; j < 8; ++j) {
				ck_assert_msg(
				    out[j].c == o4[j].c && out[j].s == o4[j].s,
				    "q (%d, %d), hw %d: 8 lanes (%d, %d), 4 lanes (%d, %d)", q[j].c,
				    q[j].s, hw[j], out[j].c, out[j].s, o4[j].c, o4[j].s);
				if (check_lane(q[j], hw[j], out[j], rest & (1u << j), 8)) {
					++renormalised;
				}
				if (rest & (1u << j)) {
					continue;
				}
				++covered;
				int64_t sa, ca;
				f2d_sincos_q30((int64_t)hw[j] * 16384, &sa, &ca);
				int64_t pc = (int64_t)q[j].c * ca - (int64_t)q[j].s * sa;
				int64_t ps = (int64_t)q[j].s * ca + (int64_t)q[j].c * sa;
				ties_pos +=
				    (round30_tie(pc) && pc > 0) + (round30_tie(ps) && ps > 0);
				ties_neg +=
				    (round30_tie(pc) && pc < 0) + (round30_tie(ps) && ps < 0);
				unit_big += (k + j) % 3 == 0 && k < 24 && hw[j] >= 92000 ? 1 : 0;
			}
		}
	}
	/* the sine and cosine themselves, every rounding of them included: q = (2^30, 0) turns
	 * into (ca, sa) exactly (c = 2^30 ca, s = 2^30 sa: f2d_rot_turn_q30's rounding shift is
	 * exact there; the lane renormalises, so it is left, but its value is still the
	 * polynomial's), for every hw the polynomial takes (hw != 0, |hw| <= pi/2, t2 < 2^31) */
	int64_t sincos_lanes = 0;
	for (int64_t h0 = -F2D_HALF_PI - 8; h0 <= F2D_HALF_PI + 8; h0 += 8) {
		f2d_rot q[8];
		fix16_t hw[8];
		for (int j = 0; j < 8; ++j) {
			q[j] = (f2d_rot){(fix16_t)1 << 30, 0};
			hw[j] = (fix16_t)(h0 + j);
		}
		f2d_rot out[8];
		(void)turn_full_8(q, hw, out);
		for (int j = 0; j < 8; ++j) {
			int64_t t = (int64_t)hw[j] * 16384, t2 = (t * t + ((int64_t)1 << 29)) >> 30;
			if (hw[j] == 0 || hw[j] > F2D_HALF_PI || hw[j] < -F2D_HALF_PI ||
			    t2 >= ((int64_t)1 << 31)) {
				continue;
			}
			int64_t sa, ca;
			f2d_sincos_q30(t, &sa, &ca);
			ck_assert_msg(
			    out[j].c == ca && out[j].s == sa,
			    "hw %d: 8 lanes' cosine, sine %d %d, f2d_sincos_q30 %lld %lld", hw[j],
			    out[j].c, out[j].s, (long long)ca, (long long)sa);
			++sincos_lanes;
		}
	}
	ck_assert_int_ge(sincos_lanes, 180000);
	/* the int32 edges of q.c, q.s and hw, and hw around the limits (pi/2, t2 = 2^31 between
	 * 92681 and 92682, hw 2^14 leaving 32 bits at 2^17), in every lane */
	static const int64_t edges[] = {INT32_MIN,
	                                INT32_MIN + 1,
	                                -INT32_MAX + 1,
	                                INT32_MAX,
	                                INT32_MAX - 1,
	                                0,
	                                1,
	                                -1,
	                                65536,
	                                -65536,
	                                F2D_HALF_PI,
	                                F2D_HALF_PI + 1,
	                                -F2D_HALF_PI,
	                                -F2D_HALF_PI - 1,
	                                92681,
	                                92682,
	                                -92681,
	                                -92682,
	                                131072,
	                                -131072,
	                                131071,
	                                -131073};
	const int ne = (int)(sizeof edges / sizeof edges[0]);
	int64_t edge_calls = 0, edge_covered = 0;
	for (int a = 0; a < ne; ++a) {
		for (int b = 0; b < ne; ++b) {
			for (int c = 0; c < ne; ++c) {
				f2d_rot q[8];
				fix16_t hw[8];
				for (int j = 0; j < 8;
				     ++j) { /* (a, b, c) in lane j, others mixed */
					int ja = (a + j * 5) % ne, jb = (b + j * 3) % ne,
					    jc = (c + j * 7) % ne;
					q[j] = (f2d_rot){(fix16_t)edges[ja], (fix16_t)edges[jb]};
					hw[j] = (fix16_t)edges[jc];
					if (j >= 4 &&
					    j < 6) { /* a unit rotation with the edge turns */
						q[j] = qs[(a + b + j) % 24];
					}
				}
				f2d_rot out[8], o4[8];
				unsigned rest = turn_full_8(q, hw, out);
				unsigned rest4 = turn_full_4(q, hw, o4) |
				                 turn_full_4(&q[4], &hw[4], &o4[4]) << 4;
				ck_assert_msg(rest == rest4,
				              "edges %d %d %d: lanes left %#x, 4 lanes %#x", a, b,
				              c, rest, rest4);
				++edge_calls;
				for (int j = 0; j < 8; ++j) {
					ck_assert_msg(
					    out[j].c == o4[j].c && out[j].s == o4[j].s,
					    "edges %d %d %d, lane %d: 8 lanes (%d, %d), 4 lanes "
					    "(%d, %d)",
					    a, b, c, j, out[j].c, out[j].s, o4[j].c, o4[j].s);
					/* f2d_integrate_rotation on the int32 edges of q could
					 * overflow its length test: the left lanes of the unit
					 * rotations only */
					bool unit = j >= 4 && j < 6;
					if ((rest & (1u << j)) && !unit) {
						continue;
					}
					if (check_lane(q[j], hw[j], out[j], rest & (1u << j), 8)) {
						++renormalised;
					}
					edge_covered += (rest & (1u << j)) ? 0 : 1;
				}
			}
		}
	}
	printf("turns by the whole polynomial across 8 lanes: %lld covered, %lld of more than 1.4 "
	       "rad on unit rotations, rounding ties %lld positive %lld negative; edges: %lld "
	       "calls, %lld lanes covered; %lld left lanes renormalised\n",
	       (long long)covered, (long long)unit_big, (long long)ties_pos, (long long)ties_neg,
	       (long long)edge_calls, (long long)edge_covered, (long long)renormalised);
	ck_assert_int_ge(covered, 24 * 140000); /* of 24 x 205,903, and the ties' half */
	ck_assert_int_ge(unit_big, 1);
	ck_assert_int_ge(ties_pos, 1000);
	ck_assert_int_ge(ties_neg, 1000);
	ck_assert_int_ge(edge_covered, 1000);
	ck_assert_int_ge(renormalised, 1000);
#endif
}
END_TEST

/* f2d_rot_normalize_near (src/integrate_simd.h) equals f2d_rot_normalize: on rotations around
 * the circle up to 40 LSB off in each word; on (c, s) for c across both ends of its band (n =
 * c^2 + s^2 within 2^26 of 2^32: c from 64900 to 66200, s from 0 to 300, so n crosses each end
 * at many s), where the rounding of the length turns (n - r^2 = r and r + 1); and on the int32
 * edges (outside the band: f2d_rot_normalize itself). */
START_TEST(normalize_near)
{
#if F2D_X86_SIMD
	int64_t inside = 0, below = 0, above = 0, turns = 0;
	const uint64_t band = (uint64_t)1 << 26, one = (uint64_t)1 << 32;
	for (int k = 0; k < 2048; ++k) {
		f2d_rot u = f2d_make_rot((fix16_t)((int64_t)k * 411775 / 2048 - F2D_PI));
		for (int dc = -40; dc <= 40; dc += 3) {
			for (int ds = -40; ds <= 40; ds += 7) {
				fix16_t c = u.c + dc, sn = u.s + ds;
				f2d_rot a = f2d_rot_normalize_near(c, sn),
				        e = f2d_rot_normalize(c, sn);
				ck_assert_msg(a.c == e.c && a.s == e.s,
				              "(%d, %d): (%d, %d), f2d_rot_normalize "
				              "(%d, %d)",
				              c, sn, a.c, a.s, e.c, e.s);
			}
		}
	}
	for (int64_t c = 64900; c <= 66200; ++c) {
		for (int64_t sn = 0; sn <= 300; ++sn) {
			fix16_t x = (fix16_t)((c & 1) ? -c : c), y = (fix16_t)((c & 2) ? -sn : sn);
			f2d_rot a = f2d_rot_normalize_near(x, y), e = f2d_rot_normalize(x, y);
			ck_assert_msg(a.c == e.c && a.s == e.s,
			              "(%d, %d): (%d, %d), f2d_rot_normalize "
			              "(%d, %d)",
			              x, y, a.c, a.s, e.c, e.s);
			uint64_t n = (uint64_t)(c * c + sn * sn);
			inside += n >= one - band && n <= one + band ? 1 : 0;
			below += n < one - band ? 1 : 0;
			above += n > one + band ? 1 : 0;
			uint64_t r = f2d_isqrt64_round(n), fl = n < r * r ? r - 1 : r;
			turns += n - fl * fl == fl || n - fl * fl == fl + 1 ? 1 : 0;
		}
	}
	static const fix16_t edges[] = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 0, 1,
	                                -1,        65536,         -65536};
	const int ne = (int)(sizeof edges / sizeof edges[0]);
	for (int a = 0; a < ne; ++a) {
		for (int b = 0; b < ne; ++b) {
			if (edges[a] == INT32_MIN && edges[b] == INT32_MIN) {
				continue; /* f2d_rot_normalize's c^2 + s^2 overflows int64 */
			}
			f2d_rot x = f2d_rot_normalize_near(edges[a], edges[b]);
			f2d_rot e = f2d_rot_normalize(edges[a], edges[b]);
			ck_assert_msg(x.c == e.c && x.s == e.s, "edges (%d, %d)", edges[a],
			              edges[b]);
		}
	}
	printf("normalize_near: band %lld inside, %lld below, %lld above, %lld on the rounding's "
	       "turn\n",
	       (long long)inside, (long long)below, (long long)above, (long long)turns);
	ck_assert_int_ge(inside, 100000);
	ck_assert_int_ge(below, 1000);
	ck_assert_int_ge(above, 1000);
	ck_assert_int_ge(turns, 1);
	/* the root alone (f2d_isqrt_near) against f2d_isqrt64_round: every n within 2^14 of the
	 * band's ends and of 2^32, and for every r in the band n = r^2 - 1 .. r^2 + 1 and the
	 * rounding's turn r^2 + r, r^2 + r + 1 */
	static const int64_t ends[] = {-(int64_t)F2D_NEAR_BAND, 0, (int64_t)F2D_NEAR_BAND};
	int64_t roots = 0;
	for (int k = 0; k < 3; ++k) {
		for (int64_t d = -16384; d <= 16384; ++d) {
			uint64_t n = (uint64_t)((int64_t)one + ends[k] + d);
			if (n < one - band || n > one + band) {
				continue;
			}
			ck_assert_uint_eq(f2d_isqrt_near(n), f2d_isqrt64_round(n));
			++roots;
		}
	}
	for (uint64_t r = 65000; r <= 66100; ++r) {
		const uint64_t ns[] = {r * r - 1, r * r, r * r + 1, r * r + r, r * r + r + 1};
		for (int k = 0; k < 5; ++k) {
			if (ns[k] >= one - band && ns[k] <= one + band) {
				ck_assert_uint_eq(f2d_isqrt_near(ns[k]), f2d_isqrt64_round(ns[k]));
				++roots;
			}
		}
	}
	printf("normalize_near: %lld roots\n", (long long)roots);
	ck_assert_int_ge(roots, 60000);
#endif
}
END_TEST

int main(void)
{
	Suite *s = suite_create("integrate_paths");
	TCase *tc = tcase_create("integrate_paths");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, lists_match_loops_over_ids);
	tcase_add_test(tc, scalar_kernel_matches);
	tcase_add_test(tc, avx2_kernel_matches);
	tcase_add_test(tc, plain_row_256);
	tcase_add_test(tc, turn_full_256);
	tcase_add_test(tc, turn_full_512);
	tcase_add_test(tc, normalize_near);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}

#endif
