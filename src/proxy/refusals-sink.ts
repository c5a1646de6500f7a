// Sends the proxy's refusals to `baton serve` in small batches, so `baton op get` and the disclosure can show a
// sandbox what was refused. Best effort: a failed send is logged and dropped, never retried into a backlog.
import type { Logger } from "pino";
import { callHttp } from "../net/http-call.js";
import { PROXY_INTERNAL_PATHS, PROXY_TOKEN_HEADER, type ReportRefusalsBody } from "./lease/wire.js";

export type RefusalRecord = ReportRefusalsBody["refusals"][number];

export interface RefusalSink {
  report(refusal: RefusalRecord): void;
  /** Sends what is queued; resolves when done. */
  flush(): Promise<void>;
}

export function createHttpRefusalSink(options: {
  serveUrl: string;
  token: string;
  logger: Logger;
  intervalMs?: number;
}): RefusalSink {
  const url = new URL(PROXY_INTERNAL_PATHS.refusals, options.serveUrl).toString();
  const queue: RefusalRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    timer = undefined;
    const batch = queue.splice(0, 500);
    if (batch.length === 0) return;
    try {
      const response = await callHttp(url, {
        method: "POST",
        headers: { "content-type": "application/json", [PROXY_TOKEN_HEADER]: options.token },
        body: JSON.stringify({ refusals: batch } satisfies ReportRefusalsBody),
        timeoutMs: 5_000,
      });
      if (response.status >= 300) {
        options.logger.warn({ status: response.status }, "baton serve did not take the refusal report");
      }
    } catch (error) {
      options.logger.warn({ err: String(error) }, "could not report refusals to baton serve");
    }
    if (queue.length > 0) await flush();
  };
  return {
    report(refusal) {
      if (queue.length >= 5_000) queue.shift();
      queue.push(refusal);
      timer ??= setTimeout(() => void flush(), options.intervalMs ?? 500);
      timer.unref?.();
    },
    async flush() {
      clearTimeout(timer);
      await flush();
    },
  };
}

export function createMemoryRefusalSink(): RefusalSink & { all(): RefusalRecord[] } {
  const all: RefusalRecord[] = [];
  return { report: (r) => void all.push(r), flush: async () => {}, all: () => all };
}
