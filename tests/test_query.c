/* fix2d tests: queries (src/query.c).
 * SPDX-License-Identifier: MIT
 *
 * Two references:
 *  - brute force with the library's own per-shape functions (f2d_shape_ray_cast, the tight AABB
 *    f2d_shape_get_aabb): the world queries, which go through the tree, must give exactly the
 *    same results (set, fraction, point, normal) in the documented order;
 *  - an independent double-precision geometry (tests may use double): for a caster A (a point,
 *    circle or polygon) moving by t d and a target B, f(t) is the SAT separation (polygons) or
 *    the signed distance (with a circle), convex in t. A ray or cast must hit iff min f <= 0, at
 *    the first root of f; the reference brackets it between the roots of f = +eps and f = -eps
 *    (eps = 1 mm) and skips the cases that eps makes ambiguous (grazing, starting on the surface),
 *    counting them.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "test_rng.h"

static uint64_t rng_state;
static uint64_t next_u64(void)
{
	return test_splitmix(&rng_state);
}
/* uniform fix16 in [lo, hi] */
static fix16_t rnd(fix16_t lo, fix16_t hi)
{
	return lo + (fix16_t)(next_u64() % ((uint64_t)((int64_t)hi - lo) + 1));
}
static double d16(fix16_t v)
{
	return v / 65536.0;
}

/* ---- double geometry ---- */
typedef struct dshape {
	int count; /* 1: circle */
	double x[8], y[8], nx[8], ny[8], r;
} dshape;

static void dshape_of(const f2d_query_shape *qs, f2d_transform xf, dshape *d)
{
	double c = d16(xf.q.c), s = d16(xf.q.s), len = sqrt(c * c + s * s);
	c /= len;
	s /= len;
	if (qs->type == F2D_CIRCLE_SHAPE) {
		d->count = 1;
		double lx = d16(qs->circle.center.x), ly = d16(qs->circle.center.y);
		d->x[0] = c * lx - s * ly + d16(xf.p.x);
		d->y[0] = s * lx + c * ly + d16(xf.p.y);
		d->r = d16(qs->circle.radius);
		return;
	}
	d->count = qs->polygon.count;
	d->r = 0;
	for (int i = 0; i < d->count; ++i) {
		double lx = d16(qs->polygon.vertices[i].x), ly = d16(qs->polygon.vertices[i].y);
		d->x[i] = c * lx - s * ly + d16(xf.p.x);
		d->y[i] = s * lx + c * ly + d16(xf.p.y);
	}
	for (int i = 0; i < d->count; ++i) {
		int j = (i + 1) % d->count;
		double ex = d->x[j] - d->x[i], ey = d->y[j] - d->y[i], l = sqrt(ex * ex + ey * ey);
		d->nx[i] = ey / l;
		d->ny[i] = -ex / l;
	}
}

/* signed distance from (px, py) to polygon d (exact outside, max edge separation inside) */
static double sd_polygon(const dshape *d, double px, double py)
{
	double best = -1e30;
	for (int i = 0; i < d->count; ++i) {
		double s = d->nx[i] * (px - d->x[i]) + d->ny[i] * (py - d->y[i]);
		best = s > best ? s : best;
	}
	if (best <= 0) {
		return best;
	}
	double m = 1e30;
	for (int i = 0; i < d->count; ++i) {
		int j = (i + 1) % d->count;
		double ex = d->x[j] - d->x[i], ey = d->y[j] - d->y[i];
		double u = ((px - d->x[i]) * ex + (py - d->y[i]) * ey) / (ex * ex + ey * ey);
		u = u < 0 ? 0 : (u > 1 ? 1 : u);
		double qx = d->x[i] + u * ex - px, qy = d->y[i] + u * ey - py;
		double l = sqrt(qx * qx + qy * qy);
		m = l < m ? l : m;
	}
	return m;
}

/* f(t): A moved by t (dx, dy) against B; <= 0 iff they overlap. Convex in t. */
static double sep(const dshape *a, const dshape *b, double t, double dx, double dy)
{
	double ox = t * dx, oy = t * dy;
	if (a->count == 1 && b->count == 1) {
		double x = a->x[0] + ox - b->x[0], y = a->y[0] + oy - b->y[0];
		return sqrt(x * x + y * y) - a->r - b->r;
	}
	if (a->count == 1) {
		return sd_polygon(b, a->x[0] + ox, a->y[0] + oy) - a->r;
	}
	if (b->count == 1) {
		return sd_polygon(a, b->x[0] - ox, b->y[0] - oy) - b->r;
	}
	double best = -1e30;
	for (int i = 0; i < b->count; ++i) { /* B's axes against A's vertices */
		double m = 1e30;
		for (int j = 0; j < a->count; ++j) {
			double s = b->nx[i] * (a->x[j] + ox - b->x[i]) + b->ny[i] * (a->y[j] + oy - b->y[i]);
			m = s < m ? s : m;
		}
		best = m > best ? m : best;
	}
	for (int i = 0; i < a->count; ++i) {
		double m = 1e30;
		for (int j = 0; j < b->count; ++j) {
			double s = a->nx[i] * (b->x[j] - a->x[i] - ox) + a->ny[i] * (b->y[j] - a->y[i] - oy);
			m = s < m ? s : m;
		}
		best = m > best ? m : best;
	}
	return best;
}

/* bounding circle of a shape */
static void bound(const dshape *d, double *cx, double *cy, double *r)
{
	double x = 0, y = 0, m = 0;
	for (int i = 0; i < d->count; ++i) {
		x += d->x[i] / d->count;
		y += d->y[i] / d->count;
	}
	for (int i = 0; i < d->count; ++i) {
		double l = sqrt((d->x[i] - x) * (d->x[i] - x) + (d->y[i] - y) * (d->y[i] - y));
		m = l > m ? l : m;
	}
	*cx = x;
	*cy = y;
	*r = m + d->r;
}

/* min of f on [0, 1] (ternary search; f convex) and the first t with f(t) <= c, or -1 */
static double first_root(const dshape *a, const dshape *b, double dx, double dy, double c)
{
	/* quick answer: the bounding circles never come within 1 cm (then f > c for |c| <= 1 mm) */
	double ax, ay, ar, bx, by, br;
	bound(a, &ax, &ay, &ar);
	bound(b, &bx, &by, &br);
	double l2 = dx * dx + dy * dy, u = l2 > 0 ? ((bx - ax) * dx + (by - ay) * dy) / l2 : 0;
	u = u < 0 ? 0 : (u > 1 ? 1 : u);
	double qx = ax + u * dx - bx, qy = ay + u * dy - by;
	if (sqrt(qx * qx + qy * qy) > ar + br + 1e-2) {
		return -1;
	}
	if (sep(a, b, 0, dx, dy) <= c) {
		return 0;
	}
	double lo = 0, hi = 1;
	for (int i = 0; i < 100; ++i) {
		double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
		if (sep(a, b, m1, dx, dy) < sep(a, b, m2, dx, dy)) {
			hi = m2;
		} else {
			lo = m1;
		}
	}
	double tmin = (lo + hi) / 2;
	if (sep(a, b, tmin, dx, dy) > c) {
		return -1;
	}
	lo = 0;
	hi = tmin;
	for (int i = 0; i < 80; ++i) {
		double m = (lo + hi) / 2;
		if (sep(a, b, m, dx, dy) <= c) {
			hi = m;
		} else {
			lo = m;
		}
	}
	return hi;
}

