/* fix2d tests: capsule, segment and chain shapes (issue 14, src/shapes.c): manifolds at known
 * configurations, a capsule at rest, a box sliding across a chain's vertices without catching,
 * one-sided chains, capsule mass against the analytic value, ray casts against a double
 * reference, bad input, snapshots, clone and hash with every new shape, range edges.
 * Doubles appear in this test only (references); the simulation never sees one.
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fix2d/convert.h"
#include "fix2d/fix2d.h"
#include "fix2d/input.h"
#include "fix2d/snapshot.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "test_common.h"

static double d(fix16_t x)
{
	return f2d_to_double(x);
}

static f2d_world *new_world(void)
{
	f2d_world_def wd = f2d_default_world_def();
	wd.enable_sleep = false;
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&wd, &w));
	return w;
}

static f2d_shape_id add_capsule(f2d_world *w, f2d_body_id b, f2d_vec2 c1, f2d_vec2 c2, fix16_t r)
{
	f2d_capsule cap = {c1, c2, r};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	CHECK_OK(f2d_create_capsule_shape(w, b, &sd, &cap, &s));
	return s;
}

static f2d_shape_id add_box_shape(f2d_world *w, f2d_body_id b, fix16_t hx, fix16_t hy)
{
	f2d_polygon p;
	CHECK_OK(f2d_make_box(hx, hy, &p));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	CHECK_OK(f2d_create_polygon_shape(w, b, &sd, &p, &s));
	return s;
}

/* The manifold of two shapes of w as the step computes it (normal from a to b). */
static f2d_manifold collide(f2d_world *w, f2d_shape_id a, f2d_shape_id b)
{
	f2d_shape *sa = &w->shapes[a.index1 - 1], *sb = &w->shapes[b.index1 - 1];
	f2d_shape_update_world(sa, f2d_body_get_transform(w, f2d_shape_get_body(w, a)), 0);
	f2d_shape_update_world(sb, f2d_body_get_transform(w, f2d_shape_get_body(w, b)), 0);
	f2d_manifold m;
	f2d_collide(sa, sb, F2D_FIX(1), &m);
	return m;
}

#define NEAR(a, b, tol) ck_assert_msg(fabs((a) - (b)) <= (tol), "%s = %.6f, want %.6f", #a, (a), (b))

/* ---- manifolds ---- */

START_TEST(test_capsule_manifolds)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	f2d_shape_id box = add_box_shape(w, ground, F2D_FIX(2), F2D_MILLI(500));
	/* horizontal capsule r 0.25 with its core at y 0.8: 0.05 above the box's top face */
	f2d_body_id cb = add_body(w, F2D_DYNAMIC_BODY, v2(0, F2D_MILLI(800)));
	f2d_shape_id cap = add_capsule(w, cb, v2(-F2D_ONE, 0), v2(F2D_ONE, 0), F2D_MILLI(250));
	f2d_manifold m = collide(w, box, cap);
	ck_assert_int_eq(m.count, 2);
	ck_assert_int_eq(m.normal.x, 0);
	ck_assert_int_eq(m.normal.y, F2D_ONE);
	for (int i = 0; i < 2; ++i) {
		NEAR(d(m.points[i].separation), 0.05, 2e-5);
		NEAR(d(m.points[i].point.y), 0.525, 2e-5); /* midway between the surfaces */
	}
	NEAR(fabs(d(m.points[0].point.x)), 1.0, 2e-5);
	/* the same capsule sunk 0.1 into the box, shifted so one end hangs over the edge */
	CHECK_OK(f2d_body_set_transform(w, cb, v2(F2D_MILLI(1500), F2D_MILLI(650)), f2d_make_rot(0)));
	m = collide(w, box, cap);
	ck_assert_int_eq(m.count, 2);
	NEAR(d(m.points[0].separation), -0.1, 2e-5);
	NEAR(d(m.points[1].separation), -0.1, 2e-5);
	double xs[2] = {d(m.points[0].point.x), d(m.points[1].point.x)};
	NEAR(fmin(xs[0], xs[1]), 0.5, 2e-5);
	NEAR(fmax(xs[0], xs[1]), 2.0, 2e-5); /* clipped at the box's side */

	/* vertical capsule standing on its lower cap: one point */
	CHECK_OK(f2d_body_set_transform(w, cb, v2(F2D_MILLI(300), F2D_FIX(2)), f2d_make_rot(0)));
	f2d_shape_id cap2 = add_capsule(w, cb, v2(0, -F2D_MILLI(1200)), v2(0, 0), F2D_MILLI(250));
	m = collide(w, box, cap2);
	ck_assert_int_eq(m.count, 1);
	NEAR(d(m.normal.y), 1.0, 1e-4);
	NEAR(d(m.points[0].separation), 0.05, 2e-5);

	/* cap against the box's corner (2, 0.5): lower centre at (2.3, 0.9), distance 0.5 */
	CHECK_OK(f2d_body_set_transform(w, cb, v2(F2D_MILLI(2300), F2D_MILLI(2100)), f2d_make_rot(0)));
	m = collide(w, box, cap2);
	ck_assert_int_eq(m.count, 1);
	NEAR(d(m.normal.x), 0.6, 1e-4);
	NEAR(d(m.normal.y), 0.8, 1e-4);
	NEAR(d(m.points[0].separation), 0.25, 2e-5);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(test_capsule_circle_capsule)
{
	f2d_world *w = new_world();
	f2d_body_id a = add_body(w, F2D_DYNAMIC_BODY, v2(0, 0));
	f2d_shape_id ca = add_capsule(w, a, v2(-F2D_ONE, 0), v2(F2D_ONE, 0), F2D_MILLI(250));
	f2d_body_id b = add_body(w, F2D_DYNAMIC_BODY, v2(F2D_MILLI(300), F2D_ONE));
	f2d_circle circle = {v2(0, 0), F2D_MILLI(500)};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id cc;
	CHECK_OK(f2d_create_circle_shape(w, b, &sd, &circle, &cc));
	f2d_manifold m = collide(w, ca, cc);
	ck_assert_int_eq(m.count, 1);
	ck_assert_int_eq(m.normal.x, 0);
	ck_assert_int_eq(m.normal.y, F2D_ONE);
	NEAR(d(m.points[0].separation), 0.25, 2e-5);
	NEAR(d(m.points[0].point.y), 0.375, 2e-5);
	/* circle past the end: the normal comes from the end centre (1, 0) to (1.6, 0.8) */
	CHECK_OK(f2d_body_set_transform(w, b, v2(F2D_MILLI(1600), F2D_MILLI(800)), f2d_make_rot(0)));
	m = collide(w, ca, cc);
	ck_assert_int_eq(m.count, 1);
	NEAR(d(m.normal.x), 0.6, 1e-4);
	NEAR(d(m.normal.y), 0.8, 1e-4);
	NEAR(d(m.points[0].separation), 1.0 - 0.75, 2e-5);

	/* capsule against capsule: parallel (two points), tip to tip (one), crossed (deep) */
	f2d_body_id c = add_body(w, F2D_DYNAMIC_BODY, v2(F2D_MILLI(500), F2D_MILLI(600)));
	f2d_shape_id cd = add_capsule(w, c, v2(-F2D_ONE, 0), v2(F2D_ONE, 0), F2D_MILLI(250));
	m = collide(w, ca, cd);
	ck_assert_int_eq(m.count, 2);
	NEAR(d(m.normal.y), 1.0, 1e-4);
	NEAR(d(m.points[0].separation), 0.1, 2e-5);
	NEAR(d(m.points[1].separation), 0.1, 2e-5);
	CHECK_OK(f2d_body_set_transform(w, c, v2(F2D_MILLI(2600), 0), f2d_make_rot(0)));
	m = collide(w, ca, cd);
	ck_assert_int_eq(m.count, 1);
	NEAR(d(m.normal.x), 1.0, 1e-4);
	NEAR(d(m.points[0].separation), 0.1, 2e-5);
	CHECK_OK(f2d_body_set_transform(w, c, v2(0, 0), f2d_make_rot(F2D_HALF_PI)));
	m = collide(w, ca, cd);
	ck_assert_int_ge(m.count, 1);
	ck_assert_msg(fmin(d(m.points[0].separation), d(m.points[1].separation)) < -1.4, "count %d sep %.4f %.4f n %.3f %.3f", m.count,
	              d(m.points[0].separation), d(m.points[1].separation), d(m.normal.x), d(m.normal.y));
	f2d_destroy_world(w);
}
END_TEST

