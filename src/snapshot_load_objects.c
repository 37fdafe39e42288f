/* fix2d snapshots: the decoder of the object sections, a record at a time: bodies, shapes (and
 * the portable form's mass check), joints, arbiters. Both passes run through the same code (see
 * snapshot_load.c); the validating pass checks each record canonical and in range.
 * SPDX-License-Identifier: MIT */
#include "snapshot_decoder.h"
#include "joint_internal.h"

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
		return f2d_decode_fail(d, F2D_ERROR_CAPACITY, "snapshot too large");
	}
	if (!f2d_grow(w, (void **)&w->pairs, &w->pair_capacity, (int32_t)words, sizeof(uint64_t))) {
		return f2d_decode_fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	*offset = d->scratch_used;
	memset((uint8_t *)w->pairs + d->scratch_used, 0, bytes);
	d->scratch_used = total;
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
		return f2d_decode_fail(d, F2D_ERROR_CAPACITY, "%u %s, more than F2D_MAX_OBJECTS",
		                       (unsigned)n, name);
	}
	/* a record takes at least 2 bytes (bodies and shapes: varint generation and flags;
	 * joints: 5) */
	if ((size_t)n > (size_t)(d->end - d->p) / (kind == 2 ? 5 : 2)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "truncated: %u %s cannot fit in %zu bytes", (unsigned)n,
		                       name, (size_t)(d->end - d->p));
	}
	if (d->counts != NULL && n != d->counts[kind]) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "the header counts %u %s, the payload %u",
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
			return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
			                       "%s free list holds %u ids, %u are dead", name,
			                       (unsigned)n, (unsigned)dead);
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
			return f2d_decode_fail(
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

/* ---- bodies ---- */

/* A body record's generation and flags: canonical, and what its type allows. */
static bool body_flags_ok(decoder *d, int32_t i, uint32_t gen, uint32_t flags)
{
	uint32_t type = (flags >> BF_TYPE_SHIFT) & 3u;
	bool alive = (flags & BF_ALIVE) != 0;
	bool dynamic = type == F2D_DYNAMIC_BODY;
	if (gen == 0) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "body %d: generation 0", (int)i);
	}
	if ((!alive && flags != 0) || (flags & ~BF_ALL) != 0) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "body %d: bad flags %u", (int)i,
		                       (unsigned)flags);
	}
	if (alive && type > F2D_DYNAMIC_BODY) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "body %d: bad type or flags %u",
		                       (int)i, (unsigned)flags);
	}
	if (alive && ((type == F2D_STATIC_BODY && (flags & BF_MOVING)) ||
	              (!dynamic && (flags & (BF_FORCE | BF_SAME_MASS))))) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: a %s body with velocity, force or mass", (int)i,
		                       type == F2D_STATIC_BODY ? "static" : "kinematic");
	}
	if (alive && (flags & BF_SAME_MASS) && !d->have_mass) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: same mass as a previous body that does not exist",
		                       (int)i);
	}
	return true;
}

/* Every field of f2d_body is written: no memset per record (speed); the size check in
 * tests/test_snapshot.c catches a new field. A live body's pose is read afterwards. */
static void body_init(f2d_body *b, uint32_t gen, bool alive, uint32_t type)
{
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
	}
}

/* Centre and rotation (deltas from the previous live body's; version 9: q.c against the unit
 * circle through q.s, snapshot.c put_body), the stored origin's offset from the centre (od),
 * velocity and force. */
static bool read_body_motion(decoder *d, f2d_body *b, uint32_t flags, f2d_vec2 *od)
{
	const char *rec = "a body";
	if (!rd_delta(d, &b->center.x, d->center_prev.x, rec) ||
	    !rd_delta(d, &b->center.y, d->center_prev.y, rec) ||
	    !rd_delta(d, &b->q.s, d->q_prev.s, rec) ||
	    !rd_delta(d, &b->q.c, f2d_snapshot_unit_other(b->q.s, d->q_prev.c), rec) ||
	    ((flags & BF_ORIGIN) &&
	     (!rd_delta(d, &od->x, 0, rec) || !rd_delta(d, &od->y, 0, rec))) ||
	    ((flags & BF_MOVING) &&
	     (!rd_zz(d, &b->v.x, rec) || !rd_zz(d, &b->v.y, rec) || !rd_zz(d, &b->w, rec))) ||
	    ((flags & BF_FORCE) && (!rd_zz(d, &b->force.x, rec) || !rd_zz(d, &b->force.y, rec) ||
	                            !rd_zz(d, &b->torque, rec)))) {
		return false;
	}
	d->center_prev = b->center;
	d->q_prev = b->q;
	return true;
}

/* A dynamic body's mass, inertia and local centre: its own record or the previous one's. */
static bool read_body_mass(decoder *d, f2d_body *b, bool mass_rec)
{
	const char *rec = "a body";
	if (mass_rec) {
		return rd_zz(d, &b->mass, rec) && rd_zz(d, &b->inertia, rec) &&
		       rd_zz(d, &b->local_center.x, rec) && rd_zz(d, &b->local_center.y, rec);
	}
	b->mass = d->mass_prev[0];
	b->inertia = d->mass_prev[1];
	b->local_center.x = d->mass_prev[2];
	b->local_center.y = d->mass_prev[3];
	return true;
}

/* User data and the sleep record (its u8 in *sleep). */
static bool read_body_extras(decoder *d, f2d_body *b, uint32_t flags, uint32_t *sleep)
{
	const char *rec = "a body";
	if (flags & BF_USER) {
		if (!avail(d, 8)) {
			return truncated(d, rec);
		}
		b->user_data = rd_u64(d);
	}
	if (flags & BF_SLEEP) {
		if (!avail(d, 1)) {
			return truncated(d, rec);
		}
		*sleep = rd_u8(d);
		b->awake = (*sleep & 1u) == 0;
		b->enable_sleep = (*sleep & 2u) == 0;
		if (!rd_zz(d, &b->sleep_time, rec)) {
			return false;
		}
	}
	return true;
}

