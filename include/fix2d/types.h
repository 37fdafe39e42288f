/* fix2d - deterministic 2D rigid-body physics in Q16.16 fixed point.
 * SPDX-License-Identifier: MIT
 *
 * Value types, handles, definition structs and result codes. Every number that
 * feeds the simulation is a fix16_t (Q16.16, from libfixmath): 1.0 == 65536.
 */
#ifndef FIX2D_TYPES_H
#define FIX2D_TYPES_H

#include <libfixmath/fix16.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exact Q16.16 constants without floating point: F2D_FIX(3) == 3.0,
 * F2D_MILLI(-1250) == -1.25 (rounded half away from zero to the nearest LSB). */
#define F2D_FIX(i) ((fix16_t)((int32_t)(i)*65536))
#define F2D_MILLI(m) ((fix16_t)(((int64_t)(m)*65536 + ((m) >= 0 ? 500 : -500)) / 1000))
#define F2D_ONE ((fix16_t)65536)

/* ---- Valid ranges (see README "Units and valid ranges") ---- */
/** Bodies must stay within |x|,|y| <= F2D_WORLD_LIMIT metres. */
#define F2D_WORLD_LIMIT F2D_FIX(8192)
/** Polygon vertices and circle extents of any shape: within this distance of the body origin. */
#define F2D_MAX_SHAPE_EXTENT F2D_FIX(512)
/** Shapes of dynamic bodies: vertices within this distance of the body origin. */
#define F2D_MAX_DYNAMIC_SHAPE_EXTENT F2D_FIX(32)
/** Smallest edge of a polygon, smallest circle radius, smallest box half extent. */
#define F2D_MIN_SHAPE_SIZE F2D_MILLI(5)
/** Dynamic body mass range in kg: [2^-8, 2^14]. */
#define F2D_MIN_MASS ((fix16_t)(1 << 8))
#define F2D_MAX_MASS F2D_FIX(16384)
/** Dynamic body rotational inertia about its centre of mass, kg m^2: [2^-14, 32767]. */
#define F2D_MIN_INERTIA ((fix16_t)(1 << 2))
#define F2D_MAX_INERTIA F2D_FIX(32767)
/** A revolute joint is created only while 1/m_a + r_a^2/I_a + 1/m_b + r_b^2/I_b <= 32768, with
 *  r the anchor's distance from each body's centre of mass (1/kg, Q16 in 64 bits): below an
 *  effective mass of 2^-15 kg at the anchor, fix16 cannot resolve the joint's impulses (a light
 *  body on a long arm; README "Units and valid ranges"). */
#define F2D_JOINT_MAX_TRACE ((int64_t)32768 << 16)
/** Polygons have 3 to 8 vertices. */
#define F2D_MAX_POLYGON_VERTICES 8
/** Upper bound on bodies, shapes and joints per world. */
#define F2D_MAX_OBJECTS (1 << 20)

/* ---- Math value types ---- */
typedef struct f2d_vec2 {
	fix16_t x, y;
} f2d_vec2;

/** A rotation stored as its cosine/sine pair (unit length, renormalised every step). */
typedef struct f2d_rot {
	fix16_t c, s;
} f2d_rot;

typedef struct f2d_transform {
	f2d_vec2 p;
	f2d_rot q;
} f2d_transform;

typedef struct f2d_aabb {
	f2d_vec2 lower, upper;
} f2d_aabb;

/* ---- Results ---- */
typedef enum f2d_result {
	F2D_OK = 0,
	F2D_ERROR_NULL_ARGUMENT,  /**< a required pointer was NULL */
	F2D_ERROR_INVALID_HANDLE, /**< null, stale (destroyed) or foreign handle */
	F2D_ERROR_INVALID_VALUE,  /**< a value outside its documented range */
	F2D_ERROR_BAD_POLYGON,    /**< not convex, not CCW, degenerate, or wrong vertex count */
	F2D_ERROR_MASS_RANGE,     /**< mass or inertia of a dynamic body outside the valid range */
	F2D_ERROR_OUT_OF_MEMORY,  /**< the allocator returned NULL */
	F2D_ERROR_CAPACITY,       /**< more than F2D_MAX_OBJECTS bodies, shapes or joints */
	F2D_ERROR_OUT_OF_RANGE, /**< step: a body left the valid world range (it was stopped at the
	                           edge) */
	F2D_ERROR_OVERFLOW,     /**< step: an impulse saturated instead of overflowing */
	F2D_ERROR_MATH_FLAVOUR, /**< the linked libfixmath computes other bits than fix2d needs
	                           (f2d_check_math_flavour) */
	F2D_ERROR_COUNT
} f2d_result;

