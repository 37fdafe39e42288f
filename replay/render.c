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
#include "draw.h"

#include <cairo.h>

#ifdef CAIRO_HAS_SVG_SURFACE
#include <cairo-svg.h>
#endif

bool render_available(void)
{
	return true;
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
	if (sscanf(t, "%dx%d%c", &a, &b, &extra) != 2 || a < 64 || b < 64 || a > 8192 || b > 8192) {
		return false;
	}
	*w = a;
	*h = b;
	return true;
}

/* the options of render */
typedef struct render_args {
	const char *what, *output, *size;
	long frame, to, every;
	bool aabb;
} render_args;

/* -1 when the arguments are good, else the exit status (the message printed) */
static int parse_render_option(int argc, char **argv, int *i, render_args *a)
{
	const char *value = NULL;
	int m;
	if ((m = match_valued_option(argc, argv, i, "--frame", &value)) != 0) {
		if (m < 0 ||
		    (strcmp(value, "0") != 0 && !parse_count(value, MAX_STEPS, &a->frame))) {
			return bad_count("--frame", m < 0 ? "" : value);
		}
	} else if ((m = match_valued_option(argc, argv, i, "--to", &value)) != 0) {
		if (m < 0 || !parse_count(value, MAX_STEPS, &a->to)) {
			return bad_count("--to", m < 0 ? "" : value);
		}
	} else if ((m = match_valued_option(argc, argv, i, "--every", &value)) != 0) {
		if (m < 0 || !parse_count(value, MAX_STEPS, &a->every)) {
			return bad_count("--every", m < 0 ? "" : value);
		}
	} else if ((m = match_valued_option(argc, argv, i, "--size", &value)) != 0) {
		a->size = value;
		if (m < 0) {
			return usage_error("--size needs WxH", NULL);
		}
	} else if ((m = match_valued_option(argc, argv, i, "-o", &value)) != 0) {
		if (m < 0) {
			return usage_error("-o needs a file name", NULL);
		}
		a->output = value;
	} else if (argv[*i][0] == '-' && argv[*i][1] != '\0') {
		return usage_error("unknown option", argv[*i]);
	} else if (a->what == NULL) {
		a->what = argv[*i];
	} else {
		return usage_error("unexpected argument", argv[*i]);
	}
	return -1;
}

static int parse_render_args(int argc, char **argv, render_args *a)
{
	*a = (render_args){NULL, NULL, NULL, 0, -1, 1, false};
	for (int i = 0; i < argc; ++i) {
		if (is_help(argv[i])) {
			return usage_error("see the usage", "help");
		}
		if (strcmp(argv[i], "--aabb") == 0) {
			a->aabb = true;
			continue;
		}
		int status = parse_render_option(argc, argv, &i, a);
		if (status >= 0) {
			return status;
		}
	}
	if (a->what == NULL || a->output == NULL) {
		return usage_error("render needs SCENE|FILE and -o OUT.png|OUT.svg", NULL);
	}
	if (a->to >= 0 && a->to < a->frame) {
		return usage_error("--to must not be before --frame", NULL);
	}
	return -1;
}

/* the picture's layout: count tiles of tw x th in cols x rows */
typedef struct layout {
	long count;
	int tw, th, cols, rows;
} layout;

static int make_layout(const render_args *a, layout *l)
{
	l->count = a->to < 0 ? 1 : (a->to - a->frame) / a->every + 1;
	if (l->count > 64) {
		return usage_error("a filmstrip has at most 64 frames (raise --every)", NULL);
	}
	l->tw = l->count == 1 ? 800 : 400;
	l->th = l->count == 1 ? 600 : 300;
	if (a->size != NULL && !parse_size(a->size, &l->tw, &l->th)) {
		return usage_error("--size needs WxH, each 64..8192", a->size);
	}
	l->cols = l->count < 4 ? (int)l->count : 4;
	l->rows = (int)((l->count + l->cols - 1) / l->cols);
	return -1;
}

