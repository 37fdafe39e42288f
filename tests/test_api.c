/* fix2d tests: the public API under bad input and bad handles.
 * SPDX-License-Identifier: MIT
 *
 * The rule checked everywhere: a refused call returns the documented error code,
 * f2d_error_string(code) describes it, f2d_world_last_error(world) names the problem (the test
 * clears the message before each call, so a stale message from an earlier failure does not
 * count), and the world is unchanged: f2d_world_hash is the same before and after the call.
 * The worlds used have a ground, dynamic bodies resting on it and a joint, stepped until they
 * have contacts, so the hash covers arbiters and warm-start impulses too.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fix2d/fix2d.h"

/* ---- helpers ---- */

#define CHECK_OK(call)                                                                             \
	do {                                                                                       \
		f2d_result r_ = (call);                                                            \
		ck_assert_msg(r_ == F2D_OK, "%s failed: %d (%s)", #call, (int)r_,                  \
		              f2d_error_string(r_));                                               \
	} while (0)

static void check_failure(f2d_world *w, uint64_t hash_before, f2d_result got, f2d_result want,
                          const char *what, int line)
{
	ck_assert_msg(got == want, "line %d: %s returned %d (%s), expected %d (%s)", line, what,
	              (int)got, f2d_error_string(got), (int)want, f2d_error_string(want));
	const char *msg = f2d_error_string(got);
	ck_assert_msg(msg != NULL && msg[0] != '\0', "line %d: %s: empty error string", line, what);
	const char *detail = f2d_world_last_error(w);
	ck_assert_msg(detail != NULL && detail[0] != '\0',
	              "line %d: %s: f2d_world_last_error is empty after the failure", line, what);
	uint64_t hash_after = f2d_world_hash(w);
	ck_assert_msg(hash_after == hash_before,
	              "line %d: %s changed the world: hash %016llx -> %016llx", line, what,
	              (unsigned long long)hash_before, (unsigned long long)hash_after);
}

/* The call must fail with `want` on world w and leave w unchanged. */
#define EXPECT_FAIL_AS(w, want, what, call)                                                        \
	do {                                                                                       \
		f2d_world *w_ = (w);                                                               \
		uint64_t h_ = f2d_world_hash(w_);                                                  \
		w_->error[0] = '\0';                                                               \
		f2d_result r_ = (call);                                                            \
		check_failure(w_, h_, r_, (want), (what), __LINE__);                               \
	} while (0)
#define EXPECT_FAIL(w, want, call) EXPECT_FAIL_AS(w, want, #call, call)

/* Functions on a const world (no error message can be stored): code and hash only. */
#define EXPECT_CONST_FAIL(w, want, call)                                                           \
	do {                                                                                       \
		uint64_t h_ = f2d_world_hash(w);                                                   \
		f2d_result r_ = (call);                                                            \
		ck_assert_msg(r_ == (want), "%s returned %d (%s), expected %d", #call, (int)r_,    \
		              f2d_error_string(r_), (int)(want));                                  \
		ck_assert_msg(f2d_world_hash(w) == h_, "%s changed the world", #call);             \
	} while (0)

static const f2d_body_id sentinel_body = {-77, 77u};
static const f2d_shape_id sentinel_shape = {-77, 77u};
static const f2d_joint_id sentinel_joint = {-77, 77u};

static bool body_id_eq(f2d_body_id a, f2d_body_id b)
{
	return a.index1 == b.index1 && a.generation == b.generation;
}
static bool shape_id_eq(f2d_shape_id a, f2d_shape_id b)
{
	return a.index1 == b.index1 && a.generation == b.generation;
}
static bool joint_id_eq(f2d_joint_id a, f2d_joint_id b)
{
	return a.index1 == b.index1 && a.generation == b.generation;
}

static f2d_vec2 vec(fix16_t x, fix16_t y)
{
	f2d_vec2 v = {x, y};
	return v;
}

static f2d_world *make_world(void)
{
	f2d_world_def def = f2d_default_world_def();
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&def, &w));
	ck_assert_ptr_nonnull(w);
	return w;
}

static f2d_body_id add_body(f2d_world *w, f2d_body_type type, fix16_t x, fix16_t y)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position = vec(x, y);
	f2d_body_id id = sentinel_body;
	CHECK_OK(f2d_create_body(w, &bd, &id));
	ck_assert(f2d_body_is_valid(w, id));
	return id;
}

static f2d_shape_id add_box(f2d_world *w, f2d_body_id body, fix16_t hx, fix16_t hy)
{
	f2d_polygon box;
	CHECK_OK(f2d_make_box(hx, hy, &box));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id id = sentinel_shape;
	CHECK_OK(f2d_create_polygon_shape(w, body, &sd, &box, &id));
	ck_assert(f2d_shape_is_valid(w, id));
	return id;
}

static f2d_shape_id add_circle(f2d_world *w, f2d_body_id body, fix16_t radius)
{
	f2d_circle c = {{0, 0}, radius};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id id = sentinel_shape;
	CHECK_OK(f2d_create_circle_shape(w, body, &sd, &c, &id));
	return id;
}

