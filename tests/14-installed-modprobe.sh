#!/bin/sh
# where: guest
# timeout: 120
# Which bfq answers on an installed system: the guest's /lib/modules is laid
# out as "make install" leaves a Debian system (ours in updates/, Debian's
# bfq.ko in kernel/block/, the modprobe.d policy file, depmod), with kmod's
# modprobe as /sbin/modprobe.  With nothing loaded, "echo bfq > scheduler"
# loads ours, "modprobe bfq" loads ours, "modprobe -r bfq" unloads it; once
# uninstalled (files removed, depmod) both give Debian's bfq back.
# Everything is undone at the end (busybox modprobe, the initramfs's depmod).
. "$(dirname "$0")/lib.sh"
[ -f "$DISTRO_BFQ_KO" ] || skip "no distro bfq.ko for this kernel"
[ -x /bin/kmod ] || skip "no kmod in the initramfs (install kmod on the host)"
KV=$(cat /etc/kver)
MD=/lib/modules/$KV
CONF=/etc/modprobe.d/bfq-iosched.conf
S=/sys/block/vda/queue/scheduler

depmod_kmod() { (cd /tmp && ln -sf /bin/kmod depmod && ./depmod "$KV") ||
	fail "kmod depmod failed"; }
cleanup() {
	sched_away bfq
	rmmod bfq_iosched 2>/dev/null
	rmmod bfq 2>/dev/null
	rm -f "$MD/updates/bfq-iosched.ko" "$MD/kernel/block/bfq.ko" "$CONF"
	[ ! -L /bin/modprobe.t14 ] || mv -f /bin/modprobe.t14 /bin/modprobe
	depmod_kmod
}
trap cleanup EXIT

mod_loaded bfq && fail "distro bfq loaded before the test"
mod_loaded bfq_iosched && fail "bfq_iosched loaded before the test"

# "make install" on a system that has Debian's bfq.ko
mkdir -p "$MD/updates" "$MD/kernel/block" /etc/modprobe.d
cp "$BFQ_KO" "$MD/updates/bfq-iosched.ko"
cp "$DISTRO_BFQ_KO" "$MD/kernel/block/bfq.ko"
cp /lib/bfq/bfq-iosched.conf "$CONF"
mv /bin/modprobe /bin/modprobe.t14 && ln -s kmod /bin/modprobe ||
	fail "cannot put kmod's modprobe in place"
depmod_kmod
/sbin/modprobe --version | head -n 1

# only_loaded MOD: MOD is the one bfq loaded
only_loaded() {
	other=bfq; [ "$1" = bfq ] && other=bfq_iosched
	mod_loaded "$1" || fail "$1 not loaded (modules: $(grep bfq /proc/modules | cut -d' ' -f1))"
	mod_loaded "$other" && fail "$other loaded, expected $1"
	return 0
}
# unload_all: back to no bfq module
unload_all() {
	sched_away bfq
	rmmod bfq_iosched 2>/dev/null
	rmmod bfq 2>/dev/null
	! grep -q '^bfq' /proc/modules || fail "cannot unload: $(grep '^bfq' /proc/modules)"
}

echo bfq > $S || fail "echo bfq > $S failed with ours installed"
only_loaded bfq_iosched
[ -e /sys/block/vda/queue/iosched/max_budget_async_rq ] || fail "vda's bfq is not ours"
log "installed: the scheduler write loaded ours ($(cat /sys/module/bfq_iosched/version))"
unload_all

/sbin/modprobe bfq || fail "modprobe bfq failed with ours installed"
only_loaded bfq_iosched
log "installed: modprobe bfq loaded ours"
/sbin/modprobe -r bfq || fail "modprobe -r bfq failed"
mod_loaded bfq_iosched && fail "modprobe -r bfq left bfq_iosched loaded"
log "installed: modprobe -r bfq unloaded ours"

# "make uninstall"
rm -f "$MD/updates/bfq-iosched.ko" "$CONF"
depmod_kmod
echo bfq > $S || fail "echo bfq > $S failed after uninstall"
only_loaded bfq
log "uninstalled: the scheduler write loaded Debian's bfq"
unload_all
/sbin/modprobe bfq || fail "modprobe bfq failed after uninstall"
only_loaded bfq
log "uninstalled: modprobe bfq loaded Debian's bfq"
unload_all
check_dmesg
log "installed-like modprobe policy ok"
