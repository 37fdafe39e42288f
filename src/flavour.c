/* fix2d: the libfixmath flavour check and the engine fingerprint.
 * SPDX-License-Identifier: MIT
 *
 * libfixmath can be built in several flavours (FIXMATH_NO_ROUNDING, FIXMATH_NO_OVERFLOW,
 * FIXMATH_NO_64BIT, FIXMATH_OPTIMIZE_8BIT, later upstream versions) that give different bits
 * for the same fix16_mul, fix16_div and fix16_sqrt. fix2d's step computes with its own inline
 * copies of these operations (src/fmath.h), which are written to return exactly what Debian's
 * libfixmath 0~20220222 returns; users mix fix16_* arithmetic with fix2d's, so a different
 * libfixmath would make their lockstep games diverge from peers built against the right one.
 *
 * The probes below pin that flavour: each is one operation on fixed operands with the result
 * Debian's libfixmath gives on amd64, i386, arm64 and s390x alike. f2d_check_math_flavour
 * computes every probe both with the linked libfixmath and with fix2d's own copy and accepts
 * only exact agreement; f2d_fingerprint hashes the engine format and what this binary computed.
 *
 * Integer only; no global state (every call recomputes, about a microsecond).
 */
#include "fmath.h"

#include "fix2d/fix2d.h"

enum probe_op { PROBE_MUL, PROBE_DIV, PROBE_SQRT, PROBE_ADD, PROBE_SUB };

typedef struct probe {
	uint8_t op;
	int32_t a, b;
	int32_t want; /* Debian libfixmath 0~20220222 */
} probe;

/* fix16_overflow / fix16_minimum as an int32 value without a narrowing conversion */
#define OVF INT32_MIN

static const probe probes[] = {
    /* fix16_mul: ties round half away from zero (FIXMATH_NO_ROUNDING truncates: 0, -1) */
    {PROBE_MUL, 1, 32768, 1},
    {PROBE_MUL, -1, 32768, -1},
    {PROBE_MUL, 3, 32768, 2},
    {PROBE_MUL, -3, 32768, -2},
    {PROBE_MUL, 1, 32767, 0},
    {PROBE_MUL, 0x01234567, 0x00089ABC, 164247775},
    {PROBE_MUL, -0x01234567, 0x00089ABC, -164247775},
    {PROBE_MUL, 0x00ABCDEF, -0x0000FEDC, -11209208},
    {PROBE_MUL, 0x7FFFFFFF, 0x10000, 0x7FFFFFFF},
    /* fix16_mul overflow gives fix16_overflow (FIXMATH_NO_OVERFLOW wraps) */
    {PROBE_MUL, 200 << 16, 200 << 16, OVF},
    {PROBE_MUL, -(200 << 16), 200 << 16, OVF},
    /* fix16_div: ties round half away from zero */
    {PROBE_DIV, 1, 0x20000, 1},
    {PROBE_DIV, -1, 0x20000, -1},
    {PROBE_DIV, 3, 0x20000, 2},
    {PROBE_DIV, 1 << 16, 3 << 16, 21845},
    {PROBE_DIV, -(2 << 16), 3 << 16, -43691},
    {PROBE_DIV, 0x01234567, 0x00089ABC, 2218478},
    /* divisors >= 16.0 take libfixmath's low-estimate path: one LSB above exact rounding */
    {PROBE_DIV, 1000003, 1049612, 62439},
    {PROBE_DIV, -1000003, 1049982, -62417},
    {PROBE_DIV, 1000003, -1050167, -62406},
    /* division by zero and overflow give fix16_minimum / fix16_overflow */
    {PROBE_DIV, 5, 0, OVF},
    {PROBE_DIV, 0x40000000, 0x100, OVF},
    /* fix16_sqrt: rounded to nearest below 16384.0, libfixmath's two-pass result above */
    {PROBE_SQRT, 0, 0, 0},
    {PROBE_SQRT, 1, 0, 256},
    {PROBE_SQRT, 2 << 16, 0, 92682},
    {PROBE_SQRT, -(4 << 16), 0, -131072},
    {PROBE_SQRT, 0x7FFFFFFF, 0, 11863283},
    {PROBE_SQRT, 1244041099, 0, 9029367},
    /* saturation is reported, not wrapped */
    {PROBE_ADD, 0x7FFFFFFF, 1, OVF},
    {PROBE_SUB, -0x7FFFFFFF, 2, OVF},
};