/* ---- random worlds ---- */
typedef struct tworld {
	f2d_world *w;
	int n;
	f2d_shape_id shapes[1200];
	f2d_query_shape local[1200]; /* each shape's local geometry */
} tworld;

static void random_local(f2d_query_shape *qs, fix16_t size)
{
	memset(qs, 0, sizeof *qs);
	int kind = (int)(next_u64() % 3);
	if (kind == 0) {
		qs->type = F2D_CIRCLE_SHAPE;
		qs->circle.radius = rnd(F2D_MILLI(50), size);
		qs->circle.center = f2d_v(rnd(-size / 2, size / 2), rnd(-size / 2, size / 2));
		return;
	}
	qs->type = F2D_POLYGON_SHAPE;
	if (kind == 1) {
		ck_assert_int_eq(f2d_make_box(rnd(F2D_MILLI(50), size), rnd(F2D_MILLI(50), size),
		                              &qs->polygon),
		                 F2D_OK);
		return;
	}
	for (;;) { /* points on a circle at sorted random angles: convex, CCW */
		int n = 3 + (int)(next_u64() % 6);
		fix16_t ang[8];
		for (int i = 0; i < n; ++i) {
			ang[i] = rnd(0, 411774); /* [0, 2 pi) */
		}
		for (int i = 1; i < n; ++i) {
			for (int j = i; j > 0 && ang[j - 1] > ang[j]; --j) {
				fix16_t t = ang[j];
				ang[j] = ang[j - 1];
				ang[j - 1] = t;
			}
		}
		fix16_t r = rnd(F2D_MILLI(100), size);
		f2d_vec2 p[8];
		for (int i = 0; i < n; ++i) {
			f2d_rot q = f2d_make_rot(ang[i]);
			p[i] = f2d_v(f2d_mul(r, q.c), f2d_mul(r, q.s));
		}
		if (f2d_make_polygon(p, n, &qs->polygon) == F2D_OK) {
			return;
		}
	}
}

static void make_world(tworld *t, int n, fix16_t half, fix16_t size)
{
	f2d_world_def wd = f2d_default_world_def();
	ck_assert_int_eq(f2d_create_world(&wd, &t->w), F2D_OK);
	t->n = n;
	for (int i = 0; i < n; ++i) {
		f2d_body_def bd = f2d_default_body_def();
		bd.position = f2d_v(rnd(-half, half), rnd(-half, half));
		bd.rotation = f2d_make_rot(rnd(-205887, 205887));
		f2d_body_id b;
		ck_assert_int_eq(f2d_create_body(t->w, &bd, &b), F2D_OK);
		random_local(&t->local[i], size);
		f2d_shape_def sd = f2d_default_shape_def();
		f2d_result r = t->local[i].type == F2D_CIRCLE_SHAPE
		                   ? f2d_create_circle_shape(t->w, b, &sd, &t->local[i].circle,
		                                             &t->shapes[i])
		                   : f2d_create_polygon_shape(t->w, b, &sd, &t->local[i].polygon,
		                                              &t->shapes[i]);
		ck_assert_int_eq(r, F2D_OK);
	}
}

static void world_dshape(const tworld *t, int i, dshape *d)
{
	f2d_body_id b = f2d_shape_get_body(t->w, t->shapes[i]);
	dshape_of(&t->local[i], f2d_body_get_transform(t->w, b), d);
}

/* ---- collectors ---- */
typedef struct hitlist {
	int n;
	f2d_shape_id id[2000];
	f2d_vec2 point[2000], normal[2000];
	fix16_t fraction[2000];
	fix16_t answer; /* what the cast callback returns */
	int stop_after; /* overlap: stop after this many (0: never) */
} hitlist;

static fix16_t cast_cb(f2d_shape_id s, f2d_vec2 p, f2d_vec2 n, fix16_t f, void *c)
{
	hitlist *h = c;
	ck_assert_int_lt(h->n, 2000);
	h->id[h->n] = s;
	h->point[h->n] = p;
	h->normal[h->n] = n;
	h->fraction[h->n++] = f;
	return h->answer;
}

static bool overlap_cb(f2d_shape_id s, void *c)
{
	hitlist *h = c;
	ck_assert_int_lt(h->n, 2000);
	h->id[h->n++] = s;
	return h->stop_after == 0 || h->n < h->stop_after;
}

static const double EPS = 1e-3;

/* normal check: unit length */
static void check_unit(f2d_vec2 n)
{
	double l = sqrt(d16(n.x) * d16(n.x) + d16(n.y) * d16(n.y));
	ck_assert_msg(fabs(l - 1) < 2e-3, "normal length %f", l);
}

/* The normal at a surface point: the gradient of B's signed distance 1 cm out along it. */
static bool normal_fits(const dshape *b, double px, double py, f2d_vec2 n)
{
	double nx = d16(n.x), ny = d16(n.y), g = 1e-4, qx = px + nx * 1e-2, qy = py + ny * 1e-2;
	dshape p1 = {1, {qx + g}, {qy}, {0}, {0}, 0}, p2 = {1, {qx - g}, {qy}, {0}, {0}, 0};
	dshape p3 = {1, {qx}, {qy + g}, {0}, {0}, 0}, p4 = {1, {qx}, {qy - g}, {0}, {0}, 0};
	double gx = (sep(&p1, b, 0, 0, 0) - sep(&p2, b, 0, 0, 0)) / (2 * g);
	double gy = (sep(&p3, b, 0, 0, 0) - sep(&p4, b, 0, 0, 0)) / (2 * g);
	return gx * nx + gy * ny > 0.9;
}

