/* fix2d tests: the narrow phase's box-box path (src/collision.c, collide_boxes) against the
 * general polygon path it replaces for boxes.
 * SPDX-License-Identifier: MIT
 *
 * collision.c is compiled a second time into this test with F2D_COLLIDE_GENERAL_ONLY (every
 * polygon pair through collide_polygons) and its entry points renamed; the library's
 * f2d_collide takes the box path. Both must give the same manifold, bit for bit, for boxes of
 * every size and angle, touching, overlapping, apart, exactly aligned (ties between edges and
 * between incident edges) and on coarse grids that make equal products common.
 *
 * The step keeps the world cache of a shape whose body did not move, and the manifold of a pair
 * whose two shapes did not (broadphase.c, f2d_update_contacts). A world stepped with those
 * shortcuts must equal, arbiter for arbiter, a copy that is made to recompute everything every
 * step (contacts_stale set before each step), through sleeping, waking, impulses, teleports and
 * stray calls of f2d_find_pairs between steps.
 */
#include <check.h>
#include <stdlib.h>

#include "core.h"
#include "recycle_simd.h"
#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"

#define F2D_COLLIDE_GENERAL_ONLY
#define f2d_collide ref_collide
#define f2d_collide_kernel ref_collide_kernel
#define f2d_shape_update_world ref_shape_update_world
#define f2d_shape_update_world_kernel ref_shape_update_world_kernel
#define f2d_box_world_avx2 ref_box_world_avx2
#include "../src/collision.c"
#undef f2d_collide
#undef f2d_collide_kernel
#undef f2d_shape_update_world
#undef f2d_shape_update_world_kernel
#undef f2d_box_world_avx2

/* A value in [lo, hi] from a 64-bit LCG (Knuth's MMIX constants); the top bits are used. */
static int32_t rng_int(uint64_t *s, int32_t lo, int32_t hi)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (int32_t)((int64_t)lo + (int64_t)((*s >> 32) % (uint64_t)((int64_t)hi - lo + 1)));
}

/* A box shape (half extents hx, hy) at p rotated by q (a unit pair), its world cache made as
 * the step makes it. */
static void make_box_shape(f2d_shape *s, fix16_t hx, fix16_t hy, f2d_vec2 p, f2d_rot q)
{
	memset(s, 0, sizeof *s);
	s->type = F2D_POLYGON_SHAPE;
	ck_assert_int_eq(f2d_make_box(hx, hy, &s->polygon), F2D_OK);
	f2d_transform xf = {p, q};
	f2d_shape_update_world(s, xf, F2D_MILLI(20));
}

static f2d_rot random_rot(uint64_t *seed, int32_t mode)
{
	switch (mode) {
	case 0: return f2d_rot_identity();
	case 1: { /* a quarter turn multiple: exact ties everywhere */
		static const f2d_rot quarter[4] = {
		    {F2D_ONE, 0}, {0, F2D_ONE}, {-F2D_ONE, 0}, {0, -F2D_ONE}};
		return quarter[rng_int(seed, 0, 3)];
	}
	case 4: { /* an eighth turn multiple: ties between incident edges */
		f2d_rot q = f2d_rot_normalize(F2D_ONE, F2D_ONE);
		for (int32_t k = rng_int(seed, 0, 7); k > 0; --k) {
			q = f2d_rot_normalize(q.c - q.s, q.s + q.c);
		}
		return q;
	}
	case 2: /* a small tilt, as in a resting stack */
		return f2d_rot_normalize(F2D_ONE, rng_int(seed, -200, 200));
	default:
		return f2d_rot_normalize(rng_int(seed, -F2D_ONE, F2D_ONE),
		                         rng_int(seed, -F2D_ONE, F2D_ONE));
	}
}

static void expect_same(const f2d_shape *a, const f2d_shape *b, fix16_t spec, int32_t *counts)
{
	f2d_manifold ref;
	memset(&ref, 0x5a, sizeof ref);
	ref_collide(a, b, spec, &ref);
	/* the library's f2d_collide (its box path on this CPU's kernel: AVX2 separations,
	 * collide_boxes_avx2, where the CPU has AVX2), and the scalar box path */
	const int32_t runs = f2d_kernel_level() == F2D_KERNEL_SCALAR ? 1 : 2;
	for (int32_t run = 0; run < runs; ++run) {
		f2d_manifold fast;
		memset(&fast, 0x5a, sizeof fast);
		if (run == 0) {
			f2d_collide(a, b, spec, &fast);
		} else {
			f2d_collide_kernel(a, b, spec, &fast, F2D_KERNEL_SCALAR);
		}
		ck_assert_int_eq(fast.count, ref.count);
		ck_assert_int_eq(fast.normal.x, ref.normal.x);
		ck_assert_int_eq(fast.normal.y, ref.normal.y);
		for (int32_t i = 0; i < ref.count; ++i) {
			ck_assert_int_eq(fast.points[i].point.x, ref.points[i].point.x);
			ck_assert_int_eq(fast.points[i].point.y, ref.points[i].point.y);
			ck_assert_int_eq(fast.points[i].separation, ref.points[i].separation);
			ck_assert_uint_eq(fast.points[i].id, ref.points[i].id);
		}
	}
	counts[ref.count]++;
}

