"""Pod-dependent scheduling filters: the hard constraints that depend on which pods are where.

One module per kube-scheduler Filter plugin, each with a pure ``check`` ("does this pod fit this
node given these pods") returning None or the plugin's upstream reason string, and the
incremental per-pod state the plugin keeps between PreFilter and Filter:

- ``node_ports``         NodePorts: hostPort / hostIP / protocol conflicts.
- ``topology_spread``    PodTopologySpread: ``whenUnsatisfiable: DoNotSchedule`` constraints.
- ``interpod_affinity``  InterPodAffinity: required pod affinity / anti-affinity, both ways.
- ``selectors``          label-selector and affinity-term matching shared by the two above.
- ``state``              ``ConstraintState``: the pods present per node, with the counters of
                         the filters kept up to date on every add / remove, for the preemption
                         engine's remove / check / re-add loops.

The node-only filters (NodeName, NodeUnschedulable, TaintToleration, NodeAffinity) and
NodeResourcesFit live in ``wapctl.fit``. What wapctl does not evaluate at all is reported as a
load warning (``wapctl.ingest.constraints``).
"""

from wapctl.filters.state import UNRESOLVABLE, ConstraintState, check, constrained

__all__ = ["UNRESOLVABLE", "ConstraintState", "check", "constrained"]
