/* fix2d - the joints beyond the revolute joint: distance, prismatic, weld, wheel, motor and
 * mouse (target) joints, and the reaction getters of every joint (src/joint_*.c).
 * SPDX-License-Identifier: MIT
 *
 * Box2D v3's joints (b2DistanceJointDef, ...), in Q16.16. Included by fix2d.h.
 *
 * Springs (frequency f in Hz, damping ratio zeta) are Box2D v3's soft constraints
 * (b2MakeSoft), computed exactly in integers once per step. Valid ranges, checked by every
 * create function and setter (F2D_ERROR_INVALID_VALUE with a message, nothing changes):
 *   frequencies        [0, F2D_JOINT_MAX_HERTZ] Hz (0: the spring is off / the joint rigid)
 *   damping ratios     [0, F2D_JOINT_MAX_DAMPING_RATIO]
 *   lengths            [0, F2D_JOINT_MAX_LENGTH] m (rest length of a distance joint >= 0.005 m)
 *   translations       [-F2D_JOINT_MAX_LENGTH, F2D_JOINT_MAX_LENGTH] m, lower <= upper
 *   motor speeds       within +-1000 m/s or rad/s; forces and torques >= 0
 *   anchors            as the revolute joint's (64 m of a moving body's origin, 16 km of a
 *                      static one's); axes: non-zero, within 64 (normalised on creation)
 *   angles, offsets    reference angle and angular offset in [-pi, pi]; linear offset and
 *                      mouse target within the world limit
 *   correction factor  [0, 1]
 * A frequency of any value is stable (the soft step is implicit); above half the step rate
 * (30 Hz at 60 Hz) a spring behaves as a rigid joint.
 */
#ifndef FIX2D_JOINTS_H
#define FIX2D_JOINTS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define F2D_JOINT_MAX_HERTZ F2D_FIX(1000)
#define F2D_JOINT_MAX_DAMPING_RATIO F2D_FIX(100)
#define F2D_JOINT_MAX_LENGTH F2D_FIX(16384)

typedef enum f2d_joint_type {
	F2D_REVOLUTE_JOINT = 0,
	F2D_DISTANCE_JOINT = 1,
	F2D_PRISMATIC_JOINT = 2,
	F2D_WELD_JOINT = 3,
	F2D_WHEEL_JOINT = 4,
	F2D_MOTOR_JOINT = 5,
	F2D_MOUSE_JOINT = 6
} f2d_joint_type;

/** Keeps two anchors at a distance: rigid, or a spring, with optional min/max lengths and a
 *  motor along the line (b2DistanceJointDef). Defaults: length 1, min 0, max
 *  F2D_JOINT_MAX_LENGTH, rigid, no limit, no motor. */
typedef struct f2d_distance_joint_def {
	f2d_body_id body_a, body_b;
	f2d_vec2 local_anchor_a, local_anchor_b; /**< relative to each body's origin */
	fix16_t length;                          /**< rest length, m, >= 0.005 */
	bool enable_spring;                      /**< soft (hertz > 0) instead of rigid */
	fix16_t hertz, damping_ratio;
	bool enable_limit;
	fix16_t min_length, max_length; /**< min <= max */
	bool enable_motor;
	fix16_t max_motor_force; /**< N */
	fix16_t motor_speed;     /**< m/s, positive lengthens */
	bool collide_connected;
	uint64_t user_data;
} f2d_distance_joint_def;

/** B slides along an axis fixed in A, without turning relative to A (b2PrismaticJointDef). */
typedef struct f2d_prismatic_joint_def {
	f2d_body_id body_a, body_b;
	f2d_vec2 local_anchor_a, local_anchor_b;
	f2d_vec2 local_axis_a;   /**< default (1, 0); normalised on creation */
	fix16_t reference_angle; /**< angle B - A held by the joint */
	bool enable_spring;      /**< pulls the translation towards 0 */
	fix16_t hertz, damping_ratio;
	bool enable_limit;
	fix16_t lower_translation, upper_translation; /**< m */
	bool enable_motor;
	fix16_t max_motor_force; /**< N */
	fix16_t motor_speed;     /**< m/s along the axis */
	bool collide_connected;
	uint64_t user_data;
} f2d_prismatic_joint_def;

/** Glues B to A: rigid, or soft with linear and angular springs (b2WeldJointDef). */
typedef struct f2d_weld_joint_def {
	f2d_body_id body_a, body_b;
	f2d_vec2 local_anchor_a, local_anchor_b;
	fix16_t reference_angle;
	fix16_t linear_hertz, angular_hertz; /**< 0: rigid */
	fix16_t linear_damping_ratio, angular_damping_ratio;
	bool collide_connected;
	uint64_t user_data;
} f2d_weld_joint_def;

