/* fix2d - the scene catalogue.
 * SPDX-License-Identifier: MIT
 *
 * Every scene is built through the public API only, from integer constants (F2D_FIX, F2D_MILLI)
 * and a fixed integer PRNG, so a name always builds the same world on every host. No floating
 * point. Positions are body origins; boxes are centred on their origin. Gravity and the time
 * step come from the world definition (defaults (0, -10) and 1/60).
 *
 * PRNG (documented so other engines can rebuild the "exact" scenes): xorshift32
 * (x ^= x << 13; x ^= x >> 17; x ^= x << 5) from a per-scene constant seed; a value in the
 * integer range [lo, hi] is lo + ((uint64_t)next * (hi - lo + 1) >> 32).
 *
 * With the listed masses every dynamic body has mass in [2^-8, 16384] kg and inertia in
 * [2^-14, 32767] kg m^2 (largest: the 12 m teeter plank, I = 1200; smallest: the 0.25 m
 * circles, I ~ 0.006), so no density needed adjusting.
 */
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"

#include <stdint.h>
#include <string.h>

/* Evaluates an f2d_result expression and returns it from the enclosing function on failure. */
#define TRY(expr)                                                                                  \
	do {                                                                                       \
		f2d_result try_result_ = (expr);                                                   \
		if (try_result_ != F2D_OK) {                                                       \
			return try_result_;                                                        \
		}                                                                                  \
	} while (0)

/* pi in Q16.16 (rounded). */
#define SCENE_PI ((fix16_t)205887)

typedef f2d_result (*scene_build_fn)(f2d_world *world);

typedef struct scene_entry {
	const char *name;
	const char *description;
	scene_build_fn build;
} scene_entry;

/* ---- integer helpers ---- */

/* num / den rounded half away from zero; den > 0. */
static int64_t div_round(int64_t num, int64_t den)
{
	return num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
}

/* a * b in Q16.16, rounded half away from zero. */
static fix16_t mul_fix(fix16_t a, fix16_t b)
{
	return (fix16_t)div_round((int64_t)a * b, 65536);
}

/* A point from millimetre coordinates, each exactly rounded to Q16.16. */
static f2d_vec2 vm(int32_t x_milli, int32_t y_milli)
{
	f2d_vec2 v = {F2D_MILLI(x_milli), F2D_MILLI(y_milli)};
	return v;
}

static f2d_vec2 vfix(fix16_t x, fix16_t y)
{
	f2d_vec2 v = {x, y};
	return v;
}

/* Density giving a box of half extents hx, hy the given mass: mass / (4 hx hy). */
static fix16_t box_density(fix16_t mass, fix16_t hx, fix16_t hy)
{
	return (fix16_t)div_round((int64_t)mass << 32, 4 * (int64_t)hx * hy);
}

/* Density giving a circle of the given radius the given mass: mass / (pi r^2). */
static fix16_t circle_density(fix16_t mass, fix16_t radius)
{
	int64_t area = div_round((int64_t)SCENE_PI * radius * radius, (int64_t)1 << 32);
	return (fix16_t)div_round((int64_t)mass * 65536, area);
}

/* ---- PRNG: xorshift32, state local to each build function ---- */

static uint32_t rng_next(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Uniform integer (Q16.16 value) in [lo, hi]. */
static fix16_t rng_range(uint32_t *state, fix16_t lo, fix16_t hi)
{
	uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo + 1);
	uint64_t offset = ((uint64_t)rng_next(state) * span) >> 32;
	return (fix16_t)((int64_t)lo + (int64_t)offset);
}

/* ---- building blocks ---- */

static f2d_body_def body_def(f2d_body_type type, f2d_vec2 position, fix16_t angle)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position = position;
	if (angle != 0) {
		bd.rotation = f2d_make_rot(angle);
	}
	return bd;
}

/* Shape definition with the given density and friction (restitution default). */
static f2d_shape_def shape_def(fix16_t density, fix16_t friction)
{
	f2d_shape_def sd = f2d_default_shape_def();
	sd.density = density;
	sd.friction = friction;
	return sd;
}

/* Creates a body from bd with one polygon shape; sd NULL means default shape def. */
static f2d_result add_polygon_body(f2d_world *world, const f2d_body_def *bd,
                                   const f2d_polygon *poly, const f2d_shape_def *sd,
                                   f2d_body_id *out)
{
	f2d_shape_def def = sd != NULL ? *sd : f2d_default_shape_def();
	f2d_body_id id;
	f2d_shape_id shape;
	TRY(f2d_create_body(world, bd, &id));
	TRY(f2d_create_polygon_shape(world, id, &def, poly, &shape));
	if (out != NULL) {
		*out = id;
	}
	return F2D_OK;
}

/* Creates a body from bd with one centred box shape of half extents hx, hy. */
static f2d_result add_box_body(f2d_world *world, const f2d_body_def *bd, fix16_t hx, fix16_t hy,
                               const f2d_shape_def *sd, f2d_body_id *out)
{
	f2d_polygon poly;
	TRY(f2d_make_box(hx, hy, &poly));
	return add_polygon_body(world, bd, &poly, sd, out);
}

/* Box body of the given type at position / angle. */
static f2d_result add_box(f2d_world *world, f2d_body_type type, f2d_vec2 position, fix16_t angle,
                          fix16_t hx, fix16_t hy, const f2d_shape_def *sd, f2d_body_id *out)
{
	f2d_body_def bd = body_def(type, position, angle);
	return add_box_body(world, &bd, hx, hy, sd, out);
}

/* Creates a body from bd with one circle shape centred on the origin. */
static f2d_result add_circle_body(f2d_world *world, const f2d_body_def *bd, fix16_t radius,
                                  const f2d_shape_def *sd, f2d_body_id *out)
{
	f2d_shape_def def = sd != NULL ? *sd : f2d_default_shape_def();
	f2d_circle circle = {{0, 0}, radius};
	f2d_body_id id;
	f2d_shape_id shape;
	TRY(f2d_create_body(world, bd, &id));
	TRY(f2d_create_circle_shape(world, id, &def, &circle, &shape));
	if (out != NULL) {
		*out = id;
	}
	return F2D_OK;
}

/* The standard ground: static body at (0, -0.5), box half extents 40 x 0.5 (top at y = 0). */
static f2d_result add_ground(f2d_world *world, f2d_body_id *out)
{
	return add_box(world, F2D_STATIC_BODY, vm(0, -500), 0, F2D_FIX(40), F2D_MILLI(500), NULL,
	               out);
}

/* Revolute joint between a and b at a world anchor, default settings. */
static f2d_result add_pin(f2d_world *world, f2d_body_id a, f2d_body_id b, f2d_vec2 anchor)
{
	f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
	f2d_joint_id joint;
	TRY(f2d_init_revolute_joint_def(world, a, b, anchor, &jd));
	return f2d_create_revolute_joint(world, &jd, &joint);
}

/* Regular polygon with count vertices (3..8) at distance radius from the origin, CCW. */
static f2d_result make_regular_polygon(int32_t count, fix16_t radius, f2d_polygon *out)
{
	f2d_vec2 points[F2D_MAX_POLYGON_VERTICES];
	for (int32_t k = 0; k < count; ++k) {
		fix16_t angle = (fix16_t)div_round(2 * (int64_t)SCENE_PI * k, count);
		f2d_rot q = f2d_make_rot(angle);
		points[k] = vfix(mul_fix(radius, q.c), mul_fix(radius, q.s));
	}
	return f2d_make_polygon(points, count, out);
}

/* ---- scenes ---- */

/* 1. One 1 x 1 box of mass 200 dropped from y = 4 onto the ground. */
static f2d_result build_single_box(f2d_world *world)
{
	const fix16_t h = F2D_MILLI(500);
	f2d_shape_def sd = shape_def(box_density(F2D_FIX(200), h, h), F2D_MILLI(600));
	TRY(add_ground(world, NULL));
	return add_box(world, F2D_DYNAMIC_BODY, vm(0, 4000), 0, h, h, &sd, NULL);
}

/* 2. A 1 x 1 box of mass 100 at (9, 11) swinging on a pin to the ground body at (0, 11). */
static f2d_result build_pendulum(f2d_world *world)
{
	const fix16_t h = F2D_MILLI(500);
	f2d_shape_def sd = shape_def(box_density(F2D_FIX(100), h, h), F2D_MILLI(600));
	f2d_body_id ground, box;
	TRY(add_ground(world, &ground));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(9000, 11000), 0, h, h, &sd, &box));
	return add_pin(world, ground, box, vm(0, 11000));
}

/* 3. Box2D-lite varying friction: three tilted static ramps with stoppers; five boxes of
 *    friction 0.75 .. 0 slide down (the frictionless one slides farthest). */
static f2d_result build_varying_friction(f2d_world *world)
{
	static const int32_t friction_milli[5] = {750, 500, 350, 100, 0};
	const fix16_t ramp_hx = F2D_MILLI(6500), ramp_hy = F2D_MILLI(125);
	const fix16_t stop_hx = F2D_MILLI(125), stop_hy = F2D_MILLI(500);
	const fix16_t h = F2D_MILLI(250);
	TRY(add_ground(world, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(-2000, 11000), F2D_MILLI(-250), ramp_hx, ramp_hy,
	            NULL, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(5250, 9500), 0, stop_hx, stop_hy, NULL, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(2000, 7000), F2D_MILLI(250), ramp_hx, ramp_hy, NULL,
	            NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(-5250, 5500), 0, stop_hx, stop_hy, NULL, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(-2000, 3000), F2D_MILLI(-250), ramp_hx, ramp_hy,
	            NULL, NULL));
	for (int32_t i = 0; i < 5; ++i) {
		f2d_shape_def sd =
		    shape_def(box_density(F2D_FIX(25), h, h), F2D_MILLI(friction_milli[i]));
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-7500 + 2000 * i, 14000), 0, h, h, &sd,
		            NULL));
	}
	return F2D_OK;
}

