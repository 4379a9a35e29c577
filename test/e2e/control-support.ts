// Helpers shared by breakpoints.test.ts and stepping.test.ts: a session whose
// configuration phase a test writes itself (breakpoints of every kind, exception filters),
// and small readers of stops, locals and console output.
import assert from "node:assert/strict";
import path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { fixtures, marker, type Python, RecordingClient } from "./support";

export interface Session {
  client: RecordingClient;
  /** Absolute path of a fixture file. */
  file(name: string): string;
  /** Line of a `# BP:<name>` marker in a fixture file. */
  line(file: string, name: string): number;
}

/**
 * Starts the adapter, launches `program` (relative to test/fixtures) on `python`, runs
 * `configure` between `initialized` and `configurationDone`, then hands the running
 * session to `body`; the adapter is always stopped at the end.
 */
export async function withSession(
  python: Python,
  launch: Record<string, unknown> & { program: string },
  configure: (session: Session) => Promise<void>,
  body: (session: Session) => Promise<void>,
): Promise<void> {
  const client = new RecordingClient();
  await client.start();
  const session: Session = {
    client,
    file: (name) => path.join(fixtures, name),
    line: (file, name) => marker(file, name),
  };
  try {
    await client.initializeRequest({ adapterID: "dapper", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
    const initialized = client.next("initialized");
    const launched = client.launchRequest({
      console: "internalConsole",
      cwd: path.dirname(path.join(fixtures, launch.program)),
      ...launch,
      program: path.join(fixtures, launch.program),
      python: python.executable,
    } as DebugProtocol.LaunchRequestArguments);
    launched.catch(() => undefined);
    await Promise.race([initialized, launched]);
    await initialized;
    await configure(session);
    await client.configurationDoneRequest();
    await launched;
    await body(session);
  } finally {
    await client.stop();
  }
}

export interface Stop {
  event: DebugProtocol.StoppedEvent;
  threadId: number;
  frames: DebugProtocol.StackFrame[];
}

/** The next stop, checked to have `reason`, with its stack. */
export async function stopped(client: RecordingClient, reason: string): Promise<Stop> {
  const { event, frames } = await client.nextStop();
  assert.equal(event.body.reason, reason, `stop reason (${JSON.stringify(event.body)})`);
  return { event, threadId: event.body.threadId ?? 0, frames };
}

/** Locals of a frame, name → value. */
export async function locals(client: RecordingClient, frameId: number): Promise<Record<string, string>> {
  const scopes = await client.scopesRequest({ frameId });
  const values = await client.values(scopes.body.scopes[0].variablesReference);
  return Object.fromEntries([...values].map(([name, variable]) => [name, variable.value]));
}

/** The `console` output so far (log points), without Dapper's own notices (session.test.ts checks those). */
export function consoleOutput(client: RecordingClient): string {
  return client.output("console").replace(/^Dapper: .*\n/gm, "");
}

/** Whether a request fails, and with which message. */
export async function failure(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the request should have failed");
}