/* A sleep record, canonical and reachable: only a dynamic body sleeps or counts time, a
 * sleeping one is still and may sleep, time in [0, time_to_sleep]. */
static bool body_sleep_ok(decoder *d, int32_t i, const f2d_body *b, uint32_t flags, uint32_t sleep)
{
	bool dynamic = b->type == F2D_DYNAMIC_BODY;
	bool asleep = !b->awake;
	if (sleep > 3 || (sleep == 0 && b->sleep_time == 0) || b->sleep_time < 0 ||
	    b->sleep_time > d->time_to_sleep || (!dynamic && (asleep || b->sleep_time != 0)) ||
	    (asleep &&
	     (!b->enable_sleep || !d->enable_sleep || (flags & (BF_MOVING | BF_FORCE)) != 0)) ||
	    (!b->enable_sleep && b->sleep_time != 0)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: impossible sleep state %u, time %d", (int)i,
		                       (unsigned)sleep, (int)b->sleep_time);
	}
	return true;
}

/* Position, rotation, velocity, force and user data of a live body in range and canonical
 * (a flagged value is not zero). */
static bool body_values_ok(decoder *d, int32_t i, const f2d_body *b, uint32_t flags, fix16_t plim)
{
	if (!vec_within(b->center, plim)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: position beyond F2D_WORLD_LIMIT", (int)i);
	}
	if (!rot_unit(b->q)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: rotation is not unit length", (int)i);
	}
	/* Velocities: the soft step (substep_count >= 1) caps motion in each substep's position
	 * integration, but the relax pass and restitution after the last one change velocities
	 * again, bounded only by the fix16 saturation of the contact and joint solvers
	 * ([-INT32_MAX, INT32_MAX]; a light body of tiny inertia hit by a heavy one spins up to
	 * vn / (2 sqrt(I / m)), ~8192 vn at the range edges): every value but INT32_MIN is a state
	 * that step leaves. The Gauss-Seidel step (0) ends with the capped integration: |v| <=
	 * max_translation / h, |w| <= max_rotation / h (vmax, wmax: twice that, at least the
	 * 4096 a user may set). Which step the world takes is read after the bodies (the options),
	 * so a body beyond the Gauss-Seidel bounds is remembered and refused there. */
	if ((flags & BF_MOVING) &&
	    ((b->v.x == 0 && b->v.y == 0 && b->w == 0) || !no_min(b->v.x) || !no_min(b->v.y) ||
	     !no_min(b->w))) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: velocity out of range (or zero, flagged)", (int)i);
	}
	if ((flags & BF_MOVING) && d->fast_body < 0 &&
	    (!within(b->v.x, d->vmax) || !within(b->v.y, d->vmax) || !within(b->w, d->wmax))) {
		d->fast_body = i;
	}
	if ((flags & BF_FORCE) &&
	    ((b->force.x == 0 && b->force.y == 0 && b->torque == 0) || !no_min(b->force.x) ||
	     !no_min(b->force.y) || !no_min(b->torque))) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: force out of range (or zero, flagged)", (int)i);
	}
	if ((flags & BF_USER) && b->user_data == 0) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: zero user data flagged", (int)i);
	}
	return true;
}

/* A stored mass record: in range, and not the previous one's (that is flagged same). */
static bool body_mass_ok(decoder *d, int32_t i, const f2d_body *b)
{
	if (b->mass < F2D_MIN_MASS || b->mass > F2D_MAX_MASS ||
	    (b->inertia != 0 && (b->inertia < F2D_MIN_INERTIA || b->inertia > F2D_MAX_INERTIA)) ||
	    (b->inertia == 0 &&
	     (b->mass != F2D_ONE || b->local_center.x != 0 || b->local_center.y != 0)) ||
	    !vec_within(b->local_center, F2D_MAX_DYNAMIC_SHAPE_EXTENT)) {
		return f2d_decode_fail(d, F2D_ERROR_MASS_RANGE,
		                       "body %d: mass %d, inertia %d or centre out of range",
		                       (int)i, (int)b->mass, (int)b->inertia);
	}
	if (d->have_mass && b->mass == d->mass_prev[0] && b->inertia == d->mass_prev[1] &&
	    b->local_center.x == d->mass_prev[2] && b->local_center.y == d->mass_prev[3]) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: repeated mass not marked as such (not canonical)",
		                       (int)i);
	}
	return true;
}

/* The origin: stored (as an offset od from the centre) only when it is not the derived one (q
 * and the local centre are in range here). */
static bool body_origin(decoder *d, int32_t i, f2d_body *b, uint32_t flags, f2d_vec2 od,
                        fix16_t plim)
{
	f2d_vec2 derived = f2d_snapshot_derived_origin(b->center, b->q, b->local_center);
	if (flags & BF_ORIGIN) {
		b->origin = f2d_v(u2i((uint32_t)b->center.x + (uint32_t)od.x),
		                  u2i((uint32_t)b->center.y + (uint32_t)od.y));
		if (!d->apply && b->origin.x == derived.x && b->origin.y == derived.y) {
			return f2d_decode_fail(
			    d, F2D_ERROR_INVALID_VALUE,
			    "body %d: stored origin equals the derived one (not canonical)",
			    (int)i);
		}
	} else {
		b->origin = derived;
	}
	if (!d->apply && !vec_within(b->origin, plim)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: position beyond F2D_WORLD_LIMIT", (int)i);
	}
	return true;
}

/* A dynamic body's inverse mass and inertia (as body.c computes them, once per mass record);
 * the validating pass keeps the stored mass for check_masses. */
