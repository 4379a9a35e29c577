// The host's side of the engine contract. contract.ts is the contract itself, generated
// from the Rust types (core/src/contract.rs); this file names its types as the host uses
// them and adds the two forms in which bytes skip base64 (docs/engine-io.md, "The fast
// path"): inputs as the executors report them, with raw bytes, and outputs as the buffered
// form writes them, with `dataRange` instead of `data`.

import type * as contract from "./contract";

export type {
  Address as ListenerAddress,
  ClientTransport,
  DapMessage,
  EngineOptions,
  FactQuery,
  KillTarget,
  LogLevel,
  ReadSource,
  Signal as KillSignal,
} from "./contract";

/**
 * An input as the host holds it: a byte payload (`data`) as raw bytes, not base64, and
 * facts that may include answers to kinds the host does not know.
 */
export type Input = HostForm<contract.Input>;
type HostForm<T> = T extends { data: contract.Bytes }
  ? Omit<T, "data"> & { data: Buffer }
  : T extends { facts: contract.FactAnswer[] }
    ? Omit<T, "facts"> & { facts: FactAnswer[] }
    : T;

/**
 * An output as the host reads it. On the buffered fast path a `writeToClient` or `send`
 * has its bytes raw beside the outputs' JSON, at `dataRange` ([start, end]) of the
 * engine's `outputBytes()`, instead of base64 in `data`.
 */
export type Output = BytesBeside<contract.Output>;
type BytesBeside<T> = T extends { data: contract.Bytes } ? T | (Omit<T, "data"> & { dataRange: [number, number] }) : T;

export type OutputOf<T extends Output["type"]> = Extract<Output, { type: T }>;

/** An answer to a fact query; a query of a kind this host does not know is still answered, as a failure. */
export type FactAnswer = contract.FactAnswer | { kind: string; ok: false; error: string; [key: string]: unknown };

/** The function every executor uses to hand a fact back to the engine. */
export type Report = (input: Input) => void;

/** An input as its JSON form has it (for JSON.stringify): its bytes, if any, as base64 in `data`. */
export function inputJson(input: Input): object {
  return "data" in input ? { ...input, data: input.data.toString("base64") } : input;
}
