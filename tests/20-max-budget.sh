#!/bin/sh
# where: guest
# timeout: 120
# Budget feedback and max_budget.
#  A: max_budget=2048: a greedy sequential reader starts at 3/4 of it (1536),
#     each exhausted budget gives next_budget = budget + 1024 capped at 2048,
#     every turn starts with the budget the previous expiry set, and no
#     budget ever goes past 2048 (a fixed-slice or FIFO scheduler, or one
#     that ignores max_budget, fails one of these).
#  B: max_budget=0 (auto): 16384 until a rate is known; after a reader ran
#     the value is peak_rate x 3/4 timeout_sync, peak_rate is within 20 %
#     of the block layer's rate over the last second (sectors completed
#     per ms of time with a command in the device, from block_rq_issue and
#     _complete: the same quantity, measured by the block layer; the
#     estimate averages 100 ms samples), and it is recomputed at once, in
#     proportion, when timeout_sync changes.
# null_blk with 1 ms timer completions at depth 1 gives a known, slow rate.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
STATS=/sys/kernel/debug/block/$DEV/sched/bfq_stats
EV=/tmp/20.ev
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

bstat() { sed -n "s/^$1=//p" "$STATS"; }

nullb_load 'queue_mode=2 irqmode=2 completion_nsec=1000000 hw_queue_depth=1 submit_queues=1' ||
	fail "cannot load null_blk"
load_bfq || fail "insmod $BFQ_KO failed"
set_sched $DEV bfq || fail "cannot select bfq on $DEV"
echo 4096 > $TRACEFS/buffer_size_kb

# ---- A: fixed max_budget=2048
MAX=2048
iosched $DEV max_budget $MAX || fail "cannot set max_budget=$MAX"
[ "$(bstat max_budget)" = $MAX ] || fail "bfq_stats max_budget=$(bstat max_budget), want $MAX"
[ "$(bstat auto_max_budget)" = no ] || fail "bfq_stats auto_max_budget=$(bstat auto_max_budget) with max_budget=$MAX"
trace_on bfq_budget bfq_expire || fail "cannot enable bfq trace events"
fio_run --name=seq --filename=/dev/$DEV --rw=read --bs=64k --ioengine=psync \
	--direct=1 --size=1g --runtime=3 --time_based > /tmp/20a.t || fail "fio (A) failed"
trace_off
tr_events $EV
log "A: reader $(fio_read_bw /tmp/20a.t seq) KiB/s"

