/* fix2d-replay: a world's state from its portable snapshot, and field-level diffs.
 * Public API only: the bytes come from f2d_snapshot_save_portable and follow the format
 * documented in fix2d/snapshot.h (version 6).
 * SPDX-License-Identifier: MIT
 */
#include "state.h"

#include "fix2d/convert.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ---- */

typedef struct rd {
	const uint8_t *p, *end;
	bool bad;
} rd;

static bool avail(rd *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return false;
	}
	return true;
}

static uint32_t u8(rd *r)
{
	return avail(r, 1) ? *r->p++ : 0;
}

static uint32_t u32(rd *r)
{
	if (!avail(r, 4)) {
		return 0;
	}
	uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
	             (uint32_t)r->p[3] << 24;
	r->p += 4;
	return v;
}

static int32_t i32(rd *r)
{
	uint32_t v = u32(r);
	return v <= INT32_MAX ? (int32_t)v : -(int32_t)(~v) - 1;
}

static uint64_t u64(rd *r)
{
	uint64_t lo = u32(r);
	return lo | (uint64_t)u32(r) << 32;
}

/* varint (LEB128, at most 5 bytes; the library has validated the snapshot's form) */
static uint32_t var(rd *r)
{
	uint32_t v = 0;
	for (int k = 0; k < 5; ++k) {
		uint32_t byte = u8(r);
		v |= (byte & 0x7Fu) << (7 * k);
		if (byte < 0x80u) {
			break;
		}
	}
	return v;
}

/* zigzag and delta (version 5): p + unzigzag(varint), modulo 2^32 */
static int32_t as_i32(uint32_t v)
{
	return v <= INT32_MAX ? (int32_t)v : -(int32_t)(~v) - 1;
}

static int32_t zz(rd *r)
{
	uint32_t u = var(r);
	return as_i32((u >> 1) ^ (0u - (u & 1u)));
}

static int32_t delta(rd *r, int32_t prev)
{
	return as_i32((uint32_t)prev + (uint32_t)zz(r));
}

/* snapshot.h unit(f, o) (version 9): sign(o) round(sqrt(2^32 - f^2)), 0 when f^2 >= 2^32 */
static int32_t unit_other(int32_t f, int32_t o)
{
	int64_t n = ((int64_t)1 << 32) - (int64_t)f * f, x = 0;
	for (int64_t step = (int64_t)1 << 16; n > 0 && step > 0; step >>= 1) {
		x += (x + step) * (x + step) <= n ? step : 0;
	}
	x += n > 0 && n - x * x > x ? 1 : 0;
	return o < 0 ? -(int32_t)x : (int32_t)x;
}

/* snapshot.h: centre - rotate(q, local centre), rotate rounding half away from zero */
static int64_t round16(int64_t p)
{
	return (p + 0x8000 + (p < 0 ? -1 : 0)) >> 16;
}

static f2d_vec2 derived_origin(f2d_vec2 c, f2d_rot q, f2d_vec2 lc)
{
	if (lc.x == 0 && lc.y == 0) {
		return c;
	}
	int64_t rx = round16((int64_t)q.c * lc.x - (int64_t)q.s * lc.y);
	int64_t ry = round16((int64_t)q.s * lc.x + (int64_t)q.c * lc.y);
	f2d_vec2 o;
	o.x = as_i32((uint32_t)c.x - (uint32_t)rx);
	o.y = as_i32((uint32_t)c.y - (uint32_t)ry);
	return o;
}

static f2d_vec2 vec(rd *r)
{
	f2d_vec2 v;
	v.x = i32(r);
	v.y = i32(r);
	return v;
}

/* u32 n (bounded by the bytes left), then the records are read by the caller */
static int32_t count_of(rd *r, size_t min_record)
{
	uint32_t n = u32(r);
	if (r->bad || n > F2D_MAX_OBJECTS || (size_t)n * min_record > (size_t)(r->end - r->p)) {
		r->bad = true;
		return 0;
	}
	return (int32_t)n;
}

static void skip_free_list(rd *r)
{
	int32_t n = count_of(r, 4);
	for (int32_t i = 0; i < n; ++i) {
		(void)u32(r);
	}
}

/* the header: step, gravity, time step; the settings and capacities are skipped */
static void parse_header(rd *r, st_world *s)
{
	s->step = u64(r);
	s->gravity = vec(r);
	s->time_step = i32(r);
	for (int k = 0; k < 8; ++k) { /* iterations .. max_rotation */
		(void)u32(r);
	}
	(void)u8(r);
	(void)u8(r);
	for (int k = 0; k < 5; ++k) { /* tolerances, time_to_sleep, capacities */
		(void)u32(r);
	}
	s->out_of_range_events = u64(r);
	s->overflow_events = u64(r);
	(void)u32(r);
}

