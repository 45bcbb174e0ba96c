#!/bin/sh
# where: guest
# timeout: 200
# Whether seeks cost, measured: bfq times the requests that are alone in
# the device, far from the one before or following on (bfq_stats far_us,
# near_us, and how many: far_n, near_n, 8 at most), and idles for a
# sequential reader on a rotational device that queues commands unless
# far reads took under 1.5x as long as near ones (over 2x: again).  The mix
# of make bench's workload 4: four sequential readers (64 KiB) and four
# random ones (4 KiB), each one request at a time (psync, O_DIRECT), bfq
# at its defaults.
#  a. a rotational device without a head (null_blk marked rotational, 32
#     tags, 5 ms a command, in parallel: like a virtual disk backed by a
#     file): seeks_cost=0 from measured times (8 of each kind, far under
#     1.5x near) within a first 6 s run, and in a second run (9 s) the
#     block layer's bytes read from 4 s to 8 s >= 0.9x mq-deadline's in
#     the same boot, >= 6 requests in flight at once.  Before, bfq idled
#     for each sequential reader in turn there: 0.23x (fio's bytes over
#     6 s).  The first seconds are left out: the eight new processes
#     start with boosts, and a lone interactive one is waited for (a
#     program starting beside streams: make bench workload 7).
#     (5 ms, not less: under TCG the guest's CPU would cap the total, and
#     bfq's cost per request is not what this test is about.)
#  b. a disk that queues commands (hddsim depth=8): seeks_cost=1 from
#     measured times (8 of each, far_us > 2x near_us), so bfq still idles
#     for its sequential readers there (test 53 checks that idling), and
#     a far request is charged the time it takes beyond a near one
#     (bfq_stats seek_sectors > 0).  The block layer's bytes from 4 s to
#     8 s >= mq-deadline's in the same boot.  Charged 4 KiB, each random
#     read cut a stream's turn (low_latency's challenge) for a seek pair,
#     and once the start-up boosts were over the disk moved ~3 MB/s in
#     3 of 3 runs (mq-deadline 5-6); charged, 60-69 MB/s.
. "$(dirname "$0")/lib.sh"
RUNTIME=9
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	blk_events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	for _d in nullb0 hddsim0; do
		[ -e /sys/block/$_d ] && sched_away bfq
	done
	nullb_unload
	hddsim_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

# mix DEV SPAN_MB: the eight readers for RUNTIME s, each in its own part
# of the first SPAN_MB MiB, traced; prints "WHOLE WINDOW RANDOM": KiB/s
# over the run (fio's bytes), over the block layer's reads from 4 s to
# 1 s before the end (the start-up boosts of new processes are over by
# then: a program starting alone beside streams is waited for, test 51),
# and the random readers' over the run (fio's bytes)
mix() {
	echo > $TRACEFS/trace
	blk_events 1 || { echo "cannot trace"; return 1; }
	_p=$(($2 / 8))
	fio --minimal --terse-version=3 --filename=/dev/$1 --direct=1 \
		--ioengine=psync --time_based --runtime=$RUNTIME --size=${_p}m \
		--name=seq --rw=read --bs=64k --numjobs=4 --offset_increment=${_p}m \
		--name=rnd --rw=randread --bs=4k --numjobs=4 \
		--offset=$((_p * 4))m --offset_increment=${_p}m > /tmp/59.t 2>&1 &
	_f=$!
	sleep 4
	_s0=$(awk '{ print $3 }' /sys/block/$1/stat) _t0=$(cut -d' ' -f1 /proc/uptime)
	sleep $((RUNTIME - 5))
	_s1=$(awk '{ print $3 }' /sys/block/$1/stat) _t1=$(cut -d' ' -f1 /proc/uptime)
	wait $_f
	blk_events 0
	_win=$(awk -v a="$_s0" -v b="$_s1" -v t0="$_t0" -v t1="$_t1" \
		'BEGIN { printf "%d", (b - a) / 2 / (t1 - t0) }')
	awk -F';' -v w="$_win" '$1 == 3 { if ($5 != 0) bad = 1; t += $7; n++ }
		$1 == 3 && $3 == "rnd" { r += $7 }
		END { if (bad || n != 8) { print "fio: " n " jobs, errors " bad; exit 1 }
		      print t, w, r }' /tmp/59.t
}
seekinfo() {
	echo "seeks_cost=$(bfq_stat $1 seeks_cost) far_us=$(bfq_stat $1 far_us) far_n=$(bfq_stat $1 far_n) near_us=$(bfq_stat $1 near_us) near_n=$(bfq_stat $1 near_n) near_sectors=$(bfq_stat $1 near_sectors) seek_sectors=$(bfq_stat $1 seek_sectors) queueing=$(bfq_stat $1 queueing)"
}

[ -f "$HDDSIM_KO" ] || skip "no hddsim.ko in the guest"
load_bfq || fail "insmod failed"
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"

