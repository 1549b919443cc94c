"""Drawing players to tables for an event's rounds (issue 22, pips.results.draws): the
sizes each game allows, the fewest byes, nobody twice, and fewer repeated meetings than
a plain random draw, measured over many simulated events."""

from __future__ import annotations

import random
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pips.core.errors import OptionError
from pips.games.registry import all_games, find_game
from pips.results.draws import (
    TableOptions,
    allowed_sizes,
    draw_event,
    draw_round,
    repeats,
    table_sizes,
)

GAMES = {spec.name: allowed_sizes(spec, {}) for spec in all_games()}


def test_each_game_seats_the_players_its_rules_allow() -> None:
    """F-02 (3 to 9), FA §2.1 (2 to 4), DR §3.1 (2 to 6), DB-02 (2 to 7 without a
    chosen set), PT §5.1 (4)."""
    assert GAMES == {
        "fido": (3, 4, 5, 6, 7, 8, 9),
        "family": (2, 3, 4),
        "draw": (2, 3, 4, 5, 6),
        "doubles": (2, 3, 4, 5, 6, 7),
        "partnership": (4,),
    }
    # With a set chosen, Doubles seats eight and nine too (DB-02).
    assert allowed_sizes(find_game("doubles"), {"set": 12})[-1] == 9


def test_an_events_options_are_parsed_once_into_each_tables_own() -> None:
    """An event's options, typed for each size of table (issue 48): a round's set is
    these changed (GameOptions.changed), never a second parse of the JSON."""
    tables = TableOptions.parse(find_game("doubles"), {"set": 12})
    assert tables.allowed() == tuple(range(2, 10))
    assert all(options.players == n and options.top == 12 for n, options in tables.sizes.items())
    nine = tables.with_set(9)
    assert nine is not None and nine.top == 9 and type(nine) is type(tables.sizes[2])
    assert tables.with_set(6, players=9) is None  # nine players need a larger set (DB-02)
    with pytest.raises(OptionError):
        TableOptions.parse(find_game("fido"), {"wild tiles": 2})


def test_seventeen_fido_players_sit_five_four_four_four() -> None:
    assert table_sizes(17, GAMES["fido"]) == ((5, 4, 4, 4), 0)
    assert table_sizes(17, GAMES["partnership"]) == ((4, 4, 4, 4), 1)
    assert table_sizes(2, GAMES["fido"]) == ((), 2)  # nobody can play: both sit out
    assert table_sizes(9, GAMES["family"]) == ((3, 3, 3), 0)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(GAMES)), st.integers(0, 60))
def test_sizes_are_allowed_even_and_leave_the_fewest_byes(game: str, players: int) -> None:
    allowed = GAMES[game]
    sizes, byes = table_sizes(players, allowed)
    assert sum(sizes) + byes == players
    assert all(size in allowed for size in sizes)
    assert not sizes or max(sizes) - min(sizes) <= 1

    def seatable(n: int) -> bool:
        # Any split into allowed sizes at all (not only even ones), by dynamic programming.
        can = [True] + [False] * n
        for total in range(1, n + 1):
            can[total] = any(s <= total and can[total - s] for s in allowed)
        return can[n]

    # No split into allowed sizes (even or not) seats more players.
    assert not any(seatable(players - fewer) for fewer in range(byes) if players - fewer > 0)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(GAMES)), st.integers(2, 40), st.integers(1, 4), st.integers(0, 99))
def test_every_player_is_drawn_once_a_round(game: str, count: int, rounds: int, seed: int) -> None:
    players = [f"Spieler {i}" for i in range(count)]
    drawn = draw_event(players, rounds, GAMES[game], random.Random(seed))
    for one in drawn:
        seated = [p for table in one.tables for p in table.seats]
        assert sorted(seated + list(one.byes)) == sorted(players)
        assert all(len(t.seats) in GAMES[game] for t in one.tables)
    # Byes go round: nobody sits out twice while another has not sat out at all.
    sat_out = [sum(p in one.byes for one in drawn) for p in players]
    assert max(sat_out) - min(sat_out) <= 1


def test_a_draw_replays_from_its_seed() -> None:
    players = [f"p{i}" for i in range(23)]
    first = draw_event(players, 3, GAMES["fido"], random.Random(2026))
    again = draw_event(players, 3, GAMES["fido"], random.Random(2026))
    assert first == again


