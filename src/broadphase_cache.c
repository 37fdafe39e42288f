/* fix2d broad phase: the in-process snapshot's save and restore of the broad phase's chain of
 * caches (declared in snapshot_internal.h; the chain itself is broadphase.c's).
 * SPDX-License-Identifier: MIT
 */
#include "broadphase_internal.h"
#include "snapshot_internal.h"

/* ---- the in-process snapshot's cache block (issue 16) ----
 * Everything the chain (broadphase.c) carries from one call to the next, so that the first step
 * after an in-process restore is an ordinary incremental step: the pair keys and the bitmap
 * after them (the marker is the previous step's: the chain holds), the candidates' state (bpc: the
 * fat boxes and ex per live shape, the x order, the wide shapes, the candidates, each only
 * while its mark says it is valid) and every live shape's world cache (sweep, turn, world
 * polygon, centre, AABB, reach). Field by field, little-endian, in id order; the restore
 * writes back exactly what was read, so the world's caches are the saved world's, which held
 * for its state. Layout: u32 pair_count, flags (1 fat boxes valid, 2 candidates valid),
 * band_k, plain_left, backoff, order_count, wide_count, cand_count; u64 wide_limit,
 * height_limit; u64 keys and bitmap (pair_count + mw); per live shape 8 words (the cache's key);
 * with 1: per live shape fat box and ex (8 words); with 1 or 2: order (u64), oid, wide; with
 * 2: the candidates (u64). */
#define BPC_HEAD 48
#define BPC_SHAPE 32 /* 8 words: the key (put_shape_cache) */
#define BPC_FAT 32

bool f2d_bp_chain_holds(const f2d_world *w)
{
	return !w->sweep_dirty && !w->contacts_stale && w->sweep_count == w->shape_count &&
	       previous_call_was_last_step(w, moved_words(w));
}

static uint32_t bpc_flags(const f2d_world *w)
{
	const uint64_t prev = STEP_MARK ^ (w->step_count - 1);
	const int64_t ids = w->shape_ids.next;
	bool fat = w->bpc.fat_mark == prev && w->bpc.fat_capacity >= ids && w->bpc.ex_capacity >= ids;
	return (fat ? 1u : 0u) | (fat && w->bpc.mark == prev ? 2u : 0u);
}

size_t f2d_bp_cache_size(const f2d_world *w)
{
	uint32_t flags = bpc_flags(w);
	size_t live = (size_t)w->shape_count;
	size_t n = BPC_HEAD + 8 * ((size_t)w->pair_count + (size_t)moved_words(w)) + BPC_SHAPE * live;
	if (flags & 1u) {
		n += BPC_FAT * live + 12 * (size_t)w->bpc.order_count + 4 * (size_t)w->bpc.wide_count;
	}
	if (flags & 2u) {
		n += 8 * (size_t)w->bpc.cand_count;
	}
	return n;
}

static uint8_t *put_aabb(uint8_t *p, const f2d_aabb *a)
{
	return put_vec(put_vec(p, a->lower), a->upper);
}

static const uint8_t *get_aabb(const uint8_t *p, f2d_aabb *a)
{
	a->lower = get_vec(p);
	a->upper = get_vec(p + 8);
	return p + 16;
}

/* A shape's world cache as its key (8 words): the transform it was made from, the sweep, the
 * turn and the reach. The rest (world polygon or centre, AABB) is made again from the key as
 * update_caches made it: f2d_shape_update_world_kernel's output is a function of the geometry
 * (fixed while the shape lives), the transform and the margin (half the speculative distance,
 * a setting: a change breaks the chain), then the AABB stretched by the sweep; the reach was
 * taken from the body's centre of that time, so it is stored. The same bits, and the slots the
 * kernel leaves alone are those every full step leaves alone too. */
static uint8_t *put_shape_cache(uint8_t *p, const f2d_shape *s)
{
	f2d_transform xf = f2d_shape_cache_xf(s);
	p = put_vec(p, xf.p);
	p = put_i32(put_i32(p, xf.q.c), xf.q.s);
	p = put_vec(p, s->sweep);
	p = put_i32(p, s->turn);
	return put_i32(p, s->reach);
}

static const uint8_t *get_shape_cache(const uint8_t *p, f2d_shape *s, fix16_t margin, int kernel)
{
	f2d_transform xf;
	xf.p = get_vec(p);
	xf.q.c = u2i(get_u32(p + 8));
	xf.q.s = u2i(get_u32(p + 12));
	s->sweep = get_vec(p + 16);
	s->turn = u2i(get_u32(p + 24));
	s->reach = u2i(get_u32(p + 28));
	f2d_shape_update_world_kernel(s, xf, margin, kernel);
	set_cache_key(s, xf);
	stretch_by_sweep(s);
	return p + 32;
}

