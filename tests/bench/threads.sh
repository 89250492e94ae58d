# SPDX-License-Identifier: GPL-2.0
# threads.sh - `make bench`'s section on 8 threads allocating at once,
# sourced by run.sh (BENCH_ONLY=threads: this section alone): on each
# allocator, untraced, the floor and heap mode, modes alternated round by
# round on fresh targets; ns per pair as one thread sees it, medians (÷floor:
# the median of each round's ratio, run.sh's paired). The
# last memwatch run's row says what it counted of the loop's pairs.
# The allocator table's loop length: a run of 30,000 pairs a thread took
# 0.2 s, and one slow spell of this machine moved a whole run
echo
echo "8 threads at once, $APAIRS pairs each, $AROUNDS rounds (ns per pair as one thread sees it):"
tfams="glibc jemalloc tcmalloc mimalloc"
tmodes="untraced floor memwatch"
declare -A truns
counted=
for r in $(seq "$AROUNDS"); do
	for f in $tfams; do
		[ -n "$(fam_preload "$f")" ] && [ ! -e "$(fam_preload "$f")" ] && continue
		for m in $(in_turn "$r" $tmodes); do
			start_loop "$APAIRS" 8 "$LOOP" "$(fam_preload "$f")"
			if tracer "$m" "$LOOPP_PID"; then
				ask go
				reply=$REPLY_LINE
				MEASURED=${reply%% *}
				if [ "$m" = memwatch ] && [ "$f" = glibc ]; then
					sleep 1.2
					row=$(tail -1 "$TMP/memwatch.out")
					counted="memwatch counted $(echo "$row" | cut -d, -f5) allocations and $(echo "$row" | cut -d, -f7) frees of ${reply#* } pairs; lost: $(echo "$row" | cut -d, -f11-14)"
				fi
			else
				MEASURED=-
			fi
			stop_tracer
			stop_loop
			truns[$f.$m]="${truns[$f.$m]:-} $MEASURED"
			progress threads "$f $m" "$MEASURED ns/pair"
		done
	done
done
printf '%-10s %9s %9s %9s %9s %9s\n' allocator untraced floor memwatch "÷floor" "best÷"
for f in $tfams; do
	[ -z "${truns[$f.memwatch]:-}" ] && continue
	declare -A tm=()
	for m in $tmodes; do
		tm[$m]=$(runs_median "${truns[$f.$m]}")
	done
	printf '%-10s %9s %9s %9s %9s %9s\n' "$f" "${tm[untraced]}" "${tm[floor]}" "${tm[memwatch]}" \
		"$(paired "${truns[$f.memwatch]}" "${truns[$f.floor]}")" \
		"$(best "${truns[$f.memwatch]}" "${truns[$f.floor]}")"
done
echo "  glibc: $counted"
echo "  target: memwatch <= 1.10x the floor; best÷: the fastest runs' ratio"
