#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# slow.sh CMD [ARGS...] - runs CMD on a slow machine made of this one: in
# a cgroup whose CPU time is capped at MEMWATCH_SLOW_CPUS of a CPU (0.15
# by default), so that everything it starts, memwatch, the targets and
# the traps they take in the kernel, runs several times slower and in
# bursts (a few ms of CPU, then a wait). `make test-slow` runs the
# integration tests so: a test that waits for a time instead of a state
# fails there. cgroup v2's cpu.max where its cpu controller is on, else
# cgroup v1's cpu controller. Needs root.
set -euo pipefail

cpus=${MEMWATCH_SLOW_CPUS:-0.15}
period=100000
quota=$(awk -v c="$cpus" -v p="$period" 'BEGIN {printf "%d", c * p}')
name=memwatch-slow-$$

if [ "$quota" -lt 1000 ]; then
	echo "memwatch: MEMWATCH_SLOW_CPUS=$cpus is below 0.01 of a CPU" >&2
	exit 2
fi
v2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ {print $2; exit}' /proc/mounts)
if [ -n "$v2" ] && grep -qw cpu "$v2/cgroup.controllers" 2>/dev/null; then
	dir=$v2/$name
	mkdir "$dir"
	echo "$quota $period" > "$dir/cpu.max"
elif [ -n "$v1" ]; then
	dir=$v1/$name
	mkdir "$dir"
	echo "$period" > "$dir/cpu.cfs_period_us"
	echo "$quota" > "$dir/cpu.cfs_quota_us"
else
	echo "memwatch: no cgroup CPU controller to slow the tests down with" >&2
	exit 1
fi
# the command runs in a child moved into the cgroup; this shell stays
# outside it, to remove it once the command and all it started are gone
bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' slow "$dir" "$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' INT TERM
status=0
wait "$child" || status=$?
# what the command left running (a target a failed test did not end)
# goes with the cgroup
for _ in 1 2 3 4 5 6 7 8 9 10; do
	pids=$(cat "$dir/cgroup.procs")
	[ -z "$pids" ] && break
	kill -KILL $pids 2>/dev/null || true
	sleep 0.2
done
rmdir "$dir" || echo "slow.sh: $dir is still in use" >&2
echo "slow.sh: ran at $cpus of a CPU" >&2
exit "$status"
