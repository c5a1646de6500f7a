// One HTTP request from a chosen local address (127.0.0.2, 127.0.0.3, ...: every 127/8 address is this host's
// loopback), so a test can act as several clients whose source addresses differ. node:http, a fresh socket each.
import { request } from "node:http";

export interface AddressedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function requestFrom(
  localAddress: string,
  url: string,
  /** `target`: the request target when it is not the URL's path (absolute form, for a proxy). */
  init: { method?: string; headers?: Record<string, string>; body?: string; target?: string } = {},
): Promise<AddressedAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method ?? "GET",
        ...(init.target === undefined ? {} : { path: init.target }),
        localAddress,
        agent: false,
        headers: {
          ...(init.body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(init.body) }),
          ...init.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}
