/* fix2d snapshots: in-process save/restore/clone for rollback, the portable byte form, the
 * sync test. The format is described in include/fix2d/snapshot.h.
 * SPDX-License-Identifier: MIT
 *
 * One encoding of the state serves both forms: explicit fields, little-endian, never struct
 * memory. Writing never allocates (records go straight into the caller's buffer). Reading runs
 * twice over the bytes: a validating pass that writes nothing into the world (its bookkeeping,
 * one mark per id, lives on the stack for small worlds, else in the world's pair scratch buffer,
 * which the next step overwrites anyway; the in-process header carries the id counts so that it
 * is reserved at once), then, once everything is known to be good and the arrays are large
 * enough, an applying pass that cannot fail. So a refused snapshot leaves the world as it was,
 * and a restore into a world whose arrays are large enough allocates nothing.
 *
 * Derived state is not stored but rebuilt: inverse mass and inertia (exactly as body.c computes
 * them), the shape lists of bodies (kept in id order by body.c), the joint counts of bodies,
 * the bodies of arbiters, the object counts, 1/h.
 *
 * When a field is added to a struct in core.h: store it here (encoder and decoder, with its
 * validation), bump F2D_SNAPSHOT_FORMAT_VERSION if it changes the portable payload, and update
 * the sizes recorded in tests/test_snapshot.c (struct_sizes_are_known), which fails until then.
 */
#include "core.h"
#include "fix2d/snapshot.h"

#include <stdarg.h>
#include <stdio.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ==== LEAD: math-flavour fingerprint placeholder. When fix2d.h declares
 * `uint64_t f2d_fingerprint(void)`, make this function return f2d_fingerprint(); nothing else
 * in the snapshot code needs to change. ==== */
static uint64_t snapshot_fingerprint(void)
{
	return f2d_fingerprint(); /* engine format version + libfixmath flavour */
}

#define PORTABLE_MAGIC "fix2dsnp"
#define MEMORY_MAGIC "fix2dmem"
#define MEMORY_VERSION 1u
#define PORTABLE_HEADER 40
#define MEMORY_HEADER 40
#define STACK_SCRATCH 1024 /* marks: restores of small worlds need no scratch buffer */
#define NO_SWEEP 0xFFFFFFFFu
#define MAX_RECORD 128 /* longest record below is 5 + 72 + 8 + ... < 100 bytes */

/* body record flags */
#define BF_ALIVE 1u
#define BF_TYPE_SHIFT 1
#define BF_MOVING 8u
#define BF_FORCE 16u
#define BF_USER 32u
#define BF_SAME_MASS 64u
/* shape record flags */
#define SF_ALIVE 1u
#define SF_POLYGON 2u
#define SF_USER 4u
#define SF_SAME_GEOMETRY 8u
#define SF_SAME_MATERIAL 16u
/* joint record flags */
#define JF_ALIVE 1u
#define JF_LIMIT 2u
#define JF_MOTOR 4u
#define JF_COLLIDE 8u
#define JF_USER 16u

/* Loaded positions: statics and kinematics stay within the world limit (the step clamps the
 * centre of a moving body); a dynamic body's origin trails its clamped centre by its local centre
 * and joint projection may push the centre a little past the edge. */
#define DYNAMIC_POSITION_SLACK F2D_FIX(128)
/* Rotations out of the step are unit to ~2^-14; loaded ones must be within 2^-12. */
#define ROT_TOLERANCE ((int64_t)1 << 20)
/* Speeds a user may set (body.c) */
#define SET_SPEED_LIMIT F2D_FIX(4096)

/* ---- little-endian writing ---- */

static inline uint8_t *put_u8(uint8_t *p, uint32_t v)
{
	*p = (uint8_t)v;
	return p + 1;
}
static inline uint8_t *put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	return p + 4;
}
static inline uint8_t *put_i32(uint8_t *p, int32_t v)
{
	return put_u32(p, (uint32_t)v);
}
static inline uint8_t *put_u64(uint8_t *p, uint64_t v)
{
	return put_u32(put_u32(p, (uint32_t)v), (uint32_t)(v >> 32));
}
static inline uint8_t *put_vec(uint8_t *p, f2d_vec2 v)
{
	return put_i32(put_i32(p, v.x), v.y);
}

/* ---- little-endian reading (the caller has checked the length) ---- */

