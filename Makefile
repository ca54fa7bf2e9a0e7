# Two commands matter: `make lab` and `make test`. Everything else is a helper of those.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NB := $(wildcard notebooks/*.ipynb)

.PHONY: lab test pytest nbval lint dashboard bench binder-check browser-deps clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[lab,test]'
	touch $(STAMP)

# JupyterLab refuses to start as root unless told; containers and CI machines often run as root.
lab: $(STAMP)
	$(BIN)/jupyter lab $$([ "$$(id -u)" = 0 ] && echo --allow-root) notebooks/00_start_here.ipynb

# System Chromium for the browser test: installed in CI (as root), looked for elsewhere.
browser-deps:
	@if [ -n "$$CI" ] && ! command -v chromium >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

test: $(STAMP) browser-deps lint pytest nbval

lint: $(STAMP)
	$(BIN)/ruff check wattgpu_lite tests benchmarks data/scripts conftest.py
	$(BIN)/ruff format --check wattgpu_lite tests benchmarks data/scripts conftest.py

pytest: $(STAMP)
	$(BIN)/python -m pytest -q tests

nbval: $(STAMP)
	$(BIN)/python -m pytest -q --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg \
		--nbval-current-env $(NB)

dashboard: $(STAMP)
	$(BIN)/voila --Voila.ip=127.0.0.1 notebooks/dashboard.ipynb

# Binder rehearsal: a fresh environment from binder/requirements.txt alone (plus the notebook tester),
# then every notebook under nbval in it. Catches a pin that drifted from what the tests pass with.
BINDER_VENV := .binder-venv
binder-check:
	rm -rf $(BINDER_VENV)
	$(PY) -m venv $(BINDER_VENV)
	$(BINDER_VENV)/bin/python -m pip install -q -r binder/requirements.txt pytest==9.2.0 nbval==0.11.0
	$(BINDER_VENV)/bin/python -m pytest -q --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg $(NB)

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(BINDER_VENV)