/* what a body record is coded against: the previous body's centre and rotation, the previous
 * dynamic body's mass data */
typedef struct body_context {
	const st_body *prev;
	f2d_vec2 pc;
	f2d_rot pq;
} body_context;

static void parse_body_mass(rd *r, st_body *b, uint32_t f, body_context *bc)
{
	if ((f & 16u) && bc->prev != NULL) {
		b->mass = bc->prev->mass;
		b->inertia = bc->prev->inertia;
		b->local_center = bc->prev->local_center;
	} else {
		b->mass = zz(r);
		b->inertia = zz(r);
		b->local_center.x = zz(r);
		b->local_center.y = zz(r);
	}
	bc->prev = b;
}

static void parse_body_sleep(rd *r, st_body *b, uint32_t f)
{
	b->awake = 1;
	b->enable_sleep = 1;
	if (f & 32u) {
		uint32_t sl = u8(r);
		b->awake = (sl & 1u) ? 0 : 1;
		b->enable_sleep = (sl & 2u) ? 0 : 1;
		b->sleep_time = zz(r);
	}
}

/* the triple (x, y, z) zigzag-coded: velocity or force */
static void zz3(rd *r, fix16_t *x, fix16_t *y, fix16_t *z)
{
	*x = zz(r);
	*y = zz(r);
	*z = zz(r);
}

static void parse_body(rd *r, st_body *b, body_context *bc)
{
	b->generation = var(r);
	uint32_t f = var(r);
	if ((f & 1u) == 0) {
		return;
	}
	b->alive = true;
	b->type = (int32_t)((f >> 1) & 3u);
	b->center.x = bc->pc.x = delta(r, bc->pc.x);
	b->center.y = bc->pc.y = delta(r, bc->pc.y);
	b->q.s = delta(r, bc->pq.s); /* version 9: q.s, then q.c on the unit circle */
	b->q.c = delta(r, unit_other(b->q.s, bc->pq.c));
	bc->pq = b->q;
	f2d_vec2 od = {0, 0};
	if (f & 64u) { /* the origin stored */
		od.x = zz(r);
		od.y = zz(r);
	}
	if (f & 8u) {
		zz3(r, &b->v.x, &b->v.y, &b->w);
	}
	if (f & 128u) {
		zz3(r, &b->force.x, &b->force.y, &b->torque);
	}
	if (b->type == F2D_DYNAMIC_BODY) {
		parse_body_mass(r, b, f, bc);
	}
	if (f & 64u) {
		b->origin.x = as_i32((uint32_t)b->center.x + (uint32_t)od.x);
		b->origin.y = as_i32((uint32_t)b->center.y + (uint32_t)od.y);
	} else {
		b->origin = derived_origin(b->center, b->q, b->local_center);
	}
	if (f & 256u) {
		b->user_data = u64(r);
	}
	parse_body_sleep(r, b, f);
}

static void parse_bodies(rd *r, st_world *s)
{
	s->body_count = count_of(r, 2);
	s->bodies = calloc((size_t)s->body_count + 1, sizeof *s->bodies);
	body_context bc = {NULL, {0, 0}, {0, 0}};
	for (int32_t i = 0; s->bodies != NULL && i < s->body_count && !r->bad; ++i) {
		parse_body(r, &s->bodies[i], &bc);
	}
	skip_free_list(r);
}

/* a capsule (2), segment (3) or chain segment (4): two points, then a radius or the ghosts */
static void parse_segment_geometry(rd *r, st_shape *sh)
{
	sh->count = 2;
	sh->vertices[0] = vec(r);
	sh->vertices[1] = vec(r);
	if (sh->type == 2) {
		sh->radius = i32(r);
	} else if (sh->type == 4) {
		sh->vertices[2] = vec(r);
		sh->vertices[3] = vec(r);
	}
	sh->center.x = (fix16_t)(((int64_t)sh->vertices[0].x + sh->vertices[1].x) / 2);
	sh->center.y = (fix16_t)(((int64_t)sh->vertices[0].y + sh->vertices[1].y) / 2);
}

