#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels.sh [FILTER]: the integration tests inside a guest of each kernel
# memwatch is tested on (boot.sh), one summary line a kernel: its version,
# how memwatch attaches there (what its feature probes chose), then
# passed and failed as Criterion counts them (FILTER: Criterion's
# --filter, default every test). The kernels: Debian 12's own 6.1
# (linux-image-6.1.0-*-amd64-unsigned, from the archive) and any built
# into build/kernels/VERSION/ (a bzImage there, 9p and virtio built in).
# The guests' consoles are in build/vm/VERSION/console.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
filter=${1:-}
status=0
kernels=()
for v in /boot/vmlinuz-6.1.0-*-amd64; do
	[ -e "$v" ] && kernels+=("$v")
done
for b in build/kernels/*/bzImage; do
	[ -e "$b" ] && kernels+=("$b")
done
if [ ${#kernels[@]} = 0 ]; then
	echo "memwatch: no kernel to boot: install linux-image-6.1.0-50-amd64-unsigned (make test-kernels does)" >&2
	exit 1
fi
for k in "${kernels[@]}"; do
	case $k in
	/boot/vmlinuz-*) ver=${k#/boot/vmlinuz-}; mods=/lib/modules/$ver ;;
	*) ver=$(basename "$(dirname "$k")"); mods=- ;;
	esac
	out=build/vm/$ver
	args="build/integration_tests --jobs 1"
	[ -n "$filter" ] && args+=" --filter '$filter'"
	# what memwatch chose there (kernel.c's line), then the suite
	bash tests/vm/boot.sh "$k" "$mods" "$out" -- sh -c \
		"MEMWATCH_DEBUG=1 build/memwatch -n 1 -o /tmp/mechanism.csv -- /bin/true 2>&1 | grep -m1 '^memwatch: Linux [^ ]*: ' | sed 's/^/MW_MECHANISM /'; MEMWATCH_ALL_TARGETS=1 exec $args"
	rc=$?
	mech=$(sed -n 's/^MW_MECHANISM memwatch: Linux [^ ]*: \(.*\)/\1/p' "$out/console.log" | tr -d '\r' | head -1)
	line=$(sed 's/\x1b\[[0-9;]*m//g' "$out/console.log" | grep -a 'Synthesis:' | tail -1)
	passed=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<< "$line")
	failed=$(sed -n 's/.*Failing: \([0-9]*\).*/\1/p' <<< "$line")
	crashed=$(sed -n 's/.*Crashing: \([0-9]*\).*/\1/p' <<< "$line")
	printf 'kernel %-16s %s: passed %4s  failed %4s  crashed %4s  (exit %d; %s)\n' "$ver" \
		"${mech:-memwatch did not start}" "${passed:--}" "${failed:--}" "${crashed:--}" "$rc" \
		"$out/console.log"
	# a run that passed no test tested nothing: a filter that matched none
	[ "$rc" = 0 ] && [ "${passed:-0}" -gt 0 ] || status=1
done
exit $status
