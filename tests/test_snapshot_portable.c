/* fix2d tests: the portable snapshot form (issue 4): same bytes everywhere, the documented
 * layout, continuation, and every corruption (portable or in-process) refused with the
 * world unchanged.
 * SPDX-License-Identifier: MIT
 */
#include "snapshot_common.h"
#include "snapshot_internal.h" /* f2d_snapshot_unit_other */

/* ---- portable form ---- */

START_TEST(portable_round_trip_every_scene)
{
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		if (large_scene(name)) {
			continue;
		}
		f2d_world *w = make_scene(name);
		int32_t n = frames_for(name, 120, 60);
		for (int32_t f = 0; f < n; ++f) {
			advance_inputs(w, f, NULL);
		}
		slot p = {0}, q = {0}, r = {0};
		portable_save(w, &p);
		/* the same state built independently (other capacities) gives the same bytes */
		f2d_world_def def = f2d_default_world_def();
		def.body_capacity = 3;
		def.contact_capacity = 5000;
		f2d_world *v = NULL;
		CHECK_OK(f2d_scene_create(name, &def, &v));
		v->def.body_capacity = w->def.body_capacity; /* the hints are settings too */
		v->def.contact_capacity = w->def.contact_capacity;
		for (int32_t f = 0; f < n; ++f) {
			advance_inputs(v, f, NULL);
		}
		portable_save(v, &q);
		ck_assert_msg(p.size == q.size && memcmp(p.bytes, q.bytes, p.size) == 0,
		              "%s: same state, different bytes", name);
		/* load into a new world, re-save: identical bytes */
		f2d_world *l = NULL;
		CHECK_OK(f2d_snapshot_load_new(p.bytes, p.size, NULL, &l));
		portable_save(l, &r);
		ck_assert_msg(r.size == p.size && memcmp(r.bytes, p.bytes, p.size) == 0,
		              "%s: re-saving a loaded snapshot changes its bytes", name);
		/* load in place into the other world */
		CHECK_OK(f2d_snapshot_load(v, p.bytes, p.size));
		/* continuation: the same hash chain */
		for (int32_t f = n; f < n + 60; ++f) {
			advance_inputs(w, f, NULL);
			advance_inputs(l, f, NULL);
			advance_inputs(v, f, NULL);
			uint64_t h = f2d_world_hash(w);
			ck_assert_msg(f2d_world_hash(l) == h && f2d_world_hash(v) == h,
			              "%s: loaded world parts at frame %d", name, f + 1);
		}
		/* the in-process bytes of the state are a function of the state too (the header but
		 * its seal, the payload but the caches and the arbiter records, which carry their
		 * manifolds: the chain of caches, the broad phase's fat boxes and candidates, and an
		 * arbiter's per-step fields depend on the history; the arbiter count does not) */
		slot m1 = {0}, m2 = {0};
		slot_save(w, &m1);
		slot_save(l, &m2);
		f2d_snapshot_layout lay;
		CHECK_OK(f2d_snapshot_measure(w, false, &lay));
		const size_t arbs = lay.header + 94 + lay.bodies + lay.shapes + lay.joints + 4;
		const size_t arbs_end = arbs - 4 + lay.arbiters;
		ck_assert(m1.size == m2.size && memcmp(m1.bytes, m2.bytes, 40) == 0 &&
		          memcmp(m1.bytes + 48, m2.bytes + 48, arbs - 48) == 0 &&
		          memcmp(m1.bytes + arbs_end, m2.bytes + arbs_end,
		                 m1.size - arbs_end - lay.caches) == 0);
		/* measure adds up */
		CHECK_OK(f2d_snapshot_measure(w, true, &lay));
		ck_assert_uint_eq(lay.total, f2d_snapshot_portable_size(w));
		ck_assert_uint_eq(lay.header + lay.world + lay.bodies + lay.shapes + lay.joints +
		                      lay.arbiters + lay.caches,
		                  lay.total);
		ck_assert_uint_eq(lay.caches, 0);
		CHECK_OK(f2d_snapshot_measure(w, false, &lay));
		ck_assert_uint_eq(lay.total, m1.size);
		ck_assert_uint_eq(lay.header + lay.world + lay.bodies + lay.shapes + lay.joints +
		                      lay.arbiters + lay.caches,
		                  lay.total);
		free(p.bytes);
		free(q.bytes);
		free(r.bytes);
		free(m1.bytes);
		free(m2.bytes);
		f2d_destroy_world(w);
		f2d_destroy_world(v);
		f2d_destroy_world(l);
	}
}
END_TEST

/* ---- a reader of the documented format (snapshot.h), independent of src/snapshot.c ---- */

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
static uint32_t spec_var(const uint8_t *pl, size_t *o)
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

