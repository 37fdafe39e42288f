/* fix2d snapshots: the decoder. Reading runs twice over the bytes, a validating pass that writes
 * nothing into the world, then an applying pass that cannot fail (see snapshot.c for the whole
 * design and include/fix2d/snapshot.h for the format).
 * SPDX-License-Identifier: MIT */
#include "snapshot_internal.h"
#include "joint_internal.h"

#include <stdarg.h>
#include <stdio.h>

#define STACK_SCRATCH 1024 /* marks: restores of small worlds need no scratch buffer */

/* ---- decoder ---- */

/* Validating pass bookkeeping, one mark per id (on the stack or in the world's pair scratch
 * buffer): body: 0 dead, 1 + type alive; shape: 0 dead, 1 + body alive (the bodies of the
 * arbiters are read from it); joint: 0 dead, 1 alive; FREE_MARK: a dead id met in the free
 * list; SWEEP_MARK: a live shape met in the sweep order. */
#define FREE_MARK 0x80000000u
#define SWEEP_MARK 0x40000000u
/* uint32 marks per f2d_mass_data in the scratch buffer */
#define MD_WORDS (sizeof(f2d_mass_data) / sizeof(uint32_t))

static inline bool shape_live(uint32_t mark)
{
	return mark - 1u < SWEEP_MARK - 1u; /* 1 <= mark < SWEEP_MARK */
}

typedef struct decoder {
	f2d_world *w;
	const uint8_t *p, *end;
	bool apply;
	bool caches;
	const char *what;
	f2d_result result; /* of the first failure */
	/* validating pass */
	size_t scratch_used;
	uint32_t *scratch_base;      /* NULL: the marks live in w->pairs */
	const uint32_t *counts;      /* in-process: the id counts of the header */
	const uint8_t *arbiters_end; /* where the arbiter section ends (applying pass) */
	size_t body_off, shape_off, joint_off;
	/* portable form: stored masses are checked against the shapes (check_masses) */
	bool check_mass;
	size_t mass_off, md_off, head_off, link_off;
	fix16_t vmax, wmax;
	bool enable_sleep; /* settings, for the sleep records */
	fix16_t time_to_sleep;
	int32_t last_oor;
	/* counts (known after the validating pass) */
	int32_t next[3], alive[3];
	int32_t arbiter_count;
	uint32_t sweep; /* NO_SWEEP or the sweep length */
	/* running state of both passes */
	bool have_mass;                /* a previous live dynamic body, */
	fix16_t mass_prev[4];          /* its mass, inertia, local centre */
	fix16_t inv_mass, inv_inertia; /* and its inverses (applying pass) */
	f2d_vec2 center_prev;          /* previous live body's centre and rotation */
	f2d_rot q_prev;
	f2d_shape geometry; /* previous live shape's geometry and material */
	bool have_shape, geometry_dynamic_ok;
} decoder;

static bool fail(decoder *d, f2d_result r, const char *fmt, ...)
{
	char msg[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	f2d_set_error(d->w, r, "%s: %s", d->what, msg);
	d->result = r;
	return false;
}

static bool truncated(decoder *d, const char *where)
{
	return fail(d, F2D_ERROR_INVALID_VALUE, "truncated in %s", where);
}

static bool rd_var_slow(decoder *d, uint32_t *out, const char *what)
{
	uint32_t v = 0;
	for (int k = 0; k < 5; ++k) {
		if (d->p >= d->end) {
			return truncated(d, what);
		}
		uint32_t byte = *d->p++;
		if (k == 4 && byte > 0x0Fu) {
			return fail(d, F2D_ERROR_INVALID_VALUE, "%s: varint above 2^32", what);
		}
		v |= (byte & 0x7Fu) << (7 * k);
		if (byte < 0x80u) {
			if (k > 0 && byte == 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "%s: varint not minimal (not canonical)", what);
			}
			*out = v;
			return true;
		}
	}
	return fail(d, F2D_ERROR_INVALID_VALUE, "%s: varint longer than 5 bytes", what);
}

static inline bool avail(const decoder *d, size_t n)
{
	return (size_t)(d->end - d->p) >= n;
}

static inline uint32_t rd_u32(decoder *d)
{
	uint32_t v = get_u32(d->p);
	d->p += 4;
	return v;
}
static inline int32_t rd_i32(decoder *d)
{
	return u2i(rd_u32(d));
}
static inline uint64_t rd_u64(decoder *d)
{
	uint64_t v = get_u64(d->p);
	d->p += 8;
	return v;
}
static inline uint32_t rd_u8(decoder *d)
{
	return *d->p++;
}
static bool rd_var_slow(decoder *d, uint32_t *out, const char *what); /* after fail() */
/* A varint (snapshot.c put_var): at most 5 bytes, minimal (no last byte 0 after the first),
 * below 2^32; anything else is refused. */
static inline bool rd_var(decoder *d, uint32_t *out, const char *what)
{
	const uint8_t *p = d->p;
	if (p < d->end && *p < 0x80u) {
		*out = *d->p++;
		return true;
	}
	/* up to 5 bytes without a bounds check per byte (centres and rotations take 3 or 4);
	 * anything unusual (a last byte 0, a fifth byte above 15) goes to the checking path */
	if (d->end - p >= 5) {
		uint32_t v = p[0] & 0x7Fu;
		for (int k = 1; k < 5; ++k) {
			uint32_t byte = p[k];
			if (byte == 0 || (k == 4 && byte > 0x0Fu)) {
				break;
			}
			v |= (byte & 0x7Fu) << (7 * k);
			if (byte < 0x80u) {
				*out = v;
				d->p = p + k + 1;
				return true;
			}
		}
	}
	return rd_var_slow(d, out, what);
}
/* zigzag (snapshot.c): 0, 1, 2, 3, ... -> 0, -1, 1, -2, ... */
static inline int32_t unzigzag(uint32_t u)
{
	return u2i((u >> 1) ^ (0u - (u & 1u)));
}
static inline bool rd_zz(decoder *d, int32_t *out, const char *what)
{
	uint32_t u = 0;
	if (!rd_var(d, &u, what)) {
		return false;
	}
	*out = unzigzag(u);
	return true;
}
/* prev + a zigzag-coded delta, modulo 2^32 (snapshot.c put_delta) */
static inline bool rd_delta(decoder *d, int32_t *out, int32_t prev, const char *what)
{
	uint32_t u = 0;
	if (!rd_var(d, &u, what)) {
		return false;
	}
	*out = u2i((uint32_t)prev + (uint32_t)unzigzag(u));
	return true;
}
static inline f2d_vec2 rd_vec(decoder *d)
{
	f2d_vec2 v;
	v.x = rd_i32(d);
	v.y = rd_i32(d);
	return v;
}

/* Reserves zeroed scratch marks (one uint32 per id: not a character type, so storing one does
 * not make the compiler reload the decoder) in w->pairs, a per-step buffer that find_pairs
 * refills from the start before any read. Offsets, not pointers: growing moves the buffer. */
