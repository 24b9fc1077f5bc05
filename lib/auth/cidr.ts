/**
 * IP addresses and CIDR ranges (IPv4 and IPv6), parsed into bigints so that matching is exact. An IPv4-mapped IPv6 address
 * (`::ffff:10.0.0.1`, what a dual-stack Node server reports for an IPv4 peer) is the IPv4 address.
 */

export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

export interface Cidr {
  family: 4 | 6;
  base: bigint;
  bits: number;
  text: string;
}

function parseIpv4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let v = BigInt(0);
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith("0"))) return null;
    const n = Number(p);
    if (n > 255) return null;
    v = (v << BigInt(8)) | BigInt(n);
  }
  return v;
}

function parseIpv6(text: string): bigint | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string): number[] | null => {
    if (s === "") return [];
    const out: number[] = [];
    const items = s.split(":");
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (i === items.length - 1 && item.includes(".")) {
        const v4 = parseIpv4(item);
        if (v4 === null) return null;
        out.push(Number(v4 >> BigInt(16)), Number(v4 & BigInt(0xffff)));
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(item)) return null;
        out.push(parseInt(item, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  let all: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    all = head;
  }
  if (all.length !== 8) return null;
  return all.reduce((acc, g) => (acc << BigInt(16)) | BigInt(g), BigInt(0));
}

const MAPPED_PREFIX = BigInt(0xffff) << BigInt(32);
const LOW32 = (BigInt(1) << BigInt(32)) - BigInt(1);

/** An IPv4 or IPv6 address; null when the text is not one. Zone ids (`fe80::1%eth0`) are dropped. */
export function parseIp(text: string): IpAddress | null {
  const t = text.trim().replace(/^\[|\]$/g, "").replace(/%[^%]*$/, "");
  const v4 = parseIpv4(t);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIpv6(t);
  if (v6 === null) return null;
  if (v6 >> BigInt(32) === BigInt(0xffff) && (v6 & ~LOW32) === MAPPED_PREFIX) return { family: 4, value: v6 & LOW32 };
  return { family: 6, value: v6 };
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128). Null when invalid. */
export function parseCidr(text: string): Cidr | null {
  const [addr, bitsText, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const ip = parseIp(addr);
  if (!ip) return null;
  const max = addr.includes(":") ? 128 : 32;
  let bits = ip.family === 4 ? 32 : 128;
  if (bitsText !== undefined) {
    if (!/^\d{1,3}$/.test(bitsText)) return null;
    bits = Number(bitsText);
    if (bits > max) return null;
    // `::ffff:10.0.0.0/104` is the IPv4 range 10.0.0.0/8
    if (ip.family === 4 && addr.includes(":")) bits -= 96;
    if (bits < 0) return null;
  }
  const width = BigInt(ip.family === 4 ? 32 : 128);
  const mask = bits === 0 ? BigInt(0) : ((BigInt(1) << BigInt(bits)) - BigInt(1)) << (width - BigInt(bits));
  return { family: ip.family, base: ip.value & mask, bits, text: text.trim() };
}

export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  if (cidr.family !== ip.family) return false;
  const width = BigInt(cidr.family === 4 ? 32 : 128);
  const mask = cidr.bits === 0 ? BigInt(0) : ((BigInt(1) << BigInt(cidr.bits)) - BigInt(1)) << (width - BigInt(cidr.bits));
  return (ip.value & mask) === cidr.base;
}
