/**
 * Who this replica is in the Lease election and where the other replicas reach it: the pod's name and IP from the
 * downward API (POD_NAME, POD_IP) and the server's PORT; without them, the host name and 127.0.0.1 (replicas on one
 * machine: give each a POD_NAME of its own).
 */
export interface ReplicaIdentity {
  identity: string;
  /** host:port, an IPv6 address in brackets */
  address: string;
}

export function replicaIdentity(env: Record<string, string | undefined>, hostname: string): ReplicaIdentity {
  const identity = env.POD_NAME?.trim() || hostname;
  const ip = env.POD_IP?.trim() || "127.0.0.1";
  const port = env.PORT?.trim() || "3000";
  return { identity, address: `${ip.includes(":") ? `[${ip}]` : ip}:${port}` };
}
