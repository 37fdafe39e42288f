/* fix2d contact solver: the colouring of the active arbiters and the batch layout the passes
 * solve (which arbiter in which lane of which batch, the list of bodies in contact), kept from
 * one step to the next while every arbiter's colouring key is the same. The order this gives
 * and why it is free to group a colour's arbiters in lanes: solver.c's head comment.
 * SPDX-License-Identifier: MIT
 *
 * Test-only switches (tests/test_solver_paths.c, as in solver.c): F2D_CONTACT_EXACT_ONLY colours
 * every step; F2D_CONTACT_COUNT_PATHS counts colourings kept and built (f2d_coloring_counts,
 * whose lane counts solver.c's pre-step adds); F2D_NO_SIMD: no gathered key compare.
 * F2D_HASH_CHECK (sanitizer builds) colours again whenever the layout is kept and aborts if it
 * differs.
 */
#include "core.h"
#include "solver_internal.h"

#include <stddef.h>
#ifdef F2D_HASH_CHECK
#include <stdio.h>
#include <stdlib.h>
#endif

/* ---- colouring and batches ---- */

#define OVERFLOW_COLOR F2D_OVERFLOW_COLOR

/* Batches needed for n arbiters at most: per colour ceil(count / F2D_LANES), which sums to at
 * most n / F2D_LANES + 64 (one partial batch per colour), and never more than n. */
bool f2d_solver_reserve(f2d_world *w, int32_t arbiters)
{
	int32_t batches = arbiters / F2D_LANES + 64;
	batches = batches < arbiters ? batches : (arbiters > 0 ? arbiters : 1);
	return f2d_grow_aligned(w, (void **)&w->batches, &w->batch_capacity, batches,
	                        sizeof(f2d_contact_batch)) &&
	       f2d_grow(w, (void **)&w->body_colors, &w->body_color_capacity, w->body_capacity,
	                sizeof(uint64_t)) &&
	       f2d_grow(w, (void **)&w->arbiter_colors, &w->arbiter_color_capacity,
	                arbiters > 0 ? arbiters : 1, sizeof(uint64_t)) &&
	       f2d_grow(w, (void **)&w->solver_vel, &w->solver_vel_capacity, w->body_capacity,
	                sizeof *w->solver_vel) &&
	       f2d_grow(w, (void **)&w->solver_disp, &w->solver_disp_capacity, w->body_capacity,
	                sizeof *w->solver_disp) &&
	       f2d_grow(w, (void **)&w->body_list, &w->body_list_capacity, w->body_capacity,
	                sizeof(int32_t));
}

/* The soft step's colour for an arbiter between a body that moves (d) and one that cannot
 * (static or kinematic): the highest colour from 62 down to 1 that d does not have yet, or the
 * overflow colour (Box2D v3.2's b2AddContactToGraph: "static constraint colors build from the
 * end to get higher priority than dyn-dyn constraints"). Gauss-Seidel solves them after the
 * arbiters between moving bodies of the same pass: each pass ends with the contacts against
 * the ground. Solved first (colour 0, the greedy rule), the 100-row pyramid's top drifts
 * -0.59 m by step 600 and -1.03 m by the time it sleeps; solved last (with the static
 * frequency 5f/2, f2d_soft_make) -0.26 m and -0.48 m, asleep by step 1,400 (README "The soft
 * step, built"). The substep_count = 0 solver keeps the greedy rule for every arbiter (its
 * bits are unchanged). */
static int32_t take_color_from_end(uint64_t *used, int32_t d)
{
	for (int32_t c = OVERFLOW_COLOR - 1; c >= 1; --c) {
		uint64_t bit = (uint64_t)1 << c;
		if ((used[d] & bit) == 0) {
			used[d] |= bit;
			return c;
		}
	}
	return OVERFLOW_COLOR;
}

