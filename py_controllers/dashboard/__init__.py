"""A web dashboard for a controller manager: rqt_controller_manager,
rqt_joint_trajectory_controller and rqt_robot_steering in the browser.

It is just another ROS client of the manager (its services, topics and actions; nothing
private), built on NiceGUI; run it with `py-controllers dashboard` or
`python -m py_controllers.dashboard`.

Modules: `model` (pure rules and values), `ros_bridge` (the rclpy node and its thread),
`manager_watch` (the manager's picture), `commands` and `motion` (what the pages send),
`ui_*` (the pages), `app` (the server), `browser` (Chromium for tests and screenshots).
"""