/* the worlds of the frames frame, frame + every, ... into fs (count of them) */
static int collect_frames(source *src, const render_args *a, frame_state *fs, long count)
{
	long at = 0;
	for (long k = 0; k < count; ++k) {
		long want = a->frame + k * a->every;
		while (at < want && source_advance(src)) {
			++at;
		}
		if (at < want) {
			fprintf(stderr, "%s: %s ends at frame %ld, before frame %ld\n", PROG,
			        a->what, at, want);
			return EXIT_USAGE;
		}
		char err[160];
		fs[k].frame = want;
		if (f2d_world_clone(src->w, &fs[k].world) != F2D_OK ||
		    !st_from_world(fs[k].world, &fs[k].s, err, sizeof err)) {
			return EXIT_FAILURE;
		}
	}
	return EXIT_SUCCESS;
}

static void draw_tiles(cairo_t *cr, const view *v, const layout *l, frame_state *fs,
                       const char *name, bool aabb)
{
	draw_opts o = {aabb, true, true, NULL, 0, false};
	for (long i = 0; i < l->count; ++i) {
		int cx = (int)(i % l->cols) * l->tw, cy = (int)(i / l->cols) * l->th;
		char label[160];
		snprintf(label, sizeof label, "%s  step %" PRIu64 "  hash %016" PRIx64, name,
		         fs[i].s.step, fs[i].s.hash);
		cairo_save(cr);
		cairo_translate(cr, cx, cy);
		cairo_rectangle(cr, 0, 0, l->tw, l->th);
		cairo_clip(cr);
		draw_tile(cr, v, l->tw, l->th, fs[i].world, &fs[i].s, &o, label);
		cairo_restore(cr);
		printf("tile %ld frame %ld step %" PRIu64 " hash %016" PRIx64
		       " origin %.3f %.3f scale %.4f\n",
		       i, fs[i].frame, fs[i].s.step, fs[i].s.hash, v->ox + cx, v->oy + cy, v->s);
	}
}

static void draw_tile_borders(cairo_t *cr, const layout *l)
{
	cairo_set_source_rgb(cr, 0.35, 0.35, 0.38);
	cairo_set_line_width(cr, 1);
	for (int c = 1; c < l->cols; ++c) {
		cairo_move_to(cr, c * l->tw + 0.5, 0);
		cairo_line_to(cr, c * l->tw + 0.5, l->th * l->rows);
	}
	for (int r = 1; r < l->rows; ++r) {
		cairo_move_to(cr, 0, r * l->th + 0.5);
		cairo_line_to(cr, l->tw * l->cols, r * l->th + 0.5);
	}
	cairo_stroke(cr);
}

/* the tiles in one view (the union of what each frame frames) into the output file */
static int draw_filmstrip(const render_args *a, const layout *l, frame_state *fs, const char *name)
{
	box b = {0, 0, 0, 0, true};
	for (long i = 0; i < l->count; ++i) {
		frame_world(fs[i].world, &fs[i].s, &b);
	}
	view v = fit(b, l->tw, l->th);
	cairo_surface_t *sf = make_surface(a->output, l->tw * l->cols, l->th * l->rows);
	if (sf == NULL) {
		fprintf(stderr, "%s: %s: this cairo cannot write SVG\n", PROG, a->output);
		return EXIT_FAILURE;
	}
	cairo_t *cr = cairo_create(sf);
	draw_tiles(cr, &v, l, fs, name, a->aabb);
	if (l->count > 1) {
		draw_tile_borders(cr, l);
	}
	cairo_destroy(cr);
	return finish_surface(sf, a->output) ? EXIT_SUCCESS : EXIT_FAILURE;
}

