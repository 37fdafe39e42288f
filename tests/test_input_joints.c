/* fix2d tests: command format 3 (fix2d/input.h): joint commands, segment and chain spawns.
 * Round trips with fixed lengths, canonical decoding of random bytes, each command against the
 * public function it calls (same hash), every refusal leaving the hash unchanged, and a
 * recorded run with joint commands re-simulated (from the bytes, and after a rollback) to the
 * same hashes.
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmath.h" /* f2d_v */
#include "fix2d/fix2d.h"
#include "fix2d/input.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "test_rng.h"

static f2d_world *scene(const char *name)
{
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create(name, NULL, &w), F2D_OK);
	return w;
}

/* random_stack: body 0 is the static ground, 1..10 dynamic 1x1 boxes 1.05 m apart */
static f2d_body_id body_n(f2d_world *w, int32_t n)
{
	f2d_body_id ids[64];
	ck_assert_int_gt(f2d_world_get_bodies(w, ids, 64), n);
	return ids[n];
}

/* One create command per joint type, valid in random_stack (the bodies of w). */
static f2d_command joint_cmd(f2d_world *w, f2d_joint_type type, uint8_t player, uint16_t seq)
{
	f2d_command c = f2d_default_joint_command(type, player, seq);
	f2d_joint_spawn *js = &c.u.create_joint;
	ck_assert_int_eq(js->type, type);
	switch (type) {
	case F2D_REVOLUTE_JOINT:
		js->def.revolute.body_a = body_n(w, 1);
		js->def.revolute.body_b = body_n(w, 2);
		js->def.revolute.local_anchor_a = f2d_v(0, F2D_MILLI(525));
		js->def.revolute.local_anchor_b = f2d_v(0, -F2D_MILLI(525));
		js->def.revolute.enable_limit = true;
		js->def.revolute.lower_angle = -F2D_MILLI(500);
		js->def.revolute.upper_angle = F2D_MILLI(500);
		break;
	case F2D_DISTANCE_JOINT:
		js->def.distance.body_a = body_n(w, 3);
		js->def.distance.body_b = body_n(w, 4);
		js->def.distance.length = F2D_MILLI(1050);
		js->def.distance.enable_spring = true;
		js->def.distance.hertz = F2D_FIX(3);
		js->def.distance.damping_ratio = F2D_MILLI(300);
		js->def.distance.user_data = 0x1122334455667788ull;
		break;
	case F2D_PRISMATIC_JOINT:
		js->def.prismatic.body_a = body_n(w, 0);
		js->def.prismatic.body_b = body_n(w, 5);
		js->def.prismatic.local_anchor_a = f2d_body_get_position(w, body_n(w, 5));
		js->def.prismatic.local_axis_a = f2d_v(0, F2D_ONE);
		js->def.prismatic.enable_motor = true;
		js->def.prismatic.motor_speed = F2D_FIX(1);
		js->def.prismatic.max_motor_force = F2D_FIX(500);
		break;
	case F2D_WELD_JOINT:
		js->def.weld.body_a = body_n(w, 6);
		js->def.weld.body_b = body_n(w, 7);
		js->def.weld.local_anchor_a = f2d_v(0, F2D_MILLI(525));
		js->def.weld.local_anchor_b = f2d_v(0, -F2D_MILLI(525));
		js->def.weld.collide_connected = true;
		break;
	case F2D_WHEEL_JOINT:
		js->def.wheel.body_a = body_n(w, 8);
		js->def.wheel.body_b = body_n(w, 9);
		js->def.wheel.local_anchor_a = f2d_v(0, F2D_MILLI(525));
		js->def.wheel.local_anchor_b = f2d_v(0, -F2D_MILLI(525));
		js->def.wheel.enable_limit = true;
		js->def.wheel.lower_translation = -F2D_MILLI(200);
		js->def.wheel.upper_translation = F2D_MILLI(200);
		break;
	case F2D_MOTOR_JOINT:
		js->def.motor.body_a = body_n(w, 0);
		js->def.motor.body_b = body_n(w, 10);
		js->def.motor.linear_offset = f2d_v(F2D_FIX(2), F2D_FIX(10));
		js->def.motor.max_force = F2D_FIX(50);
		break;
	default:
		js->def.mouse.body_a = body_n(w, 0);
		js->def.mouse.body_b = body_n(w, 10);
		js->def.mouse.target = f2d_body_get_position(w, body_n(w, 10));
		js->def.mouse.max_force = F2D_FIX(200);
		break;
	}
	return c;
}

/* The same creation through the public function. */
static f2d_result create_direct(f2d_world *w, const f2d_joint_spawn *js, f2d_joint_id *out)
{
	switch (js->type) {
	case F2D_REVOLUTE_JOINT: return f2d_create_revolute_joint(w, &js->def.revolute, out);
	case F2D_DISTANCE_JOINT: return f2d_create_distance_joint(w, &js->def.distance, out);
	case F2D_PRISMATIC_JOINT: return f2d_create_prismatic_joint(w, &js->def.prismatic, out);
	case F2D_WELD_JOINT: return f2d_create_weld_joint(w, &js->def.weld, out);
	case F2D_WHEEL_JOINT: return f2d_create_wheel_joint(w, &js->def.wheel, out);
	case F2D_MOTOR_JOINT: return f2d_create_motor_joint(w, &js->def.motor, out);
	default: return f2d_create_mouse_joint(w, &js->def.mouse, out);
	}
}

static f2d_command setter(f2d_command_type type, f2d_joint_id j, uint16_t seq)
{
	f2d_command c = f2d_default_command(type, 0, seq);
	/* every setter's joint handle is the first field of its struct */
	switch (type) {
	case F2D_CMD_DESTROY_JOINT: c.u.destroy_joint.joint = j; break;
	case F2D_CMD_SET_JOINT_MOTOR: c.u.joint_motor.joint = j; break;
	case F2D_CMD_SET_JOINT_SPRING: c.u.spring.joint = j; break;
	case F2D_CMD_SET_WELD_SPRINGS: c.u.weld_springs.joint = j; break;
	case F2D_CMD_SET_JOINT_LIMITS: c.u.limits.joint = j; break;
	case F2D_CMD_SET_DISTANCE_LENGTH: c.u.length.joint = j; break;
	case F2D_CMD_SET_MOUSE_TARGET: c.u.mouse_target.joint = j; break;
	case F2D_CMD_SET_MOUSE_MAX_FORCE: c.u.mouse_max_force.joint = j; break;
	case F2D_CMD_SET_MOTOR_JOINT_OFFSETS: c.u.offsets.joint = j; break;
	case F2D_CMD_SET_MOTOR_JOINT_MAX: c.u.motor_max.joint = j; break;
	case F2D_CMD_SET_MOTOR_JOINT_CORRECTION: c.u.correction.joint = j; break;
	default: ck_abort_msg("not a joint setter"); break;
	}
	return c;
}

