"""The joint trajectory controller's test rig: the 6-joint arm with a manager in this process
(stepped by the test, or on its real loop), goals through a real action client, trajectories
and log lines through real topics; helpers to build points, trajectories and goals. Test
modules make fixtures of `arm_rig` and `frozen_arm_rig`."""

import gc

import yaml
from builtin_interfaces.msg import Duration as DurationMsg
from control_msgs.action import FollowJointTrajectory
from rclpy.action import ActionClient
from rclpy.parameter import Parameter
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from py_controllers import plugins
from py_controllers.controller_manager.node import ControllerManagerRuntime
from py_controllers.controllers.joint_trajectory.controller import JointTrajectoryController
from py_controllers.hardware.simulated_system import SimulatedSystem
from py_controllers.robot_description import swap_hardware
from py_controllers.testing import CONFIG, RosHarness, SteppedManager

plugins.register(
    plugins.CONTROLLERS_GROUP,
    'joint_trajectory_controller/JointTrajectoryController',
    JointTrajectoryController,
)
plugins.register(plugins.HARDWARE_GROUP, 'py_controllers/SimulatedSystem', SimulatedSystem)

JOINTS = [f'joint{i}' for i in range(1, 7)]
JTC = 'joint_trajectory_controller'
TYPE = 'joint_trajectory_controller/JointTrajectoryController'
PERIOD_NS = 10_000_000  # 100 Hz, as in the arm configurations
MOCK = 'mock_components/GenericSystem'
ARM_URDF = (CONFIG / 'arm_robot.urdf').read_text()
# hardware that never moves: states ignore commands
FROZEN_URDF = swap_hardware(ARM_URDF, MOCK, {'disable_commands': 'true'})
SIM_URDF = swap_hardware(ARM_URDF, 'py_controllers/SimulatedSystem')
R = FollowJointTrajectory.Result


def point(t_s, positions, velocities=None, accelerations=None, effort=None):
    p = JointTrajectoryPoint(positions=[float(x) for x in positions])
    if velocities is not None:
        p.velocities = [float(x) for x in velocities]
    if accelerations is not None:
        p.accelerations = [float(x) for x in accelerations]
    if effort is not None:
        p.effort = [float(x) for x in effort]
    ns = round(t_s * 1e9)
    p.time_from_start = DurationMsg(sec=ns // 10**9, nanosec=ns % 10**9)
    return p


def trajectory(points, names=JOINTS, stamp_ns=0):
    msg = JointTrajectory(joint_names=list(names), points=list(points))
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 10**9)
    return msg


def goal_of(points, names=JOINTS, **fields):
    goal = FollowJointTrajectory.Goal(trajectory=trajectory(points, names))
    for key, value in fields.items():
        setattr(goal, key, value)
    return goal


class _NoAliases(yaml.SafeDumper):
    """rcl's YAML parser refuses anchors and aliases: write shared lists out each time."""

    def ignore_aliases(self, data):
        return True


