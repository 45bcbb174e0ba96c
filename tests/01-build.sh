#!/bin/sh
# where: host
# timeout: 600
# bfq-iosched.ko builds from scratch with W=1 and no warning (compiler
# "warning:" or modpost "WARNING:", e.g. a section mismatch), and modinfo
# shows a GPL license and a vermagic for $KVER.
. "$(dirname "$0")/lib.sh"
cd "$TOPDIR" || fail "no TOPDIR"
out=$TOPDIR/build/logs/build-w1.log

# from scratch, or an up-to-date build would hide the warnings
make -s -C "/lib/modules/$KVER/build" M="$TOPDIR" clean > /dev/null 2>&1
make W=1 > "$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "W=1 build failed: $(grep -m 1 'error' "$out")"
WARN_RE='warning:|WARNING:'
if grep -qE "$WARN_RE" "$out"; then
	fail "W=1 build has $(grep -cE "$WARN_RE" "$out") warning(s), first: $(grep -m 1 -E "$WARN_RE" "$out")"
fi
[ -f bfq-iosched.ko ] || fail "no bfq-iosched.ko after the build"

lic=$(modinfo -F license bfq-iosched.ko)
case $lic in
GPL|"GPL v2") ;;
*) fail "license is '$lic', expected GPL" ;;
esac
vm=$(modinfo -F vermagic bfq-iosched.ko)
case $vm in
"$KVER "*) ;;
*) fail "vermagic '$vm' does not start with $KVER" ;;
esac
name=$(modinfo -F name bfq-iosched.ko)
[ "$name" = bfq_iosched ] || fail "module name is '$name', expected bfq_iosched"
log "build ok: license $lic, vermagic $vm"
