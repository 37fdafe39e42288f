#!/usr/bin/env bash
# fix2d-netdemo end to end: run.sh NETDEMO REPLAY WORKDIR MODE [INTRUDER [PNG_PROBE]]
#   impaired2 / impaired4  2 or 4 peers, 1,200 frames, 20 % loss, 100 +- 50 ms, 5 % duplicates,
#                          5 % reordering: in sync, with the hash of the same inputs on a perfect
#                          network; every replay verifies with fix2d-replay and
#                          agrees with peer 0's (fix2d-replay diff); the impairment happened and
#                          predictions were rolled back
#   desync                 one peer nudges one body by one LSB at frame 400 (2 and 4 peers):
#                          DESYNC at frame 400, reported by the peers, the replays say so too;
#                          every peer writes a desync bundle, and fix2d-replay diff of two
#                          bundles alone names frame 400, the perturbed peer departing before
#                          the step, body 3 (player 0) and its field origin.x, +-1 LSB, and
#                          (with PNG_PROBE) draws that body red
#   lost                   one of 3 peers kills itself at frame 300: the others report it lost by
#                          timeout and end cleanly with replays that verify
#   cli                    usage errors, --listen/--connect in two processes (the guest with
#                          the join code the host printed), --realtime pace; a guest with a
#                          wrong join code is refused and counted, and never plays
#   intruder               an uninvited socket (INTRUDER, tests/netdemo/intruder.c) greets the
#                          host first (HELLOs of the old protocol, of another code, and an
#                          authentic HELLO replayed) and sends garbage, short and forged packets
#                          during the game: the real guest joins all the same, both end in
#                          sync, and the host counts each of the intruder's datagrams under
#                          its reason
#   game                   the README's demo command (2 peers, 600 frames, 20 % loss, 100 +- 50
#                          ms): in sync, a score > 0, every peer's score and game-state digest
#                          the same, replays that verify (they re-create the coins and teams
#                          from frame 0's commands); a rollback-heavy run (30 % loss, 150 +- 50
#                          ms) and a perfect network with the same seed end with the same score,
#                          digest and hash
# All traffic is UDP on 127.0.0.1 between processes this script starts; every run is bounded
# by --max-seconds.
set -uo pipefail
nd=$1
replay=$2
work=$3
mode=$4
intruder=${5:-}
probe=${6:-}
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
# Under the sanitizer build: cairo's toy text API (diff --png) leaves fontconfig's caches
# allocated at exit (libfontconfig, not fix2d), as in tests/replay/pictures.sh
echo "leak:libfontconfig" >lsan.supp
export LSAN_OPTIONS="suppressions=$work/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

fail() {
	echo "FAIL ($mode): $*" >&2
	exit 1
}
impair=(--loss 20 --latency 100 --jitter 50 --dup 5 --reorder 5)

# run NAME ARGS...: the netdemo with its output in NAME.out / NAME.err and exit code in rc
run() {
	local name=$1
	shift
	"$nd" "$@" >"$name.out" 2>"$name.err"
	rc=$?
	cat "$name.out"
	sed 's/^/  stderr: /' "$name.err"
}

last_line() { tail -n 1 "$1"; }

# field NAME.out PEER WHAT: a number from the peer's line
peer_line() { grep "^peer $2: " "$1"; }

# refused NAME.out REASON: the count of the reason on the "refused by reason" line (0: absent)
refused() {
	local l
	l=$(grep "^  refused by reason:" "$1") || fail "$1: no refusal line"
	if [[ $l =~ [:,]\ $2\ ([0-9]+) ]]; then
		echo "${BASH_REMATCH[1]}"
	else
		echo 0
	fi
}

# wait_for FILE TEXT: until FILE holds TEXT (5 s at most)
wait_for() {
	for _ in $(seq 50); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no '$2' in $1: $(cat "$1")"
}

# a free UDP port on 127.0.0.1 (the host's bind is the real test: callers retry on "cannot bind")
some_port() { echo $((20000 + (RANDOM % 30000))); }

