/* fix2d world: creation, settings and the fixed-order step (errors, allocation and id pools
 * live in base.c).
 * SPDX-License-Identifier: MIT
 */
#include "core.h"

/* ---- world ---- */

/* The default solver (issue 15): Box2D v3's soft step with this many substeps, so that tall
 * stacks stand and rest with the default settings (0 is the Gauss-Seidel solver of Box2D-lite:
 * `iterations`, Baumgarte bias). The one place the count is written: the tests read it from
 * f2d_default_world_def(); types.h documents it (test_api checks that the two agree). */
enum { DEFAULT_SUBSTEP_COUNT = 4 };

f2d_world_def f2d_default_world_def(void)
{
	f2d_world_def d;
	memset(&d, 0, sizeof d);
	d.gravity = f2d_v(0, F2D_FIX(-10));
	d.time_step = 1092; /* 1/60 s rounded to the nearest LSB (65536 / 60 = 1092.27) */
	d.iterations = 10;
	d.joint_position_iterations = 4;
	d.bias_factor = F2D_MILLI(200);
	d.linear_slop = F2D_MILLI(10);
	d.speculative_distance = F2D_MILLI(40);
	d.restitution_threshold = F2D_ONE;
	d.max_translation = F2D_FIX(2);
	d.max_rotation = F2D_HALF_PI;
	d.warm_starting = true;
	d.enable_sleep = true;
	d.linear_sleep_tolerance = F2D_MILLI(50);
	d.angular_sleep_tolerance = F2D_MILLI(50);
	d.time_to_sleep = F2D_MILLI(500);
	d.hit_event_threshold = F2D_ONE;
	d.contact_recycle_distance = F2D_RECYCLE_DEFAULT; /* contact.c */
	d.allocator = f2d_default_allocator();
	d.body_capacity = 16;
	d.contact_capacity = 16;
	d.substep_count = DEFAULT_SUBSTEP_COUNT;
	return d;
}

static const char *check_world_def(const f2d_world_def *d)
{
	if (d->time_step < 65 || d->time_step > 6554) {
		return "time_step must be in [1/1000, 1/10] s";
	}
	if (d->iterations < 1 || d->iterations > 100) {
		return "iterations must be in [1, 100]";
	}
	if (d->joint_position_iterations < 0 || d->joint_position_iterations > 20) {
		return "joint_position_iterations must be in [0, 20]";
	}
	if (d->gravity.x < F2D_FIX(-1000) || d->gravity.x > F2D_FIX(1000) ||
	    d->gravity.y < F2D_FIX(-1000) || d->gravity.y > F2D_FIX(1000)) {
		return "gravity components must be within +-1000 m/s^2";
	}
	if (d->bias_factor < 0 || d->bias_factor > F2D_ONE) {
		return "bias_factor must be in [0, 1]";
	}
	if (d->linear_slop < 0 || d->linear_slop > F2D_MILLI(500)) {
		return "linear_slop must be in [0, 0.5] m";
	}
	if (d->speculative_distance < 0 || d->speculative_distance > F2D_ONE) {
		return "speculative_distance must be in [0, 1] m";
	}
	if (d->contact_recycle_distance < 0 || d->contact_recycle_distance > F2D_MILLI(250)) {
		return "contact_recycle_distance must be in [0, 0.25] m";
	}
	if (d->restitution_threshold < 0 || d->restitution_threshold > F2D_FIX(1000)) {
		return "restitution_threshold must be in [0, 1000] m/s";
	}
	if (d->max_translation < F2D_MILLI(10) || d->max_translation > F2D_FIX(64)) {
		return "max_translation must be in [0.01, 64] m per step";
	}
	if (d->max_rotation < F2D_MILLI(10) || d->max_rotation > F2D_HALF_PI) {
		return "max_rotation must be in [0.01, pi/2] rad per step";
	}
	if (d->linear_sleep_tolerance < 0 || d->linear_sleep_tolerance > F2D_FIX(10) ||
	    d->angular_sleep_tolerance < 0 || d->angular_sleep_tolerance > F2D_FIX(10)) {
		return "linear and angular sleep tolerances must be in [0, 10] (m/s, rad/s)";
	}
	if (d->time_to_sleep < d->time_step || d->time_to_sleep > F2D_FIX(60)) {
		return "time_to_sleep must be in [time_step, 60] s";
	}
	if (d->hit_event_threshold < 0) {
		return "hit_event_threshold must be in [0, 32767] m/s";
	}
	if (d->substep_count < 0 || d->substep_count > F2D_MAX_SUBSTEPS) {
		return "substep_count must be in [0, 8] (0: the Gauss-Seidel solver)";
	}
	if (d->substep_count > 0 && d->time_step < 65 * d->substep_count) {
		/* every substep is a time step the rest of the code knows: >= 1/1000 s */
		return "time_step / substep_count must be at least 1/1000 s (65 LSB)";
	}
	if ((d->allocator.alloc == NULL) != (d->allocator.free == NULL)) {
		return "allocator needs both alloc and free (or neither)";
	}
	if (d->body_capacity < 0 || d->body_capacity > F2D_MAX_OBJECTS || d->contact_capacity < 0 ||
	    d->contact_capacity > F2D_MAX_OBJECTS) {
		return "capacities must be in [0, 2^20]";
	}
	return NULL;
}

f2d_result f2d_create_world(const f2d_world_def *def, f2d_world **out)
{
	if (def == NULL || out == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (check_world_def(def) != NULL) {
		return F2D_ERROR_INVALID_VALUE;
	}
	if (f2d_check_math_flavour() != F2D_OK) {
		return F2D_ERROR_MATH_FLAVOUR;
	}
	f2d_allocator al = def->allocator;
	if (al.alloc == NULL) {
		al = f2d_default_allocator();
	}
	f2d_world *w = al.alloc(sizeof *w, al.context);
	if (w == NULL) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	memset(w, 0, sizeof *w);
	w->allocator = al;
	w->def = *def;
	w->def.allocator = al;
	w->gravity = def->gravity;
	w->h = def->time_step;
	w->inv_h = f2d_div_exact((int64_t)1 << 16, def->time_step);
	w->last_out_of_range_body = F2D_NULL_INDEX;
	int32_t bc = def->body_capacity;
	if (!f2d_grow_aligned(w, (void **)&w->bodies, &w->body_capacity, bc, sizeof(f2d_body)) ||
	    !f2d_grow_aligned(w, (void **)&w->shapes, &w->shape_capacity, bc, sizeof(f2d_shape)) ||
	    !f2d_grow_aligned(w, (void **)&w->arbiters, &w->arbiter_capacity, def->contact_capacity,
	                      sizeof(f2d_arbiter))) {
		f2d_destroy_world(w);
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	*out = w;
	return F2D_OK;
}

/* The reason create_world refused a def, for tools (NULL when the def is valid). */
const char *f2d_world_def_problem(const f2d_world_def *def)
{
	return def == NULL ? "def is NULL" : check_world_def(def);
}

void f2d_destroy_world(f2d_world *w)
{
	if (w == NULL) {
		return;
	}
	f2d_events_free(w);
	f2d_free_aligned(w, w->bodies, (size_t)w->body_capacity * sizeof(f2d_body));
	f2d_free_aligned(w, w->shapes, (size_t)w->shape_capacity * sizeof(f2d_shape));
	f2d_free_aligned(w, w->joints, (size_t)w->joint_capacity * sizeof(f2d_joint));
	f2d_free(w, w->body_ids.free_ids, (size_t)w->body_ids.free_capacity * sizeof(int32_t));
	f2d_free(w, w->shape_ids.free_ids, (size_t)w->shape_ids.free_capacity * sizeof(int32_t));
	f2d_free(w, w->joint_ids.free_ids, (size_t)w->joint_ids.free_capacity * sizeof(int32_t));
	f2d_free_aligned(w, w->arbiters, (size_t)w->arbiter_capacity * sizeof(f2d_arbiter));
	f2d_free_aligned(w, w->arbiters_next,
	                 (size_t)w->arbiters_next_capacity * sizeof(f2d_arbiter));
	f2d_free_aligned(w, w->batches, (size_t)w->batch_capacity * sizeof(f2d_contact_batch));
	f2d_free(w, w->body_colors, (size_t)w->body_color_capacity * sizeof(uint64_t));
	f2d_free(w, w->arbiter_colors, (size_t)w->arbiter_color_capacity * sizeof(uint64_t));
	f2d_free(w, w->solver_vel, (size_t)w->solver_vel_capacity * sizeof *w->solver_vel);
	f2d_free(w, w->solver_disp, (size_t)w->solver_disp_capacity * sizeof *w->solver_disp);
	f2d_free(w, w->body_list, (size_t)w->body_list_capacity * sizeof(int32_t));
	f2d_free(w, w->integ_list, (size_t)w->integ_list_capacity * sizeof(int32_t));
	f2d_free(w, w->joint_list, (size_t)w->joint_list_capacity * sizeof(int32_t));
	f2d_free(w, w->joint_order, (size_t)w->joint_order_capacity * sizeof(int32_t));
	f2d_free(w, w->joint_order_color, (size_t)w->joint_order_color_capacity);
	f2d_free(w, w->joint_batches, (size_t)w->joint_batch_capacity * sizeof(f2d_joint_batch));
	f2d_free(w, w->joint_color_key, (size_t)w->joint_color_key_capacity * sizeof(int32_t[4]));
	f2d_free(w, w->sweep, (size_t)w->sweep_capacity * sizeof(int32_t));
	f2d_free(w, w->pairs, (size_t)w->pair_capacity * sizeof(uint64_t));
	f2d_free(w, w->bpc.fat, (size_t)w->bpc.fat_capacity * sizeof(f2d_aabb));
	f2d_free(w, w->bpc.ex, (size_t)w->bpc.ex_capacity * sizeof(int32_t[4]));
	f2d_free(w, w->bpc.step, (size_t)w->bpc.step_capacity * sizeof(f2d_shape_step));
	f2d_free(w, w->bpc.order, (size_t)w->bpc.order_capacity * sizeof(uint64_t));
	f2d_free(w, w->bpc.cand, (size_t)w->bpc.cand_capacity * sizeof(uint64_t));
	f2d_free(w, w->bpc.cand2, (size_t)w->bpc.cand2_capacity * sizeof(uint64_t));
	f2d_free(w, w->bpc.wide, (size_t)w->bpc.wide_capacity * sizeof(int32_t));
	f2d_free(w, w->bpc.oid, (size_t)w->bpc.oid_capacity * sizeof(int32_t));
	f2d_free(w, w->toi, (size_t)w->toi_capacity * sizeof(uint64_t));
	f2d_free(w, w->island_parent, (size_t)w->island_capacity * sizeof(int32_t));
	f2d_free(w, w->island_data, (size_t)w->island_data_capacity * sizeof(int32_t));
	f2d_query_free(w);
	f2d_allocator al = w->allocator;
	al.free(w, sizeof *w, al.context);
}

void f2d_world_get_stats(const f2d_world *w, f2d_world_stats *out)
{
	if (w == NULL || out == NULL) {
		return;
	}
	memset(out, 0, sizeof *out);
	out->step_count = w->step_count;
	out->body_count = w->body_count;
	out->shape_count = w->shape_count;
	out->joint_count = w->joint_count;
	out->arbiter_count = w->arbiter_count;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		out->contact_point_count += w->arbiters[i].count;
	}
	out->out_of_range_events = w->out_of_range_events;
	out->overflow_events = w->overflow_events;
	out->awake_body_count = w->awake_body_count;
	out->island_count = w->island_count;
	if (w->last_out_of_range_body != F2D_NULL_INDEX) {
		out->last_out_of_range_body.index1 = w->last_out_of_range_body + 1;
		out->last_out_of_range_body.generation =
		    w->bodies[w->last_out_of_range_body].generation;
	}
}

f2d_result f2d_world_set_gravity(f2d_world *w, f2d_vec2 g)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (g.x < F2D_FIX(-1000) || g.x > F2D_FIX(1000) || g.y < F2D_FIX(-1000) ||
	    g.y > F2D_FIX(1000)) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "world_set_gravity: components must be within +-1000 m/s^2");
	}
	if (g.x != w->gravity.x || g.y != w->gravity.y) {
		f2d_wake_all(w); /* a sleeping pile must feel the new gravity */
	}
	w->gravity = g;
	w->def.gravity = g;
	return F2D_OK;
}

