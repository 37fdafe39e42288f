/* fix2d input layer: per-frame commands in canonical order and their byte encoding.
 * SPDX-License-Identifier: MIT
 */
#include "core.h"
#include "fix2d/input.h"

#include <stddef.h>

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
	if (type == F2D_CMD_CREATE_JOINT) {
		c.u.create_joint.type = F2D_REVOLUTE_JOINT;
		c.u.create_joint.def.revolute = f2d_default_revolute_joint_def();
	}
	return c;
}

f2d_command f2d_default_joint_command(f2d_joint_type type, uint8_t player, uint16_t sequence)
{
	f2d_command c = f2d_default_command(F2D_CMD_CREATE_JOINT, player, sequence);
	memset(&c.u.create_joint, 0, sizeof c.u.create_joint);
	c.u.create_joint.type = (uint8_t)type;
	switch (type) {
	case F2D_REVOLUTE_JOINT:
		c.u.create_joint.def.revolute = f2d_default_revolute_joint_def();
		break;
	case F2D_DISTANCE_JOINT:
		c.u.create_joint.def.distance = f2d_default_distance_joint_def();
		break;
	case F2D_PRISMATIC_JOINT:
		c.u.create_joint.def.prismatic = f2d_default_prismatic_joint_def();
		break;
	case F2D_WELD_JOINT: c.u.create_joint.def.weld = f2d_default_weld_joint_def(); break;
	case F2D_WHEEL_JOINT: c.u.create_joint.def.wheel = f2d_default_wheel_joint_def(); break;
	case F2D_MOTOR_JOINT: c.u.create_joint.def.motor = f2d_default_motor_joint_def(); break;
	case F2D_MOUSE_JOINT: c.u.create_joint.def.mouse = f2d_default_mouse_joint_def(); break;
	default: break;
	}
	return c;
}

/* ---- applying ---- */

/* A static or kinematic body with a chain (format 3), all or nothing: everything
 * f2d_create_body and f2d_create_chain could refuse is checked, and every array they grow is
 * grown (which changes no state), before the body is made; then neither can fail. */
static f2d_result spawn_chain(f2d_world *w, const f2d_spawn *sp, f2d_body_id *out)
{
	const char *what = "create body command (chain)";
	int32_t n = sp->count;
	if (sp->body.type == F2D_DYNAMIC_BODY) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: a chain has no mass: static and kinematic bodies only",
		                     what);
	}
	if (sp->shape.is_sensor) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE, "%s: a chain is not a sensor",
		                     what);
	}
	if (n < 2 || n > F2D_SPAWN_MAX_CHAIN_POINTS || (sp->loop && n < 3)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: count %d: need 2..%d points (3.. for a loop)", what,
		                     (int)n, F2D_SPAWN_MAX_CHAIN_POINTS);
	}
	int32_t edges = sp->loop ? n : n - 1;
	/* f2d_create_chain's point checks: every point is an end of some edge */
	for (int32_t i = 0; i < edges; ++i) {
		if (!f2d_segment_ok(sp->points[i], sp->points[(i + 1) % n])) {
			return f2d_set_error(
			    w, F2D_ERROR_INVALID_VALUE,
			    "%s: points %d and %d must lie within 512 m of the body "
			    "origin and >= 0.005 m apart",
			    what, (int)i, (int)((i + 1) % n));
		}
	}
	if (sp->shape.friction < 0 || sp->shape.friction > F2D_FIX(4) ||
	    sp->shape.restitution < 0 || sp->shape.restitution > F2D_ONE) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: friction must be in [0, 4], restitution in [0, 1]", what);
	}
	f2d_id_pool *pool = &w->shape_ids;
	int32_t fresh = edges > pool->free_count ? edges - pool->free_count : 0;
	if ((int64_t)pool->next + fresh > F2D_MAX_OBJECTS) {
		return f2d_set_error(w, F2D_ERROR_CAPACITY, "%s: more than %d shapes", what,
		                     F2D_MAX_OBJECTS);
	}
	int32_t nb = w->body_ids.next + 1;
	if (!f2d_grow_aligned(w, (void **)&w->bodies, &w->body_capacity, nb, sizeof(f2d_body)) ||
	    !f2d_grow(w, (void **)&w->body_ids.free_ids, &w->body_ids.free_capacity, nb,
	              sizeof(int32_t)) ||
	    !f2d_grow(w, (void **)&pool->free_ids, &pool->free_capacity, pool->next + fresh,
	              sizeof(int32_t)) ||
	    !f2d_grow_aligned(w, (void **)&w->shapes, &w->shape_capacity, pool->next + fresh,
	                      sizeof(f2d_shape))) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY, "%s: allocator returned NULL",
		                     what);
	}
	f2d_body_id id;
	f2d_result r = f2d_create_body(w, &sp->body, &id); /* validates the body def */
	if (r != F2D_OK) {
		return r;
	}
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = sp->points;
	cd.count = n;
	cd.loop = sp->loop;
	cd.friction = sp->shape.friction;
	cd.restitution = sp->shape.restitution;
	cd.filter = sp->shape.filter;
	cd.user_data = sp->shape.user_data;
	cd.enable_contact_events = sp->shape.enable_contact_events;
	cd.enable_sensor_events = sp->shape.enable_sensor_events;
	r = f2d_create_chain(w, id, &cd, NULL, 0);
	if (r != F2D_OK) {
		f2d_destroy_body(w, id); /* unreachable: everything was checked above */
		return r;
	}
	*out = id;
	return F2D_OK;
}

