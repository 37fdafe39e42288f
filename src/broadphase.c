/* fix2d broad phase: the candidate pairs of one step.
 * SPDX-License-Identifier: MIT
 *
 * Output: w->pairs[0, w->pair_count) holds the keys (shape_a << 32 | shape_b, a < b) of exactly
 * the pairs of live shapes whose fattened AABBs overlap (closed intervals on both axes) and that
 * may collide (f2d_should_collide in contact.c decides; the plain case, shapes of two bodies of
 * which one is dynamic, default filters, no sensor, not both bodies jointed, is allowed here
 * without asking),
 * in increasing key order. That set and its order are a function of the
 * shapes' ids and boxes only; everything below is just a way to find it fast, and no persistent
 * data can change it.
 *
 * Persistent candidates (Box2D's fat AABBs, "persistent candidates from fat boxes" below): a
 * step in which few shapes left their fat boxes takes the pairs from last step's candidate
 * list (re-querying only those shapes) and filters it with the AABBs; the sweep below makes
 * the candidates from the fat boxes, or, in a step where many shapes escaped, the pairs from
 * the AABBs directly.
 *
 * Algorithm of the sweep: sweep and prune on x within horizontal bands ("box" below is the fat
 * box or the AABB, whichever the step sweeps).
 *  1. The x order. w->sweep holds the live shapes sorted by (aabb.lower.x, id). It is kept from
 *     step to step (and in in-process snapshots) because it changes little: an insertion sort
 *     repairs it in near linear time. When shapes came or went, or the repair would take more
 *     than a few moves per shape, it is radix-sorted from scratch instead. Either way the result
 *     is the unique sorted order, so the list is a pure cache.
 *  2. Bands. y is cut into bands of height H = 2^k (Q16.16 units), the smallest power of two not
 *     below the mean AABB height of the dynamic shapes (the static ones may be huge). The band
 *     of y is (y - INT32_MIN) >> k: bands are monotone in y and only the occupied ones are ever
 *     listed, so no cost or memory is proportional to the size of the world.
 *  3. A shape touching at most TALL_SPAN bands is listed in each band it touches, as an entry
 *     holding its extents (bp_ent): every band's list in x order, the lists band after band.
 *     They are made by a counting sort on the band (entries per band, then placed in x order)
 *     when the occupied range of bands numbers at most 2 entries + 64; else (shapes spread over
 *     a world much taller than they are) keys (band << 32 | x rank), made in x order, are
 *     stably radix-sorted on the band, which costs nothing proportional to the size of the
 *     world. Each band is swept on x (stop at lower.x > upper.x, then a y test), reading its
 *     entries in a row. Two overlapping shapes share the bands from the higher of their first
 *     bands to the lower of their last ones; the pair is reported only in the first of these,
 *     so once: the band where one of the two starts (an entry's flag). In a tall pile a band
 *     holds about two rows, so the sweep meets O(1) shapes per shape instead of the whole
 *     column (O(n sqrt n) for a pyramid with one sweep over the whole world).
 *  4. Taller shapes (walls, huge static blocks) are kept out of the bands, where a 16 km wall
 *     would need thousands of entries. Each one looks itself up: for every occupied band it
 *     covers (binary search in the band table), a binary search for the first listed shape that
 *     may reach it on x (lower.x >= its lower.x - the band's widest box), a scan up to its
 *     upper.x, and the same first-shared-band rule. Tall shapes among themselves: one x sweep
 *     over their own list (in x order).
 *  5. The pair keys, counted per lower id as they are found, are placed by a counting sort on
 *     the lower id, each group kept in order as it fills (a few keys per group).
 * Cost: O(n) per step plus the near-linear repair of the x order, O(pairs + n) sweeps when the
 * moving shapes have similar sizes, O(log n) per covered band per tall shape. All scratch lives
 * in w->pairs (grown with f2d_grow only when a count grows): no allocation at steady state.
 *
 * Measured (callgrind, instructions per step of pair finding without the AABB update; one sweep
 * on x over the whole world -> bands): pyramid20 0.12M -> 0.13M, rain1000 0.49M -> 0.42M,
 * large_pyramid_1k 0.96M -> 0.72M, large_pyramid (5,050 boxes) 8.6M -> 3.5M, large_pyramid_10k
 * 27.6M -> 6.8M (now linear in n; the single sweep grew as n^1.4), a 4,000-box column 98M -> 2M.
 * Band heights of 2^k >= mean / 2 or >= 2 mean cost within 5 % of >= mean.
 */
#include "core.h"
#include "broadphase_internal.h"

/* A shape listed in more bands than this is "tall" and looks itself up (step 4). */
#define TALL_SPAN 8
/* Insertion-sort moves per shape (plus a constant) before the x order is rebuilt instead. */
#define REPAIR_MOVES 4

/* bp_box.flags */
#define BOX_DYNAMIC 1u /* on a dynamic body */
#define BOX_JOINTED 2u /* on a body with joints */
#define BOX_SPECIAL 4u /* a filter other than the default, or a sensor (f2d_shape_special) */

/* One shape's box in x order, with what the pair filter needs (5 words of scratch). */
typedef struct bp_box {
	fix16_t lx, ux, ly, uy;
	int32_t id, body;
	uint32_t first, last; /* bands */
	uint32_t flags;
	uint32_t unused;
} bp_box;

/* An occupied band: its entries are keys[start, next band's start). */
typedef struct bp_band {
	uint32_t band;
	int32_t start;
	int64_t width; /* widest box listed in the band (ux - lx) */
} bp_band;

/* One entry of a band's list: the listed box's extents, shape id, body and meta = the box's
 * flags | ENT_START. The sweep reads the entries of a band in a row, never the boxes. */
typedef struct bp_ent {
	fix16_t lx, ux, ly, uy;
	int32_t id, body;
	uint32_t meta;
} bp_ent;
#define ENT_DYNAMIC BOX_DYNAMIC /* on a dynamic body */
#define ENT_START 8u            /* the box's first band is this band */

_Static_assert(sizeof(bp_box) == 5 * sizeof(uint64_t), "bp_box is 5 words of scratch");
_Static_assert(sizeof(bp_ent) == 7 * sizeof(uint32_t), "bp_ent is 7 half words of scratch");
_Static_assert((ENT_START & (BOX_DYNAMIC | BOX_JOINTED | BOX_SPECIAL)) == 0, "flags apart");
_Static_assert(sizeof(bp_band) == 2 * sizeof(uint64_t), "bp_band is 2 words of scratch");

/* The step's scratch, all in w->pairs: boxes (5n words), keys and tmp (max(E, n) each; the x
 * order's keys use the first 2n words), the entries (7E/2), the band table (2 (E + 1)), the
 * dense band counts and widths (range words, dense only), tall list (n), the pair counters
 * (ids); the pair keys follow at offset out (with as much room behind for sorting them, then
 * tail). Each region holds one type during a step. Pointers are recomputed whenever w->pairs
 * grows. */
typedef struct bp {
	f2d_world *w;
	int64_t hdr; /* the moved-shape bitmap comes first: the scratch starts at w->pairs + hdr */
	int64_t off_keys, off_tmp, off_ents, off_bands, off_hist, off_tall, off_cnt, out;
	int64_t tail; /* words kept free behind the room for sorting the pair keys */
	bp_box *boxes;
	uint64_t *keys, *tmp, *tall;
	bp_band *bands;
	bp_ent *ents;    /* the bands' lists, band after band */
	uint32_t *hist;  /* the dense band count (entries per band, then next slot) and width */
	uint32_t *cnt;  /* pairs per lower id (ids counters), then sort_pairs' group starts */
	uint64_t *pkey; /* the pair keys, at w->pairs + hdr + out */
	int32_t count;  /* pair keys written at pkey */
	int32_t room;   /* pair keys that fit before w->pairs must grow */
} bp;

static void bp_point(bp *c, bool swapped)
{
	uint64_t *base = c->w->pairs + c->hdr;
	c->boxes = (bp_box *)(void *)base;
	c->keys = base + (swapped ? c->off_tmp : c->off_keys);
	c->tmp = base + (swapped ? c->off_keys : c->off_tmp);
	c->bands = (bp_band *)(void *)(base + c->off_bands);
	c->tall = base + c->off_tall;
	c->ents = (bp_ent *)(void *)(base + c->off_ents);
	c->hist = (uint32_t *)(void *)(base + c->off_hist);
	c->cnt = (uint32_t *)(void *)(base + c->off_cnt);
	c->pkey = base + c->out;
	/* room for the keys and as many again behind them (sort_pairs), then the tail */
	int64_t free_words = (int64_t)c->w->pair_capacity - c->hdr - c->out - c->tail;
	c->room = free_words < 0 ? 0 : (int32_t)(free_words / 2);
}

static bool bp_reserve(bp *c, int64_t words, bool swapped)
{
	words += c->hdr;
	if (words > INT32_MAX) {
		return false;
	}
	if (!f2d_grow(c->w, (void **)&c->w->pairs, &c->w->pair_capacity, (int32_t)words,
	              sizeof(uint64_t))) {
		return false;
	}
	bp_point(c, swapped);
	return true;
}

