#!/bin/sh
# where: guest
# timeout: 100
# The budget timeout holds while the queue in service waits for a slow
# command.  null_blk with 300 ms per command and room for two; two sync
# readers (psync, 4 KiB, direct), one request in flight each.  The queue
# in service empties at once and waits for its command; nothing dispatches
# meanwhile (has_work says no while we wait), so only a timer can end its
# turn at timeout_sync (125 ms).  Before, the turn ran to the completion
# (300 ms) and the other reader's request never joined it in the device.
#  - fio: a read waits at most for the turn in progress to time out, then
#    for its own command: latency <= 125 + 300 ms + 40 ms of timer slack
#    (before: about 600, a whole command of the other reader);
#  - the block layer: requests issued while another is in flight (the
#    other reader served during the slow command) >= 5 in 6 s;
#  - ours: >= 5 turns ended by timeout.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
RAW=/tmp/47.trace

cleanup() {
	trace_off
	for e in block_rq_issue block_rq_complete; do
		echo 0 > $TRACEFS/events/block/$e/enable
	done
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

nullb_load 'queue_mode=2 irqmode=2 completion_nsec=300000000 hw_queue_depth=2 submit_queues=1' ||
	fail "null_blk"
load_bfq || fail "insmod failed"
set_sched $DEV bfq || fail "cannot select bfq"
to=$(cat /sys/block/$DEV/queue/iosched/timeout_sync)
[ "$to" = 125 ] || fail "timeout_sync is $to, expected the default 125"
devt=$(tr : , < /sys/block/$DEV/dev)

trace_on bfq_expire bfq_boost || fail "cannot enable bfq_expire"
for e in block_rq_issue block_rq_complete; do
	echo 1 > $TRACEFS/events/block/$e/enable || fail "cannot enable $e"
done
fio_run --filename=/dev/$DEV --direct=1 --ioengine=psync --bs=4k --rw=read \
	--runtime=6 --time_based --name=a --offset=0 --name=b --offset=1g \
	> /tmp/47.t || fail "fio failed"
trace_off
for e in block_rq_issue block_rq_complete; do
	echo 0 > $TRACEFS/events/block/$e/enable
done
cat $TRACEFS/trace > $RAW

# timeout expiries; block layer: issues with another request in flight
set -- $(awk -v devt="$devt" '
	{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z_]+:$/) break }
	i > NF { next }
	$i == "bfq_expire:" && $(i + 4) == "reason=timeout" {
		n++
	}
	$(i + 1) != devt { next }
	$i == "block_rq_issue:" { if (inflight > 0) overlap++; inflight++ }
	$i == "block_rq_complete:" && inflight > 0 { inflight-- }
	END { printf "%d %d\n", n, overlap }' $RAW)
ntmo=$1 overlap=$2
log "timeout expiries $ntmo; issues beside a command in flight: $overlap"
for j in a b; do
	lat=$(($(fio_field /tmp/47.t $j 39) / 1000))
	log "reader $j: $(fio_field /tmp/47.t $j 6) KiB, longest read $lat ms"
	[ "$lat" -le 465 ] && continue
	# what the turns were, to tell a scheduling bug from a slow guest
	grep -E 'bfq_(expire|boost):' $RAW | sed 's/^.*\] [^ ]* *//'
	fail "reader $j waited $lat ms for a read (bound 465)"
done
[ "$ntmo" -ge 5 ] || fail "only $ntmo turns ended by timeout"
[ "$overlap" -ge 5 ] ||
	fail "only $overlap requests issued while another was in flight"
check_dmesg