/* ---- rays ---- */
START_TEST(rays_match_brute_force_and_double_reference)
{
	rng_state = 12345;
	tworld *t = calloc(1, sizeof *t);
	make_world(t, 300, F2D_FIX(40), F2D_FIX(3));
	f2d_query_filter all = f2d_default_query_filter();
	hitlist *hl = calloc(1, sizeof *hl);
	dshape *ds = calloc((size_t)t->n, sizeof *ds);
	for (int i = 0; i < t->n; ++i) {
		world_dshape(t, i, &ds[i]);
	}
	long compared = 0, skipped = 0, hits = 0;
	for (int k = 0; k < 1200; ++k) {
		f2d_vec2 o = f2d_v(rnd(-F2D_FIX(50), F2D_FIX(50)), rnd(-F2D_FIX(50), F2D_FIX(50)));
		fix16_t len = k % 4 == 0 ? F2D_FIX(100) : F2D_FIX(10);
		f2d_vec2 d = f2d_v(rnd(-len, len), rnd(-len, len));
		/* brute force: every shape, by f2d_shape_ray_cast */
		f2d_ray_result bf[300];
		int bf_n = 0;
		fix16_t best = INT32_MAX;
		for (int i = 0; i < t->n; ++i) {
			ck_assert_int_eq(f2d_shape_ray_cast(t->w, t->shapes[i], o, d, &bf[i]), F2D_OK);
			/* against the double reference */
			dshape pt = {1, {d16(o.x)}, {d16(o.y)}, {0}, {0}, 0};
			double dx = d16(d.x), dy = d16(d.y);
			double f0 = sep(&pt, &ds[i], 0, dx, dy);
			double t_out = first_root(&pt, &ds[i], dx, dy, EPS);
			double t_in = first_root(&pt, &ds[i], dx, dy, -EPS);
			if (f0 < -EPS || (t_out < 0)) {
				ck_assert_msg(!bf[i].hit, "ray %d shape %d: hit, reference: none", k, i);
				++compared;
			} else if (f0 > EPS && t_in >= 0) {
				ck_assert_msg(bf[i].hit, "ray %d shape %d: no hit, reference hits", k, i);
				double f = d16(bf[i].fraction);
				ck_assert_msg(f >= t_out - 2.0 / 65536 && f <= t_in + 2.0 / 65536,
				              "ray %d shape %d: fraction %f not in [%f, %f]", k, i, f, t_out,
				              t_in);
				double px = d16(bf[i].point.x), py = d16(bf[i].point.y);
				double sd = ds[i].count == 1
				                ? sqrt((px - ds[i].x[0]) * (px - ds[i].x[0]) +
				                       (py - ds[i].y[0]) * (py - ds[i].y[0])) -
				                      ds[i].r
				                : sd_polygon(&ds[i], px, py);
				ck_assert_msg(fabs(sd) < 2e-3, "ray %d shape %d: point off the surface by %f",
				              k, i, sd);
				check_unit(bf[i].normal);
				ck_assert_msg(normal_fits(&ds[i], px, py, bf[i].normal),
				              "ray %d shape %d: normal (%f, %f) at (%f, %f)", k, i,
				              d16(bf[i].normal.x), d16(bf[i].normal.y), px, py);
				++compared;
				++hits;
			} else {
				++skipped;
			}
			if (bf[i].hit) {
				++bf_n;
				best = bf[i].fraction < best ? bf[i].fraction : best;
			}
		}
		/* every hit through the tree: the same set, by fraction */
		hl->n = 0;
		hl->answer = F2D_ONE;
		ck_assert_int_eq(f2d_world_cast_ray(t->w, o, d, all, cast_cb, hl), F2D_OK);
		ck_assert_int_eq(hl->n, bf_n);
		for (int j = 0; j < hl->n; ++j) {
			int i = hl->id[j].index1 - 1;
			ck_assert(bf[i].hit);
			ck_assert_int_eq(hl->id[j].generation, t->shapes[i].generation);
			ck_assert_int_eq(hl->fraction[j], bf[i].fraction);
			ck_assert_int_eq(hl->point[j].x, bf[i].point.x);
			ck_assert_int_eq(hl->point[j].y, bf[i].point.y);
			ck_assert_int_eq(hl->normal[j].x, bf[i].normal.x);
			ck_assert_int_eq(hl->normal[j].y, bf[i].normal.y);
			if (j > 0) {
				ck_assert_int_le(hl->fraction[j - 1], hl->fraction[j]);
				ck_assert_int_ne(hl->id[j - 1].index1, hl->id[j].index1);
			}
		}
		/* the closest: the first of that list, at the least fraction */
		f2d_ray_result c;
		ck_assert_int_eq(f2d_world_cast_ray_closest(t->w, o, d, all, &c), F2D_OK);
		ck_assert_int_eq(c.hit, bf_n > 0);
		if (c.hit) {
			ck_assert_int_eq(c.fraction, best);
			ck_assert_int_eq(c.shape.index1, hl->id[0].index1);
			ck_assert_int_eq(c.point.x, hl->point[0].x);
			ck_assert_int_eq(c.point.y, hl->point[0].y);
			ck_assert_int_eq(c.normal.x, hl->normal[0].x);
			ck_assert_int_eq(c.normal.y, hl->normal[0].y);
		}
	}
	ck_assert_msg(hits > 1500 && skipped * 50 < compared, "compared %ld (hits %ld), skipped %ld",
	              compared, hits, skipped);
	printf("rays: %ld ray-shape pairs compared with the double reference (%ld hits), %ld "
	       "ambiguous skipped\n",
	       compared, hits, skipped);
	free(ds);
	free(hl);
	f2d_destroy_world(t->w);
	free(t);
}
END_TEST