/* ---- reuse of the last colouring ----
 * The colouring and the batch layout (which arbiter in which lane of which batch, body_list)
 * are a function of the sequence, in index order, of the arbiters' keys: whether the arbiter
 * is active, its two body indices, which of them can move (dynamic), and which solver colours
 * (the soft step's take_color_from_end). A resting or slowly changing scene keeps that sequence
 * from one step to the next: then the last layout is the one colour_arbiters would build, and
 * is kept (a pass that compares one word per arbiter instead of the colouring and the
 * packing). Exact: the key holds every input of the colouring (body indices are below
 * F2D_MAX_OBJECTS = 2^20 < 2^26), so equal keys give equal layouts; the sanitizer builds
 * (F2D_HASH_CHECK, their debug switch) colour again every time the layout is kept and abort if
 * it differs. Nothing else reads the layout's arrays between steps; a clone starts with
 * colored_count 0 (snapshot.c), which only a world without arbiters (an empty layout) matches.
 *
 * A key: bits 8..33 body_a, 34..59 body_b, 60 body_b dynamic, 61 body_a dynamic, 62 the soft
 * step, 63 active; 0 for an inactive arbiter. Bits 0..7 of arbiter_colors[i] hold the colour
 * the colouring gave it (not part of the key). */
#define KEY_COLOR_MASK ((uint64_t)0xFF)
#if F2D_MAX_OBJECTS > (1 << 26)
#error "color_key packs body indices in 26 bits"
#endif

static inline uint64_t color_key(const f2d_world *w, const f2d_arbiter *arb, bool soft)
{
	if (!arb->active) {
		return 0;
	}
	uint64_t da = w->bodies[arb->body_a].type == F2D_DYNAMIC_BODY;
	uint64_t db = w->bodies[arb->body_b].type == F2D_DYNAMIC_BODY;
	return (uint64_t)1 << 63 | (uint64_t)soft << 62 | da << 61 | db << 60 |
	       (uint64_t)(uint32_t)arb->body_b << 34 | (uint64_t)(uint32_t)arb->body_a << 8;
}

/* Whether arbiters from .. arbiter_count - 1 have the keys they had at the last colouring. */
static bool same_keys_from(const f2d_world *w, bool soft, int32_t from)
{
	const uint64_t *key = w->arbiter_colors;
	for (int32_t i = from; i < w->arbiter_count; ++i) {
		if ((key[i] & ~KEY_COLOR_MASK) != color_key(w, &w->arbiters[i], soft)) {
			return false;
		}
	}
	return true;
}

