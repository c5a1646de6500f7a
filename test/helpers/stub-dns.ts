// A stub DNS server on loopback UDP for the proxy's tests: answers A and AAAA from a table of functions, so a
// name can rebind between answers (`rebind.test`) or answer with mixed addresses. Unknown names get NXDOMAIN.
import { createSocket } from "node:dgram";
import dnsPacket from "dns-packet";

/** Called once per question, with its type: a rebinding answer can flip on A questions only. */
export type Answers = (type: string) => string[];

export interface StubDns {
  /** `127.0.0.1:<port>`, for the proxy config's dns.servers. */
  server: string;
  /** How many questions each name was asked. */
  asked(name: string): number;
  set(name: string, answers: Answers | string[]): void;
  close(): Promise<void>;
}

export async function startStubDns(table: Record<string, Answers | string[]> = {}): Promise<StubDns> {
  const answers = new Map<string, Answers>();
  const counts = new Map<string, number>();
  const set = (name: string, value: Answers | string[]) =>
    answers.set(name.toLowerCase(), Array.isArray(value) ? () => value : value);
  for (const [name, value] of Object.entries(table)) set(name, value);
  const socket = createSocket("udp4");
  socket.on("message", (message, from) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const source = answers.get(name);
    const all = source ? source(question.type) : [];
    const wanted = all.filter((a) => (question.type === "AAAA" ? a.includes(":") : !a.includes(":")));
    const response = dnsPacket.encode({
      type: "response",
      id: query.id ?? 0,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (source ? 0 : 3),
      questions: [question],
      answers: wanted.map((data) => ({
        type: question.type as "A" | "AAAA",
        class: "IN" as const,
        name: question.name,
        ttl: 0,
        data,
      })),
    });
    socket.send(response, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    asked: (name) => counts.get(name.toLowerCase()) ?? 0,
    set,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
