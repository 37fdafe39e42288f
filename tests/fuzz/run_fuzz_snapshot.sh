#!/usr/bin/env bash
# Builds the snapshot-loader fuzzer (tests/fuzz/fuzz_snapshot.c) with clang
# -fsanitize=fuzzer,address,undefined and runs it for SECONDS on a copy of the seed corpus.
#   run_fuzz_snapshot.sh SECONDS [WORKDIR]   fuzz (default 60 s, WORKDIR build/fuzz-snapshot)
#   run_fuzz_snapshot.sh --regen             rewrite the seed corpus tests/fuzz/corpus_snapshot/
# Exit 0: no finding; 1: a crash, leak or failed oracle (the input is left in WORKDIR as
# crash-*/leak-*); 77: skipped, no clang with libFuzzer (Debian: apt-get install clang, which
# brings libclang-rt-*-dev with the fuzzer runtime). CC may name another clang.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-clang}
case "$(basename "$cc")" in clang*) ;; *) cc=clang ;; esac

mode=fuzz
secs=60
if [ "${1:-}" = "--regen" ]; then
	mode=regen
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
else
	secs=${1:-60}
	work=${2:-$root/build/fuzz-snapshot}
fi
mkdir -p "$work"

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz_snapshot: skipped: $cc not found (apt-get install clang)"
	exit 77
fi
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$work/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" -o "$work/probe" >/dev/null 2>&1; then
	echo "fuzz_snapshot: skipped: $cc cannot link -fsanitize=fuzzer (apt-get install libclang-rt-dev)"
	exit 77
fi

lib=
for name in liblibfixmath.a libfixmath.a; do # where the compiler's linker looks (multiarch)
	found=$("$cc" -print-file-name="$name")
	if [ -f "$found" ]; then
		lib=$found
		break
	fi
done
if [ -z "$lib" ]; then
	echo "fuzz_snapshot: libfixmath not found (apt-get install libfixmath-dev)" >&2
	exit 1
fi
# the library is every file of src/ (as CMakeLists.txt lists them)
srcs=("$root"/src/*.c)
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -I"$root/include" -I"$root/src")

if [ "$mode" = regen ]; then
	"$cc" "${flags[@]}" -fsanitize=address,undefined -DF2D_FUZZ_GENERATE_CORPUS \
		"$root/tests/fuzz/fuzz_snapshot.c" "${srcs[@]}" "$lib" -o "$work/gen"
	rm -rf "$root/tests/fuzz/corpus_snapshot"
	mkdir -p "$root/tests/fuzz/corpus_snapshot"
	"$work/gen" "$root/tests/fuzz/corpus_snapshot"
	du -sh "$root/tests/fuzz/corpus_snapshot"
	exit 0
fi

"$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	"$root/tests/fuzz/fuzz_snapshot.c" "${srcs[@]}" "$lib" -o "$work/fuzz_snapshot"
mkdir -p "$work/corpus"
echo "fuzz_snapshot: fuzzing for $secs s (corpus $work/corpus + tests/fuzz/corpus_snapshot)"
cd "$work"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
	./fuzz_snapshot -max_total_time="$secs" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/" \
	"$work/corpus" "$root/tests/fuzz/corpus_snapshot"
