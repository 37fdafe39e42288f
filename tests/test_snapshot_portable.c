/* fix2d tests: the portable snapshot form (issue 4): same bytes everywhere, the documented
 * layout, continuation, and every corruption refused with the world unchanged (the reader of the
 * documented format: snapshot_spec.h; the in-process form's corruptions: test_snapshot_memory.c).
 * SPDX-License-Identifier: MIT
 */
#include "snapshot_common.h"
#include "snapshot_spec.h"
#include "snapshot_internal.h" /* f2d_snapshot_unit_other */

/* ---- portable form ---- */

START_TEST(portable_round_trip_every_scene)
{
	for (int32_t sc = 0; sc < f2d_scene_count(); ++sc) {
		const char *name = f2d_scene_name(sc);
		if (large_scene(name)) {
			continue;
		}
		f2d_world *w = make_scene(name);
		int32_t n = frames_for(name, 120, 60);
		for (int32_t f = 0; f < n; ++f) {
			advance_inputs(w, f, NULL);
		}
		slot p = {0}, q = {0}, r = {0};
		portable_save(w, &p);
		/* the same state built independently (other capacities) gives the same bytes */
		f2d_world_def def = f2d_default_world_def();
		def.body_capacity = 3;
		def.contact_capacity = 5000;
		f2d_world *v = NULL;
		CHECK_OK(f2d_scene_create(name, &def, &v));
		v->def.body_capacity = w->def.body_capacity; /* the hints are settings too */
		v->def.contact_capacity = w->def.contact_capacity;
		for (int32_t f = 0; f < n; ++f) {
			advance_inputs(v, f, NULL);
		}
		portable_save(v, &q);
		ck_assert_msg(p.size == q.size && memcmp(p.bytes, q.bytes, p.size) == 0,
		              "%s: same state, different bytes", name);
		/* load into a new world, re-save: identical bytes */
		f2d_world *l = NULL;
		CHECK_OK(f2d_snapshot_load_new(p.bytes, p.size, NULL, &l));
		portable_save(l, &r);
		ck_assert_msg(r.size == p.size && memcmp(r.bytes, p.bytes, p.size) == 0,
		              "%s: re-saving a loaded snapshot changes its bytes", name);
		/* load in place into the other world */
		CHECK_OK(f2d_snapshot_load(v, p.bytes, p.size));
		/* continuation: the same hash chain */
		for (int32_t f = n; f < n + 60; ++f) {
			advance_inputs(w, f, NULL);
			advance_inputs(l, f, NULL);
			advance_inputs(v, f, NULL);
			uint64_t h = f2d_world_hash(w);
			ck_assert_msg(f2d_world_hash(l) == h && f2d_world_hash(v) == h,
			              "%s: loaded world parts at frame %d", name, f + 1);
		}
		/* the in-process bytes of the state are a function of the state too (the header but
		 * its seal, the payload but the caches and the arbiter records, which carry their
		 * manifolds: the chain of caches, the broad phase's fat boxes and candidates, and an
		 * arbiter's per-step fields depend on the history; the arbiter count does not) */
		slot m1 = {0}, m2 = {0};
		slot_save(w, &m1);
		slot_save(l, &m2);
		f2d_snapshot_layout lay;
		CHECK_OK(f2d_snapshot_measure(w, false, &lay));
		const size_t arbs = lay.header + 94 + lay.bodies + lay.shapes + lay.joints + 4;
		const size_t arbs_end = arbs - 4 + lay.arbiters;
		ck_assert(m1.size == m2.size && memcmp(m1.bytes, m2.bytes, 40) == 0 &&
		          memcmp(m1.bytes + 48, m2.bytes + 48, arbs - 48) == 0 &&
		          memcmp(m1.bytes + arbs_end, m2.bytes + arbs_end,
		                 m1.size - arbs_end - lay.caches) == 0);
		/* measure adds up */
		CHECK_OK(f2d_snapshot_measure(w, true, &lay));
		ck_assert_uint_eq(lay.total, f2d_snapshot_portable_size(w));
		ck_assert_uint_eq(lay.header + lay.world + lay.bodies + lay.shapes + lay.joints +
		                      lay.arbiters + lay.caches,
		                  lay.total);
		ck_assert_uint_eq(lay.caches, 0);
		CHECK_OK(f2d_snapshot_measure(w, false, &lay));
		ck_assert_uint_eq(lay.total, m1.size);
		ck_assert_uint_eq(lay.header + lay.world + lay.bodies + lay.shapes + lay.joints +
		                      lay.arbiters + lay.caches,
		                  lay.total);
		free(p.bytes);
		free(q.bytes);
		free(r.bytes);
		free(m1.bytes);
		free(m2.bytes);
		f2d_destroy_world(w);
		f2d_destroy_world(v);
		f2d_destroy_world(l);
	}
}
END_TEST