START_TEST(test_capsule_segment_chain)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	f2d_segment seg = {v2(-F2D_FIX(3), 0), v2(F2D_FIX(3), 0)};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id sg;
	CHECK_OK(f2d_create_segment_shape(w, ground, &sd, &seg, &sg));
	f2d_vec2 pts[3] = {v2(F2D_FIX(3), -F2D_FIX(2)), v2(-F2D_FIX(3), -F2D_FIX(2)),
	                   v2(-F2D_FIX(5), -F2D_FIX(1))};
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 3;
	f2d_shape_id ch[2];
	CHECK_OK(f2d_create_chain(w, ground, &cd, ch, 2));
	f2d_vec2 g1, g2;
	f2d_segment got;
	CHECK_OK(f2d_shape_get_segment(w, ch[0], &got, &g1, &g2));
	ck_assert(g1.x == pts[0].x && g1.y == pts[0].y); /* open end: its own point */
	ck_assert(g2.x == pts[2].x && g2.y == pts[2].y); /* the next edge's far point */
	/* a horizontal capsule 0.3 above the segment (two-sided: from below too) */
	f2d_body_id cb = add_body(w, F2D_DYNAMIC_BODY, v2(0, F2D_MILLI(550)));
	f2d_shape_id cap = add_capsule(w, cb, v2(-F2D_ONE, 0), v2(F2D_ONE, 0), F2D_MILLI(250));
	f2d_manifold m = collide(w, sg, cap);
	ck_assert_int_eq(m.count, 2);
	ck_assert_int_eq(m.normal.y, F2D_ONE);
	NEAR(d(m.points[0].separation), 0.3, 2e-5);
	CHECK_OK(f2d_body_set_transform(w, cb, v2(0, -F2D_MILLI(550)), f2d_make_rot(0)));
	m = collide(w, sg, cap);
	ck_assert_int_eq(m.count, 2);
	ck_assert_int_eq(m.normal.y, -F2D_ONE);
	/* the chain's first edge runs right to left at y = -2: solid below, so the capsule at
	 * y = -1.45 (above) touches it and one at y = -2.55 (behind) does not */
	CHECK_OK(f2d_body_set_transform(w, cb, v2(0, -F2D_MILLI(1450)), f2d_make_rot(0)));
	m = collide(w, ch[0], cap);
	ck_assert_int_eq(m.count, 2);
	ck_assert_int_eq(m.normal.y, F2D_ONE);
	NEAR(d(m.points[0].separation), 0.3, 2e-5);
	CHECK_OK(f2d_body_set_transform(w, cb, v2(0, -F2D_MILLI(2550)), f2d_make_rot(0)));
	m = collide(w, ch[0], cap);
	ck_assert_int_eq(m.count, 0);
	/* segments and chain segments never collide with each other */
	m = collide(w, sg, ch[1]);
	ck_assert_int_eq(m.count, 0);
	f2d_destroy_world(w);
}
END_TEST

/* ---- behaviour ---- */

START_TEST(test_capsule_rests)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, -F2D_MILLI(500)));
	add_box_shape(w, ground, F2D_FIX(20), F2D_MILLI(500));
	/* lying and standing capsules */
	f2d_body_id lying = add_body(w, F2D_DYNAMIC_BODY, v2(-F2D_FIX(3), F2D_MILLI(400)));
	add_capsule(w, lying, v2(-F2D_ONE, 0), v2(F2D_ONE, 0), F2D_MILLI(250));
	f2d_body_id standing = add_body(w, F2D_DYNAMIC_BODY, v2(F2D_FIX(3), F2D_ONE));
	add_capsule(w, standing, v2(0, -F2D_MILLI(600)), v2(0, F2D_MILLI(600)), F2D_MILLI(300));
	for (int i = 0; i < 240; ++i) {
		f2d_world_step(w);
	}
	f2d_vec2 p0 = f2d_body_get_position(w, lying), q0 = f2d_body_get_position(w, standing);
	for (int i = 0; i < 120; ++i) {
		f2d_world_step(w);
	}
	f2d_vec2 p1 = f2d_body_get_position(w, lying), q1 = f2d_body_get_position(w, standing);
	/* resting: the surfaces meet within the slop, nothing drifts */
	NEAR(d(p1.y), 0.25, 0.011);
	NEAR(d(q1.y), 0.9, 0.011);
	NEAR(d(p1.x), d(p0.x), 1e-4);
	NEAR(d(p1.y), d(p0.y), 1e-4);
	NEAR(d(q1.x), d(q0.x), 1e-4);
	NEAR(d(q1.y), d(q0.y), 1e-4);
	NEAR(d(f2d_body_get_angle(w, lying)), 0.0, 1e-3);
	NEAR(d(f2d_body_get_angle(w, standing)), 0.0, 1e-3);
	f2d_vec2 v = f2d_body_get_linear_velocity(w, lying);
	ck_assert(fabs(d(v.x)) < 1e-3 && fabs(d(v.y)) < 1e-2);
	f2d_destroy_world(w);
}
END_TEST

/* A box sliding at 6 m/s over terrain made of many short chain edges: with friction 0 its
 * horizontal speed never drops (an internal vertex that caught it would take speed away), and
 * with friction 0.2 its speed follows the same values, step for step, as on one long segment. */
static void slide(bool use_chain, fix16_t friction, double *vx, int steps)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	if (use_chain) {
		f2d_vec2 pts[41];
		for (int i = 0; i < 41; ++i) { /* right to left: the solid side below */
			pts[i] = v2(F2D_FIX(40) - i * F2D_FIX(2), 0);
		}
		f2d_chain_def cd = f2d_default_chain_def();
		cd.points = pts;
		cd.count = 41;
		cd.friction = friction;
		f2d_shape_id ids[40];
		CHECK_OK(f2d_create_chain(w, ground, &cd, ids, 40));
		ck_assert_int_eq(f2d_shape_get_type(w, ids[7]), F2D_CHAIN_SEGMENT_SHAPE);
	} else {
		f2d_segment seg = {v2(F2D_FIX(40), 0), v2(-F2D_FIX(40), 0)};
		f2d_shape_def sd = f2d_default_shape_def();
		sd.friction = friction;
		f2d_shape_id s;
		CHECK_OK(f2d_create_segment_shape(w, ground, &sd, &seg, &s));
	}
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = v2(-F2D_FIX(30), F2D_MILLI(500));
	bd.linear_velocity = v2(F2D_FIX(6), 0);
	f2d_body_id box;
	CHECK_OK(f2d_create_body(w, &bd, &box));
	f2d_polygon p;
	CHECK_OK(f2d_make_box(F2D_MILLI(500), F2D_MILLI(500), &p));
	f2d_shape_def sd = f2d_default_shape_def();
	sd.friction = friction;
	f2d_shape_id s;
	CHECK_OK(f2d_create_polygon_shape(w, box, &sd, &p, &s));
	for (int i = 0; i < steps; ++i) {
		f2d_world_step(w);
		vx[i] = d(f2d_body_get_linear_velocity(w, box).x);
	}
	ck_assert(fabs(d(f2d_body_get_angle(w, box))) < 1e-3); /* it did not trip */
	f2d_destroy_world(w);
}

