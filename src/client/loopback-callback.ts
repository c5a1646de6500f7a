// The loopback listener of a browser sign-in (RFC 8252 section 7.3): 127.0.0.1 on a random port, answering the
// browser with a short page and handing each request's URL to the caller, which decides what it means.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const CALLBACK_PAGES = {
  approved: "Signed in. You can close this tab and return to the terminal.",
  denied: "The sign-in was denied. You can close this tab; run baton login to try again.",
  failed: "The sign-in failed. Return to the terminal for the reason.",
  ignored: "This page is not part of the sign-in in progress.",
} as const;
export type CallbackPage = keyof typeof CALLBACK_PAGES;

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
      connection: "close",
    });
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Baton sign-in</title></head><body><p>${CALLBACK_PAGES[page]}</p></body></html>`,
    );
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
