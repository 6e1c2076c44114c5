"""The printed markers: which sticker is which component (``registry``) and the sticker sheets
(``printing``). The data is the top-level ``markers/`` folder, installed as ``tableassist.markers.data``.
Standard library only for the registry (the vision and the readers import it); printing uses reportlab.
"""
