/* fix2d islands and sleeping (seed 003; Box2D's island sleep).
 * SPDX-License-Identifier: MIT
 *
 * An island is a set of dynamic bodies linked by arbiters (contacts, including speculative
 * ones) and joints; static and kinematic bodies do not join islands, so a pile on the ground is
 * its own island. Islands are not stored: they are a function of the arbiters and joints, which
 * are state, and are rebuilt every step with a union-find whose representative is the smallest
 * body id of the set (union by smaller id, path halving). The partition is unique, so neither
 * the order of unions nor the compression history can make two peers disagree.
 *
 * State (hashed, in snapshots): per body `awake`, `enable_sleep` and `sleep_time` (seconds the
 * body has stayed below the sleep tolerances), and the world's sleep settings.
 *
 * Each step, after the arbiters are updated:
 *   1. wake: an island wakes (all its bodies) when one of its bodies is awake or it touches a
 *      kinematic body that moves. Arbiters between two bodies that cannot move this step are
 *      frozen (their manifold was not recomputed); a frozen arbiter of an island that just woke
 *      is recomputed before the solver sees it (f2d_refresh_arbiters).
 *   2. the solver and integrator skip sleeping bodies and arbiters/joints with no awake body.
 *   3. sleep: each awake dynamic body adds h to its sleep_time while |v| <= linear tolerance and
 *      |w| <= angular tolerance (else 0); an island whose smallest sleep_time reaches
 *      time_to_sleep goes to sleep: every body gets zero velocity and awake = false.
 * A body with enable_sleep = false keeps sleep_time at 0, so its island never sleeps.
 */
#include "core.h"

static int32_t find_root(int32_t *parent, int32_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

static void unite(int32_t *parent, int32_t a, int32_t b)
{
	a = find_root(parent, a);
	b = find_root(parent, b);
	if (a < b) {
		parent[b] = a;
	} else if (b < a) {
		parent[a] = b;
	}
}

/* Bodies ia and ib are linked (an arbiter or a joint): two dynamic bodies share an island; a
 * dynamic body linked to a moving kinematic body must wake (f2d_body_active: a resting
 * kinematic body is like a static one). */
static void link_bodies(int32_t *parent, int32_t *wake, const f2d_body *bodies, int32_t ia,
                        int32_t ib)
{
	const f2d_body *a = &bodies[ia], *b = &bodies[ib];
	bool da = a->type == F2D_DYNAMIC_BODY, db = b->type == F2D_DYNAMIC_BODY;
	if (da && db) {
		unite(parent, ia, ib);
	} else if (da && f2d_body_active(b)) {
		wake[ia] = 1;
	} else if (db && f2d_body_active(a)) {
		wake[ib] = 1;
	}
}

void f2d_wake_body(f2d_world *w, int32_t index)
{
	f2d_body *b = &w->bodies[index];
	if (b->type != F2D_STATIC_BODY) {
		b->awake = true;
		b->sleep_time = 0;
	}
}

void f2d_wake_all(f2d_world *w)
{
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		if (w->bodies[i].alive) {
			f2d_wake_body(w, i);
		}
	}
}

f2d_result f2d_islands_prepare(f2d_world *w)
{
	int32_t n = w->body_ids.next;
	if (!f2d_grow(w, (void **)&w->island_parent, &w->island_capacity, n, sizeof(int32_t)) ||
	    !f2d_grow(w, (void **)&w->island_data, &w->island_data_capacity, n, sizeof(int32_t))) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	return F2D_OK;
}

/* Step 1. island_data[root] = 1 when the island must be awake. */
void f2d_islands_wake(f2d_world *w)
{
	int32_t n = w->body_ids.next;
	int32_t *parent = w->island_parent, *wake = w->island_data;
	f2d_body *bodies = w->bodies;
	for (int32_t i = 0; i < n; ++i) {
		parent[i] = i;
		wake[i] = 0;
	}
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		link_bodies(parent, wake, bodies, w->arbiters[i].body_a, w->arbiters[i].body_b);
	}
	for (int32_t i = 0; i < w->joint_ids.next; ++i) {
		const f2d_joint *j = &w->joints[i];
		if (j->alive) {
			link_bodies(parent, wake, bodies, j->body_a, j->body_b);
		}
	}
	/* a flag on any member (or an awake member) marks the island's root */
	for (int32_t i = 0; i < n; ++i) {
		const f2d_body *b = &bodies[i];
		if (b->alive && b->type == F2D_DYNAMIC_BODY && (b->awake || wake[i])) {
			wake[find_root(parent, i)] = 1;
		}
	}
	int32_t awake = 0, islands = 0;
	for (int32_t i = 0; i < n; ++i) {
		f2d_body *b = &bodies[i];
		if (!b->alive || b->type == F2D_STATIC_BODY) {
			continue;
		}
		if (b->type == F2D_KINEMATIC_BODY) {
			awake += f2d_body_active(b) ? 1 : 0;
			continue;
		}
		int32_t r = find_root(parent, i);
		if (wake[r] && !b->awake) {
			b->awake = true; /* woken by its island: the timer keeps its value */
		}
		awake += b->awake ? 1 : 0;
		islands += (r == i && b->awake) ? 1 : 0;
	}
	w->awake_body_count = awake;
	w->island_count = islands;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *arb = &w->arbiters[i];
		arb->active =
		    f2d_body_active(&bodies[arb->body_a]) || f2d_body_active(&bodies[arb->body_b]);
	}
}

