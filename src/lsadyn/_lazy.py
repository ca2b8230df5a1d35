"""Lazy exports of a package (PEP 562): names imported from their submodule on first use."""

from importlib import import_module


def lazy_exports(package: str, where: dict, namespace: dict):
    """(``__getattr__``, ``__dir__``) for ``package``, whose public names ``where`` maps to the submodule (relative
    to the package) that defines each; a name is imported on first use and cached in ``namespace`` (the package's
    ``globals()``)."""

    def __getattr__(name):
        if name in where:
            value = getattr(import_module(f".{where[name]}", package), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
