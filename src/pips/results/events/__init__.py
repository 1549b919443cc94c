"""Events in the database: a club evening, a cup, a championship (docs/events.md).

:class:`~pips.results.events.book.Events` creates events and their players and shows
them; :class:`~pips.results.events.rounds.EventRounds` draws their rounds;
:class:`~pips.results.events.scores.TableScores` takes their tables' results;
:class:`~pips.results.events.closing.Closing` turns them into results. They are wired
together in :mod:`pips.results.service`.
"""