/* the geometry, or the previous shape's (flag 8); false on a bad vertex count */
static bool parse_shape_geometry(rd *r, st_shape *sh, uint32_t f, const st_shape *ps)
{
	if ((f & 8u) && ps != NULL) {
		sh->count = ps->count;
		memcpy(sh->vertices, ps->vertices, sizeof sh->vertices);
		sh->center = ps->center;
		sh->radius = ps->radius;
	} else if (sh->type >= 2) {
		parse_segment_geometry(r, sh);
	} else if (sh->polygon) {
		sh->count = (int32_t)u8(r);
		if (sh->count > F2D_MAX_POLYGON_VERTICES) {
			r->bad = true;
			return false;
		}
		for (int32_t k = 0; k < sh->count; ++k) {
			sh->vertices[k] = vec(r);
		}
	} else {
		sh->center = vec(r);
		sh->radius = i32(r);
	}
	return true;
}

/* one shape record; false on a bad type or vertex count (r->bad set) */
static bool parse_shape(rd *r, st_shape *sh, uint32_t f, const st_shape *ps, int32_t *prev_body)
{
	sh->alive = true;
	sh->polygon = (f & 2u) ? 1 : 0;
	sh->type = sh->polygon;
	if (f & 32u) { /* a type byte: capsule, segment, chain segment */
		sh->type = (int32_t)u8(r);
		if (sh->type < 2 || sh->type > 4) {
			r->bad = true;
			return false;
		}
	}
	sh->body = *prev_body = delta(r, *prev_body + 1);
	if ((f & 16u) && ps != NULL) {
		sh->density = ps->density;
		sh->friction = ps->friction;
		sh->restitution = ps->restitution;
	} else {
		sh->density = i32(r);
		sh->friction = i32(r);
		sh->restitution = i32(r);
	}
	if (!parse_shape_geometry(r, sh, f, ps)) {
		return false;
	}
	if (f & 4u) {
		sh->user_data = u64(r);
	}
	return true;
}

static void parse_shapes(rd *r, st_world *s)
{
	s->shape_count = count_of(r, 2);
	s->shapes = calloc((size_t)s->shape_count + 1, sizeof *s->shapes);
	const st_shape *ps = NULL;
	int32_t prev_body = -1;
	for (int32_t i = 0; s->shapes != NULL && i < s->shape_count && !r->bad; ++i) {
		st_shape *sh = &s->shapes[i];
		sh->generation = var(r);
		uint32_t f = u8(r);
		if ((f & 1u) == 0) {
			continue;
		}
		if (!parse_shape(r, sh, f, ps, &prev_body)) {
			break;
		}
		ps = sh;
	}
	skip_free_list(r);
}

/* the record of a joint of another type than revolute (fix2d/snapshot.h) */
static void parse_joint_extra(rd *r, st_joint *j)
{
	j->type = (int32_t)u8(r);
	j->axis = vec(r);
	j->length = i32(r);
	j->enable_spring = (int32_t)u8(r);
	j->hertz = i32(r);
	j->damping_ratio = i32(r);
	j->angular_hertz = i32(r);
	j->angular_damping_ratio = i32(r);
	j->max_force = i32(r);
	j->correction_factor = i32(r);
	j->spring_impulse = i32(r);
	j->angular_impulse = i32(r);
}

static void parse_joint(rd *r, st_joint *j)
{
	j->generation = u32(r);
	uint32_t f = u8(r);
	if ((f & 1u) == 0) {
		return;
	}
	j->alive = true;
	j->flags = (int32_t)(f & 14u);
	j->body_a = i32(r);
	j->body_b = i32(r);
	j->local_a = vec(r);
	j->local_b = vec(r);
	j->reference_angle = i32(r);
	j->lower = i32(r);
	j->upper = i32(r);
	j->motor_speed = i32(r);
	j->max_motor_torque = i32(r);
	j->impulse = vec(r);
	j->motor_impulse = i32(r);
	j->lower_impulse = i32(r);
	j->upper_impulse = i32(r);
	if (f & 32u) { /* another joint type: its record (fix2d/snapshot.h) */
		parse_joint_extra(r, j);
	}
	if (f & 16u) {
		j->user_data = u64(r);
	}
}

static void parse_joints(rd *r, st_world *s)
{
	s->joint_count = count_of(r, 5);
	s->joints = calloc((size_t)s->joint_count + 1, sizeof *s->joints);
	for (int32_t i = 0; s->joints != NULL && i < s->joint_count && !r->bad; ++i) {
		parse_joint(r, &s->joints[i]);
	}
	skip_free_list(r);
}

