// Which processes Dapper sessions debug right now, for the process picker to mark them:
// the `processId` of each running session's configuration (an attach by pid, and every
// child session the engine starts names its child's pid there), and the
// `systemProcessId` of the DAP `process` event (a launched program's pid).
import * as vscode from "vscode";
import { DEBUG_TYPE } from "./fileConfiguration";
import { pidOf } from "./processChoice";

export class DebuggedProcesses {
  /** The pids of each running Dapper session, by session id. */
  private readonly sessions = new Map<string, Set<number>>();

  register(): vscode.Disposable[] {
    return [
      vscode.debug.onDidStartDebugSession((session) => {
        if (session.type !== DEBUG_TYPE) return;
        const pid = pidOf(session.configuration.processId);
        if (pid !== undefined) this.add(session.id, pid);
      }),
      vscode.debug.onDidTerminateDebugSession((session) => this.sessions.delete(session.id)),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: (session) => ({
          onDidSendMessage: (message: { type?: string; event?: string; body?: { systemProcessId?: unknown } }) => {
            if (message?.type !== "event" || message.event !== "process") return;
            const pid = pidOf(message.body?.systemProcessId);
            if (pid !== undefined) this.add(session.id, pid);
          },
        }),
      }),
    ];
  }

  /** Every pid a running Dapper session debugs. */
  pids(): Set<number> {
    return new Set([...this.sessions.values()].flatMap((pids) => [...pids]));
  }

  private add(sessionId: string, pid: number): void {
    const pids = this.sessions.get(sessionId) ?? new Set<number>();
    pids.add(pid);
    this.sessions.set(sessionId, pids);
  }
}