static size_t spec_put_var(uint8_t *p, uint32_t v)
{
	size_t n = 0;
	while (v >= 0x80u) {
		p[n++] = (uint8_t)(v | 0x80u);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static int32_t spec_unzz(uint32_t z)
{
	return (z & 1u) ? -(int32_t)(z >> 1) - 1 : (int32_t)(z >> 1);
}
static uint32_t spec_zz(int32_t v)
{
	return ((uint32_t)v << 1) ^ (v < 0 ? 0xFFFFFFFFu : 0u);
}
/* prev + zigzag delta, modulo 2^32 */
static int32_t spec_delta(const uint8_t *pl, size_t *o, int32_t prev)
{
	uint32_t u = (uint32_t)prev + (uint32_t)spec_unzz(spec_var(pl, o));
	return u <= (uint32_t)INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1;
}
static size_t spec_put_delta(uint8_t *p, int32_t v, int32_t prev)
{
	uint32_t d = (uint32_t)v - (uint32_t)prev;
	return spec_put_var(p, (d << 1) ^ ((d >> 31) != 0 ? 0xFFFFFFFFu : 0u));
}

/* round(sqrt(n)) for 0 <= n <= 2^32 (no ties for integers): the largest r with r^2 <= n, one
 * more when n - r^2 > r */
static int64_t spec_isqrt_round(int64_t n)
{
	int64_t r = 0;
	for (int64_t step = (int64_t)1 << 16; step > 0; step >>= 1) {
		r += (r + step) * (r + step) <= n ? step : 0;
	}
	return n - r * r > r ? r + 1 : r;
}

/* q.c's prediction (version 9): sign(previous q.c) round(sqrt(2^32 - q.s^2)), 0 past 1 */
static int32_t spec_unit_c(int32_t s, int32_t prev_c)
{
	int64_t rest = ((int64_t)1 << 32) - (int64_t)s * s;
	int32_t m = (int32_t)spec_isqrt_round(rest > 0 ? rest : 0);
	return prev_c < 0 ? -m : m;
}

/* the body records of n decoded bodies, with the u32 count before them, as snapshot.h says
 * (version 5; out: room for 4 + 110 n) */
static size_t spec_encode_bodies(const struct spec_body *bd, uint32_t n, uint8_t *out)
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

static uint32_t spec_bits(uint32_t v)
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
static size_t spec_put_block(uint8_t *out, const struct spec_arb *x)
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
static size_t spec_encode_arbiters(const struct spec_arb *arb, uint32_t n, uint8_t *out)
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

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}
static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* Offsets within the payload (the bytes after the 40-byte header). */
static void spec_parse(const uint8_t *pl, size_t len, spec *s)
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

START_TEST(portable_layout_matches_spec)
{
	f2d_world *w = small_world();
	slot s = {0};
	portable_save(w, &s);
	const uint8_t *b = s.bytes;
	ck_assert(memcmp(b, "fix2dsnp", 8) == 0);
	ck_assert_uint_eq(le32(b + 8), F2D_SNAPSHOT_FORMAT_VERSION);
	ck_assert_uint_eq(le32(b + 12), 0);
	ck_assert_uint_eq(le64(b + 24), s.size - 40);
	ck_assert_uint_eq(le64(b + 32), XXH3_64bits(b + 40, s.size - 40));
	const uint8_t *pl = b + 40;
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	ck_assert_uint_eq(le64(pl), st.step_count);
	ck_assert_int_eq((int32_t)le32(pl + 8 + 4), -F2D_FIX(10)); /* gravity y */
	ck_assert_int_eq((int32_t)le32(pl + 16), 1092);            /* time step */
	spec sp;
	spec_parse(pl, s.size - 40, &sp);
	ck_assert_uint_eq(sp.bodies, 6);
	ck_assert_uint_eq(sp.shapes, 5);
	ck_assert_uint_eq(sp.joints, 2);
	ck_assert_uint_gt(sp.arbiter_count, 0);
	ck_assert_uint_eq(sp.arbiter_count, (uint32_t)w->arbiter_count);
	for (uint32_t i = 0; i < sp.arbiter_count && i < SPEC_MAX; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		const struct spec_arb *x = &sp.arb[i];
		ck_assert(x->a == (uint32_t)a->shape_a && x->b == (uint32_t)a->shape_b);
		ck_assert(x->friction == (uint32_t)a->friction &&
		          x->restitution == (uint32_t)a->restitution);
		ck_assert_uint_eq(x->count, (uint32_t)a->count);
		for (int32_t k = 0; k < a->count; ++k) {
			ck_assert_uint_eq(x->id[k], a->points[k].id);
			ck_assert_uint_eq(x->pn[k], (uint32_t)a->points[k].pn);
			ck_assert_int_eq(x->pt[k], a->points[k].pt);
		}
	}
	/* re-encoding the decoded section by the spec gives the library's bytes */
	if (sp.arbiter_count <= SPEC_MAX) {
		uint8_t sec[4 + 140 * SPEC_MAX];
		size_t len = spec_encode_arbiters(sp.arb, sp.arbiter_count, sec);
		ck_assert_uint_eq(len, sp.options - sp.arbiters);
		ck_assert(memcmp(sec, pl + sp.arbiters, len) == 0);
	}
	ck_assert_uint_eq(le32(pl + sp.body_free), 2); /* bodies 4 and 5 */
	ck_assert_uint_eq(le32(pl + sp.shape_free), 1);
	ck_assert_uint_eq(le32(pl + sp.joint_free), 1);
	/* every body decoded by the spec is the world's; re-encoding gives the library's bytes */
	for (uint32_t i = 0; i < sp.bodies; ++i) {
		const struct spec_body *x = &sp.body[i];
		const f2d_body *bd = &w->bodies[i];
		ck_assert_uint_eq(x->gen, bd->generation);
		ck_assert_uint_eq(x->flags & 1u, bd->alive ? 1u : 0u);
		if (!bd->alive) {
			continue;
		}
		ck_assert_uint_eq((x->flags >> 1) & 3u, (uint32_t)bd->type);
		ck_assert(x->c[0] == bd->center.x && x->c[1] == bd->center.y);
		ck_assert(x->q[0] == bd->q.c && x->q[1] == bd->q.s);
		f2d_vec2 o = {x->c[0] + x->od[0], x->c[1] + x->od[1]};
		if (!(x->flags & 64u)) { /* derived: centre - rotate(q, local centre) */
			o = f2d_sub(bd->center, f2d_rotate(bd->q, bd->local_center));
		}
		ck_assert(o.x == bd->origin.x && o.y == bd->origin.y);
		ck_assert(x->v[0] == bd->v.x && x->v[1] == bd->v.y && x->v[2] == bd->w);
		ck_assert(x->f[0] == bd->force.x && x->f[1] == bd->force.y &&
		          x->f[2] == bd->torque);
		ck_assert_uint_eq(x->user, bd->user_data);
	}
	{
		uint8_t sec[4 + 110 * SPEC_MAX];
		size_t len = spec_encode_bodies(sp.body, sp.bodies, sec);
		ck_assert_uint_eq(len, sp.body_free - sp.body_next);
		ck_assert(memcmp(sec, pl + sp.body_next, len) == 0);
	}
	/* body 1: alive dynamic (flags 1 | 2 << 1), a force, user data 42 */
	ck_assert_uint_eq(sp.body[1].flags & 7u, 5u);
	ck_assert(sp.body[1].flags & 128u); /* the force */
	ck_assert(sp.body[1].flags & 256u); /* user data 42 */
	ck_assert_uint_eq(sp.body[1].user, 42);
	free(s.bytes);
	f2d_destroy_world(w);
}
END_TEST

/* ---- corruption: error code, message, world unchanged ---- */

typedef struct target {
	f2d_world *w;
	uint64_t hash;
} target;

static void fix_checksum(uint8_t *b, size_t size)
{
	put_le64(b + 24, size - 40);
	put_le64(b + 32, XXH3_64bits(b + 40, size - 40));
}

/* load bytes into t; expect code `want` (F2D_OK: any error), a message containing `needle`,
 * and an unchanged world */
static void expect_refused(target *t, const uint8_t *b, size_t size, f2d_result want,
                           const char *needle, const char *what)
{
	t->w->error[0] = '\0';
	f2d_result r = f2d_snapshot_load(t->w, b, size);
	const char *msg = f2d_world_last_error(t->w);
	if (want == F2D_OK) {
		ck_assert_msg(r != F2D_OK, "%s: accepted", what);
	} else {
		ck_assert_msg(r == want, "%s: returned %d (%s: %s), expected %d", what, (int)r,
		              f2d_error_string(r), msg, (int)want);
	}
	ck_assert_msg(msg[0] != '\0', "%s: no message", what);
	ck_assert_msg(needle == NULL || strstr(msg, needle) != NULL,
	              "%s: message '%s' does not mention '%s'", what, msg, needle);
	ck_assert_msg(f2d_world_hash(t->w) == t->hash, "%s: the world changed", what);
	/* f2d_snapshot_check agrees */
	char m2[200];
	ck_assert_int_eq(f2d_snapshot_check(b, size, NULL, m2, sizeof m2), r);
	ck_assert_str_eq(m2, msg);
	f2d_world *none = (f2d_world *)(uintptr_t)1;
	ck_assert_int_eq(f2d_snapshot_load_new(b, size, NULL, &none), r);
	ck_assert_ptr_null(none);
}

/* copy, patch a 32-bit field at payload offset `at`, fix the checksum, expect a refusal */
static void expect_patch_refused(target *t, const slot *good, size_t at, uint32_t value,
                                 f2d_result want, const char *needle, const char *what)
{
	uint8_t *b = malloc(good->size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, good->size);
	put_le32(b + 40 + at, value);
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, want, needle, what);
	free(b);
}

static void expect_byte_refused(target *t, const slot *good, size_t at, uint8_t value,
                                f2d_result want, const char *needle, const char *what)
{
	uint8_t *b = malloc(good->size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, good->size);
	b[40 + at] = value;
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, want, needle, what);
	free(b);
}

/* good with its arbiter section replaced by `sec` (len bytes); expect a refusal */
static void expect_arbiters_refused(target *t, const slot *good, const spec *sp,
                                    const uint8_t *sec, size_t len, f2d_result want,
                                    const char *needle, const char *what)
{
	size_t head = 40 + sp->arbiters, tail = good->size - 40 - sp->options;
	size_t size = head + len + tail;
	uint8_t *b = malloc(size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, head);
	memcpy(b + head, sec, len);
	memcpy(b + head + len, good->bytes + 40 + sp->options, tail);
	fix_checksum(b, size);
	expect_refused(t, b, size, want, needle, what);
	free(b);
}

/* good with its body records replaced by `sec` (len bytes, the count included): a new buffer
 * of *size bytes, checksum fixed */
static uint8_t *bodies_replaced(const slot *good, const spec *sp, const uint8_t *sec, size_t len,
                                size_t *size)
{
	size_t head = 40 + sp->body_next, tail = good->size - 40 - sp->body_free;
	*size = head + len + tail;
	uint8_t *b = malloc(*size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, head);
	memcpy(b + head, sec, len);
	memcpy(b + head + len, good->bytes + 40 + sp->body_free, tail);
	fix_checksum(b, *size);
	return b;
}

static void expect_bodies_refused(target *t, const slot *good, const spec *sp,
                                  const uint8_t *sec, size_t len, f2d_result want,
                                  const char *needle, const char *what)
{
	size_t size;
	uint8_t *b = bodies_replaced(good, sp, sec, len, &size);
	expect_refused(t, b, size, want, needle, what);
	free(b);
}

/* What the corruption tests start from: w (small_world), its portable bytes (good) and their
 * parse (sp), and the target: a pyramid stepped 40 times, with its hash */
static f2d_world *corrupt_setup(slot *good, spec *sp, target *t)
{
	f2d_world *w = small_world();
	portable_save(w, good);
	spec_parse(good->bytes + 40, good->size - 40, sp);
	t->w = make_scene("pyramid");
	for (int i = 0; i < 40; ++i) {
		f2d_world_step(t->w);
	}
	t->hash = f2d_world_hash(t->w);
	return w;
}

/* the bodies of sp with body `index` changed by the caller (x), encoded by the spec */
#define BODY_CASE(index, field_changes, want, needle, what)                                        \
	do {                                                                                       \
		struct spec_body body_[SPEC_MAX];                                                  \
		memcpy(body_, sp->body, sizeof body_);                                             \
		struct spec_body *x = &body_[index];                                               \
		field_changes;                                                                     \
		size_t len_ = spec_encode_bodies(body_, sp->bodies, bsec);                         \
		expect_bodies_refused(t, good, sp, bsec, len_, want, needle, what);                \
	} while (0)