# check_bundles N: the desync bundles of the N-peer run (bN/, desyncN.err). Every peer wrote
# one that starts from the state after frame 399 and holds frame 400; diff of peer 0's and the
# perturbed peer's bundles, and nothing else, explains the desync.
check_bundles() {
	local n=$1 p=$(($1 - 1)) i out l
	local -a ours
	for ((i = 0; i < n; i++)); do
		local f="b$n/desync-peer$i-frame400.f2r"
		[[ -f $f ]] || fail "$n peers: peer $i wrote no bundle: $(cat "desync$n.err")"
		grep -q "^fix2d-netdemo: peer $i: desync bundle $f: frames 400\.\.[0-9]* from the state after frame 399 " \
			"desync$n.err" || fail "$n peers: peer $i did not name its bundle"
		out=$("$replay" info "$f") || fail "info $f: $out"
		grep -q "^start snapshot desync-peer$i-frame400, [0-9]* bytes, step 400, " <<<"$out" ||
			fail "info $f: the start is not the state after frame 399: $out"
		grep -q "^desync bundle of peer $i of $n: frames 400\.\.[0-9]*, desync at frame 400 with peer " \
			<<<"$out" || fail "info $f: $out"
		# the hash each peer reported for frame 400 on stderr
		l=$(grep "peer $i: DESYNC at frame 400: our hash" "desync$n.err")
		ours[i]=${l#*our hash }
		ours[i]=${ours[i]%%,*}
	done
	# the perturbed peer's own bundle does not verify: re-simulated from the agreed start with
	# the same commands, frame 400 gives the others' hash, and its keyframe shows body 3 moved
	out=$("$replay" verify "b$n/desync-peer$p-frame400.f2r")
	[[ $? == 1 && $out == "DIVERGED at frame 400: recorded hash ${ours[p]}, simulated ${ours[0]}"* ]] ||
		fail "$n peers: verify of the perturbed bundle: $out"
	out=$("$replay" verify "b$n/desync-peer0-frame400.f2r") || fail "verify of peer 0's bundle: $out"
	"$replay" diff "b$n/desync-peer0-frame400.f2r" "b$n/desync-peer$p-frame400.f2r" \
		${probe:+--png "bundle$n.png"} >"bundle$n.txt"
	[[ $? == 1 ]] || fail "$n peers: diff of the bundles does not exit 1: $(cat "bundle$n.txt")"
	cat "bundle$n.txt"
	has() { grep -Eq "$1" "bundle$n.txt" || fail "$n peers: the diff of the bundles lacks /$1/"; }
	has "^DIFFER at frame 400: hashes$"
	[[ $(grep -c '^DIFFER' "bundle$n.txt") == 1 ]] || fail "more than one DIFFER line"
	# every peer's hash as the peers themselves reported it, from the bundles' tables
	l="  the peers' hashes of frame 400:"
	for ((i = 0; i < n; i++)); do
		l+="$( ((i)) && echo ,) peer $i ${ours[i]}"
		((i == p)) || [[ ${ours[i]} == "${ours[0]}" ]] || fail "peer $i disagrees with peer 0"
	done
	[[ ${ours[p]} != "${ours[0]}" ]] || fail "the perturbed peer reported the others' hash"
	has "^${l}$"
	has "re-simulated from the start with the same inputs: ${ours[0]} \(peer 0\)$"
	# the perturbation is a set_transform before the step: the phase is "entering the step",
	# every phase of peer 0's step is the re-simulation's, the perturbed peer's world departs
	# before its step, and the broad phase's pairs (keys only) do not change for one LSB
	has "^first phase that differs: entering the step "
	has "^peer 0's step is the re-simulation's in every phase$"
	has "^peer $p departs from the re-simulation entering the step: "
	has "^  pairs +([0-9a-f]{16}) \1$"
	# the body and the field: player 0 is body 3, moved by one LSB in x before frame 400's step;
	# the keyframes are after that step, in which body 3 touches the left wall (body 1): under
	# the default soft step (4 substeps) the nudge comes out of it as a turn of one LSB (q.c)
	# with changed speeds, origin.x equal (under the Gauss-Seidel step it stayed origin.x +-1 LSB)
	# (engine format 16, contact recycling: the wall contact's recycled separation takes the
	# nudge, which stays origin.x +1 LSB, as under the Gauss-Seidel step)
	has "^  body 3 (q\.c|origin\.x): -?[0-9]+\.[0-9]{6}( m)? -> -?[0-9]+\.[0-9]{6}( m)? \(delta [+-]0\.000015( m)?; raw 0x[0-9a-f]{8} -> 0x[0-9a-f]{8}, [+-]1 LSB\)$"
	# (a contact of body 3 may differ too: the soft step's substeps carry the nudge into the
	# impulses of its contact with the left wall, contact 1-3)
	grep -E '^  (body|shape|joint|contact) ' "bundle$n.txt" |
		grep -Ev '^  (body 3[ :]|contact ([0-9]+-3|3-[0-9]+) )' &&
		fail "$n peers: fields of other bodies differ"
	# two peers that agree: the same on every frame both bundles hold
	if ((n > 2)); then
		out=$("$replay" diff "b$n/desync-peer1-frame400.f2r" "b$n/desync-peer2-frame400.f2r")
		[[ $? == 0 && $out =~ (^|$'\n')same:\ [0-9]+\ frames ]] || fail "diff of peers 1 and 2: $out"
	fi
	# the full replay of peer 0 against the perturbed peer's bundle: aligned at frame 400
	out=$("$replay" diff "rec$n/peer0.f2r" "b$n/desync-peer$p-frame400.f2r")
	[[ $? == 1 && $out == "from frame 400: rec$n/peer0.f2r re-simulated to there agrees"* ]] ||
		fail "$n peers: diff of peer 0's replay and the bundle: $out"
	grep -Eq "^  body 3 (q\.c|origin\.x): " <<<"$out" || fail "replay vs bundle names no field: $out"
	[[ -n $probe ]] || return 0
	# the picture: body 3 red where it is, the floor (static, y -0.5) in its own colour
	local line bx by
	line=$(grep '^diff picture origin' "bundle$n.txt") || fail "no picture mapping"
	read -r bx by < <(sed -n 's/^  body 3: dx .* at \([-0-9.]*\) \([-0-9.]*\)$/\1 \2/p' "bundle$n.txt")
	[[ -n $bx ]] || fail "no position of body 3"
	check_px "bundle$n.png" "$line" "$bx" "$(awk -v y="$by" 'BEGIN{print y - 0.2}')" "0.95 0.15 0.15" "body 3"
	check_px "bundle$n.png" "$line" "$bx" "$(awk -v y="$by" 'BEGIN{print y + 0.2}')" "0.95 0.15 0.15" "body 3"
	# the floor at its middle (body 3 is at the left wall, whose outline is at its x)
	check_px "bundle$n.png" "$line" 0 -0.5 "0.30 0.50 0.31" "the floor"
}

# check_px PNG MAPPING_LINE X Y "R G B" WHAT: the pixel at world (X, Y) is within 3 of R G B
# (0..1, times 255); MAPPING_LINE is diff's "diff picture origin OX OY scale S"
check_px() {
	local p got
	p=$(awk -v x="$3" -v y="$4" '{printf "%d %d", $4 + x * $7 + 0.5, $5 - y * $7 + 0.5}' <<<"$2")
	# shellcheck disable=SC2086
	got=$("$probe" "$1" $p | awk '{print $3, $4, $5}') || fail "png_probe $1 $p"
	awk -v g="$got" -v w="$5" 'BEGIN { split(g, a, " "); split(w, b, " ");
		for (i = 1; i <= 3; ++i) { e = b[i] * 255; if (a[i] < e - 3 || a[i] > e + 3) exit 1 } }' ||
		fail "$6: pixel ($p) of $1 is $got, want $5 (x255)"
}

