/* fix2d tests: revolute joints over their whole documented range (issue 11).
 *
 * Every case builds joints at the extremes of what the API and the loaders accept (arms up to
 * 64 m from a moving body, masses 2^-8 .. 16384 kg, inertias down to 2^-14, 1,000 joints on one
 * body, motors and limits) and checks, after every step:
 *  - what a user can see: the bodies stay inside the world limit, and a light bob on a long arm
 *    stays on its circle (its effective mass is its own, not a saturated one);
 *  - that the world accepts its own state: save -> restore and save_portable -> load both
 *    succeed and give back the same hash (rollback, keyframes and late join depend on it).
 * Under the sanitizer build (tests/run_all.sh) any signed overflow aborts the test.
 * The cases that step run under both solvers (loop index 0: the Gauss-Seidel solver,
 * substep_count 0; 1: the default, the soft step with the default's substep_count, and 1..8
 * substeps over the random graphs' seeds), so the soft step's joint pre-step (the per-step
 * part in the first substep, the per-substep part in the others) and its position passes see
 * the same range edges.
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix2d/fix2d.h"
#include "fix2d/snapshot.h"

#include "test_common.h"

static f2d_vec2 f2d_v(fix16_t x, fix16_t y)
{
	f2d_vec2 v = {x, y};
	return v;
}

#define F2D_PI 205887 /* pi in Q16.16 */

static uint32_t rng_next(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* uniform in [lo, hi] */
static int32_t rng_range(uint32_t *s, int32_t lo, int32_t hi)
{
	return lo + (int32_t)(rng_next(s) % (uint32_t)((int64_t)hi - lo + 1));
}

/* f2d_world_def.substep_count of the worlds new_world makes (set by each loop test) */
static int32_t substeps;

/* loop index 0: the Gauss-Seidel solver; 1: the default (the soft step) */
static int32_t solver_substeps(int i)
{
	return i == 0 ? 0 : f2d_default_world_def().substep_count;
}

static f2d_world *new_world(bool sleep)
{
	f2d_world_def wd = f2d_default_world_def();
	wd.enable_sleep = sleep;
	wd.substep_count = substeps;
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&wd, &w));
	return w;
}

static void add_circle(f2d_world *w, f2d_body_id b, fix16_t radius, fix16_t density)
{
	f2d_shape_def sd = f2d_default_shape_def();
	sd.density = density;
	f2d_circle c = {{0, 0}, radius};
	f2d_shape_id s;
	CHECK_OK(f2d_create_circle_shape(w, b, &sd, &c, &s));
}

static void add_box(f2d_world *w, f2d_body_id b, fix16_t hx, fix16_t hy, fix16_t density)
{
	f2d_shape_def sd = f2d_default_shape_def();
	sd.density = density;
	f2d_polygon p;
	CHECK_OK(f2d_make_box(hx, hy, &p));
	f2d_shape_id s;
	CHECK_OK(f2d_create_polygon_shape(w, b, &sd, &p, &s));
}

static f2d_joint_id pin(f2d_world *w, f2d_body_id a, f2d_body_id b, f2d_vec2 anchor)
{
	f2d_revolute_joint_def jd;
	CHECK_OK(f2d_init_revolute_joint_def(w, a, b, anchor, &jd));
	f2d_joint_id j;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &j));
	return j;
}

