#!/bin/sh
# where: guest
# timeout: 150
# Hierarchy: /a (100) with children a1 (100) and a2 (300), beside /b (200).
# One sequential reader in each of a1, a2, b on a slow depth-1 null_blk:
# with bfq the shares of the bytes read in a common window must be 1/12,
# 3/12 and 8/12, each within 10 % of itself.  mq-deadline (~1/3 each) is
# the control: it must miss that.  The readers keep 4 reads in flight
# (libaio): weights are promised to queues that stay backlogged, and a
# reader of one read at a time is not on a loaded host.  There its think
# time (a stalled vCPU) outlasts slice_idle, a tenth of its turns end
# too_idle, B-WF2Q+ restarts it from V without what it was owed, and the
# smallest share gains.  With a busy loop on one host core: a1 +6.6 to
# +13.8 % in 9 runs at one read (6 over 10 %; too_idle 33-34 in the two
# runs counted), -2.3 to +0.1 % in 4 at four (too_idle 3).  The +14.4 % a
# CI run once saw was most likely this.  bfq runs twice: at the defaults, where each share's
# tolerance is 10 % plus one max_budget in use over its ideal bytes in the
# window (lib.sh lag_tol; a1 gets only a dozen or so turns of the auto
# budget), then low_latency 0, max_budget 1024 sectors so that a1, the
# smallest share, gets dozens of turns and 10 % holds alone.
. "$(dirname "$0")/lib.sh"

A=t31a A1=t31a/a1 A2=t31a/a2 B=t31b
cleanup() { cg_readers_stop; cg_kill_rm $A1 $A2 $A $B; }
trap cleanup EXIT

# measure SCHED [MAX_BUDGET]: print the bytes read by a1, a2 and b in the
# window (and for bfq the max_budget in use)
measure() {
	set_sched nullb0 "$1" || return 1
	echo 128 > /sys/block/nullb0/queue/nr_requests || return 1
	[ -z "${2:-}" ] || iosched nullb0 max_budget "$2" || return 1
	# the tuned run is also the 2008 design's (no low-latency boosts)
	[ -z "${2:-}" ] || iosched nullb0 low_latency 0 || return 1
	cg_reader $A1 nullb0 0 --ioengine=libaio --iodepth=4
	cg_reader $A2 nullb0 50g --ioengine=libaio --iodepth=4
	cg_reader $B nullb0 100g --ioengine=libaio --iodepth=4
	cg_wait_io nullb0 rbytes $A1 $A2 $B || return 1
	sleep 1
	s1=$(cg_snap nullb0 rbytes $A1 $A2 $B)
	sleep 10
	s2=$(cg_snap nullb0 rbytes $A1 $A2 $B)
	mb=0; [ "$1" != bfq ] || mb=$(max_budget_used nullb0)
	cg_readers_stop
	for g in $A1 $A2 $B; do
		f=/tmp/$(echo $g | tr / _)-nullb0.t
		[ "$(fio_err "$f")" = 0 ] || { echo "fio $g: $(tail -n 1 "$f")"; return 1; }
	done
	echo "$s1 $s2" | awk -v mb="$mb" '{ print $4 - $1, $5 - $2, $6 - $3, mb }'
}
# tols A1 A2 B MB: each share's tolerance at the defaults, in %
tols() {
	_t=$(($1 + $2 + $3))
	echo "$(lag_tol 10 "$4" $((_t / 12))) $(lag_tol 10 "$4" $((_t / 4))) $(lag_tol 10 "$4" $((_t * 2 / 3)))"
}
# within SHARES T1 T2 T3: each deviation printed by shares within its bound
within() {
	echo "$1" | awk -v t1="$2" -v t2="$3" -v t3="$4" '{ split(t1 " " t2 " " t3, t)
		for (i = 1; i <= NF; i++) if ($i ~ /%\)$/) { v = $i; gsub(/[(%)+]/, "", v); v += 0
			if (v < 0) v = -v; if (v > t[++n]) bad = 1 } } END { exit bad }'
}
# shares A1 A2 B: print each share of the total and its deviation
shares() {
	awk -v x="$1" -v y="$2" -v z="$3" 'BEGIN { t = x + y + z; if (!t) t = 1
		printf "a1=%.4f (%+.1f%%) a2=%.4f (%+.1f%%) b=%.4f (%+.1f%%)",
			x / t, (x / t * 12 - 1) * 100, y / t, (y / t * 4 - 1) * 100,
			z / t, (z / t * 1.5 - 1) * 100 }'
}

load_bfq || fail "insmod failed"
nullb_load "$NULLB_SLOW" || fail "null_blk"
cg_make $A 100 && cg_make $B 200 || fail "cannot create /a, /b"
echo +io > $CGROOT/$A/cgroup.subtree_control || fail "cannot enable +io in /a"
cg_make $A1 100 && cg_make $A2 300 || fail "cannot create a1, a2"

base=$(measure mq-deadline) || fail "mq-deadline run: $base"
set -- $base
shb=$(shares "$1" "$2" "$3")
log "mq-deadline: KiB a1=$(($1 >> 10)) a2=$(($2 >> 10)) b=$(($3 >> 10)); shares $shb"

res=$(measure bfq) || fail "bfq run at the defaults: $res"
set -- $res
sh0=$(shares "$1" "$2" "$3") tol0=$(tols "$@")
log "bfq defaults: KiB a1=$(($1 >> 10)) a2=$(($2 >> 10)) b=$(($3 >> 10)); shares $sh0"
log "want each within 10 % + max_budget $4 sectors: a1, a2, b +-$(echo $tol0 | sed 's/ /, +-/g') %"

res=$(measure bfq 1024) || fail "bfq run: $res"
set -- $res
sh=$(shares "$1" "$2" "$3")
log "bfq:         KiB a1=$(($1 >> 10)) a2=$(($2 >> 10)) b=$(($3 >> 10)); shares $sh"
log "want shares a1=1/12=0.0833 a2=3/12=0.2500 b=8/12=0.6667, each +-10 %"
grep t31 /sys/kernel/debug/block/nullb0/sched/bfq_groups | sed 's/^/bfq_groups: /'

# /a's sectors are those of its children
sa=$(cg_stat $A nullb0 bfq.sectors) s1=$(cg_stat $A1 nullb0 bfq.sectors) s2=$(cg_stat $A2 nullb0 bfq.sectors)
log "bfq.sectors a=$sa a1=$s1 a2=$s2"
[ "$s1" -gt 0 ] && [ "$sa" -eq $((s1 + s2)) ] || fail "bfq.sectors of /a ($sa) is not a1 + a2 ($s1 + $s2)"

cleanup
unload_bfq || fail "rmmod failed"
check_dmesg
# shellcheck disable=SC2086
within "$sh0" $tol0 ||
	share_fail "bfq shares at the defaults off by more than +-$tol0 %: $sh0"
! within "$shb" 10 10 10 ||
	fail "control: mq-deadline, blind to cgroup weights, got shares within 10 %: $shb"
within "$sh" 10 10 10 || share_fail "bfq shares off by more than 10 %: $sh"
log "nested weights ok: $sh0 at the defaults, $sh at max_budget 1024"
