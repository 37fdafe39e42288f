/* fix2d snapshots: the decoder. Reading runs twice over the bytes, a validating pass that writes
 * nothing into the world, then an applying pass that cannot fail (see snapshot.c for the whole
 * design and include/fix2d/snapshot.h for the format).
 * SPDX-License-Identifier: MIT */
#include "snapshot_decoder.h"

#include <stdarg.h>
#include <stdio.h>

#define STACK_SCRATCH 1024 /* marks: restores of small worlds need no scratch buffer */

/* ---- decoder ---- */

bool f2d_decode_fail(decoder *d, f2d_result r, const char *fmt, ...)
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

bool f2d_rd_var_slow(decoder *d, uint32_t *out, const char *what)
{
	uint32_t v = 0;
	for (int k = 0; k < 5; ++k) {
		if (d->p >= d->end) {
			return truncated(d, what);
		}
		uint32_t byte = *d->p++;
		if (k == 4 && byte > 0x0Fu) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "%s: varint above 2^32",
			                       what);
		}
		v |= (byte & 0x7Fu) << (7 * k);
		if (byte < 0x80u) {
			if (k > 0 && byte == 0) {
				return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
				                       "%s: varint not minimal (not canonical)",
				                       what);
			}
			*out = v;
			return true;
		}
	}
	return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "%s: varint longer than 5 bytes", what);
}

/* The world settings of the validating pass: what f2d_create_world accepts, flags 0 or 1, the
 * last out-of-range body -1 or an id; keeps what the body records are checked against. */
static bool world_settings_ok(decoder *d, const f2d_world_def *def, uint32_t warm, uint32_t sleep,
                              int32_t last)
{
	const char *problem = f2d_world_def_problem(def);
	if (problem != NULL) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "settings: %s", problem);
	}
	if (warm > 1 || sleep > 1) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "settings: warm_starting %u or enable_sleep %u is not 0/1",
		                       (unsigned)warm, (unsigned)sleep);
	}
	d->enable_sleep = def->enable_sleep;
	d->time_to_sleep = def->time_to_sleep;
	if (last < -1) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE, "last out-of-range body %d",
		                       (int)last);
	}
	d->last_oor = last;
	d->vmax = speed_bound(def->max_translation, def->time_step);
	d->wmax = speed_bound(def->max_rotation, def->time_step);
	d->fast_body = -1;
	d->time_step = def->time_step;
	return true;
}

