#!/bin/sh
# where: guest
# timeout: 120
# Async queues.  A buffered writer beside an O_DIRECT sequential reader on a
# 2 ms, depth-1 null_blk.  The writer starts writeback of what it wrote every
# 512 KiB (sync_file_range SYNC_FILE_RANGE_WRITE: WB_SYNC_NONE, async
# requests) and small dirty limits keep that backlog bounded (~4 MiB, well
# under nr_requests=128 of 128 KiB).  Writeback throttling (blk-wbt) must
# be off on the device: it would otherwise cut background writes to one in
# flight once read latency rises, so the async queue would never have N
# requests.  bfq turns the default wbt off when selected; the test checks
# and turns off one a user may have set.
# With timeout_async raised to 200 ms the request count, not the clock,
# ends the turns.  With max_budget_async_rq = 2 and then 8:
#  - the writeback goes to the shared async queue (pid=0), whose turns end
#    by "async_rq" after exactly N dispatches (rqs= of its bfq_expire, and
#    these add up to its bfq_dispatch events), never more than N;
#  - the reader keeps getting requests dispatched during the writeback:
#    at least MIN_RD in every second of it (see below).
# The block layer must agree: the reads and writes it issued on the device
# (block_rq_issue) match our reader and async dispatch counts within 5 %.
# Control: the same run with N = 8 and the reader in the idle class, which
# must stay under that bound (class isolation leaves it one request per
# 200 ms grace, 5 a second, while the writeback is queued); if it did not,
# the bound would not tell a starving reader from a served one.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
EV=/tmp/22.ev
VM=/proc/sys/vm
OLD_BUF=$(cat $TRACEFS/buffer_size_kb)
OLD_CLOCK=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $TRACEFS/trace_clock)
OLD_DR=$(cat $VM/dirty_ratio) OLD_DBR=$(cat $VM/dirty_background_ratio)

