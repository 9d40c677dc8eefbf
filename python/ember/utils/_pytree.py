"""A minimal pytree (torch.utils._pytree): lists, tuples, dicts and namedtuples as nodes."""

__all__ = ["tree_flatten", "tree_map", "tree_unflatten"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_map(fn, tree):
    """`tree` with `fn` applied to every leaf, containers rebuilt with their own types."""
    if isinstance(tree, list):
        return [tree_map(fn, x) for x in tree]
    if _is_namedtuple(tree):
        return type(tree)(*(tree_map(fn, x) for x in tree))
    if isinstance(tree, tuple):
        return type(tree)(tree_map(fn, x) for x in tree)
    if isinstance(tree, dict):
        return type(tree)((k, tree_map(fn, v)) for k, v in tree.items())
    return fn(tree)


def tree_flatten(tree):
    """(leaves, spec): the leaves left to right and what tree_unflatten needs to rebuild."""
    leaves = []

    def visit(x):
        leaves.append(x)
        return len(leaves) - 1

    return leaves, tree_map(visit, tree)


def tree_unflatten(leaves, spec):
    return tree_map(lambda i: leaves[i], spec)
