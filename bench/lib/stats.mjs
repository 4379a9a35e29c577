// Small statistics over measured samples.

/** The median of the finite numbers in `values`; undefined when there are none. */
export function median(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The median of the finite numbers in `values`, and their range (lowest, highest). */
export function medianAndRange(values) {
  const finite = values.filter(Number.isFinite);
  return { median: median(finite), low: Math.min(...finite), high: Math.max(...finite) };
}

/** The smallest finite number in `values`; undefined when there are none. */
export function minimum(values) {
  const finite = values.filter(Number.isFinite);
  return finite.length === 0 ? undefined : Math.min(...finite);
}

/**
 * Ratios of runs measured side by side: debugged[i] ÷ plain[i] for each run index where
 * both exist (a failed run leaves undefined and pairs with nothing).
 */
export function pairedRatios(debugged, plain) {
  const ratios = [];
  for (let i = 0; i < Math.min(debugged.length, plain.length); i++) {
    if (Number.isFinite(debugged[i]) && Number.isFinite(plain[i]) && plain[i] > 0) ratios.push(debugged[i] / plain[i]);
  }
  return ratios;
}

/** Milliseconds, with a precision that suits their size. */
export function formatMs(ms) {
  if (ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** Seconds for the table. */
export function formatSeconds(seconds) {
  if (seconds === undefined || !Number.isFinite(seconds)) return "—";
  if (seconds < 0.01) return `${(seconds * 1000).toFixed(2)} ms`;
  if (seconds < 1) return `${(seconds * 1000).toFixed(0)} ms`;
  return `${seconds.toFixed(2)} s`;
}
