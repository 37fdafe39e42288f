/* fix2d input layer: per-frame commands in canonical order and their byte encoding.
 * SPDX-License-Identifier: MIT
 */
#include "core.h"
#include "fix2d/input.h"

f2d_command f2d_default_command(f2d_command_type type, uint8_t player, uint16_t sequence)
{
	f2d_command c;
	memset(&c, 0, sizeof c);
	c.type = (uint8_t)type;
	c.player = player;
	c.sequence = sequence;
	if (type == F2D_CMD_CREATE_BODY) {
		c.u.create.body = f2d_default_body_def();
		c.u.create.body.type = F2D_DYNAMIC_BODY;
		c.u.create.shape = f2d_default_shape_def();
		c.u.create.kind = F2D_SPAWN_BOX;
		c.u.create.half_extents = f2d_v(F2D_MILLI(500), F2D_MILLI(500));
	}
	return c;
}

/* ---- applying ---- */

static f2d_result spawn(f2d_world *w, const f2d_spawn *sp, f2d_body_id *out)
{
	f2d_shape proto;
	memset(&proto, 0, sizeof proto);
	f2d_result r = F2D_OK;
	switch (sp->kind) {
	case F2D_SPAWN_BOX:
		proto.type = F2D_POLYGON_SHAPE;
		r = f2d_make_box(sp->half_extents.x, sp->half_extents.y, &proto.polygon);
		break;
	case F2D_SPAWN_POLYGON:
		proto.type = F2D_POLYGON_SHAPE;
		r = f2d_make_polygon(sp->points, sp->count, &proto.polygon);
		break;
	case F2D_SPAWN_CIRCLE:
		proto.type = F2D_CIRCLE_SHAPE;
		proto.circle = sp->circle;
		r = f2d_check_circle(w, &sp->circle);
		break;
	case F2D_SPAWN_CAPSULE:
		proto.type = F2D_CAPSULE_SHAPE;
		proto.capsule = sp->capsule;
		r = f2d_capsule_ok(&sp->capsule) ? F2D_OK : F2D_ERROR_INVALID_VALUE;
		break;
	default: r = F2D_ERROR_INVALID_VALUE; break;
	}
	if (r != F2D_OK) {
		return f2d_set_error(w, r, "create body command: invalid shape");
	}
	return f2d_spawn_body(w, &sp->body, &sp->shape, &proto, out);
}

static f2d_result apply_one(f2d_world *w, const f2d_command *c, f2d_command_result *res)
{
	switch (c->type) {
	case F2D_CMD_APPLY_FORCE:
		return f2d_body_apply_force(w, c->u.push.body, c->u.push.vector, c->u.push.point);
	case F2D_CMD_APPLY_IMPULSE:
		return f2d_body_apply_linear_impulse(w, c->u.push.body, c->u.push.vector,
		                                     c->u.push.point);
	case F2D_CMD_SET_VELOCITY: {
		/* both or neither: the angular value is checked on its own first */
		f2d_body *b = f2d_get_body(w, c->u.velocity.body);
		if (b == NULL) {
			return f2d_set_error(
			    w, F2D_ERROR_INVALID_HANDLE,
			    "set velocity command: null, stale or foreign body handle");
		}
		fix16_t old = b->w;
		f2d_result r =
		    f2d_body_set_angular_velocity(w, c->u.velocity.body, c->u.velocity.angular);
		if (r == F2D_OK) {
			r = f2d_body_set_linear_velocity(w, c->u.velocity.body,
			                                 c->u.velocity.linear);
			if (r != F2D_OK) {
				b->w = old;
			}
		}
		return r;
	}
	case F2D_CMD_CREATE_BODY: return spawn(w, &c->u.create, &res->created);
	case F2D_CMD_DESTROY_BODY: return f2d_destroy_body(w, c->u.destroy.body);
	case F2D_CMD_SET_MOTOR: {
		f2d_joint_id j = c->u.motor.joint;
		if (!f2d_joint_is_valid(w, j)) {
			return f2d_set_error(
			    w, F2D_ERROR_INVALID_HANDLE,
			    "set motor command: null, stale or foreign joint handle");
		}
		if (c->u.motor.max_torque < 0 || c->u.motor.speed < F2D_FIX(-1000) ||
		    c->u.motor.speed > F2D_FIX(1000)) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "set motor command: speed within +-1000, torque >= 0");
		}
		f2d_revolute_joint_set_motor_speed(w, j, c->u.motor.speed);
		f2d_revolute_joint_set_max_motor_torque(w, j, c->u.motor.max_torque);
		return f2d_revolute_joint_enable_motor(w, j, c->u.motor.enable);
	}
	case F2D_CMD_PAYLOAD: return F2D_OK;
	/* format 2: each one is one public setter, which validates and changes nothing on a
	 * refusal (f2d_body_set_damping sets both values or neither) */
	case F2D_CMD_SET_FILTER:
		return f2d_shape_set_filter(w, c->u.filter.shape, c->u.filter.filter);
	case F2D_CMD_SET_BODY_TYPE:
		return f2d_body_set_type(w, c->u.body_type.body, c->u.body_type.type);
	case F2D_CMD_SET_GRAVITY_SCALE:
		return f2d_body_set_gravity_scale(w, c->u.gravity_scale.body, c->u.gravity_scale.scale);
	case F2D_CMD_SET_DAMPING:
		return f2d_body_set_damping(w, c->u.damping.body, c->u.damping.linear,
		                            c->u.damping.angular);
	case F2D_CMD_SET_FIXED_ROTATION:
		return f2d_body_set_fixed_rotation(w, c->u.fixed_rotation.body,
		                                   c->u.fixed_rotation.fixed);
	default: return F2D_ERROR_INVALID_VALUE;
	}
}

