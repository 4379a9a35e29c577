// VS Code's inline debug adapter: DAP objects go straight between VS Code and the shared
// engine, with no framing and no process in between. One instance per debug session.

import * as vscode from "vscode";
import type { DebugProtocolMessage } from "vscode";
import type { ClientHost, HostedClient } from "../host/clients";
import type { DapMessage } from "../host/protocol";

export class InlineDebugAdapter implements vscode.DebugAdapter {
  private readonly sent = new vscode.EventEmitter<DebugProtocolMessage>();
  readonly onDidSendMessage: vscode.Event<DebugProtocolMessage> = this.sent.event;
  private readonly client: HostedClient;
  private disposed = false;

  constructor(host: ClientHost) {
    this.client = host.openClient({
      framing: "messages",
      // The engine serves VS Code as any other client: dapper/* events only if its initialize
      // asks for them (supportsDapperEvents), which VS Code's does not: this extension reads none.
      transport: "inline",
      deliver: (message: DapMessage) => {
        if (!this.disposed) this.sent.fire(message as DebugProtocolMessage);
      },
    });
  }

  handleMessage(message: DebugProtocolMessage): void {
    if (!this.disposed) this.client.message(message as DapMessage);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.client.closed();
    this.sent.dispose();
  }
}
