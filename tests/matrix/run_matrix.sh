#!/usr/bin/env bash
# fix2d determinism matrix: builds the library and fix2d-replay with many compilers, flags and
# CPUs and checks that every step of every golden scene hashes exactly as tests/golden/ says.
# SPDX-License-Identifier: MIT
#
# usage: tests/matrix/run_matrix.sh [--quick] [--cells A,B,...] [--strict] [--jobs N]
#        tests/matrix/run_matrix.sh --list | --check-golden | --regenerate
#
#   --quick         run the first 200 steps of each chain (100 for rain1000); every step run
#                   is still compared
#   --cells LIST    only these cells (comma separated; see --list)
#   --strict        a cell whose toolchain is missing fails instead of being skipped (the
#                   default when CI=true)
#   --jobs N        cells built and run at once (default: nproc)
#   --list          print the cells and exit
#   --check-golden  only check the golden files (format, length, agreement with
#                   final_hashes.txt)
#   --regenerate    rewrite tests/golden/<scene>.chain and events.txt from the current tree
#                   (gcc -O2); commit the result only with a message that says why the
#                   simulation changed
#
# Environment: F2D_MATRIX_DIR work directory (default build/matrix), F2D_PERTURB_STEP the step
# the deliberately broken cell perturbs (default 137; 61 with --quick), F2D_MATRIX_HOST_REPLAY
# the native fix2d-replay of the cross-host checks (default: the gcc-O2 cell's).
#
# Every cell that runs the chains also runs `fix2d-replay selftest` (the golden chains compiled
# in): it must print 'conformance ok <scenes> scenes <steps> steps' for every chain, every step.
#
# Events and queries: each golden scene runs with `--digest`, the XXH3 of every event of every
# step and of a fixed set of queries after every step (ray casts, AABB, overlap and shape
# queries: replay/events.c); every cell must print the digest of tests/golden/events.txt
# ("<scene> <16 hex>", over the chain's steps; not compared with --quick, which runs fewer).
#
# On a mismatch it prints the scene, the cell and the first divergent step and exits 1.
# Exit status: 0 all cells passed (or were skipped when not strict), 1 a cell failed,
# 2 usage error, 77 every selected cell was skipped (ctest's skip code).
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
golden="$root/tests/golden"
work=${F2D_MATRIX_DIR:-$root/build/matrix}

ALL_CELLS=(gcc-O0 gcc-O2 gcc-O3 gcc-Os clang-O0 clang-O3 clang-O3-ffast-math tcc
	i386-gcc-m32-x87 aarch64-gcc-O2-qemu s390x-gcc-O2-qemu wasm32-emcc-node gcc-asan-ubsan
	tsan-threads perturbed-step)

# The golden chains: scene and number of steps (regenerate writes these).
GOLDEN_SCENES=(pyramid20 rain1000 chain50 hinges80 random_stack circles polygons restitution
	bridge dominos single_box pendulum varying_friction pyramid teeter multi_pendulum arena long_arms
	soft_bridge elevator car_slope ragdoll sensor_gates filtered_teams one_way ray_field capsule_ragdolls chain_terrain
	soft_step pyramid_gs ragdoll_gs)
golden_steps() { [[ $1 == rain1000 ]] && echo 300 || echo 1000; }

WARNINGS=(-std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wvla -Werror)

quick=0
strict=0
[[ ${CI:-} == true ]] && strict=1
jobs=$(nproc 2>/dev/null || echo 2)
cells_arg=""
mode=run

usage() {
	sed -n '5,32p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--quick) quick=1 ;;
	--strict) strict=1 ;;
	--cells)
		[[ $# -ge 2 ]] || usage
		cells_arg=$2
		shift
		;;
	--cells=*) cells_arg=${1#--cells=} ;;
	--jobs)
		[[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage
		jobs=$2
		shift
		;;
	--list) mode=list ;;
	--check-golden) mode=check-golden ;;
	--regenerate) mode=regenerate ;;
	-h | --help) usage ;;
	*)
		echo "run_matrix.sh: unknown argument '$1'" >&2
		usage
		;;
	esac
	shift
