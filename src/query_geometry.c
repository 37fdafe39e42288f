/* fix2d queries: the exact geometry.
 * SPDX-License-Identifier: MIT
 *
 * Geometry: one exact primitive. Every query is "where does the origin stand relative to the
 * convex set M = B (+) -A", with B a world shape and A the query's own shape (a point for rays
 * and point tests): A placed at xf overlaps B iff 0 is in M, and A swept by t*d touches B first
 * at the least t >= 0 with t*d in M, a ray cast of the origin against M. Each shape is a convex
 * "core" (a polygon's world vertices, or a circle's centre) plus a radius, so M is the convex
 * polygon of the two cores' Minkowski difference (edges merged by angle, at most 16, or a point)
 * rounded by rA + rB, taken as the union of
 *   P    the core polygon (when it has 3 or more vertices),
 *   R_i  for each edge i (vertices v, v + e): the points x with 0 <= (x - v).e <= e.e,
 *        m.(x - v) >= 0 (m = (e.y, -e.x), the exact outward perpendicular) and
 *        n.(x - v) <= R (n the edge's unit fix16 normal, R = rA + rB; only when R > 0),
 *   D_j  the disc of radius R about each vertex (only when R > 0).
 * A polygon of the world is the hull of its world vertices (f2d_xf_point of the local ones, the
 * points the shape's AABB is made of); a circle is its centre's disc. Containment tests each
 * piece; a cast clips the ray t*d against each piece's half-planes a.x <= b (a.d t <= b: exact
 * rationals b / (a.d), compared by 128-bit cross products) or solves |t d - v|^2 = R^2 for a
 * disc, t = (v.d - floor(sqrt((v.d)^2 - d.d (v.v - R^2)))) / d.d (128-bit, the root rounded
 * down, so t is at or just past the exact time), and the least t over the pieces is the time
 * of impact (ties: the first piece in the order P, R_0, D_0, R_1, D_1, ...; within a piece,
 * the first half-plane). This is the exact time of impact of the two convex sets (up to the
 * disc root and the fix16 rounding of the R_i's outer normals), with no iteration: no GJK, no
 * conservative advancement.
 * Magnitudes: ray and query positions within 2^30 (F2D_QUERY_LIMIT), world shapes within
 * 8704 m (2^29.1), query shapes within 512 m of their position, so M's vertices are below 2^30.6
 * and translations below 2^31 in absolute value; edges below 2^26 (1024 m), normals 2^16.
 * Products a.d, a.v stay below 2^59; rational comparisons (up to 2^63 x 2^64) and the disc's
 * discriminant (2^126) use the f2d_u128 helpers of fmath.h (no __int128: tcc and gcc -m32 build
 * this).
 *
 * Outputs: t32 = floor(t 2^32); fraction = (t32 + 2^15) >> 16 (Q16.16, half up); the point
 * p + round(t32 d / 2^32) for rays, the contact point on the hit shape for shape casts; the
 * normal: the hit edge's rotated unit normal (B's, or minus A's), or for a disc the direction
 * from the vertex to the hit point (normalised in 64 bits from a 2^-24 m hit point).
 */
#include "query_internal.h"

/* ---- 128-bit unsigned arithmetic from 32-bit limbs ---- */

/* floor(sqrt(n)), digit by digit (n < 2^126 here, so the root is below 2^63) */
static uint64_t isqrt_u128(f2d_u128 n)
{
	f2d_u128 r = {0, 0}, bit = {(uint64_t)1 << 62, 0}; /* 4^63 */
	while (f2d_u128_less(n, bit)) {
		bit = f2d_u128_shr(bit, 2);
		if (bit.hi == 0 && bit.lo == 0) {
			return 0;
		}
	}
	while (bit.hi != 0 || bit.lo != 0) {
		f2d_u128 rb = f2d_u128_add(r, bit);
		if (!f2d_u128_less(n, rb)) {
			n = f2d_u128_sub(n, rb);
			r = f2d_u128_add(f2d_u128_shr(r, 1), bit);
		} else {
			r = f2d_u128_shr(r, 1);
		}
		bit = f2d_u128_shr(bit, 2);
	}
	return r.lo;
}

/* ---- ray parameters as exact rationals n / d (d > 0, n >= 0) ---- */

static inline bool rat_lt(q_rat a, q_rat b)
{
	return f2d_u128_less(f2d_u128_mul(a.n, b.d), f2d_u128_mul(b.n, a.d));
}

/* floor(t 2^32) for t = n / d in [0, 1]: 32 steps of long division (the remainder stays below
 * d < 2^64; its doubling may carry out of 64 bits). */
