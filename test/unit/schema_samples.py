"""A helper the parameter schema tests share."""

from py_controllers.parameters.schema import Schema


def one_leaf(type_name, validation=None, **fields):
    """The Leaf of a one-parameter schema `ns: {x: ...}`."""
    raw = {'type': type_name, **fields}
    if validation is not None:
        raw['validation'] = validation
    return Schema.from_dict({'ns': {'x': raw}}).static_parameters()[0].leaf
