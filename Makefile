# The two commands of the README: `make demo` and `make test`. Both set up first.
.PHONY: setup demo test bench lint

setup:
	@bash scripts/setup.sh

demo: setup
	@.venv/bin/python -m py_controllers.demo $(ARGS)

test: setup
	@.venv/bin/python -m pytest -q -p no:cacheprovider test

bench: setup
	@.venv/bin/python -m bench $(ARGS)

# ruff everywhere; mypy on the ROS-free packages ([tool.mypy] files in pyproject.toml)
lint: setup
	@.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy

.PHONY: faults
faults: setup
	@.venv/bin/python -m faults $(ARGS)

.PHONY: dashboard screenshots
dashboard: setup
	@.venv/bin/py-controllers dashboard $(ARGS)

screenshots: setup
	@.venv/bin/python scripts/dashboard_screenshots.py $(ARGS)