/* ---- the shared scene: ground, three boxes and a wheel at rest, one limited motor joint ---- */

typedef struct scene {
	f2d_world *w;
	f2d_body_id ground, a, b, c, wheel;
	f2d_shape_id box_a;
	f2d_joint_id joint;
} scene;

static scene make_scene(void)
{
	scene s;
	s.w = make_world();
	s.ground = add_body(s.w, F2D_STATIC_BODY, 0, F2D_MILLI(-500));
	add_box(s.w, s.ground, F2D_FIX(20), F2D_MILLI(500));
	s.a = add_body(s.w, F2D_DYNAMIC_BODY, F2D_FIX(-2), F2D_MILLI(500));
	s.box_a = add_box(s.w, s.a, F2D_MILLI(500), F2D_MILLI(500));
	s.b = add_body(s.w, F2D_DYNAMIC_BODY, F2D_FIX(0), F2D_MILLI(500));
	add_box(s.w, s.b, F2D_MILLI(500), F2D_MILLI(500));
	s.c = add_body(s.w, F2D_DYNAMIC_BODY, F2D_FIX(2), F2D_MILLI(500));
	add_box(s.w, s.c, F2D_MILLI(500), F2D_MILLI(500));
	s.wheel = add_body(s.w, F2D_DYNAMIC_BODY, F2D_FIX(4), F2D_MILLI(500));
	add_circle(s.w, s.wheel, F2D_MILLI(500));

	f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
	CHECK_OK(f2d_init_revolute_joint_def(s.w, s.a, s.b, vec(F2D_FIX(-1), F2D_FIX(1)), &jd));
	jd.enable_limit = true;
	jd.lower_angle = F2D_MILLI(-500);
	jd.upper_angle = F2D_MILLI(500);
	jd.enable_motor = true;
	jd.motor_speed = F2D_ONE;
	jd.max_motor_torque = F2D_FIX(5);
	s.joint = sentinel_joint;
	CHECK_OK(f2d_create_revolute_joint(s.w, &jd, &s.joint));
	ck_assert(f2d_joint_is_valid(s.w, s.joint));

	for (int i = 0; i < 10; ++i) {
		CHECK_OK(f2d_world_step(s.w));
	}
	f2d_world_stats st;
	f2d_world_get_stats(s.w, &st);
	ck_assert_int_eq(st.body_count, 5);
	ck_assert_int_eq(st.shape_count, 5);
	ck_assert_int_eq(st.joint_count, 1);
	ck_assert_int_ge(st.arbiter_count, 4);
	ck_assert_int_ge(st.contact_point_count, 4);
	return s;
}

/* ---- NULL arguments ---- */

