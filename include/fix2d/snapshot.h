/* fix2d - snapshots: save, restore and clone worlds for rollback, and a portable byte form for
 * the wire and the disk. Include next to fix2d.h.
 * SPDX-License-Identifier: MIT
 *
 * A snapshot holds everything the future of a world depends on: settings (the world def except
 * the allocator), the step counter, bodies, shapes, joints with their accumulated impulses,
 * contact arbiters with feature ids and accumulated impulses (warm starting), the id pools with
 * their free lists, user data and the run-time event counters. After a restore the world steps
 * to exactly the states (and f2d_world_hash values) the original stepped to. Per-step caches
 * (bounding boxes, world-space polygons, solver data) are not in the portable form: the step
 * recomputes them; the in-process form keeps those the next step reuses (below).
 *
 * Handles: a handle taken before the snapshot is valid after restoring it exactly when its
 * object was alive at the snapshot; handles of objects created after the snapshot are rejected
 * after the restore, and the ids they had are handed out again, in the same order, by the same
 * calls.
 *
 * Two forms, one encoding of the state (the in-process bodies and arbiters in fixed-size records):
 *  - in-process (f2d_snapshot_save / f2d_snapshot_restore): for rollback, in the process that
 *    wrote it. Sealed (a check, below); a stable format is not promised between library
 *    versions.
 *  - portable (f2d_snapshot_save_portable / f2d_snapshot_load): versioned, little-endian,
 *    with the math-flavour fingerprint and an XXH3-64 checksum; the same world gives the same
 *    bytes on every host. For late join, desync recovery and files.
 * Both are validated completely before anything is written: every count is bounded by
 * F2D_MAX_OBJECTS and by the length of the bytes before memory is reserved, every value is
 * range checked, polygons are rebuilt with f2d_make_polygon, every id must name a live object,
 * free lists must hold exactly the dead ids once each, and the encoding must be the canonical
 * one (re-saving a loaded snapshot gives the same bytes). A refused snapshot returns an error
 * code, f2d_world_last_error(world) says what was wrong, and the world is unchanged.
 *
 * Portable format, version 9 (every integer little-endian; fix16 values as int32):
 *   header (40 bytes): "fix2dsnp", u32 format version, u32 reserved (0),
 *     u64 math-flavour fingerprint, u64 payload length, u64 XXH3-64 of the payload (seed 0)
 *   varint: LEB128 (7 bits a byte, low group first, the high bit set when more follow; at
 *     most 5 bytes, below 2^32, minimal: no last byte 0 but for the value 0); zigzag(v) =
 *     (v << 1) ^ (v >> 31) (0, -1, 1, -2 -> 0, 1, 2, 3); delta(v, p) = the varint of
 *     zigzag(v - p), the difference taken modulo 2^32 (every value has one encoding);
 *     rotate(q, v) = (round16(q.c v.x - q.s v.y), round16(q.s v.x + q.c v.y)) in 64 bits,
 *     round16(p) = floor((p + 2^15 - (p < 0)) / 2^16) (to nearest, halves away from zero);
 *     unit(f, o) = sign(o) round(sqrt(2^32 - f^2)) (0 when f^2 >= 2^32; + when o >= 0): the
 *     other component of a unit rotation whose one component is f
 *   payload:
 *     world: u64 step_count; gravity x, y; time_step; i32 iterations,
 *       joint_position_iterations; bias_factor, linear_slop, speculative_distance,
 *       restitution_threshold, max_translation, max_rotation; u8 warm_starting;
 *       u8 enable_sleep; linear_sleep_tolerance, angular_sleep_tolerance, time_to_sleep;
 *       i32 body_capacity, contact_capacity; u64 out_of_range_events, overflow_events;
 *       i32 last_out_of_range_body (-1: none)
 *     bodies (version 5): u32 n (ids handed out), n records, u32 free count, free ids in
 *       stack order
 *       record: varint generation, varint flags (1 alive, 2-4 type << 1, 8 moving, 16 same
 *       mass as the previous live dynamic body, 32 sleep record, 64 origin stored, 128 force,
 *       256 user data; a dead record has flags 0); if alive: delta(centre x, previous live
 *       body's centre x), delta(centre y, ...), delta(q.s, previous live body's q.s),
 *       delta(q.c, unit(q.s, previous live body's q.c)) (version 9; previous q = (0, 0) before
 *       the first live body); [delta(origin x, centre x),
 *       delta(origin y, centre y): only when the origin is not centre - rotate(q, local
 *       centre), what a step and setting a transform make it; never when it is]; [moving:
 *       zigzag varints v.x, v.y, w]; [force: zigzag varints force x, y, torque]; [dynamic, not
 *       same: zigzag varints mass, inertia, local centre x, y]; [u64 user data]; [sleep
 *       record: u8 (1 asleep, 2 sleep disabled), zigzag varint sleep_time] (absent: awake,
 *       may sleep, sleep_time 0)
 *     shapes: the same pool layout; record (version 5): varint generation, u8 flags (1 alive,
 *       2 polygon, 4 user data, 8 same geometry, 16 same material as the previous live shape,
 *       32 a type byte follows); if alive: [u8 type: 2 capsule, 3 segment, 4 chain segment];
 *       delta(body, previous live shape's body + 1) (-1 before the first); [density,
 *       friction, restitution]; [polygon: u8 count, count vertices | circle: centre, radius |
 *       capsule: centres, radius | segment: points | chain segment: points, ghosts];
 *       [u64 user data]
 *     joints: the same pool layout; record: u32 generation, u8 flags (1 alive, 2 limit,
 *       4 motor, 8 collide connected, 16 user data); if alive: u32 body a, body b; local
 *       anchors a, b; reference angle, lower, upper, motor speed, max motor torque; impulse x, y,
 *       motor, lower and upper impulses; [u64 user data]
 *     arbiters (version 9): u32 n, then n records in (shape a, shape b) order, each a
 *       sequence of varints: head = (a - previous a) << 4 | kind << 2 | (point count - 1) << 1
 *       | same, with previous a = 0 for the first record, kind 0 (not recycled), 1 (recycled:
 *       the block below), 2 (recycled: the block, then more groups), never 3, and same = 1 when
 *       friction and restitution equal the previous record's (never in the first record; when
 *       they are equal, same must be 1); gap = b - previous b - 1 when a equals the previous
 *       record's a, else b - a - 1; [friction, restitution] when same = 0; per point (1..2):
 *       feature id (the second point: its id xor the first's) bit-permuted (bit 0 stays, bits
 *       4..31 go to 1..28, bits 1..3 to 29..31), normal impulse (0..2^31-1), tangent impulse
 *       zigzag coded; when recycled (a manifold kept by contact recycling,
 *       f2d_world_def.contact_recycle_distance) the residuals of groups 0..7 below:
 *         the block (groups 0..2, always): a byte W | N << 4 (W 0..15, N 0..7), then the
 *           zigzag residuals of the four wide values (group 0's first, group 1's first, group
 *           2's x, y) in W bits each and of the two narrow ones (group 0's other, group 1's
 *           other) in N bits each, packed low bit first from the low bit of the next byte, the
 *           last byte's unused high bits 0; W and N are the bit lengths of the largest wide and
 *           narrow zigzag value (0 when all are 0); when one of them would exceed 15 (wide) or
 *           7 (narrow), instead the byte 0x80 and the six as zigzag varints in the same order
 *         kind 2: a mask (1..31, bit g - 3 for group g), then for each bit set, in bit order,
 *           its group of residuals, zigzag varints, not all zero (a group of 3..7 whose bit is
 *           clear, or every one for kind 1, is all zero)
 *       A residual is value - prediction, modulo 2^32, except rotation and normal components
 *       (within +-L, L = 2^16 + 2^8), taken modulo 2L + 1 into [-L, L] against the prediction
 *       clamped to [-L, L]. With A, B the arbiter's bodies now (centres c, rotations q) and
 *       dc0 = r_a[0] - r_b[0]:
 *         0, 1: the cached rotations of A, B at the manifold's build (c, s); with sf = |q.s|
 *           <= |q.c| of the body's q now, first the component s (sf) or c against q's, then the
 *           other against unit(first, q's other)
 *         2: dc0 against c_b - c_a (x, y)
 *         3: per point its separation against
 *           sat(base + round16(dp.x n.x + dp.y n.y)), dp = (c_b - c_a) + rotate(turn_b, r_b) -
 *           rotate(turn_a, r_a), turn = (round16(q.c k.c + q.s k.s), round16(q.s k.c - q.c k.s))
 *           for q now and k cached ((1, 0) when q = k): contact recycling's update
 *         4: the normal (x, y), 5: per point r_a (x, y), 6: per point the base separation,
 *           against the narrow phase's manifold (f2d_collide; point k for k below its count,
 *           else 0) of shape a with body A at centre c_a, rotation cached_q_a and shape b with
 *           body B at centre c_a + dc0, rotation cached_q_b (origin = centre - rotate(rotation,
 *           local centre)), speculative distance the world's, r_a = point - c_a; 0 for all of
 *           them unless both cached rotations have |c^2 + s^2 - 2^32| <= 2^24 and dc0's
 *           residual (group 2) is within +-2^16 on both axes
 *         7: the second point's r_b against r_a[1] - dc0 (count 2 only)
 *       (r_b[0] is r_a[0] - dc0.)
 *     options (version 3): hit_event_threshold; u32 n, n bodies whose options are not the
 *       defaults, in id order: u32 id, gravity_scale, linear_damping, angular_damping, u8
 *       fixed_rotation; u32 n, n shapes whose filter or flags are not the defaults, in id
 *       order: u32 id, u64 category bits, u64 mask bits, i32 group index, u8 flags (1 sensor,
 *       2 contact events, 4 hit events, 8 sensor events); u32 n, n sensor overlaps in
 *       increasing order: u64 (sensor id << 32 | visitor id); u32 n, n end events owed by
 *       destroyed shapes, in destroy order: u8 kind (0 contact, 1 sensor), u32 shape a,
 *       generation a, shape b, generation b; u32 contact_recycle_distance (version 7; 0..0.25
 *       m); u32 substep_count (0..8; 0: the Gauss-Seidel
 *       solver; version 6: always there, in version 5 only when not 0, so a payload cut just
 *       before it was a valid world of the other solver)
 * The in-process form (version 8) is a 48-byte header ("fix2dmem", u32 version, u32 reserved,
 * u64 payload length, u32 ids handed out of bodies, shapes and joints, u32 reserved, u64 seal:
 * XXH3-64 of the payload with a fixed seed) and the portable payload but for two sections of
 * fixed-size records (so that a restore reads words, not varints; src/snapshot_fast.c):
 *     bodies: u32 n, n records of 104 bytes: u32 flags (1 alive, 2-4 type << 1, 8 awake,
 *       16 enable_sleep, 32 fixed_rotation), u32 generation, sleep_time, origin, q.c, q.s,
 *       centre, v, w, force, torque, local centre, mass, inv_mass, inertia, inv_inertia, u64
 *       user data, gravity_scale, linear_damping, angular_damping; u32 free count, free ids
 *     arbiters: u32 n, n records of 128 bytes: shape a, shape b, friction, restitution,
 *       normal, speculative distance, base separations, cached_q_a, cached_q_b (c, s each), u32
 *       flags (0-1 point count, 4 frozen, 8 active, 16 recycled), then two points (the second
 *       kept as it is when the count is 1): feature id, pn, pt, r_a, r_b, separation; then the
 *       u64 digest of the recycled geometry (version 8; the state hash's, format 9)
 *   with the substep_count word always there, followed by caches kept so that the first step
 *   after a restore costs what a normal step costs: the pair-sweep order (u32 n or 0xFFFFFFFF,
 *   n shape ids), then u32 0, or u32 1 and the chain of caches of a world whose next step would
 *   have been incremental (the broad phase's pairs, bitmap, fat boxes and candidates, every live
 *   shape's world cache; the arbiters' manifolds are in their records). A restore checks what
 *   the portable form checks of the shared sections, and of the two above: the id counts, non-
 *   zero generations, flags within their bits, the free list exactly the dead ids, the Gauss-
 *   Seidel speed bounds; arbiters naming two live shapes in strictly increasing key order with
 *   at most two points. It takes as written the values a step of the saving world computed:
 *   a body's pose, velocity, force, mass data and their inverses, sleep state and options, an
 *   arbiter's material, ids, impulses and manifold, and the chain, so only sealed bytes are
 *   taken: a damaged in-process snapshot is refused ("seal mismatch"). The seal is a check, not
 *   an authentication (its seed is public): bytes from outside the process belong in the
 *   portable form, which validates every value. The state part is a function of the state; the
 *   chain and the arbiters' per-step fields (speculative distance, frozen, active, a manifold
 *   not recycled) depend on the world's history too.
 */