static bool scratch_reserve(decoder *d, size_t count, size_t *offset)
{
	f2d_world *w = d->w;
	size_t bytes = count * sizeof(uint32_t);
	if (d->scratch_base != NULL) { /* reserved at once by load_payload */
		*offset = d->scratch_used;
		memset((uint8_t *)d->scratch_base + d->scratch_used, 0, bytes);
		d->scratch_used += bytes;
		return true;
	}
	size_t total = d->scratch_used + bytes;
	size_t words = total > 0 ? (total + 7) / 8 : 1; /* never NULL: not even NULL + 0 */
	if (words > (size_t)INT32_MAX / 2) {
		return fail(d, F2D_ERROR_CAPACITY, "snapshot too large");
	}
	if (!f2d_grow(w, (void **)&w->pairs, &w->pair_capacity, (int32_t)words, sizeof(uint64_t))) {
		return fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	*offset = d->scratch_used;
	memset((uint8_t *)w->pairs + d->scratch_used, 0, bytes);
	d->scratch_used = total;
	return true;
}

static inline uint32_t *scratch(decoder *d, size_t offset)
{
	uint8_t *base =
	    d->scratch_base != NULL ? (uint8_t *)d->scratch_base : (uint8_t *)d->w->pairs;
	return (uint32_t *)(void *)(base + offset);
}

static bool decode_world(decoder *d)
{
	const size_t len = 8 + 4 * 13 + 1 + 13 + 8 + 8 + 4;
	if (!avail(d, len)) {
		return truncated(d, "the world settings");
	}
	uint64_t step_count = rd_u64(d);
	f2d_world_def def = f2d_default_world_def();
	def.allocator.alloc = NULL;
	def.allocator.free = NULL;
	def.allocator.context = NULL;
	def.gravity = rd_vec(d);
	def.time_step = rd_i32(d);
	def.iterations = rd_i32(d);
	def.joint_position_iterations = rd_i32(d);
	def.bias_factor = rd_i32(d);
	def.linear_slop = rd_i32(d);
	def.speculative_distance = rd_i32(d);
	def.restitution_threshold = rd_i32(d);
	def.max_translation = rd_i32(d);
	def.max_rotation = rd_i32(d);
	uint32_t warm = rd_u8(d);
	def.warm_starting = warm != 0;
	uint32_t sleep = rd_u8(d);
	def.enable_sleep = sleep != 0;
	def.linear_sleep_tolerance = rd_i32(d);
	def.angular_sleep_tolerance = rd_i32(d);
	def.time_to_sleep = rd_i32(d);
	def.body_capacity = rd_i32(d);
	def.contact_capacity = rd_i32(d);
	uint64_t oor = rd_u64(d), ovf = rd_u64(d);
	int32_t last = rd_i32(d);
	if (!d->apply) {
		const char *problem = f2d_world_def_problem(&def);
		if (problem != NULL) {
			return fail(d, F2D_ERROR_INVALID_VALUE, "settings: %s", problem);
		}
		if (warm > 1 || sleep > 1) {
			return fail(d, F2D_ERROR_INVALID_VALUE,
			            "settings: warm_starting %u or enable_sleep %u is not 0/1",
			            (unsigned)warm, (unsigned)sleep);
		}
		d->enable_sleep = def.enable_sleep;
		d->time_to_sleep = def.time_to_sleep;
		if (last < -1) {
			return fail(d, F2D_ERROR_INVALID_HANDLE, "last out-of-range body %d",
			            (int)last);
		}
		d->last_oor = last;
		d->vmax = speed_bound(def.max_translation, def.time_step);
		d->wmax = speed_bound(def.max_rotation, def.time_step);
		return true;
	}
	f2d_world *w = d->w;
	def.allocator = w->allocator;
	w->def = def;
	w->gravity = def.gravity;
	w->h = def.time_step;
	w->inv_h = f2d_div_exact((int64_t)1 << 16, def.time_step);
	w->step_count = step_count;
	w->out_of_range_events = oor;
	w->overflow_events = ovf;
	w->last_out_of_range_body = last;
	w->saturated = false;
	return true;
}

/* Reads the number of ids handed out; bounded by F2D_MAX_OBJECTS and by the bytes left (each
 * slot takes at least 5 bytes) before anything is reserved. */
static bool decode_next(decoder *d, int kind, const char *name)
{
	if (!avail(d, 4)) {
		return truncated(d, name);
	}
	uint32_t n = rd_u32(d);
	if (d->apply) {
		return true;
	}
	if (n > F2D_MAX_OBJECTS) {
		return fail(d, F2D_ERROR_CAPACITY, "%u %s, more than F2D_MAX_OBJECTS", (unsigned)n,
		            name);
	}
	/* a record takes at least 2 bytes (bodies and shapes: varint generation and flags;
	 * joints: 5) */
	if ((size_t)n > (size_t)(d->end - d->p) / (kind == 2 ? 5 : 2)) {
		return fail(d, F2D_ERROR_INVALID_VALUE, "truncated: %u %s cannot fit in %zu bytes",
		            (unsigned)n, name, (size_t)(d->end - d->p));
	}
	if (d->counts != NULL && n != d->counts[kind]) {
		return fail(d, F2D_ERROR_INVALID_VALUE, "the header counts %u %s, the payload %u",
		            (unsigned)d->counts[kind], name, (unsigned)n);
	}
	d->next[kind] = (int32_t)n;
	d->alive[kind] = 0;
	return true;
}

/* The free list: exactly the dead ids, once each, in stack order. */
static bool decode_free_list(decoder *d, int kind, size_t marks_off, f2d_id_pool *pool,
                             const char *name)
{
	if (!avail(d, 4)) {
		return truncated(d, name);
	}
	uint32_t n = rd_u32(d);
	if (!d->apply) {
		uint32_t dead = (uint32_t)(d->next[kind] - d->alive[kind]);
		if (n != dead) {
			return fail(d, F2D_ERROR_INVALID_HANDLE,
			            "%s free list holds %u ids, %u are dead", name, (unsigned)n,
			            (unsigned)dead);
		}
	}
	if (!avail(d, (size_t)n * 4)) {
		return truncated(d, name);
	}
	if (d->apply) {
		for (uint32_t i = 0; i < n; ++i) {
			pool->free_ids[i] = rd_i32(d);
		}
		pool->free_count = (int32_t)n;
		return true;
	}
	uint32_t *marks = scratch(d, marks_off);
	for (uint32_t i = 0; i < n; ++i) {
		uint32_t id = rd_u32(d);
		if (id >= (uint32_t)d->next[kind] || marks[id] != 0) {
			return fail(
			    d, F2D_ERROR_INVALID_HANDLE,
			    "%s free list entry %u: id %u is live, repeated or never handed out",
			    name, (unsigned)i, (unsigned)id);
		}
		marks[id] = FREE_MARK;
	}
	return true;
}

/* Clears slots [from, to) left over from a world that had handed out more ids: a slot past
 * `next` must be zero (create reads its old generation). */
static void clear_slots(void *array, size_t elem, int32_t from, int32_t to)
{
	if (to > from) {
		memset((char *)array + (size_t)from * elem, 0, (size_t)(to - from) * elem);
	}
}

static bool decode_bodies(decoder *d)
{
	f2d_world *w = d->w;
	if (!decode_next(d, 0, "bodies")) {
		return false;
	}
	int32_t n = d->next[0];
	if (!d->apply) {
		if (d->last_oor >= n) {
			return fail(d, F2D_ERROR_INVALID_HANDLE,
			            "last out-of-range body %d was never handed out",
			            (int)d->last_oor);
		}
		if (!scratch_reserve(d, (size_t)n, &d->body_off) ||
		    (d->check_mass && !scratch_reserve(d, 4 * (size_t)n, &d->mass_off))) {
			return false;
		}
	} else {
		clear_slots(w->bodies, sizeof(f2d_body), n, w->body_ids.next);
		w->body_ids.next = n;
	}
	d->have_mass = false;
	d->center_prev = f2d_v(0, 0);
	d->q_prev.c = d->q_prev.s = 0;
	const fix16_t limit = F2D_WORLD_LIMIT;
	for (int32_t i = 0; i < n; ++i) {
		uint32_t gen = 0, flags = 0;
		if (!rd_var(d, &gen, "a body") || !rd_var(d, &flags, "a body")) {
			return false;
		}
		uint32_t type = (flags >> BF_TYPE_SHIFT) & 3u;
		bool alive = (flags & BF_ALIVE) != 0;
		bool dynamic = type == F2D_DYNAMIC_BODY;
		bool same = (flags & BF_SAME_MASS) != 0;
		bool mass_rec = alive && dynamic && !same;
		if (!d->apply) {
			if (gen == 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "body %d: generation 0",
				            (int)i);
			}
			if ((!alive && flags != 0) || (flags & ~BF_ALL) != 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "body %d: bad flags %u",
				            (int)i, (unsigned)flags);
			}
			if (alive && type > F2D_DYNAMIC_BODY) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "body %d: bad type or flags %u", (int)i,
				            (unsigned)flags);
			}
			if (alive && ((type == F2D_STATIC_BODY && (flags & BF_MOVING)) ||
			              (!dynamic && (flags & (BF_FORCE | BF_SAME_MASS))))) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "body %d: a %s body with velocity, force or mass",
				            (int)i,
				            type == F2D_STATIC_BODY ? "static" : "kinematic");
			}
			if (alive && same && !d->have_mass) {
				return fail(
				    d, F2D_ERROR_INVALID_VALUE,
				    "body %d: same mass as a previous body that does not exist",
				    (int)i);
			}
		}
		/* every field of f2d_body is written: no memset per record (speed); the size check
		 * in tests/test_snapshot.c catches a new field */
		f2d_body tmp;
		f2d_body *b = d->apply ? &w->bodies[i] : &tmp;
		b->generation = gen;
		b->alive = alive;
		b->type = alive ? (f2d_body_type)type : F2D_STATIC_BODY;
		b->shape_list = F2D_NULL_INDEX;
		b->joint_count = 0;
		b->joint_list = F2D_NULL_INDEX;
		b->v = f2d_v(0, 0);
		b->w = 0;
		b->force = f2d_v(0, 0);
		b->torque = 0;
		b->mass = b->inv_mass = b->inertia = b->inv_inertia = 0;
		b->local_center = f2d_v(0, 0);
		b->user_data = 0;
		b->awake = true;
		b->enable_sleep = true;
		b->sleep_time = 0;
		b->gravity_scale = F2D_ONE; /* options at their defaults (see decode_options) */
		b->linear_damping = b->angular_damping = 0;
		b->fixed_rotation = false;
		if (!alive) {
			b->origin = b->center = f2d_v(0, 0);
			b->q.c = b->q.s = 0;
		} else {
			const char *rec = "a body";
			f2d_vec2 od = f2d_v(0, 0); /* origin - centre, when stored */
			if (!rd_delta(d, &b->center.x, d->center_prev.x, rec) ||
			    !rd_delta(d, &b->center.y, d->center_prev.y, rec) ||
			    !rd_delta(d, &b->q.c, d->q_prev.c, rec) ||
			    !rd_delta(d, &b->q.s, d->q_prev.s, rec) ||
			    ((flags & BF_ORIGIN) &&
			     (!rd_delta(d, &od.x, 0, rec) || !rd_delta(d, &od.y, 0, rec))) ||
			    ((flags & BF_MOVING) &&
			     (!rd_zz(d, &b->v.x, rec) || !rd_zz(d, &b->v.y, rec) ||
			      !rd_zz(d, &b->w, rec))) ||
			    ((flags & BF_FORCE) &&
			     (!rd_zz(d, &b->force.x, rec) || !rd_zz(d, &b->force.y, rec) ||
			      !rd_zz(d, &b->torque, rec)))) {
				return false;
			}
			d->center_prev = b->center;
			d->q_prev = b->q;
			if (dynamic) {
				if (mass_rec) {
					if (!rd_zz(d, &b->mass, rec) ||
					    !rd_zz(d, &b->inertia, rec) ||
					    !rd_zz(d, &b->local_center.x, rec) ||
					    !rd_zz(d, &b->local_center.y, rec)) {
						return false;
					}
				} else {
					b->mass = d->mass_prev[0];
					b->inertia = d->mass_prev[1];
					b->local_center.x = d->mass_prev[2];
					b->local_center.y = d->mass_prev[3];
				}
			}
			if (flags & BF_USER) {
				if (!avail(d, 8)) {
					return truncated(d, rec);
				}
				b->user_data = rd_u64(d);
			}
			uint32_t sleep = 0;
			if (flags & BF_SLEEP) {
				if (!avail(d, 1)) {
					return truncated(d, rec);
				}
				sleep = rd_u8(d);
				b->awake = (sleep & 1u) == 0;
				b->enable_sleep = (sleep & 2u) == 0;
				if (!rd_zz(d, &b->sleep_time, rec)) {
					return false;
				}
			}
			if (!d->apply && (flags & BF_SLEEP)) {
				/* canonical and reachable: only a dynamic body sleeps or counts
				 * time, a sleeping one is still and may sleep, time in [0,
				 * time_to_sleep] */
				bool asleep = !b->awake;
				if (sleep > 3 || (sleep == 0 && b->sleep_time == 0) ||
				    b->sleep_time < 0 || b->sleep_time > d->time_to_sleep ||
				    (!dynamic && (asleep || b->sleep_time != 0)) ||
				    (asleep && (!b->enable_sleep || !d->enable_sleep ||
				                (flags & (BF_MOVING | BF_FORCE)) != 0)) ||
				    (!b->enable_sleep && b->sleep_time != 0)) {
					return fail(d, F2D_ERROR_INVALID_VALUE,
					            "body %d: impossible sleep state %u, time %d",
					            (int)i, (unsigned)sleep, (int)b->sleep_time);
				}
			}
			fix16_t plim = dynamic ? limit + DYNAMIC_POSITION_SLACK : limit;
			if (!d->apply) {
				if (!vec_within(b->center, plim)) {
					return fail(d, F2D_ERROR_INVALID_VALUE,
					            "body %d: position beyond F2D_WORLD_LIMIT",
					            (int)i);
				}
				if (!rot_unit(b->q)) {
					return fail(d, F2D_ERROR_INVALID_VALUE,
					            "body %d: rotation is not unit length", (int)i);
				}
				if ((flags & BF_MOVING) &&
				    ((b->v.x == 0 && b->v.y == 0 && b->w == 0) ||
				     !within(b->v.x, d->vmax) || !within(b->v.y, d->vmax) ||
				     !within(b->w, d->wmax))) {
					return fail(
					    d, F2D_ERROR_INVALID_VALUE,
					    "body %d: velocity out of range (or zero, flagged)",
					    (int)i);
				}
				if ((flags & BF_FORCE) &&
				    ((b->force.x == 0 && b->force.y == 0 && b->torque == 0) ||
				     !no_min(b->force.x) || !no_min(b->force.y) ||
				     !no_min(b->torque))) {
					return fail(
					    d, F2D_ERROR_INVALID_VALUE,
					    "body %d: force out of range (or zero, flagged)",
					    (int)i);
				}
				if ((flags & BF_USER) && b->user_data == 0) {
					return fail(d, F2D_ERROR_INVALID_VALUE,
					            "body %d: zero user data flagged", (int)i);
				}
				if (mass_rec) {
					if (b->mass < F2D_MIN_MASS || b->mass > F2D_MAX_MASS ||
					    (b->inertia != 0 && (b->inertia < F2D_MIN_INERTIA ||
					                         b->inertia > F2D_MAX_INERTIA)) ||
					    (b->inertia == 0 &&
					     (b->mass != F2D_ONE || b->local_center.x != 0 ||
					      b->local_center.y != 0)) ||
					    !vec_within(b->local_center,
					                F2D_MAX_DYNAMIC_SHAPE_EXTENT)) {
						return fail(
						    d, F2D_ERROR_MASS_RANGE,
						    "body %d: mass %d, inertia %d or centre out "
						    "of range",
						    (int)i, (int)b->mass, (int)b->inertia);
					}
					if (d->have_mass && b->mass == d->mass_prev[0] &&
					    b->inertia == d->mass_prev[1] &&
					    b->local_center.x == d->mass_prev[2] &&
					    b->local_center.y == d->mass_prev[3]) {
						return fail(
						    d, F2D_ERROR_INVALID_VALUE,
						    "body %d: repeated mass not marked as such "
						    "(not canonical)",
						    (int)i);
					}
				}
			}
			/* the origin: stored only when it is not the derived one (q and the
			 * local centre are in range here) */
			f2d_vec2 derived =
			    f2d_snapshot_derived_origin(b->center, b->q, b->local_center);
			if (flags & BF_ORIGIN) {
				b->origin = f2d_v(u2i((uint32_t)b->center.x + (uint32_t)od.x),
				                  u2i((uint32_t)b->center.y + (uint32_t)od.y));
				if (!d->apply && b->origin.x == derived.x &&
				    b->origin.y == derived.y) {
					return fail(d, F2D_ERROR_INVALID_VALUE,
					            "body %d: stored origin equals the derived one "
					            "(not canonical)",
					            (int)i);
				}
			} else {
				b->origin = derived;
			}
			if (!d->apply && !vec_within(b->origin, plim)) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "body %d: position beyond F2D_WORLD_LIMIT", (int)i);
			}
			if (dynamic) {
				if (mass_rec) {
					d->have_mass = true;
					d->mass_prev[0] = b->mass;
					d->mass_prev[1] = b->inertia;
					d->mass_prev[2] = b->local_center.x;
					d->mass_prev[3] = b->local_center.y;
					if (d->apply) { /* as body.c computes them */
						d->inv_mass =
						    f2d_div_exact((int64_t)1 << 16, b->mass);
						d->inv_inertia =
						    b->inertia == 0
						        ? 0
						        : f2d_div_exact((int64_t)1 << 16,
						                        b->inertia);
					}
				}
				b->inv_mass = d->inv_mass;
				b->inv_inertia = d->inv_inertia;
				if (d->check_mass && !d->apply) {
					uint32_t *m = scratch(d, d->mass_off) + 4 * (size_t)i;
					m[0] = (uint32_t)b->mass;
					m[1] = (uint32_t)b->inertia;
					m[2] = (uint32_t)b->local_center.x;
					m[3] = (uint32_t)b->local_center.y;
				}
			}
			d->alive[0]++;
		}
		if (!d->apply) {
			scratch(d, d->body_off)[i] = alive ? 1 + type : 0;
		}
	}
	if (!d->apply) {
		return decode_free_list(d, 0, d->body_off, NULL, "body");
	}
	w->body_count = d->alive[0];
	return decode_free_list(d, 0, 0, &w->body_ids, "body");
}

