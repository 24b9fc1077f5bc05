import "server-only";
/**
 * The transports of the TA client (`TaHttp`): what each request is sent to and through, for each reach.
 *
 * - `direct`: the configured URL, with the TLS files of `tls` (built synchronously, as before) or the client certificate
 *   of `tlsSecret` (read once, asynchronously, with the user's credentials; read again after a failure).
 * - `port-forward`: each connection the agent opens is a `pods/portforward` WebSocket through the API server to a Ready
 *   pod of the TA's Service (./tunnel.ts, ./pods.ts); for an https TA, TLS runs over it with our client certificate, so
 *   the TA authenticates us as it would in the cluster. Deadlines, limits, keep-alive and the byte budget stay TaHttp's.
 * - `service-proxy`: requests go to `<API server>/api/v1/namespaces/NS/services/NAME:PORT/proxy<path>` with the
 *   kubeconfig's credentials; plain-HTTP TAs only (the proxy would not carry a client certificate).
 *
 * Certificates, keys and tokens stay in memory, in agents and headers: never in an error, a log line or an answer.
 */
import http from "node:http";
import https from "node:https";
import tls from "node:tls";
import type { Duplex } from "node:stream";
import * as k8s from "@kubernetes/client-node";
import type { KubernetesConfig, TaConfig } from "@/lib/config/schema";
import { SourceError } from "@/lib/source-error";
import { forbiddenMessage, reachFromConfig, serviceProxyPrefix, tunnelServerName, type ReachSpec } from "@/lib/ta/reach";
import { clientAgentWith, readTlsMaterial, tlsClientOptions } from "@/server/net/client-agent";
import { FastHttpClient } from "@/server/net/fast-http";
import { kubeConfigFor } from "@/server/kube/informers";
import { readTlsSecret, type TlsMaterial } from "@/server/ta/secret-tls";
import { openTunnel } from "@/server/ta/reach/tunnel";
import { PodChooser, servicePods, type PodResolver } from "@/server/ta/reach/pods";

export type { PodChoice, PodResolver } from "@/server/ta/reach/pods";

/** A reach, with what only the server has: a pod resolver (discovery may bring its own). */
export type Reach = Exclude<ReachSpec, { kind: "port-forward" }> | (Extract<ReachSpec, { kind: "port-forward" }> & { pods?: PodResolver });

/**
 * Where and how the next request goes: through Node's client with `agent` (the reaches through the API server, a
 * Secret's certificates), or, for the direct reach, through `fast`: its own connections, each read into one reused buffer
 * (server/net/fast-http.ts).
 */
export type TaRoute = RouteCommon & ({ agent: http.Agent; fast?: undefined } | { fast: FastHttpClient; agent?: undefined });

interface RouteCommon {
  /** scheme, host and port of the requests (their Host header); the agent decides where the bytes go */
  base: URL;
  /** sent with every request (the API server's Authorization for the service proxy) */
  headers?: Record<string, string>;
  /** put before the TA's path (the service proxy's) */
  pathPrefix?: string;
  /** a 401/403 that the API server answered rather than the TA: what it means */
  refused?: (status: number, body: Buffer) => { message: string; hint: string } | undefined;
}

export interface TaTransport {
  readonly kind: ReachSpec["kind"];
  /** synchronous for a direct reach with TLS files; a promise when a Secret or the kubeconfig's credentials are read first */
  route(): TaRoute | Promise<TaRoute>;
  /** a request failed with `err`: a TLS failure reads the Secret again next time */
  failed(err: SourceError): void;
  close(): void;
}

/** The cluster's Kubernetes access: a KubeConfig, or the configuration kubeConfigFor builds one from. */
export type KubeAccess = k8s.KubeConfig | Pick<KubernetesConfig, "inCluster" | "kubeconfig" | "context"> & Partial<Pick<KubernetesConfig, "requestTimeoutSeconds">>;

type Read = (path: string, what: string) => Buffer;

const agentOptions = (config: TaConfig): http.AgentOptions => ({ keepAlive: true, maxSockets: config.concurrency, maxFreeSockets: config.concurrency });

/** The direct transport with TLS files: built at once (a file that cannot be read throws its SourceError here). */
export function directTransport(config: TaConfig, read: Read): TaTransport {
  const base = new URL(config.url);
  const material = readTlsMaterial(base, config.tls, read);
  const fast = new FastHttpClient(base, base.protocol === "https:" ? { ...tlsClientOptions(config.tls, material, "TLSv1.3"), servername: config.tls?.serverName } : null);
  const route: TaRoute = { base, fast };
  return {
    kind: "direct",
    route: () => route,
    failed: () => {},
    close: () => fast.close(),
  };
}

/**
 * The transport of a TA: `reach` (default: the configuration's `reach`) with the TLS of `tls` and `tlsSecret`. `kube` is
 * needed for every reach through the API server and for tlsSecret; it is turned into a KubeConfig on first use.
 * Throws a `config` SourceError for a reach that cannot work (service proxy to an https TA, no Kubernetes access).
 */
