"""PriorityClasses: the snapshot's and the built-in ``system-*`` ones, and the book that
resolves a class name (a missing class is a warning where a number stands in for it)."""

from __future__ import annotations

from typing import Any

from wapctl.errors import InputError, Source
from wapctl.ingest import fields
from wapctl.ingest.fields import Head
from wapctl.ingest.fields import enum as _enum
from wapctl.ingest.fields import opt_bool as _opt_bool
from wapctl.ingest.fields import type_error as _type_error
from wapctl.model import NEVER, PREEMPT_LOWER, LoadWarning, PriorityClass

# ---- PriorityClass -------------------------------------------------------------------------

# The classes every API server creates at start, whether or not an export lists them:
# kubernetes/kubernetes pkg/apis/scheduling/helpers.go ``systemPriorityClasses``, with
# ``SystemCriticalPriority = 2 * HighestUserDefinablePriority`` = 2 * 10^9 (types.go).
BUILTIN_PRIORITY_CLASSES = {
    "system-node-critical": PriorityClass("system-node-critical", 2_000_001_000),
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2_000_000_000),
}


class ClassBook(dict):  # type: ignore[type-arg]
    """The PriorityClasses to resolve names against (the snapshot's, then the built-in ones),
    and the objects that named a class the snapshot lacks but carry a number of their own.

    A missing class is an error only where no number stands in for it (``resolve``)."""

    def __init__(self, classes: dict[str, PriorityClass]):
        super().__init__(BUILTIN_PRIORITY_CLASSES)
        self.update(classes)
        # class name -> [(object label, source, field, number or None)]
        self.missing: dict[str, list[tuple[str, Source, str, int | None]]] = {}

    def resolve(
        self, name: str, number: int | None, label: str, source: Source, field: str,
        *, deferred: bool = False,
    ) -> PriorityClass | None:
        """The class called ``name``. Missing: None when ``number`` stands in for it (or the
        caller defers the decision), noted for a warning; otherwise an ``InputError``."""
        found: PriorityClass | None = self.get(name)
        if found is not None:
            return found
        if number is None and not deferred:
            raise missing_class(name, source, field)
        self.missing.setdefault(name, []).append((label, source, field, number))
        return None

    def warnings(self) -> list[LoadWarning]:
        out = []
        for name, users in self.missing.items():
            label, source, field, _ = min(users, key=lambda u: u[0])
            numbers = ", ".join(map(str, sorted({n for *_, n in users if n is not None})))
            others = len(users) - 1
            who = (f"; {others} more object{'s name' if others > 1 else ' names'} it too"
                   if others else "")
            if not numbers:
                used = "the PodGroups carry their own priority"
            elif others:
                used = f"the priority each object carries is used ({numbers})"
            else:
                used = f"the priority it carries is used ({numbers})"
            out.append(LoadWarning(
                "MissingPriorityClass", label, field,
                f"PriorityClass {name!r} is not in the snapshot (deleted, or left out of the "
                f"export){who}; {used}",
                source,
            ))
        return out


def missing_class(name: str, source: Source, field: str) -> InputError:
    return InputError(
        f"PriorityClass {name!r} does not exist in the snapshot and no priority number stands "
        f"in for it: add it to the snapshot (kubectl get priorityclass {name} -o yaml)",
        source,
        field,
    )


POLICIES = (PREEMPT_LOWER, NEVER)


def read_priority_class(obj: dict[str, Any], source: Source, head: Head) -> PriorityClass:
    _, _, name = head
    value = obj.get("value")
    if type(value) is not int:
        if value is None:
            raise InputError("missing (required)", source, "value")
        raise _type_error(value, "an integer", source, "value")
    fields.check_int32(value, source, "value")
    return PriorityClass(
        name=name,
        value=value,
        global_default=_opt_bool(obj.get("globalDefault"), source, "globalDefault"),
        preemption_policy=_enum(obj.get("preemptionPolicy"), POLICIES, source, "preemptionPolicy")
        or PREEMPT_LOWER,  # type: ignore[arg-type]
        source=source,
    )