START_TEST(test_null_arguments)
{
	f2d_world_def wd = f2d_default_world_def();
	f2d_world *out_w = (f2d_world *)&wd; /* sentinel: must not be overwritten */
	ck_assert_int_eq(f2d_create_world(NULL, &out_w), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_ptr_eq(out_w, (f2d_world *)&wd);
	ck_assert_int_eq(f2d_create_world(&wd, NULL), F2D_ERROR_NULL_ARGUMENT);

	scene s = make_scene();
	f2d_world *w = s.w;
	f2d_body_def bd = f2d_default_body_def();
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon box;
	CHECK_OK(f2d_make_box(F2D_ONE, F2D_ONE, &box));
	f2d_circle circle = {{0, 0}, F2D_ONE};
	f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
	CHECK_OK(f2d_init_revolute_joint_def(w, s.b, s.c, vec(F2D_ONE, F2D_ONE), &jd));
	f2d_body_id bid = sentinel_body;
	f2d_shape_id sid = sentinel_shape;
	f2d_joint_id jid = sentinel_joint;

	/* no world: nothing to record the error in */
	ck_assert_int_eq(f2d_create_body(NULL, &bd, &bid), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_create_polygon_shape(NULL, s.a, &sd, &box, &sid),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_create_circle_shape(NULL, s.a, &sd, &circle, &sid),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_create_revolute_joint(NULL, &jd, &jid), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_destroy_body(NULL, s.a), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_destroy_shape(NULL, s.box_a), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_destroy_joint(NULL, s.joint), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_body_set_linear_velocity(NULL, s.a, vec(0, 0)),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_body_apply_force(NULL, s.a, vec(F2D_ONE, 0), vec(0, 0)),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_set_gravity(NULL, vec(0, 0)), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_step(NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_init_revolute_joint_def(NULL, s.a, s.b, vec(0, 0), &jd),
	                 F2D_ERROR_NULL_ARGUMENT);
	f2d_destroy_world(NULL); /* must not crash */
	ck_assert_uint_eq(f2d_world_hash(NULL), 0);
	ck_assert_ptr_nonnull(f2d_world_last_error(NULL));
	ck_assert(!f2d_body_is_valid(NULL, s.a));
	ck_assert(!f2d_shape_is_valid(NULL, s.box_a));
	ck_assert(!f2d_joint_is_valid(NULL, s.joint));
	f2d_world_get_stats(NULL, NULL);
	f2d_world_stats st;
	f2d_world_get_stats(NULL, &st);
	f2d_world_get_stats(w, NULL);
	ck_assert(body_id_eq(bid, sentinel_body));
	ck_assert(shape_id_eq(sid, sentinel_shape));
	ck_assert(joint_id_eq(jid, sentinel_joint));

	/* NULL def / out / geometry on a live world */
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_body(w, NULL, &bid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_body(w, &bd, NULL));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_polygon_shape(w, s.a, NULL, &box, &sid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_polygon_shape(w, s.a, &sd, NULL, &sid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_polygon_shape(w, s.a, &sd, &box, NULL));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	            f2d_create_circle_shape(w, s.a, NULL, &circle, &sid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_circle_shape(w, s.a, &sd, NULL, &sid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	            f2d_create_circle_shape(w, s.a, &sd, &circle, NULL));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_revolute_joint(w, NULL, &jid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_revolute_joint(w, &jd, NULL));
	EXPECT_CONST_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	                  f2d_init_revolute_joint_def(w, s.a, s.b, vec(0, 0), NULL));
	f2d_vec2 pa, pb;
	EXPECT_CONST_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	                  f2d_joint_get_world_anchors(w, s.joint, NULL, &pb));
	EXPECT_CONST_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	                  f2d_joint_get_world_anchors(w, s.joint, &pa, NULL));
	ck_assert(body_id_eq(bid, sentinel_body));
	ck_assert(shape_id_eq(sid, sentinel_shape));
	ck_assert(joint_id_eq(jid, sentinel_joint));

	/* geometry builders */
	f2d_vec2 tri[3] = {{0, 0}, {F2D_ONE, 0}, {0, F2D_ONE}};
	ck_assert_int_eq(f2d_make_polygon(NULL, 3, &box), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_make_polygon(tri, 3, NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_make_box(F2D_ONE, F2D_ONE, NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(0, 0), f2d_make_rot(0), NULL),
	                 F2D_ERROR_NULL_ARGUMENT);

	/* the world still works */
	CHECK_OK(f2d_world_step(w));
	f2d_destroy_world(w);
}
END_TEST

/* ---- world definitions ---- */

static void *dummy_alloc(size_t size, void *context)
{
	(void)context;
	return malloc(size);
}
static void dummy_free(void *p, size_t size, void *context)
{
	(void)size;
	(void)context;
	free(p);
}

static const char *const bad_world_defs[] = {
    "time_step 0",
    "time_step negative",
    "time_step > 1/10",
    "time_step 1 s",
    "time_step < 1/1000",
    "iterations 0",
    "iterations 101",
    "iterations -1",
    "joint_position_iterations -1",
    "joint_position_iterations 21",
    "bias_factor < 0",
    "bias_factor > 1",
    "allocator alloc without free",
    "allocator free without alloc",
    "gravity beyond 1000",
    "linear_slop < 0",
    "body_capacity < 0",
};
#define N_BAD_WORLD_DEFS ((int)(sizeof bad_world_defs / sizeof bad_world_defs[0]))

/* Applies bad_world_defs[i] to d. */
static void break_world_def(int i, f2d_world_def *d)
{
	switch (i) {
	case 0: d->time_step = 0; break;
	case 1: d->time_step = -1092; break;
	case 2: d->time_step = 6554 + 1; break;
	case 3: d->time_step = F2D_ONE; break;
	case 4: d->time_step = 64; break;
	case 5: d->iterations = 0; break;
	case 6: d->iterations = 101; break;
	case 7: d->iterations = -1; break;
	case 8: d->joint_position_iterations = -1; break;
	case 9: d->joint_position_iterations = 21; break;
	case 10: d->bias_factor = -1; break;
	case 11: d->bias_factor = F2D_ONE + 1; break;
	case 12: d->allocator.alloc = dummy_alloc, d->allocator.free = NULL; break;
	case 13: d->allocator.alloc = NULL, d->allocator.free = dummy_free; break;
	case 14: d->gravity.y = F2D_FIX(-1001); break;
	case 15: d->linear_slop = -1; break;
	case 16: d->body_capacity = -1; break;
	default: ck_abort_msg("no world def case %d", i); break;
	}
}

START_TEST(test_world_def_ranges)
{
	f2d_world_def good = f2d_default_world_def();
	ck_assert_ptr_null(f2d_world_def_problem(&good));
	ck_assert_ptr_nonnull(f2d_world_def_problem(NULL));
	for (int i = 0; i < N_BAD_WORLD_DEFS; ++i) {
		f2d_world_def d = f2d_default_world_def();
		break_world_def(i, &d);
		f2d_world *w = (f2d_world *)&d; /* sentinel */
		f2d_result r = f2d_create_world(&d, &w);
		ck_assert_msg(r == F2D_ERROR_INVALID_VALUE, "world def '%s': got %d (%s)",
		              bad_world_defs[i], (int)r, f2d_error_string(r));
		ck_assert_msg(w == (f2d_world *)&d, "world def '%s': out was written on failure",
		              bad_world_defs[i]);
		const char *problem = f2d_world_def_problem(&d);
		ck_assert_msg(problem != NULL && problem[0] != '\0',
		              "world def '%s': f2d_world_def_problem gave no message",
		              bad_world_defs[i]);
	}
	/* the edges of the ranges are accepted */
	for (int i = 0; i < 8; ++i) {
		f2d_world_def d = f2d_default_world_def();
		switch (i) {
		case 6: d.joint_position_iterations = 0; break;
		case 7: d.joint_position_iterations = 20; break;
		case 0: d.time_step = 6554; break; /* 1/10 s rounded */
		case 1: d.time_step = 66; break;   /* just above 1/1000 s */
		case 2: d.iterations = 1; break;
		case 3: d.iterations = 100; break;
		case 4: d.bias_factor = 0; break;
		default:
			d.bias_factor = F2D_ONE;
			d.allocator.alloc = NULL;
			d.allocator.free = NULL;
			break;
		}
		ck_assert_msg(f2d_world_def_problem(&d) == NULL, "edge case %d: %s", i,
		              f2d_world_def_problem(&d));
		f2d_world *w = NULL;
		CHECK_OK(f2d_create_world(&d, &w));
		CHECK_OK(f2d_world_step(w));
		f2d_destroy_world(w);
	}
}
END_TEST

START_TEST(test_world_set_gravity_range)
{
	scene s = make_scene();
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_world_set_gravity(s.w, vec(F2D_FIX(1001), 0)));
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_world_set_gravity(s.w, vec(0, F2D_FIX(-1001))));
	ck_assert_int_eq(f2d_world_get_gravity(s.w).y, F2D_FIX(-10));
	f2d_destroy_world(s.w);
}
END_TEST

