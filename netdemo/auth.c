/* fix2d-netdemo: join codes and the packet MAC (see auth.h). SPDX-License-Identifier: MIT */
#include "auth.h"

#include <sodium.h>
#include <string.h>

/* What auth.h promises, checked against the library we build with. */
_Static_assert(ND_KEY_BYTES == crypto_generichash_KEYBYTES, "packet key size");
_Static_assert(ND_MAC_BYTES == crypto_generichash_BYTES_MIN, "tag size");
_Static_assert(ND_KEY_BYTES == crypto_kdf_KEYBYTES, "kdf master key size");
_Static_assert(ND_CODE_BYTES * 8 == ND_CODE_CHARS * 5, "a code is whole base32 letters");

static const char base32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

bool nd_auth_init(void)
{
	return sodium_init() >= 0; /* 1: already done, 0: done now */
}

void nd_code_random(uint8_t code[ND_CODE_BYTES])
{
	randombytes_buf(code, ND_CODE_BYTES);
}

void nd_code_format(const uint8_t code[ND_CODE_BYTES], char text[ND_CODE_TEXT])
{
	/* letter i holds bits [5i, 5i + 5) of the code, most significant bit of byte 0 first */
	int out = 0;
	for (int i = 0; i < ND_CODE_CHARS; ++i) {
		unsigned v = 0;
		for (int b = 0; b < 5; ++b) {
			int bit = 5 * i + b;
			v = v << 1 | (unsigned)(code[bit / 8] >> (7 - bit % 8) & 1u);
		}
		if (i > 0 && i % 4 == 0) {
			text[out++] = '-';
		}
		text[out++] = base32[v];
	}
	text[out] = '\0';
}

bool nd_code_parse(const char *text, uint8_t code[ND_CODE_BYTES])
{
	uint8_t c[ND_CODE_BYTES];
	memset(c, 0, sizeof c);
	int n = 0;
	for (const char *t = text; *t != '\0'; ++t) {
		char ch = *t;
		if (ch == '-' || ch == ' ') {
			continue;
		}
		if (ch >= 'a' && ch <= 'z') {
			ch = (char)(ch - 'a' + 'A');
		}
		const char *at = ch != '\0' ? strchr(base32, ch) : NULL;
		if (at == NULL || n == ND_CODE_CHARS) {
			return false;
		}
		unsigned v = (unsigned)(at - base32);
		for (int b = 0; b < 5; ++b) {
			int bit = 5 * n + b;
			c[bit / 8] |= (uint8_t)((v >> (4 - b) & 1u) << (7 - bit % 8));
		}
		n++;
	}
	if (n != ND_CODE_CHARS) {
		return false;
	}
	memcpy(code, c, sizeof c);
	sodium_memzero(c, sizeof c);
	return true;
}

void nd_key_derive(const uint8_t code[ND_CODE_BYTES], nd_key *key)
{
	uint8_t master[crypto_kdf_KEYBYTES];
	crypto_generichash(master, sizeof master, code, ND_CODE_BYTES, NULL, 0);
	crypto_kdf_derive_from_key(key->k, sizeof key->k, 1, "F2DNpkt2", master);
	sodium_memzero(master, sizeof master);
}

void nd_mac(const nd_key *key, const uint8_t *data, size_t len, uint8_t tag[ND_MAC_BYTES])
{
	crypto_generichash(tag, ND_MAC_BYTES, data, len, key->k, sizeof key->k);
}

size_t nd_packet_seal(const nd_key *key, const nd_packet *p, uint8_t *buf, size_t cap)
{
	if (cap < ND_MAC_BYTES) {
		return 0;
	}
	size_t n = nd_packet_encode(p, buf, cap - ND_MAC_BYTES);
	if (n == 0) {
		return 0;
	}
	nd_mac(key, buf, n, buf + n);
	return n + ND_MAC_BYTES;
}

int nd_packet_open(const nd_key *key, const uint8_t *data, size_t len, nd_packet *out)
{
	if (data == NULL || len < 5) {
		return ND_DROP_SHORT;
	}
	uint32_t magic = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
	                 (uint32_t)data[3] << 24;
	if (magic != ND_MAGIC) {
		return ND_DROP_MAGIC;
	}
	if (data[4] != ND_VERSION) {
		return ND_DROP_VERSION;
	}
	if (len < ND_HEADER_BYTES + ND_MAC_BYTES) {
		return ND_DROP_SHORT;
	}
	if (len > ND_MAX_PACKET) {
		return ND_DROP_LENGTH;
	}
	size_t body = len - ND_MAC_BYTES;
	uint8_t tag[ND_MAC_BYTES];
	nd_mac(key, data, body, tag);
	if (sodium_memcmp(tag, data + body, ND_MAC_BYTES) != 0) {
		return ND_DROP_AUTH;
	}
	return nd_packet_parse(data, body, out);
}

void nd_key_wipe(nd_key *key)
{
	sodium_memzero(key->k, sizeof key->k);
}
