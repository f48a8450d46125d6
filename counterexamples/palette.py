"""The colours every renderer shares, so a record of epoch 1 or a LeaderAndIsr request looks the same everywhere."""

from __future__ import annotations

EPOCH_FILLS = ("#bfdbfe", "#bbf7d0", "#e9d5ff", "#fbcfe8", "#99f6e4", "#fed7aa", "#ddd6fe", "#fef08a")
"""Log cells by leader epoch (blue, green, purple, pink, teal, orange...); chosen to stay apart from the
yellow of "changed in this step" and the red of a culprit."""
EPOCH_TEXT = "#0f172a"
CHANGED = "#fde68a"
CULPRIT_FILL = "#fecaca"
CULPRIT_LINE = "#b91c1c"
DOWN_FILL = "#e5e7eb"
DOWN_TEXT = "#6b7280"
HW_MARK = "#1d4ed8"
LEO_MARK = "#475569"
KIND_COLOURS = {
    "LeaderAndIsr": "#7c3aed",
    "Fetch": "#2563eb",
    "OffsetsForLeaderEpoch": "#db2777",
    "IsrUpdate": "#0d9488",
    "Produce": "#c2410c",
}
"""Message kinds the Kafka specs use; other kinds take :data:`OTHER_KINDS` in order of appearance."""
OTHER_KINDS = ("#4d7c0f", "#a16207", "#0369a1", "#9333ea", "#be123c", "#475569")


def epoch_fill(epoch: int | None) -> str:
    """The fill of a log cell written in ``epoch`` (white when it has none)."""
    return "#ffffff" if epoch is None else EPOCH_FILLS[epoch % len(EPOCH_FILLS)]


def kind_colours(kinds: list[str]) -> dict[str, str]:
    """A colour for each message kind, fixed for the known ones, by order of appearance for the rest."""
    out: dict[str, str] = {}
    spare = iter(OTHER_KINDS * (len(kinds) // len(OTHER_KINDS) + 1))
    for k in kinds:
        if k not in out:
            out[k] = KIND_COLOURS.get(k) or next(spare)
    return out
