/* fix2d capsules, segments and chains: validation, creation, mass, world cache, narrow phase.
 * SPDX-License-Identifier: MIT
 *
 * A capsule is a segment (its core) rounded by a radius; a segment is a capsule of radius 0; a
 * chain segment is a one-sided segment that knows its neighbours' far points (ghost vertices,
 * Box2D v3's b2ChainSegment). Every capsule-like shape keeps its core in world coordinates as a
 * two-vertex polygon (f2d_linear_update_world), so the narrow phase is the polygon SAT with
 * clipping extended by the sum of the radii, plus Box2D v3's closest-feature rule for rounded
 * cores that are apart (a cap meeting a corner), all in exact integer arithmetic.
 *
 * Pairs: capsule x {circle, polygon, capsule, segment, chain segment}, segment x {circle,
 * polygon, capsule}, chain segment x {circle, polygon, capsule}. Segments and chain segments
 * never collide with each other (no area; Box2D does the same).
 */
#include "clip.h"

static inline bool in_extent(f2d_vec2 p)
{
	return p.x >= -F2D_MAX_SHAPE_EXTENT && p.x <= F2D_MAX_SHAPE_EXTENT &&
	       p.y >= -F2D_MAX_SHAPE_EXTENT && p.y <= F2D_MAX_SHAPE_EXTENT;
}

/* |b - a| >= F2D_MIN_SHAPE_SIZE, exact: |b - a|^2 >= MIN^2 in Q32 (differences < 2^27, squares
 * < 2^55). */
static inline bool long_enough(f2d_vec2 a, f2d_vec2 b)
{
	int64_t dx = (int64_t)b.x - a.x, dy = (int64_t)b.y - a.y;
	return dx * dx + dy * dy >= (int64_t)F2D_MIN_SHAPE_SIZE * F2D_MIN_SHAPE_SIZE;
}

bool f2d_segment_ok(f2d_vec2 p1, f2d_vec2 p2)
{
	return in_extent(p1) && in_extent(p2) && long_enough(p1, p2);
}

bool f2d_capsule_ok(const f2d_capsule *c)
{
	if (c->radius < F2D_MIN_SHAPE_SIZE || c->radius > F2D_MAX_SHAPE_EXTENT ||
	    !f2d_segment_ok(c->center1, c->center2)) {
		return false;
	}
	/* the rounded ends within 512 m of the origin (lengths < 2^26, sums below 2^31) */
	return (int64_t)f2d_length(c->center1) + c->radius <= F2D_MAX_SHAPE_EXTENT &&
	       (int64_t)f2d_length(c->center2) + c->radius <= F2D_MAX_SHAPE_EXTENT;
}

/* A ghost is the neighbour's far point, or the end point itself at an open chain's end. */
bool f2d_chain_segment_ok(f2d_vec2 g1, f2d_vec2 p1, f2d_vec2 p2, f2d_vec2 g2)
{
	bool end1 = g1.x == p1.x && g1.y == p1.y, end2 = g2.x == p2.x && g2.y == p2.y;
	return f2d_segment_ok(p1, p2) && (end1 || f2d_segment_ok(g1, p1)) &&
	       (end2 || f2d_segment_ok(p2, g2));
}

/* ---- creation ---- */

static f2d_result not_dynamic(f2d_world *w, f2d_body_id body, const char *what)
{
	const f2d_body *b = f2d_get_body(w, body);
	if (b == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "%s: null, stale or foreign body handle", what);
	}
	if (b->type == F2D_DYNAMIC_BODY) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "%s: segments and chains have no mass: static and kinematic "
		                     "bodies only",
		                     what);
	}
	return F2D_OK;
}

f2d_result f2d_create_capsule_shape(f2d_world *w, f2d_body_id body, const f2d_shape_def *def,
                                    const f2d_capsule *capsule, f2d_shape_id *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (def == NULL || capsule == NULL || out == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "create_capsule_shape: def, capsule and out are required");
	}
	if (!f2d_capsule_ok(capsule)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_capsule_shape: radius must be in [0.005, 512] m, the "
		                     "centres >= 0.005 m apart (else use a circle) and the capsule "
		                     "within 512 m of the body origin");
	}
	f2d_shape proto;
	memset(&proto, 0, sizeof proto);
	proto.type = F2D_CAPSULE_SHAPE;
	proto.capsule = *capsule;
	return f2d_create_shape_proto(w, body, def, &proto, out);
}

