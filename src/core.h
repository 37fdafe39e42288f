/* fix2d internal state shared by the subsystems.
 * SPDX-License-Identifier: MIT
 *
 * Every array is indexed by object id; iteration is always in increasing id order, so the order
 * of every computation is a function of ids and content only, never of addresses.
 */
#ifndef FIX2D_CORE_H
#define FIX2D_CORE_H

#include "fix2d/fix2d.h"
#include "fmath.h"

#include <stddef.h>
#include <string.h>

#define F2D_NULL_INDEX (-1)

/* ---- base.c: allocation through the world's allocator (malloc/free unless the def gave
 * one); errors and id pools are declared below, next to the world ---- */
f2d_allocator f2d_default_allocator(void);
void *f2d_alloc(f2d_world *w, size_t size);
void f2d_free(f2d_world *w, void *p, size_t size);
/** Grows *array (element size elem) to hold at least need elements; returns false on OOM
 *  (then *array and *capacity are unchanged). */
bool f2d_grow(f2d_world *w, void **array, int32_t *capacity, int32_t need, size_t elem);
/** f2d_grow for an array that starts on a 64-byte boundary (bodies, shapes, joints, arbiters:
 *  the state hash reads whole cache lines of them); freed with
 *  f2d_free_aligned, copied with f2d_alloc_aligned. */
bool f2d_grow_aligned(f2d_world *w, void **array, int32_t *capacity, int32_t need, size_t elem);
void *f2d_alloc_aligned(f2d_world *w, size_t size);
void f2d_free_aligned(f2d_world *w, void *p, size_t size);

/* ---- id pool: deterministic allocation, LIFO reuse of freed ids ---- */
typedef struct f2d_id_pool {
	int32_t *free_ids;
	int32_t free_count, free_capacity;
	int32_t next; /* ids [0, next) have been handed out at some time */
} f2d_id_pool;

/* ---- objects ---- */
typedef struct f2d_body {
	/* first cache line (64 bytes; the body array is 64-byte aligned): the state a step
	 * changes and the hash reads every step (hash format 7: this line is the body's record,
	 * one 64-byte stripe taken by one masked load; hash.c checks this layout at compile time
	 * and falls back to writing the record field by field when it does not hold) */
	uint32_t generation; /* bumped on destroy; live iff alive */
	bool alive;
	/* sleeping (island.c): state, hashed and in snapshots */
	bool awake;        /* dynamic: simulated this step; kinematic/static: always true */
	bool enable_sleep; /* false: sleep_time stays 0, so the body's island never sleeps */
	bool fixed_rotation; /* option (default false): inv_inertia is 0; inertia keeps the
	                      * shapes' value */
	f2d_body_type type;
	fix16_t sleep_time; /* s spent below the sleep tolerances, capped at time_to_sleep */
	f2d_vec2 origin;    /* body origin (the user's position) */
	f2d_rot q;
	f2d_vec2 center; /* centre of mass, world */
	f2d_vec2 v;      /* of the centre of mass */
	fix16_t w;
	f2d_vec2 force;
	fix16_t torque;
	/* second line: the mass data (state that changes only with the shapes, the type and
	 * the snapshots: hash format 6 hashes it as one cached u64 for all bodies) and the rest */
	f2d_vec2 local_center; /* centre of mass, body frame */
	fix16_t mass, inv_mass;
	fix16_t inertia, inv_inertia; /* about the centre of mass */
	int32_t shape_list;           /* first shape id, linked by shape.next */
	int32_t joint_count;          /* joints attached (for collide_connected filtering) */
	int32_t joint_list; /* derived, not state: first attached joint id, linked by the joints'
	                     * next_a / next_b (joint.c f2d_joint_link; rebuilt on load) */
	uint64_t user_data;
	/* options (state; defaults 1, 0, 0, and fixed_rotation false above) */
	fix16_t gravity_scale, linear_damping, angular_damping;
} f2d_body;

/* Can the body move this step? An awake dynamic body, or a kinematic body with a velocity. */
static inline bool f2d_body_active(const f2d_body *b)
{
	return b->type == F2D_DYNAMIC_BODY
	           ? b->awake
	           : (b->type == F2D_KINEMATIC_BODY && (b->v.x != 0 || b->v.y != 0 || b->w != 0));
}

/* Layout (issue 16, the contact pipeline): the shapes array is 64-byte aligned and a shape is
 * 7 cache lines. What a box pair's narrow phase reads of each shape (type, body, sweep, turn
 * for the speculative distance, the world vertices, normals 0..1 and the box tag in normals[4],
 * collision.c box_of) lies in its first two lines (bytes 0..127); it used to take four (the
 * count in line 2, turn in line 3). The AABB, count and cache key follow in line 2. */
typedef struct f2d_shape {
	f2d_shape_type type;
	int32_t body;
	f2d_vec2 sweep; /* the body's predicted motion the AABB was stretched by (broadphase.c,
	                 * f2d_body_sweep): part of the cache's key */
	fix16_t turn;   /* per step: h |w| reach, how far the body's turn may move the shape
	                 * (broadphase.c, every step; contact.c's speculative distance) */
	/* per-step cache (not state): the shape in world coordinates and its fattened box */
	f2d_polygon world_polygon; /* vertices and normals only (bytes 20..147) */
	f2d_vec2 world_center;     /* circle centre */
	f2d_aabb aabb;
	fix16_t reach; /* a bound on the shape's distance from its body's centre of mass (from
	                * the AABB, with the cache) */
	uint32_t generation;
	bool alive;
	int32_t next; /* next shape of the same body, in id order */
	f2d_polygon polygon;
	f2d_circle circle;
	/* capsule (radius > 0), segment and chain segment (radius 0; shapes.c) */
	f2d_capsule capsule;
	f2d_vec2 ghost1, ghost2; /* chain segment: the neighbours' far points (= the end point
	                          * itself at an open chain's end) */
	fix16_t density, friction, restitution;
	uint64_t user_data;
	/* cache (not state): XXH3-64 of the shape's hash record (hash.c), refreshed by
	 * f2d_shape_refresh_digest whenever generation, alive, type, body, material or geometry
	 * change (the state hash folds it instead of re-encoding the shape every step) */
	uint64_t digest;
	/* game options (state): who collides, sensor, which events */
	f2d_filter filter;
	bool is_sensor;
	bool enable_contact_events, enable_hit_events, enable_sensor_events;
} f2d_shape;
_Static_assert(offsetof(f2d_shape, world_polygon) + offsetof(f2d_polygon, normals) +
                       5 * sizeof(f2d_vec2) <=
                   128,
               "a box pair's narrow phase reads the first two cache lines of a shape");

