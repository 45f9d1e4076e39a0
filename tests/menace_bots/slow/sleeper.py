# Never answers in time: sleeps far beyond any limit the tests set.
import sys
import time

for line in sys.stdin:
    if line.startswith("MOVE"):
        time.sleep(30)
