"""admittance_controller/AdmittanceController: compliance from a force-torque sensor."""