static bool decode_world(decoder *d)
{
	/* step count, gravity, time step; the def's fields and two flags; the event counters and
	 * the last out-of-range body (94 bytes) */
	const size_t len = 8 + 8 + 4 + (0 WORLD_DEF_HEAD(SNAP_BYTES)) + 2 +
	                   (0 WORLD_DEF_TAIL(SNAP_BYTES)) + 8 + 8 + 4;
	if (!avail(d, len)) {
		return truncated(d, "the world settings");
	}
	uint64_t step_count = rd_u64(d);
	f2d_world_def def = f2d_default_world_def();
	/* the solver is read with the options (its word, always there); until then the settings
	 * are checked as the Gauss-Seidel solver's, not against the default's substeps (a
	 * time_step below 4/1000 s is a valid world of 0), and substeps_ok checks the word */
	def.substep_count = 0;
	def.allocator.alloc = NULL;
	def.allocator.free = NULL;
	def.allocator.context = NULL;
	def.gravity = rd_vec(d);
	def.time_step = rd_i32(d);
#define GET(kind, field) def.field = rd_##kind(d);
	WORLD_DEF_HEAD(GET)
	uint32_t warm = rd_u8(d);
	def.warm_starting = warm != 0;
	uint32_t sleep = rd_u8(d);
	def.enable_sleep = sleep != 0;
	WORLD_DEF_TAIL(GET)
#undef GET
	uint64_t oor = rd_u64(d), ovf = rd_u64(d);
	int32_t last = rd_i32(d);
	if (!d->apply) {
		return world_settings_ok(d, &def, warm, sleep, last);
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
	if (!d->apply && (size_t)n > (size_t)(d->end - d->p) / BODY_OPTIONS_BYTES) {
		return truncated(d, "the body options");
	}
	int64_t prev = -1;
	for (uint32_t i = 0; i < n; ++i) {
		if (!avail(d, BODY_OPTIONS_BYTES)) {
			return truncated(d, "the body options");
		}
		uint32_t id = rd_u32(d);
		struct { /* the record's fields, named as f2d_body's (BODY_OPTIONS_RECORD) */
			fix16_t gravity_scale, linear_damping, angular_damping;
		} o;
#define GET(kind, field) o.field = rd_##kind(d);
		BODY_OPTIONS_RECORD(GET)
#undef GET
		fix16_t g = o.gravity_scale, lin = o.linear_damping, ang = o.angular_damping;
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
			return f2d_decode_fail(
			    d, F2D_ERROR_INVALID_HANDLE,
			    "body options %u: body %u is not alive or not in order", (unsigned)i,
			    (unsigned)id);
		}
		prev = id;
		if (g < F2D_FIX(-16) || g > F2D_FIX(16) || lin < 0 || lin > F2D_FIX(1000) ||
		    ang < 0 || ang > F2D_FIX(1000) || fixed > 1 ||
		    (fixed != 0 && type != 1 + F2D_DYNAMIC_BODY) ||
		    (g == F2D_ONE && lin == 0 && ang == 0 && fixed == 0)) {
			return f2d_decode_fail(
			    d, F2D_ERROR_INVALID_VALUE,
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
	if (!d->apply && (size_t)n > (size_t)(d->end - d->p) / SHAPE_OPTIONS_BYTES) {
		return truncated(d, "the shape options");
	}
	int64_t prev = -1;
	for (uint32_t i = 0; i < n; ++i) {
		if (!avail(d, SHAPE_OPTIONS_BYTES)) {
			return truncated(d, "the shape options");
		}
		uint32_t id = rd_u32(d);
		f2d_filter f;
#define GET(kind, field) f.field = rd_##kind(d);
		FILTER_RECORD(GET)
#undef GET
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
			return f2d_decode_fail(
			    d, F2D_ERROR_INVALID_HANDLE,
			    "shape options %u: shape %u is not alive or not in order", (unsigned)i,
			    (unsigned)id);
		}
		prev = id;
		if (flags > 15u || (f.category_bits == 1u && f.mask_bits == UINT64_MAX &&
		                    f.group_index == 0 && flags == F2D_SHAPE_DEFAULT_FLAGS)) {
			return f2d_decode_fail(
			    d, F2D_ERROR_INVALID_VALUE,
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
		return f2d_decode_fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
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
			return f2d_decode_fail(
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
	if ((size_t)n > (size_t)(d->end - d->p) / PENDING_END_BYTES) {
		return truncated(d, "the pending end events");
	}
	if (!d->apply && !f2d_grow(w, (void **)&e->pending, &e->pending_capacity, (int32_t)n,
	                           sizeof(f2d_pending_end))) {
		return f2d_decode_fail(d, F2D_ERROR_OUT_OF_MEMORY, "allocator returned NULL");
	}
	for (uint32_t i = 0; i < n; ++i) {
		f2d_pending_end p;
#define GET(kind, field) p.field = rd_##kind(d);
		PENDING_END_RECORD(GET)
#undef GET
		if (d->apply) {
			e->pending[i] = p;
			continue;
		}
		if (p.sensor > 1 || p.a < 0 || p.b < 0 || p.a >= d->next[1] || p.b >= d->next[1] ||
		    p.a == p.b || (p.sensor == 0 && p.a > p.b) || p.gen_a == 0 || p.gen_b == 0) {
			return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
			                       "pending end event %u is malformed", (unsigned)i);
		}
	}
	if (d->apply) {
		e->pending_count = (int32_t)n;
	}
	return true;
}

/* substep_count as f2d_create_world accepts it (with the time step read before), and the
 * bodies' velocities within what that solver leaves (see body_values_ok) */
static bool substeps_ok(decoder *d, uint32_t substeps)
{
	if (substeps > F2D_MAX_SUBSTEPS ||
	    (substeps > 0 && (int64_t)d->time_step < 65 * (int64_t)substeps)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "substep_count %u: must be in [0, 8], each substep at least "
		                       "1/1000 s (time_step %d LSB)",
		                       (unsigned)substeps, (int)d->time_step);
	}
	if (substeps == 0 && d->fast_body >= 0) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "body %d: velocity out of range of the Gauss-Seidel step "
		                       "(substep_count 0)",
		                       (int)d->fast_body);
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
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "hit_event_threshold out of range");
	}
	if (!decode_body_options(d) || !avail(d, 12) || !decode_shape_options(d) || !avail(d, 8) ||
	    !decode_overlaps(d) || !avail(d, 4) || !decode_pending(d)) {
		return d->result != F2D_OK ? false : truncated(d, "the options");
	}
	/* contact_recycle_distance (format 7; contact.c) */
	if (!avail(d, 4)) {
		return truncated(d, "the options");
	}
	const int32_t recycle = rd_i32(d);
	if (recycle < 0 || recycle > F2D_MILLI(250)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "contact_recycle_distance out of range");
	}
	if (d->apply) {
		w->def.contact_recycle_distance = recycle;
	}
	/* substep_count: always there (portable format 6: a payload cut before it is truncated,
	 * not a world of the Gauss-Seidel solver) */
	if (!avail(d, 4)) {
		return truncated(d, "the options");
	}
	uint32_t substeps = rd_u32(d);
	if (!d->apply && !substeps_ok(d, substeps)) {
		return false;
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
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "sweep order of %u shapes, %d are alive", (unsigned)n,
		                       (int)d->alive[1]);
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
			return f2d_decode_fail(d, F2D_ERROR_INVALID_HANDLE,
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

/* The chain of caches (in-process, snapshot.c encode_caches): u32 0, or u32 1 and the broad
 * phase's block (broadphase.c; the arbiters' manifolds are in their records, snapshot_fast.c).
 * Its values are taken as written (the seal says this library's encoder wrote them from a world
 * whose caches belonged to its state); the lengths and counts are checked so that reading stays
 * within the bytes and the arrays. */
static bool decode_chain(decoder *d)
{
	f2d_world *w = d->w;
	if (d->apply) {
		if (d->chain) {
			d->p += 4;
			f2d_bp_cache_get(w, d->p);
			d->p += d->bp_len;
		} else {
			d->p += 4;
		}
		return true;
	}
	if (!avail(d, 4)) {
		return truncated(d, "the chain of caches");
	}
	uint32_t chain = rd_u32(d);
	if (chain > 1u || (chain == 1u && d->sweep == NO_SWEEP)) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "chain of caches: flag %u (without a sweep order: 0)",
		                       (unsigned)chain);
	}
	d->chain = chain == 1u;
	if (!d->chain) {
		return true;
	}
	d->bp_len = f2d_bp_cache_parse(d->p, (size_t)(d->end - d->p), d->alive[1], d->next[1],
	                               &d->bp_need);
	if (d->bp_len == 0) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "the broad phase's caches: truncated or counts out of range");
	}
	d->p += d->bp_len;
	return true;
}