f2d_vec2 f2d_world_get_gravity(const f2d_world *w)
{
	return w == NULL ? f2d_v(0, 0) : w->gravity;
}

fix16_t f2d_world_get_time_step(const f2d_world *w)
{
	return w == NULL ? 0 : w->h;
}

int32_t f2d_world_get_bodies(const f2d_world *w, f2d_body_id *out, int32_t capacity)
{
	if (w == NULL) {
		return 0;
	}
	int32_t n = 0;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		if (w->bodies[i].alive) {
			if (out != NULL && n < capacity) {
				out[n].index1 = i + 1;
				out[n].generation = w->bodies[i].generation;
			}
			++n;
		}
	}
	return n;
}

uint64_t f2d_world_hash(const f2d_world *w)
{
	return w == NULL ? 0 : f2d_hash_world(w);
}

/* ---- the step ---- */

/* Symplectic Euler, velocities first: v += h (g + F / m), w += h T / I. Computed in 64 bits:
 * a force the API accepted can still be too large for its body, and the result saturates
 * (reported as F2D_ERROR_OVERFLOW) instead of wrapping. */
static fix16_t add_scaled(f2d_world *w, fix16_t v, fix16_t base, fix16_t inv, fix16_t f)
{
	int64_t a = f2d_round16((int64_t)inv * f); /* < 2^47 */
	int64_t ha = f2d_round16(a * w->h);        /* h < 2^13: < 2^60 */
	return f2d_sat_flag((int64_t)v + base + ha, &w->saturated);
}

/* Damping as Box2D applies it, v *= 1 / (1 + h c), in integer form: the factor
 * f = round(2^16 / (1 + h c)) in Q16 (h c = round(h c) in Q16, at most 0.1 s x 1000/s = 100,
 * so f is in [~650, 2^16]: 1/f keeps at least 9 significant bits), then v = round(v f).
 * A damping of 0 gives f = 2^16 exactly and leaves v unchanged (not even computed). */
static fix16_t damping_factor(fix16_t h, fix16_t c)
{
	int64_t hc = f2d_round16((int64_t)h * c);
	return f2d_div_exact((int64_t)1 << 16, (int64_t)F2D_ONE + hc);
}

/* A substep's or step's turn: small turns inline (fmath.h, f2d_integrate_rotation_small: the
 * same value); the exact-only test build calls f2d_integrate_rotation itself. */
#ifdef F2D_INTEGRATE_EXACT_ONLY
#define integrate_rotation f2d_integrate_rotation
#else
#define integrate_rotation f2d_integrate_rotation_small
#endif

/* A body's velocity as three values: the body's own or its solver row's (soft_step). */
typedef struct vel3 {
	fix16_t x, y, w;
} vel3;

/* One body's velocity over w->h: integrate_velocities' operations on a body, for the soft
 * step's rows (the default step keeps its own loop, whose code it leaves as it was). */
static inline vel3 integrate_velocity(f2d_world *w, const f2d_body *b, f2d_vec2 hg, vel3 v)
{
	f2d_vec2 g = hg;
	if (b->gravity_scale != F2D_ONE) { /* |scale| <= 16, |h g| < 2^17: exact */
		g = f2d_v(f2d_sat(f2d_round16((int64_t)b->gravity_scale * hg.x)),
		          f2d_sat(f2d_round16((int64_t)b->gravity_scale * hg.y)));
	}
	v.x = add_scaled(w, v.x, g.x, b->inv_mass, b->force.x);
	v.y = add_scaled(w, v.y, g.y, b->inv_mass, b->force.y);
	v.w = add_scaled(w, v.w, 0, b->inv_inertia, b->torque);
	if (b->linear_damping != 0) {
		fix16_t f = damping_factor(w->h, b->linear_damping);
		v.x = f2d_mul(v.x, f); /* |f| <= 1: in range */
		v.y = f2d_mul(v.y, f);
	}
	if (b->angular_damping != 0) {
		v.w = f2d_mul(v.w, damping_factor(w->h, b->angular_damping));
	}
	return v;
}

/* A body whose velocity integration is v += h g: no force, no torque, gravity scale 1, no
 * damping. integrate_velocity then computes, with f = 0: add_scaled's a = round16(inv 0) = 0
 * and ha = 0, so v.x = sat(v.x + hg.x), v.y = sat(v.y + hg.y), v.w = sat(v.w) = v.w (a fix16
 * value); g = hg (scale 1); no damping factor. */
static inline bool gravity_only(const f2d_body *b)
{
	return (b->force.x | b->force.y | b->torque | b->linear_damping | b->angular_damping) ==
	           0 &&
	       b->gravity_scale == F2D_ONE;
}

static void integrate_velocities(f2d_world *w)
{
	f2d_vec2 hg = f2d_v(f2d_mul(w->h, w->gravity.x), f2d_mul(w->h, w->gravity.y));
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		f2d_body *b = &w->bodies[i];
		if (!b->alive || b->type != F2D_DYNAMIC_BODY || !b->awake) {
			continue;
		}
#ifndef F2D_INTEGRATE_EXACT_ONLY
		if (gravity_only(b)) { /* the operations below with F = 0, scale 1, no damping */
			b->v.x = f2d_sat_flag((int64_t)b->v.x + hg.x, &w->saturated);
			b->v.y = f2d_sat_flag((int64_t)b->v.y + hg.y, &w->saturated);
			continue;
		}
#endif
		f2d_vec2 g = hg;
		if (b->gravity_scale != F2D_ONE) { /* |scale| <= 16, |h g| < 2^17: exact */
			g = f2d_v(f2d_sat(f2d_round16((int64_t)b->gravity_scale * hg.x)),
			          f2d_sat(f2d_round16((int64_t)b->gravity_scale * hg.y)));
		}
		b->v.x = add_scaled(w, b->v.x, g.x, b->inv_mass, b->force.x);
		b->v.y = add_scaled(w, b->v.y, g.y, b->inv_mass, b->force.y);
		b->w = add_scaled(w, b->w, 0, b->inv_inertia, b->torque);
		if (b->linear_damping != 0) {
			fix16_t f = damping_factor(w->h, b->linear_damping);
			b->v =
			    f2d_v(f2d_mul(b->v.x, f), f2d_mul(b->v.y, f)); /* |f| <= 1: in range */
		}
		if (b->angular_damping != 0) {
			b->w = f2d_mul(b->w, damping_factor(w->h, b->angular_damping));
		}
	}
}

/* integrate_velocities on the soft step's rows (soft_step: by body id, every body's velocity
 * through the substeps; fix16 values, the contact passes keep them in range) */
static void integrate_velocities_rows(f2d_world *w, int64_t (*rows)[4])
{
	f2d_vec2 hg = f2d_v(f2d_mul(w->h, w->gravity.x), f2d_mul(w->h, w->gravity.y));
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		if (!b->alive || b->type != F2D_DYNAMIC_BODY || !b->awake) {
			continue;
		}
		int64_t *r = rows[i];
		vel3 v =
		    integrate_velocity(w, b, hg, (vel3){(fix16_t)r[0], (fix16_t)r[1], (fix16_t)r[2]});
		r[0] = v.x;
		r[1] = v.y;
		r[2] = v.w;
	}
}

/* A body's new pose: centre c, its rotation turned by dr, and the origin when asked, from the
 * local c and q (not read back from the body, which would wait for the store; a zero local
 * centre rotates to (0, 0)). The one form of every positions loop. */
static inline void set_pose(f2d_body *b, f2d_vec2 c, fix16_t dr, bool set_origin)
{
	f2d_rot q = integrate_rotation(b->q, dr);
	b->center = c;
	b->q = q;
	if (set_origin) {
		f2d_vec2 lc = b->local_center;
		b->origin = (lc.x | lc.y) == 0 ? c : f2d_sub(c, f2d_rotate(q, lc));
	}
}

/* integrate_positions' operations on one body, for the soft step (the default step keeps its
 * own loop, whose code it leaves as it was; the same operations, so the same bits).
 * One body's positions from its velocity v (the body's own or its solver row's; capped here,
 * zeroed at the world's edge: returns whether v changed). disp, when not NULL, is the body's
 * displacement row of the soft step (solver_soft.c): the centre's move and the turn since the
 * step began, to which this substep's are added (exact integer sums: the move is the new
 * centre minus the old, clamp included; the turn the dr the rotation was advanced by). */
static inline bool integrate_position(f2d_world *w, f2d_body *b, vel3 *v, int64_t max_t,
                                      int64_t max_t2, fix16_t max_r, int64_t *disp,
                                      bool set_origin)
{
	bool changed = false;
	f2d_vec2 d = f2d_v(f2d_mul(w->h, v->x), f2d_mul(w->h, v->y));
	int64_t d2 = f2d_dot64(d, d);
	if (d2 > max_t2) {
		fix16_t len = (fix16_t)f2d_isqrt64_round((uint64_t)d2);
		fix16_t s = f2d_div_exact(max_t, len);
		f2d_vec2 vs = f2d_scale(s, f2d_v(v->x, v->y));
		v->x = vs.x;
		v->y = vs.y;
		d = f2d_v(f2d_mul(w->h, v->x), f2d_mul(w->h, v->y));
		changed = true;
	}
	fix16_t dr = f2d_mul(w->h, v->w);
	if (dr > max_r || dr < -max_r) {
		v->w = f2d_div_exact(dr > 0 ? max_r : -max_r, w->h);
		dr = f2d_mul(w->h, v->w);
		changed = true;
	}
	f2d_vec2 c = f2d_add(b->center, d);
	if (c.x < -F2D_WORLD_LIMIT || c.x > F2D_WORLD_LIMIT || c.y < -F2D_WORLD_LIMIT ||
	    c.y > F2D_WORLD_LIMIT) {
		c.x = f2d_clamp(c.x, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT);
		c.y = f2d_clamp(c.y, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT);
		f2d_stop_at_edge(w, b);
		v->x = v->y = v->w = 0;
		changed = true;
	}
	if (disp != NULL) {
		disp[0] += (int64_t)c.x - b->center.x;
		disp[1] += (int64_t)c.y - b->center.y;
		disp[2] += dr;
	}
	set_pose(b, c, dr, set_origin);
	return changed;
}

