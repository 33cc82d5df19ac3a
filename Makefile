# qdiscctl: one static binary with its BPF qdiscs compiled in as skeletons.
#
#   make deps     install and build every dependency (fresh Debian bookworm)
#   make          build ./qdiscctl
#   make check    host unit tests, every VM test case, the smoke subset on older kernels
#   make fuzz     the libFuzzer targets (tests/fuzz), FUZZ_SECONDS (60) each
#   make alt      build/alt/qdiscctl: a second build whose fifo program differs
#   make vmtools  build the VM test tools (tests/vm/tools/*.c) into build/vmtools
#   make demo     deps + build + the demo in the VM
#   make vmlinux  regenerate bpf/vmlinux.h from the test kernel's BTF
#   make format   clang-format the C sources
#   make man      regenerate doc/qdiscctl.8 from the binary (committed)
#   make install  binary, man page, bash completion, systemd units (the exporter's
#                 socket among them) and an example config under $(DESTDIR)$(PREFIX)

VERSION    := 0.1.0
BUILD      ?= build
DEPS       ?= $(BUILD)/deps
OBJ        := $(BUILD)/obj

# make predefines CC (as cc), so "CC ?= gcc" would never apply: gcc
# unless CC comes from the command line or the environment.
ifeq ($(origin CC),default)
CC         := gcc
endif
CLANG      ?= clang-16
LLVM_STRIP ?= llvm-strip-16
BPFTOOL    ?= $(DEPS)/bin/bpftool
Q          := $(if $(V),,@)
msg         = $(if $(V),,@printf '  %-8s %s\n' '$(1)' '$(2)';)

BIN        ?= qdiscctl
# -Os and section garbage collection keep the static binary under 2 MB
# (issue 6); its time goes to syscalls, not to code -O2 would speed up.
CFLAGS     ?= -Os -g
WARN       := -Wall -Wextra -Wvla -Werror
# No .eh_frame for our own code (16 KB): it is C that neither throws nor
# unwinds itself; -g still gives debuggers .debug_frame.
GC_SECTIONS := -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables
CPPFLAGS   := -I. -I$(OBJ) -I$(DEPS)/libbpf/include -I$(DEPS)/libbpf/include/uapi \
	      -I$(DEPS)/libmnl/include -D_GNU_SOURCE -DQDISCCTL_VERSION='"$(VERSION)"' $(TEST_DEFS)