/* the arbiters of sp with one changed by the caller, encoded by the spec */
#define ARB_CASE(field_changes, want, needle, what)                                                \
	do {                                                                                       \
		struct spec_arb arb_[SPEC_MAX];                                                    \
		memcpy(arb_, sp->arb, sizeof arb_);                                                \
		struct spec_arb *x = &arb_[0];                                                     \
		field_changes;                                                                     \
		size_t len_ = spec_encode_arbiters(arb_, sp->arbiter_count, sec);                  \
		expect_arbiters_refused(t, good, sp, sec, len_, want, needle, what);               \
	} while (0)

/* The header and the payload's ends: truncations, trailing bytes, the substep_count word,
 * magic, version, reserved word, fingerprint, checksum, an in-process snapshot */
static void corrupt_header(target *t, const slot *good, const spec *sp, uint8_t *b, f2d_world *w)
{
	(void)sp;
	/* truncated anywhere (header says more) */
	for (size_t n = 0; n < good->size; ++n) {
		expect_refused(t, good->bytes, n, F2D_ERROR_INVALID_VALUE, "truncated",
		               "truncated");
	}
	/* truncated payload with a consistent header: the parser meets the end */
	for (size_t n = 40; n < good->size; ++n) {
		memcpy(b, good->bytes, n);
		fix_checksum(b, n);
		expect_refused(t, b, n, F2D_OK, NULL, "truncated payload");
	}
	/* trailing bytes */
	memcpy(b, good->bytes, good->size);
	b[good->size] = 0;
	expect_refused(t, b, good->size + 1, F2D_ERROR_INVALID_VALUE, "trailing", "trailing");
	/* the substep_count word (the payload's last, always there in version 6): cut just
	 * before it (header and checksum rewritten) is a truncation, not a world of the
	 * Gauss-Seidel solver; beyond 8, or substeps shorter than 1/1000 s, refused */
	ck_assert_uint_eq(le32(good->bytes + good->size - 4),
	                  (uint32_t)f2d_default_world_def().substep_count); /* the default */
	memcpy(b, good->bytes, good->size - 4);
	fix_checksum(b, good->size - 4);
	expect_refused(t, b, good->size - 4, F2D_ERROR_INVALID_VALUE, "truncated in the options",
	               "cut before substep_count");
	expect_patch_refused(t, good, good->size - 44, 9, F2D_ERROR_INVALID_VALUE, "substep_count",
	                     "substep_count 9");
	memcpy(b, good->bytes, good->size);
	put_le32(b + 40 + 16, 100); /* time step 100 LSB: valid for 0 or 1 substep, not for 8 */
	put_le32(b + good->size - 4, 8);
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "1/1000 s",
	               "8 substeps of 12 LSB");
	put_le32(b + good->size - 4, 1);
	fix_checksum(b, good->size);
	{
		f2d_world *one = NULL;
		ck_assert_int_eq(f2d_snapshot_load_new(b, good->size, NULL, &one), F2D_OK);
		ck_assert_int_eq(one->def.substep_count, 1);
		ck_assert_int_eq(one->def.time_step, 100);
		f2d_destroy_world(one);
	}
	/* magic, version, reserved, fingerprint, checksum */
	memcpy(b, good->bytes, good->size);
	b[0] = 'F';
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "magic", "magic");
	memcpy(b, good->bytes, good->size);
	put_le32(b + 8, F2D_SNAPSHOT_FORMAT_VERSION + 1);
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "version", "version");
	memcpy(b, good->bytes, good->size);
	put_le32(b + 12, 1);
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "reserved", "reserved");
	memcpy(b, good->bytes, good->size);
	b[16] ^= 1;
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "fingerprint", "fingerprint");
	for (size_t at = 40; at < good->size; at += 7) {
		memcpy(b, good->bytes, good->size);
		b[at] ^= 0x10;
		expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "checksum", "checksum");
	}
	/* an in-process snapshot given to the portable loader */
	slot mem = {0};
	slot_save(w, &mem);
	expect_refused(t, mem.bytes, mem.size, F2D_ERROR_INVALID_VALUE, "in-process", "kind");

	free(mem.bytes);
}

/* The world settings out of range and absurd counts */
static void corrupt_settings(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* settings out of range */
	expect_patch_refused(t, good, 20, 0, F2D_ERROR_INVALID_VALUE, "iterations", "iterations 0");
	expect_patch_refused(t, good, 16, 1, F2D_ERROR_INVALID_VALUE, "time_step", "time step");
	expect_byte_refused(t, good, 8 + 11 * 4, 2, F2D_ERROR_INVALID_VALUE, "warm",
	                    "warm starting 2");
	expect_byte_refused(t, good, 8 + 11 * 4 + 1, 2, F2D_ERROR_INVALID_VALUE, "enable_sleep",
	                    "enable_sleep 2");
	expect_patch_refused(t, good, 8 + 11 * 4 + 2 + 8, 0, F2D_ERROR_INVALID_VALUE,
	                     "time_to_sleep", "time_to_sleep 0");
	expect_patch_refused(t, good, 90, 6, F2D_ERROR_INVALID_HANDLE, "out-of-range",
	                     "last out-of-range body past the ids");
	/* absurd counts */
	expect_patch_refused(t, good, sp->body_next, F2D_MAX_OBJECTS + 1, F2D_ERROR_CAPACITY,
	                     "F2D_MAX_OBJECTS", "bodies > max");
	expect_patch_refused(t, good, sp->body_next, 0xFFFFFFFFu, F2D_ERROR_CAPACITY,
	                     "F2D_MAX_OBJECTS", "bodies 2^32-1");
	expect_patch_refused(t, good, sp->body_next, F2D_MAX_OBJECTS, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "bodies beyond the bytes");
	expect_patch_refused(t, good, sp->shape_next, 1000000, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "shapes beyond the bytes");
	expect_patch_refused(t, good, sp->joint_next, 5000, F2D_ERROR_INVALID_VALUE, "cannot fit",
	                     "joints beyond the bytes");
	expect_patch_refused(t, good, sp->arbiters, 0x7FFFFFFFu, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "arbiters beyond the bytes");
	expect_patch_refused(t, good, sp->body_free, 3, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "free count");
}