/* ---- bodies ---- */

START_TEST(test_bad_body_defs)
{
	scene s = make_scene();
	for (int i = 0; i < 13; ++i) {
		f2d_body_def bd = f2d_default_body_def();
		bd.type = F2D_DYNAMIC_BODY;
		const char *what = "?";
		switch (i) {
		case 0: bd.type = (f2d_body_type)7, what = "type 7"; break;
		case 1: bd.type = (f2d_body_type)-1, what = "type -1"; break;
		case 2: bd.position.x = F2D_WORLD_LIMIT + 1, what = "x beyond the limit"; break;
		case 3: bd.position.y = -F2D_WORLD_LIMIT - 1, what = "y below the limit"; break;
		case 4: bd.position.x = INT32_MIN, what = "x INT32_MIN"; break;
		case 5: bd.rotation.c = 0, bd.rotation.s = 0, what = "rotation (0, 0)"; break;
		case 6:
			bd.rotation.c = F2D_FIX(2), bd.rotation.s = 0, what = "rotation (2, 0)";
			break;
		case 7: bd.rotation.c = F2D_MILLI(700), what = "rotation (0.7, 0)"; break;
		case 8: bd.linear_velocity.x = F2D_FIX(4097), what = "vx 4097"; break;
		case 9: bd.linear_velocity.y = INT32_MIN, what = "vy INT32_MIN"; break;
		case 10: bd.angular_velocity = F2D_FIX(-5000), what = "w -5000"; break;
		case 11:
			bd.type = F2D_STATIC_BODY, bd.linear_velocity.x = INT32_MAX;
			what = "static body with vx INT32_MAX";
			break;
		default:
			bd.type = F2D_KINEMATIC_BODY, bd.angular_velocity = INT32_MAX;
			what = "kinematic body with w INT32_MAX";
			break;
		}
		f2d_body_id id = sentinel_body;
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what, f2d_create_body(s.w, &bd, &id));
		ck_assert_msg(body_id_eq(id, sentinel_body), "%s: out written on failure", what);
	}
	/* the edges are accepted */
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = vec(-F2D_WORLD_LIMIT, F2D_WORLD_LIMIT);
	bd.linear_velocity = vec(F2D_FIX(4096), F2D_FIX(-4096));
	bd.rotation = f2d_make_rot(F2D_MILLI(1000));
	f2d_body_id id;
	CHECK_OK(f2d_create_body(s.w, &bd, &id));
	ck_assert(f2d_body_is_valid(s.w, id));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_bad_body_setters)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_transform(w, s.a, vec(F2D_WORLD_LIMIT + 1, 0), f2d_make_rot(0)));
	f2d_rot zero_rot = {0, 0};
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_transform(w, s.a, vec(0, 0), zero_rot));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_linear_velocity(w, s.a, vec(F2D_FIX(4097), 0)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_linear_velocity(w, s.a, vec(0, INT32_MIN)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE, f2d_body_set_angular_velocity(w, s.a, INT32_MAX));
	f2d_destroy_world(w);
}
END_TEST

/* A rotation of two INT32_MIN components: |q|^2 = 2^63 does not fit in int64 (each of these
 * is its own test so that a sanitizer abort names the call). */
