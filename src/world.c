/* fix2d world: creation, settings and the fixed-order step (errors, allocation and id pools
 * live in base.c).
 * SPDX-License-Identifier: MIT
 */
#include "core.h"
#include "integrate_internal.h"

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
	                      sizeof(f2d_arbiter)) ||
	    !f2d_grow(w, (void **)&w->arbiter_geo, &w->arbiter_geo_capacity, def->contact_capacity,
	              sizeof(uint64_t))) {
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
	f2d_free(w, w->arbiter_geo, (size_t)w->arbiter_geo_capacity * sizeof(uint64_t));
	f2d_free(w, w->arbiter_geo_next, (size_t)w->arbiter_geo_next_capacity * sizeof(uint64_t));
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
		f2d_start_rows_avx2(w, rows, w->solver_disp, &bl, hg);
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
			f2d_integrate_velocities_lists(w, rows, &bl, s > 0, kernel);
		} else if (lists) {
			f2d_integrate_velocities_bodies_lists(w, &bl, s > 0);
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
			out_of_range |= f2d_integrate_positions_lists(
			    w, max_t, max_r, rows, w->solver_disp, &bl, kernel, s == n - 1);
		} else if (lists) {
			out_of_range |= f2d_integrate_positions_bodies_lists(
			    w, max_t, max_r, w->solver_disp, &bl, kernel);
		} else {
			out_of_range |= integrate_positions_soft(w, max_t, max_r, rows, w->solver_disp);
		}
		if (nj > 0) {
			f2d_joints_relax(w, nj); /* Box2D v3's relax stage: joints, then contacts */
			if (lists) {
				f2d_cap_speeds_lists(w, max_t, max_r, &bl);
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
