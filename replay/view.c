/* fix2d-view: an interactive viewer of catalogue scenes and replays (SDL2 window, drawn with
 * cairo through replay/draw.c, the same drawing as fix2d-replay's pictures). Public API only.
 * SPDX-License-Identifier: MIT
 *
 *   fix2d-view SCENE|FILE.f2r [--record OUT.f2r]     one world
 *   fix2d-view A.f2r B.f2r                           two replays overlaid, at their first
 *                                                    divergent frame
 * Options: --size WxH, --keyframe-every K, --script FILE, --frames N --screenshot OUT.png|.bmp
 *
 * Time: a timeline per world. Frame f's inputs (the replay's commands and the viewer's drag
 * commands) are applied before step f; the world "at frame t" has taken t steps. Every K
 * frames the viewer keeps an in-process snapshot (f2d_snapshot_save); seeking to frame t
 * restores the last keyframe at or before t and simulates the frames in between again, which
 * is exact because the simulation is deterministic.
 *
 * Dragging: the left button grabs a dynamic body at the cursor with a mouse joint, as Box2D v3's
 * samples do, through input commands (fix2d/input.h, player 255): CREATE_JOINT at the next
 * step, SET_MOUSE_TARGET at each step after the cursor moved, DESTROY_JOINT at the step after
 * the release (drag_commands). The cursor becomes a world point in fix16 (the only float here
 * that reaches a command is the pixel-to-metre mapping of the input device); the commands are
 * part of the timeline, so `--record` writes a replay that `fix2d-replay verify` re-simulates
 * to the same hashes. A command at a frame before the end of the timeline starts a new branch
 * there: the later frames are dropped (and the viewer's earlier commands of that frame).
 *
 * Floating point is used for drawing, timing and the mapping of the mouse only.
 */
#include "view.h"
#include "draw.h"
#include "f2r.h"
#include "fix2d/convert.h"
#include "fix2d/fix2d.h"
#include "fix2d/input.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "state.h"

#include <SDL.h>
#include <cairo.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the viewer ---- */

typedef struct viewer {
	SDL_Window *window;
	SDL_Renderer *renderer;
	SDL_Texture *texture;
	cairo_surface_t *surface;
	int width, height;
	timeline tl[2];
	int count;      /* 1, or 2 in the two-replay mode */
	long divergent; /* two replays: the first divergent frame (-1 start, -2 none) */
	view v;
	bool playing, quit, aabb, contacts, joints;
	bool scripted; /* no pacing */
	/* dragging: a mouse joint (see drag_commands) */
	bool dragging; /* the left button holds a body */
	f2d_body_id drag_body;
	f2d_vec2 drag_local;     /* the grabbed point in the body's frame */
	f2d_vec2 drag_press;     /* the grabbed point in the world when pressed */
	f2d_vec2 drag_target;    /* the cursor in the world */
	f2d_joint_id drag_joint; /* the mouse joint of this drag ({0, 0} before the first) */
	f2d_vec2 joint_target;   /* the target drag_joint was last given */
	bool drag_synced;        /* joint_target holds at the current frame (false after a seek) */
	bool release_pending;    /* released: destroy drag_joint at the next step */
	/* panning */
	bool panning;
	int pan_x, pan_y;
	/* mouse, for the cursor readout */
	int mouse_x, mouse_y;
} viewer;

static void px_to_world(const viewer *vw, double px, double py, double *x, double *y)
{
	*x = (px - vw->v.ox) / vw->v.s;
	*y = (vw->v.oy - py) / vw->v.s;
}

/* The dynamic body under a world point: the last drawn (highest shape id) whose shape holds
 * it. Geometry from the portable state, in double (picking only). */
static bool pick(const st_world *s, double x, double y, int32_t *body)
{
	for (int32_t i = s->shape_count - 1; i >= 0; --i) {
		const st_shape *sh = &s->shapes[i];
		if (!sh->alive || s->bodies[sh->body].type != F2D_DYNAMIC_BODY) {
			continue;
		}
		const st_body *b = &s->bodies[sh->body];
		/* the point in the body's frame */
		double c = d(b->q.c), sn = d(b->q.s), dx = x - d(b->origin.x),
		       dy = y - d(b->origin.y);
		double lx = c * dx + sn * dy, ly = -sn * dx + c * dy;
		bool inside;
		if (sh->polygon) {
			inside = true;
			for (int32_t k = 0; inside && k < sh->count; ++k) {
				f2d_vec2 p = sh->vertices[k], q = sh->vertices[(k + 1) % sh->count];
				double ex = d(q.x) - d(p.x), ey = d(q.y) - d(p.y);
				inside = ex * (ly - d(p.y)) - ey * (lx - d(p.x)) >= 0;
			}
		} else {
			double ex = lx - d(sh->center.x), ey = ly - d(sh->center.y),
			       r = d(sh->radius);
			inside = ex * ex + ey * ey <= r * r;
		}
		if (inside) {
			*body = sh->body;
			return true;
		}
	}
	return false;
}

static void start_drag(viewer *vw, int px, int py)
{
	timeline *tl = &vw->tl[0];
	st_world s;
	char err[160];
	if (vw->count != 1 || vw->dragging || !st_from_world(tl->w, &s, err, sizeof err)) {
		return;
	}
	double x, y;
	int32_t id;
	px_to_world(vw, px, py, &x, &y);
	/* only a dynamic body is picked: a press on a static or kinematic body does nothing */
	if (pick(&s, x, y, &id)) {
		vw->dragging = true;
		vw->release_pending = false; /* a joint of an earlier press is cleaned up below */
		vw->drag_joint = (f2d_joint_id){0, 0};
		vw->drag_synced = false;
		vw->drag_body = (f2d_body_id){id + 1, s.bodies[id].generation};
		vw->drag_target = f2d_vec2_from_doubles(x, y);
		vw->drag_press = vw->drag_target;
		/* local = R^T (p - origin), in fix16 (to draw the grabbed point and to grab it
		 * again after a rewind) */
		f2d_transform xf = f2d_body_get_transform(tl->w, vw->drag_body);
		int64_t dx = (int64_t)vw->drag_target.x - xf.p.x,
		        dy = (int64_t)vw->drag_target.y - xf.p.y;
		vw->drag_local.x = (fix16_t)((xf.q.c * dx + xf.q.s * dy) >> 16);
		vw->drag_local.y = (fix16_t)((-(int64_t)xf.q.s * dx + xf.q.c * dy) >> 16);
	}
	st_free(&s);
}

static void end_drag(viewer *vw)
{
	if (vw->dragging) {
		vw->dragging = false;
		vw->release_pending = true;
	}
}

static bool is_drag_joint(const f2d_world *w, f2d_joint_id j)
{
	f2d_joint_type type;
	return j.index1 > 0 && f2d_joint_is_valid(w, j) &&
	       f2d_joint_get_type(w, j, &type) == F2D_OK && type == F2D_MOUSE_JOINT;
}

