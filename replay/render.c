/* fix2d-replay render, and the picture of `diff --png`: worlds drawn with cairo.
 * Built with cairo when CMake finds it (F2D_HAVE_CAIRO); without it the commands say so.
 * Drawing uses double (tools only: nothing here feeds a simulation). Public API only.
 * SPDX-License-Identifier: MIT
 *
 * Picture: world y up; bodies filled (static green, kinematic blue, dynamic pink, sleeping
 * dimmed) with an outline and a rotation mark (centre to the local +x axis); revolute joints
 * as lines from the body centres to the anchor; contact points (yellow) with their normals;
 * AABBs (magenta) with --aabb; a scale bar; a label with the step and the state hash.
 * Each picture prints, per tile, 'tile <i> frame <n> step <s> hash <h> origin <ox> <oy>
 * scale <px per m>': a world point (x, y) is at pixel (ox + x s, oy - y s).
 */
#include "f2r.h"
#include "fix2d/convert.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "replay.h"
#include "state.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef F2D_HAVE_CAIRO
#include <cairo.h>

#define TWO_PI 6.283185307179586
#ifdef CAIRO_HAS_SVG_SURFACE
#include <cairo-svg.h>
#endif

bool render_available(void)
{
	return true;
}

/* ---- colours (Box2D v3 samples' palette, on a dark background) ---- */
typedef struct rgb {
	double r, g, b;
} rgb;

static const rgb BACKGROUND = {0.10, 0.10, 0.12};
static const rgb STATIC_C = {0.50, 0.90, 0.50};
static const rgb KINEMATIC_C = {0.50, 0.50, 0.90};
static const rgb DYNAMIC_C = {0.90, 0.70, 0.70};
static const rgb SLEEPING_C = {0.60, 0.60, 0.60};
static const rgb JOINT_C = {0.50, 0.80, 0.80};
static const rgb CONTACT_C = {1.00, 0.90, 0.20};
static const rgb NORMAL_C = {0.30, 0.90, 0.90};
static const rgb AABB_C = {0.90, 0.30, 0.90};
static const rgb DIVERGED_C = {0.95, 0.15, 0.15};
static const rgb TEXT_C = {0.95, 0.95, 0.95};

/* the fill is the colour at half strength over the background (opaque, so pixels are exact) */
static void set_fill(cairo_t *cr, rgb c, double strength)
{
	cairo_set_source_rgb(cr, BACKGROUND.r + (c.r - BACKGROUND.r) * strength,
	                     BACKGROUND.g + (c.g - BACKGROUND.g) * strength,
	                     BACKGROUND.b + (c.b - BACKGROUND.b) * strength);
}

static double d(fix16_t v)
{
	return f2d_to_double(v);
}

/* ---- the view: world metres to pixels ---- */
typedef struct view {
	double ox, oy, s; /* pixel = (ox + x s, oy - y s) */
} view;

typedef struct box {
	double x0, y0, x1, y1;
	bool empty;
} box;

static void box_add(box *b, double x0, double y0, double x1, double y1)
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
static void frame_world(const f2d_world *w, const st_world *s, box *b)
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

static view fit(box b, int width, int height)
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

static void to_px(const view *v, double x, double y, double *px, double *py)
{
	*px = v->ox + x * v->s;
	*py = v->oy - y * v->s;
}

/* ---- drawing ---- */

static void world_point(const st_body *b, f2d_vec2 local, double *x, double *y)
{
	double c = d(b->q.c), s = d(b->q.s), lx = d(local.x), ly = d(local.y);
	*x = d(b->origin.x) + c * lx - s * ly;
	*y = d(b->origin.y) + s * lx + c * ly;
}

static void shape_path(cairo_t *cr, const view *v, const st_body *b, const st_shape *sh)
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

static rgb body_colour(const st_body *b)
{
	if (b->type == F2D_STATIC_BODY) {
		return STATIC_C;
	}
	if (!b->awake) {
		return SLEEPING_C;
	}
	return b->type == F2D_KINEMATIC_BODY ? KINEMATIC_C : DYNAMIC_C;
}

typedef struct draw_opts {
	bool aabb, contacts, joints;
	const unsigned char *diverged; /* red bodies (diff) */
	int diverged_count;
	bool ghost; /* outlines only (the first world of a diff) */
} draw_opts;

