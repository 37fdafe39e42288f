#!/usr/bin/env bash
# The viewer fix2d-view, driven by scripts in a real X server (its own Xvfb; without Xvfb, the
# DISPLAY it is given, or else SDL's dummy video driver). Screenshots are read back from
# the renderer (SDL_RenderReadPixels) and checked by pixels at places computed from body
# positions and the mapping the viewer prints, never by bytes.
# SPDX-License-Identifier: MIT
#
# usage: run.sh FIX2D_VIEW FIX2D_REPLAY F2R_EDIT PNG_PROBE WORKDIR
#
#  1. A scene after N frames: the hash is fix2d-replay's; the box's colour where the box is,
#     the ground's under it, the background beside and above it; its contact points yellow,
#     and not after C; + zooms by 1.25, a right drag pans, and the box stays under its pixels.
#  2. Scrubbing (keyframes every 7 frames, restore and simulate again): home, end, step back
#     and step give fix2d-replay's hashes of those frames; a .bmp screenshot.
#  3. A scripted drag moves the box (its position differs from the run without the drag, and
#     it is where the cursor took it, on screen too) with a mouse joint: made at the press
#     (the viewer's log and its `joints` line: anchored to the ground, on the box, max force
#     1000 N/kg x mass saturated at 32768 N), its target moved to the cursor, its anchor on the
#     box at the target after 60 frames, destroyed after the release; --record writes a replay
#     that `fix2d-replay verify` accepts with the viewer's final hash, the joint's commands
#     recorded as player 255's inputs (create_joint 1, set_mouse_target 1, destroy_joint 1);
#     the viewer plays that replay back to the same hash.
#  3b. Rewinding while dragging: stepping back into the first drag during a second one
#     destroys the first drag's joint (its destroy was in the dropped frames) and makes one new
#     joint, whose target is the cursor a frame later; a step back and forth inside a drag
#     gives the same hash; the recording verifies.
#  3c. A dragged body that does not exist at the frame the viewer is taken to (rewound before
#     it was spawned) ends the drag without a command (the replay's hash at its end is
#     unchanged); a body destroyed by a player's command in the frame the joint is made: the
#     joint is refused and the drag ends, and the recording verifies. 3d. A press on the
#     static ground drags nothing (no command, fix2d-replay's hash).
#  4. A replay whose recorded hash was changed: the viewer names the frame.
#  5. Two replays whose inputs part at frame 50: the viewer names frame 50 as fix2d-replay
#     diff does, and draws the diverged body red there, not one frame before.
#  6. Bad use exits 2.
#  7. In a sanitizer build: the scripts once more under SDL's dummy driver, with leak checks.
set -uo pipefail

view=$1
replay=$2
edit=$3
probe=$4
work=$5

abs() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
view=$(abs "$view")
replay=$(abs "$replay")
edit=$(abs "$edit")
probe=$(abs "$probe")
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

# Our own X server (Xvfb, the server xvfb-run starts), on a display number it picks itself
# (-displayfd: no race with other X servers on the machine, as xvfb-run -a has).
xvfb_pid=""
if [[ -z ${F2D_VIEW_DISPLAY_KEEP:-} ]] && command -v Xvfb >/dev/null; then
	Xvfb -displayfd 9 -screen 0 1280x1024x24 -nolisten tcp 9>"$work/display" 2>"$work/xvfb.log" &
	xvfb_pid=$!
	trap 'kill "$xvfb_pid" 2>/dev/null' EXIT
	for _ in $(seq 100); do
		[[ -s $work/display ]] && break
		sleep 0.1
	done
	if [[ -s $work/display ]]; then
		export DISPLAY=":$(head -1 "$work/display")"
		unset XAUTHORITY
		echo "view: Xvfb on display $DISPLAY"
	else
		echo "view: Xvfb did not start: $(cat "$work/xvfb.log")"
		exit 1
	fi