case $mode in
impaired2 | impaired4)
	n=${mode#impaired}
	mkdir rec
	run impaired --peers "$n" --frames 1200 "${impair[@]}" --seed 7 --record rec --max-seconds 50
	[[ $rc == 0 ]] || fail "exit $rc, want 0"
	line=$(last_line impaired.out)
	[[ $line =~ ^in\ sync:\ 1200\ frames,\ $n\ peers,\ hash\ ([0-9a-f]{16})$ ]] ||
		fail "last line '$line'"
	hash=${BASH_REMATCH[1]}
	rollbacks=0 dropped=0 duplicated=0 reordered=0 worst=0
	for ((i = 0; i < n; i++)); do
		l=$(peer_line impaired.out "$i") || fail "no line for peer $i"
		[[ $l =~ frames\ 1200,\ rollbacks\ ([0-9]+).*max\ rollback\ depth\ ([0-9]+).*max\ ([0-9.]+)\ ms,\ confirmed\ hash\ $hash$ ]] ||
			fail "peer $i: '$l'"
		rollbacks=$((rollbacks + BASH_REMATCH[1]))
		worst=$(awk -v a="$worst" -v b="${BASH_REMATCH[3]}" 'BEGIN { print (b > a ? b : a) }')
		((BASH_REMATCH[2] <= 8)) || fail "peer $i rolled back more than the 8-frame window"
		net=$(grep -A1 "^peer $i: " impaired.out | tail -n 1)
		[[ $net =~ impaired:\ ([0-9]+)\ dropped,\ ([0-9]+)\ duplicated,\ ([0-9]+)\ reordered ]] ||
			fail "peer $i net line '$net'"
		dropped=$((dropped + BASH_REMATCH[1]))
		duplicated=$((duplicated + BASH_REMATCH[2]))
		reordered=$((reordered + BASH_REMATCH[3]))
		[[ -f rec/peer$i.f2r ]] || fail "no replay of peer $i"
		v=$("$replay" verify "rec/peer$i.f2r") || fail "verify peer $i: $v"
		[[ $v == "ok 1200 frames, final hash $hash" ]] || fail "verify peer $i: '$v'"
		if ((i > 0)); then
			d=$("$replay" diff rec/peer0.f2r "rec/peer$i.f2r") || fail "diff 0 $i: $d"
			[[ $d == "same: 1200 frames" ]] || fail "diff 0 $i: '$d'"
		fi
	done
	# the network changes when inputs arrive, never what is simulated: a run on a perfect
	# network with the same scripted inputs (same seed) ends with the same hash
	run clean --peers "$n" --frames 1200 --seed 7 --max-seconds 50
	[[ $rc == 0 && $(last_line clean.out) == "in sync: 1200 frames, $n peers, hash $hash" ]] ||
		fail "the unimpaired run ended '$(last_line clean.out)', the impaired one $hash"
	((rollbacks > 0)) || fail "no rollback at all: the test did not exercise prediction"
	((dropped > 0 && duplicated > 0 && reordered > 0)) ||
		fail "the impairment did not happen ($dropped, $duplicated, $reordered)"
	echo "netdemo $mode: OK ($rollbacks rollbacks over $n peers, worst frame time $worst ms;" \
		"impairment dropped $dropped, duplicated $duplicated, reordered $reordered)"
	;;
desync)
	for n in 2 4; do
		mkdir "rec$n"
		run "desync$n" --peers "$n" --frames 1200 --latency 30 --jitter 10 --loss 5 --dup 2 \
			--reorder 2 --seed 8 --test-perturb-frame 400 --record "rec$n" --max-seconds 50 \
			--bundle-dir "b$n"
		[[ $rc == 1 ]] || fail "$n peers: exit $rc, want 1"
		line=$(last_line "desync$n.out")
		[[ $line == "DESYNC at frame 400" ]] || fail "$n peers: last line '$line'"
		# the perturbed peer (the last) and every other peer report the frame themselves
		for ((i = 0; i < n; i++)); do
			grep -q "peer $i: DESYNC at frame 400:" "desync$n.err" ||
				fail "$n peers: peer $i did not report frame 400"
		done
		p=$((n - 1))
		v=$("$replay" verify "rec$n/peer$p.f2r")
		[[ $? == 1 && $v == "DIVERGED at frame 400:"* ]] || fail "verify perturbed: '$v'"
		v=$("$replay" verify "rec$n/peer0.f2r") || fail "verify peer 0: '$v'"
		d=$("$replay" diff "rec$n/peer0.f2r" "rec$n/peer$p.f2r")
		[[ $? == 1 && $d == "DIFFER at frame 400: hashes"* ]] || fail "diff: '$d'"
		check_bundles "$n"
	done
	echo "netdemo desync: OK (detected at frame 400 with 2 and 4 peers; the bundles name" \
		"frame 400, the perturbed peer, body 3 origin.x)"
	;;
