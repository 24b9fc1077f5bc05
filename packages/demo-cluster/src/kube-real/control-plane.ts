/**
 * A real Kubernetes control plane for the demo (`--kube real`): etcd and kube-apiserver, built from their Go modules
 * (kube-real-build.mjs), on loopback ports, in a directory of their own removed at close. The API server runs with RBAC,
 * a client CA for the demo's identities (rbac.ts), service-account token signing, and no endpoint reconciler (it would
 * refuse a loopback advertise address). No webhook or aggregated API is registered, and no identity the demo hands out
 * may make the server dial anything: node and pod addresses in the world are data. At start its bootstrap identity (in
 * system:masters, its key held in memory only) installs the monitoring CRDs and the identities' RBAC, and nothing else.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import YAML from "yaml";
import { stringify } from "yaml";
import { generateClusterPki, type ClusterPki } from "../certs";
import { BOOTSTRAP_USER, IDENTITIES, rbacObjects, ruleProblems, type ExtraIdentity, type IdentityName } from "./rbac";
import { KubeHttp, KubeUnreachable, statusOf, type KubeIdentity } from "./http";

export interface ControlPlaneOptions {
  etcd: string;
  kubeApiserver: string;
  /** CRD files (YAML) installed at start */
  crds: readonly string[];
  /**
   * Identities beyond the demo's (an operator run against the server): each gets a ClusterRole of its rules bound to it,
   * and a client certificate with a kubeconfig (`kubeconfigs.extra[user]`), or, bound to a ServiceAccount, that account's
   * tokens. Rules that break the control plane's rule (a wildcard, a dialing subresource) are refused at start.
   */
  identities?: readonly ExtraIdentity[];
  /** where its data, keys, logs and kubeconfigs go (created; the caller removes it) */
  dir: string;
  host: string;
  /** the API server's port; 0 = a free one */
  port?: number;
  log?: (line: string) => void;
}

/** The Service range the API server allocates from: the demo world's Services have addresses in 172.20.0.0/16. */
export const SERVICE_CLUSTER_IP_RANGE = "172.20.0.0/16";

/** A free TCP port on `host` (bound, then released). */
async function freePort(host: string): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve, reject) => {
    s.once("error", reject);
    s.listen(0, host, () => resolve());
  });
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const urlHost = (host: string) => (host.includes(":") ? `[${host}]` : host);

/** One supervised process: started with a log file, stopped with SIGTERM (SIGKILL after 10 s). */
class Proc {
  child: ChildProcess | undefined;
  constructor(
    readonly name: string,
    private readonly binary: string,
    private readonly args: string[],
    readonly logFile: string,
  ) {}

  start(): void {
    const log = fs.openSync(this.logFile, "a");
    this.child = spawn(this.binary, this.args, { stdio: ["ignore", log, log] });
    fs.closeSync(log);
  }

  get exited(): boolean {
    return !this.child || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const done = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await done;
    clearTimeout(timer);
  }

  tail(lines = 20): string {
    try {
      return fs.readFileSync(this.logFile, "utf8").trimEnd().split("\n").slice(-lines).map((l) => (l.length > 300 ? `${l.slice(0, 300)}...` : l)).join("\n");
    } catch {
      return "";
    }
  }
}

export class ControlPlane {
  /** the API server's URL */
  readonly url: string;
  /** etcd's client URL (plain HTTP on loopback) */
  readonly etcdUrl: string;
  /** kubeconfig files: the demo's own (writer; kubectl's current context, with the restricted viewer context beside it), the TA's, the dashboard's, the installer's */
  readonly kubeconfigs: { demo: string; targetAllocator: string; dashboard: string; installer: string; extra: Record<string, string> };
  private readonly etcd: Proc;
  private readonly apiserver: Proc;
  private readonly clients = new Map<string, KubeHttp>();
  /** how many times the API server was restarted */
  restarts = 0;

