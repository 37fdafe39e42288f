/* fix2d state hash: XXH3-64 over a canonical little-endian encoding of everything that
 * determines the future of the world. Never raw struct memory (padding, endianness).
 * SPDX-License-Identifier: MIT
 *
 * Encoding (format 7; README "Determinism", "The state hash"), every integer little-endian,
 * fix16 as int32. The hash is XXH3-64 (seed 0) of the top encoding:
 *   u32 format, u64 step_count,
 *   settings: gravity.x, gravity.y, h, iterations, joint_position_iterations, bias_factor,
 *             linear_slop, speculative_distance, restitution_threshold, max_translation,
 *             max_rotation, u8 warm_starting, u8 enable_sleep, linear and angular sleep
 *             tolerances, time_to_sleep
 *   the body id pool (next, free_count, free ids in stack order), u64 bodies section, u64
 *   masses section; the shape id pool, u64 shapes section; the joint id pool, u64 joints
 *   section; u32 arbiter count, u64 arbiters section; then the options (put_options).
 * A section (format 7) is XXH3-64 (seed 0) of its records, each one or two 64-byte stripes:
 *   bodies:   per slot in [0, body_ids.next) 64 bytes (put_body_record): u32 generation, u8
 *             alive, and when alive u8 awake, u8 enable_sleep, u8 fixed_rotation, u32 type,
 *             13 i32 sleep_time, origin, q.c, q.s, center, v, w, force, torque; a dead slot
 *             is its generation and 60 zero bytes.
 *   masses:   XXH3-64 of the live bodies' mass, inertia, local_center in id order (format 6,
 *             cached between changes with the shapes section). Derived values are left out:
 *             inverse mass and inertia (of mass, inertia and fixed_rotation), the shape list
 *             (of the shapes' bodies, in id order) and the joint count (of the joints' bodies),
 *             as the snapshots leave them out.
 *   shapes:   XXH3-64 of the slots' u64 digests in id order (format 5, cached), a slot's digest
 *             = XXH3-64 of the shape's record: u32 generation, u8 alive, and when alive type,
 *             body, density, friction, restitution, polygon (count, vertices, normals,
 *             centroid), circle (center, radius) or capsule, segment, chain segment (centers,
 *             radius, ghosts) (put_shape_record).
 *   joints:   per slot in [0, joint_ids.next) 128 bytes (put_joint_record): u32 generation, u8
 *             alive, 3 zero bytes, body_a, body_b, local_a, local_b, reference_angle, u8
 *             enable_limit, enable_motor, collide_connected, 0, lower, upper, motor_speed,
 *             max_motor_torque, u8 type, u8 enable_spring, 6 zero bytes; impulse,
 *             motor_impulse, lower_impulse, upper_impulse, axis, length, hertz, damping_ratio,
 *             angular_hertz, angular_damping_ratio, max_force, correction_factor,
 *             spring_impulse, angular_impulse; a dead slot is its generation and 124 zero bytes.
 *   arbiters: per arbiter 64 bytes (put_arbiter_record, format 9): shape_a, shape_b,
 *             friction, restitution, u8 count (0..2), 2 zero bytes, u8 recycle; point 0's
 *             u32 id, pn, pt; u64 the geometry digest (0 unless recycle), point 1's
 *             separation when recycle, 4 zero bytes, point 0's separation when recycle; point
 *             1's u32 id, pn, pt; an absent point's fields are zero. The geometry digest
 *             (f2d_arbiter_geometry_digest, core.h) is XXH3-64 of the recycled manifold's
 *             anchors r_a, r_b, normal, base separations and cached rotations.
 *   settings (format 8): the contact_recycle_distance follows time_to_sleep.
 * User data is not part of the hash (it does not change the simulation).
 *
 * Format 9 against 8 (issue 16, the hash's cost): the same content; an arbiter record is one
 * stripe instead of two. The recycled geometry (anchors, normal, base separations, cached
 * rotations: 16 dwords) changes only when a manifold is built or loaded, so its digest is
 * taken there and kept beside the arbiter (w->arbiter_geo), and the record holds the digest
 * where format 8 held the geometry itself. Half the stripes, and the masked geometry loads
 * gone: the arbiters were three quarters of the hash's time on pyramid20.
 * Format 8 against 7 (issue 16, contact recycling): a recycled manifold is state (it is no
 * longer rebuilt from the positions), so an arbiter's record is two stripes with its geometry
 * and the recycling cache when its recycle byte is set; the recycle distance in the settings.
 * Format 7 against 6 (issue 16): the same values covered (fixed_rotation is now also in the
 * body record, the joint type and spring flag in every joint record), in fixed-size records
 * of one or two 64-byte stripes, each section hashed on its own. A record's layout is its
 * struct's cache line (core.h, checked at compile time), so that on x86-64 with AVX-512 a body
 * or arbiter stripe is one masked load (the mask zeroes a dead slot, an absent point and the
 * fields that are not state) and a joint's two stripes two byte permutations (VBMI), fed to
 * XXH3-64's accumulator straight from the register: no buffer, no stores (bodies_512,
 * arbiters_512, joints_vbmi). A record used to be written into a buffer and read back by XXH3
 * (its stripes loaded soon after their bytes were stored), about half of the hash's time.
 * Elsewhere the records are written into a buffer (a body's and an arbiter's line copied and
 * masked on little-endian hosts) and hashed by XXH3 (its AVX2 or AVX-512 loop where the CPU has
 * one); the reference (f2d_hash_world_reference) writes every field: the same bytes, the same
 * function.
 *
 * Older formats: 3 a shape slot is its record's digest; 4 fewer bytes for bodies and shape
 * slots; 5 the shapes section one cached u64; 6 the mass data one cached u64, a body record
 * one cache line, an arbiter's count a byte. Each covered the same content.
 *
 * F2D_HASH_CHECK builds compare every hash with the portable encoder's (every record field by
 * field, every digest and the shapes section recomputed); f2d_hash_world_level lets
 * test_hash_cache check each SIMD level against the reference. */
#include "core.h"

#include <stddef.h>

/* XXH3's AVX2 and AVX-512 loops, compiled with target attributes and chosen at run time (as the
 * solver's kernels): the library itself is built for the baseline x86-64 (SSE2). All of XXH3's
 * loops compute the same function, so the hash does not depend on the CPU. */
#if F2D_X86_SIMD
#include <immintrin.h>
#define XXH_X86DISPATCH 1 /* the accumulator aligned for AVX-512 */
#define XXH_DISPATCH_AVX2 1
#define XXH_DISPATCH_AVX512 1
#define XXH_TARGET_AVX2 __attribute__((target("avx2")))
#define XXH_TARGET_AVX512 __attribute__((target("avx512f")))
#endif
#define XXH_INLINE_ALL
#include <xxhash.h>

#ifdef F2D_HASH_CHECK
#include <stdio.h>
#include <stdlib.h>
#endif

/* Format 7: fixed-size records of whole 64-byte stripes, a section digest each for bodies,
 * joints and arbiters (see the top of the file). Same content covered. Format 9: an arbiter
 * record one stripe, its recycled geometry a cached digest. */
#define F2D_HASH_FORMAT 9u

/* the buffer on a cache line's start */
#if defined(__GNUC__) || defined(__TINYC__)
#define F2D_ALIGN64 __attribute__((aligned(64)))
#else
#define F2D_ALIGN64
#endif

typedef struct encoder {
	uint8_t buf[8192] F2D_ALIGN64;
	XXH3_state_t *state; /* reset at the first flush (a short encoding is hashed in one call) */
	int simd;            /* XXH3's loop: 0 its default, 1 AVX2, 2 AVX-512 */
	bool streamed;       /* bytes went to state */
	size_t len;
} encoder;

static void enc_init(encoder *e, XXH3_state_t *state, int simd)
{
	e->state = state;
	e->simd = simd;
	e->streamed = false;
	e->len = 0;
}