/* Portable form: the stored mass, inertia and local centre of every dynamic body must be what
 * body.c computes from its shapes (in id order), or 1 kg that does not rotate when it has no
 * shapes or when they are out of the mass range (what destroying a shape leaves). A body holds
 * at most 64 shapes (create_shape). Reads the marks and mass data of the validating pass. */
static bool check_masses(decoder *d)
{
	int32_t nb = d->next[0], ns = d->next[1];
	const uint32_t *shape_marks = scratch(d, d->shape_off);
	const uint32_t *body_marks = scratch(d, d->body_off);
	uint32_t *head = scratch(d, d->head_off); /* 1 + first shape, 0: none */
	uint32_t *link = scratch(d, d->link_off); /* 1 + next shape of the body, 0: none */
	for (int32_t i = ns - 1; i >= 0; --i) {   /* lists in id order */
		uint32_t mark = shape_marks[i];
		if (shape_live(mark) && body_marks[mark - 1] == 1 + F2D_DYNAMIC_BODY) {
			link[i] = head[mark - 1];
			head[mark - 1] = (uint32_t)i + 1;
		}
	}
	const uint32_t *stored = scratch(d, d->mass_off);
	const uint32_t *mds = scratch(d, d->md_off);
	for (int32_t b = 0; b < nb; ++b) {
		if (body_marks[b] != 1 + F2D_DYNAMIC_BODY) {
			continue;
		}
		f2d_mass_data md[64];
		int32_t n = 0;
		for (uint32_t s = head[b]; s != 0; s = link[s - 1]) {
			if (n == 64) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "body %d: more than 64 shapes on a dynamic body",
				            (int)b);
			}
			memcpy(&md[n++], mds + MD_WORDS * (size_t)(s - 1), sizeof md[0]);
		}
		f2d_mass_data total;
		if (n == 0 || f2d_body_mass_from_shapes(md, n, &total) != 0) {
			total.mass = F2D_ONE;
			total.inertia = 0;
			total.center = f2d_v(0, 0);
		}
		const uint32_t *m = stored + 4 * (size_t)b;
		if (u2i(m[0]) != total.mass || u2i(m[1]) != total.inertia ||
		    u2i(m[2]) != total.center.x || u2i(m[3]) != total.center.y) {
			return fail(d, F2D_ERROR_MASS_RANGE,
			            "body %d: stored mass %d, inertia %d or centre differ from its "
			            "shapes' (%lld, %lld)",
			            (int)b, (int)u2i(m[0]), (int)u2i(m[1]), (long long)total.mass,
			            (long long)total.inertia);
		}
	}
	return true;
}

