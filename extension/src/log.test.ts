import assert from "assert/strict";
import { test } from "node:test";
import type { LogLevel } from "./host/protocol";
import { formatLogLine, isLogLevel, Logger, MemorySink, type LogSink } from "./log";

// Each case: the logger's level and the levels whose messages get through.
const cases: [LogLevel, LogLevel[]][] = [
  ["error", ["error"]],
  ["warn", ["error", "warn"]],
  ["info", ["error", "warn", "info"]],
  ["debug", ["error", "warn", "info", "debug"]],
  ["trace", ["error", "warn", "info", "debug", "trace"]],
];

for (const [level, through] of cases) {
  test(`a logger at ${level} writes ${through.join(", ")}`, () => {
    const sink = new MemorySink();
    const logger = new Logger(sink, level);
    logger.error("e");
    logger.warn("w");
    logger.info("i");
    logger.debug("d");
    logger.trace("t");
    assert.deepEqual(sink.lines.map((line) => line.level), through);
  });
}

test("log levels are recognised and lines are stamped", () => {
  assert.equal(isLogLevel("trace"), true);
  assert.equal(isLogLevel("verbose"), false);
  assert.equal(formatLogLine("warn", "hi", new Date(0)), "1970-01-01T00:00:00.000Z [warn] hi");
});

test("a sink that throws never takes the caller down", () => {
  const broken: LogSink = {
    write: () => {
      throw new Error("EPIPE");
    },
  };
  assert.doesNotThrow(() => new Logger(broken, "info").error("still fine"));
});