def test_sixteen_players_meet_nobody_twice_in_the_second_round() -> None:
    """Four tables of four, then a round where each table takes one player from each
    table before: a repeat-free second round exists, and the draw finds it."""
    players = [f"p{i}" for i in range(16)]
    for seed in range(20):
        drawn = draw_event(players, 2, GAMES["fido"], random.Random(seed))
        assert repeats(drawn) == 0, seed


@pytest.mark.slow
@pytest.mark.parametrize(("game", "count", "rounds"), [("fido", 17, 3), ("family", 12, 3)])
def test_the_draw_repeats_fewer_meetings_than_chance(game: str, count: int, rounds: int) -> None:
    """Measured over 20 simulated events: the draw's repeated meetings against those of
    tables drawn without looking at who met (the same sizes). Measured once over 60:
    17 FIDO players, 3 rounds, 171 against 960; 12 family players, 526 against 814
    (tables of four out of twelve cannot avoid every repeat)."""
    allowed = GAMES[game]
    players = [f"p{i}" for i in range(count)]
    ours = chance = 0
    for seed in range(20):
        ours += repeats(draw_event(players, rounds, allowed, random.Random(seed)))
        rng = random.Random(10_000 + seed)
        shuffled = []
        for number in range(1, rounds + 1):
            # No history: every draw is a plain shuffle into the same sizes.
            shuffled.append(draw_round(number, players, allowed, rng))
        chance += repeats(shuffled)
    assert ours < 0.75 * chance, (ours, chance)


def test_repeats_count_each_meeting_again() -> None:
    a = draw_round(1, ["a", "b", "c"], (3,), random.Random(1))
    b = draw_round(2, ["a", "b", "c"], (3,), random.Random(2))
    assert repeats([a, b]) == len(list(combinations("abc", 2)))