export function taTransport(source: string, config: TaConfig, read: Read, kube?: KubeAccess, reach: Reach = reachFromConfig(config.reach)): TaTransport {
  const role = source.split("/").pop() ?? "";
  const https_ = config.url.startsWith("https:");
  let kc: k8s.KubeConfig | null = kube instanceof k8s.KubeConfig ? kube : null;
  const kubeTimeoutMs = (kube && !(kube instanceof k8s.KubeConfig) ? (kube.requestTimeoutSeconds ?? 30) : 30) * 1000;
  const kubeConfig = (): k8s.KubeConfig => {
    if (kc) return kc;
    if (!kube) {
      throw new SourceError({ source, kind: "config", message: `targetAllocators.${role}: this reach needs the cluster's Kubernetes access`, hint: "pass the cluster's kubernetes configuration to taTransport" });
    }
    try {
      const loaded = kubeConfigFor(kube as Exclude<KubeAccess, k8s.KubeConfig>);
      if (!loaded.getCurrentCluster()) {
        const context = (kube as { context?: string }).context;
        throw new SourceError({ source, kind: "config", message: `the kubeconfig has no cluster for the context ${context ?? loaded.getCurrentContext()}`, hint: "check the cluster's kubernetes.context" });
      }
      return (kc = loaded);
    } catch (e) {
      if (e instanceof SourceError) throw e;
      // never the loader's message: a YAML error may quote the file, which holds tokens and keys
      const code = (e as NodeJS.ErrnoException).code;
      throw new SourceError({ source, kind: "config", message: `cannot load the kubeconfig (${code ?? "not a kubeconfig, or its context is missing"})`, hint: "check the cluster's kubernetes.kubeconfig and context" });
    }
  };
  if (!kube && (reach.kind !== "direct" || config.tlsSecret)) kubeConfig(); // throws: say so now, not at the first poll
  if (reach.kind === "service-proxy") {
    if (https_ || config.tlsSecret || config.tls?.cert) {
      throw new SourceError({ source, kind: "config", message: "the API server's service proxy would not carry the client certificate: use port-forward", hint: `set targetAllocators.${role}.reach to portForward` });
    }
    if (config.bearerTokenFile) {
      throw new SourceError({ source, kind: "config", message: "the service proxy's Authorization header is the API server's: the TA's token cannot go through it, use port-forward" });
    }
    return new ServiceProxyTransport(source, config, kubeConfig(), reach);
  }
  if (reach.kind === "direct" && !config.tlsSecret) return directTransport(config, read);
  // the TLS material: files now (as before), the Secret on first use
  const files = {
    ca: config.tls?.ca ? read(config.tls.ca, "CA certificate") : undefined,
    cert: config.tls?.cert ? read(config.tls.cert, "client certificate") : undefined,
    key: config.tls?.key ? read(config.tls.key, "client key") : undefined,
  };
  const secret = config.tlsSecret ? new SecretMaterial(() => kubeConfig(), config.tlsSecret, source, kubeTimeoutMs, files.ca) : null;
  if (reach.kind === "direct") return new MaterialTransport("direct", secret, (m) => clientAgentFrom(new URL(config.url), config, m), new URL(config.url));
  const kcNow = kubeConfig();
  const chooser = new PodChooser(
    reach.pods ??
      servicePods(kcNow, { source, namespace: reach.namespace, service: reach.service, port: reach.port, targetPort: reach.targetPort, timeoutMs: kubeTimeoutMs }),
  );
  const servername = tunnelServerName(reach.namespace, reach.service, reach.serverName ?? config.tls?.serverName);
  const connect = async (material: Material | null): Promise<Duplex> => {
    const choice = await chooser.pick();
    let tunnel;
    try {
      tunnel = await openTunnel(kcNow, { namespace: reach.namespace, pod: choice.pod, port: choice.port }, { source, handshakeTimeoutMs: config.timeoutSeconds * 1000 });
    } catch (e) {
      if ((e as SourceError).kind !== "forbidden") chooser.failed(choice.pod);
      throw e;
    }
    tunnel.onBroken = () => chooser.failed(choice.pod);
    if (!material) return tunnel;
    const socket = tls.connect({ socket: tunnel, ...tlsOptions(config, material), servername });
    tunnel.outer = socket;
    socket.once("close", () => tunnel.destroy());
    return socket;
  };
  const build = (m: Material | null) => tunnelAgent(https_, agentOptions(config), () => connect(m));
  if (!https_) return new MaterialTransport("port-forward", null, () => build(null), new URL(config.url));
  return new MaterialTransport("port-forward", secret ?? { get: () => files, forget: () => {} }, (m) => build(m), new URL(config.url));
}

type Material = Partial<TlsMaterial>;

const tlsOptions = (config: TaConfig, m: Material): tls.ConnectionOptions => tlsClientOptions(config.tls, m, "TLSv1.3");

const clientAgentFrom = (base: URL, config: TaConfig, m: Material): http.Agent => clientAgentWith(base, config.tls, agentOptions(config), m, "TLSv1.3");

