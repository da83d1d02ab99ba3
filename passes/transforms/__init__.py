"""Transform utilities: the helpers that change the IR, shared by schedule passes and lowering.

`passes/analysis/` only reads the IR (regions, dependences, navigation, matching); what
rebuilds, moves, clones or erases ops lives here, so an analysis can be called from
anywhere (a check, the tuner) without the risk of rewriting what it looks at.
"""