game)
	# game_run NAME ARGS...: the run ends in sync; sets score (the agreed line), digest, hash
	game_run() {
		local name=$1 i l
		shift
		run "$name" --peers 2 --frames 600 --seed 1 --max-seconds 50 "$@"
		[[ $rc == 0 ]] || fail "$name: exit $rc"
		[[ $(last_line "$name.out") =~ ^in\ sync:\ 600\ frames,\ 2\ peers,\ hash\ ([0-9a-f]{16})$ ]] ||
			fail "$name: last line '$(last_line "$name.out")'"
		hash=${BASH_REMATCH[1]}
		score=$(tail -n 2 "$name.out" | head -n 1)
		[[ $score =~ ^score:\ team\ 0\ ([0-9]+),\ team\ 1\ ([0-9]+)\ \(([0-9]+)\ coins\ taken\),\ the\ same\ on\ every\ peer$ ]] ||
			fail "$name: score line '$score'"
		local s0=${BASH_REMATCH[1]} s1=${BASH_REMATCH[2]} taken=${BASH_REMATCH[3]}
		total=$((s0 + s1))
		((total == taken)) || fail "$name: the scores do not add up to the coins taken"
		digest=
		rollbacks=0
		for i in 0 1; do
			l=$(grep -A3 "^peer $i: " "$name.out" | tail -n 1)
			[[ $l =~ ^\ \ game:\ score\ team\ 0\ $s0,\ team\ 1\ $s1\;\ $taken\ coins\ taken\;\ game\ state\ ([0-9a-f]{16})$ ]] ||
				fail "$name: peer $i's game line '$l' (agreed: '$score')"
			[[ -z $digest || $digest == "${BASH_REMATCH[1]}" ]] || fail "$name: digests differ"
			digest=${BASH_REMATCH[1]}
			l=$(peer_line "$name.out" "$i")
			[[ $l =~ rollbacks\ ([0-9]+) ]] && rollbacks=$((rollbacks + BASH_REMATCH[1]))
		done
	}
	mkdir rec
	game_run demo --loss 20 --latency 100 --jitter 50 --dup 5 --reorder 5 --record rec
	((total > 0)) || fail "the demo run scored nothing: $score"
	demo="$score $digest $hash"
	for i in 0 1; do
		v=$("$replay" verify "rec/peer$i.f2r") || fail "verify peer $i: $v"
		[[ $v == "ok 600 frames, final hash $hash" ]] || fail "verify peer $i: '$v'"
	done
	game_run heavy --loss 30 --latency 150 --jitter 50
	((rollbacks > 0)) || fail "the heavy run rolled nothing back"
	heavy_rollbacks=$rollbacks
	[[ "$score $digest $hash" == "$demo" ]] || fail "heavy run '$score $digest $hash', demo '$demo'"
	game_run clean
	[[ "$score $digest $hash" == "$demo" ]] || fail "clean run '$score $digest $hash', demo '$demo'"
	echo "netdemo game: OK ($score; game state $digest; $heavy_rollbacks rollbacks at 30 % loss" \
		"and 150 ms give the perfect network's score and hash)"
	;;
