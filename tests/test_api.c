/* fix2d tests: the public API under bad input and bad handles.
 * SPDX-License-Identifier: MIT
 *
 * The rule checked everywhere: a refused call returns the documented error code,
 * f2d_error_string(code) describes it, f2d_world_last_error(world) names the problem (the test
 * clears the message before each call, so a stale message from an earlier failure does not
 * count), and the world is unchanged: f2d_world_hash is the same before and after the call.
 * The worlds used have a ground, dynamic bodies resting on it and a joint, stepped until they
 * have contacts, so the hash covers arbiters and warm-start impulses too.
 */
#include "api_common.h"
#include "fix2d/input.h"

/* ---- NULL arguments ---- */

START_TEST(test_null_arguments)
{
	f2d_world_def wd = f2d_default_world_def();
	f2d_world *out_w = (f2d_world *)&wd; /* sentinel: must not be overwritten */
	ck_assert_int_eq(f2d_create_world(NULL, &out_w), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_ptr_eq(out_w, (f2d_world *)&wd);
	ck_assert_int_eq(f2d_create_world(&wd, NULL), F2D_ERROR_NULL_ARGUMENT);

	scene s = make_scene();
	f2d_world *w = s.w;
	f2d_body_def bd = f2d_default_body_def();
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon box;
	CHECK_OK(f2d_make_box(F2D_ONE, F2D_ONE, &box));
	f2d_circle circle = {{0, 0}, F2D_ONE};
	f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
	CHECK_OK(f2d_init_revolute_joint_def(w, s.b, s.c, vec(F2D_ONE, F2D_ONE), &jd));
	f2d_body_id bid = sentinel_body;
	f2d_shape_id sid = sentinel_shape;
	f2d_joint_id jid = sentinel_joint;

	/* no world: nothing to record the error in */
	ck_assert_int_eq(f2d_create_body(NULL, &bd, &bid), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_create_polygon_shape(NULL, s.a, &sd, &box, &sid),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_create_circle_shape(NULL, s.a, &sd, &circle, &sid),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_create_revolute_joint(NULL, &jd, &jid), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_destroy_body(NULL, s.a), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_destroy_shape(NULL, s.box_a), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_destroy_joint(NULL, s.joint), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_body_set_linear_velocity(NULL, s.a, vec(0, 0)),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_body_apply_force(NULL, s.a, vec(F2D_ONE, 0), vec(0, 0)),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_set_gravity(NULL, vec(0, 0)), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_world_step(NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_init_revolute_joint_def(NULL, s.a, s.b, vec(0, 0), &jd),
	                 F2D_ERROR_NULL_ARGUMENT);
	f2d_destroy_world(NULL); /* must not crash */
	ck_assert_uint_eq(f2d_world_hash(NULL), 0);
	ck_assert_ptr_nonnull(f2d_world_last_error(NULL));
	ck_assert(!f2d_body_is_valid(NULL, s.a));
	ck_assert(!f2d_shape_is_valid(NULL, s.box_a));
	ck_assert(!f2d_joint_is_valid(NULL, s.joint));
	f2d_world_get_stats(NULL, NULL);
	f2d_world_stats st;
	f2d_world_get_stats(NULL, &st);
	f2d_world_get_stats(w, NULL);
	ck_assert(body_id_eq(bid, sentinel_body));
	ck_assert(shape_id_eq(sid, sentinel_shape));
	ck_assert(joint_id_eq(jid, sentinel_joint));

	/* NULL def / out / geometry on a live world */
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_body(w, NULL, &bid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_body(w, &bd, NULL));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_polygon_shape(w, s.a, NULL, &box, &sid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_polygon_shape(w, s.a, &sd, NULL, &sid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_polygon_shape(w, s.a, &sd, &box, NULL));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	            f2d_create_circle_shape(w, s.a, NULL, &circle, &sid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_circle_shape(w, s.a, &sd, NULL, &sid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	            f2d_create_circle_shape(w, s.a, &sd, &circle, NULL));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_revolute_joint(w, NULL, &jid));
	EXPECT_FAIL(w, F2D_ERROR_NULL_ARGUMENT, f2d_create_revolute_joint(w, &jd, NULL));
	EXPECT_CONST_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	                  f2d_init_revolute_joint_def(w, s.a, s.b, vec(0, 0), NULL));
	f2d_vec2 pa, pb;
	EXPECT_CONST_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	                  f2d_joint_get_world_anchors(w, s.joint, NULL, &pb));
	EXPECT_CONST_FAIL(w, F2D_ERROR_NULL_ARGUMENT,
	                  f2d_joint_get_world_anchors(w, s.joint, &pa, NULL));
	ck_assert(body_id_eq(bid, sentinel_body));
	ck_assert(shape_id_eq(sid, sentinel_shape));
	ck_assert(joint_id_eq(jid, sentinel_joint));

	/* geometry builders */
	f2d_vec2 tri[3] = {{0, 0}, {F2D_ONE, 0}, {0, F2D_ONE}};
	ck_assert_int_eq(f2d_make_polygon(NULL, 3, &box), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_make_polygon(tri, 3, NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_make_box(F2D_ONE, F2D_ONE, NULL), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(0, 0), f2d_make_rot(0), NULL),
	                 F2D_ERROR_NULL_ARGUMENT);

	/* the world still works */
	CHECK_OK(f2d_world_step(w));
	f2d_destroy_world(w);
}
END_TEST

/* ---- world definitions ---- */

static void *dummy_alloc(size_t size, void *context)
{
	(void)context;
	return malloc(size);
}
static void dummy_free(void *p, size_t size, void *context)
{
	(void)size;
	(void)context;
	free(p);
}

static const char *const bad_world_defs[] = {
    "time_step 0",
    "time_step negative",
    "time_step > 1/10",
    "time_step 1 s",
    "time_step < 1/1000",
    "iterations 0",
    "iterations 101",
    "iterations -1",
    "joint_position_iterations -1",
    "joint_position_iterations 21",
    "bias_factor < 0",
    "bias_factor > 1",
    "allocator alloc without free",
    "allocator free without alloc",
    "gravity beyond 1000",
    "linear_slop < 0",
    "body_capacity < 0",
    "substep_count -1",
    "substep_count 9",
    "substep_count 2 with time_step 1/1000 s",
};
#define N_BAD_WORLD_DEFS ((int)(sizeof bad_world_defs / sizeof bad_world_defs[0]))

/* Applies bad_world_defs[i] to d. */
static void break_world_def(int i, f2d_world_def *d)
{
	switch (i) {
	case 0: d->time_step = 0; break;
	case 1: d->time_step = -1092; break;
	case 2: d->time_step = 6554 + 1; break;
	case 3: d->time_step = F2D_ONE; break;
	case 4: d->time_step = 64; break;
	case 5: d->iterations = 0; break;
	case 6: d->iterations = 101; break;
	case 7: d->iterations = -1; break;
	case 8: d->joint_position_iterations = -1; break;
	case 9: d->joint_position_iterations = 21; break;
	case 10: d->bias_factor = -1; break;
	case 11: d->bias_factor = F2D_ONE + 1; break;
	case 12: d->allocator.alloc = dummy_alloc, d->allocator.free = NULL; break;
	case 13: d->allocator.alloc = NULL, d->allocator.free = dummy_free; break;
	case 14: d->gravity.y = F2D_FIX(-1001); break;
	case 15: d->linear_slop = -1; break;
	case 16: d->body_capacity = -1; break;
	case 17: d->substep_count = -1; break;
	case 18: d->substep_count = 9; break;
	case 19: d->substep_count = 2; d->time_step = 129; break;
	default: ck_abort_msg("no world def case %d", i); break;
	}
}

START_TEST(test_world_def_ranges)
{
	f2d_world_def good = f2d_default_world_def();
	ck_assert_ptr_null(f2d_world_def_problem(&good));
	ck_assert_ptr_nonnull(f2d_world_def_problem(NULL));
	for (int i = 0; i < N_BAD_WORLD_DEFS; ++i) {
		f2d_world_def d = f2d_default_world_def();
		break_world_def(i, &d);
		f2d_world *w = (f2d_world *)&d; /* sentinel */
		f2d_result r = f2d_create_world(&d, &w);
		ck_assert_msg(r == F2D_ERROR_INVALID_VALUE, "world def '%s': got %d (%s)",
		              bad_world_defs[i], (int)r, f2d_error_string(r));
		ck_assert_msg(w == (f2d_world *)&d, "world def '%s': out was written on failure",
		              bad_world_defs[i]);
		const char *problem = f2d_world_def_problem(&d);
		ck_assert_msg(problem != NULL && problem[0] != '\0',
		              "world def '%s': f2d_world_def_problem gave no message",
		              bad_world_defs[i]);
	}
	/* the edges of the ranges are accepted */
	for (int i = 0; i < 10; ++i) {
		f2d_world_def d = f2d_default_world_def();
		switch (i) {
		case 8: d.substep_count = 1; break;
		case 9: d.substep_count = 8; d.time_step = 520; break; /* substeps of 65 LSB */
		case 6: d.joint_position_iterations = 0; break;
		case 7: d.joint_position_iterations = 20; break;
		case 0: d.time_step = 6554; break; /* 1/10 s rounded */
		case 1: /* just above 1/1000 s: the Gauss-Seidel solver's edge (4 substeps need 4x) */
			d.time_step = 66;
			d.substep_count = 0;
			break;
		case 2: d.iterations = 1; break;
		case 3: d.iterations = 100; break;
		case 4: d.bias_factor = 0; break;
		default:
			d.bias_factor = F2D_ONE;
			d.allocator.alloc = NULL;
			d.allocator.free = NULL;
			break;
		}
		ck_assert_msg(f2d_world_def_problem(&d) == NULL, "edge case %d: %s", i,
		              f2d_world_def_problem(&d));
		f2d_world *w = NULL;
		CHECK_OK(f2d_create_world(&d, &w));
		CHECK_OK(f2d_world_step(w));
		f2d_destroy_world(w);
	}
}
END_TEST

START_TEST(test_world_set_gravity_range)
{
	scene s = make_scene();
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_world_set_gravity(s.w, vec(F2D_FIX(1001), 0)));
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_world_set_gravity(s.w, vec(0, F2D_FIX(-1001))));
	ck_assert_int_eq(f2d_world_get_gravity(s.w).y, F2D_FIX(-10));
	f2d_destroy_world(s.w);
}
END_TEST

