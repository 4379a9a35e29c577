# A condition that is not an expression is refused at once: that breakpoint never stops,
# the other one does.
# break: loop if i ===
# break: end
# start -> breakpoint@<module>:end {total=3}
# continue -> exit 0
total = 0
for i in range(3):
    total += i  # @loop
print(total)  # @end