/* 4. Ten 1 x 1 boxes of mass 1 stacked with small random x offsets in [-0.1, 0.1]. */
static f2d_result build_random_stack(f2d_world *world)
{
	uint32_t rng = 0x2545F491u;
	const fix16_t h = F2D_MILLI(500);
	f2d_shape_def sd = shape_def(box_density(F2D_ONE, h, h), F2D_MILLI(600));
	TRY(add_ground(world, NULL));
	for (int32_t i = 0; i < 10; ++i) {
		fix16_t x = rng_range(&rng, F2D_MILLI(-100), F2D_MILLI(100));
		f2d_vec2 p = vfix(x, F2D_MILLI(510 + 1050 * i));
		TRY(add_box(world, F2D_DYNAMIC_BODY, p, 0, h, h, &sd, NULL));
	}
	return F2D_OK;
}

/* 5. Box2D-lite pyramid: 12 rows of 1 x 1 boxes (mass 10, friction 0.2), rows 2 m apart so they
 *    drop onto each other. All coordinates are multiples of 1/16 m, so exact in Q16.16. */
static f2d_result build_pyramid(f2d_world *world)
{
	const fix16_t sixteenth = F2D_FIX(1) / 16;
	const fix16_t h = F2D_MILLI(500);
	f2d_shape_def sd = shape_def(box_density(F2D_FIX(10), h, h), F2D_MILLI(200));
	TRY(add_ground(world, NULL));
	for (int32_t i = 0; i < 12; ++i) {
		/* x0 = (-6 + 0.5625 i, 0.75 + 2 i); y = x0 + (1.125 (j - i), 0) */
		for (int32_t j = i; j < 12; ++j) {
			f2d_vec2 p = vfix((-96 + 9 * i + 18 * (j - i)) * sixteenth,
			                  (12 + 32 * i) * sixteenth);
			TRY(add_box(world, F2D_DYNAMIC_BODY, p, 0, h, h, &sd, NULL));
		}
	}
	return F2D_OK;
}

/* 6. A 12 m plank (mass 100) pivoting on the ground at (0, 1) with two small boxes on its left
 *    end; a heavy box falls on its right end and launches them. */
static f2d_result build_teeter(f2d_world *world)
{
	const fix16_t small = F2D_MILLI(250), big = F2D_MILLI(500);
	f2d_shape_def plank_sd =
	    shape_def(box_density(F2D_FIX(100), F2D_FIX(6), F2D_MILLI(125)), F2D_MILLI(600));
	f2d_shape_def small_sd = shape_def(box_density(F2D_FIX(25), small, small), F2D_MILLI(600));
	f2d_shape_def big_sd = shape_def(box_density(F2D_FIX(100), big, big), F2D_MILLI(600));
	f2d_body_id ground, plank;
	TRY(add_ground(world, &ground));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(0, 1000), 0, F2D_FIX(6), F2D_MILLI(125), &plank_sd,
	            &plank));
	TRY(add_pin(world, ground, plank, vm(0, 1000)));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-5000, 2000), 0, small, small, &small_sd, NULL));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-5500, 2000), 0, small, small, &small_sd, NULL));
	return add_box(world, F2D_DYNAMIC_BODY, vm(5500, 15000), 0, big, big, &big_sd, NULL);
}

/* 7. Box2D-lite suspension bridge: 15 planks (mass 50, friction 0.2) pinned end to end, both
 *    ends pinned to the ground body. */
static f2d_result build_bridge(f2d_world *world)
{
	enum { PLANKS = 15 };
	const fix16_t hx = F2D_MILLI(500), hy = F2D_MILLI(125);
	f2d_shape_def sd = shape_def(box_density(F2D_FIX(50), hx, hy), F2D_MILLI(200));
	f2d_body_id ground, planks[PLANKS];
	TRY(add_ground(world, &ground));
	for (int32_t i = 0; i < PLANKS; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-8500 + 1250 * i, 5000), 0, hx, hy, &sd,
		            &planks[i]));
	}
	for (int32_t i = 0; i <= PLANKS; ++i) {
		f2d_body_id a = i == 0 ? ground : planks[i - 1];
		f2d_body_id b = i == PLANKS ? ground : planks[i];
		TRY(add_pin(world, a, b, vm(-9125 + 1250 * i, 5000)));
	}
	return F2D_OK;
}

/* 8. Domino cascade: a ball rolls into ten dominoes on a shelf; they fall onto a tilted shelf,
 *    slide towards a static post and drop onto a plank pinned to the ground at (-2, 1).
 *    The plank is tilted -0.14 rad (Box2D-lite: -0.15, which sinks its right end 2 cm into the
 *    ground at the start; at -0.14 it clears the ground by 4 cm). */
static f2d_result build_dominos(f2d_world *world)
{
	const fix16_t dx = F2D_MILLI(100), dy = F2D_FIX(1);
	const fix16_t ball_radius = F2D_MILLI(250);
	f2d_shape_def domino_sd = shape_def(box_density(F2D_FIX(10), dx, dy), F2D_MILLI(100));
	f2d_shape_def plank_sd =
	    shape_def(box_density(F2D_FIX(20), F2D_FIX(6), F2D_MILLI(125)), F2D_MILLI(600));
	f2d_shape_def ball_sd = shape_def(circle_density(F2D_FIX(10), ball_radius), F2D_MILLI(600));
	f2d_body_id ground, plank;
	TRY(add_ground(world, &ground));
	TRY(add_box(world, F2D_STATIC_BODY, vm(-1500, 10000), 0, F2D_FIX(6), F2D_MILLI(125), NULL,
	            NULL));
	for (int32_t i = 0; i < 10; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-6000 + 1000 * i, 11125), 0, dx, dy,
		            &domino_sd, NULL));
	}
	TRY(add_box(world, F2D_STATIC_BODY, vm(1000, 6000), F2D_MILLI(300), F2D_FIX(7),
	            F2D_MILLI(125), NULL, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(-7000, 4000), 0, F2D_MILLI(250), F2D_MILLI(1500),
	            NULL, NULL));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-900, 1000), F2D_MILLI(-140), F2D_FIX(6),
	            F2D_MILLI(125), &plank_sd, &plank));
	TRY(add_pin(world, ground, plank, vm(-2000, 1000)));

	f2d_body_def ball = body_def(F2D_DYNAMIC_BODY, vm(-6500, 12300), 0);
	ball.linear_velocity = vfix(F2D_ONE, 0);
	return add_circle_body(world, &ball, ball_radius, &ball_sd, NULL);
}

/* 9. A 15-link chain (links 0.75 x 0.25, mass 10, friction 0.2) pinned to the ground body at
 *    (0, 12), starting horizontal and swinging down. */
static f2d_result build_multi_pendulum(f2d_world *world)
{
	const fix16_t hx = F2D_MILLI(375), hy = F2D_MILLI(125);
	f2d_shape_def sd = shape_def(box_density(F2D_FIX(10), hx, hy), F2D_MILLI(200));
	f2d_body_id ground, prev, link;
	TRY(add_ground(world, &ground));
	prev = ground;
	for (int32_t i = 0; i < 15; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(375 + 750 * i, 12000), 0, hx, hy, &sd,
		            &link));
		TRY(add_pin(world, prev, link, vm(750 * i, 12000)));
		prev = link;
	}
	return F2D_OK;
}

/* 10. Exact cross-engine benchmark: 20 rows of 1 x 1 boxes (density 1, friction 0.6), 210 in
 *     all; row r has 20 - r boxes at pitch 1.05 centred on x = 0, y = 0.5 + r. Each x is the
 *     exactly rounded Q16.16 of (2k - n + 1) * 0.525. */
static f2d_result build_pyramid20(f2d_world *world)
{
	const fix16_t h = F2D_MILLI(500);
	f2d_shape_def sd = shape_def(F2D_ONE, F2D_MILLI(600));
	TRY(add_ground(world, NULL));
	for (int32_t r = 0; r < 20; ++r) {
		int32_t n = 20 - r;
		for (int32_t k = 0; k < n; ++k) {
			f2d_vec2 p = vm((2 * k - n + 1) * 525, 500 + 1000 * r);
			TRY(add_box(world, F2D_DYNAMIC_BODY, p, 0, h, h, &sd, NULL));
		}
	}
	return F2D_OK;
}

/* The soft step (f2d_world_def.substep_count = 4, set by f2d_scene_create when the def asks
 * for 0): pyramid20 as above; two balls (radius 0.25, density 1) dropped from y = 5 at x = -16
 * and -14 with restitution 0.5 and 0.9 (they bounce in the substep they touch); an 8-link
 * chain of 0.75 x 0.25 boxes of 10 kg pinned to a static body at (13, 12), released
 * horizontal (it swings down, the joints solved in every substep). */
static f2d_result build_soft_step(f2d_world *world)
{
	TRY(build_pyramid20(world));
	f2d_shape_def ball = shape_def(F2D_ONE, F2D_MILLI(600));
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	static const int32_t xs[2] = {-16000, -14000}, es[2] = {500, 900};
	for (int32_t i = 0; i < 2; ++i) {
		ball.restitution = F2D_MILLI(es[i]);
		bd.position = vm(xs[i], 5250);
		TRY(add_circle_body(world, &bd, F2D_MILLI(250), &ball, NULL));
	}
	const fix16_t hx = F2D_MILLI(375), hy = F2D_MILLI(125);
	f2d_shape_def sd = shape_def(box_density(F2D_FIX(10), hx, hy), F2D_MILLI(200));
	f2d_body_id prev, link;
	f2d_body_def anchor = f2d_default_body_def(); /* static, no shape */
	anchor.position = vm(13000, 12000);
	TRY(f2d_create_body(world, &anchor, &prev));
	for (int32_t i = 0; i < 8; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(13375 + 750 * i, 12000), 0, hx, hy, &sd,
		            &link));
		TRY(add_pin(world, prev, link, vm(13000 + 750 * i, 12000)));
		prev = link;
	}
	return F2D_OK;
}

