# A breakpoint in a class body stops while the class is being made; next goes on in it.
# break: size
# start -> breakpoint@Box:size
# next -> step@Box:label
# continue -> exit 0
class Box:
    size = 3  # @size
    label = "box"  # @label

    def area(self):
        return self.size * self.size


print(Box().area())
