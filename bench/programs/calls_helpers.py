"""The second module of the calls benchmark: small functions and a method."""


def add(a, b):
    return a + b  # BENCH:hot


def scale(x):
    return x * 3


class Counter:
    def __init__(self):
        self.count = 0

    def bump(self, by):
        self.count += by
        return self.count