f2d_result f2d_create_segment_shape(f2d_world *w, f2d_body_id body, const f2d_shape_def *def,
                                    const f2d_segment *segment, f2d_shape_id *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (def == NULL || segment == NULL || out == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "create_segment_shape: def, segment and out are required");
	}
	if (!f2d_segment_ok(segment->point1, segment->point2)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_segment_shape: points must be >= 0.005 m apart and "
		                     "within 512 m of the body origin");
	}
	f2d_result r = not_dynamic(w, body, "create_segment_shape");
	if (r != F2D_OK) {
		return r;
	}
	f2d_shape proto;
	memset(&proto, 0, sizeof proto);
	proto.type = F2D_SEGMENT_SHAPE;
	proto.capsule.center1 = segment->point1;
	proto.capsule.center2 = segment->point2;
	return f2d_create_shape_proto(w, body, def, &proto, out);
}

f2d_chain_def f2d_default_chain_def(void)
{
	f2d_chain_def d;
	memset(&d, 0, sizeof d);
	d.friction = F2D_MILLI(600);
	d.filter = f2d_default_filter();
	d.enable_contact_events = true;
	d.enable_sensor_events = true;
	return d;
}

/* What f2d_create_chain refuses of a def and its out array, in this order: the count, the out
 * capacity, a point out of extent, two consecutive points too close, friction, restitution. */
static f2d_result check_chain_def(f2d_world *w, const f2d_chain_def *def,
                                  const f2d_shape_id *out_ids, int32_t out_capacity)
{
	int32_t n = def->count;
	if (n < 2 || n > F2D_MAX_CHAIN_POINTS || (def->loop && n < 3)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_chain: count %d: need 2..%d points (3.. for a loop)",
		                     (int)n, F2D_MAX_CHAIN_POINTS);
	}
	int32_t edges = def->loop ? n : n - 1;
	if (out_ids != NULL && out_capacity < edges) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_chain: out_capacity %d < %d segments",
		                     (int)out_capacity, (int)edges);
	}
	const f2d_vec2 *p = def->points;
	for (int32_t i = 0; i < n; ++i) {
		if (!in_extent(p[i])) {
			return f2d_set_error(
			    w, F2D_ERROR_INVALID_VALUE,
			    "create_chain: point %d outside 512 m of the body origin", (int)i);
		}
	}
	for (int32_t i = 0; i < edges; ++i) {
		if (!long_enough(p[i], p[(i + 1) % n])) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "create_chain: points %d and %d closer than 0.005 m",
			                     (int)i, (int)((i + 1) % n));
		}
	}
	if (def->friction < 0 || def->friction > F2D_FIX(4) || def->restitution < 0 ||
	    def->restitution > F2D_ONE) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "create_chain: friction must be in [0, 4], restitution in "
		                     "[0, 1]");
	}
	return F2D_OK;
}

/* All or nothing: room for edges more shape ids first (growing capacities changes no state),
 * so that no creation can fail (the body is static or kinematic: no mass check). */
static f2d_result reserve_chain_shapes(f2d_world *w, int32_t edges)
{
	f2d_id_pool *pool = &w->shape_ids;
	int32_t fresh = edges > pool->free_count ? edges - pool->free_count : 0;
	if ((int64_t)pool->next + fresh > F2D_MAX_OBJECTS) {
		return f2d_set_error(w, F2D_ERROR_CAPACITY, "create_chain: more than %d shapes",
		                     F2D_MAX_OBJECTS);
	}
	if (!f2d_grow(w, (void **)&pool->free_ids, &pool->free_capacity, pool->next + fresh,
	              sizeof(int32_t)) ||
	    !f2d_grow_aligned(w, (void **)&w->shapes, &w->shape_capacity, pool->next + fresh,
	                      sizeof(f2d_shape))) {
		return f2d_set_error(w, F2D_ERROR_OUT_OF_MEMORY,
		                     "create_chain: allocator returned NULL; nothing was created");
	}
	return F2D_OK;
}

/* Segment i of n points (edges of them): points i and i + 1, its ghosts the points before and
 * after (an open chain's end segments are their own ghosts there). */
static void chain_segment(const f2d_vec2 *p, int32_t n, int32_t edges, bool loop, int32_t i,
                          f2d_shape *proto)
{
	memset(proto, 0, sizeof *proto);
	proto->type = F2D_CHAIN_SEGMENT_SHAPE;
	proto->capsule.center1 = p[i];
	proto->capsule.center2 = p[(i + 1) % n];
	bool first = !loop && i == 0, last = !loop && i == edges - 1;
	proto->ghost1 = first ? p[0] : p[(i + n - 1) % n];
	proto->ghost2 = last ? p[n - 1] : p[(i + 2) % n];
}