START_TEST(box_path_matches_general_path)
{
	uint64_t seed = 12345u + (uint64_t)_i;
	int32_t counts[3] = {0, 0, 0};
	for (int32_t n = 0; n < 60000; ++n) {
		int32_t mode = n % 5;
		/* coarse grids (multiples of 1/64 m or 1/8 m) make exact ties between edges common
		 */
		int32_t grid = mode == 3 ? 1 : (n % 3 == 0 ? 8192 : 1024);
		int32_t lo = (F2D_MILLI(10) + grid - 1) / grid, hi = 2 * F2D_ONE / grid;
		fix16_t hxa = grid * rng_int(&seed, lo, hi);
		fix16_t hya = grid * rng_int(&seed, lo, hi);
		fix16_t hxb = n % 5 == 0 ? hxa : grid * rng_int(&seed, lo, hi);
		fix16_t hyb = n % 5 == 0 ? hya : grid * rng_int(&seed, lo, hi);
		f2d_vec2 pa = {grid * rng_int(&seed, -F2D_FIX(8) / grid, F2D_FIX(8) / grid),
		               grid * rng_int(&seed, -F2D_FIX(8) / grid, F2D_FIX(8) / grid)};
		/* b near a: within the sum of the half diagonals, plus a little */
		int32_t reach = (hxa + hya + hxb + hyb + F2D_MILLI(50)) / grid;
		f2d_vec2 pb = {pa.x + grid * rng_int(&seed, -reach, reach),
		               pa.y + grid * rng_int(&seed, -reach, reach)};
		if (n % 7 == 0) { /* resting on top: face to face, within the slop */
			pb.x = pa.x + grid * rng_int(&seed, -reach / 2, reach / 2);
			pb.y = pa.y + hya + hyb + rng_int(&seed, -F2D_MILLI(10), F2D_MILLI(10));
		}
		f2d_shape a, b;
		make_box_shape(&a, hxa, hya, pa, random_rot(&seed, mode == 4 ? 1 : mode));
		make_box_shape(&b, hxb, hyb, pb, random_rot(&seed, n % 7 == 0 ? 2 : mode));
		fix16_t spec = n % 11 == 0 ? 0 : F2D_MILLI(40);
		expect_same(&a, &b, spec, counts);
		expect_same(&b, &a, spec, counts);
	}
	/* every outcome occurred often */
	ck_assert_int_gt(counts[0], 1000);
	ck_assert_int_gt(counts[1], 1000);
	ck_assert_int_gt(counts[2], 1000);
}
END_TEST

/* The box path applies to boxes only: a parallelogram that is not centred on its body origin
 * (an offset box) and a general quadrilateral take the general path, with the same result. */
START_TEST(non_boxes_take_the_general_path)
{
	uint64_t seed = 777u;
	int32_t counts[3] = {0, 0, 0};
	for (int32_t n = 0; n < 20000; ++n) {
		f2d_shape a, b;
		make_box_shape(&a, F2D_MILLI(500), F2D_MILLI(500), f2d_v(0, 0),
		               random_rot(&seed, 3));
		memset(&b, 0, sizeof b);
		b.type = F2D_POLYGON_SHAPE;
		if (n % 2 == 0) {
			f2d_vec2 c = {rng_int(&seed, -F2D_MILLI(300), F2D_MILLI(300)),
			              rng_int(&seed, -F2D_MILLI(300), F2D_MILLI(300))};
			ck_assert_int_eq(f2d_make_offset_box(F2D_MILLI(400), F2D_MILLI(300), c,
			                                     random_rot(&seed, 3), &b.polygon),
			                 F2D_OK);
		} else {
			f2d_vec2 q[4] = {{-F2D_MILLI(400), -F2D_MILLI(300)},
			                 {F2D_MILLI(500), -F2D_MILLI(350)},
			                 {F2D_MILLI(450), F2D_MILLI(300)},
			                 {-F2D_MILLI(300), F2D_MILLI(250)}};
			ck_assert_int_eq(f2d_make_polygon(q, 4, &b.polygon), F2D_OK);
		}
		f2d_transform xf = {{rng_int(&seed, -F2D_FIX(1), F2D_FIX(1)),
		                     rng_int(&seed, -F2D_FIX(1), F2D_FIX(1))},
		                    random_rot(&seed, 3)};
		f2d_shape_update_world(&b, xf, F2D_MILLI(20));
		expect_same(&a, &b, F2D_MILLI(40), counts);
		expect_same(&b, &a, F2D_MILLI(40), counts);
	}
	ck_assert_int_gt(counts[2], 100);
}
END_TEST

/* The box path agrees with the general one at the range edges: the largest and smallest boxes,
 * at the world's corners, at every angle. */