#if F2D_X86_SIMD
static XXH_TARGET_AVX2 void update_avx2(XXH3_state_t *state, const uint8_t *p, size_t n)
{
	(void)XXH3_update(state, p, n, XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}

static XXH_TARGET_AVX512 void update_avx512(XXH3_state_t *state, const uint8_t *p, size_t n)
{
	(void)XXH3_update(state, p, n, XXH3_accumulate_512_avx512, XXH3_scrambleAcc_avx512);
}
/* XXH3-64 of a whole buffer with the AVX2 or AVX-512 loop (the same function as XXH3_64bits) */
static XXH_TARGET_AVX2 uint64_t oneshot_avx2(const uint8_t *p, size_t n)
{
	return XXH3_hashLong_64b_internal(p, n, XXH3_kSecret, sizeof XXH3_kSecret,
	                                  XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}

static XXH_TARGET_AVX512 uint64_t oneshot_avx512(const uint8_t *p, size_t n)
{
	return XXH3_hashLong_64b_internal(p, n, XXH3_kSecret, sizeof XXH3_kSecret,
	                                  XXH3_accumulate_512_avx512, XXH3_scrambleAcc_avx512);
}

/* the same with a seed (XXH3_64bits_withSeed's long-input path, its secret derived from the
 * seed by the same loop) */
static XXH_TARGET_AVX2 uint64_t seeded_avx2(const uint8_t *p, size_t n, uint64_t seed)
{
	return XXH3_hashLong_64b_withSeed_internal(p, n, seed, XXH3_accumulate_512_avx2,
	                                           XXH3_scrambleAcc_avx2,
	                                           XXH3_initCustomSecret_avx2);
}

static XXH_TARGET_AVX512 uint64_t seeded_avx512(const uint8_t *p, size_t n, uint64_t seed)
{
	return XXH3_hashLong_64b_withSeed_internal(p, n, seed, XXH3_accumulate_512_avx512,
	                                           XXH3_scrambleAcc_avx512,
	                                           XXH3_initCustomSecret_avx512);
}
#endif

/* which loop this CPU runs (asked at every hash: a load and a test, no state of ours) */
static int simd_level(void)
{
#if F2D_X86_SIMD
	__builtin_cpu_init();
#ifndef F2D_NO_AVX512
	if (__builtin_cpu_supports("avx512f")) {
		return 2;
	}
#endif
	if (__builtin_cpu_supports("avx2")) {
		return 1;
	}
#endif
	return 0;
}

uint64_t f2d_xxh3_seeded(const void *p, size_t n, uint64_t seed)
{
#if F2D_X86_SIMD
	if (n > XXH3_MIDSIZE_MAX) {
		const int simd = simd_level();
		if (simd == 2) {
			return seeded_avx512(p, n, seed);
		}
		if (simd == 1) {
			return seeded_avx2(p, n, seed);
		}
	}
#endif
	return XXH3_64bits_withSeed(p, n, seed);
}

static void flush(encoder *e)
{
	if (!e->streamed) {
		XXH3_64bits_reset(e->state);
		e->streamed = true;
	}
#if F2D_X86_SIMD
	if (e->simd == 2) {
		update_avx512(e->state, e->buf, e->len);
	} else if (e->simd == 1) {
		update_avx2(e->state, e->buf, e->len);
	} else
#endif
	{
		XXH3_64bits_update(e->state, e->buf, e->len);
	}
	e->len = 0;
}

/* XXH3-64 of everything written (one call when nothing was flushed: the same value) */
static uint64_t enc_digest(encoder *e)
{
	if (!e->streamed) {
#if F2D_X86_SIMD
		if (e->len > XXH3_MIDSIZE_MAX && e->simd == 2) {
			return oneshot_avx512(e->buf, e->len);
		}
		if (e->len > XXH3_MIDSIZE_MAX && e->simd == 1) {
			return oneshot_avx2(e->buf, e->len);
		}
#endif
		return XXH3_64bits(e->buf, e->len);
	}
	flush(e);
	return XXH3_64bits_digest(e->state);
}

static inline void need(encoder *e, size_t n)
{
	if (e->len + n > sizeof e->buf) {
		flush(e);
	}
}

/* The put_ functions write without a bounds check: every record first reserves its largest
 * size with need() (bodies 128 bytes, shapes 256, joints 128, arbiters 64, pool ids 4). */
static inline void put_u8(encoder *e, uint8_t v)
{
	e->buf[e->len++] = v;
}

static inline void put_u32(encoder *e, uint32_t v)
{
	uint8_t *p = e->buf + e->len;
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	e->len += 4;
}

static inline void put_i32(encoder *e, int32_t v)
{
	put_u32(e, (uint32_t)v);
}

static inline void put_u64(encoder *e, uint64_t v)
{
	put_u32(e, (uint32_t)v);
	put_u32(e, (uint32_t)(v >> 32));
}

static inline void put_vec(encoder *e, f2d_vec2 v)
{
	put_i32(e, v.x);
	put_i32(e, v.y);
}

/* Pointer-style writers for the per-step records (bodies, shape slots, joints, arbiters): the
 * record is written through a local pointer and e->len updated once, because a byte store may
 * alias e->len and would otherwise force a reload of it after every field (a serial chain that
 * was most of the hash's time). Same bytes as the put_ functions. */
static inline uint8_t *w_u8(uint8_t *p, uint32_t v)
{
	*p = (uint8_t)v;
	return p + 1;
}

/* Little-endian hosts (known at compile time; tcc, which does not say, takes the byte path):
 * the host's bytes of an integer are its encoding, so a field is one 4-byte store. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0
#endif

static inline uint8_t *w_u32(uint8_t *p, uint32_t v)
{
#if HOST_LE
	memcpy(p, &v, 4);
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
	return p + 4;
}

static inline uint8_t *w_i32(uint8_t *p, int32_t v)
{
	return w_u32(p, (uint32_t)v);
}

static inline uint8_t *w_u64(uint8_t *p, uint64_t v)
{
	return w_u32(w_u32(p, (uint32_t)v), (uint32_t)(v >> 32));
}

static inline uint8_t *w_vec(uint8_t *p, f2d_vec2 v)
{
	return w_i32(w_i32(p, v.x), v.y);
}

static inline void end(encoder *e, const uint8_t *p)
{
	e->len = (size_t)(p - e->buf);
}

/* For the long loops: the write position stays in a local across records (e->len, which a
 * byte store may alias, is written only when the buffer is flushed and after the loop). */
static inline uint8_t *room(encoder *e, uint8_t *p, size_t n)
{
	if ((size_t)(p - e->buf) + n > sizeof e->buf) {
		e->len = (size_t)(p - e->buf);
		flush(e);
		return e->buf + e->len; /* fs_consume keeps bytes */
	}
	return p;
}

static void put_pool(encoder *e, const f2d_id_pool *p)
{
	need(e, 8);
	put_i32(e, p->next);
	put_i32(e, p->free_count);
	for (int32_t i = 0; i < p->free_count; ++i) {
		need(e, 4);
		put_i32(e, p->free_ids[i]);
	}
}

/* ---- the records of format 7 (64-byte stripes) ----
 * Each record is written field by field by the put_*_record functions (the reference, any
 * host); on x86-64 with AVX-512 the same bytes are taken from the struct's cache lines by
 * masked loads and byte permutations (bodies_512, arbiters_512, joints_vbmi), which core.h's
 * layouts allow: the *_LINE conditions below check them at compile time, and a layout that
 * fails them takes the field-by-field path. */

/* a body record: its struct's first cache line (core.h) */
#define BODY_LINE                                                                                  \
	(offsetof(f2d_body, generation) == 0 && offsetof(f2d_body, alive) == 4 &&                  \
	 offsetof(f2d_body, awake) == 5 && offsetof(f2d_body, enable_sleep) == 6 &&                \
	 offsetof(f2d_body, fixed_rotation) == 7 && offsetof(f2d_body, type) == 8 &&               \
	 sizeof(f2d_body_type) == 4 && offsetof(f2d_body, sleep_time) == 12 &&                     \
	 offsetof(f2d_body, origin) == 16 && offsetof(f2d_body, q) == 24 &&                        \
	 offsetof(f2d_body, center) == 32 && offsetof(f2d_body, v) == 40 &&                        \
	 offsetof(f2d_body, w) == 48 && offsetof(f2d_body, force) == 52 &&                         \
	 offsetof(f2d_body, torque) == 60 && sizeof(f2d_body) >= 64 && sizeof(bool) == 1 &&        \
	 sizeof(f2d_vec2) == 8 && offsetof(f2d_vec2, y) == 4 && sizeof(f2d_rot) == 8 &&            \
	 offsetof(f2d_rot, s) == 4 && sizeof(fix16_t) == 4)

/* u32 generation, u8 alive, u8 awake, u8 enable_sleep, u8 fixed_rotation, u32 type, 13 i32;
 * a dead slot: generation and 60 zero bytes (its other fields are not state) */
static uint8_t *put_body_record(uint8_t *p, const f2d_body *b)
{
	p = w_u32(p, b->generation);
	if (!b->alive) {
		memset(p, 0, 60);
		return p + 60;
	}
	p = w_u8(p, 1);
	p = w_u8(p, b->awake ? 1 : 0);
	p = w_u8(p, b->enable_sleep ? 1 : 0);
	p = w_u8(p, b->fixed_rotation ? 1 : 0);
	p = w_u32(p, (uint32_t)b->type);
	p = w_i32(p, b->sleep_time);
	p = w_vec(p, b->origin);
	p = w_i32(p, b->q.c);
	p = w_i32(p, b->q.s);
	p = w_vec(p, b->center);
	p = w_vec(p, b->v);
	p = w_i32(p, b->w);
	p = w_vec(p, b->force);
	return w_i32(p, b->torque);
}

/* An arbiter record (format 9): one 64-byte stripe of 16 dwords, those that are not state
 * zero: 0..3 shape_a, shape_b, friction, restitution; 4 the count byte and the recycle byte
 * (byte 3; bytes 1 and 2 zero); a present point k (k < count) at 5 + 8k: id, pn, pt, and when
 * recycle its separation at 12 (point 0) and 10 (point 1); 8..9 the geometry digest (u64; 0
 * unless recycle: f2d_arbiter_geometry_digest); 11 zero. A manifold that is not recycled is
 * derived (rebuilt from the positions), so only a recycled one's geometry is state, and that
 * geometry changes only when the manifold is built or loaded: the digest is taken there
 * (w->arbiter_geo) instead of at every hash. The stripe is the struct's first line (core.h)
 * with r_a and r_b of point 0 (dwords 8..11, in the digest) replaced by the digest and point
 * 1's separation (struct dword 20). */
#define ARBITER_LINE                                                                               \
	(offsetof(f2d_arbiter, shape_a) == 0 && offsetof(f2d_arbiter, shape_b) == 4 &&             \
	 offsetof(f2d_arbiter, friction) == 8 && offsetof(f2d_arbiter, restitution) == 12 &&       \
	 offsetof(f2d_arbiter, count) == 16 && offsetof(f2d_arbiter, recycle) == 19 &&             \
	 offsetof(f2d_arbiter, points) == 20 && sizeof(f2d_contact_point) == 32 &&                 \
	 offsetof(f2d_contact_point, id) == 0 && offsetof(f2d_contact_point, pn) == 4 &&           \
	 offsetof(f2d_contact_point, pt) == 8 && offsetof(f2d_contact_point, r_a) == 12 &&         \
	 offsetof(f2d_contact_point, r_b) == 20 && offsetof(f2d_contact_point, separation) == 28 && \
	 sizeof(f2d_arbiter) == 128 && sizeof(fix16_t) == 4)

/* an arbiter's point count as its record writes it (0..2 in a valid world; never more than 2
 * points are read) */
static inline int32_t arbiter_points(const f2d_arbiter *a)
{
	return a->count < 0 ? 0 : (a->count > 2 ? 2 : a->count);
}

/* the record's dwords that are state (bit i: dword i; see above): the low 16 bits are those
 * taken from the struct's first line at the same place, bit 10 point 1's separation, bits 8
 * and 9 (the digest) always set (the digest is 0 unless recycle) */
static inline uint32_t arbiter_dwords(const f2d_arbiter *a)
{
	const int32_t n = arbiter_points(a);
	const bool r = a->recycle != 0;
	uint32_t m = 0x31fu;
	m |= n >= 1 ? (r ? 0x10e0u : 0xe0u) : 0u;
	m |= n == 2 ? (r ? 0xe400u : 0xe000u) : 0u;
	return m;
}

/* the digest's 64 bytes (see core.h) */
uint64_t f2d_recycled_geometry_digest(const f2d_arbiter *a)
{
	const int32_t n = arbiter_points(a);
	uint8_t buf[64], *p = buf;
	for (int32_t k = 0; k < 2; ++k) {
		const bool on = k < n;
		p = w_vec(p, on ? a->points[k].r_a : f2d_v(0, 0));
		p = w_vec(p, on ? a->points[k].r_b : f2d_v(0, 0));
	}
	p = w_vec(p, a->normal);
	p = w_i32(p, n >= 1 ? a->base_separation[0] : 0);
	p = w_i32(p, n == 2 ? a->base_separation[1] : 0);
	p = w_i32(p, a->cached_q_a.c);
	p = w_i32(p, a->cached_q_a.s);
	p = w_i32(p, a->cached_q_b.c);
	(void)w_i32(p, a->cached_q_b.s);
	return XXH3_64bits(buf, sizeof buf);
}

/* the record's 64 bytes written field by field (the reference; geo: the geometry digest) */
static uint8_t *put_arbiter_record(uint8_t *p, const f2d_arbiter *a, uint64_t geo)
{
	int32_t d[16] = {0};
	d[0] = a->shape_a;
	d[1] = a->shape_b;
	d[2] = a->friction;
	d[3] = a->restitution;
	d[4] = (int32_t)((uint32_t)(uint8_t)a->count | (uint32_t)a->recycle << 24);
	for (int32_t k = 0; k < 2; ++k) {
		const f2d_contact_point *c = &a->points[k];
		int32_t *q = d + 5 + 8 * k;
		q[0] = (int32_t)c->id;
		q[1] = c->pn;
		q[2] = c->pt;
	}
	d[8] = (int32_t)(uint32_t)geo;
	d[9] = (int32_t)(uint32_t)(geo >> 32);
	d[10] = a->points[1].separation;
	d[12] = a->points[0].separation;
	const uint32_t m = arbiter_dwords(a);
	for (int32_t i = 0; i < 16; ++i) {
		p = w_i32(p, (m >> i & 1u) != 0 ? d[i] : 0);
	}
	return p;
}

/* a joint record's 128 bytes (see the top of the file); a dead slot: generation and zeros */
static uint8_t *put_joint_record(uint8_t *p, const f2d_joint *j)
{
	p = w_u32(p, j->generation);
	if (!j->alive) {
		memset(p, 0, 124);
		return p + 124;
	}
	memset(p, 0, 124);
	p = w_u8(p, 1);
	p += 3;
	p = w_i32(p, j->body_a);
	p = w_i32(p, j->body_b);
	p = w_vec(p, j->local_a);
	p = w_vec(p, j->local_b);
	p = w_i32(p, j->reference_angle);
	p = w_u8(p, j->enable_limit ? 1 : 0);
	p = w_u8(p, j->enable_motor ? 1 : 0);
	p = w_u8(p, j->collide_connected ? 1 : 0);
	p += 1;
	p = w_i32(p, j->lower);
	p = w_i32(p, j->upper);
	p = w_i32(p, j->motor_speed);
	p = w_i32(p, j->max_motor_torque);
	p = w_u8(p, j->type);
	p = w_u8(p, j->enable_spring ? 1 : 0);
	p += 6;
	p = w_vec(p, j->impulse);
	p = w_i32(p, j->motor_impulse);
	p = w_i32(p, j->lower_impulse);
	p = w_i32(p, j->upper_impulse);
	p = w_vec(p, j->axis);
	p = w_i32(p, j->length);
	p = w_i32(p, j->hertz);
	p = w_i32(p, j->damping_ratio);
	p = w_i32(p, j->angular_hertz);
	p = w_i32(p, j->angular_damping_ratio);
	p = w_i32(p, j->max_force);
	p = w_i32(p, j->correction_factor);
	p = w_i32(p, j->spring_impulse);
	return w_i32(p, j->angular_impulse);
}

/* The joint record from the struct's lines 0..2: stripe 0 from lines 0 and 2, stripe 1 from
 * lines 1 and 2 (one two-source byte permutation each). Every source field in its line: */
#define J_IN(f, line)                                                                              \
	(offsetof(f2d_joint, f) / 64 == (line) &&                                                  \
	 (offsetof(f2d_joint, f) + sizeof(((f2d_joint *)0)->f) - 1) / 64 == (line))
#define JOINT_LINES                                                                                \
	(J_IN(generation, 0) && J_IN(alive, 0) && J_IN(body_a, 0) && J_IN(body_b, 0) &&            \
	 J_IN(local_a, 0) && J_IN(local_b, 0) && J_IN(reference_angle, 0) &&                       \
	 J_IN(enable_limit, 0) && J_IN(enable_motor, 0) && J_IN(collide_connected, 0) &&           \
	 J_IN(lower, 0) && J_IN(upper, 0) && J_IN(motor_speed, 0) && J_IN(max_motor_torque, 0) &&  \
	 J_IN(type, 2) && J_IN(enable_spring, 2) && J_IN(impulse, 1) && J_IN(motor_impulse, 1) &&  \
	 J_IN(lower_impulse, 1) && J_IN(upper_impulse, 1) && J_IN(axis, 2) && J_IN(length, 2) &&   \
	 J_IN(hertz, 2) && J_IN(damping_ratio, 2) && J_IN(angular_hertz, 2) &&                     \
	 J_IN(angular_damping_ratio, 2) && J_IN(max_force, 2) && J_IN(correction_factor, 2) &&     \
	 J_IN(spring_impulse, 2) && J_IN(angular_impulse, 2) && sizeof(f2d_joint) >= 192 &&        \
	 sizeof(bool) == 1 && sizeof(f2d_vec2) == 8 && offsetof(f2d_vec2, y) == 4 &&               \
	 sizeof(fix16_t) == 4)

#if F2D_X86_SIMD
/* ---- XXH3-64 of a section straight from registers (x86-64 with AVX-512) ----
 * XXH3-64 (seed 0, the default secret) of an input of 64 n > 240 bytes is: stripe i (bytes
 * [64 i, 64 i + 64)) accumulated with the secret at 8 (i mod 16) for i < n - 1, the
 * accumulators scrambled after each 16th of those, the last stripe accumulated with the secret
 * at 121 (192 - 64 - 7), and the accumulators merged with 64 n * PRIME64_1 (xxhash.h's
 * XXH3_hashLong_64b: its blocks are 16 stripes, nb_blocks = (64 n - 1) / 1024 = (n - 1) / 16,
 * so a block's scramble comes after each 16th stripe of the n - 1). The operations are
 * XXH3_accumulate_512_avx512's and XXH3_scrambleAcc_avx512's, on a register. */
#define AVX512_TARGET __attribute__((target("avx512f")))
#define VBMI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define X_INLINE static inline __attribute__((always_inline))

/* acc + swap(data) + lo(dk) * hi(dk), dk = data ^ key (the sum reassociated: the same value
 * mod 2^64, one add on the accumulator's chain instead of two) */
X_INLINE AVX512_TARGET __m512i x_acc(__m512i acc, __m512i data, const uint8_t *secret)
{
	const __m512i key = _mm512_loadu_si512((const void *)secret);
	const __m512i dk = _mm512_xor_si512(data, key);
	const __m512i dk_lo = _mm512_shuffle_epi32(dk, (_MM_PERM_ENUM)_MM_SHUFFLE(0, 3, 0, 1));
	const __m512i product = _mm512_mul_epu32(dk, dk_lo);
	const __m512i swap = _mm512_shuffle_epi32(data, (_MM_PERM_ENUM)_MM_SHUFFLE(1, 0, 3, 2));
	return _mm512_add_epi64(acc, _mm512_add_epi64(product, swap));
}

/* x_acc split in two (the same sum mod 2^64): acc += lo(dk) * hi(dk), the high half brought
 * down by a shift (vpmuludq reads the low 32 bits of each 64-bit lane: the shuffle's other
 * half is never read), and the data summed unswapped into ds; the swap is linear, so a block's
 * swap(data) terms are one swap of their sum, added before the scramble (x_fold). One shuffle
 * a block instead of two a stripe: the shuffles were the loop's narrowest port. */
X_INLINE AVX512_TARGET __m512i x_prod(__m512i acc, __m512i data, const uint8_t *secret)
{
	const __m512i dk = _mm512_xor_si512(data, _mm512_loadu_si512((const void *)secret));
	return _mm512_add_epi64(acc, _mm512_mul_epu32(dk, _mm512_srli_epi64(dk, 32)));
}

X_INLINE AVX512_TARGET __m512i x_fold(__m512i acc, __m512i ds)
{
	return _mm512_add_epi64(acc,
	                        _mm512_shuffle_epi32(ds, (_MM_PERM_ENUM)_MM_SHUFFLE(1, 0, 3, 2)));
}

X_INLINE AVX512_TARGET __m512i x_scramble(__m512i acc)
{
	const __m512i prime32 = _mm512_set1_epi32((int)XXH_PRIME32_1);
	const __m512i data = _mm512_xor_si512(acc, _mm512_srli_epi64(acc, 47));
	const __m512i key =
	    _mm512_loadu_si512((const void *)(XXH3_kSecret + XXH_SECRET_DEFAULT_SIZE - 64));
	const __m512i dk = _mm512_xor_si512(data, key);
	const __m512i dk_hi = _mm512_shuffle_epi32(dk, (_MM_PERM_ENUM)_MM_SHUFFLE(0, 3, 0, 1));
	const __m512i lo = _mm512_mul_epu32(dk, prime32);
	const __m512i hi = _mm512_mul_epu32(dk_hi, prime32);
	return _mm512_add_epi64(lo, _mm512_slli_epi64(hi, 32));
}

X_INLINE AVX512_TARGET __m512i x_init(void)
{
	static const uint64_t init[8] = XXH3_INIT_ACC;
	return _mm512_loadu_si512((const void *)init);
}

static AVX512_TARGET uint64_t x_finish(__m512i acc, __m512i last, uint64_t stripes)
{
	uint64_t a[8] F2D_ALIGN64;
	acc = x_acc(acc, last,
	            XXH3_kSecret + XXH_SECRET_DEFAULT_SIZE - 64 - XXH_SECRET_LASTACC_START);
	_mm512_store_si512((void *)a, acc);
	return XXH3_mergeAccs(a, XXH3_kSecret + XXH_SECRET_MERGEACCS_START,
	                      64 * stripes * XXH_PRIME64_1);
}

/* a body's stripe: its first line, only the generation of a dead slot */
X_INLINE AVX512_TARGET __m512i body_stripe(const f2d_body *b)
{
	return _mm512_maskz_loadu_epi32(b->alive ? (__mmask16)0xffff : (__mmask16)0x0001,
	                                (const void *)b);
}

/* 16 stripes of a whole block with the secret at constant offsets, then the scramble (the
 * block has stripes after it): STRIPE(k) is the block's stripe k */
#define X_BLOCK(acc, STRIPE)                                                                       \
	do {                                                                                       \
		__m512i ds_ = _mm512_setzero_si512(), d_;                                          \
		d_ = STRIPE(0);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 0);                                           \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(1);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 8);                                           \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(2);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 16);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(3);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 24);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(4);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 32);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(5);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 40);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(6);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 48);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(7);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 56);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(8);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 64);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(9);                                                                    \
		acc = x_prod(acc, d_, XXH3_kSecret + 72);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(10);                                                                   \
		acc = x_prod(acc, d_, XXH3_kSecret + 80);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(11);                                                                   \
		acc = x_prod(acc, d_, XXH3_kSecret + 88);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(12);                                                                   \
		acc = x_prod(acc, d_, XXH3_kSecret + 96);                                          \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(13);                                                                   \
		acc = x_prod(acc, d_, XXH3_kSecret + 104);                                         \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(14);                                                                   \
		acc = x_prod(acc, d_, XXH3_kSecret + 112);                                         \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		d_ = STRIPE(15);                                                                   \
		acc = x_prod(acc, d_, XXH3_kSecret + 120);                                         \
		ds_ = _mm512_add_epi64(ds_, d_);                                                   \
		acc = x_scramble(x_fold(acc, ds_));                                                \
	} while (0)

