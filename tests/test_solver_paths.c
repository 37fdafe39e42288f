/* fix2d tests: the contact and joint solvers' paths give the same bits.
 * SPDX-License-Identifier: MIT
 *
 * src/solver.c warm-starts and solves the contacts in coloured batches: on x86-64 CPUs with
 * AVX-512 eight arbiters at a time, with AVX2 four, elsewhere one lane after the other on a scalar
 * fast path (no per-value saturation, one range check per arbiter); either falls back to the exact
 * path (the reference code) when its check fails. The claim is that all of them give the same bits
 * for every input. This test steps the same worlds in five builds of the library, one process
 * each, and compares the step results and f2d_world_hash after every step:
 *  - this Check executable: the normal library (target fix2d; AVX-512 where the CPU has it);
 *  - the helper test_solver_paths_exact: the library built with F2D_CONTACT_EXACT_ONLY (no fast
 *    path, no SIMD) and F2D_CONTACT_COUNT_PATHS;
 *  - the helper test_solver_paths_counted: the normal library plus F2D_CONTACT_COUNT_PATHS, the
 *    arbiters each path handled; the test requires that the fast path ran and that the
 *    fallback was taken, so that it cannot pass without exercising both paths;
 *  - the helper test_solver_paths_scalar: F2D_NO_SIMD (the scalar kernel on any CPU) plus
 *    F2D_CONTACT_COUNT_PATHS;
 *  - the helper test_solver_paths_avx2: F2D_NO_AVX512 (the AVX2 kernel where the CPU has
 *    AVX2, even with AVX-512) plus F2D_CONTACT_COUNT_PATHS.
 * Each helper names its kernel; the test checks it is the expected one. src/joint.c has a fast
 * and an exact path too (F2D_JOINT_EXACT_ONLY in the exact-only build, F2D_JOINT_COUNT_PATHS in
 * every helper): the same comparison covers it, and the counts show both of its paths ran.
 * The helpers are this file compiled with F2D_SOLVER_PATHS_HELPER (no Check), with the kernel
 * checks of tests/solver_paths_kernels.c: they print one line per step, read here through a
 * pipe (separate processes: the libraries export the same symbols). Run a helper by hand to see
 * its chain: `test_solver_paths_exact [case]`.
 *
 * The worlds: every catalogue scene (fix2d/scenes.h) as built, with the Gauss-Seidel solver
 * (substep_count 0 set explicitly: the default is the soft step) (joints: pendulum, bridge,
 * chains, hinges with limits and motors, ...); the small catalogue scenes again under random
 * forces, torques, impulses and velocity changes; and seeded random worlds (boxes, polygons,
 * circles, compound and kinematic bodies, masses from 2^-8 to 2^14 kg, speeds up to the
 * settable +-4096 m/s, time steps down to 1/1000 s, Baumgarte factor up to 1, deep overlaps,
 * forces and torques that drive velocities to the fix16 limit, which is where the contact
 * solver falls back). Integer PRNG only: the same case is the same world on every host.
 * A third of the random worlds also have revolute joints (limits, motors) under the same
 * extremes: the joint solver falls back there, and its exact path saturates and reports
 * instead of overflowing, which the FIX2D_SANITIZE build of this test checks.
 * The soft step (f2d_world_def.substep_count >= 1) too: the small catalogue scenes with 4
 * substeps, and the first 120 random stress worlds (forces and all) with 1..8 substeps. Its
 * contact passes (src/solver_soft.c) have a scalar fast path per lane that falls back to the
 * exact one, counted as the "soft pass" solver (its warm start is the arbiters' and counted
 * there); the sanitizer build checks its arithmetic at the extremes.
 * The joint-gap worlds (gap_world) reach the AVX-512 substep geometry's bias-check fallback of
 * the revolute joints, with lanes on both sides of its boundary mixed with ordinary lanes in
 * each batch; the helpers count it (f2d_joint_substep_counts, F2D_JOINT_COUNT_PATHS) and the
 * test requires the exact counts.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "test_rng.h"

#define F2D_SOFT_MAX 8 /* f2d_world_def.substep_count's range */

/* ---- the cases, shared by the test and the helpers ---- */

enum {
	STRESS_WORLDS = 1500,
	STRESS_STEPS = 120,
	STRESSED_SCENE_STEPS = 150,
	SOFT_WORLDS = 120,
	SOFT_SCENE_STEPS = 100,
	GAP_WORLDS = 6,
	GAP_STEPS = 4,
	GAP_LANES = 18
};

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

/* |v| log-uniform-ish in [2^lo_bits, 2^hi_bits) LSB, random sign */
static int32_t rnd_mag(rng *r, int32_t lo_bits, int32_t hi_bits)
{
	int32_t b = rnd(r, lo_bits, hi_bits - 1);
	int32_t m = (int32_t)(((int64_t)1 << b) + (int64_t)(next_u64(r) % ((uint64_t)1 << b)));
	return chance(r, 1, 2) ? -m : m;
}

/* x then y, in two statements (see vec) */
static f2d_vec2 vec_mag(rng *r, int32_t lo_bits, int32_t hi_bits)
{
	f2d_vec2 v;
	v.x = rnd_mag(r, lo_bits, hi_bits);
	v.y = rnd_mag(r, lo_bits, hi_bits);
	return v;
}

typedef enum case_kind {
	KIND_SCENE,
	KIND_STRESSED_SCENE,
	KIND_STRESS,
	KIND_SOFT_SCENE,  /* the small catalogue scenes with the soft step, 4 substeps */
	KIND_SOFT_STRESS, /* the first SOFT_WORLDS stress worlds with the soft step */
	KIND_JOINT_GAP,   /* revolute joints at the AVX-512 substep's bias boundary (gap_world) */
	KIND_COUNT
} case_kind;

static bool small_scene(int32_t s)
{
	const char *name = f2d_scene_name(s);
	return strncmp(name, "large_", 6) != 0 && strcmp(name, "rain1000") != 0;
}

static int32_t stressed_scene_count(void)
{
	int32_t n = 0;
	for (int32_t s = 0; s < f2d_scene_count(); ++s) {
		n += small_scene(s) ? 1 : 0;
	}
	return n;
}

/* the scene index of the c-th small scene (c < stressed_scene_count()) */
static int32_t nth_small_scene(int32_t c)
{
	int32_t s = 0;
	for (int32_t seen = -1;; ++s) {
		seen += small_scene(s) ? 1 : 0;
		if (seen == c) {
			return s;
		}
	}
}

static int32_t case_count(void)
{
	return f2d_scene_count() + 2 * stressed_scene_count() + STRESS_WORLDS + SOFT_WORLDS +
	       GAP_WORLDS;
}

typedef struct world_case {
	case_kind kind;
	int32_t index; /* scene index or stress seed */
	int32_t steps;
	char name[80];
} world_case;

