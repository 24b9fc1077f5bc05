/**
 * A throw-away PKI for the embedded demo cluster: one CA that signs the TA's server certificate and the dashboard's
 * client certificate (the `cloudwatch` flavor requires mTLS). ECDSA P-256, built in-process with
 * @peculiar/x509 on Node's webcrypto: no openssl.
 */
import { webcrypto } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type * as X509 from "@peculiar/x509";

export interface DemoPki {
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

export interface PkiPaths {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

const crypto = webcrypto as unknown as Crypto;

/**
 * @peculiar/x509 loads tsyringe, which demands a Reflect metadata polyfill (reflect-metadata is not a dependency here).
 * This is the small subset tsyringe uses (define/get/getOwn metadata), installed once before the first dynamic import.
 */
function ensureReflectMetadata(): void {
  type Key = unknown;
  const R = Reflect as unknown as Record<string, unknown>;
  if (typeof R.getMetadata === "function") return;
  const store = new WeakMap<object, Map<PropertyKey | undefined, Map<Key, unknown>>>();
  const own = (target: object, prop: PropertyKey | undefined, create: boolean) => {
    let byProp = store.get(target);
    if (!byProp && create) store.set(target, (byProp = new Map()));
    let m = byProp?.get(prop);
    if (!m && create && byProp) byProp.set(prop, (m = new Map()));
    return m;
  };
  const getOwn = (k: Key, t: object, p?: PropertyKey) => own(t, p, false)?.get(k);
  R.defineMetadata = (k: Key, v: unknown, t: object, p?: PropertyKey) => void own(t, p, true)!.set(k, v);
  R.getOwnMetadata = getOwn;
  R.hasOwnMetadata = (k: Key, t: object, p?: PropertyKey) => own(t, p, false)?.has(k) ?? false;
  R.getMetadata = (k: Key, t: object, p?: PropertyKey) => {
    for (let o: object | null = t; o; o = Object.getPrototypeOf(o)) {
      const m = own(o, p, false);
      if (m?.has(k)) return m.get(k);
    }
    return undefined;
  };
  R.hasMetadata = (k: Key, t: object, p?: PropertyKey) => (R.getMetadata as (...a: unknown[]) => unknown)(k, t, p) !== undefined;
  R.metadata = (k: Key, v: unknown) => (t: object, p?: PropertyKey) => (R.defineMetadata as (...a: unknown[]) => void)(k, v, t, p);
}

let loaded: Promise<typeof X509> | undefined;
function lib(): Promise<typeof X509> {
  loaded ??= (async () => {
    ensureReflectMetadata();
    const mod = await import("@peculiar/x509");
    mod.cryptoProvider.set(crypto);
    return mod;
  })();
  return loaded;
}
const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const SIGN = { name: "ECDSA", hash: "SHA-256" } as const;
const DAY = 86_400_000;

const serial = () => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1");

async function keyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(ALG, true, ["sign", "verify"]) as Promise<CryptoKeyPair>;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const x509 = await lib();
  return x509.PemConverter.encode(await crypto.subtle.exportKey("pkcs8", key), "PRIVATE KEY");
}

async function leaf(
  ca: { cert: X509.X509Certificate; keys: CryptoKeyPair },
  cn: string,
  usage: X509.ExtendedKeyUsage,
  sans: X509.JsonGeneralName[],
  organizations: readonly string[] = ["Allocation Lens demo"],
): Promise<{ certPem: string; keyPem: string }> {
  const x509 = await lib();
  const keys = await keyPair();
  const now = Date.now();
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
    new x509.ExtendedKeyUsageExtension([usage], false),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
    await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey, false, crypto),
  ];
  if (sans.length) extensions.push(new x509.SubjectAlternativeNameExtension(sans, false));
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: [`CN=${cn}`, ...organizations.map((o) => `O=${o}`)].join(", "),
      issuer: ca.cert.subject,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 365 * DAY),
      publicKey: keys.publicKey,
      signingKey: ca.keys.privateKey,
      signingAlgorithm: SIGN,
      extensions,
    },
    crypto,
  );
  return { certPem: cert.toString("pem"), keyPem: await keyPem(keys.privateKey) };
}

