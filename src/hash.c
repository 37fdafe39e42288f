/* fix2d state hash: XXH3-64 over a canonical little-endian encoding of everything that
 * determines the future of the world. Never raw struct memory (padding, endianness).
 * SPDX-License-Identifier: MIT
 *
 * Encoding (format 6; README "Determinism", "The state hash"), every integer little-endian,
 * fix16 as int32:
 *   u32 format, u64 step_count,
 *   settings: gravity.x, gravity.y, h, iterations, joint_position_iterations, bias_factor,
 *             linear_slop, speculative_distance, restitution_threshold, max_translation,
 *             max_rotation, u8 warm_starting, u8 enable_sleep, linear and angular sleep
 *             tolerances, time_to_sleep
 *   for bodies, shapes, joints: the id pool (next, free_count, free ids in stack order), then
 *   for each slot in [0, next):
 *     body:  u32 generation, u8 flags (0 dead; alive: 1 | type << 1 | 8 awake | 16 sleep
 *            enabled), and when alive 13 i32: sleep_time, origin, q.c, q.s, center, v, w,
 *            force, torque; after the last slot one u64 (format 6, masses_section): XXH3-64
 *            (seed 0) of the live bodies' mass, inertia, local_center in id order. Derived
 *            values are left out: inverse mass and inertia (of mass, inertia and the
 *            fixed-rotation option), the shape list (of the shapes' bodies, in id order) and
 *            the joint count (of the joints' bodies), as the snapshots leave them out.
 *     shapes (format 5): not one record a slot but, after the pool, one u64: XXH3-64 (seed
 *            0) of the slots' u64 digests in id order (shapes_section), where a slot's digest
 *            = XXH3-64 (seed 0) of the shape's record: u32 generation, u8 alive, and when
 *            alive type, body, density, friction, restitution, polygon (count, vertices,
 *            normals, centroid), circle (center, radius) or capsule, segment, chain segment
 *            (centers, radius, ghosts) (put_shape_record)
 *     joint: u32 generation, u8 alive, and when alive bodies, anchors, reference angle, flags,
 *            limits, motor, accumulated impulses; a joint of another type than revolute has
 *            flag 8 and its fields after (put_joint)
 *   u32 arbiter count; per arbiter: shape_a, shape_b, friction, restitution, u8 count (format
 *   6; u32 before), and per point: u32 id, pn, pt; then the options (put_options).
 * User data is not part of the hash (it does not change the simulation).
 *
 * Format 4 against 3 (issue 16): the body record drops the four derived values and packs its
 * flags into one byte (91 -> 73 bytes), a shape slot drops its list link (derived as well), the
 * 15 consecutive fix16 fields of a body are copied as one run on little-endian hosts (whose
 * memory order is then the encoding, checked at compile time; byte by byte elsewhere), and
 * the bytes go through XXH3's AVX2 or AVX-512 loop where the CPU has one (the same function:
 * XXH3's vector paths give the scalar one's result).
 *
 * Format 5 against 4 (issue 16): the shapes section is one u64 instead of a digest a slot, so
 * that it can be cached in the world (f2d_world.shapes_digest, with the count of shapes with
 * options for put_options): shapes do not change in a step, and reading every shape's cache
 * line for its 8-byte digest was a third of the hash's memory traffic on pyramid20. The cache
 * is cleared by every change to a shape (f2d_shape_refresh_digest, f2d_hash_shapes_changed)
 * and refilled at the start of a step (f2d_hash_cache_shapes); a hash taken before that folds
 * the digests as it goes. Same content covered.
 *
 * Format 6 against 5 (issue 16): core.h puts a body's hashed per-step fields in its first 64
 * bytes (generation, the flag bools, type, then sleep_time .. torque), and the body record is
 * those (57 bytes, was 73): one cache line read a body, one load and one permutation with VBMI.
 * mass, inertia and local_center change only with the shapes, the body type and fixed
 * rotation, and snapshots: they are one u64 for all bodies, cached in the world with the
 * shapes section (f2d_world.masses_digest), as is the count of bodies with options
 * (bodies_options: counting it every hash read each body's second line). An arbiter's count
 * (0..2) is one byte. Same content covered: every hashed value of format 5 is still hashed,
 * the mass data through its digest.
 *
 * Speed, same bytes (issue 16, after format 4): on x86-64 CPUs with AVX-512 VBMI the body,
 * joint and arbiter records are gathered by byte permutations (put_bodies_vbmi,
 * put_joints_vbmi, put_arbiters_vbmi), and
 * the shape loop reads a shape's alive flag only when its options are not the defaults (one
 * cache line a shape). F2D_HASH_CHECK builds compare every hash with the portable encoder's
 * (f2d_hash_world_reference: every record field by field, every digest and the shapes section
 * recomputed). core.h lays out an arbiter so that its record lies in its first 64 bytes, and
 * keeps bodies, shapes, joints and arbiters in 64-byte aligned arrays (one line an arbiter,
 * two a body). On x86-64 with AVX2 or AVX-512, an encoding of more than 240 bytes goes through
 * XXH3-64's long loop run here on the 64-byte aligned buffer (fs_consume, fs_finish) instead of
 * XXH3_update: the same operations on the accumulators, the same hash (f2d_hash_world_level
 * lets test_hash_cache check each path against the reference). */
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