typedef struct f2d_joint {
	uint32_t generation;
	bool alive;
	int32_t body_a, body_b;
	f2d_vec2 local_a, local_b; /* anchors relative to the body origins */
	fix16_t reference_angle;
	bool enable_limit, enable_motor, collide_connected;
	fix16_t lower, upper, motor_speed, max_motor_torque;
	uint64_t user_data;
	/* accumulated impulses (warm starting) */
	f2d_vec2 impulse;
	fix16_t motor_impulse, lower_impulse, upper_impulse;
	/* per-step solver data (recomputed in the pre-step, not state) */
	f2d_vec2 r_a, r_b;
	fix16_t k11, k12, k22; /* inverse of K, symmetric */
	f2d_vec2 bias;
	fix16_t axial_mass, angle;
	/* ---- the other joint types (joint_internal.h, src/joint_*.c; type 0 is revolute and
	 * leaves all of this zero) ---- state: */
	uint8_t type;       /* f2d_joint_type */
	bool enable_spring; /* distance, prismatic, wheel */
	f2d_vec2 axis;      /* local unit axis in A (prismatic, wheel), linear offset (motor),
	                     * world target (mouse) */
	fix16_t length;     /* rest length (distance) */
	fix16_t hertz, damping_ratio, angular_hertz, angular_damping_ratio;
	fix16_t max_force, correction_factor; /* motor and mouse joints */
	fix16_t spring_impulse, angular_impulse;
	/* per step, not state */
	f2d_vec2 w_axis, c_lin;
	fix16_t a1, a2, s1, s2, translation, c_ang, mass2, mass3;
	fix16_t soft[3], soft2[3]; /* bias rate, mass scale, impulse scale */
	/* f2d_make_soft's last inputs (hertz > 0, damping ratio, h) and results for soft and soft2:
	 * a cache of a pure function (joint_common.c), not state; zeroed it never matches */
	fix16_t soft_key[2][3], soft_cache[2][3];
	/* derived, not state: the next joint in body_a's and in body_b's joint list */
	int32_t next_a, next_b;
} f2d_joint;

/* The fields the state hash reads come first (hash.c: id, pn, pt of a point; shape_a ..
 * count and both points' of an arbiter), so that they lie in an arbiter's first 64 bytes
 * (hash format 7: the record is that line with r_a, r_b and separation masked out). */
typedef struct f2d_contact_point {
	uint32_t id;       /* feature id: which edges/vertices made this point */
	fix16_t pn, pt;    /* accumulated normal and tangent impulses */
	f2d_vec2 r_a, r_b; /* from the centres of mass to the point */
	fix16_t separation;
} f2d_contact_point; /* the solver's data of a point are in f2d_contact_batch */

/* 128 bytes, and the arrays of them (w->arbiters, w->arbiters_next) 64-byte aligned
 * (f2d_grow_aligned): the hashed fields of format 7 (in the first 64 bytes) are one cache line
 * an arbiter (issue 16; they were two or three). The count is a byte and the per-step flags
 * share its dword (hash.c masks them out), which leaves room for the recycling cache (issue 16,
 * contact.c f2d_recycle_arbiter): state while `recycle` is set. */
typedef struct f2d_arbiter {
	int32_t shape_a, shape_b; /* key, shape_a < shape_b */
	fix16_t friction, restitution;
	int8_t count;   /* 0..2 */
	bool frozen;    /* per step: copied unchanged because neither body could move */
	bool active;    /* per step: solved (one body moves); set by f2d_islands_wake */
	uint8_t recycle; /* state: 1 when the cache below is that of the manifold's build (it was
	                  * built with the fixed speculative distance and recycling on) */
	f2d_contact_point points[2];
	int32_t body_a, body_b;
	f2d_vec2 normal;     /* from A to B */
	fix16_t speculative; /* per step: the gap up to which its manifold kept points
	                      * (f2d_pair_speculative; contact.c) */
	/* the recycling cache (state while recycle is 1, else zero): each point's separation when
	 * the manifold was built, and the bodies' rotations then */
	fix16_t base_separation[2];
	f2d_rot cached_q_a, cached_q_b;
} f2d_arbiter;
typedef char f2d_arbiter_is_128_bytes[sizeof(f2d_arbiter) == 128 ? 1 : -1];

/* ---- the contact solver's working set (solver.c) ----
 * The active arbiters of a step, coloured so that no two arbiters of one colour share a dynamic
 * body, packed colour after colour into batches of F2D_LANES arbiters of one colour, as structs
 * of arrays (one lane an arbiter). Rebuilt by the pre-step; the accumulated impulses go back to
 * the arbiters after the last iteration. Not state. */
#define F2D_LANES 8

/* fix16 values (the SIMD kernels widen them to 64-bit lanes as they load them) */
typedef int32_t f2d_lane;
/* Two arrays of fix16 lanes in one: lane l's two values side by side, x[l][0] then x[l][1],
 * one 64-bit word a lane (x[l][0] its low half on the x86 CPUs the kernels run on). The SIMD
 * kernels take only products of these (vpmuldq, which reads the low half of a 64-bit lane as
 * a signed 32-bit value): they load 8 (AVX-512) or 4 (AVX2) words as they are for the first
 * values and shift them down by 32 bits for the second, against a sign-extending load
 * (vpmovsxdq) of each (solver_kernel.h, K_LO and K_HI; issue 16). */
typedef int32_t f2d_lane2[F2D_LANES][2];

/* The lanes of one point. The warm start and the soft passes stream the batches every pass
 * (pyramid100: some 2.3 MB, past the 1 MB L2): what they read comes first (hot, 416 bytes),
 * what only the pre-step, the Gauss-Seidel passes, restitution and f2d_soft_end read after it
 * (cold, 192 bytes), so that a pass's loads touch the hot lines only (f2d_contact_batch). */
typedef struct f2d_point_lanes {
	/* hot */
	f2d_lane2 wn, wt;                      /* (r x d) / I: [l][0] of body a, [l][1] of body b */
	f2d_lane pn[F2D_LANES], pt[F2D_LANES]; /* accumulated impulses */
	f2d_lane2 rn, rt; /* r x n, r x t: [l][0] of body a, [l][1] of body b */
	f2d_lane mass_n[F2D_LANES], mass_t[F2D_LANES];
	/* the soft step: the manifold's separation s0 (0 past the arbiter's points) */
	f2d_lane sep[F2D_LANES];
	/* cold */
	f2d_lane bias[F2D_LANES]; /* the Gauss-Seidel passes' target */
	/* restitution's target normal velocity -e vn0 (vn0: the relative normal velocity before
	 * the step's forces and solve), 0 where restitution does not act */
	f2d_lane bounce[F2D_LANES];
	/* the lever arms r_a, r_b the pre-step computed rn .. mass_t from (0 past the
	 * arbiter's points; solver.c, kept_lanes) */
	f2d_lane rax[F2D_LANES], ray[F2D_LANES], rbx[F2D_LANES], rby[F2D_LANES];
} f2d_point_lanes;