static bool decode_payload(decoder *d)
{
	/* the in-process form (d->caches): bodies and arbiters as fixed-size records */
	const bool fast = d->caches;
	if (!decode_world(d) || !(fast ? f2d_fast_decode_bodies(d) : f2d_decode_bodies(d)) ||
	    !f2d_decode_shapes(d) || !f2d_decode_joints(d) ||
	    !(fast ? f2d_fast_decode_arbiters(d) : f2d_decode_arbiters(d)) || !decode_options(d)) {
		return false;
	}
	if (d->caches && (!decode_caches(d) || !decode_chain(d))) {
		return false;
	}
	if (!d->apply && d->p != d->end) {
		return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE,
		                       "%zu bytes after the end of the snapshot",
		                       (size_t)(d->end - d->p));
	}
	return true;
}

/* The in-process form: the header's id counts bound the scratch marks (one per id), reserved at
 * once, on the stack for small worlds. */
static f2d_result reserve_marks(f2d_world *w, decoder *d, const uint32_t *counts, size_t len,
                                const char *what, uint32_t *stack_scratch)
{
	/* each slot takes at least 5 bytes: bounded by the length before reserving */
	uint64_t slots = (uint64_t)counts[0] + counts[1] + counts[2];
	if (counts[0] > F2D_MAX_OBJECTS || counts[1] > F2D_MAX_OBJECTS ||
	    counts[2] > F2D_MAX_OBJECTS) {
		return f2d_set_error(w, F2D_ERROR_CAPACITY,
		                     "%s: header counts more than F2D_MAX_OBJECTS ids", what);
	}
	if (slots > len / 5) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: truncated: %llu ids cannot fit in %zu bytes", what,
		                     (unsigned long long)slots, len);
	}
	if (slots <= STACK_SCRATCH) {
		d->scratch_base = stack_scratch;
	} else {
		size_t words = ((size_t)slots * sizeof(uint32_t) + 7) / 8;
		if (!f2d_grow(w, (void **)&w->pairs, &w->pair_capacity, (int32_t)words,
		              sizeof(uint64_t))) {
			return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
			                     "%s: allocator returned NULL", what);
		}
		d->scratch_base = (uint32_t *)(void *)w->pairs;
	}
	d->counts = counts;
	return F2D_OK;
}

