/* fix2d tests: islands and sleeping.
 * SPDX-License-Identifier: MIT
 *
 * Public API only (stats, is_awake, snapshots); positions are compared bit for bit.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"

#include "test_common.h"

static f2d_world_stats stats(const f2d_world *w)
{
	f2d_world_stats s;
	f2d_world_get_stats(w, &s);
	return s;
}

static void step(f2d_world *w)
{
	ck_assert_msg(f2d_world_step(w) == F2D_OK, "step: %s", f2d_world_last_error(w));
}

/* Steps until no body is awake; returns the steps taken (fails past max_steps). */
static int32_t step_until_asleep(f2d_world *w, int32_t max_steps)
{
	for (int32_t i = 1; i <= max_steps; ++i) {
		step(w);
		if (stats(w).awake_body_count == 0) {
			return i;
		}
	}
	ck_abort_msg("still %d bodies awake after %d steps", stats(w).awake_body_count, max_steps);
	return -1;
}

static f2d_world *new_world(bool sleep)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = sleep;
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_OK);
	return w;
}

static f2d_body_id add_box(f2d_world *w, f2d_body_type type, fix16_t x, fix16_t y, fix16_t hx,
                           fix16_t hy)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position = v2(x, y);
	f2d_body_id b;
	ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
	f2d_polygon p;
	ck_assert_int_eq(f2d_make_box(hx, hy, &p), F2D_OK);
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	ck_assert_int_eq(f2d_create_polygon_shape(w, b, &sd, &p, &s), F2D_OK);
	return b;
}

/* ground 80 m wide, and two stacks of n unit boxes at x = -10 and x = +10 */
#define STACK 5
typedef struct two_stacks {
	f2d_world *w;
	f2d_body_id ground;
	f2d_body_id left[STACK], right[STACK];
} two_stacks;

static two_stacks make_two_stacks(bool sleep)
{
	two_stacks t;
	t.w = new_world(sleep);
	t.ground = add_box(t.w, F2D_STATIC_BODY, 0, F2D_FIX(-1), F2D_FIX(40), F2D_FIX(1));
	for (int32_t i = 0; i < STACK; ++i) {
		fix16_t y = F2D_MILLI(500) + i * F2D_MILLI(1010);
		t.left[i] =
		    add_box(t.w, F2D_DYNAMIC_BODY, F2D_FIX(-10), y, F2D_MILLI(500), F2D_MILLI(500));
		t.right[i] =
		    add_box(t.w, F2D_DYNAMIC_BODY, F2D_FIX(10), y, F2D_MILLI(500), F2D_MILLI(500));
	}
	return t;
}

static bool same_transform(const f2d_world *w, f2d_body_id b, f2d_transform xf)
{
	f2d_transform now = f2d_body_get_transform(w, b);
	return now.p.x == xf.p.x && now.p.y == xf.p.y && now.q.c == xf.q.c && now.q.s == xf.q.s;
}

/* ---- falling asleep and staying put ---- */

static void asleep_and_still(const char *scene, int32_t max_steps)
{
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create(scene, NULL, &w), F2D_OK);
	int32_t steps = step_until_asleep(w, max_steps);
	int32_t n = f2d_world_get_bodies(w, NULL, 0);
	f2d_body_id *ids = malloc(sizeof *ids * (size_t)n);
	f2d_transform *xf = malloc(sizeof *xf * (size_t)n);
	ck_assert_ptr_nonnull(ids);
	ck_assert_ptr_nonnull(xf);
	f2d_world_get_bodies(w, ids, n);
	for (int32_t i = 0; i < n; ++i) {
		xf[i] = f2d_body_get_transform(w, ids[i]);
	}
	uint64_t arbiters = (uint64_t)stats(w).arbiter_count;
	for (int32_t k = 0; k < 600; ++k) {
		step(w);
		ck_assert_int_eq(stats(w).awake_body_count, 0);
	}
	for (int32_t i = 0; i < n; ++i) {
		ck_assert_msg(same_transform(w, ids[i], xf[i]), "%s: body %d moved in its sleep",
		              scene, (int)i);
		ck_assert(!f2d_body_is_awake(w, ids[i]));
	}
	ck_assert_uint_eq((uint64_t)stats(w).arbiter_count, arbiters);
	ck_assert_int_gt(steps, 30); /* at least time_to_sleep */
	free(ids);
	free(xf);
	f2d_destroy_world(w);
}

START_TEST(pyramid20_falls_asleep_and_stays_put)
{
	asleep_and_still("pyramid20", 600);
}
END_TEST

