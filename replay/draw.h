/* The drawing of a world with cairo (replay/draw.c), shared by fix2d-replay's pictures and the
 * viewer fix2d-view. Only with cairo (F2D_HAVE_CAIRO). Double for drawing only.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_REPLAY_DRAW_H
#define FIX2D_REPLAY_DRAW_H

#include "fix2d/convert.h"
#include "state.h"

#include <cairo.h>
#include <stdbool.h>

/* ---- colours (Box2D v3 samples' palette, on a dark background) ---- */
typedef struct rgb {
	double r, g, b;
} rgb;

extern const rgb BACKGROUND, STATIC_C, KINEMATIC_C, DYNAMIC_C, SLEEPING_C, JOINT_C, CONTACT_C,
    NORMAL_C, AABB_C, DIVERGED_C, TEXT_C;

/* ---- the view: world metres to pixels ---- */
typedef struct view {
	double ox, oy, s; /* pixel = (ox + x s, oy - y s) */
} view;

typedef struct box {
	double x0, y0, x1, y1;
	bool empty;
} box;

typedef struct draw_opts {
	bool aabb, contacts, joints;
	const unsigned char *diverged; /* red bodies (diff) */
	int diverged_count;
	bool ghost; /* outlines only (the first world of a diff) */
} draw_opts;

static inline double d(fix16_t v)
{
	return f2d_to_double(v);
}

/** The fill: the colour at `strength` over the background (opaque, so pixels are exact). */
void set_fill(cairo_t *cr, rgb c, double strength);
void box_add(box *b, double x0, double y0, double x1, double y1);
/** What to frame: the shapes of bodies that can move; a world with none, every shape. */
void frame_world(const f2d_world *w, const st_world *s, box *b);
/** The view that shows box b (with a margin and room for the label) in width x height. */
view fit(box b, int width, int height);
void to_px(const view *v, double x, double y, double *px, double *py);
/** A body's local point in world coordinates. */
void world_point(const st_body *b, f2d_vec2 local, double *x, double *y);
void shape_path(cairo_t *cr, const view *v, const st_body *b, const st_shape *sh);
rgb body_colour(const st_body *b);
/** Bodies, in id order (shapes of a body in id order). */
void draw_bodies(cairo_t *cr, const view *v, const st_world *s, const draw_opts *o);
/** AABBs, joints and contacts as o asks. */
void draw_details(cairo_t *cr, const view *v, f2d_world *w, const st_world *s, const draw_opts *o);
void draw_text(cairo_t *cr, double x, double y, double size, const char *text);
/** A scale bar of 1, 2 or 5 x 10^k m about 80 px long, bottom left. */
void draw_scale(cairo_t *cr, const view *v, int height);
/** One tile: background, world, label, scale bar. */
void draw_tile(cairo_t *cr, const view *v, int width, int height, f2d_world *w, const st_world *s,
               const draw_opts *o, const char *label);

#endif