/* A section of n > 3 records, X_AT(j) the stripe of record j (r the records, aux the
 * arbiters' geometry digests, NULL for the bodies): whole 16-stripe blocks while a stripe
 * follows them, the rest of the n - 1 stripes, then the last (XXH3's final stripe); one
 * definition for the bodies' and the arbiters' sections */
#define X_SECTION_K(k) X_AT(i + (k))
#define X_SECTION_512(name, type)                                                                  \
	static AVX512_TARGET uint64_t name(const type *r, const uint64_t *aux, int32_t n)         \
	{                                                                                         \
		(void)aux;                                                                        \
		__m512i acc = x_init();                                                           \
		int32_t i = 0;                                                                    \
		for (; i + 16 < n; i += 16) {                                                     \
			X_BLOCK(acc, X_SECTION_K);                                                \
		}                                                                                 \
		for (; i < n - 1; ++i) {                                                          \
			acc = x_acc(acc, X_AT(i), XXH3_kSecret + 8 * (i & 15));                   \
		}                                                                                 \
		return x_finish(acc, X_AT(n - 1), (uint64_t)n);                                   \
	}

/* the bodies section of n > 3 slots */
#define X_AT(j) body_stripe(&r[j])
X_SECTION_512(bodies_512, f2d_body)
#undef X_AT