f2d_result f2d_create_chain(f2d_world *w, f2d_body_id body, const f2d_chain_def *def,
                            f2d_shape_id *out_ids, int32_t out_capacity)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (def == NULL || def->points == NULL) {
		return f2d_set_error(w, F2D_ERROR_NULL_ARGUMENT,
		                     "create_chain: def and def->points are required");
	}
	int32_t n = def->count, edges = def->loop ? n : n - 1;
	f2d_result r = check_chain_def(w, def, out_ids, out_capacity);
	if (r == F2D_OK) {
		r = not_dynamic(w, body, "create_chain");
	}
	if (r == F2D_OK) {
		r = reserve_chain_shapes(w, edges);
	}
	if (r != F2D_OK) {
		return r;
	}
	f2d_shape_def sd = f2d_default_shape_def();
	sd.friction = def->friction;
	sd.restitution = def->restitution;
	sd.filter = def->filter;
	sd.user_data = def->user_data;
	sd.enable_contact_events = def->enable_contact_events;
	sd.enable_sensor_events = def->enable_sensor_events;
	for (int32_t i = 0; i < edges; ++i) {
		f2d_shape proto;
		chain_segment(def->points, n, edges, def->loop, i, &proto);
		f2d_shape_id id;
		r = f2d_create_shape_proto(w, body, &sd, &proto, &id);
		if (r != F2D_OK) {
			return r; /* cannot happen: checked above */
		}
		if (out_ids != NULL) {
			out_ids[i] = id;
		}
	}
	return F2D_OK;
}

static const f2d_shape *shape_of(const f2d_world *w, f2d_shape_id id)
{
	if (w == NULL || id.index1 < 1 || id.index1 > w->shape_ids.next) {
		return NULL;
	}
	const f2d_shape *s = &w->shapes[id.index1 - 1];
	return s->alive && s->generation == id.generation ? s : NULL;
}

f2d_shape_type f2d_shape_get_type(const f2d_world *w, f2d_shape_id id)
{
	const f2d_shape *s = shape_of(w, id);
	return s != NULL ? s->type : F2D_CIRCLE_SHAPE;
}

f2d_result f2d_shape_get_capsule(const f2d_world *w, f2d_shape_id id, f2d_capsule *out)
{
	const f2d_shape *s = shape_of(w, id);
	if (s == NULL || out == NULL) {
		return s == NULL ? F2D_ERROR_INVALID_HANDLE : F2D_ERROR_NULL_ARGUMENT;
	}
	if (s->type != F2D_CAPSULE_SHAPE) {
		return F2D_ERROR_INVALID_VALUE;
	}
	*out = s->capsule;
	return F2D_OK;
}

f2d_result f2d_shape_get_segment(const f2d_world *w, f2d_shape_id id, f2d_segment *out,
                                 f2d_vec2 *ghost1, f2d_vec2 *ghost2)
{
	const f2d_shape *s = shape_of(w, id);
	if (s == NULL || out == NULL) {
		return s == NULL ? F2D_ERROR_INVALID_HANDLE : F2D_ERROR_NULL_ARGUMENT;
	}
	if (s->type != F2D_SEGMENT_SHAPE && s->type != F2D_CHAIN_SEGMENT_SHAPE) {
		return F2D_ERROR_INVALID_VALUE;
	}
	out->point1 = s->capsule.center1;
	out->point2 = s->capsule.center2;
	bool chain = s->type == F2D_CHAIN_SEGMENT_SHAPE;
	if (ghost1 != NULL) {
		*ghost1 = chain ? s->ghost1 : s->capsule.center1;
	}
	if (ghost2 != NULL) {
		*ghost2 = chain ? s->ghost2 : s->capsule.center2;
	}
	return F2D_OK;
}

/* ---- geometry ---- */

void f2d_linear_update_world(f2d_shape *s, f2d_transform xf, fix16_t margin)
{
	f2d_polygon *wp = &s->world_polygon;
	f2d_vec2 c1 = f2d_xf_point(xf, s->capsule.center1),
	         c2 = f2d_xf_point(xf, s->capsule.center2);
	f2d_vec2 n = f2d_right_perp(f2d_normalize(f2d_sub(c2, c1), NULL));
	wp->count = 2;
	wp->vertices[0] = c1;
	wp->vertices[1] = c2;
	wp->normals[0] = n;
	wp->normals[1] = f2d_neg(n);
	if (s->type == F2D_CHAIN_SEGMENT_SHAPE) {
		wp->vertices[2] = f2d_xf_point(xf, s->ghost1);
		wp->vertices[3] = f2d_xf_point(xf, s->ghost2);
	}
	fix16_t r = s->capsule.radius + margin;
	s->aabb.lower = f2d_v(f2d_min(c1.x, c2.x) - r, f2d_min(c1.y, c2.y) - r);
	s->aabb.upper = f2d_v(f2d_max(c1.x, c2.x) + r, f2d_max(c1.y, c2.y) + r);
}