/* ---- AABB, overlap and cast of shapes ---- */
START_TEST(aabb_overlap_and_cast_match_references)
{
	rng_state = 777;
	tworld *t = calloc(1, sizeof *t);
	make_world(t, 250, F2D_FIX(30), F2D_FIX(3));
	f2d_query_filter all = f2d_default_query_filter();
	hitlist *hl = calloc(1, sizeof *hl);
	dshape *ds = calloc((size_t)t->n, sizeof *ds);
	for (int i = 0; i < t->n; ++i) {
		world_dshape(t, i, &ds[i]);
	}
	long ov_cmp = 0, ov_skip = 0, cast_cmp = 0, cast_skip = 0, cast_hits = 0, aabb_total = 0;
	for (int k = 0; k < 1000; ++k) {
		/* AABB: exactly the shapes whose tight AABB overlaps, by id */
		f2d_aabb box;
		box.lower = f2d_v(rnd(-F2D_FIX(35), F2D_FIX(35)), rnd(-F2D_FIX(35), F2D_FIX(35)));
		box.upper = f2d_v(box.lower.x + rnd(0, F2D_FIX(8)), box.lower.y + rnd(0, F2D_FIX(8)));
		hl->n = 0;
		hl->stop_after = 0;
		ck_assert_int_eq(f2d_world_query_aabb(t->w, box, all, overlap_cb, hl), F2D_OK);
		int j = 0;
		for (int i = 0; i < t->n; ++i) {
			f2d_aabb b = f2d_shape_get_aabb(t->w, t->shapes[i]);
			if (b.lower.x <= box.upper.x && box.lower.x <= b.upper.x &&
			    b.lower.y <= box.upper.y && box.lower.y <= b.upper.y) {
				ck_assert_int_lt(j, hl->n);
				ck_assert_int_eq(hl->id[j].index1, t->shapes[i].index1);
				++j;
			}
		}
		ck_assert_int_eq(j, hl->n);
		aabb_total += j;

		/* a query shape at a random transform */
		f2d_query_shape qs;
		random_local(&qs, F2D_FIX(2));
		f2d_transform xf = {f2d_v(rnd(-F2D_FIX(35), F2D_FIX(35)), rnd(-F2D_FIX(35), F2D_FIX(35))),
		                    f2d_make_rot(rnd(-205887, 205887))};
		dshape a;
		dshape_of(&qs, xf, &a);
		hl->n = 0;
		ck_assert_int_eq(f2d_world_overlap_shape(t->w, &qs, xf, all, overlap_cb, hl), F2D_OK);
		j = 0;
		for (int i = 0; i < t->n; ++i) {
			bool listed = j < hl->n && hl->id[j].index1 == t->shapes[i].index1;
			j += listed;
			double f = sep(&a, &ds[i], 0, 0, 0);
			if (f < -EPS) {
				ck_assert_msg(listed, "overlap %d shape %d: not listed, sep %f", k, i, f);
				++ov_cmp;
			} else if (f > EPS) {
				ck_assert_msg(!listed, "overlap %d shape %d: listed, sep %f", k, i, f);
				++ov_cmp;
			} else {
				++ov_skip;
			}
		}
		ck_assert_int_eq(j, hl->n); /* listed in id order, each once */

		/* the same shape swept */
		fix16_t len = F2D_FIX(k % 3 == 0 ? 40 : 8);
		f2d_vec2 d = f2d_v(rnd(-len, len), rnd(-len, len));
		hl->n = 0;
		hl->answer = F2D_ONE;
		ck_assert_int_eq(f2d_world_cast_shape(t->w, &qs, xf, d, all, cast_cb, hl), F2D_OK);
		for (int m = 1; m < hl->n; ++m) {
			ck_assert_int_le(hl->fraction[m - 1], hl->fraction[m]);
		}
		for (int i = 0; i < t->n; ++i) {
			int at = -1;
			for (int m = 0; m < hl->n; ++m) {
				if (hl->id[m].index1 == t->shapes[i].index1) {
					ck_assert_int_eq(at, -1);
					at = m;
				}
			}
			double dx = d16(d.x), dy = d16(d.y);
			double f0 = sep(&a, &ds[i], 0, dx, dy);
			double t_out = first_root(&a, &ds[i], dx, dy, EPS);
			double t_in = first_root(&a, &ds[i], dx, dy, -EPS);
			if (f0 < -EPS) { /* overlapping at the start: fraction 0, no normal */
				ck_assert_msg(at >= 0, "cast %d shape %d: initial overlap not reported", k, i);
				ck_assert_int_eq(hl->fraction[at], 0);
				ck_assert_int_eq(hl->normal[at].x, 0);
				ck_assert_int_eq(hl->normal[at].y, 0);
				++cast_cmp;
			} else if (t_out < 0) {
				ck_assert_msg(at < 0, "cast %d shape %d: hit, reference: none", k, i);
				++cast_cmp;
			} else if (f0 > EPS && t_in >= 0) {
				ck_assert_msg(at >= 0, "cast %d shape %d: no hit, reference hits", k, i);
				double f = d16(hl->fraction[at]);
				ck_assert_msg(f >= t_out - 2.0 / 65536 && f <= t_in + 2.0 / 65536,
				              "cast %d shape %d: fraction %f not in [%f, %f]", k, i, f, t_out,
				              t_in);
				check_unit(hl->normal[at]);
				/* the contact point is on B's surface, and at the exact time A touches it */
				double px = d16(hl->point[at].x), py = d16(hl->point[at].y);
				dshape pt = {1, {px}, {py}, {0}, {0}, 0};
				ck_assert_msg(fabs(sep(&pt, &ds[i], 0, 0, 0)) < 3e-3,
				              "cast %d shape %d: point off B by %f", k, i,
				              sep(&pt, &ds[i], 0, 0, 0));
				ck_assert_msg(normal_fits(&ds[i], px, py, hl->normal[at]),
				              "cast %d shape %d: normal (%f, %f) at (%f, %f)", k, i,
				              d16(hl->normal[at].x), d16(hl->normal[at].y), px, py);
				++cast_cmp;
				++cast_hits;
			} else {
				++cast_skip;
			}
		}
	}
	ck_assert_msg(ov_skip * 50 < ov_cmp && cast_skip * 50 < cast_cmp && cast_hits > 300 &&
	                  aabb_total > 1000,
	              "overlap %ld/%ld, cast %ld/%ld (%ld hits), aabb %ld", ov_cmp, ov_skip, cast_cmp,
	              cast_skip, cast_hits, aabb_total);
	printf("aabb: %ld listed shapes matched; overlap: %ld pairs compared, %ld ambiguous; cast: "
	       "%ld pairs compared (%ld hits), %ld ambiguous\n",
	       aabb_total, ov_cmp, ov_skip, cast_cmp, cast_hits, cast_skip);
	free(ds);
	free(hl);
	f2d_destroy_world(t->w);
	free(t);
}
END_TEST

/* ---- edge cases ---- */
static f2d_shape_id add_box(f2d_world *w, f2d_body_type type, f2d_vec2 p, fix16_t hx, fix16_t hy)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position = p;
	f2d_body_id b;
	ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
	f2d_polygon box;
	ck_assert_int_eq(f2d_make_box(hx, hy, &box), F2D_OK);
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	ck_assert_int_eq(f2d_create_polygon_shape(w, b, &sd, &box, &s), F2D_OK);
	return s;
}

static f2d_shape_id add_circle(f2d_world *w, f2d_vec2 p, fix16_t r)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.position = p;
	f2d_body_id b;
	ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
	f2d_circle c = {{0, 0}, r};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	ck_assert_int_eq(f2d_create_circle_shape(w, b, &sd, &c, &s), F2D_OK);
	return s;
}