cleanup() {
	trace_off
	blk_events 0
	echo "$OLD_BUF" > $TRACEFS/buffer_size_kb
	echo "$OLD_CLOCK" > $TRACEFS/trace_clock
	sync
	echo "$OLD_DR" > $VM/dirty_ratio
	echo "$OLD_DBR" > $VM/dirty_background_ratio
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT


# 128 KiB requests at most, so N requests always fit in the async budget
nullb_load 'queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 submit_queues=1 max_sectors=256' ||
	fail "cannot load null_blk"
load_bfq || fail "insmod $BFQ_KO failed"
set_sched $DEV bfq || fail "cannot select bfq on $DEV"
echo 128 > /sys/block/$DEV/queue/nr_requests || fail "cannot set nr_requests=128"
# A queue without wbt attached (the check-debug kernel's) fails the read
# with EINVAL, or reads 0 and refuses the write: nothing to switch off.
if wbt=$(cat /sys/block/$DEV/queue/wbt_lat_usec 2>/dev/null); then
	log "wbt_lat_usec was $wbt, setting 0"
	echo 0 > /sys/block/$DEV/queue/wbt_lat_usec 2>/dev/null ||
		[ "$wbt" = 0 ] || fail "cannot switch off wbt"
else
	log "no wbt on $DEV: nothing to switch off"
fi
iosched $DEV max_budget 16384 || fail "cannot set max_budget"
iosched $DEV timeout_async 200 || fail "cannot set timeout_async"
echo 4096 > $TRACEFS/buffer_size_kb
echo global > $TRACEFS/trace_clock
# writeback starts at 1 MiB dirty, the writer is throttled at 8 MiB
echo $((8 << 20)) > $VM/dirty_bytes
echo $((1 << 20)) > $VM/dirty_background_bytes

# MIN_RD: the reader's dispatches in every second of writeback.  The 2 ms
# device serves 500 requests a second at depth 1.  The async queue has the
# reader's weight, so the reader gets a turn between two async turns of N
# requests (2N ms); even if its turn ends after one request and an idle wait
# of slice_idle (8 ms; TCG think times can outlast it), that is one read per
# 2 + 8 + 2N ms: 71 a second for N = 2, 38 for N = 8.  25 leaves room for a
# slow guest's worst second.  Measured on 2 cores under light load (load
# average 0.9-2.5), 6 runs: the reader's worst second had 127 to 275
# dispatches (N = 2 and 8 alike); the idle-class control's had 4 (8 runs).
MIN_RD=25
for run in 2:be 8:be 8:idle; do
	N=${run%:*} cls=${run#*:}
	# be: no ioprio set, like the writer (weight 40 each); idle: class 3
	[ "$cls" = be ] && prio= || prio=--prioclass=3
	iosched $DEV max_budget_async_rq $N || fail "cannot set max_budget_async_rq=$N"
	trace_on bfq_budget bfq_expire bfq_dispatch && blk_events 1 ||
		fail "cannot enable bfq trace events"
	# reader: sectors [0, 1M); writer: [4M, 6M)
	fio_run --filename=/dev/$DEV --runtime=5 --time_based --invalidate=0 \
		--name=rd --rw=read --bs=64k --ioengine=psync --direct=1 --offset=0 --size=512m $prio \
		--name=wr --rw=write --bs=64k --ioengine=psync --offset=2g --size=1g \
		--sync_file_range=write:8 \
		> /tmp/22-$N.t || fail "fio (max_budget_async_rq=$N, $cls reader) failed"
	trace_off
	blk_events 0
	tr_events $EV
	# the block layer's issues on the device: reads below sector 1M, writes
	set -- $(awk -v devt="$(tr : , < /sys/block/$DEV/dev)" '
		{ for (i = 2; i <= NF; i++) if ($i == "block_rq_issue:") break }
		i > NF || $(i + 1) != devt { next }
		{ for (j = i + 2; j < NF; j++) if ($(j + 1) == "+") break }
		$(i + 2) ~ /^R/ && $j + 0 < 1048576 { r++ }
		$(i + 2) ~ /^W/ { w++ }
		END { print r + 0, w + 0 }' $TRACEFS/trace)
	blk_rd=$1 blk_wr=$2
	sync
	# async turns: pid=0 expiries, each with the dispatches of its turn
	# (rqs=, counted by the turn itself: events of two CPUs with the same
	# clamped time stamp may be listed in either order, so counting
	# dispatch events between a budget and an expire could mix turns);
	# reader: the pid with most dispatches below sector 1M, its dispatches
	# per second of the writeback (from the first to the last async dispatch)
	set -- $(awk -v N=$N "$AWKVAL"'
		{ p = val("pid") + 0; t = $1 + 0 }
		$2 == "dispatch" && p == 0 {
			if (!nw++) t0 = t
			t1 = t
		}
		$2 == "dispatch" && p != 0 && val("sector") + 0 < 1048576 { rd[p]++; rt[p, rd[p]] = t }
		$2 == "expire" && p == 0 {
			k = val("rqs") + 0
			r = val("reason"); turns++; sum += k; if (k > maxk) maxk = k
			if (r == "async_rq") { nrq++; if (k != N) bad++ }
			else other = other "," r ":" k
			if (turns <= 10) ks = ks "," k
		}
		END {
			for (p in rd) if (rd[p] > best) { best = rd[p]; rp = p }
			nb = int(t1 - t0); if (nb < 1) nb = 1
			for (i = 1; i <= rd[rp]; i++) { b = int(rt[rp, i] - t0)
				if (b >= 0 && b < nb) cnt[b]++ }
			minb = -1
			for (b = 0; b < nb; b++) if (minb < 0 || cnt[b] + 0 < minb) minb = cnt[b] + 0
			printf "%d %d %d %d %d %.1f %d %d %d %s %s %d\n", turns + 0, nrq + 0,
				bad + 0, maxk + 0, nw + 0, turns ? sum / turns : 0, rp + 0,
				best + 0, minb, (ks == "" ? "-" : substr(ks, 2)),
				(other == "" ? "-" : substr(other, 2)), sum + 0
		}' $EV)
	turns=$1 nrq=$2 bad=$3 maxk=$4 nw=$5 mean=$6 rp=$7 rdn=$8 minb=$9 ks=${10} other=${11} sum=${12}
	rbw=$(fio_read_bw /tmp/22-$N.t rd) wbw=$(fio_write_bw /tmp/22-$N.t wr)
	log "max_budget_async_rq=$N, $cls-class reader: $turns async turns, $nrq by async_rq, dispatches per turn: mean $mean, max $maxk, first: $ks"
	log "  other async expiries (reason:dispatches): $other"
	log "  reader pid $rp: $rdn dispatches, at least $minb in every second of writeback; fio: read $rbw KiB/s, write $wbw KiB/s, $nw async dispatches"
	[ "$nw" -gt 0 ] || fail "async_rq=$N: no async (pid=0) dispatches: no background writeback seen"
	# the turns' own counts against the dispatch events: apart from a
	# turn begun before the trace and one not ended in it, the same
	[ "$sum" -le $((nw + N)) ] && [ "$sum" -ge $((nw - N)) ] ||
		fail "async_rq=$N: async turns counted $sum dispatches, the trace shows $nw"
	log "  block layer: $blk_rd reads, $blk_wr writes issued"
	agree() { awk -v x="$1" -v y="$2" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(y > 0 && d <= y / 20) }'; }
	agree "$rdn" "$blk_rd" && agree "$nw" "$blk_wr" ||
		fail "async_rq=$N: our dispatches (reads $rdn, async $nw) disagree with the block layer's issues ($blk_rd, $blk_wr)"
	if [ "$cls" = idle ]; then
		[ "$minb" -lt "$MIN_RD" ] ||
			fail "control: an idle-class reader got $minb dispatches in every second of writeback (>= $MIN_RD): the bound does not tell starving"
		continue
	fi
	# a CPU-bound guest may not queue N async requests before the turn ends
	[ "$nrq" -ge 5 ] || share_fail "async_rq=$N: only $nrq async turns ended by async_rq ($turns async turns)"
	[ "$bad" -eq 0 ] || fail "async_rq=$N: $bad async_rq expiries after a number of dispatches other than $N"
	[ "$maxk" -le "$N" ] || fail "async_rq=$N: an async turn dispatched $maxk requests"
	[ "$rbw" -gt 0 ] || fail "async_rq=$N: the reader made no progress"
	[ "$minb" -ge 1 ] || fail "async_rq=$N: the reader got nothing dispatched for a whole second of writeback"
	[ "$minb" -ge "$MIN_RD" ] ||
		share_fail "async_rq=$N: the reader got only $minb dispatches in a second of writeback (want >= $MIN_RD)"
	if [ "$N" = 2 ]; then mean_lo=$mean; else mean_hi=$mean; fi
done
# the two settings really differ per turn
awk -v a="$mean_lo" -v b="$mean_hi" 'BEGIN { exit !(b >= 2.5 * a) }' ||
	fail "mean dispatches per async turn $mean_lo (N=2) vs $mean_hi (N=8): do not follow max_budget_async_rq"

cleanup
trap - EXIT
check_dmesg
log "async turns end after max_budget_async_rq dispatches; the sync reader keeps going"
