/* fix2d tests: the public API with bad handles and at run time (forces, range events,
 * allocator failure, error strings). The rule is the one of tests/test_api.c: a refused call
 * returns its code and a message and leaves the world's hash unchanged.
 * SPDX-License-Identifier: MIT
 */
#include "api_common.h"

static void expect_bad_body_handle(f2d_world *w, f2d_body_id id, const char *label)
{
	char what[128];
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon box;
	CHECK_OK(f2d_make_box(F2D_MILLI(250), F2D_MILLI(250), &box));
	f2d_circle circle = {{0, 0}, F2D_MILLI(250)};
	f2d_shape_id sid = sentinel_shape;

	ck_assert_msg(!f2d_body_is_valid(w, id), "%s: f2d_body_is_valid is true", label);
	snprintf(what, sizeof what, "%s: destroy_body", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what, f2d_destroy_body(w, id));
	snprintf(what, sizeof what, "%s: set_linear_velocity", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_body_set_linear_velocity(w, id, vec(F2D_ONE, 0)));
	snprintf(what, sizeof what, "%s: set_angular_velocity", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_body_set_angular_velocity(w, id, F2D_ONE));
	snprintf(what, sizeof what, "%s: set_transform", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_body_set_transform(w, id, vec(0, 0), f2d_make_rot(0)));
	snprintf(what, sizeof what, "%s: set_user_data", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what, f2d_body_set_user_data(w, id, 42));
	snprintf(what, sizeof what, "%s: apply_force", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_body_apply_force(w, id, vec(F2D_ONE, 0), vec(0, 0)));
	snprintf(what, sizeof what, "%s: apply_force_to_center", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_body_apply_force_to_center(w, id, vec(F2D_ONE, 0)));
	snprintf(what, sizeof what, "%s: apply_torque", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what, f2d_body_apply_torque(w, id, F2D_ONE));
	snprintf(what, sizeof what, "%s: apply_linear_impulse", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_body_apply_linear_impulse(w, id, vec(F2D_ONE, 0), vec(0, 0)));
	snprintf(what, sizeof what, "%s: apply_angular_impulse", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_body_apply_angular_impulse(w, id, F2D_ONE));
	snprintf(what, sizeof what, "%s: create_polygon_shape", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_create_polygon_shape(w, id, &sd, &box, &sid));
	snprintf(what, sizeof what, "%s: create_circle_shape", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what,
	               f2d_create_circle_shape(w, id, &sd, &circle, &sid));
	ck_assert_msg(shape_id_eq(sid, sentinel_shape), "%s: shape out written on failure", label);

	/* as either body of a joint */
	f2d_body_id live[2];
	ck_assert_int_ge(f2d_world_get_bodies(w, live, 2), 2);
	f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
	f2d_joint_id jid = sentinel_joint;
	jd.body_a = id;
	jd.body_b = live[1];
	snprintf(what, sizeof what, "%s: create_revolute_joint (body_a)", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what, f2d_create_revolute_joint(w, &jd, &jid));
	jd.body_a = live[1];
	jd.body_b = id;
	snprintf(what, sizeof what, "%s: create_revolute_joint (body_b)", label);
	EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_HANDLE, what, f2d_create_revolute_joint(w, &jd, &jid));
	ck_assert_msg(joint_id_eq(jid, sentinel_joint), "%s: joint out written on failure", label);
	EXPECT_CONST_FAIL(w, F2D_ERROR_INVALID_HANDLE,
	                  f2d_init_revolute_joint_def(w, id, live[1], vec(0, 0), &jd));

	/* getters give the documented fallbacks */
	ck_assert_int_eq(f2d_body_get_mass(w, id), 0);
	ck_assert_int_eq(f2d_body_get_position(w, id).x, 0);
	ck_assert_int_eq(f2d_body_get_linear_velocity(w, id).x, 0);
}

START_TEST(test_bad_body_handles)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	const f2d_body_id null_id = {0, 0};
	expect_bad_body_handle(w, null_id, "null handle {0,0}");
	const f2d_body_id null_gen1 = {0, 1};
	expect_bad_body_handle(w, null_gen1, "handle {0,1}");
	const f2d_body_id beyond = {w->body_ids.next + 1, 1};
	expect_bad_body_handle(w, beyond, "index beyond the bodies");
	const f2d_body_id capacity_beyond = {w->body_capacity + 1, 1};
	expect_bad_body_handle(w, capacity_beyond, "index beyond the capacity");
	const f2d_body_id max_index = {INT32_MAX, 1};
	expect_bad_body_handle(w, max_index, "index INT32_MAX");
	const f2d_body_id negative = {-1, 1};
	expect_bad_body_handle(w, negative, "index -1");
	const f2d_body_id min_index = {INT32_MIN, 1};
	expect_bad_body_handle(w, min_index, "index INT32_MIN");
	f2d_body_id wrong_gen = s.b;
	wrong_gen.generation += 1;
	expect_bad_body_handle(w, wrong_gen, "generation + 1");
	wrong_gen.generation = s.b.generation - 1; /* 0 for a fresh slot */
	expect_bad_body_handle(w, wrong_gen, "generation - 1");
	wrong_gen.generation = UINT32_MAX;
	expect_bad_body_handle(w, wrong_gen, "generation UINT32_MAX");
	/* the live handles still work */
	CHECK_OK(f2d_body_set_linear_velocity(w, s.b, vec(0, 0)));
	f2d_destroy_world(w);
}
END_TEST

