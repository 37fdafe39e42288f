/* fix2d-netdemo unit tests: the packet parser refuses and counts every kind of bad datagram
 * without changing the session; forged, altered and replayed packets are refused; join codes
 * and the key and tag match an independent BLAKE2b (Python's hashlib); mispredictions and
 * desyncs are found at the right frame;
 * the game turns inputs into the same commands every time; exact percent parsing.
 * SPDX-License-Identifier: MIT
 */
#include "auth.h"
#include "fix2d/input.h"
#include "fix2d/scenes.h"
#include "fix2d/snapshot.h"
#include "game.h"
#include "link.h"
#include "packet.h"
#include "session.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN 0xC0FFEE11u

static nd_session me, them; /* me = peer 0, them = peer 1, of 2 */
static nd_key key;

/* "fix2d netdemo!!" (15 bytes) in base32, as Python's base64.b32encode writes it */
static const char code_text[] = "MZUX-QMTE-EBXG-K5DE-MVWW-6IJB";

static void setup(void)
{
	uint8_t code[ND_CODE_BYTES];
	ck_assert(nd_auth_init());
	ck_assert(nd_code_parse(code_text, code));
	nd_key_derive(code, &key);
	ck_assert(nd_session_init(&me, 2, 0, TOKEN, 600, 2, &key));
	ck_assert(nd_session_init(&them, 2, 1, TOKEN, 600, 2, &key));
}

/* A new tag for the body buf[0, body): returns the datagram's length. */
static size_t reseal(uint8_t *buf, size_t body)
{
	nd_mac(&key, buf, body, buf + body);
	return body + ND_MAC_BYTES;
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
	nd_packet p, q;
	ck_assert_int_eq(nd_packet_open(&key, buf, n, &p), -1);
	ck_assert_int_eq(nd_packet_parse(buf, n - ND_MAC_BYTES, &q), -1);
	ck_assert(memcmp(&p, &q, sizeof p) == 0);
	ck_assert_uint_eq(p.input_start, 2);
	ck_assert_uint_eq(p.input_count, 30);
	ck_assert_uint_eq(nd_packet_encode(&p, again, sizeof again), n - ND_MAC_BYTES);
	ck_assert_uint_eq(nd_packet_seal(&key, &p, again, sizeof again), n);
	ck_assert(memcmp(buf, again, n) == 0);
	ck_assert(nd_session_receive(&me, 1, buf, n, 100));
	ck_assert_uint_eq(me.input_count[1], 32);
	ck_assert_uint_eq(me.inputs[1][31], 29 % 16);
	/* the same packet again (a duplicate, or a replay) is refused and seen as one */
	refused(buf, n, 1, ND_DROP_REPLAY);
	ck_assert_uint_eq(me.input_count[1], 32);
	ck_assert_uint_eq(me.remote[1].duplicates, 1);
}
END_TEST

START_TEST(bad_format)
{
	uint8_t buf[ND_MAX_PACKET + 8];
	nd_session_add_local_input(&them, 3);
	size_t n = from_them(buf);
	size_t body = n - ND_MAC_BYTES;
	refused(buf, 0, 1, ND_DROP_SHORT);
	refused(buf, 4, 1, ND_DROP_SHORT);
	refused(buf, ND_HEADER_BYTES + ND_MAC_BYTES - 1, 1, ND_DROP_SHORT);
	{ /* a HELLO of version 1 (28 bytes, no tag) says it is of another version */
		uint8_t old[ND_HELLO_BYTES];
		nd_packet h;
		memset(&h, 0, sizeof h);
		h.type = ND_PKT_HELLO;
		ck_assert_uint_eq(nd_packet_encode(&h, old, sizeof old), ND_HELLO_BYTES);
		old[4] = 1;
		refused(old, sizeof old, 1, ND_DROP_VERSION);
	}
	refused(buf, ND_MAX_PACKET + 1, 1, ND_DROP_LENGTH);
	/* the header is checked before the tag, the rest after it (with a right tag each time) */
	buf[0] ^= 0xFF;
	refused(buf, reseal(buf, body), 1, ND_DROP_MAGIC);
	buf[0] ^= 0xFF;
	buf[4] = 1; /* the unauthenticated protocol of before */
	refused(buf, reseal(buf, body), 1, ND_DROP_VERSION);
	buf[4] = ND_VERSION;
	refused(buf, reseal(buf, body - 1), 1, ND_DROP_LENGTH);
	buf[body] = 0;
	refused(buf, reseal(buf, body + 1), 1, ND_DROP_LENGTH);
	buf[5] = 77;
	refused(buf, reseal(buf, body), 1, ND_DROP_TYPE);
	buf[5] = ND_PKT_GAME;
	buf[7] = 0x80; /* unknown flag */
	refused(buf, reseal(buf, body), 1, ND_DROP_FIELD);
	buf[7] = 0;
	buf[ND_GAME_FIXED_BYTES] = 0x10; /* input bits beyond the 4 buttons */
	refused(buf, reseal(buf, body), 1, ND_DROP_FIELD);
	buf[ND_GAME_FIXED_BYTES] = 3;
	buf[48] = 200; /* input count above the limit */
	refused(buf, reseal(buf, body), 1, ND_DROP_FIELD);
	buf[48] = 1;
	buf[7] = ND_FLAG_DESYNC; /* desync flag without a frame */
	refused(buf, reseal(buf, body), 1, ND_DROP_FIELD);
	buf[7] = 0;
	ck_assert(nd_session_receive(&me, 1, buf, reseal(buf, body), 100)); /* repaired */
}
END_TEST

