# SPDX-License-Identifier: GPL-2.0
# threads.sh - `make bench`'s section on 8 threads allocating at once,
# sourced by run.sh (BENCH_ONLY=threads: this section alone): on each
# allocator, untraced, the floor and heap mode side by side (sidebyside.sh:
# AROUNDS sessions of ATURNS turns or more, every thread APAIRS pairs a go); ns
# per pair as one thread sees it, medians of the goes (÷floor: of every
# turn's ratio). Each allocator's last session's memwatch row says what
# it counted of the loop's pairs.
echo
echo "8 threads at once, $APAIRS pairs each a go, $AROUNDS sessions of $(sbs_whole "$ATURNS" 3) turns (ns per pair as one thread sees it):"
tfams="glibc jemalloc tcmalloc mimalloc"
tmodes="untraced floor memwatch"
declare -A truns counted
for r in $(seq "$AROUNDS"); do
	for f in $tfams; do
		[ -n "$(fam_preload "$f")" ] && [ ! -e "$(fam_preload "$f")" ] && continue
		sbs_session threads "$LOOP" 8 "$(fam_preload "$f")" $tmodes || continue
		if ! sbs_turns "$ATURNS" $tmodes; then
			sbs_stop
			progress threads "$f" "a go failed or a tracer ended: session left out"
			continue
		fi
		sleep 1.2	# a row after the last go
		m=$TMP/memwatch.out
		counted[$f]="$(col "$m" heap_alloc_calls) allocations and $(col "$m" heap_free_calls) frees of $((SBS_DONE * APAIRS * 8)) pairs; lost: table $(col "$m" lost_table_full), unpaired $(col "$m" lost_unpaired), missed $(col "$m" lost_missed_probes)"
		sbs_stop
		for m in $tmodes; do
			truns[$f.$m]="${truns[$f.$m]:-} ${SBS_RUNS[$m]:-}"
			progress threads "$f $m" "$(runs_median "${SBS_RUNS[$m]:-}") ns/pair (median of $SBS_DONE)"
		done
		truns[$f.ratio]="${truns[$f.ratio]:-} ${SBS_RATIOS[memwatch]:-}"
		progress threads "$f memwatch ÷ floor" "$(ratios_median "${SBS_RATIOS[memwatch]:-}")"
	done
done
printf '%-10s %9s %9s %9s %9s\n' allocator untraced floor memwatch "÷floor"
for f in $tfams; do
	[ -z "${truns[$f.memwatch]:-}" ] && continue
	printf '%-10s %9s %9s %9s %9s\n' "$f" "$(runs_median "${truns[$f.untraced]}")" \
		"$(runs_median "${truns[$f.floor]}")" "$(runs_median "${truns[$f.memwatch]}")" \
		"$(ratios_median "${truns[$f.ratio]}")"
done
for f in $tfams; do
	[ -n "${counted[$f]:-}" ] && echo "  $f, its last session: memwatch counted ${counted[$f]}"
done
echo "  target: memwatch <= 1.10x the floor (÷floor: the median of every turn's ratio)"
