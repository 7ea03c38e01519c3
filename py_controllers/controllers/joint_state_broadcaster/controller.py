"""`joint_state_broadcaster/JointStateBroadcaster`: state interfaces to /joint_states.

Publishes sensor_msgs/JointState (position, velocity, effort per joint; NaN where a
joint lacks the interface) and control_msgs/DynamicJointState (every interface of every
claimed prefix) each update, through realtime publishers filled in place.

Joint order in /joint_states, as upstream's broadcaster produces it (jazzy, kilted and
rolling; checked against joint_state_broadcaster.cpp):

1. `joints` and `interfaces` set: the order of `joints`.
2. otherwise, with `use_urdf_to_filter` (the default) and a robot description that
   parses: the movable URDF joints (not fixed; prefixes that are no URDF joint, such as
   sensors or GPIOs, are left out) sorted by name. Upstream's user documentation says
   "the order of the joints in the URDF file", but its code walks urdf::Model::joints_,
   a std::map, so the order users get is by name; we give the same.
3. otherwise: the order of the state interfaces handed over by the resource manager (the
   order the hardware components registered them).

`extra_joints` follow, each once and only if no claimed state interface has that prefix
already (upstream's rule), with position, velocity and effort 0.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from control_msgs.msg import DynamicJointState, InterfaceValue
from sensor_msgs.msg import JointState

from py_controllers.controller_interface.controller_interface import (
    CallbackReturn,
    ControllerInterface,
    InterfaceConfiguration,
    ReturnType,
)
from py_controllers.hardware_interface.types import RETURN_OK
from py_controllers.hardware_interface.urdf import parse_urdf_joints
from py_controllers.parameters.controller_parameters import ControllerParameters
from py_controllers.realtime_tools import RealtimePublisher
from py_controllers.realtime_tools.serialized_message import SerializedMessage
from py_controllers.ros_conversions import HandleCopies, bind_array, set_stamp

_FIELDS = ('position', 'velocity', 'effort')
_MOVABLE = ('revolute', 'continuous', 'prismatic', 'planar', 'floating')


class JointStateBroadcaster(ControllerInterface):
    """Reads state interfaces, publishes joint_states and dynamic_joint_states."""

    SCHEMA = Path(__file__).parent / 'joint_state_broadcaster_parameters.yaml'

    def on_init(self) -> CallbackReturn:
        self.parameters = ControllerParameters(self.get_node(), self.SCHEMA)
        return CallbackReturn.SUCCESS

    def on_configure(self, previous_state: Any) -> CallbackReturn:
        params = self.parameters.load()
        if params is None:
            return CallbackReturn.ERROR
        self.params = params
        if bool(params.joints) != bool(params.interfaces):
            self.get_node().get_logger().warning(
                "'joints' and 'interfaces' work together: with only one of them set, "
                'every state interface is published'
            )
        node = self.get_node()
        prefix = '~/' if params.use_local_topics else ''
        self._joint_pub = node.create_publisher(JointState, f'{prefix}joint_states', 10)
        self._dynamic_pub = None
        if params.publish_dynamic_joint_states:
            self._dynamic_pub = node.create_publisher(
                DynamicJointState, f'{prefix}dynamic_joint_states', 10
            )
        return CallbackReturn.SUCCESS

    def state_interface_configuration(self) -> InterfaceConfiguration:
        p = self.params
        if p.joints and p.interfaces:
            return InterfaceConfiguration.individual(
                [f'{j}/{i}' for j in p.joints for i in p.interfaces]
            )
        return InterfaceConfiguration.all()

    def _joint_names(self) -> list[str]:
        """Joints with a mapped position/velocity/effort interface, in upstream's order."""
        p = self.params
        mapped = {
            p.map_interface_to_joint_state.position,
            p.map_interface_to_joint_state.velocity,
            p.map_interface_to_joint_state.effort,
        }
        names = list(
            dict.fromkeys(
                h.prefix_name
                for h in self.state_interfaces
                if h.data_type == 'double' and (h.interface_name in mapped)
            )
        )
        if p.joints:
            names = [j for j in p.joints if j in names]
        elif p.use_urdf_to_filter and self.robot_description:
            try:
                urdf = parse_urdf_joints(self.robot_description)
            except Exception:
                urdf = {}
            if urdf:  # upstream's std::map order: by name
                names = sorted(n for n in names if n in urdf and urdf[n].type in _MOVABLE)
        return names

    def _extra_joint_names(self) -> list[str]:
        """`extra_joints` not already published or claimed as a prefix, each once."""
        taken = {h.prefix_name for h in self.state_interfaces}
        extra = []
        for name in self.params.extra_joints:
            if name not in taken:
                taken.add(name)
                extra.append(name)
        return extra

    def on_activate(self, previous_state: Any) -> CallbackReturn:
        p = self.params
        by_name = {h.name: h for h in self.state_interfaces}
        joints = self._joint_names()
        fields = []
        for field, itf in (
            ('position', p.map_interface_to_joint_state.position),
            ('velocity', p.map_interface_to_joint_state.velocity),
            ('effort', p.map_interface_to_joint_state.effort),
        ):
            # a standard name listed in 'interfaces' wins over the mapping
            itf = field if field in (p.interfaces or []) else itf
            fields.append([by_name.get(f'{j}/{itf}') for j in joints])
        extra = self._extra_joint_names()
        msg = JointState()
        msg.header.frame_id = p.frame_id
        msg.name = [*joints, *extra]
        views = [bind_array(msg, field, len(msg.name), math.nan) for field in _FIELDS]
        for view in views:
            view[len(joints) :] = 0.0
        joint_msg = SerializedMessage(msg)
        self._joint_stamp = joint_msg.time(msg.header.stamp)
        self._joint_values = HandleCopies(
            (joint_msg.doubles(view), handles) for view, handles in zip(views, fields)
        )
        self._joint_rt = RealtimePublisher(self._joint_pub, joint_msg)
        self._dynamic_rt = None
        if self._dynamic_pub is not None:
            groups: dict[str, list[Any]] = {}
            for h in self.state_interfaces:
                if h.data_type == 'double':
                    groups.setdefault(h.prefix_name, []).append(h)
            dyn = DynamicJointState()
            dyn.header.frame_id = p.frame_id
            dyn.joint_names = list(groups)
            dyn.interface_values = [
                InterfaceValue(interface_names=[h.interface_name for h in hs])
                for hs in groups.values()
            ]
            group_views = [
                bind_array(iv, 'values', len(hs))
                for iv, hs in zip(dyn.interface_values, groups.values())
            ]
            dynamic_msg = SerializedMessage(dyn)
            self._dynamic_stamp = dynamic_msg.time(dyn.header.stamp)
            self._dynamic_values = HandleCopies(
                (dynamic_msg.doubles(view), hs) for view, hs in zip(group_views, groups.values())
            )
            self._dynamic_rt = RealtimePublisher(self._dynamic_pub, dynamic_msg)
        return CallbackReturn.SUCCESS

    def update(self, time: Any, period: Any) -> ReturnType:
        rt = self._joint_rt
        now_ns = time.nanoseconds
        if rt.trylock():
            set_stamp(self._joint_stamp, now_ns)
            self._joint_values.copy_rt()
            rt.unlock_and_publish()
        dyn_rt = self._dynamic_rt
        if dyn_rt is not None and dyn_rt.trylock():
            set_stamp(self._dynamic_stamp, now_ns)
            self._dynamic_values.copy_rt()
            dyn_rt.unlock_and_publish()
        return RETURN_OK
