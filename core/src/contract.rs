//! The contract between the host and the engine: the facts the host reports
//! (`Input`), the commands the engine gives (`Output`), the ids both name things by
//! and the options the engine is built with. docs/engine-io.md describes it; the serde
//! derives here are its single source of truth, and the host's TypeScript copy of it
//! (extension/src/host/contract.ts) is generated from them (`typescript`, test builds
//! only). Everything else in the crate builds on this module, and it builds on nothing
//! of the crate's but the JSON text type.

mod ids;
#[cfg(test)]
mod typescript;

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::dap::raw::JsonText;
pub use ids::{
    ClientId, ConnectRequestId, ConnectionId, FactRequestId, InjectionId, ListenerId, ProcessId,
    TimerId,
};

/// The base64 of byte payloads in JSON: the standard alphabet, written padded; read
/// padded or not, because some encoders drop the padding and nothing is ambiguous
/// without it.
pub(crate) const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Bytes that travel as a base64 string (standard alphabet, padded) in JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(type = "string"))]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&BASE64.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        BASE64
            .decode(text)
            .map(Bytes)
            .map_err(serde::de::Error::custom)
    }
}

/// The operating system the host runs on, as Node's `process.platform` names it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Linux,
    Darwin,
    Win32,
    /// Any other POSIX system Node runs on (freebsd, openbsd, …); treated like Linux.
    #[serde(other)]
    #[cfg_attr(test, ts(skip))]
    OtherPosix,
}

impl Platform {
    pub fn is_windows(self) -> bool {
        self == Platform::Win32
    }
}

/// How the engine is configured once, when the host creates it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineOptions {
    /// The directory holding the `dapper` Python package; prepended to `PYTHONPATH`.
    pub python_package_dir: String,
    pub platform: Platform,
    /// OS randomness for the session tokens, as hex: 16 bytes (32 characters) a token,
    /// each used once; the engine asks for more with `gatherRandomness`.
    pub randomness: String,
    #[serde(default)]
    pub adapter_version: String,
    /// The host's own working directory: where a program launched without `cwd` runs.
    /// A spawned program inherits it anyway; a terminal the client opens does not, so
    /// `runInTerminal` names it. Empty: unknown, and the client's terminal decides.
    #[serde(default)]
    pub working_directory: String,
}

/// How a DAP client's messages reach the engine.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Framing {
    /// The host passes DAP objects; the engine answers with `sendToClient`.
    Messages,
    /// The host passes a Content-Length framed byte stream; the engine answers with
    /// framed bytes in `writeToClient`.
    ContentLength,
}

/// Which output stream of a process some bytes came from.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Where a listener ended up listening.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transport", rename_all = "camelCase")]
pub enum Address {
    Tcp { host: String, port: u16 },
    Unix { path: String },
}

/// How a DAP client is connected to the adapter.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ClientTransport {
    /// VS Code's inline adapter: served as any client (stdio and child clients are
    /// the kinds the engine treats apart).
    Inline,
    /// The standalone adapter's stdin/stdout (one adapter process per root session).
    Stdio,
    /// A connection to the standalone adapter's `--port` server.
    Tcp,
    /// A connection accepted on the engine's `clients` listener: it may only attach
    /// to a waiting child process.
    ChildClient,
    #[serde(other)]
    #[cfg_attr(test, ts(skip))]
    Other,
}

/// What the peers of a listener are.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ListenerPurpose {
    /// DAP clients (child sessions of stdio clients), Content-Length framed.
    Clients,
    /// A user's attach that waits for the program to connect (attach `listen` on a
    /// loopback host): its peers are debuggees, reported as `connectionAccepted` once
    /// the host has judged them, as the standalone `--port` server judges its clients:
    /// on Linux a peer must be a socket of this machine that belongs to the host's
    /// user. A refused peer is closed and reported as `peerRefused`.
    Attach,
    /// As `attach`, for a listener the user opened to other machines (a host that is
    /// not loopback): a peer that is not a socket of this machine is admitted too.
    AttachRemote,
}

