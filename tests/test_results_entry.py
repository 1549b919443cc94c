"""Entering results of real-table games: the checks, the totals and places, the CSV and
JSON forms, and agreement with games played by the engine."""

from __future__ import annotations

import random
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pips.core.tiles import double_set
from pips.games.fido_count import HAND_SIZES
from pips.games.match import Match
from pips.games.registry import find_game
from pips.results.entry import Entry, EntryError, Line, check, holdable_pips
from pips.results.entry_formats import (
    CSV_FIELDS,
    decode_csv,
    entry_from_json,
    entry_from_record,
    read_csv,
    write_csv,
)

TODAY = date(2026, 11, 23)


def fido(*lines: tuple[str, int, int], top: int = 6, day: date = date(2026, 10, 3)) -> Entry:
    return Entry("fido", day, top, tuple(Line(n, p, q) for n, p, q in lines))


def test_f_e5_going_out_final_scores_and_winner() -> None:
    """F-E5 / F-21: A went out with 14; B 17 - 13 = 4; C 9 - 1 = 8. A wins."""
    result = check(fido(("A", 14, 0), ("B", 17, 13), ("C", 9, 1)), TODAY)
    assert result.final == (14, 4, 8)
    assert result.ranks == (1, 3, 2)
    assert result.divisor == 3


def test_f_e5_the_player_who_went_out_need_not_win() -> None:
    """F-21: had B's running score been 30, B finishes with 17 and wins."""
    result = check(fido(("A", 14, 0), ("B", 30, 13), ("C", 9, 1)), TODAY)
    assert result.final == (14, 17, 8)
    assert result.ranks == (2, 1, 3)


def test_f_e5_blocked_hand_every_player_deducts() -> None:
    """F-20 / F-E5: A 20 - 9 = 11, B 18 - 3 = 15, C 12 - 0 = 12; B wins."""
    result = check(fido(("A", 20, 9), ("B", 18, 3), ("C", 12, 0)), TODAY)
    assert result.final == (11, 15, 12)
    assert result.ranks == (3, 1, 2)


def test_f_21_equal_final_scores_share_a_place() -> None:
    result = check(fido(("A", 10, 0), ("B", 12, 2), ("C", 3, 0)), TODAY)
    assert result.ranks == (1, 1, 3)


def test_f_02_a_set_and_player_count_outside_the_table_is_refused() -> None:
    with pytest.raises(EntryError, match="F-02"):
        check(fido(("A", 1, 0), ("B", 1, 0)), TODAY)
    with pytest.raises(EntryError, match="F-01"):
        check(fido(("A", 1, 0), ("B", 1, 0), ("C", 0, 0), top=13), TODAY)


def test_pips_no_hand_could_hold_are_refused() -> None:
    most, _ = holdable_pips(6, 3, 7)
    assert most == sum(sorted((t.pips for t in double_set(6)), reverse=True)[:14])
    with pytest.raises(EntryError, match="no hand of double-6 with 3 players"):
        check(fido(("A", 1, 0), ("B", 1, most + 1), ("C", 0, 0)), TODAY)
    # Each hand possible on its own, but not all together: 168 pips in double-6.
    with pytest.raises(EntryError, match="pips left in all hands"):
        check(fido(("A", 1, most), ("B", 1, most), ("C", 0, 0)), TODAY)


def test_holdable_pips_by_hand() -> None:
    """Double-6, 3 players: 7 tiles each and 7 in the stock, so a player can end with
    14 tiles: 6-6, 6-5, 6-4, 5-5, 6-3, 5-4, 6-2, 5-3, 4-4, 6-1, 5-2, 4-3 and two of
    the 6-pip tiles = 12+11+10+10+9+9+8+8+8+7+7+7+6+6 = 118. The whole set holds 168
    pips, and 0-0 may be the one tile laid."""
    assert holdable_pips(6, 3, 7) == (118, 168)
    # The partnership game has no stock: a hand is its 7 tiles.
    assert holdable_pips(6, 4, 7)[0] == 12 + 11 + 10 + 10 + 9 + 9 + 8