START_TEST(box_path_at_range_edges)
{
	uint64_t seed = 4242u;
	int32_t counts[3] = {0, 0, 0};
	const fix16_t big = F2D_MAX_SHAPE_EXTENT / 2, tiny = F2D_MIN_SHAPE_SIZE;
	const fix16_t far = F2D_WORLD_LIMIT - F2D_MAX_SHAPE_EXTENT;
	for (int32_t n = 0; n < 20000; ++n) {
		int32_t kind = n % 4;
		fix16_t hxa = kind == 0 ? big : (kind == 1 ? tiny : rng_int(&seed, tiny, big));
		fix16_t hya = kind == 0 ? big : (kind == 1 ? tiny : rng_int(&seed, tiny, big));
		fix16_t hxb = kind == 2 ? big : rng_int(&seed, tiny, kind == 1 ? F2D_MILLI(20) : big);
		fix16_t hyb = kind == 2 ? tiny : rng_int(&seed, tiny, kind == 1 ? F2D_MILLI(20) : big);
		f2d_vec2 pa = {(n & 4) ? far : -far, (n & 8) ? far : -far};
		if (n % 5 == 0) {
			pa.x = rng_int(&seed, -far, far);
		}
		int32_t reach = (int32_t)(((int64_t)hxa + hya + hxb + hyb) / 2 + F2D_MILLI(50));
		f2d_vec2 pb = {pa.x + rng_int(&seed, -reach, reach), pa.y + rng_int(&seed, -reach, reach)};
		f2d_shape a, b;
		make_box_shape(&a, hxa, hya, pa, random_rot(&seed, n % 3 == 0 ? 1 : 3));
		make_box_shape(&b, hxb, hyb, pb, random_rot(&seed, n % 6 == 0 ? 4 : 3));
		expect_same(&a, &b, F2D_MILLI(40), counts);
		expect_same(&b, &a, F2D_MILLI(40), counts);
	}
	ck_assert_int_gt(counts[0], 100);
	ck_assert_int_gt(counts[1], 100);
	ck_assert_int_gt(counts[2], 100);
}
END_TEST

/* A box's world cache (f2d_shape_update_world's box branch) is the same from the scalar code and
 * from the AVX2 one (box_world_avx2; the default on a CPU with AVX2): every byte of the shape,
 * for boxes from the smallest to the largest, anywhere up to the world's corners, at every
 * angle, with any margin. (On a CPU without AVX2 both runs take the scalar branch.) */
START_TEST(box_world_cache_same_on_every_kernel)
{
	uint64_t seed = 99u;
	const fix16_t big = F2D_MAX_SHAPE_EXTENT / 2, tiny = F2D_MIN_SHAPE_SIZE;
	const fix16_t far = F2D_WORLD_LIMIT - F2D_MAX_SHAPE_EXTENT;
	int32_t boxes = 0;
	for (int32_t n = 0; n < 40000; ++n) {
		int32_t kind = n % 4;
		fix16_t hx = kind == 0 ? big : (kind == 1 ? tiny : rng_int(&seed, tiny, big));
		fix16_t hy = kind == 0 ? tiny : (kind == 1 ? big : rng_int(&seed, tiny, big));
		f2d_vec2 p = {rng_int(&seed, -far, far), rng_int(&seed, -far, far)};
		if (n % 3 == 0) {
			p = f2d_v((n & 4) ? far : -far, (n & 8) ? far : -far);
		}
		f2d_transform xf = {p, random_rot(&seed, n % 5)};
		fix16_t margin = n % 7 == 0 ? 0 : rng_int(&seed, 0, F2D_MILLI(100));
		f2d_shape a, b;
		memset(&a, 0, sizeof a);
		a.type = F2D_POLYGON_SHAPE;
		if (n % 10 == 9) { /* an offset box: the general branch on both */
			ck_assert_int_eq(f2d_make_offset_box(F2D_MILLI(400), F2D_MILLI(300),
			                                     f2d_v(F2D_MILLI(250), -F2D_MILLI(100)),
			                                     random_rot(&seed, 3), &a.polygon),
			                 F2D_OK);
		} else {
			ck_assert_int_eq(f2d_make_box(hx, hy, &a.polygon), F2D_OK);
		}
		b = a;
		f2d_shape_update_world_kernel(&a, xf, margin, F2D_KERNEL_SCALAR);
		f2d_shape_update_world_kernel(&b, xf, margin, f2d_kernel_level());
		ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "box %d: the caches differ", n);
		boxes += a.world_polygon.normals[4].x == BOX_TAG ? 1 : 0;
	}
	ck_assert_int_gt(boxes, 30000); /* the box branch ran */
}
END_TEST