const char *f2d_command_type_name(uint8_t type)
{
	static const char *const names[F2D_CMD_LAST + 1] = {
	    NULL,          "apply_force",  "apply_impulse", "set_velocity",      "create_body",
	    "destroy_body", "set_motor",   "payload",       "set_filter",        "set_body_type",
	    "set_gravity_scale", "set_damping", "set_fixed_rotation"};
	return type <= F2D_CMD_LAST ? names[type] : NULL;
}

static bool command_before(const f2d_command *a, const f2d_command *b)
{
	return a->player < b->player || (a->player == b->player && a->sequence < b->sequence);
}

f2d_result f2d_world_apply_commands(f2d_world *w, const f2d_command *cmds, int32_t count,
                                    f2d_command_result *results)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (count < 0 || count > F2D_MAX_FRAME_COMMANDS || (count > 0 && cmds == NULL)) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "apply_commands: count must be in [0, %d] with a command array",
		    F2D_MAX_FRAME_COMMANDS);
	}
	/* canonical order by insertion sort of indices (no allocation; frames are small) */
	int16_t order[F2D_MAX_FRAME_COMMANDS];
	for (int32_t i = 0; i < count; ++i) {
		if (cmds[i].type < F2D_CMD_APPLY_FORCE || cmds[i].type > F2D_CMD_LAST) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "apply_commands: command %d has unknown type %d", i,
			                     cmds[i].type);
		}
		int32_t j = i - 1;
		while (j >= 0 && command_before(&cmds[i], &cmds[order[j]])) {
			order[j + 1] = order[j];
			--j;
		}
		order[j + 1] = (int16_t)i;
	}
	for (int32_t i = 1; i < count; ++i) {
		const f2d_command *a = &cmds[order[i - 1]], *b = &cmds[order[i]];
		if (a->player == b->player && a->sequence == b->sequence) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "apply_commands: player %d sends sequence %d twice",
			                     a->player, a->sequence);
		}
	}
	for (int32_t i = 0; i < count; ++i) {
		int32_t k = order[i];
		f2d_command_result local = {F2D_OK, {0, 0}};
		local.result = apply_one(w, &cmds[k], &local);
		if (results != NULL) {
			results[k] = local;
		}
	}
	return F2D_OK;
}

/* ---- encoding ---- */

typedef struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool overflow;
} wbuf;