START_TEST(test_stale_handles)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	f2d_body_id victim = s.c;
	f2d_shape_id victim_shape = {0, 0};
	/* find c's shape through the shape handles (ids 1..5) */
	for (int32_t i = 1; i <= 5; ++i) {
		f2d_shape_id sid = {i, 1};
		if (f2d_shape_is_valid(w, sid) && body_id_eq(f2d_shape_get_body(w, sid), victim)) {
			victim_shape = sid;
		}
	}
	ck_assert_int_ne(victim_shape.index1, 0);
	CHECK_OK(f2d_destroy_body(w, victim));
	ck_assert(!f2d_body_is_valid(w, victim));
	ck_assert(!f2d_shape_is_valid(w, victim_shape));
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	ck_assert_int_eq(st.body_count, 4);
	ck_assert_int_eq(st.shape_count, 4);

	expect_bad_body_handle(w, victim, "destroyed body");
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_body(w, victim)); /* twice */
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_shape(w, victim_shape));
	CHECK_OK(f2d_world_step(w));
	expect_bad_body_handle(w, victim, "destroyed body after a step");

	/* the slot is reused (LIFO), with a new generation; the old handle stays dead */
	f2d_body_id fresh = add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(2), F2D_MILLI(500));
	ck_assert_int_eq(fresh.index1, victim.index1);
	ck_assert_uint_ne(fresh.generation, victim.generation);
	ck_assert(f2d_body_is_valid(w, fresh));
	ck_assert(!f2d_body_is_valid(w, victim));
	expect_bad_body_handle(w, victim, "old handle of a reused slot");
	f2d_shape_id fresh_shape = add_box(w, fresh, F2D_MILLI(500), F2D_MILLI(500));
	ck_assert_int_eq(fresh_shape.index1, victim_shape.index1);
	ck_assert_uint_ne(fresh_shape.generation, victim_shape.generation);
	ck_assert(!f2d_shape_is_valid(w, victim_shape));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_shape(w, victim_shape));
	ck_assert(f2d_shape_is_valid(w, fresh_shape));
	CHECK_OK(f2d_body_set_linear_velocity(w, fresh, vec(F2D_ONE, 0)));
	ck_assert_int_eq(f2d_body_get_linear_velocity(w, fresh).x, F2D_ONE);

	/* bad shape and joint handles */
	const f2d_shape_id null_shape = {0, 0};
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_shape(w, null_shape));
	const f2d_shape_id far_shape = {INT32_MAX, 1};
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_shape(w, far_shape));
	const f2d_joint_id null_joint = {0, 0};
	const f2d_joint_id far_joint = {w->joint_ids.next + 1, 1};
	f2d_joint_id wrong_joint = s.joint;
	wrong_joint.generation++;
	const f2d_joint_id bad_joints[3] = {null_joint, far_joint, wrong_joint};
	for (int i = 0; i < 3; ++i) {
		f2d_joint_id j = bad_joints[i];
		ck_assert(!f2d_joint_is_valid(w, j));
		EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_joint(w, j));
		EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE,
		            f2d_revolute_joint_enable_motor(w, j, false));
		EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE,
		            f2d_revolute_joint_set_motor_speed(w, j, F2D_ONE));
		EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE,
		            f2d_revolute_joint_set_max_motor_torque(w, j, F2D_ONE));
		EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE,
		            f2d_revolute_joint_set_limits(w, j, true, -F2D_ONE, F2D_ONE));
		f2d_vec2 pa, pb;
		EXPECT_CONST_FAIL(w, F2D_ERROR_INVALID_HANDLE,
		                  f2d_joint_get_world_anchors(w, j, &pa, &pb));
	}
	f2d_destroy_world(w);
}
END_TEST

START_TEST(test_foreign_handles)
{
	scene s = make_scene(); /* 5 bodies */
	f2d_world *big = make_world();
	f2d_body_id last = {0, 0};
	for (int i = 0; i < 12; ++i) {
		last = add_body_xy(big, F2D_DYNAMIC_BODY, F2D_FIX(i), 0);
	}
	ck_assert_int_gt(last.index1, s.w->body_ids.next);
	expect_bad_body_handle(s.w, last, "handle from a bigger world");
	ck_assert(f2d_body_is_valid(big, last));
	/* a shape handle from the bigger world */
	f2d_shape_id big_shape = add_box(big, last, F2D_ONE, F2D_ONE);
	for (int i = 0; i < 10; ++i) {
		big_shape = add_box(big, last, F2D_MILLI(100), F2D_MILLI(100));
	}
	ck_assert_int_gt(big_shape.index1, s.w->shape_ids.next);
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_shape(s.w, big_shape));
	ck_assert(!f2d_shape_is_valid(s.w, big_shape));
	f2d_destroy_world(big);
	f2d_destroy_world(s.w);
}
END_TEST

/* Same create/destroy sequence in two worlds: same handles, same hashes. */
static void id_sequence(f2d_world *w, f2d_body_id *ids, int n)
{
	for (int i = 0; i < n; ++i) {
		ids[i] = add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(i), F2D_FIX(i % 3));
		add_box(w, ids[i], F2D_MILLI(400), F2D_MILLI(400));
	}
	CHECK_OK(f2d_destroy_body(w, ids[1]));
	CHECK_OK(f2d_destroy_body(w, ids[4]));
	CHECK_OK(f2d_destroy_body(w, ids[2]));
	ids[n] = add_body_xy(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(-3));     /* reuses 2 (last freed) */
	ids[n + 1] = add_body_xy(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(-6)); /* reuses 4 */
	add_circle(w, ids[n + 1], F2D_MILLI(300));
	CHECK_OK(f2d_world_step(w));
	CHECK_OK(f2d_destroy_body(w, ids[0]));
	ids[n + 2] = add_body_xy(w, F2D_KINEMATIC_BODY, F2D_FIX(3), 0); /* reuses 0 */
	ids[n + 3] = add_body_xy(w, F2D_STATIC_BODY, F2D_FIX(3), 0);    /* reuses 1 */
	ids[n + 4] = add_body_xy(w, F2D_STATIC_BODY, F2D_FIX(3), 0);    /* new */
}

