/* fix2d snapshots: what the encoder (snapshot.c) and the decoder (snapshot_load.c) share: record
 * flags, little-endian reading, the geometry comparison, the payload loader.
 * SPDX-License-Identifier: MIT */
#ifndef FIX2D_SNAPSHOT_INTERNAL_H
#define FIX2D_SNAPSHOT_INTERNAL_H

#include "core.h"
#include "fix2d/snapshot.h"

#define NO_SWEEP 0xFFFFFFFFu

/* body record flags (version 5: a varint; the usual ones below 128, so one byte) */
#define BF_ALIVE 1u
#define BF_TYPE_SHIFT 1 /* bits 1-2 */
#define BF_MOVING 8u
#define BF_SAME_MASS 16u
#define BF_SLEEP 32u  /* a sleep record follows: u8 (1 asleep, 2 sleep disabled), sleep_time */
#define BF_ORIGIN 64u /* the origin is stored: it is not centre - rotate(q, local centre) */
#define BF_FORCE 128u
#define BF_USER 256u
#define BF_ALL 511u
/* shape record flags */
#define SF_ALIVE 1u
#define SF_POLYGON 2u
#define SF_USER 4u
#define SF_SAME_GEOMETRY 8u
#define SF_SAME_MATERIAL 16u
/* a type byte follows the flags (2 capsule, 3 segment, 4 chain segment; SF_POLYGON clear):
 * circles and polygons never set it, so their records keep their bytes */
#define SF_TYPE 32u
/* joint record flags */
#define JF_ALIVE 1u
#define JF_LIMIT 2u
#define JF_MOTOR 4u
#define JF_COLLIDE 8u
#define JF_USER 16u
#define JF_TYPE 32u   /* a joint of another type than revolute: its record follows (JOINT_EXT) */
#define JOINT_EXT 46u /* u8 type, axis, length, u8 spring, 6 fix16 settings, 2 impulses */

/* ---- the fixed-size parts of the records, one description for both sides ----
 * Each list names a record's fields in byte order as X(kind, field): kind u8 (1 byte), u32 or
 * i32 (4), u64 (8), vec (8: x, then y), little-endian. The encoder (snapshot.c) writes each as
 * p = put_<kind>(p, object->field), the decoder (snapshot_load*.c) reads each as
 * object.field = rd_<kind>(d), so the two cannot drift apart; SNAP_BYTES sums a list's bytes.
 * Flags stored as bytes (the decoder checks them for 0/1 before it takes them) and values the
 * encoder takes from elsewhere than the object stay written out by hand next to a list. */
#define SNAP_BYTES_u8 1
#define SNAP_BYTES_u32 4
#define SNAP_BYTES_i32 4
#define SNAP_BYTES_u64 8
#define SNAP_BYTES_vec 8
#define SNAP_BYTES(kind, field) +SNAP_BYTES_##kind

/* The world record (f2d_world_def): after the u64 step count, the world's gravity and time
 * step, these; then u8 warm_starting, u8 enable_sleep; then WORLD_DEF_TAIL; then the u64
 * out-of-range and overflow event counts and the i32 last out-of-range body. */
#define WORLD_DEF_HEAD(X)                                                                          \
	X(i32, iterations)                                                                         \
	X(i32, joint_position_iterations)                                                          \
	X(i32, bias_factor)                                                                        \
	X(i32, linear_slop)                                                                        \
	X(i32, speculative_distance)                                                               \
	X(i32, restitution_threshold)                                                              \
	X(i32, max_translation)                                                                    \
	X(i32, max_rotation)
#define WORLD_DEF_TAIL(X)                                                                          \
	X(i32, linear_sleep_tolerance)                                                             \
	X(i32, angular_sleep_tolerance)                                                            \
	X(i32, time_to_sleep)                                                                      \
	X(i32, body_capacity)                                                                      \
	X(i32, contact_capacity)

/* A live joint's record after its generation (u32) and flags (u8): these (every type);
 * with JF_TYPE then JOINT_EXT_HEAD, u8 enable_spring, JOINT_EXT_TAIL (JOINT_EXT bytes);
 * with JF_USER then the u64 user data. */
