"""Imported first by a command that will open the store, so that :mod:`store`'s guard runs before
any module imports sqlite-utils directly: the guard keeps sqlite-utils from importing pandas,
seconds of start-up a command does not use. The command line reaches the store only through
services (``tests/test_layers.py``), hence this one-line door."""
import store  # noqa: F401 - the import is the point
