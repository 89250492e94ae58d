#!/bin/bash
# run.sh - `make bench`: what an observed malloc+free pair costs the target,
# memwatch beside its peers, measured side by side in one run. Each mode is
# measured on a fresh target process, and the modes alternate round by
# round (this machine is noisy: read medians and ratios, not single runs).
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
# Then: cost against the number of live blocks (1K, 1M, 10M), 8 threads at
# once, memwatch's memory per live block, what a structure function's
# call costs in each way memwatch sees it, and memwatch's own CPU and RSS.
set -uo pipefail
cd "$(dirname "$0")/../.."

PAIRS=${BENCH_PAIRS:-50000}
ROUNDS=${BENCH_ROUNDS:-5}
SCALE=${BENCH_SCALE:-"1000 1000000 10000000"}
MW=build/memwatch
LOOP=build/bench/pair_loop
TMP=$(mktemp -d /tmp/memwatch-bench.XXXXXX)
LIBC=$(awk '$NF ~ /libc\.so\.6$/ {print $NF; exit}' /proc/self/maps)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TMP"' EXIT

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "-"}'; }

# start_loop PAIRS THREADS: a fresh target on a coprocess
start_loop() {
	coproc LOOPP { exec "$LOOP" "$1" "$2"; }
	read -r _ <&"${LOOPP[0]}"
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
}

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

echo "memwatch bench: $(nproc) CPUs, Linux $(uname -r), $PAIRS malloc(64)+free pairs a run,"
echo "$ROUNDS runs a mode, modes alternated; ns per pair"
echo
declare -A med
printf '%-14s %10s %10s   %s\n' mode median "÷memwatch" runs
for m in $modes; do
	med[$m]=$(printf '%s\n' ${runs[$m]} | grep -v '^-$' | median)
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
echo "live blocks held while measuring (memwatch heap mode, 3 runs each):"
printf '%12s %10s %14s %12s %8s\n' blocks "ns/pair" "kernel bytes" "bytes/block" lost
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
		"$(awk -v m="${mem:-0}" -v k="$k" 'BEGIN {printf "%.0f", m / k}')" "$lost"
	stop_tracer
	stop_loop
done

# -------------------------------------------------------------- threads
echo
echo "8 threads at once, $PAIRS pairs each (ns per pair as one thread sees it):"
for m in untraced floor memwatch; do
	start_loop "$PAIRS" 8
	tracer "$m" "$LOOPP_PID"
	ask go
	reply=$REPLY_LINE
	sleep 1.2
	extra=
	if [ "$m" = memwatch ]; then
		row=$(tail -1 "$TMP/memwatch.out")
		extra="memwatch counted $(echo "$row" | cut -d, -f5) allocations and $(echo "$row" | cut -d, -f7) frees of ${reply#* }; lost: $(echo "$row" | cut -d, -f11-14)"
	fi
	printf '%-10s %8s  %s\n' "$m" "${reply%% *}" "$extra"
	stop_tracer
	stop_loop
done

# ------------------------------------------------- structure functions
# call_measure BINARY [MEMWATCH OPTIONS...]: ns per registry_insert call on
# a fresh target, into MEASURED
call_measure() {
	local bin=$1
	shift
	coproc LOOPP { exec "$bin" "$PAIRS" 1; }
	read -r _ <&"${LOOPP[0]}"
	TRACER=
	MEASURED=-
	if [ $# -gt 0 ]; then
		: > "$TMP/calls.out"
		$MW -p "$LOOPP_PID" -i 1 "$@" -o "$TMP/calls.out" 2>"$TMP/err" &
		TRACER=$!
		wait_for "$TMP/calls.out" timestamp 30 "$TRACER" || { stop_tracer; stop_loop; return; }
	fi
	ask calls
	MEASURED=${REPLY_LINE%% *}
	stop_tracer
	stop_loop
}

echo
echo "structure function calls ($PAIRS calls of an insert that starts with a call"
echo "and makes two; ns per call, median of $ROUNDS, modes alternated):"
INS="--struct registry --insert registry_insert"
UNWIND=build/bench/pair_loop_unwind
call_modes="untraced entry ret ret-unwinding heap-scope"
declare -A cruns
for r in $(seq "$ROUNDS"); do
	for m in $call_modes; do
		case $m in
		untraced) call_measure "$LOOP" ;;
		entry) call_measure "$LOOP" --no-heap $INS ;;
		ret) call_measure "$LOOP" --no-heap $INS --delta ret ;;
		ret-unwinding) call_measure "$UNWIND" --no-heap $INS --delta ret ;;
		heap-scope) call_measure "$LOOP" $INS ;;
		esac
		cruns[$m]="${cruns[$m]:-} $MEASURED"
	done
done
for m in $call_modes; do
	printf '%-14s %8s  %s\n' "$m" "$(printf '%s\n' ${cruns[$m]} | grep -v '^-$' | median)" "${cruns[$m]}"
done
echo "  entry: --no-heap, the entry probe alone; ret: --delta ret in a C target"
echo "  (a return probe); ret-unwinding: the same where the target maps an"
echo "  unwinder (probes on its return instructions); heap-scope: heap mode,"
echo "  the insert's scope known from its entry"

# ------------------------------------------------------- memwatch itself
echo
secs=${BENCH_CPU_SECONDS:-20}
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
