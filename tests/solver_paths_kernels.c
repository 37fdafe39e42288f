/* fix2d tests: the kernel checks of test_solver_paths' helpers (tests/test_solver_paths.c runs
 * each helper with the check's name and reads its lines): the hinted effective masses, the
 * SIMD kernels' rounding shortcuts, the pairs of lanes and the pre-steps' staging, each against
 * its reference, in the library build the helper links.
 * SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver_paths_kernels.h"

/* ---- "inverse": the hinted effective masses (solver.c's newton_inverse) ----
 * Prints "i <kernel> <checked> <wrong> <newton>": for every kernel this build runs, 8 lanes at a
 * time, inverse_mass(k) (0 for k <= 0, INT32_MAX for k = 1, else round(2^32 / k) as
 * f2d_div_exact rounds) from hints 0, 1, -1, INT32_MIN, INT32_MAX, INT32_MAX - 1 and the
 * quotient +- 1, 2, 3, 4, 17, 64, 1000, 2^20, for k at the range edges (0 .. 5, around 2^16,
 * 2^30 - the Newton step's and the hint test's limit -, 2^31, 2^40, negative) and 4,000 k
 * spread over [3, 2^34) by their logarithm (a fixed LCG). */
extern uint64_t f2d_newton_count;
void f2d_test_inverse_masses(int kernel, const int64_t *k, int32_t *m);
int f2d_kernel_level(void); /* 0 scalar, 1 AVX2, 2 AVX-512 (src/core.h) */

static int32_t inverse_ref(int64_t k)
{
	if (k <= 0) {
		return 0;
	}
	if (k < 2) {
		return INT32_MAX;
	}
	return (int32_t)((((uint64_t)1 << 33) / (uint64_t)k + 1) >> 1);
}

