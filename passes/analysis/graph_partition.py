"""TVM's operator-fusion partitioner (relay/relax `GraphPartitioner`) over a graph function.

The dataflow of a function's body is a DAG whose nodes are its arguments and top-level
ops. A node may join the group of its immediate post-dominator (the closest node that
every path from it reaches) when every node on the paths between them has a pattern
kind the rule for the node's own kind allows:

- an `out_elemwise_fusable` node (dense, conv2d) takes elementwise/broadcast epilogues,
  when its post-dominator is reached through elementwise edges only (phase 0);
- an `elemwise`/`broadcast` node joins an injective, broadcast or reduction
  post-dominator, or one already fused onto an out_elemwise_fusable anchor (phase 0);
- an `injective` node (reshape, transpose) joins through injective paths (phase 1), so
  that anchors finish taking their epilogues first.

Nodes used outside the function (returned) are never fused *from*, only *into*, so a
group has one value that leaves it. The post-dominator tree is built in one backward
pass with least common ancestors, as TVM does on its DAG; groups are a union-find.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from xtir.passes.analysis.op_pattern import OpPatternKind, op_pattern

MAX_FUSED_OPS = 256
"""TVM's kMaxFusedOps: the most ops one fused function holds."""

ELEMWISE = OpPatternKind.ELEMWISE
BROADCAST = OpPatternKind.BROADCAST
INJECTIVE = OpPatternKind.INJECTIVE
COMM_REDUCE = OpPatternKind.COMM_REDUCE
OUT_ELEMWISE_FUSABLE = OpPatternKind.OUT_ELEMWISE_FUSABLE
OPAQUE = OpPatternKind.OPAQUE


@dataclass(eq=False)
class Node:
    """A function argument (op is None) or a top-level op of the body."""

    index: int
    op: Operation | None
    pattern: OpPatternKind
    extern: bool = False
    """Used by the function's terminator: its value must stay visible outside any group."""
    outputs: list[tuple[Node, OpPatternKind]] = field(default_factory=list)
    """(consumer, pattern of the edge): the consumer's pattern, as relax sets it."""


@dataclass(eq=False)
class _DomNode:
    node: Node
    parent: _DomNode | None
    depth: int
    pattern: OpPatternKind
    """The combined pattern of every edge between the node and its post-dominator."""


@dataclass(eq=False)
class Group:
    """A union-find set of nodes; the root carries the group's pattern and anchor."""

    pattern: OpPatternKind
    anchor: Operation | None = None
    parent: Group | None = None
    num_nodes: int = 1

    def find_root(self) -> Group:
        root = self
        while root.parent is not None:
            root = root.parent
        node = self
        while node.parent is not None and node.parent is not root:  # path compression
            node.parent, node = root, node.parent
        return root


def dataflow_graph(block: Block) -> list[Node]:
    """Nodes in topological (program) order, with their forward edges."""
    nodes = [Node(i, None, OPAQUE, extern=True) for i in range(len(block.args))]
    node_of: dict[SSAValue, Node] = {arg: nodes[arg.index] for arg in block.args}
    top_level: dict[Operation, Node] = {}
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            continue
        node = Node(len(nodes), op, op_pattern(op))
        nodes.append(node)
        top_level[op] = node
        node_of.update((result, node) for result in op.results)
    for node in nodes:
        values = block.args[node.index : node.index + 1] if node.op is None else node.op.results
        for value in values:
            for use in value.uses:
                user = block.find_ancestor_op_in_block(use.operation)
                assert user is not None, "a value of the body is used outside it"
                if user in top_level:
                    consumer = top_level[user]
                    node.outputs.append((consumer, consumer.pattern))
                else:
                    node.extern = True
    return nodes


def _least_common_ancestor(
    lhs: _DomNode | None, rhs: _DomNode | None, pattern: OpPatternKind
) -> tuple[_DomNode | None, OpPatternKind]:
    while lhs is not rhs:
        if lhs is None or rhs is None:
            return None, pattern
        if lhs.depth < rhs.depth:
            pattern = max(pattern, rhs.pattern)
            rhs = rhs.parent
        elif rhs.depth < lhs.depth:
            pattern = max(pattern, lhs.pattern)
            lhs = lhs.parent
        else:
            pattern = max(pattern, lhs.pattern, rhs.pattern)
            lhs, rhs = lhs.parent, rhs.parent
    return lhs, pattern


