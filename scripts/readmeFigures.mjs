// The figures the README states about the build, held to what the build gives: packaging
// fails when the .vsix's stated size is off by more than a tenth, so the README is
// corrected in the change that moved it.

/** How far a stated figure may be from the measured one, as a fraction of it. */
export const TOLERANCE = 0.1;

const VSIX_SIZE = /The \.vsix is about (\d+) KiB/;

/**
 * Why the README's stated .vsix size does not hold for a .vsix of `bytes` bytes, or
 * undefined when it holds. A README that states no size is an error too: the figure is
 * part of what a user reads before installing.
 */
export function vsixSizeMismatch(readme, bytes) {
  const match = VSIX_SIZE.exec(readme);
  if (match === null) return "README.md does not state the .vsix's size (\"The .vsix is about N KiB\")";
  const stated = Number(match[1]);
  const measured = bytes / 1024;
  if (Math.abs(measured - stated) <= stated * TOLERANCE) return undefined;
  return `README.md says the .vsix is about ${stated} KiB; it is ${Math.round(measured)} KiB: write that figure`;
}
