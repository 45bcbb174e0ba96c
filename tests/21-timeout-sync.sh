#!/bin/sh
# where: guest
# timeout: 120
# Budget timeout.  On a 2 ms, depth-1 null_blk a backlogged 4 KiB random
# reader (libaio, iodepth 16) competes with a 64 KiB sequential reader,
# max_budget=2048.  The random reader can never use its 1536-sector budget
# in time, so with timeout_sync = 20 and 80 ms:
#  - its turns end by "timeout", elapsed_us median within 25 % of the
#    setting (without the timeout a turn would last ~190 budget-sized
#    requests, ~400 ms), and served < budget in every such expiry;
#  - it is charged the whole budget: B-WF2Q+ then gives the two readers
#    about as many turns each (budgets 1536 vs 1536..2048: rand/seq turns
#    1..1.33; 0.8..1.6 allows 20 %; measured 1.00-1.01 at 20 ms and
#    1.26-1.35 at 80 ms).  Charged only
#    what it served (80..320 sectors) it would get 6..20 turns per turn
#    of the sequential reader.
# The block layer must see the same turns: the random reader's runs of
# consecutive issues (block_rq_issue, from its first issue to the next
# sequential one) last, at the median, within 25 % of the setting too.
# The control: under mq-deadline, which has no turns, the same load's
# median run must fail the 20 ms check.  It cannot fail both: its sector
# sweeps give runs of their own length (68.6 ms on 2026-12-07), inside the
# 80 ms window, so at 80 ms only our trace tells that turns end by timeout.
# low_latency=0: this is the 2008 budget rule.  With low_latency the
# random reader, new on the device, is boosted for its first 2 s (it uses
# little of its boost), and gets more turns by design (test 51).
. "$(dirname "$0")/lib.sh"
DEV=nullb0
EV=/tmp/21.ev
OLD_BUF=$(cat $TRACEFS/buffer_size_kb)
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)