/* The state a step leaves is one the world accepts back, both ways, with the same hash. */
static void check_round_trips(f2d_world *w, int32_t step)
{
	uint64_t h = f2d_world_hash(w);
	size_t n = f2d_snapshot_size(w), got = 0;
	void *buf = malloc(n);
	ck_assert_ptr_nonnull(buf);
	CHECK_OK(f2d_snapshot_save(w, buf, n, &got));
	f2d_result r = f2d_snapshot_restore(w, buf, got);
	ck_assert_msg(r == F2D_OK, "step %d: restore refused the world's own snapshot: %s", step,
	              f2d_world_last_error(w));
	ck_assert_uint_eq(f2d_world_hash(w), h);
	free(buf);

	n = f2d_snapshot_portable_size(w);
	buf = malloc(n);
	ck_assert_ptr_nonnull(buf);
	CHECK_OK(f2d_snapshot_save_portable(w, buf, n, &got));
	char message[256];
	r = f2d_snapshot_check(buf, got, NULL, message, sizeof message);
	ck_assert_msg(r == F2D_OK, "step %d: check refused the world's own bytes: %s", step,
	              message);
	r = f2d_snapshot_load(w, buf, got);
	ck_assert_msg(r == F2D_OK, "step %d: load refused the world's own bytes: %s", step,
	              f2d_world_last_error(w));
	ck_assert_uint_eq(f2d_world_hash(w), h);
	free(buf);
}

/* Every alive body's position is within the world limit. */
static void check_in_world(f2d_world *w, const f2d_body_id *bodies, int32_t n, int32_t step)
{
	for (int32_t i = 0; i < n; ++i) {
		f2d_vec2 p = f2d_body_get_position(w, bodies[i]);
		ck_assert_msg(p.x >= -F2D_WORLD_LIMIT && p.x <= F2D_WORLD_LIMIT &&
		                  p.y >= -F2D_WORLD_LIMIT && p.y <= F2D_WORLD_LIMIT,
		              "step %d: body %d at (%d, %d) raw, beyond the world limit", step, i,
		              p.x, p.y);
	}
}

static int64_t dist2(f2d_vec2 a, f2d_vec2 b)
{
	int64_t dx = (int64_t)a.x - b.x, dy = (int64_t)a.y - b.y;
	return dx * dx + dy * dy;
}

/* A light bob on a long arm swings on its circle: the step never saturates, the bob's distance
 * from the pivot stays within 2 cm of the arm, and it never rises above the pivot's height
 * (it starts level with it, at rest: energy cannot carry it higher). The cases: a
 * 0.2 m circle at 7 m (and at the 64 m limit of a dynamic anchor), a 0.5 m circle at 41 m, a
 * 0.6 m box at 60 m. */
static void swing(fix16_t radius, bool box, fix16_t arm, int32_t steps)
{
	f2d_world *w = new_world(false);
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, f2d_v(0, 0));
	f2d_body_id bob = add_body(w, F2D_DYNAMIC_BODY, f2d_v(arm, 0));
	if (box) {
		add_box(w, bob, radius, radius, F2D_FIX(1));
	} else {
		add_circle(w, bob, radius, F2D_FIX(1));
	}
	pin(w, ground, bob, f2d_v(0, 0));
	int64_t arm2 = (int64_t)arm * arm;
	for (int32_t i = 0; i < steps; ++i) {
		f2d_result r = f2d_world_step(w);
		ck_assert_msg(r == F2D_OK, "substeps %d, arm %d: step %d returned %s (%s)",
		              (int)substeps, arm, i, f2d_error_string(r), f2d_world_last_error(w));
		f2d_vec2 p = f2d_body_get_position(w, bob);
		/* |d - arm| <= 2 cm  <=>  (arm - 2cm)^2 <= d^2 <= (arm + 2cm)^2 */
		int64_t lo = (int64_t)arm - F2D_MILLI(20), hi = (int64_t)arm + F2D_MILLI(20);
		int64_t d2 = dist2(p, f2d_v(0, 0));
		ck_assert_msg(d2 >= lo * lo && d2 <= hi * hi,
		              "substeps %d, arm %d: step %d: bob at (%d, %d), off its circle",
		              (int)substeps, arm, i, p.x, p.y);
		ck_assert_msg(p.y <= F2D_MILLI(20),
		              "substeps %d, arm %d: step %d: bob rose to y = %d", (int)substeps,
		              arm, i, p.y);
		if (i % 50 == 0) {
			check_round_trips(w, i);
		}
	}
	(void)arm2;
	f2d_destroy_world(w);
}

