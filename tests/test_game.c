/* fix2d tests: the game API (issue 12): collision filtering, sensors, contact and hit events,
 * body options, and that all of it is state (hash, snapshots, clone) and rollback-safe.
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"

#include "test_common.h"

static f2d_vec2 V(fix16_t x, fix16_t y)
{
	f2d_vec2 v = {x, y};
	return v;
}

static f2d_world *new_world(bool sleep)
{
	f2d_world_def wd = f2d_default_world_def();
	wd.enable_sleep = sleep;
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&wd, &w));
	return w;
}

static f2d_body_id body(f2d_world *w, f2d_body_type type, fix16_t x, fix16_t y)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position = V(x, y);
	f2d_body_id id;
	CHECK_OK(f2d_create_body(w, &bd, &id));
	return id;
}

static f2d_shape_id box(f2d_world *w, f2d_body_id b, fix16_t hx, fix16_t hy,
                        const f2d_shape_def *sd)
{
	f2d_shape_def d = sd != NULL ? *sd : f2d_default_shape_def();
	f2d_polygon p;
	CHECK_OK(f2d_make_box(hx, hy, &p));
	f2d_shape_id s;
	CHECK_OK(f2d_create_polygon_shape(w, b, &d, &p, &s));
	return s;
}

static f2d_shape_id ground(f2d_world *w)
{
	f2d_body_id g = body(w, F2D_STATIC_BODY, 0, F2D_MILLI(-500));
	return box(w, g, F2D_FIX(20), F2D_MILLI(500), NULL);
}

static bool same_shape(f2d_shape_id a, f2d_shape_id b)
{
	return a.index1 == b.index1 && a.generation == b.generation;
}

/* ---- events as comparable records ---- */

typedef struct event_log {
	char *text;
	size_t len, cap;
} event_log;

static void log_add(event_log *l, const char *s)
{
	size_t n = strlen(s);
	if (l->len + n + 1 > l->cap) {
		l->cap = (l->len + n + 1) * 2;
		l->text = realloc(l->text, l->cap);
		ck_assert_ptr_nonnull(l->text);
	}
	memcpy(l->text + l->len, s, n + 1);
	l->len += n;
}

/* Every event of the last step, as text: kind, ids, generations, point, normal, speed. */
static void log_step(f2d_world *w, int32_t step, event_log *l)
{
	char buf[256];
	f2d_contact_events ce;
	f2d_sensor_events se;
	f2d_world_get_contact_events(w, &ce);
	f2d_world_get_sensor_events(w, &se);
	for (int32_t i = 0; i < ce.begin_count; ++i) {
		snprintf(buf, sizeof buf, "%d begin %d.%u %d.%u\n", step,
		         ce.begin_events[i].shape_a.index1, ce.begin_events[i].shape_a.generation,
		         ce.begin_events[i].shape_b.index1, ce.begin_events[i].shape_b.generation);
		log_add(l, buf);
	}
	for (int32_t i = 0; i < ce.end_count; ++i) {
		snprintf(buf, sizeof buf, "%d end %d.%u %d.%u\n", step,
		         ce.end_events[i].shape_a.index1, ce.end_events[i].shape_a.generation,
		         ce.end_events[i].shape_b.index1, ce.end_events[i].shape_b.generation);
		log_add(l, buf);
	}
	for (int32_t i = 0; i < ce.hit_count; ++i) {
		const f2d_contact_hit_event *h = &ce.hit_events[i];
		snprintf(buf, sizeof buf, "%d hit %d %d %d %d %d %d %d\n", step, h->shape_a.index1,
		         h->shape_b.index1, h->point.x, h->point.y, h->normal.x, h->normal.y,
		         h->approach_speed);
		log_add(l, buf);
	}
	for (int32_t i = 0; i < se.begin_count; ++i) {
		snprintf(buf, sizeof buf, "%d sbegin %d.%u %d.%u\n", step,
		         se.begin_events[i].sensor_shape.index1,
		         se.begin_events[i].sensor_shape.generation,
		         se.begin_events[i].visitor_shape.index1,
		         se.begin_events[i].visitor_shape.generation);
		log_add(l, buf);
	}
	for (int32_t i = 0; i < se.end_count; ++i) {
		snprintf(buf, sizeof buf, "%d send %d.%u %d.%u\n", step,
		         se.end_events[i].sensor_shape.index1,
		         se.end_events[i].sensor_shape.generation,
		         se.end_events[i].visitor_shape.index1,
		         se.end_events[i].visitor_shape.generation);
		log_add(l, buf);
	}
}

static int32_t count_begin(f2d_world *w)
{
	f2d_contact_events ce;
	f2d_world_get_contact_events(w, &ce);
	return ce.begin_count;
}

static int32_t count_end(f2d_world *w)
{
	f2d_contact_events ce;
	f2d_world_get_contact_events(w, &ce);
	return ce.end_count;
}

/* ---- filtering ---- */

/* Box2D's rule, written out independently */
static bool rule(f2d_filter a, f2d_filter b)
{
	if (a.group_index != 0 && a.group_index == b.group_index) {
		return a.group_index > 0;
	}
	return (a.category_bits & b.mask_bits) != 0 && (b.category_bits & a.mask_bits) != 0;
}

/* Two overlapping dynamic boxes (no gravity) with the given filters: do they get a contact? */
static bool touch_with(f2d_filter fa, f2d_filter fb)
{
	f2d_world_def wd = f2d_default_world_def();
	wd.gravity = V(0, 0);
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&wd, &w));
	f2d_shape_def sa = f2d_default_shape_def(), sb = f2d_default_shape_def();
	sa.filter = fa;
	sb.filter = fb;
	box(w, body(w, F2D_DYNAMIC_BODY, 0, 0), F2D_MILLI(500), F2D_MILLI(500), &sa);
	box(w, body(w, F2D_DYNAMIC_BODY, F2D_MILLI(900), 0), F2D_MILLI(500), F2D_MILLI(500), &sb);
	CHECK_OK(f2d_world_step(w));
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	int32_t begins = count_begin(w);
	f2d_destroy_world(w);
	ck_assert_int_eq(begins, st.arbiter_count);
	return st.arbiter_count > 0;
}

