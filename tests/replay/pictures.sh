#!/usr/bin/env bash
# Phase hashes, field-level diffs and pictures of fix2d-replay.
# SPDX-License-Identifier: MIT
#
# usage: pictures.sh FIX2D_REPLAY FIX2D_REPLAY_PERTURBED PERTURB_STEP WORKDIR [PNG_PROBE]
#
#  1. `run --phases` is deterministic (two runs give the same bytes), its state hashes are the
#     golden chains' (the traced step changes nothing) and `diff --phases` of two equal outputs
#     says same.
#  2. Against a build whose step PERTURB_STEP adds one LSB to the x velocity of the lowest-id
#     dynamic body right after the velocity solve (F2D_TEST_PERTURB_STEP): `diff --phases`
#     names exactly that step and the phase "velocities"; the field diff of the two portable
#     snapshots after that step names that body and the field v.x, +1 LSB, and nothing else.
#  3. With PNG_PROBE (fix2d-replay built with cairo): pictures read back with cairo and checked
#     by pixels at places computed from the body positions and the mapping the tool prints
#     (a body's colour where it must be, the background where nothing is), never by bytes.
set -uo pipefail

replay=$1
perturbed=$2
pstep=$3
work=$4
probe=${5:-}
golden=$(cd "$(dirname "$0")/../golden" && pwd)
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
# Under the sanitizer build: cairo's toy text API leaves fontconfig's caches allocated at exit
# (libfontconfig, not fix2d); everything else must be free.
echo "leak:libfontconfig" >lsan.supp
export LSAN_OPTIONS="suppressions=$work/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}

# ---- 1. deterministic phase hashes; the traced step computes the golden chains ----
for s in pyramid20 chain50 dominos hinges80 bridge arena circles; do
	"$replay" run $s --steps 150 --phases >"$s.1" || bad "$s: run --phases failed"
	"$replay" run $s --steps 150 --phases >"$s.2" || bad "$s: run --phases failed"
	cmp -s "$s.1" "$s.2" && ok || bad "$s: two runs give different phase hashes"
	[[ $(wc -l <"$s.1") == 150 ]] && ok || bad "$s: $(wc -l <"$s.1") lines, not 150"
	# the state hash column against the golden chain
	if awk '{print "step", $2, "hash", $14}' "$s.1" | cmp -s - <(head -150 "$golden/$s.chain"); then ok; else
		bad "$s: the traced step's state hashes are not the golden chain"
	fi
	out=$("$replay" diff --phases "$s.1" "$s.2")
	[[ $? == 0 && $out == "same: 150 steps" ]] && ok || bad "$s: diff --phases of equal runs: $out"
done
# phases really are hashed per phase: pairs of a resting pile stay, velocities change
awk 'NR > 1 && $4 != p {c++} {p = $4} END {exit !(c > 0)}' pyramid20.1 && ok ||
	bad "pyramid20: the velocity phase never changes"

# ---- 2. the perturbed build: step, phase, body and field ----
for s in pyramid20 chain50 dominos; do
	"$perturbed" run $s --steps 150 --phases >"$s.p"
	out=$("$replay" diff --phases "$s.1" "$s.p")
	st=$?
	[[ $st == 1 ]] && ok || bad "$s: diff --phases of the perturbed run exits $st"
	first=$(head -1 <<<"$out")
	[[ $first == "DIFFER at step $pstep: first phase that differs: velocities" ]] && ok ||
		bad "$s: perturbed diff says: $first"
	# before the velocity phase, the step agrees
	grep -Eq '^  (pairs|manifolds) +([0-9a-f]{16}) \2$' <<<"$out" && ok ||
		bad "$s: pairs/manifolds shown as differing: $out"
done
# the lowest-id dynamic body of pyramid20 is body 1 (the scene creates the static ground first)
"$replay" run pyramid20 --steps 1 --bodies >bodies1.txt
grep -q '^body 0 0.000000 -0.500000 ' bodies1.txt && ok || bad "pyramid20: body 0 is not the ground"
"$replay" snapshot pyramid20 --steps $((pstep - 1)) -o before-a.f2s >/dev/null
"$perturbed" snapshot pyramid20 --steps $((pstep - 1)) -o before-b.f2s >/dev/null
out=$("$replay" diff before-a.f2s before-b.f2s)
[[ $? == 0 && $out == same:* ]] && ok || bad "snapshots before step $pstep differ: $out"
"$replay" snapshot pyramid20 --steps "$pstep" -o a.f2s >/dev/null
"$perturbed" snapshot pyramid20 --steps "$pstep" -o b.f2s >/dev/null
"$replay" diff a.f2s b.f2s >fields.txt
st=$?
[[ $st == 1 ]] && ok || bad "diff of the step-$pstep snapshots exits $st"
grep -Eq '^  body 1 v\.x: -?[0-9]+\.[0-9]{6} m/s -> -?[0-9]+\.[0-9]{6} m/s \(delta \+0\.000015 m/s; raw 0x[0-9a-f]{8} -> 0x[0-9a-f]{8}, \+1 LSB\)$' fields.txt &&
	ok || bad "the field diff does not name body 1 v.x +1 LSB: $(cat fields.txt)"