#if F2D_X86_SIMD && !defined(F2D_CONTACT_EXACT_ONLY)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/* same_keys on the arbiters 8 at a time, up to the last multiple of 8: the same key as
 * color_key from the same fields, by gathers (the arbiters' active flag, body_a, body_b; the
 * bodies' types: a masked gather, inactive arbiters read no body), compared as its two 32-bit
 * words in 8 lanes each:
 *   high word (key bits 32..63): 1 << 31 | soft << 30 | da << 29 | db << 28 | body_b << 2
 *                                | body_a >> 24
 *   low word (bits 0..31): body_a << 8 (mod 2^32), the stored colour (bits 0..7) masked off
 * (body indices below 2^26), both 0 for an inactive arbiter. Returns how many arbiters have
 * their keys, or -1 at the first group with one that differs. Little-endian (x86): the flag is
 * byte offsetof % 4 of its 32-bit word, a key's low word the first of its two. */
_Static_assert(offsetof(f2d_arbiter, body_a) % 4 == 0 && offsetof(f2d_arbiter, body_b) % 4 == 0 &&
                   sizeof(f2d_arbiter) % 4 == 0 && sizeof(bool) == 1,
               "same_keys_avx2 gathers 32-bit words of an arbiter");
_Static_assert(offsetof(f2d_body, type) % 4 == 0 && sizeof(f2d_body_type) == 4 &&
                   sizeof(f2d_body) % 4 == 0 && sizeof(f2d_body) / 4 < 64,
               "same_keys_avx2 gathers a body's type (index body * words < 2^26)");
/* The keys of arbiters i .. i + 7 as their two 32-bit words (above), in 8 lanes each. */
typedef struct key8 {
	__m256i lo, hi;
} key8;

AVX2 static inline key8 keys8_avx2(const f2d_world *w, bool soft, int32_t i)
{
	const int32_t aw = (int32_t)(sizeof(f2d_arbiter) / 4), bw = (int32_t)(sizeof(f2d_body) / 4);
	const int32_t act_word = (int32_t)(offsetof(f2d_arbiter, active) / 4);
	const int32_t act_shift = (int32_t)(offsetof(f2d_arbiter, active) % 4 * 8);
	const __m256i idx =
	    _mm256_setr_epi32(0, aw, 2 * aw, 3 * aw, 4 * aw, 5 * aw, 6 * aw, 7 * aw);
	const __m256i zero = _mm256_setzero_si256(), dyn = _mm256_set1_epi32(F2D_DYNAMIC_BODY);
	const __m256i words = _mm256_set1_epi32(bw);
	const __m256i type = _mm256_set1_epi32(offsetof(f2d_body, type) / 4);
	const __m256i top = _mm256_set1_epi32((int32_t)(0x80000000u | (uint32_t)soft << 30));
	const __m256i bit_da = _mm256_set1_epi32(1 << 29), bit_db = _mm256_set1_epi32(1 << 28);
	const int *bodies = (const int *)(const void *)w->bodies;
	const int *a = (const int *)(const void *)&w->arbiters[i];
	__m256i act = _mm256_i32gather_epi32(a + act_word, idx, 4);
	act = _mm256_and_si256(_mm256_srli_epi32(act, act_shift), _mm256_set1_epi32(0xFF));
	__m256i on = _mm256_xor_si256(_mm256_cmpeq_epi32(act, zero), _mm256_set1_epi32(-1));
	__m256i ba = _mm256_i32gather_epi32(a + offsetof(f2d_arbiter, body_a) / 4, idx, 4);
	__m256i bb = _mm256_i32gather_epi32(a + offsetof(f2d_arbiter, body_b) / 4, idx, 4);
	__m256i ta = _mm256_mask_i32gather_epi32(
	    zero, bodies, _mm256_add_epi32(_mm256_mullo_epi32(ba, words), type), on, 4);
	__m256i tb = _mm256_mask_i32gather_epi32(
	    zero, bodies, _mm256_add_epi32(_mm256_mullo_epi32(bb, words), type), on, 4);
	__m256i hi = _mm256_or_si256(
	    _mm256_or_si256(top, _mm256_slli_epi32(bb, 2)),
	    _mm256_or_si256(_mm256_srli_epi32(ba, 24),
	                    _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi32(ta, dyn), bit_da),
	                                    _mm256_and_si256(_mm256_cmpeq_epi32(tb, dyn), bit_db))));
	key8 k = {_mm256_and_si256(_mm256_slli_epi32(ba, 8), on), /* inactive: key 0 */
	          _mm256_and_si256(hi, on)};
	return k;
}

AVX2 static int32_t same_keys_avx2(const f2d_world *w, bool soft)
{
	const __m256i nocolor = _mm256_set1_epi32((int32_t) ~(uint32_t)KEY_COLOR_MASK);
	/* a key pair's words: the low ones to lanes 0..3, the high ones to 4..7 */
	const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
	const uint64_t *key = w->arbiter_colors;
	int32_t n = w->arbiter_count & ~7;
	for (int32_t i = 0; i < n; i += 8) {
		key8 k = keys8_avx2(w, soft, i);
		__m256i k0 = _mm256_permutevar8x32_epi32(
		    _mm256_loadu_si256((const __m256i *)(const void *)(key + i)), split);
		__m256i k1 = _mm256_permutevar8x32_epi32(
		    _mm256_loadu_si256((const __m256i *)(const void *)(key + i + 4)), split);
		__m256i old_lo = _mm256_and_si256(_mm256_permute2x128_si256(k0, k1, 0x20), nocolor);
		__m256i old_hi = _mm256_permute2x128_si256(k0, k1, 0x31);
		__m256i eq = _mm256_and_si256(_mm256_cmpeq_epi32(k.lo, old_lo),
		                              _mm256_cmpeq_epi32(k.hi, old_hi));
		if (_mm256_movemask_epi8(eq) != -1) {
			return -1;
		}
	}
	return n;
}