/* an arbiter's stripe (format 9): a masked load of its first line (the mask drops point 0's
 * r_a, r_b, dwords 8..11, and what is not state; dword 4 keeps the count and recycle bytes),
 * the geometry digest broadcast into dwords 8..9 and point 1's separation into dword 10 (merge
 * masked broadcasts from memory) */
X_INLINE AVX512_TARGET __m512i arbiter_stripe(const f2d_arbiter *a, const uint64_t *geo)
{
	const uint32_t m = arbiter_dwords(a);
	const __m512i keep = _mm512_mask_set1_epi32(_mm512_set1_epi32(-1), 0x0010, (int)0xff0000ff);
	__m512i v = _mm512_maskz_loadu_epi32((__mmask16)(m & 0xf0ffu), (const void *)a);
	v = _mm512_and_si512(v, keep);
	v = _mm512_mask_set1_epi64(v, (__mmask8)0x10, (long long)*geo);
	return _mm512_mask_set1_epi32(v, (__mmask16)(m & 0x0400u), a->points[1].separation);
}

/* the arbiters section of n > 3 arbiters */
#define X_AT(j) arbiter_stripe(&r[j], &aux[j])
X_SECTION_512(arbiters_512, f2d_arbiter)
#undef X_AT
#undef X_SECTION_K

