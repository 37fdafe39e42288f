/* fix2d contacts: arbiters (persistent contact manifolds with warm starting) and
 * the contact part of the sequential-impulse solver (seed 000, Box2D-lite's Arbiter).
 * SPDX-License-Identifier: MIT
 *
 * Determinism: the candidate pairs come from the broad phase (broadphase.c) sorted by their key
 * (shape_a << 32 | shape_b), a function of ids and positions only, and are merged with the
 * previous step's arbiters, which are kept sorted by the same key. The solver therefore visits
 * arbiters in key order, whatever the history of the world.
 */
#include "core.h"

/* ---- arbiters ---- */

/* Fills arb (key ia < ib) from a fresh manifold; a point made by the same features as a point
 * of prev (NULL for a new pair) inherits its accumulated impulses. Returns the point count (0:
 * the shapes are apart, arb is not used). */
static int32_t build_arbiter(const f2d_world *w, const f2d_arbiter *prev, int32_t ia, int32_t ib,
                             f2d_arbiter *arb)
{
	const f2d_shape *sa = &w->shapes[ia];
	const f2d_shape *sb = &w->shapes[ib];
	const f2d_body *ba = &w->bodies[sa->body];
	const f2d_body *bb = &w->bodies[sb->body];
	f2d_manifold m;
	f2d_collide(sa, sb, w->def.speculative_distance, &m);
	if (m.count == 0) {
		return 0;
	}
	f2d_contact_point old[2];
	int32_t old_count = 0;
	if (prev != NULL) {
		/* prev may be arb itself (a frozen arbiter refreshed in place) */
		old_count = prev->count;
		old[0] = prev->points[0];
		old[1] = prev->points[1];
		arb->friction = prev->friction;
		arb->restitution = prev->restitution;
	} else {
		/* mixing rules: friction sqrt(mu_a mu_b), restitution max(e_a, e_b) */
		arb->friction = f2d_sqrt(f2d_mul(sa->friction, sb->friction));
		arb->restitution = f2d_max(sa->restitution, sb->restitution);
	}
	arb->shape_a = ia;
	arb->shape_b = ib;
	arb->body_a = sa->body;
	arb->body_b = sb->body;
	arb->normal = m.normal;
	arb->count = m.count;
	arb->frozen = false;
	for (int32_t i = 0; i < m.count; ++i) {
		f2d_contact_point *cp = &arb->points[i];
		cp->id = m.points[i].id;
		cp->separation = m.points[i].separation;
		cp->r_a = f2d_sub(m.points[i].point, ba->center);
		cp->r_b = f2d_sub(m.points[i].point, bb->center);
		cp->pn = 0;
		cp->pt = 0;
		cp->mass_n = cp->mass_t = cp->bias = 0;
		if (w->def.warm_starting) {
			for (int32_t k = 0; k < old_count; ++k) {
				if (old[k].id == cp->id) {
					cp->pn = old[k].pn;
					cp->pt = old[k].pt;
					break;
				}
			}
		}
	}
	for (int32_t i = m.count; i < 2; ++i) {
		memset(&arb->points[i], 0, sizeof arb->points[i]);
	}
	return m.count;
}

f2d_result f2d_update_contacts(f2d_world *w)
{
	f2d_result r = f2d_find_pairs(w);
	if (r != F2D_OK) {
		return r;
	}
	if (!f2d_grow(w, (void **)&w->arbiters_next, &w->arbiters_next_capacity, w->pair_count,
	              sizeof(f2d_arbiter)) ||
	    !f2d_solver_reserve(w, w->pair_count)) {
		return F2D_ERROR_OUT_OF_MEMORY;
	}
	int32_t old = 0, count = 0;
	for (int32_t p = 0; p < w->pair_count; ++p) {
		uint64_t key = w->pairs[p];
		int32_t ia = (int32_t)(key >> 32), ib = (int32_t)(key & 0xFFFFFFFFu);
		while (old < w->arbiter_count &&
		       f2d_pair_key(w->arbiters[old].shape_a, w->arbiters[old].shape_b) < key) {
			++old;
		}
		const f2d_arbiter *prev = NULL;
		if (old < w->arbiter_count &&
		    f2d_pair_key(w->arbiters[old].shape_a, w->arbiters[old].shape_b) == key) {
			prev = &w->arbiters[old];
		}
		f2d_arbiter *arb = &w->arbiters_next[count];
		/* Neither body can move (asleep, static or a resting kinematic): the manifold would
		 * not change, keep the arbiter as it is (frozen; see f2d_refresh_arbiters). */
		if (prev != NULL && !f2d_body_active(&w->bodies[prev->body_a]) &&
		    !f2d_body_active(&w->bodies[prev->body_b])) {
			*arb = *prev;
			arb->frozen = true;
			count++;
			continue;
		}
		count += build_arbiter(w, prev, ia, ib, arb) > 0 ? 1 : 0;
	}
	f2d_arbiter *t = w->arbiters;
	int32_t tc = w->arbiter_capacity;
	w->arbiters = w->arbiters_next;
	w->arbiter_capacity = w->arbiters_next_capacity;
	w->arbiter_count = count;
	w->arbiters_next = t;
	w->arbiters_next_capacity = tc;
	return F2D_OK;
}

/* A frozen arbiter kept its manifold from the step it was last computed in (or, after a
 * snapshot restore, none: only keys and impulses are state). When its island wakes, the
 * manifold is recomputed from the current positions before the solver uses it; a pair that
 * turns out apart is removed (order kept). */
void f2d_refresh_arbiters(f2d_world *w)
{
	int32_t k = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		f2d_arbiter *arb = &w->arbiters[i];
		if (arb->frozen && arb->active &&
		    build_arbiter(w, arb, arb->shape_a, arb->shape_b, arb) == 0) {
			continue;
		}
		if (k != i) {
			w->arbiters[k] = *arb;
		}
		k++;
	}
	w->arbiter_count = k;
}

/* The bodies the shape touched wake up: what rested on it must fall. */
void f2d_remove_arbiters_of_shape(f2d_world *w, int32_t shape)
{
	int32_t k = 0;
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		if (w->arbiters[i].shape_a != shape && w->arbiters[i].shape_b != shape) {
			w->arbiters[k++] = w->arbiters[i];
		} else {
			f2d_wake_body(w, w->arbiters[i].body_a);
			f2d_wake_body(w, w->arbiters[i].body_b);
		}
	}
	w->arbiter_count = k;
}