/* The keys of arbiters 0 .. arbiter_count - 1 rounded down to a multiple of 8 into key[] (colour
 * bits 0): keys8_avx2's words interleaved back into 64-bit keys (unpack: keys 0, 1, 4, 5 and
 * 2, 3, 6, 7; the 128-bit halves put them in order). Returns how many. */
AVX2 static int32_t keys_avx2(const f2d_world *w, bool soft, uint64_t *key)
{
	int32_t n = w->arbiter_count & ~7;
	for (int32_t i = 0; i < n; i += 8) {
		key8 k = keys8_avx2(w, soft, i);
		__m256i a = _mm256_unpacklo_epi32(k.lo, k.hi), b = _mm256_unpackhi_epi32(k.lo, k.hi);
		_mm256_storeu_si256((__m256i *)(void *)(key + i), _mm256_permute2x128_si256(a, b, 0x20));
		_mm256_storeu_si256((__m256i *)(void *)(key + i + 4),
		                    _mm256_permute2x128_si256(a, b, 0x31));
	}
	return n;
}
#endif

/* Whether every arbiter has the key it had at the last colouring (and there are as many). With
 * the AVX2 kernel (or AVX-512) the arbiters go by 8 (same_keys_avx2: the same keys, by
 * gathers), the last count % 8 by the scalar loop; the sanitizer builds (F2D_HASH_CHECK) check
 * a difference the gathers found against the scalar loop (an equality leads to
 * check_kept_coloring). */
static bool same_keys(const f2d_world *w, bool soft)
{
	if (w->colored_count != w->arbiter_count) {
		return false;
	}
	int32_t from = 0;
#if F2D_X86_SIMD && !defined(F2D_CONTACT_EXACT_ONLY)
	if (f2d_kernel_level() != F2D_KERNEL_SCALAR) {
		from = same_keys_avx2(w, soft);
		if (from < 0) {
#ifdef F2D_HASH_CHECK
			if (same_keys_from(w, soft, 0)) {
				fprintf(stderr, "fix2d: F2D_HASH_CHECK: the gathered colouring keys "
				                "differ from the scalar ones\n");
				abort();
			}
#endif
			return false;
		}
	}
#endif
	return same_keys_from(w, soft, from);
}

#ifndef F2D_CONTACT_COUNT_PATHS
#define COUNT_COLORING(reused) ((void)0)
#else
/* colourings kept, colourings built, lanes whose constants were kept, lanes computed
 * (test_solver_paths' helpers; the lanes are counted by solver.c's pre-step) */
uint64_t f2d_coloring_counts[4];
#define COUNT_COLORING(reused) (f2d_coloring_counts[(reused) ? 0 : 1]++)
#endif

/* Colours the active arbiters and lays the batches out: colour after colour, key order inside
 * a colour; fills body_a, body_b, arbiter, lanes and, in the soft step, stiff (the rest is the
 * pre-step's). In the soft
 * step an arbiter with one body that cannot move takes its colour from the end
 * (take_color_from_end). Records each arbiter's key (same_keys).
 * One read of each arbiter and of its bodies' types: every key is made first (keys_avx2 8 at
 * a time by gathers with the SIMD kernels, color_key for the rest; the sanitizer builds check
 * them against color_key, check_keys) and stored in arbiter_colors; the colouring then reads
 * the body indices and dynamic flags from the keys (bits 8..33, 34..59; 61, 60: what
 * f2d_take_color and the soft rule read from the types) and the packing the colour too (bits
 * 0..7), not the arbiters. The same colours and layout as colouring with f2d_take_color (the
 * joints' colouring keeps it): test_solver_paths' reference build and the sanitizer builds'
 * check_kept_coloring compare. */