cleanup() {
	trace_off
	blk_events 0
	echo "$OLD_BUF" > $TRACEFS/buffer_size_kb
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT


nullb_load 'queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 submit_queues=1' ||
	fail "cannot load null_blk"
load_bfq || fail "insmod $BFQ_KO failed"
set_sched $DEV bfq || fail "cannot select bfq on $DEV"
echo 128 > /sys/block/$DEV/queue/nr_requests || fail "cannot set nr_requests=128"
iosched $DEV max_budget 2048 || fail "cannot set max_budget"
iosched $DEV low_latency 0 || fail "cannot set low_latency=0"
echo 4096 > $TRACEFS/buffer_size_kb
echo global > $TRACEFS/trace_clock

# load NAME: the two readers for 4 s, block events traced; seq reads
# sectors [0, 1M), random reads [2M, 4M)
load() {
	blk_events 1 || fail "cannot enable the block events"
	fio_run --filename=/dev/$DEV --direct=1 --runtime=4 --time_based \
		--name=seq --rw=read --bs=64k --ioengine=psync --offset=0 --size=512m \
		--name=rand --rw=randread --bs=4k --ioengine=libaio --iodepth=16 \
		--offset=1g --size=1g > /tmp/21-$1.t || fail "fio ($1) failed"
	blk_events 0
}
# in_window US T: US within 25 % of T ms
in_window() { [ $(($1 * 4)) -ge $(($2 * 1000 * 3)) ] && [ $(($1 * 4)) -le $(($2 * 1000 * 5)) ]; }
# blk_runs: the block layer's median length (us) and count of the random
# reader's runs
blk_runs() {
	awk -v devt="$(tr : , < /sys/block/$DEV/dev)" '
		{ for (i = 2; i <= NF; i++) if ($i == "block_rq_issue:") break }
		i > NF || $(i + 1) != devt { next }
		{ t = $(i - 1); sub(/:$/, "", t)
		  for (j = i + 2; j < NF; j++) if ($(j + 1) == "+") break
		  r = $j + 0 >= 2097152 }
		r && !inrun { inrun = 1; t0 = t }
		!r && inrun { inrun = 0; a[++n] = (t - t0) * 1000000 }
		END {
			for (i = 2; i <= n; i++) { v = a[i]; j = i - 1
				while (j >= 1 && a[j] > v) { a[j + 1] = a[j]; j-- }
				a[j + 1] = v }
			printf "%d %d\n", n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0, n }' \
		$TRACEFS/trace
}

for T in 20 80; do
	iosched $DEV timeout_sync $T || fail "cannot set timeout_sync=$T"
	trace_on bfq_budget bfq_expire bfq_dispatch || fail "cannot enable the trace events"
	load $T
	trace_off
	tr_events $EV
	set -- $(blk_runs)
	bmed=$1 bruns=$2
	# per pid: dispatches in each region, turns, expiries by reason,
	# elapsed of timeout expiries, timeouts with served >= budget
	set -- $(awk -v T=$T "$AWKVAL"'
		{ p = val("pid") + 0 }
		$2 == "dispatch" { s = val("sector") + 0
			if (s < 1048576) lo[p]++; else if (s >= 2097152) hi[p]++ }
		$2 == "budget" { turns[p]++ }
		$2 == "expire" {
			r = val("reason"); nexp[p]++; if (r == "timeout") ntmo[p]++
			el = val("elapsed_us") + 0; busy[p] += el
			if (r == "timeout") {
				k = ++nel[p]; e[p, k] = el
				if (val("served") + 0 >= val("budget") + 0) full[p]++
				if (k <= 6) ex[p] = ex[p] "," val("served") "/" val("budget") "@" el
			}
		}
		END {
			for (p in lo) if (lo[p] > blo) { blo = lo[p]; sp = p }
			for (p in hi) if (hi[p] > bhi) { bhi = hi[p]; rp = p }
			n = nel[rp] + 0
			for (i = 1; i <= n; i++) a[i] = e[rp, i]
			for (i = 2; i <= n; i++) { v = a[i]; j = i - 1
				while (j >= 1 && a[j] > v) { a[j + 1] = a[j]; j-- }
				a[j + 1] = v }
			med = n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0
			share = busy[rp] + busy[sp] ? 100 * busy[rp] / (busy[rp] + busy[sp]) : 0
			printf "%d %d %d %d %d %d %d %d %d %d %d %s\n", rp, sp,
				turns[rp], turns[sp], nexp[rp], ntmo[rp], full[rp] + 0,
				med, a[1], a[n], share, (ex[rp] == "" ? "-" : substr(ex[rp], 2))
		}' $EV)
	rp=$1 sp=$2 rturns=$3 sturns=$4 rexp=$5 rtmo=$6 full=$7 med=$8 min=$9 max=${10} share=${11} ex=${12}
	log "timeout_sync=$T ms: rand pid $rp: $rturns turns, $rexp expiries, $rtmo by timeout, elapsed_us median $med (min $min, max $max)"
	log "  rand timeouts served/budget@elapsed_us: $ex ..."
	log "  seq pid $sp: $sturns turns; rand/seq turns = $(frac "$rturns" "$sturns"); rand share of in-service time $share %"
	log "  fio: seq $(fio_read_bw /tmp/21-$T.t seq) KiB/s, rand $(fio_read_bw /tmp/21-$T.t rand) KiB/s"
	log "  block layer: $bruns runs of random issues, median $bmed us"
	in_window "$bmed" $T ||
		fail "timeout_sync=$T ms: the block layer's median random run ${bmed} us, want $((T * 750))..$((T * 1250))"
	[ "$rp" -gt 0 ] && [ "$sp" -gt 0 ] && [ "$rp" != "$sp" ] ||
		fail "timeout_sync=$T: cannot tell the two readers apart in the trace (rand $rp, seq $sp)"
	[ "$rexp" -ge 5 ] || fail "timeout_sync=$T: only $rexp expiries of the random reader"
	[ $((rtmo * 100)) -ge $((rexp * 80)) ] ||
		fail "timeout_sync=$T: only $rtmo of $rexp random-reader expiries by timeout"
	[ "$full" -eq 0 ] || fail "timeout_sync=$T: $full timeout expiries with served >= budget"
	in_window "$med" $T ||
		fail "timeout_sync=$T ms: median elapsed of timeout expiries ${med} us, want $((T * 750))..$((T * 1250))"
	[ "$sturns" -ge 3 ] || fail "timeout_sync=$T: the sequential reader got only $sturns turns"
	[ $((rturns * 5)) -ge $((sturns * 4)) ] && [ $((rturns * 5)) -le $((sturns * 8)) ] ||
		fail "timeout_sync=$T: $rturns random vs $sturns sequential turns: timed-out turns not charged the full budget"
done

set_sched $DEV mq-deadline && echo 128 > /sys/block/$DEV/queue/nr_requests ||
	fail "cannot select mq-deadline on $DEV"
echo > $TRACEFS/trace
load control
set -- $(blk_runs)
log "control, mq-deadline: $2 runs of random issues, median $1 us"
! in_window "$1" 20 ||
	fail "control: mq-deadline's median random run $1 us passes the check for 20 ms"

cleanup
trap - EXIT
check_dmesg
log "random reader expires by timeout at timeout_sync and is charged its whole budget"
