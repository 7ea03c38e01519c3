"""The fault-injection component's record (what the safety tests read after the process
ends): a write made from another thread while a record is being saved (the final write of
a second signal, right before `os._exit`) returns only once that record holds what the
component was last told."""

import json
import threading
from pathlib import Path

from py_controllers.hardware_interface.resource_manager import ResourceManager
from py_controllers.hardware_interface.types import LifecycleStateId as S

URDF = """<robot name="r"><link name="base"/><link name="l"/>
<joint name="j1" type="revolute"><parent link="base"/><child link="l"/><axis xyz="0 0 1"/>
<limit lower="-3" upper="3" velocity="2" effort="10"/></joint>
<ros2_control name="Other" type="system"><hardware>
<plugin>py_controllers/FaultInjectionSystem</plugin>
<param name="record_file">{record}</param><param name="record_every_change">true</param>
</hardware><joint name="j1"><command_interface name="velocity"/>
<state_interface name="position"/><state_interface name="velocity"/></joint>
</ros2_control></robot>"""


def test_a_write_from_another_thread_waits_for_a_record_under_way(tmp_path, monkeypatch):
    record = tmp_path / 'Other.json'
    rm = ResourceManager(update_rate=100)
    rm.load_urdf(URDF.format(record=record))
    assert rm.set_component_state('Other', S.ACTIVE)
    other = rm.components['Other'].component
    command = other.command_interfaces['j1/velocity']
    command.value = 1.5
    other.write(None, None)
    assert json.loads(record.read_text())['last_write'] == {'j1/velocity': 1.5}

    # the next save stalls halfway (a descheduled thread), between its two file steps
    saving, go_on = threading.Event(), threading.Event()
    real_replace = Path.replace

    def slow_replace(self, target):
        saving.set()
        go_on.wait(5.0)
        return real_replace(self, target)

    monkeypatch.setattr(Path, 'replace', slow_replace)
    command.value = 0.0  # the hold, written by the graceful stop's final write ...
    graceful = threading.Thread(target=other.write, args=(None, None))
    graceful.start()
    assert saving.wait(5.0)
    emergency_done = threading.Event()  # ... and again by the emergency's final write
    emergency = threading.Thread(target=lambda: (other.write(None, None), emergency_done.set()))
    emergency.start()
    returned = emergency_done.wait(0.5)  # with the save still stalled
    left = json.loads(record.read_text())['last_write']  # what os._exit would leave now
    go_on.set()
    assert not returned, f'the emergency write returned mid-save, leaving the record at {left}'
    assert emergency_done.wait(5.0)
    assert json.loads(record.read_text())['last_write'] == {'j1/velocity': 0.0}
    graceful.join(5.0)
    emergency.join(5.0)
