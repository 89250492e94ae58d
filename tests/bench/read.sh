# SPDX-License-Identifier: GPL-2.0
# read.sh - `make bench`'s section on structures read from memory
# (--read), sourced by run.sh after its helpers (`make bench-read` runs it
# alone).
# A target holding a map of READ_N elements answers "spin" with the
# lookups it made in a second; memwatch --no-heap --read walks the whole
# map every interval (-i 1) on the other core. memwatch's CPU per walk
# from /proc over 5 intervals; the target's speed against untraced,
# alternated round by round.
READ_N=${BENCH_READ_ELEMENTS:-1000000}
echo
echo "structures read from memory (--read, -i 1), $READ_N elements; lookups per"
echo "second, median of $ROUNDS, alternated with untraced; memwatch's CPU per walk:"
printf '%-36s %12s %12s %8s %12s %14s\n' structure untraced "--read" ratio "ms/walk" "elements/s"
for t in rust:BIG:'HashMap<u64, Vec<u8>>' cxx:g_big:'unordered_map<string, vector<int>>'; do
	bin=build/bench/read_big_${t%%:*}
	rest=${t#*:}
	expr=${rest%%:*}
	label=${rest#*:}
	declare -A rruns=()
	cpu=-
	coproc LOOPP { exec "$bin" "$READ_N"; }
	read -r _ <&"${LOOPP[0]}"
	for r in $(seq "$ROUNDS"); do
		for m in untraced read; do
			TRACER=
			if [ "$m" = read ]; then
				: > "$TMP/read.out"
				$MW -p "$LOOPP_PID" -i 1 --no-heap --struct big --read "$expr" \
					-o "$TMP/read.out" 2>"$TMP/err" &
				TRACER=$!
				wait_for "$TMP/read.out" timestamp 60 "$TRACER"
				sleep 1.5	# walks under way: the target is measured beside them
			fi
			ask spin
			rruns[$m]="${rruns[$m]:-} ${REPLY_LINE%% *}"
			progress read "$label $m" "${REPLY_LINE%% *} lookups/s"
			if [ "$m" = read ] && [ "$r" = 1 ]; then
				t0=$(awk '{print $14 + $15}' "/proc/$TRACER/stat")
				sleep 5
				t1=$(awk '{print $14 + $15}' "/proc/$TRACER/stat")
				cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" \
					'BEGIN {printf "%.0f", 1000 * (b - a) / hz / 5}')
				progress read "$label walks" "$cpu ms of CPU each; length $(col "$TMP/read.out" big_length), retained $(col "$TMP/read.out" big_retained_bytes), complete $(col "$TMP/read.out" big_read_complete)"
			fi
			stop_tracer
		done
	done
	stop_loop
	u=$(printf '%s\n' ${rruns[untraced]} | median)
	d=$(printf '%s\n' ${rruns[read]} | median)
	printf '%-36s %12s %12s %8s %12s %14s\n' "$label" "$u" "$d" \
		"$(awk -v a="$d" -v b="$u" 'BEGIN {printf "%.2f", a / b}')" "$cpu" \
		"$(awk -v n="$READ_N" -v c="$cpu" 'BEGIN {if (c > 0) printf "%.0f", n / c * 1000; else print "-"}')"
done
echo "  elements/s: the map's elements walked per second of memwatch's CPU"
echo "  (each element's own buffer measured too, as retained bytes)"