/// The transport of a listener the engine asks for.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Transport {
    Tcp,
    Unix,
}

/// A question about the host's world (see docs/engine-io.md, "Fact queries").
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum FactQuery {
    Path { path: String },
    Env { name: String },
    Python { executable: String },
    File { path: String },
}

/// The host's answer to one `FactQuery`.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(test, ts(optional_fields))]
pub enum FactAnswer {
    Path {
        path: String,
        #[serde(default)]
        exists: bool,
        #[serde(default)]
        is_file: bool,
        #[serde(default)]
        is_directory: bool,
    },
    Env {
        name: String,
        /// `null`: the variable is not set.
        #[serde(default)]
        #[cfg_attr(test, ts(optional = nullable))]
        value: Option<String>,
    },
    Python {
        executable: String,
        ok: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        version: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        /// Why it could not be run, for the message: a key of `messages::PYTHON_PROBLEMS`
        /// (`missing`, `folder`, `notExecutable`, `notPython`, `noAnswer`, `failed`).
        /// Absent: `failed`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
        /// What the problem names (`{detail}`): the interpreter's own words, a timeout.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    File {
        path: String,
        ok: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

/// A fact the host reports. Named in the past tense.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Input {
    ClientOpened {
        client: ClientId,
        framing: Framing,
        /// How the client reaches the adapter; only `stdio` changes anything: such a
        /// client cannot open a second session on its adapter process, so child
        /// sessions are told to connect to the engine's client listener.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        transport: Option<ClientTransport>,
    },
    ClientMessage {
        client: ClientId,
        #[cfg_attr(test, ts(type = "DapMessage"))]
        message: JsonText,
    },
    ClientBytes {
        client: ClientId,
        data: Bytes,
    },
    ClientClosed {
        client: ClientId,
    },
    /// How many bytes written to a byte-stream client wait for it to take them: reported
    /// each time the count passes another MiB, and as 0 once the client has taken them
    /// all. The engine pauses reading the session's debuggee while the client is behind
    /// (`pauseReading`).
    ClientBacklog {
        client: ClientId,
        bytes: u64,
    },
    ListenerOpened {
        listener: ListenerId,
        address: Address,
    },
    ListenerFailed {
        listener: ListenerId,
        error: String,
    },
    ConnectionAccepted {
        listener: ListenerId,
        conn: ConnectionId,
    },
    /// The host refused (and closed) a peer of an `attach` listener: why.
    PeerRefused {
        listener: ListenerId,
        reason: String,
    },
    ConnectionBytes {
        conn: ConnectionId,
        data: Bytes,
    },
    ConnectionClosed {
        conn: ConnectionId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        error: Option<String>,
    },
    ProcessSpawned {
        process: ProcessId,
        pid: u32,
    },
    SpawnFailed {
        process: ProcessId,
        error: String,
    },
    ProcessOutput {
        process: ProcessId,
        stream: Stream,
        data: Bytes,
    },
    ProcessExited {
        process: ProcessId,
        code: Option<i64>,
        signal: Option<String>,
    },
    TimerFired {
        timer: TimerId,
    },
    FactsGathered {
        request: FactRequestId,
        facts: Vec<FactAnswer>,
    },
    /// A `connect` succeeded: `conn` (numbered by the host, like accepted connections)
    /// then reports `connectionBytes` and `connectionClosed`.
    Connected {
        request: ConnectRequestId,
        conn: ConnectionId,
    },
    /// A `connect` failed (refused, unknown host, unreachable…): the OS error's text.
    ConnectFailed {
        request: ConnectRequestId,
        error: String,
    },
    /// The answer to `gatherRandomness`: that many bytes from the OS CSPRNG, as hex.
    RandomnessGathered {
        hex: String,
    },
    /// The bootstrap of `inject` was handed to the target process (it runs there at the
    /// interpreter's next chance; its connection arrives on the listener).
    Injected {
        injection: InjectionId,
        /// How it was injected, for the log and the deadline's error ("sys.remote_exec
        /// with /usr/bin/python3.14", "gdb /usr/bin/gdb").
        method: String,
    },
    /// The bootstrap could not be injected: the reason names the cause and the fix.
    InjectFailed {
        injection: InjectionId,
        reason: String,
    },
}

/// What `pauseReading` and `resumeReading` stop and start reading.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReadSource {
    /// A byte-stream client's requests.
    Client(ClientId),
    /// A debuggee's connection.
    Conn(ConnectionId),
    /// A spawned process's stdout and stderr.
    Process(ProcessId),
}