done

perturb_step=${F2D_PERTURB_STEP:-$([[ $quick == 1 ]] && echo 61 || echo 137)}

# ---- sources, as CMakeLists.txt lists them ----

# The .c files of the fix2d library target, and of fix2d-replay.
library_sources() {
	cmake_sources_of_library | grep . || (cd "$root" && ls src/*.c)
}
replay_sources() {
	cmake_sources_of_replay | grep . || (cd "$root" && ls replay/*.c)
}
cmake_sources_of_library() {
	awk '/^add_library\(fix2d STATIC/ {on = 1} on {
		for (i = 1; i <= NF; ++i) if ($i ~ /\.c\)?$/) { f = $i; sub(/\)$/, "", f); print f }
		if ($0 ~ /\)/) exit }' "$root/CMakeLists.txt"
}
cmake_sources_of_replay() {
	awk '/add_executable\(fix2d-replay / {
		for (i = 1; i <= NF; ++i) if ($i ~ /\.c\)?$/) { f = $i; sub(/\)$/, "", f); print f }
		exit }' "$root/CMakeLists.txt"
}

# ---- the cells ----

# cell_spec NAME: sets CC (compiler command words), CFLAGS, LIB (libfixmath archive), RUN
# (runner prefix words), KIND (chain | tsan | perturbed), NEED (commands that must exist),
# HINT (how to install what it needs), CHECK (a function name run on the built cell, or ""),
# PREP (a function that makes LIB first, or ""), FIXINC (libfixmath's headers), EXE (the
# linker's output suffix: the programs are renamed to their plain names after linking).
cell_spec() {
	CFLAGS=()
	RUN=()
	LDFLAGS=()
	KIND=chain
	CHECK=""
	PREP=""
	EXE=""
	FIXINC=/usr/include/libfixmath
	LIB=/usr/lib/x86_64-linux-gnu/liblibfixmath.a
	HINT="apt-get install libfixmath-dev"
	case $1 in
	gcc-O0 | gcc-O2 | gcc-O3 | gcc-Os)
		CC=(gcc)
		CFLAGS=("-${1#gcc-}")
		HINT="apt-get install gcc libfixmath-dev"
		;;
	clang-O0 | clang-O3)
		CC=(clang)
		CFLAGS=("-${1#clang-}")
		HINT="apt-get install clang"
		;;
	clang-O3-ffast-math)
		CC=(clang)
		CFLAGS=(-O3 -ffast-math)
		HINT="apt-get install clang"
		;;
	tcc)
		CC=(tcc)
		HINT="apt-get install tcc"
		;;
	i386-gcc-m32-x87)
		# gcc -m32 with its default x87 floating point (no -mfpmath=sse): i686, FLT_EVAL_METHOD 2
		CC=(gcc -m32)
		CFLAGS=(-O2)
		LIB=/usr/lib/i386-linux-gnu/liblibfixmath.a
		CHECK=check_x87
		HINT="dpkg --add-architecture i386 && apt-get update && apt-get install lib32gcc-12-dev libc6-dev-i386 libfixmath-dev:i386"
		;;
	aarch64-gcc-O2-qemu)
		CC=(aarch64-linux-gnu-gcc)
		CFLAGS=(-O2)
		LDFLAGS=(-static)
		RUN=(qemu-aarch64)
		LIB=/usr/lib/aarch64-linux-gnu/liblibfixmath.a
		HINT="dpkg --add-architecture arm64 && apt-get update && apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross libfixmath-dev:arm64 qemu-user"
		;;
	s390x-gcc-O2-qemu)
		CC=(s390x-linux-gnu-gcc)
		CFLAGS=(-O2)
		LDFLAGS=(-static)
		RUN=(qemu-s390x)
		LIB=/usr/lib/s390x-linux-gnu/liblibfixmath.a
		CHECK=check_big_endian
		HINT="dpkg --add-architecture s390x && apt-get update && apt-get install gcc-s390x-linux-gnu libc6-dev-s390x-cross libfixmath-dev:s390x qemu-user"
		;;
	wasm32-emcc-node)
		# WebAssembly: Debian's emscripten, run under node; libfixmath compiled with emcc from
		# Debian's source package (tests/matrix/libfixmath_wasm.sh). NODERAWFS: the programs
		# read and write the host's files (snapshots, replays) as native ones do.
		CC=(emcc)
		CFLAGS=(-O2)
		LDFLAGS=(-sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1)
		# emcc 3.1.6's loader with node 20: without --no-experimental-fetch it fetch()es the
		# .wasm by path and fails
		RUN=(node --no-experimental-fetch)
		# emcc's JS optimizer needs Debian's node modules (acorn)
		export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
		LIB=$work/libfixmath-wasm/liblibfixmath.a
		FIXINC=$work/libfixmath-wasm/include/libfixmath
		PREP=prepare_wasm
		CHECK=check_wasm
		EXE=.js
		HINT="apt-get install emscripten nodejs (libfixmath: built from Debian's source package by tests/matrix/libfixmath_wasm.sh)"
		;;
	gcc-asan-ubsan)
		CC=(gcc)
		CFLAGS=(-O1 -g -fsanitize=undefined,address -fno-sanitize-recover=all
			-fno-omit-frame-pointer)
		;;
	tsan-threads)
		CC=(gcc)
		CFLAGS=(-O1 -g -fsanitize=thread -pthread)
		KIND=tsan
		HINT="apt-get install gcc check pkg-config"
		;;
	perturbed-step)
		# A deliberately broken build: the matrix must catch it at exactly this step.
		CC=(gcc)
		CFLAGS=(-O2 "-DF2D_TEST_PERTURB_STEP=$perturb_step")
		KIND=perturbed
		;;
	*) return 1 ;;
	esac
	NEED=("${CC[0]}")
	[[ ${#RUN[@]} -gt 0 ]] && NEED+=("${RUN[0]}")
	return 0
}

# i386: the compiler really uses x87 for floating point (it would, were there any).
check_x87() {
	local macros
	macros=$("${CC[@]}" "${CFLAGS[@]}" -dM -E -x c /dev/null) || return 1
	if grep -q '__SSE_MATH__' <<<"$macros" || ! grep -q '__FLT_EVAL_METHOD__ 2' <<<"$macros"; then
		echo "this gcc -m32 does not default to x87 floating point"
		return 1
	fi
	echo "checked: gcc -m32 defaults to x87 (__FLT_EVAL_METHOD__ 2, no __SSE_MATH__)"
}

# s390x: the target really is big-endian.
check_big_endian() {
	local macros
	macros=$("${CC[@]}" -dM -E -x c /dev/null) || return 1
	if ! grep -q '__BYTE_ORDER__ __ORDER_BIG_ENDIAN__' <<<"$macros"; then
		echo "s390x target is not big-endian?"
		return 1
	fi
	echo "checked: target is big-endian (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)"
}

# wasm32: the target really is 32-bit WebAssembly.
check_wasm() {
	local macros
	macros=$("${CC[@]}" -dM -E -x c /dev/null) || return 1
	if ! grep -q '__wasm32__ 1' <<<"$macros" || ! grep -q '__SIZEOF_POINTER__ 4' <<<"$macros"; then
		echo "emcc does not target wasm32?"
		return 1
	fi
	echo "checked: target is wasm32 (__wasm32__, 4-byte pointers); $(emcc --version 2>/dev/null | sed -n 1p)"
}

# libfixmath for wasm, from Debian's source package (once per work folder).
prepare_wasm() {
	bash "$root/tests/matrix/libfixmath_wasm.sh" "$work/libfixmath-wasm"
}

# ---- golden files ----

steps_to_run() { # SCENE -> steps compared in this mode
	local n
	n=$(wc -l <"$golden/$1.chain")
	if [[ $quick == 1 ]]; then
		local cap=200
		[[ $1 == rain1000 ]] && cap=100
		((n > cap)) && n=$cap
	fi
	echo "$n"
}

# Checks every golden chain (one "step <n> hash <16 hex>" line per step, n = 1, 2, ...), that
# the required scenes are there, and that final_hashes.txt agrees with the chains.
check_golden() {
	local bad=0 s n
	for s in "${GOLDEN_SCENES[@]}"; do
		local f="$golden/$s.chain"
		if [[ ! -f $f ]]; then
			echo "golden: missing $f (tests/matrix/run_matrix.sh --regenerate)"
			bad=1
			continue
		fi
		n=$(golden_steps "$s")
		if ! awk -v n="$n" -v f="$f" '
			NF != 4 || $1 != "step" || $2 != NR || $3 != "hash" || length($4) != 16 ||
			    $4 !~ /^[0-9a-f]+$/ {
				printf "golden: %s line %d is not \"step %d hash <16 hex>\"\n", f, NR, NR
				bad = 1; exit }
			END { if (!bad && NR != n) { printf "golden: %s has %d steps, wants %d\n", f, NR, n; bad = 1 }
				exit bad }' "$f"; then
			bad=1
		fi
	done
	# final_hashes.txt: "<scene> <steps> <hex>"; where a chain covers that step they agree.
	local scene steps hex line
	while read -r scene steps hex; do
		[[ -z $scene ]] && continue
		[[ -f $golden/$scene.chain ]] || continue
		line=$(sed -n "${steps}p" "$golden/$scene.chain")
		[[ -z $line ]] && continue
		if [[ $line != "step $steps hash $hex" ]]; then
			echo "golden: final_hashes.txt says $scene $steps $hex, $scene.chain says '$line'"
			bad=1
		fi
	done <"$golden/final_hashes.txt"
	# events.txt: "<scene> <16 hex>", one line per golden scene
	for s in "${GOLDEN_SCENES[@]}"; do
		if ! grep -Eq "^$s [0-9a-f]{16}\$" "$golden/events.txt" 2>/dev/null; then
			echo "golden: $golden/events.txt has no line '$s <16 hex>' (--regenerate)"
			bad=1
		fi
	done
	if [[ ! -f $golden/fingerprint.txt ]] || ! grep -Eq '^fingerprint [0-9a-f]{16}$' "$golden/fingerprint.txt"; then
		echo "golden: $golden/fingerprint.txt must hold one line 'fingerprint <16 hex>'"
		bad=1
	fi
	return $bad
}

# ---- building and running one cell ----

# build_cell DIR: objects of the library, then fix2d-replay and the fingerprint probe (or the
# threads test for the tsan cell), all with the cell's compiler and flags.
build_cell() {
	local dir=$1 f
	mkdir -p "$dir/obj" "$dir/include"
	# libfixmath and xxhash headers without the rest of the host's /usr/include (cross
	# compilers must see only their own system headers)
	ln -sfn "$FIXINC" "$dir/include/libfixmath"
	ln -sfn /usr/include/xxhash.h "$dir/include/xxhash.h"
	local inc=(-I"$root/include" -I"$root/src" -I"$dir/include")
	if [[ ${CC[*]} == "gcc -m32" && ! -e /usr/include/asm ]]; then
		# gcc-multilib (which only adds the /usr/include/asm link) conflicts with the cross
		# compilers in Debian; the x86-64 asm headers serve -m32 as well.
		ln -sfn /usr/include/x86_64-linux-gnu/asm "$dir/include/asm"
		inc+=(-idirafter "$dir/include")
	fi
	local objs=()
	for f in $(library_sources); do
		local o="$dir/obj/$(basename "$f" .c).o"
		"${CC[@]}" "${WARNINGS[@]}" "${CFLAGS[@]}" "${inc[@]}" -c "$root/$f" -o "$o" || return 1
		objs+=("$o")
	done
	if [[ $KIND == tsan ]]; then
		# shellcheck disable=SC2046
		"${CC[@]}" "${WARNINGS[@]}" "${CFLAGS[@]}" "${inc[@]}" $(pkg-config --cflags check) \
			"$root/tests/test_threads.c" "${objs[@]}" "$LIB" $(pkg-config --libs check) \
			-o "$dir/test_threads" || return 1
		return 0
	fi
	local rsrc=()
	for f in $(replay_sources); do rsrc+=("$root/$f"); done
	# the golden chains compiled into `fix2d-replay selftest`, as CMakeLists.txt makes them
	cmake -DGOLDEN_DIR="$golden" -DOUT="$dir/golden_chains.c" -P "$root/replay/golden_gen.cmake" ||
		return 1
	"${CC[@]}" "${WARNINGS[@]}" "${CFLAGS[@]}" "${inc[@]}" -I"$root/replay" "${rsrc[@]}" \
		"$dir/golden_chains.c" "${objs[@]}" "$LIB" "${LDFLAGS[@]}" -o "$dir/fix2d-replay$EXE" ||
		return 1
	"${CC[@]}" "${WARNINGS[@]}" "${CFLAGS[@]}" "${inc[@]}" "$root/tests/matrix/fingerprint.c" \
		"${objs[@]}" "$LIB" "${LDFLAGS[@]}" -o "$dir/fingerprint$EXE" || return 1
	if [[ -n $EXE ]]; then
		# node runs a script by any name; the .wasm beside it keeps its name
		mv "$dir/fix2d-replay$EXE" "$dir/fix2d-replay"
		mv "$dir/fingerprint$EXE" "$dir/fingerprint"
	fi
}

# first_divergence GOLDEN OUT N: the first step in 1..N whose line differs (0 when none).
first_divergence() {
	awk -v n="$3" 'NR == FNR { if (FNR <= n) g[FNR] = $0; next }
		{ if (FNR <= n) o[FNR] = $0 }
		END { for (i = 1; i <= n; ++i) if (!(i in o) || o[i] != g[i]) { print i; exit }
			print 0 }' "$1" "$2"
}

# run_scene DIR CELL SCENE: runs the scene; echoes the first divergent step (0: identical;
# "digest" when every step is identical but the events and queries digest is not).
# Prints the mismatch report to stderr.
run_scene() {
	local dir=$1 cell=$2 scene=$3 n rc d
	n=$(steps_to_run "$scene")
	"${RUN[@]}" "$dir/fix2d-replay" run "$scene" --steps "$n" --every 1 --digest \
		>"$dir/$scene.out" 2>"$dir/$scene.err"
	rc=$?
	d=$(first_divergence "$golden/$scene.chain" "$dir/$scene.out" "$n")
	local got_digest want_digest
	got_digest=$(sed -n "$((n + 1))s/^digest \([0-9a-f]\{16\}\) .*/\1/p" "$dir/$scene.out")
	want_digest=$(awk -v s="$scene" '$1 == s { print $2 }' "$golden/events.txt")
	if [[ $d == 0 && $rc == 0 && $quick == 0 && $got_digest != "$want_digest" ]]; then
		echo "MISMATCH scene $scene cell $cell: events+queries digest" \
			"'${got_digest:-<none>}', golden '$want_digest' (every step's hash agrees)" >&2
		d=digest
	elif [[ $d != 0 ]]; then
		local got want
		got=$(sed -n "${d}p" "$dir/$scene.out")
		want=$(sed -n "${d}p" "$golden/$scene.chain")
		echo "MISMATCH scene $scene cell $cell: first divergent step $d:" \
			"got '${got:-<no output; exit status $rc>}', golden '$want'" >&2
	elif [[ $rc != 0 ]]; then
		echo "FAIL scene $scene cell $cell: fix2d-replay exited $rc:" \
			"$(head -c 400 "$dir/$scene.err")" >&2
		d=-1
	fi
	echo "$d"
}

# run_cell NAME: writes DIR/result ("PASS ...", "FAIL ..." or "SKIP ...") and DIR/log.
run_cell() {
	local cell=$1 dir="$work/$1" t0=$SECONDS
	rm -rf "$dir"
	mkdir -p "$dir"
	{
		cell_spec "$cell"
		local c missing=""
		for c in "${NEED[@]}"; do
			command -v "$c" >/dev/null 2>&1 || missing+=" $c"
		done
		[[ -f $LIB || -n $PREP ]] || missing+=" $LIB"
		if [[ $KIND == tsan ]] && ! pkg-config --exists check 2>/dev/null; then
			missing+=" check(pkg-config)"
		fi
		if [[ -n $missing ]]; then
			echo "SKIP missing:$missing (install: $HINT)" >"$dir/result"
			return
		fi
		echo "== cell $cell: ${CC[*]} ${CFLAGS[*]} ${LDFLAGS[*]} | libfixmath $LIB${RUN:+ | run under ${RUN[*]}}"
		if [[ -n $CHECK ]] && ! $CHECK; then
			echo "FAIL toolchain check failed" >"$dir/result"
			return
		fi
		if [[ -n $PREP ]] && ! $PREP; then
			echo "FAIL could not make $LIB (see $dir/log)" >"$dir/result"
			return
		fi
		if ! build_cell "$dir"; then
			echo "FAIL build failed (see $dir/log)" >"$dir/result"
			return
		fi
		local build_s=$((SECONDS - t0))
		case $KIND in
		tsan)
			if F2D_GOLDEN_DIR="$golden" CK_FORK=no TSAN_OPTIONS="halt_on_error=1:exitcode=66" \
				"$dir/test_threads"; then
				echo "PASS threads test under ThreadSanitizer (build ${build_s}s, $((SECONDS - t0))s)" >"$dir/result"
			else
				echo "FAIL threads test under ThreadSanitizer (see $dir/log)" >"$dir/result"
			fi
			return
			;;
		perturbed)
			local s d bad=0 seen=""
			for s in pyramid20 chain50 dominos; do
				d=$(run_scene "$dir" "$cell" "$s")
				seen+=" $s:${d:-none}"
				[[ $d == "$perturb_step" ]] || bad=1
			done
			# the self-test catches it too, at the first scene it runs, at exactly that step
			local st
			st=$("${RUN[@]}" "$dir/fix2d-replay" selftest 2>&1)
			echo "selftest: $st"
			[[ $st =~ ^conformance\ FAILED:\ scene\ [a-z0-9_]+\ step\ $perturb_step: ]] || bad=1
			seen+=" selftest:${st#conformance FAILED: }"
			if [[ $bad == 0 ]]; then
				echo "PASS broken build caught at exactly step $perturb_step ($seen )" >"$dir/result"
			else
				echo "FAIL broken build (F2D_TEST_PERTURB_STEP=$perturb_step) not caught at step $perturb_step: first divergences$seen" >"$dir/result"
			fi
			return
			;;
		esac
		local fp want_fp
		fp=$("${RUN[@]}" "$dir/fingerprint")
		want_fp=$(cat "$golden/fingerprint.txt")
		echo "$fp"
		local failures=0 steps=0 s d
		if [[ ${#RUN[@]} -gt 0 ]]; then
			# a foreign host writes a portable snapshot and a replay; the cross-host step
			# below checks that x86-64 continues and verifies them bit for bit
			"${RUN[@]}" "$dir/fix2d-replay" snapshot pyramid20 --steps 400 -o "$dir/cross.f2s" ||
				failures=$((failures + 1))
			"${RUN[@]}" "$dir/fix2d-replay" record pyramid --frames 180 --inputs random:3 \
				-o "$dir/cross.f2r" || failures=$((failures + 1))
		fi
		if [[ $fp != "$want_fp flavour ok" ]]; then
			echo "MISMATCH cell $cell: '$fp', golden '$want_fp flavour ok'" >&2
			failures=$((failures + 1))
		fi
		for s in "${GOLDEN_SCENES[@]}"; do
			d=$(run_scene "$dir" "$cell" "$s")
			steps=$((steps + $(steps_to_run "$s")))
			[[ $d == 0 ]] || failures=$((failures + 1))
		done
		# the conformance self-test (every chain, every step, whatever --quick says)
		local st want_st
		st=$("${RUN[@]}" "$dir/fix2d-replay" selftest 2>&1)
		want_st="conformance ok ${#GOLDEN_SCENES[@]} scenes $(cat "$golden"/*.chain | wc -l) steps"
		echo "selftest: $st"
		if [[ $st != "$want_st" ]]; then
			echo "MISMATCH cell $cell: selftest says '$st', wants '$want_st'" >&2
			failures=$((failures + 1))
		fi
		if [[ $failures == 0 ]]; then
			local dg="events+queries digests identical"
			[[ $quick == 1 ]] && dg="digests not compared (--quick)"
			echo "PASS ${#GOLDEN_SCENES[@]} scenes, $steps steps identical, $dg, fingerprint ok, $st (build ${build_s}s, $((SECONDS - t0))s)" >"$dir/result"
		else
			echo "FAIL $failures scene(s) or fingerprint differ (first divergent steps below and in $dir/log)" >"$dir/result"
		fi
	} >"$dir/log" 2>&1
}

# ---- modes ----

case $mode in
list)
	printf '%s\n' "${ALL_CELLS[@]}"
	exit 0
	;;
check-golden)
	if check_golden; then
		echo "golden: ${#GOLDEN_SCENES[@]} chains well formed and consistent with final_hashes.txt"
		echo "golden: 1 passed, 0 failed"
		exit 0
	fi
	echo "golden: 0 passed, 1 failed"
	exit 1
	;;