static size_t encode_ok(const f2d_command *c, uint8_t *buf)
{
	size_t len = 0;
	ck_assert_int_eq(f2d_command_encode(c, buf, F2D_COMMAND_MAX_BYTES, &len), F2D_OK);
	ck_assert_uint_le(len, F2D_COMMAND_MAX_BYTES);
	return len;
}

/* encode -> decode -> encode gives the same bytes; every prefix is refused; a small buffer too */
static f2d_command round_trip(const f2d_command *c, size_t expect_len)
{
	uint8_t buf[F2D_COMMAND_MAX_BYTES], again[F2D_COMMAND_MAX_BYTES];
	size_t len = encode_ok(c, buf), used = 0, len2 = 0;
	ck_assert_msg(len == expect_len, "type %d: %zu bytes, expected %zu", c->type, len,
	              expect_len);
	f2d_command d;
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_OK);
	ck_assert_uint_eq(used, len);
	ck_assert_int_eq(f2d_command_encode(&d, again, sizeof again, &len2), F2D_OK);
	ck_assert(len2 == len && memcmp(buf, again, len) == 0);
	ck_assert(d.type == c->type && d.player == c->player && d.sequence == c->sequence);
	for (size_t k = 0; k < len; ++k) {
		ck_assert_int_eq(f2d_command_decode(buf, k, &d, &used), F2D_ERROR_INVALID_VALUE);
		ck_assert_int_eq(f2d_command_encode(c, again, k, &len2), F2D_ERROR_CAPACITY);
	}
	ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_OK);
	return d;
}

START_TEST(round_trip_every_command)
{
	f2d_world *w = scene("random_stack");
	static const size_t joint_len[7] = {66, 74, 82, 66, 78, 54, 50};
	for (int t = F2D_REVOLUTE_JOINT; t <= F2D_MOUSE_JOINT; ++t) {
		f2d_command c = joint_cmd(w, (f2d_joint_type)t, 3, (uint16_t)(100 + t));
		f2d_command d = round_trip(&c, joint_len[t]);
		ck_assert_int_eq(d.u.create_joint.type, t);
	}
	/* the decoded def is the def: fields checked on two types */
	f2d_command c = joint_cmd(w, F2D_DISTANCE_JOINT, 0, 0);
	f2d_command d = round_trip(&c, 74);
	const f2d_distance_joint_def *a = &c.u.create_joint.def.distance,
	                             *b = &d.u.create_joint.def.distance;
	ck_assert(b->body_a.index1 == a->body_a.index1 && b->body_b.generation == a->body_b.generation &&
	          b->length == a->length && b->enable_spring && b->hertz == a->hertz &&
	          b->damping_ratio == a->damping_ratio && b->max_length == a->max_length &&
	          !b->enable_limit && !b->enable_motor && b->user_data == a->user_data);
	c = joint_cmd(w, F2D_PRISMATIC_JOINT, 0, 0);
	d = round_trip(&c, 82);
	ck_assert(d.u.create_joint.def.prismatic.enable_motor &&
	          d.u.create_joint.def.prismatic.local_axis_a.y == F2D_ONE &&
	          d.u.create_joint.def.prismatic.max_motor_force == F2D_FIX(500));

	f2d_joint_id j = {7, 0x01020304u};
	const struct {
		f2d_command_type type;
		size_t len;
	} setters[] = {{F2D_CMD_DESTROY_JOINT, 12},           {F2D_CMD_SET_JOINT_MOTOR, 21},
	               {F2D_CMD_SET_JOINT_SPRING, 21},        {F2D_CMD_SET_WELD_SPRINGS, 28},
	               {F2D_CMD_SET_JOINT_LIMITS, 21},        {F2D_CMD_SET_DISTANCE_LENGTH, 16},
	               {F2D_CMD_SET_MOUSE_TARGET, 20},        {F2D_CMD_SET_MOUSE_MAX_FORCE, 16},
	               {F2D_CMD_SET_MOTOR_JOINT_OFFSETS, 24}, {F2D_CMD_SET_MOTOR_JOINT_MAX, 20},
	               {F2D_CMD_SET_MOTOR_JOINT_CORRECTION, 16}};
	ck_assert_int_eq(sizeof setters / sizeof setters[0], F2D_CMD_LAST - F2D_CMD_DESTROY_JOINT + 1);
	for (size_t i = 0; i < sizeof setters / sizeof setters[0]; ++i) {
		f2d_command s = setter(setters[i].type, j, (uint16_t)i);
		round_trip(&s, setters[i].len);
		ck_assert_str_ne(f2d_command_type_name(setters[i].type), "");
	}
	ck_assert_str_eq(f2d_command_type_name(F2D_CMD_CREATE_JOINT), "create_joint");
	ck_assert_str_eq(f2d_command_type_name(F2D_CMD_SET_MOTOR_JOINT_CORRECTION),
	                 "set_motor_joint_correction");
	ck_assert_ptr_null(f2d_command_type_name(F2D_CMD_LAST + 1));

	/* fixed bytes: a spring command, field by field little-endian */
	f2d_command s = setter(F2D_CMD_SET_JOINT_SPRING, j, 0x0506);
	s.player = 9;
	s.u.spring.enable = true;
	s.u.spring.hertz = F2D_FIX(2);
	s.u.spring.damping_ratio = -1;
	const uint8_t spring_bytes[] = {16, 9, 6, 5, 7, 0, 0, 0, 4, 3, 2, 1, 1,
	                                0,  0, 2, 0, 0xFF, 0xFF, 0xFF, 0xFF};
	uint8_t buf[F2D_COMMAND_MAX_BYTES];
	ck_assert_uint_eq(encode_ok(&s, buf), sizeof spring_bytes);
	ck_assert_int_eq(memcmp(buf, spring_bytes, sizeof spring_bytes), 0);
	/* a create-joint head: type, flags, bodies, user data */
	c = joint_cmd(w, F2D_WELD_JOINT, 0, 0);
	encode_ok(&c, buf);
	ck_assert_int_eq(buf[4], F2D_WELD_JOINT);
	ck_assert_int_eq(buf[5], 1); /* collide connected */
	ck_assert_int_eq(buf[6], c.u.create_joint.def.weld.body_a.index1);

	/* segment and chain spawns */
	f2d_command sg = f2d_default_command(F2D_CMD_CREATE_BODY, 1, 1);
	sg.u.create.body.type = F2D_STATIC_BODY;
	sg.u.create.kind = F2D_SPAWN_SEGMENT;
	sg.u.create.segment.point1 = f2d_v(-F2D_FIX(3), 0);
	sg.u.create.segment.point2 = f2d_v(F2D_FIX(3), F2D_MILLI(100));
	d = round_trip(&sg, 62 + 16);
	ck_assert(d.u.create.kind == F2D_SPAWN_SEGMENT &&
	          d.u.create.segment.point2.y == F2D_MILLI(100));
	for (int32_t n = 2; n <= F2D_SPAWN_MAX_CHAIN_POINTS; ++n) {
		for (int loop = 0; loop < 2; ++loop) {
			if (loop && n < 3) {
				continue;
			}
			f2d_command ch = f2d_default_command(F2D_CMD_CREATE_BODY, 1, 2);
			ch.u.create.body.type = F2D_STATIC_BODY;
			ch.u.create.kind = F2D_SPAWN_CHAIN;
			ch.u.create.count = n;
			ch.u.create.loop = loop != 0;
			for (int32_t i = 0; i < n; ++i) {
				ch.u.create.points[i] = f2d_v(F2D_FIX(i), (i * 7919) % 3000);
			}
			/* the largest with the extension still fits F2D_COMMAND_MAX_BYTES */
			ch.u.create.shape.filter.group_index = -1;
			d = round_trip(&ch, 62 + 2 + 8 * (size_t)n + 33);
			ck_assert(d.u.create.count == n && d.u.create.loop == (loop != 0) &&
			          d.u.create.points[n - 1].x == F2D_FIX(n - 1));
		}
	}
	/* encode refuses what it cannot write canonically */
	size_t len = 0;
	f2d_command bad = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
	bad.u.create.kind = F2D_SPAWN_CHAIN;
	bad.u.create.count = F2D_SPAWN_MAX_CHAIN_POINTS + 1;
	ck_assert_int_eq(f2d_command_encode(&bad, buf, sizeof buf, &len), F2D_ERROR_INVALID_VALUE);
	bad.u.create.count = 2;
	bad.u.create.loop = true;
	ck_assert_int_eq(f2d_command_encode(&bad, buf, sizeof buf, &len), F2D_ERROR_INVALID_VALUE);
	bad.u.create.kind = 6;
	ck_assert_int_eq(f2d_command_encode(&bad, buf, sizeof buf, &len), F2D_ERROR_INVALID_VALUE);
	bad = f2d_default_joint_command((f2d_joint_type)7, 0, 0);
	ck_assert_int_eq(f2d_command_encode(&bad, buf, sizeof buf, &len), F2D_ERROR_INVALID_VALUE);
	f2d_destroy_world(w);
}
END_TEST

