# SPDX-License-Identifier: GPL-2.0
# calls.sh - `make bench`'s section on structure function calls, sourced
# by run.sh after its helpers (BENCH_ONLY=calls runs it alone): what a
# call of an insert costs under each way memwatch counts it.
# ------------------------------------------------- structure functions
# call_measure BINARY [MEMWATCH OPTIONS...]: ns per registry_insert call on
# a fresh target, into MEASURED
call_measure() {
	local bin=$1
	shift
	coproc LOOPP { exec "$bin" "$PAIRS" 1; }
	read -r _ <&"${LOOPP[0]}"
	MEASURED=-
	attach_memwatch "$@" || return
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
call_modes="untraced entry entry-unwinding ret ret-unwinding heap-scope"
declare -A cruns
for r in $(seq "$ROUNDS"); do
	for m in $call_modes; do
		case $m in
		untraced) call_measure "$LOOP" ;;
		entry) call_measure "$LOOP" --no-heap $INS ;;
		entry-unwinding) call_measure "$UNWIND" --no-heap $INS ;;
		ret) call_measure "$LOOP" --no-heap $INS --delta ret ;;
		ret-unwinding) call_measure "$UNWIND" --no-heap $INS --delta ret ;;
		heap-scope) call_measure "$LOOP" $INS ;;
		esac
		cruns[$m]="${cruns[$m]:-} $MEASURED"
		progress calls "$m" "$MEASURED ns/call"
	done
done
for m in $call_modes; do
	printf '%-14s %8s  %s\n' "$m" "$(runs_median "${cruns[$m]}")" "${cruns[$m]}"
done
echo "  entry: --no-heap, the entry probe alone; entry-unwinding: the same where"
echo "  the target maps an unwinder (the call's scope is kept, so that an"
echo "  unwound call adds nothing); ret: --delta ret in a C target"
echo "  (a return probe); ret-unwinding: the same where the target maps an"
echo "  unwinder (probes on its return instructions); heap-scope: heap mode,"
echo "  the insert's scope known from its entry"

