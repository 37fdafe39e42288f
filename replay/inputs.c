/* fix2d-replay: the inputs of a recording: a reproducible random stream, or a text file.
 * SPDX-License-Identifier: MIT */
#include "inputs.h"
#include "replay.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- inputs: a reproducible random stream ---- */

static uint32_t rng_next(rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* uniform in [lo, hi] (fix16) */
static fix16_t rng_fix(rng *r, fix16_t lo, fix16_t hi)
{
	uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;
	return (fix16_t)(lo + (int64_t)(((uint64_t)rng_next(r) * span) >> 32));
}

/* A push of body b (mass from w): a kick of up to 3 m/s in any direction, up to 6 m/s
 * upwards, at its centre of mass. */
static f2d_command random_push(rng *r, const f2d_world *w, f2d_body_id b, uint8_t player,
                               uint16_t seq)
{
	f2d_command c = f2d_default_command(F2D_CMD_APPLY_IMPULSE, player, seq);
	c.u.push.body = b;
	fix16_t m = f2d_body_get_mass(w, b);
	c.u.push.vector.x = (fix16_t)(((int64_t)m * rng_fix(r, F2D_FIX(-3), F2D_FIX(3))) >> 16);
	c.u.push.vector.y = (fix16_t)(((int64_t)m * rng_fix(r, 0, F2D_FIX(6))) >> 16);
	c.u.push.point = f2d_body_get_world_center(w, b);
	return c;
}

/* A spawn at x -10..10 m, y 8..14 m: a ball of radius 0.2..0.5 m or a box of half extents
 * 0.2..0.6 m, one chance in two. */
static f2d_command random_spawn(rng *r, uint8_t player, uint16_t seq)
{
	f2d_command c = f2d_default_command(F2D_CMD_CREATE_BODY, player, seq);
	c.u.create.body.position.x = rng_fix(r, F2D_FIX(-10), F2D_FIX(10));
	c.u.create.body.position.y = rng_fix(r, F2D_FIX(8), F2D_FIX(14));
	if (rng_next(r) & 1) {
		c.u.create.kind = F2D_SPAWN_CIRCLE;
		c.u.create.circle.radius = rng_fix(r, F2D_MILLI(200), F2D_MILLI(500));
	} else {
		c.u.create.half_extents.x = rng_fix(r, F2D_MILLI(200), F2D_MILLI(600));
		c.u.create.half_extents.y = rng_fix(r, F2D_MILLI(200), F2D_MILLI(600));
	}
	return c;
}

/* Up to 4 players; each frame a player may push a dynamic body, now and then one spawns a
 * box or a ball, destroys a body or sends a payload. Chosen from the world's current bodies,
 * so the stream depends on the simulation, like a real game's would. */
int32_t random_frame(rng *r, const f2d_world *w, f2d_command *out)
{
	f2d_body_id ids[4096]; /* 32 KiB on the stack: no state kept between calls */
	int32_t total = f2d_world_get_bodies(w, ids, 4096);
	if (total > 4096) {
		total = 4096;
	}
	int32_t dyn = 0;
	for (int32_t i = 0; i < total; ++i) {
		if (f2d_body_get_type(w, ids[i]) == F2D_DYNAMIC_BODY) {
			ids[dyn++] = ids[i];
		}
	}
	int32_t n = 0; /* at most one command a player a frame: its sequence number is 0 */
	for (uint8_t player = 0; player < 4; ++player) {
		uint32_t roll = rng_next(r) % 960;
		if (roll < 120 && dyn > 0) {
			out[n++] = random_push(r, w, ids[rng_next(r) % (uint32_t)dyn], player, 0);
		} else if (roll < 128) {
			out[n++] = random_spawn(r, player, 0);
		} else if (roll < 131 && dyn > 0) {
			f2d_command c = f2d_default_command(F2D_CMD_DESTROY_BODY, player, 0);
			c.u.destroy.body = ids[rng_next(r) % (uint32_t)dyn];
			out[n++] = c;
		} else if (roll < 140) {
			f2d_command c = f2d_default_command(F2D_CMD_PAYLOAD, player, 0);
			c.u.payload.length = 4;
			uint32_t v = rng_next(r);
			for (int k = 0; k < 4; ++k) { /* little-endian on every host */
				c.u.payload.bytes[k] = (uint8_t)(v >> (8 * k));
			}
			out[n++] = c;
		}
	}
	return n;
}

/* ---- inputs: a text file ----
 * One command per line, '#' starts a comment; values are decimals (exact, no floating point):
 *   FRAME PLAYER impulse BODY GEN IX IY      (at the body's centre of mass)
 *   FRAME PLAYER force BODY GEN FX FY
 *   FRAME PLAYER velocity BODY GEN VX VY W
 *   FRAME PLAYER box HX HY X Y  |  FRAME PLAYER ball R X Y
 *   FRAME PLAYER destroy BODY GEN
 *   FRAME PLAYER motor JOINT GEN on|off SPEED MAX_TORQUE     (revolute joints: set_motor)
 *   FRAME PLAYER payload HEX
 * Command format 3 (joints, segment and chain spawns; VEC is X,Y without spaces):
 *   FRAME PLAYER capsule X1 Y1 X2 Y2 R X Y       (a dynamic body at X Y)
 *   FRAME PLAYER segment X1 Y1 X2 Y2 X Y         (a static body at X Y)
 *   FRAME PLAYER chain open|loop X Y X1 Y1 X2 Y2 ...   (static, 2..24 points)
 *   FRAME PLAYER joint TYPE BODY_A GEN_A BODY_B GEN_B [KEY=VALUE ...]
 *       TYPE revolute|distance|prismatic|weld|wheel|motor|mouse; the def starts from
 *       f2d_default_<TYPE>_joint_def() and each KEY sets one field: anchor_a=VEC anchor_b=VEC
 *       axis=VEC ref= length= min= max= lower= upper= hertz= damping= speed= max_force=
 *       max_torque= linear_hertz= linear_damping= angular_hertz= angular_damping= offset=VEC
 *       angle= correction= target=VEC, and the flags spring= limit= motor= collide= (on|off);
 *       a key the type's def does not have is an error
 *   FRAME PLAYER destroy_joint JOINT GEN
 *   FRAME PLAYER joint_motor JOINT GEN on|off SPEED MAX     (revolute, distance, prismatic, wheel)
 *   FRAME PLAYER spring JOINT GEN on|off HERTZ DAMPING      (distance, prismatic, wheel, mouse)
 *   FRAME PLAYER weld_springs JOINT GEN LIN_HERTZ LIN_DAMPING ANG_HERTZ ANG_DAMPING
 *   FRAME PLAYER limits JOINT GEN on|off LOWER UPPER        (revolute, prismatic, wheel, distance)
 *   FRAME PLAYER length JOINT GEN LENGTH                    (distance)
 *   FRAME PLAYER mouse_target JOINT GEN X Y  |  FRAME PLAYER mouse_force JOINT GEN FORCE
 *   FRAME PLAYER offsets JOINT GEN X Y ANGLE  |  motor_max JOINT GEN FORCE TORQUE
 *   FRAME PLAYER correction JOINT GEN FACTOR                (motor joints)
 * BODY and JOINT are the handle's index1 (as f2d_body_id.index1). Lines must be in frame
 * order; each player's commands in a frame get sequence numbers 0, 1, ... in file order. */

/* Decimal to fix16, integer arithmetic only, rounded half away from zero. */
static bool parse_fix(const char *t, fix16_t *out)
{
	bool neg = *t == '-';
	if (*t == '-' || *t == '+') {
		++t;
	}
	if (*t < '0' || *t > '9') {
		return false;
	}
	int64_t ip = 0;
	while (*t >= '0' && *t <= '9') {
		ip = ip * 10 + (*t++ - '0');
		if (ip > 40000) {
			return false;
		}
	}
	int64_t frac = 0, scale = 1;
	if (*t == '.') {
		++t;
		while (*t >= '0' && *t <= '9') {
			if (scale < 1000000000) {
				frac = frac * 10 + (*t - '0');
				scale *= 10;
			}
			++t;
		}
	}
	if (*t != '\0') {
		return false;
	}
	int64_t v = ip * 65536 + (frac * 65536 + scale / 2) / scale;
	if (v > INT32_MAX) {
		return false;
	}
	*out = (fix16_t)(neg ? -v : v);
	return true;
}

bool parse_u32(const char *t, uint32_t *out)
{
	char *end = NULL;
	if (*t < '0' || *t > '9') {
		return false;
	}
	unsigned long v = strtoul(t, &end, 10);
	if (*end != '\0' || v > UINT32_MAX) {
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

bool file_next_line(file_inputs *in)
{
	while (fgets(in->line, sizeof in->line, in->f) != NULL) {
		in->line_no++;
		char *hash = strchr(in->line, '#');
		if (hash != NULL) {
			*hash = '\0';
		}
		char *p = in->line;
		while (*p == ' ' || *p == '\t') {
			++p;
		}
		if (*p == '\0' || *p == '\n' || *p == '\r') {
			continue;
		}
		uint32_t frame;
		char first[32];
		if (sscanf(p, "%31s", first) != 1 || !parse_u32(first, &frame)) {
			snprintf(in->error, sizeof in->error, "line %ld: expected a frame number",
			         in->line_no);
			return false;
		}
		if (in->have_line && (long)frame < in->frame) {
			snprintf(in->error, sizeof in->error, "line %ld: frames go backwards",
			         in->line_no);
			return false;
		}
		in->frame = frame;
		in->have_line = true;
		return true;
	}
	in->have_line = false;
	return true;
}

/* ---- format 3 lines ---- */

/* Splits s (modified) at blanks into at most max tokens; -1 when there are more. */
static int split_tokens(char *s, char **tok, int max)
{
	int n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			*s++ = '\0';
		}
		if (*s == '\0') {
			return n;
		}
		if (n == max) {
			return -1;
		}
		tok[n++] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
			++s;
		}
	}
}

