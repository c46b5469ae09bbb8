"""The 1.36 / upstream models against the brute-force reference written from SPEC §0
(tests/reference_plan.py ``upstream_reference_plan``), on random medium clusters."""

from __future__ import annotations

import random

import pytest
from reference_plan import fast_as_reference, upstream_reference_plan
from test_fast_vs_reference import _preemptors, random_cluster

from wapctl.models import get_model
from wapctl.preemption import plan

SEEDS = 12


@pytest.mark.parametrize("model", ["1.36", "upstream"])
@pytest.mark.parametrize("seed", range(SEEDS), ids=lambda s: f"seed-{s}")
def test_fast_plan_equals_upstream_reference(seed, model):
    """plan() under the upstream models equals the from-scratch reference exactly."""
    snap = random_cluster(seed)
    rng = random.Random(2000 + seed)
    behaviour = get_model(model)
    for preemptor in _preemptors(snap, rng):
        expected = upstream_reference_plan(snap, preemptor, model)
        assert expected == fast_as_reference(plan(snap, preemptor, model=behaviour)), \
            preemptor.key


def test_random_clusters_exercise_the_upstream_statuses():
    """The random clusters reach preemption and the other statuses under 1.36."""
    seen = set()
    for seed in range(SEEDS):
        snap = random_cluster(seed)
        for preemptor in _preemptors(snap, random.Random(2000 + seed)):
            seen.add(plan(snap, preemptor, model=get_model("1.36")).status)
    assert {"RequiresPreemption", "Schedulable"} <= seen