class Rig:
    """The arm with a manager in this process; stepped by the test unless `stepped=False`."""

    def __init__(self, tmp_path, urdf=ARM_URDF, config='arm_mock_controllers.yaml', **kw):
        variants = kw.get('variants', {})
        extra = tmp_path / 'variants.yaml'
        manager_params = {name: {'type': TYPE} for name in variants}
        if urdf is FROZEN_URDF:
            # the measured state never moves: the joint limiters would (rightly) keep the
            # commands within reach of it; these tests look at the controller alone
            manager_params['enforce_command_limits'] = False
        document = {
            'controller_manager': {'ros__parameters': manager_params},
            **{name: {'ros__parameters': params} for name, params in variants.items()},
        }
        extra.write_text(yaml.dump(document, Dumper=_NoAliases))
        self.harness = RosHarness(
            'jtc_test',
            args=['--ros-args', '--params-file', str(CONFIG / config), '--params-file', str(extra)],
        )
        self.stepped = kw.get('stepped', True)
        if self.stepped:
            start_ns = self.harness.node.get_clock().now().nanoseconds
            self.stepper = SteppedManager(
                self.harness, urdf, period_ns=PERIOD_NS, start_ns=start_ns
            )
            self.node = self.stepper.node
        else:
            self.node = ControllerManagerRuntime(
                self.harness.executor,
                context=self.harness.context,
                args=self.harness.args,
                parameter_overrides=[Parameter('robot_description', value=urdf)],
            )
        self.manager = self.node.manager
        self.rosout = self.harness.subscribe_rosout()
        self._clients = {}
        self._publishers = {}

    # --- the loop --------------------------------------------------------------------
    @property
    def now_ns(self):
        return self.stepper.now_ns

    @now_ns.setter
    def now_ns(self, value):
        self.stepper.now_ns = value

    def step(self, cycles=1):
        self.stepper.step(cycles)

    def run_until(self, predicate, timeout_s=20.0):
        """Spin (and step, when stepped) until `predicate()`; the timeout only guards."""
        if not self.stepped:
            return self.harness.spin_until(predicate, timeout_s)
        return self.stepper.run_until(predicate, timeout_s)

    def run_for(self, seconds):
        """Step `seconds` of controller time while serving callbacks."""
        self.stepper.run_for(seconds)

    # --- controllers -----------------------------------------------------------------
    def start(self, *names):
        for name in names:
            ok, msg = self.manager.load_controller(name)
            assert ok, msg
            ok, msg = self.manager.configure_controller(name)
            assert ok, msg
        ok, msg = self.manager.switch_controller(list(names), [], 2)
        assert ok, msg
        return [self.manager.controllers[n].controller for n in names]

    def position(self, joint):
        return self.manager.rm.state_interfaces[f'{joint}/position'].value

    def positions(self):
        return [self.position(j) for j in JOINTS]

    def command(self, joint, interface='position'):
        return self.manager.rm.command_interfaces[f'{joint}/{interface}'].value

    def logged(self, *texts):
        """True once a /rosout line contains every one of `texts`."""
        return self.rosout.has(*texts)

    def wait_logged(self, *texts):
        """Run until a /rosout line contains every one of `texts`; fail showing /rosout."""
        self.rosout.wait_for(self.run_until, *texts)

    # --- ROS clients -----------------------------------------------------------------
    def client(self, controller=JTC):
        if controller not in self._clients:
            client = ActionClient(
                self.harness.node, FollowJointTrajectory, f'/{controller}/follow_joint_trajectory'
            )
            assert client.wait_for_server(timeout_sec=10.0)
            self._clients[controller] = client
        return self._clients[controller]

    def send_goal(self, goal, controller=JTC, feedback=None):
        future = self.client(controller).send_goal_async(goal, feedback_callback=feedback)
        assert self.harness.spin_until(future.done)
        return future.result()

    def result(self, goal_handle):
        """Run until the goal's result arrives; (status, result)."""
        future = goal_handle.get_result_async()
        assert self.run_until(future.done), 'no result'
        response = future.result()
        return response.status, response.result

    def publish(self, msg, controller=JTC):
        if controller not in self._publishers:
            self._publishers[controller] = self.harness.node.create_publisher(
                JointTrajectory, f'/{controller}/joint_trajectory', 10
            )
            pub = self._publishers[controller]
            assert self.harness.spin_until(lambda: pub.get_subscription_count() > 0)
        self._publishers[controller].publish(msg)

    def close(self):
        self.node.shutdown()
        self.harness.close()
        # An unloaded controller's rcl node is only finalized when its LifecycleNode object is
        # collected; rcl then drops the /rosout publisher registered under its name, even if
        # a newer node (the next test's controller) uses that name by then. Collect now.
        gc.collect()


def position_jtc(**options):
    """Parameters of a JTC commanding every arm joint in position, reading position and
    velocity, with `options` on top."""
    return {
        'joints': JOINTS,
        'command_interfaces': ['position'],
        'state_interfaces': ['position', 'velocity'],
        **options,
    }


def arm_rig(tmp_path):
    """The stepped arm with three variant controllers (fixture `arm`)."""
    rig = Rig(
        tmp_path,
        variants={
            'jtc_partial': position_jtc(allow_partial_joints_goal=True),
            'jtc_bad_combination': {
                'joints': JOINTS,
                'command_interfaces': ['velocity', 'acceleration'],
                'state_interfaces': ['position', 'velocity'],
            },
            'jtc_velocity_without_velocity_state': {
                'joints': JOINTS,
                'command_interfaces': ['velocity'],
                'state_interfaces': ['position'],
            },
        },
    )
    yield rig
    rig.close()


def frozen_arm_rig(tmp_path):
    """The stepped arm on hardware that never moves (fixture `frozen_arm`)."""
    rig = Rig(tmp_path, urdf=FROZEN_URDF)
    yield rig
    rig.close()
