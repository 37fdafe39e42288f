/* fix2d bodies and shapes: creation, validation, mass properties, accessors.
 * SPDX-License-Identifier: MIT
 */
#include "core.h"

/* Speeds a user may set directly; the step further limits motion per step. */
#define F2D_MAX_SET_SPEED F2D_FIX(4096)

f2d_body_def f2d_default_body_def(void)
{
	f2d_body_def d;
	memset(&d, 0, sizeof d);
	d.type = F2D_STATIC_BODY;
	d.rotation = f2d_rot_identity();
	d.enable_sleep = true;
	d.awake = true;
	d.gravity_scale = F2D_ONE;
	return d;
}

f2d_shape_def f2d_default_shape_def(void)
{
	f2d_shape_def d;
	memset(&d, 0, sizeof d);
	d.density = F2D_ONE;
	d.friction = F2D_MILLI(600);
	d.restitution = 0;
	d.filter = f2d_default_filter();
	d.enable_contact_events = true;
	d.enable_sensor_events = true;
	return d;
}

f2d_filter f2d_default_filter(void)
{
	f2d_filter f = {1u, UINT64_MAX, 0};
	return f;
}

f2d_transform f2d_body_xf(const f2d_body *b)
{
	f2d_transform xf = {b->origin, b->q};
	return xf;
}

f2d_body *f2d_get_body(const f2d_world *w, f2d_body_id id)
{
	if (w == NULL || id.index1 < 1 || id.index1 > w->body_ids.next) {
		return NULL;
	}
	f2d_body *b = &w->bodies[id.index1 - 1];
	if (!b->alive || b->generation != id.generation) {
		return NULL;
	}
	return b;
}

static f2d_shape *get_shape(const f2d_world *w, f2d_shape_id id)
{
	if (w == NULL || id.index1 < 1 || id.index1 > w->shape_ids.next) {
		return NULL;
	}
	f2d_shape *s = &w->shapes[id.index1 - 1];
	if (!s->alive || s->generation != id.generation) {
		return NULL;
	}
	return s;
}

static bool in_world(f2d_vec2 p)
{
	return p.x >= -F2D_WORLD_LIMIT && p.x <= F2D_WORLD_LIMIT && p.y >= -F2D_WORLD_LIMIT &&
	       p.y <= F2D_WORLD_LIMIT;
}

static bool speed_ok(fix16_t v)
{
	return v >= -F2D_MAX_SET_SPEED && v <= F2D_MAX_SET_SPEED;
}

/* A rotation given by a user must be unit length within 1/128; it is then renormalised. */
static bool rot_ok(f2d_rot q)
{
	if (q.c < -2 * F2D_ONE || q.c > 2 * F2D_ONE || q.s < -2 * F2D_ONE || q.s > 2 * F2D_ONE) {
		return false; /* also keeps the squares below from overflowing */
	}
	int64_t len2 = (int64_t)q.c * q.c + (int64_t)q.s * q.s;
	int64_t one = (int64_t)1 << 32;
	return len2 >= one - (one >> 6) && len2 <= one + (one >> 6);
}

/* ---- mass ---- */

typedef struct body_mass {
	fix16_t mass, inv_mass, inertia, inv_inertia;
	f2d_vec2 local_center;
} body_mass;

/* M = sum m_i, c = sum m_i c_i / M, I = sum (I_i + m_i |c_i - c|^2) over n >= 1 shapes (also
 * used by the snapshot loader to check stored masses). */
int f2d_body_mass_from_shapes(const f2d_mass_data *md, int32_t n, f2d_mass_data *out)
{
	memset(out, 0, sizeof *out);
	int64_t m = 0, mx = 0, my = 0;
	for (int32_t i = 0; i < n; ++i) {
		m += md[i].mass;
		mx += md[i].mass * md[i].center.x; /* < 2^46 * 2^21 per shape */
		my += md[i].mass * md[i].center.y;
	}
	if (m < F2D_MIN_MASS || m > F2D_MAX_MASS) {
		out->mass = m;
		return 1;
	}
	f2d_vec2 c = f2d_v((fix16_t)(mx >= 0 ? (mx + m / 2) / m : -((-mx + m / 2) / m)),
	                   (fix16_t)(my >= 0 ? (my + m / 2) / m : -((-my + m / 2) / m)));
	int64_t inertia = 0;
	for (int32_t i = 0; i < n; ++i) {
		f2d_vec2 d = f2d_sub(md[i].center, c);
		inertia += md[i].inertia + f2d_round16(md[i].mass * f2d_round16(f2d_dot64(d, d)));
		if (inertia > F2D_MAX_INERTIA) {
			break;
		}
	}
	if (inertia < F2D_MIN_INERTIA || inertia > F2D_MAX_INERTIA) {
		out->inertia = inertia;
		return 2;
	}
	out->mass = m;
	out->center = c;
	out->inertia = inertia;
	return 0;
}

