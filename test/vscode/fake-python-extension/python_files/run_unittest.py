"""The stand-in's test launcher (the Python extension ships its own): runs the unittest
ids given on the command line from the working directory and writes the tally where
STAND_IN_TEST_RESULTS says, as the real one reports results back to the Testing view."""
import os
import sys
import unittest

suite = unittest.defaultTestLoader.loadTestsFromNames(sys.argv[1:])
result = unittest.TextTestRunner(verbosity=2).run(suite)
passed = result.testsRun - len(result.failures) - len(result.errors)
with open(os.environ["STAND_IN_TEST_RESULTS"], "w", encoding="utf-8") as results:
    results.write(f"{passed} passed, {len(result.failures) + len(result.errors)} failed\n")
