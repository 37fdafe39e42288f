/* fix2d tests: the in-process snapshot's refusals (f2d_snapshot_restore). Every corruption,
 * resealed so that the checks behind the seal see it, is refused with an error code and a
 * message, and the world's hash is unchanged. (Moved from test_snapshot_portable.c, which
 * keeps the portable form's cases.)
 * SPDX-License-Identifier: MIT
 */
#include "snapshot_common.h"
#include "snapshot_spec.h"

/* The in-process header (48 bytes) and its seal: XXH3-64 of the payload with snapshot.c's
 * MEMORY_SEAL_SEED, at byte 40. Resealing damaged bytes tests the validation behind the seal. */
#define MEM_HEADER 48
static void reseal(uint8_t *b, size_t size)
{
	if (size >= MEM_HEADER) {
		put_le64(b + 40, XXH3_64bits_withSeed(b + MEM_HEADER, size - MEM_HEADER,
		                                      0xF2D5EA1C0C4E5EEDull));
	}
}

START_TEST(corrupt_in_process_snapshots_are_refused)
{
	f2d_world *w = small_world();
	slot good = {0}, port = {0};
	slot_save(w, &good);
	portable_save(w, &port);
	f2d_world *t = make_scene("bridge");
	for (int i = 0; i < 20; ++i) {
		f2d_world_step(t);
	}
	uint64_t h = f2d_world_hash(t);
	uint8_t *b = malloc(good.size + 8);
	ck_assert_ptr_nonnull(b);
#define EXPECT_RESTORE_FAILS(bytes, size, want, needle)                                            \
	do {                                                                                       \
		t->error[0] = '\0';                                                                \
		if ((const uint8_t *)(bytes) == b) {                                               \
			reseal(b, size);                                                           \
		}                                                                                  \
		f2d_result r_ = f2d_snapshot_restore(t, bytes, size);                              \
		ck_assert_msg(r_ == (want), "restore returned %d (%s)", (int)r_,                   \
		              f2d_world_last_error(t));                                            \
		ck_assert_msg(strstr(f2d_world_last_error(t), needle) != NULL, "message '%s'",     \
		              f2d_world_last_error(t));                                            \
		ck_assert_uint_eq(f2d_world_hash(t), h);                                           \
	} while (0)
	for (size_t n = 0; n < good.size; ++n) {
		t->error[0] = '\0';
		ck_assert_int_ne(f2d_snapshot_restore(t, good.bytes, n), F2D_OK);
		ck_assert(f2d_world_last_error(t)[0] != '\0');
		ck_assert_uint_eq(f2d_world_hash(t), h);
	}
	/* payload cut short with a consistent length field */
	for (size_t n = MEM_HEADER; n < good.size; ++n) {
		memcpy(b, good.bytes, n);
		put_le64(b + 16, n - MEM_HEADER);
		reseal(b, n);
		t->error[0] = '\0';
		ck_assert_int_ne(f2d_snapshot_restore(t, b, n), F2D_OK);
		ck_assert_uint_eq(f2d_world_hash(t), h);
	}
	EXPECT_RESTORE_FAILS(port.bytes, port.size, F2D_ERROR_INVALID_VALUE, "portable");
	memcpy(b, good.bytes, good.size);
	b[3] ^= 1;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "magic");
	memcpy(b, good.bytes, good.size);
	b[8] ^= 1;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "version");
	memcpy(b, good.bytes, good.size);
	b[good.size] = 0;
	EXPECT_RESTORE_FAILS(b, good.size + 1, F2D_ERROR_INVALID_VALUE, "length");
	/* header counts that disagree with the payload; absurd ones */
	memcpy(b, good.bytes, good.size);
	put_le32(b + 28, le32(b + 28) + 1);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "header counts");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 24, 0x7FFFFFFFu);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_CAPACITY, "F2D_MAX_OBJECTS");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 32, 100000);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "cannot fit");
	memcpy(b, good.bytes, good.size);
	put_le32(b + 36, 1);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "reserved");
	/* the seal: one payload byte changed, not resealed */
	memcpy(b, good.bytes, good.size);
	b[good.size - 1] ^= 1;
	t->error[0] = '\0';
	ck_assert_int_eq(f2d_snapshot_restore(t, b, good.size), F2D_ERROR_INVALID_VALUE);
	ck_assert(strstr(f2d_world_last_error(t), "seal") != NULL);
	ck_assert_uint_eq(f2d_world_hash(t), h);
	/* The payload: the portable one's sections but bodies and arbiters, which are fixed-size
	 * records (include/fix2d/snapshot.h, version 7); the portable offsets (sp) shift by the
	 * difference of the sections before them. Each damaged payload below is resealed, as
	 * EXPECT_RESTORE_FAILS does, so the checks behind the seal are what refuses it. */
	spec sp;
	spec_parse(port.bytes + 40, port.size - 40, &sp);
	f2d_snapshot_layout lp, lm;
	CHECK_OK(f2d_snapshot_measure(w, true, &lp));
	CHECK_OK(f2d_snapshot_measure(w, false, &lm));
	const size_t bodies = MEM_HEADER + 94; /* after the world settings (94 bytes) */
	const size_t body0 = bodies + 4;       /* records of 104 bytes: u32 flags, generation .. */
	const size_t free_list = body0 + 6 * 104;
	const size_t shift = lm.bodies - lp.bodies; /* of the shapes and joints sections */
	const size_t arbiters = bodies + lm.bodies + lm.shapes + lm.joints;
	const size_t arb0 = arbiters + 4; /* records of 128 bytes: shapes a, b, .., flags at 52 */
	const size_t options_shift = shift + lm.arbiters - lp.arbiters;
	ck_assert_uint_eq(lm.bodies, 4 + 6 * 104 + 4 + 2 * 4);
	ck_assert_uint_eq(lm.arbiters, 4 + (size_t)w->arbiter_count * 128);
	ck_assert_uint_eq(le32(good.bytes + bodies), 6);
	/* little-endian fields, read back as the bytes say (rule 4: written from values) */
	const f2d_body *b0 = &w->bodies[0];
	const f2d_arbiter *a0 = &w->arbiters[0];
	ck_assert_uint_eq(le32(good.bytes + body0), 1u | (uint32_t)b0->type << 1 |
	                                                (b0->awake ? 8u : 0u) |
	                                                (b0->enable_sleep ? 16u : 0u));
	ck_assert_uint_eq(le32(good.bytes + body0 + 4), b0->generation);
	ck_assert_uint_eq(le32(good.bytes + body0 + 28), (uint32_t)b0->center.x);
	ck_assert_uint_eq(le32(good.bytes + body0 + 32), (uint32_t)b0->center.y);
	ck_assert_uint_eq(le32(good.bytes + arb0), (uint32_t)a0->shape_a);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 4), (uint32_t)a0->shape_b);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 16), (uint32_t)a0->normal.x);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 52) & 3u, (uint32_t)a0->count);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 56 + 4), (uint32_t)a0->points[0].pn);
	/* version 8: the record ends with the geometry digest (hash format 9) */
	ck_assert_uint_eq(le32(good.bytes + arb0 + 120), (uint32_t)w->arbiter_geo[0]);
	ck_assert_uint_eq(le32(good.bytes + arb0 + 124), (uint32_t)(w->arbiter_geo[0] >> 32));
	/* a shape on a dead body (the shapes section: the portable codec) */
	memcpy(b, good.bytes, good.size);
	b[MEM_HEADER + sp.shape_body[1] + shift] = 2 * (4 - 1); /* body 4 (dead) */
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "not alive");
	/* bodies: generation 0, a flag outside the record's, type 3, the count */
	memcpy(b, good.bytes, good.size);
	put_le32(b + body0 + 104 + 4, 0);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "generation 0");
	memcpy(b, good.bytes, good.size);
	b[body0 + 2 * 104] |= 64;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "bad flags");
	memcpy(b, good.bytes, good.size);
	b[body0] |= 6; /* type 3 */
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "bad flags");
	memcpy(b, good.bytes, good.size);
	put_le32(b + bodies, 5);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "header counts");
	/* a dead body made alive: the free list then names a live id */
	memcpy(b, good.bytes, good.size);
	b[body0 + 4 * 104] |= 1;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "free list holds");
	/* the body free list: an id repeated, a live id, one never handed out */
	memcpy(b, good.bytes, good.size);
	put_le32(b + free_list + 8, le32(b + free_list + 4));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "repeated");
	memcpy(b, good.bytes, good.size);
	put_le32(b + free_list + 4, 0);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "repeated");
	memcpy(b, good.bytes, good.size);
	put_le32(b + free_list + 4, 6);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "never handed out");
	/* arbiters: one shape twice, b < a, a dead shape, key order, the point count, flags,
	 * the count */
	memcpy(b, good.bytes, good.size);
	put_le32(b + arb0 + 4, le32(b + arb0));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "two live shapes");
	memcpy(b, good.bytes, good.size);
	put_le32(b + arb0, le32(good.bytes + arb0 + 4));
	put_le32(b + arb0 + 4, le32(good.bytes + arb0));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "two live shapes");
	memcpy(b, good.bytes, good.size);
	put_le32(b + arb0 + 4, 4); /* shape 4 is dead */
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "two live shapes");
	memcpy(b, good.bytes, good.size);
	put_le32(b + arb0 + 4, 0xFFFFFFFFu);
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "two live shapes");
	if (w->arbiter_count >= 2) { /* the second record a copy of the first */
		memcpy(b, good.bytes, good.size);
		memcpy(b + arb0 + 128, b + arb0, 128);
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "in order");
	}
	memcpy(b, good.bytes, good.size);
	b[arb0 + 52] |= 3;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "bad flags");
	memcpy(b, good.bytes, good.size);
	b[arb0 + 52] |= 32;
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "bad flags");
	memcpy(b, good.bytes, good.size);
	put_le32(b + arbiters, (uint32_t)(good.size / 128));
	EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "truncated in the arbiters");
	/* the sweep order (in-process only): after the options and their substep_count word
	 * (always in the in-process form; sp.end is the options' end, before the word) */
	size_t sweep = MEM_HEADER + sp.end + options_shift + 4;
	uint32_t n_sweep = le32(good.bytes + sweep);
	if (n_sweep != 0xFFFFFFFFu) {
		ck_assert_uint_eq(n_sweep, 4);
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep + 8, le32(b + sweep + 4));
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "sweep");
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep + 4, 4); /* a dead shape */
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_HANDLE, "sweep");
		memcpy(b, good.bytes, good.size);
		put_le32(b + sweep, 3);
		EXPECT_RESTORE_FAILS(b, good.size, F2D_ERROR_INVALID_VALUE, "sweep");
	}
	ck_assert_int_eq(f2d_snapshot_restore(NULL, good.bytes, good.size),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_restore(t, NULL, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_uint_eq(f2d_world_hash(t), h);
	CHECK_OK(f2d_snapshot_restore(t, good.bytes, good.size));
	ck_assert_uint_eq(f2d_world_hash(t), f2d_world_hash(w));
	free(b);
	free(good.bytes);
	free(port.bytes);
	f2d_destroy_world(t);
	f2d_destroy_world(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_memory");
	TCase *tc = tcase_create("snapshot_memory");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, corrupt_in_process_snapshots_are_refused);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