static world_case describe_case(int32_t c)
{
	world_case k;
	memset(&k, 0, sizeof k);
	int32_t scenes = f2d_scene_count(), stressed = stressed_scene_count();
	if (c < scenes) {
		const char *name = f2d_scene_name(c);
		k.kind = KIND_SCENE;
		k.index = c;
		/* as tests/test_determinism.c: the large_* benchmarks are slow, rain1000 too */
		k.steps = strncmp(name, "large_", 6) == 0
		              ? 10
		              : (strcmp(name, "rain1000") == 0 ? 120 : 300);
		snprintf(k.name, sizeof k.name, "scene %s", name);
		return k;
	}
	c -= scenes;
	if (c < stressed) {
		int32_t s = nth_small_scene(c);
		k.kind = KIND_STRESSED_SCENE;
		k.index = s;
		k.steps = STRESSED_SCENE_STEPS;
		snprintf(k.name, sizeof k.name, "stressed scene %s", f2d_scene_name(s));
		return k;
	}
	c -= stressed;
	if (c < STRESS_WORLDS) {
		k.kind = KIND_STRESS;
		k.index = c;
		k.steps = STRESS_STEPS;
		snprintf(k.name, sizeof k.name, "stress world %d", (int)c);
		return k;
	}
	c -= STRESS_WORLDS;
	if (c < stressed) {
		int32_t s = nth_small_scene(c);
		k.kind = KIND_SOFT_SCENE;
		k.index = s;
		k.steps = SOFT_SCENE_STEPS;
		snprintf(k.name, sizeof k.name, "soft-step scene %s", f2d_scene_name(s));
		return k;
	}
	c -= stressed;
	if (c >= SOFT_WORLDS) {
		k.kind = KIND_JOINT_GAP;
		k.index = c - SOFT_WORLDS;
		k.steps = GAP_STEPS;
		snprintf(k.name, sizeof k.name, "joint-gap world %d", (int)k.index);
		return k;
	}
	k.kind = KIND_SOFT_STRESS;
	k.index = c;
	k.steps = STRESS_STEPS;
	snprintf(k.name, sizeof k.name, "soft-step stress world %d", (int)c);
	return k;
}

/* Two draws in two statements: the order of evaluation inside an initializer list or an
 * argument list is unspecified in C, and compilers do pick different orders. */
static f2d_vec2 vec(rng *r, int32_t lo, int32_t hi)
{
	f2d_vec2 v;
	v.x = rnd(r, lo, hi);
	v.y = rnd(r, lo, hi);
	return v;
}

/* A random convex polygon: 3..8 points on a circle at increasing angles (CCW); false
 * when f2d_make_polygon refuses (near-collinear neighbours), the caller then uses a box. */
static bool random_polygon(rng *r, f2d_polygon *out)
{
	int32_t count = rnd(r, 3, 8);
	fix16_t radius = rnd(r, F2D_MILLI(100), F2D_FIX(3));
	f2d_vec2 center = vec(r, -F2D_ONE, F2D_ONE);
	f2d_vec2 pts[8];
	/* angle steps of 2 pi / count, each jittered by up to a third of a step */
	const fix16_t two_pi = 411775;
	fix16_t step = two_pi / count;
	for (int32_t i = 0; i < count; ++i) {
		fix16_t a = step * i + rnd(r, -step / 3, step / 3);
		f2d_rot q = f2d_make_rot(a);
		pts[i].x = center.x + (fix16_t)(((int64_t)q.c * radius) >> 16);
		pts[i].y = center.y + (fix16_t)(((int64_t)q.s * radius) >> 16);
	}
	return f2d_make_polygon(pts, count, out) == F2D_OK;
}

static fix16_t heavy_light_density(rng *r)
{
	int64_t base = rnd(r, F2D_ONE, 2 * F2D_ONE);
	int32_t shift = rnd(r, 0, 18);
	return (fix16_t)(base << shift >> 6);
}

static f2d_shape_def random_shape_def(rng *r, bool heavy_light, fix16_t max_density)
{
	f2d_shape_def sd = f2d_default_shape_def();
	/* densities over 2^-6 .. 2^12 kg/m^2: mass ratios up to ~2^20 between bodies */
	sd.density = heavy_light ? heavy_light_density(r) : rnd(r, F2D_MILLI(100), max_density);
	sd.friction = chance(r, 1, 4) ? 0 : rnd(r, 0, F2D_FIX(4));
	sd.restitution = chance(r, 1, 2) ? 0 : rnd(r, 0, F2D_ONE);
	return sd;
}

/* One random shape on body b; false if the body refused it (e.g. the mass range). */
static bool add_random_shape(f2d_world *w, rng *r, f2d_body_id b, bool heavy_light,
                             fix16_t max_density)
{
	f2d_shape_def sd = random_shape_def(r, heavy_light, max_density);
	f2d_shape_id sid;
	int32_t kind = rnd(r, 0, 2);
	if (kind == 0) {
		f2d_circle c;
		c.center = vec(r, -F2D_ONE, F2D_ONE);
		c.radius = rnd(r, F2D_MILLI(50), F2D_FIX(3));
		return f2d_create_circle_shape(w, b, &sd, &c, &sid) == F2D_OK;
	}
	f2d_polygon p;
	if (kind == 1 || !random_polygon(r, &p)) {
		fix16_t hx = rnd(r, F2D_MILLI(50), F2D_FIX(3)),
		        hy = rnd(r, F2D_MILLI(50), F2D_FIX(3));
		if (chance(r, 1, 2)) {
			if (f2d_make_box(hx, hy, &p) != F2D_OK) {
				return false;
			}
		} else if (f2d_make_offset_box(hx, hy, vec(r, -F2D_ONE, F2D_ONE),
		                               f2d_make_rot(rnd(r, -205887, 205887)),
		                               &p) != F2D_OK) {
			return false;
		}
	}
	return f2d_create_polygon_shape(w, b, &sd, &p, &sid) == F2D_OK;
}

/* a random spring: none, soft, or at the range's ends (1000 Hz, damping ratio 100) */
static void random_spring(rng *r, fix16_t *hertz, fix16_t *zeta)
{
	*hertz = chance(r, 1, 4) ? 0 : (chance(r, 1, 4) ? F2D_FIX(1000) : rnd(r, 0, F2D_FIX(30)));
	*zeta = chance(r, 1, 4) ? F2D_FIX(100) : rnd(r, 0, F2D_FIX(2));
}

/* a motor speed, up to the settable +-1000 */
static fix16_t random_speed(rng *r)
{
	return chance(r, 1, 4) ? (chance(r, 1, 2) ? F2D_FIX(1000) : F2D_FIX(-1000))
	                       : rnd(r, F2D_FIX(-20), F2D_FIX(20));
}

/* a force or torque bound, up to 2^30 N */
static fix16_t random_force(rng *r)
{
	return chance(r, 1, 4) ? (fix16_t)1 << 30 : rnd(r, 0, F2D_FIX(2000));
}

/* One joint of the types beyond the revolute joint (type 1..6, fix2d/joints.h) between bodies
 * a and b, random parameters up to the ends of their ranges; the
 * world may refuse it (e.g. an effective mass out of range), the same in every build. */
