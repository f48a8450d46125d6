"""A :class:`CheckResult` as TLC prints its statistics, so numbers can be compared side by side."""

from __future__ import annotations

from modelcheck.output.results import CheckResult


def summary_lines(r: CheckResult) -> list[str]:
    """TLC's closing statistics, so numbers can be compared side by side."""
    if r.stopped_by == "simulation":
        # Random walks: no queue, and the depth is that of the longest walk, not of a complete search.
        return [
            f"{r.states_generated:,} states generated, {r.distinct_states:,} distinct states visited by the walks.",
            f"The longest walk reached depth {r.depth}.",
            f"Finished in {r.seconds:.2f}s ({r.states_per_second:,.0f} states/s).",
        ]
    lines = [
        f"{r.states_generated:,} states generated, {r.distinct_states:,} distinct states found, "
        f"{r.queue_left:,} states left on queue.",
        f"The depth of the complete state graph search is {r.depth}.",
        f"The probability of a fingerprint collision is calculated (optimistic) to be {r.collision_probability:.1E}.",
        f"Finished in {r.seconds:.2f}s ({r.states_per_second:,.0f} states/s).",
    ]
    if r.graph_edges or r.liveness_seconds:
        per_edge = r.graph_edge_bytes / r.graph_edges if r.graph_edges else 0.0
        lines.insert(-1, f"Liveness: {r.graph_edges:,} transitions recorded ({per_edge:.0f} bytes each; "
                         f"{r.graph_bytes / 2**20:.1f} MiB with the states' predicate bits); properties decided in "
                         f"{r.liveness_seconds:.2f}s.")
    return lines


def coverage_lines(r: CheckResult) -> list[str]:
    """Per-action coverage as TLC prints it: distinct and generated states per action."""
    width = max((len(a.name) for a in r.action_stats), default=0)
    return [
        f"  {a.name:<{width}}  distinct {a.distinct:>10,}  generated {a.generated:>10,}"
        for a in r.action_stats
    ]