/* ---- bodies ---- */

START_TEST(test_bad_body_defs)
{
	scene s = make_scene();
	for (int i = 0; i < 13; ++i) {
		f2d_body_def bd = f2d_default_body_def();
		bd.type = F2D_DYNAMIC_BODY;
		const char *what = "?";
		switch (i) {
		case 0: bd.type = (f2d_body_type)7, what = "type 7"; break;
		case 1: bd.type = (f2d_body_type)-1, what = "type -1"; break;
		case 2: bd.position.x = F2D_WORLD_LIMIT + 1, what = "x beyond the limit"; break;
		case 3: bd.position.y = -F2D_WORLD_LIMIT - 1, what = "y below the limit"; break;
		case 4: bd.position.x = INT32_MIN, what = "x INT32_MIN"; break;
		case 5: bd.rotation.c = 0, bd.rotation.s = 0, what = "rotation (0, 0)"; break;
		case 6:
			bd.rotation.c = F2D_FIX(2), bd.rotation.s = 0, what = "rotation (2, 0)";
			break;
		case 7: bd.rotation.c = F2D_MILLI(700), what = "rotation (0.7, 0)"; break;
		case 8: bd.linear_velocity.x = F2D_FIX(4097), what = "vx 4097"; break;
		case 9: bd.linear_velocity.y = INT32_MIN, what = "vy INT32_MIN"; break;
		case 10: bd.angular_velocity = F2D_FIX(-5000), what = "w -5000"; break;
		case 11:
			bd.type = F2D_STATIC_BODY, bd.linear_velocity.x = INT32_MAX;
			what = "static body with vx INT32_MAX";
			break;
		default:
			bd.type = F2D_KINEMATIC_BODY, bd.angular_velocity = INT32_MAX;
			what = "kinematic body with w INT32_MAX";
			break;
		}
		f2d_body_id id = sentinel_body;
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what, f2d_create_body(s.w, &bd, &id));
		ck_assert_msg(body_id_eq(id, sentinel_body), "%s: out written on failure", what);
	}
	/* the edges are accepted */
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = vec(-F2D_WORLD_LIMIT, F2D_WORLD_LIMIT);
	bd.linear_velocity = vec(F2D_FIX(4096), F2D_FIX(-4096));
	bd.rotation = f2d_make_rot(F2D_MILLI(1000));
	f2d_body_id id;
	CHECK_OK(f2d_create_body(s.w, &bd, &id));
	ck_assert(f2d_body_is_valid(s.w, id));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_bad_body_setters)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_transform(w, s.a, vec(F2D_WORLD_LIMIT + 1, 0), f2d_make_rot(0)));
	f2d_rot zero_rot = {0, 0};
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_transform(w, s.a, vec(0, 0), zero_rot));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_linear_velocity(w, s.a, vec(F2D_FIX(4097), 0)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_linear_velocity(w, s.a, vec(0, INT32_MIN)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE, f2d_body_set_angular_velocity(w, s.a, INT32_MAX));
	f2d_destroy_world(w);
}
END_TEST

