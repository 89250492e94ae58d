# SPDX-License-Identifier: GPL-2.0
# children.sh - `make bench`'s section on what memwatch leaves behind,
# sourced by run.sh after its helpers (BENCH_ONLY=children runs it
# alone): a child that a watched process forks and nobody watches (its
# pair against an untraced process's child, and how long after its fork
# it trapped on the breakpoints it inherited), and how long memwatch
# takes to exit after SIGTERM with N processes watched.

# ------------------------------------------------- unwatched children
# child_measure FAMILY MODE: on a fresh target of FAMILY, under MODE
# (untraced or memwatch), the reply to "child" into MEASURED ("NS MS")
child_measure() {
	local bin=$LOOP
	[ "$1" = c++ ] && bin=build/bench/pair_loop_cxx
	start_loop "$PAIRS" 1 "$bin" "$(fam_preload "$1")"
	MEASURED="- -"
	if tracer "$2" "$LOOPP_PID"; then
		ask child
		MEASURED=$REPLY_LINE
	fi
	stop_tracer
	stop_loop
}

echo
echo "a child forked by a watched process, watched by nobody: its malloc+free pair"
echo "(ns, the median of 21 rounds of 10,000, after a second of rounds of 100) and"
echo "how long after its fork it trapped (ms); beside an untraced process's child;"
echo "median of $ROUNDS, the two alternated:"
printf '%-9s %9s %9s %10s %11s %11s\n' allocator untraced watched "÷untraced" "trapped ms" "(untraced)"
for f in glibc jemalloc tcmalloc mimalloc c++; do
	[ -n "$(fam_preload "$f")" ] && [ ! -e "$(fam_preload "$f")" ] && continue
	declare -A cr=()
	for r in $(seq "$ROUNDS"); do
		for m in $(in_turn "$r" untraced memwatch); do
			child_measure "$f" "$m"
			cr[$m.ns]="${cr[$m.ns]:-} ${MEASURED% *}"
			cr[$m.ms]="${cr[$m.ms]:-} ${MEASURED#* }"
			progress children "$f $m" "$MEASURED"
		done
	done
	printf '%-9s %9s %9s %10s %11s %11s\n' "$f" "$(runs_median "${cr[untraced.ns]}")" \
		"$(runs_median "${cr[memwatch.ns]}")" "$(paired "${cr[memwatch.ns]}" "${cr[untraced.ns]}")" \
		"$(runs_median "${cr[memwatch.ms]}")" "$(runs_median "${cr[untraced.ms]}")"
	unset cr
done
echo "  target: ÷untraced within noise of 1.00 (no breakpoint left in the child);"
echo "  trapped: from the fork until memwatch took the breakpoints out of the child"
echo "  (an untraced child's first rounds pay for its copy-on-write faults)"

# ------------------------------------------------------ exit time
echo
echo "memwatch's exit after SIGTERM with N idle processes watched (s, median of $ROUNDS),"
echo "with this kernel's links and as on a kernel without multi-uprobe links"
echo "(MEMWATCH_NO_MULTI=1: the shared tracefs events):"
printf '%10s %8s %10s  %s\n' processes "exit s" "no-multi s" runs
IDLE=()
# exit_runs N [ENV...]: $ROUNDS exits with N processes watched into RUNS
exit_runs() {
	local n=$1 args=() p t0
	shift
	RUNS=
	for p in "${IDLE[@]:0:$n}"; do args+=(-p "$p"); done
	for r in $(seq "$ROUNDS"); do
		: > "$TMP/exit.out"
		env "$@" $MW "${args[@]}" --max-targets $((n + 8)) -i 1 -o "$TMP/exit.out" 2>"$TMP/err" &
		TRACER=$!
		if ! wait_for "$TMP/exit.out" timestamp 300 "$TRACER"; then
			RUNS="$RUNS -"
			stop_tracer
			continue
		fi
		t0=$(date +%s.%N)
		kill -TERM "$TRACER"
		wait "$TRACER" 2>/dev/null
		RUNS="$RUNS $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}')"
		TRACER=
	done
}
for n in ${BENCH_EXIT_PROCESSES:-1 64 256}; do
	while [ "${#IDLE[@]}" -lt "$n" ]; do
		sleep 3600 < /dev/null > /dev/null 2>&1 &
		IDLE+=("$!")
	done
	exit_runs "$n"
	multi=$RUNS
	exit_runs "$n" MEMWATCH_NO_MULTI=1
	printf '%10s %8s %10s  %s |%s\n' "$n" "$(runs_median "$multi")" "$(runs_median "$RUNS")" \
		"$multi" "$RUNS"
done
kill "${IDLE[@]}" 2>/dev/null
echo "  target: at most 3 s with 256 processes, either way. Each process has its own links"
echo "  (their pid filter), and releasing one scans the consumers of every"
echo "  process's probe on the same code (one a probe: sessions)"
