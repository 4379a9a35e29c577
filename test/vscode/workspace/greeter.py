"""Run in a terminal of VS Code with Dapper's auto-attach on: the program is debugged."""
import sys


def greet(name):
    greeting = f"hello, {name}"
    print(greeting)
    return greeting


greet(sys.argv[1] if len(sys.argv) > 1 else "world")
print("greeter done")
