#!/bin/sh
# where: guest
# timeout: 150
# When idling pays.  Two random 4 KiB psync readers on a 2 ms, depth-1
# null_blk (non-rotational): each queue empties after every request.
# Waiting for a queue that seeks gains nothing when both have the same
# weight, so bfq must not idle then: its turns end as no_more (>= 80 % of
# the expiries in bfq_stats), and the total is printed beside mq-deadline.
# The same readers on the device marked rotational, or at ionice 0 vs 7,
# are still idled for: no_more <= 20 % of the expiries, and 0 vs 7 keeps
# a weighted ratio (>= 2; the think time of a TCG guest often outlasts
# slice_idle, which costs the heavier reader some turns).
. "$(dirname "$0")/lib.sh"
DEV=nullb0
RUNTIME=6

cleanup() {
	for _p in $(pidof fio); do kill -9 "$_p"; done
	echo 0 > /sys/block/$DEV/queue/rotational
	sched_away bfq
	nullb_unload
	unload_bfq
} > /dev/null 2>&1
trap cleanup EXIT

# pair LEVEL_A LEVEL_B: KiB/s of two random readers at those BE levels
pair() {
	_i=0
	for _l in "$1" "$2"; do
		ionice -c 2 -n "$_l" fio --minimal --terse-version=3 --name=r$_i \
			--filename=/dev/$DEV --rw=randread --bs=4k --direct=1 \
			--ioengine=psync --offset=$((_i * 4))g \
			--size=4g --randrepeat=0 --time_based --runtime=$RUNTIME \
			> /tmp/29-$_i.t 2>&1 &
		_i=$((_i + 1))
	done
	wait
	for _i in 0 1; do
		[ "$(fio_err /tmp/29-$_i.t)" = 0 ] || { echo "reader $_i: $(head -c 200 /tmp/29-$_i.t)"; return 1; }
	done
	echo "$(fio_read_bw /tmp/29-0.t) $(fio_read_bw /tmp/29-1.t)"
}
# expiries: "total no_more" from bfq_stats
expiries() {
	awk -F= '$1 ~ /^(exhausted|timeout|too_idle|no_more|async_rq)$/ { t += $2 }
		$1 == "no_more" { n = $2 } END { print t + 0, n + 0 }' \
		/sys/kernel/debug/block/$DEV/sched/bfq_stats
}
# phase LEVEL_A LEVEL_B: "KiB/s KiB/s expiries no_more" of one pair run
phase() {
	set -- "$1" "$2" $(expiries)
	_bw=$(pair "$1" "$2") || { echo "$_bw"; return 1; }
	set -- $_bw "$3" "$4" $(expiries)
	echo "$1 $2 $(($5 - $3)) $(($6 - $4))"
}
frac() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW" || fail "null_blk"
[ "$(cat /sys/block/$DEV/queue/rotational)" = 0 ] || fail "null_blk is not marked non-rotational"

set_sched $DEV mq-deadline || fail "mq-deadline"
base=$(pair 4 4) || fail "mq-deadline: $base"
set -- $base
tot_dl=$(($1 + $2))
log "mq-deadline, 4 vs 4: $base KiB/s"

set_sched $DEV bfq || fail "bfq"
# pct PART WHOLE
pct() { echo $(($1 * 100 / ($2 > 0 ? $2 : 1))); }
r=$(phase 4 4) || fail "bfq: $r"
set -- $r
sym_nm=$(pct $4 $3) r_sym=$(frac $(($1 + $2)) "$tot_dl")
log "bfq, 4 vs 4, non-rotational: $1 $2 KiB/s ($r_sym of mq-deadline), $3 expiries, no_more $sym_nm % (want >= 80)"

echo 1 > /sys/block/$DEV/queue/rotational || fail "cannot mark $DEV rotational"
r=$(phase 4 4) || fail "bfq rotational: $r"
set -- $r
rot_nm=$(pct $4 $3) r_rot=$(frac $(($1 + $2)) "$tot_dl")
log "bfq, 4 vs 4, rotational:     $1 $2 KiB/s ($r_rot of mq-deadline), $3 expiries, no_more $rot_nm % (want <= 20)"
echo 0 > /sys/block/$DEV/queue/rotational

r=$(phase 0 7) || fail "bfq 0 vs 7: $r"
set -- $r
w_nm=$(pct $4 $3) r_w=$(frac "$1" "$2")
log "bfq, 0 vs 7, non-rotational: $1 $2 KiB/s, ratio $r_w (want >= 2), $3 expiries, no_more $w_nm % (want <= 20)"

cleanup
trap - EXIT
check_dmesg
[ "$sym_nm" -ge 80 ] || fail "bfq idles for equal seeky readers: no_more only $sym_nm %"
[ "$rot_nm" -le 20 ] || fail "bfq does not idle on a rotational device: no_more $rot_nm %"
[ "$w_nm" -le 20 ] || fail "bfq does not idle for unequal weights: no_more $w_nm %"
awk -v r="$r_w" 'BEGIN { exit !(r >= 2) }' || share_fail "bfq lost the weights of seeky readers: 0 vs 7 ratio $r_w"
log "idling: off for equal seeky readers, on for disks and unequal weights"
