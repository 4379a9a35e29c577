// Terminal auto-attach (docs/auto-attach.md), the window's side without VS Code: the
// broker that Pythons started in the window's terminals ask to be debugged, and the
// environment that makes them ask. The VS Code wiring (settings, status bar, the
// terminals' environment, starting the session) is vscode/autoAttach.ts.
//
// A Python whose bootstrap decided to attach connects to the broker (loopback TCP), sends
// one JSON line {secret, pid, argv, cwd, program}, and gets one back: {listen: {host,
// port}}, where the session started for it listens (an attach with "listen"), or
// {attach: false}. A peer without the window's secret gets nothing and is closed.
import * as crypto from "crypto";
import * as net from "net";
import * as path from "path";

export const AUTO_ATTACH_MODES = ["disabled", "smart", "always", "onlyWithFlag"] as const;
export type AutoAttachMode = (typeof AUTO_ATTACH_MODES)[number];

export function isAutoAttachMode(value: unknown): value is AutoAttachMode {
  return typeof value === "string" && (AUTO_ATTACH_MODES as readonly string[]).includes(value);
}

/** What an attaching program says of itself. */
export interface AttachingProgram {
  pid: number;
  /** Its interpreter's whole command line. */
  argv: string[];
  cwd: string;
  /** The script or module file it runs, when it runs one. */
  program: string | null;
}

export interface ListenAt {
  host: string;
  port: number;
}

/**
 * Starts the session the program will connect to at `listen`. It need not wait for the
 * session: the program retries its connection for 10 s.
 */
export type StartSession = (program: AttachingProgram, listen: ListenAt) => void;

/** What the terminals are told, beyond the bootstrap's folder on PYTHONPATH. */
export interface TerminalSettings {
  mode: Exclude<AutoAttachMode, "disabled">;
  workspaceFolders: readonly string[];
  /** `dapper.autoAttachSmartPattern`, `${workspaceFolder}` expanded; empty: the default rule. */
  smartPatterns: readonly string[];
}

const HOST = "127.0.0.1";
// A request is one short JSON line; anything longer is not a bootstrap's.
const MAX_REQUEST_BYTES = 64 * 1024;
const REQUEST_DEADLINE_MS = 5000;

/** The folder on PYTHONPATH whose sitecustomize is the bootstrap. */
export function bootstrapDirOf(pythonPackageDir: string): string {
  return path.join(pythonPackageDir, "autoattach");
}

export class AutoAttachBroker {
  // 256 bits from the OS's CSPRNG; never logged.
  private readonly secret = crypto.randomBytes(32).toString("hex");

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly startSession: StartSession,
  ) {}

  /** Listens on a free loopback port. */
  static async open(startSession: StartSession): Promise<AutoAttachBroker> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, HOST, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const broker = new AutoAttachBroker(server, (server.address() as net.AddressInfo).port, startSession);
    server.on("connection", (socket) => broker.serve(socket));
    return broker;
  }

  /** The variables a terminal gets (their names all start with DAPPER_AUTO_ATTACH). */
  terminalEnvironment(settings: TerminalSettings, delimiter = path.delimiter): Record<string, string> {
    const environment: Record<string, string> = {
      DAPPER_AUTO_ATTACH: settings.mode,
      DAPPER_AUTO_ATTACH_BROKER: `${HOST}:${this.port}`,
      DAPPER_AUTO_ATTACH_SECRET: this.secret,
      DAPPER_AUTO_ATTACH_FOLDERS: settings.workspaceFolders.join(delimiter),
    };
    if (settings.smartPatterns.length > 0) environment.DAPPER_AUTO_ATTACH_PATTERNS = settings.smartPatterns.join(delimiter);
    return environment;
  }

  close(): void {
    this.server.close();
  }

  private serve(socket: net.Socket): void {
    let received = Buffer.alloc(0);
    const deadline = setTimeout(() => socket.destroy(), REQUEST_DEADLINE_MS);
    socket.on("error", () => socket.destroy());
    socket.on("close", () => clearTimeout(deadline));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf(0x0a);
      if (end < 0) {
        if (received.length > MAX_REQUEST_BYTES) socket.destroy();
        return;
      }
      socket.pause();
      clearTimeout(deadline);
      void this.answer(socket, received.subarray(0, end).toString("utf8"));
    });
  }

  private async answer(socket: net.Socket, line: string): Promise<void> {
    const program = this.programOf(line);
    if (program === undefined) {
      socket.destroy();
      return;
    }
    let reply: object = { attach: false };
    try {
      const listen = { host: HOST, port: await freePort(HOST) };
      this.startSession(program, listen);
      reply = { listen };
    } catch {
      // No free port, or the session could not start: the program runs undebugged.
    }
    socket.end(`${JSON.stringify(reply)}\n`);
  }

  /** The request's program, or undefined when it is not a request with the secret. */
  private programOf(line: string): AttachingProgram | undefined {
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (typeof request !== "object" || request === null) return undefined;
    const { secret, pid, argv, cwd, program } = request as Record<string, unknown>;
    if (typeof secret !== "string" || !sameSecret(secret, this.secret)) return undefined;
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return undefined;
    if (!Array.isArray(argv) || !argv.every((word) => typeof word === "string")) return undefined;
    if (typeof cwd !== "string" || (program !== null && typeof program !== "string")) return undefined;
    return { pid: pid as number, argv: argv as string[], cwd, program: program as string | null };
  }
}

/** Compares in constant time (the digests have one length whatever was sent). */
function sameSecret(given: string, secret: string): boolean {
  const digest = (text: string) => crypto.createHash("sha256").update(text).digest();
  return crypto.timingSafeEqual(digest(given), digest(secret));
}

/** A port nothing listens on now (the session listens there next). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** The session's name: the command line as typed, shortened (`python app.py --fast`). */
export function sessionName(program: AttachingProgram): string {
  const [interpreter = "python", ...rest] = program.argv;
  const words = [path.basename(interpreter), ...rest].map((word) => (/[\s"']/.test(word) || word === "" ? JSON.stringify(word) : word));
  const name = words.join(" ");
  return name.length > 80 ? `${name.slice(0, 79)}…` : name;
}

/**
 * The attach configuration of the session started for a program. `__dapperTerminalProgram`
 * (the engine's TERMINAL_PROGRAM_KEY, core/src/config.rs) names the program in the debug
 * console's "waiting to connect" line, instead of telling the user to start it.
 */
export function attachConfiguration(
  program: AttachingProgram,
  listen: ListenAt,
): { type: string; request: string; name: string; listen: ListenAt; __dapperTerminalProgram: string } {
  const name = sessionName(program);
  return { type: "dapper", request: "attach", name, listen: { host: listen.host, port: listen.port }, __dapperTerminalProgram: `${name} (pid ${program.pid})` };
}
