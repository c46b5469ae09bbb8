"""``Pod.state``: where a pod counts, worked out once when the pod is made, by one rule.

Rows derived by hand from upstream's accounting: the scheduler's cache counts a bound pod on
its node until it is gone, deletionTimestamp or not (``NodeInfo`` keeps terminating pods); a
Succeeded/Failed pod counts nowhere; an unbound pod with ``status.nominatedNodeName`` may
reserve room there (``addNominatedPods``); an unbound pod being deleted is never scheduled.
"""

from __future__ import annotations

import pytest
from builders import pod
from msgspec.structs import replace

from wapctl.model import (
    DELETING,
    FINISHED,
    NOMINATED,
    PENDING,
    RUNNING,
    TERMINATING,
    pod_state,
)

ROWS = [
    # phase, node, deleting, nominated node -> state
    ("Pending", None, False, None, PENDING),
    ("Pending", None, False, "n1", NOMINATED),
    ("Running", "n1", False, None, RUNNING),
    ("Pending", "n1", False, None, RUNNING),  # bound, still pulling images: holds n1
    ("Unknown", "n1", False, None, RUNNING),
    ("Running", "n1", True, None, TERMINATING),
    ("Running", "n1", True, "n2", TERMINATING),  # a stale nomination changes nothing
    ("Pending", None, True, None, DELETING),
    ("Pending", None, True, "n1", DELETING),  # being deleted: reserves nothing
    ("Succeeded", "n1", False, None, FINISHED),
    ("Failed", "n1", True, None, FINISHED),
    ("Failed", None, False, "n1", FINISHED),
]


@pytest.mark.parametrize(("phase", "node", "deleting", "nominated", "want"), ROWS,
                         ids=[f"{r[0]}-{r[1]}-{'del' if r[2] else 'live'}-{r[3]}" for r in ROWS])
def test_pod_state_rows(phase, node, deleting, nominated, want):
    assert want == pod_state(phase, node, deleting, nominated)


@pytest.mark.parametrize(("phase", "node", "deleting", "nominated", "want"), ROWS,
                         ids=[f"{r[0]}-{r[1]}-{'del' if r[2] else 'live'}-{r[3]}" for r in ROWS])
def test_a_pod_made_or_copied_carries_its_state(phase, node, deleting, nominated, want):
    """The state is set when a Pod is made and again when a copy changes its fields (a
    replay binds, nominates and deletes pods by ``msgspec.structs.replace``): never stale."""
    made = pod("p", node=node, phase=phase, terminating=deleting, nominated=nominated)
    copied = replace(pod("p"), node_name=node, phase=phase, terminating=deleting,
                     nominated_node=nominated)
    assert (want, want) == (made.state, copied.state)
    assert (made.pending, made.running, made.finished) == (
        want in (PENDING, NOMINATED), want == RUNNING, want == FINISHED)