START_TEST(rain1000_falls_asleep_and_stays_put)
{
	asleep_and_still("rain1000", 1200);
}
END_TEST

/* ---- waking: the right island only ---- */

START_TEST(dropped_box_wakes_its_island_only)
{
	two_stacks t = make_two_stacks(true);
	step_until_asleep(t.w, 600);
	f2d_transform right[STACK];
	for (int32_t i = 0; i < STACK; ++i) {
		right[i] = f2d_body_get_transform(t.w, t.right[i]);
	}
	/* a box dropped 2 m above the left stack */
	f2d_body_id drop = add_box(t.w, F2D_DYNAMIC_BODY, F2D_FIX(-10), F2D_FIX(7), F2D_MILLI(500),
	                           F2D_MILLI(500));
	ck_assert(f2d_body_is_awake(t.w, drop));
	bool left_woke = false;
	for (int32_t k = 0; k < 120; ++k) {
		step(t.w);
		left_woke |= f2d_body_is_awake(t.w, t.left[0]);
		for (int32_t i = 0; i < STACK; ++i) {
			ck_assert_msg(!f2d_body_is_awake(t.w, t.right[i]),
			              "step %d: right stack box %d woke", (int)k, (int)i);
			ck_assert(same_transform(t.w, t.right[i], right[i]));
		}
	}
	ck_assert_msg(left_woke, "the left stack never woke under the dropped box");
	/* and it all settles again, the dropped box on top */
	step_until_asleep(t.w, 900);
	ck_assert_int_gt(f2d_body_get_position(t.w, drop).y, F2D_MILLI(5000));
	f2d_destroy_world(t.w);
}
END_TEST

