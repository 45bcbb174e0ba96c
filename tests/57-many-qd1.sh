#!/bin/sh
# where: guest
# timeout: 200
# Many processes with one request each: 256 threads of 4 KiB O_DIRECT
# random reads (psync, each thread its own I/O context, so its own queue)
# on the zero-latency null_blk (irqmode=0, 256 tags, nr_requests 256).
# The device serves many commands at once, so bfq must not wait for any
# one of these seeky queues.  With low_latency=1 new threads are boosted,
# and bfq used to wait for a boosted queue and, the weights then being
# unequal, for every queue beside it: the device went to one thread at a
# time.  IOPS are counted by the block layer (/proc/diskstats) over the
# guest's clock (the shell's sleep overruns with 256 busy threads), 3 s
# after a 2 s warm-up.  One such window varies a lot under TCG: in one
# boot (2026-12-07) low_latency=0 gave 22.6k and 39.3k IOPS, and a
# single pair failed CI at 0.63x.  So three windows of each setting, in
# turn (ll1 ll0 ll1 ll0 ll1 ll0), are summed.
#  - bfq_stats shows queueing=1 (what the rule depends on);
#  - low_latency=1 (the default) >= 0.75x low_latency=0, both measured
#    here.  Before the fix single pairs gave 0.55-0.65x (16-19k IOPS
#    against 23-33k); with the fix reverted, the summed windows 0.72x.
. "$(dirname "$0")/lib.sh"
DEV=nullb0

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

# run LABEL: one window; appends "LABEL IOS SECONDS" to /tmp/57.win
run() {
	fio --minimal --terse-version=3 --filename=/dev/$DEV --name=r --thread \
		--numjobs=256 --rw=randread --bs=4k --direct=1 --ioengine=psync \
		--size=8g --time_based --runtime=60 > /tmp/57-$1.t 2>&1 &
	_f=$!
	sleep 2
	_n0=$(io_done $DEV) _t0=$(cut -d' ' -f1 /proc/uptime)
	sleep 3
	_n1=$(io_done $DEV) _t1=$(cut -d' ' -f1 /proc/uptime)
	kill -TERM $_f
	wait $_f
	[ "$(fio_err /tmp/57-$1.t)" = 0 ] || return 1
	echo "$1 $((_n1 - _n0)) $_t0 $_t1" |
		awk '{ print $1, $2, $4 - $3 }' >> /tmp/57.win
}
# iops LABEL: IOPS over LABEL's windows together
iops() {
	awk -v l="$1" '$1 == l { n += $2; t += $3 }
		END { printf "%.0f\n", t ? n / t : 0 }' /tmp/57.win
}

load_bfq || fail "insmod failed"
nullb_load 'queue_mode=2 irqmode=0 submit_queues=2 hw_queue_depth=256' || fail "null_blk"
set_sched $DEV bfq || fail "bfq"
echo 256 > /sys/block/$DEV/queue/nr_requests || fail "nr_requests"

rm -f /tmp/57.win
for _i in 1 2 3; do
	iosched $DEV low_latency 1 || fail "cannot set low_latency=1"
	run ll1 || fail "fio: $(head -c 200 /tmp/57-ll1.t)"
	iosched $DEV low_latency 0 || fail "cannot set low_latency=0"
	run ll0 || fail "fio: $(head -c 200 /tmp/57-ll0.t)"
done
q1=$(bfq_stat $DEV queueing)
r1=$(iops ll1) r0=$(iops ll0)
log "windows (IOPS): $(awk '{ printf "%s %.0f ", $1, $2 / $3 }' /tmp/57.win)"
log "low_latency=1: $r1 IOPS, low_latency=0: $r0 IOPS ($(frac "$r1" "$r0")x); boosts $(bfq_stat $DEV boosts), queueing $q1"
cleanup
trap - EXIT
check_dmesg
[ "$q1" = 1 ] || fail "bfq did not see the device queue commands (queueing=$q1)"
awk -v a="$r1" -v b="$r0" 'BEGIN { exit !(b > 0 && a >= 0.75 * b) }' ||
	fail "low_latency=1: $r1 IOPS, under 0.75x low_latency=0's $r0"
log "many QD1 readers ok"
