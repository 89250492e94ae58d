#!/bin/bash
# run.sh - `make bench`: what memwatch costs the target, side by side in one
# run, printing each measurement as it is taken. The allocator table and
# 8 threads run their modes side by side, one target a mode alive at once
# taking turns (sidebyside.sh); the other sections measure each mode on a
# fresh target process, the modes alternated round by round (this
# machine is noisy: read medians and ratios, not single runs). Sections:
#
#   allocators      a malloc+free pair on glibc, jemalloc, tcmalloc,
#                   mimalloc (preloaded) and C++ new/delete: untraced,
#                   memwatch, and empty programs at the same probes (floor)
#   prologues       an --insert probe's cost per call on functions that
#                   start with push, sub $imm,%rsp, a load into an argument
#                   register, a red-zone store, endbr64
#   redis           redis-benchmark SET and GET on Debian's redis-server:
#                   untraced, heap mode, its floor, --no-heap with the keys
#                   structure, a bpftrace script doing memleak's job
#   peers (glibc), in these modes:
#
#   untraced        no tracer
#   memwatch        heap mode (memwatch -p PID)
#   floor           empty BPF programs at memwatch's probe points (--floor)
#   sites           memwatch tracking allocation sites (--top 10)
#   entry-probes    memwatch with every probe at the function's first
#                   instruction (--probe-entry): what probe placement saves
#   no-heap         memwatch --no-heap with a structure (the loop calls no
#                   structure function: it should run untraced)
#   bpftrace        a bpftrace script doing memleak's job
#   bcc-memleak     BCC's memleak, where it can run
#
# Then: cost against the number of live blocks (1K, 1M, 10M), an
# unwatched child of a watched process, memwatch's exit with 256
# processes watched, 8 threads at once, memwatch's memory per live
# block, what a structure function's call costs in each way memwatch
# sees it, structures read from memory
# (--read: a 1M-element HashMap<u64, Vec<u8>> and unordered_map<string,
# vector<int>>, memwatch's CPU per walk and the target's speed beside
# untraced), building the heap profiles for 1,000 and 10,000 sites, and
# memwatch's own CPU and RSS.
set -uo pipefail
cd "$(dirname "$0")/../.."

# BENCH_QUICK=1: one round of everything, smaller loops and fewer turns
# (a smoke test: its ratios are too few to quote)
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	: "${BENCH_PAIRS:=10000}" "${BENCH_ROUNDS:=1}" "${BENCH_SCALE:=1000}"
	: "${BENCH_ALLOC_PAIRS:=20000}" "${BENCH_ALLOC_ROUNDS:=1}" "${BENCH_ALLOC_TURNS:=5}"
	: "${BENCH_CPU_SECONDS:=3}" "${BENCH_REDIS_REQUESTS:=5000}" "${BENCH_READ_ELEMENTS:=100000}"
	: "${BENCH_REDIS_ROUNDS:=1}"
