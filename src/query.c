/* fix2d queries: AABB overlap, ray casts, shape overlap and shape casts, per-shape ray cast and
 * point test.
 * SPDX-License-Identifier: MIT
 *
 * Geometry: one exact primitive, the origin against the Minkowski difference of two convex
 * sets (query_geometry.c).
 *
 * Broad phase: a static tree over the shapes' tight AABBs at their current transforms
 * (f2d_shape_compute_aabb with no margin: the step's cached boxes are fattened and made before
 * the bodies moved). Shapes sorted by (Morton code of the box centre, id), 4 to a leaf, 4 nodes
 * to a parent. Built by the first query after w->query_epoch moved (a step that moves anything,
 * a transform set, a shape made or destroyed, a snapshot restored or loaded), O(n) + a radix
 * sort; the step never reads it. Only what each query returns, never its traversal order,
 * depends on the tree: the results are sorted (overlaps by id, casts by (t32, id)) and the
 * closest ray prunes a node only when its exact entry is past (best t32 + 1) / 2^32.
 * Segment-box tests start with a cheap exact-integer one (seg_maybe: the segment's bounds, shrunk
 * to the best hit so far, and its line's separating axis) that can only say "surely not" or
 * "maybe"; the closest ray then needs only the entry (two rationals), the other casts the full
 * slab test. Pruning more or less never changes a result, only the work: every shape that could
 * hold the answer is still cast against (test_query checks the fast test against the exact one).
 */
#include "query_internal.h"

#include <stdlib.h>

/* ---- the query filter: the one place that decides whether a query sees a shape ---- */

f2d_query_filter f2d_default_query_filter(void)
{
	f2d_query_filter f = {1u, UINT64_MAX};
	return f;
}

/* Box2D's rule, (shape category & query mask) and (shape mask & query category). Shapes have no
 * filter yet: every shape is category 1, mask all. When shape filters come, they go here. */
static inline bool query_sees(f2d_query_filter f, const f2d_shape *s)
{
	/* Box2D v3's rule: the shape's category in the query's mask and the query's category in
	 * the shape's mask; sensors are not found by queries */
	return !s->is_sensor && (s->filter.category_bits & f.mask_bits) != 0 &&
	       (s->filter.mask_bits & f.category_bits) != 0;
}

/* ---- the tree ---- */

#define Q_BRANCH 4
#define Q_STACK 128

static inline uint32_t spread16(uint32_t v)
{
	v &= 0xFFFFu;
	v = (v | (v << 8)) & 0x00FF00FFu;
	v = (v | (v << 4)) & 0x0F0F0F0Fu;
	v = (v | (v << 2)) & 0x33333333u;
	v = (v | (v << 1)) & 0x55555555u;
	return v;
}

static unsigned shift_for(uint64_t range) /* range >> shift < 2^16 */
{
	unsigned s = 0;
	while ((range >> s) >= 65536u) {
		++s;
	}
	return s;
}

/* Stable LSD radix sort on 8-bit digits (passes whose digit is the same for all keys are
 * skipped); returns where the result is. */