#define KEY_BODY_MASK (((uint64_t)1 << 26) - 1)
#ifdef F2D_HASH_CHECK
/* The keys build_coloring made (by gathers) against color_key's (sanitizer builds). */
static void check_keys(const f2d_world *w, bool soft)
{
	for (int32_t i = 0; i < w->arbiter_count; ++i) {
		if (w->arbiter_colors[i] != color_key(w, &w->arbiters[i], soft)) {
			fprintf(stderr, "fix2d: F2D_HASH_CHECK: colouring key %d differs from "
			                "color_key's\n", (int)i);
			abort();
		}
	}
}
#endif
static void build_coloring(f2d_world *w, bool soft)
{
	uint64_t *used = w->body_colors;
	uint64_t *color = w->arbiter_colors;
	int32_t count[64] = {0};
	/* used[] is zero but for the bodies the last colouring listed (the arrays start zeroed,
	 * grow zeroed, and only listed bodies are marked) */
	for (int32_t i = 0; i < w->body_list_count; ++i) {
		used[w->body_list[i]] = 0;
	}
	/* Colours, in key order; the bodies in contact are listed on the way, once each (bit 63
	 * of used, never a colour, marks them). */
	const uint64_t listed = (uint64_t)1 << OVERFLOW_COLOR;
	int32_t nl = 0;
	const int32_t n = w->arbiter_count;
	int32_t i = 0;
#if F2D_X86_SIMD && !defined(F2D_CONTACT_EXACT_ONLY)
	if (f2d_kernel_level() != F2D_KERNEL_SCALAR) {
		i = keys_avx2(w, soft, color); /* the keys first, 8 at a time */
	}
#endif
	for (; i < n; ++i) {
		color[i] = color_key(w, &w->arbiters[i], soft);
	}
#ifdef F2D_HASH_CHECK
	check_keys(w, soft);
#endif
	for (i = 0; i < n; ++i) {
		const uint64_t key = color[i];
		if (key == 0) {
			continue;
		}
		/* never the same body */
		const int32_t ia = (int32_t)(key >> 8 & KEY_BODY_MASK);
		const int32_t ib = (int32_t)(key >> 34 & KEY_BODY_MASK);
		/* each body's word read once and written once (listed, and the colour taken) */
		const uint64_t ua = used[ia], ub = used[ib];
		if ((ua & listed) == 0) {
			w->body_list[nl++] = ia;
		}
		if ((ub & listed) == 0) {
			w->body_list[nl++] = ib;
		}
		/* the dynamic flags (bits 61, 60) as masks of all ones */
		const uint64_t ma = (uint64_t)0 - (key >> 61 & 1u), mb = (uint64_t)0 - (key >> 60 & 1u);
		int32_t c;
		if (soft && ma != mb) {
			used[ia] = ua | listed;
			used[ib] = ub | listed;
			c = take_color_from_end(used, ma ? ia : ib);
		} else {
			/* f2d_take_color with the flags from the key; the overflow colour's bit is
			 * listed's, which both words get anyway (nothing else is marked then) */
			c = f2d_ctz64(~((ua & ma) | (ub & mb)) | listed);
			uint64_t bit = (uint64_t)1 << c;
			used[ia] = ua | listed | (bit & ma);
			used[ib] = ub | listed | (bit & mb);
		}
		color[i] = key | (uint64_t)c;
		count[c]++;
	}
	w->body_list_count = nl;
	w->colored_count = n;
	/* The batches of each colour, in colour order: every one full but the colour's last (its
	 * count's rest); next[c] is the slot (batch * F2D_LANES + lane) colour c's next arbiter
	 * takes, so that the packing below fills them in key order as counting lanes would. */
	uint32_t next[64];
	int32_t nb = 0;
	for (int32_t c = 0; c < 64; ++c) {
		next[c] = (uint32_t)nb * F2D_LANES;
		for (int32_t left = count[c]; left > 0; left -= F2D_LANES) {
			f2d_contact_batch *bt = &w->batches[nb++];
			bt->lanes = left < F2D_LANES ? left : F2D_LANES;
			bt->kept = 0; /* a new layout: no lane's constants are known */
			bt->sequential = c == OVERFLOW_COLOR;
		}
	}
	w->batch_count = nb;
	for (i = 0; i < n; ++i) {
		const uint64_t key = color[i];
		if (key == 0) {
			continue;
		}
		uint32_t slot = next[key & KEY_COLOR_MASK]++;
		f2d_contact_batch *bt = &w->batches[slot / F2D_LANES];
		uint32_t l = slot % F2D_LANES;
		bt->arbiter[l] = i;
		bt->body_a[l] = (int32_t)(key >> 8 & KEY_BODY_MASK);
		bt->body_b[l] = (int32_t)(key >> 34 & KEY_BODY_MASK);
		/* the soft step's stiff lane (solver.c, "the soft step's lanes"): a body that
		 * cannot move, from the key's dynamic flags (bits 61, 60), which a kept layout
		 * keeps */
		if (soft) {
			bt->stiff[l] = (key >> 60 & 3u) != 3u;
		}
	}
}