static void body_keep_mass(decoder *d, int32_t i, f2d_body *b, bool mass_rec)
{
	if (mass_rec) {
		d->have_mass = true;
		d->mass_prev[0] = b->mass;
		d->mass_prev[1] = b->inertia;
		d->mass_prev[2] = b->local_center.x;
		d->mass_prev[3] = b->local_center.y;
		if (d->apply) {
			d->inv_mass = f2d_div_exact((int64_t)1 << 16, b->mass);
			d->inv_inertia =
			    b->inertia == 0 ? 0 : f2d_div_exact((int64_t)1 << 16, b->inertia);
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

/* The rest of a live body's record, after its generation and flags. */
static bool decode_live_body(decoder *d, int32_t i, f2d_body *b, uint32_t flags)
{
	bool dynamic = b->type == F2D_DYNAMIC_BODY;
	bool mass_rec = dynamic && (flags & BF_SAME_MASS) == 0;
	f2d_vec2 od = f2d_v(0, 0); /* origin - centre, when stored */
	uint32_t sleep = 0;
	if (!read_body_motion(d, b, flags, &od) || (dynamic && !read_body_mass(d, b, mass_rec)) ||
	    !read_body_extras(d, b, flags, &sleep)) {
		return false;
	}
	const fix16_t limit = F2D_WORLD_LIMIT;
	fix16_t plim = dynamic ? limit + DYNAMIC_POSITION_SLACK : limit;
	if (!d->apply &&
	    (((flags & BF_SLEEP) && !body_sleep_ok(d, i, b, flags, sleep)) ||
	     !body_values_ok(d, i, b, flags, plim) || (mass_rec && !body_mass_ok(d, i, b)))) {
		return false;
	}
	if (!body_origin(d, i, b, flags, od, plim)) {
		return false;
	}
	if (dynamic) {
		body_keep_mass(d, i, b, mass_rec);
	}
	d->alive[0]++;
	return true;
}

static bool decode_body(decoder *d, int32_t i)
{
	uint32_t gen = 0, flags = 0;
	if (!rd_var(d, &gen, "a body") || !rd_var(d, &flags, "a body")) {
		return false;
	}
	uint32_t type = (flags >> BF_TYPE_SHIFT) & 3u;
	bool alive = (flags & BF_ALIVE) != 0;
	if (!d->apply && !body_flags_ok(d, i, gen, flags)) {
		return false;
	}
	f2d_body tmp;
	f2d_body *b = d->apply ? &d->w->bodies[i] : &tmp;
	body_init(b, gen, alive, type);
	if (alive && !decode_live_body(d, i, b, flags)) {
		return false;
	}
	if (!d->apply) {
		scratch(d, d->body_off)[i] = alive ? 1 + type : 0;
	}
	return true;
}

bool f2d_decode_bodies(decoder *d)
{
	f2d_world *w = d->w;
	if (!decode_next(d, 0, "bodies")) {
		return false;
	}
	int32_t n = d->next[0];
	if (!d->apply) {
		if (d->last_oor >= n) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
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
	for (int32_t i = 0; i < n; ++i) {
		if (!decode_body(d, i)) {
			return false;
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
				return f2d_decode_fail(
				    d, F2D_ERROR_INVALID_VALUE,
				    "body %d: more than 64 shapes on a dynamic body", (int)b);
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
			return f2d_decode_fail(
			    d, F2D_ERROR_MASS_RANGE,
			    "body %d: stored mass %d, inertia %d or centre differ from its "
			    "shapes' (%lld, %lld)",
			    (int)b, (int)u2i(m[0]), (int)u2i(m[1]), (long long)total.mass,
			    (long long)total.inertia);
		}
	}
	return true;
}

/* ---- shapes ---- */

/* a shape's material: what a record stores, or the previous live shape's */
typedef struct material {
	fix16_t density, friction, restitution;
} material;

/* A shape record's generation and flags (its type byte read here): canonical, and a shape
 * that repeats the previous one's geometry or material has one to repeat. */
static bool read_shape_head(decoder *d, int32_t i, uint32_t *gen, uint32_t *flags,
                            f2d_shape_type *shape_type)
{
	if (!rd_var(d, gen, "a shape")) {
		return false;
	}
	if (!avail(d, 1)) {
		return truncated(d, "a shape");
	}
	*flags = rd_u8(d);
	bool polygon = (*flags & SF_POLYGON) != 0;
	*shape_type = polygon ? F2D_POLYGON_SHAPE : F2D_CIRCLE_SHAPE;
	if (*flags & SF_TYPE) {
		if (!avail(d, 1)) {
			return truncated(d, "a shape");
		}
		uint32_t t = rd_u8(d);
		if (polygon || t < F2D_CAPSULE_SHAPE || t > F2D_CHAIN_SEGMENT_SHAPE) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "shape %d: bad type %u",
			                       (int)i, (unsigned)t);
		}
		*shape_type = (f2d_shape_type)t;
	}
	if (d->apply) {
		return true;
	}
	bool same_geometry = (*flags & SF_SAME_GEOMETRY) != 0;
	if (*gen == 0) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "shape %d: generation 0",
		                       (int)i);
	}
	if ((!(*flags & SF_ALIVE) && *flags != 0) || (*flags & ~63u) != 0) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "shape %d: bad flags %u", (int)i,
		                       (unsigned)*flags);
	}
	if ((same_geometry || (*flags & SF_SAME_MATERIAL)) && !d->have_shape) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "shape %d: same as a previous shape that does not exist",
		                       (int)i);
	}
	if (same_geometry && d->geometry.type != *shape_type) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "shape %d: same geometry as a shape of another type",
		                       (int)i);
	}
	return true;
}

/* A dead shape's slot; the digest stays when the slot was this dead slot already. */
static void decode_dead_shape(decoder *d, int32_t i, uint32_t gen)
{
	if (!d->apply) {
		scratch(d, d->shape_off)[i] = 0;
		return;
	}
	f2d_shape *s = &d->w->shapes[i];
	bool same = !s->alive && s->generation == gen;
	uint64_t digest = s->digest;
	memset(s, 0, sizeof *s);
	s->generation = gen;
	s->next = F2D_NULL_INDEX;
	if (same) {
		s->digest = digest;
	} else {
		f2d_shape_refresh_digest(d->w, s);
	}
}

