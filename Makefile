# make demo / make test work on a fresh machine: each creates or reuses .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test slow bench fuzz venv clean check-emitted

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -n auto -m "not slow"

# the checked-in gradient modules (examples/*_grad.py) are current: zpy emit --check, as a user runs it
check-emitted: $(STAMP)
	cd examples && for g in *_grad.py; do ../$(PY) -m zygote_py emit --check $${g%_grad.py}.py -o $$g || exit 1; done

# the tests marked slow (fourth and fifth derivatives: minutes each)
slow: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -n auto -m slow

bench: $(STAMP)
	$(PY) benchmarks/run.py
	$(PY) benchmarks/tensor_costs.py
	$(PY) benchmarks/disk_cache.py
	$(PY) benchmarks/emit_time.py
	$(PY) benchmarks/realistic.py
	$(PY) benchmarks/import_time.py
	$(PY) benchmarks/dask_gradient.py

# differential fuzzing: 10,000 random programs against finite differences, both modes;
# the second derivatives of 1,000 of them and the third of 100 (issue 36)
fuzz: $(STAMP)
	$(PY) -m tests.robustness.fuzz --programs 10000 --second 1000 --third 100

clean:
	rm -rf $(VENV) build *.egg-info