static inline uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}
static inline uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | ((uint64_t)get_u32(p + 4) << 32);
}
/* two's complement without implementation-defined conversions */
static inline int32_t u2i(uint32_t u)
{
	return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

/* ---- encoder ---- */

/* Writes records into [p, end); when a record does not fit it switches to measuring (p = NULL)
 * so that one pass gives either the bytes or the length needed. Measuring alone: p = NULL. */
typedef struct encoder {
	uint8_t *p, *end;
	size_t n;
	bool overflow;
	uint8_t tmp[MAX_RECORD];
} encoder;

static inline uint8_t *rec_begin(encoder *e)
{
	return (e->p != NULL && (size_t)(e->end - e->p) >= MAX_RECORD) ? e->p : e->tmp;
}

static inline void rec_end(encoder *e, uint8_t *start, uint8_t *stop)
{
	size_t len = (size_t)(stop - start);
	e->n += len;
	if (e->p == NULL) {
		return;
	}
	if (start == e->tmp) {
		if ((size_t)(e->end - e->p) < len) {
			e->overflow = true;
			e->p = NULL;
			return;
		}
		memcpy(e->p, e->tmp, len);
	}
	e->p += len;
}

static void put_ids(encoder *e, const int32_t *ids, int32_t n)
{
	for (int32_t i = 0; i < n; i += 16) {
		int32_t m = n - i < 16 ? n - i : 16;
		uint8_t *s = rec_begin(e), *q = s;
		for (int32_t k = 0; k < m; ++k) {
			q = put_i32(q, ids[i + k]);
		}
		rec_end(e, s, q);
	}
}

static void put_word(encoder *e, uint32_t v)
{
	uint8_t *s = rec_begin(e);
	rec_end(e, s, put_u32(s, v));
}

static bool mass_equal(const f2d_body *a, const f2d_body *b)
{
	return a->mass == b->mass && a->inertia == b->inertia &&
	       a->local_center.x == b->local_center.x && a->local_center.y == b->local_center.y;
}

static bool geometry_equal(const f2d_shape *a, const f2d_shape *b)
{
	if (a->type != b->type) {
		return false;
	}
	if (a->type == F2D_CIRCLE_SHAPE) {
		return a->circle.center.x == b->circle.center.x &&
		       a->circle.center.y == b->circle.center.y &&
		       a->circle.radius == b->circle.radius;
	}
	if (a->polygon.count != b->polygon.count) {
		return false;
	}
	for (int32_t i = 0; i < a->polygon.count; ++i) {
		if (a->polygon.vertices[i].x != b->polygon.vertices[i].x ||
		    a->polygon.vertices[i].y != b->polygon.vertices[i].y) {
			return false;
		}
	}
	return true;
}

static bool material_equal(const f2d_shape *a, const f2d_shape *b)
{
	return a->density == b->density && a->friction == b->friction &&
	       a->restitution == b->restitution;
}

static void encode_world(encoder *e, const f2d_world *w)
{
	const f2d_world_def *d = &w->def;
	uint8_t *s = rec_begin(e), *p = s;
	p = put_u64(p, w->step_count);
	p = put_vec(p, w->gravity);
	p = put_i32(p, w->h);
	p = put_i32(p, d->iterations);
	p = put_i32(p, d->joint_position_iterations);
	p = put_i32(p, d->bias_factor);
	p = put_i32(p, d->linear_slop);
	p = put_i32(p, d->speculative_distance);
	p = put_i32(p, d->restitution_threshold);
	p = put_i32(p, d->max_translation);
	p = put_i32(p, d->max_rotation);
	p = put_u8(p, d->warm_starting ? 1u : 0u);
	p = put_i32(p, d->body_capacity);
	p = put_i32(p, d->contact_capacity);
	p = put_u64(p, w->out_of_range_events);
	p = put_u64(p, w->overflow_events);
	p = put_i32(p, w->last_out_of_range_body);
	rec_end(e, s, p);
}

static void encode_pool_tail(encoder *e, const f2d_id_pool *pool)
{
	put_word(e, (uint32_t)pool->free_count);
	put_ids(e, pool->free_ids, pool->free_count);
}

static void encode_bodies(encoder *e, const f2d_world *w)
{
	put_word(e, (uint32_t)w->body_ids.next);
	const f2d_body *prev = NULL; /* previous live dynamic body */
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		uint8_t *s = rec_begin(e), *p = put_u32(s, b->generation);
		if (!b->alive) {
			rec_end(e, s, put_u8(p, 0));
			continue;
		}
		bool dynamic = b->type == F2D_DYNAMIC_BODY;
		bool moving = b->v.x != 0 || b->v.y != 0 || b->w != 0;
		bool force = b->force.x != 0 || b->force.y != 0 || b->torque != 0;
		bool same = dynamic && prev != NULL && mass_equal(b, prev);
		uint32_t flags = BF_ALIVE | ((uint32_t)b->type << BF_TYPE_SHIFT) |
		                 (moving ? BF_MOVING : 0u) | (force ? BF_FORCE : 0u) |
		                 (b->user_data != 0 ? BF_USER : 0u) | (same ? BF_SAME_MASS : 0u);
		p = put_u8(p, flags);
		p = put_vec(p, b->origin);
		p = put_i32(p, b->q.c);
		p = put_i32(p, b->q.s);
		p = put_vec(p, b->center);
		if (moving) {
			p = put_vec(p, b->v);
			p = put_i32(p, b->w);
		}
		if (force) {
			p = put_vec(p, b->force);
			p = put_i32(p, b->torque);
		}
		if (dynamic && !same) {
			p = put_i32(p, b->mass);
			p = put_i32(p, b->inertia);
			p = put_vec(p, b->local_center);
		}
		if (b->user_data != 0) {
			p = put_u64(p, b->user_data);
		}
		if (dynamic) {
			prev = b;
		}
		rec_end(e, s, p);
	}
	encode_pool_tail(e, &w->body_ids);
}

static void encode_shapes(encoder *e, const f2d_world *w)
{
	put_word(e, (uint32_t)w->shape_ids.next);
	const f2d_shape *prev = NULL; /* previous live shape */
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		const f2d_shape *sh = &w->shapes[i];
		uint8_t *s = rec_begin(e), *p = put_u32(s, sh->generation);
		if (!sh->alive) {
			rec_end(e, s, put_u8(p, 0));
			continue;
		}
		bool same_geometry = prev != NULL && geometry_equal(sh, prev);
		bool same_material = prev != NULL && material_equal(sh, prev);
		uint32_t flags = SF_ALIVE | (sh->type == F2D_POLYGON_SHAPE ? SF_POLYGON : 0u) |
		                 (sh->user_data != 0 ? SF_USER : 0u) |
		                 (same_geometry ? SF_SAME_GEOMETRY : 0u) |
		                 (same_material ? SF_SAME_MATERIAL : 0u);
		p = put_u8(p, flags);
		p = put_i32(p, sh->body);
		if (!same_material) {
			p = put_i32(p, sh->density);
			p = put_i32(p, sh->friction);
			p = put_i32(p, sh->restitution);
		}
		if (!same_geometry) {
			if (sh->type == F2D_POLYGON_SHAPE) {
				p = put_u8(p, (uint32_t)sh->polygon.count);
				for (int32_t k = 0; k < sh->polygon.count; ++k) {
					p = put_vec(p, sh->polygon.vertices[k]);
				}
			} else {
				p = put_vec(p, sh->circle.center);
				p = put_i32(p, sh->circle.radius);
			}
		}
		if (sh->user_data != 0) {
			p = put_u64(p, sh->user_data);
		}
		prev = sh;
		rec_end(e, s, p);
	}
	encode_pool_tail(e, &w->shape_ids);
}