/* Offsets (input.h): a create-joint's type (4) and flags (5); a setter's enable flag (12); a
 * spawn's kind (61), a chain's count (62) and loop flag (63). */
#define OFF_JTYPE 4
#define OFF_JFLAGS 5
#define OFF_ENABLE 12
#define OFF_KIND 61
#define OFF_COUNT 62
#define OFF_LOOP 63

START_TEST(random_bytes_decode_canonically)
{
	/* Random strings biased to format 3: whatever decode accepts encodes to exactly the bytes
	 * it consumed, so each command has one encoding. */
	uint64_t rng = 0xF0A3u;
	uint8_t x[F2D_COMMAND_MAX_BYTES + 16], again[F2D_COMMAND_MAX_BYTES];
	int64_t accepted[F2D_CMD_LAST + 1] = {0}, jtypes[7] = {0}, flag_bits[16] = {0};
	int64_t segments = 0, chains = 0, loops = 0, enabled = 0, bad_flags = 0;
	for (int32_t it = 0; it < 200000; ++it) {
		size_t len = (size_t)(test_splitmix(&rng) % sizeof x);
		for (size_t i = 0; i < len; i += 8) {
			uint64_t v = test_splitmix(&rng);
			for (size_t k = i; k < i + 8 && k < len; ++k, v >>= 8) {
				x[k] = (uint8_t)v;
			}
		}
		uint64_t bias = test_splitmix(&rng);
		if (len > 0) {
			x[0] = (bias & 7u) == 0 ? (uint8_t)F2D_CMD_CREATE_BODY
			                         : (uint8_t)(F2D_CMD_CREATE_JOINT + (bias >> 3) % 13);
		}
		if (len > OFF_JFLAGS && (bias & 0x300u) != 0) {
			x[OFF_JTYPE] = (uint8_t)((bias >> 10) % 8);  /* 7 types and a bad one */
			x[OFF_JFLAGS] = (uint8_t)((bias >> 13) % 18); /* every flag set and two bad */
			if (x[0] == F2D_CMD_CREATE_BODY) {
				x[OFF_JTYPE] = (uint8_t)((bias >> 10) % 3 | ((bias >> 12) & 1u) << 7);
			}
		}
		if (len > OFF_ENABLE && (bias & 0x10000u) != 0) {
			x[OFF_ENABLE] = (uint8_t)((bias >> 17) % 3);
		}
		if (x[0] == F2D_CMD_CREATE_BODY && len > OFF_LOOP) {
			x[OFF_KIND] = (uint8_t)(4 + (bias >> 20) % 3); /* segment, chain, bad */
			x[OFF_COUNT] = (uint8_t)((bias >> 22) % 28);
			x[OFF_LOOP] = (uint8_t)((bias >> 27) % 3);
		}
		f2d_command d;
		size_t used = 0, len2 = 0;
		if (f2d_command_decode(x, len, &d, &used) != F2D_OK) {
			if (len > OFF_JFLAGS && x[0] == F2D_CMD_CREATE_JOINT && x[OFF_JTYPE] < 7 &&
			    x[OFF_JFLAGS] >= 16) {
				++bad_flags;
			}
			continue;
		}
		ck_assert_msg(f2d_command_encode(&d, again, sizeof again, &len2) == F2D_OK,
		              "iteration %d: type %d does not encode", it, d.type);
		ck_assert_msg(len2 == used && memcmp(again, x, used) == 0,
		              "iteration %d: type %d: %zu bytes encode back to %zu others", it,
		              d.type, used, len2);
		accepted[d.type]++;
		if (d.type == F2D_CMD_CREATE_JOINT) {
			jtypes[d.u.create_joint.type]++;
			flag_bits[x[OFF_JFLAGS] & 15]++;
			/* only the flags the type has */
			ck_assert(x[OFF_JFLAGS] < 16);
		}
		if (d.type == F2D_CMD_CREATE_BODY) {
			segments += d.u.create.kind == F2D_SPAWN_SEGMENT;
			chains += d.u.create.kind == F2D_SPAWN_CHAIN;
			loops += d.u.create.kind == F2D_SPAWN_CHAIN && d.u.create.loop;
		}
		if (d.type == F2D_CMD_SET_JOINT_LIMITS) {
			enabled += d.u.limits.enable;
		}
	}
	for (int t = F2D_CMD_CREATE_JOINT; t <= F2D_CMD_LAST; ++t) {
		ck_assert_msg(accepted[t] >= 100, "type %d accepted %lld times", t,
		              (long long)accepted[t]);
	}
	for (int t = 0; t < 7; ++t) {
		ck_assert_msg(jtypes[t] >= 20, "joint type %d accepted %lld times", t,
		              (long long)jtypes[t]);
	}
	ck_assert_int_ge(flag_bits[15], 20); /* every flag, on the types that have them */
	ck_assert_int_ge(flag_bits[0], 20);
	ck_assert_int_ge(segments, 20);
	ck_assert_int_ge(chains, 20);
	ck_assert_int_ge(loops, 5);
	ck_assert_int_ge(enabled, 20);
	ck_assert_int_ge(bad_flags, 20); /* refused, never accepted */
}
END_TEST