/* The soft step's caps on the velocities the joint relax pass leaves (it runs after the
 * positions moved, so integrate_position's cap is behind it): each awake dynamic body's
 * velocity scaled as integrate_position scales it, so that h v moves at most max_t and h w
 * turns at most max_r; the step's velocities stay within what a snapshot accepts (twice
 * max_translation / time_step). Per body, in id order (no body reads another). */
static inline void cap_speed_soft(f2d_world *w, f2d_body *b, int64_t max_t, int64_t max_t2,
                                  fix16_t max_r)
{
	f2d_vec2 d = f2d_v(f2d_mul(w->h, b->v.x), f2d_mul(w->h, b->v.y));
	int64_t d2 = f2d_dot64(d, d);
	if (d2 > max_t2) {
		fix16_t len = (fix16_t)f2d_isqrt64_round((uint64_t)d2);
		b->v = f2d_scale(f2d_div_exact((fix16_t)max_t, len), b->v);
	}
	fix16_t dr = f2d_mul(w->h, b->w);
	if (dr > max_r || dr < -max_r) {
		b->w = f2d_div_exact(dr > 0 ? max_r : -max_r, w->h);
	}
}

static void cap_speeds_soft(f2d_world *w, int64_t max_t, fix16_t max_r)
{
	int64_t max_t2 = max_t * max_t;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		f2d_body *b = &w->bodies[i];
		if (!b->alive || b->type == F2D_STATIC_BODY || !b->awake) {
			continue;
		}
		cap_speed_soft(w, b, max_t, max_t2, max_r);
	}
}

/* Then positions with the new velocities: c += h v, q advanced by h w. Motion per step is
 * limited to max_translation / max_rotation (speed caps, as in Box2D); a body that would leave
 * the world range stops at its edge and the step reports it. */
static bool integrate_positions(f2d_world *w, fix16_t max_translation, fix16_t max_rotation)
{
	int64_t max_t = max_translation;
	int64_t max_t2 = max_t * max_t;
	fix16_t max_r = max_rotation;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		f2d_body *b = &w->bodies[i];
		if (!b->alive || b->type == F2D_STATIC_BODY || !b->awake) {
			continue;
		}
		f2d_vec2 d = f2d_v(f2d_mul(w->h, b->v.x), f2d_mul(w->h, b->v.y));
		int64_t d2 = f2d_dot64(d, d);
		if (d2 > max_t2) {
			fix16_t len = (fix16_t)f2d_isqrt64_round((uint64_t)d2);
			fix16_t s = f2d_div_exact(max_t, len);
			b->v = f2d_scale(s, b->v);
			d = f2d_v(f2d_mul(w->h, b->v.x), f2d_mul(w->h, b->v.y));
		}
		fix16_t dr = f2d_mul(w->h, b->w);
		if (dr > max_r || dr < -max_r) {
			b->w = f2d_div_exact(dr > 0 ? max_r : -max_r, w->h);
			dr = f2d_mul(w->h, b->w);
		}
		f2d_vec2 c = f2d_add(b->center, d);
		if (c.x < -F2D_WORLD_LIMIT || c.x > F2D_WORLD_LIMIT || c.y < -F2D_WORLD_LIMIT ||
		    c.y > F2D_WORLD_LIMIT) {
			c.x = f2d_clamp(c.x, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT);
			c.y = f2d_clamp(c.y, -F2D_WORLD_LIMIT, F2D_WORLD_LIMIT);
			f2d_stop_at_edge(w, b);
		}
		set_pose(b, c, dr, true);
	}
	return w->stopped_at_edge;
}

/* integrate_positions in the soft step: the velocities from the rows (rows, by body id) or,
 * rows NULL, the bodies; each substep's move and turn added to the displacement rows disp */
static bool integrate_positions_soft(f2d_world *w, fix16_t max_translation,
                                     fix16_t max_rotation, int64_t (*rows)[4],
                                     int64_t (*disp)[4])
{
	int64_t max_t = max_translation;
	int64_t max_t2 = max_t * max_t;
	fix16_t max_r = max_rotation;
	/* two loops, the rows or the bodies: no test per body */
	for (int32_t i = 0; i < w->body_ids.next && rows != NULL; ++i) {
		f2d_body *b = &w->bodies[i];
		if (!b->alive || b->type == F2D_STATIC_BODY || !b->awake) {
			continue;
		}
		int64_t *r = rows[i];
		vel3 v = {(fix16_t)r[0], (fix16_t)r[1], (fix16_t)r[2]};
		if (integrate_position(w, b, &v, max_t, max_t2, max_r, disp[i], true)) {
			r[0] = v.x;
			r[1] = v.y;
			r[2] = v.w;
		}
	}
	for (int32_t i = 0; i < w->body_ids.next && rows == NULL; ++i) {
		f2d_body *b = &w->bodies[i];
		if (!b->alive || b->type == F2D_STATIC_BODY || !b->awake) {
			continue;
		}
		vel3 v = {b->v.x, b->v.y, b->w};
		if (integrate_position(w, b, &v, max_t, max_t2, max_r, disp[i], true)) {
			b->v = f2d_v(v.x, v.y);
			b->w = v.w;
		}
	}
	return w->stopped_at_edge;
}

/* ---- the soft step's body loops by lists (issue 16) ----
 * The soft step integrates each substep from lists made once per step (soft_step, into
 * w->integ_list) instead of testing every body id two or three times per substep: which
 * bodies move and how their velocities integrate do not change during a step (forces, the
 * options and the awake flags change only between steps; f2d_stop_at_edge zeroes a velocity,
 * not a flag). The same operations on the same values, so the same bits; built with
 * F2D_INTEGRATE_EXACT_ONLY (test only: tests/test_integrate_paths.c compares the two builds,
 * range edges included) soft_step keeps the loops over all ids above, the reference. */
typedef struct body_lists {
	const int32_t *moving;  /* alive, not static, awake: integrate_positions' bodies */
	const int32_t *plain;   /* awake dynamic bodies whose velocity takes gravity only */
	const int32_t *general; /* the other awake dynamic bodies */
	int32_t nm, np, ng;
} body_lists;

/* A plain body's velocity integration (gravity_only: v += h g, saturated; w unchanged) on its
 * row: integrate_velocity's operations with F = 0, scale 1, no damping. */
static inline void integrate_plain_row(f2d_world *w, int64_t *r, f2d_vec2 hg)
{
	r[0] = f2d_sat_flag((int64_t)(fix16_t)r[0] + hg.x, &w->saturated);
	r[1] = f2d_sat_flag((int64_t)(fix16_t)r[1] + hg.y, &w->saturated);
	r[2] = (fix16_t)r[2];
}

/* One moving body of integrate_positions_lists (below): the common body's operations, else
 * integrate_position from the start. origin: the origin too (the step's last substep:
 * integrate_position's set_origin, the same expression). */
static inline void integrate_position_list(f2d_world *w, f2d_body *b, int64_t *r, int64_t *dp,
                                           fix16_t h, int64_t max_t, int64_t max_t2, fix16_t max_r,
                                           bool origin)
{
	vel3 v = {(fix16_t)r[0], (fix16_t)r[1], (fix16_t)r[2]};
	/* The common body, no cap and inside the world: integrate_position's operations
	 * without its tests. Then |d| <= max_t <= 64 m and |centre| <= 8192 m, so c fits
	 * fix16 and c - centre = d exactly; the turn's test is |dr| <= max_r (< 2^17) in
	 * unsigned form, the centre's |c| <= F2D_WORLD_LIMIT. Else integrate_position from
	 * the start (nothing written yet). */
	f2d_vec2 d = f2d_v(f2d_mul(h, v.x), f2d_mul(h, v.y));
	fix16_t dr = f2d_mul(h, v.w);
	int64_t cx = (int64_t)b->center.x + d.x, cy = (int64_t)b->center.y + d.y;
	if (f2d_dot64(d, d) > max_t2 || (uint32_t)dr + (uint32_t)max_r > 2u * (uint32_t)max_r ||
	    (uint64_t)(cx + F2D_WORLD_LIMIT) > 2u * (uint64_t)F2D_WORLD_LIMIT ||
	    (uint64_t)(cy + F2D_WORLD_LIMIT) > 2u * (uint64_t)F2D_WORLD_LIMIT) {
		if (integrate_position(w, b, &v, max_t, max_t2, max_r, dp, origin)) {
			r[0] = v.x;
			r[1] = v.y;
			r[2] = v.w;
		}
		return;
	}
	dp[0] += d.x;
	dp[1] += d.y;
	dp[2] += dr;
	set_pose(b, f2d_v((fix16_t)cx, (fix16_t)cy), dr, origin);
}

/* integrate_positions_bodies_lists' body (a step with joints: the velocity in the body, the
 * origin set every substep) */
static inline void integrate_position_body(f2d_world *w, f2d_body *b, int64_t *dp, int64_t max_t,
                                           int64_t max_t2, fix16_t max_r)
{
	vel3 v = {b->v.x, b->v.y, b->w};
	if (integrate_position(w, b, &v, max_t, max_t2, max_r, dp, true)) {
		b->v = f2d_v(v.x, v.y);
		b->w = v.w;
	}
}

#if F2D_X86_SIMD && !defined(F2D_INTEGRATE_EXACT_ONLY)
#define F2D_INTEGRATE_SIMD 1
#include "integrate_simd.h"

/* ---- integrate_positions_lists across 4 bodies (AVX2: 4 x 64-bit lanes) ----
 * integrate_position_list's fast case, operation for operation, on 4 moving bodies at a time
 * (integrate_simd.h: why each vector operation gives the scalar one's bits); a lane whose body
 * the fast case does not cover (a cap, the world's edge, a turn outside
 * f2d_integrate_rotation_small's closed forms or one that renormalises) takes
 * integrate_position_list itself, from the unchanged state, in list order (so
 * f2d_stop_at_edge keeps the same last body). The tests are integrate_position_list's, as
 * compares of sign-extended 64-bit values; the centre and displacement updates are the same
 * integer sums. tests/test_integrate_paths.c compares this build with the exact-only one at
 * the range edges (its boundary worlds put moves, turns and centres on every bound and 1-2
 * LSB either side); tests/test_math.c the turn with f2d_integrate_rotation_small. */
#define AVX2 F2D_AVX2
_Static_assert(offsetof(f2d_body, center) == offsetof(f2d_body, q) + 8 && sizeof(f2d_rot) == 8 &&
                   offsetof(f2d_body, w) == offsetof(f2d_body, v) + 8 &&
                   offsetof(f2d_body, force) == offsetof(f2d_body, w) + 4,
               "integrate_positions_4 loads q and the centre, v and w as 4 x int32");

