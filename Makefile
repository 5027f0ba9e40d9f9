# Front door: every target first installs what is missing (scripts/deps.sh).
#   make demo   build (Release), render the meadow and the default world to out/, bench the default
#   make test   build with ASan+UBSan and run every test through CTest; the
#               tests of tests/lavapipe25.cmake run again on Mesa 25's
#               lavapipe as NAME_lavapipe25 from the Release tree's binaries
#   make bench  the default world's CPU benchmark as JSON
#   make fuzz   every libFuzzer target in turn, FUZZ_SECONDS in all (clang)
JOBS    ?= $(shell nproc)
RELEASE := build/release
SANITIZE := build/sanitize
OAK     := $(RELEASE)/oak
# Mesa 25's lavapipe, for make test (scripts/lavapipe25.sh puts it there)
LAVAPIPE25 := $(or $(OAK_LAVAPIPE25_DIR),/opt/oak/lavapipe-25)

.PHONY: all deps deps-test release sanitize demo test bench fuzz clean format

all: release

deps:
	@bash scripts/deps.sh

deps-test:
	@OAK_LAVAPIPE25_DIR=$(LAVAPIPE25) bash scripts/deps.sh test

release: deps
	@cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release -DOAK_TESTS=OFF -DOAK_LAVAPIPE25_BUILD=ON >/dev/null
	@cmake --build $(RELEASE) -j $(JOBS)

sanitize: deps-test
	@cmake -S . -B $(SANITIZE) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOAK_SANITIZE=ON \
	  -DOAK_LAVAPIPE25_DIR=$(LAVAPIPE25) -DOAK_LAVAPIPE25_BIN_DIR=$(CURDIR)/$(RELEASE)/tests >/dev/null
	@cmake --build $(SANITIZE) -j $(JOBS)

demo: release
	@mkdir -p out
	$(OAK) render --world meadow --size 1280x720 --out out/meadow.png
	$(OAK) render --world default --size 1280x720 --out out/default.png
	$(OAK) bench --world default --size 1280x720 --frames 10

test: release sanitize
	@cmake --build $(RELEASE) -j $(JOBS) --target oak_lavapipe25_tests
	@cd $(SANITIZE) && ctest --output-on-failure -j $(JOBS)

FUZZ_SECONDS ?= 60
fuzz: deps
	@bash fuzz/run.sh $(FUZZ_SECONDS)

bench: release
	$(OAK) bench --world default --backend cpu --size 1280x720 --json

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build out
