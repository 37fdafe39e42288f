/* fix2d - deterministic input: per-frame commands, applied in a canonical order, with a compact
 * byte encoding that is the same on every host. Used by games, replays and the netdemo.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_INPUT_H
#define FIX2D_INPUT_H

#include "fix2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most commands one f2d_world_apply_commands call takes (one frame of all players). */
#define F2D_MAX_FRAME_COMMANDS 1024
/** Largest opaque payload, bytes. */
#define F2D_MAX_PAYLOAD 255
/** Upper bound of one encoded command, bytes. */
#define F2D_COMMAND_MAX_BYTES 320
/** Version of the command byte format. 1: types 1..7. 2: types 8..12 (the game API's setters)
 *  and the create-body extension (type byte bit 128). 3: types 13..24 (joints: create, destroy
 *  and their setters) and spawn kinds 4 (segment) and 5 (chain). Each format only adds: every
 *  format-1 and format-2 byte string decodes to the same command as before, applies the same
 *  way and encodes to the same bytes. */
#define F2D_COMMAND_FORMAT 3
/** Most points of a chain a create-body command carries (the most that fit, with the
 *  extension, in F2D_COMMAND_MAX_BYTES); larger terrain belongs in the scene. */
#define F2D_SPAWN_MAX_CHAIN_POINTS 24

typedef enum f2d_command_type {
	F2D_CMD_APPLY_FORCE = 1,   /**< force at a world point, for the next step */
	F2D_CMD_APPLY_IMPULSE = 2, /**< linear impulse at a world point, now */
	F2D_CMD_SET_VELOCITY = 3,  /**< linear and angular velocity */
	F2D_CMD_CREATE_BODY = 4,   /**< a body with one shape */
	F2D_CMD_DESTROY_BODY = 5,
	F2D_CMD_SET_MOTOR = 6, /**< revolute joint motor only (format 1): enable, speed, max torque;
	                          F2D_CMD_SET_JOINT_MOTOR takes every joint with a motor */
	F2D_CMD_PAYLOAD = 7,   /**< opaque game data: recorded and carried, never interpreted */
	/* format 2: the game API (fix2d.h Shapes and Bodies) */
	F2D_CMD_SET_FILTER = 8,          /**< f2d_shape_set_filter */
	F2D_CMD_SET_BODY_TYPE = 9,       /**< f2d_body_set_type */
	F2D_CMD_SET_GRAVITY_SCALE = 10,  /**< f2d_body_set_gravity_scale */
	F2D_CMD_SET_DAMPING = 11,        /**< f2d_body_set_damping (linear and angular together) */
	F2D_CMD_SET_FIXED_ROTATION = 12, /**< f2d_body_set_fixed_rotation */
	/* format 3: joints (fix2d/joints.h); each setter command calls the public setter named */
	F2D_CMD_CREATE_JOINT = 13,        /**< f2d_create_<type>_joint with the def carried */
	F2D_CMD_DESTROY_JOINT = 14,       /**< f2d_destroy_joint */
	F2D_CMD_SET_JOINT_MOTOR = 15,     /**< f2d_joint_set_motor (revolute, distance, prismatic,
	                                       wheel) */
	F2D_CMD_SET_JOINT_SPRING = 16,    /**< f2d_joint_set_spring (distance, prismatic, wheel,
	                                       mouse) */
	F2D_CMD_SET_WELD_SPRINGS = 17,    /**< f2d_weld_joint_set_springs */
	F2D_CMD_SET_JOINT_LIMITS = 18,    /**< revolute, prismatic and wheel: their set_limits;
	                                       distance: set_length_range then enable_limit */
	F2D_CMD_SET_DISTANCE_LENGTH = 19, /**< f2d_distance_joint_set_length */
	F2D_CMD_SET_MOUSE_TARGET = 20,    /**< f2d_mouse_joint_set_target */
	F2D_CMD_SET_MOUSE_MAX_FORCE = 21, /**< f2d_mouse_joint_set_max_force */
	F2D_CMD_SET_MOTOR_JOINT_OFFSETS = 22,   /**< f2d_motor_joint_set_offsets */
	F2D_CMD_SET_MOTOR_JOINT_MAX = 23,       /**< f2d_motor_joint_set_max */
	F2D_CMD_SET_MOTOR_JOINT_CORRECTION = 24 /**< f2d_motor_joint_set_correction_factor */
} f2d_command_type;

