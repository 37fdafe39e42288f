/* fix2d tests: a reader (and writer) of the portable snapshot's documented format
 * (include/fix2d/snapshot.h), independent of src/snapshot.c: test_snapshot_portable.c checks
 * the library's bytes against it, test_snapshot_memory.c finds the shared sections with it.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_TESTS_SNAPSHOT_SPEC_H
#define FIX2D_TESTS_SNAPSHOT_SPEC_H

#include "snapshot_common.h"
#include "snapshot_internal.h" /* f2d_snapshot_unit_other */

#define SPEC_MAX 64
typedef struct spec {
	size_t body_next, body_rec[SPEC_MAX], body_free;
	size_t shape_next, shape_rec[SPEC_MAX], shape_free;
	size_t joint_next, joint_rec[SPEC_MAX], joint_free;
	size_t arbiters, arb_rec[SPEC_MAX], options, end;
	uint32_t bodies, shapes, joints, arbiter_count;
	/* version 5: the bodies decoded, the offsets of their flags; the shapes' flag byte, body
	 * varint and what follows it */
	struct spec_body {
		uint32_t gen, flags;
		int32_t c[2], q[2], od[2], v[3], f[3], m[4];
		uint64_t user;
		uint32_t sleep;
		int32_t sleep_time;
	} body[SPEC_MAX];
	size_t body_flag[SPEC_MAX];
	size_t shape_flag[SPEC_MAX], shape_body[SPEC_MAX], shape_mat[SPEC_MAX];
	struct spec_arb {
		uint32_t a, b, friction, restitution, count, id[2], pn[2], recycled;
		int32_t pt[2];
		/* recycled (version 9): the block of groups 0..2 (the wide values: the cached
		 * rotations' first components, dc0 x, y; the narrow: the rotations' others) */
		int32_t block[6];
		uint32_t mask;        /* the other groups written (bit g - 3 for group g) */
		int32_t manifold[12]; /* their residuals, in order */
		uint32_t residuals;   /* how many */
		/* test only: the mask as a two-byte varint (not minimal); a kind written instead
		 * of the one the manifold has (0: none); block widths wider than the values need,
		 * the escape byte plus wide_extra even when the values fit, a padding bit set */
		bool pad_mask, block_escape, block_pad;
		uint32_t kind_override, wide_extra, narrow_extra;
	} arb[SPEC_MAX]; /* the first SPEC_MAX arbiters, decoded */
} spec;

/* varint (snapshot.h, version 4): LEB128, at most 5 bytes */
static inline uint32_t spec_var(const uint8_t *pl, size_t *o)
{
	uint32_t v = 0;
	for (int k = 0; k < 5; ++k) {
		uint32_t byte = pl[(*o)++];
		v |= (byte & 0x7Fu) << (7 * k);
		if (byte < 0x80u) {
			break;
		}
	}
	return v;
}