static bool decode_shapes(decoder *d)
{
	f2d_world *w = d->w;
	if (!decode_next(d, 1, "shapes")) {
		return false;
	}
	int32_t n = d->next[1];
	if (!d->apply) {
		if (!scratch_reserve(d, (size_t)n, &d->shape_off) ||
		    (d->check_mass && (!scratch_reserve(d, MD_WORDS * (size_t)n, &d->md_off) ||
		                       !scratch_reserve(d, (size_t)n, &d->link_off) ||
		                       !scratch_reserve(d, (size_t)d->next[0], &d->head_off)))) {
			return false;
		}
	} else {
		clear_slots(w->shapes, sizeof(f2d_shape), n, w->shape_ids.next);
		w->shape_ids.next = n;
	}
	d->have_shape = false;
	int32_t prev_body = -1; /* previous live shape's body */
	for (int32_t i = 0; i < n; ++i) {
		uint32_t gen = 0;
		if (!rd_var(d, &gen, "a shape")) {
			return false;
		}
		if (!avail(d, 1)) {
			return truncated(d, "a shape");
		}
		uint32_t flags = rd_u8(d);
		bool alive = (flags & SF_ALIVE) != 0;
		bool polygon = (flags & SF_POLYGON) != 0;
		bool same_geometry = (flags & SF_SAME_GEOMETRY) != 0;
		bool same_material = (flags & SF_SAME_MATERIAL) != 0;
		bool typed = (flags & SF_TYPE) != 0;
		f2d_shape_type shape_type = polygon ? F2D_POLYGON_SHAPE : F2D_CIRCLE_SHAPE;
		if (typed) {
			if (!avail(d, 1)) {
				return truncated(d, "a shape");
			}
			uint32_t t = rd_u8(d);
			if (polygon || t < F2D_CAPSULE_SHAPE || t > F2D_CHAIN_SEGMENT_SHAPE) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "shape %d: bad type %u",
				            (int)i, (unsigned)t);
			}
			shape_type = (f2d_shape_type)t;
		}
		if (!d->apply) {
			if (gen == 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "shape %d: generation 0",
				            (int)i);
			}
			if ((!alive && flags != 0) || (flags & ~63u) != 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "shape %d: bad flags %u",
				            (int)i, (unsigned)flags);
			}
			if ((same_geometry || same_material) && !d->have_shape) {
				return fail(
				    d, F2D_ERROR_INVALID_VALUE,
				    "shape %d: same as a previous shape that does not exist",
				    (int)i);
			}
			if (same_geometry && d->geometry.type != shape_type) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "shape %d: same geometry as a shape of another type",
				            (int)i);
			}
		}
		f2d_shape *s = d->apply ? &w->shapes[i] : NULL;
		if (!alive) {
			if (s != NULL) {
				/* the digest stays when the slot was this dead slot already */
				bool same = !s->alive && s->generation == gen;
				uint64_t digest = s->digest;
				memset(s, 0, sizeof *s);
				s->generation = gen;
				s->next = F2D_NULL_INDEX;
				if (same) {
					s->digest = digest;
				} else {
					f2d_shape_refresh_digest(s);
				}
			} else {
				scratch(d, d->shape_off)[i] = 0;
			}
			continue;
		}
		int32_t body_id = 0;
		if (!rd_delta(d, &body_id, prev_body + 1, "a shape")) {
			return false;
		}
		prev_body = body_id;
		uint32_t body = (uint32_t)body_id;
		if (!avail(d, same_material ? 0 : 12)) {
			return truncated(d, "a shape");
		}
		f2d_shape *g = &d->geometry; /* previous shape's geometry and material */
		bool material_new = !same_material;
		fix16_t density = g->density, friction = g->friction, restitution = g->restitution;
		if (material_new) {
			density = rd_i32(d);
			friction = rd_i32(d);
			restitution = rd_i32(d);
		}
		if (!same_geometry) {
			f2d_shape fresh;
			memset(&fresh, 0, sizeof fresh);
			if (typed) {
				/* capsule: c1, c2, radius; segment: p1, p2; chain segment: p1, p2,
				 * g1, g2 */
				size_t need = shape_type == F2D_CAPSULE_SHAPE
				                  ? 20
				                  : (shape_type == F2D_SEGMENT_SHAPE ? 16 : 32);
				if (!avail(d, need)) {
					return truncated(d, "a capsule or segment");
				}
				fresh.type = shape_type;
				fresh.capsule.center1 = rd_vec(d);
				fresh.capsule.center2 = rd_vec(d);
				if (shape_type == F2D_CAPSULE_SHAPE) {
					fresh.capsule.radius = rd_i32(d);
				} else if (shape_type == F2D_CHAIN_SEGMENT_SHAPE) {
					fresh.ghost1 = rd_vec(d);
					fresh.ghost2 = rd_vec(d);
				}
				bool ok = shape_type == F2D_CAPSULE_SHAPE
				              ? f2d_capsule_ok(&fresh.capsule)
				              : (shape_type == F2D_SEGMENT_SHAPE
				                     ? f2d_segment_ok(fresh.capsule.center1,
				                                      fresh.capsule.center2)
				                     : f2d_chain_segment_ok(
				                           fresh.ghost1, fresh.capsule.center1,
				                           fresh.capsule.center2, fresh.ghost2));
				if (!d->apply && !ok) {
					return fail(d, F2D_ERROR_INVALID_VALUE,
					            "shape %d: capsule or segment out of range "
					            "(radius, length, extent or ghosts)",
					            (int)i);
				}
			} else if (polygon) {
				if (!avail(d, 1)) {
					return truncated(d, "a polygon");
				}
				uint32_t count = rd_u8(d);
				if (count < 3 || count > F2D_MAX_POLYGON_VERTICES) {
					return fail(d, F2D_ERROR_BAD_POLYGON,
					            "shape %d: polygon with %u vertices", (int)i,
					            (unsigned)count);
				}
				if (!avail(d, (size_t)count * 8)) {
					return truncated(d, "a polygon");
				}
				f2d_vec2 pts[F2D_MAX_POLYGON_VERTICES];
				for (uint32_t k = 0; k < count; ++k) {
					pts[k] = rd_vec(d);
				}
				fresh.type = F2D_POLYGON_SHAPE;
				if (f2d_make_polygon(pts, (int32_t)count, &fresh.polygon) !=
				    F2D_OK) {
					return fail(d, F2D_ERROR_BAD_POLYGON,
					            "shape %d: polygon is not convex, CCW and "
					            "non-degenerate within 512 m",
					            (int)i);
				}
			} else {
				if (!avail(d, 12)) {
					return truncated(d, "a circle");
				}
				fresh.type = F2D_CIRCLE_SHAPE;
				fresh.circle.center = rd_vec(d);
				fresh.circle.radius = rd_i32(d);
				if (!d->apply && !circle_ok(&fresh.circle)) {
					return fail(
					    d, F2D_ERROR_INVALID_VALUE,
					    "shape %d: circle radius or centre out of range",
					    (int)i);
				}
			}
			if (!d->apply) {
				if (d->have_shape && geometry_equal(&fresh, g)) {
					return fail(
					    d, F2D_ERROR_INVALID_VALUE,
					    "shape %d: repeated geometry not marked as such "
					    "(not canonical)",
					    (int)i);
				}
				f2d_mass_data md;
				fresh.density = F2D_ONE;
				d->geometry_dynamic_ok = f2d_shape_mass(&fresh, &md);
			}
			g->type = fresh.type;
			g->polygon = fresh.polygon;
			g->circle = fresh.circle;
			g->capsule = fresh.capsule;
			g->ghost1 = fresh.ghost1;
			g->ghost2 = fresh.ghost2;
		}
		uint64_t user = 0;
		if (flags & SF_USER) {
			if (!avail(d, 8)) {
				return truncated(d, "a shape");
			}
			user = rd_u64(d);
		}
		if (!d->apply) {
			if (material_new) {
				if (density <= 0 || friction < 0 || friction > F2D_FIX(4) ||
				    restitution < 0 || restitution > F2D_ONE) {
					return fail(
					    d, F2D_ERROR_INVALID_VALUE,
					    "shape %d: density, friction or restitution out of "
					    "range",
					    (int)i);
				}
				if (d->have_shape && density == g->density &&
				    friction == g->friction && restitution == g->restitution) {
					return fail(
					    d, F2D_ERROR_INVALID_VALUE,
					    "shape %d: repeated material not marked as such "
					    "(not canonical)",
					    (int)i);
				}
			}
			if ((flags & SF_USER) && user == 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "shape %d: zero user data flagged", (int)i);
			}
			uint32_t bt =
			    body < (uint32_t)d->next[0] ? scratch(d, d->body_off)[body] : 0;
			if (bt < 1 || bt > 3) {
				return fail(d, F2D_ERROR_INVALID_HANDLE,
				            "shape %d: body %u is not alive", (int)i,
				            (unsigned)body);
			}
			if (bt == 1 + F2D_DYNAMIC_BODY && !d->geometry_dynamic_ok) {
				return fail(d, F2D_ERROR_MASS_RANGE,
				            "shape %d: too large for a dynamic body (32 m)",
				            (int)i);
			}
			scratch(d, d->shape_off)[i] = 1 + body;
			if (d->check_mass && bt == 1 + F2D_DYNAMIC_BODY) {
				f2d_shape probe;
				memset(&probe, 0, sizeof probe);
				probe.type = g->type;
				probe.polygon = g->polygon;
				probe.circle = g->circle;
				probe.capsule = g->capsule;
				probe.density = density;
				f2d_mass_data md;
				if (!f2d_shape_mass(&probe, &md)) {
					return fail(d, F2D_ERROR_MASS_RANGE,
					            "shape %d: too large for a dynamic body",
					            (int)i);
				}
				memcpy(scratch(d, d->md_off) + MD_WORDS * (size_t)i, &md,
				       sizeof md);
			}
		}
		g->density = density;
		g->friction = friction;
		g->restitution = restitution;
		d->have_shape = true;
		d->alive[1]++;
		if (s != NULL) {
			/* every state field of f2d_shape is written (the world-space cache and box
			 * are recomputed by the step); the polygon is copied only when it differs
			 */
			bool keep = s->alive && s->type == g->type && geometry_equal(s, g);
			/* the cached hash digest stays valid when the whole record is unchanged
			 * (a rollback's usual case); else it is recomputed below */
			bool same = keep && s->generation == gen && s->body == (int32_t)body &&
			            s->density == density && s->friction == friction &&
			            s->restitution == restitution;
			s->generation = gen;
			s->alive = true;
			s->type = g->type;
			s->body = (int32_t)body;
			s->next = F2D_NULL_INDEX;
			if (!keep) {
				memset(&s->polygon, 0, sizeof s->polygon);
				memset(&s->circle, 0, sizeof s->circle);
				memset(&s->capsule, 0, sizeof s->capsule);
				s->ghost1 = s->ghost2 = f2d_v(0, 0);
				if (g->type == F2D_POLYGON_SHAPE) {
					s->polygon = g->polygon;
				} else if (g->type == F2D_CIRCLE_SHAPE) {
					s->circle = g->circle;
				} else {
					s->capsule = g->capsule;
					if (g->type == F2D_CHAIN_SEGMENT_SHAPE) {
						s->ghost1 = g->ghost1;
						s->ghost2 = g->ghost2;
					}
				}
			}
			s->density = density;
			s->friction = friction;
			s->restitution = restitution;
			s->user_data = user;
			/* options at their defaults; the options section sets the others */
			s->filter = f2d_default_filter();
			s->is_sensor = false;
			s->enable_contact_events = true;
			s->enable_hit_events = false;
			s->enable_sensor_events = true;
			if (!same) {
				f2d_shape_refresh_digest(s);
			}
		}
	}
	if (!d->apply) {
		return decode_free_list(d, 1, d->shape_off, NULL, "shape") &&
		       (!d->check_mass || check_masses(d));
	}
	/* shape lists in id order: push from the highest id down */
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		w->bodies[i].shape_list = F2D_NULL_INDEX;
	}
	for (int32_t i = n - 1; i >= 0; --i) {
		f2d_shape *s = &w->shapes[i];
		if (s->alive) {
			s->next = w->bodies[s->body].shape_list;
			w->bodies[s->body].shape_list = i;
		}
	}
	w->shape_count = d->alive[1];
	return decode_free_list(d, 1, 0, &w->shape_ids, "shape");
}