/* ---- sorting ---- */

/* The x order's sort key: lower.x biased to unsigned in the high half, the id in the low half,
 * so that (lower.x, id) order is unsigned key order. */
static inline uint64_t order_key(fix16_t lower_x, int32_t id)
{
	uint32_t x = (uint32_t)((int64_t)lower_x - INT32_MIN);
	return ((uint64_t)x << 32) | (uint32_t)id;
}

/* The box the sweep uses for shape id: its fat box (the candidates) or its AABB. */
static inline const f2d_aabb *sweep_box(const f2d_world *w, int32_t id, bool fat)
{
	return fat ? &w->bpc.fat[id] : &w->shapes[id].aabb;
}

/* Insertion sort of last step's x order: near linear when little moved. The keys of the ids in
 * last step's order are gathered into keys[0, n) first, so that the sort compares words in a
 * row instead of reading two shapes per comparison. Gives up (false) after REPAIR_MOVES moves
 * per shape; ids is left as it was then. */
static bool repair_order(const f2d_world *w, int32_t *ids, uint64_t *keys, int32_t n, bool fat)
{
	for (int32_t i = 0; i < n; ++i) {
		keys[i] = order_key(sweep_box(w, ids[i], fat)->lower.x, ids[i]);
	}
	int64_t budget = (int64_t)REPAIR_MOVES * n + 64;
	bool moved = false;
	for (int32_t i = 1; i < n; ++i) {
		uint64_t v = keys[i];
		int32_t j = i - 1;
		if (keys[j] <= v) {
			continue;
		}
		do {
			keys[j + 1] = keys[j];
			--j;
			--budget;
		} while (j >= 0 && keys[j] > v);
		keys[j + 1] = v;
		moved = true;
		if (budget < 0) {
			return false;
		}
	}
	if (moved) {
		for (int32_t i = 0; i < n; ++i) {
			ids[i] = (int32_t)(keys[i] & 0xFFFFFFFFu);
		}
	}
	return true;
}

/* One stable counting pass on the byte of the keys at shift; false (nothing moved) when all
 * keys have the same byte there. */
static bool radix_pass(const uint64_t *src, uint64_t *dst, int32_t n, unsigned shift)
{
	int32_t count[256] = {0};
	for (int32_t i = 0; i < n; ++i) {
		++count[(src[i] >> shift) & 255u];
	}
	if (n == 0 || count[(src[0] >> shift) & 255u] == n) {
		return false;
	}
	int32_t pos = 0;
	for (int32_t d = 0; d < 256; ++d) {
		int32_t c = count[d];
		count[d] = pos;
		pos += c;
	}
	for (int32_t i = 0; i < n; ++i) {
		dst[count[(src[i] >> shift) & 255u]++] = src[i];
	}
	return true;
}

/* Stable LSD radix sort of keys[0, n) on bits [lo, lo + bits) of each 32-bit half selected by
 * halves (1: low half, 2: high half); tmp has room for n keys. Returns whether the result ended
 * in tmp. */
static bool radix_sort(uint64_t *keys, uint64_t *tmp, int32_t n, unsigned low_bits,
                       unsigned high_bits)
{
	uint64_t *src = keys, *dst = tmp;
	for (unsigned pass = 0; pass < 8; ++pass) {
		unsigned shift = pass < 4 ? 8 * pass : 32 + 8 * (pass - 4);
		unsigned have = pass < 4 ? low_bits : high_bits;
		if (8 * (pass & 3) >= have) {
			continue;
		}
		if (radix_pass(src, dst, n, shift)) {
			uint64_t *t = src;
			src = dst;
			dst = t;
		}
	}
	return src != keys;
}

static unsigned bits_for(uint64_t max)
{
	unsigned b = 0;
	while (b < 64 && (max >> b) != 0) {
		++b;
	}
	return b;
}

/* The x order from scratch: keys (lower.x biased to unsigned) << 32 | id, radix-sorted in the
 * words [5n, 7n) of the scratch (the band keys' place: no word changes type within a step). */
static void rebuild_order(f2d_world *w, uint64_t *scratch, int32_t n, bool fat)
{
	uint64_t *keys = scratch + 5 * (int64_t)n, *tmp = keys + n;
	int32_t k = 0;
	for (int32_t i = 0; i < w->shape_ids.next; ++i) {
		if (w->shapes[i].alive) {
			keys[k++] = order_key(sweep_box(w, i, fat)->lower.x, i);
		}
	}
	const uint64_t *sorted =
	    radix_sort(keys, tmp, n, bits_for((uint64_t)w->shape_ids.next), 32) ? tmp : keys;
	for (int32_t i = 0; i < n; ++i) {
		w->sweep[i] = (int32_t)(sorted[i] & 0xFFFFFFFFu);
	}
}

/* ---- pairs ---- */

/* report's rare part: room for one more key (and as much again behind, to sort them). */
F2D_NOINLINE static bool reserve_key(bp *c, bool swapped)
{
	return bp_reserve(c, c->out + 2 * ((int64_t)c->count + 1) + c->tail, swapped);
}

/* Shapes a and b (ids, bodies, BOX_ flags) overlap and one is dynamic (y_overlap): the rest of
 * the filter (the same body never; f2d_should_collide for any pair with a special shape or two
 * jointed bodies), then the key, counted under its lower id for sort_pairs. May grow w->pairs
 * (the caller re-reads its pointers into it). */
static inline bool report(bp *c, int32_t ida, int32_t ba, uint32_t fa, int32_t idb, int32_t bb,
                          uint32_t fb, bool swapped)
{
	if (ba == bb || ((((fa | fb) & BOX_SPECIAL) != 0 || (fa & fb & BOX_JOINTED) != 0) &&
	                 !f2d_should_collide(c->w, ida, idb))) {
		return true;
	}
	/* the pair's key: the lower id in the high half (ids >= 0; min and max as selects, not
	 * a branch: which of a and b is lower is a coin toss to the branch predictor) */
	uint32_t ua = (uint32_t)ida, ub = (uint32_t)idb;
	uint32_t lo = ua < ub ? ua : ub;
	uint64_t key = ((uint64_t)lo << 32) | (ua ^ ub ^ lo);
	if (c->count >= c->room && !reserve_key(c, swapped)) {
		return false;
	}
	c->pkey[c->count++] = key;
	++c->cnt[lo];
	return true;
}

/* Step 5: the n keys (a << 32 | b, a < b < ids) in increasing order, written to dst (which
 * overlaps neither keys nor the counters). count[a] holds how many keys have lower id a
 * (report counted them); start (ids words) gets each group's first slot. A counting sort on a
 * places every key in its group (stable), and an insertion within the group, as it is placed,
 * orders the group on b: a key only moves past larger keys of its own group, a few per key
 * (each shape meets a few others). The unique sorted order, as the LSD radix sort (four passes
 * of 256 buckets for 1,000 shapes) and the counting sort with an insertion sort pass after it
 * gave. */
static void sort_pairs(const uint64_t *keys, uint64_t *dst, uint32_t *count, uint32_t *start,
                       int32_t n, int32_t ids)
{
	uint32_t pos = 0;
	for (int32_t a = 0; a < ids; ++a) {
		uint32_t k = count[a];
		start[a] = pos;
		count[a] = pos; /* now the next free slot of group a */
		pos += k;
	}
	for (int32_t i = 0; i < n; ++i) {
		uint64_t k = keys[i];
		uint32_t a = (uint32_t)(k >> 32);
		uint32_t j = count[a]++;
		const uint32_t s = start[a];
		while (j > s && dst[j - 1] > k) {
			dst[j] = dst[j - 1];
			--j;
		}
		dst[j] = k;
	}
}

/* y overlap, and at least one of the two on a dynamic body */
static inline bool y_overlap(const bp_box *a, const bp_box *b)
{
	return a->ly <= b->uy && b->ly <= a->uy && ((a->flags | b->flags) & BOX_DYNAMIC) != 0;
}

/* Step 3: the x sweep of one band, entries ents[s, e). A pair is reported in the first band
 * both are listed in, max(first_a, first_b): as both are listed here (first <= band), that is
 * this band exactly when one of them starts here (ENT_START). With "one is dynamic" the test is
 * then one mask: (meta_a | meta_b) has both ENT_DYNAMIC and ENT_START. */
static bool sweep_band(bp *c, int32_t s, int32_t e, bool swapped)
{
	for (int32_t i = s; i < e; ++i) {
		/* a's fields in locals: report may move the entries (then the pointer is taken
		 * again), and the compiler cannot tell that its stores leave them alone */
		const bp_ent *ents = c->ents;
		const fix16_t ux = ents[i].ux, ly = ents[i].ly, uy = ents[i].uy;
		const uint32_t ma = ents[i].meta;
		const int32_t ida = ents[i].id, ba = ents[i].body;
		for (int32_t j = i + 1; j < e; ++j) {
			const bp_ent *b = &ents[j];
			if (b->lx > ux) {
				break;
			}
			/* the three tests combined without short-circuit: one branch, not three that
			 * mispredict */
			if ((ly > b->uy) | (b->ly > uy) |
			    (((ma | b->meta) & (ENT_DYNAMIC | ENT_START)) != (ENT_DYNAMIC | ENT_START))) {
				continue;
			}
			if (!report(c, ida, ba, ma, b->id, b->body, b->meta, swapped)) {
				return false;
			}
			ents = c->ents;
		}
	}
	return true;
}

