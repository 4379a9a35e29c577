// Data breakpoints ("Break When Value Changes") end to end on every CPython of the
// machine, with its default tracer and, on 3.12+, with sys.settrace too: a local, an
// attribute, a list item, a dict item and a global, found from a watch expression
// (frameId + name) or from the Variables view (variablesReference + name), with
// conditions and hit conditions. Each stop comes after the line that made the change,
// in the frame that ran it, and says the old and the new value; a local's breakpoint
// ends with its frame. Each case is a row; one helper runs them.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { pythons } from "./support";
import { type Session, stopped, withSession } from "./control-support";

const app = "databreakpoints/app.py";
const output = "6\n3 4 [0, 30, 0] {'k': 3, 'other': -3}\n";

interface Case {
  name: string;
  /** The watch expression in work's frame, or a child of a local shown in Variables. */
  watch: { expression: string } | { local: string; child: string };
  description: string;
  options?: Partial<DebugProtocol.DataBreakpoint>;
  /** Each stop: function, marker of its line, old → new. */
  stops: Array<[string, string, string]>;
}

const cases: Case[] = [
  {
    name: "a local, with a hit condition; its breakpoint ends with its frame",
    watch: { expression: "total" },
    description: "total (in work)",
    options: { hitCondition: ">=2" },
    stops: [["work", "after-total", "1 → 3"], ["work", "after-total", "3 → 6"]],
  },
  {
    name: "an attribute changed in a method, with a condition",
    watch: { expression: "counter.count" },
    description: "counter.count",
    options: { condition: "self.count > 2" },
    stops: [["bump", "bump", "2 → 3"], ["bump", "bump", "3 → 4"]],
  },
  {
    name: "an attribute from the Variables view",
    watch: { local: "counter", child: "count" },
    description: "counter.count",
    options: { hitCondition: "1" },
    stops: [["bump", "bump", "0 → 1"]],
  },
  {
    name: "a list item",
    watch: { expression: "items[1]" },
    description: "items[1]",
    stops: [["work", "after-item", "0 → 10"], ["work", "after-item", "10 → 20"], ["work", "after-item", "20 → 30"]],
  },
  {
    name: "a dict item from the Variables view, with a condition",
    watch: { local: "table", child: "'k'" },
    description: "table['k']",
    options: { condition: "i % 2 == 1" },
    stops: [["work", "after-key", "0 → 1"], ["work", "after-key", "2 → 3"]],
  },
  {
    name: "a global changed by another function",
    watch: { expression: "LIMIT" },
    description: "LIMIT",
    stops: [["raise_limit", "limit", "1 → 2"], ["raise_limit", "limit", "2 → 3"]],
  },
];

async function dataId(session: Session, watch: Case["watch"], frameId: number): Promise<DebugProtocol.DataBreakpointInfoResponse["body"]> {
  if ("expression" in watch) {
    return (await session.client.dataBreakpointInfoRequest({ name: watch.expression, frameId })).body;
  }
  const scopes = await session.client.scopesRequest({ frameId });
  const locals = await session.client.values(scopes.body.scopes[0].variablesReference);
  const parent = locals.get(watch.local);
  assert.ok(parent && parent.variablesReference > 0, `${watch.local} is expandable`);
  return (await session.client.dataBreakpointInfoRequest({ name: watch.child, variablesReference: parent.variablesReference })).body;
}

async function run(session: Session, row: Case): Promise<void> {
  const start = await stopped(session.client, "breakpoint");
  await session.client.setBreakpointsRequest({ source: { path: session.file(app) }, breakpoints: [] });
  const info = await dataId(session, row.watch, start.frames[0].id);
  assert.equal(info.description, row.description, JSON.stringify(info));
  assert.deepEqual(info.accessTypes, ["write"]);
  assert.ok(info.dataId);
  const set = await session.client.setDataBreakpointsRequest({
    breakpoints: [{ dataId: info.dataId, accessType: "write", ...row.options }],
  });
  const [bp] = set.body.breakpoints;
  assert.equal(bp.verified, true, JSON.stringify(bp));
  await session.client.continueRequest({ threadId: start.threadId });
  for (const [name, line, change] of row.stops) {
    const stop = await stopped(session.client, "data breakpoint");
    assert.deepEqual(stop.event.body.hitBreakpointIds, [bp.id]);
    const text = `${row.description}: ${change}`;
    assert.equal(stop.event.body.text, text);
    assert.equal(stop.event.body.description, `Paused on data breakpoint: ${text}`);
    assert.equal(stop.frames[0].name.split(".").pop(), name);
    assert.equal(stop.frames[0].line, session.line(app, line));
    await session.client.continueRequest({ threadId: stop.threadId });
  }
  assert.equal(await session.client.finished(), 0);
  assert.equal(session.client.output("stdout"), output);
  assert.equal(session.client.events.filter((e) => e.event === "stopped").length, row.stops.length + 1);
  const ended = session.client.events.filter((e) => e.event === "breakpoint").map((e) => (e.body as DebugProtocol.BreakpointEvent["body"]).breakpoint);
  if ("expression" in row.watch && row.watch.expression === "total") {
    assert.deepEqual(ended.map((b) => [b.id, b.verified]), [[bp.id, false]]);
    assert.match(ended[0].message ?? "", /frame has returned/);
  } else {
    assert.deepEqual(ended, []);
  }
}

for (const python of pythons()) {
  const [major, minor] = python.version.split(".").map(Number);
  const tracers = major === 3 && minor >= 12 ? ["monitoring", "settrace"] : ["settrace"];
  for (const tracer of tracers) {
    describe(`data breakpoints on Python ${python.version} (${tracer})`, () => {
      for (const row of cases) {
        test(row.name, async () => {
          await withSession(
            python,
            { program: app, env: { DAPPER_TRACER: tracer } },
            async (session) => {
              await session.client.setBreakpointsRequest({ source: { path: session.file(app) }, breakpoints: [{ line: session.line(app, "start") }] });
            },
            (session) => run(session, row),
          );
        });
      }
    });
  }
}
