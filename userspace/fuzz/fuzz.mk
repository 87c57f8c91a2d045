# Fuzzing with libFuzzer (clang), included by userspace/Makefile.
#
#   make fuzz-build     the targets in build-fuzz/: fuzz_stream (reader and
#                       summary), fuzz_analysis (analysis, diagnosis and
#                       reports), fuzz_window (the same by time window),
#                       fuzz_ksyms (kallsyms parser),
#                       fuzz_categories (--categories files)
#   make fuzz-regress   each target over its corpus fuzz/corpus/<target>/
#                       once (KTAP; part of make check)
#   make fuzz-seeds     rewrite the synthetic seeds (fuzz/gen_seeds.c)
#
# Longer runs: scripts/fuzz.sh [SECONDS] [TARGET...].

FUZZ_CC      ?= clang
FUZZ_BUILD   := build-fuzz
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all
FUZZ_TARGETS := stream analysis window ksyms categories tracedat
FUZZ_BINS    := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_TARGETS))
FUZZ_LIB     := $(FUZZ_BUILD)/lib/libnsight.a
FUZZ_ANA     := $(call objs,$(FUZZ_BUILD),$(ANA_SRCS))
# The targets that print nsight-analyze's reports link analyze/'s objects;
# the others libnsight.a alone.
FUZZ_REPORTS := stream analysis window

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(BASE_FLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(CPPFLAGS) -Ifuzz \
		$(DEPFLAGS) -c -o $@ $<

$(FUZZ_BUILD)/lib/diagnose/categories_builtin.o: $(GEN)/categories_csv.h

$(FUZZ_LIB): $(call objs,$(FUZZ_BUILD),$(LIB_SRCS))
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(filter %.a,$^) $(PKG_LIBS)

$(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_REPORTS)): $(FUZZ_ANA)

.PHONY: fuzz-build fuzz-regress fuzz-seeds
fuzz-build: $(FUZZ_BINS)

fuzz-regress: $(FUZZ_BINS)
	@sh fuzz/regress.sh $(FUZZ_BUILD) fuzz/corpus $(FUZZ_TARGETS)

# Synthetic seeds: diagnosis scenarios, TX, TCP, PHC, STATUS, PT, symbols.
GEN_SEEDS := $(ASAN_BUILD)/fuzz/gen_seeds

$(GEN_SEEDS): $(ASAN_BUILD)/fuzz/gen_seeds.o $(ASAN_CTL_OBJS) $(ASAN_LIBNSIGHT)
	$(ASAN_LINK)

fuzz-seeds: $(GEN_SEEDS)
	@mkdir -p fuzz/corpus
	./$(GEN_SEEDS) fuzz/corpus
