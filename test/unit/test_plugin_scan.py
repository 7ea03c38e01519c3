"""The entry points are read once (each read scans every installed distribution, whatever
the group) for every group asked for so far; a name not found reads them again, so a package
installed since is found, and reload() reads them again for names that are found."""

import sys

import pytest

from py_controllers import plugins

GROUP = 'py_controllers.test_scan'


@pytest.fixture
def user_package(tmp_path, monkeypatch):
    """A distribution on sys.path with one entry point in GROUP; write(name) adds names."""
    info = tmp_path / 'scan_pkg-0.1.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text('Metadata-Version: 2.1\nName: scan-pkg\nVersion: 0.1\n')
    (tmp_path / 'scan_mod.py').write_text('class A: pass\nclass B: pass\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, 'scan_mod', raising=False)

    def write(*names: str) -> None:
        lines = ''.join(f'{n} = scan_mod:{n}\n' for n in names)
        (info / 'entry_points.txt').write_text(f'[{GROUP}]\n{lines}')

    write('A')
    yield write
    plugins._scanned.pop(GROUP, None)


def test_a_group_is_scanned_once_for_names_it_has(user_package, monkeypatch):
    scans = []
    real = plugins.entry_points
    monkeypatch.setattr(plugins, 'entry_points', lambda **kw: scans.append(kw) or real(**kw))
    for _ in range(3):
        assert plugins.load(GROUP, 'A', object).__name__ == 'A'
    assert plugins.available(GROUP) == ['A']
    assert len(scans) == 1


def test_a_name_installed_after_the_scan_is_found(user_package):
    assert plugins.available(GROUP) == ['A']
    user_package('A', 'B')
    assert plugins.has(GROUP, 'B')
    assert plugins.load(GROUP, 'B', object).__name__ == 'B'
    assert plugins.available(GROUP) == ['A', 'B']


def test_reload_reads_the_entry_points_again(user_package):
    assert plugins.load(GROUP, 'A', object).__name__ == 'A'
    user_package('B')  # A's entry point removed
    assert plugins.has(GROUP, 'A')  # the scan of before
    plugins.reload(GROUP)
    assert plugins.available(GROUP) == ['B']
    with pytest.raises(plugins.PluginError, match="unknown type 'A'"):
        plugins.load(GROUP, 'A', object)


def test_one_scan_serves_the_controllers_and_the_hardware(monkeypatch):
    """A manager asks for both groups: one read of the metadata, not one for each."""
    scans = []
    real = plugins.entry_points
    monkeypatch.setattr(plugins, 'entry_points', lambda **kw: scans.append(kw) or real(**kw))
    monkeypatch.setattr(plugins, '_scanned', {})
    assert plugins.has(plugins.CONTROLLERS_GROUP, 'joint_state_broadcaster/JointStateBroadcaster')
    assert plugins.has(plugins.HARDWARE_GROUP, 'mock_components/GenericSystem')
    assert len(scans) == 1
