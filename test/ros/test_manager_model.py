"""The model-based search (faults/manager_model.py) as a bounded, seeded run: generated
sequences of the manager's operations and faults on four kinds of hardware, the safety
invariants checked after every step. `make faults` runs the long search.

Each distro searches its own fixed set of paths, seeded by its rclpy's version: a run is as
reproducible as with one seed for both (a failure names its seed and blob), and the two
distros of a suite run together try twice the paths at the same cost."""

import importlib.metadata
import zlib

from hypothesis import HealthCheck, seed, settings

from faults.manager_model import ManagerModel

RCLPY = importlib.metadata.version('ros-rclpy')
SEED = zlib.crc32(f'manager model, rclpy {RCLPY}'.encode())


@seed(SEED)
class SeededManagerModel(ManagerModel):
    """The model with this distro's seed (a subclass: the shared class keeps none)."""


TestManagerModel = SeededManagerModel.TestCase
TestManagerModel.settings = settings(
    max_examples=100,
    stateful_step_count=60,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