START_TEST(filter_truth_table)
{
	const uint64_t cats[] = {1, 2, 6, UINT64_MAX};
	const uint64_t masks[] = {0, 1, 2, 0xFFFFFFFFFFFFFFFDu, UINT64_MAX};
	const int32_t groups[] = {0, 3, -3, 5};
	int32_t n = 0, touching = 0;
	for (size_t g1 = 0; g1 < 4; ++g1) {
		for (size_t g2 = 0; g2 < 4; ++g2) {
			for (size_t c = 0; c < 4; ++c) {
				for (size_t m = 0; m < 5; ++m) {
					f2d_filter a = {cats[c], masks[m], groups[g1]};
					f2d_filter b = {cats[(c + m) % 4], masks[(m + c + g2) % 5],
					                groups[g2]};
					bool want = rule(a, b);
					ck_assert_msg(
					    touch_with(a, b) == want,
					    "filters %llx/%llx/%d and %llx/%llx/%d",
					    (unsigned long long)a.category_bits,
					    (unsigned long long)a.mask_bits, a.group_index,
					    (unsigned long long)b.category_bits,
					    (unsigned long long)b.mask_bits, b.group_index);
					touching += want ? 1 : 0;
					++n;
				}
			}
		}
	}
	ck_assert_int_eq(n, 320);
	ck_assert_int_gt(touching, 40); /* both outcomes are exercised */
	ck_assert_int_lt(touching, 300);
}
END_TEST

/* Setting a filter mid-contact ends the contact at the next step (one end event), and the body
 * falls through; restoring the filter lets new contacts begin. */