/* The viewer's commands for the next frame (at most DRAG_MAX_COMMANDS), the mouse joint's life:
 *  - a held body without its joint in the world (just pressed; or a rewind went back before
 *    the joint was made, or the joint went with its anchor body): CREATE_JOINT of a mouse
 *    joint (fix2d/joints.h) at the grabbed point: at the press point for the first joint of a
 *    press, else where the grabbed point of the body is now. Its fields are Box2D v3's samples'
 *    (v3.0, v3.1 Sample::MouseDown): 5 Hz, damping ratio 0.7, max force 1000 N/kg x the body's
 *    mass (an acceleration of 1000 m/s^2, about 100 g: it lifts anything and does not depend
 *    on gravity, so a top-down world (g = 0) drags too; fix16 saturates it at 32768 N: 100 g
 *    up to 33 kg, 16 g for single_box's 200 kg box). Body A is a reference only (the joint
 *    pushes nothing on it): Box2D's sample makes a static body without shapes, which a
 *    create-body command cannot (it carries one shape), so A is the world's static body of the
 *    lowest id (else a kinematic one, else any other body, which then shares B's island), with
 *    collide_connected on so that B still collides with it. The joint's user data is DRAG_TAG.
 *    Its handle is the command's result (from the id pool: the same in every re-simulation,
 *    so the later commands that name it replay exactly).
 *  - the joint there and the cursor moved from the target it was last given (or, after a
 *    seek, always once): SET_MOUSE_TARGET to the cursor.
 *  - released: DESTROY_JOINT if the joint is there.
 *  - whenever the viewer sends commands: DESTROY_JOINT of every other mouse joint tagged
 *    DRAG_TAG (a rewound drag's joint whose destroy was in the frames a branch dropped).
 * A held body that no longer exists ends the drag (its joints went with it). */
#define DRAG_MAX_COMMANDS 8
#define DRAG_TAG UINT64_C(0x6669783276696577) /* "fix2view" */

static int32_t drag_anchor(const st_world *s, int32_t body, f2d_body_id *out)
{
	static const int32_t order[3] = {F2D_STATIC_BODY, F2D_KINEMATIC_BODY, F2D_DYNAMIC_BODY};
	for (int k = 0; k < 3; ++k) {
		for (int32_t i = 0; i < s->body_count; ++i) {
			if (s->bodies[i].alive && i != body && s->bodies[i].type == order[k]) {
				*out = (f2d_body_id){i + 1, s->bodies[i].generation};
				return 1;
			}
		}
	}
	return 0;
}

/* CREATE_JOINT of the drag's mouse joint into *c; false when the drag cannot have one (no
 * state, or no other body to anchor it to: the drag ends) */
static bool mouse_joint_command(viewer *vw, f2d_command *c)
{
	timeline *tl = &vw->tl[0];
	st_world s;
	char err[160];
	f2d_body_id anchor;
	if (!st_from_world(tl->w, &s, err, sizeof err)) {
		return false;
	}
	if (!drag_anchor(&s, vw->drag_body.index1 - 1, &anchor)) {
		printf("drag: frame %ld: no other body to anchor a mouse joint to\n", tl->t);
		vw->dragging = false;
		st_free(&s);
		return false;
	}
	st_free(&s);
	*c = f2d_default_joint_command(F2D_MOUSE_JOINT, DRAG_PLAYER, 0);
	f2d_mouse_joint_def *m = &c->u.create_joint.def.mouse;
	m->body_a = anchor;
	m->body_b = vw->drag_body;
	m->target =
	    vw->drag_joint.index1 == 0
	        ? vw->drag_press
	        : f2d_transform_point(f2d_body_get_transform(tl->w, vw->drag_body), vw->drag_local);
	m->hertz = F2D_FIX(5);
	m->damping_ratio = F2D_MILLI(700);
	int64_t force = (int64_t)f2d_body_get_mass(tl->w, vw->drag_body) * 1000;
	m->max_force = (fix16_t)(force > INT32_MAX ? INT32_MAX : force);
	m->collide_connected = true;
	m->user_data = DRAG_TAG;
	vw->joint_target = m->target;
	return true;
}

/* a held body: its joint made, or its target moved to the cursor */
static int32_t held_commands(viewer *vw, f2d_command *out, int32_t *create_at)
{
	int32_t n = 0;
	if (!is_drag_joint(vw->tl[0].w, vw->drag_joint)) {
		if (!mouse_joint_command(vw, &out[n])) {
			return 0;
		}
		*create_at = n++;
	} else if (!vw->drag_synced || vw->drag_target.x != vw->joint_target.x ||
	           vw->drag_target.y != vw->joint_target.y) {
		f2d_command *c = &out[n++];
		*c = f2d_default_command(F2D_CMD_SET_MOUSE_TARGET, DRAG_PLAYER, 0);
		c->u.mouse_target.joint = vw->drag_joint;
		c->u.mouse_target.target = vw->drag_target;
		vw->joint_target = vw->drag_target;
	}
	vw->drag_synced = true;
	return n;
}

/* a released body: its joint destroyed */
static int32_t release_commands(viewer *vw, f2d_command *out)
{
	timeline *tl = &vw->tl[0];
	vw->release_pending = false;
	if (!is_drag_joint(tl->w, vw->drag_joint)) {
		return 0;
	}
	*out = f2d_default_command(F2D_CMD_DESTROY_JOINT, DRAG_PLAYER, 0);
	out->u.destroy_joint.joint = vw->drag_joint;
	printf("drag: frame %ld: mouse joint %" PRId32 ":%" PRIu32 " destroyed\n", tl->t,
	       vw->drag_joint.index1 - 1, vw->drag_joint.generation);
	return 1;
}

/* the other joints of the viewer put first in out (n commands there): a create then reuses
 * their ids. Returns the new count. */
static int32_t destroy_orphans(viewer *vw, f2d_command *out, int32_t n, int32_t *create_at)
{
	timeline *tl = &vw->tl[0];
	st_world s;
	char err[160];
	if (!st_from_world(tl->w, &s, err, sizeof err)) {
		return n;
	}
	f2d_command orphans[DRAG_MAX_COMMANDS];
	int32_t k = 0;
	for (int32_t i = 0; i < s.joint_count && k + n < DRAG_MAX_COMMANDS; ++i) {
		const st_joint *j = &s.joints[i];
		f2d_joint_id id = {i + 1, j->generation};
		if (j->alive && j->type == F2D_MOUSE_JOINT && j->user_data == DRAG_TAG &&
		    (id.index1 != vw->drag_joint.index1 ||
		     id.generation != vw->drag_joint.generation)) {
			orphans[k] = f2d_default_command(F2D_CMD_DESTROY_JOINT, DRAG_PLAYER, 0);
			orphans[k++].u.destroy_joint.joint = id;
			printf("drag: frame %ld: mouse joint %" PRId32 ":%" PRIu32
			       " of an earlier drag destroyed\n",
			       tl->t, i, j->generation);
		}
	}
	st_free(&s);
	if (k > 0) {
		memmove(out + k, out, (size_t)n * sizeof *out);
		memcpy(out, orphans, (size_t)k * sizeof *out);
		n += k;
		*create_at += *create_at >= 0 ? k : 0;
	}
	return n;
}

