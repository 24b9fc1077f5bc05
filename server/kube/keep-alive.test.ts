/**
 * The keep-alive API client against a real HTTPS server with client certificates on loopback: Lease reads share one
 * connection (client-node's own client opens one, with a full handshake, per request), the client certificate still
 * reaches the server, and a kubeconfig whose client certificate changes gets a new connection with it.
 */
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemoPki, type DemoPki } from "@allocation-lens/demo-cluster/internal/certs";
import { keepAliveApiClient } from "@/server/kube/keep-alive";

describe("keepAliveApiClient", () => {
  let pki: DemoPki;
  /** a second CA the server also trusts, with its own client certificate */
  let second: DemoPki;
  let server: https.Server;
  let url: string;
  const connections: { client: string }[] = [];

  beforeAll(async () => {
    pki = await generateDemoPki(["localhost"]);
    second = await generateDemoPki(["localhost"]);
    server = https.createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, ca: [pki.caPem, second.caPem], requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const name = req.url!.split("/").pop()!;
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace: "ns" }, spec: { holderIdentity: "lens-a" } }));
    });
    server.on("secureConnection", (s: TLSSocket) => connections.push({ client: String(s.getPeerCertificate().subject?.CN ?? "") }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const kubeconfig = (certPem: string, keyPem: string) => {
    const kc = new k8s.KubeConfig();
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    kc.loadFromOptions({
      clusters: [{ name: "c", server: url, caData: b64(pki.caPem), tlsServerName: "localhost", skipTLSVerify: false }],
      users: [{ name: "u", certData: b64(certPem), keyData: b64(keyPem) }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    return kc;
  };

  it("Lease reads share one connection; client-node's own client opens one per request", async () => {
    connections.length = 0;
    const api = keepAliveApiClient(kubeconfig(pki.clientCertPem, pki.clientKeyPem), k8s.CoordinationV1Api);
    for (const name of ["a", "b", "c"]) expect((await api.readNamespacedLease({ name, namespace: "ns" })).spec?.holderIdentity).toBe("lens-a");
    expect(connections).toHaveLength(1);
    expect(connections[0].client).toBeTruthy();

    connections.length = 0;
    const plain = kubeconfig(pki.clientCertPem, pki.clientKeyPem).makeApiClient(k8s.CoordinationV1Api);
    for (const name of ["a", "b", "c"]) await plain.readNamespacedLease({ name, namespace: "ns" });
    expect(connections).toHaveLength(3);
  });

  it("a client certificate that changes is sent on a new connection", async () => {
    connections.length = 0;
    const kc = kubeconfig(pki.clientCertPem, pki.clientKeyPem);
    const api = keepAliveApiClient(kc, k8s.CoordinationV1Api);
    await api.readNamespacedLease({ name: "a", namespace: "ns" });
    // a client certificate of the second CA (the server trusts both) stands for a rotated one, set in place
    kc.users[0] = { ...kc.users[0], certData: Buffer.from(second.clientCertPem).toString("base64"), keyData: Buffer.from(second.clientKeyPem).toString("base64") };
    await api.readNamespacedLease({ name: "b", namespace: "ns" });
    await api.readNamespacedLease({ name: "c", namespace: "ns" });
    expect(connections).toHaveLength(2);
  });
});