START_TEST(filter_change_ends_contact)
{
	f2d_world *w = new_world(true);
	f2d_shape_id g = ground(w);
	f2d_body_id b = body(w, F2D_DYNAMIC_BODY, 0, F2D_MILLI(600));
	f2d_shape_id s = box(w, b, F2D_MILLI(500), F2D_MILLI(500), NULL);
	for (int i = 0; i < 30; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	f2d_filter f = f2d_default_filter();
	f.mask_bits = ~(uint64_t)1; /* not the ground's category */
	uint64_t h = f2d_world_hash(w);
	CHECK_OK(f2d_shape_set_filter(w, s, f));
	ck_assert_uint_ne(f2d_world_hash(w), h); /* the filter is state */
	f2d_filter back = f2d_shape_get_filter(w, s);
	ck_assert(back.mask_bits == f.mask_bits && back.category_bits == 1 &&
	          back.group_index == 0);
	CHECK_OK(f2d_world_step(w));
	f2d_contact_events ce;
	f2d_world_get_contact_events(w, &ce);
	ck_assert_int_eq(ce.end_count, 1);
	ck_assert(same_shape(ce.end_events[0].shape_a, g) &&
	          same_shape(ce.end_events[0].shape_b, s));
	for (int i = 0; i < 60; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	ck_assert_int_lt(f2d_body_get_position(w, b).y, -F2D_FIX(2)); /* fell through */
	f2d_destroy_world(w);
}
END_TEST

/* ---- contact events ---- */

/* A box lands (one begin), rests (no repeats), sleeps (no end), is lifted (one end). */
START_TEST(land_rest_sleep_lift)
{
	f2d_world *w = new_world(true);
	f2d_shape_id g = ground(w);
	f2d_body_id b = body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(3));
	f2d_shape_id s = box(w, b, F2D_MILLI(500), F2D_MILLI(500), NULL);
	int32_t begins = 0, ends = 0, begin_step = -1;
	bool slept = false;
	for (int32_t i = 0; i < 240; ++i) {
		CHECK_OK(f2d_world_step(w));
		f2d_contact_events ce;
		f2d_world_get_contact_events(w, &ce);
		if (ce.begin_count > 0) {
			begin_step = i;
			ck_assert(same_shape(ce.begin_events[0].shape_a, g));
			ck_assert(same_shape(ce.begin_events[0].shape_b, s));
		}
		begins += ce.begin_count;
		ends += ce.end_count;
		slept |= !f2d_body_is_awake(w, b);
	}
	ck_assert_int_eq(begins, 1);
	ck_assert_int_eq(ends, 0);
	ck_assert(slept);
	ck_assert_int_gt(begin_step, 20); /* it fell first: 2.5 m takes ~0.7 s */
	/* what is it standing on: its one contact, with the ground, pushing up with ~ m g h, h the
	 * solver's step: the time step with substep_count 0, the substep (time step / n) with the
	 * soft step (the default), whose accumulated impulse is the last substep's (as Box2D v3's
	 * normalImpulse) */
	const int32_t n = f2d_default_world_def().substep_count > 0
	                      ? f2d_default_world_def().substep_count
	                      : 1;
	f2d_contact_data cd[4];
	ck_assert_int_eq(f2d_body_get_contacts(w, b, cd, 4), 1);
	ck_assert(same_shape(cd[0].shape_a, g) && same_shape(cd[0].shape_b, s));
	ck_assert_int_eq(cd[0].point_count, 2);
	ck_assert_int_eq(cd[0].normal.y, F2D_ONE);
	int64_t pn = (int64_t)cd[0].points[0].normal_impulse + cd[0].points[1].normal_impulse;
	ck_assert_int_gt(pn, F2D_MILLI(150) / n); /* 1 kg x 10 m/s^2 x 1/60 s = 0.167 N s */
	ck_assert_int_lt(pn, F2D_MILLI(180) / n);
	ck_assert_int_eq(f2d_shape_get_contacts(w, g, NULL, 0), 1);
	ck_assert_int_eq(f2d_shape_get_contacts(w, s, cd, 4), 1);
	f2d_shape_id bogus = {s.index1, s.generation + 1};
	ck_assert_int_eq(f2d_shape_get_contacts(w, bogus, cd, 4), 0);
	f2d_rot q = {F2D_ONE, 0};
	CHECK_OK(f2d_body_set_transform(w, b, V(0, F2D_FIX(5)), q));
	CHECK_OK(f2d_world_step(w));
	ck_assert_int_eq(count_end(w), 1);
	ck_assert_int_eq(count_begin(w), 0);
	CHECK_OK(f2d_world_step(w));
	ck_assert_int_eq(count_end(w), 0);
	f2d_destroy_world(w);
}
END_TEST

/* A shape destroyed mid-contact: its end event comes with the next step, with its old id; and
 * disabling contact events on both shapes silences them. */
START_TEST(destroyed_shape_ends_contact)
{
	f2d_world *w = new_world(false);
	f2d_shape_id g = ground(w);
	f2d_body_id b = body(w, F2D_DYNAMIC_BODY, 0, F2D_MILLI(520));
	f2d_shape_id s = box(w, b, F2D_MILLI(500), F2D_MILLI(500), NULL);
	f2d_shape_def quiet = f2d_default_shape_def();
	quiet.enable_contact_events = false;
	f2d_body_id c = body(w, F2D_DYNAMIC_BODY, F2D_FIX(5), F2D_MILLI(520));
	box(w, c, F2D_MILLI(500), F2D_MILLI(500), &quiet);
	CHECK_OK(f2d_world_step(w));
	ck_assert_int_eq(count_begin(w), 2); /* both touch; c's shape is quiet, the ground is not */
	for (int i = 0; i < 10; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	uint64_t h = f2d_world_hash(w);
	CHECK_OK(f2d_destroy_shape(w, s));
	ck_assert_uint_ne(f2d_world_hash(w), h); /* the owed event is state */
	/* it survives a snapshot round trip made now */
	size_t n = f2d_snapshot_portable_size(w), got;
	void *buf = malloc(n);
	CHECK_OK(f2d_snapshot_save_portable(w, buf, n, &got));
	f2d_world *copy = NULL;
	CHECK_OK(f2d_snapshot_load_new(buf, got, NULL, &copy));
	ck_assert_uint_eq(f2d_world_hash(copy), f2d_world_hash(w));
	for (int k = 0; k < 2; ++k) {
		f2d_world *x = k == 0 ? w : copy;
		CHECK_OK(f2d_world_step(x));
		f2d_contact_events ce;
		f2d_world_get_contact_events(x, &ce);
		ck_assert_int_eq(ce.end_count, 1);
		ck_assert(same_shape(ce.end_events[0].shape_a, g));
		ck_assert(same_shape(ce.end_events[0].shape_b, s)); /* the stale id */
		ck_assert(!f2d_shape_is_valid(x, ce.end_events[0].shape_b));
		CHECK_OK(f2d_world_step(x));
		ck_assert_int_eq(count_end(x), 0);
	}
	free(buf);
	f2d_destroy_world(copy);
	f2d_destroy_world(w);
}
END_TEST

/* A joint made between two touching bodies (collide_connected false) ends their contact now:
 * one end event at the next step, none after; a world saved in between keeps it owed. */
START_TEST(joint_ends_contact)
{
	f2d_world *w = new_world(false);
	ground(w);
	f2d_body_id a = body(w, F2D_DYNAMIC_BODY, 0, F2D_MILLI(520));
	f2d_shape_id sa = box(w, a, F2D_MILLI(500), F2D_MILLI(500), NULL);
	f2d_body_id b = body(w, F2D_DYNAMIC_BODY, 0, F2D_MILLI(1530));
	f2d_shape_id sb = box(w, b, F2D_MILLI(500), F2D_MILLI(500), NULL);
	for (int i = 0; i < 20; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	f2d_contact_data cd[4];
	ck_assert_int_eq(f2d_shape_get_contacts(w, sb, cd, 4), 1); /* b rests on a */
	f2d_revolute_joint_def jd;
	CHECK_OK(f2d_init_revolute_joint_def(w, a, b, f2d_body_get_position(w, b), &jd));
	f2d_joint_id j;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &j));
	ck_assert_int_eq(f2d_shape_get_contacts(w, sb, cd, 4), 0);
	CHECK_OK(f2d_world_step(w));
	f2d_contact_events ce;
	f2d_world_get_contact_events(w, &ce);
	ck_assert_int_eq(ce.end_count, 1);
	ck_assert(same_shape(ce.end_events[0].shape_a, sa) &&
	          same_shape(ce.end_events[0].shape_b, sb));
	CHECK_OK(f2d_world_step(w));
	ck_assert_int_eq(count_end(w), 0);
	f2d_destroy_world(w);
}
END_TEST

/* Hit events: a ball dropped from 5 m hits at about 10 m/s (one event, at the ground, normal
 * up); with the threshold above that speed, none. */
static int32_t drop_hits(fix16_t threshold, f2d_contact_hit_event *first)
{
	f2d_world_def wd = f2d_default_world_def();
	wd.hit_event_threshold = threshold;
	f2d_world *w = NULL;
	CHECK_OK(f2d_create_world(&wd, &w));
	ground(w);
	f2d_body_id b = body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(5));
	f2d_shape_def sd = f2d_default_shape_def();
	sd.enable_hit_events = true;
	f2d_circle c = {{0, 0}, F2D_MILLI(250)};
	f2d_shape_id s;
	CHECK_OK(f2d_create_circle_shape(w, b, &sd, &c, &s));
	int32_t hits = 0;
	for (int i = 0; i < 180; ++i) {
		CHECK_OK(f2d_world_step(w));
		f2d_contact_events ce;
		f2d_world_get_contact_events(w, &ce);
		if (ce.hit_count > 0 && hits == 0 && first != NULL) {
			*first = ce.hit_events[0];
		}
		hits += ce.hit_count;
	}
	f2d_destroy_world(w);
	return hits;
}

START_TEST(hit_events)
{
	f2d_contact_hit_event h;
	ck_assert_int_eq(drop_hits(F2D_FIX(2), &h), 1);
	/* v = sqrt(2 g 4.75) = 9.7 m/s, within a step of gravity */
	ck_assert_int_gt(h.approach_speed, F2D_MILLI(9300));
	ck_assert_int_lt(h.approach_speed, F2D_MILLI(10100));
	ck_assert_int_eq(h.normal.x, 0);
	ck_assert_int_eq(h.normal.y, F2D_ONE); /* from the ground (A) up to the ball (B) */
	ck_assert_int_lt(h.point.y, F2D_MILLI(50));
	ck_assert_int_gt(h.point.y, -F2D_MILLI(100));
	ck_assert_int_eq(drop_hits(F2D_FIX(20), NULL), 0);
}
END_TEST