elif [[ -z ${DISPLAY:-} ]]; then
	echo "view: no Xvfb and no DISPLAY: SDL's dummy video driver"
	export SDL_VIDEODRIVER=dummy
fi
# Under the sanitizer build: X11, Mesa and fontconfig keep allocations until exit (not fix2d).
printf 'leak:libX11\nleak:libxcb\nleak:libSDL2\nleak:libfontconfig\nleak:libGLX\nleak:libGL\nleak:libdbus\nleak:libEGL\nleak:dri\nleak:libLLVM\n' >lsan.supp
export LSAN_OPTIONS="suppressions=$work/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# In a sanitizer build, SDL's X11 video driver loads libraries (X11, GLX, Mesa) with dlopen and
# unloads them at SDL_Quit; LSan then reports their own unfreed allocations with no module name
# to suppress them by. So the windowed runs there go without leak detection, and section 7
# runs the scripts again under SDL's dummy video driver (no X11, no GL) with leak detection on.
asan=""
# (grep reads all of ldd's output: with -q it would stop at the first match, ldd would die of
# SIGPIPE while still writing, and pipefail would then make the test miss a sanitizer build)
if ldd "$view" 2>/dev/null | grep libasan >/dev/null; then
	asan=1
fi
run_view() {
	if [[ -n $asan && -z ${SDL_VIDEODRIVER:-} ]]; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$view" "$@"
	else
		"$view" "$@"
	fi
}

passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}

# colours of replay/draw.c: fills are the colour at a strength over the background
near() { # "R G B" (0..255) "r g b" (0..1): each channel within 3
	awk -v g="$1" -v w="$2" 'BEGIN { split(g, a, " "); split(w, b, " ");
		for (i = 1; i <= 3; ++i) { e = b[i] * 255; if (a[i] < e - 3 || a[i] > e + 3) exit 1 } }'
}
mix() { awk -v c="$1" -v s="$2" 'BEGIN { split("0.10 0.10 0.12", g, " "); split(c, k, " ");
	printf "%.4f %.4f %.4f", g[1] + (k[1] - g[1]) * s, g[2] + (k[2] - g[2]) * s, g[3] + (k[3] - g[3]) * s }'; }
background="0.10 0.10 0.12"
dynamic=$(mix "0.90 0.70 0.70" 0.5)
static=$(mix "0.50 0.90 0.50" 0.5)
red="0.95 0.15 0.15"
# to_px SCREENSHOT_LINE X Y -> pixel (rounded): (ox + x s, oy - y s)
to_px() { awk -v x="$2" -v y="$3" '{for (i = 1; i < NF; ++i) { if ($i == "origin") { ox = $(i+1); oy = $(i+2) } if ($i == "scale") s = $(i+1) }
	printf "%d %d", ox + x * s + 0.5, oy - y * s + 0.5 }' <<<"$1"; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a + b }'; }
check_at() { # PNG SCREENSHOT_LINE X Y WANT WHAT
	local p got
	p=$(to_px "$2" "$3" "$4")
	got=$("$probe" "$1" $p | awk '{print $3, $4, $5}')
	if near "$got" "$5"; then ok; else bad "$6: pixel ($p) of $1 is '$got', want $5 (x255)"; fi
}
hash_at() { "$replay" run "$1" --steps "$2" | awk '{print $4}'; }
body_xy() { awk -v id="$2" '$1 == "body" && $2 == id {print $3, $4}' "$1"; }

# ---- 1. a scene after 30 frames ----
run_view single_box --frames 30 --screenshot box.png >box.txt 2>box.err || bad "view single_box --frames 30 failed (exit $?): $(cat box.err)"
shot=$(grep '^screenshot box.png ' box.txt)
[[ $shot == "screenshot box.png frame 30 step 30 hash $(hash_at single_box 30) "* ]] && ok ||
	bad "the viewer's frame 30 is not fix2d-replay's: $shot"
