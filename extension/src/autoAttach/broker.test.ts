// The auto-attach broker over real loopback sockets: a request with the window's secret
// starts a session and is told where it listens; anything else is closed unanswered.
import assert from "assert/strict";
import * as net from "net";
import { test } from "node:test";
import { attachConfiguration, AutoAttachBroker, sessionName, type AttachingProgram, type ListenAt } from "./broker";

/** Sends one line to the broker; resolves with what came back before it closed. */
function ask(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.write(line);
  });
}

async function withBroker(body: (broker: AutoAttachBroker, started: [AttachingProgram, ListenAt][]) => Promise<void>): Promise<void> {
  const started: [AttachingProgram, ListenAt][] = [];
  const broker = await AutoAttachBroker.open((program, listen) => void started.push([program, listen]));
  try {
    await body(broker, started);
  } finally {
    broker.close();
  }
}

const secretOf = (broker: AutoAttachBroker) =>
  broker.terminalEnvironment({ mode: "smart", workspaceFolders: [], smartPatterns: [] }).DAPPER_AUTO_ATTACH_SECRET;

const program: AttachingProgram = { pid: 4242, argv: ["/venv/bin/python3", "app.py", "--fast"], cwd: "/work", program: "/work/app.py" };

test("a request with the window's secret starts a session and is told where it listens", async () => {
  await withBroker(async (broker, started) => {
    const answer = JSON.parse(await ask(broker.port, `${JSON.stringify({ secret: secretOf(broker), ...program })}\n`));
    assert.equal(started.length, 1);
    assert.deepEqual(started[0][0], program);
    assert.deepEqual(answer, { listen: started[0][1] });
    assert.equal(answer.listen.host, "127.0.0.1");
    assert.ok(answer.listen.port > 0 && answer.listen.port !== broker.port);
  });
});

const refused: { name: string; line: (secret: string) => string }[] = [
  { name: "a wrong secret", line: (secret) => `${JSON.stringify({ ...program, secret: `${secret.slice(1)}0` })}\n` },
  { name: "no secret", line: () => `${JSON.stringify(program)}\n` },
  { name: "not JSON", line: () => "hello\n" },
  { name: "a pid that is not one", line: (secret) => `${JSON.stringify({ ...program, pid: -1, secret })}\n` },
  { name: "argv that is not a list of strings", line: (secret) => `${JSON.stringify({ ...program, argv: [1], secret })}\n` },
];

for (const { name, line } of refused) {
  test(`${name}: closed unanswered, no session`, async () => {
    await withBroker(async (broker, started) => {
      assert.equal(await ask(broker.port, line(secretOf(broker))), "");
      assert.equal(started.length, 0);
    });
  });
}

test("each broker has its own 256-bit secret, and the terminals get the mode, folders and patterns", async () => {
  await withBroker(async (first) => {
    await withBroker(async (second) => {
      assert.notEqual(secretOf(first), secretOf(second));
      assert.match(secretOf(first), /^[0-9a-f]{64}$/);
      const environment = first.terminalEnvironment({ mode: "always", workspaceFolders: ["/a", "/b"], smartPatterns: ["/a/**", "!**/x"] }, ":");
      assert.deepEqual(
        { ...environment, DAPPER_AUTO_ATTACH_SECRET: "…" },
        {
          DAPPER_AUTO_ATTACH: "always",
          DAPPER_AUTO_ATTACH_BROKER: `127.0.0.1:${first.port}`,
          DAPPER_AUTO_ATTACH_SECRET: "…",
          DAPPER_AUTO_ATTACH_FOLDERS: "/a:/b",
          DAPPER_AUTO_ATTACH_PATTERNS: "/a/**:!**/x",
        },
      );
    });
  });
});

const names: { argv: string[]; name: string }[] = [
  { argv: ["/venv/bin/python3", "app.py", "--fast"], name: "python3 app.py --fast" },
  { argv: ["python", "-m", "pytest", "-k", "slow and not db"], name: 'python -m pytest -k "slow and not db"' },
  { argv: [], name: "python" },
  { argv: ["python", "x".repeat(100)], name: `python ${"x".repeat(72)}…` },
];

for (const { argv, name } of names) {
  test(`the session of ${JSON.stringify(argv).slice(0, 40)} is named ${name.slice(0, 30)}`, () => {
    assert.equal(sessionName({ ...program, argv }), name);
    assert.deepEqual(attachConfiguration({ ...program, argv }, { host: "127.0.0.1", port: 7 }), {
      type: "dapper",
      request: "attach",
      name,
      listen: { host: "127.0.0.1", port: 7 },
      __dapperTerminalProgram: `${name} (pid ${program.pid})`,
    });
  });
}
