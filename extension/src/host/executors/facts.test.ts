import assert from "assert/strict";
import * as fs from "fs";
import { test } from "node:test";
import * as os from "os";
import * as path from "path";
import { answerQuery, gatherFacts } from "./facts";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "dapper-facts-test-"));
const textFile = path.join(scratch, "env.txt");
fs.writeFileSync(textFile, "A=1\nB=é\n");
process.env.DAPPER_FACTS_TEST = "present";
delete process.env.DAPPER_FACTS_TEST_MISSING;

test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// Each case: a query and the answer expected, or a check of the answer where it varies.
type Check = (answer: Record<string, unknown>) => void;
const cases: { name: string; query: unknown; expect: object | Check }[] = [
  {
    name: "an existing file",
    query: { kind: "path", path: textFile },
    expect: { kind: "path", path: textFile, exists: true, isFile: true, isDirectory: false },
  },
  {
    name: "an existing directory",
    query: { kind: "path", path: scratch },
    expect: { kind: "path", path: scratch, exists: true, isFile: false, isDirectory: true },
  },
  {
    name: "a missing path",
    query: { kind: "path", path: path.join(scratch, "missing.py") },
    expect: { kind: "path", path: path.join(scratch, "missing.py"), exists: false, isFile: false, isDirectory: false },
  },
  {
    name: "a relative path, against the working directory, answered with the path as asked",
    query: { kind: "path", path: "." },
    expect: { kind: "path", path: ".", exists: true, isFile: false, isDirectory: true },
  },
  {
    name: "a variable that is set",
    query: { kind: "env", name: "DAPPER_FACTS_TEST" },
    expect: { kind: "env", name: "DAPPER_FACTS_TEST", value: "present" },
  },
  {
    name: "a variable that is not set",
    query: { kind: "env", name: "DAPPER_FACTS_TEST_MISSING" },
    expect: { kind: "env", name: "DAPPER_FACTS_TEST_MISSING", value: null },
  },
  {
    name: "python3 is present",
    query: { kind: "python", executable: "python3" },
    expect: (answer) => {
      assert.equal(answer.ok, true, JSON.stringify(answer));
      assert.equal(answer.executable, "python3");
      assert.match(String(answer.version), /^3\.\d+\.\d+/);
      assert.ok(path.isAbsolute(String(answer.path)), "the interpreter's real path is absolute");
    },
  },
  {
    name: "a missing interpreter",
    query: { kind: "python", executable: path.join(scratch, "python9") },
    expect: (answer) => {
      assert.equal(answer.ok, false);
      assert.equal(answer.problem, "missing");
      assert.match(String(answer.error), /ENOENT/);
    },
  },
  {
    name: "a folder named as the interpreter",
    query: { kind: "python", executable: scratch },
    expect: (answer) => {
      assert.equal(answer.ok, false);
      assert.equal(answer.problem, "folder");
    },
  },
  {
    name: "an interpreter that fails reports its stderr",
    query: { kind: "python", executable: "/bin/sh" },
    expect: (answer) => {
      assert.equal(answer.ok, false);
      assert.match(String(answer.error), /import|not found|syntax|illegal option/i);
    },
  },
  {
    name: "a readable file",
    query: { kind: "file", path: textFile },
    expect: { kind: "file", path: textFile, ok: true, text: "A=1\nB=é\n" },
  },
  {
    name: "a missing file",
    query: { kind: "file", path: path.join(scratch, "nope.env") },
    expect: (answer) => {
      assert.equal(answer.ok, false);
      assert.match(String(answer.error), /ENOENT/);
    },
  },
  {
    name: "a directory is not a file",
    query: { kind: "file", path: scratch },
    expect: { kind: "file", path: scratch, ok: false, error: `${scratch} is not a file` },
  },
  {
    name: "an unknown kind is answered as a failure",
    query: { kind: "registry", key: "x" },
    expect: { kind: "registry", key: "x", ok: false, error: 'unknown fact kind "registry"' },
  },
  {
    name: "a malformed query is answered as a failure",
    query: { kind: "path" },
    expect: { kind: "path", ok: false, error: "malformed fact query" },
  },
];

for (const { name, query, expect } of cases) {
  test(`facts: ${name}`, async () => {
    const answer = (await answerQuery(query)) as Record<string, unknown>;
    if (typeof expect === "function") expect(answer);
    else assert.deepEqual(answer, expect);
  });
}

test("facts: queries run together and the answers keep their order", async () => {
  const queries = [
    { kind: "python", executable: "python3" },
    { kind: "env", name: "DAPPER_FACTS_TEST" },
    { kind: "path", path: textFile },
    { kind: "python", executable: path.join(scratch, "python9") },
  ];
  const answers = await gatherFacts(queries);
  assert.deepEqual(
    answers.map((answer) => answer.kind),
    ["python", "env", "path", "python"],
  );
  assert.equal((answers[0] as { ok: boolean }).ok, true);
  assert.equal((answers[3] as { ok: boolean }).ok, false);
});
