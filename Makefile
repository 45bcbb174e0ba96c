# SPDX-License-Identifier: GPL-2.0
# bfq-iosched: out-of-tree BFQ I/O scheduler for Debian 12's 6.1 kernel.
# This Makefile wraps kbuild (see ./Kbuild) and the QEMU test harness.
#
#   make            build bfq-iosched.ko and the test disk tests/hddsim/hddsim.ko
#                   (W=1 for extra warnings); installs
#                   the build packages first if one is missing (DEPS=0: not)
#   make install    install the module into /lib/modules/KVER/updates, the
#                   modprobe.d and udev files, run depmod; never loads it
#                   (DESTDIR=dir: stage under dir, no depmod on the system)
#   make uninstall  remove what "make install" put there
#   make run        build, boot the QEMU guest, select bfq, run a short demo
#   make bench      benchmarks side by side in one boot (< 30 min): results
#                   in bench/results/, table and plots in docs/benchmarks.md
#   make check      host tests + guest tests; T=name runs a single test
#                   ("make run" and "make check" run scripts/deps.sh first)
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

# The running 6.1 kernel if its headers are installed, else the newest
# installed 6.1 headers (scripts/kver.sh), unless KVER is given.
KVER ?= $(shell $(CURDIR)/scripts/kver.sh)
KDIR ?= /lib/modules/$(KVER)/build
TOPDIR := $(CURDIR)
BUILD := $(TOPDIR)/build
VERSION := $(shell cat $(TOPDIR)/VERSION)
export KVER TOPDIR

# DEPS=0 skips scripts/deps.sh (dkms builds: apt must not run under dpkg).
DEPS ?= 1
deps = $(if $(filter 1,$(DEPS)),@$(TOPDIR)/scripts/deps.sh $(1))

SRCS = $(filter-out %.mod.c,$(wildcard $(TOPDIR)/*.c)) $(wildcard $(TOPDIR)/*.h)

.PHONY: all modules ksrc deps-build run bench bench-iops shell check sparse checkpatch clean \
	distclean debug-kernel check-debug soak install uninstall

all: modules

deps-build:
	$(call deps,build)

# Private headers first (checks linux-source == linux-headers version).
ksrc: deps-build
	@scripts/ksrc.sh

# The test disk tests/hddsim/hddsim.ko (guest tests only, never installed)
# is built beside the module when its source is in the tree.
HDDSIM = $(wildcard $(TOPDIR)/tests/hddsim/Kbuild)

modules: ksrc
	$(MAKE) -C $(KDIR) M=$(TOPDIR) modules
	$(if $(HDDSIM),$(MAKE) -C $(KDIR) M=$(TOPDIR)/tests/hddsim modules)

sparse: ksrc
	$(MAKE) -C $(KDIR) M=$(TOPDIR) C=2 modules

checkpatch: ksrc
	perl $(BUILD)/ksrc/scripts/checkpatch.pl --no-tree --strict --file \
		$(notdir $(SRCS)) tests/hddsim/hddsim.c

# Boot the guest with the demo (bfqmode=run); KVM=1 to use /dev/kvm.
run:
	$(call deps,all)
	$(MAKE) DEPS=0 modules
	scripts/mkinitramfs.sh
	scripts/guest.sh run

# Benchmarks side by side (scripts/bench.sh): none, mq-deadline, kyber, the
# distro bfq and ours, one boot.  BENCH_W=1,3 picks workloads, BENCH_QUICK=1
# makes a short smoke run (results in build/bench-quick, docs untouched).
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
	$(call deps,all)
	@T='$(T)' DEPS=0 scripts/check.sh

# Sanitizer kernel (scripts/debug-kernel.config) and the tests on it; the
# module is built into build/debug-mod, not here.  Not part of "check".
debug-kernel:
	@scripts/debug-kernel.sh

check-debug:
	@T='$(T)' scripts/check-debug.sh

# Everything of the stress tests 40-44 at once, with data verification.
soak:
	@T=none GUEST_LAST=soak APPEND='$(if $(SOAK),bfqsoak=$(SOAK))' scripts/check.sh

# Install paths ("make install"): the module under updates/, which depmod
# ranks before kernel/, the modprobe.d policy file, the udev example.  With
# DESTDIR everything is staged under it and depmod runs on that tree only.
# The module is not signed here (Secure Boot: use DKMS, see README).
MODDIR_UPD = $(DESTDIR)/lib/modules/$(KVER)/updates
MODPROBE_CONF = $(DESTDIR)/etc/modprobe.d/bfq-iosched.conf
DOCDIR = $(DESTDIR)/usr/share/doc/bfq-iosched

install: modules
	$(MAKE) -C $(KDIR) M=$(TOPDIR) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=updates \
		CONFIG_MODULE_SIG_ALL= DEPMOD=/bin/true modules_install
	install -D -m 644 contrib/bfq-iosched.conf $(MODPROBE_CONF)
	install -D -m 644 contrib/60-bfq-iosched.rules $(DOCDIR)/examples/60-bfq-iosched.rules
	$(if $(DESTDIR),[ ! -d $(DESTDIR)/lib/modules/$(KVER)/kernel ] ||) \
		depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

uninstall:
	rm -f $(MODDIR_UPD)/bfq-iosched.ko $(MODPROBE_CONF)
	rm -rf $(DOCDIR)
	$(if $(DESTDIR),[ ! -d $(DESTDIR)/lib/modules/$(KVER)/kernel ] ||) \
		depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

clean:
	if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(TOPDIR) clean; fi
	$(if $(HDDSIM),if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(TOPDIR)/tests/hddsim clean; fi)
	rm -rf $(BUILD)/initramfs $(BUILD)/initramfs.cpio.gz $(BUILD)/disk.img \
		$(BUILD)/tests $(BUILD)/debug-mod $(BUILD)/initramfs-debug \
		$(BUILD)/initramfs-debug.cpio.gz $(BUILD)/disk-debug.img \
		$(BUILD)/bench-quick

distclean: clean
	rm -rf $(BUILD)
