/**
 * Refuses probe targets that point into private networks (SSRF guard). It judges the URL's host as the WHATWG
 * URL parser normalized it: every IPv4 notation (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short
 * forms) becomes dotted quad and IPv6 becomes compressed hex, so one classifier covers them all.
 *
 * A Worker cannot resolve DNS itself, so a public name that resolves to a private address is not caught here.
 * What a deployed Worker's `fetch` can reach, per Cloudflare's Workers "Known issues" page
 * (developers.cloudflare.com/workers/platform/known-issues): subrequests go only to URLs with host names, not to IP
 * addresses directly ("Fetch to IP addresses"); custom ports are ignored in favour of the scheme's default port
 * ("Custom ports"); names are resolved by Cloudflare's DNS resolver ("Fetch API in CNAME setup"). None of that holds
 * under `wrangler dev`, Miniflare or the tests, so this guard stands on its own; docs/directory-and-agents.md "What
 * Cloudflare itself prevents" has the rest.
 */
export type HostVerdict = { allowed: true } | { allowed: false; reason: string };

type AddressClass = "public" | "loopback" | "private";

export function judgeProbeHost(url: URL, options: { allowLoopback: boolean }): HostVerdict {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { allowed: false, reason: `scheme ${url.protocol} is not http(s)` };
  if (url.username !== "" || url.password !== "")
    return { allowed: false, reason: "URLs with credentials are not probed" };
  // Every trailing dot: `localhost..` is still localhost to a resolver that trims them.
  const host = url.hostname.toLowerCase().replace(/\.+$/, "");
  const kind = classifyHost(host);
  if (kind === "public") return { allowed: true };
  if (kind === "loopback" && options.allowLoopback) return { allowed: true };
  return { allowed: false, reason: `host ${url.hostname} is a ${kind} address; the probe only reaches public hosts` };
}

export function classifyHost(host: string): AddressClass {
  if (host === "") return "private";
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host.startsWith("[") && host.endsWith("]")) return classifyIpv6(host.slice(1, -1));
  const v4 = parseDottedIpv4(host);
  if (v4 !== null) return classifyIpv4(v4);
  // Names that only exist inside private networks and cloud metadata services.
  if (/(^|\.)(internal|local|localdomain|home\.arpa|intranet|lan)$/.test(host)) return "private";
  if (!host.includes(".")) return "private";
  return "public";
}

function parseDottedIpv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

/** [base, prefix length, class] of IPv4 ranges that are not public unicast (IANA special-purpose registry). */
const IPV4_RANGES: [number, number, AddressClass][] = [
  [ipv4(127, 0, 0, 0), 8, "loopback"],
  [ipv4(0, 0, 0, 0), 8, "private"], // "this network"; 0.0.0.0 reaches the local host on many stacks
  [ipv4(10, 0, 0, 0), 8, "private"],
  [ipv4(100, 64, 0, 0), 10, "private"], // carrier-grade NAT, includes 100.100.100.200 (a cloud metadata address)
  [ipv4(169, 254, 0, 0), 16, "private"], // link-local, includes 169.254.169.254 (cloud metadata)
  [ipv4(172, 16, 0, 0), 12, "private"],
  [ipv4(192, 0, 0, 0), 24, "private"],
  [ipv4(192, 0, 2, 0), 24, "private"],
  [ipv4(192, 88, 99, 0), 24, "private"],
  [ipv4(192, 168, 0, 0), 16, "private"],
  [ipv4(198, 18, 0, 0), 15, "private"],
  [ipv4(198, 51, 100, 0), 24, "private"],
  [ipv4(203, 0, 113, 0), 24, "private"],
  [ipv4(224, 0, 0, 0), 4, "private"], // multicast
  [ipv4(240, 0, 0, 0), 4, "private"], // reserved and broadcast
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a * 256 + b) * 256 + c) * 256 + d;
}

function classifyIpv4(value: number): AddressClass {
  for (const [base, bits, kind] of IPV4_RANGES) {
    const size = 2 ** (32 - bits);
    if (value >= base && value < base + size) return kind;
  }
  return "public";
}

/** Eight 16-bit groups of a (WHATWG-normalized) IPv6 literal, or null. Dotted tails (`::1.2.3.4`) are accepted too. */
function parseIpv6(text: string): number[] | null {
  let head = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const v4 = parseDottedIpv4(dotted[2]!);
    if (v4 === null) return null;
    head = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
    tail.push(Math.floor(v4 / 65536), v4 % 65536);
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string) =>
    part === "" ? [] : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? [...groups(halves[1]!), ...tail] : [];
  const all =
    halves.length === 2
      ? [...left, ...new Array(8 - left.length - right.length).fill(0), ...right]
      : [...left, ...tail];
  if (all.length !== 8 || all.some((g) => Number.isNaN(g))) return null;
  return all;
}

function classifyIpv6(text: string): AddressClass {
  const g = parseIpv6(text.split("%")[0]!);
  if (g === null) return "private";
  const embeddedV4 = (hi: number, lo: number) => classifyIpv4(hi * 65536 + lo);
  const zeroPrefix = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroPrefix(7) && g[7] === 1) return "loopback"; // ::1
  if (zeroPrefix(8)) return "private"; // ::
  if (zeroPrefix(5) && g[5] === 0xffff) return embeddedV4(g[6]!, g[7]!); // ::ffff:a.b.c.d (mapped)
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765)
  if (zeroPrefix(4) && g[4] === 0xffff && g[5] === 0) return embeddedV4(g[6]!, g[7]!);
  if (zeroPrefix(6)) return embeddedV4(g[6]!, g[7]!); // ::a.b.c.d (compatible, deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b) return embeddedV4(g[6]!, g[7]!); // NAT64
  if (g[0] === 0x2002) return embeddedV4(g[1]!, g[2]!); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return "private"; // Teredo: the IPv4 inside is obfuscated
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "private"; // documentation
  if (g[0] === 0x100 && zeroPrefix(0) && g[1] === 0 && g[2] === 0 && g[3] === 0) return "private"; // discard
  if ((g[0]! & 0xfe00) === 0xfc00) return "private"; // unique local, includes fd00:ec2::254 (cloud metadata)
  if ((g[0]! & 0xffc0) === 0xfe80 || (g[0]! & 0xffc0) === 0xfec0) return "private"; // link-local, site-local
  if ((g[0]! & 0xff00) === 0xff00) return "private"; // multicast
  // Only global unicast (2000::/3) is public; everything else IANA has not allocated for the public Internet.
  if ((g[0]! & 0xe000) !== 0x2000) return "private";
  return "public";
}
