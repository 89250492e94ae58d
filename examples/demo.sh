#!/bin/sh
# demo.sh - run by `make demo`: start the demo program, attach memwatch to
# it for 10 one-second rows, then stop both.
set -e
build/demo &
demo=$!
trap 'kill $demo 2>/dev/null' EXIT INT TERM
sleep 0.5
echo "memwatch: observing the demo program (pid $demo) for 10 seconds" >&2
build/memwatch --pid "$demo" --interval 1 --count 10 \
	--struct cache --insert cache_insert --remove cache_remove --delta ret
