#!/usr/bin/env bash
# Replay harness contract: record -> verify for every scene, divergence found at the exact
# frame, hash tampering found at the exact frame, cut-off files verify up to their last whole
# frame, bad files exit 2 with one line, diff agrees/differs as it should.
# usage: run.sh FIX2D_REPLAY F2R_EDIT WORKDIR
set -uo pipefail
replay=$1 edit=$2 work=$3
mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_exit() { # expected-status description command...
	local want=$1 what=$2; shift 2
	"$@" >"$work/out" 2>"$work/err"; local got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, wanted $want"; cat "$work/out" "$work/err" | head -5; fi
}

# 1. every scene: record with random inputs, verify
for scene in $("$replay" scenes | awk '{print $1}'); do
	frames=240
	[ "$scene" = rain1000 ] && frames=60
	[ "${scene#large_}" != "$scene" ] && frames=20 # the 1k..10k-box broad-phase benchmarks
	f="$work/$scene.f2r"
	expect_exit 0 "record $scene" "$replay" record "$scene" --frames $frames --inputs random:11 -o "$f"
	recorded=$(awk '{print $6}' "$work/out")
	expect_exit 0 "verify $scene" "$replay" verify "$f"
	if grep -q "^ok $frames frames, final hash $recorded\$" "$work/out"; then ok; else bad "verify $scene summary: $(cat "$work/out")"; fi
done

base="$work/pyramid.f2r"
"$replay" record pyramid --frames 200 --inputs random:5 -o "$base" >/dev/null || bad "record base"

# 2. one input changed at frame k: divergence at exactly k
for k in 0 17 150; do
	"$edit" "$base" "$work/in$k.f2r" input $k || bad "edit input $k"
	expect_exit 1 "verify changed input $k" "$replay" verify "$work/in$k.f2r"
	grep -q "^DIVERGED at frame $k:" "$work/out" && ok || bad "input change at $k reported as: $(head -1 "$work/out")"
	key=$(( (k / 60 + 1) * 60 - 1 ))
	grep -q "^recorded keyframe at frame $key against this simulation:" "$work/out" && ok || bad "no keyframe report at $key: $(cat "$work/out")"
	grep -q "^  body [0-9]*: dx" "$work/out" && ok || bad "no per-body lines for input change at $k"
	expect_exit 1 "diff changed input $k" "$replay" diff "$base" "$work/in$k.f2r"
	grep -q "^DIFFER at frame $k: inputs" "$work/out" && ok || bad "diff at $k reported as: $(head -1 "$work/out")"
	grep -q "bodies differ" "$work/out" && ok || bad "diff $k has no body report"
done

# 3. one recorded hash byte flipped at frame k: reported at k
for k in 0 99 199; do
	"$edit" "$base" "$work/h$k.f2r" hash $k || bad "edit hash $k"
	expect_exit 1 "verify flipped hash $k" "$replay" verify "$work/h$k.f2r"
	grep -q "^DIVERGED at frame $k:" "$work/out" && ok || bad "hash flip at $k reported as: $(head -1 "$work/out")"
done

# 4. diff of a replay with itself, info
expect_exit 0 "diff same" "$replay" diff "$base" "$base"
grep -q "^same: 200 frames" "$work/out" && ok || bad "diff same says $(cat "$work/out")"
expect_exit 0 "info" "$replay" info "$base"
grep -q "^frames 200, hashes 200 (every 1 frames)" "$work/out" && ok || bad "info: $(cat "$work/out")"

# 5. cut off anywhere: verifies up to the last whole frame and says where it ends
size=$(stat -c %s "$base")
for cut in 40 41 62 63 100 1000 2345 $((size / 2)) $((size - 13)) $((size - 1)); do
	head -c $cut "$base" >"$work/cut.f2r"
	"$replay" verify "$work/cut.f2r" >"$work/out" 2>"$work/err"; st=$?
	if [ $st = 0 ]; then
		grep -q "^note: .* ends without an end marker after frame" "$work/out" && ok || bad "cut $cut: no note"
		grep -q "^ok [0-9]* frames" "$work/out" && ok || bad "cut $cut: no summary"
	elif [ $st = 2 ] && [ "$(wc -l <"$work/err")" = 1 ]; then
		ok # cut inside the header: a one-line error
	else
		bad "cut at $cut: exit $st"
	fi
done

# 6. bad files: exit 2, one line on stderr, nothing on stdout
: >"$work/empty.f2r"
printf 'F2R' >"$work/short.f2r"
printf 'NOPE1234567890' >"$work/magic.f2r"
{ printf 'F2RP\x09\x00\x00\x00'; tail -c +9 "$base"; } >"$work/version.f2r"
{ head -c 8 "$base"; printf 'H\xff\xff\xff\x7f'; } >"$work/absurd.f2r"
for pos in 12 30 60 500 3000; do
	cp "$base" "$work/flip$pos.f2r"
	printf '\x5a' | dd of="$work/flip$pos.f2r" bs=1 seek=$pos conv=notrunc status=none
done
for f in empty short magic version absurd flip12 flip30 flip60 flip500 flip3000; do
	"$replay" verify "$work/$f.f2r" >"$work/out" 2>"$work/err"; st=$?
	if [ $st = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && [ ! -s "$work/out" ]; then ok; else bad "bad file $f: exit $st, stderr $(cat "$work/err")"; fi
	"$replay" info "$work/$f.f2r" >/dev/null 2>&1; st=$?
	[ $st = 2 ] && ok || bad "info on bad file $f: exit $st"
	"$replay" diff "$base" "$work/$f.f2r" >/dev/null 2>&1; st=$?
	[ $st = 2 ] && ok || bad "diff with bad file $f: exit $st"
done

# another engine's fingerprint: refused with one line, exit 2
"$edit" "$base" "$work/fp.f2r" fingerprint 0 || bad "edit fingerprint"
expect_exit 2 "verify foreign fingerprint" "$replay" verify "$work/fp.f2r"
grep -q "math fingerprint" "$work/err" && ok || bad "fingerprint refusal says: $(cat "$work/err")"

# 7. --inputs FILE
cat >"$work/inputs.txt" <<'IN'
# frame player command ...
3 0 impulse 2 1 0 4.5
3 1 ball 0.4 1.5 12
10 0 velocity 3 1 1.0 0 0.25
12 2 box 0.5 0.25 -2 14
30 1 destroy 4 1
31 0 payload 48656c6c6f
IN
expect_exit 0 "record from file" "$replay" record single_box --frames 60 --inputs "$work/inputs.txt" -o "$work/file.f2r"
expect_exit 0 "verify file replay" "$replay" verify "$work/file.f2r"
expect_exit 0 "info file replay" "$replay" info "$work/file.f2r"
grep -q "^player 0 inputs 3" "$work/out" && ok || bad "file inputs per player: $(cat "$work/out")"
printf '5 0 warp 1 2\n' >"$work/badinputs.txt"
expect_exit 2 "bad input file" "$replay" record single_box --frames 10 --inputs "$work/badinputs.txt" -o "$work/x.f2r"
expect_exit 2 "missing -o" "$replay" record single_box --frames 10
expect_exit 2 "bad seed" "$replay" record single_box --frames 10 --inputs random:x -o "$work/x.f2r"

echo "replay: $pass passed, $fail failed"
[ "$fail" = 0 ]