/* capsule: c1, c2, radius; segment: p1, p2; chain segment: p1, p2, g1, g2 */
static bool read_capsule(decoder *d, int32_t i, f2d_shape_type shape_type, f2d_shape *fresh)
{
	size_t need =
	    shape_type == F2D_CAPSULE_SHAPE ? 20 : (shape_type == F2D_SEGMENT_SHAPE ? 16 : 32);
	if (!avail(d, need)) {
		return truncated(d, "a capsule or segment");
	}
	fresh->type = shape_type;
	fresh->capsule.center1 = rd_vec(d);
	fresh->capsule.center2 = rd_vec(d);
	if (shape_type == F2D_CAPSULE_SHAPE) {
		fresh->capsule.radius = rd_i32(d);
	} else if (shape_type == F2D_CHAIN_SEGMENT_SHAPE) {
		fresh->ghost1 = rd_vec(d);
		fresh->ghost2 = rd_vec(d);
	}
	bool ok = shape_type == F2D_CAPSULE_SHAPE
	              ? f2d_capsule_ok(&fresh->capsule)
	              : (shape_type == F2D_SEGMENT_SHAPE
	                     ? f2d_segment_ok(fresh->capsule.center1, fresh->capsule.center2)
	                     : f2d_chain_segment_ok(fresh->ghost1, fresh->capsule.center1,
	                                            fresh->capsule.center2, fresh->ghost2));
	if (!d->apply && !ok) {
		return f2d_decode_fail(
		    d, F2D_ERROR_INVALID_VALUE,
		    "shape %d: capsule or segment out of range (radius, length, extent or "
		    "ghosts)",
		    (int)i);
	}
	return true;
}

static bool read_polygon(decoder *d, int32_t i, f2d_shape *fresh)
{
	if (!avail(d, 1)) {
		return truncated(d, "a polygon");
	}
	uint32_t count = rd_u8(d);
	if (count < 3 || count > F2D_MAX_POLYGON_VERTICES) {
		return f2d_decode_fail(d, F2D_ERROR_BAD_POLYGON,
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
	fresh->type = F2D_POLYGON_SHAPE;
	if (f2d_make_polygon(pts, (int32_t)count, &fresh->polygon) != F2D_OK) {
		return f2d_decode_fail(
		    d, F2D_ERROR_BAD_POLYGON,
		    "shape %d: polygon is not convex, CCW and non-degenerate within 512 m", (int)i);
	}
	return true;
}

static bool read_circle(decoder *d, int32_t i, f2d_shape *fresh)
{
	if (!avail(d, 12)) {
		return truncated(d, "a circle");
	}
	fresh->type = F2D_CIRCLE_SHAPE;
	fresh->circle.center = rd_vec(d);
	fresh->circle.radius = rd_i32(d);
	if (!d->apply && !circle_ok(&fresh->circle)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "shape %d: circle radius or centre out of range", (int)i);
	}
	return true;
}

/* A stored geometry, checked and made the previous live shape's (d->geometry). */
static bool decode_geometry(decoder *d, int32_t i, uint32_t flags, f2d_shape_type shape_type)
{
	f2d_shape fresh;
	memset(&fresh, 0, sizeof fresh);
	bool ok = (flags & SF_TYPE)      ? read_capsule(d, i, shape_type, &fresh)
	          : (flags & SF_POLYGON) ? read_polygon(d, i, &fresh)
	                                 : read_circle(d, i, &fresh);
	if (!ok) {
		return false;
	}
	f2d_shape *g = &d->geometry;
	if (!d->apply) {
		if (d->have_shape && geometry_equal(&fresh, g)) {
			return f2d_decode_fail(
			    d, F2D_ERROR_INVALID_VALUE,
			    "shape %d: repeated geometry not marked as such (not canonical)",
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
	return true;
}

/* A stored material: in range and not the previous live shape's (that is flagged same). */
static bool material_ok(decoder *d, int32_t i, material m)
{
	const f2d_shape *g = &d->geometry;
	if (m.density <= 0 || m.friction < 0 || m.friction > F2D_FIX(4) || m.restitution < 0 ||
	    m.restitution > F2D_ONE) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "shape %d: density, friction or restitution out of range",
		                       (int)i);
	}
	if (d->have_shape && m.density == g->density && m.friction == g->friction &&
	    m.restitution == g->restitution) {
		return f2d_decode_fail(
		    d, F2D_ERROR_INVALID_VALUE,
		    "shape %d: repeated material not marked as such (not canonical)", (int)i);
	}
	return true;
}

/* A live shape's body is alive and can carry it; marks it, and (portable form) keeps its mass
 * data for check_masses. */
static bool shape_body_ok(decoder *d, int32_t i, uint32_t body, fix16_t density)
{
	uint32_t bt = body < (uint32_t)d->next[0] ? scratch(d, d->body_off)[body] : 0;
	if (bt < 1 || bt > 3) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
		                       "shape %d: body %u is not alive", (int)i, (unsigned)body);
	}
	if (bt == 1 + F2D_DYNAMIC_BODY && !d->geometry_dynamic_ok) {
		return f2d_decode_fail(d, F2D_ERROR_MASS_RANGE,
		                       "shape %d: too large for a dynamic body (32 m)", (int)i);
	}
	scratch(d, d->shape_off)[i] = 1 + body;
	if (d->check_mass && bt == 1 + F2D_DYNAMIC_BODY) {
		const f2d_shape *g = &d->geometry;
		f2d_shape probe;
		memset(&probe, 0, sizeof probe);
		probe.type = g->type;
		probe.polygon = g->polygon;
		probe.circle = g->circle;
		probe.capsule = g->capsule;
		probe.density = density;
		f2d_mass_data md;
		if (!f2d_shape_mass(&probe, &md)) {
			return f2d_decode_fail(d, F2D_ERROR_MASS_RANGE,
			                       "shape %d: too large for a dynamic body", (int)i);
		}
		memcpy(scratch(d, d->md_off) + MD_WORDS * (size_t)i, &md, sizeof md);
	}
	return true;
}