/* One rule for a state a body cannot have (fix2d.h, "Bodies"): a static body has no velocity
 * and no sleep state, a kinematic body is awake, a dynamic body sleeps only where sleeping is
 * enabled and at rest. Defs and setters that ask for another state are refused with a message
 * and change nothing; defs at their defaults are accepted. The same through the input layer. */
START_TEST(test_state_a_body_cannot_have)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	struct {
		f2d_body_type type;
		fix16_t vx, av;
		bool awake, enable_sleep;
		const char *what;
	} refused[] = {
	    {F2D_STATIC_BODY, F2D_ONE, 0, true, true, "static body with vx 1"},
	    {F2D_STATIC_BODY, 0, -1, true, true, "static body with w -1 LSB"},
	    {F2D_STATIC_BODY, 0, 0, false, true, "static body created asleep"},
	    {F2D_STATIC_BODY, 0, 0, false, false, "static body asleep, sleep disabled"},
	    {F2D_KINEMATIC_BODY, 0, 0, false, true, "kinematic body created asleep"},
	    {F2D_KINEMATIC_BODY, F2D_ONE, 0, false, true, "moving kinematic body asleep"},
	    {F2D_DYNAMIC_BODY, 0, 0, false, false, "dynamic body asleep, its sleep disabled"},
	    {F2D_DYNAMIC_BODY, F2D_ONE, 0, false, true, "dynamic body asleep with vx 1"},
	    {F2D_DYNAMIC_BODY, 0, 1, false, true, "dynamic body asleep with w 1 LSB"},
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
		f2d_body_def bd = f2d_default_body_def();
		bd.type = refused[i].type;
		bd.linear_velocity.x = refused[i].vx;
		bd.angular_velocity = refused[i].av;
		bd.awake = refused[i].awake;
		bd.enable_sleep = refused[i].enable_sleep;
		f2d_body_id id = sentinel_body;
		EXPECT_FAIL_AS(w, F2D_ERROR_INVALID_VALUE, refused[i].what,
		               f2d_create_body(w, &bd, &id));
		ck_assert_msg(body_id_eq(id, sentinel_body), "%s: out written", refused[i].what);
		/* the same def as a create-body command */
		f2d_command c = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
		c.u.create.body = bd;
		c.u.create.body.position = vec(F2D_FIX(8), F2D_FIX(3));
		f2d_command_result res;
		uint64_t h = f2d_world_hash(w);
		CHECK_OK(f2d_world_apply_commands(w, &c, 1, &res));
		ck_assert_msg(res.result == F2D_ERROR_INVALID_VALUE, "%s as a command: %s",
		              refused[i].what, f2d_error_string(res.result));
		ck_assert_uint_eq(f2d_world_hash(w), h);
	}
	/* the setters refuse a static body whatever the value, as f2d_body_set_awake does */
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_linear_velocity(w, s.ground, vec(F2D_ONE, 0)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_linear_velocity(w, s.ground, vec(0, 0)));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE, f2d_body_set_angular_velocity(w, s.ground, 1));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE, f2d_body_set_angular_velocity(w, s.ground, 0));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE, f2d_body_set_awake(w, s.ground, true));
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE, f2d_body_set_awake(w, s.ground, false));
	f2d_command c = f2d_default_command(F2D_CMD_SET_VELOCITY, 0, 0);
	c.u.velocity.body = s.ground;
	c.u.velocity.linear = vec(F2D_ONE, 0);
	f2d_command_result res;
	uint64_t h = f2d_world_hash(w);
	CHECK_OK(f2d_world_apply_commands(w, &c, 1, &res));
	ck_assert_int_eq(res.result, F2D_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(f2d_world_hash(w), h);

	/* accepted: the defaults, a moving awake kinematic body, a dynamic body created asleep at
	 * rest, a dynamic body created awake where sleep is disabled */
	const f2d_body_type types[3] = {F2D_STATIC_BODY, F2D_KINEMATIC_BODY, F2D_DYNAMIC_BODY};
	for (int t = 0; t < 3; ++t) {
		f2d_body_def bd = f2d_default_body_def();
		bd.type = types[t];
		bd.position = vec(F2D_FIX(8), F2D_FIX(3 + t));
		f2d_body_id id;
		CHECK_OK(f2d_create_body(w, &bd, &id));
		ck_assert_int_eq(f2d_body_is_awake(w, id), types[t] != F2D_STATIC_BODY);
	}
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_KINEMATIC_BODY;
	bd.linear_velocity = vec(F2D_ONE, 0);
	f2d_body_id id;
	CHECK_OK(f2d_create_body(w, &bd, &id));
	ck_assert_int_eq(f2d_body_get_linear_velocity(w, id).x, F2D_ONE);
	bd.type = F2D_DYNAMIC_BODY;
	bd.linear_velocity = vec(0, 0);
	bd.awake = false;
	CHECK_OK(f2d_create_body(w, &bd, &id));
	ck_assert(!f2d_body_is_awake(w, id));
	bd.awake = true;
	bd.enable_sleep = false;
	bd.angular_velocity = F2D_ONE;
	CHECK_OK(f2d_create_body(w, &bd, &id));
	ck_assert_int_eq(f2d_body_get_angular_velocity(w, id), F2D_ONE);
	f2d_destroy_world(w);

	/* a world without sleeping refuses bodies created asleep */
	f2d_world_def wd = f2d_default_world_def();
	wd.enable_sleep = false;
	CHECK_OK(f2d_create_world(&wd, &w));
	bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.awake = false;
	EXPECT_FAIL(w, F2D_ERROR_INVALID_VALUE, f2d_create_body(w, &bd, &id));
	f2d_destroy_world(w);
}
END_TEST