fi
PAIRS=${BENCH_PAIRS:-30000}
ROUNDS=${BENCH_ROUNDS:-3}
# the allocator table and 8 threads: AROUNDS sessions of the modes side
# by side (sidebyside.sh), each ATURNS turns (rounded up to whole cycles
# of the modes' orders) of a go of APAIRS pairs (a thread) in each mode's
# target; a go of 20,000 pairs is 45 ms here (0.15 s with 8 threads). One
# turn's ratio spreads by +-15% on this machine; the median of 90: +-0.02
# between runs of one build
APAIRS=${BENCH_ALLOC_PAIRS:-20000}
AROUNDS=${BENCH_ALLOC_ROUNDS:-3}
ATURNS=${BENCH_ALLOC_TURNS:-30}
SCALE=${BENCH_SCALE:-"1000 1000000"}
# redis: runs of 20,000 requests (half a second) spread by +-25% here
REDIS_N=${BENCH_REDIS_REQUESTS:-50000}
RROUNDS=${BENCH_REDIS_ROUNDS:-5}
LIBDIR=/usr/lib/x86_64-linux-gnu
MW=build/memwatch
LOOP=build/bench/pair_loop
TMP=$(mktemp -d /tmp/memwatch-bench.XXXXXX)
LIBC=$(awk '$NF ~ /libc\.so\.6$/ {print $NF; exit}' /proc/self/maps)
# the kernel's BPF run-time statistics cost every program run a little:
# on only while runs are measured for them (the allocator table: all its
# sessions), and as they were at exit
STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
bpf_stats() { echo "$1" > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || true; }
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"; bpf_stats "$STATS_WAS"' EXIT

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "-"}'; }
# runs_median "A1 A2 ...": the median of a mode's runs, those that failed
# ("-") left out
runs_median() {
	printf '%s\n' $1 | grep -v '^-$' | median
}
# ratios_median "R1 R2 ...": the median of ratios, to two decimals ("-": none)
ratios_median() {
	printf '%s\n' $1 | grep -v '^$' | median | awk '{if ($1 == "-") print "-"; else printf "%.2f", $1}'
}
# paired "A1 A2 ..." "B1 B2 ...": the median of the rounds' A/B, each
# round's two runs taken seconds apart: a drift of this machine's
# speed over the whole run (±15% here) cancels in each, where it does not
# in a ratio of medians
paired() {
	ratios_median "$(paste -d' ' <(printf '%s\n' $1) <(printf '%s\n' $2) |
		awk '$1 != "-" && $2 != "-" && $2 > 0 {printf "%.4f\n", $1 / $2}')"
}
# in_turn ROUND WORD...: the words (modes) in order in odd rounds and in
# reverse in even ones, so that a drift within a round (seconds) falls on
# each mode's side as often as on the other's in the paired ratios
in_turn() {
	local r=$1
	shift
	if [ $((r % 2)) = 1 ]; then
		echo "$@"
	else
		printf '%s\n' "$@" | tac | tr '\n' ' '
	fi
}
# col FILE NAME: column NAME of the last row of the CSV feed FILE
col() { awk -F, -v n="$2" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) c = i} END {print c ? $c : "-"}' "$1"; }

# start_loop PAIRS THREADS [BINARY [PRELOAD]]: a fresh target on a coprocess
start_loop() {
	local bin=${3:-$LOOP} pre=${4:-}
	coproc LOOPP { LD_PRELOAD=$pre PAIR_DEPTH=${LOOP_DEPTH:-0} exec "$bin" "$1" "$2"; }
	read -r _ <&"${LOOPP[0]}"
}

