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

/* What f2d_create_body and f2d_create_chain would refuse of a chain spawn (and a dynamic body
 * or a sensor, which a chain cannot be). */
static f2d_result check_chain_spawn(f2d_world *w, const f2d_spawn *sp, const char *what)
{
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
	return F2D_OK;
}

/* Room for one more body and for edges more shapes: every array f2d_create_body and
 * f2d_create_chain grow, grown first (which changes no state). */
static f2d_result reserve_chain_spawn(f2d_world *w, int32_t edges, const char *what)
{
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
	return F2D_OK;
}

/* A static or kinematic body with a chain (format 3), all or nothing: everything
 * f2d_create_body and f2d_create_chain could refuse is checked, and every array they grow is
 * grown (which changes no state), before the body is made; then neither can fail. */
static f2d_result spawn_chain(f2d_world *w, const f2d_spawn *sp, f2d_body_id *out)
{
	const char *what = "create body command (chain)";
	f2d_result r = check_chain_spawn(w, sp, what);
	if (r == F2D_OK) {
		r = reserve_chain_spawn(w, sp->loop ? sp->count : sp->count - 1, what);
	}
	if (r != F2D_OK) {
		return r;
	}
	f2d_body_id id;
	r = f2d_create_body(w, &sp->body, &id); /* validates the body def */
	if (r != F2D_OK) {
		return r;
	}
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = sp->points;
	cd.count = sp->count;
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

/* both or neither: the angular value is checked on its own first */
static f2d_result set_velocity(f2d_world *w, const f2d_command *c)
{
	f2d_body *b = f2d_get_body(w, c->u.velocity.body);
	if (b == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "set velocity command: null, stale or foreign body handle");
	}
	fix16_t old = b->w;
	f2d_result r = f2d_body_set_angular_velocity(w, c->u.velocity.body, c->u.velocity.angular);
	if (r == F2D_OK) {
		r = f2d_body_set_linear_velocity(w, c->u.velocity.body, c->u.velocity.linear);
		if (r != F2D_OK) {
			b->w = old;
		}
	}
	return r;
}

static f2d_result set_motor(f2d_world *w, const f2d_command *c)
{
	f2d_joint_id j = c->u.motor.joint;
	if (!f2d_joint_is_valid(w, j)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "set motor command: null, stale or foreign joint handle");
	}
	if (c->u.motor.max_torque < 0 || c->u.motor.speed < F2D_FIX(-1000) ||
	    c->u.motor.speed > F2D_FIX(1000)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "set motor command: speed within +-1000, torque >= 0");
	}
	f2d_revolute_joint_set_motor_speed(w, j, c->u.motor.speed);
	f2d_revolute_joint_set_max_motor_torque(w, j, c->u.motor.max_torque);
	return f2d_revolute_joint_enable_motor(w, j, c->u.motor.enable); /* refuses others */
}

/* Formats 1 and 2's commands; format 2's are each one public setter, which validates and
 * changes nothing on a refusal (f2d_body_set_damping sets both values or neither). */
static f2d_result apply_body_command(f2d_world *w, const f2d_command *c, f2d_command_result *res)
{
	switch (c->type) {
	case F2D_CMD_APPLY_FORCE:
		return f2d_body_apply_force(w, c->u.push.body, c->u.push.vector, c->u.push.point);
	case F2D_CMD_APPLY_IMPULSE:
		return f2d_body_apply_linear_impulse(w, c->u.push.body, c->u.push.vector,
		                                     c->u.push.point);
	case F2D_CMD_SET_VELOCITY: return set_velocity(w, c);
	case F2D_CMD_CREATE_BODY: return spawn(w, &c->u.create, &res->created);
	case F2D_CMD_DESTROY_BODY: return f2d_destroy_body(w, c->u.destroy.body);
	case F2D_CMD_SET_MOTOR: return set_motor(w, c);
	case F2D_CMD_PAYLOAD: return F2D_OK;
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
	default: return F2D_ERROR_INVALID_VALUE;
	}
}

/* Format 3's commands: joints, each through its public function (which validates, sets a
 * message and changes nothing on a refusal). */
static f2d_result apply_joint_command(f2d_world *w, const f2d_command *c, f2d_command_result *res)
{
	switch (c->type) {
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

static f2d_result apply_one(f2d_world *w, const f2d_command *c, f2d_command_result *res)
{
	return c->type >= F2D_CMD_CREATE_JOINT ? apply_joint_command(w, c, res)
	                                       : apply_body_command(w, c, res);
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

/* Every command is described once (command_fields) for both directions: with o->w set each
 * field is written, with o->r set it is read. A flag is a byte 0 or 1 (anything else is refused
 * when read: o->bad), so every accepted byte string is the encoding of its command. */
typedef struct io {
	wbuf *w;
	rbuf *r;
	bool bad;
} io;

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

static void io_i32(io *o, int32_t *v)
{
	uint32_t u = (uint32_t)*v;
	io_u32(o, &u);
	*v = (int32_t)u;
}

static void io_fix(io *o, fix16_t *v)
{
	io_i32(o, v);
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

static void io_body(io *o, f2d_body_id *b)
{
	io_handle(o, &b->index1, &b->generation);
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

/* Format 3's setters of what joints of several types have: motor, spring, weld springs,
 * limits; false for another type. */
static bool io_joint_setter(io *o, f2d_command *c)
{
	switch (c->type) {
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
	default: return false;
	}
}

/* Format 3's setters of one joint type's own fields (distance, mouse and motor joints); false
 * for another type. */
static bool io_joint_type_setter(io *o, f2d_command *c)
{
	switch (c->type) {
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

/* Format 3's types after the 4-byte header; false for an unknown type. */
static bool format3_fields(io *o, f2d_command *c)
{
	switch (c->type) {
	case F2D_CMD_CREATE_JOINT: return io_create_joint(o, &c->u.create_joint);
	case F2D_CMD_DESTROY_JOINT: io_joint(o, &c->u.destroy_joint.joint); return true;
	default: return io_joint_setter(o, c) || io_joint_type_setter(o, c);
	}
}

/* ---- create-body (formats 1 and 2) ---- */

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

/* the spawns encode refuses (before writing a byte of them): a kind, count or body type out
 * of range */
static bool spawn_encodable(const f2d_spawn *s)
{
	return s->kind <= F2D_SPAWN_CHAIN &&
	       (s->kind != F2D_SPAWN_POLYGON ||
	        (s->count >= 3 && s->count <= F2D_MAX_POLYGON_VERTICES)) &&
	       (s->kind != F2D_SPAWN_CHAIN ||
	        (s->count >= 2 && s->count <= F2D_SPAWN_MAX_CHAIN_POINTS &&
	         (!s->loop || s->count >= 3))) &&
	       (uint32_t)s->body.type <= (uint32_t)F2D_DYNAMIC_BODY;
}

/* The head byte: low 4 bits the body type (0..2; 3..15 are reserved and refused); 16: sleep
 * disabled, 32: created asleep (so the bytes of a default def are those of format 1); 64 is
 * reserved: 0; 128 (format 2): the extension follows the shape. Read, it resets the defs to
 * their defaults (without the extension, its fields keep them) and sets what it says. */
static bool io_spawn_head(io *o, f2d_spawn *s, uint32_t *head)
{
	uint32_t h = 0;
	if (o->w != NULL) {
		h = (uint32_t)s->body.type | (s->body.enable_sleep ? 0u : 16u) |
		    (s->body.awake ? 0u : 32u) | (ext_is_default(s) ? 0u : 128u);
	}
	io_u8(o, &h);
	if ((h & 64u) != 0 || (h & 15u) > (uint32_t)F2D_DYNAMIC_BODY) {
		return false; /* canonical only: reserved bits and body types are refused */
	}
	if (o->r != NULL) {
		s->body = f2d_default_body_def();
		s->shape = f2d_default_shape_def();
		s->body.type = (f2d_body_type)(h & 15u);
		s->body.enable_sleep = (h & 16u) == 0;
		s->body.awake = (h & 32u) == 0;
	}
	*head = h;
	return true;
}

/* the body def's and the shape def's format-1 fields */
static void io_spawn_defs(io *o, f2d_spawn *s)
{
	io_vec(o, &s->body.position);
	io_fix(o, &s->body.rotation.c);
	io_fix(o, &s->body.rotation.s);
	io_vec(o, &s->body.linear_velocity);
	io_fix(o, &s->body.angular_velocity);
	io_u64(o, &s->body.user_data);
	io_fix(o, &s->shape.density);
	io_fix(o, &s->shape.friction);
	io_fix(o, &s->shape.restitution);
	io_u64(o, &s->shape.user_data);
}

/* A polygon's u8 count, or a chain's u8 count and u8 loop, then the points; false for a count
 * (or loop byte) out of range. */
static bool io_spawn_points(io *o, f2d_spawn *s, bool chain)
{
	uint32_t count = (uint32_t)s->count, loop = 0;
	io_u8(o, &count);
	if (chain) { /* a polygon's loop field is not read: it is not part of the command */
		loop = s->loop ? 1u : 0u;
		io_u8(o, &loop);
	}
	bool ok = chain ? count >= 2 && count <= F2D_SPAWN_MAX_CHAIN_POINTS && loop <= 1u &&
	                      (loop == 0u || count >= 3)
	                : count >= 3 && count <= F2D_MAX_POLYGON_VERTICES;
	if (!ok) {
		return false;
	}
	s->count = (int32_t)count;
	if (chain) {
		s->loop = loop == 1u;
	}
	for (int32_t i = 0; i < s->count; ++i) {
		io_vec(o, &s->points[i]);
	}
	return true;
}

/* u8 kind and the kind's fields; false for an unknown kind or a count out of range */
static bool io_spawn_shape(io *o, f2d_spawn *s)
{
	uint32_t kind = s->kind;
	io_u8(o, &kind);
	s->kind = (uint8_t)kind;
	switch (kind) {
	case F2D_SPAWN_BOX: io_vec(o, &s->half_extents); return true;
	case F2D_SPAWN_CIRCLE:
		io_vec(o, &s->circle.center);
		io_fix(o, &s->circle.radius);
		return true;
	case F2D_SPAWN_POLYGON: return io_spawn_points(o, s, false);
	case F2D_SPAWN_CAPSULE:
		io_vec(o, &s->capsule.center1);
		io_vec(o, &s->capsule.center2);
		io_fix(o, &s->capsule.radius);
		return true;
	case F2D_SPAWN_SEGMENT:
		io_vec(o, &s->segment.point1);
		io_vec(o, &s->segment.point2);
		return true;
	case F2D_SPAWN_CHAIN: return io_spawn_points(o, s, true);
	default: return false;
	}
}

/* The extension: filter, u8 flags (EXT_*), gravity scale, linear and angular damping. Read,
 * false for reserved flags or an extension encode does not write (all defaults). */
static bool io_spawn_ext(io *o, f2d_spawn *s)
{
	io_u64(o, &s->shape.filter.category_bits);
	io_u64(o, &s->shape.filter.mask_bits);
	io_i32(o, &s->shape.filter.group_index);
	uint32_t flags = ext_flags(s);
	io_u8(o, &flags);
	s->shape.enable_contact_events = (flags & EXT_CONTACT_EVENTS) != 0;
	s->shape.enable_hit_events = (flags & EXT_HIT_EVENTS) != 0;
	s->shape.enable_sensor_events = (flags & EXT_SENSOR_EVENTS) != 0;
	s->shape.is_sensor = (flags & EXT_SENSOR) != 0;
	s->body.fixed_rotation = (flags & EXT_FIXED_ROTATION) != 0;
	io_fix(o, &s->body.gravity_scale);
	io_fix(o, &s->body.linear_damping);
	io_fix(o, &s->body.angular_damping);
	return o->r == NULL ||
	       ((flags & EXT_RESERVED) == 0 && (o->r->short_read || !ext_is_default(s)));
}

/* A create-body command after the header: head byte, defs, shape, [extension]; false for a
 * spawn encode refuses or bytes that are not the canonical encoding of one. */
static bool io_spawn(io *o, f2d_spawn *s)
{
	uint32_t head = 0;
	if ((o->w != NULL && !spawn_encodable(s)) || !io_spawn_head(o, s, &head)) {
		return false;
	}
	io_spawn_defs(o, s);
	if (!io_spawn_shape(o, s)) {
		return false;
	}
	return (head & 128u) == 0 || io_spawn_ext(o, s);
}

/* ---- the commands ---- */

/* a payload: u8 length, the bytes; encode refuses a length above F2D_MAX_PAYLOAD */
static bool io_payload(io *o, uint16_t *length, uint8_t *bytes)
{
	uint32_t n = *length;
	if (o->w != NULL && n > F2D_MAX_PAYLOAD) {
		return false;
	}
	io_u8(o, &n); /* read: at most 255 = F2D_MAX_PAYLOAD */
	*length = (uint16_t)n;
	for (uint32_t i = 0; i < n; ++i) {
		uint32_t v = bytes[i];
		io_u8(o, &v);
		bytes[i] = (uint8_t)v;
	}
	return true;
}

/* a body type byte, 0..2: encode refuses others before writing, decode refuses them */
static bool io_body_type(io *o, f2d_body_id *body, f2d_body_type *type)
{
	uint32_t t = (uint32_t)*type;
	if (o->w != NULL && t > (uint32_t)F2D_DYNAMIC_BODY) {
		return false;
	}
	io_body(o, body);
	io_u8(o, &t);
	if (t > (uint32_t)F2D_DYNAMIC_BODY) {
		return false;
	}
	*type = (f2d_body_type)t;
	return true;
}

/* Every type's fields after the 4-byte header (format 3's in format3_fields); false for an
 * unknown type or a command encode refuses or bytes decode refuses. */
static bool command_fields(io *o, f2d_command *c)
{
	switch (c->type) {
	case F2D_CMD_APPLY_FORCE:
	case F2D_CMD_APPLY_IMPULSE:
		io_body(o, &c->u.push.body);
		io_vec(o, &c->u.push.vector);
		io_vec(o, &c->u.push.point);
		return true;
	case F2D_CMD_SET_VELOCITY:
		io_body(o, &c->u.velocity.body);
		io_vec(o, &c->u.velocity.linear);
		io_fix(o, &c->u.velocity.angular);
		return true;
	case F2D_CMD_CREATE_BODY: return io_spawn(o, &c->u.create);
	case F2D_CMD_DESTROY_BODY: io_body(o, &c->u.destroy.body); return true;
	case F2D_CMD_SET_MOTOR:
		io_joint(o, &c->u.motor.joint);
		io_flag(o, &c->u.motor.enable);
		io_fix(o, &c->u.motor.speed);
		io_fix(o, &c->u.motor.max_torque);
		return true;
	case F2D_CMD_PAYLOAD: return io_payload(o, &c->u.payload.length, c->u.payload.bytes);
	case F2D_CMD_SET_FILTER:
		io_handle(o, &c->u.filter.shape.index1, &c->u.filter.shape.generation);
		io_u64(o, &c->u.filter.filter.category_bits);
		io_u64(o, &c->u.filter.filter.mask_bits);
		io_i32(o, &c->u.filter.filter.group_index);
		return true;
	case F2D_CMD_SET_BODY_TYPE:
		return io_body_type(o, &c->u.body_type.body, &c->u.body_type.type);
	case F2D_CMD_SET_GRAVITY_SCALE:
		io_body(o, &c->u.gravity_scale.body);
		io_fix(o, &c->u.gravity_scale.scale);
		return true;
	case F2D_CMD_SET_DAMPING:
		io_body(o, &c->u.damping.body);
		io_fix(o, &c->u.damping.linear);
		io_fix(o, &c->u.damping.angular);
		return true;
	case F2D_CMD_SET_FIXED_ROTATION:
		io_body(o, &c->u.fixed_rotation.body);
		io_flag(o, &c->u.fixed_rotation.fixed);
		return true;
	default: return format3_fields(o, c);
	}
}

/* the header: u8 type, u8 player, u16 sequence (low byte first) */
static void io_header(io *o, f2d_command *c)
{
	uint32_t type = c->type, player = c->player, lo = c->sequence & 0xFFu,
	         hi = (uint32_t)c->sequence >> 8;
	io_u8(o, &type);
	io_u8(o, &player);
	io_u8(o, &lo);
	io_u8(o, &hi);
	c->type = (uint8_t)type;
	c->player = (uint8_t)player;
	c->sequence = (uint16_t)(lo | hi << 8);
}

f2d_result f2d_command_encode(const f2d_command *c, uint8_t *buf, size_t cap, size_t *written)
{
	if (c == NULL || buf == NULL || written == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	wbuf b = {buf, 0, cap, false};
	io o = {&b, NULL, false};
	f2d_command copy = *c; /* the io functions write back every field they write */
	io_header(&o, &copy);
	if (!command_fields(&o, &copy) || o.bad) {
		return F2D_ERROR_INVALID_VALUE;
	}
	if (b.overflow) {
		return F2D_ERROR_CAPACITY;
	}
	*written = b.len;
	return F2D_OK;
}

f2d_result f2d_command_decode(const uint8_t *buf, size_t len, f2d_command *out, size_t *consumed)
{
	if (buf == NULL || out == NULL || consumed == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	rbuf b = {buf, len, 0, false};
	io o = {NULL, &b, false};
	f2d_command c;
	memset(&c, 0, sizeof c);
	io_header(&o, &c);
	if (!command_fields(&o, &c) || o.bad) {
		return F2D_ERROR_INVALID_VALUE; /* an unknown type, a value out of range, a flag */
	}
	if (b.short_read) {
		return F2D_ERROR_INVALID_VALUE; /* the bytes end before the command does */
	}
	*out = c;
	*consumed = b.pos;
	return F2D_OK;
}
