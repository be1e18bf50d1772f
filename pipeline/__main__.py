import sys

from pipeline.durable import use_private_umask

use_private_umask()       # before anything is written: notes, models, backups and exports hold PHI
from cli import main  # noqa: E402

sys.exit(main())