/** A wheel (B) on a suspension line fixed in A: B slides along the axis on a spring and turns
 *  freely, driven by a motor (b2WheelJointDef). Defaults: axis (0, 1), spring on, 1 Hz,
 *  damping 0.7. */
typedef struct f2d_wheel_joint_def {
	f2d_body_id body_a, body_b;
	f2d_vec2 local_anchor_a, local_anchor_b;
	f2d_vec2 local_axis_a;
	bool enable_spring;
	fix16_t hertz, damping_ratio;
	bool enable_limit;
	fix16_t lower_translation, upper_translation;
	bool enable_motor;
	fix16_t max_motor_torque; /**< N m */
	fix16_t motor_speed;      /**< rad/s of B relative to A */
	bool collide_connected;
	uint64_t user_data;
} f2d_wheel_joint_def;

/** Drives B's origin to A's origin + linear_offset (in A's frame) and B's angle to A's +
 *  angular_offset with at most max_force and max_torque (b2MotorJointDef): top-down
 *  characters. Defaults: max force 1, max torque 1, correction factor 0.3. */
typedef struct f2d_motor_joint_def {
	f2d_body_id body_a, body_b;
	f2d_vec2 linear_offset;
	fix16_t angular_offset;
	fix16_t max_force, max_torque;
	fix16_t correction_factor; /**< share of the position error corrected per step, [0, 1] */
	bool collide_connected;
	uint64_t user_data;
} f2d_motor_joint_def;

/** Pulls B's anchor (at target when created) towards a world target with a soft spring of at
 *  most max_force (b2MouseJointDef); body A is a reference only (usually the ground).
 *  Defaults: 4 Hz, damping ratio 1, max force 1. */
typedef struct f2d_mouse_joint_def {
	f2d_body_id body_a, body_b;
	f2d_vec2 target; /**< world point; B's anchor is the body point there at creation */
	fix16_t hertz, damping_ratio, max_force;
	bool collide_connected;
	uint64_t user_data;
} f2d_mouse_joint_def;

f2d_distance_joint_def f2d_default_distance_joint_def(void);
f2d_prismatic_joint_def f2d_default_prismatic_joint_def(void);
f2d_weld_joint_def f2d_default_weld_joint_def(void);
f2d_wheel_joint_def f2d_default_wheel_joint_def(void);
f2d_motor_joint_def f2d_default_motor_joint_def(void);
f2d_mouse_joint_def f2d_default_mouse_joint_def(void);

/** Each: F2D_ERROR_NULL_ARGUMENT, F2D_ERROR_INVALID_HANDLE (a body), F2D_ERROR_INVALID_VALUE
 *  (the same body twice, no dynamic body, a value out of range, an effective mass below
 *  1/32768 kg as for the revolute joint), F2D_ERROR_CAPACITY, F2D_ERROR_OUT_OF_MEMORY; with a
 *  message, and nothing changes. */
f2d_result f2d_create_distance_joint(f2d_world *world, const f2d_distance_joint_def *def,
                                     f2d_joint_id *out);
f2d_result f2d_create_prismatic_joint(f2d_world *world, const f2d_prismatic_joint_def *def,
                                      f2d_joint_id *out);
f2d_result f2d_create_weld_joint(f2d_world *world, const f2d_weld_joint_def *def,
                                 f2d_joint_id *out);
f2d_result f2d_create_wheel_joint(f2d_world *world, const f2d_wheel_joint_def *def,
                                  f2d_joint_id *out);
f2d_result f2d_create_motor_joint(f2d_world *world, const f2d_motor_joint_def *def,
                                  f2d_joint_id *out);
f2d_result f2d_create_mouse_joint(f2d_world *world, const f2d_mouse_joint_def *def,
                                  f2d_joint_id *out);

/* ---- every joint ----
 * Getters take a const world and set no message (as f2d_joint_get_world_anchors):
 * F2D_ERROR_NULL_ARGUMENT or F2D_ERROR_INVALID_HANDLE. */
f2d_result f2d_joint_get_type(const f2d_world *world, f2d_joint_id joint, f2d_joint_type *type);
/** The force the joint applied to body B in the last step (its accumulated impulses / h), N,
 *  world frame; A received the opposite. For breakable joints: compare with a threshold.
 *  h is the time the impulses were accumulated over: time_step for the Gauss-Seidel solver
 *  (substep_count 0), the last substep's round(time_step / substep_count) for the soft step
 *  (as Box2D v3's b2Joint_GetConstraintForce). Saturated to the fix16 range. */