regenerate)
	cell_spec gcc-O2
	dir="$work/regenerate"
	rm -rf "$dir"
	mkdir -p "$dir"
	build_cell "$dir" || exit 1
	: >"$dir/events.txt"
	for s in "${GOLDEN_SCENES[@]}"; do
		n=$(golden_steps "$s")
		"$dir/fix2d-replay" run "$s" --steps "$n" --every 1 --digest >"$dir/$s.out" || exit 1
		head -n "$n" "$dir/$s.out" >"$golden/$s.chain"
		sed -n "$((n + 1))s/^digest \([0-9a-f]\{16\}\) .*/$s \1/p" "$dir/$s.out" >>"$dir/events.txt"
	done
	mv "$dir/events.txt" "$golden/events.txt"
	"$dir/fingerprint" | sed 's/ flavour ok$//' >"$golden/fingerprint.txt"
	echo "rewrote ${#GOLDEN_SCENES[@]} chains, events.txt and fingerprint.txt in $golden"
	echo "commit them only with a message that says why the simulation changed"
	check_golden
	exit $?
	;;
esac

cells=()
if [[ -n $cells_arg ]]; then
	IFS=, read -r -a cells <<<"$cells_arg"
	for c in "${cells[@]}"; do
		cell_spec "$c" || {
			echo "run_matrix.sh: unknown cell '$c' (see --list)" >&2
			exit 2
		}
	done