uint64_t f2d_rat_t32(q_rat t)
{
	if (t.n >= t.d) {
		return (uint64_t)1 << 32;
	}
	if (t.d <= ((uint64_t)1 << 48)) {
		/* n < d <= 2^48: two 16-bit digits by division (r < d, so r 2^16 < 2^64), the same
		 * quotient as the bit loop below, without its unpredictable branch */
		uint64_t r = t.n << 16, q = r / t.d;
		r = (r % t.d) << 16;
		return (q << 16) | (r / t.d);
	}
	uint64_t q = 0, r = t.n;
	for (int i = 0; i < 32; ++i) {
		bool carry = (r >> 63) != 0;
		r <<= 1;
		q <<= 1;
		if (carry || r >= t.d) {
			r -= t.d;
			q |= 1u;
		}
	}
	return q;
}

/* round(v t32 / 2^shift), |v| <= 2^31, t32 <= 2^32, shift in {24, 32}: |v| t32 + 2^31 < 2^64 */
static inline int64_t scale_t32(int64_t v, uint64_t t32, unsigned shift)
{
	uint64_t m = (uint64_t)(v < 0 ? -v : v) * t32;
	int64_t r = (int64_t)((m + ((uint64_t)1 << (shift - 1))) >> shift);
	return v < 0 ? -r : r;
}

/* ---- convex cores and their Minkowski difference ---- */

void f2d_core_of_polygon(const f2d_polygon *p, f2d_transform xf, q_core *c)
{
	c->count = p->count;
	c->radius = 0;
	for (int32_t i = 0; i < p->count; ++i) {
		f2d_vec2 v = f2d_xf_point(xf, p->vertices[i]); /* as f2d_shape_compute_aabb */
		f2d_vec2 n = f2d_rotate(xf.q, p->normals[i]);
		c->x[i] = v.x;
		c->y[i] = v.y;
		c->nx[i] = n.x;
		c->ny[i] = n.y;
	}
}

void f2d_core_of_circle(const f2d_circle *circle, f2d_transform xf, q_core *c)
{
	f2d_vec2 v = f2d_xf_point(xf, circle->center);
	c->count = 1;
	c->x[0] = v.x;
	c->y[0] = v.y;
	c->nx[0] = c->ny[0] = 0;
	c->radius = circle->radius;
}

/* A capsule, segment or chain segment: its core as a two-vertex polygon (edges 0 -> 1 and
 * back, normals +-the right normal) with its radius (0 for segments): M stays convex, the
 * casts and overlaps need nothing else. */
void f2d_core_of_capsule(const f2d_capsule *cap, f2d_transform xf, q_core *c)
{
	f2d_vec2 v1 = f2d_xf_point(xf, cap->center1), v2 = f2d_xf_point(xf, cap->center2);
	f2d_vec2 n = f2d_right_perp(f2d_normalize(f2d_sub(v2, v1), NULL));
	c->count = 2;
	c->radius = cap->radius;
	c->x[0] = v1.x;
	c->y[0] = v1.y;
	c->x[1] = v2.x;
	c->y[1] = v2.y;
	c->nx[0] = n.x;
	c->ny[0] = n.y;
	c->nx[1] = -n.x;
	c->ny[1] = -n.y;
}

void f2d_core_of_shape(const f2d_world *w, const f2d_shape *s, q_core *c)
{
	f2d_transform xf = f2d_body_xf(&w->bodies[s->body]);
	if (f2d_shape_is_linear(s)) {
		f2d_core_of_capsule(&s->capsule, xf, c);
	} else if (s->type == F2D_CIRCLE_SHAPE) {
		f2d_core_of_circle(&s->circle, xf, c);
	} else {
		f2d_core_of_polygon(&s->polygon, xf, c);
	}
}

void f2d_core_of_point(int64_t x, int64_t y, q_core *c)
{
	c->count = 1;
	c->x[0] = x;
	c->y[0] = y;
	c->nx[0] = c->ny[0] = 0;
	c->radius = 0;
}

/* The least vertex in (y, x) order of sign * core. */
static int32_t lowest(const q_core *c, int64_t sign)
{
	int32_t best = 0;
	for (int32_t i = 1; i < c->count; ++i) {
		int64_t y = sign * c->y[i], x = sign * c->x[i];
		int64_t by = sign * c->y[best], bx = sign * c->x[best];
		if (y < by || (y == by && x < bx)) {
			best = i;
		}
	}
	return best;
}