START_TEST(long_arm_light_bob)
{
	substeps = solver_substeps(_i);
	swing(F2D_MILLI(200), false, F2D_FIX(7), 240);
	swing(F2D_MILLI(500), false, F2D_FIX(41), 240);
	swing(F2D_MILLI(600), true, F2D_FIX(60), 240);
	swing(F2D_FIX(3), true, F2D_FIX(64), 240);
}
END_TEST

/* Beyond fix16's resolution (a 0.2 m circle of density 1 on a 64 m arm: an effective mass of
 * 6e-7 kg at the anchor, 1 / (1/m + r^2/I) with r^2/I = 1.6e6), creation refuses with a
 * message, and the world is unchanged; at 9 m (r^2/I = 32400) it is accepted. */
START_TEST(unresolvable_joint_refused)
{
	f2d_world *w = new_world(false);
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, f2d_v(0, 0));
	f2d_body_id far = add_body(w, F2D_DYNAMIC_BODY, f2d_v(F2D_FIX(64), 0));
	add_circle(w, far, F2D_MILLI(200), F2D_FIX(1));
	f2d_body_id near = add_body(w, F2D_DYNAMIC_BODY, f2d_v(F2D_FIX(9), 0));
	add_circle(w, near, F2D_MILLI(200), F2D_FIX(1));
	uint64_t h = f2d_world_hash(w);
	f2d_revolute_joint_def jd;
	CHECK_OK(f2d_init_revolute_joint_def(w, ground, far, f2d_v(0, 0), &jd));
	f2d_joint_id j;
	ck_assert_int_eq(f2d_create_revolute_joint(w, &jd, &j), F2D_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(f2d_world_last_error(w), "effective mass"));
	ck_assert_uint_eq(f2d_world_hash(w), h);
	CHECK_OK(f2d_init_revolute_joint_def(w, ground, near, f2d_v(0, 0), &jd));
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &j));
	f2d_destroy_world(w);
}
END_TEST

/* 1,000 revolute joints from one dynamic hub to 1,000 boxes (every third with a 1,000 N m motor,
 * every fifth with +-0.25 rad limits): the bodies stay in the world and every state round-trips. */
START_TEST(many_joints_on_one_body)
{
	substeps = solver_substeps(_i);
	f2d_world *w = new_world(false);
	enum { N = 1000 };
	static f2d_body_id bodies[N + 1];
	bodies[N] = add_body(w, F2D_DYNAMIC_BODY, f2d_v(0, F2D_FIX(10)));
	add_box(w, bodies[N], F2D_FIX(1), F2D_FIX(1), F2D_FIX(1));
	for (int32_t i = 0; i < N; ++i) {
		f2d_vec2 p = f2d_v(F2D_FIX(-20) + (i % 40) * F2D_FIX(1),
		                   F2D_FIX(-10) + (i / 40) * F2D_FIX(1));
		bodies[i] = add_body(w, F2D_DYNAMIC_BODY, p);
		add_box(w, bodies[i], F2D_MILLI(300), F2D_MILLI(300), F2D_FIX(1));
		f2d_revolute_joint_def jd;
		CHECK_OK(f2d_init_revolute_joint_def(w, bodies[N], bodies[i], p, &jd));
		if (!(jd.local_anchor_a.x >= -F2D_FIX(64) && jd.local_anchor_a.x <= F2D_FIX(64) &&
		      jd.local_anchor_a.y >= -F2D_FIX(64) && jd.local_anchor_a.y <= F2D_FIX(64))) {
			continue;
		}
		jd.enable_motor = i % 3 == 0;
		jd.motor_speed = F2D_FIX(1);
		jd.max_motor_torque = F2D_FIX(1000);
		jd.enable_limit = i % 5 == 0;
		jd.lower_angle = -F2D_MILLI(250);
		jd.upper_angle = F2D_MILLI(250);
		f2d_joint_id j;
		CHECK_OK(f2d_create_revolute_joint(w, &jd, &j));
	}
	for (int32_t i = 0; i < 60; ++i) {
		f2d_world_step(w);
		check_in_world(w, bodies, N + 1, i);
		if (i % 10 == 9) {
			check_round_trips(w, i);
		}
	}
	f2d_destroy_world(w);
}
END_TEST