static void encode_joints(encoder *e, const f2d_world *w)
{
	put_word(e, (uint32_t)w->joint_ids.next);
	for (int32_t i = 0; i < w->joint_ids.next; ++i) {
		const f2d_joint *j = &w->joints[i];
		uint8_t *s = rec_begin(e), *p = put_u32(s, j->generation);
		if (!j->alive) {
			rec_end(e, s, put_u8(p, 0));
			continue;
		}
		uint32_t flags = JF_ALIVE | (j->enable_limit ? JF_LIMIT : 0u) |
		                 (j->enable_motor ? JF_MOTOR : 0u) |
		                 (j->collide_connected ? JF_COLLIDE : 0u) |
		                 (j->user_data != 0 ? JF_USER : 0u);
		p = put_u8(p, flags);
		p = put_i32(p, j->body_a);
		p = put_i32(p, j->body_b);
		p = put_vec(p, j->local_a);
		p = put_vec(p, j->local_b);
		p = put_i32(p, j->reference_angle);
		p = put_i32(p, j->lower);
		p = put_i32(p, j->upper);
		p = put_i32(p, j->motor_speed);
		p = put_i32(p, j->max_motor_torque);
		p = put_vec(p, j->impulse);
		p = put_i32(p, j->motor_impulse);
		p = put_i32(p, j->lower_impulse);
		p = put_i32(p, j->upper_impulse);
		if (j->user_data != 0) {
			p = put_u64(p, j->user_data);
		}
		rec_end(e, s, p);
	}
	encode_pool_tail(e, &w->joint_ids);
}

static void encode_arbiters(encoder *e, const f2d_world *w)
{
	put_word(e, (uint32_t)w->arbiter_count);
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		uint8_t *s = rec_begin(e), *p = s;
		p = put_i32(p, a->shape_a);
		p = put_i32(p, a->shape_b);
		p = put_i32(p, a->friction);
		p = put_i32(p, a->restitution);
		p = put_u8(p, (uint32_t)a->count);
		for (int32_t k = 0; k < a->count; ++k) {
			p = put_u32(p, a->points[k].id);
			p = put_i32(p, a->points[k].pn);
			p = put_i32(p, a->points[k].pt);
		}
		rec_end(e, s, p);
	}
}

static void encode_caches(encoder *e, const f2d_world *w)
{
	bool valid = !w->sweep_dirty && w->sweep_count == w->shape_count;
	put_word(e, valid ? (uint32_t)w->sweep_count : NO_SWEEP);
	if (valid) {
		put_ids(e, w->sweep, w->sweep_count);
	}
}

/* Encodes the payload (and in-process caches); fills the section sizes when asked. */
static void encode_payload(encoder *e, const f2d_world *w, bool portable, f2d_snapshot_layout *l)
{
	size_t n0 = e->n;
	encode_world(e, w);
	size_t n1 = e->n;
	encode_bodies(e, w);
	size_t n2 = e->n;
	encode_shapes(e, w);
	size_t n3 = e->n;
	encode_joints(e, w);
	size_t n4 = e->n;
	encode_arbiters(e, w);
	size_t n5 = e->n;
	if (!portable) {
		encode_caches(e, w);
	}
	if (l != NULL) {
		l->world = n1 - n0;
		l->bodies = n2 - n1;
		l->shapes = n3 - n2;
		l->joints = n4 - n3;
		l->arbiters = n5 - n4;
		l->caches = e->n - n5;
	}
}

/* Header + payload into buffer (or measuring when buffer is NULL). Returns the total length;
 * *fits is false when the buffer was too small. */
static size_t encode_all(const f2d_world *w, bool portable, uint8_t *buffer, size_t capacity,
                         bool *fits, f2d_snapshot_layout *layout)
{
	size_t header = portable ? PORTABLE_HEADER : MEMORY_HEADER;
	encoder e;
	e.n = 0;
	e.overflow = false;
	e.p = NULL;
	e.end = NULL;
	if (buffer != NULL && capacity >= header) {
		e.p = buffer + header;
		e.end = buffer + capacity;
	} else if (buffer != NULL) {
		e.overflow = true;
	}
	encode_payload(&e, w, portable, layout);
	size_t total = header + e.n;
	if (layout != NULL) {
		layout->header = header;
		layout->total = total;
	}
	*fits = buffer != NULL && !e.overflow;
	if (!*fits) {
		return total;
	}
	uint8_t *p = buffer;
	if (portable) {
		memcpy(p, PORTABLE_MAGIC, 8);
		p = put_u32(p + 8, F2D_SNAPSHOT_FORMAT_VERSION);
		p = put_u32(p, 0);
		p = put_u64(p, snapshot_fingerprint());
		p = put_u64(p, (uint64_t)e.n);
		put_u64(p, XXH3_64bits(buffer + header, e.n));
	} else {
		memcpy(p, MEMORY_MAGIC, 8);
		p = put_u32(p + 8, MEMORY_VERSION);
		p = put_u32(p, 0);
		p = put_u64(p, (uint64_t)e.n);
		/* the id counts, so that a restore reserves its bookkeeping at once */
		p = put_u32(p, (uint32_t)w->body_ids.next);
		p = put_u32(p, (uint32_t)w->shape_ids.next);
		p = put_u32(p, (uint32_t)w->joint_ids.next);
		put_u32(p, 0);
	}
	return total;
}