#ifdef F2D_HASH_CHECK
/* The kept layout against a fresh colouring: abort if they differ (sanitizer builds). */
static void check_kept_coloring(f2d_world *w, bool soft)
{
	int32_t nb = w->batch_count, nl = w->body_list_count;
	size_t bytes = sizeof(int32_t) * ((size_t)nb * (4 * F2D_LANES + 2) + (size_t)nl + 1);
	int32_t *old = malloc(bytes);
	if (old == NULL) {
		fprintf(stderr, "fix2d: F2D_HASH_CHECK: out of memory\n");
		abort();
	}
	int32_t *o = old;
	for (int32_t b = 0; b < nb; ++b) {
		const f2d_contact_batch *bt = &w->batches[b];
		*o++ = bt->lanes;
		*o++ = bt->sequential;
		for (int32_t l = 0; l < F2D_LANES; ++l) {
			*o++ = l < bt->lanes ? bt->arbiter[l] : -1;
			*o++ = l < bt->lanes ? bt->body_a[l] : -1;
			*o++ = l < bt->lanes ? bt->body_b[l] : -1;
			*o++ = l < bt->lanes && soft ? bt->stiff[l] : -1;
		}
	}
	for (int32_t i = 0; i < nl; ++i) {
		*o++ = w->body_list[i];
	}
	unsigned *kept = malloc(sizeof(unsigned) * (size_t)(nb + 1));
	if (kept == NULL) {
		fprintf(stderr, "fix2d: F2D_HASH_CHECK: out of memory\n");
		abort();
	}
	for (int32_t b = 0; b < nb; ++b) {
		kept[b] = w->batches[b].kept;
	}
	build_coloring(w, soft); /* clears kept: the layout is the same, so it is restored */
	for (int32_t b = 0; b < nb && b < w->batch_count; ++b) {
		w->batches[b].kept = kept[b];
	}
	free(kept);
	bool same = w->batch_count == nb && w->body_list_count == nl;
	o = old;
	for (int32_t b = 0; same && b < nb; ++b) {
		const f2d_contact_batch *bt = &w->batches[b];
		same = *o++ == bt->lanes && *o++ == bt->sequential;
		for (int32_t l = 0; same && l < F2D_LANES; ++l) {
			same = *o++ == (l < bt->lanes ? bt->arbiter[l] : -1) &&
			       *o++ == (l < bt->lanes ? bt->body_a[l] : -1) &&
			       *o++ == (l < bt->lanes ? bt->body_b[l] : -1) &&
			       *o++ == (l < bt->lanes && soft ? bt->stiff[l] : -1);
		}
	}
	for (int32_t i = 0; same && i < nl; ++i) {
		same = *o++ == w->body_list[i];
	}
	free(old);
	if (!same) {
		fprintf(stderr, "fix2d: F2D_HASH_CHECK: the kept contact colouring differs from "
		                "a fresh one\n");
		abort();
	}
}
#endif

/* The reference build (F2D_CONTACT_EXACT_ONLY, test_solver_paths) colours every step: the test
 * compares it with this one step by step. */
#ifdef F2D_CONTACT_EXACT_ONLY
#define KEEP_COLORING 0
#else
#define KEEP_COLORING 1
#endif

/* The layout of this step: the last one when every key is the same, else a new colouring. */
void f2d_color_arbiters(f2d_world *w)
{
	const bool soft = w->def.substep_count > 0;
	if (KEEP_COLORING && same_keys(w, soft)) {
		COUNT_COLORING(true);
#ifdef F2D_HASH_CHECK
		check_kept_coloring(w, soft);
#endif
		return;
	}
	COUNT_COLORING(false);
	build_coloring(w, soft);
}