else
	cells=("${ALL_CELLS[@]}")
fi

start=$SECONDS
mkdir -p "$work"
if ! check_golden; then
	echo "matrix: golden files are broken; nothing compared"
	echo "matrix: 0 passed, 1 failed"
	exit 1
fi

echo "matrix: ${#cells[@]} cells, $jobs at a time$([[ $quick == 1 ]] && echo ', quick'), work in $work"
running=0
for c in "${cells[@]}"; do
	run_cell "$c" &
	running=$((running + 1))
	if ((running >= jobs)); then
		wait -n
		running=$((running - 1))
	fi
done
wait

passed=0
failed=0
skipped=0
for c in "${cells[@]}"; do
	result=$(cat "$work/$c/result" 2>/dev/null || echo "FAIL no result (see $work/$c/log)")
	printf '%-22s %s\n' "$c" "$result"
	case $result in
	PASS*)
		passed=$((passed + 1))
		if [[ $c == perturbed-step ]]; then
			grep -m1 '^MISMATCH' "$work/$c/log" | sed 's/^/    as it must: /'
		fi
		;;
	SKIP*)
		if [[ $strict == 1 ]]; then
			failed=$((failed + 1))
			echo "    (strict: a skipped cell fails)"
		else
			skipped=$((skipped + 1))
		fi
		;;
	*)
		failed=$((failed + 1))
		details=$(grep -E '^(MISMATCH|FAIL)|error|ERROR|WARNING: ThreadSanitizer' "$work/$c/log")
		[[ -n $details ]] || details=$(tail -5 "$work/$c/log")
		head -20 <<<"$details" | sed 's/^/    /'
		;;
	esac