/* ---- Handles: by value, with a generation; a destroyed object's handle is rejected ---- */
typedef struct f2d_body_id {
	int32_t index1; /**< index + 1; 0 is the null handle */
	uint32_t generation;
} f2d_body_id;

typedef struct f2d_shape_id {
	int32_t index1;
	uint32_t generation;
} f2d_shape_id;

typedef struct f2d_joint_id {
	int32_t index1;
	uint32_t generation;
} f2d_joint_id;

/* ---- Allocator: every allocation a world makes goes through this ---- */
typedef struct f2d_allocator {
	void *(*alloc)(size_t size, void *context);
	void (*free)(void *memory, size_t size, void *context);
	void *context;
} f2d_allocator;

/* ---- World ---- */
typedef struct f2d_world f2d_world;

typedef struct f2d_world_def {
	f2d_vec2 gravity;   /**< m/s^2, default (0, -10) */
	fix16_t time_step;  /**< seconds, default 1/60 (1092 LSB); range [1/1000, 1/10] and
	                       time_step / substep_count >= 1/1000 s (4/1000 with 4 substeps) */
	int32_t iterations; /**< velocity iterations per step, default 10; range [1, 100]; the
	                       Gauss-Seidel solver's (substep_count 0) only */
	int32_t joint_position_iterations; /**< most joint position projection passes, default 4;
	                                      [0, 20] */
	fix16_t bias_factor;               /**< Baumgarte factor beta, default 0.2; range [0, 1] */
	fix16_t linear_slop;          /**< allowed penetration in m, default 0.01; range [0, 0.5] */
	fix16_t speculative_distance; /**< contacts are kept up to this gap in m, default 0.04 */
	fix16_t restitution_threshold; /**< approach speed in m/s above which restitution acts,
	                                  default 1 */
	fix16_t max_translation;       /**< largest move of a body in one step, m, default 2 */
	fix16_t max_rotation;          /**< largest turn of a body in one step, rad, default pi/2 */
	bool warm_starting;            /**< default true */
	/** Sleeping (islands of bodies linked by contacts and joints that stay slow for
	 *  time_to_sleep stop being simulated until something wakes them), default true. */
	bool enable_sleep;
	fix16_t linear_sleep_tolerance;  /**< m/s, default 0.05; range [0, 10] */
	fix16_t angular_sleep_tolerance; /**< rad/s, default 0.05; range [0, 10] */
	fix16_t time_to_sleep;           /**< s, default 0.5; range [h, 60] */
	/** Approach speed, m/s, above which a contact of a shape with enable_hit_events makes a
	 *  hit event; default 1; range [0, 32767]. Events only: it never changes the motion. */
	fix16_t hit_event_threshold;
	/** Contact recycling (Box2D v3's), m; range [0, 0.25]; 0 turns it off (engine format 15's
	 *  step). Default 0.05 (Box2D's B2_CONTACT_RECYCLE_DISTANCE). A pair whose manifold was
	 *  built with the fixed speculative distance keeps it, anchors r_a, r_b and normal
	 *  unchanged, while each body's rotation since the build, dq = q conj(q_built), has
	 *  dq.c >= 0.98 (about 11.5 degrees, Box2D's
	 *  B2_CONTACT_RECYCLE_COS_ANGLE), the pair's speculative distance is still the fixed one
	 *  (no fast approach: never for fast bodies), and every point's relative displacement
	 *  dp = (c_b - c_a) + dq_b r_b - dq_a r_a satisfies |dp.x| + |dp.y| + reach |sin turn| <
	 *  this distance, reach the larger shape reach of a body that is not static and turn the
	 *  relative rotation dq_b conj(dq_a); the narrow phase is then skipped and each point's
	 *  separation is its separation at the build + dot(dp, normal). All in Q16.16 integers
	 *  (src/contact.c f2d_recycle_arbiter). */
	fix16_t contact_recycle_distance;
	/** The solver (issue 15). 1..8 (default 4): Box2D v3's soft step, the step cut into this
	 *  many substeps of time_step / substep_count, each: gravity and forces, the joints'
	 *  pre-step, warm start, one soft contact pass (min(40 Hz, substep rate / 6) contacts,
	 *  5/2 of that against bodies that cannot move, damping ratio 7, push-out at most 3 m/s),
	 *  the joints, positions, the joints relaxed without their position bias, one contact
	 *  relax pass without push-out, in which a point that touched bounces (restitution).
	 *  `iterations` is unused by it; the joint position passes follow as with 0. With 4, a
	 *  40-row pyramid comes to rest (README, "Solver fidelity").
	 *  0: Box2D-lite's step, `iterations` Gauss-Seidel passes with Baumgarte bias (the default
	 *  through engine format 13). */
	int32_t
	    substep_count; /**< default 4; range [0, 8], time_step / substep_count >= 1/1000 s */
	f2d_allocator allocator; /**< default: malloc/free */
	int32_t body_capacity;   /**< initial capacity hints (grow on demand) */
	int32_t contact_capacity;
} f2d_world_def;