static bool parse_onoff(const char *t, bool *out)
{
	if (strcmp(t, "on") == 0 || strcmp(t, "off") == 0) {
		*out = t[1] == 'n';
		return true;
	}
	return false;
}

static bool parse_vec(const char *t, f2d_vec2 *v)
{
	char x[64];
	const char *comma = strchr(t, ',');
	if (comma == NULL || (size_t)(comma - t) >= sizeof x) {
		return false;
	}
	memcpy(x, t, (size_t)(comma - t));
	x[comma - t] = '\0';
	return parse_fix(x, &v->x) && parse_fix(comma + 1, &v->y);
}

static bool parse_joint_handle(char **tok, f2d_joint_id *j)
{
	uint32_t a, g;
	if (!parse_u32(tok[0], &a) || !parse_u32(tok[1], &g) || a > INT32_MAX) {
		return false;
	}
	j->index1 = (int32_t)a;
	j->generation = g;
	return true;
}

/* fix16 values tok[0..n) into out */
static bool parse_fixes(char **tok, int n, fix16_t *out)
{
	for (int i = 0; i < n; ++i) {
		if (!parse_fix(tok[i], &out[i])) {
			return false;
		}
	}
	return true;
}

/* The KEY=VALUE keys of a joint line: one row per field of a joint type's def (a key the type
 * has no row for is an error). Adding a key is one row. */