/* ---- the defaults types.h documents are the defaults ---- */

/* The "default ..." value in the doc comment of `member` in a header's text, in LSB for a
 * fix16 value (pi/N, a/b and decimals rounded to the nearest LSB) or as an integer, and the
 * second component of a vector "(x, y)" in *y. False when there is none. */
static bool documented_default(const char *text, const char *member, bool fix, int64_t *x,
                               int64_t *y)
{
	char key[64];
	snprintf(key, sizeof key, " %s;", member);
	const char *at = strstr(text, key);
	ck_assert_msg(at != NULL, "types.h has no member %s", member);
	const char *doc = strstr(at, "/**<");
	const char *end = doc != NULL ? strstr(doc, "*/") : NULL;
	const char *def = doc != NULL ? strstr(doc, "default ") : NULL;
	const char *next = strchr(at + strlen(key), ';'); /* the end of the next declaration */
	if (end == NULL || def == NULL || def > end || (next != NULL && doc > next)) {
		return false;
	}
	const char *p = def + strlen("default ");
	bool vector = *p == '(';
	p += vector ? 1 : 0;
	for (int k = 0; k < (vector ? 2 : 1); ++k) {
		double v;
		char *rest = NULL;
		if (strncmp(p, "pi/", 3) == 0) {
			v = 3.14159265358979323846 / strtod(p + 3, &rest);
		} else {
			v = strtod(p, &rest);
			if (*rest == '/') {
				v /= strtod(rest + 1, &rest);
			}
		}
		ck_assert_msg(rest != p, "%s: cannot read the default in '%.60s'", member, def);
		double scaled = fix ? v * 65536.0 : v;
		*(k == 0 ? x : y) = (int64_t)(scaled + (scaled >= 0 ? 0.5 : -0.5));
		p = rest;
		while (*p == ',' || *p == ' ') {
			++p;
		}
	}
	return true;
}

START_TEST(test_documented_defaults)
{
	FILE *f = fopen(F2D_PUBLIC_INCLUDE_DIR "/types.h", "rb");
	ck_assert_ptr_nonnull(f);
	static char text[1 << 16];
	size_t len = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	ck_assert_uint_lt(len, sizeof text - 1);
	text[len] = '\0';
	f2d_world_def wd = f2d_default_world_def();
	f2d_shape_def sd = f2d_default_shape_def();
	const struct {
		const char *member;
		bool fix;
		int64_t value, y;
	} fields[] = {
	    {"gravity", true, wd.gravity.x, wd.gravity.y},
	    {"time_step", true, wd.time_step, 0},
	    {"iterations", false, wd.iterations, 0},
	    {"joint_position_iterations", false, wd.joint_position_iterations, 0},
	    {"bias_factor", true, wd.bias_factor, 0},
	    {"linear_slop", true, wd.linear_slop, 0},
	    {"speculative_distance", true, wd.speculative_distance, 0},
	    {"restitution_threshold", true, wd.restitution_threshold, 0},
	    {"max_translation", true, wd.max_translation, 0},
	    {"max_rotation", true, wd.max_rotation, 0},
	    {"linear_sleep_tolerance", true, wd.linear_sleep_tolerance, 0},
	    {"angular_sleep_tolerance", true, wd.angular_sleep_tolerance, 0},
	    {"time_to_sleep", true, wd.time_to_sleep, 0},
	    {"substep_count", false, wd.substep_count, 0},
	    {"density", true, sd.density, 0},
	    {"friction", true, sd.friction, 0},
	    {"restitution", true, sd.restitution, 0},
	};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
		int64_t x = INT64_MIN, y = 0;
		ck_assert_msg(documented_default(text, fields[i].member, fields[i].fix, &x, &y),
		              "types.h documents no default for %s", fields[i].member);
		ck_assert_msg(x == fields[i].value && y == fields[i].y,
		              "types.h: %s defaults to %lld (%lld), the code to %lld (%lld)",
		              fields[i].member, (long long)x, (long long)y,
		              (long long)fields[i].value, (long long)fields[i].y);
	}
}
END_TEST