done
# Cross-host artifacts, both ways: what a foreign cell (aarch64, big-endian s390x under qemu,
# wasm32 under node) wrote must load and continue identically on this host, with the gcc-O2
# cell's binary (or F2D_MATRIX_HOST_REPLAY); and what this host wrote must do the same in the
# foreign cell.
host=${F2D_MATRIX_HOST_REPLAY:-$work/gcc-O2/fix2d-replay}
# cross_check RUNNER... -- DIR: resumes DIR/cross.f2s for 200 steps and verifies DIR/cross.f2r
# with RUNNER; prints "<first divergence> <verify output>".
cross_check() {
	local runner=() dir
	while [[ $1 != -- ]]; do
		runner+=("$1")
		shift
	done
	dir=$2
	local out=$3 d v
	d=$("${runner[@]}" resume "$dir/cross.f2s" --steps 200 --every 1 >"$out" 2>&1;
		first_divergence <(sed -n '401,600p' "$golden/pyramid20.chain") "$out" 200)
	v=$("${runner[@]}" verify "$dir/cross.f2r" 2>&1)
	echo "$d $v"
}
native_made=""
for c in "${cells[@]}"; do
	[[ -f "$work/$c/cross.f2s" && -f "$work/$c/cross.f2r" ]] || continue
	if [[ ! -x $host ]]; then
		echo "cross-host $c: skipped (no gcc-O2 cell in this run)"
		continue
	fi
	r=$(cross_check "$host" -- "$work/$c" "$work/$c/cross.out")
	if [[ $r == "0 ok 180 frames, final hash "* ]]; then
		echo "cross-host $c: snapshot from $c continues on this host as the golden chain (steps 401-600); its replay verifies: ${r#0 }"
		passed=$((passed + 1))
	else
		echo "cross-host $c: FAIL (snapshot continuation first divergence: ${r%% *}; verify: ${r#* })"
		failed=$((failed + 1))
	fi
	# the other way: this host's snapshot and replay, continued and verified in the cell
	if [[ -z $native_made ]]; then
		native_made="$work/native-cross"
		mkdir -p "$native_made"
		"$host" snapshot pyramid20 --steps 400 -o "$native_made/cross.f2s" >/dev/null &&
			"$host" record pyramid --frames 180 --inputs random:5 -o "$native_made/cross.f2r" \
				>/dev/null || echo "cross-host: this host could not write its artifacts"
	fi
	cell_spec "$c"
	r=$(cross_check "${RUN[@]}" "$work/$c/fix2d-replay" -- "$native_made" "$work/$c/native-cross.out")
	if [[ $r == "0 ok 180 frames, final hash "* ]]; then
		echo "cross-host $c: snapshot from this host continues in $c as the golden chain (steps 401-600); this host's replay verifies there: ${r#0 }"
		passed=$((passed + 1))
	else
		echo "cross-host $c: FAIL (this host's snapshot continued in $c: first divergence ${r%% *}; verify there: ${r#* })"
		failed=$((failed + 1))
	fi
done
echo "matrix: wall time $((SECONDS - start))s"
echo "matrix: $passed passed, $failed failed, $skipped skipped"
if ((failed > 0)); then
	exit 1
fi
if ((passed == 0 && skipped > 0)); then
	exit 77
fi
exit 0
