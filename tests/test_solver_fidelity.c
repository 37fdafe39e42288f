/* fix2d tests: the solver's fidelity against analytic results and its LCP model (issue 15).
 * SPDX-License-Identifier: MIT
 *
 *  - bounces: the first three bounce height ratios are within 5 % of e^2 (e = 0.5 and 0.9);
 *    restitution acts on the relative normal velocity of before the step's gravity and solve,
 *    from the contact (src/solver.c, f2d_contacts_restitution);
 *  - pendulum: a 2 m pendulum released at 5 degrees with a small dense bob (r 0.05 m) keeps its
 *    amplitude within 2 % over 30 s and its period within 0.5 % of the analytic one (the joint
 *    position passes leave gaps within joint_tolerance to the velocity bias, src/joint.c);
 *  - the measurement hook f2d_contact_lcp_points reads the solver without changing a bit, and
 *    the LCP residual after the velocity solve falls with the iteration count;
 *  - a stack stands: pyramid20 (210 boxes) loses less than 4 cm at its top in 10 s and is at
 *    rest.
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

#define PI 3.14159265358979323846
#define D(x) f2d_to_double(x)
#define FX(x) f2d_from_double(x)

/* The solver under test: the loop index of each test (0: the Gauss-Seidel solver, 1: the soft
 * step with 4 substeps, f2d_world_def.substep_count). */
static const int32_t solver_substeps[2] = {0, 4};
static int32_t substeps;

static f2d_world *new_world(void)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = false;
	def.substep_count = substeps;
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_OK);
	return w;
}

static void add_ground(f2d_world *w)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.position = f2d_v(0, F2D_MILLI(-500));
	f2d_body_id g;
	ck_assert_int_eq(f2d_create_body(w, &bd, &g), F2D_OK);
	f2d_polygon p;
	ck_assert_int_eq(f2d_make_box(F2D_FIX(40), F2D_MILLI(500), &p), F2D_OK);
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	ck_assert_int_eq(f2d_create_polygon_shape(w, g, &sd, &p, &s), F2D_OK);
}

/* ---- bounces: apex k / apex k-1 = e^2 ---- */

/* A ball of radius 0.25 m dropped from 4.75 m (its lowest point) onto the ground; the first
 * three bounce apexes (heights of its lowest point) into apex[]. */
static void bounce_apexes(double e, double apex[3])
{
	f2d_world *w = new_world();
	add_ground(w);
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = f2d_v(0, F2D_FIX(5));
	f2d_body_id b;
	ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
	f2d_shape_def sd = f2d_default_shape_def();
	sd.restitution = FX(e);
	f2d_circle c = {{0, 0}, F2D_MILLI(250)};
	f2d_shape_id s;
	ck_assert_int_eq(f2d_create_circle_shape(w, b, &sd, &c, &s), F2D_OK);
	double last = 4.75;
	bool rising = false;
	int n = 0;
	for (int i = 0; i < 1200 && n < 3; ++i) {
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
		double y = D(f2d_body_get_position(w, b).y) - 0.25;
		if (y > last) {
			rising = true;
		} else if (rising && y < last) {
			apex[n++] = last;
			rising = false;
		}
		last = y;
	}
	ck_assert_int_eq(n, 3);
	f2d_destroy_world(w);
}

static void check_bounces(double e)
{
	double apex[3];
	bounce_apexes(e, apex);
	double prev = 4.75;
	for (int k = 0; k < 3; ++k) {
		double ratio = apex[k] / prev;
		ck_assert_msg(fabs(ratio - e * e) <= 0.05 * e * e,
		              "substeps %d, e = %.2f bounce %d: height ratio %.4f, e^2 = %.4f",
		              (int)substeps, e, k + 1, ratio, e * e);
		prev = apex[k];
	}
}

START_TEST(bounce_ratios_half)
{
	substeps = solver_substeps[_i];
	check_bounces(0.5);
}
END_TEST

START_TEST(bounce_ratios_nine_tenths)
{
	substeps = solver_substeps[_i];
	check_bounces(0.9);
}
END_TEST

/* ---- pendulum: amplitude and period over 30 s ---- */