static void add_other_joint(f2d_world *w, rng *r, f2d_body_id a, f2d_body_id b)
{
	f2d_vec2 la = vec(r, -F2D_ONE, F2D_ONE), lb = vec(r, -F2D_ONE, F2D_ONE);
	f2d_vec2 axis = vec(r, -F2D_ONE, F2D_ONE);
	if (axis.x == 0 && axis.y == 0) {
		axis.x = F2D_ONE;
	}
	bool limit = chance(r, 1, 2), motor = chance(r, 1, 2), spring = chance(r, 1, 2);
	fix16_t hz, zeta, lo = rnd(r, F2D_FIX(-4), F2D_FIX(1)), hi = rnd(r, 0, F2D_FIX(4));
	random_spring(r, &hz, &zeta);
	fix16_t speed = random_speed(r), force = random_force(r);
	f2d_joint_id j;
	switch (rnd(r, 1, 6)) {
	case 1: {
		f2d_distance_joint_def d = f2d_default_distance_joint_def();
		d.body_a = a;
		d.body_b = b;
		d.local_anchor_a = la;
		d.local_anchor_b = lb;
		d.length = rnd(r, F2D_MIN_SHAPE_SIZE, F2D_FIX(6));
		d.enable_spring = spring;
		d.hertz = hz;
		d.damping_ratio = zeta;
		d.enable_limit = limit;
		d.min_length = rnd(r, 0, F2D_FIX(2));
		d.max_length = d.min_length + rnd(r, 0, F2D_FIX(6));
		d.enable_motor = motor;
		d.motor_speed = speed;
		d.max_motor_force = force;
		f2d_create_distance_joint(w, &d, &j);
		break;
	}
	case 2: {
		f2d_prismatic_joint_def d = f2d_default_prismatic_joint_def();
		d.body_a = a;
		d.body_b = b;
		d.local_anchor_a = la;
		d.local_anchor_b = lb;
		d.local_axis_a = axis;
		d.reference_angle = rnd(r, -205887, 205887);
		d.enable_spring = spring;
		d.hertz = hz;
		d.damping_ratio = zeta;
		d.enable_limit = limit;
		d.lower_translation = lo;
		d.upper_translation = hi;
		d.enable_motor = motor;
		d.motor_speed = speed;
		d.max_motor_force = force;
		f2d_create_prismatic_joint(w, &d, &j);
		break;
	}
	case 3: {
		f2d_weld_joint_def d = f2d_default_weld_joint_def();
		d.body_a = a;
		d.body_b = b;
		d.local_anchor_a = la;
		d.local_anchor_b = lb;
		d.reference_angle = rnd(r, -205887, 205887);
		d.linear_hertz = hz;
		d.linear_damping_ratio = zeta;
		random_spring(r, &d.angular_hertz, &d.angular_damping_ratio);
		f2d_create_weld_joint(w, &d, &j);
		break;
	}
	case 4: {
		f2d_wheel_joint_def d = f2d_default_wheel_joint_def();
		d.body_a = a;
		d.body_b = b;
		d.local_anchor_a = la;
		d.local_anchor_b = lb;
		d.local_axis_a = axis;
		d.enable_spring = spring;
		d.hertz = hz;
		d.damping_ratio = zeta;
		d.enable_limit = limit;
		d.lower_translation = lo;
		d.upper_translation = hi;
		d.enable_motor = motor;
		d.motor_speed = speed;
		d.max_motor_torque = force;
		f2d_create_wheel_joint(w, &d, &j);
		break;
	}
	case 5: {
		f2d_motor_joint_def d = f2d_default_motor_joint_def();
		d.body_a = a;
		d.body_b = b;
		d.linear_offset = vec(r, F2D_FIX(-3), F2D_FIX(3));
		d.angular_offset = rnd(r, -205887, 205887);
		d.max_force = force;
		d.max_torque = random_force(r);
		d.correction_factor = rnd(r, 0, F2D_ONE);
		f2d_create_motor_joint(w, &d, &j);
		break;
	}
	default: {
		f2d_mouse_joint_def d = f2d_default_mouse_joint_def();
		d.body_a = a;
		d.body_b = b;
		d.target = f2d_body_get_position(w, b);
		d.target.x += rnd(r, F2D_FIX(-2), F2D_FIX(2));
		d.target.y += rnd(r, F2D_FIX(-2), F2D_FIX(2));
		d.hertz = hz > 0 ? hz : F2D_FIX(5);
		d.damping_ratio = zeta;
		d.max_force = force;
		f2d_create_mouse_joint(w, &d, &j);
		break;
	}
	}
}

/* substeps > 0: the same world with the soft step, min(substeps, time_step / 65) substeps
 * (no extra draw: the world is the one of the seed) */
static f2d_world *build_stress_world(int32_t seed, int32_t substeps)
{
	rng r = {0x5EEDull * 1000003u + (uint64_t)seed};
	/* seed % 3 == 0: revolute joints; seed % 6 == 1: the other joint types; else none */
	bool other_joints = seed % 6 == 1, jointed = seed % 3 == 0 || other_joints;
	f2d_world_def def = f2d_default_world_def();
	static const fix16_t steps[] = {1092, 65, 131, 6554};
	def.time_step = chance(&r, 1, 4) ? rnd(&r, 65, 6554) : steps[rnd(&r, 0, 3)];
	def.iterations = rnd(&r, 1, 12);
	def.joint_position_iterations = rnd(&r, 0, 6);
	def.gravity = chance(&r, 1, 4) ? vec(&r, F2D_FIX(-1000), F2D_FIX(1000))
	                               : (f2d_vec2){0, rnd(&r, F2D_FIX(-40), 0)};
	def.bias_factor = chance(&r, 1, 3) ? F2D_ONE : rnd(&r, 0, F2D_ONE);
	def.linear_slop = rnd(&r, 0, F2D_MILLI(100));
	def.speculative_distance = rnd(&r, 0, F2D_ONE);
	def.restitution_threshold = rnd(&r, 0, F2D_FIX(20));
	def.max_translation = chance(&r, 1, 2) ? F2D_FIX(64) : rnd(&r, F2D_MILLI(10), F2D_FIX(64));
	def.max_rotation = rnd(&r, F2D_MILLI(10), 102943);
	def.warm_starting = !chance(&r, 1, 8);
	def.enable_sleep = chance(&r, 1, 2);
	/* 0: the Gauss-Seidel solver's worlds (explicit: the default is the soft step) */
	def.substep_count = 0;
	if (substeps > 0) {
		def.substep_count = substeps < def.time_step / 65 ? substeps : def.time_step / 65;
	}
	f2d_world *w = NULL;
	if (f2d_create_world(&def, &w) != F2D_OK) {
		return NULL;
	}
	/* a box container: ground and two walls */
	fix16_t half = rnd(&r, F2D_FIX(3), F2D_FIX(40));
	f2d_body_def bd = f2d_default_body_def();
	f2d_body_id ground;
	f2d_create_body(w, &bd, &ground);
	f2d_shape_def sd = random_shape_def(&r, false, F2D_FIX(10));
	f2d_polygon p;
	f2d_make_offset_box(half + F2D_ONE, F2D_ONE, (f2d_vec2){0, -F2D_ONE}, f2d_make_rot(0), &p);
	f2d_shape_id sid;
	f2d_create_polygon_shape(w, ground, &sd, &p, &sid);
	for (int32_t side = -1; side <= 1; side += 2) {
		f2d_make_offset_box(F2D_ONE, F2D_FIX(40),
		                    (f2d_vec2){side * (half + F2D_ONE), F2D_FIX(40)},
		                    f2d_make_rot(0), &p);
		f2d_create_polygon_shape(w, ground, &sd, &p, &sid);
	}
	/* dynamic bodies, packed and overlapping */
	int32_t n = rnd(&r, 4, 28);
	bool heavy_light = !chance(&r, 1, 4);
	for (int32_t i = 0; i < n; ++i) {
		bd = f2d_default_body_def();
		bd.type = chance(&r, 1, 10) ? F2D_KINEMATIC_BODY : F2D_DYNAMIC_BODY;
		bd.position.x = rnd(&r, -half, half);
		bd.position.y = rnd(&r, 0, F2D_FIX(12));
		bd.rotation = f2d_make_rot(rnd(&r, -205887, 205887));
		int32_t speed_bits = rnd(&r, 8, 29); /* up to +-4096 m/s (2^28) */
		if (chance(&r, 2, 3)) {
			bd.linear_velocity = vec_mag(&r, 0, speed_bits);
			bd.angular_velocity = rnd_mag(&r, 0, speed_bits);
		}
		bd.awake = !chance(&r, 1, 10);
		bd.enable_sleep = !chance(&r, 1, 4);
		f2d_body_id b;
		if (f2d_create_body(w, &bd, &b) != F2D_OK) {
			continue;
		}
		int32_t shapes = chance(&r, 1, 4) ? 2 : 1;
		bool any = false;
		for (int32_t k = 0; k < shapes; ++k) {
			any |= add_random_shape(w, &r, b, heavy_light, F2D_FIX(10));
		}
		if (!any && bd.type == F2D_DYNAMIC_BODY) {
			f2d_destroy_body(w, b);
			continue;
		}
	}
	/* revolute joints between close bodies (ids[0] is the ground), some with limits and
	 * motors */
	f2d_body_id ids[32];
	int32_t nb = jointed ? f2d_world_get_bodies(w, ids, 32) : 0;
	nb = nb > 32 ? 32 : nb;
	for (int32_t i = 1; i < nb; ++i) {
		int32_t other = 0;
		f2d_vec2 pa = f2d_body_get_position(w, ids[i]), pb = pa;
		fix16_t ma = f2d_body_get_mass(w, ids[i]);
		for (int32_t k = i + 1; k < nb && other == 0; ++k) {
			pb = f2d_body_get_position(w, ids[k]);
			fix16_t mb = f2d_body_get_mass(w, ids[k]);
			if (abs(pa.x - pb.x) <= F2D_FIX(3) && abs(pa.y - pb.y) <= F2D_FIX(3) &&
			    mb <= 4 * (int64_t)ma && ma <= 4 * (int64_t)mb) {
				other = k;
			}
		}
		if (other_joints) {
			/* to the ground (body A static) or to the other body */
			bool to_ground = other == 0 || chance(&r, 1, 4);
			add_other_joint(w, &r, to_ground ? ids[0] : ids[other], ids[i]);
			continue;
		}
		if (other == 0 || ma < F2D_ONE / 2 || chance(&r, 1, 4)) {
			continue;
		}
		f2d_vec2 anchor = {pa.x / 2 + pb.x / 2, pa.y / 2 + pb.y / 2};
		f2d_revolute_joint_def jd;
		if (f2d_init_revolute_joint_def(w, ids[i], ids[other], anchor, &jd) != F2D_OK) {
			continue;
		}
		if (chance(&r, 1, 2)) {
			jd.enable_limit = true;
			jd.lower_angle = rnd(&r, -205887, 0);
			jd.upper_angle = rnd(&r, 0, 205887);
		}
		if (chance(&r, 1, 2)) {
			jd.enable_motor = true;
			jd.motor_speed = rnd(&r, F2D_FIX(-10), F2D_FIX(10));
			jd.max_motor_torque = rnd(&r, 0, F2D_FIX(1000));
		}
		f2d_joint_id j;
		f2d_create_revolute_joint(w, &jd, &j);
	}
	return w;
}

