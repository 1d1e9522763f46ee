import { createServer } from "node:net";

/** A loopback port nothing listens on right now (the OS picks it; free until someone else takes it). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no free loopback port")),
      );
    });
  });
}