/* ---- sensors ---- */

/* A box falls through a static sensor zone: one begin, one end, in that order; the sensor
 * changes nothing of the motion (the same fall as without it); the query does not see it. */
START_TEST(sensor_pass_through)
{
	f2d_world *a = new_world(false), *b = new_world(false);
	f2d_shape_def sens = f2d_default_shape_def();
	sens.is_sensor = true;
	f2d_body_id zone = body(a, F2D_STATIC_BODY, 0, F2D_FIX(5));
	f2d_shape_id zs = box(a, zone, F2D_FIX(2), F2D_FIX(1), &sens);
	ck_assert(f2d_shape_is_sensor(a, zs));
	f2d_body_id fa = body(a, F2D_DYNAMIC_BODY, 0, F2D_FIX(10));
	f2d_shape_id vs = box(a, fa, F2D_MILLI(250), F2D_MILLI(250), NULL);
	f2d_body_id fb = body(b, F2D_DYNAMIC_BODY, 0, F2D_FIX(10));
	box(b, fb, F2D_MILLI(250), F2D_MILLI(250), NULL);
	int32_t begin_at = -1, end_at = -1, begins = 0, ends = 0;
	for (int32_t i = 0; i < 120; ++i) {
		CHECK_OK(f2d_world_step(a));
		CHECK_OK(f2d_world_step(b));
		f2d_vec2 pa = f2d_body_get_position(a, fa), pb = f2d_body_get_position(b, fb);
		ck_assert(pa.x == pb.x && pa.y == pb.y);
		f2d_sensor_events se;
		f2d_world_get_sensor_events(a, &se);
		if (se.begin_count > 0) {
			begin_at = i;
			ck_assert(same_shape(se.begin_events[0].sensor_shape, zs));
			ck_assert(same_shape(se.begin_events[0].visitor_shape, vs));
		}
		if (se.end_count > 0) {
			end_at = i;
		}
		begins += se.begin_count;
		ends += se.end_count;
		f2d_world_stats st;
		f2d_world_get_stats(a, &st);
		ck_assert_int_eq(st.arbiter_count, 0); /* a sensor never makes a contact */
	}
	ck_assert_int_eq(begins, 1);
	ck_assert_int_eq(ends, 1);
	ck_assert_int_gt(begin_at, 0);
	ck_assert_int_gt(end_at, begin_at);
	f2d_destroy_world(a);
	f2d_destroy_world(b);
}
END_TEST

/* A visitor that falls asleep inside a sensor stays inside (no end event while it sleeps), and
 * sensors do not see other sensors; a visitor with sensor events off is not seen. */
START_TEST(sensor_sleeping_visitor)
{
	f2d_world *w = new_world(true);
	f2d_shape_id g = ground(w);
	f2d_shape_def sens = f2d_default_shape_def();
	sens.is_sensor = true;
	f2d_body_id zone = body(w, F2D_STATIC_BODY, 0, F2D_FIX(1));
	f2d_shape_id zs = box(w, zone, F2D_FIX(3), F2D_FIX(2), &sens);
	/* a falling sensor: the zone does not see it; it sees the ground as it falls through */
	f2d_body_id other = body(w, F2D_DYNAMIC_BODY, F2D_FIX(1), F2D_FIX(1));
	f2d_shape_id os = box(w, other, F2D_MILLI(200), F2D_MILLI(200), &sens);
	f2d_body_id v = body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(2));
	f2d_shape_id vs = box(w, v, F2D_MILLI(250), F2D_MILLI(250), NULL);
	f2d_shape_def blind = f2d_default_shape_def();
	blind.enable_sensor_events = false; /* not seen by sensors */
	f2d_body_id u = body(w, F2D_DYNAMIC_BODY, -F2D_FIX(2), F2D_FIX(2));
	box(w, u, F2D_MILLI(250), F2D_MILLI(250), &blind);
	int32_t zone_begins = 0, other_begins = 0, ends_of_v = 0;
	bool slept = false;
	for (int32_t i = 0; i < 300; ++i) {
		CHECK_OK(f2d_world_step(w));
		f2d_sensor_events se;
		f2d_world_get_sensor_events(w, &se);
		for (int32_t k = 0; k < se.begin_count; ++k) {
			const f2d_sensor_begin_touch_event *e = &se.begin_events[k];
			if (same_shape(e->sensor_shape, zs)) {
				ck_assert(same_shape(e->visitor_shape, vs));
				++zone_begins;
			} else {
				ck_assert(same_shape(e->sensor_shape, os));
				ck_assert(same_shape(e->visitor_shape, g));
				++other_begins;
			}
		}
		for (int32_t k = 0; k < se.end_count; ++k) {
			ends_of_v += same_shape(se.end_events[k].visitor_shape, vs) ? 1 : 0;
		}
		slept |= !f2d_body_is_awake(w, v);
	}
	ck_assert(slept);
	ck_assert_int_eq(zone_begins, 1);
	ck_assert_int_eq(other_begins, 1);
	ck_assert_int_eq(ends_of_v, 0); /* asleep inside, still inside */
	f2d_destroy_world(w);
}
END_TEST

/* ---- events after a rollback ---- */

/* A scene with everything: contacts, hits, sensors, a filter change and a destroy mid-run.
 * Run 1 logs every step's events; then for several rollback points, restore (in-process and
 * portable) and resimulate: the events of every resimulated step equal the first run's. */
static void scripted(f2d_world *w, int32_t step, f2d_shape_id *shapes)
{
	if (step == 70) {
		f2d_filter f = f2d_default_filter();
		f.category_bits = 4;
		f.mask_bits = ~(uint64_t)4;
		f2d_shape_set_filter(w, shapes[0], f);
	}
	if (step == 90 && f2d_shape_is_valid(w, shapes[1])) {
		f2d_destroy_shape(w, shapes[1]);
	}
}