/* arbiters (format 9): varints, shapes delta-coded, material when it changes, the second
 * id xor the first, pt zigzag, a recycled manifold's geometry (skipped: not compared)
 * (include/fix2d/snapshot.h) */
static void parse_arbiter(rd *r, st_arbiter *a, const st_arbiter *p)
{
	uint32_t head = var(r), gap = var(r);
	a->shape_a = (int32_t)((p != NULL ? (uint32_t)p->shape_a : 0u) + (head >> 4));
	a->shape_b = (int32_t)((p != NULL && a->shape_a == p->shape_a ? (uint32_t)p->shape_b
	                                                              : (uint32_t)a->shape_a) +
	                       1u + gap);
	a->count = 1 + (int32_t)((head >> 1) & 1u);
	if ((head & 1u) && p != NULL) {
		a->friction = p->friction;
		a->restitution = p->restitution;
	} else {
		a->friction = (int32_t)var(r);
		a->restitution = (int32_t)var(r);
	}
	for (int32_t k = 0; k < a->count; ++k) {
		uint32_t t = var(r); /* the id bit-permuted (snapshot.h) */
		uint32_t id = (t & 1u) | (((t >> 1) & 0x0FFFFFFFu) << 4) | ((t >> 29) << 1);
		a->id[k] = k == 0 ? id : id ^ a->id[0];
		a->pn[k] = (int32_t)var(r);
		uint32_t z = var(r);
		a->pt[k] = (z & 1u) ? -(int32_t)(z >> 1) - 1 : (int32_t)(z >> 1);
	}
	/* a recycled manifold (version 9, kind = head bits 2-3): a block of six residuals (a
	 * width byte W | N << 4 and 4 W + 2 N bits, or 0x80 and six varints), then for kind 2 a
	 * mask of groups 3..7 (bit g - 3) and their residuals (snapshot.h; groups of count, 2,
	 * 2 count, count, count 2 ? 2 : 0 values) */
	const uint32_t kind = (head >> 2) & 3u;
	if (kind != 0) {
		uint32_t w = u8(r);
		for (uint32_t k = 0; k < (w >= 0x80u ? 6u : 0u); ++k) {
			(void)var(r); /* a residual: the manifold is not compared here */
		}
		for (uint32_t k = 0; k < (w >= 0x80u ? 0u : (4 * (w & 15u) + 2 * (w >> 4) + 7) / 8); ++k) {
			(void)u8(r);
		}
	}
	uint32_t mask = kind == 2 ? var(r) : 0u;
	for (int32_t g = 3; g < 8; ++g) {
		int32_t n = g == 3 || g == 6 ? a->count
		                             : (g == 5 ? 2 * a->count : (g == 7 ? 2 * (a->count - 1) : 2));
		for (int32_t k = 0; (mask >> (g - 3) & 1u) != 0 && k < n; ++k) {
			(void)var(r);
		}
	}
}

static void parse_arbiters(rd *r, st_world *s)
{
	s->arbiter_count = count_of(r, 5);
	s->arbiters = calloc((size_t)s->arbiter_count + 1, sizeof *s->arbiters);
	for (int32_t i = 0; s->arbiters != NULL && i < s->arbiter_count && !r->bad; ++i) {
		parse_arbiter(r, &s->arbiters[i], i > 0 ? &s->arbiters[i - 1] : NULL);
	}
}

/* options: defaults first, then the records of what differs (an id out of range is read
 * and dropped) */
static void parse_options(rd *r, st_world *s)
{
	for (int32_t i = 0; s->bodies != NULL && i < s->body_count; ++i) {
		s->bodies[i].gravity_scale = F2D_ONE;
	}
	for (int32_t i = 0; s->shapes != NULL && i < s->shape_count; ++i) {
		s->shapes[i].category_bits = 1u;
		s->shapes[i].mask_bits = UINT64_MAX;
		s->shapes[i].flags = 2 | 8;
	}
	s->hit_event_threshold = i32(r);
	int32_t nbo = count_of(r, 17);
	for (int32_t i = 0; i < nbo && !r->bad; ++i) {
		int32_t id = i32(r);
		st_body tmp,
		    *b = s->bodies != NULL && id >= 0 && id < s->body_count ? &s->bodies[id] : &tmp;
		b->gravity_scale = i32(r);
		b->linear_damping = i32(r);
		b->angular_damping = i32(r);
		b->fixed_rotation = (int32_t)u8(r);
	}
	int32_t nso = count_of(r, 25);
	for (int32_t i = 0; i < nso && !r->bad; ++i) {
		int32_t id = i32(r);
		st_shape tmp, *sh = s->shapes != NULL && id >= 0 && id < s->shape_count
		                        ? &s->shapes[id]
		                        : &tmp;
		sh->category_bits = u64(r);
		sh->mask_bits = u64(r);
		sh->group_index = i32(r);
		sh->flags = (int32_t)u8(r);
	}
}

