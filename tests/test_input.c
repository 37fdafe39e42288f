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
#include "test_rng.h"

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

/* ---- canonical encodings: one byte string per command ---- */

/* Offsets of the bytes that decide the structure of a command (input.h): the type byte of a
 * create-body command and the payload length (4), a motor's enable flag, a set-body-type's
 * type and a set-fixed-rotation's flag (12), the spawn kind
 * (61) and a polygon's point count (62). */
#define OFF_FLAGS 4
#define OFF_ENABLE 12
#define OFF_KIND 61
#define OFF_COUNT 62
/* format 2: the flags byte of the create-body extension after a box (8 bytes) or a circle (12) */
#define OFF_BOX_EXT_FLAGS (OFF_KIND + 1 + 8 + 20)
#define OFF_CIRCLE_EXT_FLAGS (OFF_KIND + 1 + 12 + 20)

START_TEST(decode_accepts_only_canonical_bytes)
{
	/* For random byte strings (biased so that every type, flag and shape kind is reached):
	 * whenever decode accepts a prefix x[0..used), encode(decode(x)) gives exactly those bytes
	 * back, so no two byte strings decode to the same command. */
	uint64_t rng = 0x5EED0011u;
	uint8_t x[F2D_COMMAND_MAX_BYTES + 16], again[F2D_COMMAND_MAX_BYTES];
	int64_t accepted[F2D_CMD_LAST + 1] = {0}, kinds[6] = {0};
	int64_t motor_off = 0, motor_on = 0, asleep = 0;
	int64_t extended = 0, sensors = 0, fixed_on = 0, fixed_off = 0, body_types[3] = {0};
	for (int32_t it = 0; it < 250000; ++it) {
		size_t len = (size_t)(test_splitmix(&rng) % sizeof x);
		for (size_t i = 0; i < len; i += 8) {
			uint64_t v = test_splitmix(&rng);
			for (size_t k = i; k < i + 8 && k < len; ++k, v >>= 8) {
				x[k] = (uint8_t)v;
			}
		}
		uint64_t bias = test_splitmix(&rng);
		if (len > 0 && (bias & 7u) != 0) {
			/* a format-1 or format-2 type, mostly (format 3: test_input_joints.c) */
			x[0] = (uint8_t)(1 + (bias >> 3) % F2D_CMD_SET_FIXED_ROTATION);
		}
		if (len > OFF_FLAGS && (bias & 0x300u) != 0) {
			/* small: a body type and the sleep bits (and, one time in four, the extension
			 * bit 128), or a short payload */
			x[OFF_FLAGS] = (uint8_t)((bias >> 10) % 64 | ((bias >> 40) % 4 == 0 ? 128u : 0u));
		}
		if (len > OFF_ENABLE && (bias & 0x10000u) != 0) {
			x[OFF_ENABLE] = (uint8_t)((bias >> 17) % 4); /* 0, 1 and two bad flags */
		}
		if (len > OFF_KIND && (bias & 0x300000u) != 0) {
			x[OFF_KIND] = (uint8_t)((bias >> 22) % 5); /* the four kinds and a bad one */
		}
		if (len > OFF_COUNT && (bias & 0x3000000u) != 0) {
			x[OFF_COUNT] = (uint8_t)(2 + (bias >> 26) % 8);
		}
		if ((bias >> 42) % 4 != 0) {
			/* the extension's flags byte of a box or circle spawn: no reserved bit */
			if (len > OFF_BOX_EXT_FLAGS) {
				x[OFF_BOX_EXT_FLAGS] &= 0x1Fu;
			}
			if (len > OFF_CIRCLE_EXT_FLAGS) {
				x[OFF_CIRCLE_EXT_FLAGS] &= 0x1Fu;
			}
		}
		f2d_command d;
		size_t used = 0, len2 = 0;
		if (f2d_command_decode(x, len, &d, &used) != F2D_OK) {
			continue;
		}
		ck_assert_uint_le(used, len);
		ck_assert_msg(f2d_command_encode(&d, again, sizeof again, &len2) == F2D_OK,
		              "iteration %d: a decoded command (type %d) does not encode", it,
		              d.type);
		ck_assert_msg(len2 == used && memcmp(again, x, used) == 0,
		              "iteration %d: type %d: %zu bytes decode to a command that encodes "
		              "to other bytes (%zu)",
		              it, d.type, used, len2);
		accepted[d.type]++;
		if (d.type == F2D_CMD_CREATE_BODY) {
			kinds[d.u.create.kind]++;
			asleep += d.u.create.body.awake ? 0 : 1;
			extended += (x[OFF_FLAGS] & 128u) != 0;
			sensors += d.u.create.shape.is_sensor ? 1 : 0;
		}
		if (d.type == F2D_CMD_SET_FIXED_ROTATION) {
			fixed_on += d.u.fixed_rotation.fixed ? 1 : 0;
			fixed_off += d.u.fixed_rotation.fixed ? 0 : 1;
		}
		if (d.type == F2D_CMD_SET_BODY_TYPE) {
			body_types[d.u.body_type.type]++;
		}
		if (d.type == F2D_CMD_SET_MOTOR) {
			motor_on += d.u.motor.enable ? 1 : 0;
			motor_off += d.u.motor.enable ? 0 : 1;
		}
	}
	/* the property was exercised on every kind of command, the format-2 ones included */
	for (int t = F2D_CMD_APPLY_FORCE; t <= F2D_CMD_SET_FIXED_ROTATION; ++t) {
		ck_assert_msg(accepted[t] >= 100, "type %d accepted only %lld times", t,
		              (long long)accepted[t]);
	}
	for (int k = 0; k < 4; ++k) {
		ck_assert_msg(kinds[k] >= 20, "spawn kind %d accepted only %lld times", k,
		              (long long)kinds[k]);
	}
	ck_assert_int_ge(motor_on, 100);
	ck_assert_int_ge(motor_off, 100);
	ck_assert_int_ge(asleep, 20);
	ck_assert_int_ge(extended, 100);
	ck_assert_int_ge(sensors, 20);
	ck_assert_int_ge(fixed_on, 100);
	ck_assert_int_ge(fixed_off, 100);
	for (int t = 0; t < 3; ++t) {
		ck_assert_int_ge(body_types[t], 30);
	}
}
END_TEST