def test_pips_event_draw_prints_every_round_and_replays_from_its_seed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.test_cli import run

    names = "Jürgen,Bärbel,Anna,Ben,Cleo,Dora,Emil,Fritz,Greta,Hans,Ida,Jan,Karl,Lena,Max,Nina,Otto"
    code, first, _ = run(
        ["event", "draw", "fido", "--names", names, "--rounds", "3", "--seed", "7"], capsys
    )
    assert code == 0
    assert first.count("Round ") == 3 and first.count("Table ") == 12
    assert "FIDO divisor game: 17 players, 3 rounds, seed 7" in first
    code, again, _ = run(
        ["event", "draw", "fido", "--names", names, "--rounds", "3", "--seed", "7"], capsys
    )
    assert again == first
    code, bye, _ = run(["event", "draw", "partnership", "--players", "9", "--seed", "3"], capsys)
    assert code == 0 and bye.count("Table ") == 2 and "Sits out: player " in bye


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--names", "Anna,Ben,Anna"], "a name is listed twice"),
        (["--players", "0"], "--players must be 1 to 1000"),
        ([], "name the players with --names, or give --players"),
        (["--players", "5", "--rounds", "0"], "--rounds must be 1 to 50"),
        (["--players", "3", "--names", "Anna,Ben"], "--players says 3 but --names lists 2"),
    ],
)
def test_pips_event_draw_refuses_bad_input_in_one_line(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.test_cli import run

    code, out, err = run(["event", "draw", "fido", *args], capsys)
    assert code == 2 and said in err and "Traceback" not in err, (out, err)


def test_a_rounds_table_cards_and_sheets_in_one_pdf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pips event sheets: the round drawn again from its seed; per table a card with the
    players in seat order and the score sheet with their names, in the asked language."""
    import pdfplumber

    from tests.test_cli import run

    names = "Jürgen,Bärbel,Anna,Ben,Cleo,Dora,Emil,Fritz,Greta,Hans,Ida,Jan,Karl,Lena,Max,Nina,Otto"
    code, printed, _ = run(
        ["event", "draw", "fido", "--names", names, "--rounds", "2", "--seed", "7"], capsys
    )
    round_two = printed.split("Round 2")[1]
    tables = [
        line.split(": ", 1)[1].split(", ")
        for line in round_two.splitlines()
        if line.startswith("Table ")
    ]
    pdf = tmp_path / "round.pdf"
    code, written, err = run(
        [
            "event",
            "sheets",
            "fido",
            "--names",
            names,
            "--seed",
            "7",
            "--round",
            "2",
            "--out",
            str(pdf),
            "--place",
            "Neumühle",
            "--date",
            "03.10.2026",
            "--lang",
            "de",
        ],
        capsys,
    )
    assert code == 0 and "round 2, 4 tables" in written, err
    with pdfplumber.open(pdf) as document:
        pages = [page.extract_text() or "" for page in document.pages]
    text = "\n".join(pages)
    # A card and a one-page sheet per table (double-6).
    assert len(pages) == 2 * len(tables)
    for number, seats in enumerate(tables, 1):
        card = pages[2 * (number - 1)]
        assert card.startswith(f"Durchgang 2\n03.10.2026\nTisch\n{number}\n"), card
        rows = card.split("\nSitz\n")[1].splitlines()
        assert [row.split(" ", 1) for row in rows] == [
            [str(seat), name] for seat, name in enumerate(seats, 1)
        ]
    assert text.count("FIDO-Divisorspiel — Spielformular") == len(tables)
    assert "Ort: Neumühle" in text and "03.10.2026" in text


def test_standings_of_an_evening_computed_by_hand() -> None:
    """Two rounds of FIDO (final scores, F-21), worked by hand:
    Dora 25 + 20 = 45 (two wins); Anna 30 + 10 = 40 and Ben 12 + 28 = 40 (one win each,
    places 1 and 2: average 1.5) share second; Emil 25 - 2 = 23; Cleo -3 + 15 = 12;
    Fritz 4 + 0 = 4; Greta sat out round 2 after a 3 in round 1."""
    from pips.results.standings import TableResult, standings

    results = [
        TableResult(1, 1, ("Anna", "Ben", "Cleo"), (30, 12, -3), (1, 2, 3)),
        TableResult(1, 2, ("Dora", "Emil", "Fritz", "Greta"), (25, 25, 4, 3), (1, 1, 3, 4)),
        TableResult(2, 1, ("Anna", "Dora", "Fritz"), (10, 20, 0), (2, 1, 3)),
        TableResult(2, 2, ("Ben", "Cleo", "Emil"), (28, 15, -2), (1, 2, 3)),
    ]
    lines = standings(results, byes=[(2, "Greta")])
    assert [(s.place, s.name, s.points, s.wins, s.games, s.byes) for s in lines] == [
        (1, "Dora", 45, 2, 2, 0),
        (2, "Anna", 40, 1, 2, 0),
        (2, "Ben", 40, 1, 2, 0),
        (4, "Emil", 23, 1, 2, 0),
        (5, "Cleo", 12, 0, 2, 0),
        (6, "Fritz", 4, 0, 2, 0),
        (7, "Greta", 3, 0, 1, 1),
    ]


def test_standings_break_ties_by_wins_and_rank_pairs_by_match_wins() -> None:
    from pips.results.standings import Scoring, TableResult, standings

    equal_points = [
        TableResult(1, 1, ("Jürgen", "Bärbel"), (20, 20), (1, 1)),
        TableResult(2, 1, ("Jürgen", "Bärbel"), (0, 0), (2, 2)),
        TableResult(3, 1, ("Jürgen", "Bärbel", "Cleo"), (0, 0, 20), (1, 2, 3)),
    ]
    lines = standings(equal_points)
    assert [(s.place, s.name) for s in lines][:2] == [(1, "Jürgen"), (2, "Bärbel")]
    # Partnership: matches won first (PT-13), then points; nobody yet played listed last.
    matches = [
        TableResult(1, 1, ("A", "B", "C", "D"), (30, 12, 30, 12), (1, 2, 1, 2)),
        TableResult(2, 1, ("A", "C", "B", "D"), (10, 30, 10, 30), (2, 1, 2, 1)),
    ]
    lines = standings(matches, Scoring.MATCH_WINS, players=["A", "B", "C", "D", "E"])
    assert [(s.place, s.name, s.wins, s.points) for s in lines] == [
        (1, "C", 2, 60),
        (2, "D", 1, 42),
        (3, "A", 1, 40),
        (4, "B", 0, 22),
        (5, "E", 0, 0),
    ]
