/* fix2d install test: a consumer that only sees the installed headers and library.
 * Drops a box on the ground for 2 s and prints the final state hash.
 * SPDX-License-Identifier: MIT
 */
#include <fix2d/fix2d.h>

#include <stdio.h>
#include <stdlib.h>

static int failures;

static void expect_ok(f2d_result result, const char *what)
{
	if (result != F2D_OK) {
		fprintf(stderr, "consumer: %s failed: %s\n", what, f2d_error_string(result));
		failures++;
	}
}

int main(void)
{
	f2d_world_def world_def = f2d_default_world_def();
	f2d_world *world = NULL;
	expect_ok(f2d_create_world(&world_def, &world), "f2d_create_world");
	if (world == NULL) {
		return EXIT_FAILURE;
	}
	f2d_shape_def shape_def = f2d_default_shape_def();

	f2d_body_def ground_def = f2d_default_body_def();
	ground_def.position.y = F2D_MILLI(-500);
	f2d_body_id ground;
	expect_ok(f2d_create_body(world, &ground_def, &ground), "f2d_create_body(ground)");
	f2d_polygon ground_box;
	expect_ok(f2d_make_box(F2D_FIX(40), F2D_MILLI(500), &ground_box), "f2d_make_box(ground)");
	f2d_shape_id ground_shape;
	expect_ok(f2d_create_polygon_shape(world, ground, &shape_def, &ground_box, &ground_shape),
	          "f2d_create_polygon_shape(ground)");

	f2d_body_def box_def = f2d_default_body_def();
	box_def.type = F2D_DYNAMIC_BODY;
	box_def.position.y = F2D_FIX(4);
	f2d_body_id box;
	expect_ok(f2d_create_body(world, &box_def, &box), "f2d_create_body(box)");
	f2d_polygon box_polygon;
	expect_ok(f2d_make_box(F2D_MILLI(500), F2D_MILLI(500), &box_polygon), "f2d_make_box(box)");
	f2d_shape_id box_shape;
	expect_ok(f2d_create_polygon_shape(world, box, &shape_def, &box_polygon, &box_shape),
	          "f2d_create_polygon_shape(box)");

	for (int i = 0; i < 120; ++i) {
		expect_ok(f2d_world_step(world), "f2d_world_step");
	}

	f2d_vec2 p = f2d_body_get_position(world, box);
	f2d_vec2 v = f2d_body_get_linear_velocity(world, box);
	/* Resting on the ground: centre half a metre above y = 0, and (nearly) still. */
	if (p.y < F2D_MILLI(300) || p.y > F2D_MILLI(700)) {
		fprintf(stderr, "consumer: box y = %ld/65536 m, want 0.3..0.7\n", (long)p.y);
		failures++;
	}
	if (p.x < F2D_MILLI(-100) || p.x > F2D_MILLI(100)) {
		fprintf(stderr, "consumer: box x = %ld/65536 m, want -0.1..0.1\n", (long)p.x);
		failures++;
	}
	if (v.x < F2D_MILLI(-100) || v.x > F2D_MILLI(100) || v.y < F2D_MILLI(-100) ||
	    v.y > F2D_MILLI(100)) {
		fprintf(stderr, "consumer: box still moving: v = (%ld, %ld)/65536 m/s\n", (long)v.x,
		        (long)v.y);
		failures++;
	}

	printf("%016llx\n", (unsigned long long)f2d_world_hash(world));
	f2d_destroy_world(world);
	return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
