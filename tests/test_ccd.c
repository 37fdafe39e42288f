/* fix2d tests: fast impacts and tunnelling (issues 15 and 14).
 * SPDX-License-Identifier: MIT
 *
 *  - impact depth: a circle, a box and a capsule dropped at 5, 10 and 20 m/s onto a static box,
 *    a segment and a chain sink no deeper than the linear slop at their first impact, whatever
 *    the gap at the last step before it (8 start heights spread over one step's travel). The
 *    speculative margin scales with the approach speed (src/contact.c, src/broadphase.c);
 *  - tunnelling: a 0.1 m ball at 50 and 100 m/s does not pass through a 0.1 m thick static box,
 *    a segment or a chain, head on and at a slant (src/toi.c's continuous collision backs the
 *    speculative contacts);
 *  - no new jitter: rain1000 comes to rest.
 * Doubles are used for measuring only.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core.h"
#include "fix2d/convert.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"

#define D(x) f2d_to_double(x)
#define FX(x) f2d_from_double(x)

enum { T_BOX, T_SEGMENT, T_CHAIN };
enum { B_CIRCLE, B_BOX, B_CAPSULE };
static const char *const target_names[] = {"box", "segment", "chain"};
static const char *const body_names[] = {"circle", "box", "capsule"};

static f2d_world *new_world(bool gravity)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = false;
	if (!gravity) {
		def.gravity = f2d_v(0, 0);
	}
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_OK);
	return w;
}

/* A static target whose top surface is the line y = top, from x = -20 to 20 m; a box of the
 * given thickness, a segment or a chain (listed right to left: solid below, uneven vertices). */
static void add_target(f2d_world *w, int kind, double top, double thickness)
{
	f2d_body_def bd = f2d_default_body_def();
	f2d_body_id g;
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	if (kind == T_BOX) {
		bd.position = f2d_v(0, FX(top - thickness / 2));
		ck_assert_int_eq(f2d_create_body(w, &bd, &g), F2D_OK);
		f2d_polygon p;
		ck_assert_int_eq(f2d_make_box(F2D_FIX(20), FX(thickness / 2), &p), F2D_OK);
		ck_assert_int_eq(f2d_create_polygon_shape(w, g, &sd, &p, &s), F2D_OK);
		return;
	}
	bd.position = f2d_v(0, FX(top));
	ck_assert_int_eq(f2d_create_body(w, &bd, &g), F2D_OK);
	if (kind == T_SEGMENT) {
		f2d_segment seg = {{F2D_FIX(-20), 0}, {F2D_FIX(20), 0}};
		ck_assert_int_eq(f2d_create_segment_shape(w, g, &sd, &seg, &s), F2D_OK);
		return;
	}
	static const double xs[] = {20, 11, 2.5, 0.9, -0.35, -3, -12, -20};
	f2d_vec2 pts[8];
	for (int i = 0; i < 8; ++i) {
		pts[i] = f2d_v(FX(xs[i]), 0);
	}
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = 8;
	f2d_shape_id ids[8];
	ck_assert_int_eq(f2d_create_chain(w, g, &cd, ids, 8), F2D_OK);
}

/* A falling body (density 1, restitution 0) whose lowest point starts at height `low` above
 * y = 0, at (x, .), moving at velocity v. Returns its lowest-point offset from its centre. */
static f2d_body_id add_body(f2d_world *w, int kind, double x, double low, f2d_vec2 v,
                            double *below)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.linear_velocity = v;
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	f2d_body_id b;
	if (kind == B_CIRCLE) {
		*below = 0.25;
		bd.position = f2d_v(FX(x), FX(low + 0.25));
		ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
		f2d_circle c = {{0, 0}, F2D_MILLI(250)};
		ck_assert_int_eq(f2d_create_circle_shape(w, b, &sd, &c, &s), F2D_OK);
	} else if (kind == B_BOX) {
		*below = 0.25;
		bd.position = f2d_v(FX(x), FX(low + 0.25));
		ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
		f2d_polygon p;
		ck_assert_int_eq(f2d_make_box(F2D_MILLI(400), F2D_MILLI(250), &p), F2D_OK);
		ck_assert_int_eq(f2d_create_polygon_shape(w, b, &sd, &p, &s), F2D_OK);
	} else {
		*below = 0.15;
		bd.position = f2d_v(FX(x), FX(low + 0.15));
		ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
		f2d_capsule c = {{F2D_MILLI(-300), 0}, {F2D_MILLI(300), 0}, F2D_MILLI(150)};
		ck_assert_int_eq(f2d_create_capsule_shape(w, b, &sd, &c, &s), F2D_OK);
	}
	return b;
}

