"""The presentation layer: what a person reads, made once from the service's typed values.

The catalogues and their loading (:mod:`present.catalog`, the ``locales`` data), the reader's
language, seat names and AI level names (:mod:`present.names`), and the rendering of every
:class:`~rules_engine.messages.Message` (:mod:`present.messages`).  The adapters (Discord, the
web, the terminal) only format what this layer says: markdown and buttons, JSON, plain lines.
Nothing here imports an adapter or an entry point.
"""
