#!/usr/bin/env bash
# Replay harness contract: record -> verify for every scene, divergence found at the exact
# frame, hash tampering found at the exact frame, cut-off files verify up to their last whole
# frame, bad files exit 2 with one line, diff agrees/differs as it should; the same for replays
# that start from a portable snapshot (start kind 1) instead of a named scene.
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

# 2. one input changed at frame k: divergence at exactly k, the keyframe report with per-body
# lines, diff at k with a body report.
#   input_changes LABEL BASE FRAME...
input_changes() {
	local label=$1 b=$2 k
	shift 2
	for k in "$@"; do
		"$edit" "$b" "$work/$label-in$k.f2r" input "$k" || bad "$label: edit input $k"
		expect_exit 1 "$label: verify changed input $k" "$replay" verify "$work/$label-in$k.f2r"
		grep -q "^DIVERGED at frame $k:" "$work/out" && ok || bad "$label: input change at $k reported as: $(head -1 "$work/out")"
		key=$(( (k / 60 + 1) * 60 - 1 ))
		grep -q "^recorded keyframe at frame $key against this simulation:" "$work/out" && ok || bad "$label: no keyframe report at $key: $(cat "$work/out")"
		grep -q "^  body [0-9]*: dx" "$work/out" && ok || bad "$label: no per-body lines for input change at $k"
		expect_exit 1 "$label: diff changed input $k" "$replay" diff "$b" "$work/$label-in$k.f2r"
		grep -q "^DIFFER at frame $k: inputs" "$work/out" && ok || bad "$label: diff at $k reported as: $(head -1 "$work/out")"
		grep -q "bodies differ" "$work/out" && ok || bad "$label: diff $k has no body report"
	done
}
input_changes scene "$base" 0 17 150

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