/* The lowest point's height: the centre less the body's extent below it at its rotation. */
static double lowest(const f2d_world *w, f2d_body_id b, int kind)
{
	f2d_vec2 p = f2d_body_get_position(w, b);
	f2d_rot q = f2d_body_get_rotation(w, b);
	double c = fabs(D(q.c)), s = fabs(D(q.s));
	double ext = kind == B_CIRCLE ? 0.25 : kind == B_BOX ? 0.4 * s + 0.25 * c : 0.3 * s + 0.15;
	return D(p.y) - ext;
}

/* Depth of the first impact: the deepest the lowest point goes below y = 0 from the start until
 * 3 steps after the step that stopped the fall (upward or slower than 1 m/s). */
static double impact_depth(int body, int target, double speed, double start_low)
{
	f2d_world *w = new_world(true);
	add_target(w, target, 0, 0.5);
	double below;
	f2d_body_id b = add_body(w, body, 0.3, start_low, f2d_v(0, FX(-speed)), &below);
	double deepest = 0;
	int after = -1;
	for (int i = 0; i < 120 && after < 3; ++i) {
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
		double low = lowest(w, b, body);
		deepest = -low > deepest ? -low : deepest;
		if (after >= 0) {
			++after;
		} else if (D(f2d_body_get_linear_velocity(w, b).y) > -1.0) {
			after = 0;
		}
	}
	f2d_destroy_world(w);
	return after >= 0 ? deepest : 99.0; /* never stopped: passed through */
}

/* The deepest first impact over 8 start heights spread over one step's travel (so the gap
 * left at the last step before the contact takes 8 values). */
static double worst_depth(int body, int target, double speed)
{
	double h = 1092.0 / 65536.0, worst = 0;
	for (int k = 0; k < 8; ++k) {
		double d = impact_depth(body, target, speed, 1.0 + speed * h * k / 8.0);
		worst = d > worst ? d : worst;
	}
	return worst;
}

static void check_depths(int body)
{
	static const double speeds[] = {5, 10, 20};
	double worst = 0;
	char what[96] = "";
	for (int t = 0; t < 3; ++t) {
		for (int s = 0; s < 3; ++s) {
			double d = worst_depth(body, t, speeds[s]);
			if (getenv("F2D_CCD_PRINT") != NULL) {
				printf("depth %-7s onto %-7s at %2.0f m/s: %.4f m\n", body_names[body],
				       target_names[t], speeds[s], d);
			}
			if (d > worst) {
				worst = d;
				snprintf(what, sizeof what, "%s onto %s at %.0f m/s", body_names[body],
				         target_names[t], speeds[s]);
			}
		}
	}
	ck_assert_msg(worst <= 0.01, "%s sank %.4f m (slop 0.01)", what, worst);
}

START_TEST(circle_impact_depth)
{
	check_depths(B_CIRCLE);
}
END_TEST

START_TEST(box_impact_depth)
{
	check_depths(B_BOX);
}
END_TEST

START_TEST(capsule_impact_depth)
{
	check_depths(B_CAPSULE);
}
END_TEST

/* A 0.1 m ball (radius 0.05) at `speed` toward a target whose top is y = 0 from 3 m above, at
 * angle `slant` from the vertical; gravity off. It must end above the target (its centre above
 * y = 0) and have been stopped (moving up or slower than 1 m/s). */
static void check_no_tunnel(int target, double speed, double slant)
{
	f2d_world *w = new_world(false);
	add_target(w, target, 0, 0.1);
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = f2d_v(FX(-3 * tan(slant)), F2D_FIX(3));
	bd.linear_velocity = f2d_v(FX(speed * sin(slant)), FX(-speed * cos(slant)));
	f2d_body_id b;
	ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
	f2d_shape_def sd = f2d_default_shape_def();
	sd.density = F2D_FIX(100); /* a 0.1 m ball of density 1 has ~1 LSB of inertia */
	f2d_shape_id s;
	f2d_circle c = {{0, 0}, F2D_MILLI(50)};
	ck_assert_int_eq(f2d_create_circle_shape(w, b, &sd, &c, &s), F2D_OK);
	double lowest_y = 3;
	for (int i = 0; i < 30; ++i) {
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
		double y = D(f2d_body_get_position(w, b).y);
		lowest_y = y < lowest_y ? y : lowest_y;
	}
	double vy = D(f2d_body_get_linear_velocity(w, b).y);
	if (getenv("F2D_CCD_PRINT") != NULL) {
		printf("tunnel %-7s %3.0f m/s slant %.2f: lowest centre %.4f m, vy %.3f\n",
		       target_names[target], speed, slant, lowest_y, vy);
	}
	ck_assert_msg(lowest_y > 0.0, "ball passed the %s at %.0f m/s (centre reached %.4f m)",
	              target_names[target], speed, lowest_y);
	ck_assert_msg(lowest_y > 0.05 - 0.01 - 1e-4, "ball sank into the %s at %.0f m/s (%.4f m)",
	              target_names[target], speed, lowest_y);
	ck_assert_msg(vy > -1.0, "ball still falling at %.2f m/s", vy);
	f2d_destroy_world(w);
}

