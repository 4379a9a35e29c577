# Values the Variables view shows by type (test/vscode/presentersScenario.mjs).
import os

import numpy as np
import pandas as pd


def main():
    grid = np.arange(12).reshape(3, 4)
    prices = pd.DataFrame({"item": ["tea", "jam", "oat"], "price": [2.5, 4.0, 1.25]})
    print(os.path.basename(__file__), grid.sum(), prices["price"].sum())


main()