/* 11. Exact cross-engine benchmark: 1000 boxes 0.5 x 0.5 (density 1) rain between two static
 *     walls. Grid 40 columns x 25 rows at pitch 0.75, odd rows shifted +0.375, lowest row at
 *     y = 4, x = (c - 19.5) 0.75; built row by row (r = 0 first), c = 0..39 within a row; each
 *     angle is rng_range([-F2D_MILLI(400), F2D_MILLI(400)]) from seed 0x9E3779B9. */
static f2d_result build_rain1000(f2d_world *world)
{
	uint32_t rng = 0x9E3779B9u;
	const fix16_t h = F2D_MILLI(250);
	f2d_shape_def sd = shape_def(F2D_ONE, F2D_MILLI(600));
	TRY(add_ground(world, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(-20500, 10000), 0, F2D_MILLI(500), F2D_FIX(10), NULL,
	            NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(20500, 10000), 0, F2D_MILLI(500), F2D_FIX(10), NULL,
	            NULL));
	for (int32_t r = 0; r < 25; ++r) {
		for (int32_t c = 0; c < 40; ++c) {
			int32_t x_milli = (2 * c - 39) * 375 + ((r & 1) != 0 ? 375 : 0);
			fix16_t angle = rng_range(&rng, -F2D_MILLI(400), F2D_MILLI(400));
			TRY(add_box(world, F2D_DYNAMIC_BODY, vm(x_milli, 4000 + 750 * r), angle, h,
			            h, &sd, NULL));
		}
	}
	return F2D_OK;
}

/* 12. Exact cross-engine benchmark: a 50-link chain (links 0.75 x 0.25, density 1) hanging from
 *     the ground body at (0, 60); link i centred at (0.5 + i, 60), pins at (i, 60). The links do
 *     not touch: each pin is 0.125 outside the ends of the links it joins (as specified). */
static f2d_result build_chain50(f2d_world *world)
{
	const fix16_t hx = F2D_MILLI(375), hy = F2D_MILLI(125);
	f2d_shape_def sd = shape_def(F2D_ONE, F2D_MILLI(600));
	f2d_body_id ground, prev, link;
	TRY(add_ground(world, &ground));
	prev = ground;
	for (int32_t i = 0; i < 50; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(500 + 1000 * i, 60000), 0, hx, hy, &sd,
		            &link));
		TRY(add_pin(world, prev, link, vfix(F2D_FIX(i), F2D_FIX(60))));
		prev = link;
	}
	return F2D_OK;
}

/* 13. Determinism stress for joints: 4 columns of 20 boxes (0.5 x 0.5, density 1) at
 *     x = -6 + 4c, y = 2 + 0.6j, all boxes of column c turned by 0.1 (c - 1.5) rad. Neighbours
 *     are hinged at their midpoint with limits [-0.5, 0.5] rad and motors (speed +1 / -1 rad/s
 *     alternating along the column, max torque 2); the bottom box of each column spins at
 *     1 rad/s. */
static f2d_result build_hinges80(f2d_world *world)
{
	const fix16_t h = F2D_MILLI(250);
	f2d_shape_def sd = shape_def(F2D_ONE, F2D_MILLI(600));
	TRY(add_ground(world, NULL));
	for (int32_t c = 0; c < 4; ++c) {
		int32_t x_milli = -6000 + 4000 * c;
		fix16_t angle = F2D_MILLI((2 * c - 3) * 50);
		f2d_body_id prev = {0, 0};
		for (int32_t j = 0; j < 20; ++j) {
			f2d_body_def bd =
			    body_def(F2D_DYNAMIC_BODY, vm(x_milli, 2000 + 600 * j), 0);
			f2d_body_id box;
			bd.rotation = f2d_make_rot(angle);
			bd.angular_velocity = j == 0 ? F2D_ONE : 0;
			TRY(add_box_body(world, &bd, h, h, &sd, &box));
			if (j > 0) {
				f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
				f2d_joint_id joint;
				TRY(f2d_init_revolute_joint_def(world, prev, box,
				                                vm(x_milli, 1700 + 600 * j), &jd));
				jd.enable_limit = true;
				jd.lower_angle = F2D_MILLI(-500);
				jd.upper_angle = F2D_MILLI(500);
				jd.enable_motor = true;
				jd.motor_speed = (j & 1) != 0 ? F2D_ONE : -F2D_ONE;
				jd.max_motor_torque = F2D_FIX(2);
				TRY(f2d_create_revolute_joint(world, &jd, &joint));
			}
			prev = box;
		}
	}
	return F2D_OK;
}

/* 14. Mixed shapes: 60 circles (radius 0.25..0.5, density 1, restitution 0.1) in a 10 x 6 grid
 *     at pitch 1.1 from (-5, 2), and 20 boxes 0.6 x 0.6 in a 10 x 2 grid from (-4.45, 10),
 *     offset half a pitch, so circle-circle, circle-polygon and polygon-polygon pairs occur. */
static f2d_result build_circles(f2d_world *world)
{
	uint32_t rng = 0x6A09E667u;
	f2d_shape_def circle_sd = shape_def(F2D_ONE, F2D_MILLI(600));
	circle_sd.restitution = F2D_MILLI(100);
	TRY(add_ground(world, NULL));
	for (int32_t r = 0; r < 6; ++r) {
		for (int32_t c = 0; c < 10; ++c) {
			fix16_t radius = rng_range(&rng, F2D_MILLI(250), F2D_MILLI(500));
			f2d_body_def bd =
			    body_def(F2D_DYNAMIC_BODY, vm(-5000 + 1100 * c, 2000 + 1100 * r), 0);
			TRY(add_circle_body(world, &bd, radius, &circle_sd, NULL));
		}
	}
	for (int32_t r = 0; r < 2; ++r) {
		for (int32_t c = 0; c < 10; ++c) {
			TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-4450 + 1100 * c, 10000 + 1100 * r),
			            0, F2D_MILLI(300), F2D_MILLI(300), NULL, NULL));
		}
	}
	return F2D_OK;
}

/* 15. Convex polygons: 60 regular polygons with 3 + (i % 6) vertices (3..8), radius 0.3..0.6 and
 *     random angle, in a 10 x 6 grid at pitch 1.4 from (-7, 2), falling onto three static
 *     triangles and two static ramps standing on the ground. */
static f2d_result build_polygons(f2d_world *world)
{
	uint32_t rng = 0xBB67AE85u;
	static const int32_t bump_x_milli[3] = {-6000, -1000, 4000};
	const f2d_vec2 bump[3] = {vm(-1500, 0), vm(1500, 0), vm(0, 1000)};
	const f2d_vec2 left_ramp[3] = {vm(0, 0), vm(3000, 0), vm(0, 2000)};
	const f2d_vec2 right_ramp[3] = {vm(-3000, 0), vm(0, 0), vm(0, 2000)};
	f2d_polygon poly;
	f2d_body_def bd;
	TRY(add_ground(world, NULL));
	TRY(f2d_make_polygon(bump, 3, &poly));
	for (int32_t i = 0; i < 3; ++i) {
		bd = body_def(F2D_STATIC_BODY, vm(bump_x_milli[i], 0), 0);
		TRY(add_polygon_body(world, &bd, &poly, NULL, NULL));
	}
	TRY(f2d_make_polygon(left_ramp, 3, &poly));
	bd = body_def(F2D_STATIC_BODY, vm(-12000, 0), 0);
	TRY(add_polygon_body(world, &bd, &poly, NULL, NULL));
	TRY(f2d_make_polygon(right_ramp, 3, &poly));
	bd = body_def(F2D_STATIC_BODY, vm(12000, 0), 0);
	TRY(add_polygon_body(world, &bd, &poly, NULL, NULL));

	for (int32_t i = 0; i < 60; ++i) {
		fix16_t radius = rng_range(&rng, F2D_MILLI(300), F2D_MILLI(600));
		fix16_t angle = rng_range(&rng, -SCENE_PI, SCENE_PI);
		TRY(make_regular_polygon(3 + i % 6, radius, &poly));
		bd = body_def(F2D_DYNAMIC_BODY, vm(-7000 + 1400 * (i % 10), 2000 + 1400 * (i / 10)),
		              angle);
		TRY(add_polygon_body(world, &bd, &poly, NULL, NULL));
	}
	return F2D_OK;
}

/* 16. Bounce test: 7 circles (radius 0.5) dropped from y = 10 with restitution 0, 1/6, .., 1, and
 *     4 boxes 1 x 1 dropped from y = 15 with restitution 0, 0.3, 0.6, 0.9. */
static f2d_result build_restitution(f2d_world *world)
{
	TRY(add_ground(world, NULL));
	for (int32_t i = 0; i < 7; ++i) {
		f2d_shape_def sd = shape_def(F2D_ONE, F2D_MILLI(600));
		f2d_body_def bd = body_def(F2D_DYNAMIC_BODY, vm(-6000 + 2000 * i, 10000), 0);
		sd.restitution = (fix16_t)div_round((int64_t)F2D_ONE * i, 6);
		TRY(add_circle_body(world, &bd, F2D_MILLI(500), &sd, NULL));
	}
	for (int32_t i = 0; i < 4; ++i) {
		f2d_shape_def sd = shape_def(F2D_ONE, F2D_MILLI(600));
		sd.restitution = F2D_MILLI(300 * i);
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-5000 + 3000 * i, 15000), 0, F2D_MILLI(500),
		            F2D_MILLI(500), &sd, NULL));
	}
	return F2D_OK;
}

