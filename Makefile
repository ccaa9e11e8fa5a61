# nicsched: a thin driver over CMake. Every target says what it does.
BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
DURATION  ?= 600
BOARD     ?=
CMAKE_ARGS ?=
# What `make run` runs (tools/run.sh), and so all it builds: 128 of the 728 build steps
# (`ninja -t commands nicsim nicagent | wc -l` against `ninja -t commands | wc -l`).
RUN_TARGETS := nicsim nicagent

# Defaults of the agent targets (docs/guides/train.md); each can be given on the command line.
# SEEDS and OUT mean the same in each target but default differently, so they are set per target.
PPO_CONFIG ?= agent/configs/ppo.yaml
ENV_CONFIG ?= agent/configs/env.yaml
STEPS      ?= 40960
POLICY     ?= agent/policies/default
COUNT      ?= 20
regress: SEEDS ?= 200
train: FAMILY ?= sim/families/train.yaml
train: OUT ?= runs/train
eval: FAMILY ?= sim/families/test.yaml
eval: SEEDS ?= 5
eval: OUT ?= runs/eval-test
NICAGENT := $(BUILD_DIR)/agent/nicagent

.PHONY: all deps configure build run test regress formal bench synth bitstream program clean help soak \
        train eval results

all: build

help:
	@echo "make            the same as make all"
	@echo "make all        the same as make build"
	@echo "make deps       install the Debian packages in tools/packages.txt that are missing"
	@echo "make configure  deps + CMake (Ninja, Release) into $(BUILD_DIR)/ (CMAKE_ARGS=... passed to cmake)"
	@echo "make build      configure and build everything into $(BUILD_DIR)/ (JOBS=$(JOBS))"
	@echo "make run        deps + build nicsim and nicagent only, then run the default scenario and print the results table"
	@echo "make test       deps + build, then run the whole test suite (CTest)"
	@echo "make regress    constrained-random RTL regression against the reference model (SEEDS=200)"
	@echo "make soak       soak and fuzz suite: hostile clients, kill -9, mutated YAML and frames (DURATION=$(DURATION) s)"
	@echo "make formal     Yosys formal proofs of the arbiter and crypto slot accounting"
	@echo "make bench      benchmarks; results are written to docs/"
	@echo "make synth      Yosys synth_xilinx of the core; resource table to docs/fpga.md"
	@echo "make train      train a PPO policy on a scenario family, best of its validation draws kept in OUT/best"
	@echo "                (FAMILY=sim/families/train.yaml STEPS=$(STEPS) OUT=runs/train PPO_CONFIG=$(PPO_CONFIG) ENV_CONFIG=$(ENV_CONFIG))"
	@echo "make eval       every baseline, a policy and the oracle on draws of the held-out test family"
	@echo "                (POLICY=$(POLICY) FAMILY=sim/families/test.yaml COUNT=$(COUNT) SEEDS=5 OUT=runs/eval-test)"
	@echo "make results    the family tables of docs/results.md (tools/results.sh; about 90 min on 2 cores)"
	@echo "make bitstream BOARD=u250|vcu118|u280   Vivado bitstream (needs Vivado on the PATH)"
	@echo "make program BOARD=u250|vcu118|u280     load the bitstream over JTAG (Vivado or openFPGALoader)"
	@echo "make clean      remove $(BUILD_DIR)/"
	@echo "make help       this list"

deps:
	@echo "==> deps: checking Debian packages (tools/packages.txt)"
	@bash tools/deps.sh

configure: deps
	@echo "==> configure: CMake (Ninja, Release) in $(BUILD_DIR)/"
	@cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_ARGS) >/dev/null

build: configure
	@echo "==> build: compiling with $(JOBS) jobs (regenerates the register map first)"
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: configure
	@echo "==> run: building $(RUN_TARGETS) only (make build or make test build the rest)"
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target $(RUN_TARGETS)
	@echo "==> run: default scenario (sim/scenarios/default.yaml)"
	@bash tools/run.sh $(BUILD_DIR)

test: build
	@echo "==> test: CTest, whole suite"
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

regress: build
	@echo "==> regress: $(SEEDS) constrained-random seeds, RTL vs reference model"
	@$(BUILD_DIR)/tests/verif/nicsched_regress --seeds $(SEEDS)

train: configure
	@echo "==> train: building nicagent, then nicagent train on $(FAMILY) ($(STEPS) steps) into $(OUT)/"
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target nicagent
	$(NICAGENT) train --family $(FAMILY) --validation-family $(FAMILY) --ppo-config $(PPO_CONFIG) \
	  --env-config $(ENV_CONFIG) --steps $(STEPS) --out $(OUT)

eval: configure
	@echo "==> eval: building nicagent, then nicagent eval of $(POLICY) on $(FAMILY) ($(COUNT) scenarios x $(SEEDS) seeds) into $(OUT)/"
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target nicagent
	$(NICAGENT) eval --policy $(POLICY) --family $(FAMILY) --count $(COUNT) --seeds $(SEEDS) --out $(OUT)

results: configure
	@echo "==> results: building nicagent, then tools/results.sh (docs/results.md's family tables)"
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target nicagent
	@bash tools/results.sh $(BUILD_DIR)

soak: build
	@echo "==> soak: soak and fuzz suite for $(DURATION) s, results in $(BUILD_DIR)/soak.json (docs/reliability.md)"
	@python3 tests/soak/soak.py --build $(BUILD_DIR) --duration $(DURATION) --report $(BUILD_DIR)/soak.json

formal: deps
	@echo "==> formal: Yosys SAT induction proofs"
	@bash constraints/yosys/formal.sh

bench: build
	@echo "==> bench: benchmarks, results to docs/"
	@bash tools/bench.sh $(BUILD_DIR)

synth: deps
	@echo "==> synth: Yosys synth_xilinx -family xcup, table to docs/fpga.md"
	@bash constraints/yosys/synth_report.sh

bitstream:
	@echo "==> bitstream: Vivado non-project flow for BOARD=$(BOARD)"
	@bash constraints/vivado/build.sh "$(BOARD)"

program:
	@echo "==> program: BOARD=$(BOARD)"
	@bash constraints/vivado/program.sh "$(BOARD)"

clean:
	@echo "==> clean: removing $(BUILD_DIR)/"
	@rm -rf $(BUILD_DIR)
