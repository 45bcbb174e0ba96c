#!/bin/sh
# Guest side of "make bench-iops": CPU cost per request, side by side.
# 4 KiB random reads on a zero-latency null_blk (irqmode=0), io_uring,
# QD32, 2 jobs, for none, mq-deadline, kyber, the distro bfq and ours, in
# that order, ROUNDS times; prints one "IOPS sched round value" line per
# run and a median per scheduler.  Only ratios within this one boot mean
# anything: absolute figures under TCG do not.
. /tests/lib.sh

ROUNDS=${ROUNDS:-3}
SECS=${SECS:-5}
DEV=nullb0

rm -f /tmp/bench.out
nullb_load 'queue_mode=2 irqmode=0 submit_queues=2 hw_queue_depth=64' || exit 1
modprobe kyber-iosched || echo "bench: kyber not available"

one_run() {
	fio --minimal --terse-version=3 --name=iops --filename=/dev/$DEV \
		--rw=randread --bs=4k --direct=1 --ioengine=io_uring \
		--iodepth=32 --numjobs=2 --group_reporting --time_based \
		--runtime="$SECS" --ramp_time=1 | awk -F';' '$1 == 3 { print $8 }'
}

# measure NAME: select NAME on the device and run ROUNDS times
measure() {
	set_sched $DEV "$1" || return 1
	r=1
	while [ $r -le "$ROUNDS" ]; do
		echo "IOPS $2 $r $(one_run)" | tee -a /tmp/bench.out
		r=$((r + 1))
	done
}

for round_sched in none mq-deadline kyber; do
	measure "$round_sched" "$round_sched"
done

load_distro_bfq && measure bfq distro-bfq
unload_distro_bfq

load_bfq && measure bfq bfq-iosched
unload_bfq
nullb_unload

echo "bench: median IOPS over $ROUNDS runs of ${SECS}s each"
for s in none mq-deadline kyber distro-bfq bfq-iosched; do
	m=$(awk -v s="$s" '$2 == s { print $4 }' /tmp/bench.out | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	echo "MEDIAN $s ${m:-n/a}"
done