/* 1,856 bytes (29 lines), 64-byte aligned (the struct's alignment, and w->batches by
 * f2d_grow_aligned), laid out so that the soft passes load 20 of its lines (their 1,232 bytes)
 * and the warm start 10 (592 bytes: lines 4..10, 17..19); the 1,812-byte layout before,
 * unaligned and hot and cold mixed, had them load 24..27 and 13..18 lines a batch. A cold head
 * (80 bytes), the hot head (400 bytes: lines 1..7 with the start of p[0]), p[0] (its hot part
 * ends line 13), p[1] (its hot part from line 17 on, 416 bytes: 7 lines) and the cold tail.
 * The offsets are checked below (and tests/test_soft_step.c, batch_layout). */
typedef struct f2d_contact_batch {
	/* cold head */
	_Alignas(64) int32_t arbiter[F2D_LANES]; /* index in w->arbiters */
	/* The pre-step's geometric lane constants (n, n / m, r x n, r x t, (r x d) / I, the
	 * effective masses, k12) are a function of the normal, the points' lever arms (p[]), the
	 * point count and the bodies' inverse masses: these inputs as they were when the constants
	 * were computed (points here, the masses in the tail), and the lanes whose constants they
	 * are (kept: bit l; 0 when the layout is new; solver.c, kept_lanes). */
	f2d_lane points[F2D_LANES];
	unsigned kept;
	int32_t pad_head[3];
	/* hot head: the soft passes' lane constants, then what the warm start reads too */
	f2d_lane2 n; /* the normal: [l][0] x, [l][1] y */
	f2d_lane friction[F2D_LANES];
	f2d_lane2 k12; /* [l][0] along n, [l][1] along t */
	/* the soft step: 1 where a body cannot move (the stiffer softness), else 0 */
	f2d_lane stiff[F2D_LANES];
	int32_t lanes;   /* lanes in use, 1..F2D_LANES, the first ones */
	bool sequential; /* lanes may share bodies (colour overflow): solved in lane order */
	bool bounce;     /* a lane has a restitution target */
	/* the lanes (in use) whose body a / body b can be moved by a contact impulse (inverse mass
	 * or inverse inertia not 0); the SIMD kernels store only those rows (solver.c,
	 * moving_lanes) */
	unsigned moves_a, moves_b;
	int32_t body_a[F2D_LANES], body_b[F2D_LANES];
	f2d_lane2 dva, dvb; /* n / m of body a, of body b: [l][0] x, [l][1] y */
	f2d_point_lanes p[2];
	/* cold tail: the kept inputs' inverse masses and inertias */
	f2d_lane ima[F2D_LANES], imb[F2D_LANES], iia[F2D_LANES], iib[F2D_LANES];
} f2d_contact_batch;
/* the layout described above */
_Static_assert(sizeof(f2d_point_lanes) == 608 && offsetof(f2d_point_lanes, bias) == 416,
               "f2d_point_lanes: 416 hot bytes, then 192 cold");
_Static_assert(sizeof(f2d_contact_batch) == 1856 && _Alignof(f2d_contact_batch) == 64 &&
                   offsetof(f2d_contact_batch, n) == 80 && offsetof(f2d_contact_batch, p) == 480 &&
                   (offsetof(f2d_contact_batch, p) + 416) % 64 == 0 &&
                   (offsetof(f2d_contact_batch, p) + sizeof(f2d_point_lanes)) % 64 == 0,
               "f2d_contact_batch: the hot lines 1..13 and 17..23");

/* Up to 8 joints of one colour for the joint passes in SIMD lanes (joint_lanes.c): their
 * constants for the step and, for the lanes in live, their accumulated point impulses during the
 * velocity passes (the joints get them back after the last one). Not state. */
typedef struct f2d_joint_batch {
	int64_t ma[8], mb[8], ia[8], ib[8];
	int64_t rax[8], ray[8], rbx[8], rby[8], bx[8], by[8];
	int64_t k11[8], k12[8], k22[8], ix[8], iy[8];
	/* local anchor - local centre of body a and of body b (the pre-step's, for the step's
	 * substeps) */
	int64_t lax[8], lay[8], lbx[8], lby[8];
	int32_t ids[8], ba[8], bb[8]; /* joint, body a, body b */
	int32_t n;
	unsigned live;   /* lanes solved in SIMD: no motor, no limits */
	bool sequential; /* overflow colour or a single joint: f2d_joint_solve, in order */
} f2d_joint_batch;

/* ---- collision (collision.c) ---- */
typedef struct f2d_manifold_point {
	f2d_vec2 point; /* world */
	fix16_t separation;
	uint32_t id;
} f2d_manifold_point;

typedef struct f2d_manifold {
	f2d_vec2 normal; /* world, from shape A to shape B */
	int32_t count;
	f2d_manifold_point points[2];
} f2d_manifold;

/** Shapes with their world cache up to date (f2d_shape_update_world). */
void f2d_collide(const f2d_shape *a, const f2d_shape *b, fix16_t speculative, f2d_manifold *m);
/** f2d_collide with the kernel (F2D_KERNEL_*, at most f2d_kernel_level()) its box-box path uses:
 *  the same manifold from every kernel (tests/test_narrow.c). */
void f2d_collide_kernel(const f2d_shape *a, const f2d_shape *b, fix16_t speculative,
                        f2d_manifold *m, int kernel);
/** Refreshes the world-space cache and the fattened AABB of a shape. */
void f2d_shape_update_world(f2d_shape *s, f2d_transform xf, fix16_t margin);
/** f2d_shape_update_world with the kernel (F2D_KERNEL_*, at most f2d_kernel_level()) of its box
 *  branch: the same cache from every kernel (tests/test_narrow.c). */
void f2d_shape_update_world_kernel(f2d_shape *s, f2d_transform xf, fix16_t margin, int kernel);
/** f2d_shape_update_world_kernel's AVX2 box branch alone (x86 builds only; a kernel of AVX2 or
 *  more): true when it took the shape (a polygon that is a box about its body origin) and wrote
 *  its cache, the same as f2d_shape_update_world; false for any other shape, with nothing
 *  written but a 4-gon's world_polygon.count (4, as f2d_shape_update_world writes it).
 *  f2d_shape_update_world_kernel calls it first (broadphase.c's AVX2 cache loop inlines the
 *  same branch, box_world_avx2.h). */
bool f2d_box_world_avx2(f2d_shape *s, f2d_transform xf, fix16_t margin);

/* ---- geometry (geometry.c) ---- */
/** Mass properties of one shape, Q16.16 in 64 bits so range checks happen before narrowing. */
typedef struct f2d_mass_data {
	int64_t mass;    /* kg */
	f2d_vec2 center; /* centroid, body frame */
	int64_t inertia; /* about the centroid, kg m^2 */
} f2d_mass_data;
f2d_aabb f2d_shape_compute_aabb(const f2d_shape *s, f2d_transform xf, fix16_t margin);
/** Extent of the shape from the body origin (max vertex distance / centre + radius). */
fix16_t f2d_shape_extent(const f2d_shape *s);
/** False when the shape is too large for the 64-bit mass integrals (dynamic extent limit). */
bool f2d_shape_mass(const f2d_shape *s, f2d_mass_data *md);

