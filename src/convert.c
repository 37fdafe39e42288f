/* fix2d: conversions for users (fix2d/convert.h).
 * SPDX-License-Identifier: MIT
 *
 * The only library file that uses double. Nothing here runs inside a step, and nothing here
 * needs libm: rounding is done by hand, and f2d_format_fix is integer arithmetic only.
 */
#include "fix2d/convert.h"

#include <math.h>
#include <stdint.h>

fix16_t f2d_from_double(double value)
{
	if (isnan(value)) {
		return 0;
	}
	/* Scaling by a power of two is exact (or overflows to infinity, which saturates). */
	double scaled = value * 65536.0;
	if (scaled >= (double)INT32_MAX) {
		return INT32_MAX;
	}
	if (scaled <= (double)INT32_MIN) {
		return INT32_MIN;
	}
	/* |scaled| < 2^31: truncation is exact and so is the fraction scaled - t. */
	int64_t t = (int64_t)scaled;
	double frac = scaled - (double)t;
	if (frac >= 0.5) {
		t++;
	} else if (frac <= -0.5) {
		t--;
	}
	return (fix16_t)t; /* t in [INT32_MIN, INT32_MAX] by the checks above */
}

double f2d_to_double(fix16_t value)
{
	return (double)value / 65536.0;
}

f2d_vec2 f2d_vec2_from_doubles(double x, double y)
{
	f2d_vec2 v = {f2d_from_double(x), f2d_from_double(y)};
	return v;
}

/* Writes the decimal digits of v (at least min_digits, zero padded) ending just before end;
 * returns the first written character. */
static char *put_digits(char *end, uint64_t v, int min_digits)
{
	char *p = end;
	int n = 0;
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
		n++;
	} while (v != 0 || n < min_digits);
	return p;
}

char *f2d_format_fix(fix16_t value, int decimals, char *buf)
{
	static const uint64_t pow10[10] = {1,      10,      100,      1000,      10000,
	                                   100000, 1000000, 10000000, 100000000, 1000000000};
	if (decimals < 0) {
		decimals = 0;
	} else if (decimals > 9) {
		decimals = 9;
	}
	bool negative = value < 0;
	uint64_t magnitude = negative ? (uint64_t)(-(int64_t)value) : (uint64_t)value;
	/* magnitude <= 2^31 and 10^9 < 2^30: the product is below 2^61. Rounding the magnitude
	 * half up is rounding the value half away from zero. */
	uint64_t q = (magnitude * pow10[decimals] + 0x8000u) >> 16;
	if (q == 0) {
		negative = false; /* no "-0.000" */
	}
	/* Longest text: "-32768." and 9 digits, 16 characters; build it right to left. */
	char tmp[24];
	char *end = tmp + sizeof tmp;
	char *p = end;
	if (decimals > 0) {
		p = put_digits(p, q % pow10[decimals], decimals);
		*--p = '.';
	}
	p = put_digits(p, q / pow10[decimals], 1);
	if (negative) {
		*--p = '-';
	}
	size_t n = (size_t)(end - p);
	for (size_t i = 0; i < n; ++i) {
		buf[i] = p[i];
	}
	buf[n] = '\0';
	return buf;
}