def test_other_impossible_entries() -> None:
    later = date(2026, 11, 24)
    with pytest.raises(EntryError, match="in the future"):
        check(fido(("A", 1, 0), ("B", 1, 0), ("C", 0, 0), day=later), TODAY)
    with pytest.raises(EntryError, match="sits at two seats"):
        check(fido(("Anna", 1, 0), ("anna", 1, 0), ("C", 0, 0)), TODAY)
    with pytest.raises(EntryError, match="cannot be negative"):
        check(fido(("A", -1, 0), ("B", 1, 0), ("C", 0, 0)), TODAY)
    with pytest.raises(EntryError, match="no player's name"):
        check(fido(("A", 1, 0), (" ", 1, 0), ("C", 0, 0)), TODAY)
    with pytest.raises(EntryError, match="may not start with '='"):
        check(fido(("A", 1, 0), ("=HYPERLINK(1)", 1, 0), ("C", 0, 0)), TODAY)
    with pytest.raises(EntryError, match="unknown game"):
        check(Entry("chess", TODAY, 6, (Line("A"), Line("B"))), TODAY)


def test_draw_game_places_by_going_out_then_fewest_pips() -> None:
    """DR-07, DR-08: whoever went out wins; a 0-pip hand that did not go out is
    second; equal pips share a place."""
    entry = Entry(
        "draw", TODAY, 6, (Line("A", pips=0, out=True), Line("B", pips=8), Line("C", pips=0))
    )
    assert check(entry, TODAY).ranks == (1, 3, 2)
    blocked = Entry("draw", TODAY, 6, (Line("A", pips=8), Line("B", pips=8), Line("C", pips=11)))
    assert check(blocked, TODAY).ranks == (1, 1, 3)
    with pytest.raises(EntryError, match="only one player goes out"):
        check(Entry("draw", TODAY, 6, (Line("A", out=True), Line("B", out=True))), TODAY)
    with pytest.raises(EntryError, match="six players need the double-9"):
        check(Entry("draw", TODAY, 6, tuple(Line(f"P{i}") for i in range(6))), TODAY)


def test_partnership_pairs_share_points_and_are_rated_as_two_teams() -> None:
    """§5.1: seats 0 and 2 play seats 1 and 3; PT-13: the pair with more points wins."""
    lines = (Line("A", 31), Line("B", 12), Line("C", 31), Line("D", 12))
    result = check(Entry("partnership", TODAY, 6, lines), TODAY)
    assert result.teams == ((0, 2), (1, 3))
    assert result.team_ranks == (1, 2)
    unequal = (Line("A", 31), Line("B", 12), Line("C", 30), Line("D", 12))
    with pytest.raises(EntryError, match="share their pair's points"):
        check(Entry("partnership", TODAY, 6, unequal), TODAY)
    with pytest.raises(EntryError, match="give points, not pips"):
        check(Entry("family", TODAY, 6, (Line("A", 100, 3), Line("B", 20))), TODAY)


CSV_HEADER = ",".join(CSV_FIELDS)


def test_csv_reads_several_games_in_any_row_order() -> None:
    text = "\n".join(
        [
            CSV_HEADER,
            "1,2026-10-03,Kiel,fido,6,3,2,B,17,13,,,",
            "1,2026-10-03,Kiel,fido,6,3,1,A,14,0,yes,14,1",
            "1,2026-10-03,Kiel,fido,6,3,3,C,9,1,,8,2",
            "g2,2026-10-04,,partnership,6,,1,A,30,0,,,",
            "g2,2026-10-04,,partnership,6,,2,B,10,0,,,",
            "g2,2026-10-04,,partnership,6,,3,C,30,0,,,",
            "g2,2026-10-04,,partnership,6,,4,D,10,0,,,",
        ]
    )
    games = read_csv(text, TODAY)
    assert [g.entry.names for g in games] == [("A", "B", "C"), ("A", "B", "C", "D")]
    assert games[0].final == (14, 4, 8)
    assert games[0].entry.place == "Kiel"
    assert games[1].team_ranks == (1, 2)