"$replay" run single_box --steps 30 --bodies >b30.txt
read -r bx by <<<"$(body_xy b30.txt 1)"
check_at box.png "$shot" "$(add "$bx" -0.25)" "$(add "$by" -0.25)" "$dynamic" "inside the box"
check_at box.png "$shot" "$bx" "$(add "$by" 1.0)" "$background" "above the box"
check_at box.png "$shot" "$(add "$bx" 1.0)" "$by" "$background" "beside the box"
check_at box.png "$shot" "$bx" -0.25 "$static" "the ground"

# contacts (C) and the view (+ zoom, right-drag pan) at rest, frame 120
cat >rest.txt <<'EOF'
step 120
screenshot rest0.png
key c
screenshot rest1.png
key c
key plus
mouse down right 0 0
mouse move 1 0
mouse up right 1 0
screenshot rest2.png
EOF
run_view single_box --script rest.txt >rest.out 2>rest.err || bad "rest script failed (exit $?): $(cat rest.err)"
"$replay" run single_box --steps 120 --bodies >b120.txt
read -r bx by <<<"$(body_xy b120.txt 1)"
s0=$(grep '^screenshot rest0.png ' rest.out)
s1=$(grep '^screenshot rest1.png ' rest.out)
s2=$(grep '^screenshot rest2.png ' rest.out)
# the box's two contact points: its bottom corners, midway between its bottom and the ground's
# top (y = 0); yellow with contacts shown, not after C
cy=$(awk -v y="$by" 'BEGIN { printf "%.6f", (y - 0.5) / 2 }')
yellow="1.00 0.90 0.20"
for cx in "$(add "$bx" -0.5)" "$(add "$bx" 0.5)"; do
	check_at rest0.png "$s0" "$cx" "$cy" "$yellow" "contact point ($cx, $cy)"
	got=$("$probe" rest1.png $(to_px "$s1" "$cx" "$cy") | awk '{print $3, $4, $5}')
	if [[ -n $got ]] && ! near "$got" "$yellow"; then ok; else bad "contact point ($cx, $cy) after C: '$got'"; fi
done
# + zooms by 1.25; a right drag of 1 m moves the origin by 1 m of pixels; the same world point
# has the same colour before and after
field() { awk -v k="$2" '{for (i = 1; i < NF; ++i) if ($i == k) print $(i+1)}' <<<"$1"; }
awk -v s0="$(field "$s0" scale)" -v s2="$(field "$s2" scale)" -v o0="$(field "$s0" origin)" \
	-v o2="$(field "$s2" origin)" 'BEGIN { d = s2 / s0 - 1.25; e = o2 - o0 - s2;
	exit !(d > -0.001 && d < 0.001 && e > -1 && e < 1) }' && ok || bad "zoom and pan: $s0 / $s2"
p0=$("$probe" rest0.png $(to_px "$s0" "$(add "$bx" -0.25)" "$(add "$by" -0.25)") | awk '{print $3, $4, $5}')
p2=$("$probe" rest2.png $(to_px "$s2" "$(add "$bx" -0.25)" "$(add "$by" -0.25)") | awk '{print $3, $4, $5}')
if [[ -n $p0 && $p0 == "$p2" ]] && ! near "$p0" "$background"; then ok; else
	bad "the box after zoom and pan: '$p2', before: '$p0'"
fi

# ---- 2. scrubbing ----
cat >scrub.txt <<'EOF'
step 100
print
key home
print
key end
print
key left
key left
key left
print
key right
print
screenshot scrub.bmp
EOF
run_view pyramid --keyframe-every 7 --script scrub.txt >scrub.out 2>scrub.err || bad "scrub script failed (exit $?): $(cat scrub.err)"
# frame 0: the world the viewer opens with (fix2d-replay run takes at least one step)
printf 'print\n' >start.txt
want=""
for f in 100 0 100 97 98; do
	if [[ $f == 0 ]]; then
		want+="$(run_view pyramid --script start.txt)"$'\n'
	else
		want+="frame $f hash $(hash_at pyramid $f)"$'\n'
	fi