/* A 2 m pendulum pinned at (0, 10), released at 5 degrees, bob a circle of radius 0.05 m and
 * the given density. Over 30 s: the swing amplitude of the last half period, the mean period
 * (from the zero crossings) and the largest anchor gap. */
static void pendulum(double density, double *amp_deg, double *period, double *gap)
{
	f2d_world *w = new_world();
	f2d_body_def bd = f2d_default_body_def();
	bd.position = f2d_v(0, F2D_FIX(10));
	f2d_body_id pivot;
	ck_assert_int_eq(f2d_create_body(w, &bd, &pivot), F2D_OK);
	const double L = 2, th = 5 * PI / 180;
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = f2d_v(FX(L * sin(th)), FX(10 - L * cos(th)));
	f2d_body_id b;
	ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
	f2d_shape_def sd = f2d_default_shape_def();
	sd.density = FX(density);
	f2d_circle c = {{0, 0}, F2D_MILLI(50)};
	f2d_shape_id s;
	ck_assert_int_eq(f2d_create_circle_shape(w, b, &sd, &c, &s), F2D_OK);
	f2d_revolute_joint_def jd;
	ck_assert_int_eq(f2d_init_revolute_joint_def(w, pivot, b, f2d_v(0, F2D_FIX(10)), &jd),
	                 F2D_OK);
	f2d_joint_id j;
	ck_assert_int_eq(f2d_create_revolute_joint(w, &jd, &j), F2D_OK);
	double last_x = L * sin(th), first_t = -1, last_t = 0, swing = 0, amp = 0;
	int crossings = 0;
	*gap = 0;
	for (int i = 1; i <= 30 * 60; ++i) {
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
		f2d_vec2 p = f2d_body_get_position(w, b);
		double x = D(p.x), y = D(p.y);
		double a = fabs(atan2(x, 10 - y));
		double g = fabs(hypot(x, 10 - y) - L);
		*gap = g > *gap ? g : *gap;
		swing = a > swing ? a : swing;
		if ((last_x > 0) != (x > 0)) {
			double t = (i - 1 + last_x / (last_x - x)) / 60.0;
			first_t = first_t < 0 ? t : first_t;
			last_t = t;
			crossings++;
			amp = swing;
			swing = 0;
		}
		last_x = x;
	}
	ck_assert_int_ge(crossings, 20);
	*amp_deg = amp * 180 / PI;
	*period = 2 * (last_t - first_t) / (crossings - 1);
	f2d_destroy_world(w);
}

static void check_pendulum(double density)
{
	double amp, period, gap;
	pendulum(density, &amp, &period, &gap);
	const double th = 5 * PI / 180;
	/* T = 2 pi sqrt(L / g) (1 + theta0^2 / 16 + ...) */
	double T = 2 * PI * sqrt(2.0 / 10.0) * (1 + th * th / 16);
	printf("pendulum, substeps %d, density %g: amplitude %.4f deg (%+.2f %%), period %.5f s "
	       "(%+.3f %%), anchor gap %.5f m\n",
	       (int)substeps, density, amp, 100 * (amp / 5.0 - 1), period, 100 * (period / T - 1),
	       gap);
	ck_assert_msg(fabs(amp / 5.0 - 1) <= 0.02,
	              "substeps %d, density %g: amplitude after 30 s %.4f deg, released at 5 deg",
	              (int)substeps, density, amp);
	ck_assert_msg(fabs(period / T - 1) <= 0.005,
	              "substeps %d, density %g: period %.5f s, analytic %.5f s", (int)substeps,
	              density, period, T);
	ck_assert_msg(gap <= 0.001, "substeps %d, density %g: anchor gap %.5f m", (int)substeps,
	              density, gap);
}

START_TEST(pendulum_keeps_amplitude)
{
	substeps = solver_substeps[_i];
	check_pendulum(1000); /* 7.9 kg, I = 0.0098 kg m^2 */
	check_pendulum(7850); /* 62 kg, I = 0.077 kg m^2 */
}
END_TEST

/* ---- the LCP residual (seed 001) ---- */

