"""chained_filter_controller/ChainedFilter on mock hardware: the filtered state interfaces it
exports, read back over DDS through a joint state broadcaster (dynamic_joint_states), with
the numbers of upstream's test_chained_filter / test_multiple_chained_filter and a low pass
chain from config/chained_filter.yaml. A SteppedManager per test (sensor_rig.py)."""

from __future__ import annotations

import math

import pytest
from control_msgs.msg import DynamicJointState
from sensor_rig import refused_configure, rig_fixture, stamp_ns

from py_controllers.filters.low_pass import low_pass_coefficient
from py_controllers.hardware_interface.types import LifecycleStateId
from py_controllers.testing import CONFIG

rig = pytest.fixture(rig_fixture, name='rig')

CF = 'chained_filter_controller/ChainedFilter'
JSB = 'joint_state_broadcaster/JointStateBroadcaster'
TOPIC = '/filtered_state_broadcaster/dynamic_joint_states'
URDF = (CONFIG / 'chained_filter_robot.urdf').read_text()
MEAN_2 = {'type': 'filters/MeanFilterDouble', 'params': {'number_of_observations': 2}}
WHEELS = {
    'input_interfaces': ['wheel_left/position', 'wheel_right/position'],
    'output_interfaces': ['wheel_left/filtered_position', 'wheel_right/filtered_position'],
}


def broadcaster(*joints: str) -> dict:
    return {
        'use_local_topics': True,
        'use_urdf_to_filter': False,
        'joints': [f'chained_filter/{j}' for j in joints],
        'interfaces': ['filtered_position'],
    }


class Reader:
    """Steps the manager one cycle and returns the filtered values the broadcaster
    published for that cycle (joint -> value), as received over DDS."""

    def __init__(self, rig) -> None:
        self.cm = rig.cm
        self.received = rig.subscribe(DynamicJointState, TOPIC)

    def step(self) -> dict[str, float]:
        self.cm.step()
        now = self.cm.now_ns
        assert self.cm.harness.spin_until(lambda: any(stamp_ns(m) == now for m in self.received))
        msg = next(m for m in self.received if stamp_ns(m) == now)
        values = {}
        for joint, itf in zip(msg.joint_names, msg.interface_values):
            assert list(itf.interface_names) == ['filtered_position']
            values[joint.removeprefix('chained_filter/')] = itf.values[0]
        return values

    def set_input(self, joint: str, value: float) -> None:
        self.cm.manager.rm.state_interfaces[f'{joint}/position'].value = value


def start(rig, cf_params: dict, joints: tuple[str, ...] = ('wheel_left',)) -> Reader:
    controllers = {
        'chained_filter': (CF, cf_params),
        'filtered_state_broadcaster': (JSB, broadcaster(*joints)),
    }
    rig.start(URDF, controllers)
    reader = Reader(rig)
    rig.cm.start('chained_filter')
    rig.cm.start('filtered_state_broadcaster')
    return reader


def test_mean_chain_reproduces_upstream_update_filter(rig):
    # test_chained_filter UpdateFilter: 1.1, then the input steps to 2.0: 1.55, then 2.0
    params = {
        'input_interfaces': ['wheel_left/position'],
        'output_interfaces': ['wheel_left/filtered_position'],
        'filter_chain': {'filter1': {'name': 'filter1', **MEAN_2}},
    }
    reader = start(rig, params)
    exported = rig.cm.manager.rm.state_interfaces['chained_filter/wheel_left/filtered_position']
    assert reader.step() == {'wheel_left': 1.1}
    reader.set_input('wheel_left', 2.0)
    assert reader.step() == {'wheel_left': 1.55}
    assert reader.step() == {'wheel_left': 2.0}
    assert exported.value == 2.0
    assert rig.cm.state('wheel_left/position') == 2.0  # the input is left alone


def test_one_chain_for_every_input_and_one_chain_per_input(rig):
    # test_multiple_chained_filter: a shared mean of 2 (1.1 -> 2.0 and 2.2 -> 3.0), ...
    shared = {**WHEELS, 'filter_chain': {'filter1': {'name': 'position_filter', **MEAN_2}}}
    reader = start(rig, shared, ('wheel_left', 'wheel_right'))
    assert reader.step() == {'wheel_left': 1.1, 'wheel_right': 2.2}
    reader.set_input('wheel_left', 2.0)
    reader.set_input('wheel_right', 3.0)
    assert reader.step() == {'wheel_left': 1.55, 'wheel_right': 2.6}
    assert reader.step() == {'wheel_left': 2.0, 'wheel_right': 3.0}