/* Whether edge vector u comes no later than v in polar angle order [0, 2 pi). */
static inline bool angle_le(int64_t ux, int64_t uy, int64_t vx, int64_t vy)
{
	int hu = (uy > 0 || (uy == 0 && ux > 0)) ? 0 : 1;
	int hv = (vy > 0 || (vy == 0 && vx > 0)) ? 0 : 1;
	if (hu != hv) {
		return hu < hv;
	}
	return ux * vy - uy * vx >= 0; /* edges below 2^27: products below 2^54 */
}

/* M = B (+) -A: both cores' edges merged by angle from the sum of their lowest vertices (each
 * convex polygon's edges, from its lowest vertex, turn once around in angle order). */
void f2d_minkowski(const q_core *b, const q_core *a, q_mink *m)
{
	int32_t nb = b->count, na = a->count;
	int32_t sb = lowest(b, 1), sa = lowest(a, -1);
	if (na == 1) {
		/* A is a point (rays, point tests): the merge below takes B's edges in turn from
		 * its lowest vertex; the same M, without the angle comparisons */
		int64_t ax = a->x[0], ay = a->y[0];
		m->radius = a->radius + b->radius;
		for (int32_t k = 0; k < nb; ++k) {
			int32_t bi = sb + k < nb ? sb + k : sb + k - nb;
			m->x[k] = b->x[bi] - ax;
			m->y[k] = b->y[bi] - ay;
			m->ib[k] = (int8_t)bi;
			m->ia[k] = 0;
			m->nx[k] = b->nx[bi];
			m->ny[k] = b->ny[bi];
			m->from_a[k] = false;
		}
		m->count = nb;
		return;
	}
	int32_t eb = nb > 1 ? nb : 0, ea = na > 1 ? na : 0;
	int32_t i = 0, j = 0, k = 0;
	m->radius = a->radius + b->radius;
	do {
		int32_t bi = (sb + i) % nb, ai = (sa + j) % na;
		m->x[k] = b->x[bi] - a->x[ai];
		m->y[k] = b->y[bi] - a->y[ai];
		m->ib[k] = (int8_t)bi;
		m->ia[k] = (int8_t)ai;
		if (i == eb && j == ea) {
			break; /* two points: M is one vertex */
		}
		bool take_b;
		if (i == eb) {
			take_b = false;
		} else if (j == ea) {
			take_b = true;
		} else {
			int32_t bn = (bi + 1) % nb, an = (ai + 1) % na;
			take_b = angle_le(b->x[bn] - b->x[bi], b->y[bn] - b->y[bi],
			                  a->x[ai] - a->x[an], a->y[ai] - a->y[an]);
		}
		if (take_b) {
			m->nx[k] = b->nx[bi];
			m->ny[k] = b->ny[bi];
			m->from_a[k] = false;
			++i;
		} else {
			m->nx[k] = -a->nx[ai];
			m->ny[k] = -a->ny[ai];
			m->from_a[k] = true;
			++j;
		}
		++k;
	} while (i < eb || j < ea);
	m->count = k > 0 ? k : 1;
}

/* ---- the origin against M ---- */

typedef struct q_clip {
	q_rat lo, hi;
	int32_t enter; /* half-plane that set lo, -1: none (lo = 0) */
} q_clip;

/* Half-plane a.x <= b along x = t d (den = a.d): false when it leaves nothing of [lo, hi]
 * (checked at the end for bounds). */
static inline bool clip(q_clip *c, int64_t den, int64_t b, int32_t idx)
{
	if (den == 0) {
		return b >= 0;
	}
	if (den < 0) {
		if (b < 0) {
			q_rat t = {(uint64_t)-b, (uint64_t)-den};
			if (rat_lt(c->lo, t)) {
				c->lo = t;
				c->enter = idx;
			}
		}
		return true;
	}
	if (b < 0) {
		return false;
	}
	q_rat t = {(uint64_t)b, (uint64_t)den};
	if (rat_lt(t, c->hi)) {
		c->hi = t;
	}
	return true;
}

static inline int32_t next_k(const q_mink *m, int32_t k)
{
	return k + 1 == m->count ? 0 : k + 1;
}

/* The core polygon P (count >= 3): its edges' half-planes m.x <= m.v. */
static int32_t cast_polygon(const q_mink *m, int64_t dx, int64_t dy, q_rat hi, q_toi *out)
{
	q_clip c = {{0, 1}, hi, -1};
	for (int32_t k = 0; k < m->count; ++k) {
		int32_t k1 = next_k(m, k);
		int64_t ex = m->x[k1] - m->x[k], ey = m->y[k1] - m->y[k];
		/* m = (ey, -ex): m.d t <= m.v */
		if (!clip(&c, ey * dx - ex * dy, ey * m->x[k] - ex * m->y[k], k)) {
			return Q_MISS;
		}
	}
	if (rat_lt(c.hi, c.lo)) {
		return Q_MISS;
	}
	if (c.enter < 0) {
		return Q_INSIDE;
	}
	out->t = c.lo;
	out->kind = F_EDGE;
	out->index = c.enter;
	return Q_HIT;
}

