/* fix2d snapshots: in-process save/restore/clone for rollback, the portable byte form, the
 * sync test. The format is described in include/fix2d/snapshot.h.
 * SPDX-License-Identifier: MIT
 *
 * One encoding of the state serves both forms (but for the in-process form's bodies and
 * arbiters, fixed-size records that a restore reads as words: snapshot_fast.c): explicit
 * fields, little-endian, never struct memory. Writing never allocates (records go straight
 * into the caller's buffer). Reading runs twice over the bytes: a validating pass that writes
 * nothing into the world (its bookkeeping, one mark per id, lives on the stack for small
 * worlds, else in the world's pair scratch buffer,
 * which the next step overwrites anyway; the in-process header carries the id counts so that it
 * is reserved at once), then, once everything is known to be good and the arrays are large
 * enough, an applying pass that cannot fail. So a refused snapshot leaves the world as it was,
 * and a restore into a world whose arrays are large enough allocates nothing.
 *
 * Derived state is not stored but rebuilt: inverse mass and inertia (exactly as body.c computes
 * them; the in-process form stores them), the shape lists of bodies (kept in id order by
 * body.c), the joint counts of bodies, the bodies of arbiters, the object counts, 1/h.
 *
 * When a field is added to a struct in core.h: store it here and, for a body or an arbiter, in
 * snapshot_fast.c's record lists (encoder and decoder, with its validation), bump
 * F2D_SNAPSHOT_FORMAT_VERSION if it changes the portable payload, and update the sizes recorded
 * in tests/test_snapshot.c (struct_sizes_are_known), which fails until then.
 */
#include "snapshot_internal.h"

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
/* 4: the bodies and shapes of portable version 5; 5: substep_count; 6: recycled manifolds and
 * the recycle distance (portable 7), the chain of caches (the broad phase's state, world caches,
 * manifolds) and the seal (both came in one landing: no main had either alone); 7: bodies and
 * arbiters as fixed-size records (snapshot_fast.c), an arbiter's record with its manifold (the
 * chain's separate manifolds gone); 8: an arbiter record ends with its geometry digest (state
 * hash format 9) */
#define MEMORY_VERSION 8u
#define PORTABLE_HEADER 40
#define MEMORY_HEADER 48
/* The seal of the in-process form: XXH3-64 of the payload with this seed, in the header. The
 * chain of caches is restored as written (its values are not range checked: they are what the
 * saving world's steps computed), so only bytes this encoder wrote are taken: damaged or
 * foreign bytes are refused. */
#define MEMORY_SEAL_SEED 0xF2D5EA1C0C4E5EEDull
#define MAX_RECORD 160 /* longest record below: a joint of another type, 5 + 72 + 46 + 8 */


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