START_TEST(random_commands_encode_canonically)
{
	/* The other direction: random field values (flags set as bools) encode to bytes that decode
	 * back to a command encoding to the same bytes. */
	uint64_t rng = 0xBEEFu;
	uint8_t buf[F2D_COMMAND_MAX_BYTES], again[F2D_COMMAND_MAX_BYTES];
	int64_t encoded = 0;
	for (int32_t it = 0; it < 30000; ++it) {
		f2d_command_type type =
		    (f2d_command_type)(F2D_CMD_CREATE_JOINT + test_splitmix(&rng) % 12);
		uint64_t bias = test_splitmix(&rng);
		f2d_command c = type == F2D_CMD_CREATE_JOINT
		                    ? f2d_default_joint_command((f2d_joint_type)(bias % 8), 1, 2)
		                    : f2d_default_command(type, 1, 2);
		/* every fix16 and handle field of the union random, bools and type kept */
		f2d_command r = c;
		uint8_t *p = (uint8_t *)&r.u;
		for (size_t i = 0; i < sizeof r.u; ++i) {
			p[i] = (uint8_t)test_splitmix(&rng);
		}
		if (type == F2D_CMD_CREATE_JOINT) {
			f2d_joint_spawn *js = &c.u.create_joint, *rs = &r.u.create_joint;
			switch (js->type) {
			case F2D_DISTANCE_JOINT:
				js->def.distance.length = rs->def.distance.length;
				js->def.distance.body_b = rs->def.distance.body_b;
				js->def.distance.enable_motor = (bias >> 8) & 1u;
				js->def.distance.user_data = rs->def.distance.user_data;
				break;
			case F2D_MOUSE_JOINT:
				js->def.mouse.target = rs->def.mouse.target;
				js->def.mouse.collide_connected = (bias >> 8) & 1u;
				break;
			case F2D_WHEEL_JOINT:
				js->def.wheel.local_axis_a = rs->def.wheel.local_axis_a;
				js->def.wheel.enable_spring = (bias >> 8) & 1u;
				js->def.wheel.enable_limit = (bias >> 9) & 1u;
				break;
			default: js->def.revolute.body_a = rs->def.revolute.body_a; break;
			}
		} else {
			/* the joint handle and three fix16 after it (each setter struct starts so) */
			memcpy(&c.u.spring.joint, &r.u.spring.joint, sizeof c.u.spring.joint);
			c.u.weld_springs.linear_hertz = r.u.weld_springs.linear_hertz;
			c.u.weld_springs.linear_damping_ratio = r.u.weld_springs.linear_damping_ratio;
			c.u.weld_springs.angular_hertz = r.u.weld_springs.angular_hertz;
			if (type == F2D_CMD_SET_JOINT_MOTOR || type == F2D_CMD_SET_JOINT_SPRING ||
			    type == F2D_CMD_SET_JOINT_LIMITS) {
				c.u.spring.enable = (bias >> 8) & 1u;
				c.u.spring.hertz = r.u.spring.hertz;
			}
		}
		size_t len = 0, used = 0, len2 = 0;
		if (f2d_command_encode(&c, buf, sizeof buf, &len) != F2D_OK) {
			ck_assert(type == F2D_CMD_CREATE_JOINT && bias % 8 == 7);
			continue;
		}
		++encoded;
		f2d_command d;
		ck_assert_int_eq(f2d_command_decode(buf, len, &d, &used), F2D_OK);
		ck_assert_uint_eq(used, len);
		ck_assert_int_eq(f2d_command_encode(&d, again, sizeof again, &len2), F2D_OK);
		ck_assert(len2 == len && memcmp(buf, again, len) == 0);
	}
	ck_assert_int_ge(encoded, 25000);
}
END_TEST

/* Replaces each command by decode(encode(command)): what is applied is what the bytes carry. */
static void through_bytes(f2d_command *c, int32_t n)
{
	for (int32_t i = 0; i < n; ++i) {
		uint8_t buf[F2D_COMMAND_MAX_BYTES];
		size_t len = encode_ok(&c[i], buf), used = 0;
		ck_assert_int_eq(f2d_command_decode(buf, len, &c[i], &used), F2D_OK);
		ck_assert_uint_eq(used, len);
	}
}

/* Each command, through its bytes, does what its public function does: the same hash, the
 * same ids. */