/* A rotation of two INT32_MIN components: |q|^2 = 2^63 does not fit in int64 (each of these
 * is its own test so that a sanitizer abort names the call). */
START_TEST(test_body_def_rotation_int32_min)
{
	scene s = make_scene();
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.rotation.c = INT32_MIN;
	bd.rotation.s = INT32_MIN;
	f2d_body_id id = sentinel_body;
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE, f2d_create_body(s.w, &bd, &id));
	ck_assert(body_id_eq(id, sentinel_body));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_set_transform_rotation_int32_min)
{
	scene s = make_scene();
	f2d_rot min_rot = {INT32_MIN, INT32_MIN};
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_body_set_transform(s.w, s.a, vec(0, 0), min_rot));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_offset_box_rotation_int32_min)
{
	f2d_rot min_rot = {INT32_MIN, INT32_MIN};
	f2d_polygon p;
	ck_assert_int_eq(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(0, 0), min_rot, &p),
	                 F2D_ERROR_INVALID_VALUE);
}
END_TEST

/* ---- geometry ---- */

START_TEST(test_bad_boxes)
{
	const fix16_t bad[] = {0,
	                       -1,
	                       F2D_FIX(-1),
	                       INT32_MIN,
	                       F2D_MIN_SHAPE_SIZE - 1,
	                       F2D_MAX_SHAPE_EXTENT + 1,
	                       F2D_FIX(513),
	                       INT32_MAX};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
		f2d_polygon p;
		f2d_result r = f2d_make_box(bad[i], F2D_ONE, &p);
		ck_assert_msg(r == F2D_ERROR_INVALID_VALUE, "make_box(hx = %d): got %d",
		              (int)bad[i], (int)r);
		r = f2d_make_box(F2D_ONE, bad[i], &p);
		ck_assert_msg(r == F2D_ERROR_INVALID_VALUE, "make_box(hy = %d): got %d",
		              (int)bad[i], (int)r);
	}
	f2d_polygon p;
	CHECK_OK(f2d_make_box(F2D_MIN_SHAPE_SIZE, F2D_MAX_SHAPE_EXTENT, &p));
	ck_assert_int_eq(p.count, 4);
	/* offset boxes: centre too far, non-unit rotations */
	f2d_rot zero_rot = {0, 0}, two_rot = {F2D_FIX(2), 0};
	ck_assert_int_eq(
	    f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(F2D_FIX(513), 0), f2d_make_rot(0), &p),
	    F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(0, 0), zero_rot, &p),
	                 F2D_ERROR_INVALID_VALUE);
	ck_assert_int_eq(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(0, 0), two_rot, &p),
	                 F2D_ERROR_INVALID_VALUE);
	/* a box whose corners leave the 512 m extent (either code describes it) */
	f2d_result r = f2d_make_offset_box(F2D_FIX(10), F2D_FIX(10), vec(F2D_FIX(505), 0),
	                                   f2d_make_rot(0), &p);
	ck_assert_msg(r == F2D_ERROR_BAD_POLYGON || r == F2D_ERROR_INVALID_VALUE,
	              "offset box beyond 512 m: got %d", (int)r);
}
END_TEST

typedef struct polygon_case {
	const char *name;
	int32_t count;
	f2d_vec2 points[10];
} polygon_case;

#define M(x) F2D_MILLI(x)
#define F(x) F2D_FIX(x)

static const polygon_case bad_polygons[] = {
    {"2 points", 2, {{0, 0}, {F(1), 0}}},
    {"0 points", 0, {{0, 0}}},
    {"negative count", -3, {{0, 0}}},
    {"9 points",
     9,
     {{F(2), 0},
      {M(1532), M(1286)},
      {M(347), M(1970)},
      {M(-1000), M(1732)},
      {M(-1879), M(684)},
      {M(-1879), M(-684)},
      {M(-1000), M(-1732)},
      {M(347), M(-1970)},
      {M(1532), M(-1286)}}},
    {"clockwise square", 4, {{0, 0}, {0, F(1)}, {F(1), F(1)}, {F(1), 0}}},
    {"clockwise triangle", 3, {{0, 0}, {0, F(1)}, {F(1), 0}}},
    {"dart (non-convex)", 4, {{0, 0}, {F(2), F(-1)}, {F(1), 0}, {F(2), F(1)}}},
    {"arrow (non-convex)",
     7,
     {{0, M(-250)},
      {F(1), M(-250)},
      {F(1), M(-750)},
      {F(2), 0},
      {F(1), M(750)},
      {F(1), M(250)},
      {0, M(250)}}},
    {"collinear middle point", 4, {{0, 0}, {F(1), 0}, {F(2), 0}, {F(1), F(1)}}},
    {"nearly collinear point (0.5 mm)", 4, {{0, 0}, {F(1), -33}, {F(2), 0}, {F(1), F(1)}}},
    {"all points collinear", 3, {{0, 0}, {F(1), 0}, {F(2), 0}}},
    {"duplicate point", 4, {{0, 0}, {F(1), 0}, {F(1), 0}, {0, F(1)}}},
    {"duplicate first/last", 4, {{0, 0}, {F(1), 0}, {0, F(1)}, {0, 0}}},
    {"edge shorter than 5 mm", 3, {{0, 0}, {M(4), 0}, {0, F(1)}}},
    {"bow-tie", 4, {{0, 0}, {F(1), 0}, {0, F(1)}, {F(1), F(1)}}},
    {"pentagram (winds twice)",
     5,
     {{0, F(1)}, {M(-588), M(-809)}, {M(951), M(309)}, {M(-951), M(309)}, {M(588), M(-809)}}},
    {"point beyond 512 m", 3, {{0, 0}, {F(513), 0}, {0, F(1)}}},
    {"point below -512 m", 3, {{0, F(-513)}, {F(1), 0}, {0, F(1)}}},
    {"INT32_MIN point", 3, {{INT32_MIN, INT32_MIN}, {F(1), 0}, {0, F(1)}}},
    {"INT32_MAX point", 3, {{0, 0}, {INT32_MAX, 0}, {0, INT32_MAX}}},
};
#define N_BAD_POLYGONS ((int)(sizeof bad_polygons / sizeof bad_polygons[0]))

