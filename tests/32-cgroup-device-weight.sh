#!/bin/sh
# where: guest
# timeout: 150
# A per-device weight: cgroups a (100) and b (400) read from two slow
# null_blk devices, both on bfq.  "MAJ:MIN 400" for a on nullb0 only must
# make nullb0's ratio b/a ~1 (0.9..1.1) while nullb1 keeps ~4 (3.6..4.4).
# "MAJ:MIN default" drops the override again.  Both devices are read in
# the same window (two bfq instances side by side).  Measured first at the
# defaults, where a's share may be off by 10 % plus one max_budget in use
# over its ideal bytes (lib.sh lag_tol), then low_latency 0, max_budget
# 1024 (see 30-cgroup-weights) against the ranges above.
. "$(dirname "$0")/lib.sh"

A=t32a B=t32b
cleanup() { cg_readers_stop; cg_kill_rm $A $B; }
trap cleanup EXIT

# measure: both devices in one window (each has its own queue and bfq
# instance); prints the bytes read by A and B from nullb0, then from
# nullb1, each with that device's max_budget in use.
measure() {
	for _d in nullb0 nullb1; do
		cg_reader $A $_d 0
		cg_reader $B $_d 100g
	done
	for _d in nullb0 nullb1; do
		cg_wait_io $_d rbytes $A $B || return 1
	done
	sleep 1
	s1="$(cg_snap nullb0 rbytes $A $B) $(cg_snap nullb1 rbytes $A $B)"
	sleep 8
	s2="$(cg_snap nullb0 rbytes $A $B) $(cg_snap nullb1 rbytes $A $B)"
	mb="$(max_budget_used nullb0) $(max_budget_used nullb1)"
	cg_readers_stop
	for _d in nullb0 nullb1; do
		for g in $A $B; do
			[ "$(fio_err /tmp/$g-$_d.t)" = 0 ] || { echo "fio $g: $(tail -n 1 /tmp/$g-$_d.t)"; return 1; }
		done
	done
	echo "$s1 $s2 $mb" | awk '{ print $5 - $1, $6 - $2, $9, $7 - $3, $8 - $4, $10 }'
}
# dev_ok A B WA WB MB: a's share of A + B within 10 % + one budget of MB
# sectors of its ideal, weights WA:WB
dev_ok() {
	_want=$(($1 + $2)); _want=$((_want * $3 / ($3 + $4)))
	_tol=$(lag_tol 10 "$5" "$_want")
	awk -v a="$1" -v w="$_want" -v t="$_tol" 'BEGIN { d = a - w; if (d < 0) d = -d
		printf "a off its share by %.1f %% (want <= %s %%)", d * 100 / w, t
		exit !(d * 100 <= w * t) }'
}
in_range() { awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(r >= lo && r <= hi) }'; }
gweight() {	# gweight DEV CG: the weight bfq_groups shows for CG on DEV
	sed -n "s|^/$2 .* weight=\([0-9]*\) .*|\1|p" /sys/kernel/debug/block/$1/sched/bfq_groups
}

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW nr_devices=2" || fail "null_blk"
wait_dev nullb1 || fail "no nullb1"
for d in nullb0 nullb1; do
	set_sched $d bfq || fail "cannot select bfq on $d"
	echo 128 > /sys/block/$d/queue/nr_requests || fail "nr_requests on $d"
done
D0=$(cat /sys/block/nullb0/dev)
cg_make $A 100 && cg_make $B 400 || fail "cannot create the cgroups"
echo "$D0 400" > $CGROOT/$A/io.bfq.weight || fail "cannot write '$D0 400'"
w=$(cat $CGROOT/$A/io.bfq.weight | tr '\n' ';')
log "io.bfq.weight of a: $w"
[ "$w" = "default 100;$D0 400;" ] || fail "io.bfq.weight reads '$w', want 'default 100;$D0 400;'"

res=$(measure) || fail "run at the defaults: $res"
set -- $res
d0=$(dev_ok "$1" "$2" 400 400 "$3"); ok0=$?
log "defaults: nullb0 (a=400 here): a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$(ratio "$1" "$2"), $d0"
shift 3
d1=$(dev_ok "$1" "$2" 100 400 "$3"); ok1=$?
log "defaults: nullb1 (a=100):      a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$(ratio "$1" "$2"), $d1"
for d in nullb0 nullb1; do
	iosched $d max_budget 1024 || fail "max_budget on $d"
	iosched $d low_latency 0 || fail "low_latency on $d"
done

res=$(measure) || fail "tuned run: $res"
set -- $res
r0=$(ratio "$1" "$2")
log "nullb0 (a=400 here): a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$r0 (want 0.9..1.1)"
shift 3
r1=$(ratio "$1" "$2")
log "nullb1 (a=100):      a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$r1 (want 3.6..4.4)"
log "bfq_groups weights of a: nullb0 $(gweight nullb0 $A) nullb1 $(gweight nullb1 $A)"
[ "$(gweight nullb0 $A)" = 400 ] && [ "$(gweight nullb1 $A)" = 100 ] ||
	fail "bfq_groups shows a's weight $(gweight nullb0 $A) on nullb0, $(gweight nullb1 $A) on nullb1"
[ "$(cg_stat $A nullb0 bfq.weight)" = 400 ] && [ "$(cg_stat $A nullb1 bfq.weight)" = 100 ] ||
	fail "io.stat bfq.weight of a: nullb0 $(cg_stat $A nullb0 bfq.weight), nullb1 $(cg_stat $A nullb1 bfq.weight)"

# drop the override; the default applies again
echo "$D0 default" > $CGROOT/$A/io.bfq.weight || fail "cannot write '$D0 default'"
w=$(cat $CGROOT/$A/io.bfq.weight | tr '\n' ';')
[ "$w" = "default 100;" ] || fail "after '$D0 default' io.bfq.weight reads '$w'"
[ "$(gweight nullb0 $A)" = 100 ] || fail "bfq_groups shows weight $(gweight nullb0 $A) after '$D0 default'"

cleanup
unload_bfq || fail "rmmod failed"
check_dmesg
[ $ok0 -eq 0 ] || share_fail "nullb0 at the defaults: $d0"
[ $ok1 -eq 0 ] || share_fail "nullb1 at the defaults: $d1"
in_range "$r0" 0.9 1.1 || share_fail "nullb0 ratio b/a = $r0 with a's override 400, want 1 +-10 %"
in_range "$r1" 3.6 4.4 || share_fail "nullb1 ratio b/a = $r1 without override, want 4 +-10 %"
log "device weight ok: nullb0 $r0, nullb1 $r1"
