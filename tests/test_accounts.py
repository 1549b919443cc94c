"""Names people choose: names of every language are normal input, not edge cases; names
that hide what they say are refused, and two spellings of one name are one name."""

from __future__ import annotations

import asyncio
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pips.core.names import check_name, name_key
from pips.server.accounts import AccountError, Accounts, DatabaseBook, MemoryBook, Throttle
from pips.server.accounts import check_name as account_name
from pips.server.accounts.throttle import FailureBook
from pips.store.db import Database
from tests.server_helpers import database_urls, new_database


@pytest.mark.parametrize(
    "name",
    [
        "Jürgen Müller",
        "Jörg Müller",
        "Zoë",
        "Ünal Öztürk",
        "Søren",
        "Anna-Lena",
        "O'Neill",
        "D’Angelo",
        "Łukasz Żółć",
        "山田太郎",
        "Παπαδόπουλος",
        "हिन्दी",
        "R2",
        "Jo.",
    ],
)
def test_names_of_every_language_are_taken(name: str) -> None:
    assert check_name(f"  {name} ") == name
    assert account_name(name) == name


def test_a_name_typed_with_combining_marks_is_the_same_name() -> None:
    decomposed = unicodedata.normalize("NFD", "Jürgen")
    assert decomposed != "Jürgen"
    assert check_name(decomposed) == "Jürgen"


def test_runs_of_spaces_become_one() -> None:
    assert check_name("Anna   Berg") == "Anna Berg"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("J", "2 to 40"),
        ("a" * 41, "2 to 40"),
        ("_Jo", "letters"),
        ("Jo<script>", "letters"),
        ("=SUM(A1)", "letters"),
        ("Eve\x00", "control or invisible"),
        ("Bell\x07", "control or invisible"),
        ("J\to", "control or invisible"),
        ("Eve\u202eevil", "control or invisible"),  # right-to-left override
        ("Ann\u200d", "control or invisible"),  # zero-width joiner
        ("Ann\u2066x", "control or invisible"),  # bidi isolate
        ("Ann\u00a0Berg", "control or invisible"),  # no-break space looks like a space
        ("-Jo", "starts with a letter"),
    ],
)
def test_names_that_hide_what_they_say_are_refused(name: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_name(name)
    with pytest.raises(AccountError):
        account_name(name)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("alice", "ALICE"),
        ("alice", "Alice"),
        ("alice", "ａｌｉｃｅ"),  # fullwidth forms
        ("Straße", "STRASSE"),
        ("Jürgen", unicodedata.normalize("NFD", "JÜRGEN")),
        ("Anna Berg", "anna  berg"),
    ],
)
def test_names_that_fold_alike_are_one_name(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


def test_different_names_stay_different() -> None:
    assert name_key("Müller") != name_key("Muller")
    assert name_key("Anna") != name_key("Anne")


@given(st.text(min_size=1, max_size=60))
def test_any_text_is_a_clear_name_or_a_clear_refusal(text: str) -> None:
    try:
        kept = check_name(text)
    except ValueError as exc:
        assert str(exc).startswith("a name")
        return
    assert kept == unicodedata.normalize("NFC", kept)
    assert 2 <= len(kept) <= 40
    assert all(unicodedata.category(c)[0] in "LMN" or c in " .-'’" for c in kept)
    assert check_name(kept) == kept and name_key(kept) == name_key(kept.upper().lower())


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _database_book(kind: str, tmp_path: Path) -> Callable[[], FailureBook]:
    """A maker of books over one fresh database: two books made are two processes."""
    db = Database(new_database(kind, tmp_path))
    db.upgrade()
    return lambda: DatabaseBook(db)


@pytest.fixture(params=["memory", *database_urls()])
def book(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], FailureBook]:
    """Where the failures are kept: this process only, or a database of each kind."""
    if request.param == "memory":
        return MemoryBook
    return _database_book(request.param, tmp_path)