static uint64_t *radix64(uint64_t *keys, uint64_t *tmp, int32_t n)
{
	uint64_t *src = keys, *dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		int32_t count[256] = {0};
		for (int32_t i = 0; i < n; ++i) {
			++count[(src[i] >> shift) & 255u];
		}
		if (count[(src[0] >> shift) & 255u] == n) {
			continue;
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
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* the bounds of the shapes' box centres, doubled (lower + upper: no rounding) */
typedef struct q_bounds {
	int64_t min_x, min_y, max_x, max_y;
} q_bounds;

/* The live shapes' ids and tight boxes in id order (rank k), at most n of them, and the bounds
 * of their centres; returns how many. */
static int32_t gather_boxes(const f2d_world *w, int32_t n, int32_t *ids, f2d_aabb *boxes,
                            q_bounds *cb)
{
	cb->min_x = cb->min_y = INT64_MAX;
	cb->max_x = cb->max_y = INT64_MIN;
	int32_t k = 0;
	for (int32_t i = 0; i < w->shape_ids.next && k < n; ++i) {
		const f2d_shape *s = &w->shapes[i];
		if (!s->alive) {
			continue;
		}
		f2d_aabb b = f2d_shape_compute_aabb(s, f2d_body_xf(&w->bodies[s->body]), 0);
		ids[k] = i;
		boxes[k] = b;
		int64_t cx = (int64_t)b.lower.x + b.upper.x, cy = (int64_t)b.lower.y + b.upper.y;
		cb->min_x = cx < cb->min_x ? cx : cb->min_x;
		cb->max_x = cx > cb->max_x ? cx : cb->max_x;
		cb->min_y = cy < cb->min_y ? cy : cb->min_y;
		cb->max_y = cy > cb->max_y ? cy : cb->max_y;
		++k;
	}
	return k;
}

/* The n gathered shapes (ids, boxes by rank) into q->items and q->boxes in leaf order: by
 * (Morton code of the centre, rank); rank order is id order. */
static void sort_by_morton(f2d_query_cache *q, int32_t n, int32_t n1, const int32_t *ids,
                           const f2d_aabb *boxes, const q_bounds *cb)
{
	unsigned sx = shift_for((uint64_t)(cb->max_x - cb->min_x)),
	         sy = shift_for((uint64_t)(cb->max_y - cb->min_y));
	for (int32_t r = 0; r < n; ++r) {
		const f2d_aabb *b = &boxes[r];
		uint32_t qx =
		    (uint32_t)((uint64_t)((int64_t)b->lower.x + b->upper.x - cb->min_x) >> sx);
		uint32_t qy =
		    (uint32_t)((uint64_t)((int64_t)b->lower.y + b->upper.y - cb->min_y) >> sy);
		uint64_t code = spread16(qx) | (spread16(qy) << 1);
		q->keys[r] = (code << 32) | (uint32_t)r;
	}
	const uint64_t *sorted = radix64(q->keys, q->keys + n1, n);
	for (int32_t i = 0; i < n; ++i) {
		uint32_t r = (uint32_t)sorted[i];
		q->items[i] = ids[r];
		q->boxes[i] = boxes[r];
	}
}

/* The leaves over the n sorted shapes, Q_BRANCH to a leaf; returns their count. */
static int32_t build_leaves(f2d_query_cache *q, int32_t n)
{
	int32_t count = 0;
	for (int32_t i = 0; i < n; i += Q_BRANCH) {
		f2d_query_node *nd = &q->nodes[count++];
		nd->first = i;
		nd->count = n - i < Q_BRANCH ? n - i : Q_BRANCH;
		nd->lx = nd->ly = INT32_MAX;
		nd->ux = nd->uy = INT32_MIN;
		for (int32_t j = i; j < i + nd->count; ++j) {
			const f2d_aabb *b = &q->boxes[j];
			nd->lx = f2d_min(nd->lx, b->lower.x);
			nd->ly = f2d_min(nd->ly, b->lower.y);
			nd->ux = f2d_max(nd->ux, b->upper.x);
			nd->uy = f2d_max(nd->uy, b->upper.y);
		}
	}
	return count;
}

/* Levels of Q_BRANCH children each above the count leaves, up to one root (the last node);
 * returns the node count. */
static int32_t build_levels(f2d_query_cache *q, int32_t count)
{
	f2d_query_node *nodes = q->nodes;
	int32_t level_start = 0, level_end = count;
	while (level_end - level_start > 1) {
		for (int32_t i = level_start; i < level_end; i += Q_BRANCH) {
			f2d_query_node *nd = &nodes[count++];
			nd->first = i;
			nd->count = level_end - i < Q_BRANCH ? level_end - i : Q_BRANCH;
			nd->lx = nd->ly = INT32_MAX;
			nd->ux = nd->uy = INT32_MIN;
			for (int32_t j = i; j < i + nd->count; ++j) {
				nd->lx = f2d_min(nd->lx, nodes[j].lx);
				nd->ly = f2d_min(nd->ly, nodes[j].ly);
				nd->ux = f2d_max(nd->ux, nodes[j].ux);
				nd->uy = f2d_max(nd->uy, nodes[j].uy);
			}
		}
		level_start = level_end;
		level_end = count;
	}
	return count;
}

static f2d_result build_tree(f2d_world *w)
{
	f2d_query_cache *q = &w->query;
	q->built = false;
	int32_t n = w->shape_count;
	int32_t n1 = n > 0 ? n : 1;
	/* nodes: ceil(n/4) + ceil(n/16) + ... < n/3 + one per level (at most 11 levels) */
	if (!f2d_grow(w, (void **)&q->items, &q->item_capacity, 2 * n1, sizeof(int32_t)) ||
	    !f2d_grow(w, (void **)&q->boxes, &q->box_capacity, 2 * n1, sizeof(f2d_aabb)) ||
	    !f2d_grow(w, (void **)&q->keys, &q->key_capacity, 2 * n1, sizeof(uint64_t)) ||
	    !f2d_grow(w, (void **)&q->nodes, &q->node_capacity, n / 3 + 32,
	              sizeof(f2d_query_node))) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	/* boxes and ids in id order in the second halves, then sorted into the first */
	int32_t *ids = q->items + n1;
	f2d_aabb *boxes = q->boxes + n1;
	q_bounds cb;
	n = gather_boxes(w, n, ids, boxes, &cb);
	q->item_count = n;
	q->node_count = q->leaf_count = 0;
	if (n > 0) {
		sort_by_morton(q, n, n1, ids, boxes, &cb);
		q->leaf_count = build_leaves(q, n);
		q->node_count = build_levels(q, q->leaf_count);
	}
	q->built = true;
	q->built_epoch = w->query_epoch;
	return F2D_OK;
}

static f2d_result ensure_tree(f2d_world *w, const char *what)
{
	if (w->query.built && w->query.built_epoch == w->query_epoch) {
		return F2D_OK;
	}
	if (build_tree(w) != F2D_OK) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY, "%s: allocator returned NULL",
		                     what);
	}
	return F2D_OK;
}

void f2d_query_free(f2d_world *w)
{
	f2d_query_cache *q = &w->query;
	f2d_free(w, q->nodes, (size_t)q->node_capacity * sizeof(f2d_query_node));
	f2d_free(w, q->items, (size_t)q->item_capacity * sizeof(int32_t));
	f2d_free(w, q->boxes, (size_t)q->box_capacity * sizeof(f2d_aabb));
	f2d_free(w, q->keys, (size_t)q->key_capacity * sizeof(uint64_t));
	f2d_free(w, q->hits, (size_t)q->hit_capacity * sizeof(q_hit));
	memset(q, 0, sizeof *q);
}

/* ---- traversal ---- */

static inline bool box_overlap(fix16_t lx, fix16_t ly, fix16_t ux, fix16_t uy, const f2d_aabb *b)
{
	return lx <= b->upper.x && b->lower.x <= ux && ly <= b->upper.y && b->lower.y <= uy;
}

/* n / d compares for the boxes: numerators below 2^32.2, denominators below 2^32 + 1, so the
 * cross products fit 64 bits. */
static inline bool rat_lt64(q_rat a, q_rat b)
{
	return a.n * b.d < b.n * a.d;
}

static inline bool slab(int64_t den, int64_t b, q_rat *lo, q_rat *hi)
{
	if (den == 0) {
		return b >= 0;
	}
	if (den < 0) {
		if (b < 0) {
			q_rat t = {(uint64_t)-b, (uint64_t)-den};
			if (rat_lt64(*lo, t)) {
				*lo = t;
			}
		}
		return true;
	}
	if (b < 0) {
		return false;
	}
	q_rat t = {(uint64_t)b, (uint64_t)den};
	if (rat_lt64(t, *hi)) {
		*hi = t;
	}
	return true;
}

/* A query segment o + t d, t in [0, hi], against closed boxes grown by (gx, gy) below; with the
 * segment's own bounds for t in [0, 1] and whether the line test below may run (sat). */
typedef struct q_seg {
	int64_t ox, oy, dx, dy, gx, gy;
	int64_t sx0, sy0, sx1, sy1;
	bool sat;
} q_seg;

/* |d| <= 2^28 per axis (4096 m): the line test's products stay below 2^62 (see seg_maybe) */
#define Q_SAT_LIMIT ((int64_t)1 << 28)

