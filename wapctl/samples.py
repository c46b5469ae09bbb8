"""Preemption risk: replay one plan under many seeded tie orders.

Where the scheduler decides at random (equal node scores, equal-importance victims, the final
node pick, the sample of candidate nodes) a single plan shows one outcome. ``sample_plans``
replays the decision ``samples`` times, each with its own seeded ``random.Random`` (sample k uses
seed ``seed + k``), on one cluster accounting built once, and reports the distribution: which
pods are preempted in every outcome, which only in some (and how often), and the spread of the
victim count.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from dataclasses import dataclass

from wapctl.fit import Accounting
from wapctl.model import Snapshot
from wapctl.models import BehaviourModel
from wapctl.preemption import Plan, plan
from wapctl.preemptor import Preemptor


@dataclass(frozen=True)
class SampleReport:
    samples: int
    seed: int
    statuses: tuple[tuple[str, int], ...]  # (status, how many samples), sorted by status
    always: tuple[str, ...]  # pods preempted in every sample, sorted
    sometimes: tuple[tuple[str, int], ...]  # (pod, in how many samples), sorted by pod
    victim_counts: tuple[int, ...]  # per sample, in sample order

    @property
    def min(self) -> int:
        return min(self.victim_counts, default=0)

    @property
    def max(self) -> int:
        return max(self.victim_counts, default=0)

    @property
    def median(self) -> float:
        return statistics.median(self.victim_counts) if self.victim_counts else 0


def sample_plans(snapshot: Snapshot, preemptor: Preemptor, *, model: BehaviourModel,
                 samples: int, seed: int = 0) -> SampleReport:
    """``samples`` plans of ``preemptor``, each drawing upstream's random choices from
    ``random.Random(seed + k)``."""
    if samples < 1:
        raise ValueError("samples must be >= 1")
    accounting = Accounting(snapshot)
    plans: list[Plan] = [plan(snapshot, preemptor, model=model, state=accounting,
                              rng=random.Random(seed + k)) for k in range(samples)]
    seen: Counter[str] = Counter()
    for p in plans:
        seen.update({v.pod for v in p.victims})
    statuses = Counter(p.status for p in plans)
    return SampleReport(
        samples=samples,
        seed=seed,
        statuses=tuple(sorted(statuses.items())),
        always=tuple(sorted(pod for pod, n in seen.items() if n == samples)),
        sometimes=tuple(sorted((pod, n) for pod, n in seen.items() if n < samples)),
        victim_counts=tuple(len(p.victims) for p in plans),
    )


def samples_to_dict(report: SampleReport) -> dict[str, object]:
    """The ``samples`` section of a PreemptionPlan document (docs/SPEC.md §4)."""
    median = report.median
    return {
        "count": report.samples,
        "seed": report.seed,
        "statuses": dict(report.statuses),
        "victimPods": {"min": report.min,
                       "median": int(median) if float(median).is_integer() else median,
                       "max": report.max},
        "always": list(report.always),
        "sometimes": [{"pod": pod, "samples": n} for pod, n in report.sometimes],
    }
