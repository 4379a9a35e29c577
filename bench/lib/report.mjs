// The results as Markdown: the table of ratios with the issue's targets, the latencies,
// the engine's throughput, memory, and what was missed. Pure: data in, text out.
import { DAPPER, DEBUGPY } from "./adapters.mjs";
import { LATENCIES, LATENCY_TARGETS_MS } from "./latency.mjs";
import { PLAIN, PLAIN_AGAIN } from "./measure.mjs";
import { CONFIGS, formatRatio, targetFor } from "./programs.mjs";
import { summarizeCell } from "./ratios.mjs";
import { formatMs, formatSeconds, median } from "./stats.mjs";

export const THROUGHPUT_TARGET = 100_000;
export const FORWARD_TARGET_MS = 0.1;

const mark = (met) => (met === undefined ? "?" : met ? "✓" : "✗");

/** One row of the ratio table, with the target judged on Dapper's median ratio. */
export function ratioRow(cell, debuggers) {
  const dapper = summarizeCell(cell, DAPPER);
  const debugpy = debuggers.includes(DEBUGPY) ? summarizeCell(cell, DEBUGPY) : undefined;
  const target = targetFor({ python: cell.python, program: cell.program, config: cell.config, debugpyMedian: debugpy?.median });
  let met;
  if (target && target.limit !== undefined && dapper.median !== undefined) met = dapper.median <= target.limit;
  return { cell, dapper, debugpy, target, met, plain: median(cell.seconds[PLAIN] ?? []) };
}

function ratioText(summary) {
  if (!summary) return "not run";
  if (summary.median === undefined) return `failed${summary.error ? ` (${summary.error.split("\n")[0].slice(0, 120)})` : ""}`;
  return `${formatRatio(summary.median)} / ${formatRatio(summary.min)}`;
}

function escapeCell(text) {
  return String(text).replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function table(header, rows) {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.map(escapeCell).join(" | ")} |`);
  return lines.join("\n");
}

export function ratioTable(cells, debuggers) {
  const rows = cells.map((cell) => {
    const row = ratioRow(cell, debuggers);
    return [
      cell.python,
      cell.program,
      CONFIGS[cell.config],
      cell.size,
      formatSeconds(row.plain),
      cell.seconds[PLAIN_AGAIN] ? ratioText(summarizeCell(cell, PLAIN_AGAIN)) : "—",
      ratioText(row.dapper),
      debuggers.includes(DEBUGPY) ? ratioText(row.debugpy) : "not run",
      row.target ? row.target.text : "—",
      row.target ? mark(row.met) : "—",
    ];
  });
  return table(["Python", "program", "configuration", "size", "plain (median)", "plain÷plain (noise)", "Dapper median / min", "debugpy median / min", "target (Dapper median)", "met?"], rows);
}

/**
 * The near-1× cells again in CPU time of the debuggee process (all its threads): a machine
 * busy with other work stretches wall-clock runs far more than their CPU time. Empty when
 * no near-1× cell has CPU times.
 */
export function cpuTable(cells, debuggers) {
  const rows = [];
  for (const cell of cells.filter((c) => c.seconds[PLAIN_AGAIN])) {
    const noise = summarizeCell(cell, PLAIN_AGAIN, "cpuSeconds");
    const dapper = summarizeCell(cell, DAPPER, "cpuSeconds");
    if (noise.count === 0 && dapper.count === 0) continue;
    const debugpy = debuggers.includes(DEBUGPY) ? summarizeCell(cell, DEBUGPY, "cpuSeconds") : undefined;
    rows.push([cell.python, cell.program, CONFIGS[cell.config], ratioText(noise), ratioText(dapper), debuggers.includes(DEBUGPY) ? ratioText(debugpy) : "not run", String(dapper.count)]);
  }
  if (rows.length === 0) return "";
  return [
    "The same timed windows in CPU time of the debuggee process (`time.process_time()`: every thread of it, the debugger's included), for the cells whose target is near 1×. " +
      "Other work on the machine stretches wall-clock runs much more than their CPU time, so where the two tables disagree the machine was busy; the targets are judged on the wall-clock table.",
    "",
    table(["Python", "program", "configuration", "plain÷plain CPU (noise)", "Dapper CPU median / min", "debugpy CPU median / min", "rounds"], rows),
  ].join("\n");
}

/** The cost of one logpoint hit: (debugged − plain) ÷ hits, in microseconds (medians). */
export function logpointText(cells, debuggers) {
  const lines = [];
  for (const cell of cells.filter((c) => c.config === "logpoint")) {
    const plain = median(cell.seconds[PLAIN] ?? []);
    const perHit = (mode) => {
      const debugged = median(cell.seconds[mode] ?? []);
      return plain === undefined || debugged === undefined ? "—" : `${(((debugged - plain) / cell.size) * 1e6).toFixed(1)} µs`;
    };
    const late = (mode) => {
      const delivered = cell.logLines?.[mode];
      const count = cell.lateLogLines?.[mode];
      const parts = [];
      if (delivered !== undefined && delivered !== cell.size) parts.push(`only ${delivered} of the ${cell.size} lines reached the client`);
      // Lines that arrive after the timing line were sent after the timed work ended, so
      // that debugger's figure leaves part of the logging cost out.
      if (count) parts.push(`${count} arrived after the program's timing line`);
      return parts.length ? ` (last run: ${parts.join("; ")})` : "";
    };
    const parts = debuggers.map((d) => `${d === DAPPER ? "Dapper" : "debugpy"} ${perHit(d)}${late(d)}`);
    lines.push(`- Logpoint on Python ${cell.python}, per hit: ${parts.join(", ")}.`);
  }
  return lines.join("\n");
}