/* LEB128: 7 bits a byte, low first, the high bit says more follow; minimal (at most 5 bytes). */
static inline uint8_t *put_var(uint8_t *p, uint32_t v)
{
	while (v >= 0x80u) {
		*p++ = (uint8_t)(v | 0x80u);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* zigzag: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ... (a bijection of int32 and uint32) */
static inline uint32_t zigzag(int32_t v)
{
	return ((uint32_t)v << 1) ^ (v < 0 ? 0xFFFFFFFFu : 0u);
}

/* v - prev modulo 2^32, zigzag coded: every value has one encoding, whatever prev */
static inline uint8_t *put_delta(uint8_t *p, int32_t v, int32_t prev)
{
	uint32_t d = (uint32_t)v - (uint32_t)prev;
	return put_var(p, (d << 1) ^ ((d >> 31) != 0 ? 0xFFFFFFFFu : 0u));
}

static inline uint8_t *put_zz(uint8_t *p, int32_t v)
{
	return put_var(p, zigzag(v));
}

static bool mass_equal(const f2d_body *a, const f2d_body *b)
{
	return a->mass == b->mass && a->inertia == b->inertia &&
	       a->local_center.x == b->local_center.x && a->local_center.y == b->local_center.y;
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
#define PUT(kind, field) p = put_##kind(p, d->field);
	WORLD_DEF_HEAD(PUT)
	p = put_u8(p, d->warm_starting ? 1u : 0u);
	p = put_u8(p, d->enable_sleep ? 1u : 0u);
	WORLD_DEF_TAIL(PUT)
#undef PUT
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

/* Bodies (version 5, include/fix2d/snapshot.h): varints; the centre and rotation as deltas
 * from the previous live body's, the origin only when it is not centre - rotate(q, local
 * centre) (what the step and body.c make it), velocities, forces and the mass record zigzag
 * coded. At most 5 + 2 + 11 * 5 + 8 + 2 * 5 bytes a record. */
/* A live body's flags (BF_*): prev is the previous live dynamic body (NULL before the first) */
static uint32_t body_flags(const f2d_body *b, const f2d_body *prev)
{
	bool dynamic = b->type == F2D_DYNAMIC_BODY;
	bool moving = b->v.x != 0 || b->v.y != 0 || b->w != 0;
	bool force = b->force.x != 0 || b->force.y != 0 || b->torque != 0;
	bool same = dynamic && prev != NULL && mass_equal(b, prev);
	/* the usual sleep state (awake, may sleep, no time below the tolerances) is implied */
	bool sleep = !b->awake || !b->enable_sleep || b->sleep_time != 0;
	f2d_vec2 lc = dynamic ? b->local_center : f2d_v(0, 0);
	bool origin = !f2d_snapshot_origin_derived(b->origin, b->center, b->q, lc);
	return BF_ALIVE | ((uint32_t)b->type << BF_TYPE_SHIFT) | (moving ? BF_MOVING : 0u) |
	       (same ? BF_SAME_MASS : 0u) | (sleep ? BF_SLEEP : 0u) | (origin ? BF_ORIGIN : 0u) |
	       (force ? BF_FORCE : 0u) | (b->user_data != 0 ? BF_USER : 0u);
}

/* A live body's record after its generation: its flags, then the fields they say are there
 * (the centre and rotation as deltas from pc and pq, the previous live body's) */
static uint8_t *put_body(uint8_t *p, const f2d_body *b, uint32_t flags, f2d_vec2 pc, f2d_rot pq)
{
	p = put_var(p, flags);
	p = put_delta(p, b->center.x, pc.x);
	p = put_delta(p, b->center.y, pc.y);
	/* version 9: q.s, then q.c against the unit circle through q.s on the side of the
	 * previous live body's q.c (a settled body's rotation is unit within 2^-14) */
	p = put_delta(p, b->q.s, pq.s);
	p = put_delta(p, b->q.c, f2d_snapshot_unit_other(b->q.s, pq.c));
	if (flags & BF_ORIGIN) {
		p = put_delta(p, b->origin.x, b->center.x);
		p = put_delta(p, b->origin.y, b->center.y);
	}
	if (flags & BF_MOVING) {
		p = put_zz(p, b->v.x);
		p = put_zz(p, b->v.y);
		p = put_zz(p, b->w);
	}
	if (flags & BF_FORCE) {
		p = put_zz(p, b->force.x);
		p = put_zz(p, b->force.y);
		p = put_zz(p, b->torque);
	}
	if (b->type == F2D_DYNAMIC_BODY && !(flags & BF_SAME_MASS)) {
		p = put_zz(p, b->mass);
		p = put_zz(p, b->inertia);
		p = put_zz(p, b->local_center.x);
		p = put_zz(p, b->local_center.y);
	}
	if (flags & BF_USER) {
		p = put_u64(p, b->user_data);
	}
	if (flags & BF_SLEEP) {
		p = put_u8(p, (b->awake ? 0u : 1u) | (b->enable_sleep ? 0u : 2u));
		p = put_zz(p, b->sleep_time);
	}
	return p;
}

static void encode_bodies(encoder *e, const f2d_world *w)
{
	put_word(e, (uint32_t)w->body_ids.next);
	const f2d_body *prev = NULL; /* previous live dynamic body */
	f2d_vec2 pc = f2d_v(0, 0);   /* previous live body's centre and rotation */
	f2d_rot pq = {0, 0};
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		uint8_t *s = rec_begin(e), *p = put_var(s, b->generation);
		if (!b->alive) {
			rec_end(e, s, put_u8(p, 0));
			continue;
		}
		p = put_body(p, b, body_flags(b, prev), pc, pq);
		if (b->type == F2D_DYNAMIC_BODY) {
			prev = b;
		}
		pc = b->center;
		pq = b->q;
		rec_end(e, s, p);
	}
	encode_pool_tail(e, &w->body_ids);
}

/* A shape's geometry record: polygon: u8 count, the vertices; circle: centre, radius; capsule:
 * centres, radius; segment: points; chain segment: points, ghosts */
static uint8_t *put_geometry(uint8_t *p, const f2d_shape *sh)
{
	if (sh->type == F2D_POLYGON_SHAPE) {
		p = put_u8(p, (uint32_t)sh->polygon.count);
		for (int32_t k = 0; k < sh->polygon.count; ++k) {
			p = put_vec(p, sh->polygon.vertices[k]);
		}
	} else if (sh->type == F2D_CIRCLE_SHAPE) {
		p = put_vec(p, sh->circle.center);
		p = put_i32(p, sh->circle.radius);
	} else {
		p = put_vec(p, sh->capsule.center1);
		p = put_vec(p, sh->capsule.center2);
		if (sh->type == F2D_CAPSULE_SHAPE) {
			p = put_i32(p, sh->capsule.radius);
		} else if (sh->type == F2D_CHAIN_SEGMENT_SHAPE) {
			p = put_vec(p, sh->ghost1);
			p = put_vec(p, sh->ghost2);
		}
	}
	return p;
}

static void encode_shapes(encoder *e, const f2d_world *w)
{
	put_word(e, (uint32_t)w->shape_ids.next);
	const f2d_shape *prev = NULL; /* previous live shape */
	int32_t prev_body = -1;       /* its body; -1 before the first */
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		const f2d_shape *sh = &w->shapes[i];
		uint8_t *s = rec_begin(e), *p = put_var(s, sh->generation);
		if (!sh->alive) {
			rec_end(e, s, put_u8(p, 0));
			continue;
		}
		bool same_geometry = prev != NULL && geometry_equal(sh, prev);
		bool same_material = prev != NULL && material_equal(sh, prev);
		bool typed = sh->type >= F2D_CAPSULE_SHAPE;
		uint32_t flags = SF_ALIVE | (sh->type == F2D_POLYGON_SHAPE ? SF_POLYGON : 0u) |
		                 (typed ? SF_TYPE : 0u) | (sh->user_data != 0 ? SF_USER : 0u) |
		                 (same_geometry ? SF_SAME_GEOMETRY : 0u) |
		                 (same_material ? SF_SAME_MATERIAL : 0u);
		p = put_u8(p, flags);
		if (typed) {
			p = put_u8(p, (uint32_t)sh->type);
		}
		/* version 5: the body as body - previous body - 1 (mod 2^32), zigzag coded (one
		 * shape a body in body order: 0) */
		p = put_delta(p, sh->body, prev_body + 1);
		prev_body = sh->body;
		if (!same_material) {
			p = put_i32(p, sh->density);
			p = put_i32(p, sh->friction);
			p = put_i32(p, sh->restitution);
		}
		if (!same_geometry) {
			p = put_geometry(p, sh);
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
		                 (j->user_data != 0 ? JF_USER : 0u) | (j->type != 0 ? JF_TYPE : 0u);
		p = put_u8(p, flags);
#define PUT(kind, field) p = put_##kind(p, j->field);
		JOINT_RECORD(PUT)
		if (j->type != 0) {
			JOINT_EXT_HEAD(PUT)
			p = put_u8(p, j->enable_spring ? 1u : 0u);
			JOINT_EXT_TAIL(PUT)
		}
#undef PUT
		if (j->user_data != 0) {
			p = put_u64(p, j->user_data);
		}
		rec_end(e, s, p);
	}
	encode_pool_tail(e, &w->joint_ids);
}

/* Feature ids are written bit-permuted (a bijection of u32, so any id is kept exactly): bit 0
 * stays, bits 4..31 move to 1..28, bits 1..3 to 29..31. collision.c's ids use bits 0, 4..11, 15
 * and 16, so the usual polygon ids (reference and incident edge, end) fit one varint byte. */
static inline uint32_t id_perm(uint32_t id)
{
	return (id & 1u) | ((id >> 4) << 1) | (((id >> 1) & 7u) << 29);
}

/* Groups 0..2 of a recycled manifold (portable version 9, snapshot_internal.h RS_BLOCK): the
 * width byte and the six residuals packed in W and N bits, or the escape byte and six zigzag
 * varints. At most 1 + 6 * 5 bytes. */
static uint8_t *put_rs_block(uint8_t *p, const f2d_arbiter_residuals *r)
{
	uint32_t z[RS_BLOCK], wide = 0, narrow = 0;
	for (int32_t k = 0; k < RS_BLOCK; ++k) {
		z[k] = zigzag(r->v[f2d_rs_block_index(k)]);
		uint32_t n = f2d_bit_length(z[k]);
		wide = k < RS_WIDE && n > wide ? n : wide;
		narrow = k >= RS_WIDE && n > narrow ? n : narrow;
	}
	if (wide > RS_WIDE_MAX || narrow > RS_NARROW_MAX) {
		*p++ = (uint8_t)RS_BLOCK_ESCAPE;
		for (int32_t k = 0; k < RS_BLOCK; ++k) {
			p = put_var(p, z[k]);
		}
		return p;
	}
	*p++ = (uint8_t)(wide | narrow << 4);
	/* acc holds fewer than 8 pending bits before a value of at most 15 bits is added */
	uint32_t acc = 0, bits = 0;
	for (int32_t k = 0; k < RS_BLOCK; ++k) {
		acc |= z[k] << bits;
		bits += k < RS_WIDE ? wide : narrow;
		for (; bits >= 8; bits -= 8, acc >>= 8) {
			*p++ = (uint8_t)acc;
		}
	}
	if (bits > 0) {
		*p++ = (uint8_t)acc;
	}
	return p;
}

/* A recycled manifold of the portable form (version 9, snapshot_internal.h): the block of groups
 * 0..2, then, when the head says so (*more), the varint mask of groups 3..7 (bit g - 3) and the
 * written groups' residuals, zigzag coded (snapshot_arbiter.c). The residuals come first (r)
 * since the head (written before) tells whether other groups follow. */
static uint32_t more_groups(const f2d_arbiter *a, const f2d_arbiter_residuals *r)
{
	uint32_t mask = 0;
	for (int32_t g = RS_MORE_GROUPS; g < RS_GROUPS; ++g) {
		int32_t len = 0, first = f2d_rs_group(g, a->count, &len);
		for (int32_t k = 0; k < len; ++k) {
			mask |= r->v[first + k] != 0 ? 1u << (g - RS_MORE_GROUPS) : 0u;
		}
	}
	return mask;
}

static uint8_t *put_manifold_residuals(uint8_t *p, const f2d_arbiter *a,
                                       const f2d_arbiter_residuals *r, uint32_t mask)
{
	p = put_rs_block(p, r);
	if (mask != 0) {
		p = put_var(p, mask);
	}
	for (int32_t g = RS_MORE_GROUPS; g < RS_GROUPS; ++g) {
		int32_t len = 0, first = f2d_rs_group(g, a->count, &len);
		for (int32_t k = 0; (mask >> (g - RS_MORE_GROUPS) & 1u) != 0 && k < len; ++k) {
			p = put_zz(p, r->v[first + k]);
		}
	}
	return p;
}

/* Arbiters (portable version 9, include/fix2d/snapshot.h): varints, shape ids delta-coded in
 * key order, the material only when it differs from the previous arbiter's, the second feature
 * id as its xor with the first, impulses as varints (pn >= 0) and zigzag varints (pt); a
 * recycled manifold (contact.c f2d_recycle_arbiter: state) as residuals, its kind in the head
 * (1: groups 0..2 only, 2: other groups follow) (the in-process form writes arbiters as
 * fixed-size records instead: snapshot_fast.c). At most 5 * (4 + 3 * 2) + 31 + 1 + 5 * 12 =
 * 142 bytes a record (MAX_RECORD). */
static void encode_arbiters(encoder *e, const f2d_world *w)
{
	put_word(e, (uint32_t)w->arbiter_count);
	uint32_t prev_a = 0, prev_b = 0;
	fix16_t prev_f = 0, prev_r = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		uint32_t sa = (uint32_t)a->shape_a, sb = (uint32_t)a->shape_b;
		bool same = i > 0 && a->friction == prev_f && a->restitution == prev_r;
		f2d_arbiter_residuals r = {{0}};
		uint32_t mask = 0, kind = 0;
		if (a->recycle != 0) {
			f2d_snapshot_arbiter_residuals(w, a, &r);
			mask = more_groups(a, &r);
			kind = mask != 0 ? 2u : 1u;
		}
		uint8_t *s = rec_begin(e), *p = s;
		/* shape ids below F2D_MAX_OBJECTS = 2^20: the head below 2^24 */
		p = put_var(p, (sa - prev_a) << 4 | kind << 2 | (uint32_t)(a->count - 1) << 1 |
		                   (same ? 1u : 0u));
		p = put_var(p, i > 0 && sa == prev_a ? sb - prev_b - 1 : sb - sa - 1);
		if (!same) {
			p = put_var(p, (uint32_t)a->friction);
			p = put_var(p, (uint32_t)a->restitution);
		}
		for (int32_t k = 0; k < a->count; ++k) {
			const f2d_contact_point *cp = &a->points[k];
			p = put_var(p, id_perm(k == 0 ? cp->id : cp->id ^ a->points[0].id));
			p = put_var(p, (uint32_t)cp->pn);
			p = put_zz(p, cp->pt);
		}
		if (kind != 0) {
			p = put_manifold_residuals(p, a, &r, mask);
		}
		rec_end(e, s, p);
		prev_a = sa;
		prev_b = sb;
		prev_f = a->friction;
		prev_r = a->restitution;
	}
}

/* Options and event state (version 3): settings and records for what is not at its default,
 * sensor overlaps, end events owed by destroyed shapes (see include/fix2d/snapshot.h). */
static void encode_options(encoder *e, const f2d_world *w)
{
	put_word(e, (uint32_t)w->def.hit_event_threshold);
	int32_t n = 0;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		n += w->bodies[i].alive && !f2d_body_default_options(&w->bodies[i]) ? 1 : 0;
	}
	put_word(e, (uint32_t)n);
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		if (b->alive && !f2d_body_default_options(b)) {
			uint8_t *st = rec_begin(e), *p = put_i32(st, i);
#define PUT(kind, field) p = put_##kind(p, b->field);
			BODY_OPTIONS_RECORD(PUT)
#undef PUT
			rec_end(e, st, put_u8(p, b->fixed_rotation ? 1u : 0u));
		}
	}
	n = 0;
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		n += w->shapes[i].alive && !f2d_shape_default_options(&w->shapes[i]) ? 1 : 0;
	}
	put_word(e, (uint32_t)n);
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		const f2d_shape *sh = &w->shapes[i];
		if (sh->alive && !f2d_shape_default_options(sh)) {
			uint8_t *st = rec_begin(e), *p = put_i32(st, i);
#define PUT(kind, field) p = put_##kind(p, sh->filter.field);
			FILTER_RECORD(PUT)
#undef PUT
			rec_end(e, st, put_u8(p, f2d_shape_option_flags(sh)));
		}
	}
	const f2d_events *ev = &w->events;
	put_word(e, (uint32_t)ev->overlap_count);
	for (int32_t i = 0; i < ev->overlap_count; ++i) {
		uint8_t *st = rec_begin(e);
		rec_end(e, st, put_u64(st, ev->overlaps[i]));
	}
	put_word(e, (uint32_t)ev->pending_count);
	for (int32_t i = 0; i < ev->pending_count; ++i) {
		const f2d_pending_end *pe = &ev->pending[i];
		uint8_t *st = rec_begin(e), *p = st;
#define PUT(kind, field) p = put_##kind(p, pe->field);
		PENDING_END_RECORD(PUT)
#undef PUT
		rec_end(e, st, p);
	}
	/* the solver (f2d_world_def.substep_count), in both forms always (portable format 6; in 5
	 * it was left out when 0, so a payload cut just before it, header and checksum rewritten,
	 * loaded as a world of the Gauss-Seidel solver) */
	put_word(e, (uint32_t)w->def.contact_recycle_distance); /* format 7 */
	put_word(e, (uint32_t)w->def.substep_count);
}

