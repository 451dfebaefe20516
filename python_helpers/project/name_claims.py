"""Which topics may take the names sync would give them.

Every topic gets a raw table and a set of model names from its topic name
(``naming``); two legal Kafka topic names can give the same ones
(``x.public.coll-x`` and ``x.public.coll_x``, or ``Orders`` and
``orders``), and a person's file may hold one already. A topic that had
its names before keeps them; a new topic whose raw table or any model name
is taken is left out of the sync and the run alone, by name, with what
took it and the way out — never both topics, never the run.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from python_helpers.project.model_names import MODELS_DIR, ModelNames
from python_helpers.project.topic_properties import ANALYST_LAYERS
from python_helpers.topic.topics import Topic

# the layers whose model names a topic claims: every field of ModelNames
# that names a model
CLAIMED_LAYERS = tuple(
    f.name for f in fields(ModelNames) if f.name not in ("folder", "entity", "source", "table")
)


def _claims(names: ModelNames) -> dict[str, str]:
    """What a topic claims: ``{claim: what it is}``."""
    claims = {f"raw table {names.table}": "raw table"}
    claims |= {f"model {getattr(names, layer)}": "model" for layer in CLAIMED_LAYERS}
    return claims


def clashes(project: Path, every: dict[str, Topic], new: set[str]) -> dict[str, str]:
    """The ``new`` topics of ``every`` that cannot take their names, with why
    (the others, and every topic not new, keep theirs)."""
    if not new:
        return {}
    owner: dict[str, str] = {}
    for topic in sorted(every):
        if topic not in new:
            for claim in _claims(ModelNames.for_topic(every[topic])):
                owner.setdefault(claim, topic)
    files = {path.stem: path for path in sorted((project / MODELS_DIR).rglob("*.sql"))}
    refused: dict[str, str] = {}
    for topic in sorted(new):
        names = ModelNames.for_topic(every[topic])
        claims = _claims(names)
        taken = [(claim, owner[claim]) for claim in claims if claim in owner]
        if taken:
            claim, other = taken[0]
            refused[topic] = (
                f"its {claim} is topic {other!r}'s already (both names make the same"
                " identifier); set `model_name: <name>` in topics/<topic>.yml for other model"
                " names (a raw table cannot be renamed: land the topic in another project)"
            )
            continue
        held = [
            files[name]
            for layer in CLAIMED_LAYERS
            if layer not in ANALYST_LAYERS  # a person's model may live anywhere
            and (name := getattr(names, layer)) in files
            and files[name] != project / names.path(layer)
        ]
        if held:
            refused[topic] = (
                f"its model {held[0].stem!r} is the name of {held[0].relative_to(project)}"
                " already; set `model_name: <name>` in topics/<topic>.yml"
            )
            continue
        for claim in claims:
            owner[claim] = topic
    return refused