START_TEST(test_body_def_rotation_int32_min)
{
	scene s = make_scene();
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.rotation.c = INT32_MIN;
	bd.rotation.s = INT32_MIN;
	f2d_body_id id = sentinel_body;
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE, f2d_create_body(s.w, &bd, &id));
	ck_assert(body_id_eq(id, sentinel_body));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_set_transform_rotation_int32_min)
{
	scene s = make_scene();
	f2d_rot min_rot = {INT32_MIN, INT32_MIN};
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_transform(s.w, s.a, vec(0, 0), min_rot));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_offset_box_rotation_int32_min)
{
	f2d_rot min_rot = {INT32_MIN, INT32_MIN};
	f2d_polygon p;
	ck_assert_int_eq(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(0, 0), min_rot, &p),
	                 F2D_ERROR_INVALID_VALUE);
}
END_TEST

/* ---- geometry ---- */

START_TEST(test_bad_boxes)
{
	const fix16_t bad[] = {0,
	                       -1,
	                       F2D_FIX(-1),
	                       INT32_MIN,
	                       F2D_MIN_SHAPE_SIZE - 1,
	                       F2D_MAX_SHAPE_EXTENT + 1,
	                       F2D_FIX(513),
	                       INT32_MAX};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
		f2d_polygon p;
		f2d_result r = f2d_make_box(bad[i], F2D_ONE, &p);
		ck_assert_msg(r == F2D_ERROR_INVALID_VALUE, "make_box(hx = %d): got %d",
		              (int)bad[i], (int)r);
		r = f2d_make_box(F2D_ONE, bad[i], &p);
		ck_assert_msg(r == F2D_ERROR_INVALID_VALUE, "make_box(hy = %d): got %d",
		              (int)bad[i], (int)r);
	}
	f2d_polygon p;
	CHECK_OK(f2d_make_box(F2D_MIN_SHAPE_SIZE, F2D_MAX_SHAPE_EXTENT, &p));
	ck_assert_int_eq(p.count, 4);
	/* offset boxes: centre too far, non-unit rotations */
	f2d_rot zero_rot = {0, 0}, two_rot = {F2D_FIX(2), 0};
	ck_assert_int_eq(
	    f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(F2D_FIX(513), 0), f2d_make_rot(0), &p),
	    F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(0, 0), zero_rot, &p),
	                 F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(0, 0), two_rot, &p),
	                 F2D_ERROR_INVALID_VALUE);
	/* a box whose corners leave the 512 m extent (either code describes it) */
	f2d_result r = f2d_make_offset_box(F2D_FIX(10), F2D_FIX(10), vec(F2D_FIX(505), 0),
	                                   f2d_make_rot(0), &p);
	ck_assert_msg(r == F2D_ERROR_BAD_POLYGON || r == F2D_ERROR_INVALID_VALUE,
	              "offset box beyond 512 m: got %d", (int)r);
}
END_TEST

typedef struct polygon_case {
	const char *name;
	int32_t count;
	f2d_vec2 points[10];
} polygon_case;

#define M(x) F2D_MILLI(x)
#define F(x) F2D_FIX(x)

static const polygon_case bad_polygons[] = {
    {"2 points", 2, {{0, 0}, {F(1), 0}}},
    {"0 points", 0, {{0, 0}}},
    {"negative count", -3, {{0, 0}}},
    {"9 points",
     9,
     {{F(2), 0},
      {M(1532), M(1286)},
      {M(347), M(1970)},
      {M(-1000), M(1732)},
      {M(-1879), M(684)},
      {M(-1879), M(-684)},
      {M(-1000), M(-1732)},
      {M(347), M(-1970)},
      {M(1532), M(-1286)}}},
    {"clockwise square", 4, {{0, 0}, {0, F(1)}, {F(1), F(1)}, {F(1), 0}}},
    {"clockwise triangle", 3, {{0, 0}, {0, F(1)}, {F(1), 0}}},
    {"dart (non-convex)", 4, {{0, 0}, {F(2), F(-1)}, {F(1), 0}, {F(2), F(1)}}},
    {"arrow (non-convex)",
     7,
     {{0, M(-250)},
      {F(1), M(-250)},
      {F(1), M(-750)},
      {F(2), 0},
      {F(1), M(750)},
      {F(1), M(250)},
      {0, M(250)}}},
    {"collinear middle point", 4, {{0, 0}, {F(1), 0}, {F(2), 0}, {F(1), F(1)}}},
    {"nearly collinear point (0.5 mm)", 4, {{0, 0}, {F(1), -33}, {F(2), 0}, {F(1), F(1)}}},
    {"all points collinear", 3, {{0, 0}, {F(1), 0}, {F(2), 0}}},
    {"duplicate point", 4, {{0, 0}, {F(1), 0}, {F(1), 0}, {0, F(1)}}},
    {"duplicate first/last", 4, {{0, 0}, {F(1), 0}, {0, F(1)}, {0, 0}}},
    {"edge shorter than 5 mm", 3, {{0, 0}, {M(4), 0}, {0, F(1)}}},
    {"bow-tie", 4, {{0, 0}, {F(1), 0}, {0, F(1)}, {F(1), F(1)}}},
    {"pentagram (winds twice)",
     5,
     {{0, F(1)}, {M(-588), M(-809)}, {M(951), M(309)}, {M(-951), M(309)}, {M(588), M(-809)}}},
    {"point beyond 512 m", 3, {{0, 0}, {F(513), 0}, {0, F(1)}}},
    {"point below -512 m", 3, {{0, F(-513)}, {F(1), 0}, {0, F(1)}}},
    {"INT32_MIN point", 3, {{INT32_MIN, INT32_MIN}, {F(1), 0}, {0, F(1)}}},
    {"INT32_MAX point", 3, {{0, 0}, {INT32_MAX, 0}, {0, INT32_MAX}}},
};
#define N_BAD_POLYGONS ((int)(sizeof bad_polygons / sizeof bad_polygons[0]))