/* the low 32 bits of each lane, packed */
AVX2 static inline __m128i low32_256(__m256i x)
{
	return _mm256_castsi256_si128(
	    _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}

/* The 4 x int32 at p0 .. p3 (4 bodies' q and centre, or velocity), as 4 vectors of 64-bit
 * lanes: x[k] holds the k-th value of each */
AVX2 static inline void load4x4_256(const void *p0, const void *p1, const void *p2, const void *p3,
                                    __m256i x[4])
{
	__m128i b0 = _mm_loadu_si128((const __m128i *)p0);
	__m128i b1 = _mm_loadu_si128((const __m128i *)p1);
	__m128i b2 = _mm_loadu_si128((const __m128i *)p2);
	__m128i b3 = _mm_loadu_si128((const __m128i *)p3);
	__m128i t0 = _mm_unpacklo_epi32(b0, b1), t1 = _mm_unpacklo_epi32(b2, b3);
	__m128i t2 = _mm_unpackhi_epi32(b0, b1), t3 = _mm_unpackhi_epi32(b2, b3);
	x[0] = _mm256_cvtepi32_epi64(_mm_unpacklo_epi64(t0, t1));
	x[1] = _mm256_cvtepi32_epi64(_mm_unpackhi_epi64(t0, t1));
	x[2] = _mm256_cvtepi32_epi64(_mm_unpacklo_epi64(t2, t3));
	x[3] = _mm256_cvtepi32_epi64(_mm_unpackhi_epi64(t2, t3));
}

/* A fast lane's writes: its displacement row plus add, its q and centre (out: 4 x int32 at
 * &q), its origin (org's low 8 bytes) when origins. */
AVX2 static inline void put_lane(int64_t *disp, f2d_body *b, __m256i add, __m128i out,
                                 __m128i org, bool origins)
{
	__m256i *dp = (__m256i *)(void *)disp;
	_mm256_storeu_si256(dp, _mm256_add_epi64(_mm256_loadu_si256(dp), add));
	_mm_storeu_si128((__m128i *)(void *)&b->q, out);
	if (origins) {
		_mm_storel_epi64((__m128i *)(void *)&b->origin, org);
	}
}

/* The bodies ids[0 .. 3]: writes the fast lanes, runs the others. rows NULL: a step with
 * joints, the velocities in the bodies and the origins set too (integrate_position with
 * set_origin: lc = 0 needs no test, rotate(q, 0) = 0); origins: the origins set (with rows: the
 * step's last substep). */
AVX2 static inline __attribute__((always_inline)) void
integrate_positions_4(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4], const int32_t *ids,
                      fix16_t h, int64_t max_t, int64_t max_t2, fix16_t max_r, const bool in_rows,
                      const bool origins)
{
	f2d_body *bodies = w->bodies;
	int32_t i0 = ids[0], i1 = ids[1], i2 = ids[2], i3 = ids[3];
	/* q and centre: 4 x int32 at &q (core.h: center follows q) */
	__m256i x4[4];
	load4x4_256(&bodies[i0].q, &bodies[i1].q, &bodies[i2].q, &bodies[i3].q, x4);
	__m256i qc = x4[0], qs = x4[1], cx = x4[2], cy = x4[3];
	__m128i t0, t1, t2, t3;
	__m256i a, b, c, d, vx, vy, vw;
	if (in_rows) { /* the velocity rows (vx, vy, w, -) transposed */
		__m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *)rows[i0]);
		__m256i r1 = _mm256_loadu_si256((const __m256i *)(const void *)rows[i1]);
		__m256i r2 = _mm256_loadu_si256((const __m256i *)(const void *)rows[i2]);
		__m256i r3 = _mm256_loadu_si256((const __m256i *)(const void *)rows[i3]);
		a = _mm256_unpacklo_epi64(r0, r1);
		b = _mm256_unpackhi_epi64(r0, r1);
		c = _mm256_unpacklo_epi64(r2, r3);
		d = _mm256_unpackhi_epi64(r2, r3);
		vx = _mm256_permute2x128_si256(a, c, 0x20);
		vy = _mm256_permute2x128_si256(b, d, 0x20);
		vw = _mm256_permute2x128_si256(a, c, 0x31);
	} else { /* the bodies' v and w (core.h: w follows v) */
		__m256i x[4];
		load4x4_256(&bodies[i0].v, &bodies[i1].v, &bodies[i2].v, &bodies[i3].v, x);
		vx = x[0];
		vy = x[1];
		vw = x[2];
	}
	/* d = h v, dr = h w (f2d_mul) */
	const __m256i hh = _mm256_set1_epi64x(h), half16 = _mm256_set1_epi64x(0x8000);
	__m256i dx = f2d_round_shift_256(_mm256_mul_epi32(hh, vx), half16, 16);
	__m256i dy = f2d_round_shift_256(_mm256_mul_epi32(hh, vy), half16, 16);
	__m256i dr = f2d_round_shift_256(_mm256_mul_epi32(hh, vw), half16, 16);
	/* integrate_position_list's tests */
	__m256i d2 = _mm256_add_epi64(_mm256_mul_epi32(dx, dx), _mm256_mul_epi32(dy, dy));
	__m256i bad = _mm256_cmpgt_epi64(d2, _mm256_set1_epi64x(max_t2));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(dr, _mm256_set1_epi64x(max_r)));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(_mm256_set1_epi64x(-(int64_t)max_r), dr));
	cx = _mm256_add_epi64(cx, dx);
	cy = _mm256_add_epi64(cy, dy);
	const __m256i lim = _mm256_set1_epi64x(F2D_WORLD_LIMIT),
	              nlim = _mm256_set1_epi64x(-(int64_t)F2D_WORLD_LIMIT);
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(cx, lim));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(nlim, cx));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(cy, lim));
	bad = _mm256_or_si256(bad, _mm256_cmpgt_epi64(nlim, cy));
	__m256i oc = qc, os = qs; /* no turn in any lane (a body at rest): q stays */
	unsigned fast = ~f2d_bits_256(bad) & 15u;
	if (!_mm256_testz_si256(dr, dr)) {
		/* a lane whose move and centre are the fast case but whose turn the closed forms
		 * do not cover (a turn of more than ~0.0086 rad: the chain's swinging links) takes
		 * the scalar turn, f2d_integrate_rotation, whose value integrate_rotation gives for
		 * every turn (fmath.h), into its lane; the rest of the body stays in the lanes */
		unsigned rest = f2d_bits_256(f2d_turn_256(qc, qs, dr, &oc, &os)) & fast;
		if (rest != 0) { /* math.c's whole polynomial on the lanes (f2d_turn_full_256) */
			__m256i fc, fs;
			__m256i left = f2d_turn_full_256(qc, qs, dr, &fc, &fs);
			unsigned full = rest & ~f2d_bits_256(left);
			__m256i m = _mm256_cmpgt_epi64(
			    _mm256_and_si256(_mm256_setr_epi64x(1, 2, 4, 8), _mm256_set1_epi64x(full)),
			    _mm256_setzero_si256());
			oc = _mm256_blendv_epi8(oc, fc, m);
			os = _mm256_blendv_epi8(os, fs, m);
			rest &= ~full;
		}
		if (rest != 0) {
			int64_t tc[4], ts[4], q0[4], q1[4], r[4];
			_mm256_storeu_si256((__m256i *)(void *)tc, oc);
			_mm256_storeu_si256((__m256i *)(void *)ts, os);
			_mm256_storeu_si256((__m256i *)(void *)q0, qc);
			_mm256_storeu_si256((__m256i *)(void *)q1, qs);
			_mm256_storeu_si256((__m256i *)(void *)r, dr);
			for (int32_t j = 0; j < 4; ++j) {
				if (rest & (1u << j)) {
					f2d_rot q = {(fix16_t)q0[j], (fix16_t)q1[j]};
					f2d_rot t = f2d_integrate_rotation(q, (fix16_t)r[j]);
					tc[j] = t.c;
					ts[j] = t.s;
				}
			}
			oc = _mm256_loadu_si256((const __m256i *)(const void *)tc);
			os = _mm256_loadu_si256((const __m256i *)(const void *)ts);
		}
	}
	/* the fast lanes' displacement rows (dx, dy, dr, 0) and their q and centre */
	a = _mm256_unpacklo_epi64(dx, dy);
	b = _mm256_unpackhi_epi64(dx, dy);
	const __m256i zero = _mm256_setzero_si256();
	const __m128i zero128 = _mm_setzero_si128();
	c = _mm256_unpacklo_epi64(dr, zero);
	d = _mm256_unpackhi_epi64(dr, zero);
	const __m256i add0 = _mm256_permute2x128_si256(a, c, 0x20),
	              add1 = _mm256_permute2x128_si256(b, d, 0x20),
	              add2 = _mm256_permute2x128_si256(a, c, 0x31),
	              add3 = _mm256_permute2x128_si256(b, d, 0x31);
	__m128i pc = low32_256(oc), ps = low32_256(os), px = low32_256(cx), py = low32_256(cy);
	t0 = _mm_unpacklo_epi32(pc, ps);
	t1 = _mm_unpackhi_epi32(pc, ps);
	t2 = _mm_unpacklo_epi32(px, py);
	t3 = _mm_unpackhi_epi32(px, py);
	const __m128i out0 = _mm_unpacklo_epi64(t0, t2), out1 = _mm_unpackhi_epi64(t0, t2),
	              out2 = _mm_unpacklo_epi64(t1, t3), out3 = _mm_unpackhi_epi64(t1, t3);
	__m128i org0 = zero128, org1 = zero128, org2 = zero128, org3 = zero128;
	if (origins) { /* origin = c - rotate(q', lc) (f2d_rotate, f2d_sub) */
		__m128i l01 = _mm_unpacklo_epi64(
		    _mm_loadl_epi64((const __m128i *)(const void *)&bodies[i0].local_center),
		    _mm_loadl_epi64((const __m128i *)(const void *)&bodies[i1].local_center));
		__m128i l23 = _mm_unpacklo_epi64(
		    _mm_loadl_epi64((const __m128i *)(const void *)&bodies[i2].local_center),
		    _mm_loadl_epi64((const __m128i *)(const void *)&bodies[i3].local_center));
		/* (x0 y0 x1 y1), (x2 y2 x3 y3) -> x, y */
		__m128i u0 = _mm_unpacklo_epi32(l01, l23), u1 = _mm_unpackhi_epi32(l01, l23);
		__m256i lx = _mm256_cvtepi32_epi64(_mm_unpacklo_epi32(u0, u1));
		__m256i ly = _mm256_cvtepi32_epi64(_mm_unpackhi_epi32(u0, u1));
		__m256i rx = f2d_round_shift_256(
		    _mm256_sub_epi64(_mm256_mul_epi32(oc, lx), _mm256_mul_epi32(os, ly)), half16,
		    16);
		__m256i ry = f2d_round_shift_256(
		    _mm256_add_epi64(_mm256_mul_epi32(os, lx), _mm256_mul_epi32(oc, ly)), half16,
		    16);
		__m128i ox = low32_256(_mm256_sub_epi64(cx, rx)),
		        oy = low32_256(_mm256_sub_epi64(cy, ry));
		__m128i o01 = _mm_unpacklo_epi32(ox, oy), o23 = _mm_unpackhi_epi32(ox, oy);
		org0 = o01;
		org1 = _mm_unpackhi_epi64(o01, o01);
		org2 = o23;
		org3 = _mm_unpackhi_epi64(o23, o23);
	}
	if (fast == 15u) { /* the common case, straight (the ids read once, above) */
		put_lane(disp[i0], &bodies[i0], add0, out0, org0, origins);
		put_lane(disp[i1], &bodies[i1], add1, out1, org1, origins);
		put_lane(disp[i2], &bodies[i2], add2, out2, org2, origins);
		put_lane(disp[i3], &bodies[i3], add3, out3, org3, origins);
		return;
	}
	const __m256i add[4] = {add0, add1, add2, add3};
	const __m128i out[4] = {out0, out1, out2, out3}, org[4] = {org0, org1, org2, org3};
	for (int32_t j = 0; j < 4; ++j) {
		int32_t i = ids[j];
		if (fast & (1u << j)) {
			put_lane(disp[i], &bodies[i], add[j], out[j], org[j], origins);
		} else if (in_rows) {
			integrate_position_list(w, &bodies[i], rows[i], disp[i], h, max_t, max_t2,
			                        max_r, origins);
		} else {
			integrate_position_body(w, &bodies[i], disp[i], max_t, max_t2, max_r);
		}
	}
}

