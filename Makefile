# SPDX-License-Identifier: MIT
#
# make               build libpbench.a, libpbench.so, pbench.pc and pbench into build/
# make test          every test, twice: a normal build (build/) and ASan+UBSan (build/asan/)
# make demo          build and run the main job on this machine
# make bench         benchmarks of pbench itself against the tools people use instead
# make install       PREFIX=/usr/local DESTDIR= : header, libraries, pkg-config file, binary,
#                    the man pages, the bash completion, the JSON Schemas (share/pbench/schema);
#                    with DESTDIR empty, ldconfig when LIBDIR is a directory the loader searches
#                    (as root), otherwise a note on how programs find the library
#                    (scripts/ldconfig.sh; LDCONFIG= names the ldconfig)
# make fuzz          each fuzz target under libFuzzer (clang) for FUZZ_TIME=60 seconds; what it
#                    finds goes into tests/fuzz/corpus/, which make test replays (tests/fuzz/)
#
# O=DIR picks the output directory, SAN=1 builds with AddressSanitizer and UBSan.
# DEVELOPER=1 turns warnings into errors (-Werror); make test and CI set it, a plain make does not.
# V=1 prints each command in full; by default a line per file says what is made ("  CC  x.o").
# PMU=0 skips the emulated-PMU suite of make test (tests/pmu: an arm64 guest under QEMU).
#
# Cross build (arm64): make CROSS=aarch64-linux-gnu- SYSROOT=DIR STATIC=1 O=build/arm64
#   CROSS prefixes gcc and ar; SYSROOT holds the target's libpfm4, libnuma and jansson
#   (DIR/usr/include, DIR/usr/lib/<triplet>), e.g. the -dev .debs unpacked by
#   tests/pmu/setup.sh into build/pmu/sysroot; STATIC=1 links pbench statically.

VERSION    := 0.1.0
SOVERSION  := 2
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
# bash-completion finds completions here (its pkg-config completionsdir under /usr).
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
DESTDIR    ?=
LDCONFIG   ?=

O   ?= build
SAN ?=
CC  ?= cc
PMU ?= 1
CROSS ?=
SYSROOT ?=
STATIC ?=
ifneq ($(CROSS),)
ifeq ($(origin CC),default)
CC := $(CROSS)gcc
endif
ifeq ($(origin AR),default)
AR := $(CROSS)ar
endif
endif

DEVELOPER ?=
V ?=

# Quiet by default: $(call msg,CC,FILE) prints "  CC      FILE" and silences the command that
# follows it on the same recipe line; $(Q) silences a line that prints nothing. V=1: both empty.
# make -s prints nothing at all (as the kernel's build does).
ifeq ($(V),1)
Q :=
msg =
else
Q := @
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
msg = @
else
msg = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif
MAKEFLAGS += --no-print-directory
endif