/* the joint record's permutations: record byte r of stripe k takes byte idx[k][r] of (line k,
 * line 2) (0..63 the first, 64..127 the second) where mask[k] has bit r */
typedef struct joint_perm {
	uint8_t idx[2][64];
	uint64_t mask[2];
} joint_perm;

static void jp_put(joint_perm *jp, int stripe, int at, size_t off, size_t size)
{
	for (size_t i = 0; i < size; ++i) {
		size_t o = off + i;
		jp->idx[stripe][at + (int)i] = (uint8_t)(o / 64 == 2 ? 64 + o % 64 : o % 64);
		jp->mask[stripe] |= (uint64_t)1 << (at + (int)i);
	}
}

#define JP(stripe, at, f)                                                                          \
	jp_put(jp, stripe, at, offsetof(f2d_joint, f), sizeof(((f2d_joint *)0)->f))

static void joint_perm_make(joint_perm *jp)
{
	memset(jp, 0, sizeof *jp);
	JP(0, 0, generation);
	JP(0, 4, alive);
	JP(0, 8, body_a);
	JP(0, 12, body_b);
	JP(0, 16, local_a);
	JP(0, 24, local_b);
	JP(0, 32, reference_angle);
	JP(0, 36, enable_limit);
	JP(0, 37, enable_motor);
	JP(0, 38, collide_connected);
	JP(0, 40, lower);
	JP(0, 44, upper);
	JP(0, 48, motor_speed);
	JP(0, 52, max_motor_torque);
	JP(0, 56, type);
	JP(0, 57, enable_spring);
	JP(1, 0, impulse);
	JP(1, 8, motor_impulse);
	JP(1, 12, lower_impulse);
	JP(1, 16, upper_impulse);
	JP(1, 20, axis);
	JP(1, 28, length);
	JP(1, 32, hertz);
	JP(1, 36, damping_ratio);
	JP(1, 40, angular_hertz);
	JP(1, 44, angular_damping_ratio);
	JP(1, 48, max_force);
	JP(1, 52, correction_factor);
	JP(1, 56, spring_impulse);
	JP(1, 60, angular_impulse);
}
#undef JP

/* joint stripe k (0 or 1) of a slot: line k and line 2 permuted, masked (a dead slot keeps its
 * generation) */
X_INLINE VBMI_TARGET __m512i joint_stripe(const f2d_joint *j, int k, __m512i idx, uint64_t mask)
{
	const unsigned char *p = (const unsigned char *)j;
	const __m512i line = _mm512_loadu_si512((const void *)(p + 64 * k));
	const __m512i l2 = _mm512_loadu_si512((const void *)(p + 128));
	return _mm512_maskz_permutex2var_epi8(j->alive ? mask : (k == 0 ? 0xf : 0), line, idx, l2);
}

/* the joints section of n > 1 slots (two stripes a slot; as bodies_512) */
static VBMI_TARGET uint64_t joints_vbmi(const f2d_joint *j, int32_t n)
{
	joint_perm jp;
	joint_perm_make(&jp);
	const __m512i i0 = _mm512_loadu_si512((const void *)jp.idx[0]);
	const __m512i i1 = _mm512_loadu_si512((const void *)jp.idx[1]);
	const uint64_t m0 = jp.mask[0], m1 = jp.mask[1];
	const int32_t stripes = 2 * n;
	__m512i acc = x_init();
	int32_t t = 0;
	for (; t + 16 < stripes; t += 16) {
#define JOINT_K(k) joint_stripe(&j[t / 2 + (k) / 2], (k)&1, (k)&1 ? i1 : i0, (k)&1 ? m1 : m0)
		X_BLOCK(acc, JOINT_K);
#undef JOINT_K
	}
	for (; t < stripes - 1; ++t) {
		const int k = t & 1;
		acc = x_acc(acc, joint_stripe(&j[t / 2], k, k ? i1 : i0, k ? m1 : m0),
		            XXH3_kSecret + 8 * (t & 15));
	}
	return x_finish(acc, joint_stripe(&j[n - 1], 1, i1, m1), (uint64_t)stripes);
}

/* VBMI on this CPU (asked at every hash, as simd_level) */
static bool have_vbmi(void)
{
#ifndef F2D_NO_AVX512
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
#else
	return false;
#endif
}
#endif

/* The shape's record (what its digest covers): everything of the shape that is state, except
 * its list link (kept out so that creating or destroying a sibling changes no digest). */
static void put_shape_record(encoder *e, const f2d_shape *s)
{
	put_u32(e, s->generation);
	put_u8(e, s->alive ? 1 : 0);
	if (!s->alive) {
		return;
	}
	put_u8(e, (uint8_t)s->type);
	put_i32(e, s->body);
	put_i32(e, s->density);
	put_i32(e, s->friction);
	put_i32(e, s->restitution);
	if (s->type == F2D_POLYGON_SHAPE) {
		put_i32(e, s->polygon.count);
		for (int32_t i = 0; i < s->polygon.count; ++i) {
			put_vec(e, s->polygon.vertices[i]);
			put_vec(e, s->polygon.normals[i]);
		}
		put_vec(e, s->polygon.centroid);
	} else if (s->type == F2D_CIRCLE_SHAPE) {
		put_vec(e, s->circle.center);
		put_i32(e, s->circle.radius);
	} else { /* capsule 2, segment 3, chain segment 4 (the type byte above tells them) */
		put_vec(e, s->capsule.center1);
		put_vec(e, s->capsule.center2);
		put_i32(e, s->capsule.radius);
		if (s->type == F2D_CHAIN_SEGMENT_SHAPE) {
			put_vec(e, s->ghost1);
			put_vec(e, s->ghost2);
		}
	}
}

