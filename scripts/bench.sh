#!/bin/bash
# Host side of "make bench": pack the initramfs (with perf), boot one guest
# in bfqmode=bench with slab_nomerge, then turn the raw lines of the results
# channel into bench/results/<stamp>.json, .md and PNG plots, and paste the
# table into docs/benchmarks.md between the bench markers (scripts/bench-report.py).
# Env: BENCH_W=1,2,...  workloads (default all nine)
#      BENCH_QUICK=1    short runs for smoke tests: results go to
#                       build/bench-quick/ and docs/benchmarks.md is left alone
#      BENCH_OUT=dir    where results go (default bench/results)
#      BENCH_README=0/1 update docs/benchmarks.md (default 1 unless quick)
#      TIMEOUT          guest timeout in s (default 7200, quick 2400)
#      GUEST_LOCK       see scripts/guest.sh (default x: nothing else runs)
#      RESULTS=file     only run the report on an existing .results file
#                       (HOST_SECONDS=n: the run's duration for the table)
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOPDIR" || exit 2
B=$TOPDIR/build
QUICK=${BENCH_QUICK:-0}
W=${BENCH_W:-1,2,3,4,5,6,7,8,9}
if [ "$QUICK" = 1 ]; then
	OUT=${BENCH_OUT:-$B/bench-quick}
	README=${BENCH_README:-0}
	TIMEOUT=${TIMEOUT:-2400}
else
	OUT=${BENCH_OUT:-$TOPDIR/bench/results}
	README=${BENCH_README:-1}
	# w8 with its profiles takes about 40 min, w9 (the disk) about 20
	TIMEOUT=${TIMEOUT:-7200}
fi
stamp=$(date -u +%Y-%m-%d-%H%M)
t0=$(date +%s)

if [ -z "${RESULTS:-}" ]; then
	scripts/mkinitramfs.sh || exit 1
	mkdir -p "$B/logs"
	LOG=$B/logs/bench-$stamp.log
	RESULTS=${LOG%.log}.results
	echo "bench: workloads $W, quick=$QUICK, console log $LOG" >&2
	: > "$LOG"
	# what else ran on the host meanwhile: every 20 s the load average and
	# the number of QEMU processes (ours included), for the report
	HOSTLOG=${LOG%.log}.host
	echo "lock ${GUEST_LOCK:-x}" > "$HOSTLOG"
	( while :; do
		echo "sample $(date +%s) $(cut -d' ' -f1 /proc/loadavg) $(pgrep -c -f '^qemu-system-x86_64 ')"
		sleep 20
	done ) >> "$HOSTLOG" &
	sampler=$!
	GUEST_LOG=$LOG QUIET=1 TIMEOUT=$TIMEOUT \
		APPEND="slab_nomerge bfqbench=$W bfqquick=$QUICK" scripts/guest.sh bench &
	gpid=$!
	# progress: the guest's "bench:" console lines, until guest.sh ends
	tail -n +1 --pid=$gpid -F "$LOG" 2> /dev/null | grep --line-buffered -a '^bench:' | sed -u 's/\r$//' >&2
	wait $gpid
	rc=$?
	kill "$sampler" 2> /dev/null
	wait "$sampler" 2> /dev/null
else
	rc=0
	stamp=$(basename "$RESULTS" .results | sed 's/^bench-//')
fi

[ -s "$RESULTS" ] || { echo "bench: no results in $RESULTS" >&2; exit 1; }
mkdir -p "$OUT"
args=(--results "$RESULTS" --out "$OUT" --stamp "$stamp" --guest-rc "$rc"
	--host-seconds "${HOST_SECONDS:-$(( $(date +%s) - t0 ))}")
[ ! -f "${RESULTS%.results}.host" ] || args+=(--host-log "${RESULTS%.results}.host")
[ "$README" = 1 ] && args+=(--readme "$TOPDIR/docs/benchmarks.md")
/usr/bin/python3 scripts/bench-report.py "${args[@]}" || exit 1
echo "bench: took $(( $(date +%s) - t0 )) s in all (guest rc $rc)" >&2
exit "$rc"
