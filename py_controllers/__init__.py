"""py_controllers: ros2_control and ros2_controllers as a Python package."""

# first: decides whether the mypyc-compiled hot path or the pure Python runs (compiled.py)
from py_controllers import compiled as _compiled  # noqa: F401
