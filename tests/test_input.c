/* fix2d tests: the deterministic input layer (fix2d/input.h).
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fmath.h" /* f2d_v */
#include "fix2d/fix2d.h"
#include "fix2d/input.h"
#include "fix2d/scenes.h"

static f2d_world *scene(const char *name)
{
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create(name, NULL, &w), F2D_OK);
	return w;
}

static f2d_body_id body_n(f2d_world *w, int32_t n)
{
	f2d_body_id ids[64];
	ck_assert_int_gt(f2d_world_get_bodies(w, ids, 64), n);
	return ids[n];
}

/* A frame with one command of each kind that changes the world. */
static int32_t sample_frame(f2d_world *w, f2d_command *c)
{
	int32_t n = 0;
	c[n] = f2d_default_command(F2D_CMD_APPLY_IMPULSE, 1, 0);
	c[n].u.push.body = body_n(w, 3);
	c[n].u.push.vector = f2d_v(F2D_FIX(2), F2D_FIX(5));
	c[n].u.push.point = f2d_body_get_position(w, body_n(w, 3));
	++n;
	c[n] = f2d_default_command(F2D_CMD_APPLY_FORCE, 0, 7);
	c[n].u.push.body = body_n(w, 5);
	c[n].u.push.vector = f2d_v(F2D_FIX(-30), 0);
	c[n].u.push.point = f2d_body_get_position(w, body_n(w, 5));
	++n;
	c[n] = f2d_default_command(F2D_CMD_SET_VELOCITY, 2, 1);
	c[n].u.velocity.body = body_n(w, 7);
	c[n].u.velocity.linear = f2d_v(F2D_FIX(1), F2D_FIX(3));
	c[n].u.velocity.angular = F2D_MILLI(500);
	++n;
	c[n] = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 2);
	c[n].u.create.body.position = f2d_v(F2D_FIX(3), F2D_FIX(12));
	++n;
	c[n] = f2d_default_command(F2D_CMD_CREATE_BODY, 1, 3);
	c[n].u.create.kind = F2D_SPAWN_CIRCLE;
	c[n].u.create.circle.radius = F2D_MILLI(300);
	c[n].u.create.body.position = f2d_v(F2D_FIX(-3), F2D_FIX(12));
	++n;
	c[n] = f2d_default_command(F2D_CMD_DESTROY_BODY, 2, 0);
	c[n].u.destroy.body = body_n(w, 9);
	++n;
	c[n] = f2d_default_command(F2D_CMD_PAYLOAD, 3, 0);
	c[n].u.payload.length = 3;
	memcpy(c[n].u.payload.bytes, "abc", 3);
	++n;
	return n;
}

START_TEST(canonical_order)
{
	f2d_world *a = scene("random_stack");
	f2d_world *b = scene("random_stack");
	f2d_command ca[16], cb[16];
	int32_t n = sample_frame(a, ca);
	sample_frame(b, cb);
	/* b gets the same frame reversed */
	for (int32_t i = 0; i < n / 2; ++i) {
		f2d_command t = cb[i];
		cb[i] = cb[n - 1 - i];
		cb[n - 1 - i] = t;
	}
	f2d_command_result ra[16], rb[16];
	uint64_t h0 = f2d_world_hash(a);
	ck_assert_int_eq(f2d_world_apply_commands(a, ca, n, ra), F2D_OK);
	ck_assert_int_eq(f2d_world_apply_commands(b, cb, n, rb), F2D_OK);
	for (int32_t i = 0; i < n; ++i) {
		ck_assert_int_eq(ra[i].result, F2D_OK);
		ck_assert_int_eq(rb[n - 1 - i].result, F2D_OK);
	}
	ck_assert_uint_ne(f2d_world_hash(a), h0);
	ck_assert_uint_eq(f2d_world_hash(a), f2d_world_hash(b));
	/* the two creations got handles in canonical order: player 0 seq 2 before player 1 */
	ck_assert_int_lt(ra[3].created.index1, ra[4].created.index1);
	ck_assert(f2d_body_is_valid(a, ra[3].created));
	for (int i = 0; i < 60; ++i) {
		f2d_world_step(a);
		f2d_world_step(b);
	}
	ck_assert_uint_eq(f2d_world_hash(a), f2d_world_hash(b));
	f2d_destroy_world(a);
	f2d_destroy_world(b);
}
END_TEST