static f2d_world *rollback_world(bool sleep, f2d_shape_id *shapes)
{
	f2d_world *w = new_world(sleep);
	ground(w);
	f2d_shape_def sens = f2d_default_shape_def();
	sens.is_sensor = true;
	box(w, body(w, F2D_STATIC_BODY, 0, F2D_FIX(2)), F2D_FIX(6), F2D_MILLI(500), &sens);
	f2d_shape_def hit = f2d_default_shape_def();
	hit.enable_hit_events = true;
	for (int32_t i = 0; i < 12; ++i) {
		f2d_body_id b = body(w, F2D_DYNAMIC_BODY, F2D_FIX(-5) + i * F2D_MILLI(900),
		                     F2D_FIX(4) + (i % 3) * F2D_FIX(2));
		f2d_shape_id s = box(w, b, F2D_MILLI(300), F2D_MILLI(300), (i & 1) ? &hit : NULL);
		if (i < 2) {
			shapes[i] = s;
		}
	}
	return w;
}

static void rollback_case(bool sleep, bool portable)
{
	enum { STEPS = 150 };
	f2d_shape_id shapes[2];
	f2d_world *w = rollback_world(sleep, shapes);
	static event_log first[STEPS];
	static uint8_t *snaps[STEPS];
	static size_t snap_len[STEPS];
	uint64_t hashes[STEPS];
	for (int32_t i = 0; i < STEPS; ++i) {
		size_t n = portable ? f2d_snapshot_portable_size(w) : f2d_snapshot_size(w);
		snaps[i] = malloc(n);
		ck_assert_ptr_nonnull(snaps[i]);
		CHECK_OK(portable ? f2d_snapshot_save_portable(w, snaps[i], n, &snap_len[i])
		                  : f2d_snapshot_save(w, snaps[i], n, &snap_len[i]));
		scripted(w, i, shapes);
		CHECK_OK(f2d_world_step(w));
		memset(&first[i], 0, sizeof first[i]);
		log_add(&first[i], "");
		log_step(w, i, &first[i]);
		hashes[i] = f2d_world_hash(w);
	}
	int32_t with_events = 0;
	for (int32_t i = 0; i < STEPS; ++i) {
		with_events += first[i].len > 0 ? 1 : 0;
	}
	ck_assert_int_gt(with_events, 10);
	const int32_t from[] = {1, 40, 69, 70, 89, 90, 91, 120};
	for (size_t k = 0; k < sizeof from / sizeof from[0]; ++k) {
		int32_t s = from[k];
		CHECK_OK(portable ? f2d_snapshot_load(w, snaps[s], snap_len[s])
		                  : f2d_snapshot_restore(w, snaps[s], snap_len[s]));
		f2d_contact_events ce;
		f2d_world_get_contact_events(w, &ce);
		ck_assert_int_eq(ce.begin_count + ce.end_count + ce.hit_count, 0);
		for (int32_t i = s; i < STEPS; ++i) {
			scripted(w, i, shapes);
			CHECK_OK(f2d_world_step(w));
			event_log again;
			memset(&again, 0, sizeof again);
			log_add(&again, "");
			log_step(w, i, &again);
			ck_assert_msg(
			    strcmp(again.text, first[i].text) == 0,
			    "rollback to %d (%s, sleep %d): step %d events differ:\n%s---\n%s", s,
			    portable ? "portable" : "in-process", (int)sleep, i, first[i].text,
			    again.text);
			ck_assert_uint_eq(f2d_world_hash(w), hashes[i]);
			free(again.text);
		}
	}
	for (int32_t i = 0; i < STEPS; ++i) {
		free(snaps[i]);
		free(first[i].text);
	}
	f2d_destroy_world(w);
}

START_TEST(events_after_rollback)
{
	rollback_case(false, false);
	rollback_case(true, false);
	rollback_case(false, true);
	rollback_case(true, true);
}
END_TEST

/* ---- body options ---- */