/** An agent whose every connection comes from `connect` (a tunnel, or TLS over one). */
function tunnelAgent(secure: boolean, options: http.AgentOptions, connect: () => Promise<Duplex>): http.Agent {
  const agent = secure ? new https.Agent(options) : new http.Agent(options);
  agent.createConnection = (_options, callback) => {
    connect().then(
      (socket) => callback?.(null, socket),
      (err: Error) => callback?.(err, undefined as never),
    );
    return undefined;
  };
  return agent;
}

interface MaterialSource {
  get(): Material | Promise<Material>;
  forget(): void;
}

/** The Secret's TLS material, read on first use and kept; read again after a failure or a TLS error. */
class SecretMaterial implements MaterialSource {
  private held: Promise<Material> | null = null;

  constructor(
    private readonly kc: () => k8s.KubeConfig,
    private readonly spec: NonNullable<TaConfig["tlsSecret"]>,
    private readonly source: string,
    private readonly timeoutMs: number,
    private readonly caFile: Buffer | undefined,
  ) {}

  get(): Promise<Material> {
    if (!this.held) {
      const reading = (async () => {
        const m = await readTlsSecret(this.kc(), this.spec, { source: this.source, timeoutMs: this.timeoutMs });
        return this.caFile ? { ...m, ca: this.caFile } : m;
      })();
      this.held = reading;
      reading.catch(() => {
        if (this.held === reading) this.held = null;
      });
    }
    return this.held;
  }

  forget(): void {
    this.held = null;
  }
}

/** A transport whose agent is built from TLS material that may have to be read first, and built again when it is read again. */
class MaterialTransport implements TaTransport {
  private agent: { for: Material | null; agent: http.Agent } | null = null;

  constructor(
    readonly kind: ReachSpec["kind"],
    private readonly material: MaterialSource | null,
    private readonly build: (m: Material) => http.Agent,
    private readonly base: URL,
  ) {}

  route(): TaRoute | Promise<TaRoute> {
    if (!this.material) return { base: this.base, agent: this.agentFor(null) };
    const m = this.material.get();
    return m instanceof Promise ? m.then((x) => ({ base: this.base, agent: this.agentFor(x) })) : { base: this.base, agent: this.agentFor(m) };
  }

  private agentFor(m: Material | null): http.Agent {
    if (this.agent && this.agent.for === m) return this.agent.agent;
    this.agent?.agent.destroy();
    this.agent = { for: m, agent: this.build(m ?? {}) };
    return this.agent.agent;
  }

  failed(err: SourceError): void {
    if (err.kind === "tls") this.material?.forget();
  }

  close(): void {
    this.agent?.agent.destroy();
    this.agent = null;
  }
}

/** Requests through the API server's service proxy, with the kubeconfig's credentials (taken again for each request). */
class ServiceProxyTransport implements TaTransport {
  readonly kind = "service-proxy" as const;
  private agent: http.Agent | null = null;
  private readonly base: URL;
  private readonly prefix: string;

  constructor(
    private readonly source: string,
    private readonly config: TaConfig,
    private readonly kc: k8s.KubeConfig,
    private readonly reach: Extract<ReachSpec, { kind: "service-proxy" }>,
  ) {
    const server = kc.getCurrentCluster()?.server;
    if (!server) throw new SourceError({ source, kind: "config", message: "the kubeconfig has no current cluster", hint: "check the cluster's kubernetes.context" });
    this.base = new URL(server);
    this.prefix = `${this.base.pathname.replace(/\/+$/, "")}${serviceProxyPrefix(reach.namespace, reach.service, reach.port)}`;
  }

  async route(): Promise<TaRoute> {
    const opts: https.RequestOptions & { auth?: string } = {};
    await this.kc.applyToHTTPSOptions(opts as never);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === "string" || typeof v === "number") headers[k] = String(v);
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    if (!this.agent) {
      const o = { ...agentOptions(this.config), ca: opts.ca, cert: opts.cert, key: opts.key, servername: opts.servername, rejectUnauthorized: opts.rejectUnauthorized };
      this.agent = this.base.protocol === "https:" ? new https.Agent(o) : new http.Agent(o);
    }
    const { namespace } = this.reach;
    return {
      base: this.base,
      agent: this.agent,
      headers,
      pathPrefix: this.prefix,
      refused: (status, body) => {
        if (!/"kind"\s*:\s*"Status"/.test(body.subarray(0, 2048).toString("latin1"))) return undefined; // the TA's own answer
        return status === 401
          ? { message: "the API server refused the kubeconfig's credentials (HTTP 401)", hint: "log in again (the kubeconfig's token or certificate expired)" }
          : { message: forbiddenMessage("get", "services/proxy", namespace), hint: "reach serviceProxy sends the TA's requests through the API server's service proxy" };
      },
    };
  }

  failed(): void {}

  close(): void {
    this.agent?.destroy();
    this.agent = null;
  }
}
