/* fix2d-replay run --events / --digest: every event of every step, and a digest of the events
 * and of a fixed set of queries per step, so that the matrix can prove that events and query
 * results are the same bits on every compiler and CPU.
 * SPDX-License-Identifier: MIT
 *
 * Public API only. The digest is XXH3-64 over this little-endian byte stream, per step n
 * (n = 1, 2, ...), after the step:
 *   u32 n; then the events in the library's order: 'B' u32 count, per contact begin event
 *   (shape a, shape b); 'E' count, per end event (a, b); 'H' count, per hit event (a, b,
 *   point x, y, normal x, y, approach speed); 'S' count, per sensor begin event (sensor,
 *   visitor); 'T' count, per sensor end event (sensor, visitor). A shape is u32 index1, u32
 *   generation; every fix16 is its raw i32.
 *   Then the queries of step n (query_set below), in that order, each 'Q' u8 query number and
 *   its results in the library's order: a ray (closest) is u8 hit and, when hit, (shape,
 *   point, normal, fraction); a ray or shape cast with every hit, an AABB and an overlap query
 *   give u32 count and per result (shape) or (shape, point, normal, fraction).
 * Query positions are integer functions of n spread over the catalogue's scenes (-30..30 m,
 * 0..30 m), so that they hit and miss: rays down through the scene, rays across it near the
 * ground, two of them with a category filter, a short ray in the empty sky, a ray that starts
 * inside the ground (it does not hit the shape it starts in), rays with every hit, AABBs
 * (one far from everything), a circle and a turned box overlap, a circle cast downwards.
 */
#include "events.h"

#include "fix2d/fix2d.h"
#include "replay.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENC_CAPACITY 256

struct event_digest {
	XXH3_state_t *state;
	unsigned char buf[ENC_CAPACITY];
	size_t len;
	bool print;
	uint64_t events, query_hits, query_misses;
	uint32_t count; /* results of the current query (the callbacks count them) */
};

static void flush(event_digest *d)
{
	XXH3_64bits_update(d->state, d->buf, d->len);
	d->len = 0;
}

static void put_u8(event_digest *d, uint8_t v)
{
	if (d->len + 1 > ENC_CAPACITY) {
		flush(d);
	}
	d->buf[d->len++] = v;
}

static void put_u32(event_digest *d, uint32_t v)
{
	if (d->len + 4 > ENC_CAPACITY) {
		flush(d);
	}
	for (int i = 0; i < 4; ++i) {
		d->buf[d->len++] = (unsigned char)(v >> (8 * i));
	}
}

static void put_fix(event_digest *d, fix16_t v)
{
	put_u32(d, (uint32_t)v);
}

static void put_shape(event_digest *d, f2d_shape_id s)
{
	put_u32(d, (uint32_t)s.index1);
	put_u32(d, s.generation);
}

static void put_vec(event_digest *d, f2d_vec2 v)
{
	put_fix(d, v.x);
	put_fix(d, v.y);
}

event_digest *event_digest_create(bool print)
{
	event_digest *d = calloc(1, sizeof *d);
	if (d == NULL) {
		return NULL;
	}
	d->state = XXH3_createState();
	if (d->state == NULL) {
		free(d);
		return NULL;
	}
	XXH3_64bits_reset(d->state);
	d->print = print;
	return d;
}

void event_digest_destroy(event_digest *d)
{
	if (d != NULL) {
		XXH3_freeState(d->state);
		free(d);
	}
}

/* ---- events ---- */

/* "<index>:<generation>", the index as fix2d-replay prints body ids (index1 - 1). */
static void print_shape(f2d_shape_id s)
{
	printf(" %" PRId32 ":%" PRIu32, s.index1 - 1, s.generation);
}

static void print_head(long step, const char *kind)
{
	printf("event %ld %s", step, kind);
}

