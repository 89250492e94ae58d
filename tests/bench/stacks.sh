# SPDX-License-Identifier: GPL-2.0
# stacks.sh - `make bench`'s section on allocation stacks (--stacks),
# sourced by run.sh after the allocator table: what a malloc+free pair
# costs with sites (--top: the return address alone), with stacks walked
# by the unwind tables (--stacks), and with the kernel's frame-pointer
# walk instead (MEMWATCH_FP_STACKS=1), beside heap mode without sites, on
# a fresh target each, modes alternated. The loop's stack is shallow
# (main, the loop, the allocator: 5 frames to _start); a deeper stack
# costs more frames.
echo
echo "stacks: one malloc(64)+free pair, ns; ratios to heap mode without sites:"
sfams="glibc jemalloc glibc-deep"
smodes="memwatch sites stacks-fp stacks"
declare -A sruns
for r in $(seq "$ROUNDS"); do
	for f in $sfams; do
		pf=${f%-deep}
		[ -n "$(fam_preload "$pf")" ] && [ ! -e "$(fam_preload "$pf")" ] && continue
		LOOP_DEPTH=0
		[ "$f" != "$pf" ] && LOOP_DEPTH=30
		for m in $smodes; do
			start_loop "$PAIRS" 1 "$LOOP" "$(fam_preload "$pf")"
			if tracer "$m" "$LOOPP_PID"; then
				ask go
				MEASURED=${REPLY_LINE%% *}
			else
				MEASURED=-
			fi
			stop_tracer
			stop_loop
			sruns[$f.$m]="${sruns[$f.$m]:-} $MEASURED"
			progress stacks "$f $m" "$MEASURED ns/pair"
		done
	done
done
LOOP_DEPTH=0
printf '%-10s %9s %9s %11s %9s %9s %9s\n' allocator heap "--top" "stacks(fp)" "--stacks" "÷heap" "÷fp"
for f in $sfams; do
	[ -z "${sruns[$f.memwatch]:-}" ] && continue
	declare -A sm=()
	for m in $smodes; do
		sm[$m]=$(runs_median "${sruns[$f.$m]}")
	done
	printf '%-10s %9s %9s %11s %9s %9s %9s\n' "$f" "${sm[memwatch]}" "${sm[sites]}" "${sm[stacks-fp]}" \
		"${sm[stacks]}" \
		"$(awk -v a="${sm[stacks]}" -v b="${sm[memwatch]}" 'BEGIN {printf "%.2f", a / b}')" \
		"$(awk -v a="${sm[stacks]}" -v b="${sm[stacks-fp]}" 'BEGIN {printf "%.2f", a / b}')"
done
echo "  --stacks: walked in BPF by the objects' unwind tables; stacks(fp): the kernel's"
echo "  frame-pointer walk (MEMWATCH_FP_STACKS=1), which stops at code built without"
echo "  frame pointers (here glibc's and jemalloc's own)"
