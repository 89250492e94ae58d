# SPDX-License-Identifier: GPL-2.0
# sidebyside.sh - how `make bench` compares modes in the allocator table
# and with 8 threads, sourced by run.sh: one target a mode, all alive at
# once, each under its own tracer, taking turns. A turn runs APAIRS pairs
# in each target, in an order rotated every turn, so the figures a ratio
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
	local section=$1 bin=$2 threads=$3 pre=$4 m ok=1
	shift 4
	for m in "$@"; do
		sbs_start "$m" "$bin" "$threads" "$pre" || ok=0
	done
	SBS_RUNS=() SBS_RATIOS=()
	[ "$ok" = 1 ] && return 0
	sbs_stop
	progress "$section" "$(basename "$bin") $pre" \
		"a tracer failed to attach: $(head -c 200 "$TMP/err")"
	return 1
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

# sbs_rotate TURN WORD...: the words, rotated left by TURN, so that each
# mode goes at each place in turn
sbs_rotate() {
	local t=$1
	shift
	local n=$# w=("$@") i
	for i in $(seq 0 $((n - 1))); do
		printf '%s ' "${w[$(((i + t) % n))]}"
	done
}

# sbs_turns TURNS MODE...: TURNS turns of the started modes' targets;
# each go's ns per pair appended to SBS_RUNS[MODE], and each turn's ratio
# to the floor to SBS_RATIOS[MODE] (modes other than untraced and floor)
sbs_turns() {
	local turns=$1 t m
	shift
	declare -A got
	for t in $(seq "$turns"); do
		for m in $(sbs_rotate "$t" "$@"); do
			sbs_go "$m"
			got[$m]=${REPLY_LINE%% *}
			SBS_RUNS[$m]="${SBS_RUNS[$m]:-} ${got[$m]}"
		done
		for m in "$@"; do
			case $m in untraced|floor) continue ;; esac
			SBS_RATIOS[$m]="${SBS_RATIOS[$m]:-} $(awk -v a="${got[$m]}" -v b="${got[floor]}" \
				'BEGIN {printf "%.4f", a / b}')"
		done
	done
}

# sbs_ratio MODE: the median of MODE's turns' ratios to the floor
sbs_ratio() {
	printf '%s\n' ${SBS_RATIOS[$1]:-} | median | awk '{if ($1 == "-") print "-"; else printf "%.2f", $1}'
}
