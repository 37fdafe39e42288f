/* fix2d-replay: a world's state read back from its portable snapshot (fix2d/snapshot.h, the
 * documented public byte format), and the field-by-field difference of two states.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_REPLAY_STATE_H
#define FIX2D_REPLAY_STATE_H

#include "fix2d/snapshot.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct st_body {
	bool alive;
	uint32_t generation;
	int32_t type; /* f2d_body_type */
	f2d_vec2 origin;
	f2d_rot q;
	f2d_vec2 center, v;
	fix16_t w;
	f2d_vec2 force;
	fix16_t torque, mass, inertia;
	f2d_vec2 local_center;
	uint64_t user_data;
	int32_t awake, enable_sleep; /* 0 / 1 */
	fix16_t sleep_time;
	fix16_t gravity_scale, linear_damping, angular_damping; /* options (format 3) */
	int32_t fixed_rotation;
} st_body;

typedef struct st_shape {
	bool alive;
	uint32_t generation;
	int32_t body;
	fix16_t density, friction, restitution;
	int32_t polygon; /* 1 polygon, 0 circle (or a capsule-like type) */
	int32_t type;    /* f2d_shape_type: 2 capsule, 3 segment, 4 chain segment: vertices 0, 1
	                  * the centres or end points, 2, 3 a chain segment's ghosts */
	int32_t count;
	f2d_vec2 vertices[F2D_MAX_POLYGON_VERTICES];
	f2d_vec2 center; /* circle */
	fix16_t radius;
	uint64_t user_data;
	uint64_t category_bits, mask_bits; /* options (format 3) */
	int32_t group_index;
	int32_t flags; /* 1 sensor, 2 contact events, 4 hit events, 8 sensor events */
} st_shape;

typedef struct st_joint {
	bool alive;
	uint32_t generation;
	int32_t flags; /* 2 limit, 4 motor, 8 collide connected */
	int32_t body_a, body_b;
	f2d_vec2 local_a, local_b;
	fix16_t reference_angle, lower, upper, motor_speed, max_motor_torque;
	f2d_vec2 impulse;
	fix16_t motor_impulse, lower_impulse, upper_impulse;
	uint64_t user_data;
	/* the other joint types (snapshot joint flag 32): 0 revolute, else f2d_joint_type */
	int32_t type;
	f2d_vec2 axis;
	fix16_t length;
	int32_t enable_spring;
	fix16_t hertz, damping_ratio, angular_hertz, angular_damping_ratio, max_force;
	fix16_t correction_factor, spring_impulse, angular_impulse;
} st_joint;

typedef struct st_arbiter {
	int32_t shape_a, shape_b;
	fix16_t friction, restitution;
	int32_t count;
	uint32_t id[2];
	fix16_t pn[2], pt[2];
} st_arbiter;

typedef struct st_world {
	uint64_t step;
	f2d_vec2 gravity;
	fix16_t time_step;
	uint64_t out_of_range_events, overflow_events;
	int32_t body_count, shape_count, joint_count, arbiter_count; /* ids handed out; arbiters */
	st_body *bodies;
	st_shape *shapes;
	st_joint *joints;
	st_arbiter *arbiters;
	uint64_t hash; /* f2d_world_hash when read from a world, else 0 */
	fix16_t hit_event_threshold;
	int32_t substep_count;                /* 0: the Gauss-Seidel solver */
	int32_t overlap_count, pending_count; /* sensor overlaps, end events owed */
} st_world;

/** Reads a portable snapshot (validated with f2d_snapshot_check first). false with a message
 *  in err on any problem. */
bool st_parse(const uint8_t *bytes, size_t len, st_world *out, char *err, size_t err_cap);
/** The state of a live world, through its portable snapshot. */
bool st_from_world(f2d_world *world, st_world *out, char *err, size_t err_cap);
void st_free(st_world *s);

/** Prints every field that differs between a and b, first the world's, then bodies, shapes,
 *  joints and arbiters in id (key) order: value in units and raw bits of both, and the delta.
 *  At most `limit` lines (the rest counted). Returns the number of differing fields. When
 *  diverged is not NULL it receives, per body id < max(a, b) body count, 1 when any field of
 *  the body (or of one of its shapes, joints or contacts) differs (caller frees). */
long st_diff(const st_world *a, const st_world *b, FILE *out, long limit, uint8_t **diverged);

/** The two worlds' largest difference of a body: position delta (b - a) in metres and
 *  angle delta in radians, for labels. */
void st_body_delta(const st_world *a, const st_world *b, int32_t id, double *dx, double *dy,
                   double *dangle);

#endif