f2d_aabb f2d_linear_aabb(const f2d_shape *s, f2d_transform xf, fix16_t margin)
{
	f2d_vec2 c1 = f2d_xf_point(xf, s->capsule.center1),
	         c2 = f2d_xf_point(xf, s->capsule.center2);
	fix16_t r = s->capsule.radius + margin;
	f2d_aabb box;
	box.lower = f2d_v(f2d_min(c1.x, c2.x) - r, f2d_min(c1.y, c2.y) - r);
	box.upper = f2d_v(f2d_max(c1.x, c2.x) + r, f2d_max(c1.y, c2.y) + r);
	return box;
}

fix16_t f2d_linear_extent(const f2d_shape *s)
{
	return f2d_max(f2d_length(s->capsule.center1), f2d_length(s->capsule.center2)) +
	       s->capsule.radius;
}

/* Capsule mass (Box2D's b2ComputeCapsuleMass), unit density then scaled; r the radius, L the
 * core's length, h = L / 2:
 *   area  = pi r^2 + 2 r L                 (two half discs and a rectangle)
 *   I_box = m_box (L^2 + 4 r^2) / 12       (the rectangle L x 2r about its centre)
 *   I_cap = m_disc (r^2 / 2 + h^2 + 2 h c) with c = 4 r / (3 pi), the half discs' centroid
 *           offset from their flat side: each half disc is I = m r^2 / 4 about its flat side's
 *           centre, moved to its centroid (- m c^2) and on to the capsule's centre
 *           (+ m (h + c)^2): m/2 (r^2 / 2 + h^2 + 2 h c) each.
 * All in Q16 held in 64 bits: r, L <= 64 m (within 32 m of the origin), so r^2, L^2 < 2^28,
 * masses below 2^14 kg are < 2^30 and each product below 2^60; heavier ones fail the body's
 * mass check (inertia saturated as for circles). */
#define F2D_FOUR_THIRDS_PI_INV 27814 /* 4 / (3 pi) = 0.424413 in Q16 */

bool f2d_linear_mass(const f2d_shape *s, f2d_mass_data *md)
{
	if (s->type != F2D_CAPSULE_SHAPE || f2d_linear_extent(s) > F2D_MAX_DYNAMIC_SHAPE_EXTENT) {
		return false;
	}
	int64_t density = s->density;
	int64_t r = s->capsule.radius;
	int64_t len = f2d_length(f2d_sub(s->capsule.center2, s->capsule.center1));
	int64_t rr = f2d_round16(r * r), ll = f2d_round16(len * len);
	int64_t disc_area = f2d_round16(rr * (int64_t)F2D_PI);
	int64_t box_area = f2d_round16(2 * r * len);
	int64_t disc_mass = f2d_round16(disc_area * density);
	int64_t box_mass = f2d_round16(box_area * density);
	md->mass = disc_mass + box_mass;
	md->center = f2d_v((fix16_t)(((int64_t)s->capsule.center1.x + s->capsule.center2.x) / 2),
	                   (fix16_t)(((int64_t)s->capsule.center1.y + s->capsule.center2.y) / 2));
	if (md->mass > (int64_t)F2D_MAX_MASS) {
		md->inertia = INT64_MAX >> 2;
		return true;
	}
	int64_t h = len / 2;
	int64_t c = f2d_round16(F2D_FOUR_THIRDS_PI_INV * r);
	int64_t disc_arm = rr / 2 + f2d_round16(h * h) + 2 * f2d_round16(h * c);
	int64_t i_disc = f2d_round16(disc_mass * disc_arm);
	int64_t i_box = f2d_round16(box_mass * (ll + 4 * rr)) / 12;
	md->inertia = i_disc + i_box;
	return true;
}

/* ---- narrow phase ----
 * Feature ids (uint32), as collision.c's polygon ids (bit 15 flip, bits 8..11 reference edge,
 * bits 4..7 incident edge, bit 0 end) for the clipped points, and:
 *   bit 17 set: a closest-feature point of rounded cores (bits 4..7 the vertex of A, bits 0..3
 *               the vertex of B);
 *   bit 18 set: a circle against a capsule-like core (bits 0..1: 0 interior, 1 or 2 the end). */
#define ID_CLOSEST 0x20000u
#define ID_CIRCLE 0x40000u

/* Below this separation of the cores (0.0005 m, Box2D v3's 0.1 linear slop) the clipped points
 * are used; above it, rounded cores meeting vertex to vertex get one point along the closest
 * line. */
#define CLOSEST_RULE_MIN 33