static int32_t drag_commands(viewer *vw, f2d_command *out, int32_t *create_at)
{
	timeline *tl = &vw->tl[0];
	int32_t n = 0;
	*create_at = -1;
	if (vw->dragging && !f2d_body_is_valid(tl->w, vw->drag_body)) {
		printf("drag: frame %ld: body %" PRId32 " does not exist here: the drag ends\n",
		       tl->t, vw->drag_body.index1 - 1);
		vw->dragging = false;
		vw->release_pending = false;
		return 0;
	}
	if (vw->dragging) {
		n = held_commands(vw, out, create_at);
	} else if (vw->release_pending) {
		n = release_commands(vw, out);
	}
	return n == 0 ? 0 : destroy_orphans(vw, out, n, create_at);
}

/* One frame forward on every timeline (with the viewer's mouse joint commands). */
static bool step_forward(viewer *vw)
{
	f2d_command c[DRAG_MAX_COMMANDS];
	f2d_command_result r[DRAG_MAX_COMMANDS];
	int32_t create_at = -1;
	int32_t n = vw->count == 1 ? drag_commands(vw, c, &create_at) : 0;
	long frame = vw->tl[0].t;
	for (int i = 0; i < vw->count; ++i) {
		if (!simulate(&vw->tl[i], c, n, r)) {
			return false;
		}
	}
	if (create_at >= 0) {
		const f2d_command_result *cr = &r[create_at];
		const f2d_mouse_joint_def *m = &c[create_at].u.create_joint.def.mouse;
		char s[3][24];
		if (cr->result == F2D_OK) {
			vw->drag_joint = cr->created_joint;
			printf("drag: frame %ld: mouse joint %" PRId32 ":%" PRIu32
			       " on body %" PRId32 " (anchor body %" PRId32
			       "), target %s %s, max force %s N\n",
			       frame, vw->drag_joint.index1 - 1, vw->drag_joint.generation,
			       m->body_b.index1 - 1, m->body_a.index1 - 1,
			       f2d_format_fix(m->target.x, 6, s[0]),
			       f2d_format_fix(m->target.y, 6, s[1]),
			       f2d_format_fix(m->max_force, 6, s[2]));
		} else {
			/* the body went in this frame, before the joint (a command of a player <
			 * 255) */
			printf("drag: frame %ld: the mouse joint was refused (%s): the drag ends\n",
			       frame, f2d_error_string(cr->result));
			vw->dragging = false;
		}
	}
	fflush(stdout);
	return true;
}

static bool seek_all(viewer *vw, long t)
{
	/* the mouse joint's target at the new frame is unknown: a held drag sends it again */
	vw->drag_synced = false;
	for (int i = 0; i < vw->count; ++i) {
		if (!seek(&vw->tl[i], t)) {
			return false;
		}
	}
	return true;
}

static long timeline_end(const viewer *vw)
{
	long end = vw->tl[0].length;
	for (int i = 1; i < vw->count; ++i) {
		end = vw->tl[i].length > end ? vw->tl[i].length : end;
	}
	return end;
}

static void zoom(viewer *vw, double factor, double px, double py)
{
	double x, y;
	px_to_world(vw, px, py, &x, &y);
	double s = vw->v.s * factor;
	if (s < 0.5 || s > 5000) {
		return;
	}
	vw->v.s = s;
	vw->v.ox = px - x * s;
	vw->v.oy = py + y * s;
}

static bool ensure_surface(viewer *vw)
{
	int w = 0, h = 0;
	SDL_GetRendererOutputSize(vw->renderer, &w, &h);
	if (vw->surface != NULL && w == vw->width && h == vw->height) {
		return true;
	}
	if (vw->surface != NULL) {
		cairo_surface_destroy(vw->surface);
		SDL_DestroyTexture(vw->texture);
	}
	vw->width = w;
	vw->height = h;
	vw->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	/* cairo's RGB24 is a native 32-bit 0x00RRGGBB word per pixel: SDL's RGB888 */
	vw->texture = SDL_CreateTexture(vw->renderer, SDL_PIXELFORMAT_RGB888,
	                                SDL_TEXTUREACCESS_STREAMING, w, h);
	return cairo_surface_status(vw->surface) == CAIRO_STATUS_SUCCESS && vw->texture != NULL;
}

static void hud_line(cairo_t *cr, int row, rgb c, const char *text)
{
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
	draw_text(cr, 8, 16 + 15 * row, 12, text);
}

/* The worlds: one drawn; or two as diff --png: the second filled (differing bodies red), the
 * first as outlines. Returns the number of fields that differ (two worlds). */
static long draw_worlds(viewer *vw, cairo_t *cr)
{
	st_world s[2];
	char err[160];
	int have = 0;
	for (int i = 0; i < vw->count; ++i) {
		if (st_from_world(vw->tl[i].w, &s[i], err, sizeof err)) {
			have = i + 1;
		} else {
			break;
		}
	}
	draw_opts o = {vw->aabb, vw->contacts, vw->joints, NULL, 0, false};
	uint8_t *diverged = NULL;
	long differ = 0;
	if (have == 2) {
		differ = st_diff(&s[0], &s[1], NULL, 0, &diverged);
		o.diverged = diverged;
		o.diverged_count =
		    s[0].body_count > s[1].body_count ? s[0].body_count : s[1].body_count;
		draw_bodies(cr, &vw->v, &s[1], &o);
		draw_details(cr, &vw->v, vw->tl[1].w, &s[1], &o);
		draw_opts ghost = {false, false, false, NULL, 0, true};
		draw_bodies(cr, &vw->v, &s[0], &ghost);
	} else if (have == 1) {
		draw_bodies(cr, &vw->v, &s[0], &o);
		draw_details(cr, &vw->v, vw->tl[0].w, &s[0], &o);
	}
	free(diverged);
	for (int i = 0; i < have; ++i) {
		st_free(&s[i]);
	}
	return differ;
}

/* a held body: a line from its grabbed point to the cursor */
static void draw_drag(const viewer *vw, cairo_t *cr)
{
	if (!vw->dragging || !f2d_body_is_valid(vw->tl[0].w, vw->drag_body)) {
		return;
	}
	f2d_vec2 p =
	    f2d_transform_point(f2d_body_get_transform(vw->tl[0].w, vw->drag_body), vw->drag_local);
	double ax, ay, bx, by;
	to_px(&vw->v, d(p.x), d(p.y), &ax, &ay);
	to_px(&vw->v, d(vw->drag_target.x), d(vw->drag_target.y), &bx, &by);
	cairo_set_source_rgb(cr, CONTACT_C.r, CONTACT_C.g, CONTACT_C.b);
	cairo_set_line_width(cr, 1.5);
	cairo_move_to(cr, ax, ay);
	cairo_line_to(cr, bx, by);
	cairo_stroke(cr);
	cairo_arc(cr, bx, by, 3, 0, 6.283185307179586);
	cairo_fill(cr);
}