/* Combines the shapes' mass data (plus an optional extra shape not yet attached). */
static f2d_result compute_body_mass(f2d_world *w, const f2d_body *b, const f2d_shape *extra,
                                    body_mass *out)
{
	memset(out, 0, sizeof *out);
	if (b->type != F2D_DYNAMIC_BODY) {
		return F2D_OK;
	}
	f2d_mass_data md[64];
	int32_t n = 0;
	for (int32_t s = b->shape_list; s != F2D_NULL_INDEX; s = w->shapes[s].next) {
		if (n == 63) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "a body holds at most 64 shapes");
		}
		if (w->shapes[s].type == F2D_SEGMENT_SHAPE ||
		    w->shapes[s].type == F2D_CHAIN_SEGMENT_SHAPE) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "segment and chain shapes have no mass: only static "
			                     "and kinematic bodies hold them");
		}
		if (!f2d_shape_mass(&w->shapes[s], &md[n++])) {
			return f2d_set_error(w, F2D_ERROR_MASS_RANGE,
			                     "shape too large for a dynamic body");
		}
	}
	if (extra != NULL && !f2d_shape_mass(extra, &md[n++])) {
		return f2d_set_error(w, F2D_ERROR_MASS_RANGE,
		                     "a dynamic body's shape must lie within 32 m of its origin");
	}
	if (n == 0) {
		/* no shapes yet: behaves like 1 kg at the origin that does not rotate */
		out->mass = F2D_ONE;
		out->inv_mass = F2D_ONE;
		return F2D_OK;
	}
	f2d_mass_data total;
	int bad = f2d_body_mass_from_shapes(md, n, &total);
	if (bad == 1) {
		return f2d_set_error(
		    w, F2D_ERROR_MASS_RANGE,
		    "body mass %lld/65536 kg outside [2^-8, 2^14] (density x area)",
		    (long long)total.mass);
	}
	if (bad == 2) {
		return f2d_set_error(
		    w, F2D_ERROR_MASS_RANGE,
		    "body rotational inertia %lld/65536 kg m^2 outside [2^-14, 32767]",
		    (long long)total.inertia);
	}
	int64_t m = total.mass, inertia = total.inertia;
	f2d_vec2 c = total.center;
	out->mass = (fix16_t)m;
	out->inv_mass = f2d_div_exact((int64_t)1 << 16, m);
	out->inertia = (fix16_t)inertia;
	out->inv_inertia = f2d_div_exact((int64_t)1 << 16, inertia);
	out->local_center = c;
	return F2D_OK;
}

/* The centre of mass moves to origin + rotate(q, local centre) when the shapes change; on a
 * rotating body the velocity of the material points is kept: v' = v + w x (c' - c). Exact in 64
 * bits (|w| < 2^31, |c' - c| < 2^31): false when v' leaves the fix16 range (a body spinning
 * fast whose centre moves far), and *v_out is then saturated. */
static bool moved_centre_velocity(const f2d_body *b, f2d_vec2 local_center, f2d_vec2 *c_out,
                                  f2d_vec2 *v_out)
{
	f2d_vec2 c = f2d_add(b->origin, f2d_rotate(b->q, local_center));
	int64_t dx = (int64_t)c.x - b->center.x, dy = (int64_t)c.y - b->center.y;
	int64_t vx = b->v.x - f2d_round16(b->w * dy), vy = b->v.y + f2d_round16(b->w * dx);
	*c_out = c;
	*v_out = f2d_v(f2d_sat(vx), f2d_sat(vy));
	return vx == v_out->x && vy == v_out->y;
}

/* Applies new mass data; false when the velocity had to be saturated (see above). The state
 * hash's cached mass section is cleared (hash format 6; refilled at the next step). */
static bool apply_body_mass(f2d_world *w, f2d_body *b, const body_mass *bm)
{
	f2d_hash_shapes_changed(w);
	f2d_vec2 c, v;
	bool ok = moved_centre_velocity(b, bm->local_center, &c, &v);
	b->mass = bm->mass;
	b->inv_mass = bm->inv_mass;
	b->inertia = bm->inertia;
	b->inv_inertia = b->fixed_rotation ? 0 : bm->inv_inertia;
	b->local_center = bm->local_center;
	b->center = c;
	b->v = v;
	return ok;
}

/* create_shape and spawn refuse a shape whose new centre of mass would push the velocity of
 * a spinning body out of range (the world is unchanged). */
static f2d_result check_centre_velocity(f2d_world *w, const f2d_body *b, const body_mass *bm)
{
	f2d_vec2 c, v;
	if (!moved_centre_velocity(b, bm->local_center, &c, &v)) {
		return f2d_set_error(
		    w, F2D_ERROR_OUT_OF_RANGE,
		    "create_shape: the shape moves the centre of mass of a body "
		    "spinning at %d/65536 rad/s so far that its velocity would leave "
		    "the fix16 range",
		    (int)b->w);
	}
	return F2D_OK;
}

/* ---- bodies ---- */

/* The def's values: type, position, rotation, velocity, gravity scale, damping in range */
static f2d_result check_body_values(f2d_world *w, const f2d_body_def *def)
{
	if (def->type != F2D_STATIC_BODY && def->type != F2D_KINEMATIC_BODY &&
	    def->type != F2D_DYNAMIC_BODY) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_body: unknown body type %d", (int)def->type);
	}
	if (!in_world(def->position)) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "create_body: position outside the world range (|x|,|y| <= 8192 m)");
	}
	if (!rot_ok(def->rotation)) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "create_body: rotation is not a unit (cos, sin) pair; use f2d_make_rot");
	}
	if (!speed_ok(def->linear_velocity.x) || !speed_ok(def->linear_velocity.y) ||
	    !speed_ok(def->angular_velocity)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_body: velocity components must be within +-4096");
	}
	if (def->gravity_scale < F2D_FIX(-16) || def->gravity_scale > F2D_FIX(16)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_body: gravity_scale must be in [-16, 16]");
	}
	if (def->linear_damping < 0 || def->linear_damping > F2D_FIX(1000) ||
	    def->angular_damping < 0 || def->angular_damping > F2D_FIX(1000)) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "create_body: linear and angular damping must be in [0, 1000] 1/s");
	}
	return F2D_OK;
}

/* One rule for a state a body cannot have (fix2d.h, "Bodies"): a static body has no velocity
 * and no sleep state, a kinematic body is awake, a dynamic body sleeps only where sleeping is
 * enabled and at rest. A def that asks for another state is refused, as the setters are
 * (f2d_body_set_linear_velocity, _angular_velocity and f2d_body_set_awake refuse a static body
 * whatever the value); a def's fields at their defaults (zero velocity, awake) ask for nothing.
 * Box2D v3 ignores these fields silently instead. */