/* R_k: outer side (n.x <= n.v + R 2^16), ends at v (-e.x <= -e.v) and v + e (e.x <= e.v + e.e),
 * inner side (-m.x <= -m.v), in that order. */
static int32_t cast_rect(const q_mink *m, int32_t k, int64_t dx, int64_t dy, q_rat hi, q_toi *out)
{
	int32_t k1 = next_k(m, k);
	int64_t vx = m->x[k], vy = m->y[k];
	int64_t ex = m->x[k1] - vx, ey = m->y[k1] - vy;
	int64_t nx = m->nx[k], ny = m->ny[k];
	int64_t ev = ex * vx + ey * vy;
	q_clip c = {{0, 1}, hi, -1};
	/* radius 0 (a segment M): the outer side is the edge's own line, taken with the exact
	 * perpendicular as the inner side is (the rounded unit normal's line would leave a
	 * wedge between the two instead of the segment) */
	bool flat = m->radius == 0;
	if (!clip(&c, flat ? ey * dx - ex * dy : nx * dx + ny * dy,
	          flat ? ey * vx - ex * vy : nx * vx + ny * vy + m->radius * 65536, 0) ||
	    !clip(&c, -(ex * dx + ey * dy), -ev, 1) ||
	    !clip(&c, ex * dx + ey * dy, ev + ex * ex + ey * ey, 2) ||
	    !clip(&c, -(ey * dx - ex * dy), -(ey * vx - ex * vy), 3)) {
		return Q_MISS;
	}
	if (rat_lt(c.hi, c.lo)) {
		return Q_MISS;
	}
	if (c.enter < 0) {
		return Q_INSIDE;
	}
	if (c.enter == 3) {
		/* through the inner side: from inside the core, which a start outside M never is,
		 * except across a two-vertex core (a segment, capsules): that is the other side's
		 * rectangle's hit, at the same t */
		return Q_MISS;
	}
	out->t = c.lo;
	if (c.enter == 1 || c.enter == 2) {
		out->kind = F_VERTEX;
		out->index = c.enter == 1 ? k : k1;
	} else {
		out->kind = F_EDGE;
		out->index = k;
	}
	return Q_HIT;
}

/* D_k: |t d - v|^2 <= R^2. With b = v.d, a = d.d, c = v.v - R^2 > 0 (outside), the first root
 * is (b - sqrt(b^2 - a c)) / a, real when a c <= b^2, ahead when b > 0. */
static int32_t cast_disc(const q_mink *m, int32_t k, int64_t dx, int64_t dy, q_rat hi, q_toi *out)
{
	int64_t vx = m->x[k], vy = m->y[k];
	uint64_t vv = (uint64_t)(vx * vx) + (uint64_t)(vy * vy); /* < 2^62.3 */
	uint64_t rr = (uint64_t)(m->radius * m->radius);
	if (vv <= rr) {
		return Q_INSIDE;
	}
	int64_t b = vx * dx + vy * dy; /* |.| < 2^62.6 */
	if (b <= 0) {
		return Q_MISS;
	}
	uint64_t a = (uint64_t)(dx * dx) + (uint64_t)(dy * dy); /* <= 2^63 */
	f2d_u128 bb = f2d_u128_mul((uint64_t)b, (uint64_t)b), ac = f2d_u128_mul(a, vv - rr);
	if (f2d_u128_less(bb, ac)) {
		return Q_MISS;
	}
	uint64_t s = isqrt_u128(f2d_u128_sub(bb, ac)); /* s < b: c > 0 */
	q_rat t = {(uint64_t)b - s, a};
	if (rat_lt(hi, t)) {
		return Q_MISS;
	}
	out->t = t;
	out->kind = F_VERTEX;
	out->index = k;
	return Q_HIT;
}

/* The origin is in M (closed). */
bool f2d_mink_contains_origin(const q_mink *m)
{
	q_toi unused;
	q_rat one = {1, 1};
	if (m->count >= 3 && cast_polygon(m, 0, 0, one, &unused) == Q_INSIDE) {
		return true;
	}
	if (m->radius == 0 && m->count == 2) {
		/* a segment (a ray against a segment shape): its two zero-width rectangles */
		return cast_rect(m, 0, 0, 0, one, &unused) == Q_INSIDE;
	}
	if (m->radius == 0) {
		return false;
	}
	for (int32_t k = 0; k < m->count; ++k) {
		if (cast_disc(m, k, 0, 0, one, &unused) == Q_INSIDE ||
		    (m->count >= 2 && cast_rect(m, k, 0, 0, one, &unused) == Q_INSIDE)) {
			return true;
		}
	}
	return false;
}