/* the readout's third and fourth lines: the two replays' divergence, or a replay's hashes */
static void draw_agreement(const viewer *vw, cairo_t *cr, long differ)
{
	const timeline *a = &vw->tl[0];
	char line[256];
	if (vw->count == 2) {
		snprintf(line, sizeof line, "outline: %s  filled: %s  hash %016" PRIx64, a->name,
		         vw->tl[1].name, f2d_world_hash(vw->tl[1].w));
		hud_line(cr, 2, TEXT_C, line);
		if (vw->divergent == -2) {
			snprintf(line, sizeof line, "the two replays agree on every frame");
		} else if (vw->divergent == -1) {
			snprintf(line, sizeof line, "the start worlds differ (%ld fields now)",
			         differ);
		} else {
			snprintf(
			    line, sizeof line,
			    "first divergent frame %ld%s; %ld fields differ here", vw->divergent,
			    a->t == vw->divergent + 1 ? " (shown)" : " (D jumps there)", differ);
		}
		hud_line(cr, 3, differ > 0 || a->t == vw->divergent + 1 ? DIVERGED_C : TEXT_C,
		         line);
	} else if (a->recorded > 0) {
		if (a->hash_mismatch >= 0) {
			snprintf(line, sizeof line,
			         "DIVERGED at frame %ld: the recorded hash differs",
			         a->hash_mismatch);
		} else {
			snprintf(line, sizeof line,
			         "replay: %ld recorded frames, hashes agree so far", a->recorded);
		}
		hud_line(cr, 2, a->hash_mismatch >= 0 ? DIVERGED_C : TEXT_C, line);
	}
}

/* the readout: frame, step, hash, timing and counts, then draw_agreement's lines */
static void draw_readout(const viewer *vw, cairo_t *cr, long differ, long end)
{
	const timeline *a = &vw->tl[0];
	f2d_world_stats st;
	f2d_world_get_stats(a->w, &st);
	char line[256];
	snprintf(line, sizeof line, "%s  frame %ld/%ld  step %" PRIu64 "  hash %016" PRIx64 "  %s",
	         a->name, a->t, end, st.step_count, f2d_world_hash(a->w),
	         vw->playing ? "playing" : "paused");
	hud_line(cr, 0, TEXT_C, line);
	snprintf(line, sizeof line,
	         "step %.3f ms (avg %.3f)  bodies %d  awake %d  contacts %d (%d points)  islands %d"
	         "  joints %d",
	         a->step_ms, a->step_avg_ms, st.body_count, st.awake_body_count, st.arbiter_count,
	         st.contact_point_count, st.island_count, st.joint_count);
	hud_line(cr, 1, TEXT_C, line);
	draw_agreement(vw, cr, differ);
}

/* the timeline bar: position, and the first divergent frame in red */
static void draw_timeline_bar(const viewer *vw, cairo_t *cr, long end)
{
	double x0 = 200, x1 = vw->width - 12, y = vw->height - 14;
	cairo_set_source_rgb(cr, 0.35, 0.35, 0.38);
	cairo_rectangle(cr, x0, y - 2, x1 - x0, 4);
	cairo_fill(cr);
	if (vw->count == 2 && vw->divergent >= 0) {
		double dx = x0 + (x1 - x0) * (double)(vw->divergent + 1) / (double)end;
		cairo_set_source_rgb(cr, DIVERGED_C.r, DIVERGED_C.g, DIVERGED_C.b);
		cairo_rectangle(cr, dx - 1, y - 7, 3, 14);
		cairo_fill(cr);
	}
	double px = x0 + (x1 - x0) * (double)vw->tl[0].t / (double)end;
	cairo_set_source_rgb(cr, TEXT_C.r, TEXT_C.g, TEXT_C.b);
	cairo_rectangle(cr, px - 2, y - 5, 4, 10);
	cairo_fill(cr);
}

/* The picture of the current frame, into vw->surface. */
static void draw_frame(viewer *vw)
{
	cairo_t *cr = cairo_create(vw->surface);
	set_fill(cr, BACKGROUND, 1.0);
	cairo_paint(cr);
	long differ = draw_worlds(vw, cr);
	draw_drag(vw, cr);
	long end = timeline_end(vw);
	draw_readout(vw, cr, differ, end);
	cairo_set_source_rgb(cr, 0.6, 0.6, 0.65);
	draw_text(cr, 8, vw->height - 34, 11,
	          "space play  <- -> step  home end  +/- wheel zoom  right-drag pan  left-drag body"
	          "  A aabb  C contacts  J joints  D divergence  Q quit");
	draw_scale(cr, &vw->v, vw->height);
	if (end > 0) {
		draw_timeline_bar(vw, cr, end);
	}
	cairo_destroy(cr);
	cairo_surface_flush(vw->surface);
}

static uint64_t step_of(const f2d_world *w)
{
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	return st.step_count;
}

static bool present(viewer *vw, const char *screenshot)
{
	if (!ensure_surface(vw)) {
		fprintf(stderr, "%s: cannot make the picture: %s\n", PROG, SDL_GetError());
		return false;
	}
	draw_frame(vw);
	SDL_UpdateTexture(vw->texture, NULL, cairo_image_surface_get_data(vw->surface),
	                  cairo_image_surface_get_stride(vw->surface));
	SDL_RenderClear(vw->renderer);
	SDL_RenderCopy(vw->renderer, vw->texture, NULL, NULL);
	bool ok = true;
	if (screenshot != NULL) {
		/* what the window shows, read back from the renderer */
		int w = vw->width, h = vw->height;
		unsigned char *px = malloc((size_t)w * (size_t)h * 4);
		ok = px != NULL && SDL_RenderReadPixels(vw->renderer, NULL, SDL_PIXELFORMAT_RGB888,
		                                        px, w * 4) == 0;
		size_t n = strlen(screenshot);
		if (ok && n >= 4 && strcmp(screenshot + n - 4, ".png") == 0) {
			cairo_surface_t *img = cairo_image_surface_create_for_data(
			    px, CAIRO_FORMAT_RGB24, w, h, w * 4);
			ok = cairo_surface_write_to_png(img, screenshot) == CAIRO_STATUS_SUCCESS;
			cairo_surface_destroy(img);
		} else if (ok) {
			SDL_Surface *img = SDL_CreateRGBSurfaceWithFormatFrom(
			    px, w, h, 32, w * 4, SDL_PIXELFORMAT_RGB888);
			ok = img != NULL && SDL_SaveBMP(img, screenshot) == 0;
			SDL_FreeSurface(img);
		}
		free(px);
		if (ok) {
			printf("screenshot %s frame %ld step %" PRIu64 " hash %016" PRIx64
			       " origin %.3f %.3f scale %.4f size %dx%d\n",
			       screenshot, vw->tl[0].t, step_of(vw->tl[0].w),
			       f2d_world_hash(vw->tl[0].w), vw->v.ox, vw->v.oy, vw->v.s, w, h);
		} else {
			fprintf(stderr, "%s: cannot write the screenshot %s: %s\n", PROG,
			        screenshot, SDL_GetError());
		}
	}
	SDL_RenderPresent(vw->renderer);
	return ok;
}