# a header that contradicts its start world (valid checksums): a bad file, exit 2 with one
# line, from verify, info and diff alike
for d in 1 -1 65536; do
	"$edit" "$base" "$work/ts$d.f2r" timestep $d || bad "edit time step $d"
	for sub in verify info; do
		"$replay" $sub "$work/ts$d.f2r" >"$work/out" 2>"$work/err"; st=$?
		if [ $st = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && [ ! -s "$work/out" ]; then ok; else bad "$sub time step +$d: exit $st, stdout $(head -c 200 "$work/out"), stderr $(cat "$work/err")"; fi
		grep -q "the header's time step .* is not the start scene's 0.016663 s" "$work/err" && ok || bad "$sub time step +$d says: $(cat "$work/err")"
	done
	"$replay" diff "$base" "$work/ts$d.f2r" >/dev/null 2>&1; st=$?
	[ $st = 2 ] && ok || bad "diff with time step +$d: exit $st"
done

# the header's reserved scene parameter must be zero
"$edit" "$base" "$work/param.f2r" sceneparam 1 || bad "edit scene parameter"
for sub in verify info; do
	"$replay" $sub "$work/param.f2r" >"$work/out" 2>"$work/err"; st=$?
	if [ $st = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && [ ! -s "$work/out" ]; then ok; else bad "$sub scene parameter 1: exit $st, stderr $(cat "$work/err")"; fi
	grep -q "reserved scene parameter" "$work/err" && ok || bad "$sub scene parameter says: $(cat "$work/err")"
done

# the reserved bytes 6-7 of the file head must be zero (the checksums do not cover them)
for pos in 6 7; do
	for byte in '\x01' '\x80'; do
		cp "$base" "$work/res$pos.f2r"
		printf "$byte" | dd of="$work/res$pos.f2r" bs=1 seek=$pos conv=notrunc status=none
		for sub in verify info; do
			"$replay" $sub "$work/res$pos.f2r" >"$work/out" 2>"$work/err"; st=$?
			if [ $st = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && [ ! -s "$work/out" ]; then ok; else bad "$sub reserved byte $pos = $byte: exit $st, stderr $(cat "$work/err")"; fi
			grep -q "reserved bytes 6-7" "$work/err" && ok || bad "$sub reserved byte $pos says: $(cat "$work/err")"
		done
	done
done

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

# 8. replays that start from a portable snapshot (start kind 1, an 'S' chunk after the header)
one_line_exit2() { # description command...: exit 2, one line on stderr, nothing on stdout
	local what=$1; shift
	"$@" >"$work/out" 2>"$work/err"; local st=$?
	if [ $st = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && [ ! -s "$work/out" ]; then ok; else bad "$what: exit $st, stdout $(head -c 200 "$work/out"), stderr $(cat "$work/err")"; fi
}
for spec in pyramid:100:200 rain1000:60:30 arena:200:120; do
	IFS=: read -r scene steps frames <<<"$spec"
	snap="$work/$scene-$steps.snap"
	expect_exit 0 "snapshot $scene" "$replay" snapshot "$scene" --steps "$steps" -o "$snap"
	bytes=$(stat -c %s "$snap")
	f="$work/snap-$scene.f2r"
	expect_exit 0 "record --snapshot $scene" "$replay" record --snapshot "$snap" --frames "$frames" --inputs random:7 -o "$f"
	recorded=$(awk '{print $6}' "$work/out")
	expect_exit 0 "verify snapshot-started $scene" "$replay" verify "$f"
	grep -q "^ok $frames frames, final hash $recorded\$" "$work/out" && ok || bad "verify snapshot-started $scene summary: $(cat "$work/out")"
	expect_exit 0 "info snapshot-started $scene" "$replay" info "$f"
	grep -q "^start snapshot $scene-$steps.snap, $bytes bytes, step $steps," "$work/out" && ok || bad "info snapshot-started $scene: $(cat "$work/out")"
	# no inputs: the replay's final hash is resume's and run's after steps + frames steps
	expect_exit 0 "record --snapshot $scene, no inputs" "$replay" record --snapshot "$snap" --frames "$frames" --inputs /dev/null -o "$work/quiet-$scene.f2r"
	expect_exit 0 "verify quiet $scene" "$replay" verify "$work/quiet-$scene.f2r"
	quiet=$(awk '/^ok/ {print $6}' "$work/out")
	expect_exit 0 "resume $scene" "$replay" resume "$snap" --steps "$frames"
	grep -q "^step $((steps + frames)) hash $quiet\$" "$work/out" && ok || bad "quiet $scene replay ends at $quiet, resume says $(cat "$work/out")"
	expect_exit 0 "run $scene" "$replay" run "$scene" --steps $((steps + frames))
	grep -q "^step $((steps + frames)) hash $quiet\$" "$work/out" && ok || bad "quiet $scene replay ends at $quiet, run says $(cat "$work/out")"
done

sbase="$work/snap-pyramid.f2r" # pyramid after 100 steps, 200 frames of random:7
# one input changed at frame k: divergence at exactly k, keyframe report, diff at k (146: an
# impulse that edit.c strengthens; on a frame without inputs edit.c adds a kick to the body
# with index1 2, which this replay's random inputs destroy at frame 33: refused, no divergence)
input_changes snapshot "$sbase" 0 17 146
"$edit" "$sbase" "$work/sh99.f2r" hash 99 || bad "edit snapshot-started hash 99"
expect_exit 1 "verify snapshot-started flipped hash" "$replay" verify "$work/sh99.f2r"
grep -q "^DIVERGED at frame 99:" "$work/out" && ok || bad "snapshot-started hash flip reported as: $(head -1 "$work/out")"

# diff: starts are compared by the snapshot's bytes (the label does not matter)
expect_exit 0 "diff snapshot-started with itself" "$replay" diff "$sbase" "$sbase"
grep -q "^same: 200 frames" "$work/out" && ok || bad "diff snapshot-started same: $(cat "$work/out")"
cp "$work/pyramid-100.snap" "$work/renamed.snap"
"$replay" record --snapshot "$work/renamed.snap" --frames 200 --inputs random:7 -o "$work/renamed.f2r" >/dev/null || bad "record renamed"
expect_exit 0 "diff same snapshot, other label" "$replay" diff "$sbase" "$work/renamed.f2r"
"$replay" snapshot pyramid --steps 101 -o "$work/pyramid-101.snap" >/dev/null || bad "snapshot pyramid 101"
"$replay" record --snapshot "$work/pyramid-101.snap" --frames 200 --inputs random:7 -o "$work/snap101.f2r" >/dev/null || bad "record 101"
expect_exit 1 "diff other snapshot" "$replay" diff "$sbase" "$work/snap101.f2r"
grep -q "^DIFFER at start: snapshot pyramid-100.snap" "$work/out" && ok || bad "diff other snapshot: $(cat "$work/out")"
expect_exit 1 "diff scene vs snapshot start" "$replay" diff "$base" "$sbase"
grep -q "^DIFFER at start: scene pyramid vs snapshot pyramid-100.snap" "$work/out" && ok || bad "diff scene vs snapshot: $(cat "$work/out")"

# the embedded snapshot damaged: exit 2 with one line, from verify, info and diff
label=pyramid-100.snap
s_at=$((55 + ${#label})) # 8-byte file head + 'H' chunk (9 + 30 + label + 8)
s_len=$(stat -c %s "$work/$label")
s_end=$((s_at + 9 + s_len + 8))
"$edit" "$sbase" "$work/snapsum.f2r" snapshot 60 || bad "edit snapshot byte 60"   # payload: checksum
"$edit" "$sbase" "$work/snapver.f2r" snapshot 8 || bad "edit snapshot byte 8"     # format version
"$edit" "$sbase" "$work/snapend.f2r" snapshot $((s_len - 1)) || bad "edit last snapshot byte"
cp "$sbase" "$work/snapraw.f2r" # one byte flipped, chunk checksum not fixed
printf '\x5a' | dd of="$work/snapraw.f2r" bs=1 seek=$((s_at + 9 + 500)) conv=notrunc status=none
for f in snapsum snapver snapend snapraw; do
	one_line_exit2 "verify $f" "$replay" verify "$work/$f.f2r"
	case $f in snapraw) want="chunk checksum mismatch" ;; *) want="bad start snapshot: " ;; esac
	grep -q "$want" "$work/err" && ok || bad "$f says: $(cat "$work/err")"
	one_line_exit2 "info $f" "$replay" info "$work/$f.f2r"
	one_line_exit2 "diff $f" "$replay" diff "$sbase" "$work/$f.f2r"
done

# a snapshot-started replay whose header's time step is not the snapshot's: exit 2
"$edit" "$sbase" "$work/sts.f2r" timestep 1 || bad "edit snapshot-started time step"
for sub in verify info; do
	one_line_exit2 "$sub snapshot-started time step +1" "$replay" $sub "$work/sts.f2r"
	grep -q "the header's time step .* is not the start snapshot's" "$work/err" && ok || bad "$sub snapshot-started time step says: $(cat "$work/err")"
done
"$replay" diff "$sbase" "$work/sts.f2r" >/dev/null 2>&1; st=$?
[ $st = 2 ] && ok || bad "diff with snapshot-started time step +1: exit $st"

# the 'S' chunk only right after a kind-1 header, once: spliced files are refused
{ head -c 62 "$base"; head -c $s_end "$sbase" | tail -c +$((s_at + 1)); tail -c +63 "$base"; } >"$work/s-in-scene.f2r"
{ head -c $s_end "$sbase"; head -c $s_end "$sbase" | tail -c +$((s_at + 1)); tail -c +$((s_end + 1)) "$sbase"; } >"$work/s-twice.f2r"
{ head -c $s_at "$sbase"; tail -c +$((s_end + 1)) "$sbase"; } >"$work/s-missing.f2r"
one_line_exit2 "S chunk in a scene replay" "$replay" verify "$work/s-in-scene.f2r"
grep -q "start snapshot out of place" "$work/err" && ok || bad "S in scene replay says: $(cat "$work/err")"
one_line_exit2 "S chunk twice" "$replay" verify "$work/s-twice.f2r"
grep -q "start snapshot out of place" "$work/err" && ok || bad "S twice says: $(cat "$work/err")"
one_line_exit2 "S chunk missing" "$replay" verify "$work/s-missing.f2r"
grep -q "start snapshot missing" "$work/err" && ok || bad "S missing says: $(cat "$work/err")"

# cut off: inside the header or the start snapshot, the file is refused like a cut-off header
# (exit 2, one line); after it, it verifies up to its last whole frame
for cut in 30 $s_at $((s_at + 5)) $((s_at + 9)) $((s_at + 9 + s_len / 2)) $((s_end - 1)); do
	head -c $cut "$sbase" >"$work/scut.f2r"
	one_line_exit2 "snapshot-started cut at $cut" "$replay" verify "$work/scut.f2r"
	[ $cut -le $s_at ] || grep -q "truncated start snapshot" "$work/err" && ok || bad "cut at $cut says: $(cat "$work/err")"
done
ssize=$(stat -c %s "$sbase")
for cut in $s_end $((s_end + 20)) $((ssize / 2)) $((ssize - 1)); do
	head -c $cut "$sbase" >"$work/scut.f2r"
	expect_exit 0 "snapshot-started cut at $cut" "$replay" verify "$work/scut.f2r"
	grep -q "^note: .* ends without an end marker after frame" "$work/out" && ok || bad "snapshot-started cut $cut: no note"
done
head -c $s_end "$sbase" >"$work/scut.f2r"
expect_exit 0 "snapshot-started cut right after S" "$replay" verify "$work/scut.f2r"
grep -q "^ok 0 frames" "$work/out" && ok || bad "cut right after S: $(cat "$work/out")"

# record: SCENE or --snapshot, exactly one; the snapshot must load
expect_exit 2 "record with SCENE and --snapshot" "$replay" record pyramid --snapshot "$work/pyramid-100.snap" --frames 5 -o "$work/x.f2r"
expect_exit 2 "record with neither" "$replay" record --frames 5 -o "$work/x.f2r"
one_line_exit2 "record --snapshot missing file" "$replay" record --snapshot "$work/nonexistent.snap" --frames 5 -o "$work/x.f2r"
one_line_exit2 "record --snapshot of a replay" "$replay" record --snapshot "$base" --frames 5 -o "$work/x.f2r"
grep -q "not a loadable snapshot" "$work/err" && ok || bad "record --snapshot of a replay says: $(cat "$work/err")"

echo "replay: $pass passed, $fail failed"
[ "$fail" = 0 ]
