import sys

from tableassist.cli import main

sys.exit(main())
