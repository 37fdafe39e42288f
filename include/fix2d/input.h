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
 *  and the create-body extension (type byte bit 128); every format-1 byte string decodes to
 *  the same command as before, and encodes to the same bytes. */
#define F2D_COMMAND_FORMAT 2

typedef enum f2d_command_type {
	F2D_CMD_APPLY_FORCE = 1,   /**< force at a world point, for the next step */
	F2D_CMD_APPLY_IMPULSE = 2, /**< linear impulse at a world point, now */
	F2D_CMD_SET_VELOCITY = 3,  /**< linear and angular velocity */
	F2D_CMD_CREATE_BODY = 4,   /**< a body with one shape */
	F2D_CMD_DESTROY_BODY = 5,
	F2D_CMD_SET_MOTOR = 6, /**< revolute joint motor: enable, speed, max torque */
	F2D_CMD_PAYLOAD = 7,   /**< opaque game data: recorded and carried, never interpreted */
	/* format 2: the game API (fix2d.h Shapes and Bodies) */
	F2D_CMD_SET_FILTER = 8,         /**< f2d_shape_set_filter */
	F2D_CMD_SET_BODY_TYPE = 9,      /**< f2d_body_set_type */
	F2D_CMD_SET_GRAVITY_SCALE = 10, /**< f2d_body_set_gravity_scale */
	F2D_CMD_SET_DAMPING = 11,       /**< f2d_body_set_damping (linear and angular together) */
	F2D_CMD_SET_FIXED_ROTATION = 12 /**< f2d_body_set_fixed_rotation */
} f2d_command_type;

/** The last command type. */
#define F2D_CMD_LAST F2D_CMD_SET_FIXED_ROTATION

typedef enum f2d_spawn_shape {
	F2D_SPAWN_BOX = 0,    /**< half extents, centred on the body origin */
	F2D_SPAWN_CIRCLE = 1, /**< radius and centre */
	F2D_SPAWN_POLYGON = 2, /**< 3..8 CCW convex points */
	F2D_SPAWN_CAPSULE = 3  /**< two centres and a radius (f2d_capsule's ranges) */
} f2d_spawn_shape;

/** A body with one shape. Every field of the two defs is carried: the format-1 fields always,
 *  the others (the shape's filter, is_sensor and event flags; the body's gravity scale,
 *  damping and fixed rotation) in the extension when any of them is not its default. */
typedef struct f2d_spawn {
	f2d_body_def body;
	f2d_shape_def shape;
	uint8_t kind; /**< f2d_spawn_shape */
	f2d_vec2 half_extents;
	f2d_circle circle;
	int32_t count;
	f2d_vec2 points[F2D_MAX_POLYGON_VERTICES];
	f2d_capsule capsule; /**< F2D_SPAWN_CAPSULE (encoded as kind 3, c1, c2, radius) */
} f2d_spawn;

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
	} u;
} f2d_command;

typedef struct f2d_command_result {
	f2d_result result;   /**< F2D_OK, or why this command changed nothing */
	f2d_body_id created; /**< for F2D_CMD_CREATE_BODY */
} f2d_command_result;

/** A zeroed command of the given type with default body/shape defs where it has them. */
f2d_command f2d_default_command(f2d_command_type type, uint8_t player, uint16_t sequence);

/** Applies one frame of commands in canonical order (player, then sequence), whatever order
 *  they are given in. The batch is refused whole (F2D_ERROR_INVALID_VALUE, nothing applied)
 *  when it holds more than F2D_MAX_FRAME_COMMANDS commands, an unknown type or a repeated
 *  (player, sequence). Otherwise every command is tried: one that fails (a stale handle, a bad
 *  value) changes nothing and records its error in results[i] (results may be NULL), and the
 *  call returns F2D_OK. Payload commands do nothing. Call it before f2d_world_step. */
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

/** The command type's name ("apply_force", ..., "set_fixed_rotation"); NULL for others. */
const char *f2d_command_type_name(uint8_t type);

#ifdef __cplusplus
}
#endif
#endif