static f2d_result spawn(f2d_world *w, const f2d_spawn *sp, f2d_body_id *out)
{
	if (sp->kind == F2D_SPAWN_CHAIN) {
		return spawn_chain(w, sp, out);
	}
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
	case F2D_SPAWN_SEGMENT:
		if (sp->body.type == F2D_DYNAMIC_BODY) {
			return f2d_set_error(
			    w, F2D_ERROR_INVALID_VALUE,
			    "create body command: a segment has no mass: static and "
			    "kinematic bodies only");
		}
		proto.type = F2D_SEGMENT_SHAPE;
		proto.capsule.center1 = sp->segment.point1;
		proto.capsule.center2 = sp->segment.point2;
		r = f2d_segment_ok(sp->segment.point1, sp->segment.point2)
		        ? F2D_OK
		        : F2D_ERROR_INVALID_VALUE;
		break;
	default: r = F2D_ERROR_INVALID_VALUE; break;
	}
	if (r != F2D_OK) {
		return f2d_set_error(w, r, "create body command: invalid shape");
	}
	return f2d_spawn_body(w, &sp->body, &sp->shape, &proto, out);
}

static f2d_result create_joint(f2d_world *w, const f2d_joint_spawn *js, f2d_joint_id *out)
{
	f2d_joint_id id = {0, 0};
	f2d_result r;
	switch (js->type) {
	case F2D_REVOLUTE_JOINT: r = f2d_create_revolute_joint(w, &js->def.revolute, &id); break;
	case F2D_DISTANCE_JOINT: r = f2d_create_distance_joint(w, &js->def.distance, &id); break;
	case F2D_PRISMATIC_JOINT: r = f2d_create_prismatic_joint(w, &js->def.prismatic, &id); break;
	case F2D_WELD_JOINT: r = f2d_create_weld_joint(w, &js->def.weld, &id); break;
	case F2D_WHEEL_JOINT: r = f2d_create_wheel_joint(w, &js->def.wheel, &id); break;
	case F2D_MOTOR_JOINT: r = f2d_create_motor_joint(w, &js->def.motor, &id); break;
	case F2D_MOUSE_JOINT: r = f2d_create_mouse_joint(w, &js->def.mouse, &id); break;
	default:
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create joint command: unknown joint type %d", js->type);
	}
	if (r == F2D_OK) {
		*out = id;
	}
	return r;
}

/* Limits of the joints that have them, each through its own setter. A distance joint's are
 * its length range: f2d_distance_joint_set_length_range validates and sets both lengths, then
 * f2d_distance_joint_enable_limit (which cannot fail on a distance joint) the flag. */