/* XXH3-64 of the shape's record, from scratch. */
static uint64_t shape_digest(const f2d_shape *s)
{
	encoder e;
	enc_init(&e, NULL,
	         0); /* a record (< 256 bytes) never fills the buffer: nothing is flushed */
	need(&e, 256);
	put_shape_record(&e, s);
	return XXH3_64bits(e.buf, e.len);
}

void f2d_shape_refresh_digest(f2d_world *w, f2d_shape *s)
{
	s->digest = shape_digest(s);
	w->shapes_cached = false; /* the shapes section folds this digest */
}

/* the nb live bodies with options other than the defaults. The loop stops after the nb
 * records there are: a world of the soft step writes the options section for its substep
 * word, and then read every body's second cache line for none (the soft step's pyramid20 hash
 * took 45 % longer than its Gauss-Seidel twin's). */
static void put_body_options(encoder *e, const f2d_world *w, int32_t nb)
{
	for (int32_t i = 0, k = 0; k < nb && i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		if (b->alive && !f2d_body_default_options(b)) {
			k++;
			need(e, 32);
			put_i32(e, i);
			put_i32(e, b->gravity_scale);
			put_i32(e, b->linear_damping);
			put_i32(e, b->angular_damping);
			put_u8(e, b->fixed_rotation ? 1 : 0);
		}
	}
}

/* the ns live shapes with filters or flags other than the defaults (the loop stops after them,
 * as the bodies') */
static void put_shape_options(encoder *e, const f2d_world *w, int32_t ns)
{
	for (int32_t i = 0, k = 0; k < ns && i < w->shape_ids.next; ++i) {
		const f2d_shape *s = &w->shapes[i];
		if (s->alive && !f2d_shape_default_options(s)) {
			k++;
			need(e, 32);
			put_i32(e, i);
			put_u64(e, s->filter.category_bits);
			put_u64(e, s->filter.mask_bits);
			put_i32(e, s->filter.group_index);
			put_u8(e, (uint8_t)f2d_shape_option_flags(s));
		}
	}
}

/* the sensor overlaps and the pending ends */
static void put_event_state(encoder *e, const f2d_events *ev)
{
	need(e, 4);
	put_i32(e, ev->overlap_count);
	for (int32_t i = 0; i < ev->overlap_count; ++i) {
		need(e, 8);
		put_u64(e, ev->overlaps[i]);
	}
	need(e, 4);
	put_i32(e, ev->pending_count);
	for (int32_t i = 0; i < ev->pending_count; ++i) {
		const f2d_pending_end *p = &ev->pending[i];
		need(e, 20);
		put_u8(e, p->sensor);
		put_i32(e, p->a);
		put_u32(e, p->gen_a);
		put_i32(e, p->b);
		put_u32(e, p->gen_b);
	}
}

/* Options and event state (format 2 extension): written only when something is not at its
 * default, so the hash of a world without them is the one format 2 always gave (the golden
 * chains). After the arbiter section (which is self-delimiting) either nothing follows, or:
 *   u32 hit_event_threshold,
 *   u32 n; n bodies with options other than the defaults: i32 id, gravity_scale,
 *       linear_damping, angular_damping, u8 fixed_rotation,
 *   u32 n; n shapes with filters or flags other than the defaults: i32 id, u64 category,
 *       u64 mask, i32 group, u8 flags (1 sensor, 2 contact events, 4 hit events, 8 sensor
 *       events),
 *   u32 n; n sensor overlaps (u64 key), u32 n; n pending ends (u8 kind, i32 a, u32 gen_a, i32 b,
 *       u32 gen_b),
 *   [i32 substep_count, only when it is not 0 (the soft step; a world of the Gauss-Seidel solver
 *       hashes as before)]. */
static void put_options(encoder *e, const f2d_world *w, int32_t nb, int32_t ns)
{
	/* nb, ns: the live bodies and shapes with options other than the defaults (counted by
	 * masses_section and shapes_section) */
	const f2d_events *ev = &w->events;
	if (nb == 0 && ns == 0 && ev->overlap_count == 0 && ev->pending_count == 0 &&
	    w->def.hit_event_threshold == F2D_ONE && w->def.substep_count == 0) {
		return;
	}
	need(e, 8);
	put_i32(e, w->def.hit_event_threshold);
	put_i32(e, nb);
	put_body_options(e, w, nb);
	need(e, 4);
	put_i32(e, ns);
	put_shape_options(e, w, ns);
	put_event_state(e, ev);
	if (w->def.substep_count != 0) {
		need(e, 4);
		put_i32(e, w->def.substep_count);
	}
}

/* The shapes section's digest (format 5): XXH3-64 (seed 0) of the u64 digests of the shape
 * slots [0, shape_ids.next) in id order (each the digest of its record, put_shape_record);
 * *ns: the live shapes with options other than the defaults (for put_options). fresh_digests:
 * every digest recomputed from its record instead of the one cached in the shape. */
static uint64_t shapes_section(const f2d_world *w, bool fresh_digests, int simd, int32_t *ns)
{
	XXH3_state_t state;
	encoder e;
	enc_init(&e, &state, simd);
	int32_t count = 0;
	const int32_t n = w->shape_ids.next;
	uint8_t *p = e.buf;
	for (int32_t i = 0; i < n; ++i) {
		const f2d_shape *s = &w->shapes[i];
		count += s->alive && !f2d_shape_default_options(s) ? 1 : 0;
		p = room(&e, p, 8);
		p = w_u64(p, fresh_digests ? shape_digest(s) : s->digest);
	}
	end(&e, p);
	*ns = count;
	return enc_digest(&e);
}

/* The bodies' mass section's digest (format 6): XXH3-64 (seed 0) of, per live body slot in
 * [0, body_ids.next) in id order, i32 mass, inertia, local centre x, y (which slots are live
 * the body records say). */
static uint64_t masses_section(const f2d_world *w, int simd, int32_t *nb)
{
	int32_t count = 0;
	XXH3_state_t state;
	encoder e;
	enc_init(&e, &state, simd);
	const int32_t n = w->body_ids.next;
	uint8_t *p = e.buf;
	for (int32_t i = 0; i < n; ++i) {
		const f2d_body *b = &w->bodies[i];
		if (b->alive) {
			count += f2d_body_default_options(b) ? 0 : 1;
			p = room(&e, p, 16);
			p = w_i32(p, b->mass);
			p = w_i32(p, b->inertia);
			p = w_vec(p, b->local_center);
		}
	}
	end(&e, p);
	*nb = count;
	return enc_digest(&e);
}

void f2d_hash_shapes_changed(f2d_world *w)
{
	w->shapes_cached = false;
}

void f2d_hash_cache_shapes(f2d_world *w)
{
	if (!w->shapes_cached) {
		const int simd = simd_level();
		w->shapes_digest = shapes_section(w, false, simd, &w->shapes_options);
		w->masses_digest = masses_section(w, simd, &w->bodies_options);
		w->shapes_cached = true;
	}
}

/* the format and the settings */
static void put_settings(encoder *e, const f2d_world *w)
{
	const f2d_world_def *d = &w->def;
	need(e, 96);
	put_u32(e, F2D_HASH_FORMAT);
	put_u64(e, w->step_count);
	put_vec(e, w->gravity);
	put_i32(e, w->h);
	put_i32(e, d->iterations);
	put_i32(e, d->joint_position_iterations);
	put_i32(e, d->bias_factor);
	put_i32(e, d->linear_slop);
	put_i32(e, d->speculative_distance);
	put_i32(e, d->restitution_threshold);
	put_i32(e, d->max_translation);
	put_i32(e, d->max_rotation);
	put_u8(e, d->warm_starting ? 1 : 0);
	put_u8(e, d->enable_sleep ? 1 : 0);
	put_i32(e, d->linear_sleep_tolerance);
	put_i32(e, d->angular_sleep_tolerance);
	put_i32(e, d->time_to_sleep);
	put_i32(e, d->contact_recycle_distance); /* format 8 */
}

