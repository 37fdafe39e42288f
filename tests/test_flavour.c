/* fix2d tests: the libfixmath flavour check and the engine fingerprint.
 * SPDX-License-Identifier: MIT
 *
 * Built several times (tests/CMakeLists.txt): against the real libfixmath, and linked with
 * tests/flavour/fake_fixmath.c in front of it, which replaces fix16_mul, fix16_div and
 * fix16_sqrt with other flavours of libfixmath (F2D_FAKE_FLAVOUR_*). The real library and the
 * faithful fake must be accepted and give the golden fingerprint
 * (tests/golden/fingerprint.txt); every other flavour must be refused by
 * f2d_check_math_flavour and by f2d_create_world, and must change the fingerprint.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix2d/fix2d.h"
#include "fix2d/scenes.h"

#if defined(F2D_FAKE_FLAVOUR_no_rounding) || defined(F2D_FAKE_FLAVOUR_no_overflow) ||              \
    defined(F2D_FAKE_FLAVOUR_exact_division) || defined(F2D_FAKE_FLAVOUR_exact_sqrt)
#define EXPECT_ACCEPTED 0
#else
#define EXPECT_ACCEPTED 1
#endif

static uint64_t golden_fingerprint(void)
{
	const char *dir = getenv("F2D_GOLDEN_DIR");
	ck_assert_msg(dir != NULL, "F2D_GOLDEN_DIR is not set");
	char path[1024];
	snprintf(path, sizeof path, "%s/fingerprint.txt", dir);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char hex[32] = "";
	int n = fscanf(f, "fingerprint %31s", hex);
	fclose(f);
	ck_assert_msg(n == 1 && strlen(hex) == 16, "%s: want 'fingerprint <16 hex>'", path);
	return strtoull(hex, NULL, 16);
}

START_TEST(fingerprint_is_stable)
{
	uint64_t a = f2d_fingerprint();
	ck_assert_uint_ne(a, 0);
	for (int i = 0; i < 100; ++i) {
		ck_assert_uint_eq(f2d_fingerprint(), a);
	}
}
END_TEST

#if EXPECT_ACCEPTED

START_TEST(flavour_accepted)
{
	ck_assert_int_eq(f2d_check_math_flavour(), F2D_OK);
	uint64_t want = golden_fingerprint();
	ck_assert_msg(f2d_fingerprint() == want, "fingerprint %016" PRIx64 ", golden %016" PRIx64,
	              f2d_fingerprint(), want);
	f2d_world_def def = f2d_default_world_def();
	f2d_world *w = NULL;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_OK);
	ck_assert_ptr_nonnull(w);
	f2d_destroy_world(w);
	/* a catalogue scene runs as usual */
	ck_assert_int_eq(f2d_scene_create("pyramid", NULL, &w), F2D_OK);
	ck_assert_int_eq(f2d_world_step(w), F2D_OK);
	f2d_destroy_world(w);
}
END_TEST

#else

START_TEST(flavour_refused)
{
	ck_assert_int_eq(f2d_check_math_flavour(), F2D_ERROR_MATH_FLAVOUR);
	ck_assert_msg(f2d_fingerprint() != golden_fingerprint(),
	              "another math flavour must give another fingerprint");
	f2d_world_def def = f2d_default_world_def();
	f2d_world *sentinel = (f2d_world *)&def; /* must stay untouched */
	f2d_world *w = sentinel;
	ck_assert_int_eq(f2d_create_world(&def, &w), F2D_ERROR_MATH_FLAVOUR);
	ck_assert_ptr_eq(w, sentinel);
	w = NULL;
	ck_assert_int_eq(f2d_scene_create("pyramid", NULL, &w), F2D_ERROR_MATH_FLAVOUR);
	ck_assert_ptr_null(w);
	/* argument errors are still reported as such */
	ck_assert_int_eq(f2d_create_world(NULL, &w), F2D_ERROR_NULL_ARGUMENT);
}
END_TEST

#endif

START_TEST(error_string_names_the_package)
{
	const char *s = f2d_error_string(F2D_ERROR_MATH_FLAVOUR);
	ck_assert_ptr_nonnull(strstr(s, "libfixmath"));
	ck_assert_ptr_nonnull(strstr(s, "libfixmath-dev"));
	ck_assert_int_eq(F2D_ERROR_MATH_FLAVOUR + 1, F2D_ERROR_COUNT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flavour");
	TCase *tc = tcase_create("flavour");
	tcase_add_test(tc, fingerprint_is_stable);
#if EXPECT_ACCEPTED
	tcase_add_test(tc, flavour_accepted);
#else
	tcase_add_test(tc, flavour_refused);
#endif
	tcase_add_test(tc, error_string_names_the_package);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