typedef struct joint_key {
	uint8_t type; /* f2d_joint_type */
	char kind;    /* 'f' fix16, 'v' vector, 'b' on|off */
	uint16_t offset;
	const char *key;
} joint_key;

/* clang-format off */
#define KEY(TYPE, DEF, NAME, KIND, FIELD) {TYPE, KIND, (uint16_t)offsetof(DEF, FIELD), NAME}
#define REV(NAME, KIND, FIELD) KEY(F2D_REVOLUTE_JOINT, f2d_revolute_joint_def, NAME, KIND, FIELD)
#define DIST(NAME, KIND, FIELD) KEY(F2D_DISTANCE_JOINT, f2d_distance_joint_def, NAME, KIND, FIELD)
#define PRIS(NAME, KIND, FIELD) KEY(F2D_PRISMATIC_JOINT, f2d_prismatic_joint_def, NAME, KIND, FIELD)
#define WELD(NAME, KIND, FIELD) KEY(F2D_WELD_JOINT, f2d_weld_joint_def, NAME, KIND, FIELD)
#define WHEEL(NAME, KIND, FIELD) KEY(F2D_WHEEL_JOINT, f2d_wheel_joint_def, NAME, KIND, FIELD)
#define MOTOR(NAME, KIND, FIELD) KEY(F2D_MOTOR_JOINT, f2d_motor_joint_def, NAME, KIND, FIELD)
#define MOUSE(NAME, KIND, FIELD) KEY(F2D_MOUSE_JOINT, f2d_mouse_joint_def, NAME, KIND, FIELD)
static const joint_key joint_keys[] = {
	REV("anchor_a", 'v', local_anchor_a),
	REV("anchor_b", 'v', local_anchor_b),
	REV("ref", 'f', reference_angle),
	REV("limit", 'b', enable_limit),
	REV("lower", 'f', lower_angle),
	REV("upper", 'f', upper_angle),
	REV("motor", 'b', enable_motor),
	REV("speed", 'f', motor_speed),
	REV("max_torque", 'f', max_motor_torque),
	REV("collide", 'b', collide_connected),

	DIST("anchor_a", 'v', local_anchor_a),
	DIST("anchor_b", 'v', local_anchor_b),
	DIST("length", 'f', length),
	DIST("spring", 'b', enable_spring),
	DIST("hertz", 'f', hertz),
	DIST("damping", 'f', damping_ratio),
	DIST("limit", 'b', enable_limit),
	DIST("min", 'f', min_length),
	DIST("max", 'f', max_length),
	DIST("motor", 'b', enable_motor),
	DIST("speed", 'f', motor_speed),
	DIST("max_force", 'f', max_motor_force),
	DIST("collide", 'b', collide_connected),

	PRIS("anchor_a", 'v', local_anchor_a),
	PRIS("anchor_b", 'v', local_anchor_b),
	PRIS("axis", 'v', local_axis_a),
	PRIS("ref", 'f', reference_angle),
	PRIS("spring", 'b', enable_spring),
	PRIS("hertz", 'f', hertz),
	PRIS("damping", 'f', damping_ratio),
	PRIS("limit", 'b', enable_limit),
	PRIS("lower", 'f', lower_translation),
	PRIS("upper", 'f', upper_translation),
	PRIS("motor", 'b', enable_motor),
	PRIS("speed", 'f', motor_speed),
	PRIS("max_force", 'f', max_motor_force),
	PRIS("collide", 'b', collide_connected),

	WELD("anchor_a", 'v', local_anchor_a),
	WELD("anchor_b", 'v', local_anchor_b),
	WELD("ref", 'f', reference_angle),
	WELD("linear_hertz", 'f', linear_hertz),
	WELD("linear_damping", 'f', linear_damping_ratio),
	WELD("angular_hertz", 'f', angular_hertz),
	WELD("angular_damping", 'f', angular_damping_ratio),
	WELD("collide", 'b', collide_connected),

	WHEEL("anchor_a", 'v', local_anchor_a),
	WHEEL("anchor_b", 'v', local_anchor_b),
	WHEEL("axis", 'v', local_axis_a),
	WHEEL("spring", 'b', enable_spring),
	WHEEL("hertz", 'f', hertz),
	WHEEL("damping", 'f', damping_ratio),
	WHEEL("limit", 'b', enable_limit),
	WHEEL("lower", 'f', lower_translation),
	WHEEL("upper", 'f', upper_translation),
	WHEEL("motor", 'b', enable_motor),
	WHEEL("speed", 'f', motor_speed),
	WHEEL("max_torque", 'f', max_motor_torque),
	WHEEL("collide", 'b', collide_connected),

	MOTOR("offset", 'v', linear_offset),
	MOTOR("angle", 'f', angular_offset),
	MOTOR("max_force", 'f', max_force),
	MOTOR("max_torque", 'f', max_torque),
	MOTOR("correction", 'f', correction_factor),
	MOTOR("collide", 'b', collide_connected),

	MOUSE("target", 'v', target),
	MOUSE("hertz", 'f', hertz),
	MOUSE("damping", 'f', damping_ratio),
	MOUSE("max_force", 'f', max_force),
	MOUSE("collide", 'b', collide_connected),
};
/* clang-format on */