done
[[ $(grep '^frame' scrub.out)$'\n' == "$want" ]] && ok || bad "scrubbing: got
$(grep '^frame' scrub.out)
want
$want"
[[ $(head -c 2 scrub.bmp) == BM ]] && ok || bad "scrub.bmp is not a BMP"
read -r w h <<<"$(grep -o 'size [0-9]*x[0-9]*' scrub.out | tr 'x' ' ' | awk '{print $2, $3}')"
[[ $(stat -c %s scrub.bmp) -ge $((w * h * 3)) ]] && ok || bad "scrub.bmp is too small for ${w}x${h}"

# ---- 3. a drag, recorded ----
cat >drag.txt <<'EOF'
step 30
mouse down left 0 2.7
mouse move 2 3
key space
wait 60
screenshot drag.png
joints
mouse up left 2 3
wait 30
key space
print
bodies
joints
EOF
run_view single_box --script drag.txt --record drag.f2r >drag.out 2>drag.err || bad "drag script failed (exit $?): $(cat drag.err)"
"$replay" run single_box --steps 120 --bodies >nodrag.txt
read -r dx dy <<<"$(body_xy drag.out 1)"
read -r nx ny <<<"$(body_xy nodrag.txt 1)"
[[ -n $dx && "$dx $dy" != "$nx $ny" ]] && ok || bad "the drag did not move the box: $dx $dy vs $nx $ny"
# the mouse joint: made at frame 30 at the press point on body 1, anchored to the ground (body
# 0), max force 1000 N/kg x 200 kg saturated to fix16's largest; destroyed at frame 90
grep -Eq '^drag: frame 30: mouse joint 0:1 on body 1 \(anchor body 0\), target 0\.0+ 2\.7[0-9]*, max force 32767\.99[0-9]* N$' drag.out && ok ||
	bad "the drag's mouse joint was not made as expected: $(grep '^drag:' drag.out)"
grep -q '^drag: frame 90: mouse joint 0:1 destroyed$' drag.out && ok || bad "the mouse joint was not destroyed at frame 90: $(grep '^drag:' drag.out)"
# at frame 90 (before the release) the joint's target is the cursor and B's anchor is within
# 5 cm of it: the box was pulled to the target; after the release no joint is left
jl=$(awk '/^screenshot drag.png/ {f = 1} f && $1 == "joint" {print; exit}' drag.out)
read -r _ jid jtype ja jb _ _ ax ay _ tx ty <<<"$jl"
[[ $jid == 0:1 && $jtype == mouse && $ja == 0 && $jb == 1 ]] && ok || bad "the joint at frame 90: '$jl'"
awk -v ax="$ax" -v ay="$ay" -v tx="$tx" -v ty="$ty" 'BEGIN { e = sqrt((ax - tx)^2 + (ay - ty)^2);
	c = sqrt((tx - 2)^2 + (ty - 3)^2); exit !(ax != "" && e < 0.05 && c < 0.02) }' && ok ||
	bad "at frame 90 the box's anchor ($ax, $ay) is not at the target ($tx, $ty) = the cursor (2, 3)"
[[ $(awk '/^frame 120 / {f = 1} f && $1 == "joint"' drag.out) == "" ]] && ok || bad "a joint is left after the release"
awk -v x="$dx" -v n="$nx" 'BEGIN { exit !(x > n + 1.5) }' && ok || bad "the box was not dragged right: x $dx (without the drag $nx)"
final=$(awk '$1 == "frame" {print $4}' drag.out)
grep -q "^frame 120 hash " drag.out && ok || bad "the drag run is not at frame 120: $(grep '^frame' drag.out)"
grep -q "^recorded 120 frames to drag.f2r, final hash $final$" drag.out && ok || bad "--record: $(grep recorded drag.out)"
out=$("$replay" verify drag.f2r)
[[ $? == 0 && $out == *"ok 120 frames, final hash $final" ]] && ok || bad "verify of the recorded drag: $out"
info=$("$replay" info drag.f2r)
grep -q '^player 255 inputs 3$' <<<"$info" && grep -q '^commands create_joint 1, destroy_joint 1, set_mouse_target 1$' <<<"$info" && ok ||
	bad "info: $info"