static q_seg make_seg(int64_t ox, int64_t oy, int64_t dx, int64_t dy, int64_t gx, int64_t gy)
{
	q_seg s;
	s.ox = ox;
	s.oy = oy;
	s.dx = dx;
	s.dy = dy;
	s.gx = gx;
	s.gy = gy;
	s.sx0 = dx < 0 ? ox + dx : ox;
	s.sx1 = dx < 0 ? ox : ox + dx;
	s.sy0 = dy < 0 ? oy + dy : oy;
	s.sy1 = dy < 0 ? oy : oy + dy;
	s.sat = dx >= -Q_SAT_LIMIT && dx <= Q_SAT_LIMIT && dy >= -Q_SAT_LIMIT && dy <= Q_SAT_LIMIT;
	return s;
}

/* The closest ray's bounds after a hit: the segment for t in [0, h / 2^32], h = best t32 + 1
 * <= 2^32 (the traversal's hi), inside o + [0, ceil(|d| h / 2^32)] per axis in d's direction
 * (|d| h <= 2^63: unsigned, exact). */
static void seg_shrink(q_seg *s, uint64_t h)
{
	uint64_t ax = (uint64_t)(s->dx < 0 ? -s->dx : s->dx) * h,
	         ay = (uint64_t)(s->dy < 0 ? -s->dy : s->dy) * h;
	int64_t ex = (int64_t)((ax + 0xFFFFFFFFu) >> 32), ey = (int64_t)((ay + 0xFFFFFFFFu) >> 32);
	s->sx0 = s->dx < 0 ? s->ox - ex : s->ox;
	s->sx1 = s->dx < 0 ? s->ox : s->ox + ex;
	s->sy0 = s->dy < 0 ? s->oy - ey : s->oy;
	s->sy1 = s->dy < 0 ? s->oy : s->oy + ey;
}

/* The cheap node test: false only when the segment o + t d, t in [0, 1], surely misses the
 * closed box [lx - gx, ux] x [ly - gy, uy], so that seg_box (exact, t in [0, hi], hi <= 1) would
 * say no too; true is "maybe" (seg_box decides). Two separating axes, both exact integer tests:
 *  - the segment's bounding box against the box (x and y);
 *  - the line's normal n = (-dy, dx): with doubled centre c2 = (l + u) - 2 o and size w = u - l,
 *    a box point p = o + (c2 + w s) / 2, |s_i| <= 1, has 2 n.(p - o) = cross + (dx wy sy - dy wx
 *    sx), cross = dx c2y - dy c2x, so |cross| > |dy| wx + |dx| wy puts the whole box strictly on
 *    one side of the line (no point of it on the segment).
 * Magnitudes: box corners are fix16 (|.| <= 2^31), g in [0, 2^31), o fix16, so |c2| < 2^33.4 and
 * w < 2^32.6; with |d| <= 2^28 (sat) the products are below 2^61.4 and cross below 2^62.4. Longer
 * translations skip the line test (the bounds test stays). test_query checks that this never
 * rejects a box seg_box accepts, at the range extremes. */
static inline bool seg_maybe(const q_seg *s, int64_t lx, int64_t ly, int64_t ux, int64_t uy)
{
	lx -= s->gx;
	ly -= s->gy;
	if (ux < s->sx0 || lx > s->sx1 || uy < s->sy0 || ly > s->sy1) {
		return false;
	}
	if (!s->sat) {
		return true;
	}
	int64_t c2x = lx + ux - 2 * s->ox, c2y = ly + uy - 2 * s->oy;
	int64_t cross = s->dx * c2y - s->dy * c2x;
	int64_t ext =
	    (s->dy < 0 ? -s->dy : s->dy) * (ux - lx) + (s->dx < 0 ? -s->dx : s->dx) * (uy - ly);
	return (cross < 0 ? -cross : cross) <= ext;
}

/* The exact test: whether o + t d, t in [0, hi], meets the grown box, and its entry t. */
static bool seg_box_exact(const q_seg *s, int64_t lx, int64_t ly, int64_t ux, int64_t uy, q_rat hi,
                          q_rat *entry)
{
	q_rat lo = {0, 1};
	lx -= s->gx;
	ly -= s->gy;
	if (!slab(s->dx, ux - s->ox, &lo, &hi) || !slab(-s->dx, s->ox - lx, &lo, &hi) ||
	    !slab(s->dy, uy - s->oy, &lo, &hi) || !slab(-s->dy, s->oy - ly, &lo, &hi) ||
	    rat_lt64(hi, lo)) {
		return false;
	}
	*entry = lo;
	return true;
}

static inline bool seg_box(const q_seg *s, int64_t lx, int64_t ly, int64_t ux, int64_t uy, q_rat hi,
                           q_rat *entry)
{
	return seg_maybe(s, lx, ly, ux, uy) && seg_box_exact(s, lx, ly, ux, uy, hi, entry);
}

/* The closest ray's node test: seg_box's answer and entry for every box seg_box accepts (and
 * "yes" for a few boxes just past the shrunk bounds' rounding, which only costs a visit). With
 * the line test (sat), seg_maybe already leaves only boxes the segment's line crosses within
 * the segment's bounds (the three separating axes of a segment and a box), so what is left of
 * the exact test is the entry lo = max(0, the entering slabs' t), the same rationals as
 * seg_box_exact's, and lo <= hi. Without it (long translations) seg_box as is. */
static inline bool seg_node(const q_seg *s, int64_t lx, int64_t ly, int64_t ux, int64_t uy,
                            q_rat hi, q_rat *entry)
{
	if (!s->sat) {
		return seg_box(s, lx, ly, ux, uy, hi, entry);
	}
	if (!seg_maybe(s, lx, ly, ux, uy)) {
		return false;
	}
	lx -= s->gx; /* 0 for rays */
	ly -= s->gy;
	q_rat lo = {0, 1};
	if (s->dx > 0 && lx > s->ox) {
		lo.n = (uint64_t)(lx - s->ox);
		lo.d = (uint64_t)s->dx;
	} else if (s->dx < 0 && ux < s->ox) {
		lo.n = (uint64_t)(s->ox - ux);
		lo.d = (uint64_t)-s->dx;
	}
	if (s->dy > 0 && ly > s->oy) {
		q_rat t = {(uint64_t)(ly - s->oy), (uint64_t)s->dy};
		lo = rat_lt64(lo, t) ? t : lo;
	} else if (s->dy < 0 && uy < s->oy) {
		q_rat t = {(uint64_t)(s->oy - uy), (uint64_t)-s->dy};
		lo = rat_lt64(lo, t) ? t : lo;
	}
	if (rat_lt64(hi, lo)) {
		return false;
	}
	*entry = lo;
	return true;
}

