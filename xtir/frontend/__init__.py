"""Model importers: graphs of other frameworks as tensor-dialect graph functions."""

from xtir.frontend.torch_fx import from_torch

__all__ = ["from_torch"]