START_TEST(encode_then_decode)
{
	/* The other direction: any command encode accepts decodes to one that encodes to the same
	 * bytes (so decode never refuses what encode writes). Random fields, including body types
	 * and bools outside their ranges. */
	uint64_t rng = 0xC0FFEEu;
	uint8_t buf[F2D_COMMAND_MAX_BYTES], again[F2D_COMMAND_MAX_BYTES];
	int64_t encoded = 0;
	for (int32_t it = 0; it < 40000; ++it) {
		f2d_command c = f2d_default_command(
		    (f2d_command_type)(1 + test_splitmix(&rng) % F2D_CMD_SET_FIXED_ROTATION),
		    (uint8_t)test_splitmix(&rng),
		    (uint16_t)test_splitmix(&rng));
		uint8_t noise[sizeof c.u];
		for (size_t i = 0; i < sizeof noise; i += 8) {
			uint64_t v = test_splitmix(&rng);
			for (size_t k = i; k < i + 8 && k < sizeof noise; ++k, v >>= 8) {
				noise[k] = (uint8_t)v;
			}
		}
		memcpy(&c.u, noise, sizeof noise); /* the bools are set below */
		/* the fields encode validates, in range half of the time */
		uint64_t bias = test_splitmix(&rng);
		if (c.type == F2D_CMD_CREATE_BODY) {
			c.u.create.body.type = (f2d_body_type)((bias & 1u) ? (bias >> 1) % 3
			                                                   : (bias >> 1) % 20);
			c.u.create.body.enable_sleep = (bias >> 8) & 1u;
			c.u.create.body.awake = (bias >> 9) & 1u;
			c.u.create.kind = (uint8_t)((bias >> 10) % 4);
			c.u.create.count = (int32_t)((bias >> 12) % 10);
			/* the extension's bools; its other fields at their defaults half of the time
			 * (then no extension is written) */
			c.u.create.shape.is_sensor = (bias >> 16) & 1u;
			c.u.create.shape.enable_contact_events = (bias >> 17) & 1u;
			c.u.create.shape.enable_hit_events = (bias >> 18) & 1u;
			c.u.create.shape.enable_sensor_events = (bias >> 19) & 1u;
			c.u.create.body.fixed_rotation = (bias >> 20) & 1u;
			if ((bias >> 21) & 1u) {
				c.u.create.shape.filter = f2d_default_filter();
				c.u.create.shape.is_sensor = false;
				c.u.create.shape.enable_contact_events = true;
				c.u.create.shape.enable_hit_events = false;
				c.u.create.shape.enable_sensor_events = true;
				c.u.create.body.fixed_rotation = false;
				c.u.create.body.gravity_scale = F2D_ONE;
				c.u.create.body.linear_damping = 0;
				c.u.create.body.angular_damping = 0;
			}
		} else if (c.type == F2D_CMD_SET_MOTOR) {
			c.u.motor.enable = (bias & 1u) != 0;
		} else if (c.type == F2D_CMD_SET_FIXED_ROTATION) {
			c.u.fixed_rotation.fixed = (bias & 1u) != 0;
		} else if (c.type == F2D_CMD_SET_BODY_TYPE) {
			c.u.body_type.type = (f2d_body_type)((bias & 1u) ? (bias >> 1) % 3 : (bias >> 1) % 8);
		} else if (c.type == F2D_CMD_PAYLOAD) {
			c.u.payload.length = (uint16_t)(bias % 300);
		}
		size_t len = 0, used = 0, len2 = 0;
		if (f2d_command_encode(&c, buf, sizeof buf, &len) != F2D_OK) {
			continue;
		}
		++encoded;
		f2d_command d;
		ck_assert_msg(f2d_command_decode(buf, len, &d, &used) == F2D_OK,
		              "iteration %d: type %d encodes to bytes decode refuses", it, c.type);
		ck_assert_uint_eq(used, len);
		ck_assert_int_eq(f2d_command_encode(&d, again, sizeof again, &len2), F2D_OK);
		ck_assert(len2 == len && memcmp(buf, again, len) == 0);
	}
	ck_assert_int_ge(encoded, 20000);
}
END_TEST