/* format 6: the bodies' mass data, one u64 (cached between changes, recomputed when fresh);
 * returns the live bodies with options (for put_options) */
static int32_t put_masses(encoder *e, const f2d_world *w, bool fresh)
{
	int32_t nb;
	need(e, 8);
	if (!fresh && w->shapes_cached) {
		put_u64(e, w->masses_digest);
		nb = w->bodies_options;
	} else {
		put_u64(e, masses_section(w, e->simd, &nb));
	}
	return nb;
}

/* format 5: the shapes section, one u64 (the step's case: the cached one); returns the live
 * shapes with options (for put_options) */
static int32_t put_shapes(encoder *e, const f2d_world *w, bool fresh, bool fresh_digests)
{
	int32_t ns;
	need(e, 8);
	if (!fresh && w->shapes_cached) {
		put_u64(e, w->shapes_digest);
		ns = w->shapes_options;
	} else {
		put_u64(e, shapes_section(w, fresh_digests, e->simd, &ns));
	}
	return ns;
}

/* ---- the sections written record by record (the reference, and hosts without AVX-512) ---- */
/* copy: on a little-endian host whose layout is the record's (BODY_LINE, ARBITER_LINE), a
 * live body's record is a copy of its first line, an arbiter's a copy of its first line with
 * the gap and an absent point zeroed (not in the reference, which writes every field) */
static uint64_t bodies_written(const f2d_world *w, int simd, bool copy)
{
	XXH3_state_t state;
	encoder e;
	enc_init(&e, &state, simd);
	uint8_t *p = e.buf;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		p = room(&e, p, 64);
		if (BODY_LINE && HOST_LE && copy && b->alive) {
			memcpy(p, b, 64);
			p += 64;
		} else {
			p = put_body_record(p, b);
		}
	}
	end(&e, p);
	return enc_digest(&e);
}

/* a joint's record as runs of its struct (core.h): bytes 0..55 of line 0 (the pads zeroed),
 * impulse .. upper_impulse, axis .. angular_impulse */
#define JOINT_RUNS                                                                                 \
	(offsetof(f2d_joint, generation) == 0 && offsetof(f2d_joint, alive) == 4 &&                \
	 offsetof(f2d_joint, body_a) == 8 && offsetof(f2d_joint, body_b) == 12 &&                  \
	 offsetof(f2d_joint, local_a) == 16 && offsetof(f2d_joint, local_b) == 24 &&               \
	 offsetof(f2d_joint, reference_angle) == 32 && offsetof(f2d_joint, enable_limit) == 36 &&  \
	 offsetof(f2d_joint, enable_motor) == 37 &&                                                \
	 offsetof(f2d_joint, collide_connected) == 38 && offsetof(f2d_joint, lower) == 40 &&       \
	 offsetof(f2d_joint, upper) == 44 && offsetof(f2d_joint, motor_speed) == 48 &&             \
	 offsetof(f2d_joint, max_motor_torque) == 52 &&                                            \
	 offsetof(f2d_joint, motor_impulse) == offsetof(f2d_joint, impulse) + 8 &&                 \
	 offsetof(f2d_joint, lower_impulse) == offsetof(f2d_joint, impulse) + 12 &&                \
	 offsetof(f2d_joint, upper_impulse) == offsetof(f2d_joint, impulse) + 16 &&                \
	 offsetof(f2d_joint, length) == offsetof(f2d_joint, axis) + 8 &&                           \
	 offsetof(f2d_joint, hertz) == offsetof(f2d_joint, axis) + 12 &&                           \
	 offsetof(f2d_joint, damping_ratio) == offsetof(f2d_joint, axis) + 16 &&                   \
	 offsetof(f2d_joint, angular_hertz) == offsetof(f2d_joint, axis) + 20 &&                   \
	 offsetof(f2d_joint, angular_damping_ratio) == offsetof(f2d_joint, axis) + 24 &&           \
	 offsetof(f2d_joint, max_force) == offsetof(f2d_joint, axis) + 28 &&                       \
	 offsetof(f2d_joint, correction_factor) == offsetof(f2d_joint, axis) + 32 &&               \
	 offsetof(f2d_joint, spring_impulse) == offsetof(f2d_joint, axis) + 36 &&                  \
	 offsetof(f2d_joint, angular_impulse) == offsetof(f2d_joint, axis) + 40 &&                 \
	 sizeof(bool) == 1 && sizeof(f2d_vec2) == 8 && offsetof(f2d_vec2, y) == 4)

static uint64_t joints_written(const f2d_world *w, int simd, bool copy)
{
	XXH3_state_t state;
	encoder e;
	enc_init(&e, &state, simd);
	uint8_t *p = e.buf;
	for (int32_t i = 0; i < w->joint_ids.next; ++i) {
		const f2d_joint *j = &w->joints[i];
		p = room(&e, p, 128);
		if (JOINT_RUNS && HOST_LE && copy && j->alive) {
			memcpy(p, j, 56);
			memset(p + 5, 0, 3);
			p[39] = 0;
			p[56] = j->type;
			p[57] = j->enable_spring ? 1 : 0;
			memset(p + 58, 0, 6);
			memcpy(p + 64, &j->impulse, 20);
			memcpy(p + 84, &j->axis, 44);
			p += 128;
		} else {
			p = put_joint_record(p, j);
		}
	}
	end(&e, p);
	return enc_digest(&e);
}

static uint64_t arbiters_written(const f2d_world *w, int simd, bool copy)
{
	XXH3_state_t state;
	encoder e;
	enc_init(&e, &state, simd);
	uint8_t *p = e.buf;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		p = room(&e, p, 64);
		if (ARBITER_LINE && HOST_LE && copy) {
			const uint32_t m = arbiter_dwords(a);
			const uint64_t geo = w->arbiter_geo[i];
			memcpy(p, a, 64);
			p[17] = p[18] = 0; /* frozen, active: per step */
			memcpy(p + 32, &geo, 8);
			memcpy(p + 40, &a->points[1].separation, 4);
			for (int32_t k = 0; k < 16; ++k) {
				if ((m >> k & 1u) == 0) {
					memset(p + 4 * k, 0, 4);
				}
			}
			p += 64;
		} else {
			p = put_arbiter_record(p, a,
			                       copy ? w->arbiter_geo[i] : f2d_arbiter_geometry_digest(a));
		}
	}
	end(&e, p);
	return enc_digest(&e);
}

/* The bodies, joints and arbiters sections: from registers when regs is set, the
 * CPU has AVX-512 and the section is long enough for XXH3's long form (more than 240 bytes);
 * else written record by record. */
static uint64_t bodies_section(const f2d_world *w, int simd, bool regs)
{
#if F2D_X86_SIMD
	if (BODY_LINE && HOST_LE && regs && simd == 2 && w->body_ids.next > 3) {
		return bodies_512(w->bodies, NULL, w->body_ids.next);
	}
#else
	(void)regs;
#endif
	return bodies_written(w, simd, regs);
}

static uint64_t joints_section(const f2d_world *w, int simd, bool regs)
{
#if F2D_X86_SIMD
	if (JOINT_LINES && HOST_LE && regs && simd == 2 && w->joint_ids.next > 1 && have_vbmi()) {
		return joints_vbmi(w->joints, w->joint_ids.next);
	}
#else
	(void)regs;
#endif
	return joints_written(w, simd, regs);
}

static uint64_t arbiters_section(const f2d_world *w, int simd, bool regs)
{
#if F2D_X86_SIMD
	if (ARBITER_LINE && HOST_LE && regs && simd == 2 && w->arbiter_count > 3) {
		return arbiters_512(w->arbiters, w->arbiter_geo, w->arbiter_count);
	}
#else
	(void)regs;
#endif
	return arbiters_written(w, simd, regs);
}

/* fresh: every record written field by field and the cached sections (masses, shapes)
 * recomputed; fresh_digests: the shape digests computed from the records instead of the cached
 * ones (both: the reference) */
