/**
 * The load balancer configurations of docs/scaling.md, as written there, checked by the programs
 * they are for: HAProxy's with `haproxy -c`, nginx's with `nginx -t`. Each is skipped, saying
 * why, where its program is missing. The certificate paths are the only change.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp.ts";

const DOC = new URL("../../docs/scaling.md", import.meta.url);
const NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((path) => existsSync(path));
const HAPROXY = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((path) => existsSync(path));
const OPENSSL = ["/usr/bin/openssl"].find((path) => existsSync(path));

for (const [program, path] of [["nginx", NGINX], ["haproxy", HAPROXY], ["openssl", OPENSSL]]) {
  if (!path) {
    console.warn(
      `${program} is missing: docs/scaling.md's balancer configurations that need it are not ` +
        `checked (apt-get install ${program}).`,
    );
  }
}

/** The one fenced block of `language` in docs/scaling.md. */
async function block(language: string): Promise<string> {
  const doc = await Deno.readTextFile(DOC);
  const blocks = [...doc.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))];
  assert.equal(blocks.length, 1, `docs/scaling.md has one ${language} block`);
  return blocks[0]![1]!;
}

/** A self-signed certificate and its key, as PEM files in `dir`. */
async function certificate(dir: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, "shop.pem");
  const key = join(dir, "shop.key");
  const made = await new Deno.Command(OPENSSL!, {
    args: [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj"],
      ...["/CN=shop.example", "-keyout", key, "-out", cert],
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(made.code, 0, new TextDecoder().decode(made.stderr));
  return { cert, key };
}

async function run(binary: string, args: string[]): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(binary, { args, stdout: "piped", stderr: "piped" }).output();
  const decoder = new TextDecoder();
  return { code: out.code, output: decoder.decode(out.stdout) + decoder.decode(out.stderr) };
}

Deno.test({
  name: "docs/scaling.md's nginx configuration passes nginx -t, WebSocket map included",
  ignore: !NGINX || !OPENSSL,
  async fn() {
    await using dir = await tempDir("aim-nginx-");
    const { cert, key } = await certificate(dir.path);
    const http = (await block("nginx"))
      .replace("/etc/nginx/shop.pem", cert)
      .replace("/etc/nginx/shop.key", key);
    assert.match(http, /map \$http_upgrade \$connection_upgrade \{/);
    const conf = join(dir.path, "nginx.conf");
    await Deno.writeTextFile(
      conf,
      `pid ${join(dir.path, "nginx.pid")};\nerror_log stderr;\nevents {}\n` +
        `http {\n  access_log off;\n${http}}\n`,
    );
    const checked = await run(NGINX!, ["-t", "-q", "-p", dir.path, "-c", conf, "-e", "stderr"]);
    assert.equal(checked.code, 0, checked.output);
    // Without the map, nginx refuses the configuration: the check can fail.
    const unmapped = http.replace(/map \$http_upgrade[\s\S]*?\n\}\n/, "");
    await Deno.writeTextFile(
      conf,
      `pid ${join(dir.path, "nginx.pid")};\nerror_log stderr;\nevents {}\n` +
        `http {\n  access_log off;\n${unmapped}}\n`,
    );
    const refused = await run(NGINX!, ["-t", "-q", "-p", dir.path, "-c", conf, "-e", "stderr"]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.output, /unknown "connection_upgrade" variable/);
  },
});

Deno.test({
  name: "docs/scaling.md's HAProxy configuration passes haproxy -c and checks /__aim/health",
  ignore: !HAPROXY || !OPENSSL,
  async fn() {
    await using dir = await tempDir("aim-haproxy-docs-");
    const { cert, key } = await certificate(dir.path);
    // HAProxy takes the certificate and its key in one file.
    const pem = join(dir.path, "both.pem");
    await Deno.writeTextFile(pem, await Deno.readTextFile(cert) + await Deno.readTextFile(key));
    const config = (await block("haproxy")).replace("/etc/haproxy/shop.pem", pem);
    assert.match(config, /option httpchk GET \/__aim\/health/);
    const file = join(dir.path, "haproxy.cfg");
    await Deno.writeTextFile(file, config);
    const checked = await run(HAPROXY!, ["-c", "-q", "-f", file]);
    assert.equal(checked.code, 0, checked.output);
  },
});
