#!/bin/sh
# Build the guest initramfs build/initramfs.cpio.gz: static busybox, fio with
# its shared libraries, the distro modules the tests use, our module, the
# tests and /init (scripts/guest-init.sh).
# Usage: scripts/mkinitramfs.sh   (env: KVER, TOPDIR, and for another
# kernel, e.g. the sanitizer one of "make check-debug":
#   MODBASE  root its modules are installed under (MODBASE/lib/modules/KVER;
#            default /); modules built into that kernel are skipped
#   KO       our module (default ./bfq-iosched.ko)
#   HDDSIM_KO  the test disk (default tests/hddsim/hddsim.ko; left out,
#            with a note, if missing or built for another kernel)
#   OUT      the image (default build/initramfs.cpio.gz; the staging tree
#            is OUT without .cpio.gz)
# A kernel without a bfq.ko (IOSCHED_BFQ=n) gets no distro-bfq.ko: then
# load_distro_bfq fails and what needs it must skip.)
set -eu
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
KVER=${KVER:-$("$TOPDIR"/scripts/kver.sh)}
B=$TOPDIR/build
OUT=${OUT:-$B/initramfs.cpio.gz}
R=${OUT%.cpio.gz}
MODBASE=${MODBASE:-}
MODDIR=$MODBASE/lib/modules/$KVER
KO=${KO:-$TOPDIR/bfq-iosched.ko}
HDDSIM_KO=${HDDSIM_KO:-$TOPDIR/tests/hddsim/hddsim.ko}

die() { echo "mkinitramfs.sh: $*" >&2; exit 1; }
[ -f "$KO" ] || die "$KO not built (run make)"
[ -d "$MODDIR/kernel" ] || die "$MODDIR/kernel missing: install linux-image-$KVER"
[ -x /bin/busybox ] || die "/bin/busybox missing: install busybox-static"

rm -rf "$R"
mkdir -p "$R"/bin "$R"/dev "$R"/proc "$R"/sys "$R"/tmp "$R"/etc "$R"/root \
	"$R"/lib/bfq "$R"/lib/modules-extra "$R"/usr/lib "$R"/lib64 "$R/lib/modules/$KVER"
ln -s bin "$R"/sbin
ln -s ../bin "$R"/usr/bin
ln -s ../bin "$R"/usr/sbin

# busybox and one symlink per applet
cp /bin/busybox "$R"/bin/busybox
for a in $(/bin/busybox --list); do
	[ -e "$R/bin/$a" ] || ln -s busybox "$R/bin/$a"
done

# copy a dynamic binary and everything ldd says it needs (incl. ld.so)
copy_bin() {
	rm -f "$R/bin/$(basename "$1")"
	cp "$1" "$R/bin/"
	ldd "$1" | awk '/=> \//{print $3} /^[ \t]*\//{print $1}' | while read -r lib; do
		[ -e "$R$lib" ] && continue
		mkdir -p "$R$(dirname "$lib")"
		cp -L "$lib" "$R$lib"
	done
}
copy_bin /usr/bin/fio
# The users' tracing tools, for tests/13 and the profile of "make bench"
# (packages trace-cmd, blktrace, linux-perf), and kmod's modprobe/depmod
# for tests/14 (busybox's stay the default).
for b in /usr/bin/trace-cmd /usr/sbin/blktrace /usr/bin/blkparse /usr/bin/kmod; do
	if [ -x "$b" ]; then copy_bin "$b"
	else echo "  INITRAMFS note: no $b; tests/13, 14 skip what needs it"; fi
done
if [ -x /usr/bin/perf ] && /usr/bin/perf --version > /dev/null 2>&1; then
	copy_bin /usr/bin/perf
else
	echo "  INITRAMFS note: no working /usr/bin/perf (linux-perf); tests/13 and the bench profile skip it"
fi

# Distro modules and their dependencies, installed under the normal path so
# that busybox modprobe works with a depmod run on this small tree.
mi() {
	if [ -n "$MODBASE" ]; then modinfo -b "$MODBASE" -k "$KVER" "$@"
	else modinfo -k "$KVER" "$@"; fi
}
modpath() { mi -n "$1"; }
add_mod() {
	p=$(modpath "$1") || die "module $1 not found for $KVER"
	case $p in /*) ;; *) return 0 ;; esac	# "(builtin)"
	g=${p#"$MODBASE"}	# its path in the guest
	[ -e "$R$g" ] && return 0
	mkdir -p "$R$(dirname "$g")"
	cp "$p" "$R$g"
	for d in $(mi -F depends "$1" | tr ',' ' '); do
		add_mod "$d"
	done
}
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev \
	virtio_pci virtio_blk configfs null_blk scsi_debug sd_mod \
	crct10dif_generic kyber-iosched; do
	add_mod "$m"
done
cp "$MODDIR"/modules.builtin "$MODDIR"/modules.builtin.modinfo "$MODDIR"/modules.order "$R/lib/modules/$KVER/"
depmod -b "$R" "$KVER"

# Our module and the distro bfq live outside /lib/modules so that nothing
# (modprobe, the kernel's "bfq-iosched" autoload) can pick either up
# implicitly: tests load exactly the one they want with insmod.
cp "$KO" "$R"/lib/bfq/bfq-iosched.ko
cp "$TOPDIR"/contrib/bfq-iosched.conf "$R"/lib/bfq/	# what make install puts in modprobe.d
if p=$(modpath bfq 2>/dev/null) && [ -f "$p" ]; then
	cp "$p" "$R"/lib/modules-extra/distro-bfq.ko
else
	echo "  INITRAMFS note: $KVER has no bfq.ko; no distro-bfq.ko in the guest"
fi

# the seek-modelled test disk, also outside /lib/modules (tests insmod it)
if [ -f "$HDDSIM_KO" ] && [ "$(modinfo -F vermagic "$HDDSIM_KO" | cut -d' ' -f1)" = "$KVER" ]; then
	cp "$HDDSIM_KO" "$R"/lib/bfq/hddsim.ko
else
	echo "  INITRAMFS note: no $HDDSIM_KO for $KVER; tests needing hddsim skip"
fi

# tests (the files only: tests/hddsim/ is the source of hddsim.ko), helpers, init
mkdir -p "$R"/tests
for f in "$TOPDIR"/tests/*; do
	[ -d "$f" ] || cp -L "$f" "$R"/tests/
done
mkdir -p "$R"/scripts
cp "$TOPDIR"/scripts/guest-demo.sh "$TOPDIR"/scripts/guest-bench.sh "$R"/scripts/
cp "$TOPDIR"/scripts/guest-init.sh "$R"/init
chmod +x "$R"/init
echo "$KVER" > "$R"/etc/kver

(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "  INITRAMFS $OUT ($(du -h "$OUT" | cut -f1))"