/** The last command type. */
#define F2D_CMD_LAST F2D_CMD_SET_MOTOR_JOINT_CORRECTION

typedef enum f2d_spawn_shape {
	F2D_SPAWN_BOX = 0,     /**< half extents, centred on the body origin */
	F2D_SPAWN_CIRCLE = 1,  /**< radius and centre */
	F2D_SPAWN_POLYGON = 2, /**< 3..8 CCW convex points */
	F2D_SPAWN_CAPSULE = 3, /**< two centres and a radius (f2d_capsule's ranges) */
	F2D_SPAWN_SEGMENT = 4, /**< format 3: a segment (static and kinematic bodies only) */
	F2D_SPAWN_CHAIN = 5    /**< format 3: a chain of count points (2..24, 3.. for a loop),
	                            static and kinematic bodies only */
} f2d_spawn_shape;

/** A body with one shape (or one chain). Every field of the two defs is carried: the format-1
 *  fields always, the others (the shape's filter, is_sensor and event flags; the body's gravity
 *  scale, damping and fixed rotation) in the extension when any of them is not its default.
 *  A chain takes the shape def's friction, restitution, filter, user data and contact and
 *  sensor event flags (f2d_chain_def's fields); its density and hit-event flag are carried but
 *  unused (a chain has no mass), and a sensor chain is refused. */
typedef struct f2d_spawn {
	f2d_body_def body;
	f2d_shape_def shape;
	uint8_t kind; /**< f2d_spawn_shape */
	f2d_vec2 half_extents;
	f2d_circle circle;
	int32_t count; /**< polygon: 3..8 points; chain: 2..F2D_SPAWN_MAX_CHAIN_POINTS */
	f2d_vec2 points[F2D_SPAWN_MAX_CHAIN_POINTS]; /**< a polygon's or a chain's points */
	f2d_capsule capsule; /**< F2D_SPAWN_CAPSULE (encoded as kind 3, c1, c2, radius) */
	f2d_segment segment; /**< F2D_SPAWN_SEGMENT */
	bool loop;           /**< F2D_SPAWN_CHAIN: a closed chain */
} f2d_spawn;

/** A joint of any type with its def (F2D_CMD_CREATE_JOINT). def's member is the one of type. */
typedef struct f2d_joint_spawn {
	uint8_t type; /**< f2d_joint_type */
	union {
		f2d_revolute_joint_def revolute;
		f2d_distance_joint_def distance;
		f2d_prismatic_joint_def prismatic;
		f2d_weld_joint_def weld;
		f2d_wheel_joint_def wheel;
		f2d_motor_joint_def motor;
		f2d_mouse_joint_def mouse;
	} def;
} f2d_joint_spawn;

