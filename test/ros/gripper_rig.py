"""The rig of the gripper action controller tests: config/gripper_robot.urdf, real actions.

The manager runs in-process with its loop thread stopped: the test runs read -> update -> write
itself with a fixed 10 ms period (SteppedManager), so every number depends on cycle counts
only. Goals, cancels and results go through real action clients; parameters are set through
the controller node's parameter API, as ``ros2 param set`` would.

Worked numbers, position and parallel grippers (``gripper_joint``, mock hardware integrating
its position command, URDF velocity limit 0.1 m/s so the manager's joint limits let the joint
move 0.001 m per cycle): a goal is taken by the first cycle after it was accepted (cycle 1);
cycle k measures 0.001 * (k - 1) while moving up and commands 0.001 * k. Goal tolerance 0.01,
stall timeout 0.2 s (config/gripper_controllers.yaml).

Effort gripper (``effort_gripper_joint``, simulated 0.1 kg finger, hard stop at 0.08 m): PID
p = 50, d = 4 on the position error and -velocity, clamped to +-|max_effort|.
"""

import gc

import pytest
import yaml
from control_msgs.action import GripperCommand, ParallelGripperCommand
from rclpy.action import ActionClient
from rclpy.parameter import Parameter

from py_controllers import plugins
from py_controllers.controllers.gripper_action.controller import (
    EffortGripperActionController,
    PositionGripperActionController,
)
from py_controllers.controllers.parallel_gripper.controller import (
    ParallelGripperActionController,
)
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.realtime_tools import realtime_publisher
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

URDF = (CONFIG / 'gripper_robot.urdf').read_text()
PARAMS = CONFIG / 'gripper_controllers.yaml'
PERIOD_NS = 10_000_000  # 100 Hz, as in the parameter file
JOINT = 'gripper_joint'
EFFORT_JOINT = 'effort_gripper_joint'
EFFORT = 'effort_gripper_controller'
P, D = 50.0, 4.0  # gains.effort_gripper_joint in config/gripper_controllers.yaml

# registered here so the tests do not depend on installed entry points
plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)
for _name, _cls in (
    ('position_controllers/GripperActionController', PositionGripperActionController),
    ('effort_controllers/GripperActionController', EffortGripperActionController),
    ('parallel_gripper_action_controller/GripperActionController', ParallelGripperActionController),
):
    plugins.register(plugins.CONTROLLERS_GROUP, _name, _cls)


# --- the two action types behind one face --------------------------------------------------
class Single:
    """position_controllers/GripperActionController: GripperCommand."""

    controller = 'gripper_controller'
    action = GripperCommand

    @staticmethod
    def goal(position, effort=10.0):
        goal = GripperCommand.Goal()
        goal.command.position, goal.command.max_effort = float(position), float(effort)
        return goal

    @staticmethod
    def unpack(result):
        """(position, effort, stalled, reached_goal) of a Result."""
        return result.position, result.effort, result.stalled, result.reached_goal


class Parallel:
    """parallel_gripper_action_controller/GripperActionController: ParallelGripperCommand."""

    controller = 'parallel_gripper_controller'
    action = ParallelGripperCommand

    @staticmethod
    def goal(position, effort=10.0, *, names=None, positions=None, velocity=None):
        goal = ParallelGripperCommand.Goal()
        goal.command.name = [JOINT] if names is None else list(names)
        goal.command.position = [float(position)] if positions is None else list(positions)
        goal.command.effort = [float(effort)] if effort is not None else []
        goal.command.velocity = [float(velocity)] if velocity is not None else []
        return goal

    @staticmethod
    def unpack(result):
        state = result.state
        assert list(state.name) == [JOINT]
        return state.position[0], state.effort[0], result.stalled, result.reached_goal


class _NoAliases(yaml.SafeDumper):
    """rcl's YAML parser refuses anchors and aliases."""

    def ignore_aliases(self, data):
        return True


class Rig:
    """The gripper robot with a stepped manager in this process."""

    def __init__(self, tmp_path, variants=None):
        variants = variants or {}
        extra = tmp_path / 'variants.yaml'
        document = {
            'controller_manager': {
                'ros__parameters': {name: {'type': spec['type']} for name, spec in variants.items()}
            },
            **{name: {'ros__parameters': spec['params']} for name, spec in variants.items()},
        }
        extra.write_text(yaml.dump(document, Dumper=_NoAliases))
        self.harness = RosHarness(
            'gripper_test',
            args=['--ros-args', '--params-file', str(PARAMS), '--params-file', str(extra)],
        )
        self.cm = SteppedManager(self.harness, URDF, period_ns=PERIOD_NS)
        self.manager = self.cm.manager
        self.rosout = self.harness.subscribe_rosout()
        self._clients = {}

    def start(self, name):
        (controller,) = self.cm.start(name)
        return controller

    def cycles(self, count):
        """Run `count` cycles, serving callbacks between them; each cycle's messages (the
        action feedback among them) are sent before the next, as the loop's sleep allows."""
        for _ in range(count):
            self.cm.step()
            assert realtime_publisher.drain(timeout_s=10.0)
            self.harness.executor.spin_once(timeout_sec=0.0)

    def client(self, name, action):
        if name not in self._clients:
            client = ActionClient(self.harness.node, action, f'/{name}/gripper_cmd')
            assert client.wait_for_server(timeout_sec=10.0)
            self._clients[name] = client
        return self._clients[name]

    def send(self, name, action, goal, feedback=None):
        """Send `goal` and serve callbacks (no cycle) until it is accepted or rejected."""
        future = self.client(name, action).send_goal_async(goal, feedback_callback=feedback)
        assert self.harness.spin_until(future.done)
        return future.result()

    def result(self, handle):
        """Run cycles until the goal's result arrives; (status, result)."""
        future = handle.get_result_async()
        assert self.cm.run_until(future.done), 'no result'
        return future.result().status, future.result().result

    def cancel(self, handle):
        """Cancel and serve callbacks (no cycle) until the cancel request is answered."""
        future = handle.cancel_goal_async()
        assert self.harness.spin_until(future.done)
        assert len(future.result().goals_canceling) == 1

    def set(self, controller, **values):
        results = controller.get_node().set_parameters(
            [Parameter(name, value=value) for name, value in values.items()]
        )
        assert all(r.successful for r in results), results

    def position(self, joint=JOINT):
        return self.cm.state(f'{joint}/position')

    def velocity(self, joint=JOINT):
        return self.cm.state(f'{joint}/velocity')

    def command(self, name):
        return self.cm.command(name)

    def logged(self, *texts):
        return self.rosout.has(*texts)

    def wait_logged(self, *texts):
        self.rosout.wait_for(self.harness.spin_until, *texts)

    def close(self):
        self.cm.shutdown()
        self.harness.close()
        gc.collect()  # finalize the controllers' nodes now (see test_joint_trajectory_controller)


KINDS = pytest.mark.parametrize('kind', [Single, Parallel], ids=['position', 'parallel'])