/* ---- capsules, segments, chain segments (shapes.c) ---- */
static inline bool f2d_shape_is_linear(const f2d_shape *s)
{
	return s->type >= F2D_CAPSULE_SHAPE;
}
/** The world cache of a capsule-like shape: world_polygon as a 2-gon (vertices 0, 1: the
 *  centres; normals 0, 1: +-the unit right normal of 0 -> 1; vertices 2, 3: the ghosts). */
void f2d_linear_update_world(f2d_shape *s, f2d_transform xf, fix16_t margin);
f2d_aabb f2d_linear_aabb(const f2d_shape *s, f2d_transform xf, fix16_t margin);
fix16_t f2d_linear_extent(const f2d_shape *s);
bool f2d_linear_mass(const f2d_shape *s, f2d_mass_data *md);
/** Narrow phase when a or b is capsule-like (collision.c dispatches here). */
void f2d_collide_linear(const f2d_shape *a, const f2d_shape *b, fix16_t speculative,
                        f2d_manifold *m);
/** Record validation shared by the creation functions and the snapshot loader. */
bool f2d_capsule_ok(const f2d_capsule *c);
bool f2d_segment_ok(f2d_vec2 p1, f2d_vec2 p2);
bool f2d_chain_segment_ok(f2d_vec2 g1, f2d_vec2 p1, f2d_vec2 p2, f2d_vec2 g2);

/* ---- queries (query.c) ----
 * A tree over the shapes' current AABBs (sorted on a Morton code of their centres, 4 to a node),
 * built by the first query after query_epoch changed: a cache, never state, no part of the
 * hash, of snapshots or of the step. query_epoch moves whenever a shape may have moved, come or
 * gone outside a step too: f2d_world_step (unless nothing moves), f2d_body_set_transform, shape
 * creation and destruction, snapshot restore and load. */
typedef struct f2d_query_node {
	fix16_t lx, ly, ux, uy;
	int32_t first, count; /* children: items (leaves) or nodes of the level below */
} f2d_query_node;

typedef struct f2d_query_cache {
	f2d_query_node *nodes; /* the leaves first, then each level, the root last */
	int32_t node_capacity, node_count, leaf_count;
	int32_t *items;  /* shape ids in leaf order */
	f2d_aabb *boxes; /* their AABBs */
	int32_t item_capacity, box_capacity, item_count;
	uint64_t *keys; /* build scratch: 2 per shape */
	int32_t key_capacity;
	void *hits; /* one query's results (query.c's q_hit) */
	int32_t hit_capacity;
	uint64_t built_epoch;
	bool built;
	/* counters for tests: tree nodes and shapes (boxes) looked at, since the world was made */
	uint64_t node_visits, shape_visits;
} f2d_query_cache;
void f2d_query_free(f2d_world *w);
/* test hook: query.c's cheap segment-box test (maybe), the exact one and the closest ray's node
 * test (node; same_entry: both accept with the same entry), t in [0, h / 2^32] (h < 2^32: the
 * closest ray's bounds shrunk to it) or [0, 1] */
void f2d_query_seg_tests(int64_t ox, int64_t oy, int64_t dx, int64_t dy, int64_t gx, int64_t gy,
                         uint64_t h, int64_t lx, int64_t ly, int64_t ux, int64_t uy, bool *maybe,
                         bool *exact, bool *node, bool *same_entry);

/* ---- events (events.c) ----
 * State (in the hash and both snapshot forms, so that a restored world makes the events of the
 * first run): the sensor overlaps, and the end events owed by shapes destroyed since the last
 * step. The rest is the last step's output and scratch. */
typedef struct f2d_pending_end {
	uint8_t sensor;        /* 0: a contact (a < b), 1: a sensor overlap (a sensor) */
	int32_t a, b;          /* shape ids */
	uint32_t gen_a, gen_b; /* their generations when the pair ended */
} f2d_pending_end;

typedef struct f2d_events {
	uint64_t *overlaps; /* (sensor << 32 | visitor), increasing: state */
	int32_t overlap_count, overlap_capacity;
	uint64_t *overlaps_next; /* this step's, swapped in */
	int32_t overlaps_next_count, overlaps_next_capacity;
	f2d_pending_end *pending; /* state, in destroy order */
	int32_t pending_count, pending_capacity;
	uint64_t *start_keys; /* the arbiters' keys at the start of the step (scratch) */
	int32_t start_count, start_capacity;
	fix16_t *approach; /* per arbiter: fastest approach speed before the solve (scratch) */
	int32_t *approach_point;
	int32_t approach_count; /* arbiters measured (0: no shape has hit events) */
	int32_t approach_capacity, approach_point_capacity;
	/* the last step's output */
	f2d_contact_begin_touch_event *begin;
	int32_t begin_count, begin_capacity;
	f2d_contact_end_touch_event *end;
	int32_t end_count, end_capacity;
	f2d_contact_hit_event *hit;
	int32_t hit_count, hit_capacity;
	f2d_sensor_begin_touch_event *sensor_begin;
	int32_t sensor_begin_count, sensor_begin_capacity;
	f2d_sensor_end_touch_event *sensor_end;
	int32_t sensor_end_count, sensor_end_capacity;
} f2d_events;

/* ---- the world ---- */
struct f2d_world {
	f2d_allocator allocator;
	f2d_world_def def;
	f2d_vec2 gravity;
	fix16_t h, inv_h;
	uint64_t step_count;

	f2d_body *bodies;
	int32_t body_capacity;
	f2d_id_pool body_ids;
	f2d_shape *shapes;
	int32_t shape_capacity;
	f2d_id_pool shape_ids;
	f2d_joint *joints;
	int32_t joint_capacity;
	f2d_id_pool joint_ids;

	/* arbiters sorted by (shape_a, shape_b); rebuilt every step by merging in place
	 * (contact.c); arbiters_next is scratch: the merge's queue of displaced arbiters, and the
	 * snapshot loader's second buffer (swapped in) */
	f2d_arbiter *arbiters;
	int32_t arbiter_count, arbiter_capacity;
	f2d_arbiter *arbiters_next;
	int32_t arbiters_next_capacity;
	/* per arbiter index, f2d_arbiter_geometry_digest of arbiters[i] (hash format 9: the
	 * recycled manifold's geometry, which changes only when it is built or loaded, hashed once
	 * there instead of at every hash). Moved with its arbiter wherever one is moved: the merge
	 * (arbiter_geo_next its queue's, as arbiters_next), f2d_refresh_arbiters, the removals,
	 * snapshot restore and load (arbiter_geo_next the loader's second buffer, swapped in),
	 * clones. F2D_HASH_CHECK builds check every entry at every hash (hash.c). */
	uint64_t *arbiter_geo;
	int32_t arbiter_geo_capacity;
	uint64_t *arbiter_geo_next;
	int32_t arbiter_geo_next_capacity;