/* The row of a joint type's key, or NULL. */
static const joint_key *find_joint_key(uint8_t type, const char *key)
{
	for (size_t i = 0; i < sizeof joint_keys / sizeof joint_keys[0]; ++i) {
		if (joint_keys[i].type == type && strcmp(key, joint_keys[i].key) == 0) {
			return &joint_keys[i];
		}
	}
	return NULL;
}

static const char *const joint_type_names[7] = {"revolute", "distance", "prismatic", "weld",
                                                "wheel",    "motor",    "mouse"};

/* A joint line: tok = TYPE BODY_A GEN_A BODY_B GEN_B KEY=VALUE... */
static bool parse_joint(char **tok, int nt, f2d_command *c)
{
	int type = -1;
	for (int t = 0; t < 7; ++t) {
		if (nt >= 5 && strcmp(tok[0], joint_type_names[t]) == 0) {
			type = t;
		}
	}
	if (type < 0) {
		return false;
	}
	f2d_command k = f2d_default_joint_command((f2d_joint_type)type, c->player, c->sequence);
	f2d_joint_id a, b;
	if (!parse_joint_handle(tok + 1, &a) || !parse_joint_handle(tok + 3, &b)) {
		return false;
	}
	/* body_a and body_b are the first fields of every def */
	f2d_body_id *bodies = (f2d_body_id *)&k.u.create_joint.def;
	bodies[0].index1 = a.index1;
	bodies[0].generation = a.generation;
	bodies[1].index1 = b.index1;
	bodies[1].generation = b.generation;
	uint8_t *def = (uint8_t *)(void *)&k.u.create_joint.def;
	for (int i = 5; i < nt; ++i) {
		char *eq = strchr(tok[i], '=');
		if (eq == NULL) {
			return false;
		}
		*eq = '\0';
		const joint_key *key = find_joint_key(k.u.create_joint.type, tok[i]);
		if (key == NULL) {
			return false;
		}
		void *field = def + key->offset;
		bool okv = key->kind == 'f'   ? parse_fix(eq + 1, field)
		           : key->kind == 'v' ? parse_vec(eq + 1, field)
		                              : parse_onoff(eq + 1, field);
		if (!okv) {
			return false;
		}
	}
	*c = k;
	return true;
}

