#!/bin/bash
# run.sh - `make bench`: cost per malloc+free pair in the target, untraced
# and under memwatch, measured side by side and alternated in one run (the
# machine is noisy); prints each run and the medians.
set -euo pipefail
N=${BENCH_PAIRS:-20000}
ROUNDS=${BENCH_ROUNDS:-5}

# one measurement: pair_loop started fresh, optionally observed
measure() {
	local mode=$1 mw=
	coproc LOOP { exec build/bench/pair_loop "$N"; }
	read -r _ <&"${LOOP[0]}"
	if [ "$mode" = heap ]; then
		build/memwatch -p "$LOOP_PID" -i 1 -o /dev/null &
		mw=$!
		sleep 1.5	# attached once the header is written
	fi
	echo go >&"${LOOP[1]}"
	read -r ns <&"${LOOP[0]}"
	[ -n "$mw" ] && kill "$mw" && wait "$mw" || true
	exec {LOOP[1]}>&-
	wait "$LOOP_PID" 2>/dev/null || true
	echo "$ns"
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

declare -a untraced heap
for i in $(seq "$ROUNDS"); do
	untraced+=("$(measure none)")
	heap+=("$(measure heap)")
done
mu=$(printf '%s\n' "${untraced[@]}" | median)
mh=$(printf '%s\n' "${heap[@]}" | median)
printf 'pairs per run: %s, runs per mode: %s (alternated)\n' "$N" "$ROUNDS"
printf '%-28s %12s   %s\n' "mode" "median ns" "runs (ns per malloc+free pair)"
printf '%-28s %12s   %s\n' "untraced" "$mu" "${untraced[*]}"
printf '%-28s %12s   %s\n' "memwatch (heap mode)" "$mh" "${heap[*]}"