START_TEST(test_deterministic_ids)
{
	enum { N = 6 };
	f2d_body_id ids1[N + 5], ids2[N + 5];
	f2d_world *w1 = make_world();
	f2d_world *w2 = make_world();
	id_sequence(w1, ids1, N);
	id_sequence(w2, ids2, N);
	for (int i = 0; i < N + 5; ++i) {
		ck_assert_msg(body_id_eq(ids1[i], ids2[i]), "id %d differs: {%d,%u} vs {%d,%u}", i,
		              ids1[i].index1, ids1[i].generation, ids2[i].index1,
		              ids2[i].generation);
	}
	/* LIFO reuse of freed slots, with new generations */
	ck_assert_int_eq(ids1[N].index1, ids1[2].index1);
	ck_assert_int_eq(ids1[N + 1].index1, ids1[4].index1);
	ck_assert_int_eq(ids1[N + 2].index1, ids1[0].index1);
	ck_assert_int_eq(ids1[N + 3].index1, ids1[1].index1);
	ck_assert_int_eq(ids1[N + 4].index1, N + 1);
	ck_assert_uint_ne(ids1[N].generation, ids1[2].generation);
	ck_assert(!f2d_body_is_valid(w1, ids1[0]));
	ck_assert(f2d_body_is_valid(w1, ids1[N + 2]));
	ck_assert_uint_eq(f2d_world_hash(w1), f2d_world_hash(w2));
	for (int i = 0; i < 5; ++i) {
		CHECK_OK(f2d_world_step(w1));
		CHECK_OK(f2d_world_step(w2));
	}
	ck_assert_uint_eq(f2d_world_hash(w1), f2d_world_hash(w2));
	/* and the hash does see a different history */
	CHECK_OK(f2d_destroy_body(w2, ids2[3]));
	ck_assert_uint_ne(f2d_world_hash(w1), f2d_world_hash(w2));
	f2d_destroy_world(w1);
	f2d_destroy_world(w2);
}
END_TEST

/* ---- joints ---- */

START_TEST(test_bad_joints)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	f2d_body_id ground2 = add_body_xy(w, F2D_STATIC_BODY, F2D_FIX(30), 0);
	f2d_body_id dead = add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(-30), 0);
	CHECK_OK(f2d_destroy_body(w, dead));
	f2d_revolute_joint_def base = f2d_default_revolute_joint_def();
	CHECK_OK(f2d_init_revolute_joint_def(w, s.b, s.c, vec(F2D_ONE, F2D_ONE), &base));
	f2d_joint_id jid = sentinel_joint;

	for (int i = 0; i < 17; ++i) {
		f2d_revolute_joint_def jd = base;
		f2d_result want = F2D_ERROR_INVALID_VALUE;
		const char *what = "?";
		switch (i) {
		case 0: jd.body_b = jd.body_a, what = "same body twice"; break;
		case 1:
			jd.body_a = s.ground, jd.body_b = ground2, what = "two static bodies";
			break;
		case 2: jd.body_a = s.ground, jd.body_b = s.ground, what = "ground twice"; break;
		case 3:
			jd.body_a = dead, want = F2D_ERROR_INVALID_HANDLE, what = "stale body_a";
			break;
		case 4:
			jd.body_b = dead, want = F2D_ERROR_INVALID_HANDLE, what = "stale body_b";
			break;
		case 5:
			jd.enable_limit = true, jd.lower_angle = F2D_ONE, jd.upper_angle = -F2D_ONE;
			what = "lower > upper with the limit on";
			break;
		case 6:
			jd.enable_limit = true, jd.lower_angle = 1, jd.upper_angle = 0;
			what = "lower > upper by 1 LSB";
			break;
		case 7: jd.lower_angle = F2D_FIX(-4), what = "lower -4 rad"; break;
		case 8: jd.upper_angle = F2D_FIX(4), what = "upper 4 rad"; break;
		case 9: jd.upper_angle = F2D_PI + 1, what = "upper pi + 1 LSB"; break;
		case 10: jd.lower_angle = -F2D_PI - 1, what = "lower -pi - 1 LSB"; break;
		case 11: jd.reference_angle = F2D_FIX(4), what = "reference 4 rad"; break;
		case 12: jd.max_motor_torque = -1, what = "max_motor_torque -1 LSB"; break;
		case 13:
			jd.max_motor_torque = INT32_MIN, what = "max_motor_torque INT32_MIN";
			break;
		case 14: jd.motor_speed = F2D_FIX(1001), what = "motor_speed 1001"; break;
		case 15:
			jd.local_anchor_a.x = F2D_FIX(65), what = "anchor 65 m from a dynamic body";
			break;
		default: jd.local_anchor_b.y = INT32_MIN, what = "anchor INT32_MIN"; break;
		}
		EXPECT_FAIL_AS(w, want, what, f2d_create_revolute_joint(w, &jd, &jid));
		ck_assert_msg(joint_id_eq(jid, sentinel_joint), "%s: out written on failure", what);
	}
	/* setters on a live joint */
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_revolute_joint_set_limits(w, s.joint, true, F2D_ONE, -F2D_ONE));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_revolute_joint_set_limits(w, s.joint, true, F2D_FIX(-4), 0));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_revolute_joint_set_limits(w, s.joint, true, 0, F2D_FIX(4)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_revolute_joint_set_max_motor_torque(w, s.joint, -1));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_revolute_joint_set_motor_speed(w, s.joint, F2D_FIX(-1001)));
	EXPECT_CONST_FAIL(
	    w, F2D_ERROR_INVALID_VALUE,
	    f2d_init_revolute_joint_def(w, s.b, s.c, vec(F2D_WORLD_LIMIT + 1, 0), &base));
	EXPECT_CONST_FAIL(w, F2D_ERROR_INVALID_HANDLE,
	                  f2d_init_revolute_joint_def(w, dead, s.c, vec(0, 0), &base));

	/* the base def itself is fine, and so are the range edges */
	f2d_revolute_joint_def jd = base;
	jd.enable_limit = true;
	jd.lower_angle = -F2D_PI;
	jd.upper_angle = F2D_PI;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &jid));
	ck_assert(f2d_joint_is_valid(w, jid));
	f2d_destroy_world(w);
}
END_TEST

