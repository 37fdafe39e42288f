/* The web page's entry points (replay/web/): fix2d compiled to WebAssembly with emcc; the page
 * (app.js) calls these. The simulation runs here, in wasm, in fixed point; the page draws
 * with JS numbers (display only). Public API only, plus fix2d-replay's own verify, selftest
 * and state reader, so the page's verdicts are the native tool's.
 * SPDX-License-Identifier: MIT
 */
#include "fix2d/convert.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "replay.h"
#include "selftest.h"
#include "state.h"

#include <emscripten/emscripten.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static f2d_world *world;
static long world_steps;
static char hash_text[17];
static conformance selftest_run;
static bool selftest_started;

/* the drawing list: floats (display only), see web_draw */
static float *draw_buf;
static int32_t draw_len, draw_cap;

EMSCRIPTEN_KEEPALIVE int32_t web_scene_count(void)
{
	return f2d_scene_count();
}

EMSCRIPTEN_KEEPALIVE const char *web_scene_name(int32_t index)
{
	return f2d_scene_name(index);
}

EMSCRIPTEN_KEEPALIVE const char *web_scene_description(int32_t index)
{
	return f2d_scene_description(index);
}

/** Builds a catalogue scene (the previous world is freed). 0 ok, else an f2d_result. */
EMSCRIPTEN_KEEPALIVE int32_t web_load_scene(const char *name)
{
	f2d_world *w = NULL;
	f2d_result r = f2d_scene_create(name, NULL, &w);
	if (r != F2D_OK || w == NULL) {
		return r != F2D_OK ? (int32_t)r : -1;
	}
	f2d_destroy_world(world);
	world = w;
	world_steps = 0;
	return 0;
}

/** n steps; returns the last step's f2d_result (OUT_OF_RANGE / OVERFLOW: completed). */
EMSCRIPTEN_KEEPALIVE int32_t web_step(int32_t n)
{
	f2d_result last = F2D_OK;
	for (int32_t i = 0; world != NULL && i < n; ++i) {
		f2d_result r = f2d_world_step(world);
		if (r != F2D_OK && r != F2D_ERROR_OUT_OF_RANGE && r != F2D_ERROR_OVERFLOW) {
			return r;
		}
		world_steps += 1;
		last = r;
	}
	return last;
}

EMSCRIPTEN_KEEPALIVE double web_steps(void)
{
	return (double)world_steps;
}

/** f2d_world_hash as 16 hex digits (as fix2d-replay prints it). */
EMSCRIPTEN_KEEPALIVE const char *web_hash(void)
{
	snprintf(hash_text, sizeof hash_text, "%016" PRIx64, world ? f2d_world_hash(world) : 0);
	return hash_text;
}

static bool push(float v)
{
	if (draw_len == draw_cap) {
		int32_t cap = draw_cap > 0 ? draw_cap * 2 : 4096;
		float *p = realloc(draw_buf, (size_t)cap * sizeof *p);
		if (p == NULL) {
			return false;
		}
		draw_buf = p;
		draw_cap = cap;
	}
	draw_buf[draw_len++] = v;
	return true;
}

static float f(fix16_t v)
{
	return (float)f2d_to_double(v);
}

static void world_point(const st_body *b, f2d_vec2 local, float *x, float *y)
{
	float c = f(b->q.c), s = f(b->q.s), lx = f(local.x), ly = f(local.y);
	*x = f(b->origin.x) + c * lx - s * ly;
	*y = f(b->origin.y) + s * lx + c * ly;
}

/* colour class: 0 static, 1 kinematic, 2 dynamic, 3 sleeping (render.c's palette) */
static float colour_class(const st_body *b)
{
	if (b->type == F2D_STATIC_BODY) {
		return 0;
	}
	if (!b->awake) {
		return 3;
	}
	return b->type == F2D_KINEMATIC_BODY ? 1 : 2;
}

/** Fills the drawing list of the current world (world coordinates, metres, y up) and returns
 *  its length in floats (web_draw_buffer: where). Records, shapes in id order then joints:
 *    1 class n x0 y0 .. x(n-1) y(n-1) cx cy ex ey   polygon (c: centre, e: its +x side)
 *    2 class cx cy r ex ey                          circle
 *    3 ax ay ha pax pay bx by hb pbx pby            joint: anchors a, b; centre of body A
 *                                                   (ha = 1 unless static), of body B
 *  -1 when the world cannot be read. */