#define PROBE_COUNT ((int)(sizeof probes / sizeof probes[0]))

/* The operands go through volatile locals so that the compiler cannot fold fix2d's inline
 * operations at compile time: the check exercises the code generated for run-time values. */
static int32_t libfixmath_result(const probe *p)
{
	volatile int32_t va = p->a, vb = p->b;
	fix16_t a = va, b = vb;
	switch (p->op) {
	case PROBE_MUL: return fix16_mul(a, b);
	case PROBE_DIV: return fix16_div(a, b);
	case PROBE_SQRT: return fix16_sqrt(a);
	case PROBE_ADD: return fix16_add(a, b);
	default: return fix16_sub(a, b);
	}
}

/* fix2d's own copy, for the probes whose result is in range (fix2d never overflows there). */
static bool fix2d_result(const probe *p, int32_t *out)
{
	volatile int32_t va = p->a, vb = p->b;
	fix16_t a = va, b = vb;
	if (p->want == OVF) {
		return false;
	}
	switch (p->op) {
	case PROBE_MUL: *out = f2d_mul(a, b); return true;
	case PROBE_DIV: *out = f2d_div(a, b); return true;
	case PROBE_SQRT: *out = f2d_sqrt(a); return true;
	default: return false;
	}
}

/* Index of the first probe that libfixmath or fix2d's copy gets wrong, or -1. */
static int first_mismatch(int32_t *got_libfixmath, int32_t *got_fix2d)
{
	for (int i = 0; i < PROBE_COUNT; ++i) {
		int32_t lib = libfixmath_result(&probes[i]);
		int32_t own = probes[i].want;
		bool has_own = fix2d_result(&probes[i], &own);
		if (lib != probes[i].want || (has_own && own != probes[i].want)) {
			if (got_libfixmath != NULL) {
				*got_libfixmath = lib;
			}
			if (got_fix2d != NULL) {
				*got_fix2d = own;
			}
			return i;
		}
	}
	return -1;
}

f2d_result f2d_check_math_flavour(void)
{
	return first_mismatch(NULL, NULL) < 0 ? F2D_OK : F2D_ERROR_MATH_FLAVOUR;
}

/* 64-bit FNV-1a over a little-endian byte encoding: the same value on every host. */
static uint64_t fnv_u32(uint64_t h, uint32_t v)
{
	for (int i = 0; i < 4; ++i) {
		h ^= (uint8_t)(v >> (8 * i));
		h *= 0x100000001B3ull;
	}
	return h;
}

uint64_t f2d_fingerprint(void)
{
	uint64_t h = 0xCBF29CE484222325ull;
	h = fnv_u32(h, 0x64327866u); /* "fx2d" */
	h = fnv_u32(h, F2D_ENGINE_FORMAT);
	h = fnv_u32(h, (uint32_t)PROBE_COUNT);
	for (int i = 0; i < PROBE_COUNT; ++i) {
		const probe *p = &probes[i];
		int32_t own = p->want;
		(void)fix2d_result(p, &own);
		h = fnv_u32(h, p->op);
		h = fnv_u32(h, (uint32_t)p->a);
		h = fnv_u32(h, (uint32_t)p->b);
		h = fnv_u32(h, (uint32_t)libfixmath_result(p));
		h = fnv_u32(h, (uint32_t)own);
	}
	return h;
}