static f2d_result check_body_state(f2d_world *w, const f2d_body_def *def)
{
	bool moving = def->linear_velocity.x != 0 || def->linear_velocity.y != 0 ||
	              def->angular_velocity != 0;
	if (def->type == F2D_STATIC_BODY && moving) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_body: a static body never moves: linear_velocity and "
		                     "angular_velocity must be 0");
	}
	if (!def->awake) {
		if (def->type == F2D_STATIC_BODY) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "create_body: a static body neither sleeps nor wakes: "
			                     "awake must be true");
		}
		if (def->type == F2D_KINEMATIC_BODY) {
			return f2d_set_error(
			    w, F2D_ERROR_INVALID_VALUE,
			    "create_body: a kinematic body is awake while it moves: "
			    "awake must be true");
		}
		if (!def->enable_sleep || !w->def.enable_sleep) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "create_body: awake = false, but sleeping is disabled "
			                     "for this %s",
			                     w->def.enable_sleep ? "body" : "world");
		}
		if (moving) {
			return f2d_set_error(
			    w, F2D_ERROR_INVALID_VALUE,
			    "create_body: a body created asleep has zero velocity");
		}
	}
	return F2D_OK;
}

static f2d_result check_body_def(f2d_world *w, const f2d_body_def *def)
{
	f2d_result r = check_body_values(w, def);
	return r != F2D_OK ? r : check_body_state(w, def);
}

f2d_result f2d_create_body(f2d_world *w, const f2d_body_def *def, f2d_body_id *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (def == NULL || out == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "create_body: def and out are required");
	}
	f2d_result check = check_body_def(w, def);
	if (check != F2D_OK) {
		return check;
	}
	int32_t id;
	f2d_result r = f2d_pool_alloc(w, &w->body_ids, (void **)&w->bodies, &w->body_capacity,
	                              sizeof(f2d_body), &id);
	if (r != F2D_OK) {
		return r;
	}
	f2d_body *b = &w->bodies[id];
	uint32_t gen = b->generation == 0 ? 1 : b->generation;
	memset(b, 0, sizeof *b);
	b->generation = gen;
	b->alive = true;
	b->type = def->type;
	b->origin = def->position;
	b->q = f2d_rot_normalize(def->rotation.c, def->rotation.s);
	b->center = b->origin;
	b->shape_list = F2D_NULL_INDEX;
	b->joint_list = F2D_NULL_INDEX;
	b->user_data = def->user_data;
	b->enable_sleep = def->enable_sleep;
	/* check_body_def: only a dynamic body can be created asleep, only where it may sleep and
	 * at rest; a static body has zero velocity */
	b->awake = def->awake;
	b->v = def->linear_velocity;
	b->w = def->angular_velocity;
	b->gravity_scale = def->gravity_scale;
	b->linear_damping = def->linear_damping;
	b->angular_damping = def->angular_damping;
	b->fixed_rotation = def->fixed_rotation && def->type == F2D_DYNAMIC_BODY;
	if (b->fixed_rotation) {
		b->w = 0;
	}
	body_mass bm;
	compute_body_mass(w, b, NULL, &bm); /* cannot fail without shapes */
	(void)apply_body_mass(w, b, &bm);      /* nor move the centre */
	w->body_count++;
	out->index1 = id + 1;
	out->generation = gen;
	return F2D_OK;
}

f2d_result f2d_destroy_body(f2d_world *w, f2d_body_id id)
{
	f2d_body *b = f2d_get_body(w, id);
	if (b == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT
		                 : f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                                 "destroy_body: invalid body");
	}
	int32_t index = id.index1 - 1;
	int32_t need = 0;
	for (int32_t s = b->shape_list; s != F2D_NULL_INDEX; s = w->shapes[s].next) {
		need += f2d_events_destroy_need(w, s);
	}
	if (!f2d_events_reserve_pending(w, need)) {
		return f2d_set_error(
		    w, F2D_ERROR_OUT_OF_MEMORY,
		    "destroy_body: allocator returned NULL; nothing was destroyed");
	}
	for (int32_t j = 0; j < w->joint_ids.next; ++j) {
		f2d_joint *jt = &w->joints[j];
		if (jt->alive && (jt->body_a == index || jt->body_b == index)) {
			f2d_joint_id jid = {j + 1, jt->generation};
			f2d_destroy_joint(w, jid);
		}
	}
	while (b->shape_list != F2D_NULL_INDEX) {
		int32_t s = b->shape_list;
		f2d_shape_id sid = {s + 1, w->shapes[s].generation};
		f2d_destroy_shape(w, sid);
	}
	uint32_t gen = b->generation + 1;
	memset(b, 0, sizeof *b);
	b->generation = gen == 0 ? 1 : gen;
	b->shape_list = F2D_NULL_INDEX;
	b->joint_list = F2D_NULL_INDEX;
	f2d_pool_free(w, &w->body_ids, index);
	w->body_count--;
	f2d_hash_shapes_changed(w); /* the hash's cached mass section (format 6) */
	return F2D_OK;
}

bool f2d_body_is_valid(const f2d_world *w, f2d_body_id id)
{
	return f2d_get_body(w, id) != NULL;
}

#define BODY_GETTER(type, name, expr, fallback)                                                    \
	type f2d_body_get_##name(const f2d_world *w, f2d_body_id id)                               \
	{                                                                                          \
		const f2d_body *b = f2d_get_body(w, id);                                           \
		if (b == NULL) {                                                                   \
			return fallback;                                                           \
		}                                                                                  \
		return expr;                                                                       \
	}

static const f2d_vec2 zero_vec = {0, 0};
static const f2d_rot identity_rot = {65536, 0};
static const f2d_transform identity_xf = {{0, 0}, {65536, 0}};

