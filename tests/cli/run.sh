#!/usr/bin/env bash
# fix2d command-line contract: fix2d-replay and fix2d-bench output formats and exit codes.
# usage: run.sh REPLAY BENCH
# SPDX-License-Identifier: MIT
set -euo pipefail

if [[ $# -ne 2 ]]; then
	echo "usage: $0 REPLAY BENCH" >&2
	exit 2
fi
REPLAY=$1
BENCH=$2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0
failed=0

pass() {
	passed=$((passed + 1))
}

fail() {
	failed=$((failed + 1))
	echo "FAIL: $*" >&2
}

# check NAME CONDITION-COMMAND...: runs the command, counts pass/fail.
check() {
	local name=$1
	shift
	if "$@"; then
		pass
	else
		fail "$name"
	fi
}

# run_cmd PREFIX CMD...: runs CMD, stdout to $work/PREFIX.out, stderr to $work/PREFIX.err,
# exit status to $work/PREFIX.rc. Never fails.
run_cmd() {
	local prefix=$1
	shift
	local rc=0
	"$@" >"$work/$prefix.out" 2>"$work/$prefix.err" || rc=$?
	echo "$rc" >"$work/$prefix.rc"
}

rc_is() { [[ $(cat "$work/$1.rc") == "$2" ]]; }
lines_of() { wc -l <"$work/$1"; }
line_count_is() { [[ $(lines_of "$1") -eq $2 ]]; }
empty() { [[ ! -s "$work/$1" ]]; }
all_lines_match() { [[ -s "$work/$1" ]] && ! grep -Eqv "$2" "$work/$1"; }
has_line() { grep -Eq "$2" "$work/$1"; }

# ---- scenes ----
run_cmd scenes "$REPLAY" scenes
check "scenes exits 0" rc_is scenes 0
check "scenes prints nothing on stderr" empty scenes.err
check "scenes lines are '<name>  <description>'" all_lines_match scenes.out '^[A-Za-z0-9_]+  .+$'
for s in pyramid20 rain1000 chain50 hinges80 single_box; do
	check "scenes lists $s" has_line scenes.out "^$s  "
done

# ---- run: last step only ----
hex='[0-9a-f]{16}'
run_cmd r10 "$REPLAY" run single_box --steps 10
check "run --steps 10 exits 0" rc_is r10 0
check "run --steps 10 prints one line" line_count_is r10.out 1
check "run --steps 10 prints 'step 10 hash <hex>'" all_lines_match r10.out "^step 10 hash $hex\$"

run_cmd r10b "$REPLAY" run single_box --steps 10
check "run is reproducible" cmp -s "$work/r10.out" "$work/r10b.out"

run_cmd rdef "$REPLAY" run single_box
check "run default exits 0" rc_is rdef 0
check "run default prints step 600 only" all_lines_match rdef.out "^step 600 hash $hex\$"
check "run default prints one line" line_count_is rdef.out 1

# ---- run: --every ----
run_cmd e5 "$REPLAY" run single_box --every 5 --steps 10
check "--every 5 exits 0" rc_is e5 0
check "--every 5 --steps 10 prints two lines" line_count_is e5.out 2
check "--every 5 --steps 10 prints step 5 then 10" \
	bash -c "sed -n 's/^step \\([0-9]*\\) hash [0-9a-f]\\{16\\}\$/\\1/p' '$work/e5.out' |
		paste -sd, - | grep -qx '5,10'"
check "--every hash at step 10 equals the plain run" \
	bash -c "tail -n 1 '$work/e5.out' | cmp -s - '$work/r10.out'"

run_cmd e4 "$REPLAY" run single_box --steps 10 --every 4
check "--every 4 --steps 10 prints 4, 8, 10" \
	bash -c "sed -n 's/^step \\([0-9]*\\) hash .*/\\1/p' '$work/e4.out' | paste -sd, - |
		grep -qx '4,8,10'"
run_cmd e1 "$REPLAY" run chain50 --steps 30 --every 1
check "--every 1 prints every step" line_count_is e1.out 30
run_cmd e1b "$REPLAY" run chain50 --steps 30 --every 1
check "chain50 run is reproducible" cmp -s "$work/e1.out" "$work/e1b.out"

# ---- run: --bodies ----
num='-?[0-9]+\.[0-9]{6}'
body_re="^body [0-9]+ $num $num $num $num $num $num\$"
for s in single_box pyramid20; do
	run_cmd "b_$s" "$REPLAY" run "$s" --steps 10 --bodies
	check "$s --bodies exits 0" rc_is "b_$s" 0
	grep '^body ' "$work/b_$s.out" >"$work/b_$s.bodies" || true
	grep -v '^body ' "$work/b_$s.out" >"$work/b_$s.steps" || true
	check "$s --bodies: one well-formed step line" all_lines_match "b_$s.steps" "^step 10 hash $hex\$"
	check "$s --bodies: step line count" line_count_is "b_$s.steps" 1
	check "$s --bodies: body lines well formed" all_lines_match "b_$s.bodies" "$body_re"
	check "$s --bodies: step line comes first" \
		bash -c "head -n 1 '$work/b_$s.out' | grep -q '^step '"
	check "$s --bodies: ids strictly increasing" \
		bash -c "awk '{ if (NR > 1 && \$2 <= prev) exit 1; prev = \$2 }' '$work/b_$s.bodies'"
	check "$s --bodies: hash equals the plain run" \
		bash -c "'$REPLAY' run '$s' --steps 10 | cmp -s - '$work/b_$s.steps'"
	run_cmd "b2_$s" "$REPLAY" run "$s" --steps 10 --bodies
	check "$s --bodies is reproducible" cmp -s "$work/b_$s.out" "$work/b2_$s.out"
done
check "pyramid20 has more bodies than single_box" \
	test "$(lines_of b_pyramid20.bodies)" -gt "$(lines_of b_single_box.bodies)"

# ---- errors: exit 2, one stderr line, nothing on stdout ----
expect_usage_error() {
	local name=$1
	shift
	run_cmd err "$@"
	check "$name: exit 2" rc_is err 2
	check "$name: nothing on stdout" empty err.out
	check "$name: one line on stderr" line_count_is err.err 1
}
expect_usage_error "unknown scene" "$REPLAY" run no_such_scene
check "unknown scene message names the scene" has_line err.err "unknown scene 'no_such_scene'"
expect_usage_error "--steps abc" "$REPLAY" run single_box --steps abc
expect_usage_error "--steps 0" "$REPLAY" run single_box --steps 0
expect_usage_error "--steps -5" "$REPLAY" run single_box --steps -5
expect_usage_error "--steps 10x" "$REPLAY" run single_box --steps 10x
expect_usage_error "--steps ''" "$REPLAY" run single_box --steps ''
expect_usage_error "--steps too large" "$REPLAY" run single_box --steps 10000001
expect_usage_error "--steps overflow" "$REPLAY" run single_box --steps 99999999999999999999999
expect_usage_error "--every -1" "$REPLAY" run single_box --every -1
expect_usage_error "--every 0" "$REPLAY" run single_box --every 0
expect_usage_error "missing --steps value" "$REPLAY" run single_box --steps
expect_usage_error "missing --every value" "$REPLAY" run single_box --every
expect_usage_error "missing scene" "$REPLAY" run
expect_usage_error "unknown option" "$REPLAY" run single_box --frobnicate
expect_usage_error "extra argument" "$REPLAY" run single_box chain50
expect_usage_error "unknown subcommand" "$REPLAY" frobnicate

run_cmd noargs "$REPLAY"
check "no arguments: exit 2" rc_is noargs 2
check "no arguments: usage on stderr" has_line noargs.err '^usage: '
check "no arguments: nothing on stdout" empty noargs.out
run_cmd help "$REPLAY" --help
check "--help: exit 0" rc_is help 0
check "--help: usage on stdout" has_line help.out '^usage: '
check "--help: mentions run and scenes" bash -c "grep -q run '$work/help.out' &&
	grep -q scenes '$work/help.out'"

# ---- bench ----
run_cmd bench "$BENCH" chain50 --steps 20 --runs 2 --sleep
check "bench exits 0" rc_is bench 0
check "bench prints three lines" line_count_is bench.out 3
check "bench scene line" has_line bench.out \
	"^scene chain50 sleep 1 bodies [0-9]+ awake [0-9]+ steps 20 ms_per_step [0-9]+\\.[0-9]{4} hash $hex allocs_in_steps [0-9]+ kernel (avx512|scalar)\$"
check "bench hash line" has_line bench.out \
	'^hash chain50 us_per_hash [0-9]+\.[0-9]+ pct_of_step [0-9]+\.[0-9]{2}$'
check "bench snapshot line" has_line bench.out \
	'^snapshot chain50 bytes [0-9]+ bytes_per_body [0-9]+\.[0-9] save_restore_ms [0-9]+\.[0-9]{4} rollback8_ms [0-9]+\.[0-9]{3} arbiter_bytes [0-9]+ portable_bytes [0-9]+ allocs_in_save_restore 0$'
run_cmd bench_nosleep "$BENCH" chain50 --steps 5 --runs 1
check "bench sleeps off by default" has_line bench_nosleep.out '^scene chain50 sleep 0 bodies 51 awake 50 '
run_cmd bench_bad "$BENCH" no_such_scene --runs 1
check "bench unknown scene: exit 2" rc_is bench_bad 2
run_cmd bench_bad "$BENCH" chain50 --runs 0
check "bench --runs 0: exit 2" rc_is bench_bad 2

# The bench world (counting allocator, warm-up) must reach the same state as the replay run.
bench_hash=$(sed -n 's/^scene chain50 .* hash \([0-9a-f]\{16\}\) .*/\1/p' "$work/bench.out")
run_cmd r80 "$REPLAY" run chain50 --steps 80
check "bench --sleep hash (60 warm-up + 20 steps) equals replay at step 80" \
	test "step 80 hash $bench_hash" = "$(cat "$work/r80.out")"

echo "cli: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