START_TEST(api_calls_wake_bodies)
{
	two_stacks t = make_two_stacks(true);
	step_until_asleep(t.w, 600);
	/* an impulse wakes the body now and its island at the next step */
	ck_assert_int_eq(
	    f2d_body_apply_linear_impulse(t.w, t.left[STACK - 1], v2(F2D_FIX(1), 0),
	                                  f2d_body_get_world_center(t.w, t.left[STACK - 1])),
	    F2D_OK);
	ck_assert(f2d_body_is_awake(t.w, t.left[STACK - 1]));
	ck_assert(!f2d_body_is_awake(t.w, t.left[0]));
	step(t.w);
	ck_assert(f2d_body_is_awake(t.w, t.left[0]));
	ck_assert(!f2d_body_is_awake(t.w, t.right[0]));
	step_until_asleep(t.w, 900);

	/* destroying the bottom box of a sleeping stack: the rest falls */
	fix16_t y1 = f2d_body_get_position(t.w, t.right[1]).y;
	ck_assert_int_eq(f2d_destroy_body(t.w, t.right[0]), F2D_OK);
	ck_assert(f2d_body_is_awake(t.w, t.right[1]));
	for (int32_t k = 0; k < 60; ++k) {
		step(t.w);
	}
	ck_assert_int_lt(f2d_body_get_position(t.w, t.right[1]).y, y1 - F2D_MILLI(500));
	step_until_asleep(t.w, 900);

	/* new gravity wakes everything */
	ck_assert_int_eq(f2d_world_set_gravity(t.w, v2(F2D_FIX(1), F2D_FIX(-10))), F2D_OK);
	ck_assert(f2d_body_is_awake(t.w, t.left[0]) && f2d_body_is_awake(t.w, t.right[1]));
	/* a velocity set by the user wakes */
	step_until_asleep(t.w, 1800);
	ck_assert_int_eq(f2d_body_set_linear_velocity(t.w, t.left[2], v2(0, F2D_FIX(1))), F2D_OK);
	ck_assert(f2d_body_is_awake(t.w, t.left[2]));
	/* put to sleep by hand, woken by hand */
	step_until_asleep(t.w, 900);
	ck_assert_int_eq(f2d_body_set_awake(t.w, t.left[2], true), F2D_OK);
	ck_assert(f2d_body_is_awake(t.w, t.left[2]));
	ck_assert_int_eq(f2d_body_set_awake(t.w, t.left[2], false), F2D_OK);
	ck_assert(!f2d_body_is_awake(t.w, t.left[2]));
	ck_assert_int_eq(f2d_body_set_awake(t.w, t.ground, false), F2D_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(f2d_world_last_error(t.w), "static"));
	f2d_body_id stale = t.right[0];
	ck_assert_int_eq(f2d_body_set_awake(t.w, stale, true), F2D_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(f2d_body_enable_sleep(t.w, stale, true), F2D_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(f2d_body_set_awake(NULL, stale, true), F2D_ERROR_NULL_ARGUMENT);
	f2d_destroy_world(t.w);
}
END_TEST

START_TEST(moving_kinematic_body_wakes_what_it_touches)
{
	f2d_world *w = new_world(true);
	f2d_body_id platform =
	    add_box(w, F2D_KINEMATIC_BODY, 0, F2D_FIX(-1), F2D_FIX(5), F2D_MILLI(500));
	add_box(w, F2D_STATIC_BODY, 0, F2D_FIX(-10), F2D_FIX(40), F2D_FIX(1));
	f2d_body_id box =
	    add_box(w, F2D_DYNAMIC_BODY, 0, F2D_MILLI(0), F2D_MILLI(500), F2D_MILLI(500));
	/* a resting platform lets the box sleep (and is not simulated either) */
	for (int32_t k = 0; k < 600 && f2d_body_is_awake(w, box); ++k) {
		step(w);
	}
	ck_assert(!f2d_body_is_awake(w, box));
	step(w);
	ck_assert_int_eq(stats(w).awake_body_count, 0); /* simulated in the last step */
	ck_assert_int_eq(f2d_body_set_linear_velocity(w, platform, v2(0, F2D_FIX(1))), F2D_OK);
	step(w);
	ck_assert(f2d_body_is_awake(w, box));
	fix16_t y = f2d_body_get_position(w, box).y;
	for (int32_t k = 0; k < 30; ++k) {
		step(w);
	}
	ck_assert_int_gt(f2d_body_get_position(w, box).y, y + F2D_MILLI(400)); /* carried up */
	f2d_destroy_world(w);
}
END_TEST

/* ---- turning it off ---- */

START_TEST(sleep_off_per_world_and_per_body)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = false;
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create("pyramid20", &def, &w), F2D_OK);
	for (int32_t k = 0; k < 600; ++k) {
		step(w);
	}
	ck_assert_int_eq(stats(w).awake_body_count, 210);
	ck_assert(!f2d_world_is_sleep_enabled(w));
	f2d_destroy_world(w);

	/* one box that may not sleep keeps its stack awake; the other stack sleeps */
	two_stacks t = make_two_stacks(true);
	ck_assert_int_eq(f2d_body_enable_sleep(t.w, t.left[2], false), F2D_OK);
	ck_assert(!f2d_body_is_sleep_enabled(t.w, t.left[2]));
	ck_assert_int_eq(f2d_body_set_awake(t.w, t.left[2], false), F2D_ERROR_INVALID_VALUE);
	for (int32_t k = 0; k < 600; ++k) {
		step(t.w);
	}
	for (int32_t i = 0; i < STACK; ++i) {
		ck_assert(f2d_body_is_awake(t.w, t.left[i]));
		ck_assert(!f2d_body_is_awake(t.w, t.right[i]));
	}
	/* turning sleep off for the world wakes everything and keeps it awake */
	ck_assert_int_eq(f2d_world_enable_sleep(t.w, false), F2D_OK);
	ck_assert(f2d_body_is_awake(t.w, t.right[0]));
	for (int32_t k = 0; k < 120; ++k) {
		step(t.w);
	}
	ck_assert_int_eq(stats(t.w).awake_body_count, 2 * STACK);
	ck_assert_int_eq(f2d_body_set_awake(t.w, t.right[0], false), F2D_ERROR_INVALID_VALUE);
	f2d_destroy_world(t.w);

	/* a bad sleep setting is refused */
	def = f2d_default_world_def();
	def.time_to_sleep = 0;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(f2d_world_def_problem(&def), "time_to_sleep"));
	def = f2d_default_world_def();
	def.linear_sleep_tolerance = -1;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(body_created_asleep)
{
	f2d_world *w = new_world(true);
	add_box(w, F2D_STATIC_BODY, 0, F2D_FIX(-1), F2D_FIX(40), F2D_FIX(1));
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.awake = false;
	bd.position = v2(0, F2D_FIX(5));
	f2d_body_id b;
	ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
	ck_assert(!f2d_body_is_awake(w, b));
	for (int32_t k = 0; k < 60; ++k) {
		step(w);
	}
	ck_assert_int_eq(f2d_body_get_position(w, b).y, F2D_FIX(5)); /* hangs until woken */
	ck_assert_int_eq(f2d_body_set_awake(w, b, true), F2D_OK);
	step(w);
	ck_assert_int_lt(f2d_body_get_position(w, b).y, F2D_FIX(5));
	f2d_destroy_world(w);
}
END_TEST

/* ---- state: hash and snapshots ---- */