grep -q '^  1 fields differ$' fields.txt && ok || bad "more than the one field differs: $(cat fields.txt)"
# the raw bits differ by one
raw=$(grep -o 'raw 0x[0-9a-f]* -> 0x[0-9a-f]*' fields.txt | head -1)
read -r _ ra _ rb <<<"$raw"
[[ $((rb - ra)) == 1 ]] && ok || bad "raw bits $raw do not differ by one LSB"
# a later frame: the perturbation has spread to positions and contacts
"$replay" snapshot pyramid20 --steps $((pstep + 20)) -o later-a.f2s >/dev/null
"$perturbed" snapshot pyramid20 --steps $((pstep + 20)) -o later-b.f2s >/dev/null
"$replay" diff later-a.f2s later-b.f2s --limit 1000 >later.txt
grep -Eq '^  body [0-9]+ origin\.[xy]: ' later.txt && ok || bad "20 steps later no body position differs"
grep -q '^  contact [0-9]*-[0-9]* pn\[[01]\]: ' later.txt && ok || bad "20 steps later no contact impulse differs"
# replays: the same file twice is the same, also with --phases
"$replay" record pyramid --frames 90 --inputs random:5 -o r.f2r >/dev/null
out=$("$replay" diff --phases r.f2r r.f2r)
[[ $? == 0 && $out == "same: 90 frames" ]] && ok || bad "diff --phases of a replay with itself: $out"

# ---- 3. pictures, checked by pixels ----
if [[ -z $probe ]]; then
	echo "pictures: fix2d-replay built without cairo; pixel checks skipped"
	echo "pictures: $passed passed, $failed failed"
	[[ $failed == 0 ]]
	exit
fi

# colours of render.c: fills are the colour at a strength over the background
# pixel PNG X Y -> "R G B"
pixel() { "$probe" "$1" "$2" "$3" | awk '{print $3, $4, $5}'; }
# near R G B (each channel within 3 of the expected 0..1 value times 255)
near() {
	local got=$1 want=$2
	awk -v g="$got" -v w="$want" 'BEGIN { split(g, a, " "); split(w, b, " ");
		for (i = 1; i <= 3; ++i) { e = b[i] * 255; if (a[i] < e - 3 || a[i] > e + 3) exit 1 } }'
}
mix() { awk -v c="$1" -v s="$2" 'BEGIN { split("0.10 0.10 0.12", g, " "); split(c, k, " ");
	printf "%.4f %.4f %.4f", g[1] + (k[1] - g[1]) * s, g[2] + (k[2] - g[2]) * s, g[3] + (k[3] - g[3]) * s }'; }
background="0.10 0.10 0.12"
dynamic=$(mix "0.90 0.70 0.70" 0.5)
sleeping=$(mix "0.60 0.60 0.60" 0.3)
static=$(mix "0.50 0.90 0.50" 0.5)
red="0.95 0.15 0.15"
# to_px TILE_LINE X Y -> pixel coordinates (rounded)
to_px() { awk -v x="$2" -v y="$3" '{for (i = 1; i < NF; ++i) { if ($i == "origin") { ox = $(i+1); oy = $(i+2) } if ($i == "scale") s = $(i+1) }
	printf "%d %d", ox + x * s + 0.5, oy - y * s + 0.5 }' <<<"$1"; }
# body_xy SCENE STEPS ID -> "x y"
body_xy() { "$replay" run "$1" --steps "$2" --bodies | awk -v id="$3" '$1 == "body" && $2 == id {print $3, $4}'; }
check_at() { # PNG TILE_LINE X Y WANT WHAT
	local p got
	p=$(to_px "$2" "$3" "$4")
	got=$(pixel "$1" $p)
	if near "$got" "$5"; then ok; else bad "$6: pixel ($p) of $1 is $got, want $5 (x255)"; fi
}

