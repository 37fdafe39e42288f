/* fix2d continuous collision: fast bodies swept against static shapes (issue 14's tunnelling,
 * issue 15's fast impacts), after Box2D v3's b2SolveContinuous.
 * SPDX-License-Identifier: MIT
 *
 * The first defence is the speculative margin (contact.c, broadphase.c): a pair's contact keeps
 * points up to the gap its bodies can close in the step, so the solver stops a fast body at
 * the surface. This is the second: after the positions (and the joints' position passes), a
 * dynamic body whose velocity moves it at least half its smallest inner radius in the step
 * (h max(|v.x|, |v.y|); Box2D's "fast" body) is swept, in translation, from its centre at the start
 * of the step to its centre now, at its new rotation, against the static shapes it was paired with
 * this step; if a sweep touches one, the body is put back where it first touched (Box2D's TOI
 * pose), with its velocity: the next step's contact stops or bounces it from there. A body the
 * speculative contact already stopped at the surface ends within a few LSB of it and moves by as
 * much.
 *
 * Exactness and order: the sweeps are query.c's exact casts (the Minkowski difference of the
 * two cores, rational times of impact, floor(t 2^32)); every fast body's earliest time is the
 * minimum over its pairs, so the order the pairs are visited in cannot matter (they are
 * visited in key order anyway); the pose is c0 + round(t (c1 - c0)), in 64-bit integers.
 *
 * Limits (documented in README "Fast impacts and continuous collision"):
 *  - the sweep is translational at the end rotation (Box2D also interpolates the rotation);
 *  - targets are static shapes only (Box2D's non-bullet rule): kinematic shapes and other
 *    dynamic bodies (Box2D's bullets) are left to the speculative margin;
 *  - the candidates are the broad phase's pairs, found with AABBs stretched along the motion
 *    predicted at the start of the step (velocity, gravity, force): a body sped up during the
 *    solve beyond that (a push from another body, a joint) is swept only against the static
 *    shapes it was already paired with;
 *  - a body that starts the step within linear_slop of a target is not swept against it (it
 *    is in contact: the contact holds it; Box2D skips such pairs too, "to prevent pausing").
 */
#include "core.h"

#define TOI_NONE UINT64_MAX
#define TOI_ONE ((uint64_t)1 << 32)

bool f2d_continuous_reserve(f2d_world *w)
{
	return f2d_grow(w, (void **)&w->toi, &w->toi_capacity, w->body_ids.next, sizeof(uint64_t));
}

/* The radius of the largest disc about the shape's centre inside it (body frame): a circle's
 * or capsule's radius; a polygon's least distance from its centroid to an edge. */
static fix16_t inner_radius(const f2d_shape *s)
{
	if (s->type == F2D_CIRCLE_SHAPE) {
		return s->circle.radius;
	}
	if (f2d_shape_is_linear(s)) {
		return s->capsule.radius;
	}
	const f2d_polygon *p = &s->polygon;
	fix16_t r = INT32_MAX;
	for (int32_t i = 0; i < p->count; ++i) {
		r = f2d_min(r, f2d_dot(p->normals[i], f2d_sub(p->vertices[i], p->centroid)));
	}
	return r;
}

/* The least inner radius of a body's shapes. */
static fix16_t body_inner(const f2d_world *w, const f2d_body *b)
{
	fix16_t inner = INT32_MAX;
	for (int32_t s = b->shape_list; s >= 0; s = w->shapes[s].next) {
		inner = f2d_min(inner, inner_radius(&w->shapes[s]));
	}
	return inner;
}

/* round(v t / 2^32) for |v| <= 2^23 (64 m), t <= 2^32: |v| t < 2^55 */
static inline fix16_t scale_t(fix16_t v, uint64_t t)
{
	uint64_t m = (uint64_t)(v < 0 ? -(int64_t)v : v) * t;
	int64_t r = (int64_t)((m + ((uint64_t)1 << 31)) >> 32);
	return (fix16_t)(v < 0 ? -r : r);
}

/* The centre of mass at the start of the step (the transform of the shapes' caches). */
static f2d_vec2 start_center(const f2d_world *w, const f2d_body *b)
{
	f2d_transform xf = f2d_shape_cache_xf(&w->shapes[b->shape_list]);
	return f2d_xf_point(xf, b->local_center);
}