/* Step 4: tall box t against the listed boxes of the bands it covers (the first shared band,
 * max(first_t, first_b), is this band when t or b starts here). */
static bool query_tall(bp *c, uint32_t t, int32_t band_count, bool swapped)
{
	uint32_t first = c->boxes[t].first, last = c->boxes[t].last;
	int32_t lo = 0, hi = band_count; /* first band >= first */
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (c->bands[mid].band < first) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (int32_t k = lo; k < band_count && c->bands[k].band <= last; ++k) {
		uint32_t band = c->bands[k].band;
		int32_t s = c->bands[k].start, e = c->bands[k + 1].start;
		int64_t from = (int64_t)c->boxes[t].lx - c->bands[k].width;
		int32_t i = s, j = e; /* first entry with lower.x >= from */
		while (i < j) {
			int32_t mid = i + (j - i) / 2;
			if (c->ents[mid].lx < from) {
				i = mid + 1;
			} else {
				j = mid;
			}
		}
		for (; i < e; ++i) {
			const bp_box *a = &c->boxes[t];
			const bp_ent *b = &c->ents[i];
			if (b->lx > a->ux) {
				break;
			}
			if (b->ux < a->lx || a->ly > b->uy || b->ly > a->uy ||
			    ((a->flags | b->meta) & ENT_DYNAMIC) == 0 ||
			    (first != band && (b->meta & ENT_START) == 0)) {
				continue;
			}
			if (!report(c, a->id, a->body, a->flags, b->id, b->body, b->meta, swapped)) {
				return false;
			}
		}
	}
	return true;
}

/* Tall boxes among themselves: an x sweep over their list (in x order). */
static bool sweep_tall(bp *c, int32_t tall_count, bool swapped)
{
	for (int32_t i = 0; i < tall_count; ++i) {
		for (int32_t j = i + 1; j < tall_count; ++j) {
			const bp_box *a = &c->boxes[c->tall[i]];
			const bp_box *b = &c->boxes[c->tall[j]];
			if (b->lx > a->ux) {
				break;
			}
			if (y_overlap(a, b) &&
			    !report(c, a->id, a->body, a->flags, b->id, b->body, b->flags, swapped)) {
				return false;
			}
		}
	}
	return true;
}

static inline uint32_t band_of(fix16_t y, unsigned k)
{
	return (uint32_t)((int64_t)y - INT32_MIN) >> k;
}

/* ---- the world caches, and which shapes moved ----
 *
 * f2d_shape_update_world's output (world polygon or centre, fattened AABB) is a function of the
 * shape's geometry, which is fixed while the shape lives, of its body's transform (origin, q)
 * and of the margin (half the speculative distance). The cache therefore records the transform
 * it was made from, its key, in cache words it does not otherwise use (a polygon's cache has no
 * use for world_polygon.centroid and world_center, a circle's none for world_polygon), and a
 * shape whose body still has that transform keeps its cache: the same bits by construction.
 *
 * f2d_update_contacts goes further: an arbiter whose two shapes kept their caches may keep its
 * manifold (see there). For that it needs to know which caches were remade since the arbiters
 * were built, so each call leaves, after the pair keys, a bitmap of the shape ids whose cache it
 * remade: w->pairs[pair_count, pair_count + moved_words(w)), then a marker word naming the step
 * (step_count) it ran in. A call takes the shortcut (incremental) only when
 *  - no shape was created or destroyed (sweep_dirty) and nothing else that the caches, pairs or
 *    manifolds depend on changed outside the step (contacts_stale: a transform set, a joint
 *    made or removed, a snapshot loaded, which may also change the margin), and
 *  - the previous call ran in the previous step (the marker): then the arbiters were built from
 *    the caches that call left, and only the shapes marked now moved since. A call from
 *    anywhere else (a test calling f2d_find_pairs between steps, a skipped all-asleep step, a
 *    failed call, which also sets contacts_stale) breaks the chain, and the next call remakes
 *    every cache and marks every shape.
 * Otherwise every cache is remade and every shape marked: what the step did before.
 * The marker (STEP_MARK), moved_words and the helpers the in-process snapshot's cache block
 * (broadphase_cache.c) shares with the step are in broadphase_internal.h. */

/* Two fix16 words as one 64-bit word: equal words iff both halves are equal. */
static inline uint64_t pair_bits(fix16_t lo, fix16_t hi)
{
	return (uint64_t)(uint32_t)lo | ((uint64_t)(uint32_t)hi << 32);
}

/* The transform (and the sweep, f2d_body_sweep) a shape's cache was made from: the six
 * equalities as three 64-bit ones (the result is their conjunction either way), a branch
 * only after the origin's (a moving body fails there). */
static inline bool cache_key_equal(const f2d_shape *s, f2d_transform xf, f2d_vec2 sweep)
{
	const f2d_vec2 *o = &s->world_polygon.centroid;
	const f2d_vec2 *q =
	    s->type == F2D_CIRCLE_SHAPE ? &s->world_polygon.vertices[0] : &s->world_center;
	return pair_bits(o->x, o->y) == pair_bits(xf.p.x, xf.p.y) &&
	       ((pair_bits(q->x, q->y) ^ pair_bits(xf.q.c, xf.q.s)) |
	        (pair_bits(s->sweep.x, s->sweep.y) ^ pair_bits(sweep.x, sweep.y))) == 0;
}

/* One component of f2d_body_sweep: 0 within the dead zone, else |d| <= max_t, rounded away
 * from zero to the quantum. */
static inline fix16_t sweep_component(int64_t d, int64_t dead, int64_t max_t)
{
	/* -dead <= d <= dead is d + dead in [0, 2 dead]: one unsigned compare, one branch (|d| <
	 * 2^45, 0 < dead < 2^31: no overflow) */
	if ((uint64_t)(d + dead) <= (uint64_t)(2 * dead)) {
		return 0;
	}
	d = d > max_t ? max_t : (d < -max_t ? -max_t : d);
	int64_t q = F2D_SWEEP_QUANTUM;
	int64_t m = d < 0 ? -d : d;
	m = (m + q - 1) / q * q; /* <= 64 m + 1/256 m: fits */
	return (fix16_t)(d < 0 ? -m : m);
}

/* The dead zone: a body slow enough to sleep (|v| <= linear_sleep_tolerance) moves at most
 * h (tolerance + h |g|) in a step, and a sleeping one has no velocity; both get a zero sweep,
 * so an island falling asleep keeps its AABBs, its pairs and its (frozen) contacts, as the
 * all-asleep step, which computes nothing, assumes (the island sleeps after every body stayed
 * below the tolerance for time_to_sleep, so the step before also had a zero sweep unless
 * time_to_sleep is a single step). Magnitudes: |v| <= 2^28 (4096 m/s) plus h g (|g|
 * gravity_scale saturates at 2^31, h <= 6554): |v + h g| < 2^32, times h < 2^45; the clamp
 * bounds the result by max_translation. */
/* f2d_body_sweep's world constants, read once per step (the cache loop's stores to the shapes
 * would otherwise make the compiler read them again for every body) */
typedef struct sweep_k {
	int64_t h, tol, max_t, dead1;
	f2d_vec2 gh;
} sweep_k;

static inline sweep_k sweep_constants(const f2d_world *w, f2d_vec2 gh, int64_t dead1)
{
	sweep_k k = {w->h, w->def.linear_sleep_tolerance, w->def.max_translation, dead1, gh};
	return k;
}

static inline f2d_vec2 body_sweep(const sweep_k *k, const f2d_body *b)
{
	int64_t vx, vy, dead;
	if (b->type == F2D_DYNAMIC_BODY && b->awake) {
		int64_t gx = k->gh.x, gy = k->gh.y;
		dead = k->dead1;
		if (b->gravity_scale != F2D_ONE) {
			gx = f2d_mul(b->gravity_scale, k->gh.x);
			gy = f2d_mul(b->gravity_scale, k->gh.y);
			int64_t g = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
			dead = f2d_round16(k->h * (k->tol + g)) + 1;
		}
		vx = (int64_t)b->v.x + gx;
		vy = (int64_t)b->v.y + gy;
		if ((b->force.x | b->force.y) != 0) {
			/* the step's force too: |F| / m < 2^55 before its round, times h < 2^52 */
			vx += f2d_round16(k->h * f2d_round16((int64_t)b->force.x * b->inv_mass));
			vy += f2d_round16(k->h * f2d_round16((int64_t)b->force.y * b->inv_mass));
		}
	} else if (b->type == F2D_KINEMATIC_BODY) {
		vx = b->v.x;
		vy = b->v.y;
		dead = f2d_round16(k->h * k->tol) + 1;
	} else {
		return f2d_v(0, 0);
	}
	return f2d_v(sweep_component(f2d_round16(k->h * vx), dead, k->max_t),
	             sweep_component(f2d_round16(k->h * vy), dead, k->max_t));
}