static void w8(wbuf *b, uint32_t v)
{
	if (b->len + 1 > b->cap) {
		b->overflow = true;
		return;
	}
	b->p[b->len++] = (uint8_t)v;
}

static void w32(wbuf *b, uint32_t v)
{
	for (int i = 0; i < 4; ++i) {
		w8(b, (v >> (8 * i)) & 0xFFu);
	}
}

static void w64(wbuf *b, uint64_t v)
{
	w32(b, (uint32_t)v);
	w32(b, (uint32_t)(v >> 32));
}

static void wvec(wbuf *b, f2d_vec2 v)
{
	w32(b, (uint32_t)v.x);
	w32(b, (uint32_t)v.y);
}

static void wbody(wbuf *b, f2d_body_id id)
{
	w32(b, (uint32_t)id.index1);
	w32(b, id.generation);
}

/* The create-body extension (format 2): the def fields format 1 does not carry. */
enum {
	EXT_CONTACT_EVENTS = 1,
	EXT_HIT_EVENTS = 2,
	EXT_SENSOR_EVENTS = 4,
	EXT_SENSOR = 8,
	EXT_FIXED_ROTATION = 16,
	EXT_RESERVED = 0xE0
};

static uint32_t ext_flags(const f2d_spawn *s)
{
	return (s->shape.enable_contact_events ? EXT_CONTACT_EVENTS : 0u) |
	       (s->shape.enable_hit_events ? EXT_HIT_EVENTS : 0u) |
	       (s->shape.enable_sensor_events ? EXT_SENSOR_EVENTS : 0u) |
	       (s->shape.is_sensor ? EXT_SENSOR : 0u) |
	       (s->body.fixed_rotation ? EXT_FIXED_ROTATION : 0u);
}

/* true when every extension field has its default (f2d_default_shape_def and _body_def):
 * then the extension is not written, and decode refuses one that is */
static bool ext_is_default(const f2d_spawn *s)
{
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_body_def bd = f2d_default_body_def();
	f2d_spawn d;
	d.shape = sd;
	d.body = bd;
	return s->shape.filter.category_bits == sd.filter.category_bits &&
	       s->shape.filter.mask_bits == sd.filter.mask_bits &&
	       s->shape.filter.group_index == sd.filter.group_index && ext_flags(s) == ext_flags(&d) &&
	       s->body.gravity_scale == bd.gravity_scale &&
	       s->body.linear_damping == bd.linear_damping &&
	       s->body.angular_damping == bd.angular_damping;
}

