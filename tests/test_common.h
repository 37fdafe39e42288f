/* fix2d tests: the small helpers most test files share: CHECK_OK, v2 and add_body.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_TESTS_TEST_COMMON_H
#define FIX2D_TESTS_TEST_COMMON_H

#include <check.h>

#include "fix2d/fix2d.h"

/* call must return F2D_OK; the failure names the call and the code */
#define CHECK_OK(call)                                                                             \
	do {                                                                                       \
		f2d_result r_ = (call);                                                            \
		ck_assert_msg(r_ == F2D_OK, "%s failed: %d (%s)", #call, (int)r_,                  \
		              f2d_error_string(r_));                                               \
	} while (0)

static inline f2d_vec2 v2(fix16_t x, fix16_t y)
{
	f2d_vec2 v = {x, y};
	return v;
}

/* a body of the default def with this type at p (no shape) */
static inline f2d_body_id add_body(f2d_world *w, f2d_body_type type, f2d_vec2 p)
{
	f2d_body_def bd = f2d_default_body_def();
	bd.type = type;
	bd.position = p;
	f2d_body_id id;
	CHECK_OK(f2d_create_body(w, &bd, &id));
	return id;
}

#endif