/* Every state field of a live f2d_shape is written (the world-space cache and box are
 * recomputed by the step); the geometry is copied only when it differs. */
static void apply_shape(f2d_world *w, f2d_shape *s, const f2d_shape *g, uint32_t gen,
                        uint32_t body, material m, uint64_t user)
{
	bool keep = s->alive && s->type == g->type && geometry_equal(s, g);
	/* the cached hash digest stays valid when the whole record is unchanged (a rollback's
	 * usual case); else it is recomputed below */
	bool same = keep && s->generation == gen && s->body == (int32_t)body &&
	            s->density == m.density && s->friction == m.friction &&
	            s->restitution == m.restitution;
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
	s->density = m.density;
	s->friction = m.friction;
	s->restitution = m.restitution;
	s->user_data = user;
	/* options at their defaults; the options section sets the others */
	s->filter = f2d_default_filter();
	s->is_sensor = false;
	s->enable_contact_events = true;
	s->enable_hit_events = false;
	s->enable_sensor_events = true;
	if (!same) {
		f2d_shape_refresh_digest(w, s);
	}
}

/* The rest of a live shape's record, after its head: body (a delta from the previous live
 * shape's body + 1), material, geometry, user data. */
static bool decode_live_shape(decoder *d, int32_t i, uint32_t gen, uint32_t flags,
                              f2d_shape_type shape_type, int32_t *prev_body)
{
	int32_t body_id = 0;
	if (!rd_delta(d, &body_id, *prev_body + 1, "a shape")) {
		return false;
	}
	*prev_body = body_id;
	uint32_t body = (uint32_t)body_id;
	bool material_new = (flags & SF_SAME_MATERIAL) == 0;
	if (!avail(d, material_new ? 12 : 0)) {
		return truncated(d, "a shape");
	}
	f2d_shape *g = &d->geometry; /* previous shape's geometry and material */
	material m = {g->density, g->friction, g->restitution};
	if (material_new) {
		m.density = rd_i32(d);
		m.friction = rd_i32(d);
		m.restitution = rd_i32(d);
	}
	if (!(flags & SF_SAME_GEOMETRY) && !decode_geometry(d, i, flags, shape_type)) {
		return false;
	}
	uint64_t user = 0;
	if (flags & SF_USER) {
		if (!avail(d, 8)) {
			return truncated(d, "a shape");
		}
		user = rd_u64(d);
	}
	if (!d->apply) {
		if (material_new && !material_ok(d, i, m)) {
			return false;
		}
		if ((flags & SF_USER) && user == 0) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
			                       "shape %d: zero user data flagged", (int)i);
		}
		if (!shape_body_ok(d, i, body, m.density)) {
			return false;
		}
	}
	g->density = m.density;
	g->friction = m.friction;
	g->restitution = m.restitution;
	d->have_shape = true;
	d->alive[1]++;
	if (d->apply) {
		apply_shape(d->w, &d->w->shapes[i], g, gen, body, m, user);
	}
	return true;
}

bool f2d_decode_shapes(decoder *d)
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
		uint32_t gen = 0, flags = 0;
		f2d_shape_type shape_type = F2D_CIRCLE_SHAPE;
		if (!read_shape_head(d, i, &gen, &flags, &shape_type)) {
			return false;
		}
		if (!(flags & SF_ALIVE)) {
			decode_dead_shape(d, i, gen);
		} else if (!decode_live_shape(d, i, gen, flags, shape_type, &prev_body)) {
			return false;
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

/* ---- joints ---- */

/* A live joint's fixed fields (JOINT_RECORD, then JOINT_EXT for the other types, then user
 * data); the caller has checked the length. */
static void read_joint_fields(decoder *d, f2d_joint *j, uint32_t flags, uint32_t *spring)
{
	j->alive = true;
	j->enable_limit = (flags & JF_LIMIT) != 0;
	j->enable_motor = (flags & JF_MOTOR) != 0;
	j->collide_connected = (flags & JF_COLLIDE) != 0;
#define GET(kind, field) j->field = rd_##kind(d);
	JOINT_RECORD(GET)
	if (flags & JF_TYPE) {
		JOINT_EXT_HEAD(GET)
		*spring = rd_u8(d);
		j->enable_spring = *spring == 1u;
		JOINT_EXT_TAIL(GET)
	}
#undef GET
	if (flags & JF_USER) {
		j->user_data = rd_u64(d);
	}
}

/* A joint of another type than revolute: canonical (type 1..6, spring flag 0 or 1) and the
 * creation check. ta, tb: 1 + the bodies' types. NULL: fine. */
static const char *joint_ext_problem(const f2d_joint *j, uint32_t flags, uint32_t spring,
                                     uint32_t ta, uint32_t tb)
{
	const char *bad =
	    j->type == 0 || spring > 1u
	        ? "bad type or flag"
	        : f2d_joint_ext_check(j, (f2d_body_type)(ta - 1), (f2d_body_type)(tb - 1));
	if (bad == NULL && (!anchor_ok(j->local_a, ta) || !anchor_ok(j->local_b, tb))) {
		bad = "anchor out of range";
	}
	if (bad == NULL && ((flags & JF_USER) && j->user_data == 0)) {
		bad = "user data flag without user data";
	}
	return bad;
}

/* A revolute joint's anchors, angles, motor and impulses in range. */
static bool revolute_ok(const f2d_joint *j, uint32_t flags, uint32_t ta, uint32_t tb)
{
	return anchor_ok(j->local_a, ta) && anchor_ok(j->local_b, tb) &&
	       within(j->reference_angle, F2D_PI) && within(j->lower, F2D_PI) &&
	       within(j->upper, F2D_PI) && !(j->enable_limit && j->lower > j->upper) &&
	       j->max_motor_torque >= 0 && within(j->motor_speed, F2D_FIX(1000)) &&
	       no_min(j->impulse.x) && no_min(j->impulse.y) && no_min(j->motor_impulse) &&
	       j->lower_impulse >= 0 && j->upper_impulse >= 0 &&
	       !((flags & JF_USER) && j->user_data == 0);
}

/* A live joint joins two live bodies, one of them dynamic, with values in range. */
static bool joint_ok(decoder *d, int32_t i, const f2d_joint *j, uint32_t flags, uint32_t ba,
                     uint32_t bb, uint32_t spring)
{
	const uint32_t *types = scratch(d, d->body_off);
	uint32_t ta = ba < (uint32_t)d->next[0] ? types[ba] : 0;
	uint32_t tb = bb < (uint32_t)d->next[0] ? types[bb] : 0;
	if (ta < 1 || ta > 3 || tb < 1 || tb > 3 || ba == bb) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
		                       "joint %d: bodies %u, %u are not two live bodies", (int)i,
		                       (unsigned)ba, (unsigned)bb);
	}
	if (ta != 1 + F2D_DYNAMIC_BODY && tb != 1 + F2D_DYNAMIC_BODY) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "joint %d: neither body is dynamic", (int)i);
	}
	if ((flags & JF_TYPE) != 0) {
		const char *bad = joint_ext_problem(j, flags, spring, ta, tb);
		if (bad != NULL) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "joint %d: %s", (int)i,
			                       bad);
		}
	} else if (!revolute_ok(j, flags, ta, tb)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "joint %d: anchor, angle, motor or impulse out of range",
		                       (int)i);
	}
	return true;
}

