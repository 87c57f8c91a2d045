# SPDX-License-Identifier: GPL-2.0
#
# nsight top-level build.
#
#   make              module/nsight.ko (against KDIR) + nsightctl + nsight-analyze
#   make deps         install the Debian packages the build and tests need
#   make check        every test suite; ends with "N passed, N failed, N skipped"
#                     (its igb guest runs QEMU 10 from bookworm-backports,
#                     which scripts/qemu-igb.sh fetches to /var/cache/nsight)
#   make demo         boot a guest, capture a workload, print the diagnosis
#   make bench        tracing overhead (ratios to no tracing) and cost per
#                     record, in a guest under -icount, nsight-analyze's
#                     throughput, the fleet view's scale (build/bench/)
#   make bench-fleet  the fleet view's part alone: the export rate, the
#                     fleet queries over 100 M synthetic messages
#   make modules-all  build the module against every supported Debian kernel
#   make lint         checkpatch + sparse on the module, userspace/lib's layers
#   make install      the tools, man pages, bash completion and uapi header
#                     under $(DESTDIR)$(PREFIX) (PREFIX=/usr/local)
#   make install-dkms the module's sources and dkms.conf under
#                     $(DESTDIR)/usr/src/nsight-<version> for DKMS
#
# KDIR defaults to the running kernel's build tree, or to the installed
# Debian 6.12 headers when the running kernel has none.

DEBIAN_612 := $(lastword $(sort $(wildcard /lib/modules/6.12.*-amd64/build)))
DEBIAN_61  := $(lastword $(sort $(wildcard /lib/modules/6.1.*-amd64/build)))
ifeq ($(KDIR),)
KDIR := $(wildcard /lib/modules/$(shell uname -r)/build)
ifeq ($(KDIR),)
KDIR := $(DEBIAN_612)
endif
endif

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(DESTDIR)$(PREFIX)/bin
MANDIR  := $(DESTDIR)$(PREFIX)/share/man
COMPDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
INCDIR  := $(DESTDIR)$(PREFIX)/include/linux
HDRDIR  := $(DESTDIR)$(PREFIX)/include
DOCDIR  := $(DESTDIR)$(PREFIX)/share/doc/nsight
DKMSDIR := $(DESTDIR)/usr/src/nsight-$(VERSION)

.PHONY: all module userspace deps check bench bench-fleet demo modules-all lint clean help install install-dkms

all: module userspace

module:
	@test -n "$(KDIR)" || { echo "no kernel build tree: run 'make deps' or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

deps:
	scripts/deps.sh

check:
	scripts/deps.sh --if-missing
	scripts/check.sh

demo:
	scripts/deps.sh --if-missing
	scripts/demo.sh

bench:
	NSIGHT_BENCH=1 scripts/deps.sh --if-missing
	scripts/bench.sh

bench-fleet:
	scripts/deps.sh --if-missing
	scripts/bench-fleet.sh

modules-all:
	scripts/build-modules.sh

install: userspace
	install -d $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man4 $(MANDIR)/man8 $(COMPDIR) \
		$(INCDIR) $(DOCDIR)
	install -m 0755 userspace/nsightctl userspace/nsight-analyze $(BINDIR)/
	install -m 0644 Documentation/nsight-analyze.1 $(MANDIR)/man1/
	install -m 0644 Documentation/nsight.4 $(MANDIR)/man4/
	install -m 0644 Documentation/nsightctl.8 $(MANDIR)/man8/
	install -m 0644 userspace/completion/nsightctl $(COMPDIR)/nsightctl
	install -m 0644 userspace/completion/nsight-analyze $(COMPDIR)/nsight-analyze
	install -m 0644 uapi/linux/nsight.h $(INCDIR)/nsight.h
	install -m 0644 userspace/include/nsight_request.h $(HDRDIR)/nsight_request.h
	install -m 0644 Documentation/nsight.rst README $(DOCDIR)/

# What DKMS builds from: the top Kbuild, module/ and uapi/, no objects.
install-dkms:
	install -d $(DKMSDIR)/module/tests $(DKMSDIR)/uapi/linux
	install -m 0644 dkms.conf Kbuild $(DKMSDIR)/
	install -m 0644 module/Kbuild module/*.c module/*.h $(DKMSDIR)/module/
	install -m 0644 module/tests/*.c $(DKMSDIR)/module/tests/
	install -m 0644 uapi/linux/nsight.h $(DKMSDIR)/uapi/linux/

lint:
	scripts/lint.sh

clean:
	$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean,)
	$(MAKE) -C userspace clean
	rm -rf build

help:
	@sed -n '3,19p' Makefile | sed 's/^# \{0,1\}//'
