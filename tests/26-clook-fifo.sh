#!/bin/sh
# where: guest
# timeout: 120
# Order inside one queue.  One process keeps 32 random 4 KiB reads queued
# (libaio) on a null_blk that takes one request at a time, so they pile up
# in the scheduler.  The bfq_dispatch trace of that process must be C-LOOK:
# ascending sectors with a wrap now and then (random order, or FIFO order,
# would descend at about every second request).  With back_seek_max=0 and
# fifo_expire_sync far away, at most 10 % of the steps may go down.
# Then fifo_expire_sync=5 ms: every queued request is older than that when
# its turn comes (32 x 2 ms), so the oldest goes first and the order becomes
# the arrival order, i.e. random: at least 30 % of the steps must go down.
# The same bounds hold for the order the block layer issued the requests
# in (block_rq_issue), so a wrong trace of ours cannot pass.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)
NB='queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 submit_queues=1'

cleanup() {
	trace_off
	blk_events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	sched_away bfq
	nullb_unload
	unload_bfq
}

# run NAME: random reads for 4 s with bfq_dispatch and block_rq_issue
# traced; leaves the dispatched sectors of nullb0 in /tmp/NAME.sec, the
# issued ones in /tmp/NAME.blk, fio's terse line in /tmp/NAME.t
run() {
	trace_on bfq_dispatch && blk_events 1 ||
		{ cleanup; fail "cannot enable bfq_dispatch and the block events"; }
	fio_run --thread --name="$1" --filename=/dev/$DEV --rw=randread --bs=4k \
		--direct=1 --ioengine=libaio --iodepth=32 --size=1g \
		--time_based --runtime=4 > "/tmp/$1.t" ||
		{ cleanup; fail "fio $1 failed"; }
	echo 0 > "$TRACEFS/tracing_on"
	trace_dump | sed -n "s/.*bfq_dispatch: dev=$DEVNO .* sector=\([0-9]*\) .*/\1/p" > "/tmp/$1.sec"
	trace_dump | sed -n "s/.*block_rq_issue: $DEVNO R[A-Z]* [0-9]* () \([0-9]*\) + .*/\1/p" > "/tmp/$1.blk"
	trace_off
	blk_events 0
}

# stats FILE: "N steps D down (P %)" for the sector sequence in FILE;
# the last line is the percentage alone
stats() {
	awk 'NR > 1 { n++; if ($1 < prev) d++ } { prev = $1 }
	     END { printf "%d dispatches, %d of %d steps go down (%.1f %%)\n%.1f\n", NR, d, n, n ? 100 * d / n : 100, n ? 100 * d / n : 100 }' "$1"
}

load_bfq || fail "insmod failed"
nullb_load "$NB" || fail "cannot load null_blk"
set_sched $DEV bfq || { cleanup; fail "cannot select bfq on $DEV"; }
echo 128 > /sys/block/$DEV/queue/nr_requests || { cleanup; fail "cannot set nr_requests"; }
DEVNO=$(tr ':' ',' < /sys/block/$DEV/dev)
# issues traced on two CPUs must come out in the order they happened
echo global > $TRACEFS/trace_clock || { cleanup; fail "cannot set the global trace clock"; }

iosched $DEV back_seek_max 0 && iosched $DEV fifo_expire_sync 10000 ||
	{ cleanup; fail "cannot set back_seek_max / fifo_expire_sync"; }
run clook
s1=$(stats /tmp/clook.sec); p1=$(echo "$s1" | tail -n 1)
n1=$(wc -l < /tmp/clook.sec)
log "C-LOOK (fifo_expire_sync=10000): $(echo "$s1" | head -n 1), clat max $(fio_field /tmp/clook.t clook 15) us"
log "  first sectors: $(head -n 12 /tmp/clook.sec | tr '\n' ' ')"
b1=$(stats /tmp/clook.blk); q1=$(echo "$b1" | tail -n 1)
log "  block layer: $(echo "$b1" | head -n 1)"

iosched $DEV fifo_expire_sync 5 || { cleanup; fail "cannot set fifo_expire_sync=5"; }
run fifo
s2=$(stats /tmp/fifo.sec); p2=$(echo "$s2" | tail -n 1)
n2=$(wc -l < /tmp/fifo.sec)
log "FIFO (fifo_expire_sync=5): $(echo "$s2" | head -n 1), clat max $(fio_field /tmp/fifo.t fifo 15) us"
b2=$(stats /tmp/fifo.blk); q2=$(echo "$b2" | tail -n 1)
log "  block layer: $(echo "$b2" | head -n 1)"

iosched $DEV fifo_expire_sync 125; iosched $DEV back_seek_max 16384
cleanup
check_dmesg
[ "$n1" -ge 300 ] || fail "only $n1 dispatches traced in the C-LOOK run"
[ "$n2" -ge 300 ] || fail "only $n2 dispatches traced in the FIFO run"
[ "$(wc -l < /tmp/clook.blk)" -ge 300 ] && [ "$(wc -l < /tmp/fifo.blk)" -ge 300 ] ||
	fail "too few block_rq_issue events: $(wc -l < /tmp/clook.blk), $(wc -l < /tmp/fifo.blk)"
awk -v p="$q1" 'BEGIN { exit !(p <= 10) }' ||
	fail "block layer: not C-LOOK: $q1 % of the issued steps go down"
awk -v p="$q2" 'BEGIN { exit !(p >= 30) }' ||
	fail "block layer: fifo_expire_sync=5 ignored: $q2 % of the issued steps go down"
awk -v p="$p1" 'BEGIN { exit !(p <= 10) }' ||
	fail "not C-LOOK: $p1 % of the steps go down (want <= 10 %, random ~50 %)"
awk -v p="$p2" 'BEGIN { exit !(p >= 30) }' ||
	fail "fifo_expire_sync=5 ignored: only $p2 % of the steps go down (want >= 30 %)"
log "C-LOOK and FIFO expiry ok"