/* The ray t d, t in [0, hi], against M: Q_INSIDE (the origin is in M), Q_HIT (first entry in
 * *out) or Q_MISS. */
int32_t f2d_mink_cast(const q_mink *m, int64_t dx, int64_t dy, q_rat hi, q_toi *out)
{
	if (m->radius == 0 && m->count >= 3) {
		/* the polygon alone: cast_polygon says Q_INSIDE exactly when every half-plane has
		 * b >= 0, the origin in P, which is mink_contains_origin's answer for this M */
		return cast_polygon(m, dx, dy, hi, out);
	}
	if (f2d_mink_contains_origin(m)) {
		return Q_INSIDE;
	}
	if (m->radius == 0 && m->count != 2) {
		return m->count >= 3 ? cast_polygon(m, dx, dy, hi, out) : Q_MISS;
	}
	/* rounded M: the rectangles beside its edges and the discs at its vertices; a segment M
	 * (count 2, radius 0): its two rectangles of width 0 (a disc of radius 0 is never hit) */
	int32_t found = Q_MISS;
	q_toi best = {{0, 1}, 0, 0}, t;
	for (int32_t k = 0; k < m->count; ++k) {
		if (m->count >= 2 && cast_rect(m, k, dx, dy, hi, &t) == Q_HIT &&
		    (found == Q_MISS || rat_lt(t.t, best.t))) {
			best = t;
			found = Q_HIT;
		}
		if (cast_disc(m, k, dx, dy, hi, &t) == Q_HIT &&
		    (found == Q_MISS || rat_lt(t.t, best.t))) {
			best = t;
			found = Q_HIT;
		}
	}
	*out = best;
	return found;
}

/* ---- hits ---- */

static inline fix16_t clamp32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : (v < INT32_MIN ? INT32_MIN : (fix16_t)v);
}

/* Unit fix16 vector along (x, y) != 0 (any magnitude below 2^62). */
static f2d_vec2 unit64(int64_t x, int64_t y)
{
	while (x > ((int64_t)1 << 30) || x < -((int64_t)1 << 30) || y > ((int64_t)1 << 30) ||
	       y < -((int64_t)1 << 30)) {
		x /= 2; /* toward zero, symmetric in sign */
		y /= 2;
	}
	uint64_t len = f2d_isqrt64_round((uint64_t)(x * x + y * y));
	if (len == 0) {
		return f2d_v(0, 0);
	}
	return f2d_v(f2d_div_exact(x, (int64_t)len),
	             f2d_div_exact(y, (int64_t)len)); /* x 2^16 / len */
}

/* The hit's fraction, normal and contact point on B (world) from the time of impact. A swept
 * by t d touches B at: an edge of B (A's vertex ia + t d - rA n), an edge of A or a disc
 * (B's vertex ib + rB n). */
void f2d_make_hit(const q_mink *m, const q_core *b, const q_core *a, int64_t dx, int64_t dy,
                  const q_toi *toi, q_hit *h)
{
	uint64_t t32 = f2d_rat_t32(toi->t);
	h->t32 = t32;
	h->fraction = (fix16_t)((t32 + 0x8000u) >> 16);
	int32_t k = toi->index;
	f2d_vec2 n;
	if (toi->kind == F_EDGE) {
		n = f2d_v(m->nx[k], m->ny[k]);
	} else {
		/* hit point - vertex k, in 2^-24 m */
		n = unit64(scale_t32(dx, t32, 24) - m->x[k] * 256,
		           scale_t32(dy, t32, 24) - m->y[k] * 256);
	}
	h->normal = n;
	int64_t px, py;
	if (toi->kind == F_EDGE && !m->from_a[k]) {
		int32_t ai = m->ia[k];
		px = a->x[ai] + scale_t32(dx, t32, 32) - f2d_round16(a->radius * n.x);
		py = a->y[ai] + scale_t32(dy, t32, 32) - f2d_round16(a->radius * n.y);
	} else {
		int32_t bi = m->ib[k];
		px = b->x[bi] + f2d_round16(b->radius * n.x);
		py = b->y[bi] + f2d_round16(b->radius * n.y);
	}
	h->point = f2d_v(clamp32(px), clamp32(py));
}
