# SPDX-License-Identifier: GPL-2.0
# memwatch build: bpf/*.bpf.c -> build/*.bpf.o -> build/*.skel.h (bpftool)
# -> user objects -> build/memwatch. `make V=1` shows full commands.

CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
BUILD    := build
VERSION  := 0.1.0

CFLAGS   ?= -O2 -g
# user/ shows the data flow: process/ (the process and its objects),
# symbols/, stacks/ (unwind tables and stack walks), probes/ (what to
# attach, and attaching it), read/ (structures
# read from the target's memory by their DWARF types), sample/ (reading
# the maps), session/ (one run, over those), export/ (the feeds and
# files), web/ (the HTTP server, its page and API); options, privileges
# and the main loop at its top.
# Headers are included by their path from user/ ("probes/attach.h").
USER_DIRS := user user/process user/symbols user/stacks user/probes user/read user/sample user/session user/export user/web
CFLAGS   += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE \
	    -Iinclude -Iuser -I$(BUILD) -DMEMWATCH_VERSION='"$(VERSION)"'
LDLIBS   := -lbpf -lelf -lz -liberty -lmicrohttpd -lcapstone -lprotobuf-c -ljson-c -lpthread \
	    -lyaml -lgnutls -lcrypt
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall \
	      -Iinclude -Ivmlinux

# Debian packages the build and the tests need; `make deps` installs the
# missing ones (as root), and every top-level target runs it first.
DEB_PKGS := clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev pkg-config \
	    libcriterion-dev libiberty-dev libmicrohttpd-dev libcapstone-dev libdw-dev libc6-dbg libclang-rt-14-dev prometheus libjemalloc-dev \
	    libgoogle-perftools-dev libmimalloc-dev redis-server gcc g++ make util-linux curl \
	    libprotobuf-c-dev protobuf-c-compiler golang-github-google-pprof-dev golang-go \
	    man-db groff-base bsdextrautils systemd python3-yaml \
	    libyaml-dev libgnutls28-dev libcrypt-dev openssl apache2-utils \
	    libjson-c-dev libjs-dygraphs xxd chromium