# attach_memwatch [OPTIONS...]: memwatch on the target with OPTIONS, attached
# (TRACER its pid); none: untraced. Fails, target stopped, if it cannot.
attach_memwatch() {
	TRACER=
	[ $# -eq 0 ] && return 0
	: > "$TMP/calls.out"
	$MW -p "$LOOPP_PID" -i 1 "$@" -o "$TMP/calls.out" 2>"$TMP/err" &
	TRACER=$!
	wait_for "$TMP/calls.out" timestamp 30 "$TRACER" && return 0
	stop_tracer
	stop_loop
	return 1
}

# progress SECTION WHAT VALUE: one measurement, printed as it is taken
progress() {
	printf '  .. %-10s %-28s %s\n' "$1" "$2" "$3"
}

stop_loop() {
	exec {LOOPP[1]}>&-
	wait "$LOOPP_PID" 2>/dev/null
}

# ask LINE: send a command to the target; its reply in REPLY_LINE (no
# command substitution around this: coprocess fds stay in this shell)
ask() {
	echo "$1" >&"${LOOPP[1]}"
	read -r REPLY_LINE <&"${LOOPP[0]}"
}

# wait_for FILE PATTERN SECONDS [PID]: until PATTERN appears in FILE;
# fails at once if process PID has ended
wait_for() {
	for _ in $(seq $(($3 * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		[ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && return 1
		sleep 0.1
	done
	return 1
}

# tracer MODE PID: starts it in the background (TRACER=its pid), attached
tracer() {
	local mode=$1 pid=$2 out=$TMP/$1.out
	: > "$out"
	case $mode in
	untraced) TRACER=; return 0 ;;
	memwatch) $MW -p "$pid" -i 1 -o "$out" 2>"$TMP/err" & ;;
	floor) $MW -p "$pid" -i 1 --floor -o "$out" 2>"$TMP/err" & ;;
	sites) $MW -p "$pid" -i 1 --top 10 -o "$out" 2>"$TMP/err" & ;;
	stacks) $MW -p "$pid" -i 1 --stacks -o "$out" 2>"$TMP/err" & ;;
	stacks-fp) MEMWATCH_FP_STACKS=1 $MW -p "$pid" -i 1 --stacks -o "$out" 2>"$TMP/err" & ;;
	entry-probes) $MW -p "$pid" -i 1 --probe-entry -o "$out" 2>"$TMP/err" & ;;
	no-heap) $MW -p "$pid" -i 1 --no-heap --struct registry \
			--insert registry_add -o "$out" 2>"$TMP/err" & ;;
	bpftrace)
		cat > "$TMP/memleak.bt" <<-EOF
		uprobe:$LIBC:malloc /pid == $pid/ { @size[tid] = arg0; }
		uretprobe:$LIBC:malloc /pid == $pid/ { @live[retval] = @size[tid]; delete(@size[tid]); }
		uprobe:$LIBC:free /pid == $pid/ { delete(@live[arg0]); }
		EOF
		bpftrace "$TMP/memleak.bt" > "$out" 2>&1 &
		;;
	bcc-memleak) memleak-bpfcc -p "$pid" 60 > "$out" 2>&1 & ;;
	esac
	TRACER=$!
	case $mode in
	bpftrace) wait_for "$out" Attaching 30 "$TRACER" && sleep 1 ;;
	bcc-memleak) wait_for "$out" "Attaching to pid" 60 "$TRACER" && sleep 2 ;;
	*) wait_for "$out" timestamp 30 "$TRACER" ;;
	esac
}

stop_tracer() {
	[ -n "$TRACER" ] && kill -INT "$TRACER" 2>/dev/null && wait "$TRACER" 2>/dev/null
	TRACER=
}

# measure MODE: ns per pair on a fresh single-threaded target, or "-",
# into MEASURED
measure() {
	start_loop "$PAIRS" 1
	if tracer "$1" "$LOOPP_PID"; then
		ask go
		MEASURED=${REPLY_LINE%% *}
	else
		MEASURED=-
		head -c 300 "$TMP/$1.out" > "$TMP/$1.why"
	fi
	stop_tracer
	stop_loop
	progress peers "$1" "$MEASURED ns/pair"
}

echo "memwatch bench: $(nproc) CPUs, Linux $(uname -r), $PAIRS pairs or calls a run,"
echo "$ROUNDS rounds, modes alternated (side by side where said)"

# BENCH_ONLY=read (make bench-read) or calls: that section alone (and
# allocators or stacks: the allocator table, and the stacks' after it)
if [ "${BENCH_ONLY:-}" = read ] || [ "${BENCH_ONLY:-}" = calls ]; then
	source "tests/bench/$BENCH_ONLY.sh"
	exit 0
fi

# ---------------------------------------------------------- allocators
# fam_preload FAMILY: the library to preload ("" for glibc and C++)
fam_preload() {
	case $1 in
	jemalloc) echo "$LIBDIR/libjemalloc.so.2" ;;
	tcmalloc) echo "$LIBDIR/libtcmalloc_minimal.so.4" ;;
	mimalloc) echo "$LIBDIR/libmimalloc.so.2" ;;
	esac
}

# BENCH_ONLY=children (make bench-children): unwatched children and exit
if [ "${BENCH_ONLY:-}" = children ]; then
	source tests/bench/children.sh
	exit 0
fi

# feed_rows FILE: the rows of a CSV feed so far
feed_rows() {
	echo $(($(wc -l < "$1") - 1))
}