/**
 * A fresh CA, a server certificate for localhost / 127.0.0.1 / ::1 (plus `dnsNames`, the TA Services' in-cluster names)
 * and a client certificate `CN=allocation-lens`.
 */
export async function generateDemoPki(dnsNames: readonly string[] = []): Promise<DemoPki> {
  const x509 = await lib();
  const ca = await newCa("Allocation Lens demo CA");
  const server = await leaf(ca, "localhost", x509.ExtendedKeyUsage.serverAuth, [
    { type: "dns", value: "localhost" },
    { type: "ip", value: "127.0.0.1" },
    { type: "ip", value: "::1" },
    ...dnsNames.filter((d) => d !== "localhost").map((value) => ({ type: "dns" as const, value })),
  ]);
  const client = await leaf(ca, "allocation-lens", x509.ExtendedKeyUsage.clientAuth, []);
  return {
    caPem: ca.cert.toString("pem"),
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
  };
}

async function newCa(name: string): Promise<{ cert: X509.X509Certificate; keys: CryptoKeyPair }> {
  const x509 = await lib();
  const caKeys = await keyPair();
  const now = Date.now();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: `CN=${name}, O=Allocation Lens demo`,
      notBefore: new Date(now - DAY),
      notAfter: new Date(now + 3650 * DAY),
      keys: caKeys,
      signingAlgorithm: SIGN,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { cert: caCert, keys: caKeys };
}

/** A user of a Kubernetes API server that trusts a client CA: its name (CN) and groups (O). */
export interface ClusterUser {
  name: string;
  groups: readonly string[];
}

/** The PKI of a real control plane: its CA, the API server's serving certificate, one client certificate per user, a service-account signing key. */
export interface ClusterPki {
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  users: Record<string, { certPem: string; keyPem: string }>;
  serviceAccountKeyPem: string;
  serviceAccountPublicKeyPem: string;
}

/**
 * A fresh CA that signs a serving certificate for localhost / 127.0.0.1 / ::1 and a client certificate per user
 * (`CN=<name>, O=<group>...`, as kube-apiserver's x509 authenticator reads them), and an ECDSA key for signing
 * service-account tokens.
 */
export async function generateClusterPki(users: readonly ClusterUser[]): Promise<ClusterPki> {
  const x509 = await lib();
  const ca = await newCa("Allocation Lens demo control plane CA");
  const server = await leaf(ca, "localhost", x509.ExtendedKeyUsage.serverAuth, [
    { type: "dns", value: "localhost" },
    { type: "dns", value: "kubernetes.default.svc" },
    { type: "ip", value: "127.0.0.1" },
    { type: "ip", value: "::1" },
  ]);
  const issued: ClusterPki["users"] = {};
  for (const u of users) issued[u.name] = await leaf(ca, u.name, x509.ExtendedKeyUsage.clientAuth, [], u.groups);
  const sa = await keyPair();
  return { caPem: ca.cert.toString("pem"), serverCertPem: server.certPem, serverKeyPem: server.keyPem, users: issued, serviceAccountKeyPem: await keyPem(sa.privateKey), serviceAccountPublicKeyPem: x509.PemConverter.encode(await crypto.subtle.exportKey("spki", sa.publicKey), "PUBLIC KEY") };
}

/** Writes ca.crt, tls.crt/tls.key (server) and client.crt/client.key into `dir` (keys mode 0600). */
export async function writePki(dir: string, pki: DemoPki): Promise<PkiPaths> {
  await mkdir(dir, { recursive: true });
  const p: PkiPaths = {
    ca: path.join(dir, "ca.crt"),
    serverCert: path.join(dir, "tls.crt"),
    serverKey: path.join(dir, "tls.key"),
    clientCert: path.join(dir, "client.crt"),
    clientKey: path.join(dir, "client.key"),
  };
  await writeFile(p.ca, pki.caPem, { mode: 0o644 });
  await writeFile(p.serverCert, pki.serverCertPem, { mode: 0o644 });
  await writeFile(p.serverKey, pki.serverKeyPem, { mode: 0o600 });
  await writeFile(p.clientCert, pki.clientCertPem, { mode: 0o644 });
  await writeFile(p.clientKey, pki.clientKeyPem, { mode: 0o600 });
  return p;
}