export function latencyTable(latency) {
  const rows = [];
  for (const [python, byDebugger] of Object.entries(latency)) {
    for (const [name, description] of Object.entries(LATENCIES)) {
      const dapper = byDebugger[DAPPER]?.[name];
      const debugpy = byDebugger[DEBUGPY]?.[name];
      // A part not selected (e.g. --only child) leaves its rows out.
      if (!dapper && !debugpy) continue;
      const show = (r) => (!r ? "not run" : r.unavailable ? r.unavailable : r.error ? `failed: ${r.error}` : `${formatMs(r.median)} (min ${formatMs(r.min)}, n=${r.samples.length})`);
      const limit = LATENCY_TARGETS_MS[name];
      const met = limit === undefined || !dapper || dapper.error || dapper.unavailable ? undefined : dapper.median <= limit;
      const notes = [dapper?.note && `Dapper: ${dapper.note}`, debugpy?.note && `debugpy: ${debugpy.note}`].filter(Boolean).join("; ");
      rows.push([python, description, show(dapper), show(debugpy), limit === undefined ? "—" : `≤ ${formatMs(limit)}`, limit === undefined ? "—" : mark(met), notes]);
    }
  }
  return table(["Python", "latency", "Dapper median", "debugpy median", "target", "met?", "notes"], rows);
}

export function throughputTable(throughput) {
  const rows = [];
  for (const result of throughput) {
    if (result.error) {
      rows.push([result.engine, result.mix ?? "—", result.framing ?? "—", "—", `failed: ${result.error}`, "—", "—", "—"]);
      continue;
    }
    const forwardMs = result.microsPerForward / 1000;
    const judged = result.engine === "WebAssembly";
    rows.push([
      result.engine,
      result.mix,
      result.framing,
      result.bytesPerMessage === undefined ? "—" : `${Math.round(result.bytesPerMessage).toLocaleString("en-US")} B`,
      `${Math.round(result.perSecond).toLocaleString("en-US")} msg/s`,
      judged ? `≥ 100,000 ${mark(result.perSecond >= THROUGHPUT_TARGET)}` : "—",
      formatMs(forwardMs),
      judged ? `≤ 0.1 ms ${mark(forwardMs <= FORWARD_TARGET_MS)}` : "—",
    ]);
  }
  return table(["engine", "message mix", "client framing", "mean input", "throughput", "target", "added per forwarded request", "target"], rows);
}

export function memoryText(memory, cells) {
  const parts = [];
  if (memory?.adapter) {
    const a = memory.adapter;
    if (a.error) parts.push(`- Extension host (standalone adapter, one engine): failed: ${a.error}`);
    else {
      parts.push(
        `- Extension host (standalone adapter \`--port 0\`, one engine, ${a.sessions} sessions of a trivial program): ` +
          `after 1 session RSS ${(a.first.rssKb / 1024).toFixed(1)} MiB, heap ${(a.first.heapUsedKb / 1024).toFixed(2)} MiB; ` +
          `after ${a.sessions}: RSS ${(a.last.rssKb / 1024).toFixed(1)} MiB, heap ${(a.last.heapUsedKb / 1024).toFixed(2)} MiB. ` +
          `Growth per session: heap ${a.perSession.heapUsedKb.toFixed(1)} KiB (after a full GC), external ${a.perSession.externalKb.toFixed(1)} KiB, RSS ${a.perSession.rssKb.toFixed(0)} KiB.`,
      );
    }
  }
  const rows = [];
  for (const cell of cells.filter((c) => c.config === "none")) {
    const peak = (mode) => {
      const value = median((cell.hwmKb[mode] ?? []).filter((v) => v !== undefined));
      return value === undefined ? "—" : `${(value / 1024).toFixed(1)} MiB`;
    };
    const growth = (mode) => {
      const plain = median(cell.hwmKb[PLAIN] ?? []);
      const other = median(cell.hwmKb[mode] ?? []);
      return plain === undefined || other === undefined ? "—" : `+${((other - plain) / 1024).toFixed(1)} MiB`;
    };
    rows.push([cell.python, cell.program, peak(PLAIN), `${peak(DAPPER)} (${growth(DAPPER)})`, `${peak(DEBUGPY)} (${growth(DEBUGPY)})`]);
  }
  if (rows.length > 0) {
    parts.push("", "Debuggee peak memory (VmHWM, no breakpoints, median of the runs):", "", table(["Python", "program", "plain", "Dapper (tracer on)", "debugpy"], rows));
  }
  return parts.join("\n");
}