/* Before step `step` of a stress case: random large forces, torques and impulses on random
 * bodies (the calls may be refused, e.g. an impulse past the speed range: the same in every
 * build as long as the states agree). */
static void stress_actions(f2d_world *w, uint64_t seed, int32_t step, bool gentle)
{
	rng r = {seed * 0x100000001B3ull + (uint64_t)step};
	int32_t force_bits = gentle ? 16 : 31, speed_bits = gentle ? 20 : 29;
	if (!chance(&r, 1, 3)) {
		return;
	}
	f2d_body_id ids[64];
	int32_t n = f2d_world_get_bodies(w, ids, 64);
	n = n > 64 ? 64 : n;
	if (n == 0) {
		return;
	}
	int32_t actions = rnd(&r, 1, 4);
	for (int32_t i = 0; i < actions; ++i) {
		f2d_body_id b = ids[rnd(&r, 0, n - 1)];
		f2d_vec2 at = f2d_body_get_world_center(w, b);
		switch (rnd(&r, 0, 4)) {
		case 0: /* force_bits 31: saturates the velocity of a light body */
			f2d_body_apply_force(w, b, vec_mag(&r, 10, force_bits), at);
			break;
		case 1: f2d_body_apply_torque(w, b, rnd_mag(&r, 10, force_bits)); break;
		case 2: f2d_body_apply_linear_impulse(w, b, vec_mag(&r, 8, 28), at); break;
		case 3: f2d_body_set_linear_velocity(w, b, vec_mag(&r, 8, speed_bits)); break;
		default: f2d_body_set_angular_velocity(w, b, rnd_mag(&r, 8, speed_bits)); break;
		}
	}
}

/* ---- the joint-gap worlds ----
 * The soft step's substep geometry of revolute joints without motor and limits runs on 8
 * AVX-512 lanes or 4 AVX2 lanes (src/joint_kernel.h, J(substep_group)) and checks each lane's
 * bias the way the fast paths check: p = round16(beta_h * gap) in [-2^30, 2^30) per axis, gap
 * the anchors' gap (clamped to the tolerance only with joint position passes, so here
 * joint_position_iterations = 0), else the lane runs f2d_joint_substep. These worlds put
 * lanes on both sides of that boundary, mixed in each batch of 8 with ordinary lanes, and
 * choose the substep and bias factor so that beta_h is a power of two and the boundary exact:
 * a substep of hs = 256 or 128 LSB (time_step = hs * substeps) makes inv_h = 2^32 / hs
 * exactly (2^24 or 2^25 LSB), bias_factor 1 or 1/2 makes beta_h = B * 2^16 with B = 2^32 /
 * hs * bias_factor, and p = B * gap exactly (no rounding): the check fails iff
 * gap >= G or gap < -G, G = 2^30 / B LSB (64 m at hs 256, bias 1).
 * Every joint ties a dynamic body (a circle at its centre, the joint's anchor B) to a static
 * body of its own at the origin (anchor A = the body's position - the gap), so the joints
 * share no body: one colour, batches of 8 in id order. The gap only shrinks (the bias pulls
 * the body to its anchor; no gravity) and by at most max_translation = 0.01 m = 655 LSB per
 * step, GAP_STEPS steps in all (2,620 LSB): a lane 4,096 LSB, 1 m or G + 2 m beyond the
 * boundary fails in every substep geometry (substeps 2..n of each step), one at G - 1 or -G (just
 * inside when made, a little further in by substep 2) passes in every one, and the counts are
 * exact. The inside edge is so pinned to within the first substep's move (at most
 * max_translation / substeps): a check 1 LSB of gap too strict fails 1 of the 6 worlds. */
typedef struct gap_world {
	int32_t substeps, hs;
	fix16_t bias_factor;
} gap_world;

static const gap_world gap_worlds[GAP_WORLDS] = {{2, 256, F2D_ONE},     {4, 256, F2D_ONE},
                                                 {8, 256, F2D_ONE},     {4, 128, F2D_ONE},
                                                 {4, 256, F2D_ONE / 2}, {8, 128, F2D_ONE / 2}};

/* G of world i in LSB: B = (2^32 / hs) * bias_factor / 2^16 */
static int64_t gap_limit(int32_t i)
{
	int64_t b = (((int64_t)1 << 32) / gap_worlds[i].hs) * gap_worlds[i].bias_factor >> 32;
	return ((int64_t)1 << 30) / b;
}

/* lane k's gap: 'b' fails the check (beyond), 'i' just inside (G - 1 or -G), 'o' ordinary;
 * the sides: x+, x-, y+, y- */
static const struct {
	char what;
	int8_t axis, sign; /* axis 0: x, 1: y, 2: none (ordinary) */
	int32_t off;       /* beyond: LSB past G (-1: G + 2^17 past G: a bias past the fix16
	                    * range, which f2d_joint_substep saturates and reports and the lanes'
	                    * cast would wrap); ordinary: the gap */
} gap_lanes[GAP_LANES] = {{'b', 0, 1, 4096},   {'i', 0, 1, 0},     {'o', 2, 0, 0},
                          {'b', 0, -1, 4096},  {'i', 0, -1, 0},    {'b', 0, 1, -1},
                          {'o', 2, 0, 655},    {'b', 1, 1, 4096},  {'i', 1, 1, 0},
                          {'o', 2, 0, -655},   {'b', 0, 1, 65536}, {'i', 1, -1, 0},
                          {'o', 2, 0, 65536},  {'b', 1, -1, 4096}, {'o', 2, 0, -196608},
                          {'b', 0, -1, 65536}, {'b', 1, -1, -1},   {'o', 2, 0, 64}};

