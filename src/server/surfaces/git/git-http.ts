// The local code host over git's smart HTTP protocol, for sandbox boxes: a box has no route but the proxy and
// the service's own address, and the service never clones for the agent (DESIGN "Who makes the checkout"), so
// the agent clones and pushes here, as it would at a real code host. Authenticated with the sandbox lease (HTTP
// Basic, any user name); a lease reaches only the connected repositories of its own workspace, and each use is
// sandbox activity. `git http-backend` (CGI) does the protocol, on the bare repositories the service owns.
import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { CODEHOST_GIT_BASE_PATH } from "../../adapters/codehost/box-git.js";
import { touchActivity } from "../../adapters/sandboxes/store.js";
import { hashCredential } from "../../primitives/tokens.js";
import { HttpError, notFound, payloadTooLarge } from "../http/http-error.js";
import { createSurface } from "../http/surface.js";
import { parseCgiHead } from "./cgi.js";
import type { GitRouteDeps } from "./deps.js";

export { CODEHOST_GIT_BASE_PATH };

/** A push bigger than this is refused (413). */
export const MAX_GIT_REQUEST_BYTES = 256 * 1024 * 1024;
const GIT_REQUEST_TIMEOUT_MS = 10 * 60 * 1000;
/** The smart-protocol endpoints; the dumb protocol's file paths are not served. */
const SMART_PATHS = new Set(["/info/refs", "/git-upload-pack", "/git-receive-pack"]);

const challenge = () =>
  new HttpError(401, "invalid_token", "send the sandbox lease as the HTTP Basic password", {
    "www-authenticate": 'Basic realm="baton code host"',
  });

function leaseOf(authorization: string | undefined): string | undefined {
  const match = /^Basic ([A-Za-z0-9+/=]{1,2048})$/.exec(authorization ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : undefined;
}

export function createCodehostGitApp(deps: GitRouteDeps) {
  const app = createSurface();
  app.all("/:owner/:name{[A-Za-z0-9_.-]+\\.git}/*", async (c) => {
    const { owner, name } = c.req.param();
    if (!/^[A-Za-z0-9_.-]+$/.test(owner)) throw notFound("no such repository");
    const lease = leaseOf(c.req.header("authorization"));
    if (!lease) throw challenge();
    const nowMs = deps.now().getTime();
    const sandbox = (await deps.db.get(
      `SELECT s.id, s.lease_expires_at_ms, e.workspace_id FROM sandboxes s
         JOIN engagements e ON e.id = s.engagement_id WHERE s.lease_hash = ?`,
      [hashCredential(lease)],
    )) as { id: string; lease_expires_at_ms: number; workspace_id: string } | undefined;
    if (!sandbox || sandbox.lease_expires_at_ms <= nowMs) throw challenge();
    await touchActivity(deps.db, sandbox.id, nowMs);
    const repo = `${owner}/${name.slice(0, -".git".length)}`;
    const connected = await deps.db.get(
      "SELECT 1 FROM repositories WHERE workspace_id = ? AND slug = ? AND connected = 1",
      [sandbox.workspace_id, repo],
    );
    if (!connected) throw notFound(`no repository ${repo} is connected to this sandbox's workspace`);
    const prefix = `/${owner}/${name}`;
    const rest = c.req.path.slice(c.req.path.indexOf(prefix) + prefix.length);
    if (!SMART_PATHS.has(rest)) throw notFound("only git's smart HTTP protocol is served");
    const url = new URL(await deps.tasks.codehost.gitUrl(sandbox.workspace_id, repo));
    if (url.protocol !== "file:") throw notFound("this code host is not served by baton serve");
    const dir = fileURLToPath(url);
    return runHttpBackend(c.req.raw, {
      projectRoot: dirname(dirname(dir)),
      pathInfo: `${prefix}${rest}`,
      remoteUser: sandbox.id,
    });
  });
  return app;
}

async function runHttpBackend(
  request: Request,
  cgi: { projectRoot: string; pathInfo: string; remoteUser: string },
): Promise<Response> {
  const url = new URL(request.url);
  const header = (name: string) => request.headers.get(name) ?? "";
  const child = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_PROJECT_ROOT: cgi.projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      // Set, it turns on receive-pack (pushes) for this request.
      REMOTE_USER: cgi.remoteUser,
      REMOTE_ADDR: "127.0.0.1",
      REQUEST_METHOD: request.method,
      PATH_INFO: cgi.pathInfo,
      QUERY_STRING: url.search.replace(/^\?/, ""),
      CONTENT_TYPE: header("content-type"),
      ...(request.headers.has("content-length") ? { CONTENT_LENGTH: header("content-length") } : {}),
      HTTP_CONTENT_ENCODING: header("content-encoding"),
      GIT_PROTOCOL: header("git-protocol"),
    },
    stdio: ["pipe", "pipe", "ignore"],
    timeout: GIT_REQUEST_TIMEOUT_MS,
  });
  let tooLarge = false;
  if (request.body) {
    let bytes = 0;
    const body = Readable.fromWeb(request.body as import("node:stream/web").ReadableStream);
    body.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_GIT_REQUEST_BYTES && !tooLarge) {
        tooLarge = true;
        body.destroy();
        child.kill("SIGKILL");
      }
    });
    body.on("error", () => child.stdin.destroy());
    child.stdin.on("error", () => body.destroy());
    body.pipe(child.stdin);
  } else child.stdin.end();

  const stdout = child.stdout;
  const head = await parseCgiHead(stdout);
  if (tooLarge) throw payloadTooLarge("the push", MAX_GIT_REQUEST_BYTES);
  if (!head) throw new HttpError(502, "internal", "git http-backend gave no answer");
  return new Response(Readable.toWeb(head.body) as ReadableStream, {
    status: head.status,
    headers: head.headers,
  });
}
