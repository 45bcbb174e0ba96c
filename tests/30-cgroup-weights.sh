#!/bin/sh
# where: guest
# timeout: 120
# Two cgroups with io.bfq.weight 100 and 400, one sequential O_DIRECT reader
# each, on a slow depth-1 null_blk: with bfq the bytes read in a common 8 s
# window must be 1:4 within 10 % (ratio b/a 3.6..4.4).  mq-deadline, which
# ignores the weights, is measured the same way as the baseline (~1:1).
# bfq runs twice.  At the defaults (what users get) the tolerance on a's
# share is 10 % plus one max_budget in use over a's ideal bytes (lib.sh
# lag_tol): with the auto budget A gets only a dozen or so turns in the
# window.  Then with low_latency 0 and max_budget 1024 sectors (16
# requests), where A gets dozens of turns and 10 % holds alone.
. "$(dirname "$0")/lib.sh"

A=t30a B=t30b
cleanup() { cg_readers_stop; cg_kill_rm $A $B; }
trap cleanup EXIT

# measure SCHED [MAX_BUDGET]: print the bytes read by A and B in the
# window (and for bfq the max_budget in use)
measure() {
	set_sched nullb0 "$1" || return 1
	echo 128 > /sys/block/nullb0/queue/nr_requests || return 1
	[ -z "${2:-}" ] || iosched nullb0 max_budget "$2" || return 1
	# the tuned run is also the 2008 design's (no low-latency boosts)
	[ -z "${2:-}" ] || iosched nullb0 low_latency 0 || return 1
	cg_reader $A nullb0 0
	cg_reader $B nullb0 100g
	cg_wait_io nullb0 rbytes $A $B || return 1
	sleep 1
	s1=$(cg_snap nullb0 rbytes $A $B)
	sleep 8
	s2=$(cg_snap nullb0 rbytes $A $B)
	mb=0; [ "$1" != bfq ] || mb=$(max_budget_used nullb0)
	cg_readers_stop
	for g in $A $B; do
		[ "$(fio_err /tmp/$g-nullb0.t)" = 0 ] || { echo "fio $g: $(cut -c1-80 /tmp/$g-nullb0.t | tr "\n" "|")"; return 1; }
	done
	echo "$s1 $s2" | awk -v mb="$mb" '{ print $3 - $1, $4 - $2, mb }'
}
# dev A B: a's share against its ideal 1/5, in %
dev() { awk -v a="$1" -v b="$2" 'BEGIN { d = (a + b ? a * 5 / (a + b) - 1 : 1) * 100; printf "%.1f", d < 0 ? -d : d }'; }

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW" || fail "null_blk"
cg_make $A 100 && cg_make $B 400 || fail "cannot create the cgroups"
[ "$(head -n 1 $CGROOT/$B/io.bfq.weight)" = "default 400" ] ||
	fail "io.bfq.weight of $B reads '$(cat $CGROOT/$B/io.bfq.weight)'"

base=$(measure mq-deadline) || fail "mq-deadline run: $base"
set -- $base
log "mq-deadline: a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$(ratio "$1" "$2")"

res=$(measure bfq) || fail "bfq run at the defaults: $res"
set -- $res
r0=$(ratio "$1" "$2") d0=$(dev "$1" "$2") tol0=$(lag_tol 10 "$3" $((($1 + $2) / 5)))
log "bfq defaults: a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$r0, a off its share by $d0 % (want <= $tol0 %: 10 % + max_budget $3 sectors)"

res=$(measure bfq 1024) || fail "bfq run: $res"
set -- $res
r=$(ratio "$1" "$2")
log "bfq:         a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$r (want 3.6..4.4)"
grep t30 /sys/kernel/debug/block/nullb0/sched/bfq_groups | sed 's/^/bfq_groups: /'
for g in $A $B; do
	log "io.stat $g: $(grep "^$(cat /sys/block/nullb0/dev) " $CGROOT/$g/io.stat)"
done
sa=$(cg_stat $A nullb0 bfq.sectors) sb=$(cg_stat $B nullb0 bfq.sectors)
[ "$sa" -gt 0 ] && [ "$sb" -gt 0 ] || fail "io.stat bfq.sectors not counted: a=$sa b=$sb"

cleanup
unload_bfq || fail "rmmod failed"
check_dmesg
awk -v d="$d0" -v t="$tol0" 'BEGIN { exit !(d <= t) }' ||
	share_fail "bfq at the defaults: ratio b/a = $r0, a off its share by $d0 %, want <= $tol0 %"
awk -v r="$r" 'BEGIN { exit !(r >= 3.6 && r <= 4.4) }' ||
	share_fail "bfq read ratio b/a = $r, want 4 +-10 % (3.6..4.4)"
log "weights 100:400 -> ratio $r0 at the defaults, $r at max_budget 1024"
