// A loopback SMTP server standing in for people's mailboxes in the demo and the dashboard bench: each message's
// recipients, subject and raw text (the e-mailed sign-in link is read from it).
/** A loopback SMTP server standing in for the owners' mailboxes (the `smtp-server` package). */
export async function startMailCatcher() {
  const { SMTPServer } = await import("smtp-server");
  const received = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks = [];
      stream.on("data", (chunk) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const subject = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1]?.replace(/\r?\n[ \t]/g, " ") ?? "";
        received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(", "), subject, raw });
        callback();
      });
    },
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${server.server.address().port}`,
    received,
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