static void key(viewer *vw, SDL_Keycode k)
{
	long end = timeline_end(vw);
	switch (k) {
	case SDLK_SPACE: vw->playing = !vw->playing; break;
	case SDLK_RIGHT:
		vw->playing = false;
		if (!step_forward(vw)) {
			vw->quit = true;
		}
		break;
	case SDLK_LEFT:
		vw->playing = false;
		vw->quit = !seek_all(vw, vw->tl[0].t - 1);
		break;
	case SDLK_HOME: vw->quit = !seek_all(vw, 0); break;
	case SDLK_END: vw->quit = !seek_all(vw, end); break;
	case SDLK_PLUS:
	case SDLK_EQUALS:
	case SDLK_KP_PLUS: zoom(vw, 1.25, vw->width / 2.0, vw->height / 2.0); break;
	case SDLK_MINUS:
	case SDLK_KP_MINUS: zoom(vw, 0.8, vw->width / 2.0, vw->height / 2.0); break;
	case SDLK_a: vw->aabb = !vw->aabb; break;
	case SDLK_c: vw->contacts = !vw->contacts; break;
	case SDLK_j: vw->joints = !vw->joints; break;
	case SDLK_d:
		if (vw->count == 2 && vw->divergent >= 0) {
			vw->playing = false;
			vw->quit = !seek_all(vw, vw->divergent + 1);
		}
		break;
	case SDLK_q:
	case SDLK_ESCAPE: vw->quit = true; break;
	default: break;
	}
}

static void handle(viewer *vw, const SDL_Event *e)
{
	switch (e->type) {
	case SDL_QUIT: vw->quit = true; break;
	case SDL_KEYDOWN: key(vw, e->key.keysym.sym); break;
	case SDL_MOUSEBUTTONDOWN:
		if (e->button.button == SDL_BUTTON_LEFT) {
			start_drag(vw, e->button.x, e->button.y);
		} else if (e->button.button == SDL_BUTTON_RIGHT) {
			vw->panning = true;
			vw->pan_x = e->button.x;
			vw->pan_y = e->button.y;
		}
		break;
	case SDL_MOUSEBUTTONUP:
		if (e->button.button == SDL_BUTTON_LEFT) {
			end_drag(vw);
		} else if (e->button.button == SDL_BUTTON_RIGHT) {
			vw->panning = false;
		}
		break;
	case SDL_MOUSEMOTION:
		vw->mouse_x = e->motion.x;
		vw->mouse_y = e->motion.y;
		if (vw->panning) {
			vw->v.ox += e->motion.x - vw->pan_x;
			vw->v.oy += e->motion.y - vw->pan_y;
			vw->pan_x = e->motion.x;
			vw->pan_y = e->motion.y;
		}
		if (vw->dragging) {
			double x, y;
			px_to_world(vw, e->motion.x, e->motion.y, &x, &y);
			vw->drag_target = f2d_vec2_from_doubles(x, y);
		}
		break;
	case SDL_MOUSEWHEEL:
		if (e->wheel.y != 0) {
			zoom(vw, e->wheel.y > 0 ? 1.25 : 0.8, vw->mouse_x, vw->mouse_y);
		}
		break;
	default: break;
	}
}

static void pump(viewer *vw)
{
	SDL_Event e;
	while (SDL_PollEvent(&e)) {
		handle(vw, &e);
	}
}

/* ---- scripts: tests drive the viewer through the same event path as a user ----
 * One command a line ('#' comments):
 *   key NAME                 space right left home end plus minus a c j d q escape
 *   mouse down|up left|right X Y   a button at world point X Y (metres)
 *   mouse move X Y           the cursor to world point X Y
 *   step N                   N single steps (as N presses of the right arrow)
 *   wait N                   N iterations of the main loop (a frame each while playing)
 *   screenshot FILE          .png or .bmp: the window read back from the renderer
 *   print                    "frame F hash H"; two replays: both hashes and "divergent D";
 *                            a replay whose recorded hash differs: "recorded-hash-differs F"
 *   bodies                   "body ID x y angle vx vy w" of every body (as fix2d-replay)
 *   joints                   "joint ID:GEN TYPE A B ax ay bx by [target tx ty]" of every joint
 *                            (world anchors; a mouse joint's target)
 * The viewer's drags print "drag: frame F: ..." lines (a mouse joint made, destroyed, refused,
 * a drag that ends).
 *   quit
 * Events are pushed to SDL's queue and handled at once. */
typedef struct script {
	FILE *f;
	long line_no;
	long wait;        /* main-loop iterations left before the next command */
	const char *text; /* or commands from a string (--frames/--screenshot) */
	size_t pos;
} script;

static bool script_line(script *sc, char *buf, size_t cap)
{
	if (sc->f != NULL) {
		return fgets(buf, (int)cap, sc->f) != NULL;
	}
	if (sc->text == NULL || sc->text[sc->pos] == '\0') {
		return false;
	}
	size_t n = 0;
	while (sc->text[sc->pos] != '\0' && sc->text[sc->pos] != '\n' && n + 1 < cap) {
		buf[n++] = sc->text[sc->pos++];
	}
	if (sc->text[sc->pos] == '\n') {
		++sc->pos;
	}
	buf[n] = '\0';
	return true;
}

static void push_mouse(viewer *vw, Uint32 type, Uint8 button, double x, double y)
{
	SDL_Event e;
	memset(&e, 0, sizeof e);
	e.type = type;
	int px = (int)lround(vw->v.ox + x * vw->v.s), py = (int)lround(vw->v.oy - y * vw->v.s);
	if (type == SDL_MOUSEMOTION) {
		e.motion.x = px;
		e.motion.y = py;
		e.motion.windowID = SDL_GetWindowID(vw->window);
	} else {
		e.button.button = button;
		e.button.state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED;
		e.button.clicks = 1;
		e.button.x = px;
		e.button.y = py;
		e.button.windowID = SDL_GetWindowID(vw->window);
	}
	SDL_PushEvent(&e);
	pump(vw);
}

static void print_bodies(const viewer *vw)
{
	for (int i = 0; i < vw->count; ++i) {
		const f2d_world *w = vw->tl[i].w;
		int32_t n = f2d_world_get_bodies(w, NULL, 0);
		f2d_body_id *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
		n = ids != NULL ? f2d_world_get_bodies(w, ids, n) : 0;
		for (int32_t k = 0; k < n; ++k) {
			char s[6][24];
			f2d_vec2 p = f2d_body_get_position(w, ids[k]);
			f2d_vec2 v = f2d_body_get_linear_velocity(w, ids[k]);
			printf("%sbody %" PRId32 " %s %s %s %s %s %s\n",
			       vw->count == 2 ? (i ? "B " : "A ") : "", ids[k].index1 - 1,
			       f2d_format_fix(p.x, 6, s[0]), f2d_format_fix(p.y, 6, s[1]),
			       f2d_format_fix(f2d_body_get_angle(w, ids[k]), 6, s[2]),
			       f2d_format_fix(v.x, 6, s[3]), f2d_format_fix(v.y, 6, s[4]),
			       f2d_format_fix(f2d_body_get_angular_velocity(w, ids[k]), 6, s[5]));
		}
		free(ids);
	}
}

