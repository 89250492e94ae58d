# SPDX-License-Identifier: GPL-2.0
# sidebyside.sh - how `make bench` compares modes in the allocator table
# and with 8 threads, sourced by run.sh: one target a mode, all alive at
# once, each under its own tracer, taking turns. A turn runs APAIRS pairs
# in each target (in sbs_order's order), so the figures a ratio
# compares are taken within a fraction of a second of each other, where
# fresh targets a mode apart were seconds apart and this machine's slow
# spells (0.1 s to minutes, up to a third slower) fell on one side of a
# ratio: paired ratios of whole runs moved by 0.1 between runs of one
# build, the turns' median by 0.01-0.02 (glibc: 4 sessions of 40 turns,
# 1.063-1.073; 4 of 16 and 48, 1.04-1.06).
#
# Each target runs from private copies of its binary and libraries (its
# own directory, LD_LIBRARY_PATH): a uprobe belongs to a file, and
# targets sharing libc would share its probes, each hit then running
# every tracer's consumer, which no user's process pays.

declare -A SBS_PID SBS_IN SBS_OUT SBS_TRACER SBS_RUNS SBS_RATIOS

# sbs_copy DIR BINARY [PRELOAD]: BINARY, PRELOAD and every library either
# maps, copied into DIR
sbs_copy() {
	local dir=$1 bin=$2 pre=${3:-} lib
	mkdir -p "$dir"
	cp "$bin" "$dir/"
	for lib in $(ldd "$bin" ${pre:+"$pre"} | awk '/=>/ {print $3}' | sort -u) $pre; do
		cp "$lib" "$dir/"
	done
}

# sbs_start MODE BINARY THREADS [PRELOAD]: MODE's target (APAIRS pairs a
# go, THREADS threads) from copies in a directory of its own, under
# MODE's tracer (run.sh's tracer); fails if the tracer cannot attach
sbs_start() {
	local mode=$1 bin=$2 dir=$TMP/sbs/$1 pre=${4:-} fin fout
	rm -rf "$dir"
	sbs_copy "$dir" "$bin" "$pre"
	mkfifo "$dir/in" "$dir/out"
	# without the other targets' fifos (a write end left open in another
	# process would keep a target from seeing the end of its input)
	(
		for fd in "${SBS_IN[@]}" "${SBS_OUT[@]}"; do
			exec {fd}>&-
		done
		LD_LIBRARY_PATH=$dir LD_PRELOAD=${pre:+$dir/$(basename "$pre")} \
			exec "$dir/$(basename "$bin")" "$APAIRS" "$3" < "$dir/in" > "$dir/out"
	) &
	SBS_PID[$mode]=$!
	exec {fin}>"$dir/in" {fout}<"$dir/out"
	SBS_IN[$mode]=$fin
	SBS_OUT[$mode]=$fout
	read -r _ <&"$fout"
	tracer "$mode" "${SBS_PID[$mode]}"
	local ok=$?
	SBS_TRACER[$mode]=$TRACER
	return $ok
}

# sbs_session SECTION BINARY THREADS PRELOAD MODE...: every MODE's target
# started (sbs_start) and SBS_RUNS and SBS_RATIOS emptied; fails, all
# stopped and a line printed, if a tracer cannot attach
sbs_session() {
	local section=$1 bin=$2 threads=$3 pre=$4 m
	shift 4
	SBS_RUNS=() SBS_RATIOS=()
	for m in "$@"; do
		sbs_start "$m" "$bin" "$threads" "$pre" && continue
		sbs_stop
		progress "$section" "$(basename "$bin") $pre" \
			"$m: its tracer failed to attach: $(head -c 200 "$TMP/err")"
		return 1
	done
}

# sbs_go MODE: one go of MODE's target; its reply in REPLY_LINE
sbs_go() {
	echo go >&"${SBS_IN[$1]}"
	read -r REPLY_LINE <&"${SBS_OUT[$1]}"
}

# sbs_stop: every tracer stopped (they too hold the fifos open), then
# every target
sbs_stop() {
	local m fin fout
	for m in "${!SBS_TRACER[@]}"; do
		TRACER=${SBS_TRACER[$m]}
		stop_tracer
	done
	for m in "${!SBS_PID[@]}"; do
		fin=${SBS_IN[$m]} fout=${SBS_OUT[$m]}
		[ -n "$fin" ] && exec {fin}>&- {fout}<&-
		wait "${SBS_PID[$m]}" 2>/dev/null
	done
	SBS_PID=() SBS_IN=() SBS_OUT=() SBS_TRACER=()
}

# sbs_prog_ids MODE: the BPF programs MODE's tracer holds (by its fds)
sbs_prog_ids() {
	[ -n "${SBS_TRACER[$1]}" ] || return 0
	grep -h '^prog_id:' /proc/"${SBS_TRACER[$1]}"/fdinfo/* 2>/dev/null |
		awk '{print $2}' | sort -u | tr '\n' ' '
}

# sbs_whole TURNS N: TURNS rounded up to whole cycles of sbs_order's for
# N modes (2 N turns)
sbs_whole() {
	echo $((($1 + 2 * $2 - 1) / (2 * $2) * 2 * $2))
}

# sbs_order TURN WORD...: the words rotated left by TURN, and reversed in
# every other cycle of them: over 2 N turns each mode goes at each place
# twice, and after each other mode as often as before it
sbs_order() {
	local t=$1
	shift
	local n=$# w=("$@") i
	for i in $(seq 0 $((n - 1))); do
		if [ $((t / n % 2)) = 0 ]; then
			printf '%s ' "${w[$(((i + t) % n))]}"
		else
			printf '%s ' "${w[$(((n - 1 - i + t) % n))]}"
		fi
	done
}

# sbs_alive: whether every tracer still runs (one that ended left its
# target untraced for the rest of the session); SBS_OK=0 if not
sbs_alive() {
	local m
	for m in "${!SBS_TRACER[@]}"; do
		[ -z "${SBS_TRACER[$m]}" ] || kill -0 "${SBS_TRACER[$m]}" 2>/dev/null || SBS_OK=0
	done
	[ "$SBS_OK" = 1 ]
}

# sbs_turns TURNS MODE...: TURNS turns (sbs_whole) of the started modes'
# targets, into SBS_DONE; each go's ns per pair appended to
# SBS_RUNS[MODE] ("-": it failed), and each turn's ratio to the floor to
# SBS_RATIOS[MODE] (modes other than untraced and floor; none when
# either go failed). Fails if a go failed or a tracer ended.
sbs_turns() {
	local turns t m
	turns=$(sbs_whole "$1" $(($# - 1)))
	shift
	local -A got
	SBS_OK=1
	for t in $(seq 0 $((turns - 1))); do
		for m in $(sbs_order "$t" "$@"); do
			sbs_go "$m"
			got[$m]=${REPLY_LINE%% *}
			[[ ${got[$m]} =~ ^[0-9]+$ ]] || { got[$m]=-; SBS_OK=0; }
			SBS_RUNS[$m]="${SBS_RUNS[$m]:-} ${got[$m]}"
		done
		for m in "$@"; do
			case $m in untraced|floor) continue ;; esac
			[ "${got[$m]}" != - ] && [ "${got[floor]}" != - ] && [ "${got[floor]}" -gt 0 ] ||
				continue
			SBS_RATIOS[$m]="${SBS_RATIOS[$m]:-} $(awk -v a="${got[$m]}" -v b="${got[floor]}" \
				'BEGIN {printf "%.4f", a / b}')"
		done
	done
	SBS_DONE=$turns
	sbs_alive
}
