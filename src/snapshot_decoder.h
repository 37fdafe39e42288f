/* fix2d snapshots: the decoder's state and readers, shared by snapshot_load.c (the two passes,
 * the world settings, options, event state and caches) and snapshot_load_objects.c (the records
 * of bodies, shapes, joints and arbiters). Readers do not check the length unless they say so.
 * SPDX-License-Identifier: MIT */
#ifndef FIX2D_SNAPSHOT_DECODER_H
#define FIX2D_SNAPSHOT_DECODER_H

#include "snapshot_internal.h"

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
	/* the Gauss-Seidel step's speed bounds (speed_bound); the first live body beyond them (-1:
	 * none), refused only once the solver is known to be that one (decode_options) */
	fix16_t vmax, wmax;
	int32_t fast_body;
	fix16_t time_step; /* checked against substep_count when that is read */
	bool enable_sleep; /* settings, for the sleep records */
	fix16_t time_to_sleep;
	int32_t last_oor;
	/* counts (known after the validating pass) */
	int32_t next[3], alive[3];
	int32_t arbiter_count;
	uint32_t sweep; /* NO_SWEEP or the sweep length */
	/* in-process: the chain of caches is there (decode_chain), the broad phase's block length
	 * and room */
	bool chain;
	size_t bp_len;
	f2d_bp_cache_need bp_need;
	/* running state of both passes */
	bool have_mass;                /* a previous live dynamic body, */
	fix16_t mass_prev[4];          /* its mass, inertia, local centre */
	fix16_t inv_mass, inv_inertia; /* and its inverses (applying pass) */
	f2d_vec2 center_prev;          /* previous live body's centre and rotation */
	f2d_rot q_prev;
	f2d_shape geometry; /* previous live shape's geometry and material */
	bool have_shape, geometry_dynamic_ok;
} decoder;

/* Sets the world's error "<what>: <message>", records r as the decoder's result; false. */
bool f2d_decode_fail(decoder *d, f2d_result r, const char *fmt, ...);
/* the varint reader's checking path (snapshot_load.c) */
bool f2d_rd_var_slow(decoder *d, uint32_t *out, const char *what);

static inline bool truncated(decoder *d, const char *where)
{
	return f2d_decode_fail(d, F2D_ERROR_INVALID_VALUE, "truncated in %s", where);
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
	return f2d_rd_var_slow(d, out, what);
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

static inline uint32_t *scratch(decoder *d, size_t offset)
{
	uint8_t *base =
	    d->scratch_base != NULL ? (uint8_t *)d->scratch_base : (uint8_t *)d->w->pairs;
	return (uint32_t *)(void *)(base + offset);
}

/* the object sections (snapshot_load_objects.c), in payload order after the world settings */
bool f2d_decode_bodies(decoder *d);
bool f2d_decode_shapes(decoder *d);
bool f2d_decode_joints(decoder *d);
bool f2d_decode_arbiters(decoder *d);
/* the in-process form's bodies and arbiters: fixed-size records (snapshot_fast.c) */
bool f2d_fast_decode_bodies(decoder *d);
bool f2d_fast_decode_arbiters(decoder *d);

#endif
