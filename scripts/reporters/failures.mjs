// A node:test reporter that writes only the failed tests: the test's name, where it is,
// and the first lines of its error. `npm test` adds it beside the spec reporter and
// prints what it wrote again under the summary, so that the tail of a long run (all that
// a CI log may keep) still says why a test failed.
const LINES = 12;

export default async function* failures(source) {
  for await (const event of source) {
    if (event.type !== "test:fail") continue;
    const { name, file, line, details } = event.data;
    // A suite fails when a test inside it does; its own entry adds nothing.
    if (details?.type === "suite") continue;
    const error = details?.error?.cause ?? details?.error;
    const text = String(error?.stack ?? error?.message ?? error ?? "no error").split("\n");
    const own = text.filter((l) => !/\(node:|at node:|new Promise \(<anonymous>\)/.test(l)).slice(0, LINES);
    yield `✗ ${name}${file ? ` (${file}${line ? `:${line}` : ""})` : ""}\n${own.map((l) => `    ${l}`).join("\n")}\n`;
  }
}
