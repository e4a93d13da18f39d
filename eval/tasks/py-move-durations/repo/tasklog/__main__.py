import sys

from tasklog.cli import main

sys.exit(main())
