"""YAML goes through libyaml where PyYAML has it (start-up parses every loaded controller's
schema and each spawner its parameter files: 0.19 s for the catalogue's 32 schemas against
1.6 s in pure Python), and reads every YAML of the project as PyYAML's pure Python parser."""

from pathlib import Path

import pytest
import yaml

from py_controllers import yaml_loading
from py_controllers.parameters import parsing

ROOT = Path(__file__).resolve().parents[2]
PROJECT_YAML = sorted(
    p
    for folder in ('config', 'py_controllers', 'examples')
    for p in (ROOT / folder).rglob('*.yaml')
)


@pytest.mark.skipif(not yaml.__with_libyaml__, reason='PyYAML built without libyaml')
def test_libyaml_reads_the_yaml_where_pyyaml_has_it():
    assert yaml_loading.SafeLoader is yaml.CSafeLoader
    assert issubclass(parsing._SchemaLoader, yaml.CSafeLoader)


def test_every_yaml_of_the_project_reads_as_with_the_pure_python_parser():
    assert len(PROJECT_YAML) > 40
    for path in PROJECT_YAML:
        text = path.read_text()
        assert yaml_loading.safe_load(text) == yaml.load(text, Loader=yaml.SafeLoader), path


def test_schemas_read_an_exponent_without_a_dot_as_a_float_and_bad_yaml_is_an_error():
    assert parsing.load_yaml('ns: {a: {type: double, default_value: 1e-3}}') == {
        'ns': {'a': {'type': 'double', 'default_value': 0.001}}
    }
    assert yaml_loading.safe_load('a: 1e-3') == {'a': '1e-3'}  # plain YAML 1.1, as PyYAML
    with pytest.raises(yaml.YAMLError):
        yaml_loading.safe_load('a: [1, 2')