/* 17. Networked arena (netdemo/): a 28 m floor between two walls; four player boxes 0.8 x 0.8
 *     (density 2, friction 0.8) at x = -9, -3, 3, 9 -- the first four dynamic bodies created,
 *     so bodies 3..6 (index1 4..7), player p = body index 3 + p; a see-saw (an 8 m plank of
 *     mass 40, pinned to the ground at (0, 1.2), limits +-0.4 rad); 36 props in 3 rows of 12 at
 *     pitch 2 m from (-11, 4): every third a circle (radius 0.2..0.4), the others boxes (half
 *     extents 0.2..0.4, angle +-0.5 rad), sizes from seed 0x510E527F. */
static f2d_result build_arena(f2d_world *world)
{
	uint32_t rng = 0x510E527Fu;
	const fix16_t ph = F2D_MILLI(400);
	f2d_shape_def player_sd = shape_def(F2D_FIX(2), F2D_MILLI(800));
	f2d_shape_def plank_sd =
	    shape_def(box_density(F2D_FIX(40), F2D_FIX(4), F2D_MILLI(125)), F2D_MILLI(600));
	f2d_shape_def prop_sd = shape_def(F2D_ONE, F2D_MILLI(500));
	f2d_body_id ground, plank;
	f2d_joint_id joint;
	TRY(add_box(world, F2D_STATIC_BODY, vm(0, -500), 0, F2D_FIX(14), F2D_MILLI(500), NULL,
	            &ground));
	TRY(add_box(world, F2D_STATIC_BODY, vm(-14500, 6000), 0, F2D_MILLI(500), F2D_MILLI(6500),
	            NULL, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(14500, 6000), 0, F2D_MILLI(500), F2D_MILLI(6500),
	            NULL, NULL));
	for (int32_t p = 0; p < 4; ++p) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-9000 + 6000 * p, 410), 0, ph, ph,
		            &player_sd, NULL));
	}
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(0, 1200), 0, F2D_FIX(4), F2D_MILLI(125), &plank_sd,
	            &plank));
	f2d_revolute_joint_def jd = f2d_default_revolute_joint_def();
	TRY(f2d_init_revolute_joint_def(world, ground, plank, vm(0, 1200), &jd));
	jd.enable_limit = true;
	jd.lower_angle = F2D_MILLI(-400);
	jd.upper_angle = F2D_MILLI(400);
	TRY(f2d_create_revolute_joint(world, &jd, &joint));
	for (int32_t r = 0; r < 3; ++r) {
		for (int32_t c = 0; c < 12; ++c) {
			f2d_vec2 p = vm(-11000 + 2000 * c, 4000 + 1500 * r);
			fix16_t size = rng_range(&rng, F2D_MILLI(200), F2D_MILLI(400));
			if (c % 3 == 2) {
				f2d_body_def bd = body_def(F2D_DYNAMIC_BODY, p, 0);
				TRY(add_circle_body(world, &bd, size, &prop_sd, NULL));
			} else {
				fix16_t hy = rng_range(&rng, F2D_MILLI(200), F2D_MILLI(400));
				fix16_t angle = rng_range(&rng, F2D_MILLI(-500), F2D_MILLI(500));
				TRY(add_box(world, F2D_DYNAMIC_BODY, p, angle, size, hy, &prop_sd,
				            NULL));
			}
		}
	}
	return F2D_OK;
}

/* 18. Large pyramids for the broad phase's scaling (the "large_*" scenes: benchmarks, run only
 *     briefly by the per-scene test loops): `rows` rows of 1 x 1 boxes (density 1, friction
 *     0.6) laid out as pyramid20 (row r has rows - r boxes at pitch 1.05 centred on x = 0,
 *     y = 0.5 + r; each x the exactly rounded Q16.16 of (2k - n + 1) * 0.525) on a static
 *     ground box 1 m thick, top at y = 0, half width 0.525 rows + 5 m. */
static f2d_result build_large_pyramid_rows(f2d_world *world, int32_t rows)
{
	const fix16_t h = F2D_MILLI(500);
	f2d_shape_def sd = shape_def(F2D_ONE, F2D_MILLI(600));
	TRY(add_box(world, F2D_STATIC_BODY, vm(0, -500), 0, F2D_MILLI(525 * rows + 5000),
	            F2D_MILLI(500), NULL, NULL));
	for (int32_t r = 0; r < rows; ++r) {
		int32_t n = rows - r;
		for (int32_t k = 0; k < n; ++k) {
			f2d_vec2 p = vm((2 * k - n + 1) * 525, 500 + 1000 * r);
			TRY(add_box(world, F2D_DYNAMIC_BODY, p, 0, h, h, &sd, NULL));
		}
	}
	return F2D_OK;
}

/* 100 rows, 5,050 boxes (Box2D's large_pyramid benchmark size) */
static f2d_result build_large_pyramid(f2d_world *world)
{
	return build_large_pyramid_rows(world, 100);
}

/* the scaling series: 45 rows (1,035 boxes), 63 (2,016), 89 (4,005), 141 (10,011) */
static f2d_result build_large_pyramid_1k(f2d_world *world)
{
	return build_large_pyramid_rows(world, 45);
}

static f2d_result build_large_pyramid_2k(f2d_world *world)
{
	return build_large_pyramid_rows(world, 63);
}

static f2d_result build_large_pyramid_4k(f2d_world *world)
{
	return build_large_pyramid_rows(world, 89);
}

static f2d_result build_large_pyramid_10k(f2d_world *world)
{
	return build_large_pyramid_rows(world, 141);
}

/* ---- joints beyond revolute (issue 14) ---- */

/* Soft bridge: 12 planks (20 kg) joined by soft weld joints (linear 8 Hz, angular 2 Hz,
 * damping 0.7) between two static towers; a 30 kg box dropped onto its middle. */
static f2d_result build_soft_bridge(f2d_world *world)
{
	enum { PLANKS = 12 };
	const fix16_t hx = F2D_MILLI(500), hy = F2D_MILLI(125);
	f2d_shape_def sd = shape_def(box_density(F2D_FIX(20), hx, hy), F2D_MILLI(600));
	f2d_body_id ground, planks[PLANKS], box;
	TRY(add_ground(world, &ground));
	for (int32_t i = 0; i < PLANKS; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-5500 + 1000 * i, 4000), 0, hx, hy, &sd,
		            &planks[i]));
	}
	for (int32_t i = 0; i <= PLANKS; ++i) {
		f2d_weld_joint_def jd = f2d_default_weld_joint_def();
		jd.body_a = i == 0 ? ground : planks[i - 1];
		jd.body_b = i == PLANKS ? ground : planks[i];
		/* the joint point (x, 4) in each body's frame (ground origin (0, -0.5)) */
		fix16_t x = F2D_MILLI(-6000 + 1000 * i);
		jd.local_anchor_a = i == 0 ? vm(-6000, 4500) : vm(500, 0);
		jd.local_anchor_b = i == PLANKS ? vfix(x, F2D_MILLI(4500)) : vm(-500, 0);
		jd.linear_hertz = F2D_FIX(8);
		jd.angular_hertz = F2D_FIX(2);
		jd.linear_damping_ratio = F2D_MILLI(700);
		jd.angular_damping_ratio = F2D_MILLI(700);
		f2d_joint_id j;
		TRY(f2d_create_weld_joint(world, &jd, &j));
	}
	f2d_shape_def bs =
	    shape_def(box_density(F2D_FIX(30), F2D_MILLI(400), F2D_MILLI(400)), F2D_MILLI(600));
	return add_box(world, F2D_DYNAMIC_BODY, vm(200, 7000), 0, F2D_MILLI(400), F2D_MILLI(400),
	               &bs, &box);
}

/* Elevator: a 3 x 0.25 platform (50 kg) on a vertical prismatic joint with limits [0, 6] m and
 * a motor (speed 1.5 m/s, 2000 N), three boxes riding on it; the motor drives into the upper
 * limit and holds there. */
static f2d_result build_elevator(f2d_world *world)
{
	f2d_body_id ground, platform, box;
	TRY(add_ground(world, &ground));
	f2d_shape_def ps =
	    shape_def(box_density(F2D_FIX(50), F2D_MILLI(1500), F2D_MILLI(125)), F2D_MILLI(800));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(0, 1000), 0, F2D_MILLI(1500), F2D_MILLI(125), &ps,
	            &platform));
	f2d_prismatic_joint_def jd = f2d_default_prismatic_joint_def();
	jd.body_a = ground;
	jd.body_b = platform;
	jd.local_anchor_a = vm(0, 1500);
	jd.local_axis_a = vm(0, 1000);
	jd.enable_limit = true;
	jd.lower_translation = 0;
	jd.upper_translation = F2D_FIX(6);
	jd.enable_motor = true;
	jd.motor_speed = F2D_MILLI(1500);
	jd.max_motor_force = F2D_FIX(2000);
	f2d_joint_id j;
	TRY(f2d_create_prismatic_joint(world, &jd, &j));
	f2d_shape_def bs = shape_def(F2D_FIX(5), F2D_MILLI(800));
	for (int32_t i = 0; i < 3; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-1000 + 1000 * i, 1625 + 300 * i), 0,
		            F2D_MILLI(250), F2D_MILLI(250), &bs, &box));
	}
	return F2D_OK;
}