START_TEST(apply_equals_direct_api)
{
	f2d_world *w = scene("random_stack");
	f2d_world *ref = scene("random_stack");
	f2d_command c[16];
	f2d_command_result r[16];
	int32_t n = 0;
	/* players out of order: applied by (player, sequence) */
	for (int t = F2D_MOUSE_JOINT; t >= F2D_REVOLUTE_JOINT; --t) {
		c[n++] = joint_cmd(w, (f2d_joint_type)t, (uint8_t)(t % 3), (uint16_t)t);
	}
	uint64_t h0 = f2d_world_hash(w);
	through_bytes(c, n);
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n, r), F2D_OK);
	ck_assert_uint_ne(f2d_world_hash(w), h0);
	f2d_joint_id jid[7];
	/* the direct calls in canonical order: player 0 (types 0, 3, 6), 1 (1, 4), 2 (2, 5) */
	const int order[7] = {0, 3, 6, 1, 4, 2, 5};
	for (int k = 0; k < 7; ++k) {
		int t = order[k];
		f2d_command d = joint_cmd(ref, (f2d_joint_type)t, 0, 0);
		ck_assert_int_eq(create_direct(ref, &d.u.create_joint, &jid[t]), F2D_OK);
	}
	for (int32_t i = 0; i < n; ++i) {
		int t = c[i].u.create_joint.type;
		ck_assert_msg(r[i].result == F2D_OK, "joint type %d: %s", t, f2d_world_last_error(w));
		ck_assert(r[i].created_joint.index1 == jid[t].index1 &&
		          r[i].created_joint.generation == jid[t].generation);
		f2d_joint_type got;
		ck_assert_int_eq(f2d_joint_get_type(w, r[i].created_joint, &got), F2D_OK);
		ck_assert_int_eq(got, t);
	}
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));
	for (int i = 0; i < 10; ++i) {
		f2d_world_step(w);
		f2d_world_step(ref);
	}
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));

	/* every setter command, then the same setters directly */
	n = 0;
	c[n] = setter(F2D_CMD_SET_JOINT_MOTOR, jid[F2D_WHEEL_JOINT], (uint16_t)n);
	c[n].u.joint_motor.enable = true;
	c[n].u.joint_motor.speed = -F2D_FIX(4);
	c[n++].u.joint_motor.max_force = F2D_FIX(20);
	c[n] = setter(F2D_CMD_SET_JOINT_MOTOR, jid[F2D_REVOLUTE_JOINT], (uint16_t)n);
	c[n].u.joint_motor.enable = true;
	c[n].u.joint_motor.speed = F2D_FIX(2);
	c[n++].u.joint_motor.max_force = F2D_FIX(5);
	c[n] = setter(F2D_CMD_SET_JOINT_SPRING, jid[F2D_PRISMATIC_JOINT], (uint16_t)n);
	c[n].u.spring.enable = true;
	c[n].u.spring.hertz = F2D_FIX(2);
	c[n++].u.spring.damping_ratio = F2D_MILLI(700);
	c[n] = setter(F2D_CMD_SET_WELD_SPRINGS, jid[F2D_WELD_JOINT], (uint16_t)n);
	c[n].u.weld_springs.linear_hertz = F2D_FIX(5);
	c[n].u.weld_springs.linear_damping_ratio = F2D_MILLI(500);
	c[n].u.weld_springs.angular_hertz = F2D_FIX(3);
	c[n++].u.weld_springs.angular_damping_ratio = F2D_MILLI(200);
	c[n] = setter(F2D_CMD_SET_JOINT_LIMITS, jid[F2D_PRISMATIC_JOINT], (uint16_t)n);
	c[n].u.limits.enable = true;
	c[n].u.limits.lower = -F2D_FIX(1);
	c[n++].u.limits.upper = F2D_FIX(2);
	c[n] = setter(F2D_CMD_SET_JOINT_LIMITS, jid[F2D_DISTANCE_JOINT], (uint16_t)n);
	c[n].u.limits.enable = true;
	c[n].u.limits.lower = F2D_MILLI(800);
	c[n++].u.limits.upper = F2D_MILLI(1300);
	c[n] = setter(F2D_CMD_SET_JOINT_LIMITS, jid[F2D_REVOLUTE_JOINT], (uint16_t)n);
	c[n].u.limits.lower = -F2D_MILLI(300);
	c[n++].u.limits.upper = F2D_MILLI(250);
	c[n] = setter(F2D_CMD_SET_DISTANCE_LENGTH, jid[F2D_DISTANCE_JOINT], (uint16_t)n);
	c[n++].u.length.length = F2D_MILLI(1200);
	c[n] = setter(F2D_CMD_SET_MOUSE_TARGET, jid[F2D_MOUSE_JOINT], (uint16_t)n);
	c[n++].u.mouse_target.target = f2d_v(F2D_FIX(1), F2D_FIX(9));
	c[n] = setter(F2D_CMD_SET_MOUSE_MAX_FORCE, jid[F2D_MOUSE_JOINT], (uint16_t)n);
	c[n++].u.mouse_max_force.force = F2D_FIX(300);
	c[n] = setter(F2D_CMD_SET_MOTOR_JOINT_OFFSETS, jid[F2D_MOTOR_JOINT], (uint16_t)n);
	c[n].u.offsets.linear = f2d_v(-F2D_FIX(1), F2D_FIX(8));
	c[n++].u.offsets.angular = F2D_MILLI(400);
	c[n] = setter(F2D_CMD_SET_MOTOR_JOINT_MAX, jid[F2D_MOTOR_JOINT], (uint16_t)n);
	c[n].u.motor_max.max_force = F2D_FIX(80);
	c[n++].u.motor_max.max_torque = F2D_FIX(10);
	c[n] = setter(F2D_CMD_SET_MOTOR_JOINT_CORRECTION, jid[F2D_MOTOR_JOINT], (uint16_t)n);
	c[n++].u.correction.factor = F2D_MILLI(500);
	through_bytes(c, n);
	h0 = f2d_world_hash(w);
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n, r), F2D_OK);
	for (int32_t i = 0; i < n; ++i) {
		ck_assert_msg(r[i].result == F2D_OK, "setter %d: %s", i, f2d_world_last_error(w));
	}
	ck_assert_uint_ne(f2d_world_hash(w), h0);
	ck_assert_int_eq(f2d_wheel_joint_set_motor(ref, jid[F2D_WHEEL_JOINT], true, -F2D_FIX(4),
	                                           F2D_FIX(20)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_joint_set_motor(ref, jid[F2D_REVOLUTE_JOINT], true, F2D_FIX(2),
	                                     F2D_FIX(5)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_prismatic_joint_set_spring(ref, jid[F2D_PRISMATIC_JOINT], true,
	                                                F2D_FIX(2), F2D_MILLI(700)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_weld_joint_set_springs(ref, jid[F2D_WELD_JOINT], F2D_FIX(5),
	                                            F2D_MILLI(500), F2D_FIX(3), F2D_MILLI(200)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_prismatic_joint_set_limits(ref, jid[F2D_PRISMATIC_JOINT], true,
	                                                -F2D_FIX(1), F2D_FIX(2)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_distance_joint_set_length_range(ref, jid[F2D_DISTANCE_JOINT],
	                                                     F2D_MILLI(800), F2D_MILLI(1300)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_distance_joint_enable_limit(ref, jid[F2D_DISTANCE_JOINT], true),
	                 F2D_OK);
	ck_assert_int_eq(f2d_revolute_joint_set_limits(ref, jid[F2D_REVOLUTE_JOINT], false,
	                                               -F2D_MILLI(300), F2D_MILLI(250)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_distance_joint_set_length(ref, jid[F2D_DISTANCE_JOINT], F2D_MILLI(1200)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_mouse_joint_set_target(ref, jid[F2D_MOUSE_JOINT],
	                                            f2d_v(F2D_FIX(1), F2D_FIX(9))),
	                 F2D_OK);
	ck_assert_int_eq(f2d_mouse_joint_set_max_force(ref, jid[F2D_MOUSE_JOINT], F2D_FIX(300)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_motor_joint_set_offsets(ref, jid[F2D_MOTOR_JOINT],
	                                             f2d_v(-F2D_FIX(1), F2D_FIX(8)), F2D_MILLI(400)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_motor_joint_set_max(ref, jid[F2D_MOTOR_JOINT], F2D_FIX(80), F2D_FIX(10)),
	                 F2D_OK);
	ck_assert_int_eq(f2d_motor_joint_set_correction_factor(ref, jid[F2D_MOTOR_JOINT],
	                                                       F2D_MILLI(500)),
	                 F2D_OK);
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(w);
		f2d_world_step(ref);
	}
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));

	/* destroy through the command and directly */
	c[0] = setter(F2D_CMD_DESTROY_JOINT, jid[F2D_WELD_JOINT], 0);
	ck_assert_int_eq(f2d_world_apply_commands(w, c, 1, r), F2D_OK);
	ck_assert_int_eq(r[0].result, F2D_OK);
	ck_assert(!f2d_joint_is_valid(w, jid[F2D_WELD_JOINT]));
	ck_assert_int_eq(f2d_destroy_joint(ref, jid[F2D_WELD_JOINT]), F2D_OK);
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));

	/* segment and chain spawns: f2d_create_body + the shape functions */
	f2d_command sg = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
	sg.u.create.body.type = F2D_STATIC_BODY;
	sg.u.create.body.position = f2d_v(F2D_FIX(4), F2D_FIX(2));
	sg.u.create.kind = F2D_SPAWN_SEGMENT;
	sg.u.create.segment.point1 = f2d_v(-F2D_FIX(2), 0);
	sg.u.create.segment.point2 = f2d_v(F2D_FIX(2), -F2D_MILLI(500));
	sg.u.create.shape.friction = F2D_MILLI(300);
	f2d_command ch = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 1);
	ch.u.create.body.type = F2D_KINEMATIC_BODY;
	ch.u.create.body.position = f2d_v(-F2D_FIX(6), F2D_FIX(1));
	ch.u.create.body.linear_velocity = f2d_v(0, F2D_MILLI(100));
	ch.u.create.kind = F2D_SPAWN_CHAIN;
	ch.u.create.count = 5;
	ch.u.create.loop = true;
	const f2d_vec2 pts[5] = {{0, 0},
	                         {F2D_FIX(2), 0},
	                         {F2D_FIX(3), F2D_FIX(1)},
	                         {F2D_FIX(1), F2D_FIX(2)},
	                         {-F2D_FIX(1), F2D_FIX(1)}};
	memcpy(ch.u.create.points, pts, sizeof pts);
	ch.u.create.shape.restitution = F2D_MILLI(200);
	ch.u.create.shape.filter.category_bits = 2;
	ch.u.create.shape.user_data = 77;
	ch.u.create.shape.enable_contact_events = false;
	f2d_command both[2] = {sg, ch};
	through_bytes(both, 2);
	ck_assert_int_eq(f2d_world_apply_commands(w, both, 2, r), F2D_OK);
	ck_assert_msg(r[0].result == F2D_OK && r[1].result == F2D_OK, "%s",
	              f2d_world_last_error(w));
	f2d_body_id b;
	f2d_shape_id s;
	ck_assert_int_eq(f2d_create_body(ref, &sg.u.create.body, &b), F2D_OK);
	ck_assert(b.index1 == r[0].created.index1 && b.generation == r[0].created.generation);
	f2d_segment seg = sg.u.create.segment;
	ck_assert_int_eq(f2d_create_segment_shape(ref, b, &sg.u.create.shape, &seg, &s), F2D_OK);
	ck_assert_int_eq(f2d_create_body(ref, &ch.u.create.body, &b), F2D_OK);
	ck_assert(b.index1 == r[1].created.index1);
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 5;
	cd.loop = true;
	cd.friction = ch.u.create.shape.friction;
	cd.restitution = F2D_MILLI(200);
	cd.filter = ch.u.create.shape.filter;
	cd.user_data = 77;
	cd.enable_contact_events = false;
	ck_assert_int_eq(f2d_create_chain(ref, b, &cd, NULL, 0), F2D_OK);
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(w);
		f2d_world_step(ref);
	}
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));
	f2d_destroy_world(w);
	f2d_destroy_world(ref);
}
END_TEST