static f2d_result save(f2d_world *w, bool portable, void *buffer, size_t capacity, size_t *written)
{
	const char *what = portable ? "snapshot_save_portable" : "snapshot_save";
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (written == NULL || (buffer == NULL && capacity > 0)) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "%s: written (and buffer when capacity > 0) are required",
		                     what);
	}
	bool fits;
	size_t total = encode_all(w, portable, buffer, capacity, &fits, NULL);
	*written = total;
	if (!fits) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: the buffer holds %zu bytes, the snapshot needs %zu", what,
		                     capacity, total);
	}
	return F2D_OK;
}

size_t f2d_snapshot_size(const f2d_world *w)
{
	bool fits;
	return w == NULL ? 0 : encode_all(w, false, NULL, 0, &fits, NULL);
}

size_t f2d_snapshot_portable_size(const f2d_world *w)
{
	bool fits;
	return w == NULL ? 0 : encode_all(w, true, NULL, 0, &fits, NULL);
}

f2d_result f2d_snapshot_save(f2d_world *w, void *buffer, size_t capacity, size_t *written)
{
	return save(w, false, buffer, capacity, written);
}

f2d_result f2d_snapshot_save_portable(f2d_world *w, void *buffer, size_t capacity, size_t *written)
{
	return save(w, true, buffer, capacity, written);
}

