"""The layout as a picture of tiles, for the terminal.

Every layout kind (the FIDO cross, lines, branching lines, the spinner) is a tree of
laid tiles whose points carry a slot (:class:`pips.core.layout.Laid`). The picture
draws it as *lanes*: the first lane holds the first tile with the arm of its ``half-a``
running left and the arm of its ``half-b`` running right; every other arm (a naked
side, a spinner side, the second half of a branching double) starts a lane of its own
below, beginning under the tile it hangs on. Lanes never share a row, so the picture
never overlaps however the layout grows. A tile in line is ``[6│2]``; a double laid
across stands upright over three rows; an open point is a marked socket, ``‹2›``.

    >>> from pips.core.layout import LineLayout
    >>> from pips.core.tiles import Tile
    >>> line = LineLayout()
    >>> line.open_with(Tile.of(6, 2), 0)
    >>> line.attach(Tile.of(2, 5), 2, line.ends_with(2)[0], 1)
    >>> print(plain(draw_picture(line.snapshot(), top=6).lines))
    ‹6›[6│2][2│5]‹5›
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text

from pips.core.layout import LayoutView, Point
from pips.core.moves import At
from pips.i18n import _

END_STYLE = Style(color="black", bgcolor="yellow", bold=True)
SIDE_STYLE = Style(color="black", bgcolor="cyan", bold=True)
CHOSEN_STYLE = Style(color="white", bgcolor="magenta", bold=True)
TILE_STYLE = Style(color="white")
LAST_STYLE = Style(color="bright_green", bold=True)

# Which slot an arm continues in, when a tile has more than one: the free half of a
# tile in line, else the first half of a double (the other slots start lanes).
_CONTINUE = ("free", "half-a")


@dataclass
class _Cell:
    """One item of a lane: a laid tile (``node``) or an open point."""

    node: int = -1
    point: Point | None = None
    flipped: bool = False  # the touching half faces right (arms running left)
    hidden: tuple[int, ...] = ()  # tiles left out of a lane too wide to show whole


@dataclass(frozen=True)
class Spot:
    """Where a tile or an open point is in the picture: row, column and width."""

    row: int
    column: int
    width: int


@dataclass
class Picture:
    """The layout drawn: its lines, and where each tile (by index) and each open point
    (by id) is, so a screen can scroll to the last tile or the places offered."""

    lines: list[Text]
    tiles: dict[int, Spot] = field(default_factory=dict)
    points: dict[int, Spot] = field(default_factory=dict)

    @property
    def width(self) -> int:
        return max((line.cell_len for line in self.lines), default=0)


@dataclass
class _Lane:
    cells: list[_Cell]
    anchor: int = -1  # the node whose column the lane starts under (-1: first lane)
    slot: str = ""
    left: list[_Cell] = field(default_factory=list)  # the first lane's left arm


def draw_picture(
    layout: LayoutView,
    *,
    top: int,
    labels: Mapping[int, str] | None = None,
    chosen: Iterable[int] = (),
    last: int | None = None,
    max_width: int | None = None,
    through_sides: bool = False,
    compact: bool = False,
) -> Picture:
    """The picture of ``layout``.

    ``top`` is the set's highest number (it sets the width of a half); ``labels`` puts a
    key next to the value of open points (to choose among them); ``chosen`` points are
    drawn in the choosing colour; ``last`` is the index of a tile to mark as just laid.
    When a lane would reach past ``max_width``, tiles in its middle give way to a
    ``…N…`` mark, so that its open end, where play goes on, stays in sight.
    ``through_sides``: the first tile's line runs through its sides (the Doubles
    spinner, whose sides are taken first, DB-05), its ends hang below. ``compact``
    draws every lane on one row (a double across as ``┃6┃``), for big sets.
    """
    if not layout.tiles:
        return Picture([Text(_("(no tile laid yet)"), style="dim")])
    width = 1 if top < 10 else 2
    painter = _Painter(
        layout, width, labels or {}, set(chosen), last, max_width, through_sides, compact
    )
    return painter.paint()


def plain(lines: Iterable[Text]) -> str:
    """The picture as plain text (trailing spaces removed), for logs and snapshots."""
    return "\n".join(line.plain.rstrip() for line in lines)


class _Painter:
    def __init__(
        self,
        layout: LayoutView,
        width: int,
        labels: Mapping[int, str],
        chosen: set[int],
        last: int | None,
        max_width: int | None,
        through_sides: bool = False,
        compact: bool = False,
    ) -> None:
        self.layout = layout
        self.line_slots = ("side-a", "side-b") if through_sides else ("half-a", "half-b")
        self.compact = compact
        self.max_width = max_width
        self.width = width
        self.labels = labels
        self.chosen = chosen
        self.last = last
        self.children: dict[int, dict[str, int]] = {}
        for index, laid in enumerate(layout.tiles):
            if laid.parent >= 0:
                self.children.setdefault(laid.parent, {})[laid.slot] = index
        self.open: dict[int, dict[str, Point]] = {}
        for point in layout.points:
            self.open.setdefault(point.node, {})[point.slot] = point
        self.columns: dict[int, int] = {}

    def slots(self, node: int) -> list[str]:
        found = set(self.children.get(node, {})) | set(self.open.get(node, {}))
        order = ("free", "half-a", "half-b", "side-a", "side-b")
        return [s for s in order if s in found]

    def arm(self, node: int, slot: str, lanes: list[_Lane], flipped: bool) -> list[_Cell]:
        """The cells of the arm leaving ``node`` at ``slot``, queuing its side arms."""
        cells: list[_Cell] = []
        while True:
            point = self.open.get(node, {}).get(slot)
            if point is not None:
                cells.append(_Cell(point=point))
                return cells
            child = self.children.get(node, {}).get(slot)
            if child is None:
                return cells
            cells.append(_Cell(node=child, flipped=flipped))
            slots = self.slots(child)
            if not slots:
                return cells
            onward = next((s for s in _CONTINUE if s in slots), slots[0])
            for other in slots:
                if other != onward:
                    lanes.append(_Lane([], anchor=child, slot=other))
            node, slot = child, onward

    def paint(self) -> Picture:
        pending: list[_Lane] = []
        first = _Lane(cells=[_Cell(node=0)])
        left, right = self.line_slots
        first.left = self.arm(0, left, pending, flipped=True)
        first.cells += self.arm(0, right, pending, flipped=False)
        for slot in self.slots(0):
            if slot not in self.line_slots:
                pending.append(_Lane([], anchor=0, slot=slot))
        lanes = [first]
        # Lanes are laid out breadth-first: an arm's own side arms come after it.
        while pending:
            lane = pending.pop(0)
            found: list[_Lane] = []
            lane.cells = self.arm(lane.anchor, lane.slot, found, flipped=False)
            lanes.append(lane)
            pending[:0] = found
        return self.render(lanes)

    # -- rendering -------------------------------------------------------------------

    def tile_width(self, node: int) -> int:
        laid = self.layout.tiles[node]
        return self.width + 2 if laid.across else 2 * self.width + 3

    def socket_text(self, point: Point) -> str:
        label = self.labels.get(point.id)
        return f"‹{point.value}:{label}›" if label else f"‹{point.value}›"

    def cell_width(self, cell: _Cell) -> int:
        if cell.hidden:
            return len(f"…{len(cell.hidden)}…")
        if cell.point is not None:
            return len(self.socket_text(cell.point))
        return self.tile_width(cell.node)

    def render(self, lanes: list[_Lane]) -> Picture:
        # Columns: the first lane's left arm runs left of the first tile.
        first = [*reversed(lanes[0].left), *lanes[0].cells]
        placed = [self.place(self.fit(first, self.max_width), 0)]
        prefixes = [""]
        for lane in lanes[1:]:
            start = self.columns.get(lane.anchor, 0)
            prefix = "└" if lane.slot.startswith("half") else "┊"
            room = None if self.max_width is None else self.max_width - start - len(prefix)
            row = self.place(self.fit(lane.cells, room), start + len(prefix))
            placed.append([(start, _Cell()), *row])
            prefixes.append(prefix)
        shift = -min(x for row in placed for x, _ in row)
        picture = Picture([])
        for row, prefix in zip(placed, prefixes, strict=True):
            picture.lines += self.render_lane(row, shift, prefix, picture)
        return picture

    def place(self, cells: list[_Cell], x: int) -> list[tuple[int, _Cell]]:
        """The cells of a lane at their columns from ``x``; tiles note their column so
        the lanes hanging on them start under them."""
        row = []
        for cell in cells:
            row.append((x, cell))
            for node in (cell.node, *cell.hidden):
                if node >= 0 and cell.point is None:
                    self.columns[node] = x
            x += self.cell_width(cell)
        return row

    def fit(self, cells: list[_Cell], limit: int | None) -> list[_Cell]:
        """A lane with tiles taken out of its middle until it is ``limit`` wide."""
        if limit is None or sum(map(self.cell_width, cells)) <= limit:
            return cells
        half = len(cells) // 2
        left, right, hidden = cells[:half], cells[half:], list[int]()

        def width() -> int:
            mark = [_Cell(hidden=(*hidden, -1))]
            return sum(map(self.cell_width, [*left, *mark, *right]))

        # Take tiles next to the gap from the longer side; the outermost cells (the
        # open ends) always stay.
        while width() > limit:
            if len(left) > 1 and (len(left) >= len(right) or len(right) <= 1):
                hidden.append(left.pop().node)
            elif len(right) > 1:
                hidden.append(right.pop(0).node)
            else:
                break
        if not hidden:
            return cells  # nothing can go: the lane stays whole, wider than asked
        return [*left, _Cell(hidden=tuple(hidden)), *right]

    def render_lane(
        self, row: list[tuple[int, _Cell]], shift: int, prefix: str, picture: Picture
    ) -> list[Text]:
        tall = not self.compact and any(
            c.point is None and c.node >= 0 and self.layout.tiles[c.node].across for _, c in row
        )
        lines = [Text(), Text(), Text()]
        middle = lines[1]
        y = len(picture.lines) + (1 if tall else 0)
        for x, cell in row:
            column = x + shift
            for line in lines:
                line.append(" " * max(0, column - len(line.plain)))
            if cell.hidden:
                middle.append(f"…{len(cell.hidden)}…", style="dim")
                continue
            if cell.point is None and cell.node < 0:
                middle.append(prefix, style="dim")
                continue
            if cell.point is not None:
                point = cell.point
                style = END_STYLE if point.kind is At.END else SIDE_STYLE
                if point.id in self.chosen:
                    style = CHOSEN_STYLE
                middle.append(self.socket_text(point), style=style)
                picture.points[point.id] = Spot(y, column, self.cell_width(cell))
                continue
            laid = self.layout.tiles[cell.node]
            style = LAST_STYLE if cell.node == self.last else TILE_STYLE
            w = self.width
            picture.tiles[cell.node] = Spot(y, column, self.cell_width(cell))
            if laid.across and self.compact:
                middle.append(f"┃{str(laid.tile.high).rjust(w)}┃", style=style)
            elif laid.across:
                n = str(laid.tile.high).rjust(w)
                lines[0].append(f"┌{n}┐", style=style)
                middle.append(f"├{'─' * w}┤", style=style)
                lines[2].append(f"└{n}┘", style=style)
            else:
                near, far = laid.touching, laid.tile.other(laid.touching)
                a, b = (far, near) if cell.flipped else (near, far)
                middle.append(f"[{str(a).rjust(w)}│{str(b).ljust(w)}]", style=style)
        return lines if tall else [middle]
