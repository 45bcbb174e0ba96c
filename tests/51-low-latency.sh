#!/bin/sh
# where: guest
# timeout: 240
# low_latency: a program that starts reading while the device is busy is
# served at once.  On the slow null_blk (2 ms a command, one at a time,
# nr_requests 128) a "start-up" chain of CHAIN dependent 4 KiB random
# reads (psync, one process) runs alone (the floor), then beside two
# sequential streams (libaio, 64 KiB, QD8) started 3 s earlier:
#  - low_latency=1 (the default): its mean latency within 2.5x the floor
#    (each read may wait for the stream's command in the device, 2 ms);
#    the block layer's view agrees: the median time from block_rq_insert
#    to block_rq_issue of the chain's reads is under 3 ms (one command),
#    and its first read (the preemption) waits at most 10 ms (a few
#    commands; past that the test prints the block and bfq events from
#    that read's insert to its issue);
#    bfq_stats counts the boosts started (>= 3: the streams' and the
#    chain's), and bfq_queues shows that after 3 s neither stream is
#    boosted any more (their boosts end by service or by time);
#  - the same with the program at ionice be/7 beside streams at be/0,
#    six times (each a new process, so boosted): each first read waits
#    at most 10 ms.  A queue in service that is owed service can finish
#    (in virtual time) before any newcomer, and before bfq served a
#    boosted newcomer of its group out of order the chain then waited
#    for the rest of that queue's turn;
#  - low_latency=0 (the 2008 design): no boost and no preemption, and the
#    chain waits for whole turns of the streams: >= 4x the low_latency
#    mean;
#  - mq-deadline, the reference: the chain queues behind the streams'
#    requests; ours must stay under half its mean.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
CHAIN=50
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

# chain: the chain's mean latency in us (fio terse field 40)
chain() {
	fio --minimal --terse-version=3 --name=chain --filename=/dev/$DEV \
		--rw=randread --bs=4k --direct=1 --ioengine=psync \
		--offset=2g --size=1g --number_ios=$CHAIN --randrepeat=0 \
		> /tmp/51-chain.t 2>&1
	[ "$(fio_err /tmp/51-chain.t)" = 0 ] || { echo "chain: $(head -c 200 /tmp/51-chain.t)"; return 1; }
	fio_field /tmp/51-chain.t "" 40 | cut -d. -f1
}
# events 1|0: the block layer's insert and issue events and bfq's own, on
# or off, with recording off.  They are switched only while no I/O runs:
# patching a tracepoint's code while the other vCPU runs it hung a TCG
# guest once (2026-12-07, the CPU stuck at the tracepoint in
# dd_insert_requests); recording is switched with tracing_on, which
# patches nothing.
events() {
	echo 0 > $TRACEFS/tracing_on
	for _e in block/block_rq_insert block/block_rq_issue bfq/bfq_expire \
		  bfq/bfq_boost bfq/bfq_dispatch; do
		echo "$1" > $TRACEFS/events/$_e/enable || return 1
	done
}
# streams [WRAPPER...]: the two sequential streams (64 KiB, QD8) in the
# first 2 GiB, started under WRAPPER (e.g. ionice), and 3 s for them to
# settle
streams() {
	for _o in 0 1; do
		"$@" fio --name=s$_o --filename=/dev/$DEV --rw=read --bs=64k \
			--direct=1 --ioengine=libaio --iodepth=8 --offset=${_o}g \
			--size=1g --time_based --runtime=60 > /dev/null 2>&1 &
	done
	sleep 3
}
# loaded: the chain's mean latency beside the two streams; the events of
# the chain's run are left in /tmp/51.trace
loaded() {
	events 1 || { echo "cannot trace"; return 1; }
	streams
	# the streams' queues, still boosted or not, before the chain starts
	_q=/sys/kernel/debug/block/$DEV/sched/bfq_queues
	[ ! -f $_q ] || grep -c 'boost=interactive' $_q > /tmp/51-open
	echo > $TRACEFS/trace
	echo 1 > $TRACEFS/tracing_on
	_m=$(chain)
	_r=$?
	echo 0 > $TRACEFS/tracing_on
	cat $TRACEFS/trace > /tmp/51.trace
	for _p in $(pidof fio); do kill "$_p"; done
	wait
	events 0
	echo "$_m"
	return $_r
}
# prio_chains N: two streams at ionice be/0 (weight 80), then N chains of
# 10 reads at be/7 (weight 10, boosted 100), one after another, each in
# its own region; prints each chain's first insert-to-issue wait in ms
prio_chains() {
	events 1 || { echo "cannot trace"; return 1; }
	streams ionice -c2 -n0
	_w= _n=0
	while [ $_n -lt "$1" ]; do
		_n=$((_n + 1))
		echo > $TRACEFS/trace
		echo 1 > $TRACEFS/tracing_on
		ionice -c2 -n7 fio --minimal --terse-version=3 --name=p \
			--filename=/dev/$DEV --rw=randread --bs=4k --direct=1 \
			--ioengine=psync --offset=$((_n + 1))g --size=1g \
			--number_ios=10 --randrepeat=0 > /tmp/51-p.t 2>&1
		echo 0 > $TRACEFS/tracing_on
		[ "$(fio_err /tmp/51-p.t)" = 0 ] || { _w="$_w fio-failed"; break; }
		cat $TRACEFS/trace > /tmp/51-p.trace
		_w="$_w $(blk_wait_ms /tmp/51-p.trace $DEV 4194304 | cut -d' ' -f2)"
		sleep 0.3	# not a burst: each chain is boosted
	done
	for _p in $(pidof fio); do kill "$_p"; done
	wait
	events 0
	echo "$_w"
}
# first_story: the events from the chain's first insert to its issue
# (what kept it waiting), at most 40 lines
first_story() {
	awk '/block_rq_insert:/ { for (j = 1; j < NF; j++) if ($(j + 1) == "+") break
				 if ($j + 0 >= 4194304) { s = $j; on = 1 } }
	     on { print; if (++n >= 40) exit }
	     on && /block_rq_issue:/ && $0 ~ " " s " " { exit }' /tmp/51.trace |
		cut -c1-220
}

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW" || fail "null_blk"
# sched NAME: select it and let the backlog sit in the scheduler
sched() {
	set_sched $DEV "$1" && echo 128 > /sys/block/$DEV/queue/nr_requests
}
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"