f2d_result f2d_snapshot_measure(const f2d_world *w, bool portable, f2d_snapshot_layout *out)
{
	if (w == NULL || out == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	bool fits;
	memset(out, 0, sizeof *out);
	encode_all(w, portable, NULL, 0, &fits, out);
	return F2D_OK;
}

/* ---- decoder ---- */

/* Validating pass bookkeeping, one mark per id (on the stack or in the world's pair scratch
 * buffer): body: 0 dead, 1 + type alive; shape: 0 dead, 1 + body alive (the bodies of the
 * arbiters are read from it); joint: 0 dead, 1 alive; FREE_MARK: a dead id met in the free
 * list; SWEEP_MARK: a live shape met in the sweep order. */
#define FREE_MARK 0x80000000u
#define SWEEP_MARK 0x40000000u

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
	fix16_t vmax, wmax;
	int32_t last_oor;
	/* counts (known after the validating pass) */
	int32_t next[3], alive[3];
	int32_t arbiter_count;
	uint32_t sweep; /* NO_SWEEP or the sweep length */
	/* running state of both passes */
	const uint8_t *mass_prev;      /* previous live dynamic body's mass record */
	fix16_t inv_mass, inv_inertia; /* and its inverses (applying pass) */
	f2d_shape geometry;            /* previous live shape's geometry and material */
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

static bool no_min(fix16_t v)
{
	return v != INT32_MIN;
}

static bool within(fix16_t v, fix16_t limit)
{
	return v >= -limit && v <= limit;
}

static bool vec_within(f2d_vec2 v, fix16_t limit)
{
	return within(v.x, limit) && within(v.y, limit);
}

static bool rot_unit(f2d_rot q)
{
	if (!within(q.c, 2 * F2D_ONE) || !within(q.s, 2 * F2D_ONE)) {
		return false;
	}
	int64_t len2 = (int64_t)q.c * q.c + (int64_t)q.s * q.s - ((int64_t)1 << 32);
	return len2 >= -ROT_TOLERANCE && len2 <= ROT_TOLERANCE;
}

static fix16_t speed_bound(fix16_t per_step, fix16_t h)
{
	int64_t v = 2 * (((int64_t)per_step << 16) / h);
	if (v < SET_SPEED_LIMIT) {
		v = SET_SPEED_LIMIT;
	}
	return v > INT32_MAX ? INT32_MAX : (fix16_t)v;
}

static bool decode_world(decoder *d)
{
	const size_t len = 8 + 4 * 13 + 1 + 8 + 8 + 4;
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
	def.body_capacity = rd_i32(d);
	def.contact_capacity = rd_i32(d);
	uint64_t oor = rd_u64(d), ovf = rd_u64(d);
	int32_t last = rd_i32(d);
	if (!d->apply) {
		const char *problem = f2d_world_def_problem(&def);
		if (problem != NULL) {
			return fail(d, F2D_ERROR_INVALID_VALUE, "settings: %s", problem);
		}
		if (warm > 1) {
			return fail(d, F2D_ERROR_INVALID_VALUE, "settings: warm_starting is %u",
			            (unsigned)warm);
		}
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
	if ((size_t)n > (size_t)(d->end - d->p) / 5) {
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
		if (!scratch_reserve(d, (size_t)n, &d->body_off)) {
			return false;
		}
	} else {
		clear_slots(w->bodies, sizeof(f2d_body), n, w->body_ids.next);
		w->body_ids.next = n;
	}
	d->mass_prev = NULL;
	const fix16_t limit = F2D_WORLD_LIMIT;
	for (int32_t i = 0; i < n; ++i) {
		if (!avail(d, 5)) {
			return truncated(d, "a body");
		}
		uint32_t gen = rd_u32(d);
		uint32_t flags = rd_u8(d);
		uint32_t type = (flags >> BF_TYPE_SHIFT) & 3u;
		bool alive = (flags & BF_ALIVE) != 0;
		bool dynamic = type == F2D_DYNAMIC_BODY;
		bool same = (flags & BF_SAME_MASS) != 0;
		bool mass_rec = alive && dynamic && !same;
		size_t len = alive ? 24 : 0;
		len += (flags & BF_MOVING) ? 12 : 0;
		len += (flags & BF_FORCE) ? 12 : 0;
		len += mass_rec ? 16 : 0;
		len += (flags & BF_USER) ? 8 : 0;
		if (!d->apply) {
			if (gen == 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "body %d: generation 0",
				            (int)i);
			}
			if (!alive && flags != 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "dead body %d has flags %u",
				            (int)i, (unsigned)flags);
			}
			if (alive && (type > F2D_DYNAMIC_BODY || (flags & 0x80u) != 0)) {
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
			if (alive && same && d->mass_prev == NULL) {
				return fail(
				    d, F2D_ERROR_INVALID_VALUE,
				    "body %d: same mass as a previous body that does not exist",
				    (int)i);
			}
		}
		if (!avail(d, len)) {
			return truncated(d, "a body");
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
		b->v = f2d_v(0, 0);
		b->w = 0;
		b->force = f2d_v(0, 0);
		b->torque = 0;
		b->mass = b->inv_mass = b->inertia = b->inv_inertia = 0;
		b->local_center = f2d_v(0, 0);
		b->user_data = 0;
		if (!alive) {
			b->origin = b->center = f2d_v(0, 0);
			b->q.c = b->q.s = 0;
		} else {
			b->origin = rd_vec(d);
			b->q.c = rd_i32(d);
			b->q.s = rd_i32(d);
			b->center = rd_vec(d);
			if (flags & BF_MOVING) {
				b->v = rd_vec(d);
				b->w = rd_i32(d);
			}
			if (flags & BF_FORCE) {
				b->force = rd_vec(d);
				b->torque = rd_i32(d);
			}
			const uint8_t *mass_at = d->p;
			if (dynamic) {
				const uint8_t *m = mass_rec ? mass_at : d->mass_prev;
				b->mass = u2i(get_u32(m));
				b->inertia = u2i(get_u32(m + 4));
				b->local_center.x = u2i(get_u32(m + 8));
				b->local_center.y = u2i(get_u32(m + 12));
				if (mass_rec) {
					d->p += 16;
				}
			}
			if (flags & BF_USER) {
				b->user_data = rd_u64(d);
			}
			if (!d->apply) {
				fix16_t plim = dynamic ? limit + DYNAMIC_POSITION_SLACK : limit;
				if (!vec_within(b->origin, plim) || !vec_within(b->center, plim)) {
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
					if (d->mass_prev != NULL &&
					    memcmp(mass_at, d->mass_prev, 16) == 0) {
						return fail(
						    d, F2D_ERROR_INVALID_VALUE,
						    "body %d: repeated mass not marked as such "
						    "(not canonical)",
						    (int)i);
					}
				}
			}
			if (dynamic) {
				if (mass_rec) {
					d->mass_prev = mass_at;
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

static bool circle_ok(const f2d_circle *c)
{
	return c->radius >= F2D_MIN_SHAPE_SIZE && c->radius <= F2D_MAX_SHAPE_EXTENT &&
	       vec_within(c->center, F2D_MAX_SHAPE_EXTENT) &&
	       (int64_t)f2d_length(c->center) + c->radius <= F2D_MAX_SHAPE_EXTENT;
}

static bool decode_shapes(decoder *d)
{
	f2d_world *w = d->w;
	if (!decode_next(d, 1, "shapes")) {
		return false;
	}
	int32_t n = d->next[1];
	if (!d->apply) {
		if (!scratch_reserve(d, (size_t)n, &d->shape_off)) {
			return false;
		}
	} else {
		clear_slots(w->shapes, sizeof(f2d_shape), n, w->shape_ids.next);
		w->shape_ids.next = n;
	}
	d->have_shape = false;
	for (int32_t i = 0; i < n; ++i) {
		if (!avail(d, 5)) {
			return truncated(d, "a shape");
		}
		uint32_t gen = rd_u32(d);
		uint32_t flags = rd_u8(d);
		bool alive = (flags & SF_ALIVE) != 0;
		bool polygon = (flags & SF_POLYGON) != 0;
		bool same_geometry = (flags & SF_SAME_GEOMETRY) != 0;
		bool same_material = (flags & SF_SAME_MATERIAL) != 0;
		if (!d->apply) {
			if (gen == 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "shape %d: generation 0",
				            (int)i);
			}
			if ((!alive && flags != 0) || (flags & ~31u) != 0) {
				return fail(d, F2D_ERROR_INVALID_VALUE, "shape %d: bad flags %u",
				            (int)i, (unsigned)flags);
			}
			if ((same_geometry || same_material) && !d->have_shape) {
				return fail(
				    d, F2D_ERROR_INVALID_VALUE,
				    "shape %d: same as a previous shape that does not exist",
				    (int)i);
			}
			if (same_geometry &&
			    d->geometry.type != (polygon ? F2D_POLYGON_SHAPE : F2D_CIRCLE_SHAPE)) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "shape %d: same geometry as a shape of another type",
				            (int)i);
			}
		}
		f2d_shape *s = d->apply ? &w->shapes[i] : NULL;
		if (!alive) {
			if (s != NULL) {
				memset(s, 0, sizeof *s);
				s->generation = gen;
				s->next = F2D_NULL_INDEX;
			} else {
				scratch(d, d->shape_off)[i] = 0;
			}
			continue;
		}
		size_t len = 4 + (same_material ? 0 : 12);
		if (!avail(d, len)) {
			return truncated(d, "a shape");
		}
		uint32_t body = rd_u32(d);
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
			if (polygon) {
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
			s->generation = gen;
			s->alive = true;
			s->type = g->type;
			s->body = (int32_t)body;
			s->next = F2D_NULL_INDEX;
			if (!keep) {
				memset(&s->polygon, 0, sizeof s->polygon);
				memset(&s->circle, 0, sizeof s->circle);
				if (g->type == F2D_POLYGON_SHAPE) {
					s->polygon = g->polygon;
				} else {
					s->circle = g->circle;
				}
			}
			s->density = density;
			s->friction = friction;
			s->restitution = restitution;
			s->user_data = user;
		}
	}
	if (!d->apply) {
		return decode_free_list(d, 1, d->shape_off, NULL, "shape");
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

static bool anchor_ok(f2d_vec2 p, uint32_t body_type)
{
	return vec_within(p, body_type == 1 + F2D_STATIC_BODY ? 2 * F2D_WORLD_LIMIT
	                                                      : 2 * F2D_MAX_DYNAMIC_SHAPE_EXTENT);
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
		if (!d->apply && (gen == 0 || (!alive && flags != 0) || (flags & ~31u) != 0)) {
			return fail(d, F2D_ERROR_INVALID_VALUE, "joint %d: bad generation or flags",
			            (int)i);
		}
		f2d_joint j;
		memset(&j, 0, sizeof j);
		j.generation = gen;
		if (alive) {
			size_t need = len + ((flags & JF_USER) ? 8 : 0);
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
				if (!anchor_ok(j.local_a, ta) || !anchor_ok(j.local_b, tb) ||
				    !within(j.reference_angle, F2D_PI) ||
				    !within(j.lower, F2D_PI) || !within(j.upper, F2D_PI) ||
				    (j.enable_limit && j.lower > j.upper) ||
				    j.max_motor_torque < 0 ||
				    !within(j.motor_speed, F2D_FIX(1000)) || !no_min(j.impulse.x) ||
				    !no_min(j.impulse.y) || !no_min(j.motor_impulse) ||
				    j.lower_impulse < 0 || j.upper_impulse < 0 ||
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
	/* at least 29 bytes each */
	if ((size_t)n > (size_t)(d->end - d->p) / 29) {
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
	uint64_t prev_key = 0;
	for (uint32_t i = 0; i < n; ++i) {
		if (!avail(d, 17)) {
			return truncated(d, "an arbiter");
		}
		uint32_t sa = rd_u32(d), sb = rd_u32(d);
		fix16_t friction = rd_i32(d), restitution = rd_i32(d);
		uint32_t count = rd_u8(d);
		uint64_t key = ((uint64_t)sa << 32) | sb;
		if (sa >= sb || sb >= (uint32_t)d->next[1] || !shape_live(marks[sa]) ||
		    !shape_live(marks[sb])) {
			return fail(d, F2D_ERROR_INVALID_HANDLE,
			            "arbiter %u: shapes %u, %u are not two live shapes in order",
			            (unsigned)i, (unsigned)sa, (unsigned)sb);
		}
		if (i > 0 && key <= prev_key) {
			return fail(d, F2D_ERROR_INVALID_VALUE,
			            "arbiter %u: not in (shape a, shape b) order", (unsigned)i);
		}
		prev_key = key;
		if (friction < 0 || friction > F2D_FIX(4) || restitution < 0 ||
		    restitution > F2D_ONE || count < 1 || count > 2) {
			return fail(d, F2D_ERROR_INVALID_VALUE,
			            "arbiter %u: friction, restitution or point count out of range",
			            (unsigned)i);
		}
		if (!avail(d, (size_t)count * 12)) {
			return truncated(d, "an arbiter");
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
		for (uint32_t k = 0; k < count; ++k) { /* points past count are never read */
			f2d_contact_point *cp = &a->points[k];
			cp->id = rd_u32(d);
			cp->pn = rd_i32(d);
			cp->pt = rd_i32(d);
			if (cp->pn < 0 || !no_min(cp->pt)) {
				return fail(d, F2D_ERROR_INVALID_VALUE,
				            "arbiter %u: impulse out of range", (unsigned)i);
			}
		}
	}
	d->arbiters_end = d->p;
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
	    !decode_arbiters(d)) {
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

/* Validates the payload, makes room, applies it. The world is unchanged unless it returns OK
 * (grown arrays and scratch are not state). */
static f2d_result load_payload(f2d_world *w, const uint8_t *payload, size_t len,
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
	return F2D_OK;
}

/* ---- public: restore and load ---- */

f2d_result f2d_snapshot_restore(f2d_world *w, const void *snapshot, size_t size)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (snapshot == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "snapshot_restore: snapshot is NULL");
	}
	const uint8_t *b = snapshot;
	if (size < MEMORY_HEADER) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "snapshot_restore: truncated: %zu bytes, the header has %d",
		                     size, MEMORY_HEADER);
	}
	if (memcmp(b, MEMORY_MAGIC, 8) != 0) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    memcmp(b, PORTABLE_MAGIC, 8) == 0
		        ? "snapshot_restore: a portable snapshot: use f2d_snapshot_load"
		        : "snapshot_restore: not an in-process snapshot (bad magic)");
	}
	if (get_u32(b + 8) != MEMORY_VERSION || get_u32(b + 12) != 0) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "snapshot_restore: in-process snapshot of another library version");
	}
	uint64_t len = get_u64(b + 16);
	if (len != size - MEMORY_HEADER) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "snapshot_restore: length field says %llu payload bytes, %zu given",
		    (unsigned long long)len, size - MEMORY_HEADER);
	}
	uint32_t counts[3] = {get_u32(b + 24), get_u32(b + 28), get_u32(b + 32)};
	if (get_u32(b + 36) != 0) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "snapshot_restore: reserved header field is not 0");
	}
	return load_payload(w, b + MEMORY_HEADER, (size_t)len, counts, "snapshot_restore");
}