static void expect_same_arbiters(const f2d_world *a, const f2d_world *b, const char *scene,
                                 int32_t step)
{
	ck_assert_msg(f2d_world_hash(a) == f2d_world_hash(b), "%s step %d: hashes differ", scene,
	              step);
	ck_assert_int_eq(a->arbiter_count, b->arbiter_count);
	for (int32_t i = 0; i < a->arbiter_count; ++i) {
		const f2d_arbiter *x = &a->arbiters[i], *y = &b->arbiters[i];
		ck_assert_int_eq(x->shape_a, y->shape_a);
		ck_assert_int_eq(x->shape_b, y->shape_b);
		ck_assert_int_eq(x->count, y->count);
		/* (frozen may differ: b never takes the all-asleep path, which leaves the arbiters
		 * as they are, while b copies them as frozen: the same manifolds either way) */
		ck_assert_msg(x->normal.x == y->normal.x && x->normal.y == y->normal.y,
		              "%s step %d arbiter %d: normal differs", scene, step, i);
		for (int32_t k = 0; k < x->count; ++k) {
			const f2d_contact_point *p = &x->points[k], *q = &y->points[k];
			ck_assert_msg(p->id == q->id && p->separation == q->separation &&
			                  p->r_a.x == q->r_a.x && p->r_a.y == q->r_a.y &&
			                  p->r_b.x == q->r_b.x && p->r_b.y == q->r_b.y &&
			                  p->pn == q->pn && p->pt == q->pt,
			              "%s step %d arbiter %d point %d differs", scene, step, i, k);
		}
	}
}

/* The same call on both worlds. */
static void push_body(f2d_world *w, int32_t index, f2d_vec2 impulse)
{
	f2d_body_id id = {index + 1, w->bodies[index].generation};
	ck_assert_int_eq(f2d_body_apply_linear_impulse(w, id, impulse, w->bodies[index].center),
	                 F2D_OK);
}

START_TEST(kept_caches_and_manifolds_match_full_recomputation)
{
	static const char *const scenes[] = {"pyramid20", "pyramid",  "dominos",
	                                     "circles",   "polygons", "arena"};
	const char *scene = scenes[_i % 12 / 2];
	bool sleep = _i % 2 == 0;
	f2d_world_def def = f2d_default_world_def();
	def.enable_sleep = sleep;
	/* 12..23 with contact recycling (issue 16): b never keeps a manifold, so it recycles or
	 * rebuilds where a keeps, and the two must agree (contact.c, turn_since) */
	def.contact_recycle_distance = _i >= 12 ? F2D_MILLI(50) : 0;
	f2d_world *a = NULL, *b = NULL;
	ck_assert_int_eq(f2d_scene_create(scene, &def, &a), F2D_OK);
	ck_assert_int_eq(f2d_scene_create(scene, &def, &b), F2D_OK);
	uint64_t seed = 99u + (uint64_t)_i;
	int32_t kept = 0;
	for (int32_t step = 1; step <= 700; ++step) {
		if (step % 97 == 0 || step % 101 == 0) { /* wake something up */
			int32_t body = rng_int(&seed, 0, a->body_ids.next - 1);
			if (a->bodies[body].alive && a->bodies[body].type == F2D_DYNAMIC_BODY) {
				f2d_vec2 j = {rng_int(&seed, -F2D_FIX(2), F2D_FIX(2)),
				              rng_int(&seed, 0, F2D_FIX(3))};
				push_body(a, body, j);
				push_body(b, body, j);
			}
		}
		if (step % 151 == 0) { /* a stray call between steps breaks the chain of calls */
			ck_assert_int_eq(f2d_find_pairs(a), F2D_OK);
		}
		b->contacts_stale = true; /* b recomputes every cache and every manifold */
		f2d_world_step(a);
		f2d_world_step(b);
		expect_same_arbiters(a, b, scene, step);
		/* was anything kept? a's moved-shape bitmap follows its pair keys */
		const uint64_t *moved = a->pairs + a->pair_count;
		for (int32_t i = 0; i < a->shape_ids.next; ++i) {
			kept += a->shapes[i].alive && ((moved[i >> 6] >> (i & 63)) & 1u) == 0;
		}
	}
	if (strcmp(scene, "pyramid20") == 0 && !sleep) {
		ck_assert_int_gt(kept, 10000); /* the settled pyramid keeps its caches */
	}
	f2d_destroy_world(a);
	f2d_destroy_world(b);
}
END_TEST

/* ---- contact recycling's rule (contact.c f2d_recycle_arbiter) ---- */

/* a world of two dynamic boxes and an arbiter of their shapes, built at identity rotations */
static f2d_world *recycle_world(f2d_arbiter *arb)
{
	f2d_world_def def = f2d_default_world_def();
	def.contact_recycle_distance = F2D_MILLI(250); /* the range's top */
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_OK);
	for (int32_t i = 0; i < 2; ++i) {
		f2d_body_def bd = f2d_default_body_def();
		bd.type = F2D_DYNAMIC_BODY;
		bd.position = f2d_v(F2D_FIX(i), 0);
		f2d_body_id b;
		ck_assert_int_eq(f2d_create_body(w, &bd, &b), F2D_OK);
		f2d_shape_def sd = f2d_default_shape_def();
		f2d_polygon box;
		ck_assert_int_eq(f2d_make_box(F2D_ONE / 2, F2D_ONE / 2, &box), F2D_OK);
		f2d_shape_id s;
		ck_assert_int_eq(f2d_create_polygon_shape(w, b, &sd, &box, &s), F2D_OK);
	}
	memset(arb, 0, sizeof *arb);
	arb->shape_a = 0;
	arb->shape_b = 1;
	arb->body_a = 0;
	arb->body_b = 1;
	arb->count = 2;
	arb->recycle = 1;
	arb->normal = f2d_v(F2D_ONE, 0);
	for (int32_t k = 0; k < 2; ++k) { /* the points on the faces' middle, x = 0.5 */
		arb->points[k].r_a = f2d_v(F2D_ONE / 2, k == 0 ? -F2D_ONE / 4 : F2D_ONE / 4);
		arb->points[k].r_b = f2d_v(-F2D_ONE / 2, k == 0 ? -F2D_ONE / 4 : F2D_ONE / 4);
		arb->points[k].separation = arb->base_separation[k] = -100 * (k + 1);
		arb->points[k].pn = F2D_ONE;
	}
	arb->cached_q_a = arb->cached_q_b = f2d_rot_identity();
	for (int32_t i = 0; i < 2; ++i) {
		w->shapes[i].reach = F2D_ONE;
	}
	return w;
}