/* The joint setter lines: KIND JOINT GEN [on|off] VALUE..., one row per kind: the command,
 * where its flag goes (0: none) and where each fix16 value goes (offsets in f2d_command). */
#define AT(FIELD) ((uint16_t)offsetof(f2d_command, u.FIELD))
typedef struct setter {
	const char *name;
	f2d_command_type type;
	uint16_t flag;
	int values;
	uint16_t at[4];
} setter;
/* clang-format off */
static const setter setters[] = {
	{"destroy_joint", F2D_CMD_DESTROY_JOINT, 0, 0, {0}},
	{"joint_motor", F2D_CMD_SET_JOINT_MOTOR, AT(joint_motor.enable), 2, {AT(joint_motor.speed), AT(joint_motor.max_force)}},
	{"spring", F2D_CMD_SET_JOINT_SPRING, AT(spring.enable), 2, {AT(spring.hertz), AT(spring.damping_ratio)}},
	{"weld_springs", F2D_CMD_SET_WELD_SPRINGS, 0, 4, {AT(weld_springs.linear_hertz), AT(weld_springs.linear_damping_ratio),
	                                                 AT(weld_springs.angular_hertz), AT(weld_springs.angular_damping_ratio)}},
	{"limits", F2D_CMD_SET_JOINT_LIMITS, AT(limits.enable), 2, {AT(limits.lower), AT(limits.upper)}},
	{"length", F2D_CMD_SET_DISTANCE_LENGTH, 0, 1, {AT(length.length)}},
	{"mouse_target", F2D_CMD_SET_MOUSE_TARGET, 0, 2, {AT(mouse_target.target.x), AT(mouse_target.target.y)}},
	{"mouse_force", F2D_CMD_SET_MOUSE_MAX_FORCE, 0, 1, {AT(mouse_max_force.force)}},
	{"offsets", F2D_CMD_SET_MOTOR_JOINT_OFFSETS, 0, 3, {AT(offsets.linear.x), AT(offsets.linear.y), AT(offsets.angular)}},
	{"motor_max", F2D_CMD_SET_MOTOR_JOINT_MAX, 0, 2, {AT(motor_max.max_force), AT(motor_max.max_torque)}},
	{"correction", F2D_CMD_SET_MOTOR_JOINT_CORRECTION, 0, 1, {AT(correction.factor)}},
};
/* clang-format on */