BODY_GETTER(f2d_body_type, type, b->type, F2D_STATIC_BODY)
BODY_GETTER(f2d_vec2, position, b->origin, zero_vec)
BODY_GETTER(f2d_rot, rotation, b->q, identity_rot)
BODY_GETTER(fix16_t, angle, f2d_rot_get_angle(b->q), 0)
BODY_GETTER(f2d_transform, transform, f2d_body_xf(b), identity_xf)
BODY_GETTER(f2d_vec2, world_center, b->center, zero_vec)
BODY_GETTER(f2d_vec2, linear_velocity, b->v, zero_vec)
BODY_GETTER(fix16_t, angular_velocity, b->w, 0)
BODY_GETTER(fix16_t, mass, b->type == F2D_DYNAMIC_BODY ? b->mass : 0, 0)
BODY_GETTER(fix16_t, inertia, b->type == F2D_DYNAMIC_BODY ? b->inertia : 0, 0)
BODY_GETTER(uint64_t, user_data, b->user_data, 0)

static f2d_body *body_or_error(f2d_world *w, f2d_body_id id, const char *what)
{
	f2d_body *b = f2d_get_body(w, id);
	if (b == NULL && w != NULL) {
		f2d_set_error(w, F2D_ERROR_INVALID_HANDLE, "%s: null, stale or foreign body handle",
		              what);
	}
	return b;
}

#define BODY_OR_RETURN(b, w, id, what)                                                             \
	if ((w) == NULL) {                                                                         \
		return F2D_ERROR_NULL_ARGUMENT;                                                    \
	}                                                                                          \
	f2d_body *b = body_or_error(w, id, what);                                                  \
	if (b == NULL) {                                                                           \
		return F2D_ERROR_INVALID_HANDLE;                                                   \
	}

f2d_result f2d_body_set_user_data(f2d_world *w, f2d_body_id id, uint64_t user_data)
{
	BODY_OR_RETURN(b, w, id, "body_set_user_data");
	b->user_data = user_data;
	return F2D_OK;
}

f2d_result f2d_body_set_transform(f2d_world *w, f2d_body_id id, f2d_vec2 position, f2d_rot rotation)
{
	BODY_OR_RETURN(b, w, id, "body_set_transform");
	if (!in_world(position)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_transform: position outside the world range");
	}
	if (!rot_ok(rotation)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_transform: rotation is not a unit (cos, sin) pair");
	}
	b->origin = position;
	b->q = f2d_rot_normalize(rotation.c, rotation.s);
	b->center = f2d_add(b->origin, f2d_rotate(b->q, b->local_center));
	f2d_wake_body(w, id.index1 - 1);
	w->contacts_stale = true; /* a static body moved: its pairs change */
	w->query_epoch++;
	return F2D_OK;
}

f2d_result f2d_body_set_linear_velocity(f2d_world *w, f2d_body_id id, f2d_vec2 v)
{
	BODY_OR_RETURN(b, w, id, "body_set_linear_velocity");
	if (!speed_ok(v.x) || !speed_ok(v.y)) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "body_set_linear_velocity: components must be within +-4096 m/s");
	}
	if (b->type == F2D_STATIC_BODY) { /* the one rule: see check_body_def */
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_linear_velocity: a static body has no velocity");
	}
	b->v = v;
	f2d_wake_body(w, id.index1 - 1);
	return F2D_OK;
}

f2d_result f2d_body_set_angular_velocity(f2d_world *w, f2d_body_id id, fix16_t av)
{
	BODY_OR_RETURN(b, w, id, "body_set_angular_velocity");
	if (!speed_ok(av)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_angular_velocity: must be within +-4096 rad/s");
	}
	if (b->type == F2D_STATIC_BODY) { /* the one rule: see check_body_def */
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_angular_velocity: a static body has no velocity");
	}
	b->w = av;
	f2d_wake_body(w, id.index1 - 1);
	return F2D_OK;
}

/* Accumulators are checked in 64 bits: a sum leaving the fix16 range is refused. */
static bool add_ok(fix16_t a, int64_t d, fix16_t *out)
{
	int64_t s = (int64_t)a + d;
	if (s > INT32_MAX || s < -INT32_MAX) {
		return false;
	}
	*out = (fix16_t)s;
	return true;
}

f2d_result f2d_body_apply_force(f2d_world *w, f2d_body_id id, f2d_vec2 force, f2d_vec2 point)
{
	BODY_OR_RETURN(b, w, id, "body_apply_force");
	if (b->type != F2D_DYNAMIC_BODY) {
		return F2D_OK;
	}
	if (!in_world(point)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_apply_force: point outside the world range");
	}
	f2d_vec2 r = f2d_sub(point, b->center);
	int64_t torque = f2d_round16((int64_t)r.x * force.y - (int64_t)r.y * force.x);
	f2d_vec2 nf;
	fix16_t nt;
	if (!add_ok(b->force.x, force.x, &nf.x) || !add_ok(b->force.y, force.y, &nf.y) ||
	    !add_ok(b->torque, torque, &nt)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_apply_force: accumulated force or torque out of range");
	}
	b->force = nf;
	b->torque = nt;
	f2d_wake_body(w, id.index1 - 1);
	return F2D_OK;
}

f2d_result f2d_body_apply_force_to_center(f2d_world *w, f2d_body_id id, f2d_vec2 force)
{
	BODY_OR_RETURN(b, w, id, "body_apply_force_to_center");
	return f2d_body_apply_force(w, id, force, b->center);
}

f2d_result f2d_body_apply_torque(f2d_world *w, f2d_body_id id, fix16_t torque)
{
	BODY_OR_RETURN(b, w, id, "body_apply_torque");
	if (b->type != F2D_DYNAMIC_BODY) {
		return F2D_OK;
	}
	fix16_t nt;
	if (!add_ok(b->torque, torque, &nt)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_apply_torque: accumulated torque out of range");
	}
	b->torque = nt;
	f2d_wake_body(w, id.index1 - 1);
	return F2D_OK;
}