typedef struct f2d_command {
	uint8_t type;      /**< f2d_command_type */
	uint8_t player;    /**< canonical order: by player, */
	uint16_t sequence; /**< then by sequence; (player, sequence) must be unique in a frame */
	union {
		struct {
			f2d_body_id body;
			f2d_vec2 vector; /**< force or impulse */
			f2d_vec2 point;  /**< world point */
		} push;
		struct {
			f2d_body_id body;
			f2d_vec2 linear;
			fix16_t angular;
		} velocity;
		f2d_spawn create;
		struct {
			f2d_body_id body;
		} destroy;
		struct {
			f2d_joint_id joint;
			bool enable;
			fix16_t speed;
			fix16_t max_torque;
		} motor;
		struct {
			uint16_t length;
			uint8_t bytes[F2D_MAX_PAYLOAD];
		} payload;
		struct {
			f2d_shape_id shape;
			f2d_filter filter; /**< any value */
		} filter;
		struct {
			f2d_body_id body;
			f2d_body_type type; /**< 0..2 (encode refuses others) */
		} body_type;
		struct {
			f2d_body_id body;
			fix16_t scale; /**< [-16, 16], checked when applied */
		} gravity_scale;
		struct {
			f2d_body_id body;
			fix16_t linear, angular; /**< [0, 1000] 1/s each, checked when applied */
		} damping;
		struct {
			f2d_body_id body;
			bool fixed;
		} fixed_rotation;
		/* format 3 */
		f2d_joint_spawn create_joint;
		struct {
			f2d_joint_id joint;
		} destroy_joint;
		struct {
			f2d_joint_id joint;
			bool enable;
			fix16_t speed;     /**< m/s (distance, prismatic) or rad/s */
			fix16_t max_force; /**< N (distance, prismatic) or N m (revolute, wheel) */
		} joint_motor;
		struct {
			f2d_joint_id joint;
			bool enable; /**< ignored by a mouse joint (its spring is always on) */
			fix16_t hertz, damping_ratio;
		} spring;
		struct {
			f2d_joint_id joint;
			fix16_t linear_hertz, linear_damping_ratio;
			fix16_t angular_hertz, angular_damping_ratio;
		} weld_springs;
		struct {
			f2d_joint_id joint;
			bool enable;
			fix16_t lower,
			    upper; /**< rad (revolute), m (translations, distance lengths) */
		} limits;
		struct {
			f2d_joint_id joint;
			fix16_t length;
		} length;
		struct {
			f2d_joint_id joint;
			f2d_vec2 target;
		} mouse_target;
		struct {
			f2d_joint_id joint;
			fix16_t force;
		} mouse_max_force;
		struct {
			f2d_joint_id joint;
			f2d_vec2 linear;
			fix16_t angular;
		} offsets;
		struct {
			f2d_joint_id joint;
			fix16_t max_force, max_torque;
		} motor_max;
		struct {
			f2d_joint_id joint;
			fix16_t factor;
		} correction;
	} u;
} f2d_command;

typedef struct f2d_command_result {
	f2d_result result;          /**< F2D_OK, or why this command changed nothing */
	f2d_body_id created;        /**< for F2D_CMD_CREATE_BODY */
	f2d_joint_id created_joint; /**< for F2D_CMD_CREATE_JOINT */
} f2d_command_result;

/** A zeroed command of the given type with default body/shape defs where it has them; a
 *  create-joint command holds a revolute joint's default def. */
f2d_command f2d_default_command(f2d_command_type type, uint8_t player, uint16_t sequence);
/** A create-joint command holding f2d_default_<type>_joint_def() (bodies still to set); a
 *  zeroed def for an unknown type. */
f2d_command f2d_default_joint_command(f2d_joint_type type, uint8_t player, uint16_t sequence);

/** Applies one frame of commands in canonical order (player, then sequence), whatever order
 *  they are given in, one after the other: a later command sees what the earlier ones made
 *  (a joint created by player 0 may be set by player 1 in the same frame, if its handle is
 *  known: handles are a function of the ids in use, so every peer computes the same). The batch is
 * refused whole (F2D_ERROR_INVALID_VALUE, nothing applied) when it holds more than
 * F2D_MAX_FRAME_COMMANDS commands, an unknown type or a repeated (player, sequence). Otherwise
 * every command is tried: one that fails (a stale handle, a bad value) changes nothing and records
 * its error in results[i] (results may be NULL), and the call returns F2D_OK. Payload commands do
 * nothing. Call it before f2d_world_step. */
f2d_result f2d_world_apply_commands(f2d_world *world, const f2d_command *commands, int32_t count,
                                    f2d_command_result *results);