/* Format 3: a shape slot is its record's digest (cached in f2d_shape.digest, refreshed by
 * f2d_shape_refresh_digest whenever the record changes) instead of the record itself:
 * re-encoding every polygon every step was most of the hash's cost (issue 16). Format 4: fewer
 * bytes for bodies and shape slots. Format 5: the shapes section is one cached u64. Format 6:
 * the bodies' mass data one cached u64, a body record one cache line, an arbiter's count a byte
 * (see the top of the file). Same content covered. */
#define F2D_HASH_FORMAT 6u

/* the buffer on a cache line's start: the 64-byte stripe loads never straddle two lines */
#if defined(__GNUC__) || defined(__TINYC__)
#define F2D_ALIGN64 __attribute__((aligned(64)))
#else
#define F2D_ALIGN64
#endif

typedef struct encoder {
	uint8_t buf[8192] F2D_ALIGN64;
	XXH3_state_t *state;
	struct fstream *fs; /* not NULL: flush runs XXH3's long loop here (fs_consume), not state */
	int simd;           /* 0 XXH3's default loop, 1 AVX2, 2 AVX-512 */
	size_t len;
} encoder;

/* XXH3-64's long loop run by fs_consume (x86-64 with AVX-512, a hash of more than 240 bytes) */
typedef struct fstream {
	uint64_t acc[8] F2D_ALIGN64; /* XXH3's accumulators */
	uint64_t n;                  /* bytes of the input before the buffer's first */
	uint64_t done;               /* stripes accumulated */
} fstream;

#if F2D_X86_SIMD
static void fs_consume(fstream *fs, encoder *e);
#endif

