/* fix2d tests: what tests/test_api.c and tests/test_api_runtime.c share: the failure checks
 * (code, message, unchanged hash) and a small scene with contacts and a joint.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_TESTS_API_COMMON_H
#define FIX2D_TESTS_API_COMMON_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fix2d/fix2d.h"

/* ---- helpers ---- */

#include "test_common.h"

static inline void check_failure(f2d_world *w, uint64_t hash_before, f2d_result got,
                                 f2d_result want, const char *what, int line)
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

static inline bool body_id_eq(f2d_body_id a, f2d_body_id b)
{
	return a.index1 == b.index1 && a.generation == b.generation;
}
static inline bool shape_id_eq(f2d_shape_id a, f2d_shape_id b)
{
	return a.index1 == b.index1 && a.generation == b.generation;
}
static inline bool joint_id_eq(f2d_joint_id a, f2d_joint_id b)
{
	return a.index1 == b.index1 && a.generation == b.generation;
}

static inline f2d_vec2 vec(fix16_t x, fix16_t y)
{
	f2d_vec2 v = {x, y};
	return v;
}

static inline f2d_world *make_world(void)
{
	f2d_world_def def = f2d_default_world_def();
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&def, &w));
	ck_assert_ptr_nonnull(w);
	return w;
}

static inline f2d_body_id add_body_xy(f2d_world *w, f2d_body_type type, fix16_t x, fix16_t y)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position = vec(x, y);
	f2d_body_id id = sentinel_body;
	CHECK_OK(f2d_create_body(w, &bd, &id));
	ck_assert(f2d_body_is_valid(w, id));
	return id;
}

static inline f2d_shape_id add_box(f2d_world *w, f2d_body_id body, fix16_t hx, fix16_t hy)
{
	f2d_polygon box;
	CHECK_OK(f2d_make_box(hx, hy, &box));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id id = sentinel_shape;
	CHECK_OK(f2d_create_polygon_shape(w, body, &sd, &box, &id));
	ck_assert(f2d_shape_is_valid(w, id));
	return id;
}

static inline f2d_shape_id add_circle(f2d_world *w, f2d_body_id body, fix16_t radius)
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

static inline scene make_scene(void)
{
	scene s;
	s.w = make_world();
	s.ground = add_body_xy(s.w, F2D_STATIC_BODY, 0, F2D_MILLI(-500));
	add_box(s.w, s.ground, F2D_FIX(20), F2D_MILLI(500));
	s.a = add_body_xy(s.w, F2D_DYNAMIC_BODY, F2D_FIX(-2), F2D_MILLI(500));
	s.box_a = add_box(s.w, s.a, F2D_MILLI(500), F2D_MILLI(500));
	s.b = add_body_xy(s.w, F2D_DYNAMIC_BODY, F2D_FIX(0), F2D_MILLI(500));
	add_box(s.w, s.b, F2D_MILLI(500), F2D_MILLI(500));
	s.c = add_body_xy(s.w, F2D_DYNAMIC_BODY, F2D_FIX(2), F2D_MILLI(500));
	add_box(s.w, s.c, F2D_MILLI(500), F2D_MILLI(500));
	s.wheel = add_body_xy(s.w, F2D_DYNAMIC_BODY, F2D_FIX(4), F2D_MILLI(500));
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

#endif