static bool decode_joints(decoder *d)
{
	f2d_world *w = d->w;
	if (!decode_next(d, 2, "joints")) {
		return false;
	}
	int32_t n = d->next[2];
	if (!d->apply) {
		if (!scratch_reserve(d, (size_t)n, &d->joint_off)) {
			return false;
		}
	} else {
		if (n > 0 || w->joint_ids.next > 0) {
			clear_slots(w->joints, sizeof(f2d_joint), n, w->joint_ids.next);
		}
		w->joint_ids.next = n;
		for (int32_t i = 0; i < w->body_ids.next; ++i) {
			w->bodies[i].joint_count = 0;
			w->bodies[i].joint_list = F2D_NULL_INDEX;
		}
	}
	const size_t len = 8 + 16 + 20 + 8 + 12;
	for (int32_t i = 0; i < n; ++i) {
		if (!avail(d, 5)) {
			return truncated(d, "a joint");
		}
		uint32_t gen = rd_u32(d);
		uint32_t flags = rd_u8(d);
		bool alive = (flags & JF_ALIVE) != 0;
		if (!d->apply && (gen == 0 || (!alive && flags != 0) || (flags & ~63u) != 0)) {
			return fail(d, F2D_ERROR_INVALID_VALUE, "joint %d: bad generation or flags",
			            (int)i);
		}
		f2d_joint j;
		memset(&j, 0, sizeof j);
		j.generation = gen;
		if (alive) {
			size_t need =
			    len + ((flags & JF_USER) ? 8 : 0) + ((flags & JF_TYPE) ? JOINT_EXT : 0);
			if (!avail(d, need)) {
				return truncated(d, "a joint");
			}
			j.alive = true;
			j.enable_limit = (flags & JF_LIMIT) != 0;
			j.enable_motor = (flags & JF_MOTOR) != 0;
			j.collide_connected = (flags & JF_COLLIDE) != 0;
			uint32_t ba = rd_u32(d), bb = rd_u32(d);
			j.local_a = rd_vec(d);
			j.local_b = rd_vec(d);
			j.reference_angle = rd_i32(d);
			j.lower = rd_i32(d);
			j.upper = rd_i32(d);
			j.motor_speed = rd_i32(d);
			j.max_motor_torque = rd_i32(d);
			j.impulse = rd_vec(d);
			j.motor_impulse = rd_i32(d);
			j.lower_impulse = rd_i32(d);
			j.upper_impulse = rd_i32(d);
			uint32_t spring = 0;
			if (flags & JF_TYPE) {
				j.type = (uint8_t)rd_u8(d);
				j.axis = rd_vec(d);
				j.length = rd_i32(d);
				spring = rd_u8(d);
				j.enable_spring = spring == 1u;
				j.hertz = rd_i32(d);
				j.damping_ratio = rd_i32(d);
				j.angular_hertz = rd_i32(d);
				j.angular_damping_ratio = rd_i32(d);
				j.max_force = rd_i32(d);
				j.correction_factor = rd_i32(d);
				j.spring_impulse = rd_i32(d);
				j.angular_impulse = rd_i32(d);
			}
			if (flags & JF_USER) {
				j.user_data = rd_u64(d);
			}
			if (!d->apply) {
				const uint32_t *types = scratch(d, d->body_off);
				uint32_t ta = ba < (uint32_t)d->next[0] ? types[ba] : 0;
				uint32_t tb = bb < (uint32_t)d->next[0] ? types[bb] : 0;
				if (ta < 1 || ta > 3 || tb < 1 || tb > 3 || ba == bb) {
					return fail(
					    d, F2D_ERROR_INVALID_HANDLE,
					    "joint %d: bodies %u, %u are not two live bodies",
					    (int)i, (unsigned)ba, (unsigned)bb);
				}
				if (ta != 1 + F2D_DYNAMIC_BODY && tb != 1 + F2D_DYNAMIC_BODY) {
					return fail(d, F2D_ERROR_INVALID_VALUE,
					            "joint %d: neither body is dynamic", (int)i);
				}
				if ((flags & JF_TYPE) != 0) {
					/* the other types: canonical (type 1..6, spring flag 0 or
					 * 1) and the creation check */
					const char *bad =
					    j.type == 0 || spring > 1u
					        ? "bad type or flag"
					        : f2d_joint_ext_check(&j, (f2d_body_type)(ta - 1),
					                              (f2d_body_type)(tb - 1));
					if (bad == NULL && (!anchor_ok(j.local_a, ta) ||
					                    !anchor_ok(j.local_b, tb))) {
						bad = "anchor out of range";
					}
					if (bad == NULL &&
					    ((flags & JF_USER) && j.user_data == 0)) {
						bad = "user data flag without user data";
					}
					if (bad != NULL) {
						return fail(d, F2D_ERROR_INVALID_VALUE,
						            "joint %d: %s", (int)i, bad);
					}
				} else if (!anchor_ok(j.local_a, ta) || !anchor_ok(j.local_b, tb) ||
				           !within(j.reference_angle, F2D_PI) ||
				           !within(j.lower, F2D_PI) || !within(j.upper, F2D_PI) ||
				           (j.enable_limit && j.lower > j.upper) ||
				           j.max_motor_torque < 0 ||
				           !within(j.motor_speed, F2D_FIX(1000)) ||
				           !no_min(j.impulse.x) || !no_min(j.impulse.y) ||
				           !no_min(j.motor_impulse) || j.lower_impulse < 0 ||
				           j.upper_impulse < 0 ||
				           ((flags & JF_USER) && j.user_data == 0)) {
					return fail(
					    d, F2D_ERROR_INVALID_VALUE,
					    "joint %d: anchor, angle, motor or impulse out of "
					    "range",
					    (int)i);
				}
				scratch(d, d->joint_off)[i] = 1;
			}
			j.body_a = (int32_t)ba;
			j.body_b = (int32_t)bb;
			d->alive[2]++;
		}
		if (d->apply) {
			w->joints[i] = j;
			if (alive) {
				w->bodies[j.body_a].joint_count++;
				w->bodies[j.body_b].joint_count++;
				f2d_joint_link(w, i);
			}
		}
	}
	if (!d->apply) {
		return decode_free_list(d, 2, d->joint_off, NULL, "joint");
	}
	w->joint_count = d->alive[2];
	return decode_free_list(d, 2, 0, &w->joint_ids, "joint");
}