/* For test_query: the fast test's and the exact test's answers for t in [0, hi], hi = h / 2^32
 * with the closest ray's shrunk bounds when h < 2^32, else hi = 1. */
void f2d_query_seg_tests(int64_t ox, int64_t oy, int64_t dx, int64_t dy, int64_t gx, int64_t gy,
                         uint64_t h, int64_t lx, int64_t ly, int64_t ux, int64_t uy, bool *maybe,
                         bool *exact, bool *node, bool *same_entry)
{
	q_seg s = make_seg(ox, oy, dx, dy, gx, gy);
	q_rat hi = {1, 1}, e = {0, 1};
	if (h < ((uint64_t)1 << 32)) {
		seg_shrink(&s, h);
		hi.n = h;
		hi.d = (uint64_t)1 << 32;
	}
	q_rat ne = {0, 0};
	*maybe = seg_maybe(&s, lx, ly, ux, uy);
	*exact = seg_box_exact(&s, lx, ly, ux, uy, hi, &e);
	*node = seg_node(&s, lx, ly, ux, uy, hi, &ne);
	*same_entry = *exact && *node && ne.n * e.d == e.n * ne.d;
}

static bool reserve_hits(f2d_world *w, int32_t need)
{
	return need <= w->query.hit_capacity ||
	       f2d_grow(w, &w->query.hits, &w->query.hit_capacity, need, sizeof(q_hit));
}

/* Candidates into hits[0, *count) (shape ids only): the shapes seen by filter whose box
 * overlaps the box (mode 0) or meets the segment (mode 1). */
static bool collect(f2d_world *w, int mode, const f2d_aabb *box, const q_seg *seg,
                    f2d_query_filter filter, int32_t *count)
{
	f2d_query_cache *q = &w->query;
	int32_t n = 0, stack[Q_STACK], sp = 0;
	q_rat one = {1, 1}, entry;
	if (q->node_count > 0) {
		stack[sp++] = q->node_count - 1;
	}
	while (sp > 0) {
		int32_t k = stack[--sp];
		const f2d_query_node *nd = &q->nodes[k];
		q->node_visits++;
		if (mode == 0 ? !(nd->lx <= box->upper.x && box->lower.x <= nd->ux &&
		                  nd->ly <= box->upper.y && box->lower.y <= nd->uy)
		              : !seg_box(seg, nd->lx, nd->ly, nd->ux, nd->uy, one, &entry)) {
			continue;
		}
		if (k >= q->leaf_count) {
			for (int32_t c = nd->first; c < nd->first + nd->count; ++c) {
				stack[sp++] = c;
			}
			continue;
		}
		for (int32_t i = nd->first; i < nd->first + nd->count; ++i) {
			const f2d_aabb *b = &q->boxes[i];
			q->shape_visits++;
			if (mode == 0 ? !box_overlap(box->lower.x, box->lower.y, box->upper.x,
			                             box->upper.y, b)
			              : !seg_box(seg, b->lower.x, b->lower.y, b->upper.x,
			                         b->upper.y, one, &entry)) {
				continue;
			}
			if (!query_sees(filter, &w->shapes[q->items[i]])) {
				continue;
			}
			if (!reserve_hits(w, n + 1)) {
				return false;
			}
			((q_hit *)q->hits)[n++].shape = q->items[i];
		}
	}
	*count = n;
	return true;
}

static int cmp_by_shape(const void *a, const void *b)
{
	int32_t x = ((const q_hit *)a)->shape, y = ((const q_hit *)b)->shape;
	return (x > y) - (x < y);
}

static int cmp_by_fraction(const void *a, const void *b)
{
	const q_hit *x = a, *y = b;
	if (x->t32 != y->t32) {
		return x->t32 < y->t32 ? -1 : 1;
	}
	return (x->shape > y->shape) - (x->shape < y->shape);
}

static inline f2d_shape_id shape_handle(const f2d_world *w, int32_t i)
{
	f2d_shape_id id = {i + 1, w->shapes[i].generation};
	return id;
}

/* Results are handed to callbacks from a buffer the query takes from the cache, so that a
 * callback may run queries (they make their own buffer) or change the world. */
typedef struct q_taken {
	q_hit *hits;
	int32_t capacity;
} q_taken;

static q_taken take_hits(f2d_world *w)
{
	q_taken t = {(q_hit *)w->query.hits, w->query.hit_capacity};
	w->query.hits = NULL;
	w->query.hit_capacity = 0;
	return t;
}

static void give_back_hits(f2d_world *w, q_taken t)
{
	if (w->query.hits == NULL) {
		w->query.hits = t.hits;
		w->query.hit_capacity = t.capacity;
	} else {
		f2d_free(w, t.hits, (size_t)t.capacity * sizeof(q_hit));
	}
}

static void deliver_overlaps(f2d_world *w, int32_t n, f2d_overlap_fcn *fcn, void *context)
{
	for (int32_t i = 0; i < n; ++i) {
		((q_hit *)w->query.hits)[i].id = shape_handle(w, ((q_hit *)w->query.hits)[i].shape);
	}
	q_taken t = take_hits(w);
	for (int32_t i = 0; i < n; ++i) {
		if (!fcn(t.hits[i].id, context)) {
			break;
		}
	}
	give_back_hits(w, t);
}

/* Box2D's b2CastResultFcn protocol, on hits sorted by (t32, shape id). */
static void deliver_casts(f2d_world *w, int32_t n, f2d_cast_fcn *fcn, void *context)
{
	for (int32_t i = 0; i < n; ++i) {
		((q_hit *)w->query.hits)[i].id = shape_handle(w, ((q_hit *)w->query.hits)[i].shape);
	}
	q_taken t = take_hits(w);
	fix16_t clip_at = F2D_ONE;
	for (int32_t i = 0; i < n; ++i) {
		const q_hit *h = &t.hits[i];
		if (h->fraction > clip_at) {
			break; /* sorted: every later hit is beyond the clip too */
		}
		fix16_t r = fcn(h->id, h->point, h->normal, h->fraction, context);
		if (r == 0) {
			break;
		}
		if (r > 0 && r < clip_at) {
			clip_at = r;
		}
	}
	give_back_hits(w, t);
}