static f2d_result set_limits(f2d_world *w, f2d_joint_id j, bool enable, fix16_t lower,
                             fix16_t upper)
{
	f2d_joint_type type;
	if (f2d_joint_get_type(w, j, &type) != F2D_OK) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_HANDLE,
		    "set joint limits command: null, stale or foreign joint handle");
	}
	switch (type) {
	case F2D_REVOLUTE_JOINT: return f2d_revolute_joint_set_limits(w, j, enable, lower, upper);
	case F2D_PRISMATIC_JOINT: return f2d_prismatic_joint_set_limits(w, j, enable, lower, upper);
	case F2D_WHEEL_JOINT: return f2d_wheel_joint_set_limits(w, j, enable, lower, upper);
	case F2D_DISTANCE_JOINT: {
		f2d_result r = f2d_distance_joint_set_length_range(w, j, lower, upper);
		return r != F2D_OK ? r : f2d_distance_joint_enable_limit(w, j, enable);
	}
	default:
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_HANDLE,
		    "set joint limits command: a weld, motor or mouse joint has no "
		    "limits");
	}
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
		return f2d_revolute_joint_enable_motor(w, j,
		                                       c->u.motor.enable); /* refuses others */
	}
	case F2D_CMD_PAYLOAD: return F2D_OK;
	/* format 2: each one is one public setter, which validates and changes nothing on a
	 * refusal (f2d_body_set_damping sets both values or neither) */
	case F2D_CMD_SET_FILTER:
		return f2d_shape_set_filter(w, c->u.filter.shape, c->u.filter.filter);
	case F2D_CMD_SET_BODY_TYPE:
		return f2d_body_set_type(w, c->u.body_type.body, c->u.body_type.type);
	case F2D_CMD_SET_GRAVITY_SCALE:
		return f2d_body_set_gravity_scale(w, c->u.gravity_scale.body,
		                                  c->u.gravity_scale.scale);
	case F2D_CMD_SET_DAMPING:
		return f2d_body_set_damping(w, c->u.damping.body, c->u.damping.linear,
		                            c->u.damping.angular);
	case F2D_CMD_SET_FIXED_ROTATION:
		return f2d_body_set_fixed_rotation(w, c->u.fixed_rotation.body,
		                                   c->u.fixed_rotation.fixed);
	/* format 3: joints, each through its public function (which validates, sets a message
	 * and changes nothing on a refusal) */
	case F2D_CMD_CREATE_JOINT: return create_joint(w, &c->u.create_joint, &res->created_joint);
	case F2D_CMD_DESTROY_JOINT: return f2d_destroy_joint(w, c->u.destroy_joint.joint);
	case F2D_CMD_SET_JOINT_MOTOR:
		return f2d_joint_set_motor(w, c->u.joint_motor.joint, c->u.joint_motor.enable,
		                           c->u.joint_motor.speed, c->u.joint_motor.max_force);
	case F2D_CMD_SET_JOINT_SPRING:
		return f2d_joint_set_spring(w, c->u.spring.joint, c->u.spring.enable,
		                            c->u.spring.hertz, c->u.spring.damping_ratio);
	case F2D_CMD_SET_WELD_SPRINGS:
		return f2d_weld_joint_set_springs(
		    w, c->u.weld_springs.joint, c->u.weld_springs.linear_hertz,
		    c->u.weld_springs.linear_damping_ratio, c->u.weld_springs.angular_hertz,
		    c->u.weld_springs.angular_damping_ratio);
	case F2D_CMD_SET_JOINT_LIMITS:
		return set_limits(w, c->u.limits.joint, c->u.limits.enable, c->u.limits.lower,
		                  c->u.limits.upper);
	case F2D_CMD_SET_DISTANCE_LENGTH:
		return f2d_distance_joint_set_length(w, c->u.length.joint, c->u.length.length);
	case F2D_CMD_SET_MOUSE_TARGET:
		return f2d_mouse_joint_set_target(w, c->u.mouse_target.joint,
		                                  c->u.mouse_target.target);
	case F2D_CMD_SET_MOUSE_MAX_FORCE:
		return f2d_mouse_joint_set_max_force(w, c->u.mouse_max_force.joint,
		                                     c->u.mouse_max_force.force);
	case F2D_CMD_SET_MOTOR_JOINT_OFFSETS:
		return f2d_motor_joint_set_offsets(w, c->u.offsets.joint, c->u.offsets.linear,
		                                   c->u.offsets.angular);
	case F2D_CMD_SET_MOTOR_JOINT_MAX:
		return f2d_motor_joint_set_max(w, c->u.motor_max.joint, c->u.motor_max.max_force,
		                               c->u.motor_max.max_torque);
	case F2D_CMD_SET_MOTOR_JOINT_CORRECTION:
		return f2d_motor_joint_set_correction_factor(w, c->u.correction.joint,
		                                             c->u.correction.factor);
	default: return F2D_ERROR_INVALID_VALUE;
	}
}

