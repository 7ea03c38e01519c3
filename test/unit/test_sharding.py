"""The runner's split of a suite into processes (test/sharding.py): every file in exactly
one shard, whole, balanced by recorded seconds, the same split whatever a resumed run has
left."""

import pytest
import sharding

FILES = [f'test/ros/test_{name}.py' for name in 'abcdefgh']
WEIGHTS = dict(zip(FILES, [40.0, 35.0, 30.0, 10.0, 8.0, 5.0, 3.0, 1.0]))


def loads(shard_of, n, weights):
    load = [0.0] * n
    for f, s in shard_of.items():
        load[s - 1] += weights[f]
    return load


@pytest.mark.parametrize('n', [1, 2, 3, 4])
def test_every_file_goes_to_exactly_one_shard_and_the_shards_are_balanced(n):
    shard_of = sharding.assign(FILES * 3, n, WEIGHTS)  # a file once per test in it
    assert sorted(shard_of) == FILES
    assert set(shard_of.values()) <= set(range(1, n + 1))
    load = loads(shard_of, n, WEIGHTS)
    assert max(load) - min(load) <= max(WEIGHTS.values())  # greedy: within the heaviest file


def test_the_split_is_by_weight_not_by_count():
    shard_of = sharding.assign(FILES, 2, WEIGHTS)
    assert loads(shard_of, 2, WEIGHTS) == [66.0, 66.0]  # 40+10+8+5+3 / 35+30+1
    assert shard_of['test/ros/test_b.py'] == shard_of['test/ros/test_c.py'] == 2


def test_a_file_without_a_record_counts_as_the_mean_and_the_split_is_deterministic():
    new = 'test/ros/test_new.py'
    first = sharding.assign([*FILES, new], 2, WEIGHTS)
    assert first == sharding.assign([new, *reversed(FILES)], 2, WEIGHTS)
    assert first[new] in (1, 2)
    assert sharding.assign(FILES, 2, {}) == sharding.assign(FILES, 2, {})  # no record at all


@pytest.mark.parametrize('text', ['1', '0/2', '3/2', 'a/b', '1/2/3'])
def test_a_bad_shard_is_a_clear_error(text):
    with pytest.raises(ValueError, match='shard'):
        sharding.parse_shard(text)
    assert sharding.parse_shard('2/3') == (2, 3)
