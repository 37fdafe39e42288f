/* The drawing of a world with cairo, shared by fix2d-replay's pictures (render.c) and the
 * viewer fix2d-view (view.c). Built only with cairo (F2D_HAVE_CAIRO). Drawing uses double
 * (tools only: nothing here feeds a simulation). Public API only.
 * SPDX-License-Identifier: MIT
 *
 * Picture: world y up; bodies filled (static green, kinematic blue, dynamic pink, sleeping
 * dimmed) with an outline and a rotation mark (centre to the local +x axis); joints as lines
 * from the body centres to the anchors (a mouse joint: B's centre, its anchor, its target);
 * contact points (yellow) with their normals;
 * AABBs (magenta). A view maps a world point (x, y) to pixel (ox + x s, oy - y s).
 */
#ifdef F2D_HAVE_CAIRO
#include "draw.h"

#include "fix2d/fix2d.h"

#include <math.h>
#include <stdlib.h>

#define TWO_PI 6.283185307179586

/* ---- colours (Box2D v3 samples' palette, on a dark background) ---- */
const rgb BACKGROUND = {0.10, 0.10, 0.12};
const rgb STATIC_C = {0.50, 0.90, 0.50};
const rgb KINEMATIC_C = {0.50, 0.50, 0.90};
const rgb DYNAMIC_C = {0.90, 0.70, 0.70};
const rgb SLEEPING_C = {0.60, 0.60, 0.60};
const rgb JOINT_C = {0.50, 0.80, 0.80};
const rgb CONTACT_C = {1.00, 0.90, 0.20};
const rgb NORMAL_C = {0.30, 0.90, 0.90};
const rgb AABB_C = {0.90, 0.30, 0.90};
const rgb DIVERGED_C = {0.95, 0.15, 0.15};
const rgb TEXT_C = {0.95, 0.95, 0.95};

/* the fill is the colour at half strength over the background (opaque, so pixels are exact) */
void set_fill(cairo_t *cr, rgb c, double strength)
{
	cairo_set_source_rgb(cr, BACKGROUND.r + (c.r - BACKGROUND.r) * strength,
	                     BACKGROUND.g + (c.g - BACKGROUND.g) * strength,
	                     BACKGROUND.b + (c.b - BACKGROUND.b) * strength);
}

/* ---- the view: world metres to pixels ---- */
void box_add(box *b, double x0, double y0, double x1, double y1)
{
	if (b->empty) {
		*b = (box){x0, y0, x1, y1, false};
		return;
	}
	b->x0 = fmin(b->x0, x0);
	b->y0 = fmin(b->y0, y0);
	b->x1 = fmax(b->x1, x1);
	b->y1 = fmax(b->y1, y1);
}

/* What to frame: the shapes of bodies that can move; a world with none, every shape. */
void frame_world(const f2d_world *w, const st_world *s, box *b)
{
	box all = {0, 0, 0, 0, true};
	bool any = false;
	for (int32_t i = 0; i < s->shape_count; ++i) {
		const st_shape *sh = &s->shapes[i];
		if (!sh->alive) {
			continue;
		}
		f2d_shape_id id = {i + 1, sh->generation};
		f2d_aabb a = f2d_shape_get_aabb(w, id);
		box_add(&all, d(a.lower.x), d(a.lower.y), d(a.upper.x), d(a.upper.y));
		if (s->bodies[sh->body].type != F2D_STATIC_BODY) {
			box_add(b, d(a.lower.x), d(a.lower.y), d(a.upper.x), d(a.upper.y));
			any = true;
		}
	}
	if (!any && !all.empty) {
		box_add(b, all.x0, all.y0, all.x1, all.y1);
	}
}

view fit(box b, int width, int height)
{
	if (b.empty) {
		b = (box){-10, -1, 10, 14, false};
	}
	double mx = fmax(1.0, 0.08 * (b.x1 - b.x0)), my = fmax(1.0, 0.08 * (b.y1 - b.y0));
	b.x0 -= mx;
	b.x1 += mx;
	b.y0 -= my;
	b.y1 += my + 0.06 * (b.y1 - b.y0) + 0.5; /* room for the label */
	double s = fmin(width / (b.x1 - b.x0), height / (b.y1 - b.y0));
	view v;
	v.s = s;
	v.ox = width / 2.0 - s * (b.x0 + b.x1) / 2;
	v.oy = height / 2.0 + s * (b.y0 + b.y1) / 2;
	return v;
}