# the reader: the sync pid with the most turns
PID=$(awk "$AWKVAL"' $2 == "budget" && val("pid") != 0 { n[val("pid")]++ }
	END { for (p in n) if (n[p] > best) { best = n[p]; pid = p }; print pid + 0 }' $EV)
[ "$PID" -gt 0 ] || fail "A: no sync queue got a turn (no bfq_budget events)"
# turns first over; mismatch = a turn whose budget is not the previous
# expiry's next_budget; badgrow = exhausted expiry without +1024 (capped)
set -- $(awk -v pid="$PID" -v max=$MAX "$AWKVAL"'
	val("pid") != pid { next }
	$2 == "budget" {
		b = val("budget") + 0; turns++
		if (turns == 1) first = b
		else if (have && b != want) mismatch++
		if (b > max) over++
		if (turns <= 12) seq = seq "," b
		have = 0
	}
	$2 == "expire" {
		r = val("reason"); n[r]++
		b = val("budget") + 0; nb = val("next_budget") + 0
		if (r == "exhausted") {
			g = b + 1024; if (g > max) g = max
			if (nb != g) badgrow++
			if (b < max && nb > b) grew++
		}
		if (nb > max) over++
		want = nb; have = 1
	}
	END { printf "%d %d %d %d %d %d %d %d %d %s\n", turns, first, over + 0,
		mismatch + 0, n["exhausted"] + 0, badgrow + 0, grew + 0,
		n["too_idle"] + 0, n["timeout"] + 0, substr(seq, 2) }' $EV)
turns=$1 first=$2 over=$3 mismatch=$4 exh=$5 badgrow=$6 grew=$7 tidle=$8 tmo=$9
log "A: pid $PID: $turns turns, budgets ${10}...; expiries exhausted=$exh too_idle=$tidle timeout=$tmo"
[ "$turns" -ge 10 ] || fail "A: only $turns turns for the reader"
[ "$first" -eq $((MAX * 3 / 4)) ] || fail "A: first budget $first, want 3/4 of $MAX = $((MAX * 3 / 4))"
[ "$over" -eq 0 ] || fail "A: $over budgets above max_budget=$MAX"
[ "$exh" -ge 5 ] || fail "A: only $exh exhausted expiries for a greedy reader"
[ "$badgrow" -eq 0 ] || fail "A: $badgrow exhausted expiries without next_budget = min(budget + 1024, $MAX)"
[ "$grew" -ge 1 ] || fail "A: the budget never grew after an exhausted turn"
[ "$mismatch" -eq 0 ] || fail "A: $mismatch turns did not start with the previous expiry's next_budget"

# ---- B: auto max_budget, on a fresh scheduler instance (no rate known)
set_sched $DEV none && set_sched $DEV bfq || fail "cannot re-select bfq on $DEV"
[ "$(iosched $DEV max_budget)" = 0 ] || fail "B: max_budget default is $(iosched $DEV max_budget), want 0"
[ "$(iosched $DEV timeout_sync)" = 125 ] || fail "B: timeout_sync default is $(iosched $DEV timeout_sync)"
[ "$(bstat auto_max_budget)" = yes ] || fail "B: auto_max_budget=$(bstat auto_max_budget) with max_budget=0"
mb0=$(bstat max_budget)
[ "$mb0" = 16384 ] || fail "B: max_budget=$mb0 before any rate is known, want 16384"
echo global > $TRACEFS/trace_clock || fail "cannot set the global trace clock"
fio_run --name=seq16 --filename=/dev/$DEV --rw=read --bs=16k --ioengine=psync \
	--direct=1 --size=1g --runtime=3 --time_based > /tmp/20b.t &
sleep 2
echo > $TRACEFS/trace
blk_events 1 || fail "cannot enable the block events"
peak=0
for i in 1 2 3 4; do
	sleep 0.25
	peak=$((peak + $(bstat peak_rate_sectors_per_ms)))
done
peak=$((peak / 4))
blk_events 0
wait $! || fail "fio (B) failed"
dev=$(blk_busy_rate $DEV)
bw=$(fio_read_bw /tmp/20b.t seq16)
mb1=$(bstat max_budget) pe=$(bstat peak_rate_sectors_per_ms)
log "B: reader $bw KiB/s; block layer $dev sectors/ms busy; peak_rate $peak (read 4 times in the last second); auto max_budget $mb0 -> $mb1"
[ "$mb1" != 16384 ] || fail "B: auto max_budget still 16384 after a 3 s reader"
awk -v p="$peak" -v d="$dev" 'BEGIN { e = p - d; if (e < 0) e = -e; exit !(d > 0 && e <= d / 5) }' ||
	fail "B: peak_rate $peak not within 20 % of the block layer's $dev sectors/ms"
awk -v m="$mb1" -v p="$pe" 'BEGIN { exit !(m >= p * 93.75 * 0.97 - 1 && m <= (p + 1) * 93.75 * 1.03 + 1) }' ||
	fail "B: auto max_budget $mb1 is not peak_rate $pe x 3/4 x 125 ms"

iosched $DEV timeout_sync 250 || fail "cannot set timeout_sync=250"
mb2=$(bstat max_budget)
iosched $DEV timeout_sync 60 || fail "cannot set timeout_sync=60"
mb3=$(bstat max_budget)
iosched $DEV timeout_sync 125
mb4=$(bstat max_budget)
log "B: timeout_sync 125 -> 250 -> 60 -> 125 ms: max_budget $mb1 -> $mb2 -> $mb3 -> $mb4"
awk -v a="$mb1" -v b="$mb2" 'BEGIN { r = b / a; exit !(r >= 1.8 && r <= 2.2) }' ||
	fail "B: timeout_sync 125 -> 250 ms moved auto max_budget $mb1 -> $mb2, want about x2"
awk -v a="$mb1" -v b="$mb3" 'BEGIN { r = b / a; exit !(r >= 0.42 && r <= 0.54) }' ||
	fail "B: timeout_sync 125 -> 60 ms moved auto max_budget $mb1 -> $mb3, want about x0.48"
awk -v a="$mb1" -v b="$mb4" 'BEGIN { r = b / a; exit !(r >= 0.98 && r <= 1.02) }' ||
	fail "B: timeout_sync back to 125 ms gave max_budget $mb4, was $mb1"

cleanup
trap - EXIT
check_dmesg
log "budgets grow by exhaustion up to max_budget; auto max_budget follows rate and timeout_sync"
