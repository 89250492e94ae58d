#!/bin/sh
# demo.sh - run by `make demo`: start the demo program, show memwatch's
# table view of it for 5 seconds, then 5 rows of the CSV feed, then stop
# both.
set -e
build/demo &
demo=$!
trap 'kill $demo 2>/dev/null' EXIT INT TERM
sleep 0.5
echo "memwatch: the table view of the demo program (pid $demo), 5 seconds" >&2
build/memwatch --pid "$demo" --interval 1 --count 5 --format table \
	--struct cache --insert cache_insert --remove cache_remove --delta ret
echo "memwatch: the same as a CSV feed, 5 rows" >&2
build/memwatch --pid "$demo" --interval 1 --count 5 \
	--struct cache --insert cache_insert --remove cache_remove --delta ret