static void put_to_sleep(f2d_body *b)
{
	b->awake = false;
	b->v = f2d_v(0, 0);
	b->w = 0;
	b->force = f2d_v(0, 0);
	b->torque = 0;
}

/* Step 3, after the positions are integrated. island_data[root] becomes the island's smallest
 * sleep_time. */
void f2d_islands_sleep(f2d_world *w)
{
	int32_t n = w->body_ids.next;
	int32_t *parent = w->island_parent, *least = w->island_data;
	f2d_body *bodies = w->bodies;
	const f2d_world_def *d = &w->def;
	int64_t lin2 = (int64_t)d->linear_sleep_tolerance * d->linear_sleep_tolerance;
	for (int32_t i = 0; i < n; ++i) {
		least[i] = INT32_MAX;
	}
	for (int32_t i = 0; i < n; ++i) {
		f2d_body *b = &bodies[i];
		if (!b->alive || b->type != F2D_DYNAMIC_BODY || !b->awake) {
			continue;
		}
		int64_t v2 = (int64_t)b->v.x * b->v.x + (int64_t)b->v.y * b->v.y;
		if (!b->enable_sleep || v2 > lin2 || b->w > d->angular_sleep_tolerance ||
		    b->w < -d->angular_sleep_tolerance) {
			b->sleep_time = 0;
		} else if (b->sleep_time < d->time_to_sleep) {
			/* capped at time_to_sleep: it only ever compares with it */
			b->sleep_time = f2d_min(b->sleep_time + w->h, d->time_to_sleep);
		}
		int32_t r = find_root(parent, i);
		least[r] = f2d_min(least[r], b->sleep_time);
	}
	for (int32_t i = 0; i < n; ++i) {
		f2d_body *b = &bodies[i];
		if (!b->alive || b->type != F2D_DYNAMIC_BODY || !b->awake) {
			continue;
		}
		if (least[find_root(parent, i)] >= d->time_to_sleep) {
			put_to_sleep(b);
		}
	}
}

/* ---- API ---- */

f2d_result f2d_world_enable_sleep(f2d_world *w, bool enable)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	w->def.enable_sleep = enable;
	if (!enable) {
		f2d_wake_all(w);
	}
	return F2D_OK;
}

bool f2d_world_is_sleep_enabled(const f2d_world *w)
{
	return w != NULL && w->def.enable_sleep;
}

bool f2d_body_is_awake(const f2d_world *w, f2d_body_id id)
{
	const f2d_body *b = f2d_get_body(w, id);
	return b != NULL && b->type != F2D_STATIC_BODY && b->awake;
}

/* The body of a sleep call, or the error to return (with its message). */
static f2d_result sleep_body(f2d_world *w, f2d_body_id id, const char *what, f2d_body **out)
{
	if (w == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	*out = f2d_get_body(w, id);
	if (*out == NULL) {
		return f2d_set_error(w, F2D_ERROR_INVALID_HANDLE,
		                     "%s: null, stale or foreign body handle", what);
	}
	return F2D_OK;
}

f2d_result f2d_body_set_awake(f2d_world *w, f2d_body_id id, bool awake)
{
	f2d_body *b;
	f2d_result r = sleep_body(w, id, "body_set_awake", &b);
	if (r != F2D_OK) {
		return r;
	}
	if (b->type == F2D_STATIC_BODY) {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_awake: a static body neither sleeps nor wakes");
	}
	if (awake) {
		f2d_wake_body(w, id.index1 - 1);
	} else if (b->type == F2D_DYNAMIC_BODY) {
		if (!w->def.enable_sleep || !b->enable_sleep) {
			return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
			                     "body_set_awake: sleeping is disabled for this %s",
			                     w->def.enable_sleep ? "body" : "world");
		}
		put_to_sleep(b);
		b->sleep_time = 0;
	} else {
		return f2d_set_error(w, F2D_ERROR_INVALID_VALUE,
		                     "body_set_awake: a kinematic body is awake while it moves");
	}
	return F2D_OK;
}

f2d_result f2d_body_enable_sleep(f2d_world *w, f2d_body_id id, bool enable)
{
	f2d_body *b;
	f2d_result r = sleep_body(w, id, "body_enable_sleep", &b);
	if (r != F2D_OK) {
		return r;
	}
	b->enable_sleep = enable;
	if (!enable) {
		f2d_wake_body(w, id.index1 - 1);
	}
	return F2D_OK;
}

bool f2d_body_is_sleep_enabled(const f2d_world *w, f2d_body_id id)
{
	const f2d_body *b = f2d_get_body(w, id);
	return b != NULL && b->enable_sleep;
}
