"""The README's Python examples run as written, so the front page cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})


def test_readme_quick_start_has_exactly_two_commands_and_ci_uses_the_second() -> None:
    text = README.read_text()
    quick = text.split("## Quick start", 1)[1].split("##", 1)[0]
    (commands,) = re.findall(r"```sh\n(.*?)```", quick, flags=re.S)
    lines = [line for line in commands.splitlines() if line.strip()]
    assert len(lines) == 2
    ci = (README.parent / ".ci" / "run").read_text()
    assert lines[1] in ci
