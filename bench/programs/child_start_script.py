"""A child of child_start.py: its clock on its first line."""

import time

print(time.time(), time.process_time())