/* Body records (re-encoded by the spec with one value changed) and the free lists */
static void corrupt_bodies(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* body values (version 5: the records re-encoded by the spec with one value changed) */
	uint8_t bsec[4 + 110 * SPEC_MAX];
	BODY_CASE(1, x->gen = 0, F2D_ERROR_INVALID_VALUE, "generation", "generation 0");
	BODY_CASE(1, x->flags |= 64u; x->od[0] = F2D_WORLD_LIMIT + F2D_FIX(200) - x->c[0],
	          F2D_ERROR_INVALID_VALUE, "F2D_WORLD_LIMIT", "origin beyond limit");
	BODY_CASE(1, x->c[1] = -F2D_WORLD_LIMIT - F2D_FIX(200), F2D_ERROR_INVALID_VALUE,
	          "F2D_WORLD_LIMIT", "centre beyond limit");
	BODY_CASE(0, x->c[0] = F2D_WORLD_LIMIT + 1, F2D_ERROR_INVALID_VALUE, "F2D_WORLD_LIMIT",
	          "static position beyond limit");
	BODY_CASE(1, x->flags |= 64u; x->od[0] = 0; x->od[1] = 0, F2D_ERROR_INVALID_VALUE,
	          "not canonical", "stored origin equal to the derived one");
	BODY_CASE(1, x->flags |= 512u, F2D_ERROR_INVALID_VALUE, "flags", "unknown body flag");
	BODY_CASE(1, x->q[0] = F2D_MILLI(900), F2D_ERROR_INVALID_VALUE, "rotation",
	          "short rotation");
	BODY_CASE(1, x->q[0] = INT32_MIN, F2D_ERROR_INVALID_VALUE, "rotation",
	          "rotation INT32_MIN");
	{
		uint32_t f = sp->body[1].flags;
		ck_assert(f & 8); /* moving */
		/* a velocity beyond the Gauss-Seidel step's bound (2 max_translation / h) is a
		 * state the soft step leaves (its relax pass follows the last capped
		 * integration): accepted in a world of substep_count 4 (the word set to 4),
		 * refused when the word says 0; INT32_MIN (never out of a saturation) always */
		BODY_CASE(1, x->v[0] = INT32_MIN, F2D_ERROR_INVALID_VALUE, "velocity",
		          "velocity INT32_MIN");
		BODY_CASE(1, x->v[2] = INT32_MIN, F2D_ERROR_INVALID_VALUE, "velocity",
		          "angular velocity INT32_MIN");
		{
			struct spec_body fast[SPEC_MAX];
			memcpy(fast, sp->body, sizeof fast);
			fast[1].v[0] = F2D_FIX(30000);
			fast[1].v[2] = INT32_MAX;
			size_t fsize, flen = spec_encode_bodies(fast, sp->bodies, bsec);
			uint8_t *fb = bodies_replaced(good, sp, bsec, flen, &fsize);
			ck_assert_uint_eq(le32(fb + fsize - 4),
			                  (uint32_t)f2d_default_world_def().substep_count);
			put_le32(fb + fsize - 4, 4); /* made a world of 4 substeps */
			fix_checksum(fb, fsize);
			f2d_world *fw = NULL;
			ck_assert_int_eq(f2d_snapshot_load_new(fb, fsize, NULL, &fw), F2D_OK);
			ck_assert_int_eq(fw->bodies[1].v.x, F2D_FIX(30000));
			ck_assert_int_eq(fw->bodies[1].w, INT32_MAX);
			ck_assert_int_eq(fw->def.substep_count, 4);
			f2d_destroy_world(fw);
			put_le32(fb + fsize - 4, 0);
			fix_checksum(fb, fsize);
			expect_refused(t, fb, fsize, F2D_ERROR_INVALID_VALUE, "Gauss-Seidel",
			               "velocity 30000 in a world of substep_count 0");
			free(fb);
		}
		BODY_CASE(1, x->v[0] = x->v[1] = x->v[2] = 0, F2D_ERROR_INVALID_VALUE, "velocity",
		          "zero velocity flagged");
		ck_assert(f & 128); /* force */
		BODY_CASE(1, x->f[0] = INT32_MIN, F2D_ERROR_INVALID_VALUE, "force",
		          "force INT32_MIN");
		ck_assert(!(f & 16)); /* its own mass record */
		BODY_CASE(1, x->m[0] = 1, F2D_ERROR_MASS_RANGE, "mass", "mass 2^-16");
		BODY_CASE(1, x->m[0] = F2D_FIX(20000), F2D_ERROR_MASS_RANGE, "mass", "mass 20000");
		BODY_CASE(1, x->m[1] = 1, F2D_ERROR_MASS_RANGE, "mass", "inertia tiny");
		BODY_CASE(1, x->m[2] = F2D_FIX(40), F2D_ERROR_MASS_RANGE, "mass",
		          "centre of mass far away");
		expect_byte_refused(t, good, sp->body_flag[1],
		                    (uint8_t)(good->bytes[40 + sp->body_flag[1]] | 6),
		                    F2D_ERROR_INVALID_VALUE, "type", "body type 3");
		BODY_CASE(1, x->flags |= 32u; x->sleep = 0; x->sleep_time = 0,
		          F2D_ERROR_INVALID_VALUE, "sleep",
		          "sleep flag without a valid sleep record");
	}
	/* a dead body with flags */
	expect_byte_refused(t, good, sp->body_flag[4], 8, F2D_ERROR_INVALID_VALUE, "flags",
	                    "dead body flags");
	/* static body flagged moving: refused */
	expect_byte_refused(t, good, sp->body_flag[0], 1 | 8, F2D_ERROR_INVALID_VALUE, NULL,
	                    "static moving");
	/* a varint that is not minimal: body 0's generation (one byte) as two */
	{
		size_t at = 40 + sp->body_rec[0];
		ck_assert_uint_lt(good->bytes[at], 0x80u);
		uint8_t *c = malloc(good->size + 1);
		ck_assert_ptr_nonnull(c);
		memcpy(c, good->bytes, at);
		c[at] = (uint8_t)(good->bytes[at] | 0x80u);
		c[at + 1] = 0;
		memcpy(c + at + 2, good->bytes + at + 1, good->size - at - 1);
		fix_checksum(c, good->size + 1);
		expect_refused(t, c, good->size + 1, F2D_ERROR_INVALID_VALUE, "not minimal",
		               "generation varint not minimal");
		free(c);
	}
	/* free lists: live id, repeated id, never handed out */
	expect_patch_refused(t, good, sp->body_free + 4, 1, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live id in free list");
	expect_patch_refused(t, good, sp->body_free + 8, le32(good->bytes + 40 + sp->body_free + 4),
	                     F2D_ERROR_INVALID_HANDLE, "repeated", "repeated free id");
	expect_patch_refused(t, good, sp->body_free + 4, 99, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "free id out of range");
	expect_patch_refused(t, good, sp->shape_free + 4, 0, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live shape id in free list");
	expect_patch_refused(t, good, sp->joint_free + 4, 0, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live joint id in free list");
}

/* Shape records: dangling body, bad polygon, circle, material */
static void corrupt_shapes(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* shapes: dangling body, bad polygon, circle, material */
	/* shape 1's body (one varint byte: body - shape 0's body - 1, zigzag coded; shape 0 is
	 * on body 0) */
	ck_assert_uint_eq(sp->shape_mat[1], sp->shape_body[1] + 1);
	expect_byte_refused(t, good, sp->shape_body[1], 2 * (4 - 1), F2D_ERROR_INVALID_HANDLE,
	                    "not alive", "shape on a dead body");
	expect_byte_refused(t, good, sp->shape_body[1], 2 * (50 - 1), F2D_ERROR_INVALID_HANDLE,
	                    "not alive", "shape on no body");
	{
		size_t s1 = sp->shape_rec[1];
		uint8_t f = good->bytes[40 + sp->shape_flag[1]];
		ck_assert(f & 2);    /* polygon */
		ck_assert(f & 16);   /* same material as the ground */
		ck_assert(!(f & 8)); /* own geometry: count after the body */
		size_t count_at = sp->shape_mat[1];
		size_t v = count_at + 1; /* vertex 0 */
		(void)s1;
		uint8_t *c = malloc(good->size);
		ck_assert_ptr_nonnull(c);
		memcpy(c, good->bytes, good->size); /* swap vertices 0 and 2: not CCW/convex */
		memcpy(c + 40 + v, good->bytes + 40 + v + 16, 8);
		memcpy(c + 40 + v + 16, good->bytes + 40 + v, 8);
		fix_checksum(c, good->size);
		expect_refused(t, c, good->size, F2D_ERROR_BAD_POLYGON, "polygon", "not convex");
		free(c);
		expect_byte_refused(t, good, count_at, 2, F2D_ERROR_BAD_POLYGON, "polygon",
		                    "2 vertices");
		expect_byte_refused(t, good, count_at, 200, F2D_ERROR_BAD_POLYGON, "polygon",
		                    "200 vertices");
		expect_patch_refused(t, good, v, (uint32_t)F2D_FIX(600), F2D_ERROR_BAD_POLYGON,
		                     "polygon", "vertex beyond 512 m");
		expect_patch_refused(t, good, v, (uint32_t)-F2D_FIX(40), F2D_ERROR_MASS_RANGE,
		                     "dynamic", "dynamic shape beyond 32 m");
		/* shape 2 (triangle) has its own material: density, friction after the body */
		size_t s2 = sp->shape_mat[2];
		ck_assert(!(good->bytes[40 + sp->shape_flag[2]] & 16));
		expect_patch_refused(t, good, s2 + 4, (uint32_t)F2D_FIX(5), F2D_ERROR_INVALID_VALUE,
		                     "friction", "friction 5");
		expect_patch_refused(t, good, s2, 0, F2D_ERROR_INVALID_VALUE, "density",
		                     "density 0");
		/* shape 3: a circle with shape 2's material: centre, radius after the body */
		size_t s3 = sp->shape_mat[3];
		uint8_t f3 = good->bytes[40 + sp->shape_flag[3]];
		ck_assert(!(f3 & 2));
		ck_assert(f3 & 16);
		expect_patch_refused(t, good, s3 + 8, 1, F2D_ERROR_INVALID_VALUE, "circle",
		                     "radius 1 LSB");
		expect_byte_refused(t, good, sp->shape_flag[3], f3 | 8, F2D_ERROR_INVALID_VALUE,
		                    "another type", "circle same geometry as a triangle");
		expect_byte_refused(t, good, sp->shape_flag[0], 1 | 2 | 16, F2D_ERROR_INVALID_VALUE,
		                    "does not exist", "first shape same as previous");
	}
}

/* Joint records: dangling and bad values */
static void corrupt_joints(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* joints: dangling and bad values */
	{
		size_t j0 = sp->joint_rec[0];
		expect_patch_refused(t, good, j0 + 5, 4, F2D_ERROR_INVALID_HANDLE, "live bodies",
		                     "joint on a dead body");
		expect_patch_refused(t, good, j0 + 9, 1, F2D_ERROR_INVALID_HANDLE, "live bodies",
		                     "joint on one body twice");
		expect_patch_refused(t, good, j0 + 13, (uint32_t)F2D_FIX(100),
		                     F2D_ERROR_INVALID_VALUE, "anchor", "anchor 100 m");
		expect_patch_refused(t, good, j0 + 29, (uint32_t)F2D_FIX(4),
		                     F2D_ERROR_INVALID_VALUE, "angle", "reference angle 4");
		expect_patch_refused(t, good, j0 + 33, (uint32_t)F2D_MILLI(600),
		                     F2D_ERROR_INVALID_VALUE, "angle", "lower > upper");
		expect_patch_refused(t, good, j0 + 45, (uint32_t)-1, F2D_ERROR_INVALID_VALUE,
		                     "motor", "negative torque");
		expect_patch_refused(t, good, j0 + 61, (uint32_t)-1, F2D_ERROR_INVALID_VALUE,
		                     "impulse", "negative lower impulse");
	}
}

/* Arbiter records: dangling, values, canonical varints */
static void corrupt_arbiters(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* arbiters: dangling, values, canonical varints */
	{
		ck_assert_uint_le(sp->arbiter_count, SPEC_MAX);
		uint8_t sec[4 + 140 * SPEC_MAX];
		/* the spec's encoder gives the library's bytes: a changed case is that change only */
		ck_assert_uint_eq(spec_encode_arbiters(sp->arb, sp->arbiter_count, sec),
		                  sp->options - sp->arbiters);
		ck_assert(
		    memcmp(sec, good->bytes + 40 + sp->arbiters, sp->options - sp->arbiters) == 0);
		ARB_CASE(x->b = 4, F2D_ERROR_INVALID_HANDLE, "live shapes", "arbiter on a dead shape");
		ARB_CASE(x->b = 1000, F2D_ERROR_INVALID_HANDLE, "live shapes",
		         "arbiter on no shape");
		ARB_CASE(x->a = 1000; x->b = 1001, F2D_ERROR_INVALID_HANDLE, "live shapes",
		         "arbiter beyond the shapes");
		ARB_CASE(x->friction = (uint32_t)F2D_FIX(5), F2D_ERROR_INVALID_VALUE, "friction",
		         "arbiter friction");
		ARB_CASE(x->restitution = (uint32_t)F2D_FIX(2), F2D_ERROR_INVALID_VALUE,
		         "restitution", "arbiter restitution");
		ARB_CASE(x->pn[0] = 0x80000000u, F2D_ERROR_INVALID_VALUE, "impulse",
		         "negative normal impulse");
		/* the first record claims the previous material: there is none */
		size_t len = spec_encode_arbiters(sp->arb, sp->arbiter_count, sec);
		sec[4] |= 1u;
		expect_arbiters_refused(t, good, sp, sec, len, F2D_OK, NULL,
		                        "first arbiter with the previous material");
		/* a varint with a zero last byte (not minimal) */
		uint8_t *big = malloc(len + 1);
		ck_assert_ptr_nonnull(big);
		memcpy(big, sec, 4);
		big[4] = (uint8_t)(sec[4] & ~1u) | 0x80u; /* head as two bytes */
		big[5] = 0;
		ck_assert(sec[4] < 0x80u);
		memcpy(big + 6, sec + 5, len - 5);
		expect_arbiters_refused(t, good, sp, big, len + 1, F2D_ERROR_INVALID_VALUE,
		                        "minimal", "non-minimal varint");
		free(big);
		/* the material written again when it equals the previous one */
		if (sp->arbiter_count >= 2 && sp->arb[1].friction == sp->arb[0].friction &&
		    sp->arb[1].restitution == sp->arb[0].restitution) {
			size_t a1 = sp->arb_rec[1] - sp->arbiters;
			uint8_t *c = malloc(len + 10);
			ck_assert_ptr_nonnull(c);
			ck_assert(sec[a1] & 1u);
			size_t o = 0;
			memcpy(c, sec, a1);
			o = a1;
			c[o++] = (uint8_t)(sec[a1] & ~1u); /* head, same cleared (one byte) */
			ck_assert(sec[a1] < 0x80u);
			size_t gap_at = a1 + 1, gap_len = 1;
			while (sec[gap_at + gap_len - 1] & 0x80u) {
				++gap_len;
			}
			memcpy(c + o, sec + gap_at, gap_len);
			o += gap_len;
			o += spec_put_var(c + o, sp->arb[0].friction);
			o += spec_put_var(c + o, sp->arb[0].restitution);
			memcpy(c + o, sec + gap_at + gap_len, len - gap_at - gap_len);
			o += len - gap_at - gap_len;
			expect_arbiters_refused(t, good, sp, c, o, F2D_ERROR_INVALID_VALUE,
			                        "canonical", "material repeated");
			free(c);
		}
		/* any feature id round-trips (the bit permutation is a bijection): load, compare,
		 * save again to the same bytes */
		{
			struct spec_arb arb[SPEC_MAX];
			memcpy(arb, sp->arb, sizeof arb);
			arb[0].id[0] = 0xDEADBEEFu;
			arb[0].id[1] = 0x0000000Eu;
			size_t alen = spec_encode_arbiters(arb, sp->arbiter_count, sec);
			size_t head = 40 + sp->arbiters, tail = good->size - 40 - sp->options;
			size_t size = head + alen + tail;
			uint8_t *b2 = malloc(size), *b3 = malloc(size + 64);
			ck_assert(b2 != NULL && b3 != NULL);
			memcpy(b2, good->bytes, head);
			memcpy(b2 + head, sec, alen);
			memcpy(b2 + head + alen, good->bytes + 40 + sp->options, tail);
			fix_checksum(b2, size);
			f2d_world *l = NULL;
			CHECK_OK(f2d_snapshot_load_new(b2, size, NULL, &l));
			ck_assert_uint_eq(l->arbiters[0].points[0].id, 0xDEADBEEFu);
			if (l->arbiters[0].count == 2) {
				ck_assert_uint_eq(l->arbiters[0].points[1].id, 0x0000000Eu);
			}
			size_t n3 = 0;
			CHECK_OK(f2d_snapshot_save_portable(l, b3, size + 64, &n3));
			ck_assert_uint_eq(n3, size);
			ck_assert(memcmp(b2, b3, size) == 0);
			f2d_destroy_world(l);
			free(b2);
			free(b3);
		}
		/* more arbiters than the bytes hold */
		put_le32(sec, 0x7FFFFFFFu);
		expect_arbiters_refused(t, good, sp, sec, len, F2D_ERROR_INVALID_VALUE,
		                        "cannot fit", "arbiters beyond the bytes");
	}
}

/* Random damage with a fixed checksum */
static void corrupt_random(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)sp;
	/* random damage with a fixed checksum: never accepted silently unless canonical */
	uint32_t rng = 99;
	for (int i = 0; i < 3000; ++i) {
		memcpy(b, good->bytes, good->size);
		size_t at = 40 + rng_next(&rng) % (good->size - 40);
		b[at] = (uint8_t)rng_next(&rng);
		fix_checksum(b, good->size);
		t->w->error[0] = '\0';
		f2d_result r = f2d_snapshot_load(t->w, b, good->size);
		if (r != F2D_OK) {
			ck_assert(f2d_world_last_error(t->w)[0] != '\0');
			ck_assert_uint_eq(f2d_world_hash(t->w), t->hash);
			continue;
		}
		/* accepted: canonical, so re-saving gives the bytes back; then restore t */
		slot again = {0};
		portable_save(t->w, &again);
		ck_assert(again.size == good->size && memcmp(again.bytes, b, good->size) == 0);
		free(again.bytes);
		f2d_destroy_world(t->w);
		t->w = make_scene("pyramid");
		for (int k = 0; k < 40; ++k) {
			f2d_world_step(t->w);
		}
		ck_assert_uint_eq(f2d_world_hash(t->w), t->hash);
	}
}

START_TEST(corrupt_portable_snapshots_are_refused)
{
	slot good = {0};
	spec sp;
	target t;
	f2d_world *w = corrupt_setup(&good, &sp, &t);
	uint8_t *b = malloc(good.size + 16);
	ck_assert_ptr_nonnull(b);

	corrupt_header(&t, &good, &sp, b, w);
	corrupt_settings(&t, &good, &sp, b);
	corrupt_bodies(&t, &good, &sp, b);
	corrupt_shapes(&t, &good, &sp, b);
	corrupt_joints(&t, &good, &sp, b);
	corrupt_arbiters(&t, &good, &sp, b);
	corrupt_random(&t, &good, &sp, b);
	/* NULL arguments */
	ck_assert_int_eq(f2d_snapshot_load(NULL, good.bytes, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_load(t.w, NULL, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_load_new(good.bytes, good.size, NULL, NULL),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_uint_eq(f2d_world_hash(t.w), t.hash);
	/* and the good bytes load */
	CHECK_OK(f2d_snapshot_load(t.w, good.bytes, good.size));
	ck_assert_uint_eq(f2d_world_hash(t.w), f2d_world_hash(w));
	free(b);
	free(good.bytes);
	f2d_destroy_world(t.w);
	f2d_destroy_world(w);
}
END_TEST

/* The portable loader recomputes every dynamic body's mass from its shapes (as body.c does) and
 * bounds the stored friction impulses by what the solver can produce. */
/* The mass records against the shapes and the friction impulses against the friction */
static void mass_and_friction_cases(target *t, const slot *good, const spec *sp, const f2d_world *w)
{
	/* body 1: moving, with a force, then its own mass record (see the test above) */
	ck_assert(!(sp->body[1].flags & 16u));
	ck_assert_int_eq(sp->body[1].m[0], w->bodies[1].mass);
	uint8_t bsec[4 + 110 * SPEC_MAX];
	BODY_CASE(1, x->m[0] = w->bodies[1].mass + 1, F2D_ERROR_MASS_RANGE, "differ",
	          "mass + 1 LSB");
	BODY_CASE(1, x->m[0] = 2 * w->bodies[1].mass, F2D_ERROR_MASS_RANGE, "differ",
	          "mass doubled");
	BODY_CASE(1, x->m[1] = w->bodies[1].inertia - 1, F2D_ERROR_MASS_RANGE, "differ",
	          "inertia - 1 LSB");
	/* the origin stored, so that moving the centre of mass keeps the origin */
	BODY_CASE(1, x->m[2] = F2D_MILLI(100); x->flags |= 64u;
	          x->od[0] = w->bodies[1].origin.x - x->c[0];
	          x->od[1] = w->bodies[1].origin.y - x->c[1],
	          F2D_ERROR_MASS_RANGE, "differ", "centre moved");
	/* 1 kg that does not rotate is what a body without usable shapes has, not this one */
	BODY_CASE(1, x->m[0] = F2D_ONE; x->m[1] = 0; x->m[2] = x->m[3] = 0, F2D_ERROR_MASS_RANGE,
	          "differ", "fallback mass on a body with shapes");
	/* friction impulses: |pt| <= round16(friction INT32_MAX), 0 without friction */
	ck_assert_uint_le(sp->arbiter_count, SPEC_MAX);
	uint8_t sec[4 + 140 * SPEC_MAX];
	ARB_CASE(x->friction = 0; x->pt[0] = 1, F2D_ERROR_INVALID_VALUE, "impulse",
	         "friction impulse without friction");
	ARB_CASE(x->friction = (uint32_t)F2D_MILLI(500); x->pt[0] = INT32_MAX,
	         F2D_ERROR_INVALID_VALUE, "impulse",
	         "friction impulse beyond friction x INT32_MAX");
	ARB_CASE(x->friction = (uint32_t)F2D_MILLI(500); x->pt[0] = -INT32_MAX,
	         F2D_ERROR_INVALID_VALUE, "impulse",
	         "negative friction impulse beyond friction x INT32_MAX");
}

/* ---- the recycled manifolds' residuals (portable version 9) ---- */

/* a group's length (snapshot_internal.h f2d_rs_group) */
static uint32_t spec_group_len(uint32_t g, uint32_t count)
{
	return g == 3 || g == 6 ? count : (g == 5 ? 2 * count : (g == 7 ? 2 * (count - 1) : 2));
}

/* where the block's values sit by group: group 0 (first, other), 1 (first, other), 2 (x, y) */
static const int spec_block_at[3][2] = {{0, 4}, {1, 5}, {2, 3}};

/* x's residuals by group (full[g][k]; mask: bit g for group g, groups 0..2 always), and back
 * (the groups 3..7 named by mask) */
static void spec_expand(const struct spec_arb *x, int32_t full[8][4])
{
	memset(full, 0, 8 * sizeof full[0]);
	for (int g = 0; g < 3; ++g) {
		full[g][0] = x->block[spec_block_at[g][0]];
		full[g][1] = x->block[spec_block_at[g][1]];
	}
	uint32_t o = 0;
	for (uint32_t g = 3; g < 8; ++g) {
		for (uint32_t k = 0; (x->mask >> (g - 3) & 1u) != 0 && k < spec_group_len(g, x->count);
		     ++k) {
			full[g][k] = x->manifold[o++];
		}
	}
}
static void spec_compress(struct spec_arb *x, int32_t full[8][4], uint32_t mask)
{
	for (int g = 0; g < 3; ++g) {
		x->block[spec_block_at[g][0]] = full[g][0];
		x->block[spec_block_at[g][1]] = full[g][1];
	}
	x->mask = mask >> 3;
	x->residuals = 0;
	for (uint32_t g = 3; g < 8; ++g) {
		for (uint32_t k = 0; (mask >> g & 1u) != 0 && k < spec_group_len(g, x->count); ++k) {
			x->manifold[x->residuals++] = full[g][k];
		}
	}
}

/* the first recycled arbiter's residuals changed by the caller (full, mask), encoded by the spec */
#define RESIDUAL_CASE(changes, want, needle, what)                                                 \
	do {                                                                                       \
		struct spec_arb arb_[SPEC_MAX];                                                    \
		memcpy(arb_, sp.arb, sizeof arb_);                                                 \
		struct spec_arb *x = &arb_[ri];                                                    \
		int32_t full[8][4];                                                                \
		spec_expand(x, full);                                                              \
		uint32_t mask = x->mask << 3;                                                      \
		changes;                                                                           \
		spec_compress(x, full, mask);                                                      \
		size_t len_ = spec_encode_arbiters(arb_, sp.arbiter_count, sec);                   \
		expect_arbiters_refused(&t, &good, &sp, sec, len_, want, needle, what);            \
	} while (0)

START_TEST(portable_recycled_manifold_is_canonical)
{
	/* a scene (recycling on by default) with recycled arbiters of one and two points, at most
	 * SPEC_MAX objects of each kind */
	f2d_world *w = make_scene("arena");
	for (int i = 0; i < 90; ++i) {
		f2d_world_step(w);
	}
	slot good = {0};
	portable_save(w, &good);
	spec sp;
	spec_parse(good.bytes + 40, good.size - 40, &sp);
	ck_assert_uint_le(sp.arbiter_count, SPEC_MAX);
	uint32_t ri = SPEC_MAX, r2 = SPEC_MAX;
	for (uint32_t i = 0; i < sp.arbiter_count; ++i) {
		ri = ri == SPEC_MAX && sp.arb[i].recycled ? i : ri;
		r2 = r2 == SPEC_MAX && sp.arb[i].recycled && sp.arb[i].count == 2 ? i : r2;
	}
	ck_assert_uint_lt(ri, SPEC_MAX);
	ck_assert_uint_lt(r2, SPEC_MAX);
	uint8_t sec[4 + 140 * SPEC_MAX];
	ck_assert_uint_eq(spec_encode_arbiters(sp.arb, sp.arbiter_count, sec),
	                  sp.options - sp.arbiters);
	ck_assert(memcmp(sec, good.bytes + 40 + sp.arbiters, sp.options - sp.arbiters) == 0);
	target t;
	t.w = make_scene("pyramid");
	for (int i = 0; i < 40; ++i) {
		f2d_world_step(t.w);
	}
	t.hash = f2d_world_hash(t.w);
	/* a group named by the mask whose residuals are all zero (each group in turn) */
	for (uint32_t g = 3; g < 8; ++g) {
		RESIDUAL_CASE(ri = r2; x = &arb_[ri]; spec_expand(x, full); mask = x->mask << 3;
		              memset(full[g], 0, sizeof full[g]); mask |= 1u << g,
		              F2D_ERROR_INVALID_VALUE, "names zeros", "a mask bit naming zeros");
	}
	/* a one-point manifold's mask naming the second point's r_b (no values) */
	for (uint32_t i = 0; i < sp.arbiter_count; ++i) {
		if (sp.arb[i].recycled && sp.arb[i].count == 1) {
			RESIDUAL_CASE(x = &arb_[i]; spec_expand(x, full); mask = x->mask << 3 | 1u << 7,
			              F2D_ERROR_INVALID_VALUE, "names zeros",
			              "r_b of a second point that is not there");
			break;
		}
	}
	/* a bit past the groups; kind 2 (more groups) with an empty mask; kind 3 */
	RESIDUAL_CASE(mask |= 1u << 8, F2D_ERROR_INVALID_VALUE, "mask", "mask bit 8");
	RESIDUAL_CASE(mask &= 7u; x->kind_override = 2, F2D_ERROR_INVALID_VALUE, "mask 0",
	              "kind 2 with mask 0");
	RESIDUAL_CASE(x->kind_override = 3, F2D_ERROR_INVALID_VALUE, "kind 3", "kind 3");
	/* rotation and normal residuals beyond +-L (each would wrap onto a canonical one; the
	 * rotations' take the escaped block) */
	RESIDUAL_CASE(full[0][0] = 65536 + 257, F2D_ERROR_INVALID_VALUE, "out of range",
	              "rotation residual above L");
	RESIDUAL_CASE(full[1][1] = -(65536 + 257), F2D_ERROR_INVALID_VALUE, "out of range",
	              "rotation residual below -L");
	RESIDUAL_CASE(full[4][0] = 65536 + 257; mask |= 16u, F2D_ERROR_INVALID_VALUE,
	              "out of range", "normal residual above L");
	/* the block not in its one form: a width wider than the values need, the escape for
	 * values that fit, another escape byte, a padding bit set */
	RESIDUAL_CASE(x->wide_extra = 1, F2D_ERROR_INVALID_VALUE, "not canonical", "wide + 1");
	RESIDUAL_CASE(x->narrow_extra = 1, F2D_ERROR_INVALID_VALUE, "not canonical",
	              "narrow + 1");
	RESIDUAL_CASE(x->block_escape = true, F2D_ERROR_INVALID_VALUE, "not canonical",
	              "escaped block that fits");
	RESIDUAL_CASE(full[2][0] = 1 << 20; x->wide_extra = 1, F2D_ERROR_INVALID_VALUE,
	              "not canonical", "escape byte 0x81");
	RESIDUAL_CASE(full[0][0] = 0; full[1][0] = 0; full[2][0] = 0; full[2][1] = -1;
	              full[0][1] = 0; full[1][1] = 0; x->block_pad = true,
	              F2D_ERROR_INVALID_VALUE, "padding", "a padding bit set");
	/* the mask as a non-minimal varint */
	RESIDUAL_CASE(mask |= 1u << 3; full[3][0] = 5; x->pad_mask = true, F2D_ERROR_INVALID_VALUE,
	              "minimal", "padded mask");
	/* any residual within range is a canonical manifold: it loads, re-saves to the same bytes,
	 * and the hash sees it (an anchor, a rotation at +-L, a normal component) */
	/* (a rotation at +-L, dc0 far off and a narrow value past 7 bits take the escaped block) */
	const int32_t changes[7][3] = {{2, 0, 1},       {5, 1, -3},   {0, 0, 65536 + 256},
	                               {4, 1, -7},      {2, 1, 1 << 20}, {1, 1, 100},
	                               {0, 1, 30}};
	for (int c = 0; c < 7; ++c) {
		struct spec_arb arb_[SPEC_MAX];
		memcpy(arb_, sp.arb, sizeof arb_);
		struct spec_arb *x = &arb_[r2];
		int32_t full[8][4];
		spec_expand(x, full);
		full[changes[c][0]][changes[c][1]] += changes[c][2];
		spec_compress(x, full, x->mask << 3 | 1u << changes[c][0]);
		size_t len = spec_encode_arbiters(arb_, sp.arbiter_count, sec);
		size_t head = 40 + sp.arbiters, tail = good.size - 40 - sp.options;
		slot b = {0}, r = {0};
		b.size = head + len + tail;
		b.bytes = malloc(b.size);
		ck_assert_ptr_nonnull(b.bytes);
		memcpy(b.bytes, good.bytes, head);
		memcpy(b.bytes + head, sec, len);
		memcpy(b.bytes + head + len, good.bytes + 40 + sp.options, tail);
		fix_checksum(b.bytes, b.size);
		f2d_world *l = NULL;
		CHECK_OK(f2d_snapshot_load_new(b.bytes, b.size, NULL, &l));
		ck_assert_uint_ne(f2d_world_hash(l), f2d_world_hash(w));
		portable_save(l, &r);
		ck_assert_msg(r.size == b.size && memcmp(r.bytes, b.bytes, b.size) == 0,
		              "change %d: re-saving changes the bytes", c);
		free(b.bytes);
		free(r.bytes);
		f2d_destroy_world(l);
	}
	f2d_destroy_world(t.w);
	f2d_destroy_world(w);
	free(good.bytes);
}
END_TEST

/* The unit-circle prediction (bodies' q.c, cached rotations' other component) by Newton's
 * method equals round(sqrt(2^32 - first^2)) by the digit-by-digit f2d_isqrt64_round for every
 * first within +-2^17 (past +-L of the rotation range) and at the int32 edges, on both sides. */
START_TEST(portable_unit_other_is_exact)
{
	const int64_t one = (int64_t)1 << 32;
	const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -(1 << 24), 1 << 24, INT32_MAX - 1,
	                         INT32_MAX};
	for (int64_t f = -(1 << 17) - 8; f <= (1 << 17) + 8 + 6; ++f) {
		int32_t first = f <= (1 << 17) + 8 ? (int32_t)f : edges[f - (1 << 17) - 9];
		int64_t f2 = (int64_t)first * first;
		int32_t want = (int32_t)f2d_isqrt64_round(f2 < one ? (uint64_t)(one - f2) : 0u);
		int32_t got = f2d_snapshot_unit_other(first, 1), neg = f2d_snapshot_unit_other(first, -5);
		if (got != want || neg != -want || f2d_snapshot_unit_other(first, 0) != want) {
			ck_abort_msg("first %d: %d / %d, want %d", (int)first, (int)got, (int)neg,
			             (int)want);
		}
	}
}
END_TEST

START_TEST(portable_mass_and_friction_impulse_are_checked)
{
	slot good = {0};
	spec sp;
	target t;
	f2d_world *w = corrupt_setup(&good, &sp, &t);
	mass_and_friction_cases(&t, &good, &sp, w);
	ck_assert_uint_eq(f2d_world_hash(t.w), t.hash);
	free(good.bytes);
	f2d_destroy_world(t.w);
	f2d_destroy_world(w);
}
END_TEST

/* A body whose remaining shapes are out of the mass range falls back to 1 kg that does not
 * rotate (destroy_shape): a reachable state, so the portable loader accepts it. */
START_TEST(portable_fallback_mass_round_trip)
{
	f2d_world *w = NULL;
	f2d_world_def def = f2d_default_world_def();
	CHECK_OK(f2d_create_world(&def, &w));
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	f2d_body_id body;
	CHECK_OK(f2d_create_body(w, &bd, &body));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon p;
	f2d_shape_id big, tiny;
	CHECK_OK(f2d_make_box(F2D_MILLI(500), F2D_MILLI(500), &p));
	CHECK_OK(f2d_create_polygon_shape(w, body, &sd, &p, &big));
	sd.density = F2D_MILLI(10);
	f2d_circle circ = {{F2D_MILLI(200), 0}, F2D_MILLI(50)};
	CHECK_OK(f2d_create_circle_shape(w, body, &sd, &circ, &tiny));
	CHECK_OK(f2d_destroy_shape(w, big));
	ck_assert_int_eq(w->bodies[0].mass, F2D_ONE);
	ck_assert_int_eq(w->bodies[0].inertia, 0);
	for (int i = 0; i < 10; ++i) {
		f2d_world_step(w);
	}
	slot s = {0};
	portable_save(w, &s);
	f2d_world *v = NULL;
	CHECK_OK(f2d_snapshot_load_new(s.bytes, s.size, NULL, &v));
	ck_assert_uint_eq(f2d_world_hash(v), f2d_world_hash(w));
	free(s.bytes);
	f2d_destroy_world(v);
	f2d_destroy_world(w);
}
END_TEST

/* The in-process header (48 bytes) and its seal: XXH3-64 of the payload with snapshot.c's
 * MEMORY_SEAL_SEED, at byte 40. Resealing damaged bytes tests the validation behind the seal. */
#define MEM_HEADER 48
static void reseal(uint8_t *b, size_t size)
{
	if (size >= MEM_HEADER) {
		put_le64(b + 40, XXH3_64bits_withSeed(b + MEM_HEADER, size - MEM_HEADER,
		                                      0xF2D5EA1C0C4E5EEDull));
	}
}

START_TEST(corrupt_in_process_snapshots_are_refused)
{
	f2d_world *w = small_world();
	slot good = {0}, port = {0};
	slot_save(w, &good);
	portable_save(w, &port);
	f2d_world *t = make_scene("bridge");
	for (int i = 0; i < 20; ++i) {
		f2d_world_step(t);
	}
	uint64_t h = f2d_world_hash(t);
	uint8_t *b = malloc(good.size + 8);
	ck_assert_ptr_nonnull(b);
#define EXPECT_RESTORE_FAILS(bytes, size, want, needle)                                            \
	do {                                                                                       \
		t->error[0] = '\0';                                                                \
		if ((const uint8_t *)(bytes) == b) {                                               \
			reseal(b, size);                                                           \
		}                                                                                  \
		f2d_result r_ = f2d_snapshot_restore(t, bytes, size);                              \
		ck_assert_msg(r_ == (want), "restore returned %d (%s)", (int)r_,                   \
		              f2d_world_last_error(t));                                            \
		ck_assert_msg(strstr(f2d_world_last_error(t), needle) != NULL, "message '%s'",     \
		              f2d_world_last_error(t));                                            \
		ck_assert_uint_eq(f2d_world_hash(t), h);                                           \
	} while (0)
	for (size_t n = 0; n < good.size; ++n) {
		t->error[0] = '\0';
		ck_assert_int_ne(f2d_snapshot_restore(t, good.bytes, n), F2D_OK);
		ck_assert(f2d_world_last_error(t)[0] != '\0');
		ck_assert_uint_eq(f2d_world_hash(t), h);
	}
	/* payload cut short with a consistent length field */
	for (size_t n = MEM_HEADER; n < good.size; ++n) {
		memcpy(b, good.bytes, n);
		put_le64(b + 16, n - MEM_HEADER);
		reseal(b, n);
		t->error[0] = '\0';
		ck_assert_int_ne(f2d_snapshot_restore(t, b, n), F2D_OK);
		ck_assert_uint_eq(f2d_world_hash(t), h);
	}
	EXPECT_RESTORE_FAILS(port.bytes, port.size, F2D_ERROR_INVALID_VALUE, "portable");
	memcpy(b, good.bytes, good.size);
	b[3] ^= 1;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "magic");
	memcpy(b, good.bytes, good.size);
	b[8] ^= 1;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "version");
	memcpy(b, good.bytes, good.size);
	b[good.size] = 0;
	EXPECT_RESTORE_FAILS(b, good.size + 1, F2D_ERROR_INVALID_VALUE, "length");
	/* header counts that disagree with the payload; absurd ones */
	memcpy(b, good.bytes, good.size);
	put_le32(b + 28, le32(b + 28) + 1);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "header counts");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 24, 0x7FFFFFFFu);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_CAPACITY, "F2D_MAX_OBJECTS");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 32, 100000);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "cannot fit");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 36, 1);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "reserved");
	/* the seal: one payload byte changed, not resealed */
	memcpy(b, good.bytes, good.size);
	b[good.size - 1] ^= 1;
	t->error[0] = '\0';
	ck_assert_int_eq(f2d_snapshot_restore(t, b, good.size), F2D_ERROR_INVALID_VALUE);
	ck_assert(strstr(f2d_world_last_error(t), "seal") != NULL);
	ck_assert_uint_eq(f2d_world_hash(t), h);
	/* The payload: the portable one's sections but bodies and arbiters, which are fixed-size
	 * records (include/fix2d/snapshot.h, version 7); the portable offsets (sp) shift by the
	 * difference of the sections before them. Each damaged payload below is resealed, as
	 * EXPECT_RESTORE_FAILS does, so the checks behind the seal are what refuses it. */
	spec sp;
	spec_parse(port.bytes + 40, port.size - 40, &sp);
	f2d_snapshot_layout lp, lm;
	CHECK_OK(f2d_snapshot_measure(w, true, &lp));
	CHECK_OK(f2d_snapshot_measure(w, false, &lm));
	const size_t bodies = MEM_HEADER + 94; /* after the world settings (94 bytes) */
	const size_t body0 = bodies + 4;       /* records of 104 bytes: u32 flags, generation .. */
	const size_t free_list = body0 + 6 * 104;
	const size_t shift = lm.bodies - lp.bodies; /* of the shapes and joints sections */
	const size_t arbiters = bodies + lm.bodies + lm.shapes + lm.joints;
	const size_t arb0 = arbiters + 4; /* records of 120 bytes: shapes a, b, .., flags at 52 */
	const size_t options_shift = shift + lm.arbiters - lp.arbiters;
	ck_assert_uint_eq(lm.bodies, 4 + 6 * 104 + 4 + 2 * 4);
	ck_assert_uint_eq(lm.arbiters, 4 + (size_t)w->arbiter_count * 120);
	ck_assert_uint_eq(le32(good.bytes + bodies), 6);
	/* little-endian fields, read back as the bytes say (rule 4: written from values) */
	const f2d_body *b0 = &w->bodies[0];
	const f2d_arbiter *a0 = &w->arbiters[0];
	ck_assert_uint_eq(le32(good.bytes + body0), 1u | (uint32_t)b0->type << 1 |
	                                                (b0->awake ? 8u : 0u) |
	                                                (b0->enable_sleep ? 16u : 0u));
	ck_assert_uint_eq(le32(good.bytes + body0 + 4), b0->generation);
	ck_assert_uint_eq(le32(good.bytes + body0 + 28), (uint32_t)b0->center.x);
	ck_assert_uint_eq(le32(good.bytes + body0 + 32), (uint32_t)b0->center.y);
	ck_assert_uint_eq(le32(good.bytes + arb0), (uint32_t)a0->shape_a);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 4), (uint32_t)a0->shape_b);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 16), (uint32_t)a0->normal.x);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 52) & 3u, (uint32_t)a0->count);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 56 + 4), (uint32_t)a0->points[0].pn);
	/* a shape on a dead body (the shapes section: the portable codec) */
	memcpy(b, good.bytes, good.size);
	b[MEM_HEADER + sp.shape_body[1] + shift] = 2 * (4 - 1); /* body 4 (dead) */
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "not alive");
	/* bodies: generation 0, a flag outside the record's, type 3, the count */
	memcpy(b, good.bytes, good.size);
	put_le32(b + body0 + 104 + 4, 0);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "generation 0");
	memcpy(b, good.bytes, good.size);
	b[body0 + 2 * 104] |= 64;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "bad flags");
	memcpy(b, good.bytes, good.size);
	b[body0] |= 6; /* type 3 */
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "bad flags");
	memcpy(b, good.bytes, good.size);
	put_le32(b + bodies, 5);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "header counts");
	/* a dead body made alive: the free list then names a live id */
	memcpy(b, good.bytes, good.size);
	b[body0 + 4 * 104] |= 1;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "free list holds");
	/* the body free list: an id repeated, a live id, one never handed out */
	memcpy(b, good.bytes, good.size);
	put_le32(b + free_list + 8, le32(b + free_list + 4));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "repeated");
	memcpy(b, good.bytes, good.size);
	put_le32(b + free_list + 4, 0);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "repeated");
	memcpy(b, good.bytes, good.size);
	put_le32(b + free_list + 4, 6);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "never handed out");
	/* arbiters: one shape twice, b < a, a dead shape, key order, the point count, flags,
	 * the count */
	memcpy(b, good.bytes, good.size);
	put_le32(b + arb0 + 4, le32(b + arb0));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "two live shapes");
	memcpy(b, good.bytes, good.size);
	put_le32(b + arb0, le32(good.bytes + arb0 + 4));
	put_le32(b + arb0 + 4, le32(good.bytes + arb0));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "two live shapes");
	memcpy(b, good.bytes, good.size);
	put_le32(b + arb0 + 4, 4); /* shape 4 is dead */
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "two live shapes");
	memcpy(b, good.bytes, good.size);
	put_le32(b + arb0 + 4, 0xFFFFFFFFu);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "two live shapes");
	if (w->arbiter_count >= 2) { /* the second record a copy of the first */
		memcpy(b, good.bytes, good.size);
		memcpy(b + arb0 + 120, b + arb0, 120);
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "in order");
	}
	memcpy(b, good.bytes, good.size);
	b[arb0 + 52] |= 3;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "bad flags");
	memcpy(b, good.bytes, good.size);
	b[arb0 + 52] |= 32;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "bad flags");
	memcpy(b, good.bytes, good.size);
	put_le32(b + arbiters, (uint32_t)(good.size / 120));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "truncated in the arbiters");
	/* the sweep order (in-process only): after the options and their substep_count word
	 * (always in the in-process form; sp.end is the options' end, before the word) */
	size_t sweep = MEM_HEADER + sp.end + options_shift + 4;
	uint32_t n_sweep = le32(good.bytes + sweep);
	if (n_sweep != 0xFFFFFFFFu) {
		ck_assert_uint_eq(n_sweep, 4);
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep + 8, le32(b + sweep + 4));
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "sweep");
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep + 4, 4); /* a dead shape */
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "sweep");
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep, 3);
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "sweep");
	}
	ck_assert_int_eq(f2d_snapshot_restore(NULL, good.bytes, good.size),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_restore(t, NULL, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_uint_eq(f2d_world_hash(t), h);
	CHECK_OK(f2d_snapshot_restore(t, good.bytes, good.size));
	ck_assert_uint_eq(f2d_world_hash(t), f2d_world_hash(w));
	free(b);
	free(good.bytes);
	free(port.bytes);
	f2d_destroy_world(t);
	f2d_destroy_world(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_portable");
	TCase *tc = tcase_create("snapshot_portable");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, portable_round_trip_every_scene);
	tcase_add_test(tc, portable_layout_matches_spec);
	tcase_add_test(tc, corrupt_portable_snapshots_are_refused);
	tcase_add_test(tc, portable_mass_and_friction_impulse_are_checked);
	tcase_add_test(tc, portable_fallback_mass_round_trip);
	tcase_add_test(tc, corrupt_in_process_snapshots_are_refused);
	tcase_add_test(tc, portable_recycled_manifold_is_canonical);
	tcase_add_test(tc, portable_unit_other_is_exact);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