	/* the contact solver's batches and colouring scratch (solver.c), per step */
	f2d_contact_batch *batches;
	int32_t batch_count, batch_capacity;
	uint64_t *body_colors;
	int32_t body_color_capacity;
	/* per arbiter index, the last colouring's key of the arbiter and its colour (solver.c,
	 * color_key); colored_count: the arbiters it covered (the colouring is reused while the
	 * keys stay the same) */
	uint64_t *arbiter_colors;
	int32_t arbiter_color_capacity, colored_count;
	/* the velocities of the bodies in contact (body_list), by body id, 4 int64 per body
	 * (v.x, v.y, w, unused) while the contact solver runs */
	int64_t (*solver_vel)[4];
	int32_t solver_vel_capacity;
	/* the soft step's displacement rows (solver_soft.c), by body id like solver_vel: the
	 * centre's move since the step began (x, y), the turn dtheta, unused (world.c's
	 * soft_step zeroes them, integrate_positions adds each substep's) */
	int64_t (*solver_disp)[4];
	int32_t solver_disp_capacity;
	int32_t *body_list;
	int32_t body_list_count, body_list_capacity;
	/* the soft step's body lists (world.c, soft_step), per step: 3 runs of body_ids.next ids,
	 * the bodies that move, then the dynamic ones whose velocity takes only gravity, then the
	 * other dynamic ones, each in id order */
	int32_t *integ_list;
	int32_t integ_list_capacity;
	/* the ids of the joints that take part in the step (world.c), per step */
	int32_t *joint_list;
	int32_t joint_list_capacity;
	int32_t *joint_order; /* the same joints, colour after colour (joint.c) */
	int32_t joint_order_capacity;
	uint8_t *joint_order_color;
	int32_t joint_order_color_capacity;
	f2d_joint_batch *joint_batches;
	int32_t joint_batch_count, joint_batch_capacity;
	/* the last joint colouring's input (joint.c, f2d_joints_prestep): per joint of joint_list
	 * its id, bodies and flags; joint_color_n: that colouring's n + 1 (0: none). The colours,
	 * joint_order and the batches' layout are reused while it stays the same. */
	int32_t (*joint_color_key)[4];
	int32_t joint_color_key_capacity, joint_color_n;

	/* cache: the live shape ids sorted by (aabb.lower.x, id) for the broad phase */
	int32_t *sweep;
	int32_t sweep_capacity, sweep_count;
	bool sweep_dirty; /* a shape was created or destroyed: rebuild the sweep list */
	/* something the contacts depend on changed outside the step (a transform set, a joint
	 * made or removed, a snapshot loaded): the next step may not take the all-asleep path */
	bool contacts_stale;
	/* continuous collision (toi.c): per body id, the time of impact of a fast body (scratch) */
	uint64_t *toi;
	int32_t toi_capacity;
	uint64_t *pairs; /* the pair keys, and the broad phase's scratch */
	int32_t pair_count, pair_capacity;
	/* broadphase.c's persistent candidates from fat boxes (a cache, never state): per shape
	 * id its fat box; the narrow shapes' keys (fat lower.x biased << 32 | id) in increasing
	 * order, the wide shapes' ids; the candidate pair keys, increasing, and a second buffer
	 * the next list is merged into; mark: STEP_MARK ^ the step whose call left them valid */
	struct {
		f2d_aabb *fat;
		int32_t (*ex)[4]; /* per shape id its AABB as lower x, y, ~upper x, ~upper y */
		struct f2d_shape_step *step; /* per shape id: the merge's record (core.h) */
		int32_t step_capacity;
		uint64_t *order, *cand, *cand2;
		int32_t *wide, *oid; /* oid: order's shape ids */
		int32_t fat_capacity, ex_capacity, order_capacity, cand_capacity, cand2_capacity;
		int32_t wide_capacity, oid_capacity;
		int32_t order_count, cand_count, wide_count;
		uint32_t band_k; /* order's bands are 2^band_k high */
		/* every shape in order is at most this wide and this high (fat box) */
		int64_t wide_limit, height_limit;
		uint64_t mark, fat_mark; /* the candidates, the fat boxes and ex */
		/* after a step with many escapes: plain sweeps (no fat boxes kept) left before the
		 * fat boxes are tried again, and the log2 of the next wait */
		uint32_t plain_left, backoff;
		/* calls that swept the fat boxes, merged escaped shapes, swept the AABBs (tests) */
		uint32_t sweeps, merges, plain;
	} bpc;

	/* islands (island.c): per-step scratch indexed by body id */
	int32_t *island_parent, *island_data;
	int32_t island_capacity, island_data_capacity;
	int32_t awake_body_count, island_count; /* of the last step (stats) */

	int32_t body_count, shape_count, joint_count;
	uint64_t out_of_range_events, overflow_events;
	int32_t last_out_of_range_body;
	bool saturated;          /* set by the solver when an impulse saturated in this step */
	bool joint_relax;        /* inside f2d_joints_relax (the soft step's joint relax pass) */
	bool bounce;             /* per step: a batch has a restitution target (solver.c) */
	bool stopped_at_edge;    /* set when a body was stopped at the world limit in this step */
	f2d_events events;       /* events.c: the last step's events and the state behind them */
	int32_t sensor_count;    /* live sensor shapes (derived) */
	int32_t hit_shape_count; /* live shapes with hit events on (derived) */
	f2d_query_cache query;   /* queries (query.c): a cache */
	uint64_t query_epoch;    /* moves when a shape may have moved (see f2d_query_cache) */
	/* the state hash's cache of its shapes section (hash.c, format 5; a cache, not state):
	 * shapes_digest is XXH3-64 of the slot digests of shapes [0, shape_ids.next) in id order,
	 * shapes_options the live shapes with options other than the defaults. Valid while
	 * shapes_cached: cleared by every change to a shape's record or options and by every
	 * snapshot restore or load (f2d_shape_refresh_digest, f2d_hash_shapes_changed), refilled
	 * at the start of a step (f2d_hash_cache_shapes), which changes no shape. */
	uint64_t shapes_digest;
	/* format 6, valid with it: XXH3-64 of the live bodies' mass, inertia and local centre in
	 * id order (hash.c masses_section; cleared as well by every body create and destroy, type
	 * and fixed-rotation change: f2d_hash_shapes_changed) */
	uint64_t masses_digest;
	int32_t bodies_options; /* format 6, valid with it: the live bodies with options other
	                         * than the defaults (for the options section; cleared as well by
	                         * the gravity scale and damping setters) */
	int32_t shapes_options;
	bool shapes_cached;
	char error[160];
};

/* base.c: writes the message (printf format) into the world's error and returns r */
f2d_result f2d_set_error(f2d_world *w, f2d_result r, const char *fmt, ...);

/** A moving body reached the world limit (its centre was clamped to it): it stops (velocity
 *  zeroed), the world counts the event and the step reports F2D_ERROR_OUT_OF_RANGE. */