/* ---- Bodies ---- */
typedef enum f2d_body_type {
	F2D_STATIC_BODY = 0,    /**< never moves, infinite mass */
	F2D_KINEMATIC_BODY = 1, /**< moved by its velocity only, infinite mass */
	F2D_DYNAMIC_BODY = 2    /**< moved by forces, contacts and joints */
} f2d_body_type;

typedef struct f2d_body_def {
	f2d_body_type type;       /**< default static */
	f2d_vec2 position;        /**< body origin in world, m */
	f2d_rot rotation;         /**< default identity; f2d_make_rot(angle) builds one */
	f2d_vec2 linear_velocity; /**< m/s of the centre of mass */
	fix16_t angular_velocity; /**< rad/s */
	uint64_t user_data;       /**< yours; carried in snapshots, not in the hash */
	bool enable_sleep;        /**< default true; false keeps this body's island awake */
	bool awake;               /**< default true; false creates it asleep */
	/** Multiplies the world's gravity for this body, default 1; range [-16, 16]. */
	fix16_t gravity_scale;
	/** Damping, 1/s, default 0; range [0, 1000]. Each step, after gravity and forces,
	 *  v = round(v f) with f = 1 / (1 + h c) computed once per step as a Q16 fraction (Box2D's
	 *  form, in exact integer arithmetic; see f2d_damping_factor in src/world.c); with the
	 *  soft step (the default) in each substep, h the substep. */
	fix16_t linear_damping;
	fix16_t angular_damping;
	/** Keeps the body from turning (infinite rotational inertia), default false. */
	bool fixed_rotation;
} f2d_body_def;

/* ---- Shapes ---- */
typedef enum f2d_shape_type {
	F2D_CIRCLE_SHAPE = 0,
	F2D_POLYGON_SHAPE = 1,
	F2D_CAPSULE_SHAPE = 2,      /**< a segment rounded by a radius (src/shapes.c) */
	F2D_SEGMENT_SHAPE = 3,      /**< a two-sided line segment, static/kinematic bodies only */
	F2D_CHAIN_SEGMENT_SHAPE = 4 /**< one edge of a chain: one-sided, with ghost vertices */
} f2d_shape_type;

/** Which shapes collide (Box2D's rule): two shapes of the same positive group_index always
 *  collide, of the same negative group_index never; otherwise they collide when each one's
 *  category_bits share a bit with the other's mask_bits. Default: category 1, mask all,
 *  group 0 (everything collides with everything). Joints (collide_connected false), the same
 *  body, and two bodies that cannot move also keep shapes apart (f2d_shapes_should_collide). */
typedef struct f2d_filter {
	uint64_t category_bits;
	uint64_t mask_bits;
	int32_t group_index;
} f2d_filter;

