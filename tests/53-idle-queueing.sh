#!/bin/sh
# where: guest
# timeout: 150
# Idling on a device that serves many commands at once: null_blk with 32
# tags, 10 ms a command, commands completing in parallel; two sequential
# readers (libaio, 64 KiB, QD4, the same weight), bfq at its defaults.
#  - non-rotational: waiting for one reader's next request would leave the
#    device's other tags unused.  bfq must see the queueing (bfq_stats
#    queueing=1) and not idle: the total (fio's bytes) >= 0.9x
#    mq-deadline's, and the block layer sees >= 6 requests in flight at
#    once (both readers' 4; one reader alone has 4).
#  - a disk that queues commands (hddsim depth=8): it keeps its head where
#    a sequential reader reads, so it is idled for: no_more <= 20 % of the
#    expiries, and the block layer sees runs of >= 10 issues per reader.
#    (Until 2026-12-07 this was the null_blk marked rotational; bfq now
#    measures whether seeks cost before it idles for that: test 59.)
. "$(dirname "$0")/lib.sh"
DEV=nullb0
GB=4		# GiB each reader reads from
RUNTIME=6
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	blk_events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	sched_away bfq
	nullb_unload
	hddsim_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

# pair: "KiB/s KiB/s" of the two readers
pair() {
	for _i in 0 1; do
		fio --minimal --terse-version=3 --name=r$_i --filename=/dev/$DEV \
			--rw=read --bs=64k --direct=1 --ioengine=libaio \
			--iodepth=4 --offset=$((_i * GB))g --size=${GB}g \
			--time_based --runtime=$RUNTIME > /tmp/53-$_i.t 2>&1 &
	done
	wait
	for _i in 0 1; do
		[ "$(fio_err /tmp/53-$_i.t)" = 0 ] || { echo "reader $_i: $(head -c 200 /tmp/53-$_i.t)"; return 1; }
	done
	echo "$(fio_read_bw /tmp/53-0.t) $(fio_read_bw /tmp/53-1.t)"
}
# traced RUN...: run a command with the block events traced; then
# blk_inflight and blk_issue_runs (reader 1 reads from GB GiB on)
traced() {
	echo > $TRACEFS/trace
	blk_events 1 || { echo "cannot enable the block events"; return 1; }
	"$@"
	_rc=$?
	blk_events 0
	return $_rc
}
total() { echo $(($1 + $2)); }

load_bfq || fail "insmod failed"
nullb_load "queue_mode=2 irqmode=2 completion_nsec=10000000 hw_queue_depth=32 submit_queues=1" ||
	fail "null_blk"
[ "$(cat /sys/block/$DEV/queue/rotational)" = 0 ] || fail "null_blk is not marked non-rotational"
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"

set_sched $DEV mq-deadline || fail "mq-deadline"
dl=$(traced pair) || fail "mq-deadline: $dl"
dl_fly=$(blk_inflight $DEV)
tot_dl=$(total $dl)
log "mq-deadline: $dl KiB/s, up to $dl_fly in flight"

set_sched $DEV bfq || fail "bfq"

bw=$(traced pair) || fail "bfq: $bw"
fly=$(blk_inflight $DEV) q=$(bfq_stat $DEV queueing)
tot=$(total $bw)
log "bfq, non-rotational: $bw KiB/s ($(frac "$tot" "$tot_dl") x mq-deadline), queueing=$q, up to $fly in flight, $(blk_issue_runs $DEV 8388608) issues per run"

sched_away bfq
nullb_unload
[ "$q" = 1 ] || fail "bfq did not see the device queue commands (queueing=$q)"
awk -v a="$tot" -v b="$tot_dl" 'BEGIN { exit !(a >= 0.9 * b) }' ||
	fail "non-rotational: $tot KiB/s, under 0.9x mq-deadline's $tot_dl"
[ "$fly" -ge 6 ] || fail "non-rotational: at most $fly requests in flight"
if [ ! -f "$HDDSIM_KO" ]; then
	cleanup
	trap - EXIT
	check_dmesg
	skip "no hddsim.ko in the guest: the non-rotational half passed"
fi
hddsim_load depth=8 || fail "hddsim"
DEV=hddsim0 GB=2
set_sched $DEV bfq || fail "bfq on $DEV"
echo 128 > /sys/block/$DEV/queue/nr_requests || fail "nr_requests"
ex0=$(($(bfq_stat $DEV exhausted) + $(bfq_stat $DEV timeout) + $(bfq_stat $DEV too_idle) + $(bfq_stat $DEV no_more)))
nm0=$(bfq_stat $DEV no_more)
rbw=$(traced pair) || fail "bfq rotational: $rbw"
ex1=$(($(bfq_stat $DEV exhausted) + $(bfq_stat $DEV timeout) + $(bfq_stat $DEV too_idle) + $(bfq_stat $DEV no_more)))
r_nm=$(($(bfq_stat $DEV no_more) - nm0)) r_ex=$((ex1 - ex0)) r_runs=$(blk_issue_runs $DEV 4194304)
log "bfq, hddsim depth=8: $rbw KiB/s, $r_ex expiries, $r_nm no_more, $r_runs issues per run; seeks_cost=$(bfq_stat $DEV seeks_cost) far_us=$(bfq_stat $DEV far_us) near_us=$(bfq_stat $DEV near_us)"

cleanup
trap - EXIT
check_dmesg
[ "$r_ex" -ge 10 ] && [ $((r_nm * 100)) -le $((r_ex * 20)) ] ||
	fail "hddsim: $r_nm no_more of $r_ex expiries: not idled"
awk -v r="$r_runs" 'BEGIN { exit !(r >= 10) }' ||
	fail "hddsim: $r_runs issues per run"
log "idling on a queueing device ok"
