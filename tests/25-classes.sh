#!/bin/sh
# where: guest
# timeout: 150
# Classes are strict (RT > BE > IDLE): with both backlogged, an RT reader
# gets >= 95 % of a slow null_blk against a BE one, and a BE reader >= 95 %
# against an IDLE one (the IDLE reader < 5 %); an IDLE reader alone gets
# the whole device (>= 90 % of what the BE+IDLE pair moved together).
# But no class starves: the lower reader of each pair still gets one
# request through per BFQ_CLASS_GRACE (200 ms) it waits; at least two
# 64 KiB reads per second are required.
# Readers are libaio iodepth 4 on a device that takes one request at a time,
# so each keeps requests queued in the scheduler all the time.
# Baseline: the same RT vs BE pair under kyber, which ignores classes, must
# stay under the 95 % bound (mq-deadline would not do: it is strict
# between classes too), or the bound would not tell classes from none.
. "$(dirname "$0")/lib.sh"
# Shares are measured with /proc/PID/io.  Without it (the check-debug
# kernel) the readers still run, for the sanitizers, and the test skips at
# the end.
NOIO=; [ -r /proc/self/io ] || NOIO=1
DEV=nullb0
NB='queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 submit_queues=1'
RUNTIME=11 WARM=2 WIN=7

cleanup() {
	for _p in $PIDS; do kill -9 "$_p" 2>/dev/null; done
	wait 2>/dev/null
	sched_away bfq
	nullb_unload
	unload_bfq
}

read_bytes() { [ -z "$NOIO" ] || { echo 0; return; }; sed -n 's/^read_bytes: *//p' "/proc/$1/io" 2>/dev/null; }

# measure CLASS:LEVEL...: one sequential reader per argument, each on its own
# 8 GiB region; prints the KiB each read during the window, one per line.
# The lower-class reader of a pair is killed at the end: it may have a
# long backlog.
measure() {
	PIDS="" _i=0
	for _c in "$@"; do
		ionice -c "${_c%%:*}" -n "${_c#*:}" fio --minimal --terse-version=3 \
			--thread --name=r$_i --filename=/dev/$DEV --rw=read --bs=64k \
			--direct=1 --ioengine=libaio --iodepth=4 \
			--offset=$((_i * 8))g --size=8g --time_based \
			--runtime=$RUNTIME > /tmp/c$_i.t 2>&1 &
		PIDS="$PIDS $!"
		_i=$((_i + 1))
	done
	sleep $WARM
	_b0=
	for _p in $PIDS; do _b0="$_b0 $(read_bytes "$_p")"; done
	sleep $WIN
	_b1=
	for _p in $PIDS; do
		kill -0 "$_p" 2>/dev/null || { cleanup; fail "a reader ended before the window closed"; }
		_b1="$_b1 $(read_bytes "$_p")"
	done
	grep -v '^pid=0 ' /sys/kernel/debug/block/$DEV/sched/bfq_queues 2>/dev/null | cut -d' ' -f1-5 >&2
	# a lower-class reader may have a long backlog: stop them all
	for _p in $PIDS; do kill -9 "$_p" 2>/dev/null; done
	wait 2>/dev/null
	PIDS=
	echo "$_b0" "$_b1" | awk '{ n = NF / 2; for (i = 1; i <= n; i++) print int(($(i + n) - $i) / 1024) }'
}

# share N < KIB-LIST: percent (1 decimal) of the total that line N has
share() { awk -v n="$1" '{ k[NR] = $1; t += $1 } END { printf "%.1f\n", t ? 100 * k[n] / t : 0 }'; }
total() { awk '{ t += $1 } END { print t }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

load_bfq || fail "insmod failed"
nullb_load "$NB" || fail "cannot load null_blk"
set_sched $DEV kyber || { cleanup; fail "cannot select kyber on $DEV"; }
echo 128 > /sys/block/$DEV/queue/nr_requests || { cleanup; fail "cannot set nr_requests"; }
measure 1:4 2:0 > /tmp/rb0.k
rt0=$(share 1 < /tmp/rb0.k)
log "kyber, RT vs BE: RT $rt0 % (the baseline: want < 95)"
set_sched $DEV bfq || { cleanup; fail "cannot select bfq on $DEV"; }
echo 128 > /sys/block/$DEV/queue/nr_requests || { cleanup; fail "cannot set nr_requests"; }

measure 1:4 2:0 > /tmp/rb.k
rt=$(share 1 < /tmp/rb.k)
log "RT vs BE: RT $rt % (KiB: $(tr '\n' ' ' < /tmp/rb.k))"

measure 2:7 3:0 > /tmp/bi.k
be=$(share 1 < /tmp/bi.k); idle=$(share 2 < /tmp/bi.k)
log "BE vs IDLE: BE $be %, IDLE $idle % (KiB: $(tr '\n' ' ' < /tmp/bi.k))"

measure 3:0 > /tmp/i.k
pair=$(total < /tmp/bi.k); alone=$(total < /tmp/i.k)
log "IDLE alone: $alone KiB in ${WIN}s, BE+IDLE together: $pair KiB"

cleanup
check_dmesg
[ -z "$NOIO" ] || skip "no /proc/PID/io on this kernel (CONFIG_TASK_IO_ACCOUNTING unset): readers ran, kernel log clean, shares not measured"
lt "$rt0" 95 || fail "kyber gave RT $rt0 % against BE: the bound cannot tell classes from none"
ge "$rt" 95 || fail "RT got $rt % against BE, want >= 95 %"
ge "$be" 95 || fail "BE got $be % against IDLE, want >= 95 %"
lt "$idle" 5 || fail "IDLE got $idle % against BE, want < 5 %"
# the lower reader of each pair: at least 2 reads of 64 KiB per second
low=$((WIN * 2 * 64))
for k in "$(sed -n 2p /tmp/rb.k) BE" "$(sed -n 2p /tmp/bi.k) IDLE"; do
	[ "${k% *}" -ge $low ] || fail "the ${k#* } reader starved: ${k% *} KiB in ${WIN}s, want >= $low"
done
ge "$alone" "$(awk -v p="$pair" 'BEGIN { print 0.9 * p }')" ||
	fail "IDLE alone moved $alone KiB, less than 90 % of the $pair KiB of BE+IDLE"
log "classes ok"
