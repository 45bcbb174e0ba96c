#!/bin/sh
# where: guest
# timeout: 300
# low_latency: who gets a boost, and when it ends.  Slow null_blk (2 ms a
# command, one at a time, nr_requests 128), bfq at its defaults, two
# sequential streams (libaio, 64 KiB, QD8) as the background load.
#  a. soft real-time: a "player" reads 16 KiB every 50 ms (about 1/100 of
#     the device), measured from 3 s on (its interactive boost is over by
#     then).  With low_latency=1 its mean latency stays within
#     2.5x its latency on the idle device, the block layer's median
#     insert-to-issue wait for it is under 5 ms (two commands: the one in
#     the device and the one blk-mq already took from us), and only
#     the player's queue gets soft_rt boosts (bfq_boost events, one pid);
#     low_latency=0 makes it wait for the streams' turns, >= 4x as long.
#  b. a burst: 16 processes that start together beside the streams: only
#     the first 8 get a boost (bfq_stats boosts), and fio saw them all
#     read.  Then 16 that read twice, 11 s apart: at their second read
#     more than 8 are boosted (the others are forgiven after 10 s idle).
#  c. a reader moved to another cgroup gets a new queue there, but it is
#     not a new process: no new boost.
#  d. low_latency=0 ends a boost at once, even that of a queue waiting
#     idle (a process between two reads 4 s apart): its end event comes
#     with the write, not with the queue's next read.
#  e. a real-time queue at the device level takes the device from a
#     stream inside a cgroup at once (bfq_stats preempted).
. "$(dirname "$0")/lib.sh"
DEV=nullb0
IOS=/sys/block/$DEV/queue/iosched
Q=/sys/kernel/debug/block/$DEV/sched/bfq_queues
A=t52a B=t52b
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	cg_kill_rm $A $B
	trace_off
	blk_wait_events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

streams() {
	for _o in 0 1g; do
		fio --name=s --filename=/dev/$DEV --rw=read --bs=64k --direct=1 \
			--ioengine=libaio --iodepth=8 --offset=$_o --size=1g \
			--time_based --runtime=60 > /dev/null 2>&1 &
	done
	sleep 3
}
streams_stop() {
	for _p in $(pidof fio); do kill "$_p"; done
	wait
}
# player: its mean latency in us from 3 s on (its interactive boost is
# over by then), from fio's own latency log (ms, ns, ...); fio's
# ramp_time would not do: fio stops thinking after the ramp
player() {
	rm -f /tmp/52p_lat.*
	fio --minimal --terse-version=3 --name=player --filename=/dev/$DEV \
		--rw=randread --bs=16k --direct=1 --ioengine=psync \
		--offset=2g --size=1g --thinktime=50000 --write_lat_log=/tmp/52p \
		--time_based --runtime=7 --randrepeat=0 > /tmp/52-player.t 2>&1
	[ "$(fio_err /tmp/52-player.t)" = 0 ] || { echo "player: $(head -c 200 /tmp/52-player.t)"; return 1; }
	awk -F', *' '$1 >= 3000 { s += $2; n++ }
		END { if (n < 20) { print "player: " n " reads after 3 s"; exit 1 }
		      printf "%d\n", s / n / 1000 }' /tmp/52p_lat.1.log
}

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW" || fail "null_blk"
set_sched $DEV bfq && echo 128 > /sys/block/$DEV/queue/nr_requests ||
	fail "cannot select bfq"
[ "$(cat $IOS/low_latency)" = 1 ] || fail "low_latency is not 1 by default"
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"

# a. soft real-time
floor=$(player) || fail "idle player: $floor"
streams
trace_on bfq_boost || fail "cannot trace bfq_boost"
blk_wait_events 1 || fail "cannot trace the block layer"
ll=$(player) || fail "player, low_latency=1: $ll"
blk_wait_events 0
trace_off
trace_dump > /tmp/52.trace
set -- $(blk_wait_ms /tmp/52.trace $DEV 4194304)
wait_ms=$1
srt=$(grep -c 'boost=soft_rt start' /tmp/52.trace)
srt_pids=$(sed -n 's/.*bfq_boost:.* pid=\([0-9]*\) .*boost=soft_rt start.*/\1/p' /tmp/52.trace | sort -u | wc -l)
budgets=$(grep -v 'boost=soft_rt' $Q | sed -n 's/.* next_budget=\([0-9]*\).*/\1/p' | tr '\n' ' ')
echo 0 > $IOS/low_latency || fail "cannot write low_latency"
echo > $TRACEFS/trace
blk_wait_events 1 || fail "cannot trace the block layer"
off=$(player) || fail "player, low_latency=0: $off"
blk_wait_events 0
trace_dump > /tmp/52.trace
set -- $(blk_wait_ms /tmp/52.trace $DEV 4194304)
echo 1 > $IOS/low_latency
log "a. player: idle $floor us; low_latency=1 $ll us ($(frac "$ll" "$floor") x idle), median wait $wait_ms ms, $srt soft_rt boosts from $srt_pids pid(s); low_latency=0 $off us ($(frac "$off" "$ll") x), median wait $1 ms; streams' next budgets: $budgets(max_budget $(bfq_stat $DEV max_budget))"

