"""tableassist: a table assistant for ship-themed board games played with real components."""

__version__ = "0.1.0"
