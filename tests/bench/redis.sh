# SPDX-License-Identifier: GPL-2.0
# redis.sh - `make bench`'s section on a real workload, sourced by run.sh:
# redis-benchmark SET and GET on Debian's redis-server (jemalloc),
# untraced and under each mode, modes alternated round by round
# (BENCH_ONLY=redis: this section alone).

# redis_measure MODE [stats]: SET and GET requests per second into RSET,
# RGET; with stats, the allocator programs' run time a request (both
# tests) into RBPF, from the kernel's BPF statistics, on for that run only
# (they cost each program run two clock reads: not in the rounds' runs)
redis_measure() {
	local port=$((20000 + RANDOM % 10000)) pid lib b0 b1
	RSET=-
	RGET=-
	RBPF=-
	redis-server --port "$port" --save '' --appendonly no >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		redis-cli -p "$port" PING 2>/dev/null | grep -q PONG && break
		sleep 0.1
	done
	TRACER=
	rm -f "$TMP/r.out"	# its header (or bpftrace's line) says attached
	case $1 in
	heap) $MW -p "$pid" -i 1 -o "$TMP/r.out" 2>"$TMP/r.err" & TRACER=$! ;;
	sites) $MW -p "$pid" -i 1 --top 10 -o "$TMP/r.out" 2>"$TMP/r.err" & TRACER=$! ;;
	stacks) $MW -p "$pid" -i 1 --stacks -o "$TMP/r.out" 2>"$TMP/r.err" & TRACER=$! ;;
	floor) $MW -p "$pid" -i 1 --floor -o "$TMP/r.out" 2>"$TMP/r.err" & TRACER=$! ;;
	keys) $MW -p "$pid" -i 1 --no-heap --struct keys --insert dbAdd \
		--remove moduleNotifyKeyUnlink -o "$TMP/r.out" 2>"$TMP/r.err" & TRACER=$! ;;
	keys-floor) $MW -p "$pid" -i 1 --floor --no-heap --struct keys --insert dbAdd \
		--remove moduleNotifyKeyUnlink -o "$TMP/r.out" 2>"$TMP/r.err" & TRACER=$! ;;
	bpftrace)
		lib=$(awk '$NF ~ /libjemalloc/ {print $NF; exit}' "/proc/$pid/maps")
		cat > "$TMP/redis.bt" <<-EOF
		uprobe:$lib:malloc /pid == $pid/ { @size[tid] = arg0; }
		uretprobe:$lib:malloc /pid == $pid/ { @live[retval] = @size[tid]; delete(@size[tid]); }
		uprobe:$lib:calloc /pid == $pid/ { @size[tid] = arg0 * arg1; }
		uretprobe:$lib:calloc /pid == $pid/ { @live[retval] = @size[tid]; delete(@size[tid]); }
		uprobe:$lib:realloc /pid == $pid/ { delete(@live[arg0]); @size[tid] = arg1; }
		uretprobe:$lib:realloc /pid == $pid/ { @live[retval] = @size[tid]; delete(@size[tid]); }
		uprobe:$lib:free /pid == $pid/ { delete(@live[arg0]); }
		EOF
		bpftrace "$TMP/redis.bt" > "$TMP/r.out" 2>&1 & TRACER=$!
		;;
	esac
	if [ -n "$TRACER" ]; then
		if [ "$1" = bpftrace ]; then
			wait_for "$TMP/r.out" Attaching 30 "$TRACER" && sleep 1
		else
			wait_for "$TMP/r.out" timestamp 30 "$TRACER"
		fi || { stop_tracer; kill "$pid"; wait "$pid" 2>/dev/null; return; }
	fi
	if [ "${2:-}" = stats ]; then
		bpf_stats 1
		b0=$(bpf_run_ns)
	fi
	out=$(redis-benchmark -p "$port" -t set,get -n "$REDIS_N" -c 8 -d 64 -r 100000 -q 2>/dev/null | tr '\r' '\n')
	if [ "${2:-}" = stats ]; then
		b1=$(bpf_run_ns)
		bpf_stats "$STATS_WAS"
		RBPF=$(awk -v a="$b0" -v b="$b1" -v n="$REDIS_N" 'BEGIN {
			split(a, x, " "); split(b, y, " ");
			if (y[2] > x[2]) printf "%.0f", (y[1] - x[1]) / (2 * n); else print "-" }')
	fi
	RSET=$(echo "$out" | sed -n 's/^SET: \([0-9.]*\) requests per second.*/\1/p' | cut -d. -f1)
	RGET=$(echo "$out" | sed -n 's/^GET: \([0-9.]*\) requests per second.*/\1/p' | cut -d. -f1)
	stop_tracer
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	local also=
	[ "$RBPF" = - ] || also=", $RBPF ns of BPF a request"
	progress redis "$1" "SET ${RSET:--}/s GET ${RGET:--}/s$also"
}

if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
	echo
	echo "redis: redis-benchmark -t set,get -n $REDIS_N -c 8 -d 64 -r 100000 (requests/s):"
	rmodes="untraced heap floor sites stacks keys keys-floor"
	command -v bpftrace >/dev/null && rmodes="$rmodes bpftrace"
	declare -A rset rget rbpf
	for r in $(seq "$RROUNDS"); do
		for m in $(in_turn "$r" $rmodes); do
			redis_measure "$m"
			rset[$m]="${rset[$m]:-} ${RSET:--}"
			rget[$m]="${rget[$m]:-} ${RGET:--}"
		done
	done
	# the BPF programs' own time, in runs of their own
	for m in heap sites floor; do
		for r in $(seq "$RROUNDS"); do
			[ "$r" -gt 3 ] && break
			redis_measure "$m" stats
			rbpf[$m]="${rbpf[$m]:-} $RBPF"
		done
	done
	printf '%-10s %9s %9s %9s %9s\n' mode SET "÷untraced" GET "÷untraced"
	for m in $rmodes; do
		printf '%-10s %9s %9s %9s %9s\n' "$m" \
			"$(runs_median "${rset[$m]}")" \
			"$(paired "${rset[$m]}" "${rset[untraced]}")" \
			"$(runs_median "${rget[$m]}")" \
			"$(paired "${rget[$m]}" "${rget[untraced]}")"
	done
	echo "  heap ÷ floor: SET $(paired "${rset[heap]}" "${rset[floor]}"), GET $(paired "${rget[heap]}" "${rget[floor]}")"
	echo "  BPF a request (SET and GET, medians): heap $(runs_median "${rbpf[heap]}") ns," \
		"sites $(runs_median "${rbpf[sites]}") ns, floor $(runs_median "${rbpf[floor]}") ns;"
	echo "  from the kernel's BPF statistics, in runs of their own (up to 3 a mode): floor's is"
	echo "  what they count of empty programs, their own clock reads"
	echo "  $RROUNDS rounds, medians; ÷: the median of each round's ratio (run.sh's paired)"
	echo "  heap: memwatch -p PID; floor: empty programs at the same probes;"
	echo "  sites: --top 10; stacks: --stacks (redis-server has no frame pointers);"
	echo "  keys: --no-heap --struct keys --insert dbAdd --remove moduleNotifyKeyUnlink;"
	echo "  keys-floor: empty programs at those two probes"
fi
