"""The model-based search (faults/manager_model.py) as a bounded, seeded run: generated
sequences of the manager's operations and faults on four kinds of hardware, the safety
invariants checked after every step. `make faults` runs the long search."""

from hypothesis import HealthCheck, settings

from faults.manager_model import ManagerModel

TestManagerModel = ManagerModel.TestCase
TestManagerModel.settings = settings(
    max_examples=100,
    stateful_step_count=60,
    deadline=None,
    derandomize=True,  # the same search on every run: a failure here is reproducible
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
