// The tools that change a running program's code: hot_reload patches it with an edited
// file, restart_frame runs a stopped function again with its current code.

import * as path from "path";
import { num, str } from "./arguments";
import { clip, shortPath } from "./render";
import { frameProperty, sessionProperty, waitProperty, type AgentTool } from "./toolDefinition";
import { afterWait, secondsOf, stopCounts } from "./waiting";
import { frameIdOf, sessionArgument } from "./where";

export const hotReload: AgentTool = {
  name: "hot_reload",
  title: "Hot reload a file",
  description: "After editing a file, patches the running program's functions with the file's new code without re-running it (module state is kept). Then restart_frame re-runs a stopped function with the new code.",
  inputSchema: { type: "object", properties: { file: { type: "string", description: "The edited Python file." }, session: sessionProperty }, required: ["file"], additionalProperties: false },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    const file = path.resolve(baseDirectory, str(args, "file") as string);
    const body = await session.request("dapper/hotReload", { source: { path: file } });
    return `Reloaded ${shortPath(file, baseDirectory)}: ${clip(JSON.stringify(body), 1500, "the full report is in the debug console")}`;
  },
};

export const restartFrame: AgentTool = {
  name: "restart_frame",
  title: "Restart a frame",
  description: "Runs a stopped function again from its first line, with its current code (after hot_reload: the new code) and its original arguments; the frames above it unwind.",
  inputSchema: { type: "object", properties: { frame: frameProperty, session: sessionProperty, wait: waitProperty }, additionalProperties: false },
  async run(args, { backend, baseDirectory }) {
    const session = sessionArgument(backend, str(args, "session"));
    const frameId = await frameIdOf(session, num(args, "frame") ?? 0);
    const before = stopCounts(backend, session);
    await session.request("restartFrame", { frameId });
    return afterWait(backend, session, before, secondsOf(args), baseDirectory);
  },
};
