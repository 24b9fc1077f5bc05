/** Listen on host:port (0 = a free port), rejecting on a listen error; resolves with the bound port. */
import type { AddressInfo, Server } from "node:net";

export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
