#!/usr/bin/env bash
# Command format 3 through fix2d-replay's text inputs (replay/inputs.c): a run of random_stack
# with a joint of every type, capsule/segment/chain spawns and every joint setter is recorded,
# verifies, info counts and diff names its commands; each setter line changes the final hash (it applied),
# the two lines meant to be refused are named on stderr, bad lines are parse errors (exit 2).
# usage: joint_inputs.sh FIX2D_REPLAY WORKDIR
set -uo pipefail
replay=$1 work=$2
mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

in="$work/joints.txt"
cat >"$in" <<'EOF'
# random_stack: body 1 is the ground, 2..11 boxes 1.05 m apart (generation 1); joints get ids
# 1, 2, ... in creation order (canonical: player, then sequence), refused ones none
0 0 joint revolute 2 1 3 1 anchor_a=0,0.525 anchor_b=0,-0.525 limit=on lower=-0.5 upper=0.5
0 0 joint prismatic 1 1 4 1 anchor_a=0,2.61 axis=0,1 motor=on speed=1 max_force=500
0 1 joint wheel 5 1 6 1 anchor_a=0,0.525 anchor_b=0,-0.525
0 1 joint distance 7 1 8 1 length=1.05 spring=on hertz=3 damping=0.3
0 2 joint motor 1 1 11 1 offset=2,10 max_force=50
0 2 joint mouse 1 1 10 1 target=0,9.96 max_force=200
0 3 joint weld 9 1 9 1
1 3 joint weld 8 1 9 1 anchor_a=0,0.525 anchor_b=0,-0.525
2 0 capsule 0 -0.4 0 0.4 0.25 6 3
2 0 segment -2 0 2 -0.5 -7 2
2 1 chain open 9 0 3 2 1 0 -1 0 -3 2
20 0 joint_motor 1 1 on 3 40
20 0 joint_motor 3 1 on -6 30
30 1 spring 2 1 on 2 0.1
30 1 limits 2 1 on -0.5 0.5
30 2 weld_springs 7 1 5 0.5 3 0.2
40 0 length 4 1 1.2
40 0 mouse_target 6 1 1 9
40 0 mouse_force 6 1 300
40 1 offsets 5 1 -1 8 0.4
40 1 motor_max 5 1 80 10
40 1 correction 5 1 0.5
90 0 destroy_joint 1 1
90 0 joint_motor 1 1 on 1 1
120 0 destroy_joint 3 1
EOF
frames=150
final_of() { awk '/^recorded/ {print $6}' "$1"; }

"$replay" record random_stack --frames $frames --inputs "$in" -o "$work/j.f2r" >"$work/out" 2>"$work/err"
[ $? = 0 ] && ok || bad "record: $(cat "$work/err")"
full=$(final_of "$work/out")
[ -n "$full" ] && ok || bad "no final hash: $(cat "$work/out")"
# exactly the two refusals meant: the same body twice, a motor of a destroyed joint
[ "$(wc -l <"$work/err")" = 2 ] && ok || bad "stderr: $(cat "$work/err")"
grep -q 'frame 0: player 3 sequence 0: create_joint refused' "$work/err" && ok || bad "weld refusal: $(cat "$work/err")"
grep -q 'frame 90: player 0 sequence 1: set_joint_motor refused' "$work/err" && ok || bad "motor refusal: $(cat "$work/err")"

"$replay" verify "$work/j.f2r" >"$work/out" 2>&1
[ $? = 0 ] && grep -q "^ok $frames frames, final hash $full\$" "$work/out" && ok || bad "verify: $(cat "$work/out")"
"$replay" diff "$work/j.f2r" "$work/j.f2r" >"$work/out" 2>&1
[ $? = 0 ] && ok || bad "diff with itself: $(cat "$work/out")"
"$replay" info "$work/j.f2r" >"$work/out" 2>&1
want="commands create_body 3, create_joint 8, destroy_joint 2, set_joint_motor 3, set_joint_spring 1, set_weld_springs 1, set_joint_limits 1, set_distance_length 1, set_mouse_target 1, set_mouse_max_force 1, set_motor_joint_offsets 1, set_motor_joint_max 1, set_motor_joint_correction 1"
grep -qx "$want" "$work/out" && ok || bad "info: $(cat "$work/out")"

# diff names the first command that differs
sed 's/^30 1 limits 2 1 on -0.5 0.5/30 1 spring 2 1 on 3 0.1/' "$in" >"$work/changed.txt"
"$replay" record random_stack --frames $frames --inputs "$work/changed.txt" -o "$work/c.f2r" >/dev/null 2>&1
"$replay" diff "$work/j.f2r" "$work/c.f2r" >"$work/out" 2>&1
st=$?
[ $st = 1 ] && grep -q '^DIFFER at frame 30: inputs' "$work/out" && ok || bad "diff: exit $st $(head -2 "$work/out")"
grep -q '^  input 1: the first player 1 sequence 1 set_joint_limits, the second player 1 sequence 1 set_joint_spring$' "$work/out" && ok || bad "diff input line: $(head -2 "$work/out")"

# recording twice gives the same bytes
"$replay" record random_stack --frames $frames --inputs "$in" -o "$work/j2.f2r" >/dev/null 2>&1
cmp -s "$work/j.f2r" "$work/j2.f2r" && ok || bad "two recordings differ"

# every line from frame 1 on changed the run: without it the final hash differs (a refused or
# ignored command would leave it equal) - except the refused motor at frame 90
n=$(grep -c '^[0-9]' "$in")
for ((i = 1; i <= n; ++i)); do
	line=$(grep '^[0-9]' "$in" | sed -n "${i}p")
	case "$line" in "0 "* | "90 0 joint_motor"*) continue ;; esac
	grep '^[0-9]' "$in" | sed "${i}d" >"$work/minus.txt"
	"$replay" record random_stack --frames $frames --inputs "$work/minus.txt" -o "$work/m.f2r" >"$work/out" 2>/dev/null
	h=$(final_of "$work/out")
	[ -n "$h" ] && [ "$h" != "$full" ] && ok || bad "without '$line' the final hash is the same ($h)"
done
# ... and the refused one changes nothing
grep '^[0-9]' "$in" | grep -v '^90 0 joint_motor' >"$work/minus.txt"
"$replay" record random_stack --frames $frames --inputs "$work/minus.txt" -o "$work/m.f2r" >"$work/out" 2>/dev/null
[ "$(final_of "$work/out")" = "$full" ] && ok || bad "the refused motor changed the run"

# bad lines: parse errors, exit 2
for l in "0 0 joint revolute 2 1 3 1 hertz=2" "0 0 joint hinge 2 1 3 1" "0 0 joint weld 2 1 3" \
	"0 0 joint_motor 1 1 maybe 1 1" "0 0 spring 1 1 on 2" "0 0 chain open 0 0 1 1" \
	"0 0 chain twisted 0 0 1 1 2 2" "0 0 limits 1 1 on 0 1 2" "0 0 joint motor 1 1 2 1 offset=1" \
	"0 0 segment 0 0 1 1 2"; do
	echo "$l" >"$work/bad.txt"
	"$replay" record random_stack --frames 3 --inputs "$work/bad.txt" -o "$work/b.f2r" >/dev/null 2>"$work/err"
	st=$?
	[ $st = 2 ] && grep -q 'cannot parse' "$work/err" && ok || bad "'$l': exit $st $(cat "$work/err")"
done

echo "joint_inputs: $pass passed, $fail failed"
[ $fail = 0 ]