#ifndef FIX2D_SNAPSHOT_H
#define FIX2D_SNAPSHOT_H

#include "fix2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the portable format this build writes and reads. */
#define F2D_SNAPSHOT_FORMAT_VERSION 9

/* ---- In-process snapshots (rollback) ---- */

/** Bytes f2d_snapshot_save needs for the world as it is now (0 for a NULL world). */
size_t f2d_snapshot_size(const f2d_world *world);

/** Writes an in-process snapshot into buffer[0..capacity); never allocates. *written receives
 *  the snapshot's length; when the buffer is too small the call returns
 *  F2D_ERROR_INVALID_VALUE and *written receives the length needed. The world is only written
 *  to for the error message. */
f2d_result f2d_snapshot_save(f2d_world *world, void *buffer, size_t capacity, size_t *written);

/** Restores the world in place from an in-process snapshot of it (or of any world: the state
 *  is replaced; the world keeps its allocator). Allocates only when the world's arrays are
 *  smaller than the snapshot needs (F2D_ERROR_OUT_OF_MEMORY then leaves it unchanged). */
f2d_result f2d_snapshot_restore(f2d_world *world, const void *snapshot, size_t size);

/** A new world with the same state and the same allocator, sharing nothing with the original.
 *  F2D_ERROR_OUT_OF_MEMORY leaves *out untouched. */
