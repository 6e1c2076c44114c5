"""The demo: a synthetic table plays a scripted game through the real pipeline (``play``), from the
scripts of ``scripts`` (one short game per game, rendered by ``tableassist.vision.synthetic``)."""
