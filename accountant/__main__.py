import sys

from accountant.engines.parallel import keep_heap_pad
from accountant.interfaces.cli.main import main

keep_heap_pad()  # freed arrays stay in the heap: fewer page faults (engines.parallel.HEAP_TOP_PAD)
sys.exit(main())
