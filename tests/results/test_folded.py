"""Folded stacks read back, and self time per function and line."""

from __future__ import annotations

import pytest

from wsbench.results import folded


def test_folded_stacks_are_summed_per_stack_and_self_time_goes_to_the_leaf() -> None:
    text = "a (x.py:1);b (x.py:2) 3\na (x.py:1);b (x.py:2) 2\na (x.py:1) 1\n\n"
    stacks = folded.parse_folded(text)
    assert stacks == {"a (x.py:1);b (x.py:2)": 5, "a (x.py:1)": 1}
    assert folded.self_samples(stacks) == {"b (x.py)": 5, "a (x.py)": 1}
    assert folded.self_samples(stacks, by_line=True) == {"b (x.py:2)": 5, "a (x.py:1)": 1}
    assert folded.idle_share(stacks, rate_hz=10, duration_s=1.0) == pytest.approx(0.4)
    with pytest.raises(folded.FoldedError, match="line 1: no sample count"):
        folded.parse_folded("a;b\n")
    root = 'process 123:"/v/bin/python /w/impls/x/server.py --port 5001";main (server.py:3) 2'
    assert folded.parse_folded(root) == {"process (server.py);main (server.py:3)": 2}
    assert folded.process_frame('process 9:"/usr/bin/granian --port 1"') == "process (granian)"
