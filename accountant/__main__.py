import sys

from accountant.interfaces.cli.main import main

sys.exit(main())