START_TEST(bad_sender_and_token)
{
	uint8_t buf[ND_MAX_PACKET];
	nd_session_add_local_input(&them, 3);
	size_t n = from_them(buf);
	refused(buf, n, -1, ND_DROP_UNKNOWN_SENDER); /* an address that is no peer */
	refused(buf, n, 0, ND_DROP_UNKNOWN_SENDER);  /* claims to come from ourselves */
	size_t body = n - ND_MAC_BYTES;
	buf[6] = 0; /* sender field disagrees with the address */
	refused(buf, reseal(buf, body), 1, ND_DROP_UNKNOWN_SENDER);
	buf[6] = 1;
	buf[8] ^= 1;
	refused(buf, reseal(buf, body), 1, ND_DROP_TOKEN);
	buf[8] ^= 1;
	ck_assert(nd_session_receive(&me, 1, buf, reseal(buf, body), 100));
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
	ck_assert_int_eq(nd_packet_open(&key, buf, n, &p), -1);
	nd_packet q = p;
	q.input_start = 5; /* a gap: frames 2..4 missing */
	refused(buf, nd_packet_seal(&key, &q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.input_start = 595; /* past the last frame */
	refused(buf, nd_packet_seal(&key, &q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.input_ack = 50; /* acknowledges inputs we never sent */
	refused(buf, nd_packet_seal(&key, &q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.hash_start = 0; /* confirms frames 0..2 without our input of frame 2 */
	q.hash_count = 3;
	refused(buf, nd_packet_seal(&key, &q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.frame = 601;
	refused(buf, nd_packet_seal(&key, &q, buf, sizeof buf), 1, ND_DROP_FRAME);
	q = p;
	q.flags = ND_FLAG_DESYNC;
	q.desync_frame = 600;
	refused(buf, nd_packet_seal(&key, &q, buf, sizeof buf), 1, ND_DROP_FRAME);
	/* accepted, then contradicted */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 100));
	q = p;
	q.seq++; /* a new packet, not a replay */
	q.inputs[4] ^= 2;
	refused(buf, nd_packet_seal(&key, &q, buf, sizeof buf), 1, ND_DROP_CONFLICT);
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
		nd_session_confirm(&them, f, 1000 + f + (f == 17), 7 + (f == 13));
	}
	them.input_count[0] = 40; /* they hold our inputs */
	/* we confirm 0..9 first, then hear them, then confirm the rest */
	for (uint32_t f = 0; f < 10; ++f) {
		nd_session_confirm(&me, f, 1000 + f, 7);
	}
	ck_assert(nd_session_receive(&me, 1, buf, from_them(buf), 100));
	ck_assert_uint_eq(me.desync_frame, ND_NO_FRAME);
	for (uint32_t f = 10; f < 30; ++f) {
		nd_session_confirm(&me, f, 1000 + f, 7);
	}
	/* frame 13: the same world hash, another game-state digest: a desync all the same */
	ck_assert_uint_eq(me.desync_frame, 13);
	ck_assert_int_eq(me.desync_peer, 1);
	ck_assert(me.desync_game);
	ck_assert_uint_eq(me.desync_local, 7);
	ck_assert_uint_eq(me.desync_remote, 8);
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

/* Any change to an authentic packet, or a packet made with another code, is refused. */
START_TEST(forged)
{
	uint8_t buf[ND_MAX_PACKET], good[ND_MAX_PACKET];
	for (int f = 0; f < 20; ++f) {
		nd_session_add_local_input(&them, (uint8_t)(f % 16));
	}
	size_t n = from_them(good);
	/* every single-bit change past the magic and version bytes: body and tag alike */
	for (size_t bit = 8 * 5; bit < 8 * n; ++bit) {
		memcpy(buf, good, n);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		refused(buf, n, 1, ND_DROP_AUTH);
	}
	/* cut short or lengthened: the tag no longer covers what precedes it */
	refused(good, n - 1, 1, ND_DROP_AUTH);
	memcpy(buf, good, n);
	buf[n] = 0;
	refused(buf, n + 1, 1, ND_DROP_AUTH);
	/* the same packet under another join code */
	uint8_t other_code[ND_CODE_BYTES];
	nd_key other;
	ck_assert(nd_code_parse("MZUX-QMTE-EBXG-K5DE-MVWW-6IJC", other_code)); /* one bit off */
	nd_key_derive(other_code, &other);
	ck_assert(memcmp(other.k, key.k, ND_KEY_BYTES) != 0);
	nd_packet p;
	ck_assert_int_eq(nd_packet_open(&key, good, n, &p), -1);
	refused(buf, nd_packet_seal(&other, &p, buf, sizeof buf), 1, ND_DROP_AUTH);
	/* the session of another code refuses ours */
	nd_session stranger;
	ck_assert(nd_session_init(&stranger, 2, 0, TOKEN, 600, 2, &other));
	ck_assert(!nd_session_receive(&stranger, 1, good, n, 100));
	ck_assert_uint_eq(stranger.drops[ND_DROP_AUTH], 1);
	nd_session_free(&stranger);
	ck_assert(nd_session_receive(&me, 1, good, n, 100)); /* the original is fine */
	ck_assert_uint_eq(me.drops[ND_DROP_AUTH], 8 * n - 40 + 3);
}
END_TEST

/* The replay window: ND_SEQ_WINDOW sequence numbers back from the newest, each once. */
START_TEST(replays)
{
	uint8_t buf[ND_MAX_PACKET];
	nd_session_add_local_input(&them, 5);
	nd_packet p;
	size_t n = from_them(buf);
	ck_assert_int_eq(nd_packet_open(&key, buf, n, &p), -1);
	ck_assert_uint_eq(p.seq, 0);
	ck_assert(nd_session_receive(&me, 1, buf, n, 100));
	refused(buf, n, 1, ND_DROP_REPLAY);
	p.seq = 2000;
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 101));
	ck_assert_uint_eq(me.remote[1].highest_seq, 2001);
	p.seq = 2000 - ND_SEQ_WINDOW; /* one older than the window */
	refused(buf, nd_packet_seal(&key, &p, buf, sizeof buf), 1, ND_DROP_REPLAY);
	ck_assert_uint_eq(me.remote[1].duplicates, 1); /* too old: not known to be a duplicate */
	p.seq = 2001 - ND_SEQ_WINDOW; /* the oldest in the window: late but new */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 102));
	ck_assert_uint_eq(me.remote[1].out_of_order, 1);
	refused(buf, nd_packet_seal(&key, &p, buf, sizeof buf), 1, ND_DROP_REPLAY);
	ck_assert_uint_eq(me.remote[1].duplicates, 2);
	/* the window moves to [1977, 3000] */
	p.seq = 3000;
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 103));
	p.seq = 2000; /* more than a window back now */
	refused(buf, nd_packet_seal(&key, &p, buf, sizeof buf), 1, ND_DROP_REPLAY);
	p.seq = 2999; /* never sent before, inside the window */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 104));
	/* a step smaller than the window keeps what stays in it and clears what it passes */
	p.seq = 3998; /* window [2975, 3998] */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 105));
	p.seq = 2999;
	refused(buf, nd_packet_seal(&key, &p, buf, sizeof buf), 1, ND_DROP_REPLAY);
	p.seq = 3000;
	refused(buf, nd_packet_seal(&key, &p, buf, sizeof buf), 1, ND_DROP_REPLAY);
	p.seq = 2998; /* never sent */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 106));
	p.seq = 3000 + ND_SEQ_WINDOW - 1; /* window [3000, 4023]: 4023 has 2999's bit */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 107));
	p.seq = 2999; /* now older than the window */
	refused(buf, nd_packet_seal(&key, &p, buf, sizeof buf), 1, ND_DROP_REPLAY);
	p.seq = 3000; /* the oldest in the window, seen */
	refused(buf, nd_packet_seal(&key, &p, buf, sizeof buf), 1, ND_DROP_REPLAY);
	p.seq = 3999; /* passed over by the step from 3998 to 4023: never sent */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 108));
	p.seq = 3001;
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 109));
	p.seq = UINT32_MAX; /* the top of the sequence space: no wrap-around afterwards */
	ck_assert(nd_session_receive(&me, 1, buf, nd_packet_seal(&key, &p, buf, sizeof buf), 110));
	ck_assert_uint_eq(me.remote[1].highest_seq, (uint64_t)UINT32_MAX + 1);
	p.seq = 0;
	refused(buf, nd_packet_seal(&key, &p, buf, sizeof buf), 1, ND_DROP_REPLAY);
}
END_TEST