START_TEST(test_bad_polygons)
{
	for (int i = 0; i < N_BAD_POLYGONS; ++i) {
		f2d_polygon p;
		memset(&p, 0x5a, sizeof p);
		f2d_result r = f2d_make_polygon(bad_polygons[i].points, bad_polygons[i].count, &p);
		ck_assert_msg(r == F2D_ERROR_BAD_POLYGON, "make_polygon '%s': got %d (%s)",
		              bad_polygons[i].name, (int)r, f2d_error_string(r));
		ck_assert_msg(p.count == 0x5a5a5a5a, "make_polygon '%s': out written on failure",
		              bad_polygons[i].name);
	}
	/* the good ones: CCW square, 8-gon, triangle at the 512 m extent */
	f2d_vec2 square[4] = {{0, 0}, {F(1), 0}, {F(1), F(1)}, {0, F(1)}};
	f2d_vec2 big[3] = {{F(-512), F(-512)}, {F(512), F(-512)}, {0, F(512)}};
	f2d_vec2 octagon[8] = {{F(2), 0},  {M(1414), M(1414)},   {0, F(2)},  {M(-1414), M(1414)},
	                       {F(-2), 0}, {M(-1414), M(-1414)}, {0, F(-2)}, {M(1414), M(-1414)}};
	f2d_polygon p;
	CHECK_OK(f2d_make_polygon(square, 4, &p));
	ck_assert_int_eq(p.count, 4);
	CHECK_OK(f2d_make_polygon(big, 3, &p));
	CHECK_OK(f2d_make_polygon(octagon, 8, &p));
	ck_assert_int_eq(p.count, 8);
}
END_TEST

START_TEST(test_hand_filled_polygons)
{
	scene s = make_scene();
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon good;
	CHECK_OK(f2d_make_box(F2D_MILLI(250), F2D_MILLI(250), &good));
	for (int i = 0; i < N_BAD_POLYGONS; ++i) {
		if (bad_polygons[i].count < 0 || bad_polygons[i].count > F2D_MAX_POLYGON_VERTICES) {
			continue;
		}
		f2d_polygon p = good;
		p.count = bad_polygons[i].count;
		for (int32_t k = 0; k < p.count; ++k) {
			p.vertices[k] = bad_polygons[i].points[k];
		}
		f2d_shape_id sid = sentinel_shape;
		EXPECT_FAIL_AS(s.w, F2D_ERROR_BAD_POLYGON, bad_polygons[i].name,
		               f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
		EXPECT_FAIL_AS(s.w, F2D_ERROR_BAD_POLYGON, bad_polygons[i].name,
		               f2d_create_polygon_shape(s.w, s.ground, &sd, &p, &sid));
		ck_assert(shape_id_eq(sid, sentinel_shape));
	}
	/* a valid box edited into a dart: vertex 2 pulled inside */
	f2d_polygon dart = good;
	dart.vertices[2] = vec(0, 0);
	f2d_shape_id sid;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON,
	            f2d_create_polygon_shape(s.w, s.a, &sd, &dart, &sid));
	/* vertex counts the struct cannot hold */
	f2d_polygon p = good;
	p.count = 9;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	p.count = INT32_MAX;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	p.count = -1;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	p.count = 2;
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	/* reversed (clockwise) copy of the good box */
	p = good;
	for (int k = 0; k < 4; ++k) {
		p.vertices[k] = good.vertices[3 - k];
	}
	EXPECT_FAIL(s.w, F2D_ERROR_BAD_POLYGON, f2d_create_polygon_shape(s.w, s.a, &sd, &p, &sid));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_bad_materials)
{
	scene s = make_scene();
	f2d_polygon box;
	CHECK_OK(f2d_make_box(F2D_MILLI(250), F2D_MILLI(250), &box));
	f2d_circle circle = {{0, 0}, F2D_MILLI(250)};
	for (int i = 0; i < 8; ++i) {
		f2d_shape_def sd = f2d_default_shape_def();
		const char *what = "?";
		switch (i) {
		case 0: sd.density = 0, what = "density 0"; break;
		case 1: sd.density = F2D_FIX(-1), what = "density -1"; break;
		case 2: sd.density = INT32_MIN, what = "density INT32_MIN"; break;
		case 3: sd.friction = -1, what = "friction -1 LSB"; break;
		case 4: sd.friction = F2D_FIX(4) + 1, what = "friction 4 + 1 LSB"; break;
		case 5: sd.restitution = -1, what = "restitution -1 LSB"; break;
		case 6: sd.restitution = F2D_ONE + 1, what = "restitution 1 + 1 LSB"; break;
		default: sd.friction = INT32_MAX, what = "friction INT32_MAX"; break;
		}
		f2d_shape_id sid = sentinel_shape;
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_polygon_shape(s.w, s.a, &sd, &box, &sid));
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_circle_shape(s.w, s.a, &sd, &circle, &sid));
		/* static bodies have no mass, but the material is still checked */
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_polygon_shape(s.w, s.ground, &sd, &box, &sid));
		ck_assert(shape_id_eq(sid, sentinel_shape));
	}
	/* the edges of the ranges are accepted */
	f2d_shape_def sd = f2d_default_shape_def();
	sd.friction = F2D_FIX(4);
	sd.restitution = F2D_ONE;
	f2d_shape_id sid;
	CHECK_OK(f2d_create_polygon_shape(s.w, s.a, &sd, &box, &sid));
	sd.friction = 0;
	sd.restitution = 0;
	CHECK_OK(f2d_create_circle_shape(s.w, s.a, &sd, &circle, &sid));
	f2d_destroy_world(s.w);
}
END_TEST