void to_px(const view *v, double x, double y, double *px, double *py)
{
	*px = v->ox + x * v->s;
	*py = v->oy - y * v->s;
}

/* ---- drawing ---- */

void world_point(const st_body *b, f2d_vec2 local, double *x, double *y)
{
	double c = d(b->q.c), s = d(b->q.s), lx = d(local.x), ly = d(local.y);
	*x = d(b->origin.x) + c * lx - s * ly;
	*y = d(b->origin.y) + s * lx + c * ly;
}

void shape_path(cairo_t *cr, const view *v, const st_body *b, const st_shape *sh)
{
	double x, y, px, py;
	if (sh->type >= 2) {
		/* capsule: the two end arcs joined; segment and chain segment: the line */
		double ax, ay, bx, by;
		world_point(b, sh->vertices[0], &x, &y);
		to_px(v, x, y, &ax, &ay);
		world_point(b, sh->vertices[1], &x, &y);
		to_px(v, x, y, &bx, &by);
		if (sh->type == 2) {
			double a = atan2(by - ay, bx - ax), rr = d(sh->radius) * v->s;
			cairo_new_sub_path(cr);
			cairo_arc(cr, bx, by, rr, a - TWO_PI / 4, a + TWO_PI / 4);
			cairo_arc(cr, ax, ay, rr, a + TWO_PI / 4, a + 3 * TWO_PI / 4);
			cairo_close_path(cr);
		} else {
			cairo_move_to(cr, ax, ay);
			cairo_line_to(cr, bx, by);
		}
		return;
	}
	if (sh->polygon) {
		for (int32_t k = 0; k < sh->count; ++k) {
			world_point(b, sh->vertices[k], &x, &y);
			to_px(v, x, y, &px, &py);
			if (k == 0) {
				cairo_move_to(cr, px, py);
			} else {
				cairo_line_to(cr, px, py);
			}
		}
		cairo_close_path(cr);
	} else {
		world_point(b, sh->center, &x, &y);
		to_px(v, x, y, &px, &py);
		cairo_new_sub_path(cr);
		cairo_arc(cr, px, py, d(sh->radius) * v->s, 0, TWO_PI);
		cairo_close_path(cr);
	}
}

rgb body_colour(const st_body *b)
{
	if (b->type == F2D_STATIC_BODY) {
		return STATIC_C;
	}
	if (!b->awake) {
		return SLEEPING_C;
	}
	return b->type == F2D_KINEMATIC_BODY ? KINEMATIC_C : DYNAMIC_C;
}

/* Bodies, in id order (shapes of a body in id order). */
void draw_bodies(cairo_t *cr, const view *v, const st_world *s, const draw_opts *o)
{
	double lw = fmax(1.0, fmin(2.0, v->s * 0.03));
	cairo_set_line_width(cr, lw);
	for (int32_t i = 0; i < s->shape_count; ++i) {
		const st_shape *sh = &s->shapes[i];
		if (!sh->alive) {
			continue;
		}
		const st_body *b = &s->bodies[sh->body];
		bool red =
		    o->diverged != NULL && sh->body < o->diverged_count && o->diverged[sh->body];
		rgb c = red ? DIVERGED_C : body_colour(b);
		shape_path(cr, v, b, sh);
		if (o->ghost) {
			cairo_set_source_rgb(cr, 0.45, 0.55, 0.95);
			cairo_stroke(cr);
			continue;
		}
		set_fill(cr, c, red ? 1.0 : (b->awake || b->type == F2D_STATIC_BODY ? 0.5 : 0.3));
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, c.r, c.g, c.b);
		cairo_stroke(cr);
		/* rotation mark: from the centre of the shape to its local +x side */
		double cx, cy, ex, ey, px, py, qx, qy;
		if (sh->type >= 2) {
			world_point(b, sh->center, &cx, &cy);
			world_point(b, sh->vertices[1], &ex, &ey);
		} else if (sh->polygon) {
			f2d_vec2 sum = {0, 0};
			fix16_t xmax = sh->vertices[0].x;
			for (int32_t k = 0; k < sh->count; ++k) {
				sum.x += sh->vertices[k].x / sh->count;
				sum.y += sh->vertices[k].y / sh->count;
				xmax = sh->vertices[k].x > xmax ? sh->vertices[k].x : xmax;
			}
			world_point(b, sum, &cx, &cy);
			f2d_vec2 e = {xmax, sum.y};
			world_point(b, e, &ex, &ey);
		} else {
			world_point(b, sh->center, &cx, &cy);
			f2d_vec2 e = {sh->center.x + sh->radius, sh->center.y};
			world_point(b, e, &ex, &ey);
		}
		if (b->type != F2D_STATIC_BODY) {
			to_px(v, cx, cy, &px, &py);
			to_px(v, ex, ey, &qx, &qy);
			cairo_move_to(cr, px, py);
			cairo_line_to(cr, qx, qy);
			cairo_stroke(cr);
		}
	}
}

