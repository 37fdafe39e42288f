/* libFuzzer target: the netdemo's packet parser and the session behind it (netdemo/packet.c,
 * netdemo/auth.c, netdemo/session.c). An input is a run of datagrams, each as u8 source
 * (bits 0-6: the peer, 4 and up: an address that is no peer; bit 7: seal), u16 length, the
 * bytes; they are fed to a 4-peer session (we are peer 0) that is mid-game. Without the seal
 * bit the bytes are the datagram as it arrives (a fuzzer cannot forge a tag, so these mostly
 * test the refusal of unauthenticated bytes); with it they are a body to which the harness
 * appends the right tag, so that fuzzed bodies reach the decoder and the session as a peer
 * with the join code would send them. Oracles, besides the sanitizers: a body the parser
 * accepts re-encodes to the same bytes; opening a sealed body gives the parser's verdict;
 * the session's counts stay within their bounds whatever it is fed; every refused datagram
 * is counted; the packets the session then builds open.
 * Build and run: tests/netdemo/run_fuzz_packet.sh SECONDS.
 * SPDX-License-Identifier: MIT
 */
#include "auth.h"
#include "packet.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN 0x5EEDF00Du
#define FRAMES 1200u
#define PEERS 4
#define SEAL 0x80
/* the session's join code (any would do; fixed so that the corpus stays valid) */
static const char code_text[] = "FUZZ-PACK-ETSA-REAU-THEN-TIC2";
static nd_key key;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_packet: oracle failed: %s\n", what);
		abort();
	}
}

static void make_key(void)
{
	uint8_t code[ND_CODE_BYTES];
	check(nd_auth_init() && nd_code_parse(code_text, code), "libsodium and the code");
	nd_key_derive(code, &key);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	make_key();
	return 0;
}

/* A session at frame 400: our inputs up to 402, 300 confirmed hashes. */
static void start(nd_session *s)
{
	check(nd_session_init(s, PEERS, 0, TOKEN, FRAMES, 2, &key), "init");
	for (uint32_t f = 2; f < 402; ++f) {
		nd_session_add_local_input(s, (uint8_t)(f * 7 % 16));
	}
	for (uint32_t f = 0; f < 300; ++f) {
		nd_session_confirm(s, f, 0x9E3779B97F4A7C15ull * (f + 1), f / 50);
	}
	s->simulated = 400;
}

static uint64_t total_drops(const nd_session *s)
{
	uint64_t n = 0;
	for (int d = 0; d < ND_DROP_COUNT; ++d) {
		n += s->drops[d];
	}
	return n;
}

static void check_invariants(const nd_session *s)
{
	for (int p = 0; p < PEERS; ++p) {
		check(s->input_count[p] <= FRAMES && s->input_count[p] >= 2, "input count");
		check(s->hash_count[p] <= FRAMES, "hash count");
		check(s->remote[p].input_acked <= s->input_count[0], "input ack");
		check(s->remote[p].hash_acked <= s->hash_count[0], "hash ack");
		check(p == 0 || s->hash_count[p] <= s->input_count[0],
		      "confirmed without our input");
		for (uint32_t f = 0; f < s->input_count[p]; ++f) {
			check((s->inputs[p][f] & ~ND_INPUT_MASK) == 0, "input bits");
		}
	}
	check(s->first_wrong == ND_NO_FRAME || s->first_wrong < s->simulated, "first wrong");
	check(s->desync_frame == ND_NO_FRAME || s->desync_frame < FRAMES, "desync frame");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static nd_session s;
	static uint8_t again[ND_MAX_PACKET], sealed[ND_MAX_PACKET + 70000];
	static nd_packet pk, pk2;
	start(&s);
	size_t pos = 0;
	uint64_t now = 1000;
	while (pos + 3 <= size) {
		int from = data[pos] & ~SEAL;
		bool seal = (data[pos] & SEAL) != 0;
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		pos += 3;
		if (len > size - pos) {
			len = size - pos;
		}
		const uint8_t *d = data + pos;
		pos += len;
		if (seal) {
			/* the body with its right tag: the parser alone, then the opener */
			int verdict = nd_packet_parse(d, len, &pk);
			if (verdict < 0) { /* accepted bytes are canonical */
				size_t n = nd_packet_encode(&pk, again, sizeof again);
				check(n == len && memcmp(again, d, len) == 0, "re-encoding differs");
			}
			memcpy(sealed, d, len);
			nd_mac(&key, sealed, len, sealed + len);
			d = sealed;
			len += ND_MAC_BYTES;
			int opened = nd_packet_open(&key, d, len, &pk2);
			/* (under 5 bytes, the tag's bytes stand where the magic would be) */
			check(len - ND_MAC_BYTES < 5 ? opened >= 0 : opened == verdict,
			      "opening a sealed body differs from parsing it");
			check(opened >= 0 ||
			          (nd_packet_encode(&pk2, again, sizeof again) == len - ND_MAC_BYTES &&
			           memcmp(again, d, len - ND_MAC_BYTES) == 0),
			      "the opened packet differs from the body");
		} else if (nd_packet_open(&key, d, len, &pk) < 0) {
			size_t n = nd_packet_seal(&key, &pk, again, sizeof again);
			check(n == len && memcmp(again, d, len) == 0, "re-sealing differs");
		}
		uint64_t before = total_drops(&s);
		bool used = nd_session_receive(&s, from < PEERS ? from : -1, d, len, now++);
		check(used != (total_drops(&s) == before + 1),
		      "a refused datagram is counted once");
		check_invariants(&s);
	}
	for (int to = 1; to < PEERS; ++to) {
		size_t n = nd_session_build(&s, to, 400, ND_FLAG_DONE, 77, again, sizeof again);
		check(n > 0 && nd_packet_open(&key, again, n, &pk) < 0, "built packet does not open");
	}
	nd_session_free(&s);
	return 0;
}