START_TEST(test_bad_polygons)
{
	for (int i = 0; i < N_BAD_POLYGONS; ++i) {
		f2d_polygon p;
		memset(&p, 0x5a, sizeof p);
		f2d_result r = f2d_make_polygon(bad_polygons[i].points, bad_polygons[i].count, &p);
		ck_assert_msg(r == F2D_ERROR_BAD_POLYGON, "make_polygon '%s': got %d (%s)",
		              bad_polygons[i].name, (int)r, f2d_error_string(r));
		ck_assert_msg(p.count == 0x5a5a5a5a, "make_polygon '%s': out written on failure",
		              bad_polygons[i].name);
	}
	/* the good ones: CCW square, 8-gon, triangle at the 512 m extent */
	f2d_vec2 square[4] = {{0, 0}, {F(1), 0}, {F(1), F(1)}, {0, F(1)}};
	f2d_vec2 big[3] = {{F(-512), F(-512)}, {F(512), F(-512)}, {0, F(512)}};
	f2d_vec2 octagon[8] = {{F(2), 0},  {M(1414), M(1414)},   {0, F(2)},  {M(-1414), M(1414)},
	                       {F(-2), 0}, {M(-1414), M(-1414)}, {0, F(-2)}, {M(1414), M(-1414)}};
	f2d_polygon p;
	CHECK_OK(f2d_make_polygon(square, 4, &p));
	ck_assert_int_eq(p.count, 4);
	CHECK_OK(f2d_make_polygon(big, 3, &p));
	CHECK_OK(f2d_make_polygon(octagon, 8, &p));
	ck_assert_int_eq(p.count, 8);
}
END_TEST