/* Every refusal: an error with a message, the world and its hash unchanged; the other
 * commands of the frame still apply. */
START_TEST(refusals_change_nothing)
{
	f2d_world *w = scene("random_stack");
	f2d_command c[48];
	f2d_command_result r[48];
	f2d_joint_id jid[7];
	for (int t = 0; t < 7; ++t) {
		f2d_command k = joint_cmd(w, (f2d_joint_type)t, 0, 0);
		ck_assert_int_eq(f2d_world_apply_commands(w, &k, 1, r), F2D_OK);
		ck_assert_int_eq(r[0].result, F2D_OK);
		jid[t] = r[0].created_joint;
	}
	f2d_joint_id stale = jid[F2D_WELD_JOINT];
	ck_assert_int_eq(f2d_destroy_joint(w, stale), F2D_OK);
	f2d_body_id gone = body_n(w, 10);
	int32_t n = 0;
	f2d_result expect[48];
#define BAD(cmd, err) (c[n] = (cmd), c[n].sequence = (uint16_t)n, expect[n++] = (err))
	/* create joint: each type refused by its create function */
	f2d_command k = joint_cmd(w, F2D_REVOLUTE_JOINT, 0, 0);
	k.u.create_joint.def.revolute.body_b = k.u.create_joint.def.revolute.body_a;
	BAD(k, F2D_ERROR_INVALID_VALUE); /* the same body twice */
	k = joint_cmd(w, F2D_DISTANCE_JOINT, 0, 0);
	k.u.create_joint.def.distance.length = 1; /* < 0.005 m */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = joint_cmd(w, F2D_PRISMATIC_JOINT, 0, 0);
	k.u.create_joint.def.prismatic.local_axis_a = f2d_v(0, 0);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = joint_cmd(w, F2D_WELD_JOINT, 0, 0);
	k.u.create_joint.def.weld.linear_hertz = -1;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = joint_cmd(w, F2D_WHEEL_JOINT, 0, 0);
	k.u.create_joint.def.wheel.body_a = gone;
	k.u.create_joint.def.wheel.body_a.generation += 7;
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = joint_cmd(w, F2D_MOTOR_JOINT, 0, 0);
	k.u.create_joint.def.motor.correction_factor = F2D_FIX(2);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = joint_cmd(w, F2D_MOUSE_JOINT, 0, 0);
	k.u.create_joint.def.mouse.max_force = -1;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = joint_cmd(w, F2D_MOUSE_JOINT, 0, 0);
	k.u.create_joint.type = 7; /* no such joint type */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	/* destroy and every setter: a stale handle, another joint type, a bad value */
	BAD(setter(F2D_CMD_DESTROY_JOINT, stale, 0), F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_JOINT_MOTOR, jid[F2D_WELD_JOINT + 0], 0);
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_JOINT_MOTOR, jid[F2D_MOTOR_JOINT], 0); /* no motor of that kind */
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_JOINT_MOTOR, jid[F2D_PRISMATIC_JOINT], 0);
	k.u.joint_motor.speed = F2D_FIX(1001);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_JOINT_MOTOR, jid[F2D_REVOLUTE_JOINT], 0);
	k.u.joint_motor.max_force = -1;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_JOINT_SPRING, jid[F2D_REVOLUTE_JOINT], 0);
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_JOINT_SPRING, jid[F2D_WHEEL_JOINT], 0);
	k.u.spring.enable = true;
	k.u.spring.hertz = F2D_FIX(1001);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_JOINT_SPRING, jid[F2D_DISTANCE_JOINT], 0);
	k.u.spring.damping_ratio = F2D_FIX(101);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_WELD_SPRINGS, stale, 0);
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_WELD_SPRINGS, jid[F2D_DISTANCE_JOINT], 0);
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_JOINT_LIMITS, jid[F2D_MOUSE_JOINT], 0); /* no limits */
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_JOINT_LIMITS, stale, 0);
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_JOINT_LIMITS, jid[F2D_PRISMATIC_JOINT], 0);
	k.u.limits.enable = true;
	k.u.limits.lower = F2D_FIX(1);
	k.u.limits.upper = -F2D_FIX(1); /* lower > upper */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_JOINT_LIMITS, jid[F2D_REVOLUTE_JOINT], 0);
	k.u.limits.enable = true;
	k.u.limits.upper = F2D_FIX(4); /* beyond pi */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_JOINT_LIMITS, jid[F2D_DISTANCE_JOINT], 0);
	k.u.limits.enable = true; /* would be set after the range, which is refused */
	k.u.limits.lower = F2D_FIX(2);
	k.u.limits.upper = F2D_FIX(1);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_JOINT_LIMITS, jid[F2D_WHEEL_JOINT], 0);
	k.u.limits.lower = F2D_FIX(20000);
	k.u.limits.upper = F2D_FIX(20000);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_DISTANCE_LENGTH, jid[F2D_DISTANCE_JOINT], 0);
	k.u.length.length = 0;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_DISTANCE_LENGTH, jid[F2D_PRISMATIC_JOINT], 0);
	k.u.length.length = F2D_ONE;
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_MOUSE_TARGET, jid[F2D_MOUSE_JOINT], 0);
	k.u.mouse_target.target = f2d_v(F2D_FIX(9000), 0);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_MOUSE_TARGET, jid[F2D_MOTOR_JOINT], 0);
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_MOUSE_MAX_FORCE, jid[F2D_MOUSE_JOINT], 0);
	k.u.mouse_max_force.force = -5;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_MOTOR_JOINT_OFFSETS, jid[F2D_MOTOR_JOINT], 0);
	k.u.offsets.angular = F2D_FIX(4); /* beyond pi */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_MOTOR_JOINT_OFFSETS, jid[F2D_MOUSE_JOINT], 0);
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	k = setter(F2D_CMD_SET_MOTOR_JOINT_MAX, jid[F2D_MOTOR_JOINT], 0);
	k.u.motor_max.max_torque = -1;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = setter(F2D_CMD_SET_MOTOR_JOINT_CORRECTION, jid[F2D_MOTOR_JOINT], 0);
	k.u.correction.factor = F2D_ONE + 1;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	/* format 1's motor command stays revolute-only */
	k = f2d_default_command(F2D_CMD_SET_MOTOR, 0, 0);
	k.u.motor.joint = jid[F2D_WHEEL_JOINT];
	k.u.motor.enable = true;
	BAD(k, F2D_ERROR_INVALID_HANDLE);
	/* segment and chain spawns */
	k = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
	k.u.create.kind = F2D_SPAWN_SEGMENT; /* on a dynamic body */
	k.u.create.segment.point2 = f2d_v(F2D_ONE, 0);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k.u.create.body.type = F2D_STATIC_BODY;
	k.u.create.segment.point2 = f2d_v(F2D_MILLI(4), 0); /* too short */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	f2d_command chain = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
	chain.u.create.body.type = F2D_STATIC_BODY;
	chain.u.create.kind = F2D_SPAWN_CHAIN;
	chain.u.create.count = 3;
	chain.u.create.points[1] = f2d_v(F2D_ONE, 0);
	chain.u.create.points[2] = f2d_v(F2D_ONE, F2D_ONE);
	k = chain;
	k.u.create.body.type = F2D_DYNAMIC_BODY;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = chain;
	k.u.create.shape.is_sensor = true;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = chain;
	k.u.create.points[2] = f2d_v(F2D_ONE, 1); /* points 1 and 2 too close */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = chain;
	k.u.create.points[2] = f2d_v(F2D_FIX(600), 0); /* beyond 512 m */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = chain;
	k.u.create.count = 1;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = chain;
	k.u.create.count = 2;
	k.u.create.loop = true;
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = chain;
	k.u.create.shape.friction = F2D_FIX(5);
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = chain;
	k.u.create.body.position = f2d_v(F2D_FIX(9000), 0); /* the body def: outside the world */
	BAD(k, F2D_ERROR_INVALID_VALUE);
	k = chain;
	k.u.create.body.angular_velocity = F2D_FIX(1); /* a static body does not move */
	BAD(k, F2D_ERROR_INVALID_VALUE);
