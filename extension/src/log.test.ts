import assert from "assert/strict";
import { test } from "node:test";
import type { LogLevel } from "./host/protocol";
import { formatLogLine, isLogLevel, Logger, MemorySink, Secrets, type LogSink } from "./log";

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

// Session tokens never reach a sink, wherever they sit in a line: each becomes the
// placeholder of its number, in the order the host drew them.
test("the logger redacts the session tokens it was told of", () => {
  const sink = new MemorySink();
  const logger = new Logger(sink, "trace");
  const [a, b] = ["3b7f04c3719303f8d77736f777767890", "7988cf5cd48bf5d232781b048fdac775"];
  logger.secrets.addTokens(a + b.toUpperCase());
  logger.trace(`env {"DAPPER_SESSION_TOKEN":"${a}"} key c${b} both ${a}${b} partial ${a.slice(0, 31)} other ${"0".repeat(32)}`);
  assert.equal(
    sink.lines[0].line,
    `env {"DAPPER_SESSION_TOKEN":"<random:0>"} key c<random:1> both <random:0><random:1> partial ${a.slice(0, 31)} other ${"0".repeat(32)}`,
  );
});

// Each case: a line and the line logged; the values of secret-named members go, in JSON
// and in JSON inside a JSON string (a client's bytes), and nothing else does; a
// value keeps its length in bytes, so that a message's Content-Length still holds.
const secretCases: [string, string][] = [
  ['{"env":{"API_KEY":"abc","PATH":"/bin","db_password":"p w"}}', '{"env":{"API_KEY":"***","PATH":"/bin","db_password":"***"}}'],
  ['{"text":"{\\"env\\":{\\"GITHUB_TOKEN\\":\\"ghp_1\\"}}"}', '{"text":"{\\"env\\":{\\"GITHUB_TOKEN\\":\\"*****\\"}}"}'],
  ['{"token":"<random:3>","childToken":"<random:4>"}', '{"token":"<random:3>","childToken":"<random:4>"}'],
  ['{"author":"Ann","keyword":"x","SECRET":""}', '{"author":"Ann","keyword":"x","SECRET":""}'],
  // In a stream carried as a JSON string, a value is measured as the stream's bytes: "a\nb" escaped is 4, "é" is 2.
  ['{"text":"{\\"API_KEY\\":\\"a\\\\nb\\",\\"PASSWORD\\":\\"é\\"}"}', '{"text":"{\\"API_KEY\\":\\"****\\",\\"PASSWORD\\":\\"**\\"}"}'],
];
for (const [line, logged] of secretCases) {
  test(`secret-named values are redacted: ${line}`, () => {
    const sink = new MemorySink();
    new Logger(sink, "info").info(line);
    assert.equal(sink.lines[0].line, logged);
  });
}

test("in bytes read as Latin-1, a secret value keeps its length in bytes", () => {
  const secrets = new Secrets();
  const latin1 = Buffer.from('DP\x01\x01....{"API_KEY":"é!"}', "utf8").toString("latin1");
  const redacted = secrets.redactBytes(latin1);
  assert.equal(Buffer.from(redacted, "latin1").length, Buffer.from(latin1, "latin1").length);
  assert.ok(redacted.endsWith('{"API_KEY":"***"}'), redacted);
});
