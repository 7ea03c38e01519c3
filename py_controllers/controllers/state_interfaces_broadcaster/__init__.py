"""state_interfaces_broadcaster: chosen state interfaces to `~/names` and `~/values`."""