/* Header checks of the portable form: magic, version, fingerprint, lengths, checksum. */
static f2d_result check_portable_header(f2d_world *w, const uint8_t *b, size_t size)
{
	const char *what = "snapshot_load";
	if (size < PORTABLE_HEADER) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: truncated: %zu bytes, the header has %d", what, size,
		                     PORTABLE_HEADER);
	}
	if (memcmp(b, PORTABLE_MAGIC, 8) != 0) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     memcmp(b, MEMORY_MAGIC, 8) == 0
		                         ? "%s: an in-process snapshot: use f2d_snapshot_restore"
		                         : "%s: not a fix2d snapshot (bad magic)",
		                     what);
	}
	uint32_t version = get_u32(b + 8);
	if (version != F2D_SNAPSHOT_FORMAT_VERSION) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: format version %u, this build reads version %d", what,
		                     (unsigned)version, F2D_SNAPSHOT_FORMAT_VERSION);
	}
	if (get_u32(b + 12) != 0) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: reserved header field is not 0", what);
	}
	uint64_t fingerprint = get_u64(b + 16);
	if (fingerprint != snapshot_fingerprint()) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "%s: math-flavour fingerprint %016llx differs from this build's "
		    "%016llx",
		    what, (unsigned long long)fingerprint,
		    (unsigned long long)snapshot_fingerprint());
	}
	uint64_t len = get_u64(b + 24);
	if (len != size - PORTABLE_HEADER) {
		return f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    len > size - PORTABLE_HEADER
		        ? "%s: truncated: the header announces %llu payload bytes, "
		          "%zu given"
		        : "%s: the header announces %llu payload bytes, %zu given "
		          "(trailing bytes)",
		    what, (unsigned long long)len, size - PORTABLE_HEADER);
	}
	uint64_t sum = get_u64(b + 32);
	uint64_t actual = XXH3_64bits(b + PORTABLE_HEADER, (size_t)len);
	if (sum != actual) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: checksum mismatch (header %016llx, payload %016llx)",
		                     what, (unsigned long long)sum, (unsigned long long)actual);
	}
	return F2D_OK;
}

