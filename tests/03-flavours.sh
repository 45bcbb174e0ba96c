#!/bin/sh
# where: host
# timeout: 600
# The module builds with W=1 and no warning for every Debian 12 amd64
# flavour (amd64, cloud-amd64, rt-amd64) whose headers are installed at
# the ABI of $KVER, each in a copy of the tree, and gets that kernel's
# vermagic.  Build only: only $KVER's flavour is booted by "make check".
# Skips when no other flavour's headers are installed.
. "$(dirname "$0")/lib.sh"
cd "$TOPDIR" || fail "no TOPDIR"
abi=$(echo "$KVER" | sed -n 's/^\(6\.1\.0-[0-9]*\)-.*/\1/p')
[ -n "$abi" ] || skip "KVER $KVER is not a Debian 6.1 ABI"
make -s DEPS=0 ksrc || fail "cannot extract the private headers"
TMP=$(mktemp -d /tmp/bfq-flavours.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
n=0 others=0
for fl in amd64 cloud-amd64 rt-amd64; do
	kv=$abi-$fl
	[ -e "/lib/modules/$kv/build/Makefile" ] || { log "$kv: no headers, not built"; continue; }
	[ "$kv" = "$KVER" ] || others=$((others + 1))
	d=$TMP/$fl
	mkdir -p "$d/build"
	cp ./*.c ./*.h Kbuild Makefile VERSION "$d/" && cp -r scripts "$d/" &&
		cp -r build/ksrc "$d/build/" || fail "cannot copy the tree"
	(cd "$d" && make DEPS=0 W=1 KVER="$kv" > build.log 2>&1) ||
		{ cat "$d/build.log"; fail "$kv: build failed"; }
	w=$(grep -c 'warning:' "$d/build.log")
	[ "$w" -eq 0 ] || fail "$kv: $w warning(s), first: $(grep -m 1 'warning:' "$d/build.log")"
	vm=$(modinfo -F vermagic "$d/bfq-iosched.ko")
	case $vm in "$kv "*) ;; *) fail "$kv: vermagic '$vm'" ;; esac
	log "$kv: built, no warning, vermagic '$vm'"
	n=$((n + 1))
done
[ "$others" -gt 0 ] || skip "only $KVER's headers are installed (apt-get install linux-headers-$abi-cloud-amd64 linux-headers-$abi-rt-amd64)"
log "$n flavours built"
