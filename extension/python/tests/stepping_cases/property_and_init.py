# stepIn enters __init__ at `Rect(...)` and a property's getter at `r.area`.
# break: make
# start -> breakpoint@main:make
# stepIn -> step@__init__:init_body {w=2, h=3}
# stepOut -> step@main:make
# next -> step@main:read
# stepIn -> step@area:area_body
# stepOut -> step@main:read
# next -> step@main:after {a=6}
# continue -> exit 0
class Rect:
    def __init__(self, w, h):
        self.w, self.h = w, h  # @init_body

    @property
    def area(self):
        return self.w * self.h  # @area_body


def main():
    r = Rect(2, 3)  # @make
    a = r.area  # @read
    return a  # @after


main()