#undef BAD
	ck_assert_int_le(n, 48);
	/* one at a time: each leaves the hash and sets a message */
	for (int32_t i = 0; i < n; ++i) {
		uint64_t h0 = f2d_world_hash(w);
		/* a known message first (a refused batch), so a new one shows */
		ck_assert_int_eq(f2d_world_apply_commands(w, c, -1, r), F2D_ERROR_INVALID_VALUE);
		char marker[256];
		snprintf(marker, sizeof marker, "%s", f2d_world_last_error(w));
		ck_assert_int_eq(f2d_world_apply_commands(w, &c[i], 1, r), F2D_OK);
		ck_assert_msg(r[0].result == expect[i], "command %d (type %d): %s, expected %s", i,
		              c[i].type, f2d_error_string(r[0].result), f2d_error_string(expect[i]));
		ck_assert_msg(strcmp(f2d_world_last_error(w), marker) != 0, "command %d: no message",
		              i);
		ck_assert_msg(f2d_world_hash(w) == h0, "command %d (type %d) changed the world", i,
		              c[i].type);
	}
	/* all in one frame with a good command in the middle: only it changes the world */
	f2d_world *ref = NULL;
	ck_assert_int_eq(f2d_world_clone(w, &ref), F2D_OK);
	c[n] = setter(F2D_CMD_SET_MOUSE_TARGET, jid[F2D_MOUSE_JOINT], (uint16_t)n);
	c[n].u.mouse_target.target = f2d_v(0, F2D_FIX(5));
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n + 1, r), F2D_OK);
	ck_assert_int_eq(r[n].result, F2D_OK);
	ck_assert_int_eq(f2d_mouse_joint_set_target(ref, jid[F2D_MOUSE_JOINT], f2d_v(0, F2D_FIX(5))),
	                 F2D_OK);
	ck_assert_uint_eq(f2d_world_hash(w), f2d_world_hash(ref));
	f2d_destroy_world(ref);
	f2d_destroy_world(w);
}
END_TEST

/* A run of 150 frames with joint create / motor / spring / limits / destroy commands (and a
 * chain spawn), recorded as bytes with the hash after every frame; re-simulated from the
 * decoded bytes and, after a rollback to frame 50, from a snapshot: the same hashes. */
#define RUN_FRAMES 150
typedef struct recorded {
	uint8_t bytes[RUN_FRAMES][8][F2D_COMMAND_MAX_BYTES];
	size_t len[RUN_FRAMES][8];
	int32_t count[RUN_FRAMES];
	uint64_t hash[RUN_FRAMES];
} recorded;

/* the joints made at frames 0 and 5 (their ids come back in the command results) */
static f2d_joint_id made[4];

