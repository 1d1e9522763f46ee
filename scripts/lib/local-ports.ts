/**
 * Where `npm start` serves on this machine, read the same way by it and by what talks to it (the demo): the Worker on
 * 127.0.0.1:PORT (default 8787), the local chain on 127.0.0.1:LOCALNET_PORT (default 8899). README's table of
 * environment variables says the same.
 */
export const DEFAULT_WORKER_PORT = 8787;
/** localnet/server.ts's default too; not imported from there, which would load the whole local chain into the demo. */
export const DEFAULT_LOCALNET_PORT = 8899;

/** The Worker's port: PORT, else 8787. */
export function workerPort(): number {
  return portOf("PORT", process.env.PORT, DEFAULT_WORKER_PORT);
}

/** The local chain's port: LOCALNET_PORT, else 8899. */
export function localnetPort(): number {
  return portOf("LOCALNET_PORT", process.env.LOCALNET_PORT, DEFAULT_LOCALNET_PORT);
}

/** The origin of the Worker `npm start` serves (no trailing slash). */
export function workerOrigin(): string {
  return `http://127.0.0.1:${workerPort()}`;
}

/** The URL of the local chain `npm start` runs. */
export function localnetUrl(): string {
  return `http://127.0.0.1:${localnetPort()}`;
}

/** An unset or empty variable takes the default; anything but a whole number 1–65535 is refused by name. */
function portOf(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error(`${name}=${raw} is not a port: give a whole number from 1 to 65535, or leave ${name} unset`);
  return port;
}