/* ---- narrow phase on one shape ---- */

/* The ray p + t d, t in [0, hi], against shape si: a hit (never from inside) into *h. */
static bool ray_shape(const f2d_world *w, int32_t si, int64_t px, int64_t py, int64_t dx,
                      int64_t dy, q_rat hi, q_hit *h)
{
	q_core b, a;
	q_mink m;
	q_toi toi;
	const f2d_shape *s = &w->shapes[si];
	/* a polygon's edge normals only for the edge hit (the cast needs its vertices only): the
	 * same f2d_rotate core_of_polygon makes, for one edge instead of all */
	bool polygon = !f2d_shape_is_linear(s) && s->type == F2D_POLYGON_SHAPE;
	f2d_transform xf = f2d_body_xf(&w->bodies[s->body]);
	if (polygon) {
		const f2d_polygon *p = &s->polygon;
		b.count = p->count;
		b.radius = 0;
		for (int32_t i = 0; i < p->count; ++i) {
			f2d_vec2 v = f2d_xf_point(xf, p->vertices[i]);
			b.x[i] = v.x;
			b.y[i] = v.y;
			b.nx[i] = b.ny[i] = 0;
		}
	} else {
		f2d_core_of_shape(w, s, &b);
	}
	f2d_core_of_point(px, py, &a);
	f2d_minkowski(&b, &a, &m);
	if (f2d_mink_cast(&m, dx, dy, hi, &toi) != Q_HIT) {
		return false;
	}
	if (polygon && toi.kind == F_EDGE) {
		f2d_vec2 n = f2d_rotate(xf.q, s->polygon.normals[m.ib[toi.index]]);
		m.nx[toi.index] = n.x;
		m.ny[toi.index] = n.y;
	}
	/* a chain segment is one-sided: rays reach it from its front only (Box2D v3) */
	if (s->type == F2D_CHAIN_SEGMENT_SHAPE &&
	    (int64_t)b.nx[0] * dx + (int64_t)b.ny[0] * dy >= 0) {
		return false;
	}
	f2d_make_hit(&m, &b, &a, dx, dy, &toi, h);
	h->shape = si;
	return true;
}

/* ---- argument checks ---- */

static inline bool in_range(int64_t x, int64_t y)
{
	return x >= -F2D_QUERY_LIMIT && x <= F2D_QUERY_LIMIT && y >= -F2D_QUERY_LIMIT &&
	       y <= F2D_QUERY_LIMIT;
}

static f2d_result check_ray(f2d_world *w, f2d_vec2 origin, f2d_vec2 translation, const char *what)
{
	if (!in_range(origin.x, origin.y)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: origin outside |x|, |y| <= 16384 m (F2D_QUERY_LIMIT)",
		                     what);
	}
	if (!in_range((int64_t)origin.x + translation.x, (int64_t)origin.y + translation.y)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: origin + translation outside |x|, |y| <= 16384 m "
		                     "(F2D_QUERY_LIMIT)",
		                     what);
	}
	return F2D_OK;
}

/* A transform as bodies take it (a unit rotation within 1/64, as f2d_body_set_transform),
 * normalised the same way. */
static f2d_result check_xf(f2d_world *w, f2d_transform xf, const char *what, f2d_transform *out)
{
	if (!in_range(xf.p.x, xf.p.y)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: transform position outside |x|, |y| <= 16384 m", what);
	}
	f2d_rot q = xf.q;
	bool unit = false;
	if (q.c >= -2 * F2D_ONE && q.c <= 2 * F2D_ONE && q.s >= -2 * F2D_ONE &&
	    q.s <= 2 * F2D_ONE) {
		int64_t len2 = (int64_t)q.c * q.c + (int64_t)q.s * q.s;
		int64_t one = (int64_t)1 << 32;
		unit = len2 >= one - (one >> 6) && len2 <= one + (one >> 6);
	}
	if (!unit) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: transform rotation is not a unit (cos, sin) pair; use "
		                     "f2d_make_rot",
		                     what);
	}
	out->p = xf.p;
	out->q = f2d_rot_normalize(q.c, q.s);
	return F2D_OK;
}

static f2d_result check_query_shape(f2d_world *w, const f2d_query_shape *s, const char *what)
{
	if (s->type == F2D_CIRCLE_SHAPE) {
		const f2d_circle *c = &s->circle;
		if (c->radius < F2D_MIN_SHAPE_SIZE || c->radius > F2D_MAX_SHAPE_EXTENT ||
		    c->center.x < -F2D_MAX_SHAPE_EXTENT || c->center.x > F2D_MAX_SHAPE_EXTENT ||
		    c->center.y < -F2D_MAX_SHAPE_EXTENT || c->center.y > F2D_MAX_SHAPE_EXTENT ||
		    (int64_t)f2d_length(c->center) + c->radius > F2D_MAX_SHAPE_EXTENT) {
			return f2d_set_error(
			    w, F2D_ERROR_INVALID_VALUE,
			    "%s: circle radius must be in [0.005, 512] m and the circle "
			    "within 512 m of its origin",
			    what);
		}
		return F2D_OK;
	}
	if (s->type == F2D_CAPSULE_SHAPE) {
		if (!f2d_capsule_ok(&s->capsule)) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "%s: capsule radius must be in [0.005, 512] m, the "
			                     "centres >= 0.005 m apart, within 512 m of its origin",
			                     what);
		}
		return F2D_OK;
	}
	if (s->type != F2D_POLYGON_SHAPE) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: shape type must be F2D_CIRCLE_SHAPE, F2D_POLYGON_SHAPE "
		                     "or F2D_CAPSULE_SHAPE",
		                     what);
	}
	/* valid iff f2d_make_polygon rebuilds it exactly from its vertices */
	const f2d_polygon *p = &s->polygon;
	f2d_polygon again;
	bool ok = p->count >= 3 && p->count <= F2D_MAX_POLYGON_VERTICES &&
	          f2d_make_polygon(p->vertices, p->count, &again) == F2D_OK &&
	          again.centroid.x == p->centroid.x && again.centroid.y == p->centroid.y;
	for (int32_t i = 0; ok && i < p->count; ++i) {
		ok = again.vertices[i].x == p->vertices[i].x &&
		     again.vertices[i].y == p->vertices[i].y &&
		     again.normals[i].x == p->normals[i].x && again.normals[i].y == p->normals[i].y;
	}
	if (!ok) {
		return f2d_set_error(w, F2D_ERROR_BAD_POLYGON,
		                     "%s: not a polygon f2d_make_polygon makes (3..8 convex CCW "
		                     "vertices with their normals and centroid)",
		                     what);
	}
	return F2D_OK;
}

