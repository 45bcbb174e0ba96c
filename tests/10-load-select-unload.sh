#!/bin/sh
# where: guest
# timeout: 120
# Our module loads, "bfq" is offered and selectable on vda, rmmod is refused
# while vda uses it and succeeds once vda is back on mq-deadline.
. "$(dirname "$0")/lib.sh"
S=/sys/block/vda/queue/scheduler

mod_loaded bfq && fail "distro bfq is loaded before the test"
grep -qw bfq $S && fail "bfq offered before loading: $(cat $S)"
load_bfq || fail "insmod $BFQ_KO failed"
mod_loaded bfq_iosched || fail "bfq_iosched not in /proc/modules after insmod"
grep -qw bfq $S || fail "bfq not offered in $S: $(cat $S)"
set_sched vda bfq || fail "cannot select bfq on vda"
grep -q '\[bfq\]' $S || fail "$S shows '$(cat $S)', expected [bfq]"
log "vda: $(cat $S)"

# some I/O through the scheduler while it is attached
fio_run --name=smoke --filename=/dev/vda --rw=randread --bs=4k --size=8m \
	--ioengine=psync --direct=1 > /tmp/smoke.t || fail "fio through bfq failed"
log "smoke read: $(fio_read_bw /tmp/smoke.t smoke) KiB/s"

if rmmod bfq_iosched 2>/dev/null; then
	fail "rmmod bfq_iosched succeeded while vda uses bfq"
fi
mod_loaded bfq_iosched || fail "bfq_iosched vanished after a refused rmmod"
log "rmmod refused while in use: good"

set_sched vda mq-deadline || fail "cannot switch vda back to mq-deadline"
rmmod bfq_iosched || fail "rmmod bfq_iosched failed after switching vda away"
mod_loaded bfq_iosched && fail "bfq_iosched still loaded after rmmod"
grep -qw bfq $S && fail "bfq still offered after rmmod: $(cat $S)"
check_dmesg
log "load/select/unload ok"