EMSCRIPTEN_KEEPALIVE int32_t web_draw(void)
{
	draw_len = 0;
	if (world == NULL) {
		return 0;
	}
	st_world s;
	char err[160];
	if (!st_from_world(world, &s, err, sizeof err)) {
		return -1;
	}
	bool ok = true;
	for (int32_t i = 0; ok && i < s.shape_count; ++i) {
		const st_shape *sh = &s.shapes[i];
		if (!sh->alive) {
			continue;
		}
		const st_body *b = &s.bodies[sh->body];
		float x, y, cx, cy, ex, ey;
		if (sh->polygon) {
			f2d_vec2 sum = {0, 0};
			fix16_t xmax = sh->vertices[0].x;
			ok = push(1) && push(colour_class(b)) && push((float)sh->count);
			for (int32_t k = 0; ok && k < sh->count; ++k) {
				world_point(b, sh->vertices[k], &x, &y);
				ok = push(x) && push(y);
				sum.x += sh->vertices[k].x / sh->count;
				sum.y += sh->vertices[k].y / sh->count;
				xmax = sh->vertices[k].x > xmax ? sh->vertices[k].x : xmax;
			}
			world_point(b, sum, &cx, &cy);
			world_point(b, (f2d_vec2){xmax, sum.y}, &ex, &ey);
			ok = ok && push(cx) && push(cy) && push(ex) && push(ey);
		} else {
			world_point(b, sh->center, &cx, &cy);
			world_point(b, (f2d_vec2){sh->center.x + sh->radius, sh->center.y}, &ex, &ey);
			ok = push(2) && push(colour_class(b)) && push(cx) && push(cy) &&
			     push(f(sh->radius)) && push(ex) && push(ey);
		}
	}
	for (int32_t i = 0; ok && i < s.joint_count; ++i) {
		const st_joint *j = &s.joints[i];
		f2d_vec2 aa, ab;
		if (!j->alive ||
		    f2d_joint_get_world_anchors(world, (f2d_joint_id){i + 1, j->generation}, &aa,
		                                &ab) != F2D_OK) {
			continue;
		}
		const st_body *ba = &s.bodies[j->body_a], *bb = &s.bodies[j->body_b];
		ok = push(3) && push(f(aa.x)) && push(f(aa.y)) &&
		     push(ba->type != F2D_STATIC_BODY ? 1.0f : 0.0f) && push(f(ba->center.x)) &&
		     push(f(ba->center.y)) && push(f(ab.x)) && push(f(ab.y)) &&
		     push(bb->type != F2D_STATIC_BODY ? 1.0f : 0.0f) && push(f(bb->center.x)) &&
		     push(f(bb->center.y));
	}
	st_free(&s);
	return ok ? draw_len : -1;
}

EMSCRIPTEN_KEEPALIVE float *web_draw_buffer(void)
{
	return draw_buf;
}

/** What to frame (render.c's rule): the AABBs of shapes of bodies that can move, or of all
 *  shapes when none can; 4 floats x0 y0 x1 y1 at web_draw_buffer, returns 4 (0: empty). */
EMSCRIPTEN_KEEPALIVE int32_t web_frame(void)
{
	draw_len = 0;
	if (world == NULL) {
		return 0;
	}
	st_world s;
	char err[160];
	if (!st_from_world(world, &s, err, sizeof err)) {
		return 0;
	}
	float all[4] = {0, 0, 0, 0}, mov[4] = {0, 0, 0, 0};
	bool any_all = false, any_mov = false;
	for (int32_t i = 0; i < s.shape_count; ++i) {
		if (!s.shapes[i].alive) {
			continue;
		}
		f2d_aabb a = f2d_shape_get_aabb(world, (f2d_shape_id){i + 1, s.shapes[i].generation});
		float box[4] = {f(a.lower.x), f(a.lower.y), f(a.upper.x), f(a.upper.y)};
		float *targets[2] = {all, mov};
		bool *any[2] = {&any_all, &any_mov};
		int n = s.bodies[s.shapes[i].body].type != F2D_STATIC_BODY ? 2 : 1;
		for (int t = 0; t < n; ++t) {
			float *u = targets[t];
			if (!*any[t]) {
				memcpy(u, box, sizeof box);
				*any[t] = true;
			} else {
				u[0] = box[0] < u[0] ? box[0] : u[0];
				u[1] = box[1] < u[1] ? box[1] : u[1];
				u[2] = box[2] > u[2] ? box[2] : u[2];
				u[3] = box[3] > u[3] ? box[3] : u[3];
			}
		}
	}
	st_free(&s);
	const float *u = any_mov ? mov : all;
	if (!any_all || !(push(u[0]) && push(u[1]) && push(u[2]) && push(u[3]))) {
		return 0;
	}
	return 4;
}

/* ---- the conformance self-test, in slices ---- */

EMSCRIPTEN_KEEPALIVE void web_selftest_begin(void)
{
	if (selftest_started) {
		conformance_end(&selftest_run);
	}
	conformance_begin(&selftest_run, NULL);
	selftest_started = true;
}

/** Runs up to max_steps more steps: 0 running, 1 conformance ok, -1 failed. */
EMSCRIPTEN_KEEPALIVE int32_t web_selftest_advance(int32_t max_steps)
{
	return conformance_advance(&selftest_run, max_steps);
}

EMSCRIPTEN_KEEPALIVE double web_selftest_steps(void)
{
	return (double)selftest_run.steps;
}

EMSCRIPTEN_KEEPALIVE const char *web_selftest_message(void)
{
	return selftest_run.message;
}

/* ---- replays: fix2d-replay verify / info, output through the page's print ---- */

/** `fix2d-replay verify PATH` (the file in the page's memory file system); its exit status. */
EMSCRIPTEN_KEEPALIVE int32_t web_verify(const char *path)
{
	char *argv[] = {(char *)path, NULL};
	int status = cmd_verify(1, argv);
	fflush(stdout);
	fflush(stderr);
	return status;
}

/** `fix2d-replay info PATH`. */
EMSCRIPTEN_KEEPALIVE int32_t web_info(const char *path)
{
	char *argv[] = {(char *)path, NULL};
	int status = cmd_info(1, argv);
	fflush(stdout);
	fflush(stderr);
	return status;
}

/** The engine fingerprint (16 hex digits), as `fix2d-replay selftest --verbose` prints it. */
EMSCRIPTEN_KEEPALIVE const char *web_fingerprint(void)
{
	snprintf(hash_text, sizeof hash_text, "%016" PRIx64, f2d_fingerprint());
	return hash_text;
}