static int32_t frame_commands(f2d_world *w, int32_t frame, f2d_command *c)
{
	const f2d_joint_id revolute = made[0], prismatic = made[1], wheel = made[2],
	                   distance = made[3];
	int32_t n = 0;
	switch (frame) {
	case 0:
		c[n++] = joint_cmd(w, F2D_REVOLUTE_JOINT, 0, 0);
		c[n++] = joint_cmd(w, F2D_PRISMATIC_JOINT, 0, 1);
		c[n++] = joint_cmd(w, F2D_WHEEL_JOINT, 1, 0);
		break;
	case 5: c[n++] = joint_cmd(w, F2D_DISTANCE_JOINT, 2, 0); break;
	case 20:
		c[n] = setter(F2D_CMD_SET_JOINT_MOTOR, revolute, 0);
		c[n].u.joint_motor.enable = true;
		c[n].u.joint_motor.speed = F2D_FIX(3);
		c[n++].u.joint_motor.max_force = F2D_FIX(40);
		c[n] = setter(F2D_CMD_SET_JOINT_MOTOR, wheel, 1);
		c[n].u.joint_motor.enable = true;
		c[n].u.joint_motor.speed = -F2D_FIX(6);
		c[n++].u.joint_motor.max_force = F2D_FIX(30);
		break;
	case 35:
		c[n] = setter(F2D_CMD_SET_JOINT_SPRING, prismatic, 0);
		c[n].u.spring.enable = true;
		c[n].u.spring.hertz = F2D_FIX(2);
		c[n++].u.spring.damping_ratio = F2D_MILLI(100);
		c[n] = setter(F2D_CMD_SET_JOINT_SPRING, distance, 1);
		c[n].u.spring.enable = false;
		c[n++].u.spring.hertz = 0;
		break;
	case 60:
		c[n] = setter(F2D_CMD_SET_JOINT_LIMITS, prismatic, 0);
		c[n].u.limits.enable = true;
		c[n].u.limits.lower = -F2D_MILLI(500);
		c[n++].u.limits.upper = F2D_MILLI(500);
		c[n] = f2d_default_command(F2D_CMD_CREATE_BODY, 3, 0);
		c[n].u.create.body.type = F2D_STATIC_BODY;
		c[n].u.create.body.position = f2d_v(F2D_FIX(8), F2D_FIX(1));
		c[n].u.create.kind = F2D_SPAWN_CHAIN;
		c[n].u.create.count = 4;
		c[n].u.create.points[0] = f2d_v(F2D_FIX(3), F2D_FIX(2));
		c[n].u.create.points[1] = f2d_v(F2D_FIX(1), 0);
		c[n].u.create.points[2] = f2d_v(-F2D_FIX(1), 0);
		c[n++].u.create.points[3] = f2d_v(-F2D_FIX(3), F2D_FIX(2));
		break;
	case 90:
		c[n++] = setter(F2D_CMD_DESTROY_JOINT, revolute, 0);
		c[n] = setter(F2D_CMD_SET_JOINT_MOTOR, revolute, 1); /* refused: destroyed before */
		c[n].u.joint_motor.enable = true;
		c[n++].u.joint_motor.max_force = F2D_FIX(1);
		break;
	case 120: c[n++] = setter(F2D_CMD_DESTROY_JOINT, wheel, 0); break;
	default: break;
	}
	return n;
}

START_TEST(joint_replay_resimulates)
{
	recorded *rec = calloc(1, sizeof *rec);
	ck_assert_ptr_nonnull(rec);
	f2d_world *w = scene("random_stack");
	f2d_command c[8], d[8];
	f2d_command_result r[8];
	int32_t refused = 0;
	uint8_t *snap = NULL;
	size_t snap_len = 0;
	for (int32_t f = 0; f < RUN_FRAMES; ++f) {
		if (f == 50) {
			size_t cap = f2d_snapshot_size(w);
			snap = malloc(cap);
			ck_assert_int_eq(f2d_snapshot_save(w, snap, cap, &snap_len), F2D_OK);
		}
		int32_t n = frame_commands(w, f, c);
		rec->count[f] = n;
		for (int32_t i = 0; i < n; ++i) {
			rec->len[f][i] = encode_ok(&c[i], rec->bytes[f][i]);
		}
		ck_assert_int_eq(f2d_world_apply_commands(w, c, n, r), F2D_OK);
		for (int32_t i = 0; i < n; ++i) {
			refused += r[i].result != F2D_OK;
			if (f == 0 && i < 3) {
				ck_assert_int_eq(r[i].result, F2D_OK);
			}
		}
		if (f == 0) {
			/* ids in canonical order: a function of the ids in use */
			ck_assert(r[0].created_joint.index1 == 1 && r[1].created_joint.index1 == 2 &&
			          r[2].created_joint.index1 == 3);
			made[0] = r[0].created_joint;
			made[1] = r[1].created_joint;
			made[2] = r[2].created_joint;
		}
		if (f == 5) {
			ck_assert_int_eq(r[0].result, F2D_OK);
			made[3] = r[0].created_joint;
		}
		f2d_world_step(w);
		rec->hash[f] = f2d_world_hash(w);
	}
	ck_assert_int_eq(refused, 1); /* the motor of the destroyed joint */
	/* the joints did something: the run differs from the scene without commands */
	f2d_world *plain = scene("random_stack");
	for (int32_t f = 0; f < RUN_FRAMES; ++f) {
		f2d_world_step(plain);
	}
	ck_assert_uint_ne(f2d_world_hash(plain), rec->hash[RUN_FRAMES - 1]);
	f2d_destroy_world(plain);
	/* re-simulated from the bytes */
	f2d_world *again = scene("random_stack");
	for (int32_t f = 0; f < RUN_FRAMES; ++f) {
		for (int32_t i = 0; i < rec->count[f]; ++i) {
			size_t used = 0;
			ck_assert_int_eq(f2d_command_decode(rec->bytes[f][i], rec->len[f][i], &d[i], &used),
			                 F2D_OK);
			ck_assert_uint_eq(used, rec->len[f][i]);
		}
		ck_assert_int_eq(f2d_world_apply_commands(again, d, rec->count[f], NULL), F2D_OK);
		f2d_world_step(again);
		ck_assert_msg(f2d_world_hash(again) == rec->hash[f], "re-simulation differs at frame %d",
		              f);
	}
	/* rolled back to frame 50 and re-simulated */
	ck_assert_int_eq(f2d_snapshot_restore(w, snap, snap_len), F2D_OK);
	for (int32_t f = 50; f < RUN_FRAMES; ++f) {
		for (int32_t i = 0; i < rec->count[f]; ++i) {
			size_t used = 0;
			ck_assert_int_eq(f2d_command_decode(rec->bytes[f][i], rec->len[f][i], &d[i], &used),
			                 F2D_OK);
		}
		ck_assert_int_eq(f2d_world_apply_commands(w, d, rec->count[f], NULL), F2D_OK);
		f2d_world_step(w);
		ck_assert_msg(f2d_world_hash(w) == rec->hash[f], "rollback differs at frame %d", f);
	}
	free(snap);
	f2d_destroy_world(again);
	f2d_destroy_world(w);
	free(rec);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("input_joints");
	TCase *tc = tcase_create("format3");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, round_trip_every_command);
	tcase_add_test(tc, random_bytes_decode_canonically);
	tcase_add_test(tc, random_commands_encode_canonically);
	tcase_add_test(tc, apply_equals_direct_api);
	tcase_add_test(tc, refusals_change_nothing);
	tcase_add_test(tc, joint_replay_resimulates);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
