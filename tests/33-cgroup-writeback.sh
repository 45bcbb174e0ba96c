#!/bin/sh
# where: guest
# timeout: 150
# Buffered writes are weighted too: with the memory and io controllers on
# cgroup v2, writeback bios carry the blkcg of the cgroup that dirtied the
# pages.  A block device inode is written back by one cgroup at a time, so
# the two writers (weights 100 and 400) write to two partitions of one slow
# scsi_debug disk (max_queue=1, 2 ms per command, 64 KiB requests).  The
# wbytes of each cgroup in io.stat over a common window must be 1:4 within
# 20 % with bfq (measured 4.15-4.52: writeback reaches the scheduler through
# dirty throttling and the flushers' tag waits, coarser than direct reads);
# mq-deadline is the baseline (1.00-1.03).  bfq runs at the defaults
# first, where a's share may be off by 20 % plus one max_budget in use
# over its ideal bytes (lib.sh lag_tol), then low_latency 0, max_budget 1024.
# This needs bfq's async tag limits (limit_depth): without them the light
# cgroup's flusher holds most scheduler tags, the heavy one's async queue
# runs empty and the ratio falls to 1.0-1.6.  fio runs with invalidate=0
# and the partitions are held open, so no BLKFLSBUF or last-close sync
# turns the writeback into one burst of sync writes.
. "$(dirname "$0")/lib.sh"

A=t33a B=t33b
DB=$(cat /proc/sys/vm/dirty_bytes) DBB=$(cat /proc/sys/vm/dirty_background_bytes)
DR=$(cat /proc/sys/vm/dirty_ratio) DBR=$(cat /proc/sys/vm/dirty_background_ratio)
restore() {
	cg_readers_stop; cg_kill_rm $A $B
	if [ "$DB" != 0 ]; then echo "$DB" > /proc/sys/vm/dirty_bytes; else echo "$DR" > /proc/sys/vm/dirty_ratio; fi
	if [ "$DBB" != 0 ]; then echo "$DBB" > /proc/sys/vm/dirty_background_bytes; else echo "$DBR" > /proc/sys/vm/dirty_background_ratio; fi
	echo -memory > $CGROOT/cgroup.subtree_control 2>/dev/null
}
trap restore EXIT

# writer CG DEV: buffered sequential writer until cg_readers_stop
writer() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$1" \
		fio --minimal --terse-version=3 --name="$1" --filename="/dev/$2" \
		--rw=write --bs=64k --size=90m --invalidate=0 --time_based \
		--runtime=300 > "/tmp/$1.t" 2>&1 &
	CG_PIDS="$CG_PIDS $!"
}
# measure SCHED [MAX_BUDGET]: bytes written by A and B in the window, and
# for bfq the max_budget in use
measure() {
	set_sched $D "$1" || return 1
	echo 128 > /sys/block/$D/queue/nr_requests || return 1
	[ -z "${2:-}" ] || iosched $D max_budget "$2" || return 1
	# the tuned run is also the 2008 design's (no low-latency boosts)
	[ -z "${2:-}" ] || iosched $D low_latency 0 || return 1
	exec 7< /dev/${D}1 8< /dev/${D}2
	writer $A ${D}1
	writer $B ${D}2
	cg_wait_io $D wbytes $A $B || return 1
	sleep 2
	s1=$(cg_snap $D wbytes $A $B)
	sleep 10
	s2=$(cg_snap $D wbytes $A $B)
	mb=0; [ "$1" != bfq ] || mb=$(max_budget_used $D)
	cg_readers_stop
	exec 7<&- 8<&-
	sync
	echo "$s1 $s2" | awk -v mb="$mb" '{ print $3 - $1, $4 - $2, mb }'
}

echo +memory > $CGROOT/cgroup.subtree_control || skip "cannot enable the memory controller"
echo $((64 << 20)) > /proc/sys/vm/dirty_bytes && echo $((32 << 20)) > /proc/sys/vm/dirty_background_bytes ||
	fail "cannot lower the dirty limits"
load_bfq || fail "insmod failed"
D=$(sdebug_two_parts) || fail "$D"
cg_make $A 100 && cg_make $B 400 || fail "cannot create the cgroups"
grep -q memory $CGROOT/$A/cgroup.controllers || fail "no memory controller in $A"

base=$(measure mq-deadline) || fail "mq-deadline run: $base"
set -- $base
log "mq-deadline: written a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$(ratio "$1" "$2")"
res=$(measure bfq) || fail "bfq run at the defaults: $res"
set -- $res
tol0=$(lag_tol 20 "$3" $((($1 + $2) / 5)))
d0=$(awk -v a="$1" -v b="$2" 'BEGIN { d = (a + b ? a * 5 / (a + b) - 1 : 1) * 100; printf "%.1f", d < 0 ? -d : d }')
log "bfq defaults: written a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$(ratio "$1" "$2"), a off its share by $d0 % (want <= $tol0 %)"
res=$(measure bfq 1024) || fail "bfq run: $res"
set -- $res
r=$(ratio "$1" "$2")
log "bfq:         written a=$(($1 >> 10)) KiB b=$(($2 >> 10)) KiB ratio b/a=$r (want 3.2..4.8)"
grep t33 /sys/kernel/debug/block/$D/sched/bfq_groups | sed 's/^/bfq_groups: /'
sed 's/^/bfq_queues: /' /sys/kernel/debug/block/$D/sched/bfq_queues | head -n 8

restore
unload_bfq || fail "rmmod failed"
sdebug_unload
check_dmesg
[ "$1" -gt 0 ] && [ "$2" -gt 0 ] || fail "writeback not attributed to the cgroups: a=$1 b=$2 bytes"
awk -v d="$d0" -v t="$tol0" 'BEGIN { exit !(d <= t) }' ||
	share_fail "writeback at the defaults: a off its share by $d0 %, want <= $tol0 %"
awk -v r="$r" 'BEGIN { exit !(r >= 3.2 && r <= 4.8) }' ||
	share_fail "writeback weighting b/a = $r, want 3.2..4.8"
log "writeback weighted: ratio $r"