/** Little-endian encoding: u8 type, u8 player, u16 sequence, then the fields of the type
 *  (fix16 as int32, handles as (int32 index1, u32 generation), flags as u8 0 or 1; a create
 *  command packs the body type (0..2) with 16 = sleep disabled and 32 = created asleep into
 *  one byte). Format 2:
 *   - SET_FILTER: shape handle, u64 category, u64 mask, i32 group (37 bytes in all);
 *   - SET_BODY_TYPE: body handle, u8 type 0..2 (13); SET_GRAVITY_SCALE: body, fix16 (16);
 *     SET_DAMPING: body, fix16 linear, fix16 angular (20); SET_FIXED_ROTATION: body, u8 flag;
 *   - CREATE_BODY: bit 128 of the type byte says an extension follows the shape: u64
 *     category, u64 mask, i32 group, u8 flags (1 contact events, 2 hit events, 4 sensor
 *     events, 8 sensor, 16 fixed rotation; 32..128 reserved: 0), fix16 gravity scale, fix16
 *     linear damping, fix16 angular damping (33 bytes). Written exactly when one of these
 *     fields is not its default, so a default def gives the bytes of format 1, and decode
 *     refuses an extension that holds only defaults (one encoding per command).
 *  Format 3 (JOINT = joint handle as (int32 index1, u32 generation)):
 *   - CREATE_BODY spawn kinds 4 segment: point1, point2 (16 bytes after the kind byte); 5
 *     chain: u8 count (2..24), u8 loop 0 or 1 (a loop needs 3 points), count points;
 *   - CREATE_JOINT: u8 joint type (0..6), u8 flags (1 collide connected, 2 enable spring, 4
 *     enable limit, 8 enable motor; only the bits the type's def has, the others 0), body A
 *     handle, body B handle, u64 user data (30 bytes so far), then by type, every fix16 and
 *     vector always written: revolute: anchor A, anchor B, reference angle, lower angle, upper
 *     angle, motor speed, max motor torque (66 in all); distance: anchors, length, hertz,
 *     damping ratio, min length, max length, motor speed, max motor force (74); prismatic:
 *     anchors, axis, reference angle, hertz, damping ratio, lower, upper, motor speed, max
 *     motor force (82); weld: anchors, reference angle, linear hertz, linear damping ratio,
 *     angular hertz, angular damping ratio (66); wheel: anchors, axis, hertz, damping ratio,
 *     lower, upper, motor speed, max motor torque (78); motor: linear offset, angular offset,
 *     max force, max torque, correction factor (54); mouse: target, hertz, damping ratio,
 *     max force (50);
 *   - DESTROY_JOINT: JOINT (12); SET_JOINT_MOTOR: JOINT, u8 enable, speed, max force (21);
 *     SET_JOINT_SPRING: JOINT, u8 enable, hertz, damping ratio (21); SET_WELD_SPRINGS: JOINT,
 *     linear hertz, linear damping ratio, angular hertz, angular damping ratio (28);
 *     SET_JOINT_LIMITS: JOINT, u8 enable, lower, upper (21); SET_DISTANCE_LENGTH: JOINT,
 *     length (16); SET_MOUSE_TARGET: JOINT, vector (20); SET_MOUSE_MAX_FORCE: JOINT, force
 *     (16); SET_MOTOR_JOINT_OFFSETS: JOINT, vector, angle (24); SET_MOTOR_JOINT_MAX: JOINT,
 *     max force, max torque (20); SET_MOTOR_JOINT_CORRECTION: JOINT, factor (16).
 *  Writes at most F2D_COMMAND_MAX_BYTES. F2D_ERROR_INVALID_VALUE for an unknown
 *  command, body or shape type or bad lengths, F2D_ERROR_CAPACITY when cap is too small. */
f2d_result f2d_command_encode(const f2d_command *command, uint8_t *buf, size_t cap,
                              size_t *written);
/** Decodes one command; validates type, lengths and counts and never reads past len:
 *  F2D_ERROR_INVALID_VALUE for an unknown type, a bad count, bytes that end too early, or a
 *  non-canonical encoding (a flag other than 0 or 1, a reserved bit or body type). Only
 *  canonical encodings are accepted: when it returns F2D_OK, f2d_command_encode of *out gives
 *  back exactly buf[0..*consumed), so two byte strings never decode to the same command. */
f2d_result f2d_command_decode(const uint8_t *buf, size_t len, f2d_command *out, size_t *consumed);

/** The command type's name ("apply_force", ..., "set_motor_joint_correction"); NULL for
 *  others. */
const char *f2d_command_type_name(uint8_t type);

#ifdef __cplusplus
}
#endif
#endif