START_TEST(portable_layout_matches_spec)
{
	f2d_world *w = small_world();
	slot s = {0};
	portable_save(w, &s);
	const uint8_t *b = s.bytes;
	ck_assert(memcmp(b, "fix2dsnp", 8) == 0);
	ck_assert_uint_eq(le32(b + 8), F2D_SNAPSHOT_FORMAT_VERSION);
	ck_assert_uint_eq(le32(b + 12), 0);
	ck_assert_uint_eq(le64(b + 24), s.size - 40);
	ck_assert_uint_eq(le64(b + 32), XXH3_64bits(b + 40, s.size - 40));
	const uint8_t *pl = b + 40;
	f2d_world_stats st;
	f2d_world_get_stats(w, &st);
	ck_assert_uint_eq(le64(pl), st.step_count);
	ck_assert_int_eq((int32_t)le32(pl + 8 + 4), -F2D_FIX(10)); /* gravity y */
	ck_assert_int_eq((int32_t)le32(pl + 16), 1092);            /* time step */
	spec sp;
	spec_parse(pl, s.size - 40, &sp);
	ck_assert_uint_eq(sp.bodies, 6);
	ck_assert_uint_eq(sp.shapes, 5);
	ck_assert_uint_eq(sp.joints, 2);
	ck_assert_uint_gt(sp.arbiter_count, 0);
	ck_assert_uint_eq(sp.arbiter_count, (uint32_t)w->arbiter_count);
	for (uint32_t i = 0; i < sp.arbiter_count && i < SPEC_MAX; ++i) {
		const f2d_arbiter *a = &w->arbiters[i];
		const struct spec_arb *x = &sp.arb[i];
		ck_assert(x->a == (uint32_t)a->shape_a && x->b == (uint32_t)a->shape_b);
		ck_assert(x->friction == (uint32_t)a->friction &&
		          x->restitution == (uint32_t)a->restitution);
		ck_assert_uint_eq(x->count, (uint32_t)a->count);
		for (int32_t k = 0; k < a->count; ++k) {
			ck_assert_uint_eq(x->id[k], a->points[k].id);
			ck_assert_uint_eq(x->pn[k], (uint32_t)a->points[k].pn);
			ck_assert_int_eq(x->pt[k], a->points[k].pt);
		}
	}
	/* re-encoding the decoded section by the spec gives the library's bytes */
	if (sp.arbiter_count <= SPEC_MAX) {
		uint8_t sec[4 + 140 * SPEC_MAX];
		size_t len = spec_encode_arbiters(sp.arb, sp.arbiter_count, sec);
		ck_assert_uint_eq(len, sp.options - sp.arbiters);
		ck_assert(memcmp(sec, pl + sp.arbiters, len) == 0);
	}
	ck_assert_uint_eq(le32(pl + sp.body_free), 2); /* bodies 4 and 5 */
	ck_assert_uint_eq(le32(pl + sp.shape_free), 1);
	ck_assert_uint_eq(le32(pl + sp.joint_free), 1);
	/* every body decoded by the spec is the world's; re-encoding gives the library's bytes */
	for (uint32_t i = 0; i < sp.bodies; ++i) {
		const struct spec_body *x = &sp.body[i];
		const f2d_body *bd = &w->bodies[i];
		ck_assert_uint_eq(x->gen, bd->generation);
		ck_assert_uint_eq(x->flags & 1u, bd->alive ? 1u : 0u);
		if (!bd->alive) {
			continue;
		}
		ck_assert_uint_eq((x->flags >> 1) & 3u, (uint32_t)bd->type);
		ck_assert(x->c[0] == bd->center.x && x->c[1] == bd->center.y);
		ck_assert(x->q[0] == bd->q.c && x->q[1] == bd->q.s);
		f2d_vec2 o = {x->c[0] + x->od[0], x->c[1] + x->od[1]};
		if (!(x->flags & 64u)) { /* derived: centre - rotate(q, local centre) */
			o = f2d_sub(bd->center, f2d_rotate(bd->q, bd->local_center));
		}
		ck_assert(o.x == bd->origin.x && o.y == bd->origin.y);
		ck_assert(x->v[0] == bd->v.x && x->v[1] == bd->v.y && x->v[2] == bd->w);
		ck_assert(x->f[0] == bd->force.x && x->f[1] == bd->force.y &&
		          x->f[2] == bd->torque);
		ck_assert_uint_eq(x->user, bd->user_data);
	}
	{
		uint8_t sec[4 + 110 * SPEC_MAX];
		size_t len = spec_encode_bodies(sp.body, sp.bodies, sec);
		ck_assert_uint_eq(len, sp.body_free - sp.body_next);
		ck_assert(memcmp(sec, pl + sp.body_next, len) == 0);
	}
	/* body 1: alive dynamic (flags 1 | 2 << 1), a force, user data 42 */
	ck_assert_uint_eq(sp.body[1].flags & 7u, 5u);
	ck_assert(sp.body[1].flags & 128u); /* the force */
	ck_assert(sp.body[1].flags & 256u); /* user data 42 */
	ck_assert_uint_eq(sp.body[1].user, 42);
	free(s.bytes);
	f2d_destroy_world(w);
}
END_TEST

/* ---- corruption: error code, message, world unchanged ---- */

typedef struct target {
	f2d_world *w;
	uint64_t hash;
} target;

static void fix_checksum(uint8_t *b, size_t size)
{
	put_le64(b + 24, size - 40);
	put_le64(b + 32, XXH3_64bits(b + 40, size - 40));
}

/* load bytes into t; expect code `want` (F2D_OK: any error), a message containing `needle`,
 * and an unchanged world */
static void expect_refused(target *t, const uint8_t *b, size_t size, f2d_result want,
                           const char *needle, const char *what)
{
	t->w->error[0] = '\0';
	f2d_result r = f2d_snapshot_load(t->w, b, size);
	const char *msg = f2d_world_last_error(t->w);
	if (want == F2D_OK) {
		ck_assert_msg(r != F2D_OK, "%s: accepted", what);
	} else {
		ck_assert_msg(r == want, "%s: returned %d (%s: %s), expected %d", what, (int)r,
		              f2d_error_string(r), msg, (int)want);
	}
	ck_assert_msg(msg[0] != '\0', "%s: no message", what);
	ck_assert_msg(needle == NULL || strstr(msg, needle) != NULL,
	              "%s: message '%s' does not mention '%s'", what, msg, needle);
	ck_assert_msg(f2d_world_hash(t->w) == t->hash, "%s: the world changed", what);
	/* f2d_snapshot_check agrees */
	char m2[200];
	ck_assert_int_eq(f2d_snapshot_check(b, size, NULL, m2, sizeof m2), r);
	ck_assert_str_eq(m2, msg);
	f2d_world *none = (f2d_world *)(uintptr_t)1;
	ck_assert_int_eq(f2d_snapshot_load_new(b, size, NULL, &none), r);
	ck_assert_ptr_null(none);
}

/* copy, patch a 32-bit field at payload offset `at`, fix the checksum, expect a refusal */
static void expect_patch_refused(target *t, const slot *good, size_t at, uint32_t value,
                                 f2d_result want, const char *needle, const char *what)
{
	uint8_t *b = malloc(good->size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, good->size);
	put_le32(b + 40 + at, value);
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, want, needle, what);
	free(b);
}

static void expect_byte_refused(target *t, const slot *good, size_t at, uint8_t value,
                                f2d_result want, const char *needle, const char *what)
{
	uint8_t *b = malloc(good->size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, good->size);
	b[40 + at] = value;
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, want, needle, what);
	free(b);
}

/* good with its arbiter section replaced by `sec` (len bytes); expect a refusal */
static void expect_arbiters_refused(target *t, const slot *good, const spec *sp,
                                    const uint8_t *sec, size_t len, f2d_result want,
                                    const char *needle, const char *what)
{
	size_t head = 40 + sp->arbiters, tail = good->size - 40 - sp->options;
	size_t size = head + len + tail;
	uint8_t *b = malloc(size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, head);
	memcpy(b + head, sec, len);
	memcpy(b + head + len, good->bytes + 40 + sp->options, tail);
	fix_checksum(b, size);
	expect_refused(t, b, size, want, needle, what);
	free(b);
}

/* good with its body records replaced by `sec` (len bytes, the count included): a new buffer
 * of *size bytes, checksum fixed */
static uint8_t *bodies_replaced(const slot *good, const spec *sp, const uint8_t *sec, size_t len,
                                size_t *size)
{
	size_t head = 40 + sp->body_next, tail = good->size - 40 - sp->body_free;
	*size = head + len + tail;
	uint8_t *b = malloc(*size);
	ck_assert_ptr_nonnull(b);
	memcpy(b, good->bytes, head);
	memcpy(b + head, sec, len);
	memcpy(b + head + len, good->bytes + 40 + sp->body_free, tail);
	fix_checksum(b, *size);
	return b;
}

static void expect_bodies_refused(target *t, const slot *good, const spec *sp,
                                  const uint8_t *sec, size_t len, f2d_result want,
                                  const char *needle, const char *what)
{
	size_t size;
	uint8_t *b = bodies_replaced(good, sp, sec, len, &size);
	expect_refused(t, b, size, want, needle, what);
	free(b);
}

/* What the corruption tests start from: w (small_world), its portable bytes (good) and their
 * parse (sp), and the target: a pyramid stepped 40 times, with its hash */
static f2d_world *corrupt_setup(slot *good, spec *sp, target *t)
{
	f2d_world *w = small_world();
	portable_save(w, good);
	spec_parse(good->bytes + 40, good->size - 40, sp);
	t->w = make_scene("pyramid");
	for (int i = 0; i < 40; ++i) {
		f2d_world_step(t->w);
	}
	t->hash = f2d_world_hash(t->w);
	return w;
}