def test_wrong_passwords_make_an_address_wait_longer_each_time(
    book: Callable[[], FailureBook],
) -> None:
    clock = Clock()
    throttle = Throttle(clock=clock, book=book())
    for _ in range(5):
        throttle.check_account("ann", "10.0.0.9")
        throttle.failed("ann", "10.0.0.9")
    # The sixth try from that address must wait 2 s, then 4 s, 8 s ... whatever the
    # password; the owner at another address is not held back (issue 32: a guesser
    # cannot lock the owner out).
    waits = []
    for _ in range(4):
        with pytest.raises(AccountError) as refused:
            throttle.check_account("ann", "10.0.0.9")
        assert refused.value.status == 429
        waits.append(refused.value.retry_after)
        throttle.check_account("ann", "192.168.1.20")
        clock.now += float(refused.value.retry_after or 0)
        throttle.check_account("ann", "10.0.0.9")
        throttle.failed("ann", "10.0.0.9")
    assert waits == [2, 4, 8, 16]
    throttle.succeeded("ann", "10.0.0.9")
    throttle.check_account("ann", "10.0.0.9")  # the right password clears it


def test_a_guesser_at_many_addresses_never_makes_the_owners_browser_wait(
    book: Callable[[], FailureBook],
) -> None:
    clock = Clock()
    throttle = Throttle(clock=clock, book=book())
    for n in range(throttle.name_free_failures):
        throttle.check_account("ann", f"10.1.{n}.1")
        throttle.failed("ann", f"10.1.{n}.1")
    # Every new address now waits for the name ...
    with pytest.raises(AccountError) as refused:
        throttle.check_account("ann", "10.2.0.1")
    assert refused.value.retry_after == 2
    # ... but not a browser with the owner's device cookie, nor another name.
    throttle.check_account("ann", "10.2.0.1", device=True)
    throttle.check_account("ben", "10.2.0.1")
    # An administrator's unlock forgets every wrong password for the name.
    throttle.unlock("ann")
    throttle.check_account("ann", "10.2.0.1")
    throttle.check_account("ann", "10.1.0.1")


def test_the_longest_wait_is_bounded() -> None:
    throttle = Throttle(clock=Clock())
    assert throttle.wait_after(100) == throttle.longest_wait == 900.0


def test_an_address_gets_its_burst_then_waits() -> None:
    clock = Clock()
    throttle = Throttle(clock=clock)
    throttle.addresses.clock = clock
    for _ in range(10):
        asyncio.run(throttle.attempt("10.0.0.1"))
    with pytest.raises(AccountError, match="too many attempts"):
        asyncio.run(throttle.attempt("10.0.0.1"))
    asyncio.run(throttle.attempt("10.0.0.2"))  # another address is not held back
    clock.now += 6.0
    asyncio.run(throttle.attempt("10.0.0.1"))