START_TEST(recycle_rule_behaves_and_has_no_overflow_at_range_edges)
{
	f2d_arbiter prev, out;
	f2d_world *w = recycle_world(&prev);
	const fix16_t spec = w->def.speculative_distance;
	f2d_body *bb = &w->bodies[1];
	/* unmoved: kept, the built separations exactly */
	ck_assert(f2d_recycle_arbiter(w, &prev, &out, spec));
	ck_assert_int_eq(out.points[0].separation, -100);
	ck_assert_int_eq(out.points[1].separation, -200);
	ck_assert_int_eq(out.points[0].pn, F2D_ONE);
	/* B 0.1 m away along the normal: separations grow by it exactly */
	bb->center.x += F2D_MILLI(100);
	ck_assert(f2d_recycle_arbiter(w, &prev, &out, spec));
	ck_assert_int_eq(out.points[0].separation, -100 + F2D_MILLI(100));
	/* sideways: the L1 norm counts, the separation does not change */
	bb->center.y += F2D_MILLI(100);
	ck_assert(f2d_recycle_arbiter(w, &prev, &out, spec));
	ck_assert_int_eq(out.points[1].separation, -200 + F2D_MILLI(100));
	bb->center.y += F2D_MILLI(60); /* 0.1 + 0.16 >= 0.25 */
	ck_assert(!f2d_recycle_arbiter(w, &prev, &out, spec));
	bb->center.y -= F2D_MILLI(160);
	/* a fast pair (a larger speculative distance), or recycling off: never */
	ck_assert(!f2d_recycle_arbiter(w, &prev, &out, spec + 1));
	w->def.contact_recycle_distance = 0;
	ck_assert(!f2d_recycle_arbiter(w, &prev, &out, spec));
	w->def.contact_recycle_distance = F2D_MILLI(250);
	/* a turn past acos 0.98 (0.21 rad: cos 0.978), and one within it (0.1 rad) */
	bb->center.x -= F2D_MILLI(100);
	bb->q = f2d_make_rot(F2D_MILLI(210));
	w->shapes[0].reach = w->shapes[1].reach = 0; /* the points' L1 0.16: only the angle */
	ck_assert(!f2d_recycle_arbiter(w, &prev, &out, spec));
	w->shapes[0].reach = w->shapes[1].reach = F2D_ONE;
	/* within the angle, reach 1 m times sin 0.1 rad ~ 0.1 m plus the points' motion */
	bb->q = f2d_make_rot(F2D_MILLI(100));
	ck_assert(f2d_recycle_arbiter(w, &prev, &out, spec)); /* L1 0.08 + 0.1 < 0.25 */
	w->shapes[1].reach = F2D_MAX_CLOSING; /* 8 m: 0.8 m of sweep */
	ck_assert(!f2d_recycle_arbiter(w, &prev, &out, spec));
	/* the range's edges (UBSan): every int32 anchor and separation, rotations and normals
	 * at +-(2^16 + 2^8), centres at the int32 edges, the largest reach */
	static const int32_t e32[] = {INT32_MIN, -INT32_MAX, -1, 0, 1, INT32_MAX};
	static const int32_t eq[] = {-(65536 + 256), -65536, 0, 46341, 65536, 65536 + 256};
	int32_t recycled = 0;
	for (int32_t i = 0; i < 6 * 6 * 6; ++i) {
		f2d_arbiter p = prev;
		for (int32_t k = 0; k < 2; ++k) {
			p.points[k].r_a = f2d_v(e32[(i + k) % 6], e32[(i / 6 + k) % 6]);
			p.points[k].r_b = f2d_v(e32[(i / 36 + k) % 6], e32[(i + 2 * k) % 6]);
			p.base_separation[k] = e32[(i + 3 * k) % 6];
		}
		p.normal = f2d_v(eq[i % 6], eq[i / 6 % 6]);
		p.cached_q_a = (f2d_rot){eq[i % 6], eq[i / 36]};
		p.cached_q_b = (f2d_rot){eq[i / 6 % 6], eq[(i + 1) % 6]};
		w->bodies[0].q = (f2d_rot){eq[(i + 2) % 6], eq[i / 6 % 6]};
		w->bodies[1].q = (f2d_rot){eq[i % 6], eq[(i + 3) % 6]};
		w->bodies[0].center = f2d_v(e32[i % 6], e32[(i + 1) % 6]);
		w->bodies[1].center = f2d_v(e32[(i / 6) % 6], e32[(i + 4) % 6]);
		w->shapes[0].reach = (i & 1) ? F2D_MAX_CLOSING : 0;
		recycled += f2d_recycle_arbiter(w, &p, &out, spec) ? 1 : 0;
		/* unmoved at the edges: kept, the base separations exactly */
		w->bodies[0].q = p.cached_q_a;
		w->bodies[1].q = p.cached_q_b;
		w->bodies[0].center = w->bodies[1].center = f2d_v(e32[i % 6], e32[i / 6 % 6]);
		for (int32_t k = 0; k < 2; ++k) {
			p.points[k].r_b = p.points[k].r_a;
		}
		ck_assert(f2d_recycle_arbiter(w, &p, &out, spec));
		for (int32_t k = 0; k < 2; ++k) { /* base + 0, saturated to fix16 */
			ck_assert_int_eq(out.points[k].separation, p.base_separation[k] == INT32_MIN
			                                               ? -INT32_MAX
			                                               : p.base_separation[k]);
		}
	}
	ck_assert_int_lt(recycled, 6 * 6 * 6);
	f2d_destroy_world(w);
}
END_TEST