START_TEST(test_destroy_body_destroys_joints)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
	CHECK_OK(f2d_init_revolute_joint_def(w, s.b, s.c, vec(F2D_ONE, F2D_ONE), &jd));
	f2d_joint_id bc;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &bc));
	CHECK_OK(f2d_init_revolute_joint_def(w, s.ground, s.a, vec(F2D_FIX(-2), F2D_ONE), &jd));
	f2d_joint_id ga;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &ga));
	CHECK_OK(f2d_world_step(w));
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	ck_assert_int_eq(st.joint_count, 3);
	ck_assert_int_eq(w->bodies[s.a.index1 - 1].joint_count, 2);
	ck_assert_int_eq(w->bodies[s.b.index1 - 1].joint_count, 2);

	/* a is in the scene joint (a-b) and in ground-a */
	CHECK_OK(f2d_destroy_body(w, s.a));
	ck_assert(!f2d_joint_is_valid(w, s.joint));
	ck_assert(!f2d_joint_is_valid(w, ga));
	ck_assert(f2d_joint_is_valid(w, bc));
	f2d_world_get_stats(w, &st);
	ck_assert_int_eq(st.joint_count, 1);
	ck_assert_int_eq(w->bodies[s.b.index1 - 1].joint_count, 1);
	ck_assert_int_eq(w->bodies[s.ground.index1 - 1].joint_count, 0);
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_joint(w, s.joint));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_joint(w, ga));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE,
	            f2d_revolute_joint_set_motor_speed(w, s.joint, F2D_ONE));
	CHECK_OK(f2d_world_step(w));

	/* a new joint may take a freed slot, but the old handles stay invalid */
	CHECK_OK(f2d_init_revolute_joint_def(w, s.ground, s.c, vec(F2D_FIX(2), F2D_ONE), &jd));
	f2d_joint_id fresh;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &fresh));
	ck_assert(fresh.index1 == ga.index1 || fresh.index1 == s.joint.index1);
	ck_assert(!f2d_joint_is_valid(w, s.joint));
	ck_assert(!f2d_joint_is_valid(w, ga));
	ck_assert(f2d_joint_is_valid(w, fresh));
	/* destroying a joint twice */
	CHECK_OK(f2d_destroy_joint(w, bc));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_HANDLE, f2d_destroy_joint(w, bc));
	f2d_destroy_world(w);
}
END_TEST

/* ---- forces and impulses ---- */

START_TEST(test_force_impulse_overflow)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	/* a light body: 0.2 m x 0.2 m at density 1, 0.04 kg */
	f2d_body_id light = add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(-8), F2D_FIX(3));
	add_box(w, light, F2D_MILLI(100), F2D_MILLI(100));
	ck_assert_int_ge(f2d_body_get_mass(w, light), F2D_MILLI(39));
	ck_assert_int_le(f2d_body_get_mass(w, light), F2D_MILLI(41));
	f2d_vec2 c = f2d_body_get_world_center(w, light);

	/* 200 N s on 0.04 kg: 5000 m/s > 4096 */
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_linear_impulse(w, light, vec(F2D_FIX(200), 0), c));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_linear_impulse(w, light, vec(0, INT32_MIN + 1), c));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_linear_impulse(w, light, vec(INT32_MAX, INT32_MAX), c));
	/* off-centre: the spin overflows */
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_linear_impulse(w, light, vec(0, F2D_FIX(10)),
	                                          vec(c.x + F2D_FIX(30), c.y)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_angular_impulse(w, light, F2D_FIX(30000)));
	/* an impulse at a point outside the world (but close enough for 32-bit differences) */
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_linear_impulse(w, light, vec(F2D_MILLI(1), 0),
	                                          vec(F2D_WORLD_LIMIT + 1, 0)));
	/* in steps of 100 m/s, the 41st pushes past 4096 m/s; the refused one changes nothing */
	int accepted = 0;
	fix16_t dv = 0;
	for (int i = 0; i < 50; ++i) {
		uint64_t h = f2d_world_hash(w);
		w->error[0] = '\0';
		f2d_result r = f2d_body_apply_linear_impulse(w, light, vec(F2D_FIX(4), 0), c);
		if (r == F2D_OK) {
			ck_assert_uint_ne(f2d_world_hash(w), h);
			if (accepted++ == 0) {
				dv = f2d_body_get_linear_velocity(w, light).x;
			}
			continue;
		}
		check_failure(w, h, r, F2D_ERROR_INVALID_VALUE, "accumulated impulse", __LINE__);
		break;
	}
	ck_assert_int_eq(accepted, 40);
	ck_assert_int_gt(dv, F2D_FIX(99));
	ck_assert_int_eq(f2d_body_get_linear_velocity(w, light).x, 40 * dv);

	/* accumulated force: 30000 N is fine once, twice overflows the accumulator */
	CHECK_OK(f2d_body_apply_force_to_center(w, s.b, vec(F2D_FIX(30000), 0)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_force_to_center(w, s.b, vec(F2D_FIX(30000), 0)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_force(w, s.b, vec(F2D_FIX(30000), 0),
	                                 f2d_body_get_world_center(w, s.b)));
	CHECK_OK(f2d_body_apply_force_to_center(w, s.c, vec(0, F2D_FIX(-30000))));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_force_to_center(w, s.c, vec(0, F2D_FIX(-30000))));
	/* the torque of a force far from the centre */
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_force(w, s.wheel, vec(0, F2D_FIX(30000)),
	                                 vec(F2D_FIX(8000), F2D_MILLI(500))));
	CHECK_OK(f2d_body_apply_torque(w, s.wheel, F2D_FIX(30000)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE, f2d_body_apply_torque(w, s.wheel, F2D_FIX(30000)));
	/* a force at a point outside the world */
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_force(w, s.a, vec(F2D_ONE, 0), vec(F2D_WORLD_LIMIT + 1, 0)));
	f2d_destroy_world(w);
}
END_TEST

