"""The demos' hardware components without ROS, in a resource manager: what on_init refuses
(upstream's words), and each component's law of motion with exact numbers."""

import logging
from types import SimpleNamespace

import pytest

from py_controllers.hardware_interface.resource_manager import ResourceManager
from py_controllers.hardware_interface.types import LifecycleStateId, ReturnType

S = LifecycleStateId
PERIOD = SimpleNamespace(nanoseconds=100_000_000)  # 0.1 s


def robot(plugin, params, joints):
    """A URDF with one `<ros2_control>` system: `joints` maps name -> (commands, states)."""
    links = ''.join(f'<link name="l{i}"/>' for i in range(len(joints) + 1))
    urdf_joints = ''.join(
        f'<joint name="{j}" type="continuous"><parent link="l{i}"/><child link="l{i + 1}"/></joint>'
        for i, j in enumerate(joints)
    )
    hw_params = ''.join(f'<param name="{k}">{v}</param>' for k, v in params.items())
    control = ''.join(
        f'<joint name="{j}">'
        + ''.join(f'<command_interface name="{c}"/>' for c in cmds)
        + ''.join(f'<state_interface name="{s}"/>' for s in states)
        + '</joint>'
        for j, (cmds, states) in joints.items()
    )
    return (
        f'<robot name="r">{links}{urdf_joints}<ros2_control name="Bot" type="system">'
        f'<hardware><plugin>{plugin}</plugin>{hw_params}</hardware>{control}</ros2_control>'
        '</robot>'
    )


RRBOT_PARAMS = {
    'example_param_hw_start_duration_sec': '0',
    'example_param_hw_stop_duration_sec': '0',
    'example_param_hw_slowdown': '4',
}
POSITION = (['position'], ['position'])


def loaded(urdf):
    """The component 'Bot' of `urdf`, active in a resource manager."""
    rm = ResourceManager(update_rate=10)
    rm.load_urdf(urdf)
    assert rm.set_component_state('Bot', S.ACTIVE)
    return rm.components['Bot'].component


def test_rrbot_moves_a_quarter_of_the_way_each_read():
    bot = loaded(
        robot(
            'ros2_control_demo_example_1/RRBotSystemPositionOnlyHardware',
            RRBOT_PARAMS,
            {'j1': POSITION},
        )
    )
    bot.set_command('j1/position', 1.0)
    trace = []
    for _ in range(3):
        assert bot.read(None, PERIOD) == ReturnType.OK
        trace.append(bot.get_state('j1/position'))
    assert trace == [0.25, 0.4375, 0.578125]


@pytest.mark.parametrize(
    ('params', 'joints', 'said'),
    [
        (
            RRBOT_PARAMS,
            {'j1': (['velocity'], ['position'])},
            "Joint 'j1' have velocity command interfaces found. 'position' expected.",
        ),
        (RRBOT_PARAMS, {'j1': (['position'], [])}, "Joint 'j1' has 0 state interface. 1 expected."),
        (
            {**RRBOT_PARAMS, 'example_param_hw_slowdown': 'fast'},
            {'j1': POSITION},
            "'example_param_hw_slowdown' is not a number: 'fast'",
        ),
        (
            {**RRBOT_PARAMS, 'example_param_hw_slowdown': '0'},
            {'j1': POSITION},
            "'example_param_hw_slowdown' must not be 0",
        ),
        (
            {'example_param_hw_start_duration_sec': '0'},
            {'j1': POSITION},
            "'example_param_hw_stop_duration_sec' is missing",
        ),
    ],
)
def test_rrbot_refuses_what_upstream_refuses(caplog, params, joints, said):
    rm = ResourceManager(update_rate=10)
    with caplog.at_level(logging.CRITICAL), pytest.raises(RuntimeError, match='on_init failed'):
        rm.load_urdf(
            robot('ros2_control_demo_example_1/RRBotSystemPositionOnlyHardware', params, joints)
        )
    assert said in caplog.text