/* the overlap and pending lists (counted and skipped), then the substep count (version 6) */
static void parse_tail(rd *r, st_world *s)
{
	s->overlap_count = count_of(r, 8);
	r->p += r->bad ? 0 : 8 * (size_t)s->overlap_count;
	s->pending_count = count_of(r, 17);
	r->p += r->bad ? 0 : 17 * (size_t)s->pending_count;
	(void)i32(r);              /* contact_recycle_distance (version 7) */
	s->substep_count = i32(r); /* always there (version 6) */
}

bool st_parse(const uint8_t *bytes, size_t len, st_world *s, char *err, size_t err_cap)
{
	memset(s, 0, sizeof *s);
	if (f2d_snapshot_check(bytes, len, NULL, err, err_cap) != F2D_OK) {
		return false;
	}
	rd r = {bytes + 40, bytes + len, false};
	parse_header(&r, s);
	parse_bodies(&r, s);
	parse_shapes(&r, s);
	parse_joints(&r, s);
	parse_arbiters(&r, s);
	parse_options(&r, s);
	parse_tail(&r, s);
	if (s->bodies == NULL || s->shapes == NULL || s->joints == NULL || s->arbiters == NULL) {
		snprintf(err, err_cap, "out of memory");
		st_free(s);
		return false;
	}
	if (r.bad || r.p != r.end) {
		snprintf(err, err_cap, "not the snapshot format version 9 this tool reads");
		st_free(s);
		return false;
	}
	return true;
}

bool st_from_world(f2d_world *w, st_world *out, char *err, size_t err_cap)
{
	size_t need = f2d_snapshot_portable_size(w), len = 0;
	uint8_t *buf = malloc(need);
	if (buf == NULL || f2d_snapshot_save_portable(w, buf, need, &len) != F2D_OK) {
		snprintf(err, err_cap, "cannot save the world's snapshot");
		free(buf);
		memset(out, 0, sizeof *out);
		return false;
	}
	bool ok = st_parse(buf, len, out, err, err_cap);
	free(buf);
	if (ok) {
		out->hash = f2d_world_hash(w);
	}
	return ok;
}

void st_free(st_world *s)
{
	free(s->bodies);
	free(s->shapes);
	free(s->joints);
	free(s->arbiters);
	memset(s, 0, sizeof *s);
}

/* ---- differences ---- */

typedef enum kind { K_FIX, K_INT, K_U64 } kind;

typedef struct field {
	const char *name;
	const char *unit; /* of a fix16 value */
	kind k;
	size_t off;
} field;

#define FX(T, m, unit)                                                                             \
	{                                                                                          \
#m, unit, K_FIX, offsetof(T, m)                                                    \
	}
#define IN(T, m)                                                                                   \
	{                                                                                          \
#m, "", K_INT, offsetof(T, m)                                                      \
	}
#define U6(T, m)                                                                                   \
	{                                                                                          \
#m, "", K_U64, offsetof(T, m)                                                      \
	}

static const field body_fields[] = {
    IN(st_body, generation),
    IN(st_body, type),
    FX(st_body, origin.x, "m"),
    FX(st_body, origin.y, "m"),
    FX(st_body, q.c, ""),
    FX(st_body, q.s, ""),
    FX(st_body, center.x, "m"),
    FX(st_body, center.y, "m"),
    FX(st_body, v.x, "m/s"),
    FX(st_body, v.y, "m/s"),
    FX(st_body, w, "rad/s"),
    FX(st_body, force.x, "N"),
    FX(st_body, force.y, "N"),
    FX(st_body, torque, "N m"),
    FX(st_body, mass, "kg"),
    FX(st_body, inertia, "kg m^2"),
    FX(st_body, local_center.x, "m"),
    FX(st_body, local_center.y, "m"),
    U6(st_body, user_data),
    IN(st_body, awake),
    IN(st_body, enable_sleep),
    FX(st_body, sleep_time, "s"),
    FX(st_body, gravity_scale, ""),
    FX(st_body, linear_damping, "1/s"),
    FX(st_body, angular_damping, "1/s"),
    IN(st_body, fixed_rotation),
};

