/* fix2d broad phase: the world caches' loop (update_caches), written once for the scalar
 * reference and the AVX2 form. Included by broadphase.c only, once per form, after it defined:
 *   C(name)   the function name for this form (name_scalar, name_avx2)
 *   C_ATTR    the target attribute (none for the scalar form)
 *   C_SIMD    1 for the AVX2 form: a box about its body origin is remade by box_cache_avx2
 *             (its AABB in a register for ex and the escape test), any other shape as the
 *             scalar form remakes it
 * The two give the same bits: every cache, record, bitmap word, ex, fat box and escape list
 * (tests/test_broadphase.c, cache_paths).
 * SPDX-License-Identifier: MIT
 */

/* Remakes the caches that need it, marking their shapes in moved[] (and counting them in
 * *remade); returns the live count. With ebit (a step whose call follows last step's, the fat
 * boxes and ex valid, and not waiting: see find_pairs) it also finds the escaped shapes while
 * the remade AABB is at hand: ex updated for every remade cache, and those whose AABB left
 * the fat box listed in id order (elist, *ec of them) and marked (ebit, mw words), their fat
 * boxes refitted. */
C_ATTR static int32_t C(update_caches)(f2d_world *w, uint64_t *moved, int64_t mw, bool incremental,
                                       int32_t *remade, uint64_t *ebit, int32_t *elist, int32_t *ec)
{
	int32_t n = 0, r = 0;
	fix16_t margin = w->def.speculative_distance / 2;
	/* f2d_body_sweep's constants: a step of gravity (|g| h < 2^31) and its dead zone */
	f2d_vec2 gh = {(fix16_t)f2d_round16((int64_t)w->h * w->gravity.x),
	               (fix16_t)f2d_round16((int64_t)w->h * w->gravity.y)};
	int64_t dead1 = f2d_round16((int64_t)w->h * (w->def.linear_sleep_tolerance + f2d_abs(gh.x) +
	                                             f2d_abs(gh.y))) +
	                1;
	const sweep_k sk = sweep_constants(w, gh, dead1);
	const int32_t shape_count = w->shape_ids.next;
	int32_t last_body = -1;
	f2d_vec2 sweep = {0, 0};
	int64_t turn = 0;
	uint32_t active = 0;
	/* the arrays, read once (the loop's stores to the shapes would otherwise make the compiler
	 * read them again for every shape) */
	f2d_shape *const shapes = w->shapes;
	const f2d_body *const bodies = w->bodies;
	f2d_shape_step *const step = w->bpc.step;
	f2d_aabb *const fat = w->bpc.fat;
	int32_t(*const exs)[4] = w->bpc.ex;
	int32_t e = 0;
	if (ebit != NULL) {
		memset(ebit, 0, (size_t)mw * sizeof *ebit);
	}
	/* 64 shapes a word of moved[] (mw = ceil(shape_count / 64): every word is written), its
	 * bits gathered in a register */
	for (int32_t base = 0; base < shape_count; base += 64) {
		const int32_t end = shape_count - base < 64 ? shape_count : base + 64;
		uint64_t bits = 0;
		for (int32_t i = base; i < end; ++i) {
			f2d_shape *s = &shapes[i];
			if (!s->alive) {
				continue;
			}
			++n;
			const f2d_body *b = &bodies[s->body];
			f2d_transform xf = {b->origin, b->q}; /* f2d_body_xf, without the call */
			if (s->body != last_body) {
				last_body = s->body;
				sweep = body_sweep(&sk, b);
				active = f2d_body_active(b) ? F2D_STEP_ACTIVE : 0u;
				turn = body_turn(&sk, b, active);
			}
			uint32_t flags = active;
			if (!incremental || !cache_key_equal(s, xf, sweep)) {
				flags |= F2D_STEP_MOVED;
				bits |= (uint64_t)1 << (i & 63);
				++r;
#if C_SIMD
				__m128i ex;
				if (!box_cache_avx2(s, xf, sweep, b->center, margin, &ex)) {
					remake_cache(s, xf, sweep, b->center, margin);
					ex = _mm_xor_si128(
					    _mm_loadu_si128(
					        (const __m128i *)(const void *)&s->aabb),
					    EX_FLIP);
				}
				if (ebit != NULL) {
					_mm_storeu_si128((__m128i *)(void *)exs[i], ex);
					if (!ex_contains(&fat[i], ex)) {
#else
				remake_cache(s, xf, sweep, b->center, margin);
				if (ebit != NULL) {
					set_ex(exs[i], &s->aabb);
					if (!contains(&fat[i], &s->aabb)) {
#endif
						fat[i] = fatten(s->aabb);
						elist[e++] = i;
						ebit[i >> 6] |= (uint64_t)1 << (i & 63);
					}
				}
			}
			/* every step (w is not in the cache's key): turn <= 2^18, reach <= 2^19 */
			s->turn = (fix16_t)(turn * s->reach >> 16);
			/* the merge's record (core.h): s->sweep is sweep here (remade, or its key
			 * held) */
			step[i] = (f2d_shape_step){sweep, s->turn, flags};
		}
		moved[base >> 6] = bits;
	}
	*remade = r;
	*ec = e;
	return n;
}
