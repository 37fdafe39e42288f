/* The tests' pseudo-random numbers: splitmix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", 2014), integer arithmetic only, so a seed gives the same
 * sequence on every host and compiler: a failing case is named by its seed and reproduces.
 * SPDX-License-Identifier: MIT
 */
#ifndef FIX2D_TEST_RNG_H
#define FIX2D_TEST_RNG_H

#include <stdint.h>

/* The next value of the splitmix64 stream whose state is *state: the state advances by the
 * odd constant 2^64 / phi, and the output is that state through two xor-shift-multiply
 * rounds and a final xor-shift (a bijection of 64 bits). */
static inline uint64_t test_splitmix(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#endif
