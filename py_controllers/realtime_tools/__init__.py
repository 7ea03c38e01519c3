"""Lock-free hand-over between ROS callbacks and the control loop."""

from py_controllers.realtime_tools.realtime_box import RealtimeBox
from py_controllers.realtime_tools.realtime_publisher import RealtimePublisher

__all__ = ['RealtimeBox', 'RealtimePublisher']
