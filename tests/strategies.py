"""Hypothesis settings and strategies shared by the property tests of user input."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""Enough examples to find the odd input; no deadline (timing is ``make bench``'s)."""

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)
"""Any JSON value, nested a little."""