static uint64_t hash_world(const f2d_world *w, bool fresh, bool fresh_digests, int level)
{
	XXH3_state_t state;
	encoder e;
	enc_init(&e, &state, level);
	const bool regs = !fresh;
	put_settings(&e, w);
	put_pool(&e, &w->body_ids);
	need(&e, 8);
	put_u64(&e, bodies_section(w, level, regs));
	int32_t nb = put_masses(&e, w, fresh); /* for put_options */
	put_pool(&e, &w->shape_ids);
	int32_t ns = put_shapes(&e, w, fresh, fresh_digests);
	put_pool(&e, &w->joint_ids);
	need(&e, 8);
	put_u64(&e, joints_section(w, level, regs));
	need(&e, 12);
	put_i32(&e, w->arbiter_count);
	put_u64(&e, arbiters_section(w, level, regs));
	put_options(&e, w, nb, ns);
	return enc_digest(&e);
}

uint64_t f2d_hash_world(const f2d_world *w)
{
#ifdef F2D_HASH_CHECK
	/* debug switch (on in FIX2D_SANITIZE builds): every cached digest must be the record's */
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		if (w->shapes[i].digest != shape_digest(&w->shapes[i])) {
			fprintf(stderr,
			        "fix2d: F2D_HASH_CHECK: shape %d's cached digest is stale\n",
			        (int)i);
			abort();
		}
	}
	/* and every arbiter's cached geometry digest is its arbiter's (format 9) */
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		if (w->arbiter_geo[i] != f2d_arbiter_geometry_digest(&w->arbiters[i])) {
			fprintf(stderr,
			        "fix2d: F2D_HASH_CHECK: arbiter %d's geometry digest is stale\n",
			        (int)i);
			abort();
		}
	}
	/* and every body's joint list (derived, joint.c) holds exactly its live joints */
	if (!f2d_joint_lists_consistent(w)) {
		fprintf(stderr, "fix2d: F2D_HASH_CHECK: a body's joint list is stale\n");
		abort();
	}
	/* and the fast encoders (the cached digests, the sections from registers) give the
	 * portable encoder's bytes: a record they miss or misplace changes the hash */
	uint64_t h = hash_world(w, false, false, simd_level());
	/* the shapes section recomputed from scratch */
	if (h != hash_world(w, true, true, simd_level())) {
		fprintf(stderr,
		        "fix2d: F2D_HASH_CHECK: the fast hash differs from the reference\n");
		abort();
	}
	return h;
#else
	return hash_world(w, false, false, simd_level());
#endif
}

uint64_t f2d_hash_world_reference(const f2d_world *w)
{
	return hash_world(w, true, true, simd_level());
}

uint64_t f2d_hash_world_level(const f2d_world *w, int level)
{
	const int cpu = simd_level();
	return hash_world(w, false, false, level < cpu ? (level < 0 ? 0 : level) : cpu);
}

/* ---- phase hashes (f2d_world_step_traced) ----
 * Each phase's output, encoded as above (little-endian, fix16 as int32) after a u8 phase
 * number (so that equal bytes of two phases give different hashes), hashed with XXH3-64:
 *   pairs:      u32 pair count, then the u64 pair keys (shape a << 32 | shape b) in order
 *   manifolds:  u32 arbiter count; per arbiter shape a, shape b, u8 1 when a body of it
 *               can move (awake dynamic or moving kinematic), count, per point u32 feature
 *               id, pn, pt, and when a body can move the normal and per point r_a, r_b,
 *               separation (the manifold of a pair whose bodies all rest is not state: a
 *               loaded snapshot has none, and a step that moves nothing does not rebuild it)
 *   velocities: per live body in id order: u32 id, v, w; per arbiter per point pn, pt; per
 *               live joint u32 id, impulse, motor, lower and upper impulses
 *   positions:  per live body in id order: u32 id, origin, q, centre
 *   islands:    u32 awake body count, i32 island count (-1 with sleep off); per live body
 *               u32 id, u8 (1 awake, 2 sleep enabled), sleep_time */
static void phase_begin(encoder *e, XXH3_state_t *state, f2d_phase phase)
{
	enc_init(e, state, 0);
	put_u8(e, (uint8_t)phase);
}

static uint64_t phase_end(encoder *e)
{
	return enc_digest(e);
}

/* pairs: u32 pair count, the u64 pair keys in order */
static void phase_pairs(encoder *e, const f2d_world *w)
{
	need(e, 4);
	put_i32(e, w->pair_count);
	for (int32_t i = 0; i < w->pair_count; ++i) {
		need(e, 8);
		put_u64(e, w->pairs[i]);
	}
}

/* manifolds: u32 arbiter count, then per arbiter its record (see above) */
static void phase_manifolds(encoder *e, const f2d_world *w)
{
	need(e, 4);
	put_i32(e, w->arbiter_count);
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		bool moves = f2d_body_active(&w->bodies[a->body_a]) ||
		             f2d_body_active(&w->bodies[a->body_b]);
		need(e, 128);
		put_i32(e, a->shape_a);
		put_i32(e, a->shape_b);
		put_u8(e, moves ? 1 : 0);
		put_i32(e, a->count);
		if (moves) {
			put_vec(e, a->normal);
		}
		for (int32_t k = 0; k < a->count; ++k) {
			const f2d_contact_point *p = &a->points[k];
			put_u32(e, p->id);
			put_i32(e, p->pn);
			put_i32(e, p->pt);
			if (moves) {
				put_vec(e, p->r_a);
				put_vec(e, p->r_b);
				put_i32(e, p->separation);
			}
		}
	}
}

/* velocities: the live bodies' v and w, the contact impulses, the live joints' impulses */
static void phase_velocities(encoder *e, const f2d_world *w)
{
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		if (b->alive) {
			need(e, 16);
			put_i32(e, i);
			put_vec(e, b->v);
			put_i32(e, b->w);
		}
	}
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		need(e, 16);
		for (int32_t k = 0; k < a->count; ++k) {
			put_i32(e, a->points[k].pn);
			put_i32(e, a->points[k].pt);
		}
	}
	for (int32_t i = 0; i < w->joint_ids.next; ++i) {
		const f2d_joint *j = &w->joints[i];
		if (j->alive) {
			need(e, 24);
			put_i32(e, i);
			put_vec(e, j->impulse);
			put_i32(e, j->motor_impulse);
			put_i32(e, j->lower_impulse);
			put_i32(e, j->upper_impulse);
			if (j->type != 0) { /* not for revolute joints */
				need(e, 8);
				put_i32(e, j->spring_impulse);
				put_i32(e, j->angular_impulse);
			}
		}
	}
}

/* positions: the live bodies' origin, q, centre */
static void phase_positions(encoder *e, const f2d_world *w)
{
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		if (b->alive) {
			need(e, 32);
			put_i32(e, i);
			put_vec(e, b->origin);
			put_i32(e, b->q.c);
			put_i32(e, b->q.s);
			put_vec(e, b->center);
		}
	}
}

/* islands: the awake body and island counts, the live bodies' sleep state */
static void phase_islands(encoder *e, const f2d_world *w)
{
	need(e, 8);
	put_i32(e, w->awake_body_count);
	put_i32(e, w->island_count);
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		if (b->alive) {
			need(e, 16);
			put_i32(e, i);
			put_u8(e, (uint8_t)((b->awake ? 1 : 0) | (b->enable_sleep ? 2 : 0)));
			put_i32(e, b->sleep_time);
		}
	}
}

uint64_t f2d_hash_phase(const f2d_world *w, f2d_phase phase)
{
	XXH3_state_t state;
	encoder e;
	phase_begin(&e, &state, phase);
	switch (phase) {
	case F2D_PHASE_PAIRS: phase_pairs(&e, w); break;
	case F2D_PHASE_MANIFOLDS: phase_manifolds(&e, w); break;
	case F2D_PHASE_VELOCITIES: phase_velocities(&e, w); break;
	case F2D_PHASE_POSITIONS: phase_positions(&e, w); break;
	case F2D_PHASE_ISLANDS:
	default: phase_islands(&e, w); break;
	}
	return phase_end(&e);
}