f2d_result f2d_joint_get_reaction_force(const f2d_world *world, f2d_joint_id joint,
                                        f2d_vec2 *force);
/** The constraint torque on B in the last step (angular impulses / h, h as above), N m. */
f2d_result f2d_joint_get_reaction_torque(const f2d_world *world, f2d_joint_id joint,
                                         fix16_t *torque);

/* ---- setters (F2D_ERROR_INVALID_HANDLE also for a joint of another type; each wakes the
 * joint's bodies) ---- */
f2d_result f2d_distance_joint_set_length(f2d_world *world, f2d_joint_id joint, fix16_t length);
f2d_result f2d_distance_joint_set_length_range(f2d_world *world, f2d_joint_id joint,
                                               fix16_t min_length, fix16_t max_length);
f2d_result f2d_distance_joint_enable_limit(f2d_world *world, f2d_joint_id joint, bool enable);
/** The current distance between the anchors, m. */
f2d_result f2d_distance_joint_get_current_length(const f2d_world *world, f2d_joint_id joint,
                                                 fix16_t *length);

f2d_result f2d_prismatic_joint_set_limits(f2d_world *world, f2d_joint_id joint, bool enable,
                                          fix16_t lower, fix16_t upper);
f2d_result f2d_wheel_joint_set_limits(f2d_world *world, f2d_joint_id joint, bool enable,
                                      fix16_t lower, fix16_t upper);
/** Translation of B's anchor from A's along the axis, m (prismatic and wheel joints). */
f2d_result f2d_joint_get_translation(const f2d_world *world, f2d_joint_id joint,
                                     fix16_t *translation);

/** Springs of distance, prismatic, wheel and mouse joints (a mouse joint's spring is always
 *  on: enable is ignored there and hertz must be > 0). */
f2d_result f2d_joint_set_spring(f2d_world *world, f2d_joint_id joint, bool enable, fix16_t hertz,
                                fix16_t damping_ratio);
f2d_result f2d_distance_joint_set_spring(f2d_world *world, f2d_joint_id joint, bool enable,
                                         fix16_t hertz, fix16_t damping_ratio);
f2d_result f2d_prismatic_joint_set_spring(f2d_world *world, f2d_joint_id joint, bool enable,
                                          fix16_t hertz, fix16_t damping_ratio);
f2d_result f2d_wheel_joint_set_spring(f2d_world *world, f2d_joint_id joint, bool enable,
                                      fix16_t hertz, fix16_t damping_ratio);
f2d_result f2d_mouse_joint_set_spring(f2d_world *world, f2d_joint_id joint, fix16_t hertz,
                                      fix16_t damping_ratio);
f2d_result f2d_weld_joint_set_springs(f2d_world *world, f2d_joint_id joint, fix16_t linear_hertz,
                                      fix16_t linear_damping_ratio, fix16_t angular_hertz,
                                      fix16_t angular_damping_ratio);

/** Motors of revolute, distance, prismatic and wheel joints: max_force is a force (N) for
 *  distance and prismatic joints, a torque (N m) for revolute and wheel joints. */
f2d_result f2d_joint_set_motor(f2d_world *world, f2d_joint_id joint, bool enable, fix16_t speed,
                               fix16_t max_force);
f2d_result f2d_distance_joint_set_motor(f2d_world *world, f2d_joint_id joint, bool enable,
                                        fix16_t speed, fix16_t max_force);
f2d_result f2d_prismatic_joint_set_motor(f2d_world *world, f2d_joint_id joint, bool enable,
                                         fix16_t speed, fix16_t max_force);
f2d_result f2d_wheel_joint_set_motor(f2d_world *world, f2d_joint_id joint, bool enable,
                                     fix16_t speed, fix16_t max_torque);

f2d_result f2d_motor_joint_set_offsets(f2d_world *world, f2d_joint_id joint, f2d_vec2 linear_offset,
                                       fix16_t angular_offset);
f2d_result f2d_motor_joint_set_max(f2d_world *world, f2d_joint_id joint, fix16_t max_force,
                                   fix16_t max_torque);
f2d_result f2d_motor_joint_set_correction_factor(f2d_world *world, f2d_joint_id joint,
                                                 fix16_t factor);
f2d_result f2d_mouse_joint_set_target(f2d_world *world, f2d_joint_id joint, f2d_vec2 target);
f2d_result f2d_mouse_joint_set_max_force(f2d_world *world, f2d_joint_id joint, fix16_t force);

#ifdef __cplusplus
}
#endif
#endif
