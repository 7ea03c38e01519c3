"""Speed figures for py_controllers: printed tables, never asserted in tests."""
