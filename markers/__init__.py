"""The marker data (one TOML file per game, plus ``global.toml``). This folder ships inside the wheel
as the package ``tableassist.markers.data`` (``pyproject.toml`` maps it); the registry finds it with
``tableassist.shipped.folder("markers")``."""