lost)
	mkdir rec
	run lost --peers 3 --frames 1200 --latency 30 --jitter 10 --loss 5 --seed 9 \
		--test-kill-frame 300 --test-kill-peer 1 --timeout 1500 --record rec --max-seconds 50
	[[ $rc == 3 ]] || fail "exit $rc, want 3"
	line=$(last_line lost.out)
	[[ $line == "PEER LOST: peer 1; 2 other peers ended cleanly" ]] || fail "last line '$line'"
	grep -q "^peer 1: killed by signal 9$" lost.out || fail "peer 1 was not killed"
	for i in 0 2; do
		grep -q "peer $i: peer 1 lost: nothing heard for 1500 ms" lost.err ||
			fail "peer $i did not report the loss"
		v=$("$replay" verify "rec/peer$i.f2r") || fail "verify peer $i: '$v'"
		[[ $v == "ok "*" frames, final hash "* ]] || fail "verify peer $i: '$v'"
	done
	# the survivors agree on every frame both confirmed (one may have confirmed a few more)
	d=$("$replay" diff rec/peer0.f2r rec/peer2.f2r)
	[[ $d == "same: "*" frames" || $d =~ ^DIFFER\ at\ frame\ [0-9]+:\ rec/peer[02].f2r\ ends\ first$ ]] ||
		fail "diff of the survivors: '$d'"
	# the killed peer's replay is cut off after its last confirmed frame and still verifies
	v=$("$replay" verify rec/peer1.f2r) || fail "verify of the killed peer: '$v'"
	echo "netdemo lost: OK"
	;;