static f2d_world *build_gap_world(int32_t i)
{
	const gap_world *g = &gap_worlds[i];
	f2d_world_def def = f2d_default_world_def();
	def.substep_count = g->substeps;
	def.time_step = g->hs * g->substeps;
	def.bias_factor = g->bias_factor;
	def.joint_position_iterations = 0;
	def.gravity = (f2d_vec2){0, 0};
	def.max_translation = F2D_MILLI(10);
	def.enable_sleep = false;
	def.warm_starting = true;
	f2d_world *w = NULL;
	if (f2d_create_world(&def, &w) != F2D_OK) {
		return NULL;
	}
	int64_t lim = gap_limit(i);
	for (int32_t k = 0; k < GAP_LANES; ++k) {
		f2d_body_def bd = f2d_default_body_def();
		f2d_body_id ground, body;
		f2d_create_body(w, &bd, &ground);
		bd.type = F2D_DYNAMIC_BODY;
		bd.position = (f2d_vec2){F2D_FIX(10) * k, 0};
		f2d_create_body(w, &bd, &body);
		f2d_shape_def sd = f2d_default_shape_def();
		f2d_circle c = {{0, 0}, F2D_MILLI(500)};
		f2d_shape_id sid;
		f2d_create_circle_shape(w, body, &sd, &c, &sid);
		int64_t off = gap_lanes[k].off < 0 ? lim + 131072 : gap_lanes[k].off;
		int64_t gap =
		    gap_lanes[k].what == 'b' ? lim + off : (gap_lanes[k].what == 'i' ? lim - 1 : 0);
		if (gap_lanes[k].sign < 0) {
			gap = gap_lanes[k].what == 'b' ? -lim - 1 - off : -lim;
		}
		f2d_vec2 gv = {0, 0};
		if (gap_lanes[k].axis == 0) {
			gv.x = (fix16_t)gap;
		} else if (gap_lanes[k].axis == 1) {
			gv.y = (fix16_t)gap;
		} else {
			gv.x = gap_lanes[k].off;
			gv.y = -gap_lanes[k].off / 2;
		}
		f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
		jd.body_a = ground;
		jd.body_b = body;
		/* gap = anchor B - anchor A (anchor_gap) */
		jd.local_anchor_a = (f2d_vec2){bd.position.x - gv.x, bd.position.y - gv.y};
		jd.local_anchor_b = (f2d_vec2){0, 0};
		f2d_joint_id j;
		if (f2d_create_revolute_joint(w, &jd, &j) != F2D_OK) {
			f2d_destroy_world(w);
			return NULL;
		}
	}
	return w;
}

/* The solvers whose paths are counted: the arbiters (src/solver.c), the revolute joints
 * (src/joint.c), then the joint types 1..6 (src/joint_*.c: distance, prismatic, weld, wheel
 * have a fast path, motor and mouse only the exact one), then the soft step's contact passes
 * (src/solver_soft.c; its warm start is the arbiters'): lanes with a bounce pending (always
 * exact) in the warm start's fallback column, then fast and exact lanes. */
enum { SOLVERS = 9, SOFT_SOLVER = 8 };

/* Called after every step with its result and hash; return false to stop the case. */
typedef bool (*step_fn)(void *ctx, int32_t step, f2d_result r, uint64_t hash);

/* Builds and steps case c; false if the world could not be built. */
static bool run_case(int32_t c, step_fn fn, void *ctx)
{
	world_case k = describe_case(c);
	f2d_world *w = NULL;
	f2d_world_def soft = f2d_default_world_def(), gs = f2d_default_world_def();
	soft.substep_count = 4;
	gs.substep_count = 0; /* the scene and stressed-scene cases: the Gauss-Seidel solver's */
	if (k.kind == KIND_STRESS) {
		w = build_stress_world(k.index, 0);
	} else if (k.kind == KIND_SOFT_STRESS) {
		w = build_stress_world(k.index, 1 + k.index % F2D_SOFT_MAX);
	} else if (k.kind == KIND_JOINT_GAP) {
		w = build_gap_world(k.index);
	} else if (f2d_scene_create(f2d_scene_name(k.index),
	                            k.kind == KIND_SOFT_SCENE ? &soft : &gs, &w) != F2D_OK) {
		w = NULL;
	}
	if (w == NULL) {
		return false;
	}
	uint64_t seed = ((uint64_t)k.kind << 32) + (uint64_t)k.index;
	/* Forces up to the fix16 limit saturate the velocities of light bodies, which is what
	 * makes the contact solver fall back; jointed worlds get them too. */
	bool gentle = false;
	for (int32_t s = 1; s <= k.steps; ++s) {
		if (k.kind != KIND_SCENE && k.kind != KIND_SOFT_SCENE && k.kind != KIND_JOINT_GAP) {
			stress_actions(w, seed, s, gentle);
		}
		f2d_result r = f2d_world_step(w);
		if (!fn(ctx, s, r, f2d_world_hash(w))) {
			break;
		}
	}
	f2d_destroy_world(w);
	return true;
}

#ifdef F2D_SOLVER_PATHS_HELPER
#include "solver_paths_kernels.h" /* "inverse", "roundings", "pairs", "stage" */

/* ---- the helpers: print the chains ----
 * "n <cases>", then per case "c <case>", "s <step> <result> <hash>" per step and
 * "e <warm fast> <warm exact> <solve fast> <solve exact>" (arbiter counts of the case, then the
 * same four counts of the revolute joints, then of each other joint type, SOLVERS in all). */

extern uint64_t f2d_contact_path_counts[4];
extern uint64_t f2d_joint_path_counts[4];
extern uint64_t f2d_joint_ext_path_counts[7][4];
extern uint64_t f2d_soft_path_counts[3]; /* fast, exact (range), exact (bounce pending) */
/* contact colourings kept, built; lanes whose constants were kept, computed (solver.c) */
extern uint64_t f2d_coloring_counts[4];
/* the substep geometry of revolute joints in SIMD lanes: lanes done in lanes, bias-check
 * fallbacks, K^-1 inverted again (joint_lanes.c) */
extern uint64_t f2d_joint_substep_counts[3];

/* counter i of the "e" line */
static uint64_t path_count(int i)
{
	if (i < 4) {
		return f2d_contact_path_counts[i];
	}
	if (i < 8) {
		return f2d_joint_path_counts[i - 4];
	}
	if (i < 4 * SOFT_SOLVER) {
		return f2d_joint_ext_path_counts[i / 4 - 1][i % 4];
	}
	static const int soft_slot[4] = {-1, 2, 0, 1};
	return soft_slot[i % 4] < 0 ? 0 : f2d_soft_path_counts[soft_slot[i % 4]];
}

static bool print_step(void *ctx, int32_t step, f2d_result r, uint64_t hash)
{
	(void)ctx;
	printf("s %d %d %016" PRIx64 "\n", (int)step, (int)r, hash);
	return true;
}

