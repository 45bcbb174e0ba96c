# SPDX-License-Identifier: GPL-2.0
# bfq-iosched: out-of-tree BFQ I/O scheduler for Debian 12's 6.1 kernel.
# This Makefile wraps kbuild (see ./Kbuild) and the QEMU test harness.
#
#   make            build bfq-iosched.ko (W=1 for extra warnings)
#   make run        build, boot the QEMU guest, select bfq, run a short demo
#   make bench      benchmarks side by side in one boot (< 30 min): results
#                   in bench/results/, table and plots in README.md
#   make check      host tests + guest tests; T=name runs a single test
#   make sparse     build with sparse (C=2)
#   make checkpatch checkpatch.pl --strict on our *.c *.h
#   make debug-kernel  build (once, cached in /var/cache/bfq-iosched) a guest
#                   kernel with KASAN, lockdep, kmemleak, fault injection
#   make check-debug   guest tests + kmemleak scan on that kernel (T=name)
#   make soak       ~10 minutes of all stress tests at once (tests/soak.sh;
#                   SOAK=seconds); not part of check
#   make clean      remove build products (keeps the extracted kernel files
#                   in build/ksrc and the logs in build/logs)
#   make distclean  clean + remove build/ entirely
#
# Never loads anything on the host: the module only runs inside QEMU.

# Newest installed Debian amd64 headers, unless KVER is given.
KVER ?= $(shell ls -d /usr/src/linux-headers-*[0-9]-amd64 2>/dev/null | \
	sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
TOPDIR := $(CURDIR)
BUILD := $(TOPDIR)/build
export KVER TOPDIR

SRCS = $(filter-out %.mod.c,$(wildcard $(TOPDIR)/*.c)) $(wildcard $(TOPDIR)/*.h)

.PHONY: all modules ksrc run bench bench-iops shell check sparse checkpatch clean distclean \
	debug-kernel check-debug soak

all: modules

# Private headers first (checks linux-source == linux-headers version).
ksrc:
	@scripts/ksrc.sh

modules: ksrc
	$(MAKE) -C $(KDIR) M=$(TOPDIR) modules

sparse: ksrc
	$(MAKE) -C $(KDIR) M=$(TOPDIR) C=2 modules

checkpatch: ksrc
	perl $(BUILD)/ksrc/scripts/checkpatch.pl --no-tree --strict --file \
		$(notdir $(SRCS))

# Boot the guest with the demo (bfqmode=run); KVM=1 to use /dev/kvm.
run: modules
	scripts/mkinitramfs.sh
	scripts/guest.sh run

# Benchmarks side by side (scripts/bench.sh): none, mq-deadline, kyber, the
# distro bfq and ours, one boot.  BENCH_W=1,3 picks workloads, BENCH_QUICK=1
# makes a short smoke run (results in build/bench-quick, README untouched).
bench: modules
	scripts/bench.sh

# Workload 1 alone (CPU cost: IOPS, profile), results as for "make bench".
bench-iops: modules
	BENCH_W=1 scripts/bench.sh

# Interactive busybox shell in the guest (Ctrl-A x quits QEMU).
shell: modules
	scripts/mkinitramfs.sh
	scripts/guest.sh shell

check:
	@T='$(T)' scripts/check.sh

# Sanitizer kernel (scripts/debug-kernel.config) and the tests on it; the
# module is built into build/debug-mod, not here.  Not part of "check".
debug-kernel:
	@scripts/debug-kernel.sh

check-debug:
	@T='$(T)' scripts/check-debug.sh

# Everything of the stress tests 40-44 at once, with data verification.
soak:
	@T=none GUEST_LAST=soak APPEND='$(if $(SOAK),bfqsoak=$(SOAK))' scripts/check.sh

clean:
	if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(TOPDIR) clean; fi
	rm -rf $(BUILD)/initramfs $(BUILD)/initramfs.cpio.gz $(BUILD)/disk.img \
		$(BUILD)/tests $(BUILD)/debug-mod $(BUILD)/initramfs-debug \
		$(BUILD)/initramfs-debug.cpio.gz $(BUILD)/disk-debug.img \
		$(BUILD)/bench-quick

distclean: clean
	rm -rf $(BUILD)