/* A car: a 5 kg chassis (2 x 0.5 m box, friction 0.6) centred at (x, y) mm on two 1 kg wheels
 * (radius 0.4 m, friction 0.9) 0.7 m either side and 0.45 m below, on wheel joints (vertical
 * axis, 4 Hz, damping 0.7, motors at speed rad/s, 20 N m); chassis, then each wheel and its
 * joint, rear first. */
static f2d_result add_car(f2d_world *world, int32_t x, int32_t y, fix16_t speed)
{
	f2d_body_id chassis, wheel;
	f2d_shape_def cs = shape_def(F2D_FIX(5), F2D_MILLI(600));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(x, y), 0, F2D_FIX(1), F2D_MILLI(250), &cs,
	            &chassis));
	f2d_shape_def ws = shape_def(F2D_MILLI(1989), F2D_MILLI(900));
	for (int32_t i = 0; i < 2; ++i) {
		int32_t dx = i == 0 ? -700 : 700;
		f2d_body_def wd = body_def(F2D_DYNAMIC_BODY, vm(x + dx, y - 450), 0);
		TRY(add_circle_body(world, &wd, F2D_MILLI(400), &ws, &wheel));
		f2d_wheel_joint_def jd = f2d_default_wheel_joint_def();
		jd.body_a = chassis;
		jd.body_b = wheel;
		jd.local_anchor_a = vm(dx, -450);
		jd.hertz = F2D_FIX(4);
		jd.damping_ratio = F2D_MILLI(700);
		jd.enable_motor = true;
		jd.motor_speed = speed;
		jd.max_motor_torque = F2D_FIX(20);
		f2d_joint_id j;
		TRY(f2d_create_wheel_joint(world, &jd, &j));
	}
	return F2D_OK;
}

/* Car on a slope: a flat static strip, a 15 degree ramp and a plateau made of static polygons;
 * a 5 kg chassis on two 1 kg wheels (wheel joints: vertical axis, 4 Hz, damping 0.7, motors
 * -10 rad/s, 20 N m) drives up it. */
static f2d_result build_car_slope(f2d_world *world)
{
	f2d_body_id ground;
	f2d_body_def gd = body_def(F2D_STATIC_BODY, vm(0, 0), 0);
	TRY(f2d_create_body(world, &gd, &ground));
	f2d_shape_def gs = shape_def(F2D_ONE, F2D_MILLI(900));
	const f2d_vec2 flat[4] = {vm(-30000, -1000), vm(0, -1000), vm(0, 0), vm(-30000, 0)};
	const f2d_vec2 ramp[4] = {vm(0, -1000), vm(20000, -1000), vm(20000, 5359), vm(0, 0)};
	const f2d_vec2 top[4] = {vm(20000, -1000), vm(40000, -1000), vm(40000, 5359),
	                         vm(20000, 5359)};
	const f2d_vec2 *parts[3] = {flat, ramp, top};
	for (int32_t i = 0; i < 3; ++i) {
		f2d_polygon poly;
		f2d_shape_id s;
		TRY(f2d_make_polygon(parts[i], 4, &poly));
		TRY(f2d_create_polygon_shape(world, ground, &gs, &poly, &s));
	}
	return add_car(world, -10000, 1000, F2D_FIX(-10));
}

/* Ragdoll of boxes: torso and head welded (soft angular 4 Hz), arms and legs on revolute
 * joints with limits, dropped from 6 m onto the ground; a second one at x = 3 falls on a
 * distance-joint tether (rope: spring mode, no stiffness, max length 3 m) to (3, 10). */
static f2d_result build_ragdoll(f2d_world *world)
{
	f2d_body_id ground, anchor;
	TRY(add_ground(world, &ground));
	f2d_body_def ad = body_def(F2D_STATIC_BODY, vm(3000, 10000), 0);
	TRY(f2d_create_body(world, &ad, &anchor));
	f2d_shape_def sd = shape_def(F2D_FIX(3), F2D_MILLI(600));
	for (int32_t k = 0; k < 2; ++k) {
		int32_t ox = 3000 * k, oy = 6000;
		f2d_body_id torso, head, part;
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(ox, oy), 0, F2D_MILLI(250), F2D_MILLI(450),
		            &sd, &torso));
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(ox, oy + 700), 0, F2D_MILLI(180),
		            F2D_MILLI(180), &sd, &head));
		f2d_weld_joint_def wd = f2d_default_weld_joint_def();
		wd.body_a = torso;
		wd.body_b = head;
		wd.local_anchor_a = vm(0, 520);
		wd.local_anchor_b = vm(0, -180);
		wd.angular_hertz = F2D_FIX(4);
		wd.angular_damping_ratio = F2D_MILLI(500);
		f2d_joint_id j;
		TRY(f2d_create_weld_joint(world, &wd, &j));
		/* limbs: (x, y) of the limb centre relative to the torso, joint at its top */
		static const int32_t limb[4][2] = {
		    {-400, 150}, {400, 150}, {-150, -900}, {150, -900}};
		for (int32_t i = 0; i < 4; ++i) {
			TRY(add_box(world, F2D_DYNAMIC_BODY, vm(ox + limb[i][0], oy + limb[i][1]),
			            0, F2D_MILLI(100), F2D_MILLI(350), &sd, &part));
			f2d_revolute_joint_def rd;
			TRY(f2d_init_revolute_joint_def(
			    world, torso, part, vm(ox + limb[i][0], oy + limb[i][1] + 300), &rd));
			rd.enable_limit = true;
			rd.lower_angle = F2D_MILLI(-1200);
			rd.upper_angle = F2D_MILLI(1200);
			TRY(f2d_create_revolute_joint(world, &rd, &j));
		}
		if (k == 1) {
			f2d_distance_joint_def dd = f2d_default_distance_joint_def();
			dd.body_a = anchor;
			dd.body_b = head;
			dd.length = F2D_FIX(3);
			dd.enable_spring = true; /* hertz 0: no spring, the rope's limits only */
			dd.enable_limit = true;
			dd.min_length = 0;
			dd.max_length = F2D_FIX(3);
			TRY(f2d_create_distance_joint(world, &dd, &j));
		}
	}
	return F2D_OK;
}

/* ---- game scenes (issue 12): sensors, filters, one-way platforms, a field for ray casts ----
 * They use every game feature, so that the golden chains and the matrix's event and query
 * digest (fix2d-replay run --events) cover them on every cell. */

/* Filter categories of the game scenes. */
#define CAT_GROUND 1u
#define CAT_RED 2u
#define CAT_BLUE 4u
#define CAT_NEUTRAL 8u
#define CAT_FLAP 16u
#define CAT_LEDGE 32u

static f2d_filter make_filter(uint64_t category, uint64_t mask, int32_t group)
{
	f2d_filter f;
	f.category_bits = category;
	f.mask_bits = mask;
	f.group_index = group;
	return f;
}

/* A static body at the origin carrying one sensor box (half extents hx, hy, centre c). */
static f2d_result add_sensor_box(f2d_world *world, f2d_body_id body, fix16_t hx, fix16_t hy,
                                 f2d_vec2 c)
{
	f2d_polygon poly;
	f2d_shape_id s;
	f2d_shape_def sd = f2d_default_shape_def();
	sd.is_sensor = true;
	TRY(f2d_make_offset_box(hx, hy, c, f2d_make_rot(0), &poly));
	return f2d_create_polygon_shape(world, body, &sd, &poly, &s);
}

/* Sensor gates: one static body carries three sensor bands (6 x 0.5 m) across a drop column at
 * y = 9, 6 and 3, and a sensor pad (4 x 1 m) on the ground at x in [4, 8]. Twelve bodies
 * (boxes and circles, 1 kg, hit events on) fall through the three bands (a sensor begin and a
 * sensor end per band and body, no impulse) onto the ground; one of them (the first circle) has
 * enable_sensor_events off: the bands never report it. Three boxes land in the pad, rest and
 * fall asleep inside it: a sleeping visitor stays inside (no end event). A kinematic body with
 * a 0.5 x 2 m sensor box sweeps right at 0.75 m/s along the ground from x = -10 through the
 * pile (a moving sensor over resting bodies), and a dynamic box carries a 1.2 m sensor circle
 * (an aura, density 0.05) and lands at x = -6 between two boxes that it then reports. */
static f2d_result build_sensor_gates(f2d_world *world)
{
	const fix16_t h = F2D_MILLI(250);
	f2d_body_id ground, gates, body;
	f2d_shape_id s;
	TRY(add_ground(world, &ground));
	f2d_body_def gd = body_def(F2D_STATIC_BODY, vm(0, 0), 0);
	TRY(f2d_create_body(world, &gd, &gates));
	for (int32_t i = 0; i < 3; ++i) {
		TRY(add_sensor_box(world, gates, F2D_FIX(3), h, vm(0, 3000 + 3000 * i)));
	}
	TRY(add_sensor_box(world, gates, F2D_FIX(2), F2D_MILLI(500), vm(6000, 500)));
	f2d_shape_def sd = shape_def(box_density(F2D_ONE, h, h), F2D_MILLI(600));
	sd.enable_hit_events = true;
	f2d_shape_def cd = shape_def(circle_density(F2D_ONE, h), F2D_MILLI(600));
	cd.enable_hit_events = true;
	for (int32_t r = 0; r < 3; ++r) {
		for (int32_t c = 0; c < 4; ++c) {
			f2d_body_def bd =
			    body_def(F2D_DYNAMIC_BODY, vm(-2250 + 1500 * c, 12000 + 1200 * r), 0);
			if (((r + c) & 1) != 0) {
				f2d_shape_def quiet = cd;
				quiet.enable_sensor_events = r != 0 || c != 1;
				TRY(add_circle_body(world, &bd, h, &quiet, NULL));
			} else {
				bd.rotation = f2d_make_rot(F2D_MILLI(100 * c - 150));
				TRY(add_box_body(world, &bd, h, h, &sd, NULL));
			}
		}
	}
	for (int32_t i = 0; i < 3; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(4800 + 1200 * i, 1500 + 500 * i), 0, h, h,
		            &sd, NULL));
	}
	/* the kinematic sweeper */
	f2d_body_def kd = body_def(F2D_KINEMATIC_BODY, vm(-10000, 1000), 0);
	kd.linear_velocity = vm(750, 0);
	TRY(f2d_create_body(world, &kd, &body));
	TRY(add_sensor_box(world, body, h, F2D_FIX(1), vm(0, 0)));
	/* the aura: a solid box with a sensor circle around it, and its two neighbours */
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-6000, 5000), 0, h, h, &sd, &body));
	f2d_shape_def aura = f2d_default_shape_def();
	aura.is_sensor = true;
	aura.density = F2D_MILLI(50);
	f2d_circle ring = {{0, 0}, F2D_MILLI(1200)};
	TRY(f2d_create_circle_shape(world, body, &aura, &ring, &s));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-7200, 2000), 0, h, h, &sd, NULL));
	return add_box(world, F2D_DYNAMIC_BODY, vm(-4500, 3000), 0, h, h, &sd, NULL);
}