/* s_i = min_j n1_i . (v2_j - v1_i) over p1's edges i < edges; the first maximum. */
static int64_t max_separation(int32_t *edge, const f2d_polygon *p1, int32_t edges,
                              const f2d_polygon *p2)
{
	int32_t best = 0;
	int64_t best_sep = INT64_MIN;
	for (int32_t i = 0; i < edges; ++i) {
		f2d_vec2 n = p1->normals[i];
		int64_t si = INT64_MAX;
		for (int32_t j = 0; j < p2->count; ++j) {
			int64_t d = f2d_dot64(n, p2->vertices[j]);
			si = d < si ? d : si;
		}
		si -= f2d_dot64(n, p1->vertices[i]);
		if (si > best_sep) {
			best_sep = si;
			best = i;
		}
	}
	*edge = best;
	return best_sep;
}

static inline int32_t next_of(const f2d_polygon *p, int32_t i)
{
	return i + 1 < p->count ? i + 1 : 0;
}

static inline fix16_t half(int64_t v) /* v / 2 toward zero */
{
	return (fix16_t)((v + (v < 0 ? 1 : 0)) >> 1);
}

/* The closest point to p on segment a-b (clamped) and the squared distance (Q32); *end is 0 or
 * 1 when the point is an end, -1 inside. The fraction is num / den rounded once, both scaled
 * below 2^46 first so the division's shift cannot overflow. */
static int64_t closest_on_segment(f2d_vec2 p, f2d_vec2 a, f2d_vec2 b, f2d_vec2 *q, int32_t *end)
{
	f2d_vec2 d = f2d_sub(b, a);
	int64_t num = f2d_dot64(f2d_sub(p, a), d), den = f2d_dot64(d, d);
	if (num <= 0) {
		*q = a;
		*end = 0;
	} else if (num >= den) {
		*q = b;
		*end = 1;
	} else {
		while (den >= ((int64_t)1 << 46)) {
			num >>= 1;
			den >>= 1;
		}
		*q = f2d_mul_add(a, f2d_div_exact(num, den), d);
		*end = -1;
	}
	f2d_vec2 e = f2d_sub(p, *q);
	return f2d_dot64(e, e);
}

/* The incident edge of p2 for a reference normal n1: the edge whose normal is most
 * anti-parallel to n1 (the first of equals) */
static inline int32_t incident_edge(const f2d_polygon *p2, f2d_vec2 n1)
{
	int32_t edge = 0;
	fix16_t min_dot = INT32_MAX;
	for (int32_t i = 0; i < p2->count; ++i) {
		fix16_t d = f2d_dot(n1, p2->normals[i]);
		if (d < min_dot) {
			min_dot = d;
			edge = i;
		}
	}
	return edge;
}

/* Reference face edge1 of p1 (radius r1), incident edge of p2 (radius r2): the clipped points
 * within the speculative distance, each midway between the two surfaces. Normal n1 from p1 to
 * p2 (negated when flip: the manifold's normal goes from A to B). */
static void clip_and_emit(const f2d_polygon *p1, int32_t edge1, fix16_t r1, const f2d_polygon *p2,
                          fix16_t r2, bool flip, fix16_t speculative, f2d_manifold *m)
{
	f2d_vec2 n1 = p1->normals[edge1];
	int32_t edge2 = incident_edge(p2, n1);
	uint32_t base = (flip ? ID_FLIP : 0u) | ((uint32_t)edge1 << 8) | ((uint32_t)edge2 << 4);
	clip_vertex inc[2], c1[2], c2[2];
	inc[0].v = p2->vertices[edge2];
	inc[0].id = base;
	inc[1].v = p2->vertices[next_of(p2, edge2)];
	inc[1].id = base | 1u;
	f2d_vec2 v11 = p1->vertices[edge1], v12 = p1->vertices[next_of(p1, edge1)];
	f2d_vec2 tangent = f2d_left_perp(n1);
	if (clip_segment(c1, inc, f2d_neg(tangent), -f2d_dot(tangent, v11)) < 2 ||
	    clip_segment(c2, c1, tangent, f2d_dot(tangent, v12)) < 2) {
		return;
	}
	int64_t rsum = (int64_t)r1 + r2;
	m->normal = flip ? f2d_neg(n1) : n1;
	int32_t count = 0;
	for (int32_t i = 0; i < 2; ++i) {
		fix16_t s0 = f2d_dot(n1, f2d_sub(c2[i].v, v11)); /* core to core */
		int64_t sep = (int64_t)s0 - rsum;
		if (sep <= speculative) {
			/* midway between p1's surface (r1 above the face) and p2's (r2 below c) */
			fix16_t back = half((int64_t)s0 + r2 - r1);
			m->points[count].point = f2d_mul_sub(c2[i].v, back, n1);
			m->points[count].separation = f2d_sat(sep);
			m->points[count].id = c2[i].id;
			++count;
		}
	}
	m->count = count;
}