typedef struct f2d_shape_def {
	fix16_t density;     /**< kg/m^2, default 1; range (0, 32767] */
	fix16_t friction;    /**< Coulomb coefficient, default 0.6; range [0, 4] */
	fix16_t restitution; /**< default 0; range [0, 1] */
	uint64_t user_data;
	f2d_filter filter; /**< default category 1, mask all, group 0 */
	/** A sensor detects overlapping shapes (sensor events) and never makes a contact or an
	 *  impulse; default false. Sensors do not detect other sensors. It adds its mass like any
	 *  shape (density). */
	bool is_sensor;
	bool enable_contact_events; /**< begin/end touch events for its contacts, default true */
	bool
	    enable_hit_events; /**< hit events (impacts above hit_event_threshold), default false */
	/** As a visitor: sensors report this shape entering and leaving, default true. On a sensor:
	 *  it reports anything, default true. */
	bool enable_sensor_events;
} f2d_shape_def;

/** A validated convex polygon in body-local coordinates, counter-clockwise. Build with
 *  f2d_make_polygon / f2d_make_box / f2d_make_offset_box; do not fill by hand. */
typedef struct f2d_polygon {
	f2d_vec2 vertices[F2D_MAX_POLYGON_VERTICES];
	f2d_vec2 normals[F2D_MAX_POLYGON_VERTICES]; /**< unit outward normal of edge i -> i+1 */
	f2d_vec2 centroid;
	int32_t count;
} f2d_polygon;

typedef struct f2d_circle {
	f2d_vec2 center; /**< body-local */
	fix16_t radius;
} f2d_circle;

/* ---- Capsules, segments and chains (src/shapes.c; README "Shapes") ---- */
/** Two centres and a radius, body-local: the points within radius of the segment
 *  center1-center2. radius in [0.005, 512] m, |center2 - center1| >= 0.005 m (a shorter one is
 *  a circle), both centres + radius within 512 m of the body origin. */
typedef struct f2d_capsule {
	f2d_vec2 center1, center2;
	fix16_t radius;
} f2d_capsule;

/** A line segment, body-local: |point2 - point1| >= 0.005 m, both points within 512 m. Two-sided,
 *  no mass: static and kinematic bodies only. */
typedef struct f2d_segment {
	f2d_vec2 point1, point2;
} f2d_segment;

/** A chain: one one-sided segment shape per edge (points[i] -> points[i + 1], and the closing
 *  edge when loop), each knowing its neighbours' far points (ghost vertices) so that contacts
 *  slide smoothly across the vertices. The solid side is to the right of each edge, as for a
 *  polygon's counter-clockwise edges: a counter-clockwise loop is solid inside, terrain listed
 *  right to left has its solid side below. Static and kinematic bodies only. */
typedef struct f2d_chain_def {
	const f2d_vec2 *points; /**< body-local, each within 512 m; neighbours >= 0.005 m apart */
	int32_t count;          /**< >= 2 (>= 3 for a loop), <= F2D_MAX_CHAIN_POINTS */
	bool loop;              /**< default false */
	fix16_t friction;       /**< default 0.6; [0, 4] */
	fix16_t restitution;    /**< default 0; [0, 1] */
	f2d_filter filter;      /**< default category 1, mask all, group 0 */
	uint64_t user_data;     /**< given to every segment shape */
	bool enable_contact_events; /**< default true */
	bool enable_sensor_events;  /**< default true */
} f2d_chain_def;
#define F2D_MAX_CHAIN_POINTS 4096

/* ---- Revolute joint ---- */
typedef struct f2d_revolute_joint_def {
	f2d_body_id body_a, body_b;
	f2d_vec2 local_anchor_a; /**< anchor relative to body A's origin, in A's frame */
	f2d_vec2 local_anchor_b;
	fix16_t reference_angle; /**< angle B - A at which the joint angle is zero, rad */
	bool enable_limit;
	fix16_t lower_angle, upper_angle; /**< rad, lower <= upper, each in [-pi, pi] */
	bool enable_motor;
	fix16_t motor_speed;      /**< rad/s, of B relative to A */
	fix16_t max_motor_torque; /**< N m, >= 0 */
	bool collide_connected;   /**< default false: the two bodies do not collide */
	uint64_t user_data;
} f2d_revolute_joint_def;

/* ---- Queries (src/query.c; see fix2d.h "Queries") ---- */
/** Points, ray ends and query-shape positions must lie within |x|, |y| <= F2D_QUERY_LIMIT
 *  (16384 m: twice the body range, so a ray may start or end outside the world). */
#define F2D_QUERY_LIMIT F2D_FIX(16384)