START_TEST(sleep_state_is_in_the_hash)
{
	two_stacks a = make_two_stacks(true), b = make_two_stacks(true);
	ck_assert_uint_eq(f2d_world_hash(a.w), f2d_world_hash(b.w));
	ck_assert_int_eq(f2d_body_set_awake(b.w, b.left[0], false), F2D_OK);
	ck_assert_uint_ne(f2d_world_hash(a.w), f2d_world_hash(b.w));
	ck_assert_int_eq(f2d_body_set_awake(b.w, b.left[0], true), F2D_OK);
	ck_assert_uint_eq(f2d_world_hash(a.w), f2d_world_hash(b.w));
	ck_assert_int_eq(f2d_body_enable_sleep(b.w, b.left[0], false), F2D_OK);
	ck_assert_uint_ne(f2d_world_hash(a.w), f2d_world_hash(b.w));
	step(a.w); /* sleep timers run: equal worlds stay equal, the timer is in the hash */
	f2d_world *c = NULL;
	ck_assert_int_eq(f2d_world_clone(a.w, &c), F2D_OK);
	step(a.w);
	ck_assert_uint_ne(f2d_world_hash(a.w), f2d_world_hash(c));
	f2d_destroy_world(a.w);
	f2d_destroy_world(b.w);
	f2d_destroy_world(c);
}
END_TEST

/* Saves the sleeping world (both forms), drops a box on the left stack in the original and in
 * the restored copies: every step's hash agrees. The restored copies have no manifolds for
 * their frozen arbiters (not state): waking must recompute them. */
START_TEST(snapshots_keep_sleep_and_wake_identically)
{
	two_stacks t = make_two_stacks(true);
	step_until_asleep(t.w, 600);
	for (int32_t k = 0; k < 10; ++k) {
		step(t.w);
	}
	size_t n = f2d_snapshot_size(t.w), np = f2d_snapshot_portable_size(t.w);
	void *mem = malloc(n), *port = malloc(np);
	ck_assert_ptr_nonnull(mem);
	ck_assert_ptr_nonnull(port);
	size_t written;
	ck_assert_int_eq(f2d_snapshot_save(t.w, mem, n, &written), F2D_OK);
	ck_assert_int_eq(f2d_snapshot_save_portable(t.w, port, np, &written), F2D_OK);
	/* the copies: a world restored in place after running on, and a fresh world loaded */
	two_stacks r = make_two_stacks(true);
	ck_assert_int_eq(f2d_snapshot_load(r.w, port, np), F2D_OK);
	f2d_world *m = NULL;
	ck_assert_int_eq(f2d_world_clone(t.w, &m), F2D_OK);
	for (int32_t k = 0; k < 50; ++k) {
		step(m);
	}
	ck_assert_int_eq(f2d_snapshot_restore(m, mem, n), F2D_OK);
	ck_assert_uint_eq(f2d_world_hash(m), f2d_world_hash(t.w));
	ck_assert_uint_eq(f2d_world_hash(r.w), f2d_world_hash(t.w));

	f2d_world *worlds[3] = {t.w, r.w, m};
	for (int32_t i = 0; i < 3; ++i) {
		add_box(worlds[i], F2D_DYNAMIC_BODY, F2D_FIX(-10), F2D_FIX(7), F2D_MILLI(500),
		        F2D_MILLI(500));
	}
	for (int32_t k = 0; k < 300; ++k) {
		for (int32_t i = 0; i < 3; ++i) {
			step(worlds[i]);
		}
		ck_assert_msg(f2d_world_hash(r.w) == f2d_world_hash(t.w),
		              "portable copy differs at step %d", (int)k);
		ck_assert_msg(f2d_world_hash(m) == f2d_world_hash(t.w),
		              "restored copy differs at step %d", (int)k);
	}
	free(mem);
	free(port);
	f2d_destroy_world(t.w);
	f2d_destroy_world(r.w);
	f2d_destroy_world(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sleep");
	TCase *tc = tcase_create("sleep");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, pyramid20_falls_asleep_and_stays_put);
	tcase_add_test(tc, rain1000_falls_asleep_and_stays_put);
	tcase_add_test(tc, dropped_box_wakes_its_island_only);
	tcase_add_test(tc, api_calls_wake_bodies);
	tcase_add_test(tc, moving_kinematic_body_wakes_what_it_touches);
	tcase_add_test(tc, sleep_off_per_world_and_per_body);
	tcase_add_test(tc, body_created_asleep);
	tcase_add_test(tc, sleep_state_is_in_the_hash);
	tcase_add_test(tc, snapshots_keep_sleep_and_wake_identically);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
