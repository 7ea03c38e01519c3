"""The fault robot seen from outside: FaultInjectionSystem components 'Arm' (j1, j2, the
`faults` gpio) and 'Aux' (j3), a velocity controller driving j1 and j2 at 1.5 rad/s,
FaultInjectionController `fic` writing 1.5 to j3/velocity, and two forward controllers
on the gpio that inject read()/write() faults. The components mirror commands to states,
so /joint_states shows what the hardware was last told; each writes a record (the values
of its last write()) on deactivate and shutdown."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, UInt8

from faults.common import Robot, running
from faults.messages import Latest
from faults.robots import FAULT_CONTROLLERS, fault_robot

CONTROLLERS = [
    'joint_state_broadcaster',
    'velocity_controller',
    'read_trigger',
    'write_trigger',
    'fic',
]
ALL_ACTIVE = {name: 'active' for name in CONTROLLERS}
SPEED = 1.5
VELOCITIES = {'Arm': ['j1/velocity', 'j2/velocity'], 'Aux': ['j3/velocity']}


class FaultRig:
    """Publishers and observations of the fault robot."""

    def __init__(self, robot: Robot, records: dict[str, Path]) -> None:
        self.robot = robot
        self.records = records
        node = robot.node
        self.states = Latest(node, JointState, '/joint_states')
        self.velocity_pub = node.create_publisher(
            Float64MultiArray, '/velocity_controller/commands', 10
        )
        self.triggers = {
            'read': node.create_publisher(Float64MultiArray, '/read_trigger/commands', 10),
            'write': node.create_publisher(Float64MultiArray, '/write_trigger/commands', 10),
        }
        self.fic_pub = node.create_publisher(UInt8, '/fic/fault', 10)

    def velocity(self, joint: str) -> float | None:
        msg = self.states.msg
        if msg is None or joint not in msg.name:
            return None
        return msg.velocity[list(msg.name).index(joint)]

    def drive(self) -> bool:
        """Command 1.5 rad/s to j1 and j2 until the hardware (and fic's j3) shows it."""

        def moving() -> bool:
            self.velocity_pub.publish(Float64MultiArray(data=[SPEED, SPEED]))
            self.robot.spin(0.03)
            return all(self.velocity(j) == SPEED for j in ('j1', 'j2', 'j3'))

        return self.robot.poll(moving, 5.0, 0.0)

    def inject(self, where: str, code: float, done: Any, timeout_s: float = 5.0) -> bool:
        """Command fault `code` on the gpio (0 first, so the next value is a change) until
        `done()` (checked with services) says it was handled."""
        pub = self.triggers[where]
        for _ in range(5):
            pub.publish(Float64MultiArray(data=[0.0]))
            self.robot.spin(0.03)

        def handled() -> bool:
            pub.publish(Float64MultiArray(data=[code]))
            return done()

        return self.robot.poll(handled, timeout_s, 0.03)

    def fail_controller(self, code: int, done: Any, timeout_s: float = 5.0) -> bool:
        def handled() -> bool:
            self.fic_pub.publish(UInt8(data=code))
            return done()

        return self.robot.poll(handled, timeout_s, 0.03)

    def record(self, component: str) -> dict:
        path = self.records[component]
        return json.loads(path.read_text()) if path.exists() else {}

    def moving_after_stop(self, component: str) -> list[str]:
        """Velocity commands in `component`'s last recorded write() that are not 0."""
        last = self.record(component).get('last_write', {})
        return [f'{k}={last.get(k)}' for k in VELOCITIES[component] if last.get(k) != 0.0]

    def state_is(self, name: str, state: str) -> bool:
        return (self.robot.controller_states() or {}).get(name) == state

    def hardware_is(self, component: str, state: str) -> bool:
        return (self.robot.hardware_states() or {}).get(component) == state


@contextmanager
def fault_rig(
    controllers: list[str] = CONTROLLERS,
    *,
    aux_params: dict | None = None,
    params: dict | None = None,
    extra_yaml: str = '',
) -> Iterator[FaultRig]:
    """ros2_control_node on the fault robot with `controllers` spawned (`aux_params` for
    the 'Aux' component, `params` for the manager, `extra_yaml` a second parameter file)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        records = {'Arm': folder / 'arm.json', 'Aux': folder / 'aux.json'}
        (folder / 'robot.urdf').write_text(fault_robot(records['Arm'], records['Aux'], aux_params))
        (folder / 'controllers.yaml').write_text(FAULT_CONTROLLERS)
        files = [folder / 'controllers.yaml']
        if extra_yaml:
            (folder / 'extra.yaml').write_text(extra_yaml)
            files.append(folder / 'extra.yaml')
        with running(files, folder / 'robot.urdf', controllers, params=params) as robot:
            yield FaultRig(robot, records)