/* A point far outside the world, on a body left of the origin: point - centre does not fit in
 * 32 bits, the call must still refuse the point (and not compute with a wrapped difference). */
START_TEST(test_impulse_at_int32_max_point)
{
	scene s = make_scene();
	ck_assert_int_lt(f2d_body_get_world_center(s.w, s.a).x, 0);
	EXPECT_FAIL(
	    s.w, F2D_ERROR_INVALID_VALUE,
	    f2d_body_apply_linear_impulse(s.w, s.a, vec(F2D_MILLI(1), 0), vec(INT32_MAX, 0)));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_force_at_int32_max_point)
{
	scene s = make_scene();
	ck_assert_int_lt(f2d_body_get_world_center(s.w, s.a).x, 0);
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_apply_force(s.w, s.a, vec(F2D_ONE, 0), vec(INT32_MAX, 0)));
	f2d_destroy_world(s.w);
}
END_TEST

/* A force the API accepted must act in its direction in the next step: 2000 N on 0.04 kg is
 * 50000 m/s^2, beyond the fix16 range as an acceleration but not as a force or a velocity
 * change per step (833 m/s, then capped by max_translation). */
START_TEST(test_step_with_large_accepted_force)
{
	const fix16_t forces[4] = {F2D_FIX(500), F2D_FIX(2000), F2D_FIX(-2000), F2D_FIX(32767)};
	for (int i = 0; i < 4; ++i) {
		f2d_world *w = make_world();
		CHECK_OK(f2d_world_set_gravity(w, vec(0, 0)));
		f2d_body_id light = add_body_xy(w, F2D_DYNAMIC_BODY, 0, 0);
		add_box(w, light, F2D_MILLI(100), F2D_MILLI(100));
		CHECK_OK(f2d_body_apply_force_to_center(w, light, vec(forces[i], 0)));
		f2d_result r = f2d_world_step(w);
		ck_assert_msg(r == F2D_OK || r == F2D_ERROR_OVERFLOW, "force %d N: step gave %d",
		              (int)(forces[i] / 65536), (int)r);
		fix16_t vx = f2d_body_get_linear_velocity(w, light).x;
		fix16_t x = f2d_body_get_position(w, light).x;
		ck_assert_msg(forces[i] > 0 ? (vx > 0 && x > 0) : (vx < 0 && x < 0),
		              "force %d N on 0.04 kg: after one step v.x = %d/65536, x = %d/65536 "
		              "(moved against the force)",
		              (int)(forces[i] / 65536), (int)vx, (int)x);
		f2d_destroy_world(w);
	}
}
END_TEST

/* The same for a torque: 50 N m on I = 2.7e-4 kg m^2 is 187500 rad/s^2 (3125 rad/s in a step,
 * then capped by max_rotation), the body must turn counter-clockwise. */
START_TEST(test_step_with_large_accepted_torque)
{
	const fix16_t torques[3] = {F2D_FIX(1), F2D_FIX(50), F2D_FIX(-50)};
	for (int i = 0; i < 3; ++i) {
		f2d_world *w = make_world();
		CHECK_OK(f2d_world_set_gravity(w, vec(0, 0)));
		f2d_body_id light = add_body_xy(w, F2D_DYNAMIC_BODY, 0, 0);
		add_box(w, light, F2D_MILLI(100), F2D_MILLI(100));
		CHECK_OK(f2d_body_apply_torque(w, light, torques[i]));
		f2d_result r = f2d_world_step(w);
		ck_assert_msg(r == F2D_OK || r == F2D_ERROR_OVERFLOW, "torque %d N m: step gave %d",
		              (int)(torques[i] / 65536), (int)r);
		fix16_t av = f2d_body_get_angular_velocity(w, light);
		fix16_t angle = f2d_body_get_angle(w, light);
		ck_assert_msg(
		    torques[i] > 0 ? (av > 0 && angle > 0) : (av < 0 && angle < 0),
		    "torque %d N m on 2.7e-4 kg m^2: after one step w = %d/65536, angle = "
		    "%d/65536 (turned against the torque)",
		    (int)(torques[i] / 65536), (int)av, (int)angle);
		f2d_destroy_world(w);
	}
}
END_TEST

/* ---- run-time range ---- */