/* "joint INDEX:GEN TYPE BODY_A BODY_B AX AY BX BY" of every joint of the first world (its
 * world anchors), and for a mouse joint " target TX TY". */
static void print_joints(const viewer *vw)
{
	f2d_world *w = vw->tl[0].w;
	st_world s;
	char err[160];
	if (!st_from_world(w, &s, err, sizeof err)) {
		return;
	}
	static const char *names[] = {"revolute", "distance", "prismatic", "weld",
	                              "wheel",    "motor",    "mouse"};
	for (int32_t i = 0; i < s.joint_count; ++i) {
		const st_joint *j = &s.joints[i];
		f2d_vec2 a, b;
		if (!j->alive || f2d_joint_get_world_anchors(
		                     w, (f2d_joint_id){i + 1, j->generation}, &a, &b) != F2D_OK) {
			continue;
		}
		char t[6][24];
		printf("joint %" PRId32 ":%" PRIu32 " %s %" PRId32 " %" PRId32 " %s %s %s %s", i,
		       j->generation, j->type >= 0 && j->type <= 6 ? names[j->type] : "?",
		       j->body_a, j->body_b, f2d_format_fix(a.x, 6, t[0]),
		       f2d_format_fix(a.y, 6, t[1]), f2d_format_fix(b.x, 6, t[2]),
		       f2d_format_fix(b.y, 6, t[3]));
		if (j->type == F2D_MOUSE_JOINT) {
			printf(" target %s %s", f2d_format_fix(j->axis.x, 6, t[4]),
			       f2d_format_fix(j->axis.y, 6, t[5]));
		}
		printf("\n");
	}
	st_free(&s);
}

/* key NAME: the key pressed; false for a name not in the list */
static bool script_key(viewer *vw, const char *name)
{
	static const struct {
		const char *name;
		SDL_Keycode code;
	} keys[] = {{"space", SDLK_SPACE},  {"right", SDLK_RIGHT}, {"left", SDLK_LEFT},
	            {"home", SDLK_HOME},    {"end", SDLK_END},     {"plus", SDLK_PLUS},
	            {"minus", SDLK_MINUS},  {"a", SDLK_a},         {"c", SDLK_c},
	            {"j", SDLK_j},          {"d", SDLK_d},         {"q", SDLK_q},
	            {"escape", SDLK_ESCAPE}};
	bool ok = false;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
		if (strcmp(name, keys[i].name) == 0) {
			SDL_Event e;
			memset(&e, 0, sizeof e);
			e.type = SDL_KEYDOWN;
			e.key.state = SDL_PRESSED;
			e.key.keysym.sym = keys[i].code;
			e.key.windowID = SDL_GetWindowID(vw->window);
			SDL_PushEvent(&e);
			pump(vw);
			ok = true;
		}
	}
	return ok;
}

/* mouse move X Y, mouse down|up left|right X Y; false for another form */
static bool script_mouse(viewer *vw, const char *buf, const char *w2)
{
	char w3[512] = "";
	double x = 0, y = 0;
	if (strcmp(w2, "move") == 0 && sscanf(buf, "%*s %*s %lf %lf", &x, &y) == 2) {
		push_mouse(vw, SDL_MOUSEMOTION, 0, x, y);
		return true;
	}
	if ((strcmp(w2, "down") == 0 || strcmp(w2, "up") == 0) &&
	    sscanf(buf, "%*s %*s %31s %lf %lf", w3, &x, &y) == 3 &&
	    (strcmp(w3, "left") == 0 || strcmp(w3, "right") == 0)) {
		push_mouse(vw, strcmp(w2, "down") == 0 ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP,
		           strcmp(w3, "left") == 0 ? SDL_BUTTON_LEFT : SDL_BUTTON_RIGHT, x, y);
		return true;
	}
	return false;
}

/* step N, wait N (0..10^7); false for another form */
static bool script_steps(viewer *vw, script *sc, const char *buf, const char *w1)
{
	long n = 0;
	if (sscanf(buf, "%*s %ld", &n) != 1 || n < 0 || n > 10000000) {
		return false;
	}
	if (w1[0] == 'w') {
		sc->wait = n;
	}
	for (long i = 0; w1[0] == 's' && i < n && !vw->quit; ++i) {
		vw->playing = false;
		vw->quit = !step_forward(vw);
	}
	return true;
}

static void script_print(const viewer *vw)
{
	printf("frame %ld hash %016" PRIx64, vw->tl[0].t, f2d_world_hash(vw->tl[0].w));
	if (vw->count == 2) {
		printf(" hash %016" PRIx64 " divergent %ld", f2d_world_hash(vw->tl[1].w),
		       vw->divergent);
	} else if (vw->tl[0].hash_mismatch >= 0) {
		printf(" recorded-hash-differs %ld", vw->tl[0].hash_mismatch);
	}
	printf("\n");
}

/* One command (words w1, w2: got of them); false when it cannot be done. */
static bool script_command(viewer *vw, script *sc, const char *buf, const char *w1, const char *w2,
                           int got)
{
	if (strcmp(w1, "key") == 0) {
		return got == 2 && script_key(vw, w2);
	}
	if (strcmp(w1, "mouse") == 0) {
		return script_mouse(vw, buf, w2);
	}
	if (strcmp(w1, "step") == 0 || strcmp(w1, "wait") == 0) {
		return script_steps(vw, sc, buf, w1);
	}
	if (strcmp(w1, "screenshot") == 0) {
		char path[512] = "";
		if (got != 2) {
			return false;
		}
		sscanf(buf, "%*s %511s", path);
		return present(vw, path);
	}
	if (strcmp(w1, "print") == 0) {
		script_print(vw);
	} else if (strcmp(w1, "bodies") == 0) {
		print_bodies(vw);
	} else if (strcmp(w1, "joints") == 0) {
		print_joints(vw);
	} else if (strcmp(w1, "quit") == 0) {
		vw->quit = true;
	} else {
		return false;
	}
	return true;
}

/* Runs script commands until a wait, the end or quit. false on a bad line (exit 2). */
static bool run_script(viewer *vw, script *sc)
{
	char buf[512];
	while (!vw->quit && sc->wait == 0 && script_line(sc, buf, sizeof buf)) {
		++sc->line_no;
		char w1[32] = "", w2[32] = "";
		char *hash = strchr(buf, '#');
		if (hash != NULL) {
			*hash = '\0';
		}
		int got = sscanf(buf, "%31s %31s", w1, w2);
		if (got <= 0) {
			continue;
		}
		if (!script_command(vw, sc, buf, w1, w2, got)) {
			fprintf(stderr, "%s: script line %ld: cannot do '%s'\n", PROG, sc->line_no,
			        buf);
			return false;
		}
		fflush(stdout);
	}
	return true;
}

/* ---- main ---- */

/* The first view: the shapes that can move and the static ones under and beside them (a
 * ground much wider than what moves is cut to three times the width of what moves). */
