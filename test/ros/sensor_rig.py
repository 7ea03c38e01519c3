"""The sensor tests' rig: a SteppedManager per test (its own context and domain), mock
hardware whose `<sensor>` state interfaces start at `initial_value`s (or are set between
cycles), messages received by a subscriber of the test; helpers to check stamps and refusals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.semantic_components import IMU_INTERFACES, POSE_INTERFACES
from py_controllers.testing import RosHarness, SteppedManager, stamp_ns

S = LifecycleStateId
PERIOD_NS = 10_000_000  # the stepped manager's 100 Hz
IMU_VALUES = dict(zip(IMU_INTERFACES, (0.0, 0.0, 0.6, 0.8, 0.1, -0.2, 0.3, 1.5, -2.5, 9.81)))
FT_VALUES = {'force.x': 1.0, 'force.y': 2.0, 'force.z': 3.0}
FT_VALUES.update({'torque.x': 4.0, 'torque.y': 5.0, 'torque.z': 6.0})
POSE_VALUES = dict(zip(POSE_INTERFACES, (1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8)))
CMD_VEL = '/diff_drive_controller/cmd_vel'


def mock_robot(**sensors: dict[str, float]) -> str:
    """A robot of `<sensor>`s on mock_components/GenericSystem, each interface at its value."""
    body = ''
    for name, interfaces in sensors.items():
        body += f'<sensor name="{name}">'
        for itf, value in interfaces.items():
            body += (
                f'<state_interface name="{itf}">'
                f'<param name="initial_value">{value!r}</param></state_interface>'
            )
        body += '</sensor>'
    return (
        '<?xml version="1.0"?><robot name="sensors"><link name="base"/>'
        '<ros2_control name="MockSensors" type="system">'
        f'<hardware><plugin>mock_components/GenericSystem</plugin></hardware>{body}'
        '</ros2_control></robot>'
    )


class Rig:
    """A stepped manager with the controllers of one test; closed by the fixture."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.harness: RosHarness | None = None
        self.cm: SteppedManager | None = None

    def start(
        self,
        urdf: str,
        controllers: dict[str, tuple[str, dict[str, Any]]] | None = None,
        *,
        params_files: tuple[Path, ...] = (),
    ) -> SteppedManager:
        """`controllers`: name -> (type, parameters); files are given before them."""
        args = ['--ros-args']
        for path in params_files:
            args += ['--params-file', str(path)]
        if controllers:
            manager = {'update_rate': 100}
            document: dict[str, Any] = {'controller_manager': {'ros__parameters': manager}}
            for name, (type_name, params) in controllers.items():
                manager[name] = {'type': type_name}
                document[name] = {'ros__parameters': params}
            path = self.tmp_path / 'controllers.yaml'
            path.write_text(yaml.safe_dump(document))
            args += ['--params-file', str(path)]
        self.harness = RosHarness('sensor_test', args=args)
        self.cm = SteppedManager(self.harness, urdf, period_ns=PERIOD_NS)
        return self.cm

    def subscribe(self, msg_type: Any, topic: str) -> list:
        assert self.harness is not None
        return self.harness.subscribe(msg_type, topic)

    def close(self) -> None:
        if self.cm is not None:
            self.cm.shutdown()
        if self.harness is not None:
            self.harness.close()


def rig_fixture(tmp_path):
    """A Rig, closed after the test (test modules make it the `rig` fixture)."""
    r = Rig(tmp_path)
    yield r
    r.close()


def wait_for(cm: SteppedManager, received: list, predicate=lambda msg: True) -> Any:
    """Step until a message satisfying `predicate` has arrived; the newest such."""
    assert cm.run_until(lambda: any(predicate(m) for m in received)), 'no such message'
    return next(m for m in reversed(received) if predicate(m))


def assert_stamped_by_a_cycle(cm: SteppedManager, msg: Any) -> None:
    """The stamp is the manager's time of one of the cycles run."""
    stamp = stamp_ns(msg)
    assert 0 < stamp <= cm.now_ns and stamp % PERIOD_NS == 0


def refused_configure(cm: SteppedManager, name: str) -> None:
    ok, msg = cm.manager.load_controller(name)
    assert ok, msg
    ok, _ = cm.manager.configure_controller(name)
    assert not ok
    assert cm.manager.state_of(name) == S.UNCONFIGURED


def refused_activation(cm: SteppedManager, name: str, missing: str) -> None:
    (ctrl,) = cm.load(name)
    ok, msg = cm.manager.switch_controller([name], [], 2)
    assert not ok
    assert f"'{missing}'" in msg
    assert cm.manager.state_of(name) == S.INACTIVE
    topic = f'/{name}/{BROADCASTER_TOPICS[name]}'
    assert ctrl.get_node().count_publishers(topic) == 1  # configured


BROADCASTER_TOPICS = {
    'imu_sensor_broadcaster': 'imu',
    'force_torque_sensor_broadcaster': 'wrench',
    'range_sensor_broadcaster': 'range',
    'pose_broadcaster': 'pose',
}
