// Leaf certificates for the placeholder path: one per destination host, signed by the proxy's CA, valid for a
// week (back-dated an hour for clock skew), kept in memory as ready TLS contexts. One leaf key serves them all.
// @peculiar/x509 needs the Reflect metadata API (its dependency tsyringe checks at load time).
import "reflect-metadata";
import { randomBytes, webcrypto } from "node:crypto";
import { createSecureContext, type SecureContext } from "node:tls";
import * as x509 from "@peculiar/x509";
import { type CaFiles, EC_ALGORITHM, toPem } from "./authority.js";

const LEAF_DAYS = 7;
const MAX_CACHED = 5_000;

export interface LeafIssuer {
  contextFor(host: string): Promise<SecureContext>;
}

function pemBody(pem: string): ArrayBuffer {
  const base64 = pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
  const bytes = Buffer.from(base64, "base64");
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** A leaf certificate (PEM) for `hosts`, signed by `ca`, with a fresh key: for test upstreams and tools. */
export async function issueLeafPem(
  ca: CaFiles,
  hosts: readonly string[],
  now = new Date(),
): Promise<{ certPem: string; keyPem: string }> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey("pkcs8", pemBody(ca.keyPem), EC_ALGORITHM, false, ["sign"]);
  const keys = (await webcrypto.subtle.generateKey(EC_ALGORITHM, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const cert = await signLeaf(caCert, caKey, keys.publicKey, hosts, now);
  return {
    certPem: `${cert.toString("pem").trim()}\n`,
    keyPem: toPem(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey), "PRIVATE KEY"),
  };
}

async function signLeaf(
  caCert: x509.X509Certificate,
  caKey: webcrypto.CryptoKey,
  publicKey: webcrypto.CryptoKey,
  hosts: readonly string[],
  at: Date,
): Promise<x509.X509Certificate> {
  return x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(16)
      .toString("hex")
      .replace(/^[89a-f]/, "1"),
    subject: `CN=${hosts[0]}`,
    issuer: caCert.subject,
    notBefore: new Date(at.getTime() - 60 * 60 * 1000),
    notAfter: new Date(at.getTime() + LEAF_DAYS * 24 * 60 * 60 * 1000),
    signingAlgorithm: EC_ALGORITHM,
    publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        hosts.map((value) => (/^[0-9.]+$|:/.test(value) ? { type: "ip", value } : { type: "dns", value })),
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
}

export function createLeafIssuer(ca: CaFiles, now: () => Date = () => new Date()): LeafIssuer {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = webcrypto.subtle.importKey("pkcs8", pemBody(ca.keyPem), EC_ALGORITHM, false, ["sign"]);
  const leafKeys = webcrypto.subtle.generateKey(EC_ALGORITHM, true, [
    "sign",
    "verify",
  ]) as Promise<webcrypto.CryptoKeyPair>;
  const leafKeyPem = leafKeys.then(async (k) =>
    toPem(await webcrypto.subtle.exportKey("pkcs8", k.privateKey), "PRIVATE KEY"),
  );
  const cache = new Map<string, { until: number; context: Promise<SecureContext> }>();

  async function issue(host: string): Promise<SecureContext> {
    const keys = await leafKeys;
    const cert = await signLeaf(caCert, await caKey, keys.publicKey, [host], now());
    return createSecureContext({
      cert: `${cert.toString("pem").trim()}\n${ca.certPem}`,
      key: await leafKeyPem,
      minVersion: "TLSv1.2",
    });
  }

  return {
    contextFor(host) {
      const key = host.toLowerCase();
      const hit = cache.get(key);
      if (hit && hit.until > now().getTime()) return hit.context;
      if (cache.size >= MAX_CACHED) cache.clear();
      const context = issue(key);
      // Re-issued a day before it would expire.
      cache.set(key, { until: now().getTime() + (LEAF_DAYS - 1) * 24 * 60 * 60 * 1000, context });
      context.catch(() => cache.delete(key));
      return context;
    },
  };
}