static inline void f2d_stop_at_edge(f2d_world *w, f2d_body *b)
{
	b->v = f2d_v(0, 0);
	b->w = 0;
	w->out_of_range_events++;
	w->last_out_of_range_body = (int32_t)(b - w->bodies);
	w->stopped_at_edge = true;
}

/** base.c: takes an id (reusing the most recently freed one first) and grows the object array to
 * hold it; new slots are zeroed. The world is unchanged on failure. */
f2d_result f2d_pool_alloc(f2d_world *w, f2d_id_pool *pool, void **array, int32_t *capacity,
                          size_t elem, int32_t *id);
void f2d_pool_free(f2d_world *w, f2d_id_pool *pool, int32_t id);
f2d_body *f2d_get_body(const f2d_world *w, f2d_body_id id);

/* broad phase (broadphase.c) */
static inline uint64_t f2d_pair_key(int32_t a, int32_t b)
{
	return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}
/** Refreshes every live shape's world cache and AABB, then fills w->pairs[0, w->pair_count)
 *  with the keys of the overlapping pairs that may collide, in increasing key order. */
f2d_result f2d_find_pairs(f2d_world *w);

/* ---- fast impacts (issue 15) and continuous collision (toi.c) ----
 * The motion a body is predicted to make this step: h (v + h (g gravity_scale + F / m)) for an
 * awake dynamic body, h v for a moving kinematic one, else 0; each component clamped to
 * max_translation and rounded away from zero to a multiple of F2D_SWEEP_QUANTUM (1/256 m: a
 * resting body's jitter does not change it, so its cache and manifold shortcuts still work).
 * The broad phase stretches each shape's AABB by it (the direction of motion), and a pair's
 * speculative distance grows by what the two bodies can close in the step
 * (f2d_pair_speculative), so a fast body meets its contact before it passes the surface. */
#define F2D_SWEEP_QUANTUM 256
/* the most a pair's speculative distance grows by (keeps s / h inside fix16 at h = 1/1000) */
#define F2D_MAX_CLOSING F2D_FIX(8)

/** Contact recycling (contact.c f2d_recycle_arbiter): the default distance (Box2D v3's
 *  B2_CONTACT_RECYCLE_DISTANCE, 10 linear slops of 0.005 m = 0.05 m; 0 = off) and the least
 *  cosine of a body's rotation since the manifold's build (Box2D's 0.98, 64225.28 LSB: a
 *  recycled rotation has dq.c >= 64226). */
#define F2D_RECYCLE_DEFAULT F2D_MILLI(50)
#define F2D_RECYCLE_COS 64226
/** The predicted motion of b; gh = h g (rounded), dead1 its dead zone at gravity_scale 1. */
f2d_vec2 f2d_body_sweep(const f2d_world *w, const f2d_body *b, f2d_vec2 gh, int64_t dead1);
/** A bound on the distance of a shape (its unstretched AABB) from c (broadphase.c). */
fix16_t f2d_shape_reach(const f2d_shape *s, f2d_vec2 c);
/** The body transform a shape's world cache was made from (its key; broadphase.c). */
f2d_transform f2d_shape_cache_xf(const f2d_shape *s);
/** world speculative_distance + the most the two shapes' bodies can close this step. */
fix16_t f2d_pair_speculative(const f2d_world *w, const f2d_shape *a, const f2d_shape *b);
/* What the contact merge (contact.c) reads of a shape, 16 bytes a shape id in w->bpc.step
 * instead of the shape's and its body's cache lines (issue 16): written by every
 * f2d_find_pairs call for every live shape (update_caches, broadphase.c), after the cache,
 * from the same values, and read only by the merge that follows it in f2d_update_contacts. A
 * cache that is never read stale, so nothing (snapshot, load, clone, shape or body changes)
 * has to invalidate it. */
typedef struct f2d_shape_step {
	f2d_vec2 sweep; /* = the shape's sweep (its body's f2d_body_sweep) */
	fix16_t turn;   /* = the shape's turn: 0 <= turn <= 2^21 (2^18 times a reach <= 2^19, >> 16) */
	uint32_t flags; /* F2D_STEP_* */
} f2d_shape_step;
#define F2D_STEP_ACTIVE 1u /* the shape's body can move this step (f2d_body_active) */
#define F2D_STEP_MOVED 2u  /* the shape's cache was remade by this call (its bit in the bitmap) */
/** f2d_pair_speculative of the shapes whose records are a and b, spec0 the world's
 *  speculative distance (contact.c; the merge's inlined form, for tests). */
fix16_t f2d_step_speculative(fix16_t spec0, const f2d_shape_step *a, const f2d_shape_step *b);
/** Grows the continuous collision's scratch (one word per body id); false on OOM. */
bool f2d_continuous_reserve(f2d_world *w);
/** After the positions: fast bodies swept against static shapes, moved back to the first
 *  touch (toi.c). */
void f2d_solve_continuous(f2d_world *w);
/** Time of impact (query.c's exact casts): shape a at transform xf moved by d against shape b
 *  at its body's transform, a's radius grown by extra: floor(t 2^32) of the first touch, -1 on
 *  a miss, -2 when they touch at t = 0. */
int64_t f2d_sweep_shapes(const f2d_world *w, const f2d_shape *a, f2d_transform xf, f2d_vec2 d,
                         const f2d_shape *b, fix16_t extra);

/* contacts (contact.c) */
f2d_result f2d_update_contacts(f2d_world *w);
/** Which pairs of shapes may touch, the one place that decides: not the same body, at least one
 *  dynamic body, the filter rule (f2d_filter), sensors (a sensor pair is a sensor and a
 *  non-sensor with sensor events enabled on both), joints (a contact pair whose bodies share a
 *  joint without collide_connected). The broad phase asks it for every pair that is not plainly
 *  allowed (default filters, no sensor, no joint). */
bool f2d_should_collide(const f2d_world *w, int32_t shape_a, int32_t shape_b);
/* Options at their defaults are not written by the hash and the snapshots (their encodings stay
 * those of worlds without options); these say which are. */
static inline bool f2d_body_default_options(const f2d_body *b)
{
	return b->gravity_scale == F2D_ONE && b->linear_damping == 0 && b->angular_damping == 0 &&
	       !b->fixed_rotation;
}

#define F2D_SHAPE_SENSOR 1u
#define F2D_SHAPE_CONTACT_EVENTS 2u
#define F2D_SHAPE_HIT_EVENTS 4u
#define F2D_SHAPE_SENSOR_EVENTS 8u
#define F2D_SHAPE_DEFAULT_FLAGS (F2D_SHAPE_CONTACT_EVENTS | F2D_SHAPE_SENSOR_EVENTS)

static inline uint32_t f2d_shape_option_flags(const f2d_shape *s)
{
	return (s->is_sensor ? F2D_SHAPE_SENSOR : 0u) |
	       (s->enable_contact_events ? F2D_SHAPE_CONTACT_EVENTS : 0u) |
	       (s->enable_hit_events ? F2D_SHAPE_HIT_EVENTS : 0u) |
	       (s->enable_sensor_events ? F2D_SHAPE_SENSOR_EVENTS : 0u);
}

