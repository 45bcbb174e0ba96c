#!/bin/sh
# where: host
# timeout: 600
# Install paths, never loading anything: "make install DESTDIR=..." puts
# bfq-iosched.ko (with the version of ./VERSION) under updates/, where
# depmod lists it, plus the modprobe.d policy file and the udev example;
# "make uninstall" removes them.  Then "dkms build" from a copy of the tree
# into a temporary dkms tree (dkms is installed if missing) builds a signed
# module of that version; /var/lib/dkms is a private tmpfs for the run, so
# the host's DKMS key is neither read nor created.
. "$(dirname "$0")/lib.sh"
cd "$TOPDIR" || fail "no TOPDIR"
VER=$(cat VERSION)
TMP=$(mktemp -d /tmp/bfq-install.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
D=$TMP/root
M=$D/lib/modules/$KVER

# a staging root with the distro's modules.* base files and its bfq.ko, so
# that depmod runs there and sees both bfq modules
mkdir -p "$M/kernel/block"
cp "/lib/modules/$KVER/modules.order" "/lib/modules/$KVER/modules.builtin" \
	"/lib/modules/$KVER/modules.builtin.modinfo" "$M/"
distro=$(modinfo -k "$KVER" -n bfq 2>/dev/null) && [ -f "$distro" ] &&
	cp "$distro" "$M/kernel/block/"

# W=1 as tests/01-build.sh just built it: with other flags it is rebuilt
make -s install W=1 DESTDIR="$D" > "$TMP/install.log" 2>&1 ||
	{ cat "$TMP/install.log"; fail "make install DESTDIR=$D failed"; }
ko=$M/updates/bfq-iosched.ko
[ -f "$ko" ] || fail "no $ko after make install: $(find "$D" -name '*.ko')"
v=$(modinfo -F version "$ko")
[ "$v" = "$VER" ] || fail "installed module has version '$v', VERSION says $VER"
grep -q '^updates/bfq-iosched.ko:' "$M/modules.dep" ||
	fail "depmod did not list updates/bfq-iosched.ko in modules.dep"
grep -q '^install bfq .*modprobe bfq_iosched' "$D/etc/modprobe.d/bfq-iosched.conf" ||
	fail "no 'install bfq' line in the installed modprobe.d file"
[ -f "$D/usr/share/doc/bfq-iosched/examples/60-bfq-iosched.rules" ] ||
	fail "udev example not installed"
log "make install: $ko, version $v, modprobe.d and udev example in place"

make -s uninstall DESTDIR="$D" > "$TMP/uninstall.log" 2>&1 ||
	{ cat "$TMP/uninstall.log"; fail "make uninstall failed"; }
[ ! -e "$ko" ] || fail "$ko still there after make uninstall"
[ ! -e "$D/etc/modprobe.d/bfq-iosched.conf" ] || fail "modprobe.d file left by uninstall"
! grep -q 'bfq-iosched.ko' "$M/modules.dep" || fail "modules.dep still lists bfq-iosched.ko"
log "make uninstall: removed, depmod rerun"

# --- dkms build (build only)
if ! command -v dkms > /dev/null; then
	[ "$(id -u)" = 0 ] || skip "dkms not installed and not root"
	apt-get install -y --no-install-recommends dkms > "$TMP/apt.log" 2>&1 ||
		skip "dkms not installable: $(tail -n 1 "$TMP/apt.log")"
fi
[ "$(id -u)" = 0 ] || skip "dkms part needs root (private /var/lib/dkms)"
S=$TMP/src/bfq-iosched-$VER
mkdir -p "$S" "$TMP/dkms"
# what a clean clone has: tracked and new, not ignored, files (outside a
# git checkout: everything but build products)
if git rev-parse --git-dir > /dev/null 2>&1; then
	git ls-files -co --exclude-standard
else
	find . -path ./build -prune -o -type f ! -name '*.ko' ! -name '*.o' -print
fi | while read -r f; do
	[ -f "$f" ] && mkdir -p "$S/$(dirname "$f")" && cp "$f" "$S/$f"
done
[ -f "$S/dkms.conf" ] || fail "no dkms.conf in the tree"
unshare -m sh -c '
	mount -t tmpfs tmpfs /var/lib/dkms || exit 3
	dkms add -m bfq-iosched -v "$1" --sourcetree "$2" --dkmstree "$3" &&
	dkms build -m bfq-iosched -v "$1" -k "$4" --sourcetree "$2" --dkmstree "$3"
' sh "$VER" "$TMP/src" "$TMP/dkms" "$KVER" > "$TMP/dkms.log" 2>&1
rc=$?
cat "$TMP/dkms.log"
[ $rc -ne 3 ] || skip "cannot mount a private /var/lib/dkms"
[ $rc -eq 0 ] || fail "dkms add/build failed (rc $rc)"
dko=$(find "$TMP/dkms/bfq-iosched/$VER/$KVER" -name bfq-iosched.ko | head -n 1)
[ -n "$dko" ] || fail "dkms build left no bfq-iosched.ko"
v=$(modinfo -F version "$dko")
[ "$v" = "$VER" ] || fail "dkms module has version '$v', VERSION says $VER"
vm=$(modinfo -F vermagic "$dko")
case $vm in "$KVER "*) ;; *) fail "dkms module vermagic '$vm', not $KVER" ;; esac
signer=$(modinfo -F signer "$dko")
[ -n "$signer" ] || fail "dkms module is not signed (Secure Boot needs it)"
log "dkms build: $dko, version $v, signed by '$signer'"