# estimate_ns FILE: memwatch's own estimate of what its probes cost the
# loop, in ns per pair: the overhead_percent of every row (1 s each) once
# two rows came after the loop (every hit counted), over PAIRS (or $2)
estimate_ns() {
	local want=$(($(feed_rows "$1") + 2))
	for _ in $(seq 50); do
		[ "$(feed_rows "$1")" -ge "$want" ] && break
		sleep 0.1
	done
	awk -F, -v pairs="${2:-$PAIRS}" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "overhead_percent") c = i; next }
		{ s += $c } END { printf "%.0f", s / 100 * 1e9 / pairs }' "$1"
}

# bpf_run_ns: the run time and runs, summed, of memwatch's allocator
# programs (the kernel's statistics: bpftool prog show), "NS RUNS": every
# program an allocator probe runs, by the names' prefixes (alloc_, free_,
# malloc_, floor_), so that a new one is not left out (free_enter was,
# and then malloc_si_enter); only those with the ids IDS if given (one
# tracer's, sbs_prog_ids)
bpf_run_ns() {
	bpftool prog show --json 2>/dev/null | python3 -c '
import json, sys
ids = set(int(i) for i in sys.argv[1:])
ns = cnt = 0
for p in json.load(sys.stdin):
    if ids and p.get("id") not in ids:
        continue
    if p.get("name", "").startswith(("alloc_", "free_", "malloc_", "floor_")):
        ns += p.get("run_time_ns", 0)
        cnt += p.get("run_cnt", 0)
print(ns, cnt)' "$@" 2>/dev/null || echo "0 0"
}

# bpf_per_pair "NS0 RUNS0" "NS1 RUNS1" PAIRS: BPF ns a pair between two
# bpf_run_ns readings, or "-" if no program ran
bpf_per_pair() {
	awk -v a="$1" -v b="$2" -v pairs="$3" 'BEGIN {
		split(a, x, " "); split(b, y, " ");
		if (y[2] > x[2]) printf "%.0f", (y[1] - x[1]) / pairs; else print "-" }'
}

source tests/bench/sidebyside.sh

# family_session FAMILY: one session of the allocator table's modes side
# by side (sidebyside.sh), ATURNS turns or more; each go into fruns, and per
# session memwatch's estimate and each tracer's BPF time a pair
family_session() {
	local f=$1 bin=$LOOP m
	local -A b0 ids
	[ "$f" = c++ ] && bin=build/bench/pair_loop_cxx
	sbs_session allocators "$bin" 1 "$(fam_preload "$f")" $fmodes || return
	for m in memwatch sites floor; do
		ids[$m]=$(sbs_prog_ids "$m")
		b0[$m]=$(bpf_run_ns ${ids[$m]})
	done
	if ! sbs_turns "$ATURNS" $fmodes; then
		sbs_stop
		progress allocators "$f" "a go failed or a tracer ended: session left out"
		return
	fi
	# (a tracer's programs by its fds: none found, no figure, rather
	# than every tracer's on the machine)
	for m in memwatch sites floor; do
		[ -n "${ids[$m]}" ] || continue
		fruns[$f.${m}bpf]="${fruns[$f.${m}bpf]:-} $(bpf_per_pair "${b0[$m]}" \
			"$(bpf_run_ns ${ids[$m]})" $((SBS_DONE * APAIRS)))"
	done
	fruns[$f.estimate]="${fruns[$f.estimate]:-} $(estimate_ns "$TMP/memwatch.out" $((SBS_DONE * APAIRS)))"
	sbs_stop
	for m in $fmodes; do
		fruns[$f.$m]="${fruns[$f.$m]:-} ${SBS_RUNS[$m]:-}"
		progress allocators "$f $m" "$(runs_median "${SBS_RUNS[$m]:-}") ns/pair (median of $SBS_DONE)"
	done
	for m in memwatch sites; do
		fruns[$f.$m.ratio]="${fruns[$f.$m.ratio]:-} ${SBS_RATIOS[$m]:-}"
		progress allocators "$f $m ÷ floor" "$(ratios_median "${SBS_RATIOS[$m]:-}")"
	done
}