static inline bool f2d_shape_default_options(const f2d_shape *s)
{
	return s->filter.category_bits == 1u && s->filter.mask_bits == UINT64_MAX &&
	       s->filter.group_index == 0 && f2d_shape_option_flags(s) == F2D_SHAPE_DEFAULT_FLAGS;
}

/* events.c */
bool f2d_events_reserve(f2d_world *w, int32_t pair_count);
void f2d_events_clear_output(f2d_world *w);
void f2d_events_begin_step(f2d_world *w);
void f2d_events_sensor_pair(f2d_world *w, int32_t shape_a, int32_t shape_b);
void f2d_events_measure_approach(f2d_world *w);
void f2d_events_end_step(f2d_world *w);
int32_t f2d_events_destroy_need(const f2d_world *w, int32_t shape);
bool f2d_events_reserve_pending(f2d_world *w, int32_t n);
void f2d_events_shape_destroyed(f2d_world *w, int32_t shape);
void f2d_events_contact_removed(f2d_world *w, const f2d_arbiter *arb);
void f2d_events_free(f2d_world *w);
/** True when the shape has non-default collision options (filter or sensor). */
static inline bool f2d_shape_special(const f2d_shape *s)
{
	return s->is_sensor || s->filter.category_bits != 1u || s->filter.mask_bits != UINT64_MAX ||
	       s->filter.group_index != 0;
}
void f2d_remove_arbiters_of_shape(f2d_world *w, int32_t shape);
void f2d_refresh_arbiters(f2d_world *w);
/** Contact recycling (issue 16; the rule: include/fix2d/types.h contact_recycle_distance):
 *  true when prev's manifold is kept, written to arb (may be prev) with its separations
 *  updated; spec is the pair's speculative distance this step. */
bool f2d_recycle_arbiter(const f2d_world *w, const f2d_arbiter *prev, f2d_arbiter *arb,
                         fix16_t spec);
/** The separations the rule gives a's points (a->count of them) with the bodies' poses now,
 *  without its tests: the portable snapshot's prediction (snapshot_arbiter.c). Any arbiter
 *  whose rotations are within +-(2^16 + 2^8) and anchors and centres int32. */
void f2d_recycled_separations(const f2d_arbiter *a, const f2d_body *ba, const f2d_body *bb,
                              fix16_t sep[2]);

/* the contact solver (solver.c) */
/** Grows the contact solver's scratch (batches and colouring for up to `arbiters` arbiters,
 *  velocity rows); false (nothing changed) on OOM. */
bool f2d_solver_reserve(f2d_world *w, int32_t arbiters);
/* x86-64 SIMD kernels can be compiled here (gcc or clang; F2D_NO_SIMD: never, for tests) */
#if !defined(F2D_NO_SIMD) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&   \
    !defined(__TINYC__)
#define F2D_X86_SIMD 1
#else
#define F2D_X86_SIMD 0
#endif

/* ---- greedy colouring (contacts: solver.c, joints: joint.c) ----
 * used[body] holds the colours its constraints took so far (bits 0..62). A constraint takes
 * the lowest colour neither of its bodies that can move has yet; F2D_OVERFLOW_COLOR when both
 * together have all 63 (then nothing is marked: overflow constraints are solved in order).
 * Static and kinematic bodies never change velocity, so they do not count. */
#define F2D_OVERFLOW_COLOR 63

static inline int32_t f2d_ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_ctzll(x);
#else
	int32_t n = 0;
	while ((x & 1u) == 0) {
		x >>= 1;
		n++;
	}
	return n;
#endif
}

static inline int32_t f2d_take_color(uint64_t *used, const f2d_body *bodies, int32_t ia, int32_t ib)
{
	const uint64_t overflow = (uint64_t)1 << F2D_OVERFLOW_COLOR;
	bool ma = bodies[ia].type == F2D_DYNAMIC_BODY, mb = bodies[ib].type == F2D_DYNAMIC_BODY;
	uint64_t taken = (ma ? used[ia] : 0) | (mb ? used[ib] : 0);
	int32_t c = f2d_ctz64(~taken | overflow);
	if (c != F2D_OVERFLOW_COLOR) {
		uint64_t bit = (uint64_t)1 << c;
		used[ia] |= ma ? bit : 0;
		used[ib] |= mb ? bit : 0;
	}
	return c;
}

/** The SIMD kernel this CPU runs: AVX-512 (F and DQ), AVX2 or none (solver.c). */
enum { F2D_KERNEL_SCALAR, F2D_KERNEL_AVX2, F2D_KERNEL_AVX512 };
int f2d_kernel_level(void);
void f2d_contacts_prestep(f2d_world *w);
void f2d_contacts_warm_start(f2d_world *w);
void f2d_contacts_solve(f2d_world *w, int32_t iteration);
void f2d_contacts_restitution(f2d_world *w);

/* The soft step (f2d_world_def.substep_count >= 1, Box2D v3's solver; solver.c). The softness
 * coefficients of one substep length, Q16, derived in f2d_soft_make (exact integer math). Index
 * 0: between two bodies that move, 1: against a body that cannot (5/2 the frequency). */
#define F2D_MAX_SUBSTEPS 8
typedef struct f2d_softness {
	fix16_t bias_rate[2];     /* mass_scale * omega / a1, 1/s: push-out speed per m of depth */
	fix16_t mass_scale[2];    /* a2 / (1 + a2) */
	fix16_t impulse_scale[2]; /* 1 / (1 + a2) */
	fix16_t max_push;         /* largest push-out speed, m/s */
	fix16_t inv_h;            /* 1 / substep, for the speculative target -s / h */
} f2d_softness;
void f2d_soft_make(fix16_t h, fix16_t inv_h, f2d_softness *out);
void f2d_soft_warm_start(f2d_world *w, bool in_rows);
void f2d_soft_solve(f2d_world *w, const f2d_softness *k, bool use_bias, int32_t flip,
                    bool in_rows);
void f2d_soft_end(f2d_world *w);

/* Measurement hook (fix2d-bench --residual, tests): the LCP quantities of every solved contact
 * point of the last step, read from the solver's working set after the step (velocities of the
 * bodies, impulses and constants of the batches), in batch order; never changes the world.
 * Returns the number of points (at most capacity are written). */
typedef struct f2d_lcp_point {
	fix16_t vn, target; /* relative normal velocity and its target (bias or bounce) */
	fix16_t pn, mass_n; /* normal impulse, effective mass 1 / k_n */
	fix16_t vt, pt, mu; /* tangential velocity and impulse, friction coefficient */
	fix16_t mass_t;     /* 1 / k_t */
	fix16_t separation; /* the manifold's separation */
} f2d_lcp_point;
int32_t f2d_contact_lcp_points(const f2d_world *w, f2d_lcp_point *out, int32_t capacity);