static const field shape_fields[] = {
    IN(st_shape, generation),
    IN(st_shape, body),
    FX(st_shape, density, "kg/m^2"),
    FX(st_shape, friction, ""),
    FX(st_shape, restitution, ""),
    IN(st_shape, polygon),
    IN(st_shape, type),
    IN(st_shape, count),
    FX(st_shape, vertices[0].x, "m"),
    FX(st_shape, vertices[0].y, "m"),
    FX(st_shape, vertices[1].x, "m"),
    FX(st_shape, vertices[1].y, "m"),
    FX(st_shape, vertices[2].x, "m"),
    FX(st_shape, vertices[2].y, "m"),
    FX(st_shape, vertices[3].x, "m"),
    FX(st_shape, vertices[3].y, "m"),
    FX(st_shape, vertices[4].x, "m"),
    FX(st_shape, vertices[4].y, "m"),
    FX(st_shape, vertices[5].x, "m"),
    FX(st_shape, vertices[5].y, "m"),
    FX(st_shape, vertices[6].x, "m"),
    FX(st_shape, vertices[6].y, "m"),
    FX(st_shape, vertices[7].x, "m"),
    FX(st_shape, vertices[7].y, "m"),
    FX(st_shape, center.x, "m"),
    FX(st_shape, center.y, "m"),
    FX(st_shape, radius, "m"),
    U6(st_shape, user_data),
    U6(st_shape, category_bits),
    U6(st_shape, mask_bits),
    IN(st_shape, group_index),
    IN(st_shape, flags),
};

static const field joint_fields[] = {
    IN(st_joint, generation),
    IN(st_joint, flags),
    IN(st_joint, body_a),
    IN(st_joint, body_b),
    FX(st_joint, local_a.x, "m"),
    FX(st_joint, local_a.y, "m"),
    FX(st_joint, local_b.x, "m"),
    FX(st_joint, local_b.y, "m"),
    FX(st_joint, reference_angle, "rad"),
    FX(st_joint, lower, "rad"),
    FX(st_joint, upper, "rad"),
    FX(st_joint, motor_speed, "rad/s"),
    FX(st_joint, max_motor_torque, "N m"),
    FX(st_joint, impulse.x, "N s"),
    FX(st_joint, impulse.y, "N s"),
    FX(st_joint, motor_impulse, "N m s"),
    FX(st_joint, lower_impulse, "N m s"),
    FX(st_joint, upper_impulse, "N m s"),
    U6(st_joint, user_data),
    IN(st_joint, type),
    FX(st_joint, axis.x, ""),
    FX(st_joint, axis.y, ""),
    FX(st_joint, length, "m"),
    IN(st_joint, enable_spring),
    FX(st_joint, hertz, "Hz"),
    FX(st_joint, damping_ratio, ""),
    FX(st_joint, angular_hertz, "Hz"),
    FX(st_joint, angular_damping_ratio, ""),
    FX(st_joint, max_force, "N"),
    FX(st_joint, correction_factor, ""),
    FX(st_joint, spring_impulse, "N s"),
    FX(st_joint, angular_impulse, "N m s"),
};