/* Every live shape's AABB (from the world), by shape id. */
static void draw_aabbs(cairo_t *cr, const view *v, f2d_world *w, const st_world *s)
{
	double px, py, qx, qy;
	cairo_set_line_width(cr, 1.0);
	cairo_set_source_rgb(cr, AABB_C.r, AABB_C.g, AABB_C.b);
	for (int32_t i = 0; i < s->shape_count; ++i) {
		if (!s->shapes[i].alive) {
			continue;
		}
		f2d_shape_id id = {i + 1, s->shapes[i].generation};
		f2d_aabb a = f2d_shape_get_aabb(w, id);
		to_px(v, d(a.lower.x), d(a.upper.y), &px, &py);
		to_px(v, d(a.upper.x), d(a.lower.y), &qx, &qy);
		cairo_rectangle(cr, px, py, qx - px, qy - py);
		cairo_stroke(cr);
	}
}

/* A mouse joint: A is only a reference: B's centre to its anchor ab, to the target (the
 * joint's axis field holds it), a dot at the target. */
static void draw_mouse_joint(cairo_t *cr, const view *v, const st_joint *j, const st_body *bb,
                             f2d_vec2 ab)
{
	double px, py, qx, qy;
	to_px(v, d(bb->center.x), d(bb->center.y), &px, &py);
	cairo_move_to(cr, px, py);
	to_px(v, d(ab.x), d(ab.y), &px, &py);
	cairo_line_to(cr, px, py);
	to_px(v, d(j->axis.x), d(j->axis.y), &qx, &qy);
	cairo_line_to(cr, qx, qy);
	cairo_stroke(cr);
	cairo_arc(cr, qx, qy, 2.5, 0, TWO_PI);
	cairo_fill(cr);
}

/* Another joint: centre of A to its anchor aa, to B's anchor ab, to the centre of B (a static
 * body's side is left out: its centre may be far away), a dot at A's anchor. */
static void draw_joint_lines(cairo_t *cr, const view *v, const st_body *ba, const st_body *bb,
                             f2d_vec2 aa, f2d_vec2 ab)
{
	double px, py, qx, qy;
	to_px(v, d(aa.x), d(aa.y), &qx, &qy);
	cairo_move_to(cr, qx, qy);
	if (ba->type != F2D_STATIC_BODY) {
		to_px(v, d(ba->center.x), d(ba->center.y), &px, &py);
		cairo_line_to(cr, px, py);
		cairo_move_to(cr, qx, qy);
	}
	to_px(v, d(ab.x), d(ab.y), &qx, &qy);
	cairo_line_to(cr, qx, qy);
	if (bb->type != F2D_STATIC_BODY) {
		to_px(v, d(bb->center.x), d(bb->center.y), &px, &py);
		cairo_line_to(cr, px, py);
	}
	cairo_stroke(cr);
	to_px(v, d(aa.x), d(aa.y), &qx, &qy);
	cairo_arc(cr, qx, qy, 2.5, 0, TWO_PI);
	cairo_fill(cr);
}