const char *f2d_command_type_name(uint8_t type)
{
	static const char *const names[F2D_CMD_LAST + 1] = {NULL,
	                                                    "apply_force",
	                                                    "apply_impulse",
	                                                    "set_velocity",
	                                                    "create_body",
	                                                    "destroy_body",
	                                                    "set_motor",
	                                                    "payload",
	                                                    "set_filter",
	                                                    "set_body_type",
	                                                    "set_gravity_scale",
	                                                    "set_damping",
	                                                    "set_fixed_rotation",
	                                                    "create_joint",
	                                                    "destroy_joint",
	                                                    "set_joint_motor",
	                                                    "set_joint_spring",
	                                                    "set_weld_springs",
	                                                    "set_joint_limits",
	                                                    "set_distance_length",
	                                                    "set_mouse_target",
	                                                    "set_mouse_max_force",
	                                                    "set_motor_joint_offsets",
	                                                    "set_motor_joint_max",
	                                                    "set_motor_joint_correction"};
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
		f2d_command_result local = {F2D_OK, {0, 0}, {0, 0}};
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
	       s->shape.filter.group_index == sd.filter.group_index &&
	       ext_flags(s) == ext_flags(&d) && s->body.gravity_scale == bd.gravity_scale &&
	       s->body.linear_damping == bd.linear_damping &&
	       s->body.angular_damping == bd.angular_damping;
}

/* Format 3's commands are described once (format3_fields) for both directions: with o->w set
 * each field is written, with o->r set it is read. A flag is a byte 0 or 1 (anything else is
 * refused when read: o->bad), so every accepted byte string is the encoding of its command. */
struct rbuf;
typedef struct io {
	wbuf *w;
	struct rbuf *r;
	bool bad;
} io;
static bool format3_fields(io *o, f2d_command *c);

/* A create-body command after the header; false for a spawn encode refuses (a kind, count or
 * body type out of range). */
