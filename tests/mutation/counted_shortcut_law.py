"""How ``Evaluator.plan_group_counted`` mutant 44 was decided (sample 36791): the plans the 1.36
model draws with the counted shortcut and without it, over many seeds.

The mutant never tries the shortcut's placement, so every gang plan under a monotone
pod-dependent filter falls back to the filter-aware search, which draws its random choices
(equal victims' order, equal nodes) from a later point of the seeded stream. Run from the
repository root:

    .venv/bin/python tests/mutation/counted_shortcut_law.py [SEEDS]

It prints, per filter, how often the shortcut answered, the outcomes (victims, nodes used)
seen each way, whether they are the same set, and a chi-square statistic of the two
frequency tables with its degrees of freedom (2026-12-07, 2,000 seeds: the same 38 outcomes,
39.1 on 37 df, for both filters).

Then the same for mutant 49 of sample 51413 (``len(placed) > self.needed``: the shortcut runs,
its reprieve and placement drawing from the stream, and its answer is dropped when it placed
exactly what the gang needs, as here), applied to the method's source, and whether the
unseeded plan is the same (2026-12-07, 2,000 seeds: the same 38 outcomes, 29.9 on 37 df, for
both filters; the unseeded plan the same).
"""

from __future__ import annotations

import inspect
import random
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.builders import gang, member, node, pod, snapshot
from tests.constraint_builders import HOSTNAME, aff, constrained, sel
from wapctl.models import get_model
from wapctl.preemption import evaluator, plan
from wapctl.preemptor import select_preemptor

Outcome = tuple[str, tuple[str, ...], tuple[str, ...]]


def _case(apart: bool) -> tuple[Any, Any]:
    """5 nodes of 4 cpu, each full: a (2 cpu), b and c (1 cpu each), all priority 10 but c on
    odd nodes (20), all started together; a gang of 3 (2 cpu each, priority 1000) one per
    node, by its own anti-affinity or by a host port."""
    g = gang("train", min_count=3, prio=1000)
    members = [member(g, f"t{i}", cpu="2", labels={"app": "t"}) for i in range(3)]
    members = [constrained(m, anti=[aff(HOSTNAME, sel({"app": "t"}))]) if apart
               else constrained(m, ports=["TCP//8080"]) for m in members]
    pods = []
    for k in range(5):
        pods += [pod(f"a{k}", node=f"n{k}", cpu="2", prio=10, start=1),
                 pod(f"b{k}", node=f"n{k}", cpu="1", prio=10, start=1),
                 pod(f"c{k}", node=f"n{k}", cpu="1", prio=20 if k % 2 else 10, start=1)]
    snap = snapshot(nodes=[node(f"n{k}", cpu="4", labels={HOSTNAME: f"n{k}"}) for k in range(5)],
                    pods=[*pods, *members], groups=[g])
    return snap, select_preemptor(snap, workload="default/train")


def _outcomes(snap: Any, pre: Any, seeds: int) -> Counter[Outcome]:
    seen: Counter[Outcome] = Counter()
    for s in range(seeds):
        p = plan(snap, pre, model=get_model("1.36"), rng=random.Random(s))
        seen[(p.status, tuple(sorted(v.pod for v in p.victims)),
              tuple(sorted({x.node for x in p.placements})))] += 1
    return seen


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    original = evaluator.Evaluator.plan_group_counted
    answered: Counter[bool] = Counter()

    def counting(self: Any, units: Any, budgets: Any) -> Any:
        out = original(self, units, budgets)
        answered[out is not None] += 1
        return out

    for apart in (True, False):
        snap, pre = _case(apart)
        try:
            evaluator.Evaluator.plan_group_counted = counting  # type: ignore[method-assign]
            with_it = _outcomes(snap, pre, seeds)
            evaluator.Evaluator.plan_group_counted = (  # type: ignore[method-assign]
                lambda self, units, budgets: None)
            without = _outcomes(snap, pre, seeds)
        finally:
            evaluator.Evaluator.plan_group_counted = original  # type: ignore[method-assign]
        print(f"{'anti-affinity' if apart else 'host port'}: shortcut answered "
              f"{answered[True]} of {answered[True] + answered[False]}; outcomes "
              f"{len(with_it)} with it, {len(without)} without, {_compared(with_it, without)}")
        answered.clear()

    _compare_mutant_49(seeds)


def _compared(a: Counter[Outcome], b: Counter[Outcome]) -> str:
    """Whether two frequency tables hold the same outcomes, and their chi-square statistic."""
    keys = sorted(set(a) | set(b))
    chi = sum((n - (a[k] + b[k]) / 2) ** 2 / ((a[k] + b[k]) / 2)
              for k in keys for n in (a[k], b[k]))
    return f"same set: {set(a) == set(b)}; chi-square {chi:.1f} on {len(keys) - 1} df"


def _compare_mutant_49(seeds: int) -> None:
    src = textwrap.dedent(inspect.getsource(evaluator.Evaluator.plan_group_counted))
    mutated_src = src.replace("if len(placed) >= self.needed and not ties:",
                              "if len(placed) > self.needed and not ties:")
    assert mutated_src != src
    scope = dict(vars(evaluator))
    exec(mutated_src, scope)
    original = evaluator.Evaluator.plan_group_counted
    for apart in (True, False):
        snap, pre = _case(apart)
        first = _outcomes(snap, pre, seeds)
        plain = plan(snap, pre, model=get_model("1.36"))
        evaluator.Evaluator.plan_group_counted = scope["plan_group_counted"]  # type: ignore[method-assign]
        try:
            second = _outcomes(snap, pre, seeds)
            plain_mutant = plan(snap, pre, model=get_model("1.36"))
        finally:
            evaluator.Evaluator.plan_group_counted = original  # type: ignore[method-assign]
        print(f"mutant 49, {'anti-affinity' if apart else 'host port'}: outcomes {len(first)} "
              f"original, {len(second)} mutant, {_compared(first, second)}; unseeded plan the "
              f"same: {plain == plain_mutant}")


if __name__ == "__main__":
    main()
