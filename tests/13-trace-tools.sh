#!/bin/sh
# where: guest
# timeout: 120
# The users' tools read our events: every print fmt in events/bfq/*/format
# carries numbers, not our enum names (TRACE_DEFINE_ENUM), and Debian's
# trace-cmd and perf decode class= and reason= from a recording;
# blktrace/blkparse see an insert ("I") for every request bfq dispatches on
# vda, and the tracefs event block_rq_insert fires for vda under bfq.
# trace-cmd, perf and blktrace are copied into the guest when installed on
# the host (deps.sh installs them); the parts whose tool is missing do not
# run, and the test then ends as a skip, not a pass.
. "$(dirname "$0")/lib.sh"
DEV=vda
cleanup() {
	[ ! -d "$TRACEFS/events/block" ] || echo 0 > "$TRACEFS/events/block/enable"
	trace_off
	[ -z "${BT_PID:-}" ] || kill -INT "$BT_PID" 2>/dev/null
	unload_bfq
}
trap cleanup EXIT

io() {
	fio_run --name=t13 --filename=/dev/$DEV --rw=randread --bs=4k --size=4m \
		--ioengine=psync --direct=1 > /tmp/t13.fio || fail "fio on $DEV failed"
}

load_bfq || fail "insmod $BFQ_KO failed"
set_sched $DEV bfq || fail "cannot select bfq on $DEV"

# 1. formats: no enum name left for user space to resolve
n=0
for f in "$TRACEFS"/events/bfq/*/format; do
	[ -f "$f" ] || fail "no bfq event formats in $TRACEFS/events/bfq"
	n=$((n + 1))
	bad=$(grep '^print fmt' "$f" | grep -oE 'BFQ_[A-Z_]+' | head -n 1)
	[ -z "$bad" ] || fail "$f: print fmt still names $bad"
done
grep -q '"be"' "$TRACEFS/events/bfq/bfq_budget/format" ||
	fail "bfq_budget format has no class table"
log "$n bfq event formats, no enum names in print fmt"

# 2. block_rq_insert through tracefs: one per request dispatched by bfq
echo 0 > "$TRACEFS/tracing_on"
echo > "$TRACEFS/trace"
echo 1 > "$TRACEFS/events/block/block_rq_insert/enable" || fail "no block_rq_insert event"
echo 1 > "$TRACEFS/events/block/block_rq_issue/enable" || fail "no block_rq_issue event"
echo 1 > "$TRACEFS/tracing_on"
io
echo 0 > "$TRACEFS/tracing_on"
echo 0 > "$TRACEFS/events/block/enable"
d=$(cat /sys/block/$DEV/dev | tr : ,)
ins=$(grep -cE "block_rq_insert: $d R[A-Z]* " "$TRACEFS/trace")
iss=$(grep -cE "block_rq_issue: $d R[A-Z]* " "$TRACEFS/trace")
log "tracefs on $DEV ($d): $ins reads inserted, $iss issued"
[ "$iss" -gt 0 ] || fail "no read issued on $DEV in the trace"
[ "$ins" -ge "$iss" ] || fail "only $ins block_rq_insert for $iss issued reads"

missing=
# 3. trace-cmd decodes our enums
if command -v trace-cmd > /dev/null; then
	cd /tmp || fail "no /tmp"
	trace-cmd record -q -e bfq:bfq_budget -e bfq:bfq_expire -o /tmp/t13.dat \
		sh -c 'fio --name=t13 --filename=/dev/vda --rw=randread --bs=4k \
			--size=4m --ioengine=psync --direct=1 > /dev/null' > /tmp/t13.rec 2>&1 ||
		fail "trace-cmd record failed: $(tail -n 1 /tmp/t13.rec)"
	trace-cmd report -i /tmp/t13.dat > /tmp/t13.rep 2> /tmp/t13.rep.err ||
		fail "trace-cmd report failed: $(tail -n 1 /tmp/t13.rep.err)"
	nb=$(grep -c 'bfq_budget:.* class=be ' /tmp/t13.rep)
	ne=$(grep -cE 'bfq_expire:.* reason=(exhausted|timeout|too_idle|no_more|async_rq|grace) ' /tmp/t13.rep)
	log "trace-cmd report: $nb bfq_budget with class=be, $ne bfq_expire with a reason name"
	grep -m 1 'bfq_budget:' /tmp/t13.rep
	! grep -q 'FAILED TO PARSE' /tmp/t13.rep ||
		fail "trace-cmd: $(grep -m 1 'FAILED TO PARSE' /tmp/t13.rep)"
	[ "$nb" -gt 0 ] || fail "trace-cmd shows no bfq_budget event with class=be"
	[ "$ne" -gt 0 ] || fail "trace-cmd shows no bfq_expire event with a reason name"
else
	missing="$missing trace-cmd"
fi

# 4. perf decodes them too (it parses the same print fmt)
if command -v perf > /dev/null; then
	cd /tmp || fail "no /tmp"
	perf record -q -a -e bfq:bfq_budget -e bfq:bfq_expire -o /tmp/t13.perf \
		-- fio --name=t13 --filename=/dev/vda --rw=randread --bs=4k \
			--size=4m --ioengine=psync --direct=1 > /tmp/t13.prec 2>&1 ||
		fail "perf record failed: $(tail -n 1 /tmp/t13.prec)"
	perf script -i /tmp/t13.perf > /tmp/t13.pscr 2> /tmp/t13.pscr.err ||
		fail "perf script failed: $(tail -n 1 /tmp/t13.pscr.err)"
	nb=$(grep -c 'bfq_budget:.* class=be ' /tmp/t13.pscr)
	ne=$(grep -cE 'bfq_expire:.* reason=(exhausted|timeout|too_idle|no_more|async_rq|grace) ' /tmp/t13.pscr)
	log "perf script: $nb bfq_budget with class=be, $ne bfq_expire with a reason name"
	grep -m 1 'bfq_expire:' /tmp/t13.pscr
	[ "$nb" -gt 0 ] || fail "perf shows no bfq_budget event with class=be"
	[ "$ne" -gt 0 ] || fail "perf shows no bfq_expire event with a reason name"
else
	missing="$missing perf"
fi

# 5. blktrace/blkparse: an "I" for every "D" on vda
if command -v blktrace > /dev/null && command -v blkparse > /dev/null; then
	cd /tmp || fail "no /tmp"
	rm -f /tmp/t13bt.blktrace.*
	blktrace -d /dev/$DEV -o t13bt > /tmp/t13bt.log 2>&1 &
	BT_PID=$!
	sleep 1
	io
	sleep 1
	kill -INT "$BT_PID"
	wait "$BT_PID"
	BT_PID=
	blkparse -i t13bt > /tmp/t13bp.txt 2>&1 || fail "blkparse failed: $(tail -n 1 /tmp/t13bp.txt)"
	ni=$(awk '$6 == "I" && $7 ~ /R/' /tmp/t13bp.txt | wc -l)
	nd=$(awk '$6 == "D" && $7 ~ /R/' /tmp/t13bp.txt | wc -l)
	log "blkparse: $ni reads inserted (I), $nd issued (D)"
	awk '$6 == "I"' /tmp/t13bp.txt | head -n 2
	[ "$nd" -gt 0 ] || fail "blkparse shows no read issued: $(tail -n 1 /tmp/t13bt.log)"
	[ "$ni" -ge "$nd" ] || fail "blkparse: only $ni inserts for $nd issued reads"
else
	missing="$missing blktrace"
fi
check_dmesg
[ -z "$missing" ] || skip "not in the initramfs, not tested:$missing"
log "trace tools ok"
