"""The pips rating: agreement with openskill, the time decay, a fixed set of results."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce, PlackettLuceRating

from pips.results.rating import RatedGame, RatingSettings, compute, model, rate

AS_OF = date(2026, 10, 31)


def random_games(seed: int, count: int, players: int = 12) -> list[RatedGame]:
    rng = random.Random(seed)
    names = [f"P{i:02d}" for i in range(players)]
    games = []
    for order in range(count):
        seated = rng.sample(names, rng.randint(3, 9))
        ranks = [rng.randint(1, len(seated)) for _ in seated]
        day = AS_OF - timedelta(days=rng.randint(0, 700))
        games.append(RatedGame(day, order, tuple((n,) for n in seated), tuple(ranks)))
    return games


def test_with_full_weight_the_update_is_openskills_own() -> None:
    """Every game weighs 1 (an endless half-life): the list is exactly what openskill's
    PlackettLuce gives when fed the same games in the same order."""
    games = random_games(1, 300)
    endless = RatingSettings(half_life_days=1e300)
    ours = {s.key: s for s in compute(games, AS_OF, endless)}
    theirs = PlackettLuce()
    ratings: dict[str, PlackettLuceRating] = {}
    for game in sorted(games, key=lambda g: (g.played_on, g.result_id)):
        teams = [[ratings.get(n) or theirs.rating(name=n) for n in team] for team in game.teams]
        for team in theirs.rate(teams, ranks=[float(r) for r in game.ranks]):
            for player in team:
                ratings[str(player.name)] = player
    assert set(ours) == set(ratings)
    for name, player in ratings.items():
        assert ours[name].mu == pytest.approx(player.mu, abs=1e-9)
        assert ours[name].sigma == pytest.approx(player.sigma, abs=1e-9)
        assert ours[name].rating == pytest.approx(player.ordinal(), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    weight=st.floats(0.0, 1.0),
    ranks=st.lists(st.integers(1, 5), min_size=2, max_size=9),
    seed=st.integers(0, 10_000),
)
def test_a_weighted_update_moves_that_fraction_of_openskills_step(
    weight: float, ranks: list[int], seed: int
) -> None:
    """The mean moves ``w`` of openskill's step and the variance ``w`` of its change."""
    rng = random.Random(seed)
    engine = model()
    before = [[engine.rating(mu=rng.uniform(15, 35), sigma=rng.uniform(1, 8.3))] for _ in ranks]
    full = engine.rate(
        [[engine.rating(mu=t[0].mu, sigma=t[0].sigma)] for t in before],
        ranks=[float(r) for r in ranks],
    )
    scaled = rate(engine, before, ranks, weight)
    for old, new, got in zip(before, full, scaled, strict=True):
        assert got[0][0] == pytest.approx(old[0].mu + weight * (new[0].mu - old[0].mu))
        variance = old[0].sigma ** 2 + weight * (new[0].sigma ** 2 - old[0].sigma ** 2)
        assert got[0][1] == pytest.approx(math.sqrt(variance))


def test_the_decay_halves_a_game_per_half_life() -> None:
    rules = RatingSettings(half_life_days=180)
    assert rules.weight(AS_OF, AS_OF) == 1.0
    assert rules.weight(AS_OF - timedelta(days=180), AS_OF) == pytest.approx(0.5)
    assert rules.weight(AS_OF - timedelta(days=360), AS_OF) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="positive number of days"):
        RatingSettings(half_life_days=0)


def test_recent_games_weigh_more() -> None:
    """A won six games long ago, B won two lately. With a short half-life B is well
    ahead; with an endless one the old wins count fully and A leads."""
    old = [
        RatedGame(AS_OF - timedelta(days=400 + i), i, (("A",), ("B",), ("C",)), (1, 2, 3))
        for i in range(6)
    ]
    new = [
        RatedGame(AS_OF - timedelta(days=i), 100 + i, (("B",), ("A",), ("C",)), (1, 2, 3))
        for i in range(2)
    ]
    short = [s.key for s in compute(old + new, AS_OF, RatingSettings(half_life_days=60))]
    endless = [s.key for s in compute(old + new, AS_OF, RatingSettings(half_life_days=1e300))]
    assert short[0] == "B"
    assert endless[0] == "A"


FIXED = [
    # A tournament day: Anna beats everyone, Dora always last, Ben ahead of Cleo
    # twice and behind once; Emil plays once and wins (few games: uncertain).
    (("Anna", "Ben", "Cleo", "Dora"), (1, 2, 3, 4)),
    (("Ben", "Anna", "Dora", "Cleo"), (2, 1, 4, 3)),
    (("Cleo", "Dora", "Anna", "Ben"), (2, 4, 1, 3)),
    (("Anna", "Cleo", "Ben", "Dora"), (1, 2, 3, 4)),
    (("Dora", "Ben", "Cleo", "Anna"), (4, 2, 3, 1)),
    (("Emil", "Dora", "Cleo"), (1, 3, 2)),
]


def test_a_fixed_set_of_results_gives_the_expected_order() -> None:
    games = [
        RatedGame(AS_OF - timedelta(days=10), order, tuple((n,) for n in names), ranks)
        for order, (names, ranks) in enumerate(FIXED)
    ]
    standings = compute(games, AS_OF)
    assert [s.key for s in standings] == ["Anna", "Ben", "Cleo", "Emil", "Dora"]
    by_name = {s.key: s for s in standings}
    assert by_name["Emil"].games == 1 and by_name["Anna"].games == 5
    assert by_name["Emil"].sigma > by_name["Anna"].sigma
    # Input order does not matter: games are taken as played.
    assert [s.key for s in compute(list(reversed(games)), AS_OF)] == [s.key for s in standings]
    assert [s.key for s in compute(games, AS_OF, RatingSettings(min_games=2))] == [
        "Anna",
        "Ben",
        "Cleo",
        "Dora",
    ]


def test_pairs_are_rated_as_teams() -> None:
    """A partnership game is two teams (PT-13): partners move together."""
    games = [
        RatedGame(AS_OF, i, (("A", "C"), ("B", "D")), (1, 2) if i % 3 else (2, 1)) for i in range(9)
    ]
    standings = {s.key: s for s in compute(games, AS_OF)}
    assert standings["A"].mu == pytest.approx(standings["C"].mu)
    assert standings["A"].mu > standings["B"].mu


def test_the_worked_example_in_the_documentation_is_what_the_code_computes() -> None:
    """docs/results.md shows the evening's list; the list page computes it live."""
    from pathlib import Path

    from pips.results.rating import worked_example

    docs = (Path(__file__).parents[1] / "docs" / "results.md").read_text(encoding="utf-8")
    lines = worked_example()
    assert [line.name for line in lines][:1] == ["Dora"]
    by_points = max(lines, key=lambda line: line.points)
    assert by_points.name == "Anna" and lines.index(by_points) == 3
    assert sum(line.rating < 0 for line in lines) == 2
    for line in lines:
        row = (
            f"| {line.name} | {line.points} | {', '.join(map(str, line.places))} | "
            f"{line.mu:.2f} | {line.sigma:.2f} | {line.rating:.2f} |"
        )
        assert row in docs, row