LDLIBS     := $(DEPS)/libbpf/lib/libbpf.a $(DEPS)/libmnl/lib/libmnl.a -l:libelf.a -l:libz.a
# The BPF programs' target arch, as the kernel's tools name it (bpf_tracing.h
# reads it): from ARCH, or the build machine's `uname -m`. bpf/vmlinux.h is
# generated from the test kernel's BTF (make vmlinux) for the same arch.
ARCH       ?= $(shell uname -m)
BPF_ARCH   := $(shell echo '$(ARCH)' | sed -e 's/x86_64\|i.86\|amd64/x86/' -e 's/aarch64/arm64/' \
		-e 's/arm[^6].*/arm/' -e 's/ppc64.*/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/' \
		-e 's/loongarch64/loongarch/' -e 's/mips.*/mips/')
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -fms-extensions -Wno-microsoft-anon-tag \
	      -Wall -Werror -I bpf -I$(DEPS)/libbpf/include $(BPF_DEFS)

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
SKELS      := $(patsubst bpf/%.bpf.c,$(OBJ)/%.skel.h,$(BPF_SRCS))
# One variable per layer, bottom to top (README, Design: Layers).
LIB_SRCS     := $(wildcard lib/*.c)
NETLINK_SRCS := $(wildcard netlink/*.c)
KINDS_SRCS   := $(wildcard kinds/*.c)
SYSCTL_SRCS  := $(wildcard sysctl/*.c)
CORE_SRCS    := $(wildcard core/*.c)
CMD_SRCS     := $(wildcard cmd/*.c)
MAIN_SRCS    := qdiscctl.c
SRCS       := $(LIB_SRCS) $(NETLINK_SRCS) $(KINDS_SRCS) $(SYSCTL_SRCS) $(CORE_SRCS) $(CMD_SRCS) \
	      $(MAIN_SRCS)
OBJS       := $(patsubst %.c,$(OBJ)/%.o,$(SRCS))
# What each object includes, as the compiler found it (-MMD); -MP keeps a
# removed header from stopping the build.
DEPFLAGS    = -MMD -MP -MF $(@:.o=.d) -MT $@

FUZZ_SECONDS ?= 60

.PHONY: all deps check unit fuzz vmtest vmtools demo vmlinux format clean distclean man install alt testbin
.DELETE_ON_ERROR:
.SECONDARY:

all: $(BIN)

# After the first rule: a .d's rules must not become the default goal.
-include $(OBJS:.o=.d) $(patsubst %.skel.h,%.bpf.d,$(SKELS))

deps:
	scripts/deps.sh

$(DEPS)/ok:
	@echo "dependencies missing: run 'make deps' first" >&2; exit 1

$(BIN): $(OBJS) | $(DEPS)/ok
	$(call msg,LINK,$@)
	$(Q)$(CC) -static $(CFLAGS) -Wl,--gc-sections -o $@ $^ $(LDLIBS)

# The skeletons come first: the kinds' descriptors include them, and until
# an object's .d exists nothing says which of them it needs.
$(OBJ)/%.o: %.c | $(SKELS) $(DEPS)/ok
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(GC_SECTIONS) $(WARN) $(DEPFLAGS) -c -o $@ $<

# The relocations of .BTF and .BTF.ext are a linker's: libbpf skips every
# relocation section but those of code, maps and struct_ops, and dropping
# them takes 12 KB off each embedded object.
$(OBJ)/%.bpf.o: bpf/%.bpf.c | $(DEPS)/ok
	@mkdir -p $(dir $@)
	$(call msg,CLANG,$<)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c -o $@.tmp $<
	$(Q)$(LLVM_STRIP) -g --remove-section=.rel.BTF --remove-section=.rel.BTF.ext -o $@ $@.tmp && \
		rm -f $@.tmp

$(OBJ)/%.skel.h: $(OBJ)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# The same qdiscctl with another fifo program body (its ring counters start
# at 7): tests/vm/run ships it as qdiscctl-alt for the upgrade test.
alt:
	$(Q)$(MAKE) --no-print-directory OBJ=$(BUILD)/alt/obj BIN=$(BUILD)/alt/qdiscctl \
		BPF_DEFS=-DFIFO_FIRST_POS=7 $(BUILD)/alt/qdiscctl

# The same qdiscctl with the kill hook (lib/testkill.h) built in:
# tests/vm/run ships it as qdiscctl-test for 17-kill. The shipped binary
# carries no hook.
testbin:
	$(Q)$(MAKE) --no-print-directory OBJ=$(BUILD)/test/obj BIN=$(BUILD)/test/qdiscctl \
		TEST_DEFS=-DQD_TEST_HOOKS $(BUILD)/test/qdiscctl

vmlinux:
	scripts/gen-vmlinux-h.sh bpf/vmlinux.h

# Traffic tools for the VM cases: static, no libraries; tests/vm/run ships
# them as /usr/local/bin/NAME.
VMTOOLS    := $(patsubst tests/vm/tools/%.c,$(BUILD)/vmtools/%,$(wildcard tests/vm/tools/*.c))
vmtools: $(VMTOOLS)

$(BUILD)/vmtools/%: tests/vm/tools/%.c $(wildcard tests/vm/tools/*.h)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) -static -O2 $(WARN) -D_GNU_SOURCE -o $@ $<

# The unit tests compile what they test themselves; test_fq and test_prio
# include the skeletons.
unit: $(SKELS)
	$(Q)$(MAKE) -s -C tests/unit BUILD=$(abspath $(BUILD)) DEPS=$(abspath $(DEPS))

# clang-16's fuzzer runtime is libclang-rt-16-dev; the kinds' descriptors
# need their skeleton headers.
fuzz: $(SKELS) | $(DEPS)/ok
	$(Q)$(MAKE) -s -C tests/fuzz BUILD=$(abspath $(BUILD)) DEPS=$(abspath $(DEPS)) \
		CLANG=$(CLANG) FUZZ_SECONDS=$(FUZZ_SECONDS)

# deps first: a no-op in a second when everything is there.
check: deps
	$(MAKE) qdiscctl vmtools alt testbin
	tests/run-all

vmtest: qdiscctl vmtools alt testbin
	tests/vm/run

demo: deps
	$(MAKE) qdiscctl
	tests/vm/run -v tests/vm/demo.sh

# The man page is generated from the command table and the kinds'
# descriptors, and committed so that installing needs no build of it;
# tests/host/agreement.sh fails when it is out of date.
man: qdiscctl
	$(call msg,GEN,doc/qdiscctl.8)
	$(Q)mkdir -p doc && ./qdiscctl __man > doc/qdiscctl.8.tmp && mv doc/qdiscctl.8.tmp doc/qdiscctl.8

PREFIX     ?= /usr/local
DESTDIR    ?=
# systemd looks here for units of /usr/local too.
UNITDIR    ?= $(PREFIX)/lib/systemd/system
install: $(BIN)
	install -D -m 0755 -s qdiscctl $(DESTDIR)$(PREFIX)/sbin/qdiscctl
	install -D -m 0644 doc/qdiscctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/qdiscctl.8
	install -D -m 0644 completions/qdiscctl.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/qdiscctl
	install -D -m 0644 doc/qdiscctl.conf.example \
		$(DESTDIR)$(PREFIX)/share/doc/qdiscctl/qdiscctl.conf.example
	install -d $(DESTDIR)$(UNITDIR)
	for u in qdiscctl.service qdiscctl-watch.service qdiscctl-exporter.socket \
		qdiscctl-exporter@.service; do \
		sed 's|@SBINDIR@|$(PREFIX)/sbin|g' systemd/$$u.in > $(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done

format:
	clang-format -i $(filter-out bpf/vmlinux.h,$(wildcard *.c *.h lib/*.[ch] netlink/*.[ch] kinds/*.[ch] sysctl/*.[ch] core/*.[ch] cmd/*.[ch] bpf/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch]))

clean:
	rm -rf $(OBJ) $(BUILD)/vmtools $(BUILD)/fuzz qdiscctl

distclean:
	rm -rf $(BUILD) qdiscctl

# Benchmarks (bench/README.md): native vs BPF qdiscs in one icount VM boot,
# about 22 minutes; not part of `make check`. bench-check holds the latest
# results (bench/results/latest.json) to the floors in bench/summarize.py.
.PHONY: bench bench-check
bench: qdiscctl
	bench/run
bench-check:
	bench/summarize.py check bench/results/latest.json
