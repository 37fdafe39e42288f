/* fix2d geometry: polygon validation, bounding boxes, mass properties.
 * SPDX-License-Identifier: MIT
 */
#include "core.h"

/* Smallest distance of a vertex from the line of any edge it does not belong to: rejects
 * collinear neighbours and slivers (a polygon thinner than this is degenerate). */
#define F2D_MIN_VERTEX_EDGE_DISTANCE F2D_MILLI(2)

static bool within_extent(f2d_vec2 p, fix16_t extent)
{
	return p.x >= -extent && p.x <= extent && p.y >= -extent && p.y <= extent;
}

f2d_result f2d_make_polygon(const f2d_vec2 *points, int32_t count, f2d_polygon *out)
{
	if (points == NULL || out == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (count < 3 || count > F2D_MAX_POLYGON_VERTICES) {
		return F2D_ERROR_BAD_POLYGON;
	}
	for (int32_t i = 0; i < count; ++i) {
		if (!within_extent(points[i], F2D_MAX_SHAPE_EXTENT)) {
			return F2D_ERROR_BAD_POLYGON;
		}
	}
	f2d_polygon p;
	for (int32_t i = 0; i < F2D_MAX_POLYGON_VERTICES; ++i) {
		p.vertices[i] = f2d_v(0, 0);
		p.normals[i] = f2d_v(0, 0);
	}
	p.count = count;
	for (int32_t i = 0; i < count; ++i) {
		f2d_vec2 a = points[i];
		f2d_vec2 b = points[(i + 1) % count];
		f2d_vec2 e = f2d_sub(b, a);
		fix16_t len;
		f2d_vec2 dir = f2d_normalize(e, &len);
		if (len < F2D_MIN_SHAPE_SIZE) {
			return F2D_ERROR_BAD_POLYGON;
		}
		/* Convex and counter-clockwise: every other vertex lies strictly left of the edge,
		 * at least F2D_MIN_VERTEX_EDGE_DISTANCE from its line (this also rejects polygons
		 * that wind more than once). The distance is cross(dir, v - a). */
		for (int32_t j = 0; j < count; ++j) {
			if (j == i || j == (i + 1) % count) {
				continue;
			}
			fix16_t d = f2d_cross(dir, f2d_sub(points[j], a));
			if (d < F2D_MIN_VERTEX_EDGE_DISTANCE) {
				return F2D_ERROR_BAD_POLYGON;
			}
		}
		p.vertices[i] = a;
		p.normals[i] = f2d_right_perp(dir); /* outward for CCW winding */
	}
	/* Vertex average: a point inside the polygon (the mass centroid is computed separately). */
	int64_t sx = 0, sy = 0;
	for (int32_t i = 0; i < count; ++i) {
		sx += p.vertices[i].x;
		sy += p.vertices[i].y;
	}
	p.centroid = f2d_v((fix16_t)(sx / count), (fix16_t)(sy / count));
	*out = p;
	return F2D_OK;
}

f2d_result f2d_make_box(fix16_t hx, fix16_t hy, f2d_polygon *out)
{
	f2d_vec2 zero = {0, 0};
	return f2d_make_offset_box(hx, hy, zero, f2d_rot_identity(), out);
}

f2d_result f2d_make_offset_box(fix16_t hx, fix16_t hy, f2d_vec2 center, f2d_rot rotation,
                               f2d_polygon *out)
{
	if (out == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (hx < F2D_MIN_SHAPE_SIZE || hy < F2D_MIN_SHAPE_SIZE || hx > F2D_MAX_SHAPE_EXTENT ||
	    hy > F2D_MAX_SHAPE_EXTENT || !within_extent(center, F2D_MAX_SHAPE_EXTENT)) {
		return F2D_ERROR_INVALID_VALUE;
	}
	/* rotation must be unit length within 1/128 (bounded first: the squares cannot overflow) */
	if (rotation.c < -2 * F2D_ONE || rotation.c > 2 * F2D_ONE || rotation.s < -2 * F2D_ONE ||
	    rotation.s > 2 * F2D_ONE) {
		return F2D_ERROR_INVALID_VALUE;
	}
	int64_t len2 = f2d_dot64(f2d_v(rotation.c, rotation.s), f2d_v(rotation.c, rotation.s));
	int64_t one = (int64_t)1 << 32;
	if (len2 < one - (one >> 7) || len2 > one + (one >> 7)) {
		return F2D_ERROR_INVALID_VALUE;
	}
	f2d_vec2 local[4] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
	f2d_vec2 pts[4];
	for (int i = 0; i < 4; ++i) {
		pts[i] = f2d_add(f2d_rotate(rotation, local[i]), center);
	}
	return f2d_make_polygon(pts, 4, out);
}

f2d_aabb f2d_shape_compute_aabb(const f2d_shape *s, f2d_transform xf, fix16_t margin)
{
	f2d_aabb box;
	if (f2d_shape_is_linear(s)) {
		return f2d_linear_aabb(s, xf, margin);
	}
	if (s->type == F2D_CIRCLE_SHAPE) {
		f2d_vec2 c = f2d_xf_point(xf, s->circle.center);
		fix16_t r = s->circle.radius + margin;
		box.lower = f2d_v(c.x - r, c.y - r);
		box.upper = f2d_v(c.x + r, c.y + r);
		return box;
	}
	const f2d_polygon *p = &s->polygon;
	f2d_vec2 lo = f2d_xf_point(xf, p->vertices[0]);
	f2d_vec2 hi = lo;
	for (int32_t i = 1; i < p->count; ++i) {
		f2d_vec2 v = f2d_xf_point(xf, p->vertices[i]);
		lo.x = f2d_min(lo.x, v.x);
		lo.y = f2d_min(lo.y, v.y);
		hi.x = f2d_max(hi.x, v.x);
		hi.y = f2d_max(hi.y, v.y);
	}
	box.lower = f2d_v(lo.x - margin, lo.y - margin);
	box.upper = f2d_v(hi.x + margin, hi.y + margin);
	return box;
}

fix16_t f2d_shape_extent(const f2d_shape *s)
{
	if (f2d_shape_is_linear(s)) {
		return f2d_linear_extent(s);
	}
	if (s->type == F2D_CIRCLE_SHAPE) {
		return f2d_length(s->circle.center) + s->circle.radius;
	}
	fix16_t e = 0;
	for (int32_t i = 0; i < s->polygon.count; ++i) {
		e = f2d_max(e, f2d_length(s->polygon.vertices[i]));
	}
	return e;
}

/* Mass properties per unit density, then scaled; all integrals exact in 64 bits for shapes
 * within F2D_MAX_DYNAMIC_SHAPE_EXTENT (32 m, so coordinate differences < 2^23 LSB).
 *
 * Polygon: fan of triangles (r, v_i, v_i+1) from a reference point r inside the polygon.
 * With e1 = v_i - r, e2 = v_i+1 - r and D = cross(e1, e2):
 *   area_i     = D / 2
 *   centroid_i = r + (e1 + e2) / 3
 *   J_i (about r, unit density) = D / 12 * (e1x^2 + e1x e2x + e2x^2 + e1y^2 + e1y e2y + e2y^2)
 * Sum, then move J from r to the centroid c: J_c = J_r - area |c - r|^2. */
bool f2d_shape_mass(const f2d_shape *s, f2d_mass_data *md)
{
	if (f2d_shape_is_linear(s)) {
		return f2d_linear_mass(s, md); /* capsules; segments have none */
	}
	if (f2d_shape_extent(s) > F2D_MAX_DYNAMIC_SHAPE_EXTENT) {
		return false;
	}
	int64_t density = s->density;
	if (s->type == F2D_CIRCLE_SHAPE) {
		int64_t r = s->circle.radius;
		int64_t r2 = f2d_round16(r * r);                  /* Q16, < 2^26 */
		int64_t area = f2d_round16(r2 * (int64_t)F2D_PI); /* Q16 */
		md->mass = f2d_round16(area * density);
		md->center = s->circle.center;
		/* I = m r^2 / 2 */
		md->inertia = md->mass > (int64_t)F2D_MAX_MASS ? (INT64_MAX >> 2)
		                                               : f2d_round16(md->mass * r2) / 2;
		return true;
	}
	const f2d_polygon *p = &s->polygon;
	f2d_vec2 r = p->vertices[0];
	int64_t area2 = 0;        /* 2 * area, Q16 */
	int64_t cx6 = 0, cy6 = 0; /* sum of D (e1 + e2), Q32 -> kept in Q16 * Q16 */
	int64_t j12 = 0;          /* 12 * J about r, Q16 */
	for (int32_t i = 1; i + 1 < p->count; ++i) {
		f2d_vec2 e1 = f2d_sub(p->vertices[i], r);
		f2d_vec2 e2 = f2d_sub(p->vertices[i + 1], r);
		int64_t d =
		    f2d_round16((int64_t)e1.x * e2.y - (int64_t)e1.y * e2.x); /* Q16 < 2^29 */
		area2 += d;
		cx6 += d * ((int64_t)e1.x + e2.x); /* Q32 < 2^53 */
		cy6 += d * ((int64_t)e1.y + e2.y);
		int64_t ix = (int64_t)e1.x * e1.x + (int64_t)e1.x * e2.x + (int64_t)e2.x * e2.x;
		int64_t iy = (int64_t)e1.y * e1.y + (int64_t)e1.y * e2.y + (int64_t)e2.y * e2.y;
		int64_t q = f2d_round16(ix + iy); /* Q16 < 2^31 */
		j12 += f2d_round16(d * q);        /* Q16 */
	}
	if (area2 <= 0) {
		return false;
	}
	/* centroid offset from r: sum(D (e1 + e2) / 6) / area = sum(D (e1 + e2)) / (3 area2) */
	f2d_vec2 off;
	off.x = (fix16_t)(cx6 >= 0 ? (cx6 + 3 * area2 / 2) / (3 * area2)
	                           : -((-cx6 + 3 * area2 / 2) / (3 * area2)));
	off.y = (fix16_t)(cy6 >= 0 ? (cy6 + 3 * area2 / 2) / (3 * area2)
	                           : -((-cy6 + 3 * area2 / 2) / (3 * area2)));
	int64_t area = area2 / 2 + (area2 & 1); /* Q16 */
	int64_t j_r = (j12 + 6) / 12;           /* unit density, about r */
	int64_t d2 = f2d_round16(f2d_dot64(off, off));
	int64_t j_c = j_r - f2d_round16(area * d2);
	if (j_c <= 0) {
		return false;
	}
	md->mass = f2d_round16(area * density);
	md->center = f2d_add(r, off);
	/* j_c < 2^40 and density < 2^31: guard the product (such a body fails the range check) */
	md->inertia =
	    j_c > (INT64_MAX >> 2) / (density + 1) ? (INT64_MAX >> 2) : f2d_round16(j_c * density);
	return true;
}