# on screen at frame 90 the box hangs at the cursor (2, 3): its colour there, background at x=0
shot=$(grep '^screenshot drag.png ' drag.out)
# (awake at frame 90: hung by a point off its centre it has not come to rest, since the mouse
# joint's spring takes matched coefficients (engine format 8) that no longer add the implicit
# step's numerical damping; it slept here before)
check_at drag.png "$shot" 1.8 2.8 "$dynamic" "the dragged box at the cursor"
check_at drag.png "$shot" 0 1.0 "$background" "where the box was"
# the viewer plays the recorded replay back
printf 'key end\nprint\n' >end.txt
out=$(run_view drag.f2r --script end.txt 2>&1)
[[ $out == "frame 120 hash $final" ]] && ok || bad "the viewer's playback of drag.f2r: $out"

# ---- 3b. rewinding while dragging ----
{
	printf 'step 30\nmouse down left 0 2.7\nmouse move 2 3\nstep 15\nprint\nstep 15\n'
	printf 'mouse up left 2 3\nstep 2\njoints\nmouse down left 2 2.9\nmouse move -1 3\nstep 10\n'
	for _ in $(seq 27); do printf 'key left\n'; done
	printf 'print\nstep 1\njoints\nstep 1\njoints\nmouse up left -1 3\nstep 1\njoints\nprint\n'
} >rewind.txt
run_view single_box --script rewind.txt --record rewind.f2r >rewind.out 2>rewind.err || bad "rewind script failed (exit $?): $(cat rewind.err)"
mapfile -t frames < <(grep '^frame' rewind.out)
[[ ${frames[0]:-} == "frame 45 "* && ${frames[0]:-} == "${frames[1]:-}" ]] && ok ||
	bad "stepping back into a drag: frame 45 is not the same: ${frames[*]}"