START_TEST(non_canonical_bytes_refused)
{
	f2d_command c = f2d_default_command(F2D_CMD_SET_MOTOR, 1, 2);
	c.u.motor.joint.index1 = 3;
	c.u.motor.joint.generation = 1;
	c.u.motor.enable = true;
	uint8_t buf[F2D_COMMAND_MAX_BYTES];
	size_t len = 0, used = 0;
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_int_eq(buf[OFF_ENABLE], 1);
	f2d_command d;
	const uint8_t flags[] = {2, 7, 0x80, 0xFF};
	for (size_t i = 0; i < sizeof flags; ++i) {
		buf[OFF_ENABLE] = flags[i];
		ck_assert_msg(f2d_command_decode(buf, len, &d, &used) == F2D_ERROR_INVALID_VALUE,
		              "motor enable byte %d accepted", flags[i]);
	}
	buf[OFF_ENABLE] = 0;
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_OK);
	ck_assert(!d.u.motor.enable);

	/* a create-body command's type byte: body type in the low bits (only the three defined
	 * types), sleep disabled 16, created asleep 32, nothing else */
	c = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_int_eq(buf[OFF_FLAGS], F2D_DYNAMIC_BODY);
	for (uint32_t v = 0; v < 256; ++v) {
		buf[OFF_FLAGS] = (uint8_t)v;
		bool canonical = (v & 15u) <= F2D_DYNAMIC_BODY && v < 64u;
		ck_assert_msg((f2d_command_decode(buf, len, &d, &used) == F2D_OK) == canonical,
		              "create-body type byte %u: %s", v,
		              canonical ? "refused" : "accepted");
	}
	for (int t = F2D_DYNAMIC_BODY + 1; t < 16; ++t) {
		c.u.create.body.type = (f2d_body_type)t;
		ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len),
		                 F2D_ERROR_INVALID_VALUE);
	}
}
END_TEST

/* The format-2 commands: each one does what its setter does, and a refused one changes
 * nothing (the hash is the same) while the others of the frame apply. */