START_TEST(gravity_scale_and_damping)
{
	f2d_world *w = new_world(false);
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.gravity_scale = 0;
	f2d_body_id floating;
	CHECK_OK(f2d_create_body(w, &bd, &floating));
	box(w, floating, F2D_MILLI(500), F2D_MILLI(500), NULL);
	bd.gravity_scale = -F2D_ONE;
	bd.position = V(F2D_FIX(5), 0);
	f2d_body_id rising;
	CHECK_OK(f2d_create_body(w, &bd, &rising));
	box(w, rising, F2D_MILLI(500), F2D_MILLI(500), NULL);
	bd.gravity_scale = 0;
	bd.position = V(F2D_FIX(10), 0);
	bd.linear_velocity = V(F2D_FIX(10), 0);
	bd.angular_velocity = F2D_FIX(4);
	bd.linear_damping = F2D_FIX(2);
	bd.angular_damping = F2D_FIX(1);
	f2d_body_id damped;
	CHECK_OK(f2d_create_body(w, &bd, &damped));
	box(w, damped, F2D_MILLI(500), F2D_MILLI(500), NULL);
	/* the exact integer form: f = round(2^16 / (1 + round(h c))) per step, v = round(v f); with
	 * the soft step (the default) h is the substep, round(1092 / n), and it is applied n times */
	const int32_t n = f2d_default_world_def().substep_count > 0
	                      ? f2d_default_world_def().substep_count
	                      : 1;
	fix16_t h = (1092 + n / 2) / n;
	int64_t hc = ((int64_t)h * F2D_FIX(2) + 0x8000) >> 16;
	int64_t f = (((int64_t)1 << 33) / (F2D_ONE + hc) + 1) >> 1;
	int64_t v = F2D_FIX(10);
	for (int i = 0; i < 60; ++i) {
		CHECK_OK(f2d_world_step(w));
		for (int32_t k = 0; k < n; ++k) {
			v = (v * f + 0x8000) >> 16;
		}
	}
	ck_assert_int_eq(f2d_body_get_position(w, floating).y, 0);
	ck_assert_int_gt(f2d_body_get_position(w, rising).y, F2D_FIX(4)); /* ~5 m in 1 s */
	ck_assert_int_eq(f2d_body_get_linear_velocity(w, damped).x, (fix16_t)v);
	/* 10 m/s damped at 2/s for 1 s: about 10 e^-2 = 1.35 m/s */
	ck_assert_int_gt(v, F2D_MILLI(1300));
	ck_assert_int_lt(v, F2D_MILLI(1420));
	ck_assert_int_lt(f2d_body_get_angular_velocity(w, damped), F2D_MILLI(1520));
	fix16_t gs, ld, ad;
	bool fr;
	f2d_body_get_options(w, damped, &gs, &ld, &ad, &fr);
	ck_assert(gs == 0 && ld == F2D_FIX(2) && ad == F2D_FIX(1) && !fr);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(fixed_rotation)
{
	f2d_world *w = new_world(false);
	ground(w);
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.fixed_rotation = true;
	bd.position = V(0, F2D_FIX(2));
	bd.angular_velocity = F2D_FIX(3); /* zeroed */
	f2d_body_id b;
	CHECK_OK(f2d_create_body(w, &bd, &b));
	f2d_polygon tri;
	f2d_vec2 pts[3] = {{-F2D_FIX(1), 0}, {F2D_FIX(1), 0}, {F2D_FIX(1), F2D_FIX(1)}};
	CHECK_OK(f2d_make_polygon(pts, 3, &tri));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_shape_id s;
	CHECK_OK(f2d_create_polygon_shape(w, b, &sd, &tri, &s));
	for (int i = 0; i < 120; ++i) {
		CHECK_OK(f2d_body_apply_torque(w, b, F2D_FIX(50)));
		CHECK_OK(f2d_world_step(w));
		ck_assert_int_eq(f2d_body_get_angular_velocity(w, b), 0);
		ck_assert_int_eq(f2d_body_get_rotation(w, b).s, 0);
	}
	CHECK_OK(f2d_body_set_fixed_rotation(w, b, false));
	for (int i = 0; i < 10; ++i) {
		CHECK_OK(f2d_body_apply_torque(w, b, F2D_FIX(50)));
		CHECK_OK(f2d_world_step(w));
	}
	ck_assert_int_ne(f2d_body_get_rotation(w, b).s, 0);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(set_body_type)
{
	f2d_world *w = new_world(true);
	ground(w);
	f2d_body_id b = body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(5));
	box(w, b, F2D_MILLI(500), F2D_MILLI(500), NULL);
	f2d_body_id top = body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(7));
	box(w, top, F2D_MILLI(500), F2D_MILLI(500), NULL);
	for (int i = 0; i < 5; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	CHECK_OK(f2d_body_set_type(w, b, F2D_STATIC_BODY));
	ck_assert_int_eq(f2d_body_get_type(w, b), F2D_STATIC_BODY);
	ck_assert_int_eq(f2d_body_get_mass(w, b), 0);
	f2d_vec2 held = f2d_body_get_position(w, b);
	for (int i = 0; i < 120; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	f2d_vec2 p = f2d_body_get_position(w, b);
	ck_assert(p.x == held.x && p.y == held.y);
	ck_assert_int_gt(f2d_body_get_position(w, top).y, held.y); /* resting on it */
	CHECK_OK(f2d_body_set_type(w, b, F2D_DYNAMIC_BODY));
	ck_assert_int_gt(f2d_body_get_mass(w, b), 0);
	for (int i = 0; i < 120; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	ck_assert_int_lt(f2d_body_get_position(w, b).y, F2D_FIX(1)); /* fell onto the ground */
	/* a joint must keep a dynamic body */
	f2d_body_id k = body(w, F2D_KINEMATIC_BODY, F2D_FIX(8), F2D_FIX(5));
	f2d_revolute_joint_def jd;
	CHECK_OK(f2d_init_revolute_joint_def(w, k, b, f2d_body_get_position(w, b), &jd));
	f2d_joint_id j;
	CHECK_OK(f2d_create_revolute_joint(w, &jd, &j));
	uint64_t h = f2d_world_hash(w);
	ck_assert_int_eq(f2d_body_set_type(w, b, F2D_STATIC_BODY), F2D_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(f2d_world_hash(w), h);
	f2d_destroy_world(w);
}
END_TEST

START_TEST(shape_material_setters)
{
	f2d_world *w = new_world(false);
	f2d_body_id b = body(w, F2D_DYNAMIC_BODY, 0, 0);
	f2d_shape_id s = box(w, b, F2D_MILLI(500), F2D_MILLI(500), NULL);
	ck_assert_int_eq(f2d_body_get_mass(w, b), F2D_ONE);
	CHECK_OK(f2d_shape_set_density(w, s, F2D_FIX(3)));
	ck_assert_int_eq(f2d_body_get_mass(w, b), F2D_FIX(3));
	CHECK_OK(f2d_shape_set_friction(w, s, F2D_MILLI(100)));
	CHECK_OK(f2d_shape_set_restitution(w, s, F2D_MILLI(700)));
	ck_assert_int_eq(f2d_shape_get_friction(w, s), F2D_MILLI(100));
	ck_assert_int_eq(f2d_shape_get_restitution(w, s), F2D_MILLI(700));
	ck_assert_int_eq(f2d_shape_get_density(w, s), F2D_FIX(3));
	f2d_destroy_world(w);
}
END_TEST

/* ---- state: hash, snapshots, clone ---- */

START_TEST(options_are_state)
{
	f2d_world *w = new_world(true);
	ground(w);
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.position = V(0, F2D_FIX(3));
	bd.gravity_scale = F2D_MILLI(500);
	bd.linear_damping = F2D_MILLI(300);
	bd.fixed_rotation = true;
	f2d_body_id b;
	CHECK_OK(f2d_create_body(w, &bd, &b));
	f2d_shape_def sd = f2d_default_shape_def();
	sd.filter.category_bits = 8;
	sd.filter.group_index = -2;
	sd.enable_hit_events = true;
	box(w, b, F2D_MILLI(500), F2D_MILLI(500), &sd);
	f2d_shape_def sens = f2d_default_shape_def();
	sens.is_sensor = true;
	box(w, body(w, F2D_STATIC_BODY, 0, F2D_FIX(1)), F2D_FIX(2), F2D_FIX(2), &sens);
	for (int i = 0; i < 20; ++i) {
		CHECK_OK(f2d_world_step(w));
	}
	uint64_t h = f2d_world_hash(w);
	/* clone, in-process and portable round trips keep every option (same hash, same future) */
	f2d_world *c = NULL;
	CHECK_OK(f2d_world_clone(w, &c));
	ck_assert_uint_eq(f2d_world_hash(c), h);
	size_t n = f2d_snapshot_portable_size(w), got;
	void *buf = malloc(n);
	CHECK_OK(f2d_snapshot_save_portable(w, buf, n, &got));
	f2d_world *l = NULL;
	CHECK_OK(f2d_snapshot_load_new(buf, got, NULL, &l));
	ck_assert_uint_eq(f2d_world_hash(l), h);
	for (int i = 0; i < 60; ++i) {
		CHECK_OK(f2d_world_step(w));
		CHECK_OK(f2d_world_step(c));
		CHECK_OK(f2d_world_step(l));
		ck_assert_uint_eq(f2d_world_hash(c), f2d_world_hash(w));
		ck_assert_uint_eq(f2d_world_hash(l), f2d_world_hash(w));
	}
	fix16_t gs;
	bool fr;
	f2d_body_get_options(l, b, &gs, NULL, NULL, &fr);
	ck_assert(gs == F2D_MILLI(500) && fr);
	/* each option moves the hash */
	uint64_t h0 = f2d_world_hash(w);
	CHECK_OK(f2d_body_set_gravity_scale(w, b, F2D_ONE));
	ck_assert_uint_ne(f2d_world_hash(w), h0);
	free(buf);
	f2d_destroy_world(c);
	f2d_destroy_world(l);
	f2d_destroy_world(w);
}
END_TEST

/* ---- bad input: an error with a message, the world and its hash unchanged ---- */

#define REFUSED(w, call, code)                                                                     \
	do {                                                                                       \
		uint64_t h_ = f2d_world_hash(w);                                                   \
		f2d_result r_ = (call);                                                            \
		ck_assert_msg(r_ == (code), "%s returned %d", #call, (int)r_);                     \
		ck_assert_uint_eq(f2d_world_hash(w), h_);                                          \
		ck_assert(f2d_world_last_error(w)[0] != '\0');                                     \
	} while (0)

START_TEST(bad_input)
{
	f2d_world *w = new_world(true);
	f2d_body_id st = body(w, F2D_STATIC_BODY, 0, 0);
	f2d_shape_id s = box(w, st, F2D_FIX(1), F2D_FIX(1), NULL);
	f2d_body_id d = body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(5));
	f2d_shape_id ds = box(w, d, F2D_FIX(1), F2D_FIX(1), NULL);
	f2d_body_id stale = body(w, F2D_DYNAMIC_BODY, 0, F2D_FIX(9));
	f2d_shape_id stale_shape = box(w, stale, F2D_FIX(1), F2D_FIX(1), NULL);
	CHECK_OK(f2d_destroy_body(w, stale));
	REFUSED(w, f2d_shape_set_filter(w, stale_shape, f2d_default_filter()),
	        F2D_ERROR_INVALID_HANDLE);
	REFUSED(w, f2d_shape_set_friction(w, s, -1), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_shape_set_friction(w, s, F2D_FIX(5)), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_shape_set_restitution(w, s, F2D_FIX(2)), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_shape_set_density(w, s, 0), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_shape_set_density(w, ds, F2D_FIX(30000)), F2D_ERROR_MASS_RANGE);
	REFUSED(w, f2d_shape_set_density(w, stale_shape, F2D_ONE), F2D_ERROR_INVALID_HANDLE);
	REFUSED(w, f2d_body_set_gravity_scale(w, d, F2D_FIX(17)), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_body_set_damping(w, d, -1, 0), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_body_set_damping(w, d, 0, F2D_FIX(1001)), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_body_set_fixed_rotation(w, st, true), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_body_set_type(w, d, (f2d_body_type)7), F2D_ERROR_INVALID_VALUE);
	REFUSED(w, f2d_body_set_type(w, stale, F2D_STATIC_BODY), F2D_ERROR_INVALID_HANDLE);
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	bd.gravity_scale = F2D_FIX(-17);
	f2d_body_id out;
	REFUSED(w, f2d_create_body(w, &bd, &out), F2D_ERROR_INVALID_VALUE);
	bd.gravity_scale = F2D_ONE;
	bd.angular_damping = -F2D_ONE;
	REFUSED(w, f2d_create_body(w, &bd, &out), F2D_ERROR_INVALID_VALUE);
	f2d_world_def wd = f2d_default_world_def();
	wd.hit_event_threshold = -1;
	f2d_world *nw = NULL;
	ck_assert_int_eq(f2d_create_world(&wd, &nw), F2D_ERROR_INVALID_VALUE);
	ck_assert_ptr_null(nw);
	ck_assert_int_eq(f2d_shape_set_filter(NULL, s, f2d_default_filter()),
	                 F2D_ERROR_NULL_ARGUMENT);
	f2d_contact_events ce;
	f2d_world_get_contact_events(NULL, &ce);
	ck_assert_int_eq(ce.begin_count + ce.end_count + ce.hit_count, 0);
	f2d_world_get_contact_events(w, NULL); /* no crash */
	f2d_destroy_world(w);
}
END_TEST

/* ---- queries respect filters and skip sensors ---- */

START_TEST(queries_and_filters)
{
	f2d_world *w = new_world(false);
	f2d_shape_def sd = f2d_default_shape_def();
	sd.filter.category_bits = 2;
	f2d_shape_id two = box(w, body(w, F2D_STATIC_BODY, 0, 0), F2D_FIX(1), F2D_FIX(1), &sd);
	f2d_shape_def sens = f2d_default_shape_def();
	sens.is_sensor = true;
	box(w, body(w, F2D_STATIC_BODY, F2D_FIX(5), 0), F2D_FIX(1), F2D_FIX(1), &sens);
	/* a ray along y = 0 from x = -10 meets the category-2 box at x = -1, then the sensor */
	f2d_query_filter qf = f2d_default_query_filter();
	f2d_ray_result rr;
	CHECK_OK(f2d_world_cast_ray_closest(w, V(-F2D_FIX(10), 0), V(F2D_FIX(20), 0), qf, &rr));
	ck_assert(rr.hit && same_shape(rr.shape, two));
	qf.mask_bits = 1; /* only category 1: the box is not seen, and the sensor never is */
	CHECK_OK(f2d_world_cast_ray_closest(w, V(-F2D_FIX(10), 0), V(F2D_FIX(20), 0), qf, &rr));
	ck_assert(!rr.hit);
	/* the shape's own mask counts too */
	f2d_filter f = f2d_default_filter();
	f.category_bits = 2;
	f.mask_bits = 4;
	CHECK_OK(f2d_shape_set_filter(w, two, f));
	qf = f2d_default_query_filter(); /* category 1: not in the shape's mask */
	CHECK_OK(f2d_world_cast_ray_closest(w, V(-F2D_FIX(10), 0), V(F2D_FIX(20), 0), qf, &rr));
	ck_assert(!rr.hit);
	qf.category_bits = 4;
	CHECK_OK(f2d_world_cast_ray_closest(w, V(-F2D_FIX(10), 0), V(F2D_FIX(20), 0), qf, &rr));
	ck_assert(rr.hit);
	f2d_destroy_world(w);
}
END_TEST

/* Contact begin and end events against the contacts themselves (events.c, contact_diff and
 * f2d_events_begin_step, whose equal runs of keys go by 4 in the SIMD kernels): in scenes with
 * hundreds of contacts that come and go and no shape destroyed, a step's begin events are
 * exactly the contacts it has that the step before did not (in (shape a, shape b) order) and
 * its end events the ones that went, each once, with the shapes' generations. */
#define NEW_GENERATION 1u /* a shape's generation until it is destroyed */

static int compare_pairs(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;
	return *a < *b ? -1 : (*a > *b ? 1 : 0);
}

static int32_t contact_pairs(const f2d_world *w, int64_t **out, int32_t *cap)
{
	int32_t n = f2d_world_get_contacts(w, NULL, 0);
	f2d_contact_data *c = malloc(sizeof *c * (size_t)(n > 0 ? n : 1));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(f2d_world_get_contacts(w, c, n), n);
	if (n > *cap) {
		*cap = n;
		*out = realloc(*out, sizeof **out * (size_t)n);
		ck_assert_ptr_nonnull(*out);
	}
	for (int32_t i = 0; i < n; ++i) {
		(*out)[i] = (int64_t)c[i].shape_a.index1 << 32 | c[i].shape_b.index1;
		/* no shape is destroyed: every generation is a new shape's */
		ck_assert_uint_eq(c[i].shape_a.generation, NEW_GENERATION);
		ck_assert_uint_eq(c[i].shape_b.generation, NEW_GENERATION);
	}
	free(c);
	if (n > 1) {
		qsort(*out, (size_t)n, sizeof **out, compare_pairs);
	}
	return n;
}

/* the pairs of a (n_a, sorted) missing from b (n_b, sorted), in order, against the events */
static void check_diff(const int64_t *a, int32_t n_a, const int64_t *b, int32_t n_b,
                       const f2d_contact_begin_touch_event *ev, int32_t n_ev, int64_t *seen)
{
	int32_t k = 0, j = 0;
	for (int32_t i = 0; i < n_a; ++i) {
		while (j < n_b && b[j] < a[i]) {
			++j;
		}
		if (j < n_b && b[j] == a[i]) {
			continue;
		}
		ck_assert_int_lt(k, n_ev);
		ck_assert_int_eq((int64_t)ev[k].shape_a.index1 << 32 | ev[k].shape_b.index1, a[i]);
		ck_assert_uint_eq(ev[k].shape_a.generation, NEW_GENERATION);
		ck_assert_uint_eq(ev[k].shape_b.generation, NEW_GENERATION);
		++k;
	}
	ck_assert_int_eq(k, n_ev);
	*seen += k;
}

START_TEST(contact_events_are_the_contact_diff)
{
	static const char *const scenes[] = {"rain1000", "pyramid20", "circles", "dominos"};
	int64_t tb = 0, te = 0;
	for (int s = 0; s < 4; ++s) {
		f2d_world_def def = f2d_default_world_def();
		f2d_world *w = NULL;
		CHECK_OK(f2d_scene_create(scenes[s], &def, &w));
		int64_t *old = NULL, *now = NULL;
		int32_t cap_old = 0, cap_now = 0;
		int32_t n_old = contact_pairs(w, &old, &cap_old);
		int64_t begins = 0, ends = 0;
		for (int32_t step = 0; step < 300; ++step) {
			f2d_world_step(w);
			int32_t n_now = contact_pairs(w, &now, &cap_now);
			f2d_contact_events ce;
			f2d_world_get_contact_events(w, &ce);
			check_diff(now, n_now, old, n_old, ce.begin_events, ce.begin_count, &begins);
			check_diff(old, n_old, now, n_now,
			           (const f2d_contact_begin_touch_event *)(const void *)ce.end_events,
			           ce.end_count, &ends);
			int64_t *t = old;
			old = now;
			now = t;
			int32_t tc = cap_old;
			cap_old = cap_now;
			cap_now = tc;
			n_old = n_now;
		}
		printf("%s: %lld begin and %lld end events over 300 steps, %d contacts at the end\n",
		       scenes[s], (long long)begins, (long long)ends, (int)n_old);
		fflush(stdout);
		tb += begins;
		te += ends;
		free(old);
		free(now);
		f2d_destroy_world(w);
	}
	ck_assert_int_gt(tb, 1000); /* contacts came and went */
	ck_assert_int_gt(te, 100);
}
END_TEST

Suite *game_suite(void)
{
	Suite *s = suite_create("game");
	TCase *tc = tcase_create("game");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, filter_truth_table);
	tcase_add_test(tc, filter_change_ends_contact);
	tcase_add_test(tc, land_rest_sleep_lift);
	tcase_add_test(tc, destroyed_shape_ends_contact);
	tcase_add_test(tc, hit_events);
	tcase_add_test(tc, joint_ends_contact);
	tcase_add_test(tc, sensor_pass_through);
	tcase_add_test(tc, sensor_sleeping_visitor);
	tcase_add_test(tc, events_after_rollback);
	tcase_add_test(tc, gravity_scale_and_damping);
	tcase_add_test(tc, fixed_rotation);
	tcase_add_test(tc, set_body_type);
	tcase_add_test(tc, shape_material_setters);
	tcase_add_test(tc, options_are_state);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, queries_and_filters);
	tcase_add_test(tc, contact_events_are_the_contact_diff);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(game_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
