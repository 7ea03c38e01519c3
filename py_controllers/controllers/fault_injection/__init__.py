"""A controller that misbehaves on request, to show the manager's safety net holds."""