# BENCH_ONLY=stacks, redis or threads: that section alone
if [ "${BENCH_ONLY:-}" = stacks ] || [ "${BENCH_ONLY:-}" = redis ] ||
   [ "${BENCH_ONLY:-}" = threads ]; then
	source "tests/bench/$BENCH_ONLY.sh"
	exit 0
fi

echo
echo "allocators: one malloc(64)+free pair (C++: new and sized delete), ns;"
echo "$AROUNDS sessions of $(sbs_whole "$ATURNS" 4) turns of $APAIRS pairs, modes side by side, medians:"
families="glibc jemalloc tcmalloc mimalloc c++"
fmodes="untraced memwatch sites floor"
declare -A fruns
[ "${BENCH_BPF_STATS:-1}" = 1 ] && bpf_stats 1
for r in $(seq "$AROUNDS"); do
	for f in $families; do
		[ -n "$(fam_preload "$f")" ] && [ ! -e "$(fam_preload "$f")" ] && continue
		family_session "$f"
	done
done
bpf_stats "$STATS_WAS"
declare -A fmed
for f in $families; do
	for m in $fmodes estimate memwatchbpf sitesbpf floorbpf; do
		fmed[$f.$m]=$(runs_median "${fruns[$f.$m]:-}")
	done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || !b) print "-"; else printf "%.2f", a / b}'; }
printf '%-9s %8s %8s %8s %8s %7s %7s %7s %8s %6s %6s %6s %6s\n' allocator untraced memwatch sites floor \
	"÷glibc" "÷floor" "sites÷" estimate "÷cost" "BPF" "sites'" "floor's"
for f in $families; do
	[ -z "${fruns[$f.memwatch]:-}" ] && continue
	printf '%-9s %8s %8s %8s %8s %7s %7s %7s %8s %6s %6s %6s %6s\n' "$f" "${fmed[$f.untraced]}" \
		"${fmed[$f.memwatch]}" "${fmed[$f.sites]}" "${fmed[$f.floor]}" \
		"$(ratio "${fmed[$f.memwatch]}" "${fmed[glibc.memwatch]}")" \
		"$(ratios_median "${fruns[$f.memwatch.ratio]:-}")" \
		"$(ratios_median "${fruns[$f.sites.ratio]:-}")" \
		"${fmed[$f.estimate]}" \
		"$(awk -v e="${fmed[$f.estimate]}" -v m="${fmed[$f.memwatch]}" -v u="${fmed[$f.untraced]}" \
			'BEGIN {if (e == "-" || m - u <= 0) print "-"; else printf "%.2f", e / (m - u)}')" \
		"${fmed[$f.memwatchbpf]}" "${fmed[$f.sitesbpf]}" "${fmed[$f.floorbpf]}"
done
echo "  target: every allocator <= 1.3x glibc's memwatch figure, memwatch <= 1.10x its"
echo "  floor, sites (--top 10) <= 1.25x. A session: one target a mode, all alive at"
echo "  once, from private copies of their libraries, each under its own tracer; a turn"
echo "  runs a go in each, in an order rotated every turn and reversed every cycle."
echo "  ns: the median of every go (untraced's includes starting its thread, colder"
echo "  after a traced go); ÷floor and sites÷: the median of every turn's ratio (slow"
echo "  spells fall on both sides)"
echo "  estimate: what memwatch's overhead_percent said the probes cost, per pair;"
echo "  ÷cost: estimate / (memwatch - untraced), the slowdown the loop measured"
echo "  BPF (sites'): memwatch's allocator programs' own run time per pair, from the"
echo "  kernel's BPF statistics (kernel.bpf_stats_enabled, on for the whole table: they"
echo "  add the statistics' own clock reads to every traced column; BENCH_BPF_STATS=0"
echo "  leaves them off); floor's: the same for the empty programs, what the statistics"
echo "  count of a program that does nothing; median of the sessions. Target: <= 300 ns"
# BENCH_ONLY=allocators: this table alone
[ "${BENCH_ONLY:-}" = allocators ] && exit 0

# ------------------------------------------------------- stacks (--stacks)
source tests/bench/stacks.sh

