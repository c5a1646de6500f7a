// A code host's git endpoint for tests, speaking git's smart HTTP protocol through `git http-backend` (CGI) over
// the bare repositories under --root. Like the real code host with an App installation token, it takes HTTP Basic
// `x-access-token:<token>` (the token read from --token-file) and answers 401 otherwise. HTTPS with --cert/--key,
// plain HTTP without. It prints one JSON line when ready ({ready, port}) and one per request
// ({method, url, user, authorized}); never the credentials it received.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer as createHttp } from "node:http";
import { createServer as createHttps } from "node:https";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    root: { type: "string" },
    "token-file": { type: "string" },
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    cert: { type: "string" },
    key: { type: "string" },
  },
});
const token = readFileSync(values["token-file"], "utf8").trim();
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

function credentialsOf(header) {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? "");
  if (!match) return { user: null, password: null };
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function handle(req, res) {
  const url = new URL(req.url, "http://x");
  const { user, password } = credentialsOf(req.headers.authorization);
  const authorized = user === "x-access-token" && password === token;
  say({ method: req.method, url: req.url, user, authorized });
  if (!authorized) {
    req.resume();
    res.writeHead(401, { "www-authenticate": 'Basic realm="test code host"' }).end("bad credentials\n");
    return;
  }
  const cgi = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: values.root,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method,
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_USER: user,
      REMOTE_ADDR: req.socket.remoteAddress ?? "",
      ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
      ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: req.headers["git-protocol"] } : {}),
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  req.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let started = false;
  cgi.stdout.on("data", (chunk) => {
    if (started) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const text = head.toString("latin1");
    const end = text.search(/\r?\n\r?\n/);
    if (end === -1) return;
    const separator = /\r?\n\r?\n/.exec(text.slice(end))[0].length;
    let status = 200;
    const headers = {};
    for (const line of text.slice(0, end).split(/\r?\n/)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "status") status = Number(value.split(" ")[0]);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    started = true;
    res.write(head.subarray(end + separator));
  });
  cgi.on("close", () => {
    if (!started) res.writeHead(500).end("git http-backend said nothing\n");
    else res.end();
  });
}

const server = values.cert
  ? createHttps({ cert: readFileSync(values.cert), key: readFileSync(values.key) }, handle)
  : createHttp(handle);
server.listen(Number(values.port), values.host, () => say({ ready: true, port: server.address().port }));
