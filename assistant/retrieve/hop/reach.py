"""What hop knows of each chunk the question's names reached: the bonus of the way there
and the signals it fired, the names that led there, and whether the page names the question's entity again
(core.py marks it, scoring.py reads it)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Reach:
    """How the question's names reached one chunk."""

    bonus: float = 0.0  # the best bonus of the ways it was reached
    signals: tuple[str, ...] = ()  # the signals that way fired (signals.py)
    # The question's names that have it for a home (as the question writes a common word).
    linked: list[str] = field(default_factory=list)
    # For a chunk reached through a hop: "Luis Mandoki, named where Gaby: A True Story is",
    # and the bridges themselves (at most four of each).
    via: list[str] = field(default_factory=list)
    bridges: list[str] = field(default_factory=list)
    # Whether the bridged page names the question's linked entity again (None before a hop
    # reached it).
    names_linked: bool | None = None
    hops: int | None = None  # the hop that reached it, past the second


# chunk column -> how the question's names reached it
Reached = dict[int, Reach]
