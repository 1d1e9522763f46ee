import { describe, expect, it } from "vitest";
import { judgeProbeHost } from "../../../../src/directory/resources/ssrf-guard";

const judge = (url: string, allowLoopback = false) => judgeProbeHost(new URL(url), { allowLoopback }).allowed;

describe("probe SSRF guard", () => {
  it.each([
    // IPv4 loopback in every notation the URL parser accepts
    "http://127.0.0.1/",
    "http://127.1/",
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://0x7f.0.0.1/",
    "http://0x7f000001/",
    "http://127.0.0.1.:8080/",
    // private, CGNAT, link-local / metadata, "this network", multicast, broadcast
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://100.100.100.200/",
    "http://169.254.169.254/latest/meta-data",
    "http://0.0.0.0/",
    "http://0/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://0xa9fea9fe/",
    "http://025177524776/",
    // IPv6 loopback, unspecified, mapped, compatible, NAT64, 6to4, ULA (incl. AWS metadata), link-local, multicast
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:7f00:1::]/",
    "http://[fd00:ec2::254]/",
    "http://[fc00::1]/",
    "http://[fe80::1]/",
    "http://[ff02::1]/",
    // names
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://metadata.google.internal/",
    "http://printer.local/",
    "http://intranet/",
    // not http(s), credentials
    "ftp://example.com/",
    "http://user:pw@example.com/",
  ])("refuses %s", (url) => {
    expect(judge(url)).toBe(false);
  });

  it.each([
    "https://example.com/x",
    "http://93.184.216.34/",
    "http://[2606:4700::6810:85e5]/",
    "http://172.32.0.1/",
    "http://[::ffff:8.8.8.8]/",
  ])("allows public %s", (url) => {
    expect(judge(url)).toBe(true);
  });

  it("the loopback switch opens loopback only, never private, link-local or metadata addresses", () => {
    for (const url of [
      "http://127.0.0.1:9/",
      "http://2130706433/",
      "http://[::1]/",
      "http://localhost/",
      "http://[::ffff:127.0.0.1]/",
    ])
      expect(judge(url, true)).toBe(true);
    for (const url of [
      "http://10.0.0.1/",
      "http://169.254.169.254/",
      "http://[fe80::1]/",
      "http://192.168.0.1/",
      "http://0.0.0.0/",
    ])
      expect(judge(url, true)).toBe(false);
  });

  // Issue 22 §5: found as "public" by the old guard.
  it.each([
    // every trailing dot is stripped, not just one
    "http://localhost../",
    "http://localhost.../",
    "http://api.localhost../",
    "http://metadata.google.internal../",
    // the IPv4-translated range ::ffff:0:0/96 is judged by the IPv4 inside, like mapped addresses
    "http://[::ffff:0:7f00:1]/",
    "http://[::ffff:0:a9fe:a9fe]/",
    "http://[::ffff:0:a00:1]/",
    // IPv6 literals outside global unicast 2000::/3
    "http://[4000::1]/",
    "http://[e000::1]/",
    "http://[100::1]/",
    "http://[1::1]/",
    "http://[::ffff:1:0:1]/",
  ])("refuses %s (issue 22 §5)", (url) => {
    expect(judge(url)).toBe(false);
  });

  it("a translated loopback address is loopback (the switch opens it), a translated public address is public", () => {
    expect(judge("http://[::ffff:0:7f00:1]/", true)).toBe(true);
    expect(judge("http://[::ffff:0:808:808]/")).toBe(true);
    expect(judge("http://localhost../", true)).toBe(true);
  });
});