def post_dominator_tree(nodes: list[Node]) -> list[_DomNode]:
    tree: list[_DomNode | None] = [None] * len(nodes)
    for node in reversed(nodes):
        if node.extern or not node.outputs:
            tree[node.index] = _DomNode(node, None, 1, OPAQUE)
            continue
        pattern = ELEMWISE
        parent: _DomNode | None = None
        for k, (consumer, edge) in enumerate(node.outputs):
            dom = tree[consumer.index]
            parent, pattern = (dom, pattern) if k == 0 else _least_common_ancestor(parent, dom, pattern)
            pattern = max(pattern, edge)
        tree[node.index] = _DomNode(node, parent, parent.depth + 1 if parent else 1, pattern)
    return tree  # pyright: ignore[reportReturnType]


def _between(src: Node, sink: Node) -> Iterator[Node]:
    """Every node on a path from src (excluded) to sink (included), once each."""
    seen: set[Node] = set()
    stack = [consumer for consumer, _ in src.outputs]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        yield node
        if node is not sink:
            stack.extend(consumer for consumer, _ in node.outputs)


class GraphPartitioner:
    def __init__(self, nodes: list[Node], max_fused_ops: int = MAX_FUSED_OPS):
        self.nodes = nodes
        self.max_fused_ops = max_fused_ops
        self.groups = [
            Group(node.pattern, node.op if node.pattern == OUT_ELEMWISE_FUSABLE else None) for node in nodes
        ]

    def partition(self) -> list[Group]:
        """The group of each node (find_root() of it names the group)."""
        tree = post_dominator_tree(self.nodes)
        # TVM's phase 2 fuses injective ops into tuples; the tensor dialect has none.
        for phase in (0, 1):
            self._run_fuse(tree, phase)
        return self.groups

    def _check_path(self, src: Node, sink: Node, allowed: Callable[[OpPatternKind, bool], bool]) -> bool:
        return all(allowed(self.groups[n.index].find_root().pattern, n is sink) for n in _between(src, sink))

    def _commit_fuse(self, src: Node, sink: Node) -> None:
        target = self.groups[sink.index]
        for node in (src, *_between(src, sink)):
            if node is not sink:
                self._merge(self.groups[node.index], target)

    def _merge(self, child: Group, parent: Group) -> None:
        child, parent = child.find_root(), parent.find_root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        child.parent = parent
        if child.anchor is not None:
            assert parent.anchor is None and parent.pattern <= BROADCAST, "two anchors in one group"
            parent.anchor = child.anchor
            parent.pattern = max(child.pattern, parent.pattern)

    def _fused_size(self, child: Node, sink: Node) -> int:
        """How many ops the sink's group holds once child's paths to it join."""
        between = [n for n in (child, *_between(child, sink)) if n is not sink]
        return self.groups[sink.index].find_root().num_nodes + sum(self.groups[n.index].num_nodes for n in between)

    def _run_fuse(self, tree: list[_DomNode], phase: int) -> None:
        for node, dom in zip(self.nodes, tree):
            group = self.groups[node.index]
            if group.pattern == OPAQUE or dom.parent is None:
                continue
            sink = dom.parent.node
            if self._fused_size(node, sink) > self.max_fused_ops:
                continue
            if group.find_root() is self.groups[sink.index].find_root():
                continue
            if group.pattern == OUT_ELEMWISE_FUSABLE:
                # an epilogue: the anchor's output reaches the sink through elementwise edges only
                if phase == 0 and dom.pattern == ELEMWISE and self._check_path(node, sink, _broadcast_at_most):
                    self._commit_fuse(node, sink)
            elif group.pattern <= BROADCAST:
                if dom.pattern <= INJECTIVE or dom.pattern == COMM_REDUCE:
                    if self._check_path(node, sink, _into_elemwise_anchor):
                        self._commit_fuse(node, sink)
            elif group.pattern == INJECTIVE:
                if phase == 1 and self._check_path(node, sink, _injective_at_most):
                    self._commit_fuse(node, sink)


def _broadcast_at_most(kind: OpPatternKind, is_sink: bool) -> bool:
    return kind <= BROADCAST


def _injective_at_most(kind: OpPatternKind, is_sink: bool) -> bool:
    return kind <= INJECTIVE


def _into_elemwise_anchor(kind: OpPatternKind, is_sink: bool) -> bool:
    """Paths of an elementwise node: injective on the way, and a sink that may already hold an anchor."""
    if not is_sink:
        return kind <= INJECTIVE
    return kind <= INJECTIVE or kind in (COMM_REDUCE, OUT_ELEMWISE_FUSABLE)


def partition_block(block: Block, max_fused_ops: int = MAX_FUSED_OPS) -> list[list[Operation]]:
    """The groups of two or more ops in a graph function's body, each in program order."""
    nodes = dataflow_graph(block)
    groups = GraphPartitioner(nodes, max_fused_ops).partition()
    members: dict[Group, list[Operation]] = {}
    for node, group in zip(nodes, groups):
        if node.op is not None:
            members.setdefault(group.find_root(), []).append(node.op)
    return [ops for ops in members.values() if len(ops) > 1]