START_TEST(test_chain_no_catch)
{
	enum { N = 480 }; /* 8 s: 48 m, 24 vertices crossed */
	static double a[N], b[N];
	slide(true, 0, a, N);
	for (int i = 0; i < N; ++i) {
		ck_assert_msg(a[i] > 6.0 - 1e-3, "step %d: vx %.5f dropped", i, a[i]);
	}
	slide(true, F2D_MILLI(200), a, 240);
	slide(false, F2D_MILLI(200), b, 240);
	for (int i = 1; i < 240; ++i) {
		NEAR(a[i], b[i], 2e-3);
		/* friction alone: 0.2 g = 2 m/s^2, 1/30 m/s a step */
		ck_assert(a[i - 1] - a[i] <= 2.0 / 60 + 2e-3);
	}
}
END_TEST

/* Gentle bumps: vertices alternately 0.05 m up and down every 2 m (convex and concave, 2.9
 * degree slopes), a frictionless box sliding across 20 of them at 6 m/s. A catch on a vertex
 * is a side push that takes a large part of the speed in one step; here the horizontal speed
 * never changes by more than 0.05 m/s in a step and stays above 5.5 m/s. The energy
 * (v^2 / 2 + g y) falls only by the inelastic turns at the kinks (measured: about 0.03 at each
 * concave vertex, 0.15 where the box tips over a crest onto the next slope): within 12 % over 7 s.
 */
START_TEST(test_chain_bumps)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	f2d_vec2 pts[41];
	for (int i = 0; i < 41; ++i) {
		pts[i] = v2(F2D_FIX(40) - i * F2D_FIX(2), (i % 2) ? F2D_MILLI(50) : 0);
	}
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 41;
	cd.friction = 0;
	CHECK_OK(f2d_create_chain(w, ground, &cd, NULL, 0));
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = v2(-F2D_FIX(30), F2D_MILLI(520));
	bd.linear_velocity = v2(F2D_FIX(6), 0);
	f2d_body_id box;
	CHECK_OK(f2d_create_body(w, &bd, &box));
	f2d_polygon p;
	CHECK_OK(f2d_make_box(F2D_MILLI(500), F2D_MILLI(500), &p));
	f2d_shape_def sd = f2d_default_shape_def();
	sd.friction = 0;
	f2d_shape_id s;
	CHECK_OK(f2d_create_polygon_shape(w, box, &sd, &p, &s));
	for (int i = 0; i < 60; ++i) {
		f2d_world_step(w);
	}
	double e0 = 0, vx_prev = d(f2d_body_get_linear_velocity(w, box).x);
	for (int i = 0; i < 420; ++i) {
		f2d_world_step(w);
		f2d_vec2 v = f2d_body_get_linear_velocity(w, box);
		double e = 0.5 * (d(v.x) * d(v.x) + d(v.y) * d(v.y)) +
		           10 * d(f2d_body_get_position(w, box).y);
		if (i == 0) {
			e0 = e;
		}
		ck_assert_msg(e <= e0 + 0.01 && e >= 0.88 * e0, "step %d: energy %.4f from %.4f", i,
		              e, e0);
		ck_assert_msg(d(v.x) > 5.5 && fabs(d(v.x) - vx_prev) <= 0.05,
		              "step %d: vx %.4f after %.4f", i, d(v.x), vx_prev);
		vx_prev = d(v.x);
	}
	ck_assert(d(f2d_body_get_position(w, box).x) > 10.0);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(test_chain_one_sided)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	f2d_vec2 pts[4] = {v2(F2D_FIX(6), 0), v2(F2D_FIX(2), 0), v2(-F2D_FIX(2), 0), v2(-F2D_FIX(6), 0)};
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 4;
	CHECK_OK(f2d_create_chain(w, ground, &cd, NULL, 0));
	/* from below, moving up: passes through; from above: lands */
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = v2(0, -F2D_FIX(1));
	bd.linear_velocity = v2(0, F2D_FIX(12));
	bd.gravity_scale = 0;
	f2d_body_id up, down, ball;
	CHECK_OK(f2d_create_body(w, &bd, &up));
	add_box_shape(w, up, F2D_MILLI(400), F2D_MILLI(400));
	bd.position = v2(F2D_FIX(3), F2D_FIX(2));
	bd.linear_velocity = v2(0, 0);
	bd.gravity_scale = F2D_ONE;
	CHECK_OK(f2d_create_body(w, &bd, &down));
	add_box_shape(w, down, F2D_MILLI(400), F2D_MILLI(400));
	bd.position = v2(-F2D_FIX(3), F2D_FIX(2));
	CHECK_OK(f2d_create_body(w, &bd, &ball));
	f2d_circle c = {v2(0, 0), F2D_MILLI(300)};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	CHECK_OK(f2d_create_circle_shape(w, ball, &sd, &c, &s));
	for (int i = 0; i < 120; ++i) {
		f2d_world_step(w);
	}
	ck_assert(d(f2d_body_get_position(w, up).y) > 5.0);
	NEAR(d(f2d_body_get_position(w, down).y), 0.4, 0.011);
	NEAR(d(f2d_body_get_position(w, ball).y), 0.3, 0.011);
	/* rays: from above they hit, from below they do not */
	f2d_ray_result r;
	CHECK_OK(f2d_world_cast_ray_closest(w, v2(F2D_MILLI(-500), F2D_MILLI(-500)),
	                                    v2(0, -F2D_FIX(2)), f2d_default_query_filter(), &r));
	ck_assert(!r.hit);
	CHECK_OK(f2d_world_cast_ray_closest(w, v2(F2D_MILLI(-500), -F2D_FIX(1)), v2(0, F2D_FIX(2)),
	                                    f2d_default_query_filter(), &r));
	ck_assert(!r.hit);
	CHECK_OK(f2d_world_cast_ray_closest(w, v2(F2D_MILLI(-500), F2D_FIX(1)), v2(0, -F2D_FIX(2)),
	                                    f2d_default_query_filter(), &r));
	ck_assert(r.hit);
	NEAR(d(r.fraction), 0.5, 1e-4);
	f2d_destroy_world(w);
}
END_TEST

/* Events and filters see the new shapes: a static capsule sensor reports a falling box entering
 * and leaving it; the box lands on a chain (begin touch); a capsule whose filter leaves out the
 * chain's category falls through it. */