  private constructor(
    private readonly o: ControlPlaneOptions,
    private readonly pki: ClusterPki,
    ports: { api: number; etcdClient: number; etcdPeer: number },
  ) {
    const h = urlHost(o.host);
    this.url = `https://${h}:${ports.api}`;
    this.etcdUrl = `http://${h}:${ports.etcdClient}`;
    const peer = `http://${h}:${ports.etcdPeer}`;
    const d = (...p: string[]) => path.join(o.dir, ...p);
    this.etcd = new Proc("etcd", o.etcd, [
      "--name", "demo",
      "--data-dir", d("etcd"),
      "--listen-client-urls", this.etcdUrl,
      "--advertise-client-urls", this.etcdUrl,
      "--listen-peer-urls", peer,
      "--initial-advertise-peer-urls", peer,
      "--initial-cluster", `demo=${peer}`,
      "--unsafe-no-fsync",
      "--log-level", "warn",
    ], d("etcd.log"));
    this.apiserver = new Proc("kube-apiserver", o.kubeApiserver, [
      `--etcd-servers=${this.etcdUrl}`,
      `--bind-address=${o.host}`,
      `--advertise-address=${o.host}`,
      `--secure-port=${ports.api}`,
      `--cert-dir=${d("apiserver")}`,
      `--tls-cert-file=${d("tls", "apiserver.crt")}`,
      `--tls-private-key-file=${d("tls", "apiserver.key")}`,
      `--client-ca-file=${d("tls", "ca.crt")}`,
      `--service-account-issuer=https://kubernetes.default.svc`,
      `--service-account-key-file=${d("tls", "sa.pub")}`,
      `--service-account-signing-key-file=${d("tls", "sa.key")}`,
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      "--authorization-mode=RBAC",
      "--endpoint-reconciler-type=none",
      "--profiling=false",
      "--v=1",
    ], d("kube-apiserver.log"));
    this.kubeconfigs = { demo: d("kubeconfig.yaml"), targetAllocator: d("kubeconfig-target-allocator.yaml"), dashboard: d("kubeconfig-dashboard.yaml"), installer: d("kubeconfig-installer.yaml"), extra: Object.fromEntries((o.identities ?? []).filter((i) => !i.serviceAccount).map((i) => [i.user, d(`kubeconfig-${i.user}.yaml`)])) };
  }

