"""Names people choose: German and other names are normal input, not edge cases."""

from __future__ import annotations

import unicodedata

import pytest

from pips.server.accounts import AccountError, check_name


@pytest.mark.parametrize("name", ["Jürgen Müller", "Ünal Öztürk", "Søren", "Anna-Lena", "R2"])
def test_names_of_any_alphabet_are_taken(name: str) -> None:
    assert check_name(f"  {name} ") == name


def test_a_name_typed_with_combining_marks_is_the_same_name() -> None:
    decomposed = unicodedata.normalize("NFD", "Jürgen")
    assert decomposed != "Jürgen"
    assert check_name(decomposed) == "Jürgen"


@pytest.mark.parametrize("name", ["J", "_Jo", "Jo.", "Jo -", "a" * 41, "Jo<script>", "J\to"])
def test_other_names_are_refused(name: str) -> None:
    with pytest.raises(AccountError, match="2 to 40 letters"):
        check_name(name)
