"""Test-wide settings: the Hypothesis profiles.

``dev`` (the default) keeps the property tests quick while working; ``ci`` (chosen when the
environment variable ``CI`` is set, as ``.ci/run`` does, or by ``HYPOTHESIS_PROFILE=ci``) runs
more examples.  Either way a failing example is replayed from its seeds.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=40)
settings.register_profile("ci", max_examples=150, print_blob=True)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)