/* the bodies of sp with body `index` changed by the caller (x), encoded by the spec */
#define BODY_CASE(index, field_changes, want, needle, what)                                        \
	do {                                                                                       \
		struct spec_body body_[SPEC_MAX];                                                  \
		memcpy(body_, sp->body, sizeof body_);                                             \
		struct spec_body *x = &body_[index];                                               \
		field_changes;                                                                     \
		size_t len_ = spec_encode_bodies(body_, sp->bodies, bsec);                         \
		expect_bodies_refused(t, good, sp, bsec, len_, want, needle, what);                \
	} while (0)

/* the arbiters of sp with one changed by the caller, encoded by the spec */
#define ARB_CASE(field_changes, want, needle, what)                                                \
	do {                                                                                       \
		struct spec_arb arb_[SPEC_MAX];                                                    \
		memcpy(arb_, sp->arb, sizeof arb_);                                                \
		struct spec_arb *x = &arb_[0];                                                     \
		field_changes;                                                                     \
		size_t len_ = spec_encode_arbiters(arb_, sp->arbiter_count, sec);                  \
		expect_arbiters_refused(t, good, sp, sec, len_, want, needle, what);               \
	} while (0)

/* The header and the payload's ends: truncations, trailing bytes, the substep_count word,
 * magic, version, reserved word, fingerprint, checksum, an in-process snapshot */
static void corrupt_header(target *t, const slot *good, const spec *sp, uint8_t *b, f2d_world *w)
{
	(void)sp;
	/* truncated anywhere (header says more) */
	for (size_t n = 0; n < good->size; ++n) {
		expect_refused(t, good->bytes, n, F2D_ERROR_INVALID_VALUE, "truncated",
		               "truncated");
	}
	/* truncated payload with a consistent header: the parser meets the end */
	for (size_t n = 40; n < good->size; ++n) {
		memcpy(b, good->bytes, n);
		fix_checksum(b, n);
		expect_refused(t, b, n, F2D_OK, NULL, "truncated payload");
	}
	/* trailing bytes */
	memcpy(b, good->bytes, good->size);
	b[good->size] = 0;
	expect_refused(t, b, good->size + 1, F2D_ERROR_INVALID_VALUE, "trailing", "trailing");
	/* the substep_count word (the payload's last, always there in version 6): cut just
	 * before it (header and checksum rewritten) is a truncation, not a world of the
	 * Gauss-Seidel solver; beyond 8, or substeps shorter than 1/1000 s, refused */
	ck_assert_uint_eq(le32(good->bytes + good->size - 4),
	                  (uint32_t)f2d_default_world_def().substep_count); /* the default */
	memcpy(b, good->bytes, good->size - 4);
	fix_checksum(b, good->size - 4);
	expect_refused(t, b, good->size - 4, F2D_ERROR_INVALID_VALUE, "truncated in the options",
	               "cut before substep_count");
	expect_patch_refused(t, good, good->size - 44, 9, F2D_ERROR_INVALID_VALUE, "substep_count",
	                     "substep_count 9");
	memcpy(b, good->bytes, good->size);
	put_le32(b + 40 + 16, 100); /* time step 100 LSB: valid for 0 or 1 substep, not for 8 */
	put_le32(b + good->size - 4, 8);
	fix_checksum(b, good->size);
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "1/1000 s",
	               "8 substeps of 12 LSB");
	put_le32(b + good->size - 4, 1);
	fix_checksum(b, good->size);
	{
		f2d_world *one = NULL;
		ck_assert_int_eq(f2d_snapshot_load_new(b, good->size, NULL, &one), F2D_OK);
		ck_assert_int_eq(one->def.substep_count, 1);
		ck_assert_int_eq(one->def.time_step, 100);
		f2d_destroy_world(one);
	}
	/* magic, version, reserved, fingerprint, checksum */
	memcpy(b, good->bytes, good->size);
	b[0] = 'F';
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "magic", "magic");
	memcpy(b, good->bytes, good->size);
	put_le32(b + 8, F2D_SNAPSHOT_FORMAT_VERSION + 1);
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "version", "version");
	memcpy(b, good->bytes, good->size);
	put_le32(b + 12, 1);
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "reserved", "reserved");
	memcpy(b, good->bytes, good->size);
	b[16] ^= 1;
	expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "fingerprint", "fingerprint");
	for (size_t at = 40; at < good->size; at += 7) {
		memcpy(b, good->bytes, good->size);
		b[at] ^= 0x10;
		expect_refused(t, b, good->size, F2D_ERROR_INVALID_VALUE, "checksum", "checksum");
	}
	/* an in-process snapshot given to the portable loader */
	slot mem = {0};
	slot_save(w, &mem);
	expect_refused(t, mem.bytes, mem.size, F2D_ERROR_INVALID_VALUE, "in-process", "kind");

	free(mem.bytes);
}

/* The world settings out of range and absurd counts */
static void corrupt_settings(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* settings out of range */
	expect_patch_refused(t, good, 20, 0, F2D_ERROR_INVALID_VALUE, "iterations", "iterations 0");
	expect_patch_refused(t, good, 16, 1, F2D_ERROR_INVALID_VALUE, "time_step", "time step");
	expect_byte_refused(t, good, 8 + 11 * 4, 2, F2D_ERROR_INVALID_VALUE, "warm",
	                    "warm starting 2");
	expect_byte_refused(t, good, 8 + 11 * 4 + 1, 2, F2D_ERROR_INVALID_VALUE, "enable_sleep",
	                    "enable_sleep 2");
	expect_patch_refused(t, good, 8 + 11 * 4 + 2 + 8, 0, F2D_ERROR_INVALID_VALUE,
	                     "time_to_sleep", "time_to_sleep 0");
	expect_patch_refused(t, good, 90, 6, F2D_ERROR_INVALID_HANDLE, "out-of-range",
	                     "last out-of-range body past the ids");
	/* absurd counts */
	expect_patch_refused(t, good, sp->body_next, F2D_MAX_OBJECTS + 1, F2D_ERROR_CAPACITY,
	                     "F2D_MAX_OBJECTS", "bodies > max");
	expect_patch_refused(t, good, sp->body_next, 0xFFFFFFFFu, F2D_ERROR_CAPACITY,
	                     "F2D_MAX_OBJECTS", "bodies 2^32-1");
	expect_patch_refused(t, good, sp->body_next, F2D_MAX_OBJECTS, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "bodies beyond the bytes");
	expect_patch_refused(t, good, sp->shape_next, 1000000, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "shapes beyond the bytes");
	expect_patch_refused(t, good, sp->joint_next, 5000, F2D_ERROR_INVALID_VALUE, "cannot fit",
	                     "joints beyond the bytes");
	expect_patch_refused(t, good, sp->arbiters, 0x7FFFFFFFu, F2D_ERROR_INVALID_VALUE,
	                     "cannot fit", "arbiters beyond the bytes");
	expect_patch_refused(t, good, sp->body_free, 3, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "free count");
}