START_TEST(edge_cases_have_documented_results)
{
	f2d_world_def wd = f2d_default_world_def();
	f2d_world *w;
	ck_assert_int_eq(f2d_create_world(&wd, &w), F2D_OK);
	f2d_query_filter all = f2d_default_query_filter();
	f2d_shape_id box = add_box(w, F2D_STATIC_BODY, f2d_v(0, 0), F2D_FIX(1), F2D_FIX(1));
	f2d_shape_id circle = add_circle(w, f2d_v(F2D_FIX(5), 0), F2D_FIX(1));
	/* corner shapes at the edge of the world, on the diagonal */
	f2d_shape_id far_lo = add_box(w, F2D_STATIC_BODY, f2d_v(-F2D_FIX(8192), -F2D_FIX(8192)),
	                              F2D_FIX(512), F2D_FIX(512));
	f2d_shape_id far_hi = add_circle(w, f2d_v(F2D_FIX(8192), F2D_FIX(8192)), F2D_FIX(512));
	uint64_t hash = f2d_world_hash(w);
	f2d_ray_result r;

	/* a ray across the whole world, both ways, and the longest ray allowed */
	f2d_vec2 lo = f2d_v(-F2D_FIX(8192), -F2D_FIX(8192)), span = f2d_v(F2D_FIX(16384) - 1, F2D_FIX(16384) - 1);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(-F2D_FIX(8192) - F2D_FIX(600), -F2D_FIX(8192) - F2D_FIX(600)), f2d_v(F2D_FIX(16384), F2D_FIX(16384)), all, &r), F2D_OK);
	ck_assert(r.hit);
	ck_assert_int_eq(r.shape.index1, far_lo.index1);
	ck_assert_int_eq(r.point.x, -F2D_FIX(8192) - F2D_FIX(512)); /* the corner */
	ck_assert_int_eq(r.point.y, -F2D_FIX(8192) - F2D_FIX(512));
	ck_assert_int_eq(r.normal.x, 0); /* a tie between two edges: the first (edge 0, bottom) */
	ck_assert_int_eq(r.normal.y, -F2D_ONE);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, lo, span, all, &r), F2D_OK);
	ck_assert(!r.hit || r.shape.index1 != far_lo.index1); /* starts inside far_lo: not hit */
	ck_assert(r.hit);
	ck_assert_int_eq(r.shape.index1, box.index1); /* (-1, -1) on the diagonal */
	ck_assert_int_eq(r.point.x, -F2D_ONE);
	ck_assert_int_eq(r.point.y, -F2D_ONE);
	f2d_vec2 corner = f2d_v(-F2D_FIX(16384), -F2D_FIX(16384));
	f2d_vec2 longest = f2d_v(INT32_MAX, INT32_MAX); /* to (16384 - 2^-16, ...) */
	hitlist *hl = calloc(1, sizeof *hl);
	hl->answer = F2D_ONE;
	ck_assert_int_eq(f2d_world_cast_ray(w, corner, longest, all, cast_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 3); /* the circle at (5, 0) is off the diagonal */
	ck_assert_int_eq(hl->id[0].index1, far_lo.index1);
	ck_assert_int_eq(hl->id[1].index1, box.index1);
	ck_assert_int_eq(hl->id[2].index1, far_hi.index1);
	ck_assert_int_lt(hl->fraction[0], hl->fraction[1]);
	ck_assert_int_lt(hl->fraction[1], hl->fraction[2]);
	/* the other way, translation -2^31 on both axes */
	hl->n = 0;
	ck_assert_int_eq(f2d_world_cast_ray(w, f2d_v(F2D_FIX(16384), F2D_FIX(16384)),
	                                    f2d_v(INT32_MIN, INT32_MIN), all, cast_cb, hl),
	                 F2D_OK);
	ck_assert_int_eq(hl->n, 3);
	ck_assert_int_eq(hl->id[0].index1, far_hi.index1);
	ck_assert_int_eq(hl->id[2].index1, far_lo.index1);
	/* a circle swept across the whole world */
	f2d_query_shape ball;
	memset(&ball, 0, sizeof ball);
	ball.type = F2D_CIRCLE_SHAPE;
	ball.circle.radius = F2D_FIX(512);
	f2d_transform from = {corner, {F2D_ONE, 0}};
	hl->n = 0;
	ck_assert_int_eq(f2d_world_cast_shape(w, &ball, from, longest, all, cast_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 4);
	ck_assert_int_eq(hl->id[0].index1, far_lo.index1);

	/* zero-length rays: no hit, inside or outside */
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(0, 0), f2d_v(0, 0), all, &r), F2D_OK);
	ck_assert(!r.hit);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(F2D_FIX(3), 0), f2d_v(0, 0), all, &r), F2D_OK);
	ck_assert(!r.hit);
	/* a ray from inside a shape does not hit it (polygon and circle), but hits the next */
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(0, 0), f2d_v(F2D_FIX(10), 0), all, &r), F2D_OK);
	ck_assert(r.hit);
	ck_assert_int_eq(r.shape.index1, circle.index1);
	ck_assert_int_eq(r.point.x, F2D_FIX(4));
	ck_assert_int_eq(r.fraction, F2D_MILLI(400));
	ck_assert_int_eq(f2d_shape_ray_cast(w, circle, f2d_v(F2D_FIX(5), 0), f2d_v(F2D_FIX(3), 0), &r), F2D_OK);
	ck_assert(!r.hit);
	/* starting exactly on the surface counts as inside: no hit */
	ck_assert_int_eq(f2d_shape_ray_cast(w, box, f2d_v(-F2D_FIX(1), 0), f2d_v(F2D_FIX(1), 0), &r), F2D_OK);
	ck_assert(!r.hit);
	/* ending exactly on the surface hits, at fraction 1 */
	ck_assert_int_eq(f2d_shape_ray_cast(w, box, f2d_v(-F2D_FIX(3), 0), f2d_v(F2D_FIX(2), 0), &r), F2D_OK);
	ck_assert(r.hit);
	ck_assert_int_eq(r.fraction, F2D_ONE);
	/* grazing an edge exactly counts (closed sets) */
	ck_assert_int_eq(f2d_shape_ray_cast(w, box, f2d_v(-F2D_FIX(3), F2D_FIX(1)), f2d_v(F2D_FIX(6), 0), &r), F2D_OK);
	ck_assert(r.hit);
	/* point tests: inside, on the surface, outside */
	bool in;
	ck_assert_int_eq(f2d_shape_test_point(w, box, f2d_v(F2D_FIX(1), F2D_FIX(1)), &in), F2D_OK);
	ck_assert(in);
	ck_assert_int_eq(f2d_shape_test_point(w, box, f2d_v(F2D_FIX(1) + 1, 0), &in), F2D_OK);
	ck_assert(!in);
	ck_assert_int_eq(f2d_shape_test_point(w, circle, f2d_v(F2D_FIX(6), 0), &in), F2D_OK);
	ck_assert(in);
	ck_assert_int_eq(f2d_shape_test_point(w, circle, f2d_v(F2D_FIX(6), 1), &in), F2D_OK);
	ck_assert(!in);
	/* an inverted AABB is refused; a point AABB is fine */
	f2d_aabb inv = {{F2D_FIX(1), 0}, {0, F2D_FIX(1)}};
	hl->n = 0;
	ck_assert_int_eq(f2d_world_query_aabb(w, inv, all, overlap_cb, hl), F2D_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(f2d_world_last_error(w), "inverted"));
	ck_assert_int_eq(hl->n, 0);
	f2d_aabb pt = {{F2D_FIX(1), F2D_FIX(1)}, {F2D_FIX(1), F2D_FIX(1)}};
	ck_assert_int_eq(f2d_world_query_aabb(w, pt, all, overlap_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 1);
	/* shape cast: touching at the start counts as overlap (fraction 0, normal 0, the start) */
	f2d_query_shape qs;
	memset(&qs, 0, sizeof qs);
	qs.type = F2D_POLYGON_SHAPE;
	f2d_make_box(F2D_FIX(1), F2D_FIX(1), &qs.polygon);
	f2d_transform xf = {f2d_v(-F2D_FIX(2), 0), {F2D_ONE, 0}};
	hl->n = 0;
	ck_assert_int_eq(f2d_world_cast_shape(w, &qs, xf, f2d_v(F2D_FIX(10), 0), all, cast_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 2);
	ck_assert_int_eq(hl->id[0].index1, box.index1);
	ck_assert_int_eq(hl->fraction[0], 0);
	ck_assert_int_eq(hl->point[0].x, -F2D_FIX(2));
	ck_assert_int_eq(hl->id[1].index1, circle.index1); /* box front at 3 + 10 t = 4 */
	ck_assert_int_eq(hl->fraction[1], F2D_MILLI(500));
	ck_assert_int_eq(hl->normal[1].x, -F2D_ONE);
	ck_assert_int_eq(hl->point[1].x, F2D_FIX(4));
	/* zero translation: only what overlaps at the start */
	hl->n = 0;
	ck_assert_int_eq(f2d_world_cast_shape(w, &qs, xf, f2d_v(0, 0), all, cast_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 1);
	/* callbacks: -1 ignores, a fraction clips, 0 stops */
	hl->n = 0;
	hl->answer = -F2D_ONE;
	ck_assert_int_eq(f2d_world_cast_ray(w, f2d_v(-F2D_FIX(3), 0), f2d_v(F2D_FIX(10), 0), all, cast_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 2);
	hl->n = 0;
	hl->answer = F2D_MILLI(300); /* box at 0.2, clip at 0.3: the circle at 0.5 is not reported */
	ck_assert_int_eq(f2d_world_cast_ray(w, f2d_v(-F2D_FIX(3), 0), f2d_v(F2D_FIX(10), 0), all, cast_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 1);
	hl->n = 0;
	hl->answer = 0;
	ck_assert_int_eq(f2d_world_cast_ray(w, f2d_v(-F2D_FIX(3), 0), f2d_v(F2D_FIX(10), 0), all, cast_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 1);
	hl->n = 0;
	hl->stop_after = 1;
	f2d_aabb big = {{-F2D_FIX(9000), -F2D_FIX(9000)}, {F2D_FIX(9000), F2D_FIX(9000)}};
	ck_assert_int_eq(f2d_world_query_aabb(w, big, all, overlap_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 1);
	ck_assert_int_eq(hl->id[0].index1, box.index1);
	/* filters: a mask without bit 0 sees nothing; category 0 sees nothing */
	f2d_query_filter none = {1, 2};
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(-F2D_FIX(3), 0), f2d_v(F2D_FIX(10), 0), none, &r), F2D_OK);
	ck_assert(!r.hit);
	f2d_query_filter nocat = {0, UINT64_MAX};
	hl->n = 0;
	hl->stop_after = 0;
	ck_assert_int_eq(f2d_world_query_aabb(w, big, nocat, overlap_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, 0);
	ck_assert_int_eq(f2d_world_hash(w), hash);
	free(hl);
	f2d_destroy_world(w);
}
END_TEST

/* ---- bad input: an error with a message, nothing changed ---- */
START_TEST(bad_input_is_refused)
{
	f2d_world_def wd = f2d_default_world_def();
	f2d_world *w;
	ck_assert_int_eq(f2d_create_world(&wd, &w), F2D_OK);
	f2d_shape_id box = add_box(w, F2D_DYNAMIC_BODY, f2d_v(0, F2D_FIX(3)), F2D_FIX(1), F2D_FIX(1));
	add_box(w, F2D_STATIC_BODY, f2d_v(0, 0), F2D_FIX(10), F2D_FIX(1));
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(w);
	}
	uint64_t hash = f2d_world_hash(w);
	f2d_query_filter all = f2d_default_query_filter();
	hitlist *hl = calloc(1, sizeof *hl);
	f2d_ray_result r;
	bool in;
	f2d_aabb a = {{0, 0}, {F2D_ONE, F2D_ONE}};
	f2d_vec2 o = f2d_v(0, 0), d = f2d_v(F2D_ONE, 0), out = f2d_v(F2D_FIX(16384) + 1, 0);
	f2d_query_shape qs;
	memset(&qs, 0, sizeof qs);
	qs.type = F2D_CIRCLE_SHAPE;
	qs.circle.radius = F2D_ONE;
	f2d_transform xf = {{0, 0}, {F2D_ONE, 0}}, bad_rot = {{0, 0}, {F2D_ONE, F2D_ONE}};
	f2d_shape_id stale = box;
	stale.generation += 1;
	f2d_shape_id null_id = {0, 0};

	ck_assert_int_eq(f2d_world_query_aabb(NULL, a, all, overlap_cb, hl), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_query_aabb(w, a, all, NULL, hl), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_cast_ray_closest(NULL, o, d, all, &r), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, o, d, all, NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, out, d, all, &r), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(F2D_FIX(16000), 0), f2d_v(F2D_FIX(1000), 0), all, &r), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_world_cast_ray(w, o, d, all, NULL, hl), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_cast_ray(w, o, f2d_v(INT32_MIN, 0), all, cast_cb, hl), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_world_overlap_shape(w, NULL, xf, all, overlap_cb, hl), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_overlap_shape(w, &qs, bad_rot, all, overlap_cb, hl), F2D_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(f2d_world_last_error(w), "rotation"));
	f2d_transform far = {out, {F2D_ONE, 0}};
	ck_assert_int_eq(f2d_world_overlap_shape(w, &qs, far, all, overlap_cb, hl), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_world_cast_shape(w, &qs, xf, f2d_v(F2D_FIX(16385), 0), all, cast_cb, hl), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_world_cast_shape(w, &qs, xf, d, all, NULL, hl), F2D_ERROR_NULL_ARGUMENT);
	qs.circle.radius = 0;
	ck_assert_int_eq(f2d_world_cast_shape(w, &qs, xf, d, all, cast_cb, hl), F2D_ERROR_INVALID_VALUE);
	qs.type = (f2d_shape_type)7;
	ck_assert_int_eq(f2d_world_overlap_shape(w, &qs, xf, all, overlap_cb, hl), F2D_ERROR_INVALID_VALUE);
	qs.type = F2D_POLYGON_SHAPE;
	f2d_make_box(F2D_ONE, F2D_ONE, &qs.polygon);
	qs.polygon.vertices[1].x += 1; /* no longer what f2d_make_polygon makes */
	ck_assert_int_eq(f2d_world_overlap_shape(w, &qs, xf, all, overlap_cb, hl), F2D_ERROR_BAD_POLYGON);
	ck_assert_int_eq(f2d_world_cast_shape(w, &qs, xf, d, all, cast_cb, hl), F2D_ERROR_BAD_POLYGON);
	qs.polygon.count = 2;
	ck_assert_int_eq(f2d_world_overlap_shape(w, &qs, xf, all, overlap_cb, hl), F2D_ERROR_BAD_POLYGON);
	qs.polygon.count = 99;
	ck_assert_int_eq(f2d_world_overlap_shape(w, &qs, xf, all, overlap_cb, hl), F2D_ERROR_BAD_POLYGON);
	ck_assert_ptr_nonnull(strstr(f2d_world_last_error(w), "f2d_make_polygon"));
	ck_assert_int_eq(f2d_shape_ray_cast(w, stale, o, d, &r), F2D_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(f2d_shape_ray_cast(w, null_id, o, d, &r), F2D_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(f2d_shape_ray_cast(w, box, o, d, NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_shape_ray_cast(w, box, out, d, &r), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_shape_test_point(w, stale, o, &in), F2D_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(f2d_shape_test_point(w, box, o, NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_shape_test_point(w, box, out, &in), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_shape_test_point(NULL, box, o, &in), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(hl->n, 0); /* no callback ran */
	ck_assert_int_eq(f2d_world_hash(w), hash);
	/* and the world steps on exactly as an untouched copy */
	f2d_world *copy;
	ck_assert_int_eq(f2d_world_clone(w, &copy), F2D_OK);
	for (int i = 0; i < 30; ++i) {
		f2d_world_step(w);
		f2d_world_step(copy);
		ck_assert_int_eq(f2d_world_hash(w), f2d_world_hash(copy));
	}
	free(hl);
	f2d_destroy_world(copy);
	f2d_destroy_world(w);
}
END_TEST

/* ---- queries see sleeping bodies, follow moves, do not change steps or hashes ---- */
START_TEST(queries_follow_the_world_and_leave_it_alone)
{
	f2d_world_def wd = f2d_default_world_def();
	f2d_world *w, *twin;
	ck_assert_int_eq(f2d_scene_create("rain1000", &wd, &w), F2D_OK);
	ck_assert_int_eq(f2d_scene_create("rain1000", &wd, &twin), F2D_OK);
	f2d_query_filter all = f2d_default_query_filter();
	hitlist *hl = calloc(1, sizeof *hl);
	f2d_aabb everything = {{-F2D_FIX(8192), -F2D_FIX(8192)}, {F2D_FIX(8192), F2D_FIX(8192)}};
	f2d_ray_result r;
	/* query every step in one world only: the hashes stay equal */
	for (int i = 0; i < 600; ++i) {
		f2d_world_step(w);
		f2d_world_step(twin);
		ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(-F2D_FIX(30), F2D_FIX(5)), f2d_v(F2D_FIX(60), -F2D_FIX(3)), all, &r), F2D_OK);
		hl->n = 0;
		hl->stop_after = 3;
		ck_assert_int_eq(f2d_world_query_aabb(w, everything, all, overlap_cb, hl), F2D_OK);
		ck_assert_int_eq(f2d_world_hash(w), f2d_world_hash(twin));
	}
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	ck_assert_int_eq(st.awake_body_count, 0); /* settled and asleep */
	/* every shape is found, asleep or not */
	hl->n = 0;
	hl->stop_after = 0;
	ck_assert_int_eq(f2d_world_query_aabb(w, everything, all, overlap_cb, hl), F2D_OK);
	ck_assert_int_eq(hl->n, st.shape_count);
	f2d_body_id bodies[1100];
	int32_t nb = f2d_world_get_bodies(w, bodies, 1100);
	/* the last body with nothing above its centre (the pile decides which one that is) */
	f2d_body_id sleeper = bodies[nb - 1];
	for (int32_t k = nb - 1; k > nb - 50; --k) {
		sleeper = bodies[k];
		ck_assert(!f2d_body_is_awake(w, sleeper));
		f2d_vec2 p = f2d_body_get_position(w, sleeper);
		ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(p.x, p.y + F2D_FIX(50)), f2d_v(0, -F2D_FIX(50)), all, &r), F2D_OK);
		ck_assert(r.hit);
		if (f2d_shape_get_body(w, r.shape).index1 == sleeper.index1) {
			break;
		}
	}
	ck_assert_int_eq(f2d_shape_get_body(w, r.shape).index1, sleeper.index1);
	/* a transform set between steps is seen at once (the tree is rebuilt) */
	ck_assert_int_eq(f2d_body_set_transform(w, sleeper, f2d_v(F2D_FIX(500), F2D_FIX(500)), f2d_make_rot(0)), F2D_OK);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(F2D_FIX(500), F2D_FIX(520)), f2d_v(0, -F2D_FIX(40)), all, &r), F2D_OK);
	ck_assert(r.hit);
	ck_assert_int_eq(f2d_shape_get_body(w, r.shape).index1, sleeper.index1);
	/* a destroyed body's shape is gone; a snapshot restore brings it back */
	size_t cap = f2d_snapshot_size(w), len;
	void *buf = malloc(cap);
	ck_assert_int_eq(f2d_snapshot_save(w, buf, cap, &len), F2D_OK);
	ck_assert_int_eq(f2d_destroy_body(w, sleeper), F2D_OK);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(F2D_FIX(500), F2D_FIX(520)), f2d_v(0, -F2D_FIX(40)), all, &r), F2D_OK);
	ck_assert(!r.hit);
	ck_assert_int_eq(f2d_snapshot_restore(w, buf, len), F2D_OK);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(F2D_FIX(500), F2D_FIX(520)), f2d_v(0, -F2D_FIX(40)), all, &r), F2D_OK);
	ck_assert(r.hit);
	/* a clone answers the same */
	f2d_world *c;
	ck_assert_int_eq(f2d_world_clone(w, &c), F2D_OK);
	f2d_ray_result rc;
	ck_assert_int_eq(f2d_world_cast_ray_closest(c, f2d_v(-F2D_FIX(30), F2D_FIX(5)), f2d_v(F2D_FIX(60), -F2D_FIX(3)), all, &rc), F2D_OK);
	ck_assert_int_eq(f2d_world_cast_ray_closest(w, f2d_v(-F2D_FIX(30), F2D_FIX(5)), f2d_v(F2D_FIX(60), -F2D_FIX(3)), all, &r), F2D_OK);
	ck_assert(memcmp(&r, &rc, sizeof r) == 0);
	free(buf);
	free(hl);
	f2d_destroy_world(c);
	f2d_destroy_world(twin);
	f2d_destroy_world(w);
}
END_TEST