/* islands and sleeping (island.c) */
void f2d_wake_body(f2d_world *w, int32_t index);
void f2d_wake_all(f2d_world *w);
f2d_result f2d_islands_prepare(f2d_world *w);
void f2d_islands_wake(f2d_world *w);
void f2d_islands_sleep(f2d_world *w);

/* joints (joint.c) */
void f2d_joint_prestep(f2d_world *w, f2d_joint *j);
/** The soft step's pre-step of substeps 2..n: only what the positions change (arms, position
 *  errors, biases); the masses and softness of f2d_joint_prestep in the first substep stay. */
void f2d_joint_substep(f2d_world *w, f2d_joint *j);
void f2d_joint_warm_start(f2d_world *w, f2d_joint *j);
void f2d_joint_solve(f2d_world *w, f2d_joint *j);
/** f2d_joint_prestep of the n joints of w->joint_list, and their colouring (greedily in id
 *  order, by the dynamic bodies they share) into w->joint_order, colour after colour, and
 *  w->joint_order_color (kept from the last step while its input is the same). */
void f2d_joints_prestep(f2d_world *w, int32_t n);
/** Grows the joint passes' scratch (list, colour order, batches) for every joint id; false
 *  (nothing changed) on OOM. Called before the step changes anything. */
bool f2d_joints_reserve(f2d_world *w);
/** One velocity pass over the n coloured joints: colour after colour; the joints of a colour
 *  share no body that moves, so 8 of them at a time in SIMD lanes give the same bits as one
 *  after the other. */
/** The warm start of the n coloured joints, in the same order. */
void f2d_joints_warm_start(f2d_world *w, int32_t n);
/** f2d_joint_substep of the n coloured joints (the colours of the step's first substep stay:
 *  which bodies move does not change within the step), the SIMD lanes refreshed. */
void f2d_joints_substep(f2d_world *w, int32_t n);
void f2d_joints_solve(f2d_world *w, int32_t n, int32_t iteration);
/** The soft step's joint relax pass: rigid rows without bias, in the solve pass's order. */
void f2d_joints_relax(f2d_world *w, int32_t n);
fix16_t f2d_joint_solve_position(f2d_world *w, f2d_joint *j);
bool f2d_bodies_joined(const f2d_world *w, int32_t a, int32_t b);
/* Puts live joint id at the head of its bodies' joint lists / takes it out (joint.c). */
void f2d_joint_link(f2d_world *w, int32_t id);
/* Every body's joint list holds exactly its live joints (the F2D_HASH_CHECK test). */
bool f2d_joint_lists_consistent(const f2d_world *w);
int32_t f2d_joined_contacts(const f2d_world *w, int32_t a, int32_t b);
void f2d_forget_joined_contacts(f2d_world *w, int32_t a, int32_t b);
void f2d_joint_attached(f2d_world *w, const f2d_joint *j);

/* bodies (body.c) */
f2d_result f2d_check_circle(f2d_world *w, const f2d_circle *circle);
/** body.c's shape creation from a filled prototype (geometry and type set, validated). */
f2d_result f2d_create_shape_proto(f2d_world *w, f2d_body_id body, const f2d_shape_def *def,
                                  const f2d_shape *proto, f2d_shape_id *out);
f2d_result f2d_spawn_body(f2d_world *w, const f2d_body_def *bd, const f2d_shape_def *sd,
                          const f2d_shape *proto, f2d_body_id *out);
void f2d_body_update_mass(f2d_world *w, int32_t body);
/** Mass, local centre and inertia of a dynamic body from its n >= 1 shapes' mass data, as the
 *  body functions compute them: 0, or 1 when the mass (out->mass), 2 when the inertia
 *  (out->inertia) is out of range. */
int f2d_body_mass_from_shapes(const f2d_mass_data *md, int32_t n, f2d_mass_data *out);
f2d_transform f2d_body_xf(const f2d_body *b);

/* hash (hash.c) */
uint64_t f2d_hash_world(const f2d_world *w);
/** The same hash with every shape digest recomputed from its record (tests: the cache is never
 *  stale when this equals f2d_hash_world). */
uint64_t f2d_hash_world_reference(const f2d_world *w);
/** The fast hash (f2d_hash_world's bytes and function) with the x86 SIMD paths capped at level:
 *  0 none (XXH3_update's default loop, the records written), 1 AVX2, 2 AVX-512 (the sections
 *  from registers: hash.c bodies_512, arbiters_512, joints_vbmi);
 *  the CPU's own level caps it too (tests: every path gives the reference's hash). */
uint64_t f2d_hash_world_level(const f2d_world *w, int level);
/** Recomputes s->digest; call after any change to the shape's hash record (see hash.c). Also
 *  clears the world's cache of the shapes section (f2d_hash_shapes_changed). */
void f2d_shape_refresh_digest(f2d_world *w, f2d_shape *s);
/** Call after any change to a shape's options (filter, sensor, event flags) or to the shape
 *  slots that does not go through f2d_shape_refresh_digest (snapshot restore and load), and
 *  (hash format 6: the bodies' mass section and option count are cached with the shapes
 *  section) after any change to a body's mass, inertia, local centre or options, and any body
 *  create or destroy. */
void f2d_hash_shapes_changed(f2d_world *w);
/** XXH3-64 of n bytes with a seed (the in-process snapshot's seal, snapshot.c) with XXH3's AVX2
 *  or AVX-512 loop where the CPU has it: the same function as XXH3_64bits_withSeed on every CPU
 *  (test_snapshot_portable reseals damaged snapshots with that one). */
uint64_t f2d_xxh3_seeded(const void *p, size_t n, uint64_t seed);
/* The digest of a recycled arbiter's geometry (hash format 9; hash.c): XXH3-64 of 64
 *  little-endian bytes: r_a, r_b of point 0, then of point 1 (zero unless count is 2), the
 *  normal, the two base separations (the second zero unless count is 2), cached_q_a,
 *  cached_q_b. */
uint64_t f2d_recycled_geometry_digest(const f2d_arbiter *a);
/* An arbiter's geometry digest: 0 when recycle is 0 (a manifold that is not recycled is derived,
 *  not state), else f2d_recycled_geometry_digest. A pure function of the arbiter's fields;
 *  w->arbiter_geo caches it. Inline, so that the builds of manifolds that are not recycled
 *  (most of rain1000's) pay a test, not a call. */
static inline uint64_t f2d_arbiter_geometry_digest(const f2d_arbiter *a)
{
	return a->recycle != 0 ? f2d_recycled_geometry_digest(a) : 0;
}
/** Refills the cache of the shapes and mass sections when it was cleared (f2d_world_step,
 *  before anything). */
void f2d_hash_cache_shapes(f2d_world *w);
/** XXH3-64 of one phase's output (f2d_world_step_traced; encodings in hash.c). */
uint64_t f2d_hash_phase(const f2d_world *w, f2d_phase phase);

#endif
