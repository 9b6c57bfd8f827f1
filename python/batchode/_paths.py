"""File paths as the package takes them: a str, bytes or any os.PathLike (pathlib.Path), as open() does.
The extension takes str or bytes; every path a user gives goes through fspath on its way there."""

import os


def fspath(path, name):
    """`path` as str or bytes (os.fspath); a TypeError naming the argument `name` otherwise."""
    try:
        return os.fspath(path)
    except TypeError:
        raise TypeError(f"{name} must be a file path (str, bytes or os.PathLike such as pathlib.Path), "
                        f"not {type(path).__name__} {path!r}") from None