/* The moving bodies ids[0 .. n - 1] by 4 (one call per substep: the loop inside the AVX2
 * code), their velocities in the rows or, rows NULL, in the bodies (then the origins too: a
 * step with joints); origins: the origins too with the rows; returns how many it took, a
 * multiple of 4. */
AVX2 static int32_t integrate_positions_avx2(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4],
                                             const int32_t *ids, int32_t n, fix16_t h,
                                             int64_t max_t, int64_t max_t2, fix16_t max_r,
                                             bool origins)
{
	int32_t k = 0;
	if (rows != NULL && !origins) { /* three loops: each a copy of integrate_positions_4 */
		for (; k + 4 <= n; k += 4) {
			integrate_positions_4(w, rows, disp, &ids[k], h, max_t, max_t2, max_r, true,
			                      false);
		}
	} else if (rows != NULL) {
		for (; k + 4 <= n; k += 4) {
			integrate_positions_4(w, rows, disp, &ids[k], h, max_t, max_t2, max_r, true,
			                      true);
		}
	} else {
		for (; k + 4 <= n; k += 4) {
			integrate_positions_4(w, NULL, disp, &ids[k], h, max_t, max_t2, max_r, false,
			                      true);
		}
	}
	return k;
}

/* ---- integrate_positions_4 across 8 bodies (AVX-512: 8 x 64-bit lanes) ----
 * The rows' substeps (the origins too in a step's last), on this CPU's AVX-512 kernel:
 * integrate_positions_4's fast case, the same operations on 8 lanes (the closed-form turn,
 * f2d_turn_512); a group of 8 with any lane outside it (a cap, the world's edge, a turn the
 * closed forms do not cover) writes nothing here and is run by integrate_positions_4, 4 and 4,
 * which takes each such lane in list order. The rounding shifts are f2d_round_shift_256's:
 * (p + half + (p >> 63)) shifted logically, its low 32 bits sign-extended, here one shift
 * left by 32 - shift and one arithmetic right by 32 (bits shift .. shift + 31 of the sum,
 * sign-extended); the rows' lanes are read by their low 32 bits (vpmovqd), as vpmuldq reads
 * them. tests/test_integrate_paths.c steps its worlds (40 bodies) on this CPU's kernel against
 * the exact-only build. */
#define AVX512 F2D_TARGET_AVX512
AVX512 static inline __m512i round_shift_512(__m512i p, __m512i half, int shift)
{
	__m512i x = _mm512_add_epi64(_mm512_add_epi64(p, half), _mm512_srai_epi64(p, 63));
	return _mm512_srai_epi64(_mm512_slli_epi64(x, (unsigned)(32 - shift)), 32);
}

/* f2d_turn_256 on 8 lanes: the lanes it does not cover as a mask */
AVX512 static inline __mmask8 f2d_turn_512(__m512i qc, __m512i qs, __m512i hw, __m512i *oc,
                                           __m512i *os)
{
	const __m512i q30 = _mm512_set1_epi64((int64_t)1 << 30),
	              half30 = _mm512_set1_epi64((int64_t)1 << 29);
	__mmask8 still = _mm512_cmpeq_epi64_mask(hw, _mm512_setzero_si512());
	__mmask8 out = _mm512_cmpgt_epi64_mask(hw, _mm512_set1_epi64(1024)) |
	               _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(-1024), hw);
	__m512i t = _mm512_slli_epi64(hw, 14);
	__m512i t2 = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(t, t), half30), 30);
	out |= _mm512_cmpgt_epi64_mask(t2, _mm512_set1_epi64(F2D_ROT_CLOSED_MAX));
	__m512i sixth = _mm512_srli_epi64(_mm512_mul_epu32(t2, _mm512_set1_epi64(715827883)), 32);
	__m512i sa = round_shift_512(_mm512_mul_epi32(_mm512_sub_epi64(q30, sixth), t), half30, 30);
	__m512i ca = _mm512_sub_epi64(q30, _mm512_srli_epi64(t2, 1));
	/* f2d_turn_q30_256 */
	__m512i c = round_shift_512(
	    _mm512_sub_epi64(_mm512_mul_epi32(qc, ca), _mm512_mul_epi32(qs, sa)), half30, 30);
	__m512i s = round_shift_512(
	    _mm512_add_epi64(_mm512_mul_epi32(qs, ca), _mm512_mul_epi32(qc, sa)), half30, 30);
	__m512i len2 =
	    _mm512_sub_epi64(_mm512_add_epi64(_mm512_mul_epi32(c, c), _mm512_mul_epi32(s, s)),
	                     _mm512_set1_epi64((int64_t)1 << 32));
	out |= _mm512_cmpgt_epi64_mask(len2, _mm512_set1_epi64((int64_t)1 << 18)) |
	       _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(-((int64_t)1 << 18)), len2);
	*oc = _mm512_mask_mov_epi64(c, still, qc);
	*os = _mm512_mask_mov_epi64(s, still, qs);
	return out & (__mmask8)~still;
}

/* 4 x int32 at each of p[0 .. 7] (the halves of y[0 .. 3]: p[k] low, p[k + 4] high) as 4
 * vectors of 8 dwords, x[k] the k-th value of each */
AVX512 static inline void transpose4x8_256(const __m256i y[4], __m256i x[4])
{
	__m256i t0 = _mm256_unpacklo_epi32(y[0], y[1]), t1 = _mm256_unpacklo_epi32(y[2], y[3]);
	__m256i t2 = _mm256_unpackhi_epi32(y[0], y[1]), t3 = _mm256_unpackhi_epi32(y[2], y[3]);
	x[0] = _mm256_unpacklo_epi64(t0, t1);
	x[1] = _mm256_unpackhi_epi64(t0, t1);
	x[2] = _mm256_unpacklo_epi64(t2, t3);
	x[3] = _mm256_unpackhi_epi64(t2, t3);
}

/* The bodies ids[0 .. 7] (rows; origins: the origins too): true when all 8 took the fast case
 * (written), false when none was written. */
