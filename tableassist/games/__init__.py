"""The five rules engines and the protocol they share.

Nothing in this package touches files, sockets, cameras or clocks (a test enforces it): component
data is read by :mod:`tableassist.table.catalog` and handed to the engine.
"""

from tableassist.games.protocol import (Action, Game, IllegalAction, Message, Note, Prompt,
                                        SetupError, Template, merge_options)

__all__ = ["Action", "Game", "IllegalAction", "Message", "Note", "Prompt", "SetupError",
           "Template", "merge_options"]