f2d_result f2d_body_apply_linear_impulse(f2d_world *w, f2d_body_id id, f2d_vec2 impulse,
                                         f2d_vec2 point)
{
	BODY_OR_RETURN(b, w, id, "body_apply_linear_impulse");
	if (b->type != F2D_DYNAMIC_BODY) {
		return F2D_OK;
	}
	if (!in_world(point)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_apply_linear_impulse: point outside the world range");
	}
	f2d_vec2 r = f2d_sub(point, b->center);
	int64_t dvx = f2d_round16((int64_t)b->inv_mass * impulse.x);
	int64_t dvy = f2d_round16((int64_t)b->inv_mass * impulse.y);
	int64_t ang = f2d_round16((int64_t)r.x * impulse.y - (int64_t)r.y * impulse.x);
	int64_t dw = ang > INT32_MAX || ang < -INT32_MAX
	                 ? INT64_MAX / 4
	                 : f2d_round16((int64_t)b->inv_inertia * ang);
	f2d_vec2 nv;
	fix16_t nw;
	if (!add_ok(b->v.x, dvx, &nv.x) || !add_ok(b->v.y, dvy, &nv.y) || !add_ok(b->w, dw, &nw) ||
	    !speed_ok(nv.x) || !speed_ok(nv.y) || !speed_ok(nw)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_apply_linear_impulse: resulting velocity out of range");
	}
	b->v = nv;
	b->w = nw;
	f2d_wake_body(w, id.index1 - 1);
	return F2D_OK;
}

f2d_result f2d_body_apply_angular_impulse(f2d_world *w, f2d_body_id id, fix16_t impulse)
{
	BODY_OR_RETURN(b, w, id, "body_apply_angular_impulse");
	if (b->type != F2D_DYNAMIC_BODY) {
		return F2D_OK;
	}
	fix16_t nw;
	if (!add_ok(b->w, f2d_round16((int64_t)b->inv_inertia * impulse), &nw) || !speed_ok(nw)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_apply_angular_impulse: resulting velocity out of range");
	}
	b->w = nw;
	f2d_wake_body(w, id.index1 - 1);
	return F2D_OK;
}

/* ---- shapes ---- */

static bool material_ok(f2d_world *w, const f2d_shape_def *def)
{
	if (def->density <= 0) {
		f2d_set_error(w, F2D_ERROR_INVALID_VALUE, "shape density must be > 0");
		return false;
	}
	if (def->friction < 0 || def->friction > F2D_FIX(4)) {
		f2d_set_error(w, F2D_ERROR_INVALID_VALUE, "shape friction must be in [0, 4]");
		return false;
	}
	if (def->restitution < 0 || def->restitution > F2D_ONE) {
		f2d_set_error(w, F2D_ERROR_INVALID_VALUE, "shape restitution must be in [0, 1]");
		return false;
	}
	return true;
}

static f2d_result create_shape(f2d_world *w, f2d_body_id body_id, const f2d_shape_def *def,
                               const f2d_shape *proto, f2d_shape_id *out)
{
	f2d_body *b = f2d_get_body(w, body_id);
	if (b == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "create_shape: null, stale or foreign body handle");
	}
	if (!material_ok(w, def)) {
		return F2D_ERROR_INVALID_VALUE;
	}
	f2d_shape tmp = *proto;
	tmp.density = def->density;
	tmp.friction = def->friction;
	tmp.restitution = def->restitution;
	tmp.filter = def->filter;
	tmp.is_sensor = def->is_sensor;
	tmp.enable_contact_events = def->enable_contact_events;
	tmp.enable_hit_events = def->enable_hit_events;
	tmp.enable_sensor_events = def->enable_sensor_events;
	body_mass bm;
	f2d_result r = compute_body_mass(w, b, &tmp, &bm);
	if (r == F2D_OK) {
		r = check_centre_velocity(w, b, &bm);
	}
	if (r != F2D_OK) {
		return r;
	}
	int32_t id;
	r = f2d_pool_alloc(w, &w->shape_ids, (void **)&w->shapes, &w->shape_capacity,
	                   sizeof(f2d_shape), &id);
	if (r != F2D_OK) {
		return r;
	}
	b = f2d_get_body(w, body_id); /* the pool may not move bodies, but stay safe */
	f2d_shape *s = &w->shapes[id];
	uint32_t gen = s->generation == 0 ? 1 : s->generation;
	*s = tmp;
	s->generation = gen;
	s->alive = true;
	s->body = body_id.index1 - 1;
	s->user_data = def->user_data;
	s->aabb = f2d_shape_compute_aabb(s, f2d_body_xf(b), 0);
	/* keep the body's shape list in id order */
	s->next = F2D_NULL_INDEX;
	int32_t *link = &b->shape_list;
	while (*link != F2D_NULL_INDEX && *link < id) {
		link = &w->shapes[*link].next;
	}
	s->next = *link;
	*link = id;
	f2d_shape_refresh_digest(w, s);
	(void)apply_body_mass(w, b, &bm); /* checked above */
	f2d_wake_body(w, s->body);
	w->shape_count++;
	w->sensor_count += s->is_sensor ? 1 : 0;
	w->hit_shape_count += s->enable_hit_events ? 1 : 0;
	w->sweep_dirty = true;
	w->query_epoch++;
	out->index1 = id + 1;
	out->generation = gen;
	return F2D_OK;
}