#if F2D_X86_SIMD
static XXH_TARGET_AVX2 void update_avx2(XXH3_state_t *state, const uint8_t *p, size_t n)
{
	(void)XXH3_update(state, p, n, XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}

static XXH_TARGET_AVX512 void update_avx512(XXH3_state_t *state, const uint8_t *p, size_t n)
{
	(void)XXH3_update(state, p, n, XXH3_accumulate_512_avx512, XXH3_scrambleAcc_avx512);
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

static void flush(encoder *e)
{
#if F2D_X86_SIMD
	if (e->fs != NULL) {
		fs_consume(e->fs, e);
		return;
	}
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

/* reserve n bytes (flushing when needed) and return where to write */
static inline uint8_t *begin(encoder *e, size_t n)
{
	need(e, n);
	return e->buf + e->len;
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

/* The body's 13 consecutive fix16 fields sleep_time .. torque (core.h, the body's first cache
 * line): when they lie in memory as 13 int32 one after the other (checked here at compile
 * time), a little-endian host's bytes of them are their encoding and are copied as one run. */
#define BODY_RUN 13
#define BODY_RUN_CONTIGUOUS                                                                        \
	(offsetof(f2d_body, origin) == offsetof(f2d_body, sleep_time) + 4 &&                       \
	 offsetof(f2d_body, q) == offsetof(f2d_body, sleep_time) + 12 &&                           \
	 offsetof(f2d_body, center) == offsetof(f2d_body, sleep_time) + 20 &&                      \
	 offsetof(f2d_body, v) == offsetof(f2d_body, sleep_time) + 28 &&                           \
	 offsetof(f2d_body, w) == offsetof(f2d_body, sleep_time) + 36 &&                           \
	 offsetof(f2d_body, force) == offsetof(f2d_body, sleep_time) + 40 &&                       \
	 offsetof(f2d_body, torque) == offsetof(f2d_body, sleep_time) + 48 &&                      \
	 sizeof(f2d_vec2) == 8 && sizeof(f2d_rot) == 8 && offsetof(f2d_rot, s) == 4 &&             \
	 offsetof(f2d_vec2, y) == 4 && sizeof(fix16_t) == 4)

/* The arbiter's runs: shape_a, shape_b; friction, restitution, count; a point's pn, pt. An
 * arbiter has at most 2 points. */
#define ARBITER_RUNS                                                                               \
	(offsetof(f2d_arbiter, shape_a) == 0 && offsetof(f2d_arbiter, shape_b) == 4 &&             \
	 offsetof(f2d_arbiter, restitution) == offsetof(f2d_arbiter, friction) + 4 &&              \
	 offsetof(f2d_arbiter, count) == offsetof(f2d_arbiter, friction) + 8 &&                    \
	 offsetof(f2d_contact_point, pt) == offsetof(f2d_contact_point, pn) + 4 &&                 \
	 sizeof(int32_t) == 4 && sizeof(fix16_t) == 4 && sizeof(uint32_t) == 4)

/* a live body's flags byte: 1 | type << 1 | 8 awake | 16 sleep enabled */
static inline uint8_t body_flags(const f2d_body *b)
{
	return (uint8_t)(1u | (uint32_t)b->type << 1 | (b->awake ? 8u : 0u) |
	                 (b->enable_sleep ? 16u : 0u));
}

/* after the flags: the run sleep_time .. torque */
static uint8_t *put_body(uint8_t *p, const f2d_body *b, bool runs)
{
	if (HOST_LE && BODY_RUN_CONTIGUOUS && runs) {
		memcpy(p, (const unsigned char *)b + offsetof(f2d_body, sleep_time), 4 * BODY_RUN);
		return p + 4 * BODY_RUN;
	}
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

/* ---- AVX-512 VBMI gathers of the body, joint and arbiter records (x86-64 with VBMI, chosen at run
 * time; the same bytes as put_body and the arbiter runs below, checked against the portable
 * encoder in every hash of the F2D_HASH_CHECK builds) ----
 * A record's bytes lie in the first 128 bytes of its struct (checked at compile time): the
 * struct is loaded as two 64-byte vectors (the second masked to the struct's size, so the
 * last element of an array is never read past) and one byte permutation (vpermt2b) puts
 * each byte of the record where the encoding wants it; the record is written with unmasked
 * stores (64 + 16 bytes a body, 64 an arbiter; room() reserves them) and the next record
 * overwrites the tail. The permutation's indices are built in registers from offsetof
 * constants (no table). The scalar copy was most of the hash's time (issue 16): a body record
 * took 12 loads and stores, an arbiter's 13 with a length that depends on its count; now two
 * loads, one or two permutes and stores. */
#define GATHER_BODY                                                                                \
	(HOST_LE && BODY_RUN_CONTIGUOUS && offsetof(f2d_body, generation) + 4 <= 64 &&             \
	 offsetof(f2d_body, sleep_time) + 4 * BODY_RUN <= 64 && sizeof(f2d_body) >= 64 &&          \
	 sizeof(uint32_t) == 4)
#define GATHER_ARBITER                                                                             \
	(HOST_LE && ARBITER_RUNS && sizeof(f2d_arbiter) > 64 &&                                    \
	 offsetof(f2d_arbiter, points) + sizeof(f2d_contact_point) +                               \
	         offsetof(f2d_contact_point, pt) + 4 <=                                            \
	     128 &&                                                                                \
	 offsetof(f2d_contact_point, id) + 4 <= sizeof(f2d_contact_point))

/* every byte of an arbiter's record in its first 64 bytes (core.h orders the fields so) */
#define ARBITER_ONE_LINE                                                                           \
	(offsetof(f2d_arbiter, points) + sizeof(f2d_contact_point) +                               \
	     offsetof(f2d_contact_point, pt) + 4 <=                                                \
	 64)

static uint8_t *put_joint_other(uint8_t *p, const f2d_joint *j);

/* the revolute part of a joint record: runs body_a .. reference_angle, lower ..
 * max_motor_torque, impulse .. upper_impulse, in the first 128 bytes */
#define GATHER_JOINT                                                                               \
	(HOST_LE && sizeof(f2d_joint) > 64 && offsetof(f2d_joint, generation) + 4 <= 128 &&        \
	 offsetof(f2d_joint, body_b) == offsetof(f2d_joint, body_a) + 4 &&                         \
	 offsetof(f2d_joint, local_a) == offsetof(f2d_joint, body_a) + 8 &&                        \
	 offsetof(f2d_joint, local_b) == offsetof(f2d_joint, body_a) + 16 &&                       \
	 offsetof(f2d_joint, reference_angle) == offsetof(f2d_joint, body_a) + 24 &&               \
	 offsetof(f2d_joint, upper) == offsetof(f2d_joint, lower) + 4 &&                           \
	 offsetof(f2d_joint, motor_speed) == offsetof(f2d_joint, lower) + 8 &&                     \
	 offsetof(f2d_joint, max_motor_torque) == offsetof(f2d_joint, lower) + 12 &&               \
	 offsetof(f2d_joint, motor_impulse) == offsetof(f2d_joint, impulse) + 8 &&                 \
	 offsetof(f2d_joint, lower_impulse) == offsetof(f2d_joint, impulse) + 12 &&                \
	 offsetof(f2d_joint, upper_impulse) == offsetof(f2d_joint, impulse) + 16 &&                \
	 offsetof(f2d_joint, reference_angle) + 4 <= 128 &&                                        \
	 offsetof(f2d_joint, max_motor_torque) + 4 <= 128 &&                                       \
	 offsetof(f2d_joint, upper_impulse) + 4 <= 128 && sizeof(f2d_vec2) == 8 &&                 \
	 offsetof(f2d_vec2, y) == 4 && sizeof(fix16_t) == 4)

#if F2D_X86_SIMD
#define VBMI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi")))

/* the struct's first 128 bytes, or its size when smaller (the mask keeps the load inside) */
#define HI_MASK(T) (sizeof(T) >= 128 ? ~(__mmask64)0 : (((__mmask64)1 << (sizeof(T) - 64)) - 1))

/* indices r + base for the bytes r in [from, 64) */
static VBMI_TARGET __m512i idx_from(__m512i idx, int from, int base)
{
	__mmask64 m = from >= 64 ? 0 : ~(__mmask64)0 << from;
	__m512i iota = _mm512_set_epi8(
	    63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
	    41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
	    19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	return _mm512_mask_add_epi8(idx, m, iota, _mm512_set1_epi8((char)base));
}

/* The body records of slots [0, n) from p on (room() before each), as the portable loop in
 * put_bodies writes them (one line read a body: the options are counted by masses_section). */
static VBMI_TARGET uint8_t *put_bodies_vbmi(encoder *e, uint8_t *p, const f2d_body *bodies,
                                            int32_t n)
{
	/* record bytes 0..3 generation, 4 flags (written after), 5..56 the run sleep_time ..
	 * torque: all in the body's first 64 bytes (core.h), one line read a body */
	const int run = (int)offsetof(f2d_body, sleep_time);
	__m512i idx = idx_from(_mm512_setzero_si512(), 0, (int)offsetof(f2d_body, generation));
	idx = idx_from(idx, 5, run - 5);
	for (int32_t i = 0; i < n; ++i) {
		const f2d_body *b = &bodies[i];
		p = room(e, p, 64);
		__m512i lo = _mm512_loadu_si512((const void *)b);
		_mm512_storeu_si512((void *)p, _mm512_permutexvar_epi8(idx, lo));
		const bool alive = b->alive;
		p[4] = alive ? body_flags(b) : 0;
		p += alive ? 57 : 5; /* a dead slot: generation and 0 (the rest is overwritten) */
	}
	return p;
}

/* The arbiter records of arbiters [0, n), as the portable loop in put_arbiters writes them. */
static VBMI_TARGET uint8_t *put_arbiters_vbmi(encoder *e, uint8_t *p, const f2d_arbiter *arbiters,
                                              int32_t n)
{
	/* record bytes 0..7 shape_a, shape_b; 8..15 friction, restitution, 16 count (its low
	 * byte); per point k (17 + 12 k) id, (21 + 12 k) pn, pt */
	const int pts = (int)offsetof(f2d_arbiter, points);
	const int ps = (int)sizeof(f2d_contact_point);
	const int id = (int)offsetof(f2d_contact_point, id);
	const int pn = (int)offsetof(f2d_contact_point, pn);
	__m512i idx = idx_from(_mm512_setzero_si512(), 0, (int)offsetof(f2d_arbiter, shape_a));
	idx = idx_from(idx, 8, (int)offsetof(f2d_arbiter, friction) - 8);
	idx = idx_from(idx, 17, pts + id - 17);
	idx = idx_from(idx, 21, pts + pn - 21);
	idx = idx_from(idx, 29, pts + ps + id - 29);
	idx = idx_from(idx, 33, pts + ps + pn - 33);
	const __mmask64 hi = HI_MASK(f2d_arbiter);
	for (int32_t i = 0; i < n; ++i) {
		const f2d_arbiter *a = &arbiters[i];
		p = room(e, p, 64);
		__m512i lo = _mm512_loadu_si512((const void *)a);
		/* the record in the first 64 bytes (core.h's layout): one line read an arbiter */
		__m512i up = ARBITER_ONE_LINE
		                 ? lo
		                 : _mm512_maskz_loadu_epi8(hi, (const unsigned char *)a + 64);
		_mm512_storeu_si512((void *)p, _mm512_permutex2var_epi8(lo, idx, up));
		p += 17 + 12 * a->count; /* an absent second point is overwritten next */
	}
	return p;
}

/* The joint records of slots [0, n), as the portable loop in put_joints writes them: the
 * revolute part gathered (record bytes 0..3 generation, 4 alive, 5..32 body_a, body_b,
 * local_a, local_b, reference_angle, 33 flags, 34..49 lower, upper, motor_speed,
 * max_motor_torque, 50..69 impulse, motor, lower and upper impulses), the other types' fields
 * after it by put_joint_other. */
static VBMI_TARGET uint8_t *put_joints_vbmi(encoder *e, uint8_t *p, const f2d_joint *joints,
                                            int32_t n)
{
	__m512i idx0 = idx_from(_mm512_setzero_si512(), 0, (int)offsetof(f2d_joint, generation));
	idx0 = idx_from(idx0, 5, (int)offsetof(f2d_joint, body_a) - 5);
	idx0 = idx_from(idx0, 34, (int)offsetof(f2d_joint, lower) - 34);
	idx0 = idx_from(idx0, 50, (int)offsetof(f2d_joint, impulse) - 50);
	__m512i idx1 = idx_from(_mm512_setzero_si512(), 0, (int)offsetof(f2d_joint, impulse) + 14);
	const __mmask64 hi = HI_MASK(f2d_joint);
	for (int32_t i = 0; i < n; ++i) {
		const f2d_joint *j = &joints[i];
		p = room(e, p, 192); /* 80 bytes gathered, + 46 for a joint of another type */
		__m512i lo = _mm512_loadu_si512((const void *)j);
		__m512i up = _mm512_maskz_loadu_epi8(hi, (const unsigned char *)j + 64);
		_mm512_storeu_si512((void *)p, _mm512_permutex2var_epi8(lo, idx0, up));
		_mm_storeu_si128((void *)(p + 64),
		                 _mm512_castsi512_si128(_mm512_permutex2var_epi8(lo, idx1, up)));
		if (!j->alive) {
			p[4] = 0;
			p += 5;
			continue;
		}
		p[4] = 1;
		p[33] = (uint8_t)((j->enable_limit ? 1 : 0) | (j->enable_motor ? 2 : 0) |
		                  (j->collide_connected ? 4 : 0) | (j->type != 0 ? 8 : 0));
		p += 70;
		if (j->type != 0) {
			p = put_joint_other(p, j);
		}
	}
	return p;
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

/* ---- XXH3's long loop on the encoder's buffer (AVX-512; a hash of more than 240 bytes) ----
 * XXH3-64 (seed 0, the default secret) of an input longer than 240 bytes is: stripe i (bytes
 * [64 i, 64 i + 64)) accumulated with the secret at 8 (i mod 16) for every stripe that ends
 * before the input's last byte, the accumulators scrambled after each 16th such stripe, then
 * the input's last 64 bytes accumulated with the secret at 121 and the accumulators merged
 * with len * PRIME64_1 (xxhash.h's XXH3_hashLong_64b, whose streaming form gives the same).
 * fs_consume runs that loop on the buffer's stripes that end before its last byte whenever the
 * encoder flushes (an 8 KB buffer, 64-byte aligned) and keeps the last stripe taken and the
 * bytes after it at the buffer's start (65..128 bytes, so the input's last 64 bytes are in the
 * buffer at the end, for fs_finish). Against XXH3_update on the same buffer: no copy of every
 * flush's tail into XXH3's state, no per-call bookkeeping, aligned stripe loads; the same
 * operations on the accumulators (XXH3_accumulate_512_avx512, XXH3_scrambleAcc_avx512,
 * XXH3_mergeAccs), so the same hash (checked against the portable encoder and XXH3_update in
 * every F2D_HASH_CHECK hash and by test_hash_cache). Flushing smaller chunks to overlap the
 * records' loads with the arithmetic was slower (256 bytes 2.3x, 1 KB 1.02x the old hash on
 * pyramid20): a stripe loaded soon after its bytes were stored waits for the stores. */
#define FS_INLINE static inline __attribute__((always_inline))

/* XXH3_accumulate_512_avx512 and XXH3_scrambleAcc_avx512 on a register */
FS_INLINE XXH_TARGET_AVX512 __m512i fs_accumulate(__m512i acc, __m512i data, const uint8_t *secret)
{
	const __m512i key = _mm512_loadu_si512((const void *)secret);
	const __m512i dk = _mm512_xor_si512(data, key);
	const __m512i dk_lo = _mm512_shuffle_epi32(dk, (_MM_PERM_ENUM)_MM_SHUFFLE(0, 3, 0, 1));
	const __m512i product = _mm512_mul_epu32(dk, dk_lo);
	const __m512i swap = _mm512_shuffle_epi32(data, (_MM_PERM_ENUM)_MM_SHUFFLE(1, 0, 3, 2));
	return _mm512_add_epi64(product, _mm512_add_epi64(acc, swap));
}

FS_INLINE XXH_TARGET_AVX512 __m512i fs_scramble(__m512i acc)
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

static void fs_init(fstream *fs)
{
	static const uint64_t init[8] = XXH3_INIT_ACC;
	memcpy(fs->acc, init, sizeof init);
	fs->n = 0;
	fs->done = 0;
}

/* stripes [from, k) of the buffer into fs->acc, the scramble after each 16th */
static XXH_TARGET_AVX512 void fs_stripes_avx512(fstream *fs, const uint8_t *buf, size_t from,
                                                size_t k)
{
	__m512i acc = _mm512_loadu_si512((const void *)fs->acc);
	uint64_t done = fs->done;
	for (size_t i = from; i < k; ++i) {
		const __m512i data = _mm512_loadu_si512((const void *)(buf + 64 * i));
		acc = fs_accumulate(acc, data, XXH3_kSecret + 8 * (done & 15));
		if ((++done & 15) == 0) {
			acc = fs_scramble(acc);
		}
	}
	_mm512_storeu_si512((void *)fs->acc, acc);
	fs->done = done;
}

static XXH_TARGET_AVX2 void fs_stripes_avx2(fstream *fs, const uint8_t *buf, size_t from, size_t k)
{
	uint64_t done = fs->done;
	for (size_t i = from; i < k; ++i) {
		XXH3_accumulate_512_avx2(fs->acc, buf + 64 * i, XXH3_kSecret + 8 * (done & 15));
		if ((++done & 15) == 0) {
			XXH3_scrambleAcc_avx2(fs->acc, XXH3_kSecret + XXH_SECRET_DEFAULT_SIZE - 64);
		}
	}
	fs->done = done;
}

static void fs_consume(fstream *fs, encoder *e)
{
	const size_t len = e->len;
	if (len <= 64) {
		return; /* no stripe ends before the last byte */
	}
	const size_t k = (len - 1) / 64; /* stripes that end before the last byte */
	/* the buffer's first stripe is the last one taken when bytes were kept before */
	const size_t from = (size_t)(fs->done - fs->n / 64);
	if (e->simd == 2) {
		fs_stripes_avx512(fs, e->buf, from, k);
	} else {
		fs_stripes_avx2(fs, e->buf, from, k);
	}
	fs->n += 64 * (k - 1);
	memmove(e->buf, e->buf + 64 * (k - 1), len - 64 * (k - 1));
	e->len = len - 64 * (k - 1);
}

static XXH_TARGET_AVX512 void fs_last_avx512(fstream *fs, const uint8_t *last)
{
	__m512i acc = _mm512_loadu_si512((const void *)fs->acc);
	acc = fs_accumulate(acc, _mm512_loadu_si512((const void *)last),
	                    XXH3_kSecret + XXH_SECRET_DEFAULT_SIZE - 64 - XXH_SECRET_LASTACC_START);
	_mm512_storeu_si512((void *)fs->acc, acc);
}

static XXH_TARGET_AVX2 void fs_last_avx2(fstream *fs, const uint8_t *last)
{
	XXH3_accumulate_512_avx2(
	    fs->acc, last, XXH3_kSecret + XXH_SECRET_DEFAULT_SIZE - 64 - XXH_SECRET_LASTACC_START);
}

/* the hash: the stripes left, the last 64 bytes with the secret at 121, the merge */
static uint64_t fs_finish(fstream *fs, encoder *e)
{
	fs_consume(fs, e); /* the buffer then holds the input's last 65..128 bytes */
	if (e->simd == 2) {
		fs_last_avx512(fs, e->buf + e->len - 64);
	} else {
		fs_last_avx2(fs, e->buf + e->len - 64);
	}
	return XXH3_mergeAccs(fs->acc, XXH3_kSecret + XXH_SECRET_MERGEACCS_START,
	                      (uint64_t)(fs->n + e->len) * XXH_PRIME64_1);
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

static uint8_t *put_joint(uint8_t *p, const f2d_joint *j)
{
	p = w_i32(p, j->body_a);
	p = w_i32(p, j->body_b);
	p = w_vec(p, j->local_a);
	p = w_vec(p, j->local_b);
	p = w_i32(p, j->reference_angle);
	p = w_u8(p, (uint8_t)((j->enable_limit ? 1 : 0) | (j->enable_motor ? 2 : 0) |
	                      (j->collide_connected ? 4 : 0) | (j->type != 0 ? 8 : 0)));
	p = w_i32(p, j->lower);
	p = w_i32(p, j->upper);
	p = w_i32(p, j->motor_speed);
	p = w_i32(p, j->max_motor_torque);
	p = w_vec(p, j->impulse);
	p = w_i32(p, j->motor_impulse);
	p = w_i32(p, j->lower_impulse);
	p = w_i32(p, j->upper_impulse);
	return j->type != 0 ? put_joint_other(p, j) : p;
}

/* the other joint types (flag 8, never set for a revolute joint, whose encoding is
 * unchanged): u8 type, axis, length, u8 spring, hertz, damping ratio, angular hertz and
 * damping ratio, max force, correction factor, spring and angular impulses */
static uint8_t *put_joint_other(uint8_t *p, const f2d_joint *j)
{
	p = w_u8(p, j->type);
	p = w_vec(p, j->axis);
	p = w_i32(p, j->length);
	p = w_u8(p, j->enable_spring ? 1 : 0);
	p = w_i32(p, j->hertz);
	p = w_i32(p, j->damping_ratio);
	p = w_i32(p, j->angular_hertz);
	p = w_i32(p, j->angular_damping_ratio);
	p = w_i32(p, j->max_force);
	p = w_i32(p, j->correction_factor);
	p = w_i32(p, j->spring_impulse);
	return w_i32(p, j->angular_impulse);
}

/* XXH3-64 of the shape's record, from scratch. */
static uint64_t shape_digest(const f2d_shape *s)
{
	encoder e;
	e.state = NULL; /* a record (< 256 bytes) never fills the buffer: nothing is flushed */
	e.fs = NULL;
	e.simd = 0;
	e.len = 0;
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
	e.state = &state;
	e.fs = NULL;
	e.simd = simd;
	e.len = 0;
	XXH3_64bits_reset(&state);
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
	flush(&e);
	*ns = count;
	return XXH3_64bits_digest(&state);
}

/* The bodies' mass section's digest (format 6): XXH3-64 (seed 0) of, per live body slot in
 * [0, body_ids.next) in id order, i32 mass, inertia, local centre x, y (which slots are live
 * the body records say). */
static uint64_t masses_section(const f2d_world *w, int simd, int32_t *nb)
{
	int32_t count = 0;
	XXH3_state_t state;
	encoder e;
	e.state = &state;
	e.fs = NULL;
	e.simd = simd;
	e.len = 0;
	XXH3_64bits_reset(&state);
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
	flush(&e);
	*nb = count;
	return XXH3_64bits_digest(&state);
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
}

/* The body slots [0, body_ids.next): u32 generation, u8 flags (0 for a dead slot, whose other
 * fields are not state), and when alive the run sleep_time .. torque (57 bytes); gathered with
 * VBMI when gather is set, copied as one run unless fresh. */
static void put_bodies(encoder *e, const f2d_world *w, bool fresh, bool gather)
{
	uint8_t *p = e->buf + e->len;
#if F2D_X86_SIMD
	if (GATHER_BODY && gather) {
		end(e, put_bodies_vbmi(e, p, w->bodies, w->body_ids.next));
		return;
	}
#else
	(void)gather;
#endif
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		p = room(e, p, 64);
		p = w_u32(p, b->generation);
		p = w_u8(p, b->alive ? body_flags(b) : 0u);
		if (b->alive) {
			p = put_body(p, b, !fresh);
		}
	}
	end(e, p);
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

/* The joint slots [0, joint_ids.next): u32 generation, u8 alive, and when alive put_joint's
 * record (gathered with VBMI when gather is set). */
static void put_joints(encoder *e, const f2d_world *w, bool gather)
{
#if F2D_X86_SIMD
	if (GATHER_JOINT && gather) {
		end(e, put_joints_vbmi(e, e->buf + e->len, w->joints, w->joint_ids.next));
		return;
	}
#else
	(void)gather;
#endif
	for (int32_t i = 0; i < w->joint_ids.next; ++i) {
		const f2d_joint *j = &w->joints[i];
		uint8_t *q = begin(e, 192); /* 78 bytes, + 46 for a joint of another type */
		q = w_u32(q, j->generation);
		q = w_u8(q, j->alive ? 1 : 0);
		if (j->alive) {
			q = put_joint(q, j);
		}
		end(e, q);
	}
}

/* an arbiter's record field by field: shape_a, shape_b, friction, restitution, u8 count (0, 1
 * or 2), per point u32 id, pn, pt */
static inline uint8_t *put_arbiter(uint8_t *p, const f2d_arbiter *a)
{
	p = w_i32(p, a->shape_a);
	p = w_i32(p, a->shape_b);
	p = w_i32(p, a->friction);
	p = w_i32(p, a->restitution);
	p = w_u8(p, (uint32_t)a->count);
	for (int32_t k = 0; k < a->count; ++k) {
		p = w_u32(p, a->points[k].id);
		p = w_i32(p, a->points[k].pn);
		p = w_i32(p, a->points[k].pt);
	}
	return p;
}

/* the same bytes copied in runs (little-endian hosts, ARBITER_RUNS); 41 bytes written */
static inline uint8_t *put_arbiter_runs(uint8_t *p, const f2d_arbiter *a)
{
	memcpy(p, a, 8);
	memcpy(p + 8, &a->friction, 9); /* count's low byte last */
	memcpy(p + 17, &a->points[0].id, 4);
	memcpy(p + 21, &a->points[0].pn, 8);
	memcpy(p + 29, &a->points[1].id, 4);
	memcpy(p + 33, &a->points[1].pn, 8);
	return p + 17 + 12 * a->count; /* an absent second point is overwritten next */
}

/* u32 arbiter count, then the arbiters' records (gathered with VBMI when gather is set, copied
 * in runs unless fresh) */
static void put_arbiters(encoder *e, const f2d_world *w, bool fresh, bool gather)
{
	need(e, 4);
	put_i32(e, w->arbiter_count);
	uint8_t *p = e->buf + e->len;
#if F2D_X86_SIMD
	if (GATHER_ARBITER && gather) {
		end(e, put_arbiters_vbmi(e, p, w->arbiters, w->arbiter_count));
		return;
	}
#else
	(void)gather;
#endif
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		p = room(e, p, 64);
		p = HOST_LE && ARBITER_RUNS && !fresh ? put_arbiter_runs(p, a) : put_arbiter(p, a);
	}
	end(e, p);
}

#if F2D_X86_SIMD
/* the fewest bytes the world's encoding can have: the settings (70), three pools (24), 5 a body
 * or joint slot, the masses and shapes sections (16), the arbiter count and 17 an arbiter */
static uint64_t min_bytes(const f2d_world *w)
{
	return 70u + 24u + 16u + 4u + 5u * (uint64_t)w->body_ids.next +
	       5u * (uint64_t)w->joint_ids.next + 17u * (uint64_t)w->arbiter_count;
}
#endif

/* fresh: every record written field by field by the portable encoder (no runs, no gathers);
 * fresh_digests: the shape digests computed from the records instead of the cached ones (both:
 * the reference) */
static uint64_t hash_world(const f2d_world *w, bool fresh, bool fresh_digests, int level)
{
	XXH3_state_t state;
	encoder e;
	e.state = &state;
	e.simd = level;
	e.len = 0;
	bool gather = false; /* the VBMI gathers */
#if F2D_X86_SIMD
	gather = !fresh && e.simd == 2 && have_vbmi();
#endif
	e.fs = NULL;
#if F2D_X86_SIMD
	fstream fs;
	if (e.simd >= 1 && !fresh && min_bytes(w) > XXH3_MIDSIZE_MAX) { /* see fs_consume */
		fs_init(&fs);
		e.fs = &fs;
	}
#endif
	if (e.fs == NULL) {
		XXH3_64bits_reset(&state);
	}
	put_settings(&e, w);
	put_pool(&e, &w->body_ids);
	put_bodies(&e, w, fresh, gather);
	int32_t nb = put_masses(&e, w, fresh); /* for put_options */
	put_pool(&e, &w->shape_ids);
	int32_t ns = put_shapes(&e, w, fresh, fresh_digests);
	put_pool(&e, &w->joint_ids);
	put_joints(&e, w, gather);
	put_arbiters(&e, w, fresh, gather);
	put_options(&e, w, nb, ns);
	flush(&e);
#if F2D_X86_SIMD
	if (e.fs != NULL) {
		return fs_finish(&fs, &e);
	}
#endif
	return XXH3_64bits_digest(&state);
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
	/* and every body's joint list (derived, joint.c) holds exactly its live joints */
	if (!f2d_joint_lists_consistent(w)) {
		fprintf(stderr, "fix2d: F2D_HASH_CHECK: a body's joint list is stale\n");
		abort();
	}
	/* and the fast encoders (the cached digests, the copied runs, the VBMI gathers) give the
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
	e->state = state;
	e->fs = NULL;
	e->simd = 0;
	e->len = 0;
	XXH3_64bits_reset(state);
	put_u8(e, (uint8_t)phase);
}

static uint64_t phase_end(encoder *e)
{
	flush(e);
	return XXH3_64bits_digest(e->state);
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