START_TEST(test_hand_filled_polygons)
{
	scene s = make_scene();
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon good;
	CHECK_OK(f2d_make_box(F2D_MILLI(250), F2D_MILLI(250), &good));
	for (int i = 0; i < N_BAD_POLYGONS; ++i) {
		if (bad_polygons[i].count < 0 || bad_polygons[i].count > F2D_MAX_POLYGON_VERTICES) {
			continue;
		}
		f2d_polygon p = good;
		p.count = bad_polygons[i].count;
		for (int32_t k = 0; k < p.count; ++k) {
			p.vertices[k] = bad_polygons[i].points[k];
		}
		f2d_shape_id sid = sentinel_shape;
		EXPECT_FAIL_AS(s.w, F2D_ERROR_BAD_POLYGON, bad_polygons[i].name,
		               f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
		EXPECT_FAIL_AS(s.w, F2D_ERROR_BAD_POLYGON, bad_polygons[i].name,
		               f2d_create_polygon_shape(s.w, s.ground, &sd, &p, &sid));
		ck_assert(shape_id_eq(sid, sentinel_shape));
	}
	/* a valid box edited into a dart: vertex 2 pulled inside */
	f2d_polygon dart = good;
	dart.vertices[2] = vec(0, 0);
	f2d_shape_id sid;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON,
	            f2d_create_polygon_shape(s.w, s.a, &sd, &dart, &sid));
	/* vertex counts the struct cannot hold */
	f2d_polygon p = good;
	p.count = 9;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	p.count = INT32_MAX;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	p.count = -1;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	p.count = 2;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	/* reversed (clockwise) copy of the good box */
	p = good;
	for (int k = 0; k < 4; ++k) {
		p.vertices[k] = good.vertices[3 - k];
	}
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_bad_materials)
{
	scene s = make_scene();
	f2d_polygon box;
	CHECK_OK(f2d_make_box(F2D_MILLI(250), F2D_MILLI(250), &box));
	f2d_circle circle = {{0, 0}, F2D_MILLI(250)};
	for (int i = 0; i < 8; ++i) {
		f2d_shape_def sd = f2d_default_shape_def();
		const char *what = "?";
		switch (i) {
		case 0: sd.density = 0, what = "density 0"; break;
		case 1: sd.density = F2D_FIX(-1), what = "density -1"; break;
		case 2: sd.density = INT32_MIN, what = "density INT32_MIN"; break;
		case 3: sd.friction = -1, what = "friction -1 LSB"; break;
		case 4: sd.friction = F2D_FIX(4) + 1, what = "friction 4 + 1 LSB"; break;
		case 5: sd.restitution = -1, what = "restitution -1 LSB"; break;
		case 6: sd.restitution = F2D_ONE + 1, what = "restitution 1 + 1 LSB"; break;
		default: sd.friction = INT32_MAX, what = "friction INT32_MAX"; break;
		}
		f2d_shape_id sid = sentinel_shape;
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_polygon_shape(s.w, s.a, &sd, &box, &sid));
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_circle_shape(s.w, s.a, &sd, &circle, &sid));
		/* static bodies have no mass, but the material is still checked */
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_polygon_shape(s.w, s.ground, &sd, &box, &sid));
		ck_assert(shape_id_eq(sid, sentinel_shape));
	}
	/* the edges of the ranges are accepted */
	f2d_shape_def sd = f2d_default_shape_def();
	sd.friction = F2D_FIX(4);
	sd.restitution = F2D_ONE;
	f2d_shape_id sid;
	CHECK_OK(f2d_create_polygon_shape(s.w, s.a, &sd, &box, &sid));
	sd.friction = 0;
	sd.restitution = 0;
	CHECK_OK(f2d_create_circle_shape(s.w, s.a, &sd, &circle, &sid));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_bad_circles)
{
	scene s = make_scene();
	f2d_shape_def sd = f2d_default_shape_def();
	const f2d_circle bad[] = {
	    {{0, 0}, 0},
	    {{0, 0}, F2D_FIX(-1)},
	    {{0, 0}, INT32_MIN},
	    {{0, 0}, F2D_MIN_SHAPE_SIZE - 1},
	    {{0, 0}, F2D_MAX_SHAPE_EXTENT + 1},
	    {{0, 0}, INT32_MAX},
	    {{F2D_FIX(513), 0}, F2D_ONE},
	    {{0, INT32_MIN}, F2D_ONE},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
		char what[96];
		snprintf(what, sizeof what, "circle #%zu (centre %d, %d, radius %d)", i,
		         (int)bad[i].center.x, (int)bad[i].center.y, (int)bad[i].radius);
		f2d_shape_id sid = sentinel_shape;
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_circle_shape(s.w, s.ground, &sd, &bad[i], &sid));
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_circle_shape(s.w, s.a, &sd, &bad[i], &sid));
		ck_assert(shape_id_eq(sid, sentinel_shape));
	}
	/* types.h: "circle extents of any shape: within F2D_MAX_SHAPE_EXTENT of the body origin".
	 * A circle reaching 1024 m from the origin is refused even on a static body ... */
	f2d_circle huge = {{0, F2D_FIX(-600)}, F2D_MAX_SHAPE_EXTENT};
	f2d_shape_id sid;
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_create_circle_shape(s.w, s.ground, &sd, &huge, &sid));
	huge.center.y = F2D_FIX(-512);
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_create_circle_shape(s.w, s.ground, &sd, &huge, &sid));
	/* ... and one reaching exactly 512 m is fine */
	huge.center.y = F2D_FIX(-256);
	huge.radius = F2D_FIX(256);
	CHECK_OK(f2d_create_circle_shape(s.w, s.ground, &sd, &huge, &sid));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_mass_range)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	/* a fresh dynamic body without shapes */
	f2d_body_id body = add_body(w, F2D_DYNAMIC_BODY, F2D_FIX(10), F2D_FIX(5));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id sid = sentinel_shape;
	f2d_polygon p;

	/* 1 cm x 1 cm at density 1: 1e-4 kg < 2^-8 kg */
	CHECK_OK(f2d_make_box(F2D_MILLI(5), F2D_MILLI(5), &p));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	f2d_circle tiny = {{0, 0}, F2D_MILLI(5)};
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_circle_shape(w, body, &sd, &tiny, &sid));

	/* 32 m x 32 m at density 32: 32768 kg > 16384 kg */
	CHECK_OK(f2d_make_box(F2D_FIX(16), F2D_FIX(16), &p));
	sd.density = F2D_FIX(32);
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	/* 2 m x 2 m at the largest density: 131068 kg */
	CHECK_OK(f2d_make_box(F2D_ONE, F2D_ONE, &p));
	sd.density = F2D_FIX(32767);
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));

	/* mass in range, inertia too large: 32 m box at density 1 (1024 kg, I = 174763 kg m^2) */
	CHECK_OK(f2d_make_box(F2D_FIX(16), F2D_FIX(16), &p));
	sd.density = F2D_ONE;
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	/* mass in range, inertia too small: 5 mm circle at density 32767 (2.6 kg, 3e-5 kg m^2) */
	sd.density = F2D_FIX(32767);
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_circle_shape(w, body, &sd, &tiny, &sid));

	/* shapes farther than 32 m from the origin of a dynamic body */
	sd = f2d_default_shape_def();
	CHECK_OK(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(F2D_FIX(40), 0), f2d_make_rot(0), &p));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	CHECK_OK(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(F2D_FIX(31), 0), f2d_make_rot(0), &p));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	f2d_circle far = {{F2D_FIX(31), 0}, F2D_FIX(2)};
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_circle_shape(w, body, &sd, &far, &sid));
	/* ... also on a body that already has a shape */
	CHECK_OK(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(F2D_FIX(40), 0), f2d_make_rot(0), &p));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, s.a, &sd, &p, &sid));
	/* ... and a second shape that pushes the total over the mass limit */
	f2d_polygon heavy;
	CHECK_OK(f2d_make_box(F2D_ONE, F2D_ONE, &heavy)); /* 4 m^2 */
	sd.density = F2D_FIX(3200);                       /* 12800 kg, I = 8533 kg m^2 */
	CHECK_OK(f2d_create_polygon_shape(w, body, &sd, &heavy, &sid));
	ck_assert_int_eq(f2d_body_get_mass(w, body), F2D_FIX(12800));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &heavy, &sid));
	ck_assert_int_eq(f2d_body_get_mass(w, body), F2D_FIX(12800));

	/* the same far / light / heavy shapes are fine on a static body (no mass) */
	sd = f2d_default_shape_def();
	CHECK_OK(f2d_create_polygon_shape(w, s.ground, &sd, &p, &sid));
	CHECK_OK(f2d_create_circle_shape(w, s.ground, &sd, &tiny, &sid));
	f2d_destroy_world(w);
}
END_TEST

