// The proxy's own certificate authority: an ECDSA P-256 key and a self-signed CA certificate, created at first
// start in the proxy's state folder (files 0600, folder 0700) and replaced on `baton proxy rotate-ca`. Sandboxes
// trust it through the bundle activation writes; it signs the leaf certificates of the placeholder path only.
// @peculiar/x509 needs the Reflect metadata API (its dependency tsyringe checks at load time).
import "reflect-metadata";
import { randomBytes, webcrypto } from "node:crypto";
import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";
import { ConfigError } from "../../errors.js";

x509.cryptoProvider.set(webcrypto as unknown as Parameters<(typeof x509.cryptoProvider)["set"]>[1]);

export const EC_ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const CA_YEARS = 5;

export interface CaFiles {
  certPem: string;
  keyPem: string;
}

export const caPaths = (dir: string) => ({ cert: join(dir, "ca.pem"), key: join(dir, "ca-key.pem") });

export function toPem(der: ArrayBuffer, label: string): string {
  const base64 = Buffer.from(der).toString("base64");
  return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}

export async function generateCa(now = new Date()): Promise<CaFiles> {
  const keys = (await webcrypto.subtle.generateKey(EC_ALGORITHM, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CA_YEARS);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(16)
      .toString("hex")
      .replace(/^[89a-f]/, "1"),
    name: `CN=Baton egress proxy CA ${randomBytes(4).toString("hex")}, O=Baton`,
    notBefore: new Date(now.getTime() - 60 * 60 * 1000),
    notAfter,
    signingAlgorithm: EC_ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  return { certPem: cert.toString("pem").trim().concat("\n"), keyPem: toPem(pkcs8, "PRIVATE KEY") };
}

async function writePrivate(path: string, text: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

async function ensureFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new ConfigError(`the proxy state folder ${dir} is not a folder`);
  await chmod(dir, 0o700);
}

async function writeCa(dir: string, files: CaFiles): Promise<void> {
  const paths = caPaths(dir);
  // Key first: a reader never finds a certificate whose key is missing.
  await writePrivate(paths.key, files.keyPem);
  await writePrivate(paths.cert, files.certPem);
}

/** Loads the CA from `dir`, creating it at first start. Refuses files that others can read. */
export async function loadOrCreateCa(dir: string): Promise<CaFiles & { created: boolean }> {
  await ensureFolder(dir);
  const paths = caPaths(dir);
  const exists = await lstat(paths.key).then(
    () => true,
    () => false,
  );
  if (!exists) {
    const files = await generateCa();
    await writeCa(dir, files);
    return { ...files, created: true };
  }
  for (const path of [paths.key, paths.cert]) {
    const info = await lstat(path).catch((error: unknown) => {
      throw new ConfigError(`the proxy CA file ${path} is missing; run baton proxy rotate-ca`, {
        cause: error,
      });
    });
    if (!info.isFile()) throw new ConfigError(`the proxy CA file ${path} is not a regular file`);
    if ((info.mode & 0o077) !== 0)
      throw new ConfigError(`${path} is readable by others; run chmod 600 ${path}`);
  }
  return {
    certPem: await readFile(paths.cert, "utf8"),
    keyPem: await readFile(paths.key, "utf8"),
    created: false,
  };
}

/** Replaces the CA with a new one; a running proxy picks it up on SIGHUP (or restart). */
export async function rotateCa(dir: string): Promise<CaFiles> {
  await ensureFolder(dir);
  const files = await generateCa();
  await writeCa(dir, files);
  return files;
}

/** Reads the CA certificate only (what `baton proxy ca` prints). */
export async function readCaCertificate(dir: string): Promise<string> {
  try {
    return await readFile(caPaths(dir).cert, "utf8");
  } catch (error) {
    throw new ConfigError(
      `no proxy CA in ${dir}; start baton proxy once (it creates one) or pass --state-dir`,
      { cause: error },
    );
  }
}

export async function removeCa(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