f2d_result f2d_command_encode(const f2d_command *c, uint8_t *buf, size_t cap, size_t *written)
{
	if (c == NULL || buf == NULL || written == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	wbuf b = {buf, 0, cap, false};
	w8(&b, c->type);
	w8(&b, c->player);
	w8(&b, c->sequence & 0xFFu);
	w8(&b, (uint32_t)c->sequence >> 8);
	switch (c->type) {
	case F2D_CMD_APPLY_FORCE:
	case F2D_CMD_APPLY_IMPULSE:
		wbody(&b, c->u.push.body);
		wvec(&b, c->u.push.vector);
		wvec(&b, c->u.push.point);
		break;
	case F2D_CMD_SET_VELOCITY:
		wbody(&b, c->u.velocity.body);
		wvec(&b, c->u.velocity.linear);
		w32(&b, (uint32_t)c->u.velocity.angular);
		break;
	case F2D_CMD_CREATE_BODY: {
		const f2d_spawn *s = &c->u.create;
		if (s->kind > F2D_SPAWN_CAPSULE ||
		    (s->kind == F2D_SPAWN_POLYGON &&
		     (s->count < 3 || s->count > F2D_MAX_POLYGON_VERTICES)) ||
		    (uint32_t)s->body.type > (uint32_t)F2D_DYNAMIC_BODY) {
			return F2D_ERROR_INVALID_VALUE;
		}
		/* low 4 bits: body type (0..2; 3..15 are reserved and refused); 16: sleep disabled,
		 * 32: created asleep (so the bytes of a default def are those of format 1); 64 is
		 * reserved: 0; 128 (format 2): the extension follows the shape */
		bool ext = !ext_is_default(s);
		w8(&b, (uint32_t)s->body.type | (s->body.enable_sleep ? 0u : 16u) |
		           (s->body.awake ? 0u : 32u) | (ext ? 128u : 0u));
		wvec(&b, s->body.position);
		w32(&b, (uint32_t)s->body.rotation.c);
		w32(&b, (uint32_t)s->body.rotation.s);
		wvec(&b, s->body.linear_velocity);
		w32(&b, (uint32_t)s->body.angular_velocity);
		w64(&b, s->body.user_data);
		w32(&b, (uint32_t)s->shape.density);
		w32(&b, (uint32_t)s->shape.friction);
		w32(&b, (uint32_t)s->shape.restitution);
		w64(&b, s->shape.user_data);
		w8(&b, s->kind);
		if (s->kind == F2D_SPAWN_BOX) {
			wvec(&b, s->half_extents);
		} else if (s->kind == F2D_SPAWN_CIRCLE) {
			wvec(&b, s->circle.center);
			w32(&b, (uint32_t)s->circle.radius);
		} else if (s->kind == F2D_SPAWN_CAPSULE) {
			wvec(&b, s->capsule.center1);
			wvec(&b, s->capsule.center2);
			w32(&b, (uint32_t)s->capsule.radius);
		} else {
			w8(&b, (uint32_t)s->count);
			for (int32_t i = 0; i < s->count; ++i) {
				wvec(&b, s->points[i]);
			}
		}
		if (ext) {
			w64(&b, s->shape.filter.category_bits);
			w64(&b, s->shape.filter.mask_bits);
			w32(&b, (uint32_t)s->shape.filter.group_index);
			w8(&b, ext_flags(s));
			w32(&b, (uint32_t)s->body.gravity_scale);
			w32(&b, (uint32_t)s->body.linear_damping);
			w32(&b, (uint32_t)s->body.angular_damping);
		}
		break;
	}
	case F2D_CMD_DESTROY_BODY: wbody(&b, c->u.destroy.body); break;
	case F2D_CMD_SET_MOTOR:
		w32(&b, (uint32_t)c->u.motor.joint.index1);
		w32(&b, c->u.motor.joint.generation);
		w8(&b, c->u.motor.enable ? 1u : 0u);
		w32(&b, (uint32_t)c->u.motor.speed);
		w32(&b, (uint32_t)c->u.motor.max_torque);
		break;
	case F2D_CMD_PAYLOAD:
		if (c->u.payload.length > F2D_MAX_PAYLOAD) {
			return F2D_ERROR_INVALID_VALUE;
		}
		w8(&b, c->u.payload.length);
		for (uint32_t i = 0; i < c->u.payload.length; ++i) {
			w8(&b, c->u.payload.bytes[i]);
		}
		break;
	case F2D_CMD_SET_FILTER:
		w32(&b, (uint32_t)c->u.filter.shape.index1);
		w32(&b, c->u.filter.shape.generation);
		w64(&b, c->u.filter.filter.category_bits);
		w64(&b, c->u.filter.filter.mask_bits);
		w32(&b, (uint32_t)c->u.filter.filter.group_index);
		break;
	case F2D_CMD_SET_BODY_TYPE:
		if ((uint32_t)c->u.body_type.type > (uint32_t)F2D_DYNAMIC_BODY) {
			return F2D_ERROR_INVALID_VALUE;
		}
		wbody(&b, c->u.body_type.body);
		w8(&b, (uint32_t)c->u.body_type.type);
		break;
	case F2D_CMD_SET_GRAVITY_SCALE:
		wbody(&b, c->u.gravity_scale.body);
		w32(&b, (uint32_t)c->u.gravity_scale.scale);
		break;
	case F2D_CMD_SET_DAMPING:
		wbody(&b, c->u.damping.body);
		w32(&b, (uint32_t)c->u.damping.linear);
		w32(&b, (uint32_t)c->u.damping.angular);
		break;
	case F2D_CMD_SET_FIXED_ROTATION:
		wbody(&b, c->u.fixed_rotation.body);
		w8(&b, c->u.fixed_rotation.fixed ? 1u : 0u);
		break;
	default: return F2D_ERROR_INVALID_VALUE;
	}
	if (b.overflow) {
		return F2D_ERROR_CAPACITY;
	}
	*written = b.len;
	return F2D_OK;
}

typedef struct rbuf {
	const uint8_t *p;
	size_t len, pos;
	bool short_read;
} rbuf;

static uint32_t r8(rbuf *b)
{
	if (b->pos + 1 > b->len) {
		b->short_read = true;
		return 0;
	}
	return b->p[b->pos++];
}

static uint32_t r32(rbuf *b)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; ++i) {
		v |= r8(b) << (8 * i);
	}
	return v;
}