/* Many joints between the same two bodies at different anchors. */
START_TEST(many_joints_same_pair)
{
	substeps = solver_substeps(_i);
	f2d_world *w = new_world(false);
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, f2d_v(0, 0));
	f2d_body_id a = add_body(w, F2D_DYNAMIC_BODY, f2d_v(0, F2D_FIX(5)));
	f2d_body_id b = add_body(w, F2D_DYNAMIC_BODY, f2d_v(F2D_FIX(3), F2D_FIX(5)));
	add_box(w, a, F2D_FIX(3), F2D_FIX(1), F2D_FIX(100));
	add_box(w, b, F2D_FIX(1), F2D_FIX(1), F2D_FIX(100));
	pin(w, ground, a, f2d_v(0, F2D_FIX(5)));
	for (int32_t i = 0; i < 200; ++i) {
		pin(w, a, b,
		    f2d_v(F2D_FIX(-60) + i * F2D_MILLI(600), F2D_FIX(5) + (i % 7) * F2D_FIX(8)));
	}
	f2d_body_id all[3] = {ground, a, b};
	for (int32_t i = 0; i < 120; ++i) {
		f2d_world_step(w);
		check_in_world(w, all, 3, i);
		if (i % 10 == 0) {
			check_round_trips(w, i);
		}
	}
	f2d_destroy_world(w);
}
END_TEST

/* Random joint graphs at the extremes: body masses from 2^-8 to 16384 kg (density and size),
 * inertias near 2^-14, arms up to the 64 m a moving body's anchor may be from it (and static
 * anchors anywhere in the world), several joints per body, motors up to 32767 N m, limits, sleep on
 * and off. After every step: bodies in the world, every 8 steps the round trips. */
