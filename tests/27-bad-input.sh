#!/bin/sh
# where: guest
# timeout: 60
# Every tunable rejects non-numbers, negatives, the empty string, overflow
# and values just outside its range with a write error, leaving the value
# unchanged; its minimum and maximum are accepted and read back.
# slice_idle (ms) and slice_idle_us (us) are two views of one value.
. "$(dirname "$0")/lib.sh"
DEV=nullb0
D=/sys/block/$DEV/queue/iosched

cleanup() { sched_away bfq; nullb_unload; unload_bfq; }
bad() { cleanup; fail "$*"; }

load_bfq || fail "insmod failed"
nullb_load 'queue_mode=2' || fail "cannot load null_blk"
set_sched $DEV bfq || bad "cannot select bfq on $DEV"

# name min max default
TUNABLES='max_budget 0 1048576 0
max_budget_async_rq 1 1024 4
timeout_sync 1 10000 125
timeout_async 1 10000 40
slice_idle 0 1000 8
slice_idle_us 0 1000000 8000
fifo_expire_sync 1 60000 125
fifo_expire_async 1 60000 250
back_seek_max 0 1048576 16384
back_seek_penalty 1 1000 2
low_latency 0 1 1'


echo "$TUNABLES" | while read -r name min max def; do
	f=$D/$name
	[ -w "$f" ] || { echo "FAIL: no writable $f"; exit 1; }
	v=$(cat "$f")
	[ "$v" = "$def" ] || { echo "FAIL: $name reads '$v', default is $def"; exit 1; }
	rejects="abc -1 '' 12abc 1.5 0x10 4294967296 99999999999999999999 $((max + 1))"
	[ "$min" -gt 0 ] && rejects="$rejects $((min - 1))"
	for x in $rejects; do
		[ "$x" = "''" ] && x=
		if echo "$x" > "$f" 2>/dev/null; then
			echo "FAIL: $name accepted '$x' (reads $(cat "$f") now)"; exit 1
		fi
		now=$(cat "$f")
		[ "$now" = "$v" ] || { echo "FAIL: $name changed from $v to $now after rejecting '$x'"; exit 1; }
	done
	for x in "$min" "$max" "$def"; do
		echo "$x" > "$f" 2>/dev/null || { echo "FAIL: $name rejected valid $x"; exit 1; }
		now=$(cat "$f")
		[ "$now" = "$x" ] || { echo "FAIL: $name: wrote $x, reads $now"; exit 1; }
	done
	echo "$name: rejected $(echo "$rejects" | wc -w) bad values, accepted $min/$max/$def"
done > /tmp/bad.out
rc=$?
cat /tmp/bad.out
[ $rc -eq 0 ] && ! grep -q '^FAIL' /tmp/bad.out || bad "$(grep '^FAIL' /tmp/bad.out | head -n 1 | sed 's/^FAIL: //')"

# slice_idle and slice_idle_us are one value
iosched $DEV slice_idle 8 || bad "slice_idle=8 rejected"
[ "$(iosched $DEV slice_idle_us)" = 8000 ] || bad "slice_idle=8 but slice_idle_us reads $(iosched $DEV slice_idle_us)"
iosched $DEV slice_idle_us 3000 || bad "slice_idle_us=3000 rejected"
[ "$(iosched $DEV slice_idle)" = 3 ] || bad "slice_idle_us=3000 but slice_idle reads $(iosched $DEV slice_idle)"
iosched $DEV slice_idle 0 || bad "slice_idle=0 rejected"
[ "$(iosched $DEV slice_idle_us)" = 0 ] || bad "slice_idle=0 but slice_idle_us reads $(iosched $DEV slice_idle_us)"
iosched $DEV slice_idle_us 8000 || bad "slice_idle_us=8000 rejected"
[ "$(iosched $DEV slice_idle)" = 8 ] || bad "slice_idle_us=8000 but slice_idle reads $(iosched $DEV slice_idle)"
echo 1001 > $D/slice_idle 2>/dev/null && bad "slice_idle accepted 1001"
[ "$(iosched $DEV slice_idle_us)" = 8000 ] || bad "rejected slice_idle=1001 changed slice_idle_us to $(iosched $DEV slice_idle_us)"
log "slice_idle 8 <-> slice_idle_us 8000, 3000 us -> 3 ms, 0 <-> 0"

# the scheduler still works after all that
fio_run --name=after --filename=/dev/$DEV --rw=randread --bs=4k --size=4m \
	--ioengine=psync --direct=1 > /tmp/after.t || bad "I/O through bfq failed after the tunable writes"
cleanup
check_dmesg
log "bad input ok"
