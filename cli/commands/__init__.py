"""One module per subcommand of ``python -m pipeline``.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``, and
is listed in :data:`cli.COMMANDS`. Commands parse arguments and print; the work is done by
:mod:`services` (anything that opens the store) and :mod:`pipeline` (plain folders).
"""