static bool decode_joint(decoder *d, int32_t i)
{
	if (!avail(d, 5)) {
		return truncated(d, "a joint");
	}
	uint32_t gen = rd_u32(d);
	uint32_t flags = rd_u8(d);
	bool alive = (flags & JF_ALIVE) != 0;
	if (!d->apply && (gen == 0 || (!alive && flags != 0) || (flags & ~63u) != 0)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "joint %d: bad generation or flags", (int)i);
	}
	f2d_joint j;
	memset(&j, 0, sizeof j);
	j.generation = gen;
	if (alive) {
		size_t need = JOINT_RECORD_BYTES + ((flags & JF_USER) ? 8 : 0) +
		              ((flags & JF_TYPE) ? JOINT_EXT : 0);
		if (!avail(d, need)) {
			return truncated(d, "a joint");
		}
		uint32_t spring = 0;
		read_joint_fields(d, &j, flags, &spring);
		if (!d->apply) {
			/* the body ids as stored (u32) */
			uint32_t ba = (uint32_t)j.body_a, bb = (uint32_t)j.body_b;
			if (!joint_ok(d, i, &j, flags, ba, bb, spring)) {
				return false;
			}
			scratch(d, d->joint_off)[i] = 1;
		}
		d->alive[2]++;
	}
	if (d->apply) {
		f2d_world *w = d->w;
		w->joints[i] = j;
		if (alive) {
			w->bodies[j.body_a].joint_count++;
			w->bodies[j.body_b].joint_count++;
			f2d_joint_link(w, i);
		}
	}
	return true;
}

bool f2d_decode_joints(decoder *d)
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
	for (int32_t i = 0; i < n; ++i) {
		if (!decode_joint(d, i)) {
			return false;
		}
	}
	if (!d->apply) {
		return decode_free_list(d, 2, d->joint_off, NULL, "joint");
	}
	w->joint_count = d->alive[2];
	return decode_free_list(d, 2, 0, &w->joint_ids, "joint");
}

/* ---- arbiters ---- */

/* the previous arbiter's shapes and material (the arbiters are delta-coded) */
typedef struct arbiter_prev {
	uint32_t a, b;
	fix16_t friction, restitution;
} arbiter_prev;

/* An arbiter's shapes: a delta from the previous shape a, and b's gap after the previous b (same
 * a) or after a; two live shapes, the key order (a, then b, strictly increasing) holds by
 * construction, the bounds keep the sums exact. */
static bool arbiter_shapes(decoder *d, uint32_t i, uint32_t head, uint32_t gap,
                           const arbiter_prev *prev, uint32_t *sa, uint32_t *sb)
{
	const uint32_t *marks = scratch(d, d->shape_off); /* 1 + body of a live shape */
	const uint32_t shapes = (uint32_t)d->next[1];
	bool same = (head & 1u) != 0;
	uint32_t da = head >> 4; /* version 9 */
	if (da >= shapes - prev->a || (i == 0 && same)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
		                       "arbiter %u: shapes are not two live shapes in order",
		                       (unsigned)i);
	}
	*sa = prev->a + da;
	uint32_t base = i > 0 && da == 0 ? prev->b : *sa;
	if (gap >= shapes - base - 1 || !shape_live(marks[*sa]) ||
	    !shape_live(marks[base + 1 + gap])) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
		                       "arbiter %u: shapes are not two live shapes in order",
		                       (unsigned)i);
	}
	*sb = base + 1 + gap;
	return true;
}

/* An arbiter's friction and restitution: stored (in range, not the previous arbiter's) or the
 * previous arbiter's. */
static bool arbiter_material(decoder *d, uint32_t i, bool same, arbiter_prev *prev)
{
	if (same) {
		return true;
	}
	uint32_t f = 0, r = 0;
	if (!rd_var(d, &f, "an arbiter") || !rd_var(d, &r, "an arbiter")) {
		return false;
	}
	if (f > (uint32_t)F2D_FIX(4) || r > (uint32_t)F2D_ONE) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "arbiter %u: friction or restitution out of range",
		                       (unsigned)i);
	}
	if (i > 0 && (fix16_t)f == prev->friction && (fix16_t)r == prev->restitution) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "arbiter %u: material written again (not canonical)",
		                       (unsigned)i);
	}
	prev->friction = (fix16_t)f;
	prev->restitution = (fix16_t)r;
	return true;
}

