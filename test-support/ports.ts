/** Free TCP ports, so that test servers beside others on the machine do not collide. */
import net from "node:net";

/** A free TCP port on `host` (default 127.0.0.1), found by listening on port 0 and closing again. */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, host, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