/* The rule as written before the sweep was read lazily (integ4): each point's |dp|_1 + sweep in
 * turn, the sweep always from the reaches. f2d_recycle_arbiter must give the same answer and
 * separations. */
static f2d_rot ref_turn(f2d_rot q, f2d_rot c)
{
	if (q.c == c.c && q.s == c.s) {
		return (f2d_rot){F2D_ONE, 0};
	}
	return (f2d_rot){(fix16_t)f2d_round16((int64_t)q.c * c.c + (int64_t)q.s * c.s),
	                 (fix16_t)f2d_round16((int64_t)q.s * c.c - (int64_t)q.c * c.s)};
}

static bool ref_recycle(const f2d_world *w, const f2d_arbiter *prev, fix16_t *sep)
{
	const int64_t dist = w->def.contact_recycle_distance;
	const f2d_body *ba = &w->bodies[prev->body_a], *bb = &w->bodies[prev->body_b];
	f2d_rot da = ref_turn(ba->q, prev->cached_q_a), db = ref_turn(bb->q, prev->cached_q_b);
	if (da.c < F2D_RECYCLE_COS || db.c < F2D_RECYCLE_COS) {
		return false;
	}
	int64_t sin_rel = llabs(f2d_round16((int64_t)db.s * da.c - (int64_t)db.c * da.s));
	int64_t ra = ba->type == F2D_STATIC_BODY ? 0 : w->shapes[prev->shape_a].reach;
	int64_t rb = bb->type == F2D_STATIC_BODY ? 0 : w->shapes[prev->shape_b].reach;
	int64_t sweep = ((ra > rb ? ra : rb) * sin_rel + 0xFFFF) >> 16;
	for (int32_t i = 0; i < prev->count; ++i) {
		f2d_vec2 r = prev->points[i].r_a, s2 = prev->points[i].r_b;
		int64_t ax = f2d_round16((int64_t)da.c * r.x - (int64_t)da.s * r.y);
		int64_t ay = f2d_round16((int64_t)da.s * r.x + (int64_t)da.c * r.y);
		int64_t bx = f2d_round16((int64_t)db.c * s2.x - (int64_t)db.s * s2.y);
		int64_t by = f2d_round16((int64_t)db.s * s2.x + (int64_t)db.c * s2.y);
		int64_t dx = (int64_t)bb->center.x - ba->center.x + bx - ax;
		int64_t dy = (int64_t)bb->center.y - ba->center.y + by - ay;
		if (llabs(dx) + llabs(dy) + sweep >= dist) {
			return false;
		}
		sep[i] = f2d_sat(prev->base_separation[i] +
		                 f2d_round16(dx * prev->normal.x + dy * prev->normal.y));
	}
	return true;
}

/* Poses around the rule's edges: offsets along and across the normal through the distance,
 * turns of either body from none to past acos 0.98, reaches 0, 1 m and the clamp, one or two
 * points, a static A: every outcome of the lazy sweep (l1 >= distance, l1 + its bound below
 * the distance, and the reaches deciding either way) is met, and each answer is the
 * reference's. */