/* An arbiter's contact points: feature id, normal and tangent impulse. */
static bool arbiter_points(decoder *d, uint32_t i, f2d_arbiter *a)
{
	/* the solver clamps |pt| to round16(friction pn) before it updates pn, so |pt| <=
	 * friction pn does not hold; pn <= INT32_MAX bounds it */
	int64_t max_pt = f2d_round16((int64_t)a->friction * INT32_MAX);
	max_pt = max_pt > INT32_MAX ? INT32_MAX : max_pt;
	for (int32_t k = 0; k < a->count; ++k) { /* points past count are never read */
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
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
			                       "arbiter %u: impulse out of range", (unsigned)i);
		}
		cp->pn = (int32_t)pn;
	}
	return true;
}

/* Where the validating pass keeps a portable manifold's residuals until the applying pass
 * rebuilds it (f2d_decode_arbiters): in the fields they become, the first point's r_b holding
 * dc0's (r_b[0] itself follows from r_a[0] and dc0). One description for both directions. */
#define RESIDUAL_SLOTS(X)                                                                          \
	X(RS_QA, cached_q_a.c) X(RS_QA + 1, cached_q_a.s) X(RS_QB, cached_q_b.c)                   \
	X(RS_QB + 1, cached_q_b.s) X(RS_DC, points[0].r_b.x) X(RS_DC + 1, points[0].r_b.y)         \
	X(RS_SEP, points[0].separation) X(RS_SEP + 1, points[1].separation)                        \
	X(RS_NORMAL, normal.x) X(RS_NORMAL + 1, normal.y) X(RS_RA, points[0].r_a.x)                \
	X(RS_RA + 1, points[0].r_a.y) X(RS_RA + 2, points[1].r_a.x) X(RS_RA + 3, points[1].r_a.y)  \
	X(RS_BASE, base_separation[0]) X(RS_BASE + 1, base_separation[1])                          \
	X(RS_RB1, points[1].r_b.x) X(RS_RB1 + 1, points[1].r_b.y)

/* Groups 0..2 of a recycled manifold (portable version 9, snapshot.c put_rs_block): the width
 * byte, then the packed bits or, after the escape byte, six zigzag varints. Canonical: the
 * widths the bit lengths of the largest values, unused bits 0, the escape only when the values
 * do not fit the packed widths, a rotation's residuals within +-L (packed ones are: below
 * 2^14). */
static bool arbiter_block(decoder *d, uint32_t i, f2d_arbiter_residuals *r)
{
	if (!avail(d, 1)) {
		return truncated(d, "an arbiter");
	}
	const uint32_t head = rd_u8(d);
	uint32_t z[RS_BLOCK], wide = 0, narrow = 0;
	if (head >= RS_BLOCK_ESCAPE) {
		for (int32_t k = 0; k < RS_BLOCK; ++k) {
			if (!rd_var(d, &z[k], "an arbiter")) {
				return false;
			}
		}
	} else {
		const uint32_t w = head & 15u, n = head >> 4;
		const size_t bytes = (RS_WIDE * w + (RS_BLOCK - RS_WIDE) * n + 7) / 8;
		if (!avail(d, bytes)) {
			return truncated(d, "an arbiter");
		}
		/* a byte is added at bit bits < len <= 15 of acc: acc stays below 2^23 */
		uint32_t acc = 0, bits = 0;
		for (int32_t k = 0; k < RS_BLOCK; ++k) {
			const uint32_t len = k < RS_WIDE ? w : n;
			for (; bits < len; bits += 8) {
				acc |= rd_u8(d) << bits;
			}
			z[k] = acc & ((1u << len) - 1u);
			acc >>= len;
			bits -= len;
		}
		if (acc != 0) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
			                       "arbiter %u: manifold block padding not 0 (not canonical)",
			                       (unsigned)i);
		}
	}
	for (int32_t k = 0; k < RS_BLOCK; ++k) {
		const uint32_t n = f2d_bit_length(z[k]);
		wide = k < RS_WIDE && n > wide ? n : wide;
		narrow = k >= RS_WIDE && n > narrow ? n : narrow;
		r->v[f2d_rs_block_index(k)] = unzigzag(z[k]);
	}
	const bool fits = wide <= RS_WIDE_MAX && narrow <= RS_NARROW_MAX;
	if (head >= RS_BLOCK_ESCAPE ? head != RS_BLOCK_ESCAPE || fits
	                            : head != (wide | narrow << 4)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "arbiter %u: manifold block widths %u not canonical",
		                       (unsigned)i, (unsigned)head);
	}
	for (int32_t g = 0; g < 2; ++g) {
		const int32_t *v = &r->v[g == 0 ? RS_QA : RS_QB];
		if (v[0] < -RS_LIM || v[0] > RS_LIM || v[1] < -RS_LIM || v[1] > RS_LIM) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
			                       "arbiter %u: rotation residual out of range",
			                       (unsigned)i);
		}
	}
	return true;
}

/* A recycled manifold (portable version 9): the block of groups 0..2, then, when the head's
 * kind is 2 (more), the mask of groups 3..7 (bit g - 3) and their residuals (snapshot.c
 * put_manifold_residuals). Canonical: the mask 1..31, a named group not all zero, the normal's
 * residuals within +-L (then every residual makes a manifold within range:
 * snapshot_arbiter.c). */