#define JOINT_RECORD(X)                                                                            \
	X(i32, body_a)                                                                             \
	X(i32, body_b)                                                                             \
	X(vec, local_a)                                                                            \
	X(vec, local_b)                                                                            \
	X(i32, reference_angle)                                                                    \
	X(i32, lower)                                                                              \
	X(i32, upper)                                                                              \
	X(i32, motor_speed)                                                                        \
	X(i32, max_motor_torque)                                                                   \
	X(vec, impulse)                                                                            \
	X(i32, motor_impulse)                                                                      \
	X(i32, lower_impulse)                                                                      \
	X(i32, upper_impulse)
#define JOINT_EXT_HEAD(X)                                                                          \
	X(u8, type)                                                                                \
	X(vec, axis)                                                                               \
	X(i32, length)
#define JOINT_EXT_TAIL(X)                                                                          \
	X(i32, hertz)                                                                              \
	X(i32, damping_ratio)                                                                      \
	X(i32, angular_hertz)                                                                      \
	X(i32, angular_damping_ratio)                                                              \
	X(i32, max_force)                                                                          \
	X(i32, correction_factor)                                                                  \
	X(i32, spring_impulse)                                                                     \
	X(i32, angular_impulse)
#define JOINT_RECORD_BYTES (0 JOINT_RECORD(SNAP_BYTES))
_Static_assert(JOINT_RECORD_BYTES == 64, "a joint record is 64 bytes (include/fix2d/snapshot.h)");
_Static_assert(0 JOINT_EXT_HEAD(SNAP_BYTES) + 1 JOINT_EXT_TAIL(SNAP_BYTES) == JOINT_EXT,
               "the record of a joint of another type is JOINT_EXT bytes");

/* A body option record after its body id (u32): these (f2d_body), then u8 fixed_rotation */
#define BODY_OPTIONS_RECORD(X)                                                                     \
	X(i32, gravity_scale)                                                                      \
	X(i32, linear_damping)                                                                     \
	X(i32, angular_damping)
#define BODY_OPTIONS_BYTES (4 + (0 BODY_OPTIONS_RECORD(SNAP_BYTES)) + 1)

/* A shape option record after its shape id (u32): the filter (f2d_filter), then u8 flags */
#define FILTER_RECORD(X)                                                                           \
	X(u64, category_bits)                                                                      \
	X(u64, mask_bits)                                                                          \
	X(i32, group_index)
#define SHAPE_OPTIONS_BYTES (4 + (0 FILTER_RECORD(SNAP_BYTES)) + 1)

/* A pending end event (f2d_pending_end): the whole record */
#define PENDING_END_RECORD(X)                                                                      \
	X(u8, sensor)                                                                              \
	X(i32, a)                                                                                  \
	X(u32, gen_a)                                                                              \
	X(i32, b)                                                                                  \
	X(u32, gen_b)
#define PENDING_END_BYTES (0 PENDING_END_RECORD(SNAP_BYTES))
_Static_assert(BODY_OPTIONS_BYTES == 17 && SHAPE_OPTIONS_BYTES == 25 && PENDING_END_BYTES == 17,
               "the option and pending end records' sizes (include/fix2d/snapshot.h)");

/* ---- little-endian writing and reading (the caller has checked the length) ---- */

static inline uint8_t *put_u8(uint8_t *p, uint32_t v)
{
	*p = (uint8_t)v;
	return p + 1;
}
/* On a little-endian host (known at compile time) an integer's own bytes are its encoding: one
 * 4-byte store of the value (not of struct memory; rule 4), which the compiler does not make of
 * the four byte stores when they may alias the object being read. Elsewhere byte by byte. */
static inline uint8_t *put_u32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 4);
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
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
static inline uint8_t *put_vec(uint8_t *p, f2d_vec2 v)
{
	return put_i32(put_i32(p, v.x), v.y);
}
static inline f2d_vec2 get_vec(const uint8_t *p)
{
	return f2d_v(u2i(get_u32(p)), u2i(get_u32(p + 4)));
}