f2d_vec2 f2d_body_sweep(const f2d_world *w, const f2d_body *b, f2d_vec2 gh, int64_t dead1)
{
	sweep_k k = sweep_constants(w, gh, dead1);
	return body_sweep(&k, b);
}

/* The AABB's farthest side from the centre c, times 3/2 > sqrt 2 (the AABB's corner may be
 * the shape's farthest point), at most F2D_MAX_CLOSING. */
fix16_t f2d_shape_reach(const f2d_shape *s, f2d_vec2 c)
{
	int64_t e = (int64_t)c.x - s->aabb.lower.x;
	int64_t t = (int64_t)s->aabb.upper.x - c.x;
	e = t > e ? t : e;
	t = (int64_t)c.y - s->aabb.lower.y;
	e = t > e ? t : e;
	t = (int64_t)s->aabb.upper.y - c.y;
	e = t > e ? t : e;
	e += e / 2;
	return (fix16_t)(e < 0 ? 0 : (e > F2D_MAX_CLOSING ? F2D_MAX_CLOSING : e));
}

f2d_transform f2d_shape_cache_xf(const f2d_shape *s)
{
	const f2d_vec2 *q =
	    s->type == F2D_CIRCLE_SHAPE ? &s->world_polygon.vertices[0] : &s->world_center;
	f2d_transform xf = {s->world_polygon.centroid, {q->x, q->y}};
	return xf;
}

static inline void set_ex(int32_t *e, const f2d_aabb *a);
static inline bool contains(const f2d_aabb *f, const f2d_aabb *a);
static inline f2d_aabb fatten(f2d_aabb a);

/* The turn per step of body b, rounded up, at most 4 rad (|w| <= 2^31, h <= 6554); active:
 * f2d_body_active(b). */
static inline int64_t body_turn(const sweep_k *k, const f2d_body *b, uint32_t active)
{
	int64_t turn = b->w == 0 || active == 0
	                   ? 0
	                   : (k->h * (b->w < 0 ? -(int64_t)b->w : b->w) + 0xFFFF) >> 16;
	return turn > ((int64_t)4 << 16) ? (int64_t)4 << 16 : turn;
}

/* A shape's cache remade from its body's transform xf, sweep and centre c: the scalar
 * reference (the AVX2 loop remakes a box itself, box_cache_avx2, and any other shape by this:
 * f2d_shape_update_world_kernel's AVX2 box branch would not take it either) */
static inline void remake_cache(f2d_shape *s, f2d_transform xf, f2d_vec2 sweep, f2d_vec2 c,
                                fix16_t margin)
{
	f2d_shape_update_world_kernel(s, xf, margin, F2D_KERNEL_SCALAR);
	set_cache_key(s, xf);
	s->reach = f2d_shape_reach(s, c);
	/* stretched along the predicted motion (the box stays within the world range plus
	 * 512 m of shape and 64 m of motion: fix16) */
	s->sweep = sweep;
	if ((sweep.x | sweep.y) != 0) { /* (a zero sweep adds 0 to every side) */
		stretch_by_sweep(s);
	}
}

#if F2D_X86_SIMD
#include "box_world_avx2.h"
#include "simd_x86.h"

/* The lanes 2, 3 of an AABB's (lower, upper) inverted: set_ex's form */
#define EX_FLIP _mm_set_epi32(-1, -1, 0, 0)

/* The larger of two 64-bit lanes, each lane (AVX2 has no vpmaxsq) */
F2D_TARGET_AVX2 static inline __m256i max_epi64_256(__m256i a, __m256i b)
{
	return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a));
}

/* remake_cache of a box about its body origin in AVX2 (false, and only world_polygon.count
 * written, for any other shape: the caller remakes it by remake_cache): box_world_avx2's world
 * polygon and AABB (lower, upper as int32 lanes, kept in a register), the key, the reach as
 * f2d_shape_reach takes it (64-bit lanes: c.x - lower.x, c.y - lower.y, upper.x - c.x,
 * upper.y - c.y, their maximum e, then the scalar tail e + e / 2 clamped: the same expression),
 * then the AABB stretched by the sweep: lower + min(sweep, 0), upper + max(sweep, 0) as int32
 * lanes (stretch_by_sweep's int32 sums, which stay in fix16 by the world's range; a zero
 * sweep adds 0 to every lane, as the scalar path that skips it). *ex gets the stretched AABB in
 * set_ex's form. The same bits as remake_cache (tests/test_broadphase.c, cache_paths). */
F2D_TARGET_AVX2 static inline bool box_cache_avx2(f2d_shape *s, f2d_transform xf, f2d_vec2 sweep,
                                                  f2d_vec2 c, fix16_t margin, __m128i *ex)
{
	__m128i lu;
	if (!box_world_avx2(s, xf, margin, &lu)) {
		return false;
	}
	set_cache_key(s, xf);
	__m256i b = _mm256_cvtepi32_epi64(lu); /* lower.x lower.y upper.x upper.y */
	__m256i cc = _mm256_cvtepi32_epi64(_mm_set_epi32(c.y, c.x, c.y, c.x));
	__m256i d =
	    _mm256_sub_epi64(_mm256_blend_epi32(cc, b, 0xF0), _mm256_blend_epi32(b, cc, 0xF0));
	d = max_epi64_256(d, _mm256_permute4x64_epi64(d, 0x4E));
	d = max_epi64_256(d, _mm256_shuffle_epi32(d, 0x4E));
	int64_t e = _mm_cvtsi128_si64(_mm256_castsi256_si128(d));
	e += e / 2;
	s->reach = (fix16_t)(e < 0 ? 0 : (e > F2D_MAX_CLOSING ? F2D_MAX_CLOSING : e));
	s->sweep = sweep;
	__m128i sw = _mm_set_epi32(sweep.y, sweep.x, sweep.y, sweep.x);
	__m128i z = _mm_setzero_si128();
	lu = _mm_add_epi32(lu, _mm_blend_epi32(_mm_min_epi32(sw, z), _mm_max_epi32(sw, z), 0xC));
	_mm_storeu_si128((__m128i *)(void *)&s->aabb, lu);
	*ex = _mm_xor_si128(lu, EX_FLIP);
	return true;
}

/* The escape test (contains) on set_ex forms: ~ reverses the order, so the fat box f contains
 * the AABB a iff every lane of ex(f) is <= the lane of ex(a) */
F2D_TARGET_AVX2 static inline bool ex_contains(const f2d_aabb *f, __m128i ex)
{
	__m128i fx = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)f), EX_FLIP);
	return _mm_movemask_epi8(_mm_cmpgt_epi32(fx, ex)) == 0;
}

#define C(name) name##_avx2
#define C_ATTR F2D_TARGET_AVX2
#define C_SIMD 1
#include "broadphase_caches.h"
#undef C
#undef C_ATTR
#undef C_SIMD
#endif

#define C(name) name##_scalar
#define C_ATTR
#define C_SIMD 0
#include "broadphase_caches.h"
#undef C
#undef C_ATTR
#undef C_SIMD

/* update_caches (broadphase_caches.h) for the kernel: AVX2 for either SIMD kernel (the loop
 * has no use for 8-lane vectors: a shape at a time), else the scalar reference */
static int32_t update_caches(f2d_world *w, int kernel, uint64_t *moved, int64_t mw,
                             bool incremental, int32_t *remade, uint64_t *ebit, int32_t *elist,
                             int32_t *ec)
{
#if F2D_X86_SIMD
	if (kernel != F2D_KERNEL_SCALAR) {
		return update_caches_avx2(w, moved, mw, incremental, remade, ebit, elist, ec);
	}
#endif
	(void)kernel;
	return update_caches_scalar(w, moved, mw, incremental, remade, ebit, elist, ec);
}

/* update_caches with a given kernel, for tests/test_broadphase.c (cache_paths; declared in
 * broadphase_internal.h) */
bool f2d_update_caches_kernel(f2d_world *w, int kernel, bool incremental, const f2d_aabb *fat_in,
                              uint64_t *moved, uint64_t *ebit, int32_t *elist, int32_t out[3])
{
	const int32_t ids = w->shape_ids.next;
	if ((kernel != F2D_KERNEL_SCALAR && (!F2D_X86_SIMD || kernel > f2d_kernel_level())) ||
	    !f2d_grow(w, (void **)&w->bpc.step, &w->bpc.step_capacity, ids,
	              sizeof(f2d_shape_step))) {
		return false;
	}
	if (fat_in != NULL) {
		if (!f2d_grow(w, (void **)&w->bpc.fat, &w->bpc.fat_capacity, ids,
		              sizeof(f2d_aabb)) ||
		    !f2d_grow(w, (void **)&w->bpc.ex, &w->bpc.ex_capacity, ids,
		              sizeof(int32_t[4]))) {
			return false;
		}
		memcpy(w->bpc.fat, fat_in, (size_t)ids * sizeof *fat_in);
		memset(w->bpc.ex, 0, (size_t)ids * sizeof *w->bpc.ex);
	}
	out[0] = update_caches(w, kernel, moved, moved_words(w), incremental, &out[1],
	                       fat_in != NULL ? ebit : NULL, elist, &out[2]);
	return true;
}

