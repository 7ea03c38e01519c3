"""One bus round at 1 Mbaud: a sync write of 6 goals and a sync read of 6 servos.

The host side is the components' own (`SdkBus`, through the vendors' SDKs, as the bus thread
runs it); the servos are the simulated bus on a pty (`PtyServoBus`) with its byte timing at
1 Mbaud and the servos' Return Delay Time (Dynamixel's initial 250 x 2 us, Feetech's 0), in
this process. Wire time is what the bytes alone take at the baud rate (10 bits a byte); the
rest is the servos' delays, the SDKs' Python and the pty. The highest loop rate a bus holds
is one round per cycle at the round's p99.
"""

from __future__ import annotations

import statistics
import time

from py_controllers.hardware.servo_bus.bus_sim import PtyServoBus
from py_controllers.hardware.servo_bus.models import MODELS
from py_controllers.hardware.servo_bus.sdk_bus import BusError, SdkBus
from py_controllers.hardware.servo_bus.sim_servo import SimServo

BAUD = 1_000_000
SERVOS = 6


def _wire_bytes(family: str, fast: bool, read_length: int, write_size: int) -> int:
    """Bytes on the wire for one round: the write, the read request and the replies."""
    if family == 'dynamixel':
        write = 14 + SERVOS * (1 + write_size)
        request = 14 + SERVOS
        replies = 11 + SERVOS * (read_length + 4) - 2 if fast else SERVOS * (11 + read_length)
    else:
        write = 8 + SERVOS * (1 + write_size)
        request = 8 + SERVOS
        replies = SERVOS * (6 + read_length)
    return write + request + replies


def round_times(model_name: str, fast: bool, seconds: float) -> dict:
    model = MODELS[model_name]
    servos = [SimServo(i, model) for i in range(1, SERVOS + 1)]
    with PtyServoBus(servos, BAUD) as sim:
        bus = SdkBus(model.family, sim.device, BAUD, fast=fast)
        bus.open()
        ids = [(s.id, model) for s in servos]
        goals = {s.id: model.zero_tick for s in servos}
        times, failed = [], 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t0 = time.perf_counter()
            try:
                bus.sync_write(model.goal_position, goals)
                bus.sync_read(ids)
            except BusError:
                failed += 1  # the bus thread retries such a round; counted, not timed
                continue
            times.append(time.perf_counter() - t0)
        bus.close()
    times.sort()
    wire = _wire_bytes(model.family, fast, model.read_length, model.goal_position.size)
    p99 = times[int(0.99 * (len(times) - 1))]
    return {
        'rounds': len(times),
        'failed': failed,
        'wire_ms': wire * 10 / BAUD * 1e3,
        'p50_ms': statistics.median(times) * 1e3,
        'p99_ms': p99 * 1e3,
        'max_ms': times[-1] * 1e3,
        'rate_hz': 1.0 / p99,
    }


def servo_bus_run(seconds: float) -> list[tuple[str, dict]]:
    return [
        ('Feetech STS3215, sync read', round_times('STS3215', False, seconds)),
        ('Dynamixel XM430, sync read', round_times('XM430-W350', False, seconds)),
        ('Dynamixel XM430, fast sync read', round_times('XM430-W350', True, seconds)),
    ]