CFLAGS   ?= -O2 -g
# -Werror for developers and CI only: a user's newer compiler may warn where ours does not.
ifeq ($(DEVELOPER),1)
WERROR := -Werror
endif
WARNINGS := -Wall -Wextra $(WERROR) -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	    -Wno-missing-field-initializers
# Each compile writes the headers it read to a .d file next to its output (-MMD), with an empty
# rule per header (-MP) so that a removed header is not an error; they are included below.
DEPFLAGS = -MMD -MP -MF $@.d -MT $@
BASEFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARNINGS) -Ilib/include -pthread
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow
endif
ifneq ($(SYSROOT),)
TRIPLET := $(shell $(CC) -dumpmachine)
BASEFLAGS += -isystem $(SYSROOT)/usr/include
SYSROOT_LDFLAGS := -L$(SYSROOT)/usr/lib/$(TRIPLET) -L$(SYSROOT)/usr/lib
endif
ifeq ($(STATIC),1)
SYSROOT_LDFLAGS += -static
endif
ALL_CFLAGS  = $(BASEFLAGS) $(SANFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(SYSROOT_LDFLAGS) $(LDFLAGS) -pthread
# -lm last: a static link (the arm64 guest's) takes libm for what sqlite3 and libpq use too.
LIB_LIBS  := -lpfm -lnuma -ljansson -lsqlite3
# The history's PostgreSQL backend (lib/src/history/history_pg.c) links libpq where pkg-config
# finds it (Debian's libpq-dev); PG=0 leaves it out (a postgresql:// store is then refused with
# the reason), as a static or cross build does by default: libpq's static link would need
# OpenSSL's, Kerberos' and LDAP's static libraries.
ifeq ($(origin PG),undefined)
PG := $(if $(STATIC)$(SYSROOT),0,$(if $(shell pkg-config --exists libpq 2>/dev/null && echo y),1,0))
endif
ifeq ($(PG),1)
PG_CFLAGS := -DPBENCH_HAVE_LIBPQ $(shell pkg-config --cflags libpq 2>/dev/null || \
	       echo -I$$(pg_config --includedir))
PG_LIBS := -lpq
LIB_LIBS += $(PG_LIBS)
endif
# Symbols and DWARF unwinding (lib/src/symbols/) on libdw and libelf (elfutils, Debian's
# libdw-dev: what perf uses): DW=0 leaves them out (the module then refuses with the reason),
# as a static or cross build does by default: its sysroot has no libdw, whose static link
# would need zlib's, bzip2's and xz's static libraries too.
ifeq ($(origin DW),undefined)
DW := $(if $(STATIC)$(SYSROOT),0,1)
endif
ifeq ($(DW),1)
DW_LIBS := -ldw -lelf
LIB_LIBS += $(DW_LIBS)
endif
# pprof's profile.proto (lib/src/profile/profile_pprof.c, pbench stat --export-pprof) on
# protobuf-c (Debian's libprotobuf-c-dev; its compiler protoc-c, protobuf-c-compiler, makes
# build/gen/pprof.pb-c.[ch] from lib/src/profile/pprof.proto) and zlib for its gzip: PPROF=0
# leaves it out (the export is then refused with the reason), as a static or cross build does
# by default: its sysroot has neither.
ifeq ($(origin PPROF),undefined)
PPROF := $(if $(STATIC)$(SYSROOT),0,1)
endif
ifeq ($(PPROF),1)
PPROF_LIBS := -lprotobuf-c -lz
LIB_LIBS += $(PPROF_LIBS)
endif
LIB_LIBS += -lm
CLI_LIBS  :=

LIB_SRCS := $(sort $(wildcard lib/src/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)
# The code protoc-c generates from pprof.proto (PPROF=1), in the library but not in lib/src.
PPROF_GEN_OBJS := $(if $(filter 1,$(PPROF)),$(O)/gen/pprof.pb-c.o)
LIB_OBJS += $(PPROF_GEN_OBJS)
CLI_SRCS := $(sort $(wildcard cli/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(O)/%.o)
# The command line's support library (cli/support/support.h): what only a command line needs
# (output files, the stop flag's signal handlers, terminal width and colour, its sentences),
# kept out of libpbench.so as curl's tool keeps its helpers out of libcurl. Linked into pbench
# only, never installed; its files may include base/base.h (tests/layers/run.sh says when).
CLI_SUPPORT_SRCS := $(sort $(wildcard cli/support/*.c))
CLI_SUPPORT_OBJS := $(CLI_SUPPORT_SRCS:%.c=$(O)/%.o)
# Unit tests of the support library: tests/unit/test_cli_*.c, which see cli/support/ and link
# libpbench-cli.a before libpbench.a.
CLI_UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/tests/%,$(wildcard tests/unit/test_cli_*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
EXAMPLE_SRCS := $(sort $(wildcard kmod-free-docs/examples/*.c))
# Helpers are programs a bench runs as its workload (bench/xorloop.c): built, never run alone.
BENCH_HELPER_SRCS := bench/xorloop.c
BENCH_HELPER_BINS := $(BENCH_HELPER_SRCS:bench/%.c=$(O)/bench/%)
BENCH_SRCS := $(filter-out $(BENCH_HELPER_SRCS),$(sort $(wildcard bench/*.c)))
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(O)/bench/%)
# C++ programs of other tools' harnesses (Google Benchmark), run by the C benches; built only
# when `scripts/deps.sh bench` finds or installs their library.
GBENCH_SRCS := $(sort $(wildcard bench/*.cc))
GBENCH_BINS := $(GBENCH_SRCS:bench/%.cc=$(O)/bench/%)
# Fuzz targets (tests/fuzz/README.md): tests/fuzz/fuzz_NAME.c with its corpus in
# tests/fuzz/corpus/NAME/. make test links each with a plain main() (replay.c) and runs its
# corpus under ASan+UBSan; make fuzz links each with libFuzzer in build/fuzz/.
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
REPLAY_BINS := $(FUZZ_NAMES:%=$(O)/tests/fuzz/replay_%)
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_TIME ?= 60
FUZZ_CC ?= clang
FUZZ_O := build/fuzz
ifeq ($(origin CXX),default)
CXX := c++
endif

SONAME := libpbench.so.$(SOVERSION)
# The file: the soname and the library's own minor.patch (not the package's VERSION).
REALNAME := libpbench.so.$(SOVERSION).0.0

.PHONY: all deps test check check-built demo bench install uninstall clean examples pmu fuzz fuzz-min
.DELETE_ON_ERROR:

all: $(O)/libpbench.a $(O)/libpbench.so $(O)/libpbench-mem.so $(O)/pbench $(O)/pbench.pc

deps:
	@sh scripts/deps.sh

# Headers are prerequisites through the generated .d files: a first build compiles everything
# anyway, and afterwards only what includes a changed header is rebuilt.
$(O)/lib/src/%.o: lib/src/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Ilib/src -fPIC -fvisibility=hidden -c $< -o $@

# Where make install puts the allocator shim: the last place a command's shim is looked for.
$(O)/lib/src/measure/mem_command.o: CFLAGS += -DPBENCH_LIBDIR='"$(LIBDIR)"'
# libpq's header and PBENCH_HAVE_LIBPQ (PG=1, above); rebuilt when PG changes (its stamp).
$(O)/lib/src/history/history_pg.o: CFLAGS += $(PG_CFLAGS)
$(O)/lib/src/history/history_pg.o: $(O)/.pg-$(PG)
$(O)/.pg-$(PG):
	@mkdir -p $(@D)
	$(Q)rm -f $(O)/.pg-*; touch $@
# libdw's headers in the symbols module (DW=1, above); rebuilt when DW changes (its stamp).
SYMBOLS_OBJS := $(filter $(O)/lib/src/symbols/%,$(LIB_OBJS))
$(SYMBOLS_OBJS): CFLAGS += $(if $(filter 1,$(DW)),-DPBENCH_HAVE_LIBDW)
$(SYMBOLS_OBJS): $(O)/.dw-$(DW)
$(O)/.dw-$(DW):
	@mkdir -p $(@D)
	$(Q)rm -f $(O)/.dw-*; touch $@

# pprof's messages in C (PPROF=1, above), generated into build/gen/ and never committed;
# compiled without the warnings of pbench's own code (the generator's style is not ours) and
# hidden like the rest of the library. profile_pprof.c includes the header; rebuilt when PPROF
# changes (its stamp).
$(O)/gen/pprof.pb-c.h: $(O)/gen/pprof.pb-c.c
$(O)/gen/pprof.pb-c.c: lib/src/profile/pprof.proto
	@mkdir -p $(@D)
	$(call msg,GEN,$@)protoc-c --c_out=$(O)/gen --proto_path=lib/src/profile $<
$(O)/gen/pprof.pb-c.o: $(O)/gen/pprof.pb-c.c
	$(call msg,CC,$@)$(CC) -std=gnu11 $(SANFLAGS) $(CFLAGS) -I$(O)/gen -fPIC \
		-fvisibility=hidden -c $< -o $@
$(O)/lib/src/profile/profile_pprof.o: CFLAGS += $(if $(filter 1,$(PPROF)),-DPBENCH_HAVE_PROTOBUF_C -I$(O)/gen)
$(O)/lib/src/profile/profile_pprof.o: $(O)/.pprof-$(PPROF) $(if $(filter 1,$(PPROF)),$(O)/gen/pprof.pb-c.h)
$(O)/.pprof-$(PPROF):
	@mkdir -p $(@D)
	$(Q)rm -f $(O)/.pprof-*; touch $@

$(O)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -I$(O)/cli -c $< -o $@

$(O)/cli/support/%.o: cli/support/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Ilib/src -c $< -o $@

$(O)/libpbench-cli.a: $(CLI_SUPPORT_OBJS)
	@rm -f $@
	$(call msg,AR,$@)$(AR) rcs $@ $^

# The -h texts are documentation files, doc/help/<name>.txt (what they may hold:
# scripts/help.awk), made into a header of string literals that every CLI object may include.
HELP_TXTS := $(sort $(wildcard doc/help/*.txt))
$(O)/cli/help.h: $(HELP_TXTS) $(wildcard doc/help/shared/*.txt) scripts/help.awk
	@mkdir -p $(@D)
	$(call msg,GEN,$@)awk -f scripts/help.awk $(HELP_TXTS) > $@
$(CLI_OBJS): $(O)/cli/help.h

$(O)/libpbench.a: $(LIB_OBJS)
	@rm -f $@
	$(call msg,AR,$@)$(AR) rcs $@ $^

$(O)/$(REALNAME): $(LIB_OBJS) lib/libpbench.map
	$(call msg,LD,$@)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/libpbench.map \
		-Wl,--no-undefined $(ALL_LDFLAGS) -o $@ $(LIB_OBJS) $(LIB_LIBS)

$(O)/libpbench.so: $(O)/$(REALNAME)
	$(Q)ln -sf $(REALNAME) $(O)/$(SONAME)
	$(Q)ln -sf $(SONAME) $@

# The allocator shim that counts memory per call (lib/shim/mem.c): linked into a program that
# measures its functions' allocations (-lpbench-mem), preloaded into a command's. Never built
# with sanitizers: the malloc it forwards to is the sanitizer's, and its own bootstrap runs
# before any sanitizer is ready.
$(O)/libpbench-mem.so: lib/shim/mem.c lib/shim/memshim.h
	@mkdir -p $(@D)
	$(call msg,LD,$@)$(CC) $(BASEFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -shared \
		-Wl,-soname,libpbench-mem.so -Wl,--no-undefined -o $@ $< -pthread

# The CLI links the library statically: the binary runs from the build tree as is. Its
# support library first: what it takes from libpbench.a comes after it.
$(O)/pbench: $(CLI_OBJS) $(O)/libpbench-cli.a $(O)/libpbench.a
	$(call msg,LD,$@)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(O)/libpbench-cli.a \
		$(O)/libpbench.a $(CLI_LIBS) $(LIB_LIBS)

PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	     -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	     -e 's|@PG_LIBS@ |$(if $(PG_LIBS),$(PG_LIBS) )|' \
	     -e 's|@DW_LIBS@ |$(if $(DW_LIBS),$(DW_LIBS) )|' \
	     -e 's|@PPROF_LIBS@ |$(if $(PPROF_LIBS),$(PPROF_LIBS) )|'

$(O)/pbench.pc: pbench.pc.in Makefile
	@mkdir -p $(@D)
	$(call msg,GEN,$@)$(PC_SED) $< > $@

# Unit tests of the API see only the public headers: an internal header does not compile
# there. The white-box ones below test internals (the clock's arithmetic, the perf page, event
# resolution, the CPU pick's choice on probes this machine cannot have, results built by hand,
# fault injection, the noise probes' shared rows, the memory runs of commands, the speed's words
# on runs whose factors are set by hand, virt.steal's window on two readings set by hand, the
# symbols module before anything calls it, a
# profile's samples, maps and chains, its exports over hand-made stacks (the flame graph and
# pprof: test_export decodes the pprof file with the generated code), none of them exported
# yet) and see lib/src. All link the
# static library (testutil.h declares its one test hook, pb_recorded_everywhere()).
WHITEBOX_TESTS := test_changepoint test_check_steal test_clock test_events test_jitter test_mem test_mmap test_noise test_pick test_profile test_report test_speed_words test_symbols test_export test_stacks_export
# test_mem runs on the allocator shim, linked in as the docs say (-lpbench-mem); under ASan,
# whose runtime comes first, it preloads the shim into itself (the test says how).
$(O)/tests/test_mem: $(O)/libpbench-mem.so
$(O)/tests/test_mem: TEST_LIBS = -L$(O) -Wl,-rpath,$(abspath $(O)) -lpbench-mem
# test_export and bench_export read pprof's messages through the generated header (PPROF=1).
$(O)/tests/test_export.o $(O)/bench/bench_export.o: CFLAGS += $(if $(filter 1,$(PPROF)),-DPBENCH_HAVE_PROTOBUF_C -I$(O)/gen)
$(O)/tests/test_export.o $(O)/bench/bench_export.o: $(if $(filter 1,$(PPROF)),$(O)/gen/pprof.pb-c.h)
# A test program's object is compiled apart from its link (here, the benches' and the fuzz
# replays' too): a change of the library relinks them (0.2 s each, 0.4 s under ASan) without
# compiling their sources again (2 s each, 5 s under ASan: ~60 programs in each build).
$(UNIT_BINS:=.o): $(O)/tests/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) \
		$(if $(filter $*,$(WHITEBOX_TESTS)),-Ilib/src) -c $< -o $@
$(UNIT_BINS): $(O)/tests/%: $(O)/tests/%.o $(O)/libpbench.a
	$(call msg,LD,$@)$(CC) -o $@ $< $(TEST_OBJS) $(TEST_LIBS) \
		$(O)/libpbench.a $(ALL_LDFLAGS) -lcriterion $(LIB_LIBS)

# The history on a PostgreSQL server (tests/history_pg/run.sh starts one and runs this): libpq
# too, to play another program and count rows apart from pbench. Built where PG=1.
PG_TEST_BINS := $(if $(filter 1,$(PG)),$(O)/tests/history_pg/test_history_pg)
$(O)/tests/history_pg/test_history_pg.o: tests/history_pg/test_history_pg.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) $(ALL_CFLAGS) $(PG_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(O)/tests/history_pg/test_history_pg: $(O)/tests/history_pg/test_history_pg.o $(O)/libpbench.a
	$(call msg,LD,$@)$(CC) -o $@ $< $(O)/libpbench.a $(ALL_LDFLAGS) -lcriterion $(LIB_LIBS)

# test_listing disassembles functions of its own binary: they are compiled alone with known
# flags (-O2, no sanitizer, whatever CFLAGS and SAN say), so that the code the test expects
# (a deleted loop is a ret, a kept one jumps back) does not depend on the build.
$(O)/tests/listing_target.o: tests/unit/listing_target.c tests/unit/listing_target.h
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) -std=gnu11 -O2 $(WARNINGS) -c $< -o $@
$(O)/tests/test_listing: TEST_OBJS := $(O)/tests/listing_target.o
$(O)/tests/test_listing: $(O)/tests/listing_target.o
$(CLI_UNIT_BINS:=.o): CFLAGS += -Icli/support
$(CLI_UNIT_BINS): TEST_OBJS := $(O)/libpbench-cli.a
$(CLI_UNIT_BINS): $(O)/libpbench-cli.a

# test_symbols symbolizes and unwinds code it knows: symbols_target.c compiled alone -O2 -g
# without frame pointers (only CFI finds its callers), sibling calls (each caller stays on the
# stack) or sanitizers (its stack copy reads the callers' frames), and libsymtest.so, a shared
# library it links (a function in it, a static one its stripped copy names from a debug file).
SYMTEST_CFLAGS := -std=gnu11 -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls \
	-fasynchronous-unwind-tables $(WARNINGS)
$(O)/tests/symbols_target.o: tests/unit/symbols_target.c tests/unit/symbols_target.h
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) $(SYMTEST_CFLAGS) -c $< -o $@
$(O)/tests/libsymtest.so: tests/unit/symbols_lib.c tests/unit/symbols_target.h
	@mkdir -p $(@D)
	$(call msg,LD,$@)$(CC) $(SYMTEST_CFLAGS) -fPIC -shared -Wl,--build-id -o $@ $<
$(O)/tests/test_symbols: TEST_OBJS := $(O)/tests/symbols_target.o
$(O)/tests/test_symbols: TEST_LIBS = -L$(O)/tests -Wl,-rpath,$(abspath $(O)/tests) -lsymtest
$(O)/tests/test_symbols: $(O)/tests/symbols_target.o $(O)/tests/libsymtest.so

# test_profile and bench_profile sample a program whose three functions do known shares of its
# work (tests/data/profile/shares.c): built alone with fixed flags (-O1, with frame pointers
# and a copy without), never with a sanitizer, whatever CFLAGS and SAN say.
PROFILE_DATA_BINS := $(O)/tests/data/profile/shares $(O)/tests/data/profile/shares-nofp
$(O)/tests/data/profile/shares: FP_FLAGS := -fno-omit-frame-pointer
$(O)/tests/data/profile/shares-nofp: FP_FLAGS := -fomit-frame-pointer
$(PROFILE_DATA_BINS): tests/data/profile/shares.c
	@mkdir -p $(@D)
	$(call msg,CCLD,$@)$(CC) -std=gnu11 -O1 -g $(FP_FLAGS) $(WARNINGS) -o $@ $< -pthread
$(O)/tests/test_profile $(O)/tests/test_runs_profile $(O)/bench/bench_profile: $(PROFILE_DATA_BINS)
# pbench compare --profile's (tests/cli/t_compare_profile.sh): beta doing 1.33x the work, and
# a fourth function, delta, the rest the same.
PROFILE_VARIANT_BINS := $(O)/tests/data/profile/shares-beta $(O)/tests/data/profile/shares-delta
$(O)/tests/data/profile/shares-beta: VARIANT := -DSHARES_BETA_MORE
$(O)/tests/data/profile/shares-delta: VARIANT := -DSHARES_DELTA
$(PROFILE_VARIANT_BINS): tests/data/profile/shares.c
	@mkdir -p $(@D)
	$(call msg,CCLD,$@)$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer $(VARIANT) $(WARNINGS) -o $@ $< -pthread
$(O)/tests/test_contest_profile: $(PROFILE_DATA_BINS) $(PROFILE_VARIANT_BINS)

# The replay of a fuzz target's corpus: the target and replay.c's main(). Only the ASan+UBSan
# tree builds and runs them.
$(O)/tests/fuzz/replay.o $(REPLAY_BINS:$(O)/tests/fuzz/replay_%=$(O)/tests/fuzz/fuzz_%.o): \
		$(O)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Ilib/src -c $< -o $@
$(REPLAY_BINS): $(O)/tests/fuzz/replay_%: $(O)/tests/fuzz/fuzz_%.o $(O)/tests/fuzz/replay.o \
		$(O)/libpbench.a
	$(call msg,LD,$@)$(CC) -o $@ $< $(O)/tests/fuzz/replay.o $(O)/libpbench.a $(ALL_LDFLAGS) \
		$(LIB_LIBS)

# The libFuzzer build of a target (make fuzz runs this rule with O=$(FUZZ_O) CC=clang).
$(O)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(O)/libpbench.a
	$(call msg,CCLD,$@)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Ilib/src -fsanitize=fuzzer -o $@ $< \
		$(O)/libpbench.a $(ALL_LDFLAGS) $(LIB_LIBS)

# bench_mem times functions with memory counting off and on: on the shim, linked in.
$(O)/bench/bench_mem: $(O)/libpbench-mem.so
$(O)/bench/bench_mem: TEST_LIBS = -L$(O) -Wl,-rpath,$(abspath $(O)) -lpbench-mem
$(BENCH_BINS:=.o) $(BENCH_HELPER_BINS:=.o): $(O)/bench/%.o: bench/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Ilib/src -c $< -o $@
$(BENCH_BINS) $(BENCH_HELPER_BINS): $(O)/bench/%: $(O)/bench/%.o $(O)/libpbench.a
	$(call msg,LD,$@)$(CC) -o $@ $< $(TEST_LIBS) $(O)/libpbench.a $(ALL_LDFLAGS) $(LIB_LIBS)

# The same optimization flags as the C side ($(CFLAGS)), so both harnesses time the same code.
# No -Wshadow: in C++ it flags pbench.h's pbench_clock_info(), a function named like its struct.
GBENCH_CXXFLAGS = -std=gnu++17 -Wall -Wextra $(WERROR) -Wno-missing-field-initializers \
		  -Ilib/include $(SANFLAGS) $(CFLAGS)

$(O)/bench/%: bench/%.cc $(O)/libpbench.a
	@mkdir -p $(@D)
	$(call msg,CXXLD,$@)$(CXX) $(GBENCH_CXXFLAGS) $(DEPFLAGS) -o $@ $< $(O)/libpbench.a \
		$(ALL_LDFLAGS) -lbenchmark -lpthread $(LIB_LIBS)

# The generated header dependencies (see DEPFLAGS); missing ones (a first build) are skipped.
-include $(LIB_OBJS:=.d) $(CLI_OBJS:=.d) $(CLI_SUPPORT_OBJS:=.d) $(UNIT_BINS:=.o.d) $(PG_TEST_BINS:=.o.d) \
	 $(BENCH_BINS:=.o.d) $(BENCH_HELPER_BINS:=.o.d) $(GBENCH_BINS:=.d) \
	 $(REPLAY_BINS:$(O)/tests/fuzz/replay_%=$(O)/tests/fuzz/fuzz_%.o.d) $(O)/tests/fuzz/replay.o.d

# Examples are built the way the docs say: against an installed copy, through pkg-config.
STAGE = $(abspath $(O))/stage

# What make install copies: the staged install is made again when one of them changes (not at
# every make, which built every example again each time).
INSTALLED = $(O)/pbench $(O)/libpbench.a $(O)/$(REALNAME) $(O)/libpbench-mem.so pbench.pc.in \
	    lib/include/pbench.h $(wildcard lib/include/pbench/*.h schema/*.schema.json man/*.1) \
	    completion/pbench.bash Makefile
$(O)/stage/.installed: $(INSTALLED)
	$(MAKE) --no-print-directory install O=$(O) DESTDIR=$(STAGE) PREFIX=/usr >/dev/null
	@touch $@

EXAMPLE_BINS := $(EXAMPLE_SRCS:kmod-free-docs/examples/%.c=$(O)/examples/%)
examples: $(EXAMPLE_BINS)
# An example whose build line says -lpbench-mem (memory.c) gets the allocator shim.
$(EXAMPLE_BINS): $(O)/examples/%: kmod-free-docs/examples/%.c $(O)/stage/.installed
	@mkdir -p $(@D)
	@flags=$$(PKG_CONFIG_SYSROOT_DIR=$(STAGE) \
		PKG_CONFIG_LIBDIR=$(STAGE)/usr/lib/pkgconfig \
		pkg-config --cflags --libs pbench) || exit 1; \
	if grep -q -e '-lpbench-mem' $<; then flags="$$flags -lpbench-mem"; fi; \
	$(if $(Q),echo "  CCLD    $@",echo "$(CC) $< $$flags"); \
	$(CC) $(SANFLAGS) $(WARNINGS) $(CFLAGS) -o $@ $< $$flags

# check-built: everything the tests run, built; check: that, then every test of the build.
check-built: all $(UNIT_BINS) $(PG_TEST_BINS) examples $(BENCH_BINS) $(BENCH_HELPER_BINS) $(if $(SAN),$(REPLAY_BINS))

# TESTS=busy leaves out the unit tests that need the machine to themselves (tests/run.sh).
TESTS ?= all
check: check-built
	@sh tests/run.sh $(O) $(TESTS)

# Tests build as developers do, warnings as errors (DEVELOPER=1), the PMU suite's cross build too.
# tests/all.sh runs the parts two at a time (normal then clang; the PMU suite then ASan+UBSan),
# every part whatever the others did, then the total.
test: deps
	@sh tests/all.sh $(PMU)

demo: deps all
	@echo '$$ pbench check'
	@$(O)/pbench check
	@echo
	@echo '$$ pbench list'
	@$(O)/pbench list
	@echo
	@echo '$$ pbench stat --mode contrast -e task-clock,context-switches,page-faults,msr/tsc/,cycles'
	@$(O)/pbench stat --mode contrast -e task-clock,context-switches,page-faults,msr/tsc/,cycles

bench: deps all $(BENCH_BINS) $(BENCH_HELPER_BINS)
	@if sh scripts/deps.sh bench; then \
		$(MAKE) -q --no-print-directory $(GBENCH_BINS) || \
		$(MAKE) --no-print-directory $(GBENCH_BINS) || exit 1; \
	fi
	@for b in $(BENCH_BINS); do $$b || exit 1; done

# The library and the targets with libFuzzer's coverage (fuzzer-no-link) and ASan+UBSan, then
# FUZZ_TIME seconds of each target in FUZZ_TARGETS, one after the other, one process each.
fuzz: deps
	@sh scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory O=$(FUZZ_O) CC=$(FUZZ_CC) SAN=1 \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link" $(FUZZ_TARGETS:%=$(FUZZ_O)/fuzz_%)
	@sh tests/fuzz/fuzz.sh $(FUZZ_O) $(FUZZ_TIME) $(FUZZ_TARGETS)

# Shrink each corpus to the inputs that give its coverage (libFuzzer -merge=1 into an empty
# directory); the crashes ever found stay.
fuzz-min: deps
	@sh scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory O=$(FUZZ_O) CC=$(FUZZ_CC) SAN=1 \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link" $(FUZZ_TARGETS:%=$(FUZZ_O)/fuzz_%)
	@sh tests/fuzz/fuzz.sh --minimize $(FUZZ_O) $(FUZZ_TARGETS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(O)/pbench $(DESTDIR)$(BINDIR)/pbench
	install -d $(DESTDIR)$(INCLUDEDIR)/pbench
	install -m 0644 lib/include/pbench.h $(DESTDIR)$(INCLUDEDIR)/pbench.h
	install -m 0644 lib/include/pbench/*.h $(DESTDIR)$(INCLUDEDIR)/pbench/
	install -m 0644 $(O)/libpbench.a $(DESTDIR)$(LIBDIR)/libpbench.a
	install -m 0755 $(O)/$(REALNAME) $(DESTDIR)$(LIBDIR)/$(REALNAME)
	ln -sf $(REALNAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libpbench.so
	install -m 0755 $(O)/libpbench-mem.so $(DESTDIR)$(LIBDIR)/libpbench-mem.so
	$(PC_SED) pbench.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/pbench.pc	# this PREFIX, not all's
	install -d $(DESTDIR)$(DATADIR)/pbench/schema
	install -m 0644 schema/*.schema.json $(DESTDIR)$(DATADIR)/pbench/schema/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 completion/pbench.bash $(DESTDIR)$(BASHCOMPDIR)/pbench
	@# A staged install (DESTDIR, as make test's) never touches the system.
	$(Q)$(if $(DESTDIR),:,sh scripts/ldconfig.sh '$(LIBDIR)' '$(LDCONFIG)')

uninstall:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/pbench $(DESTDIR)$(DATADIR)/pbench
	rm -f $(DESTDIR)$(BINDIR)/pbench $(DESTDIR)$(INCLUDEDIR)/pbench.h \
	      $(DESTDIR)$(LIBDIR)/libpbench.a $(DESTDIR)$(LIBDIR)/$(REALNAME) \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libpbench.so \
	      $(DESTDIR)$(LIBDIR)/libpbench-mem.so \
	      $(DESTDIR)$(PKGCONFIGDIR)/pbench.pc $(DESTDIR)$(BASHCOMPDIR)/pbench \
	      $(patsubst man/%,$(DESTDIR)$(MANDIR)/man1/%,$(wildcard man/*.1))

# The hardware-counter suite alone: pbench cross-built for arm64, run in a QEMU guest whose
# kernel drives an emulated PMUv3 (tests/pmu/run.sh says how; PMU=0 skips it).
pmu:
	@sh tests/pmu/run.sh build/pmu $(PMU)

clean:
	rm -rf build
