// Terminal auto-attach's command, settings and how its modes are shown (no VS Code API
// here: the manifest's tests read them).
import type { AutoAttachMode } from "../autoAttach/broker";

export const TOGGLE_AUTO_ATTACH_COMMAND = "dapper.toggleAutoAttach";
export const MODE_SETTING = "autoAttach";
export const PATTERN_SETTING = "autoAttachSmartPattern";

export const MODE_LABELS: Record<AutoAttachMode, { label: string; detail: string }> = {
  disabled: { label: "Disabled", detail: "Pythons run in the terminal are not debugged." },
  smart: { label: "Smart", detail: "Debug the workspace's scripts and modules (and pytest, unittest, flask), not installed tools." },
  always: { label: "Always", detail: "Debug every Python run in the terminal." },
  onlyWithFlag: { label: "Only With Flag", detail: "Debug Pythons run with DAPPER_DEBUG=1 or `python -X dapper`." },
};
