"""ros2_control_demos' example 7 (the r6bot with its own controller and hardware) brought up
as its launch file does; `send_trajectory` (the example's reference generator, ported) sends
its trajectory and the controller follows it to the end."""

import subprocess

from demos_rig import DemoLaunch, example, expand_xacro, node_parameters, stamped_since

from py_controllers.child_process import ChildProcess
from py_controllers.testing import BIN

JOINTS = [f'joint_{i}' for i in range(1, 7)]


class SendTrajectory(ChildProcess):
    """send_trajectory.launch.py: the node with the URDF as its robot_description."""

    def __init__(self, params_file):
        self.process = subprocess.Popen(
            [str(BIN / 'send_trajectory'), '--ros-args', '--params-file', str(params_file)],
            stdout=self._open_log(),
            stderr=subprocess.STDOUT,
        )


def test_example_7_r6bot_follows_the_reference_trajectory(tmp_path):
    ex = example(7)
    controllers = ex / 'config' / 'r6bot_controller.yaml'
    urdf = expand_xacro(ex / 'urdf' / 'r6bot.urdf.xacro')
    with DemoLaunch('demo_example_7') as demo:
        manager = demo.start_manager([controllers])
        demo.publish_description(urdf)
        demo.spawn('joint_state_broadcaster', 'r6bot_controller', '--param-file', str(controllers))
        demo.assert_states(['r6bot_controller', 'joint_state_broadcaster'])
        demo.wait_for_joints(JOINTS)
        states = demo.joint_states()
        params = node_parameters(tmp_path, 'send_trajectory', {'robot_description': urdf})
        with SendTrajectory(params) as sender:
            assert demo.ros.spin_until(
                lambda: 'Trajectory execution complete.' in manager.output(), timeout_s=40.0
            ), sender._logged() + manager.output()
            assert 'Publishing trajectory with length 200' in sender._logged()
        demo.wait_logged(manager, 'Received new trajectory.')
        # the hardware integrated the commanded velocities: the arm moved, and the last
        # command (the last point, velocities 0) leaves it at rest
        moved = max(abs(p) for msg in states for p in msg.position)
        assert moved > 0.05, moved
        # only messages stamped after that: earlier ones can still be on their way when the
        # host is loaded
        done_ns = demo.ros.node.get_clock().now().nanoseconds
        assert demo.ros.spin_until(lambda: len(stamped_since(states, done_ns)) >= 2)
        after = stamped_since(states, done_ns)
        assert [list(m.velocity) for m in after] == [[0.0] * 6] * len(after)
        assert list(after[-2].position) == list(after[-1].position)