/* One point between the closest points qa (on A's core) and qb (B's core), at distance dist2
 * (Q32) apart: normal from A to B. False when the cores touch (no direction). */
static bool emit_closest(f2d_vec2 qa, fix16_t ra, f2d_vec2 qb, fix16_t rb, uint32_t id,
                         fix16_t speculative, f2d_manifold *m)
{
	fix16_t dist;
	f2d_vec2 n = f2d_normalize(f2d_sub(qb, qa), &dist);
	if (dist == 0) {
		return false;
	}
	int64_t sep = (int64_t)dist - ra - rb;
	m->count = 0;
	if (sep > speculative) {
		return true;
	}
	f2d_vec2 pa = f2d_mul_add(qa, ra, n), pb = f2d_mul_sub(qb, rb, n);
	m->normal = n;
	m->count = 1;
	m->points[0].point =
	    f2d_v((fix16_t)(((int64_t)pa.x + pb.x) / 2), (fix16_t)(((int64_t)pa.y + pb.y) / 2));
	m->points[0].separation = f2d_sat(sep);
	m->points[0].id = id;
	return true;
}

static inline int sign64(int64_t v)
{
	return (v > 0) - (v < 0);
}

/* Whether the segments a0-a1 and b0-b1 cross (each one's ends strictly on both sides of the
 * other's line; exact: differences < 2^31, products < 2^62, a difference of two < 2^63). */
static bool segments_cross(const f2d_polygon *a, const f2d_polygon *b)
{
	f2d_vec2 a0 = a->vertices[0], a1 = a->vertices[1], b0 = b->vertices[0], b1 = b->vertices[1];
	f2d_vec2 ea = f2d_sub(a1, a0), eb = f2d_sub(b1, b0);
	int s1 = sign64(f2d_dot64(f2d_sub(b0, a0), f2d_v(ea.y, -ea.x)));
	int s2 = sign64(f2d_dot64(f2d_sub(b1, a0), f2d_v(ea.y, -ea.x)));
	int s3 = sign64(f2d_dot64(f2d_sub(a0, b0), f2d_v(eb.y, -eb.x)));
	int s4 = sign64(f2d_dot64(f2d_sub(a1, b0), f2d_v(eb.y, -eb.x)));
	return s1 * s2 < 0 && s3 * s4 < 0;
}

/* The closest features of p1's reference edge e1 and p2's incident edge (the edge of p2 whose
 * normal is most anti-parallel to e1's): the least of the four vertex-to-edge distances (Box2D
 * v3 uses these two edges). True when they are two vertices: q1 on p1 (index k1), q2 on p2
 * (index k2). */
static bool closest_vertices(const f2d_polygon *p1, int32_t e1, const f2d_polygon *p2, f2d_vec2 *q1,
                             f2d_vec2 *q2, int32_t *k1, int32_t *k2)
{
	int32_t e2 = incident_edge(p2, p1->normals[e1]);
	int32_t i1[2] = {e1, next_of(p1, e1)}, i2[2] = {e2, next_of(p2, e2)};
	int64_t best = INT64_MAX;
	*q1 = p1->vertices[e1], *q2 = p2->vertices[e2];
	*k1 = 0, *k2 = 0;
	bool vertex_vertex = false;
	for (int32_t k = 0; k < 2; ++k) {
		f2d_vec2 q;
		int32_t end;
		int64_t d2 = closest_on_segment(p1->vertices[i1[k]], p2->vertices[i2[0]],
		                                p2->vertices[i2[1]], &q, &end);
		if (d2 < best) {
			best = d2, *q1 = p1->vertices[i1[k]], *q2 = q, *k1 = i1[k];
			*k2 = end < 0 ? 0 : i2[end];
			vertex_vertex = end >= 0;
		}
		d2 = closest_on_segment(p2->vertices[i2[k]], p1->vertices[i1[0]],
		                        p1->vertices[i1[1]], &q, &end);
		if (d2 < best) {
			best = d2, *q1 = q, *q2 = p2->vertices[i2[k]], *k2 = i2[k];
			*k1 = end < 0 ? 0 : i1[end];
			vertex_vertex = end >= 0;
		}
	}
	return vertex_vertex;
}

/* Rounded convex cores A (pa, radius ra) and B: SAT over A's first edges_a edges and all of
 * B's (edges_a = 1: A is a one-sided segment, only its front face counts), the reference face
 * chosen as collision.c does; when the cores are apart by more than CLOSEST_RULE_MIN and the
 * closest points of the reference and incident edges are both vertices (a rounded cap meeting a
 * corner or another cap), one point along the line between them (Box2D v3's rule). */