/* An event of two shapes: digested, and printed as "event <step> <kind> <a> <b>". */
static void pair_event(event_digest *d, long step, const char *kind, f2d_shape_id a, f2d_shape_id b)
{
	put_shape(d, a);
	put_shape(d, b);
	if (d->print) {
		print_head(step, kind);
		print_shape(a);
		print_shape(b);
		putchar('\n');
	}
}

/* Contact events: begin ('B'), end ('E') and hit ('H'), each list after its count. */
static void digest_contact_events(event_digest *d, const f2d_contact_events *ce, long step)
{
	put_u8(d, 'B');
	put_u32(d, (uint32_t)ce->begin_count);
	for (int32_t i = 0; i < ce->begin_count; ++i) {
		pair_event(d, step, "begin", ce->begin_events[i].shape_a,
		           ce->begin_events[i].shape_b);
	}
	put_u8(d, 'E');
	put_u32(d, (uint32_t)ce->end_count);
	for (int32_t i = 0; i < ce->end_count; ++i) {
		pair_event(d, step, "end", ce->end_events[i].shape_a, ce->end_events[i].shape_b);
	}
	put_u8(d, 'H');
	put_u32(d, (uint32_t)ce->hit_count);
	for (int32_t i = 0; i < ce->hit_count; ++i) {
		const f2d_contact_hit_event *h = &ce->hit_events[i];
		put_shape(d, h->shape_a);
		put_shape(d, h->shape_b);
		put_vec(d, h->point);
		put_vec(d, h->normal);
		put_fix(d, h->approach_speed);
		if (d->print) {
			print_head(step, "hit");
			print_shape(h->shape_a);
			print_shape(h->shape_b);
			printf(" %" PRId32 " %" PRId32 " %" PRId32 " %" PRId32 " %" PRId32 "\n",
			       h->point.x, h->point.y, h->normal.x, h->normal.y, h->approach_speed);
		}
	}
}

static void digest_events(event_digest *d, const f2d_world *w, long step)
{
	f2d_contact_events ce;
	f2d_sensor_events se;
	f2d_world_get_contact_events(w, &ce);
	f2d_world_get_sensor_events(w, &se);
	digest_contact_events(d, &ce, step);
	put_u8(d, 'S');
	put_u32(d, (uint32_t)se.begin_count);
	for (int32_t i = 0; i < se.begin_count; ++i) {
		pair_event(d, step, "sensor_begin", se.begin_events[i].sensor_shape,
		           se.begin_events[i].visitor_shape);
	}
	put_u8(d, 'T');
	put_u32(d, (uint32_t)se.end_count);
	for (int32_t i = 0; i < se.end_count; ++i) {
		pair_event(d, step, "sensor_end", se.end_events[i].sensor_shape,
		           se.end_events[i].visitor_shape);
	}
	d->events += (uint64_t)ce.begin_count + (uint64_t)ce.end_count + (uint64_t)ce.hit_count +
	             (uint64_t)se.begin_count + (uint64_t)se.end_count;
}

/* ---- queries ---- */

#define MM(m) F2D_MILLI(m)

static f2d_vec2 vec(fix16_t x, fix16_t y)
{
	f2d_vec2 v = {x, y};
	return v;
}

/* Overlap results: the shape only. */
static bool on_overlap(f2d_shape_id shape, void *context)
{
	event_digest *d = context;
	put_shape(d, shape);
	d->count += 1;
	return true;
}

/* Cast results: every hit (1: go on), encoded as they come (fraction, then shape id order). */
static fix16_t on_cast(f2d_shape_id shape, f2d_vec2 point, f2d_vec2 normal, fix16_t fraction,
                       void *context)
{
	event_digest *d = context;
	put_shape(d, shape);
	put_vec(d, point);
	put_vec(d, normal);
	put_fix(d, fraction);
	d->count += 1;
	return F2D_ONE;
}

static void query_head(event_digest *d, uint8_t number)
{
	put_u8(d, 'Q');
	put_u8(d, number);
}

