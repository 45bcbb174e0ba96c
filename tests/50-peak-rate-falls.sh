#!/bin/sh
# where: guest
# timeout: 120
# The peak rate, and the auto max_budget drawn from it, follow the device
# down as well as up, and a load that only seeks gives the first estimate.  One scsi_debug disk (one command at a time, 64 KiB
# requests), two sync sequential readers (direct, psync) in three phases:
# 0.5 ms per command, then 4 ms (8 times slower), then 0.5 ms again, one
# elevator instance throughout, every tunable at its default.
# Over the last 3 s of each phase the block layer's view is the reference:
# sectors completed over the time with a command in the device, from the
# block_rq_issue, _requeue and _complete events (/sys/block/D/stat's
# io_ticks counts whole jiffies and is too coarse at 0.5 ms a command):
#  - ours (peak_rate in debugfs bfq_stats, read every 0.5 s and
#    averaged) within 20 % of it in every phase: the estimate is a moving
#    average of 100 ms samples of busy time, and TCG's speed wanders;
#  - the slow phase: most turns end by budget, not by timeout (the budget,
#    3/4 of timeout_sync at the peak rate, fits the slower device).
# Before, a rate was taken only at the end of a turn and only exhausted
# turns could lower it: in the slow phase every turn timed out and the
# estimate kept the fast phase's rate.
. "$(dirname "$0")/lib.sh"
NDELAY=/sys/bus/pseudo/drivers/scsi_debug/ndelay

cleanup() {
	blk_events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	sched_away bfq
	sdebug_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT
load_bfq || fail "insmod failed"
D=$(sdebug_load 'dev_size_mb=256 max_queue=1 ndelay=500000') || fail "scsi_debug: $D"
echo 64 > /sys/block/$D/queue/max_sectors_kb || fail "max_sectors_kb"
set_sched $D bfq || fail "cannot select bfq"
STATS=/sys/kernel/debug/block/$D/sched/bfq_stats
# an issue and its completion may be traced on different CPUs
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"

stat_of() { sed -n "s/^$1=//p" $STATS; }
# phase NDELAY RW BS: run the readers 8 s, print "device_rate ours
# exhausted timeout" for the last 3 s (rates in sectors per ms)
phase() {
	echo "$1" > $NDELAY || return 1
	fio --minimal --terse-version=3 --filename=/dev/$D --direct=1 \
		--ioengine=psync --bs=$3 --rw=$2 --runtime=8 --time_based \
		--name=a --offset=0 --size=100m --name=b --offset=128m --size=100m \
		> /tmp/50.t 2>&1 &
	sleep 5
	e1=$(stat_of exhausted) t1=$(stat_of timeout)
	echo > $TRACEFS/trace
	blk_events 1 || return 1
	ours=0
	for _i in 1 2 3 4 5 6; do
		sleep 0.5
		ours=$((ours + $(stat_of peak_rate_sectors_per_ms)))
	done
	blk_events 0
	e2=$(stat_of exhausted) t2=$(stat_of timeout)
	ours=$((ours / 6))
	wait $! || return 1
	echo "$(blk_busy_rate $D) $ours $((e2 - e1)) $((t2 - t1))"
}
# near X Y PCT: X within PCT % of Y
near() { awk -v x="$1" -v y="$2" -v p="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(y > 0 && d * 100 <= y * p) }'; }

# first, on the fresh elevator, a load that only seeks (16 KiB random
# reads at 1 ms a command): its rate is the first estimate, and replaces
# the start budget (before, it stayed at the start value for good)
r=$(phase 1000000 randread 16k) || fail "seeky phase: fio or ndelay failed: $r"
set -- $r
log "seeky, ndelay=1000000 ns: block layer $1 sectors/ms, ours $2; max_budget $(stat_of max_budget)"
near "$2" "$1" 20 || fail "seeky phase: peak rate $2 sectors/ms, the block layer saw $1"
for nd in 500000 4000000 500000; do
	r=$(phase $nd read 64k) || fail "phase ndelay=$nd: fio or ndelay failed: $r"
	set -- $r
	log "ndelay=$nd ns: block layer $1 sectors/ms, ours $2; last 3 s: exhausted=$3 timeout=$4; max_budget $(stat_of max_budget)"
	eval "dev_$nd=$1 ours_$nd=$2 ex_$nd=$3 to_$nd=$4"
	near "$2" "$1" 20 || fail "ndelay=$nd: peak rate $2 sectors/ms, the block layer saw $1"
	if [ $nd = 4000000 ]; then
		[ "$3" -gt "$4" ] ||
			fail "slow phase: $3 turns ended by budget, $4 by timeout"
		slow=$2
	fi
done
fast=$(stat_of peak_rate_sectors_per_ms)
[ "$slow" -lt $((fast / 3)) ] || fail "slow phase rate $slow not well under the fast one $fast"
sched_away bfq
check_dmesg
log "peak rate followed the device down and up again"