#ifdef ND_FUZZ_GENERATE_CORPUS
/* Writes the seed corpus: realistic traffic from peers 1..3 (built by their own sessions, as
 * bodies to be sealed), with a few hostile datagrams mixed in. */
static void put(FILE *f, int from, const uint8_t *b, size_t n)
{
	uint8_t h[3] = {(uint8_t)from, (uint8_t)n, (uint8_t)(n >> 8)};
	fwrite(h, 1, 3, f);
	fwrite(b, 1, n, f);
}

/* a built datagram as a body to seal (its tag left off) */
static void put_body(FILE *f, int from, const uint8_t *b, size_t n)
{
	put(f, from | SEAL, b, n - ND_MAC_BYTES);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		return 2;
	}
	make_key();
	static nd_session other;
	uint8_t b[ND_MAX_PACKET];
	char path[4096];
	for (int file = 0; file < 6; ++file) {
		int from = 1 + file % 3;
		nd_session_init(&other, PEERS, from, TOKEN, FRAMES, 2, &key);
		/* the other peer holds our inputs up to 390 and has confirmed 250 frames */
		for (uint32_t f = 2; f < 390; ++f) {
			other.inputs[0][f] = (uint8_t)(f * 7 % 16);
			other.input_count[0] = f + 1;
		}
		for (int p = 1; p < PEERS; ++p) {
			other.input_count[p] = p == from ? other.input_count[p] : 390;
		}
		for (uint32_t f = 2; f < 20 + 60 * (uint32_t)file; ++f) {
			nd_session_add_local_input(&other,
			                           (uint8_t)((f / 9 + (uint32_t)file) % 16));
		}
		for (uint32_t f = 0; f < 250; ++f) {
			nd_session_confirm(
			    &other, f, 0x9E3779B97F4A7C15ull * (f + 1) + (file == 5 && f == 100),
			    f / 50 + (file == 4 && f == 120));
		}
		other.remote[0].frame = 398;
		snprintf(path, sizeof path, "%s/traffic%d", argv[1], file);
		FILE *f = fopen(path, "wb");
		if (f == NULL) {
			return 1;
		}
		for (int k = 0; k < 4; ++k) {
			size_t n = nd_session_build(&other, 0, 380 + (uint32_t)k,
			                            file == 4 && k == 3 ? ND_FLAG_DONE : 0,
			                            (uint32_t)(100 + k), b, sizeof b);
			put_body(f, from, b, n);
			if (k == 1) {
				/* as it arrives: authentic, then replayed, then from a stranger */
				put(f, from, b, n);
				put(f, from, b, n);
				put(f, 4, b, n);
				/* hostile: cut short, a bit flipped under the tag, a wrong token
				   (sealed: the session's check, not the tag's) */
				put(f, from, b, n / 2);
				b[30] ^= 1;
				put(f, from, b, n);
				b[30] ^= 1;
				b[8] ^= 1;
				put_body(f, from, b, n);
			}
			other.remote[0].input_acked += 10;
			other.remote[0].hash_acked += 40;
		}
		fclose(f);
		nd_session_free(&other);
	}
	nd_packet h;
	memset(&h, 0, sizeof h);
	h.type = ND_PKT_HELLO; /* from peer 1, with the token: authentic, but not for a session */
	h.sender = 1;
	h.token = TOKEN;
	h.nonce = 7;
	size_t n = nd_packet_seal(&key, &h, b, sizeof b);
	snprintf(path, sizeof path, "%s/hello", argv[1]);
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		return 1;
	}
	put(f, 1, b, n);
	put_body(f, 1, b, n);
	h.type = ND_PKT_WELCOME;
	h.token = TOKEN;
	h.frames = FRAMES;
	h.delay = 2;
	h.peers = 2;
	h.your_index = 1;
	n = nd_packet_seal(&key, &h, b, sizeof b);
	put(f, 1, b, n);
	put_body(f, 1, b, n);
	fclose(f);
	return 0;
}
#endif
