-- Drives nvim-dap as a Neovim user would, for test/nvim/nvim.test.ts:
--   nvim --clean --headless -l driver.lua SCENARIO.json REPORT.json
-- The scenario names the nvim-dap checkout, the adapter definition (either of nvim-dap's
-- forms), a configuration, breakpoints (file and line) and how many stops to expect. At
-- each stop the driver reads what nvim-dap shows (its thread's frames, the top frame's
-- first scope and its variables) and continues with dap.continue(), as a user would, or
-- at the last stop ends the session with dap.terminate() when `endWith` says so. When
-- every session is over and nvim-dap's adapter processes have exited, it writes a JSON
-- report: the stops, the breakpoint signs, the events, the output, the exit code and
-- every notification nvim-dap showed. A failure is reported, never raised, so the test
-- sees how far the session got. A stop may instead have an action (scenario.actions, by
-- the stop's number): edit a file, hot reload it through the session as a user's mapping
-- would, and restart a frame with dap.restart_frame() after moving up to it with dap.up().

local scenario_path, report_path = arg[1], arg[2]

local report = {
  stops = {},
  events = {},
  output = {},
  notifications = {},
  processes = {},
  sessions = {},
  reloads = {},
  breakpointsAtFirstStop = nil,
  breakpointsAtEnd = nil,
  exitCode = nil,
  adapterProcessesLeft = nil,
  error = nil,
}

local function read_file(path)
  local file = assert(io.open(path, "r"))
  local text = file:read("*a")
  file:close()
  return text
end

local function write_file(path, text)
  local file = assert(io.open(path, "w"))
  file:write(text)
  file:close()
end

local function write_report()
  local file = assert(io.open(report_path, "w"))
  file:write(vim.json.encode(report))
  file:close()
end

local scenario = vim.json.decode(read_file(scenario_path))
local timeout_ms = scenario.timeoutMs or 30000

-- Every notification nvim-dap shows the user (errors, warnings such as "command `node`
-- of adapter `dapper` exited with 143", infos) is kept, and nothing is printed.
vim.notify = function(message, level)
  table.insert(report.notifications, { message = tostring(message), level = level or vim.log.levels.INFO })
end

vim.opt.rtp:prepend(scenario.nvimDap)
local dap = require("dap")
dap.set_log_level(scenario.logLevel or "INFO")

local function wait_for(what, predicate, ms)
  if not vim.wait(ms or timeout_ms, predicate, 20) then
    error("timed out waiting for " .. what, 2)
  end
end

--- A request through nvim-dap's session, waited for.
local function request(session, command, arguments)
  local done, failure, result = false, nil, nil
  session:request(command, arguments, function(err, response)
    failure, result, done = err, response, true
  end)
  wait_for(command .. " response", function()
    return done
  end)
  if failure then
    error(command .. " failed: " .. tostring(failure.message or vim.inspect(failure)), 2)
  end
  return result
end

-- What the user sees of each breakpoint: its line, its sign (DapBreakpoint, or
-- DapBreakpointRejected for one the adapter left unverified) and the adapter's message.
local function breakpoint_view()
  local view = {}
  for bufnr, bps in pairs(require("dap.breakpoints").get()) do
    local name = vim.api.nvim_buf_get_name(bufnr)
    for _, bp in ipairs(bps) do
      local placed = vim.fn.sign_getplaced(bufnr, { group = "dap_breakpoints", lnum = bp.line })
      local signs = (placed[1] or {}).signs or {}
      table.insert(view, {
        path = name,
        line = bp.line,
        sign = signs[1] and signs[1].name or vim.NIL,
        verified = bp.state and bp.state.verified,
        message = bp.state and bp.state.message or vim.NIL,
      })
    end
  end
  table.sort(view, function(a, b)
    return a.path < b.path or (a.path == b.path and a.line < b.line)
  end)
  return view
end

local stopped = {}
-- The frame nvim-dap showed at the previous stop of each session: a new stop is shown once
-- nvim-dap has fetched its stack and moved to another frame object.
local shown_frame = {}

--- The session as the report shows it: its name, type and parent session.
local function note_session(session)
  local entry = report.sessions[tostring(session.id)] or {}
  entry.name = session.config.name
  entry.type = session.config.type
  -- nvim-dap forgets a child's parent when the child closes; the report keeps it.
  if session.parent then
    entry.parent = session.parent.id
  elseif entry.parent == nil then
    entry.parent = vim.NIL
  end
  report.sessions[tostring(session.id)] = entry
  return entry
end

local function remember_event(name, fn)
  dap.listeners.after["event_" .. name]["dapper-test"] = function(session, body)
    note_session(session)
    table.insert(report.events, { event = name, session = session.id })
    if fn then
      fn(session, body or {})
    end
  end
end

remember_event("initialized")
remember_event("process", function(session, body)
  table.insert(report.processes, { session = session.id, pid = body.systemProcessId or vim.NIL, name = body.name })
end)
remember_event("breakpoint")
remember_event("stopped", function(session, body)
  table.insert(stopped, { session = session, body = body })
end)
remember_event("exited", function(session, body)
  report.exitCode = body.exitCode
  note_session(session).exitCode = body.exitCode
end)
remember_event("terminated")
remember_event("output", function(_, body)
  local category = body.category or "console"
  report.output[category] = (report.output[category] or "") .. (body.output or "")
end)
local function run()
  dap.adapters[scenario.adapterName] = scenario.adapter

  for _, bp in ipairs(scenario.breakpoints or {}) do
    local bufnr = vim.fn.bufadd(bp.path)
    vim.fn.bufload(bufnr)
    require("dap.breakpoints").set({}, bufnr, bp.line)
  end

  dap.run(scenario.configuration)

  for index = 1, scenario.stops or 0 do
    wait_for("stop " .. index, function()
      return #stopped >= index
    end)
    local stop = stopped[index]
    local session = stop.session
    -- nvim-dap fetches the stopped thread's frames and jumps to the top one.
    wait_for("the frames of stop " .. index, function()
      local frame = session.current_frame
      return frame ~= nil and frame ~= shown_frame[session.id] and session.stopped_thread_id ~= nil
    end)
    shown_frame[session.id] = session.current_frame
    local thread = session.threads[stop.body.threadId]
    local frames = {}
    for _, frame in ipairs(thread.frames or {}) do
      table.insert(frames, {
        name = frame.name,
        line = frame.line,
        path = frame.source and frame.source.path or vim.NIL,
      })
    end
    local scopes = request(session, "scopes", { frameId = session.current_frame.id }).scopes
    local variables = {}
    if scopes[1] then
      for _, variable in ipairs(request(session, "variables", { variablesReference = scopes[1].variablesReference }).variables) do
        variables[variable.name] = variable.value
      end
    end
    table.insert(report.stops, {
      session = session.id,
      reason = stop.body.reason,
      frames = frames,
      scope = scopes[1] and scopes[1].name or vim.NIL,
      variables = variables,
    })
    if index == 1 then
      report.breakpointsAtFirstStop = breakpoint_view()
    end
    dap.set_session(session)
    local action = (scenario.actions or {})[tostring(index)]
    if action then
      -- The user edits the file and saves it, then reloads it and restarts a frame.
      local text = read_file(action.edit.path)
      local first, last = text:find(action.edit.from, 1, true)
      assert(first, "the edit applies: " .. action.edit.from)
      write_file(action.edit.path, text:sub(1, first - 1) .. action.edit.to .. text:sub(last + 1))
      table.insert(report.reloads, request(session, "dapper/hotReload", { source = { path = action.edit.path } }))
      for _ = 1, action.up or 0 do
        dap.up()
      end
      dap.restart_frame()
    elseif index == scenario.stops and scenario.endWith == "terminate" then
      -- The user stops the session (:DapTerminate) instead of letting the program finish.
      dap.terminate()
    else
      dap.continue()
    end
  end

  -- A session ends with the adapter's `terminated` event, or at once when the user
  -- terminated it (nvim-dap closes it on the terminate response).
  wait_for("every session to end", function()
    return next(dap.sessions()) == nil
  end)
  report.breakpointsAtEnd = breakpoint_view()
end

local ok, failure = xpcall(run, debug.traceback)
if not ok then
  report.error = failure
end

-- nvim-dap ends an adapter it started once the session is over (stdin closed and SIGINT
-- for the executable form, SIGTERM for a server it started) and shows a warning when the
-- adapter exits with a non-zero status. Wait for those processes to be gone, then let the
-- scheduled notifications run.
local nvim_pid = vim.fn.getpid()
vim.wait(10000, function()
  return #vim.api.nvim_get_proc_children(nvim_pid) == 0
end, 50)
report.adapterProcessesLeft = #vim.api.nvim_get_proc_children(nvim_pid)
vim.wait(200)
report.logFile = require("dap.log").create_logger("dap.log"):get_path()

write_report()
