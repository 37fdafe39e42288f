/* fix2d - deterministic 2D rigid-body physics in Q16.16 fixed point.
 * SPDX-License-Identifier: MIT
 *
 * The whole public API. Conventions:
 *  - every function that can fail returns f2d_result; outputs go through pointers;
 *  - on failure nothing in the world changes (the state hash is the same before and after);
 *  - f2d_world_last_error() names the failing argument of the last failed call in words.
 * No function of this header uses float or double. See fix2d/convert.h for user conversions.
 */
#ifndef FIX2D_FIX2D_H
#define FIX2D_FIX2D_H

#include "types.h"
#include "joints.h" /* distance, prismatic, weld, wheel, motor, mouse joints */

#ifdef __cplusplus
extern "C" {
#endif

#define F2D_VERSION_MAJOR 0
#define F2D_VERSION_MINOR 1
#define F2D_VERSION_PATCH 0

/* ---- Errors ---- */
const char *f2d_error_string(f2d_result result);

/** The contact solver's kernel on this CPU: "avx512" (x86-64 with AVX-512F and DQ, 8 arbiters
 *  at a time), "avx2" (4 at a time) or "scalar". All compute the same bits; this only tells
 *  which one runs. */
const char *f2d_solver_kernel(void);

/* ---- Math flavour and engine fingerprint (src/flavour.c) ----
 * fix2d computes the bits Debian's libfixmath 0~20220222 computes (fix16_mul and fix16_div
 * round half away from zero, overflow gives fix16_overflow, fix16_sqrt as that version).
 * F2D_ENGINE_FORMAT is bumped by any change that makes a step compute different bits or the
 * state hash different values (15: hash format 7, the same simulation; 16: contact recycling
 * on by default, f2d_world_def.contact_recycle_distance 0.05 m, hash format 8; 17: hash format
 * 9, an arbiter's recycled geometry hashed as a cached digest, the same simulation). */
#define F2D_ENGINE_FORMAT 17
/** F2D_OK when the linked libfixmath (and fix2d's own inline copy of its operations) give
 *  exactly the expected results on a set of probes, else F2D_ERROR_MATH_FLAVOUR.
 *  f2d_create_world refuses with F2D_ERROR_MATH_FLAVOUR when this fails. */
f2d_result f2d_check_math_flavour(void);
/** 64-bit fingerprint of F2D_ENGINE_FORMAT and the math flavour this binary computes: equal
 *  on every host that simulates identically. Store it in replays and snapshots and compare. */
uint64_t f2d_fingerprint(void);

/* ---- Math helpers (exact, integer only) ---- */
/** Rotation for an angle in radians; deterministic integer polynomial (no libfixmath trig). */
f2d_rot f2d_make_rot(fix16_t angle);
/** Angle of a rotation in (-pi, pi]; deterministic integer atan2. */
fix16_t f2d_rot_get_angle(f2d_rot q);
fix16_t f2d_atan2(fix16_t y, fix16_t x);
f2d_vec2 f2d_transform_point(f2d_transform xf, f2d_vec2 p);

/* ---- Definitions with defaults ---- */
f2d_world_def f2d_default_world_def(void);
f2d_body_def f2d_default_body_def(void);
f2d_shape_def f2d_default_shape_def(void);
f2d_revolute_joint_def f2d_default_revolute_joint_def(void);

/* ---- Geometry ---- */
/** Validates and builds a convex CCW polygon (3..8 points, no collinear neighbours,
 *  edges >= F2D_MIN_SHAPE_SIZE, all within F2D_MAX_SHAPE_EXTENT of the origin). */
f2d_result f2d_make_polygon(const f2d_vec2 *points, int32_t count, f2d_polygon *out);
/** Box centred on the body origin with half extents hx, hy. */
f2d_result f2d_make_box(fix16_t hx, fix16_t hy, f2d_polygon *out);
f2d_result f2d_make_offset_box(fix16_t hx, fix16_t hy, f2d_vec2 center, f2d_rot rotation,
                               f2d_polygon *out);

/* ---- World ---- */
/** F2D_ERROR_NULL_ARGUMENT, F2D_ERROR_INVALID_VALUE (see f2d_world_def_problem),
 *  F2D_ERROR_MATH_FLAVOUR, F2D_ERROR_OUT_OF_MEMORY; *out is written only on success. */
f2d_result f2d_create_world(const f2d_world_def *def, f2d_world **out);
/** Why f2d_create_world would refuse def, in words; NULL when def is valid. */
const char *f2d_world_def_problem(const f2d_world_def *def);
void f2d_destroy_world(f2d_world *world);
/** Advances the world by one fixed time step. Returns F2D_OK, or F2D_ERROR_OUT_OF_RANGE /
 *  F2D_ERROR_OVERFLOW when a run-time range event happened in this step (the step completed;
 *  see f2d_world_get_stats), or F2D_ERROR_OUT_OF_MEMORY when the allocator returned NULL while
 *  the step grew its arrays: the step was not taken and the world is unchanged (step again
 *  when memory is back). F2D_ERROR_NULL_ARGUMENT for a NULL world. */
f2d_result f2d_world_step(f2d_world *world);
/** 64-bit XXH3 of a canonical little-endian encoding of everything that determines the future. */
uint64_t f2d_world_hash(const f2d_world *world);
const char *f2d_world_last_error(const f2d_world *world);
void f2d_world_get_stats(const f2d_world *world, f2d_world_stats *out);
f2d_result f2d_world_set_gravity(f2d_world *world, f2d_vec2 gravity);
f2d_vec2 f2d_world_get_gravity(const f2d_world *world);
fix16_t f2d_world_get_time_step(const f2d_world *world);
/** Live bodies in id order: fills up to capacity handles, returns the total count. */
int32_t f2d_world_get_bodies(const f2d_world *world, f2d_body_id *out, int32_t capacity);
/** Turns sleeping on or off for the whole world; turning it off wakes every body. */
f2d_result f2d_world_enable_sleep(f2d_world *world, bool enable);
bool f2d_world_is_sleep_enabled(const f2d_world *world);

/* ---- Traced step: where in a step two worlds part (src/hash.c, src/world.c) ----
 * f2d_world_step_traced takes exactly the step f2d_world_step takes (same state, same result)
 * and also hashes the output of each phase, in this order. The encodings are canonical and
 * little-endian (src/hash.c), so two hosts, builds or peers can compare them: the first phase
 * whose hash differs is where the step first computed different bits. A step that moves
 * nothing (the whole world asleep) hashes the state it leaves for every phase.
 * f2d_world_step costs nothing more for this (one pointer test per phase). */
typedef enum f2d_phase {
	F2D_PHASE_PAIRS = 0,  /**< the broad phase's pair keys */
	F2D_PHASE_MANIFOLDS,  /**< arbiters after the narrow phase (and waking): points, ids */
	F2D_PHASE_VELOCITIES, /**< after the velocity solve: v, w, accumulated impulses */
	F2D_PHASE_POSITIONS,  /**< after integration and joint projection: transforms */
	F2D_PHASE_ISLANDS,    /**< after the sleep pass: awake flags, sleep timers, counts */
	F2D_PHASE_COUNT
} f2d_phase;

typedef struct f2d_phase_hashes {
	uint64_t step;                   /**< the step count after the step */
	uint64_t phase[F2D_PHASE_COUNT]; /**< XXH3-64 of each phase's output */
	uint64_t state;                  /**< f2d_world_hash after the step */
} f2d_phase_hashes;

/** f2d_world_step, and the hash of each phase's output into *out (out may be NULL). */
f2d_result f2d_world_step_traced(f2d_world *world, f2d_phase_hashes *out);
/** "pairs", "manifolds", "velocities", "positions", "islands"; NULL for other values. */
const char *f2d_phase_name(f2d_phase phase);

/* ---- Contacts, for drawing and inspection (src/contact.c) ---- */
typedef struct f2d_contact_point_data {
	f2d_vec2 point;          /**< world, m: midway between the two surfaces */
	fix16_t separation;      /**< m, negative when overlapping */
	/* accumulated over the solver's step: with the soft step (substep_count >= 1, the
	 * default) over its last substep, time_step / substep_count (as Box2D v3's) */
	fix16_t normal_impulse;  /**< accumulated, N s */
	fix16_t tangent_impulse; /**< accumulated, N s */
	uint32_t id;             /**< feature id (which edges or vertices made the point) */
} f2d_contact_point_data;

typedef struct f2d_contact_data {
	f2d_shape_id shape_a, shape_b; /**< shape_a has the lower id */
	f2d_vec2 normal;               /**< world, unit, from shape A to shape B */
	int32_t point_count;           /**< 1 or 2 */
	/** false for a pair whose bodies sleep since a snapshot was loaded: its impulses and
	 *  ids are known, its points and normal only once the bodies wake */
	bool geometry_known;
	f2d_contact_point_data points[2];
} f2d_contact_data;

/** The contacts (arbiters) of the last step, in (shape a, shape b) id order: fills up to
 *  capacity records, returns the total count. */
int32_t f2d_world_get_contacts(const f2d_world *world, f2d_contact_data *out, int32_t capacity);
/** The contacts of one body / one shape (game logic: "what am I standing on"), the same records
 *  in the same order; 0 for an invalid handle. Sensors have no contacts (see sensor events). */
int32_t f2d_body_get_contacts(const f2d_world *world, f2d_body_id body, f2d_contact_data *out,
                              int32_t capacity);
int32_t f2d_shape_get_contacts(const f2d_world *world, f2d_shape_id shape, f2d_contact_data *out,
                               int32_t capacity);

/* ---- Bodies ----
 * One rule for a state a body cannot have. A static body has no velocity and no sleep state
 * (it never moves; f2d_body_is_awake says false), a kinematic body is always awake, a dynamic
 * body sleeps only at rest and where sleeping is enabled (for the world and the body).
 * f2d_create_body refuses a def that asks for another state: a static body with a velocity or
 * awake = false, a kinematic body with awake = false, a dynamic body with awake = false where
 * it may not sleep or with a velocity. f2d_body_set_linear_velocity,
 * f2d_body_set_angular_velocity and f2d_body_set_awake refuse a static body whatever the
 * value. The refusal is F2D_ERROR_INVALID_VALUE with a message, and nothing changes; def
 * fields at their defaults (zero velocity, awake = true) ask for nothing. (Box2D v3 ignores
 * such fields and calls silently; fix2d reports them.) Forces, torques and impulses on static
 * and kinematic bodies are accepted and change nothing (infinite mass), as in Box2D. */
/** F2D_ERROR_INVALID_VALUE (a def field outside its range or the rule above),
 *  F2D_ERROR_CAPACITY (F2D_MAX_OBJECTS bodies), F2D_ERROR_OUT_OF_MEMORY. */
f2d_result f2d_create_body(f2d_world *world, const f2d_body_def *def, f2d_body_id *out);
/** Destroys the body with its shapes and joints. Their contacts and sensor overlaps end: the
 *  end events come with the next step's events. F2D_ERROR_INVALID_HANDLE,
 *  F2D_ERROR_OUT_OF_MEMORY (room for those events; nothing was destroyed). */
f2d_result f2d_destroy_body(f2d_world *world, f2d_body_id body);
bool f2d_body_is_valid(const f2d_world *world, f2d_body_id body);
f2d_body_type f2d_body_get_type(const f2d_world *world, f2d_body_id body);
f2d_vec2 f2d_body_get_position(const f2d_world *world, f2d_body_id body);
f2d_rot f2d_body_get_rotation(const f2d_world *world, f2d_body_id body);
fix16_t f2d_body_get_angle(const f2d_world *world, f2d_body_id body);
f2d_transform f2d_body_get_transform(const f2d_world *world, f2d_body_id body);
f2d_vec2 f2d_body_get_world_center(const f2d_world *world, f2d_body_id body);
f2d_vec2 f2d_body_get_linear_velocity(const f2d_world *world, f2d_body_id body);
fix16_t f2d_body_get_angular_velocity(const f2d_world *world, f2d_body_id body);
fix16_t f2d_body_get_mass(const f2d_world *world, f2d_body_id body);
fix16_t f2d_body_get_inertia(const f2d_world *world, f2d_body_id body);
uint64_t f2d_body_get_user_data(const f2d_world *world, f2d_body_id body);
f2d_result f2d_body_set_user_data(f2d_world *world, f2d_body_id body, uint64_t user_data);
f2d_result f2d_body_set_transform(f2d_world *world, f2d_body_id body, f2d_vec2 position,
                                  f2d_rot rotation);
f2d_result f2d_body_set_linear_velocity(f2d_world *world, f2d_body_id body, f2d_vec2 v);
f2d_result f2d_body_set_angular_velocity(f2d_world *world, f2d_body_id body, fix16_t w);
/** Forces and torques accumulate until the next step and are cleared by it. */
f2d_result f2d_body_apply_force(f2d_world *world, f2d_body_id body, f2d_vec2 force,
                                f2d_vec2 world_point);
f2d_result f2d_body_apply_force_to_center(f2d_world *world, f2d_body_id body, f2d_vec2 force);
f2d_result f2d_body_apply_torque(f2d_world *world, f2d_body_id body, fix16_t torque);
f2d_result f2d_body_apply_linear_impulse(f2d_world *world, f2d_body_id body, f2d_vec2 impulse,
                                         f2d_vec2 world_point);
f2d_result f2d_body_apply_angular_impulse(f2d_world *world, f2d_body_id body, fix16_t impulse);
/* Sleeping: setters, forces, impulses, transforms, joint changes and destroying a neighbour
 * wake a body (and, at the next step, its island). A sleeping body keeps zero velocity. */
bool f2d_body_is_awake(const f2d_world *world, f2d_body_id body);
/** awake = false puts the body to sleep now (velocity zeroed); it wakes again at the next step
 *  if it touches an awake body. Static bodies never sleep or wake: INVALID_VALUE for either
 *  value; so is awake = false for a kinematic body or where sleeping is disabled. */
f2d_result f2d_body_set_awake(f2d_world *world, f2d_body_id body, bool awake);
/** false keeps the body (and any island it joins) awake; true lets it sleep again. */
f2d_result f2d_body_enable_sleep(f2d_world *world, f2d_body_id body, bool enable);
bool f2d_body_is_sleep_enabled(const f2d_world *world, f2d_body_id body);
/** Changes the body's type at run time (Box2D's b2Body_SetType): the mass is recomputed for the
 *  new type, a body made static stops, the body wakes, its contacts that can no longer exist end
 *  at the next step (with end events). F2D_ERROR_INVALID_VALUE when a joint of the body would
 *  join two bodies that are not dynamic; F2D_ERROR_MASS_RANGE / F2D_ERROR_OUT_OF_RANGE when its
 *  shapes give no valid dynamic mass. */
f2d_result f2d_body_set_type(f2d_world *world, f2d_body_id body, f2d_body_type type);
/** Multiplies gravity for this body, [-16, 16] (default 1). */
f2d_result f2d_body_set_gravity_scale(f2d_world *world, f2d_body_id body, fix16_t scale);
/** Linear and angular damping, [0, 1000] 1/s (default 0; the integer form is in types.h). */
f2d_result f2d_body_set_damping(f2d_world *world, f2d_body_id body, fix16_t linear,
                                fix16_t angular);
/** A dynamic body that does not turn (its angular velocity is zeroed); INVALID_VALUE for others. */
f2d_result f2d_body_set_fixed_rotation(f2d_world *world, f2d_body_id body, bool fixed);
/** The options above (any output may be NULL; zeros for an invalid handle). */
void f2d_body_get_options(const f2d_world *world, f2d_body_id body, fix16_t *gravity_scale,
                          fix16_t *linear_damping, fix16_t *angular_damping, bool *fixed_rotation);

/* ---- Shapes ---- */
/** F2D_ERROR_INVALID_HANDLE, F2D_ERROR_BAD_POLYGON, F2D_ERROR_INVALID_VALUE (material),
 *  F2D_ERROR_MASS_RANGE, F2D_ERROR_OUT_OF_RANGE (the centre of mass would move a spinning
 *  body's velocity out of range), F2D_ERROR_CAPACITY, F2D_ERROR_OUT_OF_MEMORY. */
f2d_result f2d_create_polygon_shape(f2d_world *world, f2d_body_id body, const f2d_shape_def *def,
                                    const f2d_polygon *polygon, f2d_shape_id *out);
/** F2D_ERROR_INVALID_HANDLE, F2D_ERROR_INVALID_VALUE (radius, centre, material),
 *  F2D_ERROR_MASS_RANGE, F2D_ERROR_OUT_OF_RANGE, F2D_ERROR_CAPACITY, F2D_ERROR_OUT_OF_MEMORY
 *  (as f2d_create_polygon_shape). */
f2d_result f2d_create_circle_shape(f2d_world *world, f2d_body_id body, const f2d_shape_def *def,
                                   const f2d_circle *circle, f2d_shape_id *out);
/* ---- Capsules, segments and chains (src/shapes.c; README "Shapes") ---- */
/** F2D_ERROR_INVALID_VALUE (radius, length, extent, material) and the errors of
 *  f2d_create_polygon_shape. */
f2d_result f2d_create_capsule_shape(f2d_world *world, f2d_body_id body, const f2d_shape_def *def,
                                    const f2d_capsule *capsule, f2d_shape_id *out);
/** Static and kinematic bodies only (a segment has no area); INVALID_VALUE otherwise. */
f2d_result f2d_create_segment_shape(f2d_world *world, f2d_body_id body, const f2d_shape_def *def,
                                    const f2d_segment *segment, f2d_shape_id *out);
f2d_chain_def f2d_default_chain_def(void);
/** One F2D_CHAIN_SEGMENT_SHAPE per edge, created in edge order (count - 1 edges, count for a
 *  loop; ids handed out as by any shape creation). out_ids (may be NULL) receives them in edge
 *  order; out_capacity must then hold them all. All or nothing: on an error nothing was created.
 * Static and kinematic bodies only. F2D_ERROR_INVALID_VALUE (points, count, material),
 * INVALID_HANDLE, CAPACITY, OUT_OF_MEMORY. */
f2d_result f2d_create_chain(f2d_world *world, f2d_body_id body, const f2d_chain_def *def,
                            f2d_shape_id *out_ids, int32_t out_capacity);
/** The shape's type (F2D_CIRCLE_SHAPE for an invalid handle). */
f2d_shape_type f2d_shape_get_type(const f2d_world *world, f2d_shape_id shape);
/** The capsule of a capsule shape, the segment of a segment or chain segment shape, and a chain
 *  segment's ghost vertices (the neighbours' far points; an open chain's end has its own end
 *  point). F2D_ERROR_INVALID_HANDLE or INVALID_VALUE (another type). */
f2d_result f2d_shape_get_capsule(const f2d_world *world, f2d_shape_id shape, f2d_capsule *out);
f2d_result f2d_shape_get_segment(const f2d_world *world, f2d_shape_id shape, f2d_segment *out,
                                 f2d_vec2 *ghost1, f2d_vec2 *ghost2);

/** Its contacts and sensor overlaps end (end events with the next step's events).
 *  F2D_ERROR_INVALID_HANDLE, F2D_ERROR_OVERFLOW (see body.c), F2D_ERROR_OUT_OF_MEMORY (room for
 *  those events; nothing was destroyed). */
f2d_result f2d_destroy_shape(f2d_world *world, f2d_shape_id shape);
bool f2d_shape_is_valid(const f2d_world *world, f2d_shape_id shape);
f2d_body_id f2d_shape_get_body(const f2d_world *world, f2d_shape_id shape);
f2d_aabb f2d_shape_get_aabb(const f2d_world *world, f2d_shape_id shape);
/** category 1, mask all, group 0: collides with everything. */
f2d_filter f2d_default_filter(void);
/** Effective at the next step: contacts the new filter forbids end there (end events), new
 *  pairs begin. Any filter value is valid. */
f2d_result f2d_shape_set_filter(f2d_world *world, f2d_shape_id shape, f2d_filter filter);
f2d_filter f2d_shape_get_filter(const f2d_world *world, f2d_shape_id shape);
bool f2d_shape_is_sensor(const f2d_world *world, f2d_shape_id shape);
/** Materials: the new friction and restitution apply to contacts that begin after the call
 *  (a contact keeps the mixed values it began with, as in Box2D); the density updates the
 *  body's mass at once (MASS_RANGE / OUT_OF_RANGE as for creating a shape, nothing changed). */
f2d_result f2d_shape_set_friction(f2d_world *world, f2d_shape_id shape, fix16_t friction);
f2d_result f2d_shape_set_restitution(f2d_world *world, f2d_shape_id shape, fix16_t restitution);
f2d_result f2d_shape_set_density(f2d_world *world, f2d_shape_id shape, fix16_t density);
fix16_t f2d_shape_get_friction(const f2d_world *world, f2d_shape_id shape);
fix16_t f2d_shape_get_restitution(const f2d_world *world, f2d_shape_id shape);
fix16_t f2d_shape_get_density(const f2d_world *world, f2d_shape_id shape);

/* ---- Events (src/events.c) ----
 * After each step: contact begin/end touch and hit events, sensor begin/end events. The arrays
 * are valid until the next step, restore or load; each is in the order types.h states, and is a
 * function of the state alone: a world restored from a snapshot and stepped again reports the
 * events of the first run. A contact touches while it has a manifold point within the
 * speculative distance (Box2D v3's rule), also while its bodies sleep. Contacts and sensors see
 * the positions at the start of the step. Destroying a shape or body ends its contacts and
 * overlaps: those end events come first thing with the next step's events (the ids stale). */
void f2d_world_get_contact_events(const f2d_world *world, f2d_contact_events *out);
void f2d_world_get_sensor_events(const f2d_world *world, f2d_sensor_events *out);

/* ---- Revolute joints ---- */
/** Resets def to f2d_default_revolute_joint_def() and fills in the two bodies, the local
 *  anchors of a pin at world_anchor and the reference angle from the bodies' current
 *  rotations; set limits and motor after this call. */
f2d_result f2d_init_revolute_joint_def(const f2d_world *world, f2d_body_id a, f2d_body_id b,
                                       f2d_vec2 world_anchor, f2d_revolute_joint_def *def);
/** F2D_ERROR_INVALID_HANDLE (a body), F2D_ERROR_INVALID_VALUE (the same body twice, no
 *  dynamic body, a value out of range), F2D_ERROR_CAPACITY, F2D_ERROR_OUT_OF_MEMORY. */
f2d_result f2d_create_revolute_joint(f2d_world *world, const f2d_revolute_joint_def *def,
                                     f2d_joint_id *out);
f2d_result f2d_destroy_joint(f2d_world *world, f2d_joint_id joint);
bool f2d_joint_is_valid(const f2d_world *world, f2d_joint_id joint);
f2d_result f2d_revolute_joint_enable_motor(f2d_world *world, f2d_joint_id joint, bool enable);
f2d_result f2d_revolute_joint_set_motor_speed(f2d_world *world, f2d_joint_id joint, fix16_t speed);
f2d_result f2d_revolute_joint_set_max_motor_torque(f2d_world *world, f2d_joint_id joint,
                                                   fix16_t torque);
f2d_result f2d_revolute_joint_set_limits(f2d_world *world, f2d_joint_id joint, bool enable,
                                         fix16_t lower, fix16_t upper);
/** Current joint angle (B relative to A, minus the reference angle), rad. */
fix16_t f2d_revolute_joint_get_angle(const f2d_world *world, f2d_joint_id joint);
/** World positions of the two anchors (equal when the joint is exactly satisfied). */
f2d_result f2d_joint_get_world_anchors(const f2d_world *world, f2d_joint_id joint, f2d_vec2 *a,
                                       f2d_vec2 *b);

/* ---- Queries (src/query.c) ----
 * Exact integer geometry on the shapes' current transforms (bodies asleep or not). Results come
 * in a documented total order: overlaps (AABB, shape) by shape id; ray and shape casts by
 * fraction (the exact parameter t rounded down to 2^-32), then by shape id. All results are
 * computed before the first callback, which is then called in that order: a callback may run
 * other queries, and what it changes in the world does not change the current query's results.
 * A ray or cast whose start is inside (or on the surface of) a shape: a ray does not hit that
 * shape (Box2D v3's rule); a shape cast reports it at fraction 0 with normal (0, 0) and point =
 * the cast's start position. A zero translation: rays hit nothing, shape casts report only the
 * shapes they overlap at the start. fraction: Q16.16, t rounded half up from its 2^-32 floor.
 * Every function checks its arguments first and, on a bad argument, returns an error (with
 * f2d_world_last_error) and changes nothing. A world must not be queried from two threads at
 * once (the first query after a change builds a cache, a tree of the shapes' boxes). */
f2d_query_filter f2d_default_query_filter(void); /**< category 1, mask all: sees every shape */
/** Overlap callback: return true to go on, false to stop. */
typedef bool f2d_overlap_fcn(f2d_shape_id shape, void *context);
/** Cast callback, Box2D's b2CastResultFcn: return < 0 to ignore this hit and go on, 0 to stop,
 *  f in (0, 1) to clip (later hits with fraction > f are not reported), >= 1 to go on. */
typedef fix16_t f2d_cast_fcn(f2d_shape_id shape, f2d_vec2 point, f2d_vec2 normal, fix16_t fraction,
                             void *context);
/** Shapes whose current AABB (tight, not the step's fattened one) overlaps box (closed: touching
 *  counts), by shape id. An inverted box (lower > upper on an axis): F2D_ERROR_INVALID_VALUE. */
f2d_result f2d_world_query_aabb(f2d_world *world, f2d_aabb box, f2d_query_filter filter,
                                f2d_overlap_fcn *fcn, void *context);
/** The first shape the segment origin .. origin + translation hits (least fraction, then least
 *  shape id); out->hit false when none. Both ends within F2D_QUERY_LIMIT. */
f2d_result f2d_world_cast_ray_closest(f2d_world *world, f2d_vec2 origin, f2d_vec2 translation,
                                      f2d_query_filter filter, f2d_ray_result *out);
/** Every hit of the segment, one per shape, by fraction then shape id, to fcn. */
f2d_result f2d_world_cast_ray(f2d_world *world, f2d_vec2 origin, f2d_vec2 translation,
                              f2d_query_filter filter, f2d_cast_fcn *fcn, void *context);
/** Shapes that overlap shape placed at xf (closed sets: touching counts), by shape id. xf.q must
 *  be a unit (cos, sin) pair (within 1/64, as bodies), xf.p within F2D_QUERY_LIMIT. */
f2d_result f2d_world_overlap_shape(f2d_world *world, const f2d_query_shape *shape, f2d_transform xf,
                                   f2d_query_filter filter, f2d_overlap_fcn *fcn, void *context);
/** shape at xf swept along translation (no rotation): every shape it touches, at the fraction
 *  of first contact (exact time of impact of the two convex sets, see src/query.c), by fraction
 *  then shape id, with the contact point on the hit shape and its outward normal. */
f2d_result f2d_world_cast_shape(f2d_world *world, const f2d_query_shape *shape, f2d_transform xf,
                                f2d_vec2 translation, f2d_query_filter filter, f2d_cast_fcn *fcn,
                                void *context);
/** One shape against a ray (same rules as f2d_world_cast_ray_closest, no filter). */
f2d_result f2d_shape_ray_cast(f2d_world *world, f2d_shape_id shape, f2d_vec2 origin,
                              f2d_vec2 translation, f2d_ray_result *out);
/** Whether point is in the shape (closed: the surface counts). */
f2d_result f2d_shape_test_point(f2d_world *world, f2d_shape_id shape, f2d_vec2 point, bool *inside);
/* ---- end of Queries ---- */

#ifdef __cplusplus
}
#endif
#endif
