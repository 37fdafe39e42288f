/* fix2d-netdemo: UDP and the impairment layer (see link.h). SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include "link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

uint64_t nd_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int nd_udp_socket(uint16_t port, uint16_t *bound_port)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		return -1;
	}
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(port);
	int buf = 1 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		close(fd);
		return -1;
	}
	socklen_t n = sizeof a;
	if (getsockname(fd, (struct sockaddr *)&a, &n) != 0) {
		close(fd);
		return -1;
	}
	if (bound_port != NULL) {
		*bound_port = ntohs(a.sin_port);
	}
	return fd;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* true with probability ppm / 10^6 */
static bool chance(uint64_t *s, uint32_t ppm)
{
	return ppm > 0 && rng_next(s) % 1000000u < ppm;
}

/* uniform in [0, n] */
static uint64_t uniform(uint64_t *s, uint64_t n)
{
	return rng_next(s) % (n + 1);
}

bool nd_link_init(nd_link *l, int fd, const nd_impairment *imp, uint64_t stream)
{
	memset(l, 0, sizeof *l);
	l->fd = fd;
	l->imp = *imp;
	l->rng = imp->seed * 0x100000001B3ull ^ (stream + 1) * 0xD6E8FEB86659FD93ull;
	l->queue = malloc(sizeof(nd_queued) * ND_QUEUE_CAP);
	return l->queue != NULL;
}

void nd_link_free(nd_link *l)
{
	free(l->queue);
	l->queue = NULL;
}

static bool before(const nd_queued *a, const nd_queued *b)
{
	return a->due_us < b->due_us || (a->due_us == b->due_us && a->order < b->order);
}

static void swap(nd_queued *a, nd_queued *b)
{
	nd_queued t;
	memcpy(&t, a, sizeof t);
	memcpy(a, b, sizeof t);
	memcpy(b, &t, sizeof t);
}

static void push(nd_link *l, const struct sockaddr_in *to, const uint8_t *data, size_t len,
                 uint64_t due)
{
	if (l->queued == ND_QUEUE_CAP) {
		l->queue_full++;
		return;
	}
	int i = l->queued++;
	nd_queued *q = &l->queue[i];
	q->due_us = due;
	q->order = l->order++;
	q->to = *to;
	q->len = (uint16_t)len;
	memcpy(q->data, data, len);
	while (i > 0 && before(&l->queue[i], &l->queue[(i - 1) / 2])) {
		swap(&l->queue[i], &l->queue[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static void pop(nd_link *l)
{
	l->queued--;
	if (l->queued == 0) {
		return;
	}
	memcpy(&l->queue[0], &l->queue[l->queued], sizeof(nd_queued));
	int i = 0;
	for (;;) {
		int a = 2 * i + 1, b = a + 1, m = i;
		if (a < l->queued && before(&l->queue[a], &l->queue[m])) {
			m = a;
		}
		if (b < l->queued && before(&l->queue[b], &l->queue[m])) {
			m = b;
		}
		if (m == i) {
			return;
		}
		swap(&l->queue[i], &l->queue[m]);
		i = m;
	}
}

static uint64_t delay_us(nd_link *l)
{
	uint64_t lat = l->imp.latency_us, jit = l->imp.jitter_us;
	uint64_t d = lat + uniform(&l->rng, 2 * jit);
	d = d > jit ? d - jit : 0; /* latency + [-jitter, +jitter], never negative */
	if (chance(&l->rng, l->imp.reorder_ppm)) {
		l->impair_reordered++;
		d += 20000 + uniform(&l->rng, 40000);
	}
	return d;
}

void nd_link_send(nd_link *l, const struct sockaddr_in *to, const uint8_t *data, size_t len,
                  uint64_t now_us)
{
	if (len == 0 || len > ND_MAX_PACKET) {
		return;
	}
	if (chance(&l->rng, l->imp.loss_ppm)) {
		l->impair_dropped++;
		return;
	}
	int copies = 1;
	if (chance(&l->rng, l->imp.dup_ppm)) {
		l->impair_duplicated++;
		copies = 2;
	}
	for (int c = 0; c < copies; ++c) {
		push(l, to, data, len, now_us + delay_us(l));
	}
	nd_link_flush(l, now_us);
}

void nd_link_flush(nd_link *l, uint64_t now_us)
{
	while (l->queued > 0 && l->queue[0].due_us <= now_us) {
		nd_queued *q = &l->queue[0];
		ssize_t n = sendto(l->fd, q->data, q->len, 0, (const struct sockaddr *)&q->to,
		                   sizeof q->to);
		if (n == (ssize_t)q->len) {
			l->sent++;
		} else {
			l->send_errors++;
		}
		pop(l);
	}
}

uint64_t nd_link_next_due(const nd_link *l, uint64_t now_us)
{
	if (l->queued == 0) {
		return UINT64_MAX;
	}
	return l->queue[0].due_us > now_us ? l->queue[0].due_us - now_us : 0;
}

long nd_link_recv(nd_link *l, uint8_t *buf, size_t cap, struct sockaddr_in *from)
{
	for (;;) {
		socklen_t n = sizeof *from;
		ssize_t r = recvfrom(l->fd, buf, cap, 0, (struct sockaddr *)from, &n);
		if (r >= 0) {
			l->received++;
			if (n != sizeof *from || from->sin_family != AF_INET) {
				memset(from, 0, sizeof *from);
			}
			return (long)r;
		}
		if (errno == EINTR) {
			continue;
		}
		return -1; /* EAGAIN, or an ICMP error reported on the socket: nothing to read */
	}
}

bool nd_parse_percent(const char *t, uint32_t *ppm)
{
	uint64_t ip = 0, frac = 0, scale = 1;
	if (*t < '0' || *t > '9') {
		return false;
	}
	while (*t >= '0' && *t <= '9') {
		ip = ip * 10 + (uint64_t)(*t++ - '0');
		if (ip > 100) {
			return false;
		}
	}
	if (*t == '.') {
		++t;
		if (*t < '0' || *t > '9') {
			return false;
		}
		while (*t >= '0' && *t <= '9') {
			if (scale < 10000) { /* 10^-4 percent = 1 ppm */
				frac = frac * 10 + (uint64_t)(*t - '0');
				scale *= 10;
			}
			++t;
		}
	}
	if (*t != '\0') {
		return false;
	}
	uint64_t v = ip * 10000 + frac * 10000 / scale;
	if (v > 1000000) {
		return false;
	}
	*ppm = (uint32_t)v;
	return true;
}