START_TEST(batch_refusals)
{
	f2d_world *w = scene("random_stack");
	f2d_command c[16];
	int32_t n = sample_frame(w, c);
	uint64_t h0 = f2d_world_hash(w);
	c[1].player = c[0].player;
	c[1].sequence = c[0].sequence;
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n, NULL), F2D_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(f2d_world_hash(w), h0);
	ck_assert_str_ne(f2d_world_last_error(w), "");
	n = sample_frame(w, c);
	c[2].type = 99;
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n, NULL), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_world_apply_commands(w, c, -1, NULL), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_world_apply_commands(w, NULL, 2, NULL), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_world_apply_commands(w, c, F2D_MAX_FRAME_COMMANDS + 1, NULL),
	                 F2D_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(f2d_world_hash(w), h0);
	ck_assert_int_eq(f2d_world_apply_commands(NULL, c, n, NULL), F2D_ERROR_NULL_ARGUMENT);
	f2d_destroy_world(w);
}
END_TEST

/* Each refused command leaves the world exactly as it was. */
START_TEST(refused_commands_change_nothing)
{
	f2d_world *w = scene("random_stack");
	f2d_body_id gone = body_n(w, 2);
	ck_assert_int_eq(f2d_destroy_body(w, gone), F2D_OK);
	f2d_command c[8];
	int32_t n = 0;
	c[n] = f2d_default_command(F2D_CMD_APPLY_IMPULSE, 0, n);
	c[n++].u.push.body = gone; /* stale */
	c[n] = f2d_default_command(F2D_CMD_SET_VELOCITY, 0, n);
	c[n].u.velocity.body = body_n(w, 3);
	c[n].u.velocity.angular = F2D_FIX(1);           /* fine */
	c[n++].u.velocity.linear = f2d_v(INT32_MAX, 0); /* refused: both or neither */
	c[n] = f2d_default_command(F2D_CMD_CREATE_BODY, 0, n);
	c[n].u.create.kind = F2D_SPAWN_POLYGON;
	c[n].u.create.count = 3; /* clockwise triangle */
	c[n].u.create.points[0] = f2d_v(0, 0);
	c[n].u.create.points[1] = f2d_v(0, F2D_ONE);
	c[n++].u.create.points[2] = f2d_v(F2D_ONE, 0);
	c[n] = f2d_default_command(F2D_CMD_CREATE_BODY, 0, n);
	c[n++].u.create.shape.density = F2D_FIX(20000); /* 1x1 box of 20000 kg: mass range */
	c[n] = f2d_default_command(F2D_CMD_CREATE_BODY, 0, n);
	c[n++].u.create.body.position = f2d_v(F2D_FIX(9000), 0); /* outside the world */
	c[n] = f2d_default_command(F2D_CMD_SET_MOTOR, 0, n);
	c[n++].u.motor.joint.index1 = 1; /* random_stack has no joints */
	c[n] = f2d_default_command(F2D_CMD_DESTROY_BODY, 0, n);
	c[n++].u.destroy.body = gone;
	uint64_t h0 = f2d_world_hash(w);
	f2d_command_result r[8];
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n, r), F2D_OK);
	f2d_result expect[] = {F2D_ERROR_INVALID_HANDLE, F2D_ERROR_INVALID_VALUE,
	                       F2D_ERROR_BAD_POLYGON,    F2D_ERROR_MASS_RANGE,
	                       F2D_ERROR_INVALID_VALUE,  F2D_ERROR_INVALID_HANDLE,
	                       F2D_ERROR_INVALID_HANDLE};
	for (int32_t i = 0; i < n; ++i) {
		ck_assert_msg(r[i].result == expect[i], "command %d: %s", i,
		              f2d_error_string(r[i].result));
	}
	ck_assert_uint_eq(f2d_world_hash(w), h0);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(motor_command)
{
	f2d_world *w = scene("hinges80");
	f2d_joint_id j = {1, 1};
	ck_assert(f2d_joint_is_valid(w, j));
	f2d_command c = f2d_default_command(F2D_CMD_SET_MOTOR, 0, 0);
	c.u.motor.joint = j;
	c.u.motor.enable = true;
	c.u.motor.speed = F2D_FIX(3);
	c.u.motor.max_torque = F2D_FIX(10);
	uint64_t h0 = f2d_world_hash(w);
	f2d_command_result r;
	ck_assert_int_eq(f2d_world_apply_commands(w, &c, 1, &r), F2D_OK);
	ck_assert_int_eq(r.result, F2D_OK);
	ck_assert_uint_ne(f2d_world_hash(w), h0);
	c.u.motor.max_torque = -1;
	h0 = f2d_world_hash(w);
	ck_assert_int_eq(f2d_world_apply_commands(w, &c, 1, &r), F2D_OK);
	ck_assert_int_eq(r.result, F2D_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(f2d_world_hash(w), h0);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(encoding_round_trip)
{
	f2d_world *w = scene("random_stack");
	f2d_command c[16];
	int32_t n = sample_frame(w, c);
	c[n] = f2d_default_command(F2D_CMD_CREATE_BODY, 4, 9);
	c[n].u.create.kind = F2D_SPAWN_POLYGON;
	c[n].u.create.count = 3;
	c[n].u.create.points[0] = f2d_v(0, 0);
	c[n].u.create.points[1] = f2d_v(F2D_ONE, 0);
	c[n].u.create.points[2] = f2d_v(0, F2D_ONE);
	++n;
	c[n] = f2d_default_command(F2D_CMD_SET_MOTOR, 5, 65535);
	c[n].u.motor.joint.index1 = 3;
	c[n].u.motor.joint.generation = 2;
	c[n].u.motor.enable = true;
	c[n].u.motor.speed = -F2D_FIX(2);
	++n;
	uint8_t buf[F2D_COMMAND_MAX_BYTES];
	for (int32_t i = 0; i < n; ++i) {
		size_t len = 0, used = 0;
		ck_assert_int_eq(f2d_command_encode(&c[i], buf, sizeof buf, &len), F2D_OK);
		ck_assert_uint_le(len, F2D_COMMAND_MAX_BYTES);
		f2d_command d;
		ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_OK);
		ck_assert_uint_eq(used, len);
		/* decoding then encoding gives the same bytes */
		uint8_t again[F2D_COMMAND_MAX_BYTES];
		size_t len2 = 0;
		ck_assert_int_eq(f2d_command_encode(&d, again, sizeof again, &len2), F2D_OK);
		ck_assert_uint_eq(len2, len);
		ck_assert_int_eq(memcmp(buf, again, len), 0);
		ck_assert_int_eq(d.type, c[i].type);
		ck_assert_int_eq(d.player, c[i].player);
		ck_assert_int_eq(d.sequence, c[i].sequence);
		/* every shorter prefix is refused, and so is a too small output buffer */
		for (size_t k = 0; k < len; ++k) {
			ck_assert_int_eq(f2d_command_decode(buf, k, &d, &used),
			                 F2D_ERROR_INVALID_VALUE);
			ck_assert_int_eq(f2d_command_encode(&c[i], again, k, &len2),
			                 F2D_ERROR_CAPACITY);
		}
	}
	f2d_destroy_world(w);
}
END_TEST

/* The byte layout is fixed: little-endian, field by field. */
START_TEST(encoding_bytes)
{
	f2d_command c = f2d_default_command(F2D_CMD_APPLY_IMPULSE, 2, 0x0304);
	c.u.push.body.index1 = 5;
	c.u.push.body.generation = 0x01020304u;
	c.u.push.vector = f2d_v(F2D_ONE, -1);
	c.u.push.point = f2d_v(0x11223344, 0);
	const uint8_t expect[] = {2,    2,    0x04, 0x03, 5, 0, 0,    0,    0x04, 0x03,
	                          0x02, 0x01, 0,    0,    1, 0, 0xFF, 0xFF, 0xFF, 0xFF,
	                          0x44, 0x33, 0x22, 0x11, 0, 0, 0,    0};
	uint8_t buf[64];
	size_t len = 0;
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_uint_eq(len, sizeof expect);
	ck_assert_int_eq(memcmp(buf, expect, len), 0);
	/* bad encodings */
	uint8_t bad[] = {99, 0, 0, 0};
	f2d_command d;
	size_t used;
	ck_assert_int_eq(f2d_command_decode(bad, sizeof bad, &d, &used), F2D_ERROR_INVALID_VALUE);
	c = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
	c.u.create.kind = F2D_SPAWN_POLYGON;
	c.u.create.count = 9;
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_ERROR_INVALID_VALUE);
	c = f2d_default_command(F2D_CMD_PAYLOAD, 0, 0);
	c.u.payload.length = F2D_MAX_PAYLOAD + 1;
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_ERROR_INVALID_VALUE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("input");
	TCase *tc = tcase_create("commands");
	tcase_add_test(tc, canonical_order);
	tcase_add_test(tc, batch_refusals);
	tcase_add_test(tc, refused_commands_change_nothing);
	tcase_add_test(tc, motor_command);
	tcase_add_test(tc, encoding_round_trip);
	tcase_add_test(tc, encoding_bytes);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
