/* fix2d - conversions for users. These are the only fix2d functions that touch float or
 * double; they live in their own file (src/convert.c) and never run inside a step.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_CONVERT_H
#define FIX2D_CONVERT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Nearest Q16.16 value; saturates outside [-32768, 32767.99998]. */
fix16_t f2d_from_double(double value);
double f2d_to_double(fix16_t value);
f2d_vec2 f2d_vec2_from_doubles(double x, double y);
/** Exact decimal text with `decimals` (0..9) digits after the point, rounded half away from
 *  zero using integer arithmetic only; buf needs 24 bytes. Returns buf. */
char *f2d_format_fix(fix16_t value, int decimals, char *buf);

#ifdef __cplusplus
}
#endif
#endif