START_TEST(test_events_and_filters)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	f2d_vec2 pts[2] = {v2(F2D_FIX(5), 0), v2(-F2D_FIX(5), 0)};
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 2;
	cd.filter.category_bits = 2;
	f2d_shape_id chain;
	CHECK_OK(f2d_create_chain(w, ground, &cd, &chain, 1));
	f2d_capsule zone = {v2(-F2D_ONE, F2D_FIX(3)), v2(F2D_ONE, F2D_FIX(3)), F2D_MILLI(300)};
	f2d_shape_def sensor = f2d_default_shape_def();
	sensor.is_sensor = true;
	f2d_shape_id zs;
	CHECK_OK(f2d_create_capsule_shape(w, ground, &sensor, &zone, &zs));
	f2d_body_id box = add_body(w, F2D_DYNAMIC_BODY, v2(0, F2D_FIX(5)));
	f2d_shape_id bs = add_box_shape(w, box, F2D_MILLI(300), F2D_MILLI(300));
	f2d_body_id ghost = add_body(w, F2D_DYNAMIC_BODY, v2(F2D_FIX(3), F2D_ONE));
	f2d_capsule gc = {v2(0, 0), v2(F2D_MILLI(500), 0), F2D_MILLI(200)};
	f2d_shape_def gsd = f2d_default_shape_def();
	gsd.filter.mask_bits = ~(uint64_t)2;
	f2d_shape_id gs;
	CHECK_OK(f2d_create_capsule_shape(w, ghost, &gsd, &gc, &gs));
	int sensor_begin = 0, sensor_end = 0, touch = 0;
	for (int i = 0; i < 120; ++i) {
		f2d_world_step(w);
		f2d_sensor_events se;
		f2d_world_get_sensor_events(w, &se);
		for (int k = 0; k < se.begin_count; ++k) {
			ck_assert_int_eq(se.begin_events[k].sensor_shape.index1, zs.index1);
			ck_assert_int_eq(se.begin_events[k].visitor_shape.index1, bs.index1);
			++sensor_begin;
		}
		sensor_end += se.end_count;
		f2d_contact_events ce;
		f2d_world_get_contact_events(w, &ce);
		for (int k = 0; k < ce.begin_count; ++k) {
			ck_assert_int_eq(ce.begin_events[k].shape_a.index1, chain.index1);
			ck_assert_int_eq(ce.begin_events[k].shape_b.index1, bs.index1);
			++touch;
		}
	}
	ck_assert_int_eq(sensor_begin, 1);
	ck_assert_int_eq(sensor_end, 1);
	ck_assert_int_eq(touch, 1);
	NEAR(d(f2d_body_get_position(w, box).y), 0.3, 0.011);
	ck_assert(d(f2d_body_get_position(w, ghost).y) < -5.0);
	f2d_destroy_world(w);
}
END_TEST

/* ---- mass ---- */

START_TEST(test_capsule_mass)
{
	static const int radii[] = {5, 100, 250, 1000, 3000};
	static const int lengths[] = {5, 300, 2000, 8000, 20000};
	for (int i = 0; i < 5; ++i) {
		for (int j = 0; j < 5; ++j) {
			f2d_world *w = new_world();
			f2d_body_id b = add_body(w, F2D_DYNAMIC_BODY, v2(0, 0));
			fix16_t r = F2D_MILLI(radii[i]), h = F2D_MILLI(lengths[j]) / 2;
			f2d_capsule cap = {v2(-h, F2D_MILLI(100)), v2(h, F2D_MILLI(100)), r};
			f2d_shape_def sd = f2d_default_shape_def();
			sd.density = F2D_FIX(2);
			f2d_shape_id s;
			f2d_result res = f2d_create_capsule_shape(w, b, &sd, &cap, &s);
			double rr = d(r), len = 2 * d(h);
			double area = M_PI * rr * rr + 2 * rr * len;
			double mass = 2 * area;
			double m_disc = 2 * M_PI * rr * rr, m_box = 2 * 2 * rr * len;
			double lc = 4 * rr / (3 * M_PI);
			double inertia = m_disc * (0.5 * rr * rr + len * len / 4 + len * lc) +
			                 m_box * (4 * rr * rr + len * len) / 12;
			if (mass < 1.0 / 256 || mass > 16384 || inertia < 1.0 / 16384 ||
			    inertia > 32767) {
				ck_assert_int_eq(res, F2D_ERROR_MASS_RANGE);
			} else {
				CHECK_OK(res);
				double got_m = d(f2d_body_get_mass(w, b));
				double got_i = d(f2d_body_get_inertia(w, b));
				ck_assert_msg(fabs(got_m - mass) <= 1e-4 * mass + 3e-5,
				              "r %d L %d: mass %.6f want %.6f", radii[i], lengths[j],
				              got_m, mass);
				ck_assert_msg(fabs(got_i - inertia) <= 1e-3 * inertia + 3e-5,
				              "r %d L %d: inertia %.6f want %.6f", radii[i],
				              lengths[j], got_i, inertia);
				NEAR(d(f2d_body_get_world_center(w, b).y), 0.1, 2e-5);
			}
			f2d_destroy_world(w);
		}
	}
}
END_TEST

/* ---- queries ---- */

/* Double reference: the ray o + t dvec, t in [0, 1], against the capsule (a, b, r): the least
 * t where |p(t) - seg| = r, by bisection after a fine scan (the distance is convex in t). */
