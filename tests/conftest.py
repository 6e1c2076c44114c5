"""Settings for the whole suite."""

from __future__ import annotations

import os

from hypothesis import settings

# CI runs the same hypothesis examples every time (derandomized: a red build is reproducible,
# and a green one is not luck); a developer's run explores new ones and keeps failures in
# .hypothesis/. HYPOTHESIS_PROFILE=ci gives CI's run anywhere.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))
