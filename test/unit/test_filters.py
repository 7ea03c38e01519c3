"""The filter chain and its filters, with the numbers of upstream's tests re-expressed:
ros/filters test_mean.cpp, control_toolbox test/control_filters (test_low_pass_filter,
test_exponential_filter, test_rate_limiter) and chained_filter_controller's tests."""

import math

import pytest

from py_controllers.filters import FilterChain, FilterConfigError
from py_controllers.filters.exponential import ExponentialFilter
from py_controllers.filters.low_pass import LowPassFilter, low_pass_coefficient
from py_controllers.filters.mean import MeanFilter
from py_controllers.filters.rate_limiter import RateLimiterFilter

LPF = 'control_filters/LowPassFilterDouble'
LPF_PARAMS = {'sampling_frequency': 1000.0, 'damping_frequency': 20.5, 'damping_intensity': 1.25}


def chain_of(*filters, prefix='filter_chain'):
    """A flat parameter dict laying out `(name, type, params)` filters under `prefix`."""
    values = {}
    for n, (name, type_name, params) in enumerate(filters, start=1):
        values[f'{prefix}.filter{n}.name'] = name
        values[f'{prefix}.filter{n}.type'] = type_name
        for key, value in params.items():
            values[f'{prefix}.filter{n}.params.{key}'] = value
    return values


def run(f, inputs):
    return [f.update(x) for x in inputs]


# --- filters/MeanFilterDouble (test_mean.cpp, test_chained_filter.cpp) ----------------------
def test_mean_of_three_rows_averages_what_it_has():
    # test_mean ThreeRows: window 5, inputs 0, 1, 2 -> 0, 0.5, 1
    f = MeanFilter('m', {'number_of_observations': 5})
    assert run(f, [0.0, 1.0, 2.0]) == [0.0, 0.5, 1.0]


def test_mean_window_matches_the_chained_filter_tests():
    # test_chained_filter UpdateFilter: window 2, 1.1 then 2.0, 2.0 -> 1.1, 1.55, 2.0
    assert run(MeanFilter('m', {'number_of_observations': 2}), [1.1, 2.0, 2.0]) == [1.1, 1.55, 2.0]
    # test_multiple_chained_filter, config per input: window 3, 2.2 then 2.8 x3
    f = MeanFilter('m', {'number_of_observations': 3})
    assert run(f, [2.2, 2.8, 2.8]) == [2.2, 2.5, 2.6]
    assert f.update(2.8) == pytest.approx(2.8, abs=1e-5)


# --- control_filters/LowPassFilterDouble (test_low_pass_filter.cpp) -------------------------
def test_low_pass_first_output_is_the_input_then_one_sample_late():
    # TestLowPassVectorDoubleFilterComputation, per element: input 1 then a step to 2
    a1 = math.exp(-1.0 / 1000.0 * (2.0 * math.pi * 20.5) / (10.0 ** (1.25 / -10.0)))
    b1 = 1.0 - a1
    assert low_pass_coefficient(1000.0, 20.5, 1.25) == a1
    assert a1 == pytest.approx(0.842177, abs=1e-6)  # exp(-0.171767)
    f = LowPassFilter('lpf', LPF_PARAMS)
    assert f.update(1.0) == 1.0
    out = f.update(2.0)
    assert out == 1.0  # the step shows one sample later
    assert f.update(2.0) == b1 * 2.0 + a1 * out


def test_low_pass_refuses_a_missing_or_invalid_parameter():
    # TestLowPassWrenchFilterMissingParameter / ...InvalidThenFixedParameter
    with pytest.raises(FilterConfigError, match="'sampling_frequency' is required"):
        LowPassFilter('lpf', {'damping_frequency': 20.5, 'damping_intensity': 1.25})
    with pytest.raises(FilterConfigError, match=r"'sampling_frequency' must be > 0\.0"):
        LowPassFilter('lpf', {**LPF_PARAMS, 'sampling_frequency': 0.0})
    with pytest.raises(FilterConfigError, match="'damping_intensity' is required"):
        LowPassFilter('lpf', {'sampling_frequency': 1000.0, 'damping_frequency': 20.5})


def test_low_pass_without_a_first_finite_input_has_no_output():
    f = LowPassFilter('lpf', LPF_PARAMS)
    assert f.update(math.nan) is None
    assert f.update(3.0) == 3.0


# --- control_filters/ExponentialFilterDouble (test_exponential_filter.cpp) ------------------
def test_exponential_computation_with_alpha_0_7():
    # TestExponentialFilterComputation: 1.0 twice -> 1.0; then 0.0 for 100 steps
    f = ExponentialFilter('e', {'alpha': 0.7})
    assert run(f, [1.0, 1.0]) == [1.0, 1.0]
    calculated = 1.0
    for _ in range(100):
        calculated = 0.7 * 0.0 + (1 - 0.7) * calculated
        assert f.update(0.0) == calculated
    assert calculated == pytest.approx(0.3**100)


def test_exponential_alpha_zero_holds_and_alpha_one_tracks():
    # TestExponentialFilterAlphaZero / AlphaOne: 10 then 20
    assert run(ExponentialFilter('e', {'alpha': 0.0}), [10.0, 20.0]) == [10.0, 10.0]
    assert run(ExponentialFilter('e', {'alpha': 1.0}), [10.0, 20.0]) == [10.0, 20.0]
    # TestExponentialFilterParameterUpdate's second step, with alpha 0.8 from the start:
    # 0.8 * 20 + 0.2 * 10 = 18
    assert run(ExponentialFilter('e', {'alpha': 0.8}), [10.0, 20.0]) == [10.0, 18.0]