/* |min(P_n k_n, vn - target)| over the points, rms, m/s (fix2d-bench --residual's measure) */
static double signorini_rms(const f2d_world *w)
{
	static f2d_lcp_point pts[8192];
	int32_t n = f2d_contact_lcp_points(w, pts, 8192);
	ck_assert_int_le(n, 8192);
	if (n == 0) {
		return 0;
	}
	double sum = 0;
	for (int32_t i = 0; i < n; ++i) {
		const f2d_lcp_point *p = &pts[i];
		double a = p->mass_n > 0 ? D(p->pn) / D(p->mass_n) : 0;
		double v = D(p->vn) - D(p->target);
		double r = fabs(a < v ? a : v);
		sum += r * r;
	}
	return sqrt(sum / n);
}

START_TEST(residual_hook_reads_only)
{
	f2d_world *a = NULL, *b = NULL;
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = false;
	ck_assert_int_eq(f2d_scene_create("restitution", &def, &a), F2D_OK);
	ck_assert_int_eq(f2d_scene_create("restitution", &def, &b), F2D_OK);
	for (int i = 0; i < 240; ++i) {
		f2d_world_step(a);
		f2d_world_step(b);
		(void)signorini_rms(b);
		ck_assert_uint_eq(f2d_world_hash(a), f2d_world_hash(b));
	}
	f2d_destroy_world(a);
	f2d_destroy_world(b);
}
END_TEST

START_TEST(residual_falls_with_iterations)
{
	static const int32_t its[] = {2, 4, 10};
	double r[3];
	for (int k = 0; k < 3; ++k) {
		f2d_world_def def = f2d_default_world_def();
		def.enable_sleep = false;
		def.iterations = its[k];
		def.substep_count = 0; /* the iteration count is the Gauss-Seidel solver's */
		f2d_world *w = NULL;
		ck_assert_int_eq(f2d_scene_create("pyramid20", &def, &w), F2D_OK);
		for (int i = 0; i < 120; ++i) {
			f2d_world_step(w);
		}
		ck_assert_int_gt(f2d_contact_lcp_points(w, NULL, 0), 400);
		r[k] = signorini_rms(w);
		f2d_destroy_world(w);
	}
	ck_assert_msg(r[1] < r[0] && r[2] < r[1], "residual %g %g %g", r[0], r[1], r[2]);
	ck_assert_msg(r[2] < 0.001, "pyramid20, 10 iterations: Signorini residual %g m/s", r[2]);
}
END_TEST

/* ---- a stack stands ---- */

START_TEST(pyramid20_stands_at_rest)
{
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = false;
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create("pyramid20", &def, &w), F2D_OK);
	f2d_body_id top = {0, 0};
	double top_y = -1e9;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		if (w->bodies[i].alive && w->bodies[i].type == F2D_DYNAMIC_BODY &&
		    D(w->bodies[i].center.y) > top_y) {
			top_y = D(w->bodies[i].center.y);
			top = (f2d_body_id){i + 1, w->bodies[i].generation};
		}
	}
	for (int i = 0; i < 600; ++i) {
		ck_assert_int_eq(f2d_world_step(w), F2D_OK);
	}
	f2d_vec2 p = f2d_body_get_position(w, top);
	ck_assert_msg(top_y - D(p.y) <= 0.04, "top dropped %.4f m", top_y - D(p.y));
	ck_assert_msg(fabs(D(p.x)) <= 0.02, "top moved %.4f m sideways", D(p.x));
	double vmax = 0;
	for (int32_t i = 0; i < w->body_ids.next; ++i) {
		const f2d_body *bd = &w->bodies[i];
		if (bd->alive && bd->type == F2D_DYNAMIC_BODY) {
			double v = hypot(D(bd->v.x), D(bd->v.y));
			vmax = v > vmax ? v : vmax;
		}
	}
	ck_assert_msg(vmax < 0.01, "largest speed %.4f m/s", vmax);
	f2d_destroy_world(w);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("solver_fidelity");
	TCase *tc = tcase_create("analytic");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, bounce_ratios_half, 0, 2);
	tcase_add_loop_test(tc, bounce_ratios_nine_tenths, 0, 2);
	tcase_add_loop_test(tc, pendulum_keeps_amplitude, 0, 2);
	tcase_add_test(tc, residual_hook_reads_only);
	tcase_add_test(tc, residual_falls_with_iterations);
	tcase_add_test(tc, pyramid20_stands_at_rest);
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