@pytest.mark.parametrize("kind", database_urls())
def test_every_process_counts_the_same_wrong_passwords(kind: str, tmp_path: Path) -> None:
    """Two server processes over one database (DatabaseBook): wrong passwords at either
    count for both, so a balancer in front of several gives a guesser no more tries, and
    a process started later (a restart) knows them too."""
    book = _database_book(kind, tmp_path)
    clock = Clock()
    first, second = Throttle(clock=clock, book=book()), Throttle(clock=clock, book=book())
    here = "10.0.0.7"
    for throttle in (first, second, first, second, first):
        throttle.check_account("jörg", here)
        throttle.failed("jörg", here)
    for throttle in (first, second, Throttle(clock=clock, book=book())):
        with pytest.raises(AccountError) as refused:
            throttle.check_account("jörg", here)
        assert refused.value.retry_after == 2
    second.check_account("anna", here)  # another name is not held back
    # At the longest wait, the run is not forgotten: the next try waits as long again.
    for _ in range(20):
        clock.now += first.longest_wait
        first.check_account("jörg", here)
        second.failed("jörg", here)
    with pytest.raises(AccountError) as refused:
        first.check_account("jörg", here)
    assert refused.value.retry_after == first.longest_wait
    # A run nobody continued for a day is forgotten: the count starts again.
    clock.now += first.forget_after + 1
    first.check_account("jörg", here)
    second.failed("jörg", here)
    first.check_account("jörg", here)
    # Wrong passwords at the same moment at several processes are each counted.
    threads = [
        threading.Thread(target=lambda t=t: [t.failed("eve", here) for _ in range(10)])
        for t in (Throttle(clock=clock, book=book()) for _ in range(4))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with pytest.raises(AccountError) as refused:
        first.check_account("eve", here)
    assert refused.value.retry_after == first.wait_after(40)
    first.succeeded("eve", here)
    second.check_account("eve", here)  # the right password clears it everywhere


def test_the_dummy_hash_is_made_at_start_not_at_the_first_unknown_name(tmp_path: Path) -> None:
    """Signing in to a name nobody has verifies against a dummy hash; made at the first
    such sign-in, it made that answer slower than the others, telling the name is free."""
    db = Database(new_database("sqlite", tmp_path))
    db.upgrade()
    accounts = Accounts(db)
    try:
        accounts.hashes.pool.submit(lambda: None).result()  # what was queued at start is done
        assert accounts._dummy is not None
    finally:
        accounts.close()


def test_signing_in_to_no_account_does_the_same_work_as_to_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Login time once told whether an account exists (389 ms against 16 ms). A wrong
    password for a name nobody has is verified as for one that exists: one argon2
    verification each, of a hash with the same parameters, and the same refusal. Counted,
    not timed, so a busy machine cannot make it pass or fail."""
    from argon2 import PasswordHasher, extract_parameters

    db = Database(new_database("sqlite", tmp_path))
    db.upgrade()
    accounts = Accounts(db, throttle=Throttle(clock=Clock()))
    verified: list[object] = []
    verify = PasswordHasher.verify

    def counted(hasher: PasswordHasher, stored: str, password: str) -> bool:
        verified.append(extract_parameters(stored))
        return verify(hasher, stored, password)

    monkeypatch.setattr(PasswordHasher, "verify", counted)
    try:
        asyncio.run(accounts.register("Real Name", "right-password", "10.0.0.1"))
        refusals = []
        for name in ("Real Name", "Ghost"):
            with pytest.raises(AccountError) as refused:
                asyncio.run(accounts.sign_in(name, "wrong-guess", "10.0.0.2"))
            refusals.append((refused.value.status, str(refused.value)))
        assert len(verified) == 2 and verified[0] == verified[1]
        assert refusals[0] == refusals[1] == (401, "no such name and password")
    finally:
        accounts.close()
        db.dispose()


def test_names_that_differ_only_by_separators_look_alike(tmp_path: Path) -> None:
    """A dropped space got past the look-alike check ("Dominoclub Kiel" beside "Domino
    Club Kiel"): names that differ only by spaces, hyphens, dots or apostrophes look
    alike, for accounts and guests as for groups (one rule, :func:`pips.text.skeleton`)."""
    from pips.text import NameTaken, check_held

    for fake in ("AnnaLena Berg", "Anna Lena Berg", "Anna.Lena Berg", "Anna'Lena  Berg"):
        with pytest.raises(NameTaken):
            check_held(fake, ["Anna-Lena Berg"])
    db = Database(new_database("sqlite", tmp_path))
    db.upgrade()
    accounts = Accounts(db, throttle=Throttle(clock=Clock()))
    try:
        asyncio.run(accounts.register("Anna-Lena Berg", "right-password", "10.0.0.1"))
        for fake in ("AnnaLena Berg", "Anna Lena Berg", "Anna-Lena-Berg", "Anna.Lena Berg"):
            with pytest.raises(AccountError) as refused:
                asyncio.run(accounts.register(fake, "right-password", "10.0.0.1"))
            assert refused.value.status == 409 and "looks like" in str(refused.value), fake
            with pytest.raises(AccountError):
                asyncio.run(accounts.guest(fake, "10.0.0.1", None))
        # Letters still tell names apart.
        asyncio.run(accounts.register("Anna-Lena Borg", "right-password", "10.0.0.1"))
    finally:
        accounts.close()
