"""Committee election rules (UnWeaver): voters are entity classes, candidates are chunks,
a voter approves the chunks its entity is mentioned in. Pure functions on approval sets,
plus the utility-based aligned retrieval of UnWeaver's Appendix C (Algorithm 1)."""

from __future__ import annotations

import numpy as np

from .stopping import checkpoint


def approval(ballots: dict[int, set[int]], weights: dict[int, float], r: int) -> list[tuple[int, float]]:
    """Approval voting: each chunk's score is the total weight of the voters approving it."""
    score: dict[int, float] = {}
    for voter, approved in ballots.items():
        for c in approved:
            score[c] = score.get(c, 0.0) + weights.get(voter, 1.0)
    return sorted(score.items(), key=lambda x: (-x[1], x[0]))[:r]


def proportional_approval(ballots: dict[int, set[int]], weights: dict[int, float], r: int) -> list[tuple[int, float]]:
    """Sequential PAV: add the chunk with the largest marginal gain, where a voter who
    already has j approved chunks in the committee contributes w / (j + 1)."""
    satisfied = {v: 0 for v in ballots}
    chosen: list[tuple[int, float]] = []
    candidates = set().union(*ballots.values()) if ballots else set()
    for _ in range(min(r, len(candidates))):
        checkpoint()
        gains: dict[int, float] = {}
        for v, approved in ballots.items():
            g = weights.get(v, 1.0) / (satisfied[v] + 1)
            for c in approved:
                if c in candidates:
                    gains[c] = gains.get(c, 0.0) + g
        if not gains:
            break
        best = min(gains, key=lambda c: (-gains[c], c))
        chosen.append((best, gains[best]))
        candidates.discard(best)
        for v, approved in ballots.items():
            if best in approved:
                satisfied[v] += 1
    return chosen


def chamberlin_courant(ballots: dict[int, set[int]], weights: dict[int, float], r: int) -> list[tuple[int, float]]:
    """Greedy approval Chamberlin-Courant: maximise the weight of voters with at least one
    approved chunk in the committee; ties (and the rest) go by plain approval score."""
    plain = dict(approval(ballots, weights, len(set().union(*ballots.values())) if ballots else 0))
    represented: set[int] = set()
    chosen: list[tuple[int, float]] = []
    remaining = set(plain)
    while remaining and len(chosen) < r:
        checkpoint()

        def gain(c: int) -> float:
            return sum(weights.get(v, 1.0) for v, a in ballots.items() if c in a and v not in represented)

        best = min(remaining, key=lambda c: (-gain(c), -plain[c], c))
        chosen.append((best, gain(best) + 1e-6 * plain[best]))
        remaining.discard(best)
        represented |= {v for v, a in ballots.items() if best in a}
    return chosen


RULES = {"approval": approval, "pav": proportional_approval, "cc": chamberlin_courant}


def aligned_allocation(
    C: np.ndarray, gamma: np.ndarray, f: np.ndarray | None = None, iterations: int = 200,
    tolerance: float = 1e-6, step: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """UnWeaver Algorithm 1 (utility-based): maximise sum_s gamma_s log x_s s.t. C x <= f,
    by price iteration. C is chunks x classes (0/1), gamma the classes' relevance.

    Primal: x_s = gamma_s / (C[:, s] . lambda). Dual: prices move multiplicatively
    towards the budget, lambda_k <- lambda_k * (rho_k / f_k) ** step, rho = C x.
    Returns (x, lambda).
    """
    K, S = C.shape
    f = np.ones(K) if f is None else np.asarray(f, dtype=float)
    gamma = np.clip(np.asarray(gamma, dtype=float), 1e-9, None)
    lam = np.full(K, 1.0 / K)
    x = np.zeros(S)
    used = C.sum(axis=1) > 0  # chunks no class touches keep their price
    for _ in range(iterations):
        checkpoint()
        load = C.T @ lam
        x = gamma / np.where(load > 0, load, np.inf)
        rho = C @ x
        if np.max(np.abs(rho[used] - f[used]), initial=0.0) < tolerance:
            break
        lam = np.where(used, lam * (np.where(rho > 0, rho, 1e-12) / f) ** step, lam)
    return x, lam
