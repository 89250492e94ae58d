#!/bin/sh
# demo.sh - run by `make demo`: start the demo program, show memwatch's
# table view of it for DEMO_SECONDS (5) while the same memwatch serves the
# live page on 127.0.0.1:DEMO_PORT (9464), then 5 rows of the CSV feed,
# then stop both. Its cache is counted by its functions' calls (changes
# since attach) and read from memory (--read: absolute).
set -e
port=${DEMO_PORT:-9464}
seconds=${DEMO_SECONDS:-5}
build/demo &
demo=$!
trap 'kill $demo 2>/dev/null' EXIT INT TERM
sleep 0.5
echo "memwatch: the table view of the demo program (pid $demo), $seconds seconds" >&2
echo "memwatch: meanwhile the live page is at http://127.0.0.1:$port/ (DEMO_SECONDS=120 make demo gives you longer)" >&2
build/memwatch --pid "$demo" --interval 1 --count "$seconds" --format table \
	--listen "127.0.0.1:$port" \
	--struct cache --insert cache_insert --remove cache_remove --delta ret --read cache
echo "memwatch: the same as a CSV feed, 5 rows" >&2
build/memwatch --pid "$demo" --interval 1 --count 5 \
	--struct cache --insert cache_insert --remove cache_remove --delta ret --read cache