# a falling box, awake: its colour inside it, the ground's under it, background above
"$replay" render single_box --frame 30 -o box30.png >box30.txt || bad "render single_box failed"
tile=$(head -1 box30.txt)
read -r bx by <<<"$(body_xy single_box 30 1)"
check_at box30.png "$tile" "$bx" "$(awk -v y="$by" 'BEGIN{print y - 0.25}')" "$dynamic" "awake box"
check_at box30.png "$tile" "$bx" "$(awk -v y="$by" 'BEGIN{print y + 0.75}')" "$background" "above the box"
check_at box30.png "$tile" "$(awk -v x="$bx" 'BEGIN{print x + 0.8}')" "$by" "$background" "beside the box"
# the label says step and hash
grep -q "^tile 0 frame 30 step 30 hash $("$replay" run single_box --steps 30 | awk '{print $4}') " box30.txt &&
	ok || bad "render's step/hash line: $(cat box30.txt)"
# asleep after it rests: dimmed
"$replay" render single_box --frame 300 -o box300.png >box300.txt
tile=$(head -1 box300.txt)
read -r bx by <<<"$(body_xy single_box 300 1)"
check_at box300.png "$tile" "$bx" "$(awk -v y="$by" 'BEGIN{print y - 0.25}')" "$sleeping" "sleeping box"
check_at box300.png "$tile" "$bx" -0.25 "$static" "the ground under it"
# a filmstrip: three tiles, the box where each frame has it, one view for all
"$replay" render single_box --frame 10 --to 50 --every 20 -o strip.png >strip.txt
[[ $(wc -l <strip.txt) == 3 ]] && ok || bad "filmstrip: $(wc -l <strip.txt) tiles, not 3"
for k in 0 1 2; do
	f=$((10 + 20 * k))
	tile=$(sed -n "$((k + 1))p" strip.txt)
	[[ $tile == "tile $k frame $f "* ]] && ok || bad "filmstrip tile $k: $tile"
	read -r bx by <<<"$(body_xy single_box $f 1)"
	check_at strip.png "$tile" "$bx" "$(awk -v y="$by" 'BEGIN{print y - 0.25}')" "$dynamic" "filmstrip frame $f box"
	check_at strip.png "$tile" "$bx" "$(awk -v y="$by" 'BEGIN{print y + 0.75}')" "$background" "filmstrip frame $f above"
done
# SVG by the extension
"$replay" render bridge --frame 60 --aabb -o bridge.svg >/dev/null && grep -q '<svg' bridge.svg && ok ||
	bad "render .svg wrote no SVG"
# a replay's frame: the pile after 40 recorded frames
"$replay" render r.f2r --frame 40 -o r40.png >r40.txt && grep -q "^tile 0 frame 40 step 40 " r40.txt && ok ||
	bad "render of a replay frame: $(cat r40.txt)"

# the diff picture: the perturbed body red, another body its normal colour
"$replay" diff a.f2s b.f2s --png diff.png >diff.txt
line=$(grep '^diff picture origin' diff.txt)
[[ -n $line ]] && ok || bad "diff --png printed no mapping: $(cat diff.txt)"
read -r bx by <<<"$(body_xy pyramid20 "$pstep" 1)"
check_at diff.png "$line" "$bx" "$(awk -v y="$by" 'BEGIN{print y - 0.25}')" "$red" "the perturbed body"
read -r bx by <<<"$(body_xy pyramid20 "$pstep" 2)"
check_at diff.png "$line" "$bx" "$(awk -v y="$by" 'BEGIN{print y - 0.25}')" "$dynamic" "a body that agrees"

# every joint type and shape kind is read and drawn: the scenes with the other joints and the
# new shapes render, and the field diff of two of their snapshots names a joint field
for s in car_slope elevator soft_bridge ragdoll capsule_ragdolls chain_terrain; do
	"$replay" render "$s" --frame 30 -o "scene_$s.png" >"scene_$s.txt" 2>&1 &&
		grep -q "^tile 0 frame 30 step 30 " "scene_$s.txt" && ok ||
		bad "render $s: $(cat "scene_$s.txt")"
done
"$replay" snapshot car_slope --steps 40 -o car40.f2s >/dev/null &&
	"$replay" snapshot car_slope --steps 41 -o car41.f2s >/dev/null &&
	"$replay" diff car40.f2s car41.f2s >car_diff.txt 2>&1
grep -q "^  joint [0-9]* spring_impulse" car_diff.txt && ok ||
	bad "diff of two car_slope snapshots names no wheel-joint field: $(head -5 car_diff.txt)"

echo "pictures: $passed passed, $failed failed"
[[ $failed == 0 ]]
