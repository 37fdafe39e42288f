/* fix2d-netdemo: UDP on 127.0.0.1 with a seeded impairment layer between the socket and the
 * netcode. Every datagram the netcode sends goes through the layer: dropped with probability
 * loss, sent twice with probability dup (each copy delayed on its own), delayed by latency +
 * a uniform jitter in [-jitter, +jitter], and with probability reorder held back a further
 * 20..60 ms so that later datagrams overtake it. The decisions come from a splitmix64 stream
 * seeded by --seed and the peer index: the same run of sends meets the same fate.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_NETDEMO_LINK_H
#define FIX2D_NETDEMO_LINK_H

#include "packet.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct nd_impairment {
	uint32_t loss_ppm, dup_ppm, reorder_ppm; /* probabilities, parts per million */
	uint32_t latency_us, jitter_us;
	uint64_t seed;
} nd_impairment;

typedef struct nd_queued {
	uint64_t due_us;
	uint64_t order; /* ties: first queued, first sent */
	struct sockaddr_in to;
	uint16_t len;
	uint8_t data[ND_MAX_PACKET];
} nd_queued;

#define ND_QUEUE_CAP 4096

typedef struct nd_link {
	int fd;
	nd_impairment imp;
	uint64_t rng;
	nd_queued *queue; /* a binary heap on (due_us, order) */
	int queued;
	uint64_t order;
	/* counters */
	uint64_t sent, send_errors, impair_dropped, impair_duplicated, impair_reordered, queue_full,
	    received;
} nd_link;

/** A UDP socket bound to 127.0.0.1:port (0: any free port), non-blocking, close-on-exec. */
int nd_udp_socket(uint16_t port, uint16_t *bound_port);
bool nd_link_init(nd_link *l, int fd, const nd_impairment *imp, uint64_t stream);
void nd_link_free(nd_link *l);
/** Queues one datagram through the impairment layer. */
void nd_link_send(nd_link *l, const struct sockaddr_in *to, const uint8_t *data, size_t len,
                  uint64_t now_us);
/** Sends the queued datagrams that are due. */
void nd_link_flush(nd_link *l, uint64_t now_us);
/** Microseconds until the next queued datagram is due (UINT64_MAX: none). */
uint64_t nd_link_next_due(const nd_link *l, uint64_t now_us);
/** One received datagram (non-blocking): its length, or -1 when there is none. */
long nd_link_recv(nd_link *l, uint8_t *buf, size_t cap, struct sockaddr_in *from);

/** "20", "2.5", "0.125" percent -> parts per million, exactly (no floating point). */
bool nd_parse_percent(const char *text, uint32_t *ppm);
uint64_t nd_now_us(void);

#endif