/* ---- the tree: a short ray in a 10,000-body world looks at few shapes ---- */
/* The tree's cheap segment-box test (query.c seg_maybe) may only say "maybe" or "surely not":
 * it must never reject a box the exact slab test accepts. Random segments and boxes at the range
 * extremes: ends within F2D_QUERY_LIMIT (translations up to 2^31 LSB, around the line test's
 * 2^28 cut-off), grown boxes (shape casts), boxes anywhere in the fix16 range, thin boxes, boxes
 * touching the segment at a lattice point of it (from every side), and the closest ray's shrunk
 * bounds (t in [0, h / 2^32]). */
static int64_t pick_coord(void)
{
	static const int64_t edges[] = {-F2D_QUERY_LIMIT, F2D_QUERY_LIMIT, 0, -1, 1};
	switch (next_u64() % 4) {
	case 0:
		return edges[next_u64() % 5];
	case 1:
		return rnd(-F2D_QUERY_LIMIT, F2D_QUERY_LIMIT);
	case 2:
		return rnd(-F2D_FIX(64), F2D_FIX(64));
	default:
		return (next_u64() & 1 ? F2D_QUERY_LIMIT : -F2D_QUERY_LIMIT) - rnd(-256, 256);
	}
}
static int64_t clamp_limit(int64_t v)
{
	return v > F2D_QUERY_LIMIT ? F2D_QUERY_LIMIT : (v < -F2D_QUERY_LIMIT ? -F2D_QUERY_LIMIT : v);
}
static int64_t pick_box_coord(void)
{
	switch (next_u64() % 3) {
	case 0:
		return next_u64() & 1 ? INT32_MAX : INT32_MIN;
	case 1:
		return (int32_t)next_u64();
	default:
		return pick_coord();
	}
}