/* 1. fast bodies: toi = TOI_ONE (no touch yet), the rest TOI_NONE; whether there is one. The
 * step moved the centre by h v (integrate_positions; a joint's position pass may add a little):
 * fast is h max(|v.x|, |v.y|) >= half the inner radius, as Box2D's |v| h >= minExtent / 2, and a
 * body that moved at most linear_slop is never fast. That test comes first, as a bound on the
 * speed: for p = h max(|v.x|, |v.y|) >= 0, round16(p) <= slop iff p + 2^15 < (slop + 1) 2^16,
 * i.e. p < lim, iff max(|v.x|, |v.y|) < ceil(lim / h) (h > 0; slop <= 2^15 and lim < 2^32). */
static bool mark_fast_bodies(f2d_world *w, uint64_t *toi)
{
	bool any = false;
	const int64_t h = w->h;
	const int64_t lim = ((int64_t)w->def.linear_slop + 1) * 65536 - 32768;
	const int64_t vlim = (lim + h - 1) / h;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *b = &w->bodies[i];
		toi[i] = TOI_NONE;
		int64_t vx = b->v.x < 0 ? -(int64_t)b->v.x : b->v.x;
		int64_t vy = b->v.y < 0 ? -(int64_t)b->v.y : b->v.y;
		int64_t vmax = vx > vy ? vx : vy;
		if (vmax < vlim || !b->alive || b->type != F2D_DYNAMIC_BODY || !b->awake ||
		    b->shape_list < 0) {
			continue;
		}
		int64_t m = f2d_round16(vmax * h); /* < 2^31 * 2^13 before; > linear_slop */
		if (2 * m >= body_inner(w, b)) {
			toi[i] = TOI_ONE;
			any = true;
		}
	}
	return any;
}

/* 2. one pair of a fast body's shape and a static shape: the fast body's time of impact
 * lowered to the sweep's when the sweep touches first */
static void sweep_pair(f2d_world *w, uint64_t *toi, const f2d_shape *fast, const f2d_shape *wall)
{
	const f2d_body *b = &w->bodies[fast->body];
	f2d_vec2 c0 = start_center(w, b);
	f2d_vec2 d = f2d_sub(b->center, c0); /* |d| <= max_translation: exact */
	f2d_transform xf0 = {f2d_sub(c0, f2d_rotate(b->q, b->local_center)), b->q};
	/* starting within linear_slop of the wall: in contact, not swept */
	if (f2d_sweep_shapes(w, fast, xf0, f2d_v(0, 0), wall, w->def.linear_slop) == -2) {
		return;
	}
	/* only a body whose core would cross into the wall (a disc of a quarter of its inner
	 * radius about its centre of mass, Box2D's centroid test) is put back: one the contacts
	 * stopped at the surface, or that grazes the wall, keeps the solver's pose (no
	 * "pausing") */
	f2d_shape core;
	memset(&core, 0, sizeof core);
	core.type = F2D_CIRCLE_SHAPE;
	core.circle.center = b->local_center;
	core.circle.radius = f2d_max(body_inner(w, b) / 4, 1);
	if (f2d_sweep_shapes(w, &core, xf0, d, wall, 0) < 0) {
		return;
	}
	int64_t t = f2d_sweep_shapes(w, fast, xf0, d, wall, 0);
	if (t >= 0 && (uint64_t)t < toi[fast->body]) {
		toi[fast->body] = (uint64_t)t;
	}
}

void f2d_solve_continuous(f2d_world *w)
{
	uint64_t *toi = w->toi;
	if (!mark_fast_bodies(w, toi)) {
		return;
	}
	/* 2. each pair of a fast body's shape and a static shape, in key order */
	for (int32_t p = 0; p < w->pair_count; ++p) {
		int32_t ia = (int32_t)(w->pairs[p] >> 32),
		        ib = (int32_t)(w->pairs[p] & 0xFFFFFFFFu);
		const f2d_shape *sa = &w->shapes[ia], *sb = &w->shapes[ib];
		if (sa->is_sensor || sb->is_sensor) {
			continue;
		}
		if (toi[sa->body] != TOI_NONE && w->bodies[sb->body].type == F2D_STATIC_BODY) {
			sweep_pair(w, toi, sa, sb);
		} else if (toi[sb->body] != TOI_NONE &&
		           w->bodies[sa->body].type == F2D_STATIC_BODY) {
			sweep_pair(w, toi, sb, sa);
		}
	}
	/* 3. back to the first touch, velocity kept */
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		if (toi[i] >= TOI_ONE) {
			continue;
		}
		f2d_body *b = &w->bodies[i];
		f2d_vec2 c0 = start_center(w, b);
		f2d_vec2 d = f2d_sub(b->center, c0);
		b->center = f2d_add(c0, f2d_v(scale_t(d.x, toi[i]), scale_t(d.y, toi[i])));
		b->origin = f2d_sub(b->center, f2d_rotate(b->q, b->local_center));
	}
}