/* Body records (re-encoded by the spec with one value changed) and the free lists */
static void corrupt_bodies(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* body values (version 5: the records re-encoded by the spec with one value changed) */
	uint8_t bsec[4 + 110 * SPEC_MAX];
	BODY_CASE(1, x->gen = 0, F2D_ERROR_INVALID_VALUE, "generation", "generation 0");
	BODY_CASE(1, x->flags |= 64u; x->od[0] = F2D_WORLD_LIMIT + F2D_FIX(200) - x->c[0],
	          F2D_ERROR_INVALID_VALUE, "F2D_WORLD_LIMIT", "origin beyond limit");
	BODY_CASE(1, x->c[1] = -F2D_WORLD_LIMIT - F2D_FIX(200), F2D_ERROR_INVALID_VALUE,
	          "F2D_WORLD_LIMIT", "centre beyond limit");
	BODY_CASE(0, x->c[0] = F2D_WORLD_LIMIT + 1, F2D_ERROR_INVALID_VALUE, "F2D_WORLD_LIMIT",
	          "static position beyond limit");
	BODY_CASE(1, x->flags |= 64u; x->od[0] = 0; x->od[1] = 0, F2D_ERROR_INVALID_VALUE,
	          "not canonical", "stored origin equal to the derived one");
	BODY_CASE(1, x->flags |= 512u, F2D_ERROR_INVALID_VALUE, "flags", "unknown body flag");
	BODY_CASE(1, x->q[0] = F2D_MILLI(900), F2D_ERROR_INVALID_VALUE, "rotation",
	          "short rotation");
	BODY_CASE(1, x->q[0] = INT32_MIN, F2D_ERROR_INVALID_VALUE, "rotation",
	          "rotation INT32_MIN");
	{
		uint32_t f = sp->body[1].flags;
		ck_assert(f & 8); /* moving */
		/* a velocity beyond the Gauss-Seidel step's bound (2 max_translation / h) is a
		 * state the soft step leaves (its relax pass follows the last capped
		 * integration): accepted in a world of substep_count 4 (the word set to 4),
		 * refused when the word says 0; INT32_MIN (never out of a saturation) always */
		BODY_CASE(1, x->v[0] = INT32_MIN, F2D_ERROR_INVALID_VALUE, "velocity",
		          "velocity INT32_MIN");
		BODY_CASE(1, x->v[2] = INT32_MIN, F2D_ERROR_INVALID_VALUE, "velocity",
		          "angular velocity INT32_MIN");
		{
			struct spec_body fast[SPEC_MAX];
			memcpy(fast, sp->body, sizeof fast);
			fast[1].v[0] = F2D_FIX(30000);
			fast[1].v[2] = INT32_MAX;
			size_t fsize, flen = spec_encode_bodies(fast, sp->bodies, bsec);
			uint8_t *fb = bodies_replaced(good, sp, bsec, flen, &fsize);
			ck_assert_uint_eq(le32(fb + fsize - 4),
			                  (uint32_t)f2d_default_world_def().substep_count);
			put_le32(fb + fsize - 4, 4); /* made a world of 4 substeps */
			fix_checksum(fb, fsize);
			f2d_world *fw = NULL;
			ck_assert_int_eq(f2d_snapshot_load_new(fb, fsize, NULL, &fw), F2D_OK);
			ck_assert_int_eq(fw->bodies[1].v.x, F2D_FIX(30000));
			ck_assert_int_eq(fw->bodies[1].w, INT32_MAX);
			ck_assert_int_eq(fw->def.substep_count, 4);
			f2d_destroy_world(fw);
			put_le32(fb + fsize - 4, 0);
			fix_checksum(fb, fsize);
			expect_refused(t, fb, fsize, F2D_ERROR_INVALID_VALUE, "Gauss-Seidel",
			               "velocity 30000 in a world of substep_count 0");
			free(fb);
		}
		BODY_CASE(1, x->v[0] = x->v[1] = x->v[2] = 0, F2D_ERROR_INVALID_VALUE, "velocity",
		          "zero velocity flagged");
		ck_assert(f & 128); /* force */
		BODY_CASE(1, x->f[0] = INT32_MIN, F2D_ERROR_INVALID_VALUE, "force",
		          "force INT32_MIN");
		ck_assert(!(f & 16)); /* its own mass record */
		BODY_CASE(1, x->m[0] = 1, F2D_ERROR_MASS_RANGE, "mass", "mass 2^-16");
		BODY_CASE(1, x->m[0] = F2D_FIX(20000), F2D_ERROR_MASS_RANGE, "mass", "mass 20000");
		BODY_CASE(1, x->m[1] = 1, F2D_ERROR_MASS_RANGE, "mass", "inertia tiny");
		BODY_CASE(1, x->m[2] = F2D_FIX(40), F2D_ERROR_MASS_RANGE, "mass",
		          "centre of mass far away");
		expect_byte_refused(t, good, sp->body_flag[1],
		                    (uint8_t)(good->bytes[40 + sp->body_flag[1]] | 6),
		                    F2D_ERROR_INVALID_VALUE, "type", "body type 3");
		BODY_CASE(1, x->flags |= 32u; x->sleep = 0; x->sleep_time = 0,
		          F2D_ERROR_INVALID_VALUE, "sleep",
		          "sleep flag without a valid sleep record");
	}
	/* a dead body with flags */
	expect_byte_refused(t, good, sp->body_flag[4], 8, F2D_ERROR_INVALID_VALUE, "flags",
	                    "dead body flags");
	/* static body flagged moving: refused */
	expect_byte_refused(t, good, sp->body_flag[0], 1 | 8, F2D_ERROR_INVALID_VALUE, NULL,
	                    "static moving");
	/* a varint that is not minimal: body 0's generation (one byte) as two */
	{
		size_t at = 40 + sp->body_rec[0];
		ck_assert_uint_lt(good->bytes[at], 0x80u);
		uint8_t *c = malloc(good->size + 1);
		ck_assert_ptr_nonnull(c);
		memcpy(c, good->bytes, at);
		c[at] = (uint8_t)(good->bytes[at] | 0x80u);
		c[at + 1] = 0;
		memcpy(c + at + 2, good->bytes + at + 1, good->size - at - 1);
		fix_checksum(c, good->size + 1);
		expect_refused(t, c, good->size + 1, F2D_ERROR_INVALID_VALUE, "not minimal",
		               "generation varint not minimal");
		free(c);
	}
	/* free lists: live id, repeated id, never handed out */
	expect_patch_refused(t, good, sp->body_free + 4, 1, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live id in free list");
	expect_patch_refused(t, good, sp->body_free + 8, le32(good->bytes + 40 + sp->body_free + 4),
	                     F2D_ERROR_INVALID_HANDLE, "repeated", "repeated free id");
	expect_patch_refused(t, good, sp->body_free + 4, 99, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "free id out of range");
	expect_patch_refused(t, good, sp->shape_free + 4, 0, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live shape id in free list");
	expect_patch_refused(t, good, sp->joint_free + 4, 0, F2D_ERROR_INVALID_HANDLE, "free list",
	                     "live joint id in free list");
}

/* Shape records: dangling body, bad polygon, circle, material */
static void corrupt_shapes(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* shapes: dangling body, bad polygon, circle, material */
	/* shape 1's body (one varint byte: body - shape 0's body - 1, zigzag coded; shape 0 is
	 * on body 0) */
	ck_assert_uint_eq(sp->shape_mat[1], sp->shape_body[1] + 1);
	expect_byte_refused(t, good, sp->shape_body[1], 2 * (4 - 1), F2D_ERROR_INVALID_HANDLE,
	                    "not alive", "shape on a dead body");
	expect_byte_refused(t, good, sp->shape_body[1], 2 * (50 - 1), F2D_ERROR_INVALID_HANDLE,
	                    "not alive", "shape on no body");
	{
		size_t s1 = sp->shape_rec[1];
		uint8_t f = good->bytes[40 + sp->shape_flag[1]];
		ck_assert(f & 2);    /* polygon */
		ck_assert(f & 16);   /* same material as the ground */
		ck_assert(!(f & 8)); /* own geometry: count after the body */
		size_t count_at = sp->shape_mat[1];
		size_t v = count_at + 1; /* vertex 0 */
		(void)s1;
		uint8_t *c = malloc(good->size);
		ck_assert_ptr_nonnull(c);
		memcpy(c, good->bytes, good->size); /* swap vertices 0 and 2: not CCW/convex */
		memcpy(c + 40 + v, good->bytes + 40 + v + 16, 8);
		memcpy(c + 40 + v + 16, good->bytes + 40 + v, 8);
		fix_checksum(c, good->size);
		expect_refused(t, c, good->size, F2D_ERROR_BAD_POLYGON, "polygon", "not convex");
		free(c);
		expect_byte_refused(t, good, count_at, 2, F2D_ERROR_BAD_POLYGON, "polygon",
		                    "2 vertices");
		expect_byte_refused(t, good, count_at, 200, F2D_ERROR_BAD_POLYGON, "polygon",
		                    "200 vertices");
		expect_patch_refused(t, good, v, (uint32_t)F2D_FIX(600), F2D_ERROR_BAD_POLYGON,
		                     "polygon", "vertex beyond 512 m");
		expect_patch_refused(t, good, v, (uint32_t)-F2D_FIX(40), F2D_ERROR_MASS_RANGE,
		                     "dynamic", "dynamic shape beyond 32 m");
		/* shape 2 (triangle) has its own material: density, friction after the body */
		size_t s2 = sp->shape_mat[2];
		ck_assert(!(good->bytes[40 + sp->shape_flag[2]] & 16));
		expect_patch_refused(t, good, s2 + 4, (uint32_t)F2D_FIX(5), F2D_ERROR_INVALID_VALUE,
		                     "friction", "friction 5");
		expect_patch_refused(t, good, s2, 0, F2D_ERROR_INVALID_VALUE, "density",
		                     "density 0");
		/* shape 3: a circle with shape 2's material: centre, radius after the body */
		size_t s3 = sp->shape_mat[3];
		uint8_t f3 = good->bytes[40 + sp->shape_flag[3]];
		ck_assert(!(f3 & 2));
		ck_assert(f3 & 16);
		expect_patch_refused(t, good, s3 + 8, 1, F2D_ERROR_INVALID_VALUE, "circle",
		                     "radius 1 LSB");
		expect_byte_refused(t, good, sp->shape_flag[3], f3 | 8, F2D_ERROR_INVALID_VALUE,
		                    "another type", "circle same geometry as a triangle");
		expect_byte_refused(t, good, sp->shape_flag[0], 1 | 2 | 16, F2D_ERROR_INVALID_VALUE,
		                    "does not exist", "first shape same as previous");
	}
}

/* Joint records: dangling and bad values */
static void corrupt_joints(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* joints: dangling and bad values */
	{
		size_t j0 = sp->joint_rec[0];
		expect_patch_refused(t, good, j0 + 5, 4, F2D_ERROR_INVALID_HANDLE, "live bodies",
		                     "joint on a dead body");
		expect_patch_refused(t, good, j0 + 9, 1, F2D_ERROR_INVALID_HANDLE, "live bodies",
		                     "joint on one body twice");
		expect_patch_refused(t, good, j0 + 13, (uint32_t)F2D_FIX(100),
		                     F2D_ERROR_INVALID_VALUE, "anchor", "anchor 100 m");
		expect_patch_refused(t, good, j0 + 29, (uint32_t)F2D_FIX(4),
		                     F2D_ERROR_INVALID_VALUE, "angle", "reference angle 4");
		expect_patch_refused(t, good, j0 + 33, (uint32_t)F2D_MILLI(600),
		                     F2D_ERROR_INVALID_VALUE, "angle", "lower > upper");
		expect_patch_refused(t, good, j0 + 45, (uint32_t)-1, F2D_ERROR_INVALID_VALUE,
		                     "motor", "negative torque");
		expect_patch_refused(t, good, j0 + 61, (uint32_t)-1, F2D_ERROR_INVALID_VALUE,
		                     "impulse", "negative lower impulse");
	}
}

/* Arbiter records: dangling, values, canonical varints */
static void corrupt_arbiters(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)b;
	/* arbiters: dangling, values, canonical varints */
	{
		ck_assert_uint_le(sp->arbiter_count, SPEC_MAX);
		uint8_t sec[4 + 140 * SPEC_MAX];
		/* the spec's encoder gives the library's bytes: a changed case is that change only */
		ck_assert_uint_eq(spec_encode_arbiters(sp->arb, sp->arbiter_count, sec),
		                  sp->options - sp->arbiters);
		ck_assert(
		    memcmp(sec, good->bytes + 40 + sp->arbiters, sp->options - sp->arbiters) == 0);
		ARB_CASE(x->b = 4, F2D_ERROR_INVALID_HANDLE, "live shapes", "arbiter on a dead shape");
		ARB_CASE(x->b = 1000, F2D_ERROR_INVALID_HANDLE, "live shapes",
		         "arbiter on no shape");
		ARB_CASE(x->a = 1000; x->b = 1001, F2D_ERROR_INVALID_HANDLE, "live shapes",
		         "arbiter beyond the shapes");
		ARB_CASE(x->friction = (uint32_t)F2D_FIX(5), F2D_ERROR_INVALID_VALUE, "friction",
		         "arbiter friction");
		ARB_CASE(x->restitution = (uint32_t)F2D_FIX(2), F2D_ERROR_INVALID_VALUE,
		         "restitution", "arbiter restitution");
		ARB_CASE(x->pn[0] = 0x80000000u, F2D_ERROR_INVALID_VALUE, "impulse",
		         "negative normal impulse");
		/* the first record claims the previous material: there is none */
		size_t len = spec_encode_arbiters(sp->arb, sp->arbiter_count, sec);
		sec[4] |= 1u;
		expect_arbiters_refused(t, good, sp, sec, len, F2D_OK, NULL,
		                        "first arbiter with the previous material");
		/* a varint with a zero last byte (not minimal) */
		uint8_t *big = malloc(len + 1);
		ck_assert_ptr_nonnull(big);
		memcpy(big, sec, 4);
		big[4] = (uint8_t)(sec[4] & ~1u) | 0x80u; /* head as two bytes */
		big[5] = 0;
		ck_assert(sec[4] < 0x80u);
		memcpy(big + 6, sec + 5, len - 5);
		expect_arbiters_refused(t, good, sp, big, len + 1, F2D_ERROR_INVALID_VALUE,
		                        "minimal", "non-minimal varint");
		free(big);
		/* the material written again when it equals the previous one */
		if (sp->arbiter_count >= 2 && sp->arb[1].friction == sp->arb[0].friction &&
		    sp->arb[1].restitution == sp->arb[0].restitution) {
			size_t a1 = sp->arb_rec[1] - sp->arbiters;
			uint8_t *c = malloc(len + 10);
			ck_assert_ptr_nonnull(c);
			ck_assert(sec[a1] & 1u);
			size_t o = 0;
			memcpy(c, sec, a1);
			o = a1;
			c[o++] = (uint8_t)(sec[a1] & ~1u); /* head, same cleared (one byte) */
			ck_assert(sec[a1] < 0x80u);
			size_t gap_at = a1 + 1, gap_len = 1;
			while (sec[gap_at + gap_len - 1] & 0x80u) {
				++gap_len;
			}
			memcpy(c + o, sec + gap_at, gap_len);
			o += gap_len;
			o += spec_put_var(c + o, sp->arb[0].friction);
			o += spec_put_var(c + o, sp->arb[0].restitution);
			memcpy(c + o, sec + gap_at + gap_len, len - gap_at - gap_len);
			o += len - gap_at - gap_len;
			expect_arbiters_refused(t, good, sp, c, o, F2D_ERROR_INVALID_VALUE,
			                        "canonical", "material repeated");
			free(c);
		}
		/* any feature id round-trips (the bit permutation is a bijection): load, compare,
		 * save again to the same bytes */
		{
			struct spec_arb arb[SPEC_MAX];
			memcpy(arb, sp->arb, sizeof arb);
			arb[0].id[0] = 0xDEADBEEFu;
			arb[0].id[1] = 0x0000000Eu;
			size_t alen = spec_encode_arbiters(arb, sp->arbiter_count, sec);
			size_t head = 40 + sp->arbiters, tail = good->size - 40 - sp->options;
			size_t size = head + alen + tail;
			uint8_t *b2 = malloc(size), *b3 = malloc(size + 64);
			ck_assert(b2 != NULL && b3 != NULL);
			memcpy(b2, good->bytes, head);
			memcpy(b2 + head, sec, alen);
			memcpy(b2 + head + alen, good->bytes + 40 + sp->options, tail);
			fix_checksum(b2, size);
			f2d_world *l = NULL;
			CHECK_OK(f2d_snapshot_load_new(b2, size, NULL, &l));
			ck_assert_uint_eq(l->arbiters[0].points[0].id, 0xDEADBEEFu);
			if (l->arbiters[0].count == 2) {
				ck_assert_uint_eq(l->arbiters[0].points[1].id, 0x0000000Eu);
			}
			size_t n3 = 0;
			CHECK_OK(f2d_snapshot_save_portable(l, b3, size + 64, &n3));
			ck_assert_uint_eq(n3, size);
			ck_assert(memcmp(b2, b3, size) == 0);
			f2d_destroy_world(l);
			free(b2);
			free(b3);
		}
		/* more arbiters than the bytes hold */
		put_le32(sec, 0x7FFFFFFFu);
		expect_arbiters_refused(t, good, sp, sec, len, F2D_ERROR_INVALID_VALUE,
		                        "cannot fit", "arbiters beyond the bytes");
	}
}

/* Random damage with a fixed checksum */
static void corrupt_random(target *t, const slot *good, const spec *sp, uint8_t *b)
{
	(void)sp;
	/* random damage with a fixed checksum: never accepted silently unless canonical */
	uint32_t rng = 99;
	for (int i = 0; i < 3000; ++i) {
		memcpy(b, good->bytes, good->size);
		size_t at = 40 + rng_next(&rng) % (good->size - 40);
		b[at] = (uint8_t)rng_next(&rng);
		fix_checksum(b, good->size);
		t->w->error[0] = '\0';
		f2d_result r = f2d_snapshot_load(t->w, b, good->size);
		if (r != F2D_OK) {
			ck_assert(f2d_world_last_error(t->w)[0] != '\0');
			ck_assert_uint_eq(f2d_world_hash(t->w), t->hash);
			continue;
		}
		/* accepted: canonical, so re-saving gives the bytes back; then restore t */
		slot again = {0};
		portable_save(t->w, &again);
		ck_assert(again.size == good->size && memcmp(again.bytes, b, good->size) == 0);
		free(again.bytes);
		f2d_destroy_world(t->w);
		t->w = make_scene("pyramid");
		for (int k = 0; k < 40; ++k) {
			f2d_world_step(t->w);
		}
		ck_assert_uint_eq(f2d_world_hash(t->w), t->hash);
	}
}

START_TEST(corrupt_portable_snapshots_are_refused)
{
	slot good = {0};
	spec sp;
	target t;
	f2d_world *w = corrupt_setup(&good, &sp, &t);
	uint8_t *b = malloc(good.size + 16);
	ck_assert_ptr_nonnull(b);

	corrupt_header(&t, &good, &sp, b, w);
	corrupt_settings(&t, &good, &sp, b);
	corrupt_bodies(&t, &good, &sp, b);
	corrupt_shapes(&t, &good, &sp, b);
	corrupt_joints(&t, &good, &sp, b);
	corrupt_arbiters(&t, &good, &sp, b);
	corrupt_random(&t, &good, &sp, b);
	/* NULL arguments */
	ck_assert_int_eq(f2d_snapshot_load(NULL, good.bytes, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_load(t.w, NULL, good.size), F2D_ERROR_NULL_ARGUMENT);
	ck_assert_int_eq(f2d_snapshot_load_new(good.bytes, good.size, NULL, NULL),
	                 F2D_ERROR_NULL_ARGUMENT);
	ck_assert_uint_eq(f2d_world_hash(t.w), t.hash);
	/* and the good bytes load */
	CHECK_OK(f2d_snapshot_load(t.w, good.bytes, good.size));
	ck_assert_uint_eq(f2d_world_hash(t.w), f2d_world_hash(w));
	free(b);
	free(good.bytes);
	f2d_destroy_world(t.w);
	f2d_destroy_world(w);
}
END_TEST

/* The portable loader recomputes every dynamic body's mass from its shapes (as body.c does) and
 * bounds the stored friction impulses by what the solver can produce. */
/* The mass records against the shapes and the friction impulses against the friction */
static void mass_and_friction_cases(target *t, const slot *good, const spec *sp, const f2d_world *w)
{
	/* body 1: moving, with a force, then its own mass record (see the test above) */
	ck_assert(!(sp->body[1].flags & 16u));
	ck_assert_int_eq(sp->body[1].m[0], w->bodies[1].mass);
	uint8_t bsec[4 + 110 * SPEC_MAX];
	BODY_CASE(1, x->m[0] = w->bodies[1].mass + 1, F2D_ERROR_MASS_RANGE, "differ",
	          "mass + 1 LSB");
	BODY_CASE(1, x->m[0] = 2 * w->bodies[1].mass, F2D_ERROR_MASS_RANGE, "differ",
	          "mass doubled");
	BODY_CASE(1, x->m[1] = w->bodies[1].inertia - 1, F2D_ERROR_MASS_RANGE, "differ",
	          "inertia - 1 LSB");
	/* the origin stored, so that moving the centre of mass keeps the origin */
	BODY_CASE(1, x->m[2] = F2D_MILLI(100); x->flags |= 64u;
	          x->od[0] = w->bodies[1].origin.x - x->c[0];
	          x->od[1] = w->bodies[1].origin.y - x->c[1],
	          F2D_ERROR_MASS_RANGE, "differ", "centre moved");
	/* 1 kg that does not rotate is what a body without usable shapes has, not this one */
	BODY_CASE(1, x->m[0] = F2D_ONE; x->m[1] = 0; x->m[2] = x->m[3] = 0, F2D_ERROR_MASS_RANGE,
	          "differ", "fallback mass on a body with shapes");
	/* friction impulses: |pt| <= round16(friction INT32_MAX), 0 without friction */
	ck_assert_uint_le(sp->arbiter_count, SPEC_MAX);
	uint8_t sec[4 + 140 * SPEC_MAX];
	ARB_CASE(x->friction = 0; x->pt[0] = 1, F2D_ERROR_INVALID_VALUE, "impulse",
	         "friction impulse without friction");
	ARB_CASE(x->friction = (uint32_t)F2D_MILLI(500); x->pt[0] = INT32_MAX,
	         F2D_ERROR_INVALID_VALUE, "impulse",
	         "friction impulse beyond friction x INT32_MAX");
	ARB_CASE(x->friction = (uint32_t)F2D_MILLI(500); x->pt[0] = -INT32_MAX,
	         F2D_ERROR_INVALID_VALUE, "impulse",
	         "negative friction impulse beyond friction x INT32_MAX");
}

/* ---- the recycled manifolds' residuals (portable version 9) ---- */

/* a group's length (snapshot_internal.h f2d_rs_group) */
static uint32_t spec_group_len(uint32_t g, uint32_t count)
{
	return g == 3 || g == 6 ? count : (g == 5 ? 2 * count : (g == 7 ? 2 * (count - 1) : 2));
}

/* where the block's values sit by group: group 0 (first, other), 1 (first, other), 2 (x, y) */
static const int spec_block_at[3][2] = {{0, 4}, {1, 5}, {2, 3}};

/* x's residuals by group (full[g][k]; mask: bit g for group g, groups 0..2 always), and back
 * (the groups 3..7 named by mask) */
static void spec_expand(const struct spec_arb *x, int32_t full[8][4])
{
	memset(full, 0, 8 * sizeof full[0]);
	for (int g = 0; g < 3; ++g) {
		full[g][0] = x->block[spec_block_at[g][0]];
		full[g][1] = x->block[spec_block_at[g][1]];
	}
	uint32_t o = 0;
	for (uint32_t g = 3; g < 8; ++g) {
		for (uint32_t k = 0; (x->mask >> (g - 3) & 1u) != 0 && k < spec_group_len(g, x->count);
		     ++k) {
			full[g][k] = x->manifold[o++];
		}
	}
}
static void spec_compress(struct spec_arb *x, int32_t full[8][4], uint32_t mask)
{
	for (int g = 0; g < 3; ++g) {
		x->block[spec_block_at[g][0]] = full[g][0];
		x->block[spec_block_at[g][1]] = full[g][1];
	}
	x->mask = mask >> 3;
	x->residuals = 0;
	for (uint32_t g = 3; g < 8; ++g) {
		for (uint32_t k = 0; (mask >> g & 1u) != 0 && k < spec_group_len(g, x->count); ++k) {
			x->manifold[x->residuals++] = full[g][k];
		}
	}
}

/* the first recycled arbiter's residuals changed by the caller (full, mask), encoded by the spec */
#define RESIDUAL_CASE(changes, want, needle, what)                                                 \
	do {                                                                                       \
		struct spec_arb arb_[SPEC_MAX];                                                    \
		memcpy(arb_, sp.arb, sizeof arb_);                                                 \
		struct spec_arb *x = &arb_[ri];                                                    \
		int32_t full[8][4];                                                                \
		spec_expand(x, full);                                                              \
		uint32_t mask = x->mask << 3;                                                      \
		changes;                                                                           \
		spec_compress(x, full, mask);                                                      \
		size_t len_ = spec_encode_arbiters(arb_, sp.arbiter_count, sec);                   \
		expect_arbiters_refused(&t, &good, &sp, sec, len_, want, needle, what);            \
	} while (0)

START_TEST(portable_recycled_manifold_is_canonical)
{
	/* a scene (recycling on by default) with recycled arbiters of one and two points, at most
	 * SPEC_MAX objects of each kind */
	f2d_world *w = make_scene("arena");
	for (int i = 0; i < 90; ++i) {
		f2d_world_step(w);
	}
	slot good = {0};
	portable_save(w, &good);
	spec sp;
	spec_parse(good.bytes + 40, good.size - 40, &sp);
	ck_assert_uint_le(sp.arbiter_count, SPEC_MAX);
	uint32_t ri = SPEC_MAX, r2 = SPEC_MAX;
	for (uint32_t i = 0; i < sp.arbiter_count; ++i) {
		ri = ri == SPEC_MAX && sp.arb[i].recycled ? i : ri;
		r2 = r2 == SPEC_MAX && sp.arb[i].recycled && sp.arb[i].count == 2 ? i : r2;
	}
	ck_assert_uint_lt(ri, SPEC_MAX);
	ck_assert_uint_lt(r2, SPEC_MAX);
	uint8_t sec[4 + 140 * SPEC_MAX];
	ck_assert_uint_eq(spec_encode_arbiters(sp.arb, sp.arbiter_count, sec),
	                  sp.options - sp.arbiters);
	ck_assert(memcmp(sec, good.bytes + 40 + sp.arbiters, sp.options - sp.arbiters) == 0);
	target t;
	t.w = make_scene("pyramid");
	for (int i = 0; i < 40; ++i) {
		f2d_world_step(t.w);
	}
	t.hash = f2d_world_hash(t.w);
	/* a group named by the mask whose residuals are all zero (each group in turn) */
	for (uint32_t g = 3; g < 8; ++g) {
		RESIDUAL_CASE(ri = r2; x = &arb_[ri]; spec_expand(x, full); mask = x->mask << 3;
		              memset(full[g], 0, sizeof full[g]); mask |= 1u << g,
		              F2D_ERROR_INVALID_VALUE, "names zeros", "a mask bit naming zeros");
	}
	/* a one-point manifold's mask naming the second point's r_b (no values) */
	for (uint32_t i = 0; i < sp.arbiter_count; ++i) {
		if (sp.arb[i].recycled && sp.arb[i].count == 1) {
			RESIDUAL_CASE(x = &arb_[i]; spec_expand(x, full); mask = x->mask << 3 | 1u << 7,
			              F2D_ERROR_INVALID_VALUE, "names zeros",
			              "r_b of a second point that is not there");
			break;
		}
	}
	/* a bit past the groups; kind 2 (more groups) with an empty mask; kind 3 */
	RESIDUAL_CASE(mask |= 1u << 8, F2D_ERROR_INVALID_VALUE, "mask", "mask bit 8");
	RESIDUAL_CASE(mask &= 7u; x->kind_override = 2, F2D_ERROR_INVALID_VALUE, "mask 0",
	              "kind 2 with mask 0");
	RESIDUAL_CASE(x->kind_override = 3, F2D_ERROR_INVALID_VALUE, "kind 3", "kind 3");
	/* rotation and normal residuals beyond +-L (each would wrap onto a canonical one; the
	 * rotations' take the escaped block) */
	RESIDUAL_CASE(full[0][0] = 65536 + 257, F2D_ERROR_INVALID_VALUE, "out of range",
	              "rotation residual above L");
	RESIDUAL_CASE(full[1][1] = -(65536 + 257), F2D_ERROR_INVALID_VALUE, "out of range",
	              "rotation residual below -L");
	RESIDUAL_CASE(full[4][0] = 65536 + 257; mask |= 16u, F2D_ERROR_INVALID_VALUE,
	              "out of range", "normal residual above L");
	/* the block not in its one form: a width wider than the values need, the escape for
	 * values that fit, another escape byte, a padding bit set */
	RESIDUAL_CASE(x->wide_extra = 1, F2D_ERROR_INVALID_VALUE, "not canonical", "wide + 1");
	RESIDUAL_CASE(x->narrow_extra = 1, F2D_ERROR_INVALID_VALUE, "not canonical",
	              "narrow + 1");
	RESIDUAL_CASE(x->block_escape = true, F2D_ERROR_INVALID_VALUE, "not canonical",
	              "escaped block that fits");
	RESIDUAL_CASE(full[2][0] = 1 << 20; x->wide_extra = 1, F2D_ERROR_INVALID_VALUE,
	              "not canonical", "escape byte 0x81");
	RESIDUAL_CASE(full[0][0] = 0; full[1][0] = 0; full[2][0] = 0; full[2][1] = -1;
	              full[0][1] = 0; full[1][1] = 0; x->block_pad = true,
	              F2D_ERROR_INVALID_VALUE, "padding", "a padding bit set");
	/* the mask as a non-minimal varint */
	RESIDUAL_CASE(mask |= 1u << 3; full[3][0] = 5; x->pad_mask = true, F2D_ERROR_INVALID_VALUE,
	              "minimal", "padded mask");
	/* any residual within range is a canonical manifold: it loads, re-saves to the same bytes,
	 * and the hash sees it (an anchor, a rotation at +-L, a normal component) */
	/* (a rotation at +-L, dc0 far off and a narrow value past 7 bits take the escaped block) */
	const int32_t changes[7][3] = {{2, 0, 1},       {5, 1, -3},   {0, 0, 65536 + 256},
	                               {4, 1, -7},      {2, 1, 1 << 20}, {1, 1, 100},
	                               {0, 1, 30}};
	for (int c = 0; c < 7; ++c) {
		struct spec_arb arb_[SPEC_MAX];
		memcpy(arb_, sp.arb, sizeof arb_);
		struct spec_arb *x = &arb_[r2];
		int32_t full[8][4];
		spec_expand(x, full);
		full[changes[c][0]][changes[c][1]] += changes[c][2];
		spec_compress(x, full, x->mask << 3 | 1u << changes[c][0]);
		size_t len = spec_encode_arbiters(arb_, sp.arbiter_count, sec);
		size_t head = 40 + sp.arbiters, tail = good.size - 40 - sp.options;
		slot b = {0}, r = {0};
		b.size = head + len + tail;
		b.bytes = malloc(b.size);
		ck_assert_ptr_nonnull(b.bytes);
		memcpy(b.bytes, good.bytes, head);
		memcpy(b.bytes + head, sec, len);
		memcpy(b.bytes + head + len, good.bytes + 40 + sp.options, tail);
		fix_checksum(b.bytes, b.size);
		f2d_world *l = NULL;
		CHECK_OK(f2d_snapshot_load_new(b.bytes, b.size, NULL, &l));
		ck_assert_uint_ne(f2d_world_hash(l), f2d_world_hash(w));
		portable_save(l, &r);
		ck_assert_msg(r.size == b.size && memcmp(r.bytes, b.bytes, b.size) == 0,
		              "change %d: re-saving changes the bytes", c);
		free(b.bytes);
		free(r.bytes);
		f2d_destroy_world(l);
	}
	f2d_destroy_world(t.w);
	f2d_destroy_world(w);
	free(good.bytes);
}
END_TEST

/* The unit-circle prediction (bodies' q.c, cached rotations' other component) by Newton's
 * method equals round(sqrt(2^32 - first^2)) by the digit-by-digit f2d_isqrt64_round for every
 * first within +-2^17 (past +-L of the rotation range) and at the int32 edges, on both sides. */
START_TEST(portable_unit_other_is_exact)
{
	const int64_t one = (int64_t)1 << 32;
	const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -(1 << 24), 1 << 24, INT32_MAX - 1,
	                         INT32_MAX};
	for (int64_t f = -(1 << 17) - 8; f <= (1 << 17) + 8 + 6; ++f) {
		int32_t first = f <= (1 << 17) + 8 ? (int32_t)f : edges[f - (1 << 17) - 9];
		int64_t f2 = (int64_t)first * first;
		int32_t want = (int32_t)f2d_isqrt64_round(f2 < one ? (uint64_t)(one - f2) : 0u);
		int32_t got = f2d_snapshot_unit_other(first, 1), neg = f2d_snapshot_unit_other(first, -5);
		if (got != want || neg != -want || f2d_snapshot_unit_other(first, 0) != want) {
			ck_abort_msg("first %d: %d / %d, want %d", (int)first, (int)got, (int)neg,
			             (int)want);
		}
	}
}
END_TEST

START_TEST(portable_mass_and_friction_impulse_are_checked)
{
	slot good = {0};
	spec sp;
	target t;
	f2d_world *w = corrupt_setup(&good, &sp, &t);
	mass_and_friction_cases(&t, &good, &sp, w);
	ck_assert_uint_eq(f2d_world_hash(t.w), t.hash);
	free(good.bytes);
	f2d_destroy_world(t.w);
	f2d_destroy_world(w);
}
END_TEST

/* A body whose remaining shapes are out of the mass range falls back to 1 kg that does not
 * rotate (destroy_shape): a reachable state, so the portable loader accepts it. */
START_TEST(portable_fallback_mass_round_trip)
{
	f2d_world *w = NULL;
	f2d_world_def def = f2d_default_world_def();
	CHECK_OK(f2d_create_world(&def, &w));
	f2d_body_def bd = f2d_default_body_def();
	bd.type = F2D_DYNAMIC_BODY;
	f2d_body_id body;
	CHECK_OK(f2d_create_body(w, &bd, &body));
	f2d_shape_def sd = f2d_default_shape_def();
	f2d_polygon p;
	f2d_shape_id big, tiny;
	CHECK_OK(f2d_make_box(F2D_MILLI(500), F2D_MILLI(500), &p));
	CHECK_OK(f2d_create_polygon_shape(w, body, &sd, &p, &big));
	sd.density = F2D_MILLI(10);
	f2d_circle circ = {{F2D_MILLI(200), 0}, F2D_MILLI(50)};
	CHECK_OK(f2d_create_circle_shape(w, body, &sd, &circ, &tiny));
	CHECK_OK(f2d_destroy_shape(w, big));
	ck_assert_int_eq(w->bodies[0].mass, F2D_ONE);
	ck_assert_int_eq(w->bodies[0].inertia, 0);
	for (int i = 0; i < 10; ++i) {
		f2d_world_step(w);
	}
	slot s = {0};
	portable_save(w, &s);
	f2d_world *v = NULL;
	CHECK_OK(f2d_snapshot_load_new(s.bytes, s.size, NULL, &v));
	ck_assert_uint_eq(f2d_world_hash(v), f2d_world_hash(w));
	free(s.bytes);
	f2d_destroy_world(v);
	f2d_destroy_world(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_portable");
	TCase *tc = tcase_create("snapshot_portable");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, portable_round_trip_every_scene);
	tcase_add_test(tc, portable_layout_matches_spec);
	tcase_add_test(tc, corrupt_portable_snapshots_are_refused);
	tcase_add_test(tc, portable_mass_and_friction_impulse_are_checked);
	tcase_add_test(tc, portable_fallback_mass_round_trip);
	tcase_add_test(tc, portable_recycled_manifold_is_canonical);
	tcase_add_test(tc, portable_unit_other_is_exact);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