START_TEST(test_out_of_range_step)
{
	f2d_world *w = make_world();
	CHECK_OK(f2d_world_set_gravity(w, vec(0, 0)));
	f2d_body_id filler = add_body_xy(w, F2D_DYNAMIC_BODY, 0, 0); /* so the runner is not id 1 */
	add_box(w, filler, F2D_MILLI(500), F2D_MILLI(500));
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = vec(F2D_FIX(8190), 0);
	bd.linear_velocity = vec(F2D_FIX(100), 0);
	f2d_body_id runner;
	CHECK_OK(f2d_create_body(w, &bd, &runner));
	add_box(w, runner, F2D_MILLI(500), F2D_MILLI(500));

	/* 100 m/s * 1/60 s = 1.67 m per step: 8191.67 is still inside, 8193.3 is not */
	CHECK_OK(f2d_world_step(w));
	ck_assert_int_gt(f2d_body_get_position(w, runner).x, F2D_FIX(8191));
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	ck_assert_uint_eq(st.out_of_range_events, 0);

	w->error[0] = '\0';
	f2d_result r = f2d_world_step(w);
	ck_assert_msg(r == F2D_ERROR_OUT_OF_RANGE, "step returned %d (%s)", (int)r,
	              f2d_error_string(r));
	ck_assert_str_ne(f2d_world_last_error(w), "");
	f2d_vec2 p = f2d_body_get_position(w, runner);
	ck_assert_int_le(p.x, F2D_WORLD_LIMIT);
	ck_assert_int_ge(p.x, F2D_WORLD_LIMIT - F2D_ONE);
	ck_assert_int_eq(p.y, 0);
	f2d_vec2 v = f2d_body_get_linear_velocity(w, runner);
	ck_assert_int_eq(v.x, 0);
	ck_assert_int_eq(v.y, 0);
	ck_assert_int_eq(f2d_body_get_angular_velocity(w, runner), 0);
	f2d_world_get_stats(w, &st);
	ck_assert_uint_eq(st.step_count, 2); /* the step was completed */
	ck_assert_uint_eq(st.out_of_range_events, 1);
	ck_assert(body_id_eq(st.last_out_of_range_body, runner));
	ck_assert(f2d_body_is_valid(w, filler));

	/* it stays at the edge; no new event */
	CHECK_OK(f2d_world_step(w));
	ck_assert_int_eq(f2d_body_get_position(w, runner).x, p.x);
	f2d_world_get_stats(w, &st);
	ck_assert_uint_eq(st.out_of_range_events, 1);
	f2d_destroy_world(w);
}
END_TEST

/* ---- allocator failure ---- */

#define MAX_LIVE 256

typedef struct alloc_ctx {
	int64_t allocs, frees, refused;
	int64_t fail_after; /* refuse every allocation after this many; -1: never */
	int64_t live_bytes;
	int64_t bad_frees; /* unknown pointer or a size different from the allocation's */
	int32_t live;
	void *ptrs[MAX_LIVE];
	size_t sizes[MAX_LIVE];
} alloc_ctx;

static void *counting_alloc(size_t size, void *context)
{
	alloc_ctx *c = context;
	if (c->fail_after >= 0 && c->allocs >= c->fail_after) {
		c->refused++;
		return NULL;
	}
	void *p = malloc(size == 0 ? 1 : size);
	if (p == NULL) {
		return NULL;
	}
	c->allocs++;
	c->live_bytes += (int64_t)size;
	if (c->live < MAX_LIVE) {
		c->ptrs[c->live] = p;
		c->sizes[c->live] = size;
		c->live++;
	} else {
		c->bad_frees++; /* the table is too small: flag it */
	}
	return p;
}

static void counting_free(void *p, size_t size, void *context)
{
	alloc_ctx *c = context;
	c->frees++;
	c->live_bytes -= (int64_t)size;
	int32_t k = 0;
	while (k < c->live && c->ptrs[k] != p) {
		++k;
	}
	if (k == c->live || c->sizes[k] != size) {
		c->bad_frees++;
	}
	if (k < c->live) {
		c->ptrs[k] = c->ptrs[c->live - 1];
		c->sizes[k] = c->sizes[c->live - 1];
		c->live--;
	}
	free(p);
}

enum { OOM_WORLD = 1, OOM_BODY = 2, OOM_SHAPE = 4, OOM_JOINT = 8, OOM_STEP = 16 };

/* The public functions seen returning F2D_ERROR_OUT_OF_MEMORY (their doc comments in fix2d.h
 * must say so: test_documented_codes). */
static char oom_functions[16][48];
static int oom_function_count;

static void note_oom(const char *call)
{
	char name[48];
	size_t n = strcspn(call, "(");
	ck_assert_uint_lt(n, sizeof name);
	memcpy(name, call, n);
	name[n] = '\0';
	for (int i = 0; i < oom_function_count; ++i) {
		if (strcmp(oom_functions[i], name) == 0) {
			return;
		}
	}
	ck_assert_int_lt(oom_function_count, 16);
	memcpy(oom_functions[oom_function_count++], name, n + 1);
}