# the first drag's joint 0:1 (destroyed at frame 60 in the frames the branch drops) is destroyed
# at frame 45 and one new joint made there; a frame later it pulls to the cursor (-1, 3)
want="drag: frame 30: mouse joint 0:1 on body 1
drag: frame 60: mouse joint 0:1 destroyed
drag: frame 62: mouse joint 0:2 on body 1
drag: frame 45: mouse joint 0:1 of an earlier drag destroyed
drag: frame 45: mouse joint 0:2 on body 1
drag: frame 47: mouse joint 0:2 destroyed"
got=$(grep '^drag:' rewind.out | sed 's/ (anchor.*//')
[[ $got == "$want" ]] && ok || bad "rewinding while dragging: the viewer's log
$got
want
$want"
mapfile -t js < <(grep '^joint' rewind.out)
[[ ${#js[@]} == 2 && ${js[0]} == "joint 0:2 mouse 0 1 "* && ${js[1]} == "joint 0:2 mouse 0 1 "*" target -0.99"*" 2.99"* ]] && ok ||
	bad "after the rewind: not one joint, pulling to the cursor: ${js[*]}"
grep -q '^frame 48 ' rewind.out && ok || bad "the rewound drag does not end at frame 48: $(grep '^frame' rewind.out)"
out=$("$replay" verify rewind.f2r)
[[ $? == 0 && $out == *"ok 48 frames, final hash $(awk '$1 == "frame" {h = $4} END {print h}' rewind.out)" ]] && ok || bad "verify of the rewound drag: $out"
info=$("$replay" info rewind.f2r)
grep -q '^commands create_joint 2, destroy_joint 2, set_mouse_target 2$' <<<"$info" && ok || bad "info of the rewound drag: $info"

# ---- 3c. the dragged body is gone ----
# rewound to before the body was spawned: the drag ends, no command (the replay is unchanged)
printf '5 0 box 0.5 0.5 4 3\n' >spawn.in
"$replay" record single_box --frames 40 --inputs spawn.in -o spawn.f2r >/dev/null
spawned=$("$replay" verify spawn.f2r | awk '{print $NF}')
printf 'step 20\nbodies\nmouse down left 4 2.6\nkey home\nstep 3\nmouse up left 4 2.6\nstep 3\nkey end\nprint\n' >gone.txt
run_view spawn.f2r --script gone.txt >gone.out 2>gone.err || bad "gone script failed (exit $?): $(cat gone.err)"
read -r sx sy <<<"$(body_xy gone.out 2)"
awk -v x="$sx" -v y="$sy" 'BEGIN { exit !(x > 3.9 && x < 4.1 && y > 2.3 && y < 2.9) }' && ok || bad "the spawned box is not under the press at frame 20: $sx $sy"
grep -q '^drag: frame 0: body 2 does not exist here: the drag ends$' gone.out && ok || bad "a drag of a body not there: $(grep '^drag' gone.out)"
[[ $(grep -c '^drag' gone.out) == 1 && $(grep '^frame' gone.out) == "frame 40 hash $spawned" ]] && ok ||
	bad "the drag of a body not there changed the replay: $(grep '^frame\|^drag' gone.out), want $spawned"
# destroyed by player 0 in the frame the joint is made (canonical order: before player 255)
printf '31 0 destroy 2 1\n' >kill.in
"$replay" record single_box --frames 40 --inputs kill.in -o kill.f2r >/dev/null
printf 'step 31\nmouse down left 0 2.6\nstep 3\njoints\nmouse up left 0 2.6\nstep 1\nprint\n' >kill.txt
run_view kill.f2r --script kill.txt --record killed.f2r >kill.out 2>kill.err || bad "kill script failed (exit $?): $(cat kill.err)"
grep -q '^drag: frame 31: the mouse joint was refused (.*): the drag ends$' kill.out && ok || bad "a body destroyed as the joint is made: $(grep '^drag' kill.out)"
[[ $(grep -c '^joint' kill.out) == 0 ]] && ok || bad "a joint exists on a destroyed body: $(grep '^joint' kill.out)"
out=$("$replay" verify killed.f2r)
[[ $? == 0 && $out == *"ok 35 frames, final hash $(awk '$1 == "frame" {print $4}' kill.out)" ]] && ok || bad "verify of the refused drag: $out"

# ---- 3d. a static body is not dragged ----
printf 'step 30\nmouse down left 0 -0.25\nmouse move 1 1\nstep 10\nmouse up left 1 1\nstep 1\nprint\n' >static.txt
run_view single_box --script static.txt >static.out 2>static.err || bad "static script failed (exit $?): $(cat static.err)"
[[ $(cat static.out) == "frame 41 hash $(hash_at single_box 41)" ]] && ok || bad "a press on the ground: $(cat static.out)"

# ---- 4. a recorded hash that does not match ----
"$edit" drag.f2r drag-bad.f2r hash 40 >/dev/null || bad "f2r-edit hash failed"
out=$(run_view drag-bad.f2r --script end.txt 2>&1)
[[ $out == "frame 120 hash $final recorded-hash-differs 40" ]] && ok || bad "edited hash at frame 40: $out"

# ---- 5. two replays ----
"$replay" record pyramid --frames 120 --inputs random:5 -o a.f2r >/dev/null
"$edit" a.f2r b.f2r input 50 >/dev/null || bad "f2r-edit input failed"
dframe=$("$replay" diff a.f2r b.f2r | awk '/^DIFFER at frame/ {sub(":", "", $4); print $4; exit}')
[[ $dframe == 50 ]] && ok || bad "fix2d-replay diff names frame $dframe, not 50"
cat >dual.txt <<'EOF'
print
bodies
screenshot at.png
key left
print
bodies
screenshot before.png
key d
print
EOF
run_view a.f2r b.f2r --script dual.txt >dual.out 2>dual.err || bad "two replays failed (exit $?): $(cat dual.err)"
grep -q "^first divergent frame $dframe$" dual.out && ok || bad "the viewer's first divergent frame: $(head -3 dual.out)"
mapfile -t frames < <(grep '^frame' dual.out)
[[ ${frames[0]:-} == "frame 51 "*" divergent 50" && ${frames[1]:-} == "frame 50 "*" divergent 50" && ${frames[2]:-} == "frame 51 "* ]] && ok ||
	bad "the two-replay mode does not open at, step back from and jump to frame 51: ${frames[*]}"
# before: the same hash in both; at: different
read -r _ _ _ h1 _ h2 _ <<<"${frames[1]:-}"
[[ $h1 == "$h2" ]] && ok || bad "at frame 50 the worlds differ already: ${frames[1]:-}"
read -r _ _ _ h1 _ h2 _ <<<"${frames[0]:-}"
[[ $h1 != "$h2" ]] && ok || bad "at frame 51 the worlds agree: ${frames[0]:-}"
# the kicked body (named first by fix2d-replay diff) red at frame 51, its own colour at 50
kicked=$("$replay" diff a.f2r b.f2r | awk '$1 == "body" {sub(":", "", $2); print $2; exit}')
awk '/^screenshot at.png/ {f = 1} /^screenshot before.png/ {f = 0} f && $1 == "B" {print $2, $3, $4, $5}' dual.out >at-bodies.txt
awk '/^screenshot at.png/ {f = 1} f && $1 == "B" {print $2, $3, $4, $5}' dual.out >before-bodies.txt
read -r ax ay <<<"$(body_xy at-bodies.txt "$kicked")"
read -r bx by <<<"$(body_xy before-bodies.txt "$kicked")"
shot=$(grep '^screenshot at.png ' dual.out)
check_at at.png "$shot" "$(add "$ax" -0.2)" "$(add "$ay" -0.2)" "$red" "the diverged body $kicked at frame 51"
shot=$(grep '^screenshot before.png ' dual.out)
check_at before.png "$shot" "$(add "$bx" -0.2)" "$(add "$by" -0.2)" "$dynamic" "body $kicked at frame 50"

# ---- 6. bad use ----
run_view no_such_scene --frames 1 >/dev/null 2>&1
[[ $? == 2 ]] && ok || bad "an unknown scene does not exit 2"
run_view a.f2r b.f2r --record x.f2r >/dev/null 2>&1
[[ $? == 2 ]] && ok || bad "--record with two replays does not exit 2"
printf 'jump 3\n' >badscript.txt
run_view single_box --script badscript.txt >/dev/null 2>&1
[[ $? == 2 ]] && ok || bad "a bad script line does not exit 2"
run_view single_box a.f2r >/dev/null 2>&1
[[ $? == 2 ]] && ok || bad "a scene and a replay together do not exit 2"

# ---- 7. sanitizer build: no leaks in the viewer (SDL's dummy video driver) ----
if [[ -n $asan ]]; then
	for t in "single_box --script drag.txt --record leak.f2r" "single_box --script rewind.txt --record leak2.f2r" "pyramid --keyframe-every 7 --script scrub.txt" "a.f2r b.f2r --script dual.txt"; do
		# shellcheck disable=SC2086
		SDL_VIDEODRIVER=dummy "$view" $t >leak.out 2>leak.err && ok ||
			bad "under the dummy driver, '$t' fails: $(head -20 leak.err)"
	done
fi

echo "view: $passed passed, $failed failed"
[[ $failed == 0 ]]
