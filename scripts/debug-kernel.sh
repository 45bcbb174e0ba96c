#!/bin/sh
# Build (once) the sanitizer guest kernel behind "make check-debug": KASAN,
# lockdep, kmemleak, fault injection, ... (scripts/debug-kernel.config),
# from the same Debian tarball as the private headers, trimmed for speed
# (scripts/debug-kernel-trim.config).  The result is cached outside the repo:
#   $DK_CACHE/<linux-source version>-<hash of config fragments>/
#     linux/    the built tree (make -C linux M=... builds external modules)
#     bzImage   the kernel QEMU boots
#     modroot/  modules_install INSTALL_MOD_PATH (lib/modules/<release>/)
#     release   the kernel release (uname -r in the guest)
#     done      written last: the cache entry is complete
# A second run only prints the cache directory.  An interrupted build
# resumes (make is incremental) on the next run.
# Usage: scripts/debug-kernel.sh [--print]   (--print: print the cache
#        directory, exit 1 if it is not built yet; builds nothing)
# Env: DK_CACHE (default /var/cache/bfq-iosched/debug-kernel), DK_JOBS (2).
# The compile runs under nice -n 19 and ionice -c3: it must not disturb
# QEMU timing runs on the same machine.
set -eu
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/.." && pwd)}
KSRC_PKG=${KSRC_PKG:-linux-source-6.1}
KSRC_TAR=${KSRC_TAR:-/usr/src/$KSRC_PKG.tar.xz}
DK_CACHE=${DK_CACHE:-/var/cache/bfq-iosched/debug-kernel}
DK_JOBS=${DK_JOBS:-2}
REQ=$TOPDIR/scripts/debug-kernel.config
TRIM=$TOPDIR/scripts/debug-kernel-trim.config

die() { echo "debug-kernel.sh: $*" >&2; exit 1; }

sv=$(dpkg-query -W -f='${Version}' "$KSRC_PKG" 2>/dev/null) ||
	die "package $KSRC_PKG is not installed (run scripts/deps.sh)"
[ -r "$KSRC_TAR" ] || die "$KSRC_TAR not found (package $KSRC_PKG)"
# The key covers the fragments and the compiler (KASAN code depends on it).
key=$( { cat "$REQ" "$TRIM"; gcc --version | head -n 1; } | sha256sum | cut -c1-12)
C=$DK_CACHE/$sv-$key

if [ "${1:-}" = --print ]; then
	[ -f "$C/done" ] || exit 1
	echo "$C"
	exit 0
fi
if [ -f "$C/done" ]; then
	echo "  DEBUG-KERNEL cached: $C ($(cat "$C/release"))"
	exit 0
fi

# Build tools the distro headers do not need (idempotent, root).
installed() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^ii'; }
missing=
for p in flex bison libelf-dev libssl-dev bc gcc make xz-utils; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (install them as root)"
	echo "  APT$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends $missing ||
		{ apt-get update && apt-get install -y --no-install-recommends $missing; } ||
		die "cannot install$missing"
fi

mkdir -p "$C"
exec 9> "$C/.lock"
flock -n 9 || { echo "  DEBUG-KERNEL another build holds $C/.lock; waiting"; flock 9; }
[ ! -f "$C/done" ] || { echo "  DEBUG-KERNEL cached: $C"; exit 0; }

K=$C/linux
log=$C/build.log
low() { nice -n 19 ionice -c3 "$@"; }
start=$(date +%s)
echo "  DEBUG-KERNEL building in $C (log $log; about 20 min on 2 cores)"

if [ ! -f "$K/Makefile" ]; then
	echo "  EXTRACT $KSRC_TAR ($sv)"
	rm -rf "$K" "$C/extract"
	mkdir -p "$C/extract"
	low tar -xJf "$KSRC_TAR" -C "$C/extract"
	mv "$C/extract"/* "$K"
	rmdir "$C/extract"
fi

# scripts/config line for one fragment line NAME=VALUE
apply() {
	grep -E '^CONFIG_[A-Za-z0-9_]+=' "$1" | while IFS= read -r l; do
		n=${l%%=*}; n=${n#CONFIG_}; v=${l#*=}
		case $v in
		y) echo "--enable $n" ;;
		m) echo "--module $n" ;;
		n) echo "--disable $n" ;;
		\"*) echo "--set-str $n $(echo "$v" | sed 's/^"//; s/"$//')" ;;
		*) echo "--set-val $n $v" ;;
		esac
	done
}
# (Re)configure unless .config is from these very fragments.
if ! cmp -s "$K/.bfq-config-key" - <<EOF
$key
EOF
then
	echo "  CONFIG defconfig + kvm_guest.config + $(basename "$TRIM") + $(basename "$REQ")"
	(
		cd "$K"
		low make -s defconfig
		low make -s kvm_guest.config
		# shellcheck disable=SC2046 # one word per option argument
		scripts/config $(apply "$TRIM")
		# shellcheck disable=SC2046
		scripts/config $(apply "$REQ")
		low make -s olddefconfig
	) > "$log" 2>&1 || { tail -n 20 "$log" >&2; die "configuration failed (log $log)"; }
	# Verify: olddefconfig drops what cannot be had without saying so.
	bad=
	for l in $(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$REQ" | tr -d ' '); do
		n=${l%%=*}; v=${l#*=}
		if [ "$v" = n ]; then
			grep -q "^$n=" "$K/.config" && bad="$bad $n=n(is $(sed -n "s/^$n=//p" "$K/.config"))"
		else
			grep -qx "$l" "$K/.config" || bad="$bad $l(is $(sed -n "s/^$n=//p" "$K/.config" | grep . || echo unset))"
		fi
	done
	[ -z "$bad" ] || die "required options did not survive olddefconfig:$bad (fix $REQ)"
	echo "$key" > "$K/.bfq-config-key"
	echo "  CONFIG ok: every option of $(basename "$REQ") is set"
fi

echo "  MAKE -j$DK_JOBS bzImage modules (nice 19, ionice idle)"
(cd "$K" && low make -j"$DK_JOBS" bzImage modules) >> "$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; die "kernel build failed (log $log)"; }
rel=$(cd "$K" && make -s kernelrelease)
rm -rf "$C/modroot"
(cd "$K" && low make -s INSTALL_MOD_PATH="$C/modroot" modules_install) >> "$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; die "modules_install failed (log $log)"; }
cp "$K/arch/x86/boot/bzImage" "$C/bzImage"
echo "$rel" > "$C/release"
secs=$(( $(date +%s) - start ))
echo "$sv $key built in ${secs}s on $(nproc) cpus" > "$C/done"
echo "  DEBUG-KERNEL $rel built in $((secs / 60))m$((secs % 60))s: $C"