START_TEST(test_bad_circles)
{
	scene s = make_scene();
	f2d_shape_def sd = f2d_default_shape_def();
	const f2d_circle bad[] = {
	    {{0, 0}, 0},
	    {{0, 0}, F2D_FIX(-1)},
	    {{0, 0}, INT32_MIN},
	    {{0, 0}, F2D_MIN_SHAPE_SIZE - 1},
	    {{0, 0}, F2D_MAX_SHAPE_EXTENT + 1},
	    {{0, 0}, INT32_MAX},
	    {{F2D_FIX(513), 0}, F2D_ONE},
	    {{0, INT32_MIN}, F2D_ONE},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
		char what[96];
		snprintf(what, sizeof what, "circle #%zu (centre %d, %d, radius %d)", i,
		         (int)bad[i].center.x, (int)bad[i].center.y, (int)bad[i].radius);
		f2d_shape_id sid = sentinel_shape;
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_circle_shape(s.w, s.ground, &sd, &bad[i], &sid));
		EXPECT_FAIL_AS(s.w, F2D_ERROR_INVALID_VALUE, what,
		               f2d_create_circle_shape(s.w, s.a, &sd, &bad[i], &sid));
		ck_assert(shape_id_eq(sid, sentinel_shape));
	}
	/* types.h: "circle extents of any shape: within F2D_MAX_SHAPE_EXTENT of the body origin".
	 * A circle reaching 1024 m from the origin is refused even on a static body ... */
	f2d_circle huge = {{0, F2D_FIX(-600)}, F2D_MAX_SHAPE_EXTENT};
	f2d_shape_id sid;
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_create_circle_shape(s.w, s.ground, &sd, &huge, &sid));
	huge.center.y = F2D_FIX(-512);
	EXPECT_FAIL(s.w, F2D_ERROR_INVALID_VALUE,
	            f2d_create_circle_shape(s.w, s.ground, &sd, &huge, &sid));
	/* ... and one reaching exactly 512 m is fine */
	huge.center.y = F2D_FIX(-256);
	huge.radius = F2D_FIX(256);
	CHECK_OK(f2d_create_circle_shape(s.w, s.ground, &sd, &huge, &sid));
	f2d_destroy_world(s.w);
}
END_TEST

/* A shape far from the origin of a fast-spinning body moves its centre of mass so far that
 * keeping the material points' velocity (v + w x dc) would leave the fix16 range: refused with
 * the world unchanged, by the API and by a create-body command (found by fuzz_replay: signed
 * overflow before). Destroying such a shape saturates and reports. */
