/* fix2d-netdemo: the wire format (see packet.h). SPDX-License-Identifier: MIT */
#include "packet.h"

#include <string.h>

static const char *const drop_names[ND_DROP_COUNT] = {
    "short",          "magic", "version", "auth",  "type",     "length",    "field",
    "unknown-sender", "token", "replay",  "frame", "conflict", "unexpected"};

const char *nd_drop_name(nd_drop reason)
{
	return (unsigned)reason < ND_DROP_COUNT ? drop_names[reason] : "?";
}

typedef struct rd {
	const uint8_t *p;
	size_t len, pos;
} rd;

static uint32_t r8(rd *r)
{
	return r->pos < r->len ? r->p[r->pos++] : 0;
}

static uint32_t r32(rd *r)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; ++k) {
		v |= r8(r) << (8 * k);
	}
	return v;
}

static uint64_t r64(rd *r)
{
	uint64_t lo = r32(r);
	return lo | (uint64_t)r32(r) << 32;
}

/* A GAME packet's body (the header read) from a packet of len bytes: -1, or the drop reason. */
static int parse_game(rd *r, size_t len, nd_packet *p)
{
	if (len < ND_GAME_FIXED_BYTES) {
		return ND_DROP_LENGTH;
	}
	p->frame = r32(r);
	p->advantage = (int32_t)r32(r);
	p->input_ack = r32(r);
	p->hash_ack = r32(r);
	p->desync_frame = r32(r);
	p->input_start = r32(r);
	p->input_count = (uint8_t)r8(r);
	p->hash_count = (uint8_t)r8(r);
	p->hash_start = r32(r);
	if (p->input_count > ND_MAX_PACKET_INPUTS || p->hash_count > ND_MAX_PACKET_HASHES) {
		return ND_DROP_FIELD;
	}
	size_t want = ND_GAME_FIXED_BYTES + (size_t)p->input_count + 16 * (size_t)p->hash_count;
	if (len != want) {
		return ND_DROP_LENGTH;
	}
	for (uint32_t i = 0; i < p->input_count; ++i) {
		p->inputs[i] = (uint8_t)r8(r);
		if ((p->inputs[i] & ~ND_INPUT_MASK) != 0) {
			return ND_DROP_FIELD;
		}
	}
	for (uint32_t i = 0; i < p->hash_count; ++i) {
		p->hashes[i] = r64(r);
		p->games[i] = r64(r);
	}
	if (((p->flags & ND_FLAG_DESYNC) != 0) != (p->desync_frame != ND_NO_FRAME)) {
		return ND_DROP_FIELD;
	}
	return -1;
}

/* The body of a packet of type p->type (the header read): -1, or the drop reason. */
static int parse_body(rd *r, size_t len, nd_packet *p)
{
	switch (p->type) {
	case ND_PKT_GAME: return parse_game(r, len, p);
	case ND_PKT_HELLO:
		if (len != ND_HELLO_BYTES) {
			return ND_DROP_LENGTH;
		}
		p->nonce = r32(r);
		return -1;
	case ND_PKT_WELCOME:
		if (len != ND_WELCOME_BYTES) {
			return ND_DROP_LENGTH;
		}
		p->nonce = r32(r);
		p->frames = r32(r);
		p->delay = r32(r);
		p->peers = (uint8_t)r8(r);
		p->your_index = (uint8_t)r8(r);
		return -1;
	default: return ND_DROP_TYPE;
	}
}

int nd_packet_parse(const uint8_t *data, size_t len, nd_packet *out)
{
	/* magic and version first, as soon as there are bytes for them: a packet of another
	   version (a HELLO of version 1 is shorter than a header of ours) says so */
	if (data == NULL || len < 5) {
		return ND_DROP_SHORT;
	}
	rd r = {data, len, 0};
	if (r32(&r) != ND_MAGIC) {
		return ND_DROP_MAGIC;
	}
	if (r8(&r) != ND_VERSION) {
		return ND_DROP_VERSION;
	}
	if (len < ND_HEADER_BYTES) {
		return ND_DROP_SHORT;
	}
	if (len > ND_MAX_BODY) {
		return ND_DROP_LENGTH;
	}
	nd_packet p;
	memset(&p, 0, sizeof p);
	p.type = (uint8_t)r8(&r);
	p.sender = (uint8_t)r8(&r);
	p.flags = (uint8_t)r8(&r);
	p.token = r32(&r);
	p.seq = r32(&r);
	p.send_ms = r32(&r);
	p.echo_ms = r32(&r);
	if ((p.flags & ~ND_FLAG_MASK) != 0) {
		return ND_DROP_FIELD;
	}
	int why = parse_body(&r, len, &p);
	if (why >= 0) {
		return why;
	}
	if (r.pos != len) { /* cannot happen: every branch checked the length */
		return ND_DROP_LENGTH;
	}
	*out = p;
	return -1;
}

typedef struct wr {
	uint8_t *p;
	size_t cap, pos;
	int overflow;
} wr;

static void w8(wr *w, uint32_t v)
{
	if (w->pos < w->cap) {
		w->p[w->pos++] = (uint8_t)v;
	} else {
		w->overflow = 1;
	}
}

static void w32(wr *w, uint32_t v)
{
	for (int k = 0; k < 4; ++k) {
		w8(w, v >> (8 * k));
	}
}

static void w64(wr *w, uint64_t v)
{
	w32(w, (uint32_t)v);
	w32(w, (uint32_t)(v >> 32));
}

size_t nd_packet_encode(const nd_packet *p, uint8_t *buf, size_t cap)
{
	if (p->input_count > ND_MAX_PACKET_INPUTS || p->hash_count > ND_MAX_PACKET_HASHES) {
		return 0;
	}
	wr w = {buf, cap < ND_MAX_BODY ? cap : ND_MAX_BODY, 0, 0};
	w32(&w, ND_MAGIC);
	w8(&w, ND_VERSION);
	w8(&w, p->type);
	w8(&w, p->sender);
	w8(&w, p->flags);
	w32(&w, p->token);
	w32(&w, p->seq);
	w32(&w, p->send_ms);
	w32(&w, p->echo_ms);
	switch (p->type) {
	case ND_PKT_GAME:
		w32(&w, p->frame);
		w32(&w, (uint32_t)p->advantage);
		w32(&w, p->input_ack);
		w32(&w, p->hash_ack);
		w32(&w, p->desync_frame);
		w32(&w, p->input_start);
		w8(&w, p->input_count);
		w8(&w, p->hash_count);
		w32(&w, p->hash_start);
		for (uint32_t i = 0; i < p->input_count; ++i) {
			w8(&w, p->inputs[i]);
		}
		for (uint32_t i = 0; i < p->hash_count; ++i) {
			w64(&w, p->hashes[i]);
			w64(&w, p->games[i]);
		}
		break;
	case ND_PKT_HELLO: w32(&w, p->nonce); break;
	case ND_PKT_WELCOME:
		w32(&w, p->nonce);
		w32(&w, p->frames);
		w32(&w, p->delay);
		w8(&w, p->peers);
		w8(&w, p->your_index);
		break;
	default: return 0;
	}
	return w.overflow ? 0 : w.pos;
}