/* room for everything the applying pass writes (the counts of the validating pass d) */
static bool grow_for_apply(f2d_world *w, const decoder *d)
{
	return f2d_grow_aligned(w, (void **)&w->bodies, &w->body_capacity, d->next[0],
	                        sizeof(f2d_body)) &&
	       f2d_grow_aligned(w, (void **)&w->shapes, &w->shape_capacity, d->next[1],
	                        sizeof(f2d_shape)) &&
	       f2d_grow_aligned(w, (void **)&w->joints, &w->joint_capacity, d->next[2],
	                        sizeof(f2d_joint)) &&
	       f2d_grow(w, (void **)&w->body_ids.free_ids, &w->body_ids.free_capacity, d->next[0],
	                sizeof(int32_t)) &&
	       f2d_grow(w, (void **)&w->shape_ids.free_ids, &w->shape_ids.free_capacity, d->next[1],
	                sizeof(int32_t)) &&
	       f2d_grow(w, (void **)&w->joint_ids.free_ids, &w->joint_ids.free_capacity, d->next[2],
	                sizeof(int32_t)) &&
	       (d->sweep == NO_SWEEP || f2d_grow(w, (void **)&w->sweep, &w->sweep_capacity,
	                                         (int32_t)d->sweep, sizeof(int32_t))) &&
	       (!d->chain || f2d_bp_cache_grow(w, &d->bp_need));
}

f2d_result f2d_snapshot_load_payload(f2d_world *w, const uint8_t *payload, size_t len,
                                     const uint32_t *counts, const char *what)
{
	bool caches = counts != NULL; /* the in-process form */
	uint32_t stack_scratch[STACK_SCRATCH];
	decoder d;
	memset(&d, 0, sizeof d);
	if (counts != NULL) {
		f2d_result r = reserve_marks(w, &d, counts, len, what, stack_scratch);
		if (r != F2D_OK) {
			return r;
		}
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
	if (!grow_for_apply(w, &d)) {
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
	a.chain = d.chain;
	a.bp_len = d.bp_len;
	decode_payload(&a); /* cannot fail: every check passed above */
	f2d_hash_shapes_changed(w); /* shape slots and options were rewritten */
	if (!caches) {
		w->sweep_dirty = true;
	}
	/* manifolds, AABBs and pairs are not in portable snapshots; an in-process one brings them
	 * back when the saving world's chain held (decode_chain), and the next step is an
	 * ordinary incremental one */
	w->contacts_stale = !a.chain;
	w->query_epoch++;
	return F2D_OK;
}