/* Join codes and the key agree with an independent implementation: Python's base64 and
 * hashlib.blake2b (crypto_kdf_derive_from_key is BLAKE2b with the subkey id as salt and the
 * context as personalisation):
 *   master = blake2b(code, digest_size=32)
 *   key = blake2b(b"", digest_size=32, key=master, salt=(1).to_bytes(8, "little") + bytes(8),
 *                 person=b"F2DNpkt2" + bytes(8))
 *   tag = blake2b(b"F2DN", digest_size=16, key=key) */
START_TEST(codes_and_keys)
{
	uint8_t code[ND_CODE_BYTES], again[ND_CODE_BYTES];
	char text[ND_CODE_TEXT];
	ck_assert(nd_code_parse(code_text, code));
	ck_assert(memcmp(code, "fix2d netdemo!!", ND_CODE_BYTES) == 0);
	nd_code_format(code, text);
	ck_assert_str_eq(text, code_text);
	ck_assert(nd_code_parse("mzuxqmteebxgk5demvww6ijb", again)); /* either case, no dashes */
	ck_assert(memcmp(code, again, sizeof code) == 0);
	ck_assert(nd_code_parse("MZUX QMTE EBXG K5DE MVWW 6IJB", again));
	ck_assert(memcmp(code, again, sizeof code) == 0);
	const char *bad[] = {"", "MZUX-QMTE-EBXG-K5DE-MVWW-6IJ", "MZUX-QMTE-EBXG-K5DE-MVWW-6IJBA",
	                     "MZUX-QMTE-EBXG-K5DE-MVWW-6IJ1", "MZUX-QMTE-EBXG-K5DE-MVWW-6IJ=",
	                     "MZUX_QMTE-EBXG-K5DE-MVWW-6IJB"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
		memset(again, 0xAB, sizeof again);
		ck_assert_msg(!nd_code_parse(bad[i], again), "accepted '%s'", bad[i]);
		ck_assert_uint_eq(again[0], 0xAB); /* untouched */
	}
	static const uint8_t want_key[ND_KEY_BYTES] = {
	    0xdd, 0x2c, 0xb3, 0x87, 0x4d, 0x54, 0x05, 0x01, 0xa1, 0x77, 0xef,
	    0xdb, 0x4f, 0x82, 0xec, 0xe0, 0x3f, 0xe2, 0x9e, 0xce, 0xf1, 0xf8,
	    0x9b, 0xfc, 0xab, 0xfc, 0x57, 0x0e, 0xec, 0x4b, 0x5f, 0xec};
	ck_assert(memcmp(key.k, want_key, ND_KEY_BYTES) == 0);
	static const uint8_t want_tag[ND_MAC_BYTES] = {0xf2, 0xdf, 0xb0, 0x0b, 0xcc, 0xc0,
	                                               0xc3, 0xfe, 0x5c, 0x56, 0x21, 0xcb,
	                                               0x7a, 0x34, 0x9a, 0x28};
	uint8_t tag[ND_MAC_BYTES];
	nd_mac(&key, (const uint8_t *)"F2DN", 4, tag);
	ck_assert(memcmp(tag, want_tag, ND_MAC_BYTES) == 0);
	/* random codes differ and survive formatting */
	uint8_t r1[ND_CODE_BYTES], r2[ND_CODE_BYTES];
	nd_code_random(r1);
	nd_code_random(r2);
	ck_assert(memcmp(r1, r2, sizeof r1) != 0);
	nd_code_format(r1, text);
	ck_assert(nd_code_parse(text, again) && memcmp(again, r1, sizeof r1) == 0);
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

/* The game offline (no network): frame 0's setup makes the coins and teams, scripted inputs
 * score (sensor events), and a rollback (restore the world and the game state kept with it,
 * re-simulate) gives the same score, digest and world hash at every frame as the first run. */
static void game_frame(f2d_world *w, nd_game *g, const f2d_body_id *pl, uint32_t f,
                       nd_script *sc)
{
	uint8_t in[ND_PLAYERS];
	for (int p = 0; p < ND_PLAYERS; ++p) {
		in[p] = nd_script_next(&sc[p]);
	}
	f2d_command c[ND_MAX_GAME_COMMANDS];
	f2d_command_result r[ND_MAX_GAME_COMMANDS];
	int32_t n = f == 0 ? nd_game_setup(w, pl, c) : 0;
	if (f == 0) {
		ck_assert_int_eq(n, ND_SETUP_COMMANDS);
	}
	n += nd_game_commands(w, pl, in, ND_PLAYERS, c + n);
	ck_assert_int_le(n, ND_MAX_GAME_COMMANDS);
	ck_assert_int_eq(f2d_world_apply_commands(w, c, n, r), F2D_OK);
	for (int32_t i = 0; i < n; ++i) {
		ck_assert_int_eq(r[i].result, F2D_OK);
	}
	nd_game_created(g, c, r, n);
	f2d_world_step(w);
	nd_game_update(g, w, pl);
}

START_TEST(game_score_and_rollback)
{
	enum { FRAMES = 900, SAVE = 300 };
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_scene_create(ND_SCENE, NULL, &w), F2D_OK);
	f2d_body_id pl[ND_PLAYERS];
	ck_assert(nd_game_players(w, pl));
	nd_game g, saved_g;
	nd_game_init(&g);
	nd_script sc[ND_PLAYERS], saved_sc[ND_PLAYERS];
	for (int p = 0; p < ND_PLAYERS; ++p) {
		nd_script_init(&sc[p], 11, p);
	}
	static uint64_t world_h[FRAMES], game_h[FRAMES];
	size_t cap = 8 * f2d_snapshot_size(w) + 65536, len = 0;
	uint8_t *snap = malloc(cap);
	ck_assert_ptr_nonnull(snap);
	for (uint32_t f = 0; f < FRAMES; ++f) {
		if (f == SAVE) {
			ck_assert_int_eq(f2d_snapshot_save(w, snap, cap, &len), F2D_OK);
			saved_g = g;
			memcpy(saved_sc, sc, sizeof sc);
		}
		game_frame(w, &g, pl, f, sc);
		world_h[f] = f2d_world_hash(w);
		game_h[f] = nd_game_digest(&g);
		if (f == 0) { /* the setup: four coins, the teams' filters */
			for (int c = 0; c < ND_COINS; ++c) {
				ck_assert(f2d_body_is_valid(w, g.coins[c]));
			}
		}
	}
	ck_assert_int_gt(g.score[0] + g.score[1], 0);
	ck_assert_uint_eq((uint32_t)(g.score[0] + g.score[1]), g.taken);
	nd_game end = g;
	/* roll back to SAVE and re-simulate */
	ck_assert_int_eq(f2d_snapshot_restore(w, snap, len), F2D_OK);
	g = saved_g;
	memcpy(sc, saved_sc, sizeof sc);
	for (uint32_t f = SAVE; f < FRAMES; ++f) {
		game_frame(w, &g, pl, f, sc);
		ck_assert_uint_eq(f2d_world_hash(w), world_h[f]);
		ck_assert_uint_eq(nd_game_digest(&g), game_h[f]);
	}
	ck_assert_int_eq(memcmp(&g, &end, sizeof g), 0);
	/* the teams: two players of a team never touch, of two teams they may */
	f2d_contact_data cd[512];
	int32_t nc = f2d_world_get_contacts(w, cd, 512);
	for (int32_t i = 0; i < nc && i < 512; ++i) {
		f2d_body_id a = f2d_shape_get_body(w, cd[i].shape_a);
		f2d_body_id b = f2d_shape_get_body(w, cd[i].shape_b);
		for (int p = 0; p < 2; ++p) {
			ck_assert(!(a.index1 == pl[p].index1 && b.index1 == pl[p + 2].index1));
			ck_assert(!(b.index1 == pl[p].index1 && a.index1 == pl[p + 2].index1));
		}
	}
	free(snap);
	f2d_destroy_world(w);
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
	tcase_add_test(tc, forged);
	tcase_add_test(tc, replays);
	tcase_add_test(tc, codes_and_keys);
	suite_add_tcase(s, tc);
	TCase *tg = tcase_create("game");
	tcase_add_test(tg, game_commands);
	tcase_add_test(tg, game_score_and_rollback);
	tcase_add_test(tg, percent);
	suite_add_tcase(s, tg);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
