"""The admittance rule with worked numbers, on a hand-written planar kinematics.

The robot: q = (x, y, theta), a planar base (two prismatic joints and a yaw). Every link
of the double shares the tip's origin, so its Jacobian is exact and constant: x, y and rz
are driven one joint each, z, rx and ry not at all. With the exact inverse (alpha = 0), the
Cartesian dynamics per axis are m x'' = F - D x' - K x - m * joint_damping * x'.
Perfect tracking: the next cycle's current positions are this cycle's command.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from py_controllers.controllers.admittance.admittance_rule import AdmittanceRule, rotation_vector
from py_controllers.controllers.admittance.config import AdmittanceConfig, JointPoint

DT = 0.01  # s


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def homogeneous(rot: np.ndarray, trans=(0.0, 0.0, 0.0)) -> np.ndarray:
    t = np.eye(4)
    t[:3, :3] = rot
    t[:3, 3] = trans
    return t


class PlanarKinematics:
    """A test double with the methods of py_controllers.kinematics.KinematicsInterface.

    Links: base and world (identity), tilted_world (rotated 90 deg about y: gravity, its
    -z, points along base -x), tip (x, y, theta), sensor (tip turned 90 deg about z).
    """

    FIXED = {'base': np.eye(4), 'world': np.eye(4), 'tilted_world': homogeneous(rot_y(math.pi / 2))}
    ON_TIP = {'tip': np.eye(3), 'sensor': rot_z(math.pi / 2)}

    def __init__(self, alpha: float = 0.0) -> None:
        self.alpha = alpha
        self.joint_names = ['x', 'y', 'theta']

    def calculate_link_transform(self, q: np.ndarray, link: str) -> np.ndarray:
        if link in self.FIXED:
            return self.FIXED[link].copy()
        if link not in self.ON_TIP:
            raise KeyError(f"link '{link}' is not in the chain base -> tip")
        return homogeneous(rot_z(q[2]) @ self.ON_TIP[link], (q[0], q[1], 0.0))

    def calculate_jacobian(self, q: np.ndarray, link: str) -> np.ndarray:
        self.calculate_link_transform(q, link)
        jac = np.zeros((6, 3))
        jac[0, 0] = jac[1, 1] = jac[5, 2] = 1.0
        return jac

    def calculate_jacobian_inverse(self, q: np.ndarray, link: str) -> np.ndarray:
        jac = self.calculate_jacobian(q, link)
        return np.linalg.solve(jac.T @ jac + self.alpha * np.eye(3), jac.T)


def config(**overrides) -> AdmittanceConfig:
    values = dict(
        ft_frame='tip',
        control_frame='tip',
        world_frame='world',
        cog_frame='tip',
        cog_pos=(0.0, 0.0, 0.0),
        cog_force=0.0,
        filter_coefficient=1.0,
        mass=(1.0, 1.0, 1.0, 0.1, 0.1, 0.1),
        damping_ratio=(1.0,) * 6,
        stiffness=(100.0, 100.0, 100.0, 10.0, 10.0, 10.0),
        selected_axes=(1.0,) * 6,
        joint_damping=5.0,
    )
    values.update(overrides)
    return AdmittanceConfig(**values)


class Run:
    """A rule and a perfectly tracking robot, stepped with DT."""

    def __init__(self, cfg: AdmittanceConfig, reference=(0.0, 0.0, 0.0)) -> None:
        self.rule = AdmittanceRule(PlanarKinematics(), 3, cfg)
        self.reference = JointPoint.zeros(3)
        self.reference.positions[:] = reference
        self.desired = JointPoint.zeros(3)
        self.q = self.reference.positions.copy()
        self.rule.reset(self.q)

    def step(self, wrench, cycles: int = 1) -> str:
        reason = ''
        for _ in range(cycles):
            reason = self.rule.update(
                self.q, np.asarray(wrench, float), self.reference, DT, self.desired
            )
            self.q = self.desired.positions.copy()
        return reason

    def settle(self, wrench, seconds: float) -> np.ndarray:
        assert self.step(wrench, round(seconds / DT)) == ''
        return self.desired.positions


def test_constant_force_settles_at_force_over_stiffness():
    # F = 10 N along x, K = 100 N/m: x = F / K = 0.1 m; y and theta feel nothing
    run = Run(config(filter_coefficient=0.05))
    x, y, theta = run.settle((10.0, 0, 0, 0, 0, 0), 10.0)
    assert x == pytest.approx(0.1, rel=0.01)
    assert x == pytest.approx(0.1, rel=1e-6)  # and, given the time, exactly
    assert (y, theta) == (0.0, 0.0)
    assert run.desired.velocities == pytest.approx([0.0] * 3, abs=1e-9)


def test_no_force_commands_the_reference():
    run = Run(config(), reference=(0.3, -0.2, 0.5))
    run.step((0.0,) * 6, 50)
    assert run.desired.positions.tolist() == [0.3, -0.2, 0.5]
    assert run.desired.velocities.tolist() == [0.0] * 3


def test_damping_is_ratio_times_critical_damping():
    # D = zeta * 2 * sqrt(m K): 0.5 * 2 * sqrt(2 * 50) = 10; K = 0 gives D = 0
    cfg = config(
        mass=(2.0,) * 6, stiffness=(50.0, 0.0, 50.0, 50.0, 50.0, 50.0), damping_ratio=(0.5,) * 6
    )
    assert cfg.damping.tolist() == [10.0, 0.0, 10.0, 10.0, 10.0, 10.0]
    assert cfg.mass_inv.tolist() == [0.5] * 6


def test_zero_stiffness_moves_at_force_over_mass_times_joint_damping():
    # K = 0 -> D = 0 (upstream's definition): only joint_damping slows the motion;
    # q'' = F / m - joint_damping * q' -> v = F / (m * joint_damping) = 10 / (2 * 5) = 1 m/s
    stiffness = (0.0, 100.0, 100.0, 10.0, 10.0, 10.0)
    run = Run(config(mass=(2.0, 1, 1, 0.1, 0.1, 0.1), stiffness=stiffness))
    run.settle((10.0, 0, 0, 0, 0, 0), 3.0)  # time constant 1 / joint_damping = 0.2 s
    assert run.desired.velocities[0] == pytest.approx(1.0, rel=1e-6)
    before = run.desired.positions[0]
    run.step((10.0, 0, 0, 0, 0, 0))
    assert run.desired.positions[0] - before == pytest.approx(1.0 * DT, rel=1e-6)
    assert run.rule.state.admittance_velocity[0] == pytest.approx(1.0, rel=1e-6)


def test_deselected_axis_never_moves():
    selected = (1.0, 0.0, 1.0, 1.0, 1.0, 1.0)  # y off
    run = Run(config(selected_axes=selected))
    trace = []
    for _ in range(300):
        run.step((10.0, 10.0, 0, 0, 0, 0))
        trace.append(run.desired.positions[1])
    assert trace == [0.0] * 300
    assert run.rule.state.wrench_base[1] == 10.0  # measured, but not let through
    x, _, theta = run.desired.positions
    assert (x, theta) == (pytest.approx(0.1, rel=1e-3), 0.0)


def test_torque_turns_by_torque_over_rotational_stiffness():
    run = Run(config())
    _, _, theta = run.settle((0, 0, 0, 0, 0, 1.0), 10.0)
    assert theta == pytest.approx(0.1, rel=1e-6)  # 1 N m / 10 N m/rad
    assert run.rule.state.admittance_position[:3, :3] == pytest.approx(rot_z(0.1), abs=1e-6)


def test_wrench_is_taken_from_the_sensor_frame():
    # the sensor is turned 90 deg about z: its y axis is base -x, so 10 N along the
    # sensor's y pushes the tip to x = -10 / 100
    run = Run(config(ft_frame='sensor'))
    x, y, _ = run.settle((0.0, 10.0, 0, 0, 0, 0), 10.0)
    assert (x, y) == pytest.approx((-0.1, 0.0), abs=1e-6)
    assert run.rule.state.wrench_base == pytest.approx([-10.0, 0, 0, 0, 0, 0], abs=1e-12)


def test_stiffness_is_diagonal_in_the_control_frame():
    # control frame turned 90 deg about z: base x is its -y axis, stiff at 400 N/m
    stiffness = (100.0, 400.0, 100.0, 10.0, 10.0, 10.0)
    run = Run(config(control_frame='sensor', stiffness=stiffness))
    x, y, _ = run.settle((10.0, 0, 0, 0, 0, 0), 10.0)
    assert (x, y) == pytest.approx((0.025, 0.0), abs=1e-6)


def tool_weight_reading(cog_force: float, cog_pos, world: str) -> np.ndarray:
    """What the sensor (frame 'sensor' at q = 0) reads for a tool of weight cog_force
    at cog_pos (sensor frame), gravity along -z of `world`."""
    kin = PlanarKinematics()
    q = np.zeros(3)
    rot_bs = kin.calculate_link_transform(q, 'sensor')[:3, :3]
    rot_bw = kin.calculate_link_transform(q, world)[:3, :3]
    weight_base = rot_bw @ np.array([0.0, 0.0, -cog_force])
    torque_base = np.cross(rot_bs @ np.asarray(cog_pos), weight_base)
    return np.concatenate([rot_bs.T @ weight_base, rot_bs.T @ torque_base])


def test_gravity_compensation_removes_the_tool_weight():
    # world tilted: gravity points along base -x, so an uncompensated 20 N tool pulls
    # the tip along -x (wrench -20 N) and its lever (0.1 m along base y) turns it with
    # t_z = 0.1 * 20 = 2 N m
    cog_pos = (0.1, 0.0, 0.0)  # sensor x = base y
    reading = tool_weight_reading(20.0, cog_pos, 'tilted_world')
    assert reading[5] == pytest.approx(2.0)
    frames = dict(ft_frame='sensor', cog_frame='sensor', world_frame='tilted_world')

    compensated = Run(config(cog_force=20.0, cog_pos=cog_pos, **frames))
    assert compensated.settle(reading, 2.0).tolist() == pytest.approx([0.0] * 3, abs=1e-12)
    assert compensated.rule.state.wrench_base == pytest.approx([0.0] * 6, abs=1e-12)

    uncompensated = Run(config(cog_force=0.0, cog_pos=cog_pos, **frames))
    uncompensated.step(reading)
    assert uncompensated.rule.state.wrench_base == pytest.approx([-20.0, 0, 0, 0, 0, 2.0])
    x, _, theta = uncompensated.settle(reading, 1.0)
    assert x < -0.1 and theta > 0.1

    # an external push on top of the weight is all that is left
    pushed = reading + np.array([0.0, -10.0, 0, 0, 0, 0])  # sensor -y = base +x
    both = Run(config(cog_force=20.0, cog_pos=cog_pos, **frames))
    x, y, theta = both.settle(pushed, 10.0)
    assert (x, y, theta) == pytest.approx((0.1, 0.0, 0.0), abs=1e-6)


def test_filter_smooths_the_wrench():
    # c = 0.25: 0.25 * 8 = 2, then 0.25 * 8 + 0.75 * 2 = 3.5
    run = Run(config(filter_coefficient=0.25))
    run.step((8.0, 0, 0, 0, 0, 0))
    assert run.rule.state.wrench_base[0] == pytest.approx(2.0)
    run.step((8.0, 0, 0, 0, 0, 0))
    assert run.rule.state.wrench_base[0] == pytest.approx(3.5)


def test_non_finite_wrench_holds_the_last_good_command():
    run = Run(config())
    run.step((10.0, 0, 0, 0, 0, 0), 20)
    held = run.desired.positions.copy()
    assert held[0] > 0.01 and run.desired.velocities[0] > 0.0  # moving
    for bad in (math.nan, math.inf):
        for _ in range(10):
            reason = run.step((bad, 0, 0, 0, 0, 0))
            assert 'wrench' in reason and 'not finite' in reason
            assert run.desired.positions.tolist() == held.tolist()
            assert run.desired.velocities.tolist() == [0.0] * 3
            assert run.desired.accelerations.tolist() == [0.0] * 3
    # good input again: continues from where it held, no jump
    assert run.step((10.0, 0, 0, 0, 0, 0)) == ''
    assert abs(run.desired.positions[0] - held[0]) < 0.005
    x, _, _ = run.settle((10.0, 0, 0, 0, 0, 0), 10.0)
    assert x == pytest.approx(0.1, rel=1e-6)


def test_non_finite_reference_holds_the_last_good_command():
    run = Run(config(), reference=(0.2, 0.0, 0.0))
    run.step((10.0, 0, 0, 0, 0, 0), 20)
    held = run.desired.positions.copy()
    run.reference.positions[1] = math.nan
    reason = run.step((10.0, 0, 0, 0, 0, 0), 5)
    assert 'reference' in reason
    assert run.desired.positions.tolist() == held.tolist()
    run.reference.positions[1] = 0.0
    run.reference.velocities[2] = math.inf
    assert 'reference' in run.step((10.0, 0, 0, 0, 0, 0))
    assert run.desired.positions.tolist() == held.tolist()


def test_kinematics_failure_holds_and_names_the_link():
    run = Run(config())
    run.step((10.0, 0, 0, 0, 0, 0), 20)
    held = run.desired.positions.copy()
    run.rule.set_config(config(control_frame='flange'))
    reason = run.step((10.0, 0, 0, 0, 0, 0))
    assert 'flange' in reason
    assert run.desired.positions.tolist() == held.tolist()
    assert run.rule.check_frames(np.zeros(3)).startswith("'control.frame.id' is 'flange'")
    assert run.rule.check_frames(np.zeros(3), config()) == ''


def test_rotation_vector():
    assert rotation_vector(rot_z(0.3)) == pytest.approx([0.0, 0.0, 0.3])
    assert rotation_vector(rot_y(-1.2)) == pytest.approx([0.0, -1.2, 0.0])
    assert rotation_vector(np.eye(3)).tolist() == [0.0, 0.0, 0.0]
    v = rotation_vector(rot_z(math.pi))
    assert abs(v[2]) == pytest.approx(math.pi) and v[:2] == pytest.approx([0.0, 0.0])