/* The result in place: the pair keys (count of them, at sorted) at the front of w->pairs, then
 * the bitmap (mw words at moved, before sorted) and the marker. The caller reserved room for
 * the bitmap and marker after the keys at sorted. */
static void finish(f2d_world *w, uint64_t *sorted, int32_t count, const uint64_t *moved, int64_t mw)
{
	memcpy(sorted + count, moved, (size_t)mw * sizeof *sorted);
	sorted[count + mw] = STEP_MARK ^ w->step_count;
	memmove(w->pairs, sorted, (size_t)(count + mw + 1) * sizeof *sorted);
	w->pair_count = count;
}

/* ---- persistent candidates from fat boxes ----
 *
 * Box2D keeps a fat box (the AABB plus a margin) per proxy and re-queries only the proxies whose
 * AABB left it. Here the same idea must give exactly the pairs defined at the top of this file,
 * in the same order, so the fat boxes only make a candidate list:
 *  - bpc.fat[id] contains the shape's AABB (it is refitted, AABB + FAT_MARGIN on every side,
 *    when the AABB leaves it);
 *  - bpc.cand holds, in increasing key order, exactly the pairs whose fat boxes overlap and that
 *    may collide (the filter above: as the pairs depend only on boxes, types, joints and
 *    filters, and any change of the last three breaks the chain, see below);
 *  - as AABB within fat box for both shapes, every overlapping pair that may collide is a
 *    candidate, so the result is the candidates whose AABBs overlap, in candidate order: one
 *    filter pass over the list (emit), which writes the same keys in the same order as the
 *    sweep would.
 * A step whose call follows last step's call (the incremental chain of the caches, above) with
 * valid candidates refits only the escaped shapes (remade cache, AABB outside the fat box),
 * re-queries them against the fat boxes (the narrow shapes' keys in bpc.order, by fat lower.x,
 * repaired by insertion; the wide ones, wider than bpc.wide_limit, one by one) and merges: the
 * old candidates without the escaped shapes' pairs, plus the new ones. The chain broken, an
 * escaped narrow shape now wider than the limit or a long repair run the sweep of this file
 * over the fat boxes (refitting only the escaped ones when the fat boxes were valid) and keep
 * its keys as the candidates; more than escape_limit escapes run it over the AABBs. The
 * candidates are a pure cache: the pairs are a function of the AABBs, types, joints and
 * filters only (test_broadphase compares every step with brute force). */
#define FAT_MARGIN (F2D_ONE / 10) /* Box2D's aabbMargin, 0.1 m */
/* The three ways, each step (find_pairs): with last step's fat boxes valid, the escaped shapes
 * are counted first (update_caches, over the remade caches only); up to escape_limit of them
 * and valid candidates: the merge; up to the limit without: the sweep over the fat boxes;
 * more: the sweep over the AABBs, and the fat boxes dropped for 2, 4, .. 32 steps (doubling
 * while the escapes stay many), after which fresh ones are swept. Without valid
 * fat boxes (the chain broken) every fat box is refitted and the fat boxes swept. Memory: the
 * fat boxes and AABB copies (32 bytes a shape id), the x order (8 a shape), the candidates
 * twice (8 each): it grows only with the counts, and no step allocates once they stop
 * growing. */

static inline fix16_t sat_fix(int64_t v)
{
	return (fix16_t)(v < INT32_MIN ? INT32_MIN : (v > INT32_MAX ? INT32_MAX : v));
}

static inline f2d_aabb fatten(f2d_aabb a)
{
	f2d_aabb f;
	f.lower.x = sat_fix((int64_t)a.lower.x - FAT_MARGIN);
	f.lower.y = sat_fix((int64_t)a.lower.y - FAT_MARGIN);
	f.upper.x = sat_fix((int64_t)a.upper.x + FAT_MARGIN);
	f.upper.y = sat_fix((int64_t)a.upper.y + FAT_MARGIN);
	return f;
}

static inline bool contains(const f2d_aabb *f, const f2d_aabb *a)
{
	return f->lower.x <= a->lower.x && f->lower.y <= a->lower.y && a->upper.x <= f->upper.x &&
	       a->upper.y <= f->upper.y;
}

/* closed intervals on both axes, as the sweep's tests */
static inline bool boxes_overlap(const f2d_aabb *a, const f2d_aabb *b)
{
	return (a->lower.x <= b->upper.x) & (b->lower.x <= a->upper.x) &
	       (a->lower.y <= b->upper.y) & (b->lower.y <= a->upper.y);
}

/* A shape's AABB for the candidates' filter: lower x, y, ~upper x, ~upper y (~u = -1 - u
 * reverses the order without overflow), so that boxes a and b overlap iff every lane of
 * (a.lx, a.ly, ~a.ux, ~a.uy) is <= the lane of (b.ux, b.uy, ~b.lx, ~b.ly), which is b's four
 * words with their halves swapped and inverted: one compare of 4 lanes. */
static inline void set_ex(int32_t *e, const f2d_aabb *a)
{
	e[0] = a->lower.x;
	e[1] = a->lower.y;
	e[2] = ~a->upper.x;
	e[3] = ~a->upper.y;
}

#if F2D_X86_SIMD && defined(__SSE2__) /* not under gcc -mgeneral-regs-only (no_float.sh) */
#include <emmintrin.h> /* SSE2, the x86-64 baseline */

static inline bool ex_overlap(const int32_t *a, const int32_t *b)
{
	__m128i l = _mm_loadu_si128((const __m128i *)(const void *)a);
	__m128i r = _mm_loadu_si128((const __m128i *)(const void *)b);
	r = _mm_xor_si128(_mm_shuffle_epi32(r, 0x4E), _mm_set1_epi32(-1));
	return _mm_movemask_epi8(_mm_cmpgt_epi32(l, r)) == 0;
}
#else
static inline bool ex_overlap(const int32_t *a, const int32_t *b)
{
	return (a[0] <= ~b[2]) & (a[1] <= ~b[3]) & (a[2] <= ~b[0]) & (a[3] <= ~b[1]);
}
#endif

/* The candidates cand[0, n) whose AABBs (ex, by id) overlap, in order, to out; returns their
 * count. */
static int32_t emit(const uint64_t *cand, int32_t n, const int32_t (*ex)[4], uint64_t *out)
{
	int32_t k = 0;
	for (int32_t i = 0; i < n; ++i) {
		uint64_t key = cand[i];
		out[k] = key;
		k += ex_overlap(ex[key >> 32], ex[(uint32_t)key]) ? 1 : 0;
	}
	return k;
}

/* The result's tail: the moved-shape bitmap (mw words at moved, which the result may not
 * overlap) behind the count keys at the front of w->pairs, and this step's marker. */
static void place(f2d_world *w, int32_t count, const uint64_t *moved, int64_t mw)
{
	memmove(w->pairs + count, moved, (size_t)mw * sizeof *moved);
	w->pairs[count + mw] = STEP_MARK ^ w->step_count;
	w->pair_count = count;
}

static inline bool bit_of(const uint64_t *bits, int32_t i)
{
	return ((bits[i >> 6] >> (i & 63)) & 1u) != 0;
}

/* More escaped shapes than this in a step, and the step sweeps its AABBs instead (see below). */
static inline int32_t escape_limit(int32_t ids)
{
	return ids / 8 + 16;
}

/* Escaped shape i (fat box q) against shape j: the key, if their fat boxes overlap and they may
 * collide, appended to the new keys at w->pairs + n_at (*nc of them; w->pairs may grow). An
 * escaped j (ebit at w->pairs + eb_at) below i asked for the pair itself. False: no memory. */
static inline bool try_pair(f2d_world *w, int32_t i, int32_t j, const f2d_aabb *q, int64_t eb_at,
                            int64_t n_at, int32_t *nc)
{
	if (j == i || (j < i && bit_of(w->pairs + eb_at, j)) || !boxes_overlap(q, &w->bpc.fat[j]) ||
	    !f2d_should_collide(w, i, j)) {
		return true;
	}
	int64_t need = n_at + 2 * ((int64_t)*nc + 1);
	if (need > w->pair_capacity && !pairs_reserve(w, need)) {
		return false;
	}
	w->pairs[n_at + (*nc)++] = i < j ? ((uint64_t)(uint32_t)i << 32) | (uint32_t)j
	                                 : ((uint64_t)(uint32_t)j << 32) | (uint32_t)i;
	return true;
}

/* The incremental step (see above) for the ec escaped shapes that update_caches listed: *done
 * is false when the sweep must run instead (nothing the sweep reads was changed then).
 * Scratch in w->pairs behind the moved-shape bitmap (at moved_at) and its marker: the escaped
 * shapes' bitmap (mw) and list, the new keys (then as many again to sort them); then, beyond
 * the longest result, copies of the moved-shape bitmap and the sorted new keys and a byte per
 * shape id (escaped or not), as the result is written straight to the front. */