/* Every live joint with world anchors, by joint id. */
static void draw_joints(cairo_t *cr, const view *v, f2d_world *w, const st_world *s)
{
	cairo_set_line_width(cr, 1.5);
	cairo_set_source_rgb(cr, JOINT_C.r, JOINT_C.g, JOINT_C.b);
	for (int32_t i = 0; i < s->joint_count; ++i) {
		const st_joint *j = &s->joints[i];
		if (!j->alive) {
			continue;
		}
		f2d_joint_id id = {i + 1, j->generation};
		f2d_vec2 aa, ab;
		if (f2d_joint_get_world_anchors(w, id, &aa, &ab) != F2D_OK) {
			continue;
		}
		const st_body *ba = &s->bodies[j->body_a], *bb = &s->bodies[j->body_b];
		if (j->type == F2D_MOUSE_JOINT) {
			draw_mouse_joint(cr, v, j, bb, ab);
		} else {
			draw_joint_lines(cr, v, ba, bb, aa, ab);
		}
	}
}

/* Every contact point with known geometry (f2d_world_get_contacts' order): its normal and a
 * small square. */
static void draw_contacts(cairo_t *cr, const view *v, f2d_world *w)
{
	double px, py;
	int32_t n = f2d_world_get_contacts(w, NULL, 0);
	f2d_contact_data *c = n > 0 ? malloc((size_t)n * sizeof *c) : NULL;
	n = c != NULL ? f2d_world_get_contacts(w, c, n) : 0;
	double len = fmin(14.0, fmax(5.0, 0.3 * v->s));
	cairo_set_line_width(cr, 1.0);
	for (int32_t i = 0; i < n; ++i) {
		if (!c[i].geometry_known) {
			continue;
		}
		for (int32_t k = 0; k < c[i].point_count; ++k) {
			const f2d_contact_point_data *p = &c[i].points[k];
			to_px(v, d(p->point.x), d(p->point.y), &px, &py);
			cairo_set_source_rgb(cr, NORMAL_C.r, NORMAL_C.g, NORMAL_C.b);
			cairo_move_to(cr, px, py);
			cairo_line_to(cr, px + len * d(c[i].normal.x), py - len * d(c[i].normal.y));
			cairo_stroke(cr);
			cairo_set_source_rgb(cr, CONTACT_C.r, CONTACT_C.g, CONTACT_C.b);
			cairo_rectangle(cr, px - 1.5, py - 1.5, 3, 3);
			cairo_fill(cr);
		}
	}
	free(c);
}

void draw_details(cairo_t *cr, const view *v, f2d_world *w, const st_world *s, const draw_opts *o)
{
	if (o->aabb) {
		draw_aabbs(cr, v, w, s);
	}
	if (o->joints) {
		draw_joints(cr, v, w, s);
	}
	if (o->contacts) {
		draw_contacts(cr, v, w);
	}
}

void draw_text(cairo_t *cr, double x, double y, double size, const char *text)
{
	cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, text);
}

/* A scale bar of 1, 2 or 5 x 10^k m about 80 px long, bottom left. */
void draw_scale(cairo_t *cr, const view *v, int height)
{
	double target = 80.0 / v->s, unit = pow(10.0, floor(log10(target)));
	double len = target / unit >= 5 ? 5 * unit : target / unit >= 2 ? 2 * unit : unit;
	double x = 12, y = height - 14, px = len * v->s;
	cairo_set_source_rgb(cr, TEXT_C.r, TEXT_C.g, TEXT_C.b);
	cairo_set_line_width(cr, 2);
	cairo_move_to(cr, x, y - 4);
	cairo_line_to(cr, x, y);
	cairo_line_to(cr, x + px, y);
	cairo_line_to(cr, x + px, y - 4);
	cairo_stroke(cr);
	char t[32];
	snprintf(t, sizeof t, "%g m", len);
	draw_text(cr, x + px + 6, y + 3, 11, t);
}

/* One tile: background, world, label, scale bar. */
void draw_tile(cairo_t *cr, const view *v, int width, int height, f2d_world *w, const st_world *s,
               const draw_opts *o, const char *label)
{
	set_fill(cr, BACKGROUND, 1.0);
	cairo_rectangle(cr, 0, 0, width, height);
	cairo_fill(cr);
	draw_bodies(cr, v, s, o);
	draw_details(cr, v, w, s, o);
	cairo_set_source_rgb(cr, TEXT_C.r, TEXT_C.g, TEXT_C.b);
	draw_text(cr, 8, 16, 12, label);
	draw_scale(cr, v, height);
}

#else
typedef int draw_needs_cairo; /* ISO C: a translation unit is not empty */
#endif