uint8_t *f2d_bp_cache_put(const f2d_world *w, uint8_t *p)
{
	const uint32_t flags = bpc_flags(w);
	const int64_t mw = moved_words(w);
	p = put_u32(p, (uint32_t)w->pair_count);
	p = put_u32(p, flags);
	p = put_u32(p, w->bpc.band_k);
	p = put_u32(p, w->bpc.plain_left);
	p = put_u32(p, w->bpc.backoff);
	p = put_u32(p, (uint32_t)((flags & 1u) ? w->bpc.order_count : 0));
	p = put_u32(p, (uint32_t)((flags & 1u) ? w->bpc.wide_count : 0));
	p = put_u32(p, (uint32_t)((flags & 2u) ? w->bpc.cand_count : 0));
	p = put_u64(p, (uint64_t)w->bpc.wide_limit);
	p = put_u64(p, (uint64_t)w->bpc.height_limit);
	for (int64_t i = 0; i < w->pair_count + mw; ++i) {
		p = put_u64(p, w->pairs[i]);
	}
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		if (w->shapes[i].alive) {
			p = put_shape_cache(p, &w->shapes[i]);
		}
	}
	if (flags & 1u) {
		for (int32_t i = 0; i < w->shape_ids.next; ++i) {
			if (w->shapes[i].alive) {
				p = put_aabb(p, &w->bpc.fat[i]);
				for (int k = 0; k < 4; ++k) {
					p = put_i32(p, w->bpc.ex[i][k]);
				}
			}
		}
		for (int32_t i = 0; i < w->bpc.order_count; ++i) {
			p = put_i32(put_u64(p, w->bpc.order[i]), w->bpc.oid[i]);
		}
		for (int32_t i = 0; i < w->bpc.wide_count; ++i) {
			p = put_i32(p, w->bpc.wide[i]);
		}
	}
	for (int32_t i = 0; (flags & 2u) && i < w->bpc.cand_count; ++i) {
		p = put_u64(p, w->bpc.cand[i]);
	}
	return p;
}

/* n increasing keys a << 32 | b at p, a < b < ids */
static bool keys_ok(const uint8_t *p, uint32_t n, int32_t ids)
{
	uint64_t prev = 0;
	for (uint32_t i = 0; i < n; ++i, p += 8) {
		uint64_t key = get_u64(p);
		uint32_t a = (uint32_t)(key >> 32), b = (uint32_t)key;
		if ((i > 0 && key <= prev) || a >= b || b >= (uint32_t)ids) {
			return false;
		}
		prev = key;
	}
	return true;
}

size_t f2d_bp_cache_parse(const uint8_t *p, size_t avail, int32_t live, int32_t ids,
                          f2d_bp_cache_need *need)
{
	if (avail < BPC_HEAD) {
		return 0;
	}
	const uint32_t pc = get_u32(p), flags = get_u32(p + 4), on = get_u32(p + 20),
	               wn = get_u32(p + 24), cn = get_u32(p + 28);
	const uint64_t mw = ((uint64_t)ids + 63) / 64;
	/* every count below 2^31 words: the sums below are exact in 64 bits */
	if (pc > (uint32_t)INT32_MAX || on > (uint32_t)ids || wn > (uint32_t)ids ||
	    cn > (uint32_t)INT32_MAX || flags > 3u || flags == 2u ||
	    (!(flags & 1u) && (on | wn) != 0) || (!(flags & 2u) && cn != 0) ||
	    (uint64_t)pc + mw + 1 > (uint64_t)INT32_MAX) {
		return 0;
	}
	uint64_t n = BPC_HEAD + 8 * ((uint64_t)pc + mw) + (uint64_t)BPC_SHAPE * (uint64_t)live;
	if (flags & 1u) {
		n += (uint64_t)BPC_FAT * (uint64_t)live + 12 * (uint64_t)on + 4 * (uint64_t)wn;
	}
	n += 8 * (uint64_t)cn;
	if (n > avail) {
		return 0;
	}
	/* the ids the step indexes arrays with (pairs, candidates: increasing keys a < b; the x
	 * order's and the wide shapes' ids) below ids, whatever the seal says */
	const uint8_t *q = p + BPC_HEAD;
	const uint8_t *cq = q + (n - 8 * (uint64_t)cn) - BPC_HEAD;
	if (!keys_ok(q, pc, ids) || !keys_ok(cq, cn, ids)) {
		return 0;
	}
	if (flags & 1u) {
		const uint8_t *o = q + 8 * ((uint64_t)pc + mw) +
		                   (uint64_t)(BPC_SHAPE + BPC_FAT) * (uint64_t)live;
		for (uint32_t i = 0; i < on + wn; ++i) {
			uint32_t id = i < on ? get_u32(o + 12 * (size_t)i + 8)
			                     : get_u32(o + 12 * (size_t)on + 4 * (size_t)(i - on));
			if (id >= (uint32_t)ids) {
				return 0;
			}
		}
	}
	need->pair_words = (int32_t)(pc + mw + 1);
	need->order = (int32_t)on;
	need->wide = (int32_t)wn;
	need->cand = (int32_t)cn;
	need->fat = (flags & 1u) != 0;
	need->ids = ids > 0 ? ids : 1;
	return (size_t)n;
}

