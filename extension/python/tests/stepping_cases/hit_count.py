# A hit count: `3` stops on the third hit only, `>=4` on the fourth and every later one.
# break: first hit 3
# break: second hit >=4
# start -> breakpoint@<module>:first {i=2}
# continue -> breakpoint@<module>:second {i=3}
# continue -> breakpoint@<module>:second {i=4}
# continue -> exit 0
total = 0
for i in range(5):
    total += i  # @first
    total -= 1  # @second