cli)
	for bad in "--peers 5" "--peers 1" "--frames 0" "--loss 100" "--loss 5%" "--latency x" \
		"--bogus" "--connect nohost" "--listen 0" "--frames 10 --test-perturb-frame 10" \
		"--connect 127.0.0.1:9" "--listen 9999 --join-code ABCD" \
		"--connect 127.0.0.1:9 --join-code AAAA-AAAA-AAAA-AAAA-AAAA-AAA1"; do
		# shellcheck disable=SC2086
		"$nd" $bad >bad.out 2>bad.err
		rc=$?
		[[ $rc == 2 ]] || fail "'$bad': exit $rc, want 2"
		grep -q "^usage:" bad.err || fail "'$bad': no usage on stderr"
	done
	"$nd" --help | grep -q -- "--listen PORT" || fail "--help"
	# one peer per terminal: a host and a guest in two processes
	ok=0
	for _ in 1 2 3; do
		port=$(some_port)
		"$nd" --listen "$port" --frames 300 --latency 20 --loss 10 --seed 3 --max-seconds 30 \
			>host.out 2>host.err &
		host=$!
		wait_for host.err "waiting on\|cannot bind"
		code=$(sed -n 's/.*join code \([A-Z2-7-]*\)$/\1/p' host.err)
		if [[ -z $code ]]; then
			wait "$host"
			continue # the port was taken: another one
		fi
		[[ $code =~ ^[A-Z2-7]{4}(-[A-Z2-7]{4}){5}$ ]] || fail "join code '$code'"
		"$nd" --connect "127.0.0.1:$port" --join-code "$code" --latency 20 --loss 10 --seed 4 \
			--max-seconds 30 >guest.out 2>guest.err
		grc=$?
		wait "$host"
		hrc=$?
		if grep -q "cannot bind" host.err; then
			continue # the port was taken: another one
		fi
		cat host.out guest.out
		[[ $hrc == 0 && $grc == 0 ]] || fail "listen/connect: exits $hrc $grc"
		hl=$(last_line host.out)
		gl=$(last_line guest.out)
		[[ $hl =~ ^in\ sync:\ 300\ frames,\ 2\ peers,\ hash\ [0-9a-f]{16}$ && $hl == "$gl" ]] ||
			fail "listen/connect: '$hl' vs '$gl'"
		ok=1
		break
	done
	((ok)) || fail "no free port for --listen"
	# a guest with another join code: refused (its HELLOs counted as auth), never plays
	ok=0
	for _ in 1 2 3; do
		port=$(some_port)
		"$nd" --listen "$port" --join-code AAAA-BBBB-CCCC-DDDD-EEEE-FFFF --max-seconds 2 \
			>host.out 2>host.err &
		host=$!
		wait_for host.err "waiting on\|cannot bind"
		if grep -q "cannot bind" host.err; then
			wait "$host"
			continue
		fi
		"$nd" --connect "127.0.0.1:$port" --join-code aaaa-bbbb-cccc-dddd-eeee-fffe \
			--max-seconds 2 >guest.out 2>guest.err
		grc=$?
		wait "$host"
		hrc=$?
		cat host.out guest.out
		[[ $hrc == 3 && $grc == 3 ]] || fail "wrong code: exits $hrc $grc, want 3 3"
		grep -q "nobody connected" host.err || fail "wrong code: the host: $(cat host.err)"
		grep -q "no answer from the host" guest.err || fail "wrong code: $(cat guest.err)"
		auth=$(refused host.out auth)
		((auth >= 5)) || fail "wrong code: $auth HELLOs refused as auth, want >= 5"
		[[ $(grep "^  refused by reason:" host.out) == "  refused by reason: auth $auth" ]] ||
			fail "wrong code: other reasons than auth at the host"
		ok=1
		break
	done
	((ok)) || fail "no free port for --listen"
	# --realtime: 120 frames at 60 Hz take 2 s
	start=$(date +%s%N)
	run rt --peers 2 --frames 120 --realtime --max-seconds 30
	ms=$((($(date +%s%N) - start) / 1000000))
	[[ $rc == 0 && $(last_line rt.out) == "in sync: 120 frames, 2 peers, hash "* ]] ||
		fail "--realtime: exit $rc"
	((ms >= 1900)) || fail "--realtime ran 120 frames in $ms ms"
	echo "netdemo cli: OK (wrong join code: $auth HELLOs refused; --realtime: 120 frames in" \
		"$ms ms)"
	;;
