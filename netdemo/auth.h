/* fix2d-netdemo: who may join, and the packet MAC. All cryptography is libsodium's.
 * SPDX-License-Identifier: MIT
 *
 * The join code is 15 random bytes (120 bits, randombytes_buf) written as 24 base32 letters
 * (RFC 4648: A-Z, 2-7) in six groups of four: ABCD-EFGH-IJKL-MNOP-QRST-UVWX. The host prints
 * it (or takes one with --join-code); every peer derives the same packet key from it:
 *   master = BLAKE2b-256(code bytes)                      crypto_generichash, unkeyed
 *   key    = crypto_kdf_derive_from_key(id 1, "F2DNpkt2", master)   (BLAKE2b, 32 bytes)
 * A slow password hash (crypto_pwhash) is not needed: the code is random, not chosen by a
 * person, and 2^120 guesses are out of reach however fast each one is.
 *
 * Every datagram ends with a 16-byte tag: BLAKE2b-128 keyed with the packet key
 * (crypto_generichash with a key, outlen crypto_generichash_BYTES_MIN) over all the bytes
 * before it. The tag is compared in constant time (sodium_memcmp). Packets are authenticated,
 * not encrypted: whoever sees them can read them, nobody without the code can make one.
 */
#ifndef FIX2D_NETDEMO_AUTH_H
#define FIX2D_NETDEMO_AUTH_H

#include "packet.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ND_CODE_BYTES 15                      /* 120 bits */
#define ND_CODE_CHARS 24                      /* base32 letters, 5 bits each */
#define ND_CODE_TEXT 30                       /* 24 letters, 5 dashes, NUL */
#define ND_KEY_BYTES 32                       /* crypto_generichash_KEYBYTES */
#define ND_CODE_ENV "FIX2D_NETDEMO_JOIN_CODE" /* --join-code without it showing in ps */

typedef struct nd_key {
	uint8_t k[ND_KEY_BYTES];
} nd_key;

/** sodium_init(); false when libsodium cannot start (no entropy source). */
bool nd_auth_init(void);

/** A new random join code (randombytes_buf). */
void nd_code_random(uint8_t code[ND_CODE_BYTES]);

/** Writes the code as "ABCD-EFGH-IJKL-MNOP-QRST-UVWX" (text: ND_CODE_TEXT bytes). */
void nd_code_format(const uint8_t code[ND_CODE_BYTES], char text[ND_CODE_TEXT]);

/** Reads a code: 24 base32 letters, either case, dashes and spaces ignored. False on any
 *  other character or another number of letters. */
bool nd_code_parse(const char *text, uint8_t code[ND_CODE_BYTES]);

/** The packet key of a join code (see above). */
void nd_key_derive(const uint8_t code[ND_CODE_BYTES], nd_key *key);

/** Overwrites a key with zeros (sodium_memzero: not optimised away). */
void nd_key_wipe(nd_key *key);

/** Encodes p and appends its tag; returns the datagram's length, 0 when it does not fit. */
size_t nd_packet_seal(const nd_key *key, const nd_packet *p, uint8_t *buf, size_t cap);

/** Checks one datagram and parses it: -1 and *out filled when it is well formed and its tag
 *  is right, else the nd_drop reason. Order: magic, version, short, length (the header
 *  bytes and the length only: no cryptography spent on them; fewer than 5 bytes are short),
 *  then the tag (ND_DROP_AUTH), then the parser's reasons for the bytes before the tag.
 *  Reads only data[0, len). */
int nd_packet_open(const nd_key *key, const uint8_t *data, size_t len, nd_packet *out);

/** Writes the tag of data[0, len) to tag[ND_MAC_BYTES] (tests and the fuzzer reseal with it). */
void nd_mac(const nd_key *key, const uint8_t *data, size_t len, uint8_t tag[ND_MAC_BYTES]);

#endif
