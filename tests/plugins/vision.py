"""The real marker registry and the synthetic table's renderer, once per session, for the vision,
end-to-end and server tests that draw frames."""

from __future__ import annotations

from typing import Any

import pytest

from tableassist.markers.registry import Registry, load_registry


@pytest.fixture(scope="session")
def registry() -> Registry:
    return load_registry()


@pytest.fixture(scope="session")
def renderer(registry: Registry) -> Any:
    from tableassist.vision.synthetic.render import Renderer
    return Renderer(registry.dictionary)