/* A query with a list of results: its count goes after them (the list is streamed). */
static void list_done(event_digest *d, f2d_result r)
{
	put_u32(d, d->count);
	put_u32(d, (uint32_t)r);
	if (d->count > 0) {
		d->query_hits += 1;
	} else {
		d->query_misses += 1;
	}
	d->count = 0;
}

static void ray_closest(event_digest *d, f2d_world *w, uint8_t number, f2d_vec2 origin,
                        f2d_vec2 translation, f2d_query_filter filter)
{
	f2d_ray_result res;
	memset(&res, 0, sizeof res);
	f2d_result r = f2d_world_cast_ray_closest(w, origin, translation, filter, &res);
	query_head(d, number);
	put_u32(d, (uint32_t)r);
	put_u8(d, res.hit ? 1 : 0);
	if (res.hit) {
		put_shape(d, res.shape);
		put_vec(d, res.point);
		put_vec(d, res.normal);
		put_fix(d, res.fraction);
		d->query_hits += 1;
	} else {
		d->query_misses += 1;
	}
}

/* Queries 0-17: the rays (n: the step's drift), `red` sees only shapes of category 2. */
static void query_rays(event_digest *d, f2d_world *w, int32_t n, uint8_t *q, f2d_query_filter all,
                       f2d_query_filter red)
{
	/* 8 rays down through the scene, x from -21 m every 6 m, drifting with n */
	for (int32_t k = 0; k < 8; ++k, ++*q) {
		fix16_t x = F2D_FIX(-21 + 6 * k) + (fix16_t)(((n * 37) % 64) << 10);
		fix16_t dx = (fix16_t)(((n + 3 * k) % 9 - 4) * (F2D_ONE / 4));
		ray_closest(d, w, *q, vec(x, F2D_FIX(30)), vec(dx, F2D_FIX(-32)), all);
	}
	/* 6 rays across the scene near the ground (y 0.2 .. 5), alternately left to right and
	 * right to left; the last two see only category 2 */
	for (int32_t k = 0; k < 6; ++k, ++*q) {
		fix16_t y = MM(200 + 900 * k) + (fix16_t)((n % 32) << 10);
		bool left = (k & 1) == 0;
		ray_closest(d, w, *q, vec(left ? F2D_FIX(-30) : F2D_FIX(30), y),
		            vec(left ? F2D_FIX(60) : F2D_FIX(-60), 0), k >= 4 ? red : all);
	}
	/* a short ray in the empty sky (a miss) */
	ray_closest(d, w, (*q)++, vec(F2D_FIX(n % 20 - 10), F2D_FIX(40)), vec(MM(500), MM(500)),
	            all);
	/* a ray that starts inside the ground box: it does not hit that shape */
	ray_closest(d, w, (*q)++, vec(F2D_FIX(n % 16 - 8), MM(-250)), vec(MM(300), F2D_FIX(5)),
	            all);
	/* two rays with every hit */
	f2d_result r;
	query_head(d, (*q)++);
	r = f2d_world_cast_ray(w, vec(F2D_FIX(-25), F2D_FIX(15)),
	                       vec(F2D_FIX(50), F2D_FIX(-16) + (fix16_t)((n % 10) * (F2D_ONE / 5))),
	                       all, on_cast, d);
	list_done(d, r);
	query_head(d, (*q)++);
	r = f2d_world_cast_ray(w, vec(F2D_FIX(25), MM(500) + (fix16_t)((n % 16) << 12)),
	                       vec(F2D_FIX(-50), F2D_FIX(3)), red, on_cast, d);
	list_done(d, r);
}

/* Queries 18-21, 4 AABBs: one moving along the ground, one wandering (category 2 only), a
 * small one whose size changes, one far from everything. */
