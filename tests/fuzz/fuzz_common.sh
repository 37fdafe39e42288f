# Sourced by the run_fuzz_*.sh scripts: what every clang libFuzzer build of fix2d shares.
#   fuzz_init NAME WORKDIR_DEFAULT ARGS...   parses "SECONDS [WORKDIR]" or "--regen"; sets root,
#                                            cc, mode (fuzz|regen), secs, work; exits 77 (ctest:
#                                            skipped) when clang or its libFuzzer runtime is missing
#   fuzz_libfixmath NAME                     sets lib: the liblibfixmath.a the compiler links
#   fuzz_run NAME BINARY MAX_LEN CORPUS      runs BINARY for $secs on $work/corpus + CORPUS, with
#                                            libFuzzer seed F2D_FUZZ_SEED (default 1, so a ctest
#                                            failure replays the same way; 0 = a random seed)
# shellcheck shell=bash

fuzz_init() {
	local name=$1 default_work=$2
	shift 2
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	cc=${CC:-clang}
	case "$(basename "$cc")" in clang*) ;; *) cc=clang ;; esac
	mode=fuzz
	secs=60
	if [ "${1:-}" = "--regen" ]; then
		mode=regen
		work=$(mktemp -d)
		# shellcheck disable=SC2064
		trap "rm -rf '$work'" EXIT
	else
		secs=${1:-60}
		work=${2:-$root/build/$default_work}
	fi
	mkdir -p "$work"
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "$name: skipped: $cc not found (apt-get install clang)"
		exit 77
	fi
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$work/probe.c"
	if ! "$cc" -fsanitize=fuzzer,address,undefined "$work/probe.c" -o "$work/probe" >/dev/null 2>&1; then
		echo "$name: skipped: $cc cannot link -fsanitize=fuzzer (apt-get install libclang-rt-14-dev)"
		exit 77
	fi
}

fuzz_libfixmath() {
	lib=
	local name found
	for name in liblibfixmath.a libfixmath.a; do # where the compiler's linker looks (multiarch)
		found=$("$cc" -print-file-name="$name")
		if [ -f "$found" ]; then
			lib=$found
			return 0
		fi
	done
	echo "$1: libfixmath not found (apt-get install libfixmath-dev)" >&2
	exit 1
}

fuzz_run() {
	local name=$1 bin=$2 max_len=$3 corpus=$4
	mkdir -p "$work/corpus"
	local seed=${F2D_FUZZ_SEED:-1}
	echo "$name: fuzzing for $secs s, seed $seed (corpus $work/corpus + ${corpus#"$root"/})"
	cd "$work"
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
		"$bin" -error_exitcode=1 -seed="$seed" -max_total_time="$secs" -max_len="$max_len" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$corpus"
}
