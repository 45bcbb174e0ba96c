#!/bin/sh
# where: guest
# timeout: 120
# Ours and Debian's bfq.ko both provide the elevator "bfq" and the io.bfq.*
# cgroup files.  With a cgroup present, in both load orders, the module
# loaded second must fail with EBUSY and one dmesg line naming the other
# bfq, without a kernel splat, and leave the first one whole: its
# io.bfq.weight still in the cgroup and writable, its elevator selectable.
# Afterwards our module loads again normally.
. "$(dirname "$0")/lib.sh"
[ -f "$DISTRO_BFQ_KO" ] || skip "no distro bfq.ko for this kernel"
CG=t12
W=$CGROOT/$CG/io.bfq.weight
OURS_ATTR=max_budget_async_rq	# a tunable only our bfq has
DISTRO_ATTR=low_latency		# and one only Debian's has

cleanup() {
	sched_away bfq
	cg_kill_rm $CG
	rmmod bfq_iosched 2>/dev/null
	rmmod bfq 2>/dev/null
}
trap cleanup EXIT

# kernel log lines since this test started
dmesg_new() {
	if [ -n "${BFQ_TEST_MARK:-}" ]; then
		dmesg | sed -n "/$BFQ_TEST_MARK\$/,\$p"
	else
		dmesg
	fi
}

# kmod's insmod makes one load attempt; busybox's retries a failed
# finit_module with init_module, so each refusal would be logged twice.
if [ -x /bin/kmod ]; then
	ln -sf /bin/kmod /tmp/insmod
	INSMOD=/tmp/insmod
else
	INSMOD=insmod
fi

# second_fails KO MSG: insmod KO must fail with EBUSY, and the kernel log
# must gain exactly one line matching MSG (per load attempt).
second_fails() {
	before=$(dmesg_new | grep -c "$2")
	if $INSMOD "$1" > /tmp/t12.err 2>&1; then
		fail "insmod $1 succeeded while the other bfq is loaded"
	fi
	grep -qi 'busy' /tmp/t12.err || fail "insmod $1: '$(cat /tmp/t12.err)', expected EBUSY"
	after=$(dmesg_new | grep -c "$2")
	want=1
	[ "$INSMOD" != insmod ] || want=2	# busybox: two attempts
	[ $((after - before)) -eq $want ] ||
		fail "expected $want new '$2' line(s) in dmesg ($INSMOD), got $((after - before))"
	log "second load refused: $(dmesg_new | grep "$2" | tail -n 1 | sed 's/^\[[^]]*\] //')"
}

# first_intact MOD ATTR WEIGHT: MOD still loaded, the cgroup's
# io.bfq.weight there and takes WEIGHT, bfq selectable on vda with MOD's
# tunable ATTR, and a new cgroup gets io.bfq.weight too.
first_intact() {
	mod_loaded "$1" || fail "$1 was unloaded by the failed load"
	[ -f "$W" ] || fail "$W gone after the failed load"
	echo "$3" > "$W" || fail "cannot write $3 to $W"
	grep -q "^default $3\$" "$W" || fail "$W reads '$(head -n 1 "$W")' after writing $3"
	cg_make $CG/new || fail "cannot make a cgroup under $CG"
	[ -f "$CGROOT/$CG/new/io.bfq.weight" ] || fail "new cgroup has no io.bfq.weight"
	rmdir "$CGROOT/$CG/new"
	set_sched vda mq-deadline || fail "cannot select mq-deadline"
	set_sched vda bfq || fail "bfq not selectable after the failed load"
	[ -e "/sys/block/vda/queue/iosched/$2" ] ||
		fail "bfq on vda is not $1's: no iosched/$2"
	fio_run --name=t12 --filename=/dev/vda --rw=randread --bs=4k --size=4m \
		--ioengine=psync --direct=1 > /tmp/t12.fio || fail "I/O through $1's bfq failed"
	set_sched vda mq-deadline || fail "cannot switch vda away from bfq"
	log "$1 intact: weight $3 set, bfq selected and used"
}

cg_make $CG || fail "cannot make cgroup $CG"
grep -qw io "$CGROOT/$CG/cgroup.controllers" || fail "no io controller in $CG"
echo +io > "$CGROOT/$CG/cgroup.subtree_control" || fail "cannot enable io below $CG"

# ours first, Debian's second
load_bfq || fail "insmod $BFQ_KO failed"
[ -f "$W" ] || fail "no $W with our module loaded"
second_fails "$DISTRO_BFQ_KO" 'bfq-iosched: refusing module bfq'
mod_loaded bfq && fail "distro bfq is loaded after its refused insmod"
first_intact bfq_iosched $OURS_ATTR 300
check_dmesg
unload_bfq || fail "rmmod bfq_iosched failed"
[ ! -e "$W" ] || fail "$W still there after our rmmod"

# Debian's first, ours second
load_distro_bfq || fail "insmod $DISTRO_BFQ_KO failed"
[ -f "$W" ] || fail "no $W with the distro bfq loaded"
second_fails "$BFQ_KO" 'bfq-iosched: another bfq is loaded'
mod_loaded bfq_iosched && fail "bfq_iosched is loaded after its refused insmod"
first_intact bfq $DISTRO_ATTR 400
check_dmesg
unload_distro_bfq || fail "rmmod bfq failed"

# nothing left behind: ours loads and works again
load_bfq || fail "insmod $BFQ_KO failed after the refused loads"
first_intact bfq_iosched $OURS_ATTR 200
unload_bfq || fail "final rmmod bfq_iosched failed"
check_dmesg
log "coexistence ok"