/* ---- handles ---- */

/* Every body-taking call must refuse `id` with INVALID_HANDLE and leave the world unchanged. */
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
	f2d_body_id fresh = add_body(w, F2D_DYNAMIC_BODY, F2D_FIX(2), F2D_MILLI(500));
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
		last = add_body(big, F2D_DYNAMIC_BODY, F2D_FIX(i), 0);
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
		ids[i] = add_body(w, F2D_DYNAMIC_BODY, F2D_FIX(i), F2D_FIX(i % 3));
		add_box(w, ids[i], F2D_MILLI(400), F2D_MILLI(400));
	}
	CHECK_OK(f2d_destroy_body(w, ids[1]));
	CHECK_OK(f2d_destroy_body(w, ids[4]));
	CHECK_OK(f2d_destroy_body(w, ids[2]));
	ids[n] = add_body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(-3));     /* reuses 2 (last freed) */
	ids[n + 1] = add_body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(-6)); /* reuses 4 */
	add_circle(w, ids[n + 1], F2D_MILLI(300));
	CHECK_OK(f2d_world_step(w));
	CHECK_OK(f2d_destroy_body(w, ids[0]));
	ids[n + 2] = add_body(w, F2D_KINEMATIC_BODY, F2D_FIX(3), 0); /* reuses 0 */
	ids[n + 3] = add_body(w, F2D_STATIC_BODY, F2D_FIX(3), 0);    /* reuses 1 */
	ids[n + 4] = add_body(w, F2D_STATIC_BODY, F2D_FIX(3), 0);    /* new */
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
	f2d_body_id ground2 = add_body(w, F2D_STATIC_BODY, F2D_FIX(30), 0);
	f2d_body_id dead = add_body(w, F2D_DYNAMIC_BODY, F2D_FIX(-30), 0);
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
	f2d_body_id light = add_body(w, F2D_DYNAMIC_BODY, F2D_FIX(-8), F2D_FIX(3));
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
		f2d_body_id light = add_body(w, F2D_DYNAMIC_BODY, 0, 0);
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
		f2d_body_id light = add_body(w, F2D_DYNAMIC_BODY, 0, 0);
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
	f2d_body_id filler = add_body(w, F2D_DYNAMIC_BODY, 0, 0); /* so the runner is not id 1 */
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

/* A call of the build sequence: OK, or OUT_OF_MEMORY with the world unchanged (then stop). */
#define OOM_CALL(kind, call)                                                                       \
	do {                                                                                       \
		uint64_t h_ = f2d_world_hash(w);                                                   \
		w->error[0] = '\0';                                                                \
		f2d_result r_ = (call);                                                            \
		if (r_ == F2D_ERROR_OUT_OF_MEMORY) {                                               \
			check_failure(w, h_, r_, F2D_ERROR_OUT_OF_MEMORY, #call, __LINE__);        \
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
	CHECK_OK(f2d_destroy_body(w, bodies[3]));
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

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("bad input");
	tcase_add_test(tc, test_null_arguments);
	tcase_add_test(tc, test_world_def_ranges);
	tcase_add_test(tc, test_world_set_gravity_range);
	tcase_add_test(tc, test_bad_body_defs);
	tcase_add_test(tc, test_bad_body_setters);
	tcase_add_test(tc, test_body_def_rotation_int32_min);
	tcase_add_test(tc, test_set_transform_rotation_int32_min);
	tcase_add_test(tc, test_offset_box_rotation_int32_min);
	tcase_add_test(tc, test_bad_boxes);
	tcase_add_test(tc, test_bad_polygons);
	tcase_add_test(tc, test_hand_filled_polygons);
	tcase_add_test(tc, test_bad_materials);
	tcase_add_test(tc, test_bad_circles);
	tcase_add_test(tc, test_mass_range);
	suite_add_tcase(s, tc);

	tc = tcase_create("handles");
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
	tcase_add_test(tc, test_error_strings);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(api_suite());
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