USER_SRCS := $(wildcard $(addsuffix /*.c,$(USER_DIRS)))
USER_HDRS := $(wildcard $(addsuffix /*.h,$(USER_DIRS)))
# pprof's profile.proto, as Debian's golang-github-google-pprof-dev
# installs it, compiled by protoc-c into build/ (user/export/pprof.c)
PROFILE_PROTO := /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
PROFILE_GEN   := $(BUILD)/profile.pb-c.c $(BUILD)/profile.pb-c.h
# the live page's files (user/web/page.c): its own under user/web/assets/ and
# Debian's dygraphs (libjs-dygraphs), each made a C array by xxd, so the
# binary serves them and reads no file at run time
DYGRAPHS  := /usr/share/javascript/dygraphs
WEB_NAMES := index_html page_js page_css dygraph_js dygraph_css
WEB_SRC_index_html  := user/web/assets/index.html
WEB_SRC_page_js     := user/web/assets/page.js
WEB_SRC_page_css    := user/web/assets/page.css
WEB_SRC_dygraph_js  := $(DYGRAPHS)/dygraph.min.js
WEB_SRC_dygraph_css := $(DYGRAPHS)/dygraph.min.css
WEB_GEN   := $(patsubst %,$(BUILD)/web/%.c,$(WEB_NAMES))
USER_OBJS := $(patsubst user/%.c,$(BUILD)/user/%.o,$(USER_SRCS)) $(BUILD)/profile.pb-c.o \
	     $(WEB_GEN:.c=.o)
# everything but main.o links into the unit tests as well
LIB_OBJS  := $(filter-out $(BUILD)/user/main.o,$(USER_OBJS))

UNIT_SRCS  := $(wildcard tests/unit/*.c)
INTEG_SRCS := $(wildcard tests/integration/*.c)
TARGETS    := $(patsubst tests/targets/%.c,$(BUILD)/targets/%,$(wildcard tests/targets/*.c)) \
	      $(patsubst tests/targets/%.cpp,$(BUILD)/targets/%,$(wildcard tests/targets/*.cpp))
# Rust targets are built with rustup's rustc (or the one on the PATH);
# with none, make deps installs Debian's, and make test builds them all:
# a Rust test then fails rather than skips (MEMWATCH_ALL_TARGETS).
RUSTC      ?= $(shell ls /root/.cargo/bin/rustc 2>/dev/null || command -v rustc)
ifeq ($(RUSTC),)
DEB_PKGS   += rustc
else
TARGETS    += $(patsubst tests/targets/%.rs,$(BUILD)/targets/%,$(wildcard tests/targets/*.rs)) \
	      $(BUILD)/targets/rust_dag_v0
endif
FIXTURES   := $(BUILD)/fixtures/pie $(BUILD)/fixtures/nopie \
	      $(BUILD)/fixtures/libfix.so $(BUILD)/fixtures/stripped \
	      $(BUILD)/fixtures/go $(BUILD)/fixtures/go_nodwarf $(BUILD)/fixtures/read \
	      $(BUILD)/fixtures/chain $(BUILD)/fixtures/libchain.so

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps demo test unit integration test-slow bench clean vmlinux docs

all: $(BUILD)/memwatch

deps:
	$(Q)missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "memwatch: installing missing packages:" $$missing; \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing \
			>/dev/null || exit 1; \
	fi

# vmlinux.h is committed; this regenerates it from the running kernel.
vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h

$(BUILD) $(BUILD)/user $(BUILD)/tests $(BUILD)/targets $(BUILD)/fixtures:
	$(Q)mkdir -p $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.bpf.h) include/memwatch.h vmlinux/vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(PROFILE_GEN) &: $(PROFILE_PROTO) | $(BUILD)
	$(call msg,PROTOC,$@)
	$(Q)protoc-c --c_out=$(BUILD) -I$(dir $(PROFILE_PROTO)) $(notdir $(PROFILE_PROTO))

$(BUILD)/profile.pb-c.o: $(BUILD)/profile.pb-c.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Wno-unused-parameter -c $< -o $@

# a page file as `const unsigned char mw_web_NAME[]` and its _len; the
# minified files' source-map comments are left out (nothing to fetch)
.SECONDEXPANSION:
$(BUILD)/web/%.c: $$(WEB_SRC_$$*)
	$(call msg,XXD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)sed '/sourceMappingURL=/d' $< > $@.in
	$(Q)xxd -i -n mw_web_$* $@.in > $@.tmp
	$(Q)sed 's/^unsigned/const unsigned/' $@.tmp > $@
	$(Q)rm -f $@.in $@.tmp

$(BUILD)/web/%.o: $(BUILD)/web/%.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/user/%.o: user/%.c $(USER_HDRS) include/memwatch.h \
		   $(BUILD)/memwatch.skel.h $(BUILD)/profile.pb-c.h | $(BUILD)/user
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/memwatch: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# ---------------------------------------------------------------- tests

$(BUILD)/targets/%: tests/targets/%.c | $(BUILD)/targets
	$(call msg,CC,$@)
	$(Q)$(CC) -O0 -g -fno-builtin -Wall -Wno-alloc-size-larger-than -Wno-use-after-free -pthread \
		-Iinclude $< -o $@

$(BUILD)/targets/%: tests/targets/%.cpp | $(BUILD)/targets
	$(call msg,CXX,$@)
	$(Q)$(CXX) -O1 -g -Wall -pthread $< -o $@

$(BUILD)/targets/%: tests/targets/%.rs | $(BUILD)/targets
	$(call msg,RUSTC,$@)
	$(Q)$(RUSTC) -C opt-level=1 -g --edition 2021 $< -o $@

# Go, built as releases are (go build: optimised, inlining on), with
# Debian's golang-go; its cache under build/
GO        ?= go
GO_ENV    := HOME=$(abspath $(BUILD))/go GOCACHE=$(abspath $(BUILD))/go/cache \
	     GOPATH=$(abspath $(BUILD))/go GO111MODULE=off GOFLAGS=
TARGETS   += $(BUILD)/targets/go_reg $(BUILD)/targets/go_cgo
$(BUILD)/targets/%: tests/targets/%.go | $(BUILD)/targets
	$(call msg,GO,$@)
	$(Q)$(GO_ENV) $(GO) build -o $@ $<

# --read's C target, built as releases are, and once without its DWARF
$(BUILD)/targets/read_c: tests/targets/read_c.c tests/targets/say.h | $(BUILD)/targets
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -pthread $< -o $@
$(BUILD)/targets/read_c.nodebug: $(BUILD)/targets/read_c
	$(Q)objcopy --strip-debug $< $@
# and its debug information in a file of its own, found by .gnu_debuglink
$(BUILD)/targets/read_c.split: $(BUILD)/targets/read_c
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)objcopy --strip-debug --add-gnu-debuglink=$@.debug $< $@

# structures in a release build: tail calls, clones, cold and split parts
$(BUILD)/targets/optimized: tests/targets/optimized.c tests/targets/say.h | $(BUILD)/targets
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -fcf-protection -Wall $< -o $@

# a thread stopped for good inside mimalloc's mi_malloc (built as released)
$(BUILD)/targets/stuck_alloc: tests/targets/stuck_alloc.c tests/targets/say.h | $(BUILD)/targets
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -pthread $< -o $@ -lmimalloc

# the same Rust target with the v0 symbol mangling
$(BUILD)/targets/rust_dag_v0: tests/targets/rust_dag.rs | $(BUILD)/targets
	$(call msg,RUSTC,$@)
	$(Q)$(RUSTC) -C opt-level=1 -g --edition 2021 -C symbol-mangling-version=v0 $< -o $@

# the allocation script against each allocator family, linked in
FAMILY_TARGETS := $(BUILD)/targets/alloc_jemalloc $(BUILD)/targets/alloc_tcmalloc \
		  $(BUILD)/targets/alloc_mimalloc
$(BUILD)/targets/alloc_jemalloc: FAMILY := -DFAMILY_JEMALLOC -ljemalloc
$(BUILD)/targets/alloc_tcmalloc: FAMILY := -DFAMILY_TCMALLOC -ltcmalloc_minimal
$(BUILD)/targets/alloc_mimalloc: FAMILY := -DFAMILY_MIMALLOC -lmimalloc
$(FAMILY_TARGETS): tests/targets/alloc_script.c | $(BUILD)/targets
	$(call msg,CC,$@)
	$(Q)$(CC) -O0 -g -fno-builtin -Wall -Wno-alloc-size-larger-than \
		-Wno-use-after-free -pthread -Iinclude $< $(FAMILY) -o $@
# the packing computes where the live table starts a search
$(BUILD)/targets/alloc_script $(FAMILY_TARGETS): include/memwatch.h

$(BUILD)/targets/cxx_jemalloc: tests/targets/cxx_new.cpp | $(BUILD)/targets
	$(call msg,CXX,$@)
	$(Q)$(CXX) -O1 -g -Wall -pthread $< -ljemalloc -o $@

# exceptions and panics through probed frames, built as releases are:
# -O2, the glibc build with CET prologues (endbr64), the other against
# jemalloc's own operator new
$(BUILD)/targets/unwind_cxx: tests/targets/unwind_cxx.cpp | $(BUILD)/targets
	$(call msg,CXX,$@)
	$(Q)$(CXX) -O2 -g -fcf-protection -Wall -pthread $< -o $@
UNWIND_TARGETS := $(BUILD)/targets/unwind_cxx_jemalloc $(BUILD)/targets/unwind_cxx_tcmalloc \
		  $(BUILD)/targets/unwind_cxx_mimalloc
$(BUILD)/targets/unwind_cxx_jemalloc: ALLOC := -ljemalloc
$(BUILD)/targets/unwind_cxx_tcmalloc: ALLOC := -ltcmalloc_minimal
$(BUILD)/targets/unwind_cxx_mimalloc: ALLOC := -lmimalloc
$(UNWIND_TARGETS): tests/targets/unwind_cxx.cpp | $(BUILD)/targets
	$(call msg,CXX,$@)
	$(Q)$(CXX) -O2 -g -Wall -pthread $< $(ALLOC) -o $@
# structures read from memory (--read): release builds with their types
$(BUILD)/targets/read_rust: tests/targets/read_rust.rs | $(BUILD)/targets
	$(call msg,RUSTC,$@)
	$(Q)$(RUSTC) -C opt-level=2 -C debuginfo=2 --edition 2021 $< -o $@
$(BUILD)/targets/read_cxx: tests/targets/read_cxx.cpp tests/targets/say.h | $(BUILD)/targets
	$(call msg,CXX,$@)
	$(Q)$(CXX) -O2 -g -Wall -pthread $< -o $@
# a node built as a release is, with debug = 2: names as people write
# them, and a method left only as inlined copies
$(BUILD)/targets/rust_node: tests/targets/rust_node.rs | $(BUILD)/targets
	$(call msg,RUSTC,$@)
	$(Q)$(RUSTC) -C opt-level=2 -C debuginfo=2 -C panic=unwind --edition 2021 $< -o $@
# the same with frame pointers, for --stacks (Rust's std keeps none)
$(BUILD)/targets/rust_node_fp: tests/targets/rust_node.rs | $(BUILD)/targets
	$(call msg,RUSTC,$@)
	$(Q)$(RUSTC) -C opt-level=2 -C debuginfo=2 -C panic=unwind -C force-frame-pointers=yes \
		--edition 2021 $< -o $@
$(BUILD)/targets/unwind_rust: tests/targets/unwind_rust.rs | $(BUILD)/targets
	$(call msg,RUSTC,$@)
	$(Q)$(RUSTC) -C opt-level=2 -C panic=unwind -g --edition 2021 $< -o $@

# a library with no unwind table: stacks walked by the tables end in it
$(BUILD)/targets/libnocfi.so: tests/targets/lib/libnocfi.c | $(BUILD)/targets
	$(Q)$(CC) -O2 -fPIC -shared -fno-asynchronous-unwind-tables -fno-unwind-tables $< -o $@
$(BUILD)/targets/nocfi_target: tests/targets/nocfi_target.c tests/targets/say.h $(BUILD)/targets/libnocfi.so
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall $< -L$(BUILD)/targets -lnocfi -Wl,-rpath,'$$ORIGIN' -o $@

# the same library with its call-frame information in .debug_frame only
# (-g, no .eh_frame), and the target linked against it
$(BUILD)/targets/debugframe/libnocfi.so: tests/targets/lib/libnocfi.c | $(BUILD)/targets
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -fPIC -shared -fno-asynchronous-unwind-tables -fno-unwind-tables $< -o $@
$(BUILD)/targets/nocfi_target_df: tests/targets/nocfi_target.c tests/targets/say.h \
				  $(BUILD)/targets/debugframe/libnocfi.so
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall $< -L$(BUILD)/targets/debugframe -lnocfi \
		-Wl,-rpath,'$$ORIGIN/debugframe' -o $@

# whole stacks against the targets' own backtrace(3): chains through a
# library without frame pointers and glibc's qsort, built as releases are
$(BUILD)/targets/libchains.so: tests/targets/lib/libchains.c | $(BUILD)/targets
	$(Q)$(CC) -O2 -fomit-frame-pointer -fPIC -shared $< -o $@
$(BUILD)/targets/chains: tests/targets/chains.c tests/targets/say.h $(BUILD)/targets/libchains.so
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fcf-protection -Wall -pthread $< -L$(BUILD)/targets \
		-lchains -Wl,-rpath,'$$ORIGIN' -o $@
$(BUILD)/targets/chains_rust: tests/targets/chains_rust.rs $(BUILD)/targets/libchains.so
	$(call msg,RUSTC,$@)
	$(Q)$(RUSTC) -C opt-level=2 -g -C panic=unwind --edition 2021 $< -L$(BUILD)/targets \
		-l dylib=chains -C link-arg=-Wl,-rpath,'$$ORIGIN' -o $@
$(BUILD)/targets/chains_cxx: tests/targets/chains_cxx.cpp tests/targets/say.h $(BUILD)/targets/libchains.so
	$(call msg,CXX,$@)
	$(Q)$(CXX) -O2 -g -fomit-frame-pointer -Wall -pthread $< -L$(BUILD)/targets -lchains \
		-Wl,-rpath,'$$ORIGIN' -o $@

# allocation sites in the executable and in a shared library
$(BUILD)/targets/libsites.so: tests/targets/lib/libsites.c | $(BUILD)/targets
	$(Q)$(CC) -O1 -g -fPIC -shared $< -o $@
$(BUILD)/targets/sites_target: tests/targets/sites_target.c $(BUILD)/targets/libsites.so
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -g -Wall -pthread $< -L$(BUILD)/targets -lsites \
		-Wl,-rpath,'$$ORIGIN' -o $@

# a library launch_target dlopens after start (launch and follow modes)
$(BUILD)/targets/libplugin.so: tests/targets/lib/libplugin.c | $(BUILD)/targets
	$(Q)$(CC) -O2 -g -fPIC -shared $< -o $@

# launch_target with libplugin.so as a startup library (DT_NEEDED)
$(BUILD)/targets/launch_target_linked: tests/targets/launch_target.c $(BUILD)/targets/libplugin.so
	$(call msg,CC,$@)
	$(Q)$(CC) -O0 -g -Wall $< -L$(BUILD)/targets -Wl,--no-as-needed -lplugin \
		-Wl,-rpath,'$$ORIGIN' -o $@

# the same with frame pointers, for --stacks
$(BUILD)/targets/sites_target_fp: tests/targets/sites_target.c $(BUILD)/targets/libsites.so
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -g -fno-omit-frame-pointer -Wall -pthread $< -L$(BUILD)/targets -lsites \
		-Wl,-rpath,'$$ORIGIN' -o $@

# a stripped target whose symbols are only in its debug file
$(BUILD)/targets/struct_script.stripped: $(BUILD)/targets/struct_script
	$(Q)objcopy --only-keep-debug $< $<.debug
	$(Q)objcopy --strip-all $< $@

# ELF fixtures for the symbol reader: PIE and non-PIE executables, a
# shared library, and a stripped copy with its symbols in a debug file.
$(BUILD)/fixtures/pie: tests/fixtures/elf_fixture.c | $(BUILD)/fixtures
	$(Q)$(CC) -O1 -g -fPIE -pie $< -o $@
$(BUILD)/fixtures/nopie: tests/fixtures/elf_fixture.c | $(BUILD)/fixtures
	$(Q)$(CC) -O1 -g -fno-PIE -no-pie $< -o $@
$(BUILD)/fixtures/libfix.so: tests/fixtures/elf_fixture.c | $(BUILD)/fixtures
	$(Q)$(CC) -O1 -g -fPIC -shared -DFIXTURE_LIB $< -o $@
# the object --read's planner is tested on (types in read_fixture.h)
$(BUILD)/fixtures/read: tests/fixtures/read_fixture.c tests/fixtures/read_fixture.h | $(BUILD)/fixtures
	$(Q)$(CC) -O2 -g -fPIE -pie $< -o $@

# a Go program (golang.c), with its DWARF and without (-ldflags=-w)
$(BUILD)/fixtures/go: tests/fixtures/go_fixture.go | $(BUILD)/fixtures
	$(Q)$(GO_ENV) $(GO) build -o $@ $<
$(BUILD)/fixtures/go_nodwarf: tests/fixtures/go_fixture.go | $(BUILD)/fixtures
	$(Q)$(GO_ENV) $(GO) build -ldflags=-w -o $@ $<
# a call chain through a library, built as releases are: no frame pointers
$(BUILD)/fixtures/libchain.so: tests/fixtures/chain_fixture.c | $(BUILD)/fixtures
	$(Q)$(CC) -O2 -fomit-frame-pointer -fPIC -shared $< -o $@
$(BUILD)/fixtures/chain: tests/fixtures/chain_fixture.c $(BUILD)/fixtures/libchain.so | $(BUILD)/fixtures
	$(Q)$(CC) -O2 -fomit-frame-pointer -DCHAIN_PROGRAM $< -L$(BUILD)/fixtures -lchain \
		-Wl,-rpath,'$$ORIGIN' -o $@
$(BUILD)/fixtures/stripped: $(BUILD)/fixtures/pie
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)objcopy --strip-all $< $@

$(BUILD)/unit_tests: $(UNIT_SRCS) $(LIB_OBJS) | $(BUILD)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -lcriterion $(LDLIBS) -o $@

$(BUILD)/integration_tests: $(INTEG_SRCS) $(wildcard tests/integration/*.h) | $(BUILD)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/integration $(INTEG_SRCS) -lcriterion -o $@

# make test-slow's: the same tests with a test's limit of 1,500 s (at 0.15
# of a CPU, chromium's screenshot alone took over 420)
$(BUILD)/integration_tests_slow: $(INTEG_SRCS) $(wildcard tests/integration/*.h) | $(BUILD)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -DMW_PATIENCE_S=1500 -Itests/integration $(INTEG_SRCS) -lcriterion -o $@

# the same unit tests under AddressSanitizer and UndefinedBehaviorSanitizer
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
$(BUILD)/unit_tests_san: $(UNIT_SRCS) $(USER_SRCS) $(USER_HDRS) $(BUILD)/memwatch.skel.h \
			 $(PROFILE_GEN) $(WEB_GEN) | $(BUILD)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) $(UNIT_SRCS) $(filter-out user/main.c,$(USER_SRCS)) \
		$(BUILD)/profile.pb-c.c $(WEB_GEN) \
		-lcriterion $(LDLIBS) -o $@

unit: deps $(BUILD)/unit_tests $(BUILD)/unit_tests_san $(FIXTURES)
	$(BUILD)/unit_tests
	@# a leak does not fail a Criterion test by itself: its report does
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(BUILD)/unit_tests_san \
		2>$(BUILD)/unit_san.log; rc=$$?; cat $(BUILD)/unit_san.log >&2; \
	if grep -q 'ERROR: LeakSanitizer' $(BUILD)/unit_san.log; then \
		echo "memwatch: the unit tests leak memory (report above)" >&2; exit 1; fi; exit $$rc

INTEG_DEPS = $(BUILD)/memwatch $(BUILD)/integration_tests $(TARGETS) \
	      $(BUILD)/targets/struct_script.stripped $(FAMILY_TARGETS) \
	      $(BUILD)/targets/cxx_jemalloc $(BUILD)/targets/sites_target_fp \
	      $(UNWIND_TARGETS) $(BUILD)/targets/libplugin.so $(BUILD)/targets/launch_target_linked \
	      $(BUILD)/targets/read_c.nodebug $(BUILD)/targets/read_c.split \
	      $(BUILD)/targets/rust_node_fp $(BUILD)/targets/nocfi_target_df

integration: deps $(INTEG_DEPS)
	MEMWATCH_ALL_TARGETS=1 $(BUILD)/integration_tests --jobs 1

# the same on a slow machine made of this one: every process of the run
# in a cgroup capped at MEMWATCH_SLOW_CPUS of a CPU (0.15), traps and
# all (tests/tools/slow.sh). Not part of make test: it takes an hour.
# A test that waits for a time, not a state, fails here.
test-slow: deps $(INTEG_DEPS) $(BUILD)/integration_tests_slow
	MEMWATCH_ALL_TARGETS=1 bash tests/tools/slow.sh $(BUILD)/integration_tests_slow --jobs 1

# the same inside a guest of each kernel memwatch is tested on: Debian
# 12's own 6.1 from the archive, booted under QEMU with this machine's
# root shared read-only (tests/vm/boot.sh); one summary line a kernel.
# TEST_KERNELS_FILTER: Criterion's --filter. Not part of make test: the
# whole suite takes about 45 min in a TCG guest; .ci/run boots it for
# three groups.
KERNEL_PKGS := qemu-system-x86 busybox-static linux-image-6.1.0-50-amd64-unsigned
test-kernels: deps $(INTEG_DEPS)
	$(Q)$(MAKE) --no-print-directory deps DEB_PKGS="$(KERNEL_PKGS)"
	bash tests/vm/kernels.sh "$(TEST_KERNELS_FILTER)"

test: deps
	$(Q)$(MAKE) --no-print-directory $(BUILD)/memwatch
	$(Q)$(MAKE) --no-print-directory unit integration glibcview-test fuzz-regress

$(BUILD)/demo: examples/demo.cpp | $(BUILD)
	$(call msg,CXX,$@)
	$(Q)$(CXX) -O2 -g -Wall $< -o $@

demo: deps
	$(Q)$(MAKE) --no-print-directory $(BUILD)/memwatch $(BUILD)/demo
	$(Q)sh examples/demo.sh

$(BUILD)/bench/%: tests/bench/%.c
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(CC) -O2 -g -Wall $< -o $@

# --read's targets: a map of a million elements, in Rust and in C++
$(BUILD)/bench/read_big_rust: tests/bench/read_big.rs
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(RUSTC) -C opt-level=2 -C debuginfo=2 --edition 2021 $< -o $@
$(BUILD)/bench/read_big_cxx: tests/bench/read_big.cpp
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(CXX) -O2 -g -Wall $< -o $@

# the same loop in a process that maps libgcc_s's unwinder, as C++ and
# Rust programs do: memwatch then reads --delta ret at return instructions
$(BUILD)/bench/pair_loop_unwind: tests/bench/pair_loop.c
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(CC) -O2 -g -Wall $< -Wl,--no-as-needed -lgcc_s -o $@

# the same loop with C++'s operator new and delete (libstdc++)
$(BUILD)/bench/pair_loop_cxx: tests/bench/pair_loop.c
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(CC) -O2 -g -Wall -DPAIR_CXX $< -Wl,--no-as-needed -lstdc++ -o $@

# building the heap profiles (user/export/pprof.c) for N sites
$(BUILD)/bench/pprof_build: tests/bench/pprof_build.c $(BUILD)/user/export/pprof.o $(BUILD)/profile.pb-c.o
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(CC) $(CFLAGS) $^ -lprotobuf-c -lz -o $@

# the peers the benchmark compares memwatch with
BENCH_PKGS := bpftrace bpfcc-tools

bench: deps
	$(Q)$(MAKE) --no-print-directory deps DEB_PKGS="$(BENCH_PKGS)"
	$(Q)$(MAKE) --no-print-directory $(BUILD)/memwatch $(BUILD)/bench/pair_loop \
		$(BUILD)/bench/pair_loop_unwind $(BUILD)/bench/pair_loop_cxx $(BUILD)/targets/prologues \
		$(BUILD)/bench/pprof_build $(BUILD)/bench/read_big_rust $(BUILD)/bench/read_big_cxx
	$(Q)bash tests/bench/run.sh

# the --read section alone
bench-read: deps
	$(Q)$(MAKE) --no-print-directory $(BUILD)/memwatch $(BUILD)/bench/read_big_rust \
		$(BUILD)/bench/read_big_cxx
	$(Q)BENCH_ONLY=read bash tests/bench/run.sh

# the unwatched children and exit time section alone
bench-children: deps
	$(Q)$(MAKE) --no-print-directory $(BUILD)/memwatch $(BUILD)/bench/pair_loop \
		$(BUILD)/bench/pair_loop_cxx
	$(Q)BENCH_ONLY=children bash tests/bench/run.sh

# the structure-call section alone
bench-calls: deps
	$(Q)$(MAKE) --no-print-directory $(BUILD)/memwatch $(BUILD)/bench/pair_loop \
		$(BUILD)/bench/pair_loop_unwind
	$(Q)BENCH_ONLY=calls bash tests/bench/run.sh

# docs/metrics.md from the tables of user/export/fields.c; the unit tests
# fail when the committed file is stale
$(BUILD)/mkmetrics: tests/tools/mkmetrics.c $(BUILD)/user/export/fields.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@

docs: $(BUILD)/mkmetrics
	$(Q)$(BUILD)/mkmetrics > docs/metrics.md.tmp && mv docs/metrics.md.tmp docs/metrics.md

clean:
	rm -rf $(BUILD)

# ---- fuzzing ----
# libFuzzer harnesses (tests/fuzz/fuzz_NAME.c) for the parsers of hostile
# input, built with clang under ASan and UBSan from the user/*.c sources
# themselves (build/user/*.o are gcc objects without sanitizers).
# `make fuzz` explores for FUZZ_SECONDS per harness on a copy of its seeds
# (build/fuzz/corpus/NAME); `make fuzz-regress` replays the seeds and every
# input that once crashed (tests/fuzz/regressions/NAME), then fuzzes 10 s
# each. Crashing inputs land in build/fuzz/artifacts/NAME/.

FUZZ_CC        ?= clang
FUZZ_SECONDS   ?= 60
FUZZ_NAMES     := elfsym procmaps config symmatch http webconfig walk cfi
FUZZ_BINS      := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_NAMES))
# -fno-sanitize-recover: a UBSan report is a crash, not a line of output
FUZZ_CFLAGS    := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		  -Iinclude -Iuser -I$(BUILD) -D_GNU_SOURCE -DMEMWATCH_VERSION='"fuzz"'
FUZZ_RUN_FLAGS := -timeout=10 -rss_limit_mb=2048

# the user sources each harness compiles in, and what they link
FUZZ_SRCS_elfsym   := user/symbols/elfsym.c user/symbols/debugfile.c
FUZZ_SRCS_cfi      := user/stacks/cfi.c
FUZZ_LIBS_cfi      := -ldw -lelf -lz
FUZZ_LIBS_elfsym   := -lelf -lz
FUZZ_SRCS_procmaps := user/process/procmaps.c
FUZZ_LIBS_procmaps :=
FUZZ_SRCS_walk     := user/read/walk.c user/read/decode.c user/read/elements.c
FUZZ_LIBS_walk     :=
FUZZ_SRCS_symmatch := user/symbols/symmatch.c user/symbols/symname.c user/symbols/pathname.c user/symbols/nearest.c
FUZZ_LIBS_symmatch := -liberty
# cli.c (config.c applies each line through it; fuzz_http gives it the
# --listen spec) reaches most modules
# (http.c serves the page and the JSON API: their sources come along)
FUZZ_CLI_SRCS      := user/cli.c user/config.c user/log.c user/web/http.c \
		      user/web/webauth.c user/web/webconfig.c \
		      user/probes/allocator.c user/symbols/elfsym.c user/symbols/golang.c \
		      user/symbols/dwarfopen.c \
		      user/probes/probes.c user/read/expr.c \
		      user/probes/placement.c user/process/objects.c user/process/procmaps.c \
		      user/process/target.c user/symbols/symmatch.c user/symbols/symname.c \
		      user/symbols/pathname.c user/symbols/debugfile.c \
		      user/web/api.c user/web/json.c user/export/row.c user/export/fields.c \
		      user/export/timestamp.c user/web/page.c user/sample/history.c $(WEB_GEN)
FUZZ_CLI_LIBS      := -lelf -ldw -lz -liberty -lmicrohttpd -lcapstone -ljson-c -lpthread -lyaml -lgnutls -lcrypt
FUZZ_SRCS_config   := $(FUZZ_CLI_SRCS)
FUZZ_LIBS_config   := $(FUZZ_CLI_LIBS)
# getaddrinfo is wrapped to numeric hosts: fuzzed specs send no DNS queries
FUZZ_SRCS_http     := $(FUZZ_CLI_SRCS)
FUZZ_LIBS_http     := -Wl,--wrap=getaddrinfo $(FUZZ_CLI_LIBS)
# the web config's YAML (--web-config), parsed alone: no file is read
FUZZ_SRCS_webconfig := user/web/webconfig.c user/log.c
FUZZ_LIBS_webconfig := -lyaml -lgnutls -lmicrohttpd

.PHONY: fuzz fuzz-regress bench-read bench-calls bench-children test-kernels

$(foreach n,$(FUZZ_NAMES),$(eval $(BUILD)/fuzz/fuzz_$(n): $(FUZZ_SRCS_$(n))))

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/quiet.h $(USER_HDRS) include/memwatch.h
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_$*) $(FUZZ_LIBS_$*) -o $@

# Copies NAME's seeds into DIR (kept between runs: the corpus grows) and
# fuzzes SECONDS on it, reading the regressions too (libFuzzer adds new
# inputs to the first directory only, so nothing is written under tests/).
fuzz_run = mkdir -p $(2) $(BUILD)/fuzz/artifacts/$(1) && \
	cp -n tests/fuzz/corpus/$(1)/* $(2)/ && \
	$(BUILD)/fuzz/fuzz_$(1) $(FUZZ_RUN_FLAGS) -max_total_time=$(3) \
		-artifact_prefix=$(BUILD)/fuzz/artifacts/$(1)/ $(2) \
		$$(ls -d tests/fuzz/regressions/$(1) 2>/dev/null)

# all harnesses, then the list of those that crashed (exit 1 if any)
fuzz: $(FUZZ_BINS)
	$(Q)failed=; for n in $(FUZZ_NAMES); do \
		echo "  FUZZ     $$n for $(FUZZ_SECONDS) s"; \
		$(call fuzz_run,$$n,$(BUILD)/fuzz/corpus/$$n,$(FUZZ_SECONDS)) || \
			failed="$$failed $$n"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "memwatch: fuzzing crashed:$$failed (inputs in $(BUILD)/fuzz/artifacts)"; \
		exit 1; \
	fi

# what `make test` runs: each known input once, then 10 s of fuzzing each
# from the seeds alone (a fresh corpus, so the run stays short)
fuzz-regress: $(FUZZ_BINS)
	$(Q)for n in $(FUZZ_NAMES); do \
		echo "  REPLAY   $$n"; \
		mkdir -p $(BUILD)/fuzz/artifacts/$$n; \
		$(BUILD)/fuzz/fuzz_$$n $(FUZZ_RUN_FLAGS) \
			-artifact_prefix=$(BUILD)/fuzz/artifacts/$$n/ \
			tests/fuzz/corpus/$$n/* \
			$$(find tests/fuzz/regressions/$$n -type f ! -name '.*' 2>/dev/null) \
			>$(BUILD)/fuzz/replay-$$n.log 2>&1 || \
			{ tail -n 40 $(BUILD)/fuzz/replay-$$n.log; exit 1; }; \
	done
	$(Q)for n in $(FUZZ_NAMES); do \
		echo "  FUZZ     $$n for 10 s"; \
		rm -rf $(BUILD)/fuzz/regress-corpus/$$n; \
		$(call fuzz_run,$$n,$(BUILD)/fuzz/regress-corpus/$$n,10) \
			>$(BUILD)/fuzz/fuzz-$$n.log 2>&1 || \
			{ tail -n 40 $(BUILD)/fuzz/fuzz-$$n.log; exit 1; }; \
	done

# ---- glibc view ----
# user/sample/glibc*.c (mallinfo2's figures read from outside, issue 9): glibclayout.c reads
# the libc's DWARF with elfutils' libdw: Debian's libdw-dev to build, and
# libc6-dbg at run time for the libc's debug file.
LDLIBS += -ldw
# tests/integration/test_glibcview.c links user sources, so it builds into
# its own binary, not into integration_tests (whose recipe expands
# INTEG_SRCS when it runs, after this line has filtered it).
INTEG_SRCS := $(filter-out tests/integration/test_glibcview.c,$(INTEG_SRCS))
GLIBCVIEW_TEST_SRCS := tests/integration/test_glibcview.c tests/integration/harness.c \
		       $(wildcard user/sample/glibc*.c) user/process/procmaps.c user/symbols/debugfile.c

.PHONY: glibcview-test

$(BUILD)/glibcview_tests: $(GLIBCVIEW_TEST_SRCS) $(wildcard user/sample/glibc*.h) user/process/procmaps.h \
			  tests/integration/harness.h | $(BUILD)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/integration $(GLIBCVIEW_TEST_SRCS) \
		-lcriterion -ldw -lelf -o $@

# the target without DWARF: no debug file exists for its build-id
$(BUILD)/targets/mallinfo_target.nodebug: $(BUILD)/targets/mallinfo_target
	$(call msg,STRIP,$@)
	$(Q)objcopy --strip-debug $< $@

# needs root (process_vm_readv on the targets) and libc6-dbg
glibcview-test: $(BUILD)/glibcview_tests $(BUILD)/targets/mallinfo_target \
		$(BUILD)/targets/mallinfo_target.nodebug
	$(BUILD)/glibcview_tests --jobs 1
# ---- end glibc view ----

# ---- install ----
# `make install` (PREFIX=/usr/local, DESTDIR for packaging): the binary in
# sbin, memwatch(8) gzipped as Debian ships man pages, and the examples a
# daemon needs (config, systemd unit, Kubernetes DaemonSet, web config) under
# share/doc. The installed unit's ExecStart names $(PREFIX)/sbin/memwatch.
# `make uninstall` removes exactly those files.
PREFIX     ?= /usr/local
SBINDIR    := $(DESTDIR)$(PREFIX)/sbin
MAN8DIR    := $(DESTDIR)$(PREFIX)/share/man/man8
EXAMPLEDIR := $(DESTDIR)$(PREFIX)/share/doc/memwatch/examples
INSTALL_EXAMPLES := memwatch.conf kubernetes/daemonset.yaml kubernetes/README.md \
		    web-config.yml prometheus-tls.yml

.PHONY: install uninstall

$(BUILD)/memwatch.8.gz: user/memwatch.8 | $(BUILD)
	$(call msg,GZIP,$@)
	$(Q)gzip -9nc $< > $@

install: $(BUILD)/memwatch $(BUILD)/memwatch.8.gz
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(BUILD)/memwatch $(SBINDIR)/memwatch
	$(Q)install -D -m 0644 $(BUILD)/memwatch.8.gz $(MAN8DIR)/memwatch.8.gz
	$(Q)for f in $(INSTALL_EXAMPLES); do \
		install -D -m 0644 examples/$$f $(EXAMPLEDIR)/$$f || exit 1; done
	$(Q)install -D -m 0644 examples/memwatch.service $(EXAMPLEDIR)/memwatch.service
	$(Q)sed -i 's|/usr/local/sbin/memwatch|$(PREFIX)/sbin/memwatch|g' \
		$(EXAMPLEDIR)/memwatch.service

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(SBINDIR)/memwatch $(MAN8DIR)/memwatch.8.gz \
		$(addprefix $(EXAMPLEDIR)/,$(INSTALL_EXAMPLES) memwatch.service)
	$(Q)rmdir $(EXAMPLEDIR)/kubernetes $(EXAMPLEDIR) \
		$(DESTDIR)$(PREFIX)/share/doc/memwatch 2>/dev/null || true
# ---- end install ----
