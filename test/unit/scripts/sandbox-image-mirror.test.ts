// The image build reads the Debian mirror from apt's sources (never a host name in our code).
import { describe, expect, it } from "vitest";
// @ts-expect-error plain ES module script without types
import { parseAptSources, pickMirror } from "../../../scripts/sandbox-image/mirror.mjs";

const DEB822 = `Types: deb
URIs: http://mirror.example.test/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://src.example.test/debian
Suites: bookworm
Components: main
`;

describe("reading the Debian mirror from apt sources", () => {
  it("takes the first deb entry serving the suite with main, with its keyring (deb822)", () => {
    const entries = parseAptSources([{ name: "debian.sources", text: DEB822 }]);
    expect(pickMirror(entries, "bookworm")).toEqual({
      uri: "http://mirror.example.test/debian",
      suites: ["bookworm", "bookworm-updates"],
      components: ["main"],
      signedBy: "/usr/share/keyrings/debian-archive-keyring.gpg",
    });
  });

  it("reads one-line sources and skips other suites, deb-src and comments", () => {
    const text = [
      "# deb http://commented.example.test/debian bookworm main",
      "deb-src http://src.example.test/debian bookworm main",
      "deb http://other.example.test/debian bullseye main",
      "deb [signed-by=/k.gpg arch=amd64] http://one.example.test/debian bookworm main contrib",
    ].join("\n");
    const mirror = pickMirror(parseAptSources([{ name: "sources.list", text }]), "bookworm");
    expect(mirror).toMatchObject({ uri: "http://one.example.test/debian", signedBy: "/k.gpg" });
  });

  it("finds nothing when no source serves the suite", () => {
    expect(
      pickMirror(
        parseAptSources([{ name: "x.list", text: "deb http://a.example.test/d trixie main" }]),
        "bookworm",
      ),
    ).toBeUndefined();
  });
});
