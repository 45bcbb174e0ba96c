#!/bin/sh
# where: guest
# timeout: 150
# A small random reader beside a stream on a rotational device that queues
# commands (an NCQ disk, a virtual disk backed by a file): null_blk with 8
# tags, 2 ms a command, commands completing in parallel, marked
# rotational, nr_requests 128.  A sequential reader (64 KiB, libaio, QD32:
# a backlog in the scheduler) and a 4 KiB random reader (psync, direct)
# run for 6 s after a 2 s ramp, all at the defaults.
#  - bfq must see the queueing (bfq_stats queueing=1);
#  - low_latency=1: the random reader challenges the stream's turn as on
#    a non-rotational device: its p99 (fio) under 20 ms and the block
#    layer's median wait from insert to issue of its reads under 5 ms (a
#    few of the stream's commands, not a turn: timeout_sync is 125 ms),
#    while the stream keeps >= 0.8x its bytes under mq-deadline (same
#    boot);
#  - low_latency=0 (the 2008 turns, the control): the same median wait is
#    over 4x, and the random reader's p99 (fio) over 4x, those of
#    low_latency=1, so the measure sees the turns.
# mq-deadline's random reads wait up to its read_expire (500 ms), as it
# serves in sector order: its p99 is logged, not a bound.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	blk_wait_events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

# mix LABEL: "p99_us seq_KiB/s median_wait_ms" of one run; the random
# reader reads from 8 GiB on (sector 16777216), the stream below
mix() {
	blk_wait_traced /tmp/56-$1.trace /tmp/56-$1.t \
		fio --minimal --terse-version=3 --percentile_list=50:99 \
		--filename=/dev/$DEV --time_based --runtime=6 --ramp_time=2 \
		--direct=1 \
		--name=rnd --rw=randread --bs=4k --ioengine=psync \
		--offset=8g --size=1g \
		--name=seq --rw=read --bs=64k --ioengine=libaio --iodepth=32 \
		--offset=2g --size=4g || return 1
	for _j in rnd seq; do
		[ "$(fio_err /tmp/56-$1.t $_j)" = 0 ] ||
			{ echo "$_j: $(head -c 200 /tmp/56-$1.t)"; return 1; }
	done
	set -- "$(fio_read_p99 /tmp/56-$1.t rnd)" "$(fio_read_bw /tmp/56-$1.t seq)" \
		"$(blk_wait_ms /tmp/56-$1.trace $DEV 16777216)"
	echo "$1 $2 ${3% *}"
}

load_bfq || fail "insmod failed"
nullb_load "queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=8 submit_queues=1" ||
	fail "null_blk"
echo 1 > /sys/block/$DEV/queue/rotational || fail "cannot mark $DEV rotational"
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"

set_sched $DEV mq-deadline || fail "mq-deadline"
echo 128 > /sys/block/$DEV/queue/nr_requests || fail "nr_requests"
r=$(mix dl) || fail "mq-deadline: $r"
set -- $r
dl_p99=$1 dl_seq=$2
log "mq-deadline: rnd p99 $1 us, seq $2 KiB/s, rnd median wait $3 ms"

set_sched $DEV bfq || fail "bfq"
echo 128 > /sys/block/$DEV/queue/nr_requests || fail "nr_requests"
r=$(mix ll1) || fail "bfq: $r"
set -- $r
p99=$1 seq=$2 wait=$3 q=$(bfq_stat $DEV queueing)
log "bfq: rnd p99 $1 us ($(frac "$1" "$dl_p99") x mq-deadline), seq $2 KiB/s ($(frac "$2" "$dl_seq") x), rnd median wait $3 ms, queueing=$q"

iosched $DEV low_latency 0 || fail "cannot set low_latency=0"
r=$(mix ll0) || fail "bfq low_latency=0: $r"
set -- $r
p99_0=$1 wait0=$3
log "bfq low_latency=0: rnd p99 $1 us ($(frac "$1" "$dl_p99") x mq-deadline), seq $2 KiB/s, rnd median wait $3 ms"

cleanup
trap - EXIT
check_dmesg
[ "$q" = 1 ] || fail "bfq did not see the device queue commands (queueing=$q)"
awk -v a="$p99" 'BEGIN { exit !(a > 0 && a < 20000) }' ||
	fail "random reader p99 $p99 us, not under 20 ms"
awk -v w="$wait" 'BEGIN { exit !(w != "none" && w < 5) }' ||
	fail "random reader's median wait in the scheduler $wait ms"
awk -v a="$seq" -v b="$dl_seq" 'BEGIN { exit !(a >= 0.8 * b) }' ||
	fail "sequential reader $seq KiB/s, under 0.8x mq-deadline's $dl_seq"
awk -v a="$wait0" -v b="$wait" 'BEGIN { exit !(a != "none" && a > 4 * b) }' ||
	fail "control: low_latency=0 median wait $wait0 ms, not over 4x low_latency=1's $wait ms"
awk -v a="$p99_0" -v b="$p99" 'BEGIN { exit !(b > 0 && a > 4 * b) }' ||
	fail "control: low_latency=0 p99 $p99_0 us, not over 4x low_latency=1's $p99 us"
log "challenge on a queueing rotational device ok"