/* Bodies, in id order (shapes of a body in id order). */
static void draw_bodies(cairo_t *cr, const view *v, const st_world *s, const draw_opts *o)
{
	double lw = fmax(1.0, fmin(2.0, v->s * 0.03));
	cairo_set_line_width(cr, lw);
	for (int32_t i = 0; i < s->shape_count; ++i) {
		const st_shape *sh = &s->shapes[i];
		if (!sh->alive) {
			continue;
		}
		const st_body *b = &s->bodies[sh->body];
		bool red = o->diverged != NULL && sh->body < o->diverged_count && o->diverged[sh->body];
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

static void draw_details(cairo_t *cr, const view *v, f2d_world *w, const st_world *s,
                         const draw_opts *o)
{
	double px, py, qx, qy;
	if (o->aabb) {
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
	if (o->joints) {
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
			/* centre of A to its anchor, to B's anchor, to the centre of B (a static
			 * body's side is left out: its centre may be far away) */
			const st_body *ba = &s->bodies[j->body_a], *bb = &s->bodies[j->body_b];
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
	}
	if (o->contacts) {
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
}

static void draw_text(cairo_t *cr, double x, double y, double size, const char *text)
{
	cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, text);
}

/* A scale bar of 1, 2 or 5 x 10^k m about 80 px long, bottom left. */
static void draw_scale(cairo_t *cr, const view *v, int height)
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
static void draw_tile(cairo_t *cr, const view *v, int width, int height, f2d_world *w,
                      const st_world *s, const draw_opts *o, const char *label)
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

/* ---- surfaces: .png or .svg by the extension ---- */

static bool is_svg(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && strcmp(path + n - 4, ".svg") == 0;
}

static cairo_surface_t *make_surface(const char *path, int width, int height)
{
	if (is_svg(path)) {
#ifdef CAIRO_HAS_SVG_SURFACE
		return cairo_svg_surface_create(path, width, height);
#else
		return NULL;
#endif
	}
	return cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
}

static bool finish_surface(cairo_surface_t *sf, const char *path)
{
	cairo_status_t st = cairo_surface_status(sf);
	if (st == CAIRO_STATUS_SUCCESS && !is_svg(path)) {
		st = cairo_surface_write_to_png(sf, path);
	}
	cairo_surface_finish(sf);
	if (st == CAIRO_STATUS_SUCCESS) {
		st = cairo_surface_status(sf);
	}
	cairo_surface_destroy(sf);
	if (st != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path, cairo_status_to_string(st));
		return false;
	}
	return true;
}

/* ---- render ---- */

typedef struct frame_state {
	f2d_world *world; /* a copy of the world at that frame */
	st_world s;
	long frame;
} frame_state;

/* The world source: a scene, a replay or a portable snapshot; advance() steps one frame. */
typedef struct source {
	f2d_world *w;
	f2r_reader r;
	bool replay;
	f2r_frame *fr;
	const char *name;
} source;

static int source_open(source *src, const char *what)
{
	memset(src, 0, sizeof *src);
	src->name = what;
	size_t n = strlen(what);
	if (f2d_scene_find(what) >= 0) {
		return f2d_scene_create(what, NULL, &src->w) == F2D_OK ? -1 : EXIT_FAILURE;
	}
	FILE *f = fopen(what, "rb");
	if (f == NULL) {
		fprintf(stderr, "%s: '%s' is neither a scene (try: %s scenes) nor a file\n", PROG,
		        what, PROG);
		return EXIT_USAGE;
	}
	char head[8] = {0};
	size_t got = fread(head, 1, 8, f);
	if (got == 8 && memcmp(head, "fix2dsnp", 8) == 0) {
		fseek(f, 0, SEEK_END);
		long len = ftell(f);
		fseek(f, 0, SEEK_SET);
		uint8_t *buf = len > 0 ? malloc((size_t)len) : NULL;
		bool ok = buf != NULL && fread(buf, 1, (size_t)len, f) == (size_t)len &&
		          f2d_snapshot_load_new(buf, (size_t)len, NULL, &src->w) == F2D_OK;
		free(buf);
		fclose(f);
		if (!ok) {
			fprintf(stderr, "%s: %s: not a loadable snapshot\n", PROG, what);
			return EXIT_USAGE;
		}
		return -1;
	}
	fclose(f);
	(void)n;
	src->replay = true;
	src->fr = calloc(1, sizeof *src->fr);
	if (src->fr == NULL || !replay_start(what, &src->r, &src->w)) {
		free(src->fr);
		src->fr = NULL;
		src->replay = false;
		return EXIT_USAGE;
	}
	return -1;
}

/* One frame: the replay's commands (if any) and a step. false at the end of a replay. */
static bool source_advance(source *src)
{
	if (src->replay) {
		f2r_status st = f2r_read_frame(&src->r, src->fr);
		if (st != F2R_OK) {
			return false;
		}
		f2d_world_apply_commands(src->w, src->fr->commands, src->fr->count, NULL);
	}
	f2d_world_step(src->w);
	return true;
}

static void source_close(source *src)
{
	f2d_destroy_world(src->w);
	if (src->replay) {
		f2r_close_read(&src->r);
		free(src->fr);
	}
}

static bool parse_size(const char *t, int *w, int *h)
{
	int a = 0, b = 0;
	char extra;
	if (sscanf(t, "%dx%d%c", &a, &b, &extra) != 2 || a < 64 || b < 64 || a > 8192 ||
	    b > 8192) {
		return false;
	}
	*w = a;
	*h = b;
	return true;
}

int cmd_render(int argc, char **argv)
{
	const char *what = NULL, *output = NULL, *size = NULL;
	long frame = 0, to = -1, every = 1;
	bool aabb = false;
	for (int i = 0; i < argc; ++i) {
		const char *value = NULL;
		int m;
		if (is_help(argv[i])) {
			return usage_error("see the usage", "help");
		}
		if (strcmp(argv[i], "--aabb") == 0) {
			aabb = true;
		} else if ((m = match_valued_option(argc, argv, &i, "--frame", &value)) != 0) {
			if (m < 0 || (strcmp(value, "0") != 0 && !parse_count(value, MAX_STEPS, &frame))) {
				return bad_count("--frame", m < 0 ? "" : value);
			}
		} else if ((m = match_valued_option(argc, argv, &i, "--to", &value)) != 0) {
			if (m < 0 || !parse_count(value, MAX_STEPS, &to)) {
				return bad_count("--to", m < 0 ? "" : value);
			}
		} else if ((m = match_valued_option(argc, argv, &i, "--every", &value)) != 0) {
			if (m < 0 || !parse_count(value, MAX_STEPS, &every)) {
				return bad_count("--every", m < 0 ? "" : value);
			}
		} else if ((m = match_valued_option(argc, argv, &i, "--size", &value)) != 0) {
			size = value;
			if (m < 0) {
				return usage_error("--size needs WxH", NULL);
			}
		} else if ((m = match_valued_option(argc, argv, &i, "-o", &value)) != 0) {
			if (m < 0) {
				return usage_error("-o needs a file name", NULL);
			}
			output = value;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return usage_error("unknown option", argv[i]);
		} else if (what == NULL) {
			what = argv[i];
		} else {
			return usage_error("unexpected argument", argv[i]);
		}
	}
	if (what == NULL || output == NULL) {
		return usage_error("render needs SCENE|FILE and -o OUT.png|OUT.svg", NULL);
	}
	if (to >= 0 && to < frame) {
		return usage_error("--to must not be before --frame", NULL);
	}
	long count = to < 0 ? 1 : (to - frame) / every + 1;
	if (count > 64) {
		return usage_error("a filmstrip has at most 64 frames (raise --every)", NULL);
	}
	int tw = count == 1 ? 800 : 400, th = count == 1 ? 600 : 300;
	if (size != NULL && !parse_size(size, &tw, &th)) {
		return usage_error("--size needs WxH, each 64..8192", size);
	}
	int cols = count < 4 ? (int)count : 4, rows = (int)((count + cols - 1) / cols);

	source src;
	int status = source_open(&src, what);
	if (status >= 0) {
		return status;
	}
	frame_state *fs = calloc((size_t)count, sizeof *fs);
	long at = 0, k = 0;
	status = fs != NULL ? EXIT_SUCCESS : EXIT_FAILURE;
	while (status == EXIT_SUCCESS && k < count) {
		long want = frame + k * every;
		while (at < want && source_advance(&src)) {
			++at;
		}
		if (at < want) {
			fprintf(stderr, "%s: %s ends at frame %ld, before frame %ld\n", PROG, what, at,
			        want);
			status = EXIT_USAGE;
			break;
		}
		char err[160];
		fs[k].frame = want;
		if (f2d_world_clone(src.w, &fs[k].world) != F2D_OK ||
		    !st_from_world(fs[k].world, &fs[k].s, err, sizeof err)) {
			status = EXIT_FAILURE;
			break;
		}
		++k;
	}
	if (status == EXIT_SUCCESS) {
		/* one view for every tile: the union of what each frame frames */
		box b = {0, 0, 0, 0, true};
		for (long i = 0; i < count; ++i) {
			frame_world(fs[i].world, &fs[i].s, &b);
		}
		view v = fit(b, tw, th);
		cairo_surface_t *sf = make_surface(output, tw * cols, th * rows);
		if (sf == NULL) {
			fprintf(stderr, "%s: %s: this cairo cannot write SVG\n", PROG, output);
			status = EXIT_FAILURE;
		} else {
			cairo_t *cr = cairo_create(sf);
			draw_opts o = {aabb, true, true, NULL, 0, false};
			for (long i = 0; i < count; ++i) {
				int cx = (int)(i % cols) * tw, cy = (int)(i / cols) * th;
				char label[160];
				snprintf(label, sizeof label, "%s  step %" PRIu64 "  hash %016" PRIx64,
				         src.name, fs[i].s.step, fs[i].s.hash);
				cairo_save(cr);
				cairo_translate(cr, cx, cy);
				cairo_rectangle(cr, 0, 0, tw, th);
				cairo_clip(cr);
				draw_tile(cr, &v, tw, th, fs[i].world, &fs[i].s, &o, label);
				cairo_restore(cr);
				printf("tile %ld frame %ld step %" PRIu64 " hash %016" PRIx64
				       " origin %.3f %.3f scale %.4f\n",
				       i, fs[i].frame, fs[i].s.step, fs[i].s.hash, v.ox + cx, v.oy + cy,
				       v.s);
			}
			if (count > 1) { /* tile borders */
				cairo_set_source_rgb(cr, 0.35, 0.35, 0.38);
				cairo_set_line_width(cr, 1);
				for (int c = 1; c < cols; ++c) {
					cairo_move_to(cr, c * tw + 0.5, 0);
					cairo_line_to(cr, c * tw + 0.5, th * rows);
				}
				for (int r = 1; r < rows; ++r) {
					cairo_move_to(cr, 0, r * th + 0.5);
					cairo_line_to(cr, tw * cols, r * th + 0.5);
				}
				cairo_stroke(cr);
			}
			cairo_destroy(cr);
			status = finish_surface(sf, output) ? EXIT_SUCCESS : EXIT_FAILURE;
		}
	}
	for (long i = 0; fs != NULL && i < count; ++i) {
		st_free(&fs[i].s);
		f2d_destroy_world(fs[i].world);
	}
	free(fs);
	source_close(&src);
	int out = finish_output();
	return status != EXIT_SUCCESS ? status : out;
}

/* ---- the diff picture ---- */

/* "vx +1 LSB (+0.000015 m/s)": the differing quantities of body id, at most three. */
static void delta_label(f2d_world *a, f2d_world *b, int32_t id, char *out, size_t cap)
{
	f2d_body_id h = {id + 1, 0};
	f2d_body_id hs[1];
	(void)hs;
	/* the generation: from the live bodies list */
	int32_t n = f2d_world_get_bodies(b, NULL, 0);
	f2d_body_id *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
	n = ids != NULL ? f2d_world_get_bodies(b, ids, n) : 0;
	for (int32_t i = 0; i < n; ++i) {
		if (ids[i].index1 == id + 1) {
			h = ids[i];
		}
	}
	free(ids);
	snprintf(out, cap, "body %d", id);
	if (!f2d_body_is_valid(a, h) || !f2d_body_is_valid(b, h)) {
		snprintf(out, cap, "body %d: only in one world", id);
		return;
	}
	f2d_vec2 pa = f2d_body_get_position(a, h), pb = f2d_body_get_position(b, h);
	f2d_vec2 va = f2d_body_get_linear_velocity(a, h), vb = f2d_body_get_linear_velocity(b, h);
	fix16_t qa[6] = {pa.x, pa.y, f2d_body_get_angle(a, h), va.x, va.y,
	                 f2d_body_get_angular_velocity(a, h)};
	fix16_t qb[6] = {pb.x, pb.y, f2d_body_get_angle(b, h), vb.x, vb.y,
	                 f2d_body_get_angular_velocity(b, h)};
	static const char *const names[6] = {"x", "y", "angle", "vx", "vy", "w"};
	static const char *const units[6] = {"m", "m", "rad", "m/s", "m/s", "rad/s"};
	int shown = 0;
	size_t len = strlen(out);
	for (int k = 0; k < 6 && shown < 3; ++k) {
		int64_t dl = (int64_t)qb[k] - qa[k];
		if (dl == 0 || len >= cap) {
			continue;
		}
		len += (size_t)snprintf(out + len, cap - len, "%s d%s %+.6f %s (%+" PRId64 " LSB)",
		                        shown == 0 ? ":" : ",", names[k], (double)dl / 65536.0,
		                        units[k], dl);
		++shown;
	}
	if (shown == 0 && len < cap) {
		snprintf(out + len, cap - len, ": other fields (see the text report)");
	}
}

bool render_diff(f2d_world *a, f2d_world *b, const unsigned char *diverged, int count,
                 const char *path, const char *title)
{
	st_world sa, sb;
	char err[160];
	if (!st_from_world(a, &sa, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return false;
	}
	if (!st_from_world(b, &sb, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		st_free(&sa);
		return false;
	}
	int width = 900, height = 650;
	box bx = {0, 0, 0, 0, true};
	frame_world(a, &sa, &bx);
	frame_world(b, &sb, &bx);
	view v = fit(bx, width, height);
	cairo_surface_t *sf = make_surface(path, width, height);
	bool ok = sf != NULL;
	if (ok) {
		cairo_t *cr = cairo_create(sf);
		draw_opts second = {false, true, true, diverged, count, false};
		draw_tile(cr, &v, width, height, b, &sb, &second, title);
		draw_opts first = {false, false, false, NULL, 0, true};
		draw_bodies(cr, &v, &sa, &first);
		/* labels of the diverged bodies, at most 12, in id order */
		int labelled = 0;
		for (int32_t i = 0; i < count && labelled < 12; ++i) {
			if (diverged == NULL || !diverged[i] || i >= sb.body_count ||
			    !sb.bodies[i].alive) {
				continue;
			}
			char label[200];
			delta_label(a, b, i, label, sizeof label);
			double px, py;
			to_px(&v, d(sb.bodies[i].center.x), d(sb.bodies[i].center.y), &px, &py);
			double ty = 34 + 15 * labelled;
			cairo_set_source_rgb(cr, DIVERGED_C.r, DIVERGED_C.g, DIVERGED_C.b);
			cairo_set_line_width(cr, 1);
			cairo_move_to(cr, px, py);
			cairo_line_to(cr, width - 8 - 0.0, ty - 4); /* leader to the label column */
			cairo_stroke(cr);
			cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL,
			                       CAIRO_FONT_WEIGHT_NORMAL);
			cairo_set_font_size(cr, 11);
			cairo_text_extents_t te;
			cairo_text_extents(cr, label, &te);
			set_fill(cr, BACKGROUND, 1.0);
			cairo_rectangle(cr, width - 12 - te.width, ty - 12, te.width + 8, 15);
			cairo_fill(cr);
			cairo_set_source_rgb(cr, DIVERGED_C.r, DIVERGED_C.g, DIVERGED_C.b);
			draw_text(cr, width - 8 - te.width, ty, 11, label);
			++labelled;
		}
		cairo_set_source_rgb(cr, 0.45, 0.55, 0.95);
		draw_text(cr, 8, height - 30, 11, "outline: first world; filled: second (red: differs)");
		printf("diff picture origin %.3f %.3f scale %.4f\n", v.ox, v.oy, v.s);
		cairo_destroy(cr);
		ok = finish_surface(sf, path);
	} else {
		fprintf(stderr, "%s: %s: cannot make the surface\n", PROG, path);
	}
	st_free(&sa);
	st_free(&sb);
	return ok;
}

#else /* no cairo */

bool render_available(void)
{
	return false;
}

int cmd_render(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "%s: render: this fix2d-replay was built without cairo (apt-get install "
	                "libcairo2-dev, then rebuild)\n", PROG);
	return EXIT_FAILURE;
}

bool render_diff(struct f2d_world *a, struct f2d_world *b, const unsigned char *diverged,
                 int count, const char *path, const char *title)
{
	(void)a;
	(void)b;
	(void)diverged;
	(void)count;
	(void)path;
	(void)title;
	fprintf(stderr, "%s: pictures need a fix2d-replay built with cairo\n", PROG);
	return false;
}

#endif