# b. a burst of new processes
b0=$(bfq_stat $DEV boosts)
fio --minimal --terse-version=3 --name=burst --filename=/dev/$DEV \
	--rw=randread --bs=4k --direct=1 --ioengine=psync --numjobs=16 \
	--offset=2g --size=1g --time_based --runtime=2 \
	> /tmp/52-burst.t 2>&1
burst=$(($(bfq_stat $DEV boosts) - b0))
readers=$(awk -F';' '$5 == 0 && $6 > 0' /tmp/52-burst.t | wc -l)
log "b. 16 processes started together: $burst boosts; $readers of them read"
streams_stop
# b2. the same, each reading twice 11 s apart: back after 10 s without
# I/O, the 8 left out of the burst are boosted too
fio --minimal --terse-version=3 --name=back --filename=/dev/$DEV \
	--rw=randread --bs=4k --direct=1 --ioengine=psync --numjobs=16 \
	--offset=2g --size=1g --number_ios=2 --thinktime=11000000 \
	> /tmp/52-back.t 2>&1 &
FB=$!
sleep 5
b0=$(bfq_stat $DEV boosts)
wait $FB || fail "b2. fio failed: $(head -c 200 /tmp/52-back.t)"
back=$(($(bfq_stat $DEV boosts) - b0))
log "b2. the 16 back after 11 s: $back boosts"

# c. a reader moved to another cgroup
cg_make $A && cg_make $B || fail "cannot create the cgroups"
cg_reader $A $DEV 0 --thread --ioengine=libaio --iodepth=8
PID=${CG_PIDS# }
cg_wait_io $DEV rbytes $A || fail "the reader does not run"
sleep 3
b0=$(bfq_stat $DEV boosts)
echo "$PID" > $CGROOT/$B/cgroup.procs || fail "cannot move $PID to $B"
cg_wait_io $DEV rbytes $B || fail "the moved reader does not run"
sleep 1
moved=$(($(bfq_stat $DEV boosts) - b0))
cg_readers_stop
log "c. reader moved from $A to $B: $moved boosts"

# d. low_latency=0 ends an idle queue's boost at once
trace_on bfq_boost || fail "cannot trace bfq_boost"
fio --name=twice --filename=/dev/$DEV --rw=read --bs=4k --direct=1 \
	--ioengine=psync --number_ios=2 --thinktime=4000000 --offset=3g \
	> /dev/null 2>&1 &
sleep 1
boosted=$(grep -c 'boost=interactive' $Q)
echo 0 > $IOS/low_latency || fail "cannot write low_latency"
ends=$(trace_dump | grep -c 'bfq_boost:.* end ')
echo 1 > $IOS/low_latency
wait
trace_off
log "d. an idle boosted queue: $boosted shown boosted; $ends end event(s) at low_latency=0"

# e. real-time at the device level beside a stream in a cgroup
cg_reader $A $DEV 0 --ioengine=libaio --iodepth=8
cg_wait_io $DEV rbytes $A || fail "the stream does not run"
sleep 3
p0=$(bfq_stat $DEV preempted)
ionice -c 1 -n 4 fio --minimal --terse-version=3 --name=rt \
	--filename=/dev/$DEV --rw=randread --bs=4k --direct=1 \
	--ioengine=psync --offset=2g --size=1g --number_ios=20 \
	> /tmp/52-rt.t 2>&1
rt=$(($(bfq_stat $DEV preempted) - p0))
rt_lat=$(fio_field /tmp/52-rt.t "" 40 | cut -d. -f1)
cg_readers_stop
log "e. real-time reader beside a stream in $A: $rt preemption(s), $rt_lat us per read"

cleanup
trap - EXIT
check_dmesg
awk -v a="$ll" -v b="$floor" 'BEGIN { exit !(a <= 2.5 * b) }' ||
	fail "a. the player waits $ll us, over 2.5x its idle $floor us"
awk -v w="$wait_ms" 'BEGIN { exit !(w != "none" && w <= 5) }' ||
	fail "a. the block layer shows a median wait of $wait_ms ms"
[ "$srt" -ge 10 ] && [ "$srt_pids" = 1 ] ||
	fail "a. $srt soft_rt boosts from $srt_pids pids"
awk -v a="$off" -v b="$ll" 'BEGIN { exit !(a >= 4 * b) }' ||
	fail "a. low_latency=0 is only $(frac "$off" "$ll") x low_latency=1"
[ "$readers" = 16 ] || fail "b. only $readers of 16 processes read"
[ "$burst" -ge 1 ] && [ "$burst" -le 8 ] ||
	fail "b. $burst boosts for a burst of 16"
[ "$back" -gt 8 ] && [ "$back" -le 16 ] ||
	fail "b2. $back boosts for 16 processes back after 11 s (the 8 of the burst left out were not forgotten)"
[ "$moved" = 0 ] || fail "c. the moved reader was boosted again ($moved)"
[ "$boosted" = 1 ] && [ "$ends" = 1 ] ||
	fail "d. $boosted boosted, $ends end events at low_latency=0"
[ "$rt" -ge 1 ] || fail "e. the real-time reader never preempted the stream"
log "boost rules ok"
