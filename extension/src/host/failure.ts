// What the host tells DAP clients itself when the engine has failed (a panic surfaced as
// a thrown error from handle). These are the only DAP messages the host ever makes up.

import type { DapMessage } from "./protocol";

const ENGINE_FAILED_TEXT =
  "The Dapper debug engine failed unexpectedly and this debug session is over. " +
  'The "Dapper" output channel (or the adapter log) has the details; please report them.';

/** The output and terminated events that end a session whose engine failed. */
export function engineFailedEvents(firstSeq: number): DapMessage[] {
  return [
    { seq: firstSeq, type: "event", event: "output", body: { category: "important", output: ENGINE_FAILED_TEXT + "\n" } },
    { seq: firstSeq + 1, type: "event", event: "terminated", body: {} },
  ];
}

/**
 * Answers a request a client sends after its engine failed, so the client never waits for
 * a response that cannot come. Ending the session succeeds; everything else fails.
 * Returns undefined for anything that is not a request.
 */
export function orphanResponse(request: DapMessage, seq: number): DapMessage | undefined {
  if (request.type !== "request") return undefined;
  const command = typeof request.command === "string" ? request.command : "";
  const ending = command === "disconnect" || command === "terminate";
  const response: DapMessage = {
    seq,
    type: "response",
    request_seq: typeof request.seq === "number" ? request.seq : 0,
    command,
    success: ending,
  };
  if (!ending) response.message = ENGINE_FAILED_TEXT;
  return response;
}
