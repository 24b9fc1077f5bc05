/**
 * The limits of the dashboard's own HTTP server (server/inbound/server.ts), configured in the `server:` section of the
 * configuration. Node's defaults (headers 60 s, a request 300 s, no connection cap, a body read in full before anyone
 * decides) let a few dozen slow clients hold a pod's memory; these are sized for a dashboard whose only request bodies are
 * the demo's small fault requests.
 */
export interface InboundLimits {
  /** request bodies above this are refused (413); only the demo's fault routes accept one at all */
  maxBodyBytes: number;
  /** the request line and headers must arrive within this */
  headersTimeoutSeconds: number;
  /** the whole request (headers and body) must arrive within this */
  requestTimeoutSeconds: number;
  /** an idle keep-alive connection is closed after this */
  keepAliveTimeoutSeconds: number;
  /** a connection with no traffic either way (a client that stopped reading an answer) is closed after this */
  idleTimeoutSeconds: number;
  /** open connections at most; further ones are closed at once */
  maxConnections: number;
  /** the request line and headers together at most */
  maxHeaderBytes: number;
  /** headers per request at most (the rest are dropped) */
  maxHeadersCount: number;
  /**
   * requests of one client (an address, or the user the trusted proxy names) being answered at once; more get 429 at
   * once. A browser opens at most 6 connections to a host; a client past this floods the server: each request it has in
   * flight delays everyone else by its cost.
   */
  maxRequestsPerClient: number;
  /** requests one client may send a second, on average; more get 429 at once (a token bucket, lib/inbound/clients.ts) */
  requestsPerSecondPerClient: number;
  /** requests one client may send at once above that rate (a page load is a burst of a few dozen) */
  requestBurstPerClient: number;
}

export const DEFAULT_INBOUND_LIMITS: InboundLimits = {
  maxBodyBytes: 64 * 1024,
  headersTimeoutSeconds: 10,
  requestTimeoutSeconds: 30,
  keepAliveTimeoutSeconds: 5,
  idleTimeoutSeconds: 60,
  maxConnections: 256,
  maxHeaderBytes: 16 * 1024,
  maxHeadersCount: 100,
  maxRequestsPerClient: 8,
  requestsPerSecondPerClient: 20,
  requestBurstPerClient: 40,
};