START_TEST(fast_node_test_never_rejects_an_exact_hit)
{
	rng_state = 0x5eedb0c5;
	long accepted = 0, fast_rejected = 0, touching = 0;
	for (long it = 0; it < 400000; ++it) {
		int64_t ox = pick_coord(), oy = pick_coord(), ex, ey;
		int kind = (int)(next_u64() % 4);
		if (kind == 0) { /* the other end anywhere in range */
			ex = pick_coord();
			ey = pick_coord();
		} else if (kind == 1) { /* around the line test's cut-off, 2^28 */
			int64_t c = ((int64_t)1 << 28) + rnd(-2, 2);
			ex = clamp_limit(ox + (next_u64() & 1 ? c : -c));
			ey = clamp_limit(oy + rnd(-(int32_t)c, (int32_t)c));
		} else { /* short */
			ex = clamp_limit(ox + rnd(-F2D_FIX(8), F2D_FIX(8)));
			ey = clamp_limit(oy + (next_u64() % 8 == 0 ? 0 : rnd(-F2D_FIX(8), F2D_FIX(8))));
		}
		int64_t dx = ex - ox, dy = ey - oy;
		int64_t gx = 0, gy = 0;
		if (next_u64() % 4 == 0) { /* a shape cast's grown boxes */
			gx = rnd(0, F2D_FIX(2048));
			gy = rnd(0, F2D_FIX(2048));
		}
		uint64_t h = (uint64_t)1 << 32;
		if (next_u64() % 3 == 0) {
			h = next_u64() % 4 == 0 ? 1 + next_u64() % 64 : 1 + (next_u64() >> 32);
		}
		int64_t lx, ly, ux, uy;
		int64_t box_kind = (int64_t)(next_u64() % 4);
		if (box_kind == 0) { /* anywhere */
			lx = pick_box_coord();
			ux = pick_box_coord();
			ly = pick_box_coord();
			uy = pick_box_coord();
		} else if (box_kind == 1) { /* near the segment, possibly thin */
			int64_t px = ox + (int64_t)((double)dx * (double)(next_u64() % 1025) / 1024.0);
			int64_t py = oy + (int64_t)((double)dy * (double)(next_u64() % 1025) / 1024.0);
			int64_t w = next_u64() % 3 == 0 ? 0 : rnd(0, F2D_FIX(4));
			int64_t hh = next_u64() % 3 == 0 ? 0 : rnd(0, F2D_FIX(4));
			lx = px + rnd(-F2D_FIX(2), F2D_FIX(2)) - w;
			ly = py + rnd(-F2D_FIX(2), F2D_FIX(2)) - hh;
			ux = lx + w;
			uy = ly + hh;
		} else { /* a corner exactly on the segment: o + i (dx, dy) / k with k | dx, dy */
			int64_t k = 1 + (int64_t)(next_u64() % 16);
			dx -= dx % k;
			dy -= dy % k;
			int64_t i = (int64_t)(next_u64() % (uint64_t)(k + 1));
			int64_t px = ox + dx / k * i, py = oy + dy / k * i;
			int64_t w = rnd(0, F2D_FIX(3)), hh = rnd(0, F2D_FIX(3));
			lx = next_u64() & 1 ? px : px - w;
			ly = next_u64() & 1 ? py : py - hh;
			ux = lx + w;
			uy = ly + hh;
			lx += gx; /* the grown box's corner stays on the segment */
			ly += gy;
			ux = ux > lx ? ux : lx;
			uy = uy > ly ? uy : ly;
			++touching;
		}
		if (lx > ux) {
			int64_t t = lx;
			lx = ux;
			ux = t;
		}
		if (ly > uy) {
			int64_t t = ly;
			ly = uy;
			uy = t;
		}
		lx = lx < INT32_MIN ? INT32_MIN : (lx > INT32_MAX ? INT32_MAX : lx);
		ux = ux < INT32_MIN ? INT32_MIN : (ux > INT32_MAX ? INT32_MAX : ux);
		ly = ly < INT32_MIN ? INT32_MIN : (ly > INT32_MAX ? INT32_MAX : ly);
		uy = uy < INT32_MIN ? INT32_MIN : (uy > INT32_MAX ? INT32_MAX : uy);
		bool maybe, exact, node, same_entry;
		f2d_query_seg_tests(ox, oy, dx, dy, gx, gy, h, lx, ly, ux, uy, &maybe, &exact, &node,
		                    &same_entry);
		ck_assert_msg(maybe || !exact,
		              "fast test rejected an exact hit: o (%lld, %lld) d (%lld, %lld) g (%lld, "
		              "%lld) h %llu box [%lld, %lld] x [%lld, %lld]",
		              (long long)ox, (long long)oy, (long long)dx, (long long)dy, (long long)gx,
		              (long long)gy, (unsigned long long)h, (long long)lx, (long long)ux,
		              (long long)ly, (long long)uy);
		/* the closest ray's node test: every exact accept, at the exact entry */
		ck_assert_msg(!exact || same_entry,
		              "node test: o (%lld, %lld) d (%lld, %lld) g (%lld, %lld) h %llu box "
		              "[%lld, %lld] x [%lld, %lld]: exact %d node %d",
		              (long long)ox, (long long)oy, (long long)dx, (long long)dy, (long long)gx,
		              (long long)gy,
		              (unsigned long long)h, (long long)lx, (long long)ux, (long long)ly,
		              (long long)uy, exact, node);
		accepted += exact;
		fast_rejected += !maybe;
	}
	/* both answers are common: the property is tested, and the fast test does reject */
	ck_assert_msg(accepted > 60000 && fast_rejected > 60000, "accepted %ld, fast-rejected %ld",
	              accepted, fast_rejected);
	printf("fast node test: 400000 segment-box pairs (%ld touching at a lattice point), %ld "
	       "accepted by the exact test, %ld rejected by the fast one, none wrongly\n",
	       touching, accepted, fast_rejected);
}
END_TEST

