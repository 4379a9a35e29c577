import assert from "assert/strict";
import { test } from "node:test";
import { delay, Recorder, testLogger, waitFor } from "../../testing/standIns";
import { Timers } from "./timers";

test("a timer fires once with its id", async () => {
  const recorder = new Recorder();
  const timers = new Timers(recorder.report, testLogger().logger);
  timers.setTimer(7, 10);
  await recorder.waitFor("timerFired");
  await delay(30);
  assert.deepEqual(recorder.inputs, [{ type: "timerFired", timer: 7 }]);
  assert.equal(timers.size, 0);
});

test("a cancelled timer never fires", async () => {
  const recorder = new Recorder();
  const timers = new Timers(recorder.report, testLogger().logger);
  timers.setTimer(1, 20);
  timers.setTimer(2, 30);
  timers.cancelTimer(1);
  await recorder.waitFor("timerFired");
  await delay(40);
  assert.deepEqual(recorder.inputs, [{ type: "timerFired", timer: 2 }]);
});

test("timers fire in the order of their deadlines", async () => {
  const recorder = new Recorder();
  const timers = new Timers(recorder.report, testLogger().logger);
  for (const [id, ms] of [[1, 40], [2, 0], [3, 20]]) timers.setTimer(id, ms);
  await waitFor(() => (recorder.inputs.length === 3 ? true : undefined), "three timers");
  assert.deepEqual(recorder.inputs.map((input) => (input as { timer: number }).timer), [2, 3, 1]);
});

test("setting a pending timer id again replaces it", async () => {
  const recorder = new Recorder();
  const timers = new Timers(recorder.report, testLogger().logger);
  timers.setTimer(5, 10);
  const replaced = Date.now();
  timers.setTimer(5, 60);
  await recorder.waitFor("timerFired");
  // Timers never fire early, so this holds however loaded the machine is.
  assert.ok(Date.now() - replaced >= 55, "the timer fired on the new deadline, not the old one");
  await delay(30);
  assert.equal(recorder.inputs.length, 1);
});

test("cancelling an unknown timer and disposing are harmless, and disposed timers stay silent", async () => {
  const recorder = new Recorder();
  const timers = new Timers(recorder.report, testLogger().logger);
  timers.cancelTimer(99);
  timers.setTimer(1, 5);
  timers.dispose();
  timers.setTimer(2, 5);
  await delay(30);
  assert.deepEqual(recorder.inputs, []);
});
