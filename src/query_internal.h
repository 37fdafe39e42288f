/* fix2d queries: what the exact geometry (query_geometry.c) and the queries (query.c) share:
 * ray parameters as rationals, convex cores, their Minkowski difference, times of impact, hits.
 * SPDX-License-Identifier: MIT */
#ifndef FIX2D_QUERY_INTERNAL_H
#define FIX2D_QUERY_INTERNAL_H

#include "core.h"

/* ray parameters as exact rationals n / d (d > 0, n >= 0) */
typedef struct q_rat {
	uint64_t n, d;
} q_rat;

/* convex cores and their Minkowski difference */
#define Q_MAX_CORE F2D_MAX_POLYGON_VERTICES
#define Q_MAX_M (2 * F2D_MAX_POLYGON_VERTICES)

typedef struct q_core {
	int64_t x[Q_MAX_CORE], y[Q_MAX_CORE];
	fix16_t nx[Q_MAX_CORE], ny[Q_MAX_CORE]; /* unit outward normal of edge i -> i + 1 */
	int32_t count;                          /* 1: a circle's centre (or a ray's origin) */
	int64_t radius;
} q_core;

typedef struct q_mink {
	int64_t x[Q_MAX_M], y[Q_MAX_M];
	fix16_t nx[Q_MAX_M], ny[Q_MAX_M];
	int8_t ib[Q_MAX_M], ia[Q_MAX_M]; /* vertex k = B[ib[k]] - A[ia[k]] */
	bool from_a[Q_MAX_M]; /* edge k -> k + 1 is minus A's edge ia[k], else B's ib[k] */
	int32_t count;
	int64_t radius;
} q_mink;

/* the origin against M */
enum { Q_MISS = 0, Q_HIT = 1, Q_INSIDE = 2 };
enum { F_EDGE = 0, F_VERTEX = 1 };

typedef struct q_toi {
	q_rat t;
	int32_t kind, index; /* F_EDGE: edge index; F_VERTEX: vertex index */
} q_toi;

/* a query's result before delivery */
typedef struct q_hit {
	uint64_t t32;
	int32_t shape;
	f2d_shape_id id; /* set before the callbacks */
	fix16_t fraction;
	f2d_vec2 point, normal;
} q_hit;

/* floor(t 2^32) for t = n / d in [0, 1] */
uint64_t f2d_rat_t32(q_rat t);
/* the cores of a shape at a transform (world shapes: their body's), of a point */
void f2d_core_of_polygon(const f2d_polygon *p, f2d_transform xf, q_core *c);
void f2d_core_of_circle(const f2d_circle *circle, f2d_transform xf, q_core *c);
void f2d_core_of_capsule(const f2d_capsule *cap, f2d_transform xf, q_core *c);
void f2d_core_of_shape(const f2d_world *w, const f2d_shape *s, q_core *c);
void f2d_core_of_point(int64_t x, int64_t y, q_core *c);
/* M = B (+) -A */
void f2d_minkowski(const q_core *b, const q_core *a, q_mink *m);
bool f2d_mink_contains_origin(const q_mink *m);
/* the origin cast along (dx, dy) against M up to hi: Q_MISS, Q_HIT (*out) or Q_INSIDE */
int32_t f2d_mink_cast(const q_mink *m, int64_t dx, int64_t dy, q_rat hi, q_toi *out);
/* the hit's fraction, normal and contact point from a time of impact */
void f2d_make_hit(const q_mink *m, const q_core *b, const q_core *a, int64_t dx, int64_t dy,
                  const q_toi *toi, q_hit *h);

#endif