/* 1: a setter line parsed into *k, 0: not a setter, -1: a bad setter line. */
static int parse_setter(const char *kind, char **v, int nv, uint8_t player, f2d_command *k)
{
	const setter *s = NULL;
	for (size_t i = 0; i < sizeof setters / sizeof setters[0] && s == NULL; ++i) {
		s = strcmp(kind, setters[i].name) == 0 ? &setters[i] : NULL;
	}
	if (s == NULL) {
		return 0;
	}
	int flag = s->flag != 0 ? 1 : 0;
	f2d_joint_id j;
	bool on = false;
	fix16_t x[4] = {0, 0, 0, 0};
	if (nv != 2 + flag + s->values || !parse_joint_handle(v, &j) ||
	    (flag && !parse_onoff(v[2], &on)) || !parse_fixes(v + 2 + flag, s->values, x)) {
		return -1;
	}
	*k = f2d_default_command(s->type, player, 0);
	/* each setter's struct starts with the joint handle (input.h) */
	k->u.destroy_joint.joint = j;
	uint8_t *base = (uint8_t *)(void *)k;
	if (flag) {
		*(bool *)(void *)(base + s->flag) = on;
	}
	for (int i = 0; i < s->values; ++i) {
		*(fix16_t *)(void *)(base + s->at[i]) = x[i];
	}
	return 1;
}

/* 1: a capsule or segment line parsed into *k, 0: neither, -1: a bad one. */
static int parse_segment_spawn(const char *kind, char **v, int nv, uint8_t player, f2d_command *k)
{
	if (strcmp(kind, "capsule") != 0 && strcmp(kind, "segment") != 0) {
		return 0;
	}
	bool capsule = kind[0] == 'c';
	fix16_t x[7];
	if (nv != (capsule ? 7 : 6) || !parse_fixes(v, nv, x)) {
		return -1;
	}
	*k = f2d_default_command(F2D_CMD_CREATE_BODY, player, 0);
	f2d_spawn *sp = &k->u.create;
	if (capsule) {
		sp->kind = F2D_SPAWN_CAPSULE;
		sp->capsule.center1 = (f2d_vec2){x[0], x[1]};
		sp->capsule.center2 = (f2d_vec2){x[2], x[3]};
		sp->capsule.radius = x[4];
		sp->body.position = (f2d_vec2){x[5], x[6]};
	} else {
		sp->kind = F2D_SPAWN_SEGMENT;
		sp->body.type = F2D_STATIC_BODY;
		sp->segment.point1 = (f2d_vec2){x[0], x[1]};
		sp->segment.point2 = (f2d_vec2){x[2], x[3]};
		sp->body.position = (f2d_vec2){x[4], x[5]};
	}
	return 1;
}

/* 1: a chain line parsed into *k, 0: not a chain, -1: a bad one. */
static int parse_chain_spawn(const char *kind, char **v, int nv, uint8_t player, f2d_command *k)
{
	if (strcmp(kind, "chain") != 0) {
		return 0;
	}
	fix16_t x[2 + 2 * F2D_SPAWN_MAX_CHAIN_POINTS];
	int points = (nv - 3) / 2;
	if (!(nv >= 1 + 2 + 4 && (nv - 3) % 2 == 0 && points <= F2D_SPAWN_MAX_CHAIN_POINTS &&
	      (strcmp(v[0], "open") == 0 || strcmp(v[0], "loop") == 0) &&
	      parse_fixes(v + 1, nv - 1, x))) {
		return -1;
	}
	*k = f2d_default_command(F2D_CMD_CREATE_BODY, player, 0);
	f2d_spawn *sp = &k->u.create;
	sp->kind = F2D_SPAWN_CHAIN;
	sp->body.type = F2D_STATIC_BODY;
	sp->body.position = (f2d_vec2){x[0], x[1]};
	sp->loop = v[0][0] == 'l';
	sp->count = points;
	for (int i = 0; i < points; ++i) {
		sp->points[i] = (f2d_vec2){x[2 + 2 * i], x[3 + 2 * i]};
	}
	return 1;
}

