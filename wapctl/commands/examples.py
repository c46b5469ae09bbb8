"""The Examples section of each command's --help (kubectl style), as data.

``snapshot.yaml`` stands for a snapshot file (for explain and history, one that holds the
scheduler's Events), ``before.yaml`` for one taken before a preemption, ``change.yaml`` for a
proposed manifest, and ``prod`` for a kubeconfig context: tests/test_help.py runs every
example against fixtures and recorded data (and a fake API server for the live ones), so none
of them can rot.
"""

from __future__ import annotations

import re

# command -> [(what it does, the command line)]
EXAMPLES: dict[str, list[tuple[str, str]]] = {
    "plan": [
        ("Plan for the head of the scheduling queue of a snapshot file",
         "wapctl plan snapshot.yaml"),
        ("One pending pod, with the numbers behind the choice of node",
         "wapctl plan snapshot.yaml --pod prod/web-7c9d8b5f4-pend7 -o wide"),
        ("A pending pod group, as JSON",
         "wapctl plan snapshot.yaml --workload ml/finetune -o json"),
        ("Preemptors labelled app=web; victims as '-n NS pod/NAME', for xargs -L1",
         "wapctl plan snapshot.yaml -l app=web -o name"),
        ("The live cluster of a kubeconfig context, preemptors in namespace prod",
         "wapctl --context prod plan -n prod"),
    ],
    "validate": [
        ("Check a snapshot and count what it holds", "wapctl validate snapshot.yaml"),
        ("A kubectl export on stdin (works without the alpha Workload API)",
         "kubectl get nodes,pods,priorityclasses,pdb -A -o yaml | wapctl validate -"),
        ("Every object, one a line: '-n NS kind/NAME', or 'kind/NAME'",
         "wapctl validate snapshot.yaml -o name"),
    ],
    "snapshot": [
        ("Save the cluster of a context to a file the other commands read",
         "wapctl snapshot --context prod > snapshot.yaml"),
        ("The same as JSON", "wapctl snapshot --context prod -o json > snapshot.json"),
        ("A slow API server: wait up to a minute per request",
         "wapctl snapshot --context prod --request-timeout 1m > snapshot.yaml"),
    ],
    "check-cycles": [
        ("Find preemption cycles and rule violations", "wapctl check-cycles snapshot.yaml"),
        ("Only cycles touching namespace ml, as JSON",
         "wapctl check-cycles snapshot.yaml -n ml -o json"),
        ("Annotations for a GitHub Actions log",
         "wapctl check-cycles snapshot.yaml --format github"),
    ],
    "audit": [
        ("What raising a PriorityClass would change",
         "wapctl audit snapshot.yaml --change change.yaml"),
        ("What deleting a PriorityClass would change, as YAML",
         "wapctl audit snapshot.yaml --delete PriorityClass/batch-never -o yaml"),
    ],
    "simulate": [
        ("Replay the queue until it settles or cycles", "wapctl simulate snapshot.yaml"),
        ("At most 50 steps, preempted pods not recreated, as JSON",
         "wapctl simulate snapshot.yaml --max-steps 50 --no-requeue -o json"),
    ],
    "explain": [
        ("A preempted pod: who preempted it, where, and whether wapctl's replay agrees",
         "wapctl explain pod/default/low-1 snapshot.yaml"),
        ("Victims already gone: a snapshot taken before the preemption supplies them",
         "wapctl explain pod/default/low-1 snapshot.yaml --before before.yaml"),
        ("The same as JSON", "wapctl explain pod/default/low-1 snapshot.yaml -o json"),
    ],
    "history": [
        ("Who preempted whom, per workload, from the events in a snapshot",
         "wapctl history snapshot.yaml"),
        ("The victims' requests from an earlier snapshot, as JSON (exit 1 on ping-pong)",
         "wapctl history snapshot.yaml --before before.yaml -o json"),
    ],
}


# ``wapctl`` where it starts a command: at the start of a line or after a pipe
_PROGRAM = re.compile(r"(^|\| )wapctl ")


def as_invoked(line: str, prog: str) -> str:
    """An example line naming the program as the user invoked it (``kubectl wap`` as a
    kubectl plugin)."""
    return _PROGRAM.sub(lambda m: f"{m.group(1)}{prog} ", line)


def epilog(command: str, prog: str = "wapctl") -> str | None:
    """The Examples section; ``\\b`` keeps click from re-wrapping the command lines."""
    items = EXAMPLES.get(command)
    if not items:
        return None
    lines = ["Examples:", ""]
    for what, line in items:
        lines += ["\b", f"  # {what}", f"  {as_invoked(line, prog)}", ""]
    return "\n".join(lines).rstrip()
