"""Committee rules and UnWeaver's aligned retrieval against hand-computed values."""

import numpy as np
import pytest

from assistant.retrieve.voting import aligned_allocation, approval, chamberlin_courant, proportional_approval

# Three voters (entity classes) approve chunks; weights are their similarity to the query.
BALLOTS = {1: {10, 11}, 2: {10, 12}, 3: {13}}
WEIGHTS = {1: 1.0, 2: 1.0, 3: 0.9}


def test_approval_sums_the_weights_of_approving_voters():
    # chunk 10: 1.0 + 1.0; 11: 1.0; 12: 1.0; 13: 0.9 (ties broken by chunk id)
    assert approval(BALLOTS, WEIGHTS, 3) == [(10, 2.0), (11, 1.0), (12, 1.0)]


def test_pav_gives_later_seats_to_voters_not_yet_served():
    # Round 1: 10 (gain 2.0). Round 2: voters 1 and 2 are served once, so 11 and 12 gain
    # only 1/2 each, while 13 gains voter 3's full 0.9 and wins the seat.
    elected = proportional_approval(BALLOTS, WEIGHTS, 2)
    assert [c for c, _ in elected] == [10, 13]
    assert elected[1][1] == pytest.approx(0.9)


def test_chamberlin_courant_represents_every_voter_first():
    elected = chamberlin_courant(BALLOTS, WEIGHTS, 2)
    assert [c for c, _ in elected] == [10, 13]
    # A third seat represents nobody new: the best plain-approval chunk fills it.
    assert [c for c, _ in chamberlin_courant(BALLOTS, WEIGHTS, 3)][2] in (11, 12)


def test_unweaver_appendix_d_numerical_example():
    """UnWeaver Appendix D: K=2 chunks, S=3 classes, C = [[1,0,1],[0,1,1]], V = [[1,0,.5],
    [0,1,.5]], q = [1,1], f = [1,1]. Then gamma = V^T q = [1,1,1] and the KKT point is
    x = [2/3, 2/3, 1/3] with prices lambda = [3/2, 3/2]; the context is chunks {1, 2}."""
    C = np.array([[1, 0, 1], [0, 1, 1]], dtype=float)
    V = np.array([[1, 0, 0.5], [0, 1, 0.5]])
    q = np.array([1.0, 1.0])
    gamma = V.T @ q
    assert gamma == pytest.approx([1, 1, 1])
    x, lam = aligned_allocation(C, gamma, f=np.array([1.0, 1.0]))
    assert x == pytest.approx([2 / 3, 2 / 3, 1 / 3], abs=1e-6)
    assert lam == pytest.approx([1.5, 1.5], abs=1e-6)
    # KKT: gamma_s = x_s * C[:, s] . lambda for every class with x_s > 0, and C x = f.
    assert gamma == pytest.approx(x * (C.T @ lam))
    assert C @ x == pytest.approx([1, 1])
    # The L = 2 best classes by allocated strength, and the chunks that carry them.
    best = np.argsort(-x)[:2]
    assert {int(i) + 1 for i in np.nonzero(C[:, best].sum(axis=1))[0]} == {1, 2}


def test_aligned_allocation_respects_the_budget_on_a_larger_case():
    rng = np.random.default_rng(0)
    C = (rng.random((6, 9)) < 0.4).astype(float)
    C[:, C.sum(axis=0) == 0] = 1.0  # every class sits in some chunk
    gamma = rng.random(9) + 0.1
    x, lam = aligned_allocation(C, gamma, iterations=5000, tolerance=1e-9)
    load = C @ x
    assert np.all(x > 0)
    # Feasible, and complementary slackness: a chunk with a real price is at its budget.
    assert np.all(load <= 1 + 1e-3)
    priced = lam > 1e-3
    assert load[priced] == pytest.approx(np.ones(int(priced.sum())), abs=1e-3)
    # Stationarity of the log utility: gamma_s = x_s * (C^T lambda)_s.
    assert gamma == pytest.approx(x * (C.T @ lam), rel=1e-6)
