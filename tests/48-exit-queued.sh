#!/bin/sh
# where: guest
# timeout: 120
# A process that exits with requests still queued: its queue serves them,
# then ends its turn at once; no idling for a next request that cannot
# come.  On a 2 ms, depth-1 null_blk with 16 KiB requests, a buffered dd
# reads 5 pages from offset 0, ten times from a cold cache: its 5th page
# starts an asynchronous read-ahead of 64 pages (one bio, split into 16
# requests), and dd exits with most of them still queued.  A direct reader keeps the
# device busy.  For every dd whose requests were still issued after it
# exited (sched_process_exit), the block layer's view: the time from the
# completion of its last request to the next issue must stay well under
# slice_idle (8 ms: the wait the old code added), and our view: no turn
# of its queue ends too_idle.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
BG=
RAW=/tmp/39.trace
OLD_BUF=$(cat $TRACEFS/buffer_size_kb)

cleanup() {
	kill "$BG"
	trace_off
	for e in block/block_rq_issue block/block_rq_complete sched/sched_process_exit; do
		echo 0 > $TRACEFS/events/$e/enable
	done
	echo "$OLD_BUF" > $TRACEFS/buffer_size_kb
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

nullb_load "$NULLB_SLOW" || fail "null_blk"
load_bfq || fail "insmod failed"
set_sched $DEV bfq || fail "cannot select bfq"
echo 128 > /sys/block/$DEV/queue/nr_requests
echo 16 > /sys/block/$DEV/queue/max_sectors_kb || fail "max_sectors_kb"
echo 4096 > /sys/block/$DEV/queue/read_ahead_kb || fail "read_ahead_kb"
si=$(cat /sys/block/$DEV/queue/iosched/slice_idle)
[ "$si" = 8 ] || fail "slice_idle is $si, expected the default 8"
devt=$(tr : , < /sys/block/$DEV/dev)
echo 8192 > $TRACEFS/buffer_size_kb

fio --name=bg --filename=/dev/$DEV --rw=read --bs=64k --direct=1 \
	--ioengine=psync --offset=2g --size=1g --time_based --runtime=100 \
	> /tmp/39.bg 2>&1 &
BG=$!
sleep 1
trace_on bfq_expire || fail "cannot enable bfq_expire"
for e in block/block_rq_issue block/block_rq_complete sched/sched_process_exit; do
	echo 1 > $TRACEFS/events/$e/enable || fail "cannot enable $e"
done
: > /tmp/39.dd
for i in 1 2 3 4 5 6 7 8 9 10; do
	# read-ahead widens only from offset 0: read there from a cold cache
	echo 1 > /proc/sys/vm/drop_caches
	dd if=/dev/$DEV of=/dev/null bs=4k count=5 2>/dev/null &
	echo "$!" >> /tmp/39.dd
	wait $!
	sleep 0.3
done
trace_off
for e in block/block_rq_issue block/block_rq_complete sched/sched_process_exit; do
	echo 0 > $TRACEFS/events/$e/enable
done
cat $TRACEFS/trace > $RAW
kill $BG
lost=$(cat $TRACEFS/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
[ "$lost" -eq 0 ] || fail "trace buffer overran ($lost events lost)"

# Per dd: requests issued after its exit, gap (us) from its last
# completion to the next issue, its queue's too_idle expiries.  The dds
# read the same sectors one after another: what comes within 250 ms of
# a dd's exit (sched_process_exit) is its tail.
awk -v devt="$devt" '
	FNR == NR { dd[$1] = 1; next }
	{
		for (i = 2; i <= NF; i++) if ($i ~ /^[a-z_]+:$/) break
		if (i > NF) next
		ts = $(i - 1); sub(/:$/, "", ts); ev = $i
		p = $(i + 2); sub(/^pid=/, "", p)
		if (ev == "sched_process_exit:" && (p in dd)) { cur = p; t0 = ts; next }
		if (ev == "bfq_expire:" && (p in dd) && $(i + 4) == "reason=too_idle") idle[p]++
		if ($(i + 1) != devt) next
		tail = cur != "" && ts - t0 < 0.25
		if (ev == "block_rq_issue:") {
			if (want != "") { gap[want] = ts - lastc; want = "" }
			if (tail && $(i + 5) < 2048) after[cur]++
		} else if (ev == "block_rq_complete:" && tail && $(i + 4) < 2048) {
			lastc = ts; want = cur; delete gap[cur]
		}
	}
	END {
		for (p in dd)
			printf "%s %d %d %d\n", p, after[p], (p in gap) ? gap[p] * 1000000 : -1, idle[p]
	}' /tmp/39.dd $RAW > /tmp/39.res
cat /tmp/39.res
n=$(awk '$2 > 0 && $3 >= 0' /tmp/39.res | wc -l)
[ "$n" -ge 5 ] || fail "only $n of 10 dd left requests queued at exit (need 5 to judge)"
med=$(awk '$2 > 0 && $3 >= 0 { print $3 }' /tmp/39.res | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
idle=$(awk '{ n += $4 } END { print n + 0 }' /tmp/39.res)
log "$n dd exited with requests queued; median gap after their last completion ${med} us; too_idle expiries $idle"
# 2 ms: far below the 8 ms wait, far above the guest's dispatch latency
[ "$med" -lt 2000 ] || fail "median gap ${med} us after an exited process's last request (slice_idle 8 ms)"
[ "$idle" -eq 0 ] || fail "$idle turns of exited processes ended too_idle"
check_dmesg
