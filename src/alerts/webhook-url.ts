/**
 * The SSRF guard of webhooks (decisions §7): a webhook is `https://` to a public address. A
 * literal address is checked as written (after WHATWG URL normalization, which turns
 * `https://2130706433/` and `https://0x7f.1/` into `127.0.0.1`); a name is checked on every
 * address it resolves to — at creation, and again before each delivery, whose connection then
 * goes to the address checked (never to a second resolution that could answer otherwise).
 * `allowPrivate` (`xql serve --allow-private-webhooks`) lets `http://` and private, loopback
 * and link-local addresses through, for tests and local setups.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { XqlDataError } from "../errors.js";

/** The body of every refused webhook URL. */
export const WEBHOOK_REFUSED = { error: "Webhook URL must be https:// to a public address" } as const;

/** The longest webhook URL accepted. */
export const MAX_WEBHOOK_LENGTH = 2048;

/** One address a name resolves to. */
export interface ResolvedAddress {
  /** The address as text: `93.184.215.14`, `2606:4700::1111`. */
  address: string;
  /** 4 or 6. */
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the system resolver, as connections use). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** The URL when it may be a webhook as written (scheme, shape, literal address); undefined when it may not. */
export function parseWebhookUrl(text: string, allowPrivate: boolean): URL | undefined {
  if (text.length === 0 || text.length > MAX_WEBHOOK_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) return undefined;
  const host = hostOf(url);
  if (host === "") return undefined;
  if (!allowPrivate) {
    if (isIP(host) !== 0 && !isPublicAddress(host)) return undefined;
    // RFC 6761: localhost and every name under it are the machine itself, whatever DNS says.
    if (host === "localhost" || host.endsWith(".localhost") || host === "localhost.") return undefined;
  }
  return url;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The addresses to connect to for a webhook, each checked: its literal address, or every
 * address its name resolves to. Undefined when one of them is not public (unless allowed).
 * A resolver failure rejects (the caller decides: creation lets it pass, a delivery retries).
 */
export async function checkedAddresses(url: URL, allowPrivate: boolean, resolve: Resolver): Promise<ResolvedAddress[] | undefined> {
  const host = hostOf(url);
  const family = isIP(host);
  const addresses: ResolvedAddress[] = family !== 0 ? [{ address: host, family: family === 6 ? 6 : 4 }] : await resolve(host);
  if (addresses.length === 0) throw new XqlDataError("webhook-no-address", { host });
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) return undefined;
  return addresses;
}

/** Non-public IPv4 ranges: [first octets as a 32-bit number, prefix length]. */
const IPV4_RESERVED: readonly [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
];

function ipv4Number(address: string): number {
  const [a, b, c, d] = address.split(".").map(Number) as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

const IPV4_RANGES = IPV4_RESERVED.map(([first, bits]) => ({ first: ipv4Number(first), mask: bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0 }));

function isPublicIpv4(value: number): boolean {
  return !IPV4_RANGES.some((r) => ((value & r.mask) >>> 0) === r.first);
}

/** The 16 bytes of an IPv6 address (`::` shorthand, a dotted IPv4 tail, a zone index). */
function ipv6Bytes(address: string): Uint8Array {
  let text = address.split("%")[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    // The dotted tail is the last two words written another way.
    const v4 = ipv4Number(dotted);
    text = `${text.slice(0, -dotted.length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const words = (part: string): number[] => (part === "" ? [] : part.split(":").map((w) => parseInt(w, 16)));
  const gap = text.indexOf("::");
  const front = words(gap < 0 ? text : text.slice(0, gap));
  const back = gap < 0 ? [] : words(text.slice(gap + 2));
  const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  all.forEach((w, i) => {
    bytes[2 * i] = (w >> 8) & 0xff;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

function embeddedIpv4(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function isPublicIpv6(bytes: Uint8Array): boolean {
  const zero = (from: number, to: number): boolean => bytes.subarray(from, to).every((b) => b === 0);
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, which covers :: and ::1):
  // the IPv4 address decides, so ::ffff:127.0.0.1 is loopback.
  if (zero(0, 10) && ((bytes[10] === 0xff && bytes[11] === 0xff) || (bytes[10] === 0 && bytes[11] === 0))) {
    return isPublicIpv4(embeddedIpv4(bytes, 12));
  }
  // 64:ff9b::/96, NAT64 to an IPv4 address: the IPv4 address decides.
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return isPublicIpv4(embeddedIpv4(bytes, 12));
  // 2002::/16, 6to4: the IPv4 address in bytes 2..5 decides.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return isPublicIpv4(embeddedIpv4(bytes, 2));
  // Only global unicast (2000::/3) is public; of it, these blocks are not.
  if ((bytes[0]! & 0xe0) !== 0x20) return false; // ULA fc00::/7, link-local fe80::/10, multicast ff00::/8, 64:ff9b:1::/48, 100::/64 ...
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2]! < 0x02) return false; // 2001::/23 IETF protocol assignments (Teredo, ORCHID, ...)
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8) return false; // 2001:db8::/32 documentation
  if (bytes[0] === 0x3f && bytes[1] === 0xff && bytes[2]! < 0x10) return false; // 3fff::/20 documentation
  return true;
}

/** True for an IPv4 or IPv6 address on the public internet; false for private, loopback, link-local, reserved ones. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPublicIpv4(ipv4Number(address));
  if (family === 6) return isPublicIpv6(ipv6Bytes(address));
  return false;
}
