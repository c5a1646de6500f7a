// The loopback listener of a browser sign-in (RFC 8252 section 7.3): 127.0.0.1 on a random port, answering the
// browser with a short page and handing each request's URL to the caller, which decides what it means. The page
// looks like the service's own (its type, colours and column, a few inline rules: the client imports no service
// code), with a heading a person reads at a glance and a policy that allows that style and nothing else.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const CALLBACK_PAGES = {
  approved: { heading: "Signed in", text: "You can close this tab and return to the terminal." },
  denied: { heading: "Sign-in denied", text: "You can close this tab; run baton login to try again." },
  failed: { heading: "Sign-in failed", text: "Return to the terminal for the reason." },
  ignored: { heading: "Not found", text: "This page is not part of the sign-in in progress." },
} as const;
export type CallbackPage = keyof typeof CALLBACK_PAGES;

/** The service pages' look, in brief (src/server/surfaces/pages/style.ts), for a page the client serves itself. */
export const CALLBACK_STYLE =
  '*{box-sizing:border-box}html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#fff}' +
  "body{margin:0}header,main{max-width:48rem;margin:0 auto;padding:0.75rem 1rem}" +
  "header{border-bottom:1px solid #d0d7de;font-weight:700}h1{font-size:1.5rem;margin:1rem 0 0.5rem}" +
  ".notice{border:2px solid #1a7f37;border-radius:4px;padding:0.75rem 1rem;margin:1rem 0}.notice.bad{border-color:#b42318}";

/** Nothing but the page's own style block, allowed by its hash. */
export const CALLBACK_POLICY = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(CALLBACK_STYLE, "utf8").digest("base64")}'; base-uri 'none'; form-action 'none'`;

/** The whole page for one outcome (pure). */
export function renderCallbackPage(page: CallbackPage): string {
  const { heading, text } = CALLBACK_PAGES[page];
  const tone = page === "approved" ? "notice" : "notice bad";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${heading} · Baton</title><style>${CALLBACK_STYLE}</style></head><body><header>Baton</header><main><h1>${heading}</h1><p class="${tone}">${text}</p></main></body></html>`;
}

export interface LoopbackListener {
  redirectUri: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(onRequest: (url: URL) => CallbackPage): Promise<LoopbackListener> {
  const server: Server = createServer((req, res) => {
    const page = onRequest(new URL(req.url ?? "/", "http://127.0.0.1"));
    res.writeHead(page === "ignored" ? 404 : 200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": CALLBACK_POLICY,
      connection: "close",
    });
    res.end(renderCallbackPage(page));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
