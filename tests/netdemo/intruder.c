/* An uninvited local socket for tests/netdemo/run.sh (mode intruder): it sends a --listen host
 * what a stranger on the machine could, from one UDP socket on 127.0.0.1, and says what it sent.
 *   intruder PORT hello          a HELLO of the unauthenticated protocol of before (version 1,
 *                                no tag) and a HELLO sealed under another join code; then
 *                                listens 300 ms: "sent version 1, auth 1; answered N"
 *   intruder PORT replay CODE    a HELLO sealed with the game's code, as a replay of the real
 *                                guest's would be, and never plays: "welcomed N"
 *   intruder PORT game N         during the game: N datagrams of garbage (40..200 bytes, not
 *                                the magic), N too short (magic and our version, then 0..34
 *                                random bytes: 5..39 in all) and N
 *                                well-formed GAME packets claiming to be the guest, sealed
 *                                under another code: "sent magic N, short N, auth N"
 * The contents come from a fixed splitmix64 stream: every run sends the same bytes.
 * SPDX-License-Identifier: MIT
 */
#define _POSIX_C_SOURCE 200809L
#include "auth.h"
#include "link.h"
#include "packet.h"
#include "../test_rng.h"

#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint64_t rng = 0x1D7B0DE5u;

static uint64_t next(void)
{
	return test_splitmix(&rng);
}

static int fd;
static struct sockaddr_in host;

static void send_bytes(const uint8_t *b, size_t n)
{
	if (sendto(fd, b, n, 0, (const struct sockaddr *)&host, sizeof host) != (ssize_t)n) {
		perror("intruder: sendto");
		exit(1);
	}
}

/* Datagrams that come back within ms milliseconds; WELCOMEs that open with key (if any). */
static int answers(int ms, const nd_key *key, int *welcomes)
{
	int n = 0;
	uint64_t end = nd_now_us() + (uint64_t)ms * 1000u;
	*welcomes = 0;
	for (uint64_t now = nd_now_us(); now < end; now = nd_now_us()) {
		struct pollfd p = {fd, POLLIN, 0};
		poll(&p, 1, (int)((end - now) / 1000u) + 1);
		uint8_t b[ND_MAX_PACKET + 64];
		ssize_t r = recv(fd, b, sizeof b, 0);
		if (r < 0) {
			continue;
		}
		n++;
		nd_packet pk;
		if (key != NULL && nd_packet_open(key, b, (size_t)r, &pk) < 0 &&
		    pk.type == ND_PKT_WELCOME) {
			(*welcomes)++;
		}
	}
	return n;
}

static void stranger_key(nd_key *k)
{
	uint8_t code[ND_CODE_BYTES];
	for (int i = 0; i < ND_CODE_BYTES; ++i) {
		code[i] = (uint8_t)next();
	}
	nd_key_derive(code, k);
}

int main(int argc, char **argv)
{
	if (argc < 3 || !nd_auth_init()) {
		fprintf(stderr, "usage: intruder PORT hello | replay CODE | game N\n");
		return 2;
	}
	fd = nd_udp_socket(0, NULL);
	if (fd < 0) {
		perror("intruder: socket");
		return 1;
	}
	memset(&host, 0, sizeof host);
	host.sin_family = AF_INET;
	host.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	host.sin_port = htons((uint16_t)atoi(argv[1]));
	uint8_t b[ND_MAX_PACKET];
	nd_packet p;
	memset(&p, 0, sizeof p);
	nd_key other;
	stranger_key(&other);
	if (strcmp(argv[2], "hello") == 0) {
		p.type = ND_PKT_HELLO;
		p.sender = 1;
		p.nonce = 0xBADC0DE;
		size_t n = nd_packet_encode(&p, b, sizeof b);
		b[4] = 1; /* version 1: the protocol before tags, which any stranger could speak */
		send_bytes(b, n);
		send_bytes(b, nd_packet_seal(&other, &p, b, sizeof b));
		int w;
		printf("sent version 1, auth 1; answered %d\n", answers(300, NULL, &w));
	} else if (strcmp(argv[2], "replay") == 0 && argc == 4) {
		uint8_t code[ND_CODE_BYTES];
		nd_key key;
		if (!nd_code_parse(argv[3], code)) {
			return 2;
		}
		nd_key_derive(code, &key);
		p.type = ND_PKT_HELLO;
		p.sender = 1;
		p.nonce = 0xBADC0DF;
		send_bytes(b, nd_packet_seal(&key, &p, b, sizeof b));
		int w;
		answers(300, &key, &w);
		printf("welcomed %d\n", w);
	} else if (strcmp(argv[2], "game") == 0 && argc == 4) {
		int count = atoi(argv[3]);
		for (int i = 0; i < count; ++i) {
			size_t n = 40 + next() % 161;
			for (size_t k = 0; k < n; ++k) {
				b[k] = (uint8_t)next();
			}
			b[0] = (uint8_t)(b[0] == 'F' ? 'G' : b[0]); /* never the magic "F2DN" */
			send_bytes(b, n);
			n = 5 + next() % 35; /* our magic and version, then too few bytes */
			memcpy(b, "F2DN", 4);
			b[4] = ND_VERSION;
			for (size_t k = 5; k < n; ++k) {
				b[k] = (uint8_t)next();
			}
			send_bytes(b, n);
			memset(&p, 0, sizeof p);
			p.type = ND_PKT_GAME;
			p.sender = 1;
			p.token = (uint32_t)next();
			p.seq = (uint32_t)i;
			p.frame = (uint32_t)(next() % 100);
			p.input_ack = 2;
			p.desync_frame = ND_NO_FRAME;
			p.input_start = 2;
			p.input_count = 8;
			for (int k = 0; k < 8; ++k) {
				p.inputs[k] = (uint8_t)(next() & ND_INPUT_MASK);
			}
			send_bytes(b, nd_packet_seal(&other, &p, b, sizeof b));
		}
		printf("sent magic %d, short %d, auth %d\n", count, count, count);
	} else {
		fprintf(stderr, "usage: intruder PORT hello | replay CODE | game N\n");
		return 2;
	}
	close(fd);
	return 0;
}