/* Arbiters are validated straight into the world's second arbiter buffer (arbiters_next, per
 * step scratch: f2d_update_contacts fills it and swaps it in, as the applying pass does here),
 * so the section is read once; the applying pass only swaps the buffers. */
static bool decode_arbiters(decoder *d)
{
	f2d_world *w = d->w;
	if (d->apply) {
		d->p = d->arbiters_end;
		f2d_arbiter *t = w->arbiters;
		int32_t tc = w->arbiter_capacity;
		w->arbiters = w->arbiters_next;
		w->arbiter_capacity = w->arbiters_next_capacity;
		w->arbiter_count = d->arbiter_count;
		w->arbiters_next = t;
		w->arbiters_next_capacity = tc;
		return true;
	}
	if (!avail(d, 4)) {
		return truncated(d, "the arbiters");
	}
	uint32_t n = rd_u32(d);
	/* at least 5 bytes each (head, gap, one point's id, pn, pt) */
	if ((size_t)n > (size_t)(d->end - d->p) / 5) {
		return fail(d, F2D_ERROR_INVALID_VALUE,
		            "truncated: %u arbiters cannot fit in %zu bytes", (unsigned)n,
		            (size_t)(d->end - d->p));
	}
	if (!f2d_grow(w, (void **)&w->arbiters_next, &w->arbiters_next_capacity, (int32_t)n,
	              sizeof(f2d_arbiter))) {
		return fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	d->arbiter_count = (int32_t)n;
	const uint32_t *marks = scratch(d, d->shape_off); /* 1 + body of a live shape */
	const uint32_t shapes = (uint32_t)d->next[1];
	uint32_t prev_a = 0, prev_b = 0;
	fix16_t prev_f = 0, prev_r = 0;
	for (uint32_t i = 0; i < n; ++i) {
		uint32_t head = 0, gap = 0;
		if (!rd_var(d, &head, "an arbiter") || !rd_var(d, &gap, "an arbiter")) {
			return false;
		}
		bool same = (head & 1u) != 0;
		uint32_t count = 1 + ((head >> 1) & 1u);
		uint32_t da = head >> 2;
		/* the key order (a, then b, strictly increasing) holds by construction; the
		 * bounds keep the sums exact */
		if (da >= shapes - prev_a || (i == 0 && same)) {
			return fail(d, F2D_ERROR_INVALID_HANDLE,
			            "arbiter %u: shapes are not two live shapes in order",
			            (unsigned)i);
		}
		uint32_t sa = prev_a + da;
		uint32_t base = i > 0 && da == 0 ? prev_b : sa;
		if (gap >= shapes - base - 1 || !shape_live(marks[sa]) ||
		    !shape_live(marks[base + 1 + gap])) {
			return fail(d, F2D_ERROR_INVALID_HANDLE,
			            "arbiter %u: shapes are not two live shapes in order",
			            (unsigned)i);
		}
		uint32_t sb = base + 1 + gap;
		fix16_t friction = prev_f, restitution = prev_r;
		if (!same) {
			uint32_t f = 0, r = 0;
			if (!rd_var(d, &f, "an arbiter") || !rd_var(d, &r, "an arbiter")) {
				return false;
			}
			if (f > (uint32_t)F2D_FIX(4) || r > (uint32_t)F2D_ONE) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "arbiter %u: friction or restitution out of range",
				            (unsigned)i);
			}
			friction = (fix16_t)f;
			restitution = (fix16_t)r;
			if (i > 0 && friction == prev_f && restitution == prev_r) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "arbiter %u: material written again (not canonical)",
				            (unsigned)i);
			}
		}
		/* the state of an arbiter; the rest (normal, points, solver data) is recomputed by
		 * the step before it is read */
		f2d_arbiter *a = &w->arbiters_next[i];
		a->shape_a = (int32_t)sa;
		a->shape_b = (int32_t)sb;
		a->body_a = (int32_t)(marks[sa] - 1);
		a->body_b = (int32_t)(marks[sb] - 1);
		a->friction = friction;
		a->restitution = restitution;
		a->count = (int32_t)count;
		a->normal =
		    f2d_v(0, 0); /* unknown until a step rebuilds it (f2d_world_get_contacts) */
		/* the solver clamps |pt| to round16(friction pn) before it updates pn, so
		 * |pt| <= friction pn does not hold; pn <= INT32_MAX bounds it */
		int64_t max_pt = f2d_round16((int64_t)friction * INT32_MAX);
		max_pt = max_pt > INT32_MAX ? INT32_MAX : max_pt;
		for (uint32_t k = 0; k < count; ++k) { /* points past count are never read */
			f2d_contact_point *cp = &a->points[k];
			uint32_t id = 0, pn = 0, zt = 0;
			if (!rd_var(d, &id, "an arbiter") || !rd_var(d, &pn, "an arbiter") ||
			    !rd_var(d, &zt, "an arbiter")) {
				return false;
			}
			/* the inverse of snapshot.c's id_perm */
			id = (id & 1u) | (((id >> 1) & 0x0FFFFFFFu) << 4) | ((id >> 29) << 1);
			cp->id = k == 0 ? id : id ^ a->points[0].id;
			/* zigzag back: even -> v / 2, odd -> -(v + 1) / 2 */
			cp->pt = (zt & 1u) ? -(int32_t)(zt >> 1) - 1 : (int32_t)(zt >> 1);
			if (pn > (uint32_t)INT32_MAX || cp->pt < -max_pt || cp->pt > max_pt) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "arbiter %u: impulse out of range", (unsigned)i);
			}
			cp->pn = (int32_t)pn;
		}
		prev_a = sa;
		prev_b = sb;
		prev_f = friction;
		prev_r = restitution;
	}
	d->arbiters_end = d->p;
	return true;
}

