# sheepsim: `make reports` regenerates reports/ from analyses/, `make test` runs the tests.
# Both create the local virtual environment .venv on first use and install into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ANALYSES := $(wildcard analyses/*.toml)

.PHONY: all reports test test-checked bench clean clean-cache

all: reports

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# --no-compile: byte-compiling every installed package took most of the install's
	# time; Python compiles only the modules it imports, once, on first use.
	$(BIN)/pip install --quiet --no-compile -e '.[test]'
	touch $(STAMP)

# Every report at the scale its analysis file records, remade only where its inputs
# changed (the analysis file, its scale, a sheepsim source it was made from:
# reports/<name>/inputs.json); each line says which. One process per file, so that each
# report records only the sources its own run read. Then the site to click through:
# reports/site/index.html (made from the saved outputs).
reports: $(STAMP)
	@for f in $(ANALYSES); do $(BIN)/sheepsim run $$f --only-changed || exit 1; done
	$(BIN)/sheepsim report reports --out reports/site

# Two pytest workers (pytest-xdist), one file each at a time: numba compiles on one core,
# so a cold run (every kernel compiled) takes about half the time on 2 cores. The games'
# cached kernels are compiled first, two at a time, so the workers do not both compile them.
WORKERS ?= 2
test: $(STAMP)
	$(BIN)/python tests/warm_cache.py
	$(BIN)/python -m pytest tests -n $(WORKERS) --dist loadfile

# The conformance suite once more with every speed trick off and numba's bounds checks
# on (sheepsim/games/fast.py): an index out of range is then an error, not a silent
# read. .ci/run runs it after `make test`; it compiles every kernel again (its own cache).
test-checked: $(STAMP)
	SHEEPSIM_CHECKED=1 NUMBA_BOUNDSCHECK=1 $(BIN)/python -m pytest tests/test_conformance.py -n $(WORKERS)

# Every game's speed in one table, also as JSON (3-5 minutes, most of it cold compiles).
bench: $(STAMP)
	$(BIN)/sheepsim bench --json reports/bench.json

# numba's cache sits in a folder keyed by the package's sources (sheepsim/cache.py), so
# it never goes stale, but old folders pile up: remove every one (and the tests' own).
# Without the venv there is no sheepsim to ask where its folders are.
clean-cache:
	@if [ -x $(BIN)/sheepsim ]; then $(BIN)/sheepsim cache clear --all; fi
	rm -rf .pytest_cache/sheepsim-numba

clean: clean-cache
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis
