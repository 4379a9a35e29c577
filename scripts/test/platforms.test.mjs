// The project's scripts on Linux, macOS and Windows, run here with the platform as a
// parameter: how a command is started (Windows's batch shims go through cmd.exe, quoted),
// where the Pythons of `npm test` are looked for, and which parts of it skip off Linux,
// with the line that says why.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { cmdQuote, pythonCandidates, pyenvRootOf, spawnPlan } from "../lib.mjs";
import { linuxOnly } from "../platforms.mjs";

// Each case: command, arguments, platform, what is started.
const plans = [
  ["cargo on Linux runs as it is", "cargo", ["build", "--release"], "linux", { command: "cargo", args: ["build", "--release"], shell: false }],
  ["a shim path on macOS runs as it is", "/w/node_modules/.bin/tsc", ["-p", "/w"], "darwin", { command: "/w/node_modules/.bin/tsc", args: ["-p", "/w"], shell: false }],
  [
    "a batch shim on Windows goes through cmd.exe, its words quoted where cmd would read them",
    "C:\\Users\\John Doe\\dapper\\node_modules\\.bin\\tsc.cmd",
    ["-p", "C:\\Users\\John Doe\\dapper"],
    "win32",
    { command: '"C:\\Users\\John Doe\\dapper\\node_modules\\.bin\\tsc.cmd"', args: ["-p", '"C:\\Users\\John Doe\\dapper"'], shell: true },
  ],
  ["npm on Windows (npm.cmd) goes through cmd.exe", "npm", ["ci", "--no-audit"], "win32", { command: "npm", args: ["ci", "--no-audit"], shell: true }],
  ["an .exe on Windows runs as it is", "C:\\Users\\me\\.cargo\\bin\\wasm-bindgen.exe", ["--version"], "win32", { command: "C:\\Users\\me\\.cargo\\bin\\wasm-bindgen.exe", args: ["--version"], shell: false }],
  ["a venv's python on Windows runs as it is", "D:\\a\\dapper\\.cache\\py\\3.12\\Scripts\\python.exe", ["-m", "pytest"], "win32", { command: "D:\\a\\dapper\\.cache\\py\\3.12\\Scripts\\python.exe", args: ["-m", "pytest"], shell: false }],
];

for (const [name, command, args, platform, expected] of plans) {
  test(`a command is started as its platform needs: ${name}`, () => {
    assert.deepEqual(spawnPlan(command, args, platform), expected);
  });
}

test("cmd.exe's words: plain ones as they are; spaces, cmd's operators and empty words quoted; a quote doubled", () => {
  const cases = [
    ["--enable-bulk-memory", "--enable-bulk-memory"],
    ["D:\\a\\dapper\\wasm-pkg\\dapper_core_bg.wasm", "D:\\a\\dapper\\wasm-pkg\\dapper_core_bg.wasm"],
    ["a b", '"a b"'],
    ["x&y", '"x&y"'],
    ["a|b>c<d^e", '"a|b>c<d^e"'],
    ["(1)", '"(1)"'],
    ["", '""'],
    ['say "hi"', '"say ""hi"""'],
  ];
  for (const [word, quoted] of cases) assert.equal(cmdQuote(word), quoted, word);
});

test("quoted words reach the program whole through a real shell (POSIX sh stands in for cmd's quoting of spaces)", { skip: process.platform === "win32" ? "the shell is cmd.exe there" : false }, () => {
  const words = ["plain", "with space", "tab\there"];
  const script = `process.stdout.write(JSON.stringify(process.argv.slice(1)))`;
  const result = spawnSync([process.execPath, "-e", `'${script}'`, ...words.map(cmdQuote)].join(" "), { shell: true, encoding: "utf8" });
  assert.deepEqual(JSON.parse(result.stdout), words);
});

test("pyenv's root: PYENV_ROOT, else ~/.pyenv, pyenv-win's folder on Windows", () => {
  assert.equal(pyenvRootOf({ PYENV_ROOT: "/opt/pyenv" }, "/home/me", "linux"), "/opt/pyenv");
  assert.equal(pyenvRootOf({}, "/Users/me", "darwin"), "/Users/me/.pyenv");
  assert.equal(pyenvRootOf({}, "C:\\Users\\me", "win32"), "C:\\Users\\me\\.pyenv\\pyenv-win");
});

test("the Pythons of npm test are looked for where each platform keeps them", () => {
  const linux = pythonCandidates({ platform: "linux", env: {}, home: "/root", pyenvVersions: ["3.12.1", "3.9.18"], sidBin: "/w/.cache/sid/bin/w-1" });
  assert.deepEqual(linux.slice(0, 2), ["/root/.pyenv/versions/3.12.1/bin/python3", "/root/.pyenv/versions/3.9.18/bin/python3"]);
  assert.ok(linux.includes("python3.9") && linux.includes("python3.15") && linux.includes("python3"));
  assert.equal(linux.at(-1), "/w/.cache/sid/bin/w-1/python3.15", "Debian sid's wrappers last");

  const mac = pythonCandidates({ platform: "darwin", env: { PATH: "/opt/homebrew/bin:/usr/bin" }, home: "/Users/me", pyenvVersions: [] });
  assert.deepEqual(mac, ["python3.9", "python3.10", "python3.11", "python3.12", "python3.13", "python3.14", "python3.15", "python3"], "no sid root off Linux");

  const launcherList = [" -V:3.13 *        C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python313\\python.exe", " -V:3.9           C:\\Program Files\\Python39\\python.exe"].join("\r\n");
  const windows = pythonCandidates({
    platform: "win32",
    env: { Path: "C:\\hostedtoolcache\\windows\\Python\\3.14.0\\x64;C:\\hostedtoolcache\\windows\\Python\\3.14.0\\x64\\Scripts;;C:\\Windows" },
    home: "C:\\Users\\me",
    pyenvVersions: ["3.11.9"],
    launcherList,
  });
  assert.deepEqual(windows, [
    "C:\\Users\\me\\.pyenv\\pyenv-win\\versions\\3.11.9\\python.exe",
    "python3.9",
    "python3.10",
    "python3.11",
    "python3.12",
    "python3.13",
    "python3.14",
    "python3.15",
    "python3",
    "C:\\hostedtoolcache\\windows\\Python\\3.14.0\\x64\\python.exe",
    "C:\\hostedtoolcache\\windows\\Python\\3.14.0\\x64\\Scripts\\python.exe",
    "C:\\Windows\\python.exe",
    "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python313\\python.exe",
    "C:\\Program Files\\Python39\\python.exe",
  ]);
});

test("off Linux, the sid root (3.14, 3.15, Emacs, gdb) and the real-VS-Code test skip with a line that says why", () => {
  assert.equal(linuxOnly("sid", "linux"), null);
  assert.equal(linuxOnly("vscode", "linux"), null);
  for (const [platform, name] of [["darwin", "macOS"], ["win32", "Windows"]]) {
    const sid = linuxOnly("sid", platform);
    assert.match(sid, /debootstrap .*mount namespaces and chroot; this is /);
    assert.ok(sid.endsWith(`this is ${name}`), sid);
    assert.match(linuxOnly("vscode", platform), new RegExp(`code-server with Debian's Chromium .*; this is ${name}$`));
    for (const line of [sid, linuxOnly("vscode", platform)]) assert.doesNotMatch(line, /\n/);
  }
  assert.throws(() => linuxOnly("emacs", "darwin"), /no Linux-only part is called "emacs"/);
});
