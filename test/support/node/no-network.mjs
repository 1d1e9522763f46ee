// Preloaded (node --import) into a process that must make no network call: any TCP connection, DNS lookup or fetch
// throws. Unix-socket connections (IPC) are left alone.
import dns from "node:dns";
import net from "node:net";

const refuse = (what) => {
  throw new Error(`network access refused in this process: ${what}`);
};
globalThis.fetch = (input) => refuse(`fetch ${String(input)}`);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const options = typeof args[0] === "object" && args[0] !== null ? args[0] : { port: args[0] };
  if (options.path === undefined && (options.port !== undefined || options.host !== undefined))
    refuse(`connect ${options.host ?? ""}:${options.port ?? ""}`);
  return connect.apply(this, args);
};
dns.lookup = (hostname) => refuse(`dns ${hostname}`);
