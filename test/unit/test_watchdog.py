"""The loop watchdog's judgement, with worked times: a loop silent for its threshold is a
stall, a pause of the whole process (the watchdog late too) is not, recovery is reported."""

import re
import threading
import time

from py_controllers.controller_manager.watchdog import LoopWatchdog

MS = 1_000_000


class Loop:
    """What the watchdog reads of a ControlLoop: a 10 ms period, a heartbeat."""

    period_ns = 10 * MS
    running = True
    thread_ident = None
    waiting_for_lock = False
    drives_simulation = False

    def __init__(self) -> None:
        self.last_cycle_ns = 1  # its first cycle ended (0: not cycling yet)


def watchdog(loop):
    events = []
    dog = LoopWatchdog(
        loop,
        periods=10,
        min_stall_s=0.25,
        on_stall=lambda silent_s, stack: events.append(('stall', round(silent_s, 3))),
        on_recover=lambda stalled_s: events.append(('recovered', round(stalled_s, 3))),
    )
    return dog, events


def test_the_threshold_is_the_larger_of_the_periods_and_the_floor():
    dog, _ = watchdog(Loop())
    assert dog.threshold_ns == 250 * MS  # 10 periods of 10 ms = 100 ms < 250 ms
    Loop.period_ns = 50 * MS
    try:
        assert watchdog(Loop())[0].threshold_ns == 500 * MS
    finally:
        Loop.period_ns = 10 * MS


def test_a_loop_silent_past_the_threshold_is_a_stall_reported_once_then_its_recovery():
    loop = Loop()
    dog, events = watchdog(loop)
    check = dog.threshold_ns // 4  # 62.5 ms
    t = 0
    for _ in range(4):  # looks on time; the loop's last cycle ended at 0
        t += check
        dog.check(t, check)
    assert events == []  # 250 ms of silence: not more than the threshold yet
    t += check
    dog.check(t, check)
    assert events == [('stall', 0.312)] and dog.stalled
    t += check
    dog.check(t, check)
    assert events == [('stall', 0.312)]  # once
    loop.last_cycle_ns = t + 5 * MS
    t += check
    dog.check(t, check)
    assert events == [('stall', 0.312), ('recovered', 0.38)] and not dog.stalled


def test_a_pause_of_the_whole_process_is_not_the_loops_stall():
    loop = Loop()
    dog, events = watchdog(loop)
    check = dog.threshold_ns // 4
    dog.check(check, check)
    t = check + 670 * MS  # the watchdog itself woke 0.6 s late: the process was paused
    dog.check(t, check)
    assert events == []
    for _ in range(10):  # the loop runs again at once
        loop.last_cycle_ns = t + 10 * MS
        t += check
        dog.check(t, check)
    assert events == []


def test_a_loop_still_silent_a_threshold_after_a_pause_is_stalled():
    loop = Loop()
    dog, events = watchdog(loop)
    check = dog.threshold_ns // 4
    dog.check(check, check)
    t = check + 670 * MS  # paused; the loop never beats again
    dog.check(t, check)
    for _ in range(4):  # 250 ms counted from the pause: not more than the threshold yet
        t += check
        dog.check(t, check)
    assert events == []
    t += check
    dog.check(t, check)
    assert events == [('stall', 1.045)]  # silent since 0, counted since the pause


def test_a_loop_not_cycling_yet_is_not_stalled():
    # the heartbeat starts once the loop thread is set up (lock_memory may take seconds)
    loop = Loop()
    loop.last_cycle_ns = 0
    dog, events = watchdog(loop)
    check = dog.threshold_ns // 4
    for i in range(1, 40):
        dog.check(i * check, check)
    assert events == []


def test_a_late_look_while_the_loop_thread_kept_the_processor_counts():
    # the loop held the interpreter (a catastrophic regex): this thread could not look,
    # and the loop thread's CPU clock ran on meanwhile: the silence is the loop's
    loop = Loop()
    dog, events = watchdog(loop)
    cpu = {'ns': 0}
    dog._loop_cpu_ns = lambda: cpu['ns']
    check = dog.threshold_ns // 4
    dog.check(check, check)
    cpu['ns'] = 600 * MS  # 600 ms of CPU in the 670 ms gap
    dog.check(check + 670 * MS, check)
    assert events == [('stall', 0.732)]  # from the last cycle (at 0) to this look


def test_a_late_look_while_the_loop_thread_did_not_run_is_a_pause():
    loop = Loop()
    dog, events = watchdog(loop)
    cpu = {'ns': 0}
    dog._loop_cpu_ns = lambda: cpu['ns']
    check = dog.threshold_ns // 4
    dog.check(check, check)
    cpu['ns'] = 5 * MS  # the whole process was stopped: the loop thread barely ran
    dog.check(check + 670 * MS, check)
    assert events == []


class Held:
    """A service's switch holding the cycle lock since `since_ns`."""

    def __init__(self):
        self.value = None

    def __call__(self):
        return self.value


def held_watchdog(loop, held):
    events = []
    dog = LoopWatchdog(
        loop,
        periods=10,
        min_stall_s=0.25,
        max_switch_s=1.0,
        held_by=held,
        on_stall=lambda silent_s, stack: events.append(('stall', round(silent_s, 3))),
        on_held=lambda what, held_s, ended: events.append(('held', what, round(held_s, 3), ended)),
    )
    return dog, events