/* A block of len bytes at the encoder's position, NULL when measuring or when it does not fit
 * (then measuring). */
static uint8_t *block_begin(encoder *e, size_t len)
{
	e->n += len;
	if (e->p == NULL) {
		return NULL;
	}
	if ((size_t)(e->end - e->p) < len) {
		e->overflow = true;
		e->p = NULL;
		return NULL;
	}
	uint8_t *s = e->p;
	e->p += len;
	return s;
}

/* The caches of the in-process form: the sweep order; u32 1 and the chain of caches when it
 * holds (the broad phase's block, broadphase.c; the arbiters' manifolds are in their records,
 * snapshot_fast.c), else u32 0. */
static void encode_caches(encoder *e, const f2d_world *w)
{
	bool valid = !w->sweep_dirty && w->sweep_count == w->shape_count;
	put_word(e, valid ? (uint32_t)w->sweep_count : NO_SWEEP);
	if (valid) {
		put_ids(e, w->sweep, w->sweep_count);
	}
	bool chain = valid && f2d_bp_chain_holds(w);
	put_word(e, chain ? 1u : 0u);
	if (!chain) {
		return;
	}
	uint8_t *b = block_begin(e, f2d_bp_cache_size(w));
	if (b != NULL) {
		f2d_bp_cache_put(w, b);
	}
}