int inverse_main(void)
{
	static const int64_t edges[] = {0,
	                                1,
	                                2,
	                                3,
	                                4,
	                                5,
	                                7,
	                                100,
	                                65535,
	                                65536,
	                                65537,
	                                (int64_t)1 << 20,
	                                ((int64_t)1 << 29) + 12345,
	                                ((int64_t)1 << 30) - 1,
	                                (int64_t)1 << 30,
	                                ((int64_t)1 << 30) + 1,
	                                (int64_t)1 << 31,
	                                (int64_t)1 << 40,
	                                -1,
	                                -((int64_t)1 << 40)};
	static const int64_t deltas[] = {1, 2, 3, 4, 17, 64, 1000, 1 << 20};
	const int32_t n_edges = (int32_t)(sizeof edges / sizeof edges[0]);
	const int32_t n_k = n_edges + 4000;
	const int32_t n_d = (int32_t)(sizeof deltas / sizeof deltas[0]);
	const int32_t n_h = 7 + 2 * n_d;
	uint64_t lcg = 0x9E3779B97F4A7C15u;
	for (int kernel = 0; kernel <= f2d_kernel_level(); ++kernel) {
		uint64_t checked = 0, wrong = 0;
		f2d_newton_count = 0;
		int64_t k[8];
		int32_t m[8], want[8];
		int32_t lanes = 0;
		for (int32_t i = 0; i < n_k; ++i) {
			int64_t kv;
			if (i < n_edges) {
				kv = edges[i];
			} else {
				lcg = lcg * 6364136223846793005u + 1442695040888963407u;
				kv = 3 + (int64_t)((lcg >> 30) >> (lcg % 31)); /* below 2^34 */
			}
			const int32_t q = inverse_ref(kv);
			for (int32_t h = 0; h < n_h; ++h) {
				int64_t hint;
				switch (h) {
				case 0: hint = 0; break;
				case 1: hint = 1; break;
				case 2: hint = -1; break;
				case 3: hint = INT32_MIN; break;
				case 4: hint = INT32_MAX; break;
				case 5: hint = INT32_MAX - 1; break;
				case 6: hint = q; break;
				default: {
					int64_t d = deltas[(h - 7) / 2];
					hint = (int64_t)q + ((h - 7) % 2 == 0 ? d : -d);
					break;
				}
				}
				hint = hint > INT32_MAX ? INT32_MAX : (hint < INT32_MIN ? INT32_MIN : hint);
				k[lanes] = kv;
				m[lanes] = (int32_t)hint;
				want[lanes] = q;
				if (++lanes == 8 || (i == n_k - 1 && h == n_h - 1)) {
					for (int32_t l = lanes; l < 8; ++l) { /* a partial last group */
						k[l] = 3;
						m[l] = 0;
						want[l] = inverse_ref(3);
					}
					f2d_test_inverse_masses(kernel, k, m);
					for (int32_t l = 0; l < 8; ++l) {
						checked++;
						wrong += m[l] != want[l];
					}
					lanes = 0;
				}
			}
		}
		printf("i %d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", kernel, checked, wrong,
		       f2d_newton_count);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- "roundings": the SIMD kernels' rounding shortcuts (solver_kernel.h) ----
 * Prints "r <kernel> <checked> <wrong>" for every SIMD kernel this build runs: K(round16),
 * K_ROUND16_NN (p >= 0), K_ROUND16_NN_NEG (p <= 0) and K_ROUND16_DIV8 (round16(p) / 8,
 * truncating, |p| < 2^62) against the reference f2d_round16 ((p + 2^15 + (p >> 63)) >> 16) and
 * C's division, at the edges: k 2^16 + d for k in [-40, 40] (the division's steps by 8 around
 * 0) and d at the ties (+-2^15, +-2^15 +- 1, 0, +-1), the same around 2^30, 2^46, 2^61 and
 * 2^62 - 2^20 and their negatives, and 20,000 values of a fixed LCG spread over every
 * magnitude below 2^62. */
bool f2d_test_kernel_roundings(int kernel, const int64_t *p, int64_t (*out)[8]);

static int64_t round16_ref(int64_t p)
{
	return (p + 0x8000 + (p >> 63)) >> 16;
}

int roundings_main(void)
{
	static const int64_t ds[] = {0,      1,          -1,         0x7FFF,     0x8000, 0x8001,
	                             -0x7FFF, -0x8000,   -0x8001,    0xFFFF,     -0xFFFF};
	static const int64_t bases[] = {(int64_t)1 << 30, (int64_t)1 << 46, (int64_t)1 << 61,
	                                ((int64_t)1 << 62) - ((int64_t)1 << 20)};
	const int32_t n_d = (int32_t)(sizeof ds / sizeof ds[0]);
	enum { N = 20000 };
	static int64_t vals[2 * 81 * 11 + 2 * 4 * 11 + N];
	int32_t n = 0;
	for (int64_t k = -40; k <= 40; ++k) {
		for (int32_t j = 0; j < n_d; ++j) {
			vals[n++] = k * 65536 + ds[j];
			vals[n++] = (k * 8 + 4) * 65536 + ds[j];
		}
	}
	for (int32_t b = 0; b < 4; ++b) {
		for (int32_t j = 0; j < n_d; ++j) {
			vals[n++] = bases[b] + ds[j];
			vals[n++] = -bases[b] + ds[j];
		}
	}
	uint64_t lcg = 0x2545F4914F6CDD1Du;
	for (int32_t i = 0; i < N; ++i) {
		lcg = lcg * 6364136223846793005u + 1442695040888963407u;
		int64_t m = (int64_t)((lcg >> 2) >> (lcg % 61)); /* below 2^62 */
		vals[n++] = (lcg >> 1) & 1 ? m : -m;
	}
	for (int kernel = 1; kernel <= f2d_kernel_level(); ++kernel) {
		uint64_t checked = 0, wrong = 0;
		for (int32_t i = 0; i < n; i += 8) {
			int64_t p[8], out[4][8];
			for (int32_t l = 0; l < 8; ++l) {
				p[l] = vals[i + l < n ? i + l : 0];
			}
			if (!f2d_test_kernel_roundings(kernel, p, out)) {
				break;
			}
			for (int32_t l = 0; l < 8; ++l) {
				int64_t r = round16_ref(p[l]);
				wrong += out[0][l] != r;
				wrong += p[l] >= 0 && out[1][l] != r;
				wrong += p[l] <= 0 && out[2][l] != round16_ref(-p[l]);
				wrong += out[3][l] != r / 8;
				checked++;
			}
		}
		if (checked > 0) {
			printf("r %d %" PRIu64 " %" PRIu64 "\n", kernel, checked, wrong);
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- "pairs": the pairs of lanes (f2d_lane2, src/core.h) ----
 * Prints "p <kernel> <checked> <wrong>": for every kernel this build runs, the pre-step's store
 * of two 64-bit values a, b as a pair (their low halves: the truncation to fix16), its exact
 * loads (sign-extended), the kernels' K_LO / K_HI as product operands (times c, vpmuldq) and
 * the scalar paths' reads, for a, b with the int32 extremes and around 0 and +-1.0 in their
 * low halves and junk (any sign) in their high halves, and c at the int32 extremes. */
bool f2d_test_kernel_pairs(int kernel, const int64_t *a, const int64_t *b, const int64_t *c,
                           int64_t (*out)[8]);

int pairs_main(void)
{
	static const int64_t lows[] = {INT32_MIN, INT32_MIN + 1, -65536, -1, 0,
	                               1,         65536,         INT32_MAX - 1, INT32_MAX};
	static const int64_t highs[] = {0, 1, -1, 0x7FFFFFFF, -0x80000000LL};
	static const int64_t cs[] = {INT32_MIN, INT32_MIN + 1, -65536, -1, 0, 1, 65536, INT32_MAX};
	enum { NL = 9, NH = 5, NC = 8 };
	for (int kernel = 1; kernel <= f2d_kernel_level(); ++kernel) {
		uint64_t checked = 0, wrong = 0;
		int64_t a[8], b[8], c[8], want[2][8];
		int32_t l = 0;
		/* every (a, b, c) of the values, a and b with every high half; 8 at a time */
		for (int32_t i = 0; i < NL * NH * NL * NC; ++i) {
			int32_t ia = i % NL, ih = i / NL % NH, ib = i / (NL * NH) % NL, ic = i / (NL * NH * NL);
			int64_t ha = highs[ih], hb = highs[(ih + ib) % NH];
			a[l] = (int64_t)((uint64_t)ha << 32 | (uint32_t)lows[ia]);
			b[l] = (int64_t)((uint64_t)hb << 32 | (uint32_t)lows[ib]);
			c[l] = cs[ic];
			want[0][l] = lows[ia];
			want[1][l] = lows[ib];
			if (++l < 8 && i < NL * NH * NL * NC - 1) {
				continue;
			}
			int64_t out[6][8];
			if (!f2d_test_kernel_pairs(kernel, a, b, c, out)) {
				break;
			}
			for (int32_t k = 0; k < l; ++k) {
				wrong += out[0][k] != want[0][k] * c[k];
				wrong += out[1][k] != want[1][k] * c[k];
				wrong += out[2][k] != want[0][k] || out[3][k] != want[1][k];
				wrong += out[4][k] != want[0][k] || out[5][k] != want[1][k];
				checked++;
			}
			l = 0;
		}
		if (checked > 0) {
			printf("p %d %" PRIu64 " %" PRIu64 "\n", kernel, checked, wrong);
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- "stage": the SIMD pre-steps' staging (solver_prestep.c stage_lanes) ----
 * Prints "g <kernel> <checked> <wrong>" for every SIMD kernel this build runs (both call the one
 * AVX2 staging): 4,000 batches of random and int32-edge arbiters and bodies, point counts 0 .. 2
 * and 1 .. 8 lanes staged by stage_lanes and by the lane-after-lane reference
 * (f2d_test_stage), compared byte for byte. */
bool f2d_test_stage(uint64_t seed, int32_t batches, uint64_t *wrong);

int stage_main(void)
{
	for (int kernel = 1; kernel <= f2d_kernel_level(); ++kernel) {
		const int32_t n = 4000;
		uint64_t wrong = 0;
		if (!f2d_test_stage(0x2545F4914F6CDD1Du + (uint64_t)kernel, n, &wrong)) {
			break; /* no SIMD pre-steps in this build */
		}
		printf("g %d %d %" PRIu64 "\n", kernel, (int)n, wrong);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