f2d_result f2d_create_polygon_shape(f2d_world *w, f2d_body_id body, const f2d_shape_def *def,
                                    const f2d_polygon *polygon, f2d_shape_id *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (def == NULL || polygon == NULL || out == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "create_polygon_shape: def, polygon and out are required");
	}
	f2d_shape proto;
	memset(&proto, 0, sizeof proto);
	proto.type = F2D_POLYGON_SHAPE;
	/* never trust a hand-filled polygon: rebuild it from its vertices */
	if (polygon->count < 3 || polygon->count > F2D_MAX_POLYGON_VERTICES ||
	    f2d_make_polygon(polygon->vertices, polygon->count, &proto.polygon) != F2D_OK) {
		return f2d_set_error(
		    w, F2D_ERROR_BAD_POLYGON,
		    "create_polygon_shape: polygon is not convex, CCW, 3..8 vertices "
		    "with edges >= 5 mm within 512 m; build it with f2d_make_polygon");
	}
	return create_shape(w, body, def, &proto, out);
}

/* for shapes.c's capsules, segments and chains */
f2d_result f2d_create_shape_proto(f2d_world *w, f2d_body_id body, const f2d_shape_def *def,
                                  const f2d_shape *proto, f2d_shape_id *out)
{
	return create_shape(w, body, def, proto, out);
}

f2d_result f2d_check_circle(f2d_world *w, const f2d_circle *circle)
{
	if (circle->radius < F2D_MIN_SHAPE_SIZE || circle->radius > F2D_MAX_SHAPE_EXTENT) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_circle_shape: radius must be in [0.005, 512] m");
	}
	if (circle->center.x < -F2D_MAX_SHAPE_EXTENT || circle->center.x > F2D_MAX_SHAPE_EXTENT ||
	    circle->center.y < -F2D_MAX_SHAPE_EXTENT || circle->center.y > F2D_MAX_SHAPE_EXTENT ||
	    (int64_t)f2d_length(circle->center) + circle->radius > F2D_MAX_SHAPE_EXTENT) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "create_circle_shape: the circle must lie within 512 m of the origin");
	}
	return F2D_OK;
}

f2d_result f2d_create_circle_shape(f2d_world *w, f2d_body_id body, const f2d_shape_def *def,
                                   const f2d_circle *circle, f2d_shape_id *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (def == NULL || circle == NULL || out == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "create_circle_shape: def, circle and out are required");
	}
	f2d_result check = f2d_check_circle(w, circle);
	if (check != F2D_OK) {
		return check;
	}
	f2d_shape proto;
	memset(&proto, 0, sizeof proto);
	proto.type = F2D_CIRCLE_SHAPE;
	proto.circle = *circle;
	return create_shape(w, body, def, &proto, out);
}

f2d_result f2d_destroy_shape(f2d_world *w, f2d_shape_id id)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	f2d_shape *s = get_shape(w, id);
	if (s == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "destroy_shape: null, stale or foreign shape handle");
	}
	int32_t index = id.index1 - 1;
	if (!f2d_events_reserve_pending(w, f2d_events_destroy_need(w, index))) {
		return f2d_set_error(
		    w, F2D_ERROR_OUT_OF_MEMORY,
		    "destroy_shape: allocator returned NULL; nothing was destroyed");
	}
	f2d_body *b = &w->bodies[s->body];
	int32_t *link = &b->shape_list;
	while (*link != index) {
		link = &w->shapes[*link].next;
	}
	*link = s->next;
	f2d_events_shape_destroyed(w, index);
	w->sensor_count -= s->is_sensor ? 1 : 0;
	w->hit_shape_count -= s->enable_hit_events ? 1 : 0;
	f2d_remove_arbiters_of_shape(w, index);
	uint32_t gen = s->generation + 1;
	memset(s, 0, sizeof *s);
	s->generation = gen == 0 ? 1 : gen;
	s->next = F2D_NULL_INDEX;
	f2d_shape_refresh_digest(w, s);
	f2d_pool_free(w, &w->shape_ids, index);
	w->shape_count--;
	w->sweep_dirty = true;
	w->query_epoch++;
	if (b->alive) {
		body_mass bm;
		if (compute_body_mass(w, b, NULL, &bm) != F2D_OK) {
			/* removing a shape can leave the rest below the mass range: fall back to 1
			 * kg */
			memset(&bm, 0, sizeof bm);
			if (b->type == F2D_DYNAMIC_BODY) {
				bm.mass = bm.inv_mass = F2D_ONE;
			}
		}
		if (!apply_body_mass(w, b, &bm)) {
			return f2d_set_error(
			    w, F2D_ERROR_OVERFLOW,
			    "destroy_shape: the shape was destroyed; the centre of mass "
			    "moved so far on a body spinning that fast that its velocity "
			    "was saturated at the fix16 range");
		}
	}
	return F2D_OK;
}

bool f2d_shape_is_valid(const f2d_world *w, f2d_shape_id id)
{
	return get_shape(w, id) != NULL;
}

f2d_body_id f2d_shape_get_body(const f2d_world *w, f2d_shape_id id)
{
	f2d_body_id none = {0, 0};
	const f2d_shape *s = get_shape(w, id);
	if (s == NULL) {
		return none;
	}
	f2d_body_id b = {s->body + 1, w->bodies[s->body].generation};
	return b;
}

f2d_aabb f2d_shape_get_aabb(const f2d_world *w, f2d_shape_id id)
{
	f2d_aabb none = {{0, 0}, {0, 0}};
	const f2d_shape *s = get_shape(w, id);
	if (s == NULL) {
		return none;
	}
	return f2d_shape_compute_aabb(s, f2d_body_xf(&w->bodies[s->body]), 0);
}

/* A body with one shape, all or nothing: everything that can be refused is checked before the
 * first id is taken, and the arrays are grown first, so the two creations cannot fail
 * half-way (used by the input layer, where a refused command must leave the world as it was). */