/* A section of the in-process form's fixed-size records (snapshot_fast.c): its length, then
 * its bytes when they fit. */
static void encode_fixed(encoder *e, const f2d_world *w, size_t len,
                         uint8_t *(*put)(const f2d_world *, uint8_t *))
{
	uint8_t *b = block_begin(e, len);
	if (b != NULL) {
		put(w, b);
	}
}

/* Encodes the payload (and in-process caches); fills the section sizes when asked. */
static void encode_payload(encoder *e, const f2d_world *w, bool portable, f2d_snapshot_layout *l)
{
	size_t n0 = e->n;
	encode_world(e, w);
	size_t n1 = e->n;
	if (portable) {
		encode_bodies(e, w);
	} else {
		encode_fixed(e, w, f2d_fast_bodies_size(w), f2d_fast_bodies_put);
	}
	size_t n2 = e->n;
	encode_shapes(e, w);
	size_t n3 = e->n;
	encode_joints(e, w);
	size_t n4 = e->n;
	if (portable) {
		encode_arbiters(e, w);
	} else {
		encode_fixed(e, w, f2d_fast_arbiters_size(w), f2d_fast_arbiters_put);
	}
	size_t n5a = e->n;
	encode_options(e, w);
	size_t n5 = e->n;
	if (!portable) {
		encode_caches(e, w);
	}
	if (l != NULL) {
		l->world = n1 - n0 + (n5 - n5a); /* settings, and the options section */
		l->bodies = n2 - n1;
		l->shapes = n3 - n2;
		l->joints = n4 - n3;
		l->arbiters = n5a - n4;
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
		p = put_u32(p, 0);
		put_u64(p, f2d_xxh3_seeded(buffer + header, e.n, MEMORY_SEAL_SEED));
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
/* ---- public: restore and load (the decoder is in snapshot_load.c) ---- */

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
	if (get_u64(b + 40) != f2d_xxh3_seeded(b + MEMORY_HEADER, (size_t)len, MEMORY_SEAL_SEED)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "snapshot_restore: seal mismatch (damaged, or not written by "
		                     "f2d_snapshot_save of this library)");
	}
	return f2d_snapshot_load_payload(w, b + MEMORY_HEADER, (size_t)len, counts,
	                                 "snapshot_restore");
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
	return f2d_snapshot_load_payload(w, b + PORTABLE_HEADER, size - PORTABLE_HEADER, NULL,
	                                 "snapshot_load");
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

/* A copy of an array of capacity elements into *array, its capacity into *array_capacity once
 * copied; 64-byte aligned when aligned is set (the arrays f2d_grow_aligned keeps: bodies,
 * shapes, joints, arbiters) */
static bool dup_block(f2d_world *c, void **array, int32_t *array_capacity, const void *src,
                      int32_t capacity, size_t elem, bool aligned)
{
	*array = NULL;
	if (capacity <= 0 || src == NULL) {
		*array_capacity = capacity;
		return true;
	}
	size_t n = (size_t)capacity * elem;
	*array = aligned ? f2d_alloc_aligned(c, n) : f2d_alloc(c, n);
	if (*array == NULL) {
		return false;
	}
	memcpy(*array, src, n);
	*array_capacity = capacity;
	return true;
}

/* Every pointer of struct f2d_world is listed here (tests/test_snapshot.c checks the size of
 * the struct): none may be shared. Scratch buffers start empty, the query tree too (the clone
 * builds its own); of the events the state (overlaps, pending ends) is kept, the last step's
 * output is not. */
static void clone_clear(f2d_world *c, const f2d_world *src)
{
	c->bodies = NULL;
	c->shapes = NULL;
	c->joints = NULL;
	c->body_ids.free_ids = NULL;
	c->shape_ids.free_ids = NULL;
	c->joint_ids.free_ids = NULL;
	c->arbiters = NULL;
	c->arbiters_next = NULL;
	c->arbiter_geo = NULL;
	c->arbiter_geo_next = NULL;
	c->arbiter_geo_capacity = c->arbiter_geo_next_capacity = 0;
	c->sweep = NULL;
	c->pairs = NULL;
	memset(&c->bpc, 0, sizeof c->bpc); /* the broad phase's candidates (broadphase.c) */
	c->toi = NULL; /* continuous collision's scratch (toi.c) */
	c->toi_capacity = 0;
	c->batches = NULL;
	c->body_colors = NULL;
	c->arbiter_colors = NULL;
	c->batch_count = c->batch_capacity = c->body_color_capacity = 0;
	c->arbiter_color_capacity = c->solver_vel_capacity = 0;
	c->solver_vel = NULL;
	c->solver_disp = NULL;
	c->solver_disp_capacity = 0;
	c->body_list = NULL;
	c->body_list_count = c->body_list_capacity = 0;
	c->integ_list = NULL; /* the soft step's body lists (world.c) */
	c->integ_list_capacity = 0;
	c->joint_list = NULL;
	c->joint_list_capacity = 0;
	c->joint_order = NULL;
	c->joint_order_color = NULL;
	c->joint_order_capacity = c->joint_order_color_capacity = 0;
	c->joint_batches = NULL;
	c->joint_batch_count = c->joint_batch_capacity = 0;
	c->joint_color_key = NULL;
	c->joint_color_key_capacity = c->joint_color_n = 0;
	c->body_capacity = c->shape_capacity = c->joint_capacity = 0;
	c->body_ids.free_capacity = c->shape_ids.free_capacity = c->joint_ids.free_capacity = 0;
	c->arbiter_capacity = c->arbiters_next_capacity = c->sweep_capacity = 0;
	c->pair_capacity = c->pair_count = 0;
	c->island_parent = c->island_data = NULL;
	c->contacts_stale = true;
	memset(&c->query, 0, sizeof c->query);
	memset(&c->events, 0, sizeof c->events);
	c->events.overlap_count = src->events.overlap_count;
	c->events.pending_count = src->events.pending_count;
	c->island_capacity = c->island_data_capacity = 0;
}

/* The state's arrays, each with its capacity; false when an allocation fails (what was
 * copied so far is the clone's, for f2d_destroy_world) */
static bool clone_arrays(f2d_world *c, const f2d_world *src)
{
	const f2d_id_pool *bi = &src->body_ids, *si = &src->shape_ids, *ji = &src->joint_ids;
	const f2d_events *ev = &src->events;
	return dup_block(c, (void **)&c->bodies, &c->body_capacity, src->bodies, src->body_capacity,
	                 sizeof(f2d_body), true) &&
	       dup_block(c, (void **)&c->shapes, &c->shape_capacity, src->shapes,
	                 src->shape_capacity, sizeof(f2d_shape), true) &&
	       dup_block(c, (void **)&c->joints, &c->joint_capacity, src->joints,
	                 src->joint_capacity, sizeof(f2d_joint), true) &&
	       dup_block(c, (void **)&c->body_ids.free_ids, &c->body_ids.free_capacity,
	                 bi->free_ids, bi->free_capacity, sizeof(int32_t), false) &&
	       dup_block(c, (void **)&c->shape_ids.free_ids, &c->shape_ids.free_capacity,
	                 si->free_ids, si->free_capacity, sizeof(int32_t), false) &&
	       dup_block(c, (void **)&c->joint_ids.free_ids, &c->joint_ids.free_capacity,
	                 ji->free_ids, ji->free_capacity, sizeof(int32_t), false) &&
	       dup_block(c, (void **)&c->arbiters, &c->arbiter_capacity, src->arbiters,
	                 src->arbiter_capacity, sizeof(f2d_arbiter), true) &&
	       dup_block(c, (void **)&c->arbiter_geo, &c->arbiter_geo_capacity, src->arbiter_geo,
	                 src->arbiter_geo_capacity, sizeof(uint64_t), false) &&
	       dup_block(c, (void **)&c->sweep, &c->sweep_capacity, src->sweep, src->sweep_capacity,
	                 sizeof(int32_t), false) &&
	       dup_block(c, (void **)&c->events.overlaps, &c->events.overlap_capacity, ev->overlaps,
	                 ev->overlap_capacity, sizeof(uint64_t), false) &&
	       dup_block(c, (void **)&c->events.pending, &c->events.pending_capacity, ev->pending,
	                 ev->pending_capacity, sizeof(f2d_pending_end), false);
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
	clone_clear(c, src);
	if (!clone_arrays(c, src)) {
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

/* one sync test's run: the first run's hashes (before frame f: hashes[f]) and step results,
 * the snapshots (frame f's in ring[f % slots]) */
typedef struct sync_run {
	f2d_world *w;
	f2d_sync_advance_fn advance;
	void *context;
	int32_t frames, rollback, slots;
	uint64_t *hashes;
	f2d_result *results;
	sync_slot *ring;
	f2d_sync_report *report;
} sync_run;

static f2d_result sync_advance(sync_run *s, int32_t frame)
{
	f2d_result step =
	    s->advance != NULL ? s->advance(s->w, frame, s->context) : f2d_world_step(s->w);
	s->report->frames_simulated++;
	return step;
}

/* After frame f: back to frame start (rollback frames back, fewer at the start) and forward
 * again, comparing every hash and step result with the first run's; the first difference goes
 * into the report. Only the restore can fail. */
static f2d_result sync_rollback(sync_run *s, int32_t f)
{
	int32_t start = f + 1 - (f + 1 < s->rollback ? f + 1 : s->rollback);
	const sync_slot *slot = &s->ring[start % s->slots];
	f2d_result r = f2d_snapshot_restore(s->w, slot->bytes, slot->size);
	if (r != F2D_OK) {
		return r;
	}
	int64_t bad = -1;
	uint64_t got = f2d_world_hash(s->w);
	if (got != s->hashes[start]) {
		bad = start;
	}
	for (int32_t g = start; bad < 0 && g <= f; ++g) {
		f2d_result step = sync_advance(s, g);
		got = f2d_world_hash(s->w);
		if (step != s->results[g] || got != s->hashes[g + 1]) {
			bad = g + 1;
		}
	}
	if (bad >= 0) {
		s->report->first_bad_frame = bad;
		s->report->expected_hash = s->hashes[bad];
		s->report->actual_hash = got;
	}
	return F2D_OK;
}

/* Every frame saved, run, hashed, then rolled back and run again (sync_rollback), up to the
 * first difference. */
static f2d_result sync_frames(sync_run *s)
{
	s->hashes[0] = f2d_world_hash(s->w);
	for (int32_t f = 0; f < s->frames; ++f) {
		f2d_result r = sync_save(s->w, &s->ring[f % s->slots]);
		if (r != F2D_OK) {
			return r;
		}
		f2d_result step = sync_advance(s, f);
		if (!completed(step)) {
			return step;
		}
		s->results[f] = step;
		s->hashes[f + 1] = f2d_world_hash(s->w);
		r = sync_rollback(s, f);
		if (r != F2D_OK) {
			return r;
		}
		if (s->report->first_bad_frame >= 0) {
			break;
		}
	}
	return F2D_OK;
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
	sync_run s;
	memset(&s, 0, sizeof s);
	s.w = w;
	s.advance = advance;
	s.context = context;
	s.frames = frames;
	s.rollback = rollback;
	s.slots = rollback + 1;
	s.report = report;
	size_t hashes_size = ((size_t)frames + 1) * sizeof(uint64_t);
	size_t results_size = (size_t)frames * sizeof(f2d_result);
	size_t ring_size = (size_t)s.slots * sizeof(sync_slot);
	s.hashes = f2d_alloc(w, hashes_size);
	s.results = f2d_alloc(w, results_size);
	s.ring = f2d_alloc(w, ring_size);
	if (s.ring != NULL) { /* freed slot by slot below, also when another array failed */
		memset(s.ring, 0, ring_size);
	}
	f2d_result r;
	if (s.hashes == NULL || s.results == NULL || s.ring == NULL) {
		r = f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY, "sync_test: allocator returned NULL");
	} else {
		r = sync_frames(&s);
	}
	for (int32_t i = 0; s.ring != NULL && i < s.slots; ++i) {
		f2d_free(w, s.ring[i].bytes, s.ring[i].capacity);
	}
	f2d_free(w, s.ring, ring_size);
	f2d_free(w, s.results, results_size);
	f2d_free(w, s.hashes, hashes_size);
	return r;
}