static const f2d_shape *get_shape(const f2d_world *w, f2d_shape_id id)
{
	if (id.index1 < 1 || id.index1 > w->shape_ids.next) {
		return NULL;
	}
	const f2d_shape *s = &w->shapes[id.index1 - 1];
	return s->alive && s->generation == id.generation ? s : NULL;
}

/* The query shape's core at xf (checked) and its AABB. */
static void query_core(const f2d_query_shape *s, f2d_transform xf, q_core *c, f2d_aabb *box)
{
	if (s->type == F2D_CAPSULE_SHAPE) {
		f2d_core_of_capsule(&s->capsule, xf, c);
	} else if (s->type == F2D_CIRCLE_SHAPE) {
		f2d_core_of_circle(&s->circle, xf, c);
	} else {
		f2d_core_of_polygon(&s->polygon, xf, c);
	}
	int64_t lx = c->x[0], ly = c->y[0], ux = c->x[0], uy = c->y[0];
	for (int32_t i = 1; i < c->count; ++i) {
		lx = c->x[i] < lx ? c->x[i] : lx;
		ly = c->y[i] < ly ? c->y[i] : ly;
		ux = c->x[i] > ux ? c->x[i] : ux;
		uy = c->y[i] > uy ? c->y[i] : uy;
	}
	/* within 16384 + 512 m + a radius of 512 m: below 2^31 */
	box->lower = f2d_v((fix16_t)(lx - c->radius), (fix16_t)(ly - c->radius));
	box->upper = f2d_v((fix16_t)(ux + c->radius), (fix16_t)(uy + c->radius));
}

/* ---- public ---- */

f2d_result f2d_world_query_aabb(f2d_world *w, f2d_aabb box, f2d_query_filter filter,
                                f2d_overlap_fcn *fcn, void *context)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (fcn == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT, "world_query_aabb: fcn is NULL");
	}
	if (box.lower.x > box.upper.x || box.lower.y > box.upper.y) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "world_query_aabb: inverted box (lower > upper on an axis)");
	}
	f2d_result r = ensure_tree(w, "world_query_aabb");
	if (r != F2D_OK) {
		return r;
	}
	int32_t n = 0;
	if (!collect(w, 0, &box, NULL, filter, &n)) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
		                     "world_query_aabb: allocator returned NULL");
	}
	if (n > 1) {
		qsort(w->query.hits, (size_t)n, sizeof(q_hit), cmp_by_shape);
	}
	deliver_overlaps(w, n, fcn, context);
	return F2D_OK;
}

/* Closest hit by (t32, id); a node or box is skipped when its exact entry is past
 * hi = min(1, (best t32 + 1) / 2^32): nothing in it can tie or beat the best. */
typedef struct q_entry {
	int32_t node;
	q_rat t;
} q_entry;

/* the closest ray's search: the ray, its segment (shrunk to the best hit), hi, the best hit */
typedef struct q_closest {
	f2d_vec2 origin, translation;
	f2d_query_filter filter;
	q_seg seg;
	q_rat hi;
	q_hit best;
	bool found;
} q_closest;

/* An inner node: its children that meet the segment onto the stack, farthest pushed first
 * (ties: higher index first), so that the nearest is searched first. */
static inline void closest_push_children(const f2d_query_cache *q, const q_closest *c,
                                         const f2d_query_node *nd, q_entry *stack, int32_t *sp)
{
	q_entry kids[Q_BRANCH];
	int32_t nk = 0;
	q_rat e;
	for (int32_t k = nd->first; k < nd->first + nd->count; ++k) {
		const f2d_query_node *cn = &q->nodes[k];
		if (!seg_node(&c->seg, cn->lx, cn->ly, cn->ux, cn->uy, c->hi, &e)) {
			continue;
		}
		int32_t j = nk++;
		while (j > 0 && rat_lt64(kids[j - 1].t, e)) {
			kids[j] = kids[j - 1];
			--j;
		}
		kids[j].node = k;
		kids[j].t = e;
	}
	for (int32_t j = 0; j < nk; ++j) {
		stack[(*sp)++] = kids[j];
	}
}

/* A hit of shape si: the new best when nearer (ties: the lower id); hi and the segment shrink
 * to it. */
static inline void closest_take(q_closest *c, const q_hit *h, int32_t si)
{
	bool better =
	    !c->found || h->t32 < c->best.t32 || (h->t32 == c->best.t32 && si < c->best.shape);
	if (!better) {
		return;
	}
	c->best = *h;
	c->found = true;
	const uint64_t one = (uint64_t)1 << 32;
	c->hi.n = c->best.t32 + 1 < one ? c->best.t32 + 1 : 1;
	c->hi.d = c->best.t32 + 1 < one ? one : 1;
	if (c->best.t32 + 1 < one) {
		seg_shrink(&c->seg, c->best.t32 + 1);
	}
}

/* A leaf: its shapes whose boxes meet the segment, nearest box entry first (ties: tree order),
 * each skipped once its entry is past hi: a nearer hit in the same leaf spares the narrow phase
 * of the shapes behind it. */
