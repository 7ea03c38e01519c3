"""pid_controller/PidController: chainable PID per degree of freedom."""