/* ---- options and event state (format version 3) ----
 * Validating pass: every record names a live object in increasing id order and differs from
 * the defaults (canonical), values within the ranges the API accepts; a sensor overlap names a
 * live sensor shape and a live non-sensor shape; a pending end names shape ids ever handed out
 * with non-zero generations (the shapes may be dead or reused). The sensor marks are kept in
 * the shape marks (SENSOR_MARK) while the overlaps are checked. */
#define SENSOR_MARK 0x20000000u

static bool decode_body_options(decoder *d)
{
	f2d_world *w = d->w;
	uint32_t n = rd_u32(d);
	if (!d->apply && (size_t)n > (size_t)(d->end - d->p) / 17) {
		return truncated(d, "the body options");
	}
	int64_t prev = -1;
	for (uint32_t i = 0; i < n; ++i) {
		if (!avail(d, 17)) {
			return truncated(d, "the body options");
		}
		uint32_t id = rd_u32(d);
		fix16_t g = rd_i32(d), lin = rd_i32(d), ang = rd_i32(d);
		uint32_t fixed = rd_u8(d);
		if (d->apply) {
			f2d_body *b = &w->bodies[id];
			b->gravity_scale = g;
			b->linear_damping = lin;
			b->angular_damping = ang;
			b->fixed_rotation = fixed != 0;
			if (b->fixed_rotation) {
				b->inv_inertia = 0;
			}
			continue;
		}
		uint32_t type = id < (uint32_t)d->next[0] ? scratch(d, d->body_off)[id] : 0;
		if ((int64_t)id <= prev || type < 1 || type > 3) {
			return fail(d, F2D_ERROR_INVALID_HANDLE,
			            "body options %u: body %u is not alive or not in order",
			            (unsigned)i, (unsigned)id);
		}
		prev = id;
		if (g < F2D_FIX(-16) || g > F2D_FIX(16) || lin < 0 || lin > F2D_FIX(1000) ||
		    ang < 0 || ang > F2D_FIX(1000) || fixed > 1 ||
		    (fixed != 0 && type != 1 + F2D_DYNAMIC_BODY) ||
		    (g == F2D_ONE && lin == 0 && ang == 0 && fixed == 0)) {
			return fail(d, F2D_ERROR_INVALID_VALUE,
			            "body options %u: value out of range, fixed rotation on a body "
			            "that is not dynamic, or all defaults (not canonical)",
			            (unsigned)i);
		}
	}
	return true;
}

static bool decode_shape_options(decoder *d)
{
	f2d_world *w = d->w;
	uint32_t n = rd_u32(d);
	if (!d->apply && (size_t)n > (size_t)(d->end - d->p) / 25) {
		return truncated(d, "the shape options");
	}
	int64_t prev = -1;
	for (uint32_t i = 0; i < n; ++i) {
		if (!avail(d, 25)) {
			return truncated(d, "the shape options");
		}
		uint32_t id = rd_u32(d);
		f2d_filter f;
		f.category_bits = rd_u64(d);
		f.mask_bits = rd_u64(d);
		f.group_index = rd_i32(d);
		uint32_t flags = rd_u8(d);
		if (d->apply) {
			f2d_shape *sh = &w->shapes[id];
			sh->filter = f;
			sh->is_sensor = (flags & F2D_SHAPE_SENSOR) != 0;
			sh->enable_contact_events = (flags & F2D_SHAPE_CONTACT_EVENTS) != 0;
			sh->enable_hit_events = (flags & F2D_SHAPE_HIT_EVENTS) != 0;
			sh->enable_sensor_events = (flags & F2D_SHAPE_SENSOR_EVENTS) != 0;
			continue;
		}
		uint32_t *marks = scratch(d, d->shape_off);
		if ((int64_t)id <= prev || id >= (uint32_t)d->next[1] || !shape_live(marks[id])) {
			return fail(d, F2D_ERROR_INVALID_HANDLE,
			            "shape options %u: shape %u is not alive or not in order",
			            (unsigned)i, (unsigned)id);
		}
		prev = id;
		if (flags > 15u || (f.category_bits == 1u && f.mask_bits == UINT64_MAX &&
		                    f.group_index == 0 && flags == F2D_SHAPE_DEFAULT_FLAGS)) {
			return fail(d, F2D_ERROR_INVALID_VALUE,
			            "shape options %u: bad flags, or all defaults (not canonical)",
			            (unsigned)i);
		}
		if (flags & F2D_SHAPE_SENSOR) {
			marks[id] |= SENSOR_MARK;
		}
	}
	return true;
}

