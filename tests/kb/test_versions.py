"""Versions a paste reveals, and the entries they rule out."""

from __future__ import annotations

import copy

import pytest

from bot.kb.entry import Entry
from bot.kb.matcher import Matcher
from bot.kb.versions import applies, parse_constraints, revealed_versions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('File "/opt/venv/lib/python3.10/site-packages/torch/nn/modules/module.py"', {"python": (3, 10)}),
        ("NCCL version 2.18.1+cuda12.1", {"nccl": (2, 18, 1), "cuda": (12, 1)}),
        ("torch==2.0.1 numpy 1.26.4", {"torch": (2, 0, 1), "numpy": (1, 26, 4)}),
        ("PyTorch version: 2.3.0", {"torch": (2, 3, 0)}),
        ("nothing to see", {}),
        ("$ pip3.11 list | grep torch\ntorch 2.0.1", {"torch": (2, 0, 1)}),
        ("/usr/bin/python3.10 -m venv .venv", {"python": (3, 10)}),
        ("`np.float` was a deprecated alias (deprecated in NumPy 1.20)", {}),
        ("This model requires torch>=2.1; you have torch 2.0.1", {"torch": (2, 0, 1)}),
    ],
)
def test_revealed_versions(text, expected):
    assert revealed_versions(text) == expected


@pytest.mark.parametrize(
    ("specs", "revealed", "fits"),
    [
        (["pytorch>=2.1.0"], {"torch": (2, 0, 1)}, False),
        (["pytorch>=2.1.0"], {"torch": (2, 1)}, True),
        (["numpy>=1.25,<2"], {"numpy": (2, 0, 0)}, False),
        (["numpy>=1.25,<2"], {"numpy": (1, 26, 4)}, True),
        (["nccl==2.18"], {"nccl": (2, 18, 3)}, True),
        (["python~=3.11.0"], {"python": (3, 12)}, False),
        (["pytorch>=2.1.0"], {"numpy": (1, 0)}, True),  # says nothing about torch
        (["any version"], {"torch": (1, 0)}, True),  # not a constraint we can read
    ],
)
def test_constraints(specs, revealed, fits):
    assert applies(parse_constraints(specs), revealed) is fits


def test_an_entry_the_pasted_version_rules_out_ranks_below_one_it_fits(nccl_raw):
    old, new = copy.deepcopy(nccl_raw), copy.deepcopy(nccl_raw)
    old.update(id="numpy/alias-removed-old", regex=r"has no attribute 'float'",
               versions=[{"version": "numpy<1.24"}])
    new.update(id="numpy/alias-removed-new", regex=r"module 'numpy' has no attribute 'float'",
               versions=[{"version": "numpy>=1.24"}])
    matcher = Matcher({e["id"]: Entry(e) for e in (old, new)})
    paste = "numpy 1.23.5\nAttributeError: module 'numpy' has no attribute 'float'"
    assert [m.entry_id for m in matcher.match(paste)] == ["numpy/alias-removed-old", "numpy/alias-removed-new"]
    paste = "numpy 1.26.0\nAttributeError: module 'numpy' has no attribute 'float'"
    assert matcher.match(paste)[0].entry_id == "numpy/alias-removed-new"