START_TEST(no_tunnelling)
{
	static const double speeds[] = {50, 100};
	static const double slants[] = {0, 0.5};
	for (int t = 0; t < 3; ++t) {
		for (int s = 0; s < 2; ++s) {
			for (int a = 0; a < 2; ++a) {
				check_no_tunnel(t, speeds[s], slants[a]);
			}
		}
	}
}
END_TEST

/* The continuous step by itself (src/toi.c): a 0.1 m ball above a segment, moving at 100 m/s;
 * after the broad phase (pairs and caches from the start of the step) the ball is put where a
 * solve that did not stop it would leave it, 0.6 m below the segment: f2d_solve_continuous puts
 * it back where it first touched the segment, keeping its velocity. A body that moved little
 * (less than half its radius), or away from the segment, or that started touching it, stays. */
static f2d_world *ball_over_segment(double y, double vy, f2d_body_id *b)
{
	f2d_world *w = new_world(false);
	add_target(w, T_SEGMENT, 0, 0);
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = f2d_v(0, FX(y));
	bd.linear_velocity = f2d_v(0, FX(vy));
	ck_assert_int_eq(f2d_create_body(w, &bd, b), F2D_OK);
	f2d_shape_def sd = f2d_default_shape_def();
	sd.density = F2D_FIX(100);
	f2d_shape_id s;
	f2d_circle c = {{0, 0}, F2D_MILLI(50)};
	ck_assert_int_eq(f2d_create_circle_shape(w, *b, &sd, &c, &s), F2D_OK);
	ck_assert_int_eq(f2d_find_pairs(w), F2D_OK);
	ck_assert(f2d_continuous_reserve(w));
	return w;
}

static void move_to(f2d_world *w, f2d_body_id id, double y)
{
	f2d_body *b = &w->bodies[id.index1 - 1];
	b->center = f2d_v(b->center.x, FX(y));
	b->origin = b->center;
}

START_TEST(continuous_step_alone)
{
	f2d_body_id id;
	f2d_world *w = ball_over_segment(1.0, -100, &id);
	ck_assert_int_eq(w->pair_count, 1); /* the stretched box met the segment */
	move_to(w, id, -0.6);
	f2d_solve_continuous(w);
	const f2d_body *b = &w->bodies[id.index1 - 1];
	/* first touch: the centre one radius above the segment (exact cast, rounded pose) */
	ck_assert_int_le(abs(b->center.y - F2D_MILLI(50)), 2);
	ck_assert_int_eq(b->origin.y, b->center.y);
	ck_assert_int_eq(b->v.y, FX(-100)); /* the velocity is kept */
	f2d_destroy_world(w);
	/* a small move (1.8 cm, less than half the radius): not fast, not swept */
	w = ball_over_segment(0.07, -100, &id);
	move_to(w, id, 0.052);
	f2d_solve_continuous(w);
	ck_assert_int_eq(w->bodies[id.index1 - 1].center.y, FX(0.052));
	f2d_destroy_world(w);
	/* moving away from the segment: nothing to touch */
	w = ball_over_segment(0.2, 100, &id);
	move_to(w, id, 1.8);
	f2d_solve_continuous(w);
	ck_assert_int_eq(w->bodies[id.index1 - 1].center.y, FX(1.8));
	f2d_destroy_world(w);
	/* starting within the slop (in contact): the contact holds it, no sweep */
	w = ball_over_segment(0.055, -100, &id);
	move_to(w, id, -0.6);
	f2d_solve_continuous(w);
	ck_assert_int_eq(w->bodies[id.index1 - 1].center.y, FX(-0.6));
	f2d_destroy_world(w);
}
END_TEST

START_TEST(rain1000_comes_to_rest)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = false;
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create("rain1000", &def, &w), F2D_OK);
	for (int i = 0; i < 600; ++i) {
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
	}
	double vmax = 0;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *bd = &w->bodies[i];
		if (bd->alive && bd->type == F2D_DYNAMIC_BODY) {
			double v = hypot(D(bd->v.x), D(bd->v.y));
			vmax = v > vmax ? v : vmax;
		}
	}
	if (getenv("F2D_CCD_PRINT") != NULL) {
		printf("rain1000 largest speed at step 600: %.4f m/s\n", vmax);
	}
	ck_assert_msg(vmax < 0.01, "largest speed %.4f m/s", vmax);
	f2d_destroy_world(w);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ccd");
	TCase *tc = tcase_create("impacts");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, circle_impact_depth);
	tcase_add_test(tc, box_impact_depth);
	tcase_add_test(tc, capsule_impact_depth);
	tcase_add_test(tc, no_tunnelling);
	tcase_add_test(tc, continuous_step_alone);
	tcase_add_test(tc, rain1000_comes_to_rest);
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
