// A real SMTP server on 127.0.0.1 (the `smtp-server` package) that records every accepted message and can
// refuse chosen recipients at RCPT TO, the way a mail server rejects an unknown mailbox.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** Raw with quoted-printable soft breaks and escapes undone, for content checks. */
  decoded: string;
  subject: string;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  refused: string[];
  /** Recipients refused with 550 from now on. */
  refuse: Set<string>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

export async function startSmtpServer(refuse: readonly string[] = []): Promise<TestSmtpServer> {
  const state: TestSmtpServer = {
    url: "",
    received: [],
    refused: [],
    refuse: new Set(refuse),
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (state.refuse.has(address.address)) {
        state.refused.push(address.address);
        const error = new Error("mailbox unavailable") as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const decoded = decodeQuotedPrintable(raw);
        const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, " ") ?? "";
        state.received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, decoded, subject });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