static void frame_start(const f2d_world *w, const st_world *s, box *out)
{
	box moving = {0, 0, 0, 0, true}, fixed = {0, 0, 0, 0, true};
	for (int32_t i = 0; i < s->shape_count; ++i) {
		const st_shape *sh = &s->shapes[i];
		if (!sh->alive) {
			continue;
		}
		f2d_aabb a = f2d_shape_get_aabb(w, (f2d_shape_id){i + 1, sh->generation});
		box_add(s->bodies[sh->body].type == F2D_STATIC_BODY ? &fixed : &moving,
		        d(a.lower.x), d(a.lower.y), d(a.upper.x), d(a.upper.y));
	}
	if (!moving.empty && !fixed.empty) {
		double wd = moving.x1 - moving.x0 > 1 ? moving.x1 - moving.x0 : 1;
		fixed.x0 = fixed.x0 > moving.x0 - wd ? fixed.x0 : moving.x0 - wd;
		fixed.x1 = fixed.x1 < moving.x1 + wd ? fixed.x1 : moving.x1 + wd;
	}
	if (!moving.empty) {
		box_add(out, moving.x0, moving.y0, moving.x1, moving.y1);
	}
	if (!fixed.empty && fixed.x0 < fixed.x1) {
		box_add(out, fixed.x0, fixed.y0, fixed.x1, fixed.y1);
	}
}

static int usage(const char *problem, const char *detail)
{
	if (problem != NULL) {
		fprintf(stderr, "%s: %s%s%s\n", PROG, problem, detail != NULL ? ": " : "",
		        detail != NULL ? detail : "");
	}
	fprintf(
	    stderr,
	    "usage: %s SCENE|FILE.f2r [--record OUT.f2r]\n"
	    "       %s A.f2r B.f2r              (two replays: their first divergent frame)\n"
	    "options: --size WxH  --keyframe-every K (60)  --script FILE\n"
	    "         --frames N --screenshot OUT.png|OUT.bmp  (N frames, a picture, quit)\n"
	    "keys: space play/pause, right/left step/step back, home/end, +/- zoom, D first\n"
	    "      divergent frame, A AABBs, C contacts, J joints, Q/Esc quit; mouse: left drag\n"
	    "      a body, right drag pan, wheel zoom\n",
	    PROG, PROG);
	return problem != NULL ? EXIT_USAGE : EXIT_SUCCESS;
}

static bool parse_long(const char *t, long lo, long hi, long *out)
{
	char *end = NULL;
	long v = strtol(t, &end, 10);
	if (t[0] == '\0' || *end != '\0' || v < lo || v > hi) {
		return false;
	}
	*out = v;
	return true;
}

/* The command line of fix2d-view. */
typedef struct view_args {
	const char *sources[2];
	int nsources;
	const char *record_path, *script_path, *screenshot;
	long frames, key_every;
	int width, height;
} view_args;

/* One option at argv[*i] (its value, if any, consumed): -1 when taken, else the exit status. */
static int parse_option(int argc, char **argv, int *i, view_args *va)
{
	const char *a = argv[*i];
	bool has = *i + 1 < argc;
	if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
		return usage(NULL, NULL);
	} else if (strcmp(a, "--record") == 0 && has) {
		va->record_path = argv[++*i];
	} else if (strcmp(a, "--script") == 0 && has) {
		va->script_path = argv[++*i];
	} else if (strcmp(a, "--screenshot") == 0 && has) {
		va->screenshot = argv[++*i];
	} else if (strcmp(a, "--frames") == 0 && has) {
		if (!parse_long(argv[++*i], 0, 10000000, &va->frames)) {
			return usage("--frames needs a count 0..10000000", argv[*i]);
		}
	} else if (strcmp(a, "--keyframe-every") == 0 && has) {
		if (!parse_long(argv[++*i], 1, 1000000, &va->key_every)) {
			return usage("--keyframe-every needs a count 1..1000000", argv[*i]);
		}
	} else if (strcmp(a, "--size") == 0 && has) {
		char extra;
		if (sscanf(argv[++*i], "%dx%d%c", &va->width, &va->height, &extra) != 2 ||
		    va->width < 320 || va->height < 200 || va->width > 8192 || va->height > 8192) {
			return usage("--size needs WxH, at least 320x200", argv[*i]);
		}
	} else if (a[0] == '-' && a[1] != '\0') {
		return usage(has ? "unknown option" : "unknown option or missing value", a);
	} else if (va->nsources < 2) {
		va->sources[va->nsources++] = a;
	} else {
		return usage("at most two sources", a);
	}
	return -1;
}

/* The whole command line into *va: -1 when it is good, else the exit status. */
static int parse_args(int argc, char **argv, view_args *va)
{
	memset(va, 0, sizeof *va);
	va->frames = -1;
	va->key_every = 60;
	va->width = 1024;
	va->height = 720;
	for (int i = 1; i < argc; ++i) {
		int st = parse_option(argc, argv, &i, va);
		if (st >= 0) {
			return st;
		}
	}
	if (va->nsources == 0) {
		return usage("which scene or replay?", NULL);
	}
	if (va->record_path != NULL && va->nsources == 2) {
		return usage("--record takes one source", NULL);
	}
	if (va->script_path != NULL && (va->frames >= 0 || va->screenshot != NULL)) {
		return usage("--script or --frames/--screenshot, not both", NULL);
	}
	if (va->screenshot != NULL && va->frames < 0) {
		va->frames = 0;
	}
	return -1;
}

/* A new viewer with the sources' timelines: -1 with *out set, else the exit status. */
static int open_viewer(const view_args *va, viewer **out)
{
	viewer *vw = calloc(1, sizeof *vw);
	if (vw == NULL) {
		return EXIT_FAILURE;
	}
	vw->count = va->nsources;
	vw->contacts = true;
	vw->joints = true;
	vw->divergent = -2;
	for (int i = 0; i < va->nsources; ++i) {
		int st = open_source(&vw->tl[i], va->sources[i], va->key_every);
		if (st >= 0) {
			for (int k = 0; k < i; ++k) {
				timeline_free(&vw->tl[k]);
			}
			free(vw);
			return st;
		}
	}
	*out = vw;
	return -1;
}

/* Prints the fields that differ at frame `at` of the two timelines, as fix2d-replay diff. */
static void print_fields_at(viewer *vw, long at)
{
	st_world sa, sb;
	char err[160];
	if (seek_all(vw, at) && st_from_world(vw->tl[0].w, &sa, err, sizeof err)) {
		if (st_from_world(vw->tl[1].w, &sb, err, sizeof err)) {
			long n = st_diff(&sa, &sb, stdout, 20, NULL);
			printf("  %ld fields differ\n", n);
			st_free(&sb);
		}
		st_free(&sa);
	}
}

/* Two replays: prints their first divergent frame and the fields there, then seeks both to it
 * (to the start when they agree). Returns the exit status. */
