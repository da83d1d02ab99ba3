"""Every xtir pass by its command-line name, as lazy factories (xdsl-opt's convention)."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def _test_block_regions() -> type[ModulePass]:
    from xtir.passes.test_block_regions import TestBlockRegionsPass

    return TestBlockRegionsPass


XTIR_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "test-block-regions": _test_block_regions,
}
