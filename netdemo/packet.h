/* fix2d-netdemo: the wire format. Every packet is little-endian and parsed defensively: the
 * parser never reads past the bytes it is given and checks every count and length before it
 * copies anything. SPDX-License-Identifier: MIT
 *
 * Header (24 bytes), every type:
 *   u32 magic "F2DN", u8 version (2), u8 type, u8 sender (peer index), u8 flags (1 done,
 *   2 desync), u32 session token, u32 sequence (per destination), u32 send time (ms),
 *   u32 echo (the latest send time received from the destination, for the round trip)
 * GAME (type 1), 30 bytes more, then the data:
 *   u32 frame (the sender's current frame), i32 frame advantage (sender's frame minus the
 *   destination's last reported frame), u32 input ack (how many of the destination's inputs
 *   the sender holds, frames [0, ack)), u32 hash ack (the same for confirmed-frame hashes),
 *   u32 desync frame (0xFFFFFFFF: none), u32 input start, u8 input count, u8 hash count,
 *   u32 hash start, the inputs (one byte each: 4 button bits), the hashes (each frame's
 *   world hash and game-state digest, u64 each: 16 bytes a frame)
 * HELLO (type 2): u32 nonce.  WELCOME (type 3): u32 nonce, u32 frames, u32 input delay,
 *   u8 peer count, u8 your peer index.
 * Every datagram then ends with a 16-byte tag (ND_MAC_BYTES) over all the bytes before it:
 * see auth.h. nd_packet_parse and nd_packet_encode handle the bytes before the tag (the
 * body); nd_packet_open and nd_packet_seal (auth.c) the whole datagram.
 */
#ifndef FIX2D_NETDEMO_PACKET_H
#define FIX2D_NETDEMO_PACKET_H

#include <stddef.h>
#include <stdint.h>

#define ND_MAGIC 0x4E443246u /* "F2DN" little-endian */
#define ND_VERSION 3         /* 2: the MAC tag; 3: a game-state digest with each hash */
#define ND_MAX_PEERS 4
#define ND_MAX_PACKET 1200 /* a whole datagram, tag included */
#define ND_MAC_BYTES 16
#define ND_MAX_BODY (ND_MAX_PACKET - ND_MAC_BYTES)
#define ND_MAX_PACKET_INPUTS 128
#define ND_MAX_PACKET_HASHES 48
#define ND_NO_FRAME 0xFFFFFFFFu
#define ND_INPUT_MASK 0x0Fu

enum { ND_PKT_GAME = 1, ND_PKT_HELLO = 2, ND_PKT_WELCOME = 3 };
enum { ND_FLAG_DONE = 1, ND_FLAG_DESYNC = 2, ND_FLAG_MASK = 3 };

#define ND_HEADER_BYTES 24
#define ND_GAME_FIXED_BYTES (ND_HEADER_BYTES + 30)
#define ND_HELLO_BYTES (ND_HEADER_BYTES + 4)
#define ND_WELCOME_BYTES (ND_HEADER_BYTES + 14)

typedef struct nd_packet {
	uint8_t type, sender, flags;
	uint32_t token, seq, send_ms, echo_ms;
	/* GAME */
	uint32_t frame;
	int32_t advantage;
	uint32_t input_ack, hash_ack, desync_frame;
	uint32_t input_start, hash_start;
	uint8_t input_count, hash_count;
	uint8_t inputs[ND_MAX_PACKET_INPUTS];
	uint64_t hashes[ND_MAX_PACKET_HASHES];
	uint64_t games[ND_MAX_PACKET_HASHES]; /* the game-state digest of the same frame */
	/* HELLO / WELCOME */
	uint32_t nonce, frames, delay;
	uint8_t peers, your_index;
} nd_packet;

/* Why a datagram was refused. The first group is the parser's (format), the second the
 * session's (meaning). */
typedef enum nd_drop {
	ND_DROP_SHORT,          /* fewer bytes than a header and a tag (or than the 5 bytes of
	                           magic and version) */
	ND_DROP_MAGIC,          /* not a netdemo packet */
	ND_DROP_VERSION,        /* another protocol version */
	ND_DROP_AUTH,           /* the tag is wrong: not made with this game's join code */
	ND_DROP_TYPE,           /* unknown packet type */
	ND_DROP_LENGTH,         /* length does not match the counts it declares */
	ND_DROP_FIELD,          /* a count above its limit, unknown flags or input bits */
	ND_DROP_UNKNOWN_SENDER, /* source address or sender index is not a peer of the session */
	ND_DROP_TOKEN,          /* wrong session token */
	ND_DROP_REPLAY,         /* a sequence number already received, or older than the
	                           ND_SEQ_WINDOW packets before the newest one */
	ND_DROP_FRAME,          /* frame numbers that cannot be (gaps, past the end, acks of
	                           what was never sent) */
	ND_DROP_CONFLICT,       /* an input or hash that contradicts one received before */
	ND_DROP_UNEXPECTED,     /* a valid packet of a type the session does not expect now */
	ND_DROP_COUNT
} nd_drop;

const char *nd_drop_name(nd_drop reason);

/** Parses the body of one datagram (the bytes before its tag). Returns -1 and fills *out when
 *  the bytes are a well-formed packet, else the nd_drop reason. Reads only data[0, len). */
int nd_packet_parse(const uint8_t *data, size_t len, nd_packet *out);

/** Encodes the body of p into buf; returns the length (at most ND_MAX_BODY), 0 when p does
 *  not fit. */
size_t nd_packet_encode(const nd_packet *p, uint8_t *buf, size_t cap);

#endif