static void collide_rounded(const f2d_polygon *pa, int32_t edges_a, fix16_t ra,
                            const f2d_polygon *pb, fix16_t rb, fix16_t speculative, f2d_manifold *m)
{
	int64_t rsum = (int64_t)ra + rb;
	int32_t edge_a, edge_b;
	fix16_t sep_a = f2d_sat(f2d_round16(max_separation(&edge_a, pa, edges_a, pb)));
	if ((int64_t)sep_a - rsum > speculative) {
		return;
	}
	fix16_t sep_b = f2d_sat(f2d_round16(max_separation(&edge_b, pb, pb->count, pa)));
	if ((int64_t)sep_b - rsum > speculative) {
		return;
	}
	bool flip = sep_b > f2d_mul(F2D_MILLI(980), sep_a) + F2D_MILLI(1);
	fix16_t sep = flip ? sep_b : sep_a;
	/* Two segment cores: their normals are not a complete set of axes (two collinear
	 * capsules end to end are apart along neither normal), so the closest features decide
	 * whenever the cores do not cross. */
	bool two_segments = pa->count == 2 && pb->count == 2 && !segments_cross(pa, pb);
	/* the cores are apart: their distance is that of the closest features */
	f2d_vec2 q1, q2;
	int32_t k1, k2;
	if (rsum > 0 && (sep > CLOSEST_RULE_MIN || two_segments) &&
	    closest_vertices(flip ? pb : pa, flip ? edge_b : edge_a, flip ? pa : pb, &q1, &q2, &k1,
	                     &k2)) {
		/* q1 on p1, q2 on p2: back to A and B */
		uint32_t id =
		    ID_CLOSEST | (flip ? ID_FLIP : 0u) | ((uint32_t)k1 << 4) | (uint32_t)k2;
		if (flip ? emit_closest(q2, ra, q1, rb, id, speculative, m)
		         : emit_closest(q1, ra, q2, rb, id, speculative, m)) {
			return;
		}
	}
	if (flip) {
		clip_and_emit(pb, edge_b, rb, pa, ra, true, speculative, m);
	} else {
		clip_and_emit(pa, edge_a, ra, pb, rb, false, speculative, m);
	}
}

/* A circle (centre c, radius rc) against core a-b of radius rs (normal from the core to the
 * circle). For a chain segment (chain != NULL: unit front normal n, ghosts g1, g2; end1/end2:
 * no neighbour), Box2D's one-sided rules: nothing behind the front face, and an end region is
 * left to the neighbour whose interior holds the centre. */
static void collide_core_circle(const f2d_polygon *core, fix16_t rs, f2d_vec2 c, fix16_t rc,
                                bool chain, fix16_t speculative, f2d_manifold *m)
{
	f2d_vec2 a = core->vertices[0], b = core->vertices[1], n = core->normals[0];
	f2d_vec2 e = f2d_sub(b, a);
	fix16_t s = f2d_dot(n, f2d_sub(c, a));
	if (chain && s < 0) {
		return;
	}
	int64_t u1 = f2d_dot64(f2d_sub(c, a), e), u2 = f2d_dot64(f2d_sub(c, b), f2d_neg(e));
	if (u1 <= 0 || u2 <= 0) {
		int32_t end = u1 <= 0 ? 0 : 1;
		f2d_vec2 v = end == 0 ? a : b;
		if (chain) {
			f2d_vec2 g = core->vertices[2 + end];
			bool ghost = g.x != v.x || g.y != v.y;
			/* end 0: the previous edge g -> a holds c before its end; end 1: the next
			 * edge b -> g holds c past its start */
			if (ghost && (end == 0 ? f2d_dot64(f2d_sub(a, g), f2d_sub(c, a)) < 0
			                       : f2d_dot64(f2d_sub(g, b), f2d_sub(c, b)) > 0)) {
				return;
			}
		}
		(void)emit_closest(v, rs, c, rc, ID_CIRCLE | (uint32_t)(end + 1), speculative, m);
		return;
	}
	f2d_vec2 normal = s >= 0 ? n : f2d_neg(n);
	fix16_t dist = f2d_abs(s);
	int64_t sep = (int64_t)dist - rs - rc;
	if (sep > speculative) {
		return;
	}
	/* midway between the core's surface (rs along the normal from the line) and the
	 * circle's (rc back from c) */
	fix16_t back = half((int64_t)dist + rc - rs);
	m->normal = normal;
	m->count = 1;
	m->points[0].point = f2d_mul_sub(c, back, normal);
	m->points[0].separation = f2d_sat(sep);
	m->points[0].id = ID_CIRCLE;
}