static inline size_t spec_put_var(uint8_t *p, uint32_t v)
{
	size_t n = 0;
	while (v >= 0x80u) {
		p[n++] = (uint8_t)(v | 0x80u);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline int32_t spec_unzz(uint32_t z)
{
	return (z & 1u) ? -(int32_t)(z >> 1) - 1 : (int32_t)(z >> 1);
}
static inline uint32_t spec_zz(int32_t v)
{
	return ((uint32_t)v << 1) ^ (v < 0 ? 0xFFFFFFFFu : 0u);
}
/* prev + zigzag delta, modulo 2^32 */
static inline int32_t spec_delta(const uint8_t *pl, size_t *o, int32_t prev)
{
	uint32_t u = (uint32_t)prev + (uint32_t)spec_unzz(spec_var(pl, o));
	return u <= (uint32_t)INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1;
}
static inline size_t spec_put_delta(uint8_t *p, int32_t v, int32_t prev)
{
	uint32_t d = (uint32_t)v - (uint32_t)prev;
	return spec_put_var(p, (d << 1) ^ ((d >> 31) != 0 ? 0xFFFFFFFFu : 0u));
}

/* round(sqrt(n)) for 0 <= n <= 2^32 (no ties for integers): the largest r with r^2 <= n, one
 * more when n - r^2 > r */
static inline int64_t spec_isqrt_round(int64_t n)
{
	int64_t r = 0;
	for (int64_t step = (int64_t)1 << 16; step > 0; step >>= 1) {
		r += (r + step) * (r + step) <= n ? step : 0;
	}
	return n - r * r > r ? r + 1 : r;
}

/* q.c's prediction (version 9): sign(previous q.c) round(sqrt(2^32 - q.s^2)), 0 past 1 */
static inline int32_t spec_unit_c(int32_t s, int32_t prev_c)
{
	int64_t rest = ((int64_t)1 << 32) - (int64_t)s * s;
	int32_t m = (int32_t)spec_isqrt_round(rest > 0 ? rest : 0);
	return prev_c < 0 ? -m : m;
}

/* the body records of n decoded bodies, with the u32 count before them, as snapshot.h says
 * (version 5; out: room for 4 + 110 n) */
static inline size_t spec_encode_bodies(const struct spec_body *bd, uint32_t n, uint8_t *out)
{
	size_t o = 4;
	out[0] = (uint8_t)n;
	out[1] = (uint8_t)(n >> 8);
	out[2] = (uint8_t)(n >> 16);
	out[3] = (uint8_t)(n >> 24);
	int32_t pc[2] = {0, 0}, pq[2] = {0, 0};
	for (uint32_t i = 0; i < n; ++i) {
		const struct spec_body *x = &bd[i];
		o += spec_put_var(out + o, x->gen);
		o += spec_put_var(out + o, x->flags);
		if (!(x->flags & 1u)) {
			continue;
		}
		for (int k = 0; k < 2; ++k) {
			o += spec_put_delta(out + o, x->c[k], pc[k]);
		}
		o += spec_put_delta(out + o, x->q[1], pq[1]);
		o += spec_put_delta(out + o, x->q[0], spec_unit_c(x->q[1], pq[0]));
		for (int k = 0; k < 2 && (x->flags & 64u); ++k) {
			o += spec_put_delta(out + o, x->od[k], 0);
		}
		for (int k = 0; k < 3 && (x->flags & 8u); ++k) {
			o += spec_put_var(out + o, spec_zz(x->v[k]));
		}
		for (int k = 0; k < 3 && (x->flags & 128u); ++k) {
			o += spec_put_var(out + o, spec_zz(x->f[k]));
		}
		if (((x->flags >> 1) & 3u) == 2 && !(x->flags & 16u)) {
			for (int k = 0; k < 4; ++k) {
				o += spec_put_var(out + o, spec_zz(x->m[k]));
			}
		}
		if (x->flags & 256u) {
			for (int k = 0; k < 8; ++k) {
				out[o++] = (uint8_t)(x->user >> (8 * k));
			}
		}
		if (x->flags & 32u) {
			out[o++] = (uint8_t)x->sleep;
			o += spec_put_var(out + o, spec_zz(x->sleep_time));
		}
		pc[0] = x->c[0];
		pc[1] = x->c[1];
		pq[0] = x->q[0];
		pq[1] = x->q[1];
	}
	return o;
}

static inline uint32_t spec_bits(uint32_t v)
{
	uint32_t n = 0;
	for (; v != 0; v >>= 1) {
		++n;
	}
	return n;
}

/* a recycled manifold's block (version 9): W | N << 4 and the six values in 4 W + 2 N bits,
 * low bit first, or 0x80 and six zigzag varints (a wide value above 15 bits, a narrow one
 * above 7) */
static inline size_t spec_put_block(uint8_t *out, const struct spec_arb *x)
{
	uint32_t z[6], w = 0, n = 0;
	for (int k = 0; k < 6; ++k) {
		z[k] = spec_zz(x->block[k]);
		uint32_t b = spec_bits(z[k]);
		w = k < 4 && b > w ? b : w;
		n = k >= 4 && b > n ? b : n;
	}
	w += x->wide_extra;
	n += x->narrow_extra;
	size_t o = 0;
	if (x->block_escape || w > 15 || n > 7) {
		out[o++] = (uint8_t)(0x80u + x->wide_extra);
		for (int k = 0; k < 6; ++k) {
			o += spec_put_var(out + o, z[k]);
		}
		return o;
	}
	out[o++] = (uint8_t)(w | n << 4);
	uint8_t bits[10] = {0};
	uint32_t pos = 0;
	for (int k = 0; k < 6; ++k) {
		uint32_t len = k < 4 ? w : n;
		for (uint32_t b = 0; b < len; ++b, ++pos) {
			bits[pos / 8] |= (uint8_t)((z[k] >> b & 1u) << (pos % 8));
		}
	}
	size_t nb = (pos + 7) / 8;
	if (x->block_pad) {
		ck_assert_uint_ne(pos % 8, 0);
		bits[nb - 1] |= 0x80u;
	}
	memcpy(out + o, bits, nb);
	return o + nb;
}

/* the arbiter section of n decoded arbiters, as snapshot.h says (out: room for 4 + 50 n) */
static inline size_t spec_encode_arbiters(const struct spec_arb *arb, uint32_t n, uint8_t *out)
{
	size_t o = 4;
	out[0] = (uint8_t)n;
	out[1] = (uint8_t)(n >> 8);
	out[2] = (uint8_t)(n >> 16);
	out[3] = (uint8_t)(n >> 24);
	for (uint32_t i = 0; i < n; ++i) {
		const struct spec_arb *x = &arb[i], *p = i > 0 ? &arb[i - 1] : NULL;
		bool same = p != NULL && x->friction == p->friction &&
		            x->restitution == p->restitution;
		uint32_t kind = x->kind_override != 0 ? x->kind_override
		                                      : (x->recycled ? (x->mask != 0 ? 2u : 1u) : 0u);
		o += spec_put_var(out + o, (x->a - (p ? p->a : 0)) << 4 | kind << 2 |
		                               (x->count - 1) << 1 | (same ? 1u : 0u));
		o += spec_put_var(out + o, p != NULL && x->a == p->a ? x->b - p->b - 1 : x->b - x->a - 1);
		if (!same) {
			o += spec_put_var(out + o, x->friction);
			o += spec_put_var(out + o, x->restitution);
		}
		for (uint32_t k = 0; k < x->count; ++k) {
			uint32_t id = k == 0 ? x->id[0] : x->id[k] ^ x->id[0];
			o += spec_put_var(out + o, (id & 1u) | ((id >> 4) << 1) | (((id >> 1) & 7u) << 29));
			o += spec_put_var(out + o, x->pn[k]);
			o += spec_put_var(out + o, ((uint32_t)x->pt[k] << 1) ^
			                               (x->pt[k] < 0 ? 0xFFFFFFFFu : 0u));
		}
		if (x->recycled) {
			o += spec_put_block(out + o, x);
		}
		if (kind == 2 && x->pad_mask) {
			out[o++] = (uint8_t)(x->mask | 0x80u);
			out[o++] = 0;
		} else if (kind == 2) {
			o += spec_put_var(out + o, x->mask);
		}
		for (uint32_t k = 0; x->recycled && k < x->residuals; ++k) {
			const int32_t v = x->manifold[k];
			o += spec_put_var(out + o, ((uint32_t)v << 1) ^ (v < 0 ? 0xFFFFFFFFu : 0u));
		}
	}
	return o;
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}
static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* Offsets within the payload (the bytes after the 40-byte header). */
static inline void spec_parse(const uint8_t *pl, size_t len, spec *s)
{
	memset(s, 0, sizeof *s);
	size_t o = 8 + 11 * 4 + 1 + 1 + 3 * 4 + 4 + 4 + 8 + 8 + 4; /* world: 94 bytes */
	ck_assert_uint_eq(o, 94);
	/* bodies */
	s->body_next = o;
	s->bodies = le32(pl + o);
	o += 4;
	ck_assert_uint_le(s->bodies, SPEC_MAX);
	int32_t pc[2] = {0, 0}, pq[2] = {0, 0};
	for (uint32_t i = 0; i < s->bodies; ++i) {
		s->body_rec[i] = o;
		struct spec_body *x = &s->body[i];
		memset(x, 0, sizeof *x);
		x->gen = spec_var(pl, &o);
		s->body_flag[i] = o;
		uint32_t f = x->flags = spec_var(pl, &o);
		if (f & 1u) {
			for (int k = 0; k < 2; ++k) {
				x->c[k] = pc[k] = spec_delta(pl, &o, pc[k]);
			}
			x->q[1] = spec_delta(pl, &o, pq[1]); /* version 9: s, then c on the circle */
			x->q[0] = spec_delta(pl, &o, spec_unit_c(x->q[1], pq[0]));
			pq[0] = x->q[0];
			pq[1] = x->q[1];
			for (int k = 0; k < 2 && (f & 64u); ++k) {
				x->od[k] = spec_delta(pl, &o, 0);
			}
			for (int k = 0; k < 3 && (f & 8u); ++k) {
				x->v[k] = spec_unzz(spec_var(pl, &o));
			}
			for (int k = 0; k < 3 && (f & 128u); ++k) {
				x->f[k] = spec_unzz(spec_var(pl, &o));
			}
			if (((f >> 1) & 3u) == 2 && !(f & 16u)) {
				for (int k = 0; k < 4; ++k) {
					x->m[k] = spec_unzz(spec_var(pl, &o));
				}
			}
			if (f & 256u) {
				x->user = le64(pl + o);
				o += 8;
			}
			if (f & 32u) {
				x->sleep = pl[o++];
				x->sleep_time = spec_unzz(spec_var(pl, &o));
			}
		}
	}
	s->body_free = o;
	o += 4 + 4 * (size_t)le32(pl + o);
	/* shapes */
	s->shape_next = o;
	s->shapes = le32(pl + o);
	o += 4;
	ck_assert_uint_le(s->shapes, SPEC_MAX);
	for (uint32_t i = 0; i < s->shapes; ++i) {
		s->shape_rec[i] = o;
		(void)spec_var(pl, &o);
		s->shape_flag[i] = o;
		uint8_t f = pl[o++];
		if (f & 1) {
			o += (f & 32) ? 1 : 0; /* type */
			s->shape_body[i] = o;
			(void)spec_var(pl, &o);
			s->shape_mat[i] = o;
			o += (f & 16) ? 0 : 12;
			if (!(f & 8)) {
				uint32_t t = (f & 32) ? pl[s->shape_body[i] - 1] : 0;
				o += (f & 2) ? 1 + 8 * (size_t)pl[o]
				             : (t == 2 ? 20 : (t == 3 ? 16 : (t == 4 ? 32 : 12)));
			}
			o += (f & 4) ? 8 : 0;
		}
	}
	s->shape_free = o;
	o += 4 + 4 * (size_t)le32(pl + o);
	/* joints */
	s->joint_next = o;
	s->joints = le32(pl + o);
	o += 4;
	ck_assert_uint_le(s->joints, SPEC_MAX);
	for (uint32_t i = 0; i < s->joints; ++i) {
		s->joint_rec[i] = o;
		uint8_t f = pl[o + 4];
		o += 5 + ((f & 1) ? 64 + ((f & 16) ? 8 : 0) : 0);
	}
	s->joint_free = o;
	o += 4 + 4 * (size_t)le32(pl + o);
	/* arbiters */
	s->arbiters = o;
	s->arbiter_count = le32(pl + o);
	o += 4;
	struct spec_arb prev = {0};
	for (uint32_t i = 0; i < s->arbiter_count; ++i) {
		struct spec_arb x = {0};
		if (i < SPEC_MAX) {
			s->arb_rec[i] = o;
		}
		uint32_t head = spec_var(pl, &o), gap = spec_var(pl, &o);
		x.a = prev.a + (head >> 4);             /* version 9 */
		const uint32_t kind = (head >> 2) & 3u; /* 1: recycled, 2: and more groups */
		ck_assert_uint_lt(kind, 3);
		x.recycled = kind != 0;
		x.b = (i > 0 && x.a == prev.a ? prev.b : x.a) + 1 + gap;
		x.count = 1 + ((head >> 1) & 1u);
		x.friction = prev.friction;
		x.restitution = prev.restitution;
		if (!(head & 1u)) {
			x.friction = spec_var(pl, &o);
			x.restitution = spec_var(pl, &o);
		}
		for (uint32_t k = 0; k < x.count; ++k) {
			uint32_t t = spec_var(pl, &o); /* bit 0, then bits 4..31, then bits 1..3 */
			uint32_t id = (t & 1u) | (((t >> 1) & 0x0FFFFFFFu) << 4) | ((t >> 29) << 1);
			x.id[k] = k == 0 ? id : id ^ x.id[0];
			x.pn[k] = spec_var(pl, &o);
			uint32_t z = spec_var(pl, &o);
			x.pt[k] = (z & 1u) ? -(int32_t)(z >> 1) - 1 : (int32_t)(z >> 1);
		}
		/* a recycled manifold (version 9): the block (cached_q_a's first component, cached_q_b's,
		 * dc0 x, y in W bits, the rotations' other components in N bits), then for kind 2 a
		 * mask of the other groups (bit g - 3) and their zigzag residuals: separations (count),
		 * normal (2), r_a (2 count), base separations (count), the second point's r_b (2 when
		 * count 2) */
		if (x.recycled && pl[o] >= 0x80u) {
			ck_assert_uint_eq(pl[o++], 0x80u);
			for (int k = 0; k < 6; ++k) {
				x.block[k] = spec_unzz(spec_var(pl, &o));
			}
		} else if (x.recycled) {
			uint32_t w = pl[o] & 15u, n = pl[o] >> 4, pos = 0;
			o += 1;
			for (int k = 0; k < 6; ++k) {
				uint32_t bits = k < 4 ? w : n, z = 0;
				for (uint32_t b = 0; b < bits; ++b, ++pos) {
					z |= (uint32_t)(pl[o + pos / 8] >> (pos % 8) & 1u) << b;
				}
				x.block[k] = spec_unzz(z);
			}
			o += (pos + 7) / 8;
		}
		x.mask = kind == 2 ? spec_var(pl, &o) : 0u;
		ck_assert_uint_lt(x.mask, 32);
		x.residuals = 0;
		for (uint32_t g = 3; g < 8; ++g) {
			uint32_t n = g == 3 || g == 6 ? x.count
			                             : (g == 5 ? 2 * x.count : (g == 7 ? 2 * (x.count - 1) : 2));
			x.residuals += (x.mask >> (g - 3) & 1u) ? n : 0u;
		}
		for (uint32_t k = 0; k < x.residuals; ++k) {
			uint32_t z = spec_var(pl, &o);
			x.manifold[k] = (z & 1u) ? -(int32_t)(z >> 1) - 1 : (int32_t)(z >> 1);
		}
		if (i < SPEC_MAX) {
			s->arb[i] = x;
		}
		prev = x;
	}
	/* options (version 3): threshold, body options, shape options, overlaps, pending ends */
	s->options = o;
	o += 4;
	o += 4 + 17 * (size_t)le32(pl + o);
	o += 4 + 25 * (size_t)le32(pl + o);
	o += 4 + 8 * (size_t)le32(pl + o);
	o += 4 + 17 * (size_t)le32(pl + o);
	/* u32 contact_recycle_distance (version 7) */
	ck_assert_uint_le(le32(pl + o), (uint32_t)F2D_MILLI(250));
	o += 4;
	s->end = o;
	/* u32 substep_count (0..8), always there (version 6) */
	ck_assert_uint_le(o + 4, len);
	ck_assert_uint_le(le32(pl + o), 8);
	o += 4;
	ck_assert(o == len);
}

#endif