static f2d_result incremental_pairs(f2d_world *w, int64_t moved_at, int64_t mw, int32_t ec,
                                    bool *done)
{
	const int32_t ids = w->shape_ids.next;
	const int64_t eb_at = moved_at + mw + 1, el_at = eb_at + mw;
	const int64_t n_at = el_at + (ids + 1) / 2 + 1;
	*done = false;
	if (!pairs_reserve(w, n_at + 64)) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	uint64_t *ebit = w->pairs + eb_at;
	int32_t *elist = (int32_t *)(void *)(w->pairs + el_at);
	f2d_aabb *fat = w->bpc.fat;
	int32_t(*ex)[4] = w->bpc.ex;
	const int64_t limit = w->bpc.wide_limit, hlim = w->bpc.height_limit;
	const unsigned bk = w->bpc.band_k;
	for (int32_t k = 0; k < ec; ++k) {
		int32_t i = elist[k];
		if ((int64_t)fat[i].upper.x - fat[i].lower.x > limit ||
		    (int64_t)fat[i].upper.y - fat[i].lower.y > hlim) {
			bool wide = false;
			for (int32_t t = 0; t < w->bpc.wide_count && !wide; ++t) {
				wide = w->bpc.wide[t] == i;
			}
			if (!wide) {
				return F2D_OK; /* a narrow shape grew wider than the limit */
			}
		}
	}
	/* the escaped shapes' keys, then the order repaired (near linear: they moved little) */
	uint64_t *order = w->bpc.order;
	int32_t *oid = w->bpc.oid;
	const int32_t on = w->bpc.order_count;
	if (ec > 0) {
		for (int32_t r = 0; r < on; ++r) {
			int32_t id = oid[r];
			if (bit_of(ebit, id)) {
				order[r] = ((uint64_t)band_of(fat[id].lower.y, bk) << 32) |
				           (uint32_t)((int64_t)fat[id].lower.x - INT32_MIN);
			}
		}
		/* a shape one band up moves past a band's shapes: a larger budget than the x order's */
		int64_t budget = (int64_t)4 * REPAIR_MOVES * on + 64;
		for (int32_t r = 1; r < on; ++r) {
			uint64_t v = order[r];
			int32_t j = r - 1;
			if (order[j] <= v) {
				continue;
			}
			int32_t vid = oid[r];
			do {
				order[j + 1] = order[j];
				oid[j + 1] = oid[j];
				--j;
				--budget;
			} while (j >= 0 && order[j] > v);
			order[j + 1] = v;
			oid[j + 1] = vid;
			if (budget < 0) {
				return F2D_OK; /* the sweep rebuilds the order */
			}
		}
	}
	/* the escaped shapes' candidates: each pair once (an escaped j is asked by the lower id) */
	int32_t nc = 0;
	for (int32_t k = 0; k < ec; ++k) {
		const int32_t i = ((const int32_t *)(const void *)(w->pairs + el_at))[k];
		const f2d_aabb q = fat[i];
		/* a narrow shape that overlaps q starts at most 2 bands below q's first band, and
		 * its lower.x is at least q's minus the width limit */
		uint32_t b0 = band_of(q.lower.y, bk), b1 = band_of(q.upper.y, bk);
		b0 = b0 >= 2 ? b0 - 2 : 0;
		int64_t from = (int64_t)q.lower.x - INT32_MIN - limit;
		const uint64_t lo_x = (uint64_t)(from < 0 ? 0 : from);
		const uint64_t hi_x = (uint64_t)((int64_t)q.upper.x - INT32_MIN);
		if (b1 - b0 > 16) { /* a tall q: every narrow shape */
			for (int32_t r = 0; r < on; ++r) {
				if (!try_pair(w, i, oid[r], &q, eb_at, n_at, &nc)) {
					return F2D_ERROR_OUT_OF_MEMORY;
				}
			}
		} else {
			int32_t r = 0;
			for (uint64_t band = b0; band <= b1; ++band) {
				const uint64_t lo_key = (band << 32) | lo_x, hi_key = (band << 32) | hi_x;
				int32_t hi = on; /* first key >= lo_key, from r */
				while (r < hi) {
					int32_t mid = r + (hi - r) / 2;
					if (order[mid] < lo_key) {
						r = mid + 1;
					} else {
						hi = mid;
					}
				}
				for (; r < on && order[r] <= hi_key; ++r) {
					if (!try_pair(w, i, oid[r], &q, eb_at, n_at, &nc)) {
						return F2D_ERROR_OUT_OF_MEMORY;
					}
				}
			}
		}
		for (int32_t t = 0; t < w->bpc.wide_count; ++t) {
			if (!try_pair(w, i, w->bpc.wide[t], &q, eb_at, n_at, &nc)) {
				return F2D_ERROR_OUT_OF_MEMORY;
			}
		}
	}
	uint64_t *nkeys;
	/* the merge into cand2 and the result straight to the front, which may run over the
	 * scratch: the moved-shape bitmap and the sorted new keys are copied beyond its longest
	 * extent, followed by a byte per shape id, 1 for the escaped ones (the merge's test) */
	const int32_t oc = w->bpc.cand_count;
	int64_t sv_at = n_at + 2 * (int64_t)nc;
	sv_at = sv_at > (int64_t)oc + nc ? sv_at : (int64_t)oc + nc;
	const int64_t esc_at = sv_at + mw + nc + 1;
	if (!pairs_reserve(w, esc_at + (ids + 7) / 8) ||
	    !f2d_grow(w, (void **)&w->bpc.cand2, &w->bpc.cand2_capacity, oc + nc,
	              sizeof(uint64_t))) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	uint64_t *saved = w->pairs + sv_at; /* the moved-shape bitmap */
	memcpy(saved, w->pairs + moved_at, (size_t)mw * sizeof *saved);
	uint64_t *out = w->pairs;
	int32_t count;
	if (ec == 0) {
		count = emit(w->bpc.cand, oc, (const int32_t(*)[4])ex, out);
	} else {
		nkeys = w->pairs + n_at;
		unsigned bits = bits_for((uint64_t)ids);
		if (radix_sort(nkeys, nkeys + nc, nc, bits, bits)) {
			nkeys += nc;
		}
		memcpy(saved + mw, nkeys, (size_t)nc * sizeof *saved);
		nkeys = saved + mw;
		/* the escaped shapes' bytes, from the list (at el_at, which the result may overwrite
		 * only from the merge on) */
		uint8_t *esc = (uint8_t *)(void *)(w->pairs + esc_at);
		memset(esc, 0, (size_t)ids);
		for (int32_t k = 0; k < ec; ++k) {
			esc[((const int32_t *)(const void *)(w->pairs + el_at))[k]] = 1;
		}
		const uint64_t *old = w->bpc.cand;
		uint64_t *merged = w->bpc.cand2;
		int32_t a = 0, m = 0;
		count = 0;
		for (int32_t b = 0; b <= nc; ++b) {
			/* the old keys below the next new key (after the last one: the rest), without
			 * those of an escaped shape (re-queried: an old key equal to a new one is one
			 * of them); then the new key */
			const uint64_t lim = b < nc ? nkeys[b] : UINT64_MAX; /* keys < 2^63 */
			for (; a < oc && old[a] < lim; ++a) {
				const uint64_t key = old[a];
				if ((esc[key >> 32] | esc[(uint32_t)key]) != 0) {
					continue;
				}
				merged[m++] = key;
				out[count] = key;
				count += ex_overlap(ex[key >> 32], ex[(uint32_t)key]) ? 1 : 0;
			}
			if (b < nc) {
				const uint64_t key = nkeys[b];
				merged[m++] = key;
				out[count] = key;
				count += ex_overlap(ex[key >> 32], ex[(uint32_t)key]) ? 1 : 0;
			}
		}
		w->bpc.cand2 = w->bpc.cand;
		w->bpc.cand = merged;
		int32_t cap = w->bpc.cand2_capacity;
		w->bpc.cand2_capacity = w->bpc.cand_capacity;
		w->bpc.cand_capacity = cap;
		w->bpc.cand_count = m;
		w->bpc.merges++;
	}
	place(w, count, saved, mw);
	w->bpc.mark = STEP_MARK ^ w->step_count;
	*done = true;
	return F2D_OK;
}

static f2d_result find_pairs(f2d_world *w);

f2d_result f2d_find_pairs(f2d_world *w)
{
	f2d_result r = find_pairs(w);
	if (r != F2D_OK) {
		/* caches may be remade and w->pairs is scratch: nothing may be trusted next step */
		w->pair_count = 0;
		w->contacts_stale = true;
	}
	return r;
}

