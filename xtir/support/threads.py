"""Making xDSL safe to use from several threads at once, as xtir's API promises."""

import xdsl.builder as xdsl_builder
from xdsl.ir import Operation


def install_implicit_builder_hook() -> None:
    """Make xDSL's `ImplicitBuilder` safe in threads. Each `with ImplicitBuilder(...)` (xDSL
    uses one to add a missing terminator, e.g. when parsing an `scf.for`) swaps
    `Operation.__post_init__` for a hook and back; two threads doing so at once leave a hook
    in place that the next swap wraps again, and every op made in an ImplicitBuilder after
    that is inserted twice ("Can't add to a block an operation already attached to a
    block"). Install the hook once and for all (it acts only in a thread inside an
    ImplicitBuilder) and make the swap a no-op."""
    xdsl_builder._override_operation_post_init()
    xdsl_builder._override_operation_post_init = lambda: Operation.__post_init__
