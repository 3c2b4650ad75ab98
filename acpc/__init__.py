"""The ACPC protocol listener: bots written for the competition's dealer play here.

See docs/acpc.md; the codec is :mod:`botkit.acpc`, the server :mod:`acpc.server`.
"""