START_TEST(test_centre_move_velocity_range)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.angular_velocity = F2D_FIX(4096);
	f2d_body_id body;
	CHECK_OK(f2d_create_body(w, &bd, &body));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id sid = sentinel_shape;
	f2d_circle far = {{F2D_FIX(16), 0}, F2D_FIX(3)}; /* 16 m x 4096 rad/s = 65536 m/s */
	EXPECT_FAIL(w, F2D_ERROR_OUT_OF_RANGE, f2d_create_circle_shape(w, body, &sd, &far, &sid));
	f2d_circle near = {{F2D_FIX(4), 0}, F2D_FIX(1)}; /* 16384 m/s: in range */
	CHECK_OK(f2d_create_circle_shape(w, body, &sd, &near, &sid));

	f2d_command c = f2d_default_command(F2D_CMD_CREATE_BODY, 0, 0);
	c.u.create.kind = F2D_SPAWN_CIRCLE;
	c.u.create.body.type = F2D_DYNAMIC_BODY;
	c.u.create.body.angular_velocity = F2D_FIX(4096);
	c.u.create.circle = far;
	uint64_t h = f2d_world_hash(w);
	f2d_command_result res;
	f2d_world_apply_commands(w, &c, 1, &res);
	ck_assert_int_eq(res.result, F2D_ERROR_OUT_OF_RANGE);
	ck_assert_uint_eq(f2d_world_hash(w), h);
	c.u.create.circle = near;
	f2d_world_apply_commands(w, &c, 1, &res);
	ck_assert_int_eq(res.result, F2D_OK);

	/* two shapes at +-10 m, then spun up: destroying one moves the centre 10 m */
	bd.angular_velocity = 0;
	f2d_body_id two;
	CHECK_OK(f2d_create_body(w, &bd, &two));
	f2d_circle left = {{F2D_FIX(-10), 0}, F2D_ONE}, right = {{F2D_FIX(10), 0}, F2D_ONE};
	f2d_shape_id sl, sr;
	CHECK_OK(f2d_create_circle_shape(w, two, &sd, &left, &sl));
	CHECK_OK(f2d_create_circle_shape(w, two, &sd, &right, &sr));
	CHECK_OK(f2d_body_set_angular_velocity(w, two, F2D_FIX(4096)));
	ck_assert_int_eq(f2d_destroy_shape(w, sr), F2D_ERROR_OVERFLOW);
	ck_assert(!f2d_shape_is_valid(w, sr));
	f2d_vec2 v = f2d_body_get_linear_velocity(w, two);
	ck_assert(v.y == -INT32_MAX || v.y == INT32_MAX);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(test_mass_range)
{
	scene s = make_scene();
	f2d_world *w = s.w;
	/* a fresh dynamic body without shapes */
	f2d_body_id body = add_body_xy(w, F2D_DYNAMIC_BODY, F2D_FIX(10), F2D_FIX(5));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id sid = sentinel_shape;
	f2d_polygon p;

	/* 1 cm x 1 cm at density 1: 1e-4 kg < 2^-8 kg */
	CHECK_OK(f2d_make_box(F2D_MILLI(5), F2D_MILLI(5), &p));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	f2d_circle tiny = {{0, 0}, F2D_MILLI(5)};
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_circle_shape(w, body, &sd, &tiny, &sid));

	/* 32 m x 32 m at density 32: 32768 kg > 16384 kg */
	CHECK_OK(f2d_make_box(F2D_FIX(16), F2D_FIX(16), &p));
	sd.density = F2D_FIX(32);
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	/* 2 m x 2 m at the largest density: 131068 kg */
	CHECK_OK(f2d_make_box(F2D_ONE, F2D_ONE, &p));
	sd.density = F2D_FIX(32767);
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));

	/* mass in range, inertia too large: 32 m box at density 1 (1024 kg, I = 174763 kg m^2) */
	CHECK_OK(f2d_make_box(F2D_FIX(16), F2D_FIX(16), &p));
	sd.density = F2D_ONE;
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	/* mass in range, inertia too small: 5 mm circle at density 32767 (2.6 kg, 3e-5 kg m^2) */
	sd.density = F2D_FIX(32767);
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_circle_shape(w, body, &sd, &tiny, &sid));

	/* shapes farther than 32 m from the origin of a dynamic body */
	sd = f2d_default_shape_def();
	CHECK_OK(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(F2D_FIX(40), 0), f2d_make_rot(0), &p));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	CHECK_OK(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(F2D_FIX(31), 0), f2d_make_rot(0), &p));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &p, &sid));
	f2d_circle far = {{F2D_FIX(31), 0}, F2D_FIX(2)};
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_circle_shape(w, body, &sd, &far, &sid));
	/* ... also on a body that already has a shape */
	CHECK_OK(f2d_make_offset_box(F2D_ONE, F2D_ONE, vec(F2D_FIX(40), 0), f2d_make_rot(0), &p));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, s.a, &sd, &p, &sid));
	/* ... and a second shape that pushes the total over the mass limit */
	f2d_polygon heavy;
	CHECK_OK(f2d_make_box(F2D_ONE, F2D_ONE, &heavy)); /* 4 m^2 */
	sd.density = F2D_FIX(3200);                       /* 12800 kg, I = 8533 kg m^2 */
	CHECK_OK(f2d_create_polygon_shape(w, body, &sd, &heavy, &sid));
	ck_assert_int_eq(f2d_body_get_mass(w, body), F2D_FIX(12800));
	EXPECT_FAIL(w, F2D_ERROR_MASS_RANGE, f2d_create_polygon_shape(w, body, &sd, &heavy, &sid));
	ck_assert_int_eq(f2d_body_get_mass(w, body), F2D_FIX(12800));

	/* the same far / light / heavy shapes are fine on a static body (no mass) */
	sd = f2d_default_shape_def();
	CHECK_OK(f2d_create_polygon_shape(w, s.ground, &sd, &p, &sid));
	CHECK_OK(f2d_create_circle_shape(w, s.ground, &sd, &tiny, &sid));
	f2d_destroy_world(w);
}
END_TEST

/* ---- handles ---- */

/* Every body-taking call must refuse `id` with INVALID_HANDLE and leave the world unchanged. */
static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("bad input");
	tcase_add_test(tc, test_null_arguments);
	tcase_add_test(tc, test_world_def_ranges);
	tcase_add_test(tc, test_world_set_gravity_range);
	tcase_add_test(tc, test_bad_body_defs);
	tcase_add_test(tc, test_bad_body_setters);
	tcase_add_test(tc, test_state_a_body_cannot_have);
	tcase_add_test(tc, test_documented_defaults);
	tcase_add_test(tc, test_body_def_rotation_int32_min);
	tcase_add_test(tc, test_set_transform_rotation_int32_min);
	tcase_add_test(tc, test_offset_box_rotation_int32_min);
	tcase_add_test(tc, test_bad_boxes);
	tcase_add_test(tc, test_bad_polygons);
	tcase_add_test(tc, test_hand_filled_polygons);
	tcase_add_test(tc, test_bad_materials);
	tcase_add_test(tc, test_bad_circles);
	tcase_add_test(tc, test_mass_range);
	tcase_add_test(tc, test_centre_move_velocity_range);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(api_suite());
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