static bool encode_spawn(wbuf *b, const f2d_spawn *s)
{
	if (s->kind > F2D_SPAWN_CHAIN ||
	    (s->kind == F2D_SPAWN_POLYGON &&
	     (s->count < 3 || s->count > F2D_MAX_POLYGON_VERTICES)) ||
	    (s->kind == F2D_SPAWN_CHAIN && (s->count < 2 || s->count > F2D_SPAWN_MAX_CHAIN_POINTS ||
	                                    (s->loop && s->count < 3))) ||
	    (uint32_t)s->body.type > (uint32_t)F2D_DYNAMIC_BODY) {
		return false;
	}
	/* low 4 bits: body type (0..2; 3..15 are reserved and refused); 16: sleep disabled,
	 * 32: created asleep (so the bytes of a default def are those of format 1); 64 is
	 * reserved: 0; 128 (format 2): the extension follows the shape */
	bool ext = !ext_is_default(s);
	w8(b, (uint32_t)s->body.type | (s->body.enable_sleep ? 0u : 16u) |
	          (s->body.awake ? 0u : 32u) | (ext ? 128u : 0u));
	wvec(b, s->body.position);
	w32(b, (uint32_t)s->body.rotation.c);
	w32(b, (uint32_t)s->body.rotation.s);
	wvec(b, s->body.linear_velocity);
	w32(b, (uint32_t)s->body.angular_velocity);
	w64(b, s->body.user_data);
	w32(b, (uint32_t)s->shape.density);
	w32(b, (uint32_t)s->shape.friction);
	w32(b, (uint32_t)s->shape.restitution);
	w64(b, s->shape.user_data);
	w8(b, s->kind);
	if (s->kind == F2D_SPAWN_BOX) {
		wvec(b, s->half_extents);
	} else if (s->kind == F2D_SPAWN_CIRCLE) {
		wvec(b, s->circle.center);
		w32(b, (uint32_t)s->circle.radius);
	} else if (s->kind == F2D_SPAWN_CAPSULE) {
		wvec(b, s->capsule.center1);
		wvec(b, s->capsule.center2);
		w32(b, (uint32_t)s->capsule.radius);
	} else if (s->kind == F2D_SPAWN_SEGMENT) {
		wvec(b, s->segment.point1);
		wvec(b, s->segment.point2);
	} else if (s->kind == F2D_SPAWN_CHAIN) {
		w8(b, (uint32_t)s->count);
		w8(b, s->loop ? 1u : 0u);
		for (int32_t i = 0; i < s->count; ++i) {
			wvec(b, s->points[i]);
		}
	} else {
		w8(b, (uint32_t)s->count);
		for (int32_t i = 0; i < s->count; ++i) {
			wvec(b, s->points[i]);
		}
	}
	if (ext) {
		w64(b, s->shape.filter.category_bits);
		w64(b, s->shape.filter.mask_bits);
		w32(b, (uint32_t)s->shape.filter.group_index);
		w8(b, ext_flags(s));
		w32(b, (uint32_t)s->body.gravity_scale);
		w32(b, (uint32_t)s->body.linear_damping);
		w32(b, (uint32_t)s->body.angular_damping);
	}
	return true;
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
	case F2D_CMD_CREATE_BODY:
		if (!encode_spawn(&b, &c->u.create)) {
			return F2D_ERROR_INVALID_VALUE;
		}
		break;
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
	default: {
		/* format 3: one description of the layout for both directions */
		f2d_command copy = *c;
		io o = {&b, NULL, false};
		if (!format3_fields(&o, &copy) || o.bad) {
			return F2D_ERROR_INVALID_VALUE;
		}
		break;
	}
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
static uint32_t r8(rbuf *b);
static uint32_t r32(rbuf *b);

static void io_u8(io *o, uint32_t *v)
{
	if (o->w != NULL) {
		w8(o->w, *v);
	} else {
		*v = r8(o->r);
	}
}

static void io_u32(io *o, uint32_t *v)
{
	if (o->w != NULL) {
		w32(o->w, *v);
	} else {
		*v = r32(o->r);
	}
}

static void io_fix(io *o, fix16_t *v)
{
	uint32_t u = (uint32_t)*v;
	io_u32(o, &u);
	*v = (fix16_t)u;
}

static void io_u64(io *o, uint64_t *v)
{
	uint32_t lo = (uint32_t)*v, hi = (uint32_t)(*v >> 32);
	io_u32(o, &lo);
	io_u32(o, &hi);
	*v = (uint64_t)hi << 32 | lo;
}

static void io_vec(io *o, f2d_vec2 *v)
{
	io_fix(o, &v->x);
	io_fix(o, &v->y);
}

static void io_handle(io *o, int32_t *index1, uint32_t *generation)
{
	uint32_t i = (uint32_t)*index1;
	io_u32(o, &i);
	*index1 = (int32_t)i;
	io_u32(o, generation);
}

static void io_joint(io *o, f2d_joint_id *j)
{
	io_handle(o, &j->index1, &j->generation);
}

static void io_flag(io *o, bool *v)
{
	uint32_t u = *v ? 1u : 0u;
	io_u8(o, &u);
	if (u > 1u) {
		o->bad = true; /* a flag is 0 or 1: one encoding */
	}
	*v = u == 1u;
}

/* ---- create-joint: one table of fields ----
 * A create-joint command is the type byte, then its type's rows of joint_fields in table order:
 * the flags byte gathers the 'b' rows (bit JF_*; a bit the type has no row for is 0, and refused
 * when read), then the body handles ('h', 8 bytes), the user data ('u', 8), the fix16 values
 * ('f', 4) and vectors ('v', 8). Adding a field to a joint type's command is one row. */
enum { JF_COLLIDE = 1, JF_SPRING = 2, JF_LIMIT = 4, JF_MOTOR = 8 };

typedef struct joint_field {
	uint8_t type; /* f2d_joint_type */
	char kind;    /* 'b' flag, 'h' body handle, 'u' user data, 'f' fix16, 'v' vector */
	uint8_t bit;  /* 'b': its JF_* bit in the flags byte */
	uint16_t offset;
} joint_field;

/* clang-format off */
#define ROW(TYPE, KIND, BIT, DEF, FIELD) {TYPE, KIND, BIT, (uint16_t)offsetof(DEF, FIELD)}
#define HEAD(TYPE, DEF) ROW(TYPE, 'h', 0, DEF, body_a), ROW(TYPE, 'h', 0, DEF, body_b), \
                        ROW(TYPE, 'u', 0, DEF, user_data), ROW(TYPE, 'b', JF_COLLIDE, DEF, collide_connected)
#define REV(K, BIT, F) ROW(F2D_REVOLUTE_JOINT, K, BIT, f2d_revolute_joint_def, F)
#define DIST(K, BIT, F) ROW(F2D_DISTANCE_JOINT, K, BIT, f2d_distance_joint_def, F)
#define PRIS(K, BIT, F) ROW(F2D_PRISMATIC_JOINT, K, BIT, f2d_prismatic_joint_def, F)
#define WELD(K, F) ROW(F2D_WELD_JOINT, K, 0, f2d_weld_joint_def, F)
#define WHEEL(K, BIT, F) ROW(F2D_WHEEL_JOINT, K, BIT, f2d_wheel_joint_def, F)
#define MOTOR(K, F) ROW(F2D_MOTOR_JOINT, K, 0, f2d_motor_joint_def, F)
#define MOUSE(K, F) ROW(F2D_MOUSE_JOINT, K, 0, f2d_mouse_joint_def, F)
static const joint_field joint_fields[] = {
	HEAD(F2D_REVOLUTE_JOINT, f2d_revolute_joint_def),
	REV('b', JF_LIMIT, enable_limit),
	REV('b', JF_MOTOR, enable_motor),
	REV('v', 0, local_anchor_a),
	REV('v', 0, local_anchor_b),
	REV('f', 0, reference_angle),
	REV('f', 0, lower_angle),
	REV('f', 0, upper_angle),
	REV('f', 0, motor_speed),
	REV('f', 0, max_motor_torque),

	HEAD(F2D_DISTANCE_JOINT, f2d_distance_joint_def),
	DIST('b', JF_SPRING, enable_spring),
	DIST('b', JF_LIMIT, enable_limit),
	DIST('b', JF_MOTOR, enable_motor),
	DIST('v', 0, local_anchor_a),
	DIST('v', 0, local_anchor_b),
	DIST('f', 0, length),
	DIST('f', 0, hertz),
	DIST('f', 0, damping_ratio),
	DIST('f', 0, min_length),
	DIST('f', 0, max_length),
	DIST('f', 0, motor_speed),
	DIST('f', 0, max_motor_force),

	HEAD(F2D_PRISMATIC_JOINT, f2d_prismatic_joint_def),
	PRIS('b', JF_SPRING, enable_spring),
	PRIS('b', JF_LIMIT, enable_limit),
	PRIS('b', JF_MOTOR, enable_motor),
	PRIS('v', 0, local_anchor_a),
	PRIS('v', 0, local_anchor_b),
	PRIS('v', 0, local_axis_a),
	PRIS('f', 0, reference_angle),
	PRIS('f', 0, hertz),
	PRIS('f', 0, damping_ratio),
	PRIS('f', 0, lower_translation),
	PRIS('f', 0, upper_translation),
	PRIS('f', 0, motor_speed),
	PRIS('f', 0, max_motor_force),

	HEAD(F2D_WELD_JOINT, f2d_weld_joint_def),
	WELD('v', local_anchor_a),
	WELD('v', local_anchor_b),
	WELD('f', reference_angle),
	WELD('f', linear_hertz),
	WELD('f', linear_damping_ratio),
	WELD('f', angular_hertz),
	WELD('f', angular_damping_ratio),

	HEAD(F2D_WHEEL_JOINT, f2d_wheel_joint_def),
	WHEEL('b', JF_SPRING, enable_spring),
	WHEEL('b', JF_LIMIT, enable_limit),
	WHEEL('b', JF_MOTOR, enable_motor),
	WHEEL('v', 0, local_anchor_a),
	WHEEL('v', 0, local_anchor_b),
	WHEEL('v', 0, local_axis_a),
	WHEEL('f', 0, hertz),
	WHEEL('f', 0, damping_ratio),
	WHEEL('f', 0, lower_translation),
	WHEEL('f', 0, upper_translation),
	WHEEL('f', 0, motor_speed),
	WHEEL('f', 0, max_motor_torque),

	HEAD(F2D_MOTOR_JOINT, f2d_motor_joint_def),
	MOTOR('v', linear_offset),
	MOTOR('f', angular_offset),
	MOTOR('f', max_force),
	MOTOR('f', max_torque),
	MOTOR('f', correction_factor),

	HEAD(F2D_MOUSE_JOINT, f2d_mouse_joint_def),
	MOUSE('v', target),
	MOUSE('f', hertz),
	MOUSE('f', damping_ratio),
	MOUSE('f', max_force),
};
/* clang-format on */
#define JOINT_FIELD_COUNT ((int)(sizeof joint_fields / sizeof joint_fields[0]))

/* The flags byte of a joint type's def: its 'b' rows. */
static void io_joint_flags(io *o, uint8_t type, uint8_t *def)
{
	uint32_t flags = 0, have = 0;
	for (int i = 0; i < JOINT_FIELD_COUNT; ++i) {
		const joint_field *f = &joint_fields[i];
		if (f->type == type && f->kind == 'b') {
			have |= f->bit;
			flags |= *(bool *)(void *)(def + f->offset) ? f->bit : 0u;
		}
	}
	io_u8(o, &flags);
	if ((flags & ~have) != 0) {
		o->bad = true; /* a bit this joint type does not have */
	}
	for (int i = 0; i < JOINT_FIELD_COUNT; ++i) {
		const joint_field *f = &joint_fields[i];
		if (f->type == type && f->kind == 'b') {
			*(bool *)(void *)(def + f->offset) = (flags & f->bit) != 0;
		}
	}
}

static bool io_create_joint(io *o, f2d_joint_spawn *js)
{
	uint32_t type = js->type;
	io_u8(o, &type);
	if (type > F2D_MOUSE_JOINT) {
		return false;
	}
	js->type = (uint8_t)type;
	uint8_t *def = (uint8_t *)(void *)&js->def;
	io_joint_flags(o, js->type, def);
	for (int i = 0; i < JOINT_FIELD_COUNT; ++i) {
		const joint_field *f = &joint_fields[i];
		void *field = def + f->offset;
		if (f->type != type || f->kind == 'b') {
			continue;
		}
		if (f->kind == 'h') {
			f2d_body_id *id = field;
			io_handle(o, &id->index1, &id->generation);
		} else if (f->kind == 'u') {
			io_u64(o, field);
		} else if (f->kind == 'v') {
			io_vec(o, field);
		} else {
			io_fix(o, field);
		}
	}
	return true;
}

/* Format 3's types after the 4-byte header; false for an unknown type. */
static bool format3_fields(io *o, f2d_command *c)
{
	switch (c->type) {
	case F2D_CMD_CREATE_JOINT: return io_create_joint(o, &c->u.create_joint);
	case F2D_CMD_DESTROY_JOINT: io_joint(o, &c->u.destroy_joint.joint); return true;
	case F2D_CMD_SET_JOINT_MOTOR:
		io_joint(o, &c->u.joint_motor.joint);
		io_flag(o, &c->u.joint_motor.enable);
		io_fix(o, &c->u.joint_motor.speed);
		io_fix(o, &c->u.joint_motor.max_force);
		return true;
	case F2D_CMD_SET_JOINT_SPRING:
		io_joint(o, &c->u.spring.joint);
		io_flag(o, &c->u.spring.enable);
		io_fix(o, &c->u.spring.hertz);
		io_fix(o, &c->u.spring.damping_ratio);
		return true;
	case F2D_CMD_SET_WELD_SPRINGS:
		io_joint(o, &c->u.weld_springs.joint);
		io_fix(o, &c->u.weld_springs.linear_hertz);
		io_fix(o, &c->u.weld_springs.linear_damping_ratio);
		io_fix(o, &c->u.weld_springs.angular_hertz);
		io_fix(o, &c->u.weld_springs.angular_damping_ratio);
		return true;
	case F2D_CMD_SET_JOINT_LIMITS:
		io_joint(o, &c->u.limits.joint);
		io_flag(o, &c->u.limits.enable);
		io_fix(o, &c->u.limits.lower);
		io_fix(o, &c->u.limits.upper);
		return true;
	case F2D_CMD_SET_DISTANCE_LENGTH:
		io_joint(o, &c->u.length.joint);
		io_fix(o, &c->u.length.length);
		return true;
	case F2D_CMD_SET_MOUSE_TARGET:
		io_joint(o, &c->u.mouse_target.joint);
		io_vec(o, &c->u.mouse_target.target);
		return true;
	case F2D_CMD_SET_MOUSE_MAX_FORCE:
		io_joint(o, &c->u.mouse_max_force.joint);
		io_fix(o, &c->u.mouse_max_force.force);
		return true;
	case F2D_CMD_SET_MOTOR_JOINT_OFFSETS:
		io_joint(o, &c->u.offsets.joint);
		io_vec(o, &c->u.offsets.linear);
		io_fix(o, &c->u.offsets.angular);
		return true;
	case F2D_CMD_SET_MOTOR_JOINT_MAX:
		io_joint(o, &c->u.motor_max.joint);
		io_fix(o, &c->u.motor_max.max_force);
		io_fix(o, &c->u.motor_max.max_torque);
		return true;
	case F2D_CMD_SET_MOTOR_JOINT_CORRECTION:
		io_joint(o, &c->u.correction.joint);
		io_fix(o, &c->u.correction.factor);
		return true;
	default: return false;
	}
}

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

/* A create-body command after the header; false for bytes that are not the canonical
 * encoding of a spawn (see encode_spawn). */
static bool decode_spawn(rbuf *b, f2d_spawn *s)
{
	/* canonical only: every accepted byte string is the encoding of the command it
	 * decodes to (the reserved bits and body types are refused, see encode) */
	uint32_t type = r8(b);
	if ((type & 64u) != 0 || (type & 15u) > (uint32_t)F2D_DYNAMIC_BODY) {
		return false;
	}
	/* without the extension, its fields (options, filter, events) keep their defaults
	 */
	s->body = f2d_default_body_def();
	s->shape = f2d_default_shape_def();
	s->body.type = (f2d_body_type)(type & 15u);
	s->body.enable_sleep = (type & 16u) == 0;
	s->body.awake = (type & 32u) == 0;
	s->body.position = rvec(b);
	s->body.rotation.c = rfix(b);
	s->body.rotation.s = rfix(b);
	s->body.linear_velocity = rvec(b);
	s->body.angular_velocity = rfix(b);
	s->body.user_data = r64(b);
	s->shape.density = rfix(b);
	s->shape.friction = rfix(b);
	s->shape.restitution = rfix(b);
	s->shape.user_data = r64(b);
	s->kind = (uint8_t)r8(b);
	if (s->kind == F2D_SPAWN_BOX) {
		s->half_extents = rvec(b);
	} else if (s->kind == F2D_SPAWN_CIRCLE) {
		s->circle.center = rvec(b);
		s->circle.radius = rfix(b);
	} else if (s->kind == F2D_SPAWN_POLYGON) {
		s->count = (int32_t)r8(b);
		if (s->count < 3 || s->count > F2D_MAX_POLYGON_VERTICES) {
			return false;
		}
		for (int32_t i = 0; i < s->count; ++i) {
			s->points[i] = rvec(b);
		}
	} else if (s->kind == F2D_SPAWN_CAPSULE) {
		s->capsule.center1 = rvec(b);
		s->capsule.center2 = rvec(b);
		s->capsule.radius = rfix(b);
	} else if (s->kind == F2D_SPAWN_SEGMENT) {
		s->segment.point1 = rvec(b);
		s->segment.point2 = rvec(b);
	} else if (s->kind == F2D_SPAWN_CHAIN) {
		s->count = (int32_t)r8(b);
		uint32_t loop = r8(b);
		if (s->count < 2 || s->count > F2D_SPAWN_MAX_CHAIN_POINTS || loop > 1u ||
		    (loop == 1u && s->count < 3)) {
			return false;
		}
		s->loop = loop == 1u;
		for (int32_t i = 0; i < s->count; ++i) {
			s->points[i] = rvec(b);
		}
	} else {
		return false;
	}
	if ((type & 128u) != 0) {
		s->shape.filter.category_bits = r64(b);
		s->shape.filter.mask_bits = r64(b);
		s->shape.filter.group_index = (int32_t)r32(b);
		uint32_t flags = r8(b);
		s->shape.enable_contact_events = (flags & EXT_CONTACT_EVENTS) != 0;
		s->shape.enable_hit_events = (flags & EXT_HIT_EVENTS) != 0;
		s->shape.enable_sensor_events = (flags & EXT_SENSOR_EVENTS) != 0;
		s->shape.is_sensor = (flags & EXT_SENSOR) != 0;
		s->body.fixed_rotation = (flags & EXT_FIXED_ROTATION) != 0;
		s->body.gravity_scale = rfix(b);
		s->body.linear_damping = rfix(b);
		s->body.angular_damping = rfix(b);
		if ((flags & EXT_RESERVED) != 0 || (!b->short_read && ext_is_default(s))) {
			return false; /* encode writes no such extension */
		}
	}
	return true;
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
	case F2D_CMD_CREATE_BODY:
		if (!decode_spawn(&b, &c.u.create)) {
			return F2D_ERROR_INVALID_VALUE;
		}
		break;
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
	default: {
		io o = {NULL, &b, false};
		if (!format3_fields(&o, &c) || o.bad) {
			return F2D_ERROR_INVALID_VALUE; /* an unknown type, joint type or a flag */
		}
		break;
	}
	}
	if (b.short_read) {
		return F2D_ERROR_INVALID_VALUE; /* the bytes end before the command does */
	}
	*out = c;
	*consumed = b.pos;
	return F2D_OK;
}