def test_csv_errors_name_every_bad_game_by_line() -> None:
    text = "\n".join(
        [
            CSV_HEADER,
            "1,2026-10-03,,fido,6,3,1,A,14,0,,,",
            "1,2026-10-03,,fido,6,3,2,B,17,13,,5,",  # final should be 4
            "1,2026-10-03,,fido,6,3,3,C,9,1,,,",
            "2,2026-13-01,,fido,6,,1,A,1,0,,,",
            "3,2026-10-03,,fido,6,4,1,A,1,0,,,",
            "3,2026-10-03,,fido,6,4,2,B,1,0,,,",
            "3,2026-10-03,,fido,6,4,3,C,1,0,,,",
        ]
    )
    with pytest.raises(EntryError) as caught:
        read_csv(text, TODAY)
    message = str(caught.value)
    assert "game 1 (line 2): seat 2: final 5 should be 4" in message
    assert "game 2 (line 5): '2026-13-01' is not a date" in message
    assert "game 3 (line 6): double-6 has divisor 3, not 4 (F-01)" in message
    with pytest.raises(EntryError, match="has no column player"):
        read_csv("game_no,date,game,set,seat,running,pips\n", TODAY)
    with pytest.raises(EntryError, match="seats must be 1 to 3"):
        read_csv(
            CSV_HEADER + "\n" + "\n".join(f"1,2026-10-03,,fido,6,,1,P{i},0,0,,," for i in range(3)),
            TODAY,
        )


names = st.lists(
    st.text(alphabet="abcdefghij ABC", min_size=1, max_size=10).map(lambda s: s.strip() or "x"),
    min_size=3,
    max_size=9,
    unique_by=lambda s: " ".join(s.split()).casefold(),
)