AVX512 static inline __attribute__((always_inline)) bool
integrate_positions_8(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4], const int32_t *ids,
                      fix16_t h, int64_t max_t2, fix16_t max_r, const bool origins)
{
	f2d_body *bodies = w->bodies;
	__m256i y[4], x[4];
	for (int32_t k = 0; k < 4; ++k) { /* q and centre: 4 x int32 at &q */
		y[k] = _mm256_inserti128_si256(
		    _mm256_castsi128_si256(
		        _mm_loadu_si128((const __m128i *)(const void *)&bodies[ids[k]].q)),
		    _mm_loadu_si128((const __m128i *)(const void *)&bodies[ids[k + 4]].q), 1);
	}
	transpose4x8_256(y, x);
	__m512i qc = _mm512_cvtepi32_epi64(x[0]), qs = _mm512_cvtepi32_epi64(x[1]);
	__m512i cx = _mm512_cvtepi32_epi64(x[2]), cy = _mm512_cvtepi32_epi64(x[3]);
	for (int32_t k = 0; k < 4; ++k) { /* the rows (vx, vy, w, -), their low 32 bits */
		y[k] = _mm512_cvtepi64_epi32(_mm512_inserti64x4(
		    _mm512_castsi256_si512(
		        _mm256_loadu_si256((const __m256i *)(const void *)rows[ids[k]])),
		    _mm256_loadu_si256((const __m256i *)(const void *)rows[ids[k + 4]]), 1));
	}
	transpose4x8_256(y, x);
	const __m512i hh = _mm512_set1_epi64(h), half16 = _mm512_set1_epi64(0x8000);
	__m512i dx = round_shift_512(_mm512_mul_epi32(hh, _mm512_cvtepi32_epi64(x[0])), half16, 16);
	__m512i dy = round_shift_512(_mm512_mul_epi32(hh, _mm512_cvtepi32_epi64(x[1])), half16, 16);
	__m512i dr = round_shift_512(_mm512_mul_epi32(hh, _mm512_cvtepi32_epi64(x[2])), half16, 16);
	__m512i d2 = _mm512_add_epi64(_mm512_mul_epi32(dx, dx), _mm512_mul_epi32(dy, dy));
	__mmask8 bad = _mm512_cmpgt_epi64_mask(d2, _mm512_set1_epi64(max_t2)) |
	               _mm512_cmpgt_epi64_mask(dr, _mm512_set1_epi64(max_r)) |
	               _mm512_cmpgt_epi64_mask(_mm512_set1_epi64(-(int64_t)max_r), dr);
	cx = _mm512_add_epi64(cx, dx);
	cy = _mm512_add_epi64(cy, dy);
	const __m512i lim = _mm512_set1_epi64(F2D_WORLD_LIMIT),
	              nlim = _mm512_set1_epi64(-(int64_t)F2D_WORLD_LIMIT);
	bad |= _mm512_cmpgt_epi64_mask(cx, lim) | _mm512_cmpgt_epi64_mask(nlim, cx) |
	       _mm512_cmpgt_epi64_mask(cy, lim) | _mm512_cmpgt_epi64_mask(nlim, cy);
	__m512i oc = qc, os = qs;
	if (_mm512_test_epi64_mask(dr, dr) != 0) {
		bad |= f2d_turn_512(qc, qs, dr, &oc, &os);
	}
	if (bad != 0) {
		return false;
	}
	/* q and centre back: 4 x int32 a body (transpose4x8_256's inverse) */
	__m256i pc = _mm512_cvtepi64_epi32(oc), ps = _mm512_cvtepi64_epi32(os);
	__m256i px = _mm512_cvtepi64_epi32(cx), py = _mm512_cvtepi64_epi32(cy);
	__m256i a0 = _mm256_unpacklo_epi32(pc, ps), a1 = _mm256_unpackhi_epi32(pc, ps);
	__m256i a2 = _mm256_unpacklo_epi32(px, py), a3 = _mm256_unpackhi_epi32(px, py);
	y[0] = _mm256_unpacklo_epi64(a0, a2); /* bodies 0 | 4 */
	y[1] = _mm256_unpackhi_epi64(a0, a2); /* 1 | 5 */
	y[2] = _mm256_unpacklo_epi64(a1, a3); /* 2 | 6 */
	y[3] = _mm256_unpackhi_epi64(a1, a3); /* 3 | 7 */
	/* the displacement rows' additions (dx, dy, dr, 0) */
	const __m512i zero = _mm512_setzero_si512();
	__m512i u0 = _mm512_unpacklo_epi64(dx, dy), u1 = _mm512_unpackhi_epi64(dx, dy);
	__m512i v0 = _mm512_unpacklo_epi64(dr, zero), v1 = _mm512_unpackhi_epi64(dr, zero);
	const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11),
	              hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
	__m512i add[4] = {_mm512_permutex2var_epi64(u0, lo, v0),  /* bodies 0 | 2 */
	                  _mm512_permutex2var_epi64(u1, lo, v1),  /* 1 | 3 */
	                  _mm512_permutex2var_epi64(u0, hi, v0),  /* 4 | 6 */
	                  _mm512_permutex2var_epi64(u1, hi, v1)}; /* 5 | 7 */
	for (int32_t j = 0; j < 8; ++j) {
		int32_t i = ids[j];
		__m256i *dp = (__m256i *)(void *)disp[i];
		__m512i a = add[(j & 1) | ((j >> 2) << 1)];
		__m256i d = (j & 2) ? _mm512_extracti64x4_epi64(a, 1) : _mm512_castsi512_si256(a);
		_mm256_storeu_si256(dp, _mm256_add_epi64(_mm256_loadu_si256(dp), d));
		__m256i q = y[j & 3];
		_mm_storeu_si128((__m128i *)(void *)&bodies[i].q,
		                 j < 4 ? _mm256_castsi256_si128(q) : _mm256_extracti128_si256(q, 1));
	}
	if (origins) { /* origin = c - rotate(q', lc) (integrate_positions_4's) */
		int64_t lc[8];
		for (int32_t j = 0; j < 8; ++j) {
			memcpy(&lc[j], &bodies[ids[j]].local_center, sizeof lc[j]);
		}
		__m512i l = _mm512_loadu_si512(lc);
		__m512i lx = _mm512_srai_epi64(_mm512_slli_epi64(l, 32), 32);
		__m512i ly = _mm512_srai_epi64(l, 32);
		__m512i rx = round_shift_512(
		    _mm512_sub_epi64(_mm512_mul_epi32(oc, lx), _mm512_mul_epi32(os, ly)), half16, 16);
		__m512i ry = round_shift_512(
		    _mm512_add_epi64(_mm512_mul_epi32(os, lx), _mm512_mul_epi32(oc, ly)), half16, 16);
		/* (x, y) low 32 bits each, one 64-bit lane a body */
		__m512i org = _mm512_mask_blend_epi32(0xAAAA, _mm512_sub_epi64(cx, rx),
		                                      _mm512_slli_epi64(_mm512_sub_epi64(cy, ry), 32));
		const __m128i o[4] = {
		    _mm512_castsi512_si128(org), _mm512_extracti32x4_epi32(org, 1),
		    _mm512_extracti32x4_epi32(org, 2), _mm512_extracti32x4_epi32(org, 3)};
		for (int32_t j = 0; j < 8; j += 2) {
			_mm_storel_epi64((__m128i *)(void *)&bodies[ids[j]].origin, o[j / 2]);
			_mm_storel_epi64((__m128i *)(void *)&bodies[ids[j + 1]].origin,
			                 _mm_unpackhi_epi64(o[j / 2], o[j / 2]));
		}
	}
	return true;
}

/* integrate_plain_rows_avx2 two rows at a time (f2d_plain_rows_512, integrate_simd.h); a pair
 * it leaves (a velocity that saturates) takes the AVX2 row, then the scalar code, row by row
 * (each row is its own: the order does not matter, and the saturation flag is only ever
 * set). */
AVX512 static void integrate_plain_rows_avx512(f2d_world *w, int64_t (*rows)[4],
                                               const int32_t *ids, int32_t n, f2d_vec2 hg)
{
	const __m256i add = _mm256_setr_epi64x(hg.x, hg.y, 0, 0);
	const __m512i add2 = _mm512_setr_epi64(hg.x, hg.y, 0, 0, hg.x, hg.y, 0, 0);
	int32_t k = 0;
	for (; k + 2 <= n; k += 2) {
		if (f2d_plain_rows_512(rows[ids[k]], rows[ids[k + 1]], add2)) {
			continue;
		}
		for (int32_t j = k; j < k + 2; ++j) {
			if (!f2d_plain_row_256(rows[ids[j]], add)) {
				integrate_plain_row(w, rows[ids[j]], hg);
			}
		}
	}
	for (; k < n; ++k) {
		if (!f2d_plain_row_256(rows[ids[k]], add)) {
			integrate_plain_row(w, rows[ids[k]], hg);
		}
	}
}

/* integrate_positions_avx2 with the rows by 8, then 4 (the groups of 8 integrate_positions_8
 * leaves: 4 and 4); a copy for each value of origins */
AVX512 static inline __attribute__((always_inline)) int32_t
positions_by_8(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4], const int32_t *ids, int32_t n,
               fix16_t h, int64_t max_t, int64_t max_t2, fix16_t max_r, const bool origins)
{
	int32_t k = 0;
	for (; k + 8 <= n; k += 8) {
		if (!integrate_positions_8(w, rows, disp, &ids[k], h, max_t2, max_r, origins)) {
			integrate_positions_4(w, rows, disp, &ids[k], h, max_t, max_t2, max_r, true,
			                      origins);
			integrate_positions_4(w, rows, disp, &ids[k + 4], h, max_t, max_t2, max_r,
			                      true, origins);
		}
	}
	if (k + 4 <= n) {
		integrate_positions_4(w, rows, disp, &ids[k], h, max_t, max_t2, max_r, true,
		                      origins);
		k += 4;
	}
	return k;
}
AVX512 static int32_t integrate_positions_avx512(f2d_world *w, int64_t (*rows)[4],
                                                 int64_t (*disp)[4], const int32_t *ids,
                                                 int32_t n, fix16_t h, int64_t max_t,
                                                 int64_t max_t2, fix16_t max_r, bool origins)
{
	return origins ? positions_by_8(w, rows, disp, ids, n, h, max_t, max_t2, max_r, true)
	               : positions_by_8(w, rows, disp, ids, n, h, max_t, max_t2, max_r, false);
}
#undef AVX512

/* integrate_velocities_lists' plain bodies on the rows (f2d_plain_row_256, integrate_simd.h:
 * the rows it leaves, whose velocity saturates, take integrate_plain_row). Each body's row is
 * its own: the order of the bodies does not matter. */
AVX2 static void integrate_plain_rows_avx2(f2d_world *w, int64_t (*rows)[4], const int32_t *ids,
                                           int32_t n, f2d_vec2 hg)
{
	const __m256i add = _mm256_setr_epi64x(hg.x, hg.y, 0, 0);
	for (int32_t k = 0; k < n; ++k) {
		int64_t *r = rows[ids[k]];
		if (!f2d_plain_row_256(r, add)) {
			integrate_plain_row(w, r, hg);
		}
	}
}

/* soft_step's first loop over the bodies with the rows and the lists: the same writes. A row
 * (v.x, v.y, w, 0) is the 16 bytes at &b->v (v, w, force.x: the _Static_assert above)
 * sign-extended to 64 bits with lane 3 zeroed; a plain body's first substep is
 * f2d_plain_sum_256 on that row (v += h g where no lane saturates: lane 2 w + 0, lane 3 0 + 0,
 * as f2d_plain_row_256), else integrate_plain_row on the stored row (the scalar loop's
 * f2d_sat_flag sums: the same expressions on the same values); the displacement row is
 * zeroed by one store. Returns the lists' counts in *bl. */
AVX2 static void start_rows_avx2(f2d_world *w, int64_t (*rows)[4], int64_t (*disp)[4],
                                 body_lists *bl, f2d_vec2 hg)
{
	const __m256i zero = _mm256_setzero_si256();
	const __m256i add = _mm256_setr_epi64x(hg.x, hg.y, 0, 0);
	const int32_t nb = w->body_ids.next;
	/* soft_step's lists (bl's arrays) */
	int32_t *moving = w->integ_list, *plain = moving + nb, *general = plain + nb;
	int32_t nm = 0, np = 0, ng = 0;
	const f2d_body *bodies = w->bodies;
	for (int32_t i = 0; i < nb; ++i) {
		const f2d_body *b = &bodies[i];
		_mm256_storeu_si256((__m256i *)(void *)disp[i], zero);
		__m256i row = _mm256_blend_epi32(
		    _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(const void *)&b->v)), zero,
		    0xC0);
		if (b->alive && b->type != F2D_STATIC_BODY && b->awake) {
			moving[nm++] = i;
			if (b->type == F2D_DYNAMIC_BODY) {
				if (gravity_only(b)) {
					plain[np++] = i;
					__m256i v;
					if (!f2d_plain_sum_256(row, add, &v)) {
						_mm256_storeu_si256((__m256i *)(void *)rows[i], row);
						integrate_plain_row(w, rows[i], hg);
						continue;
					}
					row = v;
				} else {
					general[ng++] = i;
				}
			}
		}
		_mm256_storeu_si256((__m256i *)(void *)rows[i], row);
	}
	bl->nm = nm;
	bl->np = np;
	bl->ng = ng;
}
#undef AVX2
#else
#define F2D_INTEGRATE_SIMD 0
#endif

/* integrate_velocities_rows over the lists: the same operations (order does not matter: each
 * body's row is its own, and the saturation flag is only ever set). plain false: the plain
 * bodies are left out (the first substep's, which soft_step integrates as it makes the lists). */
static void integrate_velocities_lists(f2d_world *w, int64_t (*rows)[4], const body_lists *l,
                                       bool plain, int kernel)
{
	f2d_vec2 hg = f2d_v(f2d_mul(w->h, w->gravity.x), f2d_mul(w->h, w->gravity.y));
	int32_t k = plain ? 0 : l->np;
#if F2D_INTEGRATE_SIMD
	if (kernel == F2D_KERNEL_AVX512 && k < l->np) {
		integrate_plain_rows_avx512(w, rows, l->plain, l->np, hg);
		k = l->np;
	} else if (kernel != F2D_KERNEL_SCALAR && k < l->np) {
		integrate_plain_rows_avx2(w, rows, l->plain, l->np, hg);
		k = l->np;
	}
#else
	(void)kernel;
#endif
	for (; k < l->np; ++k) {
		integrate_plain_row(w, rows[l->plain[k]], hg);
	}
	for (k = 0; k < l->ng; ++k) {
		int32_t i = l->general[k];
		int64_t *r = rows[i];
		vel3 v = integrate_velocity(w, &w->bodies[i], hg,
		                            (vel3){(fix16_t)r[0], (fix16_t)r[1], (fix16_t)r[2]});
		r[0] = v.x;
		r[1] = v.y;
		r[2] = v.w;
	}
}

