# The two commands of the README, and a few more. CMake does the real work.
#   make demo   set-up, build, and a short benchmark on the default device
#   make test   build and run every test (CTest)
BUILD ?= build
BUILD_TYPE ?= Release
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SANITIZE ?= 0
CMAKE_FLAGS ?=

ifeq ($(SANITIZE),1)
  CMAKE_FLAGS += -DTALLY_SANITIZE=ON
  BUILD_TYPE := RelWithDebInfo
endif

TALLY := $(BUILD)/tools/tally/tally

.PHONY: all build test test-quick demo bench install deps clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

deps:
	bash scripts/deps.sh

demo: deps build
	$(TALLY) info
	$(TALLY) bench --sizes 2^10..2^26:4 --ops sum,max,argmax,dot,mean,var --dtypes f32

bench: build
	$(TALLY) bench --sizes 2^10..2^28 --ops sum --dtypes f32 --accuracy both

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