intruder)
	[[ -x $intruder ]] || fail "no intruder program"
	code=K7QX-M2ZD-Q4RT-W6YB-N3PJ-H5CF
	n=200
	ok=0
	for _ in 1 2 3; do
		port=$(some_port)
		# 240 frames at 60 Hz: the intruder's datagrams all arrive during the game
		"$nd" --listen "$port" --join-code "$code" --frames 240 --realtime --seed 5 \
			--max-seconds 30 >host.out 2>host.err &
		host=$!
		wait_for host.err "waiting on\|cannot bind"
		if grep -q "cannot bind" host.err; then
			wait "$host"
			continue
		fi
		# before the guest: a HELLO of the old protocol and one of another code (no answer),
		# then an authentic HELLO replayed from the intruder's socket (welcomed: a HELLO
		# takes no slot)
		h=$("$intruder" "$port" hello) || fail "intruder hello"
		[[ $h == "sent version 1, auth 1; answered 0" ]] || fail "intruder hello: '$h'"
		r=$("$intruder" "$port" replay "$code") || fail "intruder replay"
		[[ $r == "welcomed 1" ]] || fail "intruder replay: '$r'"
		"$nd" --connect "localhost:$port" --join-code "$code" --seed 6 --max-seconds 30 \
			>guest.out 2>guest.err &
		guest=$!
		wait_for host.err "peer 0 of 2"
		g=$("$intruder" "$port" game "$n") || fail "intruder game"
		[[ $g == "sent magic $n, short $n, auth $n" ]] || fail "intruder game: '$g'"
		wait "$guest"
		grc=$?
		wait "$host"
		hrc=$?
		cat host.out guest.out
		[[ $hrc == 0 && $grc == 0 ]] || fail "exits $hrc $grc: $(cat host.err guest.err)"
		hl=$(last_line host.out)
		gl=$(last_line guest.out)
		[[ $hl =~ ^in\ sync:\ 240\ frames,\ 2\ peers,\ hash\ [0-9a-f]{16}$ && $hl == "$gl" ]] ||
			fail "'$hl' vs '$gl'"
		for want in "version 1" "auth $((n + 1))" "magic $n" "short $n"; do
			got=$(refused host.out "${want% *}")
			[[ $got == "${want#* }" ]] || fail "host refused ${want% *} $got, want ${want#* }"
		done
		ok=1
		break
	done
	((ok)) || fail "no free port for --listen"
	echo "netdemo intruder: OK (the guest joined after the intruder's HELLOs; refused at the" \
		"host: $(grep '^  refused by reason:' host.out | sed 's/^  refused by reason: //'))"
	;;
*)
	fail "unknown mode"
	;;
esac
