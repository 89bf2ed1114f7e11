# `make demo` and `make test` each build .venv on first use and install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench clean

$(VENV)/.installed-runtime: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed-runtime
	$(PY) -m pip install -q -e '.[test]'
	touch $@

$(VENV)/.installed-demo: $(VENV)/.installed-runtime
	$(PY) -m pip install -q -e '.[demo]'
	touch $@

# The dispatcher tour, then a short CNN training run (torch's too when torch is installed).
demo: $(VENV)/.installed-demo
	$(PY) -m torchpy.demo
	$(PY) -m torchpy.examples.train_digits

test: $(VENV)/.installed-test
	$(PY) -m pytest

bench: $(VENV)/.installed-test
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