int main(int argc, char **argv)
{
	int32_t first = 0, last = case_count() - 1;
	if (argc > 1 && strcmp(argv[1], "pairs") == 0) {
		return pairs_main();
	}
	if (argc > 1 && strcmp(argv[1], "inverse") == 0) {
		return inverse_main();
	}
	if (argc > 1 && strcmp(argv[1], "roundings") == 0) {
		return roundings_main();
	}
	if (argc > 1 && strcmp(argv[1], "stage") == 0) {
		return stage_main();
	}
	if (argc > 1) {
		first = last = atoi(argv[1]);
	}
	printf("n %d %s\n", (int)case_count(), f2d_solver_kernel());
	for (int32_t c = first; c <= last; ++c) {
		memset(f2d_contact_path_counts, 0, sizeof f2d_contact_path_counts);
		memset(f2d_joint_path_counts, 0, sizeof f2d_joint_path_counts);
		memset(f2d_joint_ext_path_counts, 0, sizeof f2d_joint_ext_path_counts);
		memset(f2d_soft_path_counts, 0, sizeof f2d_soft_path_counts);
		memset(f2d_coloring_counts, 0, sizeof f2d_coloring_counts);
		memset(f2d_joint_substep_counts, 0, sizeof f2d_joint_substep_counts);
		printf("c %d\n", (int)c);
		if (!run_case(c, print_step, NULL)) {
			printf("x cannot build case %d\n", (int)c);
			return 1;
		}
		printf("e");
		for (int i = 0; i < 4 * SOLVERS; ++i) {
			printf(" %" PRIu64, path_count(i));
		}
		printf("\nk %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       f2d_coloring_counts[0], f2d_coloring_counts[1], f2d_coloring_counts[2],
		       f2d_coloring_counts[3]);
		printf("j %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", f2d_joint_substep_counts[0],
		       f2d_joint_substep_counts[1], f2d_joint_substep_counts[2]);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

#else

/* ---- the test ---- */
#include <check.h>

static const char *const kind_names[KIND_COUNT] = {"catalogue scenes",     "stressed scenes",
                                                   "random stress worlds", "soft-step scenes",
                                                   "soft-step stress",     "joint-gap worlds"};

typedef struct helper {
	const char *what;
	FILE *f;
	char line[1024];
} helper;

static void helper_open(helper *h, const char *what, const char *path)
{
	char cmd[4096];
	h->what = what;
	snprintf(cmd, sizeof cmd, "'%s'", path);
	h->f = popen(cmd, "r");
	ck_assert_msg(h->f != NULL, "cannot run %s", path);
}

/* The next line, which must start with tag; returns the text after "tag ". */
static const char *helper_line(helper *h, char tag)
{
	if (fgets(h->line, sizeof h->line, h->f) == NULL) {
		h->line[0] = '\0';
		return NULL;
	}
	if (h->line[0] != tag || h->line[1] != ' ') {
		return NULL;
	}
	return h->line + 2;
}

#define HELPERS 4

typedef struct compare_ctx {
	int32_t c;
	helper **hs;
	int32_t bad_step; /* first differing step, 0: none */
	char msg[512];
} compare_ctx;

static bool compare_step(void *ctx, int32_t step, f2d_result r, uint64_t hash)
{
	compare_ctx *x = ctx;
	helper **hs = x->hs;
	for (int i = 0; i < HELPERS; ++i) {
		const char *t = helper_line(hs[i], 's');
		int hs_step = -1, hs_r = -1;
		uint64_t hs_hash = 0;
		if (t == NULL || sscanf(t, "%d %d %" SCNx64, &hs_step, &hs_r, &hs_hash) != 3 ||
		    hs_step != step) {
			x->bad_step = step;
			snprintf(x->msg, sizeof x->msg,
			         "%s helper out of step at step %d: \"%.100s\"", hs[i]->what,
			         (int)step, hs[i]->line);
			return false;
		}
		if (hs_r != (int)r || hs_hash != hash) {
			x->bad_step = step;
			snprintf(
			    x->msg, sizeof x->msg,
			    "first difference at step %d: normal build: result %d hash %016" PRIx64
			    ", %s build: result %d hash %016" PRIx64,
			    (int)step, (int)r, hash, hs[i]->what, hs_r, hs_hash);
			return false;
		}
	}
	return true;
}

/* the joint-gap worlds' lanes of one kind (gap_lanes) */
static int32_t gap_lane_count(char what)
{
	int32_t n = 0;
	for (int32_t k = 0; k < GAP_LANES; ++k) {
		n += gap_lanes[k].what == what ? 1 : 0;
	}
	return n;
}

START_TEST(fast_path_matches_exact_path)
{
	helper exact, counted, scalar, avx2;
	helper_open(&exact, "exact-only", F2D_SOLVER_PATHS_EXACT);
	helper_open(&counted, "path-counting", F2D_SOLVER_PATHS_COUNTED);
	helper_open(&scalar, "scalar-kernel", F2D_SOLVER_PATHS_SCALAR);
	helper_open(&avx2, "avx2-kernel", F2D_SOLVER_PATHS_AVX2);
	int32_t cases = case_count();
	helper *hs[HELPERS] = {&exact, &counted, &scalar, &avx2};
	/* the AVX2 build runs AVX2 wherever the normal build runs SIMD */
	const char *normal = f2d_solver_kernel();
	const char *kernels[HELPERS] = {"scalar", normal, "scalar",
	                                strcmp(normal, "scalar") == 0 ? "scalar" : "avx2"};
	for (int i = 0; i < HELPERS; ++i) {
		const char *t = helper_line(hs[i], 'n');
		char kernel[32] = "";
		int n = -1;
		ck_assert_msg(t != NULL && sscanf(t, "%d %31s", &n, kernel) == 2 && n == cases &&
		                  strcmp(kernel, kernels[i]) == 0,
		              "%s helper: bad header \"%.100s\" (expected kernel %s)", hs[i]->what,
		              hs[i]->line, kernels[i]);
	}
	printf("contact solver kernel of the normal build: %s\n", f2d_solver_kernel());
	/* [kind][helper][solver][warm fast, warm exact, solve fast, solve exact], solver 0: the
	 * arbiters (contact.c), 1: the revolute joints (joint.c), 2..7: joint types 1..6 */
	uint64_t counts[KIND_COUNT][HELPERS][SOLVERS][4];
	memset(counts, 0, sizeof counts);
	/* [kind][helper][kept, built, lanes kept, lanes computed]: the contact colourings
	 * (solver.c keeps the last one while the active arbiters' keys stay the same) and the
	 * lanes whose geometric constants were kept (their inputs unchanged); the exact-only
	 * build keeps neither */
	uint64_t colorings[KIND_COUNT][HELPERS][4];
	memset(colorings, 0, sizeof colorings);
	/* [kind][helper][lanes, bias-check fallbacks, K^-1 again]: the substep geometry of the
	 * revolute joints in lanes (AVX-512 or AVX2); gap_seen: the joint-gap worlds' counts of
	 * each helper, by world */
	uint64_t substeps[KIND_COUNT][HELPERS][3], gap_seen[GAP_WORLDS][HELPERS][3];
	memset(substeps, 0, sizeof substeps);
	memset(gap_seen, 0, sizeof gap_seen);
	for (int32_t c = 0; c < cases; ++c) {
		world_case k = describe_case(c);
		for (int i = 0; i < HELPERS; ++i) {
			const char *t = helper_line(hs[i], 'c');
			ck_assert_msg(t != NULL && atoi(t) == c,
			              "%s helper: expected case %d, got \"%.100s\"", hs[i]->what,
			              (int)c, hs[i]->line);
		}
		compare_ctx x = {c, hs, 0, ""};
		ck_assert_msg(run_case(c, compare_step, &x), "cannot build %s", k.name);
		ck_assert_msg(x.bad_step == 0, "%s (case %d): %s", k.name, (int)c, x.msg);
		for (int i = 0; i < HELPERS; ++i) {
			const char *t = helper_line(hs[i], 'e');
			ck_assert_msg(t != NULL, "%s helper: no counts line \"%.100s\"",
			              hs[i]->what, hs[i]->line);
			for (int j = 0; j < 4 * SOLVERS; ++j) {
				char *end;
				uint64_t n = strtoull(t, &end, 10);
				ck_assert_msg(end != t, "%s helper: bad counts line \"%.100s\"",
				              hs[i]->what, hs[i]->line);
				counts[k.kind][i][j / 4][j % 4] += n;
				t = end;
			}
			t = helper_line(hs[i], 'k');
			uint64_t n[4] = {0, 0, 0, 0};
			ck_assert_msg(t != NULL && sscanf(t,
			                                  "%" SCNu64 " %" SCNu64 " %" SCNu64
			                                  " %" SCNu64,
			                                  &n[0], &n[1], &n[2], &n[3]) == 4,
			              "%s helper: bad colourings line \"%.100s\"", hs[i]->what,
			              hs[i]->line);
			for (int j = 0; j < 4; ++j) {
				colorings[k.kind][i][j] += n[j];
			}
			t = helper_line(hs[i], 'j');
			ck_assert_msg(t != NULL && sscanf(t, "%" SCNu64 " %" SCNu64 " %" SCNu64,
			                                  &n[0], &n[1], &n[2]) == 3,
			              "%s helper: bad substep line \"%.100s\"", hs[i]->what,
			              hs[i]->line);
			for (int j = 0; j < 3; ++j) {
				substeps[k.kind][i][j] += n[j];
				if (k.kind == KIND_JOINT_GAP) {
					gap_seen[k.index][i][j] = n[j];
				}
			}
		}
	}
	ck_assert_int_eq(pclose(exact.f), 0);
	ck_assert_int_eq(pclose(counted.f), 0);
	ck_assert_int_eq(pclose(scalar.f), 0);
	ck_assert_int_eq(pclose(avx2.f), 0);

	static const char *const solver_names[SOLVERS] = {"arbiters",  "joints", "distance",
	                                                  "prismatic", "weld",   "wheel",
	                                                  "motor",     "mouse",  "soft pass"};
	uint64_t total[HELPERS][SOLVERS][4] = {{{0}}};
	for (int kind = 0; kind < KIND_COUNT; ++kind) {
		for (int v = 0; v < SOLVERS; ++v) {
			const uint64_t *n = counts[kind][1][v];
			printf("%-21s %-8s warm start: %10" PRIu64 " fast %8" PRIu64
			       " fallback;  solve: %11" PRIu64 " fast %8" PRIu64 " fallback\n",
			       kind_names[kind], solver_names[v], n[0], n[1], n[2], n[3]);
			for (int i = 0; i < HELPERS; ++i) {
				for (int j = 0; j < 4; ++j) {
					total[i][v][j] += counts[kind][i][v][j];
				}
			}
		}
	}
	for (int kind = 0; kind < KIND_COUNT; ++kind) {
		const uint64_t *n = colorings[kind][1], *ex = colorings[kind][0];
		printf("%-21s contact colourings: %10" PRIu64 " kept %8" PRIu64
		       " built;  lanes: %10" PRIu64 " kept %10" PRIu64 " computed\n",
		       kind_names[kind], n[0], n[1], n[2], n[3]);
		/* the reference colours every step (and so as often as the others keep or build);
		 * the normal build kept the colouring of the catalogue scenes in both solvers (the
		 * comparison above shows that it is the one a new colouring gives) and built it
		 * whenever the arbiters changed */
		ck_assert_uint_eq(ex[0], 0);
		ck_assert_uint_eq(ex[2], 0);
		for (int i = 1; i < HELPERS; ++i) {
			const uint64_t *h = colorings[kind][i];
			ck_assert_uint_eq(h[0] + h[1], ex[1]);
			ck_assert_uint_eq(h[2] + h[3], ex[3]);
			if (kind == KIND_SCENE || kind == KIND_SOFT_SCENE) {
				/* both kept-lane paths (AVX-512 batches, scalar lanes) ran */
				ck_assert_msg(h[2] > 0, "%s, %s helper: no lane was kept",
				              kind_names[kind], hs[i]->what);
			}
		}
		if (kind == KIND_JOINT_GAP) {
			continue; /* no contacts there */
		}
		ck_assert_msg(n[1] > 0, "%s: no contact colouring was built", kind_names[kind]);
		if (kind == KIND_SCENE || kind == KIND_SOFT_SCENE) {
			ck_assert_msg(n[0] > n[1], "%s: few contact colourings were kept",
			              kind_names[kind]);
		}
	}
	/* The substep geometry in lanes: the helpers with a SIMD kernel run it (path-counting:
	 * the normal library's kernel, AVX-512 or AVX2; avx2-kernel: AVX2), the exact-only and
	 * scalar-kernel helpers never do. */
	bool simd = strcmp(normal, "scalar") != 0;
	for (int kind = 0; kind < KIND_COUNT; ++kind) {
		for (int i = 1; i < HELPERS; i += 2) {
			const uint64_t *n = substeps[kind][i];
			printf("%-21s joint substeps in lanes (%s): %8" PRIu64 " lanes %6" PRIu64
			       " bias fallbacks %6" PRIu64 " K^-1 again\n",
			       kind_names[kind], kernels[i], n[0], n[1], n[2]);
		}
		for (int i = 0; i < HELPERS; ++i) {
			for (int j = 0; j < 3; ++j) {
				ck_assert_msg(((i == 1 || i == 3) && simd) || substeps[kind][i][j] == 0,
				              "%s helper ran the substep geometry in lanes",
				              hs[i]->what);
			}
		}
	}
	/* The joint-gap worlds: every lane beyond the boundary fell back and every other lane
	 * (just inside it, ordinary) passed, in each of substeps 2..n of every step, exactly, on
	 * each SIMD kernel; the comparison above showed the fallback gives the exact path's
	 * bits. */
	for (int32_t g = 0; g < GAP_WORLDS && simd; ++g) {
		uint64_t rounds = (uint64_t)(gap_worlds[g].substeps - 1) * GAP_STEPS;
		uint64_t beyond = (uint64_t)gap_lane_count('b');
		for (int i = 1; i < HELPERS; i += 2) {
			const uint64_t *seen = gap_seen[g][i];
			printf("joint-gap world %d (%d substeps, G %" PRId64 " LSB, %s): %" PRIu64
			       " lanes, %" PRIu64 " bias fallbacks\n",
			       (int)g, (int)gap_worlds[g].substeps, gap_limit(g), kernels[i],
			       seen[0], seen[1]);
			ck_assert_msg(seen[1] == beyond * rounds &&
			                  seen[0] == (GAP_LANES - beyond) * rounds,
			              "joint-gap world %d, %s: %" PRIu64
			              " bias fallbacks (expected %" PRIu64 "), %" PRIu64
			              " lanes (expected %" PRIu64 ")",
			              (int)g, kernels[i], seen[1], beyond * rounds, seen[0],
			              (GAP_LANES - beyond) * rounds);
		}
	}
	fflush(stdout);
	for (int v = 0; v < SOLVERS; ++v) {
		/* the exact-only build never took a fast path, and solved as many arbiters and
		 * joints */
		const uint64_t *ex = total[0][v], *nt = total[1][v];
		ck_assert_uint_eq(ex[0], 0);
		ck_assert_uint_eq(ex[2], 0);
		ck_assert_uint_eq(ex[1], nt[0] + nt[1]);
		ck_assert_uint_eq(ex[3], nt[2] + nt[3]);
		for (int i = 2; i < HELPERS; ++i) {
			ck_assert_uint_eq(ex[1], total[i][v][0] + total[i][v][1]);
			ck_assert_uint_eq(ex[3], total[i][v][2] + total[i][v][3]);
		}
		if (v == SOFT_SOLVER) {
			/* the soft passes: the fast path did the bulk of the soft-step scenes'
			 * work, the stress worlds made it fall back, and lanes with a bounce
			 * pending took the exact path */
			const uint64_t *sc = counts[KIND_SOFT_SCENE][1][v];
			const uint64_t *ss = counts[KIND_SOFT_STRESS][1][v];
			ck_assert_msg(nt[0] == 0 && sc[2] > 10 * (sc[1] + sc[3]),
			              "soft pass: the fast path solved too few");
			ck_assert_msg(ss[3] > 0, "soft pass: no lane fell back to the exact path");
			ck_assert_msg(nt[1] > 0, "soft pass: no lane had a bounce pending");
			continue;
		}
		if (v >= 6) {
			/* the motor and mouse joints have only the exact path: they ran */
			ck_assert_msg(nt[0] == 0 && nt[2] == 0 && nt[3] > 0, "%s: counts",
			              solver_names[v]);
			continue;
		}
		if (v >= 2) {
			/* the other joint types: the fast path did the bulk of the catalogue
			 * scenes' work (the random worlds at the ends of the ranges fall back
			 * often: a 1,000 Hz spring, a 2^30 N motor) */
			const uint64_t *sc = counts[KIND_SCENE][1][v];
			ck_assert_msg(sc[2] >= 10 * sc[3] && sc[0] >= 10 * sc[1],
			              "%s: the fast path solved too few", solver_names[v]);
		}
		/* not vacuous: the fast path did the bulk of the work, and the stress worlds made
		 * it fall back, in the warm start and in the solve */
		const uint64_t *st = counts[KIND_STRESS][1][v];
		ck_assert_msg(v >= 2 || nt[2] > 10 * nt[3], "%s: the fast path solved too few",
		              solver_names[v]);
		ck_assert_msg(st[1] > 0, "%s: no warm start fell back to the exact path",
		              solver_names[v]);
		ck_assert_msg(st[3] > 0, "%s: no solve fell back to the exact path",
		              solver_names[v]);
	}
}
END_TEST

/* The hinted effective masses of every build and kernel equal the division's at the range
 * edges and over the range, whatever the hint (solver.c newton_inverse; the helpers'
 * "inverse"); the Newton step ran in the builds with hints (all but the exact-only one). */
START_TEST(hinted_inverse_masses)
{
	static const char *const names[HELPERS] = {"exact-only", "path-counting", "scalar-kernel",
	                                           "avx2-kernel"};
	static const char *const paths[HELPERS] = {F2D_SOLVER_PATHS_EXACT, F2D_SOLVER_PATHS_COUNTED,
	                                           F2D_SOLVER_PATHS_SCALAR, F2D_SOLVER_PATHS_AVX2};
	for (int i = 0; i < HELPERS; ++i) {
		char cmd[4096];
		snprintf(cmd, sizeof cmd, "'%s' inverse", paths[i]);
		FILE *f = popen(cmd, "r");
		ck_assert_msg(f != NULL, "cannot run %s", paths[i]);
		char line[256];
		int kernels = 0;
		while (fgets(line, sizeof line, f) != NULL) {
			int kernel = -1;
			uint64_t checked = 0, wrong = 1, newton = 0;
			ck_assert_msg(sscanf(line, "i %d %" SCNu64 " %" SCNu64 " %" SCNu64, &kernel,
			                     &checked, &wrong, &newton) == 4,
			              "%s: bad line \"%s\"", names[i], line);
			printf("hinted inverse masses, %s build, kernel %d: %" PRIu64 " lanes, %" PRIu64
			       " by the Newton step, %" PRIu64 " wrong\n",
			       names[i], kernel, checked, newton, wrong);
			ck_assert_msg(wrong == 0, "%s kernel %d: %" PRIu64 " wrong inverse masses",
			              names[i], kernel, wrong);
			ck_assert_msg(checked > 80000, "%s kernel %d: too few lanes", names[i], kernel);
			ck_assert_msg(i == 0 ? newton == 0 : newton > 10000,
			              "%s kernel %d: the Newton step ran %" PRIu64 " times", names[i],
			              kernel, newton);
			kernels++;
		}
		ck_assert_int_eq(pclose(f), 0);
		ck_assert_msg(kernels >= 1, "%s: no kernel checked", names[i]);
	}
}
END_TEST

/* The SIMD kernels' rounding shortcuts against the reference (the helpers' "roundings"): the
 * path-counting and AVX2 helpers run every SIMD kernel of this CPU (the AVX2 helper AVX2 only);
 * the exact-only and scalar builds have none */
/* Runs the helpers (path-counting, AVX2) in a check mode ("roundings", "pairs") and checks
 * each kernel's line "<tag> <kernel> <checked> <wrong>": nothing wrong, at least min_checked
 * values, every SIMD kernel of the helper's build. */
static void check_kernel_mode(const char *mode, char tag, uint64_t min_checked)
{
	static const char *const names[2] = {"path-counting", "avx2-kernel"};
	static const char *const paths[2] = {F2D_SOLVER_PATHS_COUNTED, F2D_SOLVER_PATHS_AVX2};
	const int simd = strcmp(f2d_solver_kernel(), "avx512") == 0   ? 2
	                 : strcmp(f2d_solver_kernel(), "avx2") == 0 ? 1
	                                                               : 0;
	char fmt[64];
	snprintf(fmt, sizeof fmt, "%c %%d %%%s %%%s", tag, SCNu64, SCNu64);
	for (int i = 0; i < 2; ++i) {
		char cmd[4096];
		snprintf(cmd, sizeof cmd, "'%s' %s", paths[i], mode);
		FILE *f = popen(cmd, "r");
		ck_assert_msg(f != NULL, "cannot run %s", paths[i]);
		char line[256];
		int kernels = 0;
		while (fgets(line, sizeof line, f) != NULL) {
			int kernel = -1;
			uint64_t checked = 0, wrong = 1;
			ck_assert_msg(sscanf(line, fmt, &kernel, &checked, &wrong) == 3,
			              "%s: bad line \"%s\"", names[i], line);
			printf("kernel %s, %s build, kernel %d: %" PRIu64 " values, %" PRIu64
			       " wrong\n",
			       mode, names[i], kernel, checked, wrong);
			ck_assert_msg(wrong == 0, "%s kernel %d: %" PRIu64 " wrong (%s)", names[i],
			              kernel, wrong, mode);
			ck_assert_msg(checked >= min_checked, "%s kernel %d: too few values (%s)",
			              names[i], kernel, mode);
			kernels++;
		}
		ck_assert_int_eq(pclose(f), 0);
		/* the AVX2 build stops at AVX2 */
		int want = i == 1 && simd > 1 ? 1 : simd;
		ck_assert_msg(kernels == want, "%s: %d kernels checked, expected %d (%s)", names[i],
		              kernels, want, mode);
	}
}

START_TEST(kernel_roundings)
{
	check_kernel_mode("roundings", 'r', 20001);
}
END_TEST

/* the SIMD staging against the lane-after-lane reference (stage_main) */
START_TEST(kernel_stage)
{
	check_kernel_mode("stage", 'g', 4000);
}
END_TEST

/* the pairs of lanes at the int32 extremes (pairs_main) */
START_TEST(kernel_pairs)
{
	check_kernel_mode("pairs", 'p', 9 * 5 * 9 * 8);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("solver_paths");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, hinted_inverse_masses);
	tcase_add_test(tc, kernel_roundings);
	tcase_add_test(tc, kernel_pairs);
	tcase_add_test(tc, kernel_stage);
	tcase_add_test(tc, fast_path_matches_exact_path);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