static int compare_sources(viewer *vw)
{
	if (vw->tl[0].recorded == 0 || vw->tl[1].recorded == 0) {
		return usage("two sources must be two replays", NULL);
	}
	vw->divergent = first_divergence(&vw->tl[0], &vw->tl[1]);
	if (vw->divergent == -2) {
		printf("the two replays agree on all %ld frames\n", vw->tl[0].length);
	} else {
		long at = vw->divergent + 1;
		if (vw->divergent == -1) {
			printf("the start worlds differ\n");
			at = 0;
		} else {
			printf("first divergent frame %ld\n", vw->divergent);
		}
		print_fields_at(vw, at);
	}
	fflush(stdout);
	if (!seek_all(vw, vw->divergent == -2 ? 0 : vw->divergent + 1)) {
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* The script of this run: --script FILE (or - for stdin), or one made from --frames and
 * --screenshot into `generated`. Returns the exit status (the script is left empty when it
 * cannot be opened). */
static int open_script(const view_args *va, script *sc, char *generated, size_t cap)
{
	memset(sc, 0, sizeof *sc);
	if (va->script_path != NULL) {
		sc->f = strcmp(va->script_path, "-") == 0 ? stdin : fopen(va->script_path, "r");
		if (sc->f == NULL) {
			return usage("cannot open the script", va->script_path);
		}
	} else if (va->frames >= 0) {
		const char *shot = va->screenshot;
		snprintf(generated, cap, "step %ld\n%s%s%squit\n", va->frames,
		         shot != NULL ? "screenshot " : "", shot != NULL ? shot : "",
		         shot != NULL ? "\n" : "");
		sc->text = generated;
	}
	return EXIT_SUCCESS;
}

/* SDL, the window and its renderer. Returns the exit status. */
static int open_window(viewer *vw, int width, int height)
{
	/* scripts (tests) draw with SDL's software renderer: the same pixels whatever GL
	 * driver the machine has (SDL_RENDER_DRIVER in the environment still wins) */
	if (vw->scripted) {
		SDL_SetHintWithPriority(SDL_HINT_RENDER_DRIVER, "software", SDL_HINT_DEFAULT);
	}
	if (SDL_Init(SDL_INIT_VIDEO) != 0) {
		fprintf(stderr, "%s: cannot start SDL video: %s\n", PROG, SDL_GetError());
		return EXIT_FAILURE;
	}
	vw->window = SDL_CreateWindow("fix2d-view", SDL_WINDOWPOS_UNDEFINED,
	                              SDL_WINDOWPOS_UNDEFINED, width, height, SDL_WINDOW_RESIZABLE);
	vw->renderer = vw->window != NULL ? SDL_CreateRenderer(vw->window, -1, 0) : NULL;
	if (vw->renderer == NULL) {
		fprintf(stderr, "%s: cannot open a window: %s\n", PROG, SDL_GetError());
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* The first view frames the world at the current frame. */
static void frame_first_view(viewer *vw)
{
	int w = 0, h = 0;
	SDL_GetRendererOutputSize(vw->renderer, &w, &h);
	box b = {0, 0, 0, 0, true};
	for (int i = 0; i < vw->count; ++i) {
		st_world s;
		char err[160];
		if (st_from_world(vw->tl[i].w, &s, err, sizeof err)) {
			frame_start(vw->tl[i].w, &s, &b);
			st_free(&s);
		}
	}
	/* room for the readout above (3 or 4 lines) and the help and timeline below */
	vw->v = fit(b, w, h - 90);
	vw->v.oy += 50;
}

/* After a frame is shown: the script's next commands (scripted), or a wait until the next
 * frame is due (real time: one frame per time step). Returns the exit status. */
static int after_frame(viewer *vw, script *sc, Uint64 freq, Uint64 *next)
{
	if (vw->scripted) {
		if (sc->wait > 0) {
			--sc->wait;
		}
		if (sc->wait > 0) {
			return EXIT_SUCCESS;
		}
		if (!run_script(vw, sc)) {
			return EXIT_USAGE;
		} else if (sc->wait == 0 && !vw->quit) {
			vw->quit = true; /* the script ended */
		}
		return EXIT_SUCCESS;
	}
	*next += (Uint64)((double)freq * f2d_to_double(f2d_world_get_time_step(vw->tl[0].w)));
	Uint64 now = SDL_GetPerformanceCounter();
	if (*next > now) {
		SDL_Delay((Uint32)((*next - now) * 1000 / freq));
	} else {
		*next = now;
	}
	return EXIT_SUCCESS;
}

/* The main loop: events, a step when playing, the picture, the script or the pacing; until
 * quit or a failure. Returns the exit status. */
static int run_loop(viewer *vw, script *sc)
{
	Uint64 freq = SDL_GetPerformanceFrequency(), next = SDL_GetPerformanceCounter();
	int status = EXIT_SUCCESS;
	while (status == EXIT_SUCCESS && !vw->quit) {
		pump(vw);
		if (vw->playing && !vw->quit && !step_forward(vw)) {
			return EXIT_FAILURE;
		}
		/* a replay pauses at its last recorded frame (right arrow or space go on) */
		for (int i = 0; i < vw->count; ++i) {
			if (vw->playing && vw->tl[i].recorded > 0 &&
			    vw->tl[i].t == vw->tl[i].recorded) {
				vw->playing = false;
			}
		}
		if (!present(vw, NULL)) {
			return EXIT_FAILURE;
		}
		status = after_frame(vw, sc, freq, &next);
	}
	return status;
}

/* Closes the script, the window, SDL and the timelines; frees the viewer. */
static void close_viewer(viewer *vw, script *sc)
{
	if (sc->f != NULL && sc->f != stdin) {
		fclose(sc->f);
	}
	if (vw->surface != NULL) {
		cairo_surface_destroy(vw->surface);
	}
	if (vw->texture != NULL) {
		SDL_DestroyTexture(vw->texture);
	}
	if (vw->renderer != NULL) {
		SDL_DestroyRenderer(vw->renderer);
	}
	if (vw->window != NULL) {
		SDL_DestroyWindow(vw->window);
	}
	SDL_Quit();
	for (int i = 0; i < vw->count; ++i) {
		timeline_free(&vw->tl[i]);
	}
	free(vw);
}

int main(int argc, char **argv)
{
	view_args va;
	viewer *vw = NULL;
	int status = parse_args(argc, argv, &va);
	if (status >= 0 || (status = open_viewer(&va, &vw)) >= 0) {
		return status;
	}
	status = va.nsources == 2 ? compare_sources(vw) : EXIT_SUCCESS;
	script sc;
	char generated[700];
	int script_status = open_script(&va, &sc, generated, sizeof generated);
	status = script_status != EXIT_SUCCESS ? script_status : status;
	vw->scripted = sc.f != NULL || sc.text != NULL;
	/* a person sees one world move at once; scripts and the two-replay mode start paused */
	vw->playing = !vw->scripted && va.nsources == 1;
	if (status == EXIT_SUCCESS &&
	    (status = open_window(vw, va.width, va.height)) == EXIT_SUCCESS) {
		frame_first_view(vw);
		status = run_loop(vw, &sc);
	}
	if (status == EXIT_SUCCESS && va.record_path != NULL &&
	    !record(&vw->tl[0], va.record_path)) {
		status = EXIT_FAILURE;
	}
	close_viewer(vw, &sc);
	return status;
}