static fix16_t radius_of(const f2d_shape *s)
{
	return f2d_shape_is_linear(s) ? s->capsule.radius : 0;
}

/* A reference point inside a polygon or capsule core, world: the vertex average. */
static f2d_vec2 inside_point(const f2d_polygon *p)
{
	int64_t sx = 0, sy = 0;
	for (int32_t i = 0; i < p->count; ++i) {
		sx += p->vertices[i].x;
		sy += p->vertices[i].y;
	}
	return f2d_v((fix16_t)(sx / p->count), (fix16_t)(sy / p->count));
}

/* Chain segment (core seg, unit front normal n = normals[0], ghosts at vertices 2, 3) against a
 * polygon or capsule core q (radius rq); normal from the segment to q.
 *
 * No catching on internal vertices: a normal other than the front face's is kept only where the
 * chain is convex and the normal lies within the vertex's cone of normals (between the two
 * edges' normals); otherwise the segment's own face is the reference (the points are clipped to
 * the segment's span, so a shape crossing a flat or concave vertex is held by each edge's face
 * normal alone, the same direction on both sides: its velocity along the chain does not see
 * the joint). An open chain's ends have no neighbour and keep any normal (a rounded end). */
static void collide_chain_core(const f2d_polygon *seg, const f2d_polygon *q, fix16_t rq,
                               fix16_t speculative, f2d_manifold *m)
{
	f2d_vec2 v1 = seg->vertices[0], v2 = seg->vertices[1], n = seg->normals[0];
	if (f2d_dot64(n, f2d_sub(inside_point(q), v1)) < 0) {
		return; /* behind the one-sided segment */
	}
	collide_rounded(seg, 1, 0, q, rq, speculative, m);
	if (m->count == 0 || (m->normal.x == n.x && m->normal.y == n.y)) {
		return;
	}
	f2d_vec2 mn = m->normal, e = f2d_sub(v2, v1);
	int64_t lean = f2d_dot64(mn, e);
	bool keep = true;
	if (lean < 0) {
		f2d_vec2 g = seg->vertices[2];
		if (g.x != v1.x || g.y != v1.y) {
			f2d_vec2 e0 = f2d_sub(v1, g);
			keep = f2d_dot64(e0, f2d_v(e.y, -e.x)) > 0 && /* convex: cross(e0, e) > 0 */
			       f2d_dot64(e0, mn) >= 0; /* not beyond the previous edge's normal */
		}
	} else if (lean > 0) {
		f2d_vec2 g = seg->vertices[3];
		if (g.x != v2.x || g.y != v2.y) {
			f2d_vec2 e2 = f2d_sub(g, v2);
			keep =
			    f2d_dot64(e, f2d_v(e2.y, -e2.x)) > 0 && /* convex: cross(e, e2) > 0 */
			    f2d_dot64(e2, mn) <= 0;
		}
	}
	if (!keep) {
		m->count = 0;
		clip_and_emit(seg, 0, 0, q, rq, false, speculative, m);
	}
}

void f2d_collide_linear(const f2d_shape *a, const f2d_shape *b, fix16_t speculative,
                        f2d_manifold *m)
{
	bool la = f2d_shape_is_linear(a), lb = f2d_shape_is_linear(b);
	/* the capsule-like one as A (swap back at the end) */
	bool swap = !la;
	(void)lb;
	const f2d_shape *s = swap ? b : a, *o = swap ? a : b;
	bool s_flat = s->type != F2D_CAPSULE_SHAPE;
	bool o_flat = o->type == F2D_SEGMENT_SHAPE || o->type == F2D_CHAIN_SEGMENT_SHAPE;
	if (s_flat && o_flat) {
		return; /* segments and chain segments do not collide with each other */
	}
	if (o->type == F2D_CHAIN_SEGMENT_SHAPE) {
		/* put the chain segment first */
		const f2d_shape *t = s;
		s = o, o = t;
		swap = !swap;
	}
	if (o->type == F2D_CIRCLE_SHAPE) {
		collide_core_circle(&s->world_polygon, s->capsule.radius, o->world_center,
		                    o->circle.radius, s->type == F2D_CHAIN_SEGMENT_SHAPE,
		                    speculative, m);
	} else if (s->type == F2D_CHAIN_SEGMENT_SHAPE) {
		collide_chain_core(&s->world_polygon, &o->world_polygon, radius_of(o), speculative,
		                   m);
	} else {
		collide_rounded(&s->world_polygon, s->world_polygon.count, s->capsule.radius,
		                &o->world_polygon, radius_of(o), speculative, m);
	}
	if (swap) {
		m->normal = f2d_neg(m->normal);
	}
}