/* A call of the build sequence: OK, or OUT_OF_MEMORY with the world unchanged (then stop). */
#define OOM_CALL(kind, call)                                                                       \
	do {                                                                                       \
		uint64_t h_ = f2d_world_hash(w);                                                   \
		w->error[0] = '\0';                                                                \
		f2d_result r_ = (call);                                                            \
		if (r_ == F2D_ERROR_OUT_OF_MEMORY) {                                               \
			check_failure(w, h_, r_, F2D_ERROR_OUT_OF_MEMORY, #call, __LINE__);        \
			note_oom(#call);                                                           \
			*seen |= (kind);                                                           \
			goto out;                                                                  \
		}                                                                                  \
		ck_assert_msg(r_ == F2D_OK, "fail_after %lld: %s returned %d (%s)",                \
		              (long long)ctx->fail_after, #call, (int)r_, f2d_error_string(r_));   \
	} while (0)

/* Builds and runs a scene with allocations failing after ctx->fail_after; true if it got to the
 * end. The world is destroyed and every allocation must have been returned. */
static bool oom_scene(alloc_ctx *ctx, int32_t body_capacity, int *seen)
{
	bool complete = false;
	f2d_world_def def = f2d_default_world_def();
	def.allocator.alloc = counting_alloc;
	def.allocator.free = counting_free;
	def.allocator.context = ctx;
	def.body_capacity = body_capacity;
	def.contact_capacity = body_capacity;
	f2d_world *w = NULL;
	f2d_result r = f2d_create_world(&def, &w);
	if (r == F2D_ERROR_OUT_OF_MEMORY) {
		ck_assert_ptr_null(w);
		note_oom("f2d_create_world");
		*seen |= OOM_WORLD;
		goto out;
	}
	ck_assert_int_eq(r, F2D_OK);

	f2d_body_def bd = f2d_default_body_def();
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon ground_box, box;
	CHECK_OK(f2d_make_box(F2D_FIX(30), F2D_MILLI(500), &ground_box));
	CHECK_OK(f2d_make_box(F2D_MILLI(400), F2D_MILLI(400), &box));
	f2d_circle circle = {{0, 0}, F2D_MILLI(400)};
	f2d_body_id ground, bodies[20];
	f2d_shape_id sid;
	bd.position = vec(0, F2D_MILLI(-500));
	OOM_CALL(OOM_BODY, f2d_create_body(w, &bd, &ground));
	OOM_CALL(OOM_SHAPE, f2d_create_polygon_shape(w, ground, &sd, &ground_box, &sid));
	bd.type = F2D_DYNAMIC_BODY;
	for (int i = 0; i < 20; ++i) {
		bd.position = vec(F2D_FIX(-10 + i), F2D_MILLI(400));
		OOM_CALL(OOM_BODY, f2d_create_body(w, &bd, &bodies[i]));
		if (i % 2 == 0) {
			OOM_CALL(OOM_SHAPE,
			         f2d_create_polygon_shape(w, bodies[i], &sd, &box, &sid));
		} else {
			OOM_CALL(OOM_SHAPE,
			         f2d_create_circle_shape(w, bodies[i], &sd, &circle, &sid));
		}
	}
	f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
	f2d_joint_id jid;
	for (int i = 0; i < 18; i += 2) {
		CHECK_OK(f2d_init_revolute_joint_def(
		    w, bodies[i], bodies[i + 1], vec(F2D_FIX(-10 + i) + F2D_MILLI(500), F2D_ONE),
		    &jd));
		OOM_CALL(OOM_JOINT, f2d_create_revolute_joint(w, &jd, &jid));
	}
	for (int i = 0; i < 5; ++i) {
		OOM_CALL(OOM_STEP, f2d_world_step(w));
	}
	OOM_CALL(OOM_BODY, f2d_destroy_body(w, bodies[3]));
	OOM_CALL(OOM_BODY, f2d_create_body(w, &bd, &bodies[3]));
	OOM_CALL(OOM_SHAPE, f2d_create_polygon_shape(w, bodies[3], &sd, &box, &sid));
	OOM_CALL(OOM_STEP, f2d_world_step(w));
	complete = true;
out:
	if (w != NULL) {
		/* a failed call leaves a usable world: stepping with memory back must work */
		int64_t saved = ctx->fail_after;
		ctx->fail_after = -1;
		CHECK_OK(f2d_world_step(w));
		ctx->fail_after = saved;
	}
	f2d_destroy_world(w);
	ck_assert_msg(ctx->allocs == ctx->frees,
	              "fail_after %lld: %lld allocations but %lld frees after destroy_world",
	              (long long)ctx->fail_after, (long long)ctx->allocs, (long long)ctx->frees);
	ck_assert_msg(ctx->live_bytes == 0 && ctx->live == 0,
	              "fail_after %lld: %lld bytes in %d blocks still live",
	              (long long)ctx->fail_after, (long long)ctx->live_bytes, (int)ctx->live);
	ck_assert_msg(ctx->bad_frees == 0,
	              "fail_after %lld: %lld frees of unknown pointers or "
	              "with the wrong size",
	              (long long)ctx->fail_after, (long long)ctx->bad_frees);
	return complete;
}

START_TEST(test_allocator_failure)
{
	const int32_t capacities[2] = {1, 0};
	for (int c = 0; c < 2; ++c) {
		int seen = 0;
		int64_t n;
		bool complete = false;
		for (n = 0; n < 1000 && !complete; ++n) {
			alloc_ctx ctx;
			memset(&ctx, 0, sizeof ctx);
			ctx.fail_after = n;
			complete = oom_scene(&ctx, capacities[c], &seen);
			if (!complete) {
				ck_assert_msg(ctx.refused > 0,
				              "fail_after %lld: stopped without a refusal",
				              (long long)n);
			}
		}
		ck_assert_msg(complete, "capacity %d: never completed", (int)capacities[c]);
		ck_assert_int_ge(n, 8);
		ck_assert_msg(seen == (OOM_WORLD | OOM_BODY | OOM_SHAPE | OOM_JOINT | OOM_STEP),
		              "capacity %d: out-of-memory seen only in calls %#x",
		              (int)capacities[c], (unsigned)seen);
		/* and with an allocator that never fails */
		alloc_ctx ctx;
		memset(&ctx, 0, sizeof ctx);
		ctx.fail_after = -1;
		ck_assert(oom_scene(&ctx, capacities[c], &seen));
		ck_assert_int_gt(ctx.allocs, 5);
	}
}
END_TEST

START_TEST(test_capacity_limit)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	/* pretend every body id was handed out (a million real bodies is too slow for a test) */
	uint64_t h = f2d_world_hash(w);
	int32_t next = w->body_ids.next;
	f2d_body_def bd = f2d_default_body_def();
	f2d_body_id id = sentinel_body;
	w->body_ids.next = F2D_MAX_OBJECTS;
	w->error[0] = '\0';
	f2d_result r = f2d_create_body(w, &bd, &id);
	ck_assert_int_eq(w->body_ids.next, F2D_MAX_OBJECTS);
	w->body_ids.next = next;
	check_failure(w, h, r, F2D_ERROR_CAPACITY, "create_body at F2D_MAX_OBJECTS", __LINE__);
	ck_assert(body_id_eq(id, sentinel_body));
	f2d_destroy_world(w);
}
END_TEST

/* ---- the codes fix2d.h documents ---- */

/* The doc comment (slash, two stars ... star, slash) right above the declaration of
 * `function` in the text of a header, or NULL. */
static char *doc_comment(const char *header, const char *function)
{
	char decl[64];
	snprintf(decl, sizeof decl, " %s(", function);
	const char *at = strstr(header, decl);
	ck_assert_msg(at != NULL, "%s is not declared in fix2d.h", function);
	while (at > header && at[-1] != '\n') { /* the start of the declaration's line */
		--at;
	}
	const char *end = at;
	while (end > header && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t')) {
		--end;
	}
	if (end - header < 4 || strncmp(end - 2, "*/", 2) != 0) {
		return NULL;
	}
	const char *begin = end - 2; /* the start of this comment, which must be a doc comment */
	while (begin > header && strncmp(begin, "/*", 2) != 0) {
		--begin;
	}
	if (strncmp(begin, "/**", 3) != 0) {
		return NULL;
	}
	size_t n = (size_t)(end - begin);
	char *doc = malloc(n + 1);
	ck_assert_ptr_nonnull(doc);
	memcpy(doc, begin, n);
	doc[n] = '\0';
	return doc;
}

static void expect_documented(const char *header, const char *function, const char *code)
{
	char *doc = doc_comment(header, function);
	ck_assert_msg(doc != NULL && strstr(doc, code) != NULL,
	              "fix2d.h: %s returns %s, but its doc comment does not say so: %s", function,
	              code, doc != NULL ? doc : "(no doc comment)");
	free(doc);
}

START_TEST(test_documented_codes)
{
	/* run the out-of-memory walk (test_allocator_failure) to learn which functions return
	 * F2D_ERROR_OUT_OF_MEMORY, then read their doc comments */
	oom_function_count = 0;
	int seen = 0;
	bool complete = false;
	for (int64_t n = 0; n < 1000 && !complete; ++n) {
		alloc_ctx ctx;
		memset(&ctx, 0, sizeof ctx);
		ctx.fail_after = n;
		complete = oom_scene(&ctx, 1, &seen);
	}
	ck_assert(complete);
	ck_assert_int_ge(oom_function_count, 6); /* world, step, body, 2 shapes, joint */
	FILE *f = fopen(F2D_PUBLIC_INCLUDE_DIR "/fix2d.h", "rb");
	ck_assert_msg(f != NULL, "cannot open %s", F2D_PUBLIC_INCLUDE_DIR "/fix2d.h");
	static char header[1 << 16];
	size_t len = fread(header, 1, sizeof header - 1, f);
	fclose(f);
	ck_assert_uint_lt(len, sizeof header - 1);
	header[len] = '\0';
	for (int i = 0; i < oom_function_count; ++i) {
		expect_documented(header, oom_functions[i], "F2D_ERROR_OUT_OF_MEMORY");
	}
	expect_documented(header, "f2d_world_step", "F2D_ERROR_OUT_OF_MEMORY");
	/* test_capacity_limit: F2D_MAX_OBJECTS */
	expect_documented(header, "f2d_create_body", "F2D_ERROR_CAPACITY");
	/* test_state_a_body_cannot_have (tests/test_api.c) */
	expect_documented(header, "f2d_body_set_awake", "INVALID_VALUE");
}
END_TEST

/* ---- error strings ---- */

START_TEST(test_error_strings)
{
	for (int i = 0; i < F2D_ERROR_COUNT; ++i) {
		const char *a = f2d_error_string((f2d_result)i);
		ck_assert_msg(a != NULL && a[0] != '\0', "code %d has no message", i);
		for (int k = 0; k < i; ++k) {
			ck_assert_msg(strcmp(a, f2d_error_string((f2d_result)k)) != 0,
			              "codes %d and %d share the message '%s'", k, i, a);
		}
	}
	const int outside[4] = {F2D_ERROR_COUNT, F2D_ERROR_COUNT + 1, -1, INT32_MAX};
	for (int i = 0; i < 4; ++i) {
		const char *m = f2d_error_string((f2d_result)outside[i]);
		ck_assert_msg(m != NULL && m[0] != '\0', "code %d: no message", outside[i]);
	}
}
END_TEST

static Suite *api_runtime_suite(void)
{
	Suite *s = suite_create("api_runtime");
	TCase *tc = tcase_create("handles");
	tcase_add_test(tc, test_bad_body_handles);
	tcase_add_test(tc, test_stale_handles);
	tcase_add_test(tc, test_foreign_handles);
	tcase_add_test(tc, test_deterministic_ids);
	tcase_add_test(tc, test_bad_joints);
	tcase_add_test(tc, test_destroy_body_destroys_joints);
	suite_add_tcase(s, tc);

	tc = tcase_create("run time");
	tcase_add_test(tc, test_force_impulse_overflow);
	tcase_add_test(tc, test_impulse_at_int32_max_point);
	tcase_add_test(tc, test_force_at_int32_max_point);
	tcase_add_test(tc, test_step_with_large_accepted_force);
	tcase_add_test(tc, test_step_with_large_accepted_torque);
	tcase_add_test(tc, test_out_of_range_step);
	tcase_add_test(tc, test_allocator_failure);
	tcase_add_test(tc, test_capacity_limit);
	tcase_add_test(tc, test_documented_codes);
	tcase_add_test(tc, test_error_strings);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(api_runtime_suite());
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