/* integrate_velocities over the lists, on the bodies (a step with joints, whose velocities
 * live in the bodies): the same operations as integrate_velocities' on each body (whose
 * velocity is its own; the saturation flag is only ever set), without its tests per id. plain
 * false: as integrate_velocities_lists. */
static void integrate_velocities_bodies_lists(f2d_world *w, const body_lists *l, bool plain)
{
	f2d_vec2 hg = f2d_v(f2d_mul(w->h, w->gravity.x), f2d_mul(w->h, w->gravity.y));
	for (int32_t k = 0; k < l->np && plain; ++k) {
		f2d_body *b = &w->bodies[l->plain[k]];
		b->v.x = f2d_sat_flag((int64_t)b->v.x + hg.x, &w->saturated);
		b->v.y = f2d_sat_flag((int64_t)b->v.y + hg.y, &w->saturated);
	}
	for (int32_t k = 0; k < l->ng; ++k) {
		f2d_body *b = &w->bodies[l->general[k]];
		vel3 v = integrate_velocity(w, b, hg, (vel3){b->v.x, b->v.y, b->w});
		b->v = f2d_v(v.x, v.y);
		b->w = v.w;
	}
}

/* integrate_positions_soft on the rows over the moving bodies, in id order (f2d_stop_at_edge
 * keeps the last body it stopped); the origins only in the step's last substep (origins):
 * nothing reads them during the substeps of a step without joints (the contact passes read
 * the rows and the displacement rows only, and the last relax pass changes no centre or
 * rotation), and an origin is a function of the final centre and rotation alone (the
 * expression of integrate_position's set_origin; before, a pass over the moving bodies after
 * the substeps, origins_lists, computed it). */
static bool integrate_positions_lists(f2d_world *w, fix16_t max_translation, fix16_t max_rotation,
                                      int64_t (*rows)[4], int64_t (*disp)[4], const body_lists *l,
                                      int kernel, bool origins)
{
	int64_t max_t = max_translation;
	int64_t max_t2 = max_t * max_t;
	fix16_t max_r = max_rotation;
	const fix16_t h = w->h; /* locals: the body stores could alias w's fields */
	f2d_body *bodies = w->bodies;
	int32_t k = 0;
#if F2D_INTEGRATE_SIMD
	if (kernel == F2D_KERNEL_AVX512) {
		k = integrate_positions_avx512(w, rows, disp, l->moving, l->nm, h, max_t, max_t2,
		                               max_r, origins);
	} else if (kernel != F2D_KERNEL_SCALAR) {
		k = integrate_positions_avx2(w, rows, disp, l->moving, l->nm, h, max_t, max_t2,
		                             max_r, origins);
	}
#else
	(void)kernel;
#endif
	for (; k < l->nm; ++k) {
		int32_t i = l->moving[k];
		integrate_position_list(w, &bodies[i], rows[i], disp[i], h, max_t, max_t2, max_r,
		                        origins);
	}
	return w->stopped_at_edge;
}

/* integrate_positions_soft on the bodies (a step with joints, which read the bodies' positions
 * between the substeps: the origins too) over the moving bodies, in id order */
static bool integrate_positions_bodies_lists(f2d_world *w, fix16_t max_translation,
                                             fix16_t max_rotation, int64_t (*disp)[4],
                                             const body_lists *l, int kernel)
{
	int64_t max_t = max_translation;
	int64_t max_t2 = max_t * max_t;
	fix16_t max_r = max_rotation;
	int32_t k = 0;
#if F2D_INTEGRATE_SIMD
	if (kernel != F2D_KERNEL_SCALAR) { /* 4 at a time, rows NULL: the bodies */
		k = integrate_positions_avx2(w, NULL, disp, l->moving, l->nm, w->h, max_t, max_t2,
		                             max_r, true);
	}
#else
	(void)kernel;
#endif
	for (; k < l->nm; ++k) {
		int32_t i = l->moving[k];
		integrate_position_body(w, &w->bodies[i], disp[i], max_t, max_t2, max_r);
	}
	return w->stopped_at_edge;
}

/* cap_speeds_soft over the moving bodies (no body reads another: any order) */
static void cap_speeds_lists(f2d_world *w, int64_t max_t, fix16_t max_r, const body_lists *l)
{
	int64_t max_t2 = max_t * max_t;
	for (int32_t k = 0; k < l->nm; ++k) {
		cap_speed_soft(w, &w->bodies[l->moving[k]], max_t, max_t2, max_r);
	}
}

/* Sleep off: everything that can move is simulated. */
static void all_awake(f2d_world *w)
{
	int32_t awake = 0;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		awake += w->bodies[i].alive && w->bodies[i].type != F2D_STATIC_BODY ? 1 : 0;
	}
	/* every arbiter is active: f2d_update_contacts set them so with sleeping off */
	w->awake_body_count = awake;
	w->island_count = -1; /* not computed */
}

static bool joint_active(const f2d_world *w, const f2d_joint *j)
{
	return j->alive &&
	       (f2d_body_active(&w->bodies[j->body_a]) || f2d_body_active(&w->bodies[j->body_b]));
}

/* The ids of the joints that take part in this step, in id order, into w->joint_list. */
static int32_t list_active_joints(f2d_world *w)
{
	int32_t n = 0;
	for (int32_t i = 0; i < w->joint_ids.next; ++i) {
		if (joint_active(w, &w->joints[i])) {
			w->joint_list[n++] = i;
		}
	}
	return n;
}

/* Test only, never in a real build: the deliberately broken cell of tests/matrix. Step
 * F2D_TEST_PERTURB_STEP adds one LSB to the x velocity of the lowest-id dynamic body, right
 * after the velocity solve (so a traced step names "velocities" as the first phase that
 * differs; a whole-asleep step adds it to the state it leaves). If that step then puts the
 * body to sleep, which zeroes its velocity, perturb_after_sleep adds the LSB again, so the
 * state the step leaves differs in every scene (the soft step settles random_stack's boxes
 * into sleep at step 61). */
#ifdef F2D_TEST_PERTURB_STEP
static f2d_body *perturbed_body(f2d_world *w)
{
	if (w->step_count + 1 != (uint64_t)(F2D_TEST_PERTURB_STEP)) {
		return NULL;
	}
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		if (w->bodies[i].alive && w->bodies[i].type == F2D_DYNAMIC_BODY) {
			return &w->bodies[i];
		}
	}
	return NULL;
}
#endif

static void perturb_for_test(f2d_world *w)
{
#ifdef F2D_TEST_PERTURB_STEP
	f2d_body *b = perturbed_body(w);
	if (b != NULL) {
		b->v.x += 1;
	}
#else
	(void)w;
#endif
}

static void perturb_after_sleep(f2d_world *w)
{
#ifdef F2D_TEST_PERTURB_STEP
	f2d_body *b = perturbed_body(w);
	if (b != NULL && !b->awake && b->v.x == 0 && b->v.y == 0 && b->w == 0) {
		b->v.x += 1; /* put to sleep in this step (a body asleep before keeps its +1) */
	}
#else
	(void)w;
#endif
}

/* True when the whole world sleeps and nothing changed since the last step: then a step would
 * recompute the same pairs, keep every arbiter frozen, move no body and put none to sleep, so
 * it only counts the step. (Sleeping bodies carry no force: applying one wakes the body.) */
static bool nothing_moves(const f2d_world *w)
{
	if (!w->def.enable_sleep || w->sweep_dirty || w->contacts_stale) {
		return false;
	}
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		if (b->alive && f2d_body_active(b)) {
			return false;
		}
	}
	return true;
}

const char *f2d_phase_name(f2d_phase phase)
{
	static const char *const names[F2D_PHASE_COUNT] = {"pairs", "manifolds", "velocities",
	                                                   "positions", "islands"};
	return (int)phase >= 0 && phase < F2D_PHASE_COUNT ? names[phase] : NULL;
}

/* The soft step (f2d_world_def.substep_count = n >= 1; Box2D v3's b2SolverStage order, the
 * contact side in src/solver.c): n substeps of h = round(time_step / n), each
 *   integrate velocities (gravity, forces, damping over h);
 *   the joints' pre-step: in the first substep the whole of it (effective masses with their
 *   2x2 inverses, softness, resets; the colours), as Box2D v3's b2PrepareJointsTask once per
 *   step; in the others only what the positions change (f2d_joints_substep: arms, position
 *   errors and their bias from the positions of now: a bias computed at the step's start
 *   would be applied in every substep, n times the correction, which fed energy into a
 *   pendulum);
 *   warm start contacts and joints; solve contacts (soft push-out) and joints;
 *   integrate positions (max_translation and max_rotation / n each: the step's caps hold);
 *   relax the joints (f2d_joints_relax: rigid rows without bias) and the contacts (no
 *   push-out).
 * The velocity phase hash is taken after restitution, the positions are final after the
 * substeps (the joint position passes follow as in the other solver: without them chain50's
 * anchors part by 0.55 m, Box2D v3's by 0.35 m; with them 0.044 m). Returns whether a body
 * was stopped at the world's edge. */