static inline void closest_leaf(f2d_world *w, q_closest *c, const f2d_query_node *nd)
{
	f2d_query_cache *q = &w->query;
	q_entry near[Q_BRANCH];
	int32_t nn = 0;
	q_rat e;
	for (int32_t i = nd->first; i < nd->first + nd->count; ++i) {
		const f2d_aabb *b = &q->boxes[i];
		q->shape_visits++;
		if (!seg_node(&c->seg, b->lower.x, b->lower.y, b->upper.x, b->upper.y, c->hi, &e)) {
			continue;
		}
		int32_t j = nn++;
		while (j > 0 && rat_lt64(e, near[j - 1].t)) {
			near[j] = near[j - 1];
			--j;
		}
		near[j].node = i;
		near[j].t = e;
	}
	for (int32_t j = 0; j < nn; ++j) {
		int32_t si = q->items[near[j].node];
		q_hit h;
		if ((c->found && rat_lt64(c->hi, near[j].t)) ||
		    !query_sees(c->filter, &w->shapes[si]) ||
		    !ray_shape(w, si, c->origin.x, c->origin.y, c->translation.x, c->translation.y,
		               c->hi, &h)) {
			continue;
		}
		closest_take(c, &h, si);
	}
}

/* The tree searched nearest first from the root (a stack of at most Q_STACK entries); whether
 * the ray hits a shape, the closest hit into *best. The search state is this function's own
 * (the helpers are inlined into it), so that it stays in registers across the counters' stores. */
static bool closest_search(f2d_world *w, f2d_vec2 origin, f2d_vec2 translation,
                           f2d_query_filter filter, q_hit *best)
{
	f2d_query_cache *q = &w->query;
	q_closest c;
	c.origin = origin;
	c.translation = translation;
	c.filter = filter;
	c.seg = make_seg(origin.x, origin.y, translation.x, translation.y, 0, 0);
	c.hi.n = c.hi.d = 1;
	memset(&c.best, 0, sizeof c.best);
	c.found = false;
	q_entry stack[Q_STACK];
	int32_t sp = 0;
	q_rat e;
	if (q->node_count > 0) {
		const f2d_query_node *root = &q->nodes[q->node_count - 1];
		if (seg_node(&c.seg, root->lx, root->ly, root->ux, root->uy, c.hi, &e)) {
			stack[sp].node = q->node_count - 1;
			stack[sp++].t = e;
		}
	}
	while (sp > 0) {
		q_entry top = stack[--sp];
		if (c.found && rat_lt64(c.hi, top.t)) {
			continue;
		}
		const f2d_query_node *nd = &q->nodes[top.node];
		q->node_visits++;
		if (top.node >= q->leaf_count) {
			closest_push_children(q, &c, nd, stack, &sp);
		} else {
			closest_leaf(w, &c, nd);
		}
	}
	*best = c.best;
	return c.found;
}

f2d_result f2d_world_cast_ray_closest(f2d_world *w, f2d_vec2 origin, f2d_vec2 translation,
                                      f2d_query_filter filter, f2d_ray_result *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (out == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "world_cast_ray_closest: out is NULL");
	}
	memset(out, 0, sizeof *out);
	f2d_result r = check_ray(w, origin, translation, "world_cast_ray_closest");
	if (r == F2D_OK) {
		r = ensure_tree(w, "world_cast_ray_closest");
	}
	if (r != F2D_OK) {
		return r;
	}
	q_hit best;
	if (closest_search(w, origin, translation, filter, &best)) {
		out->shape = shape_handle(w, best.shape);
		out->point = best.point;
		out->normal = best.normal;
		out->fraction = best.fraction;
		out->hit = true;
	}
	return F2D_OK;
}

f2d_result f2d_world_cast_ray(f2d_world *w, f2d_vec2 origin, f2d_vec2 translation,
                              f2d_query_filter filter, f2d_cast_fcn *fcn, void *context)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (fcn == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT, "world_cast_ray: fcn is NULL");
	}
	f2d_result r = check_ray(w, origin, translation, "world_cast_ray");
	if (r == F2D_OK) {
		r = ensure_tree(w, "world_cast_ray");
	}
	if (r != F2D_OK) {
		return r;
	}
	q_seg seg = make_seg(origin.x, origin.y, translation.x, translation.y, 0, 0);
	int32_t n = 0, m = 0;
	if (!collect(w, 1, NULL, &seg, filter, &n)) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
		                     "world_cast_ray: allocator returned NULL");
	}
	q_hit *hits = w->query.hits;
	q_rat one = {1, 1};
	for (int32_t i = 0; i < n; ++i) {
		q_hit h;
		if (ray_shape(w, hits[i].shape, origin.x, origin.y, translation.x, translation.y,
		              one, &h)) {
			hits[m++] = h;
		}
	}
	if (m > 1) {
		qsort(hits, (size_t)m, sizeof(q_hit), cmp_by_fraction);
	}
	deliver_casts(w, m, fcn, context);
	return F2D_OK;
}

f2d_result f2d_world_overlap_shape(f2d_world *w, const f2d_query_shape *shape, f2d_transform xf,
                                   f2d_query_filter filter, f2d_overlap_fcn *fcn, void *context)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (shape == NULL || fcn == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "world_overlap_shape: shape and fcn are required");
	}
	f2d_transform t;
	f2d_result r = check_query_shape(w, shape, "world_overlap_shape");
	if (r == F2D_OK) {
		r = check_xf(w, xf, "world_overlap_shape", &t);
	}
	if (r == F2D_OK) {
		r = ensure_tree(w, "world_overlap_shape");
	}
	if (r != F2D_OK) {
		return r;
	}
	q_core a, b;
	q_mink mk;
	f2d_aabb box;
	query_core(shape, t, &a, &box);
	int32_t n = 0, m = 0;
	if (!collect(w, 0, &box, NULL, filter, &n)) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
		                     "world_overlap_shape: allocator returned NULL");
	}
	q_hit *hits = w->query.hits;
	for (int32_t i = 0; i < n; ++i) {
		int32_t si = hits[i].shape;
		f2d_core_of_shape(w, &w->shapes[si], &b);
		f2d_minkowski(&b, &a, &mk);
		if (f2d_mink_contains_origin(&mk)) {
			hits[m++].shape = si;
		}
	}
	if (m > 1) {
		qsort(hits, (size_t)m, sizeof(q_hit), cmp_by_shape);
	}
	deliver_overlaps(w, m, fcn, context);
	return F2D_OK;
}

/* world_cast_shape's checks after the arguments': the shape, the transform (into *t), the end
 * of the cast inside the query range, the tree; F2D_OK, or the first error, set. */
