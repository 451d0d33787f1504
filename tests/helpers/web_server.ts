/**
 * Test helper: the site's web server, nginx or HAProxy, run as an unprivileged process on a free
 * port with its own prefix, pid file and logs in a temporary folder, in front of an app with aim
 * beside it, configured by what `aim proxy-config` prints. Started synchronously (the daemon's
 * parent exits once the port is bound), so that `startAim` stays synchronous for every test.
 *
 * @module
 */
import { join } from "node:path";
import { besidePatterns } from "../../bridge/upstream/beside_paths.ts";
import type { WebServerConfigOptions } from "../../bridge/upstream/beside_config.ts";
import { nginxConfig } from "../../bridge/upstream/beside_nginx.ts";
import { haproxyConfig } from "../../bridge/upstream/beside_haproxy.ts";

/** The web servers `aim proxy-config` writes for. */
export type WebServerKind = "nginx" | "haproxy";

/** Where Debian's packages put them. */
const BINARIES: Record<WebServerKind, string[]> = {
  nginx: ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"],
  haproxy: ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"],
};

function binary(kind: WebServerKind): string | undefined {
  return BINARIES[kind].find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
}

/** The web servers installed here. */
export const INSTALLED: Readonly<Record<WebServerKind, boolean>> = {
  nginx: binary("nginx") !== undefined,
  haproxy: binary("haproxy") !== undefined,
};

/** What a configuration check said. */
export interface ConfigCheck {
  ok: boolean;
  output: string;
}

/** Options of {@linkcode webServerConfig}. */
export interface WebServerTestConfig {
  /** The app's origin. */
  app: string;
  /** aim's origin. */
  aim: string;
  /** The port the web server listens on, on 127.0.0.1. */
  port: number;
  /** The routes aim registered (`bridge.routes`). */
  routes: readonly { path: string }[];
}

/** What `aim proxy-config KIND` prints for this setup. */
export function webServerConfig(kind: WebServerKind, config: WebServerTestConfig): string {
  const options: WebServerConfigOptions = {
    upstream: new URL(config.app),
    aim: new URL(config.aim),
    listen: `127.0.0.1:${config.port}`,
    patterns: besidePatterns(config.routes),
  };
  return kind === "nginx" ? nginxConfig(options) : haproxyConfig(options);
}

/**
 * nginx's own configuration around the generated file: one worker, every path in `dir`, and
 * regular expressions compiled to machine code, as docs/upstream.md asks of a site.
 */
function nginxMain(dir: string, daemon: boolean): string {
  return `daemon ${daemon ? "on" : "off"};
worker_processes 1;
pcre_jit on;
pid ${join(dir, "web.pid")};
error_log ${join(dir, "error.log")} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, "body")};
  proxy_temp_path ${join(dir, "proxy")};
  fastcgi_temp_path ${join(dir, "fastcgi")};
  uwsgi_temp_path ${join(dir, "uwsgi")};
  scgi_temp_path ${join(dir, "scgi")};
  include ${join(dir, "aim.conf")};
}
`;
}

/** HAProxy's own global section before the generated file. */
function haproxyGlobal(): string {
  return `global
  maxconn 1024
`;
}

/** The command line that runs (or with `check`, checks) the web server over the files in `dir`. */
function commandLine(kind: WebServerKind, dir: string, check: boolean): string[] {
  if (kind === "nginx") {
    return [
      ...(check ? ["-t"] : []),
      "-c",
      join(dir, "nginx.conf"),
      "-p",
      dir,
      "-e",
      join(dir, "error.log"),
    ];
  }
  return [
    ...(check ? ["-c"] : ["-D", "-p", join(dir, "web.pid")]),
    "-f",
    join(dir, "global.cfg"),
    "-f",
    join(dir, "aim.cfg"),
  ];
}

/** Writes the web server's files into `dir`: its own around `config`. */
function writeFiles(kind: WebServerKind, dir: string, config: string, daemon: boolean): void {
  if (kind === "nginx") {
    Deno.writeTextFileSync(join(dir, "nginx.conf"), nginxMain(dir, daemon));
    Deno.writeTextFileSync(join(dir, "aim.conf"), config);
  } else {
    Deno.writeTextFileSync(join(dir, "global.cfg"), haproxyGlobal());
    Deno.writeTextFileSync(join(dir, "aim.cfg"), config);
  }
}

function run(kind: WebServerKind, args: string[]): ConfigCheck {
  const path = binary(kind);
  if (!path) throw new Error(`${kind} is not installed (apt-get install ${kind})`);
  const out = new Deno.Command(path, { args, stdout: "piped", stderr: "piped" }).outputSync();
  const decoder = new TextDecoder();
  return { ok: out.success, output: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

/** Checks a generated configuration as `nginx -t` or `haproxy -c` does, in a scratch folder. */
export function checkConfig(kind: WebServerKind, config: string): ConfigCheck {
  const dir = Deno.makeTempDirSync({ prefix: `aim-${kind}-check-` });
  try {
    writeFiles(kind, dir, config, false);
    return run(kind, commandLine(kind, dir, true));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

/** A web server running as a daemon of this test process. */
export interface WebServer extends AsyncDisposable {
  readonly kind: WebServerKind;
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** The generated configuration it runs. */
  readonly config: string;
  /** The daemon's process id (nginx's master). */
  readonly pid: number;
  /** Its error log so far (nginx). */
  log(): string;
  /** Stops it (closing the connections under way) and waits until it has exited. */
  stop(): Promise<void>;
}

/** The daemons started and not stopped: stopped when the test process ends, whatever happens. */
const running = new Set<number>();
addEventListener("unload", () => {
  for (const pid of running) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
});

function alive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

/** A free port on 127.0.0.1 (listened on, read, closed). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts `kind` on a free port with the configuration `configFor(port)` gives; returns once it
 * listens. A port taken between its choice and the bind (tests run in parallel) is chosen again.
 */
export function startWebServer(
  kind: WebServerKind,
  configFor: (port: number) => string,
): WebServer {
  for (let attempt = 1;; attempt++) {
    const port = freePort();
    const dir = Deno.makeTempDirSync({ prefix: `aim-${kind}-` });
    const config = configFor(port);
    writeFiles(kind, dir, config, true);
    const started = run(kind, commandLine(kind, dir, false));
    const errorLog = () => {
      try {
        return Deno.readTextFileSync(join(dir, "error.log"));
      } catch {
        return "";
      }
    };
    if (!started.ok) {
      const output = started.output + errorLog();
      Deno.removeSync(dir, { recursive: true });
      if (attempt < 3 && /in use/i.test(output)) continue;
      throw new Error(`${kind} did not start:\n${output}\n${config}`);
    }
    const pid = Number(Deno.readTextFileSync(join(dir, "web.pid")).trim());
    running.add(pid);
    let stopping: Promise<void> | undefined;
    const stop = () =>
      stopping ??= (async () => {
        try {
          // A fast stop: the connections under way (keep-alive, WebSockets) are closed.
          Deno.kill(pid, "SIGTERM");
        } catch { /* exited */ }
        // Another process's exit: there is no event of it to wait on here.
        while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 10));
        running.delete(pid);
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      })();
    return {
      kind,
      url: `http://127.0.0.1:${port}`,
      port,
      config,
      pid,
      log: errorLog,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  }
}