  /** Starts etcd, then kube-apiserver; installs the CRDs and the RBAC; writes the kubeconfigs. */
  static async start(o: ControlPlaneOptions): Promise<ControlPlane> {
    const known = new Set<string>([BOOTSTRAP_USER.name, ...Object.values(IDENTITIES).map((i) => i.user)]);
    for (const i of o.identities ?? []) {
      if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(i.user) || known.has(i.user)) throw new Error(`identity ${JSON.stringify(i.user)}: a new lowercase DNS label is needed, not one of the demo's`);
      const problems = ruleProblems(i.rules);
      if (problems.length) throw new Error(`identity ${i.user}: its rules may not grant ${problems.join("; ")} (nothing may make this server dial anywhere)`);
    }
    fs.mkdirSync(path.join(o.dir, "tls"), { recursive: true });
    const certified = [...Object.values(IDENTITIES), ...(o.identities ?? []).filter((i) => !i.serviceAccount)];
    const pki = await generateClusterPki([BOOTSTRAP_USER, ...certified.map((i) => ({ name: i.user, groups: [] }))]);
    const write = (name: string, pem: string, mode = 0o600) => fs.writeFileSync(path.join(o.dir, "tls", name), pem, { mode });
    write("ca.crt", pki.caPem, 0o644);
    write("apiserver.crt", pki.serverCertPem, 0o644);
    write("apiserver.key", pki.serverKeyPem);
    write("sa.key", pki.serviceAccountKeyPem);
    write("sa.pub", pki.serviceAccountPublicKeyPem, 0o644);
    const ports = { api: o.port || (await freePort(o.host)), etcdClient: await freePort(o.host), etcdPeer: await freePort(o.host) };
    const cp = new ControlPlane(o, pki, ports);
    try {
      const t0 = Date.now();
      cp.etcd.start();
      await cp.waitFor("etcd", cp.etcd, async () => (await fetch(`${cp.etcdUrl}/health`, { signal: AbortSignal.timeout(2_000) })).ok, 30_000);
      cp.apiserver.start();
      await cp.waitReady(60_000);
      o.log?.(`kube-apiserver ready at ${cp.url} (etcd at ${cp.etcdUrl}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      await cp.bootstrap();
      cp.writeKubeconfigs();
      return cp;
    } catch (e) {
      await cp.close();
      throw e;
    }
  }

  /** A client of the API server as `user` (one of IDENTITIES' users). */
  client(user: string): KubeHttp {
    let c = this.clients.get(user);
    if (!c) {
      const id = this.pki.users[user];
      if (!id) throw new Error(`no such identity: ${user}`);
      c = new KubeHttp(this.url, { caPem: this.pki.caPem, certPem: id.certPem, keyPem: id.keyPem });
      this.clients.set(user, c);
    }
    return c;
  }

  /** The server's CA certificate (PEM), as a pod finds it in its ServiceAccount volume (ca.crt). */
  get caPem(): string {
    return this.pki.caPem;
  }

  /** A kubeconfig file for the CA of this server and a bearer token (a ServiceAccount's, from a TokenRequest). */
  writeTokenKubeconfig(file: string, token: string): string {
    const cluster = "allocation-lens-demo";
    fs.writeFileSync(
      file,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: cluster, cluster: { server: this.url, "certificate-authority-data": Buffer.from(this.pki.caPem).toString("base64") } }],
        users: [{ name: "token", user: { token } }],
        contexts: [{ name: "token", context: { cluster, user: "token" } }],
        "current-context": "token",
      }),
      { mode: 0o600 },
    );
    return file;
  }

  /** The identity `name` as PEMs (for a client the demo starts itself). */
  identity(name: IdentityName): KubeIdentity {
    const id = this.pki.users[IDENTITIES[name].user];
    return { caPem: this.pki.caPem, certPem: id.certPem, keyPem: id.keyPem };
  }

  private async waitFor(what: string, proc: Proc, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      if (proc.exited) throw new Error(`${what} exited before it was ready; its log (${proc.logFile}):\n${proc.tail()}`);
      try {
        if (await probe()) return;
      } catch (e) {
        last = (e as Error).message;
      }
      await sleep(100);
    }
    throw new Error(`${what} was not ready in ${timeoutMs} ms (${last}); its log (${proc.logFile}):\n${proc.tail()}`);
  }

  /** kube-apiserver's /readyz answers 200 (asked as the demo's writer). */
  private async waitReady(timeoutMs: number): Promise<void> {
    const c = this.client(BOOTSTRAP_USER.name);
    await this.waitFor("kube-apiserver", this.apiserver, async () => (await c.request("GET", "/readyz")).status === 200, timeoutMs);
  }

  /** The CRDs (established before it returns) and the identities' ClusterRoles and bindings, as the bootstrap user. */
  private async bootstrap(): Promise<void> {
    const c = this.client(BOOTSTRAP_USER.name);
    const crdNames: string[] = [];
    for (const file of this.o.crds) {
      const crd = YAML.parse(fs.readFileSync(file, "utf8")) as { metadata: { name: string } };
      await must(c.apply(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, crd, "allocation-lens-demo"), `install the CRD ${crd.metadata.name}`);
      crdNames.push(crd.metadata.name);
    }
    for (const obj of rbacObjects(this.o.identities) as { kind: string; metadata: { name: string } }[]) {
      const plural = obj.kind === "ClusterRole" ? "clusterroles" : "clusterrolebindings";
      await must(c.apply(`/apis/rbac.authorization.k8s.io/v1/${plural}/${obj.metadata.name}`, obj, "allocation-lens-demo"), `create the ${obj.kind} ${obj.metadata.name}`);
    }
    const deadline = Date.now() + 30_000;
    for (const name of crdNames) {
      for (;;) {
        const a = await c.request("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
        const conditions = ((a.body as { status?: { conditions?: { type: string; status: string }[] } })?.status?.conditions ?? []);
        if (conditions.some((x) => x.type === "Established" && x.status === "True")) break;
        if (Date.now() > deadline) throw new Error(`the CRD ${name} was not established in 30 s`);
        await sleep(100);
      }
    }
    // the bootstrap identity is not used again: its client goes
    this.clients.get(BOOTSTRAP_USER.name)?.close();
    this.clients.delete(BOOTSTRAP_USER.name);
  }

  private kubeconfigFor(users: { context: string; user: string }[]): string {
    const cluster = "allocation-lens-demo";
    return stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: cluster, cluster: { server: this.url, "certificate-authority-data": Buffer.from(this.pki.caPem).toString("base64") } }],
      users: users.map((u) => ({
        name: u.context,
        user: { "client-certificate-data": Buffer.from(this.pki.users[u.user].certPem).toString("base64"), "client-key-data": Buffer.from(this.pki.users[u.user].keyPem).toString("base64") },
      })),
      contexts: users.map((u) => ({ name: u.context, context: { cluster, user: u.context } })),
      "current-context": users[0].context,
      preferences: {},
    });
  }

  private writeKubeconfigs(): void {
    const w = (file: string, text: string) => fs.writeFileSync(file, text, { mode: 0o600 });
    w(this.kubeconfigs.demo, this.kubeconfigFor([
      { context: "allocation-lens-demo", user: IDENTITIES.writer.user },
      { context: "allocation-lens-demo-no-portforward", user: IDENTITIES.viewer.user },
    ]));
    w(this.kubeconfigs.targetAllocator, this.kubeconfigFor([{ context: "allocation-lens-demo-target-allocator", user: IDENTITIES.targetAllocator.user }]));
    w(this.kubeconfigs.dashboard, this.kubeconfigFor([{ context: "allocation-lens-demo-dashboard", user: IDENTITIES.dashboard.user }]));
    w(this.kubeconfigs.installer, this.kubeconfigFor([{ context: "allocation-lens-demo-installer", user: IDENTITIES.installer.user }]));
    for (const [user, file] of Object.entries(this.kubeconfigs.extra)) w(file, this.kubeconfigFor([{ context: user, user }]));
  }

  /** Stops kube-apiserver (SIGTERM, or `kill -9` with `hard`) and starts it again with the same flags; resolves when it is ready. */
  async restartApiserver({ hard = false } = {}): Promise<void> {
    await this.apiserver.stop(hard ? "SIGKILL" : "SIGTERM");
    this.restarts++;
    this.apiserver.start();
    // the bootstrap identity is gone: readiness is asked as the demo's writer (RBAC lets every user read /readyz)
    const c = this.client(IDENTITIES.writer.user);
    // ready, and its RBAC authorizer has read the roles back (it answers /readyz before that, refusing what they grant)
    await this.waitFor("kube-apiserver (restarted)", this.apiserver, async () => (await c.request("GET", "/readyz")).status === 200 && (await c.request("GET", "/api/v1/nodes?limit=1")).status === 200, 60_000);
  }

  /** etcd's current revision and a compaction up to it: every watch resuming from an older resourceVersion gets 410 Gone. */
  async compact(): Promise<number> {
    const post = async (p: string, body: unknown) => {
      const r = await fetch(`${this.etcdUrl}${p}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
      if (!r.ok) throw new Error(`etcd ${p} answered ${r.status}: ${(await r.text()).slice(0, 200)}`);
      return (await r.json()) as { header?: { revision?: string } };
    };
    const rev = Number((await post("/v3/kv/range", { key: Buffer.from("/registry").toString("base64") })).header?.revision ?? 0);
    await post("/v3/kv/compaction", { revision: String(rev), physical: true });
    return rev;
  }

  /** Whether kube-apiserver and etcd are both running. */
  get running(): boolean {
    return !this.etcd.exited && !this.apiserver.exited;
  }

  async close(): Promise<void> {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
    await this.apiserver.stop();
    await this.etcd.stop();
  }
}

/** Throws with the server's Status when `answer` is not a success. */
async function must(answer: Promise<{ status: number; body: unknown; text: string }>, what: string): Promise<void> {
  let a;
  try {
    a = await answer;
  } catch (e) {
    if (e instanceof KubeUnreachable) throw new Error(`could not ${what}: ${e.message}`);
    throw e;
  }
  if (a.status >= 300) throw new Error(`could not ${what}: ${a.status} ${statusOf(a).message ?? a.text.slice(0, 300)}`);
}
