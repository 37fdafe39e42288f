/* fix2d tests: stand-ins for libfixmath's fix16_mul, fix16_div, fix16_sqrt, fix16_add and
 * fix16_sub, linked before the real libfixmath so they replace it. Exactly one of:
 *   F2D_FAKE_FLAVOUR_exact           the flavour fix2d needs, rebuilt from fix2d's own copies
 *                                    (the check must accept it: the fakes themselves are sound)
 *   F2D_FAKE_FLAVOUR_no_rounding     fix16_mul truncates (libfixmath's FIXMATH_NO_ROUNDING)
 *   F2D_FAKE_FLAVOUR_no_overflow     fix16_mul wraps instead of returning fix16_overflow
 *                                    (FIXMATH_NO_OVERFLOW)
 *   F2D_FAKE_FLAVOUR_exact_division  fix16_div rounds exactly also for divisors >= 16.0
 *   F2D_FAKE_FLAVOUR_exact_sqrt      fix16_sqrt rounds exactly also above 16384.0
 * SPDX-License-Identifier: MIT
 */
#include "fmath.h"

#if defined(F2D_FAKE_FLAVOUR_exact) + defined(F2D_FAKE_FLAVOUR_no_rounding) +                      \
        defined(F2D_FAKE_FLAVOUR_no_overflow) + defined(F2D_FAKE_FLAVOUR_exact_division) +         \
        defined(F2D_FAKE_FLAVOUR_exact_sqrt) !=                                                    \
    1
#error "define exactly one F2D_FAKE_FLAVOUR_*"
#endif

#define OVF INT32_MIN

fix16_t fix16_mul(fix16_t a, fix16_t b)
{
	int64_t p = (int64_t)a * b;
#if defined(F2D_FAKE_FLAVOUR_no_rounding)
	int64_t r = p >> 16;
#else
	int64_t r = f2d_round16(p);
#endif
#if defined(F2D_FAKE_FLAVOUR_no_overflow)
	return (fix16_t)(uint32_t)(uint64_t)r;
#else
	return r > INT32_MAX || r < INT32_MIN ? OVF : (fix16_t)r;
#endif
}

fix16_t fix16_div(fix16_t a, fix16_t b)
{
	if (b == 0) {
		return OVF;
	}
	int64_t exact = ((int64_t)a * 65536) / b;
	if (exact > INT32_MAX || exact < -INT32_MAX) {
		return OVF;
	}
#if defined(F2D_FAKE_FLAVOUR_exact_division)
	return f2d_div_exact(a, b);
#else
	return f2d_div(a, b);
#endif
}

fix16_t fix16_sqrt(fix16_t x)
{
#if defined(F2D_FAKE_FLAVOUR_exact_sqrt)
	uint64_t m = x < 0 ? (uint64_t) - (int64_t)x : (uint64_t)x;
	fix16_t r = (fix16_t)f2d_isqrt64_round(m << 16);
	return x < 0 ? -r : r;
#else
	return f2d_sqrt(x);
#endif
}

fix16_t fix16_add(fix16_t a, fix16_t b)
{
	int64_t s = (int64_t)a + b;
	return s > INT32_MAX || s < INT32_MIN ? OVF : (fix16_t)s;
}

fix16_t fix16_sub(fix16_t a, fix16_t b)
{
	int64_t s = (int64_t)a - b;
	return s > INT32_MAX || s < INT32_MIN ? OVF : (fix16_t)s;
}