# a. no head
nullb_load "queue_mode=2 irqmode=2 completion_nsec=5000000 hw_queue_depth=32 submit_queues=1" ||
	fail "null_blk"
echo 1 > /sys/block/nullb0/queue/rotational || fail "cannot mark nullb0 rotational"
set_sched nullb0 mq-deadline || fail "mq-deadline"
dl=$(mix nullb0 8192) || fail "mq-deadline: $dl"
set -- $dl
dl=$2 dl_all=$1
set_sched nullb0 bfq || fail "bfq"
# the first seconds on a fresh bfq: it idles for the sequential readers
# until it has timed enough requests of each kind (BFQ_SOLO_SAMPLES)
rm -f /tmp/59.learnt
learn_start=$(cut -d' ' -f1 /proc/uptime)
( while [ "$(bfq_stat nullb0 seeks_cost)" != 0 ]; do sleep 0.1; done
  cut -d' ' -f1 /proc/uptime > /tmp/59.learnt ) &
LEARN=$!
RUNTIME=6
mix nullb0 8192 > /dev/null
RUNTIME=9
kill $LEARN 2> /dev/null
learnt=$(awk -v a="$learn_start" '{ printf "%.1f", $1 - a }' /tmp/59.learnt 2> /dev/null)
bw=$(mix nullb0 8192) || fail "bfq: $bw"
set -- $bw
bw=$2 bw_all=$1
a_fly=$(blk_inflight nullb0) a_runs=$(blk_issue_runs nullb0 2097152 4)
a_cost=$(bfq_stat nullb0 seeks_cost) a_far=$(bfq_stat nullb0 far_us) a_near=$(bfq_stat nullb0 near_us)
a_n="$(bfq_stat nullb0 far_n) $(bfq_stat nullb0 near_n)"
log "a. null_blk marked rotational: seeks measured free after ${learnt:-over 6} s; then from 4 s to 8 s of a 9 s run bfq $bw KiB/s, mq-deadline $dl ($(frac "$bw" "$dl")x; whole runs by fio $bw_all and $dl_all KiB/s), up to $a_fly in flight, $a_runs issues per sequential run; $(seekinfo nullb0)"
sched_away bfq
nullb_unload
[ -n "$learnt" ] && [ "$a_cost" = 0 ] && [ "$a_n" = "8 8" ] &&
	[ $((2 * a_far)) -lt $((3 * a_near)) ] ||
	fail "a. seeks_cost=$a_cost (far $a_far us, near $a_near us, samples $a_n): not measured as free"
awk -v a="$bw" -v b="$dl" 'BEGIN { exit !(a >= 0.9 * b) }' ||
	fail "a. $bw KiB/s, under 0.9x mq-deadline's $dl"
[ "$a_fly" -ge 6 ] || fail "a. at most $a_fly requests in flight"

# b. a disk
hddsim_load depth=8 || fail "hddsim"
set_sched hddsim0 mq-deadline || fail "mq-deadline on hddsim0"
echo 128 > /sys/block/hddsim0/queue/nr_requests || fail "nr_requests"
hd=$(mix hddsim0 2048) || fail "mq-deadline on hddsim: $hd"
set_sched hddsim0 bfq || fail "bfq on hddsim0"
echo 128 > /sys/block/hddsim0/queue/nr_requests || fail "nr_requests"
hb=$(mix hddsim0 2048) || fail "bfq on hddsim: $hb"
b_runs=$(blk_issue_runs hddsim0 524288 4)
b_cost=$(bfq_stat hddsim0 seeks_cost) b_far=$(bfq_stat hddsim0 far_us) b_near=$(bfq_stat hddsim0 near_us)
b_n="$(bfq_stat hddsim0 far_n) $(bfq_stat hddsim0 near_n)" b_seek=$(bfq_stat hddsim0 seek_sectors)
set -- $hd
hd=$2 hd_rnd=$3
set -- $hb
hb=$2 hb_rnd=$3
log "b. hddsim depth=8, from 4 s to 8 s: bfq $hb KiB/s, mq-deadline $hd ($(frac "$hb" "$hd")x); random readers over the whole run (fio) $hb_rnd and $hd_rnd KiB/s, $b_runs issues per sequential run; $(seekinfo hddsim0) max_budget=$(bfq_stat hddsim0 max_budget)"

cleanup
trap - EXIT
check_dmesg
[ "$b_cost" = 1 ] && [ "$b_n" = "8 8" ] && [ "$b_far" -gt $((2 * b_near)) ] ||
	fail "b. seeks_cost=$b_cost (far $b_far us, near $b_near us, samples $b_n): not measured as costly"
[ "$b_seek" -gt 0 ] || fail "b. far requests not charged (seek_sectors=$b_seek)"
[ "$hb" -ge "$hd" ] ||
	fail "b. bfq $hb KiB/s from 4 s to 8 s, under mq-deadline's $hd"
log "seek cost measured: idled for on the disk only"
