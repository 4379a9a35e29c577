"""A threaded workload: four threads share the interpreter and each run a loop."""

import sys
import threading

import benchkit

THREADS = 4


def worker(rounds, results, index):
    total = 0
    for i in range(rounds):
        total += i % 7  # BENCH:hot
    results[index] = total


def main():
    rounds = int(sys.argv[1])
    results = [0] * THREADS
    threads = [
        threading.Thread(target=worker, args=(rounds, results, index))
        for index in range(THREADS)
    ]
    started = benchkit.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    benchkit.report(started)


main()
