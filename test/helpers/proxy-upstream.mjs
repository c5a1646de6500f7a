// A test upstream host for the proxy's tests, run inside a network namespace: plain HTTP on --http-port and
// HTTPS on --https-port (certificate from --cert/--key). It prints one JSON line when ready and one per request
// it receives ({scheme, method, url, headers}), so a test can see exactly what reached it.
//   /echo               200, a JSON body echoing the request headers (a swapped value comes back in it);
//                       ?encoding=gzip|deflate|br compresses it whatever Accept-Encoding said, ?encoding=<other>
//                       labels it so without compressing
//   /echo-reason        401 whose reason phrase echoes the Authorization header
//   /events?id=X        200, one event at once, then a second and the end only after /release?id=X
//   /big?bytes=N        200, N bytes
//   /big-headers?bytes=N 200 whose headers hold N bytes (past what a Node client reads by default)
//   /redirect-metadata  302 to the cloud metadata address
//   /hang               never answers
//   anything else       200 "hello from <name>"
import { readFileSync } from "node:fs";
import { createServer as createHttp } from "node:http";
import { createServer as createHttps } from "node:https";
import { parseArgs } from "node:util";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";

const { values } = parseArgs({
  options: {
    name: { type: "string", default: "upstream" },
    "http-port": { type: "string", default: "80" },
    "https-port": { type: "string", default: "443" },
    cert: { type: "string" },
    key: { type: "string" },
    host: { type: "string", default: "0.0.0.0" },
    /** No line per request (benchmarks). */
    quiet: { type: "boolean", default: false },
    /** A raw TCP port that sends the number of bytes a client asks for ("<n>\n"), or echoes ("echo\n"). */
    "stream-port": { type: "string" },
  },
});

const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const COMPRESS = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
/** Event streams waiting for their release. */
const held = new Map();

function handler(scheme) {
  return (req, res) => {
    if (!values.quiet) say({ scheme, method: req.method, url: req.url, headers: req.headers });
    req.resume();
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/echo") {
      const body = JSON.stringify({ headers: req.headers });
      const encoding = url.searchParams.get("encoding");
      res.writeHead(200, {
        "content-type": "application/json",
        "x-echo-authorization": req.headers.authorization ?? "",
        ...(encoding ? { "content-encoding": encoding } : {}),
      });
      res.end(encoding ? (COMPRESS[encoding]?.(body) ?? body) : body);
    } else if (url.pathname === "/echo-reason") {
      res.writeHead(401, `denied ${req.headers.authorization ?? ""}`, { "content-type": "text/plain" });
      res.end("denied\n");
    } else if (url.pathname === "/events") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      held.set(url.searchParams.get("id"), () => res.end("data: two\n\n"));
    } else if (url.pathname === "/release") {
      held.get(url.searchParams.get("id"))?.();
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("released\n");
    } else if (url.pathname === "/big") {
      const bytes = Number(url.searchParams.get("bytes") ?? "65536");
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(bytes) });
      res.end(Buffer.alloc(bytes, 120));
    } else if (url.pathname === "/big-headers") {
      const bytes = Number(url.searchParams.get("bytes") ?? "61440");
      const headers = {};
      for (let i = 0; i * 1024 < bytes; i++) headers[`x-filler-${i}`] = "f".repeat(1000);
      res.writeHead(200, { "content-type": "text/plain", ...headers });
      res.end("big headers\n");
    } else if (url.pathname === "/redirect-metadata") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
      res.end();
    } else if (url.pathname === "/hang") {
      // never answers
    } else {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`hello from ${values.name}\n`);
    }
  };
}

const http = createHttp({ keepAlive: true }, handler("http"));
await new Promise((resolve) => http.listen(Number(values["http-port"]), values.host, resolve));
let https = null;
if (values.cert && values.key) {
  https = createHttps({ cert: readFileSync(values.cert), key: readFileSync(values.key) }, handler("https"));
  await new Promise((resolve) => https.listen(Number(values["https-port"]), values.host, resolve));
}
if (values["stream-port"]) {
  const { createServer: createTcp } = await import("node:net");
  const stream = createTcp((socket) => {
    socket.once("data", (first) => {
      const line = first.toString().split("\n")[0];
      if (line === "echo") {
        socket.pipe(socket);
        return;
      }
      const chunk = Buffer.alloc(64 * 1024, 120);
      let left = Number(line);
      const pump = () => {
        while (left > 0) {
          const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= piece.length;
          if (!socket.write(piece)) return socket.once("drain", pump);
        }
        socket.end();
      };
      pump();
    });
    socket.on("error", () => socket.destroy());
  });
  await new Promise((resolve) => stream.listen(Number(values["stream-port"]), values.host, resolve));
}
say({ ready: true, http: http.address().port, https: https ? https.address().port : null });
process.on("SIGTERM", () => process.exit(0));