f2d_result f2d_world_clone(const f2d_world *world, f2d_world **out);

/* ---- Portable snapshots (wire and disk) ---- */

/** Bytes f2d_snapshot_save_portable needs for the world as it is now. */
size_t f2d_snapshot_portable_size(const f2d_world *world);

/** Writes the portable form (as f2d_snapshot_save: no allocation, *written, too-small rule). */
f2d_result f2d_snapshot_save_portable(f2d_world *world, void *buffer, size_t capacity,
                                      size_t *written);

/** Replaces the state of an existing world with a portable snapshot. Validates everything
 *  first; on any error the world is unchanged and f2d_world_last_error says why. Codes:
 *  F2D_ERROR_INVALID_VALUE (truncated, bad magic, version, fingerprint, checksum, lengths,
 *  non-canonical encoding, values out of range), F2D_ERROR_CAPACITY (a count above
 *  F2D_MAX_OBJECTS), F2D_ERROR_BAD_POLYGON, F2D_ERROR_MASS_RANGE, F2D_ERROR_INVALID_HANDLE (an
 *  id that names no live object, a bad free list), F2D_ERROR_OUT_OF_MEMORY. */
f2d_result f2d_snapshot_load(f2d_world *world, const void *bytes, size_t size);

/** Creates a world from a portable snapshot. Only the allocator of def is used (def may be
 *  NULL: malloc/free); every setting comes from the snapshot. Codes as f2d_snapshot_load
 *  (F2D_ERROR_OUT_OF_MEMORY included). On failure *out is NULL; use f2d_snapshot_check to
 *  learn why. */
