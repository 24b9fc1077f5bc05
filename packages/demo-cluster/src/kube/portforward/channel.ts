/**
 * The kubelet's WebSocket port-forward framing (`v4.channel.k8s.io`, `portforward.k8s.io`): binary messages whose first
 * byte is the channel. Port i of the request has channel 2i (data) and 2i+1 (errors); the first message the server
 * sends on each channel is the port number, 2 bytes little-endian. Pure helpers, tested beside.
 */

/** The subprotocols the demo accepts for WebSocket port-forward, and the one kubectl asks for to tunnel SPDY. */
export const CHANNEL_PROTOCOLS = ["v4.channel.k8s.io", "portforward.k8s.io"] as const;
export const SPDY_TUNNEL_PROTOCOL = "SPDY/3.1+portforward.k8s.io";

/** The first subprotocol the client offers that the demo supports (client order), or undefined. */
export function chooseProtocol(offered: Iterable<string>, supported: readonly string[]): string | undefined {
  for (const p of offered) if (supported.includes(p)) return p;
  return undefined;
}

export const channelMessage = (channel: number, data: Buffer | string): Buffer => Buffer.concat([Buffer.from([channel]), Buffer.isBuffer(data) ? data : Buffer.from(data, "utf8")]);

export const portMessage = (channel: number, port: number): Buffer => Buffer.from([channel, port & 0xff, (port >> 8) & 0xff]);

export function parseChannelMessage(msg: Buffer): { channel: number; data: Buffer } | undefined {
  if (msg.length < 1) return undefined;
  return { channel: msg[0], data: msg.subarray(1) };
}

/** `ports=8080,8443` (or repeated) as the kubelet reads it; an error text for a bad one. */
export function parsePorts(values: readonly string[]): number[] | string {
  const ports: number[] = [];
  for (const v of values.flatMap((x) => x.split(","))) {
    const t = v.trim();
    if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > 65535) return `invalid port "${t}"`;
    ports.push(Number(t));
  }
  return ports.length ? ports : "query parameter \"ports\" is required";
}

/** The kubelet's error text when nothing listens on the port inside the pod. */
export const refusedText = (port: number, pod: string, uid: string) =>
  `error forwarding port ${port} to pod ${uid}, uid : failed to connect to localhost:${port} inside namespace of pod ${pod}: connection refused`;
