#!/bin/sh
# where: guest
# timeout: 60
# io.bfq.weight rejects bad input: each write below must fail with the
# expected errno (EINVAL, or ENODEV for a device that is unknown or does
# not use bfq) and leave the file as it was.  Good writes still work.
. "$(dirname "$0")/lib.sh"

G=t35
cleanup() { cg_kill_rm $G; }
trap cleanup EXIT

load_bfq || fail "insmod failed"
nullb_load 'queue_mode=2' || fail "null_blk"
set_sched nullb0 bfq || fail "cannot select bfq on nullb0"
set_sched vda mq-deadline || fail "cannot select mq-deadline on vda"
D0=$(cat /sys/block/nullb0/dev) DV=$(cat /sys/block/vda/dev)
F=$CGROOT/$G/io.bfq.weight
[ ! -e $CGROOT/io.bfq.weight ] || fail "io.bfq.weight exists in the root cgroup"
cg_make $G 250 || fail "cannot create $G"
echo "$D0 300" > $F || fail "cannot write '$D0 300'"
want="default 250;$D0 300;"
[ "$(tr '\n' ';' < $F)" = "$want" ] || fail "$F reads '$(tr '\n' ';' < $F)', want '$want'"

# try ERRNO-TEXT INPUT: the write must fail with ERRNO-TEXT, file unchanged
n=0
try() {
	n=$((n + 1))
	# dd reports the errno of the failed write (printf stays silent)
	err=$(printf '%s\n' "$2" | dd of=$F bs=4096 conv=notrunc 2>&1) &&
		fail "write '$2' succeeded"
	case $err in *"$1"*) ;; *) fail "write '$2': '$err', want '$1'" ;; esac
	got=$(tr '\n' ';' < $F)
	[ "$got" = "$want" ] || fail "after write '$2' $F reads '$got'"
}
EINVAL='Invalid argument' ENODEV='No such device'
for v in 0 1001 abc -1 '' ' ' 4294967396 '100 junk' 1e2 0x10 '+ 5' 'default' \
	'default abc' 'default 0' 'default 1001' 'defaultx 100' "$D0 0" "$D0 1001" \
	"$D0 abc" "$D0 -1" "$D0" "$D0 100 200" "${D0%%:*}:" ':5 100' "$D0:1 100"; do
	try "$EINVAL" "$v"
done
try "$ENODEV" '9:9 100'
try "$ENODEV" "$DV 100"
try "$ENODEV" "$DV default"
log "$n bad writes rejected, $F unchanged: $want"

# good writes
echo "default 500" > $F && echo 600 > $F && echo "$D0 default" > $F ||
	fail "a good write failed"
[ "$(tr '\n' ';' < $F)" = "default 600;" ] || fail "after good writes $F reads '$(tr '\n' ';' < $F)'"
echo "$D0 1" > $F && echo "$D0 1000" > $F || fail "cannot write the limits 1 and 1000"
[ "$(tr '\n' ';' < $F)" = "default 600;$D0 1000;" ] || fail "limits: $F reads '$(tr '\n' ';' < $F)'"
grep -q "^/$G .* weight=1000 " /sys/kernel/debug/block/nullb0/sched/bfq_groups ||
	fail "bfq_groups: $(grep $G /sys/kernel/debug/block/nullb0/sched/bfq_groups)"

cleanup
unload_bfq || fail "rmmod failed"
check_dmesg
log "bad input ok"