/** The missed targets, each as a plain sentence. */
export function missedTargets({ cells, latency, throughput, debuggers }) {
  const missed = [];
  for (const cell of cells) {
    const row = ratioRow(cell, debuggers);
    if (row.met === false) missed.push(`${cell.python} ${cell.program}, ${CONFIGS[cell.config]}: Dapper ${formatRatio(row.dapper.median)}, target ${row.target.text}.`);
    if (row.target && row.dapper.median === undefined) missed.push(`${cell.python} ${cell.program}, ${CONFIGS[cell.config]}: Dapper failed (${row.dapper.error ?? "no figure"}).`);
  }
  for (const [python, byDebugger] of Object.entries(latency)) {
    for (const [name, limit] of Object.entries(LATENCY_TARGETS_MS)) {
      const r = byDebugger[DAPPER]?.[name];
      if (!r) continue;
      if (r.unavailable) continue;
      if (r.error) missed.push(`${python} ${LATENCIES[name]}: Dapper failed (${r.error}).`);
      else if (r.median > limit) missed.push(`${python} ${LATENCIES[name]}: Dapper ${formatMs(r.median)}, target ≤ ${formatMs(limit)}.`);
    }
  }
  for (const result of throughput.filter((r) => r.engine === "WebAssembly" && !r.error)) {
    if (result.perSecond < THROUGHPUT_TARGET) missed.push(`WebAssembly engine, ${result.mix} mix, ${result.framing} client: ${Math.round(result.perSecond).toLocaleString("en-US")} msg/s, target ≥ 100,000.`);
    if (result.microsPerForward / 1000 > FORWARD_TARGET_MS) missed.push(`WebAssembly engine, ${result.mix} mix, ${result.framing} client: ${formatMs(result.microsPerForward / 1000)} added per forwarded request, target ≤ 0.1 ms.`);
  }
  return missed;
}

/** A section and the blank line after it; nothing for an empty section. */
function withBlankLine(text) {
  return text ? [text, ""] : [];
}

function runsText({ runs, nearRuns }) {
  if (!(nearRuns > runs)) return String(runs);
  return `${runs}; ${nearRuns} where the target is within 5% of 1× (plain, plain÷plain and Dapper; debugpy keeps ${runs})`;
}

export function renderResults({ machine, versions, options, cells, latency, throughput, memory, debuggers, notes }) {
  const lines = [
    "# Dapper benchmark results",
    "",
    `Written by \`npm run bench\` (bench/run.mjs) on ${machine.date}${options.quick ? " — a **--quick** smoke run: one run per cell and the smallest sizes, so the figures are rough" : ""}.`,
    "",
    "## Machine and versions",
    "",
    `- CPU: ${machine.cpu}, ${machine.cores} cores; memory ${machine.memoryGiB} GiB; ${machine.os}`,
    `- Node ${machine.node}; Dapper ${machine.dapper}; debugpy ${versions.debugpy ?? "not run"}`,
    `- Python: ${versions.pythons.join(", ")}`,
    `- Runs per cell: ${runsText(options)}; latency repetitions: ${options.reps}`,
    "",
    "## Slowdown: debugged ÷ plain",
    "",
    "Each program times its own work (`time.perf_counter()` around it), so session set-up is not counted. " +
      "Plain, Dapper and debugpy runs of a cell are interleaved; each ratio divides a debugged run by the plain run of the same round. " +
      "The target is judged on Dapper's median ratio. Where the targets are near 1×, a second plain run per round gives plain÷plain: how far apart two identical runs land on this machine at that moment.",
    "",
    cells.length ? ratioTable(cells, debuggers) : "_Not run._",
    "",
    ...withBlankLine(cpuTable(cells, debuggers)),
    logpointText(cells, debuggers),
    "",
    "## Latencies",
    "",
    Object.keys(latency).length ? latencyTable(latency) : "_Not run._",
    "",
    "## Engine throughput",
    "",
    "DAP messages per second through the engine alone (requests in from the client, responses and events in from the debuggee), " +
      "with a scripted host and debuggee; only the engine call is timed, with what the host does around it per message (WebAssembly, through the extension's own glue, `wrapEngine` in extension/src/host/wasm.ts: `JSON.stringify` of the input, writing it and its bytes into the engine's memory, the engine call, reading the outputs' JSON, `JSON.parse`, and copying a byte-stream client's bytes out); the best of three passes. WebAssembly: wasm-pkg/ in Node, as the extension runs it. " +
      "Native: bench/native/ (the same script in Rust, `handle_json` and output serialisation, as the shim does).",
    "",
    throughput.length ? throughputTable(throughput) : "_Not run._",
    "",
    "## Memory",
    "",
    memoryText(memory, cells) || "_Not run._",
    "",
    "## Targets missed",
    "",
  ];
  const missed = missedTargets({ cells, latency, throughput, debuggers });
  lines.push(missed.length ? missed.map((m) => `- ${m}`).join("\n") : "- None of the measured targets was missed.");
  if (notes?.length) lines.push("", "## Notes", "", ...notes.map((n) => `- ${n}`));
  return lines.join("\n") + "\n";
}