@st.composite
def fido_entries(draw: st.DrawFn) -> Entry:
    players = draw(names)
    top = draw(st.sampled_from([6, 9, 12, 15, 18]).filter(lambda t: len(players) in HAND_SIZES))
    most, together = holdable_pips(top, len(players), HAND_SIZES[len(players)][top])
    pips = [draw(st.integers(0, min(most, together // len(players)))) for _ in players]
    fido = find_game("fido")
    bound = fido.most_points_in_hand(fido.options_from_json({"players": len(players), "set": top}))
    lines = tuple(
        Line(name, draw(st.integers(0, bound.most)), p)
        for name, p in zip(players, pips, strict=True)
    )
    day = draw(st.dates(date(2000, 1, 1), TODAY))
    return Entry("fido", day, top, lines, draw(st.sampled_from(["", "Kiel", "Basel, CH"])))


@settings(max_examples=150, deadline=None)
@given(fido_entries())
def test_csv_and_json_round_trip_every_valid_entry(entry: Entry) -> None:
    """An entry written as CSV (the export) and read back (an upload) is the same
    game with the same fingerprint; so is its JSON."""
    result = check(entry, TODAY)
    again = read_csv(write_csv([(7, result)]), TODAY)
    assert again == [result]
    assert again[0].fingerprint() == result.fingerprint()
    as_json = {
        "game": entry.game,
        "date": entry.played_on.isoformat(),
        "set": entry.top,
        "place": entry.place,
        "players": [{"name": ln.name, "points": ln.points, "pips": ln.pips} for ln in entry.lines],
    }
    assert check(entry_from_json(as_json), TODAY) == result
    # Places follow the final scores (F-21): a higher score never has a worse place.
    for a in range(len(result.final)):
        for b in range(len(result.final)):
            if result.final[a] > result.final[b]:
                assert result.ranks[a] < result.ranks[b]


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("fido", {"players": 5, "set": 9}),
        ("draw", {"players": 3}),
        ("family", {"players": 3}),
        ("doubles", {"players": 4}),
        ("doubles", {"players": 8, "set": 9, "hand_size": 5}),
        ("partnership", {}),
    ],
)
def test_a_game_played_by_the_engine_enters_with_the_engines_result(
    game: str, options: dict[str, int]
) -> None:
    """A server game's record becomes an entry whose final scores and places are those
    the rules engine gave (so typed and played results are ranked alike)."""
    from pips import record

    spec = find_game(game)
    for seed in range(6):
        rng = random.Random(seed)
        match = Match(spec, spec.options_from_json(options), rng)
        while not match.is_over:
            match.play(rng.choice(list(match.legal_moves())))
        names = [f"P{i}" for i in range(match.players)]
        written = record.write_record(match, names, seed=seed)
        result = check(entry_from_record(written, TODAY), TODAY, written["options"])
        assert match.result is not None
        assert result.ranks == match.result.ranks
        if game != "draw":
            assert result.final == match.result.final


def test_json_errors_are_clear() -> None:
    with pytest.raises(EntryError, match="'players' lists the players"):
        entry_from_json({"game": "fido", "date": "2026-10-01"})
    with pytest.raises(EntryError, match="points must be a whole number"):
        entry_from_json(
            {"date": "2026-10-01", "players": [{"name": "A", "points": "many"}, {"name": "B"}]}
        )


GERMAN_CLUB_FILE = "\r\n".join(
    [
        "Spiel;Datum;Ort;Spielart;Satz;Teiler;Sitz;Spieler;Punkte;Augen;Raus;Endstand;Platz",
        "7;03.10.2026;Gaststätte Zur Linde;FIDO;6;3;1;Jörg Müller;14;0;;14;1",
        "7;03.10.2026;Gaststätte Zur Linde;FIDO;6;3;2;Anna-Lena Weiß;9;13;;-4;3",
        "7;03.10.2026;Gaststätte Zur Linde;FIDO;6;3;3;Zoë Öztürk;5;1;;4;2",
        "12;4.10.2026;;Anleitung;6;;1;Jörg Müller;0;0;ja;;",
        "12;4.10.2026;;Anleitung;6;;2;Zoë Öztürk;0;11;nein;;",
    ]
)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-8", "cp1252"])
def test_a_german_clubs_spreadsheet_file_is_read(encoding: str) -> None:
    """Semicolons, a BOM (or Windows-1252, as a German spreadsheet saves "CSV"), German
    column names, dates as 03.10.2026, games by their German names, "ja" for went out."""
    text = decode_csv(GERMAN_CLUB_FILE.encode(encoding))
    games = read_csv(text, TODAY)
    fido, draw = games
    assert fido.entry.game == "fido" and fido.entry.played_on == date(2026, 10, 3)
    assert fido.entry.place == "Gaststätte Zur Linde"
    assert fido.entry.names == ("Jörg Müller", "Anna-Lena Weiß", "Zoë Öztürk")
    assert fido.final == (14, -4, 4) and fido.ranks == (1, 3, 2)
    assert draw.entry.game == "draw" and draw.entry.played_on == date(2026, 10, 4)
    assert [line.out for line in draw.entry.lines] == [True, False]
    # Written back in pips' own layout, the file reads the same.
    assert read_csv(write_csv(enumerate(games, 1)), TODAY) == games


def test_errors_in_a_club_file_name_its_own_game_numbers_and_lines() -> None:
    broken = GERMAN_CLUB_FILE.replace(
        "7;03.10.2026;Gaststätte Zur Linde;FIDO;6;3;2",
        "7;03.10.2026;Gaststätte Zur Linde;FIDO;6;3;3",
        1,
    )
    broken = broken.replace("12;4.10.2026", "12;31.09.2026")
    with pytest.raises(EntryError) as caught:
        read_csv(broken, TODAY)
    message = str(caught.value)
    assert "game 7 (line 2): seats must be 1 to 3" in message
    assert "game 12 (line 5): '31.09.2026' is not a date" in message


def test_a_file_that_is_no_known_text_is_refused_in_words() -> None:
    with pytest.raises(EntryError, match="neither UTF-8 nor Windows-1252"):
        decode_csv(b"\x81\x8d\x8f\x90\x9d")
