# Two commands matter: `make lab` and `make test`. Everything else is a helper of those.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LAB_STAMP := $(VENV)/.installed-lab
NB := $(wildcard notebooks/*.ipynb)

.PHONY: lab test test-fast pytest nbval pytest-nbval lint dashboard bench binder-check browser-deps clean test-min mutation reproduce student

# Python writes bytecode (__pycache__/, git-ignored) in every recipe, even where the shell sets
# PYTHONDONTWRITEBYTECODE: else each process of a run compiles every module it imports (the
# venv is installed without bytecode) and pytest rewrites each test module's asserts afresh.
unexport PYTHONDONTWRITEBYTECODE

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Install tiers (pyproject.toml): the core is numpy and pandas (library and CLI); [train] adds
# XGBoost, scikit-learn and SciPy (WattGPU, refitting); [lab] the notebooks' needs (JupyterLab,
# Voila, matplotlib, seaborn, ipywidgets, sympy, and [train]); [test] all of them and the test tools.
# `make lab` installs the kit with [lab]; `make test` with everything the tests need.
$(LAB_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[lab]'
	touch $(LAB_STAMP)

# --no-compile: pip byte-compiles none of the ~10,000 modules it installs (28 s of a 50 s install
# on 2 cores); a run compiles the ones it imports, once, as it writes bytecode (above)
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --no-compile -e '.[train,lab,test]'
	touch $(STAMP) $(LAB_STAMP)

# JupyterLab refuses to start as root unless told; containers and CI machines often run as root.
# Rooted at the repository, as on Binder, so data/ and wattgpu_lite/ (which notebook 00 points to)
# can be opened; it opens notebooks/00_start_here.ipynb (without root_dir, Jupyter would root at
# the notebook's folder).
lab: $(LAB_STAMP)
	$(BIN)/jupyter lab $$([ "$$(id -u)" = 0 ] && echo --allow-root) --ServerApp.root_dir=. notebooks/00_start_here.ipynb

# System Chromium for the browser test: installed in CI (as root), looked for elsewhere.
browser-deps:
	@if [ -n "$$CI" ] && ! command -v chromium >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

# The install and Chromium (CI) at once (pip and apt each wait on files and the network much of
# the time), then lint, then the tests and the notebooks in one pytest session.
test:
	$(MAKE) -j2 $(STAMP) browser-deps
	$(MAKE) lint pytest-nbval

lint: $(STAMP)
	$(BIN)/ruff check wattgpu_lite tests benchmarks data/scripts conftest.py
	$(BIN)/ruff format --check wattgpu_lite tests benchmarks data/scripts conftest.py

# Spread over the cores (pytest-xdist), a file on one worker (--dist loadfile): a module fixture
# is computed once per run, a notebook runs in one kernel. The files are handed out in
# collection order (--no-loadscope-reorder), which conftest.py makes the longest first: xdist's
# own order (most tests first) left the one-test files of a minute for the end, one worker idle.
# Not in addopts: binder-check runs nbval without pytest-xdist.
XDIST := -n auto --dist loadfile --no-loadscope-reorder
NBVAL := --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-current-env
pytest: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST) -p no:nbval tests

# Before every commit (under a minute on 2 cores): the tests outside tests/conftest.py's
# SLOW_MODULES — no notebooks, no browser, no fresh venv. `make test` runs everything.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST) -p no:nbval -m "not slow and not install" tests

nbval: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST) $(NBVAL) $(NB)

# `make test`: both in one session, so the short files of either fill the end of the run (two
# sessions each ended on one busy worker) and the workers start once.
pytest-nbval: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST) $(NBVAL) tests $(NB)

# The student edition of the course in student/ (git-ignored): the committed notebooks are the
# instructor edition; this writes them without solutions (each graded answer cell becomes a stub,
# the collapsed solutions and answers go) and without outputs (wattgpu_lite/face/student.py).
# It needs the standard library only (no install step); check it with
# $(BIN)/python -m pytest --nbval-lax --nbval-current-env student/*.ipynb
student: | $(BIN)/python
	$(BIN)/python -m wattgpu_lite.face.student notebooks student

dashboard: $(LAB_STAMP)
	$(BIN)/voila --Voila.ip=127.0.0.1 notebooks/dashboard.ipynb

# Binder rehearsal: a fresh environment with what repo2docker's base environment already holds
# (notebook 7.4.7, which pins jupyterlab < 4.5), then binder/requirements.txt on top of it, as
# repo2docker does; `pip check` fails on a pin that cannot live beside the base; then every
# notebook under nbval in it. Catches a pin that drifted from what the tests pass with.
BINDER_VENV := .binder-venv
REPO2DOCKER_BASE := notebook==7.4.7
binder-check:
	rm -rf $(BINDER_VENV)
	$(PY) -m venv $(BINDER_VENV)
	$(BINDER_VENV)/bin/python -m pip install -q $(REPO2DOCKER_BASE)
	$(BINDER_VENV)/bin/python -m pip install -q -r binder/requirements.txt pytest==9.2.0 nbval==0.11.0
	$(BINDER_VENV)/bin/python -m pip check
	$(BINDER_VENV)/bin/python -m pytest -q --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg $(NB)

# Lower bounds: a fresh environment with exactly the minimum versions pyproject.toml declares
# (tests/lower_bounds.py writes them), then the unit tests. Raise a bound when this fails.
MIN_VENV := .min-venv
test-min:
	rm -rf $(MIN_VENV)
	$(PY) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install -q --upgrade pip
	$(MIN_VENV)/bin/python tests/lower_bounds.py pyproject.toml > $(MIN_VENV)/minimum.txt
	$(MIN_VENV)/bin/python -m pip install -q -r $(MIN_VENV)/minimum.txt
	$(MIN_VENV)/bin/python -m pip install -q --no-deps -e .
	$(MIN_VENV)/bin/python -m pip check
	$(MIN_VENV)/bin/python -m pip list --format=freeze | grep -i -E "$$(cut -d= -f1 $(MIN_VENV)/minimum.txt | paste -sd'|')"
	$(MIN_VENV)/bin/python -m pytest -q -p no:randomly tests

# Mutation testing of the core numeric modules: each mutant must fail a targeted test
# (tests/mutation.py; a few minutes on 2 cores). Prints the score and every surviving mutant.
mutation: $(STAMP)
	$(BIN)/python tests/mutation.py

# The benchmarks, with EcoLogits installed beside the kit (the [bench] extra) so a warm
# prediction is timed against it in the same run
BENCH_STAMP := $(VENV)/.installed-bench
$(BENCH_STAMP): pyproject.toml | $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	touch $(BENCH_STAMP)

bench: $(STAMP) $(BENCH_STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(BINDER_VENV) $(MIN_VENV)

# Rerun one held-out GPU and one held-out LLM of the nested protocol from scratch and compare them
# with the shipped tables (benchmarks/reproduce.py; a few minutes on 2 cores). Exit 1 on a difference.
reproduce: $(STAMP)
	$(BIN)/python benchmarks/reproduce.py