f2d_result f2d_spawn_body(f2d_world *w, const f2d_body_def *bd, const f2d_shape_def *sd,
                          const f2d_shape *proto, f2d_body_id *out)
{
	f2d_result r = check_body_def(w, bd);
	if (r != F2D_OK) {
		return r;
	}
	if (!material_ok(w, sd)) {
		return F2D_ERROR_INVALID_VALUE;
	}
	f2d_body tmp;
	memset(&tmp, 0, sizeof tmp);
	tmp.type = bd->type;
	tmp.shape_list = F2D_NULL_INDEX;
	f2d_shape shape = *proto;
	shape.density = sd->density;
	shape.friction = sd->friction;
	shape.restitution = sd->restitution;
	tmp.fixed_rotation = bd->fixed_rotation && bd->type == F2D_DYNAMIC_BODY;
	body_mass bm;
	r = compute_body_mass(w, &tmp, &shape, &bm);
	if (r == F2D_OK) {
		/* the body as f2d_create_body makes it (no shape: centre = origin) */
		tmp.origin = tmp.center = bd->position;
		tmp.q = f2d_rot_normalize(bd->rotation.c, bd->rotation.s);
		tmp.v = bd->linear_velocity; /* zero unless it may move (check_body_def) */
		tmp.w = bd->angular_velocity;
		r = check_centre_velocity(w, &tmp, &bm);
	}
	if (r != F2D_OK) {
		return r;
	}
	int32_t nb = w->body_ids.next + 1, ns = w->shape_ids.next + 1;
	if (!f2d_grow_aligned(w, (void **)&w->bodies, &w->body_capacity, nb, sizeof(f2d_body)) ||
	    !f2d_grow(w, (void **)&w->body_ids.free_ids, &w->body_ids.free_capacity, nb,
	              sizeof(int32_t)) ||
	    !f2d_grow_aligned(w, (void **)&w->shapes, &w->shape_capacity, ns, sizeof(f2d_shape)) ||
	    !f2d_grow(w, (void **)&w->shape_ids.free_ids, &w->shape_ids.free_capacity, ns,
	              sizeof(int32_t))) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	f2d_body_id id;
	r = f2d_create_body(w, bd, &id);
	if (r != F2D_OK) {
		return r;
	}
	f2d_shape_id sid;
	r = create_shape(w, id, sd, proto, &sid);
	if (r != F2D_OK) {
		return r; /* unreachable: everything was checked above */
	}
	*out = id;
	return F2D_OK;
}

/* ---- options: filters, materials, body type and motion options ----
 * Each setter validates, changes nothing on a refusal, and makes the change effective at the
 * next step. What may change which pairs touch (filter, body type) makes the broad phase
 * recompute its pairs (sweep_dirty); contacts that end then report end events in that step. */

static f2d_shape *shape_or_error(f2d_world *w, f2d_shape_id id, const char *what)
{
	if (w == NULL) {
		return NULL;
	}
	f2d_shape *s = get_shape(w, id);
	if (s == NULL) {
		f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		              "%s: null, stale or foreign shape handle", what);
	}
	return s;
}

f2d_result f2d_shape_set_filter(f2d_world *w, f2d_shape_id id, f2d_filter filter)
{
	f2d_shape *s = shape_or_error(w, id, "shape_set_filter");
	if (s == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT : F2D_ERROR_INVALID_HANDLE;
	}
	s->filter = filter;
	f2d_hash_shapes_changed(w); /* the options section counts the shapes with filters */
	w->sweep_dirty = true;      /* the pairs may change */
	f2d_wake_body(w, s->body);
	return F2D_OK;
}

f2d_filter f2d_shape_get_filter(const f2d_world *w, f2d_shape_id id)
{
	const f2d_shape *s = get_shape(w, id);
	return s != NULL ? s->filter : f2d_default_filter();
}

bool f2d_shape_is_sensor(const f2d_world *w, f2d_shape_id id)
{
	const f2d_shape *s = get_shape(w, id);
	return s != NULL && s->is_sensor;
}

f2d_result f2d_shape_set_friction(f2d_world *w, f2d_shape_id id, fix16_t friction)
{
	f2d_shape *s = shape_or_error(w, id, "shape_set_friction");
	if (s == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT : F2D_ERROR_INVALID_HANDLE;
	}
	if (friction < 0 || friction > F2D_FIX(4)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "shape_set_friction: friction must be in [0, 4]");
	}
	s->friction = friction;
	f2d_shape_refresh_digest(w, s);
	return F2D_OK;
}

f2d_result f2d_shape_set_restitution(f2d_world *w, f2d_shape_id id, fix16_t restitution)
{
	f2d_shape *s = shape_or_error(w, id, "shape_set_restitution");
	if (s == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT : F2D_ERROR_INVALID_HANDLE;
	}
	if (restitution < 0 || restitution > F2D_ONE) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "shape_set_restitution: restitution must be in [0, 1]");
	}
	s->restitution = restitution;
	f2d_shape_refresh_digest(w, s);
	return F2D_OK;
}

f2d_result f2d_shape_set_density(f2d_world *w, f2d_shape_id id, fix16_t density)
{
	f2d_shape *s = shape_or_error(w, id, "shape_set_density");
	if (s == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT : F2D_ERROR_INVALID_HANDLE;
	}
	if (density <= 0) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "shape_set_density: density must be > 0");
	}
	f2d_body *b = &w->bodies[s->body];
	fix16_t old = s->density;
	s->density = density;
	body_mass bm;
	f2d_result r = compute_body_mass(w, b, NULL, &bm);
	if (r == F2D_OK) {
		r = check_centre_velocity(w, b, &bm);
	}
	if (r != F2D_OK) {
		s->density = old;
		return r;
	}
	(void)apply_body_mass(w, b, &bm); /* checked above */
	f2d_shape_refresh_digest(w, s);
	f2d_wake_body(w, s->body);
	return F2D_OK;
}

fix16_t f2d_shape_get_friction(const f2d_world *w, f2d_shape_id id)
{
	const f2d_shape *s = get_shape(w, id);
	return s != NULL ? s->friction : 0;
}

fix16_t f2d_shape_get_restitution(const f2d_world *w, f2d_shape_id id)
{
	const f2d_shape *s = get_shape(w, id);
	return s != NULL ? s->restitution : 0;
}