bool f2d_bp_cache_grow(f2d_world *w, const f2d_bp_cache_need *need)
{
	const int32_t ids = need->ids; /* the snapshot's shape ids (not yet the world's) */
	return pairs_reserve(w, need->pair_words) &&
	       (!need->fat ||
	        (f2d_grow(w, (void **)&w->bpc.fat, &w->bpc.fat_capacity, ids, sizeof(f2d_aabb)) &&
	         f2d_grow(w, (void **)&w->bpc.ex, &w->bpc.ex_capacity, ids, sizeof(int32_t[4])) &&
	         f2d_grow(w, (void **)&w->bpc.order, &w->bpc.order_capacity, need->order,
	                  sizeof(uint64_t)) &&
	         f2d_grow(w, (void **)&w->bpc.oid, &w->bpc.oid_capacity, need->order,
	                  sizeof(int32_t)) &&
	         f2d_grow(w, (void **)&w->bpc.wide, &w->bpc.wide_capacity, need->wide,
	                  sizeof(int32_t)))) &&
	       f2d_grow(w, (void **)&w->bpc.cand, &w->bpc.cand_capacity, need->cand,
	                sizeof(uint64_t));
}

void f2d_bp_cache_get(f2d_world *w, const uint8_t *p)
{
	const uint32_t pc = get_u32(p), flags = get_u32(p + 4);
	const int64_t mw = moved_words(w);
	w->bpc.band_k = get_u32(p + 8);
	w->bpc.plain_left = get_u32(p + 12);
	w->bpc.backoff = get_u32(p + 16);
	w->bpc.order_count = (int32_t)get_u32(p + 20);
	w->bpc.wide_count = (int32_t)get_u32(p + 24);
	w->bpc.cand_count = (int32_t)get_u32(p + 28);
	w->bpc.wide_limit = (int64_t)get_u64(p + 32);
	w->bpc.height_limit = (int64_t)get_u64(p + 40);
	p += BPC_HEAD;
	w->pair_count = (int32_t)pc;
	for (int64_t i = 0; i < (int64_t)pc + mw; ++i, p += 8) {
		w->pairs[i] = get_u64(p);
	}
	/* the marker of a call in the previous step: the chain holds, as it did when saved */
	const uint64_t prev = STEP_MARK ^ (w->step_count - 1);
	w->pairs[(int64_t)pc + mw] = prev;
	const fix16_t margin = w->def.speculative_distance / 2;
	const int kernel = f2d_kernel_level();
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		if (w->shapes[i].alive) {
			p = get_shape_cache(p, &w->shapes[i], margin, kernel);
		}
	}
	if (flags & 1u) {
		for (int32_t i = 0; i < w->shape_ids.next; ++i) {
			if (w->shapes[i].alive) {
				p = get_aabb(p, &w->bpc.fat[i]);
				for (int k = 0; k < 4; ++k, p += 4) {
					w->bpc.ex[i][k] = u2i(get_u32(p));
				}
			}
		}
		for (int32_t i = 0; i < w->bpc.order_count; ++i, p += 12) {
			w->bpc.order[i] = get_u64(p);
			w->bpc.oid[i] = u2i(get_u32(p + 8));
		}
		for (int32_t i = 0; i < w->bpc.wide_count; ++i, p += 4) {
			w->bpc.wide[i] = u2i(get_u32(p));
		}
	}
	for (int32_t i = 0; (flags & 2u) && i < w->bpc.cand_count; ++i, p += 8) {
		w->bpc.cand[i] = get_u64(p);
	}
	w->bpc.fat_mark = (flags & 1u) ? prev : 0;
	w->bpc.mark = (flags & 2u) ? prev : 0;
}
