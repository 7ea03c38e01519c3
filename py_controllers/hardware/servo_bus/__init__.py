"""Serial bus servos: ROBOTIS Dynamixel (Protocol 2.0) and Feetech STS/SMS.

`models` holds each supported model's control table and units, `units` the one place where
raw register values become SI, `dynamixel_bus` / `feetech_bus` speak to a port through the
vendors' SDKs (`dynamixel-sdk`, `feetech-servo-sdk`), `bus_worker` runs the bus off the
control loop, `servo_system` is the ros2_control component both systems share, and
`bus_sim` is a simulated bus on a pseudo-terminal that answers the real protocol bytes;
`teleop` (the only module here that uses rclpy) streams a leader arm to a follower.
"""