sched mq-deadline || fail "mq-deadline"
idle=$(chain) || fail "idle chain: $idle"
dl=$(loaded) || fail "mq-deadline: $dl"
set -- $(blk_wait_ms /tmp/51.trace $DEV 4194304)
log "floor (idle device): $idle us per read; mq-deadline, loaded: $dl us, median wait $1 ms, first $2 ms"

sched bfq || fail "bfq"
IOS=/sys/block/$DEV/queue/iosched
[ "$(cat $IOS/low_latency)" = 1 ] || fail "low_latency is not 1 by default"
b0=$(bfq_stat $DEV boosts) p0=$(bfq_stat $DEV preempted)
ll=$(loaded) || fail "bfq: $ll"
set -- $(blk_wait_ms /tmp/51.trace $DEV 4194304)
ll_wait=$1 ll_first=$2
first_story > /tmp/51-story
b1=$(bfq_stat $DEV boosts) p1=$(bfq_stat $DEV preempted)
open=$(cat /tmp/51-open)
log "bfq low_latency=1: $ll us ($(frac "$ll" "$idle") x floor, $(frac "$ll" "$dl") x mq-deadline), median wait $ll_wait ms, first $ll_first ms, $((b1 - b0)) boosts, $((p1 - p0)) preemptions; after 3 s the streams had $open boosts left"

p0=$(bfq_stat $DEV preempted)
prio=$(prio_chains 6) || fail "bfq, be/7 chains: $prio"
log "bfq low_latency=1, 6 chains at be/7 beside streams at be/0: first reads waited$prio ms, $(($(bfq_stat $DEV preempted) - p0)) preemptions"

echo 0 > $IOS/low_latency || fail "cannot write low_latency"
boosts=$((b1 - b0))
b0=$(bfq_stat $DEV boosts) p0=$(bfq_stat $DEV preempted)
off=$(loaded) || fail "bfq low_latency=0: $off"
set -- $(blk_wait_ms /tmp/51.trace $DEV 4194304)
b1n=$(bfq_stat $DEV boosts) p1n=$(bfq_stat $DEV preempted)
log "bfq low_latency=0: $off us ($(frac "$off" "$ll") x low_latency=1), median wait $1 ms, first $2 ms, $((b1n - b0)) boosts, $((p1n - p0)) preemptions"

cleanup
trap - EXIT
check_dmesg
awk -v a="$ll" -v b="$idle" 'BEGIN { exit !(a <= 2.5 * b) }' ||
	fail "low_latency=1: $ll us, over 2.5x the floor ($idle us)"
awk -v w="$ll_wait" 'BEGIN { exit !(w != "none" && w <= 3) }' ||
	fail "low_latency=1: the block layer shows a median wait of $ll_wait ms"
if ! awk -v w="$ll_first" 'BEGIN { exit !(w != "none" && w <= 10) }'; then
	log "the chain's first read, from its insert to its issue:"
	cat /tmp/51-story
	fail "low_latency=1: the chain's first read waited $ll_first ms"
fi
for w in $prio; do
	awk -v w="$w" 'BEGIN { exit !(w != "none" && w <= 10) }' ||
		fail "low_latency=1: a be/7 chain's first read waited $w ms beside be/0 streams ($prio)"
done
[ "$boosts" -ge 3 ] || fail "low_latency=1: only $boosts boosts"
[ "$open" = 0 ] || fail "low_latency=1: $open streams still boosted after 3 s"
[ $((b1n - b0)) = 0 ] && [ $((p1n - p0)) = 0 ] ||
	fail "low_latency=0: $((b1n - b0)) boosts and $((p1n - p0)) preemptions"
awk -v a="$off" -v b="$ll" 'BEGIN { exit !(a >= 4 * b) }' ||
	fail "low_latency=0 is only $(frac "$off" "$ll") x low_latency=1: the test cannot tell them apart"
awk -v a="$ll" -v b="$dl" 'BEGIN { exit !(a <= 0.5 * b) }' ||
	fail "low_latency=1: $ll us, over half of mq-deadline's $dl us"
log "low latency ok"
