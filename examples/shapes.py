"""A small module the example imports, so the demo also stops in a second file."""

import math


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        result = math.pi * self.radius**2  # demo: breakpoint
        return result


def describe(shapes):
    return [f"{type(shape).__name__}({shape.radius}): {shape.area():.2f}" for shape in shapes]
