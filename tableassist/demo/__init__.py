"""The demo: ``tableassist serve`` whose camera looks at a synthetic table playing a scripted game
(``play``: the scripted source and tablet), from the scripts of ``scripts`` (one short game per
game, rendered by ``tableassist.vision.synthetic``)."""
