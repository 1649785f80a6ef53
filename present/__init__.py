"""The presentation layer: what a person reads, made once from the service's typed values.

The catalogues and their loading (:mod:`present.catalog`, the ``locales`` data), the reader's
language, the rendering of every :class:`~rules_engine.messages.Message`
(:mod:`present.messages`), and each phrase players read, made once from the service's typed
views: seat names and AI level names (:mod:`present.names`), the status line
(:mod:`present.status`), how a game ended (:mod:`present.outcome`), action labels
(:mod:`present.actions`), the last moves (:mod:`present.moves`), the rules summary
(:mod:`present.rules`), the deal's opening explanation (:mod:`present.opening`), a series'
standings (:mod:`present.standings`) and the table options' words: teams, shown trumps, the
pack (:mod:`present.teams`).

The adapters (Discord, the web, the terminal) only format what this layer says: they give a
:class:`~present.style.Style` for a phrase's parameters (Discord: escaped, bold names and red
suits as emoji) and add their decoration around it (markdown and emoji, JSON, plain lines);
no adapter keeps a second wording of a phrase.  Nothing here imports an adapter or an entry
point.
"""