START_TEST(short_ray_in_a_big_world_visits_few_shapes)
{
	rng_state = 99;
	tworld *t = calloc(1, sizeof *t);
	f2d_world_def wd = f2d_default_world_def();
	ck_assert_int_eq(f2d_create_world(&wd, &t->w), F2D_OK);
	f2d_polygon box;
	f2d_make_box(F2D_MILLI(400), F2D_MILLI(400), &box);
	for (int i = 0; i < 10000; ++i) { /* a 100 x 100 grid of boxes, 1 m apart */
		f2d_body_def bd = f2d_default_body_def();
		bd.position = f2d_v(F2D_FIX(i % 100), F2D_FIX(i / 100));
		f2d_body_id b;
		f2d_shape_id s;
		f2d_shape_def sd = f2d_default_shape_def();
		ck_assert_int_eq(f2d_create_body(t->w, &bd, &b), F2D_OK);
		ck_assert_int_eq(f2d_create_polygon_shape(t->w, b, &sd, &box, &s), F2D_OK);
	}
	f2d_query_filter all = f2d_default_query_filter();
	f2d_ray_result r;
	ck_assert_int_eq(f2d_world_cast_ray_closest(t->w, f2d_v(F2D_MILLI(50500), F2D_MILLI(50500)), f2d_v(F2D_FIX(2), 0), all, &r), F2D_OK); /* builds the tree */
	uint64_t s0 = t->w->query.shape_visits, n0 = t->w->query.node_visits;
	int rays = 0;
	for (int k = 0; k < 100; ++k) {
		f2d_vec2 o = f2d_v(rnd(0, F2D_FIX(99)), rnd(0, F2D_FIX(99)));
		ck_assert_int_eq(f2d_world_cast_ray_closest(t->w, o, f2d_v(rnd(-F2D_FIX(2), F2D_FIX(2)), rnd(-F2D_FIX(2), F2D_FIX(2))), all, &r), F2D_OK);
		++rays;
	}
	uint64_t shapes = (t->w->query.shape_visits - s0) / (uint64_t)rays;
	uint64_t nodes = (t->w->query.node_visits - n0) / (uint64_t)rays;
	printf("short rays in 10,000 boxes: %llu shapes and %llu nodes looked at per ray\n",
	       (unsigned long long)shapes, (unsigned long long)nodes);
	ck_assert_uint_lt(shapes, 100);
	ck_assert_uint_lt(nodes, 200);
	/* a long ray across the grid still hits the first box only */
	ck_assert_int_eq(f2d_world_cast_ray_closest(t->w, f2d_v(-F2D_FIX(5), F2D_MILLI(50000)), f2d_v(F2D_FIX(200), 0), all, &r), F2D_OK);
	ck_assert(r.hit);
	ck_assert_int_eq(r.point.x, -F2D_MILLI(400));
	f2d_destroy_world(t->w);
	free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("query");
	TCase *tc = tcase_create("query");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, rays_match_brute_force_and_double_reference);
	tcase_add_test(tc, aabb_overlap_and_cast_match_references);
	tcase_add_test(tc, edge_cases_have_documented_results);
	tcase_add_test(tc, bad_input_is_refused);
	tcase_add_test(tc, queries_follow_the_world_and_leave_it_alone);
	tcase_add_test(tc, short_ray_in_a_big_world_visits_few_shapes);
	tcase_add_test(tc, fast_node_test_never_rejects_an_exact_hit);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