static bool arbiter_residuals(decoder *d, uint32_t i, f2d_arbiter *a, bool more)
{
	f2d_arbiter_residuals r;
	memset(&r, 0, sizeof r);
	uint32_t mask = 0;
	if (!arbiter_block(d, i, &r) || (more && !rd_var(d, &mask, "an arbiter"))) {
		return false;
	}
	if (more && (mask == 0 || mask >> (RS_GROUPS - RS_MORE_GROUPS) != 0)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "arbiter %u: manifold mask %u out of range", (unsigned)i,
		                       (unsigned)mask);
	}
	for (int32_t g = RS_MORE_GROUPS; g < RS_GROUPS; ++g) {
		const bool named = (mask >> (g - RS_MORE_GROUPS) & 1u) != 0;
		int32_t len = 0, first = f2d_rs_group(g, a->count, &len);
		bool any = false;
		for (int32_t k = 0; named && k < len; ++k) {
			if (!rd_zz(d, &r.v[first + k], "an arbiter")) {
				return false;
			}
			int32_t v = r.v[first + k];
			any = any || v != 0;
			if (f2d_rs_limited(g) && (v < -RS_LIM || v > RS_LIM)) {
				return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
				                       "arbiter %u: normal residual out of range",
				                       (unsigned)i);
			}
		}
		if (named && !any) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
			                       "arbiter %u: manifold mask bit %d names zeros (not "
			                       "canonical)", (unsigned)i, (int)(g - RS_MORE_GROUPS));
		}
	}
#define SLOT(k, field) a->field = r.v[k];
	RESIDUAL_SLOTS(SLOT)
#undef SLOT
	return true;
}

/* The applying pass: the portable form's recycled manifolds from their residuals, now that the
 * bodies and shapes are the world's. */
static void rebuild_manifolds(f2d_world *w)
{
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *a = &w->arbiters[i];
		if (a->recycle == 0) {
			continue;
		}
		f2d_arbiter_residuals r;
#define SLOT(k, field) r.v[k] = a->field;
		RESIDUAL_SLOTS(SLOT)
#undef SLOT
		f2d_snapshot_arbiter_rebuild(w, a, &r);
	}
}

/* The state of an arbiter; the rest (the normal and points of a manifold not recycled, solver
 * data) is recomputed by the step before it is read. */
static bool decode_arbiter(decoder *d, uint32_t i, arbiter_prev *prev)
{
	uint32_t head = 0, gap = 0, sa = 0, sb = 0;
	if (!rd_var(d, &head, "an arbiter") || !rd_var(d, &gap, "an arbiter") ||
	    !arbiter_shapes(d, i, head, gap, prev, &sa, &sb) ||
	    !arbiter_material(d, i, (head & 1u) != 0, prev)) {
		return false;
	}
	const uint32_t *marks = scratch(d, d->shape_off);
	f2d_arbiter *a = &d->w->arbiters_next[i];
	a->shape_a = (int32_t)sa;
	a->shape_b = (int32_t)sb;
	a->body_a = (int32_t)(marks[sa] - 1);
	a->body_b = (int32_t)(marks[sb] - 1);
	a->friction = prev->friction;
	a->restitution = prev->restitution;
	a->count = (int8_t)(1 + ((head >> 1) & 1u));
	const uint32_t kind = (head >> 2) & 3u; /* 0 not recycled, 1 recycled, 2 and more groups */
	a->recycle = (uint8_t)(kind != 0 ? 1u : 0u);
	/* unknown until a step rebuilds it (f2d_world_get_contacts), unless recycled */
	a->normal = f2d_v(0, 0);
	memset(a->points, 0, sizeof a->points);
	a->base_separation[0] = a->base_separation[1] = 0;
	a->cached_q_a = a->cached_q_b = (f2d_rot){0, 0};
	a->speculative = 0;
	if (kind == 3) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "arbiter %u: recycled kind 3 out of range", (unsigned)i);
	}
	if (!arbiter_points(d, i, a) || (kind != 0 && !arbiter_residuals(d, i, a, kind == 2))) {
		return false;
	}
	prev->a = sa;
	prev->b = sb;
	return true;
}

/* Arbiters are validated straight into the world's second arbiter buffer (arbiters_next, per
 * step scratch: f2d_update_contacts fills it and swaps it in, as the applying pass does here),
 * so the section is read once; the applying pass only swaps the buffers. */
bool f2d_decode_arbiters(decoder *d)
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
		uint64_t *tg = w->arbiter_geo; /* the geometry digests with them (core.h) */
		int32_t tgc = w->arbiter_geo_capacity;
		w->arbiter_geo = w->arbiter_geo_next;
		w->arbiter_geo_capacity = w->arbiter_geo_next_capacity;
		w->arbiter_geo_next = tg;
		w->arbiter_geo_next_capacity = tgc;
		if (!d->caches) { /* the in-process form's applying pass comes here too */
			rebuild_manifolds(w);
			for (int32_t i = 0; i < w->arbiter_count; ++i) {
				w->arbiter_geo[i] = f2d_arbiter_geometry_digest(&w->arbiters[i]);
			}
		}
		return true;
	}
	if (!avail(d, 4)) {
		return truncated(d, "the arbiters");
	}
	uint32_t n = rd_u32(d);
	/* at least 5 bytes each (head, gap, one point's id, pn, pt) */
	if ((size_t)n > (size_t)(d->end - d->p) / 5) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "truncated: %u arbiters cannot fit in %zu bytes",
		                       (unsigned)n, (size_t)(d->end - d->p));
	}
	if (!f2d_grow_aligned(w, (void **)&w->arbiters_next, &w->arbiters_next_capacity,
	                      (int32_t)n, sizeof(f2d_arbiter)) ||
	    !f2d_grow(w, (void **)&w->arbiter_geo_next, &w->arbiter_geo_next_capacity, (int32_t)n,
	              sizeof(uint64_t))) {
		return f2d_decode_fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	d->arbiter_count = (int32_t)n;
	arbiter_prev prev = {0, 0, 0, 0};
	for (uint32_t i = 0; i < n; ++i) {
		if (!decode_arbiter(d, i, &prev)) {
			return false;
		}
	}
	d->arbiters_end = d->p;
	return true;
}
