/* fix2d-netdemo unit tests: the packet parser refuses and counts every kind of bad datagram
 * without changing the session; mispredictions and desyncs are found at the right frame;
 * the game turns inputs into the same commands every time; exact percent parsing.
 * SPDX-License-Identifier: MIT
 */
#include "fix2d/input.h"
#include "fix2d/scenes.h"
#include "game.h"
#include "link.h"
#include "packet.h"
#include "session.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN 0xC0FFEE11u

static nd_session me, them; /* me = peer 0, them = peer 1, of 2 */

static void setup(void)
{
	ck_assert(nd_session_init(&me, 2, 0, TOKEN, 600, 2));
	ck_assert(nd_session_init(&them, 2, 1, TOKEN, 600, 2));
}

static void teardown(void)
{
	nd_session_free(&me);
	nd_session_free(&them);
}

/* A GAME packet from them to me. */
static size_t from_them(uint8_t *buf)
{
	return nd_session_build(&them, 0, 10, 0, 5, buf, ND_MAX_PACKET);
}

/* Everything a refused packet must leave alone. */
typedef struct state {
	uint32_t in[2], hashes[2], first_wrong, desync;
	nd_remote r;
} state;

static state grab(void)
{
	state s;
	memset(&s, 0, sizeof s);
	s.in[0] = me.input_count[0];
	s.in[1] = me.input_count[1];
	s.hashes[0] = me.hash_count[0];
	s.hashes[1] = me.hash_count[1];
	s.first_wrong = me.first_wrong;
	s.desync = me.desync_frame;
	s.r = me.remote[1];
	return s;
}

static void refused(const uint8_t *buf, size_t len, int from, nd_drop why)
{
	state before = grab();
	uint64_t n = me.drops[why];
	ck_assert(!nd_session_receive(&me, from, buf, len, 100));
	ck_assert_msg(me.drops[why] == n + 1, "not counted as %s", nd_drop_name(why));
	state after = grab();
	ck_assert(before.in[0] == after.in[0] && before.in[1] == after.in[1]);
	ck_assert(before.hashes[0] == after.hashes[0] && before.hashes[1] == after.hashes[1]);
	ck_assert(before.first_wrong == after.first_wrong && before.desync == after.desync);
	ck_assert(before.r.input_acked == after.r.input_acked &&
	          before.r.hash_acked == after.r.hash_acked && before.r.frame == after.r.frame &&
	          before.r.advantage == after.r.advantage && before.r.heard == after.r.heard &&
	          before.r.done == after.r.done && before.r.desync == after.r.desync &&
	          before.r.highest_seq == after.r.highest_seq &&
	          before.r.received == after.r.received &&
	          before.r.last_heard_ms == after.r.last_heard_ms);
}

START_TEST(round_trip)
{
	uint8_t buf[ND_MAX_PACKET], again[ND_MAX_PACKET];
	for (int f = 0; f < 30; ++f) {
		nd_session_add_local_input(&them, (uint8_t)(f % 16));
	}
	size_t n = from_them(buf);
	nd_packet p;
	ck_assert_int_eq(nd_packet_parse(buf, n, &p), -1);
	ck_assert_uint_eq(p.input_start, 2);
	ck_assert_uint_eq(p.input_count, 30);
	ck_assert_uint_eq(nd_packet_encode(&p, again, sizeof again), n);
	ck_assert(memcmp(buf, again, n) == 0);
	ck_assert(nd_session_receive(&me, 1, buf, n, 100));
	ck_assert_uint_eq(me.input_count[1], 32);
	ck_assert_uint_eq(me.inputs[1][31], 29 % 16);
	/* the same packet again (a duplicate) is harmless and seen as one */
	ck_assert(nd_session_receive(&me, 1, buf, n, 101));
	ck_assert_uint_eq(me.input_count[1], 32);
	ck_assert_uint_eq(me.remote[1].duplicates, 1);
}
END_TEST

START_TEST(bad_format)
{
	uint8_t buf[ND_MAX_PACKET + 8];
	nd_session_add_local_input(&them, 3);
	size_t n = from_them(buf);
	refused(buf, 0, 1, ND_DROP_SHORT);
	refused(buf, ND_HEADER_BYTES - 1, 1, ND_DROP_SHORT);
	refused(buf, n - 1, 1, ND_DROP_LENGTH);
	buf[n] = 0;
	refused(buf, n + 1, 1, ND_DROP_LENGTH);
	buf[0] ^= 0xFF;
	refused(buf, n, 1, ND_DROP_MAGIC);
	buf[0] ^= 0xFF;
	buf[4] = 9;
	refused(buf, n, 1, ND_DROP_VERSION);
	buf[4] = ND_VERSION;
	buf[5] = 77;
	refused(buf, n, 1, ND_DROP_TYPE);
	buf[5] = ND_PKT_GAME;
	buf[7] = 0x80; /* unknown flag */
	refused(buf, n, 1, ND_DROP_FIELD);
	buf[7] = 0;
	buf[ND_GAME_FIXED_BYTES] = 0x10; /* input bits beyond the 4 buttons */
	refused(buf, n, 1, ND_DROP_FIELD);
	buf[ND_GAME_FIXED_BYTES] = 3;
	buf[48] = 200; /* input count above the limit */
	refused(buf, n, 1, ND_DROP_FIELD);
	buf[48] = 1;
	buf[7] = ND_FLAG_DESYNC; /* desync flag without a frame */
	refused(buf, n, 1, ND_DROP_FIELD);
	buf[7] = 0;
	ck_assert(nd_session_receive(&me, 1, buf, n, 100)); /* repaired: accepted */
}
END_TEST