static const field arbiter_fields[] = {
    FX(st_arbiter, friction, ""), FX(st_arbiter, restitution, ""), IN(st_arbiter, count),
    IN(st_arbiter, id[0]),        FX(st_arbiter, pn[0], "N s"),    FX(st_arbiter, pt[0], "N s"),
    IN(st_arbiter, id[1]),        FX(st_arbiter, pn[1], "N s"),    FX(st_arbiter, pt[1], "N s"),
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct diff_out {
	FILE *out;
	long limit, lines, fields;
} diff_out;

static void line(diff_out *d, const char *fmt, ...)
{
	if (d->out != NULL && d->lines < d->limit) {
		va_list ap;
		va_start(ap, fmt);
		vfprintf(d->out, fmt, ap);
		va_end(ap);
	}
	d->lines++;
}

/* Compares the fields of two records; returns how many differ. */
static int diff_record(diff_out *d, const char *what, int32_t id, const void *ra, const void *rb,
                       const field *fields, int n)
{
	int differ = 0;
	char idtext[16] = ""; /* id < 0: `what` names the record */
	if (id >= 0) {
		snprintf(idtext, sizeof idtext, " %d", id);
	}
	for (int i = 0; i < n; ++i) {
		const field *f = &fields[i];
		const char *pa = (const char *)ra + f->off, *pb = (const char *)rb + f->off;
		if (f->k == K_U64) {
			uint64_t a, b;
			memcpy(&a, pa, 8);
			memcpy(&b, pb, 8);
			if (a != b) {
				line(d, "  %s%s %s: %" PRIu64 " -> %" PRIu64 "\n", what, idtext,
				     f->name, a, b);
				++differ;
			}
			continue;
		}
		int32_t a, b;
		memcpy(&a, pa, 4);
		memcpy(&b, pb, 4);
		if (a == b) {
			continue;
		}
		++differ;
		if (f->k == K_INT) {
			line(d, "  %s%s %s: %" PRId32 " -> %" PRId32 "\n", what, idtext, f->name, a,
			     b);
			continue;
		}
		int64_t delta = (int64_t)b - a;
		const char *sp = f->unit[0] != '\0' ? " " : "";
		line(d,
		     "  %s%s %s: %.6f%s%s -> %.6f%s%s (delta %+.6f%s%s; raw 0x%08" PRIx32
		     " -> 0x%08" PRIx32 ", %+" PRId64 " LSB)\n",
		     what, idtext, f->name, f2d_to_double(a), sp, f->unit, f2d_to_double(b), sp,
		     f->unit, (double)delta / 65536.0, sp, f->unit, (uint32_t)a, (uint32_t)b,
		     delta);
	}
	d->fields += differ;
	return differ;
}

static void mark(uint8_t *diverged, int32_t n, int32_t id)
{
	if (diverged != NULL && id >= 0 && id < n) {
		diverged[id] = 1;
	}
}

static int32_t body_of_shape(const st_world *s, int32_t shape)
{
	return shape >= 0 && shape < s->shape_count && s->shapes[shape].alive
	           ? s->shapes[shape].body
	           : -1;
}

/* "  body 3: only in the first" (or second): a record alive in one state only. */
static void only_in(diff_out *d, const char *what, int32_t id, bool first)
{
	line(d, "  %s %d: %s\n", what, id, first ? "only in the first" : "only in the second");
	d->fields++;
}

/* The world's own fields: step, settings, event counters. */
static void diff_world(diff_out *d, const st_world *a, const st_world *b)
{
	if (a->step != b->step) {
		line(d, "  world step: %" PRIu64 " -> %" PRIu64 "\n", a->step, b->step);
		d->fields++;
	}
	if (a->gravity.x != b->gravity.x || a->gravity.y != b->gravity.y ||
	    a->time_step != b->time_step) {
		line(d, "  world settings differ (gravity or time step)\n");
		d->fields++;
	}
	if (a->out_of_range_events != b->out_of_range_events ||
	    a->overflow_events != b->overflow_events) {
		line(d,
		     "  world events: out of range %" PRIu64 " -> %" PRIu64 ", overflow %" PRIu64
		     " -> %" PRIu64 "\n",
		     a->out_of_range_events, b->out_of_range_events, a->overflow_events,
		     b->overflow_events);
		d->fields++;
	}
}

/* Bodies by id; a differing body is marked in div (nb entries). */
static void diff_bodies(diff_out *d, const st_world *a, const st_world *b, uint8_t *div, int32_t nb)
{
	static const st_body no_body;
	for (int32_t i = 0; i < nb; ++i) {
		const st_body *x = i < a->body_count ? &a->bodies[i] : &no_body;
		const st_body *y = i < b->body_count ? &b->bodies[i] : &no_body;
		if (x->alive != y->alive) {
			only_in(d, "body", i, x->alive);
			mark(div, nb, i);
		} else if (x->alive &&
		           diff_record(d, "body", i, x, y, body_fields, COUNT(body_fields)) > 0) {
			mark(div, nb, i);
		}
	}
}

/* Shapes by id; a differing shape marks its body (in either state). */
static void diff_shapes(diff_out *d, const st_world *a, const st_world *b, uint8_t *div, int32_t nb)
{
	int32_t ns = a->shape_count > b->shape_count ? a->shape_count : b->shape_count;
	static const st_shape no_shape;
	for (int32_t i = 0; i < ns; ++i) {
		const st_shape *x = i < a->shape_count ? &a->shapes[i] : &no_shape;
		const st_shape *y = i < b->shape_count ? &b->shapes[i] : &no_shape;
		if (x->alive != y->alive) {
			only_in(d, "shape", i, x->alive);
			mark(div, nb, x->alive ? x->body : y->body);
		} else if (x->alive && diff_record(d, "shape", i, x, y, shape_fields,
		                                   COUNT(shape_fields)) > 0) {
			mark(div, nb, x->body);
			mark(div, nb, y->body);
		}
	}
}

/* Joints by id; a differing joint marks its two bodies (a joint alive in one state only
 * marks none). */
static void diff_joints(diff_out *d, const st_world *a, const st_world *b, uint8_t *div, int32_t nb)
{
	int32_t nj = a->joint_count > b->joint_count ? a->joint_count : b->joint_count;
	static const st_joint no_joint;
	for (int32_t i = 0; i < nj; ++i) {
		const st_joint *x = i < a->joint_count ? &a->joints[i] : &no_joint;
		const st_joint *y = i < b->joint_count ? &b->joints[i] : &no_joint;
		if (x->alive != y->alive) {
			only_in(d, "joint", i, x->alive);
		} else if (x->alive && diff_record(d, "joint", i, x, y, joint_fields,
		                                   COUNT(joint_fields)) > 0) {
			mark(div, nb, x->body_a);
			mark(div, nb, x->body_b);
		}
	}
}

/* An arbiter's key (shape a, shape b); UINT64_MAX past the end of a list. */
static uint64_t arbiter_key(const st_arbiter *x)
{
	return x != NULL ? (uint64_t)x->shape_a << 32 | (uint32_t)x->shape_b : UINT64_MAX;
}

/* Arbiters, both lists sorted by key, merged by key; a differing contact marks the bodies of
 * its shapes (in the state that holds it). */
static void diff_arbiters(diff_out *d, const st_world *a, const st_world *b, uint8_t *div,
                          int32_t nb)
{
	for (int32_t i = 0, j = 0; i < a->arbiter_count || j < b->arbiter_count;) {
		const st_arbiter *x = i < a->arbiter_count ? &a->arbiters[i] : NULL;
		const st_arbiter *y = j < b->arbiter_count ? &b->arbiters[j] : NULL;
		uint64_t kx = arbiter_key(x), ky = arbiter_key(y);
		if (kx != ky) {
			const st_arbiter *only = kx < ky ? x : y;
			const st_world *w = kx < ky ? a : b;
			line(d, "  contact %d-%d: only in the %s\n", only->shape_a, only->shape_b,
			     kx < ky ? "first" : "second");
			d->fields++;
			mark(div, nb, body_of_shape(w, only->shape_a));
			mark(div, nb, body_of_shape(w, only->shape_b));
			if (kx < ky) {
				++i;
			} else {
				++j;
			}
			continue;
		}
		char name[48];
		snprintf(name, sizeof name, "contact %d-%d", x->shape_a, x->shape_b);
		if (diff_record(d, name, -1, x, y, arbiter_fields, COUNT(arbiter_fields)) > 0) {
			mark(div, nb, body_of_shape(a, x->shape_a));
			mark(div, nb, body_of_shape(a, x->shape_b));
		}
		++i;
		++j;
	}
}

long st_diff(const st_world *a, const st_world *b, FILE *out, long limit, uint8_t **diverged)
{
	diff_out d = {out, limit, 0, 0};
	int32_t nb = a->body_count > b->body_count ? a->body_count : b->body_count;
	uint8_t *div = NULL;
	if (diverged != NULL) {
		div = calloc((size_t)nb + 1, 1);
		*diverged = div;
	}
	diff_world(&d, a, b);
	diff_bodies(&d, a, b, div, nb);
	diff_shapes(&d, a, b, div, nb);
	diff_joints(&d, a, b, div, nb);
	diff_arbiters(&d, a, b, div, nb); /* contacts: merged by key (shape a, shape b) */
	if (out != NULL && d.lines > limit) {
		fprintf(out, "  ... %ld more\n", d.lines - limit);
	}
	return d.fields;
}

void st_body_delta(const st_world *a, const st_world *b, int32_t id, double *dx, double *dy,
                   double *dangle)
{
	*dx = *dy = *dangle = 0;
	if (id < 0 || id >= a->body_count || id >= b->body_count || !a->bodies[id].alive ||
	    !b->bodies[id].alive) {
		return;
	}
	const st_body *x = &a->bodies[id], *y = &b->bodies[id];
	*dx = f2d_to_double(y->origin.x) - f2d_to_double(x->origin.x);
	*dy = f2d_to_double(y->origin.y) - f2d_to_double(x->origin.y);
	*dangle = f2d_to_double(f2d_rot_get_angle(y->q)) - f2d_to_double(f2d_rot_get_angle(x->q));
}
