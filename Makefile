# The two commands of the README: `make demo` and `make test`. Both set up first.
# ROS_DISTRO=kilted|jazzy on the command line picks the wheels (kilted: .venv, jazzy:
# .venv-jazzy); without it `make test` runs the suite on both, as .ci/run does, and every
# other target uses kilted. A ROS_DISTRO from a sourced ROS environment is not taken.
ifeq ($(origin ROS_DISTRO),command line)
DISTRO := $(ROS_DISTRO)
TEST_DISTROS := $(ROS_DISTRO)
else
DISTRO := kilted
TEST_DISTROS := kilted jazzy
endif
VENV := $(if $(filter jazzy,$(DISTRO)),.venv-jazzy,.venv)

.PHONY: setup demo test bench lint faults dashboard screenshots

setup:
	@bash scripts/setup.sh $(DISTRO)

demo: setup
	@$(VENV)/bin/python -m py_controllers.demo $(ARGS)

test:
	@bash scripts/test_distros.sh $(TEST_DISTROS)

bench: setup
	@$(VENV)/bin/python -m bench $(ARGS)

# ruff everywhere; mypy on the ROS-free packages ([tool.mypy] files in pyproject.toml)
lint: setup
	@$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check . && $(VENV)/bin/mypy

faults: setup
	@$(VENV)/bin/python -m faults $(ARGS)

dashboard: setup
	@$(VENV)/bin/py-controllers dashboard $(ARGS)

screenshots: setup
	@$(VENV)/bin/python scripts/dashboard_screenshots.py $(ARGS)