def test_exponential_refuses_a_missing_or_invalid_alpha():
    # TestExponentialWrenchFilterMissingParameter, TestExponentialFilterInvalidParameterValue
    with pytest.raises(FilterConfigError, match="'alpha' is required"):
        ExponentialFilter('e', {})
    with pytest.raises(FilterConfigError, match="'alpha' must be within"):
        ExponentialFilter('e', {'alpha': 1.5})
    with pytest.raises(FilterConfigError, match='a double is expected'):
        ExponentialFilter('e', {'alpha': 'a'})


# --- control_filters/RateLimiterDouble (test_rate_limiter.cpp) ------------------------------
RATE_LIMITS = {
    'sampling_interval': 1.0,
    'max_value': math.nan,
    'min_value': math.nan,
    'max_first_derivative_pos': 1.0,
    'min_first_derivative_pos': -1.0,
    'max_first_derivative_neg': 1.0,
    'min_first_derivative_neg': -1.0,
    'max_second_derivative': 0.1,
    'min_second_derivative': -0.1,
}


def test_rate_limiter_takes_fourteen_steps_from_ten_to_zero():
    # TestRateLimiterCompute: 10 steps at 10 (no change), then 0: 14 steps off, the 15th on
    f = RateLimiterFilter('r', RATE_LIMITS)
    assert run(f, [10.0] * 10) == [10.0] * 10
    out = run(f, [0.0] * 15)
    assert all(abs(v) > 1e-6 for v in out[:14]), out
    assert out[14] == pytest.approx(0.0, abs=1e-6)
    # the jerk limit ramps the rate down by 0.1 per step until the rate limit of 1
    assert out[:3] == pytest.approx([9.9, 9.7, 9.4])


def test_rate_limiter_needs_a_positive_sampling_interval():
    # TestRateLimiterMissingParameter / InvalidThenFixedParameter
    with pytest.raises(FilterConfigError, match="'sampling_interval' is required"):
        RateLimiterFilter('r', {})
    with pytest.raises(FilterConfigError, match=r"'sampling_interval' must be > 0\.0"):
        RateLimiterFilter('r', {'sampling_interval': 0.0})
    with pytest.raises(FilterConfigError, match=r"'max_value' must be >= 0\.0 or NaN"):
        RateLimiterFilter('r', {'sampling_interval': 1.0, 'max_value': -1.0})
    assert RateLimiterFilter('r', {'sampling_interval': 1.0}).update(4.0) == 4.0


# --- the chain (filters' FilterChain layout) ------------------------------------------------
def test_chain_runs_filters_in_order():
    values = chain_of(
        ('mean', 'filters/MeanFilterDouble', {'number_of_observations': 2}),
        ('smooth', 'control_filters/ExponentialFilterDouble', {'alpha': 0.5}),
    )
    chain = FilterChain.from_dict('filter_chain', values)
    assert [f.name for f in chain.filters] == ['mean', 'smooth']
    # mean: 1, 2, 3 -> 1, 1.5, 2.5; then smoothing: 1, 1.25, 1.875
    assert run(chain, [1.0, 2.0, 3.0]) == [1.0, 1.25, 1.875]


def test_chain_reads_the_layout_with_or_without_a_trailing_dot_or_prefix():
    one = chain_of(('m', 'filters/MeanFilterDouble', {'number_of_observations': 1}), prefix='')
    one = {k.lstrip('.'): v for k, v in one.items()}
    assert len(FilterChain.from_dict('', one).filters) == 1
    values = chain_of(('m', 'filters/MeanFilterDouble', {'number_of_observations': 1}))
    assert len(FilterChain.from_dict('filter_chain.', values).filters) == 1


def test_empty_chain_passes_the_input_through():
    chain = FilterChain.from_dict('filter_chain', {})
    assert chain.filters == []
    assert chain.update(4.25) == 4.25


def test_chain_stops_when_a_filter_has_no_output():
    values = chain_of(
        ('lpf', LPF, LPF_PARAMS),
        ('mean', 'filters/MeanFilterDouble', {'number_of_observations': 2}),
    )
    chain = FilterChain.from_dict('filter_chain', values)
    assert chain.update(math.nan) is None
    assert len(chain.filters[1]._window) == 0  # the mean never saw it


@pytest.mark.parametrize(
    ('values', 'message'),
    [
        (chain_of(('x', 'control_filters/Nope', {})), "unknown filter type 'control_filters/Nope'"),
        (chain_of(('x', 'LowPass', {})), 'must be of form <package>/<filter>'),
        ({'filter_chain.filter1.name': 'x'}, 'filter1.name and filter_chain.filter1.type'),
        ({'filter_chain.filter1.type': LPF}, 'are both required'),
        ({'filter_chain.filter1.name': 3, 'filter_chain.filter1.type': LPF}, 'must be a string'),
        (chain_of(('x', LPF, {'sampling_frequency': 100.0})), "'damping_frequency' is required"),
        (
            chain_of(('x', LPF, LPF_PARAMS), ('x', LPF, LPF_PARAMS)),
            "a filter named 'x' is already in the chain",
        ),
        (chain_of(('x', LPF, {**LPF_PARAMS, 'sampling_freq': 1.0})), 'not used.*sampling_freq'),
        (
            {**chain_of(('x', LPF, LPF_PARAMS)), 'filter_chain.filter3.name': 'y'},
            'not used.*filter3.name',
        ),
    ],
)
def test_chain_refuses_a_broken_layout_with_a_clear_error(values, message):
    with pytest.raises(FilterConfigError, match=message):
        FilterChain.from_dict('filter_chain', values)