static bool soft_step(f2d_world *w, int32_t nj)
{
	int32_t n = w->def.substep_count;
	fix16_t h = w->h, inv_h = w->inv_h;
	fix16_t hs = (fix16_t)(((int64_t)h + n / 2) / n); /* >= 65 LSB (check_world_def) */
	f2d_softness soft;
	w->h = hs;
	w->inv_h = f2d_div_exact((int64_t)1 << 16, hs);
	f2d_soft_make(hs, w->inv_h, &soft);
	fix16_t max_t = w->def.max_translation / n, max_r = w->def.max_rotation / n;
	bool out_of_range = false;
	/* Without joints (which read and write the bodies) every body's velocity lives in its
	 * solver row (w->solver_vel, by id) for the whole step: the integrations and the contact
	 * passes work on the rows and the bodies get them back at the end, instead of copies in
	 * and out around every pass (the same values, so the same bits). The displacement rows
	 * start at 0 for every body (integrate_positions adds each substep's move and turn). */
	int64_t(*rows)[4] = nj == 0 ? w->solver_vel : NULL;
	/* with the rows, the body lists (see body_lists; step reserved w->integ_list) */
	int32_t nb = w->body_ids.next;
#ifdef F2D_INTEGRATE_EXACT_ONLY
	const bool lists = false;
#else
	const bool lists = true;
#endif
	int32_t *moving = w->integ_list, *plain = moving + nb, *general = plain + nb;
	const int kernel = f2d_kernel_level(); /* integrate_*_lists' */
	body_lists bl = {moving, plain, general, 0, 0, 0};
	/* integrate_velocities_*lists' h g: the first substep's plain bodies (v += h g) are
	 * integrated here, as the lists are made (nothing reads their velocities in between), and
	 * the first substep's integrate_velocities_*lists leaves them out */
	f2d_vec2 hg = f2d_v(f2d_mul(w->h, w->gravity.x), f2d_mul(w->h, w->gravity.y));
	int32_t i0 = 0;
#if F2D_INTEGRATE_SIMD
	if (lists && rows != NULL && kernel != F2D_KERNEL_SCALAR) {
		start_rows_avx2(w, rows, w->solver_disp, &bl, hg);
		i0 = nb;
	}
#endif
	for (int32_t i = i0; i < nb; ++i) {
		f2d_body *b = &w->bodies[i];
		int64_t *r = w->solver_disp[i];
		r[0] = r[1] = r[2] = r[3] = 0;
		if (rows != NULL) {
			rows[i][0] = b->v.x;
			rows[i][1] = b->v.y;
			rows[i][2] = b->w;
			rows[i][3] = 0;
		}
		if (lists && b->alive && b->type != F2D_STATIC_BODY && b->awake) {
			moving[bl.nm++] = i;
			if (b->type == F2D_DYNAMIC_BODY) {
				if (gravity_only(b)) {
					plain[bl.np++] = i;
					/* integrate_plain_row, or integrate_velocities_bodies_lists' */
					fix16_t vx = f2d_sat_flag((int64_t)b->v.x + hg.x, &w->saturated);
					fix16_t vy = f2d_sat_flag((int64_t)b->v.y + hg.y, &w->saturated);
					if (rows != NULL) {
						rows[i][0] = vx;
						rows[i][1] = vy;
					} else {
						b->v = f2d_v(vx, vy);
					}
				} else {
					general[bl.ng++] = i;
				}
			}
		}
	}
	for (int32_t s = 0; s < n; ++s) {
		if (lists && rows != NULL) {
			integrate_velocities_lists(w, rows, &bl, s > 0, kernel);
		} else if (lists) {
			integrate_velocities_bodies_lists(w, &bl, s > 0);
		} else if (rows != NULL) {
			integrate_velocities_rows(w, rows);
		} else {
			integrate_velocities(w);
		}
		if (s == 0) {
			f2d_joints_prestep(w, nj); /* and their colours */
		} else {
			f2d_joints_substep(w, nj);
		}
		if (w->def.warm_starting) {
			f2d_soft_warm_start(w, rows != NULL);
			f2d_joints_warm_start(w, nj);
		}
		f2d_soft_solve(w, &soft, true, s & 1, rows != NULL);
		f2d_joints_solve(w, nj,
		                 w->def.iterations - 1); /* the last: impulses to the joints */
		if (lists && rows != NULL) {
			out_of_range |= integrate_positions_lists(
			    w, max_t, max_r, rows, w->solver_disp, &bl, kernel, s == n - 1);
		} else if (lists) {
			out_of_range |= integrate_positions_bodies_lists(
			    w, max_t, max_r, w->solver_disp, &bl, kernel);
		} else {
			out_of_range |= integrate_positions_soft(w, max_t, max_r, rows, w->solver_disp);
		}
		if (nj > 0) {
			f2d_joints_relax(w, nj); /* Box2D v3's relax stage: joints, then contacts */
			if (lists) {
				cap_speeds_lists(w, max_t, max_r, &bl);
			} else {
				cap_speeds_soft(w, max_t, max_r);
			}
		}
		f2d_soft_solve(w, &soft, false, s & 1, rows != NULL);
	}
	if (rows != NULL) {
		for (int32_t i = 0; i < w->body_ids.next; ++i) {
			f2d_body *b = &w->bodies[i];
			if (b->alive && b->type != F2D_STATIC_BODY) {
				b->v = f2d_v((fix16_t)rows[i][0], (fix16_t)rows[i][1]);
				b->w = (fix16_t)rows[i][2];
			}
		}
	}
	w->h = h;
	w->inv_h = inv_h;
	f2d_soft_end(w);
	return out_of_range;
}

/* The step. trace is NULL for f2d_world_step: then each phase costs one pointer test. */
static f2d_result step(f2d_world *w, f2d_phase_hashes *trace)
{
	f2d_hash_cache_shapes(w); /* the step changes no shape: the hash after it reuses this */
	f2d_events_clear_output(w);
	if (nothing_moves(w)) {
		perturb_for_test(w);
		w->step_count++;
		w->awake_body_count = 0;
		w->island_count = 0;
		if (trace != NULL) {
			for (int p = 0; p < F2D_PHASE_COUNT; ++p) {
				trace->phase[p] = f2d_hash_phase(w, (f2d_phase)p);
			}
		}
		return F2D_OK;
	}
	w->saturated = false;
	w->stopped_at_edge = false;
	w->query_epoch++; /* bodies may move: the query tree is out of date */
	f2d_result r = f2d_joints_reserve(w) ? F2D_OK : F2D_ERROR_OUT_OF_MEMORY;
	if (r == F2D_OK && w->def.substep_count > 0 &&
	    !f2d_grow(w, (void **)&w->integ_list, &w->integ_list_capacity,
	              3 * w->body_ids.next + 1, sizeof(int32_t))) {
		r = F2D_ERROR_OUT_OF_MEMORY; /* the soft step's body lists (soft_step) */
	}
	if (r == F2D_OK && w->def.enable_sleep) {
		r = f2d_islands_prepare(w);
	}
	if (r == F2D_OK) {
		r = f2d_update_contacts(w);
	}
	if (r != F2D_OK) {
		return f2d_set_error(w, r,
		                     "world_step: allocator returned NULL; the step was not taken");
	}
	w->contacts_stale = false;
	if (trace != NULL) {
		/* the pair keys stay in w->pairs after the merge */
		trace->phase[F2D_PHASE_PAIRS] = f2d_hash_phase(w, F2D_PHASE_PAIRS);
	}
	if (w->def.enable_sleep) {
		f2d_islands_wake(w);
		f2d_refresh_arbiters(w);
	} else {
		all_awake(w);
	}
	if (trace != NULL) {
		trace->phase[F2D_PHASE_MANIFOLDS] = f2d_hash_phase(w, F2D_PHASE_MANIFOLDS);
	}
	f2d_events_measure_approach(w);
	/* the contacts' pre-step before the forces: restitution needs the relative normal
	 * velocities of before the step (its pre-step reads nothing else that they change) */
	f2d_contacts_prestep(w);
	/* the joints that take part, in id order, once: which bodies can move does not change
	 * until the islands fall asleep at the end of the step */
	int32_t nj = list_active_joints(w);
	bool out_of_range = false;
	if (w->def.substep_count > 0) {
		out_of_range = soft_step(w, nj);
	} else {
		integrate_velocities(w);
		f2d_joints_prestep(w, nj); /* and their colours */
		if (w->def.warm_starting) {
			f2d_contacts_warm_start(w);
			f2d_joints_warm_start(w, nj);
		}
		for (int32_t it = 0; it < w->def.iterations; ++it) {
			f2d_contacts_solve(w, it);
			f2d_joints_solve(w, nj, it);
		}
	}
	if (w->def.substep_count == 0) {
		f2d_contacts_restitution(w); /* the soft step bounces in its substeps */
	}
	f2d_events_end_step(w); /* the arbiters and their impulses are final */
	perturb_for_test(w);
	if (trace != NULL) {
		trace->phase[F2D_PHASE_VELOCITIES] = f2d_hash_phase(w, F2D_PHASE_VELOCITIES);
	}
	if (w->def.substep_count == 0) {
		out_of_range = integrate_positions(w, w->def.max_translation, w->def.max_rotation);
	}
	if (out_of_range) {
		/* a kinematic body stopped at the world's edge no longer moves: its joints may
		 * have left the list */
		nj = list_active_joints(w);
	}
	/* Joint position projection passes in joint id order (see f2d_joint_solve_position),
	 * until every anchor gap found by a pass is within the stop gap, at most
	 * joint_position_iterations passes. The stop depends on the state only. The stop gap is
	 * linear_slop / 4 in the default step and linear_slop in the soft step, whose joints
	 * already pull their anchors together in every substep (their bias on the gap up to
	 * joint_tolerance, then the relax pass): with linear_slop / 4 the passes ran to their
	 * limit in most steps of chain50 (3.4 passes of 4 on average) for no smaller gap. Measured
	 * with 4 substeps (peers driver, chain, 600 steps): the largest gap 0.0383 -> 0.0370 m
	 * (2 substeps 0.0624 -> 0.0609, 8: 0.0128 -> 0.0123); callgrind (300 steps) chain50
	 * -6.3 %, bridge -10.8 % of the step's instructions. */
	fix16_t stop = w->def.substep_count > 0 ? w->def.linear_slop : w->def.linear_slop / 4;
	for (int32_t it = 0; it < w->def.joint_position_iterations; ++it) {
		fix16_t worst = 0;
		for (int32_t k = 0; k < nj; ++k) {
			worst = f2d_max(worst,
			                f2d_joint_solve_position(w, &w->joints[w->joint_list[k]]));
		}
		if (worst <= stop) {
			break;
		}
	}
	f2d_solve_continuous(w); /* fast bodies back to their first touch (toi.c) */
	if (trace != NULL) {
		trace->phase[F2D_PHASE_POSITIONS] = f2d_hash_phase(w, F2D_PHASE_POSITIONS);
	}
	if (w->def.enable_sleep) {
		f2d_islands_sleep(w);
		perturb_after_sleep(w);
	}

	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		w->bodies[i].force = f2d_v(0, 0);
		w->bodies[i].torque = 0;
	}
	w->step_count++;
	if (trace != NULL) {
		trace->phase[F2D_PHASE_ISLANDS] = f2d_hash_phase(w, F2D_PHASE_ISLANDS);
	}
	if (w->stopped_at_edge) { /* in integrate_positions or a joint position pass */
		return f2d_set_error(
		    w, F2D_ERROR_OUT_OF_RANGE,
		    "world_step: body %d left the world range and was stopped at its edge",
		    w->last_out_of_range_body);
	}
	if (w->saturated) {
		w->overflow_events++;
		return f2d_set_error(w, F2D_ERROR_OVERFLOW,
		                     "world_step: an impulse saturated at the fix16 range");
	}
	return F2D_OK;
}

f2d_result f2d_world_step(f2d_world *w)
{
	return w == NULL ? F2D_ERROR_NULL_ARGUMENT : step(w, NULL);
}

f2d_result f2d_world_step_traced(f2d_world *w, f2d_phase_hashes *out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	if (out == NULL) {
		return step(w, NULL);
	}
	f2d_phase_hashes t;
	memset(&t, 0, sizeof t);
	f2d_result r = step(w, &t);
	if (r == F2D_ERROR_OUT_OF_MEMORY) {
		return r; /* the step was not taken: *out unchanged */
	}
	t.step = w->step_count;
	t.state = f2d_hash_world(w);
	*out = t;
	return r;
}