# ----------------------------------------------------------- prologues
PRO=build/targets/prologues
# pro_measure FUNC [MEMWATCH OPTIONS...]: ns per call of p_FUNC into MEASURED
pro_measure() {
	local f=$1
	shift
	coproc LOOPP { exec "$PRO"; }
	read -r _ <&"${LOOPP[0]}"
	MEASURED=-
	attach_memwatch "$@" || return
	ask "calls $f $PAIRS"
	MEASURED=${REPLY_LINE#*ns_per_call=}
	MEASURED=${MEASURED%% *}
	stop_tracer
	stop_loop
}

echo
echo "prologues: an --insert probe (--no-heap, counted at entry), ns per call:"
pfuncs="push sub mov redzone endbr"
declare -A pruns
for r in $(seq "$ROUNDS"); do
	for f in $pfuncs; do
		pro_measure "$f"
		pruns[$f.untraced]="${pruns[$f.untraced]:-} $MEASURED"
		progress prologues "p_$f untraced" "$MEASURED ns/call"
		pro_measure "$f" --no-heap --struct s --insert "p_$f"
		pruns[$f.insert]="${pruns[$f.insert]:-} $MEASURED"
		progress prologues "p_$f --insert" "$MEASURED ns/call"
	done
done
printf '%-10s %9s %9s %22s\n' prologue untraced insert "÷push (emulated hit)"
pushmed=$(runs_median "${pruns[push.insert]}")
for f in $pfuncs; do
	med=$(runs_median "${pruns[$f.insert]}")
	printf '%-10s %9s %9s %22s\n' "$f" "$(printf '%s\n' ${pruns[$f.untraced]} | median)" "$med" \
		"$(awk -v a="$med" -v b="$pushmed" 'BEGIN {printf "%.2f", a / b}')"
done
echo "  push is emulated at the entry; the others' probes move past their first"
echo "  instructions; target: each <= 1.3x push"

# --------------------------------------------------------------- redis
source tests/bench/redis.sh

echo
echo "peers, glibc (ns per pair):"
modes="untraced memwatch floor sites entry-probes no-heap"
command -v bpftrace >/dev/null && modes="$modes bpftrace"
command -v memleak-bpfcc >/dev/null && modes="$modes bcc-memleak"
declare -A runs
for r in $(seq "$ROUNDS"); do
	for m in $modes; do
		measure "$m"
		runs[$m]="${runs[$m]:-} $MEASURED"
	done
done

declare -A med
printf '%-14s %10s %10s   %s\n' mode median "÷memwatch" runs
for m in $modes; do
	med[$m]=$(runs_median "${runs[$m]}")
done
for m in $modes; do
	ratio=-
	[ "${med[$m]}" != - ] && ratio=$(awk -v a="${med[$m]}" -v b="${med[memwatch]}" 'BEGIN {printf "%.2f", a / b}')
	printf '%-14s %10s %10s  %s\n' "$m" "${med[$m]}" "$ratio" "${runs[$m]}"
	[ -s "$TMP/$m.why" ] && printf '%14s cannot run here: %s\n' "" "$(tr '\n' ' ' < "$TMP/$m.why" | cut -c1-150)"
done
echo
awk -v m="${med[memwatch]}" -v f="${med[floor]}" -v b="${med[bpftrace]:--}" -v c="${med[bcc-memleak]:--}" 'BEGIN {
	printf "memwatch / floor = %.2f (target <= 1.15)\n", m / f
	if (b != "-") printf "memwatch / bpftrace = %.2f (target <= 0.6)\n", m / b
	if (c != "-") printf "memwatch / bcc-memleak = %.2f (target <= 0.5)\n", m / c
}'

