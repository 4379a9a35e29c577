"""Debugged through the Testing view's Debug Test, as the stand-in Python extension starts it."""
import unittest


class InventoryTest(unittest.TestCase):
    def test_total(self):
        prices = [3, 4, 5]
        expected = sum(prices) * 2
        self.assertEqual(expected, 24)


if __name__ == "__main__":
    unittest.main()