static void query_boxes(event_digest *d, f2d_world *w, int32_t n, uint8_t *q, f2d_query_filter all,
                        f2d_query_filter red)
{
	f2d_aabb boxes[4];
	boxes[0].lower = vec(F2D_FIX(n % 40 - 21), 0);
	boxes[0].upper = vec(F2D_FIX(n % 40 - 19), F2D_FIX(2));
	boxes[1].lower = vec(F2D_FIX((n * 3) % 24 - 14), F2D_FIX(n % 12) - MM(1000));
	boxes[1].upper = vec(F2D_FIX((n * 3) % 24 - 10), F2D_FIX(n % 12) + MM(2000));
	fix16_t half = MM(250) + (fix16_t)((n % 4) * (F2D_ONE / 8));
	boxes[2].lower = vec(-half, F2D_FIX(5) - MM(250));
	boxes[2].upper = vec(half, F2D_FIX(5) + MM(250));
	boxes[3].lower = vec(F2D_FIX(200), F2D_FIX(200));
	boxes[3].upper = vec(F2D_FIX(201), F2D_FIX(201));
	for (int32_t k = 0; k < 4; ++k) {
		query_head(d, (*q)++);
		f2d_result r = f2d_world_query_aabb(w, boxes[k], k == 1 ? red : all, on_overlap, d);
		list_done(d, r);
	}
}

/* Queries 22-24: 2 overlaps (a circle and a turned box), then a circle (0.3 m) cast 12 m
 * down. */
static void query_shapes(event_digest *d, f2d_world *w, int32_t n, uint8_t *q, f2d_query_filter all)
{
	f2d_query_shape circle;
	memset(&circle, 0, sizeof circle);
	circle.type = F2D_CIRCLE_SHAPE;
	circle.circle.radius = MM(750);
	f2d_transform xf;
	xf.p = vec(F2D_FIX((n * 3) % 30 - 15), F2D_FIX(1) + (fix16_t)((n % 5) * (F2D_ONE / 2)));
	xf.q = f2d_make_rot(0);
	query_head(d, (*q)++);
	f2d_result r = f2d_world_overlap_shape(w, &circle, xf, all, on_overlap, d);
	list_done(d, r);
	f2d_query_shape box;
	memset(&box, 0, sizeof box);
	box.type = F2D_POLYGON_SHAPE;
	r = f2d_make_box(F2D_ONE, MM(500), &box.polygon);
	xf.p = vec(F2D_FIX((n * 5) % 20 - 10), F2D_FIX(3));
	xf.q = f2d_make_rot((fix16_t)((n % 8) * MM(200)));
	query_head(d, (*q)++);
	if (r == F2D_OK) {
		r = f2d_world_overlap_shape(w, &box, xf, all, on_overlap, d);
	}
	list_done(d, r);
	circle.circle.radius = MM(300);
	xf.p = vec(F2D_FIX(n % 24 - 12), F2D_FIX(12));
	xf.q = f2d_make_rot(0);
	query_head(d, (*q)++);
	r = f2d_world_cast_shape(w, &circle, xf, vec(MM(500), F2D_FIX(-12)), all, on_cast, d);
	list_done(d, r);
}

static void digest_queries(event_digest *d, f2d_world *w, long step)
{
	const int32_t n = (int32_t)(step % 1000000);
	const f2d_query_filter all = f2d_default_query_filter();
	f2d_query_filter red = all; /* sees only shapes of category 2 */
	red.mask_bits = 2;
	uint8_t q = 0;
	d->count = 0;
	query_rays(d, w, n, &q, all, red);
	query_boxes(d, w, n, &q, all, red);
	query_shapes(d, w, n, &q, all);
}

void event_digest_step(event_digest *d, f2d_world *world, long step)
{
	put_u32(d, (uint32_t)step);
	digest_events(d, world, step);
	digest_queries(d, world, step);
}

void event_digest_print(event_digest *d)
{
	flush(d);
	printf("digest %016" PRIx64 " events %" PRIu64 " query_hits %" PRIu64
	       " query_misses %" PRIu64 "\n",
	       (uint64_t)XXH3_64bits_digest(d->state), d->events, d->query_hits, d->query_misses);
}