static f2d_shape_id shape_of(f2d_world *w, f2d_body_id b)
{
	f2d_shape_id found = {0, 0};
	for (int32_t i = 1; i < 4096 && found.index1 == 0; ++i) {
		for (uint32_t g = 0; g < 4 && found.index1 == 0; ++g) {
			f2d_shape_id s = {i, g};
			if (f2d_shape_is_valid(w, s) && f2d_shape_get_body(w, s).index1 == b.index1) {
				found = s;
			}
		}
	}
	ck_assert_int_ne(found.index1, 0);
	return found;
}

START_TEST(game_api_commands)
{
	f2d_world *w = scene("random_stack");
	f2d_world *ref = scene("random_stack");
	f2d_body_id b3 = body_n(w, 3), b4 = body_n(w, 4), b5 = body_n(w, 5), b6 = body_n(w, 6);
	f2d_shape_id s3 = shape_of(w, b3);
	f2d_command c[8];
	int32_t n = 0;
	c[n] = f2d_default_command(F2D_CMD_SET_FILTER, 0, 0);
	c[n].u.filter.shape = s3;
	c[n].u.filter.filter.category_bits = 4;
	c[n].u.filter.filter.mask_bits = ~(uint64_t)4;
	c[n++].u.filter.filter.group_index = -3;
	c[n] = f2d_default_command(F2D_CMD_SET_BODY_TYPE, 0, 1);
	c[n].u.body_type.body = b4;
	c[n++].u.body_type.type = F2D_KINEMATIC_BODY;
	c[n] = f2d_default_command(F2D_CMD_SET_GRAVITY_SCALE, 1, 0);
	c[n].u.gravity_scale.body = b5;
	c[n++].u.gravity_scale.scale = -F2D_MILLI(500);
	c[n] = f2d_default_command(F2D_CMD_SET_DAMPING, 1, 1);
	c[n].u.damping.body = b5;
	c[n].u.damping.linear = F2D_MILLI(250);
	c[n++].u.damping.angular = F2D_FIX(2);
	c[n] = f2d_default_command(F2D_CMD_SET_FIXED_ROTATION, 2, 0);
	c[n].u.fixed_rotation.body = b6;
	c[n++].u.fixed_rotation.fixed = true;
	f2d_command_result r[8];
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n, r), F2D_OK);
	for (int32_t i = 0; i < n; ++i) {
		ck_assert_msg(r[i].result == F2D_OK, "command %d: %s", i, f2d_world_last_error(w));
	}
	f2d_filter f = f2d_shape_get_filter(w, s3);
	ck_assert(f.category_bits == 4 && f.mask_bits == ~(uint64_t)4 && f.group_index == -3);
	ck_assert_int_eq(f2d_body_get_type(w, b4), F2D_KINEMATIC_BODY);
	fix16_t gs = 0, ld = 0, ad = 0;
	bool fixed = false;
	f2d_body_get_options(w, b5, &gs, &ld, &ad, NULL);
	ck_assert(gs == -F2D_MILLI(500) && ld == F2D_MILLI(250) && ad == F2D_FIX(2));
	f2d_body_get_options(w, b6, NULL, NULL, NULL, &fixed);
	ck_assert(fixed);
	/* the same through the setters: the same world */
	ck_assert_int_eq(f2d_shape_set_filter(ref, s3, f), F2D_OK);
	ck_assert_int_eq(f2d_body_set_type(ref, b4, F2D_KINEMATIC_BODY), F2D_OK);
	ck_assert_int_eq(f2d_body_set_gravity_scale(ref, b5, -F2D_MILLI(500)), F2D_OK);
	ck_assert_int_eq(f2d_body_set_damping(ref, b5, F2D_MILLI(250), F2D_FIX(2)), F2D_OK);
	ck_assert_int_eq(f2d_body_set_fixed_rotation(ref, b6, true), F2D_OK);
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(w);
		f2d_world_step(ref);
	}
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));

	/* refusals: each changes nothing */
	f2d_body_id gone = body_n(w, 2);
	f2d_shape_id gone_shape = shape_of(w, gone);
	ck_assert_int_eq(f2d_destroy_body(w, gone), F2D_OK);
	n = 0;
	c[n] = f2d_default_command(F2D_CMD_SET_FILTER, 0, 0);
	c[n++].u.filter.shape = gone_shape; /* stale */
	c[n] = f2d_default_command(F2D_CMD_SET_BODY_TYPE, 0, 1);
	c[n].u.body_type.body = b3;
	c[n++].u.body_type.type = (f2d_body_type)7; /* no such type */
	c[n] = f2d_default_command(F2D_CMD_SET_GRAVITY_SCALE, 0, 2);
	c[n].u.gravity_scale.body = b5;
	c[n++].u.gravity_scale.scale = F2D_FIX(17); /* outside [-16, 16] */
	c[n] = f2d_default_command(F2D_CMD_SET_DAMPING, 0, 3);
	c[n].u.damping.body = b5;
	c[n].u.damping.linear = F2D_FIX(1);  /* fine */
	c[n++].u.damping.angular = -1; /* refused: both or neither */
	c[n] = f2d_default_command(F2D_CMD_SET_FIXED_ROTATION, 0, 4);
	c[n].u.fixed_rotation.body = b4; /* kinematic now: refused */
	c[n++].u.fixed_rotation.fixed = true;
	c[n] = f2d_default_command(F2D_CMD_SET_GRAVITY_SCALE, 0, 5);
	c[n++].u.gravity_scale.body = gone; /* stale */
	uint64_t h0 = f2d_world_hash(w);
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n, r), F2D_OK);
	const f2d_result expect[] = {F2D_ERROR_INVALID_HANDLE, F2D_ERROR_INVALID_VALUE,
	                             F2D_ERROR_INVALID_VALUE,  F2D_ERROR_INVALID_VALUE,
	                             F2D_ERROR_INVALID_VALUE,  F2D_ERROR_INVALID_HANDLE};
	for (int32_t i = 0; i < n; ++i) {
		ck_assert_msg(r[i].result == expect[i], "command %d: %s", i,
		              f2d_error_string(r[i].result));
	}
	ck_assert_uint_eq(f2d_world_hash(w), h0);
	f2d_body_get_options(w, b5, &gs, &ld, &ad, NULL);
	ck_assert(gs == -F2D_MILLI(500) && ld == F2D_MILLI(250) && ad == F2D_FIX(2));
	/* a batch with an unknown type past the last is refused whole */
	c[0].type = F2D_CMD_LAST + 1;
	ck_assert_int_eq(f2d_world_apply_commands(w, c, 1, r), F2D_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(f2d_world_hash(w), h0);
	ck_assert_ptr_null(f2d_command_type_name(F2D_CMD_LAST + 1));
	ck_assert_str_eq(f2d_command_type_name(F2D_CMD_SET_FILTER), "set_filter");
	f2d_destroy_world(w);
	f2d_destroy_world(ref);
}
END_TEST

