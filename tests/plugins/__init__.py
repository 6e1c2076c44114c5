"""pytest plugins of the suite, loaded by tests/conftest.py (``pytest_plugins``): fixtures and
options shared by many test folders, kept out of test modules so no test module imports another."""
