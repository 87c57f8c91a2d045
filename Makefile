# SPDX-License-Identifier: GPL-2.0
#
# nsight top-level build.
#
#   make              module/nsight.ko (against KDIR) + nsightctl + nsight-analyze
#   make deps         install the Debian packages the build and tests need
#   make check        every test suite; ends with "N passed, N failed, N skipped"
#   make demo         boot a guest, capture a workload, print the diagnosis
#   make modules-all  build the module against every supported Debian kernel
#   make lint         checkpatch + sparse on the module
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

.PHONY: all module userspace deps check demo modules-all lint clean help

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

modules-all:
	scripts/build-modules.sh

lint:
	scripts/lint.sh

clean:
	$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean,)
	$(MAKE) -C userspace clean
	rm -rf build

help:
	@sed -n '3,13p' Makefile | sed 's/^# \{0,1\}//'