# ---------------------------------------------------------------- scale
echo
echo "live blocks held while measuring (memwatch heap mode, 3 runs each; the table"
echo "has room for 100,000 more, allocated at attach: bytes/room is its memory a block of room):"
printf '%12s %10s %14s %12s %8s\n' blocks "ns/pair" "kernel bytes" "bytes/room" lost
for k in $SCALE; do
	start_loop "$PAIRS" 1
	rm -f "$TMP/scale.out"	# its header tells when memwatch is attached
	$MW -p "$LOOPP_PID" -i 1 --max-live-blocks $((k + 100000)) -o "$TMP/scale.out" 2>"$TMP/err" &
	TRACER=$!
	wait_for "$TMP/scale.out" timestamp 30
	ask "fill $k"
	samples=
	for _ in 1 2 3; do
		ask go
		samples="$samples ${REPLY_LINE%% *}"
	done
	ns=$(printf '%s\n' $samples | median)
	mem=$(bpftool map show name live 2>/dev/null | sed -n 's/.*memlock \([0-9]*\)B.*/\1/p' | head -1)
	sleep 1.2
	lost=$(tail -1 "$TMP/scale.out" | cut -d, -f11)
	printf '%12s %10s %14s %12s %8s\n' "$k" "$ns" "${mem:--}" \
		"$(awk -v m="${mem:-0}" -v k="$((k + 100000))" 'BEGIN {printf "%.0f", m / k}')" "$lost"
	stop_tracer
	stop_loop
done

# ---------------------------------------------------- processes watched
# The same loop's pair while memwatch also watches N - 1 idle processes
# that map the same libc (each pid has its own links, and the kernel runs
# every consumer of a probe to let each filter on its pid).
echo
echo "processes watched at once, the loop among them (ns per pair, median of 3):"
printf '%10s %10s\n' processes "ns/pair"
IDLE=()
for n in ${BENCH_PROCESSES:-1 16 64 256}; do
	while [ "${#IDLE[@]}" -lt $((n - 1)) ]; do
		sleep 3600 < /dev/null > /dev/null 2>&1 &
		IDLE+=("$!")
	done
	start_loop "$PAIRS" 1
	args=(-p "$LOOPP_PID")
	for p in "${IDLE[@]}"; do args+=(-p "$p"); done
	rm -f "$TMP/procs.out"
	$MW "${args[@]}" --max-targets $((n + 8)) -i 1 -o "$TMP/procs.out" 2>"$TMP/err" &
	TRACER=$!
	if ! wait_for "$TMP/procs.out" timestamp 120 "$TRACER"; then
		printf '%10s %10s  (%s)\n' "$n" - "$(head -c 200 "$TMP/err")"
		stop_tracer
		stop_loop
		continue
	fi
	samples=
	for _ in 1 2 3; do
		ask go
		samples="$samples ${REPLY_LINE%% *}"
	done
	printf '%10s %10s  %s\n' "$n" "$(printf '%s\n' $samples | median)" "$samples"
	stop_tracer
	stop_loop
done
kill "${IDLE[@]}" 2>/dev/null

# ------------------------------------- unwatched children, exit time
source tests/bench/children.sh

# -------------------------------------------------------------- threads
source tests/bench/threads.sh

# ------------------------------------------------ structure function calls
source tests/bench/calls.sh

# ------------------------------------------------ structures read (--read)
source tests/bench/read.sh

# ------------------------------------------------------- heap profiles
echo
echo "heap profiles (pprof, both kinds) built from N sites, best and median of 5:"
for n in 1000 10000; do
	echo "  $(build/bench/pprof_build "$n" 5)"
done

# ------------------------------------------------------- memwatch itself
echo
secs=${BENCH_CPU_SECONDS:-10}
start_loop "$PAIRS" 1
tracer memwatch "$LOOPP_PID"
t0=$(awk '{print $14 + $15}' "/proc/$TRACER/stat")
sleep "$secs"
t1=$(awk '{print $14 + $15}' "/proc/$TRACER/stat")
rss=$(awk '/VmRSS/ {print $2 " " $3}' "/proc/$TRACER/status")
awk -v a="$t0" -v b="$t1" -v s="$secs" -v hz="$(getconf CLK_TCK)" -v rss="$rss" 'BEGIN {
	printf "memwatch itself, sampling every 1 s for %d s: %.2f%% of a core, RSS %s\n",
	       s, 100 * (b - a) / hz / s, rss }'
stop_tracer
stop_loop