/* 1: a format-3 line parsed into *c; 0: not one (the older kinds); -1: a bad format-3 line. */
static int parse_format3(const char *line, f2d_command *c, uint16_t *seqs)
{
	char copy[1024];
	snprintf(copy, sizeof copy, "%s", line);
	char *tok[64];
	int nt = split_tokens(copy, tok, 64);
	uint32_t player;
	if (nt < 3 || !parse_u32(tok[1], &player) || player > 255) {
		return nt < 0 ? -1 : 0;
	}
	const char *kind = tok[2];
	char **v = tok + 3;
	int nv = nt - 3;
	f2d_command k;
	memset(&k, 0, sizeof k);
	int r = parse_setter(kind, v, nv, (uint8_t)player, &k);
	if (r == 0 && strcmp(kind, "joint") == 0) {
		k.player = (uint8_t)player;
		r = parse_joint(v, nv, &k) ? 1 : -1;
	}
	if (r == 0) {
		r = parse_segment_spawn(kind, v, nv, (uint8_t)player, &k);
	}
	if (r == 0) {
		r = parse_chain_spawn(kind, v, nv, (uint8_t)player, &k);
	}
	if (r != 1) {
		return r;
	}
	k.player = (uint8_t)player;
	k.sequence = seqs[player]++;
	*c = k;
	return 1;
}

/* An older-kind line (impulse, force, velocity, destroy, motor, box, ball, payload) in words. */
typedef struct legacy_line {
	char tok[12][64];
	int nt;                /* words read */
	uint32_t player, a, b; /* a and b: the body or joint handle's index and generation */
	fix16_t v[4];          /* the numbers after the kind (and handle) */
	int nv;
} legacy_line;

/* Splits an older-kind line: its words, player, handle and numbers. False when they are bad. */
static bool split_legacy(const char *line, legacy_line *l)
{
	char(*tok)[64] = l->tok;
	l->nt = sscanf(line, "%63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s", tok[0],
	               tok[1], tok[2], tok[3], tok[4], tok[5], tok[6], tok[7], tok[8], tok[9],
	               tok[10], tok[11]);
	l->a = 0;
	l->b = 0;
	if (l->nt < 3 || !parse_u32(tok[1], &l->player) || l->player > 255) {
		return false;
	}
	const char *kind = tok[2];
	bool handle = strcmp(kind, "impulse") == 0 || strcmp(kind, "force") == 0 ||
	              strcmp(kind, "velocity") == 0 || strcmp(kind, "destroy") == 0 ||
	              strcmp(kind, "motor") == 0;
	int first_value = 3;
	if (handle) {
		if (l->nt < 5 || !parse_u32(tok[3], &l->a) || !parse_u32(tok[4], &l->b) ||
		    l->a > INT32_MAX) {
			return false;
		}
		first_value = 5;
	}
	if (strcmp(kind, "motor") == 0) {
		first_value = 6;
	}
	memset(l->v, 0, sizeof l->v);
	l->nv = 0;
	if (strcmp(kind, "payload") != 0) {
		for (int i = first_value; i < l->nt; ++i) {
			if (l->nv == 4 || !parse_fix(tok[i], &l->v[l->nv++])) {
				return false;
			}
		}
	}
	return true;
}

/* impulse, force, velocity and destroy lines (a body's handle first): 1 parsed into *c, 0 not
 * one of these kinds, -1 a bad one. */
static int body_command(const legacy_line *l, uint16_t seq, f2d_command *c)
{
	const char *kind = l->tok[2];
	uint8_t player = (uint8_t)l->player;
	f2d_body_id body = {(int32_t)l->a, l->b};
	if (strcmp(kind, "impulse") == 0 || strcmp(kind, "force") == 0) {
		if (l->nv != 2) {
			return -1;
		}
		*c = f2d_default_command(strcmp(kind, "impulse") == 0 ? F2D_CMD_APPLY_IMPULSE
		                                                      : F2D_CMD_APPLY_FORCE,
		                         player, seq);
		c->u.push.body = body;
		c->u.push.vector.x = l->v[0];
		c->u.push.vector.y = l->v[1];
		c->u.push.point.x = INT32_MIN; /* resolved to the centre when applied */
	} else if (strcmp(kind, "velocity") == 0 && l->nv == 3) {
		*c = f2d_default_command(F2D_CMD_SET_VELOCITY, player, seq);
		c->u.velocity.body = body;
		c->u.velocity.linear.x = l->v[0];
		c->u.velocity.linear.y = l->v[1];
		c->u.velocity.angular = l->v[2];
	} else if (strcmp(kind, "destroy") == 0 && l->nv == 0) {
		*c = f2d_default_command(F2D_CMD_DESTROY_BODY, player, seq);
		c->u.destroy.body = body;
	} else {
		return 0;
	}
	return 1;
}