static double seg_dist(double px, double py, double ax, double ay, double bx, double by)
{
	double ex = bx - ax, ey = by - ay;
	double t = ((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey);
	t = t < 0 ? 0 : (t > 1 ? 1 : t);
	double qx = ax + t * ex - px, qy = ay + t * ey - py;
	return sqrt(qx * qx + qy * qy);
}

static double ref_ray(const double o[2], const double dv[2], const double a[2], const double b[2],
                      double r, double *margin)
{
	/* convex in t: minimise by ternary search, then bisect the first crossing */
	double lo = 0, hi = 1;
	for (int i = 0; i < 200; ++i) {
		double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
		double f1 = seg_dist(o[0] + m1 * dv[0], o[1] + m1 * dv[1], a[0], a[1], b[0], b[1]);
		double f2 = seg_dist(o[0] + m2 * dv[0], o[1] + m2 * dv[1], a[0], a[1], b[0], b[1]);
		if (f1 < f2) {
			hi = m2;
		} else {
			lo = m1;
		}
	}
	double tmin = lo;
	double dmin = seg_dist(o[0] + tmin * dv[0], o[1] + tmin * dv[1], a[0], a[1], b[0], b[1]);
	*margin = fabs(dmin - r);
	double f0 = seg_dist(o[0], o[1], a[0], a[1], b[0], b[1]);
	*margin = fmin(*margin, fabs(f0 - r));
	if (f0 <= r || dmin > r) {
		return -1; /* starts inside (no hit by the rule) or misses */
	}
	lo = 0, hi = tmin;
	for (int i = 0; i < 100; ++i) {
		double m = (lo + hi) / 2;
		if (seg_dist(o[0] + m * dv[0], o[1] + m * dv[1], a[0], a[1], b[0], b[1]) > r) {
			lo = m;
		} else {
			hi = m;
		}
	}
	return lo;
}

static fix16_t rnd(uint64_t *seed, fix16_t lo, fix16_t hi)
{
	*seed = *seed * 6364136223846793005u + 1442695040888963407u;
	return (fix16_t)(lo + (int64_t)((*seed >> 33) % (uint64_t)((int64_t)hi - lo + 1)));
}

START_TEST(test_ray_cast_reference)
{
	uint64_t seed = 12345;
	int hits = 0, checked = 0;
	for (int k = 0; k < 400; ++k) {
		f2d_world *w = new_world();
		f2d_body_id b = add_body(w, F2D_STATIC_BODY, v2(0, 0));
#define RND(lo, hi) rnd(&seed, lo, hi)
		f2d_vec2 c1 = v2(RND(-F2D_FIX(3), F2D_FIX(3)), RND(-F2D_FIX(3), F2D_FIX(3)));
		f2d_vec2 c2 = v2(RND(-F2D_FIX(3), F2D_FIX(3)), RND(-F2D_FIX(3), F2D_FIX(3)));
		bool segment = (k & 1) != 0;
		fix16_t r = segment ? 0 : RND(F2D_MILLI(5), F2D_FIX(2));
		f2d_shape_id s;
		f2d_shape_def sd = f2d_default_shape_def();
		if (segment) {
			f2d_segment seg = {c1, c2};
			if (f2d_create_segment_shape(w, b, &sd, &seg, &s) != F2D_OK) {
				f2d_destroy_world(w);
				continue;
			}
		} else {
			f2d_capsule cap = {c1, c2, r};
			if (f2d_create_capsule_shape(w, b, &sd, &cap, &s) != F2D_OK) {
				f2d_destroy_world(w);
				continue;
			}
		}
		for (int j = 0; j < 10; ++j) {
			f2d_vec2 o = v2(RND(-F2D_FIX(8), F2D_FIX(8)), RND(-F2D_FIX(8), F2D_FIX(8)));
			f2d_vec2 t = v2(RND(-F2D_FIX(16), F2D_FIX(16)), RND(-F2D_FIX(16), F2D_FIX(16)));
			f2d_ray_result res;
			CHECK_OK(f2d_shape_ray_cast(w, s, o, t, &res));
			double od[2] = {d(o.x), d(o.y)}, dd[2] = {d(t.x), d(t.y)};
			double ad[2] = {d(c1.x), d(c1.y)}, bd2[2] = {d(c2.x), d(c2.y)};
			double margin, tr;
			if (segment) {
				/* exact segment intersection in double */
				double ex = bd2[0] - ad[0], ey = bd2[1] - ad[1];
				double den = dd[0] * ey - dd[1] * ex;
				double wx = ad[0] - od[0], wy = ad[1] - od[1];
				tr = -1;
				margin = 1;
				if (fabs(den) > 1e-9) {
					double tt = (wx * ey - wy * ex) / den, u = (wx * dd[1] - wy * dd[0]) / den;
					margin = fmin(fmin(fabs(u), fabs(1 - u)),
					              fmin(fabs(tt), fabs(1 - tt)));
					margin = fmin(margin, fabs(den) / 100);
					if (tt >= 0 && tt <= 1 && u >= 0 && u <= 1 && tt > 0) {
						tr = tt;
					}
				}
				margin *= 1; /* in units of the parameters: fine for |t| < 40 m */
			} else {
				tr = ref_ray(od, dd, ad, bd2, d(r), &margin);
			}
			if (margin < 1e-3) {
				continue; /* grazing: fixed point may decide either way */
			}
			++checked;
			ck_assert_msg(res.hit == (tr >= 0),
			              "k %d j %d: hit %d, reference t %.6f; (%.4f %.4f)-(%.4f %.4f) r "
			              "%.4f ray (%.4f %.4f) + (%.4f %.4f)",
			              k, j, (int)res.hit, tr, ad[0], ad[1], bd2[0], bd2[1], d(r), od[0],
			              od[1], dd[0], dd[1]);
			if (res.hit) {
				++hits;
				ck_assert_msg(fabs(d(res.fraction) - tr) <= 2e-4,
				              "k %d j %d seg %d: fraction %.6f want %.6f; capsule "
				              "(%.4f %.4f)-(%.4f %.4f) r %.4f ray (%.4f %.4f) + (%.4f %.4f)",
				              k, j, (int)segment, d(res.fraction), tr, ad[0], ad[1],
				              bd2[0], bd2[1], d(r), od[0], od[1], dd[0], dd[1]);
				double len = hypot(d(res.normal.x), d(res.normal.y));
				NEAR(len, 1.0, 1e-3);
			}
		}
		f2d_destroy_world(w);
	}
	ck_assert_int_gt(checked, 2000);
	ck_assert_int_gt(hits, 200);
}
END_TEST

START_TEST(test_capsule_queries)
{
	f2d_world *w = new_world();
	f2d_body_id b = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	f2d_shape_id cap = add_capsule(w, b, v2(-F2D_ONE, 0), v2(F2D_ONE, 0), F2D_MILLI(500));
	bool in;
	CHECK_OK(f2d_shape_test_point(w, cap, v2(F2D_MILLI(1400), F2D_MILLI(200)), &in));
	ck_assert(in);
	CHECK_OK(f2d_shape_test_point(w, cap, v2(F2D_MILLI(1400), F2D_MILLI(400)), &in));
	ck_assert(!in); /* outside the round end: |(0.4, 0.4)| > 0.5 */
	/* a capsule cast down onto it: first contact when the gap 3 - 0.5 - 0.25 closes */
	f2d_query_shape q;
	memset(&q, 0, sizeof q);
	q.type = F2D_CAPSULE_SHAPE;
	q.capsule.center1 = v2(-F2D_MILLI(500), 0);
	q.capsule.center2 = v2(F2D_MILLI(500), 0);
	q.capsule.radius = F2D_MILLI(250);
	f2d_transform xf = {v2(0, F2D_FIX(3)), f2d_make_rot(0)};
	(void)xf;
	f2d_ray_result r;
	CHECK_OK(f2d_shape_ray_cast(w, cap, v2(F2D_FIX(3), 0), v2(-F2D_FIX(4), 0), &r));
	ck_assert(r.hit);
	NEAR(d(r.fraction), 0.375, 1e-4); /* hits the end cap at x = 1.5 */
	NEAR(d(r.normal.x), 1.0, 1e-4);
	f2d_destroy_world(w);
}
END_TEST

static fix16_t first_fraction(f2d_shape_id shape, f2d_vec2 point, f2d_vec2 normal, fix16_t fraction,
                              void *context)
{
	(void)shape, (void)point, (void)normal;
	fix16_t *f = context;
	if (*f < 0 || fraction < *f) {
		*f = fraction;
	}
	return F2D_ONE;
}

START_TEST(test_capsule_cast)
{
	f2d_world *w = new_world();
	f2d_body_id b = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	add_capsule(w, b, v2(-F2D_ONE, 0), v2(F2D_ONE, 0), F2D_MILLI(500));
	f2d_query_shape q;
	memset(&q, 0, sizeof q);
	q.type = F2D_CAPSULE_SHAPE;
	q.capsule.center1 = v2(-F2D_MILLI(500), 0);
	q.capsule.center2 = v2(F2D_MILLI(500), 0);
	q.capsule.radius = F2D_MILLI(250);
	f2d_transform xf = {v2(0, F2D_FIX(3)), f2d_make_rot(0)};
	fix16_t f = -1;
	CHECK_OK(f2d_world_cast_shape(w, &q, xf, v2(0, -F2D_FIX(5)), f2d_default_query_filter(),
	                              first_fraction, &f));
	NEAR(d(f), 2.25 / 5, 1e-4);
	/* a bad query capsule is refused */
	q.capsule.center2 = q.capsule.center1;
	ck_assert_int_eq(f2d_world_cast_shape(w, &q, xf, v2(0, -F2D_FIX(5)),
	                                      f2d_default_query_filter(), first_fraction, &f),
	                 F2D_ERROR_INVALID_VALUE);
	f2d_destroy_world(w);
}
END_TEST

/* ---- input commands: a capsule body spawned by a command, through its bytes ---- */

START_TEST(test_spawn_capsule)
{
	f2d_world *w = new_world();
	f2d_command c = f2d_default_command(F2D_CMD_CREATE_BODY, 1, 7);
	c.u.create.body.type = F2D_DYNAMIC_BODY;
	c.u.create.body.position = v2(0, F2D_FIX(3));
	c.u.create.kind = F2D_SPAWN_CAPSULE;
	c.u.create.capsule.center1 = v2(0, -F2D_MILLI(500));
	c.u.create.capsule.center2 = v2(0, F2D_MILLI(500));
	c.u.create.capsule.radius = F2D_MILLI(300);
	uint8_t buf[F2D_COMMAND_MAX_BYTES];
	size_t n, used;
	CHECK_OK(f2d_command_encode(&c, buf, sizeof buf, &n));
	f2d_command back;
	CHECK_OK(f2d_command_decode(buf, n, &back, &used));
	ck_assert_uint_eq(used, n);
	ck_assert_int_eq(back.u.create.kind, F2D_SPAWN_CAPSULE);
	ck_assert_int_eq(back.u.create.capsule.radius, F2D_MILLI(300));
	for (size_t cut = 0; cut < n; ++cut) { /* every shorter prefix is refused */
		ck_assert_int_ne(f2d_command_decode(buf, cut, &back, &used), F2D_OK);
	}
	f2d_command_result res;
	CHECK_OK(f2d_world_apply_commands(w, &back, 1, &res));
	CHECK_OK(res.result);
	f2d_shape_id first = {1, 1};
	ck_assert_int_eq(f2d_shape_get_type(w, first), F2D_CAPSULE_SHAPE);
	/* a degenerate capsule command changes nothing */
	uint64_t h = f2d_world_hash(w);
	back.u.create.capsule.center2 = back.u.create.capsule.center1;
	CHECK_OK(f2d_world_apply_commands(w, &back, 1, &res));
	ck_assert_int_eq(res.result, F2D_ERROR_INVALID_VALUE);
	ck_assert(f2d_world_hash(w) == h);
	f2d_destroy_world(w);
}
END_TEST

/* ---- bad input ---- */

START_TEST(test_bad_input)
{
	f2d_world *w = new_world();
	f2d_body_id st = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	f2d_body_id dyn = add_body(w, F2D_DYNAMIC_BODY, v2(0, F2D_FIX(2)));
	add_box_shape(w, dyn, F2D_MILLI(500), F2D_MILLI(500));
	uint64_t h = f2d_world_hash(w);
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	f2d_capsule degenerate = {v2(F2D_ONE, 0), v2(F2D_ONE, 0), F2D_MILLI(250)};
	ck_assert_int_eq(f2d_create_capsule_shape(w, dyn, &sd, &degenerate, &s),
	                 F2D_ERROR_INVALID_VALUE);
	ck_assert(strstr(f2d_world_last_error(w), "centres") != NULL);
	f2d_capsule short_cap = {v2(0, 0), v2(F2D_MILLI(5) - 1, 0), F2D_MILLI(250)};
	ck_assert_int_eq(f2d_create_capsule_shape(w, dyn, &sd, &short_cap, &s),
	                 F2D_ERROR_INVALID_VALUE);
	f2d_capsule thin = {v2(0, 0), v2(F2D_ONE, 0), F2D_MILLI(5) - 1};
	ck_assert_int_eq(f2d_create_capsule_shape(w, dyn, &sd, &thin, &s), F2D_ERROR_INVALID_VALUE);
	f2d_capsule far = {v2(F2D_FIX(511), 0), v2(F2D_FIX(510), 0), F2D_FIX(2)};
	ck_assert_int_eq(f2d_create_capsule_shape(w, st, &sd, &far, &s), F2D_ERROR_INVALID_VALUE);
	f2d_capsule big = {v2(F2D_FIX(20), 0), v2(F2D_FIX(30), 0), F2D_FIX(3)};
	ck_assert_int_eq(f2d_create_capsule_shape(w, dyn, &sd, &big, &s), F2D_ERROR_MASS_RANGE);
	ck_assert_int_eq(f2d_create_capsule_shape(w, dyn, NULL, &big, &s), F2D_ERROR_NULL_ARGUMENT);
	f2d_segment tiny = {v2(0, 0), v2(0, F2D_MILLI(5) - 1)};
	ck_assert_int_eq(f2d_create_segment_shape(w, st, &sd, &tiny, &s), F2D_ERROR_INVALID_VALUE);
	f2d_segment ok = {v2(0, 0), v2(0, F2D_ONE)};
	ck_assert_int_eq(f2d_create_segment_shape(w, dyn, &sd, &ok, &s), F2D_ERROR_INVALID_VALUE);
	ck_assert(strstr(f2d_world_last_error(w), "static and kinematic") != NULL);
	f2d_segment out = {v2(0, 0), v2(F2D_FIX(512) + 1, 0)};
	ck_assert_int_eq(f2d_create_segment_shape(w, st, &sd, &out, &s), F2D_ERROR_INVALID_VALUE);
	f2d_body_id stale = {0, 0};
	ck_assert_int_eq(f2d_create_segment_shape(w, stale, &sd, &ok, &s), F2D_ERROR_INVALID_HANDLE);

	f2d_vec2 pts[5] = {v2(0, 0), v2(F2D_ONE, 0), v2(F2D_ONE, 0), v2(F2D_FIX(2), 0),
	                   v2(F2D_FIX(3), F2D_ONE)};
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 1;
	ck_assert_int_eq(f2d_create_chain(w, st, &cd, NULL, 0), F2D_ERROR_INVALID_VALUE);
	ck_assert(strstr(f2d_world_last_error(w), "count 1") != NULL);
	cd.count = 2;
	cd.loop = true;
	ck_assert_int_eq(f2d_create_chain(w, st, &cd, NULL, 0), F2D_ERROR_INVALID_VALUE);
	cd.loop = false;
	cd.count = 5; /* points 1 and 2 coincide */
	ck_assert_int_eq(f2d_create_chain(w, st, &cd, NULL, 0), F2D_ERROR_INVALID_VALUE);
	ck_assert(strstr(f2d_world_last_error(w), "points 1 and 2") != NULL);
	cd.count = 2;
	f2d_shape_id ids[4];
	ck_assert_int_eq(f2d_create_chain(w, dyn, &cd, ids, 4), F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_create_chain(w, st, &cd, ids, 0), F2D_ERROR_INVALID_VALUE);
	cd.friction = F2D_FIX(5);
	ck_assert_int_eq(f2d_create_chain(w, st, &cd, ids, 4), F2D_ERROR_INVALID_VALUE);
	cd.friction = 0;
	cd.points = NULL;
	ck_assert_int_eq(f2d_create_chain(w, st, &cd, ids, 4), F2D_ERROR_NULL_ARGUMENT);
	/* nothing changed */
	ck_assert(f2d_world_hash(w) == h);
	f2d_world_stats stats;
	f2d_world_get_stats(w, &stats);
	ck_assert_int_eq(stats.shape_count, 1);
	/* a body holding a segment cannot become dynamic */
	f2d_body_id kin = add_body(w, F2D_KINEMATIC_BODY, v2(0, -F2D_FIX(3)));
	CHECK_OK(f2d_create_segment_shape(w, kin, &sd, &ok, &s));
	h = f2d_world_hash(w);
	ck_assert_int_eq(f2d_body_set_type(w, kin, F2D_DYNAMIC_BODY), F2D_ERROR_INVALID_VALUE);
	ck_assert(f2d_world_hash(w) == h);
	f2d_segment got;
	f2d_vec2 g1, g2;
	CHECK_OK(f2d_shape_get_segment(w, s, &got, &g1, &g2));
	ck_assert_int_eq(got.point2.y, F2D_ONE);
	f2d_capsule gc;
	ck_assert_int_eq(f2d_shape_get_capsule(w, s, &gc), F2D_ERROR_INVALID_VALUE);
	f2d_destroy_world(w);
}
END_TEST

/* ---- snapshots, clone, hash ---- */

/* Every new shape in one world: capsules on dynamic bodies, a loop chain and an open chain on
 * statics, a segment on a kinematic body, boxes and circles falling on them. */
static f2d_world *mixed_world(void)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	f2d_vec2 terrain[7] = {v2(F2D_FIX(12), F2D_FIX(2)), v2(F2D_FIX(8), 0),
	                       v2(F2D_FIX(4), F2D_MILLI(500)), v2(0, 0),
	                       v2(-F2D_FIX(4), F2D_MILLI(300)), v2(-F2D_FIX(8), 0),
	                       v2(-F2D_FIX(12), F2D_FIX(2))};
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = terrain;
	cd.count = 7;
	cd.user_data = 77;
	CHECK_OK(f2d_create_chain(w, ground, &cd, NULL, 0));
	f2d_body_id rock = add_body(w, F2D_STATIC_BODY, v2(0, F2D_FIX(6)));
	f2d_vec2 loop[4] = {v2(-F2D_ONE, -F2D_MILLI(300)), v2(F2D_ONE, -F2D_MILLI(300)),
	                    v2(F2D_ONE, F2D_MILLI(300)), v2(-F2D_ONE, F2D_MILLI(300))};
	cd.points = loop;
	cd.count = 4;
	cd.loop = true;
	cd.user_data = 0;
	CHECK_OK(f2d_create_chain(w, rock, &cd, NULL, 0));
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_KINEMATIC_BODY;
	bd.position = v2(F2D_FIX(6), F2D_FIX(4));
	bd.angular_velocity = F2D_MILLI(500);
	f2d_body_id spinner;
	CHECK_OK(f2d_create_body(w, &bd, &spinner));
	f2d_segment seg = {v2(-F2D_FIX(2), 0), v2(F2D_FIX(2), 0)};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	CHECK_OK(f2d_create_segment_shape(w, spinner, &sd, &seg, &s));
	for (int i = 0; i < 8; ++i) {
		f2d_body_id b = add_body(w, F2D_DYNAMIC_BODY,
		                         v2(-F2D_FIX(8) + i * F2D_FIX(2), F2D_FIX(9) + (i % 3) * F2D_ONE));
		if (i % 3 == 0) {
			add_capsule(w, b, v2(-F2D_MILLI(400), 0), v2(F2D_MILLI(400), F2D_MILLI(100)),
			            F2D_MILLI(200));
		} else if (i % 3 == 1) {
			add_box_shape(w, b, F2D_MILLI(300), F2D_MILLI(400));
		} else {
			f2d_circle c = {v2(0, 0), F2D_MILLI(350)};
			CHECK_OK(f2d_create_circle_shape(w, b, &sd, &c, &s));
			add_capsule(w, b, v2(0, 0), v2(F2D_MILLI(600), 0), F2D_MILLI(150));
		}
	}
	return w;
}

