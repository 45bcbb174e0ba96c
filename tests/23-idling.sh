#!/bin/sh
# where: guest
# timeout: 100
# Idling.  On a 2 ms, depth-1 null_blk a sync reader with 1 ms think time
# (psync, 64 KiB, thinktime=1000 us) competes with a greedy sync reader;
# max_budget=1024 (turns of 6..8 requests), low_latency=0: the 2008
# idling (with low_latency a new thinker is boosted and takes the device
# from the greedy reader, and its budget shrinks to one request: test 51).
#  - slice_idle=8: the scheduler waits through the think time, so the
#    thinker keeps the device for whole budgets: its expiries are mostly
#    exhausted/timeout, hardly any no_more, several requests per turn (a
#    think time stretched past 8 ms by a busy host gives too_idle: allowed);
#  - slice_idle=0: no idling, its queue empties after every request: its
#    expiries are mostly no_more (what a non-idling scheduler does always).
#  The block layer must agree: the thinker's runs of consecutive issues
#  (block_rq_issue) hold >= 3 requests on average with idling, <= 2
#  without.
#  - a sequential reader alone, 50 ms think time (psync, 4 KiB): it empties
#    with nothing else queued, so no dispatch starts its idle timer; its
#    turn must still end too_idle once it has been idle for slice_idle
#    (seen at its next request), not run on to a timeout that charges it
#    a whole budget for time it did not use the device.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
EV=/tmp/23.ev
OLD_BUF=$(cat $TRACEFS/buffer_size_kb)
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)

cleanup() {
	trace_off
	blk_events 0
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	echo "$OLD_BUF" > $TRACEFS/buffer_size_kb
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT


nullb_load 'queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 submit_queues=1' ||
	fail "cannot load null_blk"
load_bfq || fail "insmod $BFQ_KO failed"
set_sched $DEV bfq || fail "cannot select bfq on $DEV"
iosched $DEV max_budget 1024 || fail "cannot set max_budget"
iosched $DEV low_latency 0 || fail "cannot set low_latency=0"
echo 4096 > $TRACEFS/buffer_size_kb
# issues traced on two CPUs must come out in the order they happened
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"

for SI in 8 0; do
	iosched $DEV slice_idle $SI || fail "cannot set slice_idle=$SI"
	trace_on bfq_expire bfq_dispatch && blk_events 1 || fail "cannot enable the trace events"
	# thinker: sectors [0, 1M); greedy reader: [2M, 3M)
	fio_run --filename=/dev/$DEV --direct=1 --ioengine=psync --bs=64k --runtime=4 --time_based \
		--name=think --rw=read --thinktime=1000 --offset=0 --size=512m \
		--name=greedy --rw=read --offset=1g --size=512m \
		> /tmp/23-$SI.t || fail "fio (slice_idle=$SI) failed"
	trace_off
	blk_events 0
	tr_events $EV
	# block layer: the thinker's issues per run of consecutive issues
	brun=$(awk -v devt="$(tr : , < /sys/block/$DEV/dev)" '
		{ for (i = 2; i <= NF; i++) if ($i == "block_rq_issue:") break }
		i > NF || $(i + 1) != devt { next }
		{ for (j = i + 2; j < NF; j++) if ($(j + 1) == "+") break
		  th = $j + 0 < 1048576 }
		th { n++; if (!prev) runs++ }
		{ prev = th }
		END { printf "%.1f", runs ? n / runs : 0 }' $TRACEFS/trace)
	log "  block layer: the thinker issued $brun requests per run"
	set -- $(awk "$AWKVAL"'
		{ p = val("pid") + 0 }
		$2 == "dispatch" && val("sector") + 0 < 1048576 { lo[p]++ }
		$2 == "expire" { n[p]++; r[p, val("reason")]++ }
		END {
			for (q in lo) if (lo[q] > best) { best = lo[q]; tp = q }
			printf "%d %d %d %d %d %d %d\n", tp + 0, best + 0, n[tp] + 0,
				r[tp, "exhausted"] + 0, r[tp, "timeout"] + 0,
				r[tp, "too_idle"] + 0, r[tp, "no_more"] + 0
		}' $EV)
	tp=$1 disp=$2 nexp=$3 exh=$4 tmo=$5 tidle=$6 nomore=$7
	log "slice_idle=$SI: thinker pid $tp: $disp dispatches, $nexp expiries: exhausted=$exh timeout=$tmo too_idle=$tidle no_more=$nomore"
	log "  fio: thinker $(fio_read_bw /tmp/23-$SI.t think) KiB/s, greedy $(fio_read_bw /tmp/23-$SI.t greedy) KiB/s"
	[ "$tp" -gt 0 ] || fail "slice_idle=$SI: no dispatches of the thinker in the trace"
	if [ "$SI" -gt 0 ]; then
		[ "$nexp" -ge 5 ] || fail "slice_idle=$SI: only $nexp expiries of the thinker"
		[ $((nomore * 100)) -le $((nexp * 10)) ] ||
			fail "slice_idle=$SI: $nomore of $nexp thinker expiries are no_more: no idling"
		[ $(((exh + tmo) * 100)) -ge $((nexp * 40)) ] ||
			fail "slice_idle=$SI: only $((exh + tmo)) of $nexp thinker expiries are exhausted/timeout"
		idle_rpt=$((disp / nexp))
		[ "$idle_rpt" -ge 3 ] ||
			fail "slice_idle=$SI: the thinker got only $idle_rpt requests per turn"
		awk -v r="$brun" 'BEGIN { exit !(r >= 3) }' ||
			fail "slice_idle=$SI: the block layer saw the thinker issue only $brun requests per run"
	else
		[ "$nexp" -ge 20 ] || fail "slice_idle=$SI: only $nexp expiries of the thinker"
		[ $((nomore * 100)) -ge $((nexp * 80)) ] ||
			fail "slice_idle=$SI: only $nomore of $nexp thinker expiries are no_more"
		[ $((disp / nexp)) -le 2 ] ||
			fail "slice_idle=$SI: the thinker got $((disp / nexp)) requests per turn without idling"
		awk -v r="$brun" 'BEGIN { exit !(r <= 2) }' ||
			fail "slice_idle=$SI: the block layer saw the thinker issue $brun requests per run without idling"
		log "  thinker requests per turn: $idle_rpt with idling, $((disp / nexp)) without"
	fi
done

iosched $DEV slice_idle 8 || fail "cannot set slice_idle=8"
trace_on bfq_expire || fail "cannot enable bfq trace events"
fio_run --filename=/dev/$DEV --direct=1 --ioengine=psync --bs=4k --runtime=3 \
	--time_based --name=periodic --rw=read --thinktime=50000 \
	> /tmp/23-p.t || fail "fio (periodic reader) failed"
trace_off
tr_events $EV
set -- $(awk "$AWKVAL"'$2 == "expire" && val("pid") + 0 > 0 { n++; r[val("reason")]++ }
	END { printf "%d %d %d\n", n, r["too_idle"] + 0, r["timeout"] + 0 }' $EV)
log "periodic reader: $1 expiries, too_idle=$2 timeout=$3"
[ "$1" -ge 30 ] || fail "periodic reader: only $1 expiries in 3 s (about 55 requests)"
[ "$3" -eq 0 ] || fail "periodic reader: $3 turns ended by timeout while idle"
[ $(($2 * 100)) -ge $(($1 * 90)) ] || fail "periodic reader: only $2 of $1 expiries are too_idle"

cleanup
trap - EXIT
check_dmesg
log "slice_idle keeps a thinking reader in service; slice_idle=0 does not"