/** Which shapes a query sees: a shape is seen when (its category & mask_bits) != 0 and (its
 *  mask & category_bits) != 0, Box2D's b2QueryFilter rule. (Shapes have no filter of their own
 *  yet: every shape counts as category 1, mask all.) */
typedef struct f2d_query_filter {
	uint64_t category_bits, mask_bits;
} f2d_query_filter;

/** The closest hit of a ray (f2d_world_cast_ray_closest, f2d_shape_ray_cast). */
typedef struct f2d_ray_result {
	f2d_shape_id shape; /**< null handle when there is no hit */
	f2d_vec2 point;     /**< world, on the shape's surface */
	f2d_vec2 normal;    /**< unit (to ~1e-4) outward normal of the shape at point */
	fix16_t fraction;   /**< of the translation, Q16.16 in [0, 1] */
	bool hit;
} f2d_ray_result;

/** A circle, polygon or capsule for f2d_world_overlap_shape / f2d_world_cast_shape, in its own
 *  frame (placed by a transform). The polygon must come from f2d_make_polygon / f2d_make_box. */
typedef struct f2d_query_shape {
	f2d_shape_type type;
	f2d_circle circle;   /**< when type == F2D_CIRCLE_SHAPE */
	f2d_polygon polygon; /**< when type == F2D_POLYGON_SHAPE */
	f2d_capsule capsule; /**< when type == F2D_CAPSULE_SHAPE (checked as for shapes) */
} f2d_query_shape;

/* ---- Events of the last step (f2d_world_get_contact_events, f2d_world_get_sensor_events) ----
 * Outputs, not state: each array is valid until the next step (or restore/load) and is a
 * function of the state alone, in the order stated. Shape ids of destroyed shapes are stale
 * (their generation is the one they had). */
typedef struct f2d_contact_begin_touch_event {
	f2d_shape_id shape_a, shape_b; /**< shape_a has the lower id */
} f2d_contact_begin_touch_event;

typedef struct f2d_contact_end_touch_event {
	f2d_shape_id shape_a, shape_b; /**< shape_a has the lower id; either may be destroyed */
} f2d_contact_end_touch_event;

typedef struct f2d_contact_hit_event {
	f2d_shape_id shape_a, shape_b;
	f2d_vec2 point;         /**< world, the contact point that approached fastest */
	f2d_vec2 normal;        /**< world, unit, from shape A to shape B */
	fix16_t approach_speed; /**< m/s, > hit_event_threshold */
} f2d_contact_hit_event;

typedef struct f2d_contact_events {
	const f2d_contact_begin_touch_event *begin_events; /**< by (shape_a, shape_b) id */
	int32_t begin_count;
	const f2d_contact_end_touch_event *end_events; /**< by (shape_a, shape_b) id, generation */
	int32_t end_count;
	const f2d_contact_hit_event *hit_events; /**< by (shape_a, shape_b) id */
	int32_t hit_count;
} f2d_contact_events;

typedef struct f2d_sensor_begin_touch_event {
	f2d_shape_id sensor_shape, visitor_shape;
} f2d_sensor_begin_touch_event;

typedef struct f2d_sensor_end_touch_event {
	f2d_shape_id sensor_shape, visitor_shape; /**< either may be destroyed */
} f2d_sensor_end_touch_event;

typedef struct f2d_sensor_events {
	const f2d_sensor_begin_touch_event *begin_events; /**< by (sensor, visitor) id */
	int32_t begin_count;
	const f2d_sensor_end_touch_event *end_events; /**< by (sensor, visitor) id, generation */
	int32_t end_count;
} f2d_sensor_events;

/* ---- Per-world counters ---- */
typedef struct f2d_world_stats {
	uint64_t step_count;
	int32_t body_count, shape_count, joint_count;
	int32_t arbiter_count, contact_point_count;
	uint64_t out_of_range_events; /**< bodies stopped at the world edge, since creation */
	uint64_t overflow_events;     /**< saturated impulses, since creation */
	f2d_body_id last_out_of_range_body;
	int32_t awake_body_count; /**< awake dynamic and moving kinematic bodies, last step */
	int32_t island_count;     /**< awake islands in the last step */
} f2d_world_stats;

#ifdef __cplusplus
}
#endif
#endif