START_TEST(recycle_rule_matches_reference)
{
	f2d_arbiter prev, out;
	f2d_world *w = recycle_world(&prev);
	const fix16_t spec = w->def.speculative_distance;
	static const int32_t off[] = {0, 1, 3000, 9000, 16383, 16384, 16385, 20000};
	static const int32_t ang[] = {0, 1, 7, 100, 1000, 6000, 13000, 14000};
	static const int32_t reach[] = {0, F2D_ONE, F2D_MAX_CLOSING};
	int32_t outcome[4] = {0, 0, 0, 0}; /* fail by l1, fast accept, exact accept, exact fail */
	for (int32_t i = 0; i < 8 * 8 * 8 * 8 * 3 * 4; ++i) {
		f2d_arbiter p = prev;
		p.count = (i & 1) ? 2 : 1;
		w->bodies[0].type = (i & 2) ? F2D_STATIC_BODY : F2D_DYNAMIC_BODY;
		w->shapes[0].reach = w->shapes[1].reach = reach[i / 4 / 4096 % 3];
		w->shapes[(i / 4) & 1].reach = F2D_ONE / 2;
		w->bodies[0].center = f2d_v(0, 0);
		w->bodies[1].center = f2d_v(F2D_ONE + off[i / 4 % 8] * ((i & 2) ? -1 : 1) / 2,
		                            off[i / 32 % 8]);
		w->bodies[0].q = f2d_make_rot(-ang[i / 256 % 8]);
		w->bodies[1].q = f2d_make_rot(ang[i / 2048 % 8] * ((i & 1) ? 1 : -1));
		fix16_t sep[2] = {0, 0};
		bool want = ref_recycle(w, &p, sep);
		bool got = f2d_recycle_arbiter(w, &p, &out, spec);
		ck_assert_int_eq(got, want);
		for (int32_t k = 0; got && k < p.count; ++k) {
			ck_assert_int_eq(out.points[k].separation, sep[k]);
		}
		/* which branch of the lazy sweep decided (the same arithmetic as contact.c) */
		f2d_rot da = ref_turn(w->bodies[0].q, p.cached_q_a);
		f2d_rot db = ref_turn(w->bodies[1].q, p.cached_q_b);
		if (da.c < F2D_RECYCLE_COS || db.c < F2D_RECYCLE_COS) {
			continue;
		}
		fix16_t none[2];
		const int32_t ra = w->shapes[0].reach, rb = w->shapes[1].reach;
		w->shapes[0].reach = w->shapes[1].reach = 0;
		bool by_l1 = ref_recycle(w, &p, none); /* l1 < distance (sweep 0 or no turn) */
		w->shapes[0].reach = ra;
		w->shapes[1].reach = rb;
		int64_t sin_rel = llabs(f2d_round16((int64_t)db.s * da.c - (int64_t)db.c * da.s));
		int64_t ub = (F2D_MAX_CLOSING * sin_rel + 0xFFFF) >> 16;
		w->shapes[0].reach = w->shapes[1].reach = F2D_MAX_CLOSING;
		bool fast = ref_recycle(w, &p, none) && sin_rel > 0 && ub > 0;
		w->shapes[0].reach = ra;
		w->shapes[1].reach = rb;
		outcome[!by_l1 ? 0 : fast ? 1 : want ? 2 : 3]++;
	}
	for (int32_t k = 0; k < 4; ++k) {
		ck_assert_int_gt(outcome[k], 0);
	}
	f2d_destroy_world(w);
}
END_TEST

/* The rule's SIMD path (recycle_simd.h, f2d_recycle_dp_256) against its scalar reference
 * (f2d_recycle_arbiter_kernel with F2D_KERNEL_SCALAR), for every kernel this machine runs:
 * anchors at the int32 edges and at the rounding's ties (2^15 odd), rotations and normals at +-(2^16 + 2^8) and between, centres at
 * the edges, one point with junk in the unused slot or two, unmoved poses (the exact no-turn)
 * and small moves around them: the same answer and the same output arbiter, byte for byte. */