static bool decode_overlaps(decoder *d)
{
	f2d_world *w = d->w;
	f2d_events *e = &w->events;
	uint32_t n = rd_u32(d);
	if ((size_t)n > (size_t)(d->end - d->p) / 8) {
		return truncated(d, "the sensor overlaps");
	}
	if (d->apply) {
		for (uint32_t i = 0; i < n; ++i) {
			e->overlaps[i] = rd_u64(d);
		}
		e->overlap_count = (int32_t)n;
		return true;
	}
	if (!f2d_grow(w, (void **)&e->overlaps, &e->overlap_capacity, (int32_t)n,
	              sizeof(uint64_t))) {
		return fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	uint32_t *marks = scratch(d, d->shape_off);
	uint64_t prev = 0;
	for (uint32_t i = 0; i < n; ++i) {
		uint64_t key = rd_u64(d);
		uint32_t sensor = (uint32_t)(key >> 32), visitor = (uint32_t)key;
		if ((i > 0 && key <= prev) || sensor >= (uint32_t)d->next[1] ||
		    visitor >= (uint32_t)d->next[1] || !shape_live(marks[sensor]) ||
		    !shape_live(marks[visitor]) || (marks[sensor] & SENSOR_MARK) == 0 ||
		    (marks[visitor] & SENSOR_MARK) != 0) {
			return fail(
			    d, F2D_ERROR_INVALID_VALUE,
			    "sensor overlap %u: not a live sensor and a live other shape in "
			    "order",
			    (unsigned)i);
		}
		prev = key;
	}
	for (int32_t i = 0; i < d->next[1]; ++i) { /* checked: drop the sensor marks */
		marks[i] &= ~SENSOR_MARK;
	}
	return true;
}

static bool decode_pending(decoder *d)
{
	f2d_world *w = d->w;
	f2d_events *e = &w->events;
	uint32_t n = rd_u32(d);
	if ((size_t)n > (size_t)(d->end - d->p) / 17) {
		return truncated(d, "the pending end events");
	}
	if (!d->apply && !f2d_grow(w, (void **)&e->pending, &e->pending_capacity, (int32_t)n,
	                           sizeof(f2d_pending_end))) {
		return fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	for (uint32_t i = 0; i < n; ++i) {
		f2d_pending_end p;
		p.sensor = (uint8_t)rd_u8(d);
		p.a = rd_i32(d);
		p.gen_a = rd_u32(d);
		p.b = rd_i32(d);
		p.gen_b = rd_u32(d);
		if (d->apply) {
			e->pending[i] = p;
			continue;
		}
		if (p.sensor > 1 || p.a < 0 || p.b < 0 || p.a >= d->next[1] || p.b >= d->next[1] ||
		    p.a == p.b || (p.sensor == 0 && p.a > p.b) || p.gen_a == 0 || p.gen_b == 0) {
			return fail(d, F2D_ERROR_INVALID_VALUE, "pending end event %u is malformed",
			            (unsigned)i);
		}
	}
	if (d->apply) {
		e->pending_count = (int32_t)n;
	}
	return true;
}

static bool decode_options(decoder *d)
{
	f2d_world *w = d->w;
	if (!avail(d, 20)) {
		return truncated(d, "the options");
	}
	fix16_t threshold = rd_i32(d);
	if (d->apply) {
		w->def.hit_event_threshold = threshold;
	} else if (threshold < 0) {
		return fail(d, F2D_ERROR_INVALID_VALUE, "hit_event_threshold out of range");
	}
	if (!decode_body_options(d) || !avail(d, 12) || !decode_shape_options(d) || !avail(d, 8) ||
	    !decode_overlaps(d) || !avail(d, 4) || !decode_pending(d)) {
		return d->result != F2D_OK ? false : truncated(d, "the options");
	}
	/* substep_count: always in the in-process form; in the portable one, the payload's last
	 * word when it is not 0 (absent: 0) */
	uint32_t substeps = 0;
	if (d->caches || d->p != d->end) {
		if (!avail(d, 4)) {
			return truncated(d, "the options");
		}
		substeps = rd_u32(d);
		if (!d->apply && (substeps > F2D_MAX_SUBSTEPS || (substeps == 0 && !d->caches))) {
			return fail(d, F2D_ERROR_INVALID_VALUE,
			            "substep_count %u: must be in [1, 8] when written",
			            (unsigned)substeps);
		}
	}
	if (d->apply) {
		w->def.substep_count = (int32_t)substeps;
	}
	if (d->apply) {
		w->sensor_count = w->hit_shape_count = 0;
		for (int32_t i = 0; i < w->shape_ids.next; ++i) {
			const f2d_shape *sh = &w->shapes[i];
			w->sensor_count += sh->alive && sh->is_sensor ? 1 : 0;
			w->hit_shape_count += sh->alive && sh->enable_hit_events ? 1 : 0;
		}
		f2d_events_clear_output(w);
	}
	return true;
}

static bool decode_caches(decoder *d)
{
	f2d_world *w = d->w;
	if (!avail(d, 4)) {
		return truncated(d, "the caches");
	}
	uint32_t n = rd_u32(d);
	if (n == NO_SWEEP) {
		if (d->apply) {
			w->sweep_dirty = true;
		} else {
			d->sweep = NO_SWEEP;
		}
		return true;
	}
	if (!d->apply && n != (uint32_t)d->alive[1]) {
		return fail(d, F2D_ERROR_INVALID_VALUE, "sweep order of %u shapes, %d are alive",
		            (unsigned)n, (int)d->alive[1]);
	}
	if (!avail(d, (size_t)n * 4)) {
		return truncated(d, "the sweep order");
	}
	if (d->apply) {
		for (uint32_t i = 0; i < n; ++i) {
			w->sweep[i] = rd_i32(d);
		}
		w->sweep_count = (int32_t)n;
		w->sweep_dirty = false;
		return true;
	}
	uint32_t *alive = scratch(d, d->shape_off);
	for (uint32_t i = 0; i < n; ++i) {
		uint32_t id = rd_u32(d);
		if (id >= (uint32_t)d->next[1] || !shape_live(alive[id])) {
			return fail(d, F2D_ERROR_INVALID_HANDLE,
			            "sweep order entry %u: shape %u is dead or repeated",
			            (unsigned)i, (unsigned)id);
		}
		alive[id] |= SWEEP_MARK;
	}
	for (uint32_t i = 0; i < n; ++i) { /* shapes are checked above: undo the marks */
		uint32_t id = get_u32(d->p - 4 * (size_t)(n - i));
		alive[id] &= ~SWEEP_MARK;
	}
	d->sweep = n;
	return true;
}

static bool decode_payload(decoder *d)
{
	if (!decode_world(d) || !decode_bodies(d) || !decode_shapes(d) || !decode_joints(d) ||
	    !decode_arbiters(d) || !decode_options(d)) {
		return false;
	}
	if (d->caches && !decode_caches(d)) {
		return false;
	}
	if (!d->apply && d->p != d->end) {
		return fail(d, F2D_ERROR_INVALID_VALUE, "%zu bytes after the end of the snapshot",
		            (size_t)(d->end - d->p));
	}
	return true;
}

f2d_result f2d_snapshot_load_payload(f2d_world *w, const uint8_t *payload, size_t len,
                                     const uint32_t *counts, const char *what)
{
	bool caches = counts != NULL; /* the in-process form */
	uint32_t stack_scratch[STACK_SCRATCH];
	decoder d;
	memset(&d, 0, sizeof d);
	if (counts != NULL) {
		/* each slot takes at least 5 bytes: bounded by the length before reserving */
		uint64_t slots = (uint64_t)counts[0] + counts[1] + counts[2];
		if (counts[0] > F2D_MAX_OBJECTS || counts[1] > F2D_MAX_OBJECTS ||
		    counts[2] > F2D_MAX_OBJECTS) {
			return f2d_set_error(w, F2D_ERROR_CAPACITY,
			                     "%s: header counts more than F2D_MAX_OBJECTS ids",
			                     what);
		}
		if (slots > len / 5) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "%s: truncated: %llu ids cannot fit in %zu bytes",
			                     what, (unsigned long long)slots, len);
		}
		if (slots <= STACK_SCRATCH) {
			d.scratch_base = stack_scratch;
		} else {
			size_t words = ((size_t)slots * sizeof(uint32_t) + 7) / 8;
			if (!f2d_grow(w, (void **)&w->pairs, &w->pair_capacity, (int32_t)words,
			              sizeof(uint64_t))) {
				return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
				                     "%s: allocator returned NULL", what);
			}
			d.scratch_base = (uint32_t *)(void *)w->pairs;
		}
		d.counts = counts;
	}
	d.w = w;
	d.p = payload;
	d.end = payload + len;
	d.caches = caches;
	d.check_mass = !caches;
	d.what = what;
	d.sweep = NO_SWEEP;
	d.last_oor = -1;
	if (!decode_payload(&d)) {
		return d.result;
	}
	/* room for everything the applying pass writes */
	if (!f2d_grow(w, (void **)&w->bodies, &w->body_capacity, d.next[0], sizeof(f2d_body)) ||
	    !f2d_grow(w, (void **)&w->shapes, &w->shape_capacity, d.next[1], sizeof(f2d_shape)) ||
	    !f2d_grow(w, (void **)&w->joints, &w->joint_capacity, d.next[2], sizeof(f2d_joint)) ||
	    !f2d_grow(w, (void **)&w->body_ids.free_ids, &w->body_ids.free_capacity, d.next[0],
	              sizeof(int32_t)) ||
	    !f2d_grow(w, (void **)&w->shape_ids.free_ids, &w->shape_ids.free_capacity, d.next[1],
	              sizeof(int32_t)) ||
	    !f2d_grow(w, (void **)&w->joint_ids.free_ids, &w->joint_ids.free_capacity, d.next[2],
	              sizeof(int32_t)) ||
	    (d.sweep != NO_SWEEP && !f2d_grow(w, (void **)&w->sweep, &w->sweep_capacity,
	                                      (int32_t)d.sweep, sizeof(int32_t)))) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY, "%s: allocator returned NULL",
		                     what);
	}
	decoder a;
	memset(&a, 0, sizeof a);
	a.w = w;
	a.p = payload;
	a.end = payload + len;
	a.apply = true;
	a.caches = caches;
	a.what = what;
	memcpy(a.next, d.next, sizeof a.next);
	a.arbiter_count = d.arbiter_count;
	a.arbiters_end = d.arbiters_end;
	decode_payload(&a); /* cannot fail: every check passed above */
	if (!caches) {
		w->sweep_dirty = true;
	}
	w->contacts_stale = true; /* manifolds, AABBs and pairs are not in snapshots */
	w->query_epoch++;
	return F2D_OK;
}
