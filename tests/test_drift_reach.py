"""``drift.Reach`` against a brute-force count: how many pods and pod templates preempt (or are
preemptible) between two values, and the first names in (value, name) order — what a drift
finding's consequence text says."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl.drift import Reach
from wapctl.model import NEVER, PREEMPT_LOWER, pod_state

_VALUES = st.integers(-3, 3)
_pods = st.lists(
    st.tuples(_VALUES, _VALUES, st.sampled_from([NEVER, PREEMPT_LOWER]),
              st.sampled_from(["Running", "Pending", "Succeeded", "Failed"])),
    max_size=25,
)
_templates = st.lists(
    st.tuples(st.one_of(st.none(), _VALUES), _VALUES, st.sampled_from([NEVER, PREEMPT_LOWER]),
              st.sampled_from(["Deployment", "Job", "Podz"])),
    max_size=8,
)


def _snapshot(pods: list, templates: list) -> SimpleNamespace:
    # keys chosen so that "Pod ..." names sort among the templates' ("Deployment ...", "Job
    # ...", "Podz ...") and among themselves differently from their insertion order
    return SimpleNamespace(
        pods={f"ns/p{(7 * i) % 31}-{i}": SimpleNamespace(
            key=f"ns/p{(7 * i) % 31}-{i}", priority=p, preemption_priority=pp,
            preemption_policy=policy, phase=phase, state=pod_state(phase, "n1", False, None))
            for i, (p, pp, policy, phase) in enumerate(pods)},
        templates={f"{kind} ns/t{i}": SimpleNamespace(
            key=f"{kind} ns/t{i}", priority=p, preemption_priority=pp, preemption_policy=policy)
            for i, (p, pp, policy, kind) in enumerate(templates)},
    )


def _brute(
    snapshot: SimpleNamespace, which: str, lo: int, hi: int, n: int
) -> tuple[int, list[str]]:
    items = []
    for pod in snapshot.pods.values():
        if pod.phase in ("Succeeded", "Failed"):
            continue
        if which == "preemptors" and pod.preemption_policy != NEVER:
            items.append((pod.priority, f"Pod {pod.key}"))
        if which == "victims":
            items.append((pod.preemption_priority, f"Pod {pod.key}"))
    for t in snapshot.templates.values():
        if t.priority is None:
            continue
        if which == "preemptors" and t.preemption_policy != NEVER:
            items.append((t.priority, t.key))
        if which == "victims":
            items.append((t.preemption_priority, t.key))
    inside = sorted(x for x in items if lo <= x[0] < hi)
    return len(inside), [name for _, name in inside[:n]]


@settings(max_examples=150, deadline=None)
@given(_pods, _templates)
def test_reach_counts_and_names_like_a_sorted_list(pods: list, templates: list) -> None:
    snapshot = _snapshot(pods, templates)
    reach = Reach(snapshot)  # type: ignore[arg-type]
    for which in ("preemptors", "victims"):
        for lo in range(-4, 5):
            for hi in range(lo, 6):
                for n in (0, 1, 3, 30):  # 3: the names a drift finding gives
                    assert getattr(reach, which).between(lo, hi, n) == _brute(
                        snapshot, which, lo, hi, n), (which, lo, hi, n)