int cmd_render(int argc, char **argv)
{
	render_args a;
	layout l = {0, 0, 0, 0, 0};
	int status = parse_render_args(argc, argv, &a);
	if (status < 0) {
		status = make_layout(&a, &l);
	}
	if (status >= 0) {
		return status;
	}
	source src;
	status = source_open(&src, a.what);
	if (status >= 0) {
		return status;
	}
	frame_state *fs = calloc((size_t)l.count, sizeof *fs);
	status = fs != NULL ? collect_frames(&src, &a, fs, l.count) : EXIT_FAILURE;
	if (status == EXIT_SUCCESS) {
		status = draw_filmstrip(&a, &l, fs, src.name);
	}
	for (long i = 0; fs != NULL && i < l.count; ++i) {
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
	fix16_t qa[6] = {pa.x, pa.y, f2d_body_get_angle(a, h),
	                 va.x, va.y, f2d_body_get_angular_velocity(a, h)};
	fix16_t qb[6] = {pb.x, pb.y, f2d_body_get_angle(b, h),
	                 vb.x, vb.y, f2d_body_get_angular_velocity(b, h)};
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

/* One label in the right-hand column, row `row` (from the top), with a leader from the body's
 * centre (px, py): the text on a patch of background, in the diverged colour. */
static void draw_diff_label(cairo_t *cr, int width, double px, double py, int row,
                            const char *label)
{
	double ty = 34 + 15 * row;
	cairo_set_source_rgb(cr, DIVERGED_C.r, DIVERGED_C.g, DIVERGED_C.b);
	cairo_set_line_width(cr, 1);
	cairo_move_to(cr, px, py);
	cairo_line_to(cr, width - 8 - 0.0, ty - 4); /* leader to the label column */
	cairo_stroke(cr);
	cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);
	cairo_text_extents_t te;
	cairo_text_extents(cr, label, &te);
	set_fill(cr, BACKGROUND, 1.0);
	cairo_rectangle(cr, width - 12 - te.width, ty - 12, te.width + 8, 15);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, DIVERGED_C.r, DIVERGED_C.g, DIVERGED_C.b);
	draw_text(cr, width - 8 - te.width, ty, 11, label);
}

/* The labels of the diverged bodies (alive in the second world), at most 12, in id order. */
static void draw_diff_labels(cairo_t *cr, const view *v, int width, f2d_world *a, f2d_world *b,
                             const st_world *sb, const unsigned char *diverged, int count)
{
	int labelled = 0;
	for (int32_t i = 0; i < count && labelled < 12; ++i) {
		if (diverged == NULL || !diverged[i] || i >= sb->body_count ||
		    !sb->bodies[i].alive) {
			continue;
		}
		char label[200];
		delta_label(a, b, i, label, sizeof label);
		double px, py;
		to_px(v, d(sb->bodies[i].center.x), d(sb->bodies[i].center.y), &px, &py);
		draw_diff_label(cr, width, px, py, labelled, label);
		++labelled;
	}
}

/* The diff picture on surface sf (width x height, view v): the second world filled (the
 * diverged bodies in red) under the first world's outlines, the labels and the legend. */
static void draw_diff(cairo_surface_t *sf, const view *v, int width, int height, f2d_world *a,
                      const st_world *sa, f2d_world *b, const st_world *sb,
                      const unsigned char *diverged, int count, const char *title)
{
	cairo_t *cr = cairo_create(sf);
	draw_opts second = {false, true, true, diverged, count, false};
	draw_tile(cr, v, width, height, b, sb, &second, title);
	draw_opts first = {false, false, false, NULL, 0, true};
	draw_bodies(cr, v, sa, &first);
	draw_diff_labels(cr, v, width, a, b, sb, diverged, count);
	cairo_set_source_rgb(cr, 0.45, 0.55, 0.95);
	draw_text(cr, 8, height - 30, 11, "outline: first world; filled: second (red: differs)");
	printf("diff picture origin %.3f %.3f scale %.4f\n", v->ox, v->oy, v->s);
	cairo_destroy(cr);
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
		draw_diff(sf, &v, width, height, a, &sa, b, &sb, diverged, count, title);
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
	fprintf(stderr,
	        "%s: render: this fix2d-replay was built without cairo (apt-get install "
	        "libcairo2-dev, then rebuild)\n",
	        PROG);
	return EXIT_FAILURE;
}

bool render_diff(struct f2d_world *a, struct f2d_world *b, const unsigned char *diverged, int count,
                 const char *path, const char *title)
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
