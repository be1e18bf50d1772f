"""One module per subcommand of ``python -m pipeline``.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
:mod:`pipeline.cli` discovers them, so adding a subcommand touches no shared file.
"""
