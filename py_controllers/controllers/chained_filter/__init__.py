"""chained_filter_controller/ChainedFilter: state interfaces through filter chains."""