START_TEST(test_snapshots_and_hash)
{
	f2d_world *w = mixed_world();
	for (int i = 0; i < 60; ++i) {
		f2d_world_step(w);
	}
	/* portable: load into a new world, the same hash and the same bytes again */
	size_t n = f2d_snapshot_portable_size(w), got;
	uint8_t *bytes = malloc(n), *again = malloc(n);
	CHECK_OK(f2d_snapshot_save_portable(w, bytes, n, &got));
	ck_assert_uint_eq(got, n);
	f2d_world_def wd = f2d_default_world_def();
	wd.enable_sleep = false;
	f2d_world *l = NULL;
	CHECK_OK(f2d_snapshot_load_new(bytes, n, &wd, &l));
	ck_assert(f2d_world_hash(l) == f2d_world_hash(w));
	ck_assert_uint_eq(f2d_snapshot_portable_size(l), n);
	CHECK_OK(f2d_snapshot_save_portable(l, again, n, &got));
	ck_assert(memcmp(bytes, again, n) == 0);
	/* in-process and clone */
	size_t in = f2d_snapshot_size(w);
	uint8_t *snap = malloc(in);
	CHECK_OK(f2d_snapshot_save(w, snap, in, &got));
	f2d_world *c = NULL;
	CHECK_OK(f2d_world_clone(w, &c));
	uint64_t h60 = f2d_world_hash(w);
	f2d_world_stats st;
	for (int i = 0; i < 120; ++i) {
		f2d_world_step(w);
		f2d_world_step(l);
		f2d_world_step(c);
		ck_assert(f2d_world_hash(l) == f2d_world_hash(w));
		ck_assert(f2d_world_hash(c) == f2d_world_hash(w));
	}
	uint64_t h180 = f2d_world_hash(w);
	CHECK_OK(f2d_snapshot_restore(w, snap, in));
	ck_assert(f2d_world_hash(w) == h60);
	for (int i = 0; i < 120; ++i) {
		f2d_world_step(w);
	}
	ck_assert(f2d_world_hash(w) == h180);
	/* things did collide: a capsule rests on the terrain, nothing fell through */
	f2d_world_get_stats(w, &st);
	ck_assert_int_gt(st.contact_point_count, 8);
	/* every shape record byte is checked: flip each byte of the shapes and expect a refusal or
	 * a world that saves back to exactly those bytes */
	int refused = 0;
	for (size_t i = 0; i < n; ++i) {
		memcpy(again, bytes, n);
		again[i] ^= 0x20;
		f2d_world *t = NULL;
		f2d_result r = f2d_snapshot_load_new(again, n, &wd, &t);
		if (r != F2D_OK) {
			++refused;
			continue;
		}
		size_t m = f2d_snapshot_portable_size(t);
		uint8_t *b2 = malloc(m);
		CHECK_OK(f2d_snapshot_save_portable(t, b2, m, &got));
		ck_assert_msg(m == n && memcmp(b2, again, n) == 0, "byte %zu: loaded but not canonical",
		              i);
		free(b2);
		f2d_destroy_world(t);
	}
	ck_assert_int_gt(refused, (int)(n / 4));
	free(bytes);
	free(again);
	free(snap);
	f2d_destroy_world(c);
	f2d_destroy_world(l);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(test_hash_sees_geometry)
{
	uint64_t hashes[4];
	for (int k = 0; k < 4; ++k) {
		f2d_world *w = new_world();
		f2d_body_id b = add_body(w, F2D_STATIC_BODY, v2(0, 0));
		f2d_vec2 pts[3] = {v2(F2D_FIX(2), 0), v2(0, 0), v2(-F2D_FIX(2), k == 1 ? 1 : 0)};
		f2d_chain_def cd = f2d_default_chain_def();
		cd.points = pts;
		cd.count = 3;
		CHECK_OK(f2d_create_chain(w, b, &cd, NULL, 0));
		f2d_body_id c = add_body(w, F2D_DYNAMIC_BODY, v2(0, F2D_FIX(2)));
		add_capsule(w, c, v2(0, 0), v2(F2D_ONE, 0), F2D_MILLI(250) + (k == 2 ? 1 : 0));
		if (k == 3) {
			f2d_segment s = {v2(F2D_FIX(5), 0), v2(F2D_FIX(6), 0)};
			f2d_shape_def sd = f2d_default_shape_def();
			f2d_shape_id id;
			CHECK_OK(f2d_create_segment_shape(w, b, &sd, &s, &id));
		}
		hashes[k] = f2d_world_hash(w);
		f2d_destroy_world(w);
	}
	for (int i = 0; i < 4; ++i) {
		for (int j = i + 1; j < 4; ++j) {
			ck_assert(hashes[i] != hashes[j]);
		}
	}
}
END_TEST

/* ---- range edges (run under UBSan in the sanitizer build) ---- */

START_TEST(test_range_edges)
{
	f2d_world *w = new_world();
	f2d_body_id ground = add_body(w, F2D_STATIC_BODY, v2(0, 0));
	const fix16_t e = F2D_MAX_SHAPE_EXTENT;
	f2d_vec2 pts[5] = {v2(e, e), v2(e, -e), v2(-e, -e), v2(-e, e), v2(e, e - F2D_MILLI(5))};
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 4;
	cd.loop = true;
	/* clockwise: solid outside, the inside is a 1024 m box the bodies fall in */
	CHECK_OK(f2d_create_chain(w, ground, &cd, NULL, 0));
	f2d_segment diag = {v2(-e, -e), v2(e, e)};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	CHECK_OK(f2d_create_segment_shape(w, ground, &sd, &diag, &s));
	/* the smallest and the largest capsules */
	f2d_body_id small = add_body(w, F2D_DYNAMIC_BODY, v2(F2D_FIX(100), F2D_FIX(100)));
	f2d_capsule tiny = {v2(0, 0), v2(F2D_MILLI(5), 0), F2D_MILLI(5)};
	f2d_shape_def dense = f2d_default_shape_def();
	dense.density = F2D_FIX(32767);
	f2d_shape_id ts;
	CHECK_OK(f2d_create_capsule_shape(w, small, &dense, &tiny, &ts));
	f2d_body_id large = add_body(w, F2D_DYNAMIC_BODY, v2(-F2D_FIX(200), F2D_FIX(300)));
	f2d_capsule big = {v2(-F2D_FIX(16), 0), v2(F2D_FIX(16), 0), F2D_FIX(16) - 1};
	f2d_shape_def light = f2d_default_shape_def();
	light.density = F2D_MILLI(5);
	f2d_shape_id bs;
	CHECK_OK(f2d_create_capsule_shape(w, large, &light, &big, &bs));
	f2d_capsule edge = {v2(e - F2D_MILLI(5), 0), v2(0, 0), F2D_MILLI(5)};
	edge.center1.x = e - F2D_MILLI(5);
	CHECK_OK(f2d_create_capsule_shape(w, ground, &sd, &edge, &s));
	for (int i = 0; i < 300; ++i) {
		f2d_world_step(w);
	}
	/* rays across the whole range */
	f2d_ray_result r;
	CHECK_OK(f2d_world_cast_ray_closest(w, v2(-F2D_QUERY_LIMIT, -F2D_QUERY_LIMIT + 1),
	                                    v2(F2D_QUERY_LIMIT, F2D_QUERY_LIMIT),
	                                    f2d_default_query_filter(), &r));
	CHECK_OK(f2d_world_cast_ray_closest(w, v2(0, F2D_FIX(511)), v2(0, -F2D_FIX(1023)),
	                                    f2d_default_query_filter(), &r));
	ck_assert(r.hit);
	ck_assert(f2d_body_get_position(w, small).y > -e);
	ck_assert(f2d_body_get_position(w, large).y > -e);
	f2d_destroy_world(w);
}
END_TEST

/* The largest radii and the world's corner: a static capsule of radius 500 m, a static body at
 * the world limit with a chain reaching 512 m beyond it, dynamic capsules of 16 m radius and of
 * the smallest size landing on them (UBSan in the sanitizer build). */
START_TEST(test_range_edges_far)
{
	f2d_world *w = new_world();
	f2d_body_id hill = add_body(w, F2D_STATIC_BODY, v2(-F2D_FIX(4000), -F2D_FIX(7000)));
	f2d_capsule huge = {v2(-F2D_FIX(6), 0), v2(F2D_FIX(6), 0), F2D_FIX(500)};
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	CHECK_OK(f2d_create_capsule_shape(w, hill, &sd, &huge, &s));
	f2d_body_id corner = add_body(w, F2D_STATIC_BODY, v2(F2D_WORLD_LIMIT, F2D_WORLD_LIMIT));
	const fix16_t e = F2D_MAX_SHAPE_EXTENT;
	f2d_vec2 pts[3] = {v2(e, -e + F2D_FIX(100)), v2(0, -e), v2(-e, -e + F2D_FIX(100))};
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 3;
	CHECK_OK(f2d_create_chain(w, corner, &cd, NULL, 0));
	f2d_body_id big = add_body(w, F2D_DYNAMIC_BODY, v2(-F2D_FIX(4000), -F2D_FIX(6450)));
	f2d_capsule bc = {v2(-F2D_FIX(15), 0), v2(F2D_FIX(15), 0), F2D_FIX(16)};
	f2d_shape_def light = f2d_default_shape_def();
	light.density = F2D_MILLI(5);
	CHECK_OK(f2d_create_capsule_shape(w, big, &light, &bc, &s));
	f2d_body_id small = add_body(w, F2D_DYNAMIC_BODY,
	                             v2(F2D_WORLD_LIMIT - F2D_FIX(3), F2D_WORLD_LIMIT - F2D_MILLI(511380)));
	f2d_capsule tiny = {v2(0, 0), v2(F2D_MILLI(5), 0), F2D_MILLI(5)};
	f2d_shape_def dense = f2d_default_shape_def();
	dense.density = F2D_FIX(32767);
	CHECK_OK(f2d_create_capsule_shape(w, small, &dense, &tiny, &s));
	for (int i = 0; i < 240; ++i) {
		f2d_world_step(w);
	}
	/* resting on the surfaces they fell on */
	NEAR(d(f2d_body_get_position(w, big).y), -7000.0 + 500 + 16, 0.05);
	/* (placed 0.03 m above the chain: a body faster per step than its half size plus the
	 * speculative distance passes a zero-thickness chain, as a thin polygon: no continuous
	 * collision) */
	ck_assert_msg(d(f2d_body_get_position(w, small).y) > 8192 - 511.414 - 0.011, "small at %.4f %.4f", d(f2d_body_get_position(w, small).x), d(f2d_body_get_position(w, small).y));
	size_t n = f2d_snapshot_portable_size(w), got;
	uint8_t *bytes = malloc(n);
	CHECK_OK(f2d_snapshot_save_portable(w, bytes, n, &got));
	f2d_world *l = NULL;
	f2d_world_def wd = f2d_default_world_def();
	wd.enable_sleep = false;
	CHECK_OK(f2d_snapshot_load_new(bytes, n, &wd, &l));
	ck_assert(f2d_world_hash(l) == f2d_world_hash(w));
	free(bytes);
	f2d_destroy_world(l);
	f2d_destroy_world(w);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("shapes");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_capsule_manifolds);
	tcase_add_test(tc, test_capsule_circle_capsule);
	tcase_add_test(tc, test_capsule_segment_chain);
	tcase_add_test(tc, test_capsule_rests);
	tcase_add_test(tc, test_chain_no_catch);
	tcase_add_test(tc, test_chain_bumps);
	tcase_add_test(tc, test_chain_one_sided);
	tcase_add_test(tc, test_events_and_filters);
	tcase_add_test(tc, test_capsule_mass);
	tcase_add_test(tc, test_ray_cast_reference);
	tcase_add_test(tc, test_capsule_queries);
	tcase_add_test(tc, test_capsule_cast);
	tcase_add_test(tc, test_spawn_capsule);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_snapshots_and_hash);
	tcase_add_test(tc, test_hash_sees_geometry);
	tcase_add_test(tc, test_range_edges);
	tcase_add_test(tc, test_range_edges_far);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