static f2d_result find_pairs(f2d_world *w)
{
	int64_t mw = moved_words(w);
	bool incremental =
	    !w->sweep_dirty && !w->contacts_stale && previous_call_was_last_step(w, mw);
	/* Incremental: last step's result stays in front (its pairs are this step's if no shape
	 * moved) and the new bitmap goes after it; the scratch follows the new bitmap. */
	int32_t last_count = w->pair_count;
	int64_t moved_at = incremental ? (int64_t)last_count + mw + 1 : 0;
	const int64_t ids = w->shape_ids.next;
	/* last step's call left the fat boxes and ex valid (fat_ok), and the candidates (cand_ok;
	 * see incremental_pairs) */
	const uint64_t prev = STEP_MARK ^ (w->step_count - 1), now = STEP_MARK ^ w->step_count;
	const bool fat_ok = incremental && w->bpc.fat_mark == prev && w->bpc.fat_capacity >= ids &&
	                    w->bpc.ex_capacity >= ids;
	const bool cand_ok = fat_ok && w->bpc.mark == prev;
	w->bpc.mark = 0;
	w->bpc.fat_mark = 0;
	w->pair_count = 0;
	bp c = {0};
	c.w = w;
	c.hdr = moved_at + mw + 1;
	/* the bitmap, then 1. the x order (scratch for a rebuild: 2n words; n <= shape_ids.next) */
	if (!bp_reserve(&c, 7 * (int64_t)w->shape_ids.next + 4, false) ||
	    !f2d_grow(w, (void **)&w->bpc.step, &w->bpc.step_capacity, (int32_t)ids,
	              sizeof(f2d_shape_step))) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	/* the escaped shapes are found by update_caches when the step will look for them (the
	 * fat boxes valid and not waiting, below): their bitmap and list in the scratch
	 * (incremental_pairs' layout; mw + ids / 2 words of the 7 ids reserved) */
	const bool scan = fat_ok && w->bpc.plain_left == 0;
	uint64_t *ebit = scan ? w->pairs + c.hdr : NULL;
	int32_t ec = 0, remade = 0;
	int32_t n = update_caches(w, f2d_kernel_level(), w->pairs + moved_at, mw, incremental,
	                          &remade, ebit, scan ? (int32_t *)(void *)(ebit + mw) : NULL, &ec);
	if (incremental && remade == 0) {
		/* No box changed, and nothing else the pairs depend on (the shapes alive, their
		 * bodies' types, joints: sweep_dirty and contacts_stale are clear): the pairs, and
		 * the x order, are last step's. An empty bitmap and this step's marker follow. */
		memset(w->pairs + last_count, 0, (size_t)mw * sizeof *w->pairs);
		w->pairs[last_count + mw] = STEP_MARK ^ w->step_count;
		w->pair_count = last_count;
		w->bpc.fat_mark = fat_ok ? now : 0; /* unchanged too */
		w->bpc.mark = cand_ok ? now : 0;
		return F2D_OK;
	}
	if (!f2d_grow(w, (void **)&w->bpc.fat, &w->bpc.fat_capacity, (int32_t)ids, sizeof(f2d_aabb)) ||
	    !f2d_grow(w, (void **)&w->bpc.ex, &w->bpc.ex_capacity, (int32_t)ids, sizeof(int32_t[4]))) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	/* Which of three ways (see above): the candidates merged (few escapes, candidates valid),
	 * the sweep over the fat boxes (few escapes, or the fat boxes not valid), or, when many
	 * shapes escaped (everything falls, a swinging chain: the candidates would be remade
	 * every step), the sweep over the AABBs themselves, as if there were no fat boxes; the
	 * fat boxes and ex are kept valid in all three (the escaped ones refitted). */
	bool use_fat = true, fat_kept = true;
	if (w->bpc.plain_left > 0 && incremental) {
		/* waiting after a step with many escapes (below): the AABBs swept, no fat boxes */
		w->bpc.plain_left--;
		use_fat = fat_kept = false;
	} else if (fat_ok) {
		/* (scan: update_caches found the ec escaped shapes) */
		if (ec > escape_limit((int32_t)ids)) {
			/* The fat boxes are dropped for 2, 4, .. 32 steps (the scene may be moving
			 * fast for a while: a swinging chain, a falling rain), then tried again with
			 * a sweep over fresh fat boxes: the escapes cost nothing while it waits. */
			use_fat = fat_kept = false;
			w->bpc.backoff = w->bpc.backoff < 5 ? w->bpc.backoff + 1 : 5;
			w->bpc.plain_left = 1u << w->bpc.backoff;
		} else if (cand_ok) {
			bool done = false;
			f2d_result r = incremental_pairs(w, moved_at, mw, ec, &done);
			if (r != F2D_OK || done) {
				if (r == F2D_OK) {
					w->bpc.fat_mark = now;
					w->bpc.backoff = 0;
				}
				return r;
			}
			/* it may have grown w->pairs before it gave up: c's pointers into it anew */
			bp_point(&c, false);
		}
	} else {
		w->bpc.plain_left = 0;
		f2d_aabb *fat = w->bpc.fat;
		for (int32_t i = 0; i < (int32_t)ids; ++i) {
			const f2d_shape *s = &w->shapes[i];
			if (s->alive) {
				set_ex(w->bpc.ex[i], &s->aabb);
				fat[i] = fatten(s->aabb);
			}
		}
	}
	if (!f2d_grow(w, (void **)&w->sweep, &w->sweep_capacity, n, sizeof(int32_t)) ||
	    !f2d_grow(w, (void **)&w->bpc.order, &w->bpc.order_capacity, n, sizeof(uint64_t)) ||
	    !f2d_grow(w, (void **)&w->bpc.wide, &w->bpc.wide_capacity, n, sizeof(int32_t))) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	if (w->sweep_dirty || w->sweep_count != n ||
	    !repair_order(w, w->sweep, w->pairs + c.hdr + 5 * (int64_t)n, n, use_fat)) {
		rebuild_order(w, w->pairs + c.hdr, n, use_fat);
		w->sweep_count = n;
		w->sweep_dirty = false;
	}

	/* 2. boxes in x order, band height from the dynamic shapes' mean height */
	int64_t height_sum = 0, width_sum = 0;
	int32_t dynamic_count = 0;
	for (int32_t r = 0; r < n; ++r) {
		const f2d_shape *s = &w->shapes[w->sweep[r]];
		const f2d_aabb *f = sweep_box(w, w->sweep[r], use_fat);
		bp_box *b = &c.boxes[r];
		b->lx = f->lower.x;
		b->ux = f->upper.x;
		b->ly = f->lower.y;
		b->uy = f->upper.y;
		const f2d_body *body = &w->bodies[s->body];
		b->id = w->sweep[r];
		b->body = s->body;
		b->flags = (body->type == F2D_DYNAMIC_BODY ? BOX_DYNAMIC : 0u) |
		           (body->joint_count > 0 ? BOX_JOINTED : 0u) |
		           (f2d_shape_special(s) ? BOX_SPECIAL : 0u);
		b->unused = 0;
		if ((b->flags & BOX_DYNAMIC) != 0) {
			height_sum += (int64_t)b->uy - b->ly;
			width_sum += (int64_t)b->ux - b->lx;
			++dynamic_count;
		}
	}
	if (dynamic_count == 0) {
		finish(w, w->pairs + c.hdr, 0, w->pairs + moved_at, mw); /* no pair can collide */
		/* and no candidates (bpc.mark stays 0) */
		w->bpc.fat_mark = fat_kept ? now : 0;
		return F2D_OK;
	}
	int64_t mean = height_sum / dynamic_count;
	unsigned k = 10;
	while (k < 31 && ((int64_t)1 << k) < mean) {
		++k;
	}
	int64_t entries = 0;
	int32_t tall_count = 0;
	uint32_t band_min = UINT32_MAX, band_max = 0;
	for (int32_t r = 0; r < n; ++r) {
		bp_box *b = &c.boxes[r];
		b->first = band_of(b->ly, k);
		b->last = band_of(b->uy, k);
		if (b->last - b->first >= TALL_SPAN) {
			++tall_count;
			continue;
		}
		entries += b->last - b->first + 1;
		band_min = b->first < band_min ? b->first : band_min;
		band_max = b->last > band_max ? b->last : band_max;
	}
	/* The narrow shapes (at most 4 mean widths wide, 2 bands high: they span at most 3 bands)
	 * for incremental_pairs: keys (first band << 32 | lower.x biased) in increasing order, by a
	 * stable radix sort on the band of (band << 32 | x rank) keys made in x order, in cand2
	 * (scratch until the next merge); the others listed apart. */
	if (use_fat) {
		if (!f2d_grow(w, (void **)&w->bpc.cand2, &w->bpc.cand2_capacity, 2 * n,
		              sizeof(uint64_t)) ||
		    !f2d_grow(w, (void **)&w->bpc.oid, &w->bpc.oid_capacity, n, sizeof(int32_t))) {
			return F2D_ERROR_OUT_OF_MEMORY;
		}
		const int64_t limit = 4 * (width_sum / dynamic_count), hlim = (int64_t)2 << k;
		uint64_t *keys = w->bpc.cand2, *tmp = keys + n;
		int32_t on = 0, wn = 0;
		uint32_t lo_band = UINT32_MAX, hi_band = 0;
		for (int32_t r = 0; r < n; ++r) {
			const bp_box *b = &c.boxes[r];
			if ((int64_t)b->ux - b->lx <= limit && (int64_t)b->uy - b->ly <= hlim) {
				keys[on++] = ((uint64_t)b->first << 32) | (uint32_t)r;
				lo_band = b->first < lo_band ? b->first : lo_band;
				hi_band = b->first > hi_band ? b->first : hi_band;
			} else {
				w->bpc.wide[wn++] = b->id;
			}
		}
		for (int32_t i = 0; i < on; ++i) {
			keys[i] -= (uint64_t)lo_band << 32;
		}
		const uint64_t *sorted =
		    on > 0 && radix_sort(keys, tmp, on, 0, bits_for((uint64_t)(hi_band - lo_band)))
		        ? tmp
		        : keys;
		for (int32_t i = 0; i < on; ++i) {
			const bp_box *b = &c.boxes[(uint32_t)sorted[i]];
			w->bpc.order[i] = ((uint64_t)b->first << 32) | (uint32_t)((int64_t)b->lx - INT32_MIN);
			w->bpc.oid[i] = b->id;
		}
		w->bpc.order_count = on;
		w->bpc.wide_count = wn;
		w->bpc.wide_limit = limit;
		w->bpc.height_limit = hlim;
		w->bpc.band_k = k;
	}
	int32_t e_count = (int32_t)entries;           /* <= TALL_SPAN n */
	int64_t key_room = entries > n ? entries : n; /* the x-order rebuild used these words too */
	/* The band lists are made by a counting sort on the band when the occupied range of
	 * bands is no larger than a constant times the entries (memory and time O(n)), else by
	 * the radix sort of (band << 32 | rank) keys; both list each band's boxes in x order. */
	int64_t range = entries > 0 ? (int64_t)band_max - band_min + 1 : 0;
	bool dense = range <= 2 * entries + 64;
	c.off_keys = 5 * (int64_t)n;
	c.off_tmp = c.off_keys + key_room;
	c.off_ents = c.off_tmp + key_room;
	c.off_bands = c.off_ents + (7 * entries + 1) / 2;
	c.off_hist = c.off_bands + 2 * (entries + 1);
	c.off_tall = c.off_hist + (dense ? range : 0); /* count and width: 2 uint32 per band */
	/* the pair counters and sort_pairs' group starts: ids words of 2 uint32 */
	c.off_cnt = c.off_tall + n;
	c.out = c.off_cnt + ids;
	c.tail = mw + 1; /* finish's bitmap and marker behind the sorted keys */
	if (!bp_reserve(&c, c.out + 2 + c.tail, false)) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	memset(c.cnt, 0, (size_t)ids * sizeof *c.cnt);

	/* 3. band lists, each in x order (rank order), then the table of occupied bands (with the
	 * widest box of each, which only the tall boxes' look-ups need) */
	int32_t band_count = 0;
	const bool widths = tall_count > 0;
	tall_count = 0;
	if (dense) {
		uint32_t *count = c.hist, *width = c.hist + range;
		memset(c.hist, 0, (size_t)range * 2 * sizeof *c.hist);
		for (int32_t r = 0; r < n; ++r) {
			const bp_box *b = &c.boxes[r];
			if (b->last - b->first >= TALL_SPAN) {
				c.tall[tall_count++] = (uint32_t)r;
				continue;
			}
			uint32_t wd = (uint32_t)((int64_t)b->ux - b->lx); /* < 2^32 */
			for (uint32_t band = b->first - band_min; band <= b->last - band_min; ++band) {
				++count[band];
				if (widths) {
					width[band] = width[band] > wd ? width[band] : wd;
				}
			}
		}
		uint32_t pos = 0;
		for (int64_t i = 0; i < range; ++i) {
			uint32_t k2 = count[i];
			count[i] = pos;
			if (k2 != 0) {
				c.bands[band_count].band = band_min + (uint32_t)i;
				c.bands[band_count].start = (int32_t)pos;
				c.bands[band_count].width = width[i];
				++band_count;
				pos += k2;
			}
		}
		for (int32_t r = 0; r < n; ++r) {
			const bp_box *b = &c.boxes[r];
			if (b->last - b->first >= TALL_SPAN) {
				continue;
			}
			bp_ent en = {b->lx, b->ux, b->ly, b->uy, b->id, b->body, b->flags | ENT_START};
			for (uint32_t band = b->first - band_min; band <= b->last - band_min; ++band) {
				c.ents[count[band]++] = en;
				en.meta &= ~ENT_START;
			}
		}
	} else {
		/* (band - band_min) << 32 | rank, made in rank order, sorted on the band */
		int64_t e = 0;
		for (int32_t r = 0; r < n; ++r) {
			const bp_box *b = &c.boxes[r];
			if (b->last - b->first >= TALL_SPAN) {
				c.tall[tall_count++] = (uint32_t)r;
				continue;
			}
			for (uint32_t band = b->first;; ++band) {
				c.keys[e++] = ((uint64_t)(band - band_min) << 32) | (uint32_t)r;
				if (band == b->last) {
					break;
				}
			}
		}
		bool swapped = entries > 0 && radix_sort(c.keys, c.tmp, e_count, 0,
		                                         bits_for((uint64_t)(band_max - band_min)));
		bp_point(&c, swapped);
		for (int32_t i = 0; i < e_count; ++i) {
			uint32_t band = (uint32_t)(c.keys[i] >> 32) + band_min;
			uint32_t r = (uint32_t)c.keys[i];
			const bp_box *b = &c.boxes[r];
			int64_t width = (int64_t)b->ux - b->lx;
			bp_ent en = {b->lx, b->ux, b->ly, b->uy, b->id, b->body,
			             b->flags | (band == b->first ? ENT_START : 0u)};
			c.ents[i] = en;
			if (band_count == 0 || c.bands[band_count - 1].band != band) {
				c.bands[band_count].band = band;
				c.bands[band_count].start = i;
				c.bands[band_count].width = width;
				++band_count;
			} else if (width > c.bands[band_count - 1].width) {
				c.bands[band_count - 1].width = width;
			}
		}
		bp_point(&c, false); /* the keys are done with */
	}
	c.bands[band_count].band = UINT32_MAX;
	c.bands[band_count].start = e_count;
	c.bands[band_count].width = 0;
	const bool swapped = false;
	for (int32_t k2 = 0; k2 < band_count; ++k2) {
		if (!sweep_band(&c, c.bands[k2].start, c.bands[k2 + 1].start, swapped)) {
			return F2D_ERROR_OUT_OF_MEMORY;
		}
	}

	/* 4. tall boxes */
	for (int32_t t = 0; t < tall_count; ++t) {
		if (!query_tall(&c, (uint32_t)c.tall[t], band_count, swapped)) {
			return F2D_ERROR_OUT_OF_MEMORY;
		}
	}
	if (!sweep_tall(&c, tall_count, swapped)) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}

	/* 5. the keys in order, at the front of w->pairs, then the bitmap and the marker. The
	 * keys are sorted straight to the front when that leaves the keys and the counters alone
	 * (count <= hdr + off_cnt; the bitmap is first copied behind the keys), else behind the
	 * keys and moved to the front by finish. */
	uint64_t *base = w->pairs + c.hdr;
	uint32_t *start = (uint32_t *)(void *)(base + c.off_cnt) + ids;
	w->bpc.fat_mark = fat_kept ? now : 0; /* not kept while the step waits */
	if (!use_fat) {
		w->bpc.plain++;
		/* the keys are the pairs: sorted straight to the front when that leaves the keys
		 * and the counters alone (count <= hdr + off_cnt; the bitmap is first copied behind
		 * the keys), else behind the keys and moved to the front by finish */
		if ((int64_t)c.count <= c.hdr + c.off_cnt) {
			uint64_t *behind = c.pkey + c.count; /* count + tail words are free there */
			memcpy(behind, w->pairs + moved_at, (size_t)mw * sizeof *behind);
			sort_pairs(c.pkey, w->pairs, c.cnt, start, c.count, (int32_t)ids);
			place(w, c.count, behind, mw);
			return F2D_OK;
		}
		uint64_t *sorted = c.pkey + c.count;
		sort_pairs(c.pkey, sorted, c.cnt, start, c.count, (int32_t)ids);
		finish(w, sorted, c.count, w->pairs + moved_at, mw);
		return F2D_OK;
	}
	if (!f2d_grow(w, (void **)&w->bpc.cand, &w->bpc.cand_capacity, c.count, sizeof(uint64_t))) {
		w->bpc.fat_mark = 0;
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	base = w->pairs + c.hdr;
	start = (uint32_t *)(void *)(base + c.off_cnt) + ids;
	sort_pairs(c.pkey, w->bpc.cand, c.cnt, start, c.count, (int32_t)ids);
	w->bpc.cand_count = c.count;
	/* the candidates whose AABBs overlap, straight to the front; the bitmap is first copied
	 * behind the unsorted keys (count + tail words free there, beyond the result) */
	uint64_t *saved = c.pkey + c.count;
	memcpy(saved, w->pairs + moved_at, (size_t)mw * sizeof *saved);
	int32_t count = emit(w->bpc.cand, c.count, (const int32_t(*)[4])w->bpc.ex, w->pairs);
	place(w, count, saved, mw);
	w->bpc.mark = STEP_MARK ^ w->step_count;
	w->bpc.sweeps++;
	return F2D_OK;
}