/* box and ball lines: 1 parsed into *c, 0 not one of these (or a wrong count of numbers). */
static int spawn_command(const legacy_line *l, uint16_t seq, f2d_command *c)
{
	const char *kind = l->tok[2];
	if (!(strcmp(kind, "box") == 0 && l->nv == 4) &&
	    !(strcmp(kind, "ball") == 0 && l->nv == 3)) {
		return 0;
	}
	*c = f2d_default_command(F2D_CMD_CREATE_BODY, (uint8_t)l->player, seq);
	if (kind[1] == 'o') {
		c->u.create.half_extents.x = l->v[0];
		c->u.create.half_extents.y = l->v[1];
		c->u.create.body.position.x = l->v[2];
		c->u.create.body.position.y = l->v[3];
	} else {
		c->u.create.kind = F2D_SPAWN_CIRCLE;
		c->u.create.circle.radius = l->v[0];
		c->u.create.body.position.x = l->v[1];
		c->u.create.body.position.y = l->v[2];
	}
	return 1;
}

/* A motor line (a joint's handle, on|off, speed, max torque) into *c; false when bad. */
static bool motor_command(const legacy_line *l, uint16_t seq, f2d_command *c)
{
	*c = f2d_default_command(F2D_CMD_SET_MOTOR, (uint8_t)l->player, seq);
	c->u.motor.joint.index1 = (int32_t)l->a;
	c->u.motor.joint.generation = l->b;
	c->u.motor.enable = strcmp(l->tok[5], "on") == 0;
	if (!c->u.motor.enable && strcmp(l->tok[5], "off") != 0) {
		return false;
	}
	c->u.motor.speed = l->v[0];
	c->u.motor.max_torque = l->v[1];
	return true;
}

/* A payload line (the bytes in hexadecimal) into *c; false when bad. */
static bool payload_command(const legacy_line *l, uint16_t seq, f2d_command *c)
{
	const char *hex = l->tok[3];
	size_t len = strlen(hex);
	if (len % 2 != 0 || len / 2 > F2D_MAX_PAYLOAD) {
		return false;
	}
	*c = f2d_default_command(F2D_CMD_PAYLOAD, (uint8_t)l->player, seq);
	c->u.payload.length = (uint16_t)(len / 2);
	for (size_t i = 0; i < len / 2; ++i) {
		unsigned int byte;
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1) {
			return false;
		}
		c->u.payload.bytes[i] = (uint8_t)byte;
	}
	return true;
}

static bool parse_command(file_inputs *in, f2d_command *c, uint16_t *seqs)
{
	int f3 = parse_format3(in->line, c, seqs);
	if (f3 != 0) {
		return f3 == 1;
	}
	legacy_line l;
	if (!split_legacy(in->line, &l)) {
		return false;
	}
	const char *kind = l.tok[2];
	uint16_t seq = seqs[l.player]++;
	int r = body_command(&l, seq, c);
	if (r == 0) {
		r = spawn_command(&l, seq, c);
	}
	if (r != 0) {
		return r == 1;
	}
	if (strcmp(kind, "motor") == 0 && l.nv == 2 && l.nt == 8) {
		return motor_command(&l, seq, c);
	}
	if (strcmp(kind, "payload") == 0 && l.nt == 4) {
		return payload_command(&l, seq, c);
	}
	return false;
}

/* Commands of `frame` from the file; -1 on a parse error (in->error). */
int32_t file_frame(file_inputs *in, long frame, const f2d_world *w, f2d_command *out)
{
	uint16_t seqs[256];
	memset(seqs, 0, sizeof seqs);
	int32_t n = 0;
	while (in->have_line && in->frame == frame) {
		if (n == F2D_MAX_FRAME_COMMANDS) {
			snprintf(in->error, sizeof in->error,
			         "line %ld: too many commands in frame %ld", in->line_no, frame);
			return -1;
		}
		if (!parse_command(in, &out[n], seqs)) {
			snprintf(in->error, sizeof in->error, "line %ld: cannot parse command",
			         in->line_no);
			return -1;
		}
		f2d_command *c = &out[n];
		if ((c->type == F2D_CMD_APPLY_IMPULSE || c->type == F2D_CMD_APPLY_FORCE) &&
		    c->u.push.point.x == INT32_MIN) {
			c->u.push.point = f2d_body_get_world_center(w, c->u.push.body);
		}
		++n;
		if (!file_next_line(in)) {
			return -1;
		}
	}
	return n;
}