f2d_result f2d_snapshot_load(f2d_world *w, const void *bytes, size_t size)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (bytes == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT, "snapshot_load: bytes is NULL");
	}
	const uint8_t *b = bytes;
	f2d_result r = check_portable_header(w, b, size);
	if (r != F2D_OK) {
		return r;
	}
	return load_payload(w, b + PORTABLE_HEADER, size - PORTABLE_HEADER, NULL, "snapshot_load");
}

static f2d_result world_for_load(const f2d_world_def *def, f2d_world **out)
{
	f2d_world_def d = f2d_default_world_def();
	d.body_capacity = 0;
	d.contact_capacity = 0;
	if (def != NULL && def->allocator.alloc != NULL) {
		if (def->allocator.free == NULL) {
			return F2D_ERROR_INVALID_VALUE;
		}
		d.allocator = def->allocator;
	}
	return f2d_create_world(&d, out);
}

f2d_result f2d_snapshot_load_new(const void *bytes, size_t size, const f2d_world_def *def,
                                 f2d_world **out)
{
	if (out == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	*out = NULL;
	if (bytes == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	f2d_world *w = NULL;
	f2d_result r = world_for_load(def, &w);
	if (r != F2D_OK) {
		return r;
	}
	r = f2d_snapshot_load(w, bytes, size);
	if (r != F2D_OK) {
		f2d_destroy_world(w);
		return r;
	}
	*out = w;
	return F2D_OK;
}

f2d_result f2d_snapshot_check(const void *bytes, size_t size, const f2d_world_def *def,
                              char *message, size_t message_capacity)
{
	if (message != NULL && message_capacity > 0) {
		message[0] = '\0';
	}
	if (bytes == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	f2d_world *w = NULL;
	f2d_result r = world_for_load(def, &w);
	if (r != F2D_OK) {
		return r;
	}
	r = f2d_snapshot_load(w, bytes, size);
	if (r != F2D_OK && message != NULL && message_capacity > 0) {
		snprintf(message, message_capacity, "%s", w->error);
	}
	f2d_destroy_world(w);
	return r;
}

/* ---- clone: whole structs and arrays (same binary, same process) ---- */

static bool dup_array(f2d_world *c, void **array, const void *src, int32_t capacity, size_t elem)
{
	*array = NULL;
	if (capacity <= 0 || src == NULL) {
		return true;
	}
	*array = f2d_alloc(c, (size_t)capacity * elem);
	if (*array == NULL) {
		return false;
	}
	memcpy(*array, src, (size_t)capacity * elem);
	return true;
}

f2d_result f2d_world_clone(const f2d_world *src, f2d_world **out)
{
	if (src == NULL || out == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	f2d_allocator al = src->allocator;
	f2d_world *c = al.alloc(sizeof *c, al.context);
	if (c == NULL) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	*c = *src;
	/* every pointer of struct f2d_world is listed here (tests/test_snapshot.c checks the size
	 * of the struct): none may be shared. Scratch buffers start empty. */
	c->bodies = NULL;
	c->shapes = NULL;
	c->joints = NULL;
	c->body_ids.free_ids = NULL;
	c->shape_ids.free_ids = NULL;
	c->joint_ids.free_ids = NULL;
	c->arbiters = NULL;
	c->arbiters_next = NULL;
	c->sweep = NULL;
	c->pairs = NULL;
	c->body_capacity = c->shape_capacity = c->joint_capacity = 0;
	c->body_ids.free_capacity = c->shape_ids.free_capacity = c->joint_ids.free_capacity = 0;
	c->arbiter_capacity = c->arbiters_next_capacity = c->sweep_capacity = 0;
	c->pair_capacity = c->pair_count = 0;
	bool ok =
	    dup_array(c, (void **)&c->bodies, src->bodies, src->body_capacity, sizeof(f2d_body)) &&
	    (c->body_capacity = src->body_capacity, true) &&
	    dup_array(c, (void **)&c->shapes, src->shapes, src->shape_capacity,
	              sizeof(f2d_shape)) &&
	    (c->shape_capacity = src->shape_capacity, true) &&
	    dup_array(c, (void **)&c->joints, src->joints, src->joint_capacity,
	              sizeof(f2d_joint)) &&
	    (c->joint_capacity = src->joint_capacity, true) &&
	    dup_array(c, (void **)&c->body_ids.free_ids, src->body_ids.free_ids,
	              src->body_ids.free_capacity, sizeof(int32_t)) &&
	    (c->body_ids.free_capacity = src->body_ids.free_capacity, true) &&
	    dup_array(c, (void **)&c->shape_ids.free_ids, src->shape_ids.free_ids,
	              src->shape_ids.free_capacity, sizeof(int32_t)) &&
	    (c->shape_ids.free_capacity = src->shape_ids.free_capacity, true) &&
	    dup_array(c, (void **)&c->joint_ids.free_ids, src->joint_ids.free_ids,
	              src->joint_ids.free_capacity, sizeof(int32_t)) &&
	    (c->joint_ids.free_capacity = src->joint_ids.free_capacity, true) &&
	    dup_array(c, (void **)&c->arbiters, src->arbiters, src->arbiter_capacity,
	              sizeof(f2d_arbiter)) &&
	    (c->arbiter_capacity = src->arbiter_capacity, true) &&
	    dup_array(c, (void **)&c->sweep, src->sweep, src->sweep_capacity, sizeof(int32_t)) &&
	    (c->sweep_capacity = src->sweep_capacity, true);
	if (!ok) {
		f2d_destroy_world(c);
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	*out = c;
	return F2D_OK;
}

/* ---- sync test ---- */

typedef struct sync_slot {
	uint8_t *bytes;
	size_t capacity, size;
} sync_slot;

static bool completed(f2d_result r)
{
	return r == F2D_OK || r == F2D_ERROR_OUT_OF_RANGE || r == F2D_ERROR_OVERFLOW;
}

static f2d_result sync_save(f2d_world *w, sync_slot *slot)
{
	size_t need = f2d_snapshot_size(w);
	if (need > slot->capacity) {
		size_t cap = need + need / 4 + 64;
		uint8_t *p = f2d_alloc(w, cap);
		if (p == NULL) {
			return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
			                     "sync_test: allocator returned NULL");
		}
		f2d_free(w, slot->bytes, slot->capacity);
		slot->bytes = p;
		slot->capacity = cap;
	}
	return f2d_snapshot_save(w, slot->bytes, slot->capacity, &slot->size);
}

f2d_result f2d_sync_test(f2d_world *w, int32_t frames, int32_t rollback,
                         f2d_sync_advance_fn advance, void *context, f2d_sync_report *report)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (report == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT, "sync_test: report is required");
	}
	if (frames < 1 || frames > 1000000 || rollback < 1 || rollback > 64) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "sync_test: frames must be in [1, 10^6], rollback in [1, 64]");
	}
	memset(report, 0, sizeof *report);
	report->first_bad_frame = -1;
	int32_t slots = rollback + 1;
	size_t hashes_size = ((size_t)frames + 1) * sizeof(uint64_t);
	size_t results_size = (size_t)frames * sizeof(f2d_result);
	size_t ring_size = (size_t)slots * sizeof(sync_slot);
	uint64_t *hashes = f2d_alloc(w, hashes_size);
	f2d_result *results = f2d_alloc(w, results_size);
	sync_slot *ring = f2d_alloc(w, ring_size);
	f2d_result r = F2D_OK;
	if (hashes == NULL || results == NULL || ring == NULL) {
		r = f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY, "sync_test: allocator returned NULL");
		goto done;
	}
	memset(ring, 0, ring_size);
	hashes[0] = f2d_world_hash(w);
	for (int32_t f = 0; f < frames; ++f) {
		r = sync_save(w, &ring[f % slots]);
		if (r != F2D_OK) {
			goto done;
		}
		f2d_result step = advance != NULL ? advance(w, f, context) : f2d_world_step(w);
		report->frames_simulated++;
		if (!completed(step)) {
			r = step;
			goto done;
		}
		results[f] = step;
		hashes[f + 1] = f2d_world_hash(w);
		/* roll back to frame `start` and come forward again */
		int32_t start = f + 1 - (f + 1 < rollback ? f + 1 : rollback);
		const sync_slot *s = &ring[start % slots];
		r = f2d_snapshot_restore(w, s->bytes, s->size);
		if (r != F2D_OK) {
			goto done;
		}
		int64_t bad = -1;
		uint64_t got = f2d_world_hash(w);
		if (got != hashes[start]) {
			bad = start;
		}
		for (int32_t g = start; bad < 0 && g <= f; ++g) {
			step = advance != NULL ? advance(w, g, context) : f2d_world_step(w);
			report->frames_simulated++;
			got = f2d_world_hash(w);
			if (step != results[g] || got != hashes[g + 1]) {
				bad = g + 1;
			}
		}
		if (bad >= 0) {
			report->first_bad_frame = bad;
			report->expected_hash = hashes[bad];
			report->actual_hash = got;
			break;
		}
	}
	r = F2D_OK;
done:
	if (ring != NULL) {
		for (int32_t i = 0; i < slots; ++i) {
			f2d_free(w, ring[i].bytes, ring[i].capacity);
		}
	}
	f2d_free(w, ring, ring_size);
	f2d_free(w, results, results_size);
	f2d_free(w, hashes, hashes_size);
	return r;
}