/* A create command that carries a sensor, a filter and body options (the extension) makes
 * the body f2d_create_body + f2d_create_*_shape would, through the bytes. */
START_TEST(create_extension)
{
	f2d_world *w = scene("random_stack");
	f2d_command c = f2d_default_command(F2D_CMD_CREATE_BODY, 3, 1);
	c.u.create.body.type = F2D_STATIC_BODY;
	c.u.create.body.position = f2d_v(F2D_FIX(2), F2D_FIX(3));
	c.u.create.kind = F2D_SPAWN_CIRCLE;
	c.u.create.circle.radius = F2D_MILLI(500);
	c.u.create.shape.is_sensor = true;
	c.u.create.shape.filter.category_bits = 8;
	c.u.create.shape.filter.mask_bits = 6;
	uint8_t buf[F2D_COMMAND_MAX_BYTES], plain[F2D_COMMAND_MAX_BYTES];
	size_t len = 0, plain_len = 0, used = 0;
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	f2d_command p = f2d_default_command(F2D_CMD_CREATE_BODY, 3, 1);
	p.u.create.body = c.u.create.body;
	p.u.create.kind = c.u.create.kind;
	p.u.create.circle = c.u.create.circle;
	ck_assert_int_eq(f2d_command_encode(&p, plain, sizeof plain, &plain_len), F2D_OK);
	/* the same bytes as without the extension, but bit 128 and 33 bytes at the end */
	ck_assert_uint_eq(len, plain_len + 33);
	ck_assert_int_eq(buf[4], plain[4] | 128);
	ck_assert_int_eq(memcmp(buf + 5, plain + 5, plain_len - 5), 0);
	f2d_command d;
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_OK);
	ck_assert_uint_eq(used, len);
	ck_assert(d.u.create.shape.is_sensor && d.u.create.shape.filter.category_bits == 8 &&
	          d.u.create.shape.filter.mask_bits == 6 && d.u.create.shape.enable_sensor_events);
	/* an extension with nothing but defaults is not canonical */
	memset(buf + plain_len, 0, 33);
	buf[plain_len] = 1;                            /* category 1 */
	memset(buf + plain_len + 8, 0xFF, 8);          /* mask all */
	buf[plain_len + 20] = 1 | 4;                   /* contact and sensor events */
	buf[plain_len + 23] = 1;                       /* gravity scale 1.0 = 0x00010000 */
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_ERROR_INVALID_VALUE);
	buf[plain_len + 20] |= 8; /* ... a sensor: canonical again */
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_OK);
	buf[plain_len + 20] |= 32; /* a reserved flag */
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_ERROR_INVALID_VALUE);
	/* applied: a static sensor a falling box passes through */
	f2d_command_result r;
	ck_assert_int_eq(f2d_world_apply_commands(w, &c, 1, &r), F2D_OK);
	ck_assert_int_eq(r.result, F2D_OK);
	f2d_shape_id s = shape_of(w, r.created);
	ck_assert(f2d_shape_is_sensor(w, s));
	ck_assert_uint_eq(f2d_shape_get_filter(w, s).category_bits, 8);
	f2d_destroy_world(w);
}
END_TEST