/* Filtered teams: red shapes (category 2, mask all but red) and blue ones (category 4, mask
 * all but blue) never touch their own team and always touch the other one and the ground
 * (category 1, mask all). Columns of 1 x 1 boxes (1 kg): four reds at x = -8 fall through each
 * other and lie superimposed on the ground; red, blue, red, blue at x = -4 stack; three reds
 * of group +3 at x = 0 stack (a shared positive group always collides, whatever the masks);
 * red and blue of group -4 at x = 4 fall through each other (a shared negative group never
 * collides). A neutral box (category 8, mask all) at x = 8 under a red one: they collide (both
 * masks allow it). Two bullets (circles, hit events on) cross the field at 8 m/s: a red one
 * from the left (through the reds, into the first blue) and a blue one from the right. */
static f2d_result build_filtered_teams(f2d_world *world)
{
	const fix16_t h = F2D_MILLI(500);
	const uint64_t all = ~(uint64_t)0;
	const f2d_filter red = make_filter(CAT_RED, all & ~(uint64_t)CAT_RED, 0);
	const f2d_filter blue = make_filter(CAT_BLUE, all & ~(uint64_t)CAT_BLUE, 0);
	f2d_shape_def sd = shape_def(box_density(F2D_ONE, h, h), F2D_MILLI(600));
	sd.enable_hit_events = true;
	TRY(add_ground(world, NULL));
	for (int32_t k = 0; k < 4; ++k) {
		sd.filter = red;
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-8000 + 100 * k, 600 + 1500 * k), 0, h, h,
		            &sd, NULL));
		sd.filter = (k & 1) != 0 ? blue : red;
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-4000, 510 + 1050 * k), 0, h, h, &sd,
		            NULL));
	}
	for (int32_t k = 0; k < 3; ++k) {
		sd.filter = red;
		sd.filter.group_index = 3;
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(0, 510 + 1050 * k), 0, h, h, &sd, NULL));
	}
	for (int32_t k = 0; k < 4; ++k) {
		sd.filter = (k & 1) != 0 ? blue : red;
		sd.filter.group_index = -4;
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(4000 + 150 * k, 600 + 1300 * k), 0, h, h,
		            &sd, NULL));
	}
	sd.filter = make_filter(CAT_NEUTRAL, all, 0);
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(8000, 510), 0, h, h, &sd, NULL));
	sd.filter = red;
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(8000, 1700), 0, h, h, &sd, NULL));
	const fix16_t r = F2D_MILLI(250);
	f2d_shape_def bullet = shape_def(circle_density(F2D_FIX(2), r), F2D_MILLI(300));
	bullet.enable_hit_events = true;
	bullet.filter = red;
	f2d_body_def bd = body_def(F2D_DYNAMIC_BODY, vm(-14000, 1200), 0);
	bd.linear_velocity = vm(8000, 2000);
	TRY(add_circle_body(world, &bd, r, &bullet, NULL));
	bullet.filter = blue;
	bd = body_def(F2D_DYNAMIC_BODY, vm(14000, 1400), 0);
	bd.linear_velocity = vm(-8000, 2000);
	return add_circle_body(world, &bd, r, &bullet, NULL);
}

/* One-way platforms, two ways, both static configuration (a scene is a pure builder):
 *  1. Trapdoor flaps: a platform at y = 4 from x = -4 to 4 made of four 2 x 0.2 m flaps (2 kg),
 *     each pinned to the ground body at its left end with a revolute limit [0, 1.4] rad. From
 *     below, a body pushes a flap up (positive angle, free) and passes; from above, its weight
 *     turns the flap down against the lower limit (0: level), which holds. The flaps are in
 *     category 16 with a mask without 16, so neighbouring flaps never touch each other. Four
 *     balls are launched up at 12 m/s from y = 1.5 under the flaps (they pass, fall back and
 *     land on the closed flaps, between two static posts at the platform's ends); two boxes
 *     dropped from y = 22 and 23 (once the flaps have closed again) land on them.
 *  2. A ledge only some bodies see: a static box at y = 2, x in [6, 10], in category 32. Bodies
 *     whose mask has bit 32 land on it; "climbers" (mask without 32) go through it both ways: a
 *     climber launched up through it from the ground and one dropped through it from y = 6.
 * Hit events are on for the flaps and the balls. */
static f2d_result build_one_way(f2d_world *world)
{
	const uint64_t all = ~(uint64_t)0;
	f2d_body_id ground, flap;
	TRY(add_ground(world, &ground));
	f2d_shape_def fd =
	    shape_def(box_density(F2D_MILLI(500), F2D_ONE, F2D_MILLI(100)), F2D_MILLI(600));
	fd.filter = make_filter(CAT_FLAP, all & ~(uint64_t)CAT_FLAP, 0);
	fd.enable_hit_events = true;
	for (int32_t i = 0; i < 4; ++i) {
		TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-3000 + 2000 * i, 4000), 0, F2D_ONE,
		            F2D_MILLI(100), &fd, &flap));
		f2d_revolute_joint_def jd;
		f2d_joint_id j;
		TRY(f2d_init_revolute_joint_def(world, ground, flap, vm(-4000 + 2000 * i, 4000),
		                                &jd));
		jd.enable_limit = true;
		jd.lower_angle = 0;
		jd.upper_angle = F2D_MILLI(1400);
		TRY(f2d_create_revolute_joint(world, &jd, &j));
	}
	const fix16_t r = F2D_MILLI(250);
	f2d_shape_def ball = shape_def(circle_density(F2D_FIX(2), r), F2D_MILLI(600));
	ball.enable_hit_events = true;
	for (int32_t i = 0; i < 4; ++i) {
		f2d_body_def bd = body_def(F2D_DYNAMIC_BODY, vm(-2400 + 2000 * i, 1500), 0);
		bd.linear_velocity = vm(0, 12000);
		TRY(add_circle_body(world, &bd, r, &ball, NULL));
	}
	const fix16_t h = F2D_MILLI(300);
	f2d_shape_def box = shape_def(box_density(F2D_FIX(2), h, h), F2D_MILLI(600));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(-1200, 22000), 0, h, h, &box, NULL));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(800, 23000), 0, h, h, &box, NULL));
	/* posts at the platform's ends keep what lands on it there */
	TRY(add_box(world, F2D_STATIC_BODY, vm(-4300, 4900), 0, F2D_MILLI(200), F2D_MILLI(700),
	            NULL, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(4300, 4900), 0, F2D_MILLI(200), F2D_MILLI(700), NULL,
	            NULL));
	/* the ledge */
	f2d_shape_def ld = f2d_default_shape_def();
	ld.filter = make_filter(CAT_LEDGE, all, 0);
	TRY(add_box(world, F2D_STATIC_BODY, vm(8000, 2000), 0, F2D_FIX(2), F2D_MILLI(150), &ld,
	            NULL));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(7000, 5000), 0, h, h, &box, NULL));
	f2d_shape_def climber = box;
	climber.filter = make_filter(CAT_GROUND, all & ~(uint64_t)CAT_LEDGE, 0);
	f2d_body_def cd = body_def(F2D_DYNAMIC_BODY, vm(8500, 300), 0);
	cd.linear_velocity = vm(0, 9000);
	TRY(add_box_body(world, &cd, h, h, &climber, NULL));
	return add_box(world, F2D_DYNAMIC_BODY, vm(9500, 6000), 0, h, h, &climber, NULL);
}

/* A field for ray casts: between walls at x = +-12, 6 rows of 7 static pegs (x = -9 + 3c, +1.5
 * on odd rows, y = 3 + 2r) alternating 0.3 m circles and 0.6 x 0.3 m boxes turned 0.6 rad;
 * every fifth peg is a sensor (rays and overlap queries skip it), every third peg is in
 * category 2 (a query filter with mask 2 sees only those). 24 dynamic bodies (circles and
 * regular polygons of 3..8 vertices, 0.35 m, density 1, restitution 0.3, positions and turns
 * from xorshift32 seed 0x5EED1234) drop from y = 16..20 through the pegs. */