START_TEST(bad_sender_and_token)
{
	uint8_t buf[ND_MAX_PACKET];
	nd_session_add_local_input(&them, 3);
	size_t n = from_them(buf);
	refused(buf, n, -1, ND_DROP_UNKNOWN_SENDER); /* an address that is no peer */
	refused(buf, n, 0, ND_DROP_UNKNOWN_SENDER);  /* claims to come from ourselves */
	buf[6] = 0;                                  /* sender field disagrees with the address */
	refused(buf, n, 1, ND_DROP_UNKNOWN_SENDER);
	buf[6] = 1;
	buf[8] ^= 1;
	refused(buf, n, 1, ND_DROP_TOKEN);
	buf[8] ^= 1;
	ck_assert(nd_session_receive(&me, 1, buf, n, 100));
}
END_TEST

START_TEST(bad_frames)
{
	uint8_t buf[ND_MAX_PACKET];
	nd_packet p;
	for (int f = 0; f < 10; ++f) {
		nd_session_add_local_input(&them, 1);
	}
	size_t n = from_them(buf);
	ck_assert_int_eq(nd_packet_parse(buf, n, &p), -1);
	nd_packet q = p;
	q.input_start = 5; /* a gap: frames 2..4 missing */
	refused(buf, nd_packet_encode(&q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.input_start = 595; /* past the last frame */
	refused(buf, nd_packet_encode(&q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.input_ack = 50; /* acknowledges inputs we never sent */
	refused(buf, nd_packet_encode(&q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.hash_start = 0; /* confirms frames 0..2 without our input of frame 2 */
	q.hash_count = 3;
	refused(buf, nd_packet_encode(&q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.frame = 601;
	refused(buf, nd_packet_encode(&q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.flags = ND_FLAG_DESYNC;
	q.desync_frame = 600;
	refused(buf, nd_packet_encode(&q, buf, sizeof buf), 1, ND_DROP_FRAME);
	/* accepted, then contradicted */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_encode(&p, buf, sizeof buf), 100));
	q = p;
	q.inputs[4] ^= 2;
	refused(buf, nd_packet_encode(&q, buf, sizeof buf), 1, ND_DROP_CONFLICT);
	ck_assert_uint_eq(me.input_count[1], 12);
}
END_TEST

START_TEST(misprediction_found_at_its_frame)
{
	uint8_t buf[ND_MAX_PACKET];
	/* we simulated frames 0..19 predicting them (no input known: 0 repeated) */
	for (uint32_t f = 0; f < 20; ++f) {
		ck_assert_uint_eq(nd_session_input(&me, 1, f), 0);
		me.used[1][f] = 0;
	}
	me.simulated = 20;
	for (int f = 2; f < 12; ++f) {
		nd_session_add_local_input(&them, f < 7 ? 0 : ND_JUMP);
	}
	ck_assert(nd_session_receive(&me, 1, buf, from_them(buf), 100));
	ck_assert_uint_eq(me.first_wrong, 7);
	/* prediction now repeats the last known input */
	ck_assert_uint_eq(nd_session_input(&me, 1, 15), ND_JUMP);
	ck_assert_uint_eq(nd_session_known(&me), 2); /* our own inputs stop at the delay */
}
END_TEST

START_TEST(desync_found_at_its_frame)
{
	uint8_t buf[ND_MAX_PACKET];
	for (int f = 0; f < 40; ++f) {
		nd_session_add_local_input(&me, 0);
		nd_session_add_local_input(&them, 0);
	}
	/* them: hashes of frames 0..29, frame 17 different */
	for (uint32_t f = 0; f < 30; ++f) {
		nd_session_confirm(&them, f, 1000 + f + (f == 17));
	}
	them.input_count[0] = 40; /* they hold our inputs */
	/* we confirm 0..9 first, then hear them, then confirm the rest */
	for (uint32_t f = 0; f < 10; ++f) {
		nd_session_confirm(&me, f, 1000 + f);
	}
	ck_assert(nd_session_receive(&me, 1, buf, from_them(buf), 100));
	ck_assert_uint_eq(me.desync_frame, ND_NO_FRAME);
	for (uint32_t f = 10; f < 30; ++f) {
		nd_session_confirm(&me, f, 1000 + f);
	}
	ck_assert_uint_eq(me.desync_frame, 17);
	ck_assert_int_eq(me.desync_peer, 1);
	ck_assert_uint_eq(me.desync_local, 1017);
	ck_assert_uint_eq(me.desync_remote, 1018);
}
END_TEST

START_TEST(reordering_counted)
{
	uint8_t a[ND_MAX_PACKET], b[ND_MAX_PACKET];
	nd_session_add_local_input(&them, 1);
	size_t na = from_them(a);
	nd_session_add_local_input(&them, 2);
	size_t nb = from_them(b);
	ck_assert(nd_session_receive(&me, 1, b, nb, 100)); /* the newer first */
	ck_assert(nd_session_receive(&me, 1, a, na, 101));
	ck_assert_uint_eq(me.remote[1].out_of_order, 1);
	ck_assert_uint_eq(me.input_count[1], 4);
	ck_assert_uint_eq(me.remote[1].frame, 10);
}
END_TEST

START_TEST(game_commands)
{
	f2d_world *a = NULL, *b = NULL;
	ck_assert_int_eq(f2d_scene_create(ND_SCENE, NULL, &a), F2D_OK);
	ck_assert_int_eq(f2d_scene_create(ND_SCENE, NULL, &b), F2D_OK);
	f2d_body_id pa[ND_PLAYERS], pb[ND_PLAYERS];
	ck_assert(nd_game_players(a, pa));
	ck_assert(nd_game_players(b, pb));
	for (int p = 0; p < ND_PLAYERS; ++p) {
		ck_assert_int_eq(pa[p].index1, 4 + p); /* bodies 3..6, as documented */
	}
	for (int i = 0; i < 60; ++i) { /* let the players land */
		f2d_world_step(a);
		f2d_world_step(b);
	}
	const uint8_t in[4] = {ND_LEFT, ND_RIGHT | ND_JUMP, ND_PUSH, 0};
	f2d_command ca[ND_MAX_GAME_COMMANDS], cb[ND_MAX_GAME_COMMANDS];
	int32_t na = nd_game_commands(a, pa, in, 4, ca);
	int32_t nb = nd_game_commands(b, pb, in, 4, cb);
	ck_assert_int_eq(na, nb);
	ck_assert_int_ge(na, 3);
	for (int32_t i = 0; i < na; ++i) {
		uint8_t ea[F2D_COMMAND_MAX_BYTES], eb[F2D_COMMAND_MAX_BYTES];
		size_t la = 0, lb = 0;
		ck_assert_int_eq(f2d_command_encode(&ca[i], ea, sizeof ea, &la), F2D_OK);
		ck_assert_int_eq(f2d_command_encode(&cb[i], eb, sizeof eb, &lb), F2D_OK);
		ck_assert(la == lb && memcmp(ea, eb, la) == 0);
		ck_assert_int_eq(ca[i].type, F2D_CMD_APPLY_IMPULSE);
	}
	ck_assert_int_eq(ca[0].player, 0);
	ck_assert_int_lt(ca[0].u.push.vector.x, 0); /* left */
	ck_assert_int_eq(ca[1].player, 1);
	ck_assert_int_gt(ca[1].u.push.vector.x, 0); /* right */
	ck_assert_int_eq(ca[2].player, 1);
	ck_assert_int_gt(ca[2].u.push.vector.y, 0); /* jump */
	f2d_command_result res[ND_MAX_GAME_COMMANDS];
	ck_assert_int_eq(f2d_world_apply_commands(a, ca, na, res), F2D_OK);
	for (int32_t i = 0; i < na; ++i) {
		ck_assert_int_eq(res[i].result, F2D_OK);
	}
	f2d_destroy_world(a);
	f2d_destroy_world(b);
}
END_TEST

START_TEST(percent)
{
	uint32_t v = 0;
	ck_assert(nd_parse_percent("20", &v) && v == 200000);
	ck_assert(nd_parse_percent("2.5", &v) && v == 25000);
	ck_assert(nd_parse_percent("0.0001", &v) && v == 1);
	ck_assert(nd_parse_percent("100", &v) && v == 1000000);
	ck_assert(!nd_parse_percent("101", &v));
	ck_assert(!nd_parse_percent("-1", &v));
	ck_assert(!nd_parse_percent("5%", &v));
	ck_assert(!nd_parse_percent("", &v));
	ck_assert(!nd_parse_percent("1.", &v));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("netdemo");
	TCase *tc = tcase_create("session");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, bad_format);
	tcase_add_test(tc, bad_sender_and_token);
	tcase_add_test(tc, bad_frames);
	tcase_add_test(tc, misprediction_found_at_its_frame);
	tcase_add_test(tc, desync_found_at_its_frame);
	tcase_add_test(tc, reordering_counted);
	suite_add_tcase(s, tc);
	TCase *tg = tcase_create("game");
	tcase_add_test(tg, game_commands);
	tcase_add_test(tg, percent);
	suite_add_tcase(s, tg);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