static void random_graph(uint32_t seed, bool sleep)
{
	uint32_t s = seed * 2654435761u + 1;
	f2d_world *w = new_world(sleep);
	enum { MAX_BODIES = 24 };
	f2d_body_id bodies[MAX_BODIES];
	int32_t nb = rng_range(&s, 2, MAX_BODIES);
	bodies[0] = add_body(w, F2D_STATIC_BODY,
	                     f2d_v(rng_range(&s, -F2D_FIX(8192), F2D_FIX(8192)),
	                           rng_range(&s, -F2D_FIX(8192), F2D_FIX(8192))));
	add_box(w, bodies[0], F2D_FIX(4), F2D_FIX(1), F2D_FIX(1));
	f2d_vec2 base = f2d_body_get_position(w, bodies[0]);
	for (int32_t i = 1; i < nb; ++i) {
		f2d_body_type type =
		    rng_range(&s, 0, 7) == 0 ? F2D_KINEMATIC_BODY : F2D_DYNAMIC_BODY;
		int64_t px = (int64_t)base.x + rng_range(&s, -F2D_FIX(60), F2D_FIX(60));
		int64_t py = (int64_t)base.y + rng_range(&s, -F2D_FIX(60), F2D_FIX(60));
		px = px < -F2D_WORLD_LIMIT ? -F2D_WORLD_LIMIT
		                           : (px > F2D_WORLD_LIMIT ? F2D_WORLD_LIMIT : px);
		py = py < -F2D_WORLD_LIMIT ? -F2D_WORLD_LIMIT
		                           : (py > F2D_WORLD_LIMIT ? F2D_WORLD_LIMIT : py);
		bodies[i] = add_body(w, type, f2d_v((fix16_t)px, (fix16_t)py));
		int32_t kind = rng_range(&s, 0, 3);
		/* light with a tiny inertia (0.03-0.04 kg, ~2e-4 kg m^2), small and dense (5 t in
		 * 0.4 m: a large mass ratio to its neighbours), or anything up to the mass limit
		 * (refused beyond it: then the last kind at density 1) */
		fix16_t size = kind == 0 ? F2D_MILLI(100)
		                         : (kind == 1 ? F2D_MILLI(200)
		                                      : rng_range(&s, F2D_MILLI(100), F2D_FIX(3)));
		fix16_t density = kind == 0 ? F2D_FIX(1)
		                            : (kind == 1 ? F2D_FIX(32767)
		                                         : rng_range(&s, F2D_FIX(1), F2D_FIX(500)));
		f2d_shape_def sd = f2d_default_shape_def();
		sd.density = density;
		f2d_shape_id shape;
		f2d_result r;
		if (rng_next(&s) & 1) {
			f2d_circle c = {{0, 0}, size};
			r = f2d_create_circle_shape(w, bodies[i], &sd, &c, &shape);
		} else {
			f2d_polygon p;
			CHECK_OK(f2d_make_box(size, size, &p));
			r = f2d_create_polygon_shape(w, bodies[i], &sd, &p, &shape);
		}
		if (r != F2D_OK) {
			ck_assert_int_ge(kind, 2);
			add_box(w, bodies[i], size, size, F2D_FIX(1));
		}
		if (type == F2D_KINEMATIC_BODY) {
			f2d_body_set_linear_velocity(
			    w, bodies[i], f2d_v(rng_range(&s, -F2D_FIX(20), F2D_FIX(20)), 0));
		}
	}
	int32_t nj = rng_range(&s, 1, 40);
	for (int32_t k = 0; k < nj; ++k) {
		int32_t ia = rng_range(&s, 0, nb - 1), ib = rng_range(&s, 0, nb - 1);
		if (ia == ib) {
			continue;
		}
		f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
		jd.body_a = bodies[ia];
		jd.body_b = bodies[ib];
		fix16_t la = ia == 0 ? F2D_FIX(8000) : F2D_FIX(64);
		jd.local_anchor_a = f2d_v(rng_range(&s, -la, la), rng_range(&s, -la, la));
		jd.local_anchor_b = f2d_v(rng_range(&s, -F2D_FIX(64), F2D_FIX(64)),
		                          rng_range(&s, -F2D_FIX(64), F2D_FIX(64)));
		jd.enable_motor = (rng_next(&s) & 3) == 0;
		jd.motor_speed = rng_range(&s, -F2D_FIX(100), F2D_FIX(100));
		jd.max_motor_torque = rng_range(&s, 0, F2D_FIX(32767));
		jd.enable_limit = (rng_next(&s) & 3) == 0;
		jd.lower_angle = rng_range(&s, -F2D_PI, 0);
		jd.upper_angle = rng_range(&s, 0, F2D_PI);
		jd.collide_connected = (rng_next(&s) & 1) != 0;
		f2d_joint_id j;
		f2d_result r = f2d_create_revolute_joint(w, &jd, &j);
		ck_assert_msg(r == F2D_OK || r == F2D_ERROR_INVALID_VALUE, "seed %u: create: %s",
		              seed, f2d_error_string(r));
	}
	for (int32_t i = 0; i < 48; ++i) {
		f2d_world_step(w);
		check_in_world(w, bodies, nb, i);
		if (i % 8 == 7) {
			check_round_trips(w, i);
		}
	}
	f2d_destroy_world(w);
}

START_TEST(random_joint_graphs)
{
	for (uint32_t seed = 1; seed <= 60; ++seed) {
		/* the soft step: 1..8 substeps, one count after the other */
		substeps = _i == 0 ? 0 : (int32_t)(seed % 8) + 1;
		random_graph(seed, (seed & 1) != 0);
	}
}
END_TEST

Suite *joint_range_suite(void)
{
	Suite *s = suite_create("joint_range");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, long_arm_light_bob, 0, 2);
	tcase_add_test(tc, unresolvable_joint_refused);
	tcase_add_loop_test(tc, many_joints_on_one_body, 0, 2);
	tcase_add_loop_test(tc, many_joints_same_pair, 0, 2);
	tcase_add_loop_test(tc, random_joint_graphs, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(joint_range_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