fix16_t f2d_shape_get_density(const f2d_world *w, f2d_shape_id id)
{
	const f2d_shape *s = get_shape(w, id);
	return s != NULL ? s->density : 0;
}

f2d_result f2d_body_set_gravity_scale(f2d_world *w, f2d_body_id id, fix16_t scale)
{
	f2d_body *b = body_or_error(w, id, "body_set_gravity_scale");
	if (b == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT : F2D_ERROR_INVALID_HANDLE;
	}
	if (scale < F2D_FIX(-16) || scale > F2D_FIX(16)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_gravity_scale: scale must be in [-16, 16]");
	}
	b->gravity_scale = scale;
	f2d_hash_shapes_changed(w); /* the hash's cached count of bodies with options */
	return F2D_OK;
}

f2d_result f2d_body_set_damping(f2d_world *w, f2d_body_id id, fix16_t linear, fix16_t angular)
{
	f2d_body *b = body_or_error(w, id, "body_set_damping");
	if (b == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT : F2D_ERROR_INVALID_HANDLE;
	}
	if (linear < 0 || linear > F2D_FIX(1000) || angular < 0 || angular > F2D_FIX(1000)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_damping: damping must be in [0, 1000] 1/s");
	}
	b->linear_damping = linear;
	b->angular_damping = angular;
	f2d_hash_shapes_changed(w); /* the hash's cached count of bodies with options */
	return F2D_OK;
}

f2d_result f2d_body_set_fixed_rotation(f2d_world *w, f2d_body_id id, bool fixed)
{
	f2d_body *b = body_or_error(w, id, "body_set_fixed_rotation");
	if (b == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT : F2D_ERROR_INVALID_HANDLE;
	}
	if (b->type != F2D_DYNAMIC_BODY) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_fixed_rotation: only a dynamic body turns");
	}
	if (b->fixed_rotation == fixed) {
		return F2D_OK;
	}
	body_mass bm;
	f2d_result r = compute_body_mass(w, b, NULL, &bm);
	if (r != F2D_OK) {
		return r;
	}
	b->fixed_rotation = fixed;
	(void)apply_body_mass(w, b, &bm); /* the centre of mass does not move */
	if (fixed) {
		b->w = 0;
	}
	f2d_wake_body(w, id.index1 - 1);
	return F2D_OK;
}

void f2d_body_get_options(const f2d_world *w, f2d_body_id id, fix16_t *gravity_scale,
                          fix16_t *linear_damping, fix16_t *angular_damping, bool *fixed_rotation)
{
	const f2d_body *b = f2d_get_body(w, id);
	if (gravity_scale != NULL) {
		*gravity_scale = b != NULL ? b->gravity_scale : 0;
	}
	if (linear_damping != NULL) {
		*linear_damping = b != NULL ? b->linear_damping : 0;
	}
	if (angular_damping != NULL) {
		*angular_damping = b != NULL ? b->angular_damping : 0;
	}
	if (fixed_rotation != NULL) {
		*fixed_rotation = b != NULL && b->fixed_rotation;
	}
}

/* A body changes type: its mass is recomputed for the new type (static and kinematic bodies have
 * none), a body that becomes static stops and has no sleep state, one that becomes kinematic
 * keeps its velocity and wakes, one that becomes dynamic wakes. Refused, with nothing changed,
 * when a joint of the body would be left with no dynamic body, or the body's shapes do not
 * give a valid mass for a dynamic body. Contacts that can no longer exist end at the next step
 * (end events there). */
f2d_result f2d_body_set_type(f2d_world *w, f2d_body_id id, f2d_body_type type)
{
	f2d_body *b = body_or_error(w, id, "body_set_type");
	if (b == NULL) {
		return w == NULL ? F2D_ERROR_NULL_ARGUMENT : F2D_ERROR_INVALID_HANDLE;
	}
	if (type != F2D_STATIC_BODY && type != F2D_KINEMATIC_BODY && type != F2D_DYNAMIC_BODY) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE, "body_set_type: unknown type %d",
		                     (int)type);
	}
	if (type == b->type) {
		return F2D_OK;
	}
	int32_t index = id.index1 - 1;
	if (type != F2D_DYNAMIC_BODY) {
		for (int32_t j = 0; j < w->joint_ids.next; ++j) {
			const f2d_joint *jt = &w->joints[j];
			if (!jt->alive || (jt->body_a != index && jt->body_b != index)) {
				continue;
			}
			int32_t other = jt->body_a == index ? jt->body_b : jt->body_a;
			if (w->bodies[other].type != F2D_DYNAMIC_BODY) {
				return f2d_set_error(
				    w, F2D_ERROR_INVALID_VALUE,
				    "body_set_type: joint %d would join two bodies "
				    "that are not dynamic",
				    (int)j);
			}
		}
	}
	f2d_body tmp = *b;
	tmp.type = type;
	body_mass bm;
	f2d_result r = compute_body_mass(w, &tmp, NULL, &bm);
	if (r == F2D_OK && type == F2D_DYNAMIC_BODY) {
		r = check_centre_velocity(w, &tmp, &bm);
	}
	if (r != F2D_OK) {
		return r;
	}
	f2d_wake_body(w, index); /* what rests on it must fall, or it must move */
	b->type = type;
	if (type != F2D_DYNAMIC_BODY) {
		b->fixed_rotation = false;
	}
	(void)apply_body_mass(w, b, &bm);
	if (type == F2D_STATIC_BODY) {
		b->v = f2d_v(0, 0);
		b->w = 0;
	}
	b->awake = true;
	b->sleep_time = 0;
	b->force = f2d_v(0, 0);
	b->torque = 0;
	w->sweep_dirty = true; /* which pairs exist may change */
	w->contacts_stale = true;
	w->query_epoch++;
	return F2D_OK;
}