def test_per_input_chains_have_their_own_windows(rig):
    # ... and config per input: left a mean of 2, right a mean of 3 (2.2 -> 2.8)
    mean_3 = {'type': 'filters/MeanFilterDouble', 'params': {'number_of_observations': 3}}
    per_input = {
        **WHEELS,
        'wheel_left/position': {'filter_chain': {'filter1': {'name': 'left', **MEAN_2}}},
        'wheel_right/position': {'filter_chain': {'filter1': {'name': 'right', **mean_3}}},
    }
    reader = start(rig, per_input, ('wheel_left', 'wheel_right'))
    assert reader.step() == {'wheel_left': 1.1, 'wheel_right': 2.2}
    reader.set_input('wheel_left', 2.0)
    reader.set_input('wheel_right', 2.8)
    assert reader.step() == {'wheel_left': 1.55, 'wheel_right': 2.5}
    assert reader.step() == {'wheel_left': 2.0, 'wheel_right': 2.6}
    assert reader.step()['wheel_right'] == pytest.approx(2.8, abs=1e-5)


def test_low_pass_chain_from_the_example_configuration(rig):
    # config/chained_filter.yaml: sampling 100 Hz, damping 5 Hz, intensity 1
    rig.start(URDF, params_files=(CONFIG / 'chained_filter.yaml',))
    reader = Reader(rig)
    rig.cm.start('chained_filter')
    rig.cm.start('filtered_state_broadcaster')
    a = low_pass_coefficient(100.0, 5.0, 1.0)
    assert a == pytest.approx(0.673341, abs=1e-6)  # exp(-2 pi 5 / (100 * 10^-0.1))
    b = 1.0 - a
    assert reader.step() == {'wheel_left': 1.1, 'wheel_right': 2.2}
    reader.set_input('wheel_left', 2.0)
    # y(n) = b x(n-1) + a y(n-1): the step shows one cycle later
    assert reader.step() == {'wheel_left': 1.1, 'wheel_right': 2.2}
    expected = 1.1
    for _ in range(5):
        expected = b * 2.0 + a * expected
        assert reader.step()['wheel_left'] == expected
    assert expected == pytest.approx(2.0 - 0.9 * a**5)


def test_non_finite_input_is_not_filtered_and_the_export_holds(rig):
    params = {
        'input_interfaces': ['wheel_left/position'],
        'output_interfaces': ['wheel_left/filtered_position'],
        'filter_chain': {'filter1': {'name': 'filter1', **MEAN_2}},
    }
    reader = start(rig, params)
    exported = rig.cm.manager.rm.state_interfaces['chained_filter/wheel_left/filtered_position']
    assert math.isnan(exported.value)  # NaN from activation until the first update
    assert reader.step() == {'wheel_left': 1.1}
    reader.set_input('wheel_left', math.nan)
    assert reader.step() == {'wheel_left': 1.1}
    reader.set_input('wheel_left', math.inf)
    assert reader.step() == {'wheel_left': 1.1}
    reader.set_input('wheel_left', 2.0)
    assert reader.step() == {'wheel_left': 1.55}  # the window holds 1.1 and 2.0 only


@pytest.mark.parametrize(
    'params',
    [
        # test_chained_filter ConfigureFailureWithWrongInterfaceSizes
        {
            'input_interfaces': ['wheel_left/position'],
            'output_interfaces': ['wheel_left/filtered_position', 'extra_interface'],
        },
        {**WHEELS, 'filter_chain': {'filter1': {'name': 'x', 'type': 'control_filters/Nope'}}},
        {
            **WHEELS,
            'filter_chain': {
                'filter1': {
                    'name': 'lpf',
                    'type': 'control_filters/LowPassFilterDouble',
                    'params': {'sampling_frequency': 100.0, 'damping_frequency': 5.0},
                }
            },
        },
        {'output_interfaces': ['wheel_left/filtered_position']},
    ],
    ids=['sizes', 'unknown_type', 'missing_filter_param', 'no_inputs'],
)
def test_a_broken_configuration_is_refused_at_configure(rig, params):
    rig.start(URDF, {'chained_filter': (CF, params)})
    refused_configure(rig.cm, 'chained_filter')
    assert rig.cm.manager.state_of('chained_filter') == LifecycleStateId.UNCONFIGURED