static uint64_t r64(rbuf *b)
{
	uint64_t lo = r32(b);
	return lo | ((uint64_t)r32(b) << 32);
}

static fix16_t rfix(rbuf *b)
{
	return (fix16_t)r32(b);
}

static f2d_vec2 rvec(rbuf *b)
{
	f2d_vec2 v;
	v.x = rfix(b);
	v.y = rfix(b);
	return v;
}

static f2d_body_id rbody(rbuf *b)
{
	f2d_body_id id;
	id.index1 = (int32_t)r32(b);
	id.generation = r32(b);
	return id;
}

f2d_result f2d_command_decode(const uint8_t *buf, size_t len, f2d_command *out, size_t *consumed)
{
	if (buf == NULL || out == NULL || consumed == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	rbuf b = {buf, len, 0, false};
	f2d_command c;
	memset(&c, 0, sizeof c);
	c.type = (uint8_t)r8(&b);
	c.player = (uint8_t)r8(&b);
	c.sequence = (uint16_t)(r8(&b) | (r8(&b) << 8));
	switch (c.type) {
	case F2D_CMD_APPLY_FORCE:
	case F2D_CMD_APPLY_IMPULSE:
		c.u.push.body = rbody(&b);
		c.u.push.vector = rvec(&b);
		c.u.push.point = rvec(&b);
		break;
	case F2D_CMD_SET_VELOCITY:
		c.u.velocity.body = rbody(&b);
		c.u.velocity.linear = rvec(&b);
		c.u.velocity.angular = rfix(&b);
		break;
	case F2D_CMD_CREATE_BODY: {
		f2d_spawn *s = &c.u.create;
		/* canonical only: every accepted byte string is the encoding of the command it
		 * decodes to (the reserved bits and body types are refused, see encode) */
		uint32_t type = r8(&b);
		if ((type & 64u) != 0 || (type & 15u) > (uint32_t)F2D_DYNAMIC_BODY) {
			return F2D_ERROR_INVALID_VALUE;
		}
		/* without the extension, its fields (options, filter, events) keep their defaults */
		s->body = f2d_default_body_def();
		s->shape = f2d_default_shape_def();
		s->body.type = (f2d_body_type)(type & 15u);
		s->body.enable_sleep = (type & 16u) == 0;
		s->body.awake = (type & 32u) == 0;
		s->body.position = rvec(&b);
		s->body.rotation.c = rfix(&b);
		s->body.rotation.s = rfix(&b);
		s->body.linear_velocity = rvec(&b);
		s->body.angular_velocity = rfix(&b);
		s->body.user_data = r64(&b);
		s->shape.density = rfix(&b);
		s->shape.friction = rfix(&b);
		s->shape.restitution = rfix(&b);
		s->shape.user_data = r64(&b);
		s->kind = (uint8_t)r8(&b);
		if (s->kind == F2D_SPAWN_BOX) {
			s->half_extents = rvec(&b);
		} else if (s->kind == F2D_SPAWN_CIRCLE) {
			s->circle.center = rvec(&b);
			s->circle.radius = rfix(&b);
		} else if (s->kind == F2D_SPAWN_POLYGON) {
			s->count = (int32_t)r8(&b);
			if (s->count < 3 || s->count > F2D_MAX_POLYGON_VERTICES) {
				return F2D_ERROR_INVALID_VALUE;
			}
			for (int32_t i = 0; i < s->count; ++i) {
				s->points[i] = rvec(&b);
			}
		} else if (s->kind == F2D_SPAWN_CAPSULE) {
			s->capsule.center1 = rvec(&b);
			s->capsule.center2 = rvec(&b);
			s->capsule.radius = rfix(&b);
		} else {
			return F2D_ERROR_INVALID_VALUE;
		}
		if ((type & 128u) != 0) {
			s->shape.filter.category_bits = r64(&b);
			s->shape.filter.mask_bits = r64(&b);
			s->shape.filter.group_index = (int32_t)r32(&b);
			uint32_t flags = r8(&b);
			s->shape.enable_contact_events = (flags & EXT_CONTACT_EVENTS) != 0;
			s->shape.enable_hit_events = (flags & EXT_HIT_EVENTS) != 0;
			s->shape.enable_sensor_events = (flags & EXT_SENSOR_EVENTS) != 0;
			s->shape.is_sensor = (flags & EXT_SENSOR) != 0;
			s->body.fixed_rotation = (flags & EXT_FIXED_ROTATION) != 0;
			s->body.gravity_scale = rfix(&b);
			s->body.linear_damping = rfix(&b);
			s->body.angular_damping = rfix(&b);
			if ((flags & EXT_RESERVED) != 0 || (!b.short_read && ext_is_default(s))) {
				return F2D_ERROR_INVALID_VALUE; /* encode writes no such extension */
			}
		}
		break;
	}
	case F2D_CMD_DESTROY_BODY: c.u.destroy.body = rbody(&b); break;
	case F2D_CMD_SET_MOTOR:
		c.u.motor.joint.index1 = (int32_t)r32(&b);
		c.u.motor.joint.generation = r32(&b);
		{
			uint32_t enable = r8(&b);
			if (enable > 1u) {
				return F2D_ERROR_INVALID_VALUE; /* a flag is 0 or 1: one encoding */
			}
			c.u.motor.enable = enable == 1u;
		}
		c.u.motor.speed = rfix(&b);
		c.u.motor.max_torque = rfix(&b);
		break;
	case F2D_CMD_PAYLOAD:
		c.u.payload.length = (uint16_t)r8(&b);
		for (uint32_t i = 0; i < c.u.payload.length; ++i) {
			c.u.payload.bytes[i] = (uint8_t)r8(&b);
		}
		break;
	case F2D_CMD_SET_FILTER:
		c.u.filter.shape.index1 = (int32_t)r32(&b);
		c.u.filter.shape.generation = r32(&b);
		c.u.filter.filter.category_bits = r64(&b);
		c.u.filter.filter.mask_bits = r64(&b);
		c.u.filter.filter.group_index = (int32_t)r32(&b);
		break;
	case F2D_CMD_SET_BODY_TYPE: {
		c.u.body_type.body = rbody(&b);
		uint32_t t = r8(&b);
		if (t > (uint32_t)F2D_DYNAMIC_BODY) {
			return F2D_ERROR_INVALID_VALUE;
		}
		c.u.body_type.type = (f2d_body_type)t;
		break;
	}
	case F2D_CMD_SET_GRAVITY_SCALE:
		c.u.gravity_scale.body = rbody(&b);
		c.u.gravity_scale.scale = rfix(&b);
		break;
	case F2D_CMD_SET_DAMPING:
		c.u.damping.body = rbody(&b);
		c.u.damping.linear = rfix(&b);
		c.u.damping.angular = rfix(&b);
		break;
	case F2D_CMD_SET_FIXED_ROTATION: {
		c.u.fixed_rotation.body = rbody(&b);
		uint32_t fixed = r8(&b);
		if (fixed > 1u) {
			return F2D_ERROR_INVALID_VALUE; /* a flag is 0 or 1: one encoding */
		}
		c.u.fixed_rotation.fixed = fixed == 1u;
		break;
	}
	default: return F2D_ERROR_INVALID_VALUE;
	}
	if (b.short_read) {
		return F2D_ERROR_INVALID_VALUE; /* the bytes end before the command does */
	}
	*out = c;
	*consumed = b.pos;
	return F2D_OK;
}