f2d_result f2d_snapshot_load_new(const void *bytes, size_t size, const f2d_world_def *def,
                                 f2d_world **out);

/** Validates a portable snapshot as f2d_snapshot_load would, without keeping a world, with
 *  its codes (F2D_ERROR_OUT_OF_MEMORY included); the reason of a refusal is copied into
 *  message (may be NULL). Memory comes from def's allocator (def may be NULL). */
f2d_result f2d_snapshot_check(const void *bytes, size_t size, const f2d_world_def *def,
                              char *message, size_t message_capacity);

/* ---- Where the bytes go ---- */

typedef struct f2d_snapshot_layout {
	size_t total; /**< f2d_snapshot_size or f2d_snapshot_portable_size */
	size_t header, world, bodies, shapes, joints, arbiters;
	size_t caches; /**< in-process only: the pair-sweep order and the chain of caches */
} f2d_snapshot_layout;

/** Size of each section of the in-process (portable = false) or portable snapshot. */
f2d_result f2d_snapshot_measure(const f2d_world *world, bool portable, f2d_snapshot_layout *out);

/* ---- Sync test (as GGPO's SyncTest) ---- */

/** Advances the world by one frame: applies the inputs of `frame` and steps. It must be a
 *  function of the world's state and the frame number only (that is what the test checks).
 *  Return the step's result; F2D_OK, F2D_ERROR_OUT_OF_RANGE and F2D_ERROR_OVERFLOW count as a
 *  completed frame, any other code stops the test. NULL means f2d_world_step. */
typedef f2d_result (*f2d_sync_advance_fn)(f2d_world *world, int64_t frame, void *context);

typedef struct f2d_sync_report {
	int64_t first_bad_frame;  /**< -1: every resimulated frame matched the first run */
	uint64_t expected_hash;   /**< hash of first_bad_frame in the first run */
	uint64_t actual_hash;     /**< and after the rollback and resimulation */
	int64_t frames_simulated; /**< frames advanced, first runs and resimulations */
} f2d_sync_report;

/** Runs `frames` frames from the world's current state (frame numbers 0..frames-1). After every
 *  frame it restores the snapshot taken `rollback` frames earlier (fewer at the start),
 *  resimulates up to the present and compares every hash (and step result) with the first
 *  run. Stops at the first difference. Returns F2D_OK when the test ran (see report), or an
 *  error for bad arguments (frames in [1, 10^6], rollback in [1, 64]), a failed allocation
 *  or a failed advance. Snapshot buffers come from the world's allocator. The world ends at
 *  the last frame run. */
f2d_result f2d_sync_test(f2d_world *world, int32_t frames, int32_t rollback,
                         f2d_sync_advance_fn advance, void *context, f2d_sync_report *report);

#ifdef __cplusplus
}
#endif
#endif
