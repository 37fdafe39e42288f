#!/usr/bin/env bash
# fix2d-replay run --events / --digest (issue 12 §7): the event lines' format and order, the
# digest line, that the digest is stable, independent of what is printed, and changes with the
# events; that the queries of the digest change no step; fix2d-bench --events' line.
# usage: events.sh REPLAY BENCH
# SPDX-License-Identifier: MIT
set -uo pipefail

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

check() { # NAME COMMAND...
	local name=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $name" >&2
	fi
}

digest_of() { sed -n 's/^digest \([0-9a-f]\{16\}\) .*/\1/p' "$1"; }

# ---- format: every line is a step, an event or the digest line ----
"$REPLAY" run sensor_gates --steps 200 --every 50 --events >"$work/sg.out" 2>"$work/sg.err"
check "run --events exits 0" test $? -eq 0
check "stderr is empty" test ! -s "$work/sg.err"
bad=$(grep -Ev '^(step [0-9]+ hash [0-9a-f]{16}|event [0-9]+ (begin|end|sensor_begin|sensor_end) [0-9]+:[0-9]+ [0-9]+:[0-9]+|event [0-9]+ hit [0-9]+:[0-9]+ [0-9]+:[0-9]+( -?[0-9]+){5}|digest [0-9a-f]{16} events [0-9]+ query_hits [0-9]+ query_misses [0-9]+)$' "$work/sg.out" | head -3)
check "every line has the documented format (bad: '$bad')" test -z "$bad"
check "the digest line is the last line" \
	bash -c "tail -1 '$work/sg.out' | grep -Eq '^digest [0-9a-f]{16} '"
check "four step lines (every 50 of 200)" test "$(grep -c '^step ' "$work/sg.out")" -eq 4
for kind in begin end hit sensor_begin sensor_end; do
	n=$(awk -v k="$kind" '$1 == "event" && $3 == k' "$work/sg.out" | wc -l)
	check "sensor_gates has $kind events in 200 steps ($n)" test "$n" -gt 0
done
events=$(grep -c '^event ' "$work/sg.out")
counted=$(sed -n 's/^digest [0-9a-f]* events \([0-9]*\) .*/\1/p' "$work/sg.out")
check "digest counts the printed events ($events vs $counted)" test "$events" = "$counted"
hits=$(sed -n 's/.* query_hits \([0-9]*\) query_misses \([0-9]*\)$/\1 \2/p' "$work/sg.out")
check "the queries hit and miss ($hits)" bash -c "set -- $hits; (( \$1 > 0 && \$2 > 0 ))"
# events come after their step, steps in order; within a step and kind, in the library's
# order: contact events by (a, b) with a < b, sensor events by (sensor, visitor)
order=$(awk '$1 == "step" { s = $2; next }
	$1 == "event" {
		if ($2 < last) { print "step " $2 " after " last; exit }
		if ($2 < s) { print "event of step " $2 " printed after step line " s; exit }
		split($4, a, ":"); split($5, b, ":")
		if ($3 !~ /^sensor/ && a[1] + 0 >= b[1] + 0) { print "a >= b: " $0; exit }
		key = $2 " " $3
		if (key == lastkey && (a[1] + 0 < pa || (a[1] + 0 == pa && b[1] + 0 < pb))) {
			print "out of order: " $0; exit }
		lastkey = key; pa = a[1] + 0; pb = b[1] + 0; last = $2 }' "$work/sg.out")
check "events in step order and the library's order ($order)" test -z "$order"
# a hit's normal is a unit vector (raw Q16.16: |n|^2 within 1% of 2^32) and its speed is above
# the default threshold (1 m/s)
hitbad=$(awk '$3 == "hit" { n2 = $8 * $8 + $9 * $9
	if (n2 < 0.99 * 4294967296 || n2 > 1.01 * 4294967296 || $10 <= 65536) { print; exit } }' \
	"$work/sg.out")
check "hit normals are unit, speeds above 1 m/s ($hitbad)" test -z "$hitbad"

# ---- the digest: stable, the same with or without event lines, --every, changes ----
"$REPLAY" run sensor_gates --steps 200 --every 50 --events >"$work/sg2.out"
check "two runs print the same" cmp -s "$work/sg.out" "$work/sg2.out"
"$REPLAY" run sensor_gates --steps 200 --digest >"$work/sgd.out"
check "--digest prints the last step and the digest only" test "$(wc -l <"$work/sgd.out")" -eq 2
check "--digest gives the digest of --events" test "$(digest_of "$work/sg.out")" = "$(digest_of "$work/sgd.out")"
"$REPLAY" run filtered_teams --steps 200 --digest >"$work/ft.out"
check "another scene, another digest" test "$(digest_of "$work/ft.out")" != "$(digest_of "$work/sgd.out")"
"$REPLAY" run sensor_gates --steps 199 --digest >"$work/sg199.out"
check "one step less, another digest" test "$(digest_of "$work/sg199.out")" != "$(digest_of "$work/sgd.out")"
# the queries after every step change no step: the chain is the one without --digest
"$REPLAY" run ray_field --steps 300 --every 1 >"$work/rf.plain"
"$REPLAY" run ray_field --steps 300 --every 1 --digest >"$work/rf.digest"
check "queries change no step's hash" cmp -s "$work/rf.plain" <(head -300 "$work/rf.digest")
# step 0 of --steps is a usage error as before; --events takes no value
"$REPLAY" run sensor_gates --events=1 >/dev/null 2>&1
check "--events=1 is a usage error" test $? -eq 2

# ---- fix2d-bench --events: the line, the three variants move the bodies alike ----
"$BENCH" pyramid20 --events --runs 1 --steps 5 --warmup 0 >"$work/bench.out" 2>"$work/bench.err"
check "bench --events exits 0 ($(head -c 200 "$work/bench.err"))" test $? -eq 0
check "bench --events line" grep -Eq '^events pyramid20 sleep 0 steps 5 rounds 1 off_ms [0-9.]+ contact_ms [0-9.]+ all_ms [0-9.]+ contact_overhead_pct -?[0-9.]+ all_overhead_pct -?[0-9.]+ contact_events_per_step [0-9.]+ hit_events_per_step [0-9.]+ sensor_events_per_step [0-9.]+$' "$work/bench.out"
check "bench --events prints only that" test "$(wc -l <"$work/bench.out")" -eq 1

echo "events: $passed passed, $failed failed"
[[ $failed == 0 ]]