START_TEST(recycle_rule_kernels_match_scalar)
{
	f2d_arbiter prev;
	f2d_world *w = recycle_world(&prev);
	const fix16_t spec = w->def.speculative_distance;
	static const int32_t e32[] = {INT32_MIN, INT32_MIN + 1, -65536, -1, 0,
	                              1,         32768,         98304,  65536, INT32_MAX};
	static const int32_t eq[] = {-(65536 + 256), -65536, -1, 0, 32768, 46341, 65536, 65536 + 256};
	static const int32_t small[] = {0, 1, -1, 255, -4000, 32768, 16383, -16384};
	uint64_t checked = 0, kept = 0, kept_moved = 0;
	for (int kernel = F2D_KERNEL_AVX2; kernel <= f2d_kernel_level(); ++kernel) {
		for (uint32_t i = 0; i < 8u * 8 * 8 * 8 * 4; ++i) {
			f2d_arbiter p = prev;
			uint32_t h = i * 2654435761u; /* a spread of the grid's indices */
			p.count = (i & 1) ? 2 : 1;
			for (int32_t k = 0; k < 2; ++k) {
				p.points[k].r_a = f2d_v(e32[(i + k) % 10], e32[(h >> 8) % 10]);
				p.points[k].r_b = f2d_v(e32[(i / 8 + k) % 10], e32[(h >> 12) % 10]);
				p.base_separation[k] = e32[(h >> (16 + k)) % 10];
				p.points[k].id = h ^ (uint32_t)k;
			}
			p.normal = f2d_v(eq[(h >> 4) % 8], eq[(h >> 20) % 8]);
			p.cached_q_a = (f2d_rot){eq[i % 8], eq[i / 8 % 8]};
			p.cached_q_b = (f2d_rot){eq[i / 64 % 8], eq[(h >> 24) % 8]};
			f2d_body *ba = &w->bodies[0], *bb = &w->bodies[1];
			ba->center = f2d_v(e32[(h >> 3) % 10], e32[(h >> 6) % 10]);
			bb->center = f2d_v(e32[(h >> 9) % 10], e32[(h >> 27) % 10]);
			w->shapes[0].reach = (i & 2) ? F2D_MAX_CLOSING : 0;
			int mode = (int)(i / 512 % 4);
			if (mode == 0) { /* both unmoved: the exact no-turn, dp from the centres */
				ba->q = p.cached_q_a;
				bb->q = p.cached_q_b;
			} else if (mode == 1) { /* the edges everywhere */
				ba->q = (f2d_rot){eq[(h >> 5) % 8], eq[(i + 3) % 8]};
				bb->q = (f2d_rot){eq[(h >> 7) % 8], eq[(i + 5) % 8]};
			} else { /* near the build: small anchors and turns, some recycled */
				ba->q = f2d_make_rot(small[i % 8] / 8);
				bb->q = f2d_make_rot(small[(h >> 10) % 8] / 8);
				p.cached_q_a = f2d_make_rot(small[(h >> 13) % 8] / 8);
				p.cached_q_b = mode == 2 ? bb->q : f2d_rot_identity();
				for (int32_t k = 0; k < 2; ++k) {
					p.points[k].r_a = f2d_v(small[(h >> (k + 2)) % 8] * 4, small[(i + k) % 8]);
					p.points[k].r_b = f2d_v(small[(h >> (k + 5)) % 8], small[(h >> 14) % 8] * 4);
				}
				ba->center = f2d_v(small[(h >> 17) % 8], small[i / 8 % 8]);
				bb->center = f2d_v(small[(h >> 19) % 8] + F2D_ONE / 8, small[(h >> 21) % 8]);
			}
			if (p.count == 1) { /* junk in the unused point */
				p.points[1].r_a = f2d_v(e32[h % 10], e32[(h >> 1) % 10]);
				p.points[1].r_b = f2d_v(e32[(h >> 2) % 10], INT32_MIN);
			}
			/* the turns and dp themselves */
			f2d_rot ta[2], tb[2];
			int64_t d[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}}, l1[2] = {0, 0};
			bool on0 = f2d_recycle_dp_kernel(&p, ba, bb, &ta[0], &tb[0], d[0], &l1[0],
			                                 F2D_KERNEL_SCALAR);
			bool on1 = f2d_recycle_dp_kernel(&p, ba, bb, &ta[1], &tb[1], d[1], &l1[1], kernel);
			ck_assert_int_eq(on1, on0);
			if (on0) {
				ck_assert(ta[0].c == ta[1].c && ta[0].s == ta[1].s);
				ck_assert(tb[0].c == tb[1].c && tb[0].s == tb[1].s);
				ck_assert_int_eq(memcmp(d[0], d[1], (size_t)p.count * 2 * sizeof d[0][0]), 0);
				ck_assert_int_eq(l1[0], l1[1]);
			}
			f2d_arbiter want, got;
			memset(&want, 0xA5, sizeof want);
			memset(&got, 0xA5, sizeof got);
			bool ok0 = f2d_recycle_arbiter_kernel(w, &p, &want, spec, F2D_KERNEL_SCALAR);
			bool ok1 = f2d_recycle_arbiter_kernel(w, &p, &got, spec, kernel);
			ck_assert_int_eq(ok1, ok0);
			ck_assert_int_eq(memcmp(&got, &want, sizeof got), 0);
			checked++;
			kept += ok0 ? 1 : 0;
			kept_moved += ok0 && mode >= 2 ? 1 : 0;
		}
	}
	if (f2d_kernel_level() >= F2D_KERNEL_AVX2) { /* both answers met, with moves */
		ck_assert_uint_gt(kept, 100);
		ck_assert_uint_gt(kept_moved, 100);
		ck_assert_uint_gt(checked - kept, 100);
	}
	f2d_destroy_world(w);
}
END_TEST

static Suite *narrow_suite(void)
{
	Suite *s = suite_create("narrow");
	TCase *tc = tcase_create("box");
	tcase_add_loop_test(tc, box_path_matches_general_path, 0, 4);
	tcase_add_test(tc, non_boxes_take_the_general_path);
	tcase_add_test(tc, box_path_at_range_edges);
	tcase_add_test(tc, recycle_rule_kernels_match_scalar);
	tcase_add_test(tc, box_world_cache_same_on_every_kernel);
	tcase_add_test(tc, recycle_rule_behaves_and_has_no_overflow_at_range_edges);
	tcase_add_test(tc, recycle_rule_matches_reference);
	suite_add_tcase(s, tc);
	TCase *kept = tcase_create("kept");
	tcase_add_loop_test(kept, kept_caches_and_manifolds_match_full_recomputation, 0, 24);
	tcase_set_timeout(kept, 600);
	suite_add_tcase(s, kept);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(narrow_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
