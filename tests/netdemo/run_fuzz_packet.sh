#!/usr/bin/env bash
# Builds the netdemo packet fuzzer (tests/fuzz/fuzz_packet.c with netdemo/packet.c and
# netdemo/session.c) with clang -fsanitize=fuzzer,address,undefined and runs it for SECONDS on a
# copy of the seed corpus.
#   run_fuzz_packet.sh SECONDS [WORKDIR]   fuzz (default 60 s, WORKDIR build/fuzz-packet)
#   run_fuzz_packet.sh --regen             rewrite the seed corpus tests/fuzz/corpus_packet/
# Exit 0: no finding; 1: a crash, leak or failed oracle (the input is left in WORKDIR as
# crash-*/leak-*); 77: skipped, no clang with libFuzzer (Debian: apt-get install clang).
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
	work=${2:-$root/build/fuzz-packet}
fi
mkdir -p "$work"

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz_packet: skipped: $cc not found (apt-get install clang)"
	exit 77
fi
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$work/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" -o "$work/probe" >/dev/null 2>&1; then
	echo "fuzz_packet: skipped: $cc cannot link -fsanitize=fuzzer (apt-get install libclang-rt-dev)"
	exit 77
fi
srcs=("$root/netdemo/packet.c" "$root/netdemo/session.c")
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wpedantic -Werror -I"$root/netdemo")

if [ "$mode" = regen ]; then
	"$cc" "${flags[@]}" -fsanitize=address,undefined -DND_FUZZ_GENERATE_CORPUS \
		"$root/tests/fuzz/fuzz_packet.c" "${srcs[@]}" -o "$work/gen"
	rm -rf "$root/tests/fuzz/corpus_packet"
	mkdir -p "$root/tests/fuzz/corpus_packet"
	"$work/gen" "$root/tests/fuzz/corpus_packet"
	du -sh "$root/tests/fuzz/corpus_packet"
	exit 0
fi

"$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	"$root/tests/fuzz/fuzz_packet.c" "${srcs[@]}" -o "$work/fuzz_packet"
mkdir -p "$work/corpus"
echo "fuzz_packet: fuzzing for $secs s (corpus $work/corpus + tests/fuzz/corpus_packet)"
cd "$work"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
	./fuzz_packet -max_total_time="$secs" -max_len=8192 -timeout=20 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/" \
	"$work/corpus" "$root/tests/fuzz/corpus_packet"