static f2d_result check_cast_shape(f2d_world *w, const f2d_query_shape *shape, f2d_transform xf,
                                   f2d_vec2 translation, f2d_transform *t)
{
	f2d_result r = check_query_shape(w, shape, "world_cast_shape");
	if (r == F2D_OK) {
		r = check_xf(w, xf, "world_cast_shape", t);
	}
	if (r == F2D_OK &&
	    !in_range((int64_t)xf.p.x + translation.x, (int64_t)xf.p.y + translation.y)) {
		r = f2d_set_error(
		    w, F2D_ERROR_INVALID_VALUE,
		    "world_cast_shape: xf.p + translation outside |x|, |y| <= 16384 m");
	}
	if (r == F2D_OK) {
		r = ensure_tree(w, "world_cast_shape");
	}
	return r;
}

/* The exact cast of the query core a (at t) along translation against each of the n shapes
 * that collect left in w->query.hits, in their order: the hits kept at the front of the array
 * (a shape the query starts inside at fraction 0, zero normal, the point t.p); returns how
 * many. */
static int32_t cast_shape_hits(f2d_world *w, const q_core *a, f2d_transform t, f2d_vec2 translation,
                               int32_t n)
{
	q_hit *hits = w->query.hits;
	q_rat one = {1, 1};
	q_core b;
	q_mink mk;
	q_toi toi;
	int32_t m = 0;
	for (int32_t i = 0; i < n; ++i) {
		int32_t si = hits[i].shape;
		f2d_core_of_shape(w, &w->shapes[si], &b);
		f2d_minkowski(&b, a, &mk);
		int32_t k = f2d_mink_cast(&mk, translation.x, translation.y, one, &toi);
		q_hit h;
		if (k == Q_MISS) {
			continue;
		}
		if (k == Q_INSIDE) {
			h.t32 = 0;
			h.fraction = 0;
			h.normal = f2d_v(0, 0);
			h.point = t.p;
		} else {
			f2d_make_hit(&mk, &b, a, translation.x, translation.y, &toi, &h);
		}
		h.shape = si;
		hits[m++] = h;
	}
	return m;
}

f2d_result f2d_world_cast_shape(f2d_world *w, const f2d_query_shape *shape, f2d_transform xf,
                                f2d_vec2 translation, f2d_query_filter filter, f2d_cast_fcn *fcn,
                                void *context)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (shape == NULL || fcn == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "world_cast_shape: shape and fcn are required");
	}
	f2d_transform t;
	f2d_result r = check_cast_shape(w, shape, xf, translation, &t);
	if (r != F2D_OK) {
		return r;
	}
	q_core a;
	f2d_aabb box;
	query_core(shape, t, &a, &box);
	/* the box's lower corner swept against boxes grown by the query box's size */
	q_seg seg =
	    make_seg(box.lower.x, box.lower.y, translation.x, translation.y,
	             (int64_t)box.upper.x - box.lower.x, (int64_t)box.upper.y - box.lower.y);
	int32_t n = 0;
	if (!collect(w, 1, NULL, &seg, filter, &n)) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
		                     "world_cast_shape: allocator returned NULL");
	}
	int32_t m = cast_shape_hits(w, &a, t, translation, n);
	if (m > 1) {
		qsort(w->query.hits, (size_t)m, sizeof(q_hit), cmp_by_fraction);
	}
	deliver_casts(w, m, fcn, context);
	return F2D_OK;
}

/* ---- continuous collision (toi.c) ----
 * The exact translational cast of world_cast_shape, between two of the world's shapes: a at
 * transform xf (its radius grown by extra) moved by d, against b where its body is. Positions
 * within the world range (8192 m) plus 512 m of shape, |d| <= 64 m: inside the 16384 m the
 * casts take. */
int64_t f2d_sweep_shapes(const f2d_world *w, const f2d_shape *a, f2d_transform xf, f2d_vec2 d,
                         const f2d_shape *b, fix16_t extra)
{
	q_core ca, cb;
	if (f2d_shape_is_linear(a)) {
		f2d_core_of_capsule(&a->capsule, xf, &ca);
	} else if (a->type == F2D_CIRCLE_SHAPE) {
		f2d_core_of_circle(&a->circle, xf, &ca);
	} else {
		f2d_core_of_polygon(&a->polygon, xf, &ca);
	}
	ca.radius += extra;
	f2d_core_of_shape(w, b, &cb);
	q_mink mk;
	f2d_minkowski(&cb, &ca, &mk);
	q_toi toi;
	q_rat one = {1, 1};
	int32_t k = f2d_mink_cast(&mk, d.x, d.y, one, &toi);
	if (k == Q_INSIDE) {
		return -2;
	}
	return k == Q_HIT ? (int64_t)f2d_rat_t32(toi.t) : -1;
}

f2d_result f2d_shape_ray_cast(f2d_world *w, f2d_shape_id shape, f2d_vec2 origin,
                              f2d_vec2 translation, f2d_ray_result *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (out == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT, "shape_ray_cast: out is NULL");
	}
	memset(out, 0, sizeof *out);
	const f2d_shape *s = get_shape(w, shape);
	if (s == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "shape_ray_cast: null, stale or foreign shape handle");
	}
	f2d_result r = check_ray(w, origin, translation, "shape_ray_cast");
	if (r != F2D_OK) {
		return r;
	}
	q_rat one = {1, 1};
	q_hit h;
	if (ray_shape(w, shape.index1 - 1, origin.x, origin.y, translation.x, translation.y, one,
	              &h)) {
		out->shape = shape;
		out->point = h.point;
		out->normal = h.normal;
		out->fraction = h.fraction;
		out->hit = true;
	}
	return F2D_OK;
}

f2d_result f2d_shape_test_point(f2d_world *w, f2d_shape_id shape, f2d_vec2 point, bool *inside)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (inside == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "shape_test_point: inside is NULL");
	}
	const f2d_shape *s = get_shape(w, shape);
	if (s == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "shape_test_point: null, stale or foreign shape handle");
	}
	if (!in_range(point.x, point.y)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "shape_test_point: point outside |x|, |y| <= 16384 m");
	}
	q_core a, b;
	q_mink m;
	f2d_core_of_shape(w, s, &b);
	f2d_core_of_point(point.x, point.y, &a);
	f2d_minkowski(&b, &a, &m);
	*inside = f2d_mink_contains_origin(&m);
	return F2D_OK;
}