static f2d_result build_ray_field(f2d_world *world)
{
	uint32_t rng = 0x5EED1234u;
	TRY(add_ground(world, NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(-12500, 10000), 0, F2D_MILLI(500), F2D_FIX(10), NULL,
	            NULL));
	TRY(add_box(world, F2D_STATIC_BODY, vm(12500, 10000), 0, F2D_MILLI(500), F2D_FIX(10), NULL,
	            NULL));
	f2d_body_id pegs;
	f2d_body_def pd = body_def(F2D_STATIC_BODY, vm(0, 0), 0);
	TRY(f2d_create_body(world, &pd, &pegs));
	int32_t k = 0;
	for (int32_t r = 0; r < 6; ++r) {
		for (int32_t c = 0; c < 7; ++c, ++k) {
			f2d_vec2 p =
			    vm(-9000 + 3000 * c + ((r & 1) != 0 ? 1500 : 0), 3000 + 2000 * r);
			f2d_shape_def sd = f2d_default_shape_def();
			sd.is_sensor = k % 5 == 4;
			if (k % 3 == 2) {
				sd.filter.category_bits = CAT_RED;
			}
			f2d_shape_id s;
			if ((k & 1) == 0) {
				f2d_circle circle = {p, F2D_MILLI(300)};
				TRY(f2d_create_circle_shape(world, pegs, &sd, &circle, &s));
			} else {
				f2d_polygon poly;
				TRY(f2d_make_offset_box(F2D_MILLI(300), F2D_MILLI(150), p,
				                        f2d_make_rot(F2D_MILLI(600)), &poly));
				TRY(f2d_create_polygon_shape(world, pegs, &sd, &poly, &s));
			}
		}
	}
	f2d_shape_def dd = shape_def(F2D_ONE, F2D_MILLI(400));
	dd.restitution = F2D_MILLI(300);
	for (int32_t i = 0; i < 24; ++i) {
		fix16_t x = rng_range(&rng, F2D_FIX(-11), F2D_FIX(11));
		fix16_t y = rng_range(&rng, F2D_FIX(16), F2D_FIX(20));
		fix16_t angle = rng_range(&rng, -F2D_MILLI(1500), F2D_MILLI(1500));
		f2d_body_def bd = body_def(F2D_DYNAMIC_BODY, vfix(x, y), angle);
		int32_t sides = 2 + i % 7; /* 2: a circle, 3..8: a regular polygon */
		if (sides == 2) {
			TRY(add_circle_body(world, &bd, F2D_MILLI(350), &dd, NULL));
		} else {
			f2d_polygon poly;
			TRY(make_regular_polygon(sides, F2D_MILLI(350), &poly));
			TRY(add_polygon_body(world, &bd, &poly, &dd, NULL));
		}
	}
	return F2D_OK;
}

/* Capsule body: a capsule from (x1, y1) to (x2, y2) (mm, world) of radius r (mm), its body
 * origin at the midpoint. */
static f2d_result add_capsule_body(f2d_world *world, int32_t x1, int32_t y1, int32_t x2, int32_t y2,
                                   int32_t r, const f2d_shape_def *sd, f2d_body_id *out)
{
	int32_t mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
	f2d_body_def bd = body_def(F2D_DYNAMIC_BODY, vm(mx, my), 0);
	f2d_capsule cap = {vm(x1 - mx, y1 - my), vm(x2 - mx, y2 - my), F2D_MILLI(r)};
	f2d_shape_id shape;
	TRY(f2d_create_body(world, &bd, out));
	return f2d_create_capsule_shape(world, *out, sd, &cap, &shape);
}

/* Capsule ragdolls: a capsule torso, a circle head, upper and lower arms and legs as capsules,
 * every limb on a revolute joint with limits (elbows and knees bend one way), three of them
 * dropped from 4, 7 and 10 m onto the ground and a static capsule bar, plus a pile of loose
 * capsules. */
static f2d_result build_capsule_ragdolls(f2d_world *world)
{
	f2d_body_id ground, bar;
	TRY(add_ground(world, &ground));
	f2d_body_def bard = body_def(F2D_STATIC_BODY, vm(1500, 2000), F2D_MILLI(200));
	TRY(f2d_create_body(world, &bard, &bar));
	f2d_capsule barcap = {vm(-2000, 0), vm(2000, 0), F2D_MILLI(150)};
	f2d_shape_def bsd = shape_def(F2D_ONE, F2D_MILLI(600));
	f2d_shape_id shape;
	TRY(f2d_create_capsule_shape(world, bar, &bsd, &barcap, &shape));
	f2d_shape_def sd = shape_def(F2D_FIX(2), F2D_MILLI(600));
	for (int32_t k = 0; k < 3; ++k) {
		int32_t ox = -3000 + 3000 * k, oy = 4000 + 3000 * k;
		f2d_body_id torso, head, upper, lower;
		TRY(add_capsule_body(world, ox, oy - 350, ox, oy + 350, 220, &sd, &torso));
		f2d_body_def hd = body_def(F2D_DYNAMIC_BODY, vm(ox, oy + 850), 0);
		TRY(add_circle_body(world, &hd, F2D_MILLI(200), &sd, &head));
		f2d_revolute_joint_def rd;
		f2d_joint_id j;
		TRY(f2d_init_revolute_joint_def(world, torso, head, vm(ox, oy + 620), &rd));
		rd.enable_limit = true;
		rd.lower_angle = -F2D_MILLI(400);
		rd.upper_angle = F2D_MILLI(400);
		TRY(f2d_create_revolute_joint(world, &rd, &j));
		/* arms from the shoulders (+-0.3, +0.45), legs from the hips (+-0.12, -0.5);
		 * each limb: upper and lower capsule along -y */
		static const int32_t root[4][2] = {
		    {-300, 450}, {300, 450}, {-120, -500}, {120, -500}};
		static const int32_t len[4] = {550, 550, 700, 700};
		for (int32_t i = 0; i < 4; ++i) {
			int32_t x = ox + root[i][0], y = oy + root[i][1], l = len[i];
			TRY(add_capsule_body(world, x, y - 100, x, y - l + 100, 100, &sd, &upper));
			TRY(f2d_init_revolute_joint_def(world, torso, upper, vm(x, y), &rd));
			rd.enable_limit = true;
			rd.lower_angle = i < 2 ? -F2D_MILLI(2500) : -F2D_MILLI(1200);
			rd.upper_angle = i < 2 ? F2D_MILLI(2500) : F2D_MILLI(1200);
			TRY(f2d_create_revolute_joint(world, &rd, &j));
			TRY(add_capsule_body(world, x, y - l - 100, x, y - 2 * l + 100, 90, &sd,
			                     &lower));
			TRY(f2d_init_revolute_joint_def(world, upper, lower, vm(x, y - l), &rd));
			rd.enable_limit = true;
			rd.lower_angle = i < 2 ? 0 : -F2D_MILLI(2200);
			rd.upper_angle = i < 2 ? F2D_MILLI(2200) : 0;
			TRY(f2d_create_revolute_joint(world, &rd, &j));
		}
	}
	/* loose capsules falling on the bar and each other */
	for (int32_t i = 0; i < 10; ++i) {
		int32_t x = 200 + 350 * i, y = 5000 + 700 * (i % 4);
		f2d_body_id b;
		TRY(add_capsule_body(world, x - 300, y - 60 * (i % 3), x + 300, y + 60 * (i % 3),
		                     120 + 20 * (i % 3), &sd, &b));
	}
	return F2D_OK;
}

/* chain_terrain's statics: the terrain chain on a static body at the origin, then the rock */
static f2d_result terrain_chains(f2d_world *world)
{
	f2d_body_id ground;
	f2d_body_def gd = body_def(F2D_STATIC_BODY, vm(0, 0), 0);
	TRY(f2d_create_body(world, &gd, &ground));
	static const int32_t hills[30] = {0,   150, 400, 700,  900,  950,  800,  500,  300,  200,
	                                  250, 450, 800, 1200, 1500, 1600, 1450, 1100, 700,  400,
	                                  200, 100, 50,  100,  300,  600,  900,  1100, 1200, 1250};
	f2d_vec2 pts[51];
	int32_t n = 0;
	for (int32_t i = 29; i >= 0; --i) { /* x = 60 .. 2 */
		pts[n++] = vm(2000 * (i + 1), hills[i]);
	}
	for (int32_t i = 0; i <= 20; ++i) { /* x = 0 .. -40 */
		pts[n++] = vm(-2000 * i, 0);
	}
	f2d_chain_def cd = f2d_default_chain_def();
	cd.points = pts;
	cd.count = n;
	cd.friction = F2D_MILLI(800);
	TRY(f2d_create_chain(world, ground, &cd, NULL, 0));
	/* a rock: a counter-clockwise loop, solid inside */
	f2d_body_id rock;
	f2d_body_def rd = body_def(F2D_STATIC_BODY, vm(44000, 1400), 0);
	TRY(f2d_create_body(world, &rd, &rock));
	const f2d_vec2 loop[5] = {vm(-800, -200), vm(600, -300), vm(900, 200), vm(0, 500),
	                          vm(-900, 200)};
	cd.points = loop;
	cd.count = 5;
	cd.loop = true;
	return f2d_create_chain(world, rock, &cd, NULL, 0);
}

/* Chain terrain (one chain, listed right to left so its solid side is below): flat 2 m
 * edges from x = -40 to 0, then rolling hills to x = 60; a box sliding at 8 m/s across the flat
 * edges' vertices (friction 0.1), a car on wheel joints driving over the hills, boxes and
 * capsules dropped on them, and a static loop chain (a rock) the car meets. */