/// What `kill` signals.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum KillTarget {
    Process(ProcessId),
    Pid(u32),
}

/// The signals the engine sends.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Signal {
    #[serde(rename = "SIGTERM")]
    Term,
    #[serde(rename = "SIGKILL")]
    Kill,
    #[serde(rename = "SIGINT")]
    Int,
}

/// Log levels, most severe first.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

/// A command for the host. Named as a verb.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(test, ts(optional_fields))]
pub enum Output {
    SendToClient {
        client: ClientId,
        #[cfg_attr(test, ts(type = "DapMessage"))]
        message: JsonText,
    },
    WriteToClient {
        client: ClientId,
        data: Bytes,
    },
    CloseClient {
        client: ClientId,
    },
    OpenListener {
        listener: ListenerId,
        transport: Transport,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        host: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        port: Option<u16>,
        /// Absent: a debuggee listener, whose peers are reported as `connectionAccepted`.
        /// `clients`: its peers are DAP clients, reported as `clientOpened`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        purpose: Option<ListenerPurpose>,
    },
    CloseListener {
        listener: ListenerId,
    },
    Send {
        conn: ConnectionId,
        data: Bytes,
    },
    Close {
        conn: ConnectionId,
    },
    Spawn {
        process: ProcessId,
        argv: Vec<String>,
        /// Absent: the host's own working directory.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        #[cfg_attr(test, ts(type = "{ [name: string]: string | null }"))]
        env: serde_json::Map<String, Value>,
    },
    Kill {
        target: KillTarget,
        signal: Signal,
        tree: bool,
    },
    /// Stop reading from the source until `resumeReading`: the writer blocks once the
    /// pipe's or socket's buffer is full, so nothing piles up in the adapter while the
    /// client it goes to is behind.
    PauseReading {
        from: ReadSource,
    },
    ResumeReading {
        from: ReadSource,
    },
    /// The spawned process is no longer the engine's: a debuggee left running after a
    /// detach (`terminateDebuggee: false`). The host stops tracking it: it is never
    /// killed when the host goes away, and nothing more of it is reported.
    Disown {
        process: ProcessId,
    },
    SetTimer {
        timer: TimerId,
        after_ms: u64,
    },
    CancelTimer {
        timer: TimerId,
    },
    GatherFacts {
        request: FactRequestId,
        queries: Vec<FactQuery>,
    },
    Log {
        level: LogLevel,
        message: String,
    },
    /// Answer with `randomnessGathered`: this many bytes from the OS CSPRNG, for the
    /// session tokens.
    GatherRandomness {
        bytes: u32,
    },
    /// Open an outgoing TCP connection (attach to a debuggee started with
    /// `python -m dapperdbg --listen`); answered by `connected` or `connectFailed`.
    Connect {
        request: ConnectRequestId,
        host: String,
        port: u16,
    },
    /// Run a bootstrap inside the running Python process `pid` (attach by process id:
    /// `sys.remote_exec` on 3.14+, gdb or lldb before) that imports the debuggee package
    /// from `package_dir` and connects to `address` with `token` (never on a command
    /// line, never in a world-readable file) as session `session_id`; answered by
    /// `injected` or `injectFailed`.
    Inject {
        injection: InjectionId,
        pid: u32,
        address: Address,
        token: String,
        session_id: String,
        package_dir: String,
        /// The debugger to inject with (the attach configuration's `debuggerPath`);
        /// absent: the host's choice (sys.remote_exec, else gdb or lldb on PATH).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        debugger: Option<String>,
    },
}