/* Format-1 bytes decode as before (a default create command: no extension, the same bytes),
 * and the format-2 layout is fixed. */
START_TEST(format_bytes)
{
	f2d_command c = f2d_default_command(F2D_CMD_CREATE_BODY, 1, 2);
	uint8_t buf[F2D_COMMAND_MAX_BYTES];
	size_t len = 0, used = 0;
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_uint_eq(len, 70); /* format 1's length of a box spawn */
	ck_assert_int_eq(buf[4], F2D_DYNAMIC_BODY);
	f2d_command d;
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_OK);
	ck_assert(!d.u.create.shape.is_sensor && d.u.create.body.gravity_scale == F2D_ONE &&
	          d.u.create.shape.filter.group_index == 0 && d.u.create.shape.enable_contact_events);
	c = f2d_default_command(F2D_CMD_SET_FILTER, 2, 0x0102);
	c.u.filter.shape.index1 = 7;
	c.u.filter.shape.generation = 1;
	c.u.filter.filter.category_bits = 0x0807060504030201ull;
	c.u.filter.filter.mask_bits = 2;
	c.u.filter.filter.group_index = -2;
	const uint8_t filter_bytes[] = {8, 2, 2, 1, 7, 0, 0, 0, 1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7,
	                                8, 2, 0, 0, 0, 0, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF};
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_uint_eq(len, sizeof filter_bytes);
	ck_assert_int_eq(memcmp(buf, filter_bytes, len), 0);
	c = f2d_default_command(F2D_CMD_SET_BODY_TYPE, 0, 0);
	c.u.body_type.body.index1 = 1;
	c.u.body_type.type = F2D_STATIC_BODY;
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_uint_eq(len, 13);
	buf[12] = 3; /* not a body type */
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_ERROR_INVALID_VALUE);
	c.u.body_type.type = (f2d_body_type)3;
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_ERROR_INVALID_VALUE);
	c = f2d_default_command(F2D_CMD_SET_FIXED_ROTATION, 0, 0);
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_uint_eq(len, 13);
	buf[12] = 2; /* a flag is 0 or 1 */
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_ERROR_INVALID_VALUE);
	c = f2d_default_command(F2D_CMD_SET_GRAVITY_SCALE, 0, 0);
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_uint_eq(len, 16);
	c = f2d_default_command(F2D_CMD_SET_DAMPING, 0, 0);
	ck_assert_int_eq(f2d_command_encode(&c, buf, sizeof buf, &len), F2D_OK);
	ck_assert_uint_eq(len, 20);
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
	tcase_add_test(tc, decode_accepts_only_canonical_bytes);
	tcase_add_test(tc, encode_then_decode);
	tcase_add_test(tc, non_canonical_bytes_refused);
	tcase_add_test(tc, game_api_commands);
	tcase_add_test(tc, create_extension);
	tcase_add_test(tc, format_bytes);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