def test_multi_interface_follows_the_mode_the_switch_gave():
    kinds = ['position', 'velocity', 'acceleration']
    bot = loaded(
        robot(
            'ros2_control_demo_example_3/RRBotSystemMultiInterfaceHardware',
            RRBOT_PARAMS,
            {'j1': (kinds, kinds), 'j2': (kinds, kinds)},
        )
    )
    # nothing claimed: nothing moves
    bot.set_command('j1/velocity', 1.0)
    bot.read(None, PERIOD)
    assert bot.get_state('j1/position') == 0.0
    assert bot.prepare_command_mode_switch(['j1/velocity'], []) == ReturnType.ERROR  # one joint
    assert bot.prepare_command_mode_switch(['j1/velocity', 'j2/position'], []) == ReturnType.ERROR
    assert bot.prepare_command_mode_switch(['j1/velocity', 'j2/velocity'], []) == ReturnType.OK
    bot.read(None, PERIOD)  # prepared, not switched: the loop still runs the old mode
    assert bot.get_state('j1/position') == 0.0
    assert bot.perform_command_mode_switch(['j1/velocity', 'j2/velocity'], []) == ReturnType.OK
    bot.set_command('j2/velocity', -2.0)
    bot.read(None, PERIOD)
    # velocity state = command, position += v * dt / slowdown
    assert [bot.get_state(n) for n in ('j1/velocity', 'j1/position', 'j2/position')] == [
        1.0,
        1.0 * 0.1 / 4,
        -2.0 * 0.1 / 4,
    ]
    # acceleration: v += a dt / s, then p += v dt / s
    switch = (['j1/acceleration', 'j2/acceleration'], ['j1/velocity', 'j2/velocity'])
    assert bot.prepare_command_mode_switch(*switch) == ReturnType.OK
    assert bot.prepare_command_mode_switch(['j1/position', 'j2/position'], []) == ReturnType.ERROR
    assert bot.perform_command_mode_switch(*switch) == ReturnType.OK
    assert bot.get_command('j1/position') == 0.025  # stopping joints hold where they are
    bot.set_command('j1/acceleration', 8.0)
    bot.read(None, PERIOD)
    assert bot.get_state('j1/velocity') == 1.0 + 8.0 * 0.1 / 4
    assert bot.get_state('j1/position') == 0.025 + (1.0 + 8.0 * 0.1 / 4) * 0.1 / 4


def test_carlikebot_steers_where_told_and_integrates_its_wheel():
    bot = loaded(
        robot(
            'ros2_control_demo_example_11/CarlikeBotSystemHardware',
            {'example_param_hw_start_duration_sec': '0', 'example_param_hw_stop_duration_sec': '0'},
            {
                'front_steer': (['position'], ['position']),
                'rear_drive': (['velocity'], ['velocity', 'position']),
            },
        )
    )
    bot.set_command('front_steer/position', 0.3)
    bot.set_command('rear_drive/velocity', 2.0)
    bot.read(None, PERIOD)
    bot.read(None, PERIOD)
    assert bot.get_state('front_steer/position') == 0.3
    assert bot.get_state('rear_drive/velocity') == 2.0
    assert bot.get_state('rear_drive/position') == pytest.approx(0.4, abs=1e-15)


def test_carlikebot_needs_exactly_two_joints(caplog):
    rm = ResourceManager(update_rate=10)
    params = {'example_param_hw_start_duration_sec': '0', 'example_param_hw_stop_duration_sec': '0'}
    with caplog.at_level(logging.ERROR), pytest.raises(RuntimeError):
        rm.load_urdf(
            robot(
                'ros2_control_demo_example_11/CarlikeBotSystemHardware',
                params,
                {'a_front': POSITION},
            )
        )
    assert 'because the number of joints 1 is not 2.' in caplog.text


def test_r6bot_hardware_integrates_the_velocity_command():
    both = (['position', 'velocity'], ['position', 'velocity'])
    bot = loaded(robot('ros2_control_demo_example_7/RobotSystem', {}, {'j1': both}))
    bot.set_command('j1/velocity', 0.5)
    bot.set_command('j1/position', 9.0)  # not used: the position integrates the velocity
    bot.read(None, PERIOD)
    assert (bot.get_state('j1/velocity'), bot.get_state('j1/position')) == (0.5, 0.05)


def test_gazebo_system_is_refused_naming_mujoco(caplog):
    rm = ResourceManager(update_rate=10)
    with caplog.at_level(logging.ERROR), pytest.raises(RuntimeError, match='on_init failed'):
        rm.load_urdf(robot('gz_ros2_control/GazeboSimSystem', {}, {'j1': POSITION}))
    assert 'py_controllers/MujocoSystem' in caplog.text and 'docs/mujoco.md' in caplog.text
