"""The tablet page. This folder ships inside the wheel as the package ``tableassist.webui``
(``pyproject.toml`` maps it); the server finds it with ``tableassist.shipped.folder("webui")``."""