def test_a_loop_held_off_by_a_slow_switch_is_reported_not_stalled_within_its_bound():
    loop = Loop()
    held = Held()
    dog, events = held_watchdog(loop, held)
    check = dog.threshold_ns // 4
    loop.waiting_for_lock = True
    held.value = ("switch_controller activating ['big']", 1)
    t = 0
    for _ in range(12):  # 750 ms: past the 250 ms stall threshold, within the 1 s bound
        t += check
        dog.check(t, check)
    assert events == [('held', "switch_controller activating ['big']", 0.312, False)]
    loop.waiting_for_lock, held.value = False, None
    loop.last_cycle_ns = t + 1
    t += check
    dog.check(t, check)
    assert events[-1] == ('held', "switch_controller activating ['big']", 0.812, True)
    assert dog.stalls == 0 and dog.holds == 1


def test_a_switch_holding_the_loop_beyond_its_bound_is_a_stall():
    loop = Loop()
    held = Held()
    dog, events = held_watchdog(loop, held)
    check = dog.threshold_ns // 4
    loop.waiting_for_lock = True
    held.value = ('switch_controller activating [x]', 1)
    t = 0
    for _ in range(17):  # 1.06 s > the 1 s bound
        t += check
        dog.check(t, check)
    assert events[0][0] == 'held' and events[-1] == ('stall', 1.062)


def silent_until_stall(dog, loop, limit_s=5.0):
    """Looks on time while the loop (last cycle at 1 ns) stays silent: the stall's length."""
    events = []
    dog.on_stall = lambda silent_s, report: events.append(silent_s)
    check = dog.check_ns
    t = 0
    while not events and t < limit_s * 1e9:
        t += check
        dog.check(t, check)
    return events[0] if events else None


def test_a_loop_that_drives_a_simulators_time_gets_two_seconds_by_default():
    # the physics waits for the loop (use_sim_time, a simulator among the hardware): a
    # 0.4 s silence on a busy host moves nothing, only a hung loop is worth ending the run
    loop = Loop()
    loop.drives_simulation = True
    dog = LoopWatchdog(loop, on_stall=lambda *a: None)
    assert dog.threshold_ns == 2000 * MS
    assert 2.0 < silent_until_stall(dog, loop) <= 2.5
    loop.drives_simulation = False  # the same watchdog on the wall clock: the 250 ms floor
    fresh = LoopWatchdog(loop, on_stall=lambda *a: None)
    assert 0.25 < silent_until_stall(fresh, loop) <= 0.32


def test_a_floor_given_is_kept_while_the_loop_drives_a_simulator():
    loop = Loop()
    loop.drives_simulation = True
    dog = LoopWatchdog(loop, min_stall_s=0.25, on_stall=lambda *a: None)
    assert 0.25 < silent_until_stall(dog, loop) <= 0.32
    assert dog.backstop_bound_s() == 10.0  # the backstop leaves its room either way
    assert LoopWatchdog(loop, min_stall_s=4.0, on_stall=lambda *a: None).backstop_bound_s() == 16


def test_a_stall_report_says_what_the_loop_thread_did_meanwhile():
    # the loop thread is this one: it computes through the silence, so the report says it ran
    loop = Loop()
    loop.thread_ident = threading.get_ident()
    loop.thread_native_id = threading.get_native_id()
    reports = []
    dog = LoopWatchdog(loop, on_stall=lambda silent_s, report: reports.append(report))
    check = dog.check_ns
    dog.check(check, check)  # the first look after the last cycle: the times are taken
    end = time.thread_time() + 0.05
    while time.thread_time() < end:
        pass
    for k in range(2, 7):
        dog.check(k * check, check)
    meanwhile = re.search(r'meanwhile ran ([\d.]+) s, waited ([\d.]+) s .* state (\w)', reports[0])
    assert meanwhile is not None, reports[0]
    assert float(meanwhile[1]) >= 0.045 and meanwhile[3] == 'R'
    assert 'the loop thread is at:' in reports[0]


def test_a_silence_on_a_simulators_time_is_reported_as_slow_once_cycles_come_back():
    # no stall (the physics waited), but a silence the wall clock would call one is worth a
    # line: it says what the loop thread did, as a stall report would
    loop = Loop()
    loop.drives_simulation = True
    slow, stalls = [], []
    dog = LoopWatchdog(
        loop,
        on_stall=lambda *a: stalls.append(a),
        on_slow=lambda silent_s, meanwhile: slow.append(round(silent_s, 3)),
    )
    check = dog.check_ns
    assert check == 62_500_000  # looks as often as on the wall clock
    t = 0
    for _ in range(7):  # 437 ms of silence since the last cycle (at 1 ns)
        t += check
        dog.check(t, check)
    assert slow == [] and stalls == []
    loop.last_cycle_ns = t + 20 * MS  # cycles again
    for _ in range(3):
        t += check
        loop.last_cycle_ns = t - 1 * MS
        dog.check(t, check)
    assert slow == [0.499] and stalls == []  # once, from the last cycle to the first seen after
    for _ in range(3):  # silences below the wall clock's threshold: nothing said
        t += 3 * check
        dog.check(t - 2 * check, check)
        dog.check(t - check, check)
        loop.last_cycle_ns = t - 1 * MS
        dog.check(t, check)
    assert slow == [0.499]


def test_no_slow_report_on_the_wall_clock_where_the_same_silence_is_a_stall():
    loop = Loop()
    slow, stalls = [], []
    dog = LoopWatchdog(
        loop,
        on_stall=lambda silent_s, report: stalls.append(round(silent_s, 3)),
        on_slow=lambda silent_s, meanwhile: slow.append(silent_s),
    )
    check = dog.check_ns
    t = 0
    for _ in range(7):
        t += check
        dog.check(t, check)
    loop.last_cycle_ns = t + 1
    t += check
    dog.check(t, check)
    assert stalls == [0.312] and slow == []