static f2d_result build_chain_terrain(f2d_world *world)
{
	TRY(terrain_chains(world));
	/* the slider: starts on the flat part at 8 m/s, crosses ten vertices */
	f2d_shape_def slick = shape_def(F2D_ONE, F2D_MILLI(100));
	f2d_body_def sd = body_def(F2D_DYNAMIC_BODY, vm(-38000, 500), 0);
	sd.linear_velocity = vm(8000, 0);
	f2d_body_id slider;
	TRY(add_box_body(world, &sd, F2D_MILLI(500), F2D_MILLI(500), &slick, &slider));

	/* the car (car_slope's), at x = 4 */
	TRY(add_car(world, 4000, 1600, F2D_FIX(-8)));
	/* boxes and capsules dropped on the hills */
	f2d_shape_def bs = shape_def(F2D_ONE, F2D_MILLI(600));
	for (int32_t i = 0; i < 8; ++i) {
		int32_t x = 14000 + 4500 * i, y = 4000 + 500 * (i % 3);
		f2d_body_id b;
		if (i % 2 == 0) {
			TRY(add_box(world, F2D_DYNAMIC_BODY, vm(x, y), F2D_MILLI(150 * i),
			            F2D_MILLI(400), F2D_MILLI(300), &bs, &b));
		} else {
			TRY(add_capsule_body(world, x - 400, y, x + 400, y + 100, 250, &bs, &b));
		}
	}
	return F2D_OK;
}

/* ---- catalogue ---- */

/* Revolute joints at the far end of their range (issue 11), where the effective-mass inverse
 * needs 128-bit integers: a 0.2 m circle (density 1) on a 7 m arm, a 0.5 m circle on a 41 m
 * arm, a 1.2 m box (density 1) on a 60 m arm, each starting level with its pivot, and a hub:
 * a 2 x 2 box pinned to the world with 24 small boxes pinned to it 6 to 40 m out, every third
 * with a motor, every fourth with limits. */
static f2d_result build_long_arms(f2d_world *world)
{
	f2d_body_id ground, bob;
	TRY(add_ground(world, &ground));
	f2d_shape_def sd = shape_def(F2D_ONE, F2D_MILLI(600));
	f2d_body_def bd = body_def(F2D_DYNAMIC_BODY, vm(-93000, 30000), 0);
	TRY(add_circle_body(world, &bd, F2D_MILLI(200), &sd, &bob));
	TRY(add_pin(world, ground, bob, vm(-100000, 30000)));
	bd = body_def(F2D_DYNAMIC_BODY, vm(1000, 70000), 0);
	TRY(add_circle_body(world, &bd, F2D_MILLI(500), &sd, &bob));
	TRY(add_pin(world, ground, bob, vm(-40000, 70000)));
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(160000, 90000), 0, F2D_MILLI(600), F2D_MILLI(600),
	            &sd, &bob));
	TRY(add_pin(world, ground, bob, vm(100000, 90000)));
	f2d_body_id hub, spoke;
	TRY(add_box(world, F2D_DYNAMIC_BODY, vm(250000, 60000), 0, F2D_ONE, F2D_ONE, &sd, &hub));
	TRY(add_pin(world, ground, hub, vm(250000, 60000)));
	for (int32_t i = 0; i < 24; ++i) {
		int32_t dx = (i % 2 == 0 ? 1 : -1) * (6000 + 1500 * i);
		f2d_vec2 p = vm(250000 + dx, 60000 + 250 * (i % 5));
		TRY(add_box(world, F2D_DYNAMIC_BODY, p, 0, F2D_MILLI(250), F2D_MILLI(250), &sd,
		            &spoke));
		f2d_revolute_joint_def jd;
		f2d_joint_id joint;
		TRY(f2d_init_revolute_joint_def(world, hub, spoke, p, &jd));
		jd.enable_motor = i % 3 == 0;
		jd.motor_speed = F2D_FIX(2);
		jd.max_motor_torque = F2D_FIX(50);
		jd.enable_limit = i % 4 == 0;
		jd.lower_angle = -F2D_MILLI(250);
		jd.upper_angle = F2D_MILLI(250);
		TRY(f2d_create_revolute_joint(world, &jd, &joint));
	}
	return F2D_OK;
}

/* A scene whose name ends in "_gs" is the Gauss-Seidel solver's (substep_count 0, whatever
 * the def asks: the default is the soft step): pyramid_gs and
 * ragdoll_gs are pyramid and ragdoll (a stack's contacts; revolute limits, a weld, a distance
 * rope), so that both solvers are in the golden chains and every matrix cell. */
static bool gauss_seidel_scene(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, "_gs") == 0;
}

static const scene_entry scene_table[] = {
    {"single_box", "one 1x1 box (mass 200) dropped onto the ground", build_single_box},
    {"pendulum", "a 1x1 box (mass 100) on a pin at (0, 11)", build_pendulum},
    {"varying_friction", "five boxes, friction 0.75..0, sliding down ramps",
     build_varying_friction},
    {"random_stack", "ten 1x1 boxes stacked with random x offsets", build_random_stack},
    {"pyramid", "Box2D-lite pyramid: 12 rows, 78 boxes dropped row on row", build_pyramid},
    {"teeter", "a pinned plank launched by a falling box", build_teeter},
    {"bridge", "15 planks pinned into a bridge", build_bridge},
    {"dominos", "ball, ten dominoes, shelves and a pinned plank: a cascade", build_dominos},
    {"multi_pendulum", "a 15-link chain pinned at (0, 12)", build_multi_pendulum},
    {"pyramid20", "exact: 20-row pyramid of 210 1x1 boxes at pitch 1.05", build_pyramid20},
    {"rain1000", "exact: 1000 0.5x0.5 boxes rain between two walls", build_rain1000},
    {"chain50", "exact: 50-link chain pinned at (0, 60)", build_chain50},
    {"hinges80", "80 boxes in 4 columns, hinged with limits and motors", build_hinges80},
    {"circles", "60 circles and 20 boxes: all shape pairs", build_circles},
    {"polygons", "60 regular polygons (3..8 vertices) onto static triangles", build_polygons},
    {"restitution", "circles and boxes bouncing with restitution 0..1", build_restitution},
    {"arena", "netdemo arena: 4 players, 36 props, a pinned see-saw", build_arena},
    {"long_arms", "pendulums on 7, 41 and 60 m arms and a hub with 24 spokes", build_long_arms},
    {"soft_bridge", "12 planks joined by soft weld joints, a box dropped on it", build_soft_bridge},
    {"elevator", "a platform on a prismatic joint driven up by its motor, with boxes",
     build_elevator},
    {"car_slope", "a car on wheel joints drives up a 15 degree ramp of static polygons",
     build_car_slope},
    {"ragdoll", "box ragdolls: revolute limbs, welded heads, one on a distance rope",
     build_ragdoll},
    {"sensor_gates", "boxes fall through static sensor gates; moving, dynamic and sleeping sensors",
     build_sensor_gates},
    {"filtered_teams", "red and blue teams by category, mask and groups; bullets cross them",
     build_filtered_teams},
    {"one_way", "one-way platforms: hinged trapdoor flaps and a ledge only some bodies see",
     build_one_way},
    {"ray_field", "a field of static pegs (some sensors, some filtered) and falling shapes",
     build_ray_field},
    {"capsule_ragdolls", "capsule ragdolls on revolute joints, a capsule bar, loose capsules",
     build_capsule_ragdolls},
    {"chain_terrain", "a car and a sliding box on chain terrain, boxes and capsules dropped",
     build_chain_terrain},
    {"soft_step", "the soft step (4 substeps): pyramid20, two bouncing balls, an 8-link chain",
     build_soft_step},
    {"pyramid_gs", "pyramid with the Gauss-Seidel solver (substep_count 0)", build_pyramid},
    {"ragdoll_gs", "ragdoll with the Gauss-Seidel solver (substep_count 0)", build_ragdoll},
    {"large_pyramid", "benchmark: 100-row pyramid of 5,050 1x1 boxes", build_large_pyramid},
    {"large_pyramid_1k", "benchmark: 45-row pyramid, 1,035 boxes", build_large_pyramid_1k},
    {"large_pyramid_2k", "benchmark: 63-row pyramid, 2,016 boxes", build_large_pyramid_2k},
    {"large_pyramid_4k", "benchmark: 89-row pyramid, 4,005 boxes", build_large_pyramid_4k},
    {"large_pyramid_10k", "benchmark: 141-row pyramid, 10,011 boxes", build_large_pyramid_10k},
};

#define SCENE_COUNT ((int32_t)(sizeof scene_table / sizeof scene_table[0]))

int32_t f2d_scene_count(void)
{
	return SCENE_COUNT;
}

const char *f2d_scene_name(int32_t index)
{
	return index >= 0 && index < SCENE_COUNT ? scene_table[index].name : NULL;
}

const char *f2d_scene_description(int32_t index)
{
	return index >= 0 && index < SCENE_COUNT ? scene_table[index].description : NULL;
}

int32_t f2d_scene_find(const char *name)
{
	if (name == NULL) {
		return -1;
	}
	for (int32_t i = 0; i < SCENE_COUNT; ++i) {
		if (strcmp(scene_table[i].name, name) == 0) {
			return i;
		}
	}
	return -1;
}

f2d_result f2d_scene_create(const char *name, const f2d_world_def *def, f2d_world **out)
{
	if (name == NULL || out == NULL) {
		return F2D_ERROR_NULL_ARGUMENT;
	}
	int32_t index = f2d_scene_find(name);
	if (index < 0) {
		return F2D_ERROR_INVALID_VALUE;
	}
	f2d_world_def d = def != NULL ? *def : f2d_default_world_def();
	if (scene_table[index].build == build_soft_step && d.substep_count == 0) {
		d.substep_count = 4; /* the scene is the soft step's */
	} else if (gauss_seidel_scene(name)) {
		d.substep_count = 0; /* the scene is the Gauss-Seidel solver's */
	}
	f2d_world *world = NULL;
	f2d_result result = f2d_create_world(&d, &world);
	if (result != F2D_OK) {
		return result;
	}
	result = scene_table[index].build(world);
	if (result != F2D_OK) {
		f2d_destroy_world(world);
		return result;
	}
	*out = world;
	return F2D_OK;
}