static inline bool geometry_equal(const f2d_shape *a, const f2d_shape *b)
{
	if (a->type != b->type) {
		return false;
	}
	if (a->type >= F2D_CAPSULE_SHAPE) {
		return a->capsule.center1.x == b->capsule.center1.x &&
		       a->capsule.center1.y == b->capsule.center1.y &&
		       a->capsule.center2.x == b->capsule.center2.x &&
		       a->capsule.center2.y == b->capsule.center2.y &&
		       a->capsule.radius == b->capsule.radius && a->ghost1.x == b->ghost1.x &&
		       a->ghost1.y == b->ghost1.y && a->ghost2.x == b->ghost2.x &&
		       a->ghost2.y == b->ghost2.y;
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

/* The origin a body has after a step (world.c; joint.c's projection, which leaves it the centre
 * when the local centre is 0) and after body.c sets a transform (centre = origin + rotate(q,
 * local centre), exact integer addition): the centre minus its rotated local centre. The
 * snapshots store the origin only when it is not this. q and lc must be in range (a rotation
 * that passed rot_unit, a local centre within the dynamic shape extent). */
static inline f2d_vec2 f2d_snapshot_derived_origin(f2d_vec2 c, f2d_rot q, f2d_vec2 lc)
{
	if ((lc.x | lc.y) == 0) {
		return c;
	}
	f2d_vec2 r = f2d_rotate(q, lc);
	return f2d_v((fix16_t)u2i((uint32_t)c.x - (uint32_t)r.x),
	             (fix16_t)u2i((uint32_t)c.y - (uint32_t)r.y));
}

static inline bool f2d_snapshot_origin_derived(f2d_vec2 origin, f2d_vec2 c, f2d_rot q, f2d_vec2 lc)
{
	f2d_vec2 o = f2d_snapshot_derived_origin(c, q, lc);
	return o.x == origin.x && o.y == origin.y;
}

/* ---- value ranges of loaded fields (snapshot_load.c) ---- */

/* Loaded positions: statics and kinematics stay within the world limit (the step clamps the
 * centre of a moving body); a dynamic body's origin trails its clamped centre by its local centre
 * and joint projection may push the centre a little past the edge. */
#define DYNAMIC_POSITION_SLACK F2D_FIX(128)
/* Rotations out of the step are unit to ~2^-14; loaded ones must be within 2^-12. */
#define ROT_TOLERANCE ((int64_t)1 << 20)
/* Speeds a user may set (body.c) */
#define SET_SPEED_LIMIT F2D_FIX(4096)

static inline bool no_min(fix16_t v)
{
	return v != INT32_MIN;
}

static inline bool within(fix16_t v, fix16_t limit)
{
	return v >= -limit && v <= limit;
}

static inline bool vec_within(f2d_vec2 v, fix16_t limit)
{
	return within(v.x, limit) && within(v.y, limit);
}

static inline bool rot_unit(f2d_rot q)
{
	if (!within(q.c, 2 * F2D_ONE) || !within(q.s, 2 * F2D_ONE)) {
		return false;
	}
	int64_t len2 = (int64_t)q.c * q.c + (int64_t)q.s * q.s - ((int64_t)1 << 32);
	return len2 >= -ROT_TOLERANCE && len2 <= ROT_TOLERANCE;
}

static inline fix16_t speed_bound(fix16_t per_step, fix16_t h)
{
	int64_t v = 2 * (((int64_t)per_step << 16) / h);
	if (v < SET_SPEED_LIMIT) {
		v = SET_SPEED_LIMIT;
	}
	return v > INT32_MAX ? INT32_MAX : (fix16_t)v;
}

static inline bool circle_ok(const f2d_circle *c)
{
	return c->radius >= F2D_MIN_SHAPE_SIZE && c->radius <= F2D_MAX_SHAPE_EXTENT &&
	       vec_within(c->center, F2D_MAX_SHAPE_EXTENT) &&
	       (int64_t)f2d_length(c->center) + c->radius <= F2D_MAX_SHAPE_EXTENT;
}

static inline bool anchor_ok(f2d_vec2 p, uint32_t body_type)
{
	return vec_within(p, body_type == 1 + F2D_STATIC_BODY ? 2 * F2D_WORLD_LIMIT
	                                                      : 2 * F2D_MAX_DYNAMIC_SHAPE_EXTENT);
}

/* ---- the in-process snapshot's chain of caches (issue 16) ----
 * What the first step after a restore needs to be an ordinary incremental step: the broad
 * phase's result, bitmap and candidates and the shapes' world caches (broadphase_cache.c), the
 * arbiters' manifolds (snapshot.c, snapshot_load.c). Only written when the chain of the world
 * holds (f2d_bp_chain_holds); the bytes are trusted only under the in-process seal. */
typedef struct f2d_bp_cache_need {
	int32_t pair_words, order, wide, cand, ids; /* what the broad phase's arrays must hold */
	bool fat;
} f2d_bp_cache_need;
/** The broad phase's chain holds: the next step may be incremental (no shape created or
 *  destroyed, nothing stale, the previous call ran in the previous step). */
bool f2d_bp_chain_holds(const f2d_world *w);
/** Bytes of the broad phase's cache block of w (the chain holds). */
size_t f2d_bp_cache_size(const f2d_world *w);
/** Writes that block at p (f2d_bp_cache_size(w) bytes); returns its end. */
uint8_t *f2d_bp_cache_put(const f2d_world *w, uint8_t *p);
/** The length of a block at p (at most avail bytes) for a world of live shapes and shape ids
 *  ids, and the room it needs; 0 when it does not fit or its counts are out of range. */
size_t f2d_bp_cache_parse(const uint8_t *p, size_t avail, int32_t live, int32_t ids,
                          f2d_bp_cache_need *need);
/** Grows the broad phase's arrays to need; false on OOM. */
bool f2d_bp_cache_grow(f2d_world *w, const f2d_bp_cache_need *need);
/** Applies a parsed block (shapes restored, arrays grown); the chain holds after it. */
void f2d_bp_cache_get(f2d_world *w, const uint8_t *p);

/* The in-process form's bodies and arbiters (snapshot_fast.c): the bytes of each section and
 * its writer (returns the end). */
size_t f2d_fast_bodies_size(const f2d_world *w);
uint8_t *f2d_fast_bodies_put(const f2d_world *w, uint8_t *p);
size_t f2d_fast_arbiters_size(const f2d_world *w);
uint8_t *f2d_fast_arbiters_put(const f2d_world *w, uint8_t *p);

/* Validates the payload, makes room, applies it (snapshot_load.c). counts: the id counts of the
 * in-process header, NULL for the portable form. The world is unchanged unless it returns OK
 * (grown arrays and scratch are not state). */
f2d_result f2d_snapshot_load_payload(f2d_world *w, const uint8_t *payload, size_t len,
                                     const uint32_t *counts, const char *what);

/* the bit length of v (0 for 0) */
static inline uint32_t f2d_bit_length(uint32_t v)
{
#if defined(__GNUC__) || defined(__clang__)
	return v == 0 ? 0u : 32u - (uint32_t)__builtin_clz(v);
#else
	uint32_t n = 0;
	for (; v != 0; v >>= 1) {
		++n;
	}
	return n;
#endif
}

/* The other component of a unit rotation whose one component is first: sign(sign_of)
 * round(sqrt(2^32 - first^2)) (0 when first^2 >= 2^32; first^2 < 2^62, exact in int64; + for
 * sign_of = 0). A rotation unit within 2^-14 (the step's) meets it within a few units where
 * |first| is well below 1. Bodies (version 9: q.c against it from q.s and the previous live
 * body's q.c) and recycled manifolds' cached rotations (snapshot_arbiter.c) use it. */
static inline int32_t f2d_snapshot_unit_other(int32_t first, int32_t sign_of)
{
	const int64_t one = (int64_t)1 << 32, f2 = (int64_t)first * first;
	if (f2 >= one) {
		return 0;
	}
	/* round(sqrt(n)) as f2d_isqrt64_round (tests/test_snapshot_portable.c compares the two for
	 * every |first| <= 2^17 and the range edges), by f2d_isqrt64_round_from from x >=
	 * floor(sqrt(n)): 2^16 (1 - t / 2) >= 2^16 sqrt(1 - t) for t = first^2 / 2^32, and
	 * 2^ceil(b / 2) > sqrt(n) for n below 2^b; a settled rotation's first is small, so x is
	 * within a unit or two of the root. n <= 2^32, x in [1, 2^16]. */
	const uint64_t n = (uint64_t)(one - f2);
	const uint32_t b = n >> 32 != 0 ? 33u : f2d_bit_length((uint32_t)n);
	uint64_t x = (uint64_t)(65536 - (f2 >> 17)), p2 = (uint64_t)1 << ((b + 1) / 2);
	const int32_t m = (int32_t)f2d_isqrt64_round_from(n, p2 < x ? p2 : x); /* <= 2^16 */
	return sign_of < 0 ? -m : m;
}

/* ---- the portable form's recycled manifolds (version 9, snapshot_arbiter.c) ----
 * A recycled arbiter's cache and manifold as residuals against a prediction from the rest of
 * the state (include/fix2d/snapshot.h). The residuals, v[], in groups: 0..2 always written (the
 * block below), 3..7 when a bit of the record's mask says so (a group not written is all zero;
 * a written one is not): */
#define RS_QA 0      /* cached_q_a: first, other (modulo 2 L + 1: within +-L, L = 2^16 + 2^8) */
#define RS_QB 2      /* cached_q_b: first, other (likewise) */
#define RS_DC 4      /* dc0 = r_a[0] - r_b[0] against c_b - c_a */
#define RS_SEP 6     /* the points' separations (count) */
#define RS_NORMAL 8  /* the normal x, y (modulo 2 L + 1) */
#define RS_RA 10     /* the points' r_a x, y (2 count) */
#define RS_BASE 14   /* the base separations (count) */
#define RS_RB1 16    /* the second point's r_b x, y (count 2) */
#define RS_VALUES 18
#define RS_GROUPS 8
#define RS_LIM (65536 + 256)
typedef struct f2d_arbiter_residuals {
	int32_t v[RS_VALUES];
} f2d_arbiter_residuals;

/* Group g's first value and its length for a manifold of count points (group order is bit
 * order: the usual ones first, so a mask usually fits one varint byte). */
static inline int32_t f2d_rs_group(int32_t g, int32_t count, int32_t *len)
{
	static const int8_t first[RS_GROUPS] = {RS_QA, RS_QB, RS_DC, RS_SEP,
	                                        RS_NORMAL, RS_RA, RS_BASE, RS_RB1};
	static const int8_t per_point[RS_GROUPS] = {0, 0, 0, 1, 0, 2, 1, 0};
	*len = per_point[g] != 0 ? per_point[g] * count
	                          : (g == 7 ? (count == 2 ? 2 : 0) : 2);
	return first[g];
}
/* Version 9: groups 0..2 (the cached rotations and dc0: six values) are in every recycled
 * record, as one block: a byte W | N << 4 (W 0..15, N 0..7), then the four wide values (the
 * rotations' first components and dc0: f2d_rs_block_index 0..3) zigzag coded in W bits each and
 * the two narrow ones (the rotations' other components, 4..5) in N bits each, low bit first,
 * the last byte's unused bits 0; W and N are the bit lengths of the largest wide and narrow
 * zigzag value. When a wide one needs more than 15 bits or a narrow one more than 7, the byte
 * is 0x80 and the six follow as zigzag varints in the same order. Then, when the head says so,
 * a varint mask of the other groups (bit g - 3 for group g, 1..31) and their residuals. */
#define RS_BLOCK 6
#define RS_WIDE 4
#define RS_WIDE_MAX 15
#define RS_NARROW_MAX 7
#define RS_BLOCK_ESCAPE 0x80u
#define RS_MORE_GROUPS 3 /* groups 3..7 follow the block under a mask */
static inline int32_t f2d_rs_block_index(int32_t k)
{
	return k < 2 ? 2 * k : (k < 4 ? RS_DC + k - 2 : 2 * (k - 4) + 1);
}
/* a rotation or normal group (its residuals within +-L) */
static inline bool f2d_rs_limited(int32_t g)
{
	return g == 0 || g == 1 || g == 4;
}

/* The residuals of a's manifold (a recycled arbiter of the world w). */
void f2d_snapshot_arbiter_residuals(const f2d_world *w, const f2d_arbiter *a,
                                    f2d_arbiter_residuals *r);
/* a's manifold from residuals; a holds its keys, bodies, count and points' ids and impulses,
 * and w the bodies and shapes of the state (any residuals within the ranges above make a
 * manifold within the loader's ranges). */
void f2d_snapshot_arbiter_rebuild(const f2d_world *w, f2d_arbiter *a,
                                  const f2d_arbiter_residuals *r);

#endif
